// kvmodel/cdt/detail/bit_engine.hpp
//
// The engine behind cdt::apply_bit_op (cdt/bit_ops.hpp): argument checks in
// the server's order, the missing-bin / wrong-type / flag rules, range
// normalisation, and the bit kernels. Every check that can fail runs before
// the blob is touched, so an error (or a NO_FAIL no-op) leaves the bin exactly
// as it was. All blob access goes through read_bits / write_bits, which only
// touch bytes inside the blob (the PARTIAL-past-the-end case is clipped
// before any of them runs).
#pragma once

#include <kvmodel/cdt/bit_ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/core/value.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace kvmodel::cdt::detail::bits {

/// The server's per-op caps (PROTO_SIZE_MAX = 2^27 bytes).
inline constexpr std::int64_t max_bytes = std::int64_t{1} << 27;
inline constexpr std::int64_t max_bits = max_bytes * 8;

inline error op_error(status code, bit_op_code c, const std::string& what) {
    return error{code, std::string(bit_op_name(c)) + ": " + what};
}

inline bool known_code(bit_op_code c) noexcept {
    return std::find(std::begin(all_bit_op_codes), std::end(all_bit_op_codes), c) !=
           std::end(all_bit_op_codes);
}

/// The write flags each op accepts (any other bit → PARAMETER_ERROR).
constexpr std::uint32_t allowed_flags(bit_op_code c) noexcept {
    using namespace bit_write_flags;
    switch (c) {
    case bit_op_code::bit_resize:
    case bit_op_code::bit_insert: return create_only | update_only | no_fail;
    case bit_op_code::bit_remove:
    case bit_op_code::bit_set:
    case bit_op_code::bit_or:
    case bit_op_code::bit_xor:
    case bit_op_code::bit_and:
    case bit_op_code::bit_not:
    case bit_op_code::bit_lshift:
    case bit_op_code::bit_rshift: return update_only | no_fail | partial;
    case bit_op_code::bit_add:
    case bit_op_code::bit_subtract:
    case bit_op_code::bit_set_int: return update_only | no_fail;
    default: return none; // reads take no flags
    }
}

// --- argument checks, in the order the server parses the arguments -----------

inline std::optional<error> check_bit_offset(const bit_op& o) {
    if (o.bit_offset > max_bits || o.bit_offset < -max_bits)
        return op_error(status::parameter_error, o.code,
                        "bit_offset " + std::to_string(o.bit_offset) + " is beyond +/-" +
                            std::to_string(max_bits));
    return std::nullopt;
}

inline std::optional<error> check_byte_offset(const bit_op& o) {
    if (o.byte_offset > max_bytes || o.byte_offset < -max_bytes)
        return op_error(status::parameter_error, o.code,
                        "byte_offset " + std::to_string(o.byte_offset) + " is beyond +/-" +
                            std::to_string(max_bytes));
    return std::nullopt;
}

/// A bit size: 1..2^30 bits (1..64 for the integer ops).
inline std::optional<error> check_bit_size(const bit_op& o, std::int64_t max) {
    if (o.bit_size == 0)
        return op_error(status::parameter_error, o.code, "bit_size may not be 0");
    // Sizes are unsigned on the wire: a negative one is a huge one.
    if (o.bit_size < 0 || o.bit_size > max)
        return op_error(status::parameter_error, o.code,
                        "bit_size " + std::to_string(o.bit_size) + " is out of range 1.." +
                            std::to_string(max));
    return std::nullopt;
}

inline std::optional<error> check_operand(const bit_op& o) {
    if (o.value.empty())
        return op_error(status::parameter_error, o.code, "value is empty");
    if (o.code != bit_op_code::bit_insert &&
        static_cast<std::int64_t>(o.value.size()) * 8 < o.bit_size)
        return op_error(status::parameter_error, o.code,
                        "value has " + std::to_string(o.value.size() * 8) +
                            " bits, fewer than bit_size " + std::to_string(o.bit_size));
    return std::nullopt;
}

