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
//
// Code. Every tree shares one non-template core (btree_core): allocation of
// nodes, splits, merges, even-outs, counts, copies and
// bulk loads work on untyped slots, told the element's size and how to move,
// copy and clear one by a btree_type (a table of functions, one per T and
// Slot). With KVMODEL_SEPARATE_COMPILATION the core is compiled once, in the
// library. The template counted_btree keeps what compares (the searches, the
// descent of an insert, the checks) and, typed, the few steps on every
// insert's and erase's path: navigation by position (nth, rank), an insert
// into a leaf with room, an erase that leaves its leaf at least half full,
// and the refresh of live separators. Splits, growth, merges and even-outs,
// a step in 16 or more, go to the core.
#pragma once

#include <kvmodel/config.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace kvmodel::detail {

/// How a leaf moves a value between its slots and clears a freed slot; a
/// specialisation may skip work for cheap alternatives (see containers.hpp).
///
/// plain: T is trivially copyable, Slot::move copies it and Slot::vacate
/// leaves zero bytes (a pointer, a reference of a few words): the tree moves
/// its slots as bytes (memmove), with no per-type code.
///
/// live_separators (plain trees only): every separator must be a value
/// still in the tree (T refers to something the owner frees once erased, so
/// a stale separator would dangle). Erasing then replaces each separator
/// among the erased values by a neighbour of theirs that stays; replace()
/// is unavailable. Two values name one referent when their words at byte
/// Slot::ref_at agree in the bits Slot::ref_mask.
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
/// Whether Slot's T moves as bytes (a Slot may leave plain out).
template <class Slot>
inline constexpr bool slot_plain = requires { requires Slot::plain; };

// ---------------------------------------------------------------- the core

struct btree_inner;

/// A node's header. An inner node's children, their counts and its
/// separators follow it in the same allocation (btree_type says where).
struct btree_node {
    btree_inner* parent = nullptr;
    std::size_t n = 0; // values in a leaf, children in an inner node
    bool leaf;
    std::uint32_t slot = 0; // parent's child slot holding this node (link())
    explicit btree_node(bool is_leaf) noexcept
        : leaf(is_leaf) {}
};

/// A leaf: its slots follow it in the same allocation (btree_type::slots_at):
/// leaf_cap of them, or fewer in a small tree's only leaf, which grows by
/// doubling (a map of three entries holds three references, not 32).
struct btree_leaf : btree_node {
    btree_leaf* prev = nullptr;
    btree_leaf* next = nullptr;
    std::size_t off = 0; // the values are slots [off, off + n): a trim frees the front
    std::size_t cap;     // slots
    explicit btree_leaf(std::size_t c) noexcept
        : btree_node(true)
        , cap(c) {}
};

struct btree_inner : btree_node {
    btree_inner() noexcept
        : btree_node(false) {}
};

/// T and Slot's operations, behind function pointers (btree_elem_ops
/// fills them; a plain T needs none).
struct btree_elem_fns {
    void (*construct)(void* p, std::size_t n);              // T() into raw p[0, n); all or nothing
    void (*destroy)(void* p, std::size_t n) noexcept;       // ~T() of p[0, n)
    void (*copy_construct)(void* to, const void* from);     // T(from) into raw to
    void (*move_construct)(void* to, void* from);           // T(move(from)) into raw to
    void (*move_up)(void* to, void* from, std::size_t n);   // Slot::move(to[i], from[i]), i ascending
    void (*move_down)(void* to, void* from, std::size_t n); // the same, i descending
    void (*vacate)(void* p, std::size_t n);                 // Slot::vacate of p[0, n)
    void (*assign)(void* to, const void* from);             // to = from
    void (*assign_move)(void* to, void* from);              // to = move(from)
    void (*reset)(void* p);                                 // p = T{}
};

/// What the core knows of a tree's elements and node shapes: sizes and
/// offsets, and how to make, move, copy and clear elements (btree_type_for
/// builds one). A plain T (Slot::plain: a pointer or a reference of a few
/// words) moves and copies as bytes and clears to zero bytes, so the core
/// memmoves and memsets its slots and no per-type code exists but the leaf
/// reports; a T of its own (value) goes through btree_elem_fns.
struct btree_type {
    std::size_t size;        // sizeof(T)
    std::size_t leaf_cap;    // LeafCap
    std::size_t inner_cap;   // InnerCap
    std::size_t slots_at;    // a leaf's slots, from its start
    std::size_t cnt_at;      // an inner node's counts (its children start at sizeof(btree_inner))
    std::size_t seps_at;     // an inner node's separators
    std::size_t inner_bytes; // an inner node's allocation
    bool live_separators;    // Slot::live_separators (then T is plain)
    bool nothrow_copy;       // copying T cannot throw
    bool plain;              // Slot::plain
    std::size_t ref_at;      // live separators: the word naming a value's referent (Slot::ref_at)
    std::uintptr_t ref_mask; // and its bits that do (Slot::ref_mask)
    btree_elem_fns fns;      // not plain: T's operations
    void (*placed)(void* p, std::size_t n, const void* leaf); // Slot::placed of p[0, n); null: no reports

    void construct(void* p, std::size_t n) const {
        if (plain) std::memset(p, 0, n * size);
        else fns.construct(p, n);
    }
    void destroy(void* p, std::size_t n) const noexcept {
        if (!plain) fns.destroy(p, n);
    }
    // One plain element: a copy of a pointer's or two pointers' size is a
    // store or two, not a call (the core's t is not a constant).
    void copy_one(void* to, const void* from) const noexcept {
        if (size == sizeof(void*)) std::memcpy(to, from, sizeof(void*));
        else if (size == 2 * sizeof(void*)) std::memcpy(to, from, 2 * sizeof(void*));
        else std::memcpy(to, from, size);
    }
    void copy_construct(void* to, const void* from) const {
        if (plain) copy_one(to, from);
        else fns.copy_construct(to, from);
    }
    void move_construct(void* to, void* from) const {
        if (plain) copy_one(to, from);
        else fns.move_construct(to, from);
    }
    void move_up(void* to, void* from, std::size_t n) const {
        if (plain) std::memmove(to, from, n * size);
        else fns.move_up(to, from, n);
    }
    void move_down(void* to, void* from, std::size_t n) const {
        if (plain) std::memmove(to, from, n * size);
        else fns.move_down(to, from, n);
    }
    void vacate(void* p, std::size_t n) const {
        if (plain) std::memset(p, 0, n * size);
        else fns.vacate(p, n);
    }
    void assign(void* to, const void* from) const {
        if (plain) copy_one(to, from);
        else fns.assign(to, from);
    }
    void assign_move(void* to, void* from) const {
        if (plain) copy_one(to, from);
        else fns.assign_move(to, from);
    }
    void reset(void* p) const {
        static constexpr unsigned char zero[2 * sizeof(void*)] = {};
        if (plain && size <= sizeof zero) copy_one(p, zero);
        else if (plain) std::memset(p, 0, size);
        else fns.reset(p);
    }
    /// Live separators: whether a and b name one referent.
    bool same(const void* a, const void* b) const noexcept {
        std::uintptr_t x;
        std::uintptr_t y;
        std::memcpy(&x, static_cast<const unsigned char*>(a) + ref_at, sizeof x);
        std::memcpy(&y, static_cast<const unsigned char*>(b) + ref_at, sizeof y);
        return ((x ^ y) & ref_mask) == 0;
    }
};

/// Room for one element the core copies aside (a separator about to go up,
/// or one an even-out will need): btree_type's types fit in it.
class btree_temp {
public:
    static constexpr std::size_t capacity = 64;
    btree_temp() = default;
    btree_temp(const btree_temp&) = delete;
    btree_temp& operator=(const btree_temp&) = delete;
    ~btree_temp() { clear(); }
    bool has() const noexcept { return m_type != nullptr; }
    void* get() noexcept { return m_buf; }
    void copy_from(const btree_type& t, const void* from) {
        t.copy_construct(m_buf, from);
        m_type = &t;
    }
    void move_from(const btree_type& t, void* from) {
        t.move_construct(m_buf, from);
        m_type = &t;
    }
    void clear() noexcept {
        if (m_type != nullptr)
            m_type->destroy(m_buf, 1);
        m_type = nullptr;
    }

private:
    alignas(std::max_align_t) unsigned char m_buf[capacity];
    const btree_type* m_type = nullptr;
};

/// A leaf and a slot in its values.
struct btree_at {
    btree_leaf* leaf;
    std::size_t slot;
};

/// The structure of a counted B+tree, with untyped elements (see the top of
/// the file; counted_btree holds one and passes its btree_type to each call).
class btree_core {
public:
    btree_node* root = nullptr;
    btree_leaf* first = nullptr;
    btree_leaf* last = nullptr;
    std::size_t size = 0;

