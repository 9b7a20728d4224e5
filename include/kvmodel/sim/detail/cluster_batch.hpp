// kvmodel/sim/detail/cluster_batch.hpp
//
// sim::cluster::batch_operate (kv/batch.hpp): the client's batch command
// split by node, one round trip per node per attempt, each record run by the
// same server code as its single-record command (serve_get / serve_operate /
// serve_remove) under its partition's lock, in batch order.
//
// A node failing mid-batch, as the clients see it: records are answered in
// order on a node's stream, so the records before the fault keep their
// answers; from the faulted record on, the node's part fails — a lost
// request (timeout fault) applies nothing more, a lost answer (in-doubt fault,
// latency past the socket timeout) lets the server apply the rest, a crash
// applies the record it dies under and nothing after. Records without an
// answer get the node's error (TIMEOUT, CONNECTION) and are retried within
// max_retries; a write or delete among them is in doubt once an attempt was
// sent and its answer lost (sticky across retries, as the C client).
//
// Only cluster.hpp includes this file, under KVMODEL_DEFINITIONS.
#pragma once

#include <kvmodel/kv/batch.hpp>
#include <kvmodel/sim/detail/record_engine.hpp>
#include <kvmodel/sim/detail/state.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::sim {

namespace detail {
// One node's part of a batch attempt.
struct batch_group {
    namespace_state* ns = nullptr;
    int node = -1;
    bool sent = false;
    // Set when the node's part failed at a record: the error the rest get,
    // whether the server still applies the rest, and whether the answer was
    // lost after sending (in doubt for writes).
    std::optional<error> broken;
    bool rest_applied = false;
    bool lost = false;
    // respond_all_keys false and a record failed: the rest are not run.
    bool stopped = false;
};
} // namespace detail

