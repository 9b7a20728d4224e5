// Unit tests of the list engine (cdt/detail/list_engine.hpp) through
// cdt::apply and the list_ops builders: every list operation, return type,
// write flag and order, with the rule book's examples (AEROSPIKE-CDT.md §3-§9,
// §13) and the server paths the engine reproduces. Where the server's code
// (aerospike-server as/src/base/particle_list.c, cdt.c) answers differently
// from the rule book, the test says so and follows the server.
#include <kvmodel/cdt/engine.hpp>
#include <kvmodel/cdt/list_ops.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace cdt_list_engine_test {

using namespace kvmodel;
namespace lo = kvmodel::cdt::list_ops;
using cdt::op;
using rt = kvmodel::cdt::return_type;
namespace wf = kvmodel::cdt::list_write_flags;

namespace {

value L(std::vector<value> v) {
    return value(list(std::move(v)));
}
value OL(std::vector<value> v) {
    return value(list(std::move(v), list_order::ordered));
}

/// Order and persisted-index flags too, at every depth.
bool same(const value& a, const value& b) {
    if (!(a == b))
        return false;
    if (a.is_list()) {
        if (a.as_list().order() != b.as_list().order() ||
            a.as_list().persist_index() != b.as_list().persist_index())
            return false;
        for (std::size_t i = 0; i < a.as_list().size(); ++i)
            if (!same(a.as_list()[i], b.as_list()[i]))
                return false;
    }
    return true;
}
bool same(const std::optional<value>& a, const std::optional<value>& b) {
    return a.has_value() == b.has_value() && (!a || same(*a, *b));
}

/// Applies o; the op must succeed. Returns its result.
value ok(std::optional<value>& bin, const op& o, std::size_t limit = 1048576) {
    result<value> r = cdt::apply(bin, o, limit);
    INFO(cdt::op_name(o.code) << ": " << (r ? std::string("ok") : r.error().message));
    REQUIRE(r.has_value());
    return *r;
}
/// Applies o; the op must fail and leave the bin exactly as it was.
status fails(std::optional<value>& bin, const op& o, std::size_t limit = 1048576) {
    std::optional<value> before = bin;
    result<value> r = cdt::apply(bin, o, limit);
    REQUIRE_FALSE(r.has_value());
    CHECK(same(bin, before));
    CHECK_FALSE(r.error().message.empty());
    return r.error().code;
}
value run_on(value initial, const op& o) {
    std::optional<value> b = std::move(initial);
    return ok(b, o);
}

const std::int64_t i64max = std::numeric_limits<std::int64_t>::max();
const std::int64_t i64min = std::numeric_limits<std::int64_t>::min();

} // namespace

TEST_CASE("absent bin: reads answer nil, removes do nothing, writes create", "[cdt][list_engine]") {
    std::optional<value> b;
    CHECK(ok(b, lo::size()).is_nil());
    CHECK(ok(b, lo::get(0)).is_nil());
    CHECK(ok(b, lo::get_by_rank_range(0, 3, rt::value)).is_nil());
    CHECK(ok(b, lo::remove_by_index(0, rt::value)).is_nil());
    CHECK(ok(b, lo::pop(0)).is_nil());
    CHECK(ok(b, lo::clear()).is_nil());
    CHECK(ok(b, lo::trim(0, 1)).is_nil());
    CHECK_FALSE(b.has_value());
    // sort has nothing to sort: BIN_TYPE_ERROR (server: list_sort on a dead bin).
    CHECK(fails(b, lo::sort()) == status::bin_type_error);

    CHECK(ok(b, lo::append(5)) == value(1));
    CHECK(same(*b, L({5})));

    std::optional<value> o;
    CHECK(ok(o, lo::append_items({3, 1, 2}, lo::policy(list_order::ordered))) == value(3));
    CHECK(same(*o, OL({1, 2, 3})));

    // insert creates UNORDERED whatever the policy (its wire form has no order).
    std::optional<value> p;
    CHECK(ok(p, lo::insert(3, "x", lo::policy(list_order::ordered))) == value(4));
    CHECK(same(*p, L({value(), value(), value(), "x"})));

    std::optional<value> s;
    CHECK(ok(s, lo::set(2, "y")).is_nil());
    CHECK(same(*s, L({value(), value(), "y"})));

    std::optional<value> inc;
    CHECK(ok(inc, lo::increment(7, 2)) == value(2));
    CHECK(same(*inc, L({value(), value(), value(), value(), value(), value(), value(), 2})));

    std::optional<value> ord;
    CHECK(ok(ord, lo::set_order(list_order::ordered)).is_nil());
    CHECK(same(*ord, OL({})));

    // A no-op write still leaves the (empty) list the server installed.
    std::optional<value> e;
    CHECK(ok(e, lo::append_items({})) == value(0));
    CHECK(same(*e, L({})));
    std::optional<value> nb;
    CHECK(
        ok(nb,
           lo::insert(2, 1, lo::policy(list_order::unordered, wf::insert_bounded | wf::no_fail))) ==
        value(0));
    CHECK(same(*nb, L({})));
    CHECK(fails(nb, lo::insert(-1, 1)) == status::op_not_applicable); // before the start of []
}

TEST_CASE("a bin of another type: BIN_TYPE_ERROR, untouched", "[cdt][list_engine]") {
    std::optional<value> m = value(map{{"a", 1}});
    CHECK(fails(m, lo::append(1)) == status::bin_type_error);
    CHECK(fails(m, lo::get_by_index(0, rt::value)) == status::bin_type_error);
    CHECK(fails(m, lo::remove_by_index(0, rt::value)) == status::bin_type_error);
    CHECK(fails(m, lo::size()) == status::bin_type_error);
    std::optional<value> i = value(7);
    CHECK(fails(i, lo::clear()) == status::bin_type_error);
    CHECK(fails(i, lo::sort()) == status::bin_type_error);
}

