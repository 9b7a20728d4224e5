// tests/core/order_test.cpp
//
// compare(): Aerospike's CDT order (AEROSPIKE-CDT.md §1, §13).
//  - property tests over random nested values: a strict weak order, total on
//    non-wildcard values; agreement with an independent model of the server's
//    comparison (aerospike-server cf/src/msgpack_in.c msgpack_cmp_internal),
//    which walks both msgpack streams element by element in pre-order;
//  - WILDCARD probes split every sorted sequence into below / matching / above,
//    which the containers' lower_bound/upper_bound rely on;
//  - every example of the rule book, written out.
#include <kvmodel/core/order.hpp>

#include "random_value.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace core_order_test {

using namespace kvmodel;
using kvmodel::test::value_gen;

namespace {

int sign(std::weak_ordering o) {
    return o < 0 ? -1 : (o > 0 ? 1 : 0);
}
int cmp(const value& a, const value& b) {
    return sign(compare(a, b));
}

// ---- the model of the server's comparison ------------------------------------
// The server compares two msgpack buffers as flat pre-order streams. Types are
// ranked by its msgpack_type enum: NIL < FALSE < TRUE < NEGINT < INT < STRING <
// LIST < MAP < BYTES < DOUBLE < GEOJSON < EXT < WILDCARD < INF. Integers of the
// same kind compare as unsigned 64-bit. Strings and blobs compare their bytes
// INCLUDING the particle-type prefix, then length. A list of equal length
// extends the walk by its elements; of unequal length it cuts the walk to its
// shared prefix and remembers which is shorter. A map compares its element
// count first (2 per entry), then extends the walk. A WILDCARD anywhere ends
// the whole comparison as EQUAL.
enum token_type : int {
    t_nil = 1, t_false, t_true, t_negint, t_int, t_string, t_list, t_map, t_bytes,
    t_double, t_geojson, t_ext, t_wildcard, t_inf
};

struct token {
    int type = 0;
    std::uint64_t u = 0;
    double d = 0;
    std::string raw;     // with the particle-type prefix
    std::size_t len = 0; // list elements, or 2 x map entries
};

void flatten(const value& v, std::vector<token>& out) {
    token t;
    switch (v.type()) {
    case value_type::nil: t.type = t_nil; break;
    case value_type::boolean: t.type = v.as_bool() ? t_true : t_false; break;
    case value_type::integer:
        t.type = v.as_int() < 0 ? t_negint : t_int;
        t.u = static_cast<std::uint64_t>(v.as_int());
        break;
    case value_type::floating: t.type = t_double; t.d = v.as_double(); break;
    case value_type::string:
        t.type = t_string;
        t.raw = '\x03' + v.as_string();
        break;
    case value_type::bytes:
        t.type = t_bytes;
        t.raw = '\x04' + std::string(v.as_bytes().begin(), v.as_bytes().end());
        break;
    case value_type::inf: t.type = t_inf; break;
    case value_type::wildcard: t.type = t_wildcard; break;
    case value_type::list:
        t.type = t_list;
        t.len = v.as_list().size();
        out.push_back(t);
        for (const value& e : v.as_list()) flatten(e, out);
        return;
    case value_type::map:
        t.type = t_map;
        t.len = 2 * v.as_map().size();
        out.push_back(t);
        for (const map_entry& e : v.as_map()) {
            flatten(e.key, out);
            flatten(e.val, out);
        }
        return;
    }
    out.push_back(std::move(t));
}

int model_compare(const std::vector<token>& a, const std::vector<token>& b) {
    std::size_t walk = 1;
    int end_result = 0;
    for (std::size_t i = 0; i < walk; ++i) {
        const token& x = a[i];
        const token& y = b[i];
        if (x.type == t_wildcard || y.type == t_wildcard) return 0;
        if (x.type != y.type) return x.type < y.type ? -1 : 1;
        switch (x.type) {
        case t_negint:
        case t_int:
            if (x.u != y.u) return x.u < y.u ? -1 : 1;
            break;
        case t_string:
        case t_bytes: {
            std::size_t n = std::min(x.raw.size(), y.raw.size());
            int c = std::memcmp(x.raw.data(), y.raw.data(), n);
            if (c != 0) return c < 0 ? -1 : 1;
            if (x.raw.size() != y.raw.size()) return x.raw.size() < y.raw.size() ? -1 : 1;
            break;
        }
        case t_double: {
            // The server's `<` / `>` makes NaN equal to every double, which is
            // no order at all; kvmodel ranks NaN above every number and equal
            // to NaN (order.hpp), and the model follows kvmodel there.
            bool nx = std::isnan(x.d);
            bool ny = std::isnan(y.d);
            if (nx || ny) {
                if (nx != ny) return nx ? 1 : -1;
                break;
            }
            if (x.d != y.d) return x.d < y.d ? -1 : 1;
            break;
        }
        case t_list:
            if (x.len == y.len) {
                walk += x.len;
            } else {
                end_result = x.len < y.len ? -1 : 1;
                walk = i + 1 + std::min(x.len, y.len);
            }
            break;
        case t_map:
            if (x.len != y.len) return x.len < y.len ? -1 : 1;
            walk += x.len;
            break;
        default: break;
        }
    }
    return end_result;
}

int model(const value& a, const value& b) {
    std::vector<token> x;
    std::vector<token> y;
    flatten(a, x);
    flatten(b, y);
    return model_compare(x, y);
}

// A pool of non-wildcard values with many equal and near-equal members.
std::vector<value> make_pool(value_gen& g, std::size_t n) {
    std::vector<value> pool;
    pool.reserve(n);
    while (pool.size() < n) {
        switch (g.below(10)) {
        case 0:
            if (!pool.empty()) {
                pool.push_back(pool[g.index(pool.size())]); // a copy
                break;
            }
            [[fallthrough]];
        case 1: {
            // A small-domain value: collisions with other pool members.
            bool was = g.small;
            g.small = true;
            pool.push_back(g.any());
            g.small = was;
            break;
        }
        case 2:
            if (!pool.empty()) {
                // An equal map built in another insertion order, or a list
                // that differs only in its last element or length.
                const value& src = pool[g.index(pool.size())];
                if (src.is_map()) {
                    std::vector<map_entry> es(src.as_map().begin(), src.as_map().end());
                    std::reverse(es.begin(), es.end());
                    map m(map_order::key_value_ordered);
                    for (auto& e : es) m.put(e.key, e.val);
                    pool.push_back(value{m});
                    break;
                }
                if (src.is_list()) {
                    list l = src.as_list();
                    if (g.chance(50) && !l.empty()) l.erase(l.size() - 1);
                    else l.push_back(g.scalar());
                    pool.push_back(value{l});
                    break;
                }
            }
            [[fallthrough]];
        default: pool.push_back(g.any()); break;
        }
    }
    return pool;
}

} // namespace

