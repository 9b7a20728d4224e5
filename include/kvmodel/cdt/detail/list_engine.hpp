// kvmodel/cdt/detail/list_engine.hpp
//
// The list half of the CDT engine: every Aerospike list operation applied to a
// target that is already reached (no context; cdt/context.hpp resolves those
// and calls in here on the nested value). Results, result shapes and result
// ORDER are the server's (aerospike-server 8.1.x, as/src/base/particle_list.c),
// path by path, quirks included; AEROSPIKE-CDT.md summarises the rules and
// tests/cdt/list_engine_test.cpp pins each one down.
//
// Server paths the engine reproduces (results depend on them):
//  * ORDERED lists answer rank and value selections through the index path
//    (rank = index there); UNORDERED lists through the rank path, whose VALUE
//    results of a rank window come from a heap: in DESCENDING rank order when
//    the window sits nearer the low end (rank <= n - rank - count), else
//    ascending (AEROSPIKE-CDT.md §13).
//  * Which of several equal values a rank window of an UNORDERED list holds
//    when they straddle its edge is the server's order heap's choice, not
//    list order (AEROSPIKE-CDT.md §2 says ties go by index; 8.1.2 answers
//    get_by_rank(3) INDEX on [2, 1, 2, 1, 2] with 4, not 2): list_heap_window
//    replays that heap, for rank selections and list_rank context steps.
//  * RANK / REVERSE_RANK of an index selection on an UNORDERED list report
//    each element's count of strictly smaller elements (equal values share a
//    rank), in list order; when the selection is the whole list, 0..n-1.
//  * A reversed run of positions (REVERSE_INDEX / REVERSE_RANK of a range)
//    comes out ascending; a reversed per-element list (mask paths) descending.
//  * INVERTED EXISTS on the unordered value-interval and rank-range paths is
//    "the non-inverted selection is empty" (the server tests count == 0 there);
//    every other path answers "the complement is not empty".
//  * insert, insert_items and set on an ORDERED list fail OP_NOT_APPLICABLE
//    (the server refuses them; append is the way to add to an ordered list).
//  * insert past the end of an UNORDERED list pads with nil; INSERT_BOUNDED
//    refuses it. ADD_UNIQUE with items that repeat among themselves fails
//    OP_NOT_APPLICABLE unless NO_FAIL.
//
// Departures (documented, tested):
//  * Padding (insert/set/increment past the end) is refused with
//    RECORD_TOO_BIG before anything is allocated when the list would hold more
//    elements than the record size limit has bytes (each element takes at
//    least one byte). The server allocates first and fails later, or crashes.
//  * The internal result types 9-12 (INDEX_RANGE ...), which no client API
//    sends, are answered as 8.1.2 answers them by detail/range_return.hpp
//    (engine.hpp routes them there before this engine sees them).
//  * Overlapping WILDCARD items in a value list: each element's rank is
//    credited to the last item (argument order) it matches.
//
// Costs on a list of n elements with k selected or returned (once it needs one, the list keeps
// a (value, position) rank index, and a position index unless its values are sorted, as an
// ORDERED list's are; see core/detail/containers.hpp; short lists are vectors):
//   by index (single), size                      O(log n)  (O(1) on a flat list)
//   index range                                  O(log n + k)
//   by rank/value/value range/relative, ORDERED  O(log n + k)
//   the same on UNORDERED lists                  O(log n + k log n) when the
//                                                result needs positions (INDEX,
//                                                list-order VALUE, removal);
//                                                O(n log n) when equal values
//                                                straddle a rank window's edge
//                                                (the server's heap is replayed)
//   value list of m items                        O(m log n + k log n)
//   append / insert one                          O(1) amortised on a flat list,
//                                                O(log n) once indexed
//   remove k                                     O(k log n)
// A list that needs its rank index and has none builds it once, O(n log n).
//
// Guarantees: a failing op leaves the target exactly as it was (every check runs
// before anything is written); results are built from the list as it was.
#pragma once

#include <kvmodel/cdt/detail/common.hpp>
#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::cdt::detail {

/// What one application of a list op needs besides the list, and what it
/// reports back to a context.
struct list_run {
    /// The bin's record size limit: padding beyond it is RECORD_TOO_BIG.
    std::size_t max_record_size = default_max_record_size;
    /// False below the top level: a persisted index exists only on a bin's list.
    bool top_level = true;
    /// Set when the op wrote the list (even leaving it as it was, as the
    /// server's "possible no-op" writes do); a create context keeps the
    /// container it created only then.
    bool wrote = false;
};

// ------------------------------------------------------------------ helpers

/// The wire return type as the server splits it (low 16 bits the type, bit 16
/// INVERTED, other bits ignored), into d; false for a type lists do not have.
inline bool decode_list_return(std::int32_t wire, decoded_return& d) noexcept {
    d.inverted = (wire & return_inverted) != 0;
    switch (wire & 0xffff) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 7:
    case 13:
        d.type = static_cast<return_type>(wire & 0xffff);
        return true;
    default:
        return false;
    }
}

/// Reverses values in place: a loop of swaps, not the std::reverse family
/// (its iterator and swap functions in every header-only TU).
inline void list_reverse(std::vector<value>& v) {
    for (std::size_t i = 0, j = v.size(); i + 1 < j; ++i, --j)
        std::swap(v[i], v[j - 1]);
}

// The server's index arithmetic, exactly (particle_list.c reads counts as
// uint64 and defaults a missing one to UINT32_MAX; cdt.c's
// calc_index_count_multi and calc_rel_index_count): at the int64 extremes a
// "negative" count is a finite uint64 that an overshoot can eat up.

/// The wire count: as uint64, UINT32_MAX when left out.
inline std::uint64_t list_wire_count(const std::optional<std::int64_t>& count) noexcept {
    return count ? static_cast<std::uint64_t>(*count) : std::uint64_t{0xffffffff};
}

/// calc_index_count_multi: (index, count) over n elements.
inline window list_index_window(std::int64_t index, std::uint64_t count, std::size_t n) noexcept {
    auto sn = static_cast<std::int64_t>(n);
    if (index >= sn)
        return {n, n};
    if (index < 0)
        index += sn;
    if (index < 0) {
        std::uint64_t overshoot = std::uint64_t{0} - static_cast<std::uint64_t>(index);
        if (overshoot >= count)
            return {0, 0};
        std::uint64_t c = count - overshoot;
        return {0, c < n ? static_cast<std::size_t>(c) : n};
    }
    auto b = static_cast<std::size_t>(index);
    std::size_t room = n - b;
    return {b, b + (count < room ? static_cast<std::size_t>(count) : room)};
}

/// calc_rel_index_count, then calc_index_count_multi: ranks [anchor + rel,
/// anchor + rel + count) over n elements.
inline window
list_rel_window(std::size_t anchor, std::int64_t rel, std::uint64_t count, std::size_t n) noexcept {
    // A start past INT64_MAX is past any end (the server's sum would overflow).
    if (rel > 0 &&
        static_cast<std::int64_t>(anchor) > std::numeric_limits<std::int64_t>::max() - rel)
        return {n, n};
    std::int64_t start = static_cast<std::int64_t>(anchor) + rel;
    if (start < 0) {
        std::uint64_t overshoot = std::uint64_t{0} - static_cast<std::uint64_t>(start);
        count = count > overshoot ? count - overshoot : 0;
        start = 0;
    }
    return list_index_window(start, count, n);
}

inline value list_int(std::size_t i) {
    return value(static_cast<std::int64_t>(i));
}
inline value list_of(std::vector<value> items) {
    return value(list(std::move(items)));
}

inline bool is_rev(return_type t) noexcept {
    return t == return_type::reverse_index || t == return_type::reverse_rank;
}
inline bool is_index_type(return_type t) noexcept {
    return t == return_type::index || t == return_type::reverse_index;
}
inline bool is_rank_type(return_type t) noexcept {
    return t == return_type::rank || t == return_type::reverse_rank;
}

/// `c` consecutive positions from `s`; a reversed run stays ascending, as the
/// server's cdt_container_builder_add_int_range emits it.
inline void
list_emit_run(std::vector<value>& out, std::size_t s, std::size_t c, std::size_t n, bool rev) {
    std::size_t first = rev ? n - s - c : s;
    for (std::size_t i = 0; i < c; ++i)
        out.push_back(list_int(first + i));
}
/// One position, reversed element by element (n - 1 - i).
inline value list_pos(std::size_t i, std::size_t n, bool rev) {
    return list_int(rev ? n - 1 - i : i);
}

