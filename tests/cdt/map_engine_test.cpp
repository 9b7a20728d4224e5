// Unit tests for the map half of the CDT engine (cdt/detail/map_engine.hpp)
// and its builders (cdt/map_ops.hpp): every map op, return type, write flag
// combination and edge case, with the examples of shared/AEROSPIKE-CDT.md.
// Expectations are worked out by hand from the rule book and, where it is
// silent, from the server's code (aerospike-server 8.1.2,
// as/src/base/particle_map.c and cdt.c), cited as "server:".
#include <kvmodel/cdt/detail/map_engine.hpp>
#include <kvmodel/cdt/engine.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/core/json.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cdt_map_engine_test {

using namespace kvmodel;
namespace mo = kvmodel::cdt::map_ops;
using rt = kvmodel::cdt::return_type;
using kvmodel::cdt::map_write_flags::create_only;
using kvmodel::cdt::map_write_flags::no_fail;
using kvmodel::cdt::map_write_flags::partial;
using kvmodel::cdt::map_write_flags::update_only;

namespace {

constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();

/// A value in the cdt-json notation (shared/spec/cdt-json.md).
value J(std::string_view text) {
    result<value> r = value_from_json_text(text);
    INFO(text);
    REQUIRE(r.has_value());
    return *r;
}

/// A map bin from a JSON list of [key, value] pairs.
std::optional<value>
M(std::string_view pairs, map_order order = map_order::unordered, bool persist = false) {
    map m(order);
    m.set_persist_index(persist);
    value parsed = J(pairs); // named: a range-for over J(...).as_list() would dangle
    for (const value& p : parsed.as_list())
        m.put(p.as_list()[0], p.as_list()[1]);
    return value(std::move(m));
}

/// The shared test map: keys a..e, values with a tie.
///   key order  a:5 b:1 c:3 d:1 e:4      (indexes 0..4)
///   rank order b:1 d:1 c:3 e:4 a:5      (ranks 0..4; b before d: ties by key)
std::optional<value> A(map_order order = map_order::unordered, bool persist = false) {
    return M(R"([["a",5],["b",1],["c",3],["d",1],["e",4]])", order, persist);
}

value ok(std::optional<value>& bin, const cdt::op& o) {
    result<value> r = cdt::apply(bin, o);
    INFO(std::string(cdt::op_name(o.code)) << " on " << (bin ? to_string(*bin) : "<absent>"));
    if (!r)
        INFO(r.error().message);
    REQUIRE(r.has_value());
    return *r;
}

/// Runs o on a copy of bin and returns its result (bin is not changed).
value get(const std::optional<value>& bin, const cdt::op& o) {
    std::optional<value> copy = bin;
    return ok(copy, o);
}

/// The failing op's status; checks that the bin is exactly as it was.
status err(std::optional<value>& bin, const cdt::op& o) {
    std::optional<value> before = bin;
    result<value> r = cdt::apply(bin, o);
    INFO(std::string(cdt::op_name(o.code)));
    REQUIRE_FALSE(r.has_value());
    CHECK(bin.has_value() == before.has_value());
    if (bin && before) {
        CHECK(*bin == *before);
        if (bin->is_map())
            CHECK(bin->as_map().order() == before->as_map().order());
    }
    CHECK_FALSE(r.error().message.empty());
    return r.code();
}

status err_of(const std::optional<value>& bin, const cdt::op& o) {
    std::optional<value> copy = bin;
    return err(copy, o);
}

/// Keys of the bin's map, in stored order.
value keys_of(const std::optional<value>& bin) {
    list out;
    for (const map_entry& e : bin->as_map())
        out.push_back(e.key);
    return out;
}

} // namespace

// ------------------------------------------------------------------ builders

TEST_CASE("map_ops builders fill the op fields the engine reads", "[cdt][map_engine]") {
    cdt::op o = mo::get_by_rank_range(-3, 2, rt::key_value, true);
    CHECK(o.code == cdt::op_code::map_get_by_rank_range);
    CHECK(o.index == -3);
    CHECK(o.count == 2);
    CHECK(o.return_type == (8 | cdt::return_inverted));
    CHECK(o.ctx.empty());

    o = mo::remove_by_value_range(1, std::nullopt, rt::count, false, {cdt::ctx_step::map_key("m")});
    CHECK(o.code == cdt::op_code::map_remove_by_value_range);
    CHECK(o.begin == value(1));
    CHECK_FALSE(o.end.has_value());
    CHECK(o.ctx.size() == 1);

    o = mo::put("k", 1, mo::policy(map_order::key_ordered, create_only | no_fail));
    CHECK(o.key == value("k"));
    CHECK(o.val == value(1));
    CHECK(o.mpolicy.order == map_order::key_ordered);
    CHECK(o.mpolicy.flags == (create_only | no_fail));
    CHECK_FALSE(o.mpolicy.mode.has_value());

    o = mo::put_items({{"a", 1}},
                      mo::policy(map_order::unordered, cdt::map_write_mode::update_only));
    CHECK(o.items.size() == 1);
    CHECK(o.mpolicy.mode == cdt::map_write_mode::update_only);

    o = mo::decrement("n", 2);
    CHECK(o.code == cdt::op_code::map_decrement);
    o = mo::get_by_value_rel_rank_range(11, -1, std::nullopt, rt::value);
    CHECK(o.key == value(11));
    CHECK(o.index == -1);
    CHECK_FALSE(o.count.has_value());
    o = mo::create(map_order::key_value_ordered, true);
    CHECK(o.morder == map_order::key_value_ordered);
    CHECK(o.persist_index);
    CHECK(mo::wire_return(rt::exists, true) == (13 | 0x10000));
}

// ------------------------------------------------------------------ orders

TEST_CASE("map orders: created with the policy's order, converted by set_policy",
          "[cdt][map_engine]") {
    SECTION("the policy order applies only when the op creates the map") {
        std::optional<value> bin;
        CHECK(ok(bin, mo::put("b", 1, mo::policy(map_order::key_ordered))) == value(1));
        CHECK(bin->as_map().order() == map_order::key_ordered);
        CHECK(ok(bin, mo::put("a", 2, mo::policy(map_order::key_value_ordered))) == value(2));
        CHECK(bin->as_map().order() == map_order::key_ordered);
        std::optional<value> fresh;
        ok(fresh, mo::put("x", 1));
        CHECK(fresh->as_map().order() == map_order::unordered);
    }
    SECTION("UNORDERED maps read back in key order (8.1.2)") {
        std::optional<value> bin;
        ok(bin, mo::put("b", 1));
        ok(bin, mo::put("a", 2));
        ok(bin, mo::put("c", 3));
        CHECK(keys_of(bin) == J(R"(["a","b","c"])"));
    }
    SECTION("index is key order for every map type (GO Switch Policy, C map_switch)") {
        for (map_order order :
             {map_order::unordered, map_order::key_ordered, map_order::key_value_ordered}) {
            std::optional<value> bin;
            for (int k : {4, 3, 2, 1})
                ok(bin, mo::put(k, k * 10, mo::policy(order)));
            CHECK(get(bin, mo::get_by_index(2, rt::key)) == value(3));
            CHECK(get(bin, mo::get_by_index(2, rt::value)) == value(30));
        }
    }
    SECTION("set_policy converts in place and returns nil") {
        std::optional<value> bin = A();
        CHECK(ok(bin, mo::set_policy(map_order::key_value_ordered)).is_nil());
        CHECK(bin->as_map().order() == map_order::key_value_ordered);
        CHECK(*bin == *A());
        CHECK(ok(bin, mo::set_policy(map_order::unordered)).is_nil());
        CHECK(bin->as_map().order() == map_order::unordered);
    }
    SECTION("set_policy / create on an absent bin create an empty map with that order") {
        std::optional<value> bin;
        CHECK(ok(bin, mo::set_policy(map_order::key_ordered)).is_nil());
        REQUIRE(bin);
        CHECK(bin->as_map().empty());
        CHECK(bin->as_map().order() == map_order::key_ordered);
        std::optional<value> b2;
        CHECK(ok(b2, mo::create(map_order::key_value_ordered)).is_nil());
        CHECK(b2->as_map().order() == map_order::key_value_ordered);
    }
    SECTION("an order the server's cdt_check_flags refuses is OP_NOT_APPLICABLE") {
        std::optional<value> bin = A();
        CHECK(err(bin, mo::set_policy(static_cast<map_order>(7))) == status::op_not_applicable);
        // 2 (V_ORDERED alone) passes the server's check but no client sends it
        // and kvmodel cannot represent it: refused (documented departure).
        CHECK(err(bin, mo::set_policy(static_cast<map_order>(2))) == status::op_not_applicable);
        // When an op creates the map, an invalid order falls back to UNORDERED
        // (server: cdt_context_use_static_map_if_notinuse drops the flags).
        std::optional<value> fresh;
        ok(fresh, mo::put("k", 1, mo::policy(static_cast<map_order>(7))));
        CHECK(fresh->as_map().order() == map_order::unordered);
    }
    SECTION("persist_index: kept on a top-level map, even an UNORDERED one") {
        std::optional<value> bin;
        ok(bin, mo::put("k", 1, mo::policy(map_order::key_value_ordered, 0, true)));
        CHECK(bin->as_map().persist_index());
        std::optional<value> un;
        ok(un, mo::put("k", 1, mo::policy(map_order::unordered, 0, true)));
        // The server stores it as K_ORDERED with a key index (measured size).
        CHECK(un->as_map().persist_index());
        CHECK(un->as_map().order() == map_order::unordered);
        std::optional<value> kv = A(map_order::key_ordered);
        ok(kv, mo::set_policy(map_order::key_ordered, true));
        CHECK(kv->as_map().persist_index());
        ok(kv, mo::set_policy(map_order::key_ordered, false));
        CHECK_FALSE(kv->as_map().persist_index());
    }
    SECTION("removing the last entry leaves an empty map, not an absent bin") {
        std::optional<value> bin = M(R"([["a",1]])", map_order::key_ordered);
        CHECK(ok(bin, mo::remove_by_key("a", rt::value)) == value(1));
        REQUIRE(bin);
        CHECK(bin->as_map().empty());
        CHECK(bin->as_map().order() == map_order::key_ordered);
    }
}

