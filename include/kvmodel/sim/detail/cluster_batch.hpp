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
#include <memory>
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
    // The node's error rate was under its limit when the part was sent
    // (error_rate_ok, once per node per attempt: a node error sets broken).
    bool rate_ok = true;
};
} // namespace detail

KVMODEL_DECL std::vector<result<kv::record>>
cluster::batch_operate(std::span<const kv::batch_record> batch, const kv::batch_policy& bp) {
    static constexpr std::string_view cmd = "batch_operate";
    using std::chrono::microseconds;
    using kind = kv::batch_record::kind;
    const std::size_t n = batch.size();
    // Built in batch order by the first attempt (answers constructed in
    // place, not assigned over placeholders); retries assign.
    std::vector<result<kv::record>> out;
    out.reserve(n);
    // The policy each record runs under: its own, or a copy when it needs
    // one (a read through operate; the batch policy's filter, which applies
    // to a record without its own, as the clients' batch sub-policies
    // inherit it).
    const bool inherit = !bp.filter_exp.empty();
    struct slot {
        const kv::write_policy* wp = nullptr;
        detail::namespace_state* ns = nullptr;
        std::uint8_t flags = 0; // read_only | touches | lost | bad
    };
    // The records failing before they are sent (rare), with their errors.
    std::vector<std::pair<std::size_t, error>> bad;
    std::vector<slot> slots(n);
    std::vector<std::unique_ptr<kv::write_policy>> copies;
    constexpr std::uint8_t read_only = 1;
    constexpr std::uint8_t touches = 2;
    constexpr std::uint8_t lost = 4;
    constexpr std::uint8_t failed = 8;
    std::vector<std::size_t> pending;
    pending.reserve(n);
    // What fails a record before it is sent: the checks of its command.
    const auto precheck = [&](std::size_t i, slot& sl) -> std::optional<error> {
        const kv::batch_record& br = batch[i];
        if (sl.ns == nullptr)
            return unknown_namespace(cmd, br.k.ns());
        if (result<void> c = br.k.check(); !c)
            return error{c.error().code, std::string(cmd) + ": " + c.error().message, false};
        if (br.type == kind::remove || (br.type == kind::read && br.ops.empty()))
            return std::nullopt;
        detail::failure_info fi;
        if (result<void> c = detail::check_command(br.ops, *sl.wp, cmd, fi); !c)
            return c.error();
        if (detail::is_read_only(br.ops))
            sl.flags |= read_only;
        else if (br.type == kind::read)
            return error{status::parameter_error,
                         "batch_operate: record " + std::to_string(i) +
                             " is a read but holds a write operation (use a batch write)",
                         false};
        if (std::any_of(br.ops.begin(), br.ops.end(), [](const kv::operation& o) {
                return kv::kind(o) == kv::op_kind::touch;
            }))
            sl.flags |= touches;
        return std::nullopt;
    };
    for (std::size_t i = 0; i < n; ++i) {
        const kv::batch_record& br = batch[i];
        const kv::base_policy& own = br.type == kind::read
                                         ? static_cast<const kv::base_policy&>(br.rp)
                                         : static_cast<const kv::base_policy&>(br.wp);
        if (br.type == kind::read || (inherit && own.filter_exp.empty())) {
            copies.push_back(std::make_unique<kv::write_policy>(
                br.type == kind::read ? kv::as_write_policy(br.rp) : br.wp));
            if (inherit && own.filter_exp.empty())
                copies.back()->filter_exp = bp.filter_exp;
            slots[i].wp = copies.back().get();
        } else {
            slots[i].wp = &br.wp;
        }
        slots[i].ns = find_ns(br.k.ns());
        if (std::optional<error> e = precheck(i, slots[i])) {
            slots[i].flags |= failed;
            bad.emplace_back(i, std::move(*e));
        }
        pending.push_back(i);
    }
    const std::uint64_t command = m_faults.begin_command();
    const auto socket_to = std::chrono::duration_cast<microseconds>(bp.socket_timeout);
    for (std::uint32_t attempt = 0; !pending.empty(); ++attempt) {
        std::vector<std::size_t> retry;
        std::vector<detail::batch_group> groups;
        groups.reserve(m_cfg.nodes);
        const time_ms now = m_clock->now_ms();
        if (attempt == 0) { // the stop-writes evaluation and nsup due, as run() does
            detail::namespace_state* last = nullptr;
            for (std::size_t i : pending)
                if (slots[i].ns != nullptr && slots[i].ns != last)
                    maintain(*(last = slots[i].ns), now);
        }
        for (std::size_t at = 0; at < pending.size(); ++at) {
            const std::size_t i = pending[at];
            // The partitions and record slots a few records ahead are likely
            // cold: ask for them now, so their misses overlap this record's
            // work (run() does the same for one command). In two stages: a
            // record table's slot address is read from the table, so the
            // table (and the partition) 8 records ahead, the slot at 4 - not
            // to stall on the table here (perf: the slot prefetch's own load
            // was batch_operate's hottest instruction).
            if (at + 8 < pending.size()) {
                const kv::key& far = batch[pending[at + 8]].k;
                if (detail::namespace_state* fns = slots[pending[at + 8]].ns) {
                    __builtin_prefetch(&fns->parts[far.partition_id()], 1);
                    __builtin_prefetch(&fns->records[far.partition_id()]);
                }
            }
            if (at + 4 < pending.size()) {
                const kv::key& ahead = batch[pending[at + 4]].k;
                if (detail::namespace_state* ans = slots[pending[at + 4]].ns)
                    ans->records[ahead.partition_id()].prefetch(ahead.digest());
            }
            // Every record answers once per attempt it is in: in place on
            // the first, over its earlier answer on a retry.
            const auto answer = [&](auto&& r) {
                if (attempt == 0)
                    out.emplace_back(std::forward<decltype(r)>(r));
                else
                    out[i] = std::forward<decltype(r)>(r);
            };
            if ((slots[i].flags & failed) != 0) {
                for (auto& [at_bad, e] : bad)
                    if (at_bad == i)
                        answer(std::move(e));
                continue;
            }
            const kv::batch_record& br = batch[i];
            const kv::key& k = br.k;
            const bool is_write = br.type != kind::read;
            detail::namespace_state* ns = slots[i].ns;
            detail::attempt_info info{command, attempt, now, &ns->name, &k.digest(), is_write, -1};
            if (command != 0)
                apply_topology_faults(info);
            detail::partition& p = ns->parts[k.partition_id()];
            std::lock_guard lock(p.mu);
            const int node = p.master();
            if (node < 0) {
                answer(p.unavailable("batch_operate", k.partition_id()));
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
                groups.back().rate_ok = error_rate_ok(node, now);
                g = groups.end() - 1;
            }
            info.node = node;
            bool applied = false;
            const kv::write_policy& wp = *slots[i].wp;
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
                return serve_operate(*ns,
                                     p,
                                     k,
                                     br.ops,
                                     wp,
                                     (slots[i].flags & read_only) != 0,
                                     (slots[i].flags & touches) != 0,
                                     now,
                                     cmd,
                                     applied,
                                     fi);
            };
            if (g->stopped) {
                answer(kv::detail::batch_not_reached(i));
                continue;
            }
            if (g->broken) {
                {
                    counters& c = p.current();
                    ++c.ops;
                    ++c.errors;
                }
                if (g->rest_applied)
                    (void)serve();
                answer(*g->broken);
                if (g->lost)
                    slots[i].flags |= lost;
                retry.push_back(i);
                continue;
            }
            if (!g->rate_ok) {
                answer(p.not_sent(status::max_error_rate, cmd, node, ")"));
                retry.push_back(i);
                continue;
            }
            const fault_effects fx = command != 0 ? m_faults.effects(info) : fault_effects{};
            if (fx.refused) {
                add_node_error(node, now);
                g->broken = p.not_sent(status::connection, cmd, node, " (dead)");
                answer(*g->broken);
                retry.push_back(i);
                continue;
            }
            g->sent = true;
            ++p.current().ops;
            const microseconds latency = m_cfg.base_latency + fx.latency;
            const bool late = socket_to.count() > 0 && latency > socket_to;
            if (is_write && !fx.timeout && !admit_write(*ns, p, k, now, latency)) {
                {
                    counters& c = p.current();
                    ++c.errors;
                    ++c.key_busy;
                }
                answer(fail(status::key_busy,
                            "batch_operate: key busy (more than " +
                                std::to_string(ns->transaction_pending_limit) +
                                " writes waiting on the record; transaction-pending-limit)"));
                continue;
            }
            if (fx.timeout) {
                add_node_error(node, now);
                g->broken = timed_out(p, cmd, fx, late, latency, true, false);
                g->lost = true;
                answer(*g->broken);
                slots[i].flags |= lost;
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
                answer(*g->broken);
                slots[i].flags |= lost;
                retry.push_back(i);
                continue;
            }
            if (!r && !bp.respond_all_keys && kv::detail::stops_batch(r.error()))
                g->stopped = true;
            answer(std::move(r));
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
        if (!out[i] && (slots[i].flags & lost) != 0 && batch[i].type != kind::read)
            out[i] = error{out[i].error().code, out[i].error().message, true};
    return out;
}

} // namespace kvmodel::sim
