// kvmodel/kv/retry.hpp
//
// The one retry loop of kvmodel's patterns. A step (one command) is sent
// again while it fails with a transient status (kv::is_transient), with
// exponential backoff and jitter between attempts, within a total time
// budget; and the error a call finally returns is in doubt when ANY attempt
// of it, or any earlier step of the same call, may have been applied: in
// doubt is sticky.
//
// Why sticky: when a node dies, a write in flight on it can be applied and
// replicated while its answer is lost (CONNECTION or TIMEOUT, in doubt); the
// next attempts are refused (CONNECTION, not in doubt: nothing was sent).
// The last attempt's error alone says "not applied", and a caller that
// trusts it writes the element a second time (seen on a real cluster:
// issue 33).
//
// The contract a caller of a pattern gets (README, "Retries and in doubt"):
// * in_doubt == false: nothing of the call was applied. Retrying it in any
//   way is safe, with a new append id / token too.
// * in_doubt == true: the call may have been applied, wholly or partly.
//   Retry it with the SAME append id / token (the patterns' writes are
//   idempotent under their id), never with a new one; or read to find out.
//
// Timing: before attempt k + 1 the loop pauses for a draw from
// [b * (1 - jitter), b], b = initial_backoff * multiplier^(k - 1) capped at
// max_backoff. A pause that would end past total_timeout is not taken: the
// loop stops with the last error. The time a scope has spent is its own:
// the pauses it took plus its attempts as the clock measured them — not the
// clock's whole advance, which on a shared simulated clock also counts the
// other threads' pauses. Pauses and time go through the policy's hooks: by
// default the thread sleeps and time is std::chrono::steady_clock; a test or
// a simulation passes its own (sim::retry_on moves a manual clock instead of
// sleeping), so backoff is tested without real sleeps.
//
// Cost: two clock reads per attempt; one pause per retry. The loop's
// non-template parts (pauses, jitter, the error it returns) are behind the
// library switch (config.hpp): with kvmodel::compiled a user's translation
// unit neither compiles them nor parses <random> and <thread>.
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/kv/status.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

namespace kvmodel::kv {

/// How a pattern paces its retries (its attempt count stays the pattern's
/// own max_attempts). Configurable per pattern instance.
struct retry_policy {
    /// The pause before the second attempt (before jitter).
    std::chrono::milliseconds initial_backoff{20};
    /// No pause is longer than this.
    std::chrono::milliseconds max_backoff{1000};
    /// Each pause is this many times the one before (>= 1).
    double multiplier = 2.0;
    /// The random share of a pause, 0..1: a pause is drawn from
    /// [b * (1 - jitter), b], so writers that failed together spread out.
    double jitter = 0.5;
    /// Limit over a call's attempts and pauses; zero = none. The default
    /// outlasts a node's death as a real cluster shows it (~2 s from the
    /// kill to the client's new partition map, issue 33).
    std::chrono::milliseconds total_timeout{5000};
    /// Waits a pause; empty = std::this_thread::sleep_for.
    std::function<void(std::chrono::milliseconds)> sleep{};
    /// Milliseconds on any fixed epoch, for total_timeout; empty =
    /// std::chrono::steady_clock.
    std::function<std::int64_t()> clock{};
};

/// The pause before attempt `attempt + 1` (attempt >= 1), before jitter.
KVMODEL_DECL std::chrono::milliseconds backoff_before(const retry_policy& p, std::uint32_t attempt);

/// e as a call returns it after one of its write steps succeeded: in doubt
/// (the call has applied something), whatever e's own attempt said.
KVMODEL_DECL error after_applied(error e);

/// e as a call returns it: after_applied(e) when a write step of the call
/// already succeeded (`applied`), else e as it is.
inline error after_step(bool applied, error e) {
    return applied ? after_applied(std::move(e)) : e;
}

namespace detail {

/// 64 random bits from the calling thread's generator (std::mt19937_64,
/// seeded once per thread from 64 bits of std::random_device): the
/// patterns' fresh ids (append ids, message ids).
KVMODEL_DECL std::uint64_t random_bits();

} // namespace detail

/// Whether a step only reads (its success changes nothing) or writes (its
/// success means the call has applied something).
enum class step_kind : std::uint8_t { read, write };

/// The attempts of one caller-level call, across its steps (an append: the
/// claim, then the bucket write). Not thread-safe: one per call.
class retry_scope {
public:
    /// A call retried under p (which must outlive the scope), each step up to
    /// max_attempts times (0 counts as 1).
    retry_scope(const retry_policy& p, std::uint32_t max_attempts)
        : m_policy(&p)
        , m_max_attempts(max_attempts < 1 ? 1 : max_attempts) {}