// ------------------------------------------------------------------ value order

TEST_CASE("map ranks follow Aerospike's cross-type order, ties by key", "[cdt][map_engine]") {
    SECTION("NIL < BOOL < INT < STRING < LIST < MAP < BYTES < DOUBLE") {
        std::optional<value> bin = M(
            R"([["k1",false],["k2",1],["k3",{"$double":1.5}],["k4","7"],["k5",[1]],["k6",{"$map":[["a",1]]}],["k7",{"$bytes":"00"}],["k8",null]])");
        CHECK(get(bin, mo::get_by_rank_range(0, std::nullopt, rt::key)) ==
              J(R"(["k8","k1","k2","k4","k5","k6","k7","k3"])"));
    }
    SECTION("mixed key types: index order 1, 3, \"a\", \"b\", bytes; value ties by key (§13)") {
        std::optional<value> bin = M(R"([[3,2],[1,5],["b",0],["a",1],[{"$bytes":"01"},1]])");
        CHECK(get(bin, mo::get_by_index_range(0, std::nullopt, rt::key)) ==
              J(R"([1,3,"a","b",{"$bytes":"01"}])"));
        CHECK(get(bin, mo::get_by_rank_range(0, std::nullopt, rt::key)) ==
              J(R"(["b","a",{"$bytes":"01"},3,1])"));
    }
    SECTION("equal values rank by key (GO: p2=20 ranks before p4=20)") {
        std::optional<value> bin = M(R"([["p1",10],["p4",20],["p2",20],["p3",5]])");
        CHECK(get(bin, mo::get_by_rank_range(0, std::nullopt, rt::key)) ==
              J(R"(["p3","p1","p2","p4"])"));
        CHECK(get(bin, mo::get_by_key("p2", rt::rank)) == value(2));
        CHECK(get(bin, mo::get_by_key("p4", rt::rank)) == value(3));
        CHECK(get(bin, mo::get_by_rank(2, rt::key)) == value("p2"));
    }
    SECTION("integers and doubles never compare equal (§13)") {
        std::optional<value> bin =
            M(R"([["a",1],["b",{"$double":1.0}],["c",2],["d",{"$double":2.5}]])");
        CHECK(get(bin, mo::get_by_value(1, rt::key)) == J(R"(["a"])"));
        CHECK(get(bin, mo::get_by_value(1.0, rt::key)) == J(R"(["b"])"));
        // [1, 2.0): every integer >= 1 sorts below every double.
        CHECK(get(bin, mo::get_by_value_range(1, value(2.0), rt::key)) == J(R"(["a","b","c"])"));
    }
    SECTION("booleans rank below every integer (False < True < 1)") {
        std::optional<value> bin = M(R"([["a",1],["b",true],["c",false]])");
        CHECK(get(bin, mo::get_by_rank_range(0, std::nullopt, rt::value)) ==
              J(R"([false,true,1])"));
        CHECK(get(bin, mo::get_by_value_range(1, std::nullopt, rt::key)) == J(R"(["a"])"));
    }
}

// ------------------------------------------------------------------ put

TEST_CASE("map_put: result is the size; write flags and legacy modes", "[cdt][map_engine]") {
    SECTION("default: create or overwrite") {
        std::optional<value> bin = A();
        CHECK(ok(bin, mo::put("f", 6)) == value(6));
        CHECK(ok(bin, mo::put("a", 0)) == value(6));
        CHECK(bin->as_map().get("a")->as_int() == 0);
    }
    SECTION("CREATE_ONLY") {
        std::optional<value> bin = A();
        CHECK(err(bin, mo::put("a", 0, mo::policy(map_order::unordered, create_only))) ==
              status::element_exists);
        CHECK(ok(bin, mo::put("f", 6, mo::policy(map_order::unordered, create_only))) == value(6));
    }
    SECTION("UPDATE_ONLY") {
        std::optional<value> bin = A();
        CHECK(err(bin, mo::put("z", 0, mo::policy(map_order::unordered, update_only))) ==
              status::element_not_found);
        CHECK(ok(bin, mo::put("a", 9, mo::policy(map_order::unordered, update_only))) == value(5));
        CHECK(bin->as_map().get("a")->as_int() == 9);
    }
    SECTION("NO_FAIL turns a denial into a no-op that still returns the size") {
        std::optional<value> bin = A();
        CHECK(ok(bin, mo::put("a", 0, mo::policy(map_order::unordered, create_only | no_fail))) ==
              value(5));
        CHECK(*bin == *A());
        CHECK(ok(bin, mo::put("z", 0, mo::policy(map_order::unordered, update_only | no_fail))) ==
              value(5));
        CHECK(*bin == *A());
        // PARTIAL changes nothing for a single put.
        CHECK(ok(bin,
                 mo::put(
                     "z", 0, mo::policy(map_order::unordered, update_only | no_fail | partial))) ==
              value(5));
        CHECK(*bin == *A());
    }
    SECTION("CREATE_ONLY | UPDATE_ONLY denies every put") {
        std::optional<value> bin = A();
        auto both = mo::policy(map_order::unordered, create_only | update_only);
        CHECK(err(bin, mo::put("a", 0, both)) == status::element_exists);
        CHECK(err(bin, mo::put("z", 0, both)) == status::element_not_found);
    }
    SECTION("a NO_FAIL no-op on an absent bin still creates the (empty) map") {
        // server: the op runs on a static empty map that is kept when nothing fails.
        std::optional<value> bin;
        CHECK(ok(bin, mo::put("z", 0, mo::policy(map_order::key_ordered, update_only | no_fail))) ==
              value(0));
        REQUIRE(bin);
        CHECK(bin->as_map().empty());
        CHECK(bin->as_map().order() == map_order::key_ordered);
    }
    SECTION("legacy write modes") {
        using cdt::map_write_mode;
        std::optional<value> bin = A();
        CHECK(ok(bin, mo::put("a", 7, mo::policy(map_order::unordered, map_write_mode::update))) ==
              value(5));
        CHECK(ok(bin,
                 mo::put("a", 8, mo::policy(map_order::unordered, map_write_mode::update_only))) ==
              value(5));
        CHECK(err(bin,
                  mo::put("z", 8, mo::policy(map_order::unordered, map_write_mode::update_only))) ==
              status::element_not_found);
        CHECK(err(bin,
                  mo::put("a", 8, mo::policy(map_order::unordered, map_write_mode::create_only))) ==
              status::element_exists);
        CHECK(ok(bin,
                 mo::put("z", 8, mo::policy(map_order::unordered, map_write_mode::create_only))) ==
              value(6));
        // A mode replaces the flags: NO_FAIL is not sent with it.
        cdt::map_policy p = mo::policy(map_order::unordered, map_write_mode::create_only);
        p.flags = no_fail;
        CHECK(err(bin, mo::put("a", 1, p)) == status::element_exists);
        // REPLACE (UPDATE_ONLY) on an absent bin: nothing to update, nothing created.
        std::optional<value> none;
        CHECK(
            err(none,
                mo::put("a", 1, mo::policy(map_order::key_ordered, map_write_mode::update_only))) ==
            status::element_not_found);
        CHECK_FALSE(none.has_value());
    }
    SECTION(
        "keys: integers, strings, bytes; anything else is PARAMETER_ERROR (server: map_is_key)") {
        std::optional<value> bin = A();
        CHECK(ok(bin, mo::put(value(to_bytes("k")), 1)) == value(6));
        CHECK(ok(bin, mo::put(-7, 1)) == value(7));
        CHECK(err(bin, mo::put(1.5, 1)) == status::parameter_error);
        CHECK(err(bin, mo::put(true, 1)) == status::parameter_error);
        CHECK(err(bin, mo::put(value(), 1)) == status::parameter_error);
        CHECK(err(bin, mo::put(list{1}, 1)) == status::parameter_error);
        CHECK(err(bin, mo::put(wildcard, 1)) == status::parameter_error);
    }
    SECTION("INF and WILDCARD cannot be stored") {
        std::optional<value> bin = A();
        CHECK(err(bin, mo::put("a", inf)) == status::parameter_error);
        CHECK(err(bin, mo::put("a", list{1, wildcard})) == status::parameter_error);
        CHECK(err(bin, mo::put("a", map{{"x", inf}})) == status::parameter_error);
    }
    SECTION("a bin of another type is BIN_TYPE_ERROR (12)") {
        std::optional<value> bin = value("text");
        CHECK(err(bin, mo::put("a", 1)) == status::bin_type_error);
        CHECK(err(bin, mo::get_by_key("a", rt::value)) == status::bin_type_error);
        CHECK(err(bin, mo::remove_by_key("a", rt::value)) == status::bin_type_error);
        CHECK(err(bin, mo::size()) == status::bin_type_error);
        CHECK(err(bin, mo::clear()) == status::bin_type_error);
        std::optional<value> lst = value(list{1, 2});
        CHECK(err(lst, mo::set_policy(map_order::key_ordered)) == status::bin_type_error);
    }
}

// ------------------------------------------------------------------ put_items

