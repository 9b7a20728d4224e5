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
// admission, plus a shift of them when a record starts being tracked. A
// sorted vector of {digest, times} rather than a hash map of deques, and
// few of its members (compile time: each is compiled into every user's
// translation unit).
#pragma once

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
    /// Complexity: O(log n) for n tracked records, O(n) to track a new one.
    bool admit(const kv::digest& d, std::int64_t now_us, std::int64_t service_us,
               std::uint32_t limit) {
        if (limit == 0) return true;
        if (++m_since_sweep >= sweep_every) sweep(now_us);
        const std::size_t at = find(d);
        if (at == m_queues.size() || m_queues[at].d != d) {
            // Nothing pending: served at once; tracked only if it takes time.
            if (service_us > 0)
                track(at, d, now_us + service_us);
            return true;
        }
        // The completion times, oldest first (FIFO: never decreasing).
        std::vector<std::int64_t>& q = m_queues[at].times;
        std::size_t done = 0;
        while (done < q.size() && q[done] <= now_us) ++done;
        if (done != 0) { // drop the completed ones (by index: no erase chain)
            for (std::size_t i = done; i < q.size(); ++i) q[i - done] = q[i];
            for (std::size_t i = 0; i < done; ++i) q.pop_back();
        }
        // One write in progress, q.size() - 1 waiting: refuse when the wait
        // queue is already deeper than the limit.
        if (q.size() >= static_cast<std::size_t>(limit) + 2) return false;
        const std::int64_t start = q.empty() ? now_us : q.back();
        const std::int64_t finish = start + (service_us > 0 ? service_us : 0);
        // By rvalue: the push_back other files compile too.
        if (finish > now_us) q.push_back(std::int64_t{finish});
        if (q.empty()) untrack(at);
        return true;
    }

    /// Writes pending on record d at now_us (in progress plus waiting).
    std::size_t pending(const kv::digest& d, std::int64_t now_us) const {
        const std::size_t at = find(d);
        if (at == m_queues.size() || m_queues[at].d != d) return 0;
        std::size_t n = 0;
        for (std::int64_t t : m_queues[at].times) n += t > now_us ? 1 : 0;
        return n;
    }

    /// Records with writes pending at the last sweep or arrival.
    std::size_t tracked() const noexcept { return m_queues.size(); }

    void clear() noexcept {
        m_queues.clear();
        m_since_sweep = 0;
    }

private:
    static constexpr std::uint32_t sweep_every = 1024;

    struct queue {
        kv::digest d{};
        std::vector<std::int64_t> times;
    };

    // The vector's members below are few on purpose (push_back, pop_back,
    // operator[]; moves by index, a hand-written binary search and sweep):
    // each further member or algorithm compiles its own chain into every
    // header-only file (compile time).

    // The index of the first queue whose digest is not below d.
    std::size_t find(const kv::digest& d) const noexcept {
        std::size_t lo = 0;
        std::size_t hi = m_queues.size();
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (std::memcmp(m_queues[mid].d.data(), d.data(), d.size()) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }

    // Starts tracking record d (not tracked; `at` = find(d)) with one write
    // completing at finish_us.
    void track(std::size_t at, const kv::digest& d, std::int64_t finish_us) {
        queue q{d, {}};
        q.times.push_back(std::int64_t{finish_us}); // by rvalue, as in admit()
        m_queues.push_back(queue{}); // what may throw comes first: nothing changed yet
        for (std::size_t j = m_queues.size() - 1; j > at; --j)
            m_queues[j] = std::move(m_queues[j - 1]);
        m_queues[at] = std::move(q);
    }

    // Stops tracking the record at index at.
    void untrack(std::size_t at) noexcept {
        for (std::size_t j = at; j + 1 < m_queues.size(); ++j)
            m_queues[j] = std::move(m_queues[j + 1]);
        m_queues.pop_back();
    }

    void sweep(std::int64_t now_us) {
        m_since_sweep = 0;
        std::size_t kept = 0;
        for (std::size_t i = 0; i < m_queues.size(); ++i) {
            const std::vector<std::int64_t>& t = m_queues[i].times;
            if (t.empty() || t.back() <= now_us)
                continue;
            if (kept != i)
                m_queues[kept] = std::move(m_queues[i]);
            ++kept;
        }
        while (m_queues.size() > kept)
            m_queues.pop_back();
    }

    std::vector<queue> m_queues; // by digest
    std::uint32_t m_since_sweep = 0;
};

} // namespace kvmodel::sim::detail