inline std::optional<error> check_flags(const bit_op& o) {
    const std::uint32_t f = o.policy.flags;
    if ((f & ~allowed_flags(o.code)) != 0)
        return op_error(status::parameter_error, o.code,
                        is_bit_read(o.code)
                            ? "read ops take no write flags (flags " + std::to_string(f) + ")"
                            : "write flags " + std::to_string(f) + " not accepted (allowed " +
                                  std::to_string(allowed_flags(o.code)) + ")");
    if ((f & bit_write_flags::create_only) != 0 && (f & bit_write_flags::update_only) != 0)
        return op_error(status::parameter_error, o.code,
                        "CREATE_ONLY and UPDATE_ONLY together");
    return std::nullopt;
}

inline std::optional<error> check_resize_args(const bit_op& o) {
    if (o.byte_size < 0 || o.byte_size > max_bytes)
        return op_error(status::parameter_error, o.code,
                        "byte_size " + std::to_string(o.byte_size) + " is out of range 0.." +
                            std::to_string(max_bytes));
    if (auto e = check_flags(o)) return e;
    if ((o.resize_flags & ~std::uint32_t{7}) != 0)
        return op_error(status::parameter_error, o.code,
                        "invalid resize_flags " + std::to_string(o.resize_flags));
    if ((o.resize_flags & bit_resize_flags::grow_only) != 0 &&
        (o.resize_flags & bit_resize_flags::shrink_only) != 0)
        return op_error(status::parameter_error, o.code, "GROW_ONLY and SHRINK_ONLY together");
    return std::nullopt;
}

inline std::optional<error> check_byte_op_args(const bit_op& o) {
    if (auto e = check_byte_offset(o)) return e;
    if (o.code == bit_op_code::bit_insert) {
        if (auto e = check_operand(o)) return e;
    } else {
        if (o.byte_size == 0)
            return op_error(status::parameter_error, o.code, "byte_size may not be 0");
        if (o.byte_size < 0 || o.byte_size > max_bytes)
            return op_error(status::parameter_error, o.code,
                            "byte_size " + std::to_string(o.byte_size) + " is out of range 1.." +
                                std::to_string(max_bytes));
    }
    return check_flags(o);
}

inline bool is_integer_op(bit_op_code c) noexcept {
    return c == bit_op_code::bit_add || c == bit_op_code::bit_subtract ||
           c == bit_op_code::bit_set_int || c == bit_op_code::bit_get_int;
}
inline bool takes_operand(bit_op_code c) noexcept {
    return c == bit_op_code::bit_set || c == bit_op_code::bit_or || c == bit_op_code::bit_xor ||
           c == bit_op_code::bit_and;
}

/// The ops on a bit range: offset, size (1..64 for the integer ops), then the
/// op's own argument, the flags and the overflow action.
inline std::optional<error> check_range_op_args(const bit_op& o) {
    if (auto e = check_bit_offset(o)) return e;
    if (auto e = check_bit_size(o, is_integer_op(o.code) ? 64 : max_bits)) return e;
    if (takes_operand(o.code)) {
        if (auto e = check_operand(o)) return e;
    }
    if ((o.code == bit_op_code::bit_lshift || o.code == bit_op_code::bit_rshift) &&
        (o.shift < 0 || o.shift > max_bits))
        return op_error(status::parameter_error, o.code,
                        "shift " + std::to_string(o.shift) + " is out of range 0.." +
                            std::to_string(max_bits));
    if (auto e = check_flags(o)) return e;
    if (o.code == bit_op_code::bit_add || o.code == bit_op_code::bit_subtract) {
        switch (o.action) {
        case bit_overflow_action::fail:
        case bit_overflow_action::saturate:
        case bit_overflow_action::wrap: return std::nullopt;
        }
        return op_error(status::parameter_error, o.code,
                        "invalid overflow action " +
                            std::to_string(static_cast<unsigned>(o.action)));
    }
    return std::nullopt;
}

