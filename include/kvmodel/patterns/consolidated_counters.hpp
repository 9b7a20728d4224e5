// kvmodel/patterns/consolidated_counters.hpp
//
// Consolidated counters (seed "Counter Examples: Consolidated Counters",
// consolidated_counter.py): many named counters in ONE map bin of one record
// — e.g. the ads of a campaign shown to a user today, record
// "user|campaign|day", map ad → times shown. Increment one or several in one
// operate() (map_increment creates a missing counter from 0), read all, the
// top K by value (rank range), and let the record's TTL expire the day.
//
// Capped increments ("show an ad at most N times a day") are atomic here:
// increment_capped() reads the counter and the record's generation, and
// increments only if the record is still at that generation (compare and
// set), retrying when another writer got there first. The seed reads, compares
// and increments in separate commands — two concurrent callers can both pass
// the cap; here the cap holds under any concurrency.
//
// Cost: one operate() per call (increment_capped: one read and one write per
// try). The map is key-ordered; top() is O(log n + k) in the engine. Every
// write rewrites the record (small: one entry per counter).
#pragma once

#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/patterns/exactly_once.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// Where consolidated counters live and how they are written.
struct consolidated_counters_options {
    /// The namespace.
    std::string ns = "test";
    /// The set: one record per scope.
    std::string set = "counters";
    /// The map bin holding name -> count.
    std::string bin = "c";
    /// Writes' policy; its ttl expires the record (e.g. the seconds left in
    /// the day). Reads never change the TTL.
    kv::write_policy write{};
    /// Policy of the reads.
    kv::read_policy read{};
    /// Tries of increment_capped() under contention.
    std::uint32_t max_cas_attempts = 64;
};

/// Many named counters in one map bin per scope (record): increment one or
/// several in one operate(), a capped increment by compare-and-set, all or the
/// top K. One round trip per call (increment_capped: a read and a write per
/// try). Errors: the store's (an in-doubt increment may have counted); a
/// PARAMETER_ERROR for a bad scope or a stored value that is not a counter map.
template <kv::kv_store Store>
class consolidated_counters {
public:
    /// A counter: its name and value.
    using entry = std::pair<value, std::int64_t>;

    /// Counters in `options`' namespace, set and bin; keeps a reference to the store.
    explicit consolidated_counters(Store& store, consolidated_counters_options options = {})
        : m_store(&store)
        , m_opt(std::move(options)) {}

    /// The options it was built with.
    const consolidated_counters_options& options() const noexcept { return m_opt; }

    /// The record of a scope: (ns, set, scope), e.g. scope "user|campaign|2019-03-05".
    result<kv::key> key_of(const value& scope) const {
        return kv::key::make(m_opt.ns, m_opt.set, scope);
    }

    /// Adds `by` to counter `name` (creating it from 0) and returns its new value.
    result<std::int64_t> increment(const value& scope, const value& name, std::int64_t by = 1) const {
        const entry one[] = {{name, by}};
        auto r = increment_many(scope, one);
        if (!r) return r.error();
        return r->at(0);
    }

    /// What increment_once() did.
    struct once_increment {
        bool applied = false; ///< false: an earlier send of this op id counted it
        std::optional<std::int64_t> value; ///< the new value when applied
    };

    /// increment() at most once per op id (patterns/exactly_once.hpp): the id
    /// and `stamp` (the caller's clock or sequence) are recorded in the same
    /// operate, the last `once.keep` ids kept. After a timeout, resend with
    /// the same op id and stamp: a copy already counted reports applied = false.
    result<once_increment> increment_once(const value& scope, const value& name, std::int64_t by,
                                          const value& op_id, std::int64_t stamp,
                                          const once_options& once = {}) const {
        auto k = key_of(scope);
        if (!k) return k.error();
        const std::vector<kv::operation> ops = {
            kv::op::cdt(m_opt.bin, cdt::map_ops::increment(name, value(by), map_policy()))};
        auto r = operate_once(*m_store, *k, op_id, stamp, ops, m_opt.write, once);
        if (!r) return r.error();
        if (!r->applied) return once_increment{};
        const value& v = r->rec.results.at(0);
        if (!v.is_int()) return unexpected("increment_once", v);
        return once_increment{true, v.as_int()};
    }

    /// Adds to several counters in ONE operate(); returns their new values in
    /// argument order.
    result<std::vector<std::int64_t>> increment_many(const value& scope,
                                                     std::span<const entry> deltas) const {
        std::vector<kv::operation> ops;
        ops.reserve(deltas.size());
        for (const entry& d : deltas)
            ops.push_back(kv::op::cdt(m_opt.bin, cdt::map_ops::increment(d.first, value(d.second),
                                                                         map_policy())));
        auto r = operate(scope, ops, m_opt.write);
        if (!r) return r.error();
        std::vector<std::int64_t> out;
        out.reserve(deltas.size());
        for (const value& v : r->results) {
            if (!v.is_int()) return unexpected("increment", v);
            out.push_back(v.as_int());
        }
        return out;
    }

