// kvmodel/patterns/bucketed_scoreboard.hpp
//
// A scoreboard past one record: the board's players spread over score-range
// buckets, each bucket a scoreboard.hpp record, with an exact global rank in
// two round trips (a batch each) and rebalancing as scores drift.
//
// Records of board B (namespace and set from the options; B a string):
//   B:meta   bin "bounds": a KEY_ORDERED map  lower stored score -> bucket id
//            (the first bucket's lower bound is INT64_MIN), bin "next": the
//            next bucket id. The commit point of a rebalance.
//   B:b<id>  a bucket: scoreboard.hpp's bins (player -> stored score, stored
//            score -> players), holding the players whose stored score is in
//            [its lower bound, the next bucket's).
//   B:d<h>   the player directory, h = FNV-1a(player) % directory_shards:
//            bin "dir" map player -> stored score, bin "op_ids" add()'s marker.
// Stored scores are scoreboard.hpp's (negated on a highest-first board), so
// better is lower and buckets run best first.
//
// Every count is taken over a bucket's own range only, never its whole map:
// an entry outside it (left by a rebalance or a write cut short) is never
// counted, so ranks stay exact while those are cleaned up.
//
// Cost (b buckets, d directory shards):
//   rank()    2 batches: {the player's directory shard, meta}, then {the own
//             bucket's counts below the player, and each better bucket's
//             in-range counts} — exact in all three tie modes (dense: distinct
//             scores are partitioned by range too). Round trips: 2 when a
//             batch is one round trip (one per node touched on a real
//             cluster, sent in parallel); with kv/batch.hpp's fallback (no
//             batch_operate on the store) one per record. The server reads
//             every better bucket's record whole: ~9 MB per rank at one
//             million players in 245 buckets (bench/scoreboard_bench.cpp).
//   around()  2 batches, as rank(); the second also reads, server-side
//             (expressions), a window of the k nearest buckets on each side
//             (their last / first k in-range entries, the player's +-k in its
//             own) with the counts ahead of each window's first entry; a 3rd
//             batch only when those buckets hold fewer than k players on a
//             side (empty buckets) and more lie beyond it.
//   score()   1 read of the directory shard.
//   set(), add(), remove()  1 batch read {directory shard, meta}, then ONE
//             operate on the new bucket, one on the old bucket when the player
//             moves (or leaves), and ONE on the directory, last: 3–4 round
//             trips. Each step is idempotent and the directory is written
//             last, so resending a failed or in-doubt call repairs whatever
//             the first send left half done; add() applies once per op id
//             (its marker is in the directory shard and is checked first).
//   top(n)    one read of meta, then one read per bucket walked (best first),
//             each reading the bucket's in-range entries whole.
//   rebalance()  per pass: 1 read of meta and 1 batch of counts, then per
//             split: 1 read, 4 writes (a fresh bucket id, the copy to it, the
//             bound in meta, the trim of the old); per merge: 1 read, 3 writes
//             (copy, meta, delete); per bucket with stray entries: 1 write.
//   load()    bulk-fills an empty board: one write per bucket and per shard,
//             meta last.
// Concurrency: writes of one player must not run concurrently with each other
// (resends after a failure are fine), and rebalance() must not run
// concurrently with writes to the board (a write landing in a bucket while it
// is split could be trimmed away). Reads may run at any time; a read racing a
// write of player p may see p half-moved (ranks of others off by one for that
// instant).
#pragma once

#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/exp/build.hpp>
#include <kvmodel/exp/codes.hpp>
#include <kvmodel/kv/batch.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/patterns/exactly_once.hpp>
#include <kvmodel/patterns/record_pattern.hpp>
#include <kvmodel/patterns/scoreboard.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// Where a bucketed board lives, how it ranks and how big buckets get.
struct bucketed_scoreboard_options {
    std::string ns = "test";          ///< the namespace
    std::string set = "scoreboards";  ///< the set of all the board's records
    board_order order = board_order::highest_first; ///< which scores rank first
    std::size_t max_bucket = 8192;    ///< rebalance() splits a bucket past this many players
    /// ... and merges two neighbours holding fewer than min(min_bucket,
    /// max_bucket / 2) together (so that a merge never calls for a split).
    std::size_t min_bucket = 1024;
    std::uint32_t directory_shards = 256; ///< directory records (fixed for the board's life)
    kv::write_policy write{};         ///< policy of the writes
    kv::read_policy read{};           ///< policy of the reads
    once_options once{};              ///< add()'s op-id marker in the directory shards
};

/// What a rebalance() did.
struct rebalance_report {
    std::size_t splits = 0;  ///< buckets split in two
    std::size_t merges = 0;  ///< neighbour pairs merged
    std::size_t trimmed = 0; ///< buckets cleaned of entries outside their range
    std::size_t buckets = 0; ///< buckets after it
};

/// A scoreboard over score-range buckets (see the header comment): exact
/// global rank in two batches, set / add / remove with resends safe,
/// rebalancing. Errors: the store's; PARAMETER_ERROR for bad input (INT64_MIN
/// on a highest-first board, an empty board name, directory_shards == 0,
/// max_bucket < 2, a duplicate player in load())
/// or an undecodable stored value; RECORD_EXISTS from load() on a board that
/// has records.
template <kv::kv_store Store>
class bucketed_scoreboard {
public:
    /// Boards as `opt` says; keeps a reference to the store.
    explicit bucketed_scoreboard(Store& store, bucketed_scoreboard_options opt = {})
        : m_store(&store)
        , m_opt(std::move(opt))
        , m_bucket(store, {.where = {.ns = m_opt.ns,
                                     .set = m_opt.set,
                                     .bin = "board",
                                     .write = m_opt.write,
                                     .read = m_opt.read},
                           .order = m_opt.order}) {}

