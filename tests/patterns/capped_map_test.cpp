#include <kvmodel/patterns/capped_map.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include "../../examples/scenarios/pacman.hpp"

#include <sstream>

namespace patterns_capped_map_test {

using namespace kvmodel;

TEST_CASE("capped map: the Pac-Man seed", "[patterns][capped_map]") {
    sim::cluster c;
    std::ostringstream out;
    auto r = examples::run_pacman(c, out);
    REQUIRE(r);
    CHECK(r->by_date == std::vector<std::string>{"CPU", "ETC", "SOS", "ACE", "EIR", "CFO"});
    CHECK(r->by_rank == std::vector<std::string>{"ACE", "SOS", "EIR", "CFO", "CPU", "ETC"});
    CHECK(r->size_after_expand == 100);
    CHECK(r->highest == 34500);
    CHECK(r->size_after_inject == 100);
    CHECK(r->injected_kept);
    CHECK(r->lowest_after == r->lowest_before + 1);
    CHECK(r->highest_after == 34500);
}

TEST_CASE("capped map: keep top by rank vs newest by key", "[patterns][capped_map]") {
    sim::cluster c;
    patterns::capped_map<sim::cluster, std::int64_t, std::int64_t> top(c, 3, patterns::keep::top_by_rank);
    patterns::capped_map<sim::cluster, std::int64_t, std::int64_t> newest(
        c, 3, patterns::keep::newest_by_key, {.set = "newest", .bin = "items"});
    const std::int64_t scores[] = {50, 10, 40, 30, 20, 60};
    std::int64_t ts = 0;
    for (std::int64_t s : scores) {
        ++ts;
        REQUIRE(top.insert("g", ts, s).value().size <= 3);
        REQUIRE(newest.insert("g", ts, s).value().size <= 3);
    }
    auto t = top.top("g", 3).value();
    REQUIRE(t.size() == 3);
    CHECK(t[0].second == 60);
    CHECK(t[1].second == 50);
    CHECK(t[2].second == 40);
    auto low = top.insert("g", 100, 1).value();
    CHECK_FALSE(low.kept); // below the cut: removed by the same operate
    CHECK(low.size == 3);
    auto n = newest.newest("g", 3).value();
    REQUIRE(n.size() == 3);
    CHECK(n[0].first == 6);
    CHECK(n[2].first == 4);
    CHECK(newest.min("g").value()->second == 20);
    CHECK(newest.max("g").value()->second == 60);
    CHECK(top.set_capacity("g", 2).value() == 1);
    CHECK(top.size("g").value() == 2);
    CHECK(top.bottom("g", 1).value()[0].second == 50);
    CHECK_FALSE(top.min("nobody").value().has_value());
}

TEST_CASE("capped map: insert with a trim by age and extra operations, one operate",
          "[patterns][capped_map]") {
    sim::cluster c;
    patterns::capped_map<sim::cluster, std::int64_t, std::string> viewed(
        c, 3, patterns::keep::newest_by_key, {.set = "viewed", .bin = "items"});
    for (std::int64_t ts = 1; ts <= 3; ++ts) viewed.insert("u", ts * 10, std::string("p").append(std::to_string(ts))).value();
    c.reset_stats();
    auto r = viewed
                 .insert("u", 40, "p4",
                         {.drop_keys_below = 25,
                          .also = {kv::op::add("views", value(1)), kv::op::read("views")}})
                 .value();
    CHECK(c.stats().find("test")->totals.round_trips == 1);
    CHECK(r.kept);
    CHECK(r.size == 2);     // 30 and 40: 10 and 20 aged out
    CHECK(r.aged_out == 2);
    REQUIRE(r.also.size() == 2);
    CHECK(r.also[1] == value(1));
    CHECK(viewed.drop_keys_below("u", 35).value() == 1);
    CHECK(viewed.drop_keys_below("nobody", 35).value() == 0);
    // A failing extra operation leaves the record as it was.
    auto bad = viewed.insert("u", 50, "p5", {.drop_keys_below = std::nullopt, .also = {kv::op::add("items", value(1))}});
    REQUIRE(!bad);
    CHECK(viewed.size("u").value() == 1);
}

} // namespace patterns_capped_map_test
