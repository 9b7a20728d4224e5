// kvmodel/core/msgpack_size.hpp
//
// packed_size(v): the bytes v occupies in Aerospike's msgpack encoding of a
// CDT, which is what a list or map bin weighs on the server
// (AEROSPIKE-RECORDS.md). Standard msgpack with the smallest encodings, plus
// Aerospike's conventions: strings and blobs carry a one-byte particle-type
// prefix inside the msgpack str (3 = string, 4 = blob); a non-negative integer
// is packed as the smallest uint, a negative one as the smallest int; doubles
// are always float64; an ORDERED list or K_ORDERED/KV_ORDERED map starts with
// one ext element (for a map, an ext key with a nil value) whose content is
// the persisted index, if any; an UNORDERED map with a persisted index is
// stored like a K_ORDERED one (ext key, nil, key offset index). INF and
// WILDCARD, never stored, count as the 3-byte fixext1 element clients send
// for them (d4 ff 01, d4 ff 00).
// Blobs use the str family (not msgpack bin) as every Aerospike client packs
// them, and the server rewrites any bin8/16/32 it receives into str form.
// Cost: O(1) - lists and maps keep their elements' total as they change
// (detail::packed_size_scan counts it all anew, O(size of the value)).
#pragma once

#include <kvmodel/core/value.hpp>

#include <cstddef>
#include <cstdint>

namespace kvmodel {
namespace msgpack_size {

/// Header bytes of an array of n elements.
constexpr std::size_t array_header(std::size_t n) noexcept {
    return n < 16 ? 1 : (n < 65536 ? 3 : 5);
}
/// Header bytes of a map of n pairs.
constexpr std::size_t map_header(std::size_t n) noexcept {
    return n < 16 ? 1 : (n < 65536 ? 3 : 5);
}
/// Header bytes of a str of n bytes (n includes Aerospike's type prefix).
constexpr std::size_t str_header(std::size_t n) noexcept {
    return n < 32 ? 1 : (n < 256 ? 2 : (n < 65536 ? 3 : 5));
}
/// Header bytes of an ext element with c content bytes.
constexpr std::size_t ext_header(std::size_t c) noexcept {
    if (c == 1 || c == 2 || c == 4 || c == 8 || c == 16) return 2;
    return c < 256 ? 3 : (c < 65536 ? 4 : 6);
}
/// Bytes of an integer.
constexpr std::size_t integer(std::int64_t i) noexcept {
    if (i >= 0) {
        auto u = static_cast<std::uint64_t>(i);
        return u < 128 ? 1 : (u < 256 ? 2 : (u < 65536 ? 3 : (u < 4294967296ULL ? 5 : 9)));
    }
    return i >= -32 ? 1 : (i >= -128 ? 2 : (i >= -32768 ? 3 : (i >= -2147483648LL ? 5 : 9)));
}
/// Width of one persisted-index entry able to hold x.
constexpr std::size_t index_width(std::size_t x) noexcept {
    return x < (1U << 8) ? 1 : (x < (1U << 16) ? 2 : (x < (1U << 24) ? 3 : 4));
}

} // namespace msgpack_size

inline std::size_t packed_size(const value& v) noexcept;

namespace detail {

/// A list's packed bytes, its elements' being body.
inline std::size_t packed_list(const list& l, std::size_t body) noexcept {
    std::size_t n = l.size();
    bool ext = l.is_ordered() || l.persist_index();
    std::size_t c = 0;
    if (l.persist_index() && n > 1) {
        if (l.is_ordered()) {
            c = n * msgpack_size::index_width(body);
        } else {
            std::size_t k = (n - 1) / 128;
            c = k >= 1 ? (k + 1) * msgpack_size::index_width(body) : 0;
        }
    }
    std::size_t total = msgpack_size::array_header(n + (ext ? 1 : 0)) + body;
    if (ext) total += msgpack_size::ext_header(c) + c;
    return total;
}

/// A map's packed bytes, its entries' being body.
inline std::size_t packed_map(const map& m, std::size_t body) noexcept {
    std::size_t n = m.size();
    // A persisted index on an UNORDERED map is stored as on a K_ORDERED one:
    // the ext element and a key offset index (measured on 8.1.2).
    bool ordered = m.order() != map_order::unordered || m.persist_index();
    std::size_t c = 0;
    if (ordered && m.persist_index() && n > 1) {
        c = n * msgpack_size::index_width(body);
        if (m.order() == map_order::key_value_ordered) c += n * msgpack_size::index_width(n);
    }
    std::size_t total = msgpack_size::map_header(n + (ordered ? 1 : 0)) + body;
    if (ordered) total += msgpack_size::ext_header(c) + c + 1; // ext key + nil value
    return total;
}

/// Bytes of a value other than a list or map (which the two above weigh).
inline std::size_t packed_scalar(const value& v) noexcept {
    switch (v.type()) {
    case value_type::nil:
    case value_type::boolean: return 1;
    case value_type::integer: return msgpack_size::integer(v.as_int());
    case value_type::floating: return 9;
    case value_type::string: {
        std::size_t n = v.as_string().size() + 1;
        return msgpack_size::str_header(n) + n;
    }
    case value_type::bytes: {
        std::size_t n = v.as_bytes().size() + 1;
        return msgpack_size::str_header(n) + n;
    }
    case value_type::list:
    case value_type::map: break;
    case value_type::inf:
    case value_type::wildcard: return 3; // fixext1: d4, ext type 0xff, 1 byte
    }
    return 0;
}

/// packed_size counted anew over every element, at every depth, without the
/// containers' kept totals: O(size of the value). For tests and checks.
inline std::size_t packed_size_scan(const value& v) noexcept {
    if (v.is_list()) {
        std::size_t body = 0;
        for (const value& e : v.as_list()) body += packed_size_scan(e);
        return packed_list(v.as_list(), body);
    }
    if (v.is_map()) {
        std::size_t body = 0;
        for (const map_entry& e : v.as_map()) body += packed_size_scan(e.key) + packed_size_scan(e.val);
        return packed_map(v.as_map(), body);
    }
    return packed_scalar(v);
}

} // namespace detail

/// Bytes of v in Aerospike's msgpack encoding. O(1).
inline std::size_t packed_size(const value& v) noexcept {
    if (v.is_list()) return detail::packed_list(v.as_list(), detail::list_access::body(v.as_list()));
    if (v.is_map()) return detail::packed_map(v.as_map(), detail::map_access::body(v.as_map()));
    return detail::packed_scalar(v);
}

} // namespace kvmodel
