// kvmodel/cdt/detail/map_engine.hpp
//
// The map half of the CDT engine: every Aerospike map operation applied to a
// target that is already reached (no context; cdt/context.hpp resolves those
// and calls apply_map_op on the nested value). Results, result shapes and
// result ORDER are the server's (aerospike-server 8.1.2, as/src/base/
// particle_map.c), path by path, including its quirks; AEROSPIKE-CDT.md
// summarises the rules and tests/cdt/map_engine_test.cpp pins each one down.
//
// Costs, on a map of n entries with k entries selected or returned (the map
// keeps a key index and a (value, key) rank index, core/detail/containers.hpp):
//   by key, index or rank (single)        O(log n)
//   key/index/value/rank ranges, relative O(log n + k) when the result comes in
//                                         the selection's own order; O(log n +
//                                         k log n) when each entry must be
//                                         placed in the other order (RANK of a
//                                         key selection, INDEX/elements of a
//                                         value selection in key order)
//   key list / value list of m items      O(m log n + k log k)
//   put, increment, remove one            O(log n); removing k is O(k log n)
//   size, clear, set_policy               O(1): no op copies or re-sorts the map
// A map shared with another value (copy-on-write) is cloned on its first write.
//
// Guarantees: a failing op leaves the target exactly as it was (every check
// runs before anything is written); results are built from the map as it was
// before the op.
//
// Server paths the engine reproduces (the result can depend on them):
//  * K-ordered / KV-ordered maps take the server's key-ordered path, UNORDERED
//    maps its unordered path: they differ in a few result shapes (INVERTED
//    EXISTS, RANK order when a key range covers the whole map, INVERTED single
//    by_key on a missing key, INDEX of a key list with repeated keys and
//    REVERSE_INDEX of an inverted key list).
//  * A top-level KV-ordered map with a persisted index answers value ranges and
//    value lists from its value index: INDEX and element results of those come
//    in rank (per item: argument) order instead of key order.
//
// Departures (documented, tested):
//  * A key probe holding a WILDCARD selects from the first matching key, as
//    the server's unordered path does; its key-ordered path binary-searches
//    and lands on an arbitrary matching key.
//  * Repeated or overlapping (WILDCARD) items in a key or value list: each
//    selected entry is credited to the last item (argument order) it matches,
//    as the server's stable sort of the items gives for repeated items; for
//    overlapping patterns its sorted-items search has no defined answer.
//  * Increment of an integer by a double outside int64 (or NaN) adds
//    INT64_MIN, what the server's (int64_t) cast gives on x86-64.
//  * The internal result types 9-12 (INDEX_RANGE ...), which no client API
//    exposes, are answered as 8.1.2 answers them by detail/range_return.hpp
//    (engine.hpp routes them there before this engine sees them).
//  * Map order 2 (V_ORDERED alone, which no client exposes) is refused by
//    set_policy/create and creates an UNORDERED map; persist_index is dropped
//    below the top level (the server silently ignores it there too). On a
//    top-level UNORDERED map it is kept: the server stores such a map with
//    the ext element and key offset index of a K_ORDERED one (any map flag
//    means key-ordered to it), which is what the map then weighs
//    (packed_size); its answers are the UNORDERED map's.
//  * put_items with the same key twice keeps the last value (a client map
//    cannot carry duplicates; the server would store both).
//  * The server's crashes (empty key/value list + INVERTED + an element return
//    type) get the plain answer: every entry, in key order.
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

using map_access = kvmodel::detail::map_access;

// ------------------------------------------------------------------ helpers

/// The wire return type as the server splits it: the low 16 bits are the
/// type, bit 16 is INVERTED, other flag bits are ignored. Into d; false for a
/// type maps do not have.
inline bool decode_map_return(std::int32_t wire, decoded_return& d) noexcept {
    std::int32_t base = wire & 0xffff;
    return decode_return(base | (wire & return_inverted), true, d);
}

inline bool map_returns_elements(return_type t) noexcept {
    return t == return_type::key || t == return_type::value || t == return_type::key_value ||
           t == return_type::unordered_map || t == return_type::ordered_map;
}

/// A key map_put / map_increment accept (server: map_is_key): int, string, bytes.
inline bool map_put_key_ok(const value& k) noexcept {
    return k.is_int() || k.is_string() || k.is_bytes();
}

/// An order the server's cdt_check_flags accepts and kvmodel represents.
inline bool map_order_ok(map_order o) noexcept {
    return o == map_order::unordered || o == map_order::key_ordered ||
           o == map_order::key_value_ordered;
}

/// The empty map an op creates: the policy's order when valid (else
/// UNORDERED, as the server falls back to no flags), persisted index only on a
/// top-level map.
inline map map_created(map_order order, bool persist, bool top_level) {
    map m(map_order_ok(order) ? order : map_order::unordered);
    m.set_persist_index(persist && top_level);
    return m;
}

inline value map_int(std::size_t i) {
    return value(static_cast<std::int64_t>(i));
}

/// `c` consecutive positions from `s`; reversed positions of a run stay
/// ascending, as the server's cdt_container_builder_add_int_range emits them.
inline void
map_emit_run(std::vector<value>& out, std::size_t s, std::size_t c, std::size_t n, bool rev) {
    if (rev)
        s = n - s - c;
    for (std::size_t i = 0; i < c; ++i)
        out.push_back(map_int(s + i));
}

/// One position, reversed element by element.
inline value map_pos(std::size_t i, std::size_t n, bool rev) {
    return map_int(rev ? n - 1 - i : i);
}

/// Sorted, de-duplicated positions → their maximal runs, each emitted with map_emit_run.
inline void map_emit_runs(std::vector<value>& out,
                          const std::vector<std::size_t>& pos,
                          std::size_t n,
                          bool rev) {
    for (std::size_t i = 0; i < pos.size();) {
        std::size_t j = i + 1;
        while (j < pos.size() && pos[j] == pos[j - 1] + 1)
            ++j;
        map_emit_run(out, pos[i], j - i, n, rev);
        i = j;
    }
}

