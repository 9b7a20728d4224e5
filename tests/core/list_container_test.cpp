// Tests of kvmodel::list (core/value.hpp, core/detail/containers.hpp): the
// flat and indexed representations against a std::vector oracle on seeded
// random operation sequences, rank answers against a stable sort, the label
// relabelling under adversarial insert patterns, copy-on-write sharing.
#include <kvmodel/core/value.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

namespace core_list_container_test {

using namespace kvmodel;

namespace {

std::uint64_t seed_from_env() {
    const char* s = std::getenv("KVMODEL_SEED");
    return s != nullptr && *s != '\0' ? std::strtoull(s, nullptr, 0) : 0x6c697374ULL;
}

/// Positions in rank order: stable sort by value, ties by position.
std::vector<std::size_t> oracle_ranks(const std::vector<value>& v) {
    std::vector<std::size_t> order(v.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return detail::cdt_compare(v[a], v[b], false) < 0;
    });
    return order;
}

void check_same(const list& l, const std::vector<value>& ref) {
    REQUIRE(l.size() == ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i)
        REQUIRE(l[i] == ref[i]);
    std::size_t i = 0;
    for (const value& v : l)
        REQUIRE(v == ref[i++]);
    REQUIRE(i == ref.size());
    REQUIRE(static_cast<std::size_t>(l.end() - l.begin()) == ref.size());
}

void check_ranks(const list& l, const std::vector<value>& ref) {
    std::vector<std::size_t> order = oracle_ranks(ref);
    for (std::size_t r = 0; r < order.size(); ++r) {
        REQUIRE(l.index_at_rank(r) == order[r]);
        REQUIRE(l.rank_of(order[r]) == r);
    }
    REQUIRE(l.indexes_by_rank(0, ref.size()) == order);
    std::vector<value> by_rank = l.values_by_rank(0, ref.size());
    for (std::size_t r = 0; r < order.size(); ++r)
        REQUIRE(by_rank[r] == ref[order[r]]);
    for (std::int64_t probe = -1; probe <= 8; ++probe) {
        value p(probe);
        std::size_t less = 0;
        std::size_t le = 0;
        for (const value& e : ref) {
            int c = detail::cdt_compare(e, p, true);
            if (c < 0)
                ++less;
            if (c <= 0)
                ++le;
        }
        REQUIRE(l.count_less(p) == less);
        REQUIRE(l.count_less_equal(p) == le);
    }
}

/// Random edits against the oracle. A sorted start (values never decreasing)
/// builds the sorted layout; the first edit that unsorts it moves it to the
/// positional one.
void random_run(
    std::mt19937_64& rng, bool indexed, std::size_t start, int steps, bool sorted_start = false) {
    list l;
    std::vector<value> ref;
    for (std::size_t i = 0; i < start; ++i) {
        value v(static_cast<std::int64_t>(sorted_start ? i * 7 / start : rng() % 7));
        l.push_back(v);
        ref.push_back(v);
    }
    if (indexed)
        l.build_index();
    for (int step = 0; step < steps; ++step) {
        switch (rng() % 9) {
        case 0:
        case 1: {
            std::size_t pos = ref.empty() ? 0 : rng() % (ref.size() + 1);
            value v(static_cast<std::int64_t>(rng() % 7));
            l.insert(pos, v);
            ref.insert(ref.begin() + static_cast<std::ptrdiff_t>(pos), v);
            break;
        }
        case 2: {
            value v(static_cast<std::int64_t>(rng() % 7));
            l.push_back(v);
            ref.push_back(v);
            break;
        }
        case 3:
            if (!ref.empty()) {
                std::size_t pos = rng() % ref.size();
                l.erase(pos);
                ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(pos));
            }
            break;
        case 4:
            if (!ref.empty()) {
                std::size_t pos = rng() % ref.size();
                value v(static_cast<std::int64_t>(rng() % 7));
                l.set(pos, v);
                ref[pos] = v;
            }
            break;
        case 5:
            if (!ref.empty()) {
                std::size_t pos = rng() % ref.size();
                value v = l.take(pos);
                REQUIRE(v == ref[pos]);
                REQUIRE(l[pos].is_nil());
                l.set(pos, v);
            }
            break;
        case 6:
            if (!ref.empty()) {
                std::size_t a = rng() % ref.size();
                std::size_t b = a + rng() % (std::min<std::size_t>(ref.size() - a, 5) + 1);
                l.erase(a, b);
                ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(a),
                          ref.begin() + static_cast<std::ptrdiff_t>(b));
            }
            break;
        case 7: {
            std::vector<std::size_t> pos;
            for (std::size_t i = 0; i < ref.size(); ++i)
                if (rng() % 5 == 0)
                    pos.push_back(i);
            l.erase_positions(pos);
            for (auto it = pos.rbegin(); it != pos.rend(); ++it)
                ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(*it));
            break;
        }
        default: {
            // Copy-on-write: a copy keeps the old content.
            list copy = l;
            std::vector<value> before = ref;
            value v("x");
            l.push_back(v);
            ref.push_back(v);
            check_same(copy, before);
            break;
        }
        }
        if (step % 16 == 0) {
            check_same(l, ref);
            REQUIRE(detail::list_access::check(l));
        }
    }
    check_same(l, ref);
    REQUIRE(detail::list_access::check(l));
    check_ranks(l, ref);
}

} // namespace

