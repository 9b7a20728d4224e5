// kvmodel/patterns/capped_map.hpp
//
// Capped collection (seed "Capped Collection of Events"): one record per
// owner holding a KV-ordered map  key -> value  that never exceeds a capacity
// N. insert() puts the entry AND trims in ONE operate(), so the cap holds
// under any number of concurrent writers with no lock and no read-modify-write:
//   keep::top_by_rank  — keep the N highest values (a high-score table):
//                        remove_by_rank_range(-N, N) INVERTED
//   keep::newest_by_key — keep the N highest keys (latest N by timestamp):
//                        remove_by_index_range(-N, N) INVERTED
// An entry that does not make the cut is removed by the same operate(), so
// insert() reports whether it was kept.
// insert() also takes, in the same operate(), a trim by age (drop the keys
// below a bound: "recently viewed, last 30 days") and extra operations (a
// counter on another bin, an exactly-once marker) whose results it returns.
//
// Cost: one round trip per call; a write rewrites the whole record, which a
// cap keeps bounded. Engine cost O(log n + trimmed).
#pragma once

#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/patterns/record_pattern.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// Which entries a capped map keeps when it is full.
enum class keep : std::uint8_t { top_by_rank, newest_by_key };

/// What capped_map::insert() did: the collection's size afterwards and
/// whether the new entry survived the trim.
struct capped_insert_result {
    std::size_t size = 0;     ///< entries in the owner's map after the insert
    bool kept = false;        ///< false when the new entry was trimmed away at once
    std::size_t aged_out = 0; ///< entries removed by insert_options::drop_keys_below
    std::vector<value> also;  ///< the results of insert_options::also, in order
};

namespace detail {
/// capped_map::insert without the key and value types: put key -> val,
/// the age trim `*age` (unless null; moved from) then the cap `trim`, the
/// key's presence and the size, then `also`, in ONE operate.
KVMODEL_DECL result<capped_insert_result> capped_insert(const store_ref& store, const record_location& where,
                                                        const value& owner, const value& key, value val,
                                                        cdt::op trim, cdt::op* age,
                                                        std::vector<kv::operation> also);
} // namespace detail

/// A per-owner map `Key -> Value` that never holds more than capacity()
/// entries: insert() puts and trims in ONE operate(). One round trip per
/// call; a write rewrites the owner's record (bounded by the cap). Errors:
/// the store's (RECORD_TOO_BIG, TIMEOUT with error::in_doubt, ...), and
/// PARAMETER_ERROR for an owner that is not an int, string or bytes or a
/// stored value the codecs cannot decode. A missing record reads as empty.
template <kv::kv_store Store, encodable Key, encodable Value>
class capped_map : public record_pattern<Store> {
public:
    /// One entry: key and value.
    using entry = std::pair<Key, Value>;

    /// PARAMETER_ERROR-free construction: a capacity of 0 is a broken
    /// precondition (KVMODEL_ASSERT).
    capped_map(Store& store, std::size_t capacity, keep policy = keep::top_by_rank,
               record_location where = {.set = "capped", .bin = "items"})
        : record_pattern<Store>(store, std::move(where))
        , m_capacity(capacity)
        , m_keep(policy) {
        KVMODEL_ASSERT(capacity > 0);
    }

    /// The cap inserts trim to.
    std::size_t capacity() const noexcept { return m_capacity; }

    /// What insert() did: the collection's size afterwards and whether the
    /// new entry survived the trim (capped_insert_result).
    using insert_result = capped_insert_result;

    /// What else insert() does in its one operate().
    struct insert_options {
        /// Trim by age: entries whose key is below this are removed (with
        /// keep::newest_by_key and timestamp keys: everything older than it).
        std::optional<Key> drop_keys_below;
        /// Operations applied in the same operate() after the insert and the
        /// trims (a counter on another bin, a marker): all or nothing with it.
        std::vector<kv::operation> also;
    };

    /// Puts the entry and trims to capacity in ONE operate().
    result<insert_result> insert(const value& owner, const Key& k, const Value& v) const {
        return insert(owner, k, v, insert_options{});
    }

    /// insert() with a trim by age and extra operations, still ONE operate();
    /// if any operation fails nothing is applied.
    result<insert_result> insert(const value& owner, const Key& k, const Value& v,
                                 insert_options opt) const {
        if (opt.drop_keys_below) {
            cdt::op age = age_op(*opt.drop_keys_below);
            return detail::capped_insert(detail::store_ref(this->store()), this->location(), owner,
                                         codec<Key>::encode(k), codec<Value>::encode(v), trim_op(), &age,
                                         std::move(opt.also));
        }
        return detail::capped_insert(detail::store_ref(this->store()), this->location(), owner,
                                     codec<Key>::encode(k), codec<Value>::encode(v), trim_op(), nullptr,
                                     std::move(opt.also));
    }

    /// Trim by age: removes the entries whose key is below `bound` in one
    /// operate; returns how many (0 without a record).
    result<std::size_t> drop_keys_below(const value& owner, const Key& bound) const {
        auto r = this->run(owner, detail::one_op(age_op(bound)));
        if (!r) {
            if (r.error().code == status::record_not_found) return std::size_t{0};
            return r.error();
        }
        return count_result(r->front(), "capped_map::drop_keys_below");
    }