/// Everything the server rejects while parsing the op, before it looks at the bin.
inline std::optional<error> check_args(const bit_op& o) {
    switch (o.code) {
    case bit_op_code::bit_resize: return check_resize_args(o);
    case bit_op_code::bit_insert:
    case bit_op_code::bit_remove: return check_byte_op_args(o);
    default: return check_range_op_args(o);
    }
}

// --- bit kernels ------------------------------------------------------------------
// A "buffer" holds n bits left-aligned (bit 0 = MSB of byte 0) in ceil(n/8)
// bytes, with the bits past n zero.

inline std::uint8_t head_mask(std::size_t from_bit) noexcept { // bits [from_bit, 8)
    return static_cast<std::uint8_t>(0xFFU >> from_bit);
}
inline std::uint8_t tail_keep_mask(std::size_t n) noexcept { // bits [0, n%8) of the last byte
    return n % 8 == 0 ? std::uint8_t{0xFF} : static_cast<std::uint8_t>(0xFFU << (8 - n % 8));
}
inline void clear_tail(bytes& buf, std::size_t n) noexcept {
    if (!buf.empty()) buf.back() &= tail_keep_mask(n);
}

/// Bits [pos, pos + n) of blob as a buffer. Precondition: pos + n <= 8 * blob.size().
/// Complexity: O(n / 8).
inline bytes read_bits(const bytes& blob, std::size_t pos, std::size_t n) {
    bytes out((n + 7) / 8);
    const std::size_t b = pos / 8;
    const std::size_t r = pos % 8;
    for (std::size_t i = 0; i < out.size(); ++i) {
        // (b + i) is inside the blob: (b + i) * 8 < pos + n (see the precondition).
        unsigned v = static_cast<unsigned>(blob[b + i]) << r;
        if (r != 0 && b + i + 1 < blob.size()) v |= static_cast<unsigned>(blob[b + i + 1]) >> (8 - r);
        out[i] = static_cast<std::uint8_t>(v);
    }
    clear_tail(out, n);
    return out;
}

/// Overwrites bits [pos, pos + n) of blob with the first n bits of src (which
/// holds at least ceil(n/8) bytes). Precondition: pos + n <= 8 * blob.size().
/// Complexity: O(n / 8).
inline void write_bits(bytes& blob, std::size_t pos, const std::uint8_t* src, std::size_t n) {
    if (n == 0) return;
    const std::size_t b = pos / 8;
    const std::size_t r = pos % 8;
    const std::size_t src_bytes = (n + 7) / 8;
    const std::size_t out_bytes = (r + n + 7) / 8;
    for (std::size_t k = 0; k < out_bytes; ++k) {
        // Byte k of the source stream shifted right by r.
        unsigned v = 0;
        if (k < src_bytes) v |= static_cast<unsigned>(src[k]) >> r;
        if (r != 0 && k > 0 && k - 1 < src_bytes) v |= static_cast<unsigned>(src[k - 1]) << (8 - r);
        // Which bits of this byte lie in [r, r + n).
        const std::size_t lo = k == 0 ? r : 0;
        const std::size_t hi = std::min<std::size_t>(8, r + n - 8 * k);
        const auto mask =
            static_cast<std::uint8_t>((0xFFU >> lo) & (0xFFU << (8 - hi)) & 0xFFU);
        std::uint8_t& d = blob[b + k];
        d = static_cast<std::uint8_t>((d & ~mask) | (v & mask));
    }
}

/// Shifts an n-bit buffer left (towards bit 0) by s bits, zero-filling.
inline void shift_left(bytes& buf, std::size_t n, std::size_t s) {
    if (s >= n) {
        std::fill(buf.begin(), buf.end(), std::uint8_t{0});
        return;
    }
    const std::size_t bs = s / 8;
    const std::size_t r = s % 8;
    const std::size_t len = buf.size();
    for (std::size_t i = 0; i < len; ++i) {
        unsigned v = 0;
        if (i + bs < len) v |= static_cast<unsigned>(buf[i + bs]) << r;
        if (r != 0 && i + bs + 1 < len) v |= static_cast<unsigned>(buf[i + bs + 1]) >> (8 - r);
        buf[i] = static_cast<std::uint8_t>(v);
    }
    clear_tail(buf, n);
}

