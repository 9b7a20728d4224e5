// Tests for sim::cluster's paged scans and queries under the fault injector:
// each node's partitions are one sub-request that meets the injected faults
// and is retried within the read policy's max_retries, as the client's
// partition scan; a page that still fails returns the error and leaves the
// cursor as it was, so resuming returns every record exactly once.
#include <kvmodel/exp/build.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace sim_scan_faults_test {

using namespace kvmodel;

namespace {

kv::key K(std::int64_t i) {
    return kv::key("test", "s", i);
}

kv::scan_request scan_of(std::uint64_t page = 0) {
    kv::scan_request sr;
    // Moved-in strings: GCC 12's -Wrestrict misfires on assigning literals
    // here once inlined into the tests.
    sr.ns = std::string("test");
    sr.set = std::string("s");
    sr.max_records = page;
    return sr;
}

kv::read_policy retries(std::uint32_t n) {
    kv::read_policy rp;
    rp.max_retries = n;
    return rp;
}

bool untouched(const kv::partition_cursor& c) {
    for (const kv::partition_cursor::part& p : c.parts)
        if (p.done || p.last)
            return false;
    return true;
}

} // namespace

TEST_CASE("a scan meets the injected fault of a node and fails with its status",
          "[sim][scan][faults]") {
    sim::cluster db;
    for (int i = 0; i < 300; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    REQUIRE(db.add_fault(sim::fault::fail_with(status::device_overload).on_node(1).forever()));
    kv::partition_cursor c;
    auto r = db.scan_page(scan_of(), c, retries(0));
    REQUIRE_FALSE(r);
    CHECK(r.code() == status::device_overload);
    CHECK(untouched(c)); // nothing reached the caller, nothing is marked done
    db.clear_faults();
    REQUIRE(db.add_fault(sim::fault::timeout().on_node(2).forever()));
    auto t = db.scan(scan_of(), retries(2));
    REQUIRE_FALSE(t);
    CHECK(t.code() == status::timeout);
    // A fault on one key's digest is not a scan's.
    db.clear_faults();
    REQUIRE(db.add_fault(sim::fault::timeout().for_key(K(3)).forever()));
    CHECK(db.scan(scan_of(), retries(0)).value().size() == 300);
}

TEST_CASE("a scan's failed node is retried within max_retries, one round trip per attempt",
          "[sim][scan][faults]") {
    sim::cluster db;
    for (int i = 0; i < 300; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    // Two timeouts: the first node asked fails twice, the third attempt serves.
    REQUIRE(db.add_fault(sim::fault::timeout().times(2)));
    db.reset_stats();
    CHECK(db.scan(scan_of(), retries(2)).value().size() == 300);
    const sim::counters c = db.stats().find("test")->totals;
    CHECK(c.round_trips == 1 + 1 + 3);
    CHECK(c.timeouts == 2);
    // One retry is not enough for two timeouts.
    db.clear_faults();
    REQUIRE(db.add_fault(sim::fault::timeout().times(2)));
    auto r = db.scan(scan_of(), retries(1));
    REQUIRE_FALSE(r);
    CHECK(r.code() == status::timeout);
    // KEY_BUSY is not retried (the C client's rule).
    db.clear_faults();
    REQUIRE(db.add_fault(sim::fault::fail_with(status::key_busy).times(1)));
    auto b = db.scan(scan_of(), retries(2));
    REQUIRE_FALSE(b);
    CHECK(b.code() == status::key_busy);
}

TEST_CASE("resuming after a failed page returns every record exactly once",
          "[sim][scan][faults]") {
    sim::cluster db;
    constexpr int n = 500;
    for (int i = 0; i < n; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));
    // The fourth page meets three timeouts on node 1: its attempt and both
    // retries fail, after it has walked records of the nodes before it.
    REQUIRE(db.add_fault(sim::fault::timeout().on_node(1).after(3).times(3)));
    const kv::scan_request sr = scan_of(40);
    std::map<kv::digest, int> seen;
    kv::partition_cursor cursor;
    int failures = 0;
    for (int pages = 0; !cursor.done() && pages < 100; ++pages) {
        const kv::partition_cursor before = cursor;
        auto page = db.scan_page(sr, cursor, retries(2));
        if (!page) {
            ++failures;
            CHECK(page.code() == status::timeout);
            REQUIRE(cursor.parts.size() == before.parts.size());
            for (std::size_t i = 0; i < cursor.parts.size(); ++i) {
                CHECK(cursor.parts[i].done == before.parts[i].done);
                CHECK(cursor.parts[i].last == before.parts[i].last);
            }
            continue;
        }
        for (const kv::keyed_record& r : *page)
            ++seen[r.k.digest()];
    }
    CHECK(failures == 1);
    CHECK(cursor.done());
    CHECK(seen.size() == static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        CHECK(seen[K(i).digest()] == 1);
}

TEST_CASE("a retried scan or query still applies the filter expression", "[sim][scan][faults]") {
    sim::cluster db;
    REQUIRE(db.create_index({"test", "s", "v", "ix_v", kv::index_type::numeric}));
    for (int i = 0; i < 300; ++i)
        REQUIRE(db.put(K(i), {{"v", i}, {"odd", i % 2}}));
    kv::read_policy rp = retries(2);
    rp.filter_exp = (exp::bin_int("odd") == 1).bytes();
    REQUIRE(db.add_fault(sim::fault::timeout().times(1)));
    const auto all = db.scan(scan_of(), rp).value();
    CHECK(all.size() == 150);
    for (const kv::keyed_record& r : all)
        CHECK(r.rec.value_of("odd") == value(1));
    REQUIRE(db.add_fault(sim::fault::fail_with(status::device_overload).times(1)));
    kv::query_request qr;
    qr.ns = "test";
    qr.set = "s";
    qr.where = kv::filter::range("v", 0, 99);
    const auto some = db.query(qr, rp).value();
    CHECK(some.size() == 50);
    for (const kv::keyed_record& r : some)
        CHECK(r.rec.value_of("v").as_int() < 100);
    // Without retries the same fault fails the query.
    REQUIRE(db.add_fault(sim::fault::fail_with(status::device_overload).times(1)));
    auto failed = db.query(qr, retries(0));
    REQUIRE_FALSE(failed);
    CHECK(failed.code() == status::device_overload);
}

} // namespace sim_scan_faults_test
