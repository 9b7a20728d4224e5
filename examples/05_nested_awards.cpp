// Seed "Operating on Nested Maps and Lists": awards given once and counters
// incremented at depth, addressed by player name or by rank.
#include "scenarios/example_main.hpp"
#include "scenarios/awards.hpp"

using namespace kvmodel;

int main(int argc, char** argv) {
    return examples::example_main(argc, argv, "nested documents", [](auto& c, std::ostream& out, examples::checker& check) {
        auto r = examples::run_awards(c, out);
        if (!r) {
            std::cerr << "error: " << r.error().message << "\n";
            return false;
        }
        check.expect(r->cfo_attrs_after_first == 3 && r->cfo_attrs_after_second == 3, "the unicorn is given once");
        check.expect(r->leader == "ACE" && r->trophies == 2, "the leader ACE has two trophies");
        check.expect(r->top3 == std::vector<std::string>{"ACE", "SOS", "EIR"}, "top three");
        return true;
    });
}
