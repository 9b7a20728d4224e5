// kvmodel/sim/namespace_config.hpp
//
// sim::namespace_config: one simulated namespace's settings, with
// Aerospike 8.x's names and defaults (departures are marked), and the
// server's capacity constants the simulator charges with.
#pragma once

#include <kvmodel/kv/record_size.hpp>
#include <kvmodel/sim/detail/pending_writes.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace kvmodel::sim {

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
    // 64 B per record per copy (sizeof(as_index)); a secondary index 14 B
    // per entry per copy (sindex_entry_bytes).

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
    /// allow-ttl-without-nsup. The SERVER's default is false: with
    /// nsup-period 0 a write that sets a TTL (its own, or a non-zero
    /// default-ttl) fails FAIL_FORBIDDEN (22), and a non-zero default-ttl is
    /// a configuration error. The simulator's default is TRUE, a departure:
    /// records with a TTL are then kept and read as missing once expired,
    /// as before this setting existed (and as such a server does); set it
    /// false for the server's default behaviour.
    bool allow_ttl_without_nsup = true;
};

/// Bytes a secondary-index entry costs: 8 (the bin value or its hash) + 6
/// (the primary-index reference), as Aerospike's capacity-planning guide
/// states (6.0 and later); its B-tree's sparseness (1.5x on average, 2x at
/// worst) is not added.
inline constexpr std::uint64_t sindex_entry_bytes = 14;
/// Bytes of primary index per record per copy (sizeof(as_index)).
inline constexpr std::uint64_t primary_index_bytes = 64;
/// How often the server re-evaluates stop-writes (EVAL_STOP_WRITES_PERIOD,
/// seconds): the simulator does it when its clock passes each multiple.
inline constexpr std::int64_t stop_writes_eval_period_s = 10;

} // namespace kvmodel::sim
