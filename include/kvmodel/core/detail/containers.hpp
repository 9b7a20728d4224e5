// kvmodel/core/detail/containers.hpp
//
// The order-statistics containers behind kvmodel::list and kvmodel::map, on
// counted B+trees (counted_btree.hpp: leaves of 32 contiguous elements,
// subtree counts in the inner nodes).
//
// list_impl: a plain vector while nothing needs more; once a long list gets a
// middle insert or is asked to build_index(), one of two tree layouts:
//  * sorted (the list's values never decrease along it: every ORDERED list):
//    the values in one counted B+tree, ties kept in list order, so position
//    = value rank and every question is one search or one nth() down a tree
//    of a few levels; a range read walks contiguous leaves.
//    A write that would break the order (a smaller value appended, a take())
//    moves the list to the positional layout first, O(n log n) once.
//  * positional (anything else; list_positional): each element a node of
//    its own, and two counted B+trees over the nodes: one in list order
//    (position = rank there, so access by position, insert and erase
//    anywhere are O(log n)), one of references in (value, position) order
//    (value rank, ties by position, as Aerospike's list rank has them).
//    Positions are never stored: each node carries a label, an
//    order-maintenance tag increasing with list position, which breaks the
//    value order's ties in O(1).
// A flat list answers rank questions by scanning: fine while it is short
// (flat_max), and for long ones the engine builds an index first.
//
// map_impl: each entry a node of its own (map_node: key, value, its list
// value's first element cached, and its leaf in each tree), and two counted
// B+trees (counted_btree.hpp) of 16-byte references to the nodes: one in
// key order (index), one in (value, key) order (rank, ties by key). A
// reference (map_ref) carries a summary of the key or value it orders by -
// the type's place in the order, in the pointer's low bits, and an integer
// (the integer itself, a list's first element) - so most comparisons, and
// every one between two integers, never follow the pointer; when they must,
// they take the common shapes natively - integers, and flat lists of
// integers and strings - with a search argument resolved once into a probe
// (int_probe, map_list_probe); anything else goes to cdt_compare. Same
// order throughout. Position and rank questions are one descent of a tree a
// few levels deep (32-wide nodes), against the ~log2(n) scattered nodes of
// a binary tree. The trees report which leaf holds each reference
// (counted_btree's leaf reports) and the node keeps it, so an entry found in
// one order is found in the other by a scan of one leaf, no search, and its
// position there by a walk up. Nodes never move, so references to entries
// stay valid while the trees reshape; the trees keep their separators live
// (an erased node's reference leaves every inner node before it is freed).

#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/detail/counted_btree.hpp>
#include <kvmodel/core/value.hpp>


#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <compare>
#include <limits>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace kvmodel {

/// Bytes of v in Aerospike's msgpack encoding (msgpack_size.hpp, included at
/// the end of this header): containers keep their elements' total.
inline std::size_t packed_size(const value& v) noexcept;

namespace detail {

/// compare() reduced to an int, with WILDCARD matching (probe lookups) or not
/// (the containers' own strict order).
inline int cdt_compare(const value& a, const value& b, bool wildcard_matches) noexcept;

/// Two integers compared in cdt order (-1, 0, 1) into out; false unless both
/// are integers. The inline fast path of every list and map comparison.
inline bool compare_if_ints(const value::storage& x, const value::storage& y, int& out) noexcept {
    const auto* i = std::get_if<std::int64_t>(&x);
    const auto* j = std::get_if<std::int64_t>(&y);
    if (i == nullptr || j == nullptr) return false;
    out = (*i > *j) - (*i < *j);
    return true;
}

/// Two strings compared in cdt order (unsigned bytes, then length:
/// std::string's char_traits order) into out; false unless both are strings.
inline bool
compare_if_strings(const value::storage& x, const value::storage& y, int& out) noexcept {
    const auto* s = std::get_if<std::string>(&x);
    const auto* t = std::get_if<std::string>(&y);
    if (s == nullptr || t == nullptr) return false;
    int c = s->compare(*t);
    out = (c > 0) - (c < 0);
    return true;
}

/// cdt_compare with two integers or two strings decided inline (the usual
/// list elements); everything else, WILDCARD included, goes to the general
/// comparison. Every comparison of list elements goes through here.
inline int list_compare(const value& a, const value& b, bool wildcard_matches) noexcept {
    int c = 0;
    const value::storage& x = a.variant();
    const value::storage& y = b.variant();
    if (compare_if_ints(x, y, c) || compare_if_strings(x, y, c)) return c;
    return cdt_compare(a, b, wildcard_matches);
}

/// The positions 0 .. n-1 of the values *v[i] in value order, equal values
/// in position order (a stable sort): list order (list_compare) when
/// `list_order`, else map key order (cdt_compare). A merge sort written once
/// for every stable sort of values (a flat list's rank order, the engine's
/// ORDERED append_items, ADD_UNIQUE repeats, map put_items) instead of one
/// std::stable_sort per caller; a run already in order costs one comparison
/// to merge. O(n log n).
KVMODEL_DECL std::vector<std::size_t> stable_value_order(const std::vector<const value*>& v,
                                                         bool list_order);
/// stable_value_order of the values themselves, in list order.
KVMODEL_DECL std::vector<std::size_t> list_rank_order(const std::vector<value>& values);
/// Sorts values stably in list order: list_rank_order, then one move each
/// (the list's constructor, list::sort: no std::stable_sort family over
/// values, ~5 KB of code in every header-only TU that builds a list).
KVMODEL_DECL void stable_sort_values(std::vector<value>& values);

/// The order of a list's first element, as an integer (a summary for the
/// trees' references, and map_node's cache): the element itself when it is
/// an integer; INT64_MIN for an empty list or a first element of a lower
/// type (nil, boolean); INT64_MAX for one of a higher type. Two lists whose
/// leads differ compare as their leads do; equal leads say nothing. Not for
/// a WILDCARD-matching comparison with a list holding a WILDCARD.
inline std::int64_t list_lead(const list& l) {
    if (l.empty()) return std::numeric_limits<std::int64_t>::min();
    const value& first = l[0];
    if (const auto* i = std::get_if<std::int64_t>(&first.variant())) return *i;
    return first.type() < value_type::integer ? std::numeric_limits<std::int64_t>::min()
                                              : std::numeric_limits<std::int64_t>::max();
}

/// True when p is its container's only owner, so a write may change it in
/// place (copy-on-write's test). use_count() is a relaxed read: another
/// thread may have read the container through its own copy and then dropped
/// it (a release decrement); the acquire fence after reading that count
/// orders those reads before the writes that follow (a fence synchronises
/// with the release whose value the relaxed read saw). ThreadSanitizer
/// models no fences, so there a copy of the handle - an acquire-release
/// count - does the same.
template <class T>
KVMODEL_ALWAYS_INLINE inline bool sole_owner(const std::shared_ptr<T>& p) noexcept {
    if (p.use_count() != 1) return false;
#if KVMODEL_TSAN
    { const std::shared_ptr<T> copy = p; }
#else
    std::atomic_thread_fence(std::memory_order_acquire);
#endif
    return true;
}

/// Nodes that tagged_refs point at are allocated this aligned: the reference
/// keeps a type in the pointer's low bits.
inline constexpr std::size_t node_align = 16;

/// The allocation of a node tagged_refs point at: 16-byte aligned without
/// padding the node to a multiple of 16 or asking for an over-aligned block
/// (either moves it up a malloc size class: 104 -> 128 bytes with glibc).
/// Where the default new alignment is 16 (64-bit GCC and Clang), every
/// allocator in use - glibc, jemalloc, tcmalloc, the sanitizers' - returns
/// blocks of these sizes 16-aligned, which is checked; elsewhere the node
/// asks for it.
struct tagged_node {
    static void* operator new(std::size_t n) {
        if constexpr (__STDCPP_DEFAULT_NEW_ALIGNMENT__ < node_align) {
            return ::operator new(n, std::align_val_t{node_align});
        } else {
            void* p = ::operator new(n);
            KVMODEL_ASSERT(reinterpret_cast<std::uintptr_t>(p) % node_align == 0);
            return p;
        }
    }
    static void operator delete(void* p, [[maybe_unused]] std::size_t n) noexcept {
#if defined(__cpp_sized_deallocation) // clang before 19 leaves it off unless -fsized-deallocation
        if constexpr (__STDCPP_DEFAULT_NEW_ALIGNMENT__ < node_align)
            ::operator delete(p, n, std::align_val_t{node_align});
        else
            ::operator delete(p, n);
#else
        if constexpr (__STDCPP_DEFAULT_NEW_ALIGNMENT__ < node_align)
            ::operator delete(p, std::align_val_t{node_align});
        else
            ::operator delete(p);
#endif
    }
};

/// A node's place in one order of a container's tree: the node, and a
/// summary of the value that orders it there: the type's place in the order
/// (cls) and, for an integer, the integer, for a list its lead (list_lead),
/// else 0. Summaries are monotone in the order, so two that differ decide a
/// comparison without following the pointer; for two integers the summary
/// is the whole value. Nodes never move: the trees move these 16-byte
/// references, not values. The type's place rides in the node pointer's low
/// bits (nodes derive from tagged_node). Both members are public so the
/// type is standard-layout: a tree finds the node word by its offset
/// (ref_slot); read them through node() and cls().
template <class Node>
struct tagged_ref {
    static constexpr std::uintptr_t cls_mask = node_align - 1;
    std::int64_t lead = 0;
    std::uintptr_t bits = 0; // the node's address | cls

