// kvmodel/core/detail/counted_btree.hpp
//
// An order-statistics B+tree: a sorted multiset whose elements also answer by
// position. The sorted layout of kvmodel::list (an ORDERED list) lives here.
//
// Shape. Values sit in leaves, up to LeafCap of them contiguous in one node;
// the leaves are doubly linked in order. An inner node holds up to InnerCap
// children, each child's subtree element count, and a separator per child
// but the first. Every node knows its parent and its place there, so an
// iterator (leaf, slot) finds its rank by walking up: slot plus the counts
// of the children left of the path. Height is O(log n) with fan-outs of
// LeafCap and InnerCap.
//
// Separators are bounds, not copies of the child's first element: for
// children c[i-1], c[i] and separator s[i], every value under c[i-1] is not
// above s[i], which is not above any value under c[i]. Erasing never breaks
// that, so an erase touches no separator; an insert or replace at a leaf's
// edge widens the one separator bounding it (O(height)).
//
// Splits. A full node splits in half, except when a value goes past the
// end of the last leaf: that leaf stays full and a new last leaf starts
// (and so up the right edge), so runs of appends - increasing keys, a
// time-ordered list - fill their nodes. Only nodes on the right edge are
// then under half full.
//
// Underflow. A leaf under LeafCap / 2 values (an inner node under
// (InnerCap + 1) / 2 children) is merged with a sibling when both fit in one
// node, else the two are evened out; the root may hold fewer and collapses
// when left with one child. Erasing the first element (the trim of a capped
// list) frees the front slot of the first leaf (see below) and, once the leaf
// is under half full, merges or evens it with its neighbour: no descent, and
// O(1) but for that O(LeafCap) step.
//
// Failure. An insert that runs out of memory (or whose copy of a value
// throws) leaves the tree as it was: what a split needs is allocated and
// copied before the tree changes. So does an erase within one leaf (erase(pos),
// and a run inside a leaf): the separator an even-out needs is copied first.
// A run across leaves is erased leaf by leaf, each step all or nothing: a
// failure leaves a valid tree with the run partly erased.
//
// Costs: nth, rank, lower_bound, upper_bound, insert, erase: O(log n) (each
// with an O(LeafCap) or O(InnerCap) shift or scan per level touched).
// erase(first, last): leaf by leaf, one descent per leaf touched:
// O((1 + k / LeafCap) log n + k), so O(log n + k) while LeafCap >= log n.
// Copy and bulk load: O(n).
//
// Iterators: begin(), ++, -- and * are O(1). Any insert, replace or erase
// invalidates every iterator (values move inside and between leaves);
// reading does not. T must be default-constructible and copyable (inner
// nodes keep copies of values as separators): free leaf
// slots hold T{} (or what Slot::vacate leaves there). A leaf's values sit in
// a window of its slots, so erasing near its front moves the front values
// right instead of the rest left: the trim of the first value is O(1) but
// for the occasional merge.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace kvmodel::detail {

/// How a leaf moves a value between its slots and clears a freed slot; a
/// specialisation may skip work for cheap alternatives (see containers.hpp).
///
/// live_separators: every separator must be a value still in the tree (T
/// refers to something the owner frees once erased, so a stale separator
/// would dangle). Erasing then replaces each separator among the erased
/// values by a neighbour of theirs that stays; replace() is unavailable;
/// check() tells a value from its copies with Slot::same(a, b).
///
/// tracks_leaf: the tree calls Slot::placed(v, leaf) whenever value v comes
/// to live in a leaf it was not in (inserted, or moved by a split, merge or
/// growth), so the thing v refers to can remember its leaf and be found
/// again by iterator_in() without a search. Such a tree cannot be copied
/// (the copies would claim the same referents).
template <class T>
struct btree_slot {
    static constexpr bool live_separators = false;
    static constexpr bool tracks_leaf = false;
    static void move(T& to, T& from) { to = std::move(from); }
    static void vacate(T& t) { t = T{}; }
    static void placed(T&, const void*) noexcept {}
};

/// Whether Slot asks for leaf reports (a Slot may leave tracks_leaf out).
template <class Slot>
inline constexpr bool slot_tracks_leaf = requires { requires Slot::tracks_leaf; };

template <class T,
          class Less,
          std::size_t LeafCap = 32,
          std::size_t InnerCap = 32,
          class Slot = btree_slot<T>>
class counted_btree {
    static_assert(LeafCap >= 2, "a leaf must hold two values to split");
    static_assert(InnerCap >= 3, "an inner node must hold three children to split");

    struct inner;
    struct node {
        inner* parent = nullptr;
        std::size_t n = 0; // values in a leaf, children in an inner node
        bool leaf;
        std::uint32_t slot = 0; // parent->child[slot] is this node (link())
        explicit node(bool is_leaf)
            : leaf(is_leaf) {}
    };
    // A leaf's slots follow it in the same allocation (make_leaf): LeafCap
    // of them, or fewer in a small tree's only leaf, which grows by doubling
    // (a map of three entries holds three references, not LeafCap).
    struct leaf_node : node {
        leaf_node* prev = nullptr;
        leaf_node* next = nullptr;
        std::size_t off = 0; // the values are slots()[off, off + n): a trim frees the front
        std::size_t cap;     // slots
        explicit leaf_node(std::size_t c)
            : node(true)
            , cap(c) {}
        T* slots() noexcept {
            return std::launder(reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(this) + slots_at));
        }
        const T* slots() const noexcept {
            return std::launder(
                reinterpret_cast<const T*>(reinterpret_cast<const unsigned char*>(this) + slots_at));
        }
        T* data() noexcept { return slots() + off; }
        const T* data() const noexcept { return slots() + off; }
        // Moves the values to slots [0, n), where splits and merges want them.
        void compact() {
            if (off == 0)
                return;
            T* raw = slots();
            for (std::size_t i = 0; i < this->n; ++i)
                Slot::move(raw[i], raw[off + i]);
            for (std::size_t i = std::max(off, this->n); i < off + this->n; ++i)
                Slot::vacate(raw[i]);
            off = 0;
        }
    };
    static constexpr std::size_t slots_at =
        (sizeof(leaf_node) + alignof(T) - 1) / alignof(T) * alignof(T);
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "slots follow the leaf");

    static leaf_node* make_leaf(std::size_t cap) {
        void* mem = ::operator new(slots_at + cap * sizeof(T));
        auto* slots = reinterpret_cast<T*>(static_cast<unsigned char*>(mem) + slots_at);
        std::size_t made = 0;
        try {
            for (; made < cap; ++made)
                ::new (static_cast<void*>(slots + made)) T();
        } catch (...) {
            std::destroy_n(slots, made);
            ::operator delete(mem);
            throw;
        }
        return ::new (mem) leaf_node(cap);
    }
    static void free_leaf(leaf_node* l) noexcept {
        std::destroy_n(l->slots(), l->cap);
        void* mem = l;
        l->~leaf_node();
        ::operator delete(mem);
    }

    struct inner : node {
        node* child[InnerCap] = {};
        std::size_t cnt[InnerCap] = {}; // elements under each child
        T sep[InnerCap];                // sep[0] unused
        inner()
            : node(false) {}
    };

    static constexpr std::size_t min_leaf = LeafCap / 2 > 0 ? LeafCap / 2 : 1;
    static constexpr std::size_t min_inner = (InnerCap + 1) / 2;

