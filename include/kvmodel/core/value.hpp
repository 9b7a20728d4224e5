// kvmodel/core/value.hpp
//
// The value every layer speaks: nil, boolean, int64, string, list, map, bytes,
// double — Aerospike's particle types — plus INF and WILDCARD, which only make
// sense as range bounds and match patterns. The variant's alternatives are
// declared in Aerospike's cross-type order (AEROSPIKE-CDT.md §1), so
// value::type() doubles as the type's rank in that order.
//
// list and map are copy-on-write handles: copying a value is O(1) however big
// it is; the first mutation of a shared container clones it (O(n)). Copies
// behave as separate values across threads, as std types do: each may be
// read or written on its own thread (a write in place follows the reads of
// copies other threads have dropped); one value object written on one
// thread must not be read on another at the same time. Behind a
// handle is an order-statistics container (core/detail/containers.hpp): a list
// is a vector (index O(1), append O(1)) until it needs a value index, then
// answers by index, insert anywhere and by value rank in O(log n); a map answers by key,
// by index (= key order, for every map order) and by value rank (ties by key)
// in O(log n). Maps are always stored key-sorted, as Aerospike 8.x stores even
// UNORDERED maps; the order flag is kept because it changes the stored size and
// what the server persists.
//
// Comparison (order.hpp): compare() is Aerospike's CDT order, in which WILDCARD
// equals anything; operator== is exact structural equality (WILDCARD equals
// only WILDCARD, 1 != 1.0, container order flags ignored), consistent with
// std::hash<value>.
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/assert.hpp>

#include <compare>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace kvmodel {

/// The type of a value, numbered in Aerospike's cross-type order
/// (NIL < BOOL < INT < STRING < LIST < MAP < BYTES < DOUBLE < INF).
enum class value_type : std::uint8_t {
    nil = 0,
    boolean = 1,
    integer = 2,
    string = 3,
    list = 4,
    map = 5,
    bytes = 6,
    floating = 7,
    inf = 8,
    wildcard = 9,
};

/// The type of nil: no value (an absent bin, a missing result; below every value).
struct nil_t {
    /// All nils are equal.
    friend constexpr bool operator==(nil_t, nil_t) noexcept { return true; }
};
/// Above every value: the unbounded `end` of a range.
struct inf_t {
    /// All INFs are equal.
    friend constexpr bool operator==(inf_t, inf_t) noexcept { return true; }
};
/// Matches anything when it appears in a value argument: [type, WILDCARD].
struct wildcard_t {
    /// All WILDCARDs are equal.
    friend constexpr bool operator==(wildcard_t, wildcard_t) noexcept { return true; }
};
/// The nil value: `value v = kvmodel::nil;`.
inline constexpr nil_t nil{};
/// INF, above every value: an unbounded range end.
inline constexpr inf_t inf{};
/// WILDCARD, matching anything inside a value argument.
inline constexpr wildcard_t wildcard{};

/// A blob (Aerospike BYTES particle).
using bytes = std::vector<std::uint8_t>;

inline std::string_view type_name(value_type t) noexcept;

/// List order flag, with Aerospike's wire values (as_list_order).
enum class list_order : std::uint8_t { unordered = 0, ordered = 1 };
/// Map order flag, with Aerospike's wire values (as_map_order).
enum class map_order : std::uint8_t { unordered = 0, key_ordered = 1, key_value_ordered = 3 };

class value;
class list;
class map;
struct map_entry;

namespace detail {
struct list_impl;
struct list_access;
struct map_impl;
struct map_access;
} // namespace detail

/// Aerospike's CDT order: negative, zero or positive. WILDCARD compares equal
/// to anything and ends the comparison (defined in order.hpp).
inline std::weak_ordering compare(const value& a, const value& b) noexcept;

/// A CDT list: elements in list order, indexed by position and by value rank.
class list {
public:
    /// An empty UNORDERED list.
    list() noexcept = default;
    /// An empty list with that order flag.
    explicit list(list_order order) noexcept : m_order(order) {}
    /// The items in this order (UNORDERED).
    list(std::initializer_list<value> items);
    /// The items in this order; an ORDERED list's must already be sorted.
    explicit list(std::vector<value> items, list_order order = list_order::unordered);

