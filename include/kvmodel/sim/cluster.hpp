// kvmodel/sim/cluster.hpp
//
// sim::cluster: an in-memory Aerospike cluster modelling kv::kv_store (and
// kv::kv_queryable) — the store tests, benchmarks and sizing run on.
//
// What it models:
// * namespaces with max-record-size (default 1 MiB), default TTL (default 0 =
//   never expire) and replication factor (default 2), on N nodes (default 3);
// * 4096 partitions per namespace, each with a seeded, deterministic
//   succession of nodes; its replicas (master first) are the first
//   replication-factor live nodes, recomputed when a node goes down or comes
//   back; requests fail over to a replica, and fail PARTITION_UNAVAILABLE
//   when no live node holds the partition's current data (detail/state.hpp);
// * the server's read and write paths, per record, atomically: a command's
//   operations all apply or none do (detail/record_engine.hpp), with
//   Aerospike's statuses, generation and TTL handling and the stored record
//   size checked against max-record-size; a command that runs out of memory
//   throws std::bad_alloc with the record as it was (for a last CDT op that
//   erases a run across a sorted list's leaves: a prefix of it may be gone);
// * each namespace's capacity (sim/namespace_config.hpp, with 8.x's names):
//   data_used_bytes (each copy's stored size) and index bytes per node
//   against data-size and indexes-memory-budget; stop-writes, evaluated
//   every 10 s of the clock as the server does, refusing writes with
//   SERVER_MEM_ERROR; nsup on the clock every nsup-period (or nsup()):
//   expiry, or eviction nearest void time first past evict-used-pct; TTL
//   writes refused under nsup-period 0 unless allow-ttl-without-nsup (true
//   here by default: see the field);
// * an injectable clock (manual by default: TTL expiry is tested by moving
//   it, never by sleeping) — an expired record reads as missing;
// * the client's retry loop: transient failures (kv::is_transient but
//   KEY_BUSY, as the C client) are retried up to max_retries within
//   total_timeout; a failed write is in_doubt once any attempt was sent and
//   lost its answer (timed out, or its connection dropped) — sticky, also
//   when a later attempt is refused or finds no node, as the C client's sent
//   counter decides it;
// * the client's circuit breaker (cluster_config::max_error_rate): a node
//   with more errors than the limit in one tend interval gets no commands
//   (MAX_ERROR_RATE) until the next; the limit halves after a breached
//   interval and doubles back after a clean one, as the C client's;
// * cost accounting (sim/stats.hpp) and scripted, seeded faults
//   (sim/faults.hpp); a simulated latency per round trip (base_latency plus
//   injected latency) that is accounted, never slept.
//
// Threads: any number of client threads. Each command locks only its
// partition's lock (4096 per namespace); batch reads lock partitions one at
// a time; topology changes lock every partition in turn under a topology
// mutex; nothing takes a global lock on the hot path.
//
// Costs: a command is one lookup in its partition's record table (an open-
// addressing hash table, detail/record_table.hpp) plus the record work:
// get copies the bins (O(1) per list/map bin, strings copied); a write
// changes the record in place under an undo log (detail/record_engine.hpp):
// unchanged bins are not touched, a list/map bin a CDT op mutates is cloned
// once (O(its size), kept for rollback) - but by a command's last op, when
// it cannot take the record past max-record-size: that one changes the bin
// in place (through a context, copying only the nested containers on its
// path) - and the record's new stored size is
// computed from cached per-bin sizes plus the mutated bins. A put of a few
// bins predicts its outcome and writes without a log. Batch reads cost one
// command per key; scans and queries walk every record of the namespace
// (queries need the index to exist but do not use it for lookup). Measured
// in bench/sim_bench.cpp beside a bare digest + hash-map lookup.
//
// Departures from Aerospike: failover and migration are instant; expired
// records are removed lazily (on access, by expire(), nsup() or nsup on the
// clock when nsup-period is set); query results hold
// each matching record once; durable delete in Community only refuses a
// write command that deletes the record (ENTERPRISE_ONLY), as 8.x does.
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/detail/engine_hook.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/batch.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/record_size.hpp>
#include <kvmodel/kv/retry.hpp>
#include <kvmodel/kv/status.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/sim/clock.hpp>
#include <kvmodel/sim/detail/function_ref.hpp>
#include <kvmodel/sim/detail/heap_array.hpp>
#include <kvmodel/sim/faults.hpp>
#include <kvmodel/sim/namespace_config.hpp>
#include <kvmodel/sim/stats.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
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

namespace detail { // sim/detail/state.hpp, sim/detail/record_engine.hpp
struct namespace_state;
struct partition;
struct entry;
class record_table;
struct failure_info;
class txn;
} // namespace detail

/// The cluster's settings.
struct cluster_config {
    /// Nodes at start (>= 1); node ids are 0 .. nodes - 1.
    std::uint32_t nodes = 3;
    /// At least one; names unique.
    std::vector<namespace_config> namespaces{namespace_config{}};
    /// Seeds the partition successions and the fault draws.
    std::uint64_t seed = 1;
    /// The time source; nullptr = a manual_clock at default_start_ms.
    std::shared_ptr<sim::clock> time_source;
    /// Simulated latency of every round trip (accounted, never slept).
    std::chrono::microseconds base_latency{0};
    /// Enterprise edition (durable deletes allowed).
    bool enterprise = false;
    /// Entries in the hot-key and hot-partition lists of stats().
    std::size_t hot_list_size = 10;
    /// The client's circuit breaker (as_config.max_error_rate): more errors
    /// than this (timeouts, dropped and refused connections) on one node in
    /// one tend interval, and commands to it fail MAX_ERROR_RATE unsent until
    /// the interval ends; 0 = off. The C client's default is 100; here it is
    /// off by default, because a manual clock that never moves never ends an
    /// interval.
    std::uint32_t max_error_rate = 0;
    /// The client's tend interval on the cluster's clock (as_config
    /// tender_interval; error_rate_window is one tend).
    std::chrono::milliseconds tend_interval{1000};
    /// The memory of each node's host (bytes) that a namespace's
    /// stop_writes_sys_memory_pct is taken of; 0 = not modelled (the
    /// default). The memory counted is what the simulator charges on the
    /// node, all namespaces summed: data, primary and secondary indexes
    /// (as with storage-engine memory; no process or OS overhead).
    std::uint64_t node_memory = 0;

