#include <kvmodel/patterns/timestamped_map.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include "../../examples/scenarios/conversation.hpp"

#include <sstream>

namespace patterns_timestamped_map_test {

using namespace kvmodel;

TEST_CASE("timestamped map: the conversation seed", "[patterns][timestamped_map]") {
    sim::cluster c;
    std::ostringstream out;
    auto r = examples::run_conversation(c, out);
    REQUIRE(r);
    CHECK(r->in_window.size() == 3);
    REQUIRE(r->recent.size() == 4);
    CHECK(r->recent[0] == "319fa1a6-0640-4354-a426-10c4d3459f0a");
}

TEST_CASE("timestamped map: equal timestamps, slices, oldest, get", "[patterns][timestamped_map]") {
    sim::cluster c;
    using payload = std::tuple<std::string>;
    patterns::timestamped_map<sim::cluster, std::int64_t, payload> tm(c);
    REQUIRE(tm.add("o", 3, 100, payload{"c"}));
    REQUIRE(tm.add("o", 1, 100, payload{"a"})); // same second as id 3
    REQUIRE(tm.add("o", 2, 50, payload{"b"}));
    REQUIRE(tm.add("o", 4, 200, payload{"d"}));
    auto s = tm.slice("o", 100, 200).value();
    REQUIRE(s.size() == 2);
    CHECK(s[0].ts == 100);
    CHECK(s[1].ts == 100);
    auto oldest = tm.oldest("o", 2).value();
    REQUIRE(oldest.size() == 2);
    CHECK(oldest[0].id == 2);
    auto recent = tm.most_recent("o", 1).value();
    REQUIRE(recent.size() == 1);
    CHECK(recent[0].id == 4);
    auto got = tm.get("o", 1).value();
    REQUIRE(got.has_value());
    CHECK(std::get<0>(got->payload) == "a");
    CHECK_FALSE(tm.get("o", 99).value().has_value());
    CHECK(tm.size("o").value() == 4);
}

TEST_CASE("timestamped map: a payload that is not a list of fields is refused", "[patterns][timestamped_map]") {
    sim::cluster c;
    patterns::timestamped_map<sim::cluster, std::string, std::string> tm(c);
    auto r = tm.add("o", "id", 1, "text");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::parameter_error);
    CHECK(tm.size("o").value() == 0);
}

} // namespace patterns_timestamped_map_test