    /// Number of elements. O(1).
    std::size_t size() const noexcept;
    /// Whether it has no element.
    bool empty() const noexcept { return size() == 0; }

    /// Element at list position i; precondition i < size(). O(1), or
    /// O(log n) once indexed.
    const value& operator[](std::size_t i) const;
    /// operator[](i).
    const value& at(std::size_t i) const { return (*this)[i]; }
    /// The first element; precondition: !empty().
    const value& front() const { return (*this)[0]; }
    /// The last element; precondition: !empty().
    const value& back() const { return (*this)[size() - 1]; }

    /// UNORDERED or ORDERED (the list's flag, as the server stores it).
    list_order order() const noexcept { return m_order; }
    /// Whether the flag is ORDERED.
    bool is_ordered() const noexcept { return m_order == list_order::ordered; }
    /// Sets the flag only; an ORDERED list must already be sorted (see sort()).
    void set_order_flag(list_order o) noexcept { m_order = o; }
    /// The persist-index flag.
    bool persist_index() const noexcept { return m_persist_index; }
    /// Sets the persist-index flag.
    void set_persist_index(bool p) noexcept { m_persist_index = p; }

    // --- value rank (ties by position). O(log n) each once the list has its
    // value index (build_index()); before that, a scan (O(n), index_at_rank
    // and the range queries O(n log n)): the right trade for short lists and
    // for lists nobody ranks, which then append in O(1) and index in O(1).
    /// Builds the value index of a list longer than a few dozen elements,
    /// O(n log n) once; afterwards positional access is O(log n). No-op when
    /// built or short. Clones a shared list first, like every mutation.
    void build_index();
    /// Whether the value index is built.
    bool has_index() const noexcept;
    /// The rank of the element at position i (0 = lowest value).
    std::size_t rank_of(std::size_t i) const;
    /// The position of the element of rank r; precondition r < size().
    std::size_t index_at_rank(std::size_t r) const;
    /// Number of elements strictly below v (WILDCARD in v matches).
    std::size_t count_less(const value& v) const;
    /// Number of elements below or matching v.
    std::size_t count_less_equal(const value& v) const;
    /// Positions of ranks [first, last), in rank order. O(log n + k log n).
    std::vector<std::size_t> indexes_by_rank(std::size_t first, std::size_t last) const;
    /// Values of ranks [first, last), in rank order. O(log n + k).
    std::vector<value> values_by_rank(std::size_t first, std::size_t last) const;
    /// The value of rank r; precondition r < size(). O(log n).
    const value& value_at_rank(std::size_t r) const;
    /// The values not below lo and below hi (nullptr: unbounded), in rank
    /// order; WILDCARDs in lo / hi match. O(log n + k) once indexed (two
    /// searches, then a walk); a flat list sorts its positions first.
    std::vector<value> values_between(const value& lo, const value* hi) const;

    // --- mutation (clones a shared container first).
    /// Appends v: O(1) amortised, O(log n) once indexed.
    void push_back(value v);
    /// Inserts before position pos (pos == size() appends). O(log n) amortised.
    /// Ignores the order flag: callers place values themselves.
    void insert(std::size_t pos, value v);
    /// Inserts v after every element not above it and returns its position;
    /// precondition: the list is sorted (an ORDERED list is). O(log n), one
    /// search (O(n) shift on a short flat list).
    std::size_t insert_sorted(value v);
    /// Replaces the element at pos; precondition pos < size().
    void set(std::size_t pos, value v);
    /// Moves the element at pos out, leaving nil in its place (O(log n)): lets a
    /// caller modify a nested container without cloning it, then set() it back.
    value take(std::size_t pos);
    /// Erases the element at pos; precondition pos < size().
    void erase(std::size_t pos);
    /// Erases positions [first, last).
    void erase(std::size_t first, std::size_t last);
    /// Erases the elements at the given ascending positions, in one pass.
    /// O(n) on a flat list, O(k log n) on an indexed one.
    void erase_positions(const std::vector<std::size_t>& positions);
    /// Removes every element.
    void clear() noexcept;
    /// Stable sort by value; with drop_duplicates keeps the first of equal values.
    void sort(bool drop_duplicates = false);

