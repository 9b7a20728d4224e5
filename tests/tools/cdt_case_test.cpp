// tests/tools/cdt_case_test.cpp
//
// Reading `kvmodel cdt` cases (tools/cdt_case.hpp) and the JSON input rules
// shared by the tools (tools/json_io.hpp): every op name, argument, flag,
// return type and ctx step of shared/spec/cdt-json.md, and a precise
// "invalid" message for every kind of malformed case.
#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/cdt/map_ops.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <variant>

#include "../../tools/cdt_case.hpp"

namespace tools_cdt_case_test {

using namespace kvmodel;
using namespace kvmodel::tools;
using kvmodel::tools::cdt_json::parse_case;
using kvmodel::tools::cdt_json::scenario;

namespace {

json parse(const std::string& text) {
    std::string error;
    std::optional<json> j = parse_json(text, error);
    INFO(error);
    REQUIRE(j.has_value());
    return *j;
}

scenario ok_case(const std::string& text) {
    auto r = parse_case(parse(text));
    if (!r)
        FAIL_CHECK(r.error().message);
    REQUIRE(r.has_value());
    return std::move(r).value();
}

std::string invalid_message(const std::string& text) {
    auto r = parse_case(parse(text));
    REQUIRE_FALSE(r.has_value());
    return r.error().message;
}

/// A map case whose only op is `op_json`.
std::string map_case(const std::string& op_json) {
    return R"({"id": "t", "bin_type": "map", "initial": [[1, 2]], "ops": [)" + op_json + "]}";
}
std::string list_case(const std::string& op_json) {
    return R"({"id": "t", "bin_type": "list", "initial": [1, 2], "ops": [)" + op_json + "]}";
}

const cdt::op& only_cdt_op(const scenario& s) {
    REQUIRE(s.ops.size() == 1);
    const auto* o = std::get_if<cdt::op>(&s.ops[0]);
    REQUIRE(o != nullptr);
    return *o;
}

} // namespace

TEST_CASE("parse_json refuses what would be silently changed", "[tools][cdt_case]") {
    std::string error;
    CHECK_FALSE(parse_json(R"({"a": 123456789012345678901234567890})", error));
    CHECK(error.find("does not fit in 64 bits") != std::string::npos);
    CHECK_FALSE(parse_json(R"({"a": 1, "a": 2})", error));
    CHECK(error.find("duplicate object key \"a\"") != std::string::npos);
    CHECK_FALSE(parse_json(std::string(600, '[') + std::string(600, ']'), error));
    CHECK(error.find("nesting deeper than 512") != std::string::npos);
    CHECK_FALSE(parse_json(R"({"a": )", error));
    CHECK(error.find("parse error at line 1") != std::string::npos);
    CHECK_FALSE(parse_json("{} {}", error));
    // What stays: big unsigned, negative int64 min, doubles with exponents.
    auto j = parse_json(R"([18446744073709551615, -9223372036854775808, 1e300, 2.5])", error);
    REQUIRE(j);
    CHECK((*j)[0].is_number_unsigned());
    CHECK((*j)[1].get<std::int64_t>() == std::numeric_limits<std::int64_t>::min());
    CHECK((*j)[2].is_number_float());
}

TEST_CASE("read_documents: an array, one object, or one case per line", "[tools][cdt_case]") {
    auto array = read_documents("  [ {\"a\": 1}, 2 ]\n");
    REQUIRE(array.size() == 2);
    CHECK(array[1].where == "element 1");
    CHECK(*array[1].value == json(2));

    auto one = read_documents("{\n  \"a\": 1\n}\n");
    REQUIRE(one.size() == 1);
    CHECK(one[0].value->at("a") == 1);

    auto lines = read_documents("{\"a\": 1}\n\n{\"a\": \n{\"a\": 3}");
    REQUIRE(lines.size() == 3);
    CHECK(lines[0].value);
    CHECK_FALSE(lines[1].value);
    CHECK(lines[1].where == "line 3");
    CHECK(lines[1].error.find("parse error") != std::string::npos);
    CHECK(lines[2].value->at("a") == 3);

    auto broken_array = read_documents("[{\"a\": 1},");
    REQUIRE(broken_array.size() == 1);
    CHECK_FALSE(broken_array[0].value);

    CHECK(read_documents(" \n\t").empty());
}

TEST_CASE("dump writes the spec's separators and keeps key order", "[tools][cdt_case]") {
    ordered_json o;
    o["id"] = "x";
    o["results"] = json::array({1, json::object({{"$double", 1.5}}), nullptr});
    o["bin_exists"] = true;
    CHECK(dump(o) == R"({"id": "x", "results": [1, {"$double": 1.5}, null], "bin_exists": true})");
    // Invalid UTF-8 is replaced, never thrown.
    CHECK(dump(json(std::string("a\xff"))) == "\"a\xEF\xBF\xBD\"");
}

TEST_CASE("every map and list op name parses with its arguments", "[tools][cdt_case]") {
    struct sample {
        const char* name;
        const char* op;
    };
    // Minimal op JSON for every name in the spec.
    const sample samples[] = {
        {"map_put", R"({"op": "map_put", "args": {"key": "a", "value": 1}})"},
        {"map_put_items", R"({"op": "map_put_items", "args": {"items": [["a", 1], [2, "b"]]}})"},
        {"map_increment", R"({"op": "map_increment", "args": {"key": "a", "delta": 2}})"},
        {"map_decrement", R"({"op": "map_decrement", "args": {"key": "a", "delta": 2}})"},
        {"map_clear", R"({"op": "map_clear"})"},
        {"map_size", R"({"op": "map_size"})"},
        {"map_set_policy", R"({"op": "map_set_policy", "args": {"order": "KV_ORDERED"}})"},
        {"map_create", R"({"op": "map_create", "args": {"order": "K_ORDERED"}})"},
        {"map_get_by_key", R"({"op": "map_get_by_key", "args": {"key": 1}})"},
        {"map_get_by_key_list", R"({"op": "map_get_by_key_list", "args": {"keys": [1, 2]}})"},
        {"map_get_by_key_range",
         R"({"op": "map_get_by_key_range", "args": {"begin": 1, "end": 3}})"},
        {"map_get_by_key_rel_index_range",
         R"({"op": "map_get_by_key_rel_index_range", "args": {"key": 1, "index": -1, "count": 2}})"},
        {"map_get_by_value", R"({"op": "map_get_by_value", "args": {"value": 2}})"},
        {"map_get_by_value_list", R"({"op": "map_get_by_value_list", "args": {"values": [2]}})"},
        {"map_get_by_value_range", R"({"op": "map_get_by_value_range", "args": {"begin": 1}})"},
        {"map_get_by_value_rel_rank_range",
         R"({"op": "map_get_by_value_rel_rank_range", "args": {"value": 1, "rank": 0}})"},
        {"map_get_by_index", R"({"op": "map_get_by_index", "args": {"index": 0}})"},
        {"map_get_by_index_range", R"({"op": "map_get_by_index_range", "args": {"index": 0}})"},
        {"map_get_by_rank", R"({"op": "map_get_by_rank", "args": {"rank": -1}})"},
        {"map_get_by_rank_range",
         R"({"op": "map_get_by_rank_range", "args": {"rank": 0, "count": 1}})"},
        {"map_remove_by_key", R"({"op": "map_remove_by_key", "args": {"key": 1}})"},
        {"map_remove_by_key_list", R"({"op": "map_remove_by_key_list", "args": {"keys": [1]}})"},
        {"map_remove_by_key_range", R"({"op": "map_remove_by_key_range", "args": {"end": 3}})"},
        {"map_remove_by_key_rel_index_range",
         R"({"op": "map_remove_by_key_rel_index_range", "args": {"key": 1, "index": 0}})"},
        {"map_remove_by_value", R"({"op": "map_remove_by_value", "args": {"value": 2}})"},
        {"map_remove_by_value_list",
         R"({"op": "map_remove_by_value_list", "args": {"values": []}})"},
        {"map_remove_by_value_range", R"({"op": "map_remove_by_value_range", "args": {}})"},
        {"map_remove_by_value_rel_rank_range",
         R"({"op": "map_remove_by_value_rel_rank_range", "args": {"value": 1, "rank": 0, "count": 1}})"},
        {"map_remove_by_index", R"({"op": "map_remove_by_index", "args": {"index": 0}})"},
        {"map_remove_by_index_range",
         R"({"op": "map_remove_by_index_range", "args": {"index": 0}})"},
        {"map_remove_by_rank", R"({"op": "map_remove_by_rank", "args": {"rank": 0}})"},
        {"map_remove_by_rank_range", R"({"op": "map_remove_by_rank_range", "args": {"rank": 0}})"},
        {"list_append", R"({"op": "list_append", "args": {"value": 3}})"},
        {"list_append_items", R"({"op": "list_append_items", "args": {"values": [3, 4]}})"},
        {"list_insert", R"({"op": "list_insert", "args": {"index": 0, "value": 3}})"},
        {"list_insert_items",
         R"({"op": "list_insert_items", "args": {"index": 0, "values": [3]}})"},
        {"list_set", R"({"op": "list_set", "args": {"index": 0, "value": 3}})"},
        {"list_increment", R"({"op": "list_increment", "args": {"index": 0, "delta": 3}})"},
        {"list_pop", R"({"op": "list_pop", "args": {"index": 0}})"},
        {"list_pop_range", R"({"op": "list_pop_range", "args": {"index": 0, "count": 1}})"},
        {"list_remove", R"({"op": "list_remove", "args": {"index": 0}})"},
        {"list_remove_range", R"({"op": "list_remove_range", "args": {"index": 0}})"},
        {"list_trim", R"({"op": "list_trim", "args": {"index": 0, "count": 1}})"},
        {"list_clear", R"({"op": "list_clear"})"},
        {"list_size", R"({"op": "list_size"})"},
        {"list_get", R"({"op": "list_get", "args": {"index": 0}})"},
        {"list_get_range", R"({"op": "list_get_range", "args": {"index": 0, "count": 1}})"},
        {"list_sort", R"({"op": "list_sort", "flags": ["DROP_DUPLICATES"]})"},
        {"list_set_order", R"({"op": "list_set_order", "args": {"order": "ORDERED"}})"},
        {"list_create",
         R"({"op": "list_create", "args": {"order": "UNORDERED_LIST", "pad": true}})"},
        {"list_get_by_index", R"({"op": "list_get_by_index", "args": {"index": 0}})"},
        {"list_get_by_index_range", R"({"op": "list_get_by_index_range", "args": {"index": 0}})"},
        {"list_get_by_rank", R"({"op": "list_get_by_rank", "args": {"rank": 0}})"},
        {"list_get_by_rank_range", R"({"op": "list_get_by_rank_range", "args": {"rank": 0}})"},
        {"list_get_by_value", R"({"op": "list_get_by_value", "args": {"value": 1}})"},
        {"list_get_by_value_list", R"({"op": "list_get_by_value_list", "args": {"values": [1]}})"},
        {"list_get_by_value_range",
         R"({"op": "list_get_by_value_range", "args": {"begin": 1, "end": 2}})"},
        {"list_get_by_value_rel_rank_range",
         R"({"op": "list_get_by_value_rel_rank_range", "args": {"value": 1, "rank": 0}})"},
        {"list_remove_by_index", R"({"op": "list_remove_by_index", "args": {"index": 0}})"},
        {"list_remove_by_index_range",
         R"({"op": "list_remove_by_index_range", "args": {"index": 0}})"},
        {"list_remove_by_rank", R"({"op": "list_remove_by_rank", "args": {"rank": 0}})"},
        {"list_remove_by_rank_range",
         R"({"op": "list_remove_by_rank_range", "args": {"rank": 0}})"},
        {"list_remove_by_value", R"({"op": "list_remove_by_value", "args": {"value": 1}})"},
        {"list_remove_by_value_list",
         R"({"op": "list_remove_by_value_list", "args": {"values": [1]}})"},
        {"list_remove_by_value_range",
         R"({"op": "list_remove_by_value_range", "args": {"begin": 1}})"},
        {"list_remove_by_value_rel_rank_range",
         R"({"op": "list_remove_by_value_rel_rank_range", "args": {"value": 1, "rank": 0}})"},
    };
    std::size_t covered = 0;
    for (const sample& s : samples) {
        INFO(s.name);
        auto code = cdt::op_from_name(s.name);
        REQUIRE(code);
        scenario sc = ok_case(cdt::is_map_op(*code) ? map_case(s.op) : list_case(s.op));
        CHECK(only_cdt_op(sc).code == *code);
        ++covered;
    }
    // The table covers every op code the vocabulary has.
    CHECK(covered == cdt::op_code_count);
}

TEST_CASE("arguments land in the op's fields", "[tools][cdt_case]") {
    SECTION("map_put with flags, policy order and a $map value") {
        auto s = ok_case(map_case(
            R"({"op": "map_put", "args": {"key": 1, "value": {"$map": [["x", {"$double": 1.5}]]}},
                "flags": ["CREATE_ONLY", "NO_FAIL"], "policy_order": "KV_ORDERED"})"));
        const cdt::op& o = only_cdt_op(s);
        CHECK(o.key == value(1));
        REQUIRE(o.val.is_map());
        CHECK(*o.val.as_map().get("x") == value(1.5));
        CHECK(o.mpolicy.flags ==
              (cdt::map_write_flags::create_only | cdt::map_write_flags::no_fail));
        CHECK(o.mpolicy.order == map_order::key_value_ordered);
        CHECK_FALSE(o.mpolicy.persist_index);
        s = ok_case(
            map_case(R"({"op": "map_put_items", "args": {"items": [], "persist_index": true}})"));
        CHECK(only_cdt_op(s).mpolicy.persist_index);
    }
    SECTION("ranges: absent end is unbounded, null begin is nil, $nil end is nil") {
        auto s = ok_case(map_case(R"({"op": "map_get_by_value_range", "args": {"begin": null}})"));
        CHECK(only_cdt_op(s).begin.is_nil());
        CHECK_FALSE(only_cdt_op(s).end.has_value());
        s = ok_case(map_case(
            R"({"op": "map_get_by_key_range", "args": {"begin": "a", "end": {"$nil": true}}})"));
        CHECK(only_cdt_op(s).begin == value("a"));
        REQUIRE(only_cdt_op(s).end.has_value());
        CHECK(only_cdt_op(s).end->is_nil());
        s = ok_case(map_case(R"({"op": "map_get_by_key_range", "args": {"end": {"$inf": true}}})"));
        CHECK(only_cdt_op(s).end->is_inf());
    }
    SECTION("relative selectors and counts") {
        auto s = ok_case(list_case(
            R"({"op": "list_get_by_value_rel_rank_range", "args": {"value": [1, {"$wildcard": true}], "rank": -3, "count": -1}})"));
        const cdt::op& o = only_cdt_op(s);
        CHECK(o.key.contains_wildcard());
        CHECK(o.index == -3);
        CHECK(o.count == std::optional<std::int64_t>(-1));
    }
    SECTION("return types: names, raw integers, inverted, defaults") {
        auto rt = [](const std::string& op) {
            return only_cdt_op(ok_case(map_case(op))).return_type;
        };
        CHECK(rt(R"({"op": "map_get_by_key", "args": {"key": 1}})") == 7);
        CHECK(rt(R"({"op": "map_remove_by_key", "args": {"key": 1}})") == 0);
        CHECK(rt(R"({"op": "map_get_by_key", "args": {"key": 1}, "return_type": "KEY_VALUE"})") ==
              8);
        CHECK(rt(R"({"op": "map_get_by_key", "args": {"key": 1}, "return_type": "ORDERED_MAP"})") ==
              17);
        CHECK(rt(R"({"op": "map_get_by_key", "args": {"key": 1}, "return_type": 99})") == 99);
        CHECK(
            rt(R"({"op": "map_get_by_key_list", "args": {"keys": []}, "return_type": "COUNT", "inverted": true})") ==
            (5 | cdt::return_inverted));
        CHECK(
            rt(R"({"op": "map_get_by_key_list", "args": {"keys": []}, "return_type": "EXISTS", "inverted": false})") ==
            13);
    }
    SECTION("list write flags, sort flags, raw flags") {
        auto s = ok_case(list_case(
            R"({"op": "list_append_items", "args": {"values": [1]}, "flags": ["ADD_UNIQUE", "PARTIAL", "NO_FAIL", "INSERT_BOUNDED"], "policy_order": "ORDERED"})"));
        CHECK(only_cdt_op(s).lpolicy.flags == 15);
        CHECK(only_cdt_op(s).lpolicy.order == list_order::ordered);
        s = ok_case(list_case(R"({"op": "list_sort", "args": {"flags": ["DROP_DUPLICATES"]}})"));
        CHECK(only_cdt_op(s).sort_flags == cdt::list_sort_flags::drop_duplicates);
        s = ok_case(
            list_case(R"({"op": "list_insert", "args": {"index": 9, "value": 1}, "flags": 2})"));
        CHECK(only_cdt_op(s).lpolicy.flags == cdt::list_write_flags::insert_bounded);
    }
    SECTION("list_increment without a delta sends none, as the clients' increment(bin, index)") {
        auto s = ok_case(list_case(R"({"op": "list_increment", "args": {"index": 1}})"));
        CHECK(only_cdt_op(s).val.is_nil());
        CHECK(only_cdt_op(s).code == cdt::list_ops::increment(1).code);
        CHECK(only_cdt_op(s).val == cdt::list_ops::increment(1).val);
    }
    SECTION("map_set_policy takes its order as an argument or as policy_order") {
        auto s = ok_case(map_case(R"({"op": "map_set_policy", "policy_order": "K_ORDERED"})"));
        CHECK(only_cdt_op(s).morder == map_order::key_ordered);
        CHECK(invalid_message(map_case(R"({"op": "map_set_policy"})")).find("missing the order") !=
              std::string::npos);
    }
}

TEST_CASE("every ctx step type parses", "[tools][cdt_case]") {
    auto s = ok_case(map_case(R"({"op": "map_size", "ctx": [
        {"type": "list_index", "index": -1}, {"type": "list_rank", "rank": 2},
        {"type": "list_value", "value": [1, 2]}, {"type": "map_index", "index": 0},
        {"type": "map_key", "key": "k"}, {"type": "map_rank", "rank": -1},
        {"type": "map_value", "value": {"$map": []}},
        {"type": "list_index_create", "index": 3, "order": "ORDERED", "pad": true},
        {"type": "map_key_create", "key": 7, "order": "KV_ORDERED"}]})"));
    const cdt::op& o = only_cdt_op(s);
    REQUIRE(o.ctx.size() == 9);
    using k = cdt::ctx_step::kind;
    CHECK(o.ctx[0].type == k::list_index);
    CHECK(o.ctx[0].index == -1);
    CHECK(o.ctx[1].type == k::list_rank);
    CHECK(o.ctx[2].type == k::list_value);
    CHECK(o.ctx[3].type == k::map_index);
    CHECK(o.ctx[4].type == k::map_key);
    CHECK(o.ctx[4].val == value("k"));
    CHECK(o.ctx[5].type == k::map_rank);
    CHECK(o.ctx[6].type == k::map_value);
    CHECK(o.ctx[6].val.is_map());
    CHECK(o.ctx[7].type == k::list_index);
    CHECK(o.ctx[7].create);
    CHECK(o.ctx[7].pad);
    CHECK(o.ctx[7].create_list_order == list_order::ordered);
    CHECK(o.ctx[8].type == k::map_key);
    CHECK(o.ctx[8].create);
    CHECK(o.ctx[8].create_map_order == map_order::key_value_ordered);
}

