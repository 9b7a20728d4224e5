// Tests for what sim::cluster learned from a real cluster losing a node
// (issue 33): fault::node_crash (the write in flight is applied and its
// answer lost, then the dead node refuses every attempt until the client's
// map drops it), in doubt that sticks in the cluster's own retry loop, and
// the client's error-rate limit (cluster_config::max_error_rate ->
// MAX_ERROR_RATE).
#include <kvmodel/kv/retry.hpp>
#include <kvmodel/kv/status.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace sim_node_crash_test {

using namespace kvmodel;
using namespace std::chrono_literals;

namespace {

kv::key K(std::int64_t i) {
    return kv::key("test", "c", i);
}

kv::write_policy retries(std::uint32_t n) {
    kv::write_policy wp;
    wp.max_retries = n;
    return wp;
}

std::int64_t counter(sim::cluster& c, const kv::key& k) {
    kv::read_policy rp;
    rp.max_retries = 0;
    auto r = c.get(k, rp);
    REQUIRE(r);
    return r->value_of("n").as_int();
}

} // namespace

TEST_CASE("a crashing node applies the write, drops its answer, then refuses",
          "[sim][node_crash]") {
    sim::cluster c;
    REQUIRE(c.put(K(1), {{"n", value(0)}}));
    const int master = c.replicas(K(1)).front();
    auto id = c.add_fault(sim::fault::node_crash(master, 2000ms));
    REQUIRE(id);

    // The write in flight: applied, answer lost, in doubt.
    sim::op_report rep;
    auto r = c.operate(K(1), {kv::op::add("n", 1)}, kv::write_policy{}, rep);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::connection);
    CHECK(r.error().in_doubt);
    CHECK(rep.applied);
    CHECK(c.fault_fires(*id) == 1);

    // The next attempts are refused: nothing sent, not in doubt.
    auto again = c.operate(K(1), {kv::op::add("n", 1)}, kv::write_policy{}, rep);
    REQUIRE_FALSE(again);
    CHECK(again.error().code == status::connection);
    CHECK_FALSE(again.error().in_doubt);
    CHECK_FALSE(rep.applied);
    CHECK(again.error().message.find("refused") != std::string::npos);
    kv::read_policy rp;
    rp.max_retries = 0;
    CHECK(c.get(K(1), rp).code() == status::connection); // reads too
    CHECK(c.node_alive(master));

    // Once the client's map drops the node (refused_for on the cluster's
    // clock), the replica serves: the first write is there, once.
    c.manual_time()->advance(2000ms);
    CHECK(counter(c, K(1)) == 1);
    CHECK_FALSE(c.node_alive(master));
    REQUIRE(c.operate(K(1), {kv::op::add("n", 1)}, kv::write_policy{}));
    CHECK(counter(c, K(1)) == 2);
}

TEST_CASE("in doubt sticks in the cluster's own retry loop", "[sim][node_crash]") {
    // Attempt 1 is applied and loses its answer; attempts 2..4 are refused.
    // The Java rule (sent > 1 || timeout) would call the refused last
    // attempt not in doubt only because the sends were counted wrongly:
    // the C client's rule keeps the lost answer.
    sim::cluster c;
    REQUIRE(c.put(K(2), {{"n", value(0)}}));
    REQUIRE(c.add_fault(sim::fault::node_crash(-1, 60000ms)));
    sim::op_report rep;
    auto r = c.operate(K(2), {kv::op::add("n", 5)}, retries(3), rep);
    REQUIRE_FALSE(r);
    CHECK(rep.attempts == 4);
    CHECK(rep.applications == 1);
    CHECK(r.error().code == status::connection);
    CHECK(r.error().in_doubt);

    // A write that only ever met refusals was never sent: not in doubt.
    auto refused = c.operate(K(2), {kv::op::add("n", 5)}, retries(3), rep);
    REQUIRE_FALSE(refused);
    CHECK(rep.applications == 0);
    CHECK_FALSE(refused.error().in_doubt);

    // The answer lost, then no live copy (the only node is taken down):
    // still in doubt.
    sim::cluster_config one;
    one.nodes = 1;
    sim::cluster d(one);
    REQUIRE(d.put(K(3), {{"n", value(0)}}));
    REQUIRE(d.add_fault(sim::fault::node_crash(-1, 0ms)));
    auto gone = d.operate(K(3), {kv::op::add("n", 1)}, retries(2), rep);
    REQUIRE_FALSE(gone);
    CHECK(rep.applications == 1);
    CHECK(gone.error().code == status::partition_unavailable);
    CHECK(gone.error().in_doubt);
}