/// The not-found result (server: list_result_data_set_not_found).
inline value list_not_found(return_type t, bool multi) {
    switch (t) {
    case return_type::index:
    case return_type::reverse_index:
    case return_type::rank:
    case return_type::reverse_rank:
        return multi ? list_of({}) : value(std::int64_t{-1});
    case return_type::count:
        return value(std::int64_t{0});
    case return_type::exists:
        return value(false);
    case return_type::value:
        return multi ? list_of({}) : value();
    default:
        return value();
    }
}

/// The server's result_data_set_index_rank_count: a window [s, s + c) of
/// positions or ranks, complemented when inverted.
inline value list_index_rank_count(
    return_type t, bool multi, bool inverted, std::size_t s, std::size_t c, std::size_t n) {
    switch (t) {
    case return_type::count:
        return list_int(inverted ? n - c : c);
    case return_type::exists:
        return value(inverted ? c == 0 : c != 0);
    case return_type::index:
    case return_type::reverse_index:
    case return_type::rank:
    case return_type::reverse_rank: {
        bool rev = is_rev(t);
        if (!multi) {
            if (c == 0)
                return value(std::int64_t{-1});
            return list_int(rev ? n - s - 1 : s);
        }
        std::vector<value> out;
        if (inverted) {
            list_emit_run(out, 0, s, n, rev);
            list_emit_run(out, s + c, n - s - c, n, rev);
        } else {
            list_emit_run(out, s, c, n, rev);
        }
        return list_of(std::move(out));
    }
    default:
        return value();
    }
}

/// Positions (ascending, unique) → per-element results in list order.
inline value
list_by_positions(const list& l, return_type t, bool multi, const std::vector<std::size_t>& pos) {
    std::size_t n = l.size();
    if (t == return_type::value) {
        if (!multi)
            return l[pos.front()];
        std::vector<value> out;
        out.reserve(pos.size());
        for (std::size_t p : pos)
            out.push_back(l[p]);
        return list_of(std::move(out));
    }
    // INDEX / REVERSE_INDEX (and RANK where rank == index, ORDERED lists)
    bool rev = is_rev(t);
    if (!multi)
        return list_pos(pos.front(), n, rev);
    std::vector<value> out;
    out.reserve(pos.size());
    for (std::size_t p : pos)
        out.push_back(list_pos(p, n, rev));
    return list_of(std::move(out));
}

/// The complement of sorted unique positions within [0, n). O(n).
inline std::vector<std::size_t> list_complement(const std::vector<std::size_t>& pos,
                                                std::size_t n) {
    std::vector<std::size_t> out;
    out.reserve(n - pos.size());
    std::size_t j = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (j < pos.size() && pos[j] == i)
            ++j;
        else
            out.push_back(i);
    }
    return out;
}

/// The positions the server's order heap picks for ranks [b, b + c) of an
/// UNORDERED list, in the heap's layout (server: cdt.c
/// order_heap_init_build_by_range_temp). A binary heap over the positions is
/// built (a min-heap when the window sits nearer the low end, else a max-heap)
/// and the `discard` elements beyond the window's near side and then the c of
/// the window are popped to the array's end; among equal values, which ones
/// land in the window is the heap's doing, not list order. O(n + (c +
/// discard) log n) comparisons.
inline std::vector<std::size_t> list_heap_window(const list& l, std::size_t b, std::size_t c) {
    const std::size_t n = l.size();
    const std::size_t tail = n - b - c;
    const bool min_heap = b <= tail;
    const std::size_t discard = min_heap ? b : tail;
    std::vector<const value*> at(n);
    {
        std::size_t i = 0;
        for (const value& v : l)
            at[i++] = &v;
    }
    // Whether x wins over y: strictly smaller in a min-heap, larger in a max-heap.
    auto wins = [&](std::size_t x, std::size_t y) {
        int cmp = kvmodel::detail::list_compare(*at[x], *at[y], false);
        return min_heap ? cmp < 0 : cmp > 0;
    };
    std::vector<std::size_t> h(n);
    for (std::size_t i = 0; i < n; ++i)
        h[i] = i;
    std::size_t filled = n;
    auto heapify = [&](std::size_t i) {
        while (true) {
            std::size_t c1 = 2 * i + 1;
            std::size_t c2 = 2 * i + 2;
            if (c1 >= filled)
                break;
            // The left child unless the right one is strictly better (server's heapify).
            std::size_t child = c2 < filled && wins(h[c2], h[c1]) ? c2 : c1;
            if (!wins(h[child], h[i]))
                break;
            std::swap(h[i], h[child]);
            i = child;
        }
    };
    for (std::size_t i = n / 2; i-- > 0;)
        heapify(i);
    for (std::size_t k = 0; k < c + discard; ++k) {
        std::size_t top = h[0];
        h[0] = h[--filled];
        heapify(0);
        h[filled] = top;
    }
    return {h.begin() + static_cast<std::ptrdiff_t>(filled),
            h.begin() + static_cast<std::ptrdiff_t>(filled + c)};
}

/// Whether f(r) holds at an inner edge r of the rank window [a, b) (a
/// non-empty window's edges other than 0 and n).
template <class F>
bool list_any_inner_edge(const list& l, std::size_t a, std::size_t b, F f) {
    return a < b && ((a > 0 && f(a)) || (b < l.size() && f(b)));
}

/// Whether equal values straddle an edge of the rank window [a, b) of an
/// UNORDERED list: then which of them the window holds is the server's
/// heap's choice (list_heap_window); otherwise the window's elements are
/// exactly those of its values.
inline bool list_window_splits_ties(const list& l, std::size_t a, std::size_t b) {
    return list_any_inner_edge(l, a, b, [&](std::size_t r) { // ranks r - 1 and r hold equal values
        return kvmodel::detail::list_compare(l.value_at_rank(r - 1), l.value_at_rank(r), false) == 0;
    });
}

/// Whether a and b are the same value bit for bit: compare() == 0 holds for
/// -0.0 and 0.0 (and containers holding them), which still differ.
inline bool list_same_bits(const value& a, const value& b) {
    if (a.is_double() && b.is_double())
        return std::signbit(a.as_double()) == std::signbit(b.as_double()) &&
               a.as_double() == b.as_double();
    if (a.is_list() && b.is_list()) {
        const list& x = a.as_list();
        const list& y = b.as_list();
        if (x.size() != y.size())
            return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!list_same_bits(x[i], y[i]))
                return false;
        return true;
    }
    if (a.is_map() && b.is_map()) {
        const map& x = a.as_map();
        const map& y = b.as_map();
        if (x.size() != y.size())
            return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!list_same_bits(x.entry_at(i).key, y.entry_at(i).key) ||
                !list_same_bits(x.entry_at(i).val, y.entry_at(i).val))
                return false;
        return true;
    }
    return a == b;
}

/// Whether equal values of v's type may still differ: doubles (-0.0, 0.0)
/// and containers that may hold them.
inline bool list_may_tie_distinctly(const value& v) noexcept {
    return v.is_double() || v.is_list() || v.is_map();
}

/// Whether values in rank order hold equal neighbours that differ (see
/// list_same_bits): then the order among them is observable.
inline bool list_distinct_ties(const std::vector<value>& by_rank) {
    for (std::size_t i = 1; i < by_rank.size(); ++i)
        if (list_may_tie_distinctly(by_rank[i]) &&
            kvmodel::detail::list_compare(by_rank[i - 1], by_rank[i], false) == 0 &&
            !list_same_bits(by_rank[i - 1], by_rank[i]))
            return true;
    return false;
}

/// Whether a group of equal values straddling an edge of the rank window
/// [a, b) of an UNORDERED list holds values that differ: then which of them
/// the window holds is observable. O(group size) per split edge.
inline bool list_edge_ties_distinct(const list& l, std::size_t a, std::size_t b) {
    auto group_distinct = [&](std::size_t r) { // the group holding ranks r - 1 and r
        const value& v = l.value_at_rank(r);
        if (!list_may_tie_distinctly(v) ||
            kvmodel::detail::list_compare(l.value_at_rank(r - 1), v, false) != 0)
            return false;
        return list_distinct_ties(l.values_by_rank(l.count_less(v), l.count_less_equal(v)));
    };
    return list_any_inner_edge(l, a, b, group_distinct);
}

