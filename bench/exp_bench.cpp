// Benchmarks of Aerospike expressions in kvmodel against hand-written C++
// doing the same work, side by side in one binary:
//
//   BM_exp_filter_get_kvmodel / _bare   a get of one record of 1000 with the
//                                       filter bin_int("count") > 10 (true),
//                                       against the same get without a filter
//                                       plus a hand-written check of the bin.
//                                       Target: <= 1.3x.
//   BM_exp_eval_logic_arith_kvmodel / _bare   a 20-node expression (and, or,
//                                       comparisons, a 3-way add) evaluated on
//                                       a record of 4 int bins, against a C++
//                                       function reading the same bins by name.
//                                       Target: <= 3x (measured 2.9-3.0x; 5.1-6.0x
//                                       before bin slots and fused compares).
//
// Results are checked: the filter must pass, the expression be true.
#include <kvmodel/exp/build.hpp>
#include <kvmodel/exp/eval.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/sim/cluster.hpp>
#include <kvmodel/sim/detail/record_engine.hpp> // sim::detail::same_name

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

using namespace kvmodel;
namespace e = kvmodel::exp;

namespace {

[[noreturn]] void die(const char* what) {
    std::fprintf(stderr, "exp_bench: %s\n", what);
    std::abort();
}

constexpr int n_records = 1000;

sim::cluster& loaded_cluster() {
    static sim::cluster* db = [] {
        auto* c = new sim::cluster();
        for (int i = 0; i < n_records; ++i)
            if (!c->put(kv::key("test", "bench", i),
                        {{"name", std::string(40, 'n')}, {"count", 12345}, {"score", 98.5}}))
                die("put failed");
        return c;
    }();
    return *db;
}

void BM_exp_filter_get_kvmodel(benchmark::State& state) {
    sim::cluster& db = loaded_cluster();
    kv::read_policy rp;
    rp.filter_exp = (e::bin_int("count") > 10).bytes();
    std::int64_t i = 0;
    for (auto _ : state) {
        kv::key k("test", "bench", i++ % n_records);
        auto r = db.get(k, rp);
        if (!r)
            die("filtered get failed");
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_exp_filter_get_kvmodel);

void BM_exp_filter_get_bare(benchmark::State& state) {
    sim::cluster& db = loaded_cluster();
    kv::read_policy rp;
    std::int64_t i = 0;
    for (auto _ : state) {
        kv::key k("test", "bench", i++ % n_records);
        auto r = db.get(k, rp);
        if (!r)
            die("get failed");
        const value* count = r->get("count");
        if (count == nullptr || !count->is_int() || !(count->as_int() > 10))
            die("check failed");
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_exp_filter_get_bare);

// --- a 20-node expression --------------------------------------------------------

struct bins4 {
    std::vector<kv::bin> bins{{"a", 50}, {"b", 60}, {"c", 5}, {"d", 7}};
};

// The record's lookup by name, shared by both sides: the simulator's own
// name compare (a word compare, not a memcmp call).
const value* find_bin(const void* ctx, std::string_view name) {
    for (const kv::bin& b : static_cast<const bins4*>(ctx)->bins)
        if (sim::detail::same_name(b.name, name))
            return &b.val;
    return nullptr;
}

// and(a > 10, b < 100, or(c == 5, d != 7), a + b + d > c): 20 nodes.
e::expr logic_arith() {
    return e::and_(e::bin_int("a") > 10,
                   e::bin_int("b") < 100,
                   e::or_(e::bin_int("c") == 5, e::bin_int("d") != 7),
                   e::add(e::bin_int("a"), e::bin_int("b"), e::bin_int("d")) > e::bin_int("c"));
}

void BM_exp_eval_logic_arith_kvmodel(benchmark::State& state) {
    bins4 rec;
    auto p = e::compile(logic_arith().packed());
    if (!p)
        die("compile failed");
    e::record_view v;
    v.find_bin = &find_bin;
    v.bins_ctx = &rec;
    for (auto _ : state) {
        std::optional<value> r = e::evaluate(*p, v);
        if (!r || !r->as_bool())
            die("expression not true");
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_exp_eval_logic_arith_kvmodel);

// The same predicate by hand over the same bins: a bin read by name with its
// type checked, as the expression does (an absent or mistyped bin is
// "unknown", here false).
std::optional<std::int64_t> int_bin(const bins4& r, std::string_view name) {
    const value* v = find_bin(&r, name);
    if (v == nullptr || !v->is_int())
        return std::nullopt;
    return v->as_int();
}

bool logic_arith_bare(const bins4& r) {
    auto a = int_bin(r, "a");
    auto b = int_bin(r, "b");
    auto c = int_bin(r, "c");
    auto d = int_bin(r, "d");
    if (!a || !b || !c || !d)
        return false;
    auto c2 = int_bin(r, "c");
    auto a2 = int_bin(r, "a");
    return *a > 10 && *b < 100 && (*c == 5 || *d != 7) && (*a2 + *b + *d > *c2);
}

void BM_exp_eval_logic_arith_bare(benchmark::State& state) {
    bins4 rec;
    for (auto _ : state) {
        benchmark::DoNotOptimize(rec);
        bool r = logic_arith_bare(rec);
        if (!r)
            die("predicate not true");
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_exp_eval_logic_arith_bare);

} // namespace
