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

namespace kvmodel::kv {

using kvmodel::error;
using kvmodel::result;
using kvmodel::status;
using kvmodel::status_code;
using kvmodel::status_name;

/// Whether a command failing with s may succeed if sent again unchanged:
/// timeouts, an unavailable partition, a busy key, an overloaded device.
/// A retried write that timed out may apply twice (see is_in_doubt).
constexpr bool is_transient(status s) noexcept {
    switch (s) {
    case status::timeout:
    case status::partition_unavailable:
    case status::key_busy:
    case status::device_overload:
    case status::max_retries_exceeded:
    case status::no_more_connections:
    case status::connection:
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

} // namespace kvmodel::kv
