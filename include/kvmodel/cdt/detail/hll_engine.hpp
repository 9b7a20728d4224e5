// kvmodel/cdt/detail/hll_engine.hpp
//
// The engine behind cdt::apply_hll_op (cdt/hll_ops.hpp): the sketch (register
// packing, MurmurHash3, the estimators) and the op rules in the server's
// order: the bin's type, the arguments, the CREATE_ONLY / UPDATE_ONLY flags,
// then the op's own preconditions, and only then the new sketch, which is
// built aside and moved into the bin, so an error leaves the bin as it was.
// Register access goes through get / set, which only touch the sketch's
// register bytes.
#pragma once

#include <kvmodel/adapters/detail/aerospike_wire.hpp>
#include <kvmodel/cdt/hll_ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/core/value.hpp>

#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kvmodel::cdt::detail::hll {

namespace lim = ::kvmodel::cdt::hll_limits;

// --- the hash ------------------------------------------------------------------

/// MurmurHash3 x64_128 with seed 0 (Austin Appleby's public-domain
/// algorithm, as aerospike-common's cf_hash_math.h uses it): {h1, h2}.
inline std::array<std::uint64_t, 2> murmur3_x64_128(const std::uint8_t* p, std::size_t len) {
    constexpr std::uint64_t c1 = 0x87c37b91114253d5ULL;
    constexpr std::uint64_t c2 = 0x4cf5ad432745937fULL;
    auto load = [](const std::uint8_t* q) {
        std::uint64_t v = 0;
        for (int i = 7; i >= 0; --i)
            v = (v << 8) | q[i];
        return v;
    };
    auto fmix = [](std::uint64_t k) {
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        k *= 0xc4ceb9fe1a85ec53ULL;
        k ^= k >> 33;
        return k;
    };
    // The two lanes' key mixing, used by the blocks and the tail alike.
    auto mix1 = [](std::uint64_t k) {
        return std::rotl(k * c1, 31) * c2;
    };
    auto mix2 = [](std::uint64_t k) {
        return std::rotl(k * c2, 33) * c1;
    };
    std::uint64_t h1 = 0;
    std::uint64_t h2 = 0;
    const std::size_t nblocks = len / 16;
    for (std::size_t i = 0; i < nblocks; ++i) {
        h1 ^= mix1(load(p + i * 16));
        h1 = std::rotl(h1, 27) + h2;
        h1 = h1 * 5 + 0x52dce729;
        h2 ^= mix2(load(p + i * 16 + 8));
        h2 = std::rotl(h2, 31) + h1;
        h2 = h2 * 5 + 0x38495ab5;
    }
    const std::uint8_t* tail = p + nblocks * 16;
    const std::size_t rest = len & 15;
    std::uint64_t k1 = 0;
    std::uint64_t k2 = 0;
    for (std::size_t i = rest; i > 8; --i)
        k2 ^= std::uint64_t{tail[i - 1]} << (8 * (i - 9));
    if (rest > 8)
        h2 ^= mix2(k2);
    for (std::size_t i = rest < 8 ? rest : 8; i > 0; --i)
        k1 ^= std::uint64_t{tail[i - 1]} << (8 * (i - 1));
    if (rest > 0)
        h1 ^= mix1(k1);
    h1 ^= len;
    h2 ^= len;
    h1 += h2;
    h2 += h1;
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 += h2;
    h2 += h1;
    return {h1, h2};
}

// --- the sketch ------------------------------------------------------------------

inline bool valid_index_bits(std::uint64_t i) noexcept {
    return i >= lim::min_index_bits && i <= lim::max_index_bits;
}
inline bool valid_minhash_bits(std::uint64_t m) noexcept {
    return m == 0 || (m >= lim::min_minhash_bits && m <= lim::max_minhash_bits);
}
inline bool valid_bits(std::uint64_t i, std::uint64_t m) noexcept {
    return valid_index_bits(i) && valid_minhash_bits(m) && i + m <= lim::max_index_and_minhash_bits;
}
inline std::size_t registers_bytes(unsigned i, unsigned m) noexcept {
    return ((lim::hll_bits + std::size_t{m}) * (std::size_t{1} << i) + 7) / 8;
}
inline std::size_t sketch_bytes(unsigned i, unsigned m) noexcept {
    return lim::header_bytes + registers_bytes(i, m);
}

