// The builder packs exactly what the C client's as_exp_compile packs
// (aerospike-client-c src/main/aerospike/as_exp.c: a list header per op
// counting its entries, as_pack_int64 for op codes and ints, strings with the
// AS_BYTES_STRING prefix, bin and variable names raw, lists quoted, calls as
// [127, type, system, [op, params..., policy...], bin] and through a context
// [127, type, system, [0xff, ctx, [op, ...]], bin]). Expected bytes are
// written by hand from those rules.
#include <kvmodel/exp/build.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace exp_build_test {

using namespace kvmodel;
namespace e = kvmodel::exp;
using b = std::vector<std::uint8_t>;

TEST_CASE("values pack like as_exp_int / str / float / val", "[exp][build]") {
    CHECK(e::int_val(10).bytes() == b{0x0a});
    CHECK(e::int_val(-1).bytes() == b{0xff});
    CHECK(e::int_val(-33).bytes() == b{0xd0, 0xdf});
    CHECK(e::int_val(200).bytes() == b{0xcc, 0xc8});
    CHECK(e::int_val(-129).bytes() == b{0xd1, 0xff, 0x7f});
    CHECK(e::uint_val(std::uint64_t{1} << 63).bytes() == b{0xcf, 0x80, 0, 0, 0, 0, 0, 0, 0});
    CHECK(e::float_val(1.5).bytes() == b{0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0});
    CHECK(e::bool_val(true).bytes() == b{0xc3});
    CHECK(e::str("ab").bytes() == b{0xa3, 0x03, 'a', 'b'});
    CHECK(e::bytes_val(bytes{9}).bytes() == b{0xa2, 0x04, 0x09});
    CHECK(e::nil().bytes() == b{0xc0});
    CHECK(e::inf().bytes() == b{0xd4, 0xff, 0x01});
    CHECK(e::wildcard().bytes() == b{0xd4, 0xff, 0x00});
    // A list value is quoted: [126, list].
    CHECK(e::val(value(list{value(std::int64_t{1}), value(std::int64_t{2})})).bytes() ==
          b{0x92, 0x7e, 0x92, 0x01, 0x02});
    CHECK(e::unknown().bytes() == b{0x91, 0x00});
}

TEST_CASE("ops pack as [code, args...]", "[exp][build]") {
    // as_exp_cmp_gt(as_exp_bin_int("a"), as_exp_int(10))
    CHECK((e::bin_int("a") > 10).bytes() == b{0x93, 0x03, 0x93, 0x51, 0x02, 0xa1, 'a', 0x0a});
    // as_exp_and(cmp_eq(bin_int("a"), 11), cmp_lt(bin_int("b"), 3))
    CHECK(e::and_(e::bin_int("a") == 11, e::bin_int("b") < 3).bytes() == b{0x93,
                                                                           0x10,
                                                                           0x93,
                                                                           0x01,
                                                                           0x93,
                                                                           0x51,
                                                                           0x02,
                                                                           0xa1,
                                                                           'a',
                                                                           0x0b,
                                                                           0x93,
                                                                           0x05,
                                                                           0x93,
                                                                           0x51,
                                                                           0x02,
                                                                           0xa1,
                                                                           'b',
                                                                           0x03});
    // as_exp_bin_exists("a") = cmp_ne(bin_type("a"), 0)
    CHECK(e::bin_exists("a").bytes() == b{0x93, 0x02, 0x92, 0x52, 0xa1, 'a', 0x00});
    CHECK(e::digest_modulo(3).bytes() == b{0x92, 0x40, 0x03});
    CHECK(e::key_int().bytes() == b{0x92, 0x50, 0x02});
    CHECK(e::ttl().bytes() == b{0x91, 0x45});
    // as_exp_cmp_regex(REGEX_ICASE, "^ab", as_exp_bin_str("s")): the pattern is raw.
    CHECK(e::cmp_regex(e::regex_flags::icase, "^ab", e::bin_str("s")).bytes() ==
          b{0x94, 0x07, 0x02, 0xa3, '^', 'a', 'b', 0x93, 0x51, 0x03, 0xa1, 's'});
    // as_exp_let(as_exp_def("x", bin_int("a")), as_exp_add(as_exp_var("x"), as_exp_int(1)))
    CHECK(e::let(e::def("x", e::bin_int("a")), e::var("x") + 1).bytes() == b{0x94,
                                                                             0x7d,
                                                                             0xa1,
                                                                             'x',
                                                                             0x93,
                                                                             0x51,
                                                                             0x02,
                                                                             0xa1,
                                                                             'a',
                                                                             0x93,
                                                                             0x14,
                                                                             0x92,
                                                                             0x7c,
                                                                             0xa1,
                                                                             'x',
                                                                             0x01});
    // as_exp_cond(c, 1, 2): a variadic of 3.
    CHECK(e::cond(true, 1, 2).bytes() == b{0x94, 0x7b, 0xc3, 0x01, 0x02});
    // Unary minus is sub with one argument.
    CHECK((-e::int_val(1)).bytes() == b{0x92, 0x15, 0x01});
}

