// Paging under concurrent writes (run under ThreadSanitizer in CI): 8 client
// threads update, create and delete records while a reader pages a query of
// the whole data set through four partition-range filters. Every record that
// matched from the first page to the last is seen exactly once; no record is
// seen twice.
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <map>
#include <random>
#include <thread>
#include <vector>

namespace sim_scan_page_concurrency_test {

using namespace kvmodel;

namespace {

// 100k records in an optimised build; fewer under the sanitizers and -O0,
// where the same run would take minutes.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
constexpr std::int64_t records = 10000;
#else
constexpr std::int64_t records = 100000;
#endif
constexpr int writers = 8;

kv::key K(std::int64_t i) {
    return kv::key("test", "q", i);
}

// Deleted by the writers: never "existed throughout".
bool doomed(std::int64_t i) {
    return i % 10 == 9;
}

} // namespace

TEST_CASE("8 writers while a reader pages a query: each lasting record exactly once",
          "[sim][scan][concurrency]") {
    sim::cluster db;
    REQUIRE(db.create_index({"test", "q", "v", "ix_q_v", kv::index_type::numeric}));
    for (std::int64_t i = 0; i < records; ++i)
        REQUIRE(db.put(K(i), {{"v", i}}));

    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> writes{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < writers; ++t) {
        threads.emplace_back([&, t] {
            std::mt19937_64 rng(static_cast<std::uint64_t>(t) + 1);
            std::int64_t fresh = records + t;
            std::int64_t victim = t == 0 ? 9 : -1;
            while (!stop.load(std::memory_order_relaxed)) {
                const auto i = static_cast<std::int64_t>(rng() % records);
                switch (rng() % 3) {
                case 0: // an update that keeps the match
                    (void)db.operate(K(i), {kv::op::add("w", 1)});
                    break;
                case 1: // a new matching record
                    (void)db.put(K(fresh), {{"v", fresh % records}});
                    fresh += writers;
                    break;
                default: // thread 0 deletes the doomed ones in order
                    if (victim >= 0 && victim < records) {
                        (void)db.remove(K(victim));
                        victim += 10;
                    }
                    break;
                }
                writes.fetch_add(1, std::memory_order_relaxed);
            }
        });
    }

    std::map<kv::digest, int> seen;
    std::uint64_t pages = 0;
    for (std::uint32_t quarter = 0; quarter < 4; ++quarter) {
        kv::query_request qr;
        qr.ns = "test";
        qr.set = "q";
        qr.where = kv::filter::range("v", 0, records - 1);
        qr.max_records = 1000;
        kv::partition_cursor cursor =
            kv::partition_cursor::start(kv::partition_filter::range(quarter * 1024, 1024));
        while (!cursor.done()) {
            auto page = db.query_page(qr, cursor);
            REQUIRE(page);
            REQUIRE(page->size() <= 1000);
            for (const kv::keyed_record& r : *page)
                ++seen[r.k.digest()];
            ++pages;
        }
    }
    stop = true;
    for (std::thread& t : threads)
        t.join();

    INFO("pages " << pages << ", concurrent writes " << writes.load());
    CHECK(pages >= static_cast<std::uint64_t>(records / 1000));
    int twice = 0;
    for (const auto& [d, n] : seen)
        twice += n > 1 ? 1 : 0;
    CHECK(twice == 0);
    std::int64_t missing = 0;
    for (std::int64_t i = 0; i < records; ++i)
        if (!doomed(i) && seen.count(K(i).digest()) == 0)
            ++missing;
    CHECK(missing == 0);
}

} // namespace sim_scan_page_concurrency_test
