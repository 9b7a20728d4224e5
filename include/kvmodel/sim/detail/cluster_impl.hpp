// kvmodel/sim/detail/cluster_impl.hpp
//
// sim::cluster's private members (sim/cluster.hpp declares them): namespace
// setup, record lookup and accounting, the write path around the record
// engine, the client's retry loop (run), batch reads, the scan and query walk
// and the stats snapshot. Only cluster.hpp includes this file, where the
// cluster's definitions are compiled: in each translation unit when
// header-only, once in the library with kvmodel::compiled. Everything else
// then parses the cluster's interface without the record engine and the
// partition state behind it.
#pragma once

#include <kvmodel/sim/detail/record_engine.hpp>
#include <kvmodel/sim/detail/state.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace kvmodel::sim {

inline std::span<detail::namespace_state> cluster::namespaces() const noexcept {
    return {m_namespaces.get(), m_cfg.namespaces.size()};
}

inline void cluster::build_namespace(const namespace_config& nc, detail::namespace_state& into) {
    detail::namespace_state* ns = &into;
    ns->name = nc.name;
    ns->lim.max_record_size = nc.max_record_size;
    ns->lim.default_ttl = nc.default_ttl;
    ns->lim.enterprise = m_cfg.enterprise;
    ns->lim.ttl_forbidden = nc.nsup_period == 0 && !nc.allow_ttl_without_nsup;
    ns->cfg = nc;
    ns->stop_writes.reset(m_cfg.nodes);
    // The first evaluation and nsup cycle: when the clock passes the next
    // multiple of their periods.
    const time_ms now = m_clock->now_ms();
    constexpr time_ms eval_ms = stop_writes_eval_period_s * 1000;
    ns->next_eval_ms.store((now / eval_ms + 1) * eval_ms, std::memory_order_relaxed);
    const time_ms nsup_ms = time_ms{nc.nsup_period} * 1000;
    ns->next_nsup_ms.store(nsup_ms == 0 ? std::numeric_limits<time_ms>::max()
                                        : (now / nsup_ms + 1) * nsup_ms,
                           std::memory_order_relaxed);
    ns->replication_factor = nc.replication_factor;
    ns->transaction_pending_limit = nc.transaction_pending_limit;
    ns->parts.reset(kv::partition_count);
    ns->records.reset(kv::partition_count);
    ns->extras.reset(m_cfg.nodes);
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid) {
        detail::partition& p = ns->parts[pid];
        p.past_by_node.reset(m_cfg.nodes);
        p.copy_version.assign(m_cfg.nodes, 0);
        succession_into(pid, p.succession); // no vector<int> move assignment
        // Every node starts with the (empty) partition's current version
        // so that recompute can place it; replicas then keep it.
        std::fill(p.copy_version.begin(), p.copy_version.end(), p.version);
        p.recompute(m_alive, ns->replication_factor);
    }
}

inline bool cluster::admit_write(const detail::namespace_state& ns,
                                 detail::partition& p,
                                 const kv::key& k,
                                 time_ms now,
                                 std::chrono::microseconds service) {
    if (ns.transaction_pending_limit == 0)
        return true;
    // A write taking no time never queues, and with no queue in the
    // partition there is nothing to wait behind: skip the bookkeeping.
    if (service.count() <= 0 && !p.writes_queued)
        return true;
    const bool admitted =
        p.pending.admit(k.digest(), now * 1000, service.count(), ns.transaction_pending_limit);
    p.writes_queued = p.pending.tracked() != 0;
    return admitted;
}

namespace detail {

/// A strict total order over ids, by a function of the ids and a context:
/// one comparator type for every ranking the cluster makes.
struct id_order {
    bool (*before)(const void* ctx, std::uint64_t a, std::uint64_t b);
    const void* ctx;
    bool operator()(std::uint64_t a, std::uint64_t b) const { return before(ctx, a, b); }
};

/// Swaps two ids (std::swap would be one more function per header-only TU).
inline void swap_ids(std::uint64_t& a, std::uint64_t& b) noexcept {
    const std::uint64_t t = a;
    a = b;
    b = t;
}

/// top_ids' heap step: moves heap[i] down until no child of it is ranked
/// after it (the heap's top is the id ranked last).
inline void sift_down(std::uint64_t* heap, std::size_t len, std::size_t i, id_order order) {
    for (;;) {
        std::size_t c = 2 * i + 1;
        if (c >= len)
            return;
        if (c + 1 < len && order(heap[c], heap[c + 1]))
            ++c;
        if (!order(heap[i], heap[c]))
            return;
        swap_ids(heap[i], heap[c]);
        i = c;
    }
}

/// Sorts the first k of ids in `order` into ids[0, k) and returns k (k is
/// cut to ids.size(); the rest of ids is left unspecified): what
/// std::partial_sort leaves, the same ids (a strict total order ranks them
/// one way), written out over a heap of the best k so far, the worst on top.
/// partial_sort's heap functions and iterator layers would be instantiated
/// for the cluster alone; vector<uint64_t> is everyone's.
inline std::size_t top_ids(std::vector<std::uint64_t>& ids, std::size_t k, id_order order) {
    k = std::min(k, ids.size());
    std::uint64_t* const heap = ids.data();
    for (std::size_t i = k / 2; i-- > 0;)
        sift_down(heap, k, i, order);
    if (k != 0)
        for (std::size_t i = k; i < ids.size(); ++i)
            if (order(heap[i], heap[0])) {
                swap_ids(heap[i], heap[0]);
                sift_down(heap, k, 0, order);
            }
    for (std::size_t end = k; end > 1; --end) {
        swap_ids(heap[0], heap[end - 1]);
        sift_down(heap, end - 1, 0, order);
    }
    return k;
}

// The cluster's rankings (id_order::before; named functions, not lambdas:
// one function each instead of a call operator and its static invoker).

/// Nodes by descending hash (ctx: the hashes), ties by node id.
inline bool by_hash(const void* ctx, std::uint64_t a, std::uint64_t b) {
    const std::uint64_t* h = static_cast<const std::uint64_t*>(ctx);
    return h[a] != h[b] ? h[a] > h[b] : a < b;
}

/// Hot keys (ctx: key_heat[]): most reads + writes first, ties by digest.
inline bool hotter_key(const void* ctx, std::uint64_t a, std::uint64_t b) {
    const key_heat* v = static_cast<const key_heat*>(ctx);
    const std::uint64_t x = v[a].reads + v[a].writes;
    const std::uint64_t y = v[b].reads + v[b].writes;
    return x != y ? x > y : v[a].digest < v[b].digest;
}

/// Hot partitions (ctx: partition_stats[]): most ops first, ties by id.
inline bool busier_partition(const void* ctx, std::uint64_t a, std::uint64_t b) {
    const partition_stats* p = static_cast<const partition_stats*>(ctx);
    const std::uint64_t x = p[a].ops.ops;
    const std::uint64_t y = p[b].ops.ops;
    return x != y ? x > y : a < b;
}

/// 0, 1, ..., n - 1.
inline std::vector<std::uint64_t> iota_ids(std::size_t n) {
    std::vector<std::uint64_t> ids(n);
    for (std::size_t i = 0; i < n; ++i)
        ids[i] = i;
    return ids;
}

} // namespace detail

inline void cluster::succession_into(std::uint32_t pid, std::vector<int>& out) const {
    // Nodes by descending hash, ties by node id.
    std::vector<std::uint64_t> hash(m_cfg.nodes);
    for (std::uint32_t n = 0; n < m_cfg.nodes; ++n)
        hash[n] = detail::splitmix64(m_cfg.seed ^ detail::splitmix64((std::uint64_t{pid} << 16U) | n));
    std::vector<std::uint64_t> order = detail::iota_ids(m_cfg.nodes);
    const std::size_t k = detail::top_ids(order, order.size(), {&detail::by_hash, hash.data()});
    out.clear();
    for (std::size_t i = 0; i < k; ++i) {
        const int n = static_cast<int>(order[i]); // an lvalue: recompute's push_back
        out.push_back(n);
    }
}

inline std::vector<int> cluster::succession(std::uint32_t pid) const {
    std::vector<int> out;
    succession_into(pid, out);
    return out;
}

inline detail::namespace_state* cluster::find_ns(std::string_view name) const noexcept {
    for (detail::namespace_state& ns : namespaces())
        if (detail::same_name(ns.name, name))
            return &ns;
    return nullptr;
}

inline error cluster::unknown_namespace(std::string_view cmd, std::string_view ns) {
    return error{status::invalid_namespace,
                 std::string(cmd) + ": namespace '" + std::string(ns) + "' is not configured"};
}