    /// The options the board was made with.
    const bucketed_scoreboard_options& options() const noexcept { return m_opt; }

    /// Sets the player's score. Resend after a failure (idempotent).
    result<std::int64_t> set(const std::string& board, const std::string& player,
                             std::int64_t score) const {
        auto s = detail::to_stored(m_opt.order, score, "bucketed_scoreboard::set");
        if (!s) return s.error();
        auto st = locate(board, player, {});
        if (!st) return st.error();
        auto w = move_to(board, player, *st, *s, {}, 0);
        if (!w) return w.error();
        return score;
    }

    /// Adds delta to the player's score (a new player starts at 0), at most
    /// once per op_id (resend with the same op_id and stamp after a failure).
    result<add_outcome> add(const std::string& board, const std::string& player,
                            std::int64_t delta, const value& op_id, std::int64_t stamp) const {
        auto st = locate(board, player, op_id);
        if (!st) return st.error();
        if (st->op_seen) return add_outcome{};
        const std::int64_t old = st->stored.value_or(0);
        // Stored scores move opposite to a highest-first score (wrapping).
        const std::int64_t s = detail::from_stored(
            m_opt.order, static_cast<std::int64_t>(static_cast<std::uint64_t>(
                             detail::from_stored(m_opt.order, old)) +
                                                   static_cast<std::uint64_t>(delta)));
        auto w = move_to(board, player, *st, s, op_id, stamp);
        if (!w) return w.error();
        if (!*w) return add_outcome{};
        return add_outcome{true, detail::from_stored(m_opt.order, s)};
    }

    /// Removes the player; true if it was on the board. Idempotent.
    result<bool> remove(const std::string& board, const std::string& player) const {
        auto st = locate(board, player, {});
        if (!st) return st.error();
        if (!st->stored) return false;
        if (!st->bounds.empty()) {
            auto old_bucket = bucket_key(board, st->bucket_of(*st->stored));
            if (!old_bucket) return old_bucket.error();
            auto r =
                patterns::operate(*m_store, *old_bucket, m_bucket.remove_ops(player), m_opt.write);
            if (!r && r.error().code != status::record_not_found) return r.error();
        }
        auto d = shard_key(board, player);
        if (!d) return d.error();
        auto dr = patterns::operate(
            *m_store, *d,
            {kv::op::cdt(dir_bin, cdt::map_ops::remove_by_key(value(player), cdt::return_type::none))},
            m_opt.write);
        if (!dr && dr.error().code != status::record_not_found) return dr.error();
        return true;
    }

    /// The player's score, or nullopt: one read of its directory shard.
    result<std::optional<std::int64_t>> score(const std::string& board,
                                              const std::string& player) const {
        auto d = shard_key(board, player);
        if (!d) return d.error();
        auto r = patterns::operate(
            *m_store, *d,
            {kv::op::cdt(dir_bin, cdt::map_ops::get_by_key(value(player), cdt::return_type::value))},
            kv::as_write_policy(m_opt.read));
        if (!r) {
            if (r.error().code == status::record_not_found) return std::optional<std::int64_t>{};
            return r.error();
        }
        const value& v = r->results.at(0);
        if (v.is_nil()) return std::optional<std::int64_t>{};
        if (!v.is_int()) return bad("bucketed_scoreboard::score", v);
        return std::optional<std::int64_t>(detail::from_stored(m_opt.order, v.as_int()));
    }

    /// The player's exact 1-based global rank in `mode`, or nullopt: two
    /// batches (the header comment says what each holds).
    result<std::optional<std::int64_t>> rank(const std::string& board, const std::string& player,
                                             tie_mode mode) const {
        auto st = locate(board, player, {});
        if (!st) return st.error();
        if (!st->stored || st->bounds.empty()) return std::optional<std::int64_t>{};
        const std::int64_t s = *st->stored;
        const std::size_t own = st->index_of(s);
        std::vector<kv::batch_record> batch;
        batch.reserve(own + 1);
        for (std::size_t j = 0; j <= own; ++j) {
            auto k = bucket_key(board, st->bounds[j].second);
            if (!k) return k.error();
            const value lo(st->bounds[j].first);
            // Better buckets: their in-range counts. Own bucket: counts below s.
            const std::optional<value> hi =
                j < own ? std::optional<value>(value(st->bounds[j + 1].first)) : value(s);
            std::vector<kv::operation> ops = {
                kv::op::cdt(board_bin, cdt::map_ops::get_by_value_range(lo, hi, cdt::return_type::count)),
                kv::op::cdt(distinct_bin,
                            cdt::map_ops::get_by_key_range(lo, hi, cdt::return_type::count))};
            if (j == own) {
                ops.push_back(kv::op::cdt(
                    board_bin, cdt::map_ops::get_by_key(value(player), cdt::return_type::rank)));
                ops.push_back(kv::op::cdt(board_bin, cdt::map_ops::get_by_value_range(
                                                         value(), value(s), cdt::return_type::count)));
            }
            batch.push_back(kv::batch_record::read(std::move(*k), std::move(ops), m_opt.read));
        }
        const auto res = kv::batch_operate(*m_store, std::span<const kv::batch_record>(batch));
        std::int64_t players = 0;
        std::int64_t distinct = 0;
        std::int64_t tie_position = 0;
        for (std::size_t j = 0; j < res.size(); ++j) {
            if (!res[j]) {
                if (res[j].error().code == status::record_not_found) continue;
                return res[j].error();
            }
            const std::vector<value>& v = res[j]->results;
            players += v.at(0).is_int() ? v[0].as_int() : 0;
            distinct += v.at(1).is_int() ? v[1].as_int() : 0;
            // The player's place among its ties: its value rank minus the
            // entries below its score (a player caught mid-move counts 0).
            if (j == own && v.at(2).is_int() && v.at(3).is_int())
                tie_position = v[2].as_int() - v[3].as_int();
        }
        const std::int64_t r = mode == tie_mode::competition ? players + 1
                               : mode == tie_mode::dense     ? distinct + 1
                                                             : players + tie_position + 1;
        return std::optional<std::int64_t>(r);
    }

