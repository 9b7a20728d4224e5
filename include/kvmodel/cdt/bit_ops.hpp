// kvmodel/cdt/bit_ops.hpp
//
// Bit operations on BYTES bins: one `cdt::bit_op` per Aerospike bit operation
// (as_operations_bit_*), builders named after them in `cdt::bit_ops`, and
// `cdt::apply_bit_op`, which applies one op to one bin exactly as the 8.1.2
// server does (AEROSPIKE-CDT.md §14).
//
// Conventions: bit 0 is the most significant bit of byte 0; a negative offset
// counts from the end (-1 is the last bit, or byte for insert/remove); a bit
// range is [bit_offset, bit_offset + bit_size). Offsets, sizes and shifts are
// capped at 2^30 bits (2^27 bytes for resize/insert/remove sizes). Modify ops
// return nil; get returns ceil(bit_size/8) bytes, left-aligned; count, scans
// and get_int return integers.
//
// Costs: a modify op is O(n) in the blob's bytes at worst (it may rewrite the
// blob, as a record write does anyway); reads are O(bit_size / 8). Nothing
// allocates more than the resulting blob, and a huge size or offset in bad
// input fails before any allocation. On error the bin is unchanged.
//
// Departures from Aerospike: none intended; where the 8.1.2 server's code
// misbehaves, the intended rule is applied and pinned by a test
// (tests/cdt/bit_ops_test.cpp):
//  - PARTIAL shifts and logic ops whose range starts at byte >= 1 and crosses
//    the end overrun the server's heap (§14); here the range is clipped to the
//    bits that exist.
//  - Signed add/subtract detect overflow on the exact result. The server's
//    sign test (read in its source, not probed) misses MIN + MIN and
//    subtracting MIN; both are overflows here.
//  - rscan answers -1 when no bit of the range matches. The server's loop
//    (source, not probed) can answer a negative position other than -1 when
//    the only match lies before bit_offset in the range's first byte.
// Bit ops take no nested context (the server does not support one on
// bitmaps), and the 8.1.3 b64_encode read is not modelled. Offsets are int64
// and sizes int64 (unsigned on the wire, so a negative size is a huge one):
// exactly what the wire carries, so out-of-range input gets the server's
// PARAMETER_ERROR; the C client's int / uint32_t parameters are narrower and
// the Aerospike adapter rejects what does not fit them.
//
// A blob result larger than max_blob_bytes (default 8 MiB, the largest
// max-record-size Aerospike accepts) fails RECORD_TOO_BIG before anything is
// allocated; one of 2^27 bytes or more fails PARAMETER_ERROR, as on the server.
#pragma once

#include <kvmodel/cdt/detail/bit_op.hpp> // IWYU pragma: export
#include <kvmodel/config.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace kvmodel::cdt {

