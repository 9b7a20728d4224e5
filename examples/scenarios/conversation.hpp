// examples/scenarios/conversation.hpp
//
// Seed "Maps as Event Containers with Timestamp Values", as a scenario (see common.hpp).
#pragma once

#include "common.hpp"

#include <kvmodel/patterns/timestamped_map.hpp>

#include <cstdint>
#include <map>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kvmodel::examples {

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

} // namespace kvmodel::examples
