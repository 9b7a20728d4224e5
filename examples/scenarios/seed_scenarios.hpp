// examples/scenarios/seed_scenarios.hpp
//
// The seed documents' single-record scenarios, written once and used three
// ways: by the example programs (examples/0N_*.cpp), by `kvmodel demo`, and by
// tests that assert what they print. Each runs on any kv_store, prints its
// results to `out`, and returns them for checking.
#pragma once

#include <kvmodel/kv/record_size.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/patterns/capped_map.hpp>
#include <kvmodel/patterns/event_map.hpp>
#include <kvmodel/patterns/leaderboard.hpp>
#include <kvmodel/patterns/nested_document.hpp>
#include <kvmodel/patterns/timestamped_map.hpp>

#include <cstdint>
#include <cstdio>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace kvmodel::examples {

/// Stored size of a record as the server measures it (AEROSPIKE-RECORDS.md).
template <kv::kv_store Store>
std::size_t stored_size(Store& store, const kv::key& k) {
    auto r = store.get(k, kv::read_policy{});
    if (!r) return 0;
    return kv::record_size::stored(kv::record_size::flat(k.set(), std::nullopt, r->void_time != 0, r->bins));
}

inline std::string fmt_double(double d, int decimals = 2) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, d);
    return buf;
}

// ------------------------------------------------------------------ events

struct events_outcome {
    std::vector<std::int64_t> comments;      // timestamps of the comment events
    std::size_t viewed = 0;                  // count of viewed
    std::size_t viewed_or_comment = 0;       // count of viewed + comment
    std::vector<std::int64_t> in_window;     // events in [1523474230000, 1523474235999]
    std::size_t size_before = 0;             // stored size with the 6 events
    std::size_t size_after = 0;              // ... and with the 800 extra events
    std::size_t events_after = 0;
};

inline void print_events(std::ostream& out, const std::vector<patterns::event<>>& evs) {
    for (const auto& e : evs) out << "  " << e.ts << " " << e.type << " " << to_string(e.attrs) << "\n";
}

/// Seed "Using Maps to Capture and Query Events".
template <kv::kv_store Store>
result<events_outcome> run_events(Store& store, std::ostream& out) {
    // No set, as the seed's record and AEROSPIKE-RECORDS.md's measurement.
    patterns::event_map<Store> events(store, {.ns = "test", .set = "", .bin = "events"});
    const value user = "user-1";
    using ev = patterns::event<>;
    const std::vector<ev> seed = {
        {1523474230000, "fav", map{{"sku", 1}, {"b", 2}}},
        {1523474231001, "comment", map{{"sku", 2}, {"b", 22}}},
        {1523474236006, "viewed", map{{"foo", "bar"}, {"sku", 3}, {"zz", "top"}}},
        {1523474235005, "comment", map{{"sku", 1}, {"c", 1234}}},
        {1523474233003, "viewed", map{{"sku", 3}, {"z", 26}}},
        {1523474234004, "viewed", map{{"sku", 1}, {"ff", "hhhl"}}},
    };
    auto added = events.add(user, seed);
    if (!added) return added.error();
    events_outcome o;

    auto comments = events.of_type(user, "comment");
    if (!comments) return comments.error();
    out << "comment events:\n";
    print_events(out, *comments);
    for (const auto& e : *comments) o.comments.push_back(e.ts);

    auto viewed = events.count_of_type(user, "viewed");
    if (!viewed) return viewed.error();
    o.viewed = *viewed;
    out << "viewed events: " << o.viewed << "\n";

    auto both = events.count_of_types(user, {"viewed", "comment"});
    if (!both) return both.error();
    o.viewed_or_comment = *both;
    out << "viewed + comment events: " << o.viewed_or_comment << "\n";

    auto window = events.slice(user, 1523474230000, 1523474235999);
    if (!window) return window.error();
    out << "events in [1523474230000, 1523474235999):\n";
    print_events(out, *window);
    for (const auto& e : *window) o.in_window.push_back(e.ts);

    auto k = events.key_of(user);
    if (!k) return k.error();
    o.size_before = stored_size(store, *k);
    out << "record size with " << *added << " events: " << o.size_before << " bytes\n";

    // As the seed: sku = bbb = 1..400 for "zzz", 401..800 for "xyz".
    std::vector<ev> extra;
    for (std::int64_t i = 1; i <= 400; ++i)
        extra.push_back({1523473230000 + (i - 1) * 7337, "zzz", map{{"sku", i}, {"bbb", i}}});
    for (std::int64_t i = 401; i <= 800; ++i)
        extra.push_back({1523474237007 + (i - 401) * 7139, "xyz", map{{"sku", i}, {"bbb", i}}});
    auto total = events.add(user, extra);
    if (!total) return total.error();
    o.events_after = *total;
    o.size_after = stored_size(store, *k);
    out << "record size with " << o.events_after << " events: " << o.size_after << " bytes\n";
    return o;
}

// ------------------------------------------------------------ conversation

struct conversation_outcome {
    std::vector<std::string> in_window; // message ids in [1523474230000, 1523474250000)
    std::vector<std::string> recent;    // the four most recent, newest first
};

