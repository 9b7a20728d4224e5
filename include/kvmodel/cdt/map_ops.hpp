// kvmodel/cdt/map_ops.hpp
//
// Builders for every map operation, named after Aerospike's client API
// (as_operations_map_* / MapOperation.*): each returns a cdt::op ready for
// cdt::apply (cdt/engine.hpp) or a store's operate(). Nothing here touches a
// map; building an op is O(size of its arguments).
//
//   auto o = cdt::map_ops::get_by_rank_range(-3, 3, cdt::return_type::key_value);
//   auto r = cdt::apply(bin, o);  // the 3 highest-ranked entries, in rank order
//
// Conventions, as in the clients: a `count` left out (std::nullopt) means "to
// the end"; a range `end` left out is unbounded and a nil `begin` is the
// lowest value; `inverted` selects the complement; `ctx` addresses a map
// nested in the bin (cdt::ctx_step). The map policy's order only applies when
// the op creates the map; its write flags (or a legacy write mode, which then
// replaces the flags) decide what a put may do. Semantics: cdt/detail/map_engine.hpp.
#pragma once

#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/value.hpp>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace kvmodel::cdt::map_ops {

/// A map policy with an order and write flags (as_map_policy_set_flags).
inline map_policy
policy(map_order order, std::uint32_t flags = map_write_flags::none, bool persist_index = false) {
    map_policy p;
    p.order = order;
    p.flags = flags;
    p.persist_index = persist_index;
    return p;
}

/// A map policy with a legacy write mode (as_map_policy_set): UPDATE puts,
/// UPDATE_ONLY replaces (never creates), CREATE_ONLY adds (never overwrites).
inline map_policy policy(map_order order, map_write_mode mode) {
    map_policy p;
    p.order = order;
    p.mode = mode;
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

/// Creates the map with an order (at the top level: sets its order, as the
/// clients encode it). Returns nil.
inline op create(map_order order, bool persist_index = false, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::map_create, std::move(ctx));
    o.morder = order;
    o.persist_index = persist_index;
    o.mpolicy.order = order;
    o.mpolicy.persist_index = persist_index;
    return o;
}

/// Sets the map's order (and persisted index), converting it in place;
/// creates an empty map when there is none. Returns nil.
inline op set_policy(map_order order, bool persist_index = false, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::map_set_policy, std::move(ctx));
    o.morder = order;
    o.persist_index = persist_index;
    o.mpolicy.order = order;
    o.mpolicy.persist_index = persist_index;
    return o;
}

/// Writes key → val. Returns the map's size (also when NO_FAIL skipped the write).
inline op put(value key, value val, const map_policy& p = {}, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::map_put, std::move(ctx));
    o.key = std::move(key);
    o.val = std::move(val);
    o.mpolicy = p;
    return o;
}

/// Writes every pair. Returns the map's size.
inline op put_items(std::vector<std::pair<value, value>> items,
                    const map_policy& p = {},
                    std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::map_put_items, std::move(ctx));
    o.items = std::move(items);
    o.mpolicy = p;
    return o;
}

/// Adds delta (int or double; nil = 1) to the number at key, creating it from
/// 0. Returns the new value. The policy's flags do not apply, its order does.
inline op
increment(value key, value delta, const map_policy& p = {}, std::vector<ctx_step> ctx = {}) {
    op o = detail::make(op_code::map_increment, std::move(ctx));
    o.key = std::move(key);
    o.val = std::move(delta);
    o.mpolicy = p;
    return o;
}

/// Subtracts delta from the number at key, creating it from 0. Returns the new value.
inline op
decrement(value key, value delta, const map_policy& p = {}, std::vector<ctx_step> ctx = {}) {
    op o = increment(std::move(key), std::move(delta), p, std::move(ctx));
    o.code = op_code::map_decrement;
    return o;
}

/// Removes every entry, keeping the map and its order. Returns nil.
inline op clear(std::vector<ctx_step> ctx = {}) {
    return detail::make(op_code::map_clear, std::move(ctx));
}

/// The number of entries (nil for an absent bin).
inline op size(std::vector<ctx_step> ctx = {}) {
    return detail::make(op_code::map_size, std::move(ctx));
}

