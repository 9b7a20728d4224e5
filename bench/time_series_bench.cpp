// Time-bucketed map costs on the simulated cluster, beside the bucketed list
// with hour buckets doing the same work (one reading per call, a reading
// every second), as the cluster's counters per call:
//
//   BM_time_series_write            rt_per_op (1: one operate, no head),
//                                   bytes_written_per_op
//   BM_bucketed_list_append_hour    the same readings through bucketed_list
//                                   (by_time, hour): head + bucket
//   BM_time_series_range_hour       a one-hour window: rt_per_op (one batch;
//                                   the sim counts one round trip per node)
//   BM_time_series_downsample_day   24 hourly count/min/max: ONE batch, rt_per_op
//                                   = the nodes it touches (3; 24 before, when
//                                   it was one operate per period)
#include <kvmodel/patterns/bucketed_list.hpp>
#include <kvmodel/patterns/time_series.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>

namespace {

using namespace kvmodel;

constexpr std::int64_t t0 = 1'699'999'200'000; // an hour's start

struct fixture {
    std::shared_ptr<sim::manual_clock> clock = std::make_shared<sim::manual_clock>(t0);
    std::unique_ptr<sim::cluster> cluster;
    fixture() {
        sim::cluster_config cfg;
        cfg.time_source = clock;
        cluster = std::make_unique<sim::cluster>(cfg);
    }
    sim::counters totals() const { return cluster->stats().namespaces[0].totals; }
};

void set_counters(benchmark::State& st, const sim::counters& c) {
    const auto ops = static_cast<double>(st.iterations());
    st.counters["rt_per_op"] = static_cast<double>(c.round_trips) / ops;
    st.counters["bytes_written_per_op"] = static_cast<double>(c.bytes_written) / ops;
    st.counters["bytes_read_per_op"] = static_cast<double>(c.bytes_read) / ops;
}

void BM_time_series_write(benchmark::State& st) {
    fixture f;
    patterns::time_series<sim::cluster, double> s(*f.cluster);
    std::int64_t i = 0;
    for (auto _ : st) {
        const std::int64_t ts = t0 + (i++ % 86400) * 1000;
        f.clock->set(ts);
        if (auto r = s.write("sensor", ts, 20.5); !r) {
            st.SkipWithError(r.error().message.c_str());
            break;
        }
    }
    set_counters(st, f.totals());
}

void BM_bucketed_list_append_hour(benchmark::State& st) {
    fixture f;
    patterns::bucketed_list<sim::cluster, double> l(
        *f.cluster, {.policy = patterns::bucket_policy::by_time, .size = 1000,
                     .period = patterns::time_period::hour});
    std::int64_t i = 0;
    for (auto _ : st) {
        const std::int64_t ts = t0 + (i++ % 86400) * 1000;
        f.clock->set(ts);
        if (auto r = l.append("sensor", 20.5, ts); !r) {
            st.SkipWithError(r.error().message.c_str());
            break;
        }
    }
    set_counters(st, f.totals());
}

template <int What>
void BM_time_series_read(benchmark::State& st) {
    fixture f;
    patterns::time_series<sim::cluster, double> s(*f.cluster);
    for (std::int64_t i = 0; i < 86400; i += 10) s.write("sensor", t0 + i * 1000, 20.0 + static_cast<double>(i % 7)).value();
    f.cluster->reset_stats();
    std::size_t got = 0;
    for (auto _ : st) {
        if constexpr (What == 0) got += s.range("sensor", t0 + 3'600'000, t0 + 7'200'000).value().size();
        else got += s.downsample("sensor", t0, t0 + 86'400'000).value().size();
    }
    benchmark::DoNotOptimize(got);
    set_counters(st, f.totals());
}

void BM_time_series_range_hour(benchmark::State& st) { BM_time_series_read<0>(st); }
void BM_time_series_downsample_day(benchmark::State& st) { BM_time_series_read<1>(st); }

} // namespace

BENCHMARK(BM_time_series_write)->Iterations(20000);
BENCHMARK(BM_bucketed_list_append_hour)->Iterations(20000);
BENCHMARK(BM_time_series_range_hour);
BENCHMARK(BM_time_series_downsample_day);
