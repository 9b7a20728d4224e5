// Randomized differential test of cdt::apply_bit_op against a naive reference
// written independently on std::vector<bool>, one bit at a time, straight from
// AEROSPIKE-CDT.md §14: results, error codes and the bin after every op must
// agree (0 divergences). Arguments are drawn around the interesting values:
// byte boundaries, the end of the blob, negative offsets, the 2^30 caps, every
// flag combination and overflow action, missing and wrong-type bins.
//
// Seed: KVMODEL_SEED (default 20260415); op count: KVMODEL_FUZZ_OPS (default
// 300000, about a second in Release). A divergence prints the seed, the step
// and a one-op reproducer (the bin before and the op).
#include <kvmodel/cdt/bit_ops.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace cdt_bit_fuzz_test {

using namespace kvmodel;
using namespace kvmodel::cdt;

namespace {

// --- the reference model ---------------------------------------------------------

struct model {
    bool exists = false;
    bool blob = true; // false: the bin holds a string
    std::vector<bool> bits;
};

struct ref_out {
    status code = status::ok;
    value result;
};

constexpr std::int64_t cap_bits = std::int64_t{1} << 30;
constexpr std::int64_t cap_bytes = std::int64_t{1} << 27;
constexpr std::int64_t record_cap = std::int64_t{8} * 1024 * 1024;

bool bit_of(const bytes& b, std::size_t i) {
    return ((static_cast<unsigned>(b[i / 8]) >> (7 - i % 8)) & 1U) != 0;
}

std::vector<bool> to_bits(const bytes& b) {
    std::vector<bool> v(b.size() * 8);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = bit_of(b, i);
    return v;
}
bytes to_bytes_of(const std::vector<bool>& v) {
    bytes b((v.size() + 7) / 8, 0);
    for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i]) b[i / 8] = static_cast<std::uint8_t>(b[i / 8] | (0x80U >> (i % 8)));
    return b;
}
std::optional<value> to_bin(const model& m) {
    if (!m.exists) return std::nullopt;
    if (!m.blob) return value("not a blob");
    return value(to_bytes_of(m.bits));
}

bool has(std::uint32_t flags, std::uint32_t f) { return (flags & f) != 0; }

/// Which write flags each op takes, spelled out from the rule book.
bool flag_ok(bit_op_code c, std::uint32_t flags) {
    std::uint32_t ok = 0;
    if (c == bit_op_code::bit_resize || c == bit_op_code::bit_insert) ok = 1 | 2 | 4;
    else if (c == bit_op_code::bit_add || c == bit_op_code::bit_subtract ||
             c == bit_op_code::bit_set_int)
        ok = 2 | 4;
    else if (static_cast<int>(c) <= 9) ok = 2 | 4 | 8;
    if ((flags & ~ok) != 0) return false;
    return !(has(flags, 1) && has(flags, 2));
}

bool is_read(bit_op_code c) { return static_cast<int>(c) >= 50; }
bool is_int_op(bit_op_code c) {
    return c == bit_op_code::bit_add || c == bit_op_code::bit_subtract ||
           c == bit_op_code::bit_set_int || c == bit_op_code::bit_get_int;
}
bool takes_bytes(bit_op_code c) {
    return c == bit_op_code::bit_set || c == bit_op_code::bit_or || c == bit_op_code::bit_xor ||
           c == bit_op_code::bit_and || c == bit_op_code::bit_insert;
}

