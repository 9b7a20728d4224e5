// kvmodel/patterns/timestamped_map.hpp
//
// Timestamped map (seed "Maps as Event Containers with Timestamp Values"): one
// record per owner holding a KV-ordered map  id -> [ts, fields...]. The id is
// the key (a message UUID, say); the timestamp leads the value, so value order
// is time order: a time slice is the value interval [ts1, nil] .. [ts2, nil]
// and "most recent N" is the top N by rank. Unlike the event map, many items
// may share a timestamp (ties rank by id).
//
// Payload is stored flattened after the timestamp, so its codec must encode
// to a list (a std::tuple, or a struct codec returning its fields as a list);
// any other shape is refused with PARAMETER_ERROR.
//
// Every call is ONE operate() — one round trip; a write rewrites the record.
#pragma once

#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/patterns/detail/record_pattern.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace kvmodel::patterns {

/// One stored item: its id, timestamp and payload.
template <encodable Id, encodable Payload>
struct timestamped {
    Id id{};             ///< the map key (a message UUID, say)
    std::int64_t ts = 0; ///< leads the stored value: value order is time order
    Payload payload{};   ///< stored flattened after ts (its codec must make a list)

    /// Field by field.
    friend bool operator==(const timestamped&, const timestamped&) = default;
};

/// A per-owner map `id -> [ts, fields...]`: items by id, time slices by value
/// interval, most recent / oldest N by rank; timestamps may repeat. Every call
/// is ONE operate() (one round trip); a write rewrites the owner's record,
/// reads are O(log n + k). Errors: the store's; PARAMETER_ERROR for a bad
/// owner, a payload whose codec does not make a list, or an undecodable
/// stored item. A missing record reads as empty.
template <kv::kv_store Store, encodable Id, encodable Payload>
class timestamped_map : public detail::record_pattern<Store> {
public:
    /// The item this map stores.
    using item = timestamped<Id, Payload>;

    /// Items in `where` (default: set "messages", bin "messages"); keeps a
    /// reference to the store.
    explicit timestamped_map(Store& store,
                             record_location where = {.set = "messages", .bin = "messages"})
        : detail::record_pattern<Store>(store, std::move(where)) {}

    /// Adds or replaces the item with this id; returns the owner's item count.
    result<std::size_t> add(const value& owner, const Id& id, std::int64_t ts,
                            const Payload& payload) const {
        auto v = encode_value(ts, payload);
        if (!v) return v.error();
        auto r = this->run(owner, {cdt::map_ops::put(codec<Id>::encode(id), std::move(v).value(),
                                                     cdt::map_ops::policy(map_order::key_value_ordered))});
        if (!r) return r.error();
        return detail::count_result(r->front(), "timestamped_map::add");
    }

    /// The item with this id, or nullopt.
    result<std::optional<item>> get(const value& owner, const Id& id) const {
        auto r = this->read(owner, {cdt::map_ops::get_by_key(codec<Id>::encode(id),
                                                             cdt::return_type::key_value)},
                            value{list{}});
        if (!r) return r.error();
        auto items = decode_items(r->front());
        if (!items) return items.error();
        if (items->empty()) return std::optional<item>{};
        return std::optional<item>(std::move(items->front()));
    }

    /// Items with from <= ts < to, oldest first (value interval
    /// [from, nil] .. [to, nil]). O(log n + k).
    result<std::vector<item>> slice(const value& owner, std::int64_t from, std::int64_t to) const {
        auto items = select(owner, cdt::map_ops::get_by_value_range(
                                       value{list{from, nil}}, value{list{to, nil}},
                                       cdt::return_type::key_value));
        if (items) sort_by_time(*items);
        return items;
    }

    /// The n most recent items, newest first (top n by rank).
    result<std::vector<item>> most_recent(const value& owner, std::size_t n) const {
        if (n == 0) return std::vector<item>{};
        auto sn = static_cast<std::int64_t>(n);
        auto items = select(owner, cdt::map_ops::get_by_rank_range(-sn, sn, cdt::return_type::key_value));
        if (items) std::reverse(items->begin(), items->end());
        return items;
    }

    /// The n oldest items, oldest first (bottom n by rank).
    result<std::vector<item>> oldest(const value& owner, std::size_t n) const {
        if (n == 0) return std::vector<item>{};
        return select(owner, cdt::map_ops::get_by_rank_range(0, static_cast<std::int64_t>(n),
                                                             cdt::return_type::key_value));
    }

    /// The owner's item count (0 without a record). One round trip.
    result<std::size_t> size(const value& owner) const {
        auto r = this->read(owner, {cdt::map_ops::size()}, value{});
        if (!r) return r.error();
        return detail::count_result(r->front(), "timestamped_map::size");
    }

private:
    static result<value> encode_value(std::int64_t ts, const Payload& p) {
        value fields = codec<Payload>::encode(p);
        if (!fields.is_list())
            return error{status::parameter_error,
                         "timestamped_map: the payload must encode to a list of fields, got " +
                             to_string(fields)};
        list out;
        out.push_back(ts);
        for (const value& f : fields.as_list()) out.push_back(f);
        return value{std::move(out)};
    }

    // KEY_VALUE results of rank selections come in rank order and of value
    // range selections in key order; callers want time order.
    static void sort_by_time(std::vector<item>& items) {
        std::stable_sort(items.begin(), items.end(),
                         [](const item& a, const item& b) { return a.ts < b.ts; });
    }

    static result<std::vector<item>> decode_items(const value& v) {
        auto pairs = detail::decode_pairs<Id, value>(v, "timestamped_map");
        if (!pairs) return pairs.error();
        std::vector<item> out;
        out.reserve(pairs->size());
        for (auto& [id, stored] : *pairs) {
            if (!stored.is_list() || stored.as_list().empty() || !stored.as_list()[0].is_int())
                return error{status::parameter_error,
                             "timestamped_map: expected [ts, fields...], got " + to_string(stored)};
            const list& l = stored.as_list();
            list fields;
            for (std::size_t i = 1; i < l.size(); ++i) fields.push_back(l[i]);
            auto p = codec<Payload>::decode(value{std::move(fields)});
            if (!p) return p.error();
            out.push_back(item{std::move(id), l[0].as_int(), std::move(p).value()});
        }
        return out;
    }

    result<std::vector<item>> select(const value& owner, cdt::op o) const {
        auto r = this->read(owner, {std::move(o)}, value{list{}});
        if (!r) return r.error();
        return decode_items(r->front());
    }
};

} // namespace kvmodel::patterns