    /// Iteration in list order.
    class const_iterator;
    /// The first element.
    const_iterator begin() const;
    /// Past the last element.
    const_iterator end() const;

    /// The elements in list order, copied. O(n).
    std::vector<value> to_vector() const;

private:
    friend struct detail::map_access; // flat elements for the map indices' comparisons
    friend struct detail::list_access; // the index's invariants, for tests
    detail::list_impl& mut();
    detail::list_impl& mut_slow(); // creates or clones the impl
    std::shared_ptr<detail::list_impl> m_impl;
    list_order m_order = list_order::unordered;
    bool m_persist_index = false;
};

/// A CDT map: entries in key order, indexed by key, by index (key order) and by
/// value rank (ties by key).
class map {
public:
    /// An empty UNORDERED map.
    map() noexcept = default;
    /// An empty map with that order flag.
    explicit map(map_order order) noexcept : m_order(order) {}
    /// The entries (a later duplicate key overwrites an earlier one), UNORDERED.
    map(std::initializer_list<std::pair<value, value>> items);
    /// The entries, with that order flag.
    explicit map(std::vector<std::pair<value, value>> items,
                 map_order order = map_order::unordered);

    /// Number of entries. O(1).
    std::size_t size() const noexcept;
    /// Whether it has no entry.
    bool empty() const noexcept { return size() == 0; }

    /// The order flag.
    map_order order() const noexcept { return m_order; }
    /// Sets the order flag only (entries stay in key order).
    void set_order(map_order o) noexcept { m_order = o; }
    /// The persist-index flag.
    bool persist_index() const noexcept { return m_persist_index; }
    /// Sets the persist-index flag.
    void set_persist_index(bool p) noexcept { m_persist_index = p; }

    /// Entry at index i (key order); precondition i < size(). O(log n).
    const map_entry& entry_at(std::size_t i) const;
    /// The key at index i; precondition i < size(). O(log n).
    const value& key_at(std::size_t i) const;
    /// The value at index i; precondition i < size(). O(log n).
    const value& value_at(std::size_t i) const;

    /// Index of key k, if present. O(log n).
    std::optional<std::size_t> find(const value& k) const;
    /// The value at key k, or nullptr.
    const value* get(const value& k) const;
    /// Whether key k is present. O(log n).
    bool contains(const value& k) const { return find(k).has_value(); }
    /// Number of keys strictly below k (WILDCARD in k matches).
    std::size_t count_less_key(const value& k) const;
    /// Number of keys below or matching k.
    std::size_t count_less_equal_key(const value& k) const;

    // --- value rank (ties by key). O(log n) each.
    /// The value rank of the entry at index (0 = lowest value).
    std::size_t rank_of(std::size_t index) const;
    /// The index of the entry of value rank r; precondition r < size().
    std::size_t index_at_rank(std::size_t r) const;
    /// Number of entries whose value is strictly below v (WILDCARD in v matches).
    std::size_t count_less_value(const value& v) const;
    /// Number of entries whose value is below or matches v.
    std::size_t count_less_equal_value(const value& v) const;
    /// Indexes of ranks [first, last), in rank order. O(log n + k log n):
    /// each entry's index is a walk up the key tree from the leaf it
    /// records (no comparison).
    std::vector<std::size_t> indexes_by_rank(std::size_t first, std::size_t last) const;

    // --- mutation (clones a shared container first).
    /// Inserts or overwrites; returns the entry's index and whether it was new.
    std::pair<std::size_t, bool> put(value k, value v);
    /// Replaces the value at index; precondition index < size().
    void set_value_at(std::size_t index, value v);
    /// Moves the value at index out, leaving nil in its place (see list::take).
    value take_value_at(std::size_t index);
    /// Erases the entry at index; precondition index < size().
    void erase_at(std::size_t index);
    /// Erases indexes [first, last).
    void erase_range(std::size_t first, std::size_t last);
    /// Erases key k; whether it was there. O(log n).
    bool erase(const value& k);
    /// Removes every entry.
    void clear() noexcept;

