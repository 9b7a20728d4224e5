// kvmodel/cdt/detail/bit_op.hpp
//
// The bit operation vocabulary without its engine: what kv::operation holds
// (cdt::bit_op, its codes, flags and names) and the hook through which a
// store reaches the engine. cdt/bit_ops.hpp (the builders and
// cdt::apply_bit_op) includes this; kv/operation.hpp includes only this, so
// a file that never builds a bit op never compiles the bit engine.
//
// The engine registers itself in bit_op's constructor, which is defined with
// it: every bit op a program makes was made where the engine is compiled, so
// a store that finds a bit op finds the engine (else it answers
// PARAMETER_ERROR, never a crash). The hook is read with one atomic load.
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/detail/engine_hook.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/core/value.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kvmodel::cdt {

/// Bit write flags (as_bit_write_flags), OR-able.
namespace bit_write_flags {
/// Default: create the bin or update it.
inline constexpr std::uint32_t none = 0;
/// Fail BIN_EXISTS_ERROR if the bin exists.
inline constexpr std::uint32_t create_only = 1;
/// Fail BIN_NOT_FOUND if the bin does not exist.
inline constexpr std::uint32_t update_only = 2;
/// Do nothing instead of failing on a flag's condition.
inline constexpr std::uint32_t no_fail = 4;
/// With no_fail: apply what can be applied (resize, insert, ...).
inline constexpr std::uint32_t partial = 8;
} // namespace bit_write_flags

/// Resize flags (as_bit_resize_flags), OR-able.
namespace bit_resize_flags {
/// Resize at the end, growing or shrinking.
inline constexpr std::uint32_t none = 0;
/// Resize at the front instead.
inline constexpr std::uint32_t from_front = 1;
/// Only grow (a smaller size is not an error, nothing changes).
inline constexpr std::uint32_t grow_only = 2;
/// Only shrink.
inline constexpr std::uint32_t shrink_only = 4;
} // namespace bit_resize_flags

/// What add/subtract do on overflow or underflow (as_bit_overflow_action),
/// with the wire values.
enum class bit_overflow_action : std::uint8_t { fail = 0, saturate = 2, wrap = 4 };

/// Bit operation policy (as_bit_policy): the write flags.
struct bit_policy {
    /// OR of bit_write_flags.
    std::uint32_t flags = bit_write_flags::none;

    /// Flags equal.
    friend bool operator==(const bit_policy&, const bit_policy&) = default;
};

/// Every bit operation, numbered as on the wire (as_bit_op). The names are
/// the cdt-json op names (shared/spec/cdt-json.md).
enum class bit_op_code : std::uint8_t {
    bit_resize = 0,
    bit_insert = 1,
    bit_remove = 2,
    bit_set = 3,
    bit_or = 4,
    bit_xor = 5,
    bit_and = 6,
    bit_not = 7,
    bit_lshift = 8,
    bit_rshift = 9,
    bit_add = 10,
    bit_subtract = 11,
    bit_set_int = 12,
    bit_get = 50,
    bit_count = 51,
    bit_lscan = 52,
    bit_rscan = 53,
    bit_get_int = 54,
};

/// Whether an op only reads (reads take no flags and never create the bin).
constexpr bool is_bit_read(bit_op_code c) noexcept {
    return static_cast<std::uint8_t>(c) >= 50;
}

/// The op's name as in shared/spec/cdt-json.md ("bit_resize", ...).
constexpr std::string_view bit_op_name(bit_op_code c) noexcept {
    switch (c) {
    case bit_op_code::bit_resize: return "bit_resize";
    case bit_op_code::bit_insert: return "bit_insert";
    case bit_op_code::bit_remove: return "bit_remove";
    case bit_op_code::bit_set: return "bit_set";
    case bit_op_code::bit_or: return "bit_or";
    case bit_op_code::bit_xor: return "bit_xor";
    case bit_op_code::bit_and: return "bit_and";
    case bit_op_code::bit_not: return "bit_not";
    case bit_op_code::bit_lshift: return "bit_lshift";
    case bit_op_code::bit_rshift: return "bit_rshift";
    case bit_op_code::bit_add: return "bit_add";
    case bit_op_code::bit_subtract: return "bit_subtract";
    case bit_op_code::bit_set_int: return "bit_set_int";
    case bit_op_code::bit_get: return "bit_get";
    case bit_op_code::bit_count: return "bit_count";
    case bit_op_code::bit_lscan: return "bit_lscan";
    case bit_op_code::bit_rscan: return "bit_rscan";
    case bit_op_code::bit_get_int: return "bit_get_int";
    }
    return "?";
}

/// Every bit op code, in wire order.
inline constexpr std::array<bit_op_code, 18> all_bit_op_codes = {
    bit_op_code::bit_resize, bit_op_code::bit_insert,   bit_op_code::bit_remove,
    bit_op_code::bit_set,    bit_op_code::bit_or,       bit_op_code::bit_xor,
    bit_op_code::bit_and,    bit_op_code::bit_not,      bit_op_code::bit_lshift,
    bit_op_code::bit_rshift, bit_op_code::bit_add,      bit_op_code::bit_subtract,
    bit_op_code::bit_set_int, bit_op_code::bit_get,     bit_op_code::bit_count,
    bit_op_code::bit_lscan,  bit_op_code::bit_rscan,    bit_op_code::bit_get_int,
};

/// The bit_op_code for a cdt-json name, if it is one.
constexpr std::optional<bit_op_code> bit_op_from_name(std::string_view name) noexcept {
    for (bit_op_code c : all_bit_op_codes)
        if (bit_op_name(c) == name) return c;
    return std::nullopt;
}

/// One bit operation. Which fields an op reads is fixed by its code (see the
/// builders, whose parameter names are the C client's); the rest stay default.
struct bit_op {
    /// A bit_get of no bits, every field default. Defined with the engine
    /// (cdt/bit_ops.hpp) and registers it (detail::bit_engine), so a program
    /// that holds a bit op can have a store apply it.
    KVMODEL_DECL bit_op() noexcept;

    /// Which operation.
    bit_op_code code = bit_op_code::bit_get;
    /// Bit ops: first bit of the range (negative = from the end).
    std::int64_t bit_offset = 0;
    /// Bit ops: number of bits in the range.
    std::int64_t bit_size = 0;
    /// insert / remove: first byte (negative = from the end).
    std::int64_t byte_offset = 0;
    /// resize: the new size; remove: the number of bytes removed.
    std::int64_t byte_size = 0;
    /// lshift / rshift: bits to shift by.
    std::int64_t shift = 0;
    /// insert / set / or / xor / and: the operand bytes (left-aligned).
    kvmodel::bytes value;
    /// add / subtract (as uint64 two's complement) / set_int.
    std::int64_t int_value = 0;
    /// lscan / rscan: the bit value searched for.
    bool scan_value = false;
    /// add / subtract / get_int: treat the bits as a signed number.
    bool sign = false;
    /// add / subtract.
    bit_overflow_action action = bit_overflow_action::fail;
    /// resize: bit_resize_flags.
    std::uint32_t resize_flags = bit_resize_flags::none;
    /// Modify ops: the write flags.
    bit_policy policy;

    /// Every field equal.
    friend bool operator==(const bit_op&, const bit_op&) = default;
};

/// The default cap on a blob a bit op may produce: 8 MiB, the largest
/// max-record-size Aerospike accepts, so no record could hold more.
inline constexpr std::size_t default_max_blob_bytes = std::size_t{8} * 1024 * 1024;

namespace detail {

/// cdt::apply_bit_op, as a store calls it.
using bit_engine_fn = result<value> (*)(std::optional<value>& bin,
                                        const bit_op& o,
                                        std::size_t max_blob_bytes);

/// The bit engine, set by the first bit_op constructed (null before).
inline kvmodel::detail::engine_hook<bit_engine_fn>& bit_engine() noexcept {
    static kvmodel::detail::engine_hook<bit_engine_fn> h;
    return h;
}

/// The bit engine, or PARAMETER_ERROR naming the op and what to include.
inline result<bit_engine_fn> need_bit_engine(const bit_op& o) {
    return bit_engine().need(bit_op_name(o.code), "bit operations need the bit engine",
                             "<kvmodel/cdt/bit_ops.hpp>");
}

} // namespace detail
} // namespace kvmodel::cdt
