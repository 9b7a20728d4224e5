// tests/cdt/reference_list.hpp
//
// A naive reference model of Aerospike's list operations and nested contexts,
// written for obviousness, not speed: a list is a std::vector<value>, ranks
// come from a stable sort, every lookup is a linear scan, selections are sets
// of positions, and each selector follows the server's own code path
// (aerospike-server as/src/base/particle_list.c, cdt.c) step by step, so the
// two can be read side by side. Contexts are resolved on copies, level by
// level; maps reached through them are handed to the map reference model
// (reference_map.hpp). The randomized differential test (list_fuzz_test.cpp)
// runs it against the engine (cdt/detail/list_engine.hpp, cdt/context.hpp).
//
// Index/count arithmetic is redone here from the server's calc_index_count /
// calc_rel_index_count, independently of cdt/detail/common.hpp.
#pragma once

#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "reference_map.hpp"

namespace kvmodel::test::lref {

using cdt::op;
using cdt::op_code;
using cdt::return_type;

/// A list as the reference sees it.
struct rlist {
    std::vector<value> v;
    bool ordered = false;
    bool persist = false;
};

/// An op's outcome: a value, or an error status; `wrote` as the engine's
/// list_run::wrote (the op wrote the list, so a create context keeps it).
struct outcome {
    bool ok = true;
    status code = status::ok;
    value v;
    bool wrote = false;
};
inline outcome ok(value v) {
    return {true, status::ok, std::move(v), false};
}
inline outcome err(status s) {
    return {false, s, value(), false};
}

inline int cmpw(const value& a, const value& b) {
    return kvmodel::detail::cdt_compare(a, b, true);
}
inline int cmpx(const value& a, const value& b) {
    return kvmodel::detail::cdt_compare(a, b, false);
}

inline std::size_t count_less(const rlist& l, const value& p) {
    std::size_t c = 0;
    for (const value& e : l.v)
        if (cmpw(e, p) < 0)
            ++c;
    return c;
}
inline std::size_t count_equal(const rlist& l, const value& p) {
    std::size_t c = 0;
    for (const value& e : l.v)
        if (cmpw(e, p) == 0)
            ++c;
    return c;
}
/// Positions in rank order (ties by position).
inline std::vector<std::size_t> rank_order(const rlist& l) {
    std::vector<std::size_t> o(l.v.size());
    for (std::size_t i = 0; i < o.size(); ++i)
        o[i] = i;
    std::stable_sort(
        o.begin(), o.end(), [&](std::size_t a, std::size_t b) { return cmpx(l.v[a], l.v[b]) < 0; });
    return o;
}

/// The positions the server's order heap picks for ranks [b, b + c) of an
/// UNORDERED list (cdt.c order_heap_init_build_by_range_temp), written out
/// plainly: a binary heap of positions (min-heap when the window is nearer
/// the low end, else max-heap; a tie between children goes left, a child
/// replaces its parent only when strictly better) pops the ranks beyond the
/// window's near side, then the window's c ranks, each to the array's end.
/// Among equal values this, not list order, decides which are picked.
inline std::vector<std::size_t> heap_pick(const rlist& l, std::size_t b, std::size_t c) {
    std::size_t n = l.v.size();
    bool low = b <= n - b - c;
    std::size_t skip = low ? b : n - b - c;
    auto better = [&](std::size_t x, std::size_t y) {
        int r = cmpx(l.v[x], l.v[y]);
        return low ? r < 0 : r > 0;
    };
    std::vector<std::size_t> h;
    for (std::size_t i = 0; i < n; ++i)
        h.push_back(i);
    std::size_t size = n;
    auto sift = [&](std::size_t i) {
        for (;;) {
            std::size_t a = 2 * i + 1;
            std::size_t z = 2 * i + 2;
            if (a >= size)
                return;
            std::size_t ch = a;
            if (z < size && better(h[z], h[a]))
                ch = z;
            if (!better(h[ch], h[i]))
                return;
            std::swap(h[ch], h[i]);
            i = ch;
        }
    };
    for (std::size_t i = n / 2; i > 0; --i)
        sift(i - 1);
    for (std::size_t k = 0; k < skip + c; ++k) {
        std::size_t top = h[0];
        --size;
        h[0] = h[size];
        sift(0);
        h[size] = top;
    }
    return std::vector<std::size_t>(h.begin() + static_cast<std::ptrdiff_t>(size),
                                    h.begin() + static_cast<std::ptrdiff_t>(size + c));
}

inline value vint(std::int64_t i) {
    return value(i);
}
inline value vsz(std::size_t i) {
    return value(static_cast<std::int64_t>(i));
}
inline value vlist(std::vector<value> x) {
    return value(list(std::move(x)));
}

inline bool storable(const value& v) {
    return test::ref_storable(v);
}

// ------------------------------------------------------------- arithmetic

/// Server's calc_index_count (counts unsigned; left out = UINT32_MAX).
inline std::uint64_t wire(const std::optional<std::int64_t>& c) {
    return c ? static_cast<std::uint64_t>(*c) : 0xffffffffULL;
}
struct span {
    std::size_t b = 0;
    std::size_t c = 0;
};
inline bool
calc_index_count(std::int64_t index, std::uint64_t count, std::size_t n, bool multi, span& out) {
    auto sn = static_cast<std::int64_t>(n);
    if (!multi) {
        if (index >= sn)
            return false;
        if (index < 0)
            index += sn;
        if (index < 0)
            return false;
        out = {static_cast<std::size_t>(index),
               std::min<std::uint64_t>(count, n - static_cast<std::size_t>(index))};
        return true;
    }
    if (index >= sn) {
        out = {n, 0};
        return true;
    }
    if (index < 0)
        index += sn;
    if (index < 0) {
        std::uint64_t over = std::uint64_t{0} - static_cast<std::uint64_t>(index);
        out = {0,
               over < count ? static_cast<std::size_t>(std::min<std::uint64_t>(count - over, n))
                            : 0};
        return true;
    }
    auto b = static_cast<std::size_t>(index);
    out = {b, static_cast<std::size_t>(std::min<std::uint64_t>(count, n - b))};
    return true;
}
/// Server's calc_rel_index_count.
inline void calc_rel(std::int64_t index,
                     std::uint64_t count,
                     std::size_t rel,
                     std::int64_t& out_i,
                     std::uint64_t& out_c) {
    // Saturate instead of overflowing: a start past INT64_MAX selects nothing.
    if (index > 0 &&
        static_cast<std::int64_t>(rel) > std::numeric_limits<std::int64_t>::max() - index) {
        out_i = std::numeric_limits<std::int64_t>::max();
        out_c = count;
        return;
    }
    index += static_cast<std::int64_t>(rel);
    if (index < 0) {
        std::uint64_t over = std::uint64_t{0} - static_cast<std::uint64_t>(index);
        count = count > over ? count - over : 0;
        index = 0;
    }
    out_i = index;
    out_c = count;
}

// ------------------------------------------------------------- results

inline bool rev(return_type t) {
    return t == return_type::reverse_index || t == return_type::reverse_rank;
}

/// add_int_range: c ints from s; reversed runs come out ascending.
inline void run(std::vector<value>& out, std::size_t s, std::size_t c, std::size_t n, bool r) {
    std::size_t first = r ? n - s - c : s;
    for (std::size_t i = 0; i < c; ++i)
        out.push_back(vsz(first + i));
}

inline value not_found(return_type t, bool multi) {
    switch (t) {
    case return_type::index:
    case return_type::reverse_index:
    case return_type::rank:
    case return_type::reverse_rank:
        return multi ? vlist({}) : vint(-1);
    case return_type::count:
        return vint(0);
    case return_type::exists:
        return value(false);
    case return_type::value:
        return multi ? vlist({}) : value();
    default:
        return value();
    }
}

inline value
index_rank_count(return_type t, bool multi, bool inv, std::size_t s, std::size_t c, std::size_t n) {
    switch (t) {
    case return_type::count:
        return vsz(inv ? n - c : c);
    case return_type::exists:
        return value(inv ? c == 0 : c != 0);
    case return_type::index:
    case return_type::reverse_index:
    case return_type::rank:
    case return_type::reverse_rank: {
        if (!multi) {
            if (c == 0)
                return vint(-1);
            return vsz(rev(t) ? n - s - 1 : s);
        }
        std::vector<value> out;
        if (inv) {
            run(out, 0, s, n, rev(t));
            run(out, s + c, n - s - c, n, rev(t));
        } else {
            run(out, s, c, n, rev(t));
        }
        return vlist(std::move(out));
    }
    default:
        return value();
    }
}

/// Per position, in the order given: INDEX/REVERSE_INDEX (element by
/// element), or VALUE.
inline value
by_positions(const rlist& l, return_type t, bool multi, const std::vector<std::size_t>& pos) {
    std::size_t n = l.v.size();
    std::vector<value> out;
    for (std::size_t p : pos) {
        if (t == return_type::value)
            out.push_back(l.v[p]);
        else
            out.push_back(vsz(rev(t) ? n - 1 - p : p));
    }
    if (!multi)
        return out.front();
    return vlist(std::move(out));
}

/// RANK of an UNORDERED list's element: its count of strictly smaller ones.
inline value unordered_rank(const rlist& l, std::size_t p, return_type t) {
    std::size_t r = 0;
    for (const value& e : l.v)
        if (cmpx(e, l.v[p]) < 0)
            ++r;
    return vsz(rev(t) ? l.v.size() - r - 1 : r);
}

inline void erase_set(rlist& l, const std::vector<bool>& gone) {
    std::vector<value> keep;
    for (std::size_t i = 0; i < l.v.size(); ++i)
        if (!gone[i])
            keep.push_back(l.v[i]);
    l.v = std::move(keep);
    if (l.v.empty())
        l.persist = false;
}

// ------------------------------------------------------------- selectors

struct sel {
    rlist& l;
    return_type t;
    bool inv;
    bool remove;
    bool wrote = false;

