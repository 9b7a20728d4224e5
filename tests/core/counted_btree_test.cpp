// Tests of detail::counted_btree (core/detail/counted_btree.hpp): every
// operation against a sorted std::vector oracle on seeded random sequences,
// with tiny node capacities (splits, merges and evening-out on nearly every
// step) and the production ones, the tree's invariant check after each step.
#include <kvmodel/core/detail/containers.hpp>
#include <kvmodel/core/detail/counted_btree.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <random>
#include <vector>

namespace core_counted_btree_test {

using kvmodel::detail::counted_btree;

namespace {

std::uint64_t seed_from_env() {
    const char* s = std::getenv("KVMODEL_SEED");
    return s != nullptr && *s != '\0' ? std::strtoull(s, nullptr, 0) : 0x62747265ULL;
}

/// An element ordered by key only; id tells equal keys apart, so the oracle
/// also checks where equals go.
struct elem {
    int key = 0;
    int id = 0;
    friend bool operator==(const elem&, const elem&) = default;
};
struct key_probe {
    int key;
};
struct elem_less {
    bool operator()(const elem& a, const elem& b) const { return a.key < b.key; }
    bool operator()(const elem& a, key_probe b) const { return a.key < b.key; }
    bool operator()(key_probe a, const elem& b) const { return a.key < b.key; }
};

template <class Tree>
void check_same(const Tree& t, const std::vector<elem>& ref) {
    REQUIRE(t.check());
    REQUIRE(t.size() == ref.size());
    REQUIRE(t.empty() == ref.empty());
    std::size_t i = 0;
    for (auto it = t.begin(); it != t.end(); ++it, ++i) {
        REQUIRE(i < ref.size());
        REQUIRE(*it == ref[i]);
    }
    REQUIRE(i == ref.size());
    // And backwards.
    auto it = t.end();
    for (std::size_t j = ref.size(); j-- > 0;) {
        --it;
        REQUIRE(*it == ref[j]);
    }
    REQUIRE(it == t.begin());
}

template <std::size_t LeafCap, std::size_t InnerCap>
void run_oracle(std::uint64_t seed, int steps, int max_key, std::size_t max_size) {
    using tree = counted_btree<elem, elem_less, LeafCap, InnerCap>;
    auto t = std::make_unique<tree>();
    std::vector<elem> ref;
    std::mt19937_64 rng(seed);
    auto pick = [&](std::size_t n) {
        return static_cast<std::size_t>(rng() % n);
    };
    auto key_between = [&](std::size_t p) {
        // A key that keeps the order at position p (before ref[p]).
        int lo = p > 0 ? ref[p - 1].key : 0;
        int hi = p < ref.size() ? ref[p].key : max_key;
        return lo + static_cast<int>(pick(static_cast<std::size_t>(hi - lo + 1)));
    };
    auto by_key = [](const elem& a, const elem& b) {
        return a.key < b.key;
    };
    int next_id = 0;
    for (int step = 0; step < steps; ++step) {
        INFO("seed " << seed << " step " << step << " size " << ref.size());
        std::size_t n = ref.size();
        // Grow while small, shrink while large: sizes sweep up and down.
        bool grow = n < max_size / 4 || (n < max_size && pick(2) == 0);
        int op = static_cast<int>(pick(13));
        if (grow && op >= 6)
            op = static_cast<int>(pick(3));
        if (n == 0 && op >= 3 && op <= 8)
            op = 0;
        switch (op) {
        case 0: { // insert after equals
            elem e{static_cast<int>(pick(static_cast<std::size_t>(max_key + 1))), next_id++};
            auto at = std::upper_bound(ref.begin(), ref.end(), e, by_key);
            auto want = static_cast<std::size_t>(at - ref.begin());
            ref.insert(at, e);
            auto got = t->insert(e);
            REQUIRE(got.rank == want);
            REQUIRE(*got.it == e);
            REQUIRE(t->rank(got.it) == want);
            break;
        }
        case 1: { // insert at a position
            std::size_t p = pick(n + 1);
            elem e{key_between(p), next_id++};
            ref.insert(ref.begin() + static_cast<std::ptrdiff_t>(p), e);
            auto it = t->insert(t->nth(p), e);
            REQUIRE(*it == e);
            REQUIRE(t->rank(it) == p);
            break;
        }
        case 2: { // insert at the ends
            std::size_t p = pick(2) == 0 ? 0 : n;
            elem e{key_between(p), next_id++};
            ref.insert(ref.begin() + static_cast<std::ptrdiff_t>(p), e);
            t->insert(p == 0 ? t->begin() : t->end(), e);
            break;
        }
        case 3: { // replace, keeping the order
            std::size_t p = pick(n);
            int lo = p > 0 ? ref[p - 1].key : 0;
            int hi = p + 1 < n ? ref[p + 1].key : max_key;
            elem e{lo + static_cast<int>(pick(static_cast<std::size_t>(hi - lo + 1))), next_id++};
            ref[p] = e;
            t->replace(t->nth(p), e);
            break;
        }
        case 4: { // erase one
            std::size_t p = pick(n);
            ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(p));
            t->erase(t->nth(p));
            break;
        }
        case 5: { // erase the first (trim) or the last
            if (pick(3) != 0) {
                ref.erase(ref.begin());
                t->erase(t->begin());
            } else {
                ref.pop_back();
                t->erase(std::prev(t->end()));
            }
            break;
        }
        case 6: { // erase a rank range
            std::size_t a = pick(n + 1);
            std::size_t len =
                pick(3) == 0 ? pick(n - a + 1) : pick(std::min<std::size_t>(n - a, 8) + 1);
            ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(a),
                      ref.begin() + static_cast<std::ptrdiff_t>(a + len));
            if (pick(2) == 0)
                t->erase_ranks(a, a + len);
            else
                t->erase(t->nth(a), t->nth(a + len));
            break;
        }
        case 7: { // trim several from the front
            std::size_t len = pick(std::min<std::size_t>(n, 5) + 1);
            ref.erase(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(len));
            t->erase_ranks(0, len);
            break;
        }
        case 8: { // searches and positions (no change)
            int k = static_cast<int>(pick(static_cast<std::size_t>(max_key + 2))) - 1;
            auto lb = static_cast<std::size_t>(
                std::lower_bound(ref.begin(), ref.end(), elem{k, 0}, by_key) - ref.begin());
            auto ub = static_cast<std::size_t>(
                std::upper_bound(ref.begin(), ref.end(), elem{k, 0}, by_key) - ref.begin());
            auto l = t->lower_bound_pos(key_probe{k});
            auto u = t->upper_bound_pos(elem{k, 0});
            REQUIRE(l.rank == lb);
            REQUIRE(u.rank == ub);
            REQUIRE(l.it == t->nth(lb));
            REQUIRE(u.it == t->nth(ub));
            REQUIRE(t->lower_bound(key_probe{k}) == l.it);
            REQUIRE(t->upper_bound(key_probe{k}) == u.it);
            REQUIRE(t->rank(l.it) == lb);
            REQUIRE(t->rank(u.it) == ub);
            for (std::size_t i = 0; i < n; i += 1 + pick(4)) {
                auto it = t->nth(i);
                REQUIRE(*it == ref[i]);
                REQUIRE(t->rank(it) == i);
            }
            REQUIRE(t->nth(n) == t->end());
            REQUIRE(t->rank(t->end()) == n);
            break;
        }
        case 9: { // deep copy, then carry on with the copy
            auto c = std::make_unique<tree>(*t);
            check_same(*c, ref);
            t = std::move(c);
            break;
        }
        case 10: { // bulk load from the oracle
            std::vector<elem> copy = ref;
            if (pick(2) == 0)
                t = std::make_unique<tree>(std::move(copy));
            else
                t->assign_sorted(std::move(copy));
            break;
        }
        case 11: { // move everything out, then back in
            std::vector<elem> out = t->release_sorted();
            REQUIRE(out == ref);
            REQUIRE(t->empty());
            REQUIRE(t->check());
            t->assign_sorted(std::move(out));
            break;
        }
        default: { // erase one near the end
            std::size_t p = n - 1 - pick(std::min<std::size_t>(n, 3));
            ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(p));
            t->erase(t->nth(p));
            break;
        }
        }
        if (ref.size() <= 64 || step % 16 == 0)
            check_same(*t, ref);
        else
            REQUIRE(t->check());
    }
    check_same(*t, ref);
}

} // namespace