TEST_CASE("index and count arithmetic (§3)", "[cdt][list_engine]") {
    value seven = L({0, 1, 2, 3, 4, 5, 6});
    CHECK(run_on(seven, lo::get_by_index_range(100, 101, rt::value)) == L({}));
    CHECK(run_on(seven, lo::get_range(6, 4)) == L({6}));
    CHECK(run_on(seven, lo::get_range(-7, 3)) == L({0, 1, 2}));
    CHECK(run_on(seven, lo::get_range(7)) == L({}));
    CHECK(run_on(seven, lo::get_range(0, -1)) == L({0, 1, 2, 3, 4, 5, 6})); // unsigned count
    CHECK(run_on(seven, lo::get_range(-10, 5)) == L({0, 1}));               // overshoot eats count
    CHECK(run_on(seven, lo::get_range(-10, 3)) == L({}));
    CHECK(run_on(seven, lo::get_range_from(-3)) == L({4, 5, 6}));
    // A missing count is UINT32_MAX on the wire, so a far overshoot eats it all.
    CHECK(run_on(seven, lo::get_range(-(std::int64_t{1} << 40))) == L({}));
    // A negative count is a huge unsigned one; at the extremes the overshoot
    // (2^63 - 5) leaves 5 of 2^63.
    CHECK(run_on(OL({0, 1, 2, 3, 4, 5, 6}),
                 lo::get_by_value_rel_rank_range(0, i64min + 5, i64min, rt::value)) ==
          L({0, 1, 2, 3, 4}));

    std::optional<value> b = seven;
    CHECK(ok(b, lo::get(-1)) == value(6));
    CHECK(fails(b, lo::get(7)) == status::op_not_applicable);
    CHECK(fails(b, lo::get(-8)) == status::op_not_applicable);
    CHECK(fails(b, lo::get_by_index(7, rt::value)) == status::op_not_applicable);
    CHECK(fails(b, lo::get_by_rank(-8, rt::value)) == status::op_not_applicable);
    CHECK(fails(b, lo::pop(7)) == status::op_not_applicable);
    CHECK(fails(b, lo::remove(i64max)) == status::op_not_applicable);
    CHECK(fails(b, lo::remove_by_index(i64min, rt::count)) == status::op_not_applicable);

    CHECK(ok(b, lo::pop(0)) == value(0));
    CHECK(ok(b, lo::pop_range(-2, 5)) == L({5, 6}));
    CHECK(ok(b, lo::remove(0)) == value(1));
    CHECK(ok(b, lo::remove_range(1, 2)) == value(2));
    CHECK(same(*b, L({2})));
}

TEST_CASE("trim keeps [index, index + count) and returns the count removed", "[cdt][list_engine]") {
    std::optional<value> b = L({0, 1, 2, 3, 4, 5});
    CHECK(ok(b, lo::trim(1, -5)) == value(1)); // negative count: to the end
    CHECK(same(*b, L({1, 2, 3, 4, 5})));
    CHECK(ok(b, lo::trim(1, 3)) == value(2));
    CHECK(same(*b, L({2, 3, 4})));
    CHECK(ok(b, lo::trim(5, 1)) == value(3)); // a window past the end keeps nothing
    CHECK(same(*b, L({})));
    std::optional<value> c = L({0, 1, 2});
    CHECK(ok(c, lo::trim(0, 0)) == value(3));
    CHECK(same(*c, L({})));
    CHECK(ok(c, lo::trim(0, 0)) == value(0));
}

TEST_CASE("value intervals are [begin, end) and type-sensitive (§4, §13)", "[cdt][list_engine]") {
    value v = L({83, 79, 81, 82, 80});
    CHECK(run_on(v, lo::get_by_value_range(81, value(82), rt::value)) == L({81}));
    CHECK(run_on(v, lo::get_by_value_range(value(), value(81), rt::value)) == L({79, 80}));
    CHECK(run_on(v, lo::get_by_value_range(82, std::nullopt, rt::value)) == L({83, 82}));
    CHECK(run_on(v, lo::get_by_value_range(82, value(inf), rt::value)) == L({83, 82}));
    CHECK(run_on(v, lo::get_by_value_range(82, value(81), rt::count)) == value(0));

    value mixed = L({true, 1, "a", 2, false, 3, L({1}), "b", 2.5});
    CHECK(run_on(mixed, lo::get_by_value_range(1, value(4), rt::value)) == L({1, 2, 3}));
    CHECK(run_on(mixed, lo::get_by_value_range("a", value("c"), rt::value)) == L({"a", "b"}));
    CHECK(run_on(mixed, lo::get_by_value_range(false, value(1), rt::value)) == L({true, false}));

    // Integers and doubles never compare equal; every int sorts below every double.
    value nums = L({1, 1.0, 2, 2.5});
    CHECK(run_on(nums, lo::get_by_value(1, rt::index)) == L({0}));
    CHECK(run_on(nums, lo::get_by_value(1.0, rt::index)) == L({1}));
    CHECK(run_on(nums, lo::get_by_value_range(1, value(2.0), rt::value)) == L({1, 1.0, 2}));
    value ordered_nums = OL({2.5, 2, 1.0, 1});
    CHECK(run_on(ordered_nums, lo::get_by_value_range(1, value(2.0), rt::value)) == L({1, 2, 1.0}));
}

TEST_CASE("WILDCARD matches the rest of a list; nil and INF bound list ranges",
          "[cdt][list_engine]") {
    value people = L({L({"Jim", 95}), L({"Joe", 80}), L({"Jim", 50}), "x"});
    CHECK(run_on(people, lo::get_by_value(L({"Jim", wildcard}), rt::value)) ==
          L({L({"Jim", 95}), L({"Jim", 50})}));
    CHECK(run_on(people, lo::get_by_value(L({"Jim", wildcard}), rt::index)) == L({0, 2}));
    CHECK(run_on(people, lo::get_by_value(wildcard, rt::count)) == value(4));
    value pairs = L({L({2, "a"}), L({1, "b"}), L({1}), L({0, 9}), L({1, "c", "d"})});
    CHECK(run_on(pairs, lo::get_by_value_range(L({1, value()}), value(L({1, inf})), rt::value)) ==
          L({L({1, "b"}), L({1, "c", "d"})}));
    // A WILDCARD only matches an element that is there: [1] is below [1, *].
    CHECK(run_on(pairs, lo::get_by_value(L({1, wildcard}), rt::value)) ==
          L({L({1, "b"}), L({1, "c", "d"})}));
}

