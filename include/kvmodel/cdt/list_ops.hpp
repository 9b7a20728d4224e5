// kvmodel/cdt/list_ops.hpp
//
// Builders for every list operation, named after Aerospike's client API
// (as_operations_list_* / ListOperation.*): each returns a cdt::op ready for
// cdt::apply (cdt/engine.hpp) or a store's operate(). Nothing here touches a
// list; building an op is O(size of its arguments).
//
//   auto o = cdt::list_ops::get_by_rank_range(-3, 3, cdt::return_type::value);
//   auto r = cdt::apply(bin, o);  // the 3 highest values
//
// Conventions, as in the clients: a `count` left out (std::nullopt) means "to
// the end"; a value-range `end` left out is unbounded and a nil `begin` is the
// lowest value; `inverted` selects the complement; `ctx` addresses a list
// nested in the bin (cdt::ctx_step, or the helpers at the end). The list
// policy's order applies when append, append_items or increment create the
// list; its write flags (ADD_UNIQUE, INSERT_BOUNDED, NO_FAIL, PARTIAL) decide
// what a write may do. Semantics and costs: cdt/detail/list_engine.hpp, and
// cdt/context.hpp for contexts.
//
// Departure from the clients: the *_to_end / *_from variants are the same
// builders with the count left out (pop_range_from(i) == pop_range(i)).
#pragma once

#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/value.hpp>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace kvmodel::cdt::list_ops {

/// A list policy: the order a created list gets, and write flags
/// (as_list_policy_set).
inline list_policy policy(list_order order, std::uint32_t flags = list_write_flags::none) {
    list_policy p;
    p.order = order;
    p.flags = flags;
    return p;
}

/// The wire return type: `rt`, with INVERTED when asked.
constexpr std::int32_t wire_return(return_type rt, bool inverted = false) noexcept {
    return static_cast<std::int32_t>(rt) | (inverted ? return_inverted : 0);
}

namespace detail {
inline op make(op_code code, std::vector<ctx_step> ctx) {
    op o;
    o.code = code;
    o.ctx = std::move(ctx);
    return o;
}
inline op selector(op_code code, return_type rt, bool inverted, std::vector<ctx_step> ctx) {
    op o = make(code, std::move(ctx));
    o.return_type = wire_return(rt, inverted);
    return o;
}
} // namespace detail

// ------------------------------------------------------------------ writes

/// Creates a list with an order (at the top level: sets the order, as the
/// clients encode it). With a ctx the last step becomes a create step: pad
/// lets it land past the end of an unordered list (nil fill). Returns nil.
inline op create(list_order order,
                 bool pad = false,
                 bool persist_index = false,
                 std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_create, std::move(ctx));
    o.order = order;
    o.pad = pad;
    o.persist_index = persist_index;
    return o;
}

/// Sets the list's order: ORDERED sorts it, UNORDERED keeps the current order.
/// A persisted index is kept only on a bin's top-level list. Returns nil.
inline op set_order(list_order order, bool persist_index = false, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_set_order, std::move(ctx));
    o.order = order;
    o.persist_index = persist_index;
    return o;
}

/// Sorts the list (list_sort_flags: DROP_DUPLICATES keeps the first of equal
/// values). Returns nil.
inline op sort(std::uint32_t flags = list_sort_flags::none, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_sort, std::move(ctx));
    o.sort_flags = flags;
    return o;
}

/// Appends a value (an ORDERED list places it by rank). Returns the list size.
inline op append(value v, const list_policy& p = {}, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_append, std::move(ctx));
    o.key = std::move(v);
    o.lpolicy = p;
    return o;
}

/// Appends values (an ORDERED list places each by rank). Returns the list size.
inline op
append_items(std::vector<value> items, const list_policy& p = {}, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_append_items, std::move(ctx));
    o.values = std::move(items);
    o.lpolicy = p;
    return o;
}

/// Inserts a value before index (negative counts from the end; past the end
/// pads with nil unless INSERT_BOUNDED). Not allowed on ORDERED lists.
/// Returns the list size.
inline op
insert(std::int64_t index, value v, const list_policy& p = {}, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_insert, std::move(ctx));
    o.index = index;
    o.key = std::move(v);
    o.lpolicy = p;
    return o;
}

/// Inserts values before index. Returns the list size.
inline op insert_items(std::int64_t index,
                       std::vector<value> items,
                       const list_policy& p = {},
                       std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_insert_items, std::move(ctx));
    o.index = index;
    o.values = std::move(items);
    o.lpolicy = p;
    return o;
}

/// Adds delta (int or double; nil = 1) to the number at index; past the end
/// the delta itself is inserted (padding with nil). Returns the new value.
inline op increment(std::int64_t index,
                    value delta = value(),
                    const list_policy& p = {},
                    std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_increment, std::move(ctx));
    o.index = index;
    o.val = std::move(delta);
    o.lpolicy = p;
    return o;
}

