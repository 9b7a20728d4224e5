// examples/scenarios/events.hpp
//
// Seed "Using Maps to Capture and Query Events", as a scenario (see common.hpp).
#pragma once

#include "common.hpp"

#include <kvmodel/patterns/event_map.hpp>

#include <cstdint>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kvmodel::examples {

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

} // namespace kvmodel::examples
