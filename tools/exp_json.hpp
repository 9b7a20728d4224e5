// tools/exp_json.hpp
//
// An expression of shared/spec/exp-json.md — a JSON array whose first element
// is an `as_exp_NAME` macro name of the C client's aerospike/as_exp.h, then
// that macro's arguments — packed to the bytes as_exp_compile produces for
// the same macro call, so the same bytes go to the simulator and to a real
// server.
//
// Names and argument counts are checked here (an unknown name or a wrong
// count makes the case invalid, with the place: "ops[0].exp[2]: ..."); types
// are not: a mistyped expression is packed as given and the store answers,
// as a server does. Packing follows as_exp.h macro by macro: a CDT read is
// `call(read type, CDT, [op, rtype, params...], bin)`, a CDT modify `call(ctx
// type, CDT|MODIFY_LOCAL, [op, params..., policy...], bin)` (the remove
// macros without an rtype send NONE), a bit call `call(type, BITS[|MODIFY],
// [op, params..., policy flags...], bin)`.
//
// Two names are not as_exp.h macros: ["list_set_order", ctx, ORDER, bin] and
// ["map_set_policy", ctx, ORDER, bin] send the list set-order (0) and map
// set-policy (64) ops as a modify call, as any client can; ORDER is an order
// name, {"order": ..., "persist_index": true}, or the wire flags as an
// integer.
//
// Not yet packed (the case is invalid, saying so): the path
// expressions of 8.1 (select_by_path, modify_by_path, loopvar_*,
// map_keys_in, map_values_in, remove_result) and the string calls of later
// clients.
//
// Cost: linear in the expression's JSON (each node copies its operands'
// bytes once: O(size x depth)).
#pragma once

#include <kvmodel/cdt/context.hpp>
#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/json.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/exp/build.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/record.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cdt_case.hpp"
#include "json_io.hpp"