inline result<void> cluster::set_alive(int node, bool up) {
    if (node < 0 || static_cast<std::uint32_t>(node) >= m_cfg.nodes)
        return fail(status::parameter_error,
                    std::string(up ? "node_up" : "node_down") + ": node " + std::to_string(node) +
                        " does not exist");
    std::lock_guard lock(m_topology_mu);
    if ((m_alive[static_cast<std::size_t>(node)] != 0) == up)
        return {};
    m_alive[static_cast<std::size_t>(node)] = up ? 1 : 0;
    for (detail::namespace_state& ns : namespaces()) {
        for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid) {
            detail::partition& p = ns.parts[pid];
            std::lock_guard plock(p.mu);
            p.recompute(m_alive, ns.replication_factor);
        }
    }
    return {};
}

inline detail::entry* cluster::live(detail::namespace_state& ns,
                                    detail::partition& p,
                                    const kv::key& k,
                                    std::int64_t now_s) {
    detail::record_table& records = ns.records[k.partition_id()];
    detail::entry* e = records.find(k.digest());
    if (e == nullptr)
        return nullptr;
    if (e->expired(now_s)) {
        erase_record(ns, p, k, *e);
        return nullptr;
    }
    return e;
}

inline void cluster::erase_record(detail::namespace_state& ns,
                                  detail::partition& p,
                                  const kv::key& k,
                                  const detail::entry& e) {
    p.depart(k.digest(), e, k.partition_id());
    p.charge(-1, -static_cast<std::int64_t>(e.stored_size()));
    ns.records[k.partition_id()].erase(k.digest());
}

inline void cluster::count_error(detail::partition& p, status code) {
    counters& c = p.current();
    ++c.errors;
    if (code == status::record_not_found)
        ++c.not_found;
}

template <class R>
R cluster::count_failure(detail::partition& p, R r) {
    count_error(p, r.code());
    return r;
}

inline error cluster::count_failure(detail::partition& p, error e) {
    count_error(p, e.code);
    return e;
}

inline failure cluster::count_failure(detail::partition& p, failure f) {
    count_error(p, f.err.code);
    return f;
}

inline result<void> cluster::filter(const kv::base_policy& pol,
                                    const detail::entry& e,
                                    const kv::key& k,
                                    std::int64_t now_ms,
                                    std::string_view cmd) {
    return detail::check_filter(pol.filter_exp, e, k.digest(), now_ms, cmd);
}

inline void cluster::count_read(detail::partition& p, detail::entry& e) {
    const std::uint64_t size = e.stored_size();
    ++e.reads;
    {
        counters& c = p.current();
        ++c.reads;
        c.bytes_read += size;
        c.largest_record = std::max(c.largest_record, size);
    }
}

inline result<kv::record> cluster::operate_impl(const kv::key& k,
                                                std::span<const kv::operation> ops,
                                                const kv::write_policy& wp,
                                                op_report& rep,
                                                std::string_view cmd) {
    detail::failure_info pre;
    if (result<void> c = detail::check_command(ops, wp, cmd, pre); !c) {
        rep.failed_op = pre.op_index;
        return c.error();
    }
    const bool read_only = detail::is_read_only(ops);
    const bool has_touch = std::any_of(ops.begin(), ops.end(), [](const kv::operation& o) {
        return kv::kind(o) == kv::op_kind::touch;
    });
    return run(
        k,
        !read_only,
        wp,
        cmd,
        rep,
        [&](detail::namespace_state& ns, detail::partition& p, std::int64_t now_ms, bool& applied)
            -> result<kv::record> {
            detail::failure_info fi;
            result<kv::record> r =
                serve_operate(ns, p, k, ops, wp, read_only, has_touch, now_ms, cmd, applied, fi);
            if (!r)
                rep.failed_op = fi.op_index;
            return r;
        });
}

inline result<kv::record> cluster::serve_get(detail::namespace_state& ns,
                                             detail::partition& p,
                                             const kv::key& k,
                                             const kv::base_policy& rp,
                                             std::int64_t now_ms,
                                             std::string_view cmd) {
    const std::int64_t now_s = now_ms / 1000;
    detail::entry* e = live(ns, p, k, now_s);
    if (e == nullptr)
        return count_failure(
            p, fail(status::record_not_found, std::string(cmd) + ": record not found"));
    if (!detail::same_name(e->set(), k.set()))
        return count_failure(p, detail::set_mismatch(cmd, k, *e));
    if (!rp.filter_exp.empty())
        if (result<void> f = filter(rp, *e, k, now_ms, cmd); !f)
            return count_failure(p, f.error());
    kv::record out;
    detail::copy_bins(*e, out);
    detail::copy_header(*e, now_s, out);
    count_read(p, *e);
    return out;
}

inline result<kv::record> cluster::serve_operate(detail::namespace_state& ns,
                                                 detail::partition& p,
                                                 const kv::key& k,
                                                 std::span<const kv::operation> ops,
                                                 const kv::write_policy& wp,
                                                 bool read_only,
                                                 bool has_touch,
                                                 std::int64_t now_ms,
                                                 std::string_view cmd,
                                                 bool& applied,
                                                 detail::failure_info& fi) {
    const std::int64_t now_s = now_ms / 1000;
    if (read_only) {
        detail::entry* cur = live(ns, p, k, now_s);
        if (cur != nullptr && !wp.filter_exp.empty())
            if (result<void> f = filter(wp, *cur, k, now_ms, cmd); !f)
                return count_failure(p, f.error());
        result<kv::record> r = detail::read_path(cur, k, ops, now_s, cmd, fi, now_ms);
        if (r) {
            count_read(p, *cur);
            return r;
        }
        count_error(p, r.code());
        return r;
    }
    kv::record out;
    result<void> r =
        write_command(ns, p, k, has_touch, wp, now_ms, cmd, applied, &out, [&](detail::txn& t) {
            return detail::apply_ops(
                t, ops, cmd, out, fi, ns.lim.max_record_size, detail::exp_env{&k.digest(), now_ms});
        });
    if (!r)
        return r.error();
    return out;
}

inline result<kv::record> cluster::serve_remove(detail::namespace_state& ns,
                                                detail::partition& p,
                                                const kv::key& k,
                                                const kv::write_policy& wp,
                                                std::int64_t now_ms,
                                                std::string_view cmd,
                                                bool& applied) {
    detail::entry* e = live(ns, p, k, now_ms / 1000);
    if (e == nullptr)
        return count_failure(
            p, fail(status::record_not_found, std::string(cmd) + ": record not found"));
    if (!detail::same_name(e->set(), k.set()))
        return count_failure(p,
                             fail(status::parameter_error,
                                  std::string(cmd) + ": set name '" + k.set() +
                                      "' does not match the record's set '" + e->set() + "'"));
    if (!wp.filter_exp.empty())
        if (result<void> f = filter(wp, *e, k, now_ms, cmd); !f)
            return count_failure(p, f.error());
    if ((wp.gen == kv::generation_policy::eq && wp.generation != e->generation) ||
        (wp.gen == kv::generation_policy::gt && wp.generation <= e->generation))
        return count_failure(p,
                             fail(status::generation_error,
                                  std::string(cmd) + ": generation is " +
                                      std::to_string(e->generation) + ", policy expects " +
                                      (wp.gen == kv::generation_policy::gt ? "more than " : "") +
                                      std::to_string(wp.generation)));
    erase_record(ns, p, k, *e);
    p.written();
    ++p.current().deletes;
    applied = true;
    return kv::record{};
}