TEST_CASE("list matches a vector oracle, flat and indexed", "[core][list]") {
    std::uint64_t seed = seed_from_env();
    INFO("seed " << seed << " (KVMODEL_SEED to replay)");
    std::mt19937_64 rng(seed);
    for (int round = 0; round < 60; ++round) {
        random_run(rng, false, 0, 120);  // stays short: flat, scans
        random_run(rng, false, 100, 60); // long and flat until a middle insert
        random_run(rng, true, 100, 200); // indexed from the start
        random_run(rng, true, 100, 200, true); // sorted layout, until unsorted
    }
}

TEST_CASE("a sorted list keeps its one index through sorted writes", "[core][list]") {
    std::uint64_t seed = seed_from_env();
    INFO("seed " << seed << " (KVMODEL_SEED to replay)");
    std::mt19937_64 rng(seed);
    auto less = [](const value& a, const value& b) { return detail::cdt_compare(a, b, false) < 0; };
    for (int round = 0; round < 20; ++round) {
        list l(list_order::ordered);
        std::vector<value> ref;
        for (int i = 0; i < 100; ++i) {
            value v(static_cast<std::int64_t>(rng() % 30));
            l.insert_sorted(v);
            ref.insert(std::upper_bound(ref.begin(), ref.end(), v, less), v);
        }
        REQUIRE(l.has_index());
        for (int step = 0; step < 300; ++step) {
            std::size_t pos = rng() % ref.size();
            value v(static_cast<std::int64_t>(rng() % 30));
            switch (rng() % 5) {
            case 0: {
                std::size_t at = l.insert_sorted(v);
                auto it = std::upper_bound(ref.begin(), ref.end(), v, less);
                REQUIRE(at == static_cast<std::size_t>(it - ref.begin()));
                ref.insert(it, v);
                break;
            }
            case 1: {
                // Where it sorts, before its equals: stays in place.
                std::size_t at = l.count_less(v);
                l.insert(at, v);
                ref.insert(ref.begin() + static_cast<std::ptrdiff_t>(at), v);
                break;
            }
            case 2:
                l.erase(pos);
                ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(pos));
                break;
            case 3: {
                std::size_t last = std::min(ref.size(), pos + 1 + rng() % 4);
                l.erase(pos, last);
                ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(pos),
                          ref.begin() + static_cast<std::ptrdiff_t>(last));
                break;
            }
            default:
                l.set(pos, ref[pos]); // its own value: in place
                l.push_back(ref.back());
                ref.push_back(ref.back());
                break;
            }
            if (ref.size() < 70)
                for (int k = 0; k < 30; ++k) {
                    value w(static_cast<std::int64_t>(rng() % 30));
                    l.insert_sorted(w);
                    ref.insert(std::upper_bound(ref.begin(), ref.end(), w, less), w);
                }
            if (step % 16 == 0) {
                check_same(l, ref);
                check_ranks(l, ref);
            }
        }
        check_same(l, ref);
        check_ranks(l, ref);
        CHECK(l.values_between(value(10), nullptr).size() ==
              static_cast<std::size_t>(
                  ref.end() - std::lower_bound(ref.begin(), ref.end(), value(10), less)));
        // An unsorting write: the list moves to positions and still answers.
        l.push_back(value(-1));
        ref.push_back(value(-1));
        l.set(0, value(29));
        ref[0] = value(29);
        check_same(l, ref);
        check_ranks(l, ref);
    }
}

TEST_CASE("list indexes itself only when asked or on a long middle insert", "[core][list]") {
    list l;
    for (int i = 0; i < 1000; ++i)
        l.push_back(value(i));
    CHECK_FALSE(l.has_index());             // appends stay a vector
    CHECK(l.count_less(value(500)) == 500); // a scan answers meanwhile
    l.insert(500, value(-1));
    CHECK(l.has_index());
    CHECK(l[500] == value(-1));
    CHECK(l.index_at_rank(0) == 500);

    list s;
    for (int i = 0; i < 10; ++i)
        s.insert(0, value(i));
    s.build_index(); // short lists stay flat
    CHECK_FALSE(s.has_index());
    CHECK(s.index_at_rank(0) == 9);
}