/// The complement of sorted unique positions within [0, n). O(n).
inline std::vector<std::size_t> map_complement(const std::vector<std::size_t>& pos, std::size_t n) {
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

inline value map_list_of(std::vector<value> items) {
    return value(list(std::move(items)));
}

/// The not-found result (server: result_data_set_not_found).
inline value map_not_found(return_type t, bool multi) {
    switch (t) {
    case return_type::index:
    case return_type::reverse_index:
    case return_type::rank:
    case return_type::reverse_rank:
        return multi ? value(list()) : value(std::int64_t{-1});
    case return_type::count:
        return value(std::int64_t{0});
    case return_type::exists:
        return value(false);
    case return_type::key:
    case return_type::value:
        return multi ? value(list()) : value();
    case return_type::key_value:
        return value(list());
    case return_type::unordered_map:
        return value(map(map_order::unordered));
    case return_type::ordered_map:
        return value(map(map_order::key_ordered));
    default:
        return value();
    }
}

/// Appends a copy of v. A list (the usual map value) is copied as a list, a
/// reference count and no dispatch over the variant's alternatives.
inline void map_copy_out(std::vector<value>& out, const value& v) {
    if (const auto* l = std::get_if<list>(&v.variant()))
        out.emplace_back(*l);
    else
        out.push_back(v);
}

/// Element results (KEY, VALUE, KEY_VALUE, UNORDERED_MAP, ORDERED_MAP) of the
/// `count` entries from `it` (*it is a map_entry), in that order. A single
/// result needs exactly one entry. Walks the entries once: no list of them
/// is built first. Instantiated for the key and rank iterators (the hot
/// paths) and map_cursor_walker (every other source).
template <class It>
value map_elements_walk(return_type t, bool multi, It it, std::size_t count) {
    switch (t) {
    case return_type::key:
    case return_type::value: {
        bool keys = t == return_type::key;
        if (!multi)
            return keys ? (*it).key : (*it).val;
        std::vector<value> out;
        out.reserve(count);
        for (std::size_t i = 0; i < count; ++i, ++it)
            map_copy_out(out, keys ? (*it).key : (*it).val);
        return map_list_of(std::move(out));
    }
    case return_type::key_value: {
        // KEY_VALUE keeps the server's order: a list of [key, value] pairs.
        std::vector<value> out;
        out.reserve(count);
        for (std::size_t i = 0; i < count; ++i, ++it)
            out.emplace_back(list{(*it).key, (*it).val});
        return map_list_of(std::move(out));
    }
    default: {
        map out(t == return_type::ordered_map ? map_order::key_ordered : map_order::unordered);
        for (std::size_t i = 0; i < count; ++i, ++it)
            out.put((*it).key, (*it).val);
        return value(std::move(out));
    }
    }
}

/// Entries handed over one at a time: next(state) gives the next one. One
/// walker type (map_cursor_walker) for the array sources (picks, keyed
/// entries, the outside of an index window): one map_elements_walk for all
/// of them instead of one per source; a source is a small step function.
struct map_entry_cursor {
    void* state = nullptr;
    const map_entry& (*next)(void*) = nullptr;
};

/// The step of a cursor over `It` (operator* gives a map_entry that stays
/// where it is when `It` moves on, operator++).
template <class It>
struct map_cursor_step {
    static const map_entry& next(void* state) {
        It& it = *static_cast<It*>(state);
        const map_entry& e = *it;
        ++it;
        return e;
    }
};

/// A cursor as map_elements_walk walks it: the current entry is fetched
/// once, however often it is read.
struct map_cursor_walker {
    map_entry_cursor at;
    const map_entry* cur = nullptr;
    const map_entry& operator*() {
        if (cur == nullptr)
            cur = &at.next(at.state);
        return *cur;
    }
    map_cursor_walker& operator++() {
        cur = nullptr;
        return *this;
    }
};

/// map_elements_walk over `count` entries of the array source `src`.
template <class Src>
value map_elements_of(return_type t, bool multi, Src src, std::size_t count) {
    return map_elements_walk(
        t, multi, map_cursor_walker{{&src, &map_cursor_step<Src>::next}}, count);
}

/// The element result (KEY, VALUE, ...) of one entry, for a single-result op.
inline value map_element(return_type t, const map_entry& e) {
    switch (t) {
    case return_type::key:
        return e.key;
    case return_type::value:
        return e.val;
    case return_type::key_value:
        return value(list{list{e.key, e.val}});
    default: {
        map out(t == return_type::ordered_map ? map_order::key_ordered : map_order::unordered);
        out.put(e.key, e.val);
        return value(std::move(out));
    }
    }
}

/// An entry and its index (key order).
struct map_pick {
    std::size_t index = 0;
    const map_entry* entry = nullptr;
    std::size_t rank = 0; // set by map_picks_by_ranks
};

/// An integer key as a pick's sort index: its two's complement with the sign
/// bit flipped orders as the integer does. Integer keys sort as picks by this
/// index (map_pick_order{true}): the one std::sort of picks, no pointer
/// chasing or type dispatch per comparison.
inline std::size_t map_int_key_index(std::int64_t k) noexcept {
    static_assert(sizeof(std::size_t) == sizeof(std::int64_t), "a key must fit an index");
    return static_cast<std::size_t>(k) ^ (std::size_t{1} << 63);
}

/// Orders picks by index when their indexes are known, else by key: the
/// same order (an index is a place in key order). One comparator type for
/// both: one std::sort of picks.
struct map_pick_order {
    bool by_index;
    bool operator()(const map_pick& a, const map_pick& b) const noexcept {
        return by_index ? a.index < b.index : kvmodel::detail::map_key_less{}(*a.entry, *b.entry);
    }
};

/// Sorts picks into key order. Integer keys (the usual) sort by their value
/// alone, without the comparison's type dispatch; keys are unique, so the
/// order is the same.
inline void map_sort_picks_by_key(std::vector<map_pick>& picks) {
    std::size_t ints = 0;
    while (ints < picks.size() && picks[ints].entry->key.is_int())
        ++ints;
    if (ints == picks.size()) {
        // Sorted by the keys as indexes (their indexes are not known: 0),
        // then the indexes put back.
        for (map_pick& p : picks)
            p.index = map_int_key_index(*std::get_if<std::int64_t>(&p.entry->key.variant()));
        std::sort(picks.begin(), picks.end(), map_pick_order{true});
        for (map_pick& p : picks)
            p.index = 0;
        return;
    }
    std::sort(picks.begin(), picks.end(), map_pick_order{false});
}

/// Appends the entries of ranks [a, b) in rank order, with their indexes
/// when `with_index` (O(log n) each). One search, then a walk.
inline void map_add_rank_run(
    std::vector<map_pick>& out, const map& m, std::size_t a, std::size_t b, bool with_index) {
    if (a >= b)
        return;
    auto it = map_access::rank_at(m, a);
    for (std::size_t r = a; r < b; ++r, ++it)
        out.push_back({with_index ? map_access::index_of(m, it) : 0, &*it, r});
}

/// Puts picks gathered in rank order into key order: by index when known,
/// else by key.
inline void map_picks_to_key_order(std::vector<map_pick>& out, bool with_index) {
    if (with_index)
        std::sort(out.begin(), out.end(), map_pick_order{true});
    else
        map_sort_picks_by_key(out);
}

/// Entries at sorted unique ranks, in key order, with their indexes when
/// `with_index` (O(k log n) without comparisons; else sorted by key, O(k log k)).
inline std::vector<map_pick>
map_picks_by_ranks(const map& m, const std::vector<std::size_t>& ranks, bool with_index = true) {
    std::vector<map_pick> out;
    out.reserve(ranks.size());
    map_access::rank_iterator it;
    std::size_t prev = 0;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        // Consecutive ranks walk the index instead of searching it again.
        if (i > 0 && ranks[i] == prev + 1)
            ++it;
        else
            it = map_access::rank_at(m, ranks[i]);
        prev = ranks[i];
        out.push_back({with_index ? map_access::index_of(m, it) : 0, &*it, ranks[i]});
    }
    map_picks_to_key_order(out, with_index);
    return out;
}

/// Entries at sorted unique indexes, with their indexes. O(k log n).
inline std::vector<map_pick> map_picks_by_indexes(const map& m,
                                                  const std::vector<std::size_t>& indexes) {
    std::vector<map_pick> out;
    out.reserve(indexes.size());
    map_access::key_iterator it;
    std::size_t prev = 0;
    for (std::size_t i = 0; i < indexes.size(); ++i) {
        if (i > 0 && indexes[i] == prev + 1)
            ++it;
        else
            it = map_access::key_at(m, indexes[i]);
        prev = indexes[i];
        out.push_back({indexes[i], &*it});
    }
    return out;
}

/// The entries whose rank lies inside [a, b) (or outside it), in key order.
/// A large share of the map is cheaper to find by one walk in key order with
/// two boundary comparisons each; a small one by its ranks, then sorted.
inline std::vector<map_pick>
map_rank_window_by_key(const map& m, std::size_t a, std::size_t b, bool outside, bool with_index) {
    std::size_t n = m.size();
    std::size_t k = outside ? n - (b - a) : b - a;
    std::vector<map_pick> out;
    if (k == 0)
        return out;
    if (a >= b) { // nothing inside: the whole map, outside
        out.reserve(n);
        std::size_t i = 0;
        for (const map_entry& e : m)
            out.push_back({i++, &e});
        return out;
    }
    if (2 * k >= n) {
        kvmodel::detail::map_value_less less;
        const map_entry* lo = a > 0 ? &*map_access::rank_at(m, a) : nullptr;
        const map_entry* hi = b < n ? &*map_access::rank_at(m, b) : nullptr;
        out.reserve(k);
        std::size_t i = 0;
        for (const map_entry& e : m) {
            bool inside = (lo == nullptr || !less(e, *lo)) && (hi == nullptr || less(e, *hi));
            if (inside != outside)
                out.push_back({i, &e});
            ++i;
        }
        return out;
    }
    out.reserve(k);
    if (outside) {
        map_add_rank_run(out, m, 0, a, with_index);
        map_add_rank_run(out, m, b, n, with_index);
    } else {
        map_add_rank_run(out, m, a, b, with_index);
    }
    map_picks_to_key_order(out, with_index);
    return out;
}