    /// packed_list_get_remove_by_index_range on (index, count).
    outcome index_range(std::int64_t index, std::uint64_t count, bool multi) {
        std::size_t n = l.v.size();
        span w;
        if (!calc_index_count(index, count, n, multi, w))
            return err(status::op_not_applicable);
        return index_window(w, multi);
    }
    outcome index_window(span w, bool multi) {
        std::size_t n = l.v.size();
        if (inv) {
            if (!multi)
                return err(status::op_not_applicable);
            if (w.c == 0)
                w = {0, n};
            else if (w.b == 0)
                w = {w.c, n - w.c};
            else if (w.b + w.c >= n)
                w = {0, w.b};
            else
                return trim(w);
        }
        if (w.c == 0)
            return ok(not_found(t, multi));
        value out;
        switch (t) {
        case return_type::none:
            break;
        case return_type::count:
        case return_type::exists:
        case return_type::index:
        case return_type::reverse_index:
            out = index_rank_count(t, multi, false, w.b, w.c, n);
            break;
        case return_type::rank:
        case return_type::reverse_rank:
            if (w.c == n)
                out = index_rank_count(t, multi, false, 0, w.c, n);
            else if (l.ordered)
                out = index_rank_count(t, multi, false, w.b, w.c, n);
            else {
                std::vector<value> v;
                for (std::size_t p = w.b; p < w.b + w.c; ++p)
                    v.push_back(unordered_rank(l, p, t));
                out = multi ? vlist(std::move(v)) : v.front();
            }
            break;
        case return_type::value: {
            std::vector<value> v(l.v.begin() + static_cast<std::ptrdiff_t>(w.b),
                                 l.v.begin() + static_cast<std::ptrdiff_t>(w.b + w.c));
            out = multi ? vlist(std::move(v)) : v.front();
            break;
        }
        default:
            break;
        }
        if (remove) {
            std::vector<bool> gone(n, false);
            for (std::size_t p = w.b; p < w.b + w.c; ++p)
                gone[p] = true;
            erase_set(l, gone);
            wrote = true;
        }
        return ok(out);
    }
    outcome trim(span w) {
        std::size_t n = l.v.size();
        std::vector<std::size_t> head;
        std::vector<std::size_t> tail;
        for (std::size_t p = 0; p < w.b; ++p)
            head.push_back(p);
        for (std::size_t p = w.b + w.c; p < n; ++p)
            tail.push_back(p);
        std::size_t rm = head.size() + tail.size();
        value out;
        switch (t) {
        case return_type::none:
            break;
        case return_type::count:
            out = vsz(rm);
            break;
        case return_type::exists:
            out = value(rm != 0);
            break;
        case return_type::index:
        case return_type::reverse_index: {
            std::vector<value> v;
            run(v, 0, head.size(), n, rev(t));
            run(v, w.b + w.c, tail.size(), n, rev(t));
            out = vlist(std::move(v));
            break;
        }
        case return_type::rank:
        case return_type::reverse_rank: {
            std::vector<value> v;
            if (l.ordered) {
                run(v, 0, head.size(), n, rev(t));
                run(v, w.b + w.c, tail.size(), n, rev(t));
            } else {
                for (std::size_t p : head)
                    v.push_back(unordered_rank(l, p, t));
                for (std::size_t p : tail)
                    v.push_back(unordered_rank(l, p, t));
            }
            out = vlist(std::move(v));
            break;
        }
        case return_type::value: {
            std::vector<value> v;
            for (std::size_t p : head)
                v.push_back(l.v[p]);
            for (std::size_t p : tail)
                v.push_back(l.v[p]);
            out = vlist(std::move(v));
            break;
        }
        default:
            break;
        }
        if (remove) {
            std::vector<bool> gone(n, true);
            for (std::size_t p = w.b; p < w.b + w.c; ++p)
                gone[p] = false;
            erase_set(l, gone);
            wrote = true;
        }
        return ok(out);
    }

