// kvmodel/sim/detail/state.hpp
//
// The simulated cluster's shared state: per namespace 4096 partitions, each
// with its own lock (the only lock on the hot path), its records (in a
// table beside it), its accounting, and its replica bookkeeping; and the
// namespace's set names.
//
// Replication model: each partition has a fixed succession list of nodes (a
// seeded rendezvous hash, as Aerospike orders nodes per partition); its
// replicas are the first replication_factor live nodes of that list, master
// first. The data is held once, but every node's copy carries the version it
// last received: a write bumps the partition's version and hands it to the
// current replicas (lazily: a write only marks the partition dirty, and the
// next topology change hands the new version to the replicas that served
// the epoch). When the topology changes, a partition stays available
// only if some live node has the current version; it is then copied at once
// to its new replicas (instant migration). If no live node has it, the
// partition is unavailable (PARTITION_UNAVAILABLE) until one that does comes
// back — no acknowledged write is ever lost or served stale.
#pragma once

#include <kvmodel/config.hpp> // KVMODEL_FORCE_INLINE
#include <kvmodel/kv/digest.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/sim/detail/heap_array.hpp>
#include <kvmodel/sim/detail/pending_writes.hpp>
#include <kvmodel/sim/detail/record_engine.hpp>
#include <kvmodel/sim/detail/record_table.hpp>
#include <kvmodel/sim/faults.hpp>
#include <kvmodel/sim/namespace_config.hpp>
#include <kvmodel/sim/stats.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kvmodel::sim::detail {

/// Deleted records remembered per partition for the hot-key list.
inline constexpr std::size_t departed_keys_kept = 8;

/// A 4-byte mutex (Drepper's futex mutex over C++20 atomic wait/notify):
/// uncontended lock and unlock are one atomic operation each, and it leaves
/// room in the partition's first cache line for the record map. Waiters
/// spin briefly, then sleep.
class partition_lock {
public:
    void lock() noexcept {
        std::uint32_t c = 0;
        if (m_state.compare_exchange_strong(
                c, 1, std::memory_order_acquire, std::memory_order_relaxed))
            return;
        for (int i = 0; i < 100; ++i) {
            c = 0;
            if (m_state.load(std::memory_order_relaxed) == 0 &&
                m_state.compare_exchange_weak(
                    c, 1, std::memory_order_acquire, std::memory_order_relaxed))
                return;
        }
        // 2 = locked with (possible) waiters: unlock must wake one.
        c = m_state.exchange(2, std::memory_order_acquire);
        while (c != 0) {
            m_state.wait(2, std::memory_order_relaxed);
            c = m_state.exchange(2, std::memory_order_acquire);
        }
    }
    void unlock() noexcept {
        if (m_state.exchange(0, std::memory_order_release) == 2)
            m_state.notify_one();
    }

private:
    std::atomic<std::uint32_t> m_state{0};
};

/// A namespace's set names, interned so records point at them. Lookups are
/// lock-free (sets are few and never removed); adding takes a mutex.
class set_table {
public:
    /// As the server: at most 4095 sets per namespace (AS_SET_MAX_COUNT).
    static constexpr std::size_t max_sets = 4095;

    set_table() {
        m_slots.reset(max_sets + 1);
        m_slots[0].store(&no_set(), std::memory_order_relaxed);
        m_count.store(1, std::memory_order_release);
    }
    set_table(const set_table&) = delete;
    set_table& operator=(const set_table&) = delete;
    /// Frees the names added (slot 0, no_set(), is not ours).
    ~set_table() {
        const std::size_t n = m_count.load(std::memory_order_acquire);
        for (std::size_t i = 1; i < n; ++i)
            delete m_slots[i].load(std::memory_order_relaxed); // NOLINT(*-owning-memory)
    }

    /// The interned name, adding it if new; nullptr when the table is full.
    const std::string* intern(std::string_view name) {
        if (const std::string* s = find(name))
            return s;
        std::lock_guard lock(m_mu);
        if (const std::string* s = find(name))
            return s;
        const std::size_t n = m_count.load(std::memory_order_relaxed);
        if (n > max_sets)
            return nullptr;
        // Each name in its own allocation (stable addresses), owned by the
        // slot: a deque<string> would instantiate its map and iterators here.
        const std::string* const added = new std::string(name); // NOLINT(*-owning-memory)
        m_slots[n].store(added, std::memory_order_relaxed);
        m_count.store(n + 1, std::memory_order_release);
        return added;
    }

private:
    const std::string* find(std::string_view name) const noexcept {
        const std::size_t n = m_count.load(std::memory_order_acquire);
        for (std::size_t i = 0; i < n; ++i) {
            const std::string* s = m_slots[i].load(std::memory_order_relaxed);
            if (same_name(*s, name))
                return s;
        }
        return nullptr;
    }

