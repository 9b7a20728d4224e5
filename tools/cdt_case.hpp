// tools/cdt_case.hpp
//
// Reading one `kvmodel cdt` case (shared/spec/cdt-json.md) into kvmodel's own
// vocabulary: the bin's initial state and one cdt::op, cdt::bit_op, cdt::hll_op
// or whole-bin read per JSON op (HLL bins: bin_type "hll", values {"$hll": hex},
// the spec's "HyperLogLog bins" section), every op name, argument, return type, flag, policy order
// and ctx step of the spec. Nothing is guessed: an unknown op, field,
// argument, flag or order name, a missing argument, a wrong JSON type or an
// out-of-range number makes the case invalid, with a message that says what is
// wrong and where ("ops[1] (list_get) args.index: expected an integer, got
// \"3\"").
//
// Values the server judges (a return type code it does not define, a count
// that is negative, a delta that is not a number, INVERTED on a single-result
// op) are passed through as a client would send them, so the store answers.
//
// Defaults where the spec leaves an op field out: return_type VALUE for
// *_get_by_* and NONE for *_remove_by_*; no flags; no list_increment delta
// (the server adds 1, as for the clients' increment(bin, index));
// map_create / list_create / list_set_order / map_set_policy need an `order`. When the case's bin
// does not exist, an op at the top level without `policy_order` (and a first
// create ctx step without `order`) uses the case's `order`, which is how the
// bin "gets" that order when an op creates it.
//
// Cost: linear in the case's JSON.
#pragma once

#include <kvmodel/cdt/bit_ops.hpp>
#include <kvmodel/cdt/hll_ops.hpp>
#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/json.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/record.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "json_io.hpp"

