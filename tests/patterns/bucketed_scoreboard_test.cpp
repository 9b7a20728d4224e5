#include <kvmodel/patterns/bucketed_scoreboard.hpp>
#include <kvmodel/sim/cluster.hpp>
#include <kvmodel/testing.hpp>

#include "scoreboard_reference.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace patterns_bucketed_scoreboard_test {

using namespace kvmodel;

using namespace patterns_scoreboard_reference;

void check_all(const patterns::bucketed_scoreboard<sim::cluster>& sb, const std::string& board,
               const reference& ref) {
    for (const auto& [p, s] : ref.scores) {
        INFO("player " << p << " score " << s);
        REQUIRE(sb.score(board, p).value() == s);
        for (tie_mode m : all_modes) REQUIRE(sb.rank(board, p, m).value() == ref.rank(p, m));
    }
    REQUIRE(sb.size(board).value() == ref.scores.size());
}

/// around() of every player (k = 0..3, every mode; fewer players when the
/// board is big) against the reference: exact ranks across buckets.
void check_around(const patterns::bucketed_scoreboard<sim::cluster>& sb, const std::string& board,
                  const reference& ref, std::mt19937_64& rng) {
    for (const auto& [p, s] : ref.scores) {
        if (ref.scores.size() > 20 && rng() % 3 != 0) continue;
        const std::size_t k = rng() % 4;
        for (tie_mode m : all_modes) {
            INFO("player " << p << " score " << s << " k " << k << " mode " << static_cast<int>(m));
            REQUIRE(sb.around(board, p, k, m).value() == ref.around(p, k, m));
        }
    }
    CHECK(sb.around(board, "nobody", 2, tie_mode::competition).value().empty());
}

TEST_CASE("bucketed scoreboard: global ranks match a reference under random drift and rebalancing",
          "[patterns][bucketed_scoreboard]") {
    sim::cluster db;
    std::mt19937_64 rng(Catch::rngSeed());
    for (const board_order order : {board_order::highest_first, board_order::lowest_first}) {
        patterns::bucketed_scoreboard<sim::cluster> sb(
            db, {.order = order, .max_bucket = 8, .min_bucket = 4, .directory_shards = 4});
        reference ref{order, {}};
        const std::string board = order == board_order::highest_first ? "hi" : "lo";
        std::int64_t op = 0;
        for (int round = 0; round < 30; ++round) {
            for (int i = 0; i < 15; ++i) {
                const std::string p = name("p", rng() % 60);
                const auto x = static_cast<std::int64_t>(rng() % 40) - 20;
                switch (rng() % 6) {
                case 0:
                    REQUIRE(sb.remove(board, p).value() == (ref.scores.erase(p) == 1));
                    break;
                case 1:
                case 2: {
                    ++op;
                    auto r = sb.add(board, p, x, value(op), op).value();
                    REQUIRE(r.applied);
                    REQUIRE(r.score == (ref.scores[p] += x));
                    break;
                }
                default:
                    REQUIRE(sb.set(board, p, x * 3).value() == x * 3);
                    ref.scores[p] = x * 3;
                }
            }
            // Ranks stay exact before (checked every 4th round: ASan at -O0
            // in CI) and after a rebalance.
            if (round % 4 == 0) {
                check_all(sb, board, ref);
                check_around(sb, board, ref, rng);
            }
            auto rep = sb.rebalance(board).value();
            CHECK(rep.buckets == sb.bucket_count(board).value());
            check_all(sb, board, ref);
            check_around(sb, board, ref, rng);
        }
        CHECK(sb.bucket_count(board).value() > 1);
        for (std::size_t n : {1U, 5U, 17U, 1000U})
            REQUIRE(sb.top(board, n, tie_mode::dense).value() == ref.top(n, tie_mode::dense));
    }
}

TEST_CASE("bucketed scoreboard: faults and resends never double count, a rebalance cut short "
          "is finished by the next",
          "[patterns][bucketed_scoreboard]") {
    sim::cluster db;
    std::mt19937_64 rng(Catch::rngSeed());
    patterns::bucketed_scoreboard<sim::cluster> sb(
        db, {.max_bucket = 6, .min_bucket = 3, .directory_shards = 3});
    reference ref;
    {
        testing::fault_scope faults(
            db, {sim::fault::timeout().with_probability(0.1).forever(),
                 sim::fault::in_doubt().with_probability(0.1).forever()});
        for (std::int64_t op = 0; op < 300; ++op) {
            resent_write(sb, std::string("g"), name("p", rng() % 30), op, rng, ref);
            // A rebalance now and then, resent until it finishes.
            if (op % 25 == 24)
                while (!sb.rebalance("g")) {
                }
        }
    }
    check_all(sb, "g", ref);
    check_around(sb, "g", ref, rng);
    REQUIRE(sb.rebalance("g"));
    check_all(sb, "g", ref);
    check_around(sb, "g", ref, rng);
}