    heap_array<std::atomic<const std::string*>> m_slots;
    std::atomic<std::size_t> m_count{0};
    std::mutex m_mu;
};

struct alignas(64) partition {
    // Hot: the first cache line is the only one of the partition a command
    // touches (unless it fails or has latency): the lock, the serving node,
    // the write flags and the counters every command bumps. The records are
    // in the namespace's record_table array (namespace_state::records).
    partition_lock mu;
    /// replicas.front(), or -1: the serving node.
    std::int16_t master_node = -1;
    /// A write was committed since the last topology change.
    bool dirty = false;
    /// pending.tracked() != 0, here so that a write taking no time need not
    /// read the queue's line to learn there is nothing to wait behind.
    bool writes_queued = false;
    /// Counters since the last topology change (the master was fixed).
    counters epoch;
    /// Stored bytes and records of one copy of the partition, expired
    /// records included until they are removed (as the server's
    /// data_used_bytes and n_objects count them).
    std::uint64_t used_bytes = 0;
    std::uint64_t objects = 0;

    // Cold.
    /// Counters of earlier epochs, in total and by the node that served them.
    counters past;
    /// One per node, as copy_version (a fixed array, not a vector<counters>:
    /// one container instantiation less in every TU).
    heap_array<counters> past_by_node;
    /// The hottest deleted records (bounded).
    std::vector<key_heat> departed;
    /// The data version: bumped at a topology change when writes happened
    /// in the epoch that ends (the replicas of that epoch hold it).
    std::uint64_t version = 1;
    /// Per node: the version of its copy; 0 = no copy.
    std::vector<std::uint64_t> copy_version;
    /// Current replicas, master first; empty = unavailable.
    std::vector<int> replicas;
    /// All nodes in this partition's preference order (fixed).
    std::vector<int> succession;
    /// Writes queued per record (transaction-pending-limit).
    pending_writes pending;

    KVMODEL_FORCE_INLINE int master() const noexcept { return master_node; }

    /// The counters of the current epoch, which a command bumps. Node
    /// counters are derived: an epoch's counters belong to its master.
    KVMODEL_FORCE_INLINE counters& current() noexcept { return epoch; }
    /// Counts a command refused because the partition has no live copy and
    /// returns its PARTITION_UNAVAILABLE error (`where` follows the id, e.g.
    /// " of namespace 'test'").
    error unavailable(std::string_view cmd, std::uint32_t id, std::string_view where = {}) {
        ++epoch.ops;
        ++epoch.errors;
        ++epoch.unavailable;
        return error{status::partition_unavailable,
                     std::string(cmd) + ": partition " + std::to_string(id) + std::string(where) +
                         " has no live copy"};
    }
    /// Counts a command the client did not send to `node` and returns its
    /// error: the node's connection refused (status::connection) or the node
    /// past the client's error rate (status::max_error_rate). `detail`
    /// follows the node id in the message (a single command explains more
    /// than a batch does).
    error not_sent(status code, std::string_view cmd, int node, std::string_view detail) {
        ++epoch.ops;
        ++epoch.errors;
        return error{code,
                     std::string(cmd) +
                         (code == status::max_error_rate ? ": max error rate exceeded (node "
                                                         : ": connection refused by node ") +
                         std::to_string(node) + std::string(detail)};
    }
    /// All counters (past + current epoch).
    counters total() const noexcept {
        counters c = past;
        c += epoch;
        return c;
    }
    /// The counters served by node n.
    counters of_node(std::size_t n) const noexcept {
        counters c = past_by_node[n];
        if (master_node >= 0 && static_cast<std::size_t>(master_node) == n)
            c += epoch;
        return c;
    }
    void reset_counters() {
        epoch = counters{};
        past = counters{};
        for (std::size_t n = 0; n < copy_version.size(); ++n)
            past_by_node[n] = counters{};
        departed.clear();
    }

    /// Charges a record's stored size (one copy): +1 record with `bytes`,
    /// or -1 with -bytes.
    void charge(std::int64_t records, std::int64_t bytes) noexcept {
        objects = static_cast<std::uint64_t>(static_cast<std::int64_t>(objects) + records);
        used_bytes = static_cast<std::uint64_t>(static_cast<std::int64_t>(used_bytes) + bytes);
    }