/// A view of sketch bytes (header + registers); the bytes must be a sketch
/// of the size its header says.
struct view {
    const std::uint8_t* p = nullptr;

    unsigned index_bits() const noexcept { return p[1]; }
    unsigned minhash_bits() const noexcept { return p[2]; }
    std::uint32_t n_registers() const noexcept { return std::uint32_t{1} << p[1]; }
    unsigned register_bits() const noexcept { return lim::hll_bits + p[2]; }
    std::uint64_t cache() const noexcept {
        std::uint64_t v = 0;
        for (int k = 7; k >= 0; --k)
            v = (v << 8) | p[3 + k];
        return v;
    }
    const std::uint8_t* regs() const noexcept { return p + lim::header_bytes; }
    /// Register r: its bits, most significant first, from bit r * register_bits.
    std::uint64_t get(std::uint32_t r) const noexcept {
        const unsigned nb = register_bits();
        const std::uint64_t bit = std::uint64_t{nb} * r;
        const std::uint8_t* q = regs() + bit / 8;
        const unsigned lead = static_cast<unsigned>(bit % 8);
        const unsigned nbytes = (lead + nb + 7) / 8;
        std::uint64_t w = 0;
        for (unsigned k = 0; k < nbytes; ++k)
            w = (w << 8) | q[k];
        w >>= nbytes * 8 - lead - nb;
        return w & ((std::uint64_t{1} << nb) - 1);
    }
    unsigned hll_value(std::uint64_t reg) const noexcept {
        return static_cast<std::uint8_t>(reg >> minhash_bits());
    }
};

/// A sketch being built.
struct sketch {
    kvmodel::bytes b;

    sketch(unsigned i, unsigned m)
        : b(sketch_bytes(i, m), 0) {
        b[1] = static_cast<std::uint8_t>(i);
        b[2] = static_cast<std::uint8_t>(m);
    }
    explicit sketch(view v)
        : b(v.p, v.p + sketch_bytes(v.index_bits(), v.minhash_bits())) {}

    view v() const noexcept { return view{b.data()}; }
    void set_cache(std::uint64_t c) noexcept {
        for (unsigned k = 0; k < 8; ++k)
            b[3 + k] = static_cast<std::uint8_t>(c >> (8 * k));
    }
    /// Writes the low register_bits of value to register r (higher bits are
    /// dropped, as the server's packing drops them).
    void set(std::uint32_t r, std::uint64_t value) noexcept {
        const unsigned nb = v().register_bits();
        const std::uint64_t bit = std::uint64_t{nb} * r;
        std::uint8_t* q = b.data() + lim::header_bytes + bit / 8;
        const unsigned lead = static_cast<unsigned>(bit % 8);
        const unsigned nbytes = (lead + nb + 7) / 8;
        const unsigned shift = nbytes * 8 - lead - nb;
        const std::uint64_t mask = ((std::uint64_t{1} << nb) - 1) << shift;
        std::uint64_t w = 0;
        for (unsigned k = 0; k < nbytes; ++k)
            w = (w << 8) | q[k];
        w = (w & ~mask) | ((value << shift) & mask);
        for (unsigned k = nbytes; k > 0; --k) {
            q[k - 1] = static_cast<std::uint8_t>(w);
            w >>= 8;
        }
    }
};

/// The register an element goes to and the value it offers.
struct hashed {
    std::uint32_t reg;
    std::uint64_t value;
};
inline hashed hash_element(view h, std::span<const std::uint8_t> element) {
    const auto hv = murmur3_x64_128(element.data(), element.size());
    const unsigned i = h.index_bits();
    const unsigned m = h.minhash_bits();
    const auto reg = static_cast<std::uint32_t>(static_cast<std::uint16_t>(hv[0]) &
                                                ((std::uint32_t{1} << i) - 1));
    const std::uint64_t minhash = (hv[0] >> i) & ((std::uint64_t{1} << m) - 1);
    const unsigned tz = hv[1] == 0 ? 64U : static_cast<unsigned>(std::countr_zero(hv[1]));
    const auto hll_val = static_cast<std::uint8_t>(tz + 1);
    return {reg, (std::uint64_t{hll_val} << m) | minhash};
}

/// Adds one element; true when a register changed (which clears the cache).
inline bool add(sketch& s, std::span<const std::uint8_t> element) {
    const hashed x = hash_element(s.v(), element);
    if (s.v().get(x.reg) < x.value) {
        s.set(x.reg, x.value);
        s.set_cache(0);
        return true;
    }
    return false;
}
inline bool may_contain(view h, std::span<const std::uint8_t> element) {
    const hashed x = hash_element(h, element);
    return x.value <= h.get(x.reg);
}

