// kvmodel/sim/stats.hpp
//
// What the simulated cluster accounts — what the same workload would cost on
// a real cluster — per namespace, node and partition, plus the hottest keys
// and partitions; resettable (cluster::reset_stats) and exportable as JSON.
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
// * hot keys: the records with the most reads + writes (live records, plus
//   a bounded memory of deleted ones per partition); hot partitions: the
//   partitions with the most ops.
//
// Cost: accounting is a few additions under the partition lock the command
// holds anyway; a snapshot walks every partition (and every record, for hot
// keys) — O(records), meant for the end of a run.
#pragma once

#include <kvmodel/core/json.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/digest.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvmodel::sim {

/// Counters of one scope (a partition, a node, a namespace).
struct counters {
    // The fields every command touches come first (one cache line).
    std::uint64_t ops = 0;
    std::uint64_t round_trips = 0;
    std::uint64_t reads = 0;
    std::uint64_t writes = 0;
    std::uint64_t bytes_read = 0;
    std::uint64_t bytes_written = 0;
    std::uint64_t largest_record = 0;
    std::uint64_t latency_us = 0;
    std::uint64_t max_latency_us = 0;
    std::uint64_t deletes = 0;
    std::uint64_t errors = 0;
    std::uint64_t not_found = 0;
    std::uint64_t timeouts = 0;
    std::uint64_t in_doubt = 0;
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
    friend bool operator==(const counters&, const counters&) = default;
};

/// One node of one namespace.
struct node_stats {
    int node = 0;
    bool alive = true;
    counters ops;
    std::uint64_t master_partitions = 0;
    std::uint64_t replica_partitions = 0;
    std::uint64_t master_records = 0;
    std::uint64_t replica_records = 0;
    std::uint64_t master_bytes = 0;
    std::uint64_t replica_bytes = 0;
};

/// One partition of one namespace.
struct partition_stats {
    std::uint32_t id = 0;
    /// The node serving it now; -1 when unavailable.
    int master = -1;
    counters ops;
    std::uint64_t records = 0;
    /// Stored bytes of its records (one copy).
    std::uint64_t bytes = 0;
};

/// Reads and writes of one record.
struct key_heat {
    kv::digest digest{};
    std::string set;
    /// The user key if it was stored (send_key).
    std::optional<value> user_key;
    std::uint32_t partition = 0;
    std::uint64_t reads = 0;
    std::uint64_t writes = 0;
    bool live = true;
};

/// One namespace.
struct namespace_stats {
    std::string name;
    counters totals;
    std::uint64_t records = 0;
    std::uint64_t bytes = 0;
    std::vector<node_stats> nodes;
    /// All 4096 partitions, by id.
    std::vector<partition_stats> partitions;
    /// Most read + written records first.
    std::vector<key_heat> hot_keys;
    /// Partition ids with the most ops first.
    std::vector<std::uint32_t> hot_partitions;
};

/// A snapshot of a cluster's accounting.
struct stats {
    std::vector<namespace_stats> namespaces;
    std::uint64_t fault_fires = 0;

    const namespace_stats* find(std::string_view ns) const noexcept {
        for (const namespace_stats& n : namespaces)
            if (n.name == ns)
                return &n;
        return nullptr;
    }
};

inline nlohmann::json to_json(const counters& c) {
    return nlohmann::json{
        {"ops", c.ops},
        {"round_trips", c.round_trips},
        {"reads", c.reads},
        {"writes", c.writes},
        {"deletes", c.deletes},
        {"bytes_read", c.bytes_read},
        {"bytes_written", c.bytes_written},
        {"errors", c.errors},
        {"not_found", c.not_found},
        {"timeouts", c.timeouts},
        {"in_doubt", c.in_doubt},
        {"unavailable", c.unavailable},
        {"key_busy", c.key_busy},
        {"latency_us", c.latency_us},
        {"max_latency_us", c.max_latency_us},
        {"largest_record", c.largest_record},
    };
}

inline nlohmann::json to_json(const partition_stats& p) {
    nlohmann::json j = to_json(p.ops);
    j["partition"] = p.id;
    j["master"] = p.master;
    j["records"] = p.records;
    j["bytes"] = p.bytes;
    return j;
}

/// The snapshot as JSON: per namespace its totals, nodes, hot keys and hot
/// partitions; with all_partitions, every partition that saw an op or holds
/// a record as well.
inline nlohmann::json to_json(const stats& s, bool all_partitions = false) {
    using nlohmann::json;
    json out = json::object();
    out["fault_fires"] = s.fault_fires;
    json nss = json::array();
    for (const namespace_stats& n : s.namespaces) {
        json j;
        j["name"] = n.name;
        j["totals"] = to_json(n.totals);
        j["records"] = n.records;
        j["bytes"] = n.bytes;
        json nodes = json::array();
        for (const node_stats& nd : n.nodes) {
            json x = to_json(nd.ops);
            x["node"] = nd.node;
            x["alive"] = nd.alive;
            x["master_partitions"] = nd.master_partitions;
            x["replica_partitions"] = nd.replica_partitions;
            x["master_records"] = nd.master_records;
            x["replica_records"] = nd.replica_records;
            x["master_bytes"] = nd.master_bytes;
            x["replica_bytes"] = nd.replica_bytes;
            nodes.push_back(std::move(x));
        }
        j["nodes"] = std::move(nodes);
        json keys = json::array();
        for (const key_heat& k : n.hot_keys) {
            keys.push_back(json{{"digest", kv::to_hex(k.digest)},
                                {"set", k.set},
                                {"key", k.user_key ? kvmodel::to_json(*k.user_key) : json(nullptr)},
                                {"partition", k.partition},
                                {"reads", k.reads},
                                {"writes", k.writes},
                                {"live", k.live}});
        }
        j["hot_keys"] = std::move(keys);
        json hot = json::array();
        for (std::uint32_t id : n.hot_partitions)
            if (id < n.partitions.size())
                hot.push_back(to_json(n.partitions[id]));
        j["hot_partitions"] = std::move(hot);
        if (all_partitions) {
            json parts = json::array();
            for (const partition_stats& p : n.partitions)
                if (p.ops.ops != 0 || p.records != 0)
                    parts.push_back(to_json(p));
            j["partitions"] = std::move(parts);
        }
        nss.push_back(std::move(j));
    }
    out["namespaces"] = std::move(nss);
    return out;
}

} // namespace kvmodel::sim