namespace kvmodel::tools::cdt_json {

namespace detail {

/// One CDT macro of as_exp.h: its wire op and argument shape.
struct cdt_macro {
    std::string_view name;
    bool is_map;
    std::uint8_t op;
    enum shape_kind : std::uint8_t {
        read_single, // ctx, rtype, vtype, params..., bin
        read_multi,  // ctx, rtype, params..., bin
        remove_rt,   // ctx, rtype, params..., bin
        remove_none, // ctx, params..., bin (rtype NONE on the wire)
        size,        // ctx, bin
        modify_crmod, // ctx, policy, params..., bin (order + flags when a policy is given)
        modify_mod,  // ctx, policy, params..., bin (flags when a policy is given)
        clear,       // ctx, bin
        sort,        // ctx, sort flags, bin
        set_type,    // ctx, order (a name, {"order", "persist_index"} or the raw flags), bin
    } shape;
    std::uint8_t params; // expression parameters between the constants and the bin
};

inline constexpr cdt_macro cdt_macros[] = {
    // lists: reads
    {"list_size", false, 16, cdt_macro::size, 0},
    {"list_get_by_index", false, 19, cdt_macro::read_single, 1},
    {"list_get_by_rank", false, 21, cdt_macro::read_single, 1},
    {"list_get_by_value", false, 22, cdt_macro::read_multi, 1},
    {"list_get_by_value_list", false, 23, cdt_macro::read_multi, 1},
    {"list_get_by_index_range_to_end", false, 24, cdt_macro::read_multi, 1},
    {"list_get_by_index_range", false, 24, cdt_macro::read_multi, 2},
    {"list_get_by_value_range", false, 25, cdt_macro::read_multi, 2},
    {"list_get_by_rank_range_to_end", false, 26, cdt_macro::read_multi, 1},
    {"list_get_by_rank_range", false, 26, cdt_macro::read_multi, 2},
    {"list_get_by_rel_rank_range_to_end", false, 27, cdt_macro::read_multi, 2},
    {"list_get_by_rel_rank_range", false, 27, cdt_macro::read_multi, 3},
    // lists: modifies
    {"list_append", false, 1, cdt_macro::modify_crmod, 1},
    {"list_append_items", false, 2, cdt_macro::modify_crmod, 1},
    {"list_insert", false, 3, cdt_macro::modify_mod, 2},
    {"list_insert_items", false, 4, cdt_macro::modify_mod, 2},
    {"list_set", false, 9, cdt_macro::modify_mod, 2},
    {"list_clear", false, 11, cdt_macro::clear, 0},
    {"list_increment", false, 12, cdt_macro::modify_crmod, 2},
    {"list_sort", false, 13, cdt_macro::sort, 0},
    // (not an as_exp.h macro: the list set-order op, 0, sent in a call as any
    // client can; see set_type_flags)
    {"list_set_order", false, 0, cdt_macro::set_type, 0},
    {"list_remove_by_index", false, 32, cdt_macro::remove_none, 1},
    {"list_remove_by_rank", false, 34, cdt_macro::remove_none, 1},
    {"list_remove_by_value", false, 35, cdt_macro::remove_rt, 1},
    {"list_remove_by_value_list", false, 36, cdt_macro::remove_rt, 1},
    {"list_remove_by_index_range_to_end", false, 37, cdt_macro::remove_rt, 1},
    {"list_remove_by_index_range", false, 37, cdt_macro::remove_rt, 2},
    {"list_remove_by_value_range", false, 38, cdt_macro::remove_rt, 2},
    {"list_remove_by_rank_range_to_end", false, 39, cdt_macro::remove_rt, 1},
    {"list_remove_by_rank_range", false, 39, cdt_macro::remove_rt, 2},
    {"list_remove_by_rel_rank_range_to_end", false, 40, cdt_macro::remove_rt, 2},
    {"list_remove_by_rel_rank_range", false, 40, cdt_macro::remove_rt, 3},
    // maps: reads
    {"map_size", true, 96, cdt_macro::size, 0},
    {"map_get_by_key", true, 97, cdt_macro::read_single, 1},
    {"map_get_by_index", true, 98, cdt_macro::read_single, 1},
    {"map_get_by_rank", true, 100, cdt_macro::read_single, 1},
    {"map_get_by_value", true, 102, cdt_macro::read_multi, 1},
    {"map_get_by_key_range", true, 103, cdt_macro::read_multi, 2},
    {"map_get_by_index_range_to_end", true, 104, cdt_macro::read_multi, 1},
    {"map_get_by_index_range", true, 104, cdt_macro::read_multi, 2},
    {"map_get_by_value_range", true, 105, cdt_macro::read_multi, 2},
    {"map_get_by_rank_range_to_end", true, 106, cdt_macro::read_multi, 1},
    {"map_get_by_rank_range", true, 106, cdt_macro::read_multi, 2},
    {"map_get_by_key_list", true, 107, cdt_macro::read_multi, 1},
    {"map_get_by_value_list", true, 108, cdt_macro::read_multi, 1},
    {"map_get_by_key_rel_index_range_to_end", true, 109, cdt_macro::read_multi, 2},
    {"map_get_by_key_rel_index_range", true, 109, cdt_macro::read_multi, 3},
    {"map_get_by_value_rel_rank_range_to_end", true, 110, cdt_macro::read_multi, 2},
    {"map_get_by_value_rel_rank_range", true, 110, cdt_macro::read_multi, 3},
    // maps: modifies
    {"map_put", true, 67, cdt_macro::modify_crmod, 2},
    {"map_put_items", true, 68, cdt_macro::modify_crmod, 1},
    {"map_increment", true, 73, cdt_macro::modify_mod, 2},
    {"map_clear", true, 75, cdt_macro::clear, 0},
    // (not an as_exp.h macro either: the map set-policy op, 64)
    {"map_set_policy", true, 64, cdt_macro::set_type, 0},
    {"map_remove_by_key", true, 76, cdt_macro::remove_none, 1},
    {"map_remove_by_index", true, 77, cdt_macro::remove_none, 1},
    {"map_remove_by_rank", true, 79, cdt_macro::remove_none, 1},
    {"map_remove_by_key_list", true, 81, cdt_macro::remove_rt, 1},
    {"map_remove_by_value", true, 82, cdt_macro::remove_rt, 1},
    {"map_remove_by_value_list", true, 83, cdt_macro::remove_rt, 1},
    {"map_remove_by_key_range", true, 84, cdt_macro::remove_rt, 2},
    {"map_remove_by_index_range_to_end", true, 85, cdt_macro::remove_rt, 1},
    {"map_remove_by_index_range", true, 85, cdt_macro::remove_rt, 2},
    {"map_remove_by_value_range", true, 86, cdt_macro::remove_rt, 2},
    {"map_remove_by_rank_range_to_end", true, 87, cdt_macro::remove_rt, 1},
    {"map_remove_by_rank_range", true, 87, cdt_macro::remove_rt, 2},
    {"map_remove_by_key_rel_index_range_to_end", true, 88, cdt_macro::remove_rt, 2},
    {"map_remove_by_key_rel_index_range", true, 88, cdt_macro::remove_rt, 3},
    {"map_remove_by_value_rel_rank_range_to_end", true, 89, cdt_macro::remove_rt, 2},
    {"map_remove_by_value_rel_rank_range", true, 89, cdt_macro::remove_rt, 3},
};

/// One bit macro: wire op, whether it modifies, the expression parameters
/// before the policy, and what follows the policy.
struct bit_macro {
    std::string_view name;
    std::uint8_t op;
    bool modify;
    std::uint8_t params;
    enum tail_kind : std::uint8_t {
        none,          // nothing after the policy (reads: no policy at all)
        resize_flags,  // bit_resize: resize flags after the policy
        action,        // bit_add / bit_subtract: overflow action
        signed_action, // *_signed: signed flag, then the action
        sign,          // bit_get_int: signed flag
    } tail;
    exp::type result; // reads: the declared result type
};

inline constexpr bit_macro bit_macros[] = {
    {"bit_resize", 0, true, 1, bit_macro::resize_flags, exp::type::blob},
    {"bit_insert", 1, true, 2, bit_macro::none, exp::type::blob},
    {"bit_remove", 2, true, 2, bit_macro::none, exp::type::blob},
    {"bit_set", 3, true, 3, bit_macro::none, exp::type::blob},
    {"bit_or", 4, true, 3, bit_macro::none, exp::type::blob},
    {"bit_xor", 5, true, 3, bit_macro::none, exp::type::blob},
    {"bit_and", 6, true, 3, bit_macro::none, exp::type::blob},
    {"bit_not", 7, true, 2, bit_macro::none, exp::type::blob},
    {"bit_lshift", 8, true, 3, bit_macro::none, exp::type::blob},
    {"bit_rshift", 9, true, 3, bit_macro::none, exp::type::blob},
    {"bit_add", 10, true, 3, bit_macro::action, exp::type::blob},
    {"bit_add_signed", 10, true, 3, bit_macro::signed_action, exp::type::blob},
    {"bit_subtract", 11, true, 3, bit_macro::action, exp::type::blob},
    {"bit_subtract_signed", 11, true, 3, bit_macro::signed_action, exp::type::blob},
    {"bit_set_int", 12, true, 3, bit_macro::none, exp::type::blob},
    {"bit_get", 50, false, 2, bit_macro::none, exp::type::blob},
    {"bit_count", 51, false, 2, bit_macro::none, exp::type::integer},
    {"bit_lscan", 52, false, 3, bit_macro::none, exp::type::integer},
    {"bit_rscan", 53, false, 3, bit_macro::none, exp::type::integer},
    {"bit_get_int", 54, false, 2, bit_macro::sign, exp::type::integer},
};

/// Ops whose arguments are all expressions: name, wire code, argument count
/// (-1: variadic).
struct plain_macro {
    std::string_view name;
    std::uint8_t code;
    int args;
};

inline constexpr plain_macro plain_macros[] = {
    {"cmp_eq", exp::code::cmp_eq, 2},   {"cmp_ne", exp::code::cmp_ne, 2},
    {"cmp_gt", exp::code::cmp_gt, 2},   {"cmp_ge", exp::code::cmp_ge, 2},
    {"cmp_lt", exp::code::cmp_lt, 2},   {"cmp_le", exp::code::cmp_le, 2},
    {"cmp_geo", exp::code::cmp_geo, 2}, {"in_list", exp::code::in_list, 2},
    {"not", exp::code::not_, 1},        {"and", exp::code::and_, -1},
    {"or", exp::code::or_, -1},         {"exclusive", exp::code::exclusive, -1},
    {"add", exp::code::add, -1},        {"sub", exp::code::sub, -1},
    {"mul", exp::code::mul, -1},        {"div", exp::code::div, -1},
    {"pow", exp::code::pow, 2},         {"log", exp::code::log, 2},
    {"mod", exp::code::mod, 2},         {"abs", exp::code::abs, 1},
    {"floor", exp::code::floor, 1},     {"ceil", exp::code::ceil, 1},
    {"to_int", exp::code::to_int, 1},   {"to_float", exp::code::to_float, 1},
    {"int_and", exp::code::int_and, -1}, {"int_or", exp::code::int_or, -1},
    {"int_xor", exp::code::int_xor, -1}, {"int_not", exp::code::int_not, 1},
    {"int_lshift", exp::code::int_lshift, 2}, {"int_rshift", exp::code::int_rshift, 2},
    {"int_arshift", exp::code::int_arshift, 2}, {"int_count", exp::code::int_count, 1},
    {"int_lscan", exp::code::int_lscan, 2}, {"int_rscan", exp::code::int_rscan, 2},
    {"min", exp::code::min, -1},        {"max", exp::code::max, -1},
    {"cond", exp::code::cond, -1},      {"unknown", exp::code::unknown, 0},
    {"key_exist", exp::code::key_exists, 0}, {"set_name", exp::code::set_name, 0},
    {"record_size", exp::code::record_size, 0}, {"device_size", exp::code::device_size, 0},
    {"memory_size", exp::code::memory_size, 0}, {"last_update", exp::code::last_update, 0},
    {"since_update", exp::code::since_update, 0}, {"void_time", exp::code::void_time, 0},
    {"ttl", exp::code::ttl, 0},         {"is_tombstone", exp::code::is_tombstone, 0},
};

/// Names of as_exp.h this runner knows but does not pack yet.
inline constexpr std::string_view unsupported_prefixes[] = {
    "select_by_path", "modify_by_path", "loopvar_", "map_keys", "map_values",
    "remove_result", "result_remove", "string_", "to_string", "bin_geo", "geo"};

inline exp::type to_exp_type(const json& j, const std::string& where) {
    static constexpr std::pair<std::string_view, exp::type> names[] = {
        {"NIL", exp::type::nil},     {"BOOL", exp::type::boolean}, {"INT", exp::type::integer},
        {"STR", exp::type::string},  {"LIST", exp::type::list},    {"MAP", exp::type::map},
        {"BLOB", exp::type::blob},   {"FLOAT", exp::type::floating}, {"GEO", exp::type::geojson},
        {"HLL", exp::type::hll},     {"AUTO", exp::type::automatic},
    };
    if (j.is_string())
        for (const auto& [n, t] : names)
            if (n == j.get_ref<const std::string&>())
                return t;
    reject(where + ": expected a value type (NIL BOOL INT STR LIST MAP BLOB FLOAT GEO HLL AUTO), got " +
           brief(j));
}

/// A return type: a name, [name, "INVERTED"], or a raw integer.
inline std::int32_t to_exp_return_type(const json& j, const std::string& where) {
    if (j.is_array()) {
        if (j.size() != 2 || j[1] != "INVERTED")
            reject(where + ": expected [RETURN_TYPE, \"INVERTED\"], got " + brief(j));
        return to_return_type(j[0], where + "[0]") | cdt::return_inverted;
    }
    return to_return_type(j, where);
}

inline constexpr flag_name regex_flag_names[] = {
    {"EXTENDED", static_cast<std::uint32_t>(exp::regex_flags::extended)},
    {"ICASE", static_cast<std::uint32_t>(exp::regex_flags::icase)},
    {"NEWLINE", static_cast<std::uint32_t>(exp::regex_flags::newline)},
    {"NOSUB", static_cast<std::uint32_t>(exp::regex_flags::nosub)},
};

/// The constant argument `j` as a name (bin, variable).
inline std::string to_name(const json& j, const std::string& where) {
    if (!j.is_string())
        reject(where + ": expected a name (a string), got " + brief(j));
    return j.get<std::string>();
}

/// A value in the spec's expression notation: a JSON value, or
/// {"$list": [...]} (a bare array would be an expression).
inline value to_exp_value(const json& j, const std::string& where) {
    if (j.is_object() && j.size() == 1 && j.contains("$list")) {
        const json& l = j["$list"];
        if (!l.is_array())
            reject(where + ".$list: expected an array, got " + brief(l));
        return to_value(l, where + ".$list");
    }
    return to_value(j, where);
}

/// Whether j is {"$hll": hex}.
inline bool is_hll_json(const json& j) {
    return j.is_object() && j.size() == 1 && j.contains("$hll");
}

/// A constant in the spec's notation as the C client packs it: an HLL
/// ({"$hll": hex}, or a list holding some) keeps its HLL particle type, which
/// a kvmodel value (bytes) does not carry.
inline exp::expr to_exp_constant(const json& j, const std::string& where) {
    if (is_hll_json(j))
        return exp::hll_val(hll_bytes(j, where));
    const json* l = j.is_object() && j.size() == 1 && j.contains("$list") ? &j["$list"] : nullptr;
    if (l == nullptr || !l->is_array() || std::none_of(l->begin(), l->end(), is_hll_json))
        return exp::val(to_exp_value(j, where));
    exp::expr out;
    adapters::detail::msgpack_writer w(out.raw());
    w.array_header(2);
    w.integer(exp::code::quote);
    w.array_header(l->size());
    std::size_t i = 0;
    for (const json& e : *l) {
        const std::string at = where + ".$list[" + std::to_string(i++) + "]";
        if (is_hll_json(e)) {
            const kvmodel::bytes b = hll_bytes(e, at);
            w.prefixed(adapters::detail::particle::hll, b.data(), b.size());
        } else {
            adapters::detail::encode_into(w, to_value(e, at));
        }
    }
    return out;
}

/// One HLL macro of as_exp.h: its wire op, result type, and shape.
struct hll_macro {
    std::string_view name;
    cdt::hll_op_code op;
    exp::type result;
    enum shape_kind : std::uint8_t {
        init,      // policy, index_bit_count, bin
        init_mh,   // policy, index_bit_count, mh_bit_count, bin
        add,       // policy, list, index_bit_count, bin
        add_mh,    // policy, list, index_bit_count, mh_bit_count, bin
        update,    // policy, list, bin
        read,      // bin
        read_list, // list, bin
    } shape;
};

inline constexpr hll_macro hll_macros[] = {
    {"hll_init", cdt::hll_op_code::hll_init, exp::type::hll, hll_macro::init},
    {"hll_init_mh", cdt::hll_op_code::hll_init, exp::type::hll, hll_macro::init_mh},
    {"hll_add", cdt::hll_op_code::hll_add, exp::type::hll, hll_macro::add},
    {"hll_add_mh", cdt::hll_op_code::hll_add, exp::type::hll, hll_macro::add_mh},
    {"hll_update", cdt::hll_op_code::hll_add, exp::type::hll, hll_macro::update},
    {"hll_get_count", cdt::hll_op_code::hll_get_count, exp::type::integer, hll_macro::read},
    {"hll_describe", cdt::hll_op_code::hll_describe, exp::type::list, hll_macro::read},
    {"hll_get_union", cdt::hll_op_code::hll_get_union, exp::type::hll, hll_macro::read_list},
    {"hll_get_union_count", cdt::hll_op_code::hll_get_union_count, exp::type::integer,
     hll_macro::read_list},
    {"hll_get_intersect_count", cdt::hll_op_code::hll_get_intersect_count, exp::type::integer,
     hll_macro::read_list},
    {"hll_get_similarity", cdt::hll_op_code::hll_get_similarity, exp::type::floating,
     hll_macro::read_list},
    {"hll_may_contain", cdt::hll_op_code::hll_may_contain, exp::type::integer, hll_macro::read_list},
};

/// The entry of a macro table named `name`, or nullptr.
template <class Macro, std::size_t N>
const Macro* find_macro(const Macro (&table)[N], std::string_view name) {
    for (const Macro& m : table)
        if (m.name == name)
            return &m;
    return nullptr;
}

/// Packs JSON expressions; remembers nothing between calls.
class exp_packer {
public:
    exp::expr pack(const json& j, const std::string& where, int depth = 0) const {
        if (depth > 256)
            reject(where + ": expression nested deeper than 256");
        if (!j.is_array())
            return to_exp_constant(j, where);
        if (j.empty() || !j[0].is_string())
            reject(where + ": expected [NAME, args...] with NAME an as_exp macro name, got " +
                   brief(j));
        const std::string name = j[0].get<std::string>();
        call c{*this, j, where, name, depth};
        return c.build();
    }

