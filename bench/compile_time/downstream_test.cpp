// bench/compile_time/downstream_test.cpp — what a user's test file looks like:
// Catch2, a simulated cluster and three patterns, each instantiated for the
// user's own types and called. tools/compile_time.sh times its compilation
// (never built by CMake: the file is a measurement, not a test).
#include <kvmodel/patterns/bucketed_list.hpp>
#include <kvmodel/patterns/capped_map.hpp>
#include <kvmodel/patterns/leaderboard.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace app_feed_test {

using namespace kvmodel;

using feed = patterns::bucketed_list<sim::cluster, std::string>;
using board = patterns::leaderboard<sim::cluster, std::pair<std::int64_t, std::string>>;
using top_scores = patterns::capped_map<sim::cluster, std::int64_t, std::int64_t>;

TEST_CASE("feed: appends across buckets, reads newest first", "[app][feed]") {
    sim::cluster c;
    feed f(c, {patterns::bucket_policy::by_count, 10});
    for (int i = 0; i < 35; ++i) REQUIRE(f.append("user-1", "event-" + std::to_string(i), 1000 + i));
    CHECK(f.count("user-1").value() == 35);
    auto all = f.read_all("user-1").value();
    REQUIRE(all.size() == 35);
    CHECK(all.front().item == "event-0");
    auto page = f.newest("user-1", 5).value();
    CHECK(page.items.size() == 5);
    CHECK(f.keep_newest("user-1", 20).value() > 0);
}

TEST_CASE("board: ranks and closest entries", "[app][board]") {
    sim::cluster c;
    board b(c);
    std::vector<std::pair<std::int64_t, std::string>> entries{{50, "a"}, {20, "b"}, {70, "c"}};
    CHECK(b.merge("week-1", entries).value() == 3);
    CHECK(b.rank_of("week-1", {50, "a"}).value() == std::optional<std::size_t>(1));
    CHECK(b.highest("week-1", 1).value().front().second == "c");
    CHECK(b.closest("week-1", value{list{50, nil}}, 2).value().size() == 2);
}

TEST_CASE("top scores: capped at three, faults injected", "[app][scores]") {
    sim::cluster c;
    top_scores t(c, 3);
    for (std::int64_t s : {50, 10, 40, 30, 20, 60}) REQUIRE(t.insert("game", s, s).value().size <= 3);
    CHECK(t.size("game").value() == 3);
    REQUIRE(c.add_fault(sim::fault::timeout()));
    CHECK_FALSE(t.insert("game", 99, 99));
    CHECK(c.stats().namespaces[0].totals.round_trips > 0);
}

} // namespace app_feed_test
