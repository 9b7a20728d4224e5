// Tests for kvmodel/patterns/activity_bitmap.hpp on sim::cluster: the seed's
// scenario (bit 1421 of a 1440-minute day, the 368-day history, the counters
// updated in the same operate), window counts, scans, and the daily roll for
// one owner and for a whole set as a background job.
#include <kvmodel/patterns/activity_bitmap.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace patterns_activity_bitmap_test {

using namespace kvmodel;
using patterns::activity_bitmap;
using patterns::activity_counters;

namespace {
// "u<i>". Not "u" + std::to_string(i): GCC 12 at -O3 raises a false
// -Wrestrict on operator+(const char*, std::string&&) once it inlines it.
std::string user(int i) {
    std::string s = "u";
    s += std::to_string(i);
    return s;
}
} // namespace

TEST_CASE("activity bitmap: record sets both bits and the counters in one operate",
          "[patterns][activity_bitmap]") {
    sim::cluster db;
    activity_bitmap<sim::cluster> ab(db);
    const value u = "user-1";
    CHECK(ab.counters(u).value() == activity_counters{});
    CHECK_FALSE(ab.was_active(u, 1421).value());
    CHECK_FALSE(ab.last_active_slot(u).value().has_value());

    auto c = ab.record(u, 1421);
    REQUIRE(c.has_value());
    CHECK(*c == activity_counters{1, 1, 1, 1});
    const auto ops_before = db.stats().find("test")->totals.round_trips;
    CHECK(ab.record(u, 5).value() == activity_counters{2, 2, 2, 2});
    CHECK(db.stats().find("test")->totals.round_trips == ops_before + 1); // one round trip per record()

    // The bitfields have the seed's sizes: 1440 bits = 180 bytes, 368 bits = 46 bytes.
    auto rec = db.get(ab.key_of(u).value()).value();
    REQUIRE(rec.get("dminutes") != nullptr);
    CHECK(rec.get("dminutes")->as_bytes().size() == 180);
    CHECK(rec.get("recent")->as_bytes().size() == 46);
    CHECK(rec.get("recent")->as_bytes().back() == 0x01); // the last bit = today

    CHECK(ab.was_active(u, 1421).value());
    CHECK(ab.was_active(u, 5).value());
    CHECK_FALSE(ab.was_active(u, 1420).value());
    CHECK(ab.count_active(u, 0, 1440).value() == 2);
    CHECK(ab.count_active(u, 6, 1421).value() == 0);
    CHECK(ab.count_active(u, 1421, 5000).value() == 1); // clipped to the day
    CHECK(ab.last_active_slot(u).value() == std::optional<std::uint32_t>(1421));
    CHECK(ab.first_active_slot(u).value() == std::optional<std::uint32_t>(5));
    CHECK(ab.was_active_on(u, 0).value());
    CHECK_FALSE(ab.was_active_on(u, 1).value());
    CHECK(ab.last_active_day(u).value() == std::optional<std::uint32_t>(0));
    CHECK(ab.first_active_day(u, 90).value() == std::optional<std::uint32_t>(0));

    CHECK(ab.record(u, 1440).code() == status::parameter_error);
    CHECK(ab.was_active(u, 99999).code() == status::parameter_error);
}