    /// Calls attempt() (returning a result<T>) until it succeeds, fails with
    /// a status that is not transient, or the attempts or the time budget run
    /// out, pausing between attempts. A failure is returned with in_doubt set
    /// when this or any earlier attempt of the call may have been applied.
    template <class F>
    std::invoke_result_t<F&> run(step_kind kind, F&& attempt) {
        using r = std::invoke_result_t<F&>;
        for (std::uint32_t n = 1;; ++n) {
            const std::int64_t before = now();
            r got = attempt();
            m_spent += now() - before;
            ++m_sent;
            if (got) {
                if (kind == step_kind::write) m_applied = true;
                return got;
            }
            m_doubt = m_doubt || got.error().in_doubt;
            if (!is_transient(got.error().code) || n >= m_max_attempts) return r(failure{fail(got.error())});
            const std::chrono::milliseconds pause = jittered(backoff_before(*m_policy, n));
            if (m_policy->total_timeout.count() > 0 && m_spent + pause.count() > m_policy->total_timeout.count())
                return r(failure{fail(got.error())});
            if (pause.count() > 0) pause_for(pause);
        }
    }

    /// e as this call returns it: in doubt when any attempt of the call may
    /// have been applied or a write step succeeded before e.
    KVMODEL_DECL error fail(error e) const;

    /// Whether an error of the call from now on is in doubt.
    bool in_doubt() const noexcept { return m_doubt || m_applied; }
    /// Attempts sent so far, over every step.
    std::uint32_t attempts() const noexcept { return m_sent; }
    /// Milliseconds spent so far: pauses and attempts (see the header comment).
    std::int64_t spent_ms() const noexcept { return m_spent; }

private:
    KVMODEL_DECL std::int64_t now() const;
    KVMODEL_DECL std::chrono::milliseconds jittered(std::chrono::milliseconds b) const;
    // The policy's sleep hook, else this thread sleeps; the pause counts as
    // time spent.
    KVMODEL_DECL void pause_for(std::chrono::milliseconds pause);

    const retry_policy* m_policy;
    std::uint32_t m_max_attempts;
    std::int64_t m_spent = 0;
    std::uint32_t m_sent = 0;
    bool m_doubt = false;
    bool m_applied = false;
};

/// One step retried on its own (a call of one command): see retry_scope::run.
template <class F>
std::invoke_result_t<F&> retry(const retry_policy& p, std::uint32_t max_attempts, step_kind kind, F&& attempt) {
    retry_scope scope(p, max_attempts);
    return scope.run(kind, std::forward<F>(attempt));
}

} // namespace kvmodel::kv

#if KVMODEL_DEFINITIONS
#    include <limits>
#    include <random>
#    include <thread>

namespace kvmodel::kv {

KVMODEL_DECL std::chrono::milliseconds backoff_before(const retry_policy& p, std::uint32_t attempt) {
    double b = static_cast<double>(p.initial_backoff.count());
    const auto cap = static_cast<double>(p.max_backoff.count());
    // std::max(multiplier, 1.0) and std::min(b, cap), NaN included, written
    // out: one function less each in every header-only file.
    const double factor = p.multiplier < 1.0 ? 1.0 : p.multiplier;
    for (std::uint32_t i = 1; i < attempt && b < cap; ++i)
        b *= factor;
    return std::chrono::milliseconds(static_cast<std::int64_t>(cap < b ? cap : b));
}

KVMODEL_DECL error after_applied(error e) {
    if (!e.in_doubt) {
        e.in_doubt = true;
        e.message += " (in doubt: an earlier step of the call was applied)";
    }
    return e;
}

KVMODEL_DECL std::uint64_t detail::random_bits() {
    thread_local std::mt19937_64 rng{[] {
        std::random_device rd;
        return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    }()};
    return rng();
}

KVMODEL_DECL error retry_scope::fail(error e) const {
    if (m_applied) e = after_applied(std::move(e));
    if (!e.in_doubt && m_doubt) {
        e.in_doubt = true;
        e.message += " (in doubt: an earlier attempt may have been applied)";
    }
    if (m_sent > 1) {
        e.message += " [";
        e.message += std::to_string(m_sent);
        e.message += " attempts, ";
        e.message += std::to_string(m_spent);
        e.message += " ms]";
    }
    return e;
}

KVMODEL_DECL std::int64_t retry_scope::now() const {
    if (m_policy->clock) return m_policy->clock();
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

KVMODEL_DECL std::chrono::milliseconds retry_scope::jittered(std::chrono::milliseconds b) const {
    // std::clamp(jitter, 0.0, 1.0), NaN included, and the draw
    // uniform_real_distribution<double>(0.0, 1.0) makes (generate_canonical
    // scaled by 1 - 0, plus 0), without the distribution's functions.
    const double jitter = m_policy->jitter;
    const double j = jitter < 0.0 ? 0.0 : 1.0 < jitter ? 1.0 : jitter;
    if (j == 0.0 || b.count() == 0) return b;
    thread_local std::mt19937_64 rng{std::random_device{}()};
    const double u = std::generate_canonical<double, std::numeric_limits<double>::digits>(rng);
    return std::chrono::milliseconds(static_cast<std::int64_t>(static_cast<double>(b.count()) * (1.0 - j * u)));
}

KVMODEL_DECL void retry_scope::pause_for(std::chrono::milliseconds pause) {
    if (m_policy->sleep) m_policy->sleep(pause);
    else std::this_thread::sleep_for(pause);
    m_spent += pause.count();
}

} // namespace kvmodel::kv

#endif // KVMODEL_DEFINITIONS