    // Where things sit in a node.
    static btree_node** children(const btree_inner* in) noexcept {
        return reinterpret_cast<btree_node**>(
            const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(in)) + sizeof(btree_inner));
    }
    static std::size_t* counts(const btree_inner* in, const btree_type& t) noexcept {
        return reinterpret_cast<std::size_t*>(
            const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(in)) + t.cnt_at);
    }
    static void* sep(const btree_inner* in, const btree_type& t, std::size_t k) noexcept {
        return const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(in)) + t.seps_at +
               k * t.size;
    }
    static void* slot(const btree_leaf* l, const btree_type& t, std::size_t i) noexcept {
        return const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(l)) + t.slots_at +
               i * t.size;
    }
    /// The i-th value of l.
    static void* at(const btree_leaf* l, const btree_type& t, std::size_t i) noexcept {
        return slot(l, t, l->off + i);
    }

    static btree_leaf* make_leaf(const btree_type& t, std::size_t cap);
    static void free_leaf(const btree_type& t, btree_leaf* l) noexcept;

    /// Frees every node.
    void clear(const btree_type& t) noexcept;
    /// Takes o's nodes (o is left empty), after freeing this tree's own.
    void take(const btree_type& t, btree_core& o) noexcept;
    /// Copies o into this empty tree; on failure frees the partial copy.
    void copy_from(const btree_type& t, const btree_core& o);

    /// Adds d to the counts on the path from leaf l to the root.
    static void add_counts(const btree_type& t, const btree_leaf* l, std::ptrdiff_t d) noexcept;

    /// The first value of an empty tree, moved from *v (Slot::move).
    btree_at first_value(const btree_type& t, void* v);
    /// Moves *v into slot `slot` of l (counted: the path's counts already
    /// include it). All or nothing.
    btree_at insert_at(const btree_type& t, btree_leaf* l, std::size_t i, void* v, bool counted);
    /// The separator bounding x's subtree on the left (right); nullptr when
    /// x is on the tree's leftmost (rightmost) path.
    static void* left_sep(const btree_type& t, btree_node* x) noexcept;
    static void* right_sep(const btree_type& t, btree_node* x) noexcept;

    /// Erases values [slot, slot + m) of l, merging or evening out l when
    /// it underflows. With live separators the caller has taken them off
    /// the path's counts and separators (counted_btree::unlink_values).
    void erase_in_leaf(const btree_type& t, btree_leaf* l, std::size_t i, std::size_t m);

    /// Live separators, before values [slot, slot + m) leave l: they come
    /// off the path's counts, and a separator that is one of them (names
    /// its referent; each separator is a value in the tree, so it bounds the
    /// child holding that value: on l's path, one of the two around the
    /// path's child) becomes the value before the erased run, else the one
    /// after it; either still bounds both children. One walk up,
    /// O(height * (InnerCap + m)).
    KVMODEL_ALWAYS_INLINE static void
    unlink_values(const btree_type& t, const btree_leaf* l, std::size_t i, std::size_t m) noexcept;
    /// Live separators: value i of l becomes *v, naming the same referent;
    /// the separators holding it follow. O(height).
    static void update(const btree_type& t, btree_leaf* l, std::size_t i, const void* v) noexcept;

    /// A plain tree's insert of *v at slot i of l and erase of values
    /// [i, i + m) of l: in a leaf with room, or one that keeps at least half
    /// its values (the root: one), here, as bytes; else insert_at and
    /// erase_in_leaf. Both are forced inline where optimised: t is then a
    /// constant and the moves are copies of known element size.
    KVMODEL_ALWAYS_INLINE btree_at
    insert_plain(const btree_type& t, btree_leaf* l, std::size_t i, void* v, bool counted);
    KVMODEL_ALWAYS_INLINE void erase_plain(const btree_type& t, btree_leaf* l, std::size_t i, std::size_t m);


    /// Replaces the contents by n values already in order: put(src, slot, k)
    /// assigns the k-th to a slot; with put null, src is an array of n T
    /// moved from (and moved back on failure). O(n). On failure (out of
    /// memory, a throwing copy) the tree is unchanged.
    void assign_sorted(const btree_type& t,
                       std::size_t n,
                       void* src,
                       void (*put)(void* src, void* slot, std::size_t k));

    std::size_t leaf_count() const noexcept;
    static std::size_t count_of(const btree_type& t, const btree_node* x) noexcept;

private:
    class spare_inners;
    // A plain tree's n slots from `from` to `to` (in one leaf), or cleared:
    // where t is a constant, a loop of fixed-size copies, no call (a leaf
    // shift moves a few slots).
    static void move_bytes(const btree_type& t, unsigned char* to, unsigned char* from, std::size_t n) noexcept {
        if (to < from) {
            for (std::size_t k = 0; k < n; ++k)
                std::memcpy(to + k * t.size, from + k * t.size, t.size);
        } else {
            for (std::size_t k = n; k-- > 0;)
                std::memcpy(to + k * t.size, from + k * t.size, t.size);
        }
    }
    static void clear_bytes(const btree_type& t, unsigned char* d, std::size_t n) noexcept {
        for (std::size_t k = 0; k < n; ++k)
            std::memset(d + k * t.size, 0, t.size);
    }
    // Links l after the last leaf: the leaves of a bulk load, in order.
    void append_leaf(btree_leaf* l) noexcept;
    // Builds an empty tree from n values (assign_sorted's src and put). On
    // failure it leaves its leaves, chained from the first, each holding the
    // l->n values it took (in order), and no inner node.
    void build_sorted(const btree_type& t, std::size_t n, void* src, void (*put)(void*, void*, std::size_t));
    // Builds the inner nodes over the chained leaves (n values in all, none
    // of them reported placed yet). On failure it frees the inner nodes it
    // made and leaves the leaves chained, root null.
    void build_over_leaves(const btree_type& t, std::size_t n);
    static btree_inner* make_inner(const btree_type& t);
    static void free_inner(const btree_type& t, btree_inner* in) noexcept;
    static void destroy(const btree_type& t, btree_node* x) noexcept;
    btree_node* clone(const btree_type& t, const btree_node* x, btree_inner* parent);
    static void link(const btree_type&, btree_inner* p, std::size_t j, btree_node* c) noexcept {
        children(p)[j] = c;
        c->parent = p;
        c->slot = static_cast<std::uint32_t>(j);
    }
    static std::size_t sibling_pair(const btree_node* x) noexcept {
        std::size_t k = x->slot;
        return k + 1 < x->parent->n ? k + 1 : k;
    }
    static void placed(const btree_type& t, btree_leaf* l, std::size_t from, std::size_t to) noexcept {
        if (t.placed != nullptr && from < to)
            t.placed(at(l, t, from), to - from, l);
    }
    static void compact(const btree_type& t, btree_leaf* l);
    btree_leaf* grow_root_leaf(const btree_type& t, btree_leaf* l);
    void add_child_after(const btree_type& t,
                         btree_node* x,
                         btree_node* r,
                         void* s,
                         bool append,
                         spare_inners& spares) noexcept;
    static void place_child(const btree_type& t, btree_inner* p, std::size_t at, btree_node* c,
                            std::size_t cnt, void* s) noexcept;
    static void drop_child(const btree_type& t, btree_inner* p, std::size_t at) noexcept;
    void unlink_leaf(const btree_type& t, btree_leaf* l) noexcept;
    void even_out_separator(const btree_type& t,
                            const btree_leaf* l,
                            std::size_t slot,
                            std::size_t m,
                            btree_temp& out) const;
    void fix_leaf(const btree_type& t, btree_leaf* l, btree_temp& sep);
    void fix_inner(const btree_type& t, btree_inner* x);
    static void rotate_left(const btree_type& t, btree_inner* p, std::size_t j, btree_inner* a,
                            btree_inner* b);
    static void rotate_right(const btree_type& t, btree_inner* p, std::size_t j, btree_inner* a,
                             btree_inner* b);
};

/// T and Slot's operations for btree_type, when T is not plain.
template <class T, class Slot>
struct btree_elem_ops {
    static T* typed(void* p) noexcept { return std::launder(static_cast<T*>(p)); }
    static const T* typed(const void* p) noexcept { return std::launder(static_cast<const T*>(p)); }
    static void construct(void* p, std::size_t n) {
        auto* raw = static_cast<T*>(p);
        std::size_t made = 0;
        try {
            for (; made < n; ++made)
                ::new (static_cast<void*>(raw + made)) T();
        } catch (...) {
            destroy(p, made);
            throw;
        }
    }
    static void destroy(void* p, std::size_t n) noexcept {
        T* a = typed(p); // (a loop, not std::destroy_n: three functions fewer at -O0)
        for (std::size_t i = 0; i < n; ++i)
            a[i].~T();
    }
    static void copy_construct(void* to, const void* from) { ::new (to) T(*typed(from)); }
    static void move_construct(void* to, void* from) { ::new (to) T(std::move(*typed(from))); }
    static void move_up(void* to, void* from, std::size_t n) {
        T* a = typed(to);
        T* b = typed(from);
        for (std::size_t i = 0; i < n; ++i)
            Slot::move(a[i], b[i]);
    }
    static void move_down(void* to, void* from, std::size_t n) {
        T* a = typed(to);
        T* b = typed(from);
        for (std::size_t i = n; i-- > 0;)
            Slot::move(a[i], b[i]);
    }
    static void vacate(void* p, std::size_t n) {
        T* a = typed(p);
        for (std::size_t i = 0; i < n; ++i)
            Slot::vacate(a[i]);
    }
    static void assign(void* to, const void* from) { *typed(to) = *typed(from); }
    static void assign_move(void* to, void* from) { *typed(to) = std::move(*typed(from)); }
    static void reset(void* p) { *typed(p) = T{}; }
    static constexpr btree_elem_fns fns{&construct, &destroy,  &copy_construct, &move_construct, &move_up,
                                        &move_down, &vacate,   &assign,         &assign_move,    &reset};
};

