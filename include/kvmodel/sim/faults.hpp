// kvmodel/sim/faults.hpp
//
// Scriptable, seeded faults for the simulated cluster:
//
//   node_down(n) / node_up(n)  the node leaves / rejoins; partitions fail over
//                              to a replica (UNAVAILABLE when none holds the data)
//   timeout()                  the request is lost: nothing applied, TIMEOUT
//   in_doubt()                 a write is applied but its answer is lost:
//                              TIMEOUT with in_doubt (reads are not affected)
//   fail_with(s)               the server answers status s (DEVICE_OVERLOAD,
//                              KEY_BUSY, SERVER_MEM_ERROR, QUOTA_EXCEEDED,
//                              any code): nothing applied; the client
//                              retries it if kv::is_transient (but KEY_BUSY,
//                              as the C client)
//   latency(d)                 the attempt takes d longer; past the policy's
//                              socket or total timeout it times out, and a
//                              write is then applied but in doubt
//   node_crash(n, refused_for) the node dies under a write, as a SIGKILLed
//                              node does on a real cluster: that write is
//                              applied (and replicated) but its connection
//                              drops before the answer (CONNECTION, in
//                              doubt); then every attempt the client still
//                              routes to the node is refused (CONNECTION,
//                              nothing sent, not in doubt) until the clock
//                              has moved refused_for past the crash (the
//                              heartbeat timeout plus the client's tend,
//                              ~2 s on a real cluster), when the node goes
//                              down and its partitions fail over. n = -1:
//                              whichever node serves the first write that
//                              meets the conditions. With a manual clock
//                              the refusals last until something moves it
//                              (a pattern's backoff, sim::retry_on).
//
// Each fault fires when all its conditions hold for a command: more than
// `after_ops` commands have been counted since it was added (after(N)), the
// clock reads at least `at_ms` (at(T)), and a seeded draw passes
// `probability` (with_probability(p)); it fires at most `max_fires` times
// (times(n); forever() = no limit; one by default). Timeout, in-doubt and
// latency and fail_with faults can be narrowed to reads or writes, a namespace, one record
// or the node serving the command. They apply to single-record commands and
// to each key of a batch read; scans and queries only meet unavailable
// partitions.
//
// Determinism: a draw is a hash of (cluster seed, fault id, command number,
// attempt), so a single-threaded run replays exactly; with several threads
// the commands' numbering follows their interleaving. Commands are counted
// only while a fault is installed, so an idle injector costs one relaxed
// atomic load per command; with faults installed each command takes a shared
// lock on the fault list and one atomic increment.
//
// Where this departs from Aerospike: failover and re-replication are
// instant (no migration window), and a node that comes back takes its
// partitions back at once. A crashed node's refusals hit every command the
// client routes to it; a real client also learns of the death from a peer's
// tend a little earlier or later.
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/kv/digest.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/sim/clock.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::sim {

/// What a fault does when it fires (see the file comment for each kind).
enum class fault_kind : std::uint8_t {
    node_down,
    node_up,
    timeout,
    in_doubt,
    latency,
    node_crash,
    fail_with
};

/// Which commands a timeout / in-doubt / latency fault hits.
enum class op_scope : std::uint8_t { any, reads, writes };

/// One scripted fault. Build with the factories and chain the conditions:
/// `sim::fault::node_down(1).after(100)`,
/// `sim::fault::timeout().with_probability(0.01).forever().only(sim::op_scope::reads)`.
struct fault {
    /// What the fault does (set by the factory that built it).
    fault_kind kind = fault_kind::timeout;
    /// Fires only after this many commands, counted from when it was added.
    std::uint64_t after_ops = 0;
    /// Fires only once the clock reads at least this.
    std::optional<time_ms> at_ms;
    /// Then fires with this probability per eligible command (per attempt).
    double probability = 1.0;
    /// Fires at most this many times; 0 = no limit.
    std::uint64_t max_fires = 1;
    /// Timeout / in-doubt / latency: which commands it hits (reads, writes
    /// or any; in_doubt() and node_crash() default to writes).
    op_scope scope = op_scope::any;
    /// Only commands on this namespace (empty = any).
    std::string ns;
    /// Only commands on this record.
    std::optional<kv::digest> digest;
    /// node_down / node_up: the node. Other kinds: only commands served by
    /// this node (-1 = any).
    int node = -1;
    /// latency: added to each attempt it hits.
    std::chrono::microseconds added_latency{0};
    /// node_crash: how long (on the cluster's clock) attempts routed to the
    /// crashed node are refused before it is taken down.
    std::chrono::milliseconds refused_for{0};
    /// fail_with: the status the server answers.
    status answer = status::ok;

    /// Node `n` leaves the cluster when the fault fires; its partitions fail
    /// over to a replica (commands on data no node holds get UNAVAILABLE).
    /// O(1); cluster::add_fault refuses a node that does not exist
    /// (PARAMETER_ERROR).
    static fault node_down(int n) { return make(fault_kind::node_down, n); }
    /// Node `n` rejoins the cluster and takes its partitions back at once.
    static fault node_up(int n) { return make(fault_kind::node_up, n); }
    /// The request is lost: nothing is applied and the command gets TIMEOUT
    /// (not in doubt).
    static fault timeout() { return make(fault_kind::timeout, -1); }
    /// A write is applied but its answer is lost: TIMEOUT with in_doubt set.
    /// Scoped to writes (reads are not affected).
    static fault in_doubt() {
        fault f = make(fault_kind::in_doubt, -1);
        f.scope = op_scope::writes;
        return f;
    }
    /// Each attempt it hits takes `d` longer; past the policy's socket or total
    /// timeout the attempt times out, and a write is then applied but in doubt.
    static fault latency(std::chrono::microseconds d) {
        fault f = make(fault_kind::latency, -1);
        f.added_latency = d;
        return f;
    }
    /// The node dies under a write: that write is applied (and replicated) and
    /// gets CONNECTION in doubt; attempts routed to the node are then refused
    /// (CONNECTION, nothing sent) until the clock has moved `refused_for` past
    /// the crash, when the node goes down. `n = -1`: whichever node serves the
    /// first write that meets the conditions. Scoped to writes; add_fault
    /// refuses a node that does not exist (PARAMETER_ERROR).
    static fault node_crash(int n = -1, std::chrono::milliseconds refused_for = std::chrono::milliseconds(2000)) {
        fault f = make(fault_kind::node_crash, n);
        f.scope = op_scope::writes;
        f.refused_for = refused_for;
        return f;
    }

    /// The server answers `s` instead of serving the command: nothing is
    /// applied, the attempt counts as sent (not in doubt). DEVICE_OVERLOAD
    /// (a write the node's storage can't take now), KEY_BUSY, SERVER_MEM_ERROR
    /// (stop-writes), QUOTA_EXCEEDED, ...: any code a command can meet.
    /// Narrow it with only(op_scope::writes) for a write-only status.
    /// cluster::add_fault refuses status::ok (PARAMETER_ERROR).
    static fault fail_with(status s) {
        fault f = make(fault_kind::fail_with, -1);
        f.answer = s;
        return f;
    }

    /// A copy that fires only after `n` commands, counted from when it is added.
    fault after(std::uint64_t n) const {
        fault f = *this;
        f.after_ops = n;
        return f;
    }
    /// A copy that fires only once the cluster's clock reads at least `t`.
    fault at(time_ms t) const {
        fault f = *this;
        f.at_ms = t;
        return f;
    }
    /// A copy that fires with probability `p` per eligible attempt (a seeded,
    /// replayable draw); add_fault refuses `p` outside [0, 1] (PARAMETER_ERROR).
    fault with_probability(double p) const {
        fault f = *this;
        f.probability = p;
        return f;
    }
    /// A copy that fires at most `n` times (0 = no limit).
    fault times(std::uint64_t n) const {
        fault f = *this;
        f.max_fires = n;
        return f;
    }
    /// A copy that fires without limit: `times(0)`.
    fault forever() const { return times(0); }
    /// A copy that hits only reads, only writes or any command.
    fault only(op_scope s) const {
        fault f = *this;
        f.scope = s;
        return f;
    }
    /// A copy that hits only commands on namespace `name`.
    fault in_namespace(std::string name) const {
        fault f = *this;
        f.ns = std::move(name);
        return f;
    }
    /// A copy that hits only commands on the record of `k` (its digest); sets
    /// the namespace to `k`'s unless one was already set. Hashes the key once.
    fault for_key(const kv::key& k) const {
        fault f = *this;
        f.digest = k.digest();
        if (f.ns.empty())
            f.ns = k.ns();
        return f;
    }
    /// A copy that hits only commands served by node `n` (-1 = any).
    fault on_node(int n) const {
        fault f = *this;
        f.node = n;
        return f;
    }

private:
    static fault make(fault_kind k, int n) {
        fault f;
        f.kind = k;
        f.node = n;
        return f;
    }
};

/// What the faults decided for one attempt.
struct fault_effects {
    /// The request is lost before the server: nothing is applied.
    bool timeout = false;
    /// The server applies a write but the answer is lost.
    bool in_doubt = false;
    /// Extra time the attempt takes.
    std::chrono::microseconds latency{0};
    /// The node died under this write: it is applied, the connection drops
    /// before the answer (CONNECTION, in doubt).
    bool crashed = false;
    /// The node is dead but still in the client's map: refused, nothing sent.
    bool refused = false;
    /// The server answers this status (ok: it serves the command).
    status answer = status::ok;
};

namespace detail {

inline std::uint64_t splitmix64(std::uint64_t x) noexcept {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31U);
}

/// The attempt a fault is evaluated for.
struct attempt_info {
    std::uint64_t command = 0; ///< command number (fault_injector::begin_command)
    std::uint32_t attempt = 0;
    time_ms now = 0;
    const std::string* ns = nullptr;
    const kv::digest* digest = nullptr;
    bool is_write = false;
    int node = -1; ///< serving node, -1 before routing
};

/// The installed faults of one cluster. Thread-safe.
class fault_injector {
public:
    explicit fault_injector(std::uint64_t seed)
        : m_seed(seed) {}
    fault_injector(const fault_injector&) = delete;
    fault_injector& operator=(const fault_injector&) = delete;
    ~fault_injector() { free_all(); }

    /// Installs a fault; returns its id.
    KVMODEL_DECL std::size_t add(fault f);
    /// Removes every fault (commands stop being counted).
    KVMODEL_DECL void clear();
    /// How often the fault with this id fired (0 for an unknown id).
    KVMODEL_DECL std::uint64_t fires(std::size_t id) const;
    /// Total fires of all installed faults.
    KVMODEL_DECL std::uint64_t total_fires() const;
    bool armed() const noexcept { return m_armed.load(std::memory_order_relaxed); }

    /// Numbers a command (1, 2, ...); 0 when no fault is installed.
    std::uint64_t begin_command() noexcept {
        if (!armed())
            return 0;
        return m_commands.fetch_add(1, std::memory_order_relaxed) + 1;
    }

    /// The node faults due for this attempt, in installation order, two
    /// ints each: the node, then 1 to bring it up or 0 to take it down; each
    /// one counted as fired. (Flat ints, not pairs: vector<int> is
    /// instantiated anyway, a vector<pair<int, bool>> only for this.)
    KVMODEL_DECL std::vector<int> topology_changes(const attempt_info& a);

    /// The timeout / in-doubt / latency faults due for this attempt.
    KVMODEL_DECL fault_effects effects(const attempt_info& a);

private:
    // One installed fault, in a singly linked list in installation order
    // (added and freed under the exclusive lock, read under the shared one):
    // never moved, and no vector<state> members to instantiate.
    struct state {
        fault f;
        std::uint64_t start = 0;
        std::size_t id = 0;
        std::atomic<std::uint64_t> fires{0};
        // node_crash: the node it killed (-1: not yet), until when the client
        // is refused, and whether the node has been taken down since.
        std::atomic<int> crashed_node{-1};
        std::atomic<time_ms> refused_until{0};
        std::atomic<bool> taken_down{false};
        state* next = nullptr;
    };

    // Frees every fault (under the exclusive lock, or in the destructor).
    void free_all() noexcept {
        while (m_first != nullptr) {
            state* const s = m_first;
            m_first = s->next;
            delete s; // NOLINT(*-owning-memory)
        }
        m_last = nullptr;
    }

    // Whether s fires for a (and counts the fire). Conditions first, the
    // draw next, the fire budget last, so a fault's budget is spent only by
    // commands it really hits.
    KVMODEL_DECL bool due(state& s, const attempt_info& a) const noexcept;

    std::uint64_t m_seed;
    mutable std::shared_mutex m_mu;
    state* m_first = nullptr; // owned, with the rest of the list
    state* m_last = nullptr;
    std::size_t m_next_id = 0;
    std::atomic<bool> m_armed{false};
    std::atomic<std::uint64_t> m_commands{0};
};

} // namespace detail
} // namespace kvmodel::sim