TEST_CASE("relative rank ranges (§5)", "[cdt][list_engine]") {
    value o = OL({0, 4, 5, 9, 11, 15});
    auto rel = [&](const value& l, value v, std::int64_t r, std::optional<std::int64_t> c) {
        return run_on(l, lo::get_by_value_rel_rank_range(std::move(v), r, c, rt::value));
    };
    CHECK(rel(o, 5, 0, std::nullopt) == L({5, 9, 11, 15}));
    CHECK(rel(o, 5, -1, std::nullopt) == L({4, 5, 9, 11, 15}));
    CHECK(rel(o, 3, 0, std::nullopt) == L({4, 5, 9, 11, 15}));
    CHECK(rel(o, 3, 3, std::nullopt) == L({11, 15}));
    CHECK(rel(o, 3, -3, std::nullopt) == L({0, 4, 5, 9, 11, 15}));
    CHECK(rel(o, 3, -3, 2) == L({}));
    CHECK(rel(o, 3, -3, 3) == L({0}));
    CHECK(rel(o, 100, 0, std::nullopt) == L({}));
    CHECK(run_on(o, lo::get_by_value_rel_rank_range(100, 0, std::nullopt, rt::count, true)) ==
          value(6));

    // UNORDERED: the same windows; VALUE in heap order (top-down when the
    // window sits nearer the low end), INDEX in list order.
    value u = L({11, 0, 15, 5, 9, 4});
    CHECK(rel(u, 5, 0, std::nullopt) == L({5, 9, 11, 15})); // window [2, 6): bottom-up
    CHECK(rel(u, 3, 0, 2) == L({5, 4}));                    // window [1, 3): top-down
    CHECK(run_on(u, lo::get_by_value_rel_rank_range(3, 0, 2, rt::index)) == L({3, 5}));
    CHECK(run_on(u, lo::remove_by_value_rel_rank_range(9, 0, std::nullopt, rt::count, true)) ==
          value(3));
}

TEST_CASE("unordered rank selections as probed on 8.1.2 (§13)", "[cdt][list_engine]") {
    value u = L({7, 6, 5, 8, 9, 10});
    CHECK(run_on(u, lo::get_by_rank_range(0, 3, rt::value)) == L({7, 6, 5}));
    CHECK(run_on(u, lo::get_by_rank_range(1, 4, rt::value)) == L({9, 8, 7, 6}));
    CHECK(run_on(u, lo::get_by_value_rel_rank_range(6, 0, 3, rt::value)) == L({8, 7, 6}));
    CHECK(run_on(u, lo::get_by_rank_range(0, 3, rt::rank)) == L({0, 1, 2}));
    CHECK(run_on(u, lo::get_by_rank_range(0, 3, rt::reverse_rank)) == L({3, 4, 5}));
    CHECK(run_on(u, lo::get_by_rank_range(0, 3, rt::reverse_index)) == L({5, 4, 3}));
    CHECK(run_on(u, lo::get_by_rank_range(0, 3, rt::index)) == L({0, 1, 2}));
    CHECK(run_on(u, lo::get_by_value_range(6, value(10), rt::value)) == L({7, 6, 8, 9}));
    // A window nearer the high end comes bottom-up.
    CHECK(run_on(u, lo::get_by_rank_range(3, 3, rt::value)) == L({8, 9, 10}));
    CHECK(run_on(u, lo::get_by_rank(-1, rt::value)) == value(10));
    CHECK(run_on(u, lo::get_by_rank(0, rt::index)) == value(2));

    value o = OL({1, 3, 5, 7, 9});
    CHECK(run_on(o, lo::get_by_value_list({9, 1, 5}, rt::value)) == L({9, 1, 5}));
    CHECK(run_on(o, lo::get_by_value_list({9, 1, 5}, rt::index)) == L({4, 0, 2}));
    CHECK(run_on(o, lo::get_by_value_list({9, 1, 5}, rt::reverse_index)) == L({0, 4, 2}));
    CHECK(run_on(o, lo::get_by_value_list({9, 1, 5}, rt::rank)) == L({4, 0, 2}));
    CHECK(run_on(o, lo::get_by_index_range(1, 3, rt::reverse_rank)) == L({1, 2, 3}));
}

TEST_CASE("equal values split by a rank window: the server's order heap picks them",
          "[cdt][list_engine]") {
    // Probed on 8.1.2. AEROSPIKE-CDT.md §2 says list rank ties go by index;
    // the server instead selects rank windows of an UNORDERED list with a
    // binary heap (cdt.c order_heap), and which of several equal values lands
    // in the window is the heap's doing.
    value t = L({2, 1, 2, 1, 2});
    CHECK(run_on(t, lo::get_by_rank_range(1, 2, rt::index)) == L({0, 3}));
    CHECK(run_on(t, lo::remove_by_rank(2, rt::index)) == value(0));
    CHECK(run_on(L({3, 1, 3, 2, 3}), lo::get_by_value(3, rt::reverse_index)) == L({4, 2, 0}));
    // Rank 3 is the middle 2 by position (index 2); the heap picks index 4.
    CHECK(run_on(t, lo::get_by_rank(3, rt::index)) == value(4));
    // Cases the random server diff found (tests/adapters/data/random_diff.json).
    std::optional<value> b = L({"e", "b", "e", 5});
    CHECK(ok(b, lo::remove_by_rank(3, rt::reverse_rank)) == value(0));
    CHECK(same(*b, L({"b", "e", 5}))); // the first "e" goes, not the second
    b = L({9, -1, 9});
    CHECK(ok(b, lo::remove_by_rank(-2, rt::none)).is_nil());
    CHECK(same(*b, L({9, -1})));
    value v = L({-1.5, 9, 9, "c", 9, 4, 8});
    CHECK(run_on(v, lo::get_by_value_rel_rank_range(-1.5, -3, 4, rt::index, true)) == L({2, 5, 6}));
    value w = L({"c", 2, "d", 1, 9, 9});
    CHECK(run_on(w, lo::get_by_rank_range(3, -2, rt::index, true)) == L({1, 3, 5}));
    // A window that splits no ties is exactly its values.
    CHECK(run_on(w, lo::get_by_rank_range(0, 2, rt::index)) == L({1, 3}));
    // A list_rank context step picks the same way.
    b = L({L({1}), L({0}), L({1})});
    CHECK(ok(b, lo::append(7, {}, {cdt::ctx_step::list_rank(1)})) == value(2));
    CHECK(same(*b, L({L({1}), L({0}), L({1, 7})})));
}

