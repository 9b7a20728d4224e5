// Hot keys on sim::cluster: transaction-pending-limit (namespace setting,
// default 20; 0 disables). A write keeps its record busy for its simulated
// latency; writes arriving faster than that queue, and past the limit they
// fail KEY_BUSY (14), unapplied, counted in the stats.
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <memory>

namespace sim_hot_key_test {

using namespace kvmodel;

namespace {
struct fixture {
    std::shared_ptr<sim::manual_clock> clock = std::make_shared<sim::manual_clock>();
    sim::cluster db;
    explicit fixture(std::uint32_t limit = 20, std::chrono::microseconds latency = std::chrono::microseconds(100))
        : db(make_config(clock, limit, latency)) {}
    static sim::cluster_config make_config(std::shared_ptr<sim::manual_clock> c, std::uint32_t limit,
                                           std::chrono::microseconds latency) {
        sim::cluster_config cfg;
        cfg.time_source = std::move(c);
        cfg.base_latency = latency;
        cfg.namespaces[0].transaction_pending_limit = limit;
        return cfg;
    }
    result<kv::record> add(const kv::key& k) { return db.operate(k, {kv::op::add("n", value(1))}); }
    std::uint64_t key_busy() const { return db.stats().find("test")->totals.key_busy; }
};
kv::key K(int i) { return kv::key::make("test", "hot", value(i)).value(); }
} // namespace

TEST_CASE("hot key: writes faster than the service time end in KEY_BUSY", "[sim][hot_key]") {
    fixture f;
    // The clock stands still: every write arrives at once, each takes 100 us.
    for (int i = 0; i < 22; ++i) REQUIRE(f.add(K(1)).has_value()); // 1 served + 21 waiting
    auto busy = f.add(K(1));
    REQUIRE_FALSE(busy.has_value());
    CHECK(busy.error().code == status::key_busy);
    CHECK_FALSE(busy.error().in_doubt); // refused before it was applied
    CHECK(busy.error().message.find("transaction-pending-limit") != std::string::npos);
    CHECK(f.key_busy() == 1);
    CHECK(f.db.get(K(1)).value().get("n")->as_int() == 22);
    // Reads never wait behind writes; other records are independent.
    CHECK(f.db.get(K(1)).has_value());
    CHECK(f.add(K(2)).has_value());
    // 1 ms later ten 100 us writes completed: ten more fit, the eleventh does not.
    f.clock->advance(std::chrono::milliseconds(1));
    for (int i = 0; i < 10; ++i) CHECK(f.add(K(1)).has_value());
    CHECK(f.add(K(1)).code() == status::key_busy);
    CHECK(f.key_busy() == 2);
    // Once the queue drained the key is free again.
    f.clock->advance(std::chrono::milliseconds(10));
    CHECK(f.add(K(1)).has_value());
}

TEST_CASE("hot key: a limit of 0 disables the check; no latency, no waiting", "[sim][hot_key]") {
    fixture off(0);
    for (int i = 0; i < 500; ++i) REQUIRE(off.add(K(1)).has_value());
    CHECK(off.key_busy() == 0);
    fixture instant(20, std::chrono::microseconds(0));
    for (int i = 0; i < 500; ++i) REQUIRE(instant.add(K(1)).has_value());
    CHECK(instant.key_busy() == 0);
    // The default configuration (no latency) never reports KEY_BUSY.
    sim::cluster plain;
    for (int i = 0; i < 500; ++i) REQUIRE(plain.operate(K(1), {kv::op::add("n", value(1))}).has_value());
    CHECK(plain.stats().find("test")->totals.key_busy == 0);
}

TEST_CASE("hot key: a small limit", "[sim][hot_key]") {
    fixture f(1);
    CHECK(f.add(K(7)).has_value());
    CHECK(f.add(K(7)).has_value());
    CHECK(f.add(K(7)).has_value());
    CHECK(f.add(K(7)).code() == status::key_busy);
}

} // namespace sim_hot_key_test