// ------------------------------------------------------------------ selectors
//
// get_by_X reads, remove_by_X removes the selection and returns the same
// result. Single-result selectors (by key, index, rank) return a scalar and
// refuse INVERTED; the others return a list (or map).

/// Reads: the entry at key.
inline op
get_by_key(value key, return_type rt, bool inverted = false, std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_get_by_key, rt, inverted, std::move(ctx));
    o.key = std::move(key);
    return o;
}

/// Removes: the entry at key.
inline op
remove_by_key(value key, return_type rt, bool inverted = false, std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_remove_by_key, rt, inverted, std::move(ctx));
    o.key = std::move(key);
    return o;
}

/// Reads: the entries at any of the keys.
inline op get_by_key_list(std::vector<value> keys,
                          return_type rt,
                          bool inverted = false,
                          std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_get_by_key_list, rt, inverted, std::move(ctx));
    o.values = std::move(keys);
    return o;
}

/// Removes: the entries at any of the keys.
inline op remove_by_key_list(std::vector<value> keys,
                             return_type rt,
                             bool inverted = false,
                             std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_remove_by_key_list, rt, inverted, std::move(ctx));
    o.values = std::move(keys);
    return o;
}

/// Reads: keys in [begin, end): nil begin = lowest, end left out (or INF) = unbounded.
inline op get_by_key_range(value begin,
                           std::optional<value> end,
                           return_type rt,
                           bool inverted = false,
                           std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_get_by_key_range, rt, inverted, std::move(ctx));
    o.begin = std::move(begin);
    o.end = std::move(end);
    return o;
}

/// Removes: keys in [begin, end): nil begin = lowest, end left out (or INF) = unbounded.
inline op remove_by_key_range(value begin,
                              std::optional<value> end,
                              return_type rt,
                              bool inverted = false,
                              std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_remove_by_key_range, rt, inverted, std::move(ctx));
    o.begin = std::move(begin);
    o.end = std::move(end);
    return o;
}

/// Reads: indexes [i + index, i + index + count), where i is the index key has or
/// would have.
inline op get_by_key_rel_index_range(value key,
                                     std::int64_t index,
                                     std::optional<std::int64_t> count,
                                     return_type rt,
                                     bool inverted = false,
                                     std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_get_by_key_rel_index_range, rt, inverted, std::move(ctx));
    o.key = std::move(key);
    o.index = index;
    o.count = count;
    return o;
}

/// Removes: indexes [i + index, i + index + count), where i is the index key has or
/// would have.
inline op remove_by_key_rel_index_range(value key,
                                        std::int64_t index,
                                        std::optional<std::int64_t> count,
                                        return_type rt,
                                        bool inverted = false,
                                        std::vector<ctx_step> ctx = {}) {
    op o =
        detail::selector(op_code::map_remove_by_key_rel_index_range, rt, inverted, std::move(ctx));
    o.key = std::move(key);
    o.index = index;
    o.count = count;
    return o;
}

/// Reads: every entry whose value equals val (a WILDCARD in val matches anything).
inline op
get_by_value(value val, return_type rt, bool inverted = false, std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_get_by_value, rt, inverted, std::move(ctx));
    o.key = std::move(val);
    return o;
}

/// Removes: every entry whose value equals val (a WILDCARD in val matches anything).
inline op
remove_by_value(value val, return_type rt, bool inverted = false, std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_remove_by_value, rt, inverted, std::move(ctx));
    o.key = std::move(val);
    return o;
}

/// Reads: every entry whose value equals one of values.
inline op get_by_value_list(std::vector<value> values,
                            return_type rt,
                            bool inverted = false,
                            std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_get_by_value_list, rt, inverted, std::move(ctx));
    o.values = std::move(values);
    return o;
}

/// Removes: every entry whose value equals one of values.
inline op remove_by_value_list(std::vector<value> values,
                               return_type rt,
                               bool inverted = false,
                               std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_remove_by_value_list, rt, inverted, std::move(ctx));
    o.values = std::move(values);
    return o;
}

/// Reads: values in [begin, end): nil begin = lowest, end left out (or INF) = unbounded.
inline op get_by_value_range(value begin,
                             std::optional<value> end,
                             return_type rt,
                             bool inverted = false,
                             std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_get_by_value_range, rt, inverted, std::move(ctx));
    o.begin = std::move(begin);
    o.end = std::move(end);
    return o;
}