    tagged_ref() = default;
    tagged_ref(std::int64_t l, std::size_t cls, Node* n) noexcept
        : lead(l)
        , bits(reinterpret_cast<std::uintptr_t>(n) | cls) {}
    Node* node() const noexcept { return reinterpret_cast<Node*>(bits & ~cls_mask); }
    std::size_t cls() const noexcept { return bits & cls_mask; }
    void set_node(Node* n) noexcept { bits = reinterpret_cast<std::uintptr_t>(n) | cls(); }
};
static_assert(static_cast<std::size_t>(value_type::wildcard) < node_align,
              "every type's place fits in a node pointer's low bits");

/// The reference to node n, ordered by v.
template <class Node>
tagged_ref<Node> ref_of(const value& v, Node* n) noexcept {
    const value::storage& x = v.variant();
    if (const auto* i = std::get_if<std::int64_t>(&x)) return {*i, x.index(), n};
    if (const auto* l = std::get_if<list>(&x)) return {list_lead(*l), x.index(), n};
    return {0, x.index(), n};
}

/// -1 or 1 when two summaries decide the order of their values, else 0.
/// (Two references to one node are equal without a look at it: a node's
/// own place is found without following its pointer.)
template <class Node>
KVMODEL_ALWAYS_INLINE inline int ref_order(const tagged_ref<Node>& a,
                                           const tagged_ref<Node>& b) noexcept {
    if (a.cls() != b.cls()) return a.cls() < b.cls() ? -1 : 1;
    if (a.lead != b.lead) return a.lead < b.lead ? -1 : 1;
    return 0;
}

inline constexpr std::size_t int_cls = static_cast<std::size_t>(value_type::integer);
inline constexpr std::size_t list_cls = static_cast<std::size_t>(value_type::list);
inline constexpr std::size_t wildcard_cls = static_cast<std::size_t>(value_type::wildcard);

/// An integer search argument: orders against stored values exactly as the
/// probe value(v) does (WILDCARD matching), without a value or a type dispatch.
struct int_probe {
    std::int64_t v;
};

/// The value summarised by a is below (above) integer probe v, as a
/// WILDCARD-matching comparison with value(v) has it: types order first; a
/// WILDCARD matches.
template <class Node>
KVMODEL_ALWAYS_INLINE inline bool ref_below_int(const tagged_ref<Node>& a, std::int64_t v) noexcept {
    return a.cls() != int_cls ? a.cls() < int_cls : a.lead < v;
}
template <class Node>
KVMODEL_ALWAYS_INLINE inline bool ref_above_int(const tagged_ref<Node>& a, std::int64_t v) noexcept {
    if (a.cls() != int_cls) return a.cls() > int_cls && a.cls() != wildcard_cls;
    return v < a.lead;
}

/// A reference's slot in one order's tree: references move as bytes (a
/// plain tree); separators must stay live (the owner frees an erased value's
/// node), and two references name one node when their node words do; each
/// node keeps its leaf in that tree in the member Leaf.
template <class Node, const void* Node::*Leaf>
struct ref_slot {
    using ref = tagged_ref<Node>;
    static_assert(std::is_standard_layout_v<ref> && std::is_trivially_copyable_v<ref>);
    static constexpr bool plain = true;
    static constexpr bool live_separators = true;
    static constexpr bool tracks_leaf = true;
    static constexpr std::size_t ref_at = offsetof(ref, bits);
    static constexpr std::uintptr_t ref_mask = ~ref::cls_mask;
    static void placed(ref& r, const void* leaf) noexcept { r.node()->*Leaf = leaf; }
};

/// list_compare(a, b, wildcard_matches) < 0 with two integers decided
/// inline: the list indices' comparison, run once per tree level.
KVMODEL_ALWAYS_INLINE inline bool
list_less(const value& a, const value& b, bool wildcard_matches) noexcept {
    const auto* i = std::get_if<std::int64_t>(&a.variant());
    const auto* j = std::get_if<std::int64_t>(&b.variant());
    if (i != nullptr && j != nullptr) return *i < *j;
    return list_compare(a, b, wildcard_matches) < 0;
}

/// Old node -> new node while a container whose nodes two trees refer to is
/// copied: the nodes are copied in one tree's order, and the other tree's
/// references find their new nodes here, by the old pointer alone (an
/// open-addressing table at most half full), without touching the old nodes
/// or walking up the old tree. O(1) expected per look-up. Untyped (callers
/// cast back), so a list and a map share one class and no std container.
class node_map {
public:
    explicit node_map(std::size_t n) {
        std::size_t cap = 16;
        while (cap < 2 * n) cap *= 2;
        m_slots = new entry[cap]{};
        m_mask = cap - 1;
    }
    node_map(const node_map&) = delete;
    node_map& operator=(const node_map&) = delete;
    ~node_map() { delete[] m_slots; }
    void add(const void* from, void* to) noexcept {
        std::size_t i = slot(from);
        while (m_slots[i].from != nullptr) i = (i + 1) & m_mask;
        m_slots[i] = {from, to};
    }
    /// Precondition: add(from, ...) was called.
    void* operator[](const void* from) const noexcept {
        std::size_t i = slot(from);
        while (m_slots[i].from != from) i = (i + 1) & m_mask;
        return m_slots[i].to;
    }

private:
    struct entry {
        const void* from;
        void* to;
    };
    std::size_t slot(const void* p) const noexcept {
        // Fibonacci hashing of the pointer, alignment bits dropped.
        std::uint64_t h = (reinterpret_cast<std::uintptr_t>(p) >> 4) * 0x9E3779B97F4A7C15ULL;
        return static_cast<std::size_t>(h >> 32) & m_mask;
    }
    entry* m_slots = nullptr;
    std::size_t m_mask = 0;
};

/// Up to a known number of node pointers, the first 32 without an
/// allocation (a trim's few): the nodes a copy or a bulk build has made and
/// not yet handed over (each freed by free_node unless release() is called
/// first), or those an erase frees once out of both trees (free_node null).
/// Untyped and not a template: the list and map layouts share it, and no
/// vector, small_vector or unique_ptr is instantiated per node type.
class node_list {
public:
    using free_fn = void (*)(void*) noexcept;
    explicit node_list(std::size_t cap, free_fn free_node = nullptr)
        : m_p(cap <= inline_cap ? m_inline : new void*[cap])
        , m_free(free_node) {}
    node_list(const node_list&) = delete;
    node_list& operator=(const node_list&) = delete;
    ~node_list() {
        if (m_free != nullptr)
            for (std::size_t i = 0; i < m_n; ++i) m_free(m_p[i]);
        if (m_p != m_inline) delete[] m_p;
    }
    /// Precondition: fewer than the capacity are held (so it cannot throw).
    void push(void* n) noexcept { m_p[m_n++] = n; }
    void* operator[](std::size_t i) const noexcept { return m_p[i]; }
    std::size_t size() const noexcept { return m_n; }
    /// The nodes are handed over: the destructor frees none of them.
    void release() noexcept { m_free = nullptr; }

private:
    static constexpr std::size_t inline_cap = 32;
    void* m_inline[inline_cap];
    void** m_p;
    std::size_t m_n = 0;
    free_fn m_free;
};

/// An element of a list's positional layout (list_positional): its value,
/// its label (an order-maintenance tag increasing with list position), and
/// the leaves of the two trees that hold it.
struct list_node : tagged_node {
    value v;
    std::uint64_t label = 0;
    const void* pos_leaf = nullptr;
    const void* val_leaf = nullptr;

    list_node(value x, std::uint64_t l) noexcept : v(std::move(x)), label(l) {}
};
/// node_list's free_node for list nodes.
inline void free_list_node(void* n) noexcept { delete static_cast<list_node*>(n); }
using list_ref = tagged_ref<list_node>;

/// A label as a search argument (relabelling looks up label blocks).
struct list_label_probe {
    std::uint64_t label;
};

/// List order: nodes by label.
struct list_pos_less {
    KVMODEL_ALWAYS_INLINE bool operator()(const list_node* a, const list_node* b) const noexcept {
        return a->label < b->label;
    }
    bool operator()(const list_node* a, list_label_probe p) const noexcept { return a->label < p.label; }
    bool operator()(list_label_probe p, const list_node* b) const noexcept { return p.label < b->label; }
};

/// The list-order tree's slots: node pointers (a plain tree), live
/// separators (nodes are freed once erased), each node told its leaf
/// (list_node::pos_leaf).
struct list_pos_slot {
    static constexpr bool plain = true;
    static constexpr bool live_separators = true;
    static constexpr bool tracks_leaf = true;
    static constexpr std::size_t ref_at = 0;
    static constexpr std::uintptr_t ref_mask = ~std::uintptr_t{0};
    static void placed(list_node* n, const void* leaf) noexcept { n->pos_leaf = leaf; }
};

/// A value as a search argument compared exactly (a WILDCARD is a value like
/// any other), above every element equal to it: where a sorted insert goes.
struct list_exact_probe {
    const value* v;
};

/// Value order, ties by position (label), as Aerospike ranks list elements;
/// searches by value (WILDCARDs in it match), integer or exact value.
struct list_val_less {
    KVMODEL_ALWAYS_INLINE bool operator()(const list_ref& a, const list_ref& b) const noexcept {
        if (int c = ref_order(a, b)) return c < 0;
        const list_node* x = a.node();
        const list_node* y = b.node();
        if (x == y) return false;
        // Equal summaries: two integers are equal; anything else is compared.
        if (a.cls() != int_cls) {
            if (int c = list_compare(x->v, y->v, false)) return c < 0;
        }
        return x->label < y->label;
    }
    KVMODEL_ALWAYS_INLINE bool operator()(const list_ref& a, int_probe p) const noexcept {
        return ref_below_int(a, p.v);
    }
    KVMODEL_ALWAYS_INLINE bool operator()(int_probe p, const list_ref& b) const noexcept {
        return ref_above_int(b, p.v);
    }
    bool operator()(const list_ref& a, const value& v) const noexcept {
        return list_less(a.node()->v, v, true);
    }
    bool operator()(const value& v, const list_ref& b) const noexcept {
        return list_less(v, b.node()->v, true);
    }
    bool operator()(const list_ref& a, list_exact_probe p) const noexcept {
        return list_compare(a.node()->v, *p.v, false) <= 0;
    }
    bool operator()(list_exact_probe p, const list_ref& b) const noexcept {
        return list_compare(*p.v, b.node()->v, false) < 0;
    }
};

/// The positional layout of a list (any list that is not sorted, once it is
/// indexed): each element a node of its own (list_node, never moves) and two
/// counted B+trees over the nodes - `pos` of node pointers in list order
/// (position = rank there: access, insert and erase anywhere by position in
/// O(log n)), `vals` of 16-byte references in (value, label) order (value
/// rank, ties by position). Positions are never stored, so an insert shifts
/// nothing. Labels increase with list position; they are 64-bit, and when
/// two neighbours have none left between them a small block around them is
/// relabelled evenly (amortised O(log n); Bender, Cole, Demaine,
/// Farach-Colton and Zito's order maintenance, 2002). Relabelling keeps
/// relative order, so nothing moves in either tree. The trees report which
/// leaf holds each node (counted_btree's leaf reports), so a node found in
/// one order is found in the other by a scan of one leaf, and its position
/// or rank by a walk up.
struct list_positional {
    using label_t = std::uint64_t;
    using pos_tree = counted_btree<list_node*, list_pos_less, 32, 32, list_pos_slot>;
    using val_tree =
        counted_btree<list_ref, list_val_less, 32, 32, ref_slot<list_node, &list_node::val_leaf>>;
    using pos_iterator = pos_tree::const_iterator;
    using val_iterator = val_tree::const_iterator;

    // Labels 0 and max are never given to a node: they stand for "before the
    // first" and "after the last" so every insert looks for room between two.
    static constexpr label_t lowest = 0;
    static constexpr label_t highest = std::numeric_limits<label_t>::max();
    static constexpr label_t first_label = label_t{1} << 63;
    // Appends and prepends step this far, so long runs of them never relabel.
    static constexpr label_t end_step = label_t{1} << 32;

    pos_tree pos;
    val_tree vals;

    list_positional() = default;
    list_positional(const list_positional& o);
    list_positional& operator=(const list_positional&) = delete;
    ~list_positional() {
        for (list_node* n : pos) delete n;
    }

    /// The layout of values, moved in (labels centred on first_label, spaced
    /// so the ends keep room to grow). O(n log n). Out of memory, values gets
    /// back what was moved.
    static std::unique_ptr<list_positional> make(std::vector<value>& values);

    std::size_t size() const noexcept { return pos.size(); }
    static list_ref val_ref(list_node* n) noexcept { return ref_of(n->v, n); }

    /// Where node n sits in each order: a scan of the leaf it records.
    pos_iterator pos_it(const list_node* n) const {
        return pos.iterator_in(n->pos_leaf, [n](const list_node* x) { return x == n; });
    }
    val_iterator val_it(const list_node* n) const {
        return vals.iterator_in(n->val_leaf, [n](const list_ref& r) { return r.node() == n; });
    }
    std::size_t position_of(const list_node* n) const { return pos.rank(pos_it(n)); }
    std::size_t rank_of(const list_node* n) const { return vals.rank(val_it(n)); }

    /// The node at position p (rank r): the two ends in O(1) (appends, pops
    /// and trims of a long list touch them most), elsewhere one descent.
    pos_iterator at(std::size_t p) const {
        if (p == 0) return pos.begin();
        if (p + 1 == pos.size()) return pos.last();
        return pos.nth(p);
    }
    list_node* node_at(std::size_t p) const { return *at(p); }
    val_iterator rank_at(std::size_t r) const {
        if (r == 0) return vals.begin();
        if (r + 1 == vals.size()) return vals.last();
        return vals.nth(r);
    }

    /// The number of elements below v (below or matching it, with
    /// or_equal); WILDCARDs in v match. O(log n).
    std::size_t count_below(const value& v, bool or_equal) const { return bound(v, or_equal).rank; }
    /// The first element not below v (above or not matching v, with
    /// or_equal), and its rank. O(log n).
    val_tree::position bound(const value& v, bool or_equal) const;

    /// Inserts v before position p (p == size() appends). O(log n). Out of
    /// memory, the list is as it was.
    void insert(std::size_t p, value v);
    /// Inserts v after every element not above it, in a list kept sorted;
    /// returns its position. O(log n): one search in the value order, whose
    /// neighbours are the position neighbours too.
    std::size_t insert_sorted(value v);

    /// Node n's value becomes v; returns the old one. In place when v keeps
    /// n's rank, else n moves in the value order. O(log n). Out of memory,
    /// n and both orders are as they were.
    value replace(list_node* n, value v);

    /// Erases the element at it. O(log n).
    void erase(pos_iterator it);
    /// Erases positions [first, last), which leave fewer than all. O(k log n).
    void erase_range(std::size_t first, std::size_t last);

    /// For tests: both trees' invariants, the two holding the same nodes
    /// with their current summaries and leaf records, labels increasing
    /// along the list. O(n log n).
    bool check() const;

private:
    /// Links node n into the list order before `before` and into the value
    /// order (at *val_hint, when the caller knows the place). Out of memory,
    /// neither tree holds it.
    void link(list_node* n, pos_iterator before, const val_iterator* val_hint);

    /// When two neighbours have adjacent labels, finds the smallest aligned
    /// label block around them whose density is below (1/t)^k and spreads
    /// its nodes evenly. Amortised O(log n) relabels per insert.
    void make_room(label_t anchor);