    /// Iteration over entries in key order.
    class const_iterator;
    /// The first entry (lowest key).
    const_iterator begin() const;
    /// Past the last entry.
    const_iterator end() const;

private:
    friend struct detail::map_access; // positioned iteration for the CDT engine
    detail::map_impl& mut();
    static const detail::map_impl& empty_impl() noexcept;
    std::shared_ptr<detail::map_impl> m_impl;
    map_order m_order = map_order::unordered;
    bool m_persist_index = false;
};

/// A Value: one of Aerospike's particle types, or INF / WILDCARD.
class value {
public:
    /// The alternatives, in value_type order.
    using storage = std::variant<nil_t, bool, std::int64_t, std::string, kvmodel::list,
                                 kvmodel::map, kvmodel::bytes, double, inf_t, wildcard_t>;

    // Every alternative is built by index from a prvalue or (copies of
    // strings, blobs and containers) a const reference: the variant's
    // converting constructors would each instantiate their own chain of
    // nested-union constructors, and a header-only user's file compiles them
    // all.
    /// Nil.
    value() noexcept : m_v() {}
    /// Nil.
    value(nil_t) noexcept : m_v() {}                              // NOLINT(google-explicit-constructor)
    /// A bool.
    value(bool b) noexcept : m_v(std::in_place_index<1>, bool(b)) {} // NOLINT
    /// An integer, as int64.
    template <class I>
        requires(std::is_integral_v<I> && !std::is_same_v<I, bool> && !std::is_same_v<I, char> &&
                 !std::is_same_v<I, std::uint64_t>)
    value(I i) noexcept : m_v(std::in_place_index<2>, static_cast<std::int64_t>(i)) {} // NOLINT
    /// Unsigned 64-bit values are stored as their two's-complement int64, as
    /// Aerospike's integer particle does.
    value(std::uint64_t u) noexcept : m_v(std::in_place_index<2>, static_cast<std::int64_t>(u)) {} // NOLINT
    /// A double.
    value(double d) noexcept : m_v(std::in_place_index<7>, double(d)) {} // NOLINT
    /// A float, as double.
    value(float f) noexcept : m_v(std::in_place_index<7>, static_cast<double>(f)) {} // NOLINT
    /// A string, copied.
    value(const char* s) : m_v(std::in_place_index<3>, std::string(s)) {} // NOLINT
    /// A string, moved in.
    value(std::string s) noexcept : m_v(std::in_place_index<3>, std::move(s)) {} // NOLINT
    /// A string, copied.
    value(std::string_view s) : m_v(std::in_place_index<3>, std::string(s)) {} // NOLINT
    /// A blob.
    value(kvmodel::bytes b) noexcept : m_v(std::in_place_index<6>, std::move(b)) {} // NOLINT
    /// A list.
    value(kvmodel::list l) noexcept : m_v(std::in_place_index<4>, std::move(l)) {} // NOLINT
    /// A map.
    value(kvmodel::map m) noexcept : m_v(std::in_place_index<5>, std::move(m)) {} // NOLINT
    /// INF.
    value(inf_t) noexcept : m_v(std::in_place_index<8>, inf_t{}) {} // NOLINT
    /// WILDCARD.
    value(wildcard_t) noexcept : m_v(std::in_place_index<9>, wildcard_t{}) {} // NOLINT

    // Copies, moves and destruction of the scalar alternatives (nil, bool,
    // int, double, INF, WILDCARD: most values an engine builds and drops)
    // are done directly, without the variant's out-of-line visit.
    /// A copy: O(1) for a list or map (shared until one copy changes).
    KVMODEL_ALWAYS_INLINE value(const value& o) { construct_from(o); }
    /// Takes o's content.
    KVMODEL_ALWAYS_INLINE value(value&& o) noexcept { construct_from(std::move(o)); }
    /// Copy assignment.
    KVMODEL_ALWAYS_INLINE value& operator=(const value& o) {
        if (scalar(m_v.index()) && scalar(o.m_v.index())) construct_from(o);
        else assign_from(o);
        return *this;
    }
    /// Move assignment.
    KVMODEL_ALWAYS_INLINE value& operator=(value&& o) noexcept {
        if (scalar(m_v.index()) && scalar(o.m_v.index())) construct_from(std::move(o));
        else assign_from(std::move(o));
        return *this;
    }
    KVMODEL_ALWAYS_INLINE ~value() {
        if (!scalar(m_v.index())) destroy_container();
    }

