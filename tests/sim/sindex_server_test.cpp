// The simulator's secondary-index memory against what a real 8.1.2 server
// reported (sindex-stat used_bytes and entries) for ten indexes: 0 to 1M
// entries, numeric and string, on a bin, a list's elements, a map's keys and
// a map's values. tests/data/gen_sindex_server.js wrote the same records
// (index first, then the records in key order) into a one-node namespace and
// recorded tests/data/sindex_server.json; each is loaded here alone into a
// one-node, replication-1 simulated namespace. The server counts 4 KiB per
// node of 4096 partition B-trees (sim::sindex_tree_nodes): the simulator's
// bytes equal the server's for every data set whose entries arrive in
// ascending order or whose trees stay at 437 entries or fewer; for one tree
// of 20000 entries in shuffled order the server's bytes lie between the
// fewest nodes such a tree can have and the simulator's (the most).
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace sim_sindex_server_test {

using namespace kvmodel;

namespace {

nlohmann::json recorded() {
    const std::filesystem::path p =
        std::filesystem::path(__FILE__).parent_path().parent_path() / "data" / "sindex_server.json";
    std::ifstream in(p);
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
}

// One data set of gen_sindex_server.js: its set, the index on bin "v", the
// records (user keys 0 .. records - 1) and the elements per record.
struct dataset {
    std::string set;
    kv::index_type type;
    kv::index_collection collection;
    std::int64_t records;
    std::int64_t per = 1;
    bool shuffled = false;
};

std::vector<dataset> datasets() {
    using kv::index_collection;
    using kv::index_type;
    return {
        {"ttl_n0", index_type::numeric, index_collection::none, 0},
        {"ttl_n1k", index_type::numeric, index_collection::none, 1000},
        {"ttl_s1k", index_type::string, index_collection::none, 1000},
        {"ttl_n100k", index_type::numeric, index_collection::none, 100'000},
        {"ttl_s100k", index_type::string, index_collection::none, 100'000},
        {"ttl_l1m", index_type::numeric, index_collection::list, 10'000, 100},
        {"ttl_mk100k", index_type::string, index_collection::map_keys, 1000, 100},
        {"ttl_mv100k", index_type::numeric, index_collection::map_values, 1000, 100},
        {"ttl_asc20k", index_type::numeric, index_collection::list, 1, 20'000},
        {"ttl_mix20k", index_type::numeric, index_collection::list, 1, 20'000, true},
    };
}

// The script's permutation of 0 .. n - 1 (a 64-bit LCG, Fisher-Yates).
std::vector<std::int64_t> order_of(std::int64_t n, bool shuffled) {
    std::vector<std::int64_t> out(static_cast<std::size_t>(n));
    std::iota(out.begin(), out.end(), std::int64_t{0});
    if (!shuffled)
        return out;
    std::uint64_t x = 1;
    for (std::int64_t i = n - 1; i > 0; --i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        const auto j = static_cast<std::size_t>((x >> 33U) % static_cast<std::uint64_t>(i + 1));
        std::swap(out[static_cast<std::size_t>(i)], out[j]);
    }
    return out;
}

// prefix + i (not operator+(const char*, string&&): GCC 12's -Wrestrict
// false positive).
value text(const char* prefix, std::int64_t i) {
    std::string s = prefix;
    s += std::to_string(i);
    return value(s);
}

value bin_of(const dataset& ds, std::int64_t i) {
    switch (ds.collection) {
    case kv::index_collection::none:
        return ds.type == kv::index_type::numeric ? value(i) : text("v", i);
    case kv::index_collection::list: {
        list l;
        for (std::int64_t j : order_of(ds.per, ds.shuffled))
            l.push_back(value(i * ds.per + j));
        return value(std::move(l));
    }
    case kv::index_collection::map_keys:
    case kv::index_collection::map_values: {
        map m;
        for (std::int64_t j : order_of(ds.per, ds.shuffled)) {
            if (ds.collection == kv::index_collection::map_keys)
                m.put(text("k", i * ds.per + j), value(j));
            else
                m.put(text("k", j), value(i * ds.per + j));
        }
        return value(std::move(m));
    }
    }
    return {};
}

// The fewest nodes a tree of `entries` entries inserted in any order has:
// every leaf at most 291 entries, a root above two or more leaves.
std::uint64_t fewest_nodes(std::uint64_t entries) {
    if (entries <= sim::sindex_leaf_keys)
        return 1;
    const std::uint64_t leaves = (entries + 1 + 291) / 292;
    return std::max<std::uint64_t>(3, leaves + 1);
}

} // namespace

TEST_CASE("sindex: a tree's nodes by its entries (8.1.2's B-tree orders)", "[sim][capacity][sindex]") {
    CHECK(sim::sindex_tree_nodes(0) == 1);
    CHECK(sim::sindex_tree_nodes(291) == 1);
    CHECK(sim::sindex_tree_nodes(292) == 3); // the root leaf splits: 145 + 145, one key up
    CHECK(sim::sindex_tree_nodes(437) == 3);
    CHECK(sim::sindex_tree_nodes(438) == 4);
    CHECK(sim::sindex_tree_nodes(20'000) == 137); // 136 leaves of 146 and a root
    // Past 225 leaves the root splits too.
    CHECK(sim::sindex_tree_nodes(146 * 225 - 1) == 226);
    CHECK(sim::sindex_tree_nodes(146 * 226 - 1) == 226 + 2 + 1);
    for (std::uint64_t k = 0; k < 100'000; k += 37)
        CHECK(sim::sindex_tree_nodes(k) >= fewest_nodes(k));
}

TEST_CASE("sindex: the sim's index bytes equal the 8.1.2 server's per data set",
          "[sim][capacity][sindex][server]") {
    const nlohmann::json server = recorded();
    REQUIRE(server.at("server") == "8.1.2.0");
    const std::vector<dataset> sets = datasets();
    REQUIRE(server.at("indexes").size() == sets.size());
    for (const dataset& ds : sets) {
        INFO(ds.set);
        const nlohmann::json& want = server.at("indexes").at(ds.set);
        sim::cluster_config cfg;
        cfg.nodes = 1;
        cfg.namespaces[0].replication_factor = 1;
        sim::cluster db(cfg);
        REQUIRE(db.create_index(
            {.ns = "test", .set = ds.set, .bin = "v", .name = "ix", .type = ds.type, .collection = ds.collection}));
        std::uint64_t entries = 0;
        for (std::int64_t i = 0; i < ds.records; ++i) {
            REQUIRE(db.put(kv::key("test", ds.set, i), {{"v", bin_of(ds, i)}}));
            entries += static_cast<std::uint64_t>(ds.per);
        }
        CHECK(entries == want.at("entries").get<std::uint64_t>());
        const std::uint64_t sim_bytes = db.stats().find("test")->sindex_used_bytes;
        const auto server_bytes = want.at("used_bytes").get<std::uint64_t>();
        if (!ds.shuffled) {
            CHECK(sim_bytes == server_bytes);
            continue;
        }
        // Shuffled: the server's tree is fuller than the simulator's bound.
        const std::uint64_t floor_bytes =
            (4095 + fewest_nodes(static_cast<std::uint64_t>(ds.per))) * sim::sindex_node_bytes;
        CHECK(server_bytes >= floor_bytes);
        CHECK(server_bytes <= sim_bytes);
        CHECK(sim_bytes == (4095 + sim::sindex_tree_nodes(20'000)) * sim::sindex_node_bytes);
    }
}

TEST_CASE("sindex: every node holds every index's 4096 trees, held partitions or not",
          "[sim][capacity][sindex]") {
    sim::cluster db; // 3 nodes, replication 2
    REQUIRE(db.create_index({.ns = "test", .set = "s", .bin = "v", .name = "a"}));
    REQUIRE(db.create_index({.ns = "test", .set = "s", .bin = "w", .name = "b", .type = kv::index_type::string}));
    const sim::namespace_stats empty = *db.stats().find("test");
    for (const sim::node_stats& n : empty.nodes)
        CHECK(n.sindex_used_bytes == 2 * 4096 * sim::sindex_node_bytes); // 32 MiB
    CHECK(empty.sindex_used_bytes == 3 * 2 * 4096 * sim::sindex_node_bytes);
    // 300 entries in one record's list: a list index's tree of that
    // partition splits to 3 nodes on both nodes holding a copy.
    REQUIRE(db.create_index({.ns = "test", .set = "s", .bin = "l", .name = "c",
                             .collection = kv::index_collection::list}));
    list l;
    for (int i = 0; i < 300; ++i)
        l.push_back(value(i));
    REQUIRE(db.put(kv::key("test", "s", 1), {{"l", value(std::move(l))}}));
    const sim::namespace_stats one = *db.stats().find("test");
    CHECK(one.sindex_used_bytes == (3 * 3 * 4096 + 2 * 2) * sim::sindex_node_bytes);
}

} // namespace sim_sindex_server_test
