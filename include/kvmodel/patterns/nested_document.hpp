// kvmodel/patterns/nested_document.hpp
//
// Nested documents (seed "Operating on Nested Maps and Lists"): one record per
// board holding a map  player -> [score, {attrs}]. Operations reach into a
// player's attribute map through a context — [map_key(player), list_index(1)]
// — or into the current leader's through [map_rank(-1), list_index(1)], so
// awarding, counting and reading happen at depth in ONE operate() without
// reading the document first:
//   award_once: map_put with CREATE_ONLY | NO_FAIL — a second award is a no-op;
//   increment:  map_increment at depth (a missing counter starts from 0).
// Values [score, {attrs}] order by score first, so rank = score order.
//
// Cost: one round trip per call; a write rewrites the whole record; each
// context level is O(log n) in the engine.
#pragma once

#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/patterns/detail/record_pattern.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace kvmodel::patterns {

/// One player of a nested-document board.
struct player_doc {
    /// The map key: the player's name.
    std::string name;
    /// The score, ranked by value.
    value score;
    /// Attributes, addressed at depth by context.
    map attrs;

    /// Field by field.
    friend bool operator==(const player_doc&, const player_doc&) = default;
};

/// A board as a map `name -> [score, {attrs}]` in one record, operated on at depth
/// through contexts: a player by name or by rank, awards added once, counters
/// incremented in place (a second award_once is a no-op). Every call is ONE
/// operate() (one round trip). Errors: the store's; PARAMETER_ERROR for an
/// undecodable stored player.
template <kv::kv_store Store>
class nested_document : public detail::record_pattern<Store> {
public:
    /// Boards in `where` (default: set "players", bin "players"); keeps a reference to the store.
    explicit nested_document(Store& store,
                             record_location where = {.set = "players", .bin = "players"})
        : detail::record_pattern<Store>(store, std::move(where)) {}

    /// Who a call addresses: a player by name, or the player ranked r by
    /// score (-1 = the current leader).
    struct who {
        /// The context step that selects the player.
        cdt::ctx_step step;
        /// The player with this name.
        static who player(std::string name) { return {cdt::ctx_step::map_key(std::move(name))}; }
        /// The player of this score rank (0 = lowest, -1 = highest).
        static who by_rank(std::int64_t rank) { return {cdt::ctx_step::map_rank(rank)}; }
        /// The player with the highest score.
        static who leader() { return by_rank(-1); }
    };

    /// Sets a player's score and attributes (replacing any previous ones).
    result<std::size_t> set_player(const value& board, const player_doc& p) const {
        auto r = this->run(board, {cdt::map_ops::put(p.name, value{list{p.score, value{p.attrs}}},
                                                     cdt::map_ops::policy(map_order::key_ordered))});
        if (!r) return r.error();
        return detail::count_result(r->front(), "nested_document::set_player");
    }

    /// Gives an award once: a second call for the same award changes nothing.
    /// Returns the size of the player's attribute map.
    result<std::size_t> award_once(const value& board, const who& w, const std::string& award,
                                   const value& what = value{true}) const {
        cdt::map_policy p = cdt::map_ops::policy(map_order::key_ordered,
                                                 cdt::map_write_flags::create_only |
                                                     cdt::map_write_flags::no_fail);
        auto r = this->run(board, {cdt::map_ops::put(award, what, p, attrs_ctx(w))});
        if (!r) return r.error();
        return detail::count_result(r->front(), "nested_document::award_once");
    }

    /// Adds delta to a counter in the player's attributes (created from 0);
    /// returns the new value.
    result<value> increment(const value& board, const who& w, const std::string& counter,
                            const value& delta = value{1}) const {
        auto r = this->run(board, {cdt::map_ops::increment(counter, delta,
                                                           cdt::map_ops::policy(map_order::key_ordered),
                                                           attrs_ctx(w))});
        if (!r) return r.error();
        return r->front();
    }

    /// One attribute of a player (nil when absent).
    result<value> attribute(const value& board, const who& w, const std::string& name) const {
        auto r = this->run(board, {cdt::map_ops::get_by_key(name, cdt::return_type::value, false,
                                                            attrs_ctx(w))});
        if (!r) return r.error();
        return r->front();
    }

    /// The k best players by score, best first.
    result<std::vector<player_doc>> top(const value& board, std::size_t k) const {
        if (k == 0) return std::vector<player_doc>{};
        auto sk = static_cast<std::int64_t>(k);
        auto r = this->read(board, {cdt::map_ops::get_by_rank_range(-sk, sk, cdt::return_type::key_value)},
                            value{list{}});
        if (!r) return r.error();
        auto pairs = detail::decode_pairs<std::string, value>(r->front(), "nested_document::top");
        if (!pairs) return pairs.error();
        std::vector<player_doc> out;
        for (auto it = pairs->rbegin(); it != pairs->rend(); ++it) {
            const value& v = it->second;
            if (!v.is_list() || v.as_list().size() != 2 || !v.as_list()[1].is_map())
                return error{status::parameter_error,
                             "nested_document: expected [score, {attrs}], got " + to_string(v)};
            out.push_back(player_doc{it->first, v.as_list()[0], v.as_list()[1].as_map()});
        }
        return out;
    }

private:
    static std::vector<cdt::ctx_step> attrs_ctx(const who& w) {
        return {w.step, cdt::ctx_step::list_index(1)};
    }
};

} // namespace kvmodel::patterns