TEST_CASE("list relabels locally under adversarial inserts", "[core][list]") {
    // Same-spot inserts exhaust the gap between two labels every ~32 inserts;
    // the relabel must stay local (this runs in well under a second).
    list mid;
    list front;
    list second;
    list ties; // equal values, ranked by position: by label, relabelled
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
        mid.insert(mid.size() / 2, value(i));
        front.insert(0, value(i));
        second.insert(i > 0 ? 1 : 0, value(i));
        ties.insert(ties.size() / 2, value(i % 3));
    }
    for (const list* l : {&mid, &front, &second, &ties})
        REQUIRE(detail::list_access::check(*l));
    REQUIRE(mid.size() == static_cast<std::size_t>(n));
    std::vector<value> t = ties.to_vector();
    std::vector<std::size_t> by_rank(t.size());
    for (std::size_t i = 0; i < by_rank.size(); ++i)
        by_rank[i] = i;
    std::stable_sort(by_rank.begin(), by_rank.end(),
                     [&](std::size_t a, std::size_t b) { return t[a].as_int() < t[b].as_int(); });
    REQUIRE(ties.indexes_by_rank(0, ties.size()) == by_rank);
    CHECK(front[0] == value(n - 1));
    CHECK(front[static_cast<std::size_t>(n - 1)] == value(0));
    CHECK(second[0] == value(0));
    CHECK(second[1] == value(n - 1));
    // Positions and ranks still agree after all the relabelling.
    std::vector<value> v = front.to_vector();
    for (std::size_t i = 0; i < v.size(); ++i)
        REQUIRE(v[i] == value(static_cast<std::int64_t>(n - 1) - static_cast<std::int64_t>(i)));
    for (std::size_t r = 0; r < 100; ++r)
        CHECK(front.index_at_rank(r) == static_cast<std::size_t>(n - 1) - r);
}

TEST_CASE("list sort is stable and drops duplicates on request", "[core][list]") {
    list l{3, 1, "a", 2, 1, 3};
    l.sort();
    CHECK(value(l) == value(list{1, 1, 2, 3, 3, "a"}));
    l.sort(true);
    CHECK(value(l) == value(list{1, 2, 3, "a"}));
    list big;
    for (int i = 0; i < 300; ++i)
        big.push_back(value(i % 10));
    big.build_index();
    big.sort(true);
    CHECK(big.size() == 10);
    CHECK(big.has_index());
    list one{5};
    one.sort(true);
    CHECK(one.size() == 1);
    list none;
    none.sort(true);
    CHECK(none.empty());
}

TEST_CASE("ordered construction sorts; empty lists iterate to nothing", "[core][list]") {
    list o(std::vector<value>{5, 1, 3}, list_order::ordered);
    CHECK(o.is_ordered());
    CHECK(value(o) == value(list{1, 3, 5}));
    list e;
    CHECK(e.begin() == e.end());
    int n = 0;
    for ([[maybe_unused]] const value& v : e)
        ++n;
    CHECK(n == 0);
    list cleared{1, 2};
    cleared.clear();
    CHECK(cleared.begin() == cleared.end());
}

TEST_CASE("insert_sorted keeps a sorted list sorted; value_at_rank", "[core][list]") {
    std::uint64_t seed = seed_from_env();
    INFO("seed " << seed << " (KVMODEL_SEED to replay)");
    std::mt19937_64 rng(seed);
    for (int round = 0; round < 20; ++round) {
        list l(list_order::ordered);
        std::vector<value> ref;
        for (int i = 0; i < 300; ++i) {
            value v(static_cast<std::int64_t>(rng() % 40));
            std::size_t pos = l.insert_sorted(v);
            auto at =
                std::upper_bound(ref.begin(), ref.end(), v, [](const value& a, const value& b) {
                    return detail::cdt_compare(a, b, false) < 0;
                });
            REQUIRE(pos == static_cast<std::size_t>(at - ref.begin()));
            ref.insert(at, v);
            if (i % 50 == 0)
                check_same(l, ref);
        }
        check_same(l, ref);
        CHECK(l.has_index());
        for (std::size_t r = 0; r < ref.size(); ++r)
            REQUIRE(l.value_at_rank(r) == ref[r]);
    }
    list small{3, 1, 2};
    CHECK(small.value_at_rank(0) == value(1));
    CHECK(small.value_at_rank(2) == value(3));
}

TEST_CASE("values_between walks a value interval in rank order", "[core][list]") {
    for (bool indexed : {false, true}) {
        list l;
        for (int i = 0; i < 200; ++i)
            l.push_back(value((i * 7) % 50));
        if (indexed)
            l.build_index();
        value hi(20);
        std::vector<value> got = l.values_between(value(10), &hi);
        std::vector<value> want;
        for (int v = 10; v < 20; ++v)
            for (int k = 0; k < 4; ++k)
                want.emplace_back(v);
        CHECK(got == want);
        CHECK(l.values_between(value(45), nullptr).size() == 20);
        CHECK(l.values_between(value(30), &hi).empty());
        value wild = value(list{wildcard});
        CHECK(l.values_between(value(), &wild).size() == 200); // every int is below a list
    }
}

} // namespace core_list_container_test
