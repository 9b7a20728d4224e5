// kvmodel/cdt/detail/range_return.hpp
//
// The raw return types 9-12 (INDEX_RANGE, REVINDEX_RANGE, RANK_RANGE,
// REVRANK_RANGE), which no client names but 8.1.2 accepts from the wire on
// some selectors (as/include/base/proto.h; cdt.c result_data_set_range,
// result_data_set_not_found), as recorded on the server
// (tests/adapters/data/item7_raw_return_types, 1,280 probes): the answer is
// [start, count] of the selection in the selector's position space (index
// for index and key selectors, rank for rank and value selectors; both on an
// ORDERED list), start mirrored (n - start - count) for 10 and 12.
// INVERTED, a key or value list, a code of the other space when something is
// selected, or a single index / rank out of range is OP_NOT_APPLICABLE;
// nothing selected answers [n, 0] where the server's range path runs (for a
// key, [-1, 0] with 9 and 10; on an UNORDERED list by value with 12, [0, 0])
// and OP_NOT_APPLICABLE where it does not. A remove removes what it selects,
// as with any return type.
//
// What each selector is comes from one table (range_selectors), keyed by op
// code. Cost: two copies of the bin (one for the size and the ORDERED probe,
// one for the selection), then (for a remove) the selection again on the
// bin: O(n) where the op alone may be O(log n); only these rare codes pay it.
#pragma once

#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace kvmodel::cdt::detail {

/// What a selector selects by, as far as the raw range codes care.
enum class range_sel : std::uint8_t {
    index,          // single index: index space, refused when out of range
    index_range,    // index space, range path
    rank,           // single rank: rank space, refused when out of range
    rank_range,     // rank space, range path
    key,            // single key: index space
    key_range,      // index space
    key_rel_index,  // index space
    value,          // rank space
    value_range,    // rank space
    value_rel_rank, // rank space, range path
    item_list,      // key or value list: refused
};

struct range_selector {
    op_code get;    // the read
    op_code remove; // the same selection, removed
    range_sel sel;
};

inline constexpr range_selector range_selectors[] = {
    {op_code::list_get_by_index, op_code::list_remove_by_index, range_sel::index},
    {op_code::list_get_by_index_range, op_code::list_remove_by_index_range, range_sel::index_range},
    {op_code::list_get_by_rank, op_code::list_remove_by_rank, range_sel::rank},
    {op_code::list_get_by_rank_range, op_code::list_remove_by_rank_range, range_sel::rank_range},
    {op_code::list_get_by_value, op_code::list_remove_by_value, range_sel::value},
    {op_code::list_get_by_value_list, op_code::list_remove_by_value_list, range_sel::item_list},
    {op_code::list_get_by_value_range, op_code::list_remove_by_value_range, range_sel::value_range},
    {op_code::list_get_by_value_rel_rank_range,
     op_code::list_remove_by_value_rel_rank_range,
     range_sel::value_rel_rank},
    {op_code::map_get_by_key, op_code::map_remove_by_key, range_sel::key},
    {op_code::map_get_by_key_list, op_code::map_remove_by_key_list, range_sel::item_list},
    {op_code::map_get_by_key_range, op_code::map_remove_by_key_range, range_sel::key_range},
    {op_code::map_get_by_key_rel_index_range,
     op_code::map_remove_by_key_rel_index_range,
     range_sel::key_rel_index},
    {op_code::map_get_by_value, op_code::map_remove_by_value, range_sel::value},
    {op_code::map_get_by_value_list, op_code::map_remove_by_value_list, range_sel::item_list},
    {op_code::map_get_by_value_range, op_code::map_remove_by_value_range, range_sel::value_range},
    {op_code::map_get_by_value_rel_rank_range,
     op_code::map_remove_by_value_rel_rank_range,
     range_sel::value_rel_rank},
    {op_code::map_get_by_index, op_code::map_remove_by_index, range_sel::index},
    {op_code::map_get_by_index_range, op_code::map_remove_by_index_range, range_sel::index_range},
    {op_code::map_get_by_rank, op_code::map_remove_by_rank, range_sel::rank},
    {op_code::map_get_by_rank_range, op_code::map_remove_by_rank_range, range_sel::rank_range},
};

/// Whether o asks for a raw range return type (9-12).
inline bool is_range_return(const op& o) noexcept {
    auto t = static_cast<std::uint32_t>(o.return_type & 0xffff);
    return t - 9U < 4U;
}