TEST_CASE("map_put_items: every write flag combination", "[cdt][map_engine]") {
    // A has a..e; the items update "a" and create "f".
    std::vector<std::pair<value, value>> items{{"f", 6}, {"a", 0}};
    auto with = [&](std::uint32_t flags) {
        return mo::put_items(items, mo::policy(map_order::unordered, flags));
    };
    SECTION("no flags: create and overwrite") {
        std::optional<value> bin = A();
        CHECK(ok(bin, with(0)) == value(6));
        CHECK(bin->as_map().get("a")->as_int() == 0);
    }
    SECTION("CREATE_ONLY: one existing key fails the whole op") {
        std::optional<value> bin = A();
        CHECK(err(bin, with(create_only)) == status::element_exists);
    }
    SECTION("CREATE_ONLY | NO_FAIL without PARTIAL drops every item") {
        std::optional<value> bin = A();
        CHECK(ok(bin, with(create_only | no_fail)) == value(5));
        CHECK(*bin == *A());
    }
    SECTION("CREATE_ONLY | NO_FAIL | PARTIAL writes the allowed items only") {
        std::optional<value> bin = A();
        CHECK(ok(bin, with(create_only | no_fail | partial)) == value(6));
        CHECK(bin->as_map().get("a")->as_int() == 5);
        CHECK(bin->as_map().get("f")->as_int() == 6);
    }
    SECTION("CREATE_ONLY | PARTIAL: PARTIAL alone has no effect") {
        std::optional<value> bin = A();
        CHECK(err(bin, with(create_only | partial)) == status::element_exists);
    }
    SECTION("UPDATE_ONLY and its NO_FAIL / PARTIAL variants") {
        std::optional<value> bin = A();
        CHECK(err(bin, with(update_only)) == status::element_not_found);
        CHECK(ok(bin, with(update_only | no_fail)) == value(5));
        CHECK(*bin == *A());
        CHECK(ok(bin, with(update_only | no_fail | partial)) == value(5));
        CHECK(bin->as_map().get("a")->as_int() == 0);
        CHECK_FALSE(bin->as_map().contains("f"));
        CHECK(err(bin, with(update_only | partial)) == status::element_not_found);
    }
    SECTION("CREATE_ONLY | UPDATE_ONLY: the first denied item in key order names the error") {
        std::optional<value> bin = A();
        CHECK(err(bin, with(create_only | update_only)) == status::element_exists); // "a" < "f"
        std::optional<value> b2 = A();
        CHECK(err(b2,
                  mo::put_items({{"0", 1}, {"a", 1}},
                                mo::policy(map_order::unordered, create_only | update_only))) ==
              status::element_not_found); // "0" < "a"
        CHECK(ok(b2,
                 mo::put_items({{"0", 1}, {"a", 1}},
                               mo::policy(map_order::unordered,
                                          create_only | update_only | no_fail | partial))) ==
              value(5));
        CHECK(*b2 == *A());
    }
    SECTION("legacy modes") {
        using cdt::map_write_mode;
        std::optional<value> bin = A();
        CHECK(err(bin,
                  mo::put_items(items,
                                mo::policy(map_order::unordered, map_write_mode::update_only))) ==
              status::element_not_found);
        CHECK(err(bin,
                  mo::put_items(items,
                                mo::policy(map_order::unordered, map_write_mode::create_only))) ==
              status::element_exists);
        CHECK(ok(bin,
                 mo::put_items(items, mo::policy(map_order::unordered, map_write_mode::update))) ==
              value(6));
        // REPLACE_ITEMS on an absent bin fails before looking at the items.
        std::optional<value> none;
        CHECK(
            err(none,
                mo::put_items({}, mo::policy(map_order::unordered, map_write_mode::update_only))) ==
            status::element_not_found);
    }
    SECTION("empty items: a no-op returning the size (an absent bin becomes an empty map)") {
        std::optional<value> bin = A();
        CHECK(ok(bin, mo::put_items({})) == value(5));
        std::optional<value> none;
        CHECK(ok(none, mo::put_items({}, mo::policy(map_order::key_ordered))) == value(0));
        REQUIRE(none);
        CHECK(none->as_map().order() == map_order::key_ordered);
    }
    SECTION("on an empty map, UPDATE_ONLY | NO_FAIL | PARTIAL writes every item (server quirk)") {
        // server: map_add_items_ordered's empty-map branch returns early only
        // without PARTIAL, then writes all the items.
        std::optional<value> bin = M("[]");
        CHECK(ok(bin, with(update_only | no_fail)) == value(0));
        CHECK(bin->as_map().empty());
        CHECK(ok(bin, with(update_only | no_fail | partial)) == value(2));
        CHECK(bin->as_map().size() == 2);
        std::optional<value> none;
        CHECK(err(none, with(update_only)) == status::element_not_found);
        CHECK_FALSE(none.has_value());
    }
    SECTION("a repeated key keeps its last value (a client map cannot repeat keys)") {
        std::optional<value> bin;
        CHECK(ok(bin, mo::put_items({{"k", 1}, {"j", 0}, {"k", 2}})) == value(2));
        CHECK(bin->as_map().get("k")->as_int() == 2);
    }
    SECTION("put_items stores keys map_put refuses (server: no map_is_key check there)") {
        std::optional<value> bin;
        CHECK(ok(bin, mo::put_items({{1.5, "d"}, {list{1, 2}, "l"}, {"s", 1}})) == value(3));
        CHECK(keys_of(bin) == J(R"(["s",[1,2],{"$double":1.5}])"));
        CHECK(err(bin, mo::put_items({{"x", inf}})) == status::parameter_error);
    }
}

// ------------------------------------------------------------------ increment

TEST_CASE("map_increment / map_decrement", "[cdt][map_engine]") {
    SECTION("a missing key starts from 0; the result is the new value") {
        std::optional<value> bin = A();
        CHECK(ok(bin, mo::increment("n", 5)) == value(5));
        CHECK(ok(bin, mo::increment("n", 2)) == value(7));
        CHECK(ok(bin, mo::decrement("n", 10)) == value(-3));
        CHECK(ok(bin, mo::decrement("m", 4)) == value(-4));
        CHECK(ok(bin, mo::increment("x", 2.5)) == value(2.5));
        CHECK(bin->as_map().get("x")->is_double());
        CHECK(ok(bin, mo::increment("d", 2.5)) == value(3)); // "d" holds the integer 1
    }
    SECTION("from 0 means 0 + delta: a delta of -0.0 makes +0.0 (8.1.2, --profile values)") {
        std::optional<value> bin = A();
        value up = ok(bin, mo::increment("z", -0.0));
        REQUIRE(up.is_double());
        CHECK_FALSE(std::signbit(up.as_double()));
        CHECK_FALSE(std::signbit(bin->as_map().get("z")->as_double()));
        value down = ok(bin, mo::decrement("y", 0.0));
        REQUIRE(down.is_double());
        CHECK_FALSE(std::signbit(down.as_double()));
    }
    SECTION("a nil delta is 1 (server: cdt_calc_delta_init)") {
        std::optional<value> bin = M(R"([["i",1],["d",{"$double":0.5}]])");
        CHECK(ok(bin, mo::increment("i", value())) == value(2));
        CHECK(ok(bin, mo::increment("d", value())) == value(1.5));
        CHECK(ok(bin, mo::decrement("new", value())) == value(-1));
    }
    SECTION("the stored number's type wins; a double delta on an int is truncated") {
        std::optional<value> bin = M(R"([["i",1],["d",{"$double":1.5}]])");
        CHECK(ok(bin, mo::increment("i", 1.9)) == value(2));
        CHECK(ok(bin, mo::decrement("i", 1.9)) == value(1));
        CHECK(ok(bin, mo::increment("d", 2)) == value(3.5));
        CHECK(ok(bin, mo::decrement("d", 1)) == value(2.5));
    }
    SECTION("integer overflow wraps; an out-of-range double delta is INT64_MIN (x86 cvttsd2si)") {
        std::optional<value> bin = M(R"([["i",9223372036854775807],["z",0]])");
        CHECK(ok(bin, mo::increment("i", 1)) == value(i64_min));
        CHECK(ok(bin, mo::increment("z", 1e300)) == value(i64_min));
        CHECK(ok(bin, mo::decrement("z", i64_min)) == value(0));
    }
    SECTION("non-numbers are PARAMETER_ERROR") {
        std::optional<value> bin = A();
        ok(bin, mo::put("s", "text"));
        CHECK(err(bin, mo::increment("s", 1)) == status::parameter_error);
        CHECK(err(bin, mo::increment("a", "x")) == status::parameter_error);
        CHECK(err(bin, mo::increment("a", list{1})) == status::parameter_error);
        CHECK(err(bin, mo::increment(1.5, 1)) == status::parameter_error);
        CHECK(err(bin, mo::increment(list{1}, 1)) == status::parameter_error);
    }
    SECTION("creates the map with the policy's order; write flags do not apply") {
        std::optional<value> bin;
        CHECK(
            ok(bin, mo::increment("n", 1, mo::policy(map_order::key_value_ordered, update_only))) ==
            value(1));
        CHECK(bin->as_map().order() == map_order::key_value_ordered);
        std::optional<value> none;
        CHECK(err(none, mo::increment("n", "x")) == status::parameter_error);
        CHECK_FALSE(none.has_value());
    }
}

// ------------------------------------------------------------------ size, clear, absent