TEST_CASE("activity bitmap: the daily roll shifts the history", "[patterns][activity_bitmap]") {
    sim::cluster db;
    activity_bitmap<sim::cluster> ab(db);
    const value u = "user-2";
    REQUIRE(ab.record(u, 10).has_value());
    REQUIRE(ab.roll_day(u).has_value()); // day 1 → yesterday
    CHECK(ab.counters(u).value() == activity_counters{1, 1, 1, 0});
    CHECK_FALSE(ab.was_active(u, 10).value()); // today's minutes cleared
    CHECK(ab.count_active(u, 0, 1440).value() == 0);
    CHECK(ab.was_active_on(u, 1).value());
    CHECK(ab.last_active_day(u).value() == std::optional<std::uint32_t>(1));
    for (int d = 0; d < 5; ++d) REQUIRE(ab.roll_day(u).has_value());
    REQUIRE(ab.record(u, 0).has_value()); // active again today
    REQUIRE(ab.roll_day(u, {.new_week = true}).has_value());
    REQUIRE(ab.roll_day(u).has_value());
    // Active 8 and 2 days ago.
    CHECK(ab.active_days(u, 90).value() == 2);
    CHECK(ab.first_active_day(u, 90).value() == std::optional<std::uint32_t>(8));
    CHECK(ab.first_active_day(u, 5).value() == std::optional<std::uint32_t>(2));
    CHECK(ab.last_active_day(u).value() == std::optional<std::uint32_t>(2));
    CHECK_FALSE(ab.first_active_day(u, 2).value().has_value());
    CHECK(ab.counters(u).value() == activity_counters{2, 2, 0, 0});
    REQUIRE(ab.roll_day(u, {.new_month = true}).has_value());
    CHECK(ab.counters(u).value().month == 0);
    CHECK(ab.counters(u).value().total == 2);
    // The history is 368 days long: 367 more rolls push the oldest day out.
    for (int d = 0; d < 364; ++d) REQUIRE(ab.roll_day(u).has_value());
    CHECK(ab.active_days(u, 368).value() == 1);
    CHECK(ab.last_active_day(u).value() == std::optional<std::uint32_t>(367));
    REQUIRE(ab.roll_day(u).has_value());
    CHECK(ab.active_days(u, 368).value() == 0);
    CHECK_FALSE(ab.last_active_day(u).value().has_value());
    // Rolling an owner without a record is a no-op, and creates nothing.
    REQUIRE(ab.roll_day("nobody").has_value());
    CHECK(db.get(ab.key_of("nobody").value()).code() == status::record_not_found);
}

TEST_CASE("activity bitmap: roll every owner of the set as a background job",
          "[patterns][activity_bitmap]") {
    sim::cluster db;
    activity_bitmap<sim::cluster> ab(db);
    for (int i = 0; i < 50; ++i) REQUIRE(ab.record(user(i), static_cast<std::uint32_t>(i)).has_value());
    // A record of the set without the bitfields is rolled too (NO_FAIL bit ops).
    REQUIRE(db.put(ab.key_of("counters-only").value(), {kv::bin{"ntoday", value(4)}}).has_value());
    // A record of another set is left alone.
    auto other = kv::key::make("test", "elsewhere", value("u1")).value();
    REQUIRE(db.put(other, {kv::bin{"ntoday", value(9)}}).has_value());

    auto job = ab.roll_day_all({.new_week = true});
    auto done = job.wait();
    CHECK(done.done);
    CHECK(done.total == 51);
    CHECK(done.applied == 51);
    CHECK(done.failed == 0);
    CHECK_FALSE(done.first_error.has_value());
    for (int i = 0; i < 50; ++i) {
        const value u = user(i);
        CHECK(ab.was_active_on(u, 1).value());
        CHECK_FALSE(ab.was_active_on(u, 0).value());
        CHECK(ab.count_active(u, 0, 1440).value() == 0);
        CHECK(ab.counters(u).value() == activity_counters{1, 1, 0, 0});
    }
    CHECK(ab.counters("counters-only").value().today == 0);
    CHECK(db.get(other).value().get("ntoday")->as_int() == 9);
}

TEST_CASE("activity bitmap: a custom geometry (hours of the day, a week of days)",
          "[patterns][activity_bitmap]") {
    sim::cluster db;
    activity_bitmap<sim::cluster> ab(db, {.set = "hours", .slots_per_day = 24, .days = 7});
    REQUIRE(ab.record(1, 23).has_value());
    REQUIRE(ab.record(1, 0).has_value());
    CHECK(ab.last_active_slot(1).value() == std::optional<std::uint32_t>(23));
    CHECK(ab.record(1, 24).code() == status::parameter_error);
    for (int d = 0; d < 6; ++d) REQUIRE(ab.roll_day(1).has_value());
    CHECK(ab.last_active_day(1).value() == std::optional<std::uint32_t>(6));
    REQUIRE(ab.roll_day(1).has_value());
    CHECK_FALSE(ab.last_active_day(1).value().has_value());
    auto rec = db.get(ab.key_of(1).value()).value();
    CHECK(rec.get("recent")->as_bytes() == bytes{0x00}); // 7 bits in one byte, the 8th untouched
}

} // namespace patterns_activity_bitmap_test
