// Benchmarks of sim::cluster against the bare cost of what it must do anyway:
// compute the key's digest and look it up in a hash map.
//
//   BM_sim_get_kvmodel/n / BM_sim_get_bare/n   read a 200-byte record (flat +
//                                          4 = 200: a 119-byte string, an int
//                                          and a double, set "bench") out of n
//   BM_sim_put_kvmodel/n / BM_sim_put_bare/n   overwrite one of the n
//   BM_sim_put_kvmodel/n/.../threads:T     put throughput on distinct keys,
//                                          thread t writing the t-th of T
//                                          blocks of the n keys (compare
//                                          items_per_second of 2 vs 1)
//   BM_sim_put_bare/n/.../threads:T        the same with a private map per
//                                          thread: what the machine gives a
//                                          second thread at all
//
//   BM_sim_cdt_put_kvmodel/n / BM_sim_cdt_put_bare/n   a map put (an existing
//                                          key) into a record's map bin of n
//                                          int -> [int, 20-char string]
//                                          entries, through the store and
//                                          through the engine alone
//   BM_sim_cdt_put_ctx_kvmodel/n / ..._bare/n   the same through a context:
//                                          a put into the map inside entry
//                                          i of n int -> [int, {"a": int}]
//   BM_sim_batch_operate_kvmodel/n / ..._bare/n   n writes (a 200-byte
//                                          record's three bins) as one
//                                          batch_operate, and as n operate
//                                          commands (their answers kept in a
//                                          vector, as the batch returns them);
//                                          rt_per_op: round trips
//                                          per batch (= nodes touched, checked)
//
// Both sides build the key (RIPEMD-160) per operation and copy the record out
// (get) or in (put). Targets: kvmodel <= 1.5x bare; 2 threads >= 1.6x one.
// The results are checked: every get must find its record.
#include <kvmodel/cdt/engine.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/kv/batch.hpp>
#include <kvmodel/kv/digest.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/record_size.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

using namespace kvmodel;