    /// A ctx: null or a list of cdt-json.md ctx steps.
    static std::optional<exp::ctx> to_ctx(const json& j, const std::string& where) {
        if (j.is_null())
            return std::nullopt;
        if (!j.is_array())
            reject(where + ": expected null or an array of ctx steps, got " + brief(j));
        exp::ctx c;
        std::size_t i = 0;
        for (const json& s : j)
            c.push_back(to_ctx_step(s, where + "[" + std::to_string(i++) + "]"));
        return c;
    }

private:
    struct call {
        const exp_packer& p;
        const json& j;
        const std::string& where;
        const std::string& name;
        int depth;

        std::size_t argc() const { return j.size() - 1; }
        std::string at(std::size_t i) const { return where + "[" + std::to_string(i + 1) + "]"; }
        const json& arg(std::size_t i) const { return j[i + 1]; }
        void need(std::size_t n) const {
            if (argc() != n)
                reject(where + " (" + name + "): takes " + std::to_string(n) + " argument" +
                       (n == 1 ? "" : "s") + ", got " + std::to_string(argc()));
        }
        exp::expr e(std::size_t i) const { return p.pack(arg(i), at(i), depth + 1); }
        std::int64_t integer(std::size_t i) const { return to_int64(arg(i), at(i)); }

        exp::expr build() const {
            if (exp::expr out; value_macro(out) || plain(out) || metadata(out) || cdt(out) ||
                                bits(out) || hll(out))
                return out;
            for (std::string_view pre : unsupported_prefixes)
                if (std::string_view(name).substr(0, pre.size()) == pre)
                    reject(where + ": " + name + " is not supported by this runner yet");
            reject(where + ": unknown expression " + brief(j[0]) +
                   " (expected an as_exp macro name without its prefix)");
        }

