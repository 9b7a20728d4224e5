// kvmodel/kv/status.hpp
//
// The KV layer's result codes are core's (core/status.hpp: Aerospike's names
// and numbers); this header brings them into kvmodel::kv and adds the
// classifications a client needs after a failed command: whether it may be
// retried as is, and whether a failed write may nevertheless have been
// applied ("in doubt", error::in_doubt, as Aerospike's clients report it).
#pragma once

#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

namespace kvmodel::kv {

using kvmodel::error;
using kvmodel::result;
using kvmodel::status;
using kvmodel::status_code;
using kvmodel::status_name;

/// Whether a command failing with s may succeed if sent again unchanged,
/// after a pause: the one definition every retry loop in kvmodel uses (the
/// patterns' kv::retry, the simulator's client loop).
///
/// | transient                         | why                                     |
/// |-----------------------------------|-----------------------------------------|
/// | TIMEOUT (9)                       | the answer did not come in time         |
/// | PARTITION_UNAVAILABLE (11)        | a node left; migration or failover next |
/// | KEY_BUSY (14)                     | hot key: the record's queue is full     |
/// | DEVICE_OVERLOAD (18)              | the node's storage is behind            |
/// | CONNECTION (-10)                  | a socket failed or was refused          |
/// | INVALID_NODE (-8)                 | no node for the partition until tend    |
/// | NO_MORE_CONNECTIONS (-7)          | the node's connection pool is full      |
/// | MAX_ERROR_RATE (-14)              | the client's per-node circuit breaker   |
/// | MAX_RETRIES_EXCEEDED (-12)        | the client's own retries ran out        |
/// | NO_RESPONSE (-15)                 | a batch key got no answer               |
/// | ASYNC_QUEUE_FULL (-11), ASYNC_CONNECTION (-6), USE_NORMAL_RETRY (-13) | the async and batch forms of the above |
///
/// Everything else is definite: sending it again gets the same answer
/// (PARAM, CLIENT, TLS_ERROR, INVALID_HOST, the transaction codes, server
/// errors). Whether a failed write may have been applied is a separate
/// question (is_in_doubt): a transient error can be in doubt or not, and
/// retrying a write that is in doubt must be idempotent.
constexpr bool is_transient(status s) noexcept {
    switch (s) {
    case status::timeout:
    case status::partition_unavailable:
    case status::key_busy:
    case status::device_overload:
    case status::connection:
    case status::invalid_node:
    case status::no_more_connections:
    case status::max_error_rate:
    case status::max_retries_exceeded:
    case status::no_response:
    case status::async_queue_full:
    case status::async_connection:
    case status::use_normal_retry:
        return true;
    default:
        return false;
    }
}

/// Whether a failed write may have been applied: the server may have
/// written it before the client gave up (a timeout, a lost connection).
inline bool is_in_doubt(const error& e) noexcept {
    return e.in_doubt;
}

namespace detail {
/// A failure of `code` whose message is `parts` joined. The checks' message
/// builders use it instead of chains of std::string operator+, each of whose
/// temporaries is a call and a cleanup path in every header-only file.
[[gnu::cold]] inline failure fail_joined(status code, std::initializer_list<std::string_view> parts) {
    // By index and append(data, size): no initializer_list::end() nor the
    // string_view templates of operator+= in every header-only file.
    std::string m;
    const std::string_view* p = parts.begin();
    for (std::size_t i = 0; i < parts.size(); ++i)
        m.append(p[i].data(), p[i].size());
    return fail(code, std::move(m));
}
} // namespace detail

} // namespace kvmodel::kv