TEST_CASE("compare is a strict weak order, total on non-wildcard values", "[core][order]") {
    const auto seed = test::seed_for("order/strict-weak");
    INFO("seed " << test::seed() << " (KVMODEL_SEED to replay)");
    value_gen g(seed);
    g.allow_inf = true;
    g.max_len = 4;
    const std::size_t n = std::max<std::size_t>(64, test::fuzz_ops(400));
    std::vector<value> pool = make_pool(g, n);
    std::vector<std::vector<token>> streams(pool.size());
    for (std::size_t i = 0; i < pool.size(); ++i) flatten(pool[i], streams[i]);
    std::size_t comparisons = 0;

    // Every ordered pair: irreflexive, antisymmetric, and the same answer as
    // the model of the server's stream comparison.
    for (std::size_t i = 0; i < pool.size(); ++i) {
        for (std::size_t j = 0; j < pool.size(); ++j) {
            int ab = cmp(pool[i], pool[j]);
            int ba = cmp(pool[j], pool[i]);
            comparisons += 2;
            int server = model_compare(streams[i], streams[j]);
            if (ab != -ba || ab != server || (i == j && ab != 0)) {
                INFO("a = " << to_string(pool[i]));
                INFO("b = " << to_string(pool[j]));
                CHECK(ab == -ba);
                CHECK(ab == server);
                CHECK((i != j || ab == 0));
                FAIL("order property broken");
            }
            // Equality implies equivalence.
            if (pool[i] == pool[j] && ab != 0) FAIL("equal values compare unequal: " << to_string(pool[i]));
        }
    }

    // Sorting by value_less gives a sequence every later element of which is
    // not below any earlier one.
    std::vector<value> sorted = pool;
    std::stable_sort(sorted.begin(), sorted.end(), value_less{});
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        for (std::size_t j = i + 1; j < sorted.size(); ++j) {
            ++comparisons;
            if (cmp(sorted[i], sorted[j]) > 0)
                FAIL("sorted order broken: " << to_string(sorted[i]) << " > " << to_string(sorted[j]));
        }
    }

    // Random triples: < and equivalence are transitive, and they combine.
    const std::size_t triples = 40000;
    for (std::size_t t = 0; t < triples; ++t) {
        const value& a = pool[g.index(pool.size())];
        const value& b = pool[g.index(pool.size())];
        const value& c = pool[g.index(pool.size())];
        int ab = cmp(a, b);
        int bc = cmp(b, c);
        int ac = cmp(a, c);
        comparisons += 3;
        bool ok = true;
        if (ab < 0 && bc < 0) ok = ac < 0;
        if (ab == 0 && bc == 0) ok = ok && ac == 0;
        if (ab < 0 && bc == 0) ok = ok && ac < 0;
        if (ab == 0 && bc < 0) ok = ok && ac < 0;
        if (!ok)
            FAIL("transitivity broken: " << to_string(a) << " / " << to_string(b) << " / "
                                         << to_string(c));
    }
    INFO("comparisons " << comparisons);
    CHECK(comparisons >= 100000);
    WARN("order: " << comparisons << " comparisons over " << pool.size() << " values, seed "
                   << test::seed());
}