    /// A label for a node inserted before position p (p == size appends).
    label_t label_for(std::size_t p);
};

#if KVMODEL_DEFINITIONS
KVMODEL_DECL list_positional::list_positional(const list_positional& o) {
    // New nodes in list order; the value order mapped onto them.
    node_list made(o.size(), free_list_node);
    node_map to(o.size());
    for (const list_node* n : o.pos) {
        auto* c = new list_node(n->v, n->label);
        made.push(c);
        to.add(n, c);
    }
    pos.assign_sorted(o.size(), [&](std::size_t i) { return static_cast<list_node*>(made[i]); });
    auto val_it = o.vals.begin();
    vals.assign_sorted(o.size(), [&](std::size_t) {
        list_ref r = *val_it++;
        r.set_node(static_cast<list_node*>(to[r.node()]));
        return r;
    });
    made.release();
}

KVMODEL_DECL std::unique_ptr<list_positional> list_positional::make(std::vector<value>& values) {
    auto c = std::make_unique<list_positional>();
    std::size_t n = values.size();
    label_t step = std::min<label_t>(end_step, highest / (static_cast<label_t>(n) + 2));
    label_t l = first_label - (static_cast<label_t>(n) / 2) * step;
    // The value order (ties by position, as the labels break them), found
    // before the values move: the list's one compiled stable sort, not a
    // std::sort family over list_refs.
    std::vector<std::size_t> order = list_rank_order(values);
    node_list made(n, free_list_node);
    auto node = [&](std::size_t i) { return static_cast<list_node*>(made[i]); };
    try {
        // A value moves only into a node already allocated.
        for (value& v : values) {
            made.push(new list_node(std::move(v), l));
            l += step;
        }
        c->pos.assign_sorted(n, node);
        c->vals.assign_sorted(n, [&](std::size_t i) { return val_ref(node(order[i])); });
    } catch (...) {
        c->pos.clear(); // the nodes are made's until the end
        c->vals.clear();
        for (std::size_t i = 0; i < made.size(); ++i) values[i] = std::move(node(i)->v);
        throw;
    }
    made.release();
    return c;
}

KVMODEL_DECL list_positional::val_tree::position list_positional::bound(const value& v, bool or_equal) const {
    auto search = [&](const auto& p) {
        return or_equal ? vals.bound<btree_bound::upper>(p) : vals.bound<btree_bound::lower>(p);
    };
    if (const auto* i = std::get_if<std::int64_t>(&v.variant())) return search(int_probe{*i});
    return search(v);
}

KVMODEL_DECL void list_positional::insert(std::size_t p, value v) {
    label_t l = label_for(p);
    auto n = std::make_unique<list_node>(std::move(v), l);
    link(n.get(), p == pos.size() ? pos.end() : at(p), nullptr);
    (void)n.release();
}

KVMODEL_DECL std::size_t list_positional::insert_sorted(value v) {
    auto [hint, p] = vals.bound<btree_bound::upper>(list_exact_probe{&v});
    label_t l = label_for(p); // relabelling moves nothing: hint and p stay right
    auto n = std::make_unique<list_node>(std::move(v), l);
    link(n.get(), p == pos.size() ? pos.end() : at(p), &hint);
    (void)n.release();
    return p;
}

KVMODEL_DECL value list_positional::replace(list_node* n, value v) {
    auto at = val_it(n);
    // A stand-in for n with the new value asks where that value goes.
    alignas(node_align) list_node with(std::move(v), n->label);
    list_ref r = val_ref(&with);
    if (vals.fits_at(at, r)) {
        std::swap(n->v, with.v);
        r = val_ref(n);
        if (r.lead != at->lead || r.cls() != at->cls()) vals.update(at, r);
        return std::move(with.v);
    }
    // The stand-in's reference goes in first: the one step that may
    // throw, with n as it was. (It never ties with n: the values differ.)
    vals.insert(r);
    vals.erase(val_it(n));
    std::swap(n->v, with.v);
    auto it = val_it(&with); // (val_it's search: one instantiation fewer)
    vals.update(it, val_ref(n)); // and the separators naming the stand-in
    n->val_leaf = with.val_leaf;
    return std::move(with.v);
}

KVMODEL_DECL void list_positional::erase(pos_iterator it) {
    list_node* n = *it;
    vals.erase(val_it(n));
    pos.erase(it);
    delete n;
}

KVMODEL_DECL void list_positional::erase_range(std::size_t first, std::size_t last) {
    node_list gone(last - first); // a trim's few: no allocation
    for (auto it = at(first); gone.size() < last - first; ++it) gone.push(*it);
    pos.erase_ranks(first, last);
    for (std::size_t i = 0; i < gone.size(); ++i) {
        auto* n = static_cast<list_node*>(gone[i]);
        vals.erase(val_it(n));
        delete n;
    }
}

KVMODEL_DECL bool list_positional::check() const {
    if (!pos.check() || !vals.check() || pos.size() != vals.size()) return false;
    const list_node* prev = nullptr;
    for (auto it = pos.begin(); it != pos.end(); ++it) {
        list_node* n = *it;
        if (prev != nullptr && prev->label >= n->label) return false;
        prev = n;
        if (pos_it(n) != it) return false;
        auto v = val_it(n);
        if (v == vals.end() || v->node() != n) return false;
        list_ref r = val_ref(n);
        if (r.lead != v->lead || r.cls() != v->cls()) return false;
        if (vals.bound<btree_bound::lower, false>(r).it != v) return false;
    }
    return true;
}

KVMODEL_DECL void list_positional::link(list_node* n, pos_iterator before, const val_iterator* val_hint) {
    pos.insert(before, n);
    try {
        if (val_hint != nullptr) vals.insert(*val_hint, val_ref(n));
        else vals.insert(val_ref(n));
    } catch (...) {
        pos.erase(pos_it(n));
        throw;
    }
}

KVMODEL_DECL void list_positional::make_room(label_t anchor) {
    constexpr double t = 1.4;
    for (int k = 1; k <= 64; ++k) {
        label_t lo = k == 64 ? lowest : (anchor >> k) << k;
        label_t hi = k == 64 ? highest : lo + ((label_t{1} << k) - 1);
        auto first = pos.bound<btree_bound::lower>(list_label_probe{lo});
        auto last = pos.bound<btree_bound::upper>(list_label_probe{hi});
        std::size_t count = last.rank - first.rank;
        // Room for every node in the block plus the one being inserted,
        // at least 2 apart so a midpoint always exists afterwards.
        label_t spacing = (hi - lo) / (static_cast<label_t>(count) + 1);
        double capacity = std::pow(2.0 / t, static_cast<double>(k));
        if (spacing < 2 || (k < 64 && static_cast<double>(count + 1) > capacity)) continue;
        label_t l = lo;
        for (auto it = first.it; it != last.it; ++it) {
            l += spacing;
            (*it)->label = l;
        }
        return;
    }
    KVMODEL_ASSERT(false && "list labels exhausted");
}

KVMODEL_DECL list_positional::label_t list_positional::label_for(std::size_t p) {
    std::size_t n = pos.size();
    if (n == 0) return first_label;
    for (;;) {
        label_t a = p == 0 ? lowest : node_at(p - 1)->label;
        label_t b = p == n ? highest : node_at(p)->label;
        if (b - a >= 2) {
            if (p == n) return a + std::min(end_step, (b - a) / 2);
            if (p == 0) return b - std::min(end_step, (b - a) / 2);
            return a + (b - a) / 2;
        }
        make_room(a);
    }
}
#endif // KVMODEL_DEFINITIONS

/// A search value in the sorted layout's index: WILDCARDs in it match.
struct list_value_probe {
    const value* v;
};

/// The sorted layout's order: values, exactly; a probe matches WILDCARDs.
struct list_value_less {
    using is_transparent = void;
    KVMODEL_ALWAYS_INLINE bool operator()(const value& a, const value& b) const noexcept {
        return list_less(a, b, false);
    }
    KVMODEL_ALWAYS_INLINE bool operator()(const value& a, list_value_probe b) const noexcept {
        return list_less(a, *b.v, true);
    }
    KVMODEL_ALWAYS_INLINE bool operator()(list_value_probe a, const value& b) const noexcept {
        return list_less(*a.v, b, true);
    }
};

/// A sorted-list leaf moves an integer over an integer as a plain store, no
/// variant dispatch (ORDERED lists mostly hold integers, and a leaf insert or
/// erase moves up to a leaf's worth of them), and leaves a freed slot that
/// holds an integer as it is: it owns nothing.
template <>
struct btree_slot<value> {
    static constexpr bool live_separators = false;
    KVMODEL_ALWAYS_INLINE static void move(value& to, value& from) {
        auto* i = std::get_if<std::int64_t>(&to.variant());
        const auto* j = std::get_if<std::int64_t>(&from.variant());
        if (i != nullptr && j != nullptr) *i = *j;
        else to = std::move(from);
    }
    KVMODEL_ALWAYS_INLINE static void vacate(value& v) {
        if (!std::holds_alternative<std::int64_t>(v.variant())) v = value{};
    }
};

struct list_impl {
    /// The sorted layout: equal values in list order (non-unique inserts
    /// go after their equals, or exactly at a valid hint). Leaves of 32
    /// values (40 bytes each), inner nodes of 32 children.
    using sorted_container = counted_btree<value, list_value_less, 32, 32>;
    using sorted_iterator = sorted_container::const_iterator;

    /// Flat lists at most this long answer rank questions by scanning; longer
    /// ones build the indices on a middle insert or on build_index().
    static constexpr std::size_t flat_max = 64;

    // At most one of the three holds the elements (none: an empty flat list).
    std::vector<value> flat;                // the elements, while there is no index
    std::unique_ptr<list_positional> idx;   // the positional layout
    std::unique_ptr<sorted_container> srt;  // the sorted layout's one index
    // The elements' packed bytes (packed_size), kept by every write: a list's
    // packed size is O(1), and so a record's.
    std::size_t body = 0;

    list_impl() = default;
    /// A copy of *o, or (o null) an empty list: list::mut_slow and sort
    /// make theirs with one make_shared<list_impl>(const list_impl*&) (each
    /// distinct make_shared signature is ~10 more functions in a header-only
    /// file).
    explicit list_impl(const list_impl* o)
        : flat(o != nullptr ? o->flat : std::vector<value>())
        , body(o != nullptr ? o->body : 0) {
        if (o == nullptr) return;
        if (o->idx) idx = std::make_unique<list_positional>(*o->idx);
        if (o->srt) srt = std::make_unique<sorted_container>(*o->srt);
    }
    list_impl(const list_impl& o)
        : list_impl(&o) {}
    list_impl& operator=(const list_impl&) = delete;
    list_impl(list_impl&&) = delete;
    list_impl& operator=(list_impl&&) = delete;
    ~list_impl() = default;

    bool indexed() const noexcept { return idx || srt; }

    static std::size_t body_of(const std::vector<value>& values) noexcept;
    /// Runs erase, which removes elements of b packed bytes in all, and
    /// keeps the body. An erase across a sorted layout's leaves that runs
    /// out of memory may leave part done: the body is then counted anew.
    template <class Erase>
    void erase_then(Erase erase, std::size_t b) {
        try {
            erase();
        } catch (...) {
            body = 0;
            if (srt) {
                for (const value& v : *srt) body += packed_size(v);
            } else if (idx) {
                for (const list_node* n : idx->pos) body += packed_size(n->v);
            } else {
                body = body_of(flat);
            }
            throw;
        }
        body -= b;
    }

    KVMODEL_ALWAYS_INLINE std::size_t size() const noexcept {
        if (!indexed()) return flat.size();
        return idx ? idx->size() : srt->size();
    }
    /// The sorted layout's element at pos (= rank), the ends in O(1).
    sorted_iterator sorted_at(std::size_t pos) const {
        if (pos == 0) return srt->begin();
        if (pos + 1 == srt->size()) return srt->last();
        return srt->nth(pos);
    }
    const value& get(std::size_t pos) const;

    static bool exact_less(const value& a, const value& b) noexcept {
        return list_less(a, b, false);
    }
    /// True when v may sit between the elements around `it` (the sorted
    /// layout's node at some position, or end()) without unsorting the list.
    bool fits_before(sorted_iterator it, const value& v) const;

    /// Moves the flat elements into an index: the sorted layout when they are
    /// sorted, else the positional one. O(n log n). Out of memory, the list
    /// stays as it was (flat).
    void build();
    /// Moves the elements (flat or sorted) into the positional layout: a write
    /// is about to put them out of order. O(n log n). Out of memory, the list
    /// stays as it was.
    void build_positional();

