// kvmodel/kv/record.hpp
//
// kv::record: what a store returns for one record — its bins (name -> value),
// its generation, expiry and last-update time, and, for operate(), one result per operation in
// operation order (Aerospike's respond-all-ops mode). Bins keep the order the
// record created them in, as the server stores them; a name appears once.
//
// Rules shared by every store: a bin name is at most 15 bytes and holds no
// NUL (else BIN_NAME_TOO_LONG, 21); a record has at most 32,767 bins; a
// stored value is never INF or WILDCARD (those are range bounds and
// patterns); writing nil to a bin deletes it.
//
// Cost: bins are a small vector searched linearly by name, as the server
// does; copying a record copies the names and O(1) handles for list and map
// values (copy-on-write), so a string or blob value is the only deep copy.
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/status.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kvmodel::kv {

/// Longest bin name, in bytes (AS_BIN_NAME_MAX_LEN).
inline constexpr std::size_t max_bin_name_length = 15;
/// Most bins one record may hold (the server's RECORD_MAX_BINS).
inline constexpr std::size_t max_bins = 32767;
/// A record's remaining TTL when it never expires.
inline constexpr std::int64_t ttl_never_expires = -1;

/// One bin: a name and a value.
struct bin {
    /// The bin name (at most 15 bytes).
    std::string name;
    /// Its value; nil deletes the bin in a put.
    value val;

    /// Name and value equal.
    friend bool operator==(const bin& a, const bin& b) = default;
};

/// A record as a store returns it.
struct record {
    /// The bins, in creation order (get: those asked for; operate: those the
    /// read ops returned, see operate()).
    std::vector<bin> bins;
    /// Write count, 1 after creation; wraps from 65535 to 1 as the server's
    /// 16-bit generation does. 0 for a record that no longer exists (a
    /// delete reports no metadata).
    std::uint32_t generation = 0;
    /// When the record expires, in Unix seconds; 0 = never.
    std::int64_t void_time = 0;
    /// Seconds left when the store answered; ttl_never_expires (-1) = never.
    std::int64_t ttl = ttl_never_expires;
    /// When the record was last written, Unix milliseconds on the store's
    /// clock (the server's last-update-time, which truncate's cutoff and
    /// expressions' last_update read); 0 = not reported (a delete, or a
    /// store that does not return it).
    std::int64_t last_update_ms = 0;
    /// operate(): one result per operation, in operation order.
    std::vector<value> results;

    /// The bin's value, or nullptr. Complexity: O(bins).
    const value* get(std::string_view name) const noexcept {
        const std::size_t i = find(name);
        return i < bins.size() ? &bins[i].val : nullptr;
    }
    /// \overload
    value* get(std::string_view name) noexcept {
        const std::size_t i = find(name);
        return i < bins.size() ? &bins[i].val : nullptr;
    }
    /// Whether the record has the bin. O(bins).
    bool contains(std::string_view name) const noexcept { return get(name) != nullptr; }
    /// The bin's value, or nil.
    value value_of(std::string_view name) const {
        const value* v = get(name);
        return v != nullptr ? *v : value{};
    }
    /// Sets a bin (appends it when new); nil erases it, as a write of nil does.
    void set(std::string name, value v) {
        if (v.is_nil()) {
            erase(name);
            return;
        }
        if (value* p = get(name)) {
            *p = std::move(v);
            return;
        }
        bins.push_back(bin{std::move(name), std::move(v)});
    }
    /// Removes a bin; false if there was none.
    bool erase(std::string_view name) {
        std::size_t i = find(name);
        if (i == bins.size())
            return false;
        // As vector::erase: the bins after it move down one, the last goes.
        for (; i + 1 < bins.size(); ++i)
            bins[i] = std::move(bins[i + 1]);
        bins.pop_back();
        return true;
    }

    /// Bins, metadata and results equal.
    friend bool operator==(const record& a, const record& b) = default;

private:
    // The index of the bin named `name`, or bins.size(). By index, not
    // iterator: every header-only file compiles these loops, and indices
    // need no iterator functions of vector<bin>.
    std::size_t find(std::string_view name) const noexcept {
        std::size_t i = 0;
        while (i < bins.size() && bins[i].name != name)
            ++i;
        return i;
    }
};

namespace detail {
// The failure paths of the checks below, out of line: a command checks every
// bin name and value, and the message building kept the checks themselves
// from being inlined into the hot path.
[[gnu::cold, gnu::noinline]] inline result<void> bad_bin_name(std::string_view name,
                                                              std::string_view what) {
    if (name.size() > max_bin_name_length)
        return fail_joined(status::bin_name_too_long,
                           {what, ": bin name '", name, "' is ", std::to_string(name.size()),
                            " bytes, max ", std::to_string(max_bin_name_length)});
    return fail_joined(status::bin_name_too_long, {what, ": bin name contains a NUL byte"});
}

// Whether a name holds a NUL: for a bin name (at most 15 bytes) one or two
// overlapping word tests (the classic has-zero-byte trick) instead of a byte loop or a
// memchr call, which cost more than the rest of the check.
inline bool has_nul(std::string_view name) noexcept {
    const std::size_t n = name.size();
    const char* p = name.data();
    const auto zero8 = [](const char* at) noexcept {
        std::uint64_t w = 0;
        std::memcpy(&w, at, sizeof w);
        return ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL) != 0;
    };
    const auto zero4 = [](const char* at) noexcept {
        std::uint32_t w = 0;
        std::memcpy(&w, at, sizeof w);
        return ((w - 0x01010101U) & ~w & 0x80808080U) != 0;
    };
    if (n >= 8) {
        for (std::size_t i = 0; i + 8 < n; i += 8)
            if (zero8(p + i))
                return true;
        return zero8(p + n - 8);
    }
    if (n >= 4)
        return zero4(p) || zero4(p + n - 4);
    bool nul = false;
    for (std::size_t i = 0; i < n; ++i)
        nul = nul || p[i] == '\0';
    return nul;
}
} // namespace detail