TEST_CASE("return types: single results, multi results, not found (§6)", "[cdt][list_engine]") {
    value u = L({30, 10, 20});
    CHECK(run_on(u, lo::get_by_index(0, rt::none)).is_nil());
    CHECK(run_on(u, lo::get_by_index(0, rt::index)) == value(0));
    CHECK(run_on(u, lo::get_by_index(0, rt::reverse_index)) == value(2));
    CHECK(run_on(u, lo::get_by_index(0, rt::rank)) == value(2));
    CHECK(run_on(u, lo::get_by_index(0, rt::reverse_rank)) == value(0));
    CHECK(run_on(u, lo::get_by_index(0, rt::count)) == value(1));
    CHECK(run_on(u, lo::get_by_index(0, rt::exists)) == value(true));
    CHECK(run_on(u, lo::get_by_index(0, rt::value)) == value(30));
    CHECK(run_on(u, lo::get_by_rank(0, rt::index)) == value(1));
    CHECK(run_on(u, lo::get_by_rank(0, rt::reverse_rank)) == value(2));
    // by value is always a list, even for one match.
    CHECK(run_on(u, lo::get_by_value(20, rt::value)) == L({20}));
    CHECK(run_on(u, lo::get_by_value(20, rt::rank)) == L({1}));

    // Not found.
    CHECK(run_on(u, lo::get_by_value(99, rt::value)) == L({}));
    CHECK(run_on(u, lo::get_by_value(99, rt::index)) == L({}));
    CHECK(run_on(u, lo::get_by_value(99, rt::count)) == value(0));
    CHECK(run_on(u, lo::get_by_value(99, rt::exists)) == value(false));
    CHECK(run_on(u, lo::get_by_value(99, rt::none)).is_nil());
    CHECK(run_on(L({}), lo::get_by_rank_range(0, 2, rt::rank)) == L({}));
    CHECK(run_on(L({}), lo::get_by_index_range(0, 2, rt::exists)) == value(false));

    // Other flag bits are ignored; invalid types refused, even with nothing selected.
    CHECK(run_on(u, lo::get_by_value(20, static_cast<rt>(7 | 0x20000))) == L({20}));
    // (9 on a rank selector is refused; 11 and 12 are answered: see below.)
    for (std::int32_t bad : {6, 8, 9, 14, 16, 17, 99}) {
        std::optional<value> b = u;
        op o = lo::get_by_rank_range(0, 2, rt::value);
        o.return_type = bad;
        CHECK(fails(b, o) == status::op_not_applicable);
    }
    for (std::int32_t bad : {6, 8, 9, 10, 11, 12, 14, 16, 17, 99}) {
        std::optional<value> e = L({});
        op empty_list = lo::get_by_value_list({}, rt::value);
        empty_list.return_type = bad;
        CHECK(fails(e, empty_list) == status::op_not_applicable);
    }
    // The raw RANK_RANGE / REVRANK_RANGE (11, 12) on a rank selector: [start,
    // count] of the ranks, start mirrored for 12, as 8.1.2 answers
    // (tests/adapters/data/item7_raw_return_types, e.g. item7-52 and -53).
    // This test expected OP_NOT_APPLICABLE for them before the server was asked.
    for (auto [code, want] : {std::pair{11, L({0, 2})}, std::pair{12, L({1, 2})}}) {
        op o = lo::get_by_rank_range(0, 2, rt::value);
        o.return_type = code;
        CHECK(run_on(u, o) == want);
    }
    // INVERTED on a single-result op.
    std::optional<value> b = u;
    CHECK(fails(b, lo::get_by_index(0, rt::value, true)) == status::op_not_applicable);
    CHECK(fails(b, lo::remove_by_rank(0, rt::value, true)) == status::op_not_applicable);
}

TEST_CASE("result order rules (§6)", "[cdt][list_engine]") {
    // Value list: RANK in argument order.
    value u = L({2, 4, 1, 3});
    CHECK(run_on(u, lo::get_by_value_list({4, 2}, rt::rank)) == L({3, 1}));
    CHECK(run_on(u, lo::get_by_value_list({4, 2}, rt::index)) == L({0, 1}));
    CHECK(run_on(u, lo::get_by_value_list({4, 2}, rt::value)) == L({2, 4}));
    // Inverted: INDEX and VALUE in list order, RANK ascending.
    value v = L({5, 1, 4, 2, 3});
    CHECK(run_on(v, lo::get_by_value(1, rt::rank, true)) == L({1, 2, 3, 4}));
    CHECK(run_on(v, lo::get_by_value(1, rt::index, true)) == L({0, 2, 3, 4}));
    CHECK(run_on(v, lo::get_by_value(1, rt::value, true)) == L({5, 4, 2, 3}));
    // Inverted index range with RANK: each element's rank, in list order.
    CHECK(run_on(L({3, 2, 1}), lo::get_by_index_range(0, 1, rt::rank, true)) == L({1, 0}));
    // RANK of an index selection on an UNORDERED list: strictly-smaller
    // counts (equal values share), unless the whole list is selected.
    CHECK(run_on(L({5, 5, 1}), lo::get_by_index_range(0, 2, rt::rank)) == L({1, 1}));
    CHECK(run_on(L({5, 5, 1}), lo::get_by_index_range(0, 3, rt::rank)) == L({0, 1, 2}));
    CHECK(run_on(L({5, 5, 1}), lo::get_by_index(1, rt::reverse_rank)) == value(1));
    // Reversed runs are ascending; reversed per-element lists descending.
    value six = L({10, 11, 12, 13, 14, 15});
    CHECK(run_on(six, lo::get_by_index_range(1, 2, rt::reverse_index)) == L({3, 4}));
    CHECK(run_on(six, lo::get_by_index_range(2, 2, rt::reverse_index, true)) == L({4, 5, 0, 1}));
    CHECK(run_on(six, lo::get_by_index_range(2, 2, rt::index, true)) == L({0, 1, 4, 5}));
    CHECK(run_on(six, lo::get_by_index_range(2, 2, rt::value, true)) == L({10, 11, 14, 15}));
    CHECK(run_on(six, lo::get_by_value_range(11, value(13), rt::reverse_index)) == L({4, 3}));
    CHECK(run_on(six, lo::get_by_value_range(11, value(13), rt::reverse_rank, true)) ==
          L({5, 0, 1, 2}));
}