// Timeouts on k's node until the error limit answers instead; how many.
int timeouts_before_limit(sim::cluster& c, const kv::key& k) {
    int n = 0;
    for (; n < 100; ++n) {
        auto r = c.operate(k, {kv::op::add("n", 1)});
        if (r.code() == status::max_error_rate) {
            CHECK_FALSE(r.error().in_doubt); // nothing was sent
            return n;
        }
        CHECK(r.code() == status::timeout);
    }
    return n;
}

TEST_CASE("the client's error-rate limit stops commands to a failing node",
          "[sim][node_crash][error_rate]") {
    sim::cluster_config cfg;
    cfg.max_error_rate = 8;
    cfg.tend_interval = 1000ms;
    sim::cluster c(cfg);
    const int node = c.replicas(K(4)).front();
    REQUIRE(c.add_fault(sim::fault::timeout().forever().on_node(node)));
    // More than 8 errors in one tend interval: the node gets nothing more.
    CHECK(timeouts_before_limit(c, K(4)) == 9);
    CHECK(kv::is_transient(status::max_error_rate));
    // Another node's records are not affected.
    for (std::int64_t i = 5; i < 200; ++i) {
        if (c.replicas(K(i)).front() == node)
            continue;
        CHECK(c.operate(K(i), {kv::op::add("n", 1)}));
        break;
    }
    // After a breached interval the limit halves (as_node_reset_error_rate) ...
    c.manual_time()->advance(1000ms);
    CHECK(timeouts_before_limit(c, K(4)) == 5);
    // ... and doubles back after a clean one.
    c.clear_faults();
    c.manual_time()->advance(1000ms); // limit 2: the last interval was breached
    CHECK(c.operate(K(4), {kv::op::add("n", 1)}));
    c.manual_time()->advance(1000ms); // limit 4
    REQUIRE(c.add_fault(sim::fault::timeout().forever().on_node(node)));
    CHECK(timeouts_before_limit(c, K(4)) == 5);
}

TEST_CASE("the cluster's retry loop retries a refused connection and the error limit",
          "[sim][node_crash][error_rate]") {
    // As the C client: CONNECTION and MAX_ERROR_RATE go round the loop;
    // with the node refusing for good the write fails after max_retries + 1.
    sim::cluster_config cfg;
    cfg.max_error_rate = 2;
    sim::cluster c(cfg);
    REQUIRE(c.add_fault(sim::fault::node_crash(-1, 60000ms)));
    sim::op_report rep;
    auto r = c.operate(K(6), {kv::op::add("n", 1)}, retries(5), rep);
    REQUIRE_FALSE(r);
    CHECK(rep.attempts == 6);
    // lost answer, refused, refused (3 errors > 2), then the limit.
    CHECK(r.error().code == status::max_error_rate);
    CHECK(r.error().in_doubt);
}

TEST_CASE("sim::retry_on times a retry policy by the cluster's manual clock", "[sim][node_crash]") {
    sim::cluster c;
    const sim::time_ms start = c.time_source().now_ms();
    kv::retry_policy p = c.retry_timing(kv::retry_policy{});
    REQUIRE(p.sleep);
    p.sleep(250ms);
    CHECK(c.time_source().now_ms() == start + 250);
    CHECK_FALSE(p.clock); // the budget counts the call's own pauses
    // A policy with its own hooks keeps them.
    kv::retry_policy own;
    own.clock = [] { return std::int64_t{7}; };
    CHECK(c.retry_timing(own).clock() == 7);
    CHECK_FALSE(c.retry_timing(own).sleep);
}

} // namespace sim_node_crash_test