    /// The type held.
    value_type type() const noexcept { return static_cast<value_type>(m_v.index()); }

    /// Whether it is nil.
    bool is_nil() const noexcept { return type() == value_type::nil; }
    /// Whether it is a bool.
    bool is_bool() const noexcept { return type() == value_type::boolean; }
    /// Whether it is an integer.
    bool is_int() const noexcept { return type() == value_type::integer; }
    /// Whether it is a double.
    bool is_double() const noexcept { return type() == value_type::floating; }
    /// Whether it is an integer or a double.
    bool is_number() const noexcept { return is_int() || is_double(); }
    /// Whether it is a string.
    bool is_string() const noexcept { return type() == value_type::string; }
    /// Whether it is a blob.
    bool is_bytes() const noexcept { return type() == value_type::bytes; }
    /// Whether it is a list.
    bool is_list() const noexcept { return type() == value_type::list; }
    /// Whether it is a map.
    bool is_map() const noexcept { return type() == value_type::map; }
    /// Whether it is INF.
    bool is_inf() const noexcept { return type() == value_type::inf; }
    /// Whether it is WILDCARD.
    bool is_wildcard() const noexcept { return type() == value_type::wildcard; }
    /// True when a WILDCARD appears anywhere in the value.
    bool contains_wildcard() const noexcept;

    // Accessors; precondition: the value has that type (KVMODEL_ASSERT).
    /// The bool; precondition is_bool().
    bool as_bool() const { return get<1>(); }
    /// The integer; precondition is_int().
    std::int64_t as_int() const { return get<2>(); }
    /// The double; precondition is_double().
    double as_double() const { return get<7>(); }
    /// The string; precondition is_string().
    const std::string& as_string() const { return get<3>(); }
    /// The blob; precondition is_bytes().
    const kvmodel::bytes& as_bytes() const { return get<6>(); }
    /// The list; precondition is_list().
    const kvmodel::list& as_list() const { return get<4>(); }
    /// The map; precondition is_map().
    const kvmodel::map& as_map() const { return get<5>(); }
    /// The list, to change in place; precondition is_list().
    kvmodel::list& as_list() { return const_cast<kvmodel::list&>(get<4>()); }
    /// The map, to change in place; precondition is_map().
    kvmodel::map& as_map() { return const_cast<kvmodel::map&>(get<5>()); }
    /// The string, to change in place; precondition is_string().
    std::string& as_string() { return const_cast<std::string&>(get<3>()); }
    /// The blob, to change in place; precondition is_bytes().
    kvmodel::bytes& as_bytes() { return const_cast<kvmodel::bytes&>(get<6>()); }

    /// The std::variant underneath (its index is the value_type).
    const storage& variant() const noexcept { return m_v; }
    /// \overload
    storage& variant() noexcept { return m_v; }

private:
    // Alternatives are reached by index and through the variant's const
    // std::get_if only (the mutable accessors and the members below cast its
    // result): libstdc++'s get_if is a chain of functions per alternative,
    // per type spelling and per constness, each of which a header-only
    // user's file compiles at -O0.
    template <std::size_t I>
    KVMODEL_FORCE_INLINE const std::variant_alternative_t<I, storage>& get() const {
        const auto* p = std::get_if<I>(&m_v);
        KVMODEL_ASSERT(p != nullptr);
        return *p;
    }

