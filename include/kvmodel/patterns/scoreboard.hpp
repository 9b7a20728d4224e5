// kvmodel/patterns/scoreboard.hpp
//
// An updatable scoreboard: one record per board holding player -> score, with
// set / add / remove, a player's rank in three tie modes, the top N with ties
// and the players around one — EVERY call ONE operate() (one round trip).
// (leaderboard.hpp is the seed's append-only ORDERED-list board of whole
// entries; this is the board whose scores change.)
//
// Bins of a board's record (key: ns, set, board):
//   board     a KEY_VALUE_ORDERED map player -> stored score, where stored =
//             score on a lowest-first board and -score on a highest-first one,
//             so that the better player always has the lower value rank and
//             every read below is the same ascending-rank call;
//   distinct  a KEY_ORDERED map stored score -> number of players holding it
//             (for the dense rank), kept by the same write operate with two
//             expression writes: the old score's count down (removed at 0),
//             the new one's up;
//   op_ids    add()'s exactly-once marker (exactly_once.hpp).
//
// Ranks are 1-based, best first. Tie modes for players with equal scores:
//   competition "1224": 1 + the players with a strictly better score;
//   dense       "1223": 1 + the distinct scores strictly better;
//   ordinal     "1234": ties broken by player name (byte order) ascending,
//                       on both board orders: 1 + the player's value rank.
// rank() computes them server-side from the player's stored score inside the
// one operate (an exp_read: let s = the player's score, then a value-range
// count on the board, or a key-range count on `distinct`), so the answer is
// consistent with the board at that instant.
//
// Cost per call (n players, d distinct scores, k results): every call ONE
// operate, one round trip. A write rewrites the record (~n player entries and
// d count entries, plus add()'s op ids) — the dense-rank map costs about one
// map entry per distinct score and two expression writes per update; reads
// are O(log n + k) in the engine. set() and remove() are idempotent under
// retries; add() takes an op id and applies once however often it is resent
// (within once_options::keep later adds to the same board).
//
// Not in kvmodel.hpp: it brings the expression builder and engine; include it.
// Scores are int64. A highest-first board stores -score: INT64_MIN is refused
// (PARAMETER_ERROR), and an add() past the int64 range wraps as the server's
// increment does.
#pragma once

#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/exp/build.hpp>
#include <kvmodel/exp/codes.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/patterns/exactly_once.hpp>
#include <kvmodel/patterns/record_pattern.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// Which scores rank first.
enum class board_order : std::uint8_t {
    highest_first, ///< a game score: the highest is rank 1
    lowest_first,  ///< a race time: the lowest is rank 1
};

/// How players with equal scores are ranked (see the header comment).
enum class tie_mode : std::uint8_t {
    competition, ///< "1224": equal scores share a rank, the next skips
    dense,       ///< "1223": equal scores share a rank, the next does not skip
    ordinal,     ///< "1234": ties broken by player name, ascending
};

/// Where boards live and how they rank.
struct scoreboard_options {
    /// The records: one per board; `bin` holds player -> stored score.
    record_location where{.set = "scoreboards", .bin = "board"};
    board_order order = board_order::highest_first; ///< which scores rank first
    std::string distinct_bin = "distinct"; ///< stored score -> players holding it (<= 15 bytes)
    once_options once{};                   ///< add()'s op-id marker bin and window
};

/// A player on a board with a rank in the asked tie mode.
struct score_entry {
    std::string player; ///< the player
    std::int64_t score = 0; ///< the score
    std::int64_t rank = 0;  ///< 1-based, in the tie mode asked for
    /// Memberwise equality.
    friend bool operator==(const score_entry&, const score_entry&) = default;
};

/// What add() did.
struct add_outcome {
    bool applied = false; ///< false: an earlier send of this op id was applied, not this one
    std::optional<std::int64_t> score; ///< when applied: the player's new score
};