TEST_CASE("CDT calls pack as the C client's call entries", "[exp][build]") {
    // as_exp_list_size(NULL, as_exp_bin_list("l")): type INT (COUNT), system CDT.
    CHECK(e::list_size(e::bin_list("l")).bytes() ==
          b{0x95, 0x7f, 0x02, 0x00, 0x91, 0x10, 0x93, 0x51, 0x04, 0xa1, 'l'});
    // as_exp_list_get_by_index(NULL, AS_LIST_RETURN_VALUE, AS_EXP_TYPE_INT, as_exp_int(0), bin)
    CHECK(e::list_get_by_index(7, e::type::integer, 0, e::bin_list("l")).bytes() ==
          b{0x95, 0x7f, 0x02, 0x00, 0x93, 0x13, 0x07, 0x00, 0x93, 0x51, 0x04, 0xa1, 'l'});
    // Through a context: [0xff, [type, value, ...], [op, ...]].
    e::ctx c{cdt::ctx_step::list_index(1)};
    CHECK(e::list_size(e::bin_list("l"), &c).bytes() == b{0x95,
                                                          0x7f,
                                                          0x02,
                                                          0x00,
                                                          0x93,
                                                          0xcc,
                                                          0xff,
                                                          0x92,
                                                          0x10,
                                                          0x01,
                                                          0x91,
                                                          0x10,
                                                          0x93,
                                                          0x51,
                                                          0x04,
                                                          0xa1,
                                                          'l'});
    // as_exp_map_put(NULL, NULL, key, val, bin): MAP, CDT | MODIFY_LOCAL.
    CHECK(
        e::map_put("k", 1, e::bin_map("m")).bytes() ==
        b{0x95, 0x7f, 0x05, 0x40, 0x93, 0x43, 0xa2, 0x03, 'k', 0x01, 0x93, 0x51, 0x05, 0xa1, 'm'});
    // With a policy: attributes then flags (CDT_MAP_CRMOD).
    cdt::map_policy mp;
    mp.order = map_order::key_ordered;
    mp.flags = cdt::map_write_flags::create_only;
    CHECK(e::map_put("k", 1, e::bin_map("m"), mp).bytes() == b{0x95,
                                                               0x7f,
                                                               0x05,
                                                               0x40,
                                                               0x95,
                                                               0x43,
                                                               0xa2,
                                                               0x03,
                                                               'k',
                                                               0x01,
                                                               0x01,
                                                               0x01,
                                                               0x93,
                                                               0x51,
                                                               0x05,
                                                               0xa1,
                                                               'm'});
    // as_exp_list_append with a policy: order then flags (CDT_LIST_CRMOD).
    cdt::list_policy lp;
    lp.order = list_order::ordered;
    lp.flags = cdt::list_write_flags::add_unique;
    CHECK(e::list_append(5, e::bin_list("l"), lp).bytes() ==
          b{0x95, 0x7f, 0x04, 0x40, 0x94, 0x01, 0x05, 0x01, 0x01, 0x93, 0x51, 0x04, 0xa1, 'l'});
    // as_exp_list_insert's policy is its flags only (CDT_LIST_MOD).
    CHECK(e::list_insert(0, 5, e::bin_list("l"), lp).bytes() ==
          b{0x95, 0x7f, 0x04, 0x40, 0x94, 0x03, 0x00, 0x05, 0x01, 0x93, 0x51, 0x04, 0xa1, 'l'});
    // A modify through a map context returns a map (as_exp_get_ctx_type).
    e::ctx mc{cdt::ctx_step::map_key(value("k"))};
    CHECK(e::list_append(5, e::bin_map("m"), {}, &mc).bytes()[2] == 0x05);
}

