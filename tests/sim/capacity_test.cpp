// Tests for the simulated namespace's capacity (sim/namespace_config.hpp):
// data and index bytes charged per copy, stop-writes (refused with the
// server's status, accepted again after deletes or expiry), nsup on the
// cluster's clock (expiry, and eviction in the server's order: nearest void
// time first, cut at a void-time histogram bucket), and TTL writes refused
// under the server's default nsup-period 0. The rules come from
// aerospike-server as/src/base/nsup.c (eval_stop_writes, eval_hwm_breached,
// find_evict_void_time), cf/src/linear_hist.c and
// as/include/transaction/rw_utils.h (is_ttl_disallowed).
#include <kvmodel/exp/build.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace sim_capacity_test {

using namespace kvmodel;
using namespace std::chrono_literals;

namespace {

kv::key K(std::int64_t i) {
    return kv::key("test", "c", i);
}

struct fixture {
    std::shared_ptr<sim::manual_clock> clock = std::make_shared<sim::manual_clock>();
    sim::cluster db;
    explicit fixture(sim::namespace_config nc, std::uint32_t nodes = 1)
        : db(config(clock, std::move(nc), nodes)) {}
    static sim::cluster_config
    config(std::shared_ptr<sim::manual_clock> c, sim::namespace_config nc, std::uint32_t nodes) {
        sim::cluster_config cfg;
        cfg.nodes = nodes;
        cfg.time_source = std::move(c);
        cfg.namespaces = {std::move(nc)};
        return cfg;
    }
    sim::namespace_stats ns() const { return *db.stats().find("test"); }
};

sim::namespace_config one_copy() {
    sim::namespace_config nc;
    nc.replication_factor = 1;
    return nc;
}

kv::write_policy ttl(std::int64_t s) {
    kv::write_policy wp;
    wp.ttl = s;
    return wp;
}

} // namespace

TEST_CASE("capacity: every copy is charged its stored size and 64 B of index",
          "[sim][capacity]") {
    sim::namespace_config nc;
    nc.replication_factor = 2;
    nc.allow_ttl_without_nsup = true; // expired records go lazily or by expire(), no nsup
    fixture f(nc, 3);
    std::mt19937_64 rng(7);
    kv::write_policy long_ttl = ttl(1000);
    for (int step = 0; step < 3000; ++step) {
        const auto i = static_cast<std::int64_t>(rng() % 200);
        switch (rng() % 5) {
        case 0:
        case 1:
            REQUIRE(f.db.put(K(i), {{"s", std::string(rng() % 300, 'x')}, {"n", step}}));
            break;
        case 2:
            (void)f.db.remove(K(i));
            break;
        case 3: // a write that empties the record deletes it
            (void)f.db.put(K(i), {{"s", value{}}, {"n", value{}}});
            break;
        default:
            (void)f.db.put(K(i), {{"t", step}}, long_ttl);
            break;
        }
        if (step % 500 == 0)
            f.clock->advance(400s); // some TTL records expire, removed lazily or by expire()
        if (step % 700 == 0)
            f.db.expire();
    }
    f.db.expire();
    const sim::namespace_stats s = f.ns();
    REQUIRE(s.records > 0);
    // No expired record left: what the accounting charged is what is stored.
    CHECK(s.data_used_bytes == 2 * s.bytes);
    CHECK(s.index_used_bytes == 2 * s.records * 64);
    std::uint64_t per_node = 0;
    for (const sim::node_stats& n : s.nodes) {
        CHECK(n.data_used_bytes == n.master_bytes + n.replica_bytes);
        CHECK(n.index_used_bytes == (n.master_records + n.replica_records) * 64);
        CHECK(n.data_used_pct == n.data_used_bytes * 100 / (std::uint64_t{4} << 30U));
        per_node += n.data_used_bytes;
    }
    CHECK(per_node == s.data_used_bytes);
}