public:
    using value_type = T;
    using size_type = std::size_t;

    class const_iterator {
    public:
        using iterator_category = std::bidirectional_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = const T&;

        const_iterator() = default;
        reference operator*() const { return m_leaf->data()[m_slot]; }
        pointer operator->() const { return &m_leaf->data()[m_slot]; }
        const_iterator& operator++() {
            if (++m_slot == m_leaf->n && m_leaf->next != nullptr) {
                m_leaf = m_leaf->next;
                m_slot = 0;
            }
            return *this;
        }
        const_iterator operator++(int) {
            auto t = *this;
            ++*this;
            return t;
        }
        const_iterator& operator--() {
            if (m_slot == 0) {
                m_leaf = m_leaf->prev;
                m_slot = m_leaf->n;
            }
            --m_slot;
            return *this;
        }
        const_iterator operator--(int) {
            auto t = *this;
            --*this;
            return t;
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) {
            return a.m_leaf == b.m_leaf && a.m_slot == b.m_slot;
        }

    private:
        friend class counted_btree;
        const_iterator(const leaf_node* l, std::size_t slot)
            : m_leaf(l)
            , m_slot(slot) {}
        // end() is (last leaf, its size); no other iterator sits past a leaf's values.
        const leaf_node* m_leaf = nullptr;
        std::size_t m_slot = 0;
    };
    using iterator = const_iterator;

    /// An iterator and its rank, as one descent finds both.
    struct position {
        const_iterator it;
        std::size_t rank;
    };

    counted_btree() = default;
    counted_btree(const counted_btree& o)
        requires(!slot_tracks_leaf<Slot>)
    {
        if (o.m_root == nullptr)
            return;
        leaf_node* last = nullptr;
        m_root = clone(o.m_root, nullptr, last);
        m_last = last;
        m_size = o.m_size;
    }
    counted_btree(counted_btree&& o) noexcept { take(o); }
    counted_btree& operator=(const counted_btree&) = delete;
    counted_btree& operator=(counted_btree&&) = delete;
    ~counted_btree() { clear(); }

    /// Builds the tree from values already in order, leaves filled. O(n).
    explicit counted_btree(std::vector<T>&& sorted) { assign_sorted(std::move(sorted)); }

    std::size_t size() const noexcept { return m_size; }
    bool empty() const noexcept { return m_size == 0; }
    const_iterator begin() const noexcept { return {m_first, 0}; }
    const_iterator end() const noexcept { return {m_last, m_last != nullptr ? m_last->n : 0}; }

    void clear() noexcept {
        if (m_root != nullptr) {
            destroy(m_root);
        } else { // a build_sorted that failed: only chained leaves
            for (leaf_node* l = m_first; l != nullptr;) {
                leaf_node* next = l->next;
                free_leaf(l);
                l = next;
            }
        }
        m_root = nullptr;
        m_first = m_last = nullptr;
        m_size = 0;
    }

    /// The element at position i (i == size() gives end()). O(log n).
    const_iterator nth(std::size_t i) const {
        if (i >= m_size)
            return end();
        const node* x = m_root;
        while (!x->leaf) {
            const auto* in = static_cast<const inner*>(x);
            std::size_t k = 0;
            while (i >= in->cnt[k])
                i -= in->cnt[k++];
            x = in->child[k];
        }
        return {static_cast<const leaf_node*>(x), i};
    }

    /// The position of it (size() for end()). O(log n).
    std::size_t rank(const_iterator it) const {
        if (it.m_leaf == nullptr)
            return 0;
        std::size_t r = it.m_slot;
        for_path(it.m_leaf, [&r](const inner* p, std::size_t j) {
            for (std::size_t k = 0; k < j; ++k)
                r += p->cnt[k];
        });
        return r;
    }

    /// The first element not below key, and its rank. O(log n).
    template <class K>
    position lower_bound_pos(const K& key) const {
        return descend([&](const T& s) { return m_less(s, key); },
                       [&](const T& v) { return m_less(v, key); });
    }
    /// The first element above key, and its rank. O(log n).
    template <class K>
    position upper_bound_pos(const K& key) const {
        return descend([&](const T& s) { return !m_less(key, s); },
                       [&](const T& v) { return !m_less(key, v); });
    }
    template <class K>
    const_iterator lower_bound(const K& key) const {
        return descend<false>([&](const T& s) { return m_less(s, key); },
                              [&](const T& v) { return m_less(v, key); })
            .it;
    }
    template <class K>
    const_iterator upper_bound(const K& key) const {
        return descend<false>([&](const T& s) { return !m_less(key, s); },
                              [&](const T& v) { return !m_less(key, v); })
            .it;
    }

    /// With leaf reports (Slot::tracks_leaf): the element that is_it accepts
    /// among those of `leaf`, the leaf Slot::placed last reported for it
    /// (end() if none is). O(LeafCap), no comparison.
    template <class Is>
    const_iterator iterator_in(const void* leaf, Is is_it) const {
        static_assert(slot_tracks_leaf<Slot>, "only a tree reporting leaves knows them");
        const auto* l = static_cast<const leaf_node*>(leaf);
        const T* d = l->data();
        for (std::size_t i = 0; i < l->n; ++i)
            if (is_it(d[i]))
                return {l, i};
        return end();
    }

    /// Inserts v after the elements equal to it; returns where it went and
    /// its rank. O(log n).
    position insert(const T& v) { return insert(T(v)); }
    position insert(T&& v) {
        if (m_root == nullptr)
            return {first_value(std::move(v)), 0};
        std::size_t r = 0;
        node* x = m_root;
        while (!x->leaf) {
            auto* in = static_cast<inner*>(x);
            // Separators s[1..n): go right of every one not above v (a
            // linear scan: fewer instructions than a binary search here).
            std::size_t k = 0;
            while (k + 1 < in->n && !m_less(v, in->sep[k + 1]))
                r += in->cnt[k++];
            ++in->cnt[k]; // v goes below child k: counted on the way down
            x = in->child[k];
        }
        auto* l = static_cast<leaf_node*>(x);
        std::size_t slot = leaf_search(l->data(), l->n, [&](const T& e) { return !m_less(v, e); });
        // Separators on the way down already bound v: no separator changes.
        try {
            return {insert_at(l, slot, std::move(v), true), r + slot};
        } catch (...) {
            add_counts(l, -1); // insert_at changed nothing else
            throw;
        }
    }

    /// Inserts v just before pos. The caller has checked that v sits between
    /// the elements around pos in order. O(log n).
    const_iterator insert(const_iterator pos, const T& v) { return insert(pos, T(v)); }
    const_iterator insert(const_iterator pos, T&& v) {
        if (m_root == nullptr)
            return first_value(std::move(v));
        auto* l = const_cast<leaf_node*>(pos.m_leaf);
        // At a leaf's front v may lie below the bound on the leaf's left. The
        // bound is lowered to v once v is in (with live separators it must
        // never name a value that is not), from a copy made before anything
        // changed, so nothing can throw between the two. A split keeps v
        // first in its leaf; it may move the bound, not change it.
        T* s = pos.m_slot == 0 ? left_sep(l) : nullptr;
        if (s == nullptr || !m_less(v, *s))
            return insert_at(l, pos.m_slot, std::move(v), false);
        T bound = v;
        const_iterator it = insert_at(l, 0, std::move(v), false);
        *left_sep(const_cast<leaf_node*>(it.m_leaf)) = std::move(bound);
        return it;
    }

    /// Replaces the element at pos by v, which the caller has checked keeps
    /// the order. O(log n) at a leaf's edge, else O(1).
    void replace(const_iterator pos, const T& v) { replace(pos, T(v)); }
    void replace(const_iterator pos, T&& v) {
        static_assert(!Slot::live_separators, "the replaced value may be a separator");
        auto* l = const_cast<leaf_node*>(pos.m_leaf);
        // The bounds to widen, copied before anything changes (a copy may throw).
        T* lo = pos.m_slot == 0 ? left_sep(l) : nullptr;
        T* hi = pos.m_slot + 1 == l->n ? right_sep(l) : nullptr;
        if (lo != nullptr && !m_less(v, *lo))
            lo = nullptr;
        if (hi != nullptr && !m_less(*hi, v))
            hi = nullptr;
        T lo_value = lo != nullptr ? v : T{};
        T hi_value = hi != nullptr ? v : T{};
        if (lo != nullptr)
            *lo = std::move(lo_value);
        if (hi != nullptr)
            *hi = std::move(hi_value);
        l->data()[pos.m_slot] = std::move(v);
    }

    /// With live separators: the element at pos becomes v, the same element
    /// (Slot::same) summarised anew, which the caller has checked keeps the
    /// order; the separators holding it follow. O(height * InnerCap).
    void update(const_iterator pos, const T& v) {
        static_assert(Slot::live_separators, "replace() serves the other trees");
        auto* l = const_cast<leaf_node*>(pos.m_leaf);
        T& at = l->data()[pos.m_slot];
        for_path(l, [&](inner* p, std::size_t j) {
            if (j > 0 && Slot::same(p->sep[j], at))
                p->sep[j] = v;
            if (j + 1 < p->n && Slot::same(p->sep[j + 1], at))
                p->sep[j + 1] = v;
        });
        at = v;
    }
    /// Whether v may stand at pos (between the elements around it) in order.
    bool fits_at(const_iterator pos, const T& v) const {
        if (pos != begin() && !m_less(*std::prev(pos), v))
            return false;
        const_iterator next = std::next(pos);
        return next == end() || m_less(v, *next);
    }

    /// Erases the element at pos. O(log n); the first element O(LeafCap) amortised.
    void erase(const_iterator pos) {
        erase_in_leaf(const_cast<leaf_node*>(pos.m_leaf), pos.m_slot, 1);
    }

    /// Erases the elements of positions [first, last). O(log n + k).
    void erase_ranks(std::size_t first, std::size_t last) {
        while (first < last) {
            const_iterator it = nth(first);
            auto* l = const_cast<leaf_node*>(it.m_leaf);
            std::size_t m = std::min(last - first, l->n - it.m_slot);
            erase_in_leaf(l, it.m_slot, m);
            last -= m;
        }
    }
    void erase(const_iterator first, const_iterator last) {
        if (first == last)
            return;
        erase_ranks(rank(first), rank(last));
    }

    /// Replaces the contents by values already in order. O(n). On failure
    /// (out of memory, a throwing copy) the tree is unchanged and so is
    /// sorted: the values already moved into new leaves are moved back.
    void assign_sorted(std::vector<T>&& sorted) {
        counted_btree built;
        try {
            built.build_sorted(sorted.size(), [&](std::size_t i) -> T&& { return std::move(sorted[i]); });
        } catch (...) {
            std::size_t i = 0;
            for (leaf_node* l = built.m_first; l != nullptr; l = l->next)
                for (std::size_t j = 0; j < l->n; ++j)
                    sorted[i++] = std::move(l->data()[j]);
            throw;
        }
        take(built);
    }
    /// Replaces the contents by the n values at(0), ..., at(n - 1), already
    /// in order. O(n). On failure the tree is unchanged.
    template <class At>
    void assign_sorted(std::size_t n, At at_index) {
        counted_btree built;
        built.build_sorted(n, at_index);
        take(built);
    }

    /// Moves every value out, in order, and empties the tree. O(n).
    std::vector<T> release_sorted() {
        std::vector<T> out;
        out.reserve(m_size);
        for (leaf_node* l = m_first; l != nullptr; l = l->next)
            for (std::size_t i = 0; i < l->n; ++i)
                out.push_back(std::move(l->data()[i]));
        clear();
        return out;
    }

    /// The number of leaves. For tests. O(n / LeafCap).
    std::size_t leaf_count() const noexcept {
        std::size_t k = 0;
        for (const leaf_node* l = m_first; l != nullptr; l = l->next)
            ++k;
        return k;
    }

    /// Checks every structural invariant; false on the first broken one.
    /// For tests. O(n).
    bool check() const {
        if (m_root == nullptr)
            return m_size == 0 && m_first == nullptr && m_last == nullptr;
        if (m_root->parent != nullptr)
            return false;
        if (!m_root->leaf && m_root->n < 2)
            return false;
        const leaf_node* prev = nullptr;
        std::size_t depth = 0;
        std::size_t leaf_depth = static_cast<std::size_t>(-1);
        std::size_t total = 0;
        if (!check_node(m_root, nullptr, nullptr, depth, leaf_depth, prev, total))
            return false;
        if (prev != m_last || prev->next != nullptr || m_first->prev != nullptr)
            return false;
        if (total != m_size)
            return false;
        if constexpr (Slot::live_separators)
            if (!check_separators_live(m_root))
                return false;
        // Values in order along the leaves.
        for (auto it = begin(), nx = begin(); it != end(); it = nx) {
            ++nx;
            if (nx != end() && m_less(*nx, *it))
                return false;
        }
        return true;
    }