/// Positions of ranks [a, b), ascending, for a window whose edges split no
/// equal values (a value interval's). O((b - a) log n).
inline std::vector<std::size_t>
list_positions_of_ranks(const list& l, std::size_t a, std::size_t b) {
    std::vector<std::size_t> pos = l.indexes_by_rank(a, b);
    std::sort(pos.begin(), pos.end());
    return pos;
}

/// Positions of the rank window [a, b) of an UNORDERED list, ascending: the
/// elements the server selects, ties included. O((b - a) log n) unless equal
/// values straddle the window's edges (then the server's heap, O(n log n)).
inline std::vector<std::size_t>
list_positions_of_rank_window(const list& l, std::size_t a, std::size_t b) {
    if (!list_window_splits_ties(l, a, b))
        return list_positions_of_ranks(l, a, b);
    std::vector<std::size_t> pos = list_heap_window(l, a, b - a);
    std::sort(pos.begin(), pos.end());
    return pos;
}

/// Removes sorted positions; an emptied list keeps its order but, as the
/// server rebuilds it from its order flag alone, loses a persisted index.
inline void list_remove_positions(list& l, const std::vector<std::size_t>& pos) {
    if (pos.empty())
        return;
    l.erase_positions(pos);
    if (l.empty())
        l.set_persist_index(false);
}
inline void list_remove_window(list& l, std::size_t b, std::size_t e) {
    if (b >= e)
        return;
    l.erase(b, e);
    if (l.empty())
        l.set_persist_index(false);
}

/// The first position holding a value equal to v (no WILDCARD in v), if any.
inline std::optional<std::size_t> list_first_equal(const list& l, const value& v) {
    std::size_t lo = l.count_less(v);
    if (l.count_less_equal(v) == lo)
        return std::nullopt;
    // Equal values rank by position, so the lowest rank is the first one.
    return l.index_at_rank(lo);
}

/// Builds the rank index of a long list the op is about to rank (no effect on
/// the content; a short list answers by scanning).
inline void list_prepare_ranks(list& l) {
    l.build_index();
}

// ------------------------------------------------------------------ selectors

/// One selector applied to one list, exactly as the server's
/// packed_list_get_remove_* functions answer it. `remove` applies the removal.
class list_selection {
public:
    list_selection(list& l, op_code code, decoded_return rt, bool remove, list_run& run)
        : m_l(l)
        , m_code(code)
        , m_rt(rt)
        , m_remove(remove)
        , m_run(run) {}

    /// Index path (server: packed_list_get_remove_by_index_range) on an
    /// already computed window; `multi` false for single-element ops.
    result<value> by_index_window(window w, bool multi) {
        std::size_t n = m_l.size();
        return_type t = m_rt.type;
        if (m_rt.inverted) {
            if (!multi)
                return inverted_single();
            std::size_t b = w.begin;
            std::size_t c = w.size();
            if (c == 0)
                w = {0, n};
            else if (b == 0)
                w = {c, n};
            else if (b + c >= n)
                w = {0, b};
            else
                return trim_path(b, c);
        }
        std::size_t b = w.begin;
        std::size_t c = w.size();
        if (c == 0)
            return list_not_found(t, multi);
        value out;
        switch (t) {
        case return_type::none:
            break;
        case return_type::count:
        case return_type::exists:
        case return_type::index:
        case return_type::reverse_index:
            out = list_index_rank_count(t, multi, false, b, c, n);
            break;
        case return_type::rank:
        case return_type::reverse_rank:
            if (c == n || m_l.is_ordered())
                out = list_index_rank_count(t, multi, false, c == n ? 0 : b, c, n);
            else
                out = unordered_ranks_of(b, c, multi);
            break;
        case return_type::value:
            // An indexed ORDERED list reads through its value index (rank =
            // position there): one tree walk, as a sorted container would.
            if (!multi) {
                out = m_l.is_ordered() && m_l.has_index() ? m_l.value_at_rank(b) : m_l[b];
            } else if (m_l.is_ordered() && m_l.has_index()) {
                out = list_of(m_l.values_by_rank(b, b + c));
            } else {
                std::vector<value> vals;
                vals.reserve(c);
                auto it = m_l.begin() + static_cast<std::ptrdiff_t>(b);
                for (std::size_t i = 0; i < c; ++i, ++it)
                    vals.push_back(*it);
                out = list_of(std::move(vals));
            }
            break;
        default:
            break;
        }
        if (m_remove) {
            list_remove_window(m_l, b, b + c);
            m_run.wrote = true;
        }
        return out;
    }

    /// Single index: out of range fails.
    result<value> by_index(std::int64_t index) {
        std::optional<std::size_t> p = single_position(index, m_l.size());
        if (!p)
            return out_of_range("index", index);
        if (m_rt.inverted)
            return inverted_single();
        return by_index_window({*p, *p + 1}, false);
    }
    result<value> by_index_range(std::int64_t index, const std::optional<std::int64_t>& count) {
        return by_index_window(list_index_window(index, list_wire_count(count), m_l.size()), true);
    }

    /// Rank path (server: packed_list_get_remove_by_rank_range).
    result<value> by_rank(std::int64_t rank) {
        std::optional<std::size_t> p = single_position(rank, m_l.size());
        if (!p)
            return out_of_range("rank", rank);
        if (m_rt.inverted)
            return inverted_single();
        if (m_l.is_ordered())
            return by_index_window({*p, *p + 1}, false);
        return by_rank_window({*p, *p + 1}, false);
    }
    result<value> by_rank_range(std::int64_t rank, const std::optional<std::int64_t>& count) {
        window w = list_index_window(rank, list_wire_count(count), m_l.size());
        if (m_l.is_ordered())
            return by_index_window(w, true);
        return by_rank_window(w, true);
    }

    /// Value interval (server: packed_list_get_remove_by_value_interval):
    /// [start, end), end absent = unbounded; single_value selects == start.
    result<value>
    by_value_interval(const value& start, const std::optional<value>& end, bool single_value) {
        std::size_t n = m_l.size();
        if (m_l.is_ordered() && m_rt.type == return_type::value && !m_rt.inverted && !m_remove &&
            !single_value) {
            // Reading values of an ORDERED list: the walk between the two
            // bounds is the rank window the index path would select.
            if (end && kvmodel::detail::list_compare(start, *end, true) >= 0)
                return list_of({});
            return list_of(m_l.values_between(start, end ? &*end : nullptr));
        }
        std::size_t lo = m_l.count_less(start);
        if (m_l.is_ordered()) {
            std::size_t count = 0;
            if (single_value)
                count = m_l.count_less_equal(start) - lo;
            else if (!end)
                count = n - lo;
            else if (kvmodel::detail::list_compare(start, *end, true) < 0)
                count = std::max(m_l.count_less(*end), lo) - lo;
            return by_index_window({lo, lo + count}, true);
        }
        // Unordered: elements >= start and (== start | < end); no early exit
        // when start >= end, as the server's scan has none.
        std::size_t hi = single_value ? m_l.count_less_equal(start)
                                      : (end ? std::max(m_l.count_less(*end), lo) : n);
        std::size_t m = hi - lo;
        bool inv = m_rt.inverted;
        std::size_t rm_count = inv ? n - m : m;
        return_type t = m_rt.type;
        value out;
        std::vector<std::size_t> pos;
        bool need_pos = (m_remove && rm_count != 0) || is_index_type(t) || t == return_type::value;
        if (need_pos) {
            pos = list_positions_of_ranks(m_l, lo, hi);
            if (inv)
                pos = list_complement(pos, n);
        }
        switch (t) {
        case return_type::none:
        case return_type::count:
        case return_type::exists:
        case return_type::rank:
        case return_type::reverse_rank:
            out = list_index_rank_count(t, true, inv, lo, m, n);
            break;
        case return_type::index:
        case return_type::reverse_index:
        case return_type::value:
            out = list_by_positions(m_l, t, true, pos);
            break;
        default:
            break;
        }
        if (m_remove && rm_count != 0) {
            list_remove_positions(m_l, pos);
            m_run.wrote = true;
        }
        return out;
    }

