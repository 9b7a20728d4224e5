// examples/scenarios/world_records.hpp
//
// Seed "Ordered List Leaderboard", as a scenario (see common.hpp).
#pragma once

#include "common.hpp"

#include <kvmodel/patterns/leaderboard.hpp>

#include <cstdint>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kvmodel::examples {

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

} // namespace kvmodel::examples
