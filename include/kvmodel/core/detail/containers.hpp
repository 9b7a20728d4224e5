// kvmodel/core/detail/containers.hpp
//
// The order-statistics containers behind kvmodel::list and kvmodel::map, on
// Boost.MultiIndex ranked indices.
//
// list_impl: a random-access index (list position, O(1)) and a ranked index on
// (value, label), where label is an order-maintenance tag increasing with list
// position. The label breaks ties between equal values by position, as
// Aerospike's list rank does, without storing positions that shift on insert.
// Labels are spaced 2^32 apart; an insert between two adjacent labels relabels
// the list (O(n), rare). Relabelling keeps relative order, so it never moves a
// node in the ranked index.
//
// map_impl: a ranked index on the key (index = key order) and a ranked index on
// (value, key) (rank = value order, ties by key).
#pragma once

#include <kvmodel/core/value.hpp>

#include <boost/multi_index/identity.hpp>
#include <boost/multi_index/random_access_index.hpp>
#include <boost/multi_index/ranked_index.hpp>
#include <boost/multi_index_container.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>

namespace kvmodel {
namespace detail {

/// compare() reduced to an int, with WILDCARD matching (probe lookups) or not
/// (the containers' own strict order).
inline int cdt_compare(const value& a, const value& b, bool wildcard_matches) noexcept;

struct list_node {
    value v;
    mutable std::uint64_t label; // order-maintenance tag; see header comment
};

struct list_node_less {
    using is_transparent = void;
    bool operator()(const list_node& a, const list_node& b) const noexcept {
        int c = cdt_compare(a.v, b.v, false);
        return c != 0 ? c < 0 : a.label < b.label;
    }
    // Probe: a value alone, matching all labels (and WILDCARDs).
    bool operator()(const list_node& a, const value& b) const noexcept {
        return cdt_compare(a.v, b, true) < 0;
    }
    bool operator()(const value& a, const list_node& b) const noexcept {
        return cdt_compare(a, b.v, true) < 0;
    }
};

namespace mi = boost::multi_index;

struct list_impl {
    using container = mi::multi_index_container<
        list_node,
        mi::indexed_by<mi::random_access<>, mi::ranked_unique<mi::identity<list_node>, list_node_less>>>;

    static constexpr std::uint64_t gap = std::uint64_t{1} << 32;
    static constexpr std::uint64_t first_label = std::uint64_t{1} << 63;

    container c;

    auto& seq() noexcept { return c.get<0>(); }
    const auto& seq() const noexcept { return c.get<0>(); }
    auto& ranked() noexcept { return c.get<1>(); }
    const auto& ranked() const noexcept { return c.get<1>(); }

    std::size_t position(container::nth_index<1>::type::const_iterator it) const {
        return static_cast<std::size_t>(c.project<0>(it) - seq().begin());
    }

    void relabel() {
        std::uint64_t n = seq().size() + 2;
        std::uint64_t step = std::max<std::uint64_t>(1, std::min(gap, (std::numeric_limits<std::uint64_t>::max() / n)));
        std::uint64_t start = n * step < first_label ? first_label - (n / 2) * step : step;
        std::uint64_t l = start;
        for (const list_node& node : seq()) {
            node.label = l;
            l += step;
        }
    }

    std::uint64_t label_for(std::size_t pos) {
        const auto& s = seq();
        for (int attempt = 0; attempt < 2; ++attempt) {
            if (s.empty()) return first_label;
            if (pos == 0) {
                std::uint64_t f = s.front().label;
                if (f > gap) return f - gap;
                if (f > 1) return f / 2;
            } else if (pos == s.size()) {
                std::uint64_t b = s.back().label;
                if (std::numeric_limits<std::uint64_t>::max() - b > gap) return b + gap;
                if (std::numeric_limits<std::uint64_t>::max() - b > 1) return b + (std::numeric_limits<std::uint64_t>::max() - b) / 2;
            } else {
                std::uint64_t a = s[pos - 1].label;
                std::uint64_t b = s[pos].label;
                if (b - a > 1) return a + (b - a) / 2;
            }
            relabel();
        }
        KVMODEL_ASSERT(false && "list relabel left no gap");
        return 0;
    }

