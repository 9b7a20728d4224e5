// Tests for kvmodel/sim/clock.hpp.
#include <kvmodel/sim/clock.hpp>

#include <catch2/catch.hpp>

#include <chrono>

namespace sim_clock_test {

using namespace kvmodel;
using namespace std::chrono_literals;

TEST_CASE("manual clock moves only when told", "[sim][clock]") {
    sim::manual_clock c;
    CHECK(c.now_ms() == sim::default_start_ms);
    CHECK(c.now_s() == sim::default_start_ms / 1000);
    c.advance(1500ms);
    CHECK(c.now_ms() == sim::default_start_ms + 1500);
    CHECK(c.now_s() == sim::default_start_ms / 1000 + 1);
    c.set(42);
    CHECK(c.now_ms() == 42);
    c.advance(-2ms);
    CHECK(c.now_ms() == 40);
    sim::manual_clock d(7000);
    CHECK(d.now_s() == 7);
}

TEST_CASE("system clock reads the wall clock", "[sim][clock]") {
    sim::system_clock c;
    const auto wall = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
    CHECK(c.now_ms() >= wall - 1000);
    CHECK(c.now_ms() <= wall + 60000);
    const sim::clock& base = c;
    CHECK(base.now_s() >= wall / 1000 - 1);
}

} // namespace sim_clock_test