inline result<void> cluster::write_command(detail::namespace_state& ns,
                                    detail::partition& p,
                                    const kv::key& k,
                                    bool has_touch,
                                    const kv::write_policy& wp,
                                    std::int64_t now_ms,
                                    std::string_view cmd,
                                    bool& applied,
                                    kv::record* out,
                                    apply_fn apply) {
    // Stop-writes refuses before the record is even looked up
    // (write_master_preprocessing); deletes are not refused.
    if (const std::uint32_t why =
            ns.stop_writes[static_cast<std::size_t>(p.master())].load(std::memory_order_relaxed);
        why != 0) {
        ns.stop_writes_refused.fetch_add(1, std::memory_order_relaxed);
        return count_failure(p, stop_writes_error(ns, cmd, p.master(), why));
    }
    const std::int64_t now_s = now_ms / 1000;
    detail::entry* cur = live(ns, p, k, now_s);
    // The server filters existing records only: a write that creates
    // the record does not even build the filter.
    if (cur != nullptr && !wp.filter_exp.empty())
        if (result<void> f = filter(wp, *cur, k, now_ms, cmd); !f)
            return count_failure(p, f.error());
    const std::string* new_set = &detail::no_set();
    if (cur == nullptr) {
        new_set = ns.sets.intern(k.set());
        if (new_set == nullptr)
            return count_failure(p,
                                 fail(status::fail_forbidden,
                                      std::string(cmd) + ": namespace '" + ns.name + "' has " +
                                          std::to_string(detail::set_table::max_sets) +
                                          " sets, no room for '" + k.set() + "'"));
    }
    detail::entry fresh;
    detail::write_outcome oc;
    const auto old_size = static_cast<std::int64_t>(cur != nullptr ? cur->stored_size() : 0);
    result<void> r = detail::write_path(cur,
                                        fresh,
                                        new_set,
                                        k,
                                        has_touch,
                                        wp,
                                        ns.lim,
                                        now_s,
                                        cmd,
                                        oc,
                                        out,
                                        apply);
    if (!r)
        return count_failure(p, std::move(r));
    applied = true;
    if (oc.deleted) {
        // The command emptied the record before deleting it: charge back
        // what it held before the command.
        p.charge(0, static_cast<std::int64_t>(cur->stored_size()) - old_size);
        erase_record(ns, p, k, *cur);
        ++p.current().deletes;
    } else {
        detail::entry* e = cur;
        if (e == nullptr)
            e = &ns.records[k.partition_id()].emplace(k.digest(), std::move(fresh));
        e->last_update_ms = now_ms;
        if (out != nullptr)
            out->last_update_ms = now_ms;
        const std::uint64_t size = e->stored_size();
        p.charge(cur == nullptr ? 1 : 0, static_cast<std::int64_t>(size) - old_size);
        ++e->writes;
        {
            counters& c = p.current();
            ++c.writes;
            c.bytes_written += size;
            c.largest_record = std::max(c.largest_record, size);
        }
    }
    p.written();
    return {}; // r succeeded: a fresh success, not a move of it
}

inline result<void> cluster::apply_put(detail::txn& t,
                                       std::span<const kv::bin> bins,
                                       const kv::write_policy& wp,
                                       const detail::namespace_state& ns) {
    static constexpr std::string_view cmd = "put";
    constexpr std::size_t predicted_max = 16;
    boost::container::small_vector<std::size_t, predicted_max> sizes;
    // Where each bin already is in the record (npos: not there, or
    // written earlier in this put) — reused by the write pass.
    boost::container::small_vector<std::size_t, predicted_max> at;
    constexpr auto npos = static_cast<std::size_t>(-1);
    if (bins.size() <= predicted_max) {
        detail::entry& e = t.target();
        std::size_t n = e.bins.size();
        std::size_t total = e.bins_size;
        bool simple = true; // no nil, no repeated name
        for (std::size_t i = 0; i < bins.size(); ++i) {
            const kv::bin& b = bins[i];
            if (b.val.is_nil())
                simple = false;
            else if (result<void> c = kv::check_bin_value(b.val, cmd, b.name); !c)
                return c;
            // The bin's size before this write: an earlier bin of the
            // same put, else the record's.
            std::optional<std::size_t> before;
            bool earlier = false;
            for (std::size_t j = i; j-- > 0;) {
                if (!detail::same_name(bins[j].name, b.name))
                    continue;
                earlier = true;
                simple = false;
                if (!bins[j].val.is_nil())
                    before = sizes[j];
                break;
            }
            std::size_t where = npos;
            if (!earlier && i < e.bins.size() && detail::same_name(e.bins[i].name, b.name)) {
                // A put usually names the bins in the order it created
                // them: try the same position first.
                where = i;
                before = e.bins[i].size;
            } else if (!earlier) {
                for (std::size_t x = 0; x < e.bins.size(); ++x) {
                    if (detail::same_name(e.bins[x].name, b.name)) {
                        where = x;
                        before = e.bins[x].size;
                        break;
                    }
                }
            }
            at.push_back(where);
            const std::size_t after = b.val.is_nil() ? 0 : kv::record_size::bin_size(b.name, b.val);
            sizes.push_back(after);
            if (before) {
                --n;
                total -= *before;
            }
            if (!b.val.is_nil()) {
                ++n;
                total += after;
            }
        }
        const bool refused_delete = n == 0 && wp.durable_delete && !ns.lim.enterprise;
        if (n != 0 && n <= kv::max_bins && !refused_delete) {
            const std::size_t flat =
                kv::record_size::fixed_size(e.set(), e.stored_key.get(), e.void_time != 0, n) +
                total;
            if (result<void> sz = kv::check_record_size(flat, ns.lim.max_record_size, cmd); !sz)
                return sz;
            if (simple) {
                // All or nothing without a log: what may allocate is done
                // first - room for the new bins, a copy of each value
                // whose bin cannot take it in its own storage - and then
                // nothing throws.
                static_assert(predicted_max <= 32, "a bit per bin");
                std::uint32_t copied = 0; // the bins whose copy is made first
                std::size_t added = 0;
                const value none;
                for (std::size_t i = 0; i < bins.size(); ++i) {
                    added += at[i] == npos ? 1U : 0U;
                    const value& to = at[i] == npos ? none : e.bins[at[i]].val;
                    if (!detail::assigns_in_place(to, bins[i].val))
                        copied |= 1U << i;
                }
                boost::container::small_vector<value, predicted_max> copies;
                if (copied != 0) {
                    copies.resize(bins.size());
                    for (std::size_t i = 0; i < bins.size(); ++i)
                        if ((copied >> i & 1U) != 0)
                            copies[i] = bins[i].val;
                }
                e.bins.reserve(e.bins.size() + added);
                t.stop_bin_logging();
                // Existing bins keep their place (new ones are appended
                // after them), so the positions found above stay valid.
                for (std::size_t i = 0; i < bins.size(); ++i) {
                    const bool mine = (copied >> i & 1U) != 0; // moved from its copy
                    if (at[i] == npos) {
                        e.bins.push_back(
                            detail::stored_bin{detail::bin_name(bins[i].name),
                                               mine ? std::move(copies[i]) : value(bins[i].val),
                                               sizes[i]});
                        continue;
                    }
                    detail::stored_bin& sb = e.bins[at[i]];
                    if (mine)
                        sb.val = std::move(copies[i]);
                    else
                        sb.val = bins[i].val; // into a string's or blob's own storage
                    sb.size = sizes[i];
                }
                e.bins_size = total;
                return {};
            }
        }
        for (std::size_t i = 0; i < bins.size(); ++i) {
            if (bins[i].val.is_nil())
                t.erase(bins[i].name);
            else
                t.assign(bins[i].name, bins[i].val, sizes[i]);
        }
        return {};
    }
    for (const kv::bin& b : bins) {
        if (b.val.is_nil()) {
            t.erase(b.name);
            continue;
        }
        if (result<void> c = kv::check_bin_value(b.val, cmd, b.name); !c)
            return c;
        t.put(b.name, b.val);
    }
    return {};
}

error cluster::timed_out(detail::partition& p,
                         std::string_view cmd,
                         const fault_effects& fx,
                         bool late,
                         std::chrono::microseconds latency,
                         bool was_ok,
                         bool doubt) {
    counters& c = p.current();
    ++c.timeouts;
    if (was_ok)
        ++c.errors;
    if (doubt)
        ++c.in_doubt;
    return error{status::timeout,
                 std::string(cmd) + ": timeout (" +
                     (fx.timeout ? "request lost"
                                 : (late ? "latency " + std::to_string(latency.count()) +
                                               " us past the policy's timeout"
                                         : std::string("response lost"))) +
                     (doubt ? ", the write was applied)" : ")")};
}

error cluster::connection_lost(
    detail::partition& p, std::string_view cmd, int node, bool was_ok, bool doubt) {
    counters& c = p.current();
    if (was_ok)
        ++c.errors;
    if (doubt)
        ++c.in_doubt;
    return error{status::connection,
                 std::string(cmd) + ": connection to node " + std::to_string(node) +
                     " dropped before the answer (the node died" +
                     (doubt ? "; the write was applied)" : ")")};
}

inline cluster::node_health* cluster::health_of(int node, time_ms now) {
    if (m_cfg.max_error_rate == 0 || node < 0)
        return nullptr;
    node_health& h = m_health[static_cast<std::size_t>(node)];
    const std::int64_t tend = std::max<std::int64_t>(m_cfg.tend_interval.count(), 1);
    const std::int64_t interval = now / tend;
    std::int64_t seen = h.interval.load(std::memory_order_acquire);
    if (seen != interval && h.interval.compare_exchange_strong(seen, interval)) {
        const std::uint32_t limit = h.limit.load(std::memory_order_relaxed);
        const std::uint32_t max = m_cfg.max_error_rate;
        // A breached interval halves the next limit; a clean one doubles
        // it back toward the configured one (as_node_reset_error_rate).
        if (seen < 0)
            h.limit.store(max, std::memory_order_relaxed);
        else if (h.errors.load(std::memory_order_relaxed) > limit)
            h.limit.store(limit >= 4 ? limit / 2 : 1, std::memory_order_relaxed);
        else
            h.limit.store(std::min(limit * 2, max), std::memory_order_relaxed);
        h.errors.store(0, std::memory_order_relaxed);
    }
    return &h;
}

