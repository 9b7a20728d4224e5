// kvmodel/cdt/hll_ops.hpp
//
// HyperLogLog operations on HLL bins: one `cdt::hll_op` per Aerospike HLL
// operation (as_operations_hll_*), builders named after them in
// `cdt::hll_ops`, and `cdt::apply_hll_op`, which applies one op to one bin
// exactly as the 8.1.2 server does (as/src/base/particle_hll.c): the same
// sketch bytes, the same hashes, the same estimates.
//
// The sketch (a HyperMinHash, arXiv 1710.08436) is the server's particle,
// byte for byte:
//
//   byte 0      flags, always 0
//   byte 1      n_index_bits (4..16): 2^n_index_bits registers
//   byte 2      n_minhash_bits (0, or 4..51; index + minhash <= 64)
//   bytes 3-10  the cached count, a little-endian uint64 (0 = not cached)
//   bytes 11..  the registers, (6 + n_minhash_bits) bits each, packed from the
//               most significant bit of the first byte on, ceil(bits / 8) bytes
//
// A register holds (hll_value << n_minhash_bits) | minhash_value. An element
// is hashed as its msgpack encoding (the client's: strings and blobs with the
// particle-type prefix byte, smallest integer encodings) with MurmurHash3
// x64_128, seed 0: the low n_index_bits of the first 64-bit half pick the
// register, the next n_minhash_bits are the minhash value, and 1 + the number
// of trailing zeros of the second half is the HLL value (kept to 6 bits, as
// the server's packing does). Counts are Ertl's improved estimator
// (arXiv 1702.01284, algorithm 6); union counts merge first; intersections
// and similarity use inclusion-exclusion without minhash bits and the
// HyperMinHash Jaccard estimate (with its collision correction for two
// sketches) with them. get_count returns the cached count when one is set
// (refresh_count sets it; an add that changes a register clears it).
//
// Results: init, set_union and fold return nil; add returns how many
// registers changed; refresh_count, get_count, get_union_count,
// get_intersect_count return integers; get_union returns a sketch (bytes);
// get_similarity a double (NaN when the server's is); describe
// [n_index_bits, n_minhash_bits]; may_contain 1 or 0. A NO_FAIL no-op is nil.
// A read of a missing bin is nil.
//
// Costs: every op is O(2^n_index_bits) register work (at most 65,536
// registers, 467 KiB at 16+51 bits) plus O(elements) hashes; nothing
// allocates more than one sketch per operand. On error the bin is unchanged.
//
// Departures from Aerospike:
//  - kvmodel has no HLL value type: an HLL bin holds its sketch as `bytes`.
//    A bytes bin that is not a valid sketch is a BIN_TYPE_ERROR (the server's
//    answer for a blob bin); a bytes bin that happens to hold a valid sketch
//    is taken as one (the server refuses a blob). The Aerospike adapter reads
//    HLL bins as bytes and sends hll_op sketches as HLL particles.
//  - Elements are kvmodel values, so only what a client can send is
//    modelled; list and map elements are refused as on the server.
//  - HLL ops take no CDT context (the server's HLL ops parse none).
// The estimators use the C library's pow and sqrt as the server does (no
// fused multiply-add: x86-64 builds match the server bit for bit).
#pragma once

#include <kvmodel/cdt/detail/hll_op.hpp> // IWYU pragma: export
#include <kvmodel/config.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace kvmodel::cdt {

