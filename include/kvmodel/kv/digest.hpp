// kvmodel/kv/digest.hpp
//
// Aerospike's record digest and partition id. The digest is RIPEMD-160 over
// the set name's bytes (nothing when there is no set), then the user key's
// particle type byte (integer 1, string 3, bytes 4), then the key's bytes
// (an integer as 8 bytes big-endian, a string or blob as its bytes). The
// partition is `(d[0] | d[1] << 8) & 0xFFF` over the digest bytes d: 4096
// partitions. The namespace takes no part in the digest.
//
// RIPEMD-160 comes from OpenSSL's libcrypto (link OpenSSL::Crypto). OpenSSL 3
// still ships the RIPEMD160_* calls, deprecated; they are the fastest path
// (~200-300 ns for a short key here), so they are used while the headers
// provide them, with the deprecation warning silenced locally. Without them
// (OPENSSL_NO_DEPRECATED_3_0, a future OpenSSL) the EVP interface is used,
// with the digest fetched once per process and one EVP_MD_CTX per thread; on
// OpenSSL 3.0.0-3.0.6, where RIPEMD-160 lived in the legacy provider, that
// provider is loaded on first use. Both paths are tested to agree.
//
// Cost: one RIPEMD-160 over (set + 1 + key) bytes; nothing is allocated.
// Compute it once per key (kv::key does, at construction) — it costs more
// than the hash lookup that follows it in a store. The RIPEMD-160 calls are
// behind the library switch (config.hpp): with kvmodel::compiled a user's
// translation unit does not parse OpenSSL's EVP headers, and a header-only one
// parses them only when the RIPEMD160_* calls are missing (the EVP path,
// detail::ripemd160_evp, is then defined only in the library).
#pragma once

#include <kvmodel/config.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <openssl/opensslv.h> // OPENSSL_VERSION_MAJOR, OPENSSL_NO_* (the configuration)

