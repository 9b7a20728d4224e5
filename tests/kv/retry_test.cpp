// Tests for kvmodel/kv/retry.hpp: the patterns' one retry loop — which
// statuses it retries, in doubt that sticks across attempts and steps, and
// backoff with jitter within the total time budget, all timed by hooks (no
// real sleep).
#include <kvmodel/kv/retry.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <vector>

namespace kv_retry_test {

using namespace kvmodel;
using std::chrono::milliseconds;

// A policy timed by a fake clock that only the pauses move; the pauses taken
// are recorded.
struct fake_time {
    std::int64_t now = 1000;
    std::vector<std::int64_t> pauses;
    kv::retry_policy policy(kv::retry_policy p = {}) {
        p.clock = [this] { return now; };
        p.sleep = [this](milliseconds d) {
            pauses.push_back(d.count());
            now += d.count();
        };
        return p;
    }
};

error refused() { return error{status::connection, "operate: connection refused"}; }
error lost() {
    error e{status::connection, "operate: connection dropped before the answer"};
    e.in_doubt = true;
    return e;
}

TEST_CASE("an attempt in doubt keeps the call in doubt after refused retries", "[kv][retry]") {
    // What a real cluster does when a node dies under a write (issue 33):
    // applied, answer lost; then the dead node refuses every retry.
    fake_time t;
    const kv::retry_policy p = t.policy();
    int calls = 0;
    result<int> r = kv::retry(p, 8, kv::step_kind::write, [&]() -> result<int> {
        ++calls;
        return calls == 1 ? lost() : refused();
    });
    REQUIRE_FALSE(r);
    CHECK(calls == 8);
    CHECK(r.error().code == status::connection);
    CHECK(r.error().in_doubt);
    CHECK(r.error().message.find("connection refused") != std::string::npos);
    CHECK(r.error().message.find("in doubt: an earlier attempt may have been applied") != std::string::npos);
    CHECK(r.error().message.find("[8 attempts") != std::string::npos);
}

TEST_CASE("refused attempts alone are not in doubt", "[kv][retry]") {
    fake_time t;
    const kv::retry_policy p = t.policy();
    result<int> r = kv::retry(p, 3, kv::step_kind::write, [&]() -> result<int> { return refused(); });
    REQUIRE_FALSE(r);
    CHECK_FALSE(r.error().in_doubt);
}

TEST_CASE("a definite error ends the loop at once", "[kv][retry]") {
    fake_time t;
    const kv::retry_policy p = t.policy();
    int calls = 0;
    result<int> r = kv::retry(p, 8, kv::step_kind::write, [&]() -> result<int> {
        ++calls;
        return error{status::record_too_big, "operate: too big"};
    });
    REQUIRE_FALSE(r);
    CHECK(calls == 1);
    CHECK(t.pauses.empty());
    CHECK(r.error() == error{status::record_too_big, "operate: too big"});
}

TEST_CASE("every transient status is retried, success ends the loop", "[kv][retry]") {
    for (status s : {status::timeout,
                     status::partition_unavailable,
                     status::key_busy,
                     status::device_overload,
                     status::connection,
                     status::invalid_node,
                     status::no_more_connections,
                     status::max_error_rate,
                     status::max_retries_exceeded,
                     status::no_response}) {
        INFO(status_name(s));
        fake_time t;
        const kv::retry_policy p = t.policy();
        int calls = 0;
        result<int> r = kv::retry(p, 8, kv::step_kind::write, [&]() -> result<int> {
            if (++calls < 3) return error{s, "x"};
            return 7;
        });
        REQUIRE(r);
        CHECK(*r == 7);
        CHECK(calls == 3);
        CHECK(t.pauses.size() == 2);
    }
}

TEST_CASE("pauses grow exponentially with jitter up to max_backoff", "[kv][retry]") {
    fake_time t;
    kv::retry_policy base;
    base.initial_backoff = milliseconds(10);
    base.max_backoff = milliseconds(100);
    base.multiplier = 2.0;
    base.jitter = 0.5;
    base.total_timeout = milliseconds(0);
    const kv::retry_policy p = t.policy(base);
    result<int> r = kv::retry(p, 7, kv::step_kind::read, [&]() -> result<int> { return refused(); });
    REQUIRE_FALSE(r);
    const std::vector<std::int64_t> ceil = {10, 20, 40, 80, 100, 100};
    REQUIRE(t.pauses.size() == ceil.size());
    for (std::size_t i = 0; i < ceil.size(); ++i) {
        INFO("pause " << i);
        CHECK(kv::backoff_before(p, static_cast<std::uint32_t>(i + 1)).count() == ceil[i]);
        CHECK(t.pauses[i] <= ceil[i]);
        CHECK(t.pauses[i] >= ceil[i] / 2);
    }
    // Without jitter the pauses are the ceilings.
    fake_time exact;
    base.jitter = 0.0;
    const kv::retry_policy q = exact.policy(base);
    (void)kv::retry(q, 7, kv::step_kind::read, [&]() -> result<int> { return refused(); });
    CHECK(exact.pauses == ceil);
}

TEST_CASE("the total timeout bounds attempts and pauses", "[kv][retry]") {
    fake_time t;
    kv::retry_policy base;
    base.initial_backoff = milliseconds(100);
    base.max_backoff = milliseconds(1000);
    base.jitter = 0.0;
    base.total_timeout = milliseconds(1000);
    const kv::retry_policy p = t.policy(base);
    int calls = 0;
    const std::int64_t start = t.now;
    result<int> r = kv::retry(p, 100, kv::step_kind::write, [&]() -> result<int> {
        ++calls;
        t.now += 50; // each attempt takes 50 ms
        return error{status::timeout, "operate: timeout"};
    });
    REQUIRE_FALSE(r);
    // 50 +100 +50 +200 +50 +400 +50 = 900; the next pause (800) would pass 1000.
    CHECK(calls == 4);
    CHECK(t.pauses == std::vector<std::int64_t>{100, 200, 400});
    CHECK(t.now - start <= 1000);
}

TEST_CASE("the budget counts the scope's own time, not other threads' pauses", "[kv][retry]") {
    // On a shared simulated clock other writers' pauses move the time too
    // (here 2 s during each of ours); they must not eat this call's budget.
    std::int64_t now = 0;
    kv::retry_policy p;
    p.initial_backoff = milliseconds(10);
    p.jitter = 0.0;
    p.total_timeout = milliseconds(1000);
    p.clock = [&] { return now; };
    p.sleep = [&](milliseconds d) { now += d.count() + 2000; };
    kv::retry_scope call(p, 5);
    int calls = 0;
    result<int> r = call.run(kv::step_kind::write, [&]() -> result<int> {
        if (++calls < 5) return refused();
        return 1;
    });
    REQUIRE(r);
    CHECK(calls == 5);
    CHECK(call.spent_ms() == 10 + 20 + 40 + 80);
    CHECK(now == 150 + 4 * 2000);
}

TEST_CASE("a call whose write step succeeded is in doubt when a later step fails", "[kv][retry]") {
    fake_time t;
    const kv::retry_policy p = t.policy();
    kv::retry_scope call(p, 2);
    result<int> read = call.run(kv::step_kind::read, [] { return result<int>(1); });
    REQUIRE(read);
    CHECK_FALSE(call.in_doubt()); // a read applies nothing
    result<int> claim = call.run(kv::step_kind::write, [] { return result<int>(2); });
    REQUIRE(claim);
    CHECK(call.in_doubt());
    result<int> write = call.run(kv::step_kind::write, [] { return result<int>(refused()); });
    REQUIRE_FALSE(write);
    CHECK(write.error().in_doubt);
    CHECK(write.error().message.find("an earlier step of the call was applied") != std::string::npos);
    CHECK(call.attempts() == 4);
    CHECK(call.spent_ms() == t.pauses[0]);
    // The same for an error the call makes itself.
    CHECK(call.fail(error{status::parameter_error, "bad"}).in_doubt);
    CHECK(kv::after_applied(refused()).in_doubt);
}

TEST_CASE("kv::is_transient is the retry set", "[kv][retry]") {
    CHECK(kv::is_transient(status::max_error_rate));
    CHECK(kv::is_transient(status::invalid_node));
    CHECK(kv::is_transient(status::no_more_connections));
    CHECK_FALSE(kv::is_transient(status::tls_error));
    CHECK_FALSE(kv::is_transient(status::client));
    CHECK_FALSE(kv::is_transient(status::client_param));
    CHECK_FALSE(kv::is_transient(status::generation_error));
}

} // namespace kv_retry_test