/// Steps through picks as their entries.
struct map_pick_walker {
    const map_pick* p;
    const map_entry& operator*() const { return *p->entry; }
    map_pick_walker& operator++() {
        ++p;
        return *this;
    }
};

/// Steps through the map in key order, skipping indexes [a, b): one search
/// at the start of each run.
struct map_index_outside_walker {
    const map& m;
    std::size_t a;
    std::size_t b;
    std::size_t i = 0; // the index *it is at once a run has started
    map_access::key_iterator it{};
    const map_entry& operator*() {
        if (i == 0 || i == a) {
            if (i == a)
                i = b;
            it = map_access::key_at(m, i);
        }
        return *it;
    }
    map_index_outside_walker& operator++() {
        ++it;
        ++i;
        return *this;
    }
};

/// The entries of ranks [a, b), a < b, in key order when every key is an
/// integer (the usual), else empty: picks whose `index` is the key's sort
/// index (map_int_key_index), not the entry's index. One search, a walk, and
/// a sort by the bare integers (keys are unique, so the key alone orders
/// them): no picks gathered and re-gathered. O(log n + k log k).
inline std::vector<map_pick> map_rank_run_by_int_key(const map& m, std::size_t a, std::size_t b) {
    std::vector<map_pick> out;
    out.reserve(b - a);
    auto it = map_access::rank_at(m, a);
    for (std::size_t r = a; r < b; ++r, ++it) {
        const auto* k = std::get_if<std::int64_t>(&it->key.variant());
        if (k == nullptr)
            return {};
        out.push_back({map_int_key_index(*k), &*it, r});
    }
    std::sort(out.begin(), out.end(), map_pick_order{true});
    return out;
}

/// What a remove-type op takes out of the map once its result is built.
struct map_removal {
    enum class kind : std::uint8_t {
        none,
        all,
        index_range,   // indexes [a, b)
        index_outside, // every index but [a, b)
        rank_range,    // ranks [a, b)
        rank_outside,  // every rank but [a, b)
        indexes,       // the sorted indexes in `set`
        ranks,         // the sorted ranks in `set`
        entry,         // the one entry `entry`
    };
    kind what = kind::none;
    std::size_t a = 0;
    std::size_t b = 0;
    std::vector<std::size_t> set;
    const map_entry* entry = nullptr;
};

/// Erases sorted indexes (or ranks, `ranks`) run by run, from the back so
/// positions stay valid.
inline void map_erase_runs(map& m, const std::vector<std::size_t>& pos, bool ranks) {
    std::size_t j = pos.size();
    while (j > 0) {
        std::size_t i = j - 1;
        while (i > 0 && pos[i - 1] + 1 == pos[i])
            --i;
        if (ranks)
            map_access::erase_ranks(m, pos[i], pos[j - 1] + 1);
        else
            m.erase_range(pos[i], pos[j - 1] + 1);
        j = i;
    }
}

inline void map_apply_removal(map& m, const map_removal& r) {
    using k = map_removal::kind;
    std::size_t n = m.size();
    switch (r.what) {
    case k::none:
        return;
    case k::all:
        m.clear();
        return;
    case k::index_range:
        m.erase_range(r.a, r.b);
        return;
    case k::index_outside:
        m.erase_range(r.b, n);
        m.erase_range(0, r.a);
        return;
    case k::rank_range:
        map_access::erase_ranks(m, r.a, r.b);
        return;
    case k::rank_outside:
        map_access::erase_ranks(m, r.b, n);
        map_access::erase_ranks(m, 0, r.a);
        return;
    case k::indexes:
        map_erase_runs(m, r.set, false);
        return;
    case k::ranks:
        map_erase_runs(m, r.set, true);
        return;
    case k::entry:
        // The index first: erasing may clone a shared map, and the entry
        // belongs to the map as it was.
        m.erase_at(map_access::index_of_entry(m, *r.entry));
        return;
    }
}

/// Where the server's search of a persisted value index (a top-level
/// KV_ORDERED map with persist_index) starts the entries equal to v, and
/// whether a probe found one (particle_map.c
/// packed_map_find_rank_by_value_indexed: server_find_rank with target 0).
/// It stops at once on the entry of key index 0. Ties in the index are
/// ranked by key, so for a value without a WILDCARD that entry starts its run
/// and the answer is count_less_value(v); with a WILDCARD the equal run holds
/// different values, the entry of index 0 may sit inside it, and the run is
/// cut there.
struct map_value_start {
    std::size_t rank = 0;
    bool found = false;
};
inline map_value_start map_indexed_value_start(const map& m, const value& v) {
    std::pair<std::size_t, bool> hit = server_find_rank(
        m.size(),
        0,
        [&](std::size_t r) { return sign_of(compare(v, map_access::rank_at(m, r)->val)); },
        [&](std::size_t r) { return map_access::index_of(m, map_access::rank_at(m, r)); });
    return {hit.first, hit.second};
}

// ------------------------------------------------------------------ selection

/// One selector applied to one map: builds the result exactly as the server
/// does and records what a remove-type op takes out (in `removal`).
class map_selection {
public:
    map_selection(const map& m, op_code code, decoded_return rt, bool top_level)
        : m_map(m)
        , m_n(m.size())
        , m_code(code)
        , m_rt(rt.type)
        , m_inv(rt.inverted)
        // The server's key-ordered paths take any map with a flag set
        // (particle_map.c is_k_ordered: flags != 0), so also an UNORDERED
        // top-level map with a persisted index.
        , m_kpath(m.order() != map_order::unordered || (top_level && m.persist_index()))
        , m_vidx(top_level && m.order() == map_order::key_value_ordered && m.persist_index()) {}

    map_removal removal;

    result<value> by_key(const value& k) {
        // The unordered path refuses INVERTED up front; the key-ordered path
        // answers "not found" before it gets to the flag (particle_map.c
        // packed_map_get_remove_by_key_interval).
        if (m_inv && !m_kpath)
            return inverted_single();
        const map_entry* e = map_access::find(m_map, k);
        if (e == nullptr)
            return map_not_found(m_rt, false);
        if (m_inv)
            return inverted_single();
        return one_entry(*e, std::nullopt, std::nullopt);
    }

    result<value> by_key_range(const value& begin, const std::optional<value>& end) {
        std::size_t a = m_map.count_less_key(begin);
        std::size_t b = end ? m_map.count_less_key(*end) : m_n;
        // The key-ordered path bisects (packed_map_find_key_indexed) and stops
        // at its first EQUAL probe, (0 + n) / 2, which a WILDCARD bound always is.
        if (m_kpath && begin.is_wildcard())
            a = m_n / 2;
        if (m_kpath && end && end->is_wildcard())
            b = m_n / 2;
        std::size_t c = b > a ? b - a : 0;
        if (m_kpath)
            return index_window(a, c, true);
        // Unordered path: a mask over the selection, never reduced.
        return m_inv ? index_outside(a, c, false) : index_inside(a, c, true);
    }

    result<value> by_key_rel_index_range(const value& k,
                                         std::int64_t rel,
                                         const std::optional<std::int64_t>& count) {
        window w = relative_window(m_map.count_less_key(k), rel, count, m_n);
        return index_window(w.begin, w.size(), true);
    }

    result<value> by_index(std::int64_t index) {
        std::optional<std::size_t> p = single_position(index, m_n);
        if (!p)
            return out_of_range("index", index);
        if (m_inv)
            return inverted_single();
        return one_entry(*map_access::key_at(m_map, *p), p, std::nullopt);
    }