/// Shifts an n-bit buffer right (away from bit 0) by s bits, zero-filling;
/// bits pushed past n are lost.
inline void shift_right(bytes& buf, std::size_t n, std::size_t s) {
    if (s >= n) {
        std::fill(buf.begin(), buf.end(), std::uint8_t{0});
        return;
    }
    const std::size_t bs = s / 8;
    const std::size_t r = s % 8;
    for (std::size_t i = buf.size(); i-- > 0;) {
        unsigned v = 0;
        if (i >= bs) v |= static_cast<unsigned>(buf[i - bs]) >> r;
        if (r != 0 && i >= bs + 1) v |= static_cast<unsigned>(buf[i - bs - 1]) << (8 - r);
        buf[i] = static_cast<std::uint8_t>(v);
    }
    clear_tail(buf, n);
}

/// The n-bit (n <= 64) big-endian unsigned integer in a buffer.
inline std::uint64_t buffer_to_uint(const bytes& buf, std::size_t n) noexcept {
    std::uint64_t v = 0;
    for (std::uint8_t byte : buf) v = (v << 8) | byte;
    return v >> (8 * buf.size() - n);
}

/// The low n bits (n <= 64) of v as an n-bit buffer.
inline bytes uint_to_buffer(std::uint64_t v, std::size_t n) {
    bytes out((n + 7) / 8);
    const std::size_t pad = 8 * out.size() - n; // < 8
    v <<= pad;
    for (std::size_t i = out.size(); i-- > 0;) {
        out[i] = static_cast<std::uint8_t>(v & 0xFFU);
        v >>= 8;
    }
    return out;
}

inline std::uint64_t low_mask(std::size_t n) noexcept {
    return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
}
inline std::int64_t sign_extend(std::uint64_t v, std::size_t n) noexcept {
    if (n >= 64) return static_cast<std::int64_t>(v);
    const std::uint64_t sign = std::uint64_t{1} << (n - 1);
    return static_cast<std::int64_t>((v ^ sign) - sign); // two's complement, no UB
}

/// Index of the first bit equal to want among the first n bits of a buffer
/// (lscan); -1 when there is none.
inline std::int64_t lscan(const bytes& buf, std::size_t n, bool want) noexcept {
    const std::size_t len = buf.size();
    for (std::size_t i = 0; i < len; ++i) {
        std::uint8_t v = want ? buf[i] : static_cast<std::uint8_t>(~buf[i]);
        if (i + 1 == len) v &= tail_keep_mask(n); // the padding bits never match
        if (v != 0) return static_cast<std::int64_t>(8 * i) + std::countl_zero(v);
    }
    return -1;
}

/// rscan as the server computes it (particle_blob.c bits_read_op_rscan) on
/// the n bits from bit pos of b: the bytes the range touches are searched
/// from the right for the last bit equal to want, the last byte masked to the
/// range's end but the first byte NOT masked to its start, so a match in the
/// first byte before pos is answered as a negative position (-1 .. -7, its
/// distance before pos) instead of -1 ("not found"). Probed on 8.1.2:
/// rscan(2, 1, true) on 8f 1f answers -2. n > 0 (size 0 is refused earlier).
inline std::int64_t server_rscan(const bytes& b, std::size_t pos, std::size_t n, bool want) noexcept {
    const std::size_t first = pos / 8;
    const std::size_t off = pos % 8;
    const std::size_t n_bytes = (off + n + 7) / 8;
    auto bits_of = [&](std::size_t i) {
        return want ? b[i] : static_cast<std::uint8_t>(~b[i]);
    };
    std::size_t cur = first + n_bytes - 1;
    const auto end_mask = static_cast<std::uint8_t>(0xFF << ((8 - (n + off) % 8) % 8));
    std::uint8_t last = bits_of(cur) & end_mask;
    if (last == 0 && n_bytes != 1) {
        --cur;
        while (bits_of(cur) == 0 && cur > first)
            --cur;
        last = bits_of(cur);
    }
    if (last == 0)
        return -1;
    const std::int64_t found = static_cast<std::int64_t>(8 * (cur - first)) + 7 - std::countr_zero(last) -
                               static_cast<std::int64_t>(off);
    return found >= static_cast<std::int64_t>(n) ? -1 : found;
}