inline double tau(double x) {
    if (x == 0.0 || x == 1.0)
        return 0.0;
    double z_prev = 0;
    double y = 1.0;
    double z = 1 - x;
    do {
        x = std::sqrt(x);
        z_prev = z;
        y *= 0.5;
        z -= std::pow(1 - x, 2) * y;
    } while (z_prev != z);
    return z / 3;
}
inline double sigma(double x) {
    if (x == 1.0)
        return std::numeric_limits<double>::infinity();
    double z_prev = 0;
    double y = 1;
    double z = x;
    do {
        x *= x;
        z_prev = z;
        z += x * y;
        y += y;
    } while (z_prev != z);
    return z;
}
inline double alpha(unsigned index_bits) {
    switch (index_bits) {
    case 4:
        return 0.673;
    case 5:
        return 0.697;
    case 6:
        return 0.709;
    default:
        return 0.7213 / (1.0 + 1.079 / static_cast<double>(1U << index_bits));
    }
}

/// The count (the cached one when set).
inline std::uint64_t estimate(view h) {
    if (const std::uint64_t c = h.cache(); c != 0)
        return c;
    constexpr unsigned q = 1U << lim::hll_bits;
    const std::uint32_t n = h.n_registers();
    std::array<std::uint32_t, q + 1> c{};
    for (std::uint32_t r = 0; r < n; ++r)
        ++c[h.hll_value(h.get(r))];
    const double nd = n;
    double z = nd * tau(c[q] / nd);
    for (unsigned k = q; k > 0; --k)
        z = 0.5 * (z + c[k]);
    z += nd * sigma(c[0] / nd);
    return static_cast<std::uint64_t>(std::llround(alpha(h.index_bits()) * nd * nd / z));
}

/// The index / minhash bits a union of the sketches has.
struct bits_pair {
    unsigned index;
    unsigned minhash;
};
inline bits_pair compatible(std::span<const view> hs) {
    bits_pair t{hs[0].index_bits(), hs[0].minhash_bits()};
    for (std::size_t k = 1; k < hs.size(); ++k) {
        if (t.index > hs[k].index_bits())
            t.index = hs[k].index_bits();
        if (t.minhash != 0 && t.minhash != hs[k].minhash_bits())
            t.minhash = 0;
    }
    return t;
}

/// Merges h into u (u has no more index bits than h, and either no minhash
/// bits or h's).
inline void merge(sketch& u, view h) {
    const view uv = u.v();
    const std::uint32_t mask = uv.n_registers() - 1;
    const std::uint32_t n = h.n_registers();
    const bool full = uv.minhash_bits() != 0;
    for (std::uint32_t r = 0; r < n; ++r) {
        const std::uint32_t ur = r & mask;
        if (full) {
            const std::uint64_t a = uv.get(ur);
            const std::uint64_t b = h.get(r);
            if (a < b)
                u.set(ur, b);
        } else {
            const unsigned a = uv.hll_value(uv.get(ur));
            const unsigned b = h.hll_value(h.get(r));
            if (a < b)
                u.set(ur, b);
        }
    }
    if (full)
        u.set_cache(0);
}

inline sketch union_of(std::span<const view> hs) {
    const bits_pair t = compatible(hs);
    sketch u(t.index, t.minhash);
    for (const view& h : hs)
        merge(u, h);
    return u;
}

inline std::uint64_t union_count(std::span<const view> hs) {
    return estimate(union_of(hs).v());
}

inline bool has_data(view h) {
    // The server looks at the first 2^index_bits register bytes only (its
    // sketches with minhash bits have at least that many).
    const std::uint8_t* r = h.regs();
    for (std::uint32_t k = 0; k < h.n_registers(); ++k)
        if (r[k] != 0)
            return true;
    return false;
}

inline std::uint32_t used_registers(view h) {
    std::uint32_t n = 0;
    for (std::uint32_t r = 0; r < h.n_registers(); ++r)
        if (h.get(r) != 0)
            ++n;
    return n;
}

inline void intersect_one(sketch& a, view h) {
    const std::uint32_t mask = a.v().n_registers() - 1;
    for (std::uint32_t r = 0; r < h.n_registers(); ++r) {
        const std::uint32_t sr = r & mask;
        const std::uint64_t x = a.v().get(sr);
        const std::uint64_t y = h.get(r);
        a.set(sr, x == y ? x : 0);
    }
}