    /// The best n players and everyone tied with the n-th, best first (ties
    /// by player name), ranked in `mode`: one read of meta and one per bucket
    /// walked (equal scores never straddle buckets, so the n-th's ties are in
    /// the last one read).
    result<std::vector<score_entry>> top(const std::string& board, std::size_t n,
                                         tie_mode mode) const {
        std::vector<score_entry> out;
        if (n == 0) return out;
        auto st = locate(board, "", {});
        if (!st) return st.error();
        std::vector<std::int64_t> stored;
        for (std::size_t j = 0; j < st->bounds.size() && out.size() < n; ++j) {
            auto k = bucket_key(board, st->bounds[j].second);
            if (!k) return k.error();
            const value lo(st->bounds[j].first);
            const std::optional<value> hi = st->hi_of(j);
            // All of this bucket's in-range entries when it may be the last
            // one needed: its ties with the n-th are then among them.
            auto r = patterns::operate(
                *m_store, *k,
                {kv::op::cdt(board_bin,
                             cdt::map_ops::get_by_value_range(lo, hi, cdt::return_type::key_value))},
                kv::as_write_policy(m_opt.read));
            if (!r) {
                if (r.error().code == status::record_not_found) continue;
                return r.error();
            }
            auto pairs = sorted_pairs(r->results.at(0), "bucketed_scoreboard::top");
            if (!pairs) return pairs.error();
            for (auto& [p, s] : *pairs) {
                if (out.size() >= n && s != stored.back()) break;
                stored.push_back(s);
                out.push_back({std::move(p), detail::from_stored(m_opt.order, s), 0});
            }
        }
        detail::assign_ranks(out, stored, mode, 1, 1, 1);
        return out;
    }

    /// The player and up to k players ranked right above and right below it
    /// across bucket boundaries, best first, with exact global ranks in
    /// `mode`; empty if the player is not on the board (or is caught mid-move
    /// by a write cut short: resend the write). Two batches: {directory
    /// shard, meta}, then one over buckets 0..own+k — every better bucket's
    /// in-range counts, and a server-side window (expressions) of the k
    /// nearest buckets on each side: their last / first k in-range entries,
    /// the player's +-k in its own. A third batch only when those k buckets
    /// on a side hold fewer than k players and more lie beyond (empty
    /// buckets): the windows of all the remaining buckets on that side.
    result<std::vector<score_entry>> around(const std::string& board, const std::string& player,
                                            std::size_t k, tie_mode mode) const {
        auto st = locate(board, player, {});
        if (!st) return st.error();
        std::vector<score_entry> none;
        if (!st->stored || st->bounds.empty()) return none;
        const std::size_t nb = st->bounds.size();
        const std::size_t own = st->index_of(*st->stored);
        const std::size_t kk = std::min<std::size_t>(k, std::numeric_limits<std::int32_t>::max());
        std::vector<bucket_window> w(nb);
        const std::size_t first = own >= kk ? own - kk : 0;
        const std::size_t last = std::min(own + kk, nb - 1);
        // Batch 2: counts of buckets 0..last, windows of first..last.
        if (auto r = read_windows(board, *st, player, kk, 0, last + 1, first, w); !r)
            return r.error();
        if (!w[own].entries) return none;
        // Batch 3 when a side came up short and has unread buckets.
        std::size_t above = 0;
        std::size_t below = 0;
        for (std::size_t j = first; j <= last; ++j) {
            const auto n = w[j].entries ? w[j].entries->size() : 0;
            if (j < own) above += n;
            if (j > own) below += n;
        }
        std::vector<std::pair<std::size_t, std::size_t>> more;
        if (above < kk && first > 0) more.emplace_back(0, first);
        if (below < kk && last + 1 < nb) more.emplace_back(last + 1, nb);
        for (const auto& [from, to] : more)
            if (auto r = read_windows(board, *st, player, kk, from, to, from, w); !r)
                return r.error();
        // Players and distinct scores before each bucket, then each window
        // ranked from its first entry's place, concatenated best first.
        std::vector<score_entry> all;
        std::size_t at = 0;
        std::int64_t players = 0;
        std::int64_t distinct = 0;
        for (std::size_t j = 0; j < nb && w[j].read; ++j) {
            if (w[j].entries) {
                detail::assign_ranks(*w[j].entries, w[j].stored, mode,
                                     players + w[j].first_pos + 1,
                                     players + w[j].first_better + 1,
                                     distinct + w[j].first_better_distinct + 1);
                if (j == own)
                    for (std::size_t i = 0; i < w[j].entries->size(); ++i)
                        if ((*w[j].entries)[i].player == player) at = all.size() + i;
                all.insert(all.end(), w[j].entries->begin(), w[j].entries->end());
            }
            players += w[j].players;
            distinct += w[j].distinct;
        }
        const std::size_t from = at >= kk ? at - kk : 0;
        const std::size_t to = std::min(all.size(), at + kk + 1);
        return std::vector<score_entry>(all.begin() + static_cast<std::ptrdiff_t>(from),
                                        all.begin() + static_cast<std::ptrdiff_t>(to));
    }

