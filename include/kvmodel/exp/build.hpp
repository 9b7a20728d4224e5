// kvmodel/exp/build.hpp
//
// kvmodel::exp: a C++ builder for Aerospike expressions that packs to the
// bytes the C client's as_exp_compile produces for the same expression,
// byte for byte, so the packed form can go to a real server unchanged (the
// Aerospike adapter does) or to exp::compile / the simulator.
//
// Names are the C client's as_exp_* macros without their prefix
// (exp::cmp_gt, exp::bin_int, exp::list_get_by_index, ...), with a trailing
// underscore where the name is a C++ keyword (and_, or_, not_, int_val,
// float_val, bool_val). Operators spell the common ones:
//
//   ==  !=  <  <=  >  >=      cmp_eq cmp_ne cmp_lt cmp_le cmp_gt cmp_ge
//   &&  ||  !                 and_ or_ not_ (a && b && c nests: and_(and_(a, b), c))
//   +  -  *  /  %  unary -    add sub mul div mod, sub(x)
//   &  |  ^  ~  <<  >>        int_and int_or int_xor int_not int_lshift int_arshift
//
// An int, double, bool, string literal or kvmodel::value converts to the
// matching value expression, so `exp::bin_int("score") > 10` is
// cmp_gt(bin_int("score"), int_val(10)).
//
// Beware: the C++ operators of an `expr` build expressions; they never
// compare two builders (use packed() for that). `a >> b` is the arithmetic
// shift (int_arshift), as in C++; int_rshift is the logical one.
//
// Typing is the server's: the builder does not check argument types;
// exp::compile (and the server) refuse a mistyped expression with
// PARAMETER_ERROR naming the node. Including this header also includes the
// evaluator (exp/eval.hpp), which the simulator needs to honour filters.
//
// Cost: each call copies its operands' bytes into a new buffer: building is
// O(size x depth); build once, reuse the expr.
#pragma once

#include <kvmodel/adapters/detail/aerospike_wire.hpp>
#include <kvmodel/cdt/context.hpp>
#include <kvmodel/cdt/hll_ops.hpp>
#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/exp/codes.hpp>
#include <kvmodel/exp/eval.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace kvmodel::exp {