TEST_CASE("capacity: a down node's copies move to the new replicas", "[sim][capacity]") {
    fixture f(sim::namespace_config{}, 3);
    for (int i = 0; i < 300; ++i)
        REQUIRE(f.db.put(K(i), {{"v", std::string(100, 'v')}}));
    const std::uint64_t bytes = f.ns().bytes;
    REQUIRE(f.db.node_down(0));
    const sim::namespace_stats s = f.ns();
    CHECK(s.nodes[0].data_used_bytes == 0);
    CHECK(s.nodes[1].data_used_bytes + s.nodes[2].data_used_bytes == 2 * bytes);
}

TEST_CASE("capacity: secondary indexes cost 4096 trees per node, and a tree grows past 291 "
          "entries",
          "[sim][capacity]") {
    fixture f(one_copy());
    REQUIRE(f.db.create_index({"test", "", "n", "by_n", kv::index_type::numeric}));
    REQUIRE(f.db.create_index(
        {"test", "", "l", "by_l", kv::index_type::string, kv::index_collection::list}));
    constexpr std::uint64_t empty = 2 * 4096 * sim::sindex_node_bytes; // 32 MiB
    CHECK(f.ns().sindex_used_bytes == empty);
    // 291 strings and an int (not an entry of a string index), and n: the
    // trees stay one node each.
    list l;
    for (int i = 0; i < 291; ++i) {
        std::string str = "s"; // not "s" + ...: GCC 12's -Wrestrict false positive
        str += std::to_string(i);
        l.push_back(value(str));
    }
    l.push_back(value(3));
    REQUIRE(f.db.put(K(1), {{"n", 1}, {"l", l}}));
    REQUIRE(f.db.put(K(2), {{"n", "not a number"}}));
    CHECK(f.ns().sindex_used_bytes == empty);
    // The 292nd string splits K(1)'s partition's tree: a root and two leaves.
    l.push_back(value("s291"));
    REQUIRE(f.db.put(K(1), {{"n", 1}, {"l", l}}));
    CHECK(f.ns().sindex_used_bytes == empty + 2 * sim::sindex_node_bytes);
    REQUIRE(f.db.remove(K(1)));
    CHECK(f.ns().sindex_used_bytes == empty);
}

TEST_CASE("capacity: stop-writes-sys-memory-pct against the node's memory, all namespaces",
          "[sim][capacity]") {
    auto fill = [](std::uint64_t node_memory) {
        sim::cluster_config cfg;
        cfg.nodes = 1;
        cfg.node_memory = node_memory;
        cfg.namespaces[0] = one_copy();
        cfg.namespaces[0].stop_writes_used_pct = 0; // only the host's memory
        sim::namespace_config other = one_copy();
        other.name = "other";
        cfg.namespaces.push_back(other);
        return std::make_unique<sim::cluster>(cfg);
    };
    auto memory = [](const sim::cluster& db) {
        std::uint64_t m = 0;
        const sim::stats all = db.stats();
        for (const sim::namespace_stats& s : all.namespaces)
            m += s.nodes[0].data_used_bytes + s.nodes[0].index_used_bytes + s.nodes[0].sindex_used_bytes;
        return m;
    };
    constexpr std::uint64_t node_memory = 100'000;
    std::unique_ptr<sim::cluster> db = fill(node_memory);
    const std::string kb(1000, 'x');
    int i = 0;
    // Filling the other namespace to 90% of the node's memory: still writes.
    for (;; ++i) {
        const kv::key k("other", "s", i);
        REQUIRE(db->put(k, {{"v", kb}}));
        if (memory(*db) * 100 > 90 * node_memory) {
            REQUIRE(db->remove(k));
            break;
        }
    }
    db->nsup();
    REQUIRE(db->put(K(1), {{"a", 1}}));
    // Past 90% (rounded up, then more than: nsup.c's test) writes stop.
    REQUIRE(db->put(kv::key("other", "s", i), {{"v", kb}}));
    REQUIRE(memory(*db) * 100 > 90 * node_memory);
    db->nsup();
    result<void> r = db->put(K(2), {{"a", 1}});
    REQUIRE(r.code() == status::server_mem_error);
    CHECK_THAT(r.error().message,
               Catch::Contains("system memory above stop-writes-sys-memory-pct 90% of node-memory 100000"));
    CHECK_FALSE(db->exists(K(2)).value());
    // Deletes free memory; the next evaluation lifts it.
    REQUIRE(db->remove(kv::key("other", "s", i)));
    REQUIRE(db->remove(kv::key("other", "s", i - 1)));
    db->nsup();
    CHECK(db->put(K(2), {{"a", 1}}));
    // Without node_memory (the default) the same fill never stops writes.
    std::unique_ptr<sim::cluster> unbounded = fill(0);
    for (int j = 0; j <= i + 10; ++j)
        REQUIRE(unbounded->put(kv::key("other", "s", j), {{"v", kb}}));
    unbounded->nsup();
    CHECK(unbounded->put(K(2), {{"a", 1}}));
    // The setting is a percentage.
    sim::cluster_config bad;
    bad.namespaces[0].stop_writes_sys_memory_pct = 101;
    CHECK(sim::cluster::validate(bad).code() == status::parameter_error);
}