    void insert(std::size_t pos, value v);

    /// Inserts v after every element not above it, in a list kept sorted
    /// (an ORDERED one); returns its position. O(log n): one search in the
    /// value index, whose neighbours are the position neighbours too.
    std::size_t insert_sorted(value v);

    // ---- rank questions on a flat list, by scanning (small lists, or lists
    // nobody asked to index).

    /// Positions in rank order (stable: ties by position). O(n log n).
    std::vector<std::size_t> flat_rank_order() const { return list_rank_order(flat); }
    std::size_t flat_rank_of(std::size_t i) const;
    std::size_t flat_count(const value& v, bool or_equal) const;
};

#if KVMODEL_DEFINITIONS
KVMODEL_DECL std::size_t list_impl::body_of(const std::vector<value>& values) noexcept {
    std::size_t b = 0;
    for (const value& v : values) b += packed_size(v);
    return b;
}

KVMODEL_DECL const value& list_impl::get(std::size_t pos) const {
    if (idx) return idx->node_at(pos)->v;
    if (srt) return *sorted_at(pos);
    return flat[pos];
}

KVMODEL_DECL bool list_impl::fits_before(sorted_iterator it, const value& v) const {
    if (it != srt->end() && exact_less(*it, v)) return false;
    if (it == srt->begin()) return true;
    sorted_iterator before = it;
    return !exact_less(v, *--before);
}

KVMODEL_DECL void list_impl::build() {
    if (indexed()) return;
    bool sorted = true; // std::is_sorted, written out (fewer functions)
    for (std::size_t i = 1; sorted && i < flat.size(); ++i)
        sorted = !exact_less(flat[i], flat[i - 1]);
    if (sorted) {
        srt = std::make_unique<sorted_container>(std::move(flat)); // O(n); gives back on failure
    } else {
        idx = list_positional::make(flat);
    }
    flat = {};
}

KVMODEL_DECL void list_impl::build_positional() {
    if (idx) return;
    if (srt) {
        // Copies, so that the sorted layout stands until the new one does.
        std::vector<value> items;
        items.reserve(srt->size());
        for (const value& v : *srt) items.push_back(v);
        idx = list_positional::make(items);
        srt.reset();
    } else {
        idx = list_positional::make(flat);
        flat = {};
    }
}

KVMODEL_DECL void list_impl::insert(std::size_t pos, value v) {
    if (!indexed()) {
        if (pos == flat.size()) {
            flat.push_back(std::move(v));
            return;
        }
        if (flat.size() < flat_max) {
            flat.insert(flat.begin() + static_cast<std::ptrdiff_t>(pos), std::move(v));
            return;
        }
        build(); // a middle insert into a long vector would shift it all
    }
    if (srt) {
        // A valid hint is where a non-unique index links the node.
        auto it = pos == srt->size() ? srt->end() : sorted_at(pos);
        if (fits_before(it, v)) {
            srt->insert(it, std::move(v));
            return;
        }
        build_positional();
    }
    idx->insert(pos, std::move(v));
}

KVMODEL_DECL std::size_t list_impl::insert_sorted(value v) {
    if (!indexed()) {
        // std::upper_bound's search, written out (fewer functions).
        std::size_t pos = 0;
        for (std::size_t n = flat.size(); n > 0;) {
            std::size_t half = n / 2;
            if (exact_less(v, flat[pos + half])) {
                n = half;
            } else {
                pos += half + 1;
                n -= half + 1;
            }
        }
        if (pos == flat.size() || flat.size() < flat_max) {
            flat.insert(flat.begin() + static_cast<std::ptrdiff_t>(pos), std::move(v));
            return pos;
        }
        build();
    }
    if (srt) {
        // A non-unique index inserts after the equal values: one search.
        return srt->insert(std::move(v)).rank;
    }
    return idx->insert_sorted(std::move(v));
}

KVMODEL_DECL std::vector<std::size_t> list_rank_order(const std::vector<value>& values) {
    std::vector<const value*> v(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) v[i] = &values[i];
    return stable_value_order(v, true);
}

KVMODEL_DECL void stable_sort_values(std::vector<value>& values) {
    std::vector<std::size_t> order = list_rank_order(values);
    std::vector<value> sorted;
    sorted.reserve(values.size());
    for (std::size_t i : order) sorted.push_back(std::move(values[i]));
    values = std::move(sorted);
}

KVMODEL_DECL std::vector<std::size_t> stable_value_order(const std::vector<const value*>& v,
                                                         bool list_order) {
    const std::size_t n = v.size();
    std::vector<std::size_t> pos(n);
    for (std::size_t i = 0; i < n; ++i)
        pos[i] = i;
    auto less = [&](std::size_t a, std::size_t b) {
        return (list_order ? list_compare(*v[a], *v[b], false)
                           : cdt_compare(*v[a], *v[b], false)) < 0;
    };
    std::vector<std::size_t> tmp(n);
    // Each pass merges runs from one buffer into the other; the buffers
    // trade places by pointer (vector::swap was three functions more).
    std::size_t* from = pos.data();
    std::size_t* to = tmp.data();
    for (std::size_t w = 1; w < n; w *= 2) {
        for (std::size_t lo = 0; lo < n; lo += 2 * w) {
            const std::size_t mid = std::min(lo + w, n);
            const std::size_t hi = std::min(lo + 2 * w, n);
            std::size_t i = lo;
            std::size_t j = mid;
            std::size_t t = lo;
            if (mid < hi && less(from[mid], from[mid - 1])) {
                while (i < mid && j < hi)
                    to[t++] = less(from[j], from[i]) ? from[j++] : from[i++];
            }
            while (i < mid)
                to[t++] = from[i++];
            while (j < hi)
                to[t++] = from[j++];
        }
        std::size_t* merged = to;
        to = from;
        from = merged;
    }
    if (from != pos.data()) return tmp;
    return pos;
}

KVMODEL_DECL std::size_t list_impl::flat_rank_of(std::size_t i) const {
    std::size_t r = 0;
    for (std::size_t j = 0; j < flat.size(); ++j) {
        int c = list_compare(flat[j], flat[i], false);
        if (c < 0 || (c == 0 && j < i)) ++r;
    }
    return r;
}

KVMODEL_DECL std::size_t list_impl::flat_count(const value& v, bool or_equal) const {
    std::size_t r = 0;
    for (const value& e : flat) {
        int c = list_compare(e, v, true);
        if (c < 0 || (or_equal && c == 0)) ++r;
    }
    return r;
}
#endif // KVMODEL_DEFINITIONS

/// Lists of integers and strings (the usual map values: [type, attrs], [ts,
/// payload]) compared element by element, with compare()'s rules: a WILDCARD
/// ends the comparison as equal, types order by Aerospike's type order, then
/// length. False when an element needs the general comparison.
KVMODEL_ALWAYS_INLINE inline bool map_compare_flat_lists(const list& a,
                                            const list& b,
                                            bool wildcard_matches,
                                            int& out) noexcept; // defined once list is complete

/// One element step of a list comparison (defined once list is complete).
KVMODEL_ALWAYS_INLINE inline bool map_compare_list_element(
    const value& ea, const value& eb, bool wildcard_matches, int& out, bool& stop) noexcept;

/// The out-of-line part of map_compare: two strings, two lists of integers
/// and strings, and everything else (WILDCARD included) through the general
/// comparison. Kept out of line so the integer case stays small enough to
/// inline into every tree search.
KVMODEL_NOINLINE inline int
map_compare_general(const value& a, const value& b, bool wildcard_matches) noexcept {
    const value::storage& x = a.variant();
    const value::storage& y = b.variant();
    int c = 0;
    if (compare_if_strings(x, y, c)) return c;
    const auto* l = std::get_if<list>(&x);
    const auto* m = std::get_if<list>(&y);
    if (l != nullptr && m != nullptr && map_compare_flat_lists(*l, *m, wildcard_matches, c))
        return c;
    return cdt_compare(a, b, wildcard_matches);
}

/// cdt_compare with the common map cases fast: two integers inline (the usual
/// keys), two strings and two lists of them out of line (map_compare_general).
KVMODEL_ALWAYS_INLINE inline int
map_compare(const value& a, const value& b, bool wildcard_matches) noexcept {
    int c = 0;
    if (compare_if_ints(a.variant(), b.variant(), c)) return c;
    return map_compare_general(a, b, wildcard_matches);
}

/// map_compare for two stored values (the value index's own order): two
/// integers and two flat lists of integers and strings inline.
KVMODEL_ALWAYS_INLINE inline int map_compare_values(const value& a, const value& b) noexcept {
    const value::storage& x = a.variant();
    const value::storage& y = b.variant();
    int c = 0;
    if (compare_if_ints(x, y, c)) return c;
    const auto* l = std::get_if<list>(&x);
    const auto* m = std::get_if<list>(&y);
    if (l != nullptr && m != nullptr) {
        if (map_compare_flat_lists(*l, *m, false, c)) return c;
        return cdt_compare(a, b, false); // not flat: map_compare_general would try again
    }
    return map_compare_general(a, b, false);
}

/// a < b in map_compare's order, with two integers compared inline.
KVMODEL_ALWAYS_INLINE inline bool
map_less(const value& a, const value& b, bool wildcard_matches) noexcept {
    const auto* i = std::get_if<std::int64_t>(&a.variant());
    const auto* j = std::get_if<std::int64_t>(&b.variant());
    if (i != nullptr && j != nullptr) return *i < *j;
    return map_compare_general(a, b, wildcard_matches) < 0;
}

/// A flat-list probe (the usual value-range bound, [x] or [x, "y"]): its
/// elements resolved once instead of on every comparison; `whole` is the probe
/// value, for what the element fast path does not handle.
struct map_list_probe {
    const value* whole;
    const value* items;
    std::size_t n;
    bool int_lead = false; // items[0] is an integer: stored leads decide most comparisons
    std::int64_t lead = 0; // that integer
};

/// A map entry as the map holds it: the entry, and for a list value the lead
/// of that list (list_lead), so the value order places most list values
/// without leaving the node (the list's elements are two allocations away).
/// Every write of val goes through set_val or take_entry, which keep the lead.
struct map_node : map_entry, tagged_node {
    std::int64_t lead = 0; // list_lead(val) when val is a list, else unused
    // The leaves of the map's key and value trees holding this node's
    // references (counted_btree's tracks_leaf): an entry is found in either
    // order without a search.
    const void* key_leaf = nullptr;
    const void* val_leaf = nullptr;

    template <class K, class V>
    map_node(K&& k, V&& v)
        : map_entry{std::forward<K>(k), std::forward<V>(v)}, lead(lead_of(val)) {}

