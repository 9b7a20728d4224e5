// Seed "Maps as Event Containers with Timestamp Values": messages keyed by
// UUID with [ts, text, from, reply-to] values, sliced by value interval and
// read most-recent-first by rank.
#include "scenarios/example_main.hpp"
#include "scenarios/conversation.hpp"

using namespace kvmodel;

int main(int argc, char** argv) {
    return examples::example_main(argc, argv, "timestamped map", [](auto& c, std::ostream& out, examples::checker& check) {
        auto r = examples::run_conversation(c, out);
        if (!r) {
            std::cerr << "error: " << r.error().message << "\n";
            return false;
        }
        check.expect(r->in_window.size() == 3, "three messages between 1523474230000 and 1523474250000");
        check.expect(r->recent.size() == 4 && r->recent.front() == "319fa1a6-0640-4354-a426-10c4d3459f0a",
                     "four most recent, newest first");
        return true;
    });
}
