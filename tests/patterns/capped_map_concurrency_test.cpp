#include <kvmodel/patterns/capped_map.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <thread>
#include <vector>

namespace patterns_capped_map_concurrency_test {

using namespace kvmodel;

TEST_CASE("capped map: concurrent inserts never exceed N and keep the N highest",
          "[patterns][capped_map][concurrency]") {
    sim::cluster c;
    constexpr std::size_t cap = 50;
    patterns::capped_map<sim::cluster, std::int64_t, std::int64_t> scores(c, cap);
    constexpr int threads = 4;
    constexpr int per_thread = 300;
    std::vector<std::thread> pool;
    std::vector<int> over(threads, 0);
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) {
                std::int64_t key = t * per_thread + i;
                std::int64_t score = (key * 7919) % 100003;
                auto r = scores.insert("game", key, score);
                if (!r || r->size > cap) ++over[static_cast<std::size_t>(t)];
            }
        });
    }
    for (auto& th : pool) th.join();
    for (int o : over) CHECK(o == 0);
    std::vector<std::int64_t> all;
    for (std::int64_t key = 0; key < threads * per_thread; ++key) all.push_back((key * 7919) % 100003);
    std::sort(all.rbegin(), all.rend());
    auto top = scores.top("game", cap).value();
    REQUIRE(top.size() == cap);
    for (std::size_t i = 0; i < cap; ++i) CHECK(top[i].second == all[i]);
}

} // namespace patterns_capped_map_concurrency_test
