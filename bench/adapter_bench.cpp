// Benchmarks of the Aerospike adapter: operate() round trips per second on a
// real server over loopback, beside the same operations on sim::cluster, and
// beside the bare C client doing the same work without kvmodel.
//
//   BM_adapter_get_kvmodel        get of a small record through aerospike_store
//   BM_adapter_get_bare           aerospike_key_get of the same record, no kvmodel
//   BM_adapter_get_sim            the same get on sim::cluster
//   BM_adapter_operate_kvmodel/n  ONE operate: map_put (overwriting one of n keys) +
//                                 map_get_by_rank_range(-3, 3, KEY_VALUE) on a KV-ordered map of n entries
//   BM_adapter_operate_bare/n     the same command with as_operations_* directly
//   BM_adapter_operate_sim/n      the same command on sim::cluster
//   BM_adapter_append_kvmodel     ONE operate: list_append + list_size
//   BM_adapter_append_sim
//   BM_adapter_get_by_rank_bare/k map_get_by_rank(r, KEY) on an UNORDERED map of 10,000
//                                 entries ("k<i>" -> (i * 7919) % 10007, as bench/serve_bench.js
//                                 writes it), k ops per command (1 or 100); items_per_second
//                                 counts ops. Run against a real server and against
//                                 `kvmodel serve` (AEROSPIKE_HOST=127.0.0.1:<its port>): the
//                                 ratio of the two is serve's speed-up with the same client.
//
// items_per_second is round trips (commands) per second. The server runs
// against AEROSPIKE_HOST (e.g. 127.0.0.1:3000, namespace test, set
// adapter_bench); without it, or in a build without the C client, the server
// benchmarks are skipped with a message and the sim ones still run. Results
// are checked: every command must succeed and return what it should.
#include <benchmark/benchmark.h>

// sim::cluster is another engineer's work in progress: without it in the tree
// this file builds one benchmark that says so.
#if __has_include(<kvmodel/sim/cluster.hpp>)

#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/sim/cluster.hpp>

#if defined(KVMODEL_HAVE_AEROSPIKE)
#    include <kvmodel/adapters/aerospike.hpp>
#endif

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace kvmodel;
namespace mo = kvmodel::cdt::map_ops;
namespace lo = kvmodel::cdt::list_ops;

