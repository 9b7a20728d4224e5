// Tests for kvmodel/sim/stats.hpp on a sim::cluster: what each command
// costs — round trips (a batch counts one per node), records and bytes read,
// bytes written as the full new record size on every write, largest record,
// hot keys and partitions, per node and partition — reset and JSON export.
#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/kv/record_size.hpp>
#include <kvmodel/sim/cluster.hpp>
#include <kvmodel/sim/stats.hpp>
#include <kvmodel/sim/stats_json.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace sim_stats_test {

using namespace kvmodel;

namespace {

kv::key K(std::int64_t i) {
    return kv::key("test", "st", i);
}

// A copy: callers often pass a temporary snapshot.
sim::namespace_stats ns_of(const sim::stats& s) {
    const sim::namespace_stats* n = s.find("test");
    REQUIRE(n != nullptr);
    return *n;
}

// Stored size of a record in set "st" with one list bin "l" of n ints < 128.
std::uint64_t list_record_size(std::size_t n) {
    list l;
    for (std::size_t i = 0; i < n; ++i)
        l.push_back(1);
    const std::vector<kv::bin> bins{{"l", l}};
    return kv::record_size::stored(kv::record_size::flat("st", std::nullopt, false, bins));
}

} // namespace

TEST_CASE("a write charges the full new record size (write amplification)", "[sim][stats]") {
    sim::cluster db;
    // Appending one small element to a growing list rewrites the record.
    std::uint64_t expected = 0;
    for (std::size_t n = 1; n <= 200; ++n) {
        REQUIRE(db.operate(K(1), {kv::op::cdt("l", cdt::list_ops::append(1))}));
        expected += list_record_size(n);
    }
    const sim::stats s = db.stats();
    const auto& ns = ns_of(s);
    CHECK(ns.totals.writes == 200);
    CHECK(ns.totals.bytes_written == expected);
    CHECK(ns.totals.largest_record == list_record_size(200));
    CHECK(ns.totals.round_trips == 200);
    CHECK(ns.records == 1);
    CHECK(ns.bytes == list_record_size(200));
    // Reads charge the whole record too.
    db.reset_stats();
    REQUIRE(db.get(K(1)));
    const std::vector<std::string> one{"l"};
    REQUIRE(db.get(K(1), one));
    const auto& r = ns_of(db.stats());
    CHECK(r.totals.reads == 2);
    CHECK(r.totals.bytes_read == 2 * list_record_size(200));
    CHECK(r.totals.bytes_written == 0);
}

TEST_CASE("round trips: one per command attempt; a batch one per node it touches", "[sim][stats]") {
    sim::cluster db;
    std::vector<kv::key> keys;
    std::set<int> nodes;
    for (int i = 0; i < 40; ++i) {
        keys.push_back(K(i));
        REQUIRE(db.put(K(i), {{"v", i}}));
        nodes.insert(db.replicas(K(i))[0]);
    }
    REQUIRE(nodes.size() == 3);
    db.reset_stats();
    auto rs = db.batch_get(keys);
    for (const auto& r : rs)
        CHECK(r);
    const auto& b = ns_of(db.stats());
    CHECK(b.totals.round_trips == 3);
    CHECK(b.totals.reads == 40);
    CHECK(b.totals.ops == 40);
    std::uint64_t node_trips = 0;
    for (const auto& n : b.nodes)
        node_trips += n.ops.round_trips;
    CHECK(node_trips == 3);

    // Keys on one node only: one round trip.
    db.reset_stats();
    std::vector<kv::key> same;
    for (const auto& k : keys)
        if (db.replicas(k)[0] == *nodes.begin())
            same.push_back(k);
    (void)db.batch_get(same);
    CHECK(ns_of(db.stats()).totals.round_trips == 1);

    // A scan visits every node once.
    db.reset_stats();
    auto sc = db.scan({"test", "st", {}, 0});
    REQUIRE(sc);
    CHECK(ns_of(db.stats()).totals.round_trips == 3);
    CHECK(ns_of(db.stats()).totals.reads == 40);

    // Single-record commands: one per attempt, retries included.
    db.reset_stats();
    REQUIRE(db.add_fault(sim::fault::timeout()));
    REQUIRE(db.get(K(1)));
    CHECK(ns_of(db.stats()).totals.round_trips == 2);
}

TEST_CASE("errors are counted by kind", "[sim][stats]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"s", "x"}}));
    db.reset_stats();
    (void)db.get(K(2));
    (void)db.operate(K(1), {kv::op::add("s", 1)});
    REQUIRE(db.add_fault(sim::fault::in_doubt()));
    (void)db.put(K(1), {{"s", "y"}});
    const auto& ns = ns_of(db.stats());
    CHECK(ns.totals.errors == 3);
    CHECK(ns.totals.not_found == 1);
    CHECK(ns.totals.timeouts == 1);
    CHECK(ns.totals.in_doubt == 1);
    CHECK(ns.totals.writes == 1); // the in-doubt write was applied
}

