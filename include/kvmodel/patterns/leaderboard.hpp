// kvmodel/patterns/leaderboard.hpp
//
// The seed's append-only leaderboard on an ordered list (seed "Ordered List
// Leaderboard"): whole entries are merged, never updated or removed, and
// rank 0 is the lowest value — for a board whose scores change (set / add /
// remove, tie modes, "around me") use scoreboard.hpp. One record per board
// holding an ORDERED list of entries such as
// [9.92, "Carl Lewis", "Seoul, South Korea", "September 24, 1988"]. Entries
// sort by their encoded value — the first field first — so equal scores may
// repeat while identical entries are merged away: merge() appends with
// ADD_UNIQUE | NO_FAIL | PARTIAL, which adds the new entries and skips those
// already present (and duplicates within the batch) in one operate().
//
// "Highest"/"lowest" are by value: for a race time lower is better, for a
// game score higher is. closest() asks by relative rank, so it answers even
// when no entry equals the anchor (the seed's "two results closest to 10.0 s").
//
// Every call is ONE operate(); reads are O(log n + k) in the engine.
#pragma once

#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/patterns/detail/record_pattern.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace kvmodel::patterns {

namespace detail {
/// The first rank of a RANK result (a list of ints), none when empty.
KVMODEL_DECL result<std::optional<std::size_t>> first_rank(const value& v, std::string_view what);
} // namespace detail

/// A per-board ORDERED list of unique entries, sorted by their encoded value
/// (first field first): merge, rank of an entry, highest/lowest K, the K
/// closest to a value by relative rank. Every call is ONE operate() (one
/// round trip); a write rewrites the board's record, reads are O(log n + k).
/// Errors: the store's (RECORD_TOO_BIG for a board past the record limit);
/// PARAMETER_ERROR for a bad board key or an undecodable stored entry.
template <kv::kv_store Store, encodable Entry>
class leaderboard : public detail::record_pattern<Store> {
public:
    /// Boards in `where` (default: set "boards", bin "board"); keeps a
    /// reference to the store.
    explicit leaderboard(Store& store, record_location where = {.set = "boards", .bin = "board"})
        : detail::record_pattern<Store>(store, std::move(where)) {}

    /// Merges entries uniquely in one operate(); returns the board's size.
    result<std::size_t> merge(const value& board, std::span<const Entry> entries) const {
        std::vector<value> items;
        items.reserve(entries.size());
        for (const Entry& e : entries) items.push_back(codec<Entry>::encode(e));
        auto r = this->run(board, detail::one_op(cdt::list_ops::append_items(std::move(items), unique_policy())));
        if (!r) return r.error();
        return detail::count_result(r->front(), "leaderboard::merge");
    }

    /// Adds one entry unless it is already there; returns the board's size.
    result<std::size_t> add(const value& board, const Entry& e) const {
        auto r = this->run(board, detail::one_op(cdt::list_ops::append(codec<Entry>::encode(e), unique_policy())));
        if (!r) return r.error();
        return detail::count_result(r->front(), "leaderboard::add");
    }

    /// The entry's rank (0 = lowest value), or nullopt if it is not on the board.
    result<std::optional<std::size_t>> rank_of(const value& board, const Entry& e) const {
        auto r = this->read(board, detail::one_op(cdt::list_ops::get_by_value(codec<Entry>::encode(e),
                                                                             cdt::return_type::rank)),
                            value{list{}});
        if (!r) return r.error();
        return detail::first_rank(r->front(), "leaderboard::rank_of");
    }

    /// The k highest entries, highest first.
    result<std::vector<Entry>> highest(const value& board, std::size_t k) const {
        if (k == 0) return std::vector<Entry>{};
        auto sk = static_cast<std::int64_t>(k);
        return select(board, cdt::list_ops::get_by_rank_range(-sk, sk, cdt::return_type::value), true);
    }

    /// The k lowest entries, lowest first.
    result<std::vector<Entry>> lowest(const value& board, std::size_t k) const {
        if (k == 0) return std::vector<Entry>{};
        return select(board, cdt::list_ops::get_by_rank_range(0, static_cast<std::int64_t>(k),
                                                              cdt::return_type::value));
    }

    /// The k entries around `anchor` by relative rank: the window starts
    /// k/2 ranks below where the anchor is or would be. `anchor` is a value
    /// in the entries' encoding, usually a prefix such as [10.0, nil].
    result<std::vector<Entry>> closest(const value& board, const value& anchor, std::size_t k) const {
        if (k == 0) return std::vector<Entry>{};
        auto sk = static_cast<std::int64_t>(k);
        return around(board, anchor, -(sk / 2), k);
    }

    /// Entries of relative ranks [rel, rel + count) from the anchor, lowest first.
    result<std::vector<Entry>> around(const value& board, const value& anchor, std::int64_t rel,
                                      std::size_t count) const {
        return select(board, cdt::list_ops::get_by_value_rel_rank_range(
                                 anchor, rel, static_cast<std::int64_t>(count), cdt::return_type::value));
    }

    /// Every entry, lowest first.
    result<std::vector<Entry>> all(const value& board) const {
        return select(board, cdt::list_ops::get_range(0, std::nullopt));
    }

    /// The board's entry count (0 without a record). One round trip.
    result<std::size_t> size(const value& board) const {
        auto r = this->read(board, detail::one_op(cdt::list_ops::size()), value{});
        if (!r) return r.error();
        return detail::count_result(r->front(), "leaderboard::size");
    }

private:
    static cdt::list_policy unique_policy() {
        cdt::list_policy p;
        p.order = list_order::ordered;
        p.flags = cdt::list_write_flags::add_unique | cdt::list_write_flags::no_fail |
                  cdt::list_write_flags::partial;
        return p;
    }

    // The entries `o` reads, in rank order or (reversed) highest first.
    result<std::vector<Entry>> select(const value& board, cdt::op o, bool reversed = false) const {
        auto r = this->read(board, detail::one_op(std::move(o)), value{list{}});
        if (!r) return r.error();
        return detail::decode_values<Entry>(r->front(), "leaderboard", reversed);
    }
};

} // namespace kvmodel::patterns

#if KVMODEL_DEFINITIONS
namespace kvmodel::patterns {

KVMODEL_DECL result<std::optional<std::size_t>> detail::first_rank(const value& v, std::string_view what) {
    auto ranks = decode_values<std::int64_t>(v, what);
    if (!ranks) return ranks.error();
    if (ranks->empty()) return std::optional<std::size_t>{};
    return std::optional<std::size_t>(static_cast<std::size_t>(ranks->front()));
}

} // namespace kvmodel::patterns
#endif // KVMODEL_DEFINITIONS