    /// The number of players (the sum of the buckets' in-range counts): two
    /// reads (meta, then a batch over the buckets).
    result<std::size_t> size(const std::string& board) const {
        auto c = bucket_counts(board);
        if (!c) return c.error();
        std::size_t n = 0;
        for (const bucket_info& b : c->buckets) n += b.in_range;
        return n;
    }

    /// The number of buckets (one read of meta).
    result<std::size_t> bucket_count(const std::string& board) const {
        auto st = locate(board, "", {});
        if (!st) return st.error();
        return st->bounds.size();
    }

    /// Splits buckets past max_bucket at their median score (never between
    /// equal scores), merges neighbours holding fewer than min_bucket
    /// together, and removes entries a bucket holds outside its range; until
    /// nothing is left to do. Resend after a failure: every step is
    /// idempotent and meta is the commit point (a split cut short before it
    /// leaves an unused bucket record behind, never a wrong count). Must not
    /// run concurrently with writes to the board.
    result<rebalance_report> rebalance(const std::string& board) const {
        rebalance_report rep;
        for (;;) {
            auto c = bucket_counts(board);
            if (!c) return c.error();
            rep.buckets = c->buckets.size();
            bool changed = false;
            for (std::size_t j = 0; j < c->buckets.size(); ++j) {
                const bucket_info& b = c->buckets[j];
                if (b.out_of_range > 0) {
                    auto t = trim(board, *c, j);
                    if (!t) return t.error();
                    ++rep.trimmed;
                }
            }
            for (std::size_t j = 0; j < c->buckets.size() && !changed; ++j) {
                if (c->buckets[j].in_range <= m_opt.max_bucket) continue;
                auto sp = split(board, *c, j);
                if (!sp) return sp.error();
                if (*sp) {
                    ++rep.splits;
                    changed = true;
                }
            }
            for (std::size_t j = 0; j + 1 < c->buckets.size() && !changed; ++j) {
                if (c->buckets[j].in_range + c->buckets[j + 1].in_range >=
                    std::min(m_opt.min_bucket, m_opt.max_bucket / 2))
                    continue;
                auto m = merge(board, *c, j);
                if (!m) return m.error();
                ++rep.merges;
                changed = true;
            }
            if (!changed) return rep;
        }
    }

    /// Bulk-fills an empty board with (player, score) pairs: buckets of about
    /// max_bucket / 2 players (never cutting equal scores), one write per
    /// bucket and per directory shard, meta last. RECORD_EXISTS when the
    /// board has a meta record; PARAMETER_ERROR for a duplicate player.
    result<void> load(const std::string& board,
                      std::span<const std::pair<std::string, std::int64_t>> players) const {
        if (auto o = check_options(); !o) return o;
        std::vector<std::pair<std::int64_t, std::string>> rows;
        rows.reserve(players.size());
        for (const auto& [p, sc] : players) {
            auto s = detail::to_stored(m_opt.order, sc, "bucketed_scoreboard::load");
            if (!s) return s.error();
            rows.emplace_back(*s, p);
        }
        std::sort(rows.begin(), rows.end());
        {
            std::vector<std::string> names;
            names.reserve(rows.size());
            for (const auto& r : rows) names.push_back(r.second);
            std::sort(names.begin(), names.end());
            if (auto d = std::adjacent_find(names.begin(), names.end()); d != names.end())
                return error{status::parameter_error,
                             "bucketed_scoreboard::load: player '" + *d + "' given twice"};
        }
        auto mk = meta_key(board);
        if (!mk) return mk.error();
        if (auto m = m_store->get(*mk, m_opt.read); m)
            return error{status::record_exists,
                         "bucketed_scoreboard::load: board '" + board + "' already has records"};
        const std::size_t chunk = std::max<std::size_t>(1, m_opt.max_bucket / 2);
        std::vector<std::pair<value, value>> bounds;
        std::int64_t id = 0;
        for (std::size_t i = 0; i < rows.size() || id == 0; ++id) {
            std::size_t end = std::min(rows.size(), i + chunk);
            while (end < rows.size() && rows[end].first == rows[end - 1].first) ++end;
            const std::int64_t lo = id == 0 ? min_stored : rows[i].first;
            auto w = write_entries(board, id, std::span(rows).subspan(i, end - i));
            if (!w) return w;
            bounds.emplace_back(value(lo), value(id));
            i = end;
        }
        std::map<std::uint32_t, std::vector<std::pair<value, value>>> shards;
        for (const auto& [s, p] : rows) shards[shard_of(p)].emplace_back(value(p), value(s));
        for (auto& [h, items] : shards) {
            auto k = kv::key::make(m_opt.ns, m_opt.set, value(board + ":d" + std::to_string(h)));
            if (!k) return k.error();
            auto w = patterns::operate(
                *m_store, *k,
                {kv::op::cdt(dir_bin, cdt::map_ops::put_items(std::move(items), dir_policy()))},
                m_opt.write);
            if (!w) return w.error();
        }
        auto w = patterns::operate(
            *m_store, *mk,
            {kv::op::cdt(bounds_bin, cdt::map_ops::put_items(std::move(bounds), dir_policy())),
             kv::op::write(next_bin, value(id))},
            m_opt.write);
        if (!w) return w.error();
        return {};
    }

private:
    static constexpr const char* board_bin = "board";
    static constexpr const char* distinct_bin = "distinct";
    static constexpr const char* dir_bin = "dir";
    static constexpr const char* bounds_bin = "bounds";
    static constexpr const char* next_bin = "next";
    static constexpr std::int64_t min_stored = std::numeric_limits<std::int64_t>::min();

    static cdt::map_policy dir_policy() { return scoreboard<Store>::distinct_policy(); }