inline bool cluster::error_rate_ok(int node, time_ms now) {
    const node_health* h = health_of(node, now);
    return h == nullptr ||
           h->errors.load(std::memory_order_relaxed) <= h->limit.load(std::memory_order_relaxed);
}

inline void cluster::add_node_error(int node, time_ms now) {
    if (node_health* h = health_of(node, now))
        h->errors.fetch_add(1, std::memory_order_relaxed);
}

inline void cluster::apply_topology_faults(const detail::attempt_info& a) {
    const std::vector<int> changes = m_faults.topology_changes(a);
    for (std::size_t i = 0; i + 1 < changes.size(); i += 2)
        (void)set_alive(changes[i], changes[i + 1] != 0);
}

inline result<kv::record> cluster::run(const kv::key& k,
                                      bool is_write,
                                      const kv::base_policy& pol,
                                      std::string_view cmd,
                                      op_report& rep,
                                      attempt_body body) {
    using R = result<kv::record>;
    using std::chrono::microseconds;
    detail::namespace_state* ns = find_ns(k.ns());
    if (ns == nullptr)
        return unknown_namespace(cmd, k.ns());
    if (result<void> c = k.check(); !c)
        return error{c.error().code, std::string(cmd) + ": " + c.error().message};
    const std::uint32_t pid = k.partition_id();
    detail::partition& p = ns->parts[pid];
    // The partition's hot line and the record's slot are likely cold
    // (4096 partitions): ask for both now, so the two misses overlap each
    // other and the bookkeeping below.
    __builtin_prefetch(&p, 1);
    ns->records[pid].prefetch(k.digest());
    const std::uint64_t command = m_faults.begin_command();
    const auto socket_to = std::chrono::duration_cast<microseconds>(pol.socket_timeout);
    const auto total_to = std::chrono::duration_cast<microseconds>(pol.total_timeout);
    std::uint32_t sent = 0;
    // An attempt was sent and its answer lost: a write may be applied.
    bool lost_answer = false;
    microseconds elapsed{0};
    for (std::uint32_t attempt = 0;; ++attempt) {
        const time_ms now = m_clock->now_ms();
        if (attempt == 0)
            maintain(*ns, now); // before the partition lock: it takes them all
        // What faults see of this attempt (built only when faults are armed).
        const auto attempt_of = [&](int node) {
            return detail::attempt_info{
                command, attempt, now, &ns->name, &k.digest(), is_write, node};
        };
        if (command != 0)
            apply_topology_faults(attempt_of(-1));
        microseconds spent{0};
        const std::uint32_t sent_before = sent;
        bool applied = false; // set by body when it committed a write
        // One attempt under the partition lock. Its answer is built in
        // place (returned, not assigned into a default-made result):
        // a get's record is then moved once, not three times.
        R r = [&]() __attribute__((always_inline))->R {
            std::unique_lock lock(p.mu);
            const int node = p.master();
            rep.node = node;
            rep.attempts = attempt + 1;
            if (node < 0)
                return p.unavailable(cmd, pid, " of namespace '" + ns->name + "'");
            if (!error_rate_ok(node, now))
                return p.not_sent(
                    status::max_error_rate,
                    cmd,
                    node,
                    " had more errors than the client allows in one tend interval)");
            const fault_effects fx =
                command != 0 ? m_faults.effects(attempt_of(node)) : fault_effects{};
            if (fx.refused)
                return p.not_sent(status::connection,
                                  cmd,
                                  node,
                                  " (dead; the client's partition map still names it)");
            ++sent;
            const microseconds latency = m_cfg.base_latency + fx.latency;
            const bool late = (socket_to.count() > 0 && latency > socket_to) ||
                              (total_to.count() > 0 && elapsed + latency > total_to);
            spent = socket_to.count() > 0 ? std::min(latency, socket_to) : latency;
            const auto us = static_cast<std::uint64_t>(spent.count());
            {
                counters& c = p.current();
                ++c.ops;
                ++c.round_trips;
                if (us != 0) {
                    c.latency_us += us;
                    c.max_latency_us = std::max(c.max_latency_us, us);
                }
            }
            const bool lost = fx.timeout || fx.in_doubt || late || fx.crashed;
            if (fx.answer != status::ok && !fx.timeout)
                return injected_answer(p, cmd, fx.answer, node, now);
            if (is_write && !fx.timeout && !admit_write(*ns, p, k, now, latency)) {
                // Hot key: refused before it is applied (not retried, as the clients do).
                {
                    counters& c = p.current();
                    ++c.errors;
                    ++c.key_busy;
                }
                if (!lost)
                    return fail(status::key_busy,
                                std::string(cmd) + ": key busy (more than " +
                                    std::to_string(ns->transaction_pending_limit) +
                                    " writes waiting on the record; transaction-pending-limit)");
                return timed_out(p, cmd, fx, late, latency, false, false);
            }
            if (fx.timeout)
                return timed_out(p, cmd, fx, late, latency, true, false);
            if (!lost)
                return body(*ns, p, now, applied);
            const bool was_ok = body(*ns, p, now, applied).has_value();
            if (fx.crashed && !late)
                return connection_lost(p, cmd, rep.node, was_ok, is_write && applied);
            return timed_out(p, cmd, fx, late, latency, was_ok, is_write && applied);
        }
        ();
        const bool sent_now = sent > sent_before;
        if (applied) {
            rep.applied = true;
            ++rep.applications;
        }
        elapsed += spent;
        rep.latency = elapsed;
        if (r)
            return r;
        const status code = r.error().code;
        const bool dropped = code == status::timeout || code == status::connection;
        if (dropped && rep.node >= 0)
            add_node_error(rep.node, now);
        lost_answer = lost_answer || (sent_now && dropped);
        // The C client retries every transient failure but KEY_BUSY.
        const bool retryable = kv::is_transient(code) && code != status::key_busy;
        if (retryable && attempt < pol.max_retries &&
            (total_to.count() == 0 || elapsed < total_to)) {
            elapsed += std::chrono::duration_cast<microseconds>(pol.sleep_between_retries);
            continue;
        }
        error e = r.error();
        // The C client's rule (as_error_set_in_doubt): a write is in doubt
        // once an attempt was sent and its answer never came — whatever
        // the later attempts met (refused, no node, the error limit).
        e.in_doubt = is_write && lost_answer;
        return e;
    }
}

