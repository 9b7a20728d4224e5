#include <kvmodel/patterns/scoreboard.hpp>
#include <kvmodel/sim/cluster.hpp>
#include <kvmodel/testing.hpp>

#include "scoreboard_reference.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace patterns_scoreboard_test {

using namespace kvmodel;

using namespace patterns_scoreboard_reference;

TEST_CASE("scoreboard: set, add, remove, ranks in the three tie modes",
          "[patterns][scoreboard]") {
    sim::cluster db;
    patterns::scoreboard<sim::cluster> sb(db);
    REQUIRE(sb.set("g", "ann", 50).value() == 50);
    REQUIRE(sb.set("g", "bob", 70).value() == 70);
    REQUIRE(sb.set("g", "cat", 50).value() == 50);
    REQUIRE(sb.set("g", "dan", 40).value() == 40);
    // bob 70, ann 50, cat 50, dan 40
    CHECK(sb.rank("g", "bob", tie_mode::competition).value() == 1);
    CHECK(sb.rank("g", "cat", tie_mode::competition).value() == 2);
    CHECK(sb.rank("g", "dan", tie_mode::competition).value() == 4);
    CHECK(sb.rank("g", "dan", tie_mode::dense).value() == 3);
    CHECK(sb.rank("g", "ann", tie_mode::ordinal).value() == 2);
    CHECK(sb.rank("g", "cat", tie_mode::ordinal).value() == 3);
    CHECK(!sb.rank("g", "eve", tie_mode::competition).value().has_value());
    CHECK(!sb.rank("nobody", "eve", tie_mode::dense).value().has_value());

    auto added = sb.add("g", "dan", 35, "op-1", 1).value();
    CHECK(added.applied);
    CHECK(added.score == 75);
    CHECK(!sb.add("g", "dan", 35, "op-1", 1).value().applied);
    CHECK(sb.score("g", "dan").value() == 75);
    CHECK(sb.rank("g", "dan", tie_mode::dense).value() == 1);
    CHECK(sb.rank("g", "bob", tie_mode::dense).value() == 2);
    CHECK(sb.rank("g", "ann", tie_mode::dense).value() == 3);

    CHECK(sb.remove("g", "bob").value());
    CHECK(!sb.remove("g", "bob").value());
    CHECK(sb.size("g").value() == 3);
    CHECK(sb.rank("g", "ann", tie_mode::dense).value() == 2);

    const std::vector<score_entry> top1 = sb.top("g", 2, tie_mode::competition).value();
    const std::vector<score_entry> want = {{"dan", 75, 1}, {"ann", 50, 2}, {"cat", 50, 2}};
    CHECK(top1 == want);
    const std::vector<score_entry> near = sb.around("g", "cat", 1, tie_mode::ordinal).value();
    const std::vector<score_entry> want_near = {{"ann", 50, 2}, {"cat", 50, 3}};
    CHECK(near == want_near);
    CHECK(sb.around("g", "zed", 3).value().empty());
    CHECK(sb.top("nobody", 3, tie_mode::dense).value().empty());
}

TEST_CASE("scoreboard: a lowest-first board and bad input", "[patterns][scoreboard]") {
    sim::cluster db;
    patterns::scoreboard<sim::cluster> race(db, {.order = board_order::lowest_first});
    REQUIRE(race.set("100m", "carl", 992));
    REQUIRE(race.set("100m", "ben", 979));
    REQUIRE(race.set("100m", "flo", 992));
    CHECK(race.rank("100m", "ben", tie_mode::competition).value() == 1);
    CHECK(race.rank("100m", "flo", tie_mode::competition).value() == 2);
    CHECK(race.rank("100m", "flo", tie_mode::ordinal).value() == 3);
    CHECK(race.add("100m", "ben", -9, "fix", 1).value().score == 970);

    patterns::scoreboard<sim::cluster> game(db);
    auto bad = game.set("g", "x", std::numeric_limits<std::int64_t>::min());
    REQUIRE(!bad);
    CHECK(bad.error().code == status::parameter_error);
    CHECK(bad.error().message.find("scoreboard::set") != std::string::npos);
    CHECK(!game.size("g").value());
}