    template <class V>
    void set_val(V&& v) {
        val = std::forward<V>(v);
        lead = lead_of(val);
    }
    /// Takes the key, value and lead of o (a stand-in built from this node's key).
    void take_entry(map_node& o) noexcept {
        key = std::move(o.key);
        val = std::move(o.val);
        lead = o.lead;
    }
    /// True when both values are lists, whose leads then order them first.
    bool lists_with(const map_node& o) const noexcept {
        return val.type() == value_type::list && o.val.type() == value_type::list;
    }

private:
    static std::int64_t lead_of(const value& v) {
        const auto* l = std::get_if<list>(&v.variant());
        return l != nullptr ? list_lead(*l) : 0;
    }
};

/// map_compare(stored, *p.whole, true) for a list probe (defined once list
/// is complete).
KVMODEL_ALWAYS_INLINE inline int
map_compare_list_probe(const value& stored, const map_list_probe& p) noexcept;

/// The elements of a flat (unindexed) non-empty list and their count (in n),
/// else nullptr (defined with map_access, which may look inside a list).
KVMODEL_ALWAYS_INLINE inline const value* map_flat_items(const list& l, std::size_t& n) noexcept;

/// Calls f with the cheapest probe for key k: a int_probe for an integer,
/// else k itself.
template <class F>
decltype(auto) map_key_probe(const value& k, F&& f) {
    if (const auto* i = std::get_if<std::int64_t>(&k.variant())) return f(int_probe{*i});
    return f(k);
}

/// Calls f with the cheapest probe for value v in the value index: integers
/// and flat lists resolved once, anything else as v itself.
template <class F>
decltype(auto) map_value_probe(const value& v, F&& f) {
    if (const auto* i = std::get_if<std::int64_t>(&v.variant())) return f(int_probe{*i});
    if (const list* l = std::get_if<list>(&v.variant()); l != nullptr) {
        std::size_t n = 0;
        if (const value* items = map_flat_items(*l, n)) {
            map_list_probe p{&v, items, n};
            if (const auto* i = std::get_if<std::int64_t>(&items[0].variant())) {
                p.int_lead = true;
                p.lead = *i;
            }
            return f(p);
        }
    }
    return f(v);
}

/// Two entries in key order (exact: a WILDCARD key is a key like any other).
struct map_key_less {
    KVMODEL_ALWAYS_INLINE bool operator()(const map_entry& a, const map_entry& b) const noexcept {
        return map_less(a.key, b.key, false);
    }
};

/// Two entries in value order, ties by key.
struct map_value_less {
    KVMODEL_ALWAYS_INLINE bool operator()(const map_entry& a, const map_entry& b) const noexcept {
        int c = map_compare_values(a.val, b.val);
        return c != 0 ? c < 0 : map_less(a.key, b.key, false);
    }
    /// Two nodes: two list values by their cached leads first.
    KVMODEL_ALWAYS_INLINE bool operator()(const map_node& a, const map_node& b) const noexcept {
        if (a.lead != b.lead && a.lists_with(b)) return a.lead < b.lead;
        return (*this)(static_cast<const map_entry&>(a), static_cast<const map_entry&>(b));
    }
};

/// An entry's place in one of a map's two orders (tagged_ref): its node, and
/// the summary of its key or its value.
using map_ref = tagged_ref<map_node>;
static_assert(sizeof(map_ref) == sizeof(std::int64_t) + sizeof(void*));

inline map_ref map_key_ref(map_node* n) noexcept { return ref_of(n->key, n); }
/// A list value's lead comes from the node's cache: the list's elements are
/// two allocations away.
inline map_ref map_val_ref(map_node* n) noexcept {
    const value::storage& x = n->val.variant();
    if (std::holds_alternative<list>(x)) return {n->lead, x.index(), n};
    return ref_of(n->val, n);
}

/// The key order on map_refs, and its searches (as map_key_less).
struct map_key_ref_less {
    KVMODEL_ALWAYS_INLINE bool operator()(const map_ref& a, const map_ref& b) const noexcept {
        if (int c = ref_order(a, b)) return c < 0;
        return a.node() != b.node() && map_less(a.node()->key, b.node()->key, false);
    }
    KVMODEL_ALWAYS_INLINE bool operator()(const map_ref& a, int_probe k) const noexcept {
        return ref_below_int(a, k.v);
    }
    KVMODEL_ALWAYS_INLINE bool operator()(int_probe k, const map_ref& b) const noexcept {
        return ref_above_int(b, k.v);
    }
    KVMODEL_ALWAYS_INLINE bool operator()(const map_ref& a, const value& k) const noexcept {
        return map_less(a.node()->key, k, true);
    }
    KVMODEL_ALWAYS_INLINE bool operator()(const value& k, const map_ref& b) const noexcept {
        return map_less(k, b.node()->key, true);
    }
};

/// The value order on map_refs (ties by key), and its searches (as map_value_less).
struct map_val_ref_less {
    KVMODEL_ALWAYS_INLINE bool operator()(const map_ref& a, const map_ref& b) const noexcept {
        if (int c = ref_order(a, b)) return c < 0;
        // Equal summaries: equal leads, so the nodes' cached leads say nothing.
        return a.node() != b.node() &&
               map_value_less{}(static_cast<const map_entry&>(*a.node()),
                                static_cast<const map_entry&>(*b.node()));
    }
    KVMODEL_ALWAYS_INLINE bool operator()(const map_ref& a, int_probe v) const noexcept {
        return ref_below_int(a, v.v);
    }
    KVMODEL_ALWAYS_INLINE bool operator()(int_probe v, const map_ref& b) const noexcept {
        return ref_above_int(b, v.v);
    }
    // A flat-list probe against a summary: another type orders by type (a
    // stored WILDCARD matches); a list whose lead differs from an integer
    // lead orders by it; only then the node's list.
    KVMODEL_ALWAYS_INLINE bool operator()(const map_ref& a, const map_list_probe& v) const noexcept {
        if (a.cls() != list_cls) return a.cls() < list_cls;
        if (v.int_lead && a.lead != v.lead) return a.lead < v.lead;
        return map_compare_list_probe(a.node()->val, v) < 0;
    }
    KVMODEL_ALWAYS_INLINE bool operator()(const map_list_probe& v, const map_ref& b) const noexcept {
        if (b.cls() != list_cls) return b.cls() > list_cls && b.cls() != wildcard_cls;
        if (v.int_lead && b.lead != v.lead) return v.lead < b.lead;
        return map_compare_list_probe(b.node()->val, v) > 0;
    }
    KVMODEL_ALWAYS_INLINE bool operator()(const map_ref& a, const value& v) const noexcept {
        return map_less(a.node()->val, v, true);
    }
    KVMODEL_ALWAYS_INLINE bool operator()(const value& v, const map_ref& b) const noexcept {
        return map_less(v, b.node()->val, true);
    }
};

/// Iterates one of a map's orders, yielding the entries (map_node) themselves.
template <class Tree>
class map_ref_iterator {
public:
    using iterator_category = std::bidirectional_iterator_tag;
    using value_type = map_node;
    using difference_type = std::ptrdiff_t;
    using pointer = const map_node*;
    using reference = const map_node&;
    using base_type = typename Tree::const_iterator;

    map_ref_iterator() = default;
    explicit map_ref_iterator(base_type it) : m_it(it) {}
    reference operator*() const { return *m_it->node(); }
    pointer operator->() const { return m_it->node(); }
    map_ref_iterator& operator++() { ++m_it; return *this; }
    map_ref_iterator operator++(int) { auto t = *this; ++m_it; return t; }
    map_ref_iterator& operator--() { --m_it; return *this; }
    map_ref_iterator operator--(int) { auto t = *this; --m_it; return t; }
    friend bool operator==(const map_ref_iterator& a, const map_ref_iterator& b) {
        return a.m_it == b.m_it;
    }
    base_type base() const { return m_it; }

private:
    base_type m_it{};
};

/// The entries, each a node of its own (so references to entries stay valid
/// while the trees reshape), and two counted B+trees of references to them:
/// keys (key order: index) and vals (value then key order: rank). Every
/// question by index or rank is one descent of a tree a few levels deep.
struct map_impl {
    using key_tree =
        counted_btree<map_ref, map_key_ref_less, 32, 32, ref_slot<map_node, &map_node::key_leaf>>;
    using val_tree =
        counted_btree<map_ref, map_val_ref_less, 32, 32, ref_slot<map_node, &map_node::val_leaf>>;
    using key_iterator = map_ref_iterator<key_tree>;
    using val_iterator = map_ref_iterator<val_tree>;
    key_tree keys;
    val_tree vals;
    // The entries' packed bytes (keys and values, packed_size), kept by every
    // write: a map's packed size is O(1), and so a record's.
    std::size_t body = 0;

    map_impl() = default;
    /// A copy of *o, or (o null) an empty map: map::mut makes either with
    /// one make_shared<map_impl>(const map_impl*&) (each distinct make_shared
    /// signature is ~10 more functions in a header-only file).
    explicit map_impl(const map_impl* o);
    map_impl(const map_impl& o)
        : map_impl(&o) {}
    map_impl& operator=(const map_impl&) = delete;
    ~map_impl() {
        for (const map_ref& r : keys) delete r.node();
    }
    std::size_t size() const noexcept { return keys.size(); }

    /// Where node n, an entry of the map, sits in each order: a scan of the
    /// leaf it records, no comparison. O(LeafCap); with the rank,
    /// O(height * InnerCap) more.
    key_tree::const_iterator key_it(const map_node* n) const {
        return keys.iterator_in(n->key_leaf, [n](const map_ref& r) { return r.node() == n; });
    }
    val_tree::const_iterator val_it(const map_node* n) const {
        return vals.iterator_in(n->val_leaf, [n](const map_ref& r) { return r.node() == n; });
    }
    std::size_t index_of(const map_node* n) const { return keys.rank(key_it(n)); }
    std::size_t rank_of(const map_node* n) const { return vals.rank(val_it(n)); }

    /// Adds a node whose key is absent, just before hint (the key's lower bound). O(log n).
    map_node* insert(key_tree::const_iterator hint, std::unique_ptr<map_node> n);
    /// Writes node n's value: in place when it keeps n's rank, else n moves
    /// in the value order. O(log n).
    /// A failed write (bad_alloc) leaves n and both orders as they were.
    void set_val(map_node* n, value v);
    /// Key k's entry (a WILDCARD in k matches: the first match) and its
    /// index, or end(). O(log n).
    key_tree::position find(const value& k) const;
    /// The number of keys below k, or (or_equal) not above it. O(log n).
    std::size_t key_rank(const value& k, bool or_equal) const;
    /// The number of values below v, or (or_equal) not above it. O(log n).
    std::size_t value_rank(const value& v, bool or_equal) const;
    /// Unlinks the entry at it from both orders and frees it. O(log n).
    void erase(key_tree::const_iterator it);
    static std::size_t entry_bytes(const map_entry& e) noexcept {
        return packed_size(e.key) + packed_size(e.val);
    }
    /// Erases indexes (ranks) [first, last), which leave fewer than all. O(k log n).
    void erase_indexes(std::size_t first, std::size_t last);
    void erase_ranks(std::size_t first, std::size_t last);

private:
    key_tree::const_iterator it_in(const key_tree&, const map_node* n) const { return key_it(n); }
    val_tree::const_iterator it_in(const val_tree&, const map_node* n) const { return val_it(n); }
    // Positions [first, last) of one tree: erased there as a run, then each
    // from the other tree (found by its node, which is freed only then).
    template <class From, class Other>
    void erase_run(From& from, Other& other, std::size_t first, std::size_t last);
};

#if KVMODEL_DEFINITIONS
KVMODEL_DECL map_impl::map_impl(const map_impl* from) : body(from != nullptr ? from->body : 0) {
    if (from == nullptr) return;
    const map_impl& o = *from;
    // New nodes in key order; the value order mapped onto them.
    node_list made(o.size(), [](void* n) noexcept { delete static_cast<map_node*>(n); });
    node_map to(o.size());
    for (const map_ref& r : o.keys) {
        auto* c = new map_node(*r.node());
        made.push(c);
        to.add(r.node(), c);
    }
    auto key_it = o.keys.begin();
    keys.assign_sorted(o.size(), [&](std::size_t i) {
        map_ref r = *key_it++;
        r.set_node(static_cast<map_node*>(made[i]));
        return r;
    });
    auto val_it = o.vals.begin();
    vals.assign_sorted(o.size(), [&](std::size_t) {
        map_ref r = *val_it++;
        r.set_node(static_cast<map_node*>(to[r.node()]));
        return r;
    });
    made.release();
}

KVMODEL_DECL map_node* map_impl::insert(key_tree::const_iterator hint, std::unique_ptr<map_node> n) {
    map_node* p = n.get();
    keys.insert(hint, map_key_ref(p));
    try {
        vals.insert(map_val_ref(p));
    } catch (...) {
        keys.erase(key_it(p));
        throw;
    }
    body += entry_bytes(*p);
    return n.release();
}

KVMODEL_DECL void map_impl::set_val(map_node* n, value v) {
    const std::size_t new_body = body - packed_size(n->val) + packed_size(v);
    auto at = val_it(n);
    // A stand-in for n with the new value (n's key lent to it: moves, no
    // allocation) asks where that value goes.
    alignas(node_align) map_node with(std::move(n->key), std::move(v));
    map_ref r = map_val_ref(&with);
    if (vals.fits_at(at, r)) {
        n->take_entry(with);
        r = map_val_ref(n);
        if (r.lead != at->lead || r.cls() != at->cls()) vals.update(at, r);
        body = new_body;
        return;
    }
    // n moves in the value order. The stand-in's reference goes in first:
    // the one step that may throw, with n as it was. (Its comparisons never
    // read n's key: the old and new values differ, or n would fit.)
    try {
        vals.insert(r);
    } catch (...) {
        n->key = std::move(with.key);
        throw;
    }
    vals.erase(val_it(n));
    n->take_entry(with);
    auto it = val_it(&with); // (val_it's search: one instantiation fewer)
    vals.update(it, map_val_ref(n)); // and the separators naming the stand-in
    n->val_leaf = with.val_leaf;
    body = new_body;
}

KVMODEL_DECL map_impl::key_tree::position map_impl::find(const value& k) const {
    return map_key_probe(k, [&](const auto& p) {
        key_tree::position pos = keys.bound<btree_bound::lower>(p);
        if (pos.it != keys.end() && map_key_ref_less{}(p, *pos.it)) pos.it = keys.end();
        return pos;
    });
}

// (One probe dispatch each for both directions: per call site, map_key_probe
// and its lambda are three functions in a header-only file.)
KVMODEL_DECL std::size_t map_impl::key_rank(const value& k, bool or_equal) const {
    return map_key_probe(k, [&](const auto& p) {
        return or_equal ? keys.bound<btree_bound::upper>(p).rank
                        : keys.bound<btree_bound::lower>(p).rank;
    });
}
KVMODEL_DECL std::size_t map_impl::value_rank(const value& v, bool or_equal) const {
    return map_value_probe(v, [&](const auto& p) {
        return or_equal ? vals.bound<btree_bound::upper>(p).rank
                        : vals.bound<btree_bound::lower>(p).rank;
    });
}

KVMODEL_DECL void map_impl::erase(key_tree::const_iterator it) {
    map_node* n = it->node();
    vals.erase(val_it(n));
    keys.erase(it);
    body -= entry_bytes(*n);
    delete n;
}

KVMODEL_DECL void map_impl::erase_indexes(std::size_t first, std::size_t last) {
    erase_run(keys, vals, first, last);
}
KVMODEL_DECL void map_impl::erase_ranks(std::size_t first, std::size_t last) {
    erase_run(vals, keys, first, last);
}

template <class From, class Other>
void map_impl::erase_run(From& from, Other& other, std::size_t first, std::size_t last) {
    node_list gone(last - first); // a trim's few: no allocation
    for (auto it = from.nth(first); gone.size() < last - first; ++it) gone.push(it->node());
    from.erase_ranks(first, last);
    for (std::size_t i = 0; i < gone.size(); ++i) {
        auto* n = static_cast<map_node*>(gone[i]);
        other.erase(it_in(other, n));
        body -= entry_bytes(*n);
        delete n;
    }
}
#endif // KVMODEL_DEFINITIONS

} // namespace detail