inline std::vector<result<kv::record>> cluster::batch_impl(std::span<const kv::key> keys,
                                                           const std::span<const std::string>* bins,
                                                           const kv::read_policy& rp) {
    std::vector<result<kv::record>> out;
    out.reserve(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
        out.emplace_back(fail(status::timeout, "batch_get: not attempted"));
    std::vector<kv::operation> read_ops;
    if (bins != nullptr)
        for (const std::string& b : *bins)
            read_ops.push_back(kv::op::read(b));
    const std::uint64_t command = m_faults.begin_command();
    std::vector<std::size_t> pending(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
        pending[i] = i;
    using std::chrono::microseconds;
    const auto socket_to = std::chrono::duration_cast<microseconds>(rp.socket_timeout);
    for (std::uint32_t attempt = 0; !pending.empty(); ++attempt) {
        std::vector<std::size_t> retry;
        // The (namespace, node) pairs this attempt sent to, as namespace
        // index * nodes + node: one round trip each.
        std::vector<std::size_t> touched;
        const time_ms now = m_clock->now_ms();
        for (std::size_t i : pending) {
            const kv::key& k = keys[i];
            detail::namespace_state* ns = find_ns(k.ns());
            if (ns == nullptr) {
                out[i] = unknown_namespace("batch_get", k.ns());
                continue;
            }
            if (result<void> c = k.check(); !c) {
                out[i] = error{c.error().code, "batch_get: " + c.error().message};
                continue;
            }
            detail::attempt_info info{command, attempt, now, &ns->name, &k.digest(), false, -1};
            if (command != 0)
                apply_topology_faults(info);
            detail::partition& p = ns->parts[k.partition_id()];
            std::lock_guard lock(p.mu);
            const int node = p.master();
            if (node < 0) {
                out[i] = p.unavailable("batch_get", k.partition_id());
                retry.push_back(i);
                continue;
            }
            const std::size_t slot =
                static_cast<std::size_t>(ns - m_namespaces.get()) * m_cfg.nodes +
                static_cast<std::size_t>(node);
            // A loop, not std::find: its chain is ~7 functions per header-only file.
            std::size_t seen = 0;
            while (seen < touched.size() && touched[seen] != slot)
                ++seen;
            if (seen == touched.size())
                touched.push_back(slot);
            info.node = node;
            if (!error_rate_ok(node, now)) {
                out[i] = p.not_sent(status::max_error_rate, "batch_get", node, ")");
                retry.push_back(i);
                continue;
            }
            const fault_effects fx = command != 0 ? m_faults.effects(info) : fault_effects{};
            const microseconds latency = m_cfg.base_latency + fx.latency;
            if (fx.refused) {
                add_node_error(node, now);
                out[i] = p.not_sent(status::connection, "batch_get", node, " (dead)");
                retry.push_back(i);
                continue;
            }
            ++p.current().ops;
            if (fx.timeout || (socket_to.count() > 0 && latency > socket_to)) {
                {
                    counters& c = p.current();
                    ++c.errors;
                    ++c.timeouts;
                }
                add_node_error(node, now);
                out[i] = fail(status::timeout, "batch_get: timeout");
                retry.push_back(i);
                continue;
            }
            if (fx.answer != status::ok) {
                out[i] = injected_answer(p, "batch_get", fx.answer, node, now);
                if (kv::is_transient(fx.answer) && fx.answer != status::key_busy)
                    retry.push_back(i);
                continue;
            }
            const std::int64_t now_s = now / 1000;
            detail::entry* e = live(*ns, p, k, now_s);
            if (e == nullptr) {
                out[i] =
                    count_failure(p, fail(status::record_not_found, "batch_get: record not found"));
                continue;
            }
            if (!rp.filter_exp.empty())
                if (result<void> f = filter(rp, *e, k, now, "batch_get"); !f) {
                    out[i] = count_failure(p, f.error());
                    continue;
                }
            if (bins != nullptr) {
                detail::failure_info fi;
                result<kv::record> r =
                    detail::read_path(e, k, read_ops, now_s, "batch_get", fi, now);
                if (r) {
                    r->results.clear();
                    count_read(p, *e);
                } else {
                    count_error(p, r.code());
                }
                out[i] = std::move(r);
                continue;
            }
            if (!detail::same_name(e->set(), k.set())) {
                out[i] = count_failure(p, detail::set_mismatch("batch_get", k, *e));
                continue;
            }
            kv::record rec;
            detail::copy_bins(*e, rec);
            detail::copy_header(*e, now_s, rec);
            count_read(p, *e);
            out[i] = std::move(rec);
        }
        for (std::size_t slot : touched)
            m_namespaces[slot / m_cfg.nodes].extras[slot % m_cfg.nodes].round_trips.fetch_add(
                1, std::memory_order_relaxed);
        if (attempt >= rp.max_retries)
            break;
        pending = std::move(retry);
    }
    return out;
}

inline error cluster::injected_answer(
    detail::partition& p, std::string_view cmd, status s, int node, time_ms now) {
    counters& c = p.current();
    ++c.errors;
    if (s == status::key_busy)
        ++c.key_busy;
    if (s == status::record_not_found)
        ++c.not_found;
    // The C client counts an overloaded device against the node's error
    // rate (as_node_put_conn_error), as it does timeouts.
    if (s == status::device_overload)
        add_node_error(node, now);
    return error{s,
                 std::string(cmd) + ": " + std::string(status_name(s)) + " from node " +
                     std::to_string(node) + " (injected by a fault)"};
}

inline std::optional<kv::index_type> cluster::index_type_of(const value& v) noexcept {
    switch (v.type()) {
    case value_type::integer:
        return kv::index_type::numeric;
    case value_type::string:
        return kv::index_type::string;
    case value_type::bytes:
        return kv::index_type::blob;
    default:
        return std::nullopt;
    }
}

inline std::string_view cluster::index_type_name(kv::index_type t) noexcept {
    switch (t) {
    case kv::index_type::numeric:
        return "numeric";
    case kv::index_type::string:
        return "string";
    case kv::index_type::blob:
        return "blob";
    }
    return "?";
}

inline result<std::vector<kv::keyed_record>> cluster::walk(const std::string& ns_name,
                                                           const std::string& set,
                                                           const std::vector<std::string>& bins,
                                                           std::uint64_t max_records,
                                                           kv::partition_cursor& cursor,
                                                           const kv::read_policy& rp,
                                                           std::string_view cmd,
                                                           keep_fn keep) {
    detail::namespace_state* ns = find_ns(ns_name);
    if (ns == nullptr)
        return unknown_namespace(cmd, ns_name);
    for (const std::string& b : bins)
        if (result<void> c = kv::check_bin_name(b, cmd); !c)
            return c.error();
    for (const kv::partition_cursor::part& part : cursor.parts)
        if (part.id >= kv::partition_count)
            return fail(status::parameter_error,
                        std::string(cmd) + ": partition " + std::to_string(part.id) +
                            " does not exist (0..4095)");
    const std::int64_t now_ms = m_clock->now_ms();
    const std::int64_t now_s = now_ms / 1000;
    const bool filtered = !rp.filter_exp.empty();
    if (filtered) {
        // A malformed filter fails the whole scan, before any record.
        result<const exp::detail::engine_hooks*> h = exp::detail::need_engine(cmd);
        if (!h)
            return h.error();
        exp::record_view none;
        none.has_bins = false;
        none.has_metadata = false;
        if (result<std::uint8_t> c = (*h)->filter(rp.filter_exp, none); !c)
            return fail(c.error().code, std::string(cmd) + ": " + c.error().message);
    }
    // The throttle's time per record, accounted as the serving node's
    // latency (the simulator never sleeps).
    const std::uint64_t rps = cursor.records_per_second;
    const std::uint64_t throttle_us = rps == 0 ? 0 : (1000000 + rps - 1) / rps;
    if (cursor.parts.empty())
        cursor =
            kv::partition_cursor::start(kv::partition_filter::all(), cursor.records_per_second);
    // As the client's partition scan: each node's partitions are one
    // sub-request, whose answer (faults, timeouts, the node's error rate) is
    // decided once per attempt (one round trip). The page fills in
    // partition order, so an attempt stops at the first partition whose node
    // failed and the next attempt (within rp.max_retries; not KEY_BUSY, as
    // the C client) goes on from there. A page that still fails returns the
    // error with the cursor as it came in: the records already walked never
    // reach the caller, so resuming must walk them again (none twice, none
    // skipped).
    // The parts this call moved, as they came in (not a copy of all 4096:
    // pages are small and many).
    std::vector<std::pair<kv::partition_cursor::part*, kv::partition_cursor::part>> moved;
    const std::uint64_t command = m_faults.begin_command();
    using std::chrono::microseconds;
    const auto socket_to = std::chrono::duration_cast<microseconds>(rp.socket_timeout);
    // The answer of `node` to this attempt's sub-request; p is the first
    // partition it serves (its counters take the attempt's cost).
    const auto node_answer = [&](detail::partition& p,
                                 int node,
                                 std::uint32_t attempt,
                                 time_ms now) -> std::optional<error> {
        if (!error_rate_ok(node, now))
            return p.not_sent(status::max_error_rate, cmd, node, ")");
        detail::attempt_info info{command, attempt, now, &ns->name, nullptr, false, node};
        const fault_effects fx = command != 0 ? m_faults.effects(info) : fault_effects{};
        if (fx.refused) {
            add_node_error(node, now);
            return p.not_sent(status::connection, cmd, node, " (dead)");
        }
        if (fx.timeout || (socket_to.count() > 0 && m_cfg.base_latency + fx.latency > socket_to)) {
            {
                counters& c = p.current();
                ++c.ops;
                ++c.errors;
                ++c.timeouts;
            }
            add_node_error(node, now);
            return error{status::timeout,
                         std::string(cmd) + ": timeout (node " + std::to_string(node) + ")"};
        }
        if (fx.answer != status::ok) {
            ++p.current().ops;
            return injected_answer(p, cmd, fx.answer, node, now);
        }
        return std::nullopt;
    };
    std::vector<kv::keyed_record> out;
    for (std::uint32_t attempt = 0;; ++attempt) {
        const time_ms now = m_clock->now_ms();
        if (command != 0)
            apply_topology_faults(
                detail::attempt_info{command, attempt, now, &ns->name, nullptr, false, -1});
        std::vector<bool> touched(m_cfg.nodes, false);
        std::vector<std::optional<error>> answer(m_cfg.nodes);
        std::optional<error> failed;
        for (kv::partition_cursor::part& part : cursor.parts) {
            if (part.done)
                continue;
            if (max_records != 0 && out.size() >= max_records)
                break;
            const std::uint32_t pid = part.id;
            detail::partition& p = ns->parts[pid];
            std::lock_guard lock(p.mu);
            const int node = p.master();
            if (node < 0) {
                failed = error{status::partition_unavailable,
                               std::string(cmd) + ": partition " + std::to_string(pid) +
                                   " has no live copy"};
                break;
            }
            const auto n = static_cast<std::size_t>(node);
            if (!touched[n]) {
                touched[n] = true;
                answer[n] = node_answer(p, node, attempt, now);
            }
            if (answer[n]) {
                failed = answer[n];
                break;
            }
            std::vector<std::pair<const kv::digest*, detail::entry*>> hits;
            for (auto& [d, e] : ns->records[pid])
                if ((!part.last || *part.last < d) && !e.expired(now_s) &&
                    (set.empty() || e.set() == set) && keep(d, e) &&
                    (!filtered || detail::check_filter(rp.filter_exp, e, d, now_ms, cmd)))
                    hits.emplace_back(&d, &e);
            std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
                return *a.first < *b.first;
            });
            std::size_t taken = 0;
            for (const auto& [d, e] : hits) {
                if (max_records != 0 && out.size() >= max_records)
                    break;
                ++taken;
                kv::record rec;
                if (bins.empty()) {
                    detail::copy_bins(*e, rec);
                } else {
                    for (const std::string& b : bins)
                        if (const detail::stored_bin* sb = e->find(b))
                            rec.bins.push_back(kv::bin{b, sb->val});
                }
                detail::copy_header(*e, now_s, rec);
                count_read(p, *e);
                {
                    counters& c = p.current();
                    ++c.ops;
                    c.latency_us += throttle_us;
                }
                std::optional<kv::key> k;
                if (e->stored_key) {
                    auto made = kv::key::make(ns->name, e->set(), *e->stored_key);
                    if (made)
                        k = std::move(made).value();
                }
                if (!k)
                    k = kv::key::from_digest(ns->name, e->set(), *d);
                out.push_back(kv::keyed_record{std::move(*k), std::move(rec)});
            }
            if (taken != 0 || hits.empty())
                moved.emplace_back(&part, part);
            if (taken == hits.size())
                part.done = true;
            else if (taken != 0)
                part.last = *hits[taken - 1].first;
        }
        for (std::uint32_t n = 0; n < m_cfg.nodes; ++n)
            if (touched[n])
                ns->extras[n].round_trips.fetch_add(1, std::memory_order_relaxed);
        if (!failed)
            return out;
        // The C client retries every transient failure but KEY_BUSY.
        const bool retryable = kv::is_transient(failed->code) && failed->code != status::key_busy;
        if (!retryable || attempt >= rp.max_retries) {
            for (const auto& [at, was] : moved)
                *at = was;
            return *std::move(failed);
        }
    }
}