TEST_CASE("value lists: repeats, WILDCARD items, inverted ranks", "[cdt][list_engine]") {
    // ORDERED: a repeated item repeats its elements.
    value o = OL({1, 2, 2, 3});
    CHECK(run_on(o, lo::get_by_value_list({2, 1, 2}, rt::value)) == L({2, 2, 1, 2, 2}));
    CHECK(run_on(o, lo::get_by_value_list({2, 1, 2}, rt::index)) == L({1, 2, 0, 1, 2}));
    CHECK(run_on(o, lo::get_by_value_list({2, 1, 2}, rt::count)) == value(3));
    CHECK(run_on(o, lo::get_by_value_list({2}, rt::reverse_rank)) == L({1, 2}));
    // UNORDERED: a repeated item reports once, at its last occurrence;
    // reversed ranks element by element.
    value u = L({2, 3, 1, 2});
    CHECK(run_on(u, lo::get_by_value_list({2, 3, 2}, rt::rank)) == L({3, 1, 2}));
    CHECK(run_on(u, lo::get_by_value_list({2, 3}, rt::reverse_rank)) == L({2, 1, 0}));
    CHECK(run_on(u, lo::get_by_value_list({2, 3, 2}, rt::value)) == L({2, 3, 2}));
    CHECK(run_on(u, lo::get_by_value_list({2}, rt::rank, true)) == L({0, 3}));
    CHECK(run_on(u, lo::get_by_value_list({2}, rt::reverse_rank, true)) == L({3, 0}));
    // The complement of an empty selection is everything.
    CHECK(run_on(u, lo::get_by_value_list({}, rt::value, true)) == L({2, 3, 1, 2}));
    CHECK(run_on(u, lo::get_by_value_list({}, rt::rank, true)) == L({0, 1, 2, 3}));
    CHECK(run_on(u, lo::get_by_value_list({}, rt::count)) == value(0));
    CHECK(run_on(L({}), lo::get_by_value_list({}, rt::value, true)) == L({}));
    // WILDCARD items.
    value p = L({L({1, "a"}), L({2, "b"}), L({1, "c"})});
    CHECK(run_on(p, lo::get_by_value_list({L({1, wildcard})}, rt::index)) == L({0, 2}));
    CHECK(run_on(p, lo::remove_by_value_list({L({1, wildcard})}, rt::count, true)) == value(1));
}

TEST_CASE("INVERTED (§7)", "[cdt][list_engine]") {
    // Keep the 3 lowest.
    std::optional<value> b = L({9, 1, 8, 2, 7, 3});
    CHECK(ok(b, lo::remove_by_rank_range(3, std::nullopt, rt::count, false)) == value(3));
    CHECK(same(*b, L({1, 2, 3})));
    std::optional<value> c = L({9, 1, 8, 2, 7, 3});
    CHECK(ok(c, lo::remove_by_rank_range(0, 3, rt::value, true)) == L({9, 8, 7}));
    CHECK(same(*c, L({1, 2, 3})));
    CHECK(run_on(L({1, 2}), lo::get_by_value(5, rt::count, true)) == value(2));
    // EXISTS | INVERTED: on the unordered value-interval and rank paths the
    // server answers "nothing matched"; elsewhere "the complement is not empty".
    CHECK(run_on(L({1, 2, 3}), lo::get_by_value(2, rt::exists, true)) == value(false));
    CHECK(run_on(L({1, 2, 3}), lo::get_by_value(9, rt::exists, true)) == value(true));
    CHECK(run_on(L({3, 1, 2}), lo::get_by_rank_range(0, 1, rt::exists, true)) == value(false));
    CHECK(run_on(OL({1, 2, 3}), lo::get_by_value(2, rt::exists, true)) == value(true));
    CHECK(run_on(L({1, 2, 3}), lo::get_by_index_range(0, 1, rt::exists, true)) == value(true));
    CHECK(run_on(L({1, 2, 3}), lo::get_by_value_list({2}, rt::exists, true)) == value(true));
}

TEST_CASE("ADD_UNIQUE, NO_FAIL and PARTIAL (§8)", "[cdt][list_engine]") {
    auto pol = [](std::uint32_t f) {
        return lo::policy(list_order::unordered, f);
    };
    std::optional<value> b = L({1, 2, 3});
    CHECK(fails(b, lo::append(2, pol(wf::add_unique))) == status::element_exists);
    CHECK(ok(b, lo::append(2, pol(wf::add_unique | wf::no_fail))) == value(3));
    CHECK(ok(b, lo::append(4, pol(wf::add_unique))) == value(4));
    // One denied item drops the whole write unless PARTIAL (with NO_FAIL).
    CHECK(fails(b, lo::append_items({5, 1}, pol(wf::add_unique))) == status::element_exists);
    CHECK(fails(b, lo::append_items({5, 1}, pol(wf::add_unique | wf::partial))) ==
          status::element_exists);
    CHECK(ok(b, lo::append_items({5, 1}, pol(wf::add_unique | wf::no_fail))) == value(4));
    CHECK(ok(b, lo::append_items({5, 1}, pol(wf::add_unique | wf::no_fail | wf::partial))) ==
          value(5));
    CHECK(same(*b, L({1, 2, 3, 4, 5})));
    // Items repeating among themselves: OP_NOT_APPLICABLE (server), dropped
    // under NO_FAIL, de-duplicated under NO_FAIL | PARTIAL.
    std::optional<value> e = L({});
    CHECK(fails(e, lo::append_items({7, 7}, pol(wf::add_unique))) == status::op_not_applicable);
    CHECK(ok(e, lo::append_items({7, 7}, pol(wf::add_unique | wf::no_fail))) == value(0));
    CHECK(ok(e,
             lo::append_items({0, 4, 5, 9, 9, 11, 15, 0},
                              pol(wf::add_unique | wf::no_fail | wf::partial))) == value(6));
    CHECK(same(*e, L({0, 4, 5, 9, 11, 15})));
    std::optional<value> oe = OL({});
    CHECK(ok(oe,
             lo::append_items({0, 4, 5, 9, 9, 11, 15, 0},
                              pol(wf::add_unique | wf::no_fail | wf::partial))) == value(6));
    CHECK(same(*oe, OL({0, 4, 5, 9, 11, 15})));
    CHECK(fails(oe, lo::append_items({3, 3}, pol(wf::add_unique))) == status::op_not_applicable);
    CHECK(fails(oe, lo::append(9, pol(wf::add_unique))) == status::element_exists);
    CHECK(ok(oe, lo::append(9, pol(wf::add_unique | wf::no_fail))) == value(6));

    // insert / insert_items / set.
    std::optional<value> s = L({1, 2, 3});
    CHECK(fails(s, lo::insert(0, 3, pol(wf::add_unique))) == status::element_exists);
    CHECK(ok(s, lo::insert(0, 3, pol(wf::add_unique | wf::no_fail))) == value(3));
    CHECK(fails(s, lo::insert_items(1, {9, 2}, pol(wf::add_unique))) == status::element_exists);
    CHECK(ok(s, lo::insert_items(1, {9, 2}, pol(wf::add_unique | wf::no_fail | wf::partial))) ==
          value(4));
    CHECK(same(*s, L({1, 9, 2, 3})));
    CHECK(fails(s, lo::set(0, 3, pol(wf::add_unique))) == status::element_exists);
    CHECK(ok(s, lo::set(0, 3, pol(wf::add_unique | wf::no_fail))).is_nil());
    CHECK(ok(s, lo::set(3, 3, pol(wf::add_unique))).is_nil()); // its own value at its own index
    CHECK(same(*s, L({1, 9, 2, 3})));

    // increment: a would-be duplicate is refused; NO_FAIL answers the would-be value.
    std::optional<value> n = L({1, 2, 5});
    CHECK(fails(n, lo::increment(0, 1, pol(wf::add_unique))) == status::element_exists);
    CHECK(ok(n, lo::increment(0, 1, pol(wf::add_unique | wf::no_fail))) == value(2));
    CHECK(same(*n, L({1, 2, 5})));
    CHECK(ok(n, lo::increment(0, 2, pol(wf::add_unique))) == value(3));
    std::optional<value> on = OL({1, 2, 5});
    CHECK(fails(on, lo::increment(0, 1, pol(wf::add_unique))) == status::element_exists);
    CHECK(ok(on, lo::increment(0, 1, pol(wf::add_unique | wf::no_fail))) == value(2));
    CHECK(ok(on, lo::increment(2, 0, pol(wf::add_unique))) == value(5)); // lands on itself
    CHECK(same(*on, OL({1, 2, 5})));
}

