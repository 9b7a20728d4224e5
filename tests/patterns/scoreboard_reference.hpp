// tests/patterns/scoreboard_reference.hpp
//
// What scoreboard_test.cpp and bucketed_scoreboard_test.cpp check against: a
// naive reference board (a std::map player -> score, ranked by counting and
// sorting) and one resent random write under faults.
#pragma once

#include <kvmodel/patterns/scoreboard.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace patterns_scoreboard_reference {

using kvmodel::patterns::board_order;
using kvmodel::patterns::score_entry;
using kvmodel::patterns::tie_mode;

inline constexpr tie_mode all_modes[] = {tie_mode::competition, tie_mode::dense,
                                         tie_mode::ordinal};

/// prefix + i (appended: "p" + std::to_string(i) trips GCC 12's -Wrestrict).
inline std::string name(const char* prefix, std::uint64_t i) {
    std::string s = prefix;
    s += std::to_string(i);
    return s;
}

/// The naive reference: a plain map player -> score.
struct reference {
    board_order order = board_order::highest_first;
    std::map<std::string, std::int64_t> scores;

    bool better(std::int64_t a, std::int64_t b) const {
        return order == board_order::highest_first ? a > b : a < b;
    }
    /// Best first, ties by player name ascending.
    std::vector<std::pair<std::string, std::int64_t>> sorted() const {
        std::vector<std::pair<std::string, std::int64_t>> v(scores.begin(), scores.end());
        std::stable_sort(v.begin(), v.end(),
                         [&](const auto& a, const auto& b) { return better(a.second, b.second); });
        return v;
    }
    std::int64_t rank(const std::string& p, tie_mode mode) const {
        const std::int64_t s = scores.at(p);
        std::int64_t players = 0;
        std::int64_t ahead_ties = 0;
        std::set<std::int64_t> distinct;
        for (const auto& [q, t] : scores) {
            if (better(t, s)) {
                ++players;
                distinct.insert(t);
            } else if (t == s && q < p) {
                ++ahead_ties;
            }
        }
        if (mode == tie_mode::competition) return players + 1;
        if (mode == tie_mode::dense) return static_cast<std::int64_t>(distinct.size()) + 1;
        return players + ahead_ties + 1;
    }
    std::vector<score_entry> entries(std::size_t from, std::size_t to, tie_mode mode) const {
        const auto v = sorted();
        std::vector<score_entry> out;
        for (std::size_t i = from; i < to && i < v.size(); ++i)
            out.push_back({v[i].first, v[i].second, rank(v[i].first, mode)});
        return out;
    }
    std::vector<score_entry> top(std::size_t n, tie_mode mode) const {
        const auto v = sorted();
        std::size_t end = std::min(n, v.size());
        while (end > 0 && end < v.size() && v[end].second == v[end - 1].second) ++end;
        return entries(0, end, mode);
    }
    std::vector<score_entry> around(const std::string& p, std::size_t k, tie_mode mode) const {
        const auto v = sorted();
        std::size_t i = 0;
        while (v[i].first != p) ++i;
        return entries(i >= k ? i - k : 0, i + k + 1, mode);
    }
};

/// One random write (remove, set or add with op id `op`) of player p on
/// `board`, resent until it gets a definite answer (only TIMEOUT may come
/// back), an add sometimes resent once more after success; then applied to ref.
template <class Board, class Name>
void resent_write(const Board& sb, const Name& board, const std::string& p, std::int64_t op,
                  std::mt19937_64& rng, reference& ref) {
    const auto x = static_cast<std::int64_t>(rng() % 21) - 10;
    const auto kind = rng() % 5;
    for (;;) {
        kvmodel::result<void> done;
        if (kind == 0) {
            auto r = sb.remove(board, p);
            if (!r) done = r.error();
        } else if (kind == 1) {
            auto r = sb.set(board, p, x);
            if (!r) done = r.error();
        } else {
            auto r = sb.add(board, p, x, kvmodel::value(op), op);
            if (!r) done = r.error();
        }
        if (done) break;
        REQUIRE(done.error().code == kvmodel::status::timeout);
    }
    if (kind >= 2 && rng() % 3 == 0) (void)sb.add(board, p, x, kvmodel::value(op), op);
    if (kind == 0)
        ref.scores.erase(p);
    else if (kind == 1)
        ref.scores[p] = x;
    else
        ref.scores[p] += x;
}

} // namespace patterns_scoreboard_reference