    /// Relative rank (server: packed_list_get_remove_by_rel_rank_range).
    result<value> by_value_rel_rank_range(const value& v,
                                          std::int64_t rel,
                                          const std::optional<std::int64_t>& count) {
        std::size_t anchor = m_l.count_less(v);
        window w = list_rel_window(anchor, rel, list_wire_count(count), m_l.size());
        if (m_l.is_ordered())
            return by_index_window(w, true);
        return by_rank_window(w, true);
    }

    /// Value list (server: packed_list_get_remove_all_by_value_list).
    result<value> by_value_list(const std::vector<value>& items) {
        std::size_t n = m_l.size();
        return_type t = m_rt.type;
        bool inv = m_rt.inverted;
        if (items.empty()) {
            if (!inv)
                return list_not_found(t, true);
            m_rt.inverted = false;
            return by_index_window({0, n}, true);
        }
        // On an UNORDERED list an item holding a WILDCARD needs the server's
        // own search, element by element (server_item_search); otherwise
        // each item's rank interval [lo, hi) among the elements answers.
        if (!m_l.is_ordered() && n != 0 && server_item_search::needed(items))
            return by_value_list_searched(items);
        std::vector<window> iv;
        iv.reserve(items.size());
        for (const value& item : items)
            iv.push_back({m_l.count_less(item), m_l.count_less_equal(item)});
        // The intervals' union (sorted, disjoint): the matched ranks.
        std::vector<window> uni = union_of(iv);
        std::size_t matched = 0;
        for (const window& u : uni)
            matched += u.size();
        std::size_t rm_count = inv ? n - matched : matched;

        std::vector<std::size_t> pos;
        bool need_pos = (m_remove && rm_count != 0) || (inv && t != return_type::none) ||
                        (!m_l.is_ordered() && (is_index_type(t) || t == return_type::value));
        if (need_pos) {
            for (const window& u : uni) {
                if (m_l.is_ordered()) {
                    for (std::size_t r = u.begin; r < u.end; ++r)
                        pos.push_back(r);
                } else {
                    // push_back, not a range insert: one vector member fewer.
                    for (std::size_t p : list_positions_of_ranks(m_l, u.begin, u.end))
                        pos.push_back(p);
                }
            }
            std::sort(pos.begin(), pos.end());
            if (inv)
                pos = list_complement(pos, n);
        }

        value out;
        switch (t) {
        case return_type::none:
            break;
        case return_type::count:
            out = list_int(rm_count);
            break;
        case return_type::exists:
            out = value(rm_count != 0);
            break;
        case return_type::index:
        case return_type::reverse_index:
            if (inv || !m_l.is_ordered())
                out = list_by_positions(m_l, t, true, pos);
            else
                out = per_item_runs(iv);
            break;
        case return_type::rank:
        case return_type::reverse_rank:
            if (m_l.is_ordered()) {
                out = inv ? list_by_positions(m_l, t, true, pos) : per_item_runs(iv);
            } else {
                out = inv ? complement_rank_runs(uni, n) : designated_ranks(iv);
            }
            break;
        case return_type::value:
            if (inv || !m_l.is_ordered()) {
                out = list_by_positions(m_l, t, true, pos);
            } else {
                // Per item, in argument order, its equal elements (repeated
                // when an item repeats).
                std::vector<value> vals;
                for (const window& w : iv) {
                    for (const value& x : m_l.values_by_rank(w.begin, w.end))
                        vals.push_back(x);
                }
                out = list_of(std::move(vals));
            }
            break;
        default:
            break;
        }
        if (m_remove && rm_count != 0) {
            list_remove_positions(m_l, pos);
            m_run.wrote = true;
        }
        return out;
    }

private:
    /// Value list holding a WILDCARD on an UNORDERED list: the server's
    /// search, element by element (server_item_search).
    result<value> by_value_list_searched(const std::vector<value>& items) {
        std::size_t n = m_l.size();
        return_type t = m_rt.type;
        bool inv = m_rt.inverted;
        server_item_search search(items);
        std::vector<std::size_t> pos;
        std::size_t i = 0;
        for (const value& e : m_l) {
            if (search.find(e, is_rank_type(t)) != inv)
                pos.push_back(i);
            ++i;
        }
        std::size_t rm_count = pos.size();
        value out;
        switch (t) {
        case return_type::none:
            break;
        case return_type::count:
            out = list_int(rm_count);
            break;
        case return_type::exists:
            out = value(rm_count != 0);
            break;
        case return_type::index:
        case return_type::reverse_index:
        case return_type::value:
            out = list_by_positions(m_l, t, true, pos);
            break;
        case return_type::rank:
        case return_type::reverse_rank: {
            std::vector<value> ranks;
            for (const window& w : search.runs(inv, n))
                list_emit_run(ranks, w.begin, w.size(), n, is_rev(t));
            out = list_of(std::move(ranks));
            break;
        }
        default:
            break;
        }
        if (m_remove && rm_count != 0) {
            list_remove_positions(m_l, pos);
            m_run.wrote = true;
        }
        return out;
    }

    result<value> inverted_single() {
        return fail(op_error(
            status::op_not_applicable, m_code, "INVERTED is not supported for a single-result op"));
    }
    result<value> out_of_range(const char* what, std::int64_t i) {
        return fail(op_error(status::op_not_applicable,
                             m_code,
                             std::string(what) + " " + std::to_string(i) + " out of range (size " +
                                 std::to_string(m_l.size()) + ")"));
    }

    /// RANK / REVERSE_RANK of positions [b, b + c) of an UNORDERED list: each
    /// element's count of strictly smaller elements, in list order.
    value unordered_ranks_of(std::size_t b, std::size_t c, bool multi) const {
        std::size_t n = m_l.size();
        bool rev = is_rev(m_rt.type);
        auto rank_at = [&](std::size_t p) {
            std::size_t r = m_l.count_less(m_l[p]);
            return list_int(rev ? n - r - 1 : r);
        };
        if (!multi)
            return rank_at(b);
        std::vector<value> out;
        out.reserve(c);
        for (std::size_t p = b; p < b + c; ++p)
            out.push_back(rank_at(p));
        return list_of(std::move(out));
    }

    /// The server's packed_list_trim: INVERTED of a window strictly inside the
    /// list selects the head [0, b) and the tail [b + c, n).
    result<value> trim_path(std::size_t b, std::size_t c) {
        std::size_t n = m_l.size();
        std::size_t e = b + c;
        std::size_t rm_count = n - c;
        return_type t = m_rt.type;
        value out;
        switch (t) {
        case return_type::none:
            break;
        case return_type::count:
            out = list_int(rm_count);
            break;
        case return_type::exists:
            out = value(rm_count != 0);
            break;
        case return_type::index:
        case return_type::reverse_index: {
            std::vector<value> v;
            list_emit_run(v, 0, b, n, is_rev(t));
            list_emit_run(v, e, n - e, n, is_rev(t));
            out = list_of(std::move(v));
            break;
        }
        case return_type::rank:
        case return_type::reverse_rank: {
            if (m_l.is_ordered()) {
                std::vector<value> v;
                list_emit_run(v, 0, b, n, is_rev(t));
                list_emit_run(v, e, n - e, n, is_rev(t));
                out = list_of(std::move(v));
            } else {
                std::vector<value> v;
                value head = unordered_ranks_of(0, b, true);
                value tail = unordered_ranks_of(e, n - e, true);
                for (const value& x : head.as_list())
                    v.push_back(x);
                for (const value& x : tail.as_list())
                    v.push_back(x);
                out = list_of(std::move(v));
            }
            break;
        }
        case return_type::value: {
            std::vector<value> v;
            v.reserve(rm_count);
            auto head = m_l.begin();
            for (std::size_t p = 0; p < b; ++p, ++head)
                v.push_back(*head);
            auto tail = m_l.begin() + static_cast<std::ptrdiff_t>(e);
            for (std::size_t p = e; p < n; ++p, ++tail)
                v.push_back(*tail);
            out = list_of(std::move(v));
            break;
        }
        default:
            break;
        }
        if (m_remove) {
            list_remove_window(m_l, e, n);
            list_remove_window(m_l, 0, b);
            m_run.wrote = true;
        }
        return out;
    }