    /// Sets every namespace's nsup_period (seconds) and returns *this: what
    /// a cluster whose writes set TTLs needs, as a server does (with
    /// nsup-period 0, the default, a TTL write fails FAIL_FORBIDDEN unless
    /// allow_ttl_without_nsup is set). For example
    /// `sim::cluster db(sim::cluster_config{}.with_nsup_period(60));`.
    cluster_config& with_nsup_period(std::uint32_t seconds) & {
        for (namespace_config& n : namespaces)
            n.nsup_period = seconds;
        return *this;
    }
    /// with_nsup_period on a temporary (`cluster_config{}.with_nsup_period(60)`).
    cluster_config&& with_nsup_period(std::uint32_t seconds) && {
        return std::move(with_nsup_period(seconds));
    }
};

/// What happened to one command (operate's optional report).
struct op_report {
    /// The operation whose failure failed the command, if one did.
    std::optional<std::size_t> failed_op;
    /// The node that served the last attempt (-1: none available).
    int node = -1;
    /// Attempts sent: 1 plus the retries of the policy's retry loop.
    std::uint32_t attempts = 0;
    /// Simulated time the command took.
    std::chrono::microseconds latency{0};
    /// A write was applied — also when the command reports a timeout.
    bool applied = false;
    /// How many attempts applied it: 2 when a retry re-applied a write whose
    /// first answer was lost (in doubt).
    std::uint32_t applications = 0;
};

/// An in-memory Aerospike cluster: a kv::kv_store (and kv::kv_queryable) that
/// applies every command as the server would, counts what it would cost
/// (stats()) and fails on demand (add_fault()). Deterministic for a seed;
/// safe to use from any number of threads. Errors are Aerospike's result
/// codes with a message naming the operation and the limit; a failed command
/// leaves the record as it was. Example:
/// \code
/// sim::cluster db;                       // 3 nodes, replication 2, namespace "test"
/// auto k = kv::key::make("test", "users", "alice").value();
/// db.put(k, {kv::bin{"name", "Alice"}}).value();
/// sim::counters cost = db.stats().find("test")->totals;
/// \endcode
class cluster {
public:
    /// A cluster as configured. Invalid settings (no nodes, no namespace, a
    /// duplicate or invalid namespace name, max-record-size outside 64 B ..
    /// 8 MiB, replication factor 0, a negative or over-long default TTL) are
    /// a broken precondition: KVMODEL_ASSERT. validate() reports them as a
    /// status first.
    explicit cluster(cluster_config cfg = {});
    cluster(const cluster&) = delete;
    cluster& operator=(const cluster&) = delete;
    cluster(cluster&&) = delete;
    cluster& operator=(cluster&&) = delete;
    ~cluster();

    /// PARAMETER_ERROR naming the first invalid setting.
    static result<void> validate(const cluster_config& cfg);

    /// The settings the cluster was built with.
    const cluster_config& config() const noexcept { return m_cfg; }
    /// The clock TTLs and time faults read (cluster_config::time_source).
    sim::clock& time_source() const noexcept { return *m_clock; }
    /// p timed by this cluster's clock (sim::retry_on) unless p brings its own
    /// sleep or clock: a pattern's backoff on the simulator moves its manual
    /// clock instead of sleeping (the optional kv_store member kv::retry_timing
    /// looks for).
    kv::retry_policy retry_timing(kv::retry_policy p) const {
        if (p.sleep || p.clock)
            return p;
        return retry_on(*m_clock, std::move(p));
    }
    /// The manual clock, if that is the time source (else nullptr).
    manual_clock* manual_time() const noexcept {
        return dynamic_cast<manual_clock*>(m_clock);
    }

    // --- kv_store --------------------------------------------------------------

    /// All bins of k. KEY_NOT_FOUND when missing or expired.
    /// Complexity: O(bins) after the lookup.
    result<kv::record> get(const kv::key& k, const kv::read_policy& rp = {});

    /// The named bins of k (absent bins are left out): the read path with
    /// one read op per name, so a bad name is BIN_NAME_TOO_LONG.
    result<kv::record>
    get(const kv::key& k, std::span<const std::string> bins, const kv::read_policy& rp = {});

    /// Whether k exists (and has not expired).
    result<bool> exists(const kv::key& k, const kv::read_policy& rp = {});

    /// Applies ops to k's record atomically (see kv/operation.hpp); one
    /// result per op in record.results.
    result<kv::record>
    operate(const kv::key& k, std::span<const kv::operation> ops, const kv::write_policy& wp = {});
    /// operate, also telling which op failed, which node served and whether
    /// a write was applied.
    result<kv::record> operate(const kv::key& k,
                               std::span<const kv::operation> ops,
                               const kv::write_policy& wp,
                               op_report& report);
    /// \overload
    result<kv::record> operate(const kv::key& k,
                               std::initializer_list<kv::operation> ops,
                               const kv::write_policy& wp = {}) {
        return operate(k, std::span<const kv::operation>(ops.begin(), ops.size()), wp);
    }
    /// \overload
    result<kv::record> operate(const kv::key& k,
                               std::initializer_list<kv::operation> ops,
                               const kv::write_policy& wp,
                               op_report& report) {
        return operate(k, std::span<const kv::operation>(ops.begin(), ops.size()), wp, report);
    }

    /// Writes bins (nil deletes one): the command a put sends, write ops
    /// only (so a nil bin with a replace action is PARAMETER_ERROR).
    result<void>
    put(const kv::key& k, std::span<const kv::bin> bins, const kv::write_policy& wp = {});
    /// \overload
    result<void>
    put(const kv::key& k, std::initializer_list<kv::bin> bins, const kv::write_policy& wp = {}) {
        return put(k, std::span<const kv::bin>(bins.begin(), bins.size()), wp);
    }

    /// Deletes k's record: KEY_NOT_FOUND when missing; the generation policy
    /// applies.
    result<void> remove(const kv::key& k, const kv::write_policy& wp = {});

