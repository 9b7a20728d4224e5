// kvmodel/patterns/unique_count.hpp
//
// Unique counts with HyperLogLog bins: one record per (subject, period) — a
// page and a day, an audience and a campaign — holding one HLL bin. add()
// folds visitors into the period's sketch and returns its estimated count in
// ONE operate(), creating the sketch on first use; count() reads it.
// Counting across records runs on the server: union_count() (the weekly
// unique visitors of a page from its 7 daily sketches) reads the other
// sketches in one batch and asks the first record for the union's count;
// rollup() stores that union in a record of its own (a week), so later reads
// are one operate(); overlap() estimates how two audiences overlap
// (intersection, union, Jaccard similarity) against one record.
//
// Accuracy is the server's HLL: a relative standard error of about
// 1.04 / sqrt(2^index_bits) (0.8% at the default 14 bits, a 12 KiB bin).
// Intersections without minhash bits are inclusion-exclusion (poor when the
// overlap is small next to the union); give minhash_bits (e.g. 16) for the
// HyperMinHash estimate, at (6 + minhash_bits) / 6 times the bin size. All
// sketches that meet in one union or overlap should share their bits: a
// union folds to the smaller index bits and drops minhash bits that differ,
// and sketches with equal minhash bits but different index bits never
// intersect (the server's minhash values come from different hash bits).
//
// Cost: add / count: one operate() on one record; union_count / overlap:
// one batch read + one operate(); rollup: one batch read + one operate() on
// the target. Missing periods count as empty. Errors: the store's;
// PARAMETER_ERROR for bits out of range (from the server, at the first add).
#pragma once

#include <kvmodel/cdt/hll_ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/store.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// Where unique counts live and the sketches' geometry.
struct unique_count_options {
    /// The namespace.
    std::string ns = "test";
    /// The set: one record per (subject, period).
    std::string set = "uniques";
    /// The HLL bin.
    std::string bin = "hll";
    /// Index bits of new sketches (4..16): 2^bits registers.
    int index_bits = 14;
    /// Minhash bits of new sketches (0, or 4..51 with index + minhash <= 64).
    int minhash_bits = 0;
    /// Policy of the writes.
    kv::write_policy write{};
    /// Policy of the reads.
    kv::read_policy read{};
};

/// How two audiences overlap (server estimates).
struct unique_overlap {
    /// Estimated members of both.
    std::int64_t both = 0;
    /// Estimated members of either.
    std::int64_t either = 0;
    /// Estimated Jaccard similarity, both / either (0 when either is empty).
    double similarity = 0;
};

/// Unique counts per (subject, period) in HLL bins. Every method is one or
/// two round trips whatever the number of members or periods.
template <kv::kv_store Store>
class unique_count {
public:
    /// Keeps a reference to store.
    explicit unique_count(Store& store, unique_count_options options = {})
        : m_store(&store)
        , m_opt(std::move(options)) {}

    /// The options it was built with.
    const unique_count_options& options() const noexcept { return m_opt; }

    /// The record of (subject, period): user key "subject@period".
    result<kv::key> key_of(std::string_view subject, std::string_view period) const {
        std::string k(subject);
        k += '@';
        k += period;
        return kv::key::make(m_opt.ns, m_opt.set, value(std::move(k)));
    }

    /// Adds members (no lists or maps) to the period's sketch, creating it,
    /// and returns its estimated unique count: ONE operate(). Adding no
    /// members only reads the count.
    result<std::int64_t>
    add(std::string_view subject, std::string_view period, std::vector<value> members) const {
        if (members.empty())
            return count(subject, period);
        auto k = key_of(subject, period);
        if (!k)
            return k.error();
        namespace ho = cdt::hll_ops;
        const std::vector<kv::operation> ops = {
            kv::op::hll(m_opt.bin,
                        ho::hll_add_mh(std::move(members), m_opt.index_bits, m_opt.minhash_bits)),
            kv::op::hll(m_opt.bin, ho::hll_get_count()),
        };
        auto r = m_store->operate(*k, ops, m_opt.write);
        if (!r)
            return r.error();
        return r->results[1].as_int();
    }

    /// The period's estimated unique count; 0 when nothing was added.
    result<std::int64_t> count(std::string_view subject, std::string_view period) const {
        auto k = key_of(subject, period);
        if (!k)
            return k.error();
        const std::vector<kv::operation> ops = {
            kv::op::hll(m_opt.bin, cdt::hll_ops::hll_get_count())};
        auto r = m_store->operate(*k, ops, kv::as_write_policy(m_opt.read));
        if (!r)
            return r.error().code == status::record_not_found ? result<std::int64_t>(0) : r.error();
        return r->results[0].is_int() ? r->results[0].as_int() : 0;
    }