// --- capacity: stop-writes and nsup ---------------------------------------------

namespace detail {

/// The type an expression index's expression must have (sindex.c
/// as_sindex_validate_exp_type; exp.c result types): the index's particle
/// type, or a list / a map for a collection index.
inline std::uint8_t expected_exp_type(const kv::index_spec& ix) noexcept {
    switch (ix.collection) {
    case kv::index_collection::list:
        return 4;
    case kv::index_collection::map_keys:
    case kv::index_collection::map_values:
        return 5;
    case kv::index_collection::none:
        break;
    }
    switch (ix.type) {
    case kv::index_type::string:
        return 3;
    case kv::index_type::blob:
        return 6;
    case kv::index_type::numeric:
        break;
    }
    return 2;
}

inline std::string_view exp_type_text(std::uint8_t t) noexcept {
    switch (t) {
    case 1:
        return "bool";
    case 2:
        return "numeric";
    case 3:
        return "string";
    case 4:
        return "list";
    case 5:
        return "map";
    case 6:
        return "blob";
    case 7:
        return "float";
    case 8:
        return "geo2dsphere";
    case 9:
        return "hll";
    default:
        return "none";
    }
}

/// What an index definition reads, checked as the server's sindex-create
/// does (sindex_manager.c): a bin or an expression, not both; a ctx only on
/// a bin, of read steps (cdt_context_read_check_peek); an expression of the
/// index's type.
inline result<void> check_index_source(const kv::index_spec& ix) {
    if (!ix.exp.empty()) {
        if (!ix.bin.empty())
            return fail(status::parameter_error,
                        "create_index " + ix.name + ": both 'bin' and 'exp' are specified");
        if (!ix.ctx.empty())
            return fail(status::parameter_error,
                        "create_index " + ix.name + ": both 'context' and 'exp' are specified");
        result<const exp::detail::engine_hooks*> h = exp::detail::need_engine("create_index");
        if (!h)
            return h.error();
        result<std::uint8_t> t = (*h)->type(ix.exp);
        if (!t)
            return fail(status::parameter_error, "create_index " + ix.name + ": bad 'exp'");
        if (*t != expected_exp_type(ix))
            return fail(status::parameter_error,
                        "create_index " + ix.name + ": bad 'exp' - expression type '" +
                            std::string(exp_type_text(*t)) + "' does not match expected type '" +
                            std::string(exp_type_text(expected_exp_type(ix))) + "'");
        return {};
    }
    if (ix.bin.empty())
        return fail(status::parameter_error,
                    "create_index " + ix.name + ": both 'bin' and 'exp' are missing");
    if (result<void> b = kv::check_bin_name(ix.bin, "create_index"); !b)
        return b;
    for (const cdt::ctx_step& st : ix.ctx)
        if (st.create)
            return fail(status::parameter_error,
                        "create_index " + ix.name + ": 'context' invalid cdt context (step " +
                            cdt::detail::ctx_step_text(st) + " creates)");
    return {};
}

inline bool same_ctx(const std::vector<cdt::ctx_step>& a,
                     const std::vector<cdt::ctx_step>& b) noexcept {
    return std::equal(
        a.begin(), a.end(), b.begin(), b.end(), [](const cdt::ctx_step& x, const cdt::ctx_step& y) {
            return x.type == y.type && x.index == y.index && x.val.type() == y.val.type() &&
                   x.val == y.val &&
                   cdt::detail::ctx_create_bits(x) == cdt::detail::ctx_create_bits(y);
        });
}

/// Whether index x reads what a definition or query names (the server's
/// as_si_by_defn: set, bin, particle type, collection, ctx and expression
/// bytes).
inline bool same_index_source(const kv::index_spec& x,
                              const std::string& set,
                              const std::string& bin,
                              kv::index_type type,
                              kv::index_collection collection,
                              const std::vector<cdt::ctx_step>& ctx,
                              const std::vector<std::uint8_t>& exp) noexcept {
    return x.set == set && x.bin == bin && x.type == type && x.collection == collection &&
           same_ctx(x.ctx, ctx) && x.exp == exp;
}

} // namespace detail

