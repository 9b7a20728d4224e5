// Tests for kvmodel/sim/faults.hpp on a sim::cluster: node failures with
// replica failover (no acknowledged write lost with replication >= 2,
// unavailable partitions otherwise, never a stale read), timeouts, in-doubt
// writes, latency, retries, and the triggers (after N commands, at a clock
// time, with a seeded probability) with their filters.
#include <kvmodel/kv/status.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sim_faults_test {

using namespace kvmodel;
using namespace std::chrono_literals;

namespace {

kv::key K(std::int64_t i) {
    return kv::key("test", "f", i);
}

std::uint64_t seed_from_env() {
    if (const char* s = std::getenv("KVMODEL_SEED"))
        return std::strtoull(s, nullptr, 10);
    return 20240601;
}

std::uint64_t fuzz_ops(std::uint64_t fallback) {
    if (const char* s = std::getenv("KVMODEL_FUZZ_OPS"))
        return std::strtoull(s, nullptr, 10);
    return fallback;
}

// Reads retry twice by default (as_policy_read); these tests look at one attempt.
kv::read_policy once() {
    kv::read_policy rp;
    rp.max_retries = 0;
    return rp;
}

sim::cluster_config config(std::uint32_t nodes, std::uint32_t rf, std::uint64_t seed = 1) {
    sim::cluster_config cfg;
    cfg.nodes = nodes;
    cfg.namespaces[0].replication_factor = rf;
    cfg.seed = seed;
    return cfg;
}

} // namespace

TEST_CASE("a node failing mid-run loses no acknowledged write (replication 2)",
          "[sim][faults][failover]") {
    const std::uint64_t seed = seed_from_env();
    const std::uint64_t n = fuzz_ops(3000);
    INFO("KVMODEL_SEED=" << seed << " KVMODEL_FUZZ_OPS=" << n);
    sim::cluster db(config(3, 2, seed));
    // Node 1 goes down after a third of the run and comes back after two
    // thirds; writes keep flowing throughout.
    REQUIRE(db.add_fault(sim::fault::node_down(1).after(n / 3)));
    REQUIRE(db.add_fault(sim::fault::node_up(1).after(2 * n / 3)));
    std::map<std::int64_t, std::int64_t> acknowledged; // key -> last acknowledged value
    std::uint64_t failures = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        const auto k = static_cast<std::int64_t>(i % 500);
        const auto v = static_cast<std::int64_t>(i);
        auto r = db.put(K(k), {{"v", v}});
        if (r)
            acknowledged[k] = v;
        else
            ++failures;
        if (i == n / 2)
            CHECK_FALSE(db.node_alive(1));
    }
    CHECK(failures == 0); // a replica always held the data
    CHECK(db.node_alive(1));
    for (const auto& [k, v] : acknowledged) {
        auto g = db.get(K(k));
        REQUIRE(g);
        CHECK(g->value_of("v") == value(v));
    }
    // The node's partitions moved and came back: it served again at the end.
    const sim::stats st = db.stats();
    const auto* ns = st.find("test");
    REQUIRE(ns != nullptr);
    CHECK(ns->nodes[1].alive);
    CHECK(ns->nodes[1].master_partitions > 1000);
}

