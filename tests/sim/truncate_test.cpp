// Tests for sim::cluster::truncate and record metadata (last_update_ms):
// truncate of a set or a namespace, the last-update cutoff (strictly before,
// as the server's truncate.c), its refusals (in the future, before the
// server's epoch), last_update_ms returned by every read path, and
// kv::truncate's fallback through a scan.
#include <kvmodel/exp/build.hpp>
#include <kvmodel/kv/batch.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "queryable_only.hpp"

namespace sim_truncate_test {

using namespace kvmodel;
using std::chrono::milliseconds;

namespace {

kv::key K(const std::string& set, std::int64_t i) {
    return kv::key("test", set, i);
}

// The cluster without its truncate member: kv::truncate's scan fallback.
using no_truncate = test::queryable_only;
static_assert(kv::kv_queryable<no_truncate>);
static_assert(!kv::detail::has_truncate<no_truncate>);
static_assert(kv::detail::has_truncate<sim::cluster>);

std::uint64_t count(sim::cluster& db, const std::string& set) {
    kv::scan_request sr;
    sr.ns = "test";
    sr.set = set;
    return db.scan(sr).value().size();
}

} // namespace

TEST_CASE("records carry their last-update time", "[sim][truncate][metadata]") {
    sim::cluster db;
    sim::manual_clock& clock = *db.manual_time();
    const std::int64_t t0 = clock.now_ms();
    REQUIRE(db.put(K("a", 1), {{"v", 1}}));
    clock.advance(milliseconds(250));
    CHECK(db.get(K("a", 1))->last_update_ms == t0);
    const auto w = db.operate(K("a", 1), {kv::op::add("v", 1)});
    CHECK(w->last_update_ms == t0 + 250);
    clock.advance(milliseconds(5));
    REQUIRE(db.touch(K("a", 1)));
    CHECK(db.get(K("a", 1))->last_update_ms == t0 + 255);
    const std::vector<kv::key> keys{K("a", 1)};
    CHECK(db.batch_get(keys)[0]->last_update_ms == t0 + 255);
    kv::scan_request sr;
    sr.ns = "test";
    CHECK(db.scan(sr).value().at(0).rec.last_update_ms == t0 + 255);
    // A failed write leaves it as it was.
    kv::write_policy create_only;
    create_only.exists = kv::record_exists_action::create_only;
    clock.advance(milliseconds(5));
    CHECK_FALSE(db.put(K("a", 1), {{"v", 9}}, create_only));
    CHECK(db.get(K("a", 1))->last_update_ms == t0 + 255);
    // Expressions see the same time (since_update in ms).
    clock.advance(milliseconds(45));
    kv::read_policy recent;
    recent.filter_exp = (exp::since_update() < 50).bytes();
    CHECK(db.get(K("a", 1), recent).code() == status::filtered_out);
    recent.filter_exp = (exp::since_update() == 50).bytes();
    CHECK(db.get(K("a", 1), recent));
}

TEST_CASE("truncate a set or the namespace", "[sim][truncate]") {
    sim::cluster db;
    for (int i = 0; i < 50; ++i) {
        REQUIRE(db.put(K("a", i), {{"v", i}}));
        REQUIRE(db.put(K("b", i), {{"v", i}}));
    }
    db.manual_time()->advance(milliseconds(1));
    REQUIRE(db.truncate("test", "a"));
    CHECK(count(db, "a") == 0);
    CHECK(count(db, "b") == 50);
    CHECK(db.get(K("a", 3)).code() == status::record_not_found);
    // Writes after the truncate live.
    REQUIRE(db.put(K("a", 3), {{"v", 3}}));
    CHECK(count(db, "a") == 1);
    db.manual_time()->advance(milliseconds(1));
    REQUIRE(db.truncate("test", ""));
    CHECK(db.record_count("test") == 0);
    CHECK(db.truncate("nope", "").code() == status::invalid_namespace);
}

TEST_CASE("truncate frees the bytes and index entries it removes", "[sim][truncate][capacity]") {
    sim::cluster db;
    for (int i = 0; i < 40; ++i) {
        REQUIRE(db.put(K("a", i), {{"v", std::string(100, 'x')}}));
        REQUIRE(db.put(K("b", i), {{"v", i}}));
    }
    const std::uint64_t before = db.stats().find("test")->data_used_bytes;
    db.manual_time()->advance(milliseconds(1));
    REQUIRE(db.truncate("test", "a"));
    const std::uint64_t only_b = db.stats().find("test")->data_used_bytes;
    CHECK(only_b < before);
    sim::cluster fresh;
    for (int i = 0; i < 40; ++i)
        REQUIRE(fresh.put(K("b", i), {{"v", i}}));
    CHECK(only_b == fresh.stats().find("test")->data_used_bytes);
    db.manual_time()->advance(milliseconds(1));
    REQUIRE(db.truncate("test", ""));
    const sim::stats after = db.stats();
    const sim::namespace_stats* ns = after.find("test");
    REQUIRE(ns != nullptr);
    CHECK(ns->data_used_bytes == 0);
    for (const sim::node_stats& n : ns->nodes)
        CHECK(n.index_used_bytes == 0);
}

TEST_CASE("truncate before a cutoff: strictly older records only", "[sim][truncate]") {
    sim::cluster db;
    sim::manual_clock& clock = *db.manual_time();
    REQUIRE(db.put(K("a", 1), {{"v", 1}}));
    clock.advance(milliseconds(10));
    const std::int64_t cut = clock.now_ms();
    REQUIRE(db.put(K("a", 2), {{"v", 2}})); // written at the cutoff: stays
    clock.advance(milliseconds(10));
    REQUIRE(db.put(K("a", 3), {{"v", 3}}));
    REQUIRE(db.truncate("test", "a", cut));
    CHECK(db.get(K("a", 1)).code() == status::record_not_found);
    CHECK(db.get(K("a", 2)));
    CHECK(db.get(K("a", 3)));
    // Now: a record written in this very millisecond stays, as on the server.
    clock.advance(milliseconds(1));
    REQUIRE(db.put(K("a", 4), {{"v", 4}}));
    REQUIRE(db.truncate("test", "a"));
    CHECK(db.get(K("a", 3)).code() == status::record_not_found);
    CHECK(db.get(K("a", 4)));
}

TEST_CASE("truncate refuses a cutoff in the future or before the server's epoch",
          "[sim][truncate]") {
    sim::cluster db;
    REQUIRE(db.put(K("a", 1), {{"v", 1}}));
    const std::int64_t now = db.manual_time()->now_ms();
    const auto future = db.truncate("test", "a", now + 1);
    CHECK(future.code() == status::parameter_error);
    CHECK(future.error().message.find("future") != std::string::npos);
    CHECK(db.truncate("test", "a", 1262304000000).code() == status::parameter_error);
    CHECK(db.truncate("test", "a", 0).code() == status::parameter_error);
    CHECK(db.get(K("a", 1)));
}

TEST_CASE("kv::truncate: the member, or a scan and removes", "[sim][truncate]") {
    sim::cluster db;
    no_truncate plain{db};
    sim::manual_clock& clock = *db.manual_time();
    REQUIRE(db.put(K("a", 1), {{"v", 1}}));
    clock.advance(milliseconds(10));
    const std::int64_t cut = clock.now_ms();
    REQUIRE(db.put(K("a", 2), {{"v", 2}}));
    REQUIRE(db.put(K("b", 1), {{"v", 1}}));
    REQUIRE(kv::truncate(plain, "test", "a", cut));
    CHECK(db.get(K("a", 1)).code() == status::record_not_found);
    CHECK(db.get(K("a", 2)));
    REQUIRE(kv::truncate(plain, "test", "a"));
    CHECK(db.get(K("a", 2)).code() == status::record_not_found);
    CHECK(db.get(K("b", 1)));
    REQUIRE(kv::truncate(db, "test", ""));
    CHECK(db.record_count("test") == 1); // b/1 was written in this millisecond
}

} // namespace sim_truncate_test