namespace detail {

/// The ranks of a window of entries sorted best first, given the ranks of its
/// first entry: competition (from `first_competition`), dense (from
/// `first_dense`) or ordinal (from `first_ordinal`), each advancing as the
/// mode says. `stored` are the entries' stored scores.
inline void assign_ranks(std::vector<score_entry>& out,
                         const std::vector<std::int64_t>& stored,
                         tie_mode mode,
                         std::int64_t first_ordinal,
                         std::int64_t first_competition,
                         std::int64_t first_dense) {
    std::int64_t dense = first_dense;
    std::int64_t competition = first_competition;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const auto ordinal = first_ordinal + static_cast<std::int64_t>(i);
        if (i > 0 && stored[i] != stored[i - 1]) {
            ++dense;
            competition = ordinal;
        }
        out[i].rank = mode == tie_mode::ordinal ? ordinal
                      : mode == tie_mode::dense ? dense
                                                : competition;
    }
}

/// The stored form of a score: itself on a lowest-first board, its negation on
/// a highest-first one (so that better is always lower); PARAMETER_ERROR
/// naming `what` for INT64_MIN on a highest-first board.
inline result<std::int64_t> to_stored(board_order order, std::int64_t score, std::string_view what) {
    if (order == board_order::lowest_first) return score;
    if (score == std::numeric_limits<std::int64_t>::min())
        return error{status::parameter_error,
                     std::string(what) +
                         ": INT64_MIN is not a score on a highest-first board (stored negated)"};
    return -score;
}

/// The score of a stored value (wrapping as the server's increment does).
inline std::int64_t from_stored(board_order order, std::int64_t stored) {
    return order == board_order::lowest_first
               ? stored
               : static_cast<std::int64_t>(0ULL - static_cast<std::uint64_t>(stored));
}

} // namespace detail

/// Per-board player -> score with ranks, top N with ties and "around me"; every
/// call ONE operate() (see the header comment for bins, tie modes and costs).
/// Errors: the store's (a timeout may leave a write applied: resend it — set
/// and remove are idempotent, add is with its op id); PARAMETER_ERROR for a
/// bad board key, INT64_MIN on a highest-first board, or an undecodable
/// stored value; RECORD_TOO_BIG for a board past the record limit (see
/// bucketed_scoreboard for larger boards).
template <kv::kv_store Store>
class scoreboard : public record_pattern<Store> {
public:
    /// Boards as `opt` says; keeps a reference to the store.
    explicit scoreboard(Store& store, scoreboard_options opt = {})
        : record_pattern<Store>(store, opt.where)
        , m_opt(std::move(opt)) {}

    /// The options the board was made with.
    const scoreboard_options& options() const noexcept { return m_opt; }

    /// The board bin's map policy: KEY_VALUE_ORDERED (rank by value).
    static cdt::map_policy board_policy() {
        return cdt::map_ops::policy(map_order::key_value_ordered, cdt::map_write_flags::none);
    }
    /// The distinct bin's map policy: KEY_ORDERED (count by key range).
    static cdt::map_policy distinct_policy() {
        return cdt::map_ops::policy(map_order::key_ordered, cdt::map_write_flags::none);
    }

    /// Sets the player's score (creating the player). Idempotent: resend it
    /// after a timeout. Returns the score.
    result<std::int64_t> set(const value& board, const std::string& player,
                             std::int64_t score) const {
        auto ops = set_ops(player, score);
        if (!ops) return ops.error();
        auto r = write(board, *ops);
        if (!r) return r.error();
        return score;
    }

    /// The operations set() sends in its one operate (to send them in a batch
    /// of one's own); PARAMETER_ERROR as set().
    result<std::vector<kv::operation>> set_ops(const std::string& player,
                                               std::int64_t score) const {
        auto s = detail::to_stored(m_opt.order, score, "scoreboard::set");
        if (!s) return s.error();
        return update_ops(player,
                          this->on_bin(cdt::map_ops::put(value(player), value(*s), board_policy())));
    }

    /// The operations remove() sends in its one operate; the second one's
    /// result is 1 if the player was on the board.
    std::vector<kv::operation> remove_ops(const std::string& player) const {
        return update_ops(player, this->on_bin(cdt::map_ops::remove_by_key(
                                      value(player), cdt::return_type::count)));
    }