    /// Rank path of an UNORDERED list on a window of ranks [b, b + c).
    result<value> by_rank_window(window w, bool multi) {
        std::size_t n = m_l.size();
        std::size_t b = w.begin;
        std::size_t c = w.size();
        bool inv = m_rt.inverted;
        return_type t = m_rt.type;
        std::size_t rm_count = inv ? n - c : c;
        if (rm_count == 0)
            return list_not_found(t, multi);
        std::vector<std::size_t> pos;
        bool need_pos = m_remove || is_index_type(t) || (t == return_type::value && inv);
        if (need_pos) {
            pos = list_positions_of_rank_window(m_l, b, b + c);
            if (inv)
                pos = list_complement(pos, n);
        }
        value out;
        switch (t) {
        case return_type::none:
        case return_type::count:
        case return_type::exists:
        case return_type::rank:
        case return_type::reverse_rank:
            out = list_index_rank_count(t, multi, inv, b, c, n);
            break;
        case return_type::index:
        case return_type::reverse_index:
            out = list_by_positions(m_l, t, multi, pos);
            break;
        case return_type::value:
            if (inv) {
                out = list_by_positions(m_l, t, multi, pos);
            } else {
                std::vector<value> vals = m_l.values_by_rank(b, b + c);
                if (list_distinct_ties(vals) || list_edge_ties_distinct(m_l, b, b + c)) {
                    // Equal values that are not the same (-0.0, 0.0): which
                    // ones and in what order is the heap's doing; its window,
                    // in its layout, is the server's answer.
                    vals.clear();
                    for (std::size_t p : list_heap_window(m_l, b, c))
                        vals.push_back(m_l[p]);
                } else if (multi && b <= n - b - c) {
                    // The server's heap yields the window top-down when it
                    // sits nearer the low end, bottom-up otherwise.
                    list_reverse(vals);
                }
                if (!multi) {
                    out = vals.front();
                    break;
                }
                out = list_of(std::move(vals));
            }
            break;
        default:
            break;
        }
        if (m_remove) {
            list_remove_positions(m_l, pos);
            m_run.wrote = true;
        }
        return out;
    }

    /// Sorted disjoint union of rank intervals (touching ones merged): the
    /// runs of covered segments of their last_cover.
    static std::vector<window> union_of(const std::vector<window>& iv) {
        last_cover c = last_window_cover(iv);
        std::vector<window> out;
        for (std::size_t j = 0; j < c.owner.size(); ++j) {
            if (c.owner[j] == last_cover::none)
                continue;
            if (!out.empty() && out.back().end == c.cuts[j])
                out.back().end = c.cuts[j + 1];
            else
                out.push_back({c.cuts[j], c.cuts[j + 1]});
        }
        return out;
    }

    /// ORDERED value list, not inverted: per item in argument order, its run
    /// of positions (= ranks), repeated when an item repeats.
    value per_item_runs(const std::vector<window>& iv) const {
        std::vector<value> out;
        for (const window& w : iv)
            list_emit_run(out, w.begin, w.size(), m_l.size(), is_rev(m_rt.type));
        return list_of(std::move(out));
    }

    /// UNORDERED value list, RANK not inverted (server:
    /// result_data_set_by_itemlist_irc): per item in argument order, the ranks
    /// of the elements credited to it; an element is credited to the last item
    /// (argument order) it matches, so a repeated item reports once, at its
    /// last occurrence. Reversed ranks come out element by element.
    value designated_ranks(const std::vector<window>& iv) const {
        std::size_t n = m_l.size();
        bool rev = is_rev(m_rt.type);
        last_cover cover = last_window_cover(iv);
        // The credited ranks grouped by item, ascending within each (a
        // counting sort into one flat vector, not a vector per item):
        // item i's ranks go to slots [start[i], start[i + 1]).
        std::vector<std::size_t> start(iv.size() + 1, 0);
        for (std::size_t j = 0; j < cover.owner.size(); ++j)
            if (cover.owner[j] != last_cover::none)
                start[cover.owner[j] + 1] += cover.cuts[j + 1] - cover.cuts[j];
        for (std::size_t i = 0; i < iv.size(); ++i)
            start[i + 1] += start[i];
        std::vector<std::size_t> ranks(start[iv.size()]);
        for (std::size_t j = 0; j < cover.owner.size(); ++j) {
            if (cover.owner[j] == last_cover::none)
                continue;
            for (std::size_t x = cover.cuts[j]; x < cover.cuts[j + 1]; ++x)
                ranks[start[cover.owner[j]]++] = x;
        }
        std::vector<value> out;
        out.reserve(ranks.size());
        for (std::size_t r : ranks)
            out.push_back(list_int(rev ? n - 1 - r : r));
        return list_of(std::move(out));
    }

    /// UNORDERED value list, RANK inverted: the ranks outside every item's
    /// interval, run by run in ascending order (reversed runs stay ascending).
    value complement_rank_runs(const std::vector<window>& uni, std::size_t n) const {
        std::vector<value> out;
        bool rev = is_rev(m_rt.type);
        std::size_t prev = 0;
        for (const window& u : uni) {
            list_emit_run(out, prev, u.begin - prev, n, rev);
            prev = u.end;
        }
        list_emit_run(out, prev, n - prev, n, rev);
        return list_of(std::move(out));
    }

    list& m_l;
    op_code m_code;
    decoded_return m_rt;
    bool m_remove;
    list_run& m_run;
};

// ------------------------------------------------------------------ writes

