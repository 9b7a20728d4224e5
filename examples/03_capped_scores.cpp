// Seed "Capped Collection of Events": Pac-Man high scores in a KV-ordered map
// capped at 100 entries; insert and trim in one operate().
#include "scenarios/example_main.hpp"
#include "scenarios/pacman.hpp"

using namespace kvmodel;

int main(int argc, char** argv) {
    return examples::example_main(argc, argv, "capped collection", [](auto& c, std::ostream& out, examples::checker& check) {
        auto r = examples::run_pacman(c, out);
        if (!r) {
            std::cerr << "error: " << r.error().message << "\n";
            return false;
        }
        check.expect(r->by_date == std::vector<std::string>{"CPU", "ETC", "SOS", "ACE", "EIR", "CFO"}, "by date");
        check.expect(r->by_rank == std::vector<std::string>{"ACE", "SOS", "EIR", "CFO", "CPU", "ETC"}, "by rank");
        check.expect(r->size_after_expand == 100, "expanded to 100");
        check.expect(r->highest == 34500, "ACE's 34500 is the highest");
        check.expect(r->size_after_inject == 100, "still 100 after the injection");
        check.expect(r->injected_kept && r->lowest_after == r->lowest_before + 1, "the new score is the new lowest");
        check.expect(r->highest_after == 34500, "highest unchanged");
        return true;
    });
}