    /// Adds `delta` to the player's score (a new player starts at 0), at most
    /// once per op_id: a resend with the same op_id and stamp after a timeout
    /// applies it only if the first send did not (exactly_once.hpp; stamps order
    /// the op ids kept, e.g. the caller's clock). Returns the new score when applied.
    result<add_outcome> add(const value& board, const std::string& player, std::int64_t delta,
                            const value& op_id, std::int64_t stamp) const {
        // The stored delta: negated (wrapping) on a highest-first board.
        const std::int64_t d = detail::from_stored(m_opt.order, delta);
        auto k = this->key_of(board);
        if (!k) return k.error();
        const std::vector<kv::operation> ops = update_ops(
            player, this->on_bin(cdt::map_ops::increment(value(player), value(d), board_policy())));
        auto r = operate_once(this->store(), *k, op_id, stamp, std::span<const kv::operation>(ops),
                              this->location().write, m_opt.once);
        if (!r) return r.error();
        if (!r->applied) return add_outcome{};
        const value& v = r->rec.results.at(1);
        if (!v.is_int())
            return error{status::parameter_error,
                         "scoreboard::add: expected an int score, got " + to_string(v)};
        return add_outcome{true, score_of(v.as_int())};
    }

    /// Removes the player; true if it was on the board. Idempotent.
    result<bool> remove(const value& board, const std::string& player) const {
        auto r = write(board, remove_ops(player));
        if (!r) {
            if (r.error().code == status::record_not_found) return false;
            return r.error();
        }
        return r->at(1).is_int() && r->at(1).as_int() > 0;
    }

    /// The player's score, or nullopt if it is not on the board.
    result<std::optional<std::int64_t>> score(const value& board, const std::string& player) const {
        auto r = this->read(board, {cdt::map_ops::get_by_key(value(player), cdt::return_type::value)},
                            value());
        if (!r) return r.error();
        const value& v = r->front();
        if (v.is_nil()) return std::optional<std::int64_t>{};
        if (!v.is_int())
            return error{status::parameter_error,
                         "scoreboard::score: expected an int score, got " + to_string(v)};
        return std::optional<std::int64_t>(score_of(v.as_int()));
    }

    /// The number of players on the board.
    result<std::size_t> size(const value& board) const {
        auto r = this->read(board, {cdt::map_ops::size()}, value());
        if (!r) return r.error();
        return count_result(r->front(), "scoreboard::size");
    }

    /// The player's 1-based rank in `mode`, or nullopt if it is not on the
    /// board: ONE operate whose expression reads the player's stored score and
    /// counts the better ones (competition: players; dense: distinct scores;
    /// ordinal: the player's value rank).
    result<std::optional<std::int64_t>> rank(const value& board, const std::string& player,
                                             tie_mode mode) const {
        namespace e = exp;
        const e::expr b = e::bin_map(this->location().bin);
        const e::expr s = e::var("s");
        e::expr better;
        switch (mode) {
        case tie_mode::competition:
            better = e::map_get_by_value_range(rt(cdt::return_type::count), e::nil(), s, b);
            break;
        case tie_mode::dense:
            better = e::map_get_by_key_range(rt(cdt::return_type::count), e::nil(), s,
                                             e::bin_map(m_opt.distinct_bin));
            break;
        case tie_mode::ordinal:
            better = e::map_get_by_key(rt(cdt::return_type::rank), e::type::integer, player, b);
            break;
        }
        const e::expr x = e::let(e::def("s", stored_expr(player)),
                                 e::cond(has_player(player), better + 1, e::unknown()));
        auto r = read_exp(board, {x});
        if (!r) return r.error();
        const value& v = r->front();
        if (v.is_nil()) return std::optional<std::int64_t>{};
        if (!v.is_int())
            return error{status::parameter_error,
                         "scoreboard::rank: expected an int rank, got " + to_string(v)};
        return std::optional<std::int64_t>(v.as_int());
    }