/// Removes: values in [begin, end): nil begin = lowest, end left out (or INF) = unbounded.
inline op remove_by_value_range(value begin,
                                std::optional<value> end,
                                return_type rt,
                                bool inverted = false,
                                std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_remove_by_value_range, rt, inverted, std::move(ctx));
    o.begin = std::move(begin);
    o.end = std::move(end);
    return o;
}

/// Reads: ranks [r + rank, r + rank + count), where r is the rank val has or would
/// have.
inline op get_by_value_rel_rank_range(value val,
                                      std::int64_t rank,
                                      std::optional<std::int64_t> count,
                                      return_type rt,
                                      bool inverted = false,
                                      std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_get_by_value_rel_rank_range, rt, inverted, std::move(ctx));
    o.key = std::move(val);
    o.index = rank;
    o.count = count;
    return o;
}

/// Removes: ranks [r + rank, r + rank + count), where r is the rank val has or would
/// have.
inline op remove_by_value_rel_rank_range(value val,
                                         std::int64_t rank,
                                         std::optional<std::int64_t> count,
                                         return_type rt,
                                         bool inverted = false,
                                         std::vector<ctx_step> ctx = {}) {
    op o =
        detail::selector(op_code::map_remove_by_value_rel_rank_range, rt, inverted, std::move(ctx));
    o.key = std::move(val);
    o.index = rank;
    o.count = count;
    return o;
}

/// Reads: the entry at index (key order; negative counts from the end).
inline op get_by_index(std::int64_t index,
                       return_type rt,
                       bool inverted = false,
                       std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_get_by_index, rt, inverted, std::move(ctx));
    o.index = index;
    return o;
}

/// Removes: the entry at index (key order; negative counts from the end).
inline op remove_by_index(std::int64_t index,
                          return_type rt,
                          bool inverted = false,
                          std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_remove_by_index, rt, inverted, std::move(ctx));
    o.index = index;
    return o;
}

/// Reads: indexes [index, index + count), clipped to the map.
inline op get_by_index_range(std::int64_t index,
                             std::optional<std::int64_t> count,
                             return_type rt,
                             bool inverted = false,
                             std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_get_by_index_range, rt, inverted, std::move(ctx));
    o.index = index;
    o.count = count;
    return o;
}

/// Removes: indexes [index, index + count), clipped to the map.
inline op remove_by_index_range(std::int64_t index,
                                std::optional<std::int64_t> count,
                                return_type rt,
                                bool inverted = false,
                                std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_remove_by_index_range, rt, inverted, std::move(ctx));
    o.index = index;
    o.count = count;
    return o;
}

/// Reads: the entry of value rank `rank` (ties by key; negative counts from the top).
inline op get_by_rank(std::int64_t rank,
                      return_type rt,
                      bool inverted = false,
                      std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_get_by_rank, rt, inverted, std::move(ctx));
    o.index = rank;
    return o;
}

/// Removes: the entry of value rank `rank` (ties by key; negative counts from the top).
inline op remove_by_rank(std::int64_t rank,
                         return_type rt,
                         bool inverted = false,
                         std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_remove_by_rank, rt, inverted, std::move(ctx));
    o.index = rank;
    return o;
}

/// Reads: ranks [rank, rank + count), clipped to the map.
inline op get_by_rank_range(std::int64_t rank,
                            std::optional<std::int64_t> count,
                            return_type rt,
                            bool inverted = false,
                            std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_get_by_rank_range, rt, inverted, std::move(ctx));
    o.index = rank;
    o.count = count;
    return o;
}

/// Removes: ranks [rank, rank + count), clipped to the map.
inline op remove_by_rank_range(std::int64_t rank,
                               std::optional<std::int64_t> count,
                               return_type rt,
                               bool inverted = false,
                               std::vector<ctx_step> ctx = {}) {
    op o = detail::selector(op_code::map_remove_by_rank_range, rt, inverted, std::move(ctx));
    o.index = rank;
    o.count = count;
    return o;
}

} // namespace kvmodel::cdt::map_ops
