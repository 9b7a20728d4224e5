// Seed "Using Maps to Capture and Query Events": a KV-ordered map of
// timestamp -> [type, {attrs}] per user, queried by time slice and by type.
#include "scenarios/example_main.hpp"
#include "scenarios/events.hpp"

using namespace kvmodel;

int main(int argc, char** argv) {
    return examples::example_main(argc, argv, "event map", [](auto& c, std::ostream& out, examples::checker& check) {
        auto r = examples::run_events(c, out);
        if (!r) {
            std::cerr << "error: " << r.error().message << "\n";
            return false;
        }
        check.expect(r->comments == std::vector<std::int64_t>{1523474231001, 1523474235005}, "two comment events");
        check.expect(r->viewed == 3, "three viewed events");
        check.expect(r->viewed_or_comment == 5, "five viewed or comment events");
        check.expect(r->in_window.size() == 5, "five events in the window");
        check.expect(r->size_before == 256, "256 bytes with 6 events (AEROSPIKE-RECORDS.md)");
        check.expect(r->events_after == 806, "806 events");
        check.expect(r->size_after == 25104, "25,104 bytes with 806 events (AEROSPIKE-RECORDS.md)");
        return true;
    });
}
