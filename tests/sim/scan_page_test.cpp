// Tests for sim::cluster's paged scans and queries (kv/partition_filter.hpp)
// and background jobs: partition filters (all, id, range, digest), pages of
// max_records resumed by a cursor across writes, filter expressions, the
// throttle in the cost model, query_background / scan_background applying
// write ops server-side, and kv::scan_page's fallback giving the same pages.
#include <kvmodel/exp/build.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "queryable_only.hpp"

namespace sim_scan_page_test {

using namespace kvmodel;

namespace {

kv::key K(std::int64_t i) {
    return kv::key("test", "s", i);
}

kv::scan_request scan_of(std::uint64_t page = 0) {
    kv::scan_request sr;
    sr.ns = "test";
    sr.set = "s";
    sr.max_records = page;
    return sr;
}

// The cluster's kv_queryable surface without paging: kv::scan_page's fallback.
using unpaged = test::queryable_only;
static_assert(!kv::detail::has_scan_page<unpaged>);
static_assert(kv::detail::has_scan_page<sim::cluster>);
static_assert(kv::detail::has_query_page<sim::cluster>);

std::vector<kv::digest> digests(const std::vector<kv::keyed_record>& rs) {
    std::vector<kv::digest> out;
    for (const kv::keyed_record& r : rs)
        out.push_back(r.k.digest());
    return out;
}

} // namespace

TEST_CASE("partition filters: id, range, digest", "[sim][scan]") {
    sim::cluster db;
    for (int i = 0; i < 2000; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    const std::uint32_t pid = K(7).partition_id();
    const kv::scan_request sr = scan_of();
    // A whole partition filter in one page (max_records 0).
    const auto scan = [&](const kv::partition_filter& f) {
        kv::partition_cursor c = kv::partition_cursor::start(f);
        return db.scan_page(sr, c);
    };
    const auto one = scan(kv::partition_filter::id(pid)).value();
    REQUIRE_FALSE(one.empty());
    std::size_t expected = 0;
    for (int i = 0; i < 2000; ++i)
        expected += K(i).partition_id() == pid ? 1U : 0U;
    CHECK(one.size() == expected);
    for (const auto& r : one)
        CHECK(r.k.partition_id() == pid);
    const auto some = scan(kv::partition_filter::range(100, 200)).value();
    std::size_t in_range = 0;
    for (int i = 0; i < 2000; ++i)
        in_range += K(i).partition_id() >= 100 && K(i).partition_id() < 300 ? 1U : 0U;
    CHECK(some.size() == in_range);
    // By digest: the records after it in its partition, in digest order.
    const auto after = scan(kv::partition_filter::by_digest(one.front().k.digest())).value();
    const std::vector<kv::digest> all_of_one = digests(one);
    CHECK(digests(after) == std::vector<kv::digest>(all_of_one.begin() + 1, all_of_one.end()));
    CHECK(scan(kv::partition_filter::range(4000, 97)).code() == status::parameter_error);
    CHECK(scan(kv::partition_filter::range(0, 0)).code() == status::parameter_error);
}

TEST_CASE("pages: max_records each, every record once, then done", "[sim][scan]") {
    sim::cluster db;
    for (int i = 0; i < 1000; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    const kv::scan_request sr = scan_of(64);
    kv::partition_cursor cursor;
    std::set<kv::digest> seen;
    int pages = 0;
    while (!cursor.done()) {
        const auto page = db.scan_page(sr, cursor).value();
        REQUIRE(page.size() <= 64);
        for (const auto& r : page)
            CHECK(seen.insert(r.k.digest()).second);
        ++pages;
        REQUIRE(pages < 100);
    }
    CHECK(seen.size() == 1000);
    CHECK(pages >= 16);
    CHECK(db.scan_page(sr, cursor).value().empty());
}

TEST_CASE("a cursor survives writes between pages", "[sim][scan]") {
    sim::cluster db;
    for (int i = 0; i < 500; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    kv::partition_cursor cursor;
    const kv::scan_request sr = scan_of(50);
    std::map<kv::digest, int> seen;
    std::set<kv::digest> removed;
    int next = 500;
    for (int step = 0; !cursor.done(); ++step) {
        const auto page = db.scan_page(sr, cursor).value();
        for (const auto& r : page)
            ++seen[r.k.digest()];
        // Between pages: new records, updates and deletes.
        for (int j = 0; j < 20; ++j)
            REQUIRE(db.put(K(next++), {{"v", 0}}));
        REQUIRE(db.operate(K(step), {kv::op::add("v", 1)}));
        if (db.remove(K(499 - step)))
            removed.insert(K(499 - step).digest());
    }
    for (const auto& [d, n] : seen)
        CHECK(n == 1);
    for (int i = 0; i < 500; ++i)
        if (removed.count(K(i).digest()) == 0)
            CHECK(seen.count(K(i).digest()) == 1);
}

TEST_CASE("scans and queries honour the policy's filter expression", "[sim][scan]") {
    sim::cluster db;
    REQUIRE(db.create_index({"test", "s", "v", "ix_v", kv::index_type::numeric}));
    for (int i = 0; i < 300; ++i)
        REQUIRE(db.put(K(i), {{"v", i}, {"odd", i % 2}}));
    kv::read_policy rp;
    rp.filter_exp = (exp::bin_int("odd") == 1).bytes();
    CHECK(db.scan(scan_of(), rp).value().size() == 150);
    kv::query_request qr;
    qr.ns = "test";
    qr.set = "s";
    qr.where = kv::filter::range("v", 0, 99);
    qr.max_records = 10;
    kv::partition_cursor cursor;
    std::size_t n = 0;
    while (!cursor.done()) {
        const auto page = db.query_page(qr, cursor, rp).value();
        for (const auto& r : page) {
            CHECK(r.rec.value_of("odd") == value(1));
            CHECK(r.rec.value_of("v").as_int() < 100);
        }
        n += page.size();
    }
    CHECK(n == 50);
}

TEST_CASE("the throttle is accounted as time, one round trip per node per page", "[sim][scan]") {
    sim::cluster db;
    for (int i = 0; i < 100; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    db.reset_stats();
    kv::partition_cursor throttled = kv::partition_cursor::start(kv::partition_filter::all(), 1000);
    REQUIRE(db.scan_page(scan_of(), throttled).value().size() == 100);
    const sim::counters c = db.stats().find("test")->totals;
    CHECK(c.latency_us == 100 * 1000); // 100 records at 1000/s: 0.1 s
    CHECK(c.round_trips == 3);
}

TEST_CASE("kv::scan_page's fallback pages as the member does", "[sim][scan]") {
    sim::cluster db;
    unpaged plain{db};
    for (int i = 0; i < 700; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    const kv::scan_request sr = scan_of(33);
    kv::partition_cursor a;
    kv::partition_cursor b;
    while (!a.done() || !b.done()) {
        const auto pa = kv::scan_page(db, sr, a).value();
        const auto pb = kv::scan_page(plain, sr, b).value();
        REQUIRE(digests(pa) == digests(pb));
    }
}

TEST_CASE("background query and scan apply write ops on the server", "[sim][scan][background]") {
    sim::cluster db;
    REQUIRE(db.create_index({"test", "s", "v", "ix_v", kv::index_type::numeric}));
    for (int i = 0; i < 200; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    db.reset_stats();
    kv::query_request qr;
    qr.ns = "test";
    qr.set = "s";
    qr.where = kv::filter::range("v", 0, 49);
    const std::vector<kv::operation> ops{kv::op::write("flag", 1)};
    CHECK(db.query_background(qr, ops).value().written == 50);
    CHECK(db.stats().find("test")->totals.round_trips == 3);
    CHECK(db.get(K(10))->value_of("flag") == value(1));
    CHECK_FALSE(db.get(K(60))->contains("flag"));
    // The write policy's filter picks records too.
    kv::write_policy wp;
    wp.filter_exp = (exp::bin_int("v") >= 190).bytes();
    const std::vector<kv::operation> add{kv::op::add("v", 1000)};
    const kv::background_result bg = db.scan_background(scan_of(), add, wp).value();
    CHECK(bg.matched == 200);
    CHECK(bg.written == 10);
    CHECK(bg.skipped == 190);
    CHECK(bg.failed == 0);
    CHECK(db.get(K(195))->value_of("v") == value(1195));
    CHECK(db.get(K(5))->value_of("v") == value(5));
    const std::vector<kv::operation> reads{kv::op::read("v")};
    CHECK(db.scan_background(scan_of(), reads).code() == status::parameter_error);
}

} // namespace sim_scan_page_test
