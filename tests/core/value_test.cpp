// tests/core/value_test.cpp
//
// kvmodel::value, list and map:
//  - construction, accessors, type predicates, printing, preconditions;
//  - copy-on-write: a copy shares storage (O(1)) and is independent after
//    either side mutates, nested containers included;
//  - list and map run against oracles (std::vector in list order; a key-sorted
//    std::vector of pairs) on seeded random operation sequences, with every
//    query checked after every step: positions, ranks (ties by position for a
//    list, by key for a map), counts below / below-or-matching a probe
//    (WILDCARD probes too), rank windows, find;
//  - many equal values, and the relabel path of list inserts (thousands of
//    inserts at one middle position);
//  - hashing consistent with ==.
// A failing random sequence prints its seed and the operations that led to it.
#include <kvmodel/core/value.hpp>

#include "random_value.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace core_value_test {

using namespace kvmodel;
using kvmodel::test::value_gen;

namespace {

int cmp(const value& a, const value& b) {
    auto o = compare(a, b);
    return o < 0 ? -1 : (o > 0 ? 1 : 0);
}

// Positions in rank order: stable, so equal values keep their order.
template <class Get>
std::vector<std::size_t> rank_order(std::size_t n, Get get) {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return value_less{}(get(a), get(b)); });
    return order;
}

