#include <kvmodel/patterns/leaderboard.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include "../../examples/scenarios/world_records.hpp"

#include <sstream>

namespace patterns_leaderboard_test {

using namespace kvmodel;

TEST_CASE("leaderboard: the world-records seed", "[patterns][leaderboard]") {
    sim::cluster c;
    std::ostringstream out;
    auto r = examples::run_world_records(c, out);
    REQUIRE(r);
    CHECK(r->size == 19);
    REQUIRE(r->closest.size() == 2);
    CHECK(std::get<1>(r->closest[0]) == "Jim Hines");
    CHECK(std::get<0>(r->closest[0]) == 9.95);
    CHECK(std::get<1>(r->closest[1]) == "Charles Greene");
    CHECK(std::get<0>(r->closest[1]) == 10.02);
}

TEST_CASE("leaderboard: unique merge, ranks, highest and lowest, closest", "[patterns][leaderboard]") {
    sim::cluster c;
    using entry = std::pair<std::int64_t, std::string>;
    patterns::leaderboard<sim::cluster, entry> b(c);
    std::vector<entry> first{{50, "a"}, {20, "b"}, {50, "c"}, {20, "b"}}; // a duplicate inside the batch
    CHECK(b.merge("g", first).value() == 3);
    CHECK(b.add("g", {50, "a"}).value() == 3); // already there: a no-op
    CHECK(b.add("g", {70, "d"}).value() == 4);
    CHECK(b.rank_of("g", {50, "c"}).value() == std::optional<std::size_t>(2));
    CHECK_FALSE(b.rank_of("g", {1, "zz"}).value().has_value());
    auto hi = b.highest("g", 2).value();
    REQUIRE(hi.size() == 2);
    CHECK(hi[0].second == "d");
    CHECK(hi[1].second == "c");
    CHECK(b.lowest("g", 1).value()[0].second == "b");
    auto near = b.closest("g", value{list{50, nil}}, 2).value(); // one below 50, one at/above
    REQUIRE(near.size() == 2);
    CHECK(near[0].second == "b");
    CHECK(near[1].second == "a");
    CHECK(b.size("nobody").value() == 0);
    CHECK(b.all("nobody").value().empty());
}

} // namespace patterns_leaderboard_test
