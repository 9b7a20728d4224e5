// Tests for kvmodel/patterns/consolidated_counters.hpp on sim::cluster: the
// seed's campaign scenario (ads shown to a user today), several counters in one
// operate, top K, the day's TTL, and a cap that holds under concurrency.
#include <kvmodel/patterns/consolidated_counters.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace patterns_consolidated_counters_test {

using namespace kvmodel;
using patterns::consolidated_counters;

TEST_CASE("consolidated counters: increment, read all, top K", "[patterns][consolidated_counters]") {
    sim::cluster db;
    consolidated_counters<sim::cluster> cc(db);
    const value day = "cf296d9a|campaign123|2019-03-05";
    CHECK(cc.all(day).value().empty());
    CHECK_FALSE(cc.get(day, "adx123").value().has_value());

    CHECK(cc.increment(day, "adx123").value() == 1);
    CHECK(cc.increment(day, "adx123").value() == 2);
    CHECK(cc.increment(day, "adz345", 5).value() == 5);
    // Several in one operate(): one round trip.
    const auto before = db.stats().find("test")->totals.round_trips;
    const consolidated_counters<sim::cluster>::entry batch[] = {
        {value("ady987"), 3}, {value("ado717"), 1}, {value("adx123"), 1}};
    CHECK(cc.increment_many(day, batch).value() == std::vector<std::int64_t>{3, 1, 3});
    CHECK(db.stats().find("test")->totals.round_trips == before + 1);

    CHECK(cc.get(day, "adx123").value() == std::optional<std::int64_t>(3));
    auto all = cc.all(day).value();
    REQUIRE(all.size() == 4);
    CHECK(all[0] == std::pair<value, std::int64_t>{"ado717", 1}); // name order
    CHECK(all[3] == std::pair<value, std::int64_t>{"adz345", 5});

    auto top = cc.top(day, 2).value();
    REQUIRE(top.size() == 2);
    CHECK(top[0] == std::pair<value, std::int64_t>{"adz345", 5});
    CHECK(top[1].second == 3); // adx123 and ady987 tie at 3: the higher name first
    CHECK(top[1].first == value("ady987"));
    CHECK(cc.top(day, 100).value().size() == 4);
    CHECK(cc.top(day, 0).value().empty());

    CHECK(cc.remove(day, "ado717").value());
    CHECK_FALSE(cc.remove(day, "ado717").value());
    CHECK_FALSE(cc.remove("no-such-day", "x").value());
    CHECK(cc.all(day).value().size() == 3);
    // A counter that is not an integer is reported, not misread.
    CHECK(cc.increment(day, "adx123", 0).value() == 3);
}

TEST_CASE("consolidated counters: the write policy's TTL expires the day",
          "[patterns][consolidated_counters]") {
    auto clock = std::make_shared<sim::manual_clock>();
    sim::cluster_config cfg;
    cfg.time_source = clock;
    cfg.namespaces[0].nsup_period = 60; // TTL writes need nsup, as on the server
    sim::cluster db(cfg);
    kv::write_policy wp;
    wp.ttl = 3600; // the rest of the day
    consolidated_counters<sim::cluster> cc(db, {.write = wp});
    REQUIRE(cc.increment("u|c|today", "ad", 2).has_value());
    auto rec = db.get(cc.key_of("u|c|today").value()).value();
    CHECK(rec.ttl == 3600);
    clock->advance(std::chrono::minutes(59));
    CHECK(cc.get("u|c|today", "ad").value() == std::optional<std::int64_t>(2));
    clock->advance(std::chrono::minutes(2));
    CHECK_FALSE(cc.get("u|c|today", "ad").value().has_value());
    CHECK(cc.all("u|c|today").value().empty());
}

TEST_CASE("consolidated counters: a capped increment never passes the cap",
          "[patterns][consolidated_counters]") {
    sim::cluster db;
    consolidated_counters<sim::cluster> cc(db);
    const value day = "u|campaign|day";
    CHECK(cc.increment_capped(day, "ad", 4).value() == std::optional<std::int64_t>(1));
    CHECK(cc.increment_capped(day, "ad", 4, 2).value() == std::optional<std::int64_t>(3));
    CHECK_FALSE(cc.increment_capped(day, "ad", 4, 2).value().has_value()); // 5 > 4
    CHECK(cc.increment_capped(day, "ad", 4).value() == std::optional<std::int64_t>(4));
    CHECK_FALSE(cc.increment_capped(day, "ad", 4).value().has_value());
    CHECK(cc.get(day, "ad").value() == std::optional<std::int64_t>(4));

    // 8 threads race for 4 showings of each of 3 ads on a fresh record.
    const value race = "u|campaign|race";
    std::atomic<int> shown{0};
    std::atomic<int> errors{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < 8; ++t)
        pool.emplace_back([&, t] {
            for (int i = 0; i < 30; ++i) {
                const value ad = "ad" + std::to_string((t + i) % 3);
                auto r = cc.increment_capped(race, ad, 4);
                if (!r) ++errors;
                else if (r->has_value()) ++shown;
            }
        });
    for (auto& th : pool) th.join();
    CHECK(errors == 0);
    CHECK(shown == 12);
    for (int a = 0; a < 3; ++a)
        CHECK(cc.get(race, "ad" + std::to_string(a)).value() == std::optional<std::int64_t>(4));
}

TEST_CASE("consolidated counters: a non-integer counter is an error",
          "[patterns][consolidated_counters]") {
    sim::cluster db;
    consolidated_counters<sim::cluster> cc(db);
    REQUIRE(db.operate(cc.key_of("d").value(),
                       {kv::op::cdt("c", cdt::map_ops::put(value("ad"), value("many")))})
                .has_value());
    CHECK(cc.get("d", "ad").code() == status::bin_type_error);
    CHECK(cc.all("d").code() == status::bin_type_error);
    CHECK(cc.increment_capped("d", "ad", 4).code() == status::bin_type_error);
    CHECK(cc.increment("d", "ad").code() == status::parameter_error); // the server's answer
}

} // namespace patterns_consolidated_counters_test
