// The bucket-size advisor's arithmetic against hand-computed cases, and its
// recommendation moving the way it should when the workload changes.
#include "../../tools/size_advisor.hpp"

#include <catch2/catch.hpp>

namespace tools_size_advisor_test {

using namespace kvmodel;
using namespace kvmodel::tools::sizing;
using patterns::bucket_policy;

namespace {
workload one_owner(std::size_t appends, std::size_t bytes) {
    workload w;
    w.owners = 1;
    w.heavy_fraction = 0;
    w.appends_per_owner_per_day = static_cast<double>(appends);
    w.days = 1;
    w.element_bytes = bytes;
    w.newest_page_reads_per_day = 0;
    w.day_reads_per_day = 0;
    w.read_all_per_day = 1;
    return w;
}
} // namespace

TEST_CASE("advisor arithmetic: count buckets of N elements of S bytes", "[tools][size_advisor]") {
    const std::size_t n = 50;
    const std::size_t s = 200;
    const std::size_t m = 500;
    outcome o = simulate(one_owner(m, s), {"count 50", {bucket_policy::by_count, n}});
    CHECK(o.appends == m);
    CHECK(o.failed_appends == 0);
    // Two round trips per append (claim on the head, write the bucket), plus
    // a compaction now and then.
    CHECK(o.rt_per_append >= 2.0);
    CHECK(o.rt_per_append < 2.2);
    // Bytes written per append ~ the average bucket fill x element size plus
    // the head: a bucket holding k elements weighs about k x (S + 13) bytes
    // (msgpack str header, type byte, [ts, item] list, slot key); over a
    // bucket's life the fill averages (N + 1) / 2.
    const double per_element = static_cast<double>(s) + 13.0;
    const double expected_bucket = (static_cast<double>(n) + 1) / 2 * per_element;
    CHECK(o.bytes_written_per_append > expected_bucket);
    CHECK(o.bytes_written_per_append < expected_bucket + 3000); // the head and record overheads
    // Reading all M elements: one head, ceil(M / N) buckets in one batch.
    // Round trips: 1 for the head + one per node the batch touches (3 nodes).
    CHECK(o.rt_per_read_all >= 2.0);
    CHECK(o.rt_per_read_all <= 4.0);
    CHECK(o.records_per_owner == Approx(1.0 + (m + n - 1) / n)); // head + 10 buckets
}

TEST_CASE("advisor: write-heavy workloads get smaller buckets than read-all-heavy ones", "[tools][size_advisor]") {
    std::vector<candidate> cands{{"count 10", {bucket_policy::by_count, 10}},
                                 {"count 100", {bucket_policy::by_count, 100}},
                                 {"count 1000", {bucket_policy::by_count, 1000}}};
    workload write_heavy = one_owner(1000, 300);
    write_heavy.owners = 2;
    write_heavy.read_all_per_day = 0;
    workload read_heavy = write_heavy;
    read_heavy.read_all_per_day = 300;
    report w = advise(write_heavy, cands);
    report r = advise(read_heavy, cands);
    REQUIRE(w.recommended);
    REQUIRE(r.recommended);
    CHECK(w.outcomes[*w.recommended].cand.scheme.size < r.outcomes[*r.recommended].cand.scheme.size);
    CHECK(w.outcomes[*w.recommended].cand.name == "count 10");
    CHECK(r.outcomes[*r.recommended].cand.name != "count 10");
}

TEST_CASE("advisor: heavy owners with variable elements near the limit get byte-bounded buckets",
          "[tools][size_advisor]") {
    workload w;
    w.owners = 5;
    w.heavy_fraction = 0.2;
    w.heavy_multiplier = 30;
    w.appends_per_owner_per_day = 20;
    w.element_bytes = 512;
    w.element_bytes_max = 32 * 1024;
    w.days = 1;
    w.max_record_size = 256 * 1024;
    w.read_all_per_day = 5;
    w.newest_page_reads_per_day = 2;
    std::vector<candidate> cands{{"count 10", {bucket_policy::by_count, 10}},
                                 {"count 100", {bucket_policy::by_count, 100}},
                                 {"bytes 64K", {bucket_policy::by_bytes, 64 * 1024}}};
    report r = advise(w, cands);
    REQUIRE(r.recommended);
    CHECK(r.outcomes[*r.recommended].cand.scheme.policy == bucket_policy::by_bytes);
    // Ten elements of up to 32 KiB fill a 256 KiB record past half; a
    // hundred overflow it. A 64 KiB byte budget stays under 100 KiB.
    CHECK_FALSE(r.outcomes[1].safe);
    CHECK(r.outcomes[1].failed_appends > 0);
    CHECK_FALSE(r.reason.empty());
    auto j = to_json(r);
    CHECK(j["candidates"].size() == 3);
    CHECK(to_svg(r).find("<svg") == 0);
    CHECK(to_table(r).find("recommendation:") != std::string::npos);
}

TEST_CASE("advisor: a workload it cannot replay is refused before the replay", "[tools][size_advisor]") {
    workload w;
    CHECK_FALSE(workload_error(w));
    w.element_bytes_max = 100; // below element_bytes (200)
    auto e = workload_error(w);
    REQUIRE(e);
    CHECK(*e == "--element-bytes-max 100 is below --element-bytes 200");
    w.element_bytes_max = 0; // fixed size
    CHECK_FALSE(workload_error(w));

    // The largest element must fit in a bucket under max-record-size: the
    // pattern's own RECORD_TOO_BIG, with its numbers.
    w.element_bytes = 2'000'000;
    e = workload_error(w);
    REQUIRE(e);
    CHECK(e->rfind("an element of 2000000 bytes cannot be stored: bucketed_list::append: element of", 0) == 0);
    w.max_record_size = 8 << 20;
    CHECK_FALSE(workload_error(w));
    w.element_bytes = 200;
    w.element_bytes_max = 1'100'000;
    w.max_record_size = 1 << 20;
    CHECK(workload_error(w));
}

TEST_CASE("advisor arithmetic: a time-bucketed map writes in one round trip, no head",
          "[tools][size_advisor]") {
    const std::size_t m = 480; // one a day's 3 minutes
    outcome o = simulate(one_owner(m, 200), {"series hour", {}, 3'600'000});
    CHECK(o.appends == m);
    CHECK(o.failed_appends == 0);
    CHECK(o.rt_per_append == 1.0);
    CHECK(o.records_per_owner == Approx(24.0)); // one record per hour, nothing else
    CHECK(o.rt_per_read_all <= 3.0);            // one batch over 3 nodes
    // A period holds 20 readings: a write rewrites about 10.5 on average.
    CHECK(o.bytes_written_per_append > 10 * 200);
    CHECK(o.bytes_written_per_append < 11 * 200 + 1000);
    auto names = default_candidates(1 << 20);
    CHECK(names.back().name == "series hour");
}

} // namespace tools_size_advisor_test
