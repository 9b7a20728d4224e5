// kvmodel/adapters/scoped_store.hpp
//
// scoped_store<Store>: a kv_store that runs on another one with every record
// moved into sets of its own — set "s" becomes "s_<scope>", no set becomes
// "<scope>" — and removes every record it wrote when it is destroyed (or on
// clear()). Programs written for a fresh simulated cluster (examples, pattern
// scenarios, conformance runs) can so run on a shared real server again and
// again without seeing each other's or their own earlier records.
//
// Everything else passes through unchanged: values, policies, statuses and
// results. Keys handed back by scans and queries get their original set again
// (and so a digest computed from it; a key whose user key was not stored comes
// back by its digest on the scoped set). Secondary index names get "_<scope>"
// too, and scoped indexes are dropped with the records.
//
// Departures: a set name plus the scope may not exceed 63 bytes (PARAMETER_ERROR,
// as for any over-long set); scans and queries of a whole namespace (empty set)
// see the namespace's records without a set, i.e. those of this scope only.
//
// Cost: one key copy (and digest) per call; the scope remembers each key it
// wrote. Not thread-safe across threads sharing one scoped_store unless the
// underlying store is and calls are serialised by the caller for the
// bookkeeping (a mutex guards it).
#pragma once

#include <kvmodel/core/result.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/store.hpp>

#include <algorithm>
#include <initializer_list>
#include <mutex>
#include <span>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace kvmodel::adapters {

/// A kv_store over another one whose records all live in sets of their own
/// (suffixed with a scope) and are removed when it is destroyed; see the
/// header comment. Each call is the inner store's call on the scoped key.
template <kv::kv_store Store>
class scoped_store {
public:
    /// Records go to sets suffixed with `scope` (non-empty, e.g. "run1234").
    scoped_store(Store& inner, std::string scope) : m_inner(inner), m_scope(std::move(scope)) {}
    scoped_store(const scoped_store&) = delete;
    scoped_store& operator=(const scoped_store&) = delete;
    ~scoped_store() { clear(); }

    /// The set a key's record really lives in.
    std::string scoped_set(const std::string& set) const { return set.empty() ? m_scope : set + "_" + m_scope; }

    /// The key as the inner store sees it. Complexity: one digest.
    result<kv::key> scoped(const kv::key& k) const {
        std::string set = scoped_set(k.set());
        if (!k.user_key()) return kv::key::from_digest(k.ns(), set, k.digest());
        return kv::key::make(k.ns(), set, *k.user_key());
    }