inline std::vector<value> cluster::indexed_values(const kv::index_spec& ix,
                                                  const detail::entry& e,
                                                  const kv::digest& d,
                                                  std::int64_t now_ms) {
    std::vector<value> out;
    if (!ix.set.empty() && !detail::same_name(ix.set, e.set()))
        return out;
    std::optional<value> computed;
    const value* v = nullptr;
    if (ix.exp.empty()) {
        const detail::stored_bin* b = e.find(ix.bin);
        if (b == nullptr)
            return out;
        v = &b->val;
    } else {
        const exp::detail::engine_hooks* h = exp::detail::engine().get();
        if (h == nullptr)
            return out;
        result<std::optional<value>> r = h->eval(ix.exp, detail::view_of(e, d, now_ms));
        if (!r || !*r)
            return out;
        computed = std::move(**r);
        v = &*computed;
    }
    if (!ix.ctx.empty()) {
        computed = cdt::detail::element_at(*v, ix.ctx);
        if (!computed)
            return out;
        v = &*computed;
    }
    const auto take = [&](const value& x) {
        if (index_type_of(x) == ix.type)
            out.push_back(x);
    };
    switch (ix.collection) {
    case kv::index_collection::none:
        // A bin's own string or blob longer than 2 KiB is not indexed
        // (MAX_STRING_KSIZE / MAX_BLOB_KSIZE); elements are not checked.
        if ((v->is_string() && v->as_string().size() > 2048) ||
            (v->is_bytes() && v->as_bytes().size() > 2048))
            return out;
        take(*v);
        return out;
    case kv::index_collection::list:
        if (v->is_list())
            std::for_each(v->as_list().begin(), v->as_list().end(), take);
        break;
    case kv::index_collection::map_keys:
    case kv::index_collection::map_values:
        if (v->is_map())
            for (const map_entry& x : v->as_map())
                take(ix.collection == kv::index_collection::map_keys ? x.key : x.val);
        break;
    }
    std::sort(
        out.begin(), out.end(), [](const value& a, const value& b) { return compare(a, b) < 0; });
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

inline std::uint64_t cluster::sindex_entries(const kv::index_spec& ix,
                                             const detail::entry& e,
                                             const kv::digest& d,
                                             std::int64_t now_ms) {
    return indexed_values(ix, e, d, now_ms).size();
}

inline kvmodel::detail::engine_hook<cluster::sindex_nodes_fn>& cluster::sindex_hook() noexcept {
    static kvmodel::detail::engine_hook<sindex_nodes_fn> h;
    return h;
}

inline std::uint64_t cluster::sindex_extra_nodes(const std::vector<kv::index_spec>& indexes,
                                                 const detail::record_table& records,
                                                 std::vector<std::uint64_t>& counts,
                                                 std::int64_t now_ms) {
    if (indexes.empty())
        return 0;
    // Indexes exist only through create_index, which set the hook.
    const sindex_nodes_fn f = sindex_hook().get();
    return f == nullptr ? 0 : f(indexes, records, counts, now_ms);
}

inline kvmodel::detail::engine_hook<cluster::index_copy_fn>& cluster::index_copy_hook() noexcept {
    static kvmodel::detail::engine_hook<index_copy_fn> h;
    return h;
}

inline void cluster::copy_indexes(const std::vector<kv::index_spec>& from,
                                  std::vector<kv::index_spec>& to) {
    to = from;
}

inline std::vector<kv::index_spec> cluster::indexes_of(const detail::namespace_state& ns) {
    std::vector<kv::index_spec> out;
    std::shared_lock lock(ns.index_mu);
    // Indexes exist only through create_index, which set the hook.
    if (!ns.indexes.empty())
        if (const index_copy_fn f = index_copy_hook().get())
            f(ns.indexes, out);
    return out;
}

inline std::uint64_t cluster::sindex_extra_nodes_impl(const std::vector<kv::index_spec>& indexes,
                                                      const detail::record_table& records,
                                                      std::vector<std::uint64_t>& counts,
                                                      std::int64_t now_ms) {
    counts.assign(indexes.size(), 0);
    for (const auto& [d, e] : records)
        for (std::size_t i = 0; i < indexes.size(); ++i)
            counts[i] += sindex_entries(indexes[i], e, d, now_ms);
    std::uint64_t extra = 0;
    for (std::uint64_t n : counts)
        extra += sindex_tree_nodes(n) - 1;
    return extra;
}

inline cluster::node_usage cluster::usage(const detail::namespace_state& ns) const {
    const std::vector<kv::index_spec> indexes = indexes_of(ns);
    const std::int64_t now_ms = m_clock->now_ms();
    node_usage out;
    out.data_bytes.assign(m_cfg.nodes, 0);
    // Every node has every index's tree of every partition.
    out.index_bytes.assign(m_cfg.nodes, indexes.size() * kv::partition_count * sindex_node_bytes);
    std::vector<std::uint64_t> counts;
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid) {
        detail::partition& p = ns.parts[pid];
        std::lock_guard lock(p.mu);
        const std::uint64_t extra = sindex_extra_nodes(indexes, ns.records[pid], counts, now_ms);
        for (std::size_t i = 0; i < p.replicas.size(); ++i) {
            const auto n = static_cast<std::size_t>(p.replicas[i]);
            out.data_bytes[n] += p.used_bytes;
            out.index_bytes[n] +=
                p.objects * primary_index_bytes + extra * sindex_node_bytes;
        }
    }
    return out;
}

inline void cluster::eval_stop_writes(detail::namespace_state& ns) const {
    const node_usage use = usage(ns);
    // The nodes' memory, every namespace's (nsup.c's sys_mem_pct, rounded up).
    std::vector<std::uint64_t> memory(m_cfg.nodes, 0);
    if (m_cfg.node_memory != 0 && ns.cfg.stop_writes_sys_memory_pct != 0)
        for (const detail::namespace_state& other : namespaces()) {
            // No node_usage copy of `use` (a copy constructor more per TU).
            const node_usage theirs = &other == &ns ? node_usage{} : usage(other);
            const node_usage& o = &other == &ns ? use : theirs;
            for (std::uint32_t n = 0; n < m_cfg.nodes; ++n)
                memory[n] += o.data_bytes[n] + o.index_bytes[n];
        }
    for (std::uint32_t n = 0; n < m_cfg.nodes; ++n) {
        std::uint32_t why = 0;
        if (m_cfg.node_memory != 0 && ns.cfg.stop_writes_sys_memory_pct != 0 &&
            (memory[n] * 100 + m_cfg.node_memory - 1) / m_cfg.node_memory >
                ns.cfg.stop_writes_sys_memory_pct)
            why |= detail::stop_sys_memory;
        if (ns.cfg.stop_writes_used_pct != 0 &&
            use.data_bytes[n] * 100 / ns.cfg.data_size >= ns.cfg.stop_writes_used_pct)
            why |= detail::stop_data_used;
        if (ns.cfg.indexes_memory_budget != 0 && use.index_bytes[n] > ns.cfg.indexes_memory_budget)
            why |= detail::stop_indexes_memory;
        ns.stop_writes[n].store(why, std::memory_order_relaxed);
    }
}

inline error cluster::stop_writes_error(const detail::namespace_state& ns,
                                        std::string_view cmd,
                                        int node,
                                        std::uint32_t why) const {
    std::string reason;
    if ((why & detail::stop_data_used) != 0)
        reason = "data used >= stop-writes-used-pct " +
                 std::to_string(ns.cfg.stop_writes_used_pct) + "% of data-size " +
                 std::to_string(ns.cfg.data_size);
    if ((why & detail::stop_indexes_memory) != 0)
        reason += std::string(reason.empty() ? "" : " & ") + "indexes above indexes-memory-budget " +
                  std::to_string(ns.cfg.indexes_memory_budget);
    if ((why & detail::stop_sys_memory) != 0)
        reason += std::string(reason.empty() ? "" : " & ") +
                  "system memory above stop-writes-sys-memory-pct " +
                  std::to_string(ns.cfg.stop_writes_sys_memory_pct) + "% of node-memory " +
                  std::to_string(m_cfg.node_memory);
    return error{status::server_mem_error,
                 std::string(cmd) + ": server full: namespace '" + ns.name +
                     "' is at stop-writes on node " + std::to_string(node) + " (" + reason +
                     "); deletes and expiry free space"};
}

inline std::size_t
cluster::remove_records(detail::namespace_state& ns,
                        detail::function_ref<bool(const detail::entry&)> doomed) {
    std::size_t n = 0;
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid) {
        detail::partition& p = ns.parts[pid];
        std::lock_guard lock(p.mu);
        const std::size_t gone =
            ns.records[pid].erase_if([&](const kv::digest& d, const detail::entry& e) {
                if (!doomed(e))
                    return false;
                p.depart(d, e, pid);
                p.charge(-1, -static_cast<std::int64_t>(e.stored_size()));
                return true;
            });
        if (gone != 0)
            p.written();
        n += gone;
    }
    return n;
}

inline std::int64_t cluster::evict_void_time(const detail::namespace_state& ns,
                                             std::int64_t now_s) {
    // The void times of the records with a TTL (expired ones not yet removed
    // included), in a linear histogram from now to the latest void time.
    std::int64_t max_void_time = 0;
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid) {
        std::lock_guard lock(ns.parts[pid].mu);
        for (const auto& [d, e] : ns.records[pid])
            max_void_time = std::max(max_void_time, e.void_time);
    }
    const std::int64_t buckets = ns.cfg.evict_hist_buckets;
    const std::int64_t range = max_void_time > now_s ? max_void_time - now_s : 0;
    const std::int64_t width = std::max<std::int64_t>(1, (range + buckets - 1) / buckets);
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(buckets));
    std::uint64_t total = 0;
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid) {
        std::lock_guard lock(ns.parts[pid].mu);
        for (const auto& [d, e] : ns.records[pid]) {
            if (e.void_time == 0)
                continue;
            const std::int64_t offset = e.void_time - now_s;
            const std::int64_t b = offset > 0 ? std::min(offset / width, buckets - 1) : 0;
            ++counts[static_cast<std::size_t>(b)];
            ++total;
        }
    }
    // The threshold bucket: where the running count first exceeds
    // evict-tenths-pct of the total.
    const std::uint64_t target = total * ns.cfg.evict_tenths_pct / 1000;
    std::uint64_t below = 0;
    for (std::int64_t i = 0; i < buckets; ++i) {
        const std::uint64_t c = counts[static_cast<std::size_t>(i)];
        if (below + c > target) {
            const std::int64_t at = now_s + i * width;
            // Nothing below the threshold: nothing to evict; the first
            // bucket may still hold expired records.
            if (below == 0)
                return at == now_s ? now_s : 0;
            return at;
        }
        below += c;
    }
    return 0; // it would evict every record with a TTL: the server does not
}

