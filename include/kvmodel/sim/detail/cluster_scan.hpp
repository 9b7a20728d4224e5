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

#include <algorithm>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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
    // Not client deletes: the counters stay as they are; the bytes the
    // records held are freed (capacity), as nsup's removals free them.
    remove_records(*ns, [&](const detail::entry& e) {
        return e.last_update_ms < cutoff && (set.empty() || e.set() == set);
    });
    return {};
}

} // namespace kvmodel::sim

namespace kvmodel::sim {

KVMODEL_DECL result<cluster::record_matcher> cluster::query_matcher(const kv::query_request& req,
                                                                    std::string_view cmd) {
    detail::namespace_state* ns = find_ns(req.ns);
    if (ns == nullptr)
        return unknown_namespace(cmd, req.ns);
    const kv::filter& f = req.where;
    std::optional<kv::index_type> type = index_type_of(f.begin);
    if (!type)
        return fail(status::parameter_error,
                    std::string(cmd) + ": filter value must be an integer, string or bytes, got " +
                        std::string(type_name(f.begin.type())));
    if (f.end && (!f.begin.is_int() || !f.end->is_int()))
        return fail(status::parameter_error,
                    std::string(cmd) + ": a range filter needs integer bounds");
    kv::index_spec ix;
    {
        std::shared_lock lock(ns->index_mu);
        // The server's lookup (as_sindex_lookup_by_defn): the query's set,
        // then an index on the whole namespace.
        const auto find = [&](const std::string& set) -> const kv::index_spec* {
            for (const kv::index_spec& x : ns->indexes)
                if (detail::same_index_source(x, set, f.bin, *type, f.collection, f.ctx, f.exp))
                    return &x;
            return nullptr;
        };
        const kv::index_spec* x = find(req.set);
        if (x == nullptr && !req.set.empty())
            x = find(std::string());
        if (x == nullptr)
            return fail(
                status::index_not_found,
                std::string(cmd) + ": no " + std::string(index_type_name(*type)) + " index on " +
                    (f.exp.empty() ? "bin '" + f.bin + "'" : std::string("the expression")) +
                    (f.ctx.empty() ? "" : " at that ctx") +
                    (req.set.empty() ? "" : " covering set '" + req.set + "'"));
        ix = *x;
    }
    return record_matcher(
        [f, ix = std::move(ix), clock = m_clock](const kv::digest& d, const detail::entry& e) {
            const std::vector<value> vals = indexed_values(ix, e, d, clock->now_ms());
            return std::any_of(vals.begin(), vals.end(), [&f](const value& v) {
                if (f.end)
                    return v.is_int() && v.as_int() >= f.begin.as_int() &&
                           v.as_int() <= f.end->as_int();
                return v.type() == f.begin.type() && v == f.begin;
            });
        });
}

KVMODEL_DECL result<std::vector<kv::keyed_record>> cluster::scan_page(const kv::scan_request& req,
                                                                      kv::partition_cursor& cursor,
                                                                      const kv::read_policy& rp) {
    return walk(req.ns,
                req.set,
                req.bins,
                req.max_records,
                cursor,
                rp,
                "scan",
                [](const kv::digest&, const detail::entry&) { return true; });
}

KVMODEL_DECL result<std::vector<kv::keyed_record>> cluster::query_page(const kv::query_request& req,
                                                                       kv::partition_cursor& cursor,
                                                                       const kv::read_policy& rp) {
    result<record_matcher> keep = query_matcher(req, "query");
    if (!keep)
        return std::move(keep).error();
    return walk(req.ns, req.set, req.bins, req.max_records, cursor, rp, "query", *keep);
}

} // namespace kvmodel::sim

namespace kvmodel::sim {

KVMODEL_DECL result<kv::background_result> cluster::background(const std::string& ns_name,
                                                               const std::string& set,
                                                               const record_matcher& keep,
                                                               std::span<const kv::operation> ops,
                                                               const kv::write_policy& wp,
                                                               std::string_view cmd) {
    detail::namespace_state* ns = find_ns(ns_name);
    if (ns == nullptr)
        return unknown_namespace(cmd, ns_name);
    detail::failure_info pre;
    if (result<void> c = detail::check_command(ops, wp, cmd, pre); !c)
        return c.error();
    if (std::any_of(ops.begin(), ops.end(), [](const kv::operation& o) { return kv::is_read(o); }))
        return fail(status::parameter_error,
                    std::string(cmd) + ": a background job takes write operations only");
    const bool has_touch = std::any_of(ops.begin(), ops.end(), [](const kv::operation& o) {
        return kv::kind(o) == kv::op_kind::touch;
    });
    const std::int64_t now_ms = m_clock->now_ms();
    const std::int64_t now_s = now_ms / 1000;
    std::vector<bool> touched(m_cfg.nodes, false);
    kv::background_result done;
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid) {
        detail::partition& p = ns->parts[pid];
        std::lock_guard lock(p.mu);
        const int node = p.master();
        if (node < 0)
            return fail(status::partition_unavailable,
                        std::string(cmd) + ": partition " + std::to_string(pid) +
                            " has no live copy");
        touched[static_cast<std::size_t>(node)] = true;
        // The keys first: a write may delete its record under the walk.
        std::vector<kv::key> keys;
        for (auto& [d, e] : ns->records[pid])
            if (!e.expired(now_s) && (set.empty() || e.set() == set) && keep(d, e))
                keys.push_back(kv::key::from_digest(ns->name, e.set(), d));
        done.matched += keys.size();
        for (const kv::key& k : keys) {
            bool applied = false;
            detail::failure_info fi;
            result<kv::record> r =
                serve_operate(*ns, p, k, ops, wp, false, has_touch, now_ms, cmd, applied, fi);
            if (r) {
                ++done.written;
            } else if (r.code() == status::filtered_out) {
                ++done.skipped;
            } else {
                ++done.failed;
                if (!done.first_error)
                    done.first_error = r.error();
            }
        }
    }
    for (std::uint32_t n = 0; n < m_cfg.nodes; ++n)
        if (touched[n])
            ns->extras[n].round_trips.fetch_add(1, std::memory_order_relaxed);
    return done;
}

KVMODEL_DECL result<kv::background_result> cluster::query_background(
    const kv::query_request& req, std::span<const kv::operation> ops, const kv::write_policy& wp) {
    result<record_matcher> keep = query_matcher(req, "query_background");
    if (!keep)
        return std::move(keep).error();
    return background(req.ns, req.set, *keep, ops, wp, "query_background");
}

KVMODEL_DECL result<kv::background_result> cluster::scan_background(
    const kv::scan_request& req, std::span<const kv::operation> ops, const kv::write_policy& wp) {
    return background(
        req.ns,
        req.set,
        [](const kv::digest&, const detail::entry&) { return true; },
        ops,
        wp,
        "scan_background");
}

} // namespace kvmodel::sim