/// A packed expression.
class expr {
public:
    /// An empty expression (no bytes): not a valid expression by itself.
    expr() = default;
    // Implicit: a C++ constant stands for its value expression.
    /// The integer constant `v` (as expr(std::int64_t)).
    expr(int v)
        : expr(static_cast<std::int64_t>(v)) {} // NOLINT(google-explicit-constructor)
    /// The integer constant `v`, packed as a msgpack integer. O(1).
    expr(std::int64_t v) { w().integer(v); }    // NOLINT(google-explicit-constructor)
    /// The float constant `v`, packed as a msgpack double. O(1).
    expr(double v) { w().floating(v); }         // NOLINT(google-explicit-constructor)
    /// The boolean constant `v`. O(1).
    expr(bool v) { w().boolean(v); }            // NOLINT(google-explicit-constructor)
    /// The string constant `s` (as expr(std::string_view)).
    expr(const char* s)
        : expr(std::string_view(s)) {} // NOLINT(google-explicit-constructor)
    /// The string constant `s`: a msgpack string with the particle-type prefix
    /// byte (string), as the C client packs it. O(size of `s`).
    expr(std::string_view s) {         // NOLINT(google-explicit-constructor)
        w().prefixed(3, reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
    }
    /// The string constant `s` (as expr(std::string_view)).
    expr(const std::string& s)
        : expr(std::string_view(s)) {} // NOLINT(google-explicit-constructor)
    /// Any value (as_exp_val): a list is quoted, as the C client does.
    expr(const value& v) { // NOLINT(google-explicit-constructor)
        if (v.is_list()) {
            w().array_header(2);
            w().integer(code::quote);
        }
        adapters::detail::encode_msgpack(v, m_b);
    }

    /// The packed bytes (what as_exp_compile's as_exp::packed holds).
    std::span<const std::uint8_t> packed() const noexcept { return m_b; }
    /// The packed bytes as a vector (what kv::op::exp_read / exp_write and the
    /// policies' filter expressions take). O(1).
    const std::vector<std::uint8_t>& bytes() const noexcept { return m_b; }

    /// Raw access for the builder functions.
    std::vector<std::uint8_t>& raw() noexcept { return m_b; }

private:
    adapters::detail::msgpack_writer w() { return adapters::detail::msgpack_writer(m_b); }
    std::vector<std::uint8_t> m_b;
};

namespace detail {
inline void append(std::vector<std::uint8_t>& out, const expr& e) {
    out.insert(out.end(), e.bytes().begin(), e.bytes().end());
}
inline adapters::detail::msgpack_writer writer(expr& e) {
    return adapters::detail::msgpack_writer(e.raw());
}
/// [op, args...].
inline expr op(std::uint8_t c, std::initializer_list<const expr*> args) {
    expr e;
    writer(e).array_header(args.size() + 1);
    writer(e).integer(c);
    for (const expr* a : args)
        append(e.raw(), *a);
    return e;
}
inline expr op_n(std::uint8_t c, std::span<const expr> args) {
    expr e;
    writer(e).array_header(args.size() + 1);
    writer(e).integer(c);
    for (const expr& a : args)
        append(e.raw(), a);
    return e;
}
/// A string packed without particle-type prefix (_AS_EXP_VAL_RAWSTR).
inline void raw_str(expr& e, std::string_view s) {
    auto& b = e.raw();
    std::size_t n = s.size();
    if (n < 32)
        b.push_back(static_cast<std::uint8_t>(0xa0 | n));
    else if (n < 256) {
        b.push_back(0xd9);
        b.push_back(static_cast<std::uint8_t>(n));
    } else if (n < 65536) {
        b.push_back(0xda);
        b.push_back(static_cast<std::uint8_t>(n >> 8));
        b.push_back(static_cast<std::uint8_t>(n));
    } else {
        b.push_back(0xdb);
        for (int k = 3; k >= 0; --k)
            b.push_back(static_cast<std::uint8_t>(n >> (8 * k)));
    }
    b.insert(b.end(), s.begin(), s.end());
}
template <class... A>
std::vector<expr> collect(A&&... a) {
    std::vector<expr> v;
    v.reserve(sizeof...(A));
    (v.emplace_back(std::forward<A>(a)), ...);
    return v;
}
} // namespace detail

// --- values -------------------------------------------------------------------------
/// as_exp_int: the integer constant `v`.
inline expr int_val(std::int64_t v) {
    return expr(v);
}
/// as_exp_uint: an unsigned integer (packed as msgpack uint).
inline expr uint_val(std::uint64_t v) {
    expr e;
    auto& b = e.raw();
    if (v < 128)
        b.push_back(static_cast<std::uint8_t>(v));
    else {
        int n = v < 256 ? 1 : (v < 65536 ? 2 : (v < 4294967296ULL ? 4 : 8));
        b.push_back(n == 1 ? 0xcc : (n == 2 ? 0xcd : (n == 4 ? 0xce : 0xcf)));
        for (int k = n - 1; k >= 0; --k)
            b.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
    }
    return e;
}
/// as_exp_float: the double constant `v`.
inline expr float_val(double v) {
    return expr(v);
}
/// as_exp_bool: the boolean constant `v`.
inline expr bool_val(bool v) {
    return expr(v);
}
/// as_exp_str: the string constant `s`.
inline expr str(std::string_view s) {
    return expr(s);
}
/// as_exp_bytes: the bytes constant `b`.
inline expr bytes_val(const kvmodel::bytes& b) {
    return expr(value(b));
}
/// as_exp_val: any value `v` as a constant (a list is quoted).
inline expr val(const value& v) {
    return expr(v);
}
/// as_exp_nil: the nil constant.
inline expr nil() {
    return expr(value());
}
/// as_exp_inf: INF, above every value (an unbounded range end).
inline expr inf() {
    return expr(value(kvmodel::inf));
}
/// as_exp_wildcard: WILDCARD, matching anything in a value argument.
inline expr wildcard() {
    return expr(value(kvmodel::wildcard));
}
/// as_exp_unknown: always unknown (an exp op then fails OP_NOT_APPLICABLE
/// unless EVAL_NO_FAIL).
inline expr unknown() {
    return detail::op(code::unknown, {});
}

// --- record key, bins, metadata ---------------------------------------------------
/// as_exp_key: the stored user key if it has type `t`; unknown when the key
/// is not stored or has another type.
inline expr key(type t) {
    expr tv(static_cast<std::int64_t>(t));
    return detail::op(code::key, {&tv});
}
/// as_exp_key_int: the stored user key as an integer (key(type::integer)).
inline expr key_int() {
    return key(type::integer);
}
/// as_exp_key_str: the stored user key as a string (key(type::string)).
inline expr key_str() {
    return key(type::string);
}
/// as_exp_key_blob: the stored user key as bytes (key(type::blob)).
inline expr key_blob() {
    return key(type::blob);
}
/// as_exp_key_exist: whether the record stores its user key.
inline expr key_exists() {
    return detail::op(code::key_exists, {});
}

/// as_exp_bin_<type>: the bin's value if it has that type, else unknown.
inline expr bin(std::string_view name, type t) {
    expr e;
    detail::writer(e).array_header(3);
    detail::writer(e).integer(code::bin);
    detail::writer(e).integer(static_cast<std::int64_t>(t));
    detail::raw_str(e, name);
    return e;
}
/// as_exp_bin_bool: bin `n` if boolean, else unknown.
inline expr bin_bool(std::string_view n) {
    return bin(n, type::boolean);
}
/// as_exp_bin_int: bin `n` if an integer, else unknown.
inline expr bin_int(std::string_view n) {
    return bin(n, type::integer);
}
/// as_exp_bin_float: bin `n` if a double, else unknown.
inline expr bin_float(std::string_view n) {
    return bin(n, type::floating);
}
/// as_exp_bin_str: bin `n` if a string, else unknown.
inline expr bin_str(std::string_view n) {
    return bin(n, type::string);
}
/// as_exp_bin_blob: bin `n` if bytes, else unknown.
inline expr bin_blob(std::string_view n) {
    return bin(n, type::blob);
}
/// as_exp_bin_list: bin `n` if a list, else unknown.
inline expr bin_list(std::string_view n) {
    return bin(n, type::list);
}
/// as_exp_bin_map: bin `n` if a map, else unknown.
inline expr bin_map(std::string_view n) {
    return bin(n, type::map);
}
/// as_exp_bin_type: the particle type number of bin `name`
/// (exp::particle_type; null = 0 when the bin is absent).
inline expr bin_type(std::string_view name) {
    expr e;
    detail::writer(e).array_header(2);
    detail::writer(e).integer(code::bin_type);
    detail::raw_str(e, name);
    return e;
}
/// as_exp_bin_exists: bin_type(name) != 0.
inline expr bin_exists(std::string_view name);

/// as_exp_digest_modulo: the digest's bytes 16..19 modulo `mod`; compile
/// refuses 0 (PARAMETER_ERROR). Unknown in a pass without metadata.
inline expr digest_modulo(std::int64_t mod) {
    expr m(mod);
    return detail::op(code::digest_modulo, {&m});
}
/// as_exp_device_size: the record's stored size in bytes. Unknown in a pass without metadata.
inline expr device_size() {
    return detail::op(code::device_size, {});
}
/// as_exp_memory_size: 0 (kvmodel stores a namespace on a device). Unknown in a pass without
/// metadata.
inline expr memory_size() {
    return detail::op(code::memory_size, {});
}
/// as_exp_record_size: the record's stored size in bytes. Unknown in a pass without metadata.
inline expr record_size() {
    return detail::op(code::record_size, {});
}
/// as_exp_last_update: the record's last write, in nanoseconds since the
/// Unix epoch. Unknown in a pass without metadata.
inline expr last_update() {
    return detail::op(code::last_update, {});
}
/// as_exp_since_update: milliseconds since the record's last write. Unknown in a pass without
/// metadata.
inline expr since_update() {
    return detail::op(code::since_update, {});
}
/// as_exp_void_time: the record's expiry in nanoseconds since the Unix
/// epoch; -1 when it never expires. Unknown in a pass without metadata.
inline expr void_time() {
    return detail::op(code::void_time, {});
}
/// as_exp_ttl: seconds until the record expires; -1 when it never expires. Unknown in a pass
/// without metadata.
inline expr ttl() {
    return detail::op(code::ttl, {});
}
/// as_exp_set_name: the record's set name (empty without a set). Unknown in a pass without
/// metadata.
inline expr set_name() {
    return detail::op(code::set_name, {});
}
/// as_exp_is_tombstone: whether the record is a tombstone (always false:
/// the simulator keeps none). Unknown in a pass without metadata.
inline expr is_tombstone() {
    return detail::op(code::is_tombstone, {});
}

// --- comparisons and logic --------------------------------------------------------
/// as_exp_cmp_eq: `a == b` in Aerospike's order. Unknown when either side is unknown; compile
/// refuses sides of different types (PARAMETER_ERROR).
inline expr cmp_eq(const expr& a, const expr& b) {
    return detail::op(code::cmp_eq, {&a, &b});
}
/// as_exp_cmp_ne: `a != b`. Unknown when either side is unknown; compile refuses sides of different
/// types (PARAMETER_ERROR).
inline expr cmp_ne(const expr& a, const expr& b) {
    return detail::op(code::cmp_ne, {&a, &b});
}
/// as_exp_cmp_gt: `a > b` in Aerospike's order. Unknown when either side is unknown; compile
/// refuses sides of different types (PARAMETER_ERROR).
inline expr cmp_gt(const expr& a, const expr& b) {
    return detail::op(code::cmp_gt, {&a, &b});
}
/// as_exp_cmp_ge: `a >= b` in Aerospike's order. Unknown when either side is unknown; compile
/// refuses sides of different types (PARAMETER_ERROR).
inline expr cmp_ge(const expr& a, const expr& b) {
    return detail::op(code::cmp_ge, {&a, &b});
}
/// as_exp_cmp_lt: `a < b` in Aerospike's order. Unknown when either side is unknown; compile
/// refuses sides of different types (PARAMETER_ERROR).
inline expr cmp_lt(const expr& a, const expr& b) {
    return detail::op(code::cmp_lt, {&a, &b});
}
/// as_exp_cmp_le: `a <= b` in Aerospike's order. Unknown when either side is unknown; compile
/// refuses sides of different types (PARAMETER_ERROR).
inline expr cmp_le(const expr& a, const expr& b) {
    return detail::op(code::cmp_le, {&a, &b});
}
/// cmp_regex(flags, pattern, string expression): POSIX regex (regex_flags).
inline expr cmp_regex(std::int64_t flags, std::string_view pattern, const expr& s) {
    expr e;
    detail::writer(e).array_header(4);
    detail::writer(e).integer(code::cmp_regex);
    detail::writer(e).integer(flags);
    detail::raw_str(e, pattern);
    detail::append(e.raw(), s);
    return e;
}
/// Whether `v` is an element of the list `l`.
inline expr in_list(const expr& v, const expr& l) {
    return detail::op(code::in_list, {&v, &l});
}

inline expr bin_exists(std::string_view name) {
    return cmp_ne(bin_type(name), int_val(0));
}

template <class... A>
/// as_exp_and: false if any argument is false, else unknown if any is
/// unknown, else true.
expr and_(A&&... a) {
    auto v = detail::collect(std::forward<A>(a)...);
    return detail::op_n(code::and_, v);
}
template <class... A>
/// as_exp_or: true if any argument is true, else unknown if any is unknown,
/// else false.
expr or_(A&&... a) {
    auto v = detail::collect(std::forward<A>(a)...);
    return detail::op_n(code::or_, v);
}
template <class... A>
/// as_exp_exclusive: true when exactly one argument is true; unknown as soon
/// as one is unknown.
expr exclusive(A&&... a) {
    auto v = detail::collect(std::forward<A>(a)...);
    return detail::op_n(code::exclusive, v);
}
/// as_exp_not: the negation of `a` (unknown stays unknown).
inline expr not_(const expr& a) {
    return detail::op(code::not_, {&a});
}

// --- arithmetic ---------------------------------------------------------------------
#define KVMODEL_EXP_VARIADIC(fn, c)                                                                \
    template <class... A>                                                                          \
    expr fn(A&&... a) {                                                                            \
        auto v = detail::collect(std::forward<A>(a)...);                                           \
        return detail::op_n(c, v);                                                                 \
    }
/// as_exp_add: the sum of the arguments; integers wrap. All integers or all doubles (compile
/// refuses a mix: PARAMETER_ERROR).
KVMODEL_EXP_VARIADIC(add, code::add)
/// as_exp_sub: the first argument minus the others (one argument: its
/// negation); integers wrap. All integers or all doubles (compile refuses a mix: PARAMETER_ERROR).
KVMODEL_EXP_VARIADIC(sub, code::sub)
/// as_exp_mul: the product of the arguments; integers wrap. All integers or all doubles (compile
/// refuses a mix: PARAMETER_ERROR).
KVMODEL_EXP_VARIADIC(mul, code::mul)
/// as_exp_div: the first argument divided by the product of the others (one argument: 1 / a);
/// unknown for an integer division by zero. All integers or all doubles (compile refuses a mix:
/// PARAMETER_ERROR).
KVMODEL_EXP_VARIADIC(div, code::div)
/// as_exp_min: the smallest argument. All integers or all doubles (compile refuses a mix:
/// PARAMETER_ERROR).
KVMODEL_EXP_VARIADIC(min, code::min)
/// as_exp_max: the largest argument. All integers or all doubles (compile refuses a mix:
/// PARAMETER_ERROR).
KVMODEL_EXP_VARIADIC(max, code::max)
/// as_exp_int_and: the bitwise and of the integer arguments.
KVMODEL_EXP_VARIADIC(int_and, code::int_and)
/// as_exp_int_or: the bitwise or of the integer arguments.
KVMODEL_EXP_VARIADIC(int_or, code::int_or)
/// as_exp_int_xor: the bitwise xor of the integer arguments.
KVMODEL_EXP_VARIADIC(int_xor, code::int_xor)
#undef KVMODEL_EXP_VARIADIC
/// as_exp_pow: `a` to the power `b` (doubles).
inline expr pow(const expr& a, const expr& b) {
    return detail::op(code::pow, {&a, &b});
}
/// as_exp_log: the logarithm of `a` in base `b` (doubles).
inline expr log(const expr& a, const expr& b) {
    return detail::op(code::log, {&a, &b});
}
/// as_exp_mod: `a` modulo `b` (integers); unknown when `b` is 0.
inline expr mod(const expr& a, const expr& b) {
    return detail::op(code::mod, {&a, &b});
}
/// as_exp_abs: the absolute value of `a` (integer or double).
inline expr abs(const expr& a) {
    return detail::op(code::abs, {&a});
}
/// as_exp_floor: `a` rounded down (double).
inline expr floor(const expr& a) {
    return detail::op(code::floor, {&a});
}
/// as_exp_ceil: `a` rounded up (double).
inline expr ceil(const expr& a) {
    return detail::op(code::ceil, {&a});
}
/// as_exp_to_int: double `a` truncated to an integer (INT64_MIN for NaN or
/// out of range).
inline expr to_int(const expr& a) {
    return detail::op(code::to_int, {&a});
}
/// as_exp_to_float: integer `a` as a double.
inline expr to_float(const expr& a) {
    return detail::op(code::to_float, {&a});
}
/// as_exp_int_not: the bitwise complement of `a`.
inline expr int_not(const expr& a) {
    return detail::op(code::int_not, {&a});
}
/// as_exp_int_lshift: `a` shifted left by `b` bits (count modulo 64).
inline expr int_lshift(const expr& a, const expr& b) {
    return detail::op(code::int_lshift, {&a, &b});
}
/// as_exp_int_rshift: `a` shifted right by `b` bits, filling with zeros
/// (count modulo 64).
inline expr int_rshift(const expr& a, const expr& b) {
    return detail::op(code::int_rshift, {&a, &b});
}
/// as_exp_int_arshift: `a` shifted right by `b` bits, keeping the sign
/// (count modulo 64).
inline expr int_arshift(const expr& a, const expr& b) {
    return detail::op(code::int_arshift, {&a, &b});
}
/// as_exp_int_count: the number of set bits of `a`.
inline expr int_count(const expr& a) {
    return detail::op(code::int_count, {&a});
}
/// as_exp_int_lscan: the index (0 = most significant) of the first bit of
/// `a` equal to `search` (a boolean: true looks for a 1), scanning from the
/// most significant; -1 when none.
inline expr int_lscan(const expr& a, const expr& search) {
    return detail::op(code::int_lscan, {&a, &search});
}
/// as_exp_int_rscan: the index (0 = most significant) of the first bit of
/// `a` equal to `search` (a boolean: true looks for a 1), scanning from the
/// least significant; -1 when none.
inline expr int_rscan(const expr& a, const expr& search) {
    return detail::op(code::int_rscan, {&a, &search});
}

// --- flow and variables -------------------------------------------------------------
/// cond(c1, v1, c2, v2, ..., default).
template <class... A>
expr cond(A&&... a) {
    auto v = detail::collect(std::forward<A>(a)...);
    return detail::op_n(code::cond, v);
}
/// A let definition: def("x", value_expression).
struct definition {
    /// The variable's name (var(name) reads it in the let body).
    std::string name;
    /// The expression bound to it.
    expr e;
};
/// as_exp_def: binds `e` to the variable `name` in a let(); compile refuses
/// an invalid or duplicate name (PARAMETER_ERROR).
inline definition def(std::string_view name, expr e) {
    return {std::string(name), std::move(e)};
}
namespace detail {
inline void let_part(expr& out, std::size_t& n, const definition& d) {
    raw_str(out, d.name);
    append(out.raw(), d.e);
    n += 2;
}
inline void let_part(expr& out, std::size_t& n, const expr& body) {
    append(out.raw(), body);
    n += 1;
}
} // namespace detail
/// let(def("x", e1), def("y", e2), ..., body).
template <class... A>
expr let(const A&... a) {
    expr body;
    std::size_t n = 0;
    (detail::let_part(body, n, a), ...);
    expr e;
    detail::writer(e).array_header(n + 1);
    detail::writer(e).integer(code::let);
    detail::append(e.raw(), body);
    return e;
}
/// as_exp_var: the value of the let() variable `name`; compile refuses an
/// undefined name (PARAMETER_ERROR).
inline expr var(std::string_view name) {
    expr e;
    detail::writer(e).array_header(2);
    detail::writer(e).integer(code::var);
    detail::raw_str(e, name);
    return e;
}

// --- operators ----------------------------------------------------------------------
/// Builds cmp_eq(a, b).
inline expr operator==(const expr& a, const expr& b) {
    return cmp_eq(a, b);
}
/// Builds cmp_ne(a, b).
inline expr operator!=(const expr& a, const expr& b) {
    return cmp_ne(a, b);
}
/// Builds cmp_lt(a, b).
inline expr operator<(const expr& a, const expr& b) {
    return cmp_lt(a, b);
}
/// Builds cmp_le(a, b).
inline expr operator<=(const expr& a, const expr& b) {
    return cmp_le(a, b);
}
/// Builds cmp_gt(a, b).
inline expr operator>(const expr& a, const expr& b) {
    return cmp_gt(a, b);
}
/// Builds cmp_ge(a, b).
inline expr operator>=(const expr& a, const expr& b) {
    return cmp_ge(a, b);
}
/// Builds not_(a).
inline expr operator!(const expr& a) {
    return not_(a);
}
/// Builds and_(a, b).
inline expr operator&&(const expr& a, const expr& b) {
    return and_(a, b);
}
/// Builds or_(a, b).
inline expr operator||(const expr& a, const expr& b) {
    return or_(a, b);
}
/// Builds add(a, b).
inline expr operator+(const expr& a, const expr& b) {
    return add(a, b);
}
/// Builds sub(a, b).
inline expr operator-(const expr& a, const expr& b) {
    return sub(a, b);
}
/// Builds sub(a) (negation).
inline expr operator-(const expr& a) {
    return sub(a);
}
/// Builds mul(a, b).
inline expr operator*(const expr& a, const expr& b) {
    return mul(a, b);
}
/// Builds div(a, b).
inline expr operator/(const expr& a, const expr& b) {
    return div(a, b);
}
/// Builds mod(a, b).
inline expr operator%(const expr& a, const expr& b) {
    return mod(a, b);
}
/// Builds int_and(a, b).
inline expr operator&(const expr& a, const expr& b) {
    return int_and(a, b);
}
/// Builds int_or(a, b).
inline expr operator|(const expr& a, const expr& b) {
    return int_or(a, b);
}
/// Builds int_xor(a, b).
inline expr operator^(const expr& a, const expr& b) {
    return int_xor(a, b);
}
/// Builds int_not(a).
inline expr operator~(const expr& a) {
    return int_not(a);
}
/// Builds int_lshift(a, b).
inline expr operator<<(const expr& a, const expr& b) {
    return int_lshift(a, b);
}
/// Builds int_arshift(a, b) (the arithmetic shift, as in C++).
inline expr operator>>(const expr& a, const expr& b) {
    return int_arshift(a, b);
}

// --- CDT calls ----------------------------------------------------------------------
/// A nested context for a CDT call (as_cdt_ctx): the same steps as cdt::op's.
using ctx = std::vector<cdt::ctx_step>;

namespace detail {
inline void pack_ctx(expr& e, const ctx& c) {
    auto w = writer(e);
    w.array_header(c.size() * 2);
    for (const cdt::ctx_step& s : c) {
        // A create step carries its AS_CDT_CTX_CREATE_* bits in the type, as the C client packs it.
        w.integer(static_cast<std::int64_t>(s.type) |
                  static_cast<std::int64_t>(cdt::detail::ctx_create_bits(s)));
        switch (s.type) {
        case cdt::ctx_step::kind::list_index:
        case cdt::ctx_step::kind::list_rank:
        case cdt::ctx_step::kind::map_index:
        case cdt::ctx_step::kind::map_rank:
            w.integer(s.index);
            break;
        default:
            adapters::detail::encode_msgpack(s.val, e.raw());
            break;
        }
    }
}
/// [call, type, system, [op, params...] or [0xff, ctx, [op, params...]], bin].
inline expr call(type t,
                 std::uint8_t system,
                 const ctx* c,
                 std::int64_t cdt_op,
                 std::span<const expr> params,
                 std::span<const std::int64_t> policy,
                 const expr& bin) {
    expr e;
    auto w = writer(e);
    w.array_header(5);
    w.integer(code::call);
    w.integer(static_cast<std::int64_t>(t));
    w.integer(system);
    if (c != nullptr && !c->empty()) {
        w.array_header(3);
        w.integer(cdt_context_eval);
        pack_ctx(e, *c);
    }
    w.array_header(1 + params.size() + policy.size());
    w.integer(cdt_op);
    for (const expr& p : params)
        append(e.raw(), p);
    for (std::int64_t p : policy)
        append(e.raw(), uint_val(static_cast<std::uint64_t>(p)));
    append(e.raw(), bin);
    return e;
}
/// as_exp_get_list_type / as_exp_get_map_type: the type a read returns.
inline type read_type(type requested, std::int32_t rtype, bool is_multi, bool is_map) {
    type expected = requested;
    switch (rtype & ~cdt::return_inverted) {
    case 1:
    case 2:
    case 3:
    case 4:
        expected = is_multi ? type::list : type::integer;
        break;
    case 5:
        expected = type::integer;
        break;
    case 6:
        if (!is_map)
            return type::automatic; // an invalid request; the server refuses it
        if (is_multi)
            expected = type::list;
        break;
    case 7:
        if (is_multi)
            expected = type::list;
        break;
    case 8:
    case 16:
    case 17:
        if (!is_map)
            return type::automatic;
        expected = type::map;
        break;
    case 13:
        expected = type::boolean;
        break;
    default:
        return type::automatic;
    }
    if (requested == type::automatic || requested == expected)
        return expected;
    return type::automatic;
}
/// The type a modify call returns: the container it modifies (as_exp_get_ctx_type).
inline type modify_type(const ctx* c, type dflt) {
    if (c == nullptr || c->empty())
        return dflt;
    return (static_cast<int>(c->front().type) & 0x10) == 0 ? type::map : type::list;
}
inline expr cdt_read(bool is_map,
                     type vtype,
                     std::int32_t rtype,
                     bool multi,
                     const ctx* c,
                     std::int64_t cdt_op,
                     std::initializer_list<expr> params,
                     const expr& bin) {
    std::vector<expr> p;
    p.reserve(params.size() + 1);
    p.emplace_back(static_cast<std::int64_t>(rtype));
    for (const expr& x : params)
        p.push_back(x);
    return call(read_type(vtype, rtype, multi, is_map), call_system::cdt, c, cdt_op, p, {}, bin);
}
inline expr cdt_modify(bool is_map,
                       const ctx* c,
                       std::int64_t cdt_op,
                       std::initializer_list<expr> params,
                       std::span<const std::int64_t> policy,
                       const expr& bin) {
    std::vector<expr> p(params);
    return call(modify_type(c, is_map ? type::map : type::list),
                call_system::cdt | call_system::modify_local,
                c,
                cdt_op,
                p,
                policy,
                bin);
}
inline std::vector<std::int64_t> list_crmod(const std::optional<cdt::list_policy>& p) {
    if (!p)
        return {};
    return {static_cast<std::int64_t>(p->order), static_cast<std::int64_t>(p->flags)};
}
inline std::vector<std::int64_t> list_mod(const std::optional<cdt::list_policy>& p) {
    if (!p)
        return {};
    return {static_cast<std::int64_t>(p->flags)};
}
inline std::vector<std::int64_t> map_crmod(const std::optional<cdt::map_policy>& p) {
    if (!p)
        return {};
    return {static_cast<std::int64_t>(p->order) | (p->persist_index ? 0x10 : 0),
            static_cast<std::int64_t>(p->flags)};
}
inline std::vector<std::int64_t> map_mod(const std::optional<cdt::map_policy>& p) {
    if (!p)
        return {};
    return {static_cast<std::int64_t>(p->flags)};
}
inline std::int32_t rt(cdt::return_type r) {
    return static_cast<std::int32_t>(r);
}
} // namespace detail

/// No context.
inline const ctx* const no_ctx = nullptr;

// List reads (as_exp_list_*). rtype is a cdt::return_type wire value (OR
// cdt::return_inverted to invert); vtype is the declared value type of
// single-result selectors.
/// as_exp_list_size: the number of elements of the list; unknown when the
/// bin is not a list.
inline expr list_size(const expr& bin, const ctx* c = nullptr) {
    return detail::call(type::integer, call_system::cdt, c, 16, {}, {}, bin);
}
/// as_exp_list_get_by_index: reads the element at index `index` of the list. The result is what
/// `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for the complement);
/// unknown when the bin is not a list or the call fails.
inline expr list_get_by_index(
    std::int32_t rtype, type vtype, const expr& index, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_read(false, vtype, rtype, false, c, 19, {index}, bin);
}
/// as_exp_list_get_by_index_range: reads `count` elements from index `index` of the list. The
/// result is what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for the
/// complement); unknown when the bin is not a list or the call fails.
inline expr list_get_by_index_range(std::int32_t rtype,
                                    const expr& index,
                                    const expr& count,
                                    const expr& bin,
                                    const ctx* c = nullptr) {
    return detail::cdt_read(false, type::automatic, rtype, true, c, 24, {index, count}, bin);
}
/// as_exp_list_get_by_index_range_to_end: reads every element from index `index` on, of the list.
/// The result is what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for
/// the complement); unknown when the bin is not a list or the call fails.
inline expr list_get_by_index_range_to_end(std::int32_t rtype,
                                           const expr& index,
                                           const expr& bin,
                                           const ctx* c = nullptr) {
    return detail::cdt_read(false, type::automatic, rtype, true, c, 24, {index}, bin);
}
/// as_exp_list_get_by_rank: reads the element of rank `rank` of the list. The result is what
/// `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for the complement);
/// unknown when the bin is not a list or the call fails.
inline expr list_get_by_rank(
    std::int32_t rtype, type vtype, const expr& rank, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_read(false, vtype, rtype, false, c, 21, {rank}, bin);
}
/// as_exp_list_get_by_rank_range: reads `count` elements from rank `rank` of the list. The result
/// is what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for the
/// complement); unknown when the bin is not a list or the call fails.
inline expr list_get_by_rank_range(std::int32_t rtype,
                                   const expr& rank,
                                   const expr& count,
                                   const expr& bin,
                                   const ctx* c = nullptr) {
    return detail::cdt_read(false, type::automatic, rtype, true, c, 26, {rank, count}, bin);
}
/// as_exp_list_get_by_rank_range_to_end: reads every element from rank `rank` on, of the list. The
/// result is what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for the
/// complement); unknown when the bin is not a list or the call fails.
inline expr list_get_by_rank_range_to_end(std::int32_t rtype,
                                          const expr& rank,
                                          const expr& bin,
                                          const ctx* c = nullptr) {
    return detail::cdt_read(false, type::automatic, rtype, true, c, 26, {rank}, bin);
}
/// as_exp_list_get_by_value: reads the elements whose value equals `v` of the list. The result is
/// what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for the
/// complement); unknown when the bin is not a list or the call fails.
inline expr
list_get_by_value(std::int32_t rtype, const expr& v, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_read(false, type::automatic, rtype, true, c, 22, {v}, bin);
}
/// as_exp_list_get_by_value_range: reads the elements whose values are in [`begin`, `end`) of the
/// list. The result is what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted
/// for the complement); unknown when the bin is not a list or the call fails.
inline expr list_get_by_value_range(std::int32_t rtype,
                                    const expr& begin,
                                    const expr& end,
                                    const expr& bin,
                                    const ctx* c = nullptr) {
    return detail::cdt_read(false, type::automatic, rtype, true, c, 25, {begin, end}, bin);
}
/// as_exp_list_get_by_value_list: reads the elements whose values are in the list `values` of the
/// list. The result is what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted
/// for the complement); unknown when the bin is not a list or the call fails.
inline expr list_get_by_value_list(std::int32_t rtype,
                                   const expr& values,
                                   const expr& bin,
                                   const ctx* c = nullptr) {
    return detail::cdt_read(false, type::automatic, rtype, true, c, 23, {values}, bin);
}
/// as_exp_list_get_by_rel_rank_range: reads `count` elements from rank `rank` relative to value `v`
/// of the list. The result is what `rtype` selects (a cdt::return_type wire value, OR
/// cdt::return_inverted for the complement); unknown when the bin is not a list or the call fails.
inline expr list_get_by_rel_rank_range(std::int32_t rtype,
                                       const expr& v,
                                       const expr& rank,
                                       const expr& count,
                                       const expr& bin,
                                       const ctx* c = nullptr) {
    return detail::cdt_read(false, type::automatic, rtype, true, c, 27, {v, rank, count}, bin);
}
/// as_exp_list_get_by_rel_rank_range_to_end: reads every element from rank `rank` relative to value
/// `v` on, of the list. The result is what `rtype` selects (a cdt::return_type wire value, OR
/// cdt::return_inverted for the complement); unknown when the bin is not a list or the call fails.
inline expr list_get_by_rel_rank_range_to_end(
    std::int32_t rtype, const expr& v, const expr& rank, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_read(false, type::automatic, rtype, true, c, 27, {v, rank}, bin);
}

// List modifies: the result is the modified list.
/// as_exp_list_append: the list with `v` appended (order and flags from `p`,
/// as cdt::list_policy).
/// The value is the modified list (of the bin, or at `c`); the bin itself
/// is written only when an exp_write stores the result. Unknown when the bin
/// is not a list or the call fails.
inline expr list_append(const expr& v,
                        const expr& bin,
                        const std::optional<cdt::list_policy>& p = {},
                        const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 1, {v}, detail::list_crmod(p), bin);
}
/// as_exp_list_append_items: the list with every element of the list
/// `items` appended (order and flags from `p`).
/// The value is the modified list (of the bin, or at `c`); the bin itself
/// is written only when an exp_write stores the result. Unknown when the bin
/// is not a list or the call fails.
inline expr list_append_items(const expr& items,
                              const expr& bin,
                              const std::optional<cdt::list_policy>& p = {},
                              const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 2, {items}, detail::list_crmod(p), bin);
}
/// as_exp_list_insert: the list with `v` inserted at `index` (flags from `p`).
/// The value is the modified list (of the bin, or at `c`); the bin itself
/// is written only when an exp_write stores the result. Unknown when the bin
/// is not a list or the call fails.
inline expr list_insert(const expr& index,
                        const expr& v,
                        const expr& bin,
                        const std::optional<cdt::list_policy>& p = {},
                        const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 3, {index, v}, detail::list_mod(p), bin);
}
/// as_exp_list_insert_items: the list with the elements of `items` inserted
/// at `index` (flags from `p`).
/// The value is the modified list (of the bin, or at `c`); the bin itself
/// is written only when an exp_write stores the result. Unknown when the bin
/// is not a list or the call fails.
inline expr list_insert_items(const expr& index,
                              const expr& items,
                              const expr& bin,
                              const std::optional<cdt::list_policy>& p = {},
                              const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 4, {index, items}, detail::list_mod(p), bin);
}
/// as_exp_list_set: the list with the element at `index` set to `v` (flags
/// from `p`).
/// The value is the modified list (of the bin, or at `c`); the bin itself
/// is written only when an exp_write stores the result. Unknown when the bin
/// is not a list or the call fails.
inline expr list_set(const expr& index,
                     const expr& v,
                     const expr& bin,
                     const std::optional<cdt::list_policy>& p = {},
                     const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 9, {index, v}, detail::list_mod(p), bin);
}
/// as_exp_list_increment: the list with the number at `index` incremented
/// by `delta` (order and flags from `p`).
/// The value is the modified list (of the bin, or at `c`); the bin itself
/// is written only when an exp_write stores the result. Unknown when the bin
/// is not a list or the call fails.
inline expr list_increment(const expr& index,
                           const expr& delta,
                           const expr& bin,
                           const std::optional<cdt::list_policy>& p = {},
                           const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 12, {index, delta}, detail::list_crmod(p), bin);
}
/// as_exp_list_clear: the list emptied.
/// The value is the modified list (of the bin, or at `c`); the bin itself
/// is written only when an exp_write stores the result. Unknown when the bin
/// is not a list or the call fails.
inline expr list_clear(const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 11, {}, {}, bin);
}
/// as_exp_list_sort: the list sorted (`flags`: cdt::list_sort_flags).
/// The value is the modified list (of the bin, or at `c`); the bin itself
/// is written only when an exp_write stores the result. Unknown when the bin
/// is not a list or the call fails.
inline expr list_sort(std::int64_t flags, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 13, {expr(flags)}, {}, bin);
}
/// as_exp_list_remove_by_index: the list without the element at index `index`. The value is the
/// modified list (of the bin, or at `c`); the bin itself is written only when an exp_write stores
/// the result. Unknown when the bin is not a list or the call fails.
inline expr list_remove_by_index(const expr& index, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 32, {expr(0), index}, {}, bin);
}
/// as_exp_list_remove_by_index_range: the list without `count` elements from index `index`. The
/// value is the modified list (of the bin, or at `c`); the bin itself is written only when an
/// exp_write stores the result. Unknown when the bin is not a list or the call fails.
inline expr list_remove_by_index_range(const expr& index,
                                       const expr& count,
                                       const expr& bin,
                                       const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 37, {expr(0), index, count}, {}, bin);
}
/// as_exp_list_remove_by_rank_range: the list without `count` elements from rank `rank`. The value
/// is the modified list (of the bin, or at `c`); the bin itself is written only when an exp_write
/// stores the result. Unknown when the bin is not a list or the call fails.
inline expr list_remove_by_rank_range(const expr& rank,
                                      const expr& count,
                                      const expr& bin,
                                      const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 39, {expr(0), rank, count}, {}, bin);
}
/// as_exp_list_remove_by_value: the list without the elements whose value equals `v`. The value is
/// the modified list (of the bin, or at `c`); the bin itself is written only when an exp_write
/// stores the result. Unknown when the bin is not a list or the call fails.
inline expr list_remove_by_value(const expr& v, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 35, {expr(0), v}, {}, bin);
}
/// as_exp_list_remove_by_value_range: the list without the elements whose values are in [`begin`,
/// `end`). The value is the modified list (of the bin, or at `c`); the bin itself is written only
/// when an exp_write stores the result. Unknown when the bin is not a list or the call fails.
inline expr list_remove_by_value_range(const expr& begin,
                                       const expr& end,
                                       const expr& bin,
                                       const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 38, {expr(0), begin, end}, {}, bin);
}
/// as_exp_list_remove_by_index_range_to_end: the list without every element from index `index` on.
/// The value is the modified list (of the bin, or at `c`); the bin itself is written only when an
/// exp_write stores the result. Unknown when the bin is not a list or the call fails.
inline expr
list_remove_by_index_range_to_end(const expr& index, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 37, {expr(0), index}, {}, bin);
}
/// as_exp_list_remove_by_rank: the list without the element of rank `rank`. The value is the
/// modified list (of the bin, or at `c`); the bin itself is written only when an exp_write stores
/// the result. Unknown when the bin is not a list or the call fails.
inline expr list_remove_by_rank(const expr& rank, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 34, {expr(0), rank}, {}, bin);
}
/// as_exp_list_remove_by_rank_range_to_end: the list without every element from rank `rank` on. The
/// value is the modified list (of the bin, or at `c`); the bin itself is written only when an
/// exp_write stores the result. Unknown when the bin is not a list or the call fails.
inline expr
list_remove_by_rank_range_to_end(const expr& rank, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 39, {expr(0), rank}, {}, bin);
}
/// as_exp_list_remove_by_value_list: the list without the elements whose values are in the list
/// `values`. The value is the modified list (of the bin, or at `c`); the bin itself is written only
/// when an exp_write stores the result. Unknown when the bin is not a list or the call fails.
inline expr list_remove_by_value_list(const expr& values, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 36, {expr(0), values}, {}, bin);
}
/// as_exp_list_remove_by_rel_rank_range: the list without `count` elements from rank `rank`
/// relative to value `v`. The value is the modified list (of the bin, or at `c`); the bin itself is
/// written only when an exp_write stores the result. Unknown when the bin is not a list or the call
/// fails.
inline expr list_remove_by_rel_rank_range(
    const expr& v, const expr& rank, const expr& count, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 40, {expr(0), v, rank, count}, {}, bin);
}
/// as_exp_list_remove_by_rel_rank_range_to_end: the list without every element from rank `rank`
/// relative to value `v` on. The value is the modified list (of the bin, or at `c`); the bin itself
/// is written only when an exp_write stores the result. Unknown when the bin is not a list or the
/// call fails.
inline expr list_remove_by_rel_rank_range_to_end(const expr& v,
                                                 const expr& rank,
                                                 const expr& bin,
                                                 const ctx* c = nullptr) {
    return detail::cdt_modify(false, c, 40, {expr(0), v, rank}, {}, bin);
}