    result<value> by_index_range(std::int64_t index, const std::optional<std::int64_t>& count) {
        window w = index_count_window(index, count, m_n);
        return index_window(w.begin, w.size(), true);
    }

    result<value> by_rank(std::int64_t rank) {
        std::optional<std::size_t> p = single_position(rank, m_n);
        if (!p)
            return out_of_range("rank", rank);
        if (m_inv)
            return inverted_single();
        return one_entry(*map_access::rank_at(m_map, *p), std::nullopt, p);
    }

    result<value> by_rank_range(std::int64_t rank, const std::optional<std::int64_t>& count) {
        window w = index_count_window(rank, count, m_n);
        return rank_window(w.begin, w.size(), true);
    }

    result<value> by_value_rel_rank_range(const value& v,
                                          std::int64_t rel,
                                          const std::optional<std::int64_t>& count) {
        std::size_t anchor = value_rank(v);
        window w = relative_window(anchor, rel, count, m_n);
        // 8.1.2's map path adds rank and anchor without an overflow check: with
        // a count, a sum past INT64_MAX wraps negative and counts as overshoot
        // (calc_rel_index_count), so rank = count = INT64_MAX selects rank 0.
        if (count && rel > 0 && static_cast<std::int64_t>(anchor) > INT64_MAX - rel) {
            auto start = static_cast<std::uint64_t>(rel) + anchor; // >= 2^63: negative
            std::uint64_t overshoot = std::uint64_t{0} - start;
            std::uint64_t c = server_count(count);
            std::size_t len = c <= overshoot ? 0 : static_cast<std::size_t>(std::min<std::uint64_t>(c - overshoot, m_n));
            w = {0, len};
        }
        return rank_window(w.begin, w.size(), true);
    }

    /// get/remove_by_value (end == &begin: equal to the value) and value ranges.
    result<value>
    by_value_interval(const value& begin, const std::optional<value>& end, bool single_value) {
        if (m_n == 0)
            return map_not_found(m_rt, true);
        window run = single_value ? value_run(begin) : window{value_rank(begin), m_n};
        std::size_t r = run.begin;
        std::size_t e = single_value || !end ? run.end : value_rank(*end);
        std::size_t c = e > r ? e - r : 0;
        if (c == 0) {
            if (!m_inv)
                return map_not_found(m_rt, true);
            // Unindexed: "the complement of nothing" goes to get_remove_all.
            if (!m_vidx)
                return all(true);
        }
        return value_mask(r, c);
    }

    result<value> by_key_list(const std::vector<value>& keys) {
        if (m_rt == return_type::rank || m_rt == return_type::reverse_rank)
            return fail(op_error(status::op_not_applicable,
                                 m_code,
                                 "return type RANK is not supported for a key list"));
        if (keys.empty())
            return m_inv ? all(true) : result<value>(map_not_found(m_rt, true));
        if (!m_kpath && m_n != 0 && server_item_search::needed(keys))
            return list_searched(keys, /*keys=*/true);
        item_hits hits =
            m_kpath ? key_list_hits_ordered(keys) : key_list_hits_unordered(keys);
        return list_result(hits, /*by_rank=*/false);
    }

    result<value> by_value_list(const std::vector<value>& values) {
        if (values.empty())
            return m_inv ? all(true) : result<value>(map_not_found(m_rt, true));
        if (!value_index_path() && server_item_search::needed(values))
            return list_searched(values, /*keys=*/false);
        item_hits hits;
        hits.runs.reserve(values.size());
        for (const value& v : values)
            hits.runs.push_back(value_run(v));
        hits.credited.assign(hits.runs.size(), 0);
        if (!value_index_path())
            credit_last_item(hits);
        return list_result(hits, /*by_rank=*/true);
    }

private:
    /// Each list item's matches: runs[i], the positions item i matches (key
    /// indexes for a key list, ranks for a value list), and credited[i], how
    /// many of them the server credits to it. Two vectors of types the engine
    /// already uses rather than a vector of a struct of its own.
    struct item_hits {
        std::vector<window> runs;
        std::vector<std::size_t> credited;
    };

    void set_removal(map_removal::kind what, std::size_t a, std::size_t b) {
        removal.what = what;
        removal.a = a;
        removal.b = b;
    }

    [[nodiscard]] bool rev_index() const noexcept { return m_rt == return_type::reverse_index; }
    [[nodiscard]] bool wants_index() const noexcept {
        return m_rt == return_type::index || m_rt == return_type::reverse_index;
    }

    /// The result of a single-result selector that found entry e (its index
    /// or rank when already known). Every server path gives the same answer
    /// for one entry, the whole-map one included.
    result<value> one_entry(const map_entry& e,
                            std::optional<std::size_t> index,
                            std::optional<std::size_t> rank) {
        removal.what = map_removal::kind::entry;
        removal.entry = &e;
        switch (m_rt) {
        case return_type::none:
            return value();
        case return_type::count:
            return value(std::int64_t{1});
        case return_type::exists:
            return value(true);
        case return_type::index:
        case return_type::reverse_index:
            return map_pos(index ? *index : map_access::index_of_entry(m_map, e), m_n, rev_index());
        case return_type::rank:
        case return_type::reverse_rank:
            return map_pos(rank ? *rank : map_access::rank_of_entry(m_map, e), m_n, rev_rank());
        default:
            return map_element(m_rt, e);
        }
    }
    [[nodiscard]] bool rev_rank() const noexcept { return m_rt == return_type::reverse_rank; }

    result<value> inverted_single() const {
        return fail(op_error(
            status::op_not_applicable, m_code, "INVERTED is not supported for a single-result op"));
    }
    result<value> out_of_range(const char* what, std::int64_t i) const {
        return fail(op_error(status::op_not_applicable,
                             m_code,
                             std::string(what) + " " + std::to_string(i) + " out of range (size " +
                                 std::to_string(m_n) + ")"));
    }

    /// Element results of indexes [u, u + c), walked in key order.
    [[nodiscard]] value elements_by_index(bool multi, std::size_t u, std::size_t c) const {
        if (c == 0) // an empty map may have no index to walk
            return map_elements_walk(m_rt, multi, map_cursor_walker{}, 0);
        return map_elements_walk(m_rt, multi, map_access::key_at(m_map, u), c);
    }
    /// Element results of ranks [u, u + c), walked in rank order.
    [[nodiscard]] value elements_by_rank(bool multi, std::size_t u, std::size_t c) const {
        if (c == 0)
            return map_elements_walk(m_rt, multi, map_cursor_walker{}, 0);
        return map_elements_walk(m_rt, multi, map_access::rank_at(m_map, u), c);
    }
    /// Ranks of indexes [a, b), element by element, in key order.
    void ranks_of_indexes(std::vector<value>& out, std::size_t a, std::size_t b) const {
        if (a >= b)
            return;
        auto it = map_access::key_at(m_map, a);
        for (std::size_t i = a; i < b; ++i, ++it)
            out.push_back(map_pos(map_access::rank_of(m_map, it), m_n, rev_rank()));
    }

    /// get_remove_all: the whole map, never inverted.
    result<value> all(bool multi) {
        set_removal(map_removal::kind::all, 0, 0);
        switch (m_rt) {
        case return_type::none:
            return value();
        case return_type::index:
        case return_type::reverse_index:
        case return_type::rank:
        case return_type::reverse_rank: {
            if (!multi)
                return value(std::int64_t{0});
            std::vector<value> out;
            out.reserve(m_n);
            map_emit_run(out, 0, m_n, m_n, false);
            return map_list_of(std::move(out));
        }
        case return_type::count:
            return map_int(m_n);
        case return_type::exists:
            return value(m_n != 0);
        default:
            return elements_by_index(multi, 0, m_n);
        }
    }