TEST_CASE("every bit op name parses with the C client's argument names", "[tools][cdt_case]") {
    const char* samples[] = {
        R"({"op": "bit_resize", "args": {"byte_size": 4, "resize_flags": ["FROM_FRONT", "GROW_ONLY"]}, "flags": ["CREATE_ONLY"]})",
        R"({"op": "bit_insert", "args": {"byte_offset": 1, "value": {"$bytes": "ff"}}})",
        R"({"op": "bit_remove", "args": {"byte_offset": 0, "byte_size": 1}})",
        R"({"op": "bit_set", "args": {"bit_offset": 0, "bit_size": 4, "value": {"$bytes": "f0"}}})",
        R"({"op": "bit_or", "args": {"bit_offset": 0, "bit_size": 4, "value": {"$bytes": "f0"}}})",
        R"({"op": "bit_xor", "args": {"bit_offset": 0, "bit_size": 4, "value": {"$bytes": "f0"}}})",
        R"({"op": "bit_and", "args": {"bit_offset": 0, "bit_size": 4, "value": {"$bytes": "f0"}}})",
        R"({"op": "bit_not", "args": {"bit_offset": 0, "bit_size": 4}, "flags": ["PARTIAL", "NO_FAIL"]})",
        R"({"op": "bit_lshift", "args": {"bit_offset": 0, "bit_size": 8, "shift": 3}})",
        R"({"op": "bit_rshift", "args": {"bit_offset": 0, "bit_size": 8, "shift": 3}})",
        R"({"op": "bit_add", "args": {"bit_offset": 0, "bit_size": 8, "value": 5, "signed": true, "action": "SATURATE"}})",
        R"({"op": "bit_subtract", "args": {"bit_offset": 0, "bit_size": 8, "value": 5, "action": "WRAP"}})",
        R"({"op": "bit_set_int", "args": {"bit_offset": 0, "bit_size": 8, "value": -1}})",
        R"({"op": "bit_get", "args": {"bit_offset": 0, "bit_size": 8}})",
        R"({"op": "bit_count", "args": {"bit_offset": 0, "bit_size": 8}})",
        R"({"op": "bit_lscan", "args": {"bit_offset": 0, "bit_size": 8, "value": true}})",
        R"({"op": "bit_rscan", "args": {"bit_offset": 0, "bit_size": 8, "value": false}})",
        R"({"op": "bit_get_int", "args": {"bit_offset": 0, "bit_size": 8, "signed": true}})",
    };
    std::size_t n = 0;
    for (const char* op : samples) {
        INFO(op);
        auto s = ok_case(
            std::string(
                R"({"id": "b", "bin_type": "bytes", "initial": {"$bytes": "00ff"}, "ops": [)") +
            op + "]}");
        REQUIRE(std::holds_alternative<cdt::bit_op>(s.ops[0]));
        ++n;
    }
    CHECK(n == std::size(cdt::all_bit_op_codes));

    auto s = ok_case(R"({"bin_type": "bytes", "initial": {"$bytes": "00"}, "ops": [
        {"op": "bit_resize", "args": {"byte_size": 4, "resize_flags": ["FROM_FRONT", "SHRINK_ONLY"]}, "flags": ["UPDATE_ONLY"]},
        {"op": "bit_add", "args": {"bit_offset": -8, "bit_size": 8, "value": 5, "signed": true, "action": "SATURATE"}},
        {"op": "bit_rscan", "args": {"bit_offset": 0, "bit_size": 8, "value": true}}]})");
    const auto& resize = std::get<cdt::bit_op>(s.ops[0]);
    CHECK(resize.byte_size == 4);
    CHECK(resize.resize_flags ==
          (cdt::bit_resize_flags::from_front | cdt::bit_resize_flags::shrink_only));
    CHECK(resize.policy.flags == cdt::bit_write_flags::update_only);
    const auto& add = std::get<cdt::bit_op>(s.ops[1]);
    CHECK(add.bit_offset == -8);
    CHECK(add.int_value == 5);
    CHECK(add.sign);
    CHECK(add.action == cdt::bit_overflow_action::saturate);
    CHECK(std::get<cdt::bit_op>(s.ops[2]).scan_value);
}