    /// packed_list_get_remove_by_rank_range on an UNORDERED list.
    outcome rank_range(std::int64_t rank, std::uint64_t count, bool multi) {
        if (inv && !multi)
            return err(status::op_not_applicable);
        std::size_t n = l.v.size();
        span w;
        if (l.ordered)
            return index_range(rank, count, multi);
        if (!calc_index_count(rank, count, n, multi, w))
            return err(status::op_not_applicable);
        return rank_window(w, multi);
    }
    outcome rank_window(span w, bool multi) {
        std::size_t n = l.v.size();
        std::size_t rm = inv ? n - w.c : w.c;
        if (rm == 0)
            return ok(not_found(t, multi));
        std::vector<std::size_t> order = rank_order(l);
        std::vector<bool> picked(n, false);
        for (std::size_t p : heap_pick(l, w.b, w.c))
            picked[p] = true;
        if (inv)
            picked.flip();
        std::vector<std::size_t> pos;
        for (std::size_t p = 0; p < n; ++p)
            if (picked[p])
                pos.push_back(p);
        value out;
        switch (t) {
        case return_type::none:
        case return_type::count:
        case return_type::exists:
        case return_type::rank:
        case return_type::reverse_rank:
            out = index_rank_count(t, multi, inv, w.b, w.c, n);
            break;
        case return_type::index:
        case return_type::reverse_index:
            out = by_positions(l, t, multi, pos);
            break;
        case return_type::value:
            if (inv) {
                out = by_positions(l, t, multi, pos);
            } else {
                std::vector<value> v;
                bool top_down = w.b <= n - w.b - w.c;
                for (std::size_t k = 0; k < w.c; ++k)
                    v.push_back(l.v[order[top_down ? w.b + w.c - 1 - k : w.b + k]]);
                out = multi ? vlist(std::move(v)) : v.front();
            }
            break;
        default:
            break;
        }
        if (remove) {
            erase_set(l, picked);
            wrote = true;
        }
        return ok(out);
    }

    /// packed_list_get_remove_by_value_interval.
    outcome value_interval(const value& start, const std::optional<value>& end, bool single) {
        std::size_t n = l.v.size();
        std::size_t rank = count_less(l, start);
        if (l.ordered) {
            std::size_t count = 0;
            if (single)
                count = count_equal(l, start);
            else if (!end)
                count = n - rank;
            else if (cmpw(start, *end) < 0) {
                std::size_t e = count_less(l, *end);
                count = e > rank ? e - rank : 0;
            }
            return index_range(static_cast<std::int64_t>(rank), count, true);
        }
        std::vector<bool> hit(n, false);
        std::size_t matched = 0;
        for (std::size_t p = 0; p < n; ++p) {
            if (cmpw(l.v[p], start) < 0)
                continue;
            bool in = single ? cmpw(l.v[p], start) == 0 : (!end || cmpw(l.v[p], *end) < 0);
            if (in) {
                hit[p] = true;
                ++matched;
            }
        }
        if (inv)
            hit.flip();
        std::size_t rm = inv ? n - matched : matched;
        std::vector<std::size_t> pos;
        for (std::size_t p = 0; p < n; ++p)
            if (hit[p])
                pos.push_back(p);
        value out;
        switch (t) {
        case return_type::none:
        case return_type::count:
        case return_type::exists:
        case return_type::rank:
        case return_type::reverse_rank:
            out = index_rank_count(t, true, inv, rank, matched, n);
            break;
        case return_type::index:
        case return_type::reverse_index:
        case return_type::value:
            out = by_positions(l, t, true, pos);
            break;
        default:
            break;
        }
        if (remove && rm != 0) {
            erase_set(l, hit);
            wrote = true;
        }
        return ok(out);
    }

    outcome rel_rank(const value& v, std::int64_t rank, const std::optional<std::int64_t>& count) {
        std::size_t rel = count_less(l, v);
        std::int64_t i = 0;
        std::uint64_t c = 0;
        calc_rel(rank, wire(count), rel, i, c);
        if (l.ordered)
            return index_range(i, c, true);
        return rank_range(i, c, true);
    }