    /// Adds `by` to `name` only if that keeps it at or below `cap`, atomically
    /// (compare and set on the record's generation). Returns the new value,
    /// or nullopt when the counter is at the cap (nothing written).
    result<std::optional<std::int64_t>> increment_capped(const value& scope, const value& name,
                                                         std::int64_t cap, std::int64_t by = 1) const {
        for (std::uint32_t attempt = 0; attempt < m_opt.max_cas_attempts; ++attempt) {
            const std::vector<kv::operation> read_ops = {
                kv::op::read_header(),
                kv::op::cdt(m_opt.bin, cdt::map_ops::get_by_key(name, cdt::return_type::value))};
            auto cur = operate(scope, read_ops, kv::as_write_policy(m_opt.read));
            std::int64_t now = 0;
            std::uint32_t generation = 0;
            if (cur) {
                generation = cur->generation;
                const value& v = cur->results.at(1);
                if (!v.is_nil()) {
                    if (!v.is_int()) return unexpected("increment_capped", v);
                    now = v.as_int();
                }
            } else if (cur.error().code != status::record_not_found) {
                return cur.error();
            }
            if (now + by > cap) return std::optional<std::int64_t>{};
            kv::write_policy wp = m_opt.write;
            wp.gen = kv::generation_policy::eq;
            wp.generation = generation; // 0 = the record must not exist yet
            if (!cur) wp.exists = kv::record_exists_action::create_only;
            const std::vector<kv::operation> ops = {kv::op::cdt(
                m_opt.bin, cdt::map_ops::increment(name, value(by), map_policy()))};
            auto w = operate(scope, ops, wp);
            if (w) {
                const value& v = w->results.at(0);
                if (!v.is_int()) return unexpected("increment_capped", v);
                return std::optional<std::int64_t>(v.as_int());
            }
            // Another writer changed the record (or created it) first: try again.
            if (w.error().code != status::generation_error &&
                w.error().code != status::record_exists)
                return w.error();
        }
        return error{status::generation_error,
                     "consolidated_counters::increment_capped: the record kept changing (" +
                         std::to_string(m_opt.max_cas_attempts) + " tries)"};
    }

    /// One counter's value, or nullopt when it (or the record) does not exist.
    result<std::optional<std::int64_t>> get(const value& scope, const value& name) const {
        const std::vector<kv::operation> ops = {
            kv::op::cdt(m_opt.bin, cdt::map_ops::get_by_key(name, cdt::return_type::value))};
        auto r = operate(scope, ops, kv::as_write_policy(m_opt.read));
        if (!r) {
            if (r.error().code == status::record_not_found) return std::optional<std::int64_t>{};
            return r.error();
        }
        const value& v = r->results.at(0);
        if (v.is_nil()) return std::optional<std::int64_t>{};
        if (!v.is_int()) return unexpected("get", v);
        return std::optional<std::int64_t>(v.as_int());
    }

    /// Every counter, in name order (empty when there is no record).
    result<std::vector<entry>> all(const value& scope) const {
        return pairs(scope, cdt::map_ops::get_by_index_range(0, std::nullopt, cdt::return_type::key_value),
                     "all");
    }

    /// The k highest counters, highest first (ties: the higher name first).
    result<std::vector<entry>> top(const value& scope, std::size_t k) const {
        if (k == 0) return std::vector<entry>{};
        const auto n = static_cast<std::int64_t>(std::min<std::size_t>(k, 1U << 30));
        auto r = pairs(scope, cdt::map_ops::get_by_rank_range(-n, n, cdt::return_type::key_value),
                       "top");
        if (!r) return r;
        std::reverse(r->begin(), r->end()); // rank order is lowest first
        return r;
    }

    /// Removes one counter; returns whether it existed.
    result<bool> remove(const value& scope, const value& name) const {
        const std::vector<kv::operation> ops = {
            kv::op::cdt(m_opt.bin, cdt::map_ops::remove_by_key(name, cdt::return_type::count))};
        kv::write_policy wp = m_opt.write;
        wp.exists = kv::record_exists_action::update_only;
        auto r = operate(scope, ops, wp);
        if (!r) {
            if (r.error().code == status::record_not_found) return false;
            return r.error();
        }
        const value& v = r->results.at(0);
        return v.is_int() && v.as_int() > 0;
    }

private:
    static cdt::map_policy map_policy() { return cdt::map_ops::policy(map_order::key_ordered); }

    static error unexpected(const char* what, const value& v) {
        return error{status::bin_type_error, std::string("consolidated_counters::") + what +
                                                 ": a counter holds " + to_string(v) +
                                                 ", not an integer"};
    }

    result<kv::record> operate(const value& scope, const std::vector<kv::operation>& ops,
                               const kv::write_policy& wp) const {
        auto k = key_of(scope);
        if (!k) return k.error();
        return m_store->operate(*k, ops, wp);
    }

    result<std::vector<entry>> pairs(const value& scope, cdt::op op, const char* what) const {
        const std::vector<kv::operation> ops = {kv::op::cdt(m_opt.bin, std::move(op))};
        auto r = operate(scope, ops, kv::as_write_policy(m_opt.read));
        if (!r) {
            if (r.error().code == status::record_not_found) return std::vector<entry>{};
            return r.error();
        }
        const value& v = r->results.at(0);
        std::vector<entry> out;
        if (v.is_nil()) return out;
        if (!v.is_list()) return unexpected(what, v);
        for (const value& p : v.as_list()) {
            if (!p.is_list() || p.as_list().size() != 2 || !p.as_list()[1].is_int())
                return unexpected(what, p);
            out.emplace_back(p.as_list()[0], p.as_list()[1].as_int());
        }
        return out;
    }

    Store* m_store;
    consolidated_counters_options m_opt;
};

} // namespace kvmodel::patterns
