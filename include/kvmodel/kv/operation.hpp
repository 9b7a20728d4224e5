// kvmodel/kv/operation.hpp
//
// The operation vocabulary of operate(): one alternative per Aerospike
// operate() operation, so the Aerospike adapter translates each to exactly
// one as_operations_* call and never emulates anything:
//
//   read_op         as_operations_add_read          bin value (nil if absent)
//   read_all_op     as_operations_add_read_all      all bins (in record.bins)
//   read_header_op  (read with no bins: header only) generation, ttl
//   write_op        as_operations_add_write         nil deletes the bin
//   add_op          as_operations_add_incr / _incr_double
//   append_op       as_operations_add_append_str / _raw
//   prepend_op      as_operations_add_prepend_str / _raw
//   touch_op        as_operations_add_touch         rewrites, new TTL
//   delete_op       as_operations_add_delete        deletes the record
//   cdt_operation   as_operations_map_* / list_*    {bin, cdt::op}
//   bit_operation   as_operations_bit_*             {bin, cdt::bit_op}
//   hll_operation   as_operations_hll_*             {bin, cdt::hll_op}
//   exp_read_op     as_operations_exp_read          {name, packed expression, flags}
//   exp_write_op    as_operations_exp_write         {bin, packed expression, flags}
//
// Semantics (the server's write path, as/src/transaction/write.c), applied by
// a store to one record atomically — all or nothing — with one result per
// operation in order (respond-all-ops): reads see the writes before them; a
// read or remove on a missing record fails KEY_NOT_FOUND; so does a command
// on a missing record that leaves it without bins; add needs an int bin and
// an int delta (or double and double), append/prepend a string bin and a
// string (or bytes and bytes), else BIN_TYPE_ERROR; add/append/prepend on a
// missing bin create it from the operand. read_all cannot share a command
// with other read ops, CDT, bit or HLL ops, nor appear twice
// (PARAMETER_ERROR); touch_op yields no result on the wire (nil here).
//
// Expression ops (the server's expop.c), packed expressions as
// exp::expr::bytes() makes them: exp_read's result is the expression's
// value (also returned as a bin named `name`); unknown fails the command
// OP_NOT_APPLICABLE unless EVAL_NO_FAIL (then nil). exp_write writes the
// value to its bin (result nil): CREATE_ONLY on an existing bin is
// BIN_EXISTS_ERROR, UPDATE_ONLY on a missing one BIN_NOT_FOUND (both a
// silent no-op with POLICY_NO_FAIL); unknown is OP_NOT_APPLICABLE unless
// EVAL_NO_FAIL; a nil value deletes the bin only with ALLOW_DELETE, else
// OP_NOT_APPLICABLE - or a no-op when any flag is set (the server tests
// `flags && POLICY_NO_FAIL`). Unknown flag bits and malformed expressions
// are PARAMETER_ERROR. Flag values: exp/codes.hpp (exp::write_flags,
// exp::read_flags).
//
// Cost: an operation owns its bin name and arguments; building one copies
// them. cdt::op is a few hundred bytes; keep operation lists in a vector and
// hand them over as a span.
#pragma once

#include <kvmodel/cdt/detail/bit_op.hpp> // cdt::bit_op, without its engine
#include <kvmodel/cdt/detail/hll_op.hpp> // cdt::hll_op, without its engine
#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/config.hpp>
#include <kvmodel/core/value.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace kvmodel::kv {

