// kvmodel/kv/key.hpp
//
// kv::key: a record's address — namespace, set (empty = no set) and user key
// (an int64, a string or a blob) — with Aerospike's digest computed once, at
// construction (kv/digest.hpp), as Aerospike's clients do. Two keys name the
// same record when their namespaces and digests are equal; the set takes part
// through the digest.
//
// Limits are the C client's: a namespace of 1..31 bytes, a set of at most 63
// bytes. key::make checks them and the user key's type and reports
// PARAMETER_ERROR; the typed constructors cannot fail, and a store checks the
// limits again when it is handed a key (so a key with an over-long name is
// representable but never reaches a record).
//
// Cost: construction is one RIPEMD-160 plus copying the names and the user
// key; copying a key copies them again (a blob or long string key allocates).
#pragma once

#include <kvmodel/config.hpp> // KVMODEL_FORCE_INLINE
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/digest.hpp>
#include <kvmodel/kv/status.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace kvmodel::kv {

/// Longest namespace name, in bytes (AS_NAMESPACE_MAX_SIZE - 1).
inline constexpr std::size_t max_namespace_length = 31;
/// Longest set name, in bytes (AS_SET_MAX_SIZE - 1).
inline constexpr std::size_t max_set_length = 63;

/// A record's key: namespace, set and user key, and the RIPEMD-160 digest of set and
/// user key that locates the record (partition, nodes). Construction computes
/// the digest (O(key length)); make() and check() report bad names as a status.
class key {
public:
    /// An integer user key (any integral type; unsigned 64-bit values are
    /// taken as their two's-complement int64, as Aerospike stores them).
    template <std::integral I>
    requires(!std::same_as<I, bool> && !std::same_as<I, char>)
        key(std::string ns, std::string set, I user_key)
        : m_ns(std::move(ns))
        , m_set(std::move(set))
        , m_user_key(static_cast<std::int64_t>(user_key))
        , m_digest(compute_digest(m_set, static_cast<std::int64_t>(user_key))) {}

    /// A string user key.
    key(std::string ns, std::string set, std::string user_key)
        : m_ns(std::move(ns))
        , m_set(std::move(set))
        , m_user_key(value(std::move(user_key))) // optional<value>(value&&): shared with make()
        , m_digest(compute_digest(m_set, m_user_key->as_string())) {}
    /// \overload
    key(std::string ns, std::string set, const char* user_key)
        : key(std::move(ns), std::move(set), std::string(user_key)) {}
    /// \overload
    key(std::string ns, std::string set, std::string_view user_key)
        : key(std::move(ns), std::move(set), std::string(user_key)) {}

    /// A blob user key.
    key(std::string ns, std::string set, kvmodel::bytes user_key)
        : m_ns(std::move(ns))
        , m_set(std::move(set))
        , m_user_key(value(std::move(user_key)))
        , m_digest(digest_of_bytes(m_set, m_user_key->as_bytes())) {}

    /// A key from a user key of any value type: PARAMETER_ERROR unless it is an
    /// integer, string or bytes, or when the namespace or set name breaks the
    /// limits above. Complexity: one digest.
    static result<key> make(std::string ns, std::string set, value user_key) {
        result<void> names = check_names(ns, set);
        if (!names)
            return names.error();
        kv::digest d{};
        switch (user_key.type()) {
        case value_type::integer:
            d = compute_digest(set, user_key.as_int());
            break;
        case value_type::string:
            d = compute_digest(set, user_key.as_string());
            break;
        case value_type::bytes:
            d = digest_of_bytes(set, user_key.as_bytes());
            break;
        default:
            return bad_user_key(user_key);
        }
        // One key built, whatever the type: the digest as the typed
        // constructors compute it, the value as they store it.
        return key(std::move(ns), std::move(set), std::move(user_key), d);
    }

    /// A key known only by its digest (as a scan returns records whose user
    /// key was not stored). It has no user key, so it cannot be stored with
    /// send_key.
    static key from_digest(std::string ns, std::string set, const kv::digest& d) {
        return {std::move(ns), std::move(set), d};
    }

