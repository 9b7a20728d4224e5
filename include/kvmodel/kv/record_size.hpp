// kvmodel/kv/record_size.hpp
//
// What a record weighs in Aerospike and whether it fits, as measured on a
// real 8.1.2 server: shared/AEROSPIKE-RECORDS.md, corrected by a random diff
// against the server (tests/data/gen_record_sizes.py; the recorded suite
// tests/data/record_size_server.json): the bin count and the stored key's
// length are varints, the void time is measured, and an UNORDERED map with a
// persisted index weighs a K_ORDERED one (msgpack_size.hpp).
//
//   stored = ceil16(flat + 4)          (4 = end mark; rounded up to 16)
//   flat   = 35                        (record header incl. the 20-byte digest)
//          + v(bin count)              (v(x) = bytes of x as a ULEB128 varint:
//                                       1 below 2^7, 2 below 2^14, else 3)
//          + (set ? 1 + len(set) : 0)
//          + (stored user key ? v(1 + K) + (1 + K) : 0)
//                                      K = 8 for an int, else its byte length
//          + (void time set ? 4 : 0)   (a record with a TTL)
//          + sum over bins of (1 + len(name) + value)
//   value  = int 2 + (1, 2, 4 or 8 by the unsigned 64-bit value; every
//            negative int takes 8); bool 2; double 9; string and bytes
//            5 + length; list and map 5 + their stored msgpack (packed_size).
//
// A write fails RECORD_TOO_BIG (13) when flat + 4 > max-record-size — the
// unrounded size — and leaves the record unchanged. max-record-size defaults
// to 1 MiB and may be set from 64 B to 8 MiB.
//
// Cost: O(1) per bin: lists and maps keep their packed size as they change
// (msgpack_size.hpp). Stores cache per-bin sizes all the same.
#pragma once

#include <kvmodel/core/msgpack_size.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/status.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kvmodel::kv {

/// Namespace default for max-record-size: 1 MiB.
inline constexpr std::size_t default_max_record_size = std::size_t{1} << 20;
/// Smallest and largest max-record-size a namespace accepts.
inline constexpr std::size_t min_max_record_size = 64;
/// 8 MiB: the largest (sim::cluster refuses a namespace configured outside
/// [min_max_record_size, max_max_record_size] with PARAMETER_ERROR).
inline constexpr std::size_t max_max_record_size = std::size_t{8} << 20;

