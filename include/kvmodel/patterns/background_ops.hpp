// kvmodel/patterns/background_ops.hpp
//
// Background set operations (what the seed's daily shift uses: a scan with
// operations, run by the server as a job): apply one list of write operations
// to every record of a set — or of the records an index query selects — and,
// optionally, only to those a predicate accepts. The job runs on its own
// thread; its progress can be read at any time and its completion awaited.
//
// Semantics, as Aerospike's background scan/query with operations:
// * only existing records are written (update-only: a record deleted after the
//   scan saw it is skipped, never re-created);
// * each record is written atomically by one operate(); records are
//   independent — a failure on one (say BIN_TYPE_ERROR) is counted and the job
//   goes on;
// * with a predicate, the record is written only if it still is as the
//   predicate saw it: the write carries the generation of the read, and a
//   record that changed in between is read again and re-judged (so a
//   predicate never applies to stale data).
// A store that runs background jobs itself (kv::detail::has_background: the
// simulator's scan_background / query_background) gets the whole job in one
// call when there is no predicate — the server applies the ops, one round
// trip per node, and the write policy's filter expression selects records
// there. Departures: with a C++ predicate (which no server can run) the
// predicate runs in the client on the record the scan returned.
// Records created after the scan started are not visited (Aerospike does not
// promise to visit them either).
//
// Cost (client-side, with a predicate or a store without background jobs):
// one scan (or query) round trip, then one operate() per selected record, plus one read and one resend per record that changed under a
// predicate. The scan result is held in memory for the job's duration.
#pragma once

#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/store.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// What a background job does.
struct background_request {
    /// The namespace.
    std::string ns = "test";
    /// The set whose records are written (empty = every record of the namespace).
    std::string set;
    /// When set, the records an index query selects instead of a scan of the set.
    std::optional<kv::filter> where;
    /// When set, a record is written only if this returns true for it.
    std::function<bool(const kv::record&)> predicate;
    /// The write operations applied to each selected record, in one operate().
    std::vector<kv::operation> ops;
    /// Policy of each record's write.
    kv::write_policy write{};
    /// Policy of the scan or query.
    kv::read_policy read{};
};

/// A snapshot of a job's progress.
struct job_progress {
    /// Records the scan or query returned.
    std::uint64_t total = 0;
    /// Records dealt with so far (applied + skipped + failed).
    std::uint64_t processed = 0;
    /// Records written.
    std::uint64_t applied = 0;
    /// Records the predicate rejected, or that no longer existed.
    std::uint64_t skipped = 0;
    /// Records whose operate() failed (the first error is kept).
    std::uint64_t failed = 0;
    /// The job has finished (all records dealt with, or the scan failed).
    bool done = false;
    /// The job was cancelled before it finished.
    bool cancelled = false;
    /// The scan or query itself failed (nothing was written), or the first
    /// per-record failure.
    std::optional<error> first_error;
};

/// A running background job. Movable; destroying it cancels the job and
/// waits for its thread.
template <kv::kv_queryable Store>
class background_job {
public:
    /// Starts the job on its own thread. The store must outlive the job.
    /// An empty ops list is a PARAMETER_ERROR (reported in the progress).
    static background_job start(Store& store, background_request req) {
        background_job job;
        job.m_state = std::make_shared<state>();
        job.m_thread = std::thread(&background_job::run, job.m_state, &store, std::move(req));
        return job;
    }

    /// Moves the job; the moved-from object owns nothing.
    background_job(background_job&&) noexcept = default;
    /// Cancels and joins this job's own thread first, then takes other's.
    background_job& operator=(background_job&& other) noexcept {
        if (this != &other) {
            stop();
            m_state = std::move(other.m_state);
            m_thread = std::move(other.m_thread);
        }
        return *this;
    }
    background_job(const background_job&) = delete;
    background_job& operator=(const background_job&) = delete;
    ~background_job() { stop(); }

    /// The job's progress now. Thread-safe.
    job_progress progress() const {
        std::lock_guard<std::mutex> lock(m_state->mutex);
        return m_state->progress;
    }

    /// Blocks until the job is done; returns its final progress.
    job_progress wait() const {
        std::unique_lock<std::mutex> lock(m_state->mutex);
        m_state->changed.wait(lock, [&] { return m_state->progress.done; });
        return m_state->progress;
    }

    /// Waits at most `d`; the progress then (done or not).
    job_progress wait_for(std::chrono::milliseconds d) const {
        std::unique_lock<std::mutex> lock(m_state->mutex);
        m_state->changed.wait_for(lock, d, [&] { return m_state->progress.done; });
        return m_state->progress;
    }

    /// Asks the job to stop after the record in hand; records not yet
    /// processed are left as they are.
    void cancel() noexcept {
        if (m_state) m_state->cancel.store(true, std::memory_order_relaxed);
    }

private:
    struct state {
        mutable std::mutex mutex;
        std::condition_variable changed;
        std::atomic<bool> cancel{false};
        job_progress progress;
    };

