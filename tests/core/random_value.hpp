// tests/core/random_value.hpp
//
// Seeded random values for the randomized tests, and the conventions they all
// follow: the seed is KVMODEL_SEED when set, else Catch's --rng-seed when
// given, else a fixed default; loops scale with KVMODEL_FUZZ_OPS. A test prints
// its seed (INFO) so a failure can be replayed with KVMODEL_SEED=<seed>.
//
// value_gen has knobs for nesting, container sizes and the size of the scalar
// domains: small domains give many equal values, which is where ranks, ties and
// duplicate handling go wrong; wide domains hit every encoding boundary.
#pragma once

#include <kvmodel/core/value.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kvmodel::test {

/// The seed of this run (see the header comment).
inline std::uint64_t seed() {
    if (const char* s = std::getenv("KVMODEL_SEED"); s != nullptr && *s != '\0')
        return std::strtoull(s, nullptr, 0);
    if (Catch::rngSeed() != 0) return Catch::rngSeed();
    return 20240611;
}

/// KVMODEL_FUZZ_OPS when set, else `fallback`.
inline std::size_t fuzz_ops(std::size_t fallback) {
    if (const char* s = std::getenv("KVMODEL_FUZZ_OPS"); s != nullptr && *s != '\0') {
        auto n = std::strtoull(s, nullptr, 0);
        if (n > 0) return static_cast<std::size_t>(n);
    }
    return fallback;
}

/// Mixes a test-specific salt into the run's seed, so tests are independent.
inline std::uint64_t seed_for(std::string_view salt) {
    std::uint64_t h = seed() ^ 0x9e3779b97f4a7c15ULL;
    for (char c : salt) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    return h;
}

class value_gen {
public:
    explicit value_gen(std::uint64_t s) : m_rng(s) {}

    int max_depth = 3;          ///< nesting below the top value
    std::size_t max_len = 5;    ///< container sizes 0..max_len
    std::size_t max_text = 12;  ///< usual string/blob length (rarely longer)
    bool small = false;         ///< tiny scalar domains: many equal values
    bool utf8 = false;          ///< strings are valid UTF-8 (for JSON text)
    bool allow_nan = true;      ///< doubles may be NaN
    bool allow_inf = false;     ///< INF may appear (anywhere)
    int wildcard_pct = 0;       ///< chance (%) of WILDCARD at any node
    bool flags = false;         ///< random list/map order flags, persist_index

    std::mt19937_64& rng() { return m_rng; }

    /// Uniform in [0, n).
    std::uint64_t below(std::uint64_t n) {
        return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(m_rng);
    }
    std::size_t index(std::size_t n) { return static_cast<std::size_t>(below(n)); }
    bool chance(int pct) { return below(100) < static_cast<std::uint64_t>(pct); }

    std::int64_t integer() {
        if (small) return static_cast<std::int64_t>(below(8)) - 2;
        static constexpr std::array<std::int64_t, 22> edges = {
            0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295LL, 4294967296LL,
            std::numeric_limits<std::int64_t>::max(), -1, -32, -33, -128, -129, -32768, -32769,
            -2147483648LL, -2147483649LL, std::numeric_limits<std::int64_t>::min(), 42};
        switch (below(3)) {
        case 0: {
            // An edge, or a neighbour of one (wrapping is fine: still an int64).
            auto e = static_cast<std::uint64_t>(edges[index(edges.size())]);
            return static_cast<std::int64_t>(e + below(3) - 1);
        }
        case 1: return static_cast<std::int64_t>(below(300)) - 150;
        default: {
            // Every magnitude equally often.
            std::uint64_t x = m_rng() >> below(64);
            return chance(50) ? static_cast<std::int64_t>(x) : -static_cast<std::int64_t>(x >> 1);
        }
        }
    }