    /// A window of indexes [u, u + c) (server: get_remove_by_index_range).
    result<value> index_window(std::size_t u, std::size_t c, bool multi) {
        if (m_inv) {
            if (!multi)
                return inverted_single();
            // The server rewrites an inverted window into a plain one when the
            // complement is one piece, and trims otherwise.
            if (c == 0) {
                u = 0;
                c = m_n;
            } else if (u == 0) {
                u = c;
                c = m_n - c;
            } else if (u + c >= m_n) {
                c = u;
                u = 0;
            } else {
                return index_outside(u, c, m_kpath);
            }
        }
        if (c == 0)
            return map_not_found(m_rt, multi);
        if (c == m_n)
            return all(multi);
        return index_inside(u, c, multi);
    }

    /// Indexes [u, u + c), in key order.
    result<value> index_inside(std::size_t u, std::size_t c, bool multi) {
        set_removal(map_removal::kind::index_range, u, u + c);
        switch (m_rt) {
        case return_type::none:
            return value();
        case return_type::count:
            return map_int(c);
        case return_type::exists:
            return value(c != 0);
        case return_type::index:
        case return_type::reverse_index: {
            if (!multi)
                return map_pos(u, m_n, rev_index());
            std::vector<value> out;
            out.reserve(c);
            map_emit_run(out, u, c, m_n, rev_index());
            return map_list_of(std::move(out));
        }
        case return_type::rank:
        case return_type::reverse_rank: {
            if (!multi)
                return map_pos(
                    map_access::rank_of(m_map, map_access::key_at(m_map, u)), m_n, rev_rank());
            std::vector<value> out;
            out.reserve(c);
            ranks_of_indexes(out, u, u + c);
            return map_list_of(std::move(out));
        }
        default:
            return elements_by_index(multi, u, c);
        }
    }

    /// Every index but [u, u + c). `exists_true`: the key-ordered trim answers
    /// EXISTS true; the unordered path's inverted EXISTS is `c == 0` (the
    /// server's result_data_set_index_rank_count).
    result<value> index_outside(std::size_t u, std::size_t c, bool exists_true) {
        set_removal(map_removal::kind::index_outside, u, u + c);
        std::size_t rest = m_n - u - c;
        switch (m_rt) {
        case return_type::none:
            return value();
        case return_type::count:
            return map_int(m_n - c);
        case return_type::exists:
            return value(exists_true ? m_n - c != 0 : c == 0);
        case return_type::index:
        case return_type::reverse_index: {
            std::vector<value> out;
            out.reserve(m_n - c);
            map_emit_run(out, 0, u, m_n, rev_index());
            map_emit_run(out, u + c, rest, m_n, rev_index());
            return map_list_of(std::move(out));
        }
        case return_type::rank:
        case return_type::reverse_rank: {
            std::vector<value> out;
            out.reserve(m_n - c);
            ranks_of_indexes(out, 0, u);
            ranks_of_indexes(out, u + c, m_n);
            return map_list_of(std::move(out));
        }
        default: {
            return map_elements_of(
                m_rt, true, map_index_outside_walker{m_map, u, u + c}, m_n - c);
        }
        }
    }

    /// A window of ranks [u, u + c) (server: get_remove_by_rank_range).
    result<value> rank_window(std::size_t u, std::size_t c, bool multi) {
        bool inv = m_inv;
        if (inv) {
            if (!multi)
                return inverted_single();
            inv = false;
            if (c == 0) {
                u = 0;
                c = m_n;
            } else if (u == 0) {
                u = c;
                c = m_n - c;
            } else if (u + c >= m_n) {
                c = u;
                u = 0;
            } else {
                inv = true;
            }
        }
        if (c == 0)
            return map_not_found(m_rt, multi);
        if (inv)
            return rank_outside(u, c);
        set_removal(map_removal::kind::rank_range, u, u + c);
        switch (m_rt) {
        case return_type::none:
            return value();
        case return_type::count:
            return map_int(c);
        case return_type::exists:
            return value(true);
        case return_type::rank:
        case return_type::reverse_rank: {
            if (!multi)
                return map_pos(u, m_n, rev_rank());
            std::vector<value> out;
            out.reserve(c);
            map_emit_run(out, u, c, m_n, rev_rank());
            return map_list_of(std::move(out));
        }
        case return_type::index:
        case return_type::reverse_index: {
            // In rank order, each index reversed on its own.
            auto it = map_access::rank_at(m_map, u);
            if (!multi)
                return map_pos(map_access::index_of(m_map, it), m_n, rev_index());
            std::vector<value> out;
            out.reserve(c);
            for (std::size_t r = 0; r < c; ++r, ++it)
                out.push_back(map_pos(map_access::index_of(m_map, it), m_n, rev_index()));
            return map_list_of(std::move(out));
        }
        default:
            return elements_by_rank(multi, u, c);
        }
    }

    /// Every rank but [u, u + c), 0 < u, u + c < n: in key order.
    result<value> rank_outside(std::size_t u, std::size_t c) {
        set_removal(map_removal::kind::rank_outside, u, u + c);
        switch (m_rt) {
        case return_type::none:
            return value();
        case return_type::count:
            return map_int(m_n - c);
        case return_type::exists:
            return value(false); // server: inverted EXISTS is count == 0
        case return_type::rank:
        case return_type::reverse_rank: {
            std::vector<value> out;
            out.reserve(m_n - c);
            map_emit_run(out, 0, u, m_n, rev_rank());
            map_emit_run(out, u + c, m_n - u - c, m_n, rev_rank());
            return map_list_of(std::move(out));
        }
        default:
            return picks_result(map_rank_window_by_key(m_map, u, u + c, true, wants_index()));
        }
    }

    /// INDEX (each reversed on its own) or element results of picks in key order.
    [[nodiscard]] value picks_result(const std::vector<map_pick>& picks) const {
        if (m_rt == return_type::index || m_rt == return_type::reverse_index) {
            std::vector<value> out;
            out.reserve(picks.size());
            for (const map_pick& p : picks)
                out.push_back(map_pos(p.index, m_n, rev_index()));
            return map_list_of(std::move(out));
        }
        return map_elements_of(m_rt, true, map_pick_walker{picks.data()}, picks.size());
    }

    /// A value interval selecting ranks [r, r + c), not yet inverted.
    result<value> value_mask(std::size_t r, std::size_t c) {
        std::size_t n = m_n;
        if (m_inv)
            set_removal(map_removal::kind::rank_outside, r, r + c);
        else
            set_removal(map_removal::kind::rank_range, r, r + c);
        switch (m_rt) {
        case return_type::none:
            return value();
        case return_type::count:
            return map_int(m_inv ? n - c : c);
        case return_type::exists:
            return value(m_inv ? c == 0 : c != 0);
        case return_type::rank:
        case return_type::reverse_rank: {
            std::vector<value> out;
            if (m_inv) {
                map_emit_run(out, 0, r, n, rev_rank());
                map_emit_run(out, r + c, n - r - c, n, rev_rank());
            } else {
                map_emit_run(out, r, c, n, rev_rank());
            }
            return map_list_of(std::move(out));
        }
        case return_type::index:
        case return_type::reverse_index:
            if (m_vidx && !m_inv) {
                // The value index hands the entries over in rank order.
                std::vector<value> out;
                out.reserve(c);
                auto it = map_access::rank_at(m_map, r);
                for (std::size_t i = 0; i < c; ++i, ++it)
                    out.push_back(map_pos(map_access::index_of(m_map, it), n, rev_index()));
                return map_list_of(std::move(out));
            }
            return picks_result(map_rank_window_by_key(m_map, r, r + c, m_inv, wants_index()));
        default:
            if (m_vidx && !m_inv && m_rt != return_type::ordered_map)
                return elements_by_rank(true, r, c);
            // A small share of the map (map_rank_window_by_key's rank-run
            // case) with integer keys: sorted by the keys alone.
            if (!m_inv && 2 * c < n) {
                std::vector<map_pick> keyed = map_rank_run_by_int_key(m_map, r, r + c);
                if (!keyed.empty())
                    return map_elements_of(m_rt, true, map_pick_walker{keyed.data()}, keyed.size());
            }
            return picks_result(map_rank_window_by_key(m_map, r, r + c, m_inv, wants_index()));
        }
    }

