// Tests for kvmodel/sim/detail/record_table.hpp: a partition's records by
// digest, against a std::map oracle on seeded random inserts and erases —
// with digests crowded onto few home slots, so probe runs are long, wrap
// around the table's end and get shifted back by erases.
#include <kvmodel/sim/detail/record_table.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>

namespace sim_record_table_test {

using kvmodel::kv::digest;
using kvmodel::sim::detail::entry;
using kvmodel::sim::detail::record_table;

namespace {

// Digest number i; its table hash (bytes 8..15) takes one of `homes` values
// at the top of the slot range and its other bytes tell digests apart.
digest make_digest(std::uint32_t i, std::uint32_t homes) {
    digest d{};
    d[0] = static_cast<std::uint8_t>(i);
    d[1] = static_cast<std::uint8_t>(i >> 8U);
    d[2] = static_cast<std::uint8_t>(i >> 16U);
    d[8] = static_cast<std::uint8_t>(255 - i % homes);
    return d;
}

entry tagged(std::uint64_t tag) {
    entry e;
    e.reads = tag;
    return e;
}

// Every record of the oracle is found with its tag, iteration yields each
// exactly once, and size agrees.
void check_same(record_table& t, const std::map<digest, std::uint64_t>& oracle) {
    REQUIRE(t.size() == oracle.size());
    for (const auto& [d, tag] : oracle) {
        const entry* e = t.find(d);
        REQUIRE(e != nullptr);
        REQUIRE(e->reads == tag);
    }
    std::map<digest, std::uint64_t> seen;
    for (const auto& [d, e] : t)
        REQUIRE(seen.emplace(d, e.reads).second);
    REQUIRE(seen == oracle);
}

} // namespace

TEST_CASE("record table: empty", "[sim][record_table]") {
    record_table t;
    CHECK(t.empty());
    CHECK(t.find(make_digest(1, 1)) == nullptr);
    t.erase(make_digest(1, 1));
    CHECK(t.begin() == t.end());
    CHECK(t.erase_if([](const digest&, const entry&) { return true; }) == 0);
}

TEST_CASE("record table: random inserts and erases match a map", "[sim][record_table]") {
    std::mt19937_64 rng(Catch::rngSeed());
    for (const std::uint32_t homes : {1U, 3U, 64U, 1U << 20U}) {
        CAPTURE(homes);
        record_table t;
        std::map<digest, std::uint64_t> oracle;
        std::uint64_t next_tag = 1;
        for (int step = 0; step < 3000; ++step) {
            const digest d = make_digest(static_cast<std::uint32_t>(rng() % 200), homes);
            const bool present = oracle.count(d) != 0;
            REQUIRE((t.find(d) != nullptr) == present);
            if (rng() % 3 != 0) {
                if (!present) {
                    entry& e = t.emplace(d, tagged(next_tag));
                    REQUIRE(e.reads == next_tag);
                    oracle[d] = next_tag++;
                }
            } else {
                t.erase(d);
                oracle.erase(d);
            }
            if (step % 97 == 0)
                check_same(t, oracle);
        }
        check_same(t, oracle);

        // erase_if sees every record once and removes just the chosen ones.
        std::size_t visited = 0;
        const std::size_t erased = t.erase_if([&](const digest&, const entry& e) {
            ++visited;
            return e.reads % 2 == 0;
        });
        CHECK(visited == oracle.size());
        std::size_t even = 0;
        for (auto it = oracle.begin(); it != oracle.end();) {
            if (it->second % 2 == 0) {
                it = oracle.erase(it);
                ++even;
            } else {
                ++it;
            }
        }
        CHECK(erased == even);
        check_same(t, oracle);
    }
}

TEST_CASE("record table: a record keeps its address while others come and go",
          "[sim][record_table]") {
    record_table t;
    entry& kept = t.emplace(make_digest(0, 1), tagged(7));
    for (std::uint32_t i = 1; i < 500; ++i)
        t.emplace(make_digest(i, 5), tagged(i));
    for (std::uint32_t i = 1; i < 500; i += 2)
        t.erase(make_digest(i, 5));
    CHECK(t.find(make_digest(0, 1)) == &kept);
    CHECK(kept.reads == 7);
}

} // namespace sim_record_table_test