std::string show(const std::vector<std::size_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

// A replayable record of one random sequence.
struct op_log {
    std::uint64_t seed = 0;
    std::vector<std::string> ops;
    std::string text() const {
        std::ostringstream out;
        out << "sequence seed " << seed << " (run seed " << test::seed() << ", KVMODEL_SEED to replay), "
            << ops.size() << " ops:\n";
        // The tail is what matters; the whole log of a long run is noise.
        std::size_t from = ops.size() > 60 ? ops.size() - 60 : 0;
        if (from > 0) out << "  ... " << from << " earlier ops\n";
        for (std::size_t i = from; i < ops.size(); ++i) out << "  " << i << ": " << ops[i] << "\n";
        return out.str();
    }
};

// Probes for counts: values of the elements' domain, WILDCARD patterns, bounds.
value probe(value_gen& g) {
    switch (g.below(6)) {
    case 0: return value{wildcard};
    case 1: return value{list{static_cast<std::int64_t>(g.below(3)), wildcard}};
    case 2: return g.chance(50) ? value{inf} : value{};
    default: return g.any();
    }
}

// ---- list ------------------------------------------------------------------------

std::string check_list(const list& l, const std::vector<value>& o, value_gen& g) {
    std::ostringstream err;
    if (l.size() != o.size()) return "size " + std::to_string(l.size()) + ", oracle " + std::to_string(o.size());
    if (l.empty() != o.empty()) return "empty()";
    std::size_t i = 0;
    for (const value& e : l) {
        if (!(e == o[i])) {
            err << "iteration: element " << i << " is " << to_string(e) << ", oracle " << to_string(o[i]);
            return err.str();
        }
        ++i;
    }
    if (i != o.size()) return "iteration ended early";
    const std::size_t n = o.size();
    for (int k = 0; k < 4 && n > 0; ++k) {
        std::size_t p = g.index(n);
        if (!(l[p] == o[p]) || !(l.at(p) == o[p])) return "operator[] at " + std::to_string(p);
    }
    if (n > 0 && (!(l.front() == o.front()) || !(l.back() == o.back()))) return "front/back";

    auto order = rank_order(n, [&](std::size_t x) -> const value& { return o[x]; });
    auto all = l.indexes_by_rank(0, n);
    if (all != order) return "indexes_by_rank(0, n) = " + show(all) + ", oracle " + show(order);
    for (int k = 0; k < 6 && n > 0; ++k) {
        std::size_t r = k == 0 ? 0 : (k == 1 ? n - 1 : g.index(n));
        if (l.index_at_rank(r) != order[r])
            return "index_at_rank(" + std::to_string(r) + ") = " + std::to_string(l.index_at_rank(r)) +
                   ", oracle " + std::to_string(order[r]);
        if (l.rank_of(order[r]) != r)
            return "rank_of(" + std::to_string(order[r]) + ") = " + std::to_string(l.rank_of(order[r])) +
                   ", oracle " + std::to_string(r);
    }
    {
        std::size_t f = g.index(n + 2);
        std::size_t t = f + g.index(n + 2); // may run past the end: clipped
        auto got = l.indexes_by_rank(f, t);
        std::vector<std::size_t> want;
        for (std::size_t r = f; r < std::min(t, n); ++r) want.push_back(order[r]);
        if (got != want)
            return "indexes_by_rank(" + std::to_string(f) + ", " + std::to_string(t) + ") = " + show(got) +
                   ", oracle " + show(want);
    }
    for (int k = 0; k < 3; ++k) {
        value p = probe(g);
        std::size_t below = 0;
        std::size_t upto = 0;
        for (const value& e : o) {
            int c = cmp(e, p);
            below += c < 0 ? 1U : 0U;
            upto += c <= 0 ? 1U : 0U;
        }
        if (l.count_less(p) != below || l.count_less_equal(p) != upto) {
            err << "count_less/count_less_equal(" << to_string(p) << ") = " << l.count_less(p) << "/"
                << l.count_less_equal(p) << ", oracle " << below << "/" << upto;
            return err.str();
        }
    }
    return {};
}

void sort_oracle(std::vector<value>& o, bool drop) {
    std::stable_sort(o.begin(), o.end(), value_less{});
    if (drop)
        o.erase(std::unique(o.begin(), o.end(), [](const value& a, const value& b) { return cmp(a, b) == 0; }),
                o.end());
}

// ---- map -------------------------------------------------------------------------

using entries = std::vector<std::pair<value, value>>;

std::optional<std::size_t> oracle_find(const entries& o, const value& k) {
    for (std::size_t i = 0; i < o.size(); ++i)
        if (cmp(o[i].first, k) == 0) return i;
    return std::nullopt;
}

std::string check_map(const map& m, const entries& o, value_gen& g, value_gen& keys) {
    std::ostringstream err;
    if (m.size() != o.size()) return "size " + std::to_string(m.size()) + ", oracle " + std::to_string(o.size());
    std::size_t i = 0;
    for (const map_entry& e : m) {
        if (!(e.key == o[i].first) || !(e.val == o[i].second)) {
            err << "iteration: entry " << i << " is " << to_string(e.key) << ": " << to_string(e.val)
                << ", oracle " << to_string(o[i].first) << ": " << to_string(o[i].second);
            return err.str();
        }
        ++i;
    }
    const std::size_t n = o.size();
    for (std::size_t k = 1; k < n; ++k)
        if (!value_less{}(o[k - 1].first, o[k].first)) return "oracle keys out of order (test bug)";
    for (int k = 0; k < 4 && n > 0; ++k) {
        std::size_t p = g.index(n);
        if (!(m.key_at(p) == o[p].first) || !(m.value_at(p) == o[p].second) ||
            !(m.entry_at(p).key == o[p].first))
            return "entry_at(" + std::to_string(p) + ")";
        auto f = m.find(o[p].first);
        const value* got = m.get(o[p].first);
        if (!f || *f != p || got == nullptr || !(*got == o[p].second) || !m.contains(o[p].first))
            return "find/get/contains of present key " + to_string(o[p].first);
    }
    for (int k = 0; k < 4; ++k) {
        value p = k == 0 ? probe(g) : keys.scalar();
        auto want = oracle_find(o, p);
        auto f = m.find(p);
        if (f != want) {
            err << "find(" << to_string(p) << ") = " << (f ? std::to_string(*f) : "none") << ", oracle "
                << (want ? std::to_string(*want) : "none");
            return err.str();
        }
        if ((m.get(p) == nullptr) != !want || m.contains(p) != want.has_value()) return "get/contains(" + to_string(p) + ")";
        std::size_t below = 0;
        std::size_t upto = 0;
        for (const auto& e : o) {
            int c = cmp(e.first, p);
            below += c < 0 ? 1U : 0U;
            upto += c <= 0 ? 1U : 0U;
        }
        if (m.count_less_key(p) != below || m.count_less_equal_key(p) != upto) {
            err << "count_less_key/count_less_equal_key(" << to_string(p) << ") = " << m.count_less_key(p)
                << "/" << m.count_less_equal_key(p) << ", oracle " << below << "/" << upto;
            return err.str();
        }
    }
    // Rank: value order, ties by key (= index) order.
    auto order = rank_order(n, [&](std::size_t x) -> const value& { return o[x].second; });
    auto all = m.indexes_by_rank(0, n + 3);
    if (all != order) return "indexes_by_rank(0, n) = " + show(all) + ", oracle " + show(order);
    for (int k = 0; k < 6 && n > 0; ++k) {
        std::size_t r = k == 0 ? 0 : (k == 1 ? n - 1 : g.index(n));
        if (m.index_at_rank(r) != order[r]) return "index_at_rank(" + std::to_string(r) + ")";
        if (m.rank_of(order[r]) != r) return "rank_of(" + std::to_string(order[r]) + ")";
    }
    {
        std::size_t f = g.index(n + 2);
        std::size_t t = f + g.index(n + 2);
        auto got = m.indexes_by_rank(f, t);
        std::vector<std::size_t> want;
        for (std::size_t r = f; r < std::min(t, n); ++r) want.push_back(order[r]);
        if (got != want) return "indexes_by_rank(" + std::to_string(f) + ", " + std::to_string(t) + ")";
    }
    for (int k = 0; k < 3; ++k) {
        value p = probe(g);
        std::size_t below = 0;
        std::size_t upto = 0;
        for (const auto& e : o) {
            int c = cmp(e.second, p);
            below += c < 0 ? 1U : 0U;
            upto += c <= 0 ? 1U : 0U;
        }
        if (m.count_less_value(p) != below || m.count_less_equal_value(p) != upto) {
            err << "count_less_value/count_less_equal_value(" << to_string(p) << ") = " << m.count_less_value(p)
                << "/" << m.count_less_equal_value(p) << ", oracle " << below << "/" << upto;
            return err.str();
        }
    }
    return {};
}

// Oracle put: overwrite the value of an equivalent key (the stored key stays),
// or insert in key order.
std::pair<std::size_t, bool> oracle_put(entries& o, const value& k, const value& v) {
    auto it = std::lower_bound(o.begin(), o.end(), k,
                               [](const std::pair<value, value>& e, const value& x) { return value_less{}(e.first, x); });
    auto i = static_cast<std::size_t>(it - o.begin());
    if (it != o.end() && cmp(it->first, k) == 0) {
        it->second = v;
        return {i, false};
    }
    o.insert(it, {k, v});
    return {i, true};
}

value_gen small_values(std::uint64_t seed) {
    value_gen g(seed);
    g.small = true;
    g.max_depth = 1;
    g.max_len = 2;
    return g;
}

} // namespace

// ================================================================= value basics