    /// True for the trivially destructible alternatives.
    static constexpr bool scalar(std::size_t index) noexcept {
        constexpr unsigned mask = 1u << 0 | 1u << 1 | 1u << 2 | 1u << 7 | 1u << 8 | 1u << 9;
        return index < 10 && ((mask >> index) & 1u) != 0;
    }
    // construct_from constructs m_v (not alive, or alive holding a scalar) as
    // a copy of o's, or as its move when V is an rvalue: nil and integers
    // inline, the rest in one out-of-line switch (small enough that callers
    // building results and list elements inline it). GCC 12, inlining it into
    // a caller that knows which alternative it copies, warns (falsely) that
    // the integer case reads uninitialized bytes.
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic push
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
    // (std::construct_at here: with placement new GCC 12 -O2 laid out the
    // list append path differently, list_bench append +5%.)
    template <class V>
    KVMODEL_ALWAYS_INLINE void construct_from(V&& o) noexcept(std::is_rvalue_reference_v<V&&>) {
        if (const auto* i = std::get_if<std::int64_t>(&o.m_v)) {
            std::int64_t x = *i; // read before m_v (maybe o's) is rebuilt
            std::construct_at(&m_v, std::in_place_index<2>, std::move(x));
        } else if (o.m_v.index() == 0) {
            std::construct_at(&m_v);
        } else {
            construct_other(std::forward<V>(o));
        }
    }
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic pop
#endif
    // The other alternatives, out of line: inlined, their copies set off the
    // same false warning for strings and container handles. These and
    // assign_from and destroy_container are defined below the class: compiled
    // once in kvmodel::compiled, so that a user's file does not instantiate
    // the variant's copies, moves and assignments.
    void construct_other(const value& o);
    void construct_other(value&& o) noexcept;
    // The scalars are copied here, the same way for a copy and a move (the
    // bool or double read before m_v, maybe o's, is rebuilt; INF and
    // WILDCARD have nothing to read). The variant is built by placement new:
    // std::construct_at would be one more function per alternative and
    // argument type at -O0.
    template <class V>
    KVMODEL_FORCE_INLINE void construct_other_of(V&& o) noexcept(std::is_rvalue_reference_v<V&&>) {
        const storage& from = o.m_v;
        void* to = static_cast<void*>(&m_v);
        switch (from.index()) {
        case 1: ::new (to) storage(std::in_place_index<1>, bool(*std::get_if<1>(&from))); return;
        case 3: return construct_alternative<3>(std::forward<V>(o));
        case 4: return construct_alternative<4>(std::forward<V>(o));
        case 5: return construct_alternative<5>(std::forward<V>(o));
        case 6: return construct_alternative<6>(std::forward<V>(o));
        case 7: ::new (to) storage(std::in_place_index<7>, double(*std::get_if<7>(&from))); return;
        case 8: ::new (to) storage(std::in_place_index<8>, inf_t{}); return;
        case 9: ::new (to) storage(std::in_place_index<9>, wildcard_t{}); return;
        default: ::new (to) storage(); return; // valueless: no alternative to copy
        }
    }
    // A list or map handle is copied first and moved in: the variant then
    // builds those alternatives through their chains of nested-union
    // constructors from an rvalue only, not also from a const reference,
    // which a header-only user's file would compile too. (Not strings and
    // blobs: an extra move measured slower for short strings at -O2.)
    template <std::size_t I, class V>
    KVMODEL_FORCE_INLINE void construct_alternative(V&& o) {
        using alt = std::variant_alternative_t<I, storage>;
        const storage& from = o.m_v;
        const alt& x = *std::get_if<I>(&from);
        void* to = static_cast<void*>(&m_v);
        if constexpr (std::is_rvalue_reference_v<V&&>) {
            ::new (to) storage(std::in_place_index<I>, std::move(const_cast<alt&>(x)));
        } else if constexpr (I == 4 || I == 5) {
            alt copy = x;
            ::new (to) storage(std::in_place_index<I>, std::move(copy));
        } else {
            ::new (to) storage(std::in_place_index<I>, x);
        }
    }
    // assign_from: the alternatives' own assignments when both hold the same
    // one, else destroy and construct, never the variant's assignments (a
    // visit over a table of every pair of alternatives).
    void assign_from(const value& o);
    void assign_from(value&& o) noexcept;
    template <class V>
    KVMODEL_FORCE_INLINE bool assign_same(V&& o) noexcept(std::is_rvalue_reference_v<V&&>) {
        if (m_v.index() != o.m_v.index()) return false;
        switch (o.m_v.index()) {
        case 3: assign_alternative<3>(std::forward<V>(o)); return true;
        case 4: assign_alternative<4>(std::forward<V>(o)); return true;
        case 5: assign_alternative<5>(std::forward<V>(o)); return true;
        case 6: assign_alternative<6>(std::forward<V>(o)); return true;
        default: return false; // scalars (the caller's) and valueless: construct
        }
    }
    template <std::size_t I, class V>
    KVMODEL_FORCE_INLINE void assign_alternative(V&& o) {
        using alt = std::variant_alternative_t<I, storage>;
        const storage& self = m_v;
        const storage& from = o.m_v;
        alt& to = const_cast<alt&>(*std::get_if<I>(&self));
        const alt& x = *std::get_if<I>(&from);
        if constexpr (std::is_rvalue_reference_v<V&&>) to = std::move(const_cast<alt&>(x));
        else to = x;
    }
    // Destroys the container alternative; the variant around it has nothing
    // else to destroy.
    void destroy_container() noexcept;