namespace kvmodel::kv {

/// Bytes in a digest.
inline constexpr std::size_t digest_size = 20;

/// A record digest: RIPEMD-160, 20 bytes.
using digest = std::array<std::uint8_t, digest_size>;

/// Number of partitions in every Aerospike namespace.
inline constexpr std::uint32_t partition_count = 4096;

/// The particle type byte of a user key, as it enters the digest
/// (Aerospike's AS_PARTICLE_TYPE_INTEGER / STRING / BLOB).
enum class key_type : std::uint8_t { integer = 1, string = 3, bytes = 4 };

/// The partition a digest falls in: the low 12 bits of its first two bytes,
/// little-endian. Complexity: O(1).
constexpr std::uint32_t partition_id(const digest& d) noexcept {
    return (static_cast<std::uint32_t>(d[0]) | (static_cast<std::uint32_t>(d[1]) << 8U)) &
           (partition_count - 1);
}

/// Lower-case hex of a digest (40 characters).
inline std::string to_hex(const digest& d) {
    static constexpr std::string_view hex = "0123456789abcdef";
    std::string s(digest_size * 2, '0');
    for (std::size_t i = 0; i < digest_size; ++i) {
        s[2 * i] = hex[d[i] >> 4U];
        s[2 * i + 1] = hex[d[i] & 15U];
    }
    return s;
}

/// The value of one hex digit (either case), -1 for any other character.
constexpr int hex_nibble(char c) noexcept {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/// Parses 40 hex digits (either case); nullopt on anything else.
inline std::optional<digest> digest_from_hex(std::string_view s) noexcept {
    if (s.size() != digest_size * 2)
        return std::nullopt;
    constexpr auto nibble = hex_nibble;
    digest d{};
    for (std::size_t i = 0; i < digest_size; ++i) {
        int hi = nibble(s[2 * i]);
        int lo = nibble(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return std::nullopt;
        d[i] = static_cast<std::uint8_t>(hi * 16 + lo);
    }
    return d;
}

/// Hash functor for unordered containers keyed by digest: the digest is
/// already uniformly distributed, so its bytes 8..15 are the hash (bytes 0..1
/// pick the partition, so a partition's records still spread over buckets).
struct digest_hash {
    /// The hash of d (from digest bytes the partition id does not use).
    std::size_t operator()(const digest& d) const noexcept {
        std::uint64_t h = 0;
        std::memcpy(&h, d.data() + 8, sizeof h);
        return static_cast<std::size_t>(h);
    }
};

namespace detail {

#if !defined(OPENSSL_NO_RMD160) && !defined(OPENSSL_NO_DEPRECATED_3_0)
#    define KVMODEL_DETAIL_HAVE_RIPEMD160_LOW                                                      \
        1 // NOLINT(cppcoreguidelines-macro-usage): a feature test
/// RIPEMD-160 of the concatenated parts through the RIPEMD160_* calls.
KVMODEL_DECL digest ripemd160_low(std::span<const std::span<const std::uint8_t>> parts) noexcept;
#endif

/// RIPEMD-160 of the concatenated parts through EVP; false if unavailable.
/// Header-only builds define it only where the RIPEMD160_* calls are missing;
/// kvmodel::compiled always does.
KVMODEL_DECL bool ripemd160_evp(std::span<const std::span<const std::uint8_t>> parts,
                                digest& out) noexcept;

/// RIPEMD-160 of the concatenated parts (the fastest path OpenSSL has).
KVMODEL_DECL digest ripemd160(std::span<const std::span<const std::uint8_t>> parts) noexcept;

inline std::span<const std::uint8_t> as_bytes(std::string_view s) noexcept {
    // Viewing chars as bytes: the one cast the digest needs.
    return {reinterpret_cast<const std::uint8_t*>(s.data()), // NOLINT(*-reinterpret-cast)
            s.size()};
}

} // namespace detail

/// The digest of a user key given as its type and its bytes (an integer's 8
/// big-endian bytes). An empty set means no set. Complexity: O(|set| + |key|).
inline digest compute_digest(std::string_view set,
                             key_type type,
                             std::span<const std::uint8_t> key_bytes) noexcept {
    const auto type_byte = static_cast<std::uint8_t>(type);
    // Plain arrays and (pointer, size) spans: the span constructors from
    // std::array are more functions in every header-only file.
    const std::span<const std::uint8_t> parts[] = {
        detail::as_bytes(set), std::span<const std::uint8_t>(&type_byte, 1), key_bytes};
    return detail::ripemd160(parts);
}

/// The digest of an integer user key.
inline digest compute_digest(std::string_view set, std::int64_t key) noexcept {
    auto u = static_cast<std::uint64_t>(key);
    std::uint8_t be[8] = {}; // NOLINT(*-avoid-c-arrays): no std::array functions per file
    for (std::size_t i = 0; i < 8; ++i)
        be[i] = static_cast<std::uint8_t>(u >> (56 - 8 * i));
    const std::uint8_t* bytes = be;
    return compute_digest(set, key_type::integer, std::span<const std::uint8_t>(bytes, 8));
}

/// The digest of a string user key.
inline digest compute_digest(std::string_view set, std::string_view key) noexcept {
    return compute_digest(set, key_type::string, detail::as_bytes(key));
}

} // namespace kvmodel::kv

#if KVMODEL_DEFINITIONS
// The EVP path is compiled where the RIPEMD160_* calls are missing and in the
// library (kvmodel::compiled, whose tests compare both paths), not in every
// header-only file: <openssl/evp.h> and <openssl/provider.h> cost each file
// ~6 MB of the compiler's memory (GCC 12, -g) for a path it never takes.
#    if !defined(KVMODEL_DETAIL_HAVE_RIPEMD160_LOW) || defined(KVMODEL_SOURCE)
#        define KVMODEL_DETAIL_DIGEST_EVP 1 // NOLINT(cppcoreguidelines-macro-usage)
#    else
#        define KVMODEL_DETAIL_DIGEST_EVP 0 // NOLINT(cppcoreguidelines-macro-usage)
#    endif
#    if KVMODEL_DETAIL_DIGEST_EVP
#        include <openssl/evp.h>
#        if OPENSSL_VERSION_MAJOR >= 3
#            include <openssl/provider.h>
#        endif
#    endif
#    include <openssl/ripemd.h>

namespace kvmodel::kv::detail {

#if defined(KVMODEL_DETAIL_HAVE_RIPEMD160_LOW)
KVMODEL_DECL digest ripemd160_low(std::span<const std::span<const std::uint8_t>> parts) noexcept {
#    if defined(__GNUC__)
#        pragma GCC diagnostic push
#        pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#    endif
    RIPEMD160_CTX ctx;
    RIPEMD160_Init(&ctx);
    for (std::size_t i = 0; i < parts.size(); ++i) // by index: no span iterator functions
        if (parts[i].size() != 0)
            RIPEMD160_Update(&ctx, parts[i].data(), parts[i].size());
    digest d{};
    RIPEMD160_Final(d.data(), &ctx);
#    if defined(__GNUC__)
#        pragma GCC diagnostic pop
#    endif
    return d;
}
#endif

#if KVMODEL_DETAIL_DIGEST_EVP
/// The process-wide RIPEMD-160 EVP_MD, fetched once (loading the legacy
/// provider when the default one lacks it); nullptr if OpenSSL has none.
inline const EVP_MD* ripemd160_md() noexcept {
#if OPENSSL_VERSION_MAJOR >= 3
    static const EVP_MD* const md = []() noexcept -> const EVP_MD* {
        if (EVP_MD* m = EVP_MD_fetch(nullptr, "RIPEMD160", nullptr))
            return m;
        // OpenSSL 3.0.0-3.0.6 keep RIPEMD-160 in the legacy provider only.
        if (OSSL_PROVIDER_load(nullptr, "legacy") == nullptr)
            return nullptr;
        return EVP_MD_fetch(nullptr, "RIPEMD160", nullptr);
    }();
    return md;
#else
    return EVP_ripemd160();
#endif
}

KVMODEL_DECL bool ripemd160_evp(std::span<const std::span<const std::uint8_t>> parts,
                                digest& out) noexcept {
    const EVP_MD* md = ripemd160_md();
    if (md == nullptr)
        return false;
    struct ctx_holder {
        EVP_MD_CTX* ctx = EVP_MD_CTX_new();
        ctx_holder() = default;
        ctx_holder(const ctx_holder&) = delete;
        ctx_holder& operator=(const ctx_holder&) = delete;
        ctx_holder(ctx_holder&&) = delete;
        ctx_holder& operator=(ctx_holder&&) = delete;
        ~ctx_holder() { EVP_MD_CTX_free(ctx); }
    };
    thread_local ctx_holder holder;
    if (holder.ctx == nullptr)
        return false;
    if (EVP_DigestInit_ex(holder.ctx, md, nullptr) != 1)
        return false;
    for (auto p : parts)
        if (!p.empty() && EVP_DigestUpdate(holder.ctx, p.data(), p.size()) != 1)
            return false;
    unsigned int len = 0;
    return EVP_DigestFinal_ex(holder.ctx, out.data(), &len) == 1 && len == digest_size;
}

#endif // KVMODEL_DETAIL_DIGEST_EVP

[[noreturn]] inline void ripemd160_unavailable() {
    std::fputs("kvmodel: this OpenSSL provides no RIPEMD-160 (needed for Aerospike digests)\n",
               stderr);
    std::abort();
}

KVMODEL_DECL digest ripemd160(std::span<const std::span<const std::uint8_t>> parts) noexcept {
#if defined(KVMODEL_DETAIL_HAVE_RIPEMD160_LOW)
    return ripemd160_low(parts);
#else
    digest d{};
    if (!ripemd160_evp(parts, d))
        ripemd160_unavailable();
    return d;
#endif
}

} // namespace kvmodel::kv::detail

#endif // KVMODEL_DEFINITIONS
