#include <kvmodel/patterns/reverse_feed.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

namespace patterns_reverse_feed_test {

using namespace kvmodel;
using patterns::tick_source;

namespace {
std::int64_t fake_now = 1700000000000;
std::int64_t fake_clock() { return fake_now; }
} // namespace

TEST_CASE("ticks: unique, increasing, wall-clock based, node id inside", "[patterns][reverse_feed]") {
    fake_now = 1700000000000;
    tick_source t(7, &fake_clock);
    std::int64_t prev = 0;
    for (int i = 0; i < 10000; ++i) { // > 4096 in one millisecond: runs ahead, never repeats
        std::int64_t x = t.next();
        CHECK(x > prev);
        prev = x;
        CHECK(tick_source::node_of(x) == 7);
    }
    fake_now += 1000;
    std::int64_t later = t.next();
    CHECK(tick_source::time_of(later) == fake_now);
    fake_now -= 5000; // the clock steps back: still increasing
    CHECK(t.next() > later);
    tick_source other(8, &fake_clock);
    CHECK(tick_source::node_of(other.next()) == 8);
    CHECK(tick_source::reverse_key(2) < tick_source::reverse_key(1));
}

TEST_CASE("reverse feed: newest first, cursor pages across days, stable under new posts",
          "[patterns][reverse_feed]") {
    sim::cluster c;
    fake_now = 1700000000000; // 2023-11-14
    tick_source ticks(1, &fake_clock);
    patterns::reverse_feed<sim::cluster, std::string> feed(c, ticks);
    for (int i = 0; i < 30; ++i) {
        REQUIRE(feed.post("ann", std::string("p").append(std::to_string(i)), {"bob", "cy"}));
        fake_now += 3 * 3600 * 1000; // 8 posts a day
    }
    auto first = feed.newest("bob", 10).value();
    REQUIRE(first.items.size() == 10);
    CHECK(first.items[0].content == "p29");
    REQUIRE(first.next);
    REQUIRE(feed.post("ann", "new", {"bob"})); // arrives between pages
    std::vector<std::string> rest;
    std::optional<std::string> cur = first.next;
    while (cur) {
        auto p = feed.newest("bob", 7, cur).value();
        for (auto& x : p.items) rest.push_back(x.content);
        cur = p.next;
    }
    REQUIRE(rest.size() == 20);
    CHECK(rest.front() == "p19");
    CHECK(rest.back() == "p0");
    CHECK(feed.newest("cy", 100).value().items.size() == 30);
    CHECK(feed.newest("nobody", 5).value().items.empty());
    CHECK_FALSE(feed.newest("bob", 5, std::string("f1.x.y")));
    CHECK(feed.drop_days_before("bob", 20231116).value() == 2);
    CHECK(feed.drop_days_before("bob", 20231116).value() == 0); // the head lists them no more
    // 1700000000000 is 2023-11-14 22:13 UTC: day 14 held p0, day 15 p1..p8.
    CHECK(feed.newest("bob", 100).value().items.size() == 31 - 9);
}

TEST_CASE("fan-out queue: back-pressure, retries and a clean shutdown", "[patterns][reverse_feed]") {
    sim::cluster c;
    REQUIRE(c.add_fault(sim::fault::timeout().with_probability(0.2).forever()));
    tick_source ticks(2);
    patterns::reverse_feed<sim::cluster, std::string> feed(c, ticks);
    patterns::fan_out_queue<sim::cluster, std::string> q(feed, 8, 2, 20);
    std::vector<std::string> followers{"a", "b", "c"};
    int accepted = 0;
    int refused = 0;
    for (int i = 0; i < 50; ++i) {
        auto p = feed.make_post("writer", std::string("m").append(std::to_string(i)));
        auto s = q.submit(p, followers);
        if (s == decltype(q)::submit_status::accepted) ++accepted;
        else if (s == decltype(q)::submit_status::queue_full) ++refused;
        if (i % 5 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    auto report = q.shutdown();
    CHECK(report.delivered + report.failed.size() == static_cast<std::uint64_t>(accepted) * 3);
    CHECK(accepted + refused == 50);
    CHECK(q.submit(feed.make_post("writer", "late"), followers) == decltype(q)::submit_status::shut_down);
    c.clear_faults();
    for (const auto& f : followers) {
        auto all = feed.newest(f, 1000).value();
        std::size_t failed_for_f = 0;
        for (const auto& x : report.failed) failed_for_f += x.owner == f;
        CHECK(all.items.size() + failed_for_f == static_cast<std::size_t>(accepted));
    }
}

TEST_CASE("reverse feed: a post fans out in one batch per node, not one write per follower",
          "[patterns][reverse_feed]") {
    sim::cluster c; // 3 nodes
    fake_now = 1700000000000;
    tick_source ticks(2, &fake_clock);
    patterns::reverse_feed<sim::cluster, std::string> feed(c, ticks);
    std::vector<std::string> followers;
    for (int i = 0; i < 50; ++i) followers.push_back(std::string("f").append(std::to_string(i)));
    followers.push_back("f7"); // listed twice: delivered once
    c.reset_stats();
    REQUIRE(feed.post("ann", "first", followers));
    // The first post of the day: 51 feeds in one batch, then 51 heads in one
    // batch, each one round trip per node (102 single writes before).
    CHECK(c.stats().find("test")->totals.round_trips == 3 + 3);
    c.reset_stats();
    REQUIRE(feed.post("ann", "second", followers));
    CHECK(c.stats().find("test")->totals.round_trips == 3); // heads already list the day
    for (const std::string& f : {std::string("ann"), std::string("f7"), std::string("f49")}) {
        const auto page = feed.newest(f, 10).value();
        REQUIRE(page.items.size() == 2);
        CHECK(page.items[0].content == "second");
        CHECK(page.items[1].content == "first");
    }
}

} // namespace patterns_reverse_feed_test
