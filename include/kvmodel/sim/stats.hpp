// kvmodel/sim/stats.hpp
//
// What the simulated cluster accounts — what the same workload would cost on
// a real cluster — per namespace, node and partition, plus the hottest keys
// and partitions; resettable (cluster::reset_stats) and exportable as JSON
// (sim/stats_json.hpp, apart: parsing nlohmann/json.hpp is a third of a
// sim/cluster.hpp parse).
//
// * round_trips: one per attempt of a single-record command; a batch read
//   counts one per node it touches (per attempt), a scan or query one per
//   node. Batch and scan round trips belong to nodes, not partitions.
// * ops: commands (and batch keys, scanned records) per partition.
// * reads / bytes_read: records read and their stored size (the whole
//   record: the server reads it whole even for selected bins; exists reads
//   no bytes).
// * writes / bytes_written: records written and — the write amplification
//   that makes bucket sizing a trade-off — the FULL new stored size of the
//   record on every write (touch included), however small the change.
// * deletes; errors by kind (not_found, timeouts, in_doubt, unavailable,
//   key_busy); simulated latency (sum and max, microseconds);
//   largest_record: the largest stored size read or written.
// * per node: records and bytes held as master and as replica.
// * capacity, per node: data_used_bytes (every copy's stored size),
//   index_used_bytes (64 B per copy), secondary-index bytes (14 B per entry),
//   data_used_pct of data-size and the stop-writes state; per namespace:
//   nsup cycles, records expired and evicted, and writes refused at
//   stop-writes.
// * hot keys: the records with the most reads + writes (live records, plus
//   a bounded memory of deleted ones per partition); hot partitions: the
//   partitions with the most ops.
//
// Cost: accounting is a few additions under the partition lock the command
// holds anyway; a snapshot walks every partition (and every record, for hot
// keys) — O(records), meant for the end of a run.
#pragma once

#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/digest.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvmodel::sim {

/// Counters of one scope (a partition, a node, a namespace).
struct counters {
    // The fields every command touches come first (one cache line).
    /// Commands (and batch keys, scanned records) counted here.
    std::uint64_t ops = 0;
    /// Round trips: one per attempt of a command; a batch read one per node per attempt.
    std::uint64_t round_trips = 0;
    /// Records read.
    std::uint64_t reads = 0;
    /// Records written (touch included).
    std::uint64_t writes = 0;
    /// Stored bytes of the records read (the whole record, as the server reads it).
    std::uint64_t bytes_read = 0;
    /// The full new stored size of every record written: the write amplification.
    std::uint64_t bytes_written = 0;
    /// The largest stored record size read or written.
    std::uint64_t largest_record = 0;
    /// Simulated latency, summed (microseconds; accounted, never slept).
    std::uint64_t latency_us = 0;
    /// The largest simulated latency of one command.
    std::uint64_t max_latency_us = 0;
    /// Records deleted.
    std::uint64_t deletes = 0;
    /// Commands that failed, for any reason.
    std::uint64_t errors = 0;
    /// KEY_NOT_FOUND answers.
    std::uint64_t not_found = 0;
    /// Attempts that timed out.
    std::uint64_t timeouts = 0;
    /// Timeouts whose write may have been applied (error::in_doubt).
    std::uint64_t in_doubt = 0;
    /// PARTITION_UNAVAILABLE answers.
    std::uint64_t unavailable = 0;
    /// Writes refused because the record had too many writes pending
    /// (transaction-pending-limit): KEY_BUSY.
    std::uint64_t key_busy = 0;

    /// Sums the counts, keeps the larger maxima.
    counters& operator+=(const counters& o) noexcept {
        ops += o.ops;
        round_trips += o.round_trips;
        reads += o.reads;
        writes += o.writes;
        deletes += o.deletes;
        bytes_read += o.bytes_read;
        bytes_written += o.bytes_written;
        errors += o.errors;
        not_found += o.not_found;
        timeouts += o.timeouts;
        in_doubt += o.in_doubt;
        unavailable += o.unavailable;
        key_busy += o.key_busy;
        latency_us += o.latency_us;
        max_latency_us = std::max(max_latency_us, o.max_latency_us);
        largest_record = std::max(largest_record, o.largest_record);
        return *this;
    }
    /// Field by field.
    friend bool operator==(const counters&, const counters&) = default;
};

