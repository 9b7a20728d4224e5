// Scoreboard costs on the simulated cluster, as counters per call:
//
//   BM_scoreboard_add/1000        add() on a 1000-player board: rt_per_op (1:
//                                 one operate with the op-id marker and the
//                                 distinct-score upkeep), bytes_written_per_op
//   BM_scoreboard_set/1000        set(): rt_per_op 1
//   BM_scoreboard_rank/1000       rank() in competition, dense, ordinal: 1 each
//   BM_scoreboard_top/1000        top(10) with ties: 1
//   BM_scoreboard_around/1000     around(k = 5): 1
//   BM_bucketed_rank/1000000      bucketed_scoreboard::rank() over one million
//                                 players (filled once per process by load(),
//                                 ~245 buckets of 4096): batches_per_op = the
//                                 client's sequential round trips, a batch
//                                 counted once (2); rt_per_op = the simulator's
//                                 count: one per node a batch touches (2 on
//                                 this 1-node cluster).
//   BM_bucketed_set/1000000       bucketed_scoreboard::set() on the same board:
//                                 batches_per_op (3–4), rt_per_op
//   BM_bucketed_around/1000000    bucketed_scoreboard::around(k = 5) on the same
//                                 board, every tie mode: batches_per_op (2; 3
//                                 only past empty buckets), rt_per_op
#include <kvmodel/kv/batch.hpp>
#include <kvmodel/patterns/bucketed_scoreboard.hpp>
#include <kvmodel/patterns/scoreboard.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace kvmodel;

/// A store counting the client's sequential round trips: each get, operate,
/// remove and batch_operate call is one (a batch goes to its nodes in parallel).
struct counting_store {
    sim::cluster* db;
    std::uint64_t calls = 0;

    result<kv::record> get(const kv::key& k, const kv::read_policy& rp) {
        ++calls;
        return db->get(k, rp);
    }
    result<kv::record> operate(const kv::key& k, std::span<const kv::operation> ops,
                               const kv::write_policy& wp) {
        ++calls;
        return db->operate(k, ops, wp);
    }
    result<void> remove(const kv::key& k, const kv::write_policy& wp) {
        ++calls;
        return db->remove(k, wp);
    }
    std::vector<result<kv::record>> batch_operate(std::span<const kv::batch_record> b,
                                                  const kv::batch_policy& bp) {
        ++calls;
        return kv::batch_operate(*db, b, bp);
    }
};

std::string player(std::uint64_t i) {
    std::string s = "p";
    s += std::to_string(i);
    return s;
}

sim::counters totals(const sim::cluster& db) { return db.stats().namespaces[0].totals; }

void set_counters(benchmark::State& st, const sim::counters& c) {
    const auto ops = static_cast<double>(st.iterations());
    st.counters["rt_per_op"] = static_cast<double>(c.round_trips) / ops;
    st.counters["bytes_written_per_op"] = static_cast<double>(c.bytes_written) / ops;
    st.counters["bytes_read_per_op"] = static_cast<double>(c.bytes_read) / ops;
}

/// A board of n players with scores 0..n/4 (ties), stats reset.
struct small_board {
    sim::cluster db;
    patterns::scoreboard<sim::cluster> sb{db};
    std::mt19937_64 rng{42};
    explicit small_board(std::size_t n) {
        for (std::size_t i = 0; i < n; ++i)
            if (!sb.set("g", player(i), static_cast<std::int64_t>(rng() % (n / 4 + 1)))) return;
        db.reset_stats();
    }
};

template <class F>
void run_small(benchmark::State& st, F call) {
    const auto n = static_cast<std::size_t>(st.range(0));
    small_board b(n);
    std::int64_t i = 0;
    for (auto _ : st) {
        ++i;
        if (!call(b, player(b.rng() % n), i)) {
            st.SkipWithError("call failed");
            break;
        }
    }
    set_counters(st, totals(b.db));
}

