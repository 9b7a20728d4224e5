// Seed "Using a List and a Sequence to store an unbounded collection of
// records": a user's events of one day, 100 per bucket, appended without the
// seed's -1 lock, read back with one batch read.
#include "scenarios/common.hpp"
#include "scenarios/example_main.hpp"

#include <kvmodel/patterns/bucketed_list.hpp>

using namespace kvmodel;

int main(int argc, char** argv) {
    return examples::example_main(argc, argv, "bucketed list: a user's events per day", [](sim::cluster& c, std::ostream& out, examples::checker& check) {
        using events_t = patterns::bucketed_list<sim::cluster, std::string>;
        events_t events(c, {patterns::bucket_policy::by_time, 100});
        const std::int64_t day = patterns::utc_day_start_ms(20180411);
        c.reset_stats();
        for (int i = 0; i < 350; ++i) {
            auto r = events.append("user-42", std::string("event ").append(std::to_string(i + 1)), day + i * 60000);
            if (!r) {
                std::cerr << "append: " << r.error().message << "\n";
                return false;
            }
        }
        auto st = c.stats().namespaces[0].totals;
        out << "appended 350 events: " << st.round_trips << " round trips ("
            << examples::fmt_double(static_cast<double>(st.round_trips) / 350.0) << " per append), "
            << st.bytes_written / 350 << " bytes written per append\n";
        std::size_t buckets = 0;
        for (std::uint64_t b = 0; b < 10; ++b) {
            auto r = c.get(events.bucket_key("user-42", 20180411, b));
            if (!r) break;
            ++buckets;
            out << "  user-42:20180411:" << b + 1 << " holds " << r->value_of("items").as_map().size() << " events\n";
        }
        check.expect(buckets == 4, "350 events make 4 buckets of 100");
        c.reset_stats();
        auto all = events.read_time("user-42", day, day + 86400000);
        if (!all) {
            std::cerr << "read: " << all.error().message << "\n";
            return false;
        }
        auto rt = c.stats().namespaces[0].totals;
        out << "read the day back: " << all->size() << " events in " << rt.round_trips
            << " round trips (one batch of day heads, one batch of buckets)\n";
        check.expect(all->size() == 350, "all 350 events read back");
        check.expect(!all->empty() && all->front().item == "event 1" && all->back().item == "event 350", "in order");
        auto page = events.newest("user-42", 5);
        if (!page) return false;
        out << "newest five:";
        for (const auto& e : page->items) out << " [" << e.item << "]";
        out << "\n";
        check.expect(page->items.size() == 5 && page->items[0].item == "event 350", "newest first");
        return true;
    });
}