/// Argument checks: true when the server would reject the op as it parses it.
bool bad_args(const bit_op& o) {
    const bit_op_code c = o.code;
    if (c == bit_op_code::bit_resize) {
        if (o.byte_size < 0 || o.byte_size > cap_bytes) return true;
        if (!flag_ok(c, o.policy.flags)) return true;
        if (o.resize_flags > 7 || (has(o.resize_flags, 2) && has(o.resize_flags, 4))) return true;
        return false;
    }
    if (c == bit_op_code::bit_insert || c == bit_op_code::bit_remove) {
        if (o.byte_offset < -cap_bytes || o.byte_offset > cap_bytes) return true;
        if (c == bit_op_code::bit_insert && o.value.empty()) return true;
        if (c == bit_op_code::bit_remove && (o.byte_size <= 0 || o.byte_size > cap_bytes))
            return true;
        return !flag_ok(c, o.policy.flags);
    }
    if (o.bit_offset < -cap_bits || o.bit_offset > cap_bits) return true;
    const std::int64_t max_size = is_int_op(c) ? 64 : cap_bits;
    if (o.bit_size <= 0 || o.bit_size > max_size) return true;
    if (takes_bytes(c) && (o.value.empty() || static_cast<std::int64_t>(o.value.size()) * 8 < o.bit_size))
        return true;
    if ((c == bit_op_code::bit_lshift || c == bit_op_code::bit_rshift) &&
        (o.shift < 0 || o.shift > cap_bits))
        return true;
    if (!flag_ok(c, o.policy.flags)) return true;
    if (c == bit_op_code::bit_add || c == bit_op_code::bit_subtract) {
        const int a = static_cast<int>(o.action);
        if (a != 0 && a != 2 && a != 4) return true;
    }
    return false;
}

/// n-bit two's complement add or subtract, bit by bit: the wrapped result and
/// whether the exact result is out of range.
struct arith {
    std::vector<bool> sum;
    bool unsigned_overflow = false;
    bool signed_overflow = false;
};
arith add_bits(const std::vector<bool>& a, const std::vector<bool>& b, bool subtract) {
    const std::size_t n = a.size();
    arith r;
    r.sum.assign(n, false);
    // a - b = a + ~b + 1; the carry out is 1 when no borrow happened.
    bool carry = subtract;
    for (std::size_t k = n; k-- > 0;) {
        const bool x = a[k];
        const bool y = subtract ? !b[k] : b[k];
        r.sum[k] = x ^ y ^ carry;
        carry = (x && y) || (carry && (x ^ y));
    }
    r.unsigned_overflow = subtract ? !carry : carry;
    // Signed, as the server tests it (particle_blob.c handle_signed_overflow):
    // the operand is b for add and -b (n-bit two's complement) for subtract;
    // a negative load and operand giving a positive sum, or a positive load
    // and operand giving a negative one, overflow. Zero is neither sign.
    std::vector<bool> operand = b;
    if (subtract) {
        for (std::size_t k = 0; k < n; ++k) operand[k] = !operand[k];
        for (std::size_t k = n; k-- > 0;) { // + 1
            operand[k] = !operand[k];
            if (operand[k]) break;
        }
    }
    auto negative = [](const std::vector<bool>& x) { return x[0]; };
    auto positive = [](const std::vector<bool>& x) {
        return !x[0] && std::find(x.begin(), x.end(), true) != x.end();
    };
    r.signed_overflow = (negative(a) && negative(operand) && positive(r.sum)) ||
                        (positive(a) && positive(operand) && negative(r.sum));
    return r;
}

std::vector<bool> int_bits(std::uint64_t v, std::size_t n) {
    std::vector<bool> out(n);
    for (std::size_t k = 0; k < n; ++k) out[n - 1 - k] = ((v >> k) & 1U) != 0;
    return out;
}