TEST_CASE("construction, type predicates and accessors", "[core][value]") {
    CHECK(value{}.is_nil());
    CHECK(value{nil}.type() == value_type::nil);
    CHECK(value{true}.is_bool());
    CHECK(value{true}.as_bool());
    CHECK(value{42}.is_int());
    CHECK(value{short{-3}}.as_int() == -3);
    CHECK(value{42U}.as_int() == 42);
    CHECK(value{std::int64_t{-7}}.as_int() == -7);
    CHECK(value{std::numeric_limits<std::int64_t>::min()}.as_int() == std::numeric_limits<std::int64_t>::min());
    // uint64 is stored as its int64 bit pattern, as Aerospike's integer particle is.
    CHECK(value{std::numeric_limits<std::uint64_t>::max()}.as_int() == -1);
    CHECK(value{1.5}.is_double());
    CHECK(value{1.5F}.as_double() == 1.5);
    CHECK(value{1.5}.is_number());
    CHECK(value{1}.is_number());
    CHECK_FALSE(value{"1"}.is_number());
    CHECK(value{"text"}.is_string());
    CHECK(value{std::string("s")}.as_string() == "s");
    CHECK(value{std::string_view("sv")}.as_string() == "sv");
    CHECK(value{to_bytes("ab")}.is_bytes());
    CHECK(value{to_bytes("ab")}.as_bytes() == bytes{'a', 'b'});
    CHECK(value{list{1, 2}}.is_list());
    CHECK(value{map{{1, 2}}}.is_map());
    CHECK(value{inf}.is_inf());
    CHECK(value{wildcard}.is_wildcard());

    // type() is the rank of the type in Aerospike's order.
    CHECK(static_cast<int>(value_type::nil) < static_cast<int>(value_type::boolean));
    CHECK(static_cast<int>(value_type::map) < static_cast<int>(value_type::bytes));
    CHECK(static_cast<int>(value_type::bytes) < static_cast<int>(value_type::floating));
    CHECK(static_cast<int>(value_type::floating) < static_cast<int>(value_type::inf));
    CHECK(type_name(value_type::floating) == "double");
    CHECK(type_name(value_type::wildcard) == "WILDCARD");
    CHECK(type_name(value{map{}}.type()) == "map");

    // Every alternative exactly once, in the documented order.
    const std::vector<value> one_of_each = {nil, true, 1, "s", list{}, map{}, bytes{}, 1.0, inf, wildcard};
    for (std::size_t i = 0; i < one_of_each.size(); ++i) CHECK(static_cast<std::size_t>(one_of_each[i].type()) == i);

    // Mutable accessors.
    value s{"ab"};
    s.as_string() += "c";
    CHECK(s == value{"abc"});
    value b{bytes{1}};
    b.as_bytes().push_back(2);
    CHECK(b == value{bytes{1, 2}});
    value l{list{}};
    l.as_list().push_back(7);
    CHECK(l == value{list{7}});
    value m{map{}};
    m.as_map().put("k", 1);
    CHECK(m == value{map{{"k", 1}}});
}

TEST_CASE("a wrong-type accessor or an out-of-range position is a broken precondition",
          "[core][value]") {
    CHECK_THROWS_AS(value{"s"}.as_int(), assertion_failure);
    CHECK_THROWS_AS(value{1}.as_double(), assertion_failure); // no int -> double conversion
    CHECK_THROWS_AS(value{}.as_list(), assertion_failure);
    CHECK_THROWS_AS(value{list{}}.as_map(), assertion_failure);
    list l{1, 2};
    CHECK_THROWS_AS(l[2], assertion_failure);
    CHECK_THROWS_AS(l.insert(3, 0), assertion_failure);
    CHECK_THROWS_AS(l.erase(1, 3), assertion_failure);
    CHECK_THROWS_AS(l.index_at_rank(2), assertion_failure);
    CHECK_THROWS_AS(list{}.front(), assertion_failure);
    map m{{1, 1}};
    CHECK_THROWS_AS(m.entry_at(1), assertion_failure);
    CHECK_THROWS_AS(m.erase_range(0, 2), assertion_failure);
    CHECK_THROWS_AS(m.rank_of(5), assertion_failure);
    // Nothing changed.
    CHECK(l == list{1, 2});
    CHECK(m == map{{1, 1}});
}

TEST_CASE("printing", "[core][value]") {
    CHECK(to_string(value{}) == "nil");
    CHECK(to_string(true) == "true");
    CHECK(to_string(42) == "42");
    CHECK(to_string(-7) == "-7");
    CHECK(to_string(1.5) == "1.5");
    CHECK(to_string(1.1) == "1.1"); // shortest text that reads back exactly
    CHECK(to_string(2.0) == "2.0");
    CHECK(to_string(-0.0) == "-0.0");
    CHECK(to_string(1e300) == "1e+300");
    CHECK(to_string(std::numeric_limits<double>::infinity()) == "inf");
    CHECK(to_string(std::numeric_limits<double>::quiet_NaN()) == "nan");
    CHECK(to_string("text") == "\"text\"");
    CHECK(to_string("a\"b\\c\n\t\x01") == "\"a\\\"b\\\\c\\n\\t\\u0001\"");
    CHECK(to_string(bytes{0x0a, 0xff}) == "0x0aff");
    CHECK(to_string(bytes{}) == "0x");
    CHECK(to_string(list{1, 2}) == "[1, 2]");
    CHECK(to_string(list{}) == "[]");
    CHECK(to_string(map{{"a", 1}}) == "{\"a\": 1}");
    CHECK(to_string(map{{2, list{}}, {1, map{}}}) == "{1: {}, 2: []}");
    CHECK(to_string(inf) == "INF");
    CHECK(to_string(wildcard) == "*");
    CHECK(to_string(list{"Jim", wildcard}) == "[\"Jim\", *]");

    // operator<< writes the same text, and Catch2 uses it in failure messages.
    std::ostringstream os;
    os << value(list{1, "a"}) << ' ' << value(inf);
    CHECK(os.str() == "[1, \"a\"] INF");
    CHECK(Catch::Detail::stringify(value(map{{"k", 1.5}})) == "{\"k\": 1.5}");
}