// Map reads (as_exp_map_*).
/// as_exp_map_size: the number of entries of the map; unknown when the bin
/// is not a map.
inline expr map_size(const expr& bin, const ctx* c = nullptr) {
    return detail::call(type::integer, call_system::cdt, c, 96, {}, {}, bin);
}
/// as_exp_map_get_by_key: reads the entry with key `key` of the map. The result is what `rtype`
/// selects (a cdt::return_type wire value, OR cdt::return_inverted for the complement); unknown
/// when the bin is not a map or the call fails.
inline expr map_get_by_key(
    std::int32_t rtype, type vtype, const expr& key, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_read(true, vtype, rtype, false, c, 97, {key}, bin);
}
/// as_exp_map_get_by_key_range: reads the entries whose keys are in [`begin`, `end`) of the map.
/// The result is what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for
/// the complement); unknown when the bin is not a map or the call fails.
inline expr map_get_by_key_range(std::int32_t rtype,
                                 const expr& begin,
                                 const expr& end,
                                 const expr& bin,
                                 const ctx* c = nullptr) {
    return detail::cdt_read(true, type::automatic, rtype, true, c, 103, {begin, end}, bin);
}
/// as_exp_map_get_by_key_list: reads the entries whose keys are in the list `keys` of the map. The
/// result is what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for the
/// complement); unknown when the bin is not a map or the call fails.
inline expr
map_get_by_key_list(std::int32_t rtype, const expr& keys, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_read(true, type::automatic, rtype, true, c, 107, {keys}, bin);
}
/// as_exp_map_get_by_key_rel_index_range: reads `count` entries from index `index` relative to key
/// `key` of the map. The result is what `rtype` selects (a cdt::return_type wire value, OR
/// cdt::return_inverted for the complement); unknown when the bin is not a map or the call fails.
inline expr map_get_by_key_rel_index_range(std::int32_t rtype,
                                           const expr& key,
                                           const expr& index,
                                           const expr& count,
                                           const expr& bin,
                                           const ctx* c = nullptr) {
    return detail::cdt_read(true, type::automatic, rtype, true, c, 109, {key, index, count}, bin);
}
/// as_exp_map_get_by_value: reads the entries whose value equals `v` of the map. The result is what
/// `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for the complement);
/// unknown when the bin is not a map or the call fails.
inline expr
map_get_by_value(std::int32_t rtype, const expr& v, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_read(true, type::automatic, rtype, true, c, 102, {v}, bin);
}
/// as_exp_map_get_by_value_range: reads the entries whose values are in [`begin`, `end`) of the
/// map. The result is what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted
/// for the complement); unknown when the bin is not a map or the call fails.
inline expr map_get_by_value_range(std::int32_t rtype,
                                   const expr& begin,
                                   const expr& end,
                                   const expr& bin,
                                   const ctx* c = nullptr) {
    return detail::cdt_read(true, type::automatic, rtype, true, c, 105, {begin, end}, bin);
}
/// as_exp_map_get_by_value_list: reads the entries whose values are in the list `values` of the
/// map. The result is what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted
/// for the complement); unknown when the bin is not a map or the call fails.
inline expr map_get_by_value_list(std::int32_t rtype,
                                  const expr& values,
                                  const expr& bin,
                                  const ctx* c = nullptr) {
    return detail::cdt_read(true, type::automatic, rtype, true, c, 108, {values}, bin);
}
/// as_exp_map_get_by_value_rel_rank_range: reads `count` entries from rank `rank` relative to value
/// `v` of the map. The result is what `rtype` selects (a cdt::return_type wire value, OR
/// cdt::return_inverted for the complement); unknown when the bin is not a map or the call fails.
inline expr map_get_by_value_rel_rank_range(std::int32_t rtype,
                                            const expr& v,
                                            const expr& rank,
                                            const expr& count,
                                            const expr& bin,
                                            const ctx* c = nullptr) {
    return detail::cdt_read(true, type::automatic, rtype, true, c, 110, {v, rank, count}, bin);
}
/// as_exp_map_get_by_index: reads the entry at index `index` of the map. The result is what `rtype`
/// selects (a cdt::return_type wire value, OR cdt::return_inverted for the complement); unknown
/// when the bin is not a map or the call fails.
inline expr map_get_by_index(
    std::int32_t rtype, type vtype, const expr& index, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_read(true, vtype, rtype, false, c, 98, {index}, bin);
}
/// as_exp_map_get_by_index_range: reads `count` entries from index `index` of the map. The result
/// is what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for the
/// complement); unknown when the bin is not a map or the call fails.
inline expr map_get_by_index_range(std::int32_t rtype,
                                   const expr& index,
                                   const expr& count,
                                   const expr& bin,
                                   const ctx* c = nullptr) {
    return detail::cdt_read(true, type::automatic, rtype, true, c, 104, {index, count}, bin);
}
/// as_exp_map_get_by_rank: reads the entry of rank `rank` of the map. The result is what `rtype`
/// selects (a cdt::return_type wire value, OR cdt::return_inverted for the complement); unknown
/// when the bin is not a map or the call fails.
inline expr map_get_by_rank(
    std::int32_t rtype, type vtype, const expr& rank, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_read(true, vtype, rtype, false, c, 100, {rank}, bin);
}
/// as_exp_map_get_by_rank_range: reads `count` entries from rank `rank` of the map. The result is
/// what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for the
/// complement); unknown when the bin is not a map or the call fails.
inline expr map_get_by_rank_range(std::int32_t rtype,
                                  const expr& rank,
                                  const expr& count,
                                  const expr& bin,
                                  const ctx* c = nullptr) {
    return detail::cdt_read(true, type::automatic, rtype, true, c, 106, {rank, count}, bin);
}
/// as_exp_map_get_by_rank_range_to_end: reads every entry from rank `rank` on, of the map. The
/// result is what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for the
/// complement); unknown when the bin is not a map or the call fails.
inline expr map_get_by_rank_range_to_end(std::int32_t rtype,
                                         const expr& rank,
                                         const expr& bin,
                                         const ctx* c = nullptr) {
    return detail::cdt_read(true, type::automatic, rtype, true, c, 106, {rank}, bin);
}
/// as_exp_map_get_by_index_range_to_end: reads every entry from index `index` on, of the map. The
/// result is what `rtype` selects (a cdt::return_type wire value, OR cdt::return_inverted for the
/// complement); unknown when the bin is not a map or the call fails.
inline expr map_get_by_index_range_to_end(std::int32_t rtype,
                                          const expr& index,
                                          const expr& bin,
                                          const ctx* c = nullptr) {
    return detail::cdt_read(true, type::automatic, rtype, true, c, 104, {index}, bin);
}
/// as_exp_map_get_by_key_rel_index_range_to_end: reads every entry from index `index` relative to
/// key `key` on, of the map. The result is what `rtype` selects (a cdt::return_type wire value, OR
/// cdt::return_inverted for the complement); unknown when the bin is not a map or the call fails.
inline expr map_get_by_key_rel_index_range_to_end(std::int32_t rtype,
                                                  const expr& key,
                                                  const expr& index,
                                                  const expr& bin,
                                                  const ctx* c = nullptr) {
    return detail::cdt_read(true, type::automatic, rtype, true, c, 109, {key, index}, bin);
}
/// as_exp_map_get_by_value_rel_rank_range_to_end: reads every entry from rank `rank` relative to
/// value `v` on, of the map. The result is what `rtype` selects (a cdt::return_type wire value, OR
/// cdt::return_inverted for the complement); unknown when the bin is not a map or the call fails.
inline expr map_get_by_value_rel_rank_range_to_end(
    std::int32_t rtype, const expr& v, const expr& rank, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_read(true, type::automatic, rtype, true, c, 110, {v, rank}, bin);
}