private:
    node* m_root = nullptr;
    leaf_node* m_first = nullptr;
    leaf_node* m_last = nullptr;
    std::size_t m_size = 0;
    [[no_unique_address]] Less m_less{};

    static std::size_t count_of(const node* x) {
        if (x->leaf)
            return x->n;
        const auto* in = static_cast<const inner*>(x);
        std::size_t s = 0;
        for (std::size_t k = 0; k < in->n; ++k)
            s += in->cnt[k];
        return s;
    }
    static const T& first_of(const node* x) {
        while (!x->leaf)
            x = static_cast<const inner*>(x)->child[0];
        return static_cast<const leaf_node*>(x)->data()[0];
    }
    static std::size_t index_in_parent(const node* x) { return x->slot; }
    // Where an underfull x pairs with a sibling under its parent p: the pair
    // is (p->child[j - 1], p->child[j]), x one of them.
    static std::size_t sibling_pair(const node* x) {
        std::size_t k = index_in_parent(x);
        return k + 1 < x->parent->n ? k + 1 : k;
    }
    // Makes c child j of p. Every child pointer is written through here, so
    // a node knows its place in its parent: walks up the tree (ranks, counts,
    // separators) never scan a parent's children for it.
    static void link(inner* p, std::size_t j, node* c) noexcept {
        p->child[j] = c;
        c->parent = p;
        c->slot = static_cast<std::uint32_t>(j);
    }

    // The child a search goes down: past every separator go_right accepts
    // (they are sorted, so a binary search over s[1..n)).
    template <class GoRight>
    static std::size_t child_for(const inner* in, GoRight go_right) {
        std::size_t lo = 1;
        std::size_t hi = in->n;
        while (lo < hi) {
            std::size_t mid = (lo + hi) / 2;
            if (go_right(in->sep[mid]))
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo - 1;
    }

    // The number of leading values of d[0, n) that past accepts (a prefix):
    // a binary search whose step is a select, not a branch (a random probe
    // mispredicts half its branches).
    template <class Past>
    static std::size_t leaf_search(const T* d, std::size_t n, Past past) {
        if (n == 0)
            return 0;
        const T* base = d;
        while (n > 1) {
            std::size_t half = n / 2;
            base = past(base[half]) ? base + half : base;
            n -= half;
        }
        return static_cast<std::size_t>(base - d) + (past(*base) ? 1 : 0);
    }

    // go_right(s): the search goes past separator s; in_leaf(v): past value v.
    // Ranked: count the rank on the way down (lower_bound and upper_bound
    // need only the iterator).
    template <bool Ranked = true, class GoRight, class InLeaf>
    position descend(GoRight go_right, InLeaf in_leaf) const {
        if (m_root == nullptr)
            return {end(), 0};
        std::size_t r = 0;
        const node* x = m_root;
        while (!x->leaf) {
            const auto* in = static_cast<const inner*>(x);
            std::size_t k = child_for(in, go_right);
            if constexpr (Ranked)
                for (std::size_t j = 0; j < k; ++j)
                    r += in->cnt[j];
            x = in->child[k];
        }
        const auto* l = static_cast<const leaf_node*>(x);
        std::size_t lo = leaf_search(l->data(), l->n, in_leaf);
        r += lo;
        // Past the leaf's last value: the answer is the next leaf's first
        // (the separators guarantee it qualifies), or end().
        if (lo == l->n && l->next != nullptr)
            return {{l->next, 0}, r};
        return {{l, lo}, r};
    }

    const_iterator first_value(T&& v) {
        auto* l = make_leaf(1);
        l->data()[0] = std::move(v);
        l->n = 1;
        placed(l, 0, 1);
        m_root = m_first = m_last = l;
        m_size = 1;
        return {l, 0};
    }

    /// The separator bounding x's subtree on the left (nullptr when x is on
    /// the leftmost path).
    T* left_sep(node* x) {
        while (x->parent != nullptr) {
            std::size_t k = index_in_parent(x);
            if (k > 0)
                return &x->parent->sep[k];
            x = x->parent;
        }
        return nullptr;
    }
    T* right_sep(node* x) {
        while (x->parent != nullptr) {
            std::size_t k = index_in_parent(x);
            if (k + 1 < x->parent->n)
                return &x->parent->sep[k + 1];
            x = x->parent;
        }
        return nullptr;
    }
    // Reports values [from, to) of l (data() positions) as living in l.
    static void placed(leaf_node* l, std::size_t from, std::size_t to) noexcept {
        if constexpr (slot_tracks_leaf<Slot>)
            for (std::size_t i = from; i < to; ++i)
                Slot::placed(l->data()[i], l);
    }

    // Adds d to the counts on the path from leaf l to the root.
    static void add_counts(const leaf_node* l, std::ptrdiff_t d) {
        for_path(l, [d](inner* p, std::size_t j) {
            p->cnt[j] = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(p->cnt[j]) + d);
        });
    }

    // The only leaf, full below LeafCap slots: its values move to a leaf of
    // twice the slots (at most LeafCap). O(n) while n < LeafCap.
    leaf_node* grow_root_leaf(leaf_node* l) {
        leaf_node* g = make_leaf(std::min(LeafCap, 2 * l->cap));
        for (std::size_t i = 0; i < l->n; ++i)
            Slot::move(g->slots()[i], l->data()[i]);
        g->n = l->n;
        placed(g, 0, g->n);
        m_root = m_first = m_last = g;
        free_leaf(l);
        return g;
    }

    // The inner nodes a leaf split may add, allocated before the split: one
    // per full ancestor of the leaf (each splits in turn) and a new root
    // when they all are, or the leaf is the root. Unused ones are freed.
    class spare_inners {
    public:
        explicit spare_inners(const leaf_node* l) {
            std::size_t need = 0;
            const inner* p = l->parent;
            for (; p != nullptr && p->n == InnerCap; p = p->parent)
                ++need;
            if (p == nullptr)
                ++need;
            try {
                for (; need > 0; --need) {
                    auto* x = new inner();
                    x->parent = m_head; // the spares' chain
                    m_head = x;
                }
            } catch (...) {
                release();
                throw;
            }
        }
        spare_inners(const spare_inners&) = delete;
        spare_inners& operator=(const spare_inners&) = delete;
        ~spare_inners() { release(); }
        inner* take() noexcept {
            inner* x = m_head;
            m_head = x->parent;
            x->parent = nullptr;
            return x;
        }

    private:
        void release() noexcept {
            while (m_head != nullptr)
                delete take();
        }
        inner* m_head = nullptr;
    };

    // counted: the path's counts already include v.
    const_iterator insert_at(leaf_node* l, std::size_t slot, T&& v, bool counted) {
        if (l->n == l->cap && l->cap < LeafCap)
            l = grow_root_leaf(l);
        if (l->n < l->cap) {
            ++m_size;
            if (!counted)
                add_counts(l, 1);
            // Shift the shorter side when both have room.
            if (l->off > 0 && (slot < l->n - slot || l->off + l->n == l->cap)) {
                --l->off;
                T* d = l->data();
                for (std::size_t i = 0; i < slot; ++i)
                    Slot::move(d[i], d[i + 1]);
            } else {
                T* d = l->data();
                for (std::size_t i = l->n; i > slot; --i)
                    Slot::move(d[i], d[i - 1]);
            }
            Slot::move(l->data()[slot], v);
            ++l->n;
            placed(l, slot, slot + 1);
            return {l, slot};
        }
        // Full: the upper half moves to a new right neighbour - or nothing
        // does, when v goes past the end of the last leaf: a run of appends
        // (increasing keys) leaves its leaves full, not half full.
        const bool append = slot == LeafCap && l->next == nullptr;
        std::size_t keep = append ? LeafCap : (LeafCap + 1) / 2;
        // Everything that can throw first: the new leaf, the inner nodes the
        // split may add up the tree, the separator (r's first value, a
        // copy). Then nothing throws: a failed insert leaves the tree as it was.
        spare_inners spares(l);
        T s = append ? T(v) : T(l->data()[keep]); // full: off is 0
        auto* r = make_leaf(LeafCap);
        for (std::size_t i = keep; i < LeafCap; ++i) {
            Slot::move(r->slots()[i - keep], l->slots()[i]);
            Slot::vacate(l->slots()[i]);
        }
        r->n = LeafCap - keep;
        l->n = keep;
        r->prev = l;
        r->next = l->next;
        if (l->next != nullptr)
            l->next->prev = r;
        else
            m_last = r;
        l->next = r;
        leaf_node* into = l;
        if (slot > keep || append) {
            into = r;
            slot -= keep;
        }
        T* d = into->data();
        for (std::size_t i = into->n; i > slot; --i)
            Slot::move(d[i], d[i - 1]);
        Slot::move(d[slot], v);
        ++into->n;
        placed(r, 0, r->n);
        if (into == l)
            placed(l, slot, slot + 1);
        ++m_size;
        if (!counted)
            add_counts(l, 1);
        add_child_after(l, r, std::move(s), append, spares);
        return {into, slot};
    }

    // Links new node r right after x in x's parent, with separator s; the
    // parent's count for x covered both before the split.
    // append: r is the new last node of its level (only the nodes on the
    // tree's right edge may then be under half full).
    void add_child_after(node* x, node* r, T s, bool append, spare_inners& spares) noexcept {
        inner* p = x->parent;
        if (p == nullptr) {
            p = spares.take();
            link(p, 0, x);
            p->cnt[0] = count_of(x) + count_of(r);
            p->n = 1;
            m_root = p;
        }
        std::size_t k = index_in_parent(x);
        std::size_t total = p->cnt[k];
        std::size_t rc = count_of(r);
        if (p->n < InnerCap) {
            place_child(p, k + 1, r, rc, std::move(s));
            p->cnt[k] = total - rc;
            return;
        }
        // Full: the InnerCap + 1 children, r among them, split evenly
        // between p and a new right neighbour q.
        constexpr std::size_t all = InnerCap + 1;
        node* ch[all];
        std::size_t cn[all];
        T sp[all];
        for (std::size_t j = 0, o = 0; j < all; ++j) {
            if (j == k + 1) {
                ch[j] = r;
                cn[j] = rc;
                sp[j] = std::move(s);
                continue;
            }
            ch[j] = p->child[o];
            cn[j] = j == k ? total - rc : p->cnt[o];
            sp[j] = std::move(p->sep[o]);
            ++o;
        }
        // An appended last child (the leaves' append above) leaves p all but
        // full: q takes two children, the fewest fix_leaf can pair under it.
        const std::size_t keep = append && k + 1 == InnerCap ? InnerCap - 1 : (all + 1) / 2;
        auto* q = spares.take();
        for (std::size_t j = 0; j < all; ++j) {
            inner* into = j < keep ? p : q;
            std::size_t at = j < keep ? j : j - keep;
            link(into, at, ch[j]);
            into->cnt[at] = cn[j];
            into->sep[at] = at > 0 ? std::move(sp[j]) : T{};
        }
        for (std::size_t j = keep; j < InnerCap; ++j) {
            p->child[j] = nullptr;
            p->cnt[j] = 0;
            p->sep[j] = T{};
        }
        p->n = keep;
        q->n = all - keep;
        add_child_after(p, q, std::move(sp[keep]), append, spares);
    }

    static void place_child(inner* p, std::size_t at, node* c, std::size_t cnt, T s) {
        for (std::size_t j = p->n; j > at; --j) {
            link(p, j, p->child[j - 1]);
            p->cnt[j] = p->cnt[j - 1];
            p->sep[j] = std::move(p->sep[j - 1]);
        }
        link(p, at, c);
        p->cnt[at] = cnt;
        p->sep[at] = std::move(s);
        ++p->n;
    }
    // Removes child at (and its separator) from p.
    static void drop_child(inner* p, std::size_t at) {
        for (std::size_t j = at; j + 1 < p->n; ++j) {
            link(p, j, p->child[j + 1]);
            p->cnt[j] = p->cnt[j + 1];
            p->sep[j] = std::move(p->sep[j + 1]);
        }
        --p->n;
        p->child[p->n] = nullptr;
        p->cnt[p->n] = 0;
        p->sep[p->n] = T{};
        if (at == 0)
            p->sep[0] = T{}; // the new first child needs no separator
    }

    // Calls f(p, j) for each ancestor p of leaf l, j the index in p of the
    // child on l's path. O(height).
    template <class F>
    static void for_path(const leaf_node* l, F f) {
        const node* x = l;
        for (inner* p = l->parent; p != nullptr; x = p, p = p->parent)
            f(p, index_in_parent(x));
    }

    // With live separators, before values [slot, slot + m) leave l: they
    // come off the path's counts, and a separator that is one of them
    // (Slot::same; each separator is a value in the tree, so it bounds the
    // child holding that value: on l's path, one of the two around the
    // path's child) becomes the value before the erased run, else the one
    // after it; either still bounds both children. One walk up,
    // O(height * (InnerCap + m)).
    void unlink_values(const leaf_node* l, std::size_t slot, std::size_t m) {
        const T* d = l->data();
        const T* keep = nullptr;
        if (slot > 0)
            keep = &d[slot - 1];
        else if (l->prev != nullptr)
            keep = &l->prev->data()[l->prev->n - 1];
        else if (slot + m < l->n)
            keep = &d[slot + m];
        else if (l->next != nullptr)
            keep = &l->next->data()[0];
        auto refresh = [&](T& s) {
            for (std::size_t i = slot; i < slot + m; ++i)
                if (Slot::same(s, d[i])) {
                    s = *keep;
                    return;
                }
        };
        for_path(l, [&](inner* p, std::size_t j) {
            p->cnt[j] -= m;
            if (keep == nullptr)
                return; // the tree empties
            if (j > 0)
                refresh(p->sep[j]);
            if (j + 1 < p->n)
                refresh(p->sep[j + 1]);
        });
    }

    // The separator fix_leaf's even-out will need once values [slot, slot +
    // m) leave l - b's new first value - copied while nothing has changed;
    // nullopt when no even-out follows. Where copying T may throw, an erase
    // makes this copy first and then nothing that can throw: it is all or
    // nothing.
    std::optional<T> even_out_separator(const leaf_node* l, std::size_t slot, std::size_t m) const {
        if (l->parent == nullptr || l->n - m >= min_leaf || m_size == m)
            return std::nullopt;
        const inner* p = l->parent;
        std::size_t j = sibling_pair(l);
        const auto* a = static_cast<const leaf_node*>(p->child[j - 1]);
        const auto* b = static_cast<const leaf_node*>(p->child[j]);
        std::size_t na = a->n - (a == l ? m : 0);
        std::size_t nb = b->n - (b == l ? m : 0);
        if (na + nb <= LeafCap)
            return std::nullopt; // they merge
        // x's i-th value once the run has left l.
        auto after = [&](const leaf_node* x, std::size_t i) -> const T& {
            return x->data()[x == l && i >= slot ? i + m : i];
        };
        std::size_t want_a = (na + nb) / 2;
        return na < want_a ? after(b, want_a - na) : after(a, want_a);
    }

    void erase_in_leaf(leaf_node* l, std::size_t slot, std::size_t m) {
        std::optional<T> sep;
        if constexpr (!std::is_nothrow_copy_assignable_v<T>)
            sep = even_out_separator(l, slot, m);
        if constexpr (Slot::live_separators)
            unlink_values(l, slot, m);
        T* d = l->data();
        if (slot < l->n - slot - m) {
            // Fewer values before the gap: they move right, the front frees.
            for (std::size_t i = slot; i-- > 0;)
                Slot::move(d[i + m], d[i]);
            for (std::size_t i = 0; i < m; ++i)
                Slot::vacate(d[i]);
            l->off += m;
        } else {
            for (std::size_t i = slot; i + m < l->n; ++i)
                Slot::move(d[i], d[i + m]);
            for (std::size_t i = l->n - m; i < l->n; ++i)
                Slot::vacate(d[i]);
        }
        l->n -= m;
        if (l->n == 0)
            l->off = 0;
        m_size -= m;
        if constexpr (!Slot::live_separators)
            add_counts(l, -static_cast<std::ptrdiff_t>(m));
        if (m_size == 0) {
            clear();
            return;
        }
        if (l->n < min_leaf && l->parent != nullptr)
            fix_leaf(l, sep);
    }

    void unlink_leaf(leaf_node* l) {
        if (l->prev != nullptr)
            l->prev->next = l->next;
        else
            m_first = l->next;
        if (l->next != nullptr)
            l->next->prev = l->prev;
        else
            m_last = l->prev;
        free_leaf(l);
    }

    // sep: the even-out's separator when the caller copied it beforehand.
    void fix_leaf(leaf_node* l, std::optional<T>& sep) {
        inner* p = l->parent;
        std::size_t j = sibling_pair(l);
        auto* a = static_cast<leaf_node*>(p->child[j - 1]);
        auto* b = static_cast<leaf_node*>(p->child[j]);
        a->compact();
        b->compact();
        if (a->n + b->n <= LeafCap) {
            for (std::size_t i = 0; i < b->n; ++i)
                Slot::move(a->slots()[a->n + i], b->slots()[i]);
            placed(a, a->n, a->n + b->n);
            a->n += b->n;
            p->cnt[j - 1] += p->cnt[j];
            drop_child(p, j);
            unlink_leaf(b);
            fix_inner(p);
            return;
        }
        // Even the two out; the separator becomes b's new first value.
        std::size_t total = a->n + b->n;
        std::size_t want_a = total / 2;
        if (a->n < want_a) {
            std::size_t d = want_a - a->n;
            for (std::size_t i = 0; i < d; ++i)
                Slot::move(a->slots()[a->n + i], b->slots()[i]);
            for (std::size_t i = d; i < b->n; ++i)
                Slot::move(b->slots()[i - d], b->slots()[i]);
            for (std::size_t i = b->n - d; i < b->n; ++i)
                Slot::vacate(b->slots()[i]);
        } else {
            std::size_t d = a->n - want_a;
            for (std::size_t i = b->n; i-- > 0;)
                Slot::move(b->slots()[i + d], b->slots()[i]);
            for (std::size_t i = 0; i < d; ++i) {
                Slot::move(b->slots()[i], a->slots()[want_a + i]);
                Slot::vacate(a->slots()[want_a + i]);
            }
        }
        b->n = total - want_a;
        a->n = want_a;
        placed(a, 0, a->n); // the moved values, and a few that stayed
        placed(b, 0, b->n);
        p->cnt[j - 1] = a->n;
        p->cnt[j] = b->n;
        if (sep)
            p->sep[j] = std::move(*sep);
        else
            p->sep[j] = b->data()[0];
    }

    void fix_inner(inner* x) {
        if (x->parent == nullptr) {
            if (x->n == 1) { // the root keeps one child: that child is the root
                m_root = x->child[0];
                m_root->parent = nullptr;
                delete x;
            }
            return;
        }
        if (x->n >= min_inner)
            return;
        inner* p = x->parent;
        std::size_t j = sibling_pair(x);
        auto* a = static_cast<inner*>(p->child[j - 1]);
        auto* b = static_cast<inner*>(p->child[j]);
        if (a->n + b->n <= InnerCap) {
            // p's separator bounds b's first child on the left.
            for (std::size_t i = 0; i < b->n; ++i) {
                link(a, a->n + i, b->child[i]);
                a->cnt[a->n + i] = b->cnt[i];
                a->sep[a->n + i] = i == 0 ? std::move(p->sep[j]) : std::move(b->sep[i]);
            }
            a->n += b->n;
            p->cnt[j - 1] += p->cnt[j];
            drop_child(p, j);
            delete b;
            fix_inner(p);
            return;
        }
        while (a->n + 1 < b->n)
            rotate_left(p, j, a, b);
        while (b->n + 1 < a->n)
            rotate_right(p, j, a, b);
    }
    // b's first child moves to the end of a (b = p->child[j]).
    static void rotate_left(inner* p, std::size_t j, inner* a, inner* b) {
        std::size_t c = b->cnt[0];
        link(a, a->n, b->child[0]);
        a->cnt[a->n] = c;
        a->sep[a->n] = std::move(p->sep[j]);
        ++a->n;
        p->sep[j] = std::move(b->sep[1]);
        drop_child(b, 0);
        p->cnt[j - 1] += c;
        p->cnt[j] -= c;
    }
    // a's last child moves to the front of b.
    static void rotate_right(inner* p, std::size_t j, inner* a, inner* b) {
        std::size_t last = a->n - 1;
        std::size_t c = a->cnt[last];
        node* ch = a->child[last];
        T s = std::move(a->sep[last]);
        a->child[last] = nullptr;
        a->cnt[last] = 0;
        a->sep[last] = T{};
        --a->n;
        // b's old first child gets p's separator; ch's bound moves up to p.
        for (std::size_t i = b->n; i > 0; --i) {
            link(b, i, b->child[i - 1]);
            b->cnt[i] = b->cnt[i - 1];
            if (i > 1)
                b->sep[i] = std::move(b->sep[i - 1]);
        }
        b->sep[1] = std::move(p->sep[j]);
        link(b, 0, ch);
        b->cnt[0] = c;
        ++b->n;
        p->sep[j] = std::move(s);
        p->cnt[j - 1] -= c;
        p->cnt[j] += c;
    }

    /// Links l after last in the leaf chain (first if last is null); l becomes last.
    void append_leaf(leaf_node* l, leaf_node*& last) noexcept {
        l->prev = last;
        if (last != nullptr)
            last->next = l;
        else
            m_first = l;
        last = l;
    }

    node* clone(const node* x, inner* parent, leaf_node*& last) {
        // A copy that throws frees what this call made (and so, up the
        // recursion, the whole partial copy).
        if (x->leaf) {
            const auto* l = static_cast<const leaf_node*>(x);
            auto* c = make_leaf(l->cap);
            try {
                for (std::size_t i = 0; i < l->n; ++i)
                    c->data()[i] = l->data()[i];
            } catch (...) {
                free_leaf(c);
                throw;
            }
            c->n = l->n;
            c->parent = parent;
            append_leaf(c, last);
            return c;
        }
        const auto* in = static_cast<const inner*>(x);
        auto* c = new inner();
        c->parent = parent;
        try {
            for (std::size_t k = 0; k < in->n; ++k) {
                link(c, k, clone(in->child[k], c, last));
                c->n = k + 1;
                c->cnt[k] = in->cnt[k];
                if (k > 0)
                    c->sep[k] = in->sep[k];
            }
        } catch (...) {
            destroy(c);
            throw;
        }
        return c;
    }

    // Builds an empty tree from at(0), ..., at(n - 1), in order. On failure
    // it frees every inner node it made and leaves its leaves, chained from
    // m_first, each holding the l->n values it took (in order): the
    // destructor frees them, or a caller moves them back first.
    template <class At>
    void build_sorted(std::size_t n, At at_index) {
        if (n == 0)
            return;
        // Leaves as full as an even split allows: each at least half full.
        std::size_t leaves = (n + LeafCap - 1) / LeafCap;
        if (leaves == 1) { // one leaf of n slots (the root, which may grow)
            auto* l = make_leaf(n);
            append_leaf(l, m_last);
            m_root = l;
            for (; l->n < n; ++l->n)
                l->data()[l->n] = at_index(l->n);
            placed(l, 0, n);
            m_size = n;
            return;
        }
        std::vector<node*> level;
        level.reserve(leaves);
        std::size_t at = 0;
        for (std::size_t i = 0; i < leaves; ++i) {
            std::size_t take = n / leaves + (i < n % leaves ? 1 : 0);
            auto* l = make_leaf(LeafCap);
            append_leaf(l, m_last);
            for (; l->n < take; ++l->n)
                l->data()[l->n] = at_index(at++);
            placed(l, 0, take);
            level.push_back(l);
        }
        std::vector<inner*> made; // every inner node, freed (not their leaves) on failure
        try {
            while (level.size() > 1) {
                std::size_t groups = (level.size() + InnerCap - 1) / InnerCap;
                std::vector<node*> up;
                up.reserve(groups);
                made.reserve(made.size() + groups);
                std::size_t c = 0;
                for (std::size_t g = 0; g < groups; ++g) {
                    std::size_t take = level.size() / groups + (g < level.size() % groups ? 1 : 0);
                    auto* in = new inner();
                    made.push_back(in);
                    for (std::size_t j = 0; j < take; ++j) {
                        node* ch = level[c++];
                        link(in, j, ch);
                        in->cnt[j] = count_of(ch);
                        if (j > 0)
                            in->sep[j] = first_of(ch);
                    }
                    in->n = take;
                    up.push_back(in);
                }
                level = std::move(up);
            }
        } catch (...) {
            for (inner* in : made)
                delete in;
            throw;
        }
        m_root = level.front();
        m_size = n;
    }

    // Takes o's nodes (o is left empty), after freeing this tree's own.
    void take(counted_btree& o) noexcept {
        clear();
        m_root = std::exchange(o.m_root, nullptr);
        m_first = std::exchange(o.m_first, nullptr);
        m_last = std::exchange(o.m_last, nullptr);
        m_size = std::exchange(o.m_size, 0);
    }

    static void destroy(node* x) noexcept {
        if (x->leaf) {
            free_leaf(static_cast<leaf_node*>(x));
            return;
        }
        auto* in = static_cast<inner*>(x);
        for (std::size_t k = 0; k < in->n; ++k)
            destroy(in->child[k]);
        delete in;
    }

    // lo/hi: the separators bounding x (nullptr: unbounded).
    // Every separator is a value in the tree (Slot::same finds it there).
    bool check_separators_live(const node* x) const {
        if (x->leaf)
            return true;
        const auto* in = static_cast<const inner*>(x);
        for (std::size_t k = 0; k < in->n; ++k) {
            if (k > 0) {
                const_iterator it = lower_bound(in->sep[k]);
                if (it == end() || !Slot::same(*it, in->sep[k]))
                    return false;
            }
            if (!check_separators_live(in->child[k]))
                return false;
        }
        return true;
    }
    bool check_node(const node* x,
                    const T* lo,
                    const T* hi,
                    std::size_t depth,
                    std::size_t& leaf_depth,
                    const leaf_node*& prev,
                    std::size_t& total) const {
        if (x->leaf) {
            const auto* l = static_cast<const leaf_node*>(x);
            if (leaf_depth == static_cast<std::size_t>(-1))
                leaf_depth = depth;
            if (depth != leaf_depth)
                return false;
            if (l->n == 0 || l->off + l->n > l->cap || l->cap > LeafCap)
                return false;
            if (x != m_root && l->cap != LeafCap)
                return false;
            // Appends leave the last leaf (and its ancestors) as they come.
            if (x != m_root && hi != nullptr && l->n < min_leaf)
                return false;
            if (l->prev != prev)
                return false;
            if (prev != nullptr && prev->next != l)
                return false;
            if (prev == nullptr && m_first != l)
                return false;
            for (std::size_t i = 0; i < l->n; ++i) {
                if (lo != nullptr && m_less(l->data()[i], *lo))
                    return false;
                if (hi != nullptr && m_less(*hi, l->data()[i]))
                    return false;
            }
            prev = l;
            total += l->n;
            return true;
        }
        const auto* in = static_cast<const inner*>(x);
        if (in->n > InnerCap || in->n < 1)
            return false;
        if (x != m_root && hi != nullptr && in->n < min_inner)
            return false;
        for (std::size_t k = 0; k < in->n; ++k) {
            const node* c = in->child[k];
            if (c == nullptr || c->parent != in || c->slot != k)
                return false;
            if (k > 1 && m_less(in->sep[k], in->sep[k - 1]))
                return false;
            if (in->cnt[k] != count_of_deep(c))
                return false;
            const T* clo = k > 0 ? &in->sep[k] : lo;
            const T* chi = k + 1 < in->n ? &in->sep[k + 1] : hi;
            if (!check_node(c, clo, chi, depth + 1, leaf_depth, prev, total))
                return false;
        }
        return true;
    }
    static std::size_t count_of_deep(const node* x) {
        if (x->leaf)
            return x->n;
        const auto* in = static_cast<const inner*>(x);
        std::size_t s = 0;
        for (std::size_t k = 0; k < in->n; ++k)
            s += count_of_deep(in->child[k]);
        return s;
    }
};

} // namespace kvmodel::detail
