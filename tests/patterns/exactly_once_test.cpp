#include <kvmodel/patterns/consolidated_counters.hpp>
#include <kvmodel/patterns/exactly_once.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>

namespace patterns_exactly_once_test {

using namespace kvmodel;

TEST_CASE("exactly once: a resent increment counts once, a new op id counts again",
          "[patterns][exactly_once]") {
    sim::cluster db;
    patterns::consolidated_counters<sim::cluster> counters(db);
    REQUIRE(db.add_fault(sim::fault::in_doubt().after(0)));
    auto first = counters.increment_once("day", "clicks", 5, "op-1", 1);
    REQUIRE(!first);
    CHECK(first.error().in_doubt);
    db.clear_faults();
    auto resent = counters.increment_once("day", "clicks", 5, "op-1", 1).value();
    CHECK(!resent.applied);
    CHECK(counters.get("day", "clicks").value() == 5);
    auto next = counters.increment_once("day", "clicks", 5, "op-2", 2).value();
    CHECK(next.applied);
    CHECK(next.value == 10);
}

TEST_CASE("exactly once: random faults and blind resends never double count",
          "[patterns][exactly_once]") {
    sim::cluster db;
    patterns::consolidated_counters<sim::cluster> counters(db);
    REQUIRE(db.add_fault(sim::fault::timeout().with_probability(0.2).forever()));
    REQUIRE(db.add_fault(sim::fault::in_doubt().with_probability(0.2).forever()));
    std::mt19937_64 rng(Catch::rngSeed());
    std::int64_t expected = 0;
    for (std::int64_t op = 0; op < 500; ++op) {
        const auto by = static_cast<std::int64_t>(rng() % 10) + 1;
        const value id("op-" + std::to_string(op));
        // Resend until a definite answer, sometimes once more after success.
        for (;;) {
            auto r = counters.increment_once("day", "n", by, id, op, {.keep = 8});
            if (r) break;
            REQUIRE(r.error().code == status::timeout);
        }
        if (rng() % 4 == 0) (void)counters.increment_once("day", "n", by, id, op, {.keep = 8});
        expected += by;
    }
    db.clear_faults();
    CHECK(counters.get("day", "n").value() == expected);
    // Only the last `keep` op ids stay in the record.
    const auto k = counters.key_of("day").value();
    auto ids = db.get(k).value().value_of("op_ids");
    REQUIRE(ids.is_map());
    CHECK(ids.as_map().size() == 8);
}

TEST_CASE("exactly once: results are the caller's, bad options are an error",
          "[patterns][exactly_once]") {
    sim::cluster db;
    const auto k = kv::key::make("test", "t", value("k")).value();
    const std::vector<kv::operation> ops = {kv::op::add("n", value(2)), kv::op::read("n")};
    auto r = patterns::operate_once(db, k, value(7), 1, ops).value();
    CHECK(r.applied);
    REQUIRE(r.rec.results.size() == 2);
    CHECK(r.rec.results[1] == value(2));
    auto bad = patterns::operate_once(db, k, value(8), 2, ops, {}, {.keep = 0});
    REQUIRE(!bad);
    CHECK(bad.error().code == status::parameter_error);
}

} // namespace patterns_exactly_once_test