// Map modifies: the result is the modified map.
/// as_exp_map_put: the map with `key` set to `v` (order and flags from `p`,
/// as cdt::map_policy).
/// The value is the modified map (of the bin, or at `c`); the bin itself
/// is written only when an exp_write stores the result. Unknown when the bin
/// is not a map or the call fails.
inline expr map_put(const expr& key,
                    const expr& v,
                    const expr& bin,
                    const std::optional<cdt::map_policy>& p = {},
                    const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 67, {key, v}, detail::map_crmod(p), bin);
}
/// as_exp_map_put_items: the map with every entry of the map `items` put
/// (order and flags from `p`).
/// The value is the modified map (of the bin, or at `c`); the bin itself
/// is written only when an exp_write stores the result. Unknown when the bin
/// is not a map or the call fails.
inline expr map_put_items(const expr& items,
                          const expr& bin,
                          const std::optional<cdt::map_policy>& p = {},
                          const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 68, {items}, detail::map_crmod(p), bin);
}
/// as_exp_map_increment: the map with the number at `key` incremented by
/// `delta` (flags from `p`).
/// The value is the modified map (of the bin, or at `c`); the bin itself
/// is written only when an exp_write stores the result. Unknown when the bin
/// is not a map or the call fails.
inline expr map_increment(const expr& key,
                          const expr& delta,
                          const expr& bin,
                          const std::optional<cdt::map_policy>& p = {},
                          const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 73, {key, delta}, detail::map_mod(p), bin);
}
/// as_exp_map_clear: the map emptied.
/// The value is the modified map (of the bin, or at `c`); the bin itself
/// is written only when an exp_write stores the result. Unknown when the bin
/// is not a map or the call fails.
inline expr map_clear(const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 75, {}, {}, bin);
}
/// as_exp_map_remove_by_key: the map without the entry with key `key`. The value is the modified
/// map (of the bin, or at `c`); the bin itself is written only when an exp_write stores the result.
/// Unknown when the bin is not a map or the call fails.
inline expr map_remove_by_key(const expr& key, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 76, {expr(0), key}, {}, bin);
}
/// as_exp_map_remove_by_key_range: the map without the entries whose keys are in [`begin`, `end`).
/// The value is the modified map (of the bin, or at `c`); the bin itself is written only when an
/// exp_write stores the result. Unknown when the bin is not a map or the call fails.
inline expr map_remove_by_key_range(const expr& begin,
                                    const expr& end,
                                    const expr& bin,
                                    const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 84, {expr(0), begin, end}, {}, bin);
}
/// as_exp_map_remove_by_rank_range: the map without `count` entries from rank `rank`. The value is
/// the modified map (of the bin, or at `c`); the bin itself is written only when an exp_write
/// stores the result. Unknown when the bin is not a map or the call fails.
inline expr map_remove_by_rank_range(const expr& rank,
                                     const expr& count,
                                     const expr& bin,
                                     const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 87, {expr(0), rank, count}, {}, bin);
}
/// as_exp_map_remove_by_rank_range_to_end: the map without every entry from rank `rank` on. The
/// value is the modified map (of the bin, or at `c`); the bin itself is written only when an
/// exp_write stores the result. Unknown when the bin is not a map or the call fails.
inline expr
map_remove_by_rank_range_to_end(const expr& rank, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 87, {expr(0), rank}, {}, bin);
}
/// as_exp_map_remove_by_rank: the map without the entry of rank `rank`. The value is the modified
/// map (of the bin, or at `c`); the bin itself is written only when an exp_write stores the result.
/// Unknown when the bin is not a map or the call fails.
inline expr map_remove_by_rank(const expr& rank, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 79, {expr(0), rank}, {}, bin);
}
/// as_exp_map_remove_by_index: the map without the entry at index `index`. The value is the
/// modified map (of the bin, or at `c`); the bin itself is written only when an exp_write stores
/// the result. Unknown when the bin is not a map or the call fails.
inline expr map_remove_by_index(const expr& index, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 77, {expr(0), index}, {}, bin);
}
/// as_exp_map_remove_by_index_range: the map without `count` entries from index `index`. The value
/// is the modified map (of the bin, or at `c`); the bin itself is written only when an exp_write
/// stores the result. Unknown when the bin is not a map or the call fails.
inline expr map_remove_by_index_range(const expr& index,
                                      const expr& count,
                                      const expr& bin,
                                      const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 85, {expr(0), index, count}, {}, bin);
}
/// as_exp_map_remove_by_index_range_to_end: the map without every entry from index `index` on. The
/// value is the modified map (of the bin, or at `c`); the bin itself is written only when an
/// exp_write stores the result. Unknown when the bin is not a map or the call fails.
inline expr
map_remove_by_index_range_to_end(const expr& index, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 85, {expr(0), index}, {}, bin);
}
/// as_exp_map_remove_by_key_list: the map without the entries whose keys are in the list `keys`.
/// The value is the modified map (of the bin, or at `c`); the bin itself is written only when an
/// exp_write stores the result. Unknown when the bin is not a map or the call fails.
inline expr map_remove_by_key_list(const expr& keys, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 81, {expr(0), keys}, {}, bin);
}
/// as_exp_map_remove_by_key_rel_index_range: the map without `count` entries from index `index`
/// relative to key `key`. The value is the modified map (of the bin, or at `c`); the bin itself is
/// written only when an exp_write stores the result. Unknown when the bin is not a map or the call
/// fails.
inline expr map_remove_by_key_rel_index_range(const expr& key,
                                              const expr& index,
                                              const expr& count,
                                              const expr& bin,
                                              const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 88, {expr(0), key, index, count}, {}, bin);
}
/// as_exp_map_remove_by_value: the map without the entries whose value equals `v`. The value is the
/// modified map (of the bin, or at `c`); the bin itself is written only when an exp_write stores
/// the result. Unknown when the bin is not a map or the call fails.
inline expr map_remove_by_value(const expr& v, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 82, {expr(0), v}, {}, bin);
}
/// as_exp_map_remove_by_value_list: the map without the entries whose values are in the list
/// `values`. The value is the modified map (of the bin, or at `c`); the bin itself is written only
/// when an exp_write stores the result. Unknown when the bin is not a map or the call fails.
inline expr map_remove_by_value_list(const expr& values, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 83, {expr(0), values}, {}, bin);
}
/// as_exp_map_remove_by_value_range: the map without the entries whose values are in [`begin`,
/// `end`). The value is the modified map (of the bin, or at `c`); the bin itself is written only
/// when an exp_write stores the result. Unknown when the bin is not a map or the call fails.
inline expr map_remove_by_value_range(const expr& begin,
                                      const expr& end,
                                      const expr& bin,
                                      const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 86, {expr(0), begin, end}, {}, bin);
}
/// as_exp_map_remove_by_value_rel_rank_range: the map without `count` entries from rank `rank`
/// relative to value `v`. The value is the modified map (of the bin, or at `c`); the bin itself is
/// written only when an exp_write stores the result. Unknown when the bin is not a map or the call
/// fails.
inline expr map_remove_by_value_rel_rank_range(
    const expr& v, const expr& rank, const expr& count, const expr& bin, const ctx* c = nullptr) {
    return detail::cdt_modify(true, c, 89, {expr(0), v, rank, count}, {}, bin);
}