inline std::size_t cluster::nsup_cycle(detail::namespace_state& ns, std::int64_t now_s) {
    ns.nsup_cycles.fetch_add(1, std::memory_order_relaxed);
    bool breached = false;
    if (ns.cfg.evict_used_pct != 0 || ns.cfg.evict_indexes_memory_pct != 0) {
        const node_usage use = usage(ns);
        for (std::uint32_t n = 0; n < m_cfg.nodes; ++n) {
            if (ns.cfg.evict_used_pct != 0 &&
                use.data_bytes[n] * 100 / ns.cfg.data_size >= ns.cfg.evict_used_pct)
                breached = true;
            if (ns.cfg.evict_indexes_memory_pct != 0 && ns.cfg.indexes_memory_budget != 0 &&
                use.index_bytes[n] * 100 / ns.cfg.indexes_memory_budget >=
                    ns.cfg.evict_indexes_memory_pct)
                breached = true;
        }
    }
    if (breached) {
        const std::int64_t cut = evict_void_time(ns, now_s);
        if (cut > now_s) {
            const std::size_t n = remove_records(ns, [cut](const detail::entry& e) {
                return e.void_time != 0 && e.void_time < cut;
            });
            ns.evicted.fetch_add(n, std::memory_order_relaxed);
            ns.evict_void_time.store(cut, std::memory_order_relaxed);
            return n;
        }
        if (cut == 0)
            return 0; // breached, nothing to evict: the server skips expiry too
    }
    const std::size_t n =
        remove_records(ns, [now_s](const detail::entry& e) { return e.expired(now_s); });
    ns.expired.fetch_add(n, std::memory_order_relaxed);
    return n;
}

inline void cluster::maintain(detail::namespace_state& ns, time_ms now) {
    if (now < ns.next_eval_ms.load(std::memory_order_relaxed) &&
        now < ns.next_nsup_ms.load(std::memory_order_relaxed))
        return;
    if (!ns.nsup_mu.try_lock())
        return; // another thread is at it
    // Adopted by a lock_guard (instantiated anyway), not a unique_lock.
    std::lock_guard lock(ns.nsup_mu, std::adopt_lock);
    if (now >= ns.next_nsup_ms.load(std::memory_order_relaxed)) {
        const time_ms period = time_ms{ns.cfg.nsup_period} * 1000;
        ns.next_nsup_ms.store((now / period + 1) * period, std::memory_order_relaxed);
        nsup_cycle(ns, now / 1000);
    }
    if (now >= ns.next_eval_ms.load(std::memory_order_relaxed)) {
        constexpr time_ms period = stop_writes_eval_period_s * 1000;
        ns.next_eval_ms.store((now / period + 1) * period, std::memory_order_relaxed);
        eval_stop_writes(ns);
    }
}

inline void cluster::snapshot(const detail::namespace_state& ns,
                              const std::vector<std::uint64_t>& alive,
                              std::int64_t now_s,
                              namespace_stats& s) const {
    s.name = ns.name;
    s.nodes.resize(m_cfg.nodes);
    for (std::uint32_t n = 0; n < m_cfg.nodes; ++n) {
        s.nodes[n].node = static_cast<int>(n);
        s.nodes[n].alive = alive[n] != 0;
        s.nodes[n].ops.round_trips = ns.extras[n].round_trips.load(std::memory_order_relaxed);
        // Batch and scan round trips belong to nodes only.
        s.totals.round_trips += s.nodes[n].ops.round_trips;
    }
    s.partitions.resize(kv::partition_count);
    // The hot-key candidates: every accessed record, live or departed. A
    // digest belongs to one partition, so a departed record can only merge
    // with a candidate of its own partition (no hash map needed).
    std::vector<key_heat> keys;
    const std::vector<kv::index_spec> indexes = indexes_of(ns);
    // Every node has every index's tree of every partition (one node each).
    for (node_stats& nd : s.nodes)
        nd.sindex_used_bytes = indexes.size() * kv::partition_count * sindex_node_bytes;
    std::vector<std::uint64_t> counts;
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid) {
        detail::partition& p = ns.parts[pid];
        std::lock_guard lock(p.mu);
        partition_stats& ps = s.partitions[pid];
        ps.id = pid;
        ps.master = p.master();
        ps.ops = p.total();
        std::uint64_t live_records = 0;
        std::uint64_t bytes = 0;
        const std::uint64_t sindex_extra =
            sindex_extra_nodes(indexes, ns.records[pid], counts, now_s * 1000);
        const std::size_t first_key = keys.size();
        for (const auto& [d, e] : ns.records[pid]) {
            if (!e.expired(now_s)) {
                ++live_records;
                bytes += e.stored_size();
            }
            if (e.reads + e.writes == 0)
                continue;
            keys.push_back(key_heat{});
            key_heat& h = keys.back();
            h.digest = d;
            h.set = e.set();
            if (e.stored_key)
                h.user_key = *e.stored_key;
            h.partition = pid;
            h.reads = e.reads;
            h.writes = e.writes;
            h.live = true;
        }
        for (const key_heat& dk : p.departed) {
            std::size_t at = first_key;
            while (at < keys.size() && keys[at].digest != dk.digest)
                ++at;
            if (at == keys.size()) {
                keys.push_back(key_heat(dk));
            } else {
                keys[at].reads += dk.reads;
                keys[at].writes += dk.writes;
            }
        }
        ps.records = live_records;
        ps.bytes = bytes;
        s.totals += ps.ops;
        s.records += live_records;
        s.bytes += bytes;
        for (std::uint32_t n = 0; n < m_cfg.nodes; ++n)
            s.nodes[n].ops += p.of_node(n);
        for (std::size_t i = 0; i < p.replicas.size(); ++i) {
            node_stats& nd = s.nodes[static_cast<std::size_t>(p.replicas[i])];
            nd.data_used_bytes += p.used_bytes;
            nd.index_used_bytes += p.objects * primary_index_bytes;
            nd.sindex_used_bytes += sindex_extra * sindex_node_bytes;
            if (i == 0) {
                ++nd.master_partitions;
                nd.master_records += live_records;
                nd.master_bytes += bytes;
            } else {
                ++nd.replica_partitions;
                nd.replica_records += live_records;
                nd.replica_bytes += bytes;
            }
        }
    }
    for (std::uint32_t n = 0; n < m_cfg.nodes; ++n) {
        node_stats& nd = s.nodes[n];
        nd.data_used_pct = static_cast<std::uint32_t>(nd.data_used_bytes * 100 / ns.cfg.data_size);
        nd.stop_writes = ns.stop_writes[n].load(std::memory_order_relaxed) != 0;
        s.data_used_bytes += nd.data_used_bytes;
        s.index_used_bytes += nd.index_used_bytes;
        s.sindex_used_bytes += nd.sindex_used_bytes;
    }
    s.nsup_cycles = ns.nsup_cycles.load(std::memory_order_relaxed);
    s.expired_records = ns.expired.load(std::memory_order_relaxed);
    s.evicted_records = ns.evicted.load(std::memory_order_relaxed);
    s.evict_void_time = ns.evict_void_time.load(std::memory_order_relaxed);
    s.stop_writes_refused = ns.stop_writes_refused.load(std::memory_order_relaxed);
    // Hottest first, ties by digest (unique: a strict total order).
    std::vector<std::uint64_t> hot = detail::iota_ids(keys.size());
    const std::size_t hot_keys =
        detail::top_ids(hot, m_cfg.hot_list_size, {&detail::hotter_key, keys.data()});
    for (std::size_t i = 0; i < hot_keys; ++i)
        s.hot_keys.push_back(std::move(keys[hot[i]]));
    std::vector<std::uint64_t> ids;
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid)
        if (s.partitions[pid].ops.ops != 0)
            ids.push_back(pid);
    const std::size_t hot_parts =
        detail::top_ids(ids, m_cfg.hot_list_size, {&detail::busier_partition, s.partitions.data()});
    for (std::size_t i = 0; i < hot_parts; ++i) {
        const auto pid = static_cast<std::uint32_t>(ids[i]); // push_back(const&): fewest functions
        s.hot_partitions.push_back(pid);
    }
}

} // namespace kvmodel::sim