/// Slot::placed of p[0, n), for btree_type::placed.
template <class T, class Slot>
void btree_placed(void* p, std::size_t n, const void* leaf) {
    T* a = std::launder(static_cast<T*>(p));
    for (std::size_t i = 0; i < n; ++i)
        Slot::placed(a[i], leaf);
}

inline constexpr std::size_t btree_round_up(std::size_t n, std::size_t a) noexcept {
    return (n + a - 1) / a * a;
}

template <class T, class Slot, std::size_t LeafCap, std::size_t InnerCap>
inline constexpr btree_type btree_type_for = [] {
    constexpr std::size_t cnt_at = sizeof(btree_inner) + InnerCap * sizeof(btree_node*);
    constexpr std::size_t seps_at = btree_round_up(cnt_at + InnerCap * sizeof(std::size_t), alignof(T));
    btree_type t{sizeof(T),
                 LeafCap,
                 InnerCap,
                 btree_round_up(sizeof(btree_leaf), alignof(T)),
                 cnt_at,
                 seps_at,
                 seps_at + InnerCap * sizeof(T),
                 Slot::live_separators,
                 std::is_nothrow_copy_assignable_v<T>,
                 slot_plain<Slot>,
                 0,
                 0,
                 {},
                 nullptr};
    if constexpr (slot_plain<Slot>) {
        if constexpr (Slot::live_separators) {
            t.ref_at = Slot::ref_at;
            t.ref_mask = Slot::ref_mask;
        }
    } else {
        t.fns = btree_elem_ops<T, Slot>::fns;
    }
    if constexpr (slot_tracks_leaf<Slot>)
        t.placed = &btree_placed<T, Slot>;
    return t;
}();

// ---------------------------------------------------------------- the tree

/// Which bound counted_btree::bound finds: the first element not below the
/// key (lower) or above it (upper).
enum class btree_bound : bool { lower, upper };

template <class T,
          class Less,
          std::size_t LeafCap = 32,
          std::size_t InnerCap = 32,
          class Slot = btree_slot<T>>