// --- HLL ------------------------------------------------------------------------------
/// as_exp_bin_hll: bin `n` if an HLL (bytes holding a sketch), else unknown.
inline expr bin_hll(std::string_view n) {
    return bin(n, type::hll);
}
/// An HLL constant: the sketch as an HLL particle (what as_exp_val sends
/// for as_bytes of type AS_BYTES_HLL).
inline expr hll_val(const kvmodel::bytes& sketch) {
    expr e;
    detail::writer(e).prefixed(adapters::detail::particle::hll, sketch.data(), sketch.size());
    return e;
}

namespace detail {
inline expr hll_call(type t, bool modify, cdt::hll_op_code op, std::initializer_list<expr> params,
                     const expr& bin) {
    const std::vector<expr> p(params);
    return call(t,
                static_cast<std::uint8_t>(modify ? call_system::hll | call_system::modify_local
                                                 : call_system::hll),
                nullptr,
                static_cast<std::int64_t>(op),
                p,
                {},
                bin);
}
inline expr hll_flags(const cdt::hll_policy* policy) {
    return int_val(policy == nullptr ? 0 : static_cast<std::int64_t>(policy->flags));
}
} // namespace detail

/// as_exp_hll_init_mh: a new (or reset) HLL with the given bits; the value is
/// the sketch.
inline expr hll_init_mh(const cdt::hll_policy* policy,
                        const expr& index_bit_count,
                        const expr& mh_bit_count,
                        const expr& bin) {
    return detail::hll_call(type::hll, true, cdt::hll_op_code::hll_init,
                            {index_bit_count, mh_bit_count, detail::hll_flags(policy)}, bin);
}
/// as_exp_hll_init: as the C client packs it, [index_bit_count, flags]; the
/// server reads the flags as the minhash bit count (0 without a policy).
inline expr hll_init(const cdt::hll_policy* policy, const expr& index_bit_count, const expr& bin) {
    return detail::hll_call(type::hll, true, cdt::hll_op_code::hll_init,
                            {index_bit_count, detail::hll_flags(policy)}, bin);
}
/// as_exp_hll_add_mh: the sketch with the list's elements added (created with
/// the given bits when `bin` is nil).
inline expr hll_add_mh(const cdt::hll_policy* policy,
                       const expr& list,
                       const expr& index_bit_count,
                       const expr& mh_bit_count,
                       const expr& bin) {
    return detail::hll_call(type::hll, true, cdt::hll_op_code::hll_add,
                            {list, index_bit_count, mh_bit_count, detail::hll_flags(policy)}, bin);
}
/// as_exp_hll_add: hll_add_mh without minhash bits (-1).
inline expr hll_add(const cdt::hll_policy* policy,
                    const expr& list,
                    const expr& index_bit_count,
                    const expr& bin) {
    return hll_add_mh(policy, list, index_bit_count, int_val(-1), bin);
}
/// as_exp_hll_update: hll_add_mh with both bit counts -1 (the sketch must exist).
inline expr hll_update(const cdt::hll_policy* policy, const expr& list, const expr& bin) {
    return hll_add_mh(policy, list, int_val(-1), int_val(-1), bin);
}
/// as_exp_hll_get_count: the estimated count (integer).
inline expr hll_get_count(const expr& bin) {
    return detail::hll_call(type::integer, false, cdt::hll_op_code::hll_get_count, {}, bin);
}
/// as_exp_hll_get_union: the union of `bin` and the list of sketches (an HLL).
inline expr hll_get_union(const expr& list, const expr& bin) {
    return detail::hll_call(type::hll, false, cdt::hll_op_code::hll_get_union, {list}, bin);
}
/// as_exp_hll_get_union_count: the estimated count of that union (integer).
inline expr hll_get_union_count(const expr& list, const expr& bin) {
    return detail::hll_call(
        type::integer, false, cdt::hll_op_code::hll_get_union_count, {list}, bin);
}
/// as_exp_hll_get_intersect_count: the estimated count of the intersection (integer).
inline expr hll_get_intersect_count(const expr& list, const expr& bin) {
    return detail::hll_call(type::integer, false, cdt::hll_op_code::hll_get_intersect_count, {list},
                            bin);
}
/// as_exp_hll_get_similarity: the estimated Jaccard similarity (float).
inline expr hll_get_similarity(const expr& list, const expr& bin) {
    return detail::hll_call(
        type::floating, false, cdt::hll_op_code::hll_get_similarity, {list}, bin);
}
/// as_exp_hll_describe: [n_index_bits, n_minhash_bits] (list).
inline expr hll_describe(const expr& bin) {
    return detail::hll_call(type::list, false, cdt::hll_op_code::hll_describe, {}, bin);
}
/// as_exp_hll_may_contain: 1 if every element of the list may be in the sketch, else 0.
inline expr hll_may_contain(const expr& list, const expr& bin) {
    return detail::hll_call(type::integer, false, cdt::hll_op_code::hll_may_contain, {list}, bin);
}

