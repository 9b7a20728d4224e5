// kvmodel/sim/detail/cluster_scan.hpp
//
// sim::cluster's commands over many records by partition: truncate (a set or
// a namespace, optionally before a last-update cutoff, as the server's
// truncate.c) and the paged scan and query (partition filters, resumable
// cursors, throttling, background operations).
//
// Only cluster.hpp includes this file, under KVMODEL_DEFINITIONS.
#pragma once

#include <kvmodel/sim/detail/record_engine.hpp>
#include <kvmodel/sim/detail/state.hpp>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace kvmodel::sim {

namespace detail {
/// 2010-01-01T00:00:00Z in Unix ms: the server's epoch (citrusleaf epoch); a
/// truncate cutoff at or before it converts to 0 and is refused.
inline constexpr std::int64_t server_epoch_ms = 1262304000000;
} // namespace detail

KVMODEL_DECL result<void> cluster::truncate(const std::string& ns_name,
                                            const std::string& set,
                                            std::optional<std::int64_t> before_ms) {
    detail::namespace_state* ns = find_ns(ns_name);
    if (ns == nullptr)
        return unknown_namespace("truncate", ns_name);
    const std::int64_t now = m_clock->now_ms();
    std::int64_t cutoff = now;
    if (before_ms) {
        if (*before_ms <= detail::server_epoch_ms)
            return fail(status::parameter_error,
                        "truncate: would truncate to 0 (cutoff " + std::to_string(*before_ms) +
                            " ms is not after the server's epoch, 2010-01-01)");
        if (*before_ms > now)
            return fail(status::parameter_error,
                        "truncate: would truncate in the future (cutoff " +
                            std::to_string(*before_ms) + " ms, now " + std::to_string(now) + ")");
        cutoff = *before_ms;
    }
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid) {
        detail::partition& p = ns->parts[pid];
        std::lock_guard lock(p.mu);
        const std::size_t n =
            ns->records[pid].erase_if([&](const kv::digest& d, const detail::entry& e) {
                if (e.last_update_ms >= cutoff || (!set.empty() && e.set() != set))
                    return false;
                p.depart(d, e, pid);
                return true;
            });
        if (n != 0)
            p.written(); // not client deletes: the counters stay as they are
    }
    return {};
}

} // namespace kvmodel::sim