TEST_CASE("the read op and the bin's initial state", "[tools][cdt_case]") {
    SECTION("a map bin's pair list keeps key types; the case order is the map's") {
        auto s = ok_case(R"({"bin_type": "map", "order": "KV_ORDERED",
            "initial": [["b", 1], [1, 2], [{"$bytes": "01"}, 3], [{"$double": 1.0}, 4]],
            "ops": [{"op": "read"}]})");
        CHECK(std::holds_alternative<cdt_json::read_bin>(s.ops[0]));
        REQUIRE(s.initial);
        const map& m = s.initial->as_map();
        CHECK(m.order() == map_order::key_value_ordered);
        CHECK(m.size() == 4);
        CHECK(m.contains(value(1)));
        CHECK(m.contains(value(1.0)));
        CHECK(m.contains(value(to_bytes("\x01"))));
    }
    SECTION("an ORDERED list is stored sorted") {
        auto s = ok_case(
            R"({"bin_type": "list", "order": "ORDERED", "initial": [3, 1, 2], "ops": [{"op": "read"}]})");
        CHECK(s.initial->as_list().is_ordered());
        CHECK(s.initial->as_list().to_vector() == std::vector<value>{1, 2, 3});
    }
    SECTION("any other scalar: the bin holds it, whatever bin_type says") {
        auto s = ok_case(R"({"bin_type": "map", "initial": "text", "ops": [{"op": "map_size"}]})");
        CHECK(*s.initial == value("text"));
        s = ok_case(
            R"({"bin_type": "list", "initial": {"$double": 2.5}, "ops": [{"op": "list_size"}]})");
        CHECK(*s.initial == value(2.5));
        s = ok_case(
            R"({"bin_type": "bytes", "initial": {"$bytes": "0aff"}, "ops": [{"op": "read"}]})");
        CHECK(s.initial->as_bytes() == bytes{0x0a, 0xff});
    }
    SECTION("missing bin, missing record") {
        auto s = ok_case(R"({"bin_type": "map", "initial": null, "ops": [{"op": "map_size"}]})");
        CHECK(s.record_exists);
        CHECK_FALSE(s.initial);
        s = ok_case(R"({"bin_type": "map", "record_exists": false, "ops": [{"op": "map_size"}]})");
        CHECK_FALSE(s.record_exists);
    }
    SECTION("when the bin is missing, ops that may create it get the case order") {
        auto s = ok_case(R"({"bin_type": "map", "order": "KV_ORDERED", "initial": null, "ops": [
            {"op": "map_put", "args": {"key": 1, "value": 1}},
            {"op": "map_put", "args": {"key": 1, "value": 1}, "policy_order": "UNORDERED"},
            {"op": "map_put", "args": {"key": 1, "value": 1}, "ctx": [{"type": "map_key_create", "key": 2}]}]})");
        CHECK(std::get<cdt::op>(s.ops[0]).mpolicy.order == map_order::key_value_ordered);
        CHECK(std::get<cdt::op>(s.ops[1]).mpolicy.order == map_order::unordered);
        CHECK(std::get<cdt::op>(s.ops[2]).ctx[0].create_map_order == map_order::key_value_ordered);
        CHECK(std::get<cdt::op>(s.ops[2]).mpolicy.order == map_order::unordered);
        // An existing bin keeps the op's own policy.
        s = ok_case(R"({"bin_type": "list", "order": "ORDERED", "initial": [], "ops": [
            {"op": "list_append", "args": {"value": 1}}]})");
        CHECK(std::get<cdt::op>(s.ops[0]).lpolicy.order == list_order::unordered);
    }
}