    void insert(std::size_t pos, value v) {
        std::uint64_t l = label_for(pos);
        seq().insert(seq().begin() + static_cast<std::ptrdiff_t>(pos), list_node{std::move(v), l});
    }
};

struct map_key_less {
    using is_transparent = void;
    bool operator()(const map_entry& a, const map_entry& b) const noexcept {
        return cdt_compare(a.key, b.key, false) < 0;
    }
    bool operator()(const map_entry& a, const value& k) const noexcept {
        return cdt_compare(a.key, k, true) < 0;
    }
    bool operator()(const value& k, const map_entry& b) const noexcept {
        return cdt_compare(k, b.key, true) < 0;
    }
};

struct map_value_less {
    using is_transparent = void;
    bool operator()(const map_entry& a, const map_entry& b) const noexcept {
        int c = cdt_compare(a.val, b.val, false);
        return c != 0 ? c < 0 : cdt_compare(a.key, b.key, false) < 0;
    }
    bool operator()(const map_entry& a, const value& v) const noexcept {
        return cdt_compare(a.val, v, true) < 0;
    }
    bool operator()(const value& v, const map_entry& b) const noexcept {
        return cdt_compare(v, b.val, true) < 0;
    }
};

struct map_impl {
    using container = mi::multi_index_container<
        map_entry,
        mi::indexed_by<mi::ranked_unique<mi::identity<map_entry>, map_key_less>,
                       mi::ranked_unique<mi::identity<map_entry>, map_value_less>>>;
    container c;

    auto& by_key() noexcept { return c.get<0>(); }
    const auto& by_key() const noexcept { return c.get<0>(); }
    auto& by_value() noexcept { return c.get<1>(); }
    const auto& by_value() const noexcept { return c.get<1>(); }
};

} // namespace detail

// ---------------------------------------------------------------- list

class list::const_iterator {
public:
    using base = detail::list_impl::container::nth_index<0>::type::const_iterator;
    using iterator_category = std::random_access_iterator_tag;
    using value_type = kvmodel::value;
    using difference_type = std::ptrdiff_t;
    using pointer = const kvmodel::value*;
    using reference = const kvmodel::value&;

    const_iterator() = default;
    explicit const_iterator(base b) : m_it(b) {}
    reference operator*() const { return m_it->v; }
    pointer operator->() const { return &m_it->v; }
    reference operator[](difference_type n) const { return m_it[n].v; }
    const_iterator& operator++() { ++m_it; return *this; }
    const_iterator operator++(int) { auto t = *this; ++m_it; return t; }
    const_iterator& operator--() { --m_it; return *this; }
    const_iterator operator--(int) { auto t = *this; --m_it; return t; }
    const_iterator& operator+=(difference_type n) { m_it += n; return *this; }
    const_iterator& operator-=(difference_type n) { m_it -= n; return *this; }
    friend const_iterator operator+(const_iterator a, difference_type n) { return a += n; }
    friend const_iterator operator+(difference_type n, const_iterator a) { return a += n; }
    friend const_iterator operator-(const_iterator a, difference_type n) { return a -= n; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) { return a.m_it - b.m_it; }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.m_it == b.m_it; }
    friend auto operator<=>(const const_iterator& a, const const_iterator& b) { return (a.m_it - b.m_it) <=> 0; }

private:
    base m_it{};
};