TEST_CASE("contains_wildcard looks at every depth", "[core][value]") {
    CHECK(value{wildcard}.contains_wildcard());
    CHECK_FALSE(value{inf}.contains_wildcard());
    CHECK_FALSE(value{list{1, list{2}}}.contains_wildcard());
    CHECK(value{list{1, list{2, wildcard}}}.contains_wildcard());
    CHECK(value{map{{1, list{wildcard}}}}.contains_wildcard());
    CHECK(value{map{{wildcard, 1}}}.contains_wildcard());
    CHECK_FALSE(value{map{{1, 1}}}.contains_wildcard());
}

TEST_CASE("construction of containers", "[core][value]") {
    // An ORDERED list built from items is sorted, stably.
    list o({3, "a", 1.5, 1, value{}, 1}, list_order::ordered);
    CHECK(o.is_ordered());
    CHECK(o == list{value{}, 1, 1, 3, "a", 1.5});
    list u({3, 1}, list_order::unordered);
    CHECK(u == list{3, 1});
    CHECK(u.order() == list_order::unordered);
    // A map built from pairs: key order whatever the input order; a repeated key keeps the last value.
    map m({{"b", 1}, {2, 2}, {"b", 3}}, map_order::key_ordered);
    CHECK(m.order() == map_order::key_ordered);
    CHECK(m.size() == 2);
    CHECK(m.key_at(0) == value{2});
    CHECK(*m.get("b") == value{3});
    map e(map_order::key_value_ordered);
    CHECK(e.empty());
    CHECK(e.begin() == e.end());
    CHECK(list{}.begin() == list{}.end());
    CHECK(list{}.to_vector().empty());
    // Iterating empty containers visits nothing (both ends must meet).
    std::size_t visits = 0;
    for (const value& x : list{}) visits += 1 + to_string(x).size();
    for (const map_entry& x : map{}) visits += 1 + to_string(x.key).size();
    CHECK(visits == 0);
    // Flags and persist_index are carried but are no part of equality.
    list f{1};
    f.set_order_flag(list_order::ordered);
    f.set_persist_index(true);
    CHECK(f.persist_index());
    CHECK(f == list{1});
    map g{{1, 1}};
    g.set_order(map_order::key_value_ordered);
    g.set_persist_index(true);
    CHECK(g.persist_index());
    CHECK(g == map{{1, 1}});
}

TEST_CASE("list iterators are random access", "[core][value]") {
    for (std::size_t n : {std::size_t{10}, std::size_t{300}}) {
        list l;
        for (std::size_t i = 0; i < n; ++i) l.push_back(static_cast<std::int64_t>(i));
        // A middle insert makes a long list build its position index.
        l.insert(n / 2, -1);
        l.erase(n / 2);
        auto b = l.begin();
        auto e = l.end();
        CHECK(static_cast<std::size_t>(e - b) == n);
        CHECK(std::distance(b, e) == static_cast<std::ptrdiff_t>(n));
        CHECK(*(b + 3) == value{3});
        CHECK(b[5] == value{5});
        CHECK(*(e - 1) == value{static_cast<std::int64_t>(n - 1)});
        auto it = b;
        it += 7;
        CHECK(it - b == 7);
        CHECK(b < it);
        CHECK(it > b);
        --it;
        CHECK(*it == value{6});
        it -= 6;
        CHECK(it == b);
        CHECK(std::is_sorted(b, e, value_less{}));
        CHECK(l.to_vector().size() == n);
    }
}

// ================================================================= copy-on-write

TEST_CASE("copy, move and assignment between every pair of types", "[core][value]") {
    // One value of each type, containers nested, so every path of value's
    // copy, move, assignment and destruction (scalars inline, the others out
    // of line) runs against every other; ASan checks the lifetimes.
    const std::vector<value> samples = {
        value(),
        value(true),
        value(-7),
        value(std::string(40, 's')), // beyond the small-string buffer
        value(list{1, "two", list{3}}),
        value(map{{1, list{"a"}}, {"k", map{{2, 3.5}}}}),
        value(to_bytes("blob")),
        value(-0.0),
        value(inf),
        value(wildcard),
    };
    for (const value& a : samples) {
        INFO("a = " << a);
        value copy(a);
        CHECK(copy == a);
        value moved(std::move(copy));
        CHECK(moved == a);
        value self = a;
        const value& alias = self;
        self = alias; // self copy-assignment
        CHECK(self == a);
        for (const value& b : samples) {
            INFO("b = " << b);
            value x = a;
            x = b;
            CHECK(x == b);
            CHECK(x.type() == b.type());
            value y = a;
            value from = b;
            y = std::move(from);
            CHECK(y == b);
            value z = b;
            z = a; // and back
            CHECK(z == a);
        }
    }
    SECTION("a copy of a container shares it; assigning a scalar over it lets go of it") {
        value l = list{1, 2, 3};
        value c = l;
        CHECK(&c.as_list()[0] == &l.as_list()[0]);
        c = 5;
        CHECK(c == value(5));
        CHECK(l == value(list{1, 2, 3}));
        l.as_list().push_back(4); // sole owner again: no clone
        CHECK(l.as_list().size() == 4);
    }
    SECTION("a moved-from value stays usable") {
        value s = std::string(40, 'x');
        value t = std::move(s);
        s = 3; // assign over the moved-from string
        CHECK(s == value(3));
        CHECK(t == value(std::string(40, 'x')));
    }
}