// ---------------------------------------------------------------- list

/// Iterates a list in list order. Stepping is O(1) amortised; on an indexed
/// list, jumps (+=, -, [], <=>) are O(log n) through the position (or sorted)
/// index. Any write to the list invalidates its iterators and references to
/// its elements (a sorted list's values move inside and between leaves).
class list::const_iterator {
public:
    using index_type = detail::list_positional::pos_tree;
    using base = index_type::const_iterator;
    using sorted_type = detail::list_impl::sorted_container;
    using sorted_base = sorted_type::const_iterator;
    using iterator_category = std::random_access_iterator_tag;
    using value_type = kvmodel::value;
    using difference_type = std::ptrdiff_t;
    using pointer = const kvmodel::value*;
    using reference = const kvmodel::value&;

    const_iterator() = default;
    explicit const_iterator(const kvmodel::value* flat) : m_flat(flat) {}
    const_iterator(const index_type* idx, base b) : m_idx(idx), m_it(b) {}
    const_iterator(const sorted_type* srt, sorted_base b) : m_srt(srt), m_sit(b) {}
    reference operator*() const { return m_idx ? (*m_it)->v : m_srt ? *m_sit : *m_flat; }
    pointer operator->() const { return &**this; }
    reference operator[](difference_type n) const { return *(*this + n); }
    const_iterator& operator++() {
        if (m_idx) ++m_it;
        else if (m_srt) ++m_sit;
        else ++m_flat;
        return *this;
    }
    const_iterator operator++(int) { auto t = *this; ++*this; return t; }
    const_iterator& operator--() {
        if (m_idx) --m_it;
        else if (m_srt) --m_sit;
        else --m_flat;
        return *this;
    }
    const_iterator operator--(int) { auto t = *this; --*this; return t; }
    const_iterator& operator+=(difference_type n) {
        if (m_idx) m_it = m_idx->nth(static_cast<std::size_t>(position() + n));
        else if (m_srt) m_sit = m_srt->nth(static_cast<std::size_t>(position() + n));
        else m_flat += n;
        return *this;
    }
    const_iterator& operator-=(difference_type n) { return *this += -n; }
    friend const_iterator operator+(const_iterator a, difference_type n) { return a += n; }
    friend const_iterator operator+(difference_type n, const_iterator a) { return a += n; }
    friend const_iterator operator-(const_iterator a, difference_type n) { return a -= n; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
        return a.m_idx || a.m_srt ? a.position() - b.position() : a.m_flat - b.m_flat;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
        if (a.m_idx) return a.m_it == b.m_it;
        if (a.m_srt) return a.m_sit == b.m_sit;
        return a.m_flat == b.m_flat;
    }
    friend std::strong_ordering operator<=>(const const_iterator& a, const const_iterator& b) {
        return (a - b) <=> 0;
    }

private:
    difference_type position() const {
        return static_cast<difference_type>(m_idx ? m_idx->rank(m_it) : m_srt->rank(m_sit));
    }

    const kvmodel::value* m_flat = nullptr; // flat list: the element
    const index_type* m_idx = nullptr;      // positional layout: the position index
    base m_it{};
    const sorted_type* m_srt = nullptr;     // sorted layout: its index
    sorted_base m_sit{};
};

#if KVMODEL_DEFINITIONS
KVMODEL_DECL list::list(std::initializer_list<value> items)
    : list(std::vector<value>(items.begin(), items.end())) {}
KVMODEL_DECL list::list(std::vector<value> items, list_order order) : m_order(order) {
    if (items.empty()) return;
    if (order == list_order::ordered) detail::stable_sort_values(items);
    std::size_t body = detail::list_impl::body_of(items);
    auto& im = mut();
    im.flat = std::move(items);
    im.body = body;
}
#endif // KVMODEL_DEFINITIONS
KVMODEL_ALWAYS_INLINE inline std::size_t list::size() const noexcept {
    return m_impl ? m_impl->size() : 0;
}
// Inline for a flat list (the elements of a short or unranked list are one
// vector away); an indexed one descends a tree out of line.
KVMODEL_ALWAYS_INLINE inline const value& list::operator[](std::size_t i) const {
    KVMODEL_ASSERT(i < size());
    const detail::list_impl& im = *m_impl;
    return im.indexed() ? im.get(i) : im.flat[i];
}
KVMODEL_ALWAYS_INLINE inline detail::list_impl& list::mut() {
    if (m_impl && detail::sole_owner(m_impl)) return *m_impl;
    return mut_slow();
}
#if KVMODEL_DEFINITIONS
KVMODEL_NOINLINE KVMODEL_DECL detail::list_impl& list::mut_slow() {
    // Only reached with no impl or a shared one (mut() answers a sole owner).
    const detail::list_impl* from = m_impl.get();
    m_impl = std::make_shared<detail::list_impl>(from);
    return *m_impl;
}
KVMODEL_DECL bool list::has_index() const noexcept { return m_impl && m_impl->indexed(); }
KVMODEL_DECL void list::build_index() {
    if (size() > detail::list_impl::flat_max && !has_index()) mut().build();
}
KVMODEL_DECL std::size_t list::rank_of(std::size_t i) const {
    KVMODEL_ASSERT(i < size());
    const auto& im = *m_impl;
    if (im.srt) return i;
    if (!im.idx) return im.flat_rank_of(i);
    return im.idx->rank_of(im.idx->node_at(i));
}
KVMODEL_DECL std::size_t list::index_at_rank(std::size_t r) const {
    KVMODEL_ASSERT(r < size());
    if (m_impl->srt) return r;
    if (!m_impl->idx) return m_impl->flat_rank_order()[r];
    const auto& ix = *m_impl->idx;
    return ix.position_of(ix.rank_at(r)->node());
}
KVMODEL_DECL std::size_t list::count_less(const value& v) const {
    if (!m_impl) return 0;
    if (const auto& s = m_impl->srt)
        return s->bound<detail::btree_bound::lower>(detail::list_value_probe{&v}).rank;
    if (!m_impl->idx) return m_impl->flat_count(v, false);
    return m_impl->idx->count_below(v, false);
}
KVMODEL_DECL std::size_t list::count_less_equal(const value& v) const {
    if (!m_impl) return 0;
    if (const auto& s = m_impl->srt)
        return s->bound<detail::btree_bound::upper>(detail::list_value_probe{&v}).rank;
    if (!m_impl->idx) return m_impl->flat_count(v, true);
    return m_impl->idx->count_below(v, true);
}
KVMODEL_DECL std::vector<std::size_t> list::indexes_by_rank(std::size_t first, std::size_t last) const {
    std::vector<std::size_t> out;
    last = std::min(last, size());
    if (first >= last) return out;
    out.reserve(last - first);
    if (m_impl->srt) {
        for (std::size_t r = first; r < last; ++r) out.push_back(r);
        return out;
    }
    if (!m_impl->idx) {
        std::vector<std::size_t> order = m_impl->flat_rank_order();
        for (std::size_t r = first; r < last; ++r) out.push_back(order[r]);
        return out;
    }
    const auto& ix = *m_impl->idx;
    auto it = ix.rank_at(first);
    for (std::size_t r = first; r < last; ++r, ++it) out.push_back(ix.position_of(it->node()));
    return out;
}
KVMODEL_DECL const value& list::value_at_rank(std::size_t r) const {
    KVMODEL_ASSERT(r < size());
    if (m_impl->srt) return *m_impl->sorted_at(r);
    if (!m_impl->idx) return m_impl->flat[m_impl->flat_rank_order()[r]];
    return m_impl->idx->rank_at(r)->node()->v;
}
KVMODEL_DECL std::vector<value> list::values_between(const value& lo, const value* hi) const {
    std::vector<value> out;
    if (!m_impl) return out;
    if (!m_impl->indexed()) {
        std::size_t first = count_less(lo);
        std::size_t last = hi != nullptr ? count_less(*hi) : size();
        return first < last ? values_by_rank(first, last) : out;
    }
    // Two searches; the copy starts where the first one ended.
    if (const auto& s = m_impl->srt) {
        // Each search gives its rank too: no walk back up.
        auto from = s->bound<detail::btree_bound::lower>(detail::list_value_probe{&lo});
        auto to = hi != nullptr ? s->bound<detail::btree_bound::lower>(detail::list_value_probe{hi})
                                : decltype(from){s->end(), s->size()};
        if (from.rank >= to.rank) return out;
        // One copy of the run (its length is known: no growth, no per-value
        // call). A push_back loop was 12 functions fewer at -O0 but 18-25%
        // slower in list_bench's get_by_value_range: kept.
        out.assign(from.it, to.it);
        return out;
    }
    const auto& ix = *m_impl->idx;
    // Two searches; the copy starts where the first one ended.
    auto from = ix.bound(lo, false);
    std::size_t last = hi != nullptr ? ix.count_below(*hi, false) : ix.size();
    if (from.rank >= last) return out;
    out.reserve(last - from.rank);
    auto it = from.it;
    for (std::size_t r = from.rank; r < last; ++r, ++it) out.push_back(it->node()->v);
    return out;
}
// Flattened: its push_back loops went out of line at -O2 once list_bench's
// file reached GCC's inline-unit-growth limit (rel_rank_range/100 +15%).
KVMODEL_FLATTEN KVMODEL_DECL std::vector<value> list::values_by_rank(std::size_t first,
                                                                     std::size_t last) const {
    std::vector<value> out;
    last = std::min(last, size());
    if (first >= last) return out;
    out.reserve(last - first);
    if (m_impl->srt) {
        auto it = m_impl->sorted_at(first);
        for (std::size_t r = first; r < last; ++r, ++it) out.push_back(*it);
        return out;
    }
    if (!m_impl->idx) {
        std::vector<std::size_t> order = m_impl->flat_rank_order();
        for (std::size_t r = first; r < last; ++r) out.push_back(m_impl->flat[order[r]]);
        return out;
    }
    auto it = m_impl->idx->rank_at(first);
    for (std::size_t r = first; r < last; ++r, ++it) out.push_back(it->node()->v);
    return out;
}
#endif // KVMODEL_DEFINITIONS
KVMODEL_ALWAYS_INLINE inline void list::push_back(value v) {
    auto& im = mut();
    const std::size_t b = packed_size(v);
    if (!im.indexed()) im.flat.push_back(std::move(v));
    else im.insert(im.size(), std::move(v));
    im.body += b;
}
#if KVMODEL_DEFINITIONS
KVMODEL_DECL void list::insert(std::size_t pos, value v) {
    KVMODEL_ASSERT(pos <= size());
    auto& im = mut();
    const std::size_t b = packed_size(v);
    im.insert(pos, std::move(v));
    im.body += b;
}
KVMODEL_DECL std::size_t list::insert_sorted(value v) {
    auto& im = mut();
    const std::size_t b = packed_size(v);
    std::size_t pos = im.insert_sorted(std::move(v));
    im.body += b;
    return pos;
}
KVMODEL_DECL void list::set(std::size_t pos, value v) {
    KVMODEL_ASSERT(pos < size());
    auto& im = mut();
    const std::size_t added = packed_size(v);
    if (im.srt) {
        auto it = im.sorted_at(pos);
        // In place between its neighbours, or the list stops being sorted.
        auto after = it;
        ++after;
        if (im.fits_before(after, v) && im.fits_before(it, v)) {
            const std::size_t removed = packed_size(*it);
            im.srt->replace(it, std::move(v));
            im.body = im.body - removed + added;
            return;
        }
        im.build_positional();
    }
    const std::size_t removed =
        packed_size(!im.idx ? std::exchange(im.flat[pos], std::move(v))
                            : im.idx->replace(im.idx->node_at(pos), std::move(v)));
    im.body = im.body - removed + added;
}
KVMODEL_DECL value list::take(std::size_t pos) {
    KVMODEL_ASSERT(pos < size());
    auto& im = mut();
    // The nil left behind would unsort a sorted list.
    if (im.srt) im.build_positional();
    value out = !im.idx ? std::exchange(im.flat[pos], value{})
                        : im.idx->replace(im.idx->node_at(pos), value{});
    im.body = im.body - packed_size(out) + packed_size(value{});
    return out;
}
KVMODEL_DECL void list::erase(std::size_t pos) {
    KVMODEL_ASSERT(pos < size());
    auto& im = mut();
    const std::size_t b = packed_size(im.get(pos));
    if (im.srt) im.srt->erase(im.sorted_at(pos));
    else if (!im.idx) { // (the range erase, which other erases use: two functions fewer)
        auto at = im.flat.begin() + static_cast<std::ptrdiff_t>(pos);
        im.flat.erase(at, at + 1);
    } else {
        im.idx->erase(im.idx->at(pos));
    }
    im.body -= b;
}
KVMODEL_DECL void list::erase(std::size_t first, std::size_t last) {
    KVMODEL_ASSERT(first <= last && last <= size());
    if (first == last) return;
    if (first == 0 && last == size()) {
        clear();
        return;
    }
    auto& im = mut();
    std::size_t b = 0;
    auto it = begin() + static_cast<std::ptrdiff_t>(first);
    for (std::size_t i = first; i < last; ++i, ++it) b += packed_size(*it);
    im.erase_then([&] {
        if (!im.indexed()) {
            im.flat.erase(im.flat.begin() + static_cast<std::ptrdiff_t>(first),
                          im.flat.begin() + static_cast<std::ptrdiff_t>(last));
            return;
        }
        // The ends are O(1) (no descent from the root); a single element needs
        // no second position.
        if (auto& srt = im.srt) {
            if (last == first + 1) srt->erase(im.sorted_at(first));
            else srt->erase_ranks(first, last); // leaf by leaf, O(log n + k)
            return;
        }
        if (last == first + 1) im.idx->erase(im.idx->at(first));
        else im.idx->erase_range(first, last);
    }, b);
}
KVMODEL_DECL void list::erase_positions(const std::vector<std::size_t>& positions) {
    if (positions.empty()) return;
    KVMODEL_ASSERT(std::is_sorted(positions.begin(), positions.end()) && positions.back() < size());
    if (positions.size() == size()) {
        clear();
        return;
    }
    auto& im = mut();
    std::size_t b = 0;
    for (std::size_t p : positions) b += packed_size(im.get(p));
    im.erase_then([&] {
        // (Loops over indexes, not reverse iterators or resize: fewer
        // functions in a header-only file.)
        if (im.srt) {
            for (std::size_t k = positions.size(); k-- > 0;)
                im.srt->erase(im.sorted_at(positions[k]));
            return;
        }
        if (!im.idx) {
            // One compaction pass, not one shift per position.
            std::size_t out = 0;
            std::size_t next = 0;
            for (std::size_t i = 0; i < im.flat.size(); ++i) {
                if (next < positions.size() && positions[next] == i) {
                    ++next;
                    continue;
                }
                if (out != i) im.flat[out] = std::move(im.flat[i]);
                ++out;
            }
            im.flat.erase(im.flat.begin() + static_cast<std::ptrdiff_t>(out), im.flat.end());
            return;
        }
        // Back to front, so the positions still to erase do not move.
        for (std::size_t k = positions.size(); k-- > 0;)
            im.idx->erase(im.idx->at(positions[k]));
    }, b);
}
KVMODEL_DECL void list::clear() noexcept { m_impl.reset(); }
KVMODEL_DECL void list::sort(bool drop_duplicates) {
    if (size() < 2) return; // also: an empty list may have no impl at all
    std::vector<value> sorted;
    sorted.reserve(size());
    if (m_impl->srt) {
        for (const value& v : *m_impl->srt) sorted.push_back(v);
    } else if (m_impl->idx) {
        // The ranked index already holds the stable order (ties by position).
        for (const detail::list_ref& r : m_impl->idx->vals) sorted.push_back(r.node()->v);
    } else {
        for (const value& v : m_impl->flat) sorted.push_back(v);
        detail::stable_sort_values(sorted);
    }
    if (drop_duplicates) {
        // std::unique's loop (keep each value unequal to the last one kept),
        // written out: the algorithm over a lambda was ~15 functions more.
        std::size_t kept = 0;
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            if (kept != 0 && detail::list_compare(sorted[kept - 1], sorted[i], false) == 0)
                continue;
            if (kept != i) sorted[kept] = std::move(sorted[i]);
            ++kept;
        }
        sorted.erase(sorted.begin() + static_cast<std::ptrdiff_t>(kept), sorted.end());
    }
    bool indexed = m_impl->indexed();
    const detail::list_impl* empty = nullptr;
    auto fresh = std::make_shared<detail::list_impl>(empty);
    fresh->body = drop_duplicates ? detail::list_impl::body_of(sorted) : m_impl->body;
    fresh->flat = std::move(sorted);
    if (indexed) fresh->build(); // it was worth indexing before; it still is
    m_impl = std::move(fresh);
}
KVMODEL_DECL list::const_iterator list::begin() const {
    if (!m_impl) return const_iterator(static_cast<const value*>(nullptr));
    if (m_impl->srt) return const_iterator(m_impl->srt.get(), m_impl->srt->begin());
    if (!m_impl->idx) return const_iterator(m_impl->flat.data());
    return const_iterator(&m_impl->idx->pos, m_impl->idx->pos.begin());
}
KVMODEL_DECL list::const_iterator list::end() const {
    if (!m_impl) return const_iterator(static_cast<const value*>(nullptr));
    if (m_impl->srt) return const_iterator(m_impl->srt.get(), m_impl->srt->end());
    if (!m_impl->idx) return const_iterator(m_impl->flat.data() + m_impl->flat.size());
    return const_iterator(&m_impl->idx->pos, m_impl->idx->pos.end());
}
KVMODEL_DECL std::vector<value> list::to_vector() const { return {begin(), end()}; }
#endif // KVMODEL_DEFINITIONS