TEST_CASE("map size, clear, and every op on an absent bin", "[cdt][map_engine]") {
    std::optional<value> bin = A(map_order::key_ordered);
    CHECK(get(bin, mo::size()) == value(5));
    CHECK(ok(bin, mo::clear()).is_nil());
    CHECK(bin->as_map().empty());
    CHECK(bin->as_map().order() == map_order::key_ordered);
    CHECK(get(bin, mo::size()) == value(0));

    std::optional<value> none;
    CHECK(ok(none, mo::size()).is_nil());
    CHECK(ok(none, mo::clear()).is_nil());
    CHECK(ok(none, mo::get_by_key("a", rt::value)).is_nil());
    CHECK(ok(none, mo::get_by_rank_range(0, 2, rt::count)).is_nil());
    CHECK(ok(none, mo::remove_by_index(0, rt::value)).is_nil());
    CHECK(ok(none, mo::remove_by_value_list({}, rt::key, true)).is_nil());
    // Reads and removes of an absent bin never look at their arguments.
    CHECK(ok(none, mo::get_by_key("a", static_cast<rt>(99))).is_nil());
    CHECK(ok(none, mo::get_by_index(7, rt::value, true)).is_nil());
    CHECK_FALSE(none.has_value());
}

// ------------------------------------------------------------------ single results

TEST_CASE("map get/remove_by_key: single results, every return type", "[cdt][map_engine]") {
    std::optional<value> bin = A();
    SECTION("found") {
        CHECK(get(bin, mo::get_by_key("c", rt::none)).is_nil());
        CHECK(get(bin, mo::get_by_key("c", rt::index)) == value(2));
        CHECK(get(bin, mo::get_by_key("c", rt::reverse_index)) == value(2));
        CHECK(get(bin, mo::get_by_key("b", rt::reverse_index)) == value(3));
        CHECK(get(bin, mo::get_by_key("c", rt::rank)) == value(2));
        CHECK(get(bin, mo::get_by_key("a", rt::reverse_rank)) == value(0));
        CHECK(get(bin, mo::get_by_key("c", rt::count)) == value(1));
        CHECK(get(bin, mo::get_by_key("c", rt::key)) == value("c"));
        CHECK(get(bin, mo::get_by_key("c", rt::value)) == value(3));
        CHECK(get(bin, mo::get_by_key("c", rt::key_value)) == J(R"([["c",3]])"));
        CHECK(get(bin, mo::get_by_key("c", rt::exists)) == value(true));
        value um = get(bin, mo::get_by_key("c", rt::unordered_map));
        CHECK(um == J(R"({"$map":[["c",3]]})"));
        CHECK(um.as_map().order() == map_order::unordered);
        value om = get(bin, mo::get_by_key("c", rt::ordered_map));
        CHECK(om.as_map().order() == map_order::key_ordered);
    }
    SECTION("not found (§22; server: result_data_set_not_found)") {
        CHECK(get(bin, mo::get_by_key("z", rt::none)).is_nil());
        CHECK(get(bin, mo::get_by_key("z", rt::index)) == value(-1));
        CHECK(get(bin, mo::get_by_key("z", rt::reverse_rank)) == value(-1));
        CHECK(get(bin, mo::get_by_key("z", rt::count)) == value(0));
        CHECK(get(bin, mo::get_by_key("z", rt::exists)) == value(false));
        CHECK(get(bin, mo::get_by_key("z", rt::key)).is_nil());
        CHECK(get(bin, mo::get_by_key("z", rt::value)).is_nil());
        CHECK(get(bin, mo::get_by_key("z", rt::key_value)) == J("[]"));
        CHECK(get(bin, mo::get_by_key("z", rt::ordered_map)) == J(R"({"$map":[]})"));
    }
    SECTION("remove_by_key returns the same and removes") {
        CHECK(ok(bin, mo::remove_by_key("c", rt::value)) == value(3));
        CHECK(keys_of(bin) == J(R"(["a","b","d","e"])"));
        CHECK(ok(bin, mo::remove_by_key("z", rt::value)).is_nil());
        CHECK(bin->as_map().size() == 4);
    }
    SECTION("INVERTED on a single-result op (§25)") {
        CHECK(err(bin, mo::get_by_key("c", rt::value, true)) == status::op_not_applicable);
        CHECK(err(bin, mo::get_by_key("z", rt::value, true)) == status::op_not_applicable);
        // The key-ordered path answers "not found" before it looks at the flag
        // (server: packed_map_get_remove_by_key_interval).
        std::optional<value> k = A(map_order::key_ordered);
        CHECK(err(k, mo::get_by_key("c", rt::value, true)) == status::op_not_applicable);
        CHECK(get(k, mo::get_by_key("z", rt::index, true)) == value(-1));
        CHECK(ok(k, mo::remove_by_key("z", rt::value, true)).is_nil());
        CHECK(*k == *A());
    }
}

TEST_CASE("map get/remove_by_index and _by_rank: single results", "[cdt][map_engine]") {
    std::optional<value> bin = A();
    CHECK(get(bin, mo::get_by_index(0, rt::key)) == value("a"));
    CHECK(get(bin, mo::get_by_index(-1, rt::key)) == value("e"));
    CHECK(get(bin, mo::get_by_index(-5, rt::value)) == value(5));
    CHECK(get(bin, mo::get_by_index(1, rt::rank)) == value(0));
    CHECK(get(bin, mo::get_by_index(1, rt::reverse_index)) == value(3));
    CHECK(get(bin, mo::get_by_index(1, rt::key_value)) == J(R"([["b",1]])"));
    CHECK(get(bin, mo::get_by_rank(0, rt::key)) == value("b"));
    CHECK(get(bin, mo::get_by_rank(1, rt::key)) == value("d"));
    CHECK(get(bin, mo::get_by_rank(-1, rt::key)) == value("a"));
    CHECK(get(bin, mo::get_by_rank(1, rt::index)) == value(3));
    CHECK(get(bin, mo::get_by_rank(1, rt::reverse_index)) == value(1));
    CHECK(get(bin, mo::get_by_rank(1, rt::rank)) == value(1));
    CHECK(get(bin, mo::get_by_rank(1, rt::reverse_rank)) == value(3));
    CHECK(get(bin, mo::get_by_rank(3, rt::exists)) == value(true));
    SECTION("out of range: OP_NOT_APPLICABLE (§11; e.g. get_by_index 200, get_by_rank 6)") {
        CHECK(err(bin, mo::get_by_index(5, rt::value)) == status::op_not_applicable);
        CHECK(err(bin, mo::get_by_index(200, rt::value)) == status::op_not_applicable);
        CHECK(err(bin, mo::get_by_index(-6, rt::value)) == status::op_not_applicable);
        CHECK(err(bin, mo::get_by_rank(6, rt::value)) == status::op_not_applicable);
        CHECK(err(bin, mo::remove_by_rank(i64_min, rt::value)) == status::op_not_applicable);
        CHECK(err(bin, mo::get_by_index(i64_max, rt::none)) == status::op_not_applicable);
        std::optional<value> empty = M("[]");
        CHECK(err(empty, mo::get_by_index(0, rt::none)) == status::op_not_applicable);
        CHECK(err(empty, mo::get_by_rank(-1, rt::count)) == status::op_not_applicable);
    }
    SECTION("INVERTED is refused") {
        CHECK(err(bin, mo::get_by_index(0, rt::value, true)) == status::op_not_applicable);
        CHECK(err(bin, mo::remove_by_rank(0, rt::value, true)) == status::op_not_applicable);
    }
    SECTION("removal") {
        CHECK(ok(bin, mo::remove_by_rank(-1, rt::key)) == value("a"));
        CHECK(ok(bin, mo::remove_by_index(0, rt::key_value)) == J(R"([["b",1]])"));
        CHECK(keys_of(bin) == J(R"(["c","d","e"])"));
    }
    SECTION("a one-entry map") {
        std::optional<value> one = M(R"([["k",7]])");
        CHECK(get(one, mo::get_by_index(0, rt::reverse_index)) == value(0));
        CHECK(get(one, mo::get_by_rank(-1, rt::reverse_rank)) == value(0));
        CHECK(ok(one, mo::remove_by_index(0, rt::value)) == value(7));
        CHECK(one->as_map().empty());
    }
}

// ------------------------------------------------------------------ index / rank ranges

