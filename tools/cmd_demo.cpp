// tools/cmd_demo.cpp
//
// `kvmodel demo`: the seed scenarios end to end on a simulated 3-node cluster,
// each printing its results and what it cost — round trips, bytes read and
// written, and the largest record against the namespace's max-record-size.
#include "command.hpp"

#include "../examples/scenarios/example_main.hpp"
#include "../examples/scenarios/seed_scenarios.hpp"

#include <iostream>
#include <span>
#include <string_view>

namespace {

using namespace kvmodel;

template <class Outcome>
bool print_outcome(sim::cluster& c, std::string_view title, const result<Outcome>& r) {
    if (!r) std::cout << "error: " << status_name(r.error().code) << ": " << r.error().message << "\n";
    examples::print_cost(std::cout, c);
    std::cout << "\n";
    (void)title;
    return r.has_value();
}

int run_demo(std::span<char*> args) {
    for (std::string_view a : args) {
        if (a == "--help" || a == "-h") {
            std::cout << "usage: kvmodel demo\n\n"
                         "Runs the seed documents' scenarios (event map, timestamped map, capped\n"
                         "collection, ordered-list leaderboard, nested documents) on a simulated\n"
                         "3-node cluster and prints each one's results and cost.\n";
            return 0;
        }
        std::cerr << "kvmodel demo: unknown argument '" << a << "' (try --help)\n";
        return 2;
    }
    bool ok = true;
    auto section = [&](std::string_view title, auto&& run) {
        sim::cluster c;
        std::cout << "== " << title << "\n";
        ok = print_outcome(c, title, run(c)) && ok;
    };
    section("event map: per-user events keyed by timestamp",
            [](sim::cluster& c) { return examples::run_events(c, std::cout); });
    section("timestamped map: a conversation keyed by message id",
            [](sim::cluster& c) { return examples::run_conversation(c, std::cout); });
    section("capped collection: Pac-Man top 100",
            [](sim::cluster& c) { return examples::run_pacman(c, std::cout); });
    section("ordered-list leaderboard: 100 m world records",
            [](sim::cluster& c) { return examples::run_world_records(c, std::cout); });
    section("nested documents: awards at depth",
            [](sim::cluster& c) { return examples::run_awards(c, std::cout); });
    return ok ? 0 : 1;
}

} // namespace

KVMODEL_REGISTER_COMMAND("demo", "run the seed scenarios on a simulated cluster, with their cost", run_demo);