inline double collisions(bits_pair t, std::uint64_t card0, std::uint64_t card1) {
    double cp = 0.0;
    const std::uint32_t n = std::uint32_t{1} << t.index;
    const std::uint32_t buckets = std::uint32_t{1} << lim::hll_bits;
    for (std::int32_t i = 1; static_cast<std::uint32_t>(i) <= buckets; ++i) {
        double b1 = 0;
        double b2 = 0;
        if (static_cast<std::uint32_t>(i) != buckets) {
            b1 = std::pow(2, -i);
            b2 = std::pow(2, -i + 1);
        } else {
            b1 = 0.0;
            b2 = std::pow(2, -i + 1);
        }
        b1 /= n;
        b2 /= n;
        const double px = std::pow(1 - b1, static_cast<double>(card0)) -
                          std::pow(1 - b2, static_cast<double>(card0));
        const double py = std::pow(1 - b1, static_cast<double>(card1)) -
                          std::pow(1 - b2, static_cast<double>(card1));
        cp += px * py;
    }
    return cp * n / std::pow(2, t.minhash);
}

inline std::uint64_t intersect_count(std::span<const view> hs);

inline double hll_similarity(std::span<const view> hs);

inline double similarity(std::span<const view> hs) {
    const bits_pair t = compatible(hs);
    if (t.minhash == 0)
        return hll_similarity(hs);
    bool one_has_data = false;
    bool one_is_empty = false;
    for (const view& h : hs) {
        if (has_data(h))
            one_has_data = true;
        else
            one_is_empty = true;
    }
    if (one_is_empty)
        return one_has_data ? 0.0 : std::numeric_limits<double>::quiet_NaN();
    const std::uint32_t n_union = used_registers(union_of(hs).v());
    sketch agg(t.index, t.minhash);
    merge(agg, hs[0]);
    for (std::size_t k = 1; k < hs.size(); ++k)
        intersect_one(agg, hs[k]);
    const std::uint32_t n_intersect = used_registers(agg.v());
    double ec = 0.0;
    if (hs.size() == 2)
        ec = collisions(t, estimate(hs[0]), estimate(hs[1]));
    double r = (n_intersect - ec) / static_cast<double>(n_union);
    return r < 0.0 ? 0.0 : r;
}

/// Inclusion-exclusion over 2 or 3 sketches without common minhash bits.
inline std::uint64_t hll_intersect_count(std::span<const view> hs) {
    const std::uint64_t cu = union_count(hs);
    std::uint64_t sum = 0;
    for (const view& h : hs) {
        const std::uint64_t c = estimate(h);
        if (sum + c < sum) {
            sum = std::numeric_limits<std::uint64_t>::max();
            break;
        }
        sum += c;
    }
    if (hs.size() == 2)
        return sum > cu ? sum - cu : 0;
    const std::array<view, 2> ac{hs[0], hs[2]};
    const std::uint64_t pairs =
        intersect_count(hs.subspan(0, 2)) + intersect_count(hs.subspan(1, 2)) + intersect_count(ac);
    const std::int64_t r = static_cast<std::int64_t>(cu) -
                           (static_cast<std::int64_t>(sum) - static_cast<std::int64_t>(pairs));
    return r < 0 ? 0 : static_cast<std::uint64_t>(r);
}

inline std::uint64_t intersect_count(std::span<const view> hs) {
    if (compatible(hs).minhash == 0)
        return hll_intersect_count(hs);
    const double j = similarity(hs);
    if (std::isnan(j))
        return 0;
    const std::uint64_t cu = union_count(hs);
    return static_cast<std::uint64_t>(std::llround(static_cast<double>(cu) * j));
}

inline double hll_similarity(std::span<const view> hs) {
    const std::uint64_t i = hll_intersect_count(hs);
    const std::uint64_t u = union_count(hs);
    return static_cast<double>(i) / static_cast<double>(u);
}

// --- the op rules ------------------------------------------------------------------

inline error op_error(status code, hll_op_code c, const std::string& what) {
    return error{code, std::string(hll_op_name(c)) + ": " + what};
}

inline bool known_code(hll_op_code c) noexcept {
    for (hll_op_code k : all_hll_op_codes)
        if (k == c)
            return true;
    return false;
}