    /// Rewrites k with wp's TTL and a new generation: a command of one touch.
    result<void> touch(const kv::key& k, const kv::write_policy& wp = {});

    /// One result per key, in key order. Round trips: one per node the batch
    /// touches per attempt.
    std::vector<result<kv::record>> batch_get(std::span<const kv::key> keys,
                                              const kv::read_policy& rp = {});
    /// The named bins of each key (as get with bins), one result per key.
    std::vector<result<kv::record>> batch_get(std::span<const kv::key> keys,
                                              std::span<const std::string> bins,
                                              const kv::read_policy& rp = {});

    /// Batch operate (kv/batch.hpp): reads, writes and deletes, each with its
    /// own policy (a record without a filter expression takes bp's), one
    /// result per record in batch order. Round trips: one per node the batch
    /// touches per attempt. Duplicate keys run in batch order; a node failing
    /// mid-batch fails its unanswered records (writes in doubt once sent and
    /// lost), retried within bp.max_retries; respond_all_keys false stops a
    /// node's part at its first error other than not found / filtered out.
    std::vector<result<kv::record>> batch_operate(std::span<const kv::batch_record> batch,
                                                  const kv::batch_policy& bp = {});

    // --- queries -------------------------------------------------------------

    /// Creates a secondary index (on a bin, a ctx in a bin, or an
    /// expression), as 8.1.2's sindex-create: ok and no change when one of
    /// that name and definition exists; INDEX_FOUND when the name has another
    /// definition; an index of the same definition under another name is
    /// renamed. PARAMETER_ERROR: both a bin and an expression, neither, a ctx
    /// with an expression or with a create step, an expression of another
    /// type than the index's. INVALID_NAMESPACE, BIN_NAME_TOO_LONG.
    result<void> create_index(const kv::index_spec& ix);
    /// Drops an index; ok when there is none of that name (as the server).
    result<void> drop_index(const std::string& ns_name, const std::string& name);

    /// Every live record of a set (empty set = the namespace), by partition
    /// then digest. PARTITION_UNAVAILABLE when a partition has no live copy.
    result<std::vector<kv::keyed_record>> scan(const kv::scan_request& req,
                                               const kv::read_policy& rp = {});

    /// The live records of a set whose indexed bin matches the filter.
    /// INDEX_NOT_FOUND without an index on the bin (of the filter's type and
    /// collection, covering the set); PARAMETER_ERROR for a filter value the
    /// index cannot hold or a range on a non-numeric index.
    result<std::vector<kv::keyed_record>> query(const kv::query_request& req,
                                                const kv::read_policy& rp = {});

    /// One page of a scan (kv/partition_filter.hpp): at most req.max_records
    /// records (0 = all left) of the cursor's partitions, each resumed after
    /// its last digest (an empty cursor: every partition). The policy's
    /// filter expression applies; the cursor's throttle is accounted. A record
    /// that exists from the first page to the last is returned exactly once,
    /// whatever is written between pages. Each node's partitions are one
    /// sub-request per attempt: faults, timeouts and node loss are met and
    /// retried per the policy as the client's partition scan does; a page
    /// that still fails returns the error and leaves the cursor as it was, so
    /// resuming reads every remaining record once. PARAMETER_ERROR for a
    /// cursor naming a partition past 4095.
    result<std::vector<kv::keyed_record>> scan_page(const kv::scan_request& req,
                                                    kv::partition_cursor& cursor,
                                                    const kv::read_policy& rp = {});
    /// One page of a query, as scan_page.
    result<std::vector<kv::keyed_record>> query_page(const kv::query_request& req,
                                                     kv::partition_cursor& cursor,
                                                     const kv::read_policy& rp = {});

    /// A background query (Aerospike's query with operations): applies the
    /// write ops to every record of req (its index filter and wp's filter
    /// expression) on the server, one round trip per node; what it did.
    /// Only write ops (PARAMETER_ERROR otherwise); a record the ops fail on
    /// is left as it was and counted, the job goes on, as the server's
    /// background job does. Synchronous here.
    result<kv::background_result> query_background(const kv::query_request& req,
                                                   std::span<const kv::operation> ops,
                                                   const kv::write_policy& wp = {});
    /// A background scan: query_background over every record of the set.
    result<kv::background_result> scan_background(const kv::scan_request& req,
                                                  std::span<const kv::operation> ops,
                                                  const kv::write_policy& wp = {});

    /// Truncate (Aerospike's truncate info command): deletes the records of
    /// `set` (empty = every set of the namespace) whose last update is
    /// strictly before `before_ms` (Unix ms; nullopt = the clock's now, so a
    /// record written in that very millisecond stays, as on the server).
    /// PARAMETER_ERROR for a cutoff in the future or before the server's
    /// epoch (2010-01-01: "would truncate to 0"); INVALID_NAMESPACE.
    /// Synchronous here (the server deletes in the background but hides the
    /// truncated records at once). O(records of the namespace).
    result<void> truncate(const std::string& ns_name,
                          const std::string& set,
                          std::optional<std::int64_t> before_ms = std::nullopt);

    // --- topology ------------------------------------------------------------

    /// Nodes the cluster was built with, alive or not.
    std::uint32_t node_count() const noexcept { return m_cfg.nodes; }
    /// Whether the node is up (false for a node that does not exist).
    bool node_alive(int node) const;
    /// Takes a node down: its partitions fail over. PARAMETER_ERROR for a
    /// node that does not exist; a node already down is left so.
    result<void> node_down(int node);
    /// Brings a node back: it takes its partitions back.
    result<void> node_up(int node);

    /// A partition's current replicas, master first (empty: unavailable or
    /// no such namespace).
    std::vector<int> replicas(std::string_view ns_name, std::uint32_t pid) const;
    /// Where k's record lives now, master first.
    std::vector<int> replicas(const kv::key& k) const { return replicas(k.ns(), k.partition_id()); }

    // --- faults --------------------------------------------------------------

    /// Installs a fault (faults.hpp); its id. PARAMETER_ERROR for a node
    /// fault on a node that does not exist or a probability outside [0, 1].
    result<std::size_t> add_fault(fault f);
    /// Removes every installed fault (commands stop being counted for them).
    void clear_faults() { m_faults.clear(); }
    /// How many times the fault with this id (add_fault's) has fired.
    std::uint64_t fault_fires(std::size_t id) const { return m_faults.fires(id); }