        bool value_macro(exp::expr& out) const {
            if (name == "int" || name == "uint" || name == "float" || name == "str" ||
                name == "bool" || name == "bytes" || name == "val") {
                need(1);
                const json& a = arg(0);
                if (name == "int")
                    out = exp::int_val(integer(0));
                else if (name == "uint") {
                    if (!a.is_number_integer())
                        reject(at(0) + ": expected an integer, got " + brief(a));
                    out = exp::uint_val(a.get<std::uint64_t>());
                } else if (name == "float") {
                    value v = to_exp_value(a, at(0));
                    if (!v.is_double() && !v.is_int())
                        reject(at(0) + ": expected a number, got " + brief(a));
                    out = exp::float_val(v.is_double() ? v.as_double()
                                                       : static_cast<double>(v.as_int()));
                } else if (name == "str") {
                    if (!a.is_string())
                        reject(at(0) + ": expected a string, got " + brief(a));
                    out = exp::str(a.get_ref<const std::string&>());
                } else if (name == "bool") {
                    out = exp::bool_val(to_bool(a, at(0)));
                } else if (name == "bytes") {
                    value v = to_exp_value(a, at(0));
                    if (!v.is_bytes())
                        reject(at(0) + ": expected {\"$bytes\": hex}, got " + brief(a));
                    out = exp::bytes_val(v.as_bytes());
                } else {
                    out = exp::val(to_exp_value(a, at(0)));
                }
                return true;
            }
            if (name == "nil" || name == "inf" || name == "wildcard") {
                need(0);
                out = name == "nil" ? exp::nil() : name == "inf" ? exp::inf() : exp::wildcard();
                return true;
            }
            return false;
        }