/// The result of add/subtract on the n-bit integer load, or nullopt on an
/// overflow with action FAIL.
inline std::optional<std::uint64_t> arithmetic(const bit_op& o, std::uint64_t load, std::size_t n) {
    const std::uint64_t m = low_mask(n);
    const std::uint64_t v = static_cast<std::uint64_t>(o.int_value) & m;
    const bool add = o.code == bit_op_code::bit_add;
    const std::uint64_t wrapped = (add ? load + v : load - v) & m;
    if (o.action == bit_overflow_action::wrap) return wrapped;
    const bool saturate = o.action == bit_overflow_action::saturate;
    if (!o.sign) {
        // Unsigned: over the maximum on add, under 0 on subtract.
        const bool over = add ? wrapped < load : v > load;
        if (!over) return wrapped;
        if (!saturate) return std::nullopt;
        return add ? m : std::uint64_t{0};
    }
    // Signed, as the server tests it (particle_blob.c handle_signed_overflow):
    // the operand is the masked value for add and its negation for subtract,
    // each read as an n-bit signed number, and an overflow is a load and an
    // operand of one sign whose n-bit sum has the other (strictly: a zero sum
    // never overflows). So subtract 2 in 2 bits subtracts +2, not -2, and
    // -2 + -2 in 2 bits wraps to 0 unflagged.
    const std::uint64_t operand = (add ? v : std::uint64_t{0} - v) & m;
    const std::int64_t sl = sign_extend(load, n);
    const std::int64_t so = sign_extend(operand, n);
    const std::int64_t sr = sign_extend(wrapped, n);
    const bool too_low = sl < 0 && so < 0 && sr > 0;
    const bool too_high = sl > 0 && so > 0 && sr < 0;
    if (!too_high && !too_low) return wrapped;
    if (!saturate) return std::nullopt;
    return too_high ? m >> 1 : (m >> 1) + 1; // the n-bit maximum, or the minimum's bits
}

/// A negative offset counts from the end; nullopt (PARAMETER_ERROR) when it
/// reaches before the start, or when the bin does not exist.
inline result<std::int64_t> normalize_offset(const bit_op& o, std::int64_t offset, bool bin_exists,
                                             std::size_t old_size, const char* unit) {
    if (offset >= 0) return offset;
    if (!bin_exists)
        return op_error(status::parameter_error, o.code,
                        std::string("negative ") + unit + " on a missing bin");
    const auto old_bits = static_cast<std::int64_t>(old_size) * 8;
    if (-offset > old_bits)
        return op_error(status::parameter_error, o.code,
                        std::string(unit) + " reaches before the start of the " +
                            std::to_string(old_size) + "-byte blob");
    return offset + old_bits;
}

inline result<value> no_op_or(const bit_op& o, status code, const std::string& what) {
    if ((o.policy.flags & bit_write_flags::no_fail) != 0) return value{};
    return op_error(code, o.code, what);
}

inline std::string range_text(std::int64_t pos, std::int64_t n, std::size_t old_size) {
    return "bits [" + std::to_string(pos) + ", " + std::to_string(pos + n) + ") of the " +
           std::to_string(old_size) + "-byte blob";
}