/// Reads one bin.
struct read_op {
    /// The bin to read (nil in the result if absent).
    std::string bin;
    /// Member-wise equality.
    friend bool operator==(const read_op&, const read_op&) = default;
};
/// Reads every bin.
struct read_all_op {
    /// Member-wise equality.
    friend bool operator==(const read_all_op&, const read_all_op&) = default;
};
/// Reads the record's metadata only (generation, expiry).
struct read_header_op {
    /// Member-wise equality.
    friend bool operator==(const read_header_op&, const read_header_op&) = default;
};
/// Writes a bin; a nil value deletes it.
struct write_op {
    /// The bin to write.
    std::string bin;
    /// Its new value; nil deletes the bin.
    value val;
    /// Member-wise equality.
    friend bool operator==(const write_op&, const write_op&) = default;
};
/// Adds an int to an int bin or a double to a double bin (increment).
struct add_op {
    /// The bin to increment (created from the delta when missing).
    std::string bin;
    /// An int for an int bin, a double for a double bin; else BIN_TYPE_ERROR.
    value delta;
    /// Member-wise equality.
    friend bool operator==(const add_op&, const add_op&) = default;
};
/// Appends a string to a string bin or bytes to a bytes bin.
struct append_op {
    /// The bin to append to (created from the operand when missing).
    std::string bin;
    /// A string for a string bin, bytes for a bytes bin; else BIN_TYPE_ERROR.
    value val;
    /// Member-wise equality.
    friend bool operator==(const append_op&, const append_op&) = default;
};
/// Prepends a string to a string bin or bytes to a bytes bin.
struct prepend_op {
    /// The bin to prepend to (created from the operand when missing).
    std::string bin;
    /// A string for a string bin, bytes for a bytes bin; else BIN_TYPE_ERROR.
    value val;
    /// Member-wise equality.
    friend bool operator==(const prepend_op&, const prepend_op&) = default;
};
/// Rewrites the record with a new TTL and generation.
struct touch_op {
    /// Member-wise equality.
    friend bool operator==(const touch_op&, const touch_op&) = default;
};
/// Deletes the record (every bin); later ops in the command see it empty.
struct delete_op {
    /// Member-wise equality.
    friend bool operator==(const delete_op&, const delete_op&) = default;
};
/// A CDT (map or list) operation on a bin.
struct cdt_operation {
    /// The map or list bin.
    std::string bin;
    /// The operation (cdt::map_ops, cdt::list_ops build it).
    cdt::op op;
};
/// A bit operation on a bytes bin.
struct bit_operation {
    /// The bytes bin.
    std::string bin;
    /// The operation (cdt/bit_ops.hpp builds it).
    cdt::bit_op op;
    /// Member-wise equality.
    friend bool operator==(const bit_operation&, const bit_operation&) = default;
};

/// A HyperLogLog operation on an HLL bin (its sketch held as bytes).
struct hll_operation {
    /// The HLL bin.
    std::string bin;
    /// The operation (cdt/hll_ops.hpp builds it).
    cdt::hll_op op;
    /// Member-wise equality.
    friend bool operator==(const hll_operation&, const hll_operation&) = default;
};

/// Evaluates a packed expression; its value is the op's result.
struct exp_read_op {
    /// The name the result is returned under (as a bin).
    std::string name;
    /// The packed expression (exp::expr::bytes()); malformed is PARAMETER_ERROR.
    std::vector<std::uint8_t> exp;
    /// exp::read_flags bits; unknown bits are PARAMETER_ERROR.
    std::uint32_t flags = 0;
    /// Member-wise equality.
    friend bool operator==(const exp_read_op&, const exp_read_op&) = default;
};
/// Evaluates a packed expression and writes its value to a bin.
struct exp_write_op {
    /// The bin the value is written to.
    std::string bin;
    /// The packed expression (exp::expr::bytes()); malformed is PARAMETER_ERROR.
    std::vector<std::uint8_t> exp;
    /// exp::write_flags bits; unknown bits are PARAMETER_ERROR.
    std::uint32_t flags = 0;
    /// Member-wise equality.
    friend bool operator==(const exp_write_op&, const exp_write_op&) = default;
};

/// The alternatives of an operation, in op_kind order.
using operation_variant = std::variant<read_op,
                                       read_all_op,
                                       read_header_op,
                                       write_op,
                                       add_op,
                                       append_op,
                                       prepend_op,
                                       touch_op,
                                       delete_op,
                                       cdt_operation,
                                       bit_operation,
                                       exp_read_op,
                                       exp_write_op,
                                       hll_operation>;

namespace detail {

/// The index of T among the alternatives of V (a std::variant), or V's size
/// when T is none of them.
template <class T, class V>
struct alternative_index;
template <class T, class... A>
struct alternative_index<T, std::variant<A...>> {
    static constexpr std::size_t value = [] {
        constexpr bool same[] = {std::is_same_v<T, A>...};
        std::size_t i = 0;
        while (i < sizeof...(A) && !same[i])
            ++i;
        return i;
    }();
};

/// Converts to a read_op by throwing: emplacing one leaves a variant
/// valueless, which is how a copy of a valueless operation becomes one.
struct valueless_source {
    struct thrown {};
    [[noreturn]] operator read_op() const { throw thrown{}; }
};

} // namespace detail