    /// Key list on a key-ordered map: each item looked up on its own (a
    /// WILDCARD item matches a run of keys); every hit is credited to its item.
    [[nodiscard]] item_hits key_list_hits_ordered(const std::vector<value>& keys) const {
        item_hits hits;
        hits.runs.reserve(keys.size());
        hits.credited.reserve(keys.size());
        for (const value& k : keys) {
            window h;
            if (k.contains_wildcard()) {
                h = {m_map.count_less_key(k), m_map.count_less_equal_key(k)};
            } else if (std::optional<std::size_t> i = m_map.find(k)) {
                h = {*i, *i + 1};
            } else {
                h.begin = h.end = m_map.count_less_key(k);
            }
            hits.credited.push_back(h.size());
            hits.runs.push_back(window(h)); // rvalue: the push_back every window uses
        }
        return hits;
    }

    [[nodiscard]] item_hits key_list_hits_unordered(const std::vector<value>& keys) const {
        item_hits hits;
        hits.runs.reserve(keys.size());
        for (const value& k : keys)
            hits.runs.push_back({m_map.count_less_key(k), m_map.count_less_equal_key(k)});
        hits.credited.assign(hits.runs.size(), 0);
        credit_last_item(hits);
        return hits;
    }

    /// Where the entries equal to v start: count_less_value(v), but for a
    /// WILDCARD on a persisted value index, whose search can stop inside the
    /// run (map_indexed_value_start).
    [[nodiscard]] std::size_t value_rank(const value& v) const {
        if (m_vidx && v.contains_wildcard())
            return map_indexed_value_start(m_map, v).rank;
        return m_map.count_less_value(v);
    }
    /// The ranks of the entries equal to v, as the server finds them (see
    /// value_rank); empty when its search saw no equal entry.
    [[nodiscard]] window value_run(const value& v) const {
        if (m_vidx && v.contains_wildcard()) {
            map_value_start s = map_indexed_value_start(m_map, v);
            return {s.rank, s.found ? m_map.count_less_equal_value(v) : s.rank};
        }
        return {m_map.count_less_value(v), m_map.count_less_equal_value(v)};
    }

    /// Whether a value list takes the server's value-index path: with a
    /// persisted value index, and on a map of at most one entry, whose order
    /// index the server always counts as valid (order_index_is_valid). There
    /// each item reports its own matches, repeated items included.
    [[nodiscard]] bool value_index_path() const { return m_vidx || m_n <= 1; }

    /// Credits every matched position to the last item (argument order) that
    /// matches it, as the server's sorted-items search does for equal items.
    static void credit_last_item(item_hits& hits) {
        last_cover c = last_window_cover(hits.runs);
        for (std::size_t j = 0; j < c.owner.size(); ++j)
            if (c.owner[j] != last_cover::none)
                hits.credited[c.owner[j]] += c.cuts[j + 1] - c.cuts[j];
    }

    /// A key list (keys) or value list holding a WILDCARD, where the server
    /// searches entry by entry in key order (see server_item_search). By-item
    /// positions: the INDEX of a key list, the RANK of a value list.
    result<value> list_searched(const std::vector<value>& items, bool keys) {
        bool by_item = keys ? wants_index()
                            : (m_rt == return_type::rank || m_rt == return_type::reverse_rank);
        server_item_search search(items);
        std::vector<std::size_t> found;
        auto it = map_access::key_at(m_map, 0);
        for (std::size_t i = 0; i < m_n; ++i, ++it)
            if (search.find(keys ? it->key : it->val, by_item) != m_inv)
                found.push_back(i);
        removal.what = map_removal::kind::indexes;
        // Moved, not copied (no vector copy-assignment in every TU); read
        // back through the removal.
        removal.set = std::move(found);
        const std::vector<std::size_t>& mask = removal.set;
        std::vector<value> out;
        switch (m_rt) {
        case return_type::none:
            return value();
        case return_type::count:
            return map_int(mask.size());
        case return_type::exists:
            return value(!mask.empty());
        case return_type::index:
        case return_type::reverse_index:
        case return_type::rank:
        case return_type::reverse_rank:
            if (by_item) {
                bool rev = m_rt == return_type::reverse_index || rev_rank();
                for (const window& w : search.runs(m_inv, m_n))
                    map_emit_run(out, w.begin, w.size(), m_n, rev);
            } else {
                for (std::size_t i : mask)
                    out.push_back(map_pos(i, m_n, rev_index()));
            }
            return map_list_of(std::move(out));
        default: {
            std::vector<map_pick> picks = map_picks_by_indexes(m_map, mask);
            return map_elements_of(m_rt, true, map_pick_walker{picks.data()}, picks.size());
        }
        }
    }

    /// Shared tail of key list (by_rank = false: positions are indexes) and
    /// value list (by_rank = true: positions are ranks).
    result<value> list_result(const item_hits& hits, bool by_rank) {
        std::vector<std::size_t> sel;
        for (const window& h : hits.runs)
            for (std::size_t p = h.begin; p < h.end; ++p)
                sel.push_back(p);
        std::sort(sel.begin(), sel.end());
        sel.erase(std::unique(sel.begin(), sel.end()), sel.end());
        removal.what = by_rank ? map_removal::kind::ranks : map_removal::kind::indexes;
        removal.set = m_inv ? map_complement(sel, m_n) : std::move(sel);
        const std::vector<std::size_t>& mask = removal.set;

        std::size_t n = m_n;
        switch (m_rt) {
        case return_type::none:
            return value();
        case return_type::count:
            return map_int(mask.size());
        case return_type::exists:
            return value(!mask.empty());
        case return_type::index:
        case return_type::reverse_index: {
            std::vector<value> out;
            out.reserve(mask.size());
            if (!by_rank) {
                if (m_inv && !m_kpath) {
                    map_emit_runs(out, mask, n, rev_index());
                } else if (m_inv) {
                    for (std::size_t i : mask)
                        out.push_back(map_pos(i, n, rev_index()));
                } else {
                    for (std::size_t i = 0; i < hits.runs.size(); ++i) {
                        std::size_t lo = hits.runs[i].begin;
                        if (m_kpath) {
                            map_emit_run(out, lo, hits.credited[i], n, rev_index());
                        } else {
                            for (std::size_t j = 0; j < hits.credited[i]; ++j)
                                out.push_back(map_pos(lo + j, n, rev_index()));
                        }
                    }
                }
                return map_list_of(std::move(out));
            }
            if (value_index_path() && !m_inv) {
                // Per item, argument order; within an item, rank order.
                for (const window& h : hits.runs) {
                    if (h.empty())
                        continue;
                    auto it = map_access::rank_at(m_map, h.begin);
                    for (std::size_t j = 0; j < h.size(); ++j, ++it)
                        out.push_back(map_pos(map_access::index_of(m_map, it), n, rev_index()));
                }
                return map_list_of(std::move(out));
            }
            for (const map_pick& p : map_picks_by_ranks(m_map, mask, wants_index()))
                out.push_back(map_pos(p.index, n, rev_index()));
            return map_list_of(std::move(out));
        }
        case return_type::rank:
        case return_type::reverse_rank: {
            // Only value lists get here (key lists refuse RANK).
            std::vector<value> out;
            out.reserve(mask.size());
            if (value_index_path()) {
                if (m_inv) {
                    for (const map_pick& p : map_picks_by_ranks(m_map, mask, false))
                        out.push_back(map_pos(p.rank, n, rev_rank()));
                } else {
                    for (const window& h : hits.runs)
                        map_emit_run(out, h.begin, h.size(), n, rev_rank());
                }
            } else if (m_inv) {
                map_emit_runs(out, mask, n, rev_rank());
            } else {
                for (std::size_t i = 0; i < hits.runs.size(); ++i)
                    for (std::size_t j = 0; j < hits.credited[i]; ++j)
                        out.push_back(map_pos(hits.runs[i].begin + j, n, rev_rank()));
            }
            return map_list_of(std::move(out));
        }
        default: {
            std::vector<map_pick> picks = by_rank ? map_picks_by_ranks(m_map, mask, wants_index())
                                                  : map_picks_by_indexes(m_map, mask);
            return map_elements_of(m_rt, true, map_pick_walker{picks.data()}, picks.size());
        }
        }
    }