    /// The estimated unique count over several periods of one subject (a
    /// week of days): one batch read of the sketches + one operate() on the
    /// first period that exists, which the server unions with the rest.
    result<std::int64_t> union_count(std::string_view subject,
                                     const std::vector<std::string>& periods) const {
        auto s = sketches(subject, periods);
        if (!s)
            return s.error();
        if (s->empty())
            return std::int64_t{0};
        namespace ho = cdt::hll_ops;
        std::vector<bytes> rest;
        for (std::size_t i = 1; i < s->size(); ++i)
            rest.push_back(std::move((*s)[i].second));
        const std::vector<kv::operation> ops = {
            rest.empty() ? kv::op::hll(m_opt.bin, ho::hll_get_count())
                         : kv::op::hll(m_opt.bin, ho::hll_get_union_count(std::move(rest)))};
        auto r = m_store->operate(s->front().first, ops, kv::as_write_policy(m_opt.read));
        if (!r)
            return r.error();
        return r->results[0].as_int();
    }

    /// Stores the union of `periods` as period `target` (a week from its
    /// days), replacing what `target` held, and returns its estimated count:
    /// one batch read + one operate().
    result<std::int64_t> rollup(std::string_view subject,
                                const std::vector<std::string>& periods,
                                std::string_view target) const {
        auto s = sketches(subject, periods);
        if (!s)
            return s.error();
        auto k = key_of(subject, target);
        if (!k)
            return k.error();
        namespace ho = cdt::hll_ops;
        std::vector<bytes> parts;
        for (auto& [key, sketch] : *s)
            parts.push_back(std::move(sketch));
        // A fresh sketch with the pattern's bits, then the union into it: the
        // result has the smallest bits of all (what target held is dropped).
        std::vector<kv::operation> ops = {
            kv::op::hll(m_opt.bin, ho::hll_init_mh(m_opt.index_bits, m_opt.minhash_bits)),
        };
        if (!parts.empty())
            ops.push_back(kv::op::hll(
                m_opt.bin,
                ho::hll_set_union(std::move(parts), {cdt::hll_write_flags::allow_fold})));
        ops.push_back(kv::op::hll(m_opt.bin, ho::hll_get_count()));
        auto r = m_store->operate(*k, ops, m_opt.write);
        if (!r)
            return r.error();
        return r->results.back().as_int();
    }

    /// How the audiences (a_subject, a_period) and (b_subject, b_period)
    /// overlap: one batch read + one operate(). Empty when either is missing.
    result<unique_overlap> overlap(std::string_view a_subject,
                                   std::string_view a_period,
                                   std::string_view b_subject,
                                   std::string_view b_period) const {
        auto ka = key_of(a_subject, a_period);
        if (!ka)
            return ka.error();
        auto kb = key_of(b_subject, b_period);
        if (!kb)
            return kb.error();
        auto s = fetch({*ka, *kb});
        if (!s)
            return s.error();
        if (s->size() < 2)
            return unique_overlap{};
        const bytes& other = (*s)[1].second;
        namespace ho = cdt::hll_ops;
        const std::vector<kv::operation> ops = {
            kv::op::hll(m_opt.bin, ho::hll_get_intersect_count({other})),
            kv::op::hll(m_opt.bin, ho::hll_get_union_count({other})),
            kv::op::hll(m_opt.bin, ho::hll_get_similarity({other})),
        };
        auto r = m_store->operate(*ka, ops, kv::as_write_policy(m_opt.read));
        if (!r)
            return r.error();
        unique_overlap o;
        o.both = r->results[0].as_int();
        o.either = r->results[1].as_int();
        const value& sim = r->results[2];
        o.similarity = sim.is_double() && !std::isnan(sim.as_double()) ? sim.as_double() : 0.0;
        return o;
    }

private:
    /// The records and sketches of the periods that exist, in period order.
    result<std::vector<std::pair<kv::key, bytes>>>
    sketches(std::string_view subject, const std::vector<std::string>& periods) const {
        std::vector<kv::key> keys;
        keys.reserve(periods.size());
        for (const std::string& p : periods) {
            auto k = key_of(subject, p);
            if (!k)
                return k.error();
            keys.push_back(std::move(*k));
        }
        return fetch(std::move(keys));
    }

    /// The records of `keys` that exist and hold a sketch, with it, in key
    /// order: one batch read.
    result<std::vector<std::pair<kv::key, bytes>>> fetch(std::vector<kv::key> keys) const {
        auto got = kv::batch_get(*m_store, keys, m_opt.read);
        std::vector<std::pair<kv::key, bytes>> out;
        for (std::size_t i = 0; i < got.size(); ++i) {
            auto& r = got[i];
            if (!r) {
                if (r.error().code == status::record_not_found)
                    continue;
                return r.error();
            }
            const value* v = r->get(m_opt.bin);
            if (v != nullptr && v->is_bytes())
                out.emplace_back(std::move(keys[i]), v->as_bytes());
        }
        return out;
    }

    Store* m_store;
    unique_count_options m_opt;
};

} // namespace kvmodel::patterns