ref_out ref_apply(model& m, const bit_op& o) {
    const bit_op_code c = o.code;
    const std::uint32_t f = o.policy.flags;
    const bool no_fail = has(f, 4);
    auto deny = [&](status s) { return no_fail ? ref_out{} : ref_out{s, {}}; };
    if (is_read(c) && !m.exists) return {};
    if (bad_args(o)) return {status::parameter_error, {}};
    if (m.exists) {
        if (!is_read(c) && has(f, 1)) return deny(status::bin_exists_error);
        if (!m.blob) return {status::bin_type_error, {}};
    } else if ((c != bit_op_code::bit_insert && c != bit_op_code::bit_resize) || has(f, 2)) {
        return deny(status::bin_not_found);
    }
    const auto nbits = static_cast<std::int64_t>(m.bits.size());
    const std::int64_t nbytes = nbits / 8;

    if (c == bit_op_code::bit_resize) {
        const std::int64_t want = o.byte_size;
        if (want == nbytes) return {};
        if (want < nbytes && has(o.resize_flags, 2)) return deny(status::parameter_error);
        if (want > nbytes && has(o.resize_flags, 4)) return deny(status::parameter_error);
        if (want >= cap_bytes) return {status::parameter_error, {}};
        if (want > record_cap) return {status::record_too_big, {}};
        std::vector<bool> v = m.bits;
        const bool front = has(o.resize_flags, 1);
        while (static_cast<std::int64_t>(v.size()) < want * 8) {
            if (front) v.insert(v.begin(), false);
            else v.push_back(false);
        }
        while (static_cast<std::int64_t>(v.size()) > want * 8) {
            if (front) v.erase(v.begin());
            else v.pop_back();
        }
        m.exists = true;
        m.bits = v;
        return {};
    }

    // Offsets: bits, or bytes for insert/remove; negative from the end.
    const bool byte_op = c == bit_op_code::bit_insert || c == bit_op_code::bit_remove;
    std::int64_t off = byte_op ? o.byte_offset * 8 : o.bit_offset;
    if (off < 0) {
        if (!m.exists) return {status::parameter_error, {}};
        if (off + nbits < 0) return {status::parameter_error, {}};
        off += nbits;
    }

    if (c == bit_op_code::bit_insert) {
        const std::int64_t at = off / 8;
        const std::int64_t total = (at > nbytes ? at : nbytes) + static_cast<std::int64_t>(o.value.size());
        if (total >= cap_bytes) return {status::parameter_error, {}};
        if (total > record_cap) return {status::record_too_big, {}};
        std::vector<bool> v = m.bits;
        while (static_cast<std::int64_t>(v.size()) < at * 8) v.push_back(false);
        std::vector<bool> ins = to_bits(o.value);
        v.insert(v.begin() + at * 8, ins.begin(), ins.end());
        m.exists = true;
        m.bits = v;
        return {};
    }
    if (c == bit_op_code::bit_remove) {
        const std::int64_t at = off / 8;
        if (at >= nbytes) return deny(status::parameter_error);
        std::int64_t end = at + o.byte_size;
        if (end > nbytes) {
            if (!has(f, 8)) return deny(status::parameter_error);
            end = nbytes;
        }
        m.bits.erase(m.bits.begin() + at * 8, m.bits.begin() + end * 8);
        return {};
    }

    // A bit range.
    std::int64_t n = o.bit_size;
    const status range_error = status::op_not_applicable;
    if (off >= nbits) return is_read(c) ? ref_out{range_error, {}} : deny(range_error);
    if (off + n > nbits) {
        if (is_read(c)) return {range_error, {}};
        if (!has(f, 8)) return deny(range_error);
        n = nbits - off; // PARTIAL (only the range ops accept it)
    }
    std::vector<bool> range(m.bits.begin() + off, m.bits.begin() + off + n);
    const auto un = static_cast<std::size_t>(n);

    switch (c) {
    case bit_op_code::bit_get: {
        std::vector<bool> padded = range;
        padded.resize((un + 7) / 8 * 8, false);
        return {status::ok, value(to_bytes_of(padded))};
    }
    case bit_op_code::bit_count: {
        std::int64_t k = 0;
        for (bool x : range) k += x ? 1 : 0;
        return {status::ok, value(k)};
    }
    case bit_op_code::bit_lscan:
        for (std::size_t i = 0; i < un; ++i)
            if (range[i] == o.scan_value) return {status::ok, value(static_cast<std::int64_t>(i))};
        return {status::ok, value(-1)};
    case bit_op_code::bit_rscan: {
        for (std::size_t i = un; i-- > 0;)
            if (range[i] == o.scan_value) return {status::ok, value(static_cast<std::int64_t>(i))};
        // Not in the range: the server also looks at the bits of the first
        // byte before the range (it never masks them) and answers the last
        // match there as a negative distance.
        auto first_byte = static_cast<std::size_t>(off / 8 * 8);
        for (auto i = static_cast<std::size_t>(off); i-- > first_byte;)
            if (m.bits[i] == o.scan_value)
                return {status::ok, value(static_cast<std::int64_t>(i) - off)};
        return {status::ok, value(-1)};
    }
    case bit_op_code::bit_get_int: {
        std::uint64_t v = 0;
        for (bool x : range) v = (v << 1) | (x ? 1U : 0U);
        if (o.sign && range[0]) // sign-extend by filling the high bits with ones
            for (std::size_t k = un; k < 64; ++k) v |= std::uint64_t{1} << k;
        return {status::ok, value(static_cast<std::int64_t>(v))};
    }
    default: break;
    }

    std::vector<bool> out = range;
    switch (c) {
    case bit_op_code::bit_set:
    case bit_op_code::bit_or:
    case bit_op_code::bit_xor:
    case bit_op_code::bit_and:
        for (std::size_t i = 0; i < un; ++i) {
            const bool v = bit_of(o.value, i);
            out[i] = c == bit_op_code::bit_set  ? v
                     : c == bit_op_code::bit_or ? (range[i] || v)
                     : c == bit_op_code::bit_xor ? (range[i] != v)
                                                 : (range[i] && v);
        }
        break;
    case bit_op_code::bit_not:
        for (std::size_t i = 0; i < un; ++i) out[i] = !range[i];
        break;
    case bit_op_code::bit_lshift:
        for (std::size_t i = 0; i < un; ++i) {
            const auto src = static_cast<std::int64_t>(i) + o.shift;
            out[i] = src < n ? range[static_cast<std::size_t>(src)] : false;
        }
        break;
    case bit_op_code::bit_rshift:
        for (std::size_t i = 0; i < un; ++i) {
            const auto src = static_cast<std::int64_t>(i) - o.shift;
            out[i] = src >= 0 ? range[static_cast<std::size_t>(src)] : false;
        }
        break;
    case bit_op_code::bit_set_int: out = int_bits(static_cast<std::uint64_t>(o.int_value), un); break;
    case bit_op_code::bit_add:
    case bit_op_code::bit_subtract: {
        const arith r = add_bits(range, int_bits(static_cast<std::uint64_t>(o.int_value), un),
                                 c == bit_op_code::bit_subtract);
        const bool over = o.sign ? r.signed_overflow : r.unsigned_overflow;
        out = r.sum;
        if (over && o.action == bit_overflow_action::fail) return deny(status::op_not_applicable);
        if (over && o.action == bit_overflow_action::saturate) {
            if (!o.sign) {
                out.assign(un, c == bit_op_code::bit_add);
            } else {
                // An overflow goes past the end the loaded value's sign points
                // to: below the minimum if it was negative, else above the maximum.
                const bool to_min = range[0];
                out.assign(un, !to_min);
                out[0] = to_min;
            }
        }
        break;
    }
    default: break;
    }
    for (std::size_t i = 0; i < un; ++i) m.bits[static_cast<std::size_t>(off) + i] = out[i];
    return {};
}