/// BIN_NAME_TOO_LONG (21) when name is longer than 15 bytes or contains a
/// NUL, naming the operation: "put: bin name 'sensor_temperature' is 18 bytes, max 15".
inline result<void> check_bin_name(std::string_view name, std::string_view what) {
    if (name.size() > max_bin_name_length)
        return detail::bad_bin_name(name, what);
    if (detail::has_nul(name))
        return detail::bad_bin_name(name, what);
    return {};
}

namespace detail {
inline bool contains_inf_or_wildcard(const value& v) noexcept {
    switch (v.type()) {
    case value_type::inf:
    case value_type::wildcard:
        return true;
    case value_type::list:
        for (const value& e : v.as_list())
            if (contains_inf_or_wildcard(e))
                return true;
        return false;
    case value_type::map:
        for (const map_entry& e : v.as_map())
            if (contains_inf_or_wildcard(e.key) || contains_inf_or_wildcard(e.val))
                return true;
        return false;
    default:
        return false;
    }
}
} // namespace detail

namespace detail {
[[gnu::cold, gnu::noinline]] inline result<void> unstorable_bin_value(std::string_view what,
                                                                      std::string_view bin_name) {
    return fail_joined(
        status::parameter_error,
        {what, ": bin '", bin_name,
         "': INF and WILDCARD are range bounds and patterns, not storable values"});
}
} // namespace detail

/// PARAMETER_ERROR when v cannot be stored in a bin: INF or WILDCARD at any
/// depth. (nil is not stored either: writing it deletes the bin.)
/// Complexity: O(1) for scalars, O(size) for lists and maps.
inline result<void>
check_bin_value(const value& v, std::string_view what, std::string_view bin_name) {
    // Scalars (the common bin) are decided by their type alone.
    switch (v.type()) {
    case value_type::inf:
    case value_type::wildcard:
        return detail::unstorable_bin_value(what, bin_name);
    case value_type::list:
    case value_type::map:
        if (detail::contains_inf_or_wildcard(v))
            return detail::unstorable_bin_value(what, bin_name);
        return {};
    default:
        return {};
    }
}

} // namespace kvmodel::kv

// What every read returns, and the engine's and the patterns' value results;
// with kvmodel::compiled their members are compiled once, in the library.
KVMODEL_INSTANTIATE(class kvmodel::result<kvmodel::kv::record>)
KVMODEL_INSTANTIATE(class kvmodel::result<kvmodel::value>)
KVMODEL_INSTANTIATE(class kvmodel::result<std::vector<kvmodel::value>>)
KVMODEL_INSTANTIATE(class kvmodel::result<std::vector<std::int64_t>>)
KVMODEL_INSTANTIATE(class std::vector<kvmodel::kv::bin>)