/// (int64_t) of a double as the x86-64 server computes it: out of range and
/// NaN give INT64_MIN (cvttsd2si's "integer indefinite").
inline std::int64_t list_double_to_int(double d) noexcept {
    if (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0)
        return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(d);
}
inline std::int64_t list_wrap_add(std::int64_t a, std::int64_t b) noexcept {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

inline bool list_flag(const op& o, std::uint32_t f) noexcept {
    return (o.lpolicy.flags & f) != 0;
}
inline bool list_no_fail(const op& o) noexcept {
    return list_flag(o, list_write_flags::no_fail);
}
/// PARTIAL acts only together with NO_FAIL (server: mod_flags_is_do_partial).
inline bool list_partial(const op& o) noexcept {
    return list_no_fail(o) && list_flag(o, list_write_flags::partial);
}
/// ADD_UNIQUE denied: a silent no-op under NO_FAIL, else ELEMENT_EXISTS.
inline result<value> list_exists(const op& o, value noop_result, const value& v) {
    if (list_no_fail(o))
        return noop_result;
    return fail(op_error(status::element_exists,
                         o.code,
                         "value " + to_string(v) + " already in the list (ADD_UNIQUE)"));
}

inline result<value> list_not_storable(const op& o, const value& v) {
    return fail(op_error(status::parameter_error,
                         o.code,
                         "value " + to_string(v) + " cannot be stored (INF/WILDCARD)"));
}

/// The server's packed_list_insert on an UNORDERED list: values at index
/// (negative counts from the end; past the end pads with nil), with the
/// INSERT_BOUNDED / ADD_UNIQUE / NO_FAIL / PARTIAL rules. Returns the new size;
/// with set_result false (set, increment) the caller keeps its own result.
inline result<value> list_insert_values(list& l,
                                        const op& o,
                                        list_run& run,
                                        std::int64_t index,
                                        const value* vals,
                                        std::size_t count,
                                        bool items,
                                        bool set_result,
                                        value own_result = value()) {
    std::size_t n = l.size();
    auto size_or = [&](std::size_t s) {
        return set_result ? list_int(s) : own_result;
    };
    if (items && count == 0) {
        run.wrote = true; // the server's "possible no-op" still writes the list
        return size_or(n);
    }
    if (index > std::numeric_limits<std::int32_t>::max())
        return fail(op_error(
            status::op_not_applicable, o.code, "index " + std::to_string(index) + " out of range"));
    if (index < 0) {
        index += static_cast<std::int64_t>(n);
        if (index < 0)
            return fail(op_error(status::op_not_applicable,
                                 o.code,
                                 "index " + std::to_string(index - static_cast<std::int64_t>(n)) +
                                     " before the start (size " + std::to_string(n) + ")"));
    }
    auto uindex = static_cast<std::size_t>(index);
    if (list_flag(o, list_write_flags::insert_bounded) && uindex > n) {
        if (list_no_fail(o))
            return size_or(n);
        return fail(op_error(status::op_not_applicable,
                             o.code,
                             "index " + std::to_string(uindex) + " past the end (size " +
                                 std::to_string(n) + ", INSERT_BOUNDED)"));
    }

    // ADD_UNIQUE: which values go in, by their place in vals (all of them
    // otherwise: `add` stays empty and the values are taken as they are).
    bool unique = list_flag(o, list_write_flags::add_unique);
    std::vector<std::size_t> add;
    if (unique) {
        list_prepare_ranks(l);
        // repeat[i]: vals[i] equals an earlier item (equal items are
        // neighbours, in item order, once stably sorted).
        std::vector<const value*> given(count);
        for (std::size_t i = 0; i < count; ++i)
            given[i] = &vals[i];
        std::vector<std::size_t> order = stable_value_order(given, true);
        std::vector<bool> repeat(count, false);
        for (std::size_t k = 1; k < count; ++k)
            repeat[order[k]] =
                kvmodel::detail::list_compare(vals[order[k - 1]], vals[order[k]], false) == 0;
        add.reserve(count);
        for (std::size_t i = 0; i < count; ++i) {
            const value& v = vals[i];
            if (l.count_less_equal(v) != l.count_less(v)) {
                if (items && list_partial(o))
                    continue;
                return list_exists(o, size_or(n), v);
            }
            // Items repeating among themselves: refused outright unless
            // NO_FAIL (then the whole write is dropped, or with PARTIAL
            // only the repeat).
            if (repeat[i]) {
                if (!list_no_fail(o))
                    return fail(op_error(status::op_not_applicable,
                                         o.code,
                                         "value " + to_string(v) +
                                             " appears twice in the items (ADD_UNIQUE)"));
                if (!list_partial(o))
                    return size_or(n);
                continue;
            }
            add.push_back(i);
        }
        if (add.empty())
            return size_or(n); // every item skipped (NO_FAIL | PARTIAL)
    }
    std::size_t adding = unique ? add.size() : count;
    auto added = [&](std::size_t i) -> const value& {
        return vals[unique ? add[i] : i];
    };

    std::size_t new_count = std::max(uindex, n) + adding;
    if (uindex >= n) {
        if (uindex + adding >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
            return fail(op_error(status::parameter_error,
                                 o.code,
                                 "index " + std::to_string(uindex) + " + " +
                                     std::to_string(adding) + " values overflows a list"));
        // Every element takes at least a byte: refuse before allocating.
        if (new_count > run.max_record_size)
            return fail(op_error(status::record_too_big,
                                 o.code,
                                 "padding to index " + std::to_string(uindex) + " makes " +
                                     std::to_string(new_count) +
                                     " elements, more bytes than max-record-size " +
                                     std::to_string(run.max_record_size)));
        for (std::size_t i = n; i < uindex; ++i)
            l.push_back(value());
        for (std::size_t i = 0; i < adding; ++i)
            l.push_back(added(i));
    } else {
        for (std::size_t i = 0; i < adding; ++i)
            l.insert(uindex + i, added(i));
    }
    run.wrote = true;
    return size_or(new_count);
}

/// Where the server inserts a value into an ORDERED list of n elements, of
/// which [less, less_equal) equal it (order_index_find_rank_by_value with no
/// target): its binary search stops at the first equal element it probes and
/// inserts before it, so among equals the place depends on the search path.
/// Equal elements differ only as -0.0 and 0.0 do, so this is what decides
/// their order. Pure arithmetic: the comparisons are known from the bounds.
inline std::size_t list_ordered_insert_position(std::size_t n, std::size_t less,
                                                std::size_t less_equal) noexcept {
    if (n == 0)
        return 0;
    std::size_t lower = 0;
    std::size_t upper = n;
    std::size_t rank = n / 2;
    for (;;) {
        if (rank >= less && rank < less_equal)
            return rank; // equal: before this element
        if (rank < less) { // the value is greater
            if (rank >= upper - 1)
                return rank + 1;
            lower = rank + 1;
            rank = (rank + upper) / 2;
        } else { // the value is less
            if (rank == lower)
                return rank;
            upper = rank;
            rank = (rank + lower) / 2;
        }
    }
}

/// ORDERED append of one value (server: packed_list_add_ordered).
inline result<value> list_add_ordered(list& l, const op& o, list_run& run, const value& v) {
    list_prepare_ranks(l);
    bool unique = list_flag(o, list_write_flags::add_unique);
    std::optional<std::size_t> at; // else: after its equals (one search)
    // Among equals that are the same value any place is the server's; only
    // values that may equal a different one need its search replayed.
    if (unique || list_may_tie_distinctly(v)) {
        std::size_t less = l.count_less(v);
        std::size_t less_equal = l.count_less_equal(v);
        if (unique && less_equal != less)
            return list_exists(o, list_int(l.size()), v);
        if (less != less_equal)
            at = list_ordered_insert_position(l.size(), less, less_equal);
    }
    if (at)
        l.insert(*at, v);
    else
        l.insert_sorted(v);
    run.wrote = true;
    return static_cast<std::int64_t>(l.size());
}

/// ORDERED append of items (server: packed_list_add_items_ordered).
inline result<value>
list_add_items_ordered(list& l, const op& o, list_run& run, const std::vector<value>& vals) {
    std::size_t n = l.size();
    if (vals.empty()) {
        run.wrote = true;
        return list_int(n);
    }
    // Item numbers, not pointers or pairs of optionals: each distinct vector
    // member called is code every header-only TU emits. The items to add are
    // compacted in place below: sorted[0, adds).
    std::vector<std::size_t> sorted = list_rank_order(vals);
    std::size_t kept = sorted.size();
    bool unique = list_flag(o, list_write_flags::add_unique);
    if (unique) {
        // std::unique's walk: each item against the last one kept; the first
        // slot past the kept ones still holds its sorted item, named below.
        kept = 0;
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            if (kept > 0 &&
                kvmodel::detail::list_compare(vals[sorted[kept - 1]], vals[sorted[i]], false) == 0)
                continue;
            sorted[kept++] = sorted[i];
        }
        if (kept != sorted.size()) {
            if (!list_no_fail(o))
                return fail(op_error(status::op_not_applicable,
                                     o.code,
                                     "value " + to_string(vals[sorted[kept]]) +
                                         " appears twice in the items (ADD_UNIQUE)"));
            if (!list_partial(o))
                return list_int(n);
        }
    }
    list_prepare_ranks(l);
    // Each item's place is found in the list as it was; items sharing a place
    // go there in their sorted order (the server merges them so). As in
    // list_add_ordered, only an item that may equal a different value has
    // its place replayed; the others go after their equals (`after_equals`).
    constexpr std::size_t after_equals = static_cast<std::size_t>(-1);
    std::vector<std::size_t> at;
    at.reserve(kept);
    std::size_t adds = 0;
    for (std::size_t i = 0; i < kept; ++i) {
        const value& v = vals[sorted[i]];
        std::size_t place = after_equals;
        if (unique || list_may_tie_distinctly(v)) {
            std::size_t less = l.count_less(v);
            std::size_t less_equal = l.count_less_equal(v);
            if (unique && less_equal != less) {
                if (list_partial(o))
                    continue;
                return list_exists(o, list_int(n), v);
            }
            if (less != less_equal)
                place = list_ordered_insert_position(n, less, less_equal);
        }
        sorted[adds++] = sorted[i];
        at.push_back(place);
    }
    // Places are non-decreasing in sorted order, so the k-th item lands k
    // places further on than in the list as it was (after its equals too).
    for (std::size_t k = 0; k < adds; ++k) {
        if (at[k] != after_equals)
            l.insert(at[k] + k, vals[sorted[k]]);
        else
            l.insert_sorted(vals[sorted[k]]);
    }
    run.wrote = true;
    return list_int(l.size());
}

/// list_set (server: list_set): replaces in range, inserts (pads) past the end.
inline result<value> list_set_value(list& l,
                                    const op& o,
                                    list_run& run,
                                    std::int64_t index,
                                    const value& v,
                                    value own_result = value()) {
    std::size_t n = l.size();
    if (index >= static_cast<std::int64_t>(n))
        return list_insert_values(l, o, run, index, &v, 1, false, false, std::move(own_result));
    if (index < 0)
        index += static_cast<std::int64_t>(n);
    if (index < 0)
        return fail(op_error(status::op_not_applicable,
                             o.code,
                             "index " + std::to_string(index - static_cast<std::int64_t>(n)) +
                                 " before the start (size " + std::to_string(n) + ")"));
    auto uindex = static_cast<std::size_t>(index);
    if (list_flag(o, list_write_flags::add_unique)) {
        list_prepare_ranks(l);
        std::optional<std::size_t> first = list_first_equal(l, v);
        if (first && (*first != uindex || l.count_less_equal(v) - l.count_less(v) > 1))
            return list_exists(o, own_result, v);
    }
    l.set(uindex, v);
    run.wrote = true;
    return own_result;
}

inline result<value> list_increment(list& l, const op& o, list_run& run) {
    std::size_t n = l.size();
    std::int64_t index = o.index;
    if (index > std::numeric_limits<std::int32_t>::max() ||
        (index < 0 && index + static_cast<std::int64_t>(n) < 0))
        return fail(op_error(status::op_not_applicable,
                             o.code,
                             "index " + std::to_string(index) + " out of range (size " +
                                 std::to_string(n) + ")"));
    if (index < 0)
        index += static_cast<std::int64_t>(n);
    auto uindex = static_cast<std::size_t>(index);
    const value& delta = o.val;
    if (!delta.is_nil() && !delta.is_number())
        return fail(op_error(
            status::parameter_error, o.code, "delta " + to_string(delta) + " is not a number"));
    value next;
    if (uindex < n) {
        const value& e = l[uindex];
        if (e.is_int()) {
            std::int64_t d = delta.is_double() ? list_double_to_int(delta.as_double())
                                               : (delta.is_int() ? delta.as_int() : 1);
            next = list_wrap_add(e.as_int(), d);
        } else if (e.is_double()) {
            double d = delta.is_double() ? delta.as_double()
                                         : static_cast<double>(delta.is_int() ? delta.as_int() : 1);
            next = e.as_double() + d;
        } else {
            return fail(op_error(status::parameter_error,
                                 o.code,
                                 "element " + std::to_string(uindex) + " is " +
                                     std::string(type_name(e.type())) + ", not a number"));
        }
    } else {
        // Created from 0: 0 + delta, so a delta of -0.0 makes +0.0 (IEEE),
        // as the server stores it.
        next = delta.is_nil()      ? value(std::int64_t{1})
               : delta.is_double() ? value(0.0 + delta.as_double())
                                   : delta;
    }

    if (!l.is_ordered())
        return list_set_value(l, o, run, static_cast<std::int64_t>(uindex), next, next);

    // ORDERED (server: packed_list_replace_ordered): the new value is sorted
    // in; ADD_UNIQUE keeps a value that lands on itself.
    if (uindex > n)
        return fail(op_error(status::op_not_applicable,
                             o.code,
                             "index " + std::to_string(uindex) +
                                 " past the end of an ORDERED list (size " + std::to_string(n) +
                                 ")"));
    list_prepare_ranks(l);
    std::size_t rank = l.count_less(next);
    std::size_t count = l.count_less_equal(next) - rank;
    if (list_flag(o, list_write_flags::add_unique) && count != 0) {
        if (rank == uindex)
            return next; // replaces an element by its own value
        return list_exists(o, next, next);
    }
    if (uindex < n)
        l.erase(uindex);
    l.insert(l.count_less(next), next);
    run.wrote = true;
    return next;
}

/// Sorts (server: list_sort): flag 1 descending (UNORDERED lists only),
/// flag 2 DROP_DUPLICATES (keeps the first of equal values).
inline result<value> list_sort_op(list& l, const op& o, list_run& run) {
    if (l.size() <= 1)
        return value();
    bool drop = (o.sort_flags & list_sort_flags::drop_duplicates) != 0;
    bool descending = (o.sort_flags & 1U) != 0 && !l.is_ordered();
    if (!descending) {
        l.sort(drop);
    } else {
        list_prepare_ranks(l);
        std::vector<value> vals = l.values_by_rank(0, l.size());
        list_reverse(vals);
        if (drop) {
            // std::unique's walk: each value against the last one kept.
            std::size_t kept = 0;
            for (std::size_t i = 0; i < vals.size(); ++i) {
                if (kept > 0 && kvmodel::detail::list_compare(vals[kept - 1], vals[i], false) == 0)
                    continue;
                if (kept != i)
                    vals[kept] = std::move(vals[i]);
                ++kept;
            }
            vals.erase(vals.begin() + static_cast<std::ptrdiff_t>(kept), vals.end());
        }
        list fresh(std::move(vals), list_order::unordered);
        fresh.set_persist_index(l.persist_index());
        l = std::move(fresh);
    }
    run.wrote = true;
    return value();
}

/// set_order / create (server: list_set_flags): ORDERED sorts, UNORDERED keeps
/// the current order; a persisted index only on a bin's top-level list.
inline result<value> list_set_order(list& l, const op& o, list_run& run) {
    if (o.order != list_order::ordered && o.order != list_order::unordered)
        return fail(op_error(status::op_not_applicable,
                             o.code,
                             "invalid list order " + std::to_string(static_cast<int>(o.order))));
    bool persist = o.persist_index && run.top_level;
    run.wrote = true;
    if (o.order == l.order() && persist == l.persist_index())
        return value();
    if (o.order == list_order::ordered && !l.is_ordered() && l.size() > 1)
        l.sort(false);
    l.set_order_flag(o.order);
    l.set_persist_index(persist);
    return value();
}

/// The order a modify op gives the list it creates (append, append_items and
/// increment carry a create order; the others create UNORDERED).
inline list_order list_create_order(const op& o) noexcept {
    switch (o.code) {
    case op_code::list_append:
    case op_code::list_append_items:
    case op_code::list_increment:
        return o.lpolicy.order == list_order::ordered ? list_order::ordered : list_order::unordered;
    default:
        return list_order::unordered;
    }
}

// ------------------------------------------------------------------ entry

/// True when a wire return type is t, not inverted (other bits ignored, as
/// decode_list_return ignores them).
inline bool list_plain_return(std::int32_t wire, return_type t) noexcept {
    return (wire & 0xffff) == static_cast<std::int32_t>(t) && (wire & return_inverted) == 0;
}

/// remove_by_rank_range returning NONE on an ORDERED list (a capped list's
/// trim), as list_selection::by_rank_range answers it: the rank window is the
/// index window, NONE builds nothing, and an empty window writes nothing.
inline result<value> list_trim_ordered(list& l, const op& o, list_run& run) {
    list_prepare_ranks(l);
    window w = list_index_window(o.index, list_wire_count(o.count), l.size());
    if (!w.empty()) {
        list_remove_window(l, w.begin, w.end);
        run.wrote = true;
    }
    return value();
}

/// list_apply for every op but the few list_apply answers itself.
KVMODEL_NOINLINE inline result<value> list_apply_general(list& l, const op& o, list_run& run) {
    // A capped ORDERED list's trim, without the selector dispatch.
    if (o.code == op_code::list_remove_by_rank_range && l.is_ordered() &&
        list_plain_return(o.return_type, return_type::none))
        return list_trim_ordered(l, o, run);
    switch (o.code) {
    case op_code::list_size:
        return list_int(l.size());
    case op_code::list_create:
    case op_code::list_set_order:
        return list_set_order(l, o, run);
    case op_code::list_sort:
        return list_sort_op(l, o, run);
    case op_code::list_clear:
        l.clear();
        l.set_persist_index(false);
        run.wrote = true;
        return value();
    case op_code::list_append:
        if (!storable(o.key))
            return list_not_storable(o, o.key);
        if (l.is_ordered())
            return list_add_ordered(l, o, run, o.key);
        return list_insert_values(
            l, o, run, static_cast<std::int64_t>(l.size()), &o.key, 1, false, true);
    case op_code::list_append_items:
    case op_code::list_insert_items: {
        for (const value& v : o.values)
            if (!storable(v))
                return list_not_storable(o, v);
        if (o.code == op_code::list_append_items) {
            if (l.is_ordered())
                return list_add_items_ordered(l, o, run, o.values);
            return list_insert_values(l,
                                      o,
                                      run,
                                      static_cast<std::int64_t>(l.size()),
                                      o.values.data(),
                                      o.values.size(),
                                      true,
                                      true);
        }
        if (l.is_ordered())
            return fail(
                op_error(status::op_not_applicable, o.code, "not allowed on an ORDERED list"));
        return list_insert_values(l, o, run, o.index, o.values.data(), o.values.size(), true, true);
    }
    case op_code::list_insert:
        if (!storable(o.key))
            return list_not_storable(o, o.key);
        if (l.is_ordered())
            return fail(
                op_error(status::op_not_applicable, o.code, "not allowed on an ORDERED list"));
        return list_insert_values(l, o, run, o.index, &o.key, 1, false, true);
    case op_code::list_set:
        if (!storable(o.key))
            return list_not_storable(o, o.key);
        if (l.is_ordered())
            return fail(
                op_error(status::op_not_applicable, o.code, "not allowed on an ORDERED list"));
        return list_set_value(l, o, run, o.index, o.key);
    case op_code::list_increment:
        return list_increment(l, o, run);
    default:
        break;
    }

    // Selectors and removals.
    bool remove = classify(o.code) == op_class::remove;
    decoded_return rt;
    switch (o.code) {
    case op_code::list_get:
    case op_code::list_get_range:
    case op_code::list_pop:
    case op_code::list_pop_range:
        rt.type = return_type::value;
        break;
    case op_code::list_remove:
    case op_code::list_remove_range:
        rt.type = return_type::count;
        break;
    case op_code::list_trim:
        rt.type = return_type::count;
        rt.inverted = true;
        break;
    default: {
        if (!decode_list_return(o.return_type, rt))
            return fail(
                op_error(status::op_not_applicable,
                         o.code,
                         "invalid return type " + std::to_string(o.return_type) + " for a list"));
    }
    }
    // Rank and value selections walk the rank index: build it once for a
    // long list (index selections on an UNORDERED list need it only for ranks).
    bool needs_ranks = true;
    switch (o.code) {
    case op_code::list_get:
    case op_code::list_get_range:
    case op_code::list_pop:
    case op_code::list_pop_range:
    case op_code::list_remove:
    case op_code::list_remove_range:
    case op_code::list_trim:
    case op_code::list_get_by_index:
    case op_code::list_get_by_index_range:
    case op_code::list_remove_by_index:
    case op_code::list_remove_by_index_range:
        needs_ranks = is_rank_type(rt.type);
        break;
    default:
        break;
    }
    if (needs_ranks)
        list_prepare_ranks(l);

    list_selection sel(l, o.code, rt, remove, run);
    switch (o.code) {
    case op_code::list_get:
    case op_code::list_pop:
    case op_code::list_remove:
    case op_code::list_get_by_index:
    case op_code::list_remove_by_index:
        return sel.by_index(o.index);
    case op_code::list_get_range:
    case op_code::list_pop_range:
    case op_code::list_remove_range:
    case op_code::list_trim:
    case op_code::list_get_by_index_range:
    case op_code::list_remove_by_index_range:
        return sel.by_index_range(o.index, o.count);
    case op_code::list_get_by_rank:
    case op_code::list_remove_by_rank:
        return sel.by_rank(o.index);
    case op_code::list_get_by_rank_range:
    case op_code::list_remove_by_rank_range:
        return sel.by_rank_range(o.index, o.count);
    case op_code::list_get_by_value:
    case op_code::list_remove_by_value:
        return sel.by_value_interval(o.key, std::nullopt, true);
    case op_code::list_get_by_value_list:
    case op_code::list_remove_by_value_list:
        return sel.by_value_list(o.values);
    case op_code::list_get_by_value_range:
    case op_code::list_remove_by_value_range:
        return sel.by_value_interval(o.begin, o.end, false);
    case op_code::list_get_by_value_rel_rank_range:
    case op_code::list_remove_by_value_rel_rank_range:
        return sel.by_value_rel_rank_range(o.key, o.index, o.count);
    default:
        return fail(op_error(status::parameter_error, o.code, "not a list operation"));
    }
}

/// Applies list op o to an existing list l (no context). On error l is
/// unchanged. run.wrote reports whether the op wrote l.
KVMODEL_ALWAYS_INLINE inline result<value> list_apply(list& l, const op& o, list_run& run) {
    // The ops a caller issues most (one append to an UNORDERED list, one
    // element by index or by rank as a VALUE) first, without the general
    // dispatch and returning straight into the caller's result: the same
    // checks in the same order, the same results and writes as the general
    // paths in list_apply_general (list_insert_values,
    // list_selection::by_index / by_rank).
    // A case they do not settle (an error, a flag, a limit) falls through.
    switch (o.code) {
    case op_code::list_append: {
        // list_insert_values at index n with one value: without ADD_UNIQUE,
        // INSERT_BOUNDED / NO_FAIL / PARTIAL have nothing to act on, and the
        // only failures are the int32 and record-size limits checked here.
        std::size_t n = l.size();
        if (!l.is_ordered() && !list_flag(o, list_write_flags::add_unique) &&
            n + 1 < static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()) &&
            n + 1 <= run.max_record_size && storable_inline(o.key)) {
            l.push_back(o.key);
            run.wrote = true;
            return static_cast<std::int64_t>(n + 1); // built in the result
        }
        break;
    }
    case op_code::list_get:
    case op_code::list_get_by_index:
        if (o.code == op_code::list_get || list_plain_return(o.return_type, return_type::value)) {
            if (std::optional<std::size_t> p = single_position(o.index, l.size())) {
                // An indexed ORDERED list reads through its value index (rank
                // = position there), as by_index_window does.
                return l.is_ordered() && l.has_index() ? l.value_at_rank(*p) : l[*p];
            }
        }
        break;
    case op_code::list_get_by_rank:
        if (list_plain_return(o.return_type, return_type::value)) {
            list_prepare_ranks(l);
            std::optional<std::size_t> p = single_position(o.index, l.size());
            // Equal values that differ (-0.0, 0.0) around the rank of an
            // UNORDERED list: the server's heap picks (the general path).
            if (p && (l.is_ordered() || !list_edge_ties_distinct(l, *p, *p + 1)))
                return l.is_ordered() && !l.has_index() ? l[*p] : l.value_at_rank(*p);
        }
        break;
    default:
        break;
    }

    return list_apply_general(l, o, run);
}