TEST_CASE("capacity: an index on a ctx or an expression holds one entry per distinct value",
          "[sim][capacity]") {
    fixture f(one_copy());
    kv::index_spec tags{
        "test", "", "doc", "by_tags", kv::index_type::string, kv::index_collection::list};
    tags.ctx = {cdt::ctx_step::map_key("tags")};
    REQUIRE(f.db.create_index(tags));
    kv::index_spec sum{"test", "", "", "by_sum", kv::index_type::numeric};
    sum.exp = exp::add(exp::bin_int("a"), exp::int_val(1)).bytes();
    REQUIRE(f.db.create_index(sum));
    constexpr std::uint64_t empty = 2 * 4096 * sim::sindex_node_bytes;
    // 200 distinct strings, each twice, and an int: one tree key per value
    // and record (the server ignores the equal key), so 200 entries and one
    // node; counted twice they would be 400 and split the tree (past 291).
    list twice;
    for (int i = 0; i < 400; ++i) {
        std::string str = "t"; // not "t" + ...: GCC 12's -Wrestrict false positive
        str += std::to_string(i % 200);
        twice.push_back(value(str));
    }
    twice.push_back(value(3));
    REQUIRE(f.db.put(K(1), {{"doc", map{{"tags", twice}}}, {"a", 1}}));
    REQUIRE(f.db.put(K(2), {{"doc", list{"x"}}, {"a", "not a number"}}));
    CHECK(f.ns().sindex_used_bytes == empty);
    // 292 distinct values under the ctx split K(1)'s partition's tree; the
    // same values at the bin's top level (no ctx) are not in the index.
    list distinct;
    for (int i = 0; i < 292; ++i) {
        std::string str = "d";
        str += std::to_string(i);
        distinct.push_back(value(str));
    }
    REQUIRE(f.db.put(K(1), {{"doc", map{{"tags", distinct}}}}));
    CHECK(f.ns().sindex_used_bytes == empty + 2 * sim::sindex_node_bytes);
    REQUIRE(f.db.put(K(1), {{"doc", distinct}}));
    CHECK(f.ns().sindex_used_bytes == empty);
    // The expression index: 292 records in one partition are not easy to
    // make, so its entries are checked through a query instead.
    REQUIRE(f.db.put(K(3), {{"a", 41}}));
    auto hits =
        f.db.query(kv::query_request{"test", "", {}, kv::filter::equal("", 42).on(sum.exp), 0}, {});
    REQUIRE(hits);
    CHECK(hits->size() == 1);
}