    // --- accounting ----------------------------------------------------------

    /// A snapshot of the accounting. O(records). As JSON:
    /// sim::to_json(stats()) (sim/stats_json.hpp).
    sim::stats stats() const;
    /// Zeroes every counter (records stay).
    void reset_stats();

    // --- maintenance ---------------------------------------------------------

    /// Removes expired records now, whatever the namespaces' nsup-period;
    /// how many.
    std::size_t expire();

    /// Runs one nsup cycle on every namespace now, whatever its
    /// nsup-period, then re-evaluates stop-writes: where a node is past
    /// evict-used-pct (or evict-indexes-memory-pct) it evicts
    /// evict-tenths-pct of the records with a TTL, nearest void time first,
    /// by void-time histogram bucket; otherwise it removes the expired
    /// records. Records removed. O(records).
    /// Without this call both run on the cluster's clock: nsup when the
    /// clock passes each multiple of nsup-period (never with 0), stop-writes
    /// every 10 s (the server's EVAL_STOP_WRITES_PERIOD), each time on the
    /// first single-record command that sees the new time.
    std::size_t nsup();

    /// Live records in a namespace (0 for an unknown one). O(records).
    std::uint64_t record_count(std::string_view ns_name) const;

private:
    // --- setup ---------------------------------------------------------------

    // Sets up `into` (default-made) as namespace nc.
    void build_namespace(const namespace_config& nc, detail::namespace_state& into);
    // The namespaces, in configuration order (fixed at construction).
    std::span<detail::namespace_state> namespaces() const noexcept;

    // Whether a write arriving now may queue on its record (else KEY_BUSY):
    // it keeps the record busy for its service time (the attempt's
    // simulated latency). Under the partition's lock.
    static bool admit_write(const detail::namespace_state& ns,
                            detail::partition& p,
                            const kv::key& k,
                            time_ms now,
                            std::chrono::microseconds service);

    // The nodes in this partition's preference order: highest seeded hash
    // first (rendezvous hashing), so a node's departure moves only its own
    // partitions' roles.
    std::vector<int> succession(std::uint32_t pid) const;

    detail::namespace_state* find_ns(std::string_view name) const noexcept;

    static error unknown_namespace(std::string_view cmd, std::string_view ns);

    result<void> set_alive(int node, bool up);

    // --- records -------------------------------------------------------------

    // The live entry of k, or nullptr; an expired one is removed on the way.
    static detail::entry*
    live(detail::namespace_state& ns, detail::partition& p, const kv::key& k, std::int64_t now_s);

    static void erase_record(detail::namespace_state& ns,
                             detail::partition& p,
                             const kv::key& k,
                             const detail::entry& e);

    static void count_error(detail::partition& p, status code);
    template <class R>
    static R count_failure(detail::partition& p, R r);
    static error count_failure(detail::partition& p, error e);
    static failure count_failure(detail::partition& p, failure f);

    // The policy's filter on an existing record (detail::check_filter).
    static result<void> filter(const kv::base_policy& pol,
                               const detail::entry& e,
                               const kv::key& k,
                               std::int64_t now_ms,
                               std::string_view cmd);

    static void count_read(detail::partition& p, detail::entry& e);

    // --- commands ------------------------------------------------------------

    // The server's side of one get / operate / remove of k, under p's lock
    // (the single-record commands and batch_operate share them). cmd names
    // the command in messages; applied is set when a write committed.
    static result<kv::record> serve_get(detail::namespace_state& ns,
                                        detail::partition& p,
                                        const kv::key& k,
                                        const kv::base_policy& rp,
                                        std::int64_t now_ms,
                                        std::string_view cmd);
    result<kv::record> serve_operate(detail::namespace_state& ns,
                                     detail::partition& p,
                                     const kv::key& k,
                                     std::span<const kv::operation> ops,
                                     const kv::write_policy& wp,
                                     bool read_only,
                                     bool has_touch,
                                     std::int64_t now_ms,
                                     std::string_view cmd,
                                     bool& applied,
                                     detail::failure_info& fi);
    static result<kv::record> serve_remove(detail::namespace_state& ns,
                                           detail::partition& p,
                                           const kv::key& k,
                                           const kv::write_policy& wp,
                                           std::int64_t now_ms,
                                           std::string_view cmd,
                                           bool& applied);

    result<kv::record> operate_impl(const kv::key& k,
                                    std::span<const kv::operation> ops,
                                    const kv::write_policy& wp,
                                    op_report& rep,
                                    std::string_view cmd);

    // A command's ops applied to the record inside its transaction.
    using apply_fn = detail::function_ref<result<void>(detail::txn&)>;

    // The write path plus what the cluster does around it: storing the new
    // record or erasing it, the byte and hot-key accounting, the version.
    result<void> write_command(detail::namespace_state& ns,
                               detail::partition& p,
                               const kv::key& k,
                               bool has_touch,
                               const kv::write_policy& wp,
                               std::int64_t now_ms,
                               std::string_view cmd,
                               bool& applied,
                               kv::record* out,
                               apply_fn apply);

    // put's bins applied inside t. For a put of a few bins the outcome is
    // predicted first — the final bin count and size, every value checked —
    // so the bins can then be written without an undo log, reusing the
    // stored strings' capacity: a put that would fail fails before touching
    // a bin. Otherwise (many bins, or a delete that might be refused) the
    // logged path runs and write_path's checks roll it back.
    static result<void> apply_put(detail::txn& t,
                                  std::span<const kv::bin> bins,
                                  const kv::write_policy& wp,
                                  const detail::namespace_state& ns);

    // An attempt's answer lost to a timeout (the request, the response, or
    // latency past the policy): counted, and described. was_ok: the server
    // had answered OK (so the timeout adds an error); doubt: a write was
    // applied all the same.
    [[gnu::cold, gnu::noinline]] static inline error timed_out(detail::partition& p,
                                                               std::string_view cmd,
                                                               const fault_effects& fx,
                                                               bool late,
                                                               std::chrono::microseconds latency,
                                                               bool was_ok,
                                                               bool doubt);

