// Seed "Counter Examples: Hot Counters": a counter hammered by 8 threads.
// Each write keeps its record busy for 100 us of simulated time (the cluster's
// latency model) and Aerospike queues at most transaction-pending-limit (20)
// writes behind it. One record takes 10 increments per millisecond; 8 threads
// offer 40. First the counter is one record: most increments fail KEY_BUSY
// (14). Then it is split over 16 shards: none do. Either way the final sum
// equals exactly the increments that were acknowledged.
//
// Time is driven in 1 ms ticks: every thread sends 5 increments per tick,
// then the clock moves on (a barrier), so the run is the same on any machine.
#include <kvmodel/patterns/sharded_counter.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>
#include <vector>

using namespace kvmodel;

namespace {

constexpr int threads = 8;
constexpr int ticks = 200;
constexpr int per_tick = 5;

struct tally {
    std::atomic<std::int64_t> acked{0};
    std::atomic<std::int64_t> key_busy{0};
    std::atomic<std::int64_t> other{0};
};

/// Runs `send` threads x ticks x per_tick times, advancing the clock 1 ms per tick.
template <class Send>
void hammer(sim::manual_clock& clock, tally& t, Send send) {
    std::barrier sync(threads, [&clock]() noexcept { clock.advance(std::chrono::milliseconds(1)); });
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i)
        pool.emplace_back([&] {
            for (int tick = 0; tick < ticks; ++tick) {
                for (int j = 0; j < per_tick; ++j) {
                    const status s = send();
                    if (s == status::ok) ++t.acked;
                    else if (s == status::key_busy) ++t.key_busy;
                    else ++t.other;
                }
                sync.arrive_and_wait();
            }
        });
    for (auto& th : pool) th.join();
}

std::uint64_t key_busy_count(const sim::cluster& db) { return db.stats().find("test")->totals.key_busy; }

} // namespace

int main() {
    auto clock = std::make_shared<sim::manual_clock>();
    sim::cluster_config cfg;
    cfg.time_source = clock;
    cfg.base_latency = std::chrono::microseconds(100);
    sim::cluster db(cfg);
    int failures = 0;
    auto check = [&](bool ok, const char* what) {
        if (!ok) {
            ++failures;
            std::cerr << "CHECK FAILED: " << what << "\n";
        }
    };
    const std::int64_t offered = std::int64_t{threads} * ticks * per_tick;
    std::cout << "== hot counter: " << threads << " threads, " << offered
              << " increments offered at 40 per ms; one record serves 10 per ms\n";

    // 1. One record.
    const kv::key one = kv::key::make("test", "counters", value("ads|adx123|2019-03-05")).value();
    tally single;
    hammer(*clock, single, [&] {
        auto r = db.operate(one, {kv::op::add("c", value(1))});
        return r ? status::ok : r.error().code;
    });
    const std::int64_t single_total = db.get(one).value().get("c")->as_int();
    std::printf("unsharded: %lld acknowledged, %lld KEY_BUSY (%.1f%%), total %lld\n",
                static_cast<long long>(single.acked.load()),
                static_cast<long long>(single.key_busy.load()),
                100.0 * static_cast<double>(single.key_busy.load()) / static_cast<double>(offered),
                static_cast<long long>(single_total));
    check(single.key_busy > offered / 2, "most increments of a single record are KEY_BUSY");
    check(single.other == 0, "no other errors");
    check(single_total == single.acked, "the single record's total equals the acknowledged increments");

    // 2. Sixteen shards; max_attempts 1 so a KEY_BUSY would surface as a failure.
    clock->advance(std::chrono::seconds(1)); // let the hot record drain
    const std::uint64_t busy_before = key_busy_count(db);
    patterns::sharded_counter<sim::cluster> counter(db, "ads|adx123|2019-03-05|sharded",
                                                    {.shards = 16, .max_attempts = 1});
    tally sharded;
    hammer(*clock, sharded, [&] {
        auto r = counter.increment();
        return r ? status::ok : r.error().code;
    });
    const std::int64_t sharded_total = counter.total().value();
    const std::uint64_t sharded_busy = key_busy_count(db) - busy_before;
    std::printf("16 shards: %lld acknowledged, %llu KEY_BUSY, total %lld (batch read of 16 shards)\n",
                static_cast<long long>(sharded.acked.load()),
                static_cast<unsigned long long>(sharded_busy),
                static_cast<long long>(sharded_total));
    auto values = counter.shard_values().value();
    std::cout << "per shard:";
    for (std::int64_t v : values) std::cout << " " << v;
    std::cout << "\n";
    check(sharded_busy == 0, "no KEY_BUSY once sharded");
    check(sharded.acked == offered, "every increment acknowledged once sharded");
    check(sharded_total == sharded.acked, "the sharded total equals the acknowledged increments");

    if (failures > 0) {
        std::cerr << failures << " check(s) failed\n";
        return 1;
    }
    return 0;
}