KVMODEL_DECL std::vector<result<kv::record>>
cluster::batch_operate(std::span<const kv::batch_record> batch, const kv::batch_policy& bp) {
    static constexpr std::string_view cmd = "batch_operate";
    using std::chrono::microseconds;
    using kind = kv::batch_record::kind;
    const std::size_t n = batch.size();
    std::vector<result<kv::record>> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        out.emplace_back(fail(status::no_response, "batch_operate: no answer"));
    // The batch policy's filter applies to a record without its own (as the
    // clients' batch sub-policies inherit it).
    const bool inherit = !bp.filter_exp.empty();
    std::vector<kv::write_policy> policies; // per record, the policy it runs under
    std::vector<bool> read_only(n, false);
    std::vector<bool> touches(n, false);
    std::vector<bool> lost(n, false);
    std::vector<std::size_t> pending;
    policies.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const kv::batch_record& br = batch[i];
        policies.push_back(br.type == kind::read ? kv::as_write_policy(br.rp) : br.wp);
        kv::write_policy& wp = policies.back();
        if (inherit && wp.filter_exp.empty())
            wp.filter_exp = bp.filter_exp;
        if (find_ns(br.k.ns()) == nullptr) {
            out[i] = unknown_namespace(cmd, br.k.ns());
            continue;
        }
        if (result<void> c = br.k.check(); !c) {
            out[i] = error{c.error().code, std::string(cmd) + ": " + c.error().message};
            continue;
        }
        if (br.type != kind::remove && !(br.type == kind::read && br.ops.empty())) {
            detail::failure_info fi;
            if (result<void> c = detail::check_command(br.ops, wp, cmd, fi); !c) {
                out[i] = c.error();
                continue;
            }
            read_only[i] = detail::is_read_only(br.ops);
            if (br.type == kind::read && !read_only[i]) {
                out[i] = fail(status::parameter_error,
                              "batch_operate: record " + std::to_string(i) +
                                  " is a read but holds a write operation (use a batch write)");
                continue;
            }
            touches[i] = std::any_of(br.ops.begin(), br.ops.end(), [](const kv::operation& o) {
                return kv::kind(o) == kv::op_kind::touch;
            });
        }
        pending.push_back(i);
    }
    const std::uint64_t command = m_faults.begin_command();
    const auto socket_to = std::chrono::duration_cast<microseconds>(bp.socket_timeout);
    for (std::uint32_t attempt = 0; !pending.empty(); ++attempt) {
        std::vector<std::size_t> retry;
        std::vector<detail::batch_group> groups;
        const time_ms now = m_clock->now_ms();
        for (std::size_t i : pending) {
            const kv::batch_record& br = batch[i];
            const kv::key& k = br.k;
            const bool is_write = br.type != kind::read;
            detail::namespace_state* ns = find_ns(k.ns());
            detail::attempt_info info{command, attempt, now, &ns->name, &k.digest(), is_write, -1};
            if (command != 0)
                apply_topology_faults(info);
            detail::partition& p = ns->parts[k.partition_id()];
            std::lock_guard lock(p.mu);
            const int node = p.master();
            if (node < 0) {
                p.account([](counters& c) {
                    ++c.ops;
                    ++c.errors;
                    ++c.unavailable;
                });
                out[i] = fail(status::partition_unavailable,
                              "batch_operate: partition " + std::to_string(k.partition_id()) +
                                  " has no live copy");
                retry.push_back(i);
                continue;
            }
            auto g = std::find_if(groups.begin(), groups.end(), [&](const detail::batch_group& x) {
                return x.ns == ns && x.node == node;
            });
            if (g == groups.end()) {
                groups.emplace_back();
                groups.back().ns = ns;
                groups.back().node = node;
                g = groups.end() - 1;
            }
            info.node = node;
            bool applied = false;
            const kv::write_policy& wp = policies[i];
            // The server's answer for this record, run under the lock.
            const auto serve = [&]() -> result<kv::record> {
                switch (br.type) {
                case kind::read:
                    if (br.ops.empty())
                        return serve_get(*ns, p, k, wp, now, cmd);
                    break;
                case kind::remove:
                    return serve_remove(*ns, p, k, wp, now, cmd, applied);
                case kind::write:
                    break;
                }
                detail::failure_info fi;
                return serve_operate(
                    *ns, p, k, br.ops, wp, read_only[i], touches[i], now, cmd, applied, fi);
            };
            if (g->stopped) {
                out[i] = kv::detail::batch_not_reached(i);
                continue;
            }
            if (g->broken) {
                p.account([](counters& c) {
                    ++c.ops;
                    ++c.errors;
                });
                if (g->rest_applied)
                    (void)serve();
                out[i] = *g->broken;
                lost[i] = lost[i] || g->lost;
                retry.push_back(i);
                continue;
            }
            if (!error_rate_ok(node, now)) {
                p.account([](counters& c) {
                    ++c.ops;
                    ++c.errors;
                });
                out[i] =
                    fail(status::max_error_rate,
                         "batch_operate: max error rate exceeded (node " + std::to_string(node) +
                             ")");
                retry.push_back(i);
                continue;
            }
            const fault_effects fx = command != 0 ? m_faults.effects(info) : fault_effects{};
            if (fx.refused) {
                p.account([](counters& c) {
                    ++c.ops;
                    ++c.errors;
                });
                add_node_error(node, now);
                g->broken = error{status::connection,
                                  "batch_operate: connection refused by node " +
                                      std::to_string(node) + " (dead)"};
                out[i] = *g->broken;
                retry.push_back(i);
                continue;
            }
            g->sent = true;
            p.account([](counters& c) { ++c.ops; });
            const microseconds latency = m_cfg.base_latency + fx.latency;
            const bool late = socket_to.count() > 0 && latency > socket_to;
            if (is_write && !fx.timeout && !admit_write(*ns, p, k, now, latency)) {
                p.account([](counters& c) {
                    ++c.errors;
                    ++c.key_busy;
                });
                out[i] = fail(status::key_busy,
                              "batch_operate: key busy (more than " +
                                  std::to_string(ns->transaction_pending_limit) +
                                  " writes waiting on the record; transaction-pending-limit)");
                continue;
            }
            if (fx.timeout) {
                add_node_error(node, now);
                g->broken = timed_out(p, cmd, fx, late, latency, true, false);
                g->lost = true;
                out[i] = *g->broken;
                lost[i] = true;
                retry.push_back(i);
                continue;
            }
            result<kv::record> r = serve();
            if (fx.in_doubt || late || fx.crashed) {
                add_node_error(node, now);
                const bool doubt = is_write && applied;
                g->broken = fx.crashed && !late
                                ? connection_lost(p, cmd, node, r.has_value(), doubt)
                                : timed_out(p, cmd, fx, late, latency, r.has_value(), doubt);
                g->rest_applied = !fx.crashed || late;
                g->lost = true;
                out[i] = *g->broken;
                lost[i] = true;
                retry.push_back(i);
                continue;
            }
            if (!r && !bp.respond_all_keys && kv::detail::stops_batch(r.error()))
                g->stopped = true;
            out[i] = std::move(r);
        }
        for (const detail::batch_group& g : groups)
            if (g.sent)
                g.ns->extras[static_cast<std::size_t>(g.node)].round_trips.fetch_add(
                    1, std::memory_order_relaxed);
        if (attempt >= bp.max_retries)
            break;
        pending = std::move(retry);
    }
    for (std::size_t i = 0; i < n; ++i)
        if (!out[i] && lost[i] && batch[i].type != kind::read)
            out[i] = [&] {
                error e = out[i].error();
                e.in_doubt = true;
                return e;
            }();
    return out;
}

} // namespace kvmodel::sim
