// Seed "Ordered List Leaderboard": men's 100 m world records merged uniquely
// into an ordered list, and the two results closest to 10.0 s by relative rank.
#include "scenarios/example_main.hpp"
#include "scenarios/world_records.hpp"

using namespace kvmodel;

int main(int argc, char** argv) {
    return examples::example_main(argc, argv, "ordered list leaderboard", [](auto& c, std::ostream& out, examples::checker& check) {
        auto r = examples::run_world_records(c, out);
        if (!r) {
            std::cerr << "error: " << r.error().message << "\n";
            return false;
        }
        check.expect(r->size == 19, "19 unique records after the merge");
        check.expect(!r->ordered.empty() && std::get<1>(r->ordered.front()) == "Usain Bolt", "9.58 first");
        check.expect(r->closest.size() == 2 && std::get<0>(r->closest[0]) == 9.95 &&
                         std::get<1>(r->closest[0]) == "Jim Hines" && std::get<0>(r->closest[1]) == 10.02 &&
                         std::get<1>(r->closest[1]) == "Charles Greene",
                     "closest to 10.0 s: Jim Hines 9.95 and Charles Greene 10.02");
        return true;
    });
}