    /// The inner get() on the scoped key.
    result<kv::record> get(const kv::key& k, const kv::read_policy& rp = {}) {
        auto s = scoped(k);
        if (!s) return s.error();
        return m_inner.get(*s, rp);
    }
    /// \overload
    result<kv::record> get(const kv::key& k, std::span<const std::string> bins, const kv::read_policy& rp = {}) {
        auto s = scoped(k);
        if (!s) return s.error();
        return kv::get(m_inner, *s, bins, rp);
    }
    /// The inner exists() on the scoped key.
    result<bool> exists(const kv::key& k, const kv::read_policy& rp = {}) {
        auto s = scoped(k);
        if (!s) return s.error();
        return kv::exists(m_inner, *s, rp);
    }
    /// The inner put() on the scoped key; the key is remembered for clear().
    result<void> put(const kv::key& k, std::span<const kv::bin> bins, const kv::write_policy& wp = {}) {
        auto s = scoped(k);
        if (!s) return s.error();
        remember(*s);
        return kv::put(m_inner, *s, bins, wp);
    }
    /// The inner operate() on the scoped key; the key is remembered for clear().
    result<kv::record> operate(const kv::key& k, std::span<const kv::operation> ops, const kv::write_policy& wp = {}) {
        auto s = scoped(k);
        if (!s) return s.error();
        if (!std::all_of(ops.begin(), ops.end(), [](const kv::operation& o) { return kv::is_read(o); }))
            remember(*s);
        return m_inner.operate(*s, ops, wp);
    }
    /// operate() with a braced list of operations, as sim::cluster takes them.
    result<kv::record> operate(const kv::key& k, std::initializer_list<kv::operation> ops,
                               const kv::write_policy& wp = {}) {
        return operate(k, std::span<const kv::operation>(ops.begin(), ops.size()), wp);
    }
    /// The inner remove() on the scoped key.
    result<void> remove(const kv::key& k, const kv::write_policy& wp = {}) {
        auto s = scoped(k);
        if (!s) return s.error();
        return m_inner.remove(*s, wp);
    }
    /// The inner touch() on the scoped key.
    result<void> touch(const kv::key& k, const kv::write_policy& wp = {}) {
        auto s = scoped(k);
        if (!s) return s.error();
        return kv::touch(m_inner, *s, wp);
    }
    /// The inner batch_get() on the scoped keys.
    std::vector<result<kv::record>> batch_get(std::span<const kv::key> keys, const kv::read_policy& rp = {}) {
        std::vector<kv::key> sk;
        std::vector<result<kv::record>> out(keys.size(), result<kv::record>(kv::record{}));
        std::vector<std::size_t> slot;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            auto s = scoped(keys[i]);
            if (!s) {
                out[i] = s.error();
                continue;
            }
            slot.push_back(i);
            sk.push_back(std::move(*s));
        }
        auto got = kv::batch_get(m_inner, std::span<const kv::key>(sk), rp);
        for (std::size_t j = 0; j < got.size(); ++j) out[slot[j]] = std::move(got[j]);
        return out;
    }
    /// \overload
    std::vector<result<kv::record>> batch_get(std::span<const kv::key> keys, std::span<const std::string> bins,
                                              const kv::read_policy& rp = {}) {
        std::vector<kv::key> sk;
        std::vector<result<kv::record>> out(keys.size(), result<kv::record>(kv::record{}));
        std::vector<std::size_t> slot;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            auto s = scoped(keys[i]);
            if (!s) {
                out[i] = s.error();
                continue;
            }
            slot.push_back(i);
            sk.push_back(std::move(*s));
        }
        auto got = kv::batch_get(m_inner, std::span<const kv::key>(sk), bins, rp);
        for (std::size_t j = 0; j < got.size(); ++j) out[slot[j]] = std::move(got[j]);
        return out;
    }

    // --- kv_queryable, when the inner store is ------------------------------------
    /// Creates the index with a scoped name on the scoped set; dropped by clear().
    result<void> create_index(const kv::index_spec& ix)
        requires kv::kv_queryable<Store>
    {
        kv::index_spec s = ix;
        s.set = scoped_set(ix.set);
        s.name = ix.name + "_" + m_scope;
        auto r = m_inner.create_index(s);
        if (r) {
            std::lock_guard<std::mutex> lock(m_mu);
            m_indexes.emplace_back(s.ns, s.name);
        }
        return r;
    }
    /// Drops the scoped index of that name.
    result<void> drop_index(const std::string& ns, const std::string& name)
        requires kv::kv_queryable<Store>
    {
        std::string n = name + "_" + m_scope;
        {
            std::lock_guard<std::mutex> lock(m_mu);
            std::erase(m_indexes, std::make_pair(ns, n));
        }
        return m_inner.drop_index(ns, n);
    }
    /// The inner scan() of the scoped set; keys come back with their own set.
    result<std::vector<kv::keyed_record>> scan(const kv::scan_request& req, const kv::read_policy& rp = {})
        requires kv::kv_queryable<Store>
    {
        kv::scan_request s = req;
        s.set = scoped_set(req.set);
        auto r = m_inner.scan(s, rp);
        if (r) unscope(*r, req.set);
        return r;
    }
    /// The inner query() of the scoped set and index; keys come back with their own set.
    result<std::vector<kv::keyed_record>> query(const kv::query_request& req, const kv::read_policy& rp = {})
        requires kv::kv_queryable<Store>
    {
        kv::query_request q = req;
        q.set = scoped_set(req.set);
        auto r = m_inner.query(q, rp);
        if (r) unscope(*r, req.set);
        return r;
    }

    /// Removes every record written through this scope (and its indexes).
    void clear() {
        std::vector<kv::key> keys;
        std::vector<std::pair<std::string, std::string>> indexes;
        {
            std::lock_guard<std::mutex> lock(m_mu);
            keys = std::move(m_written);
            m_written.clear();
            m_seen.clear();
            indexes = std::move(m_indexes);
            m_indexes.clear();
        }
        for (const kv::key& k : keys) (void)m_inner.remove(k, kv::write_policy{});
        if constexpr (kv::kv_queryable<Store>)
            for (const auto& [ns, name] : indexes) (void)m_inner.drop_index(ns, name);
    }

    /// The store underneath.
    Store& inner() noexcept { return m_inner; }

private:
    void remember(const kv::key& k) {
        std::lock_guard<std::mutex> lock(m_mu);
        if (m_seen.insert(k).second) m_written.push_back(k);
    }
    void unscope(std::vector<kv::keyed_record>& rows, const std::string& set) const {
        for (kv::keyed_record& row : rows) {
            if (row.k.user_key()) {
                auto k = kv::key::make(row.k.ns(), set, *row.k.user_key());
                if (k) row.k = std::move(*k);
            }
        }
    }

    Store& m_inner;
    std::string m_scope;
    std::mutex m_mu;
    std::vector<kv::key> m_written;
    std::unordered_set<kv::key> m_seen;
    std::vector<std::pair<std::string, std::string>> m_indexes;
};

} // namespace kvmodel::adapters