TEST_CASE("INSERT_BOUNDED and nil padding (§8)", "[cdt][list_engine]") {
    auto pol = [](std::uint32_t f) {
        return lo::policy(list_order::unordered, f);
    };
    std::optional<value> b = L({1, 2});
    CHECK(fails(b, lo::insert(5, "x", pol(wf::insert_bounded))) == status::op_not_applicable);
    CHECK(ok(b, lo::insert(5, "x", pol(wf::insert_bounded | wf::no_fail))) == value(2));
    CHECK(ok(b, lo::insert(2, "end", pol(wf::insert_bounded))) == value(3));
    CHECK(ok(b, lo::insert(-1, "before last")) == value(4));
    CHECK(same(*b, L({1, 2, "before last", "end"})));
    CHECK(fails(b, lo::insert(-5, "x")) == status::op_not_applicable);
    CHECK(ok(b, lo::insert(6, "pad")) == value(7));
    CHECK(same(*b, L({1, 2, "before last", "end", value(), value(), "pad"})));
    CHECK(ok(b, lo::insert_items(1, {"a", "b"})) == value(9));
    CHECK(same(*b, L({1, "a", "b", 2, "before last", "end", value(), value(), "pad"})));

    std::optional<value> s = L({1});
    CHECK(ok(s, lo::set(3, "x")).is_nil());
    CHECK(same(*s, L({1, value(), value(), "x"})));
    CHECK(fails(s, lo::set(9, "x", pol(wf::insert_bounded))) == status::op_not_applicable);
    CHECK(ok(s, lo::set(-4, "first")).is_nil());
    CHECK(fails(s, lo::set(-5, "x")) == status::op_not_applicable);

    std::optional<value> i = L({1});
    CHECK(fails(i, lo::increment(3, 1, pol(wf::insert_bounded))) == status::op_not_applicable);
    CHECK(ok(i, lo::increment(3, 5, pol(wf::insert_bounded | wf::no_fail))) == value(5));
    CHECK(same(*i, L({1})));
    CHECK(ok(i, lo::increment(2, 5)) == value(5));
    CHECK(same(*i, L({1, value(), 5})));
}

TEST_CASE("padding beyond the record size limit is refused before allocating (§12 e)",
          "[cdt][list_engine]") {
    std::optional<value> b = L({1});
    CHECK(fails(b, lo::insert(2147483000, "x")) == status::record_too_big);
    CHECK(fails(b, lo::set(2147483000, "x")) == status::record_too_big);
    CHECK(fails(b, lo::increment(2147483000, 1)) == status::record_too_big);
    CHECK(fails(b, lo::insert(i64max, "x")) == status::op_not_applicable); // past INT32_MAX
    CHECK(fails(b, lo::insert_items(2147483646, {1, 2})) == status::parameter_error); // overflows
    // The limit is the store's: 100 bytes cannot hold 150 elements.
    CHECK(fails(b, lo::insert(150, "x"), 100) == status::record_too_big);
    CHECK(ok(b, lo::insert(50, "x"), 100) == value(51));
    std::optional<value> absent;
    CHECK(fails(absent, lo::increment(5000000, 1)) == status::record_too_big);
    CHECK_FALSE(absent.has_value());
}

TEST_CASE("increment: numbers only, default 1, int/double mixing, wrap-around",
          "[cdt][list_engine]") {
    std::optional<value> b = L({5, 2.5, "s", value(), i64max});
    CHECK(ok(b, lo::increment(0)) == value(6));
    CHECK(ok(b, lo::increment(0, 1.7)) == value(7));     // int + (int64)double
    CHECK(ok(b, lo::increment(1, 2)) == value(4.5));     // double + double(int)
    CHECK(ok(b, lo::increment(-1, 1)) == value(i64min)); // wraps
    CHECK(fails(b, lo::increment(2, 1)) == status::parameter_error);
    CHECK(fails(b, lo::increment(3, 1)) == status::parameter_error);
    CHECK(fails(b, lo::increment(0, "x")) == status::parameter_error);
    CHECK(fails(b, lo::increment(0, inf)) == status::parameter_error);
    CHECK(fails(b, lo::increment(-6, 1)) == status::op_not_applicable);
    CHECK(ok(b, lo::increment(5, 0.5)) == value(0.5)); // past the end: 0 + the delta
    CHECK(same(*b, L({7, 4.5, "s", value(), i64min, 0.5})));
    // 0 + -0.0 is +0.0, as 8.1.2 stores it (gen_random_cases.py --profile values).
    value z = ok(b, lo::increment(6, -0.0));
    REQUIRE(z.is_double());
    CHECK_FALSE(std::signbit(z.as_double()));
    CHECK_FALSE(std::signbit(b->as_list()[6].as_double()));
    // NaN and out-of-range doubles become INT64_MIN on an int (x86 cvttsd2si).
    std::optional<value> c = L({1});
    CHECK(ok(c, lo::increment(0, 1e300)) == value(i64min + 1));
}