    // In a union so that ~value decides when the variant's destructor runs.
    union {
        storage m_v;
    };
};

#if KVMODEL_DEFINITIONS
KVMODEL_NOINLINE KVMODEL_DECL void value::construct_other(const value& o) {
    construct_other_of(o);
}
KVMODEL_NOINLINE KVMODEL_DECL void value::construct_other(value&& o) noexcept {
    construct_other_of(std::move(o));
}
KVMODEL_NOINLINE KVMODEL_DECL void value::assign_from(const value& o) {
    if (assign_same(o)) return;
    std::size_t i = o.m_v.index();
    if (i == 3 || i == 6) {
        // A string or blob copy may throw: copied first, *this stays as it
        // was if it does (as the variant's assignment does).
        value copy(o);
        return assign_from(std::move(copy));
    }
    if (!scalar(m_v.index())) destroy_container();
    construct_from(o); // nothrow: a scalar or a container handle
}
KVMODEL_NOINLINE KVMODEL_DECL void value::assign_from(value&& o) noexcept {
    if (assign_same(std::move(o))) return;
    if (!scalar(m_v.index())) destroy_container();
    construct_from(std::move(o));
}
KVMODEL_NOINLINE KVMODEL_DECL void value::destroy_container() noexcept {
    using string = std::string;
    const storage& self = m_v;
    switch (self.index()) {
    case 3: return const_cast<string*>(std::get_if<3>(&self))->~string();
    case 4: return const_cast<kvmodel::list*>(std::get_if<4>(&self))->~list();
    case 5: return const_cast<kvmodel::map*>(std::get_if<5>(&self))->~map();
    case 6: return const_cast<kvmodel::bytes*>(std::get_if<6>(&self))->~bytes();
    default: return; // valueless: nothing alive
    }
}
#endif // KVMODEL_DEFINITIONS

/// Exact structural equality (see the header comment).
inline bool operator==(const value& a, const value& b) noexcept;

/// One map entry: its key and its value.
struct map_entry {
    value key; ///< the entry's key
    value val; ///< its value
};

/// Builds a bytes value from its characters.
inline bytes to_bytes(std::string_view s) {
    return bytes(s.begin(), s.end());
}

/// Readable one-line rendering: nil, true, 42, 1.5, "text", 0x0aff, [1, 2],
/// {"a": 1}, INF, *.
inline std::string to_string(const value& v);

/// Writes to_string(v): what test frameworks (Catch2, GoogleTest) and loggers
/// print for a value.
inline std::ostream& operator<<(std::ostream& os, const value& v);

} // namespace kvmodel

// Hidden from Doxygen 1.9, which cannot place a std:: specialisation declared
// outside namespace std.
/// \cond std_hash
template <>
struct std::hash<kvmodel::value> {
    std::size_t operator()(const kvmodel::value& v) const noexcept;
};
/// \endcond

// containers.hpp ends by including order.hpp: that way whichever of the three
// headers comes first, order.hpp always sees complete containers.
#include <kvmodel/core/detail/containers.hpp> // IWYU pragma: export

// Lists of values are built everywhere (op arguments, results); with
// kvmodel::compiled the vector's members are compiled once, in the library.
KVMODEL_INSTANTIATE(class std::vector<kvmodel::value>)