    /// The best n players and everyone tied with the n-th, best first (ties
    /// by player name), ranked in `mode`. ONE operate: an expression finds the
    /// n-th stored score and reads the ranks up to its last tie.
    result<std::vector<score_entry>> top(const value& board, std::size_t n, tie_mode mode) const {
        if (n == 0) return std::vector<score_entry>{};
        namespace e = exp;
        const e::expr b = e::bin_map(this->location().bin);
        const auto cap = static_cast<std::int64_t>(
            std::min<std::size_t>(n, static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())));
        const e::expr nth = e::var("nth");
        const e::expr through_ties =
            e::map_get_by_value_range(rt(cdt::return_type::count), e::nil(), nth, b) +
            e::map_get_by_value(rt(cdt::return_type::count), nth, b);
        const e::expr x = e::cond(
            e::map_size(b) <= cap,
            e::map_get_by_rank_range(rt(cdt::return_type::key_value), 0, cap, b),
            e::let(e::def("nth", e::map_get_by_rank(rt(cdt::return_type::value), e::type::integer,
                                                    cap - 1, b)),
                   e::map_get_by_rank_range(rt(cdt::return_type::key_value), 0, through_ties, b)));
        auto r = read_exp(board, {x});
        if (!r) return r.error();
        std::vector<std::int64_t> stored;
        auto out = sorted_entries(r->front(), stored, "scoreboard::top");
        if (!out) return out.error();
        detail::assign_ranks(*out, stored, mode, 1, 1, 1);
        return out;
    }

    /// The player and up to k players ranked right above and right below it,
    /// best first, ranked in `mode`; empty if the player is not on the board.
    /// ONE operate: expressions read the player's value rank r, the ranks
    /// [max(r - k, 0), r + k], and how many players and distinct scores are
    /// strictly better than the first of them.
    result<std::vector<score_entry>> around(const value& board, const std::string& player,
                                            std::size_t k) const {
        return around(board, player, k, tie_mode::competition);
    }

    /// around() ranked in `mode`.
    result<std::vector<score_entry>> around(const value& board, const std::string& player,
                                            std::size_t k, tie_mode mode) const {
        namespace e = exp;
        const e::expr b = e::bin_map(this->location().bin);
        const auto kk = static_cast<std::int64_t>(
            std::min<std::size_t>(k, static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())));
        // start = max(r - k, 0): a negative rank would count from the end.
        const e::expr start = e::max(e::map_get_by_key(rt(cdt::return_type::rank),
                                                       e::type::integer, player, b) -
                                         kk,
                                     0);
        const e::expr r = e::map_get_by_key(rt(cdt::return_type::rank), e::type::integer, player, b);
        const e::expr window = e::let(
            e::def("st", start),
            e::cond(has_player(player),
                    e::map_get_by_rank_range(rt(cdt::return_type::key_value), e::var("st"),
                                             r + kk + 1 - e::var("st"), b),
                    e::unknown()));
        const e::expr first = e::map_get_by_rank(rt(cdt::return_type::value), e::type::integer,
                                                 e::var("st"), b);
        const e::expr better = e::let(
            e::def("st", start),
            e::cond(has_player(player),
                    e::map_get_by_value_range(rt(cdt::return_type::count), e::nil(), first, b),
                    e::unknown()));
        const e::expr better_distinct = e::let(
            e::def("st", start),
            e::cond(has_player(player),
                    e::map_get_by_key_range(rt(cdt::return_type::count), e::nil(), first,
                                            e::bin_map(m_opt.distinct_bin)),
                    e::unknown()));
        const e::expr first_rank = e::let(
            e::def("st", start), e::cond(has_player(player), e::var("st"), e::unknown()));
        auto res = read_exp(board, {window, better, better_distinct, first_rank});
        if (!res) return res.error();
        const std::vector<value>& v = *res;
        if (v[0].is_nil()) return std::vector<score_entry>{};
        if (!v[1].is_int() || !v[2].is_int() || !v[3].is_int())
            return error{status::parameter_error, "scoreboard::around: expected int counts"};
        std::vector<std::int64_t> stored;
        auto out = sorted_entries(v[0], stored, "scoreboard::around");
        if (!out) return out.error();
        detail::assign_ranks(*out, stored, mode, v[3].as_int() + 1, v[1].as_int() + 1,
                             v[2].as_int() + 1);
        return out;
    }