TEST_CASE("ORDERED adds place a value among its equals where the server's search stops",
          "[cdt][list_engine]") {
    // -0.0 and 0.0 compare equal but stay distinct: the server's binary
    // search inserts before the first equal element it probes (8.1.2,
    // gen_random_cases.py --profile values seeds 39 and 40).
    auto signs = [](const std::optional<value>& b) {
        std::string out;
        for (const value& e : b->as_list())
            if (e.is_double())
                out += std::signbit(e.as_double()) ? '-' : '+';
        return out;
    };
    std::optional<value> a = OL({0.0});
    CHECK(ok(a, lo::append(-0.0)) == value(2));
    CHECK(signs(a) == "-+");
    std::optional<value> b = OL({-0.0});
    CHECK(ok(b, lo::append_items({1, 0.0})) == value(3));
    CHECK(signs(b) == "+-");
    CHECK(b->as_list()[0] == value(1));
    // Eight elements, two doubles at 6 and 7: the search probes 4, then 6.
    std::optional<value> c = OL({1, 2, 3, 4, 5, 6, 0.0, -0.0});
    CHECK(ok(c, lo::append_items({"x", -0.0})) == value(10));
    CHECK(signs(c) == "-+-");
    // Five elements, one double at 4: probes 2, 3, then 4.
    std::optional<value> d = OL({1, 2, 3, 4, 0.0});
    CHECK(ok(d, lo::append(-0.0)) == value(6));
    CHECK(signs(d) == "-+");
    // Three equals at 1..3 of five: the first probe (2) stops the search.
    std::optional<value> e = OL({-1.0, 0.0, 0.0, 0.0, 5.0});
    CHECK(ok(e, lo::append(-0.0)) == value(6));
    CHECK(signs(e) == "-+-+++");
}

TEST_CASE("UNORDERED rank windows over -0.0 and 0.0 answer as the server's heap does",
          "[cdt][list_engine]") {
    // Equal but different values: which the window holds and their order in
    // a VALUE result are the heap's (8.1.2; --profile values seed 13).
    auto sign = [](const value& v) { return std::signbit(v.as_double()) ? '-' : '+'; };
    auto signs = [&](const value& l) {
        std::string out;
        for (const value& e : l.as_list())
            out += e.is_double() ? sign(e) : e.is_int() ? 'i' : 's';
        return out;
    };
    std::optional<value> a = L({-0.0, -0.0, 1, 0.0});
    CHECK(sign(ok(a, lo::get_by_rank(2, rt::value))) == '+');
    CHECK(ok(a, lo::get_by_rank(2, rt::index)) == value(3));
    CHECK(signs(ok(a, lo::get_by_rank_range(2, 1, rt::value))) == "+");
    std::optional<value> b = L({"b", 0.0, "a", -0.0});
    CHECK(signs(ok(b, lo::get_by_rank_range(0, 4, rt::value))) == "+-ss");
    std::optional<value> c = L({0.0, 1, -0.0});
    CHECK(signs(ok(c, lo::get_by_value_rel_rank_range(0, 1, std::nullopt, rt::value))) == "-+");
    // Integers tie too, but equal integers are the same: the fast answer.
    std::optional<value> d = L({3, 3, 1, 4});
    CHECK(ok(d, lo::get_by_rank(2, rt::index)) == value(1));
}

TEST_CASE("ORDERED lists keep their order on every write (§9)", "[cdt][list_engine]") {
    std::optional<value> b = OL({});
    CHECK(ok(b, lo::append(5)) == value(1));
    CHECK(ok(b, lo::append(1)) == value(2));
    CHECK(ok(b, lo::append_items({9, 3, 5})) == value(5));
    CHECK(same(*b, OL({1, 3, 5, 5, 9})));
    CHECK(ok(b, lo::increment(0, 10)) == value(11)); // re-sorted
    CHECK(same(*b, OL({3, 5, 5, 9, 11})));
    CHECK(ok(b, lo::increment(5, 4)) == value(4)); // at the size: the delta, sorted in
    CHECK(same(*b, OL({3, 4, 5, 5, 9, 11})));
    CHECK(fails(b, lo::increment(9, 1)) == status::op_not_applicable); // past the end
    // The server refuses positional writes on an ORDERED list (list_insert,
    // list_set: "invalid op on ORDERED list"). AEROSPIKE-CDT.md §9 says insert
    // ignores the index; particle_list.c says OP_NOT_APPLICABLE, and so do we.
    CHECK(fails(b, lo::insert(0, 7)) == status::op_not_applicable);
    CHECK(fails(b, lo::insert_items(0, {7})) == status::op_not_applicable);
    CHECK(fails(b, lo::set(0, 7)) == status::op_not_applicable);
    // Rank = index on an ORDERED list, for every selector.
    CHECK(run_on(*b, lo::get_by_rank_range(1, 2, rt::index)) == L({1, 2}));
    CHECK(run_on(*b, lo::get_by_value(5, rt::rank)) == L({2, 3}));
    CHECK(run_on(*b, lo::get_by_index_range(0, 2, rt::rank, true)) == L({2, 3, 4, 5}));

    std::optional<value> u = L({3, 1, 2, 1});
    CHECK(ok(u, lo::set_order(list_order::unordered)).is_nil());
    CHECK(same(*u, L({3, 1, 2, 1})));
    CHECK(ok(u, lo::set_order(list_order::ordered)).is_nil());
    CHECK(same(*u, OL({1, 1, 2, 3})));
    CHECK(ok(u, lo::set_order(list_order::unordered)).is_nil()); // keeps the current order
    CHECK(same(*u, L({1, 1, 2, 3})));
    CHECK(fails(u, lo::set_order(static_cast<list_order>(2))) == status::op_not_applicable);
    CHECK(ok(u, lo::create(list_order::ordered)).is_nil()); // top level: set_order
    CHECK(u->as_list().is_ordered());
}

TEST_CASE("sort keeps or drops duplicates; persisted index flags", "[cdt][list_engine]") {
    std::optional<value> b = L({3, 1, 2, 1, "a"});
    CHECK(ok(b, lo::sort()).is_nil());
    CHECK(same(*b, L({1, 1, 2, 3, "a"})));
    std::optional<value> c = L({3, 1, 2, 1});
    CHECK(ok(c, lo::sort(cdt::list_sort_flags::drop_duplicates)).is_nil());
    CHECK(same(*c, L({1, 2, 3})));
    std::optional<value> d = L({3, 1, 2, 1});
    CHECK(ok(d, lo::sort(1U | cdt::list_sort_flags::drop_duplicates)).is_nil()); // descending
    CHECK(same(*d, L({3, 2, 1})));
    CHECK(ok(d, lo::sort()).is_nil());
    CHECK(same(*d, L({1, 2, 3})));

    // Crash case (d): DROP_DUPLICATES on an ORDERED list with a persisted
    // index gives the plain result.
    list pl(std::vector<value>{1, 1, 2, 2, 3}, list_order::ordered);
    pl.set_persist_index(true);
    std::optional<value> p = value(pl);
    CHECK(ok(p, lo::sort(cdt::list_sort_flags::drop_duplicates)).is_nil());
    list want(std::vector<value>{1, 2, 3}, list_order::ordered);
    want.set_persist_index(true);
    CHECK(same(*p, value(want)));

    // set_order carries the persisted index; clear and emptying drop it.
    std::optional<value> q = L({2, 1});
    CHECK(ok(q, lo::set_order(list_order::ordered, true)).is_nil());
    CHECK(q->as_list().persist_index());
    CHECK(ok(q, lo::remove_by_index_range(0, std::nullopt, rt::count)) == value(2));
    CHECK(same(*q, OL({})));
    std::optional<value> r = L({1});
    CHECK(ok(r, lo::create(list_order::ordered, false, true)).is_nil());
    CHECK(ok(r, lo::clear()).is_nil());
    CHECK(same(*r, OL({})));
}

