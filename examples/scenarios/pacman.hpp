// examples/scenarios/pacman.hpp
//
// Seed "Capped Collection of Events", as a scenario (see common.hpp).
#pragma once

#include "common.hpp"

#include <kvmodel/patterns/capped_map.hpp>

#include <cstdint>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kvmodel::examples {

// ------------------------------------------------------------------ pacman

/// A high score: [score, {name, dt}] as the seed stores it.
using high_score = std::pair<std::int64_t, std::map<std::string, std::string>>;

struct pacman_outcome {
    std::vector<std::string> by_date;   // names in timestamp order
    std::vector<std::string> by_rank;   // names, highest first
    std::size_t size_after_expand = 0;
    std::int64_t highest = 0;
    std::int64_t lowest_before = 0;
    std::size_t size_after_inject = 0;
    std::int64_t lowest_after = 0;
    std::int64_t highest_after = 0;
    bool injected_kept = false;
};

/// Seed "Capped Collection of Events": Pac-Man high scores capped at 100.
template <kv::kv_store Store>
result<pacman_outcome> run_pacman(Store& store, std::ostream& out, std::uint64_t seed = 42) {
    patterns::capped_map<Store, std::int64_t, high_score> scores(
        store, 100, patterns::keep::top_by_rank, {.ns = "test", .set = "games", .bin = "scores"});
    const value game = "pacman";
    struct initial {
        std::int64_t ts;
        std::int64_t score;
        const char* name;
        const char* dt;
    };
    const initial six[] = {
        {1512435671573, 9800, "CPU", "2017-12-05 01:01:11"},
        {1512435672111, 9200, "ETC", "2017-12-05 01:01:12"},
        {1512435673222, 24700, "SOS", "2017-12-05 01:01:13"},
        {1512435674333, 34500, "ACE", "2017-12-05 01:01:14"},
        {1512435675444, 18400, "EIR", "2017-12-05 01:01:15"},
        {1512435676555, 17400, "CFO", "2017-12-05 01:01:16"},
    };
    for (const initial& s : six) {
        auto r = scores.insert(game, s.ts, high_score{s.score, {{"name", s.name}, {"dt", s.dt}}});
        if (!r) return r.error();
    }
    pacman_outcome o;
    auto all = scores.all(game);
    if (!all) return all.error();
    out << "scores by date:\n";
    for (const auto& [ts, hs] : *all) {
        out << "  " << ts << " " << hs.second.at("name") << " " << hs.first << "\n";
        o.by_date.push_back(hs.second.at("name"));
    }
    auto ranked = scores.top(game, 6);
    if (!ranked) return ranked.error();
    out << "scores by rank:\n";
    for (const auto& [ts, hs] : *ranked) {
        out << "  " << hs.second.at("name") << " " << hs.first << "\n";
        o.by_rank.push_back(hs.second.at("name"));
    }

    // Expand to 100 with seeded random scores below the top one.
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> points(1000, 30000);
    const char* letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    std::int64_t ts = 1512435680000;
    for (int i = 0; i < 94; ++i) {
        std::string name{letters[rng() % 26], letters[rng() % 26], letters[rng() % 26]};
        ts += 1000 + static_cast<std::int64_t>(rng() % 100000);
        auto r = scores.insert(game, ts, high_score{points(rng), {{"name", name}, {"dt", "2017-12-06"}}});
        if (!r) return r.error();
        o.size_after_expand = r->size;
    }
    out << "expanded to " << o.size_after_expand << " scores\n";
    auto top10 = scores.top(game, 10);
    if (!top10) return top10.error();
    out << "top 10:\n";
    for (const auto& [t, hs] : *top10) out << "  " << hs.second.at("name") << " " << hs.first << "\n";
    auto hi = scores.max(game);
    auto lo = scores.min(game);
    if (!hi) return hi.error();
    if (!lo) return lo.error();
    o.highest = (*hi)->second.first;
    o.lowest_before = (*lo)->second.first;
    out << "highest: " << o.highest << ", lowest: " << o.lowest_before << "\n";
    auto bottom5 = scores.bottom(game, 5);
    if (!bottom5) return bottom5.error();
    out << "bottom 5:\n";
    for (const auto& [t, hs] : *bottom5) out << "  " << hs.second.at("name") << " " << hs.first << "\n";

    // A new score just above the lowest: inserted and trimmed in one operate.
    std::int64_t injected = o.lowest_before + 1;
    auto ins = scores.insert(game, ts + 5000, high_score{injected, {{"name", "NEW"}, {"dt", "2017-12-07"}}});
    if (!ins) return ins.error();
    o.size_after_inject = ins->size;
    o.injected_kept = ins->kept;
    auto hi2 = scores.max(game);
    auto lo2 = scores.min(game);
    if (!hi2) return hi2.error();
    if (!lo2) return lo2.error();
    o.highest_after = (*hi2)->second.first;
    o.lowest_after = (*lo2)->second.first;
    out << "injected " << injected << " (kept: " << (o.injected_kept ? "yes" : "no") << "): size "
        << o.size_after_inject << ", lowest " << o.lowest_after << ", highest " << o.highest_after << "\n";
    return o;
}

} // namespace kvmodel::examples
