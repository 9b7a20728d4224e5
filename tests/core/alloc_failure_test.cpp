// Tests that an insert into a counted_btree, and a map write, that runs out of
// memory leaves the container exactly as it was: every allocation the
// operation makes is made to fail in turn (a bad_alloc from the k-th
// allocation, k = 1, 2, ... until the operation succeeds), and after each
// failure the tree's invariants and contents are checked against a copy.
//
// The allocation failures come from this test binary's global operator new
// (below), which throws on request and otherwise is malloc.
#include <kvmodel/core/detail/containers.hpp>
#include <kvmodel/core/detail/counted_btree.hpp>
#include <kvmodel/core/value.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <new>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace core_alloc_failure_test {
// 0: allocations succeed; k > 0: the k-th allocation from now throws.
thread_local long fail_in = 0;

// Out of line, so the compiler does not pair a new-expression with free().
[[gnu::noinline]] void* allocate(std::size_t n) {
    if (fail_in > 0 && --fail_in == 0) throw std::bad_alloc();
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
[[gnu::noinline]] void release(void* p) noexcept {
    std::free(p);
}
} // namespace core_alloc_failure_test

void* operator new(std::size_t n) {
    return core_alloc_failure_test::allocate(n);
}
void* operator new[](std::size_t n) {
    return core_alloc_failure_test::allocate(n);
}
void operator delete(void* p) noexcept {
    core_alloc_failure_test::release(p);
}
void operator delete[](void* p) noexcept {
    core_alloc_failure_test::release(p);
}
void operator delete(void* p, std::size_t) noexcept {
    core_alloc_failure_test::release(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    core_alloc_failure_test::release(p);
}
// The nothrow forms too (std::stable_sort's buffer): all or none of the
// unaligned family is replaced, or a sanitizer sees mismatched pairs.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return core_alloc_failure_test::allocate(n);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept {
    return ::operator new(n, t);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
    core_alloc_failure_test::release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
    core_alloc_failure_test::release(p);
}

namespace core_alloc_failure_test {

using kvmodel::detail::counted_btree;

/// Runs op with the k-th allocation failing, for k = 1, 2, ... until it
/// succeeds; after each failure, unchanged() must hold. Returns the number of
/// failures seen (the allocations the operation makes).
int fail_each_allocation(const std::function<void()>& op, const std::function<void()>& unchanged) {
    for (long k = 1;; ++k) {
        fail_in = k;
        try {
            op();
            fail_in = 0;
            return static_cast<int>(k - 1);
        } catch (const std::bad_alloc&) {
            fail_in = 0;
            unchanged();
        }
    }
}

// Strings longer than the small-string buffer: every copy allocates, so the
// separators a split copies can fail too.
std::string long_string(std::uint64_t x) {
    return "value-with-a-heap-buffer-" + std::to_string(x % 100000);
}

template <std::size_t LeafCap, std::size_t InnerCap>
void run_tree(std::uint64_t seed, int inserts) {
    INFO("seed " << seed << ", caps " << LeafCap << "/" << InnerCap);
    counted_btree<std::string, std::less<>, LeafCap, InnerCap> t;
    std::vector<std::string> ref; // sorted
    std::mt19937_64 rng(seed);
    int failures = 0;
    for (int i = 0; i < inserts; ++i) {
        std::string v = long_string(rng());
        const bool hinted = rng() % 2 == 0;
        auto same = [&] {
            REQUIRE(t.check());
            REQUIRE(std::vector<std::string>(t.begin(), t.end()) == ref);
        };
        failures += fail_each_allocation(
            [&] {
                if (hinted) t.insert(t.upper_bound(v), v); // the hinted insert (widens bounds)
                else t.insert(v);
            },
            same);
        ref.insert(std::upper_bound(ref.begin(), ref.end(), v), v);
        same();
    }
    CHECK(failures > inserts); // the copies, and many splits, did fail
}

TEST_CASE("alloc failure: an insert into a counted_btree that runs out of memory changes nothing",
          "[core][counted_btree]") {
    run_tree<2, 3>(1, 300);
    run_tree<4, 4>(2, 600);
    run_tree<32, 32>(3, 1500);
}

/// The map's entries in key order, and in value order, as plain values.
std::pair<std::vector<kvmodel::map_entry>, std::vector<std::size_t>> contents(const kvmodel::map& m) {
    std::vector<kvmodel::map_entry> by_key;
    for (std::size_t i = 0; i < m.size(); ++i) by_key.push_back(m.entry_at(i));
    return {by_key, m.indexes_by_rank(0, m.size())};
}

TEST_CASE("alloc failure: a map write that runs out of memory leaves the map as it was",
          "[core][value]") {
    using kvmodel::list;
    using kvmodel::map;
    using kvmodel::value;
    std::mt19937_64 rng(7);
    map m;
    // Values [int, long string]: ranks move on most overwrites; writes
    // both add entries (splits in both trees) and overwrite them.
    int failures = 0;
    for (int step = 0; step < 1500; ++step) {
        auto key = static_cast<std::int64_t>(rng() % 700);
        value v(list{static_cast<std::int64_t>(rng() % 50), long_string(rng())});
        auto before = contents(m);
        auto same = [&] {
            REQUIRE(kvmodel::detail::map_access::check(m));
            auto now = contents(m);
            REQUIRE(now.second == before.second);
            REQUIRE(now.first.size() == before.first.size());
            for (std::size_t i = 0; i < now.first.size(); ++i) {
                REQUIRE(now.first[i].key == before.first[i].key);
                REQUIRE(now.first[i].val == before.first[i].val);
            }
        };
        failures += fail_each_allocation([&] { (void)m.put(value(key), v); }, same);
        REQUIRE(kvmodel::detail::map_access::check(m));
        REQUIRE(*m.get(value(key)) == v);
    }
    CHECK(m.size() > 500);
    CHECK(failures > 1500);
}

} // namespace core_alloc_failure_test