namespace detail {
/// For tests: a list's index invariants (the sorted layout's tree, or the
/// positional layout's two; a flat list has none). O(n log n).
struct list_access {
    /// The elements' packed bytes, kept by every write. O(1).
    static std::size_t body(const list& l) noexcept { return l.m_impl ? l.m_impl->body : 0; }
    static bool check(const list& l);
};
#if KVMODEL_DEFINITIONS
KVMODEL_DECL bool list_access::check(const list& l) {
    const list_impl* im = l.m_impl.get();
    if (im == nullptr) return true;
    if (im->srt) return im->srt->check();
    return !im->idx || im->idx->check();
}
#endif // KVMODEL_DEFINITIONS
} // namespace detail

// ---------------------------------------------------------------- map

namespace detail {

/// One element step of map_compare_flat_lists: false when the pair needs the
/// general comparison; else `out` is the element order and `stop` says a
/// WILDCARD ended the comparison.
KVMODEL_ALWAYS_INLINE inline bool map_compare_list_element(
    const value& ea, const value& eb, bool wildcard_matches, int& out, bool& stop) noexcept {
    const value::storage& x = ea.variant();
    const value::storage& y = eb.variant();
    if (x.index() == y.index()) {
        if (const auto* p = std::get_if<std::int64_t>(&x)) {
            std::int64_t q = *std::get_if<std::int64_t>(&y);
            out = (*p > q) - (*p < q);
            return true;
        }
        if (const auto* s = std::get_if<std::string>(&x)) {
            int d = s->compare(*std::get_if<std::string>(&y));
            out = (d > 0) - (d < 0);
            return true;
        }
    }
    if (wildcard_matches &&
        (std::holds_alternative<wildcard_t>(x) || std::holds_alternative<wildcard_t>(y))) {
        out = 0;
        stop = true;
        return true;
    }
    if (x.index() != y.index()) {
        out = x.index() < y.index() ? -1 : 1;
        return true;
    }
    return false;
}

KVMODEL_ALWAYS_INLINE inline int
map_compare_list_probe(const value& stored, const map_list_probe& p) noexcept {
    const list* l = std::get_if<list>(&stored.variant());
    std::size_t na = 0;
    if (const value* pa = l != nullptr ? map_flat_items(*l, na) : nullptr) {
        std::size_t m = std::min(na, p.n);
        int out = 0;
        bool stop = false;
        std::size_t i = 0;
        for (; i < m; ++i) {
            if (!map_compare_list_element(pa[i], p.items[i], true, out, stop)) break;
            if (stop || out != 0) return out;
        }
        if (i == m) return (na > p.n) - (na < p.n);
    }
    return map_compare_general(stored, *p.whole, true);
}

/// map_compare_flat_lists for lists that are not both flat and non-empty:
/// positioned iteration.
KVMODEL_NOINLINE inline bool map_compare_lists_iterated(const list& a,
                                                 const list& b,
                                                 bool wildcard_matches,
                                                 int& out) noexcept {
    std::size_t na = a.size();
    std::size_t nb = b.size();
    std::size_t n = std::min(na, nb);
    bool stop = false;
    auto ia = a.begin();
    auto ib = b.begin();
    for (std::size_t i = 0; i < n; ++i, ++ia, ++ib) {
        if (!map_compare_list_element(*ia, *ib, wildcard_matches, out, stop)) return false;
        if (stop || out != 0) return true;
    }
    out = (na > nb) - (na < nb);
    return true;
}

KVMODEL_ALWAYS_INLINE inline bool map_compare_flat_lists(const list& a,
                                            const list& b,
                                            bool wildcard_matches,
                                            int& out) noexcept {
    std::size_t na = 0;
    std::size_t nb = 0;
    const value* pa = map_flat_items(a, na);
    const value* pb = map_flat_items(b, nb);
    if (pa == nullptr || pb == nullptr) return map_compare_lists_iterated(a, b, wildcard_matches, out);
    // Flat lists (map values almost always are): walk their vectors.
    std::size_t n = std::min(na, nb);
    bool stop = false;
    for (std::size_t i = 0; i < n; ++i) {
        if (!map_compare_list_element(pa[i], pb[i], wildcard_matches, out, stop)) return false;
        if (stop || out != 0) return true;
    }
    out = (na > nb) - (na < nb);
    return true;
}

} // namespace detail


