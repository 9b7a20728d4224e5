#include <kvmodel/patterns/reverse_feed.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <thread>
#include <vector>

namespace patterns_reverse_feed_concurrency_test {

using namespace kvmodel;

TEST_CASE("ticks are unique across threads of one source and across sources", "[patterns][reverse_feed][concurrency]") {
    patterns::tick_source a(1);
    patterns::tick_source b(2);
    constexpr int threads = 4;
    constexpr int per_thread = 20000;
    std::vector<std::vector<std::int64_t>> got(threads * 2);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads * 2; ++t)
        pool.emplace_back([&, t] {
            auto& src = t % 2 ? b : a;
            auto& out = got[static_cast<std::size_t>(t)];
            out.reserve(per_thread);
            for (int i = 0; i < per_thread; ++i) out.push_back(src.next());
        });
    for (auto& th : pool) th.join();
    std::vector<std::int64_t> all;
    for (auto& g : got) {
        CHECK(std::is_sorted(g.begin(), g.end())); // increasing within a thread
        all.insert(all.end(), g.begin(), g.end());
    }
    std::sort(all.begin(), all.end());
    CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
}

} // namespace patterns_reverse_feed_concurrency_test
