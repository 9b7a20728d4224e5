// kvmodel/kv/partition_filter.hpp
//
// Paged scans and queries: which partitions a scan or query covers
// (as_partition_filter: all, one id, a range of ids, or from a digest on in
// its partition) and where a paged one stands (as_partitions_status: per
// partition, done or the digest of the last record returned).
//
// A page walks the cursor's partitions in id order and each partition's
// records in digest order (the server's partition tree order), resuming
// strictly after the last digest returned. So a cursor survives writes
// between pages: a record that existed from the first page to the last is
// returned exactly once, a record created behind the cursor is not, one
// created ahead of it is. The cursor is a plain value: keep it to resume
// later (Aerospike serializes as_partitions_status the same way).
#pragma once

#include <kvmodel/kv/digest.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace kvmodel::kv {

/// The partitions a scan or query covers: [begin, begin + count), and with
/// `after`, in that single partition only the records whose digest follows it.
struct partition_filter {
    std::uint32_t begin = 0;               ///< first partition id
    std::uint32_t count = partition_count; ///< partitions from begin
    std::optional<digest> after;           ///< by digest: start after this one

    /// Every partition (the default).
    static partition_filter all() { return {}; }
    /// Partition `pid` alone (as_partition_filter_set_id).
    static partition_filter id(std::uint32_t pid) { return {pid, 1, std::nullopt}; }
    /// Partitions [begin, begin + count) (as_partition_filter_set_range).
    static partition_filter range(std::uint32_t begin, std::uint32_t count) {
        return {begin, count, std::nullopt};
    }
    /// The records after `d` in d's partition (as_partition_filter_set_digest).
    static partition_filter by_digest(const digest& d) { return {partition_id(d), 1, d}; }

    /// Whether it names partitions that exist (begin + count <= 4096, count >= 1).
    bool valid() const noexcept {
        return count >= 1 && begin < partition_count && count <= partition_count - begin;
    }
};

/// Where a paged scan or query stands: one entry per partition of its filter.
struct partition_cursor {
    /// One partition's progress.
    struct part {
        std::uint32_t id = 0;       ///< the partition
        bool done = false;          ///< every record of it was returned
        std::optional<digest> last; ///< the last digest returned (resume after it)
        /// A query's last index value with `last` (as_partition_status.bval:
        /// the server resumes an index range at it). The Aerospike adapter
        /// keeps it; scans and the simulator leave it 0.
        std::int64_t bval = 0;
    };
    std::vector<part> parts; ///< in partition id order; empty = every partition, not started
    /// The throttle of the scan or query this cursor pages (as_scan's and
    /// as_query's records_per_second): at most this many records a second,
    /// 0 = none. The simulator accounts the time as latency, never sleeps.
    std::uint32_t records_per_second = 0;

    /// A cursor at the start of `f`'s partitions, throttled to
    /// records_per_second (0 = none). An invalid filter gives a cursor naming
    /// partition 4096, which stores refuse (PARAMETER_ERROR).
    static partition_cursor start(const partition_filter& f, std::uint32_t records_per_second = 0) {
        partition_cursor c;
        c.records_per_second = records_per_second;
        if (!f.valid()) {
            c.parts.push_back(part{partition_count, false, std::nullopt});
            return c;
        }
        c.parts.reserve(f.count);
        for (std::uint32_t i = 0; i < f.count; ++i)
            c.parts.push_back(part{f.begin + i, false, f.after});
        return c;
    }
    /// Whether every partition is done (a page returned its last records).
    bool done() const noexcept {
        return !parts.empty() &&
               std::all_of(parts.begin(), parts.end(), [](const part& p) { return p.done; });
    }
};

} // namespace kvmodel::kv
