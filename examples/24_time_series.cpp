// Time-bucketed map: an IoT sensor reporting every 5 minutes into hourly
// buckets `sensor:P` with 7-day retention. Shows a write costing one round
// trip, a 3-hour window read in one batch, newest-first pages with a cursor,
// hourly downsampling, and retention (by TTL on a manual clock, and by drop).
// Every number printed is also checked; a wrong one fails the example.
#include <kvmodel/patterns/time_series.hpp>
#include <kvmodel/sim/cluster.hpp>

#include "scenarios/example_main.hpp"

#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>

using namespace kvmodel;

int main() {
    auto clock = std::make_shared<sim::manual_clock>();
    sim::cluster_config cfg;
    cfg.time_source = clock;
    cfg.namespaces[0].nsup_period = 60; // retention is a TTL: TTL writes need nsup, as on a server
    sim::cluster db(cfg);
    examples::checker checker;
    auto check = [&checker](bool ok, const char* what) { checker.expect(ok, what); };
    auto round_trips = [&db] { return db.stats().find("test")->totals.round_trips; };

    constexpr std::int64_t hour = 3'600'000;
    constexpr std::int64_t t0 = 1'699'999'200'000; // 2023-11-14T22:00:00Z, an hour's start
    patterns::time_series<sim::cluster, double> temps(db, {.retention_s = 7 * 24 * 3600});

    db.reset_stats();
    for (int i = 0; i < 72; ++i) // six hours, a reading every 5 minutes
        temps.write("sensor-7", t0 + i * 300'000, 20.0 + i % 12 * 0.5).value();
    const double rt_per_write = static_cast<double>(round_trips()) / 72;
    std::cout << "72 writes: " << rt_per_write << " round trip per write\n";
    check(rt_per_write == 1.0, "one round trip per write");

    db.reset_stats();
    auto window = temps.range("sensor-7", t0 + hour, t0 + 4 * hour).value();
    std::cout << "3-hour window: " << window.size() << " readings in " << round_trips()
              << " round trips (one batch over 3 nodes)\n";
    check(window.size() == 36, "36 readings in three hours");
    check(round_trips() <= 3, "one batch");

    const std::int64_t now = t0 + 6 * hour;
    auto page = temps.newest("sensor-7", 5, t0, now).value();
    std::cout << "newest 5:";
    for (const auto& p : page.items) std::cout << " " << p.value;
    std::cout << "\n";
    check(page.items.size() == 5 && page.items.front().ts == t0 + 71 * 300'000, "newest first");
    auto next = temps.newest("sensor-7", 5, t0, *page.next).value();
    check(next.items.front().ts == t0 + 66 * 300'000, "the cursor continues the page");

    auto hourly = temps.downsample("sensor-7", t0, t0 + 6 * hour,
                                   patterns::aggregates::with_sum).value();
    for (const auto& h : hourly)
        std::cout << "hour " << (h.start - t0) / hour << ": n=" << h.count << " min=" << *h.min
                  << " max=" << *h.max << " mean=" << *h.sum / static_cast<double>(h.count) << "\n";
    check(hourly.size() == 6 && hourly[0].count == 12 && *hourly[0].min == 20.0 &&
              *hourly[0].max == 25.5,
          "hourly aggregates");

    auto dropped = temps.drop_older_than("sensor-7", t0 + 2 * hour, t0 - 24 * hour).value();
    std::cout << "drop before hour 2: " << dropped.periods_removed << " periods\n";
    check(dropped.periods_removed == 2, "two periods dropped");

    clock->advance(std::chrono::hours(24 * 7 + 2));
    auto left = temps.range("sensor-7", t0, t0 + 6 * hour).value();
    std::cout << "after 7 days and 2 hours: " << left.size() << " readings left\n";
    check(left.empty(), "TTL retention");
    return checker.failures == 0 ? 0 : 1;
}
