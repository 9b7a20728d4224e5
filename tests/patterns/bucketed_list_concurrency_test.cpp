// Concurrent appends onto few owners under injected timeouts, in-doubt
// writes and a node failure: every element present exactly once, the head's
// count equal to the sum over buckets. CI runs a small count (also under
// ThreadSanitizer); the [.slow] case runs 8 threads x 100k appends.
#include <kvmodel/patterns/bucketed_list.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace patterns_bucketed_list_concurrency_test {

using namespace kvmodel;
using list_type = patterns::bucketed_list<sim::cluster, std::string>;

namespace {

/// Every owner's elements and claimed slots, checking that each owner's
/// count of claimed slots equals its elements and no element appears twice.
struct stored {
    std::set<std::string> items;
    std::uint64_t claimed = 0;
};
stored stored_once(const list_type& l, int owners) {
    stored out;
    for (int o = 0; o < owners; ++o) {
        std::string owner = std::string("owner-").append(std::to_string(o));
        auto els = l.read_all(owner).value();
        auto claimed = l.count(owner).value();
        CHECK(els.size() == claimed); // head count == sum over buckets: no hole, no double
        for (const auto& e : els) CHECK(out.items.insert(e.item).second);
        out.claimed += claimed;
    }
    return out;
}

void hammer(int threads, int per_thread, int owners) {
    sim::cluster c;
    REQUIRE(c.add_fault(sim::fault::timeout().with_probability(0.02).forever()));
    REQUIRE(c.add_fault(sim::fault::in_doubt().with_probability(0.02).forever()));
    REQUIRE(c.add_fault(sim::fault::node_down(1).after(static_cast<std::uint64_t>(threads * per_thread))));
    list_type l(c, {patterns::bucket_policy::by_count, 50}, {.max_attempts = 100});
    std::atomic<int> failures{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) {
                std::string owner = std::string("owner-").append(std::to_string((t + i) % owners));
                std::string item = std::to_string(t).append(":").append(std::to_string(i));
                if (!l.append(owner, item, i)) failures.fetch_add(1);
            }
        });
    for (auto& th : pool) th.join();
    c.clear_faults();
    REQUIRE(failures.load() == 0);
    stored all = stored_once(l, owners);
    CHECK(all.claimed == static_cast<std::uint64_t>(threads) * static_cast<std::uint64_t>(per_thread));
    CHECK(all.items.size() == all.claimed);
}

} // namespace

TEST_CASE("bucketed list: concurrent appends with faults lose and double nothing",
          "[patterns][bucketed_list][concurrency]") {
    hammer(8, 400, 3);
}

TEST_CASE("bucketed list: 8 threads x 100k appends with faults", "[patterns][bucketed_list][concurrency][.slow]") {
    hammer(8, 100000, 4);
}

TEST_CASE("bucketed list: cursor pages while appends and trims run", "[patterns][bucketed_list][concurrency]") {
    sim::cluster c;
    list_type l(c, {patterns::bucket_policy::by_count, 16});
    for (int i = 0; i < 500; ++i) REQUIRE(l.append("o", std::to_string(i), i));
    std::atomic<bool> stop{false};
    std::thread writer([&] {
        for (int i = 500; i < 1500 && !stop.load(); ++i) (void)l.append("o", std::to_string(i), i);
    });
    std::thread trimmer([&] {
        for (int k = 0; k < 20 && !stop.load(); ++k) {
            (void)l.keep_newest("o", 600);
            std::this_thread::yield();
        }
    });
    // Page from the newest at the start: slots come strictly newest first,
    // none twice, and any slot missing between two pages was trimmed away.
    std::vector<std::uint64_t> slots;
    std::optional<patterns::bucket_cursor> cur;
    auto first = l.newest("o", 10).value();
    for (const auto& e : first.items) slots.push_back(e.slot);
    cur = first.next;
    while (cur) {
        auto p = l.newest("o", 10, cur).value();
        for (const auto& e : p.items) slots.push_back(e.slot);
        cur = p.next;
    }
    stop = true;
    writer.join();
    trimmer.join();
    REQUIRE(!slots.empty());
    auto live = l.read_all("o").value();
    REQUIRE(!live.empty());
    const std::uint64_t trimmed_below = live.front().slot; // trims only grow
    for (std::size_t i = 1; i < slots.size(); ++i) {
        CHECK(slots[i] < slots[i - 1]);
        if (slots[i] + 1 != slots[i - 1]) CHECK(slots[i - 1] - 1 < trimmed_below);
    }
}

TEST_CASE("bucketed list: events delivered by every thread are stored once under their ids",
          "[patterns][bucketed_list][concurrency]") {
    // An at-least-once queue: each of 4 consumers appends all 300 events
    // under the event's id, under injected timeouts and in-doubt writes. The
    // claim window holds every id of an owner, so each event must end up in
    // exactly one slot and no slot stays empty.
    sim::cluster c;
    REQUIRE(c.add_fault(sim::fault::timeout().with_probability(0.02).forever()));
    REQUIRE(c.add_fault(sim::fault::in_doubt().with_probability(0.02).forever()));
    list_type l(c, {patterns::bucket_policy::by_count, 20}, {.claim_window = 512, .max_attempts = 100});
    constexpr int events = 300;
    constexpr int owners = 3;
    std::atomic<int> failures{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < 4; ++t)
        pool.emplace_back([&] {
            for (int e = 0; e < events; ++e) {
                std::string id = std::string("event-").append(std::to_string(e));
                std::string owner = std::string("owner-").append(std::to_string(e % owners));
                if (!l.append(owner, id, e, id)) failures.fetch_add(1);
            }
        });
    for (auto& th : pool) th.join();
    c.clear_faults();
    REQUIRE(failures.load() == 0);
    CHECK(stored_once(l, owners).items.size() == static_cast<std::size_t>(events));
}

} // namespace patterns_bucketed_list_concurrency_test
