// Every pattern survives a node whose storage is behind: the next two write
// attempts are answered DEVICE_OVERLOAD (sim::fault::fail_with), a transient
// status (kv::is_transient) that the C client retries. Patterns with their
// own retry loop (bucketed list, sharded counter, the reverse feed's
// fan-out queue) retry it there; the others through their write policy's max_retries (the
// client's loop), which is what a caller sets for them. Each write lands
// exactly once.
#include <kvmodel/patterns/activity_bitmap.hpp>
#include <kvmodel/patterns/activity_stream.hpp>
#include <kvmodel/patterns/background_ops.hpp>
#include <kvmodel/patterns/bucketed_list.hpp>
#include <kvmodel/patterns/capped_map.hpp>
#include <kvmodel/patterns/consolidated_counters.hpp>
#include <kvmodel/patterns/event_map.hpp>
#include <kvmodel/patterns/leaderboard.hpp>
#include <kvmodel/patterns/nested_document.hpp>
#include <kvmodel/patterns/reverse_feed.hpp>
#include <kvmodel/patterns/sharded_counter.hpp>
#include <kvmodel/patterns/time_series.hpp>
#include <kvmodel/patterns/timestamped_map.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace patterns_device_overload_test {

using namespace kvmodel;
namespace pt = kvmodel::patterns;

namespace {

// The next two write attempts get DEVICE_OVERLOAD; the fault's id.
std::size_t overload_writes(sim::cluster& db) {
    return db.add_fault(sim::fault::fail_with(status::device_overload).only(sim::op_scope::writes).times(2))
        .value();
}

// A write policy the client retries twice.
kv::write_policy retried() {
    kv::write_policy wp;
    wp.max_retries = 2;
    return wp;
}

pt::record_location at(std::string set, std::string bin) {
    return {.set = std::move(set), .bin = std::move(bin), .write = retried()};
}

std::int64_t fake_now = 1'700'000'000'000;
std::int64_t fake_clock() {
    return fake_now;
}

} // namespace

TEST_CASE("device overload: bucketed list retries in its own loop", "[patterns][device_overload]") {
    sim::cluster db;
    pt::bucketed_list<sim::cluster, std::string> l(db, {pt::bucket_policy::by_count, 10});
    const std::size_t f = overload_writes(db);
    REQUIRE(l.append("o", "a", 1));
    CHECK(db.fault_fires(f) == 2);
    CHECK(l.count("o").value() == 1);
}

TEST_CASE("device overload: sharded counter retries in its own loop", "[patterns][device_overload]") {
    sim::cluster db;
    pt::sharded_counter<sim::cluster> c(db, "n", {.shards = 4});
    const std::size_t f = overload_writes(db);
    REQUIRE(c.increment(5));
    CHECK(db.fault_fires(f) == 2);
    CHECK(c.total().value() == 5);
}

TEST_CASE("device overload: reverse feed", "[patterns][device_overload]") {
    sim::cluster db;
    pt::tick_source ticks(1, &fake_clock);
    pt::reverse_feed<sim::cluster, std::string> feed(db, ticks);
    const std::size_t f = overload_writes(db);
    {
        // The retry path is the fan-out queue's (the synchronous post takes
        // no write policy: its caller re-delivers).
        pt::fan_out_queue<sim::cluster, std::string> q(feed, 8, 1);
        REQUIRE(q.submit(feed.make_post("ann", "hello"), {"bob"}) ==
                pt::fan_out_queue<sim::cluster, std::string>::submit_status::accepted);
        const auto report = q.shutdown();
        CHECK(report.delivered == 1);
        CHECK(report.failed.empty());
    }
    CHECK(db.fault_fires(f) == 2);
    CHECK(feed.newest("bob", 10).value().items.size() == 1);
}

TEST_CASE("device overload: activity stream (fan-out on write)", "[patterns][device_overload]") {
    sim::cluster db;
    pt::fan_out_on_write<sim::cluster> s(db, at("inboxes", "stream"));
    const std::size_t f = overload_writes(db);
    pt::message m;
    m.from = "ann";
    m.to = {"bob", "cy"};
    m.sent_ts = 1;
    m.body = "hi";
    REQUIRE(s.post(m));
    CHECK(db.fault_fires(f) == 2);
    CHECK(s.inbox("bob", 10).value().items.size() == 1);
    CHECK(s.inbox("cy", 10).value().items.size() == 1);
}

TEST_CASE("device overload: activity bitmap", "[patterns][device_overload]") {
    sim::cluster db;
    pt::activity_bitmap<sim::cluster> ab(db, {.write = retried()});
    const std::size_t f = overload_writes(db);
    REQUIRE(ab.record("u", 10));
    CHECK(db.fault_fires(f) == 2);
    CHECK(ab.counters("u").value().total == 1);
}

TEST_CASE("device overload: capped map", "[patterns][device_overload]") {
    sim::cluster db;
    pt::capped_map<sim::cluster, std::int64_t, std::int64_t> m(db, 3, pt::keep::top_by_rank, at("capped", "items"));
    const std::size_t f = overload_writes(db);
    REQUIRE(m.insert("o", 1, 10));
    CHECK(db.fault_fires(f) == 2);
    CHECK(m.size("o").value() == 1);
}

TEST_CASE("device overload: consolidated counters", "[patterns][device_overload]") {
    sim::cluster db;
    pt::consolidated_counters<sim::cluster> c(db, {.write = retried()});
    const std::size_t f = overload_writes(db);
    REQUIRE(c.increment("scope", "clicks", 3));
    CHECK(db.fault_fires(f) == 2);
    CHECK(c.get("scope", "clicks").value() == 3);
}