/// The size check the server makes before allocating, then the store's limit.
inline std::optional<error> check_new_size(const bit_op& o, std::size_t new_size,
                                           std::size_t max_blob_bytes) {
    if (new_size >= static_cast<std::size_t>(max_bytes))
        return op_error(status::parameter_error, o.code,
                        "result blob of " + std::to_string(new_size) + " bytes, max " +
                            std::to_string(max_bytes - 1));
    if (new_size > max_blob_bytes)
        return op_error(status::record_too_big, o.code,
                        "result blob of " + std::to_string(new_size) +
                            " bytes exceeds the record size limit " +
                            std::to_string(max_blob_bytes));
    return std::nullopt;
}

inline result<value> resize(std::optional<value>& bin, const bit_op& o, std::size_t max_blob) {
    const std::size_t old_size = bin ? bin->as_bytes().size() : 0;
    const auto new_size = static_cast<std::size_t>(o.byte_size);
    const bool from_front = (o.resize_flags & bit_resize_flags::from_front) != 0;
    if (new_size == old_size) return value{}; // a missing bin stays missing
    if (new_size < old_size && (o.resize_flags & bit_resize_flags::grow_only) != 0)
        return no_op_or(o, status::parameter_error,
                        "GROW_ONLY cannot shrink " + std::to_string(old_size) + " bytes to " +
                            std::to_string(new_size));
    if (new_size > old_size && (o.resize_flags & bit_resize_flags::shrink_only) != 0)
        return no_op_or(o, status::parameter_error,
                        "SHRINK_ONLY cannot grow " + std::to_string(old_size) + " bytes to " +
                            std::to_string(new_size));
    if (auto e = check_new_size(o, new_size, max_blob)) return *e;
    if (!bin) {
        bin = value(bytes(new_size, 0));
        return value{};
    }
    bytes& b = bin->as_bytes();
    const auto delta = static_cast<std::ptrdiff_t>(new_size > old_size ? new_size - old_size
                                                                       : old_size - new_size);
    if (new_size > old_size) {
        if (from_front)
            b.insert(b.begin(), static_cast<std::size_t>(delta), std::uint8_t{0});
        else
            b.resize(new_size, 0);
    } else if (from_front) {
        b.erase(b.begin(), b.begin() + delta);
    } else {
        b.resize(new_size);
    }
    return value{};
}

inline result<value> insert(std::optional<value>& bin, const bit_op& o, std::size_t max_blob) {
    const std::size_t old_size = bin ? bin->as_bytes().size() : 0;
    auto off = normalize_offset(o, o.byte_offset * 8, bin.has_value(), old_size, "byte_offset");
    if (!off) return off.error();
    const auto at = static_cast<std::size_t>(*off / 8);
    const std::size_t new_size = std::max(at, old_size) + o.value.size();
    if (auto e = check_new_size(o, new_size, max_blob)) return *e;
    if (!bin) bin = value(bytes{});
    bytes& b = bin->as_bytes();
    if (at > b.size()) b.resize(at, 0); // insert past the end pads with zero bytes
    b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), o.value.begin(), o.value.end());
    return value{};
}

inline result<value> remove(std::optional<value>& bin, const bit_op& o) {
    bytes& b = bin->as_bytes();
    const std::size_t old_size = b.size();
    auto off = normalize_offset(o, o.byte_offset * 8, true, old_size, "byte_offset");
    if (!off) return off.error();
    const auto at = static_cast<std::size_t>(*off / 8);
    if (at >= old_size)
        return no_op_or(o, status::parameter_error,
                        "byte_offset " + std::to_string(at) + " is past the end of the " +
                            std::to_string(old_size) + "-byte blob");
    std::size_t end = at + static_cast<std::size_t>(o.byte_size);
    if (end > old_size) {
        if ((o.policy.flags & bit_write_flags::partial) == 0)
            return no_op_or(o, status::parameter_error,
                            "bytes [" + std::to_string(at) + ", " + std::to_string(end) +
                                ") run past the end of the " + std::to_string(old_size) +
                                "-byte blob (PARTIAL clips)");
        end = old_size;
    }
    b.erase(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(end));
    return value{};
}

