// kvmodel/patterns/event_map.hpp
//
// Event map (seed "Using Maps to Capture and Query Events"): one record per
// owner holding a KV-ordered map  timestamp_ms -> [type, attrs]. Because the
// map is key-ordered, a time slice is a key range; because values compare
// element by element, "events of type T" is the value [T, WILDCARD], and
// several types are a value list of such patterns.
//
// Every call is ONE operate() — one round trip. A write rewrites the whole
// record on the server (bytes written = the record's full stored size), so an
// owner with many events makes every add cost more: bucket unbounded streams
// (patterns/bucketed_list.hpp). Reads cost O(log n + k) in the engine.
//
// Two events of one owner cannot share a millisecond: add() refuses an
// existing timestamp with ELEMENT_EXISTS (the seed silently overwrote it).
#pragma once

#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/patterns/detail/record_pattern.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kvmodel::patterns {

/// One event: when, what kind, and its attributes.
template <encodable Attrs = value>
struct event {
    std::int64_t ts = 0; ///< milliseconds; the map key, unique per owner
    std::string type;    ///< what happened ("view", "purchase", ...)
    Attrs attrs{};       ///< everything else about it

    /// Field by field.
    friend bool operator==(const event&, const event&) = default;
};

/// A per-owner map `timestamp_ms -> [type, attrs]`: time slices, events of one
/// or several types, counts, latest N, retention. Every call is ONE operate()
/// (one round trip); a write rewrites the owner's record, reads are
/// O(log n + k) on the server. Errors: the store's; ELEMENT_EXISTS from add()
/// for a taken millisecond; PARAMETER_ERROR for a bad owner or an undecodable
/// stored event. A missing record reads as empty.
template <kv::kv_store Store, encodable Attrs = value>
class event_map : public detail::record_pattern<Store> {
public:
    /// The event this map stores.
    using event_type = event<Attrs>;

    /// Events in `where` (default: set "events", bin "events"); keeps a
    /// reference to the store.
    explicit event_map(Store& store, record_location where = {.set = "events", .bin = "events"})
        : detail::record_pattern<Store>(store, std::move(where)) {}

    /// Adds one event; returns the owner's event count. ELEMENT_EXISTS if the
    /// owner already has an event at that millisecond (nothing is written).
    result<std::size_t> add(const value& owner, const event_type& e) const {
        auto r = this->run(owner, {cdt::map_ops::put(e.ts, encode_value(e), create_policy())});
        if (!r) return r.error();
        return detail::count_result(r->front(), "event_map::add");
    }

    /// Adds many events in one operate(); all or nothing.
    result<std::size_t> add(const value& owner, std::span<const event_type> events) const {
        std::vector<std::pair<value, value>> items;
        items.reserve(events.size());
        for (const event_type& e : events) items.emplace_back(e.ts, encode_value(e));
        auto r = this->run(owner, {cdt::map_ops::put_items(std::move(items), create_policy())});
        if (!r) return r.error();
        return detail::count_result(r->front(), "event_map::add");
    }

    /// Events with from <= ts < to, oldest first. O(log n + k).
    result<std::vector<event_type>> slice(const value& owner, std::int64_t from,
                                          std::int64_t to) const {
        return select(owner, cdt::map_ops::get_by_key_range(from, value(to), kv_result));
    }

    /// Events of one type, oldest first (value [type, WILDCARD]).
    result<std::vector<event_type>> of_type(const value& owner, const std::string& type) const {
        return select(owner, cdt::map_ops::get_by_value(type_pattern(type), kv_result));
    }

    /// Events of any of the types, oldest first.
    result<std::vector<event_type>> of_types(const value& owner,
                                             const std::vector<std::string>& types) const {
        return select(owner, cdt::map_ops::get_by_value_list(type_patterns(types), kv_result));
    }

    /// How many events of this type.
    result<std::size_t> count_of_type(const value& owner, const std::string& type) const {
        return count(owner,
                     cdt::map_ops::get_by_value(type_pattern(type), cdt::return_type::count));
    }

    /// How many events of any of these types.
    result<std::size_t> count_of_types(const value& owner,
                                       const std::vector<std::string>& types) const {
        return count(owner, cdt::map_ops::get_by_value_list(type_patterns(types),
                                                            cdt::return_type::count));
    }

    /// How many events the owner has.
    result<std::size_t> size(const value& owner) const {
        return count(owner, cdt::map_ops::size());
    }

    /// The newest n events, oldest first.
    result<std::vector<event_type>> latest(const value& owner, std::size_t n) const {
        if (n == 0) return std::vector<event_type>{};
        auto sn = static_cast<std::int64_t>(n);
        return select(owner, cdt::map_ops::get_by_index_range(-sn, sn, kv_result));
    }

    /// Retention: removes every event older than `before` in one operate;
    /// returns how many were removed.
    result<std::size_t> remove_older_than(const value& owner, std::int64_t before) const {
        auto r = this->run(owner, {cdt::map_ops::remove_by_key_range(value{}, value(before),
                                                                     cdt::return_type::count)});
        if (!r) {
            if (r.error().code == status::record_not_found) return std::size_t{0};
            return r.error();
        }
        return detail::count_result(r->front(), "event_map::remove_older_than");
    }

private:
    static constexpr cdt::return_type kv_result = cdt::return_type::key_value;

    static cdt::map_policy create_policy() {
        return cdt::map_ops::policy(map_order::key_value_ordered, cdt::map_write_flags::create_only);
    }
    static value encode_value(const event_type& e) {
        return value{list{e.type, codec<Attrs>::encode(e.attrs)}};
    }
    static value type_pattern(const std::string& type) { return value{list{type, wildcard}}; }
    static std::vector<value> type_patterns(const std::vector<std::string>& types) {
        std::vector<value> out;
        out.reserve(types.size());
        for (const auto& t : types) out.push_back(type_pattern(t));
        return out;
    }

    result<std::size_t> count(const value& owner, cdt::op o) const {
        auto r = this->read(owner, {std::move(o)}, value{});
        if (!r) return r.error();
        return detail::count_result(r->front(), "event_map");
    }

    result<std::vector<event_type>> select(const value& owner, cdt::op o) const {
        auto r = this->read(owner, {std::move(o)}, value{list{}});
        if (!r) return r.error();
        auto pairs = detail::decode_pairs<std::int64_t, value>(r->front(), "event_map");
        if (!pairs) return pairs.error();
        std::vector<event_type> out;
        out.reserve(pairs->size());
        for (auto& [ts, v] : *pairs) {
            if (!v.is_list() || v.as_list().size() != 2 || !v.as_list()[0].is_string())
                return error{status::parameter_error,
                             "event_map: expected [type, attrs] at " + std::to_string(ts) +
                                 ", got " + to_string(v)};
            auto attrs = codec<Attrs>::decode(v.as_list()[1]);
            if (!attrs) return attrs.error();
            out.push_back(event_type{ts, v.as_list()[0].as_string(), std::move(attrs).value()});
        }
        return out;
    }
};

} // namespace kvmodel::patterns
