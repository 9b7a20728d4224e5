// Tests that an insert, erase, copy or bulk load of a counted_btree, and a map
// write, that runs out of memory leaves the container exactly as it was (an
// erase of a run across leaves: whole, with a prefix of the run erased) and
// frees what it allocated: every allocation the operation makes is made to
// fail in turn (a bad_alloc from the k-th allocation, k = 1, 2, ... until the
// operation succeeds), and after each failure the tree's invariants and
// contents are checked against a copy.
//
// The allocation failures come from this test binary's global operator new
// (failing_new.hpp), which throws on request and otherwise is malloc.
#include "failing_new.hpp"

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

using kvmodel::detail::counted_btree;
using kvmodel::test::fail_in;
using kvmodel::test::live;

/// Runs op with the k-th allocation failing, for k = 1, 2, ... until it
/// succeeds; after each failure, unchanged() must hold, and with
/// same_blocks every block op allocated must have been freed (not for an
/// operation whose failure may leave memory freed, or the container reshaped:
/// there LeakSanitizer, in CI's sanitizer stage, is the leak check). Returns
/// the number of failures seen (the allocations the operation makes).
int fail_each_allocation(const std::function<void()>& op, const std::function<void()>& unchanged,
                         bool same_blocks = true) {
    for (long k = 1;; ++k) {
        const long before = live;
        fail_in = k;
        try {
            op();
            fail_in = 0;
            return static_cast<int>(k - 1);
        } catch (const std::bad_alloc&) {
            fail_in = 0;
            const long leaked = live - before;
            if (same_blocks) REQUIRE(leaked == 0);
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

template <std::size_t LeafCap, std::size_t InnerCap>
void run_tree_erase(std::uint64_t seed, int steps) {
    INFO("seed " << seed << ", caps " << LeafCap << "/" << InnerCap);
    counted_btree<std::string, std::less<>, LeafCap, InnerCap> t;
    std::vector<std::string> ref; // sorted
    std::mt19937_64 rng(seed);
    auto add = [&] {
        std::string v = long_string(rng());
        t.insert(v);
        ref.insert(std::upper_bound(ref.begin(), ref.end(), v), v);
    };
    for (std::size_t i = 0; i < 40 * LeafCap; ++i) add();
    int failures = 0;
    for (int step = 0; step < steps; ++step) {
        INFO("step " << step);
        while (ref.size() < 20 * LeafCap) add();
        // One element (all or nothing), or a run of up to three leaves' worth
        // (each leaf's part all or nothing: a failure erases a prefix of the run).
        const std::size_t first = rng() % ref.size();
        const std::size_t len = rng() % 3 == 0 ? 1 + rng() % std::min(3 * LeafCap, ref.size() - first) : 1;
        std::size_t left = len; // of the run, still in the tree
        auto erase_at = [&](std::size_t from, std::size_t to) {
            ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(from), ref.begin() + static_cast<std::ptrdiff_t>(to));
        };
        failures += fail_each_allocation(
            [&] {
                if (len == 1) t.erase(t.nth(first));
                else t.erase_ranks(first, first + left);
            },
            [&] {
                REQUIRE(t.check());
                REQUIRE(t.size() <= ref.size());
                const std::size_t erased = ref.size() - t.size();
                REQUIRE(erased < left);
                erase_at(first, first + erased);
                REQUIRE(std::vector<std::string>(t.begin(), t.end()) == ref);
                left -= erased;
            },
            len == 1);
        erase_at(first, first + left);
        if (step % 25 == 0) { // (after a failure, every time)
            REQUIRE(t.check());
            REQUIRE(std::vector<std::string>(t.begin(), t.end()) == ref);
        }
    }
    CHECK(failures > steps / 50); // even-outs copied separators, and some copies failed
}

TEST_CASE("alloc failure: an erase from a counted_btree that runs out of memory keeps the tree whole",
          "[core][counted_btree]") {
    // (Leaves of 2 or 3 never even out: one under half full is empty and merges.)
    run_tree_erase<4, 3>(11, 1500);
    run_tree_erase<5, 4>(12, 1500);
    run_tree_erase<32, 32>(13, 1500);
}

template <std::size_t LeafCap, std::size_t InnerCap>
void run_tree_copy(std::uint64_t seed, std::size_t n) {
    INFO("seed " << seed << ", caps " << LeafCap << "/" << InnerCap << ", n " << n);
    using tree = counted_btree<std::string, std::less<>, LeafCap, InnerCap>;
    std::mt19937_64 rng(seed);
    std::vector<std::string> ref;
    for (std::size_t i = 0; i < n; ++i) ref.push_back(long_string(rng()));
    std::sort(ref.begin(), ref.end());
    const std::vector<std::string> old{long_string(1), long_string(2), long_string(3)};
    auto holds = [](const tree& t, const std::vector<std::string>& want) {
        REQUIRE(t.check());
        REQUIRE(std::vector<std::string>(t.begin(), t.end()) == want);
    };
    tree t{std::vector<std::string>(ref)};
    holds(t, ref);

    // The copy constructor: a failed copy frees what it made.
    int failures = fail_each_allocation([&] { tree c(t); }, [&] { holds(t, ref); });
    holds(tree(t), ref);
    // Bulk loads over a tree holding something else: unchanged on failure,
    // and the moved-from vector given its values back.
    tree u{std::vector<std::string>(old)};
    std::vector<std::string> src = ref;
    failures += fail_each_allocation([&] { u.assign_sorted(std::move(src)); },
                                     [&] {
                                         holds(u, old);
                                         REQUIRE(src == ref);
                                     });
    holds(u, ref);
    tree w{std::vector<std::string>(old)};
    failures += fail_each_allocation([&] { w.assign_sorted(ref.size(), [&](std::size_t i) { return ref[i]; }); },
                                     [&] { holds(w, old); });
    holds(w, ref);
    CHECK(failures > static_cast<int>(n)); // every leaf, inner node and copied value
}

TEST_CASE("alloc failure: a counted_btree copy or bulk load that runs out of memory changes and leaks nothing",
          "[core][counted_btree]") {
    run_tree_copy<2, 3>(21, 1);
    run_tree_copy<2, 3>(22, 200);
    run_tree_copy<4, 4>(23, 300);
    run_tree_copy<32, 32>(24, 40);
    run_tree_copy<32, 32>(25, 400);
}

std::vector<kvmodel::value> elements(const kvmodel::list& l) {
    return std::vector<kvmodel::value>(l.begin(), l.end());
}

TEST_CASE("alloc failure: a list that runs out of memory building an index keeps its elements",
          "[core][value]") {
    using kvmodel::list;
    using kvmodel::value;
    std::mt19937_64 rng(31);
    for (std::size_t n : {std::size_t{65}, std::size_t{300}}) {
        INFO("n " << n);
        std::vector<std::string> strings;
        for (std::size_t i = 0; i < n; ++i) strings.push_back(long_string(rng()));
        std::vector<value> ref(strings.begin(), strings.end());
        std::sort(strings.begin(), strings.end());
        std::vector<value> sorted(strings.begin(), strings.end());

        // Out of order: the positional layout.
        list l(ref);
        int failures = fail_each_allocation([&] { l.build_index(); },
                                            [&] {
                                                REQUIRE_FALSE(l.has_index());
                                                REQUIRE(elements(l) == ref);
                                            });
        REQUIRE(l.has_index());
        REQUIRE(elements(l) == ref);

        // In order: the sorted layout; then a write out of order moves the
        // elements to the positional one, which must not lose them either.
        list s(sorted);
        failures += fail_each_allocation([&] { s.build_index(); },
                                         [&] {
                                             REQUIRE_FALSE(s.has_index());
                                             REQUIRE(elements(s) == sorted);
                                         });
        REQUIRE(s.has_index());
        value last = sorted.back();
        failures += fail_each_allocation([&] { s.set(0, last); }, [&] { REQUIRE(elements(s) == sorted); });
        sorted.front() = last;
        REQUIRE(elements(s) == sorted);
        CHECK(failures > static_cast<int>(n));
    }
}

TEST_CASE("alloc failure: a write to an indexed list that runs out of memory leaves it as it was",
          "[core][value]") {
    using kvmodel::list;
    using kvmodel::value;
    std::mt19937_64 rng(43);
    // Long strings out of order: the positional layout, where every copy allocates.
    std::vector<value> ref;
    for (int i = 0; i < 150; ++i) ref.emplace_back(long_string(rng()));
    list l(ref);
    l.build_index();
    auto same = [&] {
        REQUIRE(kvmodel::detail::list_access::check(l));
        REQUIRE(elements(l) == ref);
    };
    int failures = 0;
    for (int step = 0; step < 400; ++step) {
        std::size_t pos = rng() % ref.size();
        auto at = ref.begin() + static_cast<std::ptrdiff_t>(pos);
        value v(long_string(rng()));
        switch (rng() % 4) {
        case 0:
            // An insert may split a node of the list order before the value
            // order fails: the same list, reshaped.
            failures += fail_each_allocation([&] { l.insert(pos, v); }, same, false);
            ref.insert(at, v);
            break;
        case 1:
            failures += fail_each_allocation([&] { l.set(pos, v); }, same);
            *at = v;
            break;
        case 2: {
            // A context write's pattern: take the element out, put it back.
            value taken;
            failures += fail_each_allocation([&] { taken = l.take(pos); }, same);
            REQUIRE(taken == *at);
            *at = value{};
            same();
            failures += fail_each_allocation([&] { l.set(pos, taken); }, same);
            *at = taken;
            break;
        }
        default:
            failures += fail_each_allocation([&] { l.erase(pos); }, same);
            ref.erase(at);
        }
        same();
    }
    CHECK(failures > 400);
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
        // A put that adds an entry may have split a node of the key tree
        // before the value tree failed: the same map, reshaped.
        failures += fail_each_allocation([&] { (void)m.put(value(key), v); }, same, false);
        REQUIRE(kvmodel::detail::map_access::check(m));
        REQUIRE(*m.get(value(key)) == v);
    }
    CHECK(m.size() > 500);
    CHECK(failures > 1500);
}

} // namespace core_alloc_failure_test