        bool plain(exp::expr& out) const {
            for (const plain_macro& m : plain_macros) {
                if (m.name != name)
                    continue;
                if (m.args >= 0)
                    need(static_cast<std::size_t>(m.args));
                std::vector<exp::expr> a;
                for (std::size_t i = 0; i < argc(); ++i)
                    a.push_back(e(i));
                out = exp::detail::op_n(m.code, a);
                return true;
            }
            if (name == "cmp_regex") {
                need(3);
                std::int64_t flags = to_flags(arg(0), regex_flag_names, at(0));
                out = exp::cmp_regex(flags, to_name(arg(1), at(1)), e(2));
                return true;
            }
            if (name == "let") {
                if (argc() == 0)
                    reject(where + " (let): needs a body");
                exp::expr body;
                std::size_t n = 0;
                for (std::size_t i = 0; i + 1 < argc(); ++i) {
                    const json& d = arg(i);
                    if (!d.is_array() || d.size() != 3 || d[0] != "def")
                        reject(at(i) + ": expected [\"def\", NAME, E], got " + brief(d));
                    exp::detail::let_part(
                        body, n, exp::def(to_name(d[1], at(i) + "[1]"),
                                          p.pack(d[2], at(i) + "[2]", depth + 1)));
                }
                exp::detail::let_part(body, n, e(argc() - 1));
                out = exp::expr{};
                exp::detail::writer(out).array_header(n + 1);
                exp::detail::writer(out).integer(exp::code::let);
                exp::detail::append(out.raw(), body);
                return true;
            }
            if (name == "var") {
                need(1);
                out = exp::var(to_name(arg(0), at(0)));
                return true;
            }
            return false;
        }