inline list::list(std::initializer_list<value> items) {
    for (const value& v : items) push_back(v);
}
inline list::list(std::vector<value> items, list_order order) : m_order(order) {
    for (value& v : items) push_back(std::move(v));
    if (order == list_order::ordered) sort(false);
}
inline std::size_t list::size() const noexcept { return m_impl ? m_impl->c.size() : 0; }
inline const value& list::operator[](std::size_t i) const {
    KVMODEL_ASSERT(i < size());
    return m_impl->seq()[i].v;
}
// An empty list may have no impl: begin() and end() must then both point into
// the same empty container, or iterating it runs off into the void.
inline const detail::list_impl& list::empty_list_impl() noexcept {
    static const detail::list_impl e;
    return e;
}
inline detail::list_impl& list::mut() {
    if (!m_impl) m_impl = std::make_shared<detail::list_impl>();
    else if (m_impl.use_count() > 1) m_impl = std::make_shared<detail::list_impl>(*m_impl);
    return *m_impl;
}
inline std::size_t list::rank_of(std::size_t i) const {
    KVMODEL_ASSERT(i < size());
    const auto& im = *m_impl;
    auto it = im.c.project<1>(im.seq().begin() + static_cast<std::ptrdiff_t>(i));
    return im.ranked().rank(it);
}
inline std::size_t list::index_at_rank(std::size_t r) const {
    KVMODEL_ASSERT(r < size());
    return m_impl->position(m_impl->ranked().nth(r));
}
inline std::size_t list::count_less(const value& v) const {
    if (!m_impl) return 0;
    return m_impl->ranked().rank(m_impl->ranked().lower_bound(v));
}
inline std::size_t list::count_less_equal(const value& v) const {
    if (!m_impl) return 0;
    return m_impl->ranked().rank(m_impl->ranked().upper_bound(v));
}
inline std::vector<std::size_t> list::indexes_by_rank(std::size_t first, std::size_t last) const {
    std::vector<std::size_t> out;
    last = std::min(last, size());
    if (first >= last) return out;
    out.reserve(last - first);
    auto it = m_impl->ranked().nth(first);
    for (std::size_t r = first; r < last; ++r, ++it) out.push_back(m_impl->position(it));
    return out;
}
inline void list::push_back(value v) {
    auto& im = mut();
    im.insert(im.seq().size(), std::move(v));
}
inline void list::insert(std::size_t pos, value v) {
    KVMODEL_ASSERT(pos <= size());
    mut().insert(pos, std::move(v));
}
inline void list::set(std::size_t pos, value v) {
    KVMODEL_ASSERT(pos < size());
    auto& im = mut();
    im.seq().modify(im.seq().begin() + static_cast<std::ptrdiff_t>(pos),
                    [&](detail::list_node& n) { n.v = std::move(v); });
}
inline value list::take(std::size_t pos) {
    KVMODEL_ASSERT(pos < size());
    value out;
    auto& im = mut();
    im.seq().modify(im.seq().begin() + static_cast<std::ptrdiff_t>(pos),
                    [&](detail::list_node& n) { out = std::exchange(n.v, value{}); });
    return out;
}
inline void list::erase(std::size_t pos) {
    KVMODEL_ASSERT(pos < size());
    auto& im = mut();
    im.seq().erase(im.seq().begin() + static_cast<std::ptrdiff_t>(pos));
}
inline void list::erase(std::size_t first, std::size_t last) {
    KVMODEL_ASSERT(first <= last && last <= size());
    if (first == last) return;
    auto& im = mut();
    im.seq().erase(im.seq().begin() + static_cast<std::ptrdiff_t>(first),
                   im.seq().begin() + static_cast<std::ptrdiff_t>(last));
}
inline void list::clear() noexcept { m_impl.reset(); }
inline void list::sort(bool drop_duplicates) {
    if (size() < 2) return; // also: an empty list may have no impl at all
    std::vector<value> sorted;
    sorted.reserve(size());
    // The ranked index already holds the stable order (ties by position).
    for (const auto& n : m_impl->ranked()) {
        if (drop_duplicates && !sorted.empty() && detail::cdt_compare(sorted.back(), n.v, false) == 0)
            continue;
        sorted.push_back(n.v);
    }
    auto fresh = std::make_shared<detail::list_impl>();
    for (value& v : sorted) fresh->insert(fresh->seq().size(), std::move(v));
    m_impl = std::move(fresh);
}
inline list::const_iterator list::begin() const {
    return const_iterator(m_impl ? m_impl->seq().begin() : empty_list_impl().seq().begin());
}
inline list::const_iterator list::end() const {
    return const_iterator(m_impl ? m_impl->seq().end() : empty_list_impl().seq().end());
}
inline std::vector<value> list::to_vector() const { return {begin(), end()}; }

// ---------------------------------------------------------------- map