/// One operation of an operate() command: a std::variant of the alternatives
/// above, used as one (std::get, std::get_if, std::holds_alternative,
/// std::visit, index(), std::variant_size and std::variant_alternative).
///
/// A class rather than an alias so that its copies, moves and destruction —
/// the variant's visit over fourteen alternatives, which every file building a
/// vector of operations would otherwise compile — are compiled once in
/// kvmodel::compiled (KVMODEL_SEPARATE_COMPILATION, kvmodel/config.hpp).
/// Its construction from an alternative, copies, moves and assignments
/// emplace the alternative where it belongs: the variant's own constructors
/// (libstdc++) reach alternative N through N nested union constructors, some
/// 400 functions per file for fourteen alternatives. Same results, same
/// exception guarantees.
class operation : public operation_variant {
    static constexpr std::size_t alternatives = std::variant_size_v<operation_variant>;
    template <class T>
    static constexpr std::size_t index_of =
        detail::alternative_index<std::remove_cvref_t<T>, operation_variant>::value;

public:
    /// Constructs in place, or from what converts to an alternative, as the
    /// variant does.
    using operation_variant::operation_variant;
    /// Assigns what converts to an alternative, as the variant does.
    using operation_variant::operator=;

    /// A read_op of the empty bin name, as the variant's default.
    operation() = default;
    /// Holds `x`, an alternative (`kv::write_op{...}`).
    template <class T>
        requires(index_of<T> < alternatives)
    operation(T&& x) noexcept(std::is_nothrow_constructible_v<std::remove_cvref_t<T>, T&&>) {
        this->template emplace<index_of<T>>(std::forward<T>(x));
    }
    /// Holds `x`, an alternative, in place of what it held.
    template <class T>
        requires(index_of<T> < alternatives)
    operation& operator=(T&& x) noexcept(
        std::is_nothrow_assignable_v<std::remove_cvref_t<T>&, T&&> &&
        std::is_nothrow_constructible_v<std::remove_cvref_t<T>, T&&>) {
        put<index_of<T>>(std::forward<T>(x));
        return *this;
    }
    /// A copy of o's alternative.
    operation(const operation& o);
    /// Takes o's alternative.
    operation(operation&& o) noexcept(std::is_nothrow_move_constructible_v<operation_variant>);
    /// Copy assignment.
    operation& operator=(const operation& o);
    /// Move assignment.
    operation&
    operator=(operation&& o) noexcept(std::is_nothrow_move_assignable_v<operation_variant>);
    /// Destroys the alternative held.
    ~operation();

private:
    // Holds alternative I made from x, assigning as the variant does: in
    // place when I is held, else from a copy made aside first when that
    // keeps the strong guarantee, then moved in.
    template <std::size_t I, class T>
    void put(T&& x) {
        using alt = std::variant_alternative_t<I, operation_variant>;
        if (this->index() == I)
            *std::get_if<I>(this) = std::forward<T>(x);
        else if constexpr (std::is_nothrow_constructible_v<alt, T&&> ||
                           !std::is_nothrow_move_constructible_v<alt>)
            this->template emplace<I>(std::forward<T>(x));
        else {
            alt copy(std::forward<T>(x));
            this->template emplace<I>(std::move(copy));
        }
    }
    // o's alternative I, as const& (From: const operation&) or && (From: operation).
    template <std::size_t I, class From>
    using alt_ref = std::conditional_t<std::is_lvalue_reference_v<From>,
                                       const std::variant_alternative_t<I, operation_variant>&,
                                       std::variant_alternative_t<I, operation_variant>&&>;
    // As alt_ref, but an empty alternative is always passed as &&: copying
    // and moving one are the same (nothing is read or written), so both
    // directions of hold share its emplace<I>.
    template <std::size_t I>
    using alt_t = std::variant_alternative_t<I, operation_variant>;
    template <std::size_t I, class From>
    using hold_ref =
        std::conditional_t<std::is_lvalue_reference_v<From> && !std::is_empty_v<alt_t<I>>,
                           const alt_t<I>&,
                           alt_t<I>&&>;
    using all_alternatives = std::make_index_sequence<alternatives>;
    // Holds a copy of o's alternative (From: const operation&) or takes it
    // (From: operation), in place of what *this holds. One function per
    // direction with the fourteen emplace calls in it, rather than a helper
    // per alternative: the copies and moves are the functions a header-only
    // file emits for every vector<operation>. Both directions find o's
    // alternative through the same const std::get_if<I> (the cast back to
    // non-const only ever serves a move from an operation&&, or an empty
    // alternative, which nothing reads or writes).
    template <class From, std::size_t... I>
    void hold(From&& o, std::index_sequence<I...>) {
        if (o.valueless_by_exception()) {
            become_valueless();
            return;
        }
        const operation_variant& from = o;
        (void)((from.index() == I &&
                (this->template emplace<I>(
                     static_cast<hold_ref<I, From>>(const_cast<alt_t<I>&>(*std::get_if<I>(&from)))),
                 true)) ||
               ...);
    }
    // Assignment from o, as the variant's: o's alternative assigned in place
    // when *this holds the same one, else held anew (a copy is made aside
    // first, which keeps the strong guarantee as the variant's copy
    // assignment does: every alternative moves without throwing).
    template <class From>
    void assign(From&& o) {
        static_assert(std::is_nothrow_move_constructible_v<operation_variant>);
        if (o.valueless_by_exception() || this->index() != o.index()) {
            if constexpr (std::is_lvalue_reference_v<From>) {
                if (!o.valueless_by_exception()) {
                    operation copy(o);
                    hold(std::move(copy), all_alternatives{});
                    return;
                }
            }
            hold(std::forward<From>(o), all_alternatives{});
            return;
        }
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (void)((o.index() == I &&
                    (*std::get_if<I>(this) = static_cast<alt_ref<I, From>>(*std::get_if<I>(&o)),
                     true)) ||
                   ...);
        }(std::make_index_sequence<alternatives>{});
    }
    // Valueless, as a copy of (or assignment from) a valueless variant is.
    void become_valueless() noexcept {
        try {
            this->template emplace<0>(detail::valueless_source{});
        } catch (const detail::valueless_source::thrown&) {
        }
    }
};