void BM_scoreboard_add(benchmark::State& st) {
    run_small(st, [](small_board& b, const std::string& p, std::int64_t i) {
        return b.sb.add("g", p, 3, value(i), i).has_value();
    });
}
void BM_scoreboard_set(benchmark::State& st) {
    run_small(st, [](small_board& b, const std::string& p, std::int64_t i) {
        return b.sb.set("g", p, i % 500).has_value();
    });
}
void BM_scoreboard_rank(benchmark::State& st) {
    run_small(st, [](small_board& b, const std::string& p, std::int64_t i) {
        const auto mode = static_cast<patterns::tie_mode>(i % 3);
        auto r = b.sb.rank("g", p, mode);
        return r && r->has_value();
    });
}
void BM_scoreboard_top(benchmark::State& st) {
    run_small(st, [](small_board& b, const std::string&, std::int64_t) {
        auto r = b.sb.top("g", 10, patterns::tie_mode::competition);
        return r && r->size() >= 10;
    });
}
void BM_scoreboard_around(benchmark::State& st) {
    run_small(st, [](small_board& b, const std::string& p, std::int64_t) {
        auto r = b.sb.around("g", p, 5);
        return r && !r->empty();
    });
}

/// One bucketed board of a million players per process (a 1-node cluster,
/// replication 1: the batch is one node's).
struct big_board {
    static constexpr std::size_t players = 1'000'000;
    std::unique_ptr<sim::cluster> db;
    std::unique_ptr<counting_store> store;
    std::unique_ptr<patterns::bucketed_scoreboard<counting_store>> sb;
    bool ok = false;

    big_board() {
        sim::cluster_config cfg;
        cfg.nodes = 1;
        cfg.namespaces[0].replication_factor = 1;
        db = std::make_unique<sim::cluster>(cfg);
        store = std::make_unique<counting_store>(counting_store{db.get()});
        sb = std::make_unique<patterns::bucketed_scoreboard<counting_store>>(
            *store, patterns::bucketed_scoreboard_options{.max_bucket = 8192,
                                                          .directory_shards = 512});
        std::mt19937_64 rng(7);
        std::vector<std::pair<std::string, std::int64_t>> rows;
        rows.reserve(players);
        for (std::size_t i = 0; i < players; ++i)
            rows.emplace_back(player(i), static_cast<std::int64_t>(rng() % 2'000'000));
        ok = sb->load("world", rows).has_value();
    }
    static big_board& get() {
        static big_board b;
        return b;
    }
};

template <class F>
void run_big(benchmark::State& st, F call) {
    big_board& b = big_board::get();
    if (!b.ok) {
        st.SkipWithError("load failed");
        return;
    }
    std::mt19937_64 rng(11);
    b.db->reset_stats();
    b.store->calls = 0;
    std::int64_t i = 0;
    for (auto _ : st) {
        ++i;
        if (!call(*b.sb, player(rng() % big_board::players), i)) {
            st.SkipWithError("call failed");
            break;
        }
    }
    set_counters(st, totals(*b.db));
    st.counters["batches_per_op"] =
        static_cast<double>(b.store->calls) / static_cast<double>(st.iterations());
    st.counters["buckets"] = static_cast<double>(b.sb->bucket_count("world").value_or(0));
}

void BM_bucketed_rank(benchmark::State& st) {
    run_big(st, [](const patterns::bucketed_scoreboard<counting_store>& sb, const std::string& p,
                   std::int64_t i) {
        auto r = sb.rank("world", p, static_cast<patterns::tie_mode>(i % 3));
        return r && r->has_value();
    });
}
void BM_bucketed_set(benchmark::State& st) {
    run_big(st, [](const patterns::bucketed_scoreboard<counting_store>& sb, const std::string& p,
                   std::int64_t i) { return sb.set("world", p, (i * 7919) % 2'000'000).has_value(); });
}

void BM_bucketed_around(benchmark::State& st) {
    run_big(st, [](const patterns::bucketed_scoreboard<counting_store>& sb, const std::string& p,
                   std::int64_t i) {
        auto r = sb.around("world", p, 5, static_cast<patterns::tie_mode>(i % 3));
        return r && r->size() >= 6;
    });
}

} // namespace

BENCHMARK(BM_scoreboard_add)->Arg(1000);
BENCHMARK(BM_scoreboard_set)->Arg(1000);
BENCHMARK(BM_scoreboard_rank)->Arg(1000);
BENCHMARK(BM_scoreboard_top)->Arg(1000);
BENCHMARK(BM_scoreboard_around)->Arg(1000);
BENCHMARK(BM_bucketed_rank)->Arg(1'000'000)->Iterations(2000);
BENCHMARK(BM_bucketed_set)->Arg(1'000'000)->Iterations(500);
BENCHMARK(BM_bucketed_around)->Arg(1'000'000)->Iterations(500);
