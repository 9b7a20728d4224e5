// bench/map_bench.cpp — the map engine beside a bare Boost.MultiIndex
// container doing the same work, at n = 100, 10k, 1M entries.
//
// Entries are int key -> [int, 20-char string], the shape the issue names;
// the value ints are a seeded permutation of 0..n-1, so a value range
// [[x], [x + 100]) selects exactly 100 entries. The bare container is the
// same two ranked indices (key; value then key) over a plain struct,
// compared natively; "the same work" means the same lookups and the same
// output (a vector of entry pointers in the order the engine returns them),
// without the engine's op decoding, CDT comparisons and result values.
//
//   BM_map_<op>_kvmodel/<n>  and  BM_map_<op>_bare/<n>
//   ops: put (overwrite), get_by_key, get_by_index, get_by_rank,
//        get_by_value_range (k = 100, key order), get_by_value_rel_rank_range
//        (rank -5, count 10), remove_by_rank_range (capped insert: put a new
//        entry, trim the lowest rank)
//   BM_map_memory/1000000: heap bytes per entry (counted by replacing
//        operator new/delete in this binary) against msgpack packed bytes.
#include <kvmodel/cdt/engine.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/core/msgpack_size.hpp>

#include <benchmark/benchmark.h>
#include <boost/multi_index/identity.hpp>
#include <boost/multi_index/member.hpp>
#include <boost/multi_index/ranked_index.hpp>
#include <boost/multi_index_container.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <malloc.h>

// ------------------------------------------------------------------ heap accounting

namespace {
std::atomic<std::int64_t> g_heap_bytes{0};

void* counted_alloc(std::size_t n, std::size_t align = 0) {
    // Over-aligned requests as libstdc++ serves them: aligned_alloc of the
    // size rounded up to the alignment.
    void* p = align == 0 ? std::malloc(n == 0 ? 1 : n)
                         : std::aligned_alloc(align, (n + align - 1) / align * align);
    if (p == nullptr)
        throw std::bad_alloc();
    // What the allocation really occupies: usable size plus glibc's 8-byte chunk header.
    g_heap_bytes.fetch_add(static_cast<std::int64_t>(malloc_usable_size(p) + 8),
                           std::memory_order_relaxed);
    return p;
}
void counted_free(void* p) noexcept {
    if (p == nullptr)
        return;
    g_heap_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p) + 8),
                           std::memory_order_relaxed);
    std::free(p);
}
} // namespace