    // A status a fault makes the server answer instead of serving the
    // command (fault::fail_with): counted, and described.
    error injected_answer(
        detail::partition& p, std::string_view cmd, status s, int node, time_ms now);

    // A crashed node's last answer: the connection dropped after the request
    // was sent (doubt: a write was applied all the same).
    [[gnu::cold, gnu::noinline]] static inline error
    connection_lost(detail::partition& p, std::string_view cmd, int node, bool was_ok, bool doubt);

    // The client's circuit breaker (cluster_config::max_error_rate): whether
    // commands may go to `node` now, and an error counted against it. The
    // interval rolls over on the first check after it ends; under races a
    // count may land in the neighbouring interval (the C client's counters
    // are as loose).
    struct node_health {
        std::atomic<std::int64_t> interval{-1};
        std::atomic<std::uint32_t> errors{0};
        std::atomic<std::uint32_t> limit{0};
    };
    node_health* health_of(int node, time_ms now);
    bool error_rate_ok(int node, time_ms now);
    void add_node_error(int node, time_ms now);

    // Applies the node faults due for this attempt.
    void apply_topology_faults(const detail::attempt_info& a);

    // The server's side of one attempt of a single-record command, under
    // the partition lock: its answer; it sets `applied` (the last argument)
    // when it committed a write.
    using attempt_body = detail::function_ref<result<kv::record>(
        detail::namespace_state&, detail::partition&, std::int64_t, bool&)>;

    // The client's command loop around one single-record command: routing,
    // faults, latency and timeouts, retries, in-doubt. Not a template: every
    // command shares one copy of it.
    result<kv::record> run(const kv::key& k,
                           bool is_write,
                           const kv::base_policy& pol,
                           std::string_view cmd,
                           op_report& rep,
                           attempt_body body);

    std::vector<result<kv::record>> batch_impl(std::span<const kv::key> keys,
                                               const std::span<const std::string>* bins,
                                               const kv::read_policy& rp);

    static std::optional<kv::index_type> index_type_of(const value& v) noexcept;
    static std::string_view index_type_name(kv::index_type t) noexcept;

    // Walks the cursor's open partitions in order, each from after its last
    // digest in digest order, keeping the live records of the set that pass
    // `keep` and the policy's filter, up to max_records (0 = all), and moves
    // the cursor past them; one round trip per serving node.
    using keep_fn = detail::function_ref<bool(const kv::digest&, const detail::entry&)>;
    result<std::vector<kv::keyed_record>> walk(const std::string& ns_name,
                                               const std::string& set,
                                               const std::vector<std::string>& bins,
                                               std::uint64_t max_records,
                                               kv::partition_cursor& cursor,
                                               const kv::read_policy& rp,
                                               std::string_view cmd,
                                               keep_fn keep);

    // --- capacity ------------------------------------------------------------

    // What each node holds of a namespace, by node id: data_used_bytes, and
    // the bytes of its primary index and secondary-index B-trees. (Two
    // vectors of integers, not a vector of structs: a type every TU has.)
    struct node_usage {
        std::vector<std::uint64_t> data_bytes;
        std::vector<std::uint64_t> index_bytes;
    };
    static std::uint64_t sindex_entries(const kv::index_spec& ix, const detail::entry& e,
                                         const kv::digest& d, std::int64_t now_ms);
    // The B-tree nodes one partition's records add to the indexes' trees
    // beyond the one node every tree has (sindex_tree_nodes), on each node
    // holding a copy; `counts` is scratch space.
    // Zero without indexes; otherwise through sindex_hook(), which
    // create_index sets: a program that never creates an index never
    // compiles the index maintenance (indexed_values, its sort).
    static std::uint64_t sindex_extra_nodes(const std::vector<kv::index_spec>& indexes,
                                            const detail::record_table& records,
                                            std::vector<std::uint64_t>& counts,
                                            std::int64_t now_ms);
    static std::uint64_t sindex_extra_nodes_impl(const std::vector<kv::index_spec>& indexes,
                                                 const detail::record_table& records,
                                                 std::vector<std::uint64_t>& counts,
                                                 std::int64_t now_ms);
    using sindex_nodes_fn = decltype(&sindex_extra_nodes_impl);
    static kvmodel::detail::engine_hook<sindex_nodes_fn>& sindex_hook() noexcept;
    // A copy of ns's indexes, taken under their lock. Empty without
    // indexes; otherwise through index_copy_hook(), which create_index sets:
    // a program that never creates an index never compiles
    // vector<index_spec>'s copy.
    static std::vector<kv::index_spec> indexes_of(const detail::namespace_state& ns);
    static void copy_indexes(const std::vector<kv::index_spec>& from, std::vector<kv::index_spec>& to);
    using index_copy_fn = decltype(&copy_indexes);
    static kvmodel::detail::engine_hook<index_copy_fn>& index_copy_hook() noexcept;
    // The distinct values index ix holds for record e (sindex.c
    // sbin_from_bin): of the bin, the element at its ctx or its
    // expression's value, that value itself (of the index's type) or its
    // elements / map keys / map values of that type; none when the record is
    // in another set.
    static std::vector<value> indexed_values(const kv::index_spec& ix,
                                             const detail::entry& e,
                                             const kv::digest& d,
                                             std::int64_t now_ms);
    node_usage usage(const detail::namespace_state& ns) const;
    // Sets each node's stop-writes state from its usage (nsup.c
    // eval_stop_writes).
    void eval_stop_writes(detail::namespace_state& ns) const;
    error stop_writes_error(const detail::namespace_state& ns,
                            std::string_view cmd,
                            int node,
                            std::uint32_t why) const;
    // Removes the records `doomed` picks; how many.
    static std::size_t remove_records(detail::namespace_state& ns,
                                      detail::function_ref<bool(const detail::entry&)> doomed);
    // The void time below which an eviction round deletes (nsup.c
    // find_evict_void_time): now_s = only expiry, 0 = nothing to do.
    static std::int64_t evict_void_time(const detail::namespace_state& ns, std::int64_t now_s);
    // One nsup cycle (run_expire_or_evict): evicts when breached, else
    // expires. Under ns.nsup_mu.
    std::size_t nsup_cycle(detail::namespace_state& ns, std::int64_t now_s);
    // Runs the stop-writes evaluation and the nsup cycle that are due.
    void maintain(detail::namespace_state& ns, time_ms now);