    /// packed_list_get_remove_all_by_value_list.
    outcome value_list(const std::vector<value>& items) {
        std::size_t n = l.v.size();
        if (items.empty()) {
            if (!inv)
                return ok(not_found(t, true));
            inv = false;
            return index_range(0, n, true);
        }
        std::vector<bool> hit(n, false);
        // A WILDCARD item on an UNORDERED list: the server's own search.
        std::optional<ref_item_search> search;
        bool by_item = t == return_type::rank || t == return_type::reverse_rank;
        if (!l.ordered && ref_any_wildcard(items)) {
            search.emplace(items);
            for (std::size_t p = 0; p < n; ++p)
                hit[p] = search->match(l.v[p], by_item);
        } else {
            for (std::size_t p = 0; p < n; ++p)
                for (const value& it : items)
                    if (cmpw(l.v[p], it) == 0)
                        hit[p] = true;
        }
        if (inv)
            hit.flip();
        std::size_t rm = 0;
        std::vector<std::size_t> pos;
        for (std::size_t p = 0; p < n; ++p)
            if (hit[p]) {
                ++rm;
                pos.push_back(p);
            }
        value out;
        switch (t) {
        case return_type::none:
            break;
        case return_type::count:
            out = vsz(rm);
            break;
        case return_type::exists:
            out = value(rm != 0);
            break;
        case return_type::index:
        case return_type::reverse_index:
            if (inv || !l.ordered)
                out = by_positions(l, t, true, pos);
            else
                out = ordered_item_runs(items);
            break;
        case return_type::rank:
        case return_type::reverse_rank:
            if (search) {
                std::vector<value> v;
                for (const auto& [start, c] : search->ranges(inv, n))
                    run(v, start, c, n, rev(t));
                out = vlist(std::move(v));
            } else if (l.ordered) {
                out = inv ? by_positions(l, t, true, pos) : ordered_item_runs(items);
            } else {
                out = inv ? unordered_complement_ranks(items) : unordered_item_ranks(items);
            }
            break;
        case return_type::value:
            if (inv || !l.ordered) {
                out = by_positions(l, t, true, pos);
            } else {
                std::vector<value> v;
                for (const value& it : items)
                    for (const value& e : l.v)
                        if (cmpw(e, it) == 0)
                            v.push_back(e);
                out = vlist(std::move(v));
            }
            break;
        default:
            break;
        }
        if (remove && rm != 0) {
            erase_set(l, hit);
            wrote = true;
        }
        return ok(out);
    }
    value ordered_item_runs(const std::vector<value>& items) const {
        std::vector<value> out;
        for (const value& it : items)
            run(out, count_less(l, it), count_equal(l, it), l.v.size(), rev(t));
        return vlist(std::move(out));
    }
    /// Each element credited to the last item (argument order) it matches;
    /// per item in argument order, the ranks of its elements.
    value unordered_item_ranks(const std::vector<value>& items) const {
        std::size_t n = l.v.size();
        std::vector<std::size_t> order = rank_order(l);
        std::vector<value> out;
        for (std::size_t i = 0; i < items.size(); ++i) {
            for (std::size_t r = 0; r < n; ++r) {
                const value& e = l.v[order[r]];
                if (cmpw(e, items[i]) != 0)
                    continue;
                bool later = false;
                for (std::size_t j = i + 1; j < items.size(); ++j)
                    if (cmpw(e, items[j]) == 0)
                        later = true;
                if (!later)
                    out.push_back(vsz(rev(t) ? n - 1 - r : r));
            }
        }
        return vlist(std::move(out));
    }
    /// Ranks matching no item, as ascending runs (reversed runs ascending).
    value unordered_complement_ranks(const std::vector<value>& items) const {
        std::size_t n = l.v.size();
        std::vector<std::size_t> order = rank_order(l);
        std::vector<bool> matched(n, false);
        for (std::size_t r = 0; r < n; ++r)
            for (const value& it : items)
                if (cmpw(l.v[order[r]], it) == 0)
                    matched[r] = true;
        std::vector<value> out;
        std::size_t r = 0;
        while (r < n) {
            if (matched[r]) {
                ++r;
                continue;
            }
            std::size_t s = r;
            while (r < n && !matched[r])
                ++r;
            run(out, s, r - s, n, rev(t));
        }
        return vlist(std::move(out));
    }
};

// ------------------------------------------------------------- writes

struct writer {
    rlist& l;
    const op& o;
    std::size_t limit;
    bool wrote = false;

    bool flag(std::uint32_t f) const { return (o.lpolicy.flags & f) != 0; }
    bool no_fail() const { return flag(cdt::list_write_flags::no_fail); }
    bool partial() const { return no_fail() && flag(cdt::list_write_flags::partial); }
    bool unique() const { return flag(cdt::list_write_flags::add_unique); }
    outcome exists(value noop) const {
        if (no_fail())
            return ok(std::move(noop));
        return err(status::element_exists);
    }
    bool in_list(const value& v) const { return count_equal(l, v) != 0; }