    /// Remembers a record that is going away, if it was accessed.
    void depart(const kv::digest& d, const entry& e, std::uint32_t pid) {
        if (e.reads + e.writes == 0)
            return;
        key_heat h;
        h.digest = d;
        h.set = e.set();
        if (e.stored_key)
            h.user_key = *e.stored_key;
        h.partition = pid;
        h.reads = e.reads;
        h.writes = e.writes;
        h.live = false;
        departed.push_back(std::move(h));
        if (departed.size() > departed_keys_kept) {
            // The first of the coldest goes; the others keep their order.
            // (Index loops: min_element and erase would instantiate their
            // iterator and move layers over key_heat for this alone.)
            std::size_t coldest = 0;
            for (std::size_t i = 1; i < departed.size(); ++i)
                if (departed[i].reads + departed[i].writes <
                    departed[coldest].reads + departed[coldest].writes)
                    coldest = i;
            for (std::size_t i = coldest; i + 1 < departed.size(); ++i)
                departed[i] = std::move(departed[i + 1]);
            departed.pop_back();
        }
    }

    /// A write was committed: the current replicas hold the newest data.
    KVMODEL_FORCE_INLINE void written() noexcept { dirty = true; }

    /// Recomputes the replicas for the live nodes (alive[n] != 0; under mu),
    /// closing the accounting epoch.
    void recompute(const std::vector<std::uint64_t>& alive, std::uint32_t replication_factor) {
        past += epoch;
        if (master_node >= 0)
            past_by_node[static_cast<std::size_t>(master_node)] += epoch;
        epoch = counters{};
        if (dirty) {
            // The epoch's replicas received its writes; nobody else did.
            ++version;
            for (std::size_t i = 0; i < replicas.size(); ++i)
                copy_version[static_cast<std::size_t>(replicas[i])] = version;
            dirty = false;
        }
        bool current = false;
        for (std::size_t n = 0; n < alive.size(); ++n)
            if (alive[n] != 0 && copy_version[n] == version)
                current = true;
        replicas.clear();
        // Loops over indices, not iterators and std::find: vector<int>'s
        // iterator layers would be instantiated for this alone.
        if (current) {
            for (std::size_t i = 0; i < succession.size(); ++i) {
                if (replicas.size() >= replication_factor)
                    break;
                const int n = succession[i];
                if (alive[static_cast<std::size_t>(n)] != 0)
                    replicas.push_back(n);
            }
            for (std::size_t n = 0; n < alive.size(); ++n) {
                if (alive[n] == 0)
                    continue; // a down node keeps whatever it had
                bool is_replica = false;
                for (std::size_t i = 0; i < replicas.size(); ++i)
                    is_replica = is_replica || replicas[i] == static_cast<int>(n);
                copy_version[n] = is_replica ? version : 0;
            }
        }
        master_node = static_cast<std::int16_t>(replicas.size() == 0 ? -1 : replicas[0]);
    }
};

/// Per-node round trips that belong to no partition (batch reads and
/// scans), as relaxed atomics.
struct node_extra {
    std::atomic<std::uint64_t> round_trips{0};
};

struct namespace_state {
    std::string name;
    limits lim;
    std::uint32_t transaction_pending_limit = default_transaction_pending_limit;
    std::uint32_t replication_factor = 2;
    heap_array<partition> parts;
    /// The records of partition i, under parts[i].mu. Apart from the
    /// partitions so that the 4096 table headers are dense (64 KiB, kept in
    /// cache) and a command can prefetch its record's slot before the lock.
    heap_array<record_table> records;
    heap_array<node_extra> extras;
    set_table sets;
    mutable std::shared_mutex index_mu;
    std::vector<kv::index_spec> indexes;

    // Capacity: the settings, the stop-writes state per node (written by the
    // evaluation, read by every write), nsup's schedule and what it did.
    namespace_config cfg;
    /// Per node: why writes stop there (stop_reason bits; 0 = they don't).
    heap_array<std::atomic<std::uint32_t>> stop_writes;
    /// The clock time of the next stop-writes evaluation and nsup cycle.
    std::atomic<std::int64_t> next_eval_ms{0};
    std::atomic<std::int64_t> next_nsup_ms{0};
    /// Held by whoever runs an evaluation or an nsup cycle.
    std::mutex nsup_mu;
    std::atomic<std::uint64_t> nsup_cycles{0};
    std::atomic<std::uint64_t> expired{0};
    std::atomic<std::uint64_t> evicted{0};
    std::atomic<std::int64_t> evict_void_time{0};
    std::atomic<std::uint64_t> stop_writes_refused{0};
};

/// Why a node stops writes (namespace_state::stop_writes): nsup.c's reasons.
enum stop_reason : std::uint32_t {
    stop_data_used = 1U,      ///< data-used-pct >= stop-writes-used-pct
    stop_indexes_memory = 2U, ///< indexes above indexes-memory-budget
    stop_sys_memory = 4U,     ///< the node's memory above stop-writes-sys-memory-pct
};

} // namespace kvmodel::sim::detail