TEST_CASE("capacity: stop-writes refuses writes with SERVER_MEM_ERROR, then accepts "
          "again after deletes",
          "[sim][capacity]") {
    sim::namespace_config nc = one_copy();
    nc.data_size = 64 * 1024;
    nc.stop_writes_used_pct = 50;
    fixture f(nc);
    const std::string payload(1000, 'p');
    int n = 0;
    // The server evaluates stop-writes every 10 s, not per write: until the
    // next evaluation, writes keep landing.
    while (f.ns().nodes[0].data_used_bytes * 100 / nc.data_size < 50)
        REQUIRE(f.db.put(K(n++), {{"p", payload}}));
    REQUIRE(f.db.put(K(n++), {{"p", payload}}));
    f.clock->advance(10s);
    result<void> refused = f.db.put(K(n), {{"p", payload}});
    REQUIRE(refused.code() == status::server_mem_error);
    CHECK_THAT(refused.error().message,
               Catch::Contains("put: server full: namespace 'test' is at stop-writes on node 0") &&
                   Catch::Contains("stop-writes-used-pct 50% of data-size 65536"));
    CHECK(f.db.operate(K(0), {kv::op::add("x", 1)}).code() == status::server_mem_error);
    CHECK(f.db.touch(K(0)).code() == status::server_mem_error);
    CHECK(f.db.get(K(0))); // reads go on
    CHECK(f.ns().nodes[0].stop_writes);
    CHECK(f.ns().stop_writes_refused == 3);
    // Deletes are not writes: they go through, and free the space.
    for (int i = 0; i < n / 2; ++i)
        REQUIRE(f.db.remove(K(i)));
    CHECK(f.db.put(K(n), {{"p", payload}}).code() == status::server_mem_error); // not yet evaluated
    f.clock->advance(10s);
    CHECK(f.db.put(K(n), {{"p", payload}}));
    CHECK_FALSE(f.ns().nodes[0].stop_writes);
}