        bool metadata(exp::expr& out) const {
            if (name == "digest_modulo") {
                need(1);
                out = exp::digest_modulo(integer(0));
                return true;
            }
            if (name == "key_int" || name == "key_str" || name == "key_blob") {
                need(0);
                out = name == "key_int"   ? exp::key_int()
                      : name == "key_str" ? exp::key_str()
                                          : exp::key_blob();
                return true;
            }
            static constexpr std::pair<std::string_view, exp::type> bins[] = {
                {"bin_bool", exp::type::boolean}, {"bin_int", exp::type::integer},
                {"bin_float", exp::type::floating}, {"bin_str", exp::type::string},
                {"bin_blob", exp::type::blob},    {"bin_list", exp::type::list},
                {"bin_map", exp::type::map},      {"bin_hll", exp::type::hll},
            };
            for (const auto& [n, t] : bins) {
                if (n == name) {
                    need(1);
                    out = exp::bin(to_name(arg(0), at(0)), t);
                    return true;
                }
            }
            if (name == "bin_type" || name == "bin_exists") {
                need(1);
                std::string b = to_name(arg(0), at(0));
                out = name == "bin_type" ? exp::bin_type(b) : exp::bin_exists(b);
                return true;
            }
            return false;
        }

        /// A list or map policy: null, or {"order", "flags"} (maps also
        /// "persist_index"); packed as [order/attributes, flags] (crmod) or [flags].
        std::vector<std::int64_t>
        policy(const json& j2, const std::string& w, bool crmod, bool is_map) const {
            if (j2.is_null())
                return {};
            if (!j2.is_object())
                reject(w + ": expected null or {\"order\": ..., \"flags\": [...]}, got " + brief(j2));
            std::int64_t attr = 0;
            std::int64_t flags = 0;
            for (const auto& item : j2.items()) {
                const std::string at = w + "." + item.key();
                if (item.key() == "order")
                    attr |= is_map ? static_cast<std::int64_t>(to_map_order(item.value(), at))
                                   : static_cast<std::int64_t>(to_list_order(item.value(), at));
                else if (is_map && item.key() == "persist_index")
                    attr |= to_bool(item.value(), at) ? 0x10 : 0;
                else if (item.key() == "flags")
                    flags = to_flags(item.value(), is_map ? std::span<const flag_name>(map_flag_names)
                                                          : std::span<const flag_name>(list_flag_names),
                                     at);
                else
                    reject(w + ": unknown field '" + item.key() + "' (a " +
                           (is_map ? "map policy has order, flags, persist_index"
                                   : "list policy has order, flags") +
                           ")");
            }
            if (crmod)
                return {attr, flags};
            return {flags};
        }

        bool cdt(exp::expr& out) const {
            const cdt_macro* m = find_macro(cdt_macros, name);
            if (m == nullptr)
                return false;
            // Constants between the ctx and the expression parameters.
            std::size_t consts = 0;
            switch (m->shape) {
            case cdt_macro::read_single:
                consts = 2;
                break;
            case cdt_macro::read_multi:
            case cdt_macro::remove_rt:
            case cdt_macro::modify_crmod:
            case cdt_macro::modify_mod:
            case cdt_macro::sort:
            case cdt_macro::set_type:
                consts = 1;
                break;
            default:
                break;
            }
            need(1 + consts + m->params + 1);
            std::optional<exp::ctx> c = to_ctx(arg(0), at(0));
            const exp::ctx* cp = c ? &*c : nullptr;
            const exp::expr bin = e(argc() - 1);
            std::vector<exp::expr> params;
            for (std::size_t i = 0; i < m->params; ++i)
                params.push_back(e(1 + consts + i));
            using exp::detail::call;
            switch (m->shape) {
            case cdt_macro::size:
                out = call(exp::type::integer, exp::call_system::cdt, cp, m->op, {}, {}, bin);
                break;
            case cdt_macro::read_single:
            case cdt_macro::read_multi: {
                std::int32_t rt = to_exp_return_type(arg(1), at(1));
                exp::type vt = m->shape == cdt_macro::read_single ? to_exp_type(arg(2), at(2))
                                                                  : exp::type::automatic;
                params.insert(params.begin(), exp::expr(static_cast<std::int64_t>(rt)));
                out = call(exp::detail::read_type(vt, rt, m->shape == cdt_macro::read_multi,
                                                  m->is_map),
                           exp::call_system::cdt, cp, m->op, params, {}, bin);
                break;
            }
            case cdt_macro::remove_rt:
            case cdt_macro::remove_none: {
                std::int64_t rt = m->shape == cdt_macro::remove_rt
                                      ? to_exp_return_type(arg(1), at(1))
                                      : 0;
                params.insert(params.begin(), exp::expr(rt));
                out = modify(*m, cp, params, {}, bin);
                break;
            }
            case cdt_macro::modify_crmod:
            case cdt_macro::modify_mod: {
                bool crmod = m->shape == cdt_macro::modify_crmod;
                std::vector<std::int64_t> pol = policy(arg(1), at(1), crmod, m->is_map);
                out = modify(*m, cp, params, pol, bin);
                break;
            }
            case cdt_macro::clear:
                out = modify(*m, cp, params, {}, bin);
                break;
            case cdt_macro::sort: {
                std::int64_t flags = to_flags(arg(1), sort_flag_names, at(1));
                params.insert(params.begin(), exp::expr(flags));
                out = modify(*m, cp, params, {}, bin);
                break;
            }
            case cdt_macro::set_type:
                params.insert(params.begin(), exp::expr(set_type_flags(arg(1), at(1), m->is_map)));
                out = modify(*m, cp, params, {}, bin);
                break;
            }
            return true;
        }