    /// packed_list_insert (UNORDERED).
    outcome insert(std::int64_t index,
                   const std::vector<value>& vals,
                   bool items,
                   bool set_result,
                   value own = value()) {
        std::size_t n = l.v.size();
        auto res = [&](std::size_t s) {
            return set_result ? vsz(s) : own;
        };
        if (items && vals.empty()) {
            wrote = true;
            return ok(res(n));
        }
        if (index > std::numeric_limits<std::int32_t>::max())
            return err(status::op_not_applicable);
        if (index < 0)
            index += static_cast<std::int64_t>(n);
        if (index < 0)
            return err(status::op_not_applicable);
        auto u = static_cast<std::size_t>(index);
        if (flag(cdt::list_write_flags::insert_bounded) && u > n) {
            if (no_fail())
                return ok(res(n));
            return err(status::op_not_applicable);
        }
        std::vector<value> add;
        if (!unique()) {
            add = vals;
        } else {
            for (std::size_t i = 0; i < vals.size(); ++i) {
                if (in_list(vals[i])) {
                    if (items && partial())
                        continue;
                    return exists(res(n));
                }
                bool rep = false;
                for (std::size_t j = 0; j < i; ++j)
                    if (cmpx(vals[j], vals[i]) == 0)
                        rep = true;
                if (rep) {
                    if (!no_fail())
                        return err(status::op_not_applicable);
                    if (!partial())
                        return ok(res(n));
                    continue;
                }
                add.push_back(vals[i]);
            }
            if (add.empty())
                return ok(res(n));
        }
        if (u >= n) {
            if (u + add.size() >=
                static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
                return err(status::parameter_error);
            if (u + add.size() > limit)
                return err(status::record_too_big);
            while (l.v.size() < u)
                l.v.push_back(value());
            for (const value& v : add)
                l.v.push_back(v);
        } else {
            l.v.insert(l.v.begin() + static_cast<std::ptrdiff_t>(u), add.begin(), add.end());
        }
        wrote = true;
        return ok(res(l.v.size()));
    }

    outcome append(const std::vector<value>& vals, bool items) {
        for (const value& v : vals)
            if (!storable(v))
                return err(status::parameter_error);
        if (!l.ordered)
            return insert(static_cast<std::int64_t>(l.v.size()), vals, items, true);
        std::size_t n = l.v.size();
        if (items && vals.empty()) {
            wrote = true;
            return ok(vsz(n));
        }
        std::vector<value> sorted = vals;
        std::stable_sort(sorted.begin(), sorted.end(), [](const value& a, const value& b) {
            return cmpx(a, b) < 0;
        });
        if (unique() && items) {
            std::vector<value> dedup;
            for (const value& v : sorted)
                if (dedup.empty() || cmpx(dedup.back(), v) != 0)
                    dedup.push_back(v);
            if (dedup.size() != sorted.size()) {
                if (!no_fail())
                    return err(status::op_not_applicable);
                if (!partial())
                    return ok(vsz(n));
                sorted = dedup;
            }
        }
        std::vector<value> add;
        for (const value& v : sorted) {
            if (unique() && in_list(v)) {
                if (items && partial())
                    continue;
                return exists(vsz(n));
            }
            add.push_back(v);
        }
        // Every place is found in the list as it was, by the server's binary
        // search (which stops at the first equal element it probes); items
        // sharing a place keep their sorted order.
        std::vector<std::size_t> at;
        for (const value& v : add)
            at.push_back(server_search(l.v, v));
        for (std::size_t k = 0; k < add.size(); ++k)
            l.v.insert(l.v.begin() + static_cast<std::ptrdiff_t>(at[k] + k), add[k]);
        wrote = true;
        return ok(vsz(l.v.size()));
    }

    /// order_index_find_rank_by_value without a target, on a sorted vector.
    static std::size_t server_search(const std::vector<value>& sorted, const value& v) {
        std::size_t n = sorted.size();
        if (n == 0)
            return 0;
        std::size_t lower = 0, upper = n, rank = n / 2;
        for (;;) {
            int c = cmpx(v, sorted[rank]);
            if (c == 0)
                return rank;
            if (c > 0) {
                if (rank >= upper - 1)
                    return rank + 1;
                lower = rank + 1;
                rank = (rank + upper) / 2;
            } else {
                if (rank == lower)
                    return rank;
                upper = rank;
                rank = (rank + lower) / 2;
            }
        }
    }

    outcome set(std::int64_t index, const value& v, value own = value()) {
        std::size_t n = l.v.size();
        if (index >= static_cast<std::int64_t>(n))
            return insert(index, {v}, false, false, std::move(own));
        if (index < 0)
            index += static_cast<std::int64_t>(n);
        if (index < 0)
            return err(status::op_not_applicable);
        auto u = static_cast<std::size_t>(index);
        if (unique()) {
            std::size_t first = n;
            std::size_t count = 0;
            for (std::size_t p = 0; p < n; ++p)
                if (cmpx(l.v[p], v) == 0) {
                    if (first == n)
                        first = p;
                    ++count;
                }
            if (count != 0 && (first != u || count > 1))
                return exists(own);
        }
        l.v[u] = v;
        wrote = true;
        return ok(own);
    }

    outcome increment() {
        std::size_t n = l.v.size();
        std::int64_t index = o.index;
        if (index > std::numeric_limits<std::int32_t>::max())
            return err(status::op_not_applicable);
        if (index < 0)
            index += static_cast<std::int64_t>(n);
        if (index < 0)
            return err(status::op_not_applicable);
        auto u = static_cast<std::size_t>(index);
        const value& d = o.val;
        if (!d.is_nil() && !d.is_int() && !d.is_double())
            return err(status::parameter_error);
        value next;
        if (u < n) {
            const value& e = l.v[u];
            if (e.is_int()) {
                std::int64_t di = 1;
                if (d.is_int())
                    di = d.as_int();
                if (d.is_double()) {
                    double x = d.as_double();
                    di = (std::isnan(x) || x >= 9223372036854775808.0 || x < -9223372036854775808.0)
                             ? std::numeric_limits<std::int64_t>::min()
                             : static_cast<std::int64_t>(x);
                }
                next = static_cast<std::int64_t>(static_cast<std::uint64_t>(e.as_int()) +
                                                 static_cast<std::uint64_t>(di));
            } else if (e.is_double()) {
                double dd = d.is_double() ? d.as_double()
                                          : static_cast<double>(d.is_int() ? d.as_int() : 1);
                next = e.as_double() + dd;
            } else {
                return err(status::parameter_error);
            }
        } else {
            // From 0: 0.0 + -0.0 is +0.0.
            next = d.is_nil() ? vint(1) : d.is_double() ? value(0.0 + d.as_double()) : d;
        }
        if (!l.ordered)
            return set(static_cast<std::int64_t>(u), next, next);
        if (u > n)
            return err(status::op_not_applicable);
        std::size_t less = count_less(l, next);
        std::size_t eq = count_equal(l, next);
        if (unique() && eq != 0) {
            if (less == u)
                return ok(next);
            return exists(next);
        }
        if (u < n)
            l.v.erase(l.v.begin() + static_cast<std::ptrdiff_t>(u));
        l.v.insert(l.v.begin() + static_cast<std::ptrdiff_t>(count_less(l, next)), next);
        wrote = true;
        return ok(next);
    }
};

/// Applies a list op to an existing reference list (no context).
inline std::optional<outcome> raw_range(rlist& l, const op& o, std::size_t limit, bool top_level);

inline outcome apply_list(rlist& l, const op& o, std::size_t limit, bool top_level) {
    if (const std::int32_t code = o.return_type & 0xffff; code >= 9 && code <= 12)
        if (std::optional<outcome> r = raw_range(l, o, limit, top_level)) return *r;
    writer w{l, o, limit};
    auto done = [&](outcome r) {
        r.wrote = r.ok && w.wrote;
        return r;
    };
    switch (o.code) {
    case op_code::list_size:
        return ok(vsz(l.v.size()));
    case op_code::list_create:
    case op_code::list_set_order: {
        if (o.order != list_order::ordered && o.order != list_order::unordered)
            return err(status::op_not_applicable);
        bool ord = o.order == list_order::ordered;
        if (ord && !l.ordered)
            std::stable_sort(l.v.begin(), l.v.end(), [](const value& a, const value& b) {
                return cmpx(a, b) < 0;
            });
        l.ordered = ord;
        l.persist = o.persist_index && top_level;
        outcome r = ok(value());
        r.wrote = true;
        return r;
    }
    case op_code::list_sort: {
        if (l.v.size() <= 1)
            return ok(value());
        std::stable_sort(
            l.v.begin(), l.v.end(), [](const value& a, const value& b) { return cmpx(a, b) < 0; });
        if ((o.sort_flags & 1U) != 0 && !l.ordered)
            std::reverse(l.v.begin(), l.v.end());
        if ((o.sort_flags & cdt::list_sort_flags::drop_duplicates) != 0) {
            std::vector<value> d;
            for (const value& v : l.v)
                if (d.empty() || cmpx(d.back(), v) != 0)
                    d.push_back(v);
            l.v = d;
        }
        outcome r = ok(value());
        r.wrote = true;
        return r;
    }
    case op_code::list_clear: {
        l.v.clear();
        l.persist = false;
        outcome r = ok(value());
        r.wrote = true;
        return r;
    }
    case op_code::list_append:
        return done(w.append({o.key}, false));
    case op_code::list_append_items:
        return done(w.append(o.values, true));
    case op_code::list_insert:
    case op_code::list_insert_items: {
        bool items = o.code == op_code::list_insert_items;
        std::vector<value> vals = items ? o.values : std::vector<value>{o.key};
        for (const value& v : vals)
            if (!storable(v))
                return err(status::parameter_error);
        if (l.ordered)
            return err(status::op_not_applicable);
        return done(w.insert(o.index, vals, items, true));
    }
    case op_code::list_set:
        if (!storable(o.key))
            return err(status::parameter_error);
        if (l.ordered)
            return err(status::op_not_applicable);
        return done(w.set(o.index, o.key));
    case op_code::list_increment:
        return done(w.increment());
    default:
        break;
    }

    return_type t = return_type::none;
    bool inv = false;
    switch (o.code) {
    case op_code::list_get:
    case op_code::list_get_range:
    case op_code::list_pop:
    case op_code::list_pop_range:
        t = return_type::value;
        break;
    case op_code::list_remove:
    case op_code::list_remove_range:
        t = return_type::count;
        break;
    case op_code::list_trim:
        t = return_type::count;
        inv = true;
        break;
    default: {
        std::int32_t base = o.return_type & 0xffff;
        if (base != 0 && base != 1 && base != 2 && base != 3 && base != 4 && base != 5 &&
            base != 7 && base != 13)
            return err(status::op_not_applicable);
        t = static_cast<return_type>(base);
        inv = (o.return_type & cdt::return_inverted) != 0;
    }
    }
    bool remove = cdt::classify(o.code) == cdt::op_class::remove;
    sel s{l, t, inv, remove};
    outcome r;
    switch (o.code) {
    case op_code::list_get:
    case op_code::list_pop:
    case op_code::list_remove:
    case op_code::list_get_by_index:
    case op_code::list_remove_by_index:
        r = s.index_range(o.index, 1, false);
        break;
    case op_code::list_get_range:
    case op_code::list_pop_range:
    case op_code::list_remove_range:
    case op_code::list_trim:
    case op_code::list_get_by_index_range:
    case op_code::list_remove_by_index_range:
        r = s.index_range(o.index, wire(o.count), true);
        break;
    case op_code::list_get_by_rank:
    case op_code::list_remove_by_rank:
        r = s.rank_range(o.index, 1, false);
        break;
    case op_code::list_get_by_rank_range:
    case op_code::list_remove_by_rank_range:
        r = s.rank_range(o.index, wire(o.count), true);
        break;
    case op_code::list_get_by_value:
    case op_code::list_remove_by_value:
        r = s.value_interval(o.key, std::nullopt, true);
        break;
    case op_code::list_get_by_value_list:
    case op_code::list_remove_by_value_list:
        r = s.value_list(o.values);
        break;
    case op_code::list_get_by_value_range:
    case op_code::list_remove_by_value_range:
        r = s.value_interval(o.begin, o.end, false);
        break;
    case op_code::list_get_by_value_rel_rank_range:
    case op_code::list_remove_by_value_rel_rank_range:
        r = s.rel_rank(o.key, o.index, o.count);
        break;
    default:
        return err(status::parameter_error);
    }
    r.wrote = r.ok && s.wrote;
    return r;
}

inline rlist from_value(const value& v) {
    rlist l;
    l.v = v.as_list().to_vector();
    l.ordered = v.as_list().is_ordered();
    l.persist = v.as_list().persist_index();
    return l;
}
inline value to_value(const rlist& l) {
    list out(l.v, l.ordered ? list_order::ordered : list_order::unordered);
    out.set_persist_index(l.persist);
    return value(std::move(out));
}

/// The raw return types 9-12 (INDEX_RANGE, REVINDEX_RANGE, RANK_RANGE,
/// REVRANK_RANGE) on a list selector, as 8.1.2 answered them
/// (tests/adapters/data/item7_raw_return_types): [start, count] of the
/// selection in the selector's space (index for index selectors, rank for the
/// rest; both on an ORDERED list), start mirrored for 10 and 12; a code of
/// the other space, INVERTED, a value list or a single selector that finds
/// nothing is refused; nothing found is [n, 0] (on an UNORDERED list by value
/// with 12, [0, 0]) where the server's range path runs.
inline std::optional<outcome> raw_range(rlist& l, const op& o, std::size_t limit, bool top_level) {
    using oc = op_code;
    static constexpr std::pair<oc, oc> get_remove[] = {
        {oc::list_get_by_index, oc::list_remove_by_index},
        {oc::list_get_by_index_range, oc::list_remove_by_index_range},
        {oc::list_get_by_rank, oc::list_remove_by_rank},
        {oc::list_get_by_rank_range, oc::list_remove_by_rank_range},
        {oc::list_get_by_value, oc::list_remove_by_value},
        {oc::list_get_by_value_list, oc::list_remove_by_value_list},
        {oc::list_get_by_value_range, oc::list_remove_by_value_range},
        {oc::list_get_by_value_rel_rank_range, oc::list_remove_by_value_rel_rank_range}};
    oc get = oc::list_size;
    for (auto [g, r] : get_remove)
        if (o.code == g || o.code == r) get = g;
    if (get == oc::list_size)
        return std::nullopt; // not a selector
    const std::int32_t code = o.return_type & 0xffff;
    if ((o.return_type & cdt::return_inverted) != 0 || get == oc::list_get_by_value_list)
        return err(status::op_not_applicable);
    const bool index_sel = get == oc::list_get_by_index || get == oc::list_get_by_index_range;
    const bool single = get == oc::list_get_by_index || get == oc::list_get_by_rank;
    const bool reverse = code == 10 || code == 12;
    op g = o;
    g.code = get;
    g.return_type = static_cast<std::int32_t>(index_sel ? return_type::index : return_type::rank);
    rlist copy = l;
    outcome picked = apply_list(copy, g, limit, top_level);
    if (!picked.ok)
        return picked;
    std::vector<std::int64_t> pos;
    if (picked.v.is_int())
        pos.push_back(picked.v.as_int());
    else
        for (const value& p : picked.v.as_list())
            pos.push_back(p.as_int());
    const auto n = static_cast<std::int64_t>(l.v.size());
    const bool same_space = l.ordered || index_sel == (code == 9 || code == 10);
    if (pos.empty()) {
        if (single)
            return err(status::op_not_applicable);
        const bool range_path = get == oc::list_get_by_index_range ||
                                get == oc::list_get_by_rank_range ||
                                get == oc::list_get_by_value_rel_rank_range;
        if (!range_path && !same_space)
            return err(status::op_not_applicable);
        const bool at_zero = !l.ordered && get == oc::list_get_by_value && reverse;
        return ok(value(list{value(at_zero ? 0 : n), value(0)}));
    }
    if (!same_space)
        return err(status::op_not_applicable);
    const std::int64_t first = *std::min_element(pos.begin(), pos.end());
    const auto count = static_cast<std::int64_t>(pos.size());
    outcome r = ok(value(list{value(reverse ? n - first - count : first), value(count)}));
    if (o.code != get) {
        op rm = o;
        rm.return_type = static_cast<std::int32_t>(return_type::none);
        outcome removed = apply_list(l, rm, limit, top_level);
        if (!removed.ok)
            return removed;
        r.wrote = removed.wrote;
    }
    return r;
}

/// The reference for a list op on a bin or a nested target (no context).
inline outcome
apply_target(std::optional<value>& t, const op& o, std::size_t limit, bool top_level) {
    if (cdt::is_map_op(o.code)) {
        test::ref_outcome m = test::ref_apply(t, o, top_level);
        outcome r = m.ok ? ok(m.v) : err(m.code);
        r.wrote = true;
        return r;
    }
    if (!t) {
        cdt::op_class cls = cdt::classify(o.code);
        if (cls != cdt::op_class::modify)
            return ok(value());
        if (o.code == op_code::list_sort)
            return err(status::bin_type_error);
        rlist l;
        bool creates_ordered =
            (o.code == op_code::list_append || o.code == op_code::list_append_items ||
             o.code == op_code::list_increment) &&
            o.lpolicy.order == list_order::ordered;
        l.ordered = creates_ordered;
        outcome r = apply_list(l, o, limit, top_level);
        if (r.ok)
            t = to_value(l);
        return r;
    }
    if (!t->is_list())
        return err(status::bin_type_error);
    rlist l = from_value(*t);
    outcome r = apply_list(l, o, limit, top_level);
    if (r.ok)
        t = to_value(l);
    return r;
}

// ------------------------------------------------------------- contexts

/// Steps with list_create / map_create's flag ORed into the last one.
inline std::vector<cdt::ctx_step> effective_steps(const op& o) {
    std::vector<cdt::ctx_step> s = o.ctx;
    if (s.empty() || (o.code != op_code::list_create && o.code != op_code::map_create))
        return s;
    cdt::ctx_step& last = s.back();
    bool is_map_step =
        last.type == cdt::ctx_step::kind::map_key || last.type == cdt::ctx_step::kind::map_index ||
        last.type == cdt::ctx_step::kind::map_rank || last.type == cdt::ctx_step::kind::map_value;
    unsigned bits = 0;
    if (last.create) {
        if (is_map_step)
            bits = last.create_map_order == map_order::key_value_ordered ? 0xc0
                   : last.create_map_order == map_order::key_ordered     ? 0x80
                                                                         : 0x40;
        else
            bits = last.create_list_order == list_order::ordered ? 0xc0 : (last.pad ? 0x80 : 0x40);
    }
    if (o.code == op_code::list_create)
        bits |= o.order == list_order::ordered ? 0xc0 : (o.pad ? 0x80 : 0x40);
    else
        bits |= o.morder == map_order::key_value_ordered
                    ? 0xc0
                    : (o.morder == map_order::key_ordered ? 0x80 : 0x40);
    last.create = true;
    last.create_list_order = bits == 0xc0 ? list_order::ordered : list_order::unordered;
    last.pad = bits == 0x80;
    last.create_map_order = bits == 0xc0   ? map_order::key_value_ordered
                            : bits == 0x80 ? map_order::key_ordered
                                           : map_order::unordered;
    return s;
}

struct hit {
    bool found = false;
    bool create = false;
    std::size_t pos = 0;
    std::size_t pad = 0;
};

/// Where step s lands in container c; nullopt-like failure via ok = false.
inline bool resolve(const value& c, const cdt::ctx_step& s, hit& h) {
    using k = cdt::ctx_step::kind;
    bool map_step = s.type == k::map_key || s.type == k::map_index || s.type == k::map_rank ||
                    s.type == k::map_value;
    if (c.is_list()) {
        if (map_step)
            return false;
        std::vector<value> v = c.as_list().to_vector();
        bool ordered = c.as_list().is_ordered();
        auto n = static_cast<std::int64_t>(v.size());
        if (s.type == k::list_index || (s.type == k::list_rank && ordered)) {
            std::int64_t i = s.index < 0 ? s.index + n : s.index;
            if (i >= 0 && i < n) {
                h = {true, false, static_cast<std::size_t>(i), 0};
                return true;
            }
            if (!s.create)
                return false;
            if ((n == 0 && s.index == -1) || s.index == n || ordered) {
                h = {false, true, v.size(), 0};
                return true;
            }
            if (s.index > n && s.pad && s.create_list_order != list_order::ordered) {
                h = {false, true, v.size(), static_cast<std::size_t>(s.index - n)};
                return true;
            }
            return false;
        }
        if (s.type == k::list_rank) {
            std::int64_t r = s.index < 0 ? s.index + n : s.index;
            if (r < 0 || r >= n)
                return false;
            rlist tmp{v, false, false};
            h = {true, false, heap_pick(tmp, static_cast<std::size_t>(r), 1).front(), 0};
            return true;
        }
        for (std::size_t p = 0; p < v.size(); ++p)
            if (cmpw(v[p], s.val) == 0) {
                h = {true, false, p, 0};
                return true;
            }
        return false;
    }
    if (!map_step)
        return false;
    // A key holding a WILDCARD or INF fails the server's key rewrite: never found.
    if (s.type == k::map_key && !storable(s.val))
        return false;
    std::vector<std::pair<value, value>> e;
    for (const map_entry& x : c.as_map())
        e.emplace_back(x.key, x.val);
    auto n = static_cast<std::int64_t>(e.size());
    if (s.type == k::map_index || s.type == k::map_rank) {
        std::int64_t i = s.index < 0 ? s.index + n : s.index;
        if (i < 0 || i >= n)
            return false;
        auto u = static_cast<std::size_t>(i);
        if (s.type == k::map_rank) {
            std::vector<std::size_t> o(e.size());
            for (std::size_t j = 0; j < o.size(); ++j)
                o[j] = j;
            std::stable_sort(o.begin(), o.end(), [&](std::size_t a, std::size_t b) {
                return cmpx(e[a].second, e[b].second) < 0;
            });
            u = o[u];
        }
        h = {true, false, u, 0};
        return true;
    }
    for (std::size_t p = 0; p < e.size(); ++p) {
        const value& probe = s.type == k::map_key ? e[p].first : e[p].second;
        if (cmpw(probe, s.val) == 0) {
            h = {true, false, p, 0};
            return true;
        }
    }
    if (s.type == k::map_key && s.create && storable(s.val)) {
        h = {false, true, 0, 0};
        return true;
    }
    return false;
}

/// Checks steps [from, end) as containers to create; counts their elements.
inline bool
chain_ok(const std::vector<cdt::ctx_step>& st, std::size_t from, std::size_t& elements) {
    using k = cdt::ctx_step::kind;
    for (std::size_t i = from; i < st.size(); ++i) {
        const cdt::ctx_step& s = st[i];
        if (s.type == k::map_key) {
            if (!storable(s.val))
                return false;
            ++elements;
            continue;
        }
        if (s.type != k::list_index || s.index < -1)
            return false;
        if (s.create && s.create_list_order == list_order::ordered)
            ++elements;
        else if (s.create && s.pad)
            elements += static_cast<std::size_t>(std::max<std::int64_t>(s.index, 0)) + 1;
        else if (s.index > 0)
            return false;
        else
            ++elements;
    }
    return true;
}

inline value build(const std::vector<cdt::ctx_step>& st, std::size_t from, value leaf) {
    for (std::size_t i = st.size(); i-- > from;) {
        const cdt::ctx_step& s = st[i];
        if (s.type == cdt::ctx_step::kind::map_key) {
            map m(s.create ? s.create_map_order : map_order::unordered);
            m.put(s.val, leaf);
            leaf = value(std::move(m));
        } else if (s.create && s.create_list_order == list_order::ordered) {
            leaf = value(list(std::vector<value>{leaf}, list_order::ordered));
        } else {
            std::vector<value> v;
            if (s.create && s.pad)
                for (std::int64_t j = 0; j < s.index; ++j)
                    v.emplace_back();
            v.push_back(leaf);
            leaf = value(list(std::move(v)));
        }
    }
    return leaf;
}

struct ctx_ref {
    const op& o;
    std::vector<cdt::ctx_step> st;
    cdt::op_class cls;
    std::size_t limit;