    /// Changes the capacity; shrinking trims the owner's record now (one
    /// operate) and returns how many entries were removed. Other owners'
    /// records are trimmed on their next insert.
    result<std::size_t> set_capacity(const value& owner, std::size_t capacity) {
        KVMODEL_ASSERT(capacity > 0);
        m_capacity = capacity;
        auto r = this->run(owner, detail::one_op(trim_op(cdt::return_type::count)));
        if (!r) {
            if (r.error().code == status::record_not_found) return std::size_t{0};
            return r.error();
        }
        return count_result(r->front(), "capped_map::set_capacity");
    }

    /// The k highest-valued entries, highest first.
    result<std::vector<entry>> top(const value& owner, std::size_t k) const {
        if (k == 0) return std::vector<entry>{};
        auto sk = static_cast<std::int64_t>(k);
        return select(owner, cdt::map_ops::get_by_rank_range(-sk, sk, cdt::return_type::key_value), true);
    }
    /// The k lowest-valued entries, lowest first.
    result<std::vector<entry>> bottom(const value& owner, std::size_t k) const {
        if (k == 0) return std::vector<entry>{};
        return select(owner, cdt::map_ops::get_by_rank_range(0, static_cast<std::int64_t>(k),
                                                             cdt::return_type::key_value));
    }
    /// The k entries with the highest keys (newest), highest key first.
    result<std::vector<entry>> newest(const value& owner, std::size_t k) const {
        if (k == 0) return std::vector<entry>{};
        auto sk = static_cast<std::int64_t>(k);
        return select(owner, cdt::map_ops::get_by_index_range(-sk, sk, cdt::return_type::key_value), true);
    }
    /// Every entry in key order.
    result<std::vector<entry>> all(const value& owner) const {
        return select(owner, cdt::map_ops::get_by_index_range(0, std::nullopt, cdt::return_type::key_value));
    }
    /// The lowest-valued entry, if any.
    result<std::optional<entry>> min(const value& owner) const { return one(owner, 0); }
    /// The highest-valued entry, if any.
    result<std::optional<entry>> max(const value& owner) const { return one(owner, -1); }

    /// The owner's entry count (0 without a record). One round trip.
    result<std::size_t> size(const value& owner) const {
        auto r = this->read(owner, detail::one_op(cdt::map_ops::size()), value{});
        if (!r) return r.error();
        return count_result(r->front(), "capped_map::size");
    }

private:
    static cdt::op age_op(const Key& bound) {
        return cdt::map_ops::remove_by_key_range(value{}, codec<Key>::encode(bound),
                                                 cdt::return_type::count);
    }

    cdt::op trim_op(cdt::return_type rt = cdt::return_type::none) const {
        auto n = static_cast<std::int64_t>(m_capacity);
        return m_keep == keep::top_by_rank
                   ? cdt::map_ops::remove_by_rank_range(-n, n, rt, true)
                   : cdt::map_ops::remove_by_index_range(-n, n, rt, true);
    }

    // The entries `o` reads, in its order or (reversed) last first.
    result<std::vector<entry>> select(const value& owner, cdt::op o, bool reversed = false) const {
        auto r = this->read(owner, detail::one_op(std::move(o)), value{list{}});
        if (!r) return r.error();
        return decode_pairs<Key, Value>(r->front(), "capped_map", reversed);
    }

    result<std::optional<entry>> one(const value& owner, std::int64_t rank) const {
        auto pairs = select(owner, cdt::map_ops::get_by_rank_range(rank, 1, cdt::return_type::key_value));
        if (!pairs) return pairs.error();
        if (pairs->empty()) return std::optional<entry>{};
        return std::optional<entry>(std::move(pairs->front()));
    }

    std::size_t m_capacity;
    keep m_keep;
};

} // namespace kvmodel::patterns

#if KVMODEL_DEFINITIONS
namespace kvmodel::patterns {

KVMODEL_DECL result<capped_insert_result> detail::capped_insert(const store_ref& store, const record_location& where,
                                                                const value& owner, const value& key, value val,
                                                                cdt::op trim, cdt::op* age,
                                                                std::vector<kv::operation> also) {
    std::vector<cdt::op> ops;
    ops.push_back(cdt::map_ops::put(key, std::move(val), cdt::map_ops::policy(map_order::key_value_ordered)));
    if (age != nullptr) ops.push_back(std::move(*age)); // age first, then the cap
    ops.push_back(std::move(trim));
    ops.push_back(cdt::map_ops::get_by_key(key, cdt::return_type::exists));
    ops.push_back(cdt::map_ops::size());
    const std::size_t mine = ops.size();
    auto r = run_on_bin(store, where, owner, ops, std::move(also), nullptr);
    if (!r) return r.error();
    const std::size_t at = mine - 2;
    auto n = count_result((*r)[at + 1], "capped_map::insert");
    if (!n) return n.error();
    capped_insert_result out{*n, (*r)[at].is_bool() && (*r)[at].as_bool(), 0, {}};
    if (mine == 5) {
        auto aged = count_result((*r)[1], "capped_map::insert");
        if (!aged) return aged.error();
        out.aged_out = *aged;
    }
    // The results of `also`: the tail, moved (erase and move-assignment
    // are compiled for vector<value> anyway; a move_iterator assign is not).
    r->erase(r->begin(), r->begin() + static_cast<std::ptrdiff_t>(mine));
    out.also = std::move(*r);
    return out;
}

} // namespace kvmodel::patterns
#endif // KVMODEL_DEFINITIONS