    static error bad(std::string_view what, const value& v) {
        return error{status::parameter_error,
                     std::string(what) + ": unexpected stored value " + to_string(v)};
    }

    /// What locate() read: the player's stored score, the bucket bounds.
    struct state {
        std::optional<std::int64_t> stored;                     ///< the player's, if on the board
        std::vector<std::pair<std::int64_t, std::int64_t>> bounds; ///< (lower bound, id), ascending
        bool op_seen = false;                                   ///< add()'s op id already applied

        std::size_t index_of(std::int64_t s) const {
            auto it = std::upper_bound(bounds.begin(), bounds.end(), s,
                                       [](std::int64_t x, const auto& b) { return x < b.first; });
            return static_cast<std::size_t>(it - bounds.begin()) - 1;
        }
        std::int64_t bucket_of(std::int64_t s) const { return bounds[index_of(s)].second; }
        std::optional<value> hi_of(std::size_t j) const {
            if (j + 1 < bounds.size()) return value(bounds[j + 1].first);
            return std::nullopt;
        }
    };

    /// One bucket's counts for rebalance().
    struct bucket_info {
        std::size_t in_range = 0;
        std::size_t out_of_range = 0;
    };
    struct board_counts {
        state st;
        std::vector<bucket_info> buckets;
    };

    result<void> check_options() const {
        if (m_opt.directory_shards == 0 || m_opt.max_bucket < 2)
            return error{status::parameter_error,
                         "bucketed_scoreboard: need directory_shards > 0 and max_bucket >= 2"};
        return {};
    }

    std::uint32_t shard_of(const std::string& player) const {
        std::uint64_t h = 14695981039346656037ULL; // FNV-1a: stable across platforms
        for (const char c : player) {
            h ^= static_cast<unsigned char>(c);
            h *= 1099511628211ULL;
        }
        return static_cast<std::uint32_t>(h % m_opt.directory_shards);
    }

    result<kv::key> named_key(const std::string& board, std::string_view suffix) const {
        if (board.empty())
            return error{status::parameter_error, "bucketed_scoreboard: empty board name"};
        std::string name = board;
        name += suffix;
        return kv::key::make(m_opt.ns, m_opt.set, value(std::move(name)));
    }
    result<kv::key> meta_key(const std::string& board) const { return named_key(board, ":meta"); }
    result<kv::key> shard_key(const std::string& board, const std::string& player) const {
        if (auto o = check_options(); !o) return o.error();
        return named_key(board, ":d" + std::to_string(shard_of(player)));
    }
    result<kv::key> bucket_key(const std::string& board, std::int64_t id) const {
        return named_key(board, ":b" + std::to_string(id));
    }
    /// The bucket record's name as scoreboard<Store> takes it.
    value bucket_name(const std::string& board, std::int64_t id) const {
        return value(board + ":b" + std::to_string(id));
    }

    /// One batch: the player's directory entry (and whether op_id is in its
    /// marker, when given) and the meta bounds. An empty player reads meta only.
    result<state> locate(const std::string& board, const std::string& player,
                         const value& op_id) const {
        auto mk = meta_key(board);
        if (!mk) return mk.error();
        std::vector<kv::batch_record> batch;
        batch.push_back(kv::batch_record::read(
            *mk, {kv::op::cdt(bounds_bin, cdt::map_ops::get_by_index_range(
                                              0, std::nullopt, cdt::return_type::key_value))},
            m_opt.read));
        if (!player.empty()) {
            auto dk = shard_key(board, player);
            if (!dk) return dk.error();
            std::vector<kv::operation> ops = {kv::op::cdt(
                dir_bin, cdt::map_ops::get_by_key(value(player), cdt::return_type::value))};
            if (!op_id.is_nil())
                ops.push_back(kv::op::cdt(m_opt.once.bin, cdt::map_ops::get_by_key(
                                                              op_id, cdt::return_type::count)));
            batch.push_back(kv::batch_record::read(std::move(*dk), std::move(ops), m_opt.read));
        }
        const auto res = kv::batch_operate(*m_store, std::span<const kv::batch_record>(batch));
        state st;
        if (res[0]) {
            auto pairs =
                decode_pairs<std::int64_t, std::int64_t>(res[0]->results.at(0), "bucketed_scoreboard");
            if (!pairs) return pairs.error();
            st.bounds = std::move(pairs).value();
            std::sort(st.bounds.begin(), st.bounds.end());
        } else if (res[0].error().code != status::record_not_found) {
            return res[0].error();
        }
        if (res.size() > 1) {
            if (res[1]) {
                const std::vector<value>& v = res[1]->results;
                if (v.at(0).is_int())
                    st.stored = v[0].as_int();
                else if (!v[0].is_nil())
                    return bad("bucketed_scoreboard", v[0]);
                st.op_seen = v.size() > 1 && v[1].is_int() && v[1].as_int() > 0;
            } else if (res[1].error().code != status::record_not_found) {
                return res[1].error();
            }
        }
        return st;
    }

    /// Creates meta with one bucket covering everything (CREATE_ONLY: a
    /// concurrent creator's meta wins); the state re-read.
    result<void> create_meta(const std::string& board) const {
        auto mk = meta_key(board);
        if (!mk) return mk.error();
        kv::write_policy wp = m_opt.write;
        wp.exists = kv::record_exists_action::create_only;
        auto w = patterns::operate(
            *m_store, *mk,
            {kv::op::cdt(bounds_bin, cdt::map_ops::put(value(min_stored), value(0), dir_policy())),
             kv::op::write(next_bin, value(1))},
            wp);
        if (!w && w.error().code != status::record_exists) return w.error();
        return {};
    }

