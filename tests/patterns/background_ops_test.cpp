// Tests for kvmodel/patterns/background_ops.hpp on sim::cluster: every record
// of a set written once, update-only, per-record failures counted, the
// predicate judged on fresh data, index-query selection, cancellation, and
// the rejection of read operations.
#include <kvmodel/patterns/background_ops.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <string>

namespace patterns_background_ops_test {

using namespace kvmodel;
using patterns::background_request;
using patterns::run_background;

namespace {
kv::key K(const std::string& set, int i) {
    return kv::key::make("test", set, value(static_cast<std::int64_t>(i))).value();
}
void fill(sim::cluster& db, const std::string& set, int n) {
    for (int i = 0; i < n; ++i)
        REQUIRE(db.put(K(set, i), {kv::bin{"n", value(i)}, kv::bin{"tag", value(i % 2 == 0 ? "even" : "odd")}})
                    .has_value());
}
std::int64_t n_of(sim::cluster& db, const kv::key& k) {
    return db.get(k).value().get("n")->as_int();
}
} // namespace

TEST_CASE("background ops: every record of the set, once", "[patterns][background_ops]") {
    sim::cluster db;
    fill(db, "a", 100);
    fill(db, "b", 10);
    background_request req;
    req.set = "a";
    req.ops = {kv::op::add("n", value(1000)), kv::op::write("seen", value(true))};
    auto job = run_background(db, req);
    auto p = job.wait();
    CHECK(p.done);
    CHECK_FALSE(p.cancelled);
    CHECK(p.total == 100);
    CHECK(p.processed == 100);
    CHECK(p.applied == 100);
    CHECK(p.skipped == 0);
    CHECK(p.failed == 0);
    for (int i = 0; i < 100; ++i) CHECK(n_of(db, K("a", i)) == 1000 + i);
    for (int i = 0; i < 10; ++i) CHECK(n_of(db, K("b", i)) == i); // other set untouched
    CHECK(job.progress().done);
}

TEST_CASE("background ops: a predicate selects records", "[patterns][background_ops]") {
    sim::cluster db;
    fill(db, "a", 40);
    background_request req;
    req.set = "a";
    req.predicate = [](const kv::record& r) { return r.value_of("tag") == value("even"); };
    req.ops = {kv::op::write("n", value(-1))};
    auto p = run_background(db, req).wait();
    CHECK(p.applied == 20);
    CHECK(p.skipped == 20);
    for (int i = 0; i < 40; ++i) CHECK(n_of(db, K("a", i)) == (i % 2 == 0 ? -1 : i));
}

TEST_CASE("background ops: records are judged on fresh data", "[patterns][background_ops]") {
    // The predicate flips a record while the job runs: the write carries the
    // generation the predicate saw, fails GENERATION_ERROR, and the record is
    // read and judged again.
    sim::cluster db;
    fill(db, "a", 2);
    int calls = 0;
    bool put_ok = false; // set on the job's thread (no Catch assertions there)
    background_request req;
    req.set = "a";
    req.predicate = [&](const kv::record& r) {
        ++calls;
        if (r.value_of("tag") == value("even") && !put_ok) {
            // Someone else changes the record between the scan and the write.
            put_ok = db.put(K("a", 0), {kv::bin{"tag", value("odd")}}).has_value();
        }
        return r.value_of("tag") == value("even");
    };
    req.ops = {kv::op::write("n", value(-1))};
    auto p = run_background(db, req).wait();
    CHECK(put_ok);
    CHECK(calls == 3); // record 0 judged twice (stale, then fresh), record 1 once
    CHECK(p.applied == 0);
    CHECK(p.skipped == 2);
    CHECK(n_of(db, K("a", 0)) == 0);
}

TEST_CASE("background ops: failures are counted and the job goes on",
          "[patterns][background_ops]") {
    sim::cluster db;
    fill(db, "a", 10);
    REQUIRE(db.put(K("a", 3), {kv::bin{"n", value("text")}}).has_value());
    background_request req;
    req.set = "a";
    req.ops = {kv::op::add("n", value(1))};
    auto p = run_background(db, req).wait();
    CHECK(p.applied == 9);
    CHECK(p.failed == 1);
    REQUIRE(p.first_error.has_value());
    CHECK(p.first_error->code == status::bin_type_error);
    CHECK(n_of(db, K("a", 4)) == 5);
}

TEST_CASE("background ops: an index query selects records", "[patterns][background_ops]") {
    sim::cluster db;
    fill(db, "a", 30);
    REQUIRE(db.create_index({"test", "a", "n", "idx_n", kv::index_type::numeric}).has_value());
    background_request req;
    req.set = "a";
    req.where = kv::filter::range("n", 10, 19);
    req.ops = {kv::op::write("hit", value(true))};
    auto p = run_background(db, req).wait();
    CHECK(p.total == 10);
    CHECK(p.applied == 10);
    for (int i = 0; i < 30; ++i)
        CHECK(db.get(K("a", i)).value().contains("hit") == (i >= 10 && i <= 19));
    // A query on a bin without an index fails the job before any write.
    req.where = kv::filter::equal("tag", value("odd"));
    auto q = run_background(db, req).wait();
    CHECK(q.done);
    CHECK(q.total == 0);
    REQUIRE(q.first_error.has_value());
    CHECK(q.first_error->code == status::index_not_found);
}

TEST_CASE("background ops: the simulator runs the job itself, one round trip per node",
          "[patterns][background_ops]") {
    sim::cluster db;
    fill(db, "a", 100);
    db.reset_stats();
    background_request req;
    req.set = "a";
    req.ops = {kv::op::add("n", value(1))};
    auto p = run_background(db, req).wait();
    CHECK(p.applied == 100);
    CHECK(db.stats().find("test")->totals.round_trips == 3);
    // With a predicate the client judges each record: one scan, one write each.
    db.reset_stats();
    req.predicate = [](const kv::record&) { return true; };
    p = run_background(db, req).wait();
    CHECK(p.applied == 100);
    CHECK(db.stats().find("test")->totals.round_trips == 3 + 100);
    CHECK(n_of(db, K("a", 7)) == 9);
}

TEST_CASE("background ops: bad requests and cancellation", "[patterns][background_ops]") {
    sim::cluster db;
    fill(db, "a", 5);
    background_request req;
    req.set = "a";
    auto p = run_background(db, req).wait();
    REQUIRE(p.first_error.has_value());
    CHECK(p.first_error->code == status::parameter_error);
    req.ops = {kv::op::read("n")};
    p = run_background(db, req).wait();
    REQUIRE(p.first_error.has_value());
    CHECK(p.first_error->code == status::parameter_error);
    CHECK(p.applied == 0);
    // Cancelling: the job stops; what it wrote it wrote once.
    req.ops = {kv::op::add("n", value(100))};
    auto job = run_background(db, req);
    job.cancel();
    auto c = job.wait();
    CHECK(c.done);
    CHECK(c.processed <= 5);
    int bumped = 0;
    for (int i = 0; i < 5; ++i) {
        const std::int64_t v = n_of(db, K("a", i));
        CHECK((v == i || v == i + 100));
        bumped += v == i + 100 ? 1 : 0;
    }
    CHECK(static_cast<std::uint64_t>(bumped) == c.applied);
    // wait_for returns the progress even when not done yet.
    auto job2 = run_background(db, req);
    auto w = job2.wait_for(std::chrono::milliseconds(5000));
    CHECK(w.done);
}

} // namespace patterns_background_ops_test
