// Tests for kvmodel/sim/detail/pending_writes.hpp: Aerospike's
// transaction-pending-limit rule (a write fails KEY_BUSY when the record's wait
// queue is deeper than the limit: one in progress plus limit + 1 waiting are
// admitted), in simulated time.
#include <kvmodel/sim/detail/pending_writes.hpp>

#include <catch2/catch.hpp>

#include <cstdint>

namespace sim_pending_writes_test {

using kvmodel::kv::digest;
using kvmodel::sim::detail::default_transaction_pending_limit;
using kvmodel::sim::detail::pending_writes;

namespace {
digest make_digest(std::uint8_t tag) {
    digest d{};
    d[0] = tag;
    d[19] = static_cast<std::uint8_t>(tag * 7);
    return d;
}
} // namespace

TEST_CASE("pending writes: limit + 2 writes pending at once, then KEY_BUSY", "[sim][pending_writes]") {
    pending_writes pw;
    const digest d = make_digest(1);
    const std::uint32_t limit = default_transaction_pending_limit;
    CHECK(limit == 20);
    // All arriving at t = 0, each taking 100 us: 1 served + 21 queued.
    for (std::uint32_t i = 0; i < limit + 2; ++i) CHECK(pw.admit(d, 0, 100, limit));
    CHECK(pw.pending(d, 0) == limit + 2);
    CHECK_FALSE(pw.admit(d, 0, 100, limit));
    CHECK_FALSE(pw.admit(d, 99, 100, limit));
    // A refused write leaves no trace.
    CHECK(pw.pending(d, 0) == limit + 2);
    // At t = 100 the first completed: one more fits.
    CHECK(pw.admit(d, 100, 100, limit));
    CHECK_FALSE(pw.admit(d, 100, 100, limit));
    // Once everything completed (22 + 1 writes of 100 us from t = 0), the key is idle.
    CHECK(pw.pending(d, 2300) == 0);
    CHECK(pw.admit(d, 2300, 100, limit));
    CHECK(pw.pending(d, 2300) == 1);
}

TEST_CASE("pending writes: small limits, and 0 disables the check", "[sim][pending_writes]") {
    pending_writes pw;
    const digest d = make_digest(2);
    CHECK(pw.admit(d, 0, 1000, 1));
    CHECK(pw.admit(d, 0, 1000, 1));
    CHECK(pw.admit(d, 0, 1000, 1)); // 1 in progress + 2 waiting (depth 1 is not > 1)
    CHECK_FALSE(pw.admit(d, 0, 1000, 1));
    pending_writes off;
    for (int i = 0; i < 10000; ++i) CHECK(off.admit(d, 0, 1000, 0));
    CHECK(off.tracked() == 0);
}

TEST_CASE("pending writes: zero service time never queues", "[sim][pending_writes]") {
    pending_writes pw;
    const digest d = make_digest(3);
    for (int i = 0; i < 1000; ++i) CHECK(pw.admit(d, 0, 0, 20));
    CHECK(pw.tracked() == 0);
}

TEST_CASE("pending writes: the limit bites only when writes arrive faster than service",
          "[sim][pending_writes]") {
    const digest d = make_digest(4);
    SECTION("slower than the service time: never busy") {
        pending_writes pw;
        for (std::int64_t t = 0; t < 1000000; t += 150) CHECK(pw.admit(d, t, 100, 20));
        CHECK(pw.pending(d, 1000000) == 0);
    }
    SECTION("twice as fast: the queue grows by one per 200 us until it refuses") {
        pending_writes pw;
        std::int64_t first_busy = -1;
        int refused = 0;
        for (std::int64_t t = 0; t < 100000; t += 50) {
            if (!pw.admit(d, t, 100, 20)) {
                if (first_busy < 0) first_busy = t;
                ++refused;
            }
        }
        // Pending grows by one every 100 us (two arrivals, one completion): 22
        // pending after about 2.2 ms.
        CHECK(first_busy >= 2000);
        CHECK(first_busy <= 2300);
        // From then on half the writes are refused: throughput is one per service time.
        CHECK(refused > 900);
        CHECK(refused < 1000);
    }
}

TEST_CASE("pending writes: records are independent; finished queues are swept",
          "[sim][pending_writes]") {
    pending_writes pw;
    for (std::uint8_t k = 0; k < 200; ++k)
        for (int i = 0; i < 22; ++i) CHECK(pw.admit(make_digest(k), 0, 10, 20));
    CHECK_FALSE(pw.admit(make_digest(5), 0, 10, 20));
    CHECK(pw.admit(make_digest(250), 0, 10, 20));
    CHECK(pw.tracked() == 201);
    // Enough admissions later, long after everything completed, the sweep
    // forgets every finished queue.
    for (int i = 0; i < 2048; ++i) CHECK(pw.admit(make_digest(251), 1000000 + i * 100, 10, 20));
    CHECK(pw.tracked() <= 1);
}

} // namespace sim_pending_writes_test
