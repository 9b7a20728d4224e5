// kvmodel/exp/eval.hpp
//
// Aerospike expressions, evaluated as the 8.1.2 server evaluates them
// (as/src/base/exp.c): exp::compile reads the packed msgpack a client sends
// (what the C client's as_exp_compile produces, or exp/build.hpp) into a
// program, checking it the way the server's build step does; exp::evaluate
// runs a program over one record. Anything a client can send is accepted or
// refused where the server accepts or refuses it, but for the refusals
// listed below (features kvmodel lacks, and bounds that keep bad input from
// exhausting the stack).
//
// compile (the server's build_* functions): PARAMETER_ERROR, with a message
// naming the node and its byte offset, for malformed msgpack, an unknown op
// code, a wrong argument count, mistyped arguments (the server types every
// node statically: comparisons need equal types, arithmetic all-int or
// all-float, logic booleans, ...), an invalid bin or variable name, an
// undefined or duplicate variable, a bad regex, digest_modulo(0), a packed
// size of 1 MiB or more, nesting deeper than max_depth. GeoJSON values and
// cmp_geo are refused with PARAMETER_ERROR naming them: kvmodel has no
// GeoJSON type. Bit calls run the blob engine (exp/detail/bits.hpp); HLL
// values, bins and calls the HLL engine (exp/detail/hll.hpp: an HLL is a
// bytes value holding a sketch). A
// call of more than 18 arguments is refused too (the server asserts on it).
// Path expressions (select_by_path, modify_by_path: a call with CDT op
// cdt_select) walk their operand as cdt.c's cdt_select_* functions do (see
// evaluator's "path expressions" section): the server's build step checks
// only the call's shape and parses the context and the modify expression
// when the call runs, so kvmodel's compile refuses only a bad shape and
// marks a bad context or modify expression (parsed once, at compile) to
// make the call unknown. Filters and modify expressions run without a record (bin and
// metadata reads are unknown, as the server gives them none) and read the
// element's loop variables; loop variables are unknown elsewhere, and
// remove_result means something only as a modify expression's value.
// Walking costs O(size of the operand) per call plus the filters'
// evaluations, and recurses only as deep as the context (64 levels at most).
// One deliberate difference: an and-filter on a map index or rank step that
// passes makes 8.1.2 send a garbled map (its loop variables move the
// reader the step then copies the entry from; a modify writes at the wrong
// offsets); kvmodel answers what the step means, the entry picked.
// A list set-order (op 0) or map set-policy (op 64) call, which no as_exp.h
// macro makes but any client can send, answers the re-ordered container as
// the server does.
//
// evaluate (the server's eval_* functions): the result is a value or
// *unknown* (std::nullopt): a missing bin, a bin of another type than the
// read declares, a stored key that is absent or of another type, an integer
// division or modulo by zero, a CDT call that fails or returns another type
// than declared, a comparison of containers holding an unordered map. `and`
// is false if any argument is false, else unknown if any is unknown; `or`
// dually; `not`, comparisons and arithmetic propagate unknown; `exclusive`
// is unknown as soon as an argument is. Integer add/sub/mul wrap (two's
// complement); shifts use the count modulo 64 and to_int truncates with
// INT64_MIN for NaN or out-of-range values, as the server's x86-64 build
// does. Where the server's own arithmetic traps (INT64_MIN / -1, INT64_MIN %
// -1: SIGFPE on x86-64), kvmodel answers unknown instead of crashing.
//
// Metadata the caller supplies in record_view: digest (digest_modulo), set
// name, stored user key, void time, last-update time, stored size, and the
// clock. device_size answers the stored size and memory_size 0 (a namespace
// on a device); is_tombstone is false (the simulator keeps no tombstones).
//
// Cost: compile is linear in the packed size and allocates the program once;
// evaluate walks the program once; int, float and boolean nodes never build
// a `value` (typed fast paths); it allocates only for strings, blobs, CDT
// calls and the variables of a `let`. Each distinct bin name has a slot
// (compile), so an evaluation looks a bin up once however often it is read
// (the first 16 names; later ones at every read); a comparison of an int bin
// with an int constant, the commonest filter, is marked at compile
// (node::fused) and runs as one step. Both are bounded: depth max_depth,
// size max_packed_size. The msgpack codec is adapters/detail/aerospike_wire.hpp
// (it needs no client library).
#pragma once

#include <kvmodel/adapters/detail/aerospike_wire.hpp>
#include <kvmodel/cdt/engine.hpp>
#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/config.hpp>
#include <kvmodel/core/order.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/exp/codes.hpp>
#include <kvmodel/exp/detail/bits.hpp>
#include <kvmodel/exp/detail/unordered_cmp.hpp>
#include <kvmodel/exp/detail/hll.hpp>
#include <kvmodel/exp/hook.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <regex.h>

namespace kvmodel::exp {

/// Deepest nesting compile accepts (ops, calls, let scopes).
inline constexpr std::size_t max_depth = 256;

namespace detail {

/// The server's static types (exp.c result_type); `end` is "no type" (a raw
/// msgpack constant: INF, WILDCARD, a map given as msgpack).
enum class rtype : std::uint8_t {
    nil = 0,
    trilean = 1,
    integer = 2,
    str = 3,
    list = 4,
    map = 5,
    blob = 6,
    floating = 7,
    geojson = 8,
    hll = 9,
    input_end = 10,
    result_remove = 11,
    end = 12,
};

inline const char* rtype_name(rtype t) noexcept {
    switch (t) {
    case rtype::nil:
        return "nil";
    case rtype::trilean:
        return "bool";
    case rtype::integer:
        return "int";
    case rtype::str:
        return "str";
    case rtype::list:
        return "list";
    case rtype::map:
        return "map";
    case rtype::blob:
        return "blob";
    case rtype::floating:
        return "float";
    case rtype::geojson:
        return "geojson";
    case rtype::hll:
        return "hll";
    case rtype::result_remove:
        return "result_remove";
    default:
        return "invalid";
    }
}

/// The name of an op code for messages ("cmp_eq", "bin", ...), nullptr when
/// the server has no such op.
inline const char* op_name(std::uint64_t c) noexcept {
    switch (c) {
    case code::unknown:
        return "unknown";
    case code::cmp_eq:
        return "cmp_eq";
    case code::cmp_ne:
        return "cmp_ne";
    case code::cmp_gt:
        return "cmp_gt";
    case code::cmp_ge:
        return "cmp_ge";
    case code::cmp_lt:
        return "cmp_lt";
    case code::cmp_le:
        return "cmp_le";
    case code::cmp_regex:
        return "cmp_regex";
    case code::cmp_geo:
        return "cmp_geo";
    case code::in_list:
        return "in_list";
    case code::and_:
        return "and";
    case code::or_:
        return "or";
    case code::not_:
        return "not";
    case code::exclusive:
        return "exclusive";
    case code::add:
        return "add";
    case code::sub:
        return "sub";
    case code::mul:
        return "mul";
    case code::div:
        return "div";
    case code::pow:
        return "pow";
    case code::log:
        return "log";
    case code::mod:
        return "mod";
    case code::abs:
        return "abs";
    case code::floor:
        return "floor";
    case code::ceil:
        return "ceil";
    case code::to_int:
        return "to_int";
    case code::to_float:
        return "to_float";
    case code::int_and:
        return "int_and";
    case code::int_or:
        return "int_or";
    case code::int_xor:
        return "int_xor";
    case code::int_not:
        return "int_not";
    case code::int_lshift:
        return "int_lshift";
    case code::int_rshift:
        return "int_rshift";
    case code::int_arshift:
        return "int_arshift";
    case code::int_count:
        return "int_count";
    case code::int_lscan:
        return "int_lscan";
    case code::int_rscan:
        return "int_rscan";
    case code::min:
        return "min";
    case code::max:
        return "max";
    case code::digest_modulo:
        return "digest_modulo";
    case code::device_size:
        return "device_size";
    case code::last_update:
        return "last_update";
    case code::since_update:
        return "since_update";
    case code::void_time:
        return "void_time";
    case code::ttl:
        return "ttl";
    case code::set_name:
        return "set_name";
    case code::key_exists:
        return "key_exists";
    case code::is_tombstone:
        return "is_tombstone";
    case code::memory_size:
        return "memory_size";
    case code::record_size:
        return "record_size";
    case code::key:
        return "key";
    case code::bin:
        return "bin";
    case code::bin_type:
        return "bin_type";
    case code::result_remove:
        return "result_remove";
    case code::map_keys:
        return "map_keys";
    case code::map_values:
        return "map_values";
    case code::var_builtin:
        return "var_builtin";
    case code::cond:
        return "cond";
    case code::var:
        return "var";
    case code::let:
        return "let";
    case code::quote:
        return "quote";
    case code::call:
        return "call";
    default:
        return nullptr;
    }
}

// Virtual op codes of constants (never on the wire), above every wire code.
inline constexpr std::uint8_t vop_value = 200;

// node::fused: a comparison of an int bin (the first child) with an int
// constant (the second, copied into node::i), the commonest filter shape.
inline constexpr std::uint8_t fused_cmp_int_bin = 1;

/// Bins an evaluation looks up once and remembers (bin slots past this are
/// looked up at every read).
inline constexpr std::size_t cached_bins = 16;

/// One node of a compiled program, in prefix order: a node's children
/// follow it, and `end` is the index just past its last descendant.
struct node {
    std::uint8_t op = 0;
    rtype type = rtype::end;
    std::uint8_t fused = 0; // fused_* below: a shape the evaluator runs in one step
    std::uint32_t end = 0;
    std::uint32_t n = 0; // children (variadic ops), cases (cond), vars (let)
    std::int64_t i = 0;  // digest modulo, var slot, key type, regex / call index,
                         // bin slot (bin, bin_type), constant (fused_cmp_int_bin)
    value v;             // a constant
    std::string name;    // bin name
};

/// One argument of a CDT call: a constant, or an expression (a child node).
struct call_arg {
    bool is_exp = false;
    value constant;
};

} // namespace detail
class program;
namespace detail {

/// One level of a path expression's context (cdt.c's select_stack_entry):
/// the step's wire type, its index / rank or value (key, value, key list),
/// its filter (type path_ctx::exp; null selects every child) and the
/// and-filter folded into it.
struct path_step {
    std::uint32_t type = 0;
    std::int64_t index = 0;
    value v;
    std::shared_ptr<const program> filter;
    std::shared_ptr<const program> and_filter;
    bool has_and = false; // an and-filter was folded in (even `true`)
};

/// A select / modify by path call: its levels, mode and flags, modify
/// expression. `valid` is false when the server's evaluation-time parse of
/// the context or the modify expression fails: the call is then unknown.
struct path_info {
    bool valid = false;
    std::vector<path_step> steps;
    std::uint32_t mode = 0; // path_flags low nibble
    bool no_fail = false;
    std::shared_ptr<const program> mod;
};

struct call_info {
    std::shared_ptr<const path_info> path; // a path expression's call (op cdt_select)
    std::uint64_t system = 0; // call_system::cdt, ::bits or ::hll
    std::uint64_t op = 0; // the CDT, bit or HLL wire op code
    bool modify = false;  // CALL_FLAG_MODIFY_LOCAL
    bool bits = false;    // system BITS (exp/detail/bits.hpp), else CDT
    rtype declared = rtype::nil;
    std::vector<cdt::ctx_step> ctx;
    std::vector<call_arg> args;
};

struct regex_holder {
    regex_t re{};
    bool compiled = false;
    regex_holder() = default;
    regex_holder(const regex_holder&) = delete;
    regex_holder& operator=(const regex_holder&) = delete;
    ~regex_holder() {
        if (compiled)
            regfree(&re);
    }
};

} // namespace detail

/// A compiled expression: immutable, shareable across threads (evaluate
/// only reads it).
class program {
public:
    /// The static type of the whole expression (a filter must be boolean).
    type result_type() const noexcept { return static_cast<type>(m_type); }
    /// Whether the expression is boolean (what a filter must be). O(1).
    bool is_boolean() const noexcept { return m_type == detail::rtype::trilean; }

private:
    friend class compiler;
    friend class evaluator;
    std::vector<detail::node> m_nodes;
    std::vector<std::unique_ptr<detail::regex_holder>> m_regex;
    std::vector<detail::call_info> m_calls;
    std::vector<std::string> m_bins; // distinct bin names, by slot
    std::uint32_t m_vars = 0;
    detail::rtype m_type = detail::rtype::end;
};

/// Reads packed expression bytes into a program, as the server's build
/// step does; PARAMETER_ERROR naming the node otherwise. Complexity:
/// O(packed size).
inline result<program> compile(std::span<const std::uint8_t> packed);

/// Evaluates a program on a record: the value, or nullopt for unknown.
inline std::optional<value> evaluate(const program& p, const record_view& r);

/// A filter's verdict: true, false or unknown (nullopt counts as unknown).
enum class verdict : std::uint8_t { no = 0, yes = 1, unknown = 2 };
/// Runs a filter on a record: yes, no, or unknown when the value is unknown
/// or not a boolean. Cost: one evaluate().
inline verdict matches(const program& p, const record_view& r);

// ===========================================================================
// compile
// ===========================================================================

namespace detail {

/// A cursor over raw msgpack that checks every length against the input.
struct mp_in {
    const std::uint8_t* begin = nullptr;
    const std::uint8_t* p = nullptr;
    const std::uint8_t* end = nullptr;

    enum class kind : std::uint8_t { error, nil, boolean, integer, floating, str, list, map, ext };

    std::size_t offset() const noexcept { return static_cast<std::size_t>(p - begin); }
    bool need(std::size_t n) const noexcept { return static_cast<std::size_t>(end - p) >= n; }
    std::uint64_t be(const std::uint8_t* q, int n) const noexcept {
        std::uint64_t v = 0;
        for (int k = 0; k < n; ++k)
            v = (v << 8) | q[k];
        return v;
    }