TEST_CASE("malformed cases say what is wrong and where", "[tools][cdt_case]") {
    struct bad {
        std::string text;
        std::string message;
    };
    const bad cases[] = {
        {"[1]", "the case must be a JSON object, got an array"},
        {R"({"id": 5, "bin_type": "map", "ops": [{"op": "read"}]})",
         "id: expected a string, got 5"},
        {R"({"ops": [{"op": "read"}]})", "bin_type: missing"},
        {R"({"bin_type": "set", "ops": [{"op": "read"}]})",
         "bin_type: expected map, list, bytes or hll, got \"set\""},
        {R"({"bin_type": "map", "order": "ORDERED", "ops": [{"op": "read"}]})",
         "order: expected a map order (UNORDERED, K_ORDERED, KV_ORDERED), got \"ORDERED\""},
        {R"({"bin_type": "list", "order": "UNORDERED", "ops": [{"op": "read"}]})",
         "order: expected a list order (ORDERED, UNORDERED_LIST)"},
        {R"({"bin_type": "bytes", "order": "ORDERED", "ops": [{"op": "read"}]})",
         "order: a bytes bin has no order"},
        {R"({"bin_type": "map", "record_exists": "yes", "ops": [{"op": "read"}]})",
         "record_exists: expected true or false, got \"yes\""},
        {R"({"bin_type": "map", "record_exists": false, "initial": [], "ops": [{"op": "read"}]})",
         "initial: must be null (or absent) when record_exists is false"},
        {R"({"bin_type": "map", "initial": [[1, 2], [1, 3]], "ops": [{"op": "read"}]})",
         "initial[1]: duplicate key 1"},
        {R"({"bin_type": "map", "initial": [[1, 2, 3]], "ops": [{"op": "read"}]})",
         "initial[0]: a map bin's initial is a list of [key, value] pairs, got [1,2,3]"},
        {R"({"bin_type": "map", "initial": {"a": 1}, "ops": [{"op": "read"}]})",
         "initial: a map bin's initial is a list of [key, value] pairs (a JSON object would lose "
         "the keys' types), got {\"a\":1}"},
        {R"({"bin_type": "map", "initial": {"$bytes": "abc"}, "ops": [{"op": "read"}]})",
         "initial.$bytes: hex string has an odd number of digits"},
        {R"({"bin_type": "map", "initial": [], "ops": []})", "ops: empty"},
        {R"({"bin_type": "map", "initial": []})", "ops: missing"},
        {R"({"bin_type": "map", "ops": {"op": "read"}})", "ops: expected an array of operations"},
        {R"({"bin_type": "map", "ops": [{"op": "map_frob"}]})",
         "ops[0].op: unknown op \"map_frob\""},
        {R"({"bin_type": "map", "ops": [{"args": {}}]})", "ops[0]: missing 'op'"},
        {R"({"bin_type": "map", "ops": [{"op": "read"}, 7]})",
         "ops[1]: expected an op object, got 7"},
        {R"({"bin_type": "map", "ops": [{"op": "map_put", "args": {"key": 1}}]})",
         "ops[0] (map_put): missing argument 'value'"},
        {R"({"bin_type": "map", "ops": [{"op": "map_put", "args": {"key": 1, "value": 2, "count": 3}}]})",
         "ops[0] (map_put): unknown argument 'count' (this op takes key, value, persist_index, "
         "flags)"},
        {R"({"bin_type": "map", "ops": [{"op": "map_size", "args": {"key": 1}}]})",
         "ops[0] (map_size): unknown argument 'key'"},
        {R"({"bin_type": "list", "ops": [{"op": "list_get", "args": {"index": "3"}}]})",
         "ops[0] (list_get) args.index: expected an integer, got \"3\""},
        {R"({"bin_type": "list", "ops": [{"op": "list_get", "args": {"index": 1.5}}]})",
         "ops[0] (list_get) args.index: expected an integer, got 1.5"},
        {R"({"bin_type": "list", "ops": [{"op": "list_get", "args": {"index": 9223372036854775808}}]})",
         "ops[0] (list_get) args.index: 9223372036854775808 is out of the int64 range"},
        {R"({"bin_type": "list", "ops": [{"op": "list_get", "args": [0]}]})",
         "ops[0] (list_get): args must be an object"},
        {R"({"bin_type": "list", "ops": [{"op": "list_append", "args": {"value": {"$foo": 1}}}]})",
         "ops[0] (list_append) args.value: unknown tag '$foo'"},
        {R"({"bin_type": "list", "ops": [{"op": "list_append_items", "args": {"values": 3}}]})",
         "ops[0] (list_append_items) args.values: expected an array, got 3"},
        {R"({"bin_type": "map", "ops": [{"op": "map_put_items", "args": {"items": [[1]]}}]})",
         "ops[0] (map_put_items) args.items[0]: expected a [key, value] pair, got [1]"},
        {R"({"bin_type": "map", "ops": [{"op": "map_put", "args": {"key": 1, "value": 2}, "flags": ["ADD_UNIQUE"]}]})",
         "ops[0] (map_put).flags[0]: unknown flag \"ADD_UNIQUE\" (this op takes CREATE_ONLY, "
         "UPDATE_ONLY, NO_FAIL, PARTIAL)"},
        {R"({"bin_type": "map", "ops": [{"op": "map_put", "args": {"key": 1, "value": 2}, "flags": "NO_FAIL"}]})",
         "ops[0] (map_put).flags: expected an array of flag names"},
        {R"({"bin_type": "map", "ops": [{"op": "map_put", "args": {"key": 1, "value": 2, "flags": []}, "flags": []}]})",
         "ops[0] (map_put): flags given both in the op and in args"},
        {R"({"bin_type": "map", "ops": [{"op": "map_size", "flags": ["NO_FAIL"]}]})",
         "ops[0] (map_size).flags: map_size takes no flags"},
        {R"({"bin_type": "map", "ops": [{"op": "map_size", "return_type": "COUNT"}]})",
         "ops[0] (map_size): map_size takes no return_type (it is not a selector)"},
        {R"({"bin_type": "map", "ops": [{"op": "map_size", "policy_order": "KV_ORDERED"}]})",
         "ops[0] (map_size): map_size takes no policy_order"},
        {R"({"bin_type": "map", "ops": [{"op": "map_get_by_key", "args": {"key": 1}, "return_type": "KEYS"}]})",
         "ops[0] (map_get_by_key).return_type: expected a return type (NONE, INDEX"},
        {R"({"bin_type": "map", "ops": [{"op": "map_get_by_key", "args": {"key": 1}, "return_type": 4294967296}]})",
         "ops[0] (map_get_by_key).return_type: raw return type 4294967296 does not fit in 32 bits"},
        {R"({"bin_type": "map", "ops": [{"op": "map_get_by_key", "args": {"key": 1}, "inverted": 1}]})",
         "ops[0] (map_get_by_key).inverted: expected true or false, got 1"},
        {R"({"bin_type": "map", "ops": [{"op": "map_put", "args": {"key": 1, "value": 1}, "policy_order": "ORDERED"}]})",
         "ops[0] (map_put).policy_order: expected a map order"},
        {R"({"bin_type": "map", "ops": [{"op": "map_size", "ctx": {"type": "map_key"}}]})",
         "ops[0] (map_size).ctx: expected an array of steps"},
        {R"({"bin_type": "map", "ops": [{"op": "map_size", "ctx": [{"type": "map_key"}]}]})",
         "ops[0] (map_size).ctx[0] (map_key): missing 'key'"},
        {R"({"bin_type": "map", "ops": [{"op": "map_size", "ctx": [{"type": "map_key", "index": 1, "key": 1}]}]})",
         "ops[0] (map_size).ctx[0] (map_key): unknown field 'index' (takes key)"},
        {R"({"bin_type": "map", "ops": [{"op": "map_size", "ctx": [{"type": "map_slot", "index": 1}]}]})",
         "ops[0] (map_size).ctx[0].type: unknown ctx step \"map_slot\""},
        {R"({"bin_type": "map", "ops": [{"op": "map_size", "ctx": [{"type": "list_index_create", "index": 1, "order": "K_ORDERED"}]}]})",
         "ops[0] (map_size).ctx[0].order: expected a list order"},
        {R"({"bin_type": "map", "ops": [{"op": "map_size", "retrun_type": "COUNT"}]})",
         "ops[0] (map_size): unknown field 'retrun_type'"},
        {R"({"bin_type": "map", "ops": [{"op": "read", "ctx": []}]})",
         "ops[0] (read): read takes no ctx"},
        {R"({"bin_type": "map", "ops": [{"op": "map_create"}]})",
         "ops[0] (map_create): missing argument 'order'"},
        {R"({"bin_type": "list", "ops": [{"op": "list_sort", "flags": ["ADD_UNIQUE"]}]})",
         "ops[0] (list_sort).flags[0]: unknown flag \"ADD_UNIQUE\" (this op takes "
         "DROP_DUPLICATES)"},
        {R"({"bin_type": "bytes", "ops": [{"op": "bit_get", "args": {"bit_offset": 0, "bit_size": 8}, "flags": ["NO_FAIL"]}]})",
         "ops[0] (bit_get).flags: bit_get takes no flags (a read)"},
        {R"({"bin_type": "bytes", "ops": [{"op": "bit_set", "args": {"bit_offset": 0, "bit_size": 8, "value": 255}}]})",
         "ops[0] (bit_set) args.value: expected bytes {\"$bytes\": hex}, got 255"},
        {R"({"bin_type": "bytes", "ops": [{"op": "bit_add", "args": {"bit_offset": 0, "bit_size": 8, "value": 1, "action": "CLAMP"}}]})",
         "ops[0] (bit_add) args.action: expected FAIL, SATURATE or WRAP, got \"CLAMP\""},
        {R"({"bin_type": "bytes", "ops": [{"op": "bit_lscan", "args": {"bit_offset": 0, "bit_size": 8}}]})",
         "ops[0] (bit_lscan): missing argument 'value'"},
        {R"({"bin_type": "bytes", "ops": [{"op": "bit_count", "args": {"bit_offset": 0, "bit_size": 8}, "ctx": []}]})",
         "ops[0] (bit_count): bit_count takes no ctx"},
        {R"({"bin_type": "bytes", "ops": [{"op": "bit_resize", "args": {"byte_size": 1, "resize_flags": ["SHRINK"]}}]})",
         "ops[0] (bit_resize) args.resize_flags[0]: unknown flag \"SHRINK\" (this op takes "
         "FROM_FRONT, GROW_ONLY, SHRINK_ONLY)"},
    };
    for (const bad& b : cases) {
        INFO(b.text);
        std::string message = invalid_message(b.text);
        INFO(message);
        CHECK(message.find(b.message) != std::string::npos);
    }
}