    /// set() and add() after locate(): the new bucket, the old one if the
    /// player moves, the directory last (with add()'s marker when op_id is
    /// given). False when the marker says another send applied it.
    result<bool> move_to(const std::string& board, const std::string& player, state st,
                         std::int64_t s, const value& op_id, std::int64_t stamp) const {
        if (st.bounds.empty()) {
            if (auto c = create_meta(board); !c) return c.error();
            auto again = locate(board, player, op_id);
            if (!again) return again.error();
            st = std::move(again).value();
            if (st.bounds.empty())
                return error{status::parameter_error, "bucketed_scoreboard: meta has no buckets"};
        }
        const std::int64_t to = st.bucket_of(s);
        auto put = m_bucket.set(bucket_name(board, to), player, detail::from_stored(m_opt.order, s));
        if (!put) return put.error();
        if (st.stored) {
            const std::int64_t from = st.bucket_of(*st.stored);
            if (from != to) {
                auto k = bucket_key(board, from);
                if (!k) return k.error();
                auto r = patterns::operate(*m_store, *k, m_bucket.remove_ops(player), m_opt.write);
                if (!r && r.error().code != status::record_not_found) return r.error();
            }
        }
        auto dk = shard_key(board, player);
        if (!dk) return dk.error();
        const std::vector<kv::operation> dir = {
            kv::op::cdt(dir_bin, cdt::map_ops::put(value(player), value(s), dir_policy()))};
        if (op_id.is_nil()) {
            auto r = patterns::operate(*m_store, *dk, dir, m_opt.write);
            if (!r) return r.error();
            return true;
        }
        auto r = operate_once(*m_store, *dk, op_id, stamp, std::span<const kv::operation>(dir),
                              m_opt.write, m_opt.once);
        if (!r) return r.error();
        return r->applied;
    }

    /// One bucket as around() read it: its in-range counts and, when
    /// windowed, the window's entries (best first) with the place of its
    /// first entry in the bucket (in-range position; players and distinct
    /// scores strictly better).
    struct bucket_window {
        bool read = false;
        std::int64_t players = 0;
        std::int64_t distinct = 0;
        std::optional<std::vector<score_entry>> entries;
        std::vector<std::int64_t> stored;
        std::int64_t first_pos = 0;
        std::int64_t first_better = 0;
        std::int64_t first_better_distinct = 0;
    };

    /// around()'s read of one bucket's window: `a` and `e` (in-range
    /// positions, end exclusive) as let variables over "below" (the stray
    /// entries under the bucket's range) and "in" (its in-range count); ops
    /// give the window, the players and distinct scores in range before its
    /// first entry, and a — each unknown (nil) when the window is empty.
    static std::vector<kv::operation> window_ops(const value& lo, const std::optional<value>& hi,
                                                 const exp::expr& a, const exp::expr& e,
                                                 const std::optional<exp::expr>& guard) {
        namespace x = exp;
        auto rt = [](cdt::return_type t) { return static_cast<std::int32_t>(t); };
        const x::expr b = x::bin_map(board_bin);
        const x::expr hi_x = hi ? x::expr(*hi) : x::inf();
        const x::expr below = x::var("below");
        const x::expr first = x::map_get_by_rank(rt(cdt::return_type::value), x::type::integer,
                                                 below + x::var("a"), b);
        auto in_window = [&](x::expr body) {
            x::expr y = x::let(
                x::def("below", x::map_get_by_value_range(rt(cdt::return_type::count), x::nil(),
                                                          x::expr(lo), b)),
                x::def("in", x::map_get_by_value_range(rt(cdt::return_type::count), x::expr(lo),
                                                       hi_x, b)),
                x::def("a", a), x::def("e", e),
                x::cond(x::var("e") > x::var("a"), std::move(body), x::unknown()));
            return guard ? x::cond(*guard, std::move(y), x::unknown()) : y;
        };
        const x::expr win = in_window(x::map_get_by_rank_range(
            rt(cdt::return_type::key_value), below + x::var("a"), x::var("e") - x::var("a"), b));
        const x::expr better =
            in_window(x::map_get_by_value_range(rt(cdt::return_type::count), x::expr(lo), first, b));
        const x::expr better_distinct = in_window(x::map_get_by_key_range(
            rt(cdt::return_type::count), x::expr(lo), first, x::bin_map(distinct_bin)));
        const x::expr pos = in_window(x::var("a"));
        const auto f = x::read_flags::eval_no_fail;
        return {kv::op::exp_read("w", win.bytes(), f), kv::op::exp_read("c", better.bytes(), f),
                kv::op::exp_read("d", better_distinct.bytes(), f),
                kv::op::exp_read("a", pos.bytes(), f)};
    }

