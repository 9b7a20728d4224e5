// kvmodel/cdt/ops.hpp
//
// The CDT operation vocabulary: one `cdt::op` per Aerospike map or list
// operation (as_operations_map_* / as_operations_list_*), with its arguments,
// return type, flags, policy and nested context. A store applies an op to a
// bin with cdt::apply (cdt/engine.hpp); the Aerospike adapter translates each
// op_code to exactly one client call. Builders for every op live in
// cdt/map_ops.hpp and cdt/list_ops.hpp.
//
// Numbers are Aerospike's wire values (return types, flags, orders), so they
// pass through unchanged, including invalid ones a caller sends on purpose.
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/value.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace kvmodel::cdt {

/// What a selector returns (as_map_return_type / as_list_return_type).
enum class return_type : std::int32_t {
    none = 0,
    index = 1,
    reverse_index = 2,
    rank = 3,
    reverse_rank = 4,
    count = 5,
    key = 6,
    value = 7,
    key_value = 8,
    exists = 13,
    unordered_map = 16,
    ordered_map = 17,
};
/// OR-ed into the wire return type to select the complement.
inline constexpr std::int32_t return_inverted = 0x10000;

/// Map write flags (as_map_write_flags), OR-able.
namespace map_write_flags {
/// Default: put creates or updates the entry.
inline constexpr std::uint32_t none = 0;
/// Only new keys: an existing key is ELEMENT_EXISTS.
inline constexpr std::uint32_t create_only = 1;
/// Only existing keys: a missing key is ELEMENT_NOT_FOUND.
inline constexpr std::uint32_t update_only = 2;
/// An entry the flags deny is skipped instead of failing the op.
inline constexpr std::uint32_t no_fail = 4;
/// With no_fail: a multi-item put commits the items that pass (without it,
/// one denied item drops them all).
inline constexpr std::uint32_t partial = 8;
} // namespace map_write_flags

/// The legacy map write modes (as_map_write_mode): they choose the wire
/// command (put / replace / add) instead of setting flags.
enum class map_write_mode : std::uint8_t { update = 0, update_only = 1, create_only = 2 };

/// List write flags (as_list_write_flags), OR-able.
namespace list_write_flags {
/// Default: no constraint.
inline constexpr std::uint32_t none = 0;
/// Only values not already in the list: a duplicate is ELEMENT_EXISTS.
inline constexpr std::uint32_t add_unique = 1;
/// Insert / set only within the list's bounds: an index past the end is
/// OP_NOT_APPLICABLE instead of padding with nil.
inline constexpr std::uint32_t insert_bounded = 2;
/// A value the flags deny is skipped instead of failing the op.
inline constexpr std::uint32_t no_fail = 4;
/// With no_fail: a multi-item write commits the items that pass (without it,
/// one denied item drops them all).
inline constexpr std::uint32_t partial = 8;
} // namespace list_write_flags

/// List sort flags (as_list_sort_flags).
namespace list_sort_flags {
/// Keep duplicates.
inline constexpr std::uint32_t none = 0;
/// Drop duplicate values while sorting.
inline constexpr std::uint32_t drop_duplicates = 2;
} // namespace list_sort_flags

/// Map policy: the order used when the op creates the map, the write flags,
/// and, when set, a legacy write mode (which then replaces the flags).
struct map_policy {
    /// The order of a map the op creates (an existing map keeps its own).
    map_order order = map_order::unordered;
    /// map_write_flags, OR-ed.
    std::uint32_t flags = map_write_flags::none;
    /// A legacy write mode; when set it replaces `flags`.
    std::optional<map_write_mode> mode;
    /// Keep a persisted index on a map the op creates (a bin's top-level map only).
    bool persist_index = false;
};

/// List policy: the order used when the op creates the list, and write flags.
struct list_policy {
    /// The order of a list the op creates (an existing list keeps its own).
    list_order order = list_order::unordered;
    /// list_write_flags, OR-ed.
    std::uint32_t flags = list_write_flags::none;
};

/// One step of a nested context (as_cdt_ctx item).
struct ctx_step {
    /// How a step selects its element (the as_cdt_ctx item type, wire values).
    enum class kind : std::uint8_t {
        list_index = 0x10,
        list_rank = 0x11,
        list_value = 0x13,
        map_index = 0x20,
        map_rank = 0x21,
        map_key = 0x22,
        map_value = 0x23,
    };
    /// How this step selects.
    kind type = kind::list_index;
    /// list_index, list_rank, map_index, map_rank: the index or rank
    /// (negative counts from the end).
    std::int64_t index = 0; // list_index, list_rank, map_index, map_rank
    /// list_value, map_key, map_value: the value or key selected.
    value val;              // list_value, map_key, map_value
    /// list_index_create / map_key_create: create the element when missing.
    bool create = false;
    /// For a create step: the order of the container this step indexes into,
    /// used only if that container must itself be created.
    list_order create_list_order = list_order::unordered;
    /// list_index_create: pad with nil up to the index.
    bool pad = false; // list_index_create: pad with nil up to the index
    /// map_key_create: the order of the map this step creates when it is missing.
    map_order create_map_order = map_order::unordered;

    /// The list element at index `i`.
    static ctx_step list_index(std::int64_t i) { return {kind::list_index, i, {}}; }
    /// The list element of rank `r` (by value order).
    static ctx_step list_rank(std::int64_t r) { return {kind::list_rank, r, {}}; }
    /// The first list element equal to `v`.
    static ctx_step list_value(value v) { return {kind::list_value, 0, std::move(v)}; }
    /// The map entry at index `i` (by key order).
    static ctx_step map_index(std::int64_t i) { return {kind::map_index, i, {}}; }
    /// The map entry of rank `r` (by value order).
    static ctx_step map_rank(std::int64_t r) { return {kind::map_rank, r, {}}; }
    /// The map entry with key `k`.
    static ctx_step map_key(value k) { return {kind::map_key, 0, std::move(k)}; }
    /// The first map entry whose value equals `v`.
    static ctx_step map_value(value v) { return {kind::map_value, 0, std::move(v)}; }
    /// The list element at index `i`, created when missing (a list of order
    /// `order`, padded with nil up to `i` when `pad`).
    static ctx_step list_index_create(std::int64_t i, list_order order, bool pad) {
        ctx_step s{kind::list_index, i, {}};
        s.create = true;
        s.create_list_order = order;
        s.pad = pad;
        return s;
    }
    /// The map entry with key `k`, created when missing (a map of order `order`).
    static ctx_step map_key_create(value k, map_order order) {
        ctx_step s{kind::map_key, 0, std::move(k)};
        s.create = true;
        s.create_map_order = order;
        return s;
    }
};

/// Every CDT operation. Names follow Aerospike's client API.
enum class op_code : std::uint16_t {
    // map writes
    map_create,
    map_set_policy,
    map_put,
    map_put_items,
    map_increment,
    map_decrement,
    map_clear,
    // map reads
    map_size,
    map_get_by_key,
    map_get_by_key_list,
    map_get_by_key_range,
    map_get_by_key_rel_index_range,
    map_get_by_value,
    map_get_by_value_list,
    map_get_by_value_range,
    map_get_by_value_rel_rank_range,
    map_get_by_index,
    map_get_by_index_range,
    map_get_by_rank,
    map_get_by_rank_range,
    // map removes
    map_remove_by_key,
    map_remove_by_key_list,
    map_remove_by_key_range,
    map_remove_by_key_rel_index_range,
    map_remove_by_value,
    map_remove_by_value_list,
    map_remove_by_value_range,
    map_remove_by_value_rel_rank_range,
    map_remove_by_index,
    map_remove_by_index_range,
    map_remove_by_rank,
    map_remove_by_rank_range,
    // list writes
    list_create,
    list_set_order,
    list_sort,
    list_append,
    list_append_items,
    list_insert,
    list_insert_items,
    list_set,
    list_increment,
    list_trim,
    list_clear,
    list_pop,
    list_pop_range,
    list_remove,
    list_remove_range,
    // list reads
    list_size,
    list_get,
    list_get_range,
    list_get_by_index,
    list_get_by_index_range,
    list_get_by_rank,
    list_get_by_rank_range,
    list_get_by_value,
    list_get_by_value_list,
    list_get_by_value_range,
    list_get_by_value_rel_rank_range,
    // list removes
    list_remove_by_index,
    list_remove_by_index_range,
    list_remove_by_rank,
    list_remove_by_rank_range,
    list_remove_by_value,
    list_remove_by_value_list,
    list_remove_by_value_range,
    list_remove_by_value_rel_rank_range,
};

/// One CDT operation. Which fields an op reads is fixed by its op_code
/// (see the builders); the rest stay default.
struct op {
    /// Which operation.
    op_code code = op_code::map_size;
    /// The nested context: the path from the bin to the container operated on
    /// (empty = the bin itself).
    std::vector<ctx_step> ctx;

    /// Map key, single value, relative anchor, or list value to insert.
    value key;   // map key / single value / relative anchor / list value to insert
    /// Map value; list increment delta.
    value val;   // map value; list increment delta
    /// Range begin (nil = lowest).
    value begin; // range begin (nil = lowest)
    /// Range end, exclusive (absent = unbounded).
    std::optional<value> end; // range end (absent = unbounded)
    /// Key or value lists; list items.
    std::vector<value> values;                      // key/value lists, list items
    /// map_put_items: the entries.
    std::vector<std::pair<value, value>> items;     // map_put_items
    /// Index, rank or relative offset.
    std::int64_t index = 0;                         // index / rank / relative offset
    /// How many (absent = to the end).
    std::optional<std::int64_t> count;              // absent = to the end
    /// The wire return type (a cdt::return_type, possibly | return_inverted).
    std::int32_t return_type = 0;                   // wire value incl. return_inverted
    /// Map ops: order on create and write flags.
    map_policy mpolicy;
    /// List ops: order on create and write flags.
    list_policy lpolicy;
    /// list_sort: list_sort_flags.
    std::uint32_t sort_flags = 0;                   // list_sort
    /// list_create / list_set_order: the list order.
    list_order order = list_order::unordered;       // list_create / list_set_order
    /// map_create / map_set_policy: the map order.
    map_order morder = map_order::unordered;        // map_create / map_set_policy
    /// list_create: pad (as ctx_step::pad).
    bool pad = false;                               // list_create
    /// list_create / map_create: keep a persisted index.
    bool persist_index = false;                     // list_create / map_create
};

/// Whether an op is a map op (else a list op).
constexpr bool is_map_op(op_code c) noexcept {
    return c <= op_code::map_remove_by_rank_range;
}

/// How an op treats the record: reads never write; modify ops create a missing
/// bin (and record); remove-type ops never create anything (on a missing
/// record they fail KEY_NOT_FOUND).
enum class op_class : std::uint8_t { read, modify, remove };

/// Whether `c` reads, modifies or removes (see op_class). O(1).
constexpr op_class classify(op_code c) noexcept {
    switch (c) {
    case op_code::map_size:
    case op_code::map_get_by_key:
    case op_code::map_get_by_key_list:
    case op_code::map_get_by_key_range:
    case op_code::map_get_by_key_rel_index_range:
    case op_code::map_get_by_value:
    case op_code::map_get_by_value_list:
    case op_code::map_get_by_value_range:
    case op_code::map_get_by_value_rel_rank_range:
    case op_code::map_get_by_index:
    case op_code::map_get_by_index_range:
    case op_code::map_get_by_rank:
    case op_code::map_get_by_rank_range:
    case op_code::list_size:
    case op_code::list_get:
    case op_code::list_get_range:
    case op_code::list_get_by_index:
    case op_code::list_get_by_index_range:
    case op_code::list_get_by_rank:
    case op_code::list_get_by_rank_range:
    case op_code::list_get_by_value:
    case op_code::list_get_by_value_list:
    case op_code::list_get_by_value_range:
    case op_code::list_get_by_value_rel_rank_range: return op_class::read;
    case op_code::map_clear:
    case op_code::map_remove_by_key:
    case op_code::map_remove_by_key_list:
    case op_code::map_remove_by_key_range:
    case op_code::map_remove_by_key_rel_index_range:
    case op_code::map_remove_by_value:
    case op_code::map_remove_by_value_list:
    case op_code::map_remove_by_value_range:
    case op_code::map_remove_by_value_rel_rank_range:
    case op_code::map_remove_by_index:
    case op_code::map_remove_by_index_range:
    case op_code::map_remove_by_rank:
    case op_code::map_remove_by_rank_range:
    case op_code::list_clear:
    case op_code::list_trim:
    case op_code::list_pop:
    case op_code::list_pop_range:
    case op_code::list_remove:
    case op_code::list_remove_range:
    case op_code::list_remove_by_index:
    case op_code::list_remove_by_index_range:
    case op_code::list_remove_by_rank:
    case op_code::list_remove_by_rank_range:
    case op_code::list_remove_by_value:
    case op_code::list_remove_by_value_list:
    case op_code::list_remove_by_value_range:
    case op_code::list_remove_by_value_rel_rank_range: return op_class::remove;
    default: return op_class::modify;
    }
}

namespace detail {
inline constexpr std::string_view op_names[] = {
    "map_create",
    "map_set_policy",
    "map_put",
    "map_put_items",
    "map_increment",
    "map_decrement",
    "map_clear",
    "map_size",
    "map_get_by_key",
    "map_get_by_key_list",
    "map_get_by_key_range",
    "map_get_by_key_rel_index_range",
    "map_get_by_value",
    "map_get_by_value_list",
    "map_get_by_value_range",
    "map_get_by_value_rel_rank_range",
    "map_get_by_index",
    "map_get_by_index_range",
    "map_get_by_rank",
    "map_get_by_rank_range",
    "map_remove_by_key",
    "map_remove_by_key_list",
    "map_remove_by_key_range",
    "map_remove_by_key_rel_index_range",
    "map_remove_by_value",
    "map_remove_by_value_list",
    "map_remove_by_value_range",
    "map_remove_by_value_rel_rank_range",
    "map_remove_by_index",
    "map_remove_by_index_range",
    "map_remove_by_rank",
    "map_remove_by_rank_range",
    "list_create",
    "list_set_order",
    "list_sort",
    "list_append",
    "list_append_items",
    "list_insert",
    "list_insert_items",
    "list_set",
    "list_increment",
    "list_trim",
    "list_clear",
    "list_pop",
    "list_pop_range",
    "list_remove",
    "list_remove_range",
    "list_size",
    "list_get",
    "list_get_range",
    "list_get_by_index",
    "list_get_by_index_range",
    "list_get_by_rank",
    "list_get_by_rank_range",
    "list_get_by_value",
    "list_get_by_value_list",
    "list_get_by_value_range",
    "list_get_by_value_rel_rank_range",
    "list_remove_by_index",
    "list_remove_by_index_range",
    "list_remove_by_rank",
    "list_remove_by_rank_range",
    "list_remove_by_value",
    "list_remove_by_value_list",
    "list_remove_by_value_range",
    "list_remove_by_value_rel_rank_range",
};
} // namespace detail

/// Number of op codes.
inline constexpr std::size_t op_code_count = std::size(detail::op_names);

/// The op's name as in shared/spec/cdt-json.md ("map_put", "list_get_by_rank", ...).
constexpr std::string_view op_name(op_code c) noexcept {
    auto i = static_cast<std::size_t>(c);
    return i < op_code_count ? detail::op_names[i] : std::string_view("?");
}
/// The op_code for a name, if it is one.
constexpr std::optional<op_code> op_from_name(std::string_view name) noexcept {
    for (std::size_t i = 0; i < op_code_count; ++i)
        if (detail::op_names[i] == name) return static_cast<op_code>(i);
    return std::nullopt;
}
static_assert(op_name(op_code::list_remove_by_value_rel_rank_range) ==
              "list_remove_by_value_rel_rank_range");

} // namespace kvmodel::cdt

// Every file that builds ops copies and moves these; with kvmodel::compiled
// their members are compiled once, in the library.
KVMODEL_INSTANTIATE(class std::vector<kvmodel::cdt::ctx_step>)
KVMODEL_INSTANTIATE(class std::vector<kvmodel::cdt::op>)
KVMODEL_INSTANTIATE(class std::vector<std::pair<kvmodel::value, kvmodel::value>>)
