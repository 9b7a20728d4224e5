// Records the data sets of tests/sim/capacity_datasets.hpp on a real server
// (hidden: run `AEROSPIKE_HOST=127.0.0.1:3000 adapters_tests "[.record_capacity]"`):
// rewrites each set's 40 records and creates the two secondary indexes.
// The namespace statistics are then read with the info protocol (`sets/test`,
// `sindex-stat`) into tests/data/capacity_server.json, which
// tests/sim/capacity_server_test.cpp replays in CI without a server.
#include <catch2/catch.hpp>

#if defined(KVMODEL_HAVE_AEROSPIKE)

#    include "../sim/capacity_datasets.hpp"

#    include <kvmodel/adapters/aerospike.hpp>

#    include <cstdlib>

namespace adapters_capacity_record_test {

using namespace kvmodel;
namespace ka = kvmodel::adapters;

TEST_CASE("record the capacity data sets on a real server", "[.record_capacity]") {
    const char* host = std::getenv("AEROSPIKE_HOST");
    REQUIRE(host != nullptr);
    ka::aerospike_config cfg;
    cfg.hosts = host;
    auto store = ka::aerospike_store::connect(cfg);
    REQUIRE(store);
    for (const testing::capacity::dataset& ds : testing::capacity::datasets()) {
        for (const testing::capacity::record_spec& r : ds.records) {
            (void)store->remove(r.key, kv::write_policy{});
            REQUIRE(store->put(r.key, r.bins, r.policy));
        }
        if (ds.index) {
            (void)store->drop_index(ds.index->ns, ds.index->name);
            REQUIRE(store->create_index(*ds.index));
        }
    }
}

} // namespace adapters_capacity_record_test

#endif