#if KVMODEL_DEFINITIONS
KVMODEL_DECL operation::operation(const operation& o) : operation_variant() {
    hold(o, all_alternatives{});
}
KVMODEL_DECL operation::operation(operation&& o) noexcept(
    std::is_nothrow_move_constructible_v<operation_variant>)
    : operation_variant() {
    hold(std::move(o), all_alternatives{});
}
KVMODEL_DECL operation& operation::operator=(const operation& o) {
    assign(o);
    return *this;
}
KVMODEL_DECL operation& operation::operator=(operation&& o) noexcept(
    std::is_nothrow_move_assignable_v<operation_variant>) {
    assign(std::move(o));
    return *this;
}
KVMODEL_DECL operation::~operation() = default;
#endif // KVMODEL_DEFINITIONS

} // namespace kvmodel::kv

KVMODEL_INSTANTIATE(class std::vector<kvmodel::kv::operation>)

namespace kvmodel::kv {

/// Which alternative an operation is (its variant index).
enum class op_kind : std::uint8_t {
    read = 0,
    read_all = 1,
    read_header = 2,
    write = 3,
    add = 4,
    append = 5,
    prepend = 6,
    touch = 7,
    delete_record = 8,
    cdt = 9,
    bit = 10,
    exp_read = 11,
    exp_write = 12,
    hll = 13,
};

namespace detail {
/// The variant index of alternative k: kind(o) == k makes
/// std::get_if<at(k)>(&o) non-null (the switches below use the index, not
/// the type: get_if<T> and get<T> would each be one more function per
/// alternative in every header-only file).
constexpr std::size_t at(op_kind k) noexcept {
    return static_cast<std::size_t>(k);
}
} // namespace detail

/// Which alternative `o` holds. O(1).
KVMODEL_FORCE_INLINE inline op_kind kind(const operation& o) noexcept {
    return static_cast<op_kind>(o.index());
}

/// The bin an operation addresses, or nullptr for record-level operations
/// (read_all, read_header, touch, delete).
KVMODEL_DECL const std::string* bin_of(const operation& o) noexcept;

/// Whether an operation only reads: read, read_all, read_header, CDT read ops
/// (cdt::classify == read), bit and HLL read ops. A command of reads only never
/// writes the record.
KVMODEL_DECL bool is_read(const operation& o) noexcept;

/// The operation's name for messages: "read", "write", "add", ..., or the
/// CDT / bit / HLL op's own name ("map_put", "bit_set", "hll_add").
KVMODEL_DECL std::string_view op_name(const operation& o) noexcept;

/// Builders, named after Aerospike's Operation calls:
/// `kv::op::write("count", 1)`, `kv::op::cdt("events", cdt::map_ops::map_put(...))`.
namespace op {
/// Reads bin `bin` (nil if absent); KEY_NOT_FOUND on a missing record.
KVMODEL_DECL operation read(std::string bin);
/// Reads every bin; cannot share a command with other read, CDT or bit ops
/// (PARAMETER_ERROR).
KVMODEL_DECL operation read_all();
/// Reads the record's generation and expiry only.
KVMODEL_DECL operation read_header();
/// Writes `v` to bin `bin`; a nil `v` deletes the bin.
KVMODEL_DECL operation write(std::string bin, value v);
/// Increment: an int delta for an int bin, a double delta for a double bin.
KVMODEL_DECL operation add(std::string bin, value delta);
/// Appends a string to a string bin or bytes to a bytes bin (BIN_TYPE_ERROR
/// otherwise); a missing bin is created from `v`.
KVMODEL_DECL operation append(std::string bin, value v);
/// Prepends a string to a string bin or bytes to a bytes bin (BIN_TYPE_ERROR
/// otherwise); a missing bin is created from `v`.
KVMODEL_DECL operation prepend(std::string bin, value v);
/// Rewrites the record with a new TTL and generation; no result (nil).
KVMODEL_DECL operation touch();
/// Deletes the record; later operations of the command see it empty.
KVMODEL_DECL operation delete_record();
/// A map or list operation on bin `bin` (moves `o`, a few hundred bytes).
KVMODEL_DECL operation cdt(std::string bin, ::kvmodel::cdt::op o);
/// A bit operation on bytes bin `bin`.
KVMODEL_DECL operation bit(std::string bin, ::kvmodel::cdt::bit_op o);
/// A HyperLogLog operation on HLL bin `bin`.
KVMODEL_DECL operation hll(std::string bin, ::kvmodel::cdt::hll_op o);
/// An expression read: `kv::op::exp_read("r", (exp::bin_int("a") + 1).bytes())`.
KVMODEL_DECL operation exp_read(std::string name,
                                std::vector<std::uint8_t> exp,
                                std::uint32_t flags = 0);
/// An expression write of bin `bin`.
KVMODEL_DECL operation exp_write(std::string bin,
                                 std::vector<std::uint8_t> exp,
                                 std::uint32_t flags = 0);
} // namespace op

#if KVMODEL_DEFINITIONS
KVMODEL_DECL const std::string* bin_of(const operation& o) noexcept {
    switch (kind(o)) {
    case op_kind::read:
        return &std::get_if<detail::at(op_kind::read)>(&o)->bin;
    case op_kind::write:
        return &std::get_if<detail::at(op_kind::write)>(&o)->bin;
    case op_kind::add:
        return &std::get_if<detail::at(op_kind::add)>(&o)->bin;
    case op_kind::append:
        return &std::get_if<detail::at(op_kind::append)>(&o)->bin;
    case op_kind::prepend:
        return &std::get_if<detail::at(op_kind::prepend)>(&o)->bin;
    case op_kind::cdt:
        return &std::get_if<detail::at(op_kind::cdt)>(&o)->bin;
    case op_kind::bit:
        return &std::get_if<detail::at(op_kind::bit)>(&o)->bin;
    case op_kind::exp_read:
        return &std::get_if<detail::at(op_kind::exp_read)>(&o)->name;
    case op_kind::exp_write:
        return &std::get_if<detail::at(op_kind::exp_write)>(&o)->bin;
    case op_kind::hll:
        return &std::get_if<detail::at(op_kind::hll)>(&o)->bin;
    default:
        return nullptr;
    }
}
KVMODEL_DECL bool is_read(const operation& o) noexcept {
    switch (kind(o)) {
    case op_kind::read:
    case op_kind::read_all:
    case op_kind::read_header:
    case op_kind::exp_read:
        return true;
    case op_kind::cdt:
        return cdt::classify(std::get_if<detail::at(op_kind::cdt)>(&o)->op.code) ==
               cdt::op_class::read;
    case op_kind::bit:
        return cdt::is_bit_read(std::get_if<detail::at(op_kind::bit)>(&o)->op.code);
    case op_kind::hll:
        return cdt::is_hll_read(std::get_if<detail::at(op_kind::hll)>(&o)->op.code);
    default:
        return false;
    }
}
KVMODEL_DECL std::string_view op_name(const operation& o) noexcept {
    switch (kind(o)) {
    case op_kind::read:
        return "read";
    case op_kind::read_all:
        return "read_all";
    case op_kind::read_header:
        return "read_header";
    case op_kind::write:
        return "write";
    case op_kind::add:
        return "add";
    case op_kind::append:
        return "append";
    case op_kind::prepend:
        return "prepend";
    case op_kind::touch:
        return "touch";
    case op_kind::delete_record:
        return "delete";
    case op_kind::cdt:
        return cdt::op_name(std::get_if<detail::at(op_kind::cdt)>(&o)->op.code);
    case op_kind::bit:
        return cdt::bit_op_name(std::get_if<detail::at(op_kind::bit)>(&o)->op.code);
    case op_kind::exp_read:
        return "exp_read";
    case op_kind::exp_write:
        return "exp_write";
    case op_kind::hll:
        return cdt::hll_op_name(std::get_if<detail::at(op_kind::hll)>(&o)->op.code);
    }
    return "?";
}
namespace op {
KVMODEL_DECL operation read(std::string bin) {
    return read_op{std::move(bin)};
}
KVMODEL_DECL operation read_all() {
    return read_all_op{};
}
KVMODEL_DECL operation read_header() {
    return read_header_op{};
}
KVMODEL_DECL operation write(std::string bin, value v) {
    return write_op{std::move(bin), std::move(v)};
}
KVMODEL_DECL operation add(std::string bin, value delta) {
    return add_op{std::move(bin), std::move(delta)};
}
KVMODEL_DECL operation append(std::string bin, value v) {
    return append_op{std::move(bin), std::move(v)};
}
KVMODEL_DECL operation prepend(std::string bin, value v) {
    return prepend_op{std::move(bin), std::move(v)};
}
KVMODEL_DECL operation touch() {
    return touch_op{};
}
KVMODEL_DECL operation delete_record() {
    return delete_op{};
}
KVMODEL_DECL operation cdt(std::string bin, ::kvmodel::cdt::op o) {
    return cdt_operation{std::move(bin), std::move(o)};
}
KVMODEL_DECL operation bit(std::string bin, ::kvmodel::cdt::bit_op o) {
    return bit_operation{std::move(bin), std::move(o)};
}
KVMODEL_DECL operation hll(std::string bin, ::kvmodel::cdt::hll_op o) {
    return hll_operation{std::move(bin), std::move(o)};
}
KVMODEL_DECL operation exp_read(std::string name,
                                std::vector<std::uint8_t> exp,
                                std::uint32_t flags) {
    return exp_read_op{std::move(name), std::move(exp), flags};
}
KVMODEL_DECL operation exp_write(std::string bin,
                                 std::vector<std::uint8_t> exp,
                                 std::uint32_t flags) {
    return exp_write_op{std::move(bin), std::move(exp), flags};
}
} // namespace op
#endif // KVMODEL_DEFINITIONS

} // namespace kvmodel::kv

// Hidden from Doxygen 1.9, which cannot place a std:: specialisation declared
// outside namespace std.
/// \cond std_variant_helpers
// operation is used as its variant: these let std::visit and generic code
// that asks for variant_size / variant_alternative see it as one.
template <>
struct std::variant_size<kvmodel::kv::operation>
    : std::variant_size<kvmodel::kv::operation_variant> {};
template <std::size_t I>
struct std::variant_alternative<I, kvmodel::kv::operation>
    : std::variant_alternative<I, kvmodel::kv::operation_variant> {};
/// \endcond
