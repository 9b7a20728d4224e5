#include <kvmodel/patterns/time_series.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>

namespace patterns_time_series_test {

using namespace kvmodel;
using series = patterns::time_series<sim::cluster, std::int64_t>;
using point = series::point;

constexpr std::int64_t hour = 3'600'000;
constexpr std::int64_t t0 = 1'700'000'000'000 - 1'700'000'000'000 % hour; // an hour's start

std::uint64_t round_trips(const sim::cluster& db) { return db.stats().find("test")->totals.round_trips; }

std::vector<point> model_range(const std::map<std::int64_t, std::int64_t>& m, std::int64_t from,
                               std::int64_t to) {
    std::vector<point> out;
    for (auto it = m.lower_bound(from); it != m.end() && it->first < to; ++it)
        out.push_back({it->first, it->second});
    return out;
}

TEST_CASE("time series: write is one round trip, a window is one batch across periods",
          "[patterns][time_series]") {
    sim::cluster db;
    series s(db);
    db.reset_stats();
    for (int i = 0; i < 30; ++i) REQUIRE(s.write("dev-1", t0 + i * 600'000, i).value() >= 1);
    CHECK(round_trips(db) == 30);
    // 30 readings every 10 minutes: five periods, six per full hour.
    CHECK(s.write("dev-1", t0 + 5, 99).value() == 7);
    db.reset_stats();
    auto all = s.range("dev-1", t0 + 600'000, t0 + 4 * hour + 1).value();
    CHECK(round_trips(db) <= 3); // one batch: one round trip per node (3 nodes)
    REQUIRE(all.size() == 24);
    CHECK(all.front() == point{t0 + 600'000, 1});
    CHECK(all.back() == point{t0 + 4 * hour, 24});
    CHECK(std::is_sorted(all.begin(), all.end(),
                         [](const point& a, const point& b) { return a.ts < b.ts; }));
    CHECK(s.range("other", t0, t0 + hour).value().empty());
    CHECK(s.range("dev-1", t0, t0).value().empty());
}

TEST_CASE("time series: a retried write is idempotent, a rewrite replaces", "[patterns][time_series]") {
    sim::cluster db;
    series s(db);
    REQUIRE(db.add_fault(sim::fault::in_doubt().after(0)));
    auto first = s.write("dev", t0 + 1, 10);
    REQUIRE(!first);
    CHECK(first.error().in_doubt);
    db.clear_faults();
    CHECK(s.write("dev", t0 + 1, 10).value() == 1); // the retry: still one reading
    CHECK(s.write("dev", t0 + 1, 11).value() == 1);
    CHECK(s.range("dev", t0, t0 + hour).value() == std::vector<point>{{t0 + 1, 11}});
}

/// A downsample() summary against a naive reduction of the readings `in`.
void check_summary(const patterns::period_summary& p, const std::vector<point>& in,
                   patterns::aggregates what) {
    CHECK(p.count == in.size());
    if (in.empty()) {
        CHECK(!p.min);
        return;
    }
    std::int64_t lo = in.front().value, hi = lo, sum = 0;
    for (const auto& x : in) {
        lo = std::min(lo, x.value);
        hi = std::max(hi, x.value);
        sum += x.value;
    }
    CHECK(p.min == static_cast<double>(lo));
    CHECK(p.max == static_cast<double>(hi));
    if (what == patterns::aggregates::with_sum) CHECK(p.sum == static_cast<double>(sum));
    else CHECK(!p.sum);
}

TEST_CASE("time series: random writes under faults match a model in every read",
          "[patterns][time_series]") {
    sim::cluster db;
    series s(db, {.period_ms = hour / 4});
    std::mt19937_64 rng(Catch::rngSeed());
    std::map<std::int64_t, std::int64_t> model;
    REQUIRE(db.add_fault(sim::fault::timeout().with_probability(0.1).forever()));
    REQUIRE(db.add_fault(sim::fault::in_doubt().with_probability(0.1).forever()));
    const std::int64_t span = 6 * hour;
    for (int i = 0; i < 600; ++i) {
        const auto ts = t0 + static_cast<std::int64_t>(rng() % span);
        const auto v = static_cast<std::int64_t>(rng() % 1000) - 500;
        // The caller's retry loop: a write reported failed is sent again.
        for (;;) {
            auto r = s.write("dev", ts, v);
            if (r) break;
            REQUIRE(r.error().code == status::timeout);
        }
        model[ts] = v;
    }
    db.clear_faults();
    for (int q = 0; q < 50; ++q) {
        std::int64_t a = t0 - hour + static_cast<std::int64_t>(rng() % (span + 2 * hour));
        std::int64_t b = t0 - hour + static_cast<std::int64_t>(rng() % (span + 2 * hour));
        if (a > b) std::swap(a, b);
        CHECK(s.range("dev", a, b).value() == model_range(model, a, b));

        // Newest-first pages of 7 walk the window back to its start.
        std::vector<point> paged;
        std::optional<std::int64_t> before = b;
        while (before) {
            auto page = s.newest("dev", 7, a, *before).value();
            CHECK(page.items.size() <= 7);
            paged.insert(paged.end(), page.items.begin(), page.items.end());
            before = page.next;
        }
        auto want = model_range(model, a, b);
        std::reverse(want.begin(), want.end());
        CHECK(paged == want);

        // Downsampling against a naive reduction, both modes.
        for (auto what : {patterns::aggregates::count_min_max, patterns::aggregates::with_sum}) {
            auto sums = s.downsample("dev", a, b, what).value();
            if (a >= b) {
                CHECK(sums.empty());
                continue;
            }
            REQUIRE(sums.size() ==
                    static_cast<std::size_t>(s.period_of(b - 1) - s.period_of(a) + 1));
            for (const auto& p : sums) {
                const auto in = model_range(model, std::max(a, p.start),
                                            std::min(b, p.start + hour / 4));
                check_summary(p, in, what);
            }
            // Rolled up into hours (four periods) from the same batch.
            auto hours = s.downsample("dev", a, b, hour, what).value();
            std::size_t total = 0;
            for (const auto& h : hours) {
                CHECK(h.start % hour == 0);
                const auto in =
                    model_range(model, std::max(a, h.start), std::min(b, h.start + hour));
                check_summary(h, in, what);
                total += h.count;
            }
            CHECK(total == model_range(model, a, b).size());
        }
    }
}

TEST_CASE("time series: downsampling whole periods, server-side and client-side agree",
          "[patterns][time_series]") {
    sim::cluster db;
    patterns::time_series<sim::cluster, double> s(db);
    for (int i = 0; i < 600; ++i) s.write("dev", t0 + i * 12'000, 20.0 + i % 13).value();
    db.reset_stats();
    auto sums = s.downsample("dev", t0, t0 + 2 * hour).value();
    REQUIRE(sums.size() == 2);
    CHECK(sums[0] == patterns::period_summary{t0, 300, 20.0, 32.0, std::nullopt});
    CHECK(sums[1].count == 300);
    CHECK(round_trips(db) <= 2); // one batch: a round trip per node touched
    auto with_sum = s.downsample("dev", t0, t0 + 2 * hour, patterns::aggregates::with_sum).value();
    REQUIRE(with_sum.size() == 2);
    CHECK(with_sum[0].count == 300);
    CHECK(with_sum[0].min == 20.0);
    CHECK(with_sum[0].max == 32.0);
    double sum = 0;
    for (int i = 0; i < 300; ++i) sum += 20.0 + i % 13;
    CHECK(with_sum[0].sum == sum);
}

TEST_CASE("time series: two days of hourly periods rolled up in one batch",
          "[patterns][time_series]") {
    sim::cluster db; // 3 nodes: a batch is at most 3 round trips
    series s(db);
    for (int i = 0; i < 48 * 6; ++i) s.write("dev", t0 + i * 600'000, i % 50).value();
    db.reset_stats();
    static_assert(t0 % (2 * hour) == 0);
    auto steps = s.downsample("dev", t0, t0 + 48 * hour, 2 * hour, patterns::aggregates::with_sum)
                     .value();
    CHECK(round_trips(db) <= 3); // 48 periods, one batch (48 round trips one by one)
    REQUIRE(steps.size() == 24);
    CHECK(steps[0] == patterns::period_summary{t0, 12, 0.0, 11.0, 66.0});
    CHECK(steps[4] == patterns::period_summary{t0 + 8 * hour, 12, 0.0, 49.0, 48 + 49 + 45.0});
    db.reset_stats();
    auto d = s.drop_older_than("dev", t0 + 30 * hour + 1, t0).value();
    CHECK(round_trips(db) <= 3); // 30 removes and a trim, one batch
    CHECK(d.periods_removed == 30);
    CHECK(d.points_trimmed == 1);
    auto bad = s.downsample("dev", t0, t0 + hour, hour + 1, patterns::aggregates::count_min_max);
    REQUIRE(!bad);
    CHECK(bad.error().message ==
          "time_series::downsample: step_ms 3600001 is not a positive multiple of period_ms 3600000");
}

TEST_CASE("time series: retention by TTL and by drop", "[patterns][time_series]") {
    auto clock = std::make_shared<sim::manual_clock>();
    sim::cluster_config cfg;
    cfg.time_source = clock;
    cfg.namespaces[0].nsup_period = 60; // retention is a TTL: TTL writes need nsup, as on the server
    sim::cluster db(cfg);
    series s(db, {.retention_s = 7 * 24 * 3600});
    CHECK(s.options().where.write.ttl == 7 * 24 * 3600 + 3600);
    for (int h = 0; h < 5; ++h) s.write("dev", t0 + h * hour + 1, h).value();
    clock->advance(std::chrono::hours(24 * 7 + 1) - std::chrono::seconds(1));
    CHECK(s.range("dev", t0, t0 + 5 * hour).value().size() == 5);
    clock->advance(std::chrono::seconds(2));
    CHECK(s.range("dev", t0, t0 + 5 * hour).value().empty());

    series kept(db, {.where = {.set = "kept", .bin = "points"}});
    for (int h = 0; h < 5; ++h) {
        kept.write("dev", t0 + h * hour + 1, h).value();
        kept.write("dev", t0 + h * hour + 2, h).value();
    }
    auto d = kept.drop_older_than("dev", t0 + 3 * hour + 2, t0 - 24 * hour).value();
    CHECK(d.periods_removed == 3);
    CHECK(d.points_trimmed == 1);
    CHECK(kept.range("dev", t0 - hour, t0 + 5 * hour).value() ==
          std::vector<point>{{t0 + 3 * hour + 2, 3}, {t0 + 4 * hour + 1, 4}, {t0 + 4 * hour + 2, 4}});
}

TEST_CASE("time series: bad input is a clear error", "[patterns][time_series]") {
    sim::cluster db;
    series s(db, {.max_periods_per_read = 24});
    auto wide = s.range("dev", t0, t0 + 25 * hour);
    REQUIRE(!wide);
    CHECK(wide.error().code == status::parameter_error);
    CHECK(wide.error().message ==
          "time_series::range: the window spans 25 periods, more than max_periods_per_read (24)");
    CHECK(s.range("dev", t0, t0 + 24 * hour));
    CHECK(s.write("", t0, 1).error().code == status::parameter_error);
    CHECK(!s.newest("dev", 10, std::numeric_limits<std::int64_t>::min(), t0));
    CHECK(s.newest("dev", 10, t0 - 23 * hour, t0 + hour).value().items.empty());
    CHECK(s.period_of(-1) == -1);
    CHECK(s.period_of(0) == 0);

    patterns::time_series<sim::cluster, std::string> text(db);
    text.write("dev", t0, "x").value();
    auto wrong = series(db).range("dev", t0, t0 + 1);
    REQUIRE(!wrong);
    CHECK(wrong.error().code == status::parameter_error);
}

} // namespace patterns_time_series_test