    kind peek() const noexcept {
        if (p >= end)
            return kind::error;
        std::uint8_t b = *p;
        if (b <= 0x7f || b >= 0xe0)
            return kind::integer;
        if ((b & 0xf0) == 0x80)
            return kind::map;
        if ((b & 0xf0) == 0x90)
            return kind::list;
        if ((b & 0xe0) == 0xa0)
            return kind::str;
        switch (b) {
        case 0xc0:
            return kind::nil;
        case 0xc2:
        case 0xc3:
            return kind::boolean;
        case 0xc4:
        case 0xc5:
        case 0xc6:
        case 0xd9:
        case 0xda:
        case 0xdb:
            return kind::str;
        case 0xca:
        case 0xcb:
            return kind::floating;
        case 0xcc:
        case 0xcd:
        case 0xce:
        case 0xcf:
        case 0xd0:
        case 0xd1:
        case 0xd2:
        case 0xd3:
            return kind::integer;
        case 0xdc:
        case 0xdd:
            return kind::list;
        case 0xde:
        case 0xdf:
            return kind::map;
        case 0xc7:
        case 0xc8:
        case 0xc9:
        case 0xd4:
        case 0xd5:
        case 0xd6:
        case 0xd7:
        case 0xd8:
            return kind::ext;
        default:
            return kind::error;
        }
    }

    /// A container header's count: `fix` is the fixed form's high nibble
    /// (0x90 list, 0x80 map), `w16` its 16-bit form (0xdc, 0xde; +1 is the
    /// 32-bit one).
    bool header_count(std::uint8_t fix, std::uint8_t w16, std::uint32_t& n) noexcept {
        if (p >= end)
            return false;
        std::uint8_t b = *p;
        if ((b & 0xf0) == fix) {
            n = b & 0x0fu;
            ++p;
            return true;
        }
        int w = b == w16 ? 2 : (b == w16 + 1 ? 4 : 0);
        if (w == 0 || !need(1 + static_cast<std::size_t>(w)))
            return false;
        n = static_cast<std::uint32_t>(be(p + 1, w));
        p += 1 + w;
        return true;
    }
    bool list_count(std::uint32_t& n) noexcept { return header_count(0x90, 0xdc, n); }
    bool map_count(std::uint32_t& n) noexcept { return header_count(0x80, 0xde, n); }
    /// An integer as int64 (a uint64 beyond INT64_MAX keeps its bits, as
    /// msgpack_get_int64 does).
    bool get_int(std::int64_t& v) noexcept {
        if (p >= end)
            return false;
        std::uint8_t b = *p;
        if (b <= 0x7f) {
            v = b;
            ++p;
            return true;
        }
        if (b >= 0xe0) {
            v = static_cast<std::int8_t>(b);
            ++p;
            return true;
        }
        int w = 0;
        bool sgn = false;
        switch (b) {
        case 0xcc:
            w = 1;
            break;
        case 0xcd:
            w = 2;
            break;
        case 0xce:
            w = 4;
            break;
        case 0xcf:
            w = 8;
            break;
        case 0xd0:
            w = 1;
            sgn = true;
            break;
        case 0xd1:
            w = 2;
            sgn = true;
            break;
        case 0xd2:
            w = 4;
            sgn = true;
            break;
        case 0xd3:
            w = 8;
            sgn = true;
            break;
        default:
            return false;
        }
        if (!need(1 + static_cast<std::size_t>(w)))
            return false;
        std::uint64_t u = be(p + 1, w);
        if (sgn && w < 8) {
            std::uint64_t sign = std::uint64_t{1} << (8 * w - 1);
            if (u & sign)
                u |= ~((sign << 1) - 1);
        }
        v = static_cast<std::int64_t>(u);
        p += 1 + w;
        return true;
    }
    /// A non-negative integer (msgpack_get_uint64 refuses negatives).
    bool get_uint(std::uint64_t& v) noexcept {
        const std::uint8_t* save = p;
        std::int64_t i = 0;
        if (p >= end)
            return false;
        std::uint8_t b = *p;
        bool is_signed_form = b >= 0xe0 || (b >= 0xd0 && b <= 0xd3);
        if (!get_int(i))
            return false;
        if (is_signed_form && i < 0) {
            p = save;
            return false;
        }
        v = static_cast<std::uint64_t>(i);
        return true;
    }
    /// A str or bin element's bytes (with any particle-type prefix byte).
    bool get_str(const std::uint8_t*& s, std::uint32_t& n) noexcept {
        if (p >= end)
            return false;
        std::uint8_t b = *p;
        if ((b & 0xe0) == 0xa0) {
            n = b & 0x1fu;
            if (!need(1 + std::size_t{n}))
                return false;
            s = p + 1;
            p += 1 + n;
            return true;
        }
        int w = 0;
        switch (b) {
        case 0xc4:
        case 0xd9:
            w = 1;
            break;
        case 0xc5:
        case 0xda:
            w = 2;
            break;
        case 0xc6:
        case 0xdb:
            w = 4;
            break;
        default:
            return false;
        }
        if (!need(1 + static_cast<std::size_t>(w)))
            return false;
        std::uint64_t len = be(p + 1, w);
        if (!need(1 + static_cast<std::size_t>(w) + len))
            return false;
        n = static_cast<std::uint32_t>(len);
        s = p + 1 + w;
        p += 1 + static_cast<std::size_t>(w) + len;
        return true;
    }
    /// Skips one element (and its contents); false if malformed or deeper
    /// than max_depth.
    bool skip(std::size_t depth = 0) noexcept {
        if (depth > max_depth || p >= end)
            return false;
        switch (peek()) {
        case kind::error:
            return false;
        case kind::nil:
        case kind::boolean:
            ++p;
            return true;
        case kind::integer: {
            std::int64_t v = 0;
            return get_int(v);
        }
        case kind::floating: {
            std::size_t w = *p == 0xca ? 4 : 8;
            if (!need(1 + w))
                return false;
            p += 1 + w;
            return true;
        }
        case kind::str: {
            const std::uint8_t* s = nullptr;
            std::uint32_t n = 0;
            return get_str(s, n);
        }
        case kind::list: {
            std::uint32_t n = 0;
            if (!list_count(n) || !need(n))
                return false;
            for (std::uint32_t k = 0; k < n; ++k)
                if (!skip(depth + 1))
                    return false;
            return true;
        }
        case kind::map: {
            std::uint32_t n = 0;
            if (!map_count(n) || !need(n))
                return false;
            for (std::uint32_t k = 0; k < 2 * std::uint64_t{n}; ++k)
                if (!skip(depth + 1))
                    return false;
            return true;
        }
        case kind::ext: {
            std::uint8_t b = *p;
            std::uint64_t len = 0;
            std::size_t hdr = 2;
            switch (b) {
            case 0xd4:
                len = 1;
                break;
            case 0xd5:
                len = 2;
                break;
            case 0xd6:
                len = 4;
                break;
            case 0xd7:
                len = 8;
                break;
            case 0xd8:
                len = 16;
                break;
            default: {
                int w = b == 0xc7 ? 1 : (b == 0xc8 ? 2 : 4);
                if (!need(1 + static_cast<std::size_t>(w)))
                    return false;
                len = be(p + 1, w);
                hdr = 2 + static_cast<std::size_t>(w);
            }
            }
            if (!need(hdr + len))
                return false;
            p += hdr + len;
            return true;
        }
        }
        return false;
    }
};

} // namespace detail

/// The compile step as an object: exp::compile(packed) is
/// `compiler(packed).run()`; use that. Reads `data` without copying it, so
/// the bytes must outlive run().
class compiler {
public:
    /// Prepares to compile `data` (nothing is read yet). O(1).
    /// `depth`: the nesting already spent (a path expression's filter or
    /// modify expression compiles on its own, below its call).
    explicit compiler(std::span<const std::uint8_t> data, std::size_t depth = 0)
        : m_base_depth(depth) {
        m_in.begin = data.data();
        m_in.p = data.data();
        m_in.end = data.data() + data.size();
    }

    /// Compiles once: the program, or PARAMETER_ERROR naming the node and its
    /// byte offset (the refusals of the header comment). Linear in the packed
    /// size.
    result<program> run() {
        std::size_t size = static_cast<std::size_t>(m_in.end - m_in.begin);
        if (size == 0)
            return bad("expression", "is empty");
        if (size >= max_packed_size)
            return bad("expression",
                       "is " + std::to_string(size) + " bytes, limit " +
                           std::to_string(max_packed_size));
        {
            detail::mp_in probe = m_in;
            std::uint32_t n = 0;
            if (probe.peek() == detail::mp_in::kind::list && probe.list_count(n) && n == 0)
                return bad("expression", "is an empty list");
        }
        if (!build(m_base_depth))
            return std::move(m_error);
        if (m_in.p != m_in.end)
            return bad("expression",
                       std::to_string(m_in.end - m_in.p) + " trailing bytes after the expression");
        m_prog.m_type = m_type;
        fuse();
        switch (m_type) {
        case detail::rtype::end:
        case detail::rtype::input_end:
            return bad("expression", "has no result type (a bare msgpack constant)");
        default:
            break;
        }
        return std::move(m_prog);
    }

private:
    using rtype = detail::rtype;
    using kind = detail::mp_in::kind;

    struct var_entry {
        std::string name;
        std::uint32_t slot = 0;
        rtype type = rtype::end;
    };

    failure bad(std::string_view what, const std::string& why) const {
        return fail(status::parameter_error,
                    "expression: " + std::string(what) + " at byte " +
                        std::to_string(m_in.offset()) + ": " + why);
    }
    bool set_error(std::string_view what, const std::string& why) {
        if (!m_failed) {
            m_error = bad(what, why);
            m_failed = true;
        }
        return false;
    }

    std::uint32_t push(std::uint8_t op, rtype t) {
        detail::node nd;
        nd.op = op;
        nd.type = t;
        m_prog.m_nodes.push_back(std::move(nd));
        return static_cast<std::uint32_t>(m_prog.m_nodes.size() - 1);
    }
    detail::node& at(std::uint32_t ix) { return m_prog.m_nodes[ix]; }

    // The slot of a bin name: one per distinct name, so that an evaluation
    // looks each bin up once.
    std::int64_t bin_slot(const std::string& bn) {
        auto& names = m_prog.m_bins;
        auto it = std::find(names.begin(), names.end(), bn);
        if (it == names.end())
            it = names.insert(names.end(), bn);
        return static_cast<std::int64_t>(it - names.begin());
    }

    // Marks the shapes the evaluator runs in one step (node::fused).
    void fuse() {
        auto& nodes = m_prog.m_nodes;
        for (std::size_t i = 0; i + 2 < nodes.size(); ++i) {
            detail::node& nd = nodes[i];
            const detail::node& l = nodes[i + 1];
            const detail::node& r = nodes[i + 2];
            if (nd.op >= code::cmp_eq && nd.op <= code::cmp_le && l.op == code::bin &&
                l.type == rtype::integer && r.op == detail::vop_value && r.type == rtype::integer &&
                r.v.is_int() && l.end == i + 2 && nd.end == i + 3) {
                nd.fused = detail::fused_cmp_int_bin;
                nd.i = r.v.as_int();
            }
        }
    }
    void close(std::uint32_t ix) { at(ix).end = static_cast<std::uint32_t>(m_prog.m_nodes.size()); }

    // A constant: its static type follows the msgpack type; strings and
    // blobs carry the particle-type prefix byte.
    bool build_value(std::size_t depth) {
        const std::uint8_t* start = m_in.p;
        kind k = m_in.peek();
        switch (k) {
        case kind::error:
            return set_error("value", "invalid msgpack");
        case kind::nil: {
            ++m_in.p;
            std::uint32_t ix = push(detail::vop_value, rtype::nil);
            close(ix);
            m_type = rtype::nil;
            return true;
        }
        case kind::boolean: {
            bool b = *m_in.p == 0xc3;
            ++m_in.p;
            std::uint32_t ix = push(detail::vop_value, rtype::trilean);
            at(ix).v = value(b);
            close(ix);
            m_type = rtype::trilean;
            return true;
        }
        case kind::integer: {
            std::int64_t v = 0;
            if (!m_in.get_int(v))
                return set_error("int value", "truncated integer");
            std::uint32_t ix = push(detail::vop_value, rtype::integer);
            at(ix).v = value(v);
            close(ix);
            m_type = rtype::integer;
            return true;
        }
        case kind::floating: {
            if (!m_in.skip())
                return set_error("float value", "truncated float");
            auto v =
                adapters::detail::decode_msgpack({start, static_cast<std::size_t>(m_in.p - start)});
            if (!v)
                return set_error("float value", v.error().message);
            std::uint32_t ix = push(detail::vop_value, rtype::floating);
            at(ix).v = std::move(v).value();
            close(ix);
            m_type = rtype::floating;
            return true;
        }
        case kind::str: {
            const std::uint8_t* s = nullptr;
            std::uint32_t n = 0;
            if (!m_in.get_str(s, n))
                return set_error("string value", "truncated string");
            if (n == 0)
                return set_error("blob value", "empty blob (no particle type byte)");
            rtype t = rtype::blob;
            switch (s[0]) {
            case 3:
                t = rtype::str;
                break;
            case 4:
                t = rtype::blob;
                break;
            case 18:
                t = rtype::hll;
                break;
            case 23:
                return set_error("geojson value",
                                 "GeoJSON values are not supported by kvmodel (no GeoJSON type)");
            default:
                return set_error("blob value",
                                 "invalid blob type " + std::to_string(s[0]) +
                                     " (a string needs the particle-type prefix byte 3)");
            }
            std::uint32_t ix = push(detail::vop_value, t);
            if (t == rtype::str)
                at(ix).v = value(std::string(reinterpret_cast<const char*>(s + 1), n - 1));
            else
                at(ix).v = value(bytes(s + 1, s + n));
            close(ix);
            m_type = t;
            return true;
        }
        case kind::map:
        case kind::ext: {
            if (!m_in.skip(depth))
                return set_error("value", "malformed msgpack constant");
            auto v =
                adapters::detail::decode_msgpack({start, static_cast<std::size_t>(m_in.p - start)});
            if (!v)
                return set_error("value", v.error().message);
            rtype t = k == kind::map ? rtype::map : rtype::end;
            std::uint32_t ix = push(detail::vop_value, t);
            at(ix).v = std::move(v).value();
            close(ix);
            m_type = t;
            return true;
        }
        case kind::list:
            break;
        }
        return set_error("value", "unexpected list");
    }

    bool expect_args(const char* name, std::uint32_t have, std::uint32_t want) {
        if (have != want)
            return set_error(
                name, "expected " + std::to_string(want) + " args, found " + std::to_string(have));
        return true;
    }

    // Builds one child and returns its static type in t (false on error).
    bool child(std::size_t depth, rtype& t) {
        if (!build(depth + 1))
            return false;
        t = m_type;
        return true;
    }