// --- path expressions (Aerospike 8.1) -------------------------------------------------
/// as_exp_map_keys_in (as_exp_map_keys): the keys of map expression `m`, as a list.
inline expr map_keys_in(const expr& m) {
    return detail::op(code::map_keys, {&m});
}
/// as_exp_map_values_in (as_exp_map_values): the values of map expression `m`, as a list.
inline expr map_values_in(const expr& m) {
    return detail::op(code::map_values, {&m});
}

/// _as_exp_loopvar_make (as_exp_loopvar_TYPE): loop variable `id` (the key, value or index of the
/// element a path expression's filter or modify expression is looking at)
/// if it has type `t`, else unknown; unknown outside a path expression.
/// Lists have no key and maps no index. Compile refuses an index of
/// another type than integer (PARAMETER_ERROR).
inline expr loop_var(type t, loopvar id) {
    expr e;
    detail::writer(e).array_header(3);
    detail::writer(e).integer(code::var_builtin);
    detail::writer(e).integer(static_cast<std::int64_t>(t));
    detail::writer(e).integer(static_cast<std::int64_t>(id));
    return e;
}
/// as_exp_loopvar_int.
inline expr loopvar_int(loopvar id) {
    return loop_var(type::integer, id);
}
/// as_exp_loopvar_float.
inline expr loopvar_float(loopvar id) {
    return loop_var(type::floating, id);
}
/// as_exp_loopvar_str.
inline expr loopvar_str(loopvar id) {
    return loop_var(type::string, id);
}
/// as_exp_loopvar_bool.
inline expr loopvar_bool(loopvar id) {
    return loop_var(type::boolean, id);
}
/// as_exp_loopvar_blob.
inline expr loopvar_blob(loopvar id) {
    return loop_var(type::blob, id);
}
/// as_exp_loopvar_list.
inline expr loopvar_list(loopvar id) {
    return loop_var(type::list, id);
}
/// as_exp_loopvar_map.
inline expr loopvar_map(loopvar id) {
    return loop_var(type::map, id);
}
/// as_exp_loopvar_nil.
inline expr loopvar_nil(loopvar id) {
    return loop_var(type::nil, id);
}
/// as_exp_loopvar_hll.
inline expr loopvar_hll(loopvar id) {
    return loop_var(type::hll, id);
}
/// as_exp_remove_result: as a modify_by_path's modify expression (or one
/// branch of it), removes the element; unknown anywhere else.
inline expr remove_result() {
    return detail::op(code::result_remove, {});
}