    /// PARAMETER_ERROR naming the limit when the namespace is empty or longer
    /// than 31 bytes or the set is longer than 63 bytes.
    static result<void> check_names(std::string_view ns, std::string_view set) {
        // Checked on every command: the messages are built out of line.
        if (ns.empty() || ns.size() > max_namespace_length || set.size() > max_set_length)
            return bad_names(ns, set);
        return {};
    }
    /// check_names for this key.
    result<void> check() const { return check_names(m_ns, m_set); }

    /// The namespace.
    KVMODEL_FORCE_INLINE const std::string& ns() const noexcept { return m_ns; }
    /// The set name; empty means no set.
    KVMODEL_FORCE_INLINE const std::string& set() const noexcept { return m_set; }
    /// Whether the key has a set.
    bool has_set() const noexcept { return !m_set.empty(); }
    /// The user key (int, string or bytes); nullopt for a digest-only key.
    const std::optional<value>& user_key() const noexcept { return m_user_key; }
    /// The 20-byte digest: RIPEMD-160 over the set, the key's type and its bytes.
    KVMODEL_FORCE_INLINE const kv::digest& digest() const noexcept { return m_digest; }
    /// The partition this key's record lives in, 0..4095. O(1).
    std::uint32_t partition_id() const noexcept { return kv::partition_id(m_digest); }

    /// Same record: same namespace and digest.
    friend bool operator==(const key& a, const key& b) noexcept {
        return a.m_digest == b.m_digest && a.m_ns == b.m_ns;
    }

private:
    [[gnu::cold, gnu::noinline]] static result<void> bad_names(std::string_view ns,
                                                               std::string_view set) {
        if (ns.empty())
            return fail(status::parameter_error, "key: the namespace name is empty");
        const bool long_ns = ns.size() > max_namespace_length;
        const std::string_view name = long_ns ? ns : set;
        return detail::fail_joined(
            status::parameter_error,
            {long_ns ? "key: namespace name '" : "key: set name '", name, "' is ",
             std::to_string(name.size()), " bytes, max ",
             std::to_string(long_ns ? max_namespace_length : max_set_length)});
    }

    // The digest of a bytes user key, its span made from (data, size): the
    // span constructor from a vector is several functions in every
    // header-only file.
    static kv::digest digest_of_bytes(std::string_view set, const kvmodel::bytes& b) noexcept {
        return compute_digest(set, key_type::bytes,
                              std::span<const std::uint8_t>(b.data(), b.size()));
    }

    [[gnu::cold, gnu::noinline]] static result<key> bad_user_key(const value& user_key) {
        return detail::fail_joined(status::parameter_error,
                                   {"key: a user key must be an integer, a string or bytes, got ",
                                    type_name(user_key.type()), " ", to_string(user_key)});
    }

    key(std::string ns, std::string set, const kv::digest& d)
        : m_ns(std::move(ns))
        , m_set(std::move(set))
        , m_digest(d) {}
    key(std::string ns, std::string set, value user_key, const kv::digest& d)
        : m_ns(std::move(ns))
        , m_set(std::move(set))
        , m_user_key(std::move(user_key))
        , m_digest(d) {}

    std::string m_ns;
    std::string m_set;
    std::optional<value> m_user_key;
    kv::digest m_digest{};
};

/// "ns:set:user_key" (the user key as to_string renders it), or
/// "ns:set:<digest hex>" for a digest-only key.
inline std::string to_string(const key& k) {
    std::string s = k.ns() + ":" + k.set() + ":";
    s += k.user_key() ? kvmodel::to_string(*k.user_key()) : to_hex(k.digest());
    return s;
}

} // namespace kvmodel::kv

// Hidden from Doxygen 1.9, which cannot place a std:: specialisation declared
// outside namespace std.
/// \cond std_hash
template <>
struct std::hash<kvmodel::kv::key> {
    std::size_t operator()(const kvmodel::kv::key& k) const noexcept {
        return kvmodel::kv::digest_hash{}(k.digest());
    }
};
/// \endcond