    bool bin_name(const char* what, std::string& out) {
        const std::uint8_t* s = nullptr;
        std::uint32_t n = 0;
        if (!m_in.get_str(s, n))
            return set_error(what, "failed to parse a bin name string");
        if (n > 15)
            return set_error(what, "invalid bin name of " + std::to_string(n) + " bytes (max 15)");
        out.assign(reinterpret_cast<const char*>(s), n);
        if (out.find('\0') != std::string::npos)
            return set_error(what, "invalid bin name (holds a NUL byte)");
        return true;
    }

    bool build(std::size_t depth) {
        if (depth > max_depth)
            return set_error("expression",
                             "nesting deeper than " + std::to_string(max_depth) + " levels");
        if (m_in.peek() != kind::list)
            return build_value(depth);
        std::uint32_t count = 0;
        if (!m_in.list_count(count) || count == 0)
            return set_error("expression", "invalid instruction");
        if (!m_in.need(count))
            return set_error("expression", "list count exceeds the input");
        std::uint64_t op = 0;
        if (!m_in.get_uint(op))
            return set_error("expression", "invalid op code");
        const char* name = detail::op_name(op);
        if (name == nullptr)
            return set_error("expression", "invalid op code " + std::to_string(op));
        std::uint32_t argc = count - 1;
        auto c = static_cast<std::uint8_t>(op);
        switch (c) {
        case code::unknown:
        case code::result_remove: {
            if (!expect_args(name, argc, 0))
                return false;
            std::uint32_t ix = push(c, c == code::unknown ? rtype::trilean : rtype::result_remove);
            close(ix);
            m_type = at(ix).type;
            return true;
        }
        case code::cmp_eq:
        case code::cmp_ne:
        case code::cmp_gt:
        case code::cmp_ge:
        case code::cmp_lt:
        case code::cmp_le: {
            if (!expect_args(name, argc, 2))
                return false;
            std::uint32_t ix = push(c, rtype::trilean);
            rtype l{}, r{};
            if (!child(depth, l) || !child(depth, r))
                return false;
            if (l != r)
                return set_error(name,
                                 std::string("mismatched arg types ") + detail::rtype_name(l) +
                                     " and " + detail::rtype_name(r));
            if (l == rtype::geojson || l == rtype::hll)
                return set_error(name,
                                 std::string("cannot compare arg type ") + detail::rtype_name(l));
            close(ix);
            m_type = rtype::trilean;
            return true;
        }
        case code::cmp_regex: {
            if (!expect_args(name, argc, 3))
                return false;
            std::uint32_t ix = push(c, rtype::trilean);
            std::int64_t flags = 0;
            if (!m_in.get_int(flags))
                return set_error(name, "invalid regex options");
            const std::uint8_t* s = nullptr;
            std::uint32_t n = 0;
            if (!m_in.get_str(s, n))
                return set_error(name, "invalid regex string");
            // regcomp reads up to the first NUL, as the server's copy does.
            std::string pattern(reinterpret_cast<const char*>(s), n);
            rtype t{};
            if (!child(depth, t))
                return false;
            if (t != rtype::str)
                return set_error(name,
                                 std::string("invalid arg type ") + detail::rtype_name(t) +
                                     " (str expected)");
            auto h = std::make_unique<detail::regex_holder>();
            int rv = regcomp(&h->re, pattern.c_str(), static_cast<int>(flags));
            if (rv != 0) {
                std::array<char, 256> buf{};
                regerror(rv, &h->re, buf.data(), buf.size());
                return set_error(name, std::string("regex compile: ") + buf.data());
            }
            h->compiled = true;
            at(ix).i = static_cast<std::int64_t>(m_prog.m_regex.size());
            m_prog.m_regex.push_back(std::move(h));
            close(ix);
            m_type = rtype::trilean;
            return true;
        }
        case code::cmp_geo:
            return set_error(name,
                             "GeoJSON comparison is not supported by kvmodel (no GeoJSON type)");
        case code::in_list: {
            if (!expect_args(name, argc, 2))
                return false;
            std::uint32_t ix = push(c, rtype::trilean);
            rtype l{}, r{};
            if (!child(depth, l) || !child(depth, r))
                return false;
            if (r != rtype::list)
                return set_error(name,
                                 std::string("invalid arg type ") + detail::rtype_name(r) +
                                     " (list expected)");
            close(ix);
            m_type = rtype::trilean;
            return true;
        }
        case code::and_:
        case code::or_:
        case code::exclusive: {
            std::uint32_t ix = push(c, rtype::trilean);
            if (argc < 2)
                return set_error(name, "too few args " + std::to_string(argc));
            for (std::uint32_t k = 0; k < argc; ++k) {
                rtype t{};
                if (!child(depth, t))
                    return false;
                if (t != rtype::trilean)
                    return set_error(name, "invalid type at arg " + std::to_string(k + 1));
            }
            at(ix).n = argc;
            close(ix);
            m_type = rtype::trilean;
            return true;
        }
        case code::not_:
            return unary(depth, c, name, argc, rtype::trilean, rtype::trilean);
        case code::add:
        case code::sub:
        case code::mul:
        case code::div:
        case code::min:
        case code::max: {
            std::uint32_t ix = push(c, rtype::end);
            if (argc < 1)
                return set_error(name, "too few args " + std::to_string(argc));
            rtype expected = rtype::end;
            for (std::uint32_t k = 0; k < argc; ++k) {
                rtype t{};
                if (!child(depth, t))
                    return false;
                if (t != rtype::integer && t != rtype::floating)
                    return set_error(name,
                                     std::string("invalid type ") + detail::rtype_name(t) +
                                         " at arg " + std::to_string(k + 1));
                if (expected == rtype::end)
                    expected = t;
                else if (expected != t)
                    return set_error(name, "mixed types at arg " + std::to_string(k + 1));
            }
            at(ix).n = argc;
            at(ix).type = expected;
            close(ix);
            m_type = expected;
            return true;
        }
        case code::pow:
        case code::log:
            return binary(depth, c, name, argc, rtype::floating, rtype::floating, rtype::floating);
        case code::mod:
            return binary(depth, c, name, argc, rtype::integer, rtype::integer, rtype::integer);
        case code::abs: {
            if (!expect_args(name, argc, 1))
                return false;
            std::uint32_t ix = push(c, rtype::end);
            rtype t{};
            if (!child(depth, t))
                return false;
            if (t != rtype::integer && t != rtype::floating)
                return set_error(name, std::string("invalid arg type ") + detail::rtype_name(t));
            at(ix).type = t;
            close(ix);
            m_type = t;
            return true;
        }
        case code::floor:
        case code::ceil:
            return unary(depth, c, name, argc, rtype::floating, rtype::floating);
        case code::to_int:
            return unary(depth, c, name, argc, rtype::floating, rtype::integer);
        case code::to_float:
            return unary(depth, c, name, argc, rtype::integer, rtype::floating);
        case code::int_and:
        case code::int_or:
        case code::int_xor: {
            std::uint32_t ix = push(c, rtype::integer);
            if (argc < 1)
                return set_error(name, "too few args " + std::to_string(argc));
            for (std::uint32_t k = 0; k < argc; ++k) {
                rtype t{};
                if (!child(depth, t))
                    return false;
                if (t != rtype::integer)
                    return set_error(name,
                                     std::string("invalid type ") + detail::rtype_name(t) +
                                         " at arg " + std::to_string(k + 1));
            }
            at(ix).n = argc;
            close(ix);
            m_type = rtype::integer;
            return true;
        }
        case code::int_not:
        case code::int_count:
            return unary(depth, c, name, argc, rtype::integer, rtype::integer);
        case code::int_lshift:
        case code::int_rshift:
        case code::int_arshift:
            return binary(depth, c, name, argc, rtype::integer, rtype::integer, rtype::integer);
        case code::int_lscan:
        case code::int_rscan:
            return binary(depth, c, name, argc, rtype::integer, rtype::trilean, rtype::integer);
        case code::digest_modulo: {
            if (!expect_args(name, argc, 1))
                return false;
            std::uint32_t ix = push(c, rtype::integer);
            std::int64_t mod = 0;
            if (!m_in.get_int(mod))
                return set_error(name, "failed to parse an integer");
            auto mod32 = static_cast<std::int32_t>(static_cast<std::uint32_t>(mod));
            if (mod32 == 0)
                return set_error(name, "cannot modulo by zero");
            at(ix).i = mod32;
            close(ix);
            m_type = rtype::integer;
            return true;
        }
        case code::device_size:
        case code::last_update:
        case code::since_update:
        case code::void_time:
        case code::ttl:
        case code::memory_size:
        case code::record_size:
            return meta(c, name, argc, rtype::integer);
        case code::set_name:
            return meta(c, name, argc, rtype::str);
        case code::key_exists:
        case code::is_tombstone:
            return meta(c, name, argc, rtype::trilean);
        case code::key: {
            if (!expect_args(name, argc, 1))
                return false;
            std::uint32_t ix = push(c, rtype::end);
            std::uint64_t t = 0;
            if (!m_in.get_uint(t))
                return set_error(name, "failed to parse an integer");
            rtype rt{};
            switch (t) {
            case 2:
                rt = rtype::integer;
                break;
            case 3:
                rt = rtype::str;
                break;
            case 6:
                rt = rtype::blob;
                break;
            default:
                return set_error(name, "invalid result type " + std::to_string(t));
            }
            at(ix).type = rt;
            close(ix);
            m_type = rt;
            return true;
        }
        case code::bin: {
            if (!expect_args(name, argc, 2))
                return false;
            std::uint32_t ix = push(c, rtype::end);
            std::uint64_t t = 0;
            if (!m_in.get_uint(t))
                return set_error(name, "failed to parse an integer");
            if (t >= static_cast<std::uint64_t>(rtype::input_end))
                return set_error(name, "invalid type " + std::to_string(t));
            std::string bn;
            if (!bin_name(name, bn))
                return false;
            auto rt = static_cast<rtype>(t);
            if (rt == rtype::geojson)
                return set_error(name,
                                 "GeoJSON bins are not supported by kvmodel (no GeoJSON type)");
            at(ix).type = rt;
            at(ix).i = bin_slot(bn);
            at(ix).name = std::move(bn);
            close(ix);
            m_type = rt;
            return true;
        }
        case code::bin_type: {
            if (!expect_args(name, argc, 1))
                return false;
            std::uint32_t ix = push(c, rtype::integer);
            std::string bn;
            if (!bin_name(name, bn))
                return false;
            at(ix).i = bin_slot(bn);
            at(ix).name = std::move(bn);
            close(ix);
            m_type = rtype::integer;
            return true;
        }
        case code::map_keys:
        case code::map_values: {
            if (!expect_args(name, argc, 1))
                return false;
            std::uint32_t ix = push(c, rtype::list);
            rtype t{};
            if (!child(depth, t))
                return false;
            close(ix);
            m_type = rtype::list;
            return true;
        }
        case code::var_builtin: {
            if (!expect_args(name, argc, 2))
                return false;
            std::uint32_t ix = push(c, rtype::end);
            std::uint64_t t = 0;
            std::uint64_t idx = 0;
            if (!m_in.get_uint(t))
                return set_error(name, "failed to parse an integer");
            if (!m_in.get_uint(idx))
                return set_error(name, "failed to parse an integer");
            if (idx >= 3)
                return set_error(name, "invalid builtin var " + std::to_string(idx));
            if (idx == 2 && t != 2)
                return set_error(name, "builtin var index is not an integer");
            if (t >= static_cast<std::uint64_t>(rtype::end) ||
                t == static_cast<std::uint64_t>(rtype::input_end))
                return set_error(name, "invalid result type " + std::to_string(t));
            at(ix).type = static_cast<rtype>(t);
            at(ix).i = static_cast<std::int64_t>(idx);
            close(ix);
            m_type = at(ix).type;
            return true;
        }
        case code::cond:
            return build_cond(depth, argc);
        case code::var: {
            if (!expect_args(name, argc, 1))
                return false;
            std::uint32_t ix = push(c, rtype::end);
            const std::uint8_t* s = nullptr;
            std::uint32_t n = 0;
            if (!m_in.get_str(s, n))
                return set_error(name, "failed to parse a string");
            std::string_view vn(reinterpret_cast<const char*>(s), n);
            const var_entry* e = find_var(vn);
            if (e == nullptr)
                return set_error(name, "undefined var name '" + std::string(vn) + "'");
            if (e->type == rtype::end)
                return set_error(name,
                                 "using var name '" + std::string(vn) + "' while defining it");
            at(ix).i = e->slot;
            at(ix).type = e->type;
            close(ix);
            m_type = e->type;
            return true;
        }
        case code::let:
            return build_let(depth, argc);
        case code::quote: {
            if (!expect_args(name, argc, 1))
                return false;
            std::uint32_t ix = push(detail::vop_value, rtype::list);
            const std::uint8_t* start = m_in.p;
            if (m_in.peek() != kind::list || !m_in.skip(depth))
                return set_error(name, "invalid list arg");
            auto v =
                adapters::detail::decode_msgpack({start, static_cast<std::size_t>(m_in.p - start)});
            if (!v)
                return set_error(name, v.error().message);
            at(ix).v = std::move(v).value();
            close(ix);
            m_type = rtype::list;
            return true;
        }
        case code::call:
            return build_call(depth, argc);
        default:
            break;
        }
        return set_error("expression", "invalid op code " + std::to_string(op));
    }

    bool unary(std::size_t depth,
               std::uint8_t c,
               const char* name,
               std::uint32_t argc,
               rtype in,
               rtype out) {
        if (!expect_args(name, argc, 1))
            return false;
        std::uint32_t ix = push(c, out);
        rtype t{};
        if (!child(depth, t))
            return false;
        if (t != in)
            return set_error(name,
                             std::string("invalid arg type ") + detail::rtype_name(t) + " (" +
                                 detail::rtype_name(in) + " expected)");
        close(ix);
        m_type = out;
        return true;
    }
    bool binary(std::size_t depth,
                std::uint8_t c,
                const char* name,
                std::uint32_t argc,
                rtype in0,
                rtype in1,
                rtype out) {
        if (!expect_args(name, argc, 2))
            return false;
        std::uint32_t ix = push(c, out);
        rtype a{}, b{};
        if (!child(depth, a) || !child(depth, b))
            return false;
        if (a != in0 || b != in1)
            return set_error(name,
                             std::string("invalid arg types ") + detail::rtype_name(a) + ", " +
                                 detail::rtype_name(b) + " (" + detail::rtype_name(in0) + ", " +
                                 detail::rtype_name(in1) + " expected)");
        close(ix);
        m_type = out;
        return true;
    }
    bool meta(std::uint8_t c, const char* name, std::uint32_t argc, rtype out) {
        if (!expect_args(name, argc, 0))
            return false;
        std::uint32_t ix = push(c, out);
        close(ix);
        m_type = out;
        return true;
    }

