// kvmodel/core/status.hpp
//
// Result codes with Aerospike's names (lower case) and numbers, so a status
// from the simulator and one from a real server compare equal. Server codes are
// non-negative; client-side codes are negative, as in the C client's as_status.
#pragma once

#include <cstdint>
#include <string_view>

namespace kvmodel {

/// A command's result code: Aerospike's name (lower case) and number
/// (AEROSPIKE_ERR_* / as_status), so simulator and server statuses compare
/// equal; negative numbers are client-side codes. status_name() spells it.
enum class status : std::int16_t {
    // Client-side (negative, as the C client numbers them; as_status.h).
    metrics_conflict = -20,
    txn_already_aborted = -19,
    txn_already_committed = -18,
    txn_failed = -17,
    batch_failed = -16,
    no_response = -15,
    max_error_rate = -14,     // the client's per-node error limit (circuit breaker)
    use_normal_retry = -13,   // internal to the client's batch retry
    max_retries_exceeded = -12,
    async_queue_full = -11,
    connection = -10,
    tls_error = -9,
    invalid_node = -8,
    no_more_connections = -7,
    async_connection = -6,
    client_abort = -5,
    invalid_host = -4,
    no_more_records = -3,
    client_param = -2,
    client = -1,
    // Server.
    ok = 0,
    server_error = 1,
    record_not_found = 2,  // KEY_NOT_FOUND_ERROR
    generation_error = 3,
    parameter_error = 4,
    record_exists = 5,     // KEY_EXISTS_ERROR
    bin_exists_error = 6,
    cluster_key_mismatch = 7,
    server_mem_error = 8,
    timeout = 9,
    always_forbidden = 10,
    partition_unavailable = 11,
    bin_type_error = 12,
    record_too_big = 13,
    key_busy = 14,
    scan_abort = 15,
    unsupported_feature = 16,
    bin_not_found = 17,
    device_overload = 18,
    key_mismatch = 19,
    invalid_namespace = 20,
    bin_name_too_long = 21,
    fail_forbidden = 22,
    element_not_found = 23,
    element_exists = 24,
    enterprise_only = 25,
    op_not_applicable = 26,
    filtered_out = 27,
    lost_conflict = 28,
    query_end = 50,
    security_not_supported = 51,
    security_not_enabled = 52,
    invalid_user = 60,
    not_authenticated = 80,
    role_violation = 81,
    quota_exceeded = 83, // a user's read/write rate quota (Enterprise security)
    udf_bad_response = 100,
    batch_disabled = 150,
    index_found = 200,
    index_not_found = 201,
    query_aborted = 210,
};

namespace detail {
// The names of codes -20..28 (every one of them is a status), by code + 20:
// at -O0 a table costs no code, a switch case per code a string_view each.
inline constexpr std::string_view low_status_names[] = {
    "METRICS_CONFLICT",      // -20 metrics_conflict
    "TXN_ALREADY_ABORTED",   // -19 txn_already_aborted
    "TXN_ALREADY_COMMITTED", // -18 txn_already_committed
    "TXN_FAILED",            // -17 txn_failed
    "BATCH_FAILED",          // -16 batch_failed
    "NO_RESPONSE",           // -15 no_response
    "MAX_ERROR_RATE",        // -14 max_error_rate
    "USE_NORMAL_RETRY",      // -13 use_normal_retry
    "MAX_RETRIES_EXCEEDED",  // -12 max_retries_exceeded
    "ASYNC_QUEUE_FULL",      // -11 async_queue_full
    "CONNECTION",            // -10 connection
    "TLS_ERROR",             // -9 tls_error
    "INVALID_NODE",          // -8 invalid_node
    "NO_MORE_CONNECTIONS",   // -7 no_more_connections
    "ASYNC_CONNECTION",      // -6 async_connection
    "CLIENT_ABORT",          // -5 client_abort
    "INVALID_HOST",          // -4 invalid_host
    "NO_MORE_RECORDS",       // -3 no_more_records
    "PARAM",                 // -2 client_param
    "CLIENT",                // -1 client
    "OK",                    // 0 ok
    "SERVER_ERROR",          // 1 server_error
    "KEY_NOT_FOUND",         // 2 record_not_found
    "GENERATION_ERROR",      // 3 generation_error
    "PARAMETER_ERROR",       // 4 parameter_error
    "RECORD_EXISTS",         // 5 record_exists
    "BIN_EXISTS_ERROR",      // 6 bin_exists_error
    "CLUSTER_KEY_MISMATCH",  // 7 cluster_key_mismatch
    "SERVER_MEM_ERROR",      // 8 server_mem_error
    "TIMEOUT",               // 9 timeout
    "ALWAYS_FORBIDDEN",      // 10 always_forbidden
    "PARTITION_UNAVAILABLE", // 11 partition_unavailable
    "BIN_TYPE_ERROR",        // 12 bin_type_error
    "RECORD_TOO_BIG",        // 13 record_too_big
    "KEY_BUSY",              // 14 key_busy
    "SCAN_ABORT",            // 15 scan_abort
    "UNSUPPORTED_FEATURE",   // 16 unsupported_feature
    "BIN_NOT_FOUND",         // 17 bin_not_found
    "DEVICE_OVERLOAD",       // 18 device_overload
    "KEY_MISMATCH",          // 19 key_mismatch
    "INVALID_NAMESPACE",     // 20 invalid_namespace
    "BIN_NAME_TOO_LONG",     // 21 bin_name_too_long
    "FAIL_FORBIDDEN",        // 22 fail_forbidden
    "ELEMENT_NOT_FOUND",     // 23 element_not_found
    "ELEMENT_EXISTS",        // 24 element_exists
    "ENTERPRISE_ONLY",       // 25 enterprise_only
    "OP_NOT_APPLICABLE",     // 26 op_not_applicable
    "FILTERED_OUT",          // 27 filtered_out
    "LOST_CONFLICT",         // 28 lost_conflict
};
} // namespace detail

/// Aerospike's upper-case name of a status, as the server, the clients and
/// `kvmodel cdt` output spell it (KEY_NOT_FOUND for record_not_found).
constexpr std::string_view status_name(status s) noexcept {
    int code = static_cast<int>(s);
    if (code >= -20 && code <= 28) return detail::low_status_names[code + 20];
    switch (s) {
    case status::query_end: return "QUERY_END";
    case status::security_not_supported: return "SECURITY_NOT_SUPPORTED";
    case status::security_not_enabled: return "SECURITY_NOT_ENABLED";
    case status::invalid_user: return "INVALID_USER";
    case status::not_authenticated: return "NOT_AUTHENTICATED";
    case status::role_violation: return "ROLE_VIOLATION";
    case status::quota_exceeded: return "QUOTA_EXCEEDED";
    case status::udf_bad_response: return "UDF_BAD_RESPONSE";
    case status::batch_disabled: return "BATCH_DISABLED";
    case status::index_found: return "INDEX_FOUND";
    case status::index_not_found: return "INDEX_NOT_FOUND";
    case status::query_aborted: return "QUERY_ABORTED";
    default: return "UNKNOWN";
    }
}

/// The numeric result code (what Aerospike puts on the wire).
constexpr int status_code(status s) noexcept { return static_cast<int>(s); }

} // namespace kvmodel