TEST_CASE("counted_btree matches a sorted vector, tiny nodes", "[core][counted_btree]") {
    std::uint64_t seed = seed_from_env();
    for (std::uint64_t s = 0; s < 4; ++s) {
        run_oracle<2, 3>(seed + s, 3000, 20, 120);
        run_oracle<3, 3>(seed + s, 3000, 50, 200);
        run_oracle<4, 4>(seed + s, 3000, 8, 200);
        run_oracle<5, 4>(seed + s, 3000, 1000, 300);
        run_oracle<4, 5>(seed + s, 3000, 30, 300);
    }
}

TEST_CASE("counted_btree matches a sorted vector, production nodes", "[core][counted_btree]") {
    std::uint64_t seed = seed_from_env();
    run_oracle<32, 32>(seed, 4000, 100, 3000);
    run_oracle<16, 64>(seed + 1, 4000, 100000, 3000);
}

TEST_CASE("counted_btree holds list values with WILDCARD probes", "[core][counted_btree]") {
    using kvmodel::value;
    using kvmodel::detail::list_value_less;
    using kvmodel::detail::list_value_probe;
    counted_btree<value, list_value_less, 4, 3> t;
    std::vector<value> ref;
    std::mt19937_64 rng(seed_from_env());
    for (int i = 0; i < 500; ++i) {
        value v = rng() % 3 == 0 ? value(std::to_string(rng() % 40))
                                 : value(static_cast<std::int64_t>(rng() % 40));
        auto at = std::upper_bound(ref.begin(), ref.end(), v, list_value_less{});
        auto want = static_cast<std::size_t>(at - ref.begin());
        ref.insert(at, v);
        REQUIRE(t.insert(v).rank == want);
        REQUIRE(t.check());
    }
    // A WILDCARD probe matches every value: lower bound 0, upper bound size.
    value w(kvmodel::wildcard);
    CHECK(t.lower_bound_pos(list_value_probe{&w}).rank == 0);
    CHECK(t.upper_bound_pos(list_value_probe{&w}).rank == t.size());
    value seven(std::int64_t{7});
    auto lb = static_cast<std::size_t>(
        std::lower_bound(ref.begin(), ref.end(), seven, list_value_less{}) - ref.begin());
    CHECK(t.lower_bound_pos(list_value_probe{&seven}).rank == lb);
    std::vector<value> out = counted_btree<value, list_value_less, 4, 3>(t).release_sorted();
    CHECK(out == ref);
    t.erase_ranks(3, t.size() - 3);
    CHECK(t.size() == 6);
    CHECK(t.check());
}