void* operator new(std::size_t n) {
    return counted_alloc(n);
}
void* operator new[](std::size_t n) {
    return counted_alloc(n);
}
void operator delete(void* p) noexcept {
    counted_free(p);
}
void operator delete[](void* p) noexcept {
    counted_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    counted_free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    counted_free(p);
}
// Over-aligned allocations (map nodes ask for 16 bytes).
void* operator new(std::size_t n, std::align_val_t a) {
    return counted_alloc(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
    return counted_alloc(n, static_cast<std::size_t>(a));
}
void operator delete(void* p, std::align_val_t) noexcept {
    counted_free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
    counted_free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
    counted_free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
    counted_free(p);
}

using namespace kvmodel;
namespace mo = kvmodel::cdt::map_ops;
namespace bmi = boost::multi_index;

namespace {

// ------------------------------------------------------------------ data

std::string payload(std::int64_t i) {
    std::string s = "payload-" + std::to_string(i);
    s.resize(20, '.');
    return s;
}

struct dataset {
    std::size_t n = 0;
    std::vector<std::int64_t> perm; // value int of key k
    explicit dataset(std::size_t size)
        : n(size)
        , perm(size) {
        for (std::size_t i = 0; i < n; ++i)
            perm[i] = static_cast<std::int64_t>(i);
        std::mt19937_64 rng(42);
        std::shuffle(perm.begin(), perm.end(), rng);
    }
};

// ------------------------------------------------------------------ bare container

struct bare_entry {
    std::int64_t key;
    std::int64_t v;
    std::string s;
};
struct bare_value_less {
    bool operator()(const bare_entry& a, const bare_entry& b) const noexcept {
        return std::tie(a.v, a.s, a.key) < std::tie(b.v, b.s, b.key);
    }
};
/// Heterogeneous lookup of the value index by the value int alone.
struct bare_by_v {
    bool operator()(const bare_entry& e, std::int64_t x) const noexcept { return e.v < x; }
    bool operator()(std::int64_t x, const bare_entry& e) const noexcept { return x < e.v; }
};
using bare_map = bmi::multi_index_container<
    bare_entry,
    bmi::indexed_by<bmi::ranked_unique<bmi::member<bare_entry, std::int64_t, &bare_entry::key>>,
                    bmi::ranked_unique<bmi::identity<bare_entry>, bare_value_less>>>;

// ------------------------------------------------------------------ fixtures

struct fixture {
    dataset data;
    std::optional<value> bin;
    bare_map bare;

    explicit fixture(std::size_t n)
        : data(n) {
        for (std::size_t k = 0; k < n; ++k) {
            auto key = static_cast<std::int64_t>(k);
            std::int64_t v = data.perm[k];
            (void)cdt::apply(
                bin, mo::put(key, list{v, payload(key)}, mo::policy(map_order::key_value_ordered)));
            bare.insert(bare_entry{key, v, payload(key)});
        }
    }
};

/// One fixture per size, built on first use and shared by the read benchmarks.
fixture& shared(std::size_t n) {
    static std::map<std::size_t, std::unique_ptr<fixture>> cache;
    auto& f = cache[n];
    if (!f)
        f = std::make_unique<fixture>(n);
    return *f;
}

std::vector<std::int64_t> random_positions(std::size_t n, std::size_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::int64_t> out(count);
    for (auto& x : out)
        x = static_cast<std::int64_t>(rng() % n);
    return out;
}

constexpr std::size_t ring = 4096;

// ------------------------------------------------------------------ put

void BM_map_put_kvmodel(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    fixture& f = shared(n);
    // Overwrite existing keys with the same value int and a new string: the
    // entry moves in the rank index, the value-int permutation stays.
    std::vector<cdt::op> ops;
    for (std::int64_t k : random_positions(n, ring, 1))
        ops.push_back(mo::put(k, list{f.data.perm[static_cast<std::size_t>(k)], payload(k + 7)}));
    std::size_t i = 0;
    for (auto _ : state) {
        result<value> r = cdt::apply(f.bin, ops[i++ % ring]);
        benchmark::DoNotOptimize(r);
    }
}

void BM_map_put_bare(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    fixture& f = shared(n);
    struct pending {
        std::int64_t key;
        std::int64_t v;
        std::string s;
    };
    std::vector<pending> ops;
    for (std::int64_t k : random_positions(n, ring, 1))
        ops.push_back({k, f.data.perm[static_cast<std::size_t>(k)], payload(k + 7)});
    auto& idx = f.bare.get<0>();
    std::size_t i = 0;
    for (auto _ : state) {
        const pending& p = ops[i++ % ring];
        auto it = idx.find(p.key);
        if (it != idx.end()) {
            idx.modify(it, [&](bare_entry& e) {
                e.v = p.v;
                e.s = p.s;
            });
        } else {
            idx.insert(bare_entry{p.key, p.v, p.s});
        }
        benchmark::DoNotOptimize(idx.size());
    }
}

// ------------------------------------------------------------------ single reads

void BM_map_get_by_key_kvmodel(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    fixture& f = shared(n);
    std::vector<cdt::op> ops;
    for (std::int64_t k : random_positions(n, ring, 2))
        ops.push_back(mo::get_by_key(k, cdt::return_type::value));
    std::size_t i = 0;
    for (auto _ : state) {
        result<value> r = cdt::apply(f.bin, ops[i++ % ring]);
        benchmark::DoNotOptimize(r);
    }
}

void BM_map_get_by_key_bare(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    fixture& f = shared(n);
    std::vector<std::int64_t> keys = random_positions(n, ring, 2);
    const auto& idx = f.bare.get<0>();
    std::size_t i = 0;
    for (auto _ : state) {
        auto it = idx.find(keys[i++ % ring]);
        const bare_entry* e = it == idx.end() ? nullptr : &*it;
        benchmark::DoNotOptimize(e);
    }
}

void BM_map_get_by_index_kvmodel(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    fixture& f = shared(n);
    std::vector<cdt::op> ops;
    for (std::int64_t k : random_positions(n, ring, 3))
        ops.push_back(mo::get_by_index(k, cdt::return_type::value));
    std::size_t i = 0;
    for (auto _ : state) {
        result<value> r = cdt::apply(f.bin, ops[i++ % ring]);
        benchmark::DoNotOptimize(r);
    }
}

void BM_map_get_by_index_bare(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    fixture& f = shared(n);
    std::vector<std::int64_t> pos = random_positions(n, ring, 3);
    const auto& idx = f.bare.get<0>();
    std::size_t i = 0;
    for (auto _ : state) {
        const bare_entry* e = &*idx.nth(static_cast<std::size_t>(pos[i++ % ring]));
        benchmark::DoNotOptimize(e);
    }
}

void BM_map_get_by_rank_kvmodel(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    fixture& f = shared(n);
    std::vector<cdt::op> ops;
    for (std::int64_t r : random_positions(n, ring, 4))
        ops.push_back(mo::get_by_rank(r, cdt::return_type::value));
    std::size_t i = 0;
    for (auto _ : state) {
        result<value> r = cdt::apply(f.bin, ops[i++ % ring]);
        benchmark::DoNotOptimize(r);
    }
}

void BM_map_get_by_rank_bare(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    fixture& f = shared(n);
    std::vector<std::int64_t> pos = random_positions(n, ring, 4);
    const auto& idx = f.bare.get<1>();
    std::size_t i = 0;
    for (auto _ : state) {
        const bare_entry* e = &*idx.nth(static_cast<std::size_t>(pos[i++ % ring]));
        benchmark::DoNotOptimize(e);
    }
}

// ------------------------------------------------------------------ value range, k = 100

constexpr std::int64_t range_k = 100;

std::vector<std::int64_t> range_starts(std::size_t n) {
    std::vector<std::int64_t> out;
    auto top = static_cast<std::int64_t>(n) - range_k;
    for (std::int64_t x : random_positions(static_cast<std::size_t>(top + 1), ring, 5))
        out.push_back(x);
    return out;
}

void BM_map_get_by_value_range_kvmodel(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    fixture& f = shared(n);
    std::vector<cdt::op> ops;
    for (std::int64_t x : range_starts(n))
        ops.push_back(
            mo::get_by_value_range(list{x}, value(list{x + range_k}), cdt::return_type::value));
    // Results are checked: exactly k values.
    result<value> first = cdt::apply(f.bin, ops[0]);
    if (!first || first->as_list().size() != static_cast<std::size_t>(range_k)) {
        state.SkipWithError("value range did not select k entries");
        return;
    }
    std::size_t i = 0;
    for (auto _ : state) {
        result<value> r = cdt::apply(f.bin, ops[i++ % ring]);
        benchmark::DoNotOptimize(r);
    }
    state.counters["k"] = static_cast<double>(range_k);
}

void BM_map_get_by_value_range_bare(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    fixture& f = shared(n);
    std::vector<std::int64_t> starts = range_starts(n);
    const auto& by_value = f.bare.get<1>();
    std::size_t i = 0;
    for (auto _ : state) {
        std::int64_t x = starts[i++ % ring];
        // Same output as the engine: the selected entries in key order.
        std::vector<const bare_entry*> out;
        out.reserve(static_cast<std::size_t>(range_k));
        auto it = by_value.lower_bound(x, bare_by_v{});
        for (; it != by_value.end() && it->v < x + range_k; ++it)
            out.push_back(&*it);
        std::sort(out.begin(), out.end(), [](const bare_entry* a, const bare_entry* b) {
            return a->key < b->key;
        });
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["k"] = static_cast<double>(range_k);
}

// ------------------------------------------------------------------ relative rank range

void BM_map_get_by_value_rel_rank_range_kvmodel(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    fixture& f = shared(n);
    std::vector<cdt::op> ops;
    for (std::int64_t x : random_positions(n, ring, 6))
        ops.push_back(mo::get_by_value_rel_rank_range(list{x}, -5, 10, cdt::return_type::value));
    std::size_t i = 0;
    for (auto _ : state) {
        result<value> r = cdt::apply(f.bin, ops[i++ % ring]);
        benchmark::DoNotOptimize(r);
    }
}

void BM_map_get_by_value_rel_rank_range_bare(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    fixture& f = shared(n);
    std::vector<std::int64_t> anchors = random_positions(n, ring, 6);
    const auto& by_value = f.bare.get<1>();
    std::size_t i = 0;
    for (auto _ : state) {
        std::int64_t x = anchors[i++ % ring];
        auto lb = by_value.lower_bound(x, bare_by_v{});
        std::size_t anchor = by_value.rank(lb);
        std::size_t start = anchor >= 5 ? anchor - 5 : 0;
        std::size_t count = anchor >= 5 ? 10 : 10 - (5 - anchor);
        std::vector<const bare_entry*> out;
        out.reserve(count);
        auto it = by_value.nth(start);
        for (std::size_t j = 0; j < count && it != by_value.end(); ++j, ++it)
            out.push_back(&*it);
        benchmark::DoNotOptimize(out.data());
    }
}

// ------------------------------------------------------------------ capped insert: trim one

/// Values for the capped-insert benchmarks: random value ints, built once.
std::vector<std::int64_t> trim_values(std::size_t n) {
    std::mt19937_64 rng(7);
    std::vector<std::int64_t> out(ring);
    for (auto& v : out)
        v = static_cast<std::int64_t>(rng() % (2 * n));
    return out;
}

void BM_map_remove_by_rank_range_kvmodel(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    std::optional<value> bin = shared(n).bin;
    (void)cdt::apply(bin, mo::put(-1, 0)); // unshare (copy-on-write) before timing
    (void)cdt::apply(bin, mo::remove_by_key(-1, cdt::return_type::none));
    std::vector<value> vals;
    for (std::int64_t v : trim_values(n))
        vals.emplace_back(list{v, payload(v)});
    auto next = static_cast<std::int64_t>(n);
    const cdt::op trim = mo::remove_by_rank_range(0, 1, cdt::return_type::none);
    std::size_t i = 0;
    for (auto _ : state) {
        std::int64_t key = next++;
        result<value> a = cdt::apply(bin, mo::put(key, vals[i++ % ring]));
        result<value> b = cdt::apply(bin, trim);
        benchmark::DoNotOptimize(a);
        benchmark::DoNotOptimize(b);
    }
    if (bin->as_map().size() != n)
        state.SkipWithError("size drifted");
}

void BM_map_remove_by_rank_range_bare(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    bare_map bare = shared(n).bare;
    std::vector<std::pair<std::int64_t, std::string>> vals;
    for (std::int64_t v : trim_values(n))
        vals.emplace_back(v, payload(v));
    auto next = static_cast<std::int64_t>(n);
    auto& by_value = bare.get<1>();
    std::size_t i = 0;
    for (auto _ : state) {
        const auto& [v, s] = vals[i++ % ring];
        bare.insert(bare_entry{next++, v, s});
        by_value.erase(by_value.nth(0));
        benchmark::DoNotOptimize(bare.size());
    }
    if (bare.size() != n)
        state.SkipWithError("size drifted");
}

// ------------------------------------------------------------------ memory

void BM_map_memory(benchmark::State& state) {
    auto n = static_cast<std::size_t>(state.range(0));
    dataset data(n);
    double kv_bytes = 0;
    double bare_bytes = 0;
    double packed = 0;
    for (auto _ : state) {
        std::int64_t before = g_heap_bytes.load();
        std::optional<value> bin;
        for (std::size_t k = 0; k < n; ++k) {
            auto key = static_cast<std::int64_t>(k);
            (void)cdt::apply(bin,
                             mo::put(key,
                                     list{data.perm[k], payload(key)},
                                     mo::policy(map_order::key_value_ordered)));
        }
        kv_bytes = static_cast<double>(g_heap_bytes.load() - before);
        packed = static_cast<double>(packed_size(*bin));
        bin.reset();

        before = g_heap_bytes.load();
        {
            bare_map bare;
            for (std::size_t k = 0; k < n; ++k) {
                auto key = static_cast<std::int64_t>(k);
                bare.insert(bare_entry{key, data.perm[k], payload(key)});
            }
            bare_bytes = static_cast<double>(g_heap_bytes.load() - before);
        }
    }
    auto per = [&](double total) {
        return total / static_cast<double>(n);
    };
    state.counters["kvmodel_bytes_per_entry"] = per(kv_bytes);
    state.counters["bare_bytes_per_entry"] = per(bare_bytes);
    state.counters["packed_bytes_per_entry"] = per(packed);
    state.counters["kvmodel_over_packed"] = kv_bytes / packed;
    state.counters["bare_over_packed"] = bare_bytes / packed;
}

void map_sizes(benchmark::internal::Benchmark* b) {
    b->Arg(100)->Arg(10'000)->Arg(1'000'000);
}

} // namespace

BENCHMARK(BM_map_get_by_key_kvmodel)->Apply(map_sizes);
BENCHMARK(BM_map_get_by_key_bare)->Apply(map_sizes);
BENCHMARK(BM_map_get_by_index_kvmodel)->Apply(map_sizes);
BENCHMARK(BM_map_get_by_index_bare)->Apply(map_sizes);
BENCHMARK(BM_map_get_by_rank_kvmodel)->Apply(map_sizes);
BENCHMARK(BM_map_get_by_rank_bare)->Apply(map_sizes);
BENCHMARK(BM_map_get_by_value_range_kvmodel)->Apply(map_sizes);
BENCHMARK(BM_map_get_by_value_range_bare)->Apply(map_sizes);
BENCHMARK(BM_map_get_by_value_rel_rank_range_kvmodel)->Apply(map_sizes);
BENCHMARK(BM_map_get_by_value_rel_rank_range_bare)->Apply(map_sizes);
BENCHMARK(BM_map_put_kvmodel)->Apply(map_sizes);
BENCHMARK(BM_map_put_bare)->Apply(map_sizes);
BENCHMARK(BM_map_remove_by_rank_range_kvmodel)->Apply(map_sizes);
BENCHMARK(BM_map_remove_by_rank_range_bare)->Apply(map_sizes);
BENCHMARK(BM_map_memory)->Arg(1'000'000)->Iterations(1)->Unit(benchmark::kMillisecond);
