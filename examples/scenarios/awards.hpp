// examples/scenarios/awards.hpp
//
// Seed "Operating on Nested Maps and Lists", as a scenario (see common.hpp).
#pragma once

#include "common.hpp"

#include <kvmodel/patterns/nested_document.hpp>

#include <cstdint>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kvmodel::examples {

// ------------------------------------------------------------------ awards

struct awards_outcome {
    std::size_t cfo_attrs_after_first = 0;
    std::size_t cfo_attrs_after_second = 0;
    std::int64_t trophies = 0;       // the leader's trophy counter after two grants
    std::string leader;
    std::vector<std::string> top3;
};

/// Seed "Operating on Nested Maps and Lists": awards at depth.
template <kv::kv_store Store>
result<awards_outcome> run_awards(Store& store, std::ostream& out) {
    patterns::nested_document<Store> board(store, {.ns = "test", .set = "players", .bin = "players"});
    const value game = "pacman";
    struct p {
        const char* name;
        std::int64_t score;
        const char* dt;
        std::int64_t ts;
    };
    const p six[] = {
        {"CPU", 9800, "2017-12-05 01:01:11", 1512435671573},
        {"ETC", 9200, "2017-12-05 01:01:12", 1512435672111},
        {"SOS", 24700, "2017-12-05 01:01:13", 1512435673222},
        {"ACE", 34500, "2017-12-05 01:01:14", 1512435674333},
        {"EIR", 18400, "2017-12-05 01:01:15", 1512435675444},
        {"CFO", 17400, "2017-12-05 01:01:16", 1512435676555},
    };
    for (const p& x : six) {
        auto r = board.set_player(game, {x.name, x.score, map{{"dt", x.dt}, {"ts", x.ts}}});
        if (!r) return r.error();
    }
    using who = typename patterns::nested_document<Store>::who;
    awards_outcome o;
    auto a1 = board.award_once(game, who::player("CFO"), "unicorn");
    if (!a1) return a1.error();
    auto a2 = board.award_once(game, who::player("CFO"), "unicorn");
    if (!a2) return a2.error();
    o.cfo_attrs_after_first = *a1;
    o.cfo_attrs_after_second = *a2;
    out << "CFO's unicorn award, given twice: attributes " << *a1 << " then " << *a2 << "\n";
    for (int i = 0; i < 2; ++i) {
        auto t = board.increment(game, who::leader(), "trophy");
        if (!t) return t.error();
        o.trophies = t->is_int() ? t->as_int() : 0;
    }
    auto top = board.top(game, 3);
    if (!top) return top.error();
    o.leader = top->empty() ? "" : top->front().name;
    out << "trophies of the leader " << o.leader << ": " << o.trophies << "\n";
    out << "top three:\n";
    for (const auto& pl : *top) {
        out << "  " << pl.name << " " << to_string(pl.score) << " " << to_string(value{pl.attrs}) << "\n";
        o.top3.push_back(pl.name);
    }
    return o;
}

} // namespace kvmodel::examples