/// The table row of a selector op (get or remove), or null.
inline const range_selector* find_range_selector(op_code c) noexcept {
    for (const range_selector& s : range_selectors)
        if (s.get == c || s.remove == c)
            return &s;
    return nullptr;
}

constexpr bool in_index_space(range_sel s) noexcept {
    return s == range_sel::index || s == range_sel::index_range || s == range_sel::key ||
           s == range_sel::key_range || s == range_sel::key_rel_index;
}

/// Answers o (a raw range return type) with apply_plain(bin, op), the
/// engine's ordinary entry point for any op.
template <class Apply>
result<value> apply_range_return(std::optional<value>& bin, const op& o, Apply&& apply_plain) {
    const range_selector* row = find_range_selector(o.code);
    if (row == nullptr)
        return apply_plain(bin, o); // not a selector: the code is not read
    const range_sel sel = row->sel;
    const bool is_map = is_map_op(o.code);
    const auto code = static_cast<std::uint32_t>(o.return_type & 0xffff);
    auto refuse = [&](const char* why) -> result<value> {
        return fail(status::op_not_applicable,
                    std::string(op_name(o.code)) + ": return type " +
                        std::to_string(o.return_type) + " " + why);
    };
    // A missing bin: what any read or remove of one answers.
    if (!bin)
        return apply_plain(bin, o);
    // The container's size, through the op's context: a wrong type or a
    // context that leads nowhere answers as it would with any return type
    // (an error, or a remove through create steps that does nothing).
    op size_op;
    size_op.code = is_map ? op_code::map_size : op_code::list_size;
    size_op.ctx = o.ctx;
    std::optional<value> probe = bin;
    result<value> size = apply_plain(probe, size_op);
    if (!size)
        return apply_plain(bin, o);
    if ((o.return_type & return_inverted) != 0)
        return refuse("is not supported with INVERTED");
    if (sel == range_sel::item_list)
        return refuse("is not supported by a key or value list");
    // An ORDERED list, where index and rank spaces coincide: the one list
    // that refuses an insert at index 0 (done on the copy).
    bool ordered_list = false;
    if (!is_map) {
        op insert_op;
        insert_op.code = op_code::list_insert;
        insert_op.ctx = o.ctx;
        insert_op.index = 0;
        ordered_list = apply_plain(probe, insert_op).code() == status::op_not_applicable;
    }

    // The selection, in the selector's own space, on a copy of the bin.
    const bool index_sel = in_index_space(sel);
    op get = o;
    get.code = row->get;
    get.return_type = static_cast<std::int32_t>(index_sel ? return_type::index : return_type::rank);
    std::optional<value> copy = bin;
    result<value> picked = apply_plain(copy, get);
    if (!picked)
        return picked;
    const std::int64_t n = size->is_int() ? size->as_int() : 0;
    std::int64_t start = 0;
    std::int64_t count = 0;
    if (picked->is_int()) {
        start = picked->as_int();
        count = start >= 0 ? 1 : 0;
    } else if (picked->is_list() && !picked->as_list().empty()) {
        start = INT64_MAX;
        for (const value& p : picked->as_list())
            start = std::min(start, p.as_int());
        count = static_cast<std::int64_t>(picked->as_list().size());
    }
    const bool index_code = code == 9 || code == 10;
    const bool reverse = code == 10 || code == 12;
    if (count == 0) {
        if (sel == range_sel::index || sel == range_sel::rank)
            return refuse("found nothing");
        if (sel == range_sel::key)
            return index_code
                       ? result<value>(value(list{value(std::int64_t{-1}), value(std::int64_t{0})}))
                       : refuse("is not supported by a key");
        const bool range_path =
            !is_map && (sel == range_sel::index_range || sel == range_sel::rank_range ||
                        sel == range_sel::value_rel_rank || ordered_list);
        if (!range_path && index_code != index_sel)
            return refuse("is not supported by this selector");
        const std::int64_t at =
            !is_map && !ordered_list && sel == range_sel::value && reverse ? 0 : n;
        return value(list{value(at), value(std::int64_t{0})});
    }
    if (!ordered_list && index_code != index_sel)
        return refuse("is not supported by this selector");
    if (reverse)
        start = n - start - count;
    if (o.code == row->remove) {
        op rm = o;
        rm.return_type = static_cast<std::int32_t>(return_type::none);
        result<value> r = apply_plain(bin, rm);
        if (!r)
            return r;
    }
    return value(list{value(start), value(count)});
}

} // namespace kvmodel::cdt::detail