    // The query's index check and its matcher on a record (query, query_page,
    // query_background share them).
    using record_matcher = std::function<bool(const kv::digest&, const detail::entry&)>;
    result<record_matcher> query_matcher(const kv::query_request& req, std::string_view cmd);

    // The background job: ops applied by the server to every live record of
    // the set that passes keep.
    result<kv::background_result> background(const std::string& ns_name,
                                             const std::string& set,
                                             const record_matcher& keep,
                                             std::span<const kv::operation> ops,
                                             const kv::write_policy& wp,
                                             std::string_view cmd);

    // succession(pid) into out (build_namespace fills each partition's).
    void succession_into(std::uint32_t pid, std::vector<int>& out) const;
    // Fills s (default-constructed: stats() makes the namespaces' entries in
    // place, with no reallocation and no namespace_stats move to instantiate).
    void snapshot(const detail::namespace_state& ns,
                  const std::vector<std::uint64_t>& alive,
                  std::int64_t now_s,
                  namespace_stats& s) const;

    cluster_config m_cfg;
    // The clock when the config brings none. m_clock points at it or at
    // m_cfg.time_source's clock (which m_cfg keeps alive): a member, not a
    // make_shared<manual_clock>, whose control block would cost ~45 functions
    // in every header-only translation unit.
    manual_clock m_own_clock;
    sim::clock* m_clock = nullptr;
    detail::fault_injector m_faults;
    mutable std::mutex m_topology_mu;
    // Per node, 1 = up. Not a vector<bool>: its bit-vector members would be
    // instantiated for this alone; vector<uint64_t>'s already are.
    std::vector<std::uint64_t> m_alive;
    detail::heap_array<detail::namespace_state> m_namespaces;
    detail::heap_array<node_health> m_health; // one per node
};

static_assert(kv::kv_store<cluster>);
static_assert(kv::kv_queryable<cluster>);

} // namespace kvmodel::sim

// The cluster's internals are parsed only where its definitions are compiled:
// in every user's translation unit when header-only, once in the library with
// kvmodel::compiled (KVMODEL_SEPARATE_COMPILATION).
#if KVMODEL_DEFINITIONS
#    include <kvmodel/sim/detail/cluster_batch.hpp>
#    include <kvmodel/sim/detail/cluster_impl.hpp>
#    include <kvmodel/sim/detail/cluster_scan.hpp>