        /// The set-type op's flags: an order name, {"order", "persist_index"},
        /// or an integer sent as is (to ask the server about invalid flags).
        static std::int64_t set_type_flags(const json& j2, const std::string& w, bool is_map) {
            if (j2.is_number_integer())
                return j2.get<std::int64_t>();
            const json* order = &j2;
            std::int64_t persist = 0;
            if (j2.is_object()) {
                for (const auto& item : j2.items())
                    if (item.key() != "order" && item.key() != "persist_index")
                        reject(w + ": unknown field '" + item.key() + "' (order, persist_index)");
                if (!j2.contains("order"))
                    reject(w + ": missing the order");
                order = &j2["order"];
                if (j2.contains("persist_index") && to_bool(j2["persist_index"], w + ".persist_index"))
                    persist = 0x10;
            }
            return persist | (is_map ? static_cast<std::int64_t>(to_map_order(*order, w + ".order"))
                                     : static_cast<std::int64_t>(to_list_order(*order, w + ".order")));
        }

        static exp::expr modify(const cdt_macro& m,
                                const exp::ctx* cp,
                                std::span<const exp::expr> params,
                                std::span<const std::int64_t> pol,
                                const exp::expr& bin) {
            return exp::detail::call(
                exp::detail::modify_type(cp, m.is_map ? exp::type::map : exp::type::list),
                exp::call_system::cdt | exp::call_system::modify_local, cp, m.op, params, pol, bin);
        }

        bool bits(exp::expr& out) const {
            const bit_macro* m = find_macro(bit_macros, name);
            if (m == nullptr)
                return false;
            // Modifies: policy, params..., [tail], bin. Reads: params..., [tail], bin.
            std::size_t tail = m->tail == bit_macro::none            ? 0
                               : m->tail == bit_macro::signed_action ? 2
                                                                     : 1;
            std::size_t first = m->modify ? 1 : 0;
            need(first + m->params + tail + 1);
            std::vector<exp::expr> params;
            for (std::size_t i = 0; i < m->params; ++i)
                params.push_back(e(first + i));
            std::size_t t = first + m->params;
            std::vector<std::int64_t> pol;
            if (m->modify) {
                const json& pj = arg(0);
                std::uint32_t flags = pj.is_null() ? 0 : to_flags(pj, bit_flag_names, at(0));
                if (m->tail == bit_macro::resize_flags) {
                    // bit_resize(policy, byte_size, flags, bin): byte_size, policy, flags.
                    pol = {flags,
                           static_cast<std::int64_t>(to_flags(arg(t), resize_flag_names, at(t)))};
                } else if (m->tail == bit_macro::action || m->tail == bit_macro::signed_action) {
                    bool sign = m->tail == bit_macro::signed_action && to_bool(arg(t), at(t));
                    std::size_t ai = m->tail == bit_macro::signed_action ? t + 1 : t;
                    std::int64_t action = to_action(arg(ai), at(ai));
                    pol = {flags, sign ? (action | 1) : action};
                } else {
                    pol = {flags};
                }
            } else if (m->tail == bit_macro::sign) {
                params.emplace_back(std::int64_t{to_bool(arg(t), at(t)) ? 1 : 0});
            }
            out = exp::detail::call(
                m->result,
                m->modify ? exp::call_system::bits | exp::call_system::modify_local
                          : exp::call_system::bits,
                nullptr, m->op, params, pol, e(argc() - 1));
            return true;
        }

        /// The HLL macros: the policy (null or HLL flag names) and bit counts
        /// are C constants, the list an expression, as in as_exp.h.
        bool hll(exp::expr& out) const {
            const hll_macro* m = find_macro(hll_macros, name);
            if (m == nullptr)
                return false;
            static constexpr std::size_t argcs[] = {3, 4, 4, 5, 3, 1, 2};
            need(argcs[m->shape]);
            const exp::expr bin = e(argc() - 1);
            if (m->shape == hll_macro::read || m->shape == hll_macro::read_list) {
                std::vector<exp::expr> params;
                if (m->shape == hll_macro::read_list)
                    params.push_back(e(0));
                out = exp::detail::call(m->result, exp::call_system::hll, nullptr,
                                        static_cast<std::int64_t>(m->op), params, {}, bin);
                return true;
            }
            cdt::hll_policy pol;
            if (!arg(0).is_null())
                pol.flags = to_flags(arg(0), hll_flag_names, at(0));
            const exp::expr none(std::int64_t{-1});
            switch (m->shape) {
            case hll_macro::init:
                out = exp::hll_init(&pol, exp::expr(integer(1)), bin);
                break;
            case hll_macro::init_mh:
                out = exp::hll_init_mh(&pol, exp::expr(integer(1)), exp::expr(integer(2)), bin);
                break;
            case hll_macro::add:
                out = exp::hll_add_mh(&pol, e(1), exp::expr(integer(2)), none, bin);
                break;
            case hll_macro::add_mh:
                out = exp::hll_add_mh(&pol, e(1), exp::expr(integer(2)), exp::expr(integer(3)), bin);
                break;
            default:
                out = exp::hll_add_mh(&pol, e(1), none, none, bin);
                break;
            }
            return true;
        }