/// One node of one namespace.
struct node_stats {
    /// The node id.
    int node = 0;
    /// Whether it is up.
    bool alive = true;
    /// What the node served.
    counters ops;
    /// Partitions it is master of.
    std::uint64_t master_partitions = 0;
    /// Partitions it holds a replica of.
    std::uint64_t replica_partitions = 0;
    /// Records it holds as master.
    std::uint64_t master_records = 0;
    /// Records it holds as replica.
    std::uint64_t replica_records = 0;
    /// Stored bytes it holds as master.
    std::uint64_t master_bytes = 0;
    /// Stored bytes it holds as replica.
    std::uint64_t replica_bytes = 0;
    /// The server's data_used_bytes: the stored size of every copy it holds
    /// (master and replica), expired records included until nsup (or a
    /// read) removes them.
    std::uint64_t data_used_bytes = 0;
    /// data_used_bytes as a whole % of the namespace's data-size (rounded
    /// down, as the server's data_used_pct).
    std::uint32_t data_used_pct = 0;
    /// The server's index_used_bytes: 64 B per record copy it holds.
    std::uint64_t index_used_bytes = 0;
    /// The server's secondary-index bytes (the indexes' sindex-stat
    /// used_bytes summed): 4 KiB per B-tree node, at least 16 MiB per index
    /// (sim::sindex_tree_nodes).
    std::uint64_t sindex_used_bytes = 0;
    /// It refuses writes (stop-writes) as of the last evaluation.
    bool stop_writes = false;
};

/// One partition of one namespace.
struct partition_stats {
    /// The partition id, 0..4095.
    std::uint32_t id = 0;
    /// The node serving it now; -1 when unavailable.
    int master = -1;
    /// What the partition served.
    counters ops;
    /// Live records in it.
    std::uint64_t records = 0;
    /// Stored bytes of its records (one copy).
    std::uint64_t bytes = 0;
};

/// Reads and writes of one record.
struct key_heat {
    /// The record's digest.
    kv::digest digest{};
    /// Its set.
    std::string set;
    /// The user key if it was stored (send_key).
    std::optional<value> user_key;
    /// Its partition.
    std::uint32_t partition = 0;
    /// Times it was read.
    std::uint64_t reads = 0;
    /// Times it was written.
    std::uint64_t writes = 0;
    /// False once the record was deleted.
    bool live = true;
};

/// One namespace.
struct namespace_stats {
    /// The namespace.
    std::string name;
    /// Everything it served.
    counters totals;
    /// Live records (one copy).
    std::uint64_t records = 0;
    /// Stored bytes of its records (one copy).
    std::uint64_t bytes = 0;
    /// Per node, by node id.
    std::vector<node_stats> nodes;
    /// All 4096 partitions, by id.
    std::vector<partition_stats> partitions;
    /// Most read + written records first.
    std::vector<key_heat> hot_keys;
    /// Partition ids with the most ops first.
    std::vector<std::uint32_t> hot_partitions;
    /// The nodes' data_used_bytes summed (every copy).
    std::uint64_t data_used_bytes = 0;
    /// The nodes' index_used_bytes summed (every copy).
    std::uint64_t index_used_bytes = 0;
    /// The nodes' sindex_used_bytes summed (every copy).
    std::uint64_t sindex_used_bytes = 0;
    /// nsup cycles run (on the clock and by cluster::nsup()).
    std::uint64_t nsup_cycles = 0;
    /// Records nsup expired.
    std::uint64_t expired_records = 0;
    /// Records nsup evicted.
    std::uint64_t evicted_records = 0;
    /// The last eviction's void-time cut (Unix seconds; 0 = none yet).
    std::int64_t evict_void_time = 0;
    /// Writes refused at stop-writes (SERVER_MEM_ERROR).
    std::uint64_t stop_writes_refused = 0;
};

/// A snapshot of a cluster's accounting.
struct stats {
    /// One entry per namespace.
    std::vector<namespace_stats> namespaces;
    /// Faults fired, over all installed faults.
    std::uint64_t fault_fires = 0;

    /// The namespace's stats, or nullptr. The pointer lives as long as this
    /// snapshot: copy what you keep from a temporary (`db.stats().find("test")->totals`).
    const namespace_stats* find(std::string_view ns) const noexcept {
        for (const namespace_stats& n : namespaces)
            if (n.name == ns)
                return &n;
        return nullptr;
    }
};

} // namespace kvmodel::sim