/// Replaces the value at index (past the end: inserts, padding with nil).
/// Not allowed on ORDERED lists. Returns nil.
inline op
set(std::int64_t index, value v, const list_policy& p = {}, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_set, std::move(ctx));
    o.index = index;
    o.key = std::move(v);
    o.lpolicy = p;
    return o;
}

/// Keeps [index, index + count) and removes the rest. Returns the count removed.
inline op
trim(std::int64_t index, std::optional<std::int64_t> count, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_trim, std::move(ctx));
    o.index = index;
    o.count = count;
    return o;
}

/// Removes every element, keeping the list and its order. Returns nil.
inline op clear(std::vector<ctx_step> ctx = {}) {
    return detail::make(op_code::list_clear, std::move(ctx));
}

/// Removes and returns the value at index.
inline op pop(std::int64_t index, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_pop, std::move(ctx));
    o.index = index;
    return o;
}

/// Removes and returns the values of [index, index + count) (count left out:
/// to the end, as pop_range_from).
inline op pop_range(std::int64_t index,
                    std::optional<std::int64_t> count = std::nullopt,
                    std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_pop_range, std::move(ctx));
    o.index = index;
    o.count = count;
    return o;
}
inline op pop_range_from(std::int64_t index, std::vector<ctx_step> ctx = {}) {
    return pop_range(index, std::nullopt, std::move(ctx));
}

/// Removes the value at index. Returns 1.
inline op remove(std::int64_t index, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_remove, std::move(ctx));
    o.index = index;
    return o;
}

/// Removes [index, index + count). Returns the count removed.
inline op remove_range(std::int64_t index,
                       std::optional<std::int64_t> count = std::nullopt,
                       std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_remove_range, std::move(ctx));
    o.index = index;
    o.count = count;
    return o;
}
inline op remove_range_from(std::int64_t index, std::vector<ctx_step> ctx = {}) {
    return remove_range(index, std::nullopt, std::move(ctx));
}

// ------------------------------------------------------------------ reads

/// The number of elements (nil for an absent bin).
inline op size(std::vector<ctx_step> ctx = {}) {
    return detail::make(op_code::list_size, std::move(ctx));
}

/// The value at index (OP_NOT_APPLICABLE out of range).
inline op get(std::int64_t index, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_get, std::move(ctx));
    o.index = index;
    return o;
}

/// The values of [index, index + count), clipped to the list.
inline op get_range(std::int64_t index,
                    std::optional<std::int64_t> count = std::nullopt,
                    std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::list_get_range, std::move(ctx));
    o.index = index;
    o.count = count;
    return o;
}
inline op get_range_from(std::int64_t index, std::vector<ctx_step> ctx = {}) {
    return get_range(index, std::nullopt, std::move(ctx));
}

// ------------------------------------------------------------------ selectors
//
// get_by_X reads, remove_by_X removes the selection and returns the same
// result. Single-result selectors (by index, by rank) return a scalar and
// refuse INVERTED; the others always return a list.

/// Reads: the element at index.
inline op get_by_index(std::int64_t index,
                       return_type rt,
                       bool inverted = false,
                       std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_get_by_index, rt, inverted, std::move(ctx));
    o.index = index;
    return o;
}

/// Removes: the element at index.
inline op remove_by_index(std::int64_t index,
                          return_type rt,
                          bool inverted = false,
                          std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_remove_by_index, rt, inverted, std::move(ctx));
    o.index = index;
    return o;
}

/// Reads: the elements of [index, index + count), clipped to the list.
inline op get_by_index_range(std::int64_t index,
                             std::optional<std::int64_t> count,
                             return_type rt,
                             bool inverted = false,
                             std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_get_by_index_range, rt, inverted, std::move(ctx));
    o.index = index;
    o.count = count;
    return o;
}

/// Removes: the elements of [index, index + count), clipped to the list.
inline op remove_by_index_range(std::int64_t index,
                                std::optional<std::int64_t> count,
                                return_type rt,
                                bool inverted = false,
                                std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_remove_by_index_range, rt, inverted, std::move(ctx));
    o.index = index;
    o.count = count;
    return o;
}

/// Reads: the element of rank (negative: from the highest).
inline op get_by_rank(std::int64_t rank,
                      return_type rt,
                      bool inverted = false,
                      std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_get_by_rank, rt, inverted, std::move(ctx));
    o.index = rank;
    return o;
}

/// Removes: the element of rank (negative: from the highest).
inline op remove_by_rank(std::int64_t rank,
                         return_type rt,
                         bool inverted = false,
                         std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_remove_by_rank, rt, inverted, std::move(ctx));
    o.index = rank;
    return o;
}

/// Reads: the elements of ranks [rank, rank + count), clipped.
inline op get_by_rank_range(std::int64_t rank,
                            std::optional<std::int64_t> count,
                            return_type rt,
                            bool inverted = false,
                            std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_get_by_rank_range, rt, inverted, std::move(ctx));
    o.index = rank;
    o.count = count;
    return o;
}