class map::const_iterator {
public:
    using base = detail::map_impl::key_iterator;
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

#if KVMODEL_DEFINITIONS
KVMODEL_DECL map::map(std::initializer_list<std::pair<value, value>> items) {
    for (const auto& [k, v] : items) put(k, v);
}
KVMODEL_DECL map::map(std::vector<std::pair<value, value>> items, map_order order) : m_order(order) {
    for (auto& [k, v] : items) put(std::move(k), std::move(v));
}
KVMODEL_DECL std::size_t map::size() const noexcept { return m_impl ? m_impl->size() : 0; }
KVMODEL_DECL detail::map_impl& map::mut() {
    if (!m_impl || !detail::sole_owner(m_impl)) {
        const detail::map_impl* from = m_impl.get();
        m_impl = std::make_shared<detail::map_impl>(from);
    }
    return *m_impl;
}
KVMODEL_DECL const map_entry& map::entry_at(std::size_t i) const {
    KVMODEL_ASSERT(i < size());
    return *m_impl->keys.nth(i)->node();
}
KVMODEL_DECL const value& map::key_at(std::size_t i) const { return entry_at(i).key; }
KVMODEL_DECL const value& map::value_at(std::size_t i) const { return entry_at(i).val; }
KVMODEL_DECL std::optional<std::size_t> map::find(const value& k) const {
    if (!m_impl) return std::nullopt;
    auto pos = m_impl->find(k);
    if (pos.it == m_impl->keys.end()) return std::nullopt;
    return pos.rank;
}
KVMODEL_DECL const value* map::get(const value& k) const {
    if (!m_impl) return nullptr;
    auto pos = m_impl->find(k);
    return pos.it == m_impl->keys.end() ? nullptr : &pos.it->node()->val;
}
KVMODEL_DECL std::size_t map::count_less_key(const value& k) const {
    return m_impl ? m_impl->key_rank(k, false) : 0;
}
KVMODEL_DECL std::size_t map::count_less_equal_key(const value& k) const {
    return m_impl ? m_impl->key_rank(k, true) : 0;
}
KVMODEL_DECL std::size_t map::rank_of(std::size_t index) const {
    KVMODEL_ASSERT(index < size());
    return m_impl->rank_of(m_impl->keys.nth(index)->node());
}
KVMODEL_DECL std::size_t map::index_at_rank(std::size_t r) const {
    KVMODEL_ASSERT(r < size());
    return m_impl->index_of(m_impl->vals.nth(r)->node());
}
KVMODEL_DECL std::size_t map::count_less_value(const value& v) const {
    return m_impl ? m_impl->value_rank(v, false) : 0;
}
KVMODEL_DECL std::size_t map::count_less_equal_value(const value& v) const {
    return m_impl ? m_impl->value_rank(v, true) : 0;
}
KVMODEL_DECL std::vector<std::size_t> map::indexes_by_rank(std::size_t first, std::size_t last) const {
    std::vector<std::size_t> out;
    last = std::min(last, size());
    if (first >= last) return out;
    out.reserve(last - first);
    auto it = m_impl->vals.nth(first);
    for (std::size_t r = first; r < last; ++r, ++it) out.push_back(m_impl->index_of(it->node()));
    return out;
}
KVMODEL_DECL std::pair<std::size_t, bool> map::put(value k, value v) {
    auto& im = mut();
    // Look up by the exact key, not as a probe: storing is exact, so a
    // WILDCARD in k must not match (and overwrite) some other key.
    auto n = std::make_unique<detail::map_node>(std::move(k), std::move(v));
    auto pos = im.keys.bound<detail::btree_bound::lower>(detail::map_key_ref(n.get()));
    if (pos.it != im.keys.end() && detail::map_compare(pos.it->node()->key, n->key, false) == 0) {
        im.set_val(pos.it->node(), std::move(n->val));
        return {pos.rank, false};
    }
    im.insert(pos.it, std::move(n));
    return {pos.rank, true};
}
KVMODEL_DECL void map::set_value_at(std::size_t index, value v) {
    KVMODEL_ASSERT(index < size());
    auto& im = mut();
    im.set_val(im.keys.nth(index)->node(), std::move(v));
}
KVMODEL_DECL value map::take_value_at(std::size_t index) {
    KVMODEL_ASSERT(index < size());
    auto& im = mut();
    detail::map_node* n = im.keys.nth(index)->node();
    value out = n->val;
    im.set_val(n, value{});
    return out;
}
KVMODEL_DECL void map::erase_at(std::size_t index) {
    KVMODEL_ASSERT(index < size());
    auto& im = mut();
    im.erase(im.keys.nth(index));
}
KVMODEL_DECL void map::erase_range(std::size_t first, std::size_t last) {
    KVMODEL_ASSERT(first <= last && last <= size());
    if (first == last) return;
    if (first == 0 && last == size()) {
        m_impl.reset();
        return;
    }
    mut().erase_indexes(first, last);
}
KVMODEL_DECL bool map::erase(const value& k) {
    std::optional<std::size_t> i = find(k);
    if (!i) return false;
    erase_at(*i);
    return true;
}
KVMODEL_DECL void map::clear() noexcept { m_impl.reset(); }
// An empty map may have no impl: begin() and end() must then both point into
// the same empty container, or iterating it runs off into the void.
KVMODEL_DECL const detail::map_impl& map::empty_impl() noexcept {
    static const detail::map_impl e;
    return e;
}
KVMODEL_DECL map::const_iterator map::begin() const {
    const auto& im = m_impl ? *m_impl : empty_impl();
    return const_iterator(detail::map_impl::key_iterator(im.keys.begin()));
}
KVMODEL_DECL map::const_iterator map::end() const {
    const auto& im = m_impl ? *m_impl : empty_impl();
    return const_iterator(detail::map_impl::key_iterator(im.keys.end()));
}
#endif // KVMODEL_DEFINITIONS

namespace detail {

/// Positioned access to a map's two orders (map_impl's trees) for the CDT engine
/// (cdt/detail/map_engine.hpp): it walks a window of k entries in key or rank
/// order in O(log n + k) instead of k separate O(log n) look-ups, and crosses
/// between the orders per entry in O(log n). Not part of the public API.
struct map_access {
    using key_iterator = map_impl::key_iterator;
    using rank_iterator = map_impl::val_iterator;

    /// Entry of index i (i == size() is the end). Precondition: !m.empty(). O(log n).
    static key_iterator key_at(const map& m, std::size_t i) {
        KVMODEL_ASSERT(m.m_impl && i <= m.size());
        return key_iterator(m.m_impl->keys.nth(i));
    }
    /// Entry of rank r (r == size() is the end). Precondition: !m.empty(). O(log n).
    static rank_iterator rank_at(const map& m, std::size_t r) {
        KVMODEL_ASSERT(m.m_impl && r <= m.size());
        return rank_iterator(m.m_impl->vals.nth(r));
    }
    /// Index (key order) of the entry at it. O(log n).
    static std::size_t index_of(const map& m, rank_iterator it) {
        return index_of_entry(m, *it);
    }
    /// Rank (value order, ties by key) of the entry at it. O(log n).
    static std::size_t rank_of(const map& m, key_iterator it) {
        return rank_of_entry(m, *it);
    }
    /// The entry whose key matches k (the first one, for a WILDCARD), or nullptr.
    /// O(log n).
    static const map_entry* find(const map& m, const value& k);
    /// Index of an entry of m. O(log n).
    static std::size_t index_of_entry(const map& m, const map_entry& e) {
        return m.m_impl->index_of(node_of(e));
    }
    /// Rank of an entry of m. O(log n).
    static std::size_t rank_of_entry(const map& m, const map_entry& e) {
        return m.m_impl->rank_of(node_of(e));
    }
    /// Where key k is or would go (k must hold no WILDCARD). O(log n).
    struct slot {
        map_impl::key_tree::const_iterator it;
        bool found = false;
        const map_impl* owner = nullptr;
    };
    static slot locate(const map& m, const value& k);
    /// Writes k -> v at a slot located on m, or looks it up again when m had
    /// to be cloned first (copy-on-write) or the slot came from elsewhere.
    /// O(log n). The key is copied only when the entry is new.
    static void put_at(map& m, slot s, const value& k, const value& v);
    /// Erases ranks [first, last). O((last - first) log n).
    static void erase_ranks(map& m, std::size_t first, std::size_t last);

    /// The entries' packed bytes (keys and values), kept by every write. O(1).
    static std::size_t body(const map& m) noexcept { return m.m_impl ? m.m_impl->body : 0; }

    /// For tests: both trees' invariants, and the two holding the same nodes,
    /// each with its current summary. O(n log n).
    static bool check(const map& m);

private:
    static map_node* node_of(const map_entry& e) {
        return const_cast<map_node*>(static_cast<const map_node*>(&e));
    }

public:
    /// The elements of a flat list and their count (in n); nullptr when the
    /// list is empty or indexed. O(1).
    static const value* flat_items(const list& l, std::size_t& n) noexcept {
        const list_impl* im = l.m_impl.get();
        if (im == nullptr || im->indexed()) return nullptr;
        n = im->flat.size();
        return n == 0 ? nullptr : im->flat.data();
    }
};

#if KVMODEL_DEFINITIONS
KVMODEL_DECL const map_entry* map_access::find(const map& m, const value& k) {
    if (!m.m_impl) return nullptr;
    auto pos = m.m_impl->find(k);
    return pos.it == m.m_impl->keys.end() ? nullptr : pos.it->node();
}

KVMODEL_DECL map_access::slot map_access::locate(const map& m, const value& k) {
    if (!m.m_impl) return {};
    const auto& t = m.m_impl->keys;
    auto it = map_key_probe(k, [&](const auto& p) {
        // A key past the last one (a time-ordered map's every put) goes
        // to the end: one comparison with the last leaf, no descent.
        if (t.size() != 0 && map_key_ref_less{}(*t.last(), p)) return t.end();
        return t.bound<btree_bound::lower, false>(p).it;
    });
    bool found = it != t.end() && map_compare(it->node()->key, k, false) == 0;
    return {it, found, m.m_impl.get()};
}

KVMODEL_DECL void map_access::put_at(map& m, slot s, const value& k, const value& v) {
    if (!(m.m_impl && m.m_impl.get() == s.owner && sole_owner(m.m_impl))) {
        m.mut();
        s = locate(m, k);
    }
    map_impl& im = *m.m_impl;
    if (s.found) im.set_val(s.it->node(), v);
    else im.insert(s.it, std::make_unique<map_node>(k, v));
}

KVMODEL_DECL void map_access::erase_ranks(map& m, std::size_t first, std::size_t last) {
    KVMODEL_ASSERT(first <= last && last <= m.size());
    if (first == last) return;
    if (first == 0 && last == m.size()) {
        m.m_impl.reset();
        return;
    }
    m.mut().erase_ranks(first, last);
}

KVMODEL_DECL bool map_access::check(const map& m) {
    if (!m.m_impl) return true;
    const map_impl& im = *m.m_impl;
    if (!im.keys.check() || !im.vals.check() || im.vals.size() != im.keys.size()) return false;
    for (const map_ref& r : im.keys) {
        map_ref k = map_key_ref(r.node());
        if (k.lead != r.lead || k.cls() != r.cls()) return false;
        // Each tree finds the node where it records it, and a search
        // for it ends there too.
        auto v = im.val_it(r.node());
        if (v == im.vals.end() || v->node() != r.node()) return false;
        if (im.vals.bound<btree_bound::lower, false>(map_val_ref(r.node())).it != v) return false;
        auto at = im.key_it(r.node());
        if (at == im.keys.end() || at->node() != r.node()) return false;
        if (im.keys.bound<btree_bound::lower, false>(map_key_ref(r.node())).it != at) return false;
        map_ref w = map_val_ref(r.node());
        if (w.lead != v->lead || w.cls() != v->cls()) return false;
    }
    return true;
}
#endif // KVMODEL_DEFINITIONS

KVMODEL_ALWAYS_INLINE inline const value* map_flat_items(const list& l, std::size_t& n) noexcept {
    return map_access::flat_items(l, n);
}

} // namespace detail

} // namespace kvmodel

// The containers' five B+trees: with kvmodel::compiled their members are
// compiled once, in the library, not instantiated in every file.
KVMODEL_INSTANTIATE(class kvmodel::detail::counted_btree<kvmodel::value, kvmodel::detail::list_value_less, 32, 32>)
KVMODEL_INSTANTIATE(class kvmodel::detail::counted_btree<kvmodel::detail::list_node*, kvmodel::detail::list_pos_less, 32, 32, kvmodel::detail::list_pos_slot>)
KVMODEL_INSTANTIATE(class kvmodel::detail::counted_btree<kvmodel::detail::list_ref, kvmodel::detail::list_val_less, 32, 32,
                                                  kvmodel::detail::ref_slot<kvmodel::detail::list_node, &kvmodel::detail::list_node::val_leaf>>)
KVMODEL_INSTANTIATE(class kvmodel::detail::counted_btree<kvmodel::detail::map_ref, kvmodel::detail::map_key_ref_less, 32, 32,
                                                  kvmodel::detail::ref_slot<kvmodel::detail::map_node, &kvmodel::detail::map_node::key_leaf>>)
KVMODEL_INSTANTIATE(class kvmodel::detail::counted_btree<kvmodel::detail::map_ref, kvmodel::detail::map_val_ref_less, 32, 32,
                                                  kvmodel::detail::ref_slot<kvmodel::detail::map_node, &kvmodel::detail::map_node::val_leaf>>)

#include <kvmodel/core/order.hpp> // IWYU pragma: export
#include <kvmodel/core/msgpack_size.hpp> // IWYU pragma: export