class map::const_iterator {
public:
    using base = detail::map_impl::container::nth_index<0>::type::const_iterator;
    using iterator_category = std::bidirectional_iterator_tag;
    using value_type = map_entry;
    using difference_type = std::ptrdiff_t;
    using pointer = const map_entry*;
    using reference = const map_entry&;

    const_iterator() = default;
    explicit const_iterator(base b) : m_it(b) {}
    reference operator*() const { return *m_it; }
    pointer operator->() const { return &*m_it; }
    const_iterator& operator++() { ++m_it; return *this; }
    const_iterator operator++(int) { auto t = *this; ++m_it; return t; }
    const_iterator& operator--() { --m_it; return *this; }
    const_iterator operator--(int) { auto t = *this; --m_it; return t; }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.m_it == b.m_it; }

private:
    base m_it{};
};

inline map::map(std::initializer_list<std::pair<value, value>> items) {
    for (const auto& [k, v] : items) put(k, v);
}
inline map::map(std::vector<std::pair<value, value>> items, map_order order) : m_order(order) {
    for (auto& [k, v] : items) put(std::move(k), std::move(v));
}
inline std::size_t map::size() const noexcept { return m_impl ? m_impl->c.size() : 0; }
inline detail::map_impl& map::mut() {
    if (!m_impl) m_impl = std::make_shared<detail::map_impl>();
    else if (m_impl.use_count() > 1) m_impl = std::make_shared<detail::map_impl>(*m_impl);
    return *m_impl;
}
inline const map_entry& map::entry_at(std::size_t i) const {
    KVMODEL_ASSERT(i < size());
    return *m_impl->by_key().nth(i);
}
inline const value& map::key_at(std::size_t i) const { return entry_at(i).key; }
inline const value& map::value_at(std::size_t i) const { return entry_at(i).val; }
inline std::optional<std::size_t> map::find(const value& k) const {
    if (!m_impl) return std::nullopt;
    const auto& idx = m_impl->by_key();
    auto it = idx.find(k);
    if (it == idx.end()) return std::nullopt;
    return idx.rank(it);
}
inline const value* map::get(const value& k) const {
    if (!m_impl) return nullptr;
    const auto& idx = m_impl->by_key();
    auto it = idx.find(k);
    return it == idx.end() ? nullptr : &it->val;
}
inline std::size_t map::count_less_key(const value& k) const {
    return m_impl ? m_impl->by_key().rank(m_impl->by_key().lower_bound(k)) : 0;
}
inline std::size_t map::count_less_equal_key(const value& k) const {
    return m_impl ? m_impl->by_key().rank(m_impl->by_key().upper_bound(k)) : 0;
}
inline std::size_t map::rank_of(std::size_t index) const {
    KVMODEL_ASSERT(index < size());
    const auto& im = *m_impl;
    return im.by_value().rank(im.c.project<1>(im.by_key().nth(index)));
}
inline std::size_t map::index_at_rank(std::size_t r) const {
    KVMODEL_ASSERT(r < size());
    const auto& im = *m_impl;
    return im.by_key().rank(im.c.project<0>(im.by_value().nth(r)));
}
inline std::size_t map::count_less_value(const value& v) const {
    return m_impl ? m_impl->by_value().rank(m_impl->by_value().lower_bound(v)) : 0;
}
inline std::size_t map::count_less_equal_value(const value& v) const {
    return m_impl ? m_impl->by_value().rank(m_impl->by_value().upper_bound(v)) : 0;
}
inline std::vector<std::size_t> map::indexes_by_rank(std::size_t first, std::size_t last) const {
    std::vector<std::size_t> out;
    last = std::min(last, size());
    if (first >= last) return out;
    out.reserve(last - first);
    const auto& im = *m_impl;
    auto it = im.by_value().nth(first);
    for (std::size_t r = first; r < last; ++r, ++it) out.push_back(im.by_key().rank(im.c.project<0>(it)));
    return out;
}
inline std::pair<std::size_t, bool> map::put(value k, value v) {
    auto& im = mut();
    auto& idx = im.by_key();
    // Look up by entry, not by bare value: storing is exact, so a WILDCARD in k
    // must not match (and overwrite) some other key.
    map_entry e{std::move(k), std::move(v)};
    auto it = idx.find(e);
    if (it != idx.end()) {
        idx.modify(it, [&](map_entry& old) { old.val = std::move(e.val); });
        return {idx.rank(it), false};
    }
    auto [pos, ok] = idx.insert(std::move(e));
    return {idx.rank(pos), ok};
}
inline void map::set_value_at(std::size_t index, value v) {
    KVMODEL_ASSERT(index < size());
    auto& idx = mut().by_key();
    idx.modify(idx.nth(index), [&](map_entry& e) { e.val = std::move(v); });
}
inline value map::take_value_at(std::size_t index) {
    KVMODEL_ASSERT(index < size());
    value out;
    auto& idx = mut().by_key();
    idx.modify(idx.nth(index), [&](map_entry& e) { out = std::exchange(e.val, value{}); });
    return out;
}
inline void map::erase_at(std::size_t index) {
    KVMODEL_ASSERT(index < size());
    auto& idx = mut().by_key();
    idx.erase(idx.nth(index));
}
inline void map::erase_range(std::size_t first, std::size_t last) {
    KVMODEL_ASSERT(first <= last && last <= size());
    if (first == last) return;
    auto& idx = mut().by_key();
    idx.erase(idx.nth(first), idx.nth(last));
}
inline bool map::erase(const value& k) {
    if (!contains(k)) return false;
    auto& idx = mut().by_key();
    idx.erase(idx.find(k));
    return true;
}
inline void map::clear() noexcept { m_impl.reset(); }
// An empty map may have no impl: begin() and end() must then both point into
// the same empty container, or iterating it runs off into the void.
inline const detail::map_impl& map::empty_impl() noexcept {
    static const detail::map_impl e;
    return e;
}
inline map::const_iterator map::begin() const {
    return const_iterator(m_impl ? m_impl->by_key().begin() : empty_impl().by_key().begin());
}
inline map::const_iterator map::end() const {
    return const_iterator(m_impl ? m_impl->by_key().end() : empty_impl().by_key().end());
}

