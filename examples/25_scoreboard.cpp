// Scoreboard: a game board whose scores change. Players are set, scored with
// exactly-once adds (a resend after a lost answer counts once), removed;
// ranks in the three tie modes, the top 3 with ties and "around me" — each one
// round trip. Then a bucketed board past one record: an exact global rank and
// "around me" across buckets in two batches each after rebalancing. Every number printed is also checked; a
// wrong one fails the example.
#include <kvmodel/patterns/bucketed_scoreboard.hpp>
#include <kvmodel/patterns/scoreboard.hpp>
#include <kvmodel/sim/cluster.hpp>

#include "scenarios/example_main.hpp"

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

using namespace kvmodel;
using patterns::tie_mode;

int main() {
    sim::cluster db;
    examples::checker checker;
    auto check = [&checker](bool ok, const char* what) { checker.expect(ok, what); };
    auto round_trips = [&db] { return db.stats().find("test")->totals.round_trips; };

    patterns::scoreboard<sim::cluster> board(db); // highest first
    for (const auto& [p, s] : std::vector<std::pair<std::string, std::int64_t>>{
             {"ann", 120}, {"bob", 90}, {"cat", 120}, {"dan", 75}, {"eve", 60}, {"fay", 90}})
        board.set("arena", p, s).value();

    // An add whose answer is lost (in doubt) is resent with its op id: once.
    db.add_fault(sim::fault::in_doubt()).value();
    auto lost = board.add("arena", "dan", 15, "match-17", 17);
    check(!lost && lost.error().in_doubt, "the first send is in doubt");
    db.reset_stats();
    auto resent = board.add("arena", "dan", 15, "match-17", 17).value();
    const auto add_rt = round_trips();
    std::cout << "resent add: applied again = " << resent.applied << ", dan = "
              << board.score("arena", "dan").value().value_or(0) << " (" << add_rt
              << " round trip for the add)\n";
    check(!resent.applied && board.score("arena", "dan").value() == 90, "counted once");
    check(add_rt == 1, "an add is one round trip");

    // ann 120, cat 120, bob 90, dan 90, fay 90, eve 60
    db.reset_stats();
    const auto c = board.rank("arena", "fay", tie_mode::competition).value().value_or(0);
    const auto d = board.rank("arena", "fay", tie_mode::dense).value().value_or(0);
    const auto o = board.rank("arena", "fay", tie_mode::ordinal).value().value_or(0);
    std::cout << "fay: competition " << c << ", dense " << d << ", ordinal " << o << " ("
              << round_trips() << " round trips)\n";
    check(c == 3 && d == 2 && o == 5 && round_trips() == 3, "tie modes, one round trip each");

    std::cout << "top 3 with ties:";
    const auto top = board.top("arena", 3, tie_mode::competition).value();
    for (const auto& e : top) std::cout << " " << e.rank << "." << e.player << "=" << e.score;
    std::cout << "\n";
    check(top.size() == 5 && top.back().player == "fay" && top.back().rank == 3,
          "the top 3 holds everyone tied with the third");

    std::cout << "around eve (k = 1):";
    const auto near = board.around("arena", "eve", 1).value();
    for (const auto& e : near) std::cout << " " << e.rank << "." << e.player;
    std::cout << "\n";
    check(near.size() == 2 && near[0].player == "fay" && near[1].rank == 6, "around me");

    check(board.remove("arena", "ann").value(), "remove");
    check(board.rank("arena", "cat", tie_mode::ordinal).value() == 1, "cat leads alone");

    // Past one record: score-range buckets, rebalanced as they fill.
    patterns::bucketed_scoreboard<sim::cluster> world(
        db, {.max_bucket = 100, .min_bucket = 20, .directory_shards = 8});
    for (std::int64_t i = 0; i < 1000; ++i) {
        std::string p = "p";
        p += std::to_string(i);
        world.set("world", p, i % 250).value();
    }
    const auto report = world.rebalance("world").value();
    std::cout << "1000 players: " << report.splits << " splits, " << report.buckets
              << " buckets\n";
    check(report.buckets >= 10, "buckets of at most 100");
    const auto r = world.rank("world", "p3", tie_mode::competition).value().value_or(0);
    std::cout << "p3 (score 3): global rank " << r << "\n";
    check(r == 985, "246 better scores, 4 players each, +1");

    // Around me across bucket boundaries: exact global ranks in two batches.
    std::cout << "around p3 (k = 2):";
    const auto world_near = world.around("world", "p3", 2, tie_mode::competition).value();
    for (const auto& e : world_near) std::cout << " " << e.rank << "." << e.player << "=" << e.score;
    std::cout << "\n";
    check(world_near.size() == 5 && world_near[0].player == "p754" && world_near[0].rank == 981 &&
              world_near[2].player == "p3" && world_near[4].player == "p753" &&
              world_near[4].rank == 985,
          "two above (a score-4 player, a tie ahead by name) and two below, global ranks");
    return checker.failures == 0 ? 0 : 1;
}
