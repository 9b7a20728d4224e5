// kvmodel/sim/namespace_config.hpp
//
// sim::namespace_config: one simulated namespace's settings, with
// Aerospike 8.x's names and defaults (departures are marked), and the
// server's capacity constants the simulator charges with.
#pragma once

#include <kvmodel/kv/record_size.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace kvmodel::sim {

namespace detail {
/// Aerospike's default transaction-pending-limit (sim/detail/pending_writes.hpp).
inline constexpr std::uint32_t default_transaction_pending_limit = 20;
} // namespace detail

/// One namespace's settings.
struct namespace_config {
    /// The namespace's name (1..31 bytes), unique in the cluster.
    std::string name = "test";
    /// 64 B .. 8 MiB; a write whose record would exceed it fails RECORD_TOO_BIG.
    std::size_t max_record_size = kv::default_max_record_size;
    /// Seconds; 0 = records never expire unless a write sets a TTL.
    std::int64_t default_ttl = 0;
    /// Copies of each partition (capped at the live node count).
    std::uint32_t replication_factor = 2;
    /// Aerospike's transaction-pending-limit: a write to a record whose wait
    /// queue is deeper than this fails KEY_BUSY (0 = no limit). A write keeps
    /// its record busy for its simulated latency (base_latency plus injected
    /// latency), so with no latency configured nothing ever waits
    /// (sim/detail/pending_writes.hpp).
    std::uint32_t transaction_pending_limit = detail::default_transaction_pending_limit;

    // --- capacity (Aerospike 8.x names; per node) ----------------------------
    // Storage is charged as the server charges data_used_bytes: each copy of
    // a record costs its stored size (kv::record_size::stored, whole 16-byte
    // rblocks), on every node that holds the copy; the primary index costs
    // 64 B per record per copy (sizeof(as_index)); a secondary index
    // 4 KiB per node of its B-trees (sindex_tree_nodes).

    /// storage-engine memory's data-size, or the total size of the devices
    /// (files) of storage-engine device: what data_used_pct is taken of, per
    /// node. The server has no default (it refuses a namespace without one);
    /// 4 GiB is the data-size of the aerospike.conf the server ships. Any
    /// non-zero size is accepted (the server's minimum for memory is 512 MiB)
    /// so that a test fills a namespace quickly.
    std::uint64_t data_size = std::uint64_t{4} << 30U;
    /// stop-writes-used-pct (storage-engine context): once a node's data is
    /// at least this % of data_size, writes mastered there fail
    /// SERVER_MEM_ERROR (8, AEROSPIKE_ERR_SERVER_FULL); 0 = off. Default 70.
    std::uint32_t stop_writes_used_pct = 70;
    /// stop-writes-sys-memory-pct: once the memory a node's namespaces use
    /// (data, primary and secondary indexes, every namespace of the node) is
    /// more than this % of cluster_config::node_memory, writes to this
    /// namespace mastered there fail SERVER_MEM_ERROR; 0 = off. Default 90.
    /// Applies only when node_memory is set (the simulator has no host).
    std::uint32_t stop_writes_sys_memory_pct = 90;
    /// evict-used-pct (storage-engine context): nsup evicts when a node's data
    /// is at least this % of data_size; 0 = off (the default).
    std::uint32_t evict_used_pct = 0;
    /// evict-indexes-memory-pct: nsup evicts when a node's indexes (primary +
    /// secondary) are at least this % of indexes_memory_budget; 0 = off.
    std::uint32_t evict_indexes_memory_pct = 0;
    /// evict-tenths-pct: the share of the records with a TTL one eviction
    /// round deletes, in tenths of a percent (nearest void time first, by
    /// histogram bucket). Default 5 (0.5%).
    std::uint32_t evict_tenths_pct = 5;
    /// evict-hist-buckets: the void-time histogram eviction cuts. Default 10000.
    std::uint32_t evict_hist_buckets = 10000;
    /// indexes-memory-budget (bytes): a node whose primary + secondary
    /// indexes exceed it stops writes; 0 = no budget (the default).
    std::uint64_t indexes_memory_budget = 0;
    /// nsup-period (seconds): nsup expires (and evicts) when the cluster's
    /// clock passes each multiple of it; 0 = never (the server's default).
    std::uint32_t nsup_period = 0;
    /// allow-ttl-without-nsup (default false, the server's): with
    /// nsup_period 0 a write that sets a TTL (its own, or a non-zero
    /// default_ttl) fails FAIL_FORBIDDEN (22), and a non-zero default_ttl is
    /// a configuration error. Set nsup_period (the server's default is 0; the
    /// server in a typical deployment runs it every 60 s or so) to write
    /// TTLs, or set this true to keep records with a TTL that no nsup ever
    /// deletes: they read as missing once expired, as such a server's do.
    bool allow_ttl_without_nsup = false;
};

/// A secondary index's memory, as 8.1.2 counts it (sindex-stat used_bytes,
/// as_sindex_tree_mem_size): the nodes of its B-trees times 4 KiB
/// (SI_ARENA_ELE_SZ). Every node of the cluster holds one tree per partition
/// (4096) for every index, whether it holds the partition or not, each at
/// least one node: an index costs 16 MiB per node even when empty. A leaf
/// holds up to 291 entries (14-byte keys), an inner node up to 225 keys; a
/// full node splits in two (145 + 145 keys, one moving up) on the insert
/// that reaches it.
inline constexpr std::uint64_t sindex_node_bytes = 4096;
/// The most entries a B-tree leaf holds (leaf order 292 less one).
inline constexpr std::uint64_t sindex_leaf_keys = 291;

/// The nodes of one partition's B-tree holding `entries` entries, as the
/// simulator charges them: exact while the tree has at most 437 entries
/// (one leaf up to 291, then a root and two leaves until a leaf fills
/// again) and for entries inserted in ascending order (each split leaves
/// 145 keys behind: (entries + 1) / 146 leaves); otherwise the most a tree
/// of that size can have (every non-root leaf holds at least 145 entries,
/// every non-root inner node 113 children), so a plan never
/// under-counts. After deletes the server may keep more nodes than this
/// (it merges only nodes that fall below half full).
constexpr std::uint64_t sindex_tree_nodes(std::uint64_t entries) noexcept {
    if (entries <= sindex_leaf_keys)
        return 1;
    if (entries <= sindex_leaf_keys + 146)
        return 3;
    const std::uint64_t leaves = (entries + 1) / 146;
    std::uint64_t nodes = leaves;
    for (std::uint64_t level = leaves;;) {
        if (level <= 225) // one root above them
            return nodes + 1;
        level /= 113;
        nodes += level;
    }
}
/// Bytes of primary index per record per copy (sizeof(as_index)).
inline constexpr std::uint64_t primary_index_bytes = 64;
/// How often the server re-evaluates stop-writes (EVAL_STOP_WRITES_PERIOD,
/// seconds): the simulator does it when its clock passes each multiple.
inline constexpr std::int64_t stop_writes_eval_period_s = 10;

} // namespace kvmodel::sim