TEST_CASE("WILDCARD probes agree with the server model and split sorted values in three runs",
          "[core][order]") {
    INFO("seed " << test::seed() << " (KVMODEL_SEED to replay)");
    value_gen g(test::seed_for("order/wildcard"));
    g.max_len = 4;
    std::vector<value> pool = make_pool(g, 250);
    std::stable_sort(pool.begin(), pool.end(), value_less{});

    value_gen pg(test::seed_for("order/wildcard-patterns"));
    pg.max_len = 3;
    std::size_t patterns = 0;
    for (int k = 0; k < 300; ++k) {
        pg.wildcard_pct = 10 + static_cast<int>(pg.below(30));
        // Patterns shaped like the pool's values, with wildcards inside.
        value p = pg.chance(30) ? pool[pg.index(pool.size())] : pg.any();
        if (pg.chance(50) && p.is_list()) {
            list l = p.as_list();
            l.insert(pg.index(l.size() + 1), value{wildcard});
            p = value{l};
        }
        if (!p.contains_wildcard()) {
            // Still a wildcard pattern: inside a list, or as a map's value.
            if (pg.chance(50) || !p.is_map() || p.as_map().empty()) {
                p = value{list{p, wildcard}};
            } else {
                map m = p.as_map();
                m.set_value_at(pg.index(m.size()), value{wildcard});
                p = value{m};
            }
        }
        ++patterns;
        int prev = -1;
        for (const value& x : pool) {
            int c = cmp(x, p);
            REQUIRE(c == -cmp(p, x));
            if (c != model(x, p)) FAIL("model disagrees: " << to_string(x) << " vs " << to_string(p));
            if (c < prev)
                FAIL("pattern " << to_string(p) << " is not monotone over sorted values at "
                                << to_string(x));
            prev = c;
        }
    }
    CHECK(patterns == 300);
}