    /// ONE batch over buckets [from, to): each one's in-range counts, and for
    /// those at or after `win_from` a window: the last k in range above the
    /// player's bucket, the player's +-k in it, the first k below it.
    result<void> read_windows(const std::string& board, const state& st, const std::string& player,
                              std::size_t k, std::size_t from, std::size_t to,
                              std::size_t win_from, std::vector<bucket_window>& w) const {
        namespace x = exp;
        const std::size_t own = st.index_of(*st.stored);
        const x::expr kx(value(static_cast<std::int64_t>(k)));
        const x::expr zero(value(std::int64_t{0}));
        const x::expr in = x::var("in");
        std::vector<kv::batch_record> batch;
        for (std::size_t j = from; j < to; ++j) {
            auto key = bucket_key(board, st.bounds[j].second);
            if (!key) return key.error();
            const value lo(st.bounds[j].first);
            const std::optional<value> hi = st.hi_of(j);
            std::vector<kv::operation> ops = {
                kv::op::cdt(board_bin, cdt::map_ops::get_by_value_range(lo, hi, cdt::return_type::count)),
                kv::op::cdt(distinct_bin,
                            cdt::map_ops::get_by_key_range(lo, hi, cdt::return_type::count))};
            std::vector<kv::operation> win;
            if (j == own) {
                // pos: the player's in-range position (its value rank minus
                // the strays below); only when the bucket holds it at the
                // directory's score.
                const x::expr b = x::bin_map(board_bin);
                const x::expr pos =
                    x::map_get_by_key(static_cast<std::int32_t>(cdt::return_type::rank),
                                      x::type::integer, x::expr(value(player)), b) -
                    x::var("below");
                const x::expr has = x::map_get_by_key(static_cast<std::int32_t>(cdt::return_type::count),
                                                      x::type::integer, x::expr(value(player)), b) > zero;
                const x::expr at_score =
                    x::map_get_by_key(static_cast<std::int32_t>(cdt::return_type::value),
                                      x::type::integer, x::expr(value(player)), b) ==
                    x::expr(value(*st.stored));
                win = window_ops(lo, hi, x::max(pos - kx, zero), x::min(pos + kx + 1, in),
                                 x::cond(has, at_score, x::expr(value(false))));
            } else if (j >= win_from && k > 0) {
                win = j < own ? window_ops(lo, hi, x::max(in - kx, zero), in, std::nullopt)
                              : window_ops(lo, hi, zero, x::min(kx, in), std::nullopt);
            }
            ops.insert(ops.end(), std::make_move_iterator(win.begin()),
                       std::make_move_iterator(win.end()));
            batch.push_back(kv::batch_record::read(std::move(*key), std::move(ops), m_opt.read));
        }
        const auto res = kv::batch_operate(*m_store, std::span<const kv::batch_record>(batch));
        for (std::size_t i = 0; i < res.size(); ++i) {
            bucket_window& b = w[from + i];
            b.read = true;
            if (!res[i]) {
                if (res[i].error().code == status::record_not_found) continue;
                return res[i].error();
            }
            const std::vector<value>& v = res[i]->results;
            b.players = v.at(0).is_int() ? v[0].as_int() : 0;
            b.distinct = v.at(1).is_int() ? v[1].as_int() : 0;
            if (v.size() < 6 || v[2].is_nil()) continue;
            if (!v[3].is_int() || !v[4].is_int() || !v[5].is_int())
                return error{status::parameter_error,
                             "bucketed_scoreboard::around: expected int counts, got " +
                                 to_string(v[3])};
            auto pairs = sorted_pairs(v[2], "bucketed_scoreboard::around");
            if (!pairs) return pairs.error();
            b.entries.emplace();
            for (auto& [p, s] : *pairs) {
                b.stored.push_back(s);
                b.entries->push_back(score_entry{std::move(p), detail::from_stored(m_opt.order, s), 0});
            }
            b.first_better = v[3].as_int();
            b.first_better_distinct = v[4].as_int();
            b.first_pos = v[5].as_int();
        }
        return {};
    }

    /// Meta, then one batch: each bucket's in-range and out-of-range counts.
    result<board_counts> bucket_counts(const std::string& board) const {
        auto st = locate(board, "", {});
        if (!st) return st.error();
        board_counts c{std::move(st).value(), {}};
        std::vector<kv::batch_record> batch;
        for (std::size_t j = 0; j < c.st.bounds.size(); ++j) {
            auto k = bucket_key(board, c.st.bounds[j].second);
            if (!k) return k.error();
            const value lo(c.st.bounds[j].first);
            batch.push_back(kv::batch_record::read(
                std::move(*k),
                {kv::op::cdt(board_bin, cdt::map_ops::get_by_value_range(lo, c.st.hi_of(j),
                                                                        cdt::return_type::count)),
                 kv::op::cdt(board_bin,
                             cdt::map_ops::get_by_value_range(lo, c.st.hi_of(j),
                                                              cdt::return_type::count, true))},
                m_opt.read));
        }
        const auto res = kv::batch_operate(*m_store, std::span<const kv::batch_record>(batch));
        for (const auto& r : res) {
            bucket_info b;
            if (r) {
                auto in = count_result(r->results.at(0), "bucketed_scoreboard::rebalance");
                auto out = count_result(r->results.at(1), "bucketed_scoreboard::rebalance");
                if (!in) return in.error();
                if (!out) return out.error();
                b = {*in, *out};
            } else if (r.error().code != status::record_not_found) {
                return r.error();
            }
            c.buckets.push_back(b);
        }
        return c;
    }

    /// Bucket j's in-range entries, sorted (stored, player).
    result<std::vector<std::pair<std::int64_t, std::string>>>
    entries(const std::string& board, const state& st, std::size_t j) const {
        auto k = bucket_key(board, st.bounds[j].second);
        if (!k) return k.error();
        auto r = patterns::operate(
            *m_store, *k,
            {kv::op::cdt(board_bin, cdt::map_ops::get_by_value_range(
                                        value(st.bounds[j].first), st.hi_of(j),
                                        cdt::return_type::key_value))},
            kv::as_write_policy(m_opt.read));
        std::vector<std::pair<std::int64_t, std::string>> out;
        if (!r) {
            if (r.error().code == status::record_not_found) return out;
            return r.error();
        }
        auto pairs = sorted_pairs(r->results.at(0), "bucketed_scoreboard::rebalance");
        if (!pairs) return pairs.error();
        for (auto& [p, s] : *pairs) out.emplace_back(s, std::move(p));
        return out;
    }