class counted_btree {
    static_assert(LeafCap >= 2, "a leaf must hold two values to split");
    static_assert(InnerCap >= 3, "an inner node must hold three children to split");
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "slots follow the leaf");
    static_assert(sizeof(T) <= btree_temp::capacity && alignof(T) <= alignof(std::max_align_t),
                  "the core copies a value aside in a btree_temp");
    static_assert(!Slot::live_separators || slot_plain<Slot>, "the core refreshes live separators as bytes");
    static_assert(!slot_plain<Slot> || std::is_trivially_copyable_v<T>, "a plain T moves as bytes");

    using core = btree_core;
    using node = btree_node;
    using leaf_node = btree_leaf;
    using inner = btree_inner;
    static constexpr const btree_type& type = btree_type_for<T, Slot, LeafCap, InnerCap>;
    static constexpr std::size_t slots_at = btree_round_up(sizeof(btree_leaf), alignof(T));
    static constexpr std::size_t cnt_at = sizeof(btree_inner) + InnerCap * sizeof(btree_node*);
    static constexpr std::size_t seps_at =
        btree_round_up(cnt_at + InnerCap * sizeof(std::size_t), alignof(T));

    static T* data(leaf_node* l) noexcept {
        return std::launder(reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(l) + slots_at)) + l->off;
    }
    static const T* data(const leaf_node* l) noexcept {
        return std::launder(reinterpret_cast<const T*>(reinterpret_cast<const unsigned char*>(l) + slots_at)) +
               l->off;
    }
    static node* const* children(const inner* in) noexcept {
        return reinterpret_cast<node* const*>(reinterpret_cast<const unsigned char*>(in) + sizeof(inner));
    }
    static std::size_t* counts(inner* in) noexcept {
        return reinterpret_cast<std::size_t*>(reinterpret_cast<unsigned char*>(in) + cnt_at);
    }
    static const std::size_t* counts(const inner* in) noexcept {
        return reinterpret_cast<const std::size_t*>(reinterpret_cast<const unsigned char*>(in) + cnt_at);
    }
    static T* seps(inner* in) noexcept {
        return std::launder(reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(in) + seps_at));
    }
    static const T* seps(const inner* in) noexcept {
        return std::launder(reinterpret_cast<const T*>(reinterpret_cast<const unsigned char*>(in) + seps_at));
    }

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
        reference operator*() const { return data(m_leaf)[m_slot]; }
        pointer operator->() const { return &data(m_leaf)[m_slot]; }
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
        const_iterator(btree_at a)
            : m_leaf(a.leaf)
            , m_slot(a.slot) {}
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
        m_core.copy_from(type, o.m_core);
    }
    counted_btree(counted_btree&& o) noexcept { m_core.take(type, o.m_core); }
    counted_btree& operator=(const counted_btree&) = delete;
    counted_btree& operator=(counted_btree&&) = delete;
    ~counted_btree() { clear(); }

    /// Builds the tree from values already in order, leaves filled. O(n).
    explicit counted_btree(std::vector<T>&& sorted) { assign_sorted(std::move(sorted)); }

    std::size_t size() const noexcept { return m_core.size; }
    bool empty() const noexcept { return m_core.size == 0; }
    const_iterator begin() const noexcept { return {m_core.first, 0}; }
    const_iterator end() const noexcept {
        return {m_core.last, m_core.last != nullptr ? m_core.last->n : 0};
    }

    void clear() noexcept { m_core.clear(type); }

    /// The last element (the tree is not empty): std::prev(end()). O(1).
    const_iterator last() const noexcept { return {m_core.last, m_core.last->n - 1}; }

    /// The element at position i (i == size() gives end()). O(log n).
    const_iterator nth(std::size_t i) const {
        if (i >= m_core.size)
            return end();
        // Typed (constant offsets): the core's nth cost a third more.
        const node* x = m_core.root;
        while (!x->leaf) {
            const auto* in = static_cast<const inner*>(x);
            const std::size_t* c = counts(in);
            std::size_t k = 0;
            while (i >= c[k])
                i -= c[k++];
            x = children(in)[k];
        }
        return {static_cast<const leaf_node*>(x), i};
    }

    /// The position of it (size() for end()). O(log n).
    std::size_t rank(const_iterator it) const {
        if (it.m_leaf == nullptr)
            return 0;
        std::size_t r = it.m_slot;
        const node* x = it.m_leaf;
        for (const inner* p = x->parent; p != nullptr; x = p, p = p->parent) {
            const std::size_t* c = counts(p);
            for (std::size_t k = 0; k < x->slot; ++k)
                r += c[k];
        }
        return r;
    }

    /// The first element not below key (B lower) or above it (B upper), and
    /// (Ranked) its rank. O(log n). The list and the map call it rather than
    /// lower_bound_pos and the like, whose every instantiation is one more
    /// function in a header-only file at -O0. (The descent keeps its helper
    /// functions: written inside one function it was 85 functions fewer at
    /// -O0 but up to 15% slower in list_bench's rank-range searches.)
    template <btree_bound B, bool Ranked = true, class K>
    position bound(const K& key) const {
        if constexpr (B == btree_bound::upper)
            return descend<Ranked>(not_above<K>{m_less, key});
        else
            return descend<Ranked>(below<K>{m_less, key});
    }

    /// The first element not below key, and its rank. O(log n).
    template <class K>
    position lower_bound_pos(const K& key) const {
        return bound<btree_bound::lower>(key);
    }
    /// The first element above key, and its rank. O(log n).
    template <class K>
    position upper_bound_pos(const K& key) const {
        return bound<btree_bound::upper>(key);
    }
    template <class K>
    const_iterator lower_bound(const K& key) const {
        return bound<btree_bound::lower, false>(key).it;
    }
    template <class K>
    const_iterator upper_bound(const K& key) const {
        return bound<btree_bound::upper, false>(key).it;
    }

    /// With leaf reports (Slot::tracks_leaf): the element that is_it accepts
    /// among those of `leaf`, the leaf Slot::placed last reported for it
    /// (end() if none is). O(LeafCap), no comparison.
    template <class Is>
    const_iterator iterator_in(const void* leaf, Is is_it) const {
        static_assert(slot_tracks_leaf<Slot>, "only a tree reporting leaves knows them");
        const auto* l = static_cast<const leaf_node*>(leaf);
        const T* d = data(l);
        for (std::size_t i = 0; i < l->n; ++i)
            if (is_it(d[i]))
                return {l, i};
        return end();
    }

    /// Inserts v after the elements equal to it; returns where it went and
    /// its rank. O(log n).
    position insert(const T& v) { return insert(T(v)); }
    position insert(T&& v) {
        if (m_core.root == nullptr)
            return {m_core.first_value(type, &v), 0};
        std::size_t r = 0;
        node* x = m_core.root;
        while (!x->leaf) {
            auto* in = static_cast<inner*>(x);
            // Separators s[1..n): go right of every one not above v (a
            // linear scan: fewer instructions than a binary search here).
            const T* s = seps(in);
            std::size_t* c = counts(in);
            std::size_t k = 0;
            while (k + 1 < in->n && !m_less(v, s[k + 1]))
                r += c[k++];
            ++c[k]; // v goes below child k: counted on the way down
            x = children(in)[k];
        }
        auto* l = static_cast<leaf_node*>(x);
        std::size_t slot = leaf_search(data(l), l->n, not_above<T>{m_less, v});
        // Separators on the way down already bound v: no separator changes.
        try {
            return {insert_in(l, slot, std::move(v), true), r + slot};
        } catch (...) {
            core::add_counts(type, l, -1); // insert_at changed nothing else
            throw;
        }
    }

    /// Inserts v just before pos. The caller has checked that v sits between
    /// the elements around pos in order. O(log n).
    const_iterator insert(const_iterator pos, const T& v) { return insert(pos, T(v)); }
    const_iterator insert(const_iterator pos, T&& v) {
        if (m_core.root == nullptr)
            return m_core.first_value(type, &v);
        auto* l = const_cast<leaf_node*>(pos.m_leaf);
        // At a leaf's front v may lie below the bound on the leaf's left. The
        // bound is lowered to v once v is in (with live separators it must
        // never name a value that is not), from a copy made before anything
        // changed, so nothing can throw between the two. A split keeps v
        // first in its leaf; it may move the bound, not change it.
        T* s = pos.m_slot == 0 ? left_sep(l) : nullptr;
        if (s == nullptr || !m_less(v, *s))
            return insert_in(l, pos.m_slot, std::move(v), false);
        T bound = v;
        btree_at it = insert_in(l, 0, std::move(v), false);
        *left_sep(it.leaf) = std::move(bound);
        return it;
    }

    /// Replaces the element at pos by v, which the caller has checked keeps
    /// the order. O(log n) at a leaf's edge, else O(1).
    /// (Not with live separators: the replaced value may be a separator.)
    // Member templates, constrained on S = Slot, not plain members constrained
    // on Slot: clang 14 instantiates a class's unsatisfied constrained members
    // under explicit instantiation (containers.hpp's KVMODEL_INSTANTIATE) and
    // failed to compile the library TU; member templates are not instantiated.
    template <class S = Slot>
    void replace(const_iterator pos, const T& v)
        requires(!S::live_separators)
    {
        replace(pos, T(v));
    }
    template <class S = Slot>
    void replace(const_iterator pos, T&& v)
        requires(!S::live_separators)
    {
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
        data(l)[pos.m_slot] = std::move(v);
    }

    /// With live separators: the element at pos becomes v, naming the same
    /// referent, summarised anew, which the caller has checked keeps the
    /// order; the separators holding it follow. O(height).
    void update(const_iterator pos, const T& v)
        requires(Slot::live_separators) // replace() serves the other trees
    {
        core::update(type, const_cast<leaf_node*>(pos.m_leaf), pos.m_slot, &v);
    }
    /// Whether v may stand at pos (between the elements around it) in order.
    bool fits_at(const_iterator pos, const T& v) const {
        // (Steps on copies, not std::prev/next: their chains were more
        // functions per tree in a header-only file.)
        const_iterator around = pos;
        if (pos != begin() && !m_less(*--around, v))
            return false;
        around = pos;
        ++around;
        return around == end() || m_less(v, *around);
    }

    /// Erases the element at pos. O(log n); the first element O(LeafCap) amortised.
    void erase(const_iterator pos) {
        erase_in(const_cast<leaf_node*>(pos.m_leaf), pos.m_slot, 1);
    }

    /// Erases the elements of positions [first, last). O(log n + k).
    void erase_ranks(std::size_t first, std::size_t last) {
        while (first < last) {
            const_iterator it = nth(first);
            auto* l = const_cast<leaf_node*>(it.m_leaf);
            std::size_t m = std::min(last - first, l->n - it.m_slot);
            erase_in(l, it.m_slot, m);
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
        m_core.assign_sorted(type, sorted.size(), sorted.data(), nullptr);
    }
    /// Replaces the contents by the n values at(0), ..., at(n - 1), already
    /// in order. O(n). On failure the tree is unchanged.
    template <class At>
    void assign_sorted(std::size_t n, At at_index) {
        m_core.assign_sorted(type, n, &at_index, [](void* at, void* slot, std::size_t k) {
            *std::launder(static_cast<T*>(slot)) = (*static_cast<At*>(at))(k);
        });
    }

    /// Moves every value out, in order, and empties the tree. O(n).
    std::vector<T> release_sorted() {
        std::vector<T> out;
        out.reserve(m_core.size);
        for (leaf_node* l = m_core.first; l != nullptr; l = l->next)
            for (std::size_t i = 0; i < l->n; ++i)
                out.push_back(std::move(data(l)[i]));
        clear();
        return out;
    }

    /// The number of leaves. For tests. O(n / LeafCap).
    std::size_t leaf_count() const noexcept { return m_core.leaf_count(); }

    /// Checks every structural invariant; false on the first broken one.
    /// For tests. O(n).
    bool check() const {
        const node* root = m_core.root;
        if (root == nullptr)
            return m_core.size == 0 && m_core.first == nullptr && m_core.last == nullptr;
        if (root->parent != nullptr)
            return false;
        if (!root->leaf && root->n < 2)
            return false;
        const leaf_node* prev = nullptr;
        std::size_t depth = 0;
        std::size_t leaf_depth = static_cast<std::size_t>(-1);
        std::size_t total = 0;
        if (!check_node(root, nullptr, nullptr, depth, leaf_depth, prev, total))
            return false;
        if (prev != m_core.last || prev->next != nullptr || m_core.first->prev != nullptr)
            return false;
        if (total != m_core.size)
            return false;
        if constexpr (Slot::live_separators)
            if (!check_separators_live(root))
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
    core m_core;
    [[no_unique_address]] Less m_less{};

    T* left_sep(leaf_node* l) noexcept { return static_cast<T*>(core::left_sep(type, l)); }
    T* right_sep(leaf_node* l) noexcept { return static_cast<T*>(core::right_sep(type, l)); }

    // Moves v into slot `slot` of l (counted: the path's counts already
    // include it). In a plain tree, the core's insert_plain; else a leaf with
    // room takes it here, typed (the usual insert), and a full one grows or
    // splits in the core.
    btree_at insert_in(leaf_node* l, std::size_t slot, T&& v, bool counted) {
        if constexpr (slot_plain<Slot>) {
            return m_core.insert_plain(type, l, slot, &v, counted);
        } else {
            if (l->n == l->cap)
                return m_core.insert_at(type, l, slot, &v, counted);
            ++m_core.size;
            if (!counted)
                core::add_counts(type, l, 1);
            // Shift the shorter side when both have room.
            if (l->off > 0 && (slot < l->n - slot || l->off + l->n == l->cap)) {
                --l->off;
                T* d = data(l);
                for (std::size_t i = 0; i < slot; ++i)
                    Slot::move(d[i], d[i + 1]);
            } else {
                T* d = data(l);
                for (std::size_t i = l->n; i > slot; --i)
                    Slot::move(d[i], d[i - 1]);
            }
            T& at = data(l)[slot];
            Slot::move(at, v);
            ++l->n;
            if constexpr (slot_tracks_leaf<Slot>)
                Slot::placed(at, l);
            return {l, slot};
        }
    }

    // Erases values [slot, slot + m) of l. In a plain tree, the core's
    // erase_plain; else here, typed, when l keeps at least half its values (or
    // is the root and keeps one), and in the core, which merges or evens l
    // out, when it does not.
    void erase_in(leaf_node* l, std::size_t slot, std::size_t m) {
        if constexpr (slot_plain<Slot>) {
            m_core.erase_plain(type, l, slot, m);
        } else {
            constexpr std::size_t min_leaf = LeafCap / 2 > 0 ? LeafCap / 2 : 1;
            const bool keeps = l->parent == nullptr ? l->n > m : l->n - m >= min_leaf;
            if (!keeps) {
                m_core.erase_in_leaf(type, l, slot, m);
                return;
            }
            T* d = data(l);
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
            m_core.size -= m;
            core::add_counts(type, l, -static_cast<std::ptrdiff_t>(m));
        }
    }

    // A search's test of a separator or a value v: the search goes past v.
    // One type per key type and direction, shared by the ranked and unranked
    // searches (the fewer instantiations of the descent, the cheaper a file).
    template <class K>
    struct below {
        const Less& less;
        const K& key;
        bool operator()(const T& v) const { return less(v, key); }
    };
    template <class K>
    struct not_above {
        const Less& less;
        const K& key;
        bool operator()(const T& v) const { return !less(key, v); }
    };

    // The child a search goes down: past every separator `past` accepts
    // (they are sorted, so a binary search over s[1..n)).
    template <class Past>
    static std::size_t child_for(const inner* in, const Past& past) {
        const T* s = seps(in);
        std::size_t lo = 1;
        std::size_t hi = in->n;
        while (lo < hi) {
            std::size_t mid = (lo + hi) / 2;
            if (past(s[mid]))
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
    static std::size_t leaf_search(const T* d, std::size_t n, const Past& past) {
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

    // past(v): the search goes past separator or value v (the separators
    // bound the values, so one test serves both). Ranked: count the rank on
    // the way down (lower_bound and upper_bound need only the iterator).
    template <bool Ranked = true, class Past>
    position descend(const Past& past) const {
        if (m_core.root == nullptr)
            return {end(), 0};
        std::size_t r = 0;
        const node* x = m_core.root;
        while (!x->leaf) {
            const auto* in = static_cast<const inner*>(x);
            std::size_t k = child_for(in, past);
            if constexpr (Ranked) {
                const std::size_t* c = counts(in);
                for (std::size_t j = 0; j < k; ++j)
                    r += c[j];
            }
            x = children(in)[k];
        }
        const auto* l = static_cast<const leaf_node*>(x);
        std::size_t lo = leaf_search(data(l), l->n, past);
        r += lo;
        // Past the leaf's last value: the answer is the next leaf's first
        // (the separators guarantee it qualifies), or end().
        if (lo == l->n && l->next != nullptr)
            return {{l->next, 0}, r};
        return {{l, lo}, r};
    }

    // Every separator is a value in the tree (names a referent found there).
    // (A member template for clang 14: see replace.)
    template <class S = Slot>
    bool check_separators_live(const node* x) const
        requires(S::live_separators)
    {
        if (x->leaf)
            return true;
        const auto* in = static_cast<const inner*>(x);
        for (std::size_t k = 0; k < in->n; ++k) {
            if (k > 0) {
                const_iterator it = bound<btree_bound::lower, false>(seps(in)[k]).it;
                if (it == end() || !type.same(&*it, &seps(in)[k]))
                    return false;
            }
            if (!check_separators_live(children(in)[k]))
                return false;
        }
        return true;
    }
    // lo/hi: the separators bounding x (nullptr: unbounded).
    bool check_node(const node* x,
                    const T* lo,
                    const T* hi,
                    std::size_t depth,
                    std::size_t& leaf_depth,
                    const leaf_node*& prev,
                    std::size_t& total) const {
        constexpr std::size_t min_leaf = LeafCap / 2 > 0 ? LeafCap / 2 : 1;
        constexpr std::size_t min_inner = (InnerCap + 1) / 2;
        if (x->leaf) {
            const auto* l = static_cast<const leaf_node*>(x);
            if (leaf_depth == static_cast<std::size_t>(-1))
                leaf_depth = depth;
            if (depth != leaf_depth)
                return false;
            if (l->n == 0 || l->off + l->n > l->cap || l->cap > LeafCap)
                return false;
            if (x != m_core.root && l->cap != LeafCap)
                return false;
            // Appends leave the last leaf (and its ancestors) as they come.
            if (x != m_core.root && hi != nullptr && l->n < min_leaf)
                return false;
            if (l->prev != prev)
                return false;
            if (prev != nullptr && prev->next != l)
                return false;
            if (prev == nullptr && m_core.first != l)
                return false;
            for (std::size_t i = 0; i < l->n; ++i) {
                if (lo != nullptr && m_less(data(l)[i], *lo))
                    return false;
                if (hi != nullptr && m_less(*hi, data(l)[i]))
                    return false;
            }
            prev = l;
            total += l->n;
            return true;
        }
        const auto* in = static_cast<const inner*>(x);
        if (in->n > InnerCap || in->n < 1)
            return false;
        if (x != m_core.root && hi != nullptr && in->n < min_inner)
            return false;
        const T* s = seps(in);
        for (std::size_t k = 0; k < in->n; ++k) {
            const node* c = children(in)[k];
            if (c == nullptr || c->parent != in || c->slot != k)
                return false;
            if (k > 1 && m_less(s[k], s[k - 1]))
                return false;
            if (counts(in)[k] != count_of_deep(c))
                return false;
            const T* clo = k > 0 ? &s[k] : lo;
            const T* chi = k + 1 < in->n ? &s[k + 1] : hi;
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
            s += count_of_deep(children(in)[k]);
        return s;
    }
};

// ---------------------------------------------------------------- the core's code

// The paths every insert and erase of a plain tree takes (not in the
// library: inline in every mode, so optimised callers fold t).
inline btree_at btree_core::insert_plain(const btree_type& t, btree_leaf* l, std::size_t i, void* v, bool counted) {
    if (l->n == l->cap)
        return insert_at(t, l, i, v, counted);
    ++size;
    if (!counted)
        add_counts(t, l, 1);
    auto* d = static_cast<unsigned char*>(at(l, t, 0));
    // Shift the shorter side when both have room.
    if (l->off > 0 && (i < l->n - i || l->off + l->n == l->cap)) {
        --l->off;
        d -= t.size;
        move_bytes(t, d, d + t.size, i);
    } else {
        move_bytes(t, d + (i + 1) * t.size, d + i * t.size, l->n - i);
    }
    std::memcpy(d + i * t.size, v, t.size);
    ++l->n;
    if (t.placed != nullptr)
        t.placed(d + i * t.size, 1, l);
    return {l, i};
}

inline void btree_core::erase_plain(const btree_type& t, btree_leaf* l, std::size_t i, std::size_t m) {
    if (t.live_separators)
        unlink_values(t, l, i, m);
    const std::size_t min_leaf = t.leaf_cap / 2 > 0 ? t.leaf_cap / 2 : 1;
    const bool keeps = l->parent == nullptr ? l->n > m : l->n - m >= min_leaf;
    if (!keeps) {
        erase_in_leaf(t, l, i, m);
        return;
    }
    auto* d = static_cast<unsigned char*>(at(l, t, 0));
    if (i < l->n - i - m) {
        // Fewer values before the gap: they move right, the front frees.
        move_bytes(t, d + m * t.size, d, i);
        clear_bytes(t, d, m);
        l->off += m;
    } else {
        move_bytes(t, d + i * t.size, d + (i + m) * t.size, l->n - m - i);
        clear_bytes(t, d + (l->n - m) * t.size, m);
    }
    l->n -= m;
    size -= m;
    if (!t.live_separators)
        add_counts(t, l, -static_cast<std::ptrdiff_t>(m));
}

inline void btree_core::unlink_values(const btree_type& t,
                                            const btree_leaf* l,
                                            std::size_t slot_at,
                                            std::size_t m) noexcept {
    const void* keep = nullptr;
    if (slot_at > 0)
        keep = at(l, t, slot_at - 1);
    else if (l->prev != nullptr)
        keep = at(l->prev, t, l->prev->n - 1);
    else if (slot_at + m < l->n)
        keep = at(l, t, slot_at + m);
    else if (l->next != nullptr)
        keep = at(l->next, t, 0);
    auto refresh = [&](void* s) {
        for (std::size_t i = slot_at; i < slot_at + m; ++i)
            if (t.same(s, at(l, t, i))) {
                std::memcpy(s, keep, t.size);
                return;
            }
    };
    const btree_node* x = l;
    for (btree_inner* p = l->parent; p != nullptr; x = p, p = p->parent) {
        std::size_t j = x->slot;
        counts(p, t)[j] -= m;
        if (keep == nullptr)
            continue; // the tree empties
        if (j > 0)
            refresh(sep(p, t, j));
        if (j + 1 < p->n)
            refresh(sep(p, t, j + 1));
    }
}

#if KVMODEL_DEFINITIONS
KVMODEL_DECL btree_leaf* btree_core::make_leaf(const btree_type& t, std::size_t cap) {
    void* mem = ::operator new(t.slots_at + cap * t.size);
    try {
        t.construct(static_cast<unsigned char*>(mem) + t.slots_at, cap);
    } catch (...) {
        ::operator delete(mem);
        throw;
    }
    return ::new (mem) btree_leaf(cap);
}

KVMODEL_DECL void btree_core::free_leaf(const btree_type& t, btree_leaf* l) noexcept {
    t.destroy(slot(l, t, 0), l->cap);
    void* mem = l;
    l->~btree_leaf();
    ::operator delete(mem);
}

KVMODEL_DECL btree_inner* btree_core::make_inner(const btree_type& t) {
    void* mem = ::operator new(t.inner_bytes);
    auto* bytes = static_cast<unsigned char*>(mem);
    try {
        t.construct(bytes + t.seps_at, t.inner_cap);
    } catch (...) {
        ::operator delete(mem);
        throw;
    }
    // (Loops, not std::fill_n: its chain per pointer type is five more
    // functions in a header-only file; -O2 makes both a memset.)
    auto* kids = reinterpret_cast<btree_node**>(bytes + sizeof(btree_inner));
    auto* cnt = reinterpret_cast<std::size_t*>(bytes + t.cnt_at);
    for (std::size_t k = 0; k < t.inner_cap; ++k)
        kids[k] = nullptr;
    for (std::size_t k = 0; k < t.inner_cap; ++k)
        cnt[k] = 0;
    return ::new (mem) btree_inner();
}

KVMODEL_DECL void btree_core::free_inner(const btree_type& t, btree_inner* in) noexcept {
    t.destroy(sep(in, t, 0), t.inner_cap);
    void* mem = in;
    in->~btree_inner();
    ::operator delete(mem);
}

KVMODEL_DECL void btree_core::destroy(const btree_type& t, btree_node* x) noexcept {
    if (x->leaf) {
        free_leaf(t, static_cast<btree_leaf*>(x));
        return;
    }
    auto* in = static_cast<btree_inner*>(x);
    for (std::size_t k = 0; k < in->n; ++k)
        destroy(t, children(in)[k]);
    free_inner(t, in);
}

KVMODEL_DECL void btree_core::clear(const btree_type& t) noexcept {
    if (root != nullptr) {
        destroy(t, root);
    } else { // a bulk load that failed: only chained leaves
        for (btree_leaf* l = first; l != nullptr;) {
            btree_leaf* next = l->next;
            free_leaf(t, l);
            l = next;
        }
    }
    root = nullptr;
    first = last = nullptr;
    size = 0;
}

KVMODEL_DECL void btree_core::take(const btree_type& t, btree_core& o) noexcept {
    clear(t);
    root = o.root; // (assignments, not std::exchange: nine functions fewer at -O0)
    first = o.first;
    last = o.last;
    size = o.size;
    o.root = nullptr;
    o.first = o.last = nullptr;
    o.size = 0;
}

KVMODEL_DECL void btree_core::copy_from(const btree_type& t, const btree_core& o) {
    if (o.root == nullptr)
        return;
    root = clone(t, o.root, nullptr);
    size = o.size;
}

KVMODEL_DECL btree_node* btree_core::clone(const btree_type& t, const btree_node* x, btree_inner* parent) {
    // A copy that throws frees what this call made (and so, up the
    // recursion, the whole partial copy).
    if (x->leaf) {
        const auto* l = static_cast<const btree_leaf*>(x);
        auto* c = make_leaf(t, l->cap);
        try {
            for (std::size_t i = 0; i < l->n; ++i)
                t.assign(at(c, t, i), at(l, t, i));
        } catch (...) {
            free_leaf(t, c);
            throw;
        }
        c->n = l->n;
        c->parent = parent;
        append_leaf(c);
        return c;
    }
    const auto* in = static_cast<const btree_inner*>(x);
    auto* c = make_inner(t);
    c->parent = parent;
    try {
        for (std::size_t k = 0; k < in->n; ++k) {
            link(t, c, k, clone(t, children(in)[k], c));
            c->n = k + 1;
            counts(c, t)[k] = counts(in, t)[k];
            if (k > 0)
                t.assign(sep(c, t, k), sep(in, t, k));
        }
    } catch (...) {
        destroy(t, c);
        throw;
    }
    return c;
}

KVMODEL_DECL void btree_core::add_counts(const btree_type& t, const btree_leaf* l, std::ptrdiff_t d) noexcept {
    const btree_node* x = l;
    for (btree_inner* p = l->parent; p != nullptr; x = p, p = p->parent) {
        std::size_t& c = counts(p, t)[x->slot];
        c = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(c) + d);
    }
}

KVMODEL_DECL std::size_t btree_core::count_of(const btree_type& t, const btree_node* x) noexcept {
    if (x->leaf)
        return x->n;
    const auto* in = static_cast<const btree_inner*>(x);
    std::size_t s = 0;
    for (std::size_t k = 0; k < in->n; ++k)
        s += counts(in, t)[k];
    return s;
}

KVMODEL_DECL btree_at btree_core::first_value(const btree_type& t, void* v) {
    auto* l = make_leaf(t, 1);
    t.move_up(at(l, t, 0), v, 1);
    l->n = 1;
    placed(t, l, 0, 1);
    root = first = last = l;
    size = 1;
    return {l, 0};
}

KVMODEL_DECL void* btree_core::left_sep(const btree_type& t, btree_node* x) noexcept {
    while (x->parent != nullptr) {
        std::size_t k = x->slot;
        if (k > 0)
            return sep(x->parent, t, k);
        x = x->parent;
    }
    return nullptr;
}

KVMODEL_DECL void* btree_core::right_sep(const btree_type& t, btree_node* x) noexcept {
    while (x->parent != nullptr) {
        std::size_t k = x->slot;
        if (k + 1 < x->parent->n)
            return sep(x->parent, t, k + 1);
        x = x->parent;
    }
    return nullptr;
}

// Moves the values to slots [0, n), where splits and merges want them.
KVMODEL_DECL void btree_core::compact(const btree_type& t, btree_leaf* l) {
    if (l->off == 0)
        return;
    const std::size_t off = l->off;
    const std::size_t n = l->n;
    t.move_up(slot(l, t, 0), slot(l, t, off), n);
    const std::size_t from = std::max(off, n);
    if (from < off + n)
        t.vacate(slot(l, t, from), off + n - from);
    l->off = 0;
}

// The only leaf, full below leaf_cap slots: its values move to a leaf of
// twice the slots (at most leaf_cap). O(n) while n < leaf_cap.
KVMODEL_DECL btree_leaf* btree_core::grow_root_leaf(const btree_type& t, btree_leaf* l) {
    btree_leaf* g = make_leaf(t, std::min(t.leaf_cap, 2 * l->cap));
    t.move_up(slot(g, t, 0), at(l, t, 0), l->n);
    g->n = l->n;
    placed(t, g, 0, g->n);
    root = first = last = g;
    free_leaf(t, l);
    return g;
}

// The inner nodes a leaf split may add, allocated before the split: one per
// full ancestor of the leaf (each splits in turn) and a new root when they
// all are, or the leaf is the root. Unused ones are freed.
class btree_core::spare_inners {
public:
    spare_inners(const btree_type& t, const btree_leaf* l)
        : m_type(t) {
        std::size_t need = 0;
        const btree_inner* p = l->parent;
        for (; p != nullptr && p->n == t.inner_cap; p = p->parent)
            ++need;
        if (p == nullptr)
            ++need;
        try {
            for (; need > 0; --need) {
                auto* x = make_inner(t);
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
    btree_inner* take() noexcept {
        btree_inner* x = m_head;
        m_head = x->parent;
        x->parent = nullptr;
        return x;
    }

private:
    void release() noexcept {
        while (m_head != nullptr)
            free_inner(m_type, take());
    }
    const btree_type& m_type;
    btree_inner* m_head = nullptr;
};

KVMODEL_DECL btree_at btree_core::insert_at(const btree_type& t, btree_leaf* l, std::size_t slot_at, void* v, bool counted) {
    if (l->n == l->cap && l->cap < t.leaf_cap)
        l = grow_root_leaf(t, l);
    if (l->n < l->cap) {
        ++size;
        if (!counted)
            add_counts(t, l, 1);
        // Shift the shorter side when both have room.
        if (l->off > 0 && (slot_at < l->n - slot_at || l->off + l->n == l->cap)) {
            --l->off;
            t.move_up(at(l, t, 0), at(l, t, 1), slot_at);
        } else {
            t.move_down(at(l, t, slot_at + 1), at(l, t, slot_at), l->n - slot_at);
        }
        t.move_up(at(l, t, slot_at), v, 1);
        ++l->n;
        placed(t, l, slot_at, slot_at + 1);
        return {l, slot_at};
    }
    // Full: the upper half moves to a new right neighbour - or nothing
    // does, when v goes past the end of the last leaf: a run of appends
    // (increasing keys) leaves its leaves full, not half full.
    const std::size_t cap = t.leaf_cap;
    const bool append = slot_at == cap && l->next == nullptr;
    std::size_t keep = append ? cap : (cap + 1) / 2;
    // Everything that can throw first: the new leaf, the inner nodes the
    // split may add up the tree, the separator (r's first value, a copy).
    // Then nothing throws: a failed insert leaves the tree as it was.
    spare_inners spares(t, l);
    btree_temp s;
    s.copy_from(t, append ? v : slot(l, t, keep)); // full: off is 0
    auto* r = make_leaf(t, cap);
    t.move_up(slot(r, t, 0), slot(l, t, keep), cap - keep);
    t.vacate(slot(l, t, keep), cap - keep);
    r->n = cap - keep;
    l->n = keep;
    r->prev = l;
    r->next = l->next;
    if (l->next != nullptr)
        l->next->prev = r;
    else
        last = r;
    l->next = r;
    btree_leaf* into = l;
    if (slot_at > keep || append) {
        into = r;
        slot_at -= keep;
    }
    t.move_down(at(into, t, slot_at + 1), at(into, t, slot_at), into->n - slot_at);
    t.move_up(at(into, t, slot_at), v, 1);
    ++into->n;
    placed(t, r, 0, r->n);
    if (into == l)
        placed(t, l, slot_at, slot_at + 1);
    ++size;
    if (!counted)
        add_counts(t, l, 1);
    add_child_after(t, l, r, s.get(), append, spares);
    return {into, slot_at};
}

// Links new node r right after x in x's parent, with separator *s (moved
// from); the parent's count for x covered both before the split.
// append: r is the new last node of its level (only the nodes on the
// tree's right edge may then be under half full).
KVMODEL_DECL void btree_core::add_child_after(const btree_type& t,
                                              btree_node* x,
                                              btree_node* r,
                                              void* s,
                                              bool append,
                                              spare_inners& spares) noexcept {
    btree_inner* p = x->parent;
    if (p == nullptr) {
        p = spares.take();
        link(t, p, 0, x);
        counts(p, t)[0] = count_of(t, x) + count_of(t, r);
        p->n = 1;
        root = p;
    }
    const std::size_t cap = t.inner_cap;
    std::size_t k = x->slot;
    std::size_t* pc = counts(p, t);
    std::size_t total = pc[k];
    std::size_t rc = count_of(t, r);
    if (p->n < cap) {
        place_child(t, p, k + 1, r, rc, s);
        pc[k] = total - rc;
        return;
    }
    // Full: the cap + 1 children, r among them (at k + 1), split evenly
    // between p and a new right neighbour q. An appended last child (the
    // leaves' append above) leaves p all but full: q takes two children,
    // the fewest fix_leaf can pair under it.
    const std::size_t all = cap + 1;
    const std::size_t keep = append && k + 1 == cap ? cap - 1 : (all + 1) / 2;
    pc[k] = total - rc;
    // Entry j of the merged sequence: p's child j below k + 1, r at k + 1,
    // p's child j - 1 above.
    auto src = [&](std::size_t j) { return j <= k ? j : j - 1; };
    auto* q = spares.take();
    btree_temp up; // the separator of q's first child goes up to p's parent
    for (std::size_t j = keep; j < all; ++j) {
        std::size_t to = j - keep;
        btree_node* c = j == k + 1 ? r : children(p)[src(j)];
        std::size_t cn = j == k + 1 ? rc : pc[src(j)];
        void* sp = j == k + 1 ? s : sep(p, t, src(j));
        link(t, q, to, c);
        counts(q, t)[to] = cn;
        if (to == 0)
            up.move_from(t, sp);
        else
            t.assign_move(sep(q, t, to), sp);
    }
    if (keep > k + 1) {
        // p keeps its children [0, keep - 1) and r: r goes in at k + 1.
        for (std::size_t j = keep - 1; j > k + 1; --j) {
            link(t, p, j, children(p)[j - 1]);
            pc[j] = pc[j - 1];
            t.assign_move(sep(p, t, j), sep(p, t, j - 1));
        }
        link(t, p, k + 1, r);
        pc[k + 1] = rc;
        t.assign_move(sep(p, t, k + 1), s);
    }
    for (std::size_t j = keep; j < cap; ++j) {
        children(p)[j] = nullptr;
        pc[j] = 0;
        t.reset(sep(p, t, j));
    }
    p->n = keep;
    q->n = all - keep;
    add_child_after(t, p, q, up.get(), append, spares);
}

KVMODEL_DECL void btree_core::place_child(const btree_type& t, btree_inner* p, std::size_t at_j,
                                          btree_node* c, std::size_t cnt, void* s) noexcept {
    std::size_t* pc = counts(p, t);
    for (std::size_t j = p->n; j > at_j; --j) {
        link(t, p, j, children(p)[j - 1]);
        pc[j] = pc[j - 1];
        t.assign_move(sep(p, t, j), sep(p, t, j - 1));
    }
    link(t, p, at_j, c);
    pc[at_j] = cnt;
    t.assign_move(sep(p, t, at_j), s);
    ++p->n;
}

// Removes child at (and its separator) from p.
KVMODEL_DECL void btree_core::drop_child(const btree_type& t, btree_inner* p, std::size_t at_j) noexcept {
    std::size_t* pc = counts(p, t);
    for (std::size_t j = at_j; j + 1 < p->n; ++j) {
        link(t, p, j, children(p)[j + 1]);
        pc[j] = pc[j + 1];
        t.assign_move(sep(p, t, j), sep(p, t, j + 1));
    }
    --p->n;
    children(p)[p->n] = nullptr;
    pc[p->n] = 0;
    t.reset(sep(p, t, p->n));
    if (at_j == 0)
        t.reset(sep(p, t, 0)); // the new first child needs no separator
}

// The separator fix_leaf's even-out will need once values [slot, slot + m)
// leave l - b's new first value - copied into out while nothing has changed;
// nothing when no even-out follows. Where copying may throw, an erase makes
// this copy first and then nothing that can throw: it is all or nothing.
KVMODEL_DECL void btree_core::even_out_separator(const btree_type& t,
                                                 const btree_leaf* l,
                                                 std::size_t slot_at,
                                                 std::size_t m,
                                                 btree_temp& out) const {
    const std::size_t min_leaf = t.leaf_cap / 2 > 0 ? t.leaf_cap / 2 : 1;
    if (l->parent == nullptr || l->n - m >= min_leaf || size == m)
        return;
    const btree_inner* p = l->parent;
    std::size_t j = sibling_pair(l);
    const auto* a = static_cast<const btree_leaf*>(children(p)[j - 1]);
    const auto* b = static_cast<const btree_leaf*>(children(p)[j]);
    std::size_t na = a->n - (a == l ? m : 0);
    std::size_t nb = b->n - (b == l ? m : 0);
    if (na + nb <= t.leaf_cap)
        return; // they merge
    // x's i-th value once the run has left l.
    auto after = [&](const btree_leaf* x, std::size_t i) -> const void* {
        return at(x, t, x == l && i >= slot_at ? i + m : i);
    };
    std::size_t want_a = (na + nb) / 2;
    out.copy_from(t, na < want_a ? after(b, want_a - na) : after(a, want_a));
}

KVMODEL_DECL void btree_core::erase_in_leaf(const btree_type& t, btree_leaf* l, std::size_t slot_at, std::size_t m) {
    btree_temp sep_copy;
    if (!t.nothrow_copy)
        even_out_separator(t, l, slot_at, m, sep_copy);
    if (slot_at < l->n - slot_at - m) {
        // Fewer values before the gap: they move right, the front frees.
        t.move_down(at(l, t, m), at(l, t, 0), slot_at);
        t.vacate(at(l, t, 0), m);
        l->off += m;
    } else {
        t.move_up(at(l, t, slot_at), at(l, t, slot_at + m), l->n - m - slot_at);
        t.vacate(at(l, t, l->n - m), m);
    }
    l->n -= m;
    if (l->n == 0)
        l->off = 0;
    size -= m;
    if (!t.live_separators)
        add_counts(t, l, -static_cast<std::ptrdiff_t>(m));
    if (size == 0) {
        clear(t);
        return;
    }
    const std::size_t min_leaf = t.leaf_cap / 2 > 0 ? t.leaf_cap / 2 : 1;
    if (l->n < min_leaf && l->parent != nullptr)
        fix_leaf(t, l, sep_copy);
}

KVMODEL_DECL void btree_core::unlink_leaf(const btree_type& t, btree_leaf* l) noexcept {
    if (l->prev != nullptr)
        l->prev->next = l->next;
    else
        first = l->next;
    if (l->next != nullptr)
        l->next->prev = l->prev;
    else
        last = l->prev;
    free_leaf(t, l);
}

// sep: the even-out's separator when the caller copied it beforehand.
KVMODEL_DECL void btree_core::fix_leaf(const btree_type& t, btree_leaf* l, btree_temp& sep_copy) {
    btree_inner* p = l->parent;
    std::size_t j = sibling_pair(l);
    auto* a = static_cast<btree_leaf*>(children(p)[j - 1]);
    auto* b = static_cast<btree_leaf*>(children(p)[j]);
    compact(t, a);
    compact(t, b);
    std::size_t* pc = counts(p, t);
    if (a->n + b->n <= t.leaf_cap) {
        t.move_up(slot(a, t, a->n), slot(b, t, 0), b->n);
        placed(t, a, a->n, a->n + b->n);
        a->n += b->n;
        pc[j - 1] += pc[j];
        drop_child(t, p, j);
        unlink_leaf(t, b);
        fix_inner(t, p);
        return;
    }
    // Even the two out; the separator becomes b's new first value.
    std::size_t total = a->n + b->n;
    std::size_t want_a = total / 2;
    if (a->n < want_a) {
        std::size_t d = want_a - a->n;
        t.move_up(slot(a, t, a->n), slot(b, t, 0), d);
        t.move_up(slot(b, t, 0), slot(b, t, d), b->n - d);
        t.vacate(slot(b, t, b->n - d), d);
    } else {
        std::size_t d = a->n - want_a;
        t.move_down(slot(b, t, d), slot(b, t, 0), b->n);
        for (std::size_t i = 0; i < d; ++i) {
            t.move_up(slot(b, t, i), slot(a, t, want_a + i), 1);
            t.vacate(slot(a, t, want_a + i), 1);
        }
    }
    b->n = total - want_a;
    a->n = want_a;
    placed(t, a, 0, a->n); // the moved values, and a few that stayed
    placed(t, b, 0, b->n);
    pc[j - 1] = a->n;
    pc[j] = b->n;
    if (sep_copy.has())
        t.assign_move(sep(p, t, j), sep_copy.get());
    else
        t.assign(sep(p, t, j), slot(b, t, 0));
}

KVMODEL_DECL void btree_core::fix_inner(const btree_type& t, btree_inner* x) {
    if (x->parent == nullptr) {
        if (x->n == 1) { // the root keeps one child: that child is the root
            root = children(x)[0];
            root->parent = nullptr;
            free_inner(t, x);
        }
        return;
    }
    if (x->n >= (t.inner_cap + 1) / 2)
        return;
    btree_inner* p = x->parent;
    std::size_t j = sibling_pair(x);
    auto* a = static_cast<btree_inner*>(children(p)[j - 1]);
    auto* b = static_cast<btree_inner*>(children(p)[j]);
    if (a->n + b->n <= t.inner_cap) {
        // p's separator bounds b's first child on the left.
        for (std::size_t i = 0; i < b->n; ++i) {
            link(t, a, a->n + i, children(b)[i]);
            counts(a, t)[a->n + i] = counts(b, t)[i];
            t.assign_move(sep(a, t, a->n + i), i == 0 ? sep(p, t, j) : sep(b, t, i));
        }
        a->n += b->n;
        counts(p, t)[j - 1] += counts(p, t)[j];
        drop_child(t, p, j);
        free_inner(t, b);
        fix_inner(t, p);
        return;
    }
    while (a->n + 1 < b->n)
        rotate_left(t, p, j, a, b);
    while (b->n + 1 < a->n)
        rotate_right(t, p, j, a, b);
}

// b's first child moves to the end of a (b = p's child j).
KVMODEL_DECL void btree_core::rotate_left(const btree_type& t, btree_inner* p, std::size_t j,
                                          btree_inner* a, btree_inner* b) {
    std::size_t c = counts(b, t)[0];
    link(t, a, a->n, children(b)[0]);
    counts(a, t)[a->n] = c;
    t.assign_move(sep(a, t, a->n), sep(p, t, j));
    ++a->n;
    t.assign_move(sep(p, t, j), sep(b, t, 1));
    drop_child(t, b, 0);
    counts(p, t)[j - 1] += c;
    counts(p, t)[j] -= c;
}

// a's last child moves to the front of b.
KVMODEL_DECL void btree_core::rotate_right(const btree_type& t, btree_inner* p, std::size_t j,
                                           btree_inner* a, btree_inner* b) {
    std::size_t la = a->n - 1;
    std::size_t c = counts(a, t)[la];
    btree_node* ch = children(a)[la];
    btree_temp s;
    s.move_from(t, sep(a, t, la));
    children(a)[la] = nullptr;
    counts(a, t)[la] = 0;
    t.reset(sep(a, t, la));
    --a->n;
    // b's old first child gets p's separator; ch's bound moves up to p.
    for (std::size_t i = b->n; i > 0; --i) {
        link(t, b, i, children(b)[i - 1]);
        counts(b, t)[i] = counts(b, t)[i - 1];
        if (i > 1)
            t.assign_move(sep(b, t, i), sep(b, t, i - 1));
    }
    t.assign_move(sep(b, t, 1), sep(p, t, j));
    link(t, b, 0, ch);
    counts(b, t)[0] = c;
    ++b->n;
    t.assign_move(sep(p, t, j), s.get());
    counts(p, t)[j - 1] -= c;
    counts(p, t)[j] += c;
}

KVMODEL_DECL void btree_core::update(const btree_type& t, btree_leaf* l, std::size_t i, const void* v) noexcept {
    void* value = at(l, t, i);
    const btree_node* x = l;
    for (btree_inner* p = l->parent; p != nullptr; x = p, p = p->parent) {
        std::size_t j = x->slot;
        if (j > 0 && t.same(sep(p, t, j), value))
            std::memcpy(sep(p, t, j), v, t.size);
        if (j + 1 < p->n && t.same(sep(p, t, j + 1), value))
            std::memcpy(sep(p, t, j + 1), v, t.size);
    }
    std::memcpy(value, v, t.size);
}

KVMODEL_DECL void btree_core::assign_sorted(const btree_type& t,
                                            std::size_t n,
                                            void* src,
                                            void (*put)(void*, void*, std::size_t)) {
    btree_core built;
    try {
        built.build_sorted(t, n, src, put);
    } catch (...) {
        if (put == nullptr) { // the values taken go back to src
            auto* back = static_cast<unsigned char*>(src);
            for (btree_leaf* l = built.first; l != nullptr; l = l->next)
                for (std::size_t j = 0; j < l->n; ++j, back += t.size)
                    t.assign_move(back, at(l, t, j));
        }
        built.clear(t);
        throw;
    }
    take(t, built);
}

KVMODEL_DECL void btree_core::build_sorted(const btree_type& t,
                                           std::size_t n,
                                           void* src,
                                           void (*put)(void*, void*, std::size_t)) {
    if (n == 0)
        return;
    // Leaves as full as an even split allows: each at least half full.
    std::size_t leaves = (n + t.leaf_cap - 1) / t.leaf_cap;
    std::size_t k = 0;
    for (std::size_t i = 0; i < leaves; ++i) {
        std::size_t take = leaves == 1 ? n : n / leaves + (i < n % leaves ? 1 : 0);
        // One leaf: n slots (the root, which may grow).
        auto* l = make_leaf(t, leaves == 1 ? n : t.leaf_cap);
        append_leaf(l);
        for (; l->n < take; ++l->n, ++k) {
            if (put != nullptr)
                put(src, slot(l, t, l->n), k);
            else
                t.assign_move(slot(l, t, l->n), static_cast<unsigned char*>(src) + k * t.size);
        }
    }
    build_over_leaves(t, n);
}

KVMODEL_DECL void btree_core::append_leaf(btree_leaf* l) noexcept {
    l->prev = last;
    if (last != nullptr)
        last->next = l;
    else
        first = l;
    last = l;
}

KVMODEL_DECL void btree_core::build_over_leaves(const btree_type& t, std::size_t n) {
    for (btree_leaf* l = first; l != nullptr; l = l->next)
        placed(t, l, 0, l->n);
    if (first == last) { // one leaf: the root
        root = first;
        size = n;
        return;
    }
    // One array: the level being grouped (each next level is written over
    // its front, slot g once group g's children are read), then every inner
    // node made, freed (not their leaves) on failure. A raw array, not two
    // vectors: no std::vector is instantiated per node type. With fan-outs
    // of at least 3 there are fewer inner nodes than leaves.
    std::size_t count = 0;
    for (const btree_leaf* l = first; l != nullptr; l = l->next)
        ++count;
    struct nodes {
        btree_node** p;
        ~nodes() { delete[] p; }
    } buf{new btree_node*[2 * count]};
    btree_node** level = buf.p;
    btree_node** made = buf.p + count;
    std::size_t made_n = 0;
    count = 0;
    for (btree_leaf* l = first; l != nullptr; l = l->next)
        level[count++] = l;
    try {
        while (count > 1) {
            std::size_t groups = (count + t.inner_cap - 1) / t.inner_cap;
            std::size_t c = 0;
            for (std::size_t g = 0; g < groups; ++g) {
                std::size_t take = count / groups + (g < count % groups ? 1 : 0);
                auto* in = make_inner(t);
                made[made_n++] = in;
                for (std::size_t j = 0; j < take; ++j) {
                    btree_node* ch = level[c++];
                    link(t, in, j, ch);
                    counts(in, t)[j] = count_of(t, ch);
                    if (j > 0) {
                        const btree_node* f = ch;
                        while (!f->leaf)
                            f = children(static_cast<const btree_inner*>(f))[0];
                        t.assign(sep(in, t, j), at(static_cast<const btree_leaf*>(f), t, 0));
                    }
                }
                in->n = take;
                level[g] = in; // g < c: read already
            }
            count = groups;
        }
    } catch (...) {
        for (std::size_t i = 0; i < made_n; ++i)
            free_inner(t, static_cast<btree_inner*>(made[i]));
        throw;
    }
    root = level[0];
    size = n;
}

KVMODEL_DECL std::size_t btree_core::leaf_count() const noexcept {
    std::size_t k = 0;
    for (const btree_leaf* l = first; l != nullptr; l = l->next)
        ++k;
    return k;
}
#endif // KVMODEL_DEFINITIONS

} // namespace kvmodel::detail