namespace {

const std::string ns_name = "test";
const std::string set_name = "bench";

std::vector<kv::bin> record_bins() {
    return {{"name", std::string(119, 'n')}, {"count", 12345}, {"score", 98.5}};
}

[[noreturn]] void die(const char* what) {
    std::fprintf(stderr, "sim_bench: %s\n", what);
    std::abort();
}

// One populated cluster and one bare map per record count n, built on first
// use (and before any benchmark thread starts, see populate()).
sim::cluster& shared_cluster(std::int64_t n) {
    static std::map<std::int64_t, std::unique_ptr<sim::cluster>> clusters;
    auto& c = clusters[n];
    if (!c) {
        c = std::make_unique<sim::cluster>();
        const std::vector<kv::bin> bins = record_bins();
        // The record really is 200 bytes (flat + 4).
        if (kv::record_size::flat(set_name, std::nullopt, false, bins) + 4 != 200)
            die("the benchmark record is not 200 bytes");
        for (std::int64_t i = 0; i < n; ++i)
            if (!c->put(kv::key(ns_name, set_name, i), bins))
                die("populate failed");
    }
    return *c;
}

using bare_record = std::vector<std::pair<std::string, value>>;
using bare_map = std::unordered_map<kv::digest, bare_record, kv::digest_hash>;

// Copy `copy` of the bare map for n records: each thread of the threaded
// bare put has its own (an unsynchronised map cannot be shared), so it shows
// what the machine itself gives a second thread.
bare_map& shared_bare(std::int64_t n, int copy = 0) {
    static std::map<std::pair<std::int64_t, int>, std::unique_ptr<bare_map>> maps;
    auto& m = maps[{n, copy}];
    if (!m) {
        m = std::make_unique<bare_map>();
        bare_record rec;
        for (const kv::bin& b : record_bins())
            rec.emplace_back(b.name, b.val);
        for (std::int64_t i = 0; i < n; ++i)
            (*m)[kv::compute_digest(set_name, i)] = rec;
    }
    return *m;
}

// The keys thread t of T writes: the t-th of T contiguous blocks of [0, n),
// so threads never write the same key. (Interleaving them — t, t + T, ... —
// would also put each thread's records next to the other's in memory, as
// populate allocates them in key order: every write would then share cache
// lines with the other thread's writes, which measures the benchmark's
// allocation order, not the store.)
std::pair<std::int64_t, std::int64_t> thread_keys(const benchmark::State& state,
                                                  std::int64_t n_keys) {
    const auto t = static_cast<std::int64_t>(state.thread_index());
    const auto threads = static_cast<std::int64_t>(state.threads());
    return {n_keys * t / threads, n_keys * (t + 1) / threads};
}

void BM_sim_get_kvmodel(benchmark::State& state) {
    const std::int64_t n_keys = state.range(0);
    sim::cluster& c = shared_cluster(n_keys);
    std::int64_t i = 0;
    for (auto _ : state) {
        kv::key k(ns_name, set_name, i);
        result<kv::record> r = c.get(k);
        if (!r || r->bins.size() != 3)
            die("get missed");
        benchmark::DoNotOptimize(r);
        if (++i == n_keys)
            i = 0;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_sim_get_kvmodel)->Arg(1000)->Arg(10000)->Arg(100000);

void BM_sim_get_bare(benchmark::State& state) {
    const std::int64_t n_keys = state.range(0);
    bare_map& m = shared_bare(n_keys);
    std::int64_t i = 0;
    for (auto _ : state) {
        kv::digest d = kv::compute_digest(set_name, i);
        auto it = m.find(d);
        if (it == m.end())
            die("bare get missed");
        bare_record copy = it->second;
        benchmark::DoNotOptimize(copy);
        if (++i == n_keys)
            i = 0;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_sim_get_bare)->Arg(1000)->Arg(10000)->Arg(100000);

/// Both put benchmarks: 1k, 10k and 100k keys, on 1 and 2 threads (real
/// time, so the 2-thread rows show throughput).
void put_args(benchmark::internal::Benchmark* b) {
    b->Arg(1000)->Arg(10000)->Arg(100000)->Threads(1)->Threads(2)->UseRealTime();
}

void BM_sim_put_kvmodel(benchmark::State& state) {
    const std::int64_t n_keys = state.range(0);
    sim::cluster& c = shared_cluster(n_keys);
    const std::vector<kv::bin> bins = record_bins();
    const auto [first, last] = thread_keys(state, n_keys);
    std::int64_t i = first;
    for (auto _ : state) {
        kv::key k(ns_name, set_name, i);
        result<void> r = c.put(k, bins);
        if (!r)
            die("put failed");
        if (++i == last)
            i = first;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_sim_put_kvmodel)->Apply(put_args);

void BM_sim_put_bare(benchmark::State& state) {
    const std::int64_t n_keys = state.range(0);
    bare_map& m = shared_bare(n_keys, state.thread_index());
    bare_record rec;
    for (const kv::bin& b : record_bins())
        rec.emplace_back(b.name, b.val);
    const auto [first, last] = thread_keys(state, n_keys);
    std::int64_t i = first;
    for (auto _ : state) {
        kv::digest d = kv::compute_digest(set_name, i);
        m[d] = rec;
        if (++i == last)
            i = first;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_sim_put_bare)->Apply(put_args);

// ------------------------------------------------------------------ CDT writes

/// One record whose map bin "m" holds n entries int -> [int, 20-char string].
std::vector<std::pair<value, value>> map_entries(std::int64_t n) {
    std::vector<std::pair<value, value>> items;
    for (std::int64_t i = 0; i < n; ++i)
        items.emplace_back(i, list{i, std::string("payload-payload-payl")});
    return items;
}

/// One record whose map bin "m" holds n entries int -> [int, {"a": int}]:
/// a map in each entry, for writes through a context.
std::vector<std::pair<value, value>> nested_entries(std::int64_t n) {
    std::vector<std::pair<value, value>> items;
    for (std::int64_t i = 0; i < n; ++i)
        items.emplace_back(i, list{i, map{{"a", i}}});
    return items;
}

/// The op of iteration i: a put of an existing key, a new value of the same size.
cdt::op map_put(std::int64_t i) {
    return cdt::map_ops::put(i, list{i + 1, std::string("payload-payload-payx")});
}
/// The same through a context: entry i's map gets key "b" (new, then overwritten).
cdt::op map_put_in_entry(std::int64_t i) {
    return cdt::map_ops::put(
        "b", i, {}, {cdt::ctx_step::map_key(i), cdt::ctx_step::list_index(1)});
}

/// A CDT write into the n-entry map bin of one record: what it costs through
/// the store, with its undo and record-size accounting, beside the engine's
/// own op on the same bin held in a hash map by digest (the store's
/// irreducible work).
template <class Op>
void sim_cdt_kvmodel(benchmark::State& state, std::vector<std::pair<value, value>> entries, Op op) {
    const auto n = static_cast<std::int64_t>(entries.size());
    sim::cluster c;
    const kv::key k(ns_name, set_name, std::int64_t{1});
    if (!c.operate(k, {kv::op::cdt("m", cdt::map_ops::put_items(std::move(entries)))}))
        die("populate failed");
    std::int64_t i = 0;
    for (auto _ : state) {
        result<kv::record> r = c.operate(k, {kv::op::cdt("m", op(i))});
        if (!r)
            die("cdt write failed");
        benchmark::DoNotOptimize(r);
        if (++i == n)
            i = 0;
    }
}
template <class Op>
void sim_cdt_bare(benchmark::State& state, std::vector<std::pair<value, value>> entries, Op op) {
    const auto n = static_cast<std::int64_t>(entries.size());
    std::unordered_map<kv::digest, std::optional<value>, kv::digest_hash> m;
    std::optional<value>& bin = m[kv::compute_digest(set_name, std::int64_t{1})];
    if (!cdt::apply(bin, cdt::map_ops::put_items(std::move(entries))))
        die("populate failed");
    std::int64_t i = 0;
    for (auto _ : state) {
        auto it = m.find(kv::compute_digest(set_name, std::int64_t{1}));
        result<value> r = cdt::apply(it->second, op(i));
        if (!r)
            die("bare cdt write failed");
        benchmark::DoNotOptimize(r);
        if (++i == n)
            i = 0;
    }
}

void BM_sim_cdt_put_kvmodel(benchmark::State& state) {
    sim_cdt_kvmodel(state, map_entries(state.range(0)), map_put);
}
BENCHMARK(BM_sim_cdt_put_kvmodel)->Arg(100)->Arg(1000)->Arg(10000);
void BM_sim_cdt_put_bare(benchmark::State& state) {
    sim_cdt_bare(state, map_entries(state.range(0)), map_put);
}
BENCHMARK(BM_sim_cdt_put_bare)->Arg(100)->Arg(1000)->Arg(10000);

void BM_sim_cdt_put_ctx_kvmodel(benchmark::State& state) {
    sim_cdt_kvmodel(state, nested_entries(state.range(0)), map_put_in_entry);
}
BENCHMARK(BM_sim_cdt_put_ctx_kvmodel)->Arg(100)->Arg(1000)->Arg(10000);
void BM_sim_cdt_put_ctx_bare(benchmark::State& state) {
    sim_cdt_bare(state, nested_entries(state.range(0)), map_put_in_entry);
}
BENCHMARK(BM_sim_cdt_put_ctx_bare)->Arg(100)->Arg(1000)->Arg(10000);

// ------------------------------------------------------------------ batch writes

/// The n writes of a batch: the benchmark record's bins into keys [0, n).
std::vector<kv::batch_record> batch_writes(std::int64_t n) {
    std::vector<kv::operation> ops;
    for (const kv::bin& b : record_bins())
        ops.push_back(kv::op::write(b.name, b.val));
    std::vector<kv::batch_record> batch;
    for (std::int64_t i = 0; i < n; ++i)
        batch.push_back(kv::batch_record::write(kv::key(ns_name, "batch", i), ops));
    return batch;
}

void BM_sim_batch_operate_kvmodel(benchmark::State& state) {
    sim::cluster c;
    const std::vector<kv::batch_record> batch = batch_writes(state.range(0));
    std::set<int> nodes;
    for (const kv::batch_record& br : batch)
        nodes.insert(c.replicas(br.k).front());
    for (auto _ : state) {
        std::vector<result<kv::record>> rs = c.batch_operate(batch);
        for (const result<kv::record>& r : rs)
            if (!r)
                die("batch write failed");
        benchmark::DoNotOptimize(rs.data());
    }
    const double rt = static_cast<double>(c.stats().find(ns_name)->totals.round_trips);
    const auto batches = static_cast<double>(state.iterations());
    if (rt != batches * static_cast<double>(nodes.size()))
        die("a batch write did not cost one round trip per node touched");
    state.counters["rt_per_op"] = rt / batches;
    state.counters["nodes_touched"] = static_cast<double>(nodes.size());
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_sim_batch_operate_kvmodel)->Arg(10)->Arg(100)->Arg(1000);

void BM_sim_batch_operate_bare(benchmark::State& state) {
    sim::cluster c;
    const std::vector<kv::batch_record> batch = batch_writes(state.range(0));
    for (auto _ : state) {
        // The caller keeps every answer, as it gets them from the batch.
        std::vector<result<kv::record>> rs;
        rs.reserve(batch.size());
        for (const kv::batch_record& br : batch) {
            rs.push_back(c.operate(br.k, br.ops, br.wp));
            if (!rs.back())
                die("write failed");
        }
        benchmark::DoNotOptimize(rs.data());
    }
    state.counters["rt_per_op"] =
        static_cast<double>(c.stats().find(ns_name)->totals.round_trips) /
        static_cast<double>(state.iterations());
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_sim_batch_operate_bare)->Arg(10)->Arg(100)->Arg(1000);

// Builds every data set before the benchmarks run, so no benchmark thread
// races another to build one.
const bool populated = [] {
    for (std::int64_t n : {1000, 10000, 100000}) {
        shared_cluster(n);
        shared_bare(n, 0);
        shared_bare(n, 1);
    }
    return true;
}();

} // namespace
