// A bucketed list under what a real cluster did when a node was killed
// (issue 33), on sim::cluster: the bucket write in flight is applied and its
// answer lost, the next attempts are refused, the client's error-rate limit
// trips. The append must say in doubt (and a retry with the same append id
// must store the element once), pause between attempts on the cluster's
// clock, and ride out the outage within its retry policy.
#include <kvmodel/kv/retry.hpp>
#include <kvmodel/patterns/bucketed_list.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace patterns_bucketed_list_retry_test {

using namespace kvmodel;
using namespace std::chrono_literals;
using list_type = patterns::bucketed_list<sim::cluster, std::string>;

namespace {

// The record of the first bucket of `owner` (bucketed_list names it owner:1).
kv::key first_bucket(const std::string& owner) {
    return kv::key("test", "buckets", owner + ":1");
}

std::vector<std::string> items_of(const list_type& l, const std::string& owner) {
    std::vector<std::string> out;
    auto all = l.read_all(owner);
    REQUIRE(all);
    for (const auto& e : *all) out.push_back(e.item);
    return out;
}

} // namespace

TEST_CASE("an append whose bucket write was applied before its node died is in doubt",
          "[patterns][bucketed_list][retry]") {
    sim::cluster c;
    list_type l(c, {patterns::bucket_policy::by_count, 100});
    // The node dies under the bucket write and stays in the client's map
    // for longer than the append's retries last.
    REQUIRE(c.add_fault(sim::fault::node_crash(-1, 60000ms).for_key(first_bucket("alice"))));
    auto r = l.append("alice", "e1", 1000, "id-1");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::connection);
    // The last attempts were refused (not in doubt), but the first one was
    // applied: the element is stored, and the append must say so.
    CHECK(r.error().in_doubt);

    // After the client's map drops the node, the element is there once, and
    // the caller's retry with the same id (the contract for in doubt) keeps
    // it once.
    c.manual_time()->advance(60000ms);
    CHECK(items_of(l, "alice") == std::vector<std::string>{"e1"});
    auto again = l.append("alice", "e1", 1000, "id-1");
    REQUIRE(again);
    CHECK(*again == 0);
    CHECK(items_of(l, "alice") == std::vector<std::string>{"e1"});
}

TEST_CASE("an append that failed without doubt stored nothing", "[patterns][bucketed_list][retry]") {
    sim::cluster c;
    list_type l(c, {patterns::bucket_policy::by_count, 100});
    const int head_node = c.replicas(kv::key("test", "heads", "bob")).front();
    // The head's node dies under some other write, before bob's claim is sent.
    REQUIRE(c.add_fault(sim::fault::node_crash(head_node, 60000ms)));
    for (std::int64_t i = 0;; ++i) {
        kv::key k("test", "other", i);
        if (c.replicas(k).front() != head_node) continue;
        REQUIRE_FALSE(c.put(k, {{"x", value(1)}}));
        break;
    }
    auto r = l.append("bob", "e1", 1000, "id-1");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::connection);
    CHECK_FALSE(r.error().in_doubt);
    c.manual_time()->advance(60000ms);
    CHECK(items_of(l, "bob").empty());
    // Not even a claim: the head was never written (count() of an owner with
    // no list is 0 since the period-index change, so ask the store).
    CHECK(c.get(kv::key("test", "heads", "bob")).code() == status::record_not_found);
    CHECK(l.count("bob").value() == 0);
}

TEST_CASE("the retries pause on the cluster's clock and outlast a node's death",
          "[patterns][bucketed_list][retry]") {
    sim::cluster c;
    const sim::time_ms start = c.time_source().now_ms();
    // ~2 s from the kill to the client's new map, as on a real cluster.
    REQUIRE(c.add_fault(sim::fault::node_crash(-1, 2000ms).for_key(first_bucket("carol"))));
    // Twelve attempts: the pauses (20 ms doubling to 1 s, half of each
    // random) add up to 3.1 .. 6.3 s, capped by the 5 s total timeout.
    patterns::bucketed_location patient;
    patient.max_attempts = 12;
    list_type l(c, {patterns::bucket_policy::by_count, 100}, patient);
    auto r = l.append("carol", "e1", 1000, "id-1");
    REQUIRE(r);
    CHECK(*r == 0);
    // The pauses moved the simulated time past the outage, and no further
    // than the policy's total timeout.
    const sim::time_ms spent = c.time_source().now_ms() - start;
    CHECK(spent >= 2000);
    CHECK(spent <= l.location().retry.total_timeout.count());
    CHECK(items_of(l, "carol") == std::vector<std::string>{"e1"});

    // A caller that wants to give up sooner says so in the policy: the
    // append then fails within its budget, in doubt.
    sim::cluster d;
    REQUIRE(d.add_fault(sim::fault::node_crash(-1, 2000ms).for_key(first_bucket("dave"))));
    patterns::bucketed_location quick;
    quick.retry.total_timeout = 500ms;
    list_type m(d, {patterns::bucket_policy::by_count, 100}, quick);
    const sim::time_ms d_start = d.time_source().now_ms();
    auto q = m.append("dave", "e1", 1000, "id-1");
    REQUIRE_FALSE(q);
    CHECK(q.error().in_doubt);
    CHECK(d.time_source().now_ms() - d_start <= 500);
}

TEST_CASE("the client's error-rate limit is waited out, not fatal", "[patterns][bucketed_list][retry]") {
    // Eight attempts within a millisecond against the dead node's refusing
    // port trip the client's limit (MAX_ERROR_RATE, -14); an append must
    // retry it after a pause like any transient failure.
    sim::cluster_config cfg;
    cfg.max_error_rate = 3;
    sim::cluster c(cfg);
    REQUIRE(c.add_fault(sim::fault::node_crash(-1, 1000ms).for_key(first_bucket("erin"))));
    list_type l(c, {patterns::bucket_policy::by_count, 100});
    auto r = l.append("erin", "e1", 1000, "id-1");
    REQUIRE(r);
    CHECK(items_of(l, "erin") == std::vector<std::string>{"e1"});

    // With too few attempts to outlast it, the limit is what the append
    // meets last — and the lost first answer still makes it in doubt.
    sim::cluster d(cfg);
    REQUIRE(d.add_fault(sim::fault::node_crash(-1, 60000ms).for_key(first_bucket("fred"))));
    patterns::bucketed_location few;
    few.max_attempts = 6;
    list_type m(d, {patterns::bucket_policy::by_count, 100}, few);
    auto q = m.append("fred", "e1", 1000, "id-1");
    REQUIRE_FALSE(q);
    CHECK(q.error().code == status::max_error_rate);
    CHECK(q.error().in_doubt);
}

} // namespace patterns_bucketed_list_retry_test