namespace kvmodel::tools::cdt_json {

/// The `read` op: the whole bin.
struct read_bin {
    friend bool operator==(const read_bin&, const read_bin&) = default;
};

/// One op of a case: a CDT, bit or HLL op on the case's bin, the whole-bin
/// read, or an op of shared/spec/exp-json.md (exp_read, exp_write, read_bin,
/// write_bin) as the kv operation it is.
using case_op = std::variant<cdt::op, cdt::bit_op, read_bin, kv::operation, cdt::hll_op>;

enum class bin_kind : std::uint8_t { map, list, bytes, hll };

/// One parsed case.
struct scenario {
    json id; // echoed as given (null when absent)
    bin_kind kind = bin_kind::map;
    map_order morder = map_order::unordered;
    list_order lorder = list_order::unordered;
    bool record_exists = true;
    std::optional<value> initial; // nullopt: the bin does not exist
    std::vector<case_op> ops;
    // shared/spec/exp-json.md
    std::optional<std::string> bin_name;             // the case's bin (else the runner's)
    std::optional<std::vector<kv::bin>> bins;        // the record's other bins
    std::optional<std::int64_t> ttl;                 // the record's TTL when written
    bool send_key = false;                           // store the user key
    std::vector<std::uint8_t> filter;                // packed filter expression
    /// Whether the case uses exp-json.md: its record's user key is then its id.
    bool keyed = false;
};

/// The name a case_op goes by in the spec ("map_put", "bit_get", "read").
inline std::string_view op_display_name(const case_op& o) {
    if (const auto* c = std::get_if<cdt::op>(&o))
        return cdt::op_name(c->code);
    if (const auto* b = std::get_if<cdt::bit_op>(&o))
        return cdt::bit_op_name(b->code);
    if (const auto* k = std::get_if<kv::operation>(&o))
        return kv::op_name(*k);
    if (const auto* h = std::get_if<cdt::hll_op>(&o))
        return cdt::hll_op_name(h->code);
    return "read";
}

namespace detail {

using kvmodel::detail::from_json_at;

/// A failure while reading a case; the message says what and where.
struct invalid {
    std::string message;
};

[[noreturn]] inline void reject(std::string message) {
    throw invalid{std::move(message)};
}

inline std::int64_t to_int64(const json& j, const std::string& where) {
    if (j.is_number_integer()) {
        if (j.is_number_unsigned() &&
            j.get<std::uint64_t>() >
                static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            reject(where + ": " + brief(j) + " is out of the int64 range");
        return j.get<std::int64_t>();
    }
    reject(where + ": expected an integer, got " + brief(j));
}

inline bool to_bool(const json& j, const std::string& where) {
    if (!j.is_boolean())
        reject(where + ": expected true or false, got " + brief(j));
    return j.get<bool>();
}

inline value to_value(const json& j, const std::string& where) {
    result<value> r = from_json_at(j, where);
    if (!r)
        reject(r.error().message);
    return std::move(r).value();
}

inline std::string join(std::initializer_list<std::string_view> names) {
    std::string s;
    for (std::string_view n : names) {
        if (!s.empty())
            s += ", ";
        s += n;
    }
    return s;
}

inline map_order to_map_order(const json& j, const std::string& where) {
    if (j.is_string()) {
        const auto& s = j.get_ref<const std::string&>();
        if (s == "UNORDERED")
            return map_order::unordered;
        if (s == "K_ORDERED")
            return map_order::key_ordered;
        if (s == "KV_ORDERED")
            return map_order::key_value_ordered;
    }
    reject(where + ": expected a map order (UNORDERED, K_ORDERED, KV_ORDERED), got " + brief(j));
}

inline list_order to_list_order(const json& j, const std::string& where) {
    if (j.is_string()) {
        const auto& s = j.get_ref<const std::string&>();
        if (s == "ORDERED")
            return list_order::ordered;
        // The spec's list orders: UNORDERED is UNORDERED_LIST wherever a list order is meant.
        if (s == "UNORDERED_LIST" || s == "UNORDERED")
            return list_order::unordered;
    }
    reject(where + ": expected a list order (ORDERED, UNORDERED_LIST, UNORDERED), got " + brief(j));
}

/// A set of named flags (array of names) or a raw integer.
struct flag_name {
    std::string_view name;
    std::uint32_t bit;
};

inline constexpr flag_name map_flag_names[] = {
    {"CREATE_ONLY", cdt::map_write_flags::create_only},
    {"UPDATE_ONLY", cdt::map_write_flags::update_only},
    {"NO_FAIL", cdt::map_write_flags::no_fail},
    {"PARTIAL", cdt::map_write_flags::partial},
};
inline constexpr flag_name list_flag_names[] = {
    {"ADD_UNIQUE", cdt::list_write_flags::add_unique},
    {"INSERT_BOUNDED", cdt::list_write_flags::insert_bounded},
    {"NO_FAIL", cdt::list_write_flags::no_fail},
    {"PARTIAL", cdt::list_write_flags::partial},
};
inline constexpr flag_name sort_flag_names[] = {
    {"DROP_DUPLICATES", cdt::list_sort_flags::drop_duplicates},
};
inline constexpr flag_name bit_flag_names[] = {
    {"CREATE_ONLY", cdt::bit_write_flags::create_only},
    {"UPDATE_ONLY", cdt::bit_write_flags::update_only},
    {"NO_FAIL", cdt::bit_write_flags::no_fail},
    {"PARTIAL", cdt::bit_write_flags::partial},
};
inline constexpr flag_name hll_flag_names[] = {
    {"CREATE_ONLY", static_cast<std::uint32_t>(cdt::hll_write_flags::create_only)},
    {"UPDATE_ONLY", static_cast<std::uint32_t>(cdt::hll_write_flags::update_only)},
    {"NO_FAIL", static_cast<std::uint32_t>(cdt::hll_write_flags::no_fail)},
    {"ALLOW_FOLD", static_cast<std::uint32_t>(cdt::hll_write_flags::allow_fold)},
};
inline constexpr flag_name resize_flag_names[] = {
    {"FROM_FRONT", cdt::bit_resize_flags::from_front},
    {"GROW_ONLY", cdt::bit_resize_flags::grow_only},
    {"SHRINK_ONLY", cdt::bit_resize_flags::shrink_only},
};

inline std::uint32_t
to_flags(const json& j, std::span<const flag_name> known, const std::string& where) {
    if (j.is_number_integer()) {
        std::int64_t raw = to_int64(j, where);
        if (raw < 0 || raw > std::numeric_limits<std::uint32_t>::max())
            reject(where + ": raw flags " + brief(j) + " do not fit in 32 bits");
        return static_cast<std::uint32_t>(raw);
    }
    std::string names;
    for (const flag_name& f : known)
        names += (names.empty() ? "" : ", ") + std::string(f.name);
    if (!j.is_array())
        reject(where + ": expected an array of flag names (" + names + "), got " + brief(j));
    std::uint32_t flags = 0;
    std::size_t i = 0;
    for (const json& e : j) {
        std::string at = where + "[" + std::to_string(i++) + "]";
        if (!e.is_string())
            reject(at + ": expected a flag name (" + names + "), got " + brief(e));
        const auto& s = e.get_ref<const std::string&>();
        bool found = false;
        for (const flag_name& f : known) {
            if (f.name == s) {
                flags |= f.bit;
                found = true;
            }
        }
        if (!found)
            reject(at + ": unknown flag " + brief(e) + " (this op takes " + names + ")");
    }
    return flags;
}

/// The argument object of one op: checks that every given name is allowed
/// and reads them with their types.
class args_reader {
public:
    args_reader(const json* args, std::string where, std::vector<std::string_view> allowed)
        : m_args(args)
        , m_where(std::move(where))
        , m_allowed(std::move(allowed)) {
        if (m_args == nullptr)
            return;
        if (!m_args->is_object())
            reject(m_where + ": args must be an object, got " + brief(*m_args));
        for (const auto& item : m_args->items()) {
            bool ok = false;
            for (std::string_view a : m_allowed)
                ok = ok || a == item.key();
            if (!ok) {
                std::string takes;
                for (std::string_view a : m_allowed)
                    takes += (takes.empty() ? "" : ", ") + std::string(a);
                reject(m_where + ": unknown argument '" + item.key() + "' (" +
                       (takes.empty() ? std::string("this op takes no arguments")
                                      : "this op takes " + takes) +
                       ")");
            }
        }
    }

    const json* find(std::string_view name) const {
        if (m_args == nullptr)
            return nullptr;
        auto it = m_args->find(name);
        return it == m_args->end() ? nullptr : &*it;
    }
    const json& need(std::string_view name) const {
        const json* j = find(name);
        if (j == nullptr)
            reject(m_where + ": missing argument '" + std::string(name) + "'");
        return *j;
    }
    std::string at(std::string_view name) const { return m_where + " args." + std::string(name); }

    std::int64_t integer(std::string_view name) const { return to_int64(need(name), at(name)); }
    std::optional<std::int64_t> opt_integer(std::string_view name) const {
        const json* j = find(name);
        if (j == nullptr)
            return std::nullopt;
        return to_int64(*j, at(name));
    }
    value val(std::string_view name) const { return to_value(need(name), at(name)); }
    bool boolean(std::string_view name, bool fallback) const {
        const json* j = find(name);
        return j == nullptr ? fallback : to_bool(*j, at(name));
    }
    std::vector<value> array(std::string_view name) const {
        const json& j = need(name);
        if (!j.is_array())
            reject(at(name) + ": expected an array, got " + brief(j));
        std::vector<value> out;
        out.reserve(j.size());
        std::size_t i = 0;
        for (const json& e : j)
            out.push_back(to_value(e, at(name) + "[" + std::to_string(i++) + "]"));
        return out;
    }
    std::vector<std::pair<value, value>> pairs(std::string_view name) const {
        const json& j = need(name);
        if (!j.is_array())
            reject(at(name) + ": expected an array of [key, value] pairs, got " + brief(j));
        std::vector<std::pair<value, value>> out;
        out.reserve(j.size());
        std::size_t i = 0;
        for (const json& e : j) {
            std::string where = at(name) + "[" + std::to_string(i++) + "]";
            if (!e.is_array() || e.size() != 2)
                reject(where + ": expected a [key, value] pair, got " + brief(e));
            out.emplace_back(to_value(e[0], where + "[0]"), to_value(e[1], where + "[1]"));
        }
        return out;
    }
    kvmodel::bytes blob(std::string_view name) const {
        value v = val(name);
        if (!v.is_bytes())
            reject(at(name) + ": expected bytes {\"$bytes\": hex}, got " + brief(need(name)));
        return std::move(v.as_bytes());
    }
    /// A range bound: absent → nullopt; for `begin` null and $nil both mean nil.
    std::optional<value> bound(std::string_view name) const {
        const json* j = find(name);
        if (j == nullptr || j->is_null())
            return std::nullopt;
        return to_value(*j, at(name));
    }

private:
    const json* m_args;
    std::string m_where;
    std::vector<std::string_view> m_allowed;
};

/// What an op accepts besides its args.
struct op_extras {
    bool return_type = false; // return_type and inverted (selectors)
    bool map_policy = false;  // flags, policy_order, persist_index (map writes)
    bool list_policy = false; // flags, policy_order (list writes)
    bool sort_flags = false;  // flags (list_sort)
};

inline std::int32_t to_return_type(const json& j, const std::string& where) {
    if (j.is_number_integer()) {
        std::int64_t raw = to_int64(j, where);
        if (raw < std::numeric_limits<std::int32_t>::min() ||
            raw > std::numeric_limits<std::int32_t>::max())
            reject(where + ": raw return type " + brief(j) + " does not fit in 32 bits");
        return static_cast<std::int32_t>(raw);
    }
    static constexpr std::pair<std::string_view, cdt::return_type> names[] = {
        {"NONE", cdt::return_type::none},
        {"INDEX", cdt::return_type::index},
        {"REVERSE_INDEX", cdt::return_type::reverse_index},
        {"RANK", cdt::return_type::rank},
        {"REVERSE_RANK", cdt::return_type::reverse_rank},
        {"COUNT", cdt::return_type::count},
        {"KEY", cdt::return_type::key},
        {"VALUE", cdt::return_type::value},
        {"KEY_VALUE", cdt::return_type::key_value},
        {"EXISTS", cdt::return_type::exists},
        {"UNORDERED_MAP", cdt::return_type::unordered_map},
        {"ORDERED_MAP", cdt::return_type::ordered_map},
    };
    if (j.is_string()) {
        for (const auto& [name, rt] : names)
            if (name == j.get_ref<const std::string&>())
                return static_cast<std::int32_t>(rt);
    }
    reject(where +
           ": expected a return type (NONE, INDEX, REVERSE_INDEX, RANK, REVERSE_RANK, "
           "COUNT, KEY, VALUE, KEY_VALUE, EXISTS, UNORDERED_MAP, ORDERED_MAP) or an "
           "integer wire code, got " +
           brief(j));
}

inline cdt::ctx_step to_ctx_step(const json& j, const std::string& where) {
    if (!j.is_object())
        reject(where + ": expected a ctx step object, got " + brief(j));
    auto type_it = j.find("type");
    if (type_it == j.end())
        reject(where + ": missing 'type'");
    if (!type_it->is_string())
        reject(where + ".type: expected a string, got " + brief(*type_it));
    const auto& type = type_it->get_ref<const std::string&>();
    auto check_fields = [&](std::initializer_list<std::string_view> allowed) {
        for (const auto& item : j.items()) {
            if (item.key() == "type")
                continue;
            bool ok = false;
            for (std::string_view a : allowed)
                ok = ok || a == item.key();
            if (!ok)
                reject(where + " (" + type + "): unknown field '" + item.key() + "' (takes " +
                       join(allowed) + ")");
        }
    };
    auto need = [&](std::string_view name) -> const json& {
        auto it = j.find(name);
        if (it == j.end())
            reject(where + " (" + type + "): missing '" + std::string(name) + "'");
        return *it;
    };
    auto at = [&](std::string_view name) {
        return where + "." + std::string(name);
    };

    if (type == "list_index" || type == "map_index") {
        check_fields({"index"});
        std::int64_t i = to_int64(need("index"), at("index"));
        return type == "list_index" ? cdt::ctx_step::list_index(i) : cdt::ctx_step::map_index(i);
    }
    if (type == "list_rank" || type == "map_rank") {
        check_fields({"rank"});
        std::int64_t r = to_int64(need("rank"), at("rank"));
        return type == "list_rank" ? cdt::ctx_step::list_rank(r) : cdt::ctx_step::map_rank(r);
    }
    if (type == "list_value" || type == "map_value") {
        check_fields({"value"});
        value v = to_value(need("value"), at("value"));
        return type == "list_value" ? cdt::ctx_step::list_value(std::move(v))
                                    : cdt::ctx_step::map_value(std::move(v));
    }
    if (type == "map_key") {
        check_fields({"key"});
        return cdt::ctx_step::map_key(to_value(need("key"), at("key")));
    }
    if (type == "list_index_create") {
        check_fields({"index", "order", "pad"});
        std::int64_t i = to_int64(need("index"), at("index"));
        auto o = j.find("order");
        auto p = j.find("pad");
        cdt::ctx_step s = cdt::ctx_step::list_index_create(
            i,
            o == j.end() ? list_order::unordered : to_list_order(*o, at("order")),
            p == j.end() ? false : to_bool(*p, at("pad")));
        return s;
    }
    if (type == "map_key_create") {
        check_fields({"key", "order"});
        value k = to_value(need("key"), at("key"));
        auto o = j.find("order");
        return cdt::ctx_step::map_key_create(
            std::move(k), o == j.end() ? map_order::unordered : to_map_order(*o, at("order")));
    }
    reject(where + ".type: unknown ctx step " + brief(*type_it) +
           " (list_index, list_rank, list_value, map_index, map_key, map_rank, map_value, "
           "list_index_create, map_key_create)");
}

/// Fills o's arguments from args for its op code; says what else the op accepts.
inline op_extras fill_cdt_args(cdt::op& o, const json* args_json, const std::string& where) {
    using cdt::op_code;
    op_extras extras;
    // `flags` may sit in args too (the spec lists it among the arguments);
    // parse_cdt_op reads it and refuses it for ops that take none.
    auto reader = [&](std::vector<std::string_view> allowed) {
        allowed.emplace_back("flags");
        return args_reader(args_json, where, std::move(allowed));
    };
    // Selectors share their argument shapes between get and remove, maps and lists.
    auto by_key = [&] {
        auto a = reader({"key"});
        o.key = a.val("key");
    };
    auto by_value = [&] {
        auto a = reader({"value"});
        o.key = a.val("value");
    };
    auto by_list = [&](std::string_view name) {
        auto a = reader({name});
        o.values = a.array(name);
    };
    auto by_range = [&] {
        auto a = reader({"begin", "end"});
        std::optional<value> b = a.bound("begin");
        o.begin = b ? std::move(*b) : value{};
        o.end = a.bound("end");
    };
    auto by_position = [&](std::string_view name) {
        auto a = reader({name});
        o.index = a.integer(name);
    };
    auto by_position_range = [&](std::string_view name) {
        auto a = reader({name, "count"});
        o.index = a.integer(name);
        o.count = a.opt_integer("count");
    };
    auto by_relative = [&](std::string_view anchor, std::string_view offset) {
        auto a = reader({anchor, offset, "count"});
        o.key = a.val(anchor);
        o.index = a.integer(offset);
        o.count = a.opt_integer("count");
    };

    switch (o.code) {
    // --- map writes
    case op_code::map_create: {
        auto a = reader({"order", "persist_index"});
        o.morder = to_map_order(a.need("order"), a.at("order"));
        o.persist_index = a.boolean("persist_index", false);
        o.mpolicy.order = o.morder;
        o.mpolicy.persist_index = o.persist_index;
        break;
    }
    case op_code::map_set_policy: {
        // The order may come as the argument or as the op's policy_order.
        auto a = reader({"order", "persist_index"});
        if (const json* j = a.find("order"))
            o.morder = to_map_order(*j, a.at("order"));
        o.persist_index = a.boolean("persist_index", false);
        o.mpolicy.order = o.morder;
        o.mpolicy.persist_index = o.persist_index;
        break;
    }
    // Map writes carry a MapPolicy: order (policy_order), flags, persist_index.
    case op_code::map_put: {
        auto a = reader({"key", "value", "persist_index"});
        o.key = a.val("key");
        o.val = a.val("value");
        o.mpolicy.persist_index = a.boolean("persist_index", false);
        extras.map_policy = true;
        break;
    }
    case op_code::map_put_items: {
        auto a = reader({"items", "persist_index"});
        o.items = a.pairs("items");
        o.mpolicy.persist_index = a.boolean("persist_index", false);
        extras.map_policy = true;
        break;
    }
    case op_code::map_increment:
    case op_code::map_decrement: {
        auto a = reader({"key", "delta", "persist_index"});
        o.key = a.val("key");
        // An absent delta is sent as none; the server then adds (subtracts) 1.
        if (a.find("delta") != nullptr)
            o.val = a.val("delta");
        o.mpolicy.persist_index = a.boolean("persist_index", false);
        extras.map_policy = true;
        break;
    }
    case op_code::map_clear:
    case op_code::map_size:
        reader({});
        break;
    // --- map selectors
    case op_code::map_get_by_key:
    case op_code::map_remove_by_key:
        by_key();
        extras.return_type = true;
        break;
    case op_code::map_get_by_key_list:
    case op_code::map_remove_by_key_list:
        by_list("keys");
        extras.return_type = true;
        break;
    case op_code::map_get_by_key_range:
    case op_code::map_remove_by_key_range:
    case op_code::map_get_by_value_range:
    case op_code::map_remove_by_value_range:
    case op_code::list_get_by_value_range:
    case op_code::list_remove_by_value_range:
        by_range();
        extras.return_type = true;
        break;
    case op_code::map_get_by_key_rel_index_range:
    case op_code::map_remove_by_key_rel_index_range:
        by_relative("key", "index");
        extras.return_type = true;
        break;
    case op_code::map_get_by_value:
    case op_code::map_remove_by_value:
    case op_code::list_get_by_value:
    case op_code::list_remove_by_value:
        by_value();
        extras.return_type = true;
        break;
    case op_code::map_get_by_value_list:
    case op_code::map_remove_by_value_list:
    case op_code::list_get_by_value_list:
    case op_code::list_remove_by_value_list:
        by_list("values");
        extras.return_type = true;
        break;
    case op_code::map_get_by_value_rel_rank_range:
    case op_code::map_remove_by_value_rel_rank_range:
    case op_code::list_get_by_value_rel_rank_range:
    case op_code::list_remove_by_value_rel_rank_range:
        by_relative("value", "rank");
        extras.return_type = true;
        break;
    case op_code::map_get_by_index:
    case op_code::map_remove_by_index:
    case op_code::list_get_by_index:
    case op_code::list_remove_by_index:
        by_position("index");
        extras.return_type = true;
        break;
    case op_code::map_get_by_index_range:
    case op_code::map_remove_by_index_range:
    case op_code::list_get_by_index_range:
    case op_code::list_remove_by_index_range:
        by_position_range("index");
        extras.return_type = true;
        break;
    case op_code::map_get_by_rank:
    case op_code::map_remove_by_rank:
    case op_code::list_get_by_rank:
    case op_code::list_remove_by_rank:
        by_position("rank");
        extras.return_type = true;
        break;
    case op_code::map_get_by_rank_range:
    case op_code::map_remove_by_rank_range:
    case op_code::list_get_by_rank_range:
    case op_code::list_remove_by_rank_range:
        by_position_range("rank");
        extras.return_type = true;
        break;
    // --- list writes
    case op_code::list_create: {
        auto a = reader({"order", "pad", "persist_index"});
        o.order = to_list_order(a.need("order"), a.at("order"));
        o.pad = a.boolean("pad", false);
        o.persist_index = a.boolean("persist_index", false);
        break;
    }
    case op_code::list_set_order: {
        auto a = reader({"order", "persist_index"});
        o.order = to_list_order(a.need("order"), a.at("order"));
        o.persist_index = a.boolean("persist_index", false);
        break;
    }
    case op_code::list_sort:
        reader({}); // DROP_DUPLICATES comes with the op's flags, below
        extras.sort_flags = true;
        break;
    case op_code::list_append: {
        auto a = reader({"value"});
        o.key = a.val("value");
        extras.list_policy = true;
        break;
    }
    case op_code::list_append_items: {
        auto a = reader({"values"});
        o.values = a.array("values");
        extras.list_policy = true;
        break;
    }
    case op_code::list_insert:
    case op_code::list_set: {
        auto a = reader({"index", "value"});
        o.index = a.integer("index");
        o.key = a.val("value");
        extras.list_policy = true;
        break;
    }
    case op_code::list_insert_items: {
        auto a = reader({"index", "values"});
        o.index = a.integer("index");
        o.values = a.array("values");
        extras.list_policy = true;
        break;
    }
    case op_code::list_increment: {
        auto a = reader({"index", "delta"});
        o.index = a.integer("index");
        // As the clients' increment(bin, index): no delta is sent, and the
        // server adds 1 (cdt::list_ops::increment leaves it nil).
        if (a.find("delta") != nullptr)
            o.val = a.val("delta");
        extras.list_policy = true;
        break;
    }
    case op_code::list_trim: {
        auto a = reader({"index", "count"});
        o.index = a.integer("index");
        o.count = a.integer("count");
        break;
    }
    case op_code::list_clear:
    case op_code::list_size:
        reader({});
        break;
    case op_code::list_pop:
    case op_code::list_remove:
    case op_code::list_get:
        by_position("index");
        break;
    case op_code::list_pop_range:
    case op_code::list_remove_range:
    case op_code::list_get_range:
        by_position_range("index");
        break;
    }
    return extras;
}

inline bool is_remove_selector(cdt::op_code c) {
    std::string_view n = cdt::op_name(c);
    return n.find("_remove_by_") != std::string_view::npos;
}

inline const json* field(const json& op_json, std::string_view name) {
    auto it = op_json.find(name);
    return it == op_json.end() ? nullptr : &*it;
}

/// Parses one CDT op (not bit, not read) at `where`.
inline cdt::op parse_cdt_op(const json& op_json, cdt::op_code code, const std::string& where) {
    cdt::op o;
    o.code = code;
    const json* args = field(op_json, "args");
    op_extras extras = fill_cdt_args(o, args, where);
    const std::string name(cdt::op_name(code));

    auto refuse_field = [&](std::string_view f, std::string_view why) {
        if (field(op_json, f) != nullptr)
            reject(where + ": " + name + " takes no " + std::string(f) + " (" + std::string(why) +
                   ")");
    };

    // return_type / inverted
    if (extras.return_type) {
        o.return_type = static_cast<std::int32_t>(
            is_remove_selector(code) ? cdt::return_type::none : cdt::return_type::value);
        if (const json* rt = field(op_json, "return_type"))
            o.return_type = to_return_type(*rt, where + ".return_type");
        if (const json* inv = field(op_json, "inverted"); inv && to_bool(*inv, where + ".inverted"))
            o.return_type |= cdt::return_inverted;
    } else {
        refuse_field("return_type", "it is not a selector");
        refuse_field("inverted", "it is not a selector");
    }

    // flags: at the op level or, as the spec's argument list allows, in args.
    const json* flags = field(op_json, "flags");
    const json* arg_flags = args != nullptr ? field(*args, "flags") : nullptr;
    if (flags != nullptr && arg_flags != nullptr)
        reject(where + ": flags given both in the op and in args");
    std::string flags_where = where + (flags != nullptr ? ".flags" : " args.flags");
    if (flags == nullptr)
        flags = arg_flags;
    const json* porder = field(op_json, "policy_order");

    if (extras.map_policy) {
        if (flags)
            o.mpolicy.flags = to_flags(*flags, map_flag_names, flags_where);
        if (porder)
            o.mpolicy.order = to_map_order(*porder, where + ".policy_order");
    } else if (extras.list_policy) {
        if (flags)
            o.lpolicy.flags = to_flags(*flags, list_flag_names, flags_where);
        if (porder)
            o.lpolicy.order = to_list_order(*porder, where + ".policy_order");
    } else if (extras.sort_flags) {
        if (flags)
            o.sort_flags = to_flags(*flags, sort_flag_names, flags_where);
        refuse_field("policy_order", "it takes no policy");
    } else if (code == cdt::op_code::map_set_policy) {
        if (flags)
            reject(flags_where + ": map_set_policy takes no flags");
        const json* order_arg = args != nullptr ? field(*args, "order") : nullptr;
        if (porder != nullptr && order_arg != nullptr)
            reject(where + ": map_set_policy: give the order once, as args.order or policy_order");
        if (porder == nullptr && order_arg == nullptr)
            reject(where + ": map_set_policy: missing the order (args.order or policy_order)");
        if (porder) {
            o.morder = to_map_order(*porder, where + ".policy_order");
            o.mpolicy.order = o.morder;
        }
    } else {
        if (flags)
            reject(flags_where + ": " + name + " takes no flags");
        refuse_field("policy_order", "it takes no policy");
    }

    if (const json* ctx = field(op_json, "ctx")) {
        if (!ctx->is_array())
            reject(where + ".ctx: expected an array of steps, got " + brief(*ctx));
        std::size_t i = 0;
        for (const json& step : *ctx) {
            o.ctx.push_back(to_ctx_step(step, where + ".ctx[" + std::to_string(i) + "]"));
            ++i;
        }
    }
    return o;
}

/// Parses one bit op at `where`.
inline cdt::bit_op
parse_bit_op(const json& op_json, cdt::bit_op_code code, const std::string& where) {
    using cdt::bit_op_code;
    const std::string name(cdt::bit_op_name(code));
    for (std::string_view f : {"return_type", "inverted", "policy_order", "ctx"})
        if (field(op_json, f) != nullptr)
            reject(where + ": " + name + " takes no " + std::string(f) + " (bit ops have none)");
    const json* args = field(op_json, "args");
    const json* arg_flags = args != nullptr ? field(*args, "flags") : nullptr;
    const json* flags = field(op_json, "flags");
    if (flags != nullptr && arg_flags != nullptr)
        reject(where + ": flags given both in the op and in args");
    std::string flags_where = where + (flags != nullptr ? ".flags" : " args.flags");
    if (flags == nullptr)
        flags = arg_flags;

    auto reader = [&](std::vector<std::string_view> allowed) {
        if (!cdt::is_bit_read(code))
            allowed.emplace_back("flags");
        return args_reader(args, where, std::move(allowed));
    };
    cdt::bit_op o;
    o.code = code;
    switch (code) {
    case bit_op_code::bit_resize: {
        auto a = reader({"byte_size", "resize_flags"});
        o.byte_size = a.integer("byte_size");
        if (const json* rf = a.find("resize_flags"))
            o.resize_flags = to_flags(*rf, resize_flag_names, a.at("resize_flags"));
        break;
    }
    case bit_op_code::bit_insert: {
        auto a = reader({"byte_offset", "value"});
        o.byte_offset = a.integer("byte_offset");
        o.value = a.blob("value");
        break;
    }
    case bit_op_code::bit_remove: {
        auto a = reader({"byte_offset", "byte_size"});
        o.byte_offset = a.integer("byte_offset");
        o.byte_size = a.integer("byte_size");
        break;
    }
    case bit_op_code::bit_set:
    case bit_op_code::bit_or:
    case bit_op_code::bit_xor:
    case bit_op_code::bit_and: {
        auto a = reader({"bit_offset", "bit_size", "value"});
        o.bit_offset = a.integer("bit_offset");
        o.bit_size = a.integer("bit_size");
        o.value = a.blob("value");
        break;
    }
    case bit_op_code::bit_not:
    case bit_op_code::bit_get:
    case bit_op_code::bit_count: {
        auto a = reader({"bit_offset", "bit_size"});
        o.bit_offset = a.integer("bit_offset");
        o.bit_size = a.integer("bit_size");
        break;
    }
    case bit_op_code::bit_lshift:
    case bit_op_code::bit_rshift: {
        auto a = reader({"bit_offset", "bit_size", "shift"});
        o.bit_offset = a.integer("bit_offset");
        o.bit_size = a.integer("bit_size");
        o.shift = a.integer("shift");
        break;
    }
    case bit_op_code::bit_add:
    case bit_op_code::bit_subtract: {
        auto a = reader({"bit_offset", "bit_size", "value", "signed", "action"});
        o.bit_offset = a.integer("bit_offset");
        o.bit_size = a.integer("bit_size");
        o.int_value = a.integer("value");
        o.sign = a.boolean("signed", false);
        if (const json* act = a.find("action")) {
            const std::string* s = act->is_string() ? &act->get_ref<const std::string&>() : nullptr;
            if (s != nullptr && *s == "FAIL")
                o.action = cdt::bit_overflow_action::fail;
            else if (s != nullptr && *s == "SATURATE")
                o.action = cdt::bit_overflow_action::saturate;
            else if (s != nullptr && *s == "WRAP")
                o.action = cdt::bit_overflow_action::wrap;
            else
                reject(a.at("action") + ": expected FAIL, SATURATE or WRAP, got " + brief(*act));
        }
        break;
    }
    case bit_op_code::bit_set_int: {
        auto a = reader({"bit_offset", "bit_size", "value"});
        o.bit_offset = a.integer("bit_offset");
        o.bit_size = a.integer("bit_size");
        o.int_value = a.integer("value");
        break;
    }
    case bit_op_code::bit_lscan:
    case bit_op_code::bit_rscan: {
        auto a = reader({"bit_offset", "bit_size", "value"});
        o.bit_offset = a.integer("bit_offset");
        o.bit_size = a.integer("bit_size");
        o.scan_value = a.boolean("value", false);
        if (a.find("value") == nullptr)
            reject(where + ": missing argument 'value'");
        break;
    }
    case bit_op_code::bit_get_int: {
        auto a = reader({"bit_offset", "bit_size", "signed"});
        o.bit_offset = a.integer("bit_offset");
        o.bit_size = a.integer("bit_size");
        o.sign = a.boolean("signed", false);
        break;
    }
    }
    if (flags != nullptr) {
        if (cdt::is_bit_read(code))
            reject(flags_where + ": " + name + " takes no flags (a read)");
        o.policy.flags = to_flags(*flags, bit_flag_names, flags_where);
    }
    return o;
}

// tools/exp_json.hpp: the ops of shared/spec/exp-json.md (nullopt for
// another name) and the case fields it adds.
inline std::optional<case_op>
parse_expression_op(const json& op_json, const std::string& name, const std::string& where);
inline void parse_expression_fields(const json& j, scenario& s);

/// An HLL value: {"$hll": hex}, the sketch bytes.
inline kvmodel::bytes hll_bytes(const json& j, const std::string& where) {
    if (!j.is_object() || j.size() != 1 || !j.contains("$hll") || !j.at("$hll").is_string())
        reject(where + ": expected an HLL {\"$hll\": hex}, got " + brief(j));
    result<kvmodel::bytes> b = kvmodel::detail::parse_hex(j.at("$hll").get<std::string>(), where + ".$hll");
    if (!b)
        reject(b.error().message);
    return std::move(b).value();
}

/// Parses one HLL op at `where` (argument names: the spec's, the C client's).
inline cdt::hll_op
parse_hll_op(const json& op_json, cdt::hll_op_code code, const std::string& where) {
    using c = cdt::hll_op_code;
    const std::string name(cdt::hll_op_name(code));
    for (std::string_view f : {"return_type", "inverted", "policy_order", "ctx"})
        if (field(op_json, f) != nullptr)
            reject(where + ": " + name + " takes no " + std::string(f) + " (HLL ops have none)");
    const json* args = field(op_json, "args");
    const json* flags = field(op_json, "flags");
    const bool takes_flags =
        code == c::hll_init || code == c::hll_add || code == c::hll_set_union;
    if (flags != nullptr && !takes_flags)
        reject(where + ".flags: " + name + " takes no flags (only hll_init, hll_add, hll_set_union)");
    auto bits = [](const args_reader& a, std::string_view n) {
        return a.opt_integer(n).value_or(-1);
    };
    auto sketches = [&](const args_reader& a) {
        const json& j = a.need("values");
        if (!j.is_array())
            reject(a.at("values") + ": expected an array of {\"$hll\": hex}, got " + brief(j));
        std::vector<kvmodel::bytes> out;
        std::size_t k = 0;
        for (const json& e : j)
            out.push_back(hll_bytes(e, a.at("values") + "[" + std::to_string(k++) + "]"));
        return out;
    };
    // What the C client sends: init 3 args, add 4, set_union 2, fold 1, the
    // reads with a list 1, the others none.
    cdt::hll_op o;
    switch (code) {
    case c::hll_init: {
        args_reader a(args, where, {"index_bit_count", "minhash_bit_count"});
        o = cdt::hll_ops::hll_init_mh(bits(a, "index_bit_count"), bits(a, "minhash_bit_count"));
        break;
    }
    case c::hll_add: {
        args_reader a(args, where, {"values", "index_bit_count", "minhash_bit_count"});
        o = cdt::hll_ops::hll_add_mh(
            a.array("values"), bits(a, "index_bit_count"), bits(a, "minhash_bit_count"));
        break;
    }
    case c::hll_set_union: {
        args_reader a(args, where, {"values"});
        o = cdt::hll_ops::hll_set_union(sketches(a));
        break;
    }
    case c::hll_fold: {
        args_reader a(args, where, {"index_bit_count"});
        o = cdt::hll_ops::hll_fold(a.integer("index_bit_count"));
        break;
    }
    case c::hll_get_union:
    case c::hll_get_union_count:
    case c::hll_get_intersect_count:
    case c::hll_get_similarity: {
        args_reader a(args, where, {"values"});
        o = cdt::hll_ops::detail::with_hlls(code, sketches(a));
        break;
    }
    case c::hll_may_contain: {
        args_reader a(args, where, {"values"});
        o = cdt::hll_ops::hll_may_contain(a.array("values"));
        break;
    }
    default: {
        args_reader a(args, where, {});
        o.code = code;
        break;
    }
    }
    if (flags != nullptr)
        o.policy.flags = to_flags(*flags, hll_flag_names, where + ".flags");
    return o;
}

inline case_op parse_op(const json& op_json, std::size_t i) {
    std::string where = "ops[" + std::to_string(i) + "]";
    if (!op_json.is_object())
        reject(where + ": expected an op object, got " + brief(op_json));
    const json* name_json = field(op_json, "op");
    if (name_json == nullptr)
        reject(where + ": missing 'op'");
    if (!name_json->is_string())
        reject(where + ".op: expected an op name, got " + brief(*name_json));
    const auto& name = name_json->get_ref<const std::string&>();
    where += " (" + name + ")";
    if (std::optional<case_op> e = parse_expression_op(op_json, name, where))
        return std::move(*e);
    for (const auto& item : op_json.items()) {
        static constexpr std::string_view known[] = {"op",
                                                     "args",
                                                     "return_type",
                                                     "inverted",
                                                     "flags",
                                                     "policy_order",
                                                     "ctx",
                                                     "expected",
                                                     "notes"};
        bool ok = false;
        for (std::string_view k : known)
            ok = ok || k == item.key();
        if (!ok)
            reject(where + ": unknown field '" + item.key() +
                   "' (an op has op, args, return_type, inverted, flags, policy_order, ctx)");
    }
    if (name == "read") {
        for (std::string_view f :
             {"args", "return_type", "inverted", "flags", "policy_order", "ctx"})
            if (const json* given = field(op_json, f);
                given != nullptr && !(f == "args" && given->is_object() && given->empty()))
                reject(where + ": read takes no " + std::string(f) + " (it reads the whole bin)");
        return read_bin{};
    }
    if (std::optional<cdt::op_code> code = cdt::op_from_name(name))
        return parse_cdt_op(op_json, *code, where);
    if (std::optional<cdt::bit_op_code> code = cdt::bit_op_from_name(name))
        return parse_bit_op(op_json, *code, where);
    if (std::optional<cdt::hll_op_code> code = cdt::hll_op_from_name(name))
        return parse_hll_op(op_json, *code, where);
    reject("ops[" + std::to_string(i) + "].op: unknown op " + brief(*name_json));
}

inline value initial_value(const json& j, bin_kind kind, map_order morder, list_order lorder) {
    const std::string where = "initial";
    if (kind == bin_kind::hll && j.is_object() && j.contains("$hll"))
        return value(hll_bytes(j, where));
    if (kind == bin_kind::map && j.is_array()) {
        // A pair list, so key types survive (JSON object keys would all be strings).
        map m(morder);
        std::size_t i = 0;
        for (const json& pair : j) {
            std::string at = where + "[" + std::to_string(i++) + "]";
            if (!pair.is_array() || pair.size() != 2)
                reject(at + ": a map bin's initial is a list of [key, value] pairs, got " +
                       brief(pair));
            value k = to_value(pair[0], at + "[0]");
            value v = to_value(pair[1], at + "[1]");
            std::string shown = brief(pair[0]);
            if (!m.put(std::move(k), std::move(v)).second)
                reject(at + ": duplicate key " + shown);
        }
        return value{std::move(m)};
    }
    if (kind == bin_kind::map && j.is_object() && !j.empty() && j.begin().key().rfind('$', 0) != 0)
        reject(where +
               ": a map bin's initial is a list of [key, value] pairs (a JSON object "
               "would lose the keys' types), got " +
               brief(j));
    value v = to_value(j, where);
    // Any other notation means the bin holds that value, whatever bin_type says;
    // a container of the bin's own kind takes the case's order.
    if (kind == bin_kind::map && v.is_map())
        v.as_map().set_order(morder);
    if (kind == bin_kind::list && v.is_list() && lorder == list_order::ordered) {
        // An ORDERED list is stored sorted, however the case lists it.
        v.as_list().sort();
        v.as_list().set_order_flag(list_order::ordered);
    }
    return v;
}

/// Uses the case's order for an op that may create the (missing) top-level bin
/// and does not say otherwise.
inline void apply_case_order(case_op& co, const json& op_json, const scenario& s) {
    auto* o = std::get_if<cdt::op>(&co);
    if (o == nullptr)
        return;
    if (!o->ctx.empty()) {
        cdt::ctx_step& first = o->ctx.front();
        if (!first.create)
            return;
        const json& step = op_json.at("ctx").at(0);
        if (step.contains("order"))
            return;
        if (s.kind == bin_kind::list && first.type == cdt::ctx_step::kind::list_index)
            first.create_list_order = s.lorder;
        if (s.kind == bin_kind::map && first.type == cdt::ctx_step::kind::map_key)
            first.create_map_order = s.morder;
        return;
    }
    if (op_json.contains("policy_order"))
        return;
    bool map_op = cdt::is_map_op(o->code);
    if (map_op && s.kind == bin_kind::map && o->code != cdt::op_code::map_create &&
        o->code != cdt::op_code::map_set_policy)
        o->mpolicy.order = s.morder;
    if (!map_op && s.kind == bin_kind::list && o->code != cdt::op_code::list_create &&
        o->code != cdt::op_code::list_set_order)
        o->lpolicy.order = s.lorder;
}

} // namespace detail

/// Reads one case. On failure the error's message says what is wrong and where.
/// Complexity: linear in the case's JSON.
inline result<scenario> parse_case(const json& j) {
    using namespace detail;
    scenario s;
    try {
        if (!j.is_object())
            reject("the case must be a JSON object, got " + kind_of(j));
        if (auto it = j.find("id"); it != j.end()) {
            s.id = *it;
            if (!it->is_string())
                reject("id: expected a string, got " + brief(*it));
        }
        parse_expression_fields(j, s);
        auto bt = j.find("bin_type");
        if (bt == j.end() && !s.keyed)
            reject("bin_type: missing (map, list, bytes or hll)");
        if (bt == j.end())
            s.kind = bin_kind::map; // an expression case may only have other bins
        else if (bt->is_string() && bt->get_ref<const std::string&>() == "map")
            s.kind = bin_kind::map;
        else if (bt->is_string() && bt->get_ref<const std::string&>() == "list")
            s.kind = bin_kind::list;
        else if (bt->is_string() && bt->get_ref<const std::string&>() == "bytes")
            s.kind = bin_kind::bytes;
        else if (bt->is_string() && bt->get_ref<const std::string&>() == "hll")
            s.kind = bin_kind::hll;
        else
            reject("bin_type: expected map, list, bytes or hll, got " + brief(*bt));

        if (auto it = j.find("order"); it != j.end()) {
            if (s.kind == bin_kind::map)
                s.morder = to_map_order(*it, "order");
            else if (s.kind == bin_kind::list && *it == "UNORDERED")
                // The spec's UNORDERED-as-list-order covers ops and ctx steps, not a case's order.
                reject("order: expected a list order (ORDERED, UNORDERED_LIST) for a list bin, got \"UNORDERED\"");
            else if (s.kind == bin_kind::list)
                s.lorder = to_list_order(*it, "order");
            else
                reject(std::string("order: a ") + (s.kind == bin_kind::hll ? "hll" : "bytes") +
                       " bin has no order, got " + brief(*it));
        }
        if (auto it = j.find("record_exists"); it != j.end())
            s.record_exists = to_bool(*it, "record_exists");
        if (auto it = j.find("initial"); it != j.end() && !it->is_null()) {
            if (!s.record_exists)
                reject("initial: must be null (or absent) when record_exists is false, got " +
                       brief(*it));
            s.initial = initial_value(*it, s.kind, s.morder, s.lorder);
            // {"$nil": true} is no value either: a bin cannot hold nil.
            if (s.initial->is_nil())
                s.initial.reset();
        }

        auto ops = j.find("ops");
        if (ops == j.end())
            reject("ops: missing (an array of operations)");
        if (!ops->is_array())
            reject("ops: expected an array of operations, got " + brief(*ops));
        if (ops->empty())
            reject("ops: empty (operate() needs at least one operation)");
        std::size_t i = 0;
        for (const json& op_json : *ops) {
            case_op co = parse_op(op_json, i);
            if (!s.initial)
                apply_case_order(co, op_json, s);
            s.ops.push_back(std::move(co));
            ++i;
        }
    } catch (invalid& e) {
        return fail(status::parameter_error, std::move(e.message));
    }
    return s;
}

} // namespace kvmodel::tools::cdt_json

#include "exp_json.hpp" // defines parse_expression_op, parse_expression_fields