TEST_CASE("per node and per partition: counters add up to the totals", "[sim][stats]") {
    sim::cluster db;
    for (int i = 0; i < 300; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    for (int i = 0; i < 300; i += 2)
        REQUIRE(db.get(K(i)));
    REQUIRE(db.node_down(0)); // closes an accounting epoch: counters must not move
    for (int i = 0; i < 300; i += 3)
        REQUIRE(db.get(K(i)));
    const sim::stats s = db.stats();
    const auto& ns = ns_of(s);
    sim::counters by_node;
    std::uint64_t master_records = 0;
    std::uint64_t replica_records = 0;
    for (const auto& n : ns.nodes) {
        by_node += n.ops;
        master_records += n.master_records;
        replica_records += n.replica_records;
    }
    CHECK(by_node == ns.totals);
    sim::counters by_partition;
    std::uint64_t records = 0;
    for (const auto& p : ns.partitions) {
        by_partition += p.ops;
        records += p.records;
    }
    CHECK(by_partition == ns.totals);
    CHECK(records == 300);
    CHECK(master_records == 300);
    CHECK(replica_records == 300); // replication factor 2
    CHECK(ns.nodes[0].master_records == 0);
    CHECK_FALSE(ns.nodes[0].alive);
    CHECK(ns.nodes[0].ops.writes > 50); // what it served before going down
    CHECK(ns.totals.reads == 150 + 100);
}

TEST_CASE("hot keys and hot partitions", "[sim][stats]") {
    sim::cluster_config cfg;
    cfg.hot_list_size = 3;
    sim::cluster db(cfg);
    kv::write_policy send;
    send.send_key = true;
    for (int i = 0; i < 50; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}, send));
    for (int j = 0; j < 30; ++j)
        REQUIRE(db.get(K(7)));
    for (int j = 0; j < 20; ++j)
        REQUIRE(db.operate(K(9), {kv::op::add("v", 1)}));
    for (int j = 0; j < 10; ++j)
        REQUIRE(db.get(K(11)));
    // A deleted hot key is still reported, marked not live.
    for (int j = 0; j < 40; ++j)
        REQUIRE(db.get(K(13)));
    REQUIRE(db.remove(K(13)));
    const sim::stats s = db.stats();
    const auto& ns = ns_of(s);
    REQUIRE(ns.hot_keys.size() == 3);
    CHECK(ns.hot_keys[0].digest == K(13).digest());
    CHECK(ns.hot_keys[0].reads == 40);
    CHECK_FALSE(ns.hot_keys[0].live);
    CHECK(ns.hot_keys[1].digest == K(7).digest());
    CHECK(ns.hot_keys[1].reads == 30);
    CHECK(ns.hot_keys[1].writes == 1);
    CHECK(ns.hot_keys[1].user_key == value(7));
    CHECK(ns.hot_keys[1].partition == K(7).partition_id());
    CHECK(ns.hot_keys[2].digest == K(9).digest());
    CHECK(ns.hot_keys[2].writes == 21);
    REQUIRE(ns.hot_partitions.size() == 3);
    CHECK(ns.hot_partitions[0] == K(13).partition_id());
    CHECK(ns.partitions[ns.hot_partitions[0]].ops.ops >= 42);
}

TEST_CASE("reset_stats zeroes the counters, keeps the records", "[sim][stats]") {
    sim::cluster db;
    for (int i = 0; i < 10; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    REQUIRE(db.node_down(1));
    REQUIRE(db.get(K(1)));
    db.reset_stats();
    const auto& ns = ns_of(db.stats());
    CHECK(ns.totals == sim::counters{});
    for (const auto& n : ns.nodes)
        CHECK(n.ops == sim::counters{});
    CHECK(ns.hot_keys.empty());
    CHECK(ns.hot_partitions.empty());
    CHECK(ns.records == 10);
}

TEST_CASE("JSON export", "[sim][stats]") {
    sim::cluster db;
    kv::write_policy send;
    send.send_key = true;
    REQUIRE(db.put(K(1), {{"v", 1}}, send));
    REQUIRE(db.get(K(1)));
    const nlohmann::json j = sim::to_json(db.stats());
    REQUIRE(j["namespaces"].size() == 1);
    const auto& ns = j["namespaces"][0];
    CHECK(ns["name"] == "test");
    CHECK(ns["records"] == 1);
    CHECK(ns["totals"]["writes"] == 1);
    CHECK(ns["totals"]["reads"] == 1);
    CHECK(ns["totals"]["round_trips"] == 2);
    CHECK(ns["totals"]["bytes_written"] == ns["totals"]["largest_record"]);
    CHECK(ns["totals"].contains("key_busy"));
    CHECK(ns["nodes"].size() == 3);
    REQUIRE(ns["hot_keys"].size() == 1);
    CHECK(ns["hot_keys"][0]["key"] == 1);
    CHECK(ns["hot_keys"][0]["digest"] == kv::to_hex(K(1).digest()));
    CHECK(ns["hot_partitions"][0]["partition"] == K(1).partition_id());
    CHECK_FALSE(ns.contains("partitions"));
    const nlohmann::json full = sim::to_json(db.stats(), true);
    REQUIRE(full["namespaces"][0]["partitions"].size() == 1);
    CHECK(full["namespaces"][0]["partitions"][0]["records"] == 1);
    CHECK(full["fault_fires"] == 0);
}

} // namespace sim_stats_test