// ---- appends, and live separators (the map's trees of node references)

template <std::size_t LeafCap, std::size_t InnerCap>
void run_appends(std::size_t n) {
    counted_btree<elem, elem_less, LeafCap, InnerCap> t;
    std::vector<elem> ref;
    for (int k = 0; k < static_cast<int>(n); ++k) {
        t.insert(elem{k, k});
        ref.push_back(elem{k, k});
        // check() is O(n): after every append while the tree grows its
        // first levels, then every 1,000 (n^2 would take a minute under ASan).
        if (k < 2000 || k % 1000 == 0)
            REQUIRE(t.check());
    }
    check_same(t, ref);
    // Increasing keys fill their leaves: all but the last are full.
    CHECK(t.leaf_count() == (n + LeafCap - 1) / LeafCap);
    // Erasing from the right edge (under half full there) and appending
    // again keeps every invariant.
    std::mt19937_64 rng(n);
    for (int step = 0; step < 200 && !ref.empty(); ++step) {
        std::size_t i = ref.size() - 1 - rng() % std::min<std::size_t>(ref.size(), 3 * LeafCap);
        t.erase(t.nth(i));
        ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(i));
        int k = ref.empty() ? 0 : ref.back().key + 1;
        if (rng() % 2 == 0) {
            t.insert(elem{k, k});
            ref.push_back(elem{k, k});
        }
        REQUIRE(t.check());
    }
    check_same(t, ref);
}

TEST_CASE("counted_btree: runs of appends fill their leaves", "[core][counted_btree]") {
    run_appends<2, 3>(300);
    run_appends<4, 4>(500);
    run_appends<5, 3>(700);
    run_appends<32, 32>(40000);
}

/// Elements a tree with live separators holds: erased ones are marked dead
/// (as a map frees its nodes), and a comparison touching a dead one fails.
struct live_elem {
    int key = 0;
    const bool* alive = nullptr; // null in free slots
    const void** leaf = nullptr; // where the tree last reported the element
};
struct live_less {
    static int key_of(const live_elem& e) {
        REQUIRE(e.alive != nullptr);
        REQUIRE(*e.alive);
        return e.key;
    }
    bool operator()(const live_elem& a, const live_elem& b) const { return key_of(a) < key_of(b); }
    bool operator()(const live_elem& a, key_probe b) const { return key_of(a) < b.key; }
    bool operator()(key_probe a, const live_elem& b) const { return a.key < key_of(b); }
};
struct live_slot {
    // A plain tree's slot (live separators need one): elements move as bytes,
    // a freed slot is zero bytes (live_elem{}), and two elements are the same
    // when their alive flags are.
    static constexpr bool plain = true;
    static constexpr bool live_separators = true;
    static constexpr std::size_t ref_at = offsetof(live_elem, alive);
    static constexpr std::uintptr_t ref_mask = ~std::uintptr_t{0};
    static constexpr bool tracks_leaf = true;
    static void placed(live_elem& e, const void* leaf) noexcept { *e.leaf = leaf; }
};

