// Bucketed-list costs on the simulated cluster: wall time per operation AND
// the cluster's counters as user counters (what the same work costs a real
// cluster).
//
//   BM_bucket_append/<policy>/<element bytes>   append cost per policy:
//       rt_per_op, bytes_written_per_op (write amplification: the whole bucket
//       is rewritten), records_per_owner, largest_vs_limit, partitions
//   BM_bucket_read_newest50 / _read_day / _read_all /<policy>/<element bytes>
//       rt_per_op, bytes_read_per_op
//   BM_bucket_append_at_size/<n>        append to an owner already holding n
//                                       elements (O(1) amortised: flat in n)
//   BM_bucket_newest_page_at_size/<n>   newest page of 50 at total size n
//   BM_bucket_append_per_period/<k>     hourly time buckets, k appends per
//                                       hour: what indexing a period costs
//
// Policies: 0..3 count 10/100/1k/10k, 4..8 bytes 16K/64K/256K/512K/1M-64K,
// 9 time (day), 10 time (hour).
#include <kvmodel/patterns/bucketed_list.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <benchmark/benchmark.h>

#include <memory>
#include <stdexcept>
#include <set>
#include <string>

using namespace kvmodel;
using patterns::bucket_policy;

namespace {

patterns::bucket_scheme scheme_of(std::int64_t i) {
    switch (i) {
    case 0: return {bucket_policy::by_count, 10};
    case 1: return {bucket_policy::by_count, 100};
    case 2: return {bucket_policy::by_count, 1000};
    case 3: return {bucket_policy::by_count, 10000};
    case 4: return {bucket_policy::by_bytes, 16 << 10};
    case 5: return {bucket_policy::by_bytes, 64 << 10};
    case 6: return {bucket_policy::by_bytes, 256 << 10};
    case 7: return {bucket_policy::by_bytes, 512 << 10};
    case 8: return {bucket_policy::by_bytes, (1 << 20) - (64 << 10)};
    case 9: return {bucket_policy::by_time, 1000000, patterns::time_period::day};
    default: return {bucket_policy::by_time, 1000000, patterns::time_period::hour};
    }
}

struct fixture {
    std::shared_ptr<sim::manual_clock> clock = std::make_shared<sim::manual_clock>();
    std::unique_ptr<sim::cluster> cluster;
    std::unique_ptr<patterns::bucketed_list<sim::cluster, std::string>> list;
    std::int64_t t0 = 0;