namespace detail {

/// Positioned access to a map's two ranked indices for the CDT engine
/// (cdt/detail/map_engine.hpp): it walks a window of k entries in key or rank
/// order in O(log n + k) instead of k separate O(log n) look-ups, and crosses
/// between the orders per entry in O(log n). Not part of the public API.
struct map_access {
    using key_iterator = map_impl::container::nth_index<0>::type::const_iterator;
    using rank_iterator = map_impl::container::nth_index<1>::type::const_iterator;

    /// Entry of index i (i == size() is the end). Precondition: !m.empty(). O(log n).
    static key_iterator key_at(const map& m, std::size_t i) {
        KVMODEL_ASSERT(m.m_impl && i <= m.size());
        return m.m_impl->by_key().nth(i);
    }
    /// Entry of rank r (r == size() is the end). Precondition: !m.empty(). O(log n).
    static rank_iterator rank_at(const map& m, std::size_t r) {
        KVMODEL_ASSERT(m.m_impl && r <= m.size());
        return m.m_impl->by_value().nth(r);
    }
    /// Index (key order) of the entry at it. O(log n).
    static std::size_t index_of(const map& m, rank_iterator it) {
        const map_impl& im = *m.m_impl;
        return im.by_key().rank(im.c.project<0>(it));
    }
    /// Rank (value order, ties by key) of the entry at it. O(log n).
    static std::size_t rank_of(const map& m, key_iterator it) {
        const map_impl& im = *m.m_impl;
        return im.by_value().rank(im.c.project<1>(it));
    }
    /// Erases ranks [first, last). O((last - first) log n).
    static void erase_ranks(map& m, std::size_t first, std::size_t last) {
        KVMODEL_ASSERT(first <= last && last <= m.size());
        if (first == last) return;
        if (first == 0 && last == m.size()) {
            m.m_impl.reset();
            return;
        }
        auto& idx = m.mut().by_value();
        idx.erase(idx.nth(first), idx.nth(last));
    }
};

} // namespace detail

} // namespace kvmodel

#include <kvmodel/core/order.hpp> // IWYU pragma: export