namespace {

void check_same_step(const cdt::ctx_step& a, const cdt::ctx_step& b) {
    CHECK(a.type == b.type);
    CHECK(a.index == b.index);
    CHECK(a.val == b.val);
    CHECK(a.create == b.create);
    CHECK(a.create_list_order == b.create_list_order);
    CHECK(a.pad == b.pad);
    CHECK(a.create_map_order == b.create_map_order);
}

/// Every field of two ops, so a JSON op is exactly what the builders make.
void check_same_op(const cdt::op& a, const cdt::op& b) {
    INFO(cdt::op_name(a.code) << " vs " << cdt::op_name(b.code));
    CHECK(a.code == b.code);
    REQUIRE(a.ctx.size() == b.ctx.size());
    for (std::size_t i = 0; i < a.ctx.size(); ++i)
        check_same_step(a.ctx[i], b.ctx[i]);
    CHECK(a.key == b.key);
    CHECK(a.val == b.val);
    CHECK(a.begin == b.begin);
    CHECK(a.end == b.end);
    CHECK(a.values == b.values);
    CHECK(a.items == b.items);
    CHECK(a.index == b.index);
    CHECK(a.count == b.count);
    CHECK(a.return_type == b.return_type);
    CHECK(a.mpolicy.order == b.mpolicy.order);
    CHECK(a.mpolicy.flags == b.mpolicy.flags);
    CHECK(a.mpolicy.mode == b.mpolicy.mode);
    CHECK(a.mpolicy.persist_index == b.mpolicy.persist_index);
    CHECK(a.lpolicy.order == b.lpolicy.order);
    CHECK(a.lpolicy.flags == b.lpolicy.flags);
    CHECK(a.sort_flags == b.sort_flags);
    CHECK(a.order == b.order);
    CHECK(a.morder == b.morder);
    CHECK(a.pad == b.pad);
    CHECK(a.persist_index == b.persist_index);
}

cdt::op parsed(const std::string& op_json, bool map) {
    return only_cdt_op(ok_case(map ? map_case(op_json) : list_case(op_json)));
}

} // namespace