TEST_CASE("capacity: stop-writes at exactly data-used-pct >= stop-writes-used-pct (rounded "
          "down)",
          "[sim][capacity]") {
    sim::namespace_config nc = one_copy();
    nc.data_size = 10'000;
    nc.stop_writes_used_pct = 30;
    fixture f(nc);
    for (int i = 0; i < 40; ++i) {
        (void)f.db.put(K(i), {{"p", std::string(50, 'q')}});
        f.db.nsup(); // evaluates now
        const sim::node_stats n = f.ns().nodes[0];
        CHECK(n.stop_writes == (n.data_used_bytes * 100 / 10'000 >= 30));
    }
    CHECK(f.ns().nodes[0].stop_writes);
}

TEST_CASE("capacity: stop-writes lifts when nsup expires records", "[sim][capacity]") {
    sim::namespace_config nc = one_copy();
    nc.data_size = 32 * 1024;
    nc.nsup_period = 60;
    fixture f(nc);
    int n = 0;
    while (f.ns().nodes[0].data_used_pct < 70)
        REQUIRE(f.db.put(K(n++), {{"p", std::string(500, 'e')}}, ttl(100)));
    f.db.nsup();
    REQUIRE(f.db.put(K(n), {{"p", 1}}).code() == status::server_mem_error);
    // Past the void times and the next nsup mark: the first command runs nsup
    // (and the stop-writes evaluation due), then passes.
    f.clock->advance(200s);
    CHECK(f.db.put(K(n), {{"p", 1}}));
    const sim::namespace_stats s = f.ns();
    CHECK(s.expired_records == static_cast<std::uint64_t>(n));
    CHECK(s.nsup_cycles == 2); // nsup() and the one on the clock
    CHECK_FALSE(s.nodes[0].stop_writes);
}

TEST_CASE("capacity: the indexes-memory-budget stops writes too", "[sim][capacity]") {
    sim::namespace_config nc = one_copy();
    nc.indexes_memory_budget = 64 * 10;
    fixture f(nc);
    for (int i = 0; i < 11; ++i)
        REQUIRE(f.db.put(K(i), {{"a", i}}));
    f.db.nsup();
    result<void> r = f.db.put(K(99), {{"a", 1}});
    REQUIRE(r.code() == status::server_mem_error);
    CHECK_THAT(r.error().message, Catch::Contains("indexes above indexes-memory-budget 640"));
}

TEST_CASE("capacity: nsup runs when the clock passes nsup-period marks", "[sim][capacity]") {
    sim::namespace_config nc = one_copy();
    nc.nsup_period = 60;
    fixture f(nc);
    for (int i = 0; i < 10; ++i)
        REQUIRE(f.db.put(K(i), {{"a", i}}, ttl(i < 4 ? 30 : 1000)));
    f.clock->advance(31s);
    (void)f.db.exists(K(100));
    CHECK(f.ns().nsup_cycles <= 1); // at most the mark the start time was next to
    const std::uint64_t cycles = f.ns().nsup_cycles;
    f.clock->advance(60s); // a mark passed for sure
    (void)f.db.exists(K(100));
    const sim::namespace_stats s = f.ns();
    CHECK(s.nsup_cycles == cycles + 1);
    CHECK(s.expired_records == 4);
    CHECK(s.index_used_bytes == 6 * 64); // removed, not only hidden
}

TEST_CASE("capacity: eviction deletes the nearest void times first, cut at a histogram "
          "bucket",
          "[sim][capacity]") {
    sim::namespace_config nc = one_copy();
    nc.nsup_period = 60;
    nc.evict_used_pct = 1; // breached from the first byte of 64 KiB
    nc.data_size = 64 * 1024;
    nc.evict_tenths_pct = 100; // 10% of the records with a TTL
    nc.evict_hist_buckets = 100;
    fixture f(nc);
    std::vector<int> order;
    for (int i = 1; i <= 100; ++i)
        order.push_back(i);
    std::shuffle(order.begin(), order.end(), std::mt19937(3));
    for (int i : order) // record i lives i * 1000 s
        REQUIRE(f.db.put(K(i), {{"a", i}}, ttl(i * 1000)));
    for (int i = 1000; i < 1020; ++i) // never expire: never evicted
        REQUIRE(f.db.put(K(i), {{"a", i}}, ttl(kv::ttl_never_expire)));
    const std::int64_t start = f.clock->now_s();
    f.clock->advance(60s); // past the first nsup mark
    (void)f.db.exists(K(0));
    // now = start + 60: record i sits in bucket (i * 1000 - 60) / 1000 =
    // i - 1 (width 1000 s); the running count first exceeds 10 in bucket 10,
    // so the cut is now + 10 * 1000 and records 1..10 go.
    const sim::namespace_stats s = f.ns();
    CHECK(s.evicted_records == 10);
    CHECK(s.evict_void_time == start + 60 + 10'000);
    for (int i = 1; i <= 100; ++i)
        CHECK(f.db.exists(K(i)).value() == (i > 10));
    for (int i = 1000; i < 1020; ++i)
        CHECK(f.db.exists(K(i)).value());
    // The next cycle cuts the next tenth of what is left.
    f.clock->advance(60s);
    (void)f.db.exists(K(0));
    CHECK(f.ns().evicted_records == 19); // 10% of 90 = 9
    CHECK_FALSE(f.db.exists(K(19)).value());
    CHECK(f.db.exists(K(20)).value());
}

TEST_CASE("capacity: no eviction when every record with a TTL would go", "[sim][capacity]") {
    sim::namespace_config nc = one_copy();
    nc.evict_used_pct = 1;
    nc.data_size = 64 * 1024;
    nc.evict_tenths_pct = 1000; // 100%: the server refuses ("would evict all")
    nc.nsup_period = 60;
    fixture f(nc);
    for (int i = 1; i <= 50; ++i)
        REQUIRE(f.db.put(K(i), {{"a", i}}, ttl(i * 100)));
    f.db.nsup();
    CHECK(f.ns().evicted_records == 0);
    CHECK(f.db.record_count("test") == 50);
}

TEST_CASE("capacity: TTL writes are refused under the server's default nsup-period 0",
          "[sim][capacity][ttl]") {
    sim::namespace_config nc; // the server's defaults: nsup-period 0, no allow-ttl-without-nsup
    fixture f(nc, 3);
    result<void> r = f.db.put(K(1), {{"a", 1}}, ttl(60));
    REQUIRE(r.code() == status::fail_forbidden);
    CHECK_THAT(r.error().message,
               Catch::Contains("put: ttl 60 is forbidden with nsup-period 0"));
    CHECK_FALSE(f.db.exists(K(1)).value());
    // No TTL, never-expire and don't-update are not TTL writes.
    REQUIRE(f.db.put(K(1), {{"a", 1}}));
    CHECK(f.db.put(K(1), {{"a", 2}}, ttl(kv::ttl_never_expire)));
    CHECK(f.db.put(K(1), {{"a", 3}}, ttl(kv::ttl_dont_update)));
    CHECK(f.db.touch(K(1), ttl(5)).code() == status::fail_forbidden);
    CHECK(f.db.operate(K(1), {kv::op::write("a", 4)}, ttl(5)).code() == status::fail_forbidden);
    CHECK(f.db.get(K(1))->value_of("a") == value(3));
    // With nsup running, or allow-ttl-without-nsup, they pass.
    nc.nsup_period = 120;
    fixture g(nc, 3);
    CHECK(g.db.put(K(1), {{"a", 1}}, ttl(60)));
    sim::namespace_config allow;
    allow.allow_ttl_without_nsup = true;
    fixture h(allow, 3);
    CHECK(h.db.put(K(1), {{"a", 1}}, ttl(60)));
    CHECK(h.db.touch(K(1), ttl(5)));
    // A non-zero default-ttl without either is a configuration error.
    sim::cluster_config bad;
    bad.namespaces[0].default_ttl = 100;
    result<void> v = sim::cluster::validate(bad);
    REQUIRE(v.code() == status::parameter_error);
    CHECK_THAT(v.error().message,
               Catch::Contains("must configure non-zero nsup-period or allow-ttl-without-nsup"));
}

TEST_CASE("capacity: a default cluster refuses a TTL write, as the server's default does",
          "[sim][capacity][ttl]") {
    CHECK_FALSE(sim::cluster_config{}.namespaces[0].allow_ttl_without_nsup);
    CHECK(sim::cluster_config{}.namespaces[0].nsup_period == 0);
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"a", 1}}));
    const kv::record before = db.get(K(1)).value();
    result<void> r = db.put(K(1), {{"a", 2}, {"b", 3}}, ttl(60));
    REQUIRE(r.code() == status::fail_forbidden);
    CHECK_THAT(r.error().message, Catch::Contains("nsup-period") && Catch::Contains("allow-ttl-without-nsup"));
    const kv::record after = db.get(K(1)).value();
    CHECK(after.bins == before.bins);
    CHECK(after.generation == before.generation);
    CHECK(after.ttl == before.ttl);
    CHECK(db.put(K(2), {{"a", 1}}, ttl(60)).code() == status::fail_forbidden);
    CHECK_FALSE(db.exists(K(2)).value());
    // with_nsup_period: the readable way to configure it.
    sim::cluster ok(sim::cluster_config{}.with_nsup_period(60));
    REQUIRE(ok.put(K(1), {{"a", 1}}, ttl(60)));
    CHECK(ok.get(K(1))->ttl == 60);
}

TEST_CASE("capacity: invalid capacity settings are refused", "[sim][capacity]") {
    auto bad = [](auto change) {
        sim::cluster_config cfg;
        change(cfg.namespaces[0]);
        return sim::cluster::validate(cfg).code();
    };
    CHECK(bad([](sim::namespace_config& n) { n.data_size = 0; }) == status::parameter_error);
    CHECK(bad([](sim::namespace_config& n) { n.stop_writes_used_pct = 101; }) ==
          status::parameter_error);
    CHECK(bad([](sim::namespace_config& n) { n.evict_used_pct = 101; }) ==
          status::parameter_error);
    CHECK(bad([](sim::namespace_config& n) { n.evict_hist_buckets = 99; }) ==
          status::parameter_error);
    CHECK(bad([](sim::namespace_config& n) { n.stop_writes_used_pct = 0; }) == status::ok);
}

} // namespace sim_capacity_test
