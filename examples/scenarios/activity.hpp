// examples/scenarios/activity.hpp
//
// Seed "Data Modeling Part 5: Bucketing": Joe, Bob and Jane post four
// messages; Jane's inbox, newest first, under each fan-out pattern (see
// common.hpp for how scenarios are used).
#pragma once

#include "common.hpp"

#include <kvmodel/patterns/activity_stream.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace kvmodel::examples {

struct activity_outcome {
    std::vector<std::string> on_write; // Jane's inbox lines, newest first
    std::vector<std::string> bucketed;
    std::vector<std::string> by_reference;
    std::vector<std::string> on_read;
};

/// The seed's four posts, one second apart.
inline std::vector<patterns::message> seed_posts() {
    return {
        {"", "Joe", {"Bob", "Jane"}, 1470074748000, "Silly message..."},
        {"", "Jane", {"Bob"}, 1470074749000, "My 1st message..."},
        {"", "Jane", {"Bob"}, 1470074750000, "My 2nd message..."},
        {"", "Jane", {"Bob"}, 1470074751000, "My 3rd message..."},
    };
}

template <class Stream>
result<std::vector<std::string>> run_stream(Stream& s, std::ostream& out, std::string_view title) {
    for (const patterns::message& m : seed_posts()) {
        auto r = s.post(m);
        if (!r) return r.error();
    }
    std::vector<std::string> lines;
    std::optional<std::string> cursor;
    out << title << ": Jane's inbox, two per page\n";
    do {
        auto page = s.inbox("Jane", 2, cursor);
        if (!page) return page.error();
        for (const auto& m : page->items) {
            lines.push_back(m.from + ">> " + m.body);
            out << "  " << lines.back() << "\n";
        }
        cursor = page->next;
    } while (cursor);
    return lines;
}

template <kv::kv_queryable Store>
result<activity_outcome> run_activity(Store& store, std::ostream& out) {
    activity_outcome o;
    patterns::fan_out_on_write<Store> on_write(store);
    auto a = run_stream(on_write, out, "fan out on write");
    if (!a) return a.error();
    o.on_write = *a;
    patterns::bucketed_fan_out<Store> bucketed(store, {patterns::bucket_policy::by_count, 3});
    auto b = run_stream(bucketed, out, "fan out on write with buckets of 3");
    if (!b) return b.error();
    o.bucketed = *b;
    patterns::fan_out_by_reference<Store> by_ref(store);
    auto c = run_stream(by_ref, out, "fan out keys, body stored once");
    if (!c) return c.error();
    o.by_reference = *c;
    patterns::fan_out_on_read<Store> on_read(store);
    if (auto s = on_read.setup(); !s) return s.error();
    auto d = run_stream(on_read, out, "fan out on read (secondary-index query)");
    if (!d) return d.error();
    o.on_read = *d;
    return o;
}

} // namespace kvmodel::examples