/// Builders, one per as_operations_bit_* call, with its argument names. The
/// policy comes last and defaults to no flags.
namespace bit_ops {

/// Resizes the blob to byte_size bytes (zero-filled when growing), at the end
/// or, with bit_resize_flags::from_front, at the front. Creates a missing bin.
inline bit_op bit_resize(std::int64_t byte_size, std::uint32_t resize_flags = bit_resize_flags::none,
                         bit_policy policy = {}) {
    bit_op o;
    o.code = bit_op_code::bit_resize;
    o.byte_size = byte_size;
    o.resize_flags = resize_flags;
    o.policy = policy;
    return o;
}

/// Inserts value before byte byte_offset (past the end pads with zero bytes).
/// Creates a missing bin.
inline bit_op bit_insert(std::int64_t byte_offset, kvmodel::bytes value, bit_policy policy = {}) {
    bit_op o;
    o.code = bit_op_code::bit_insert;
    o.byte_offset = byte_offset;
    o.value = std::move(value);
    o.policy = policy;
    return o;
}

/// Removes bytes [byte_offset, byte_offset + byte_size).
inline bit_op bit_remove(std::int64_t byte_offset, std::int64_t byte_size, bit_policy policy = {}) {
    bit_op o;
    o.code = bit_op_code::bit_remove;
    o.byte_offset = byte_offset;
    o.byte_size = byte_size;
    o.policy = policy;
    return o;
}

namespace detail {
inline bit_op byte_math(bit_op_code code, std::int64_t bit_offset, std::int64_t bit_size,
                        kvmodel::bytes value, bit_policy policy) {
    bit_op o;
    o.code = code;
    o.bit_offset = bit_offset;
    o.bit_size = bit_size;
    o.value = std::move(value);
    o.policy = policy;
    return o;
}
inline bit_op range_op(bit_op_code code, std::int64_t bit_offset, std::int64_t bit_size,
                       bit_policy policy) {
    bit_op o;
    o.code = code;
    o.bit_offset = bit_offset;
    o.bit_size = bit_size;
    o.policy = policy;
    return o;
}
} // namespace detail

/// Overwrites the range with the first bit_size bits of value.
inline bit_op bit_set(std::int64_t bit_offset, std::int64_t bit_size, kvmodel::bytes value,
                      bit_policy policy = {}) {
    return detail::byte_math(bit_op_code::bit_set, bit_offset, bit_size, std::move(value), policy);
}
/// ORs the first bit_size bits of value into the range.
inline bit_op bit_or(std::int64_t bit_offset, std::int64_t bit_size, kvmodel::bytes value,
                     bit_policy policy = {}) {
    return detail::byte_math(bit_op_code::bit_or, bit_offset, bit_size, std::move(value), policy);
}
/// XORs the first bit_size bits of value into the range.
inline bit_op bit_xor(std::int64_t bit_offset, std::int64_t bit_size, kvmodel::bytes value,
                      bit_policy policy = {}) {
    return detail::byte_math(bit_op_code::bit_xor, bit_offset, bit_size, std::move(value), policy);
}
/// ANDs the first bit_size bits of value into the range.
inline bit_op bit_and(std::int64_t bit_offset, std::int64_t bit_size, kvmodel::bytes value,
                      bit_policy policy = {}) {
    return detail::byte_math(bit_op_code::bit_and, bit_offset, bit_size, std::move(value), policy);
}
/// Inverts the range.
inline bit_op bit_not(std::int64_t bit_offset, std::int64_t bit_size, bit_policy policy = {}) {
    return detail::range_op(bit_op_code::bit_not, bit_offset, bit_size, policy);
}
/// Shifts the range left by shift bits, filling with zeros.
inline bit_op bit_lshift(std::int64_t bit_offset, std::int64_t bit_size, std::int64_t shift,
                         bit_policy policy = {}) {
    bit_op o = detail::range_op(bit_op_code::bit_lshift, bit_offset, bit_size, policy);
    o.shift = shift;
    return o;
}
/// Shifts the range right by shift bits, filling with zeros.
inline bit_op bit_rshift(std::int64_t bit_offset, std::int64_t bit_size, std::int64_t shift,
                         bit_policy policy = {}) {
    bit_op o = detail::range_op(bit_op_code::bit_rshift, bit_offset, bit_size, policy);
    o.shift = shift;
    return o;
}
/// Adds value to the bit_size-bit (<= 64) integer at bit_offset; on overflow
/// applies action.
inline bit_op bit_add(std::int64_t bit_offset, std::int64_t bit_size, std::int64_t value,
                      bool sign = false, bit_overflow_action action = bit_overflow_action::fail,
                      bit_policy policy = {}) {
    bit_op o = detail::range_op(bit_op_code::bit_add, bit_offset, bit_size, policy);
    o.int_value = value;
    o.sign = sign;
    o.action = action;
    return o;
}
/// Subtracts value from the bit_size-bit (<= 64) integer at bit_offset; on
/// overflow applies action.
inline bit_op bit_subtract(std::int64_t bit_offset, std::int64_t bit_size, std::int64_t value,
                           bool sign = false,
                           bit_overflow_action action = bit_overflow_action::fail,
                           bit_policy policy = {}) {
    bit_op o = detail::range_op(bit_op_code::bit_subtract, bit_offset, bit_size, policy);
    o.int_value = value;
    o.sign = sign;
    o.action = action;
    return o;
}
/// Writes the low bit_size (<= 64) bits of value at bit_offset.
inline bit_op bit_set_int(std::int64_t bit_offset, std::int64_t bit_size, std::int64_t value,
                          bit_policy policy = {}) {
    bit_op o = detail::range_op(bit_op_code::bit_set_int, bit_offset, bit_size, policy);
    o.int_value = value;
    return o;
}
/// Reads the range as ceil(bit_size/8) bytes, left-aligned.
inline bit_op bit_get(std::int64_t bit_offset, std::int64_t bit_size) {
    return detail::range_op(bit_op_code::bit_get, bit_offset, bit_size, {});
}
/// Counts the set bits in the range.
inline bit_op bit_count(std::int64_t bit_offset, std::int64_t bit_size) {
    return detail::range_op(bit_op_code::bit_count, bit_offset, bit_size, {});
}
/// The position (relative to bit_offset) of the first bit equal to value, or -1.
inline bit_op bit_lscan(std::int64_t bit_offset, std::int64_t bit_size, bool value) {
    bit_op o = detail::range_op(bit_op_code::bit_lscan, bit_offset, bit_size, {});
    o.scan_value = value;
    return o;
}
/// The position (relative to bit_offset) of the last bit equal to value, or -1.
inline bit_op bit_rscan(std::int64_t bit_offset, std::int64_t bit_size, bool value) {
    bit_op o = detail::range_op(bit_op_code::bit_rscan, bit_offset, bit_size, {});
    o.scan_value = value;
    return o;
}
/// Reads the bit_size-bit (<= 64) integer at bit_offset.
inline bit_op bit_get_int(std::int64_t bit_offset, std::int64_t bit_size, bool sign = false) {
    bit_op o = detail::range_op(bit_op_code::bit_get_int, bit_offset, bit_size, {});
    o.sign = sign;
    return o;
}

} // namespace bit_ops

/// Applies o to bin (nullopt = absent bin) as the server does and returns the
/// op's result: nil for modify ops (also when NO_FAIL turned a failure into a
/// no-op), bytes for get, an integer for count, lscan, rscan and get_int. A
/// read of a missing bin is nil. On error bin is unchanged. A store passes its
/// namespace's max-record-size as max_blob_bytes to fail early.
///
/// Record-level rules belong to the store: a command on a missing record
/// whose writes all end as no-ops fails KEY_NOT_FOUND (the bin stays nullopt).
/// Complexity: O(n) in the blob's bytes for modify ops, O(bit_size / 8) for reads.
KVMODEL_DECL result<value> apply_bit_op(std::optional<value>& bin, const bit_op& o,
                                        std::size_t max_blob_bytes = default_max_blob_bytes);

} // namespace kvmodel::cdt

// The engine behind apply_bit_op, parsed only where it is compiled (with
// kvmodel::compiled: once, in the library).
#if KVMODEL_DEFINITIONS
#    include <kvmodel/cdt/detail/bit_engine.hpp> // IWYU pragma: export
#endif
