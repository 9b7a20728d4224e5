// Path expressions (select_by_path, modify_by_path, loop variables,
// remove_result), as the 8.1.2 server walks them (aerospike-server
// as/src/base/cdt.c, cdt_select_*). The recorded server corpus
// (tests/adapters/data/path_random.*) covers them broadly; these pin the
// rules one by one.
#include <kvmodel/exp/build.hpp>
#include <kvmodel/exp/eval.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string_view>

namespace exp_path_test {

using namespace kvmodel;
namespace e = kvmodel::exp;
using e::loopvar;
namespace pf = e::path_flags;

namespace {

value i(std::int64_t x) {
    return value(x);
}

// {"a": {"x": 1, "y": 2}, "b": {"x": 3, "z": 4}, "c": 5}
value sample() {
    return value(map{{value("a"), value(map{{value("x"), i(1)}, {value("y"), i(2)}})},
                     {value("b"), value(map{{value("x"), i(3)}, {value("z"), i(4)}})},
                     {value("c"), i(5)}});
}

struct one_bin {
    value v;
    e::record_view view;
    explicit one_bin(value x)
        : v(std::move(x)) {
        view.find_bin = [](const void* c, std::string_view n) -> const value* {
            return n == "m" ? &static_cast<const one_bin*>(c)->v : nullptr;
        };
        view.bins_ctx = this;
    }
};

std::optional<value> run(const e::expr& x, const value& bin) {
    auto p = e::compile(x.packed());
    if (!p)
        FAIL("compile: " << p.error().message);
    one_bin r(bin);
    return e::evaluate(*p, r.view);
}

const e::expr m = e::bin_map("m");

} // namespace

TEST_CASE("select_by_path returns values, keys, pairs or the matching tree", "[exp][path]") {
    const e::path x{e::ctx_all_children(), e::ctx_step(cdt::ctx_step::map_key(value("x")))};
    CHECK(run(e::select_by_path(x, e::type::list, pf::value, m), sample()) ==
          value(list{i(1), i(3)}));
    CHECK(run(e::select_by_path(x, e::type::list, pf::map_key, m), sample()) ==
          value(list{value("x"), value("x")}));
    CHECK(run(e::select_by_path(x, e::type::list, pf::map_key_value, m), sample()) ==
          value(list{value("x"), i(1), value("x"), i(3)}));
    // The tree keeps a scalar met above the last level ("c") as it is.
    CHECK(run(e::select_by_path(x, e::type::map, pf::matching_tree, m), sample()) ==
          value(map{{value("a"), value(map{{value("x"), i(1)}})},
                    {value("b"), value(map{{value("x"), i(3)}})},
                    {value("c"), i(5)}}));
    // Another declared type than the result's: unknown.
    CHECK_FALSE(run(e::select_by_path(x, e::type::map, pf::value, m), sample()));
}

TEST_CASE("filters read the loop variables; unknown fails unless NO_FAIL", "[exp][path]") {
    const e::path gt1{e::ctx_all_children(),
                      e::ctx_all_children_with_filter(e::loopvar_int(loopvar::value) > 1)};
    CHECK(run(e::select_by_path(gt1, e::type::list, pf::map_key, m), sample()) ==
          value(list{value("y"), value("x"), value("z")}));
    // A string read of int values is unknown: the call fails, or skips them.
    const e::path str{e::ctx_all_children(),
                      e::ctx_all_children_with_filter(e::loopvar_str(loopvar::value) > "a")};
    CHECK_FALSE(run(e::select_by_path(str, e::type::list, pf::value, m), sample()));
    CHECK(run(e::select_by_path(str, e::type::list, pf::value | pf::no_fail, m), sample()) ==
          value(list{}));
    // A map has no index variable, a list no key.
    const e::path idx{e::ctx_all_children_with_filter(e::loopvar_int(loopvar::index) == 0)};
    CHECK_FALSE(run(e::select_by_path(idx, e::type::list, pf::value, m), sample()));
    CHECK(run(e::select_by_path(idx, e::type::list, pf::value, e::val(value(list{i(7), i(8)}))),
              sample()) == value(list{i(7)}));
    // Map keys asked of a list: unknown, or nothing with NO_FAIL.
    const e::path all{e::ctx_all_children()};
    CHECK_FALSE(run(e::select_by_path(all, e::type::list, pf::map_key, e::val(value(list{i(1)}))),
                    sample()));
    // Outside a path expression a loop variable is unknown.
    CHECK_FALSE(run(e::loopvar_int(loopvar::value), sample()));
}

TEST_CASE("and_filter and map_keys_in narrow a step", "[exp][path]") {
    const e::path keys{e::ctx_map_keys_in(list{value("a"), value("c"), value("q")})};
    CHECK(run(e::select_by_path(keys, e::type::list, pf::map_key, m), sample()) ==
          value(list{value("a"), value("c")}));
    const e::path x3{e::ctx_all_children(),
                     e::ctx_step(cdt::ctx_step::map_key(value("x"))),
                     e::ctx_and_filter(e::loopvar_int(loopvar::value) == 3)};
    CHECK(run(e::select_by_path(x3, e::type::list, pf::value, m), sample()) == value(list{i(3)}));
    // An and-filter first, or after an all-children step, makes the call unknown.
    CHECK_FALSE(
        run(e::select_by_path({e::ctx_and_filter(true)}, e::type::list, pf::value, m), sample()));
    CHECK_FALSE(
        run(e::select_by_path(
                {e::ctx_all_children(), e::ctx_and_filter(true)}, e::type::list, pf::value, m),
            sample()));
}

TEST_CASE("modify_by_path replaces or removes the picked elements", "[exp][path]") {
    const e::path leaves{e::ctx_all_children(), e::ctx_all_children()};
    CHECK(run(e::modify_by_path(
                  leaves, e::type::map, e::add(e::loopvar_int(loopvar::value), 100), 0, m),
              sample()) ==
          value(map{{value("a"), value(map{{value("x"), i(101)}, {value("y"), i(102)}})},
                    {value("b"), value(map{{value("x"), i(103)}, {value("z"), i(104)}})},
                    {value("c"), i(5)}}));
    const e::path y{e::ctx_all_children(), e::ctx_step(cdt::ctx_step::map_key(value("y")))};
    CHECK(run(e::modify_by_path(y, e::type::map, e::remove_result(), 0, m), sample()) ==
          value(map{{value("a"), value(map{{value("x"), i(1)}})},
                    {value("b"), value(map{{value("x"), i(3)}, {value("z"), i(4)}})},
                    {value("c"), i(5)}}));
    // An unknown modify expression fails the call, or keeps the element with NO_FAIL.
    CHECK_FALSE(run(e::modify_by_path(leaves, e::type::map, e::unknown(), 0, m), sample()));
    CHECK(run(e::modify_by_path(leaves, e::type::map, e::unknown(), pf::no_fail, m), sample()) ==
          sample());
    // INF is never stored.
    CHECK_FALSE(run(e::modify_by_path(leaves, e::type::map, e::inf(), pf::no_fail, m), sample()));
    // A read call cannot apply (select_by_path with the apply bit).
    CHECK_FALSE(run(e::select_by_path(leaves, e::type::map, pf::apply, m), sample()));
    // An ORDERED list is sorted again after its elements change.
    value ordered(list(std::vector<value>{i(1), i(2), i(3)}, list_order::ordered));
    auto got = run(e::modify_by_path({e::ctx_all_children()},
                                     e::type::list,
                                     e::sub(0, e::loopvar_int(loopvar::value)),
                                     0,
                                     e::bin_list("m")),
                   ordered);
    REQUIRE(got);
    CHECK(*got == value(list{i(-3), i(-2), i(-1)}));
}

TEST_CASE("a picked map index stops the reader: a later sibling fails the call", "[exp][path]") {
    // cdt.c leaves its reader at the end of the bin after a map index pick,
    // so the walk fails on the next sibling at the level above ("b").
    const e::path first{e::ctx_all_children(), e::ctx_step(cdt::ctx_step::map_index(0))};
    CHECK_FALSE(run(e::select_by_path(first, e::type::list, pf::value, m), sample()));
    // Even a key step reads the keys after the one it found.
    const e::path b0{e::ctx_step(cdt::ctx_step::map_key(value("b"))),
                     e::ctx_step(cdt::ctx_step::map_index(0))};
    CHECK_FALSE(run(e::select_by_path(b0, e::type::list, pf::value, m), sample()));
    // With nothing after it, the pick stands.
    const value last(
        map{{value("a"), i(1)}, {value("b"), value(map{{value("x"), i(3)}, {value("z"), i(4)}})}});
    CHECK(run(e::select_by_path(b0, e::type::list, pf::value, m), last) == value(list{i(3)}));
}

TEST_CASE("a walk over a large structure is linear and bounded", "[exp][path]") {
    list big;
    for (std::int64_t k = 0; k < 200'000; ++k)
        big.push_back(value(list{i(k), i(-k)}));
    const e::path c{e::ctx_all_children_with_filter(e::loopvar_int(loopvar::index) < 3),
                    e::ctx_step(cdt::ctx_step::list_index(1))};
    CHECK(run(e::select_by_path(c, e::type::list, pf::value, e::bin_list("m")), value(big)) ==
          value(list{i(0), i(-1), i(-2)}));
    auto all = run(e::select_by_path({e::ctx_all_children(), e::ctx_all_children()},
                                     e::type::list,
                                     pf::value,
                                     e::bin_list("m")),
                   value(big));
    REQUIRE(all);
    CHECK(all->as_list().size() == 400'000);
}

} // namespace exp_path_test