TEST_CASE("a JSON op is exactly what the cdt builders build", "[tools][cdt_case]") {
    namespace mo = cdt::map_ops;
    namespace lo = cdt::list_ops;
    using rt = cdt::return_type;
    cdt::map_policy mp;
    mp.order = map_order::key_ordered;
    mp.flags = cdt::map_write_flags::update_only | cdt::map_write_flags::no_fail;
    check_same_op(
        parsed(
            R"({"op": "map_put", "args": {"key": "k", "value": [1]}, "flags": ["UPDATE_ONLY", "NO_FAIL"], "policy_order": "K_ORDERED"})",
            true),
        mo::put("k", list{1}, mp));
    check_same_op(parsed(R"({"op": "map_put_items", "args": {"items": [[1, 2]]}})", true),
                  mo::put_items({{1, 2}}));
    check_same_op(parsed(R"({"op": "map_increment", "args": {"key": 1, "delta": 2}})", true),
                  mo::increment(1, 2));
    check_same_op(parsed(R"({"op": "map_decrement", "args": {"key": 1, "delta": 2}})", true),
                  mo::decrement(1, 2));
    check_same_op(
        parsed(R"({"op": "map_create", "args": {"order": "KV_ORDERED", "persist_index": true}})",
               true),
        mo::create(map_order::key_value_ordered, true));
    check_same_op(parsed(R"({"op": "map_set_policy", "args": {"order": "K_ORDERED"}})", true),
                  mo::set_policy(map_order::key_ordered));
    check_same_op(parsed(R"({"op": "map_clear"})", true), mo::clear());
    check_same_op(parsed(R"({"op": "map_size", "ctx": [{"type": "map_key", "key": "x"}]})", true),
                  mo::size({cdt::ctx_step::map_key("x")}));
    check_same_op(
        parsed(R"({"op": "map_get_by_key", "args": {"key": 1}, "return_type": "KEY"})", true),
        mo::get_by_key(1, rt::key));
    check_same_op(
        parsed(
            R"({"op": "map_remove_by_key_list", "args": {"keys": [1, "a"]}, "return_type": "COUNT", "inverted": true})",
            true),
        mo::remove_by_key_list({1, "a"}, rt::count, true));
    check_same_op(
        parsed(
            R"({"op": "map_get_by_key_range", "args": {"begin": 1}, "return_type": "KEY_VALUE"})",
            true),
        mo::get_by_key_range(1, std::nullopt, rt::key_value));
    check_same_op(parsed(R"({"op": "map_remove_by_value_range", "args": {"end": 5}})", true),
                  mo::remove_by_value_range(value(), value(5), rt::none));
    check_same_op(
        parsed(
            R"({"op": "map_get_by_key_rel_index_range", "args": {"key": 3, "index": -2, "count": 2}, "return_type": "KEY"})",
            true),
        mo::get_by_key_rel_index_range(3, -2, 2, rt::key));
    check_same_op(
        parsed(R"({"op": "map_get_by_value_rel_rank_range", "args": {"value": 11, "rank": -1}})",
               true),
        mo::get_by_value_rel_rank_range(11, -1, std::nullopt, rt::value));
    check_same_op(
        parsed(
            R"({"op": "map_remove_by_value", "args": {"value": [1, {"$wildcard": true}]}, "return_type": "KEY"})",
            true),
        mo::remove_by_value(list{1, wildcard}, rt::key));
    check_same_op(
        parsed(R"({"op": "map_get_by_value_list", "args": {"values": [1]}, "return_type": "RANK"})",
               true),
        mo::get_by_value_list({1}, rt::rank));
    check_same_op(
        parsed(
            R"({"op": "map_get_by_index_range", "args": {"index": 1, "count": 2}, "return_type": "INDEX"})",
            true),
        mo::get_by_index_range(1, 2, rt::index));
    check_same_op(
        parsed(R"({"op": "map_remove_by_rank", "args": {"rank": -1}, "return_type": "VALUE"})",
               true),
        mo::remove_by_rank(-1, rt::value));
    check_same_op(
        parsed(
            R"({"op": "map_get_by_rank_range", "args": {"rank": 0, "count": 3}, "return_type": "REVERSE_RANK"})",
            true),
        mo::get_by_rank_range(0, 3, rt::reverse_rank));

    cdt::list_policy lp;
    lp.order = list_order::ordered;
    lp.flags = cdt::list_write_flags::add_unique | cdt::list_write_flags::no_fail;
    check_same_op(
        parsed(
            R"({"op": "list_append", "args": {"value": 1}, "flags": ["ADD_UNIQUE", "NO_FAIL"], "policy_order": "ORDERED"})",
            false),
        lo::append(1, lp));
    check_same_op(parsed(R"({"op": "list_append_items", "args": {"values": [1, 2]}})", false),
                  lo::append_items({1, 2}));
    check_same_op(parsed(R"({"op": "list_insert", "args": {"index": -1, "value": "x"}})", false),
                  lo::insert(-1, "x"));
    check_same_op(
        parsed(R"({"op": "list_insert_items", "args": {"index": 2, "values": [1]}})", false),
        lo::insert_items(2, {1}));
    check_same_op(parsed(R"({"op": "list_set", "args": {"index": 2, "value": 1}})", false),
                  lo::set(2, 1));
    check_same_op(parsed(R"({"op": "list_increment", "args": {"index": 2, "delta": 5}})", false),
                  lo::increment(2, 5));
    check_same_op(parsed(R"({"op": "list_increment", "args": {"index": 2}})", false),
                  lo::increment(2));
    check_same_op(parsed(R"({"op": "list_trim", "args": {"index": 1, "count": 2}})", false),
                  lo::trim(1, 2));
    check_same_op(parsed(R"({"op": "list_pop", "args": {"index": 1}})", false), lo::pop(1));
    check_same_op(parsed(R"({"op": "list_pop_range", "args": {"index": 1}})", false),
                  lo::pop_range(1));
    check_same_op(parsed(R"({"op": "list_remove", "args": {"index": 1}})", false), lo::remove(1));
    check_same_op(parsed(R"({"op": "list_remove_range", "args": {"index": 1, "count": 3}})", false),
                  lo::remove_range(1, 3));
    check_same_op(parsed(R"({"op": "list_get", "args": {"index": 0}})", false), lo::get(0));
    check_same_op(parsed(R"({"op": "list_get_range", "args": {"index": 0, "count": -1}})", false),
                  lo::get_range(0, -1));
    check_same_op(parsed(R"({"op": "list_size"})", false), lo::size());
    check_same_op(parsed(R"({"op": "list_clear"})", false), lo::clear());
    check_same_op(parsed(R"({"op": "list_sort", "flags": ["DROP_DUPLICATES"]})", false),
                  lo::sort(cdt::list_sort_flags::drop_duplicates));
    check_same_op(parsed(R"({"op": "list_set_order", "args": {"order": "ORDERED"}})", false),
                  lo::set_order(list_order::ordered));
    check_same_op(
        parsed(
            R"({"op": "list_create", "args": {"order": "ORDERED", "pad": true}, "ctx": [{"type": "list_index", "index": 0}]})",
            false),
        lo::create(list_order::ordered, true, false, {cdt::ctx_step::list_index(0)}));
    check_same_op(
        parsed(
            R"({"op": "list_get_by_value_rel_rank_range", "args": {"value": 5, "rank": -1, "count": 2}, "return_type": "VALUE"})",
            false),
        lo::get_by_value_rel_rank_range(5, -1, 2, rt::value));
    check_same_op(
        parsed(
            R"({"op": "list_remove_by_value_list", "args": {"values": [4, 2]}, "return_type": "INDEX", "inverted": true})",
            false),
        lo::remove_by_value_list({4, 2}, rt::index, true));
    check_same_op(
        parsed(R"({"op": "list_get_by_value_range", "args": {"begin": 1, "end": {"$inf": true}}})",
               false),
        lo::get_by_value_range(1, value(inf), rt::value));
    check_same_op(
        parsed(R"({"op": "list_get_by_rank", "args": {"rank": 0}, "return_type": "INDEX"})", false),
        lo::get_by_rank(0, rt::index));
}

} // namespace tools_cdt_case_test