TEST_CASE("values with INF or WILDCARD cannot be stored", "[cdt][list_engine]") {
    std::optional<value> b = L({1});
    CHECK(fails(b, lo::append(wildcard)) == status::parameter_error);
    CHECK(fails(b, lo::append_items({2, inf})) == status::parameter_error);
    CHECK(fails(b, lo::insert(0, L({1, wildcard}))) == status::parameter_error);
    CHECK(fails(b, lo::insert_items(0, {value(map{{1, inf}})})) == status::parameter_error);
    CHECK(fails(b, lo::set(0, inf)) == status::parameter_error);
    // As probes they are fine.
    CHECK(run_on(*b, lo::get_by_value_range(value(), value(inf), rt::count)) == value(1));
}

TEST_CASE("removing everything leaves an empty list, not an absent bin", "[cdt][list_engine]") {
    std::optional<value> b = OL({1, 2});
    CHECK(ok(b, lo::remove_by_value_range(value(), std::nullopt, rt::value)) == L({1, 2}));
    REQUIRE(b.has_value());
    CHECK(same(*b, OL({})));
    CHECK(ok(b, lo::size()) == value(0));
    std::optional<value> u = L({1, 2});
    CHECK(ok(u, lo::pop_range(0)) == L({1, 2}));
    CHECK(same(*u, L({})));
    CHECK(ok(u, lo::remove_by_rank_range(0, 5, rt::count)) == value(0));
}

TEST_CASE("list_ops builders fill what the engine reads", "[cdt][list_engine]") {
    op a = lo::get_by_value_range(1, value(4), rt::rank, true, {cdt::ctx_step::list_index(2)});
    CHECK(a.code == cdt::op_code::list_get_by_value_range);
    CHECK(a.return_type == (3 | cdt::return_inverted));
    CHECK(a.begin == value(1));
    CHECK(*a.end == value(4));
    CHECK(a.ctx.size() == 1);
    op b = lo::append_items({1, 2}, lo::policy(list_order::ordered, wf::add_unique));
    CHECK(b.lpolicy.order == list_order::ordered);
    CHECK(b.lpolicy.flags == wf::add_unique);
    CHECK(b.values.size() == 2);
    op c = lo::increment(3);
    CHECK(c.val.is_nil());
    CHECK(c.index == 3);
    op d = lo::pop_range_from(-2);
    CHECK_FALSE(d.count.has_value());
    op e = lo::create(list_order::ordered, true, false, {lo::ctx::map_key("a")});
    CHECK(e.code == cdt::op_code::list_create);
    CHECK(e.pad);
    CHECK(lo::wire_return(rt::value, true) == (7 | cdt::return_inverted));
    CHECK(cdt::classify(lo::trim(0, 1).code) == cdt::op_class::remove);
}

TEST_CASE("long (indexed) lists answer like short ones", "[cdt][list_engine]") {
    // 200 elements: rank selections build the value index and must give the
    // results a brute-force count gives.
    std::vector<value> items;
    for (int i = 0; i < 200; ++i)
        items.push_back(value((i * 37) % 101));
    value u = L(items);
    std::optional<value> b = u;
    value top = ok(b, lo::get_by_rank_range(-3, 3, rt::value));
    CHECK(top == L({99, 100, 100}));
    CHECK(b->as_list().has_index());
    // Rank window nearer the low end: top-down.
    CHECK(ok(b, lo::get_by_rank_range(0, 4, rt::value)) == L({1, 1, 0, 0}));
    std::size_t below_50 = 0;
    for (const value& v : items)
        if (v.as_int() < 50)
            ++below_50;
    CHECK(ok(b, lo::get_by_value_range(value(), value(50), rt::count)) ==
          value(static_cast<std::int64_t>(below_50)));
    CHECK(ok(b, lo::insert(100, -1)) == value(201));
    CHECK(ok(b, lo::get_by_rank(0, rt::index)) == value(100));
    CHECK(ok(b, lo::remove_by_value(-1, rt::index)) == L({100}));
    CHECK(ok(b, lo::get_by_index(100, rt::value)) == items[100]);
    // The same list, ordered.
    std::optional<value> o = OL(items);
    CHECK(ok(o, lo::get_by_value_rel_rank_range(50, -2, 4, rt::value)) == L({49, 49, 50, 50}));
    CHECK(ok(o, lo::append(50)) == value(201));
    std::int64_t less = 0;
    std::int64_t equal = 1;
    for (const value& v : items) {
        if (v.as_int() < 50)
            ++less;
        if (v.as_int() == 50)
            ++equal;
    }
    std::vector<value> where;
    for (std::int64_t k = 0; k < equal; ++k)
        where.push_back(less + k);
    CHECK(ok(o, lo::get_by_value(50, rt::index)) == L(where));
}

TEST_CASE("WILDCARD value lists on UNORDERED lists: the server's sorted-items search",
          "[cdt][list][wildcard]") {
    // 8.1.2 sorts the items (a WILDCARD makes unequal ones tie), then bisects
    // them once per element: ["x", true] is missed.
    std::vector<value> items = {L({"x", true, "zz"}), L({"x", wildcard}), "y"};
    value l = L({L({"x", true}), L({})});
    CHECK(run_on(l, lo::get_by_value_list(items, rt::index)) == L({}));
    CHECK(run_on(l, lo::get_by_value_list(items, rt::rank, true)) == L({0, 1}));
    // An ORDERED list looks each item up on its own and finds it.
    value o = OL({L({}), L({"x", true})});
    CHECK(run_on(o, lo::get_by_value_list(items, rt::index)) == L({1}));
}

} // namespace cdt_list_engine_test