    bool build_cond(std::size_t depth, std::uint32_t argc) {
        std::uint32_t ix = push(code::cond, rtype::end);
        if (argc < 3)
            return set_error("cond", "too few args " + std::to_string(argc));
        if (argc % 2 == 0)
            return set_error("cond", "requires default case");
        rtype type = rtype::end;
        std::uint32_t cases = argc / 2;
        for (std::uint32_t k = 0; k < cases; ++k) {
            rtype t{};
            if (!child(depth, t))
                return false;
            if (t != rtype::trilean)
                return set_error("cond",
                                 std::string("invalid type ") + detail::rtype_name(t) +
                                     " at condition " + std::to_string(k + 1));
            std::uint32_t vix = static_cast<std::uint32_t>(m_prog.m_nodes.size());
            if (!child(depth, t))
                return false;
            // An `unknown` branch fits any type.
            if (at(vix).op != code::unknown) {
                if (type == rtype::end)
                    type = t;
                if (t != type)
                    return set_error("cond",
                                     std::string("mismatched arg type ") + detail::rtype_name(t) +
                                         " expected " + detail::rtype_name(type) +
                                         " at condition " + std::to_string(k + 1));
            }
        }
        std::uint32_t dix = static_cast<std::uint32_t>(m_prog.m_nodes.size());
        rtype t{};
        if (!child(depth, t))
            return false;
        if (type == rtype::end)
            type = t;
        else if (at(dix).op != code::unknown && t != type)
            return set_error("cond",
                             std::string("mismatched type ") + detail::rtype_name(t) +
                                 " expected " + detail::rtype_name(type) + " at default condition");
        if (type == rtype::end || type == rtype::input_end)
            return set_error("cond", "branches have no result type");
        at(ix).n = cases;
        at(ix).type = type;
        close(ix);
        m_type = type;
        return true;
    }

    const var_entry* find_var(std::string_view name) const {
        for (auto it = m_vars.rbegin(); it != m_vars.rend(); ++it)
            if (it->name == name)
                return &*it;
        return nullptr;
    }

    bool build_let(std::size_t depth, std::uint32_t argc) {
        std::uint32_t ix = push(code::let, rtype::end);
        if (argc < 3)
            return set_error("let", "too few args " + std::to_string(argc));
        if (argc % 2 == 0)
            return set_error("let", "invalid arg count " + std::to_string(argc));
        std::uint32_t n_vars = argc / 2;
        std::size_t scope_base = m_vars.size();
        at(ix).i = m_next_slot;
        at(ix).n = n_vars;
        for (std::uint32_t k = 0; k < n_vars; ++k) {
            const std::uint8_t* s = nullptr;
            std::uint32_t n = 0;
            if (!m_in.get_str(s, n))
                return set_error("let", "failed to parse var name at " + std::to_string(k));
            if (n == 0)
                return set_error("let", "variable name length is 0");
            std::string vn(reinterpret_cast<const char*>(s), n);
            auto alpha = [](unsigned char ch) {
                return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
            };
            auto digit = [](unsigned char ch) {
                return ch >= '0' && ch <= '9';
            };
            if (vn[0] != '_' && !alpha(static_cast<unsigned char>(vn[0])))
                return set_error("let",
                                 "illegal variable name '" + vn +
                                     "' - must begin with an alpha or underscore");
            for (std::size_t j = 1; j < vn.size(); ++j) {
                auto ch = static_cast<unsigned char>(vn[j]);
                if (ch != '_' && !alpha(ch) && !digit(ch))
                    return set_error("let",
                                     "illegal variable name '" + vn +
                                         "' - must contain only alpha, digits or underscore");
            }
            if (find_var(vn) != nullptr)
                return set_error("let", "duplicate var name '" + vn + "'");
            m_vars.push_back(var_entry{vn, m_next_slot++, rtype::end});
            rtype t{};
            if (!child(depth, t))
                return false;
            m_vars.back().type = t;
        }
        rtype t{};
        if (!child(depth, t))
            return false;
        if (m_next_slot > m_prog.m_vars)
            m_prog.m_vars = m_next_slot;
        m_next_slot -= n_vars;
        m_vars.resize(scope_base);
        at(ix).type = t;
        close(ix);
        m_type = t;
        return true;
    }

    // A path call's [0xfe, ctx, flags(, mod_exp)] after its op code (exp.c's
    // parse_op_call): a list, an unsigned int and a msgpack element are all the
    // build step checks; the rest (select_stack_init, the modify expression's
    // build) happens when the call runs, so a failure there makes the call
    // unknown rather than the expression refused.
    bool build_path(std::size_t depth, std::uint32_t n, detail::call_info& ci) {
        if (n < 3 || n > 4)
            return set_error("call", "select takes a context, flags and a modify expression");
        const std::uint8_t* ctx_start = m_in.p;
        if (m_in.peek() != kind::list || !m_in.skip(depth))
            return set_error("call", "invalid select context");
        std::span<const std::uint8_t> ctx_bytes(ctx_start, m_in.p);
        std::uint64_t flags = 0;
        if (!m_in.get_uint(flags))
            return set_error("call", "invalid select flags");
        std::span<const std::uint8_t> mod_bytes;
        if (n == 4) {
            const std::uint8_t* mod_start = m_in.p;
            if (!m_in.skip(depth))
                return set_error("call", "invalid select modify expression");
            mod_bytes = {mod_start, m_in.p};
        }
        auto info = std::make_shared<detail::path_info>();
        info->mode = static_cast<std::uint32_t>(flags & 0xf);
        info->no_fail = (flags & path_flags::no_fail) != 0;
        info->valid = info->mode <= path_flags::apply &&
                      (n == 4) == (info->mode == path_flags::apply) &&
                      parse_path_ctx(ctx_bytes, *info, depth) &&
                      (n == 3 || (info->mod = sub_program(mod_bytes, depth)) != nullptr);
        ci.path = std::move(info);
        return true;
    }

    // A filter or modify expression of a path call, compiled on its own (its
    // own variables), or nullptr when the server's build would refuse it.
    static std::shared_ptr<const program> sub_program(std::span<const std::uint8_t> bytes,
                                                      std::size_t depth) {
        result<program> p = compiler(bytes, depth + 1).run();
        if (!p)
            return nullptr;
        return std::make_shared<const program>(std::move(p).value());
    }

    // cdt.c's select_stack_init: [type, arg, type, arg, ...], at most 64
    // levels; an and-filter (0x204) folds into the level before it.
    static bool parse_path_ctx(std::span<const std::uint8_t> bytes,
                               detail::path_info& info,
                               std::size_t depth) {
        detail::mp_in in{bytes.data(), bytes.data(), bytes.data() + bytes.size()};
        std::uint32_t n = 0;
        if (!in.list_count(n) || n == 0 || n % 2 != 0 || n / 2 > 64)
            return false;
        for (std::uint32_t k = 0; k < n / 2; ++k) {
            std::uint64_t t = 0;
            if (!in.get_uint(t))
                return false;
            const bool is_and = (t & path_ctx::and_filter & ~path_ctx::exp) != 0;
            detail::path_step* st = nullptr;
            if (is_and) {
                if (t != path_ctx::and_filter || info.steps.empty())
                    return false;
                st = &info.steps.back();
                if (st->has_and || (st->type & 0x0f) == path_ctx::exp)
                    return false;
                st->has_and = true;
            } else {
                info.steps.emplace_back();
                st = &info.steps.back();
                st->type = static_cast<std::uint32_t>(t);
            }
            const std::uint8_t* arg = in.p;
            switch (t & 0x0f) {
            case 0: // index
            case 1: // rank
                if (is_and || !in.get_int(st->index))
                    return false;
                break;
            case 2:    // key
            case 3:    // value
            case 10: { // key list
                if (is_and || !in.skip(depth))
                    return false;
                auto v =
                    adapters::detail::decode_msgpack({arg, static_cast<std::size_t>(in.p - arg)});
                if (!v)
                    return false;
                st->v = std::move(v).value();
                break;
            }
            case 4: { // expression: a list, or `true` for every child
                if (!in.skip(depth))
                    return false;
                std::span<const std::uint8_t> e(arg, in.p);
                std::shared_ptr<const program> f;
                if (e.size() == 1 && e[0] == 0xc3) {
                    // no filter
                } else if (detail::mp_in{e.data(), e.data(), e.data() + e.size()}.peek() ==
                           detail::mp_in::kind::list) {
                    if ((f = sub_program(e, depth)) == nullptr)
                        return false;
                } else {
                    return false;
                }
                (is_and ? st->and_filter : st->filter) = std::move(f);
                break;
            }
            default:
                return false;
            }
        }
        return in.p == in.end;
    }

    // A ctx list: [type, value, type, value, ...] (as_cdt_ctx_pack).
    bool parse_ctx(std::vector<cdt::ctx_step>& out, std::size_t depth) {
        const std::uint8_t* start = m_in.p;
        if (m_in.peek() != kind::list || !m_in.skip(depth))
            return set_error("call", "invalid context");
        auto v =
            adapters::detail::decode_msgpack({start, static_cast<std::size_t>(m_in.p - start)});
        if (!v || !v->is_list())
            return set_error("call", "invalid context");
        const list& l = v->as_list();
        if (l.empty() || l.size() % 2 != 0)
            return set_error("call", "invalid context length");
        for (std::size_t k = 0; k < l.size(); k += 2) {
            if (!l[k].is_int())
                return set_error("call", "invalid context type");
            std::int64_t t = l[k].as_int();
            const value& arg = l[k + 1];
            auto need_int = [&]() {
                return arg.is_int();
            };
            switch (t) {
            case 0x10:
                if (!need_int())
                    return set_error("call", "context list_index needs an integer");
                out.push_back(cdt::ctx_step::list_index(arg.as_int()));
                break;
            case 0x11:
                if (!need_int())
                    return set_error("call", "context list_rank needs an integer");
                out.push_back(cdt::ctx_step::list_rank(arg.as_int()));
                break;
            case 0x13:
                out.push_back(cdt::ctx_step::list_value(arg));
                break;
            case 0x20:
                if (!need_int())
                    return set_error("call", "context map_index needs an integer");
                out.push_back(cdt::ctx_step::map_index(arg.as_int()));
                break;
            case 0x21:
                if (!need_int())
                    return set_error("call", "context map_rank needs an integer");
                out.push_back(cdt::ctx_step::map_rank(arg.as_int()));
                break;
            case 0x22:
                out.push_back(cdt::ctx_step::map_key(arg));
                break;
            case 0x23:
                out.push_back(cdt::ctx_step::map_value(arg));
                break;
            default:
                return set_error("call",
                                 "context type " + std::to_string(t) +
                                     " is not supported by kvmodel in expressions");
            }
        }
        return true;
    }

    bool build_call(std::size_t depth, std::uint32_t argc) {
        if (!expect_args("call", argc, 4))
            return false;
        std::uint32_t ix = push(code::call, rtype::end);
        std::uint64_t t = 0;
        if (!m_in.get_uint(t))
            return set_error("call", "invalid result_type arg");
        if (t >= static_cast<std::uint64_t>(rtype::input_end))
            return set_error("call", "invalid type " + std::to_string(t));
        std::uint64_t sys = 0;
        if (!m_in.get_uint(sys))
            return set_error("call", "invalid system_type arg");
        detail::call_info ci;
        ci.declared = static_cast<rtype>(t);
        ci.modify = (sys & call_system::modify_local) != 0;
        std::uint64_t system = sys & ~std::uint64_t{call_system::modify_local};
        ci.bits = system == call_system::bits;
        ci.system = system;
        // The op list: [op, args...] or [0xff, ctx, [op, args...]].
        std::uint32_t n = 0;
        if (!m_in.list_count(n) || n == 0 || !m_in.need(n))
            return set_error("call", "invalid msgpack list");
        std::uint64_t op = 0;
        if (!m_in.get_uint(op))
            return set_error("call", "invalid msgpack list");
        if (op == cdt_context_eval) {
            if (n != 3)
                return set_error("call", "invalid msgpack list");
            if (!parse_ctx(ci.ctx, depth))
                return false;
            if (!m_in.list_count(n) || n == 0 || !m_in.need(n) || !m_in.get_uint(op))
                return set_error("call", "invalid msgpack list");
        } else if (op == cdt_select) {
            if (!build_path(depth, n, ci))
                return false;
            n = 1; // the context, flags and modify expression are read
        }
        ci.op = op;
        if (n > 19)
            return set_error("call", "too many args " + std::to_string(n - 1));
        for (std::uint32_t k = 1; k < n; ++k) {
            kind kd = m_in.peek();
            if (kd == kind::error)
                return set_error("call", "invalid msgpack list");
            detail::call_arg a;
            if (kd == kind::list) {
                a.is_exp = true;
                rtype at_{};
                if (!child(depth, at_))
                    return false;
            } else {
                const std::uint8_t* start = m_in.p;
                if (!m_in.skip(depth))
                    return set_error("call", "invalid msgpack list");
                auto v = adapters::detail::decode_msgpack(
                    {start, static_cast<std::size_t>(m_in.p - start)});
                if (!v)
                    return set_error("call", v.error().message);
                a.constant = std::move(v).value();
            }
            ci.args.push_back(std::move(a));
        }
        rtype bt{};
        if (!child(depth, bt))
            return false;
        if (system == call_system::hll) {
            if (bt != rtype::nil && bt != rtype::hll)
                return set_error("call",
                                 std::string("arg ") + detail::rtype_name(bt) + " is not hll");
        } else if (ci.bits) {
            if (bt != rtype::nil && bt != rtype::blob)
                return set_error("call",
                                 std::string("arg ") + detail::rtype_name(bt) + " is not blob");
        } else if (bt != rtype::nil && bt != rtype::list && bt != rtype::map)
            return set_error("call",
                             std::string("arg ") + detail::rtype_name(bt) + " is not list or map");
        if (system != call_system::cdt && system != call_system::hll && !ci.bits)
            return set_error("call", "invalid system " + std::to_string(sys));
        at(ix).i = static_cast<std::int64_t>(m_prog.m_calls.size());
        at(ix).type = ci.declared;
        m_prog.m_calls.push_back(std::move(ci));
        close(ix);
        m_type = at(ix).type;
        return true;
    }

