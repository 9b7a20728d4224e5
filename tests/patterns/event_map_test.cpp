#include <kvmodel/patterns/event_map.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include "../../examples/scenarios/events.hpp"

#include <sstream>

namespace patterns_event_map_test {

using namespace kvmodel;
using patterns::event;

TEST_CASE("event map: the seed scenario's results and stored sizes", "[patterns][event_map]") {
    sim::cluster c;
    std::ostringstream out;
    auto r = examples::run_events(c, out);
    REQUIRE(r);
    CHECK(r->comments == std::vector<std::int64_t>{1523474231001, 1523474235005});
    CHECK(r->viewed == 3);
    CHECK(r->viewed_or_comment == 5);
    CHECK(r->in_window == std::vector<std::int64_t>{1523474230000, 1523474231001, 1523474233003,
                                                    1523474234004, 1523474235005});
    // AEROSPIKE-RECORDS.md measured these on a real 8.1.2 server.
    CHECK(r->size_before == 256);
    CHECK(r->events_after == 806);
    CHECK(r->size_after == 25104);
}

TEST_CASE("event map: duplicate timestamps are refused, nothing half-applied", "[patterns][event_map]") {
    sim::cluster c;
    patterns::event_map<sim::cluster> em(c);
    REQUIRE(em.add("u", event<>{10, "a", map{{"x", 1}}}).value() == 1);
    auto dup = em.add("u", event<>{10, "b", map{}});
    REQUIRE_FALSE(dup);
    CHECK(dup.error().code == status::element_exists);
    std::vector<event<>> batch{{20, "c", map{}}, {10, "d", map{}}};
    auto b = em.add("u", batch);
    REQUIRE_FALSE(b);
    CHECK(em.size("u").value() == 1); // the batch was all or nothing
    CHECK(em.of_type("u", "a").value().size() == 1);
}

TEST_CASE("event map: latest, retention, absent owner", "[patterns][event_map]") {
    sim::cluster c;
    patterns::event_map<sim::cluster> em(c);
    CHECK(em.size("nobody").value() == 0);
    CHECK(em.latest("nobody", 3).value().empty());
    CHECK(em.remove_older_than("nobody", 100).value() == 0);
    for (std::int64_t t = 1; t <= 10; ++t) REQUIRE(em.add("u", event<>{t * 100, t % 2 ? "odd" : "even", map{}}));
    auto last3 = em.latest("u", 3).value();
    REQUIRE(last3.size() == 3);
    CHECK(last3[0].ts == 800);
    CHECK(last3[2].ts == 1000);
    CHECK(em.remove_older_than("u", 450).value() == 4);
    CHECK(em.size("u").value() == 6);
    CHECK(em.count_of_type("u", "odd").value() == 3);
}

TEST_CASE("event map: a record past max-record-size fails clearly and leaves it unchanged",
          "[patterns][event_map]") {
    sim::cluster_config cfg;
    cfg.namespaces[0].max_record_size = 4096;
    sim::cluster c(cfg);
    patterns::event_map<sim::cluster> em(c);
    REQUIRE(em.add("u", event<>{1, "small", map{}}));
    auto big = em.add("u", event<>{2, "big", map{{"blob", std::string(5000, 'x')}}});
    REQUIRE_FALSE(big);
    CHECK(big.error().code == status::record_too_big);
    CHECK(em.size("u").value() == 1);
}

TEST_CASE("event map: typed attributes through a codec", "[patterns][event_map]") {
    sim::cluster c;
    patterns::event_map<sim::cluster, std::map<std::string, std::int64_t>> em(c);
    REQUIRE(em.add("u", {5, "click", {{"x", 3}}}));
    auto evs = em.of_type("u", "click").value();
    REQUIRE(evs.size() == 1);
    CHECK(evs[0].attrs.at("x") == 3);
    // A stored value of another shape is a decode error, not UB.
    patterns::event_map<sim::cluster, std::string> wrong(c);
    auto bad = wrong.of_type("u", "click");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code == status::parameter_error);
}

} // namespace patterns_event_map_test