    /// Writes rows (sorted by stored score) into bucket id: both bins with put_items.
    result<void> write_entries(const std::string& board, std::int64_t id,
                               std::span<const std::pair<std::int64_t, std::string>> rows) const {
        auto k = bucket_key(board, id);
        if (!k) return k.error();
        std::vector<std::pair<value, value>> items;
        std::vector<std::pair<value, value>> counts;
        items.reserve(rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            items.emplace_back(value(rows[i].second), value(rows[i].first));
            if (i == 0 || rows[i].first != rows[i - 1].first)
                counts.emplace_back(value(rows[i].first), value(std::int64_t{0}));
            counts.back().second = value(counts.back().second.as_int() + 1);
        }
        auto w = patterns::operate(
            *m_store, *k,
            {kv::op::cdt(board_bin,
                         cdt::map_ops::put_items(std::move(items), scoreboard<Store>::board_policy())),
             kv::op::cdt(distinct_bin, cdt::map_ops::put_items(std::move(counts), dir_policy()))},
            m_opt.write);
        if (!w) return w.error();
        return {};
    }

    /// Removes bucket j's entries outside its range (both bins).
    result<void> trim(const std::string& board, const board_counts& c, std::size_t j) const {
        auto k = bucket_key(board, c.st.bounds[j].second);
        if (!k) return k.error();
        const value lo(c.st.bounds[j].first);
        auto w = patterns::operate(
            *m_store, *k,
            {kv::op::cdt(board_bin, cdt::map_ops::remove_by_value_range(
                                        lo, c.st.hi_of(j), cdt::return_type::none, true)),
             kv::op::cdt(distinct_bin, cdt::map_ops::remove_by_key_range(
                                           lo, c.st.hi_of(j), cdt::return_type::none, true))},
            m_opt.write);
        if (!w && w.error().code != status::record_not_found) return w.error();
        return {};
    }

    /// Splits bucket j at its median score: copy the upper half to a new
    /// bucket, commit the bound in meta, trim the old bucket. False when all
    /// its players share one score (no cut between equal scores).
    result<bool> split(const std::string& board, const board_counts& c, std::size_t j) const {
        auto rows = entries(board, c.st, j);
        if (!rows) return rows.error();
        std::size_t cut = rows->size() / 2;
        while (cut < rows->size() && cut > 0 && (*rows)[cut].first == (*rows)[cut - 1].first) ++cut;
        if (cut == 0 || cut >= rows->size()) {
            cut = rows->size() / 2;
            while (cut > 0 && (*rows)[cut].first == (*rows)[cut - 1].first) --cut;
            if (cut == 0) return false;
        }
        const std::int64_t m = (*rows)[cut].first;
        auto mk = meta_key(board);
        if (!mk) return mk.error();
        // A fresh id each time: a split cut short leaves an unused record only.
        auto id = patterns::operate(*m_store, *mk,
                                    {kv::op::add(next_bin, value(std::int64_t{1})),
                                     kv::op::read(next_bin)},
                                    m_opt.write);
        if (!id) return id.error();
        const std::int64_t fresh = id->results.at(1).as_int() - 1;
        auto w = write_entries(board, fresh, std::span(*rows).subspan(cut));
        if (!w) return w.error();
        auto commit = patterns::operate(
            *m_store, *mk,
            {kv::op::cdt(bounds_bin, cdt::map_ops::put(value(m), value(fresh), dir_policy()))},
            m_opt.write);
        if (!commit) return commit.error();
        board_counts after = c;
        after.st.bounds.insert(after.st.bounds.begin() + static_cast<std::ptrdiff_t>(j) + 1,
                               {m, fresh});
        auto t = trim(board, after, j);
        if (!t) return t.error();
        return true;
    }

    /// Merges bucket j + 1 into j: copy, drop its bound from meta, delete it.
    result<void> merge(const std::string& board, const board_counts& c, std::size_t j) const {
        auto rows = entries(board, c.st, j + 1);
        if (!rows) return rows.error();
        auto w = write_entries(board, c.st.bounds[j].second, *rows);
        if (!w) return w.error();
        auto mk = meta_key(board);
        if (!mk) return mk.error();
        auto commit = patterns::operate(
            *m_store, *mk,
            {kv::op::cdt(bounds_bin, cdt::map_ops::remove_by_key(value(c.st.bounds[j + 1].first),
                                                                 cdt::return_type::none))},
            m_opt.write);
        if (!commit) return commit.error();
        auto k = bucket_key(board, c.st.bounds[j + 1].second);
        if (!k) return k.error();
        auto d = m_store->remove(*k, m_opt.write);
        if (!d && d.error().code != status::record_not_found) return d.error();
        return {};
    }

    /// A KEY_VALUE result's (player, stored) pairs sorted best first (a
    /// list of pairs, or a map as an expression returns it).
    static result<std::vector<std::pair<std::string, std::int64_t>>>
    sorted_pairs(const value& v, std::string_view what) {
        result<std::vector<std::pair<std::string, std::int64_t>>> d;
        if (v.is_map()) {
            for (const auto& [k, x] : v.as_map()) {
                if (!k.is_string() || !x.is_int())
                    return error{status::parameter_error, std::string(what) +
                                                              ": expected player -> int score, got " +
                                                              to_string(k) + " -> " + to_string(x)};
                d->emplace_back(k.as_string(), x.as_int());
            }
        } else {
            d = decode_pairs<std::string, std::int64_t>(v, what);
        }
        if (!d) return d.error();
        std::sort(d->begin(), d->end(), [](const auto& a, const auto& b) {
            return a.second != b.second ? a.second < b.second : a.first < b.first;
        });
        return d;
    }

    Store* m_store;
    bucketed_scoreboard_options m_opt;
    scoreboard<Store> m_bucket;
};

} // namespace kvmodel::patterns
