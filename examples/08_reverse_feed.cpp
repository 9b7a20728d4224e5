// Seed "time ticks in NoSQL table as a range key": a feed keyed by
// MAX - tick (newest first), posted to followers synchronously and through a
// bounded worker queue, read a page at a time with a cursor.
#include "scenarios/example_main.hpp"

#include <kvmodel/patterns/reverse_feed.hpp>

using namespace kvmodel;

namespace {
std::int64_t now_ms = 1523474230000;
std::int64_t demo_clock() { return now_ms; }
} // namespace

int main(int argc, char** argv) {
    return examples::example_main(argc, argv, "reverse-time feed", [](sim::cluster& c, std::ostream& out, examples::checker& check) {
        patterns::tick_source ticks(1, &demo_clock);
        patterns::reverse_feed<sim::cluster, std::string> feed(c, ticks);
        const std::vector<std::string> followers{"bob", "jane"};
        for (int i = 1; i <= 5; ++i) {
            auto p = feed.post("editor", std::string("article ").append(std::to_string(i)), followers);
            if (!p) {
                std::cerr << "post: " << p.error().message << "\n";
                return false;
            }
            now_ms += 3600 * 1000;
        }
        {
            patterns::fan_out_queue<sim::cluster, std::string> queue(feed, 64, 2);
            for (int i = 6; i <= 10; ++i) {
                auto p = feed.make_post("editor", std::string("article ").append(std::to_string(i)));
                if (!feed.deliver("editor", p)) return false; // the author sees it at once
                if (queue.submit(p, followers) != decltype(queue)::submit_status::accepted) return false;
                now_ms += 3600 * 1000;
            }
            auto report = queue.shutdown();
            out << "worker queue: " << report.delivered << " deliveries, " << report.failed.size() << " failed\n";
            check.expect(report.delivered == 10 && report.failed.empty(), "every queued delivery made");
        }
        std::vector<std::string> seen;
        std::optional<std::string> cursor;
        int page_no = 0;
        do {
            auto page = feed.newest("jane", 4, cursor);
            if (!page) return false;
            out << "jane, page " << ++page_no << ":";
            for (const auto& p : page->items) {
                out << " [" << p.content << "]";
                seen.push_back(p.content);
            }
            out << "\n";
            cursor = page->next;
        } while (cursor);
        check.expect(seen.size() == 10 && seen.front() == "article 10" && seen.back() == "article 1",
                     "jane's feed, newest first");
        return true;
    });
}
