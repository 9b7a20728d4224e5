// The simulator's capacity accounting against what a real 8.1.2 server
// reported for the same data sets (tests/sim/capacity_datasets.hpp, recorded
// into tests/data/capacity_server.json by the hidden adapters test
// "[.record_capacity]" and the info protocol: `sets/test` per set,
// `sindex-stat` per index). Each data set is loaded alone into a one-node,
// replication-1 simulated namespace: its data_used_bytes must equal the
// set's on the server, its index_used_bytes the server's 64 B per object.
// Secondary indexes: the server reports its B-trees' memory (4096 partition
// trees of 4 KiB nodes), which the simulator charges the same way
// (sim::sindex_tree_nodes; more index sizes in sindex_server_test.cpp).
#include "capacity_datasets.hpp"

#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace sim_capacity_server_test {

using namespace kvmodel;

namespace {

nlohmann::json recorded() {
    const std::filesystem::path p =
        std::filesystem::path(__FILE__).parent_path().parent_path() / "data" / "capacity_server.json";
    std::ifstream in(p);
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
}

} // namespace

TEST_CASE("capacity: the sim's data and index bytes equal the 8.1.2 server's per data set",
          "[sim][capacity][server]") {
    const nlohmann::json server = recorded();
    const auto sets = testing::capacity::datasets();
    REQUIRE(server.at("sets").size() == sets.size());
    REQUIRE(sets.size() >= 20);
    for (const testing::capacity::dataset& ds : sets) {
        const nlohmann::json& want = server.at("sets").at(ds.set);
        sim::cluster_config cfg;
        cfg.nodes = 1;
        cfg.namespaces[0].replication_factor = 1;
        cfg.namespaces[0].nsup_period = 60; // as the server they were recorded on (one set has a TTL)
        sim::cluster db(cfg);
        if (ds.index)
            REQUIRE(db.create_index(*ds.index));
        for (const testing::capacity::record_spec& r : ds.records)
            REQUIRE(db.put(r.key, r.bins, r.policy));
        const sim::namespace_stats s = *db.stats().find("test");
        INFO(ds.set);
        CHECK(s.records == want.at("objects").get<std::uint64_t>());
        CHECK(s.data_used_bytes == want.at("data_used_bytes").get<std::uint64_t>());
        CHECK(s.index_used_bytes == want.at("objects").get<std::uint64_t>() * 64);
        if (ds.index) {
            const nlohmann::json& ix = server.at("sindexes").at(ds.index->name);
            // One entry per record (a scalar bin of the index's type); the
            // server's 4096 partition B-trees, one 4 KiB node each (16 MiB).
            CHECK(s.sindex_used_bytes == ix.at("used_bytes").get<std::uint64_t>());
            CHECK(ix.at("entries").get<std::uint64_t>() == ds.records.size());
            CHECK(ix.at("used_bytes").get<std::uint64_t>() == 4096 * 4096);
        }
    }
}

} // namespace sim_capacity_server_test