    outcome target(std::optional<value>& t, bool bin_exists = true) const {
        bool absent = !t;
        if (absent && o.code == op_code::list_sort && bin_exists)
            return ok(value());
        outcome r = apply_target(t, o, limit, false);
        if (r.ok && absent && !cdt::is_map_op(o.code) && !r.wrote)
            t.reset();
        return r;
    }

    /// 8.1.2 parses the steps, then the op's arguments, with one sticky mark
    /// "holds a WILDCARD or INF" (a map_key step clears it first), and a value
    /// to store parsed under the mark is a PARAMETER_ERROR. Steps from `dug`
    /// on were not walked, only sized for a create.
    bool stores_under_mark(std::size_t dug) const {
        switch (o.code) {
        case op_code::list_append:
        case op_code::list_append_items:
        case op_code::list_insert:
        case op_code::list_insert_items:
        case op_code::list_set:
        case op_code::map_put:
        case op_code::map_put_items:
            break;
        default:
            return false;
        }
        using k = cdt::ctx_step::kind;
        bool mark = false;
        for (std::size_t i = 0; i < st.size(); ++i) {
            if (st[i].type == k::map_key)
                mark = false;
            else if (i < dug && (st[i].type == k::list_value || st[i].type == k::map_value) &&
                     !storable(st[i].val))
                mark = true;
        }
        return mark;
    }

