// kvmodel/exp/detail/bits.hpp
//
// Bit calls inside expressions (as_exp_bit_*: call system BITS): the call's
// argument values read as the server's bits parser reads an operation's
// (as/src/base/particle_blob.c, bits_parse_*: per op its argument list,
// counts within [min, max], integers where it takes integers, a non-empty
// blob where it takes a buffer, a boolean for a scan, flags without the op's
// refused bits, the sub-flags' bad bits), then the blob engine
// (cdt::apply_bit_op) applies the op to the blob operand. A modify yields the
// modified blob, a read its result; any failure makes the call unknown, as
// exp.c's call does (the command then fails OP_NOT_APPLICABLE unless
// EVAL_NO_FAIL). A read of a nil operand is unknown (8.1.2 asserts there).
//
// Cost: as cdt::apply_bit_op (O(blob bytes) for a modify).
#pragma once

#include <kvmodel/cdt/bit_ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>

namespace kvmodel::exp::detail {

/// Reads args into o for the bit op `code` (a wire code); false when the
/// server's parser refuses them.
inline bool make_bit_op(std::uint64_t code, std::span<const value> a, cdt::bit_op& o) {
    using cdt::bit_op_code;
    const std::size_t n = a.size();
    auto integer = [&](std::size_t k, std::int64_t& out) {
        if (k >= n || !a[k].is_int())
            return false;
        out = a[k].as_int();
        return true;
    };
    // An offset: the server's range check is labs(offset) > limit, which
    // INT64_MIN passes (labs overflows), and it then keeps (int32_t)offset: 0.
    auto offset = [&](std::size_t k, std::int64_t& out) {
        if (!integer(k, out))
            return false;
        if (out == std::numeric_limits<std::int64_t>::min())
            out = 0;
        return true;
    };
    auto buf = [&](std::size_t k) {
        // The server refuses an empty buffer (only the particle-type byte).
        if (k >= n || !a[k].is_bytes() || a[k].as_bytes().empty())
            return false;
        o.value = a[k].as_bytes();
        return true;
    };
    // Optional trailing flags: absent = 0.
    auto flags = [&](std::size_t k) {
        std::int64_t f = 0;
        if (k < n && !integer(k, f))
            return false;
        o.policy.flags = static_cast<std::uint32_t>(f);
        return static_cast<std::uint64_t>(f) <= 0xffffffffu;
    };
    auto count_in = [&](std::size_t lo, std::size_t hi) {
        return n >= lo && n <= hi;
    };
    o = cdt::bit_op{};
    if (code > 54 || (code > 12 && code < 50))
        return false;
    o.code = static_cast<bit_op_code>(code);
    switch (o.code) {
    case bit_op_code::bit_resize: {
        std::int64_t sub = 0;
        if (!count_in(1, 3) || !integer(0, o.byte_size) || !flags(1) || (n > 2 && !integer(2, sub)))
            return false;
        if ((sub & ~std::int64_t{7}) != 0 || (sub & 6) == 6)
            return false;
        o.resize_flags = static_cast<std::uint32_t>(sub);
        return true;
    }
    case bit_op_code::bit_insert:
        return count_in(2, 3) && offset(0, o.byte_offset) && buf(1) && flags(2);
    case bit_op_code::bit_remove:
        return count_in(2, 3) && offset(0, o.byte_offset) && integer(1, o.byte_size) && flags(2);
    case bit_op_code::bit_set:
    case bit_op_code::bit_or:
    case bit_op_code::bit_xor:
    case bit_op_code::bit_and:
        return count_in(3, 4) && offset(0, o.bit_offset) && integer(1, o.bit_size) && buf(2) &&
               flags(3);
    case bit_op_code::bit_not:
        return count_in(2, 3) && offset(0, o.bit_offset) && integer(1, o.bit_size) && flags(2);
    case bit_op_code::bit_lshift:
    case bit_op_code::bit_rshift:
        return count_in(3, 4) && offset(0, o.bit_offset) && integer(1, o.bit_size) &&
               integer(2, o.shift) && flags(3);
    case bit_op_code::bit_add:
    case bit_op_code::bit_subtract: {
        std::int64_t sub = 0;
        if (!count_in(3, 5) || !offset(0, o.bit_offset) || !integer(1, o.bit_size) ||
            !integer(2, o.int_value) || !flags(3) || (n > 4 && !integer(4, sub)))
            return false;
        if ((sub & ~std::int64_t{7}) != 0 || (sub & 6) == 6)
            return false;
        o.sign = (sub & 1) != 0;
        o.action = (sub & 2) != 0   ? cdt::bit_overflow_action::saturate
                   : (sub & 4) != 0 ? cdt::bit_overflow_action::wrap
                                    : cdt::bit_overflow_action::fail;
        return true;
    }
    case bit_op_code::bit_set_int:
        return count_in(3, 4) && offset(0, o.bit_offset) && integer(1, o.bit_size) &&
               integer(2, o.int_value) && flags(3);
    case bit_op_code::bit_get:
    case bit_op_code::bit_count:
        return count_in(2, 2) && offset(0, o.bit_offset) && integer(1, o.bit_size);
    case bit_op_code::bit_lscan:
    case bit_op_code::bit_rscan:
        if (!count_in(3, 3) || !offset(0, o.bit_offset) || !integer(1, o.bit_size) ||
            !a[2].is_bool())
            return false;
        o.scan_value = a[2].as_bool();
        return true;
    case bit_op_code::bit_get_int: {
        std::int64_t sub = 0;
        if (!count_in(2, 3) || !offset(0, o.bit_offset) || !integer(1, o.bit_size) ||
            (n > 2 && !integer(2, sub)) || (sub & ~std::int64_t{1}) != 0)
            return false;
        o.sign = sub != 0;
        return true;
    }
    }
    return false;
}

/// A bit call: applies the op `code` with args to the blob operand (nullopt:
/// nil). Sets out to the modified blob (modify) or the read's result; false
/// when the call is unknown.
inline bool
eval_bit_call(std::uint64_t code, bool modify, std::span<const value> args,
              std::optional<value> operand, value& out) {
    cdt::bit_op o;
    if (!make_bit_op(code, args, o) || modify == cdt::is_bit_read(o.code))
        return false;
    if (!modify && !operand)
        return false;
    result<value> r = cdt::apply_bit_op(operand, o);
    if (!r)
        return false;
    if (modify) {
        if (!operand)
            return false;
        out = std::move(*operand);
        return true;
    }
    out = std::move(r).value();
    return true;
}

} // namespace kvmodel::exp::detail