    std::size_t m_base_depth = 0;
    detail::mp_in m_in;
    program m_prog;
    rtype m_type = rtype::end;
    std::vector<var_entry> m_vars;
    std::uint32_t m_next_slot = 0;
    failure m_error{};
    bool m_failed = false;
};

inline result<program> compile(std::span<const std::uint8_t> packed) {
    return compiler(packed).run();
}

// ===========================================================================
// evaluate
// ===========================================================================

namespace detail {

/// x86-64's cvttsd2si: truncation, INT64_MIN when NaN or out of range.
inline std::int64_t double_to_int(double d) noexcept {
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(d);
}

inline std::int64_t wrap_add(std::int64_t a, std::int64_t b) noexcept {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
inline std::int64_t wrap_sub(std::int64_t a, std::int64_t b) noexcept {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
inline std::int64_t wrap_mul(std::int64_t a, std::int64_t b) noexcept {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
// Doubles do not wrap: the same names, for code shared by both.
inline double wrap_add(double a, double b) noexcept {
    return a + b;
}
inline double wrap_sub(double a, double b) noexcept {
    return a - b;
}
inline double wrap_mul(double a, double b) noexcept {
    return a * b;
}

inline std::int64_t particle_of(const value& v) noexcept {
    switch (v.type()) {
    case value_type::integer:
        return particle_type::integer;
    case value_type::floating:
        return particle_type::floating;
    case value_type::string:
        return particle_type::string;
    case value_type::bytes:
        return is_hll_value(v) ? particle_type::hll : particle_type::blob;
    case value_type::boolean:
        return particle_type::boolean;
    case value_type::map:
        return particle_type::map;
    case value_type::list:
        return particle_type::list;
    default:
        return particle_type::null;
    }
}

/// Whether a runtime value has the static type t (the server's bin_is_type).
inline bool is_type(const value& v, rtype t) noexcept {
    switch (t) {
    case rtype::nil:
        return v.is_nil();
    case rtype::trilean:
        return v.is_bool();
    case rtype::integer:
        return v.is_int();
    case rtype::str:
        return v.is_string();
    case rtype::list:
        return v.is_list();
    case rtype::map:
        return v.is_map();
    case rtype::blob:
        return v.is_bytes();
    case rtype::floating:
        return v.is_double();
    case rtype::hll:
        return is_hll_value(v);
    default:
        return false;
    }
}

/// A CDT call's op from its wire code and argument values; nullopt when the
/// arguments do not fit the op (the server's CDT parse fails: unknown).
inline std::optional<cdt::op> make_cdt_op(const call_info& ci, std::span<const value> a) {
    using cdt::op_code;
    cdt::op o;
    o.ctx = ci.ctx;
    std::size_t n = a.size();
    auto int_at = [&](std::size_t k, std::int64_t& out) {
        if (k >= n || !a[k].is_int())
            return false;
        out = a[k].as_int();
        return true;
    };
    auto list_at = [&](std::size_t k, std::vector<value>& out) {
        if (k >= n || !a[k].is_list())
            return false;
        out = a[k].as_list().to_vector();
        return true;
    };
    auto opt_count = [&](std::size_t k) {
        if (k >= n)
            return true;
        std::int64_t c = 0;
        if (!int_at(k, c))
            return false;
        o.count = c;
        return k + 1 == n;
    };
    // Selectors: rtype first.
    auto selector = [&](op_code c, int shape) -> bool {
        o.code = c;
        std::int64_t rt = 0;
        if (!int_at(0, rt))
            return false;
        o.return_type = static_cast<std::int32_t>(rt);
        switch (shape) {
        case 0:
            return n == 1; // size-like: none
        case 1:            // value
            if (n != 2)
                return false;
            o.key = a[1];
            return true;
        case 2: // index / rank
            return n == 2 && int_at(1, o.index);
        case 3: // index / rank + count?
            return n >= 2 && int_at(1, o.index) && opt_count(2);
        case 4: // values
            return n == 2 && list_at(1, o.values);
        case 5: // range
            if (n < 2 || n > 3)
                return false;
            o.begin = a[1];
            if (n == 3)
                o.end = a[2];
            return true;
        case 6: // anchor + index/rank + count?
            if (n < 3)
                return false;
            o.key = a[1];
            return int_at(2, o.index) && opt_count(3);
        default:
            return false;
        }
    };
    auto lpolicy = [&](std::size_t k, bool with_order) {
        if (k >= n)
            return true;
        std::int64_t x = 0;
        if (with_order) {
            if (!int_at(k, x))
                return false;
            o.lpolicy.order = (x & 1) ? list_order::ordered : list_order::unordered;
            ++k;
        }
        if (k >= n)
            return !with_order;
        if (!int_at(k, x))
            return false;
        o.lpolicy.flags = static_cast<std::uint32_t>(x);
        return k + 1 == n;
    };
    auto mpolicy = [&](std::size_t k) {
        if (k >= n)
            return true;
        std::int64_t x = 0;
        if (!int_at(k, x))
            return false;
        o.mpolicy.order = static_cast<map_order>(x & 3) == map_order::key_value_ordered
                              ? map_order::key_value_ordered
                              : ((x & 1) ? map_order::key_ordered : map_order::unordered);
        if (k + 1 >= n)
            return true;
        if (!int_at(k + 1, x))
            return false;
        o.mpolicy.flags = static_cast<std::uint32_t>(x);
        return k + 2 == n;
    };
    // A map put's policy from argument k on: put / put_items with a policy
    // argument (order, flags), or add / update, whose mode is the op's and
    // which take at most an order.
    auto put_mode = [&](std::size_t k, bool with_policy, bool create) {
        if (with_policy)
            return mpolicy(k);
        o.mpolicy.mode = create ? cdt::map_write_mode::create_only : cdt::map_write_mode::update_only;
        return n <= k + 1 && (n != k + 1 || mpolicy(k));
    };
    switch (ci.op) {
    // --- list
    case 0:
    case 64: {
        // Set type (the server's list_set_flags / map_set_flags): [flags],
        // order in the low bits, 0x10 a persisted index (top level only);
        // other bits fail (OP_NOT_APPLICABLE: unknown here).
        std::int64_t f = 0;
        const std::int64_t valid = ci.op == 0 ? 0x11 : 0x13;
        if (n != 1 || !int_at(0, f) || (f & ~valid) != 0)
            return std::nullopt;
        o.persist_index = (f & 0x10) != 0;
        if (ci.op == 0) {
            o.code = op_code::list_set_order;
            o.order = (f & 1) ? list_order::ordered : list_order::unordered;
        } else {
            o.code = op_code::map_set_policy;
            o.morder = (f & 3) == 3   ? map_order::key_value_ordered
                       : (f & 1) != 0 ? map_order::key_ordered
                                      : map_order::unordered;
            o.mpolicy.order = o.morder;
            o.mpolicy.persist_index = o.persist_index;
        }
        return o;
    }
    case 1:
        o.code = op_code::list_append;
        if (n < 1)
            return std::nullopt;
        o.key = a[0];
        if (!lpolicy(1, true))
            return std::nullopt;
        return o;
    case 2:
        o.code = op_code::list_append_items;
        if (!list_at(0, o.values) || !lpolicy(1, true))
            return std::nullopt;
        return o;
    case 3:
        o.code = op_code::list_insert;
        if (n < 2 || !int_at(0, o.index))
            return std::nullopt;
        o.key = a[1];
        if (!lpolicy(2, false))
            return std::nullopt;
        return o;
    case 4:
        o.code = op_code::list_insert_items;
        if (!int_at(0, o.index) || !list_at(1, o.values) || !lpolicy(2, false))
            return std::nullopt;
        return o;
    case 5:
    case 7:
    case 17:
        o.code = ci.op == 5 ? op_code::list_pop
                            : (ci.op == 7 ? op_code::list_remove : op_code::list_get);
        if (n != 1 || !int_at(0, o.index))
            return std::nullopt;
        return o;
    case 6:
    case 8:
    case 18:
        o.code = ci.op == 6 ? op_code::list_pop_range
                            : (ci.op == 8 ? op_code::list_remove_range : op_code::list_get_range);
        if (n < 1 || !int_at(0, o.index) || !opt_count(1))
            return std::nullopt;
        return o;
    case 9:
        o.code = op_code::list_set;
        if (n < 2 || !int_at(0, o.index))
            return std::nullopt;
        o.key = a[1];
        if (!lpolicy(2, false))
            return std::nullopt;
        return o;
    case 10: {
        o.code = op_code::list_trim;
        std::int64_t c = 0;
        if (n != 2 || !int_at(0, o.index) || !int_at(1, c))
            return std::nullopt;
        o.count = c;
        return o;
    }
    case 11:
        o.code = op_code::list_clear;
        if (n != 0)
            return std::nullopt;
        return o;
    case 12:
        o.code = op_code::list_increment;
        if (n < 1 || !int_at(0, o.index))
            return std::nullopt;
        if (n >= 2)
            o.val = a[1];
        else
            o.val = value(std::int64_t{1});
        if (!lpolicy(2, true))
            return std::nullopt;
        return o;
    case 13: {
        o.code = op_code::list_sort;
        std::int64_t f = 0;
        if (n != 1 || !int_at(0, f))
            return std::nullopt;
        o.sort_flags = static_cast<std::uint32_t>(f);
        return o;
    }
    case 16:
        o.code = op_code::list_size;
        if (n != 0)
            return std::nullopt;
        return o;
    case 19:
        if (!selector(op_code::list_get_by_index, 2))
            return std::nullopt;
        return o;
    case 21:
        if (!selector(op_code::list_get_by_rank, 2))
            return std::nullopt;
        return o;
    case 22:
        if (!selector(op_code::list_get_by_value, 1))
            return std::nullopt;
        return o;
    case 23:
        if (!selector(op_code::list_get_by_value_list, 4))
            return std::nullopt;
        return o;
    case 24:
        if (!selector(op_code::list_get_by_index_range, 3))
            return std::nullopt;
        return o;
    case 25:
        if (!selector(op_code::list_get_by_value_range, 5))
            return std::nullopt;
        return o;
    case 26:
        if (!selector(op_code::list_get_by_rank_range, 3))
            return std::nullopt;
        return o;
    case 27:
        if (!selector(op_code::list_get_by_value_rel_rank_range, 6))
            return std::nullopt;
        return o;
    case 32:
        if (!selector(op_code::list_remove_by_index, 2))
            return std::nullopt;
        return o;
    case 34:
        if (!selector(op_code::list_remove_by_rank, 2))
            return std::nullopt;
        return o;
    case 35:
        if (!selector(op_code::list_remove_by_value, 1))
            return std::nullopt;
        return o;
    case 36:
        if (!selector(op_code::list_remove_by_value_list, 4))
            return std::nullopt;
        return o;
    case 37:
        if (!selector(op_code::list_remove_by_index_range, 3))
            return std::nullopt;
        return o;
    case 38:
        if (!selector(op_code::list_remove_by_value_range, 5))
            return std::nullopt;
        return o;
    case 39:
        if (!selector(op_code::list_remove_by_rank_range, 3))
            return std::nullopt;
        return o;
    case 40:
        if (!selector(op_code::list_remove_by_value_rel_rank_range, 6))
            return std::nullopt;
        return o;
    // --- map
    case 65:
    case 67:
    case 69:
        o.code = op_code::map_put;
        if (n < 2)
            return std::nullopt;
        o.key = a[0];
        o.val = a[1];
        if (!put_mode(2, ci.op == 67, ci.op == 65))
            return std::nullopt;
        return o;
    case 66:
    case 68:
    case 70: {
        o.code = op_code::map_put_items;
        if (n < 1 || !a[0].is_map())
            return std::nullopt;
        for (const map_entry& e : a[0].as_map())
            o.items.emplace_back(e.key, e.val);
        if (!put_mode(1, ci.op == 68, ci.op == 66))
            return std::nullopt;
        return o;
    }
    case 73:
    case 74:
        o.code = ci.op == 73 ? op_code::map_increment : op_code::map_decrement;
        if (n < 1)
            return std::nullopt;
        o.key = a[0];
        o.val = n >= 2 ? a[1] : value(std::int64_t{1});
        if (!mpolicy(2))
            return std::nullopt;
        return o;
    case 75:
        o.code = op_code::map_clear;
        if (n != 0)
            return std::nullopt;
        return o;
    case 96:
        o.code = op_code::map_size;
        if (n != 0)
            return std::nullopt;
        return o;
    case 76:
        if (!selector(op_code::map_remove_by_key, 1))
            return std::nullopt;
        return o;
    case 77:
        if (!selector(op_code::map_remove_by_index, 2))
            return std::nullopt;
        return o;
    case 79:
        if (!selector(op_code::map_remove_by_rank, 2))
            return std::nullopt;
        return o;
    case 81:
        if (!selector(op_code::map_remove_by_key_list, 4))
            return std::nullopt;
        return o;
    case 82:
        if (!selector(op_code::map_remove_by_value, 1))
            return std::nullopt;
        return o;
    case 83:
        if (!selector(op_code::map_remove_by_value_list, 4))
            return std::nullopt;
        return o;
    case 84:
        if (!selector(op_code::map_remove_by_key_range, 5))
            return std::nullopt;
        return o;
    case 85:
        if (!selector(op_code::map_remove_by_index_range, 3))
            return std::nullopt;
        return o;
    case 86:
        if (!selector(op_code::map_remove_by_value_range, 5))
            return std::nullopt;
        return o;
    case 87:
        if (!selector(op_code::map_remove_by_rank_range, 3))
            return std::nullopt;
        return o;
    case 88:
        if (!selector(op_code::map_remove_by_key_rel_index_range, 6))
            return std::nullopt;
        return o;
    case 89:
        if (!selector(op_code::map_remove_by_value_rel_rank_range, 6))
            return std::nullopt;
        return o;
    case 97:
        if (!selector(op_code::map_get_by_key, 1))
            return std::nullopt;
        return o;
    case 98:
        if (!selector(op_code::map_get_by_index, 2))
            return std::nullopt;
        return o;
    case 100:
        if (!selector(op_code::map_get_by_rank, 2))
            return std::nullopt;
        return o;
    case 102:
        if (!selector(op_code::map_get_by_value, 1))
            return std::nullopt;
        return o;
    case 103:
        if (!selector(op_code::map_get_by_key_range, 5))
            return std::nullopt;
        return o;
    case 104:
        if (!selector(op_code::map_get_by_index_range, 3))
            return std::nullopt;
        return o;
    case 105:
        if (!selector(op_code::map_get_by_value_range, 5))
            return std::nullopt;
        return o;
    case 106:
        if (!selector(op_code::map_get_by_rank_range, 3))
            return std::nullopt;
        return o;
    case 107:
        if (!selector(op_code::map_get_by_key_list, 4))
            return std::nullopt;
        return o;
    case 108:
        if (!selector(op_code::map_get_by_value_list, 4))
            return std::nullopt;
        return o;
    case 109:
        if (!selector(op_code::map_get_by_key_rel_index_range, 6))
            return std::nullopt;
        return o;
    case 110:
        if (!selector(op_code::map_get_by_value_rel_rank_range, 6))
            return std::nullopt;
        return o;
    default:
        return std::nullopt;
    }
}

} // namespace detail

namespace detail {
/// The loop variables of the element a path expression's filter or modify
/// expression is evaluated on (loopvar key, value, index; nullptr: unset,
/// which reads as unknown).
struct loop_vars {
    std::array<const value*, 3> var{};
};

/// Whether v holds INF or WILDCARD, which the server never stores.
inline bool has_nonstorage(const value& v) {
    if (v.is_inf() || v.is_wildcard())
        return true;
    if (v.is_list()) {
        for (const value& e : v.as_list())
            if (has_nonstorage(e))
                return true;
    } else if (v.is_map()) {
        for (const map_entry& e : v.as_map())
            if (has_nonstorage(e.key) || has_nonstorage(e.val))
                return true;
    }
    return false;
}
} // namespace detail

/// Runs a program. Each node is evaluated by the function of its static type:
/// ev_bool, ev_int, ev_float hold the scalar ops and never build a `value`;
/// ev_any holds what any type can be (constants, bins, cond, let, var, CDT
/// calls) and the string and container ops; ev picks by type.
class evaluator {
public:
    /// Prepares to run `p` over `r`; allocates the variable slots of a `let`
    /// (if any). Both must outlive the evaluator.
    evaluator(const program& p, const record_view& r)
        : m_p(p)
        , m_r(r)
        , m_nodes(p.m_nodes.data()) {
        // Variable slots only for a program with a let.
        if (p.m_vars > 0)
            m_vars = std::make_unique<std::optional<value>[]>(p.m_vars);
    }

    /// Evaluates a path expression's filter or modify expression `p` on one
    /// element: no record (bin and metadata reads are unknown), the loop
    /// variables `loop`.
    evaluator(const program& p, const record_view& r, const detail::loop_vars* loop)
        : evaluator(p, r) {
        m_loop = loop;
    }

    /// Evaluates the program once: its value, or std::nullopt for unknown (see
    /// the header comment). Never fails otherwise; one walk of the program.
    std::optional<value> run() {
        std::optional<value> res;
        switch (m_nodes[0].type) {
        case rtype::result_remove: // (only a modify by path gives it a meaning)
            return res;
        case rtype::trilean: // (the scalars straight into the result)
            if (bool b = false; ev_bool(0, b))
                res.emplace(b);
            return res;
        case rtype::integer:
            if (std::int64_t x = 0; ev_int(0, x))
                res.emplace(x);
            return res;
        default: {
            value out;
            if (ev(0, out))
                res.emplace(std::move(out));
            return res;
        }
        }
    }

private:
    using rtype = detail::rtype;

    std::optional<value>& slot(std::int64_t i) { return m_vars[static_cast<std::size_t>(i)]; }
    std::uint32_t next(std::uint32_t c) const noexcept { return m_nodes[c].end; }

    // --- dispatch ------------------------------------------------------------------

    bool ev(std::uint32_t i, value& out) {
        switch (m_nodes[i].type) {
        case rtype::trilean: {
            bool b = false;
            if (!ev_bool(i, b))
                return false;
            out = value(b);
            return true;
        }
        case rtype::integer: {
            std::int64_t x = 0;
            if (!ev_int(i, x))
                return false;
            out = value(x);
            return true;
        }
        case rtype::floating: {
            double d = 0;
            if (!ev_float(i, d))
                return false;
            out = value(d);
            return true;
        }
        default:
            return ev_any(i, out);
        }
    }

    /// A bin node's (bin, bin_type) bin, looked up once per evaluation;
    /// nullptr when absent. Only with m_r.has_bins and m_r.find_bin.
    KVMODEL_ALWAYS_INLINE const value* lookup(const detail::node& nd) {
        const auto slot = static_cast<std::uint64_t>(nd.i);
        if (slot >= detail::cached_bins)
            return m_r.find_bin(m_r.bins_ctx, nd.name);
        const std::uint32_t bit = 1U << slot;
        if ((m_known & bit) == 0) {
            m_bin[slot] = m_r.find_bin(m_r.bins_ctx, nd.name);
            m_known |= bit;
        }
        return m_bin[slot];
    }

    /// The bin's value when it exists and has the node's type, else nullptr.
    KVMODEL_ALWAYS_INLINE const value* bin_of(const detail::node& nd) {
        if (!m_r.has_bins || m_r.find_bin == nullptr)
            return nullptr;
        const value* b = lookup(nd);
        if (b == nullptr)
            return nullptr;
        // (An int bin, the commonest, without is_type's switch.)
        const bool typed = nd.type == rtype::integer ? b->is_int() : detail::is_type(*b, nd.type);
        return typed ? b : nullptr;
    }

    // What every scalar type shares (constants, bin reads, cond, let, and
    // the ops of any type, through ev_any): the typed functions hand those
    // here. T is bool, std::int64_t or double.
    template <class T>
    static T scalar_of(const value& v) {
        if constexpr (std::is_same_v<T, bool>)
            return v.as_bool();
        else if constexpr (std::is_same_v<T, std::int64_t>)
            return v.as_int();
        else
            return v.as_double();
    }
    template <class T>
    bool typed(std::uint32_t i, T& out) {
        if constexpr (std::is_same_v<T, bool>)
            return ev_bool(i, out);
        else if constexpr (std::is_same_v<T, std::int64_t>)
            return ev_int(i, out);
        else
            return ev_float(i, out);
    }
    template <class T>
    KVMODEL_ALWAYS_INLINE bool shared(std::uint32_t i, T& out) {
        const detail::node& nd = m_nodes[i];
        switch (nd.op) {
        case detail::vop_value:
            out = scalar_of<T>(nd.v);
            return true;
        case code::bin: {
            const value* b = bin_of(nd);
            if (b == nullptr)
                return false;
            out = scalar_of<T>(*b);
            return true;
        }
        case code::cond: {
            std::uint32_t chosen = 0;
            return pick(nd, i, chosen) && typed(chosen, out);
        }
        case code::let:
            return typed(bind(nd, i), out);
        default: {
            value v;
            if (!ev_any(i, v) || !detail::is_type(v, nd.type))
                return false;
            out = scalar_of<T>(v);
            return true;
        }
        }
    }

    // cond's branch, or nullopt-like false: the index of the value to take.
    bool pick(const detail::node& nd, std::uint32_t i, std::uint32_t& chosen) {
        std::uint32_t c = i + 1;
        for (std::uint32_t k = 0; k < nd.n; ++k) {
            bool b = false;
            if (!ev_bool(c, b))
                return false;
            std::uint32_t val = next(c);
            if (b) {
                chosen = val;
                return true;
            }
            c = next(val);
        }
        chosen = c;
        return true;
    }
    // let's definitions, in order; returns the body's index.
    std::uint32_t bind(const detail::node& nd, std::uint32_t i) {
        std::uint32_t c = i + 1;
        for (std::uint32_t k = 0; k < nd.n; ++k, c = next(c)) {
            value v;
            std::optional<value>& s = slot(nd.i + k);
            if (ev(c, v))
                s = std::move(v);
            else
                s.reset();
        }
        return c;
    }

    // --- booleans ------------------------------------------------------------------

    bool ev_bool(std::uint32_t i, bool& out) {
        const detail::node& nd = m_nodes[i];
        if (nd.fused == detail::fused_cmp_int_bin) {
            const value* b = bin_of(m_nodes[i + 1]);
            if (b == nullptr)
                return false;
            out = cmp_result(nd.op, b->as_int(), nd.i);
            return true;
        }
        // (and / or first: the commonest inner nodes, a direct branch
        // rather than the switch's indirect jump.)
        if (nd.op == code::and_ || nd.op == code::or_)
            return and_or(nd, i, out);
        switch (nd.op) {
        case code::unknown:
            return false;
        case code::cmp_eq:
        case code::cmp_ne:
        case code::cmp_gt:
        case code::cmp_ge:
        case code::cmp_lt:
        case code::cmp_le:
            return compare(nd, i, out);
        case code::cmp_regex: {
            value s;
            if (!ev(i + 1, s) || !s.is_string())
                return false;
            // The server matches a NUL-terminated copy: an embedded NUL ends it.
            std::string tmp(s.as_string().c_str());
            out =
                regexec(
                    &m_p.m_regex[static_cast<std::size_t>(nd.i)]->re, tmp.c_str(), 0, nullptr, 0) ==
                0;
            return true;
        }
        case code::in_list: {
            value x;
            value l;
            if (!ev(i + 1, x))
                return false;
            if (!ev(next(i + 1), l) || !l.is_list())
                return false;
            out = false;
            for (const value& e : l.as_list())
                if (kvmodel::detail::cdt_compare(x, e, true) == 0) {
                    out = true;
                    break;
                }
            return true;
        }
        case code::not_: {
            if (!ev_bool(i + 1, out))
                return false;
            out = !out;
            return true;
        }
        case code::exclusive: {
            bool seen = false;
            std::uint32_t c = i + 1;
            for (std::uint32_t k = 0; k < nd.n; ++k, c = next(c)) {
                bool b = false;
                if (!ev_bool(c, b))
                    return false;
                if (b) {
                    if (seen) {
                        out = false;
                        return true;
                    }
                    seen = true;
                }
            }
            out = seen;
            return true;
        }
        case code::key_exists:
            if (!m_r.has_metadata)
                return false;
            out = m_r.user_key != nullptr;
            return true;
        case code::is_tombstone:
            if (!m_r.has_metadata)
                return false;
            out = false;
            return true;
        default:
            return shared(i, out);
        }
    }

    // An int argument: a bin read in place (the commonest leaf), else ev_int.
    KVMODEL_ALWAYS_INLINE bool int_of(std::uint32_t c, std::int64_t& x) {
        const detail::node& cn = m_nodes[c];
        if (cn.op != code::bin)
            return ev_int(c, x);
        const value* b = bin_of(cn);
        if (b == nullptr)
            return false;
        x = b->as_int();
        return true;
    }

    // and / or: false (true) as soon as an argument is, else unknown if one was.
    bool and_or(const detail::node& nd, std::uint32_t i, bool& out) {
        const bool stop_on = nd.op == code::or_;
        bool unknown = false;
        std::uint32_t c = i + 1;
        for (std::uint32_t k = 0; k < nd.n; ++k, c = next(c)) {
            // (A fused comparison runs here, without a call.)
            const detail::node& cn = m_nodes[c];
            int b = 2; // unknown
            if (cn.fused == detail::fused_cmp_int_bin) {
                if (const value* v = bin_of(m_nodes[c + 1]))
                    b = cmp_result(cn.op, v->as_int(), cn.i) ? 1 : 0;
            } else if (bool x = false; ev_bool(c, x)) {
                b = x ? 1 : 0;
            }
            if (b == 2)
                unknown = true;
            else if ((b == 1) == stop_on) {
                out = stop_on;
                return true;
            }
        }
        if (unknown)
            return false;
        out = !stop_on;
        return true;
    }

    // Comparisons, by the arguments' (equal) static type.
    bool compare(const detail::node& nd, std::uint32_t i, bool& out) {
        const std::uint32_t l = i + 1;
        const std::uint32_t r = next(l);
        int c = 0;
        switch (m_nodes[l].type) {
        case rtype::integer: {
            std::int64_t a = 0;
            std::int64_t b = 0;
            if (!int_of(l, a) || !int_of(r, b))
                return false;
            c = a < b ? -1 : (a > b ? 1 : 0);
            break;
        }
        case rtype::floating: {
            // IEEE comparisons: NaN is unordered, so every test but != is false.
            double a = 0;
            double b = 0;
            if (!ev_float(l, a) || !ev_float(r, b))
                return false;
            switch (nd.op) {
            case code::cmp_eq:
                out = a == b;
                break;
            case code::cmp_ne:
                out = a != b;
                break;
            case code::cmp_gt:
                out = a > b;
                break;
            case code::cmp_ge:
                out = a >= b;
                break;
            case code::cmp_lt:
                out = a < b;
                break;
            default:
                out = a <= b;
                break;
            }
            return true;
        }
        case rtype::trilean: {
            bool a = false;
            bool b = false;
            if (!ev_bool(l, a) || !ev_bool(r, b))
                return false;
            c = static_cast<int>(a) - static_cast<int>(b);
            break;
        }
        default: {
            value a;
            value b;
            if (!ev(l, a) || !ev(r, b))
                return false;
            if (a.is_nil())
                c = 0; // nil == nil (cmp_nil)
            else if (a.is_string() || a.is_bytes())
                c = bytes_of(a).compare(bytes_of(b));
            else {
                // Lists, maps and raw msgpack constants: Aerospike's CDT
                // order, refused (unknown) over maps the server cannot order.
                if (detail::cmp_reaches_unordered_map(a, b))
                    return false;
                c = kvmodel::detail::cdt_compare(a, b, true);
            }
            break;
        }
        }
        out = cmp_result(nd.op, c, 0);
        return true;
    }

    // A comparison op's answer on two ordered scalars.
    template <class T>
    static bool cmp_result(std::uint8_t op, T a, T b) noexcept {
        switch (op) {
        case code::cmp_eq:
            return a == b;
        case code::cmp_ne:
            return a != b;
        case code::cmp_gt:
            return a > b;
        case code::cmp_ge:
            return a >= b;
        case code::cmp_lt:
            return a < b;
        default:
            return a <= b;
        }
    }

    static std::string_view bytes_of(const value& v) {
        if (v.is_string())
            return v.as_string();
        const bytes& b = v.as_bytes();
        return {reinterpret_cast<const char*>(b.data()), b.size()};
    }

    // --- integers ------------------------------------------------------------------

    bool ev_int(std::uint32_t i, std::int64_t& out) {
        const detail::node& nd = m_nodes[i];
        if (nd.op == code::bin) { // (the commonest leaf: a direct branch)
            const value* b = bin_of(nd);
            if (b == nullptr)
                return false;
            out = b->as_int();
            return true;
        }
        switch (nd.op) {
        case code::add:
        case code::sub:
        case code::mul:
        case code::div:
        case code::min:
        case code::max:
        case code::int_and:
        case code::int_or:
        case code::int_xor:
            return arith(nd, i, out);
        case code::mod: {
            std::int64_t x = 0;
            std::int64_t y = 0;
            if (!ev_int(i + 1, x) || !ev_int(next(i + 1), y) || y == 0)
                return false;
            if (y == -1) { // INT64_MIN % -1 traps on the server's hardware
                if (x == std::numeric_limits<std::int64_t>::min())
                    return false;
                out = 0;
                return true;
            }
            out = x % y;
            return true;
        }
        case code::abs:
            if (!ev_int(i + 1, out))
                return false;
            if (out < 0)
                out = detail::wrap_sub(0, out); // labs wraps INT64_MIN
            return true;
        case code::to_int: {
            double d = 0;
            if (!ev_float(i + 1, d))
                return false;
            out = detail::double_to_int(d);
            return true;
        }
        case code::int_not:
            if (!ev_int(i + 1, out))
                return false;
            out = ~out;
            return true;
        case code::int_count:
            if (!ev_int(i + 1, out))
                return false;
            out = std::popcount(static_cast<std::uint64_t>(out));
            return true;
        case code::int_lshift:
        case code::int_rshift:
        case code::int_arshift: {
            std::int64_t a = 0;
            std::int64_t b = 0;
            if (!ev_int(i + 1, a) || !ev_int(next(i + 1), b))
                return false;
            const auto x = static_cast<std::uint64_t>(a);
            const auto s = static_cast<unsigned>(b & 63); // x86-64 masks the count
            if (nd.op == code::int_lshift)
                out = static_cast<std::int64_t>(x << s);
            else if (nd.op == code::int_rshift)
                out = static_cast<std::int64_t>(x >> s);
            else
                out = a >> s;
            return true;
        }
        case code::int_lscan:
        case code::int_rscan: {
            std::int64_t a = 0;
            bool search = false;
            if (!ev_int(i + 1, a) || !ev_bool(next(i + 1), search))
                return false;
            auto x = static_cast<std::uint64_t>(a);
            if (!search)
                x = ~x;
            if (nd.op == code::int_lscan)
                out = x == 0 ? -1 : std::countl_zero(x);
            else
                out = 63 - (x == 0 ? 64 : std::countr_zero(x));
            return true;
        }
        case code::digest_modulo: {
            if (!m_r.has_metadata)
                return false;
            std::uint32_t d = 0;
            for (std::size_t k = 4; k-- > 0;)
                d = (d << 8) | m_r.digest[16 + k];
            out = static_cast<std::int64_t>(d) % nd.i;
            return true;
        }
        case code::device_size:
        case code::record_size:
            if (!m_r.has_metadata)
                return false;
            out = m_r.record_size;
            return true;
        case code::memory_size:
            if (!m_r.has_metadata)
                return false;
            out = 0;
            return true;
        case code::last_update:
            if (!m_r.has_metadata)
                return false;
            out = detail::wrap_mul(m_r.last_update_ms, 1000000);
            return true;
        case code::since_update:
            if (!m_r.has_metadata)
                return false;
            out = m_r.now_ms > m_r.last_update_ms ? m_r.now_ms - m_r.last_update_ms : 0;
            return true;
        case code::void_time:
            if (!m_r.has_metadata)
                return false;
            out = m_r.void_time == 0 ? -1 : detail::wrap_mul(m_r.void_time, 1000000000);
            return true;
        case code::ttl: {
            if (!m_r.has_metadata)
                return false;
            // cf_server_void_time_to_ttl: never = -1, floored at 1 once due.
            const std::int64_t now_s = m_r.now_ms / 1000;
            out = m_r.void_time == 0 ? -1 : (m_r.void_time > now_s ? m_r.void_time - now_s : 1);
            return true;
        }
        case code::bin_type: {
            if (!m_r.has_bins || m_r.find_bin == nullptr)
                return false;
            const value* b = lookup(nd);
            out = b == nullptr ? particle_type::null : detail::particle_of(*b);
            return true;
        }
        default:
            return shared(i, out);
        }
    }

    // add sub mul div min max (and int_and int_or int_xor over ints): the
    // first argument, then each other in turn; div divides by the product
    // of the others (one argument: 1 / a).
    template <class T>
    bool arith(const detail::node& nd, std::uint32_t i, T& out) {
        constexpr bool is_int = std::is_same_v<T, std::int64_t>;
        const auto eval = [this](std::uint32_t c, T& x) {
            if constexpr (is_int)
                return int_of(c, x);
            else
                return ev_float(c, x);
        };
        std::uint32_t c = i + 1;
        T acc{};
        if (!eval(c, acc))
            return false;
        T prod{1};
        c = next(c);
        for (std::uint32_t k = 1; k < nd.n; ++k, c = next(c)) {
            T x{};
            if (!eval(c, x))
                return false;
            switch (nd.op) {
            case code::add:
                acc = detail::wrap_add(acc, x);
                break;
            case code::sub:
                acc = detail::wrap_sub(acc, x);
                break;
            case code::mul:
                acc = detail::wrap_mul(acc, x);
                break;
            case code::div:
                prod = detail::wrap_mul(prod, x);
                break;
            case code::min:
                acc = acc > x ? x : acc;
                break;
            case code::max:
                acc = acc < x ? x : acc;
                break;
            default:
                if constexpr (is_int) {
                    if (nd.op == code::int_and)
                        acc &= x;
                    else if (nd.op == code::int_or)
                        acc |= x;
                    else
                        acc ^= x;
                }
                break;
            }
        }
        if (nd.op == code::sub && nd.n == 1)
            acc = detail::wrap_sub(T{0}, acc);
        if (nd.op == code::div) {
            if (nd.n == 1) {
                prod = acc;
                acc = T{1};
            }
            if constexpr (is_int) {
                if (prod == 0)
                    return false;
                // INT64_MIN / -1 traps on the server's hardware.
                if (prod == -1 && acc == std::numeric_limits<std::int64_t>::min())
                    return false;
            }
            acc /= prod;
        }
        out = acc;
        return true;
    }

    // --- floats --------------------------------------------------------------------

    bool ev_float(std::uint32_t i, double& out) {
        const detail::node& nd = m_nodes[i];
        switch (nd.op) {
        case code::add:
        case code::sub:
        case code::mul:
        case code::div:
        case code::min:
        case code::max:
            return arith(nd, i, out);
        case code::pow:
        case code::log: {
            double y = 0;
            if (!ev_float(i + 1, out) || !ev_float(next(i + 1), y))
                return false;
            out = nd.op == code::pow ? std::pow(out, y) : std::log(out) / std::log(y);
            return true;
        }
        case code::abs:
            if (!ev_float(i + 1, out))
                return false;
            out = std::fabs(out);
            return true;
        case code::floor:
        case code::ceil:
            if (!ev_float(i + 1, out))
                return false;
            out = nd.op == code::floor ? std::floor(out) : std::ceil(out);
            return true;
        case code::to_float: {
            std::int64_t x = 0;
            if (!ev_int(i + 1, x))
                return false;
            out = static_cast<double>(x);
            return true;
        }
        default:
            return shared(i, out);
        }
    }

    // --- everything else -----------------------------------------------------------

    bool ev_any(std::uint32_t i, value& out) {
        const detail::node& nd = m_nodes[i];
        switch (nd.op) {
        case detail::vop_value:
            out = nd.v;
            return true;
        case code::bin: {
            const value* b = bin_of(nd);
            if (b == nullptr)
                return false;
            out = *b;
            return true;
        }
        case code::key: {
            if (!m_r.has_bins || m_r.user_key == nullptr ||
                !detail::is_type(*m_r.user_key, nd.type))
                return false;
            out = *m_r.user_key;
            return true;
        }
        case code::set_name:
            if (!m_r.has_metadata)
                return false;
            out = value(std::string(m_r.set_name));
            return true;
        case code::map_keys:
        case code::map_values: {
            value m;
            if (!ev(i + 1, m) || !m.is_map())
                return false;
            list l;
            for (const map_entry& e : m.as_map())
                l.push_back(nd.op == code::map_keys ? e.key : e.val);
            out = value(std::move(l));
            return true;
        }
        case code::cond: {
            std::uint32_t chosen = 0;
            return pick(nd, i, chosen) && ev(chosen, out);
        }
        case code::let:
            return ev(bind(nd, i), out);
        case code::var: {
            const std::optional<value>& s = slot(nd.i);
            if (!s)
                return false;
            out = *s;
            return true;
        }
        case code::call:
            return call(nd, i, out);
        case code::var_builtin: {
            // Unset outside a path expression's element, or of another type: unknown.
            const value* v =
                m_loop == nullptr ? nullptr : m_loop->var[static_cast<std::size_t>(nd.i)];
            if (v == nullptr || !detail::is_type(*v, nd.type))
                return false;
            out = *v;
            return true;
        }
        case code::result_remove: // (a modify by path reads it from the program's type)
            out = value();
            return true;
        // unknown
        default:
            return false;
        }
    }

    // --- path expressions (cdt.c's cdt_select_*) --------------------------------------
    //
    // A select walks the bin level by level along the context: at each level
    // the step picks children (by index, rank, key, value, key list, or all
    // of them through a filter on the loop variables, then the and-filter);
    // a picked child that is a container goes on to the next level, and at
    // the last level the picked children are collected (their values, keys,
    // or both), or kept with the path to them (MATCHING_TREE), or replaced /
    // removed by the modify expression (apply). The recursion is as deep as
    // the context (at most 64 levels), whatever the data's depth.

    enum class tri : std::uint8_t { no, yes, unknown };

    // A filter on one element (exp.c's match_internal without a record):
    // unknown stays unknown, a value that is not a boolean is false.
    static tri filter_on(const program& f, const value* key, const value* val, const value* index) {
        value out;
        switch (element_eval(f, key, val, index, out)) {
        case outcome::unknown:
            return tri::unknown;
        case outcome::remove:
            return tri::no;
        default:
            return out.is_bool() && out.as_bool() ? tri::yes : tri::no;
        }
    }
    enum class outcome : std::uint8_t { unknown, remove, value };
    static outcome element_eval(
        const program& f, const value* key, const value* val, const value* index, value& out) {
        detail::loop_vars lv;
        lv.var = {key, val, index};
        record_view none;
        none.has_bins = false;
        none.has_metadata = false;
        evaluator e(f, none, &lv);
        if (f.m_type == rtype::result_remove)
            return e.ev_any(0, out) ? outcome::remove : outcome::unknown;
        std::optional<value> v = e.run();
        if (!v)
            return outcome::unknown;
        out = std::move(*v);
        return outcome::value;
    }

    // The picked children of container c at `level` (list positions or map
    // indexes, in order); false when the step fails the call.
    static bool pick_children(const detail::path_info& pi,
                              std::size_t level,
                              const value& c,
                              std::vector<std::size_t>& picked,
                              bool& jumped) {
        const detail::path_step& st = pi.steps[level];
        const bool leaf = level + 1 == pi.steps.size();
        const std::uint32_t by = st.type & 0x0f;
        // A looping step's verdict on child i, then its and-filter; unknown
        // fails the call unless NO_FAIL (then no).
        auto settle =
            [&](tri t, const value* key, const value* val, const value* index, std::size_t i) {
                if (t == tri::yes && st.and_filter != nullptr)
                    t = filter_on(*st.and_filter, key, val, index);
                if (t == tri::unknown && !pi.no_fail)
                    return false;
                if (t == tri::yes)
                    picked.push_back(i);
                return true;
            };
        if (c.is_list()) {
            const list& l = c.as_list();
            const bool has_ext = l.is_ordered() || l.persist_index();
            if (l.empty() && !has_ext)
                return true;
            if (leaf && (pi.mode & path_flags::map_key) != 0)
                return pi.no_fail; // map keys asked of a list
            if (l.empty())
                return true;
            if ((st.type & 0x30) != 0 && (st.type & 0x30) != 0x10)
                return false;
            const std::size_t n = l.size();
            if (by == 0 || by == 1) {
                std::optional<std::size_t> at = pick_index(st.index, n);
                if (!at)
                    return true;
                std::size_t idx = *at;
                if (by == 1 && !l.is_ordered())
                    idx = rank_select(n, idx, [&](std::size_t x) -> const value& { return l[x]; });
                jumped = by == 1;
                const value index_v(static_cast<std::int64_t>(idx));
                if (st.and_filter == nullptr ||
                    filter_on(*st.and_filter, nullptr, &l[idx], &index_v) == tri::yes)
                    picked.push_back(idx);
                return true;
            }
            for (std::size_t i = 0; i < n; ++i) {
                const value index_v(static_cast<std::int64_t>(i));
                tri t = tri::unknown;
                if (by == 4)
                    t = st.filter == nullptr ? tri::yes
                                             : filter_on(*st.filter, nullptr, &l[i], &index_v);
                else if (by == 3)
                    t = kvmodel::compare(l[i], st.v) == 0 ? tri::yes : tri::no;
                if (!settle(t, nullptr, &l[i], &index_v, i))
                    return false;
            }
            return true;
        }
        const map& m = c.as_map();
        if (m.empty())
            return true;
        if ((st.type & 0xf0) != 0 && (st.type & 0xf0) != 0x20)
            return false;
        const std::size_t n = m.size();
        if (by == 0 || by == 1) {
            std::optional<std::size_t> at = pick_index(st.index, n);
            if (!at)
                return true;
            std::size_t idx =
                by == 0 ? *at : rank_select(n, *at, [&](std::size_t x) -> const value& {
                    return m.value_at(x);
                });
            jumped = true;
            const map_entry& e = m.entry_at(idx);
            if (st.and_filter == nullptr ||
                filter_on(*st.and_filter, &e.key, &e.val, nullptr) == tri::yes)
                picked.push_back(idx);
            return true;
        }
        std::vector<value> keys; // a key list's keys, sorted
        if (by == 10) {
            if (!st.v.is_list())
                return false;
            keys = st.v.as_list().to_vector();
            std::stable_sort(keys.begin(), keys.end(), [](const value& a, const value& b) {
                return kvmodel::compare(a, b) < 0;
            });
        }
        bool found = false; // a key step matches once
        for (std::size_t i = 0; i < n; ++i) {
            const map_entry& e = m.entry_at(i);
            tri t = tri::unknown;
            if (found)
                t = tri::no;
            else if (by == 4)
                t = st.filter == nullptr ? tri::yes
                                         : filter_on(*st.filter, &e.key, &e.val, nullptr);
            else if (by == 2)
                t = (found = kvmodel::compare(e.key, st.v) == 0) ? tri::yes : tri::no;
            else if (by == 3)
                t = kvmodel::compare(e.val, st.v) == 0 ? tri::yes : tri::no;
            else if (by == 10)
                t = std::binary_search(
                        keys.begin(),
                        keys.end(),
                        e.key,
                        [](const value& a, const value& b) { return kvmodel::compare(a, b) < 0; })
                        ? tri::yes
                        : tri::no;
            if (!settle(t, &e.key, &e.val, nullptr, i))
                return false;
        }
        return true;
    }

    // The position of the element of rank `rank` among n (at(i): element
    // i), found as cdt.c's order_index_qselect finds it: a quickselect with
    // the middle element as pivot, so among equal elements the one it
    // returns is where its partitioning leaves them, not the first.
    template <class At>
    static std::size_t rank_select(std::size_t n, std::size_t rank, At at) {
        if (n < 2)
            return 0;
        std::vector<std::size_t> ord(n);
        for (std::size_t k = 0; k < n; ++k)
            ord[k] = k;
        auto cmp = [&](std::size_t x, std::size_t y) {
            return kvmodel::compare(at(x), at(y));
        };
        std::size_t lb = 0;
        std::size_t ub = n - 1;
        while (true) {
            const std::size_t mid = lb + (ub - lb) / 2;
            const std::size_t pidx = ord[mid];
            std::size_t lo = lb + 1;
            std::size_t hi = ub;
            std::swap(ord[lb], ord[mid]);
            while (true) {
                while (lo < hi && cmp(ord[lo], pidx) < 0)
                    ++lo;
                while (lo <= hi && hi != lb && cmp(pidx, ord[hi]) < 0)
                    --hi;
                if (lo >= hi)
                    break;
                std::swap(ord[lo], ord[hi]);
                ++lo;
                --hi;
            }
            std::swap(ord[lb], ord[hi]);
            if (hi == rank)
                return pidx;
            if (hi < rank)
                lb = hi + 1;
            else
                ub = hi - 1;
            if (lb >= ub)
                return ord[lb];
        }
    }

    // calc_index_count for one element: a position from the front (or from
    // the back when negative), nullopt when outside.
    static std::optional<std::size_t> pick_index(std::int64_t i, std::size_t n) {
        if (i >= 0)
            return static_cast<std::uint64_t>(i) < n
                       ? std::optional<std::size_t>(static_cast<std::size_t>(i))
                       : std::nullopt;
        const std::uint64_t back = 0 - static_cast<std::uint64_t>(i);
        return back <= n ? std::optional<std::size_t>(n - static_cast<std::size_t>(back))
                         : std::nullopt;
    }

    // cdt.c reads a container's elements in order; after a map index or
    // rank step, or a list rank step, that found its element, it sets its
    // reader to the end of the whole bin (not of that container). Reading on
    // then fails the call: any sibling after the picked child, at any level
    // above, that the walk would still read (every level but those same
    // jumping steps, which skip their rest). `at_end` carries that state.
    static bool read_on(const detail::path_info& pi,
                        std::size_t level,
                        const value& c,
                        std::size_t i,
                        bool at_end) {
        const std::uint32_t by = pi.steps[level].type & 0x0f;
        const bool jumps = by == 1 || (by == 0 && c.is_map());
        const std::size_t n = c.is_list() ? c.as_list().size() : c.as_map().size();
        return !at_end || jumps || i + 1 >= n;
    }

    // select: c (a list or map) at `level`; MATCHING_TREE fills `tree` with c
    // pruned to the picked paths, the other modes append to `leaf`.
    static bool select_level(const detail::path_info& pi,
                             std::size_t level,
                             const value& c,
                             value& tree,
                             list& leaf,
                             bool& at_end) {
        const bool is_tree = pi.mode == path_flags::matching_tree;
        const bool is_leaf = level + 1 == pi.steps.size();
        std::vector<std::size_t> picked;
        bool jumped = false;
        if (!pick_children(pi, level, c, picked, jumped))
            return false;
        if (c.is_list()) {
            const list& l = c.as_list();
            list out(l.empty() ? l.order() : list_order::unordered);
            for (std::size_t i : picked) {
                const value& e = l[i];
                if (!is_leaf && (e.is_list() || e.is_map())) {
                    value sub;
                    if (!select_level(pi, level + 1, e, sub, leaf, at_end) ||
                        !read_on(pi, level, c, i, at_end))
                        return false;
                    if (is_tree)
                        out.push_back(std::move(sub));
                } else if (is_tree) {
                    out.push_back(e);
                } else if (is_leaf) {
                    leaf.push_back(e);
                }
            }
            if (is_tree)
                tree = value(std::move(out));
            at_end = at_end || jumped;
            return true;
        }
        const map& m = c.as_map();
        map out(m.empty() ? m.order() : map_order::unordered);
        for (std::size_t i : picked) {
            const map_entry& e = m.entry_at(i);
            if (!is_leaf && (e.val.is_list() || e.val.is_map())) {
                value sub;
                if (!select_level(pi, level + 1, e.val, sub, leaf, at_end) ||
                    !read_on(pi, level, c, i, at_end))
                    return false;
                if (is_tree)
                    out.put(e.key, std::move(sub));
            } else if (is_tree) {
                out.put(e.key, e.val);
            } else if (is_leaf) {
                if ((pi.mode & path_flags::map_key) != 0)
                    leaf.push_back(e.key);
                if ((pi.mode & path_flags::value) != 0)
                    leaf.push_back(e.val);
            }
        }
        if (is_tree)
            tree = value(std::move(out));
        at_end = at_end || jumped;
        return true;
    }

    // modify: c (a list or map) at `level`, in place; each picked child at
    // the last level becomes the modify expression's value (removed for
    // remove_result); an ORDERED list is sorted again.
    static bool
    apply_level(const detail::path_info& pi, std::size_t level, value& c, bool& at_end) {
        const bool is_leaf = level + 1 == pi.steps.size();
        std::vector<std::size_t> picked;
        bool jumped = false;
        if (!pick_children(pi, level, c, picked, jumped))
            return false;
        std::vector<std::size_t> removed;
        // The new value of child `e` (key k, position pos); false fails the call.
        auto modify = [&](const value* k, value& e, std::size_t pos, bool& remove) {
            const value index_v(static_cast<std::int64_t>(pos));
            value out;
            switch (element_eval(*pi.mod, k, &e, k == nullptr ? &index_v : nullptr, out)) {
            case outcome::unknown:
                return pi.no_fail;
            case outcome::remove:
                remove = true;
                return true;
            default:
                if (detail::has_nonstorage(out))
                    return false;
                e = std::move(out);
                return true;
            }
        };
        // Child i's new value e (or its removal); false fails the call.
        auto visit = [&](const value* k, value& e, std::size_t i, bool& remove) {
            if (is_leaf)
                return modify(k, e, i, remove);
            if (!(e.is_list() || e.is_map()))
                return true;
            return apply_level(pi, level + 1, e, at_end) && read_on(pi, level, c, i, at_end);
        };
        if (c.is_list()) {
            for (std::size_t i : picked) {
                value e = c.as_list()[i];
                bool remove = false;
                if (!visit(nullptr, e, i, remove))
                    return false;
                if (remove)
                    removed.push_back(i);
                else
                    c.as_list().set(i, std::move(e));
            }
            list& l = c.as_list();
            if (!removed.empty())
                l.erase_positions(removed);
            if (l.is_ordered())
                l.sort();
        } else {
            for (std::size_t i : picked) {
                const value k = c.as_map().key_at(i);
                value e = c.as_map().value_at(i);
                bool remove = false;
                if (!visit(&k, e, i, remove))
                    return false;
                if (remove)
                    removed.push_back(i);
                else
                    c.as_map().set_value_at(i, std::move(e));
            }
            for (auto it = removed.rbegin(); it != removed.rend(); ++it)
                c.as_map().erase_at(*it);
        }
        at_end = at_end || jumped;
        return true;
    }

    // A select / modify by path call on operand b.
    static bool path_call(const detail::call_info& ci, value b, value& out) {
        const detail::path_info& pi = *ci.path;
        if (!pi.valid || !(b.is_list() || b.is_map()))
            return false;
        if (pi.mode == path_flags::apply) {
            // (apply needs a modify call: a read call's CDT op has nowhere to write.)
            bool at_end = false;
            if (!ci.modify || !apply_level(pi, 0, b, at_end) || !detail::is_type(b, ci.declared))
                return false;
            out = std::move(b);
            return true;
        }
        value tree;
        list leaf;
        bool at_end = false;
        if (!select_level(pi, 0, b, tree, leaf, at_end))
            return false;
        // A modify call of a select returns its operand as it was.
        value res = ci.modify                              ? std::move(b)
                    : pi.mode == path_flags::matching_tree ? std::move(tree)
                                                           : value(std::move(leaf));
        if (!detail::is_type(res, ci.declared))
            return false;
        out = std::move(res);
        return true;
    }

    bool call(const detail::node& nd, std::uint32_t i, value& out) {
        const detail::call_info& ci = m_p.m_calls[static_cast<std::size_t>(nd.i)];
        std::vector<value> args;
        args.reserve(ci.args.size());
        std::uint32_t c = i + 1;
        for (const detail::call_arg& a : ci.args) {
            if (!a.is_exp) {
                args.push_back(a.constant);
                continue;
            }
            value v;
            if (!ev(c, v))
                return false;
            args.push_back(std::move(v));
            c = m_nodes[c].end;
        }
        value b;
        if (!ev(c, b))
            return false;
        if (ci.path != nullptr)
            return path_call(ci, std::move(b), out);
        if (ci.bits) {
            std::optional<value> blob;
            if (b.is_bytes())
                blob = std::move(b);
            else if (!b.is_nil())
                return false;
            value res;
            if (!detail::eval_bit_call(ci.op, ci.modify, args, std::move(blob), res) ||
                !detail::is_type(res, ci.declared))
                return false;
            out = std::move(res);
            return true;
        }
        if (ci.system == call_system::hll) {
            std::optional<value> h = ci.ctx.empty()
                                         ? detail::hll_call(ci.op, ci.modify, args, std::move(b))
                                         : std::nullopt;
            if (!h || !detail::is_type(*h, ci.declared))
                return false;
            out = std::move(*h);
            return true;
        }
        std::optional<value> bin;
        if (b.is_list() || b.is_map())
            bin = std::move(b);
        else if (!b.is_nil())
            return false;
        std::optional<cdt::op> o = detail::make_cdt_op(ci, args);
        if (!o)
            return false;
        cdt::op_class cls = cdt::classify(o->code);
        if (ci.modify == (cls == cdt::op_class::read))
            return false;
        result<value> r = cdt::apply(bin, *o);
        if (!r)
            return false;
        if (ci.modify) {
            if (!bin || !detail::is_type(*bin, ci.declared))
                return false;
            out = std::move(*bin);
            return true;
        }
        value res = std::move(r).value();
        // A KEY_VALUE selection is a map inside expressions.
        if (cdt::is_map_op(o->code) &&
            ((o->return_type & 0xffff) == static_cast<std::int32_t>(cdt::return_type::key_value)) &&
            res.is_list()) {
            map m;
            for (const value& p : res.as_list())
                if (p.is_list() && p.as_list().size() == 2)
                    m.put(p.as_list()[0], p.as_list()[1]);
            res = value(std::move(m));
        }
        if (!detail::is_type(res, ci.declared))
            return false;
        out = std::move(res);
        return true;
    }

    const program& m_p;
    const record_view& m_r;
    const detail::node* m_nodes;
    std::unique_ptr<std::optional<value>[]> m_vars;
    const detail::loop_vars* m_loop = nullptr; // a path expression's element, if any
    std::uint32_t m_known = 0; // which m_bin slots are looked up
    std::array<const value*, detail::cached_bins> m_bin;
};

inline std::optional<value> evaluate(const program& p, const record_view& r) {
    return evaluator(p, r).run();
}

inline verdict matches(const program& p, const record_view& r) {
    std::optional<value> v = evaluate(p, r);
    if (!v || !v->is_bool())
        return verdict::unknown;
    return v->as_bool() ? verdict::yes : verdict::no;
}

namespace detail {

/// The program of the last packed expression this thread compiled: a filter
/// or an expression op is usually the same bytes command after command.
struct compile_cache {
    std::vector<std::uint8_t> bytes;
    std::optional<program> prog;
};

inline result<const program*> cached_compile(std::span<const std::uint8_t> packed) {
    thread_local compile_cache c;
    if (c.prog && c.bytes.size() == packed.size() &&
        std::equal(packed.begin(), packed.end(), c.bytes.begin()))
        return &*c.prog;
    result<program> p = compile(packed);
    if (!p)
        return p.error();
    c.prog.reset();
    c.bytes.assign(packed.begin(), packed.end());
    c.prog.emplace(std::move(p).value());
    return &*c.prog;
}

inline result<std::uint8_t> hook_filter(std::span<const std::uint8_t> packed,
                                        const record_view& r) {
    result<const program*> p = cached_compile(packed);
    if (!p)
        return p.error();
    if (!(*p)->is_boolean())
        return fail(status::parameter_error,
                    std::string("filter expression: must return a boolean, found ") +
                        rtype_name(static_cast<rtype>((*p)->result_type())));
    return static_cast<std::uint8_t>(matches(**p, r));
}

inline result<std::optional<value>> hook_eval(std::span<const std::uint8_t> packed,
                                              const record_view& r) {
    result<const program*> p = cached_compile(packed);
    if (!p)
        return p.error();
    return evaluate(**p, r);
}

inline result<std::uint8_t> hook_type(std::span<const std::uint8_t> packed) {
    result<const program*> p = cached_compile(packed);
    if (!p)
        return p.error();
    return static_cast<std::uint8_t>((*p)->result_type());
}

inline constexpr engine_hooks hooks_impl{&hook_filter, &hook_eval, &hook_type};
inline const bool hooks_registered = [] {
    engine().set(&hooks_impl);
    return true;
}();

} // namespace detail

} // namespace kvmodel::exp