private:
    static std::int32_t rt(cdt::return_type t) { return static_cast<std::int32_t>(t); }

    std::int64_t score_of(std::int64_t stored) const {
        return detail::from_stored(m_opt.order, stored);
    }

    /// The player's stored score (an int expression; unknown when absent).
    exp::expr stored_expr(const std::string& player) const {
        return exp::map_get_by_key(rt(cdt::return_type::value), exp::type::integer, player,
                                   exp::bin_map(this->location().bin));
    }

    /// True when the player is on the board.
    exp::expr has_player(const std::string& player) const {
        return exp::map_get_by_key(rt(cdt::return_type::count), exp::type::integer, player,
                                   exp::bin_map(this->location().bin)) > 0;
    }

    /// The distinct-score count maintenance around a board write `board_op`:
    /// [old score's count - 1 (gone at 0)], board_op, [new score's count + 1].
    /// The first is a no-op (EVAL_NO_FAIL on unknown) when the player is new;
    /// the last when the player is gone (a remove).
    std::vector<kv::operation> update_ops(const std::string& p, kv::operation board_op) const {
        namespace e = exp;
        const std::string& player_bin = m_opt.distinct_bin;
        const e::expr dist = e::bin_map(player_bin);
        const e::expr old = e::var("o");
        const e::expr down = e::let(
            e::def("o", stored_expr(p)),
            e::cond(has_player(p),
                    e::map_remove_by_value(0, e::map_increment(old, -1, dist, distinct_policy())),
                    e::unknown()));
        const e::expr up = e::cond(
            has_player(p),
            e::map_increment(stored_expr(p), 1,
                             e::cond(e::bin_exists(player_bin), dist,
                                     e::expr(value(map{}))),
                             distinct_policy()),
            e::unknown());
        std::vector<kv::operation> ops;
        ops.reserve(3);
        ops.push_back(kv::op::exp_write(player_bin, down.bytes(), exp::write_flags::eval_no_fail));
        ops.push_back(std::move(board_op));
        ops.push_back(kv::op::exp_write(player_bin, up.bytes(), exp::write_flags::eval_no_fail));
        return ops;
    }

    /// A write of update_ops in ONE operate; the per-op results.
    result<std::vector<value>> write(const value& board,
                                     const std::vector<kv::operation>& ops) const {
        auto k = this->key_of(board);
        if (!k) return k.error();
        auto r = patterns::operate(this->store(), *k, ops, this->location().write);
        if (!r) return r.error();
        return std::move(r->results);
    }

    /// A read of expressions (EVAL_NO_FAIL: unknown reads nil): ONE operate; a
    /// missing board reads nil.
    result<std::vector<value>> read_exp(const value& board, std::vector<exp::expr> xs) const {
        auto k = this->key_of(board);
        if (!k) return k.error();
        std::vector<kv::operation> ops;
        ops.reserve(xs.size());
        // Result names r0, r1, ... (at most 4 here).
        std::string name = "r0";
        for (const exp::expr& x : xs) {
            ops.push_back(kv::op::exp_read(name, x.bytes(), exp::read_flags::eval_no_fail));
            ++name[1];
        }
        auto r = patterns::operate(this->store(), *k, ops, this->location().write);
        if (!r) {
            if (r.error().code == status::record_not_found) return std::vector<value>(xs.size());
            return r.error();
        }
        return std::move(r->results);
    }

    /// The entries of a KEY_VALUE result sorted best first (stored score, then
    /// player), their stored scores in `stored`.
    result<std::vector<score_entry>> sorted_entries(const value& v, std::vector<std::int64_t>& stored,
                                                    std::string_view what) const {
        std::vector<std::pair<std::string, std::int64_t>> pairs;
        if (v.is_map()) {
            for (const auto& [pk, pv] : v.as_map()) {
                if (!pk.is_string() || !pv.is_int())
                    return error{status::parameter_error,
                                 std::string(what) + ": expected player -> int score, got " +
                                     to_string(pk) + " -> " + to_string(pv)};
                pairs.emplace_back(pk.as_string(), pv.as_int());
            }
        } else {
            auto d = decode_pairs<std::string, std::int64_t>(v, what);
            if (!d) return d.error();
            pairs = std::move(d).value();
        }
        std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
            return std::tie(a.second, a.first) < std::tie(b.second, b.first);
        });
        std::vector<score_entry> out;
        out.reserve(pairs.size());
        stored.clear();
        for (auto& [p, s] : pairs) {
            stored.push_back(s);
            out.push_back(score_entry{std::move(p), score_of(s), 0});
        }
        return out;
    }

    scoreboard_options m_opt;
};

} // namespace kvmodel::patterns