/// Applies a range op to bits [upos, upos + un) of b, which exist. Fails
/// only on an add/subtract overflow with action FAIL (before writing).
inline result<value> apply_range_kernel(bytes& b, const bit_op& o, std::size_t upos,
                                        std::size_t un) {
    switch (o.code) {
    case bit_op_code::bit_set: write_bits(b, upos, o.value.data(), un); break;
    case bit_op_code::bit_or:
    case bit_op_code::bit_xor:
    case bit_op_code::bit_and: {
        bytes cur = read_bits(b, upos, un);
        for (std::size_t i = 0; i < cur.size(); ++i) {
            const std::uint8_t v = o.value[i];
            cur[i] = static_cast<std::uint8_t>(o.code == bit_op_code::bit_or    ? cur[i] | v
                                               : o.code == bit_op_code::bit_xor ? cur[i] ^ v
                                                                                : cur[i] & v);
        }
        write_bits(b, upos, cur.data(), un);
        break;
    }
    case bit_op_code::bit_not: {
        bytes cur = read_bits(b, upos, un);
        for (std::uint8_t& c : cur) c = static_cast<std::uint8_t>(~c);
        write_bits(b, upos, cur.data(), un);
        break;
    }
    case bit_op_code::bit_lshift:
    case bit_op_code::bit_rshift: {
        bytes cur = read_bits(b, upos, un);
        if (o.code == bit_op_code::bit_lshift)
            shift_left(cur, un, static_cast<std::size_t>(o.shift));
        else
            shift_right(cur, un, static_cast<std::size_t>(o.shift));
        write_bits(b, upos, cur.data(), un);
        break;
    }
    case bit_op_code::bit_add:
    case bit_op_code::bit_subtract: {
        const std::uint64_t load = buffer_to_uint(read_bits(b, upos, un), un);
        const std::optional<std::uint64_t> r = arithmetic(o, load, un);
        if (!r)
            return no_op_or(o, status::op_not_applicable,
                            std::string(o.sign ? "signed " : "unsigned ") + "overflow on " +
                                std::to_string(un) + "-bit integer at bit " +
                                std::to_string(upos) + " (action FAIL)");
        write_bits(b, upos, uint_to_buffer(*r, un).data(), un);
        break;
    }
    case bit_op_code::bit_set_int:
        write_bits(b, upos, uint_to_buffer(static_cast<std::uint64_t>(o.int_value), un).data(), un);
        break;
    default: break;
    }
    return value{};
}

/// The ops on a bit range of an existing blob: set, or, xor, and, not, shifts
/// (PARTIAL clips) and the integer ops (which must fit).
inline result<value> modify_range(std::optional<value>& bin, const bit_op& o) {
    bytes& b = bin->as_bytes();
    const std::size_t old_size = b.size();
    auto off = normalize_offset(o, o.bit_offset, true, old_size, "bit_offset");
    if (!off) return off.error();
    const std::int64_t pos = *off;
    std::int64_t n = o.bit_size;
    const auto old_bits = static_cast<std::int64_t>(old_size) * 8;
    if (pos >= old_bits)
        return no_op_or(o, status::op_not_applicable,
                        range_text(pos, n, old_size) + " start past its end");
    if (pos + n > old_bits) {
        const bool partial = (o.policy.flags & bit_write_flags::partial) != 0;
        if (!partial)
            return no_op_or(o, status::op_not_applicable,
                            range_text(pos, n, old_size) + " run past its end" +
                                ((allowed_flags(o.code) & bit_write_flags::partial) != 0
                                     ? " (PARTIAL clips)"
                                     : ""));
        // Clip to the bits that exist (8.1.2 miscomputes this length and
        // overruns the heap when the range starts at byte >= 1).
        n = old_bits - pos;
    }
    return apply_range_kernel(b, o, static_cast<std::size_t>(pos), static_cast<std::size_t>(n));
}