TEST_CASE("cross-type order NIL < BOOL < INT < STRING < LIST < MAP < BYTES < DOUBLE < INF",
          "[core][order]") {
    const std::vector<value> ladder = {
        value{},
        value{false},
        value{true},
        value{std::numeric_limits<std::int64_t>::min()},
        value{-1},
        value{0},
        value{std::numeric_limits<std::int64_t>::max()},
        value{""},
        value{"\xff\xff"},
        value{list{}},
        value{list{value{"z"}, value{list{}}}},
        value{map{}},
        value{map{{value{1}, value{1}}}},
        value{bytes{}},
        value{bytes{0xff}},
        value{-std::numeric_limits<double>::infinity()},
        value{-1.0},
        value{0.0},
        value{1.1},
        value{std::numeric_limits<double>::infinity()},
        value{std::numeric_limits<double>::quiet_NaN()},
        value{inf},
    };
    for (std::size_t i = 0; i < ladder.size(); ++i)
        for (std::size_t j = 0; j < ladder.size(); ++j) {
            INFO(to_string(ladder[i]) << " vs " << to_string(ladder[j]));
            CHECK(cmp(ladder[i], ladder[j]) == (i < j ? -1 : (i > j ? 1 : 0)));
        }
}

// Every example below that goes beyond the rule book's own was also run on a
// real 8.1.2 server (ORDERED lists sorting the values, get_by_value with
// WILDCARD patterns): the map entry-by-entry rule, count first, the cross-type
// ladder, [] < [1] < [1, nil] < [[1], 5], unsigned bytes, 0.0 == -0.0.
TEST_CASE("rule book examples (AEROSPIKE-CDT.md §1, §13)", "[core][order]") {
    SECTION("False < True < 1 (booleans below every integer)") {
        CHECK(cmp(false, true) < 0);
        CHECK(cmp(true, 1) < 0);
        CHECK(cmp(true, std::numeric_limits<std::int64_t>::min()) < 0);
        CHECK(cmp(false, 0) < 0);
    }
    SECTION("sorted [1.1, {1:1}, \"7\", 9, 5, 3] is 3, 5, 9, \"7\", {1:1}, 1.1") {
        std::vector<value> v = {1.1, map{{1, 1}}, "7", 9, 5, 3};
        std::stable_sort(v.begin(), v.end(), value_less{});
        std::vector<value> want = {3, 5, 9, "7", map{{1, 1}}, 1.1};
        CHECK(v == want);
    }
    SECTION("DOUBLE above MAP, STRING and every INTEGER; STRING < LIST < MAP; INTEGER < MAP") {
        CHECK(cmp(std::numeric_limits<std::int64_t>::max(), -1e300) < 0);
        CHECK(cmp(map{{1, 1}}, 0.0) < 0);
        CHECK(cmp("zzz", 0.0) < 0);
        CHECK(cmp("zzz", list{}) < 0);
        CHECK(cmp(list{"zzz", 9}, map{}) < 0);
        CHECK(cmp(1000, map{}) < 0);
        CHECK(cmp(map{{"a", 1}}, bytes{}) < 0);
        CHECK(cmp(bytes{0xff, 0xff}, -1e300) < 0);
    }
    SECTION("strings and bytes: unsigned bytes, then length") {
        CHECK(cmp("aa", "b") < 0);
        CHECK(cmp("friend", "hi") < 0);
        CHECK(cmp("hey", "hi") < 0);
        CHECK(cmp("a", "aa") < 0);
        CHECK(cmp("", "a") < 0);
        CHECK(cmp("\x7f", "\x80") < 0); // unsigned
        CHECK(cmp("z", "\xc3\xa9") < 0);
        CHECK(cmp(bytes{0x01}, bytes{0x80}) < 0);
        CHECK(cmp(bytes{0x80}, bytes{0x80, 0x00}) < 0);
        CHECK(cmp(bytes{}, bytes{0x00}) < 0);
    }
    SECTION("lists element by element, then length: [1,2] < [1,2,1]") {
        CHECK(cmp(list{1, 2}, list{1, 2, 1}) < 0);
        CHECK(cmp(list{1, 3}, list{1, 2, 1}) > 0);
        CHECK(cmp(list{}, list{value{}}) < 0);
        CHECK(cmp(list{list{1}}, list{list{1, 0}}) < 0);
        CHECK(cmp(list{list{1, 2}, 0}, list{list{1, 2}, 0}) == 0);
    }
    SECTION("maps: entry count first, then key by key with its value, in key order") {
        CHECK(cmp(map{{"key121", 5}}, map{{"key111", 1}}) > 0);
        // A 3-entry map ranks above any 2-entry map.
        CHECK(cmp(map{{1, 1}, {2, 2}, {3, 3}}, map{{"z", "z"}, {"zz", list{}}}) > 0);
        CHECK(cmp(map{}, map{{value{}, value{}}}) < 0);
        // Same count: the first differing key decides, whatever the values.
        CHECK(cmp(map{{1, 100}, {5, 0}}, map{{2, 0}, {3, 0}}) < 0);
        // Entry by entry, each key then its value: the server walks both maps
        // as one stream k0 v0 k1 v1 ... (msgpack_cmp_internal), so a value can
        // decide before a later key does. (Reading the docs' "each key in
        // order, then map values" as "all keys first" would say LESS here.)
        CHECK(cmp(map{{1, 9}, {2, 0}}, map{{1, 0}, {3, 0}}) > 0);
        // Same keys: the values, in key order.
        CHECK(cmp(map{{1, 1}, {2, 9}}, map{{1, 2}, {2, 0}}) < 0);
        CHECK(cmp(map{{1, 1}, {2, 9}}, map{{1, 1}, {2, 10}}) < 0);
        // Insertion order and order flags do not matter.
        map a(map_order::key_value_ordered);
        a.put(2, "b");
        a.put(1, "a");
        map b;
        b.put(1, "a");
        b.put(2, "b");
        CHECK(cmp(a, b) == 0);
    }
    SECTION("integers and doubles never compare equal (§13)") {
        CHECK(cmp(1, 1.0) < 0);
        CHECK(cmp(2, 1.0) < 0);
        CHECK(cmp(std::numeric_limits<std::int64_t>::max(), -std::numeric_limits<double>::infinity()) < 0);
        // In [1, 1.0, 2, 2.5] the interval [1, 2.0) holds 1, 1.0 and 2.
        std::vector<value> v = {1, 1.0, 2, 2.5};
        std::vector<value> in;
        for (const value& x : v)
            if (cmp(x, 1) >= 0 && cmp(x, 2.0) < 0) in.push_back(x);
        CHECK(in == std::vector<value>{1, 1.0, 2});
    }
    SECTION("intervals are type-sensitive (§4 rule 16)") {
        auto select = [](const std::vector<value>& v, const value& begin, const value& end) {
            std::vector<value> out;
            for (const value& x : v)
                if (cmp(x, begin) >= 0 && cmp(x, end) < 0) out.push_back(x);
            return out;
        };
        // [1, 4) holds integers only: no booleans, no doubles.
        CHECK(select({true, 1, 2, 3.5, 4, "2", false, 3}, 1, 4) == std::vector<value>{1, 2, 3});
        // ["a", "c") over a mixed list holds the strings in it only.
        CHECK(select({"are", 1, "cat", list{"a"}, "b", bytes{'a'}}, "a", "c") ==
              std::vector<value>{"are", "b"});
    }
    SECTION("WILDCARD equals anything and ends the comparison") {
        CHECK(cmp(list{"Jim", wildcard}, list{"Jim", 95}) == 0);
        CHECK(cmp(list{"Jim", wildcard}, list{"Joe", 95}) < 0);
        CHECK(cmp(list{1, wildcard}, list{1, "d", "e"}) == 0);      // longer lists too
        CHECK(cmp(list{1, wildcard}, list{1}) > 0);                 // but not shorter ones
        CHECK(cmp(list{1, wildcard, 5}, list{1, "d", "e", 9}) == 0); // nothing after * counts
        CHECK(cmp(wildcard, value{}) == 0);
        CHECK(cmp(wildcard, inf) == 0);
        CHECK(cmp(value{map{{"a", 1}}}, wildcard) == 0);
        CHECK(cmp(list{list{1, wildcard}, 7}, list{list{1, 2, 3}, 0}) == 0);
        // A map's entry count is compared before any wildcard inside it.
        CHECK(cmp(map{{1, wildcard}}, map{{1, 1}, {2, 2}}) < 0);
        CHECK(cmp(map{{1, wildcard}}, map{{1, list{1, 2}}}) == 0);
        CHECK(cmp(map{{wildcard, 0}}, map{{"x", 1}}) == 0);
    }
    SECTION("NIL below, INF above everything; [1, nil] <= x < [1, INF] selects lists starting with 1") {
        value_gen g(test::seed_for("order/nil-inf"));
        for (int i = 0; i < 2000; ++i) {
            value x = g.any();
            CHECK(cmp(value{}, x) <= 0);
            CHECK(cmp(x, inf) < 0);
        }
        std::vector<value> v = {list{1},      list{1, 2},  list{0, 9}, list{2},     list{1, list{}},
                                list{},       list{1, inf}, 1,          list{1.0, 1}, list{1, value{}}};
        std::vector<value> in;
        for (const value& x : v)
            if (cmp(x, list{1, value{}}) >= 0 && cmp(x, list{1, inf}) < 0) in.push_back(x);
        CHECK(in == std::vector<value>{list{1, 2}, list{1, list{}}, list{1, value{}}});
        // [1] itself is below [1, nil] (shorter), which is how Aerospike's own
        // examples behave: they select lists with at least two elements.
        CHECK(cmp(list{1}, list{1, value{}}) < 0);
    }
    SECTION("mixed key types in key order: 1, 3, \"a\", \"b\", <bytes> (§13)") {
        std::vector<value> v = {bytes{1}, "b", 3, "a", 1};
        std::stable_sort(v.begin(), v.end(), value_less{});
        CHECK(v == std::vector<value>{1, 3, "a", "b", bytes{1}});
    }
}