// --- random ops --------------------------------------------------------------------

struct gen {
    std::mt19937_64 rng;
    explicit gen(std::uint64_t seed) : rng(seed) {}

    std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
        return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    }
    bool chance(int percent) { return uniform(0, 99) < percent; }

    bytes random_bytes(std::size_t n) {
        bytes b(n);
        const int style = static_cast<int>(uniform(0, 3));
        for (auto& x : b)
            x = style == 0   ? std::uint8_t{0}
                : style == 1 ? std::uint8_t{0xFF}
                             : static_cast<std::uint8_t>(uniform(0, 255));
        return b;
    }

    /// A bit offset near something interesting for a blob of nbits bits.
    std::int64_t offset(std::int64_t nbits) {
        switch (uniform(0, 9)) {
        case 0: return uniform(-nbits - 9, -1);
        case 1: return nbits - uniform(0, 9);
        case 2: return uniform(0, 3) * 8 + uniform(-1, 1);
        case 3:
            if (chance(50)) return chance(50) ? cap_bits + uniform(-1, 1) : -cap_bits + uniform(-1, 1);
            return uniform(0, nbits);
        default: return uniform(0, nbits + 4);
        }
    }
    std::int64_t size(std::int64_t nbits, bool integer) {
        if (integer) {
            switch (uniform(0, 11)) {
            case 0: return uniform(-1, 0);
            case 1: return 64 + uniform(0, 1);
            case 2: return uniform(1, 8) * 8;
            default: return uniform(1, 64);
            }
        }
        switch (uniform(0, 19)) {
        case 0: return uniform(-1, 0);
        case 1: return cap_bits + uniform(-1, 1);
        case 2:
        case 3: return uniform(1, 4) * 8;
        case 4:
        case 5:
        case 6: return uniform(nbits - 2, nbits + 2);
        default: return uniform(1, nbits > 1 ? nbits : 12);
        }
    }
    std::int64_t int_value() {
        switch (uniform(0, 5)) {
        case 0: return uniform(-3, 3);
        case 1: return INT64_MIN + uniform(0, 2);
        case 2: return INT64_MAX - uniform(0, 2);
        case 3: {
            const auto k = static_cast<int>(uniform(0, 63));
            // 2^k - 1, 2^k or 2^k + 1, wrapping in uint64 (no signed overflow).
            return static_cast<std::int64_t>((std::uint64_t{1} << k) +
                                             static_cast<std::uint64_t>(uniform(0, 2)) - 1);
        }
        default: return static_cast<std::int64_t>(rng());
        }
    }
    std::uint32_t flags(bit_op_code c) {
        if (chance(35)) return 0;
        if (chance(4)) return static_cast<std::uint32_t>(uniform(0, 31));
        const bool takes_partial = !is_int_op(c) && c != bit_op_code::bit_resize &&
                                   c != bit_op_code::bit_insert;
        std::uint32_t f = 0;
        if (chance(30)) f |= bit_write_flags::no_fail;
        if (chance(takes_partial ? 40 : 3)) f |= bit_write_flags::partial;
        if (chance(15)) f |= bit_write_flags::update_only;
        if ((c == bit_op_code::bit_insert || c == bit_op_code::bit_resize) && chance(20))
            f |= bit_write_flags::create_only;
        return f;
    }

    bit_op op(const model& m) {
        const std::int64_t nbits = static_cast<std::int64_t>(m.bits.size());
        const auto pick = uniform(0, static_cast<std::int64_t>(all_bit_op_codes.size()) - 1);
        const bit_op_code c = all_bit_op_codes[static_cast<std::size_t>(pick)];
        bit_op o;
        o.code = c;
        o.bit_offset = offset(nbits);
        o.bit_size = size(nbits, is_int_op(c));
        o.byte_offset = chance(5) ? cap_bytes + uniform(-1, 1) : uniform(-nbits / 8 - 2, nbits / 8 + 3);
        o.byte_size = chance(5) ? (chance(50) ? cap_bytes + uniform(-1, 1) : record_cap + 1)
                                : uniform(-1, nbits / 8 + 4);
        o.shift = chance(4) ? cap_bits + uniform(-1, 1) : uniform(-1, o.bit_size > 0 ? o.bit_size + 3 : 9);
        if (takes_bytes(c)) {
            std::int64_t need = o.bit_size > 0 && o.bit_size < 4096 ? (o.bit_size + 7) / 8 : 2;
            if (c == bit_op_code::bit_insert) need = uniform(1, 4);
            std::int64_t len = need + (chance(90) ? uniform(0, 2) : uniform(-need, 0));
            o.value = random_bytes(static_cast<std::size_t>(len < 0 ? 0 : len));
        }
        o.int_value = int_value();
        o.scan_value = chance(50);
        o.sign = chance(50);
        const int a = static_cast<int>(uniform(0, 20));
        o.action = a < 7 ? bit_overflow_action::fail
                   : a < 13 ? bit_overflow_action::saturate
                   : a < 20 ? bit_overflow_action::wrap
                            : static_cast<bit_overflow_action>(chance(50) ? 1 : 6);
        o.resize_flags = chance(5) ? static_cast<std::uint32_t>(uniform(0, 15))
                                   : static_cast<std::uint32_t>(uniform(0, 1)) |
                                         (chance(30) ? bit_resize_flags::grow_only : 0) |
                                         (chance(30) ? bit_resize_flags::shrink_only : 0);
        o.policy.flags = flags(c);
        if (is_read(c) && chance(90)) o.policy.flags = 0;
        return o;
    }

    model fresh() {
        model m;
        const auto k = uniform(0, 9);
        if (k == 0) return m; // missing bin
        m.exists = true;
        if (k == 1) {
            m.blob = false;
            return m;
        }
        const std::size_t n = k == 2 ? 0 : static_cast<std::size_t>(uniform(1, chance(10) ? 64 : 12));
        m.bits = to_bits(random_bytes(n));
        return m;
    }
};