/// Removes: the elements of ranks [rank, rank + count), clipped.
inline op remove_by_rank_range(std::int64_t rank,
                               std::optional<std::int64_t> count,
                               return_type rt,
                               bool inverted = false,
                               std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_remove_by_rank_range, rt, inverted, std::move(ctx));
    o.index = rank;
    o.count = count;
    return o;
}

/// Reads: every element equal to v (WILDCARD matches).
inline op
get_by_value(value v, return_type rt, bool inverted = false, std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_get_by_value, rt, inverted, std::move(ctx));
    o.key = std::move(v);
    return o;
}

/// Removes: every element equal to v (WILDCARD matches).
inline op
remove_by_value(value v, return_type rt, bool inverted = false, std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_remove_by_value, rt, inverted, std::move(ctx));
    o.key = std::move(v);
    return o;
}

/// Reads: every element equal to one of values.
inline op get_by_value_list(std::vector<value> values,
                            return_type rt,
                            bool inverted = false,
                            std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_get_by_value_list, rt, inverted, std::move(ctx));
    o.values = std::move(values);
    return o;
}

/// Removes: every element equal to one of values.
inline op remove_by_value_list(std::vector<value> values,
                               return_type rt,
                               bool inverted = false,
                               std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_remove_by_value_list, rt, inverted, std::move(ctx));
    o.values = std::move(values);
    return o;
}

/// Reads: elements in [begin, end): nil begin = lowest, end left out (or INF) = unbounded.
inline op get_by_value_range(value begin,
                             std::optional<value> end,
                             return_type rt,
                             bool inverted = false,
                             std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_get_by_value_range, rt, inverted, std::move(ctx));
    o.begin = std::move(begin);
    o.end = std::move(end);
    return o;
}

/// Removes: elements in [begin, end): nil begin = lowest, end left out (or INF) = unbounded.
inline op remove_by_value_range(value begin,
                                std::optional<value> end,
                                return_type rt,
                                bool inverted = false,
                                std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::list_remove_by_value_range, rt, inverted, std::move(ctx));
    o.begin = std::move(begin);
    o.end = std::move(end);
    return o;
}

/// Reads: ranks [r + rank, r + rank + count), r the rank v has or would have.
inline op get_by_value_rel_rank_range(value v,
                                      std::int64_t rank,
                                      std::optional<std::int64_t> count,
                                      return_type rt,
                                      bool inverted = false,
                                      std::vector<ctx_step> ctx = {}) {
    op o =
        detail::selector(op_code::list_get_by_value_rel_rank_range, rt, inverted, std::move(ctx));
    o.key = std::move(v);
    o.index = rank;
    o.count = count;
    return o;
}

/// Removes: ranks [r + rank, r + rank + count), r the rank v has or would have.
inline op remove_by_value_rel_rank_range(value v,
                                         std::int64_t rank,
                                         std::optional<std::int64_t> count,
                                         return_type rt,
                                         bool inverted = false,
                                         std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(
        op_code::list_remove_by_value_rel_rank_range, rt, inverted, std::move(ctx));
    o.key = std::move(v);
    o.index = rank;
    o.count = count;
    return o;
}

// ------------------------------------------------------------------ contexts

/// Context steps, named as the clients' as_cdt_ctx_add_*.
namespace ctx {
/// The list element at index (negative from the end).
inline ctx_step list_index(std::int64_t index) {
    return ctx_step::list_index(index);
}
/// The list element of value rank (negative from the highest).
inline ctx_step list_rank(std::int64_t rank) {
    return ctx_step::list_rank(rank);
}
/// The first list element equal to v.
inline ctx_step list_value(value v) {
    return ctx_step::list_value(std::move(v));
}
/// The map entry at key index (negative from the end).
inline ctx_step map_index(std::int64_t index) {
    return ctx_step::map_index(index);
}
/// The map entry of value rank (negative from the highest).
inline ctx_step map_rank(std::int64_t rank) {
    return ctx_step::map_rank(rank);
}
/// The map entry of key k.
inline ctx_step map_key(value k) {
    return ctx_step::map_key(std::move(k));
}
/// The first map entry whose value equals v.
inline ctx_step map_value(value v) {
    return ctx_step::map_value(std::move(v));
}
/// Creates the element at index when missing; order and pad describe the list
/// this step indexes into, used only if that list is created too (pad: nil
/// fill up to index; an ORDERED list never pads).
inline ctx_step list_index_create(std::int64_t index, list_order order, bool pad) {
    return ctx_step::list_index_create(index, order, pad);
}
/// Creates the entry at key when missing; order describes the map this step
/// indexes into, used only if that map is created too.
inline ctx_step map_key_create(value k, map_order order) {
    return ctx_step::map_key_create(std::move(k), order);
}
} // namespace ctx

} // namespace kvmodel::cdt::list_ops
