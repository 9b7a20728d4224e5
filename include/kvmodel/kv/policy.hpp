// kvmodel/kv/policy.hpp
//
// Read and write policies with Aerospike's meanings and the C client's
// defaults (as_policy_read / as_policy_write / as_policy_operate /
// as_policy_remove):
//
// * record-exists action: UPDATE (create or merge bins), UPDATE_ONLY (fail
//   KEY_NOT_FOUND if missing), REPLACE (create or replace all bins),
//   REPLACE_ONLY, CREATE_ONLY (fail RECORD_EXISTS if present). The replace
//   actions accept only bin writes of non-nil values: a bin delete, a modify
//   op (add/append/prepend, CDT or bit modify), delete-record or touch with a
//   replace action is PARAMETER_ERROR, as the server checks.
// * generation policy: none, EQ (write only if the record's generation equals
//   `generation`), GT (only if `generation` is greater) -> GENERATION_ERROR.
//   A record being created has generation 0 for the check.
// * ttl, in seconds: ttl_namespace_default (0), ttl_never_expire (-1),
//   ttl_dont_update (-2; the namespace default when the write creates the
//   record), or 1 .. 10 years; anything else is PARAMETER_ERROR.
// * timeouts (per attempt and total) and retries: a store that models
//   latency times an attempt out past socket_timeout and gives up past
//   total_timeout; zero means no limit. A retried write that timed out may
//   apply twice — that is Aerospike's behaviour, and why patterns write
//   idempotently.
// * durable_delete: leave a tombstone (Enterprise); Community refuses a write
//   that deletes the record with it (ENTERPRISE_ONLY).
// * send_key: store the user key with the record (it then counts in the
//   record's size, see record_size.hpp).
// * filter_exp: a filter expression, packed (exp::expr::bytes(), or the C
//   client's as_exp::packed): the command runs only on a record for which it
//   is true; false or unknown fails the command FILTERED_OUT (27), skips the
//   record in a scan or query, fails that key in a batch. A write or touch
//   that creates the record does not evaluate it (the server filters
//   existing records only); a read or remove of a missing record fails
//   KEY_NOT_FOUND first. Kept as bytes here so this header stays light; the
//   engine is <kvmodel/exp/eval.hpp>. Empty = no filter.
#pragma once

#include <kvmodel/core/result.hpp>
#include <kvmodel/kv/status.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kvmodel::kv {

/// What a write does depending on whether the record exists (as_policy_exists).
enum class record_exists_action : std::uint8_t {
    update = 0,       ///< create or update (merge bins)
    update_only = 1,  ///< update; KEY_NOT_FOUND when missing
    replace = 2,      ///< create or replace every bin
    replace_only = 3, ///< replace; KEY_NOT_FOUND when missing
    create_only = 4,  ///< create; RECORD_EXISTS when present
};

/// Generation check before a write (as_policy_gen).
enum class generation_policy : std::uint8_t {
    none = 0, ///< no check
    eq = 1,   ///< write only if the record's generation == policy generation
    gt = 2,   ///< write only if policy generation > the record's generation
};

/// Special TTL values (seconds otherwise).
inline constexpr std::int64_t ttl_namespace_default = 0;
/// -1: the record never expires.
inline constexpr std::int64_t ttl_never_expire = -1;
/// -2: a write keeps the record's current expiry.
inline constexpr std::int64_t ttl_dont_update = -2;
/// Longest TTL the server accepts: 10 years (MAX_ALLOWED_TTL).
inline constexpr std::int64_t max_ttl = std::int64_t{3600} * 24 * 365 * 10;

/// What every command has: timeouts and retries.
struct base_policy {
    /// Per-attempt limit; zero = none.
    std::chrono::milliseconds socket_timeout{30000};
    /// Limit over all attempts; zero = none.
    std::chrono::milliseconds total_timeout{1000};
    /// Attempts after the first one that timed out or found the partition
    /// unavailable.
    std::uint32_t max_retries = 0;
    /// Pause before a retry (counts toward total_timeout).
    std::chrono::milliseconds sleep_between_retries{0};
    /// A packed filter expression (see the header comment); empty = none.
    std::vector<std::uint8_t> filter_exp;
};

/// Policy of reads (get, exists, batch reads, scans, queries).
struct read_policy : base_policy {
    read_policy() { max_retries = 2; }
};

/// Policy of writes (put, operate, remove, touch).
struct write_policy : base_policy {
    /// What to do when the record exists (or does not): update, create only, replace, ...
    record_exists_action exists = record_exists_action::update;
    /// Whether the write checks the record's generation against `generation`.
    generation_policy gen = generation_policy::none;
    /// The generation the check compares against.
    std::uint32_t generation = 0;
    /// Seconds, or ttl_namespace_default / ttl_never_expire / ttl_dont_update.
    std::int64_t ttl = ttl_namespace_default;
    /// Leave a tombstone on delete (Enterprise; Community answers ENTERPRISE_ONLY).
    bool durable_delete = false;
    /// Store the user key with the record (as_policy_key SEND).
    bool send_key = false;
};

/// The write policy a read-only command runs under when it goes through
/// operate(): the read policy's timeouts and retries, nothing else.
inline write_policy as_write_policy(const read_policy& rp) {
    write_policy wp;
    static_cast<base_policy&>(wp) = rp;
    return wp;
}

namespace detail {
[[gnu::cold, gnu::noinline]] inline result<void> bad_ttl(std::int64_t ttl, std::string_view what) {
    return fail_joined(status::parameter_error,
                       {what, ": ttl ", std::to_string(ttl),
                        " is invalid (0 = namespace default, -1 = never expire, -2 = don't "
                        "update, else 1..",
                        std::to_string(max_ttl), " seconds)"});
}
} // namespace detail

/// PARAMETER_ERROR when ttl is none of the special values and not within
/// 1 .. 10 years, naming the operation.
inline result<void> check_ttl(std::int64_t ttl, std::string_view what) {
    if (ttl == ttl_never_expire || ttl == ttl_dont_update || (ttl >= 0 && ttl <= max_ttl))
        return {};
    return detail::bad_ttl(ttl, what);
}

/// Aerospike's name of an exists action ("CREATE_ONLY").
constexpr std::string_view exists_action_name(record_exists_action a) noexcept {
    switch (a) {
    case record_exists_action::update:
        return "UPDATE";
    case record_exists_action::update_only:
        return "UPDATE_ONLY";
    case record_exists_action::replace:
        return "REPLACE";
    case record_exists_action::replace_only:
        return "REPLACE_ONLY";
    case record_exists_action::create_only:
        return "CREATE_ONLY";
    }
    return "?";
}

} // namespace kvmodel::kv