    const map& m_map;
    std::size_t m_n;
    op_code m_code;
    return_type m_rt;
    bool m_inv;
    bool m_kpath;
    bool m_vidx;
};

// ------------------------------------------------------------------ writes

/// How a put behaves: the command the client sends for the policy.
struct map_put_mode {
    bool allow_overwrite = true;
    bool allow_create = true;
    bool no_fail = false;
    bool partial = false;
    bool replace = false; // legacy UPDATE_ONLY: REPLACE, which never creates the map
};

inline map_put_mode map_put_mode_of(const map_policy& p) {
    map_put_mode m;
    if (p.mode) {
        switch (*p.mode) {
        case map_write_mode::update:
            break;
        case map_write_mode::update_only:
            m.allow_create = false;
            m.replace = true;
            break;
        case map_write_mode::create_only:
            m.allow_overwrite = false;
            break;
        }
        return m;
    }
    m.allow_overwrite = (p.flags & map_write_flags::create_only) == 0;
    m.allow_create = (p.flags & map_write_flags::update_only) == 0;
    m.no_fail = (p.flags & map_write_flags::no_fail) != 0;
    m.partial = (p.flags & map_write_flags::partial) != 0;
    return m;
}

inline error map_key_type_error(op_code code, const value& k) {
    return op_error(status::parameter_error,
                    code,
                    "key " + to_string(k) + " is a " + std::string(type_name(k.type())) +
                        "; map keys are integers, strings or bytes");
}

/// The map a modify op works on: the target's, or the one it creates.
inline map&
map_target_or_create(std::optional<value>& target, map_order order, bool persist, bool top_level) {
    // Assigned, not emplaced: optional<value>'s assignment from a value is
    // code every TU has already.
    if (!target)
        target = value(map_created(order, persist, top_level));
    return target->as_map();
}

inline result<value> map_put(std::optional<value>& target, const op& o, bool top_level) {
    map_put_mode mode = map_put_mode_of(o.mpolicy);
    if (!map_put_key_ok(o.key))
        return fail(map_key_type_error(o.code, o.key));
    // An int, string or bytes key is storable: only the value can hold INF or WILDCARD.
    if (!storable(o.val))
        return fail(op_error(status::parameter_error, o.code, "INF and WILDCARD cannot be stored"));
    const map empty;
    const map& m = target ? target->as_map() : empty;
    map_access::slot at = map_access::locate(m, o.key);
    bool found = at.found;
    bool denied = found ? !mode.allow_overwrite : !mode.allow_create;
    if (denied && !mode.no_fail) {
        if (found)
            return fail(op_error(status::element_exists,
                                 o.code,
                                 "key " + to_string(o.key) + " exists (CREATE_ONLY)"));
        return fail(op_error(status::element_not_found,
                             o.code,
                             "key " + to_string(o.key) + " not found (UPDATE_ONLY)"));
    }
    // REPLACE sends no map flags: whatever it would create is UNORDERED.
    map_order order = mode.replace ? map_order::unordered : o.mpolicy.order;
    bool persist = !mode.replace && o.mpolicy.persist_index;
    map& dst = map_target_or_create(target, order, persist, top_level);
    if (!denied)
        map_access::put_at(dst, at, o.key, o.val);
    return map_int(dst.size());
}