TEST_CASE("every builder output compiles", "[exp][build]") {
    std::vector<e::expr> all = {
        e::bin_int("a") > 10,
        e::and_(e::bin_exists("a"), e::map_size(e::bin_map("b")) == 3),
        e::let(e::def("x", e::bin_int("a")), e::cond(e::var("x") > 5, e::var("x") * 2, -1)),
        e::map_get_by_key(7, e::type::integer, "k", e::bin_map("b")),
        e::list_append(7, e::bin_list("b")),
        e::cmp_regex(e::regex_flags::icase, "^ab.*", e::bin_str("s")),
        e::to_float(e::int_count(e::bin_int("a"))) + 0.5 > 1.0,
        e::in_list(e::bin_str("s"), e::val(value(list{value("a")}))),
    };
    for (const e::expr& x : all) {
        auto p = e::compile(x.packed());
        INFO((p ? std::string("ok") : p.error().message));
        CHECK(p.has_value());
    }
}

TEST_CASE("path expressions pack as as_exp_select_by_path / modify_by_path", "[exp][build][path]") {
    // The expected bytes are what the C client 7.5.0's as_exp_compile packs
    // for the same macro calls (as_cdt_ctx_add_all_children packs `true`,
    // an and-filter the type 0x204, map_keys_in the key list as a value).
    const e::path sel_ctx{e::ctx_all_children(), e::ctx_step(cdt::ctx_step::map_key(value("x")))};
    CHECK(
        e::select_by_path(sel_ctx, e::type::list, e::path_flags::value, e::bin_map("m")).bytes() ==
        b{0x95, 0x7f, 0x04, 0x00, 0x93, 0xcc, 0xfe, 0x94, 0x04, 0xc3,
          0x22, 0xa2, 0x03, 0x78, 0x01, 0x93, 0x51, 0x05, 0xa1, 0x6d});
    const e::expr f = e::loopvar_int(e::loopvar::value) > 1;
    const e::expr g = e::loopvar_str(e::loopvar::key) == "a";
    CHECK(f.bytes() == b{0x93, 0x03, 0x93, 0x7a, 0x02, 0x01, 0x01});
    const e::path mod_ctx{e::ctx_map_keys_in(list{value("a"), value(std::int64_t{7})}),
                          e::ctx_and_filter(g),
                          e::ctx_all_children_with_filter(f),
                          e::ctx_step(cdt::ctx_step::list_index(-1))};
    const e::expr mod = e::add(e::loopvar_int(e::loopvar::value), 100);
    CHECK(e::modify_by_path(mod_ctx, e::type::map, mod, e::path_flags::no_fail, e::bin_map("m"))
              .bytes() == b{0x95, 0x7f, 0x05, 0x40, 0x94, 0xcc, 0xfe, 0x98, 0x2a, 0x92,
                            0xa2, 0x03, 0x61, 0x07, 0xcd, 0x02, 0x04, 0x93, 0x01, 0x93,
                            0x7a, 0x03, 0x00, 0xa2, 0x03, 0x61, 0x04, 0x93, 0x03, 0x93,
                            0x7a, 0x02, 0x01, 0x01, 0x10, 0xff, 0x14, 0x93, 0x14, 0x93,
                            0x7a, 0x02, 0x01, 0x64, 0x93, 0x51, 0x05, 0xa1, 0x6d});
    CHECK(e::remove_result().bytes() == b{0x91, 0x64});
    CHECK(e::map_keys_in(e::bin_map("m")).bytes() == b{0x92, 0x65, 0x93, 0x51, 0x05, 0xa1, 0x6d});
    CHECK(e::map_values_in(e::bin_map("m")).bytes() == b{0x92, 0x66, 0x93, 0x51, 0x05, 0xa1, 0x6d});
    CHECK(e::loopvar_bool(e::loopvar::value).bytes() == b{0x93, 0x7a, 0x01, 0x01});
}

} // namespace exp_build_test
