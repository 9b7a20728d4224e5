// kvmodel/cdt/detail/common.hpp
//
// Index, rank and count arithmetic shared by the map and list engines, as the
// server does it (AEROSPIKE-CDT.md §3, §5): range selectors never fail, they
// clip; single-element selectors fail with OP_NOT_APPLICABLE out of range;
// counts are unsigned on the wire, so a negative count means "to the end".
#pragma once

#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::cdt::detail {

/// A half-open window [begin, end) of positions (indexes or ranks).
struct window {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::size_t size() const noexcept { return end - begin; }
    bool empty() const noexcept { return begin >= end; }
};

/// Which window holds each position, crediting a position to the LAST window
/// (in order) that holds it, as the server does for repeated or overlapping
/// list items. `cuts` are the windows' distinct ends, sorted; `owner[j]` is
/// the window credited with [cuts[j], cuts[j + 1]), or `none` when no window
/// holds those positions. Built over plain indexes (no ordered set or map of
/// positions, no sort by a comparator of its own): O(k log k) for k windows.
struct last_cover {
    static constexpr std::size_t none = static_cast<std::size_t>(-1);
    std::vector<std::size_t> cuts;
    std::vector<std::size_t> owner;
};

/// The place of `x`, one of the sorted `cuts`.
inline std::size_t cut_index(const std::vector<std::size_t>& cuts, std::size_t x) noexcept {
    std::size_t lo = 0;
    std::size_t hi = cuts.size();
    while (lo < hi) {
        std::size_t mid = lo + (hi - lo) / 2;
        if (cuts[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/// The last_cover of `iv` (empty windows hold nothing). Windows are taken
/// last to first; `next` skips segments already credited (path halving).
inline last_cover last_window_cover(const std::vector<window>& iv) {
    last_cover c;
    c.cuts.reserve(2 * iv.size());
    for (const window& w : iv) {
        if (w.empty())
            continue;
        c.cuts.push_back(w.begin);
        c.cuts.push_back(w.end);
    }
    std::sort(c.cuts.begin(), c.cuts.end());
    c.cuts.erase(std::unique(c.cuts.begin(), c.cuts.end()), c.cuts.end());
    std::size_t segs = c.cuts.empty() ? 0 : c.cuts.size() - 1;
    c.owner.assign(segs, last_cover::none);
    std::vector<std::size_t> next(segs + 1);
    for (std::size_t j = 0; j <= segs; ++j)
        next[j] = j;
    for (std::size_t i = iv.size(); i-- > 0;) {
        if (iv[i].empty())
            continue;
        std::size_t stop = cut_index(c.cuts, iv[i].end);
        std::size_t j = cut_index(c.cuts, iv[i].begin);
        while (true) {
            while (next[j] != j) {
                next[j] = next[next[j]];
                j = next[j];
            }
            if (j >= stop)
                break;
            c.owner[j] = i;
            next[j] = j + 1;
        }
    }
    return c;
}

/// A coarse view of the wire count: absent or negative = unbounded (see
/// server_count for the exact arithmetic the windows below use).
inline std::optional<std::uint64_t> wire_count(const std::optional<std::int64_t>& count) noexcept {
    if (!count || *count < 0) return std::nullopt;
    return static_cast<std::uint64_t>(*count);
}

/// The count a range selector uses, exactly as the server reads it: left out,
/// UINT32_MAX (its default); negative, the integer's two's complement (it
/// reads the wire integer as unsigned), so -1 means "to the end" in practice.
inline std::uint64_t server_count(const std::optional<std::int64_t>& count) noexcept {
    return count ? static_cast<std::uint64_t>(*count)
                 : std::uint64_t{std::numeric_limits<std::uint32_t>::max()};
}

/// (index, count) over n elements → the selected window (server's
/// calc_index_count_multi): index >= n selects nothing; a negative index
/// counts from the end; an index still before the start shortens the count
/// (server_count) by the overshoot and starts at 0; the window is clipped to n.
inline window index_count_window(std::int64_t index, const std::optional<std::int64_t>& count,
                                 std::size_t n) noexcept {
    auto sn = static_cast<std::int64_t>(n);
    std::uint64_t c = server_count(count);
    if (index >= sn) return {n, n};
    if (index < 0) {
        index += sn;
        if (index < 0) {
            // 0 - index in unsigned arithmetic: -INT64_MIN would overflow.
            auto overshoot = std::uint64_t{0} - static_cast<std::uint64_t>(index);
            if (c <= overshoot) return {0, 0};
            c -= overshoot;
            index = 0;
        }
    }
    auto b = static_cast<std::size_t>(index);
    std::size_t room = n - b;
    std::size_t len = c < room ? static_cast<std::size_t>(c) : room;
    return {b, b + len};
}

/// A relative window: positions [anchor + rel, anchor + rel + count), where a
/// start before 0 shortens the count (server_count) by the overshoot
/// (server's calc_rel_index_count), clipped to n.
inline window relative_window(std::size_t anchor, std::int64_t rel,
                              const std::optional<std::int64_t>& count, std::size_t n) noexcept {
    std::uint64_t c = server_count(count);
    // A start past INT64_MAX is past any end; computing it would overflow.
    if (rel > 0 && static_cast<std::int64_t>(anchor) > INT64_MAX - rel) return {n, n};
    std::int64_t start = static_cast<std::int64_t>(anchor) + rel;
    if (start < 0) {
        auto overshoot = std::uint64_t{0} - static_cast<std::uint64_t>(start);
        if (c <= overshoot) return {0, 0};
        c -= overshoot;
        start = 0;
    }
    auto b = static_cast<std::size_t>(start);
    if (b >= n) return {n, n};
    std::size_t room = n - b;
    std::size_t len = c < room ? static_cast<std::size_t>(c) : room;
    return {b, b + len};
}

/// A single index or rank over n elements: negative counts from the end;
/// nullopt when out of range (→ OP_NOT_APPLICABLE).
inline std::optional<std::size_t> single_position(std::int64_t i, std::size_t n) noexcept {
    auto sn = static_cast<std::int64_t>(n);
    if (i < 0) i += sn;
    if (i < 0 || i >= sn) return std::nullopt;
    return static_cast<std::size_t>(i);
}

/// A decoded wire return type.
struct decoded_return {
    return_type type = return_type::none;
    bool inverted = false;
};

/// Splits the wire value into type and INVERTED (into d); false when the type
/// is not one Aerospike defines for this container kind (maps also allow KEY,
/// KEY_VALUE, UNORDERED_MAP, ORDERED_MAP). An out-parameter, not an optional:
/// no optional<decoded_return> members in every header-only TU.
inline bool decode_return(std::int32_t wire, bool for_map, decoded_return& d) noexcept {
    d.inverted = (wire & return_inverted) != 0;
    std::int32_t base = wire & ~return_inverted;
    switch (base) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 7: case 13:
        d.type = static_cast<return_type>(base);
        return true;
    case 6: case 8: case 16: case 17:
        if (!for_map) return false;
        d.type = static_cast<return_type>(base);
        return true;
    default: return false;
    }
}

/// A namespace's max-record-size when nothing says otherwise (Aerospike 8.x:
/// 1 MiB). Ops that could grow a bin without bound (list padding) are refused
/// with RECORD_TOO_BIG against it before anything is allocated.
inline constexpr std::size_t default_max_record_size = 1048576;

/// The error for a failed op, naming it: "map_get_by_index: index 200 out of range (size 3)".
inline error op_error(status code, op_code c, const std::string& what) {
    return error{code, std::string(op_name(c)) + ": " + what};
}

/// -1, 0 or 1, as the server's comparisons answer.
inline int sign_of(std::weak_ordering o) noexcept {
    return o < 0 ? -1 : o > 0 ? 1 : 0;
}

/// cdt.c order_index_find_rank_by_value, step by step: a bisection over n
/// elements in rank order, where cmp(r) compares the value sought with the
/// element of rank r (as the server's msgpack_cmp_peek(value, element)) and
/// idx(r) is that element's index in storage. On an equal element it stops
/// at once when target > n; else it goes left while target < idx(r), right
/// while target > idx(r) (target n: to the end of the equal run), and stops
/// when they meet. Returns the rank it ends at and whether any probe was
/// equal. With consistent comparisons and ties in storage order that is the
/// run's first rank (target 0) or one past its last (target n); where a
/// WILDCARD makes different values tie, the answer depends on the probes.
template <class Cmp, class Idx>
std::pair<std::size_t, bool>
server_find_rank(std::size_t n, std::size_t target, Cmp&& cmp, Idx&& idx) {
    if (n == 0)
        return {0, false};
    std::size_t lower = 0;
    std::size_t upper = n;
    std::size_t rank = n / 2;
    bool found = false;
    while (true) {
        int c = cmp(rank);
        if (c == 0) {
            found = true;
            if (target > n)
                break;
            std::size_t i = idx(rank);
            if (target < i) {
                c = -1;
            } else if (target > i) {
                if (rank == upper - 1) {
                    ++rank;
                    break;
                }
                c = 1;
            } else {
                break;
            }
        }
        if (c > 0) {
            if (rank >= upper - 1) {
                ++rank;
                break;
            }
            lower = rank + (found ? 0 : 1);
            rank = (rank + upper) / 2;
        } else {
            if (rank == lower)
                break;
            upper = rank;
            rank = (rank + lower) / 2;
        }
    }
    return {rank, found};
}

inline bool storable(const value& v) noexcept;

/// storable for the usual case, inline: a scalar other than INF and
/// WILDCARD is storable; a container takes the recursive check.
KVMODEL_ALWAYS_INLINE inline bool storable_inline(const value& v) noexcept {
    switch (v.type()) {
    case value_type::inf:
    case value_type::wildcard:
        return false;
    case value_type::list:
    case value_type::map:
        return storable(v);
    default:
        return true;
    }
}

/// True when v can be stored (a list element, a map key or value): no INF or
/// WILDCARD anywhere in it. One check for both engines. A flat list (a map
/// value usually is) is scanned as its vector.
inline bool storable(const value& v) noexcept {
    switch (v.type()) {
    case value_type::inf:
    case value_type::wildcard:
        return false;
    case value_type::list: {
        std::size_t n = 0;
        if (const value* items = kvmodel::detail::map_access::flat_items(v.as_list(), n)) {
            for (std::size_t i = 0; i < n; ++i)
                if (!storable_inline(items[i]))
                    return false;
            return true;
        }
        for (const value& e : v.as_list())
            if (!storable_inline(e))
                return false;
        return true;
    }
    case value_type::map:
        for (const map_entry& e : v.as_map())
            if (!storable_inline(e.key) || !storable_inline(e.val))
                return false;
        return true;
    default:
        return true;
    }
}

// The engine's stable sorts of values (ORDERED append_items, ADD_UNIQUE
// repeats, map put_items) share the containers' one merge sort.
using kvmodel::detail::list_rank_order;
using kvmodel::detail::stable_value_order;

/// The server's search of an unindexed container for a list of items (a value
/// list on an UNORDERED list or an unindexed map, a key list on an unordered
/// map: cdt.c offset_index_find_items), replayed step by step. Needed only
/// when an item holds a WILDCARD: then two unequal items can compare equal,
/// the order is no longer a total preorder, and what the server finds depends
/// on how it searched. Elsewhere an element matches exactly the items equal
/// to it and the engines answer from ranges.
///
/// The server sorts the items with glibc's qsort_r (a stable top-down merge
/// sort: halves of n / 2 and n - n / 2, the left value taken on a tie), then
/// for each element in stored order does one bisection over the sorted items
/// (order_index_find_rank_by_value): the element matches iff a probe compares
/// equal. For results that report positions by item (RANK of a value list,
/// INDEX of a key list) the bisection goes on to the last equal item, and the
/// item after it and the last equal item are credited; ranks are then summed
/// along the sorted items (result_data_set_by_itemlist_irc).
class server_item_search {
public:
    /// Sorts the items as the server does. O(m log m) comparisons.
    explicit server_item_search(const std::vector<value>& items)
        : m_items(items)
        , m_sorted(items.size())
        , m_below(items.size(), 0)
        , m_count(items.size(), 0) {
        for (std::size_t i = 0; i < m_sorted.size(); ++i)
            m_sorted[i] = i;
        std::vector<std::size_t> tmp(m_sorted.size());
        merge_sort(0, m_sorted.size(), tmp);
    }

    /// Whether the server's answer can differ from the range answer.
    static bool needed(const std::vector<value>& items) noexcept {
        for (const value& v : items)
            if (v.contains_wildcard()) return true;
        return false;
    }

    /// Searches element e; with credit, also credits it for by-item positions.
    /// Returns whether e matched.
    bool find(const value& e, bool credit) {
        std::size_t m = m_sorted.size();
        // target m + 1: stop at the first equal probe; m, above every item
        // number: go on to the last equal item.
        // .first/.second, not a structured binding (its std::get chain).
        std::pair<std::size_t, bool> hit = server_find_rank(
            m,
            credit ? m : m + 1,
            [&](std::size_t r) { return sign_of(compare(e, m_items[m_sorted[r]])); },
            [&](std::size_t r) { return m_sorted[r]; });
        std::size_t rank = hit.first;
        bool found = hit.second;
        if (credit) {
            if (found && rank > 0) ++m_count[m_sorted[rank - 1]];
            if (rank != m) ++m_below[m_sorted[rank]];
        }
        return found;
    }

    /// The by-item positions after crediting every element of a container of
    /// n (result_data_set_by_itemlist_irc), as runs: per item in argument
    /// order, its credited positions one by one; with inverted, the gaps
    /// between the items' runs in sorted item order, and the tail. A REVERSE
    /// type reverses each run as a whole (window [n - end, n - begin)).
    std::vector<window> runs(bool inverted, std::size_t n) const {
        // Each item's first position: the elements credited below it and
        // below every item sorted before it.
        std::vector<std::size_t> start(m_items.size(), 0);
        std::size_t sum = 0;
        for (std::size_t idx : m_sorted) {
            sum += m_below[idx];
            start[idx] = sum;
        }
        std::vector<window> out;
        if (!inverted) {
            for (std::size_t i = 0; i < m_items.size(); ++i)
                for (std::size_t j = 0; j < m_count[i]; ++j)
                    out.push_back({start[i] + j, start[i] + j + 1});
            return out;
        }
        std::size_t prev = 0;
        for (std::size_t idx : m_sorted) {
            if (m_count[idx] == 0) continue;
            out.push_back({prev, start[idx]});
            prev = start[idx] + m_count[idx];
        }
        out.push_back({prev, n});
        return out;
    }

private:
    /// glibc's msort_with_tmp over m_sorted[b, b + n).
    void merge_sort(std::size_t b, std::size_t n, std::vector<std::size_t>& tmp) {
        if (n <= 1) return;
        std::size_t n1 = n / 2;
        std::size_t n2 = n - n1;
        merge_sort(b, n1, tmp);
        merge_sort(b + n1, n2, tmp);
        std::size_t i = b;
        std::size_t j = b + n1;
        std::size_t t = 0;
        while (n1 > 0 && n2 > 0) {
            if (compare(m_items[m_sorted[i]], m_items[m_sorted[j]]) <= 0) {
                tmp[t++] = m_sorted[i++];
                --n1;
            } else {
                tmp[t++] = m_sorted[j++];
                --n2;
            }
        }
        while (n1-- > 0)
            tmp[t++] = m_sorted[i++];
        // What is left of the right half is already in place.
        for (std::size_t k = 0; k < t; ++k)
            m_sorted[b + k] = tmp[k];
    }

    const std::vector<value>& m_items;
    std::vector<std::size_t> m_sorted;
    std::vector<std::size_t> m_below; // per item: elements whose search ended just below it
    std::vector<std::size_t> m_count; // per item: elements credited to it
};

} // namespace kvmodel::cdt::detail