// The injector's members are compiled where the cluster's are: in each user's
// translation unit when header-only, once in the library with kvmodel::compiled.
#if KVMODEL_DEFINITIONS
namespace kvmodel::sim::detail {

KVMODEL_DECL std::size_t fault_injector::add(fault f) {
    std::lock_guard lock(m_mu); // exclusive; no unique_lock members to emit
    state* const added = new state(); // NOLINT(*-owning-memory): free_all
    (m_last == nullptr ? m_first : m_last->next) = added;
    m_last = added;
    state& s = *added;
    s.f = std::move(f);
    s.start = m_commands.load(std::memory_order_relaxed);
    s.id = m_next_id++;
    m_armed.store(true, std::memory_order_release);
    return s.id;
}

KVMODEL_DECL void fault_injector::clear() {
    std::lock_guard lock(m_mu); // exclusive; no unique_lock members to emit
    free_all();
    m_armed.store(false, std::memory_order_release);
}

KVMODEL_DECL std::uint64_t fault_injector::fires(std::size_t id) const {
    std::shared_lock lock(m_mu);
    for (const state* s = m_first; s != nullptr; s = s->next)
        if (s->id == id)
            return s->fires.load(std::memory_order_relaxed);
    return 0;
}

KVMODEL_DECL std::uint64_t fault_injector::total_fires() const {
    std::shared_lock lock(m_mu);
    std::uint64_t n = 0;
    for (const state* s = m_first; s != nullptr; s = s->next)
        n += s->fires.load(std::memory_order_relaxed);
    return n;
}

KVMODEL_DECL std::vector<int> fault_injector::topology_changes(const attempt_info& a) {
    std::vector<int> out;
    if (a.command == 0)
        return out;
    std::shared_lock lock(m_mu);
    for (state* next = m_first; next != nullptr; next = next->next) {
        state& s = *next;
        const fault& f = s.f;
        if (f.kind == fault_kind::node_crash) {
            const int dead = s.crashed_node.load(std::memory_order_acquire);
            if (dead >= 0 && a.now >= s.refused_until.load(std::memory_order_relaxed) &&
                !s.taken_down.exchange(true, std::memory_order_relaxed)) {
                const int down = 0; // lvalues: one push_back overload for all
                out.push_back(dead);
                out.push_back(down);
            }
            continue;
        }
        if (f.kind != fault_kind::node_down && f.kind != fault_kind::node_up)
            continue;
        if (!due(s, a))
            continue;
        const int up = f.kind == fault_kind::node_up ? 1 : 0;
        out.push_back(f.node);
        out.push_back(up);
    }
    return out;
}

KVMODEL_DECL fault_effects fault_injector::effects(const attempt_info& a) {
    fault_effects e;
    if (a.command == 0)
        return e;
    std::shared_lock lock(m_mu);
    for (state* next = m_first; next != nullptr; next = next->next) {
        state& s = *next;
        const fault& f = s.f;
        if (f.kind == fault_kind::node_down || f.kind == fault_kind::node_up)
            continue;
        if (f.kind == fault_kind::node_crash) {
            const int dead = s.crashed_node.load(std::memory_order_acquire);
            if (dead >= 0) {
                // Reads and writes alike meet the dead node's closed port.
                if (dead == a.node && !s.taken_down.load(std::memory_order_relaxed) &&
                    a.now < s.refused_until.load(std::memory_order_relaxed))
                    e.refused = true;
                continue;
            }
        }
        if (f.scope == op_scope::reads && a.is_write)
            continue;
        if (f.scope == op_scope::writes && !a.is_write)
            continue;
        if (f.kind == fault_kind::in_doubt && !a.is_write)
            continue;
        if (f.node >= 0 && f.node != a.node)
            continue;
        if (f.digest && (a.digest == nullptr || *f.digest != *a.digest))
            continue;
        if (!due(s, a))
            continue;
        switch (f.kind) {
        case fault_kind::timeout:
            e.timeout = true;
            break;
        case fault_kind::in_doubt:
            e.in_doubt = true;
            break;
        case fault_kind::latency:
            e.latency += f.added_latency;
            break;
        case fault_kind::fail_with:
            e.answer = f.answer;
            break;
        case fault_kind::node_crash:
            // The first write that meets the conditions takes its node
            // down with it (due() lets exactly one fire).
            if (a.node >= 0) {
                s.refused_until.store(a.now + f.refused_for.count(), std::memory_order_relaxed);
                s.crashed_node.store(a.node, std::memory_order_release);
                e.crashed = true;
            }
            break;
        default:
            break;
        }
    }
    return e;
}

KVMODEL_DECL bool fault_injector::due(state& s, const attempt_info& a) const noexcept {
    const fault& f = s.f;
    if (!f.ns.empty() && (a.ns == nullptr || *a.ns != f.ns))
        return false;
    if (a.command <= s.start + f.after_ops)
        return false;
    if (f.at_ms && a.now < *f.at_ms)
        return false;
    if (f.probability < 1.0) {
        if (f.probability <= 0.0)
            return false;
        std::uint64_t h = splitmix64(m_seed ^ splitmix64(s.id * 0x100000001b3ULL + a.command) ^
                                     (std::uint64_t{a.attempt} << 48U));
        double u = static_cast<double>(h >> 11U) * 0x1.0p-53;
        if (u >= f.probability)
            return false;
    }
    if (f.max_fires == 0) {
        s.fires.fetch_add(1, std::memory_order_relaxed);
        return true;
    }
    std::uint64_t n = s.fires.load(std::memory_order_relaxed);
    while (n < f.max_fires) {
        if (s.fires.compare_exchange_weak(n, n + 1, std::memory_order_relaxed))
            return true;
    }
    return false;
}

} // namespace kvmodel::sim::detail
#endif // KVMODEL_DEFINITIONS