inline result<value> map_put_items(std::optional<value>& target, const op& o, bool top_level) {
    map_put_mode mode = map_put_mode_of(o.mpolicy);
    if (mode.replace && !target)
        return fail(op_error(status::element_not_found, o.code, "no map to update (UPDATE_ONLY)"));
    for (const auto& [k, v] : o.items)
        if (!storable(k) || !storable(v))
            return fail(
                op_error(status::parameter_error, o.code, "INF and WILDCARD cannot be stored"));

    // The items as the server sees them: a map, in key order; a repeated key
    // keeps its last value, as a client map would.
    std::vector<const value*> keys(o.items.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
        keys[i] = &o.items[i].first;
    std::vector<std::size_t> order = stable_value_order(keys, false);
    std::vector<std::size_t> items;
    items.reserve(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (i + 1 < order.size() && kvmodel::detail::cdt_compare(o.items[order[i]].first,
                                                                 o.items[order[i + 1]].first,
                                                                 false) == 0)
            continue;
        items.push_back(order[i]);
    }

    map_order create_order = mode.replace ? map_order::unordered : o.mpolicy.order;
    bool persist = !mode.replace && o.mpolicy.persist_index;
    const map empty;
    const map& m = target ? target->as_map() : empty;

    std::vector<std::size_t> accepted;
    accepted.reserve(items.size());
    bool no_op = items.empty();
    bool dropped = false; // a flag, not accepted.clear(): one vector member fewer
    if (!no_op && m.empty()) {
        if (!mode.allow_create) {
            if (!mode.no_fail)
                return fail(op_error(status::element_not_found,
                                     o.code,
                                     "key " + to_string(o.items[items.front()].first) +
                                         " not found (UPDATE_ONLY)"));
            // The server's empty-map shortcut: NO_FAIL alone is a no-op, but
            // with PARTIAL it writes every item, UPDATE_ONLY or not.
            no_op = !mode.partial;
        }
        if (!no_op)
            accepted = std::move(items);
    } else if (!no_op) {
        for (std::size_t i : items) {
            const value& k = o.items[i].first;
            bool found = m.find(k).has_value();
            bool denied = found ? !mode.allow_overwrite : !mode.allow_create;
            if (!denied) {
                accepted.push_back(i);
                continue;
            }
            if (!mode.no_fail) {
                if (found)
                    return fail(op_error(status::element_exists,
                                         o.code,
                                         "key " + to_string(k) + " exists (CREATE_ONLY)"));
                return fail(op_error(status::element_not_found,
                                     o.code,
                                     "key " + to_string(k) + " not found (UPDATE_ONLY)"));
            }
            if (!mode.partial) {
                // One denied item drops the whole put_items.
                dropped = true;
                break;
            }
        }
    }
    map& dst = map_target_or_create(target, create_order, persist, top_level);
    if (!dropped)
        for (std::size_t i : accepted)
            dst.put(o.items[i].first, o.items[i].second);
    return map_int(dst.size());
}

/// (int64_t) of a double as the x86-64 server computes it: out of range and
/// NaN give INT64_MIN (cvttsd2si's "integer indefinite").
inline std::int64_t map_double_to_int(double d) noexcept {
    if (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0)
        return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(d);
}

inline std::int64_t map_wrap_add(std::int64_t a, std::int64_t b) noexcept {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

inline result<value> map_increment(std::optional<value>& target, const op& o, bool top_level) {
    bool decrement = o.code == op_code::map_decrement;
    // Server's cdt_calc_delta: an absent (nil) delta is 1; ints and doubles
    // mix by converting the delta to the stored number's type.
    std::int64_t di = 1;
    double dd = 1;
    bool delta_double = false;
    if (o.val.is_int()) {
        di = o.val.as_int();
    } else if (o.val.is_double()) {
        dd = o.val.as_double();
        delta_double = true;
    } else if (!o.val.is_nil()) {
        return fail(op_error(
            status::parameter_error, o.code, "delta " + to_string(o.val) + " is not a number"));
    }
    if (decrement) {
        di = static_cast<std::int64_t>(std::uint64_t{0} - static_cast<std::uint64_t>(di));
        dd = -dd;
    }
    // Every failure here is PARAMETER_ERROR, so the key can be checked first
    // (the server checks it last, in map_add).
    if (!map_put_key_ok(o.key))
        return fail(map_key_type_error(o.code, o.key));
    const map empty;
    const map& m = target ? target->as_map() : empty;
    map_access::slot at = map_access::locate(m, o.key);
    value next;
    if (const value* cur = at.found ? &at.it->node()->val : nullptr) {
        if (cur->is_int())
            next = map_wrap_add(cur->as_int(), delta_double ? map_double_to_int(dd) : di);
        else if (cur->is_double())
            next = cur->as_double() + (delta_double ? dd : static_cast<double>(di));
        else
            return fail(op_error(status::parameter_error,
                                 o.code,
                                 "value at key " + to_string(o.key) + " is a " +
                                     std::string(type_name(cur->type())) + ", not a number"));
    } else {
        // Created from 0: 0 + delta, so a delta of -0.0 makes +0.0 (IEEE),
        // as the server stores it.
        next = delta_double ? value(0.0 + dd) : value(di);
    }
    map& dst = map_target_or_create(target, o.mpolicy.order, o.mpolicy.persist_index, top_level);
    map_access::put_at(dst, at, o.key, next);
    return next;
}

inline result<value> map_set_order(std::optional<value>& target, const op& o, bool top_level) {
    if (!map_order_ok(o.morder))
        return fail(op_error(status::op_not_applicable,
                             o.code,
                             "invalid map order " + std::to_string(static_cast<int>(o.morder))));
    bool persist = o.persist_index && top_level;
    if (!target) {
        target = value(map_created(o.morder, persist, top_level));
        return value();
    }
    map& m = target->as_map();
    m.set_order(o.morder);
    m.set_persist_index(persist);
    return value();
}

// ------------------------------------------------------------------ entry

/// What map_read_one answered: not handled (the general path answers), or
/// the key or value to copy (nullptr: not found, nil).
struct map_quick_read {
    bool handled = false;
    const value* found = nullptr;
};

/// The commonest reads - one entry by key, index or rank, returned as its KEY
/// or VALUE, not inverted - answered without the selection machinery. The
/// answers are map_selection's for these shapes: a missing key is nil
/// (map_not_found of a single KEY/VALUE); an index or rank out of range is
/// left to the general path, which builds the error.
inline map_quick_read map_read_one(const map& m, const op& o, decoded_return rt) {
    if (rt.inverted || (rt.type != return_type::key && rt.type != return_type::value))
        return {};
    bool keys = rt.type == return_type::key;
    const map_entry* e = nullptr;
    switch (o.code) {
    case op_code::map_get_by_key:
        e = map_access::find(m, o.key);
        if (e == nullptr)
            return {true, nullptr};
        break;
    case op_code::map_get_by_index:
    case op_code::map_get_by_rank: {
        std::optional<std::size_t> p = single_position(o.index, m.size());
        if (!p)
            return {};
        e = o.code == op_code::map_get_by_index ? &*map_access::key_at(m, *p)
                                                : &*map_access::rank_at(m, *p);
        break;
    }
    default:
        return {};
    }
    return {true, keys ? &e->key : &e->val};
}

/// The result of select(), then what it selected taken out of m. Its only
/// return is the named result, so the result is built in place (NRVO).
template <class Select>
result<value> map_select_and_remove(map& m, map_selection& sel, Select& select) {
    result<value> out = select();
    if (out)
        map_apply_removal(m, sel.removal);
    return out;
}

/// Applies map op o to target (nullopt = absent). A modify op creates the map
/// with the order of its policy; read ops on an absent target return nil and
/// remove-type ops are no-ops (the store turns a missing record into
/// KEY_NOT_FOUND). `top_level` is false for a map reached through a context:
/// a persisted index exists only on a bin's top-level map.
/// On error target is unchanged.
/// Complexity: see the header comment.
inline result<value>
apply_map_op(std::optional<value>& target, const op& o, bool top_level = true) {
    if (target && !target->is_map())
        return fail(
            op_error(status::bin_type_error,
                     o.code,
                     "bin holds a " + std::string(type_name(target->type())) + ", not a map"));
    switch (o.code) {
    case op_code::map_create:
    case op_code::map_set_policy:
        return map_set_order(target, o, top_level);
    case op_code::map_put:
        return map_put(target, o, top_level);
    case op_code::map_put_items:
        return map_put_items(target, o, top_level);
    case op_code::map_increment:
    case op_code::map_decrement:
        return map_increment(target, o, top_level);
    case op_code::map_clear:
        if (target)
            target->as_map().clear();
        return value();
    case op_code::map_size:
        if (!target)
            return value();
        return map_int(target->as_map().size());
    default:
        break;
    }
    if (!is_map_op(o.code))
        return fail(op_error(status::parameter_error, o.code, "not a map operation"));

    // Selectors: nothing to read or remove in an absent map.
    if (!target)
        return value();
    decoded_return rt;
    if (!decode_map_return(o.return_type, rt)) {
        // An empty key/value list, not inverted, never looks at the return
        // type on the server: it answers nil whatever the type.
        bool list_op =
            o.code == op_code::map_get_by_key_list || o.code == op_code::map_remove_by_key_list ||
            o.code == op_code::map_get_by_value_list || o.code == op_code::map_remove_by_value_list;
        if (list_op && o.values.empty() && (o.return_type & return_inverted) == 0)
            return value();
        return fail(op_error(status::op_not_applicable,
                             o.code,
                             "invalid return type " + std::to_string(o.return_type)));
    }

    if (map_quick_read q = map_read_one(target->as_map(), o, rt); q.handled)
        return q.found != nullptr ? result<value>(*q.found) : result<value>(value());

    bool remove = classify(o.code) == op_class::remove;
    map_selection sel(target->as_map(), o.code, rt, top_level);
    auto select = [&]() -> result<value> {
        switch (o.code) {
        case op_code::map_get_by_key:
        case op_code::map_remove_by_key:
            return sel.by_key(o.key);
        case op_code::map_get_by_key_list:
        case op_code::map_remove_by_key_list:
            return sel.by_key_list(o.values);
        case op_code::map_get_by_key_range:
        case op_code::map_remove_by_key_range:
            return sel.by_key_range(o.begin, o.end);
        case op_code::map_get_by_key_rel_index_range:
        case op_code::map_remove_by_key_rel_index_range:
            return sel.by_key_rel_index_range(o.key, o.index, o.count);
        case op_code::map_get_by_value:
        case op_code::map_remove_by_value:
            return sel.by_value_interval(o.key, std::nullopt, true);
        case op_code::map_get_by_value_list:
        case op_code::map_remove_by_value_list:
            return sel.by_value_list(o.values);
        case op_code::map_get_by_value_range:
        case op_code::map_remove_by_value_range:
            return sel.by_value_interval(o.begin, o.end, false);
        case op_code::map_get_by_value_rel_rank_range:
        case op_code::map_remove_by_value_rel_rank_range:
            return sel.by_value_rel_rank_range(o.key, o.index, o.count);
        case op_code::map_get_by_index:
        case op_code::map_remove_by_index:
            return sel.by_index(o.index);
        case op_code::map_get_by_index_range:
        case op_code::map_remove_by_index_range:
            return sel.by_index_range(o.index, o.count);
        case op_code::map_get_by_rank:
        case op_code::map_remove_by_rank:
            return sel.by_rank(o.index);
        case op_code::map_get_by_rank_range:
        case op_code::map_remove_by_rank_range:
            return sel.by_rank_range(o.index, o.count);
        default:
            return fail(op_error(status::parameter_error, o.code, "not a map selector"));
        }
    };
    // A read hands its result straight back (no move through a local).
    if (!remove)
        return select();
    return map_select_and_remove(target->as_map(), sel, select);
}

} // namespace kvmodel::cdt::detail