TEST_CASE("scoreboard: ranks, top with ties and around match a naive reference on 10k boards",
          "[patterns][scoreboard]") {
    sim::cluster db;
    std::mt19937_64 rng(Catch::rngSeed());
    patterns::scoreboard<sim::cluster> high(db);
    patterns::scoreboard<sim::cluster> low(db, {.order = board_order::lowest_first});
    std::int64_t op = 0;
    for (int b = 0; b < 10000; ++b) {
        const bool highest = rng() % 2 == 0;
        const auto& sb = highest ? high : low;
        reference ref{highest ? board_order::highest_first : board_order::lowest_first, {}};
        const value board(name("b", static_cast<std::uint64_t>(b)));
        // Every player written once, then a few random writes: boards of 1-7
        // players with scores spread over a few values (many ties). Kept small:
        // the case runs 10k boards under ASan at -O0 in CI.
        const auto players = 1 + rng() % 7;
        const auto spread = 1 + rng() % 6;
        auto write = [&](const std::string& p, std::uint64_t kind) {
            const auto x = static_cast<std::int64_t>(rng() % spread) - 2;
            if (kind == 0) {
                REQUIRE(sb.remove(board, p).value() == (ref.scores.erase(p) == 1));
            } else if (kind == 1) {
                ++op;
                auto r = sb.add(board, p, x, value(op), op).value();
                REQUIRE(r.applied);
                REQUIRE(r.score == (ref.scores[p] += x));
            } else {
                REQUIRE(sb.set(board, p, x * 10).value() == x * 10);
                ref.scores[p] = x * 10;
            }
        };
        for (std::uint64_t i = 0; i < players; ++i) write(name("p", i), 1 + rng() % 2);
        for (auto extra = rng() % 3; extra > 0; --extra) write(name("p", rng() % players), rng() % 3);
        if (ref.scores.empty()) {
            CHECK(sb.top(board, 3, tie_mode::competition).value().empty());
            continue;
        }
        const tie_mode mode = all_modes[rng() % 3];
        auto it = ref.scores.begin();
        std::advance(it, static_cast<std::ptrdiff_t>(rng() % ref.scores.size()));
        const std::string& p = it->first;
        INFO("board " << b << " player " << p);
        // rank() in each mode in turn; top and around in a random one.
        const tie_mode rank_mode = all_modes[b % 3];
        REQUIRE(sb.rank(board, p, rank_mode).value() == ref.rank(p, rank_mode));
        const std::size_t n = 1 + rng() % 4;
        REQUIRE(sb.top(board, n, mode).value() == ref.top(n, mode));
        const std::size_t k = rng() % 4;
        REQUIRE(sb.around(board, p, k, mode).value() == ref.around(p, k, mode));
        if (b % 16 == 0) REQUIRE(sb.size(board).value() == ref.scores.size());
    }
}

TEST_CASE("scoreboard: timeouts and in-doubt writes with resends never double count an add",
          "[patterns][scoreboard]") {
    sim::cluster db;
    patterns::scoreboard<sim::cluster> sb(db, {.once = {.keep = 16}});
    std::mt19937_64 rng(Catch::rngSeed());
    reference ref;
    {
        testing::fault_scope faults(
            db, {sim::fault::timeout().with_probability(0.2).forever(),
                 sim::fault::in_doubt().with_probability(0.2).forever()});
        for (std::int64_t op = 0; op < 600; ++op)
            resent_write(sb, value("g"), name("p", rng() % 8), op, rng, ref);
    }
    for (const auto& [p, s] : ref.scores) {
        INFO(p);
        CHECK(sb.score("g", p).value() == s);
        for (tie_mode m : all_modes) CHECK(sb.rank("g", p, m).value() == ref.rank(p, m));
    }
    CHECK(sb.size("g").value() == ref.scores.size());
    CHECK(sb.top("g", 100, tie_mode::dense).value() == ref.top(100, tie_mode::dense));
}

} // namespace patterns_scoreboard_test