TEST_CASE("copies share storage until one side mutates", "[core][value]") {
    SECTION("list") {
        list a;
        for (int i = 0; i < 1000; ++i) a.push_back(i);
        list b = a; // O(1): the same elements, not a copy of them
        CHECK(&a[0] == &b[0]);
        CHECK(&a[999] == &b[999]);
        b.push_back(1000);
        CHECK(a.size() == 1000);
        CHECK(b.size() == 1001);
        CHECK(&a[0] != &b[0]);
        CHECK(a[999] == value{999});
        // The other direction: mutating the original leaves the copy alone.
        list c = a;
        a.set(0, "changed");
        CHECK(c[0] == value{0});
        CHECK(a[0] == value{"changed"});
        // Every kind of mutation clones first.
        list d = c;
        d.erase(0);
        list e2 = c;
        e2.insert(500, "x");
        list f = c;
        (void)f.take(3);
        list g = c;
        g.sort(true);
        list h = c;
        h.erase(10, 20);
        list k = c;
        k.clear();
        CHECK(c.size() == 1000);
        CHECK(c[0] == value{0});
        CHECK(c[3] == value{3});
        CHECK(c[500] == value{500});
        CHECK(c[10] == value{10});
        CHECK(d.size() == 999);
        CHECK(e2[500] == value{"x"});
        CHECK(f[3].is_nil());
        CHECK(h.size() == 990);
        CHECK(k.empty());
    }
    SECTION("map") {
        map a;
        for (int i = 0; i < 1000; ++i) a.put(i, i % 7);
        map b = a;
        CHECK(&a.entry_at(0) == &b.entry_at(0));
        b.put(5000, 1);
        CHECK(&a.entry_at(0) != &b.entry_at(0));
        CHECK(a.size() == 1000);
        CHECK_FALSE(a.contains(5000));
        map c = a;
        a.set_value_at(0, "v");
        (void)a.take_value_at(1);
        a.erase_at(2);
        a.erase(3);
        a.erase_range(10, 20);
        CHECK(c.size() == 1000);
        CHECK(*c.get(0) == value{0});
        CHECK(*c.get(1) == value{1});
        CHECK(c.contains(2));
        CHECK(c.contains(3));
        CHECK(c.contains(15));
        map d = c;
        d.clear();
        CHECK(c.size() == 1000);
    }
    SECTION("value, nested") {
        value outer{list{list{1, 2}, map{{"k", list{3}}}}};
        value copy = outer; // O(1)
        CHECK(&outer.as_list()[0] == &copy.as_list()[0]);
        // Modify the nested list of the copy without cloning it twice:
        // take it out, change it, put it back.
        list& top = copy.as_list();
        value inner = top.take(0);
        inner.as_list().push_back(99);
        top.set(0, std::move(inner));
        value m = top.take(1);
        list l3 = m.as_map().get("k")->as_list();
        l3.push_back(4);
        m.as_map().put("k", l3);
        top.set(1, std::move(m));
        CHECK(outer == value{list{list{1, 2}, map{{"k", list{3}}}}});
        CHECK(copy == value{list{list{1, 2, 99}, map{{"k", list{3, 4}}}}});
    }
}

// ================================================================= list vs oracle

TEST_CASE("list against a std::vector oracle on random operation sequences", "[core][value]") {
    const std::size_t budget = test::fuzz_ops(12000);
    std::mt19937_64 seeds(test::seed_for("value/list-oracle"));
    std::size_t done = 0;
    std::size_t max_size = 0;
    std::size_t forks = 0;
    while (done < budget) {
        op_log log;
        log.seed = seeds();
        value_gen g = small_values(log.seed);
        value_gen pg = small_values(log.seed ^ 0x5bd1e995);
        const bool big = g.chance(50);
        const std::size_t target = big ? 150 : 12;
        list l;
        std::vector<value> o;
        list snap;
        std::vector<value> snap_o;
        bool has_snap = false;
        const std::size_t steps = big ? 400 : 120;
        for (std::size_t s = 0; s < steps && done < budget; ++s, ++done) {
            const std::size_t n = o.size();
            std::size_t kind = g.below(100);
            if (n < target / 2 && kind >= 40) kind = g.below(40); // grow toward the target size
            std::ostringstream op;
            if (kind < 15) {
                value v = g.any();
                op << "push_back(" << to_string(v) << ")";
                l.push_back(v);
                o.push_back(v);
            } else if (kind < 35) {
                std::size_t pos = g.index(n + 1);
                value v = g.any();
                op << "insert(" << pos << ", " << to_string(v) << ")";
                l.insert(pos, v);
                o.insert(o.begin() + static_cast<std::ptrdiff_t>(pos), v);
            } else if (kind < 40) {
                // A run of inserts at one middle spot: no free label left there.
                std::size_t pos = n / 2;
                std::size_t k = 20 + g.index(40);
                bool after = g.chance(50); // or each right after the previous
                value v = g.any();
                op << k << " x insert at " << pos << (after ? " (each after the last)" : "") << " of "
                   << to_string(v);
                for (std::size_t j = 0; j < k; ++j) {
                    std::size_t p = after ? pos + j : pos;
                    l.insert(p, v);
                    o.insert(o.begin() + static_cast<std::ptrdiff_t>(p), v);
                }
            } else if (kind < 52 && n > 0) {
                std::size_t pos = g.index(n);
                value v = g.any();
                op << "set(" << pos << ", " << to_string(v) << ")";
                l.set(pos, v);
                o[pos] = v;
            } else if (kind < 58 && n > 0) {
                std::size_t pos = g.index(n);
                op << "take(" << pos << ")";
                value t = l.take(pos);
                if (!(t == o[pos])) {
                    log.ops.push_back(op.str());
                    FAIL(log.text() << "take returned " << to_string(t) << ", oracle " << to_string(o[pos]));
                }
                o[pos] = value{};
            } else if (kind < 72 && n > 0) {
                std::size_t pos = g.index(n);
                op << "erase(" << pos << ")";
                l.erase(pos);
                o.erase(o.begin() + static_cast<std::ptrdiff_t>(pos));
            } else if (kind < 78 && n > 0) {
                std::size_t f = g.index(n + 1);
                std::size_t t = f + g.index(std::min<std::size_t>(n - f, 20) + 1);
                op << "erase(" << f << ", " << t << ")";
                l.erase(f, t);
                o.erase(o.begin() + static_cast<std::ptrdiff_t>(f), o.begin() + static_cast<std::ptrdiff_t>(t));
            } else if (kind < 82) {
                bool drop = g.chance(50);
                op << "sort(" << (drop ? "drop_duplicates" : "") << ")";
                l.sort(drop);
                sort_oracle(o, drop);
            } else if (kind < 84) {
                op << "clear()";
                l.clear();
                o.clear();
            } else if (kind < 90) {
                // Fork: a shared copy; one side goes on mutating, the other must not change.
                ++forks;
                op << "fork";
                snap = l;
                snap_o = o;
                has_snap = true;
                if (!l.empty() && &snap[0] != &l[0]) {
                    log.ops.push_back(op.str());
                    FAIL(log.text() << "a copy does not share storage");
                }
                if (g.chance(50)) {
                    std::swap(l, snap);
                    std::swap(o, snap_o);
                    op << " (continue on the copy)";
                }
            } else {
                op << "rebuild from to_vector";
                l = list(l.to_vector());
            }
            log.ops.push_back(op.str());
            max_size = std::max(max_size, o.size());
            std::string e = check_list(l, o, pg);
            if (e.empty() && has_snap) {
                if (snap.size() != snap_o.size() || !std::equal(snap.begin(), snap.end(), snap_o.begin()))
                    e = "the forked copy changed";
            }
            if (!e.empty()) FAIL(log.text() << e);
        }
    }
    CHECK(max_size >= 100);
    CHECK(forks > 0);
}