/// The flags each modify op accepts; reads accept none.
constexpr std::uint64_t allowed_flags(hll_op_code c) noexcept {
    namespace f = hll_write_flags;
    switch (c) {
    case hll_op_code::hll_init:
        return f::create_only | f::update_only | f::no_fail;
    case hll_op_code::hll_add:
        return f::create_only | f::no_fail;
    case hll_op_code::hll_set_union:
        return f::create_only | f::update_only | f::allow_fold | f::no_fail;
    default:
        return 0;
    }
}

/// The fewest arguments each op takes (the most: arg_parsers(c).size()).
constexpr std::uint8_t min_args(hll_op_code c) noexcept {
    switch (c) {
    case hll_op_code::hll_add:
    case hll_op_code::hll_set_union:
    case hll_op_code::hll_fold:
    case hll_op_code::hll_get_union:
    case hll_op_code::hll_get_union_count:
    case hll_op_code::hll_get_intersect_count:
    case hll_op_code::hll_get_similarity:
    case hll_op_code::hll_may_contain:
        return 1;
    default:
        return 0;
    }
}

/// What parsing leaves: the bits asked for (0xff = unset), the flags, the
/// encoded elements and the operand sketches.
struct parsed {
    unsigned index = 0xff;
    unsigned minhash = 0xff;
    std::uint64_t flags = 0;
    std::vector<std::vector<std::uint8_t>> elements;
    std::vector<view> hlls;
};

/// The sketch in `b`, or why it is not one (the checks the server makes on
/// an operand sketch: flags, each bit count, the size).
inline std::optional<std::string> check_operand(const kvmodel::bytes& b) {
    if (b.size() < lim::header_bytes)
        return "is " + std::to_string(b.size()) + " bytes, fewer than the " +
               std::to_string(lim::header_bytes) + "-byte header";
    if (b[0] != 0)
        return "has unknown flags " + std::to_string(b[0]);
    if (!valid_index_bits(b[1]))
        return "has n_index_bits " + std::to_string(b[1]) + ", not 4..16";
    if (!valid_minhash_bits(b[2]))
        return "has n_minhash_bits " + std::to_string(b[2]) + ", not 0 or 4..51";
    const std::size_t want = sketch_bytes(b[1], b[2]);
    if (b.size() != want)
        return "is " + std::to_string(b.size()) + " bytes, expected " + std::to_string(want);
    return std::nullopt;
}

inline std::optional<error> parse_index(const hll_op& o, parsed& p) {
    const std::int64_t i = o.index_bit_count;
    if (i != -1 && !valid_index_bits(static_cast<std::uint64_t>(i)))
        return op_error(status::parameter_error,
                        o.code,
                        "n_index_bits " + std::to_string(i) + " is out of range 4..16");
    p.index = static_cast<std::uint8_t>(i);
    return std::nullopt;
}
inline std::optional<error> parse_minhash(const hll_op& o, parsed& p) {
    const std::int64_t m = o.mh_bit_count;
    if (m == -1) {
        p.minhash = 0xff;
        return std::nullopt;
    }
    if (!valid_minhash_bits(static_cast<std::uint64_t>(m)))
        return op_error(status::parameter_error,
                        o.code,
                        "n_minhash_bits " + std::to_string(m) + " is out of range (0 or 4..51)");
    if (p.index != 0xff && !valid_bits(p.index, static_cast<std::uint64_t>(m)))
        return op_error(status::parameter_error,
                        o.code,
                        "n_index_bits " + std::to_string(p.index) + " + n_minhash_bits " +
                            std::to_string(m) + " is more than 64");
    p.minhash = static_cast<unsigned>(m);
    return std::nullopt;
}
inline std::optional<error> parse_flags(const hll_op& o, parsed& p) {
    const std::uint64_t f = o.policy.flags;
    if ((f & ~allowed_flags(o.code)) != 0)
        return op_error(status::parameter_error, o.code, "invalid flags " + std::to_string(f));
    if ((f & hll_write_flags::create_only) != 0 && (f & hll_write_flags::update_only) != 0)
        return op_error(
            status::parameter_error, o.code, "flags CREATE_ONLY and UPDATE_ONLY together");
    p.flags = f;
    return std::nullopt;
}
inline std::optional<error> parse_elements(const hll_op& o, parsed& p) {
    if (o.list.empty())
        return op_error(status::parameter_error, o.code, "no elements");
    p.elements.reserve(o.list.size());
    for (std::size_t k = 0; k < o.list.size(); ++k) {
        const value& v = o.list[k];
        if (v.is_list() || v.is_map())
            return op_error(status::parameter_error,
                            o.code,
                            "element " + std::to_string(k) + " is a " +
                                std::string(type_name(v.type())) + " (lists and maps are refused)");
        p.elements.push_back(adapters::detail::encode_msgpack(v));
    }
    return std::nullopt;
}
inline std::optional<error> parse_hlls(const hll_op& o, parsed& p) {
    if (o.hlls.empty())
        return op_error(status::parameter_error, o.code, "no sketches");
    p.hlls.reserve(o.hlls.size());
    for (std::size_t k = 0; k < o.hlls.size(); ++k) {
        if (auto why = check_operand(o.hlls[k]))
            return op_error(
                status::parameter_error, o.code, "sketch " + std::to_string(k) + " " + *why);
        p.hlls.push_back(view{o.hlls[k].data()});
    }
    return std::nullopt;
}
inline std::optional<error> parse_hlls_intersect(const hll_op& o, parsed& p) {
    if (auto e = parse_hlls(o, p))
        return e;
    if (p.hlls.size() <= 2)
        return std::nullopt;
    const unsigned m = p.hlls[0].minhash_bits();
    for (const view& h : p.hlls)
        if (h.minhash_bits() != m)
            return op_error(
                status::parameter_error, o.code, "more than 2 sketches need equal n_minhash_bits");
    if (m == 0)
        return op_error(
            status::parameter_error, o.code, "more than 2 sketches need n_minhash_bits > 0");
    return std::nullopt;
}