/// One step of a path expression's context: any cdt::ctx_step, or one of
/// the steps only path expressions take (ctx_all_children,
/// ctx_all_children_with_filter, ctx_and_filter, ctx_map_keys_in). `type`
/// is the wire type, `arg` its packed argument.
struct path_step {
    /// The step's wire type (as_cdt_ctx_type, with path_ctx's).
    std::uint32_t type = 0;
    /// The packed argument: an index, a value or an expression.
    std::vector<std::uint8_t> arg;
};
/// A path expression's context (as_cdt_ctx): not empty.
using path = std::vector<path_step>;

/// An ordinary context step (as_cdt_ctx_add_list_index, ..._map_key, ...).
inline path_step ctx_step(const cdt::ctx_step& s) {
    expr e;
    detail::pack_ctx(e, ctx{s});
    // pack_ctx wrote [type, arg]: keep the type and the argument's bytes.
    detail::mp_in in{e.bytes().data(), e.bytes().data(), e.bytes().data() + e.bytes().size()};
    std::uint32_t n = 0;
    std::uint64_t t = 0;
    in.list_count(n);
    in.get_uint(t);
    return {static_cast<std::uint32_t>(t), std::vector<std::uint8_t>(in.p, in.end)};
}
/// as_cdt_ctx_add_all_children: every child of the current level.
inline path_step ctx_all_children() {
    return {path_ctx::exp, {0xc3}};
}
/// as_cdt_ctx_add_all_children_with_filter: the children for which boolean
/// expression `filter` (over loopvar_*) is true; unknown fails the call
/// unless path_flags::no_fail.
inline path_step ctx_all_children_with_filter(const expr& filter) {
    return {path_ctx::exp, filter.bytes()};
}
/// as_cdt_ctx_add_and_filter: narrows the step before it (not an
/// all-children step, at most one per step) to the elements for which
/// `filter` is true.
inline path_step ctx_and_filter(const expr& filter) {
    return {path_ctx::and_filter, filter.bytes()};
}
/// as_cdt_ctx_add_map_keys_in: the map entries whose key is in `keys`.
inline path_step ctx_map_keys_in(const list& keys) {
    std::vector<std::uint8_t> b;
    adapters::detail::encode_msgpack(value(keys), b);
    return {path_ctx::map_keys_in, std::move(b)};
}