namespace record_size {

/// Fixed header bytes of every record (includes the 20-byte digest).
inline constexpr std::size_t header = 35;
/// The end mark added before rounding.
inline constexpr std::size_t end_mark = 4;
/// Extra bytes for a record with a void time (a TTL).
inline constexpr std::size_t void_time = 4;

/// Bytes of x as a ULEB128 varint, which is how the server stores the bin
/// count and the length of the stored user key: 1 below 2^7, 2 below 2^14,
/// 3 below 2^21 (measured: 127 bins take 1 byte, 128 take 2, 16,384 take 3;
/// a string key of 126 bytes has a 1-byte length, of 127 a 2-byte one).
constexpr std::size_t varint(std::size_t x) noexcept {
    std::size_t n = 1;
    while (x >= 0x80) {
        x >>= 7;
        ++n;
    }
    return n;
}

/// Bytes of a bin's value in the stored record; 0 for nil, INF and WILDCARD,
/// which are never stored. Complexity: O(1).
inline std::size_t value_size(const value& v) noexcept {
    switch (v.type()) {
    case value_type::integer: {
        auto u = static_cast<std::uint64_t>(v.as_int());
        return 2 + (u < (1ULL << 8) ? 1 : (u < (1ULL << 16) ? 2 : (u < (1ULL << 32) ? 4 : 8)));
    }
    case value_type::boolean:
        return 2;
    case value_type::floating:
        return 9;
    case value_type::string:
        return 5 + v.as_string().size();
    case value_type::bytes:
        return 5 + v.as_bytes().size();
    case value_type::list:
    case value_type::map:
        return 5 + packed_size(v);
    case value_type::nil:
    case value_type::inf:
    case value_type::wildcard:
        return 0;
    }
    return 0;
}

/// Bytes of one bin: 1 + name length + value_size.
inline std::size_t bin_size(std::string_view name, const value& v) noexcept {
    return 1 + name.size() + value_size(v);
}

/// Bytes of the stored user key entry ("send key"): its length 1 + K as a
/// varint, then a type byte and the K key bytes; 0 for no key (nullptr) or a
/// value that cannot be a user key.
inline std::size_t stored_key_size(const value* user_key) noexcept {
    if (user_key == nullptr)
        return 0;
    std::size_t k = 0;
    switch (user_key->type()) {
    case value_type::integer:
        k = 8;
        break;
    case value_type::string:
        k = user_key->as_string().size();
        break;
    case value_type::bytes:
        k = user_key->as_bytes().size();
        break;
    default:
        return 0;
    }
    return varint(1 + k) + 1 + k;
}

/// stored_key_size of an optional key (empty: 0).
inline std::size_t stored_key_size(const std::optional<value>& user_key) noexcept {
    return stored_key_size(user_key ? &*user_key : nullptr);
}

/// Everything in flat but the bins: header, bin count, set, stored key, void time.
inline std::size_t fixed_size(std::string_view set,
                              const value* stored_key,
                              bool has_void_time,
                              std::size_t n_bins) noexcept {
    return header + varint(n_bins) + (set.empty() ? 0 : 1 + set.size()) +
           stored_key_size(stored_key) + (has_void_time ? void_time : 0);
}
/// fixed_size with the stored key as an optional (empty: none stored).
inline std::size_t fixed_size(std::string_view set,
                              const std::optional<value>& stored_key,
                              bool has_void_time,
                              std::size_t n_bins) noexcept {
    return fixed_size(set, stored_key.has_value() ? &*stored_key : nullptr, has_void_time, n_bins);
}
/// fixed_size without a stored key.
inline std::size_t fixed_size(std::string_view set,
                              std::nullopt_t /*no_key*/,
                              bool has_void_time,
                              std::size_t n_bins) noexcept {
    return fixed_size(set, static_cast<const value*>(nullptr), has_void_time, n_bins);
}

/// The unrounded size ("flat") of a record; stored_key is the user key if
/// it is stored (send_key), else nullptr. Complexity: O(bins).
inline std::size_t flat(std::string_view set,
                        const value* stored_key,
                        bool has_void_time,
                        std::span<const bin> bins) noexcept {
    std::size_t total = fixed_size(set, stored_key, has_void_time, bins.size());
    for (const bin& b : bins)
        total += bin_size(b.name, b.val);
    return total;
}
/// flat with the stored key as an optional (empty: none stored). O(bins).
inline std::size_t flat(std::string_view set,
                        const std::optional<value>& stored_key,
                        bool has_void_time,
                        std::span<const bin> bins) noexcept {
    return flat(set, stored_key.has_value() ? &*stored_key : nullptr, has_void_time, bins);
}
/// No stored key (an exact match for std::nullopt, so no empty optional is
/// built — GCC's maybe-uninitialized analysis trips over one).
inline std::size_t flat(std::string_view set,
                        std::nullopt_t /*no_key*/,
                        bool has_void_time,
                        std::span<const bin> bins) noexcept {
    return flat(set, static_cast<const value*>(nullptr), has_void_time, bins);
}

/// What the server reports as the record's size: ceil16(flat + 4).
constexpr std::size_t stored(std::size_t flat_size) noexcept {
    return (flat_size + end_mark + 15) / 16 * 16;
}

/// Whether a record of this flat size fits: flat + 4 <= max_record_size.
constexpr bool fits(std::size_t flat_size, std::size_t max_record_size) noexcept {
    return flat_size + end_mark <= max_record_size;
}

} // namespace record_size

namespace detail {
[[gnu::cold, gnu::noinline]] inline result<void>
record_too_big(std::size_t flat_size, std::size_t max_record_size, std::string_view what) {
    return fail_joined(status::record_too_big,
                       {what, ": record would be ", std::to_string(flat_size + record_size::end_mark),
                        " bytes (flat ", std::to_string(flat_size), " + 4), over max-record-size ",
                        std::to_string(max_record_size)});
}
} // namespace detail

/// RECORD_TOO_BIG naming the operation, the size and the limit when a record
/// of this flat size does not fit.
inline result<void>
check_record_size(std::size_t flat_size, std::size_t max_record_size, std::string_view what) {
    if (record_size::fits(flat_size, max_record_size))
        return {};
    return detail::record_too_big(flat_size, max_record_size, what);
}

} // namespace kvmodel::kv