TEST_CASE("many inserts at one middle position relabel without disturbing order or ranks",
          "[core][value]") {
    value_gen pg = small_values(test::seed_for("value/relabel"));
    enum class shape { all_equal, increasing, few_values };
    for (shape sh : {shape::all_equal, shape::increasing, shape::few_values}) {
        for (bool after : {false, true}) {
            INFO("shape " << static_cast<int>(sh) << (after ? ", each after the last" : ", same spot"));
            list l;
            std::vector<value> o;
            std::int64_t next = 0;
            auto make = [&]() -> value {
                switch (sh) {
                case shape::all_equal: return value{"same"};
                case shape::increasing: return value{next++};
                default: return value{static_cast<std::int64_t>(pg.below(3))};
                }
            };
            for (int i = 0; i < 100; ++i) {
                value v = make();
                l.push_back(v);
                o.push_back(v);
            }
            const std::size_t start = 50;
            for (std::size_t k = 0; k < 3000; ++k) {
                std::size_t pos = after ? start + k : start;
                value v = make();
                l.insert(pos, v);
                o.insert(o.begin() + static_cast<std::ptrdiff_t>(pos), v);
                if (k % 500 == 499) {
                    std::string e = check_list(l, o, pg);
                    if (!e.empty()) FAIL("after " << k + 1 << " inserts: " << e);
                }
            }
            std::string e = check_list(l, o, pg);
            if (!e.empty()) FAIL(e);
            if (sh == shape::all_equal) {
                // Equal values rank by position: rank i is position i.
                for (std::size_t i = 0; i < l.size(); ++i)
                    if (l.rank_of(i) != i || l.index_at_rank(i) != i) FAIL("tie order broken at " << i);
            }
        }
    }
    SECTION("front and back runs too") {
        list l;
        std::vector<value> o;
        for (int i = 0; i < 2000; ++i) {
            value v{static_cast<std::int64_t>(i % 5)};
            std::size_t pos = i % 3 == 0 ? 0 : (i % 3 == 1 ? l.size() : l.size() / 3);
            l.insert(pos, v);
            o.insert(o.begin() + static_cast<std::ptrdiff_t>(pos), v);
        }
        std::string e = check_list(l, o, pg);
        if (!e.empty()) FAIL(e);
    }
}

TEST_CASE("list sort: stable, and drop_duplicates keeps the first of equal values",
          "[core][value]") {
    list l{3, "b", 1.0, 3, -0.0, "a", 0.0, 1};
    list s = l;
    s.sort();
    CHECK(s == list{1, 3, 3, "a", "b", -0.0, 0.0, 1.0});
    list d = l;
    d.sort(true);
    // -0.0 and 0.0 are equivalent: the first one (-0.0) stays.
    CHECK(d == list{1, 3, "a", "b", -0.0, 1.0});
    CHECK(std::signbit(d[4].as_double()));
    // Empty and one-element lists, with or without dropping.
    list e;
    e.sort(true);
    CHECK(e.empty());
    list one{5};
    one.sort(true);
    CHECK(one == list{5});
}

// ================================================================= map vs oracle

