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
// Cost: now_ms() is one virtual call and one relaxed atomic load (manual) or
// one clock read (system).
#pragma once

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

} // namespace kvmodel::sim