    explicit fixture(patterns::bucket_scheme s) {
        sim::cluster_config cfg;
        cfg.time_source = clock;
        cluster = std::make_unique<sim::cluster>(cfg);
        patterns::bucketed_location where;
        where.clock = [c = clock] { return c->now_ms(); };
        list = std::make_unique<patterns::bucketed_list<sim::cluster, std::string>>(*cluster, s, where);
        t0 = clock->now_ms();
    }
    // n elements of `bytes` over one day (time policies: spread over the day).
    void fill(std::size_t n, std::size_t bytes, const std::string& owner = "owner") {
        std::string item(bytes, 'x');
        for (std::size_t i = 0; i < n; ++i) {
            std::int64_t ts = t0 + static_cast<std::int64_t>(i) * (86400000 / static_cast<std::int64_t>(std::max<std::size_t>(n, 1)));
            clock->set(ts);
            auto r = list->append(owner, item, ts);
            if (!r) throw std::runtime_error("fill: " + r.error().message);
        }
    }
    sim::counters totals() const { return cluster->stats().namespaces[0].totals; }
};

void set_counters(benchmark::State& st, const sim::counters& c, double ops) {
    st.counters["rt_per_op"] = static_cast<double>(c.round_trips) / ops;
    st.counters["bytes_written_per_op"] = static_cast<double>(c.bytes_written) / ops;
    st.counters["bytes_read_per_op"] = static_cast<double>(c.bytes_read) / ops;
    st.counters["largest_vs_limit"] = static_cast<double>(c.largest_record) / static_cast<double>(kv::default_max_record_size);
}

void BM_bucket_append(benchmark::State& st) {
    fixture f(scheme_of(st.range(0)));
    std::string item(static_cast<std::size_t>(st.range(1)), 'x');
    std::int64_t i = 0;
    f.cluster->reset_stats();
    for (auto _ : st) {
        std::int64_t ts = f.t0 + (i++ % 86400) * 1000;
        f.clock->set(ts);
        auto r = f.list->append("owner", item, ts);
        if (!r) {
            st.SkipWithError(r.error().message.c_str());
            break;
        }
    }
    auto c = f.totals();
    set_counters(st, c, static_cast<double>(st.iterations()));
    auto s = f.cluster->stats();
    st.counters["records_per_owner"] = static_cast<double>(s.namespaces[0].records);
    std::set<std::uint32_t> parts;
    for (const auto& p : s.namespaces[0].partitions)
        if (p.records > 0) parts.insert(p.id);
    st.counters["partitions"] = static_cast<double>(parts.size());
}

template <int What>
void BM_bucket_read(benchmark::State& st) {
    fixture f(scheme_of(st.range(0)));
    try {
        f.fill(2000, static_cast<std::size_t>(st.range(1)));
    } catch (const std::exception& e) {
        st.SkipWithError(e.what());
        return;
    }
    f.cluster->reset_stats();
    std::size_t got = 0;
    for (auto _ : st) {
        if constexpr (What == 0) got += f.list->newest("owner", 50).value().items.size();
        else if constexpr (What == 1) got += f.list->read_time("owner", f.t0, f.t0 + 86400000).value().size();
        else got += f.list->read_all("owner").value().size();
    }
    benchmark::DoNotOptimize(got);
    set_counters(st, f.totals(), static_cast<double>(st.iterations()));
}
void BM_bucket_read_newest50(benchmark::State& st) { BM_bucket_read<0>(st); }
void BM_bucket_read_day(benchmark::State& st) { BM_bucket_read<1>(st); }
void BM_bucket_read_all(benchmark::State& st) { BM_bucket_read<2>(st); }

void policy_args(benchmark::internal::Benchmark* b) {
    for (std::int64_t p = 0; p <= 10; ++p)
        for (std::int64_t bytes : {64, 512, 4096}) b->Args({p, bytes});
}

void BM_bucket_append_at_size(benchmark::State& st) {
    fixture f({bucket_policy::by_count, 100});
    f.fill(static_cast<std::size_t>(st.range(0)), 100);
    std::string item(100, 'y');
    f.cluster->reset_stats();
    for (auto _ : st) {
        if (!f.list->append("owner", item, f.t0)) st.SkipWithError("append failed");
    }
    set_counters(st, f.totals(), static_cast<double>(st.iterations()));
    st.SetItemsProcessed(st.iterations());
}

void BM_bucket_newest_page_at_size(benchmark::State& st) {
    fixture f({bucket_policy::by_count, 100});
    f.fill(static_cast<std::size_t>(st.range(0)), 100);
    f.cluster->reset_stats();
    std::size_t got = 0;
    for (auto _ : st) got += f.list->newest("owner", 50).value().items.size();
    benchmark::DoNotOptimize(got);
    set_counters(st, f.totals(), static_cast<double>(st.iterations()));
}

void BM_bucket_append_per_period(benchmark::State& st) {
    fixture f({bucket_policy::by_time, 100, patterns::time_period::hour});
    const std::int64_t step = 3600000 / st.range(0);
    std::string item(100, 'x');
    std::int64_t i = 0;
    f.cluster->reset_stats();
    for (auto _ : st) {
        std::int64_t ts = f.t0 + i++ * step; // a new hour every k appends
        f.clock->set(ts);
        if (!f.list->append("owner", item, ts)) st.SkipWithError("append failed");
    }
    set_counters(st, f.totals(), static_cast<double>(st.iterations()));
}

} // namespace

BENCHMARK(BM_bucket_append)->Apply(policy_args)->Iterations(2000);
BENCHMARK(BM_bucket_read_newest50)->Apply(policy_args);
BENCHMARK(BM_bucket_read_day)->Apply(policy_args);
BENCHMARK(BM_bucket_read_all)->Apply(policy_args);
BENCHMARK(BM_bucket_append_at_size)->Arg(10000)->Arg(100000)->Arg(1000000)->Iterations(20000);
BENCHMARK(BM_bucket_append_per_period)->Arg(1)->Arg(3)->Arg(16)->Arg(100)->Iterations(2000);
BENCHMARK(BM_bucket_newest_page_at_size)->Arg(10000)->Arg(100000)->Arg(1000000);