TEST_CASE("map against a sorted-vector oracle on random operation sequences", "[core][value]") {
    const std::size_t budget = test::fuzz_ops(12000);
    std::mt19937_64 seeds(test::seed_for("value/map-oracle"));
    std::size_t done = 0;
    std::size_t max_size = 0;
    std::size_t huge_size = 0;
    std::size_t overwrites = 0;
    while (done < budget) {
        op_log log;
        log.seed = seeds();
        value_gen g = small_values(log.seed);
        value_gen pg = small_values(log.seed ^ 0x5bd1e995);
        // Keys from a wider domain than values: many entries, many value ties.
        value_gen kg(log.seed ^ 0x27d4eb2f);
        kg.small = false;
        kg.max_text = 2;
        // Sizes: a leaf (12), a two-level tree (220), and - once per run - a
        // tree three levels deep (2500; nodes of 32 half full split at 16).
        const bool huge = done == 0;
        const bool big = huge || g.chance(50);
        const std::size_t target = huge ? 2500 : big ? 220 : 12;
        auto key = [&]() -> value {
            switch (kg.below(6)) {
            case 0: return value{kg.text()};
            case 1: return value{kg.floating() == 0.0 ? (kg.chance(50) ? 0.0 : -0.0) : 2.5};
            case 2: return kg.chance(50) ? value{kg.chance(50)} : value{};
            case 3: return value{list{static_cast<std::int64_t>(kg.below(3))}};
            default: return value{static_cast<std::int64_t>(kg.below(target * 2))};
            }
        };
        map m;
        entries o;
        map snap;
        entries snap_o;
        bool has_snap = false;
        const std::size_t steps = huge ? 8000 : big ? 400 : 120;
        for (std::size_t s = 0; s < steps && done < budget; ++s, ++done) {
            const std::size_t n = o.size();
            std::size_t kind = g.below(100);
            if (n < target / 2 && kind >= 45) kind = g.below(45);
            std::ostringstream op;
            if (kind < 45) {
                value k = key();
                value v = g.any();
                op << "put(" << to_string(k) << ", " << to_string(v) << ")";
                auto got = m.put(k, v);
                auto want = oracle_put(o, k, v);
                overwrites += want.second ? 0 : 1;
                if (got != want) {
                    log.ops.push_back(op.str());
                    FAIL(log.text() << "put returned (" << got.first << ", " << got.second << "), oracle ("
                                    << want.first << ", " << want.second << ")");
                }
            } else if (kind < 55 && n > 0) {
                std::size_t i = g.index(n);
                value v = g.any();
                op << "set_value_at(" << i << ", " << to_string(v) << ")";
                m.set_value_at(i, v);
                o[i].second = v;
            } else if (kind < 60 && n > 0) {
                std::size_t i = g.index(n);
                op << "take_value_at(" << i << ")";
                value t = m.take_value_at(i);
                if (!(t == o[i].second)) {
                    log.ops.push_back(op.str());
                    FAIL(log.text() << "take_value_at returned " << to_string(t));
                }
                o[i].second = value{};
            } else if (kind < 70 && n > 0) {
                std::size_t i = g.index(n);
                op << "erase_at(" << i << ")";
                m.erase_at(i);
                o.erase(o.begin() + static_cast<std::ptrdiff_t>(i));
            } else if (kind < 76 && n > 0) {
                std::size_t f = g.index(n + 1);
                std::size_t t = f + g.index(std::min<std::size_t>(n - f, huge ? 300 : 20) + 1);
                if (g.chance(50)) {
                    op << "erase_range(" << f << ", " << t << ")";
                    m.erase_range(f, t);
                    o.erase(o.begin() + static_cast<std::ptrdiff_t>(f), o.begin() + static_cast<std::ptrdiff_t>(t));
                } else {
                    // Ranks [f, t): the engine's removals by rank.
                    op << "erase_ranks(" << f << ", " << t << ")";
                    auto order = rank_order(n, [&](std::size_t x) -> const value& { return o[x].second; });
                    std::vector<bool> gone(n);
                    for (std::size_t r = f; r < t; ++r) gone[order[r]] = true;
                    detail::map_access::erase_ranks(m, f, t);
                    entries kept;
                    for (std::size_t x = 0; x < n; ++x)
                        if (!gone[x]) kept.push_back(o[x]);
                    o = std::move(kept);
                }
            } else if (kind < 86) {
                // By key: present, absent, or a WILDCARD pattern (erases the first match).
                value k = g.chance(20) ? probe(pg) : (n > 0 && g.chance(50) ? o[g.index(n)].first : key());
                op << "erase(" << to_string(k) << ")";
                auto at = oracle_find(o, k);
                bool got = m.erase(k);
                if (got != at.has_value()) {
                    log.ops.push_back(op.str());
                    FAIL(log.text() << "erase returned " << got);
                }
                if (at) o.erase(o.begin() + static_cast<std::ptrdiff_t>(*at));
            } else if (kind < 88) {
                op << "clear()";
                m.clear();
                o.clear();
            } else if (kind < 94) {
                op << "fork";
                snap = m;
                snap_o = o;
                has_snap = true;
                if (n > 0 && &snap.entry_at(0) != &m.entry_at(0)) {
                    log.ops.push_back(op.str());
                    FAIL(log.text() << "a copy does not share storage");
                }
                if (g.chance(50)) {
                    std::swap(m, snap);
                    std::swap(o, snap_o);
                    op << " (continue on the copy)";
                }
            } else {
                // Rebuild in reverse insertion order: same map.
                op << "rebuild in reverse";
                std::vector<std::pair<value, value>> items;
                for (const map_entry& e : m) items.emplace_back(e.key, e.val);
                std::reverse(items.begin(), items.end());
                map r(items, map_order::key_value_ordered);
                if (!(value{r} == value{m})) {
                    log.ops.push_back(op.str());
                    FAIL(log.text() << "rebuilt map differs");
                }
                m = r;
            }
            log.ops.push_back(op.str());
            max_size = std::max(max_size, o.size());
            if (huge) huge_size = std::max(huge_size, o.size());
            std::string e = huge && s % 50 != 0 ? std::string() : check_map(m, o, pg, kg);
            if (e.empty() && (!huge || s % 50 == 0) && !detail::map_access::check(m))
                e = "the map's trees are broken";
            if (e.empty() && has_snap) {
                if (snap.size() != snap_o.size()) e = "the forked copy changed size";
                std::size_t i = 0;
                for (const map_entry& x : snap)
                    if (e.empty() && (!(x.key == snap_o[i].first) || !(x.val == snap_o[i++].second)))
                        e = "the forked copy changed";
            }
            if (!e.empty()) FAIL(log.text() << e);
        }
    }
    CHECK(max_size >= 100);
    // The huge map grew three levels deep (over 32 leaves of at most 32).
    CHECK(huge_size > 1024);
    CHECK(overwrites > 0);
}

