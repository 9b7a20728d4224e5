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

/// Aerospike's upper-case name of a status, as the server, the clients and
/// `kvmodel cdt` output spell it (KEY_NOT_FOUND for record_not_found).
constexpr std::string_view status_name(status s) noexcept {
    switch (s) {
    case status::metrics_conflict: return "METRICS_CONFLICT";
    case status::txn_already_aborted: return "TXN_ALREADY_ABORTED";
    case status::txn_already_committed: return "TXN_ALREADY_COMMITTED";
    case status::txn_failed: return "TXN_FAILED";
    case status::batch_failed: return "BATCH_FAILED";
    case status::no_response: return "NO_RESPONSE";
    case status::max_error_rate: return "MAX_ERROR_RATE";
    case status::use_normal_retry: return "USE_NORMAL_RETRY";
    case status::max_retries_exceeded: return "MAX_RETRIES_EXCEEDED";
    case status::async_queue_full: return "ASYNC_QUEUE_FULL";
    case status::connection: return "CONNECTION";
    case status::tls_error: return "TLS_ERROR";
    case status::invalid_node: return "INVALID_NODE";
    case status::no_more_connections: return "NO_MORE_CONNECTIONS";
    case status::async_connection: return "ASYNC_CONNECTION";
    case status::client_abort: return "CLIENT_ABORT";
    case status::invalid_host: return "INVALID_HOST";
    case status::no_more_records: return "NO_MORE_RECORDS";
    case status::client_param: return "PARAM";
    case status::client: return "CLIENT";
    case status::ok: return "OK";
    case status::server_error: return "SERVER_ERROR";
    case status::record_not_found: return "KEY_NOT_FOUND";
    case status::generation_error: return "GENERATION_ERROR";
    case status::parameter_error: return "PARAMETER_ERROR";
    case status::record_exists: return "RECORD_EXISTS";
    case status::bin_exists_error: return "BIN_EXISTS_ERROR";
    case status::cluster_key_mismatch: return "CLUSTER_KEY_MISMATCH";
    case status::server_mem_error: return "SERVER_MEM_ERROR";
    case status::timeout: return "TIMEOUT";
    case status::always_forbidden: return "ALWAYS_FORBIDDEN";
    case status::partition_unavailable: return "PARTITION_UNAVAILABLE";
    case status::bin_type_error: return "BIN_TYPE_ERROR";
    case status::record_too_big: return "RECORD_TOO_BIG";
    case status::key_busy: return "KEY_BUSY";
    case status::scan_abort: return "SCAN_ABORT";
    case status::unsupported_feature: return "UNSUPPORTED_FEATURE";
    case status::bin_not_found: return "BIN_NOT_FOUND";
    case status::device_overload: return "DEVICE_OVERLOAD";
    case status::key_mismatch: return "KEY_MISMATCH";
    case status::invalid_namespace: return "INVALID_NAMESPACE";
    case status::bin_name_too_long: return "BIN_NAME_TOO_LONG";
    case status::fail_forbidden: return "FAIL_FORBIDDEN";
    case status::element_not_found: return "ELEMENT_NOT_FOUND";
    case status::element_exists: return "ELEMENT_EXISTS";
    case status::enterprise_only: return "ENTERPRISE_ONLY";
    case status::op_not_applicable: return "OP_NOT_APPLICABLE";
    case status::filtered_out: return "FILTERED_OUT";
    case status::lost_conflict: return "LOST_CONFLICT";
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
    }
    return "UNKNOWN";
}

/// The numeric result code (what Aerospike puts on the wire).
constexpr int status_code(status s) noexcept { return static_cast<int>(s); }

} // namespace kvmodel