namespace detail {
inline expr path_call(type t,
                      std::uint8_t system,
                      const exp::path& c,
                      std::int64_t flags,
                      const expr* mod,
                      const expr& bin) {
    expr e;
    auto w = writer(e);
    w.array_header(5);
    w.integer(code::call);
    w.integer(static_cast<std::int64_t>(t));
    w.integer(system);
    w.array_header(mod == nullptr ? 3 : 4);
    w.integer(cdt_select);
    w.array_header(c.size() * 2);
    for (const exp::path_step& s : c) {
        w.integer(static_cast<std::int64_t>(s.type));
        e.raw().insert(e.raw().end(), s.arg.begin(), s.arg.end());
    }
    w.integer(flags);
    if (mod != nullptr)
        append(e.raw(), *mod);
    append(e.raw(), bin);
    return e;
}
} // namespace detail

/// as_exp_select_by_path: walks list or map expression `bin` along the
/// context `c` and returns, by `flags` (path_flags): the tree from the bin
/// down to the picked elements (matching_tree: a `bin`-typed container), or
/// a list of their values, keys, or keys and values (value, map_key,
/// map_key_value). `rtype` is the type declared for the result (list or map
/// for a tree, list otherwise); another one makes the call unknown, as does
/// a step the server cannot run (a filter that is unknown, map keys of a
/// list, a step of the wrong container type) unless path_flags::no_fail.
inline expr select_by_path(const path& c, type rtype, std::uint32_t flags, const expr& bin) {
    return detail::path_call(rtype, call_system::cdt, c, flags, nullptr, bin);
}
/// as_exp_modify_by_path: `bin` with every element the context picks at its
/// last level replaced by `mod` (evaluated on the element's loopvar_*), or
/// removed where `mod` is remove_result(); ORDERED lists are sorted again.
/// `rtype` is the bin's type (list or map). An unknown `mod` makes the call
/// unknown unless path_flags::no_fail, which keeps the element.
inline expr
modify_by_path(const path& c, type rtype, const expr& mod, std::uint32_t flags, const expr& bin) {
    return detail::path_call(rtype,
                             call_system::cdt | call_system::modify_local,
                             c,
                             static_cast<std::int64_t>(flags | path_flags::apply),
                             &mod,
                             bin);
}

} // namespace kvmodel::exp
