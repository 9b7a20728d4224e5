// Concurrency stress for kvmodel/sim/cluster.hpp (run under ThreadSanitizer
// in CI): client threads hammer shared and private records with every kind
// of command while another thread takes nodes down and up, installs faults
// and reads the accounting. Afterwards every counter equals the number of
// increments the cluster reports as applied — none lost, none invented.
#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace sim_cluster_concurrency_test {

using namespace kvmodel;

namespace {

std::uint64_t seed_from_env() {
    if (const char* s = std::getenv("KVMODEL_SEED"))
        return std::strtoull(s, nullptr, 10);
    return 7;
}
std::uint64_t ops_from_env(std::uint64_t fallback) {
    if (const char* s = std::getenv("KVMODEL_FUZZ_OPS"))
        return std::strtoull(s, nullptr, 10);
    return fallback;
}

kv::key shared_key(int i) {
    return kv::key("test", "shared", i);
}
kv::key own_key(int thread, int i) {
    return kv::key("test", "own", thread * 100000 + i);
}

} // namespace

TEST_CASE("many clients, node flaps and faults: no increment lost or invented",
          "[sim][cluster][concurrency]") {
    const std::uint64_t seed = seed_from_env();
    const std::uint64_t per_thread = ops_from_env(3000);
    INFO("KVMODEL_SEED=" << seed << " KVMODEL_FUZZ_OPS=" << per_thread);
    constexpr int threads = 4;
    constexpr int shared_keys = 8;

    sim::cluster_config cfg;
    cfg.seed = seed;
    cfg.nodes = 4;
    cfg.namespaces[0].replication_factor = 2;
    sim::cluster db(cfg);

    // applied[t][k]: increments of shared key k applied by thread t's
    // commands (in-doubt ones and retried re-applications included, as the
    // cluster reports them). Catch2 assertions are not thread-safe: the
    // threads only count, the checks come after the join.
    std::vector<std::vector<std::int64_t>> applied(threads, std::vector<std::int64_t>(shared_keys));
    std::atomic<bool> stop{false};
    std::atomic<int> bad{0};
    std::atomic<int> running{threads};

    auto client = [&](int t) {
        std::mt19937_64 rng(seed * 1000 + static_cast<std::uint64_t>(t));
        kv::write_policy wp;
        wp.max_retries = 1;
        for (std::uint64_t i = 0; i < per_thread; ++i) {
            const int k = static_cast<int>(rng() % shared_keys);
            switch (rng() % 8) {
            case 0:
            case 1: {
                sim::op_report rep;
                auto r =
                    db.operate(shared_key(k), {kv::op::add("n", 1), kv::op::read("n")}, wp, rep);
                applied[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)] +=
                    rep.applications;
                if (r && !r->results[1].is_int())
                    bad.fetch_add(1);
                break;
            }
            case 2:
                (void)db.get(shared_key(k));
                break;
            case 3: {
                const int j = static_cast<int>(rng() % 50);
                (void)db.put(own_key(t, j), {{"v", static_cast<std::int64_t>(i)}, {"s", "x"}});
                break;
            }
            case 4: {
                const int j = static_cast<int>(rng() % 50);
                (void)db.operate(
                    own_key(t, j),
                    {kv::op::cdt("m", cdt::map_ops::put(static_cast<std::int64_t>(i % 20), 1)),
                     kv::op::cdt("l", cdt::list_ops::append(1)),
                     kv::op::cdt("l", cdt::list_ops::trim(-5, 5))});
                break;
            }
            case 5: {
                std::vector<kv::key> keys;
                for (int j = 0; j < 6; ++j)
                    keys.push_back(shared_key(j));
                (void)db.batch_get(keys);
                break;
            }
            case 6:
                (void)db.remove(own_key(t, static_cast<int>(rng() % 50)));
                break;
            default:
                (void)db.exists(shared_key(k));
                break;
            }
        }
        running.fetch_sub(1);
    };

    // Chaos: node flaps (never more than one down, so rf 2 keeps everything
    // available), faults installed and cleared, snapshots taken.
    auto chaos = [&] {
        std::mt19937_64 rng(seed);
        int round = 0;
        while (running.load() > 0 && !stop.load()) {
            const int node = static_cast<int>(rng() % 4);
            (void)db.node_down(node);
            (void)db.add_fault(sim::fault::in_doubt().with_probability(0.05).times(20));
            (void)db.add_fault(sim::fault::timeout().with_probability(0.05).times(20));
            std::this_thread::yield();
            const sim::stats s = db.stats();
            if (s.find("test") == nullptr)
                bad.fetch_add(1);
            (void)db.node_up(node);
            if (++round % 5 == 0)
                db.clear_faults();
            if (round % 7 == 0)
                db.reset_stats();
            std::this_thread::yield();
        }
    };

    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back(client, t);
    std::thread chaos_thread(chaos);
    for (auto& th : pool)
        th.join();
    stop.store(true);
    chaos_thread.join();
    db.clear_faults();
    for (int n = 0; n < 4; ++n)
        REQUIRE(db.node_up(n));

    for (int k = 0; k < shared_keys; ++k) {
        std::int64_t expected = 0;
        for (int t = 0; t < threads; ++t)
            expected += applied[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)];
        auto g = db.get(shared_key(k));
        if (expected == 0) {
            CHECK(g.code() == status::record_not_found);
            continue;
        }
        REQUIRE(g);
        CHECK(g->value_of("n").as_int() == expected);
    }
    CHECK(bad.load() == 0);
    // Every own record is whole: its bins came from one command each.
    for (int t = 0; t < threads; ++t) {
        for (int j = 0; j < 50; ++j) {
            auto g = db.get(own_key(t, j));
            if (!g)
                continue;
            if (const value* l = g->get("l"))
                CHECK(l->as_list().size() <= 5);
        }
    }
}

TEST_CASE("exact counts without faults: concurrent increments on few keys",
          "[sim][cluster][concurrency]") {
    const std::uint64_t per_thread = ops_from_env(5000);
    constexpr int threads = 4;
    sim::cluster db;
    std::atomic<int> failed{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&db, &failed, t, per_thread] {
            for (std::uint64_t i = 0; i < per_thread; ++i) {
                const auto r = db.operate(
                    shared_key(static_cast<int>((i + static_cast<std::uint64_t>(t)) % 3)),
                    {kv::op::add("n", 1)});
                if (!r)
                    failed.fetch_add(1);
            }
        });
    }
    for (auto& th : pool)
        th.join();
    CHECK(failed.load() == 0);
    std::int64_t total = 0;
    for (int k = 0; k < 3; ++k)
        total += db.get(shared_key(k))->value_of("n").as_int();
    CHECK(total == static_cast<std::int64_t>(threads * per_thread));
    const sim::stats s = db.stats();
    CHECK(s.find("test")->totals.writes == threads * per_thread);
}

} // namespace sim_cluster_concurrency_test
