// Seed "Data Modeling Part 5: Bucketing": activity streams by fan-out on
// read, on write, on write with bucketing, and by reference; Jane's inbox.
#include "scenarios/activity.hpp"
#include "scenarios/example_main.hpp"

using namespace kvmodel;

int main(int argc, char** argv) {
    return examples::example_main(argc, argv, "activity streams", [](auto& c, std::ostream& out, examples::checker& check) {
        auto r = examples::run_activity(c, out);
        if (!r) {
            std::cerr << "error: " << r.error().message << "\n";
            return false;
        }
        const std::vector<std::string> expected = {"Jane>> My 3rd message...", "Jane>> My 2nd message...",
                                                   "Jane>> My 1st message...", "Joe>> Silly message..."};
        check.expect(r->on_write == expected, "fan out on write: Jane's inbox");
        check.expect(r->bucketed == expected, "bucketed fan out: Jane's inbox");
        check.expect(r->by_reference == expected, "by reference: Jane's inbox");
        check.expect(r->on_read == expected, "fan out on read: Jane's inbox");
        return true;
    });
}