    background_job() = default;

    void stop() noexcept {
        cancel();
        if (m_thread.joinable()) m_thread.join();
    }

    enum class outcome : std::uint8_t { applied, skipped, failed };

    static void run(const std::shared_ptr<state>& st, Store* store, const background_request& req) {
        auto finish = [&](std::optional<error> e) {
            std::lock_guard<std::mutex> lock(st->mutex);
            if (e && !st->progress.first_error) st->progress.first_error = std::move(e);
            st->progress.cancelled = st->cancel.load(std::memory_order_relaxed);
            st->progress.done = true;
            st->changed.notify_all();
        };
        if (req.ops.empty()) {
            finish(error{status::parameter_error, "background job: no operations"});
            return;
        }
        for (const kv::operation& o : req.ops)
            if (kv::is_read(o)) {
                finish(error{status::parameter_error,
                             "background job: read operation '" + std::string(kv::op_name(o)) +
                                 "' (a background job only writes)"});
                return;
            }
        if constexpr (kv::detail::has_background<Store>) {
            // The store runs the job itself (one round trip per node); a
            // client-side predicate still needs the records here.
            if (!req.predicate) {
                kv::write_policy wp = req.write;
                wp.exists = kv::record_exists_action::update_only;
                result<kv::background_result> r =
                    req.where ? store->query_background(
                                    kv::query_request{req.ns, req.set, {}, *req.where, 0}, req.ops, wp)
                              : store->scan_background(
                                    kv::scan_request{req.ns, req.set, {}, 0}, req.ops, wp);
                if (!r) {
                    finish(error{r.error().code,
                                 "background job: selecting records: " + r.error().message});
                    return;
                }
                {
                    std::lock_guard<std::mutex> lock(st->mutex);
                    st->progress.total = r->matched;
                    st->progress.processed = r->matched;
                    st->progress.applied = r->written;
                    st->progress.skipped = r->skipped;
                    st->progress.failed = r->failed;
                }
                finish(r->first_error ? std::optional<error>(error{
                                            r->first_error->code,
                                            "background job: " + r->first_error->message})
                                      : std::nullopt);
                return;
            }
        }
        result<std::vector<kv::keyed_record>> found =
            req.where ? store->query(kv::query_request{req.ns, req.set, {}, *req.where, 0}, req.read)
                      : store->scan(kv::scan_request{req.ns, req.set, {}, 0}, req.read);
        if (!found) {
            finish(error{found.error().code,
                         "background job: selecting records: " + found.error().message});
            return;
        }
        {
            std::lock_guard<std::mutex> lock(st->mutex);
            st->progress.total = found->size();
            st->changed.notify_all();
        }
        for (const kv::keyed_record& kr : *found) {
            if (st->cancel.load(std::memory_order_relaxed)) break;
            std::optional<error> err;
            const outcome oc = apply_one(*store, req, kr, err);
            std::lock_guard<std::mutex> lock(st->mutex);
            ++st->progress.processed;
            switch (oc) {
            case outcome::applied: ++st->progress.applied; break;
            case outcome::skipped: ++st->progress.skipped; break;
            case outcome::failed:
                ++st->progress.failed;
                if (!st->progress.first_error) st->progress.first_error = std::move(err);
                break;
            }
            st->changed.notify_all();
        }
        finish(std::nullopt);
    }

    static outcome apply_one(Store& store, const background_request& req,
                             const kv::keyed_record& kr, std::optional<error>& err) {
        kv::write_policy wp = req.write;
        wp.exists = kv::record_exists_action::update_only;
        kv::record current = kr.rec;
        // A changed record is re-read and re-judged; bounded so a record that
        // changes all the time cannot hold the job forever.
        for (int attempt = 0; attempt < 8; ++attempt) {
            if (req.predicate) {
                if (!req.predicate(current)) return outcome::skipped;
                wp.gen = kv::generation_policy::eq;
                wp.generation = current.generation;
            }
            result<kv::record> r = store.operate(kr.k, req.ops, wp);
            if (r) return outcome::applied;
            const status code = r.error().code;
            if (code == status::record_not_found) return outcome::skipped;
            if (code != status::generation_error || !req.predicate) {
                err = error{code, "background job: " + kv::to_string(kr.k) + ": " +
                                      r.error().message};
                return outcome::failed;
            }
            result<kv::record> again = kv::get(store, kr.k, req.read);
            if (!again) {
                if (again.error().code == status::record_not_found) return outcome::skipped;
                err = again.error();
                return outcome::failed;
            }
            current = std::move(again).value();
        }
        err = error{status::generation_error,
                    "background job: " + kv::to_string(kr.k) + ": kept changing under the predicate"};
        return outcome::failed;
    }

    std::shared_ptr<state> m_state;
    std::thread m_thread;
};

/// Starts a background job (see background_job::start).
template <kv::kv_queryable Store>
background_job<Store> run_background(Store& store, background_request req) {
    return background_job<Store>::start(store, std::move(req));
}

} // namespace kvmodel::patterns