/// Builders, one per as_operations_hll_* call, with its argument names.
namespace hll_ops {

/// Creates a new sketch or resets the bin's, with mh_bit_count minhash bits
/// (-1: the bin's, or 0). as_operations_hll_init_mh.
inline hll_op
hll_init_mh(std::int64_t index_bit_count, std::int64_t mh_bit_count, hll_policy policy = {}) {
    hll_op o;
    o.code = hll_op_code::hll_init;
    o.n_args = 3;
    o.index_bit_count = index_bit_count;
    o.mh_bit_count = mh_bit_count;
    o.policy = policy;
    return o;
}
/// as_operations_hll_init: init without minhash bits (-1).
inline hll_op hll_init(std::int64_t index_bit_count, hll_policy policy = {}) {
    return hll_init_mh(index_bit_count, -1, policy);
}
/// Adds the elements, creating the bin with the given bits if it is missing
/// (the bits are ignored for an existing bin). as_operations_hll_add_mh.
inline hll_op hll_add_mh(std::vector<value> list,
                         std::int64_t index_bit_count,
                         std::int64_t mh_bit_count,
                         hll_policy policy = {}) {
    hll_op o;
    o.code = hll_op_code::hll_add;
    o.n_args = 4;
    o.list = std::move(list);
    o.index_bit_count = index_bit_count;
    o.mh_bit_count = mh_bit_count;
    o.policy = policy;
    return o;
}
/// as_operations_hll_add: add without minhash bits (-1).
inline hll_op
hll_add(std::vector<value> list, std::int64_t index_bit_count, hll_policy policy = {}) {
    return hll_add_mh(std::move(list), index_bit_count, -1, policy);
}
/// as_operations_hll_update: add to an existing sketch (bits -1: a missing
/// bin fails OP_NOT_APPLICABLE).
inline hll_op hll_update(std::vector<value> list, hll_policy policy = {}) {
    return hll_add_mh(std::move(list), -1, -1, policy);
}
/// Sets the bin to the union of itself and the sketches.
inline hll_op hll_set_union(std::vector<kvmodel::bytes> hlls, hll_policy policy = {}) {
    hll_op o;
    o.code = hll_op_code::hll_set_union;
    o.n_args = 2;
    o.hlls = std::move(hlls);
    o.policy = policy;
    return o;
}
namespace detail {
inline hll_op no_args(hll_op_code c) {
    hll_op o;
    o.code = c;
    return o;
}
inline hll_op with_hlls(hll_op_code c, std::vector<kvmodel::bytes> hlls) {
    hll_op o = no_args(c);
    o.n_args = 1;
    o.hlls = std::move(hlls);
    return o;
}
} // namespace detail
/// Recomputes and caches the count; returns it.
inline hll_op hll_refresh_count() {
    return detail::no_args(hll_op_code::hll_refresh_count);
}
/// Folds a sketch without minhash bits down to index_bit_count index bits.
inline hll_op hll_fold(std::int64_t index_bit_count) {
    hll_op o = detail::no_args(hll_op_code::hll_fold);
    o.n_args = 1;
    o.index_bit_count = index_bit_count;
    return o;
}
/// The estimated count.
inline hll_op hll_get_count() {
    return detail::no_args(hll_op_code::hll_get_count);
}
/// The union of the bin and the sketches, as a sketch.
inline hll_op hll_get_union(std::vector<kvmodel::bytes> hlls) {
    return detail::with_hlls(hll_op_code::hll_get_union, std::move(hlls));
}
/// The estimated count of the union of the bin and the sketches.
inline hll_op hll_get_union_count(std::vector<kvmodel::bytes> hlls) {
    return detail::with_hlls(hll_op_code::hll_get_union_count, std::move(hlls));
}
/// The estimated count of the intersection of the bin and the sketches.
inline hll_op hll_get_intersect_count(std::vector<kvmodel::bytes> hlls) {
    return detail::with_hlls(hll_op_code::hll_get_intersect_count, std::move(hlls));
}
/// The estimated Jaccard similarity of the bin and the sketches (a double).
inline hll_op hll_get_similarity(std::vector<kvmodel::bytes> hlls) {
    return detail::with_hlls(hll_op_code::hll_get_similarity, std::move(hlls));
}
/// [n_index_bits, n_minhash_bits].
inline hll_op hll_describe() {
    return detail::no_args(hll_op_code::hll_describe);
}
/// 1 if every element may be in the sketch, else 0 (no false negatives).
inline hll_op hll_may_contain(std::vector<value> list) {
    hll_op o;
    o.code = hll_op_code::hll_may_contain;
    o.n_args = 1;
    o.list = std::move(list);
    return o;
}

} // namespace hll_ops

/// Whether `b` is a well-formed sketch: flags 0, index bits 4..16, minhash
/// bits 0 or 4..51 (index + minhash <= 64), and the size those bits make.
/// O(1).
inline bool is_hll_sketch(const kvmodel::bytes& b) noexcept {
    if (b.size() < hll_limits::header_bytes || b[0] != 0)
        return false;
    const unsigned i = b[1];
    const unsigned m = b[2];
    if (i < hll_limits::min_index_bits || i > hll_limits::max_index_bits)
        return false;
    if (m != 0 && (m < hll_limits::min_minhash_bits || m > hll_limits::max_minhash_bits))
        return false;
    if (i + m > hll_limits::max_index_and_minhash_bits)
        return false;
    const std::size_t regs =
        ((hll_limits::hll_bits + std::size_t{m}) * (std::size_t{1} << i) + 7) / 8;
    return b.size() == hll_limits::header_bytes + regs;
}

/// Applies o to bin (nullopt = absent bin) as the server does and returns the
/// op's result (see the header comment). On error bin is unchanged; the
/// message names the op and the limit.
///
/// Record-level rules belong to the store: a command on a missing record
/// whose writes all end as no-ops fails KEY_NOT_FOUND (the bin stays nullopt).
/// Complexity: O(2^index_bits * operands + elements).
KVMODEL_DECL result<value> apply_hll_op(std::optional<value>& bin, const hll_op& o);

/// The sketch bytes of an empty HLL with the given bits, or an error
/// (PARAMETER_ERROR) naming the limit they break.
KVMODEL_DECL result<kvmodel::bytes> hll_empty_sketch(int index_bits, int minhash_bits);

} // namespace kvmodel::cdt

// The engine behind apply_hll_op, parsed only where it is compiled.
#if KVMODEL_DEFINITIONS
#    include <kvmodel/cdt/detail/hll_engine.hpp> // IWYU pragma: export
#endif