TEST_CASE("two of three nodes down one after the other: replicas migrate, nothing is lost",
          "[sim][faults][failover]") {
    sim::cluster db(config(3, 2));
    for (int i = 0; i < 300; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    REQUIRE(db.node_down(0));
    for (int i = 0; i < 300; ++i)
        REQUIRE(db.operate(K(i), {kv::op::add("v", 1000)}));
    REQUIRE(db.node_down(1));
    for (int i = 0; i < 300; ++i) {
        auto g = db.get(K(i));
        REQUIRE(g);
        CHECK(g->value_of("v") == value(i + 1000));
        CHECK(db.replicas(K(i)) == std::vector<int>{2});
    }
}

TEST_CASE("replication 1: a down node's partitions are unavailable until it returns",
          "[sim][faults][failover]") {
    sim::cluster db(config(3, 1));
    for (int i = 0; i < 200; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    REQUIRE(db.node_down(2));
    int unavailable = 0;
    for (int i = 0; i < 200; ++i) {
        const bool on_down_node = db.replicas(K(i)).empty();
        auto g = db.get(K(i));
        auto w = db.put(K(i), {{"v", -1}});
        if (on_down_node) {
            ++unavailable;
            CHECK(g.code() == status::partition_unavailable);
            CHECK(w.code() == status::partition_unavailable);
            CHECK_FALSE(w.error().in_doubt); // never sent
        } else {
            CHECK(g);
            CHECK(w);
        }
    }
    CHECK(unavailable > 30);
    CHECK(db.stats().find("test")->totals.unavailable >=
          static_cast<std::uint64_t>(2 * unavailable));
    // A scan cannot cover the missing partitions.
    CHECK(db.scan({"test", "", {}, 0}).code() == status::partition_unavailable);
    REQUIRE(db.node_up(2));
    for (int i = 0; i < 200; ++i) {
        auto g = db.get(K(i));
        REQUIRE(g);
        const std::int64_t v = g->value_of("v").as_int();
        CHECK((v == i || v == -1));
    }
}

TEST_CASE("a node that missed writes never serves stale data", "[sim][faults][failover]") {
    sim::cluster db(config(2, 2));
    REQUIRE(db.put(K(1), {{"v", 1}}));
    REQUIRE(db.node_down(0));
    REQUIRE(db.put(K(1), {{"v", 2}})); // only node 1 has it
    REQUIRE(db.node_down(1));
    CHECK(db.get(K(1)).code() == status::partition_unavailable);
    REQUIRE(db.node_up(0)); // stale: still unavailable
    CHECK(db.get(K(1)).code() == status::partition_unavailable);
    CHECK(db.put(K(1), {{"v", 3}}).code() == status::partition_unavailable);
    REQUIRE(db.node_up(1)); // the current copy is back, and migrates to node 0
    auto g = db.get(K(1));
    REQUIRE(g);
    CHECK(g->value_of("v") == value(2));
    REQUIRE(db.node_down(1));
    CHECK(db.get(K(1))->value_of("v") == value(2));
}

TEST_CASE("timeout fault: the request is lost, nothing applied", "[sim][faults]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"v", 1}}));
    auto id = db.add_fault(sim::fault::timeout());
    REQUIRE(id);
    sim::op_report rep;
    auto w = db.operate(K(1), {kv::op::write("v", 2)}, {}, rep);
    REQUIRE_FALSE(w);
    CHECK(w.error().code == status::timeout);
    // The client cannot know: a write that timed out is in doubt (Java's rule).
    CHECK(w.error().in_doubt);
    CHECK_FALSE(rep.applied);
    CHECK(db.fault_fires(*id) == 1);
    CHECK(db.get(K(1))->value_of("v") == value(1)); // fired once; not applied
    // A read timing out is never in doubt.
    REQUIRE(db.add_fault(sim::fault::timeout()));
    auto r = db.get(K(1), once());
    CHECK(r.code() == status::timeout);
    CHECK_FALSE(r.error().in_doubt);
    const sim::stats snap = db.stats();
    const auto* ns = snap.find("test");
    CHECK(ns->totals.timeouts == 2);
    CHECK(ns->totals.in_doubt == 0);
}

TEST_CASE("in-doubt fault: applied, reported as a timeout, visible afterwards", "[sim][faults]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"n", 1}}));
    REQUIRE(db.add_fault(sim::fault::in_doubt().for_key(K(1))));
    sim::op_report rep;
    auto w = db.operate(K(1), {kv::op::add("n", 10)}, {}, rep);
    REQUIRE_FALSE(w);
    CHECK(w.error().code == status::timeout);
    CHECK(w.error().in_doubt);
    CHECK(kv::is_in_doubt(w.error()));
    CHECK_THAT(w.error().message, Catch::Contains("the write was applied"));
    CHECK(rep.applied);
    auto g = db.get(K(1)); // reads are not affected by an in-doubt fault
    REQUIRE(g);
    CHECK(g->value_of("n") == value(11));
    CHECK(g->generation == 2);
    const sim::stats snap = db.stats();
    const auto* ns = snap.find("test");
    CHECK(ns->totals.in_doubt == 1);
    CHECK(ns->totals.writes == 2);
}

TEST_CASE("retries: a lost request is resent; an in-doubt write may apply twice",
          "[sim][faults][retry]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"n", 0}}));
    kv::write_policy retry;
    retry.max_retries = 2;
    REQUIRE(db.add_fault(sim::fault::timeout()));
    sim::op_report rep;
    auto ok = db.operate(K(1), {kv::op::add("n", 1)}, retry, rep);
    REQUIRE(ok);
    CHECK(rep.attempts == 2);
    CHECK(db.get(K(1))->value_of("n") == value(1));
    // The answer to the first attempt is lost after it applied: the retry
    // applies the increment again — why patterns write idempotently.
    REQUIRE(db.add_fault(sim::fault::in_doubt()));
    REQUIRE(db.operate(K(1), {kv::op::add("n", 1)}, retry, rep));
    CHECK(db.get(K(1))->value_of("n") == value(3));
    // With a generation check the retry fails instead, and is in doubt.
    kv::write_policy guarded = retry;
    guarded.gen = kv::generation_policy::eq;
    guarded.generation = db.get(K(1))->generation;
    REQUIRE(db.add_fault(sim::fault::in_doubt()));
    auto g = db.operate(K(1), {kv::op::add("n", 1)}, guarded);
    REQUIRE_FALSE(g);
    CHECK(g.error().code == status::generation_error);
    CHECK(g.error().in_doubt);
    CHECK(db.get(K(1))->value_of("n") == value(4));
    // Out of retries: the last error.
    REQUIRE(db.add_fault(sim::fault::timeout().times(3)));
    auto out = db.operate(K(1), {kv::op::add("n", 1)}, retry, rep);
    CHECK(out.code() == status::timeout);
    CHECK(rep.attempts == 3);
    CHECK(db.get(K(1))->value_of("n") == value(4));
}

TEST_CASE("latency: accounted, and past the policy's timeout a timeout", "[sim][faults][latency]") {
    sim::cluster_config cfg;
    cfg.base_latency = 200us;
    sim::cluster db(cfg);
    REQUIRE(db.put(K(1), {{"v", 1}}));
    sim::op_report rep;
    REQUIRE(db.operate(K(1), {kv::op::read("v")}, {}, rep));
    CHECK(rep.latency == 200us);
    REQUIRE(db.add_fault(sim::fault::latency(5ms).forever().only(sim::op_scope::reads)));
    kv::read_policy rp;
    rp.socket_timeout = 2ms;
    rp.total_timeout = 3ms;
    rp.max_retries = 2;
    auto r = db.get(K(1), rp);
    CHECK(r.code() == status::timeout);
    CHECK_FALSE(r.error().in_doubt);
    // A write taking too long is applied but in doubt.
    kv::write_policy wp;
    wp.socket_timeout = 1ms;
    REQUIRE(db.add_fault(sim::fault::latency(2ms).only(sim::op_scope::writes)));
    auto w = db.put(K(1), {{"v", 2}}, wp);
    CHECK(w.code() == status::timeout);
    CHECK(w.error().in_doubt);
    db.clear_faults();
    CHECK(db.get(K(1))->value_of("v") == value(2));
    const sim::stats snap = db.stats();
    const auto* ns = snap.find("test");
    CHECK(ns->totals.max_latency_us == 2000); // capped at the socket timeout
    CHECK(ns->totals.latency_us > 4000);
}

TEST_CASE("triggers: after N commands, at a clock time, a fire budget", "[sim][faults][triggers]") {
    auto clock = std::make_shared<sim::manual_clock>();
    sim::cluster_config cfg;
    cfg.time_source = clock;
    sim::cluster db(cfg);
    REQUIRE(db.put(K(1), {{"v", 1}}));
    auto after = db.add_fault(sim::fault::timeout().after(3));
    REQUIRE(after);
    for (int i = 0; i < 3; ++i)
        CHECK(db.get(K(1), once()));
    CHECK(db.get(K(1), once()).code() == status::timeout); // the 4th command
    CHECK(db.get(K(1), once()));
    CHECK(db.fault_fires(*after) == 1);

    const sim::time_ms t = clock->now_ms() + 60000;
    auto at = db.add_fault(sim::fault::timeout().at(t).times(2));
    REQUIRE(at);
    CHECK(db.get(K(1), once()));
    clock->advance(59s);
    CHECK(db.get(K(1), once()));
    clock->advance(1s);
    CHECK(db.get(K(1), once()).code() == status::timeout);
    CHECK(db.get(K(1), once()).code() == status::timeout);
    CHECK(db.get(K(1), once()));
    CHECK(db.fault_fires(*at) == 2);
    db.clear_faults();
    CHECK(db.fault_fires(*at) == 0); // gone
}

TEST_CASE("node faults scripted by command count and clock time", "[sim][faults][triggers]") {
    auto clock = std::make_shared<sim::manual_clock>();
    sim::cluster_config cfg = config(3, 2);
    cfg.time_source = clock;
    sim::cluster db(cfg);
    REQUIRE(db.add_fault(sim::fault::node_down(2).after(5)));
    REQUIRE(db.add_fault(sim::fault::node_up(2).at(clock->now_ms() + 1000)));
    for (int i = 0; i < 5; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    CHECK(db.node_alive(2));
    REQUIRE(db.put(K(5), {{"v", 5}}));
    CHECK_FALSE(db.node_alive(2));
    clock->advance(1s);
    REQUIRE(db.get(K(5)));
    CHECK(db.node_alive(2));
    CHECK(db.add_fault(sim::fault::node_down(3)).code() == status::parameter_error);
    CHECK(db.add_fault(sim::fault::timeout().with_probability(1.5)).code() ==
          status::parameter_error);
}

TEST_CASE("probability faults are seeded: same seed, same outcomes", "[sim][faults][triggers]") {
    const std::uint64_t seed = seed_from_env();
    INFO("KVMODEL_SEED=" << seed);
    auto run = [](std::uint64_t s) {
        sim::cluster db(config(3, 2, s));
        REQUIRE(db.put(K(1), {{"v", 1}}));
        REQUIRE(db.add_fault(sim::fault::timeout().with_probability(0.3).forever()));
        std::vector<bool> outcome;
        for (int i = 0; i < 400; ++i)
            outcome.push_back(db.get(K(1), once()).has_value());
        return outcome;
    };
    const auto a = run(seed);
    const auto b = run(seed);
    CHECK(a == b);
    const auto c = run(seed + 1);
    CHECK(a != c);
    const auto failures = static_cast<double>(std::count(a.begin(), a.end(), false));
    CHECK(failures > 400 * 0.2);
    CHECK(failures < 400 * 0.4);
    // With the default two retries a read fails only when all three attempts
    // draw a timeout: about 0.3^3 of them.
    sim::cluster db(config(3, 2, seed));
    REQUIRE(db.put(K(1), {{"v", 1}}));
    REQUIRE(db.add_fault(sim::fault::timeout().with_probability(0.3).forever()));
    int failed = 0;
    for (int i = 0; i < 2000; ++i)
        failed += db.get(K(1)).has_value() ? 0 : 1;
    CHECK(failed > 2000 * 0.027 / 3);
    CHECK(failed < 2000 * 0.027 * 3);
}

TEST_CASE("fault filters: reads or writes, a namespace, a key, a node", "[sim][faults][triggers]") {
    sim::cluster_config cfg;
    cfg.namespaces = {sim::namespace_config{}, sim::namespace_config{}};
    cfg.namespaces[1].name = "other";
    sim::cluster db(cfg);
    REQUIRE(db.put(K(1), {{"v", 1}}));
    REQUIRE(db.put(K(2), {{"v", 2}}));
    REQUIRE(db.put(kv::key("other", "f", 1), {{"v", 1}}));

    REQUIRE(db.add_fault(sim::fault::timeout().forever().only(sim::op_scope::writes)));
    CHECK(db.get(K(1)));
    CHECK(db.put(K(1), {{"v", 3}}).code() == status::timeout);
    db.clear_faults();

    REQUIRE(db.add_fault(sim::fault::timeout().forever().in_namespace("other")));
    CHECK(db.get(K(1)));
    CHECK(db.get(kv::key("other", "f", 1), once()).code() == status::timeout);
    db.clear_faults();

    REQUIRE(db.add_fault(sim::fault::timeout().forever().for_key(K(2))));
    CHECK(db.get(K(1)));
    CHECK(db.get(K(2), once()).code() == status::timeout);
    db.clear_faults();

    const int node = db.replicas(K(1))[0];
    REQUIRE(db.add_fault(sim::fault::timeout().forever().on_node(node)));
    int hit = 0;
    for (int i = 0; i < 60; ++i) {
        const bool on_node = db.replicas(K(100 + i))[0] == node;
        auto w = db.put(K(100 + i), {{"v", i}});
        CHECK(w.has_value() != on_node);
        if (on_node) {
            CHECK(db.get(K(100 + i), once()).code() == status::timeout);
            ++hit;
        }
    }
    CHECK(hit > 5);
}

TEST_CASE("batch reads under faults: per-key timeouts, retried per attempt", "[sim][faults]") {
    sim::cluster db;
    std::vector<kv::key> keys;
    for (int i = 0; i < 10; ++i) {
        keys.push_back(K(i));
        REQUIRE(db.put(K(i), {{"v", i}}));
    }
    REQUIRE(db.add_fault(sim::fault::timeout().for_key(K(3))));
    kv::read_policy once;
    once.max_retries = 0;
    auto rs = db.batch_get(keys, once);
    CHECK(rs[3].code() == status::timeout);
    for (int i = 0; i < 10; ++i)
        if (i != 3)
            CHECK(rs[static_cast<std::size_t>(i)]);
    REQUIRE(db.add_fault(sim::fault::timeout().for_key(K(3))));
    auto again = db.batch_get(keys); // default read policy retries
    for (const auto& r : again)
        CHECK(r);
}

TEST_CASE("faults: fail_with makes the server answer any status, nothing applied",
          "[sim][faults][fail_with]") {
    for (status s : {status::device_overload,
                     status::key_busy,
                     status::server_mem_error,
                     status::quota_exceeded,
                     status::fail_forbidden,
                     status::record_too_big}) {
        sim::cluster db;
        REQUIRE(db.add_fault(sim::fault::fail_with(s).only(sim::op_scope::writes)));
        result<void> r = db.put(K(1), {{"a", 1}});
        REQUIRE(r.code() == s);
        CHECK_THAT(r.error().message,
                   Catch::Contains(std::string(status_name(s)) + " from node") &&
                       Catch::Contains("injected by a fault"));
        CHECK_FALSE(r.error().in_doubt);
        CHECK_FALSE(db.exists(K(1)).value()); // reads are not hit, and nothing was applied
        CHECK(db.stats().find("test")->totals.errors == 1);
    }
    sim::cluster db;
    CHECK(db.add_fault(sim::fault::fail_with(status::ok)).code() == status::parameter_error);
}

TEST_CASE("faults: the client retries an injected DEVICE_OVERLOAD, not KEY_BUSY",
          "[sim][faults][fail_with]") {
    sim::cluster db;
    kv::write_policy wp;
    wp.max_retries = 2;
    REQUIRE(db.add_fault(sim::fault::fail_with(status::device_overload).times(2)));
    sim::op_report rep;
    REQUIRE(db.operate(K(1), {kv::op::write("a", 1)}, wp, rep));
    CHECK(rep.attempts == 3);
    CHECK(rep.applications == 1);
    db.clear_faults();
    REQUIRE(db.add_fault(sim::fault::fail_with(status::key_busy)));
    CHECK(db.operate(K(1), {kv::op::write("a", 2)}, wp, rep).code() == status::key_busy);
    CHECK(rep.attempts == 1);
    CHECK(db.stats().find("test")->totals.key_busy == 1);
    // Reads, and batch reads key by key.
    db.clear_faults();
    REQUIRE(db.add_fault(sim::fault::fail_with(status::device_overload).only(sim::op_scope::reads)));
    kv::read_policy rp;
    rp.max_retries = 0;
    CHECK(db.get(K(1), rp).code() == status::device_overload);
    REQUIRE(db.add_fault(sim::fault::fail_with(status::quota_exceeded).only(sim::op_scope::reads)));
    const std::vector<kv::key> keys = {K(1), K(2)};
    const auto got = db.batch_get(keys, rp);
    CHECK(got[0].code() == status::quota_exceeded);
    CHECK(got[1].code() == status::record_not_found);
}

} // namespace sim_faults_test