inline result<value> read(const bytes& b, const bit_op& o) {
    const std::size_t old_size = b.size();
    auto off = normalize_offset(o, o.bit_offset, true, old_size, "bit_offset");
    if (!off) return off.error();
    const std::int64_t pos = *off;
    const std::int64_t n = o.bit_size;
    const auto old_bits = static_cast<std::int64_t>(old_size) * 8;
    if (pos >= old_bits)
        return op_error(status::op_not_applicable, o.code,
                        range_text(pos, n, old_size) + " start past its end");
    if (pos + n > old_bits)
        return op_error(status::op_not_applicable, o.code,
                        range_text(pos, n, old_size) + " run past its end");
    const auto un = static_cast<std::size_t>(n);
    bytes cur = read_bits(b, static_cast<std::size_t>(pos), un);
    switch (o.code) {
    case bit_op_code::bit_get: return value(std::move(cur));
    case bit_op_code::bit_count: {
        std::int64_t count = 0;
        for (std::uint8_t c : cur) count += std::popcount(c);
        return value(count);
    }
    case bit_op_code::bit_lscan: return value(lscan(cur, un, o.scan_value));
    case bit_op_code::bit_rscan:
        return value(server_rscan(b, static_cast<std::size_t>(pos), un, o.scan_value));
    case bit_op_code::bit_get_int: {
        const std::uint64_t v = buffer_to_uint(cur, un);
        return value(o.sign ? sign_extend(v, un) : static_cast<std::int64_t>(v));
    }
    default: return op_error(status::parameter_error, o.code, "not a read op");
    }
}

} // namespace kvmodel::cdt::detail::bits

namespace kvmodel::cdt {

#if KVMODEL_DEFINITIONS
KVMODEL_DECL result<value> apply_bit_op(std::optional<value>& bin, const bit_op& o,
                                        std::size_t max_blob_bytes) {
    namespace b = detail::bits;
    if (!b::known_code(o.code))
        return error{status::parameter_error,
                     "bit op: unknown op code " + std::to_string(static_cast<unsigned>(o.code))};
    if (is_bit_read(o.code)) {
        // A read of a missing bin is nil, whatever its arguments.
        if (!bin) return value{};
        if (auto e = b::check_args(o)) return *e;
        if (!bin->is_bytes())
            return b::op_error(status::bin_type_error, o.code,
                               "bin holds a " + std::string(type_name(bin->type())) +
                                   ", not bytes");
        return b::read(bin->as_bytes(), o);
    }
    if (auto e = b::check_args(o)) return *e;
    const std::uint32_t flags = o.policy.flags;
    if (bin) {
        // CREATE_ONLY is checked before the bin's type (a string bin gives 6).
        if ((flags & bit_write_flags::create_only) != 0)
            return b::no_op_or(o, status::bin_exists_error, "CREATE_ONLY and the bin exists");
        if (!bin->is_bytes())
            return b::op_error(status::bin_type_error, o.code,
                               "bin holds a " + std::string(type_name(bin->type())) +
                                   ", not bytes");
    } else if ((o.code != bit_op_code::bit_insert && o.code != bit_op_code::bit_resize) ||
               (flags & bit_write_flags::update_only) != 0) {
        return b::no_op_or(o, status::bin_not_found,
                           (flags & bit_write_flags::update_only) != 0
                               ? "UPDATE_ONLY and the bin does not exist"
                               : "the bin does not exist (only insert and resize create it)");
    }
    switch (o.code) {
    case bit_op_code::bit_resize: return b::resize(bin, o, max_blob_bytes);
    case bit_op_code::bit_insert: return b::insert(bin, o, max_blob_bytes);
    case bit_op_code::bit_remove: return b::remove(bin, o);
    default: return b::modify_range(bin, o);
    }
}

// Whoever makes a bit op has compiled this engine: the op registers it for
// the stores (cdt/detail/bit_op.hpp).
KVMODEL_DECL bit_op::bit_op() noexcept {
    detail::bit_engine().set(&apply_bit_op);
}

#endif // KVMODEL_DEFINITIONS

} // namespace kvmodel::cdt