using arg_parser = std::optional<error> (*)(const hll_op&, parsed&);

/// The arguments each op reads, in wire order (the server's op tables).
inline std::span<const arg_parser> arg_parsers(hll_op_code c) noexcept {
    static constexpr arg_parser init[] = {parse_index, parse_minhash, parse_flags};
    static constexpr arg_parser add[] = {parse_elements, parse_index, parse_minhash, parse_flags};
    static constexpr arg_parser set_union[] = {parse_hlls, parse_flags};
    static constexpr arg_parser fold[] = {parse_index};
    static constexpr arg_parser hlls[] = {parse_hlls};
    static constexpr arg_parser intersect[] = {parse_hlls_intersect};
    static constexpr arg_parser elements[] = {parse_elements};
    using k = hll_op_code;
    switch (c) {
    case k::hll_init:
        return init;
    case k::hll_add:
        return add;
    case k::hll_set_union:
        return set_union;
    case k::hll_fold:
        return fold;
    case k::hll_get_union:
    case k::hll_get_union_count:
        return hlls;
    case k::hll_get_intersect_count:
    case k::hll_get_similarity:
        return intersect;
    case k::hll_may_contain:
        return elements;
    default:
        return {};
    }
}

/// The op's arguments, in the server's order and with its checks.
inline std::optional<error> parse(const hll_op& o, parsed& p) {
    const std::span<const arg_parser> parsers = arg_parsers(o.code);
    if (o.n_args < min_args(o.code) || o.n_args > parsers.size())
        return op_error(status::parameter_error,
                        o.code,
                        "unexpected number of args " + std::to_string(o.n_args));
    for (std::size_t k = 0; k < o.n_args; ++k)
        if (auto e = parsers[k](o, p))
            return e;
    return std::nullopt;
}

/// Why an existing bin cannot be used as a sketch: BIN_TYPE_ERROR unless it
/// looks like one the server made (then SERVER_ERROR, the server's answer for
/// a stored sketch with bits it does not accept).
inline std::optional<error> check_bin(const value& bin, hll_op_code c) {
    if (!bin.is_bytes())
        return op_error(status::bin_type_error,
                        c,
                        "bin holds a " + std::string(type_name(bin.type())) + ", not an HLL");
    const kvmodel::bytes& b = bin.as_bytes();
    if (auto why = check_operand(b))
        return op_error(status::bin_type_error, c, "bin is not an HLL: it " + *why);
    if (!valid_bits(b[1], b[2]))
        return op_error(status::server_error,
                        c,
                        "bin's HLL has n_index_bits + n_minhash_bits " +
                            std::to_string(b[1] + b[2]) + ", more than 64");
    return std::nullopt;
}