    double floating() {
        if (small) {
            static constexpr std::array<double, 4> few = {0.0, 1.5, -1.5, 2.0};
            return few[index(few.size())];
        }
        static const std::array<double, 12> edges = {
            0.0, -0.0, 1.1, -2.5, 1e-300, std::numeric_limits<double>::min(),
            std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
            std::numeric_limits<double>::lowest(), std::numeric_limits<double>::infinity(),
            -std::numeric_limits<double>::infinity(), 9007199254740993.0};
        switch (below(4)) {
        case 0: return edges[index(edges.size())];
        case 1: return allow_nan ? std::numeric_limits<double>::quiet_NaN() : 0.5;
        case 2: return std::uniform_real_distribution<double>(-1000, 1000)(m_rng);
        default: {
            // Any bit pattern; a NaN comes back as the one quiet NaN, so
            // values survive notations that do not carry NaN payloads.
            double d = std::bit_cast<double>(m_rng());
            if (d != d) return allow_nan ? std::numeric_limits<double>::quiet_NaN() : 3.25;
            return d;
        }
        }
    }

    std::size_t length() {
        if (chance(3)) return 30 + index(300); // crosses fixstr / str8 headers
        return index(max_text + 1);
    }

    std::string text() {
        if (small) {
            static constexpr std::array<std::string_view, 4> few = {"", "a", "b", "ab"};
            return std::string(few[index(few.size())]);
        }
        std::size_t n = length();
        std::string s;
        while (s.size() < n) {
            if (utf8) {
                static constexpr std::array<std::string_view, 8> pieces = {
                    "a", "b", "z", "0", " ", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9d\x84\x9e"};
                s += pieces[index(pieces.size())];
            } else {
                // Mostly a small alphabet (shared prefixes), sometimes any byte.
                s += chance(80) ? static_cast<char>('a' + below(3))
                                : static_cast<char>(static_cast<unsigned char>(below(256)));
            }
        }
        return s;
    }

    kvmodel::bytes blob() {
        if (small) return kvmodel::bytes(index(3), std::uint8_t{7});
        kvmodel::bytes b(length());
        for (auto& x : b) x = chance(70) ? static_cast<std::uint8_t>(below(3)) : static_cast<std::uint8_t>(below(256));
        return b;
    }

    value scalar() {
        switch (below(allow_inf ? 8 : 7)) {
        case 0: return value{};
        case 1: return value{chance(50)};
        case 2:
        case 3: return value{integer()};
        case 4: return value{text()};
        case 5: return value{blob()};
        case 6: return value{floating()};
        default: return value{kvmodel::inf};
        }
    }

    value any(int depth = 0) {
        if (wildcard_pct > 0 && chance(wildcard_pct)) return value{kvmodel::wildcard};
        bool nest = depth < max_depth && chance(depth == 0 ? 45 : 30);
        if (!nest) return scalar();
        if (chance(50)) return value{make_list(depth)};
        return value{make_map(depth)};
    }

    kvmodel::list make_list(int depth) {
        kvmodel::list l;
        std::size_t n = index(max_len + 1);
        for (std::size_t i = 0; i < n; ++i) l.push_back(any(depth + 1));
        if (flags) {
            if (chance(30)) {
                l.sort(false);
                l.set_order_flag(list_order::ordered);
            }
            l.set_persist_index(chance(20));
        }
        return l;
    }

    kvmodel::map make_map(int depth) {
        kvmodel::map m;
        std::size_t n = index(max_len + 1);
        for (std::size_t i = 0; i < n; ++i) m.put(chance(85) ? scalar() : any(depth + 1), any(depth + 1));
        if (flags) {
            static constexpr std::array<map_order, 3> orders = {
                map_order::unordered, map_order::key_ordered, map_order::key_value_ordered};
            m.set_order(orders[index(orders.size())]);
            m.set_persist_index(chance(20));
        }
        return m;
    }

private:
    std::mt19937_64 m_rng;
};

} // namespace kvmodel::test