namespace kvmodel::sim {

KVMODEL_DECL cluster::~cluster() = default;

KVMODEL_DECL cluster::cluster(cluster_config cfg)
    : m_cfg(std::move(cfg))
    , m_faults(m_cfg.seed) {
    KVMODEL_ASSERT(validate(m_cfg).has_value());
    m_clock = m_cfg.time_source ? m_cfg.time_source.get() : &m_own_clock;
    m_alive.assign(m_cfg.nodes, 1);
    m_health.reset(m_cfg.nodes);
    m_namespaces.reset(m_cfg.namespaces.size());
    for (std::size_t i = 0; i < m_cfg.namespaces.size(); ++i)
        build_namespace(m_cfg.namespaces[i], m_namespaces[i]);
}

KVMODEL_DECL result<void> cluster::validate(const cluster_config& cfg) {
    // Messages joined by kv::detail::fail_joined, not std::string operator+
    // chains: each temporary of a chain is a call and a cleanup path in every
    // header-only file.
    using kv::detail::fail_joined;
    constexpr status bad = status::parameter_error;
    if (cfg.nodes == 0 || cfg.nodes > 128)
        return fail_joined(bad, {"cluster: nodes must be 1..128, got ", std::to_string(cfg.nodes)});
    if (cfg.namespaces.size() == 0) // not empty(): one iterator chain less
        return fail(bad, "cluster: no namespace");
    for (std::size_t i = 0; i < cfg.namespaces.size(); ++i) {
        const namespace_config& n = cfg.namespaces[i];
        const std::string_view name = n.name;
        if (name.empty() || name.size() > kv::max_namespace_length)
            return fail_joined(bad, {"cluster: namespace name '", name, "' must be 1..31 bytes"});
        for (std::size_t j = 0; j < i; ++j)
            if (cfg.namespaces[j].name == name)
                return fail_joined(bad, {"cluster: namespace '", name, "' configured twice"});
        // "cluster: namespace '<name>' <setting> <value> outside <range>"
        const auto outside = [name](std::string_view setting,
                                    std::uint64_t got,
                                    std::string_view range) -> failure {
            return fail_joined(bad,
                               {"cluster: namespace '",
                                name,
                                "' ",
                                setting,
                                " ",
                                std::to_string(got),
                                " outside ",
                                range});
        };
        if (n.max_record_size < kv::min_max_record_size ||
            n.max_record_size > kv::max_max_record_size)
            return outside("max-record-size", n.max_record_size, "64 .. 8388608");
        if (n.replication_factor == 0)
            return fail_joined(bad, {"cluster: namespace '", name, "' replication factor 0"});
        if (n.default_ttl < 0 || n.default_ttl > kv::max_ttl)
            return fail_joined(bad,
                               {"cluster: namespace '",
                                name,
                                "' default-ttl ",
                                std::to_string(n.default_ttl),
                                " outside 0 .. 10 years"});
        if (n.default_ttl != 0 && n.nsup_period == 0 && !n.allow_ttl_without_nsup)
            return fail_joined(bad,
                               {"cluster: namespace '",
                                name,
                                "' must configure non-zero nsup-period or allow-ttl-without-nsup "
                                "true if default-ttl is non-zero"});
        if (n.data_size == 0)
            return fail_joined(bad, {"cluster: namespace '", name, "' data-size 0"});
        // A plain array of a plain struct: no initializer_list / pair /
        // structured-binding functions to emit.
        struct pct_setting {
            std::string_view what;
            std::uint32_t pct;
        };
        const pct_setting pcts[] = {{"stop-writes-used-pct", n.stop_writes_used_pct},
                                    {"stop-writes-sys-memory-pct", n.stop_writes_sys_memory_pct},
                                    {"evict-used-pct", n.evict_used_pct},
                                    {"evict-indexes-memory-pct", n.evict_indexes_memory_pct}};
        for (const pct_setting& setting : pcts)
            if (setting.pct > 100)
                return outside(setting.what, setting.pct, "0 .. 100");
        if (n.evict_hist_buckets < 100 || n.evict_hist_buckets > 10'000'000)
            return outside("evict-hist-buckets", n.evict_hist_buckets, "100 .. 10000000");
    }
    return {};
}

KVMODEL_DECL result<kv::record> cluster::get(const kv::key& k, const kv::read_policy& rp) {
    op_report rep;
    return run(k,
               false,
               rp,
               "get",
               rep,
               [&](detail::namespace_state& ns, detail::partition& p, std::int64_t now_ms, bool&)
                   -> result<kv::record> { return serve_get(ns, p, k, rp, now_ms, "get"); });
}

KVMODEL_DECL result<kv::record>
cluster::get(const kv::key& k, std::span<const std::string> bins, const kv::read_policy& rp) {
    std::vector<kv::operation> ops;
    ops.reserve(bins.size());
    for (const std::string& b : bins)
        ops.push_back(kv::op::read(b));
    op_report rep;
    result<kv::record> r = operate_impl(k, ops, kv::as_write_policy(rp), rep, "get");
    if (r)
        r->results.clear();
    return r;
}

KVMODEL_DECL result<bool> cluster::exists(const kv::key& k, const kv::read_policy& rp) {
    op_report rep;
    result<kv::record> r =
        run(k,
            false,
            rp,
            "exists",
            rep,
            [&](detail::namespace_state& ns, detail::partition& p, std::int64_t now_ms, bool&)
                -> result<kv::record> {
                const std::int64_t now_s = now_ms / 1000;
                detail::entry* e = live(ns, p, k, now_s);
                kv::record out;
                if (e != nullptr && !detail::same_name(e->set(), k.set()))
                    return count_failure(p, detail::set_mismatch("exists", k, *e));
                if (e != nullptr && !rp.filter_exp.empty())
                    if (result<void> f = filter(rp, *e, k, now_ms, "exists"); !f)
                        return count_failure(p, f.error());
                if (e != nullptr) {
                    detail::copy_header(*e, now_s, out);
                    ++e->reads;
                    ++p.current().reads;
                }
                return out;
            });
    if (!r)
        return std::move(r).error();
    return r->generation != 0;
}

KVMODEL_DECL result<kv::record>
cluster::operate(const kv::key& k, std::span<const kv::operation> ops, const kv::write_policy& wp) {
    op_report rep;
    return operate_impl(k, ops, wp, rep, "operate");
}

KVMODEL_DECL result<kv::record> cluster::operate(const kv::key& k,
                                                 std::span<const kv::operation> ops,
                                                 const kv::write_policy& wp,
                                                 op_report& report) {
    report = op_report{};
    return operate_impl(k, ops, wp, report, "operate");
}

KVMODEL_DECL result<void>
cluster::put(const kv::key& k, std::span<const kv::bin> bins, const kv::write_policy& wp) {
    static constexpr std::string_view cmd = "put";
    if (bins.empty())
        return fail(status::parameter_error, "put: no bins");
    const bool replace = wp.exists == kv::record_exists_action::replace ||
                         wp.exists == kv::record_exists_action::replace_only;
    for (const kv::bin& b : bins) {
        if (result<void> c = kv::check_bin_name(b.name, cmd); !c)
            return c;
        if (b.val.is_nil() && replace)
            return fail(status::parameter_error,
                        "put: bin '" + b.name +
                            "': a bin delete (nil) can't have record-level replace (" +
                            std::string(kv::exists_action_name(wp.exists)) + ")");
    }
    op_report rep;
    result<kv::record> r = run(
        k,
        true,
        wp,
        cmd,
        rep,
        [&](detail::namespace_state& ns, detail::partition& p, std::int64_t now_ms, bool& applied)
            -> result<kv::record> {
            result<void> w = write_command(
                ns, p, k, false, wp, now_ms, cmd, applied, nullptr, [&](detail::txn& t) {
                    return apply_put(t, bins, wp, ns);
                });
            if (!w)
                return w.error(); // the rare failed put copies its message
            return kv::record{};
        });
    if (!r)
        return std::move(r).error();
    return {};
}

KVMODEL_DECL result<void> cluster::remove(const kv::key& k, const kv::write_policy& wp) {
    op_report rep;
    result<kv::record> r = run(k,
                               true,
                               wp,
                               "remove",
                               rep,
                               [&](detail::namespace_state& ns,
                                   detail::partition& p,
                                   std::int64_t now_ms,
                                   bool& applied) -> result<kv::record> {
                                   return serve_remove(ns, p, k, wp, now_ms, "remove", applied);
                               });
    if (!r)
        return std::move(r).error();
    return {};
}

KVMODEL_DECL result<void> cluster::touch(const kv::key& k, const kv::write_policy& wp) {
    const std::array<kv::operation, 1> ops = {kv::op::touch()};
    op_report rep;
    result<kv::record> r = operate_impl(k, ops, wp, rep, "touch");
    if (!r)
        return std::move(r).error();
    return {};
}

KVMODEL_DECL std::vector<result<kv::record>> cluster::batch_get(std::span<const kv::key> keys,
                                                                const kv::read_policy& rp) {
    return batch_impl(keys, nullptr, rp);
}

KVMODEL_DECL std::vector<result<kv::record>> cluster::batch_get(std::span<const kv::key> keys,
                                                                std::span<const std::string> bins,
                                                                const kv::read_policy& rp) {
    return batch_impl(keys, &bins, rp);
}

KVMODEL_DECL result<void> cluster::create_index(const kv::index_spec& ix) {
    detail::namespace_state* ns = find_ns(ix.ns);
    if (ns == nullptr)
        return unknown_namespace("create_index", ix.ns);
    if (ix.name.empty())
        return fail(status::parameter_error, "create_index: empty index name");
    if (result<void> d = detail::check_index_source(ix); !d)
        return d;
    // As sindex-create (sindex_manager.c): the same name and definition is
    // no change; the name with another definition INDEX_FOUND; the
    // definition under another name renames that index.
    const auto same = [&ix](const kv::index_spec& x) {
        return detail::same_index_source(x, ix.set, ix.bin, ix.type, ix.collection, ix.ctx, ix.exp);
    };
    std::unique_lock lock(ns->index_mu);
    for (const kv::index_spec& x : ns->indexes)
        if (x.name == ix.name)
            return same(x) ? result<void>{}
                           : fail(status::index_found,
                                  "create_index: index '" + ix.name +
                                      "' already exists with a different definition");
    for (kv::index_spec& x : ns->indexes)
        if (same(x)) {
            x.name = ix.name;
            return {};
        }
    sindex_hook().set(&sindex_extra_nodes_impl);
    index_copy_hook().set(&copy_indexes);
    ns->indexes.push_back(ix);
    return {};
}

KVMODEL_DECL result<void> cluster::drop_index(const std::string& ns_name, const std::string& name) {
    detail::namespace_state* ns = find_ns(ns_name);
    if (ns == nullptr)
        return unknown_namespace("drop_index", ns_name);
    // No index of that name: nothing to do, ok (sindex-delete answers ok).
    std::unique_lock lock(ns->index_mu);
    std::erase_if(ns->indexes, [&name](const kv::index_spec& x) { return x.name == name; });
    return {};
}

KVMODEL_DECL result<std::vector<kv::keyed_record>> cluster::scan(const kv::scan_request& req,
                                                                 const kv::read_policy& rp) {
    kv::partition_cursor cursor;
    return scan_page(req, cursor, rp);
}

KVMODEL_DECL result<std::vector<kv::keyed_record>> cluster::query(const kv::query_request& req,
                                                                  const kv::read_policy& rp) {
    kv::partition_cursor cursor;
    return query_page(req, cursor, rp);
}

KVMODEL_DECL bool cluster::node_alive(int node) const {
    std::lock_guard lock(m_topology_mu);
    return node >= 0 && static_cast<std::uint32_t>(node) < m_cfg.nodes &&
           m_alive[static_cast<std::size_t>(node)] != 0;
}

KVMODEL_DECL result<void> cluster::node_down(int node) {
    return set_alive(node, false);
}

KVMODEL_DECL result<void> cluster::node_up(int node) {
    return set_alive(node, true);
}

KVMODEL_DECL std::vector<int> cluster::replicas(std::string_view ns_name, std::uint32_t pid) const {
    const detail::namespace_state* ns = find_ns(ns_name);
    if (ns == nullptr || pid >= kv::partition_count)
        return {};
    detail::partition& p = ns->parts[pid];
    std::lock_guard lock(p.mu);
    return p.replicas;
}

KVMODEL_DECL result<std::size_t> cluster::add_fault(fault f) {
    if (((f.kind == fault_kind::node_down || f.kind == fault_kind::node_up) &&
         (f.node < 0 || static_cast<std::uint32_t>(f.node) >= m_cfg.nodes)) ||
        (f.kind == fault_kind::node_crash && f.node >= static_cast<int>(m_cfg.nodes)))
        return fail(status::parameter_error,
                    "add_fault: node " + std::to_string(f.node) + " does not exist");
    if (f.kind == fault_kind::fail_with && f.answer == status::ok)
        return fail(status::parameter_error, "add_fault: fail_with needs an error status, not OK");
    if (!(f.probability >= 0.0 && f.probability <= 1.0))
        return fail(status::parameter_error, "add_fault: probability must be in [0, 1]");
    return m_faults.add(std::move(f));
}

KVMODEL_DECL sim::stats cluster::stats() const {
    // One default entry per namespace, filled in place (see snapshot).
    sim::stats out{std::vector<namespace_stats>(m_cfg.namespaces.size()), m_faults.total_fires()};
    const std::int64_t now_s = m_clock->now_s();
    std::vector<std::uint64_t> alive;
    {
        std::lock_guard lock(m_topology_mu);
        // Element by element: vector copy assignment is ~35 more functions
        // in every header-only file (compile time); these members are there.
        alive.reserve(m_alive.size());
        for (std::size_t n = 0; n < m_alive.size(); ++n)
            alive.push_back(m_alive[n]);
    }
    const std::span<detail::namespace_state> all = namespaces();
    for (std::size_t i = 0; i < all.size(); ++i)
        snapshot(all[i], alive, now_s, out.namespaces[i]);
    return out;
}

KVMODEL_DECL void cluster::reset_stats() {
    for (detail::namespace_state& ns : namespaces()) {
        for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid) {
            detail::partition& p = ns.parts[pid];
            std::lock_guard lock(p.mu);
            p.reset_counters();
            for (auto& [d, e] : ns.records[pid])
                e.reads = e.writes = 0;
        }
        for (std::uint32_t n = 0; n < m_cfg.nodes; ++n) {
            ns.extras[n].round_trips.store(0, std::memory_order_relaxed);
        }
    }
}