    /// Step i inside container c (a copy the caller writes back on success).
    outcome step(value& c, std::size_t i) const {
        if (!c.is_list() && !c.is_map())
            return err(status::op_not_applicable);
        hit h;
        if (!resolve(c, st[i], h))
            return err(status::op_not_applicable);
        if (h.create) {
            std::size_t elements = 0;
            if (!chain_ok(st, i + 1, elements))
                return err(status::op_not_applicable);
            if (cls == cdt::op_class::read)
                return err(status::op_not_applicable);
            if (cls == cdt::op_class::remove)
                return ok(value());
            if (stores_under_mark(i + 1))
                return err(status::parameter_error);
            std::optional<value> leaf;
            outcome r = target(leaf);
            if (!r.ok || !leaf)
                return r;
            std::size_t existing = c.is_list() ? c.as_list().size() : c.as_map().size();
            std::size_t total = elements + (h.pad == 0 ? 0 : h.pad + existing + 1);
            if (total > limit)
                return err(status::record_too_big);
            value elem = build(st, i + 1, *leaf);
            if (c.is_map()) {
                map m = c.as_map();
                m.put(st[i].val, elem);
                c = value(std::move(m));
            } else {
                rlist l = from_value(c);
                if (l.ordered) {
                    l.v.insert(l.v.begin() + static_cast<std::ptrdiff_t>(count_less(l, elem)),
                               elem);
                } else {
                    for (std::size_t j = 0; j < h.pad; ++j)
                        l.v.emplace_back();
                    l.v.push_back(elem);
                }
                c = to_value(l);
            }
            return r;
        }
        value child = c.is_list() ? c.as_list()[h.pos] : c.as_map().value_at(h.pos);
        outcome r;
        if (i + 1 < st.size()) {
            r = step(child, i + 1);
        } else if (stores_under_mark(st.size()) &&
                   (cdt::is_map_op(o.code) ? child.is_map() : child.is_list())) {
            // (A target of the wrong type is a BIN_TYPE_ERROR first.)
            return err(status::parameter_error);
        } else {
            std::optional<value> t = child;
            r = target(t);
            if (r.ok)
                child = *t;
        }
        if (!r.ok || cls == cdt::op_class::read)
            return r;
        if (c.is_map()) {
            map m = c.as_map();
            m.set_value_at(h.pos, child);
            c = value(std::move(m));
        } else {
            rlist l = from_value(c);
            if (l.ordered) {
                l.v.erase(l.v.begin() + static_cast<std::ptrdiff_t>(h.pos));
                l.v.insert(l.v.begin() + static_cast<std::ptrdiff_t>(count_less(l, child)), child);
            } else {
                l.v[h.pos] = child;
            }
            c = to_value(l);
        }
        return r;
    }
};

/// The reference cdt::apply: (bin before, op) → (outcome, bin after).
inline outcome apply(std::optional<value>& bin, const op& o, std::size_t limit = 1048576) {
    if (o.ctx.empty())
        return apply_target(bin, o, limit, true);
    ctx_ref c{o, effective_steps(o), cdt::classify(o.code), limit};
    if (!bin) {
        if (c.cls == cdt::op_class::read)
            return ok(value());
        const cdt::ctx_step& first = c.st.front();
        if (!first.create || (first.type != cdt::ctx_step::kind::list_index &&
                              first.type != cdt::ctx_step::kind::map_key))
            return err(status::op_not_applicable);
        std::size_t elements = 0;
        if (!chain_ok(c.st, 0, elements))
            return err(status::op_not_applicable);
        if (c.cls == cdt::op_class::remove)
            return ok(value());
        std::optional<value> leaf;
        outcome r = c.target(leaf, false);
        if (!r.ok || !leaf)
            return r;
        if (elements > limit)
            return err(status::record_too_big);
        bin = build(c.st, 0, *leaf);
        return r;
    }
    if (!bin->is_list() && !bin->is_map())
        return err(status::parameter_error);
    value work = *bin;
    outcome r = c.step(work, 0);
    if (r.ok && c.cls != cdt::op_class::read)
        bin = work;
    return r;
}

} // namespace kvmodel::test::lref