TEST_CASE("doubles: 0.0 and -0.0 are equivalent, NaN sits above every number", "[core][order]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf_d = std::numeric_limits<double>::infinity();
    // The server compares doubles with < and >, so 0.0 and -0.0 are one key.
    CHECK(cmp(0.0, -0.0) == 0);
    CHECK_FALSE(value{0.0} == value{-0.0}); // but operator== is exact
    // Departure (documented in order.hpp): the server lets NaN compare equal to
    // every double; kvmodel keeps a strict weak order by ranking NaN above +inf.
    // Seen on 8.1.2: get_by_value(NaN) on [2.0, NaN, 1.0, inf] selects all four,
    // and an ORDERED list sorts NaN wherever insertion left it ([-1, 1, 2, NaN, inf]).
    CHECK(cmp(nan, inf_d) > 0);
    CHECK(cmp(nan, -inf_d) > 0);
    CHECK(cmp(nan, nan) == 0);
    CHECK(cmp(nan, inf) < 0);
    CHECK(value{nan} == value{nan});
}

TEST_CASE("value_less is the order without wildcard matching", "[core][order]") {
    value_less less;
    // compare() matches WILDCARD; value_less must not, or containers break.
    CHECK(cmp(wildcard, 5) == 0);
    CHECK(less(5, wildcard));
    CHECK_FALSE(less(wildcard, 5));
    CHECK(less(inf, wildcard));
    CHECK(less(list{1, 2}, list{1, wildcard}));
    CHECK_FALSE(less(list{1, wildcard}, list{1, wildcard}));
}

} // namespace core_order_test