KVMODEL_DECL std::size_t cluster::expire() {
    const std::int64_t now_s = m_clock->now_s();
    std::size_t n = 0;
    for (detail::namespace_state& ns : namespaces())
        n += remove_records(ns, [now_s](const detail::entry& e) { return e.expired(now_s); });
    return n;
}

KVMODEL_DECL std::size_t cluster::nsup() {
    const std::int64_t now_s = m_clock->now_s();
    std::size_t n = 0;
    for (detail::namespace_state& ns : namespaces()) {
        std::lock_guard lock(ns.nsup_mu);
        n += nsup_cycle(ns, now_s);
        eval_stop_writes(ns);
    }
    return n;
}

KVMODEL_DECL std::uint64_t cluster::record_count(std::string_view ns_name) const {
    const detail::namespace_state* ns = find_ns(ns_name);
    if (ns == nullptr)
        return 0;
    const std::int64_t now_s = m_clock->now_s();
    std::uint64_t n = 0;
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid) {
        detail::partition& p = ns->parts[pid];
        std::lock_guard lock(p.mu);
        for (const auto& [d, e] : ns->records[pid])
            if (!e.expired(now_s))
                ++n;
    }
    return n;
}

} // namespace kvmodel::sim

#endif // KVMODEL_DEFINITIONS