template <std::size_t LeafCap, std::size_t InnerCap>
void run_live(std::uint64_t seed, std::size_t steps, int keys) {
    INFO("seed " << seed << ", caps " << LeafCap << "/" << InnerCap);
    counted_btree<live_elem, live_less, LeafCap, InnerCap, live_slot> t;
    // One flag per key, forever: a key's element is alive while in the tree.
    auto flags = std::make_unique<bool[]>(static_cast<std::size_t>(keys));
    // And its leaf, as the tree reports it (leaf tracking: found without a search).
    std::vector<const void*> leaves(static_cast<std::size_t>(keys));
    std::vector<int> ref; // the keys in the tree, in order
    std::mt19937_64 rng(seed);
    for (std::size_t step = 0; step < steps; ++step) {
        INFO("step " << step << " size " << ref.size());
        int k = static_cast<int>(rng() % static_cast<std::uint64_t>(keys));
        auto at = std::lower_bound(ref.begin(), ref.end(), k);
        std::uint64_t kind = rng() % 10;
        if (kind < 5) {
            if (at != ref.end() && *at == k) continue;
            flags[static_cast<std::size_t>(k)] = true;
            t.insert(live_elem{k, &flags[static_cast<std::size_t>(k)], &leaves[static_cast<std::size_t>(k)]});
            ref.insert(at, k);
        } else if (kind < 8 && !ref.empty()) {
            // Erase one, or a run of ranks; the erased die at once.
            std::size_t i = static_cast<std::size_t>(rng() % ref.size());
            std::size_t j = kind == 5 ? i + 1 : std::min(ref.size(), i + 1 + rng() % (3 * LeafCap));
            if (j == i + 1) t.erase(t.nth(i));
            else t.erase_ranks(i, j);
            for (std::size_t x = i; x < j; ++x) flags[static_cast<std::size_t>(ref[x])] = false;
            ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(i), ref.begin() + static_cast<std::ptrdiff_t>(j));
        } else if (!ref.empty()) {
            // update(): the same element (same flag) summarised anew, in place.
            std::size_t i = static_cast<std::size_t>(rng() % ref.size());
            auto pos = t.nth(i);
            live_elem e = *pos;
            REQUIRE(t.fits_at(pos, e));
            t.update(pos, e);
        }
        REQUIRE(t.check());
        REQUIRE(t.size() == ref.size());
        std::size_t i = 0;
        for (const live_elem& e : t) REQUIRE(e.key == ref[i++]);
        // Elements are where their last leaf report says, at their rank:
        // all of a small tree, 32 of a larger one (all of it every 500 steps).
        auto found_by_leaf = [&](std::size_t r) {
            int key = ref[r];
            auto it = t.iterator_in(leaves[static_cast<std::size_t>(key)],
                                    [key](const live_elem& e) { return e.key == key; });
            REQUIRE(it != t.end());
            REQUIRE(t.rank(it) == r);
        };
        if (ref.size() <= 64 || step % 500 == 0) {
            for (std::size_t r = 0; r < ref.size(); ++r) found_by_leaf(r);
        } else {
            for (int s = 0; s < 32; ++s) found_by_leaf(static_cast<std::size_t>(rng() % ref.size()));
        }
        // Searches compare against separators: none may be dead.
        for (int probes = 0; probes < 4; ++probes) {
            int p = static_cast<int>(rng() % static_cast<std::uint64_t>(keys + 2)) - 1;
            auto want = std::lower_bound(ref.begin(), ref.end(), p) - ref.begin();
            REQUIRE(t.lower_bound_pos(key_probe{p}).rank == static_cast<std::size_t>(want));
        }
    }
}

TEST_CASE("counted_btree: live separators never outlive their values, leaf reports stay true",
          "[core][counted_btree]") {
    std::uint64_t seed = seed_from_env();
    run_live<2, 3>(seed, 3000, 60);
    run_live<3, 3>(seed + 1, 3000, 200);
    run_live<4, 5>(seed + 2, 3000, 400);
    run_live<32, 32>(seed + 3, 6000, 5000);
}

} // namespace core_counted_btree_test