namespace {

const std::string ns_name = "test";
const std::string set_name = "adapter_bench";

std::vector<kv::bin> small_record() {
    return {{"name", value(std::string(40, 'n'))}, {"count", value(7)}, {"score", value(2.5)}};
}

cdt::map_policy kv_ordered() {
    cdt::map_policy p;
    p.order = map_order::key_value_ordered;
    return p;
}

map initial_map(std::int64_t n) {
    map m(map_order::key_value_ordered);
    for (std::int64_t i = 0; i < n; ++i) m.put(value(i), value((i * 7919) % 1000));
    return m;
}

// Overwrites one of the n keys, so the map keeps n entries.
std::vector<kv::operation> operate_ops(std::int64_t i, std::int64_t n) {
    return {kv::op::cdt("m", mo::put(value(i % n), value((i * 31) % 997), kv_ordered())),
            kv::op::cdt("m", mo::get_by_rank_range(-3, 3, cdt::return_type::key_value))};
}

template <class Store>
void check_operate(benchmark::State& state, const result<kv::record>& r) {
    if (!r) {
        state.SkipWithError(("operate failed: " + r.error().message).c_str());
        return;
    }
    if (r->results.size() != 2 || !r->results[1].is_list() || r->results[1].as_list().size() != 3)
        state.SkipWithError("operate returned an unexpected result");
}

// --- sim ---------------------------------------------------------------------------

void BM_adapter_get_sim(benchmark::State& state) {
    sim::cluster c;
    kv::key k(ns_name, set_name, "get");
    const auto bins = small_record();
    if (!c.put(k, bins)) state.SkipWithError("put failed");
    for (auto _ : state) {
        auto r = c.get(k);
        if (!r || r->bins.size() != 3) state.SkipWithError("get failed");
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_adapter_get_sim);

void BM_adapter_operate_sim(benchmark::State& state) {
    sim::cluster c;
    kv::key k(ns_name, set_name, "operate");
    const kv::bin b[] = {{"m", value(initial_map(state.range(0)))}};
    if (!c.put(k, b)) state.SkipWithError("put failed");
    std::int64_t i = 0;
    for (auto _ : state) {
        auto ops = operate_ops(i++, state.range(0));
        auto r = c.operate(k, ops);
        check_operate<sim::cluster>(state, r);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_adapter_operate_sim)->Arg(10)->Arg(100)->Arg(1000);

void BM_adapter_append_sim(benchmark::State& state) {
    sim::cluster c;
    kv::key k(ns_name, set_name, "append");
    std::int64_t i = 0;
    for (auto _ : state) {
        if ((i & 1023) == 0) (void)c.remove(k);  // keep the list small
        const kv::operation ops[] = {kv::op::cdt("l", lo::append(value(i++))), kv::op::cdt("l", lo::size())};
        auto r = c.operate(k, ops);
        if (!r) state.SkipWithError("operate failed");
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_adapter_append_sim);

#if defined(KVMODEL_HAVE_AEROSPIKE)

adapters::aerospike_store* server(benchmark::State& state) {
    static std::optional<adapters::aerospike_store> store;
    static std::string why;
    static bool tried = false;
    if (!tried) {
        tried = true;
        const char* host = std::getenv("AEROSPIKE_HOST");
        if (host == nullptr || *host == '\0') {
            why = "AEROSPIKE_HOST is not set: server benchmarks skipped";
        } else {
            adapters::aerospike_config cfg;
            cfg.hosts = host;
            auto s = adapters::aerospike_store::connect(cfg);
            if (s) store.emplace(std::move(s).value());
            else why = "server benchmarks skipped: " + s.error().message;
        }
    }
    if (!store) state.SkipWithError(why.c_str());
    return store ? &*store : nullptr;
}

void BM_adapter_get_kvmodel(benchmark::State& state) {
    auto* s = server(state);
    if (s == nullptr) return;
    kv::key k(ns_name, set_name, "get");
    const auto bins = small_record();
    if (!s->put(k, bins)) state.SkipWithError("put failed");
    for (auto _ : state) {
        auto r = s->get(k);
        if (!r || r->bins.size() != 3) state.SkipWithError("get failed");
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_adapter_get_kvmodel)->UseRealTime();

void BM_adapter_get_bare(benchmark::State& state) {
    auto* s = server(state);
    if (s == nullptr) return;
    kv::key k(ns_name, set_name, "get");
    const auto bins = small_record();
    if (!s->put(k, bins)) state.SkipWithError("put failed");
    as_key key;
    as_key_init_str(&key, ns_name.c_str(), set_name.c_str(), "get");
    for (auto _ : state) {
        as_error err;
        as_record* rec = nullptr;
        if (aerospike_key_get(s->native(), &err, nullptr, &key, &rec) != AEROSPIKE_OK || rec->bins.size != 3)
            state.SkipWithError("get failed");
        as_record_destroy(rec);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_adapter_get_bare)->UseRealTime();

void BM_adapter_operate_kvmodel(benchmark::State& state) {
    auto* s = server(state);
    if (s == nullptr) return;
    kv::key k(ns_name, set_name, "operate");
    const kv::bin b[] = {{"m", value(initial_map(state.range(0)))}};
    if (!s->put(k, b)) state.SkipWithError("put failed");
    std::int64_t i = 0;
    for (auto _ : state) {
        auto ops = operate_ops(i++, state.range(0));
        auto r = s->operate(k, ops);
        check_operate<adapters::aerospike_store>(state, r);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_adapter_operate_kvmodel)->Arg(10)->Arg(100)->Arg(1000)->UseRealTime();

void BM_adapter_operate_bare(benchmark::State& state) {
    auto* s = server(state);
    if (s == nullptr) return;
    kv::key k(ns_name, set_name, "operate");
    const kv::bin b[] = {{"m", value(initial_map(state.range(0)))}};
    if (!s->put(k, b)) state.SkipWithError("put failed");
    as_key key;
    as_key_init_str(&key, ns_name.c_str(), set_name.c_str(), "operate");
    as_policy_operate p;
    as_policy_operate_init(&p);
    p.respond_all_ops = true;
    std::int64_t i = 0;
    for (auto _ : state) {
        as_operations ops;
        as_operations_init(&ops, 2);  // not inita: alloca in a loop grows the stack per iteration
        as_map_policy mp;
        as_map_policy_set(&mp, AS_MAP_KEY_VALUE_ORDERED, AS_MAP_UPDATE);
        as_operations_map_put(&ops, "m", nullptr, &mp, reinterpret_cast<as_val*>(as_integer_new(i % state.range(0))),
                              reinterpret_cast<as_val*>(as_integer_new((i * 31) % 997)));
        ++i;
        as_operations_map_get_by_rank_range(&ops, "m", nullptr, -3, 3, AS_MAP_RETURN_KEY_VALUE);
        as_error err;
        as_record* rec = nullptr;
        if (aerospike_key_operate(s->native(), &err, &p, &key, &ops, &rec) != AEROSPIKE_OK || rec->bins.size != 2)
            state.SkipWithError("operate failed");
        as_record_destroy(rec);
        as_operations_destroy(&ops);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_adapter_operate_bare)->Arg(10)->Arg(100)->Arg(1000)->UseRealTime();

void BM_adapter_append_kvmodel(benchmark::State& state) {
    auto* s = server(state);
    if (s == nullptr) return;
    kv::key k(ns_name, set_name, "append");
    (void)s->remove(k);
    std::int64_t i = 0;
    for (auto _ : state) {
        if ((i & 1023) == 0) (void)s->remove(k);
        const kv::operation ops[] = {kv::op::cdt("l", lo::append(value(i++))), kv::op::cdt("l", lo::size())};
        auto r = s->operate(k, ops);
        if (!r) state.SkipWithError(("operate failed: " + r.error().message).c_str());
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_adapter_append_kvmodel)->UseRealTime();

// The 10,000-entry unordered map of bench/serve_bench.js, written once.
bool put_rank_map(adapters::aerospike_store& s, as_key& key) {
    as_orderedmap* m = as_orderedmap_new(10000);
    for (int i = 0; i < 10000; ++i) {
        char name[16];
        std::snprintf(name, sizeof name, "k%d", i);  // ("k" + to_string: GCC 12 -Wrestrict misfires)
        as_orderedmap_set(m, reinterpret_cast<as_val*>(as_string_new(strdup(name), true)),
                          reinterpret_cast<as_val*>(as_integer_new((i * 7919) % 10007)));
    }
    as_record rec;
    as_record_inita(&rec, 1);
    as_record_set_map(&rec, "m", reinterpret_cast<as_map*>(m));
    as_error err;
    bool ok = aerospike_key_put(s.native(), &err, nullptr, &key, &rec) == AEROSPIKE_OK;
    as_record_destroy(&rec);
    return ok;
}

void BM_adapter_get_by_rank_bare(benchmark::State& state) {
    auto* s = server(state);
    if (s == nullptr) return;
    as_key key;
    as_key_init_str(&key, ns_name.c_str(), set_name.c_str(), "get_by_rank");
    if (!put_rank_map(*s, key)) state.SkipWithError("put failed");
    as_policy_operate p;
    as_policy_operate_init(&p);
    p.respond_all_ops = true;
    p.base.total_timeout = 60000;
    p.base.socket_timeout = 60000;
    const auto per_command = static_cast<std::uint16_t>(state.range(0));
    std::int64_t rank = 0;
    for (auto _ : state) {
        as_operations ops;
        as_operations_init(&ops, per_command);  // not inita: alloca in a loop grows the stack per iteration
        for (std::uint16_t j = 0; j < per_command; ++j)
            as_operations_map_get_by_rank(&ops, "m", nullptr, rank++ % 10000, AS_MAP_RETURN_KEY);
        as_error err;
        as_record* rec = nullptr;
        if (aerospike_key_operate(s->native(), &err, &p, &key, &ops, &rec) != AEROSPIKE_OK ||
            rec->bins.size != per_command || as_bin_get_type(&rec->bins.entries[0]) != AS_STRING)
            state.SkipWithError(("operate failed: " + std::string(err.message)).c_str());
        as_record_destroy(rec);
        as_operations_destroy(&ops);
    }
    state.SetItemsProcessed(state.iterations() * per_command);
}
BENCHMARK(BM_adapter_get_by_rank_bare)->Arg(1)->Arg(100)->UseRealTime();

#else

void BM_adapter_server_kvmodel(benchmark::State& state) {
    state.SkipWithError("built without the Aerospike C client (-DKVMODEL_AEROSPIKE_ROOT=...): server benchmarks skipped");
    for (auto _ : state) {
    }
}
BENCHMARK(BM_adapter_server_kvmodel);

#endif

} // namespace

#else

namespace {
void BM_adapter_unavailable_kvmodel(benchmark::State& state) {
    state.SkipWithError("kvmodel/sim/cluster.hpp is not in the tree yet");
    for (auto _ : state) {
    }
}
BENCHMARK(BM_adapter_unavailable_kvmodel);
} // namespace

#endif