TEST_CASE("device overload: exactly once (increment_once)", "[patterns][device_overload]") {
    sim::cluster db;
    pt::consolidated_counters<sim::cluster> c(db, {.write = retried()});
    const std::size_t f = overload_writes(db);
    auto once = c.increment_once("day", "clicks", 5, "op-1", 1);
    REQUIRE(once);
    CHECK(once->applied);
    CHECK(db.fault_fires(f) == 2);
    CHECK(c.get("day", "clicks").value() == 5);
}

TEST_CASE("device overload: event map", "[patterns][device_overload]") {
    sim::cluster db;
    pt::event_map<sim::cluster> em(db, at("events", "events"));
    const std::size_t f = overload_writes(db);
    REQUIRE(em.add("u", pt::event<>{10, "a", map{}}));
    CHECK(db.fault_fires(f) == 2);
    CHECK(em.size("u").value() == 1);
}

TEST_CASE("device overload: leaderboard", "[patterns][device_overload]") {
    sim::cluster db;
    using entry = std::pair<std::int64_t, std::string>;
    pt::leaderboard<sim::cluster, entry> b(db, at("boards", "board"));
    const std::size_t f = overload_writes(db);
    REQUIRE(b.add("g", {50, "a"}));
    CHECK(db.fault_fires(f) == 2);
    CHECK(b.size("g").value() == 1);
}

TEST_CASE("device overload: nested document", "[patterns][device_overload]") {
    sim::cluster db;
    pt::nested_document<sim::cluster> d(db, at("players", "players"));
    const std::size_t f = overload_writes(db);
    REQUIRE(d.set_player("g", {"p1", 10, map{}}));
    CHECK(db.fault_fires(f) == 2);
    using who = pt::nested_document<sim::cluster>::who;
    CHECK(d.increment("g", who::player("p1"), "n").value() == value(1));
}

TEST_CASE("device overload: timestamped map", "[patterns][device_overload]") {
    sim::cluster db;
    using payload = std::tuple<std::string>;
    pt::timestamped_map<sim::cluster, std::int64_t, payload> tm(db, at("messages", "messages"));
    const std::size_t f = overload_writes(db);
    REQUIRE(tm.add("o", 1, 100, payload{"a"}));
    CHECK(db.fault_fires(f) == 2);
    CHECK(tm.size("o").value() == 1);
}

TEST_CASE("device overload: time series", "[patterns][device_overload]") {
    sim::cluster db;
    pt::time_series_options opt;
    opt.where.write = retried();
    pt::time_series<sim::cluster, std::int64_t> s(db, opt);
    const std::size_t f = overload_writes(db);
    REQUIRE(s.write("o", 1000, 7));
    CHECK(db.fault_fires(f) == 2);
    CHECK(s.range("o", 0, 2000).value().size() == 1);
}

namespace {
pt::message hello() {
    pt::message m;
    m.from = "ann";
    m.to = {"bob", "cy"};
    m.sent_ts = 1;
    m.body = "hi";
    return m;
}
} // namespace

TEST_CASE("device overload: activity stream (fan-out on read)", "[patterns][device_overload]") {
    sim::cluster db;
    pt::fan_out_on_read<sim::cluster> s(db, "test", "outbox", retried());
    REQUIRE(s.setup());
    const std::size_t f = overload_writes(db);
    REQUIRE(s.post(hello()));
    CHECK(db.fault_fires(f) == 2);
    CHECK(s.inbox("bob", 10).value().items.size() == 1);
}

TEST_CASE("device overload: activity stream (fan-out by reference)", "[patterns][device_overload]") {
    sim::cluster db;
    pt::fan_out_by_reference<sim::cluster> s(db, "test", "messages", "inbox_refs", retried());
    const std::size_t f = overload_writes(db);
    REQUIRE(s.post(hello()));
    CHECK(db.fault_fires(f) == 2);
    CHECK(s.inbox("bob", 10).value().items.size() == 1);
    CHECK(s.inbox("cy", 10).value().items.size() == 1);
}

TEST_CASE("device overload: activity stream (bucketed fan-out) retries in its own loop",
          "[patterns][device_overload]") {
    sim::cluster db;
    pt::bucketed_fan_out<sim::cluster> s(db, {pt::bucket_policy::by_count, 10});
    const std::size_t f = overload_writes(db);
    REQUIRE(s.post(hello()));
    CHECK(db.fault_fires(f) == 2);
    CHECK(s.inbox("bob", 10).value().items.size() == 1);
    CHECK(s.inbox("cy", 10).value().items.size() == 1);
}

TEST_CASE("device overload: background ops judged by the client", "[patterns][device_overload]") {
    sim::cluster db;
    for (int i = 0; i < 10; ++i)
        REQUIRE(db.put(kv::key("test", "jobs", i), {{"n", i}}));
    pt::background_request req;
    req.set = "jobs";
    req.predicate = [](const kv::record&) { return true; };
    req.ops = {kv::op::add("n", 100)};
    req.write = retried();
    const std::size_t f = overload_writes(db);
    const pt::job_progress p = pt::run_background(db, req).wait();
    CHECK(db.fault_fires(f) == 2);
    CHECK(p.applied == 10);
    CHECK(p.failed == 0);
    for (int i = 0; i < 10; ++i)
        CHECK(db.get(kv::key("test", "jobs", i)).value().value_of("n") == value(100 + i));
}

} // namespace patterns_device_overload_test
