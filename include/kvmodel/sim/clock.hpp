// kvmodel/sim/clock.hpp
//
// The simulated cluster's time source, injectable so TTL expiry and timed
// faults are testable without sleeping. Time is milliseconds since the Unix
// epoch; record void times are whole seconds, as on the server.
//
// * manual_clock — the default: starts at a fixed instant (2024-01-01
//   00:00:00 UTC) and moves only when told (set, advance). Thread-safe.
// * system_clock — the wall clock.
//
// retry_on(c) times a pattern's retries (kv::retry_policy) by c: a pause
// moves a manual clock forward instead of sleeping, so backoff and the total
// timeout are tested in no real time, and timed faults see the time pass.
//
// Cost: now_ms() is one virtual call and one relaxed atomic load (manual) or
// one clock read (system).
#pragma once

#include <kvmodel/kv/retry.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace kvmodel::sim {

/// Milliseconds since the Unix epoch.
using time_ms = std::int64_t;

/// 2024-01-01T00:00:00Z, where a manual_clock starts by default.
inline constexpr time_ms default_start_ms = 1704067200000;

/// A time source.
class clock {
public:
    clock() = default;
    clock(const clock&) = delete;
    clock& operator=(const clock&) = delete;
    clock(clock&&) = delete;
    clock& operator=(clock&&) = delete;
    virtual ~clock() = default;
    /// The current time. Thread-safe.
    virtual time_ms now_ms() const noexcept = 0;
    /// The current time in whole seconds (as void times count).
    std::int64_t now_s() const noexcept { return now_ms() / 1000; }
};

/// A clock that moves only when told: deterministic tests.
class manual_clock final : public clock {
public:
    /// A clock reading `start` until set or advanced.
    explicit manual_clock(time_ms start = default_start_ms) noexcept
        : m_now(start) {}
    time_ms now_ms() const noexcept override { return m_now.load(std::memory_order_relaxed); }
    /// Sets the time (it may go backwards; records then expire later).
    void set(time_ms t) noexcept { m_now.store(t, std::memory_order_relaxed); }
    /// Moves the time forward (or back, for a negative d).
    void advance(std::chrono::milliseconds d) noexcept {
        m_now.fetch_add(d.count(), std::memory_order_relaxed);
    }

private:
    std::atomic<time_ms> m_now;
};

/// The wall clock.
class system_clock final : public clock {
public:
    time_ms now_ms() const noexcept override {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    }
};

/// p timed by c: a pause advances c when c is a manual_clock (nothing
/// sleeps; timed faults see the time pass) and sleeps the thread otherwise.
/// The policy's budget counts its own pauses and its attempts' real time —
/// the simulator's attempts take none of its time, and other threads'
/// pauses, which move the shared clock too, are not this call's. c must
/// outlive the policy.
inline kv::retry_policy retry_on(clock& c, kv::retry_policy p = {}) {
    if (auto* m = dynamic_cast<manual_clock*>(&c)) p.sleep = [m](std::chrono::milliseconds d) { m->advance(d); };
    return p;
}

} // namespace kvmodel::sim
