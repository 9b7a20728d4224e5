// kvmodel/sim/detail/pending_writes.hpp
//
// Hot-key modelling: Aerospike's namespace setting transaction-pending-limit
// (default 20; 0 disables the check). The server serves one write per record
// at a time and queues the others behind it; a write that arrives while the
// record's wait queue is deeper than the limit fails KEY_BUSY (14) and is not
// applied (as/src/transaction/rw_request_hash.c: `wait_queue_depth > limit`,
// so one write in progress plus limit + 1 waiting are admitted).
//
// Here a record's pending writes are their completion times in simulated
// time: a write arriving at `now` starts when the one before it completes
// (FIFO) and occupies the record for its service time, which the cluster
// takes from its latency model (base latency plus injected latency). So the
// limit bites exactly when writes to one key arrive faster than that service
// time, and never when the modelled service time is zero.
//
// Not thread-safe: one instance per partition, used under the partition's
// lock. Memory: one entry per record with writes still pending at the last
// arrival, swept every 1024 admissions. Cost: a binary search among the
// partition's tracked records (few: a partition is 1/4096 of the keys) per
// admission, plus a shift of the rows behind a record when it starts or
// stops being tracked or its queue grows. A sorted vector of int64 rows
// {digest words, completion time} rather than a hash map of deques or a
// vector of {digest, vector of times} (compile time: each container type and
// member used is compiled into every user's translation unit; vector<int64_t>
// with these members is compiled there anyway, a vector of queues measured
// ~57 more functions per header-only file).
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/kv/digest.hpp>
#include <kvmodel/sim/namespace_config.hpp> // detail::default_transaction_pending_limit

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace kvmodel::sim::detail {

class pending_writes {
public:
    /// Admits a write to record d arriving at now_us (simulated microseconds)
    /// that will keep the record busy for service_us; false = KEY_BUSY (the
    /// write is refused and leaves no trace). limit 0 disables the check.
    /// Complexity: O(log n + q) for n pending writes, q of them on record d;
    /// O(n) when the record starts or stops being tracked or its queue grows.
    bool admit(const kv::digest& d, std::int64_t now_us, std::int64_t service_us,
               std::uint32_t limit) {
        if (limit == 0) return true;
        if (++m_since_sweep >= sweep_every) sweep(now_us);
        const key k = key_of(d);
        const std::size_t lo = find(k);
        std::size_t hi = lo;
        while (hi < rows() && same(hi, k)) ++hi;
        if (lo == hi) {
            // Nothing pending: served at once; tracked only if it takes time.
            if (service_us > 0) {
                insert_row(lo, k, now_us + service_us);
                ++m_records;
            }
            return true;
        }
        // The record's completion times are rows lo..hi, oldest first (FIFO:
        // never decreasing). Drop the completed ones: the pending rows move
        // to the front, leaving `hi - end` free rows behind them.
        std::size_t done = 0;
        while (lo + done < hi && time(lo + done) <= now_us) ++done;
        for (std::size_t i = lo + done; i < hi; ++i) time(i - done) = time(i);
        std::size_t end = hi - done;
        // One write in progress, end - lo - 1 waiting: refuse when the wait
        // queue is already deeper than the limit.
        const bool admitted = end - lo < static_cast<std::size_t>(limit) + 2;
        if (admitted) {
            const std::int64_t start = end == lo ? now_us : time(end - 1);
            const std::int64_t finish = start + (service_us > 0 ? service_us : 0);
            if (finish > now_us) {
                if (end == hi) {
                    insert_row(hi, k, finish);
                    ++hi;
                } else {
                    time(end) = finish; // a free row: its digest words are d's
                }
                ++end;
            }
        }
        remove_rows(end, hi - end);
        if (end == lo) --m_records;
        return admitted;
    }

    /// Writes pending on record d at now_us (in progress plus waiting).
    std::size_t pending(const kv::digest& d, std::int64_t now_us) const {
        const key k = key_of(d);
        std::size_t n = 0;
        for (std::size_t i = find(k); i < rows() && same(i, k); ++i)
            if (m_rows[i * stride + 3] > now_us) ++n;
        return n;
    }

    /// Records with writes pending at the last sweep or arrival.
    KVMODEL_FORCE_INLINE std::size_t tracked() const noexcept { return m_records; }

    void clear() noexcept {
        while (!m_rows.empty()) m_rows.pop_back();
        m_records = 0;
        m_since_sweep = 0;
    }

private:
    static constexpr std::uint32_t sweep_every = 1024;
    // A row: the digest as three words (bytes 0-7, 8-15, 16-19), then one
    // completion time. Rows are sorted by digest words (an order of their
    // own: only find() relies on it); a record's rows are adjacent, in
    // arrival order.
    static constexpr std::size_t stride = 4;
    struct key {
        std::int64_t w[3];
    };

    // Members of m_rows used: size, [], push_back(&&), pop_back, empty
    // (compile time, see the top of the file); moves by index. The small
    // accessors are forced inline at -O0: five fewer functions per file.

    KVMODEL_FORCE_INLINE static key key_of(const kv::digest& d) noexcept {
        std::uint64_t u[3] = {0, 0, 0};
        std::memcpy(&u[0], d.data(), 8);
        std::memcpy(&u[1], d.data() + 8, 8);
        std::memcpy(&u[2], d.data() + 16, 4);
        return key{{static_cast<std::int64_t>(u[0]), static_cast<std::int64_t>(u[1]),
                    static_cast<std::int64_t>(u[2])}};
    }
    KVMODEL_FORCE_INLINE std::size_t rows() const noexcept { return m_rows.size() / stride; }
    KVMODEL_FORCE_INLINE std::int64_t& time(std::size_t row) noexcept {
        return m_rows[row * stride + 3];
    }
    KVMODEL_FORCE_INLINE bool same(std::size_t row, const key& k) const noexcept {
        const std::int64_t* r = &m_rows[row * stride];
        return r[0] == k.w[0] && r[1] == k.w[1] && r[2] == k.w[2];
    }
    // Whether row's digest words are below k's.
    KVMODEL_FORCE_INLINE bool below(std::size_t row, const key& k) const noexcept {
        const std::int64_t* r = &m_rows[row * stride];
        if (r[0] != k.w[0]) return r[0] < k.w[0];
        if (r[1] != k.w[1]) return r[1] < k.w[1];
        return r[2] < k.w[2];
    }

    // The first row whose digest words are not below k's.
    std::size_t find(const key& k) const noexcept {
        std::size_t lo = 0;
        std::size_t hi = rows();
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (below(mid, k))
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }

    // Inserts row {k, t} before row `at`.
    void insert_row(std::size_t at, const key& k, std::int64_t t) {
        for (std::size_t i = 0; i < stride; ++i)
            m_rows.push_back(std::int64_t{0}); // what may throw comes first
        for (std::size_t j = m_rows.size() - 1; j >= (at + 1) * stride; --j)
            m_rows[j] = m_rows[j - stride];
        std::int64_t* r = &m_rows[at * stride];
        r[0] = k.w[0];
        r[1] = k.w[1];
        r[2] = k.w[2];
        r[3] = t;
    }

    // Removes n rows from row `at` on.
    void remove_rows(std::size_t at, std::size_t n) noexcept {
        if (n == 0) return;
        for (std::size_t j = (at + n) * stride; j < m_rows.size(); ++j)
            m_rows[j - n * stride] = m_rows[j];
        for (std::size_t i = 0; i < n * stride; ++i) m_rows.pop_back();
    }

    // Forgets every record whose writes all completed by now_us.
    void sweep(std::int64_t now_us) {
        m_since_sweep = 0;
        std::size_t kept = 0; // rows
        std::size_t i = 0;
        while (i < rows()) {
            const std::int64_t* r = &m_rows[i * stride];
            const key k{{r[0], r[1], r[2]}};
            std::size_t j = i + 1;
            while (j < rows() && same(j, k)) ++j;
            if (time(j - 1) > now_us) {
                if (kept != i)
                    for (std::size_t x = i * stride; x < j * stride; ++x)
                        m_rows[x - (i - kept) * stride] = m_rows[x];
                kept += j - i;
            } else {
                --m_records;
            }
            i = j;
        }
        while (m_rows.size() > kept * stride) m_rows.pop_back();
    }

    std::vector<std::int64_t> m_rows; // stride words a row, by digest words
    std::size_t m_records = 0;         // distinct digests among the rows
    std::uint32_t m_since_sweep = 0;
};

} // namespace kvmodel::sim::detail