TEST_CASE("map index ranges: clipping, negative index, unsigned count (§3)", "[cdt][map_engine]") {
    std::optional<value> seven = M(R"([["a",1],["b",2],["c",3],["d",4],["e",5],["f",6],["g",7]])");
    auto keys = [&](std::int64_t i, std::optional<std::int64_t> c) {
        return get(seven, mo::get_by_index_range(i, c, rt::key));
    };
    CHECK(keys(100, 101) == J("[]"));
    CHECK(keys(6, 4) == J(R"(["g"])"));
    CHECK(keys(-7, 3) == J(R"(["a","b","c"])"));
    CHECK(keys(-9, 3) == J(R"(["a"])")); // 2 before the start: count shrinks by 2
    CHECK(keys(-10, 3) == J("[]"));
    CHECK(keys(5, std::nullopt) == J(R"(["f","g"])"));
    CHECK(keys(0, -1) == get(seven, mo::get_by_index_range(0, std::nullopt, rt::key)));
    CHECK(keys(-2, -5) == J(R"(["f","g"])")); // a negative count is unsigned: huge
    CHECK(keys(0, 0) == J("[]"));
    // The server's default count is UINT32_MAX: an index 5e9 before the start
    // leaves nothing, with or without a huge count it is not "to the end".
    CHECK(keys(-5'000'000'000, std::nullopt) == J("[]"));
    CHECK(keys(-5'000'000'000, i64_max) ==
          get(seven, mo::get_by_index_range(0, std::nullopt, rt::key)));
    // INT64_MIN as a count is 2^63 unsigned, more than the overshoot.
    CHECK(keys(i64_min, i64_min) == get(seven, mo::get_by_index_range(0, std::nullopt, rt::key)));
    CHECK(keys(i64_min, 1) == J("[]"));
    CHECK(keys(i64_min, -1) == get(seven, mo::get_by_index_range(0, std::nullopt, rt::key)));
    CHECK(keys(i64_max, 1) == J("[]"));
    std::optional<value> empty = M("[]");
    CHECK(get(empty, mo::get_by_index_range(i64_min, 2, rt::key)) == J("[]"));
    CHECK(get(empty, mo::get_by_index_range(0, std::nullopt, rt::count, true)) == value(0));
}

TEST_CASE("map index range: every return type, INVERTED, K vs unordered paths",
          "[cdt][map_engine]") {
    std::optional<value> bin = A();
    SECTION("plain: key order; RANK element by element; REVERSE_INDEX as one reversed run") {
        auto r = [&](rt t) {
            return get(bin, mo::get_by_index_range(1, 3, t));
        };
        CHECK(r(rt::none).is_nil());
        CHECK(r(rt::key) == J(R"(["b","c","d"])"));
        CHECK(r(rt::value) == J("[1,3,1]"));
        CHECK(r(rt::key_value) == J(R"([["b",1],["c",3],["d",1]])"));
        CHECK(r(rt::index) == J("[1,2,3]"));
        CHECK(r(rt::reverse_index) == J("[1,2,3]"));
        CHECK(r(rt::rank) == J("[0,2,1]"));
        CHECK(r(rt::reverse_rank) == J("[4,2,3]"));
        CHECK(r(rt::count) == value(3));
        CHECK(r(rt::exists) == value(true));
        CHECK(r(rt::ordered_map) == J(R"({"$map":[["b",1],["c",3],["d",1]]})"));
        CHECK(r(rt::unordered_map) == J(R"({"$map":[["b",1],["c",3],["d",1]]})"));
    }
    SECTION("the whole map: the server's get_remove_all, RANK ascending") {
        CHECK(get(bin, mo::get_by_index_range(0, std::nullopt, rt::rank)) == J("[0,1,2,3,4]"));
        CHECK(get(bin, mo::get_by_index_range(0, 4, rt::rank)) == J("[4,0,2,1]"));
        CHECK(get(bin, mo::get_by_index_range(0, std::nullopt, rt::reverse_index)) ==
              J("[0,1,2,3,4]"));
    }
    SECTION("INVERTED middle window") {
        auto r = [&](const std::optional<value>& b, rt t) {
            return get(b, mo::get_by_index_range(1, 3, t, true));
        };
        CHECK(r(bin, rt::value) == J("[5,4]"));
        CHECK(r(bin, rt::index) == J("[0,4]"));
        CHECK(r(bin, rt::reverse_index) == J("[4,0]"));
        CHECK(r(bin, rt::rank) == J("[4,3]"));
        CHECK(r(bin, rt::count) == value(2));
        // Unordered path: result_data_set_index_rank_count answers an inverted
        // EXISTS with count == 0, i.e. false here; the key-ordered trim says true.
        CHECK(r(bin, rt::exists) == value(false));
        CHECK(r(A(map_order::key_ordered), rt::exists) == value(true));
        CHECK(r(A(map_order::key_ordered), rt::value) == J("[5,4]"));
    }
    SECTION("INVERTED prefix / suffix / nothing become plain windows") {
        CHECK(get(bin, mo::get_by_index_range(0, 2, rt::key, true)) == J(R"(["c","d","e"])"));
        CHECK(get(bin, mo::get_by_index_range(3, std::nullopt, rt::key, true)) ==
              J(R"(["a","b","c"])"));
        CHECK(get(bin, mo::get_by_index_range(9, 1, rt::rank, true)) == J("[0,1,2,3,4]"));
        CHECK(get(bin, mo::get_by_index_range(9, 1, rt::exists, true)) == value(true));
    }
    SECTION("remove_by_index_range, INVERTED keeps the window") {
        CHECK(ok(bin, mo::remove_by_index_range(1, 3, rt::count, true)) == value(2));
        CHECK(keys_of(bin) == J(R"(["b","c","d"])"));
        CHECK(ok(bin, mo::remove_by_index_range(-2, std::nullopt, rt::key)) == J(R"(["c","d"])"));
        CHECK(keys_of(bin) == J(R"(["b"])"));
    }
}

TEST_CASE("map rank range: rank order, INVERTED, keep-top-N", "[cdt][map_engine]") {
    std::optional<value> bin = A();
    SECTION("plain: results in rank order; RANK / REVERSE_RANK as runs") {
        auto r = [&](rt t) {
            return get(bin, mo::get_by_rank_range(1, 3, t));
        };
        CHECK(r(rt::key) == J(R"(["d","c","e"])"));
        CHECK(r(rt::value) == J("[1,3,4]"));
        CHECK(r(rt::key_value) == J(R"([["d",1],["c",3],["e",4]])"));
        CHECK(r(rt::index) == J("[3,2,4]"));
        CHECK(r(rt::reverse_index) == J("[1,2,0]"));
        CHECK(r(rt::rank) == J("[1,2,3]"));
        CHECK(r(rt::reverse_rank) == J("[1,2,3]"));
        CHECK(r(rt::count) == value(3));
        CHECK(r(rt::exists) == value(true));
        CHECK(r(rt::ordered_map) == J(R"({"$map":[["c",3],["d",1],["e",4]]})"));
        CHECK(get(bin, mo::get_by_rank_range(-2, std::nullopt, rt::key)) == J(R"(["e","a"])"));
    }
    SECTION("INVERTED middle window: key order; EXISTS is the server's count == 0") {
        auto r = [&](rt t) {
            return get(bin, mo::get_by_rank_range(1, 3, t, true));
        };
        CHECK(r(rt::key) == J(R"(["a","b"])"));
        CHECK(r(rt::value) == J("[5,1]"));
        CHECK(r(rt::index) == J("[0,1]"));
        CHECK(r(rt::reverse_index) == J("[4,3]"));
        CHECK(r(rt::rank) == J("[0,4]"));
        CHECK(r(rt::reverse_rank) == J("[4,0]"));
        CHECK(r(rt::count) == value(2));
        CHECK(r(rt::exists) == value(false));
    }
    SECTION("INVERTED prefix or suffix: a plain rank window, so rank order") {
        CHECK(get(bin, mo::get_by_rank_range(0, 2, rt::key, true)) == J(R"(["c","e","a"])"));
        CHECK(get(bin, mo::get_by_rank_range(-2, 2, rt::value, true)) == J("[1,1,3]"));
        CHECK(get(bin, mo::get_by_rank_range(0, 2, rt::exists, true)) == value(true));
        CHECK(get(bin, mo::get_by_rank_range(7, 2, rt::key, true)) ==
              J(R"(["b","d","c","e","a"])"));
    }
    SECTION("keep the 3 lowest: remove_by_rank_range(0, 3) | INVERTED (§25)") {
        CHECK(ok(bin, mo::remove_by_rank_range(0, 3, rt::key, true)) == J(R"(["e","a"])"));
        CHECK(keys_of(bin) == J(R"(["b","c","d"])"));
    }
    SECTION("keep the 2 highest: remove_by_rank_range(-2, 2) | INVERTED") {
        CHECK(ok(bin, mo::remove_by_rank_range(-2, 2, rt::count, true)) == value(3));
        CHECK(keys_of(bin) == J(R"(["a","e"])"));
    }
    SECTION("trim a middle window out") {
        CHECK(ok(bin, mo::remove_by_rank_range(1, 2, rt::value, true)) == J("[5,1,4]"));
        CHECK(keys_of(bin) == J(R"(["c","d"])"));
    }
}

// ------------------------------------------------------------------ key ranges

TEST_CASE("map key range: [begin, end), nil / absent / INF bounds (§4)", "[cdt][map_engine]") {
    std::optional<value> bin = M(R"([["Jim",1],["John",2],["Kate",3],["Al",4],[7,5]])");
    auto keys = [&](value b, std::optional<value> e) {
        return get(bin, mo::get_by_key_range(std::move(b), std::move(e), rt::key));
    };
    CHECK(keys("J", value("K")) == J(R"(["Jim","John"])"));
    CHECK(keys(value(), value("J")) == J(R"([7,"Al"])"));
    CHECK(keys("J", std::nullopt) == J(R"(["Jim","John","Kate"])"));
    CHECK(keys("J", value(inf)) == J(R"(["Jim","John","Kate"])"));
    CHECK(keys("K", value("J")) == J("[]"));
    CHECK(keys(0, value(100)) == J("[7]")); // type-sensitive: integers only
    CHECK(keys(wildcard, value("Jim")) == J(R"([7,"Al"])"));
    CHECK(keys("A", value(wildcard)) == J("[]"));
}

TEST_CASE("map key range: return types, INVERTED, unordered vs key-ordered paths",
          "[cdt][map_engine]") {
    SECTION("plain") {
        std::optional<value> bin = A();
        auto r = [&](rt t) {
            return get(bin, mo::get_by_key_range("b", value("d"), t));
        };
        CHECK(r(rt::key) == J(R"(["b","c"])"));
        CHECK(r(rt::index) == J("[1,2]"));
        CHECK(r(rt::reverse_index) == J("[2,3]"));
        CHECK(r(rt::rank) == J("[0,2]"));
        CHECK(r(rt::reverse_rank) == J("[4,2]"));
        CHECK(r(rt::count) == value(2));
        CHECK(get(bin, mo::get_by_key_range("x", std::nullopt, rt::key)) == J("[]"));
        CHECK(get(bin, mo::get_by_key_range("x", std::nullopt, rt::key_value)) == J("[]"));
        CHECK(get(bin, mo::get_by_key_range("x", std::nullopt, rt::unordered_map)) ==
              J(R"({"$map":[]})"));
    }
    SECTION("INVERTED: REVERSE_INDEX as two reversed runs; EXISTS differs by path") {
        for (map_order order : {map_order::unordered, map_order::key_ordered}) {
            std::optional<value> bin = A(order);
            auto r = [&](rt t) {
                return get(bin, mo::get_by_key_range("b", value("d"), t, true));
            };
            CHECK(r(rt::value) == J("[5,1,4]"));
            CHECK(r(rt::index) == J("[0,3,4]"));
            CHECK(r(rt::reverse_index) == J("[4,0,1]"));
            CHECK(r(rt::rank) == J("[4,1,3]"));
            CHECK(r(rt::count) == value(3));
            CHECK(r(rt::exists) == value(order != map_order::unordered));
        }
    }
    SECTION("a key range over the whole map: RANK in key order (unordered), ascending (ordered)") {
        CHECK(get(A(), mo::get_by_key_range(value(), std::nullopt, rt::rank)) == J("[4,0,2,1,3]"));
        CHECK(get(A(map_order::key_ordered),
                  mo::get_by_key_range(value(), std::nullopt, rt::rank)) == J("[0,1,2,3,4]"));
    }
    SECTION("an empty selection, INVERTED: everything") {
        CHECK(get(A(), mo::get_by_key_range("x", std::nullopt, rt::key, true)) ==
              J(R"(["a","b","c","d","e"])"));
        CHECK(get(A(), mo::get_by_key_range("x", std::nullopt, rt::reverse_index, true)) ==
              J("[0,1,2,3,4]"));
        CHECK(get(A(), mo::get_by_key_range("bb", value("bc"), rt::reverse_index, true)) ==
              J("[3,4,0,1,2]"));
        // On an empty map the unordered path still answers an inverted EXISTS
        // with count == 0 (true); the ordered path goes to get_remove_all (false).
        CHECK(get(M("[]"), mo::get_by_key_range("x", std::nullopt, rt::exists, true)) ==
              value(true));
        CHECK(get(M("[]", map_order::key_ordered),
                  mo::get_by_key_range("x", std::nullopt, rt::exists, true)) == value(false));
    }
    SECTION("remove_by_key_range") {
        std::optional<value> bin = A();
        CHECK(ok(bin, mo::remove_by_key_range("b", value("d"), rt::key_value)) ==
              J(R"([["b",1],["c",3]])"));
        CHECK(keys_of(bin) == J(R"(["a","d","e"])"));
        CHECK(ok(bin, mo::remove_by_key_range("b", value("e"), rt::none, true)).is_nil());
        CHECK(keys_of(bin) == J(R"(["d"])"));
    }
}

// ------------------------------------------------------------------ value selections

TEST_CASE("map value range and by_value: key order, lists even for one match",
          "[cdt][map_engine]") {
    std::optional<value> bin = A();
    SECTION("value range") {
        auto r = [&](rt t, bool inv = false) {
            return get(bin, mo::get_by_value_range(1, value(4), t, inv));
        };
        CHECK(r(rt::key) == J(R"(["b","c","d"])"));
        CHECK(r(rt::value) == J("[1,3,1]"));
        CHECK(r(rt::index) == J("[1,2,3]"));
        CHECK(r(rt::reverse_index) == J("[3,2,1]"));
        CHECK(r(rt::rank) == J("[0,1,2]"));
        CHECK(r(rt::reverse_rank) == J("[2,3,4]"));
        CHECK(r(rt::count) == value(3));
        CHECK(r(rt::exists) == value(true));
        CHECK(r(rt::value, true) == J("[5,4]"));
        CHECK(r(rt::rank, true) == J("[3,4]"));
        CHECK(r(rt::reverse_index, true) == J("[4,0]"));
        CHECK(r(rt::count, true) == value(2));
        CHECK(r(rt::exists, true) == value(false)); // server: inverted EXISTS is count == 0
    }
    SECTION("[81, 82) selects 81 and not 82 (§14)") {
        std::optional<value> m = M(R"([["x",80],["y",81],["z",82]])");
        CHECK(get(m, mo::get_by_value_range(81, value(82), rt::key)) == J(R"(["y"])"));
        CHECK(get(m, mo::get_by_value_range(81, std::nullopt, rt::key)) == J(R"(["y","z"])"));
        CHECK(get(m, mo::get_by_value_range(value(), value(81), rt::key)) == J(R"(["x"])"));
    }
    SECTION("[1, nil] <= x < [1, INF] selects the lists whose first element is 1 (§6)") {
        std::optional<value> m = M(R"([["a",[1,"x"]],["b",[2,"y"]],["c",[1,7]],["d",[0,5]]])");
        CHECK(get(m, mo::get_by_value_range(list{1, value()}, value(list{1, inf}), rt::key)) ==
              J(R"(["a","c"])"));
    }
    SECTION("by_value returns a list even for one match (§21)") {
        CHECK(get(bin, mo::get_by_value(3, rt::key)) == J(R"(["c"])"));
        CHECK(get(bin, mo::get_by_value(3, rt::key_value)) == J(R"([["c",3]])"));
        CHECK(get(bin, mo::get_by_value(1, rt::key)) == J(R"(["b","d"])"));
        CHECK(get(bin, mo::get_by_value(1, rt::index)) == J("[1,3]"));
        CHECK(get(bin, mo::get_by_value(1, rt::rank)) == J("[0,1]"));
        CHECK(get(bin, mo::get_by_value(7, rt::key)) == J("[]"));
        CHECK(get(bin, mo::get_by_value(7, rt::index)) == J("[]"));
        CHECK(get(bin, mo::get_by_value(7, rt::count)) == value(0));
        CHECK(get(bin, mo::get_by_value(7, rt::exists)) == value(false));
        CHECK(get(bin, mo::get_by_value(7, rt::ordered_map)) == J(R"({"$map":[]})"));
        CHECK(get(bin, mo::get_by_value(7, rt::none)).is_nil());
    }
    SECTION("no match, INVERTED: the server's get_remove_all (RANK and REVERSE_* ascending)") {
        CHECK(get(bin, mo::get_by_value(7, rt::key, true)) == J(R"(["a","b","c","d","e"])"));
        CHECK(get(bin, mo::get_by_value(7, rt::reverse_rank, true)) == J("[0,1,2,3,4]"));
        CHECK(get(bin, mo::get_by_value(7, rt::reverse_index, true)) == J("[0,1,2,3,4]"));
        CHECK(get(bin, mo::get_by_value(7, rt::exists, true)) == value(true));
        CHECK(get(M("[]"), mo::get_by_value(7, rt::exists, true)) == value(false));
    }
    SECTION("remove_by_value / remove_by_value_range") {
        CHECK(ok(bin, mo::remove_by_value(1, rt::key)) == J(R"(["b","d"])"));
        CHECK(keys_of(bin) == J(R"(["a","c","e"])"));
        CHECK(ok(bin, mo::remove_by_value_range(4, std::nullopt, rt::count, true)) == value(1));
        CHECK(keys_of(bin) == J(R"(["a","e"])"));
    }
}

TEST_CASE("map WILDCARD values and probes (§1.5)", "[cdt][map_engine]") {
    std::optional<value> bin = M(
        R"([["e1",["Jim",95]],["e2",["Joe",80]],["e3",["Jim",70,"x"]],["e4","Jim"],["e5",[1,"d","e"]]])");
    CHECK(get(bin, mo::get_by_value(list{"Jim", wildcard}, rt::key)) == J(R"(["e1","e3"])"));
    CHECK(get(bin, mo::get_by_value(list{1, wildcard}, rt::key)) == J(R"(["e5"])"));
    CHECK(get(bin, mo::get_by_value(wildcard, rt::count)) == value(5));
    CHECK(
        get(bin, mo::get_by_value_list({list{"Jim", wildcard}, list{"Joe", wildcard}}, rt::key)) ==
        J(R"(["e1","e2","e3"])"));
    CHECK(
        get(bin, mo::get_by_value_range(list{"Jim", wildcard}, value(list{"Jim", inf}), rt::key)) ==
        J(R"(["e1","e3"])"));
    CHECK(ok(bin, mo::remove_by_value(list{"Jim", wildcard}, rt::count)) == value(2));
    // A bare WILDCARD key probe matches the first key (the unordered path's
    // linear scan; the server's key-ordered binary search may land elsewhere).
    std::optional<value> a = A();
    CHECK(get(a, mo::get_by_key(wildcard, rt::key)) == value("a"));
    CHECK(get(a, mo::get_by_key_list({wildcard}, rt::count)) == value(5));
    CHECK(get(a, mo::get_by_key_range(wildcard, value("c"), rt::key)) == J(R"(["a","b"])"));
}

// ------------------------------------------------------------------ relative selectors

TEST_CASE("map relative selectors (§5, javadoc examples)", "[cdt][map_engine]") {
    std::optional<value> bin = M("[[0,17],[4,2],[5,15],[9,10]]");
    SECTION("value_rel_rank_range: rank order") {
        auto v = [&](value val, std::int64_t r, std::optional<std::int64_t> c) {
            return get(bin, mo::get_by_value_rel_rank_range(std::move(val), r, c, rt::value));
        };
        CHECK(v(11, 1, std::nullopt) == J("[17]"));
        CHECK(v(11, -1, std::nullopt) == J("[10,15,17]"));
        CHECK(v(11, -1, 1) == J("[10]"));
        CHECK(v(2, 0, 2) == J("[2,10]"));
        CHECK(v(1000, 0, std::nullopt) == J("[]")); // far above: empty (§19)
        CHECK(get(bin, mo::get_by_value_rel_rank_range(1000, 0, std::nullopt, rt::value, true)) ==
              J("[2,10,15,17]"));
        CHECK(v(2, i64_min, std::nullopt) == J("[]"));
        CHECK(v(2, i64_max, std::nullopt) == J("[]"));
        CHECK(v(2, -3, -1) == J("[2,10,15,17]"));
    }
    SECTION("key_rel_index_range: key order (§18)") {
        auto k = [&](std::int64_t key, std::int64_t i, std::optional<std::int64_t> c) {
            return get(bin, mo::get_by_key_rel_index_range(key, i, c, rt::key));
        };
        CHECK(k(3, 2, std::nullopt) == J("[9]"));
        CHECK(k(3, -2, std::nullopt) == J("[0,4,5,9]"));
        CHECK(k(3, -2, 2) == J("[0]"));
        CHECK(k(5, 0, 1) == J("[5]"));
        CHECK(k(5, -1, 2) == J("[4,5]"));
        CHECK(k(100, 0, std::nullopt) == J("[]"));
        CHECK(get(bin, mo::get_by_key_rel_index_range(5, 0, 1, rt::key, true)) == J("[0,4,9]"));
    }
    SECTION("removal; the anchor moves with the data") {
        CHECK(ok(bin, mo::remove_by_key_rel_index_range(4, 0, 1, rt::key)) == J("[4]"));
        CHECK(get(bin, mo::get_by_key_rel_index_range(3, 1, std::nullopt, rt::key)) == J("[9]"));
        CHECK(ok(bin, mo::remove_by_value_rel_rank_range(15, -1, 2, rt::value)) == J("[10,15]"));
        CHECK(keys_of(bin) == J("[0]"));
    }
}

// ------------------------------------------------------------------ lists of keys / values

TEST_CASE("map key list: key order for elements, argument order for INDEX", "[cdt][map_engine]") {
    std::vector<value> keys{"e", "a", "zz", "a"};
    SECTION("elements in key order, each entry once") {
        std::optional<value> bin = A();
        CHECK(get(bin, mo::get_by_key_list(keys, rt::key)) == J(R"(["a","e"])"));
        CHECK(get(bin, mo::get_by_key_list(keys, rt::value)) == J("[5,4]"));
        CHECK(get(bin, mo::get_by_key_list(keys, rt::count)) == value(2));
        CHECK(get(bin, mo::get_by_key_list(keys, rt::exists)) == value(true));
        CHECK(get(bin, mo::get_by_key_list({"zz"}, rt::exists)) == value(false));
        CHECK(get(bin, mo::get_by_key_list(keys, rt::key, true)) == J(R"(["b","c","d"])"));
    }
    SECTION("INDEX: argument order; a repeated key once (unordered) or per item (ordered)") {
        CHECK(get(A(), mo::get_by_key_list(keys, rt::index)) == J("[4,0]"));
        CHECK(get(A(map_order::key_ordered), mo::get_by_key_list(keys, rt::index)) == J("[4,0,0]"));
        CHECK(get(A(), mo::get_by_key_list({"d", "b"}, rt::reverse_index)) == J("[1,3]"));
        // INVERTED: REVERSE_INDEX as reversed runs (unordered) or one by one (ordered).
        CHECK(get(A(), mo::get_by_key_list(keys, rt::reverse_index, true)) == J("[1,2,3]"));
        CHECK(get(A(map_order::key_ordered), mo::get_by_key_list(keys, rt::reverse_index, true)) ==
              J("[3,2,1]"));
        CHECK(get(A(), mo::get_by_key_list(keys, rt::index, true)) == J("[1,2,3]"));
    }
    SECTION("RANK is not supported for a key list") {
        CHECK(err_of(A(), mo::get_by_key_list(keys, rt::rank)) == status::op_not_applicable);
        CHECK(err_of(A(), mo::get_by_key_list({}, rt::reverse_rank)) == status::op_not_applicable);
    }
    SECTION("removal") {
        std::optional<value> bin = A();
        CHECK(ok(bin, mo::remove_by_key_list(keys, rt::key_value)) == J(R"([["a",5],["e",4]])"));
        CHECK(keys_of(bin) == J(R"(["b","c","d"])"));
        CHECK(ok(bin, mo::remove_by_key_list({"c"}, rt::none, true)).is_nil());
        CHECK(keys_of(bin) == J(R"(["c"])"));
    }
}

TEST_CASE("map value list: key order for elements and INDEX, argument order for RANK",
          "[cdt][map_engine]") {
    std::optional<value> bin = A();
    std::vector<value> vals{4, 1};
    CHECK(get(bin, mo::get_by_value_list(vals, rt::key)) == J(R"(["b","d","e"])"));
    CHECK(get(bin, mo::get_by_value_list(vals, rt::index)) == J("[1,3,4]"));
    CHECK(get(bin, mo::get_by_value_list(vals, rt::reverse_index)) == J("[3,1,0]"));
    CHECK(get(bin, mo::get_by_value_list(vals, rt::rank)) == J("[3,0,1]"));
    CHECK(get(bin, mo::get_by_value_list(vals, rt::reverse_rank)) == J("[1,4,3]"));
    CHECK(get(bin, mo::get_by_value_list(vals, rt::count)) == value(3));
    CHECK(get(bin, mo::get_by_value_list(vals, rt::value, true)) == J("[5,3]"));
    CHECK(get(bin, mo::get_by_value_list(vals, rt::rank, true)) == J("[2,4]"));
    CHECK(get(bin, mo::get_by_value_list({1, 1}, rt::rank)) == J("[0,1]"));
    CHECK(get(bin, mo::get_by_value_list({9}, rt::key)) == J("[]"));
    CHECK(ok(bin, mo::remove_by_value_list(vals, rt::count)) == value(3));
    CHECK(keys_of(bin) == J(R"(["a","c"])"));

    // A map of one entry takes the server's order-index path (its order
    // index is always "valid"): every item reports its own match, repeats
    // included (probed on 8.1.2).
    std::optional<value> one = J(R"({"$map": [["b", 8]]})");
    REQUIRE(one->is_map());
    CHECK(get(one, mo::get_by_value_list({8, 8}, rt::index)) == J("[0,0]"));
    CHECK(get(one, mo::get_by_value_list({8, 3, 8}, rt::rank)) == J("[0,0]"));
    CHECK(get(one, mo::get_by_value_list({8, 8, 8}, rt::reverse_index)) == J("[0,0,0]"));
    CHECK(get(one, mo::get_by_value_list({8, 8}, rt::value)) == J("[8]"));
    CHECK(get(one, mo::get_by_value_list({8, 8}, rt::count)) == value(1));
    CHECK(ok(one, mo::remove_by_value_list({8, 8}, rt::rank)) == J("[0,0]"));
}

TEST_CASE("map empty key/value list + INVERTED: everything (§12 server crash cases)",
          "[cdt][map_engine]") {
    // 8.1.2 crashes on these shapes; the intended answer is the whole map.
    for (bool by_key : {true, false}) {
        std::optional<value> bin = A();
        auto sel = [&](rt t, bool inv) {
            return by_key ? mo::get_by_key_list({}, t, inv) : mo::get_by_value_list({}, t, inv);
        };
        CHECK(get(bin, sel(rt::key, true)) == J(R"(["a","b","c","d","e"])"));
        CHECK(get(bin, sel(rt::value, true)) == J("[5,1,3,1,4]"));
        CHECK(get(bin, sel(rt::key_value, true)) ==
              J(R"([["a",5],["b",1],["c",3],["d",1],["e",4]])"));
        CHECK(get(bin, sel(rt::unordered_map, true)) == *A());
        CHECK(get(bin, sel(rt::ordered_map, true)) == *A());
        CHECK(get(bin, sel(rt::index, true)) == J("[0,1,2,3,4]"));
        CHECK(get(bin, sel(rt::reverse_index, true)) == J("[0,1,2,3,4]"));
        CHECK(get(bin, sel(rt::count, true)) == value(5));
        CHECK(get(bin, sel(rt::exists, true)) == value(true));
        CHECK(get(bin, sel(rt::none, true)).is_nil());
        // Not inverted: nothing.
        CHECK(get(bin, sel(rt::key, false)) == J("[]"));
        CHECK(get(bin, sel(rt::count, false)) == value(0));
        CHECK(get(bin, sel(rt::ordered_map, false)) == J(R"({"$map":[]})"));
        // ...and the server never looks at the return type then.
        CHECK(get(bin, sel(static_cast<rt>(14), false)).is_nil());
        CHECK(err_of(bin, sel(static_cast<rt>(14), true)) == status::op_not_applicable);
        // Removal empties the map, keeping it.
        std::optional<value> rm = A(map_order::key_ordered);
        CHECK(ok(rm,
                 by_key ? mo::remove_by_key_list({}, rt::count, true)
                        : mo::remove_by_value_list({}, rt::count, true)) == value(5));
        CHECK(rm->as_map().empty());
        CHECK(rm->as_map().order() == map_order::key_ordered);
    }
    // RANK: a key list refuses it (OP_NOT_APPLICABLE); a value list goes on to
    // the server's get_remove_all, which answers every rank.
    CHECK(err_of(A(), mo::get_by_key_list({}, rt::rank, true)) == status::op_not_applicable);
    CHECK(get(A(), mo::get_by_value_list({}, rt::rank, true)) == J("[0,1,2,3,4]"));
}

// ------------------------------------------------------------------ return types

TEST_CASE("map return types: invalid ones, unknown flag bits", "[cdt][map_engine]") {
    std::optional<value> bin = A();
    for (std::int32_t bad : {9, 10, 14, 15, 18, 99, -1}) {
        cdt::op o = mo::get_by_rank_range(0, 2, rt::value);
        o.return_type = bad;
        INFO(bad);
        CHECK(err(bin, o) == status::op_not_applicable);
    }
    // The raw RANK_RANGE / REVRANK_RANGE (11, 12) on a rank selector answer
    // [start, count] of the ranks, start mirrored for 12, as 8.1.2 does
    // (tests/adapters/data/item7_raw_return_types: map_get_by_rank_range);
    // this test expected OP_NOT_APPLICABLE for them before the server was asked.
    for (auto [code, want] : {std::pair{11, "[0,2]"}, std::pair{12, "[3,2]"}}) {
        cdt::op o = mo::get_by_rank_range(0, 2, rt::value);
        o.return_type = code;
        CHECK(get(bin, o) == J(want));
    }
    cdt::op o = mo::get_by_rank_range(0, 2, rt::value);
    o.return_type = 7 | 0x20000; // the server ignores flag bits it does not know
    CHECK(get(bin, o) == J("[1,1]"));
}

// ------------------------------------------------------------------ persisted index

TEST_CASE(
    "a top-level KV-ordered map with a persisted index answers value selections in rank order",
    "[cdt][map_engine]") {
    std::optional<value> kvp = A(map_order::key_value_ordered, true);
    std::optional<value> kv = A(map_order::key_value_ordered, false);
    CHECK(get(kvp, mo::get_by_value_range(1, value(4), rt::value)) == J("[1,1,3]"));
    CHECK(get(kv, mo::get_by_value_range(1, value(4), rt::value)) == J("[1,3,1]"));
    CHECK(get(kvp, mo::get_by_value_range(1, value(4), rt::index)) == J("[1,3,2]"));
    CHECK(get(kvp, mo::get_by_value_range(1, value(4), rt::value, true)) == J("[5,4]"));
    CHECK(get(kvp, mo::get_by_value_range(1, value(4), rt::ordered_map)) ==
          J(R"({"$map":[["b",1],["c",3],["d",1]]})"));
    // No match, INVERTED: no get_remove_all shortcut on the indexed path.
    CHECK(get(kvp, mo::get_by_value(2, rt::reverse_rank, true)) == J("[3,4,0,1,2]"));
    CHECK(get(kvp, mo::get_by_value(2, rt::reverse_index, true)) == J("[4,3,2,1,0]"));
    CHECK(get(kv, mo::get_by_value(2, rt::reverse_rank, true)) == J("[0,1,2,3,4]"));
    // Value lists: per item, in argument order.
    CHECK(get(kvp, mo::get_by_value_list({4, 1}, rt::index)) == J("[4,1,3]"));
    CHECK(get(kvp, mo::get_by_value_list({4, 1}, rt::reverse_rank)) == J("[1,3,4]"));
    CHECK(get(kvp, mo::get_by_value_list({4, 1}, rt::rank, true)) == J("[4,2]"));
    CHECK(get(kvp, mo::get_by_value_list({1, 1}, rt::rank)) == J("[0,1,0,1]"));
    // Below the top level there is no persisted index.
    std::optional<value> nested = A(map_order::key_value_ordered, true);
    result<value> r = cdt::detail::apply_map_op(
        nested, mo::get_by_value_range(1, value(4), rt::value), /*top_level=*/false);
    REQUIRE(r);
    CHECK(*r == J("[1,3,1]"));
}

// ------------------------------------------------------------------ nested targets

TEST_CASE("apply_map_op on a nested map and on a map created through a context",
          "[cdt][map_engine]") {
    SECTION("an absent target created by a modify op gets the policy's order, no persisted index") {
        std::optional<value> t;
        result<value> r = cdt::detail::apply_map_op(
            t, mo::put("k", 1, mo::policy(map_order::key_value_ordered, 0, true)), false);
        REQUIRE(r);
        CHECK(*r == value(1));
        REQUIRE(t);
        CHECK(t->as_map().order() == map_order::key_value_ordered);
        CHECK_FALSE(t->as_map().persist_index());
        std::optional<value> s;
        REQUIRE(cdt::detail::apply_map_op(s, mo::set_policy(map_order::key_ordered, true), false));
        CHECK(s->as_map().order() == map_order::key_ordered);
        CHECK_FALSE(s->as_map().persist_index());
    }
    SECTION("removes and reads on an absent target create nothing") {
        std::optional<value> t;
        CHECK(cdt::detail::apply_map_op(t, mo::remove_by_key("k", rt::value), false)->is_nil());
        CHECK(cdt::detail::apply_map_op(t, mo::clear(), false)->is_nil());
        CHECK_FALSE(t.has_value());
    }
    SECTION("a map value taken out of a list works like a bin") {
        value outer = list{1, map{{"x", 2}, {"y", 1}}};
        std::optional<value> inner = outer.as_list()[1];
        result<value> r = cdt::detail::apply_map_op(inner, mo::remove_by_rank(0, rt::key), false);
        REQUIRE(r);
        CHECK(*r == value("y"));
        CHECK(*inner == J(R"({"$map":[["x",2]]})"));
        CHECK(outer.as_list()[1] == J(R"({"$map":[["x",2],["y",1]]})")); // copy on write
    }
}

// ------------------------------------------------------------------ failure atomicity

TEST_CASE("a failing map op leaves the bin exactly as it was", "[cdt][map_engine]") {
    for (map_order order :
         {map_order::unordered, map_order::key_ordered, map_order::key_value_ordered}) {
        std::optional<value> bin = A(order, order == map_order::key_value_ordered);
        CHECK(err(bin,
                  mo::put_items({{"z", 1}, {"a", 2}},
                                mo::policy(map_order::unordered, create_only))) ==
              status::element_exists);
        CHECK(err(bin, mo::remove_by_index(9, rt::value)) == status::op_not_applicable);
        CHECK(err(bin, mo::remove_by_key_list({"a"}, rt::rank)) == status::op_not_applicable);
        // (10, REVINDEX_RANGE, on a rank selector: refused, as 8.1.2 does.)
        CHECK(err(bin, mo::remove_by_rank_range(0, 2, static_cast<rt>(10))) ==
              status::op_not_applicable);
        CHECK(err(bin, mo::increment("a", "x")) == status::parameter_error);
        CHECK(err(bin, mo::set_policy(static_cast<map_order>(9))) == status::op_not_applicable);
        CHECK(*bin == *A());
        CHECK(bin->as_map().order() == order);
    }
}

TEST_CASE("WILDCARD items: the server's sorted-items search, and its persisted index",
          "[cdt][map][wildcard]") {
    // Items sorted with a WILDCARD tie unequal values, and one bisection per
    // entry over them misses ["x", true] (8.1.2: KEY [], INVERTED RANK [0, 1]).
    std::vector<value> items = {J(R"(["x", true, "zz"])"), J(R"(["x", {"$wildcard": true}])"), "y"};
    for (map_order o : {map_order::unordered, map_order::key_ordered, map_order::key_value_ordered}) {
        std::optional<value> b = M(R"([["a", ["x", true]], ["b", []]])", o);
        CHECK(get(b, mo::get_by_value_list(items, rt::key)) == J("[]"));
        CHECK(get(b, mo::get_by_value_list(items, rt::rank, true)) == J("[0, 1]"));
        // A bare WILDCARD item still matches everything.
        CHECK(get(b, mo::get_by_value_list({wildcard}, rt::count)) == value(2));
    }
    // A persisted value index: the search for the first equal entry stops
    // on the entry of key index 0 (value 1, rank 1) inside the run [true, 1].
    std::optional<value> p = M("[[24, 1], [37, true]]", map_order::key_value_ordered, true);
    std::optional<value> u = M("[[24, 1], [37, true]]", map_order::key_value_ordered, false);
    CHECK(get(p, mo::get_by_value(wildcard, rt::count)) == value(1));
    CHECK(get(u, mo::get_by_value(wildcard, rt::count)) == value(2));
    CHECK(get(p, mo::get_by_value_rel_rank_range(wildcard, 0, std::nullopt, rt::key)) == J("[24]"));
    CHECK(get(u, mo::get_by_value_rel_rank_range(wildcard, 0, std::nullopt, rt::key)) ==
          J("[37, 24]"));
    CHECK(ok(p, mo::remove_by_value_list({J(R"([[1, 3, "x"], []])"), wildcard}, rt::count)) ==
          value(1));
    CHECK(*p == *M("[[37, true]]"));
}

TEST_CASE("an UNORDERED map with a persisted index takes the key-ordered paths",
          "[cdt][map]") {
    // 8.1.2 stores it flagged (flags != 0 is key-ordered: is_k_ordered), so
    // it answers as a K_ORDERED map: a missing key under INVERTED is "not
    // found", and a key list's REVERSE_INDEX goes entry by entry.
    std::optional<value> p = M(R"([[1, 255], ["b", 2], ["c", 3]])", map_order::unordered, true);
    CHECK(get(p, mo::get_by_key(255, rt::none, true)).is_nil());
    CHECK(get(p, mo::get_by_key(255, rt::key_value, true)) == J("[]"));
    CHECK(get(p, mo::get_by_key_list({1, "zz"}, rt::reverse_index, true)) == J("[1, 0]"));
    std::optional<value> u = M(R"([[1, 255], ["b", 2], ["c", 3]])", map_order::unordered, false);
    CHECK(err_of(u, mo::get_by_key(255, rt::none, true)) == status::op_not_applicable);
    CHECK(get(u, mo::get_by_key_list({1, "zz"}, rt::reverse_index, true)) == J("[0, 1]"));
}

} // namespace cdt_map_engine_test