/// The modify ops' preconditions: fills in the result's bits or fails.
inline std::optional<error> prepare(hll_op_code c, parsed& p, const std::optional<view>& old) {
    using k = hll_op_code;
    switch (c) {
    case k::hll_init:
    case k::hll_add:
        if (!old) {
            if (p.index == 0xff)
                return op_error(status::op_not_applicable,
                                c,
                                "cannot create the bin when n_index_bits is unset (-1)");
            if (p.minhash == 0xff)
                p.minhash = 0;
            return std::nullopt;
        }
        if (c == k::hll_add) {
            p.index = old->index_bits();
            p.minhash = old->minhash_bits();
            return std::nullopt;
        }
        if (p.index == 0xff)
            p.index = old->index_bits();
        if (p.minhash == 0xff)
            p.minhash = old->minhash_bits();
        if (!valid_bits(p.index, p.minhash))
            return op_error(status::op_not_applicable,
                            c,
                            "n_index_bits " + std::to_string(p.index) + " + n_minhash_bits " +
                                std::to_string(p.minhash) + " is more than 64");
        return std::nullopt;
    case k::hll_set_union: {
        unsigned min_i = 0xff;
        unsigned min_m = 0xff;
        for (const view& h : p.hlls) {
            if (h.index_bits() < min_i)
                min_i = h.index_bits();
            if (h.minhash_bits() != min_m)
                min_m = min_m == 0xff ? h.minhash_bits() : 0;
        }
        if (!old) {
            p.index = min_i;
            p.minhash = min_m;
            return std::nullopt;
        }
        if ((p.flags & hll_write_flags::allow_fold) == 0) {
            if (old->index_bits() > min_i)
                return op_error(status::op_not_applicable,
                                c,
                                "the bin has " + std::to_string(old->index_bits()) +
                                    " index bits, a sketch " + std::to_string(min_i) +
                                    " (cannot reduce n_index_bits without ALLOW_FOLD)");
            if (old->minhash_bits() != 0 && old->minhash_bits() != min_m)
                return op_error(status::op_not_applicable,
                                c,
                                "cannot reduce n_minhash_bits to zero without ALLOW_FOLD");
            p.index = old->index_bits();
            p.minhash = old->minhash_bits();
        } else {
            p.index = old->index_bits() < min_i ? old->index_bits() : min_i;
            p.minhash = old->minhash_bits() != min_m ? 0 : min_m;
        }
        return std::nullopt;
    }
    case k::hll_refresh_count:
        if (!old)
            return op_error(status::bin_not_found, c, "cannot create the bin");
        return std::nullopt;
    case k::hll_fold:
        if (!old)
            return op_error(status::bin_not_found, c, "cannot create the bin");
        if (old->minhash_bits() > 0)
            return op_error(status::op_not_applicable, c, "cannot fold an HLL with minhash bits");
        if (old->index_bits() < p.index)
            return op_error(
                status::op_not_applicable,
                c,
                "the bin has " + std::to_string(old->index_bits()) + " index bits, fewer than " +
                    (p.index == 0xff ? std::string("-1 (unset)") : std::to_string(p.index)));
        return std::nullopt;
    default:
        return std::nullopt;
    }
}

inline std::vector<view> with_bin(const parsed& p, view bin) {
    std::vector<view> hs = p.hlls;
    hs.push_back(bin);
    return hs;
}

inline std::int64_t as_int(std::uint64_t u) noexcept {
    return static_cast<std::int64_t>(u);
}

inline result<value> read(const hll_op& o, const parsed& p, view bin) {
    using k = hll_op_code;
    switch (o.code) {
    case k::hll_get_count:
        return value(as_int(estimate(bin)));
    case k::hll_get_union:
        return value(std::move(union_of(with_bin(p, bin)).b));
    case k::hll_get_union_count:
        return value(as_int(union_count(with_bin(p, bin))));
    case k::hll_get_intersect_count:
        return value(as_int(intersect_count(with_bin(p, bin))));
    case k::hll_get_similarity:
        return value(similarity(with_bin(p, bin)));
    case k::hll_describe: {
        list l;
        l.push_back(value(static_cast<std::int64_t>(bin.index_bits())));
        l.push_back(value(static_cast<std::int64_t>(bin.minhash_bits())));
        return value(std::move(l));
    }
    case k::hll_may_contain: {
        for (const auto& e : p.elements)
            if (!may_contain(bin, e))
                return value(std::int64_t{0});
        return value(std::int64_t{1});
    }
    default:
        return value{};
    }
}