std::string hex(const bytes& b) {
    std::ostringstream s;
    for (std::uint8_t x : b) s << "0123456789abcdef"[x >> 4] << "0123456789abcdef"[x & 15];
    return s.str();
}
std::string describe(const std::optional<value>& bin) {
    if (!bin) return "missing";
    if (!bin->is_bytes()) return to_string(*bin);
    return "0x" + hex(bin->as_bytes());
}
std::string describe(const bit_op& o) {
    std::ostringstream s;
    s << bit_op_name(o.code) << " {bit_offset " << o.bit_offset << ", bit_size " << o.bit_size
      << ", byte_offset " << o.byte_offset << ", byte_size " << o.byte_size << ", shift "
      << o.shift << ", value 0x" << hex(o.value) << ", int_value " << o.int_value << ", scan "
      << o.scan_value << ", sign " << o.sign << ", action " << static_cast<int>(o.action)
      << ", resize_flags " << o.resize_flags << ", flags " << o.policy.flags << "}";
    return s.str();
}

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return fallback;
    return std::strtoull(v, nullptr, 10);
}

} // namespace

TEST_CASE("bit ops match a bit-by-bit reference on random ops", "[cdt][bit_fuzz]") {
    const std::uint64_t seed = env_u64("KVMODEL_SEED", 20260415);
    const std::uint64_t n_ops = env_u64("KVMODEL_FUZZ_OPS", 300000);
    std::cout << "bit_fuzz: seed " << seed << ", " << n_ops << " ops (KVMODEL_SEED, KVMODEL_FUZZ_OPS)\n";
    gen g(seed);
    model m = g.fresh();
    std::uint64_t divergences = 0;
    std::uint64_t ok_ops = 0;
    std::uint64_t by_status[64] = {};
    std::uint64_t ok_by_op[64] = {};
    for (std::uint64_t step = 0; step < n_ops && divergences < 5; ++step) {
        if (g.chance(3) || m.bits.size() > 8 * 4096) m = g.fresh();
        const bit_op o = g.op(m);
        const std::optional<value> before = to_bin(m);

        std::optional<value> bin = before;
        const result<value> got = apply_bit_op(bin, o);
        model expect_model = m;
        const ref_out want = ref_apply(expect_model, o);
        const std::optional<value> want_bin = want.code == status::ok ? to_bin(expect_model) : before;

        const bool same = got.code() == want.code &&
                          (!got.has_value() || *got == want.result) && bin == want_bin;
        if (!same) {
            ++divergences;
            std::ostringstream s;
            s << "divergence at step " << step << " (seed " << seed << ")\n"
              << "  bin before: " << describe(before) << "\n  op: " << describe(o)
              << "\n  engine:    " << status_name(got.code()) << " "
              << (got.has_value() ? to_string(*got) : got.error().message)
              << ", bin after " << describe(bin) << "\n  reference: " << status_name(want.code)
              << " " << to_string(want.result) << ", bin after " << describe(want_bin)
              << "\n  reproduce: std::optional<value> bin = <bin before>; apply_bit_op(bin, op)";
            FAIL_CHECK(s.str());
            continue;
        }
        if (want.code == status::ok) {
            m = expect_model;
            ++ok_ops;
            ++ok_by_op[static_cast<std::size_t>(o.code)];
        }
        const auto code = static_cast<std::size_t>(status_code(want.code));
        if (code < 64) ++by_status[code];
    }
    std::cout << "bit_fuzz: " << ok_ops << " applied, errors by code:";
    for (std::size_t c = 1; c < 64; ++c)
        if (by_status[c] != 0) std::cout << " " << c << "=" << by_status[c];
    std::cout << "\n";
    CHECK(divergences == 0);
    for (bit_op_code c : all_bit_op_codes) {
        INFO(bit_op_name(c));
        CHECK(ok_by_op[static_cast<std::size_t>(c)] > n_ops / 200);
    }
    // The generator must reach both outcomes in bulk, or the test proves little.
    CHECK(ok_ops > n_ops / 4);
}

} // namespace cdt_bit_fuzz_test