/// Applies list op o to target (nullopt = absent) with the run's settings.
/// A modify op creates the list (the order of its policy for append,
/// append_items and increment; UNORDERED otherwise) and leaves it there even
/// when the op ends as a no-op, as the server does; read ops on an absent
/// target return nil and remove-type ops are no-ops (the store turns a missing
/// record into KEY_NOT_FOUND); sort on an absent target is BIN_TYPE_ERROR.
/// On error target is unchanged.
KVMODEL_NOINLINE inline result<value>
apply_list_op(std::optional<value>& target, const op& o, list_run& run) {
    if (is_map_op(o.code))
        return fail(op_error(status::parameter_error, o.code, "not a list operation"));
    if (!target) {
        op_class cls = classify(o.code);
        if (cls != op_class::modify)
            return value();
        if (o.code == op_code::list_sort)
            return fail(op_error(status::bin_type_error, o.code, "no list to sort"));
        list fresh(list_create_order(o));
        result<value> r = list_apply(fresh, o, run);
        if (r)
            target = value(std::move(fresh));
        return r;
    }
    if (!target->is_list())
        return fail(
            op_error(status::bin_type_error,
                     o.code,
                     "bin holds a " + std::string(type_name(target->type())) + ", not a list"));
    return list_apply(target->as_list(), o, run);
}

/// Applies list op o to target (nullopt = absent): see above. max_record_size
/// is the namespace's limit (default 1 MiB), which padding may not exceed.
/// Inline, with list_apply's quick paths: an existing list, the usual target,
/// is answered in the caller's code (cdt::apply's); the rest out of line.
/// Complexity: see the header comment.
KVMODEL_ALWAYS_INLINE inline result<value>
apply_list_op(std::optional<value>& target,
              const op& o,
              std::size_t max_record_size = default_max_record_size) {
    list_run run;
    run.max_record_size = max_record_size;
    if (target && target->is_list() && !is_map_op(o.code))
        return list_apply(target->as_list(), o, run);
    return apply_list_op(target, o, run);
}

} // namespace kvmodel::cdt::detail