inline result<value> apply(std::optional<value>& bin, const hll_op& o) {
    if (!known_code(o.code))
        return error{status::parameter_error,
                     "hll op: unknown op code " + std::to_string(static_cast<unsigned>(o.code))};
    if (is_hll_read(o.code)) {
        // A read of a missing bin is nil, whatever its arguments.
        if (!bin)
            return value{};
        if (auto e = check_bin(*bin, o.code))
            return *e;
        parsed p;
        if (auto e = parse(o, p))
            return *e;
        const view bv{bin->as_bytes().data()};
        if (o.code == hll_op_code::hll_get_intersect_count ||
            o.code == hll_op_code::hll_get_similarity) {
            const unsigned m = p.hlls[0].minhash_bits();
            if (p.hlls.size() > 2 && (bv.minhash_bits() == 0 || bv.minhash_bits() != m))
                return op_error(status::op_not_applicable,
                                o.code,
                                "more than 2 sketches need the bin's n_minhash_bits");
        }
        return read(o, p, bv);
    }
    if (bin)
        if (auto e = check_bin(*bin, o.code))
            return *e;
    parsed p;
    if (auto e = parse(o, p))
        return *e;
    const bool no_fail = (p.flags & hll_write_flags::no_fail) != 0;
    if (bin && (p.flags & hll_write_flags::create_only) != 0) {
        if (no_fail)
            return value{};
        return op_error(status::bin_exists_error, o.code, "bin exists (CREATE_ONLY)");
    }
    if (!bin && (p.flags & hll_write_flags::update_only) != 0) {
        if (no_fail)
            return value{};
        return op_error(status::bin_not_found, o.code, "bin does not exist (UPDATE_ONLY)");
    }
    std::optional<view> old;
    if (bin)
        old = view{bin->as_bytes().data()};
    if (auto e = prepare(o.code, p, old))
        return *e;

    using k = hll_op_code;
    value out;
    std::optional<sketch> made;
    switch (o.code) {
    case k::hll_init:
        made.emplace(p.index, p.minhash);
        break;
    case k::hll_add: {
        if (old)
            made.emplace(*old);
        else
            made.emplace(p.index, p.minhash);
        std::int64_t n_added = 0;
        for (const auto& e : p.elements)
            if (add(*made, e))
                ++n_added;
        out = value(n_added);
        break;
    }
    case k::hll_set_union: {
        std::vector<view> hs = p.hlls;
        if (old)
            hs.push_back(*old);
        made.emplace(union_of(hs));
        break;
    }
    case k::hll_refresh_count: {
        made.emplace(*old);
        const std::uint64_t c = estimate(made->v());
        made->set_cache(c);
        out = value(as_int(c));
        break;
    }
    case k::hll_fold: {
        if (p.index == old->index_bits()) {
            made.emplace(*old);
        } else {
            made.emplace(p.index, 0U);
            merge(*made, *old);
        }
        break;
    }
    default:
        break;
    }
    bin = value(std::move(made->b));
    return out;
}

} // namespace kvmodel::cdt::detail::hll

namespace kvmodel::cdt {

#if KVMODEL_DEFINITIONS
KVMODEL_DECL result<value> apply_hll_op(std::optional<value>& bin, const hll_op& o) {
    return detail::hll::apply(bin, o);
}

KVMODEL_DECL result<kvmodel::bytes> hll_empty_sketch(int index_bits, int minhash_bits) {
    namespace h = detail::hll;
    if (index_bits < 0 || minhash_bits < 0 ||
        !h::valid_bits(static_cast<std::uint64_t>(index_bits),
                       static_cast<std::uint64_t>(minhash_bits)))
        return error{status::parameter_error,
                     "hll sketch: n_index_bits " + std::to_string(index_bits) +
                         " (4..16) and n_minhash_bits " + std::to_string(minhash_bits) +
                         " (0 or 4..51, sum <= 64) are out of range"};
    return std::move(
        h::sketch(static_cast<unsigned>(index_bits), static_cast<unsigned>(minhash_bits)).b);
}

// Whoever makes an HLL op has compiled this engine: the op registers it for
// the stores (cdt/detail/hll_op.hpp).
KVMODEL_DECL hll_op::hll_op() noexcept {
    detail::hll_engine().set(&apply_hll_op);
}
#endif

} // namespace kvmodel::cdt