TEST_CASE("bucketed scoreboard: around() across empty buckets, ties and strays takes at most "
          "three batches",
          "[patterns][bucketed_scoreboard]") {
    // One node: a batch is one round trip, so round trips count batches.
    sim::cluster_config cfg;
    cfg.nodes = 1;
    cfg.namespaces[0].replication_factor = 1;
    sim::cluster db(cfg);
    auto batches = [&db] { return db.stats().find("test")->totals.round_trips; };
    patterns::bucketed_scoreboard<sim::cluster> sb(db, {.max_bucket = 6, .min_bucket = 2,
                                                        .directory_shards = 2});
    reference ref;
    std::vector<std::pair<std::string, std::int64_t>> rows;
    for (std::uint64_t i = 0; i < 60; ++i) {
        rows.emplace_back(name("p", i), static_cast<std::int64_t>(i % 20));
        ref.scores[rows.back().first] = rows.back().second;
    }
    REQUIRE(sb.load("e", rows));
    REQUIRE(sb.bucket_count("e").value() > 6);
    // No empty bucket: two batches, whatever k.
    for (const auto& [p, s] : ref.scores)
        for (std::size_t k : {0U, 3U, 30U}) {
            db.reset_stats();
            REQUIRE(sb.around("e", p, k, tie_mode::dense).value() == ref.around(p, k, tie_mode::dense));
            CHECK(batches() == 2);
        }
    // Empty out a run of buckets in the middle (scores 8..13): around() of
    // the players next to them must reach past, in a third batch.
    for (auto it = ref.scores.begin(); it != ref.scores.end();) {
        if (it->second >= 8 && it->second <= 13) {
            REQUIRE(sb.remove("e", it->first).value());
            it = ref.scores.erase(it);
        } else {
            ++it;
        }
    }
    for (const auto& [p, s] : ref.scores)
        for (std::size_t k : {0U, 1U, 4U, 9U})
            for (tie_mode m : all_modes) {
                INFO("player " << p << " k " << k);
                db.reset_stats();
                REQUIRE(sb.around("e", p, k, m).value() == ref.around(p, k, m));
                CHECK(batches() >= 2);
                CHECK(batches() <= 3);
            }
}

TEST_CASE("bucketed scoreboard: bulk load, bad input", "[patterns][bucketed_scoreboard]") {
    sim::cluster db;
    patterns::bucketed_scoreboard<sim::cluster> sb(db, {.max_bucket = 10, .directory_shards = 5});
    std::vector<std::pair<std::string, std::int64_t>> rows;
    reference ref;
    for (std::uint64_t i = 0; i < 200; ++i) {
        rows.emplace_back(name("p", i), static_cast<std::int64_t>(i % 37));
        ref.scores[rows.back().first] = rows.back().second;
    }
    auto loaded = sb.load("big", rows);
    INFO((loaded ? std::string() : loaded.error().message));
    REQUIRE(loaded);
    CHECK(sb.bucket_count("big").value() >= 200 / 10);
    check_all(sb, "big", ref);
    auto again = sb.load("big", rows);
    REQUIRE(!again);
    CHECK(again.error().code == status::record_exists);
    rows.push_back(rows.front());
    auto dup = sb.load("dup", rows);
    REQUIRE(!dup);
    CHECK(dup.error().code == status::parameter_error);
    CHECK(!sb.rank("none", "p1", tie_mode::competition).value().has_value());
    CHECK(!sb.rank("big", "nobody", tie_mode::competition).value().has_value());
    CHECK(sb.set("", "p", 1).error().code == status::parameter_error);
    patterns::bucketed_scoreboard<sim::cluster> bad(db, {.directory_shards = 0});
    CHECK(bad.set("b", "p", 1).error().code == status::parameter_error);
}

} // namespace patterns_bucketed_scoreboard_test