        static std::int64_t to_action(const json& a, const std::string& w) {
            if (a == "FAIL")
                return 0;
            if (a == "SATURATE")
                return 2;
            if (a == "WRAP")
                return 4;
            if (a.is_number_integer())
                return to_int64(a, w);
            reject(w + ": expected FAIL, SATURATE or WRAP, got " + brief(a));
        }
    };
};

inline constexpr flag_name exp_read_flag_names[] = {
    {"EVAL_NO_FAIL", exp::read_flags::eval_no_fail},
};
inline constexpr flag_name exp_write_flag_names[] = {
    {"CREATE_ONLY", exp::write_flags::create_only},
    {"UPDATE_ONLY", exp::write_flags::update_only},
    {"ALLOW_DELETE", exp::write_flags::allow_delete},
    {"POLICY_NO_FAIL", exp::write_flags::policy_no_fail},
    {"EVAL_NO_FAIL", exp::write_flags::eval_no_fail},
};

inline constexpr std::string_view expression_op_names[] = {"exp_read", "exp_write", "read_bin",
                                                           "write_bin"};

inline std::optional<case_op>
parse_expression_op(const json& op_json, const std::string& name, const std::string& where) {
    bool known = false;
    for (std::string_view n : expression_op_names)
        known = known || n == name;
    if (!known)
        return std::nullopt;
    const bool is_read = name == "exp_read";
    const bool is_exp = is_read || name == "exp_write";
    const std::string_view target = is_read ? "name" : "bin";
    for (const auto& item : op_json.items()) {
        const std::string& k = item.key();
        bool ok = k == "op" || k == "expected" || k == "notes" || k == target ||
                  (is_exp && (k == "exp" || k == "flags")) || (name == "write_bin" && k == "value");
        if (!ok)
            reject(where + ": unknown field '" + k + "' (" + name + " has " + std::string(target) +
                   (is_exp ? ", exp, flags" : name == "write_bin" ? ", value" : "") + ")");
    }
    auto need = [&](std::string_view f) -> const json& {
        const json* j = field(op_json, f);
        if (j == nullptr)
            reject(where + ": missing '" + std::string(f) + "'");
        return *j;
    };
    std::string bin = to_name(need(target), where + "." + std::string(target));
    if (name == "read_bin")
        return case_op{kv::op::read(std::move(bin))};
    if (name == "write_bin")
        return case_op{kv::op::write(std::move(bin), to_value(need("value"), where + ".value"))};
    std::vector<std::uint8_t> bytes = exp_packer{}.pack(need("exp"), where + ".exp").bytes();
    std::uint32_t flags = 0;
    if (const json* f = field(op_json, "flags"))
        flags = to_flags(*f, is_read ? std::span<const flag_name>(exp_read_flag_names)
                                     : std::span<const flag_name>(exp_write_flag_names),
                         where + ".flags");
    if (is_read)
        return case_op{kv::op::exp_read(std::move(bin), std::move(bytes), flags)};
    return case_op{kv::op::exp_write(std::move(bin), std::move(bytes), flags)};
}

inline void parse_expression_fields(const json& j, scenario& s) {
    for (std::string_view f : {"bin_name", "bins", "ttl", "send_key", "filter"})
        s.keyed = s.keyed || j.contains(f);
    if (auto ops = j.find("ops"); ops != j.end() && ops->is_array())
        for (const json& o : *ops)
            if (o.is_object() && o.contains("op"))
                for (std::string_view n : expression_op_names)
                    s.keyed = s.keyed || o["op"] == n;
    if (auto it = j.find("bin_name"); it != j.end())
        s.bin_name = to_name(*it, "bin_name");
    if (auto it = j.find("bins"); it != j.end()) {
        if (!it->is_object())
            reject("bins: expected an object {\"name\": value, ...}, got " + brief(*it));
        std::vector<kv::bin> bins;
        for (const auto& item : it->items())
            bins.push_back(kv::bin{item.key(), to_value(item.value(), "bins." + item.key())});
        s.bins = std::move(bins);
    }
    if (auto it = j.find("ttl"); it != j.end())
        s.ttl = to_int64(*it, "ttl");
    if (auto it = j.find("send_key"); it != j.end())
        s.send_key = to_bool(*it, "send_key");
    if (auto it = j.find("filter"); it != j.end())
        s.filter = exp_packer{}.pack(*it, "filter").bytes();
}

} // namespace detail

/// Packs the spec's JSON expression `j` (at `where`, for messages) into the
/// bytes as_exp_compile gives for the same macro calls. Throws
/// detail::invalid on an unknown name, a wrong argument count or a malformed
/// constant. Complexity: O(size x depth) of the expression.
inline std::vector<std::uint8_t> pack_expression(const json& j, const std::string& where) {
    return detail::exp_packer{}.pack(j, where).bytes();
}

} // namespace kvmodel::tools::cdt_json