TEST_CASE("map: equal values rank by key; equivalent keys are one key", "[core][value]") {
    map m;
    for (int k : {5, 1, 4, 2, 3}) m.put(k, "same");
    for (std::size_t i = 0; i < 5; ++i) {
        CHECK(m.rank_of(i) == i);
        CHECK(m.index_at_rank(i) == i);
    }
    m.put("a", 1);
    m.put(bytes{1}, 1);
    // §13: "a"->1 ranks before <bytes>->1 (key order), both below the strings.
    CHECK(m.indexes_by_rank(0, 2) == std::vector<std::size_t>{5, 6});
    // 0.0 and -0.0 are the same key: the second put overwrites, the key stays.
    map d;
    CHECK(d.put(0.0, 1) == std::pair<std::size_t, bool>{0, true});
    CHECK(d.put(-0.0, 2) == std::pair<std::size_t, bool>{0, false});
    CHECK(d.size() == 1);
    CHECK_FALSE(std::signbit(d.key_at(0).as_double()));
    CHECK(*d.get(-0.0) == value{2});
    // Integers and doubles are different keys.
    d.put(0, 3);
    CHECK(d.size() == 2);
    CHECK(d.key_at(0) == value{0});
}

TEST_CASE("map: WILDCARD keys are stored exactly; WILDCARD probes match", "[core][value]") {
    map m{{list{1, 2}, "a"}, {list{1, 3}, "b"}, {list{2, 0}, "c"}};
    // A probe with a wildcard finds the first matching key.
    CHECK(m.find(list{1, wildcard}) == std::optional<std::size_t>{0});
    CHECK(m.count_less_key(list{1, wildcard}) == 0);
    CHECK(m.count_less_equal_key(list{1, wildcard}) == 2);
    CHECK(m.count_less_equal_key(wildcard) == 3);
    // put does not treat a wildcard as a pattern: [1, *] is a new key.
    auto [at, inserted] = m.put(list{1, wildcard}, "w");
    CHECK(inserted);
    CHECK(m.size() == 4);
    CHECK(*m.get(list{1, 2}) == value{"a"});
    CHECK(m.key_at(at) == value{list{1, wildcard}});
    // Putting the same pattern again overwrites that entry only.
    CHECK(m.put(list{1, wildcard}, "w2") == std::pair<std::size_t, bool>{at, false});
    CHECK(m.size() == 4);
}

// ================================================================= hashing

TEST_CASE("hashing is consistent with ==", "[core][value]") {
    INFO("seed " << test::seed() << " (KVMODEL_SEED to replay)");
    value_gen g(test::seed_for("value/hash"));
    g.allow_inf = true;
    g.wildcard_pct = 2;
    g.flags = true;
    std::vector<value> pool;
    for (int i = 0; i < 300; ++i) {
        value v = g.chance(30) ? [&] {
            value_gen s = small_values(g.rng()());
            return s.any();
        }()
                               : g.any();
        pool.push_back(v);
        // Equal values built differently: a copy, a map rebuilt in another
        // order with other flags, a list with other flags.
        pool.push_back(v);
        if (v.is_map()) {
            std::vector<std::pair<value, value>> items;
            for (const map_entry& e : v.as_map()) items.emplace_back(e.key, e.val);
            std::reverse(items.begin(), items.end());
            pool.push_back(value{map(items, map_order::unordered)});
        }
        if (v.is_list()) {
            list l(v.as_list().to_vector());
            l.set_persist_index(!v.as_list().persist_index());
            pool.push_back(value{l});
        }
    }
    std::hash<value> h;
    std::size_t equal_pairs = 0;
    for (const value& a : pool)
        for (const value& b : pool)
            if (a == b) {
                ++equal_pairs;
                if (h(a) != h(b)) FAIL("equal values hash differently: " << to_string(a));
            }
    CHECK(equal_pairs > pool.size());
    // unordered_set agrees with ==.
    std::unordered_set<value> set(pool.begin(), pool.end());
    std::vector<value> distinct;
    for (const value& v : pool)
        if (std::none_of(distinct.begin(), distinct.end(), [&](const value& d) { return d == v; }))
            distinct.push_back(v);
    CHECK(set.size() == distinct.size());
}

TEST_CASE("== is exact: types, doubles bitwise at every depth, WILDCARD only equals WILDCARD",
          "[core][value]") {
    CHECK_FALSE(value{1} == value{1.0});
    CHECK_FALSE(value{0.0} == value{-0.0});
    CHECK_FALSE(value{list{0.0}} == value{list{-0.0}}); // compare() calls them equivalent
    CHECK(cmp(list{0.0}, list{-0.0}) == 0);
    CHECK_FALSE(value{map{{1, 0.0}}} == value{map{{1, -0.0}}});
    CHECK(value{list{std::numeric_limits<double>::quiet_NaN()}} ==
          value{list{std::numeric_limits<double>::quiet_NaN()}});
    CHECK_FALSE(value{wildcard} == value{5});
    CHECK(value{wildcard} == value{wildcard});
    CHECK_FALSE(value{list{1, wildcard}} == value{list{1, 2}});
    CHECK_FALSE(value{"a"} == value{bytes{'a'}});
    CHECK_FALSE(value{false} == value{0});
    CHECK_FALSE(value{value{}} == value{list{}});
    CHECK(value{inf} == value{inf});
    CHECK_FALSE(value{list{1}} == value{list{1, 1}});
    CHECK_FALSE(value{map{{1, 1}}} == value{map{{1, 1}, {2, 2}}});
}

} // namespace core_value_test