/// Seed "Maps as Event Containers with Timestamp Values".
template <kv::kv_store Store>
result<conversation_outcome> run_conversation(Store& store, std::ostream& out) {
    // [text, from, reply-to]
    using fields = std::tuple<std::string, std::string, std::string>;
    patterns::timestamped_map<Store, std::string, fields> chat(
        store, {.ns = "test", .set = "conversations", .bin = "messages"});
    const value convo = "alice-bob";
    struct msg {
        const char* id;
        std::int64_t ts;
        const char* text;
        const char* from;
    };
    const msg msgs[] = {
        {"5bd1a3a2-8b1d-4d35-9b2c-3b1f0c6f1a01", 1523474230000, "Hey Bob, are you there?", "alice"},
        {"7e0c9d41-2f6a-4c0e-8a51-0c2b8d7e3b02", 1523474241001, "Yes! What's up?", "bob"},
        {"1f9e2b7c-6d3a-4a8f-b0e4-5c7d9a2e4c03", 1523474249006, "Lunch today?", "alice"},
        {"c3a8e5d2-9b7f-4e1c-a6d0-8f2b4c1e5d04", 1523474257005, "Sure, noon?", "bob"},
        {"9d4b7f1e-3c2a-4d8b-9e5f-1a6c3b8d6e05", 1523474306005, "Noon works.", "alice"},
        {"319fa1a6-0640-4354-a426-10c4d3459f0a", 1523474316003, "Hee-hee!", "bob"},
    };
    std::string previous;
    for (const msg& m : msgs) {
        auto r = chat.add(convo, m.id, m.ts, fields{m.text, m.from, previous});
        if (!r) return r.error();
        previous = m.id;
    }
    conversation_outcome o;
    auto window = chat.slice(convo, 1523474230000, 1523474250000);
    if (!window) return window.error();
    out << "messages in [1523474230000, 1523474250000):\n";
    for (const auto& m : *window) {
        out << "  " << m.ts << " " << std::get<1>(m.payload) << ": " << std::get<0>(m.payload) << "\n";
        o.in_window.push_back(m.id);
    }
    auto recent = chat.most_recent(convo, 4);
    if (!recent) return recent.error();
    out << "four most recent, newest first:\n";
    for (const auto& m : *recent) {
        out << "  " << m.ts << " " << std::get<1>(m.payload) << ": " << std::get<0>(m.payload) << "\n";
        o.recent.push_back(m.id);
    }
    return o;
}

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

// ----------------------------------------------------------- world records

/// [time, athlete, place, date]
using record_entry = std::tuple<double, std::string, std::string, std::string>;

struct world_records_outcome {
    std::size_t size = 0;
    std::vector<record_entry> ordered;
    std::vector<record_entry> closest; // the two closest to 10.0 s
};

/// Seed "Ordered List Leaderboard": men's 100 m world records.
template <kv::kv_store Store>
result<world_records_outcome> run_world_records(Store& store, std::ostream& out) {
    patterns::leaderboard<Store, record_entry> board(store, {.ns = "test", .set = "records", .bin = "wr100m"});
    const value key = "100m";
    const std::vector<record_entry> list1 = {
        {10.06, "Bob Hayes", "Tokyo, Japan", "October 15, 1964"},
        {10.03, "Jim Hines", "Sacramento, USA", "June 20, 1968"},
        {10.02, "Charles Greene", "Mexico City, Mexico", "October 13, 1968"},
        {9.95, "Jim Hines", "Mexico City, Mexico", "October 14, 1968"},
        {9.93, "Calvin Smith", "Colorado Springs, USA", "July 3, 1983"},
        {9.93, "Carl Lewis", "Rome, Italy", "August 30, 1987"},
        {9.92, "Carl Lewis", "Seoul, South Korea", "September 24, 1988"},
    };
    const std::vector<record_entry> list2 = {
        {9.93, "Carl Lewis", "Rome, Italy", "August 30, 1987"},
        {9.92, "Carl Lewis", "Seoul, South Korea", "September 24, 1988"},
        {9.90, "Leroy Burrell", "New York, USA", "June 14, 1991"},
        {9.86, "Carl Lewis", "Tokyo, Japan", "August 25, 1991"},
        {9.85, "Leroy Burrell", "Lausanne, Switzerland", "July 6, 1994"},
        {9.84, "Donovan Bailey", "Atlanta, USA", "July 27, 1996"},
        {9.79, "Maurice Greene", "Athens, Greece", "June 16, 1999"},
        {9.77, "Asafa Powell", "Athens, Greece", "June 14, 2005"},
        {9.77, "Asafa Powell", "Gateshead, England", "June 11, 2006"},
        {9.77, "Asafa Powell", "Zurich, Switzerland", "August 18, 2006"},
        {9.74, "Asafa Powell", "Rieti, Italy", "September 9, 2007"},
        {9.72, "Usain Bolt", "New York, USA", "May 31, 2008"},
        {9.69, "Usain Bolt", "Beijing, China", "August 16, 2008"},
        {9.58, "Usain Bolt", "Berlin, Germany", "August 16, 2009"},
    };
    auto r1 = board.merge(key, list1);
    if (!r1) return r1.error();
    auto r2 = board.merge(key, list2);
    if (!r2) return r2.error();
    world_records_outcome o;
    o.size = *r2;
    auto all = board.all(key);
    if (!all) return all.error();
    o.ordered = *all;
    out << "merged list (" << o.size << " records, fastest first):\n";
    for (const auto& [t, who, where, when] : o.ordered)
        out << "  " << fmt_double(t) << " " << who << ", " << where << ", " << when << "\n";
    // Relative rank -1, count 2 from [10.0, nil]: just below and at/above 10.0 s.
    auto near = board.around(key, value{list{10.0, nil}}, -1, 2);
    if (!near) return near.error();
    o.closest = *near;
    out << "closest two results to 10.0 seconds:\n";
    for (const auto& [t, who, where, when] : o.closest)
        out << "  " << fmt_double(t) << " " << who << ", " << where << ", " << when << "\n";
    return o;
}

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
