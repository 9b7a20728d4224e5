// kvmodel/patterns/time_series.hpp
//
// Time-bucketed map: a per-owner series of readings `ts_ms -> value` split
// over one record per period, key `owner:P` where P = floor(ts / period_ms),
// each holding a KEY_ORDERED map. There is no head record: the period of a
// timestamp is computed, so
//   write            ONE operate (put into the period's map) — 1 round trip;
//                    a retried write of the same (ts, value) is idempotent
//                    (same key, same value), a later write of a ts replaces it;
//   range            ONE batch read of the periods the window spans; edge
//                    periods are filtered client-side, so bytes read are the
//                    whole records of the spanned periods;
//   newest (pages)   one read operate per period walked, newest period first,
//                    each returning at most the page's remainder server-side
//                    (get_by_key_rel_index_range); the cursor is the last ts;
//   downsample       ONE batch (kv::batch_operate) over the periods the
//                    window spans: count, min and max are computed by the
//                    server (map size, value rank 0 and -1) for periods wholly
//                    inside the window; sum, and all aggregates of the two edge
//                    periods, are computed client-side from the values read;
//                    rolled up into coarser steps (a multiple of the period,
//                    e.g. hourly periods into days) from the same batch;
//   retention        by TTL (every write sets the record's TTL to retention +
//                    one period, so a period lives at least `retention` after
//                    its last write) and by drop_older_than (removes the whole
//                    periods before a time, trims the one containing it: ONE
//                    batch).
// A write rewrites its period's record only: the period bounds the record's
// size (pick period_ms so that a period's readings stay well under the
// record-size limit; `kvmodel size` does the arithmetic for bucketed lists).
//
// Errors: the store's (TIMEOUT with error::in_doubt, RECORD_TOO_BIG for an
// overfull period, ...); PARAMETER_ERROR for a window spanning more than
// max_periods_per_read periods, an owner that is empty, or a stored value the
// codec cannot decode. A missing period reads as empty.
#pragma once

#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/core/assert.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/batch.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/patterns/codec.hpp>
#include <kvmodel/patterns/record_pattern.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// How a time series is bucketed and kept.
struct time_series_options {
    /// Width of one bucket record in milliseconds (default one hour); > 0.
    std::int64_t period_ms = 3'600'000;
    /// Seconds a period is kept after its last write (record TTL = retention
    /// + one period); 0 = the write policy's TTL (the namespace default).
    std::int64_t retention_s = 0;
    /// A read spanning more periods than this fails PARAMETER_ERROR.
    std::size_t max_periods_per_read = 10'000;
    /// Where the buckets live (namespace, set, bin, policies).
    record_location where{.set = "series", .bin = "points"};
};

/// One reading: when and what.
template <encodable Value>
struct time_point {
    std::int64_t ts = 0; ///< Unix milliseconds; unique per owner
    Value value{};       ///< the reading

    /// Field by field.
    friend bool operator==(const time_point&, const time_point&) = default;
};

/// A page of readings, newest first, and where the next one starts.
template <encodable Value>
struct time_page {
    std::vector<time_point<Value>> items; ///< newest first
    /// Pass as `before` for the next page; absent when the series is exhausted.
    std::optional<std::int64_t> next;
};

/// What downsample() computes per period; sum costs reading every value.
enum class aggregates : std::uint8_t {
    count_min_max, ///< server-side for periods wholly inside the window
    with_sum       ///< all four, client-side from the values read
};

/// Aggregates of one period of a window.
struct period_summary {
    std::int64_t start = 0;         ///< the period's first millisecond
    std::size_t count = 0;          ///< readings in the window and period
    std::optional<double> min;      ///< lowest reading; absent when count is 0
    std::optional<double> max;      ///< highest reading; absent when count is 0
    std::optional<double> sum;      ///< asked for with aggregates::with_sum

    /// Field by field.
    friend bool operator==(const period_summary&, const period_summary&) = default;
};

/// What drop_older_than() removed.
struct drop_result {
    std::size_t periods_removed = 0; ///< whole period records deleted
    std::size_t points_trimmed = 0;  ///< readings removed from the period containing `before`
};

/// A per-owner series `ts_ms -> Value` over one record per period (see the
/// header comment for every call's cost). Keeps a reference to the store.
template <kv::kv_store Store, encodable Value>
class time_series {
public:
    /// One reading of this series.
    using point = time_point<Value>;

    /// A series in `opt`; period_ms <= 0 is a broken precondition.
    explicit time_series(Store& store, time_series_options opt = {})
        : m_store(&store)
        , m_opt(std::move(opt)) {
        KVMODEL_ASSERT(m_opt.period_ms > 0);
        if (m_opt.retention_s > 0)
            m_opt.where.write.ttl = m_opt.retention_s + (m_opt.period_ms + 999) / 1000;
    }

    /// The options in force (write.ttl already derived from retention_s).
    const time_series_options& options() const noexcept { return m_opt; }

    /// The period a timestamp falls in (floor division: negative ts work).
    std::int64_t period_of(std::int64_t ts) const noexcept {
        std::int64_t p = ts / m_opt.period_ms;
        return (ts % m_opt.period_ms < 0) ? p - 1 : p;
    }
    /// The first millisecond of period p.
    std::int64_t period_start(std::int64_t p) const noexcept { return p * m_opt.period_ms; }

    /// The key of the owner's record for period p: (ns, set, "owner:p").
    result<kv::key> key_of(const std::string& owner, std::int64_t p) const {
        if (owner.empty())
            return error{status::parameter_error, "time_series: the owner is empty"};
        return kv::key::make(m_opt.where.ns, m_opt.where.set,
                             value(owner + ":" + std::to_string(p)));
    }

    /// Stores one reading in ONE operate; returns the readings in its period.
    /// A reading at an existing ts replaces it (so a retry is harmless).
    result<std::size_t> write(const std::string& owner, std::int64_t ts, const Value& v) const {
        auto k = key_of(owner, period_of(ts));
        if (!k) return k.error();
        std::vector<kv::operation> ops{kv::op::cdt(
            m_opt.where.bin,
            cdt::map_ops::put(value(ts), codec<Value>::encode(v),
                              cdt::map_ops::policy(map_order::key_ordered)))};
        auto r = patterns::operate(*m_store, *k, ops, m_opt.where.write);
        if (!r) return std::move(r).error();
        return count_result(r->results.front(), "time_series::write");
    }

    /// The readings with from <= ts < to, oldest first: ONE batch read of the
    /// periods the window spans.
    result<std::vector<point>> range(const std::string& owner, std::int64_t from,
                                     std::int64_t to) const {
        std::vector<point> out;
        if (from >= to) return out;
        auto keys = keys_of(owner, from, to, "time_series::range");
        if (!keys) return keys.error();
        auto recs = kv::batch_get(*m_store, std::span<const kv::key>(*keys), m_opt.where.read);
        for (auto& rec : recs) {
            if (!rec) {
                if (rec.error().code == status::record_not_found) continue;
                return rec.error();
            }
            const value* bin = rec->get(m_opt.where.bin);
            if (bin == nullptr) continue;
            if (!bin->is_map())
                return error{status::parameter_error,
                             "time_series::range: bin '" + m_opt.where.bin + "' is not a map"};
            for (const map_entry& e : bin->as_map()) {
                if (!e.key.is_int() || e.key.as_int() < from || e.key.as_int() >= to) continue;
                auto v = codec<Value>::decode(e.val);
                if (!v) return v.error();
                out.push_back(point{e.key.as_int(), std::move(v).value()});
            }
        }
        return out;
    }

    /// Up to `limit` readings with since <= ts < before, newest first, and
    /// the cursor of the next page (pass it as `before`). Walks periods
    /// newest first, one read operate each, fetching at most the page's
    /// remainder from each; the first page's `before` is typically now + 1.
    /// PARAMETER_ERROR when [since, before) spans more than
    /// max_periods_per_read periods.
    result<time_page<Value>> newest(const std::string& owner, std::size_t limit,
                                    std::int64_t since, std::int64_t before) const {
        time_page<Value> page;
        if (limit == 0 || since >= before) return page;
        const std::int64_t first = period_of(since);
        std::int64_t p = period_of(before - 1);
        if (auto bad = check_span(first, p, "time_series::newest")) return *bad;
        for (; p >= first && page.items.size() < limit; --p) {
            auto want = static_cast<std::int64_t>(limit - page.items.size());
            // The `want` entries just below `before` (or the period's last ones).
            cdt::op o = !ends_by(p, before)
                            ? cdt::map_ops::get_by_key_rel_index_range(
                                  value(before), -want, want, cdt::return_type::key_value)
                            : cdt::map_ops::get_by_index_range(-want, want,
                                                               cdt::return_type::key_value);
            auto pairs = read_pairs(owner, p, std::move(o));
            if (!pairs) return pairs.error();
            for (auto it = pairs->rbegin(); it != pairs->rend(); ++it)
                if (it->first >= since && it->first < before)
                    page.items.push_back(point{it->first, std::move(it->second)});
        }
        if (page.items.size() >= limit) {
            page.items.resize(limit);
            page.next = page.items.back().ts;
        }
        return page;
    }

    /// Per-period aggregates of the readings with from <= ts < to, oldest
    /// period first (one entry per period spanned, empty ones with count 0):
    /// ONE batch over the periods (see the header comment for what the
    /// server computes). Values must be arithmetic.
    result<std::vector<period_summary>> downsample(const std::string& owner, std::int64_t from,
                                                   std::int64_t to,
                                                   aggregates what = aggregates::count_min_max) const
        requires std::is_arithmetic_v<Value>
    {
        return downsample(owner, from, to, m_opt.period_ms, what);
    }

    /// downsample() rolled up into coarser steps: one summary per `step_ms`
    /// (a multiple of period_ms; steps start at multiples of step_ms) that
    /// the window touches, from the fine periods' aggregates — still ONE
    /// batch. PARAMETER_ERROR for a step that is not a positive multiple of
    /// period_ms.
    result<std::vector<period_summary>> downsample(const std::string& owner, std::int64_t from,
                                                   std::int64_t to, std::int64_t step_ms,
                                                   aggregates what) const
        requires std::is_arithmetic_v<Value>
    {
        std::vector<period_summary> out;
        if (step_ms <= 0 || step_ms % m_opt.period_ms != 0)
            return error{status::parameter_error,
                         "time_series::downsample: step_ms " + std::to_string(step_ms) +
                             " is not a positive multiple of period_ms " +
                             std::to_string(m_opt.period_ms)};
        if (from >= to) return out;
        const std::int64_t first = period_of(from);
        const std::int64_t last = period_of(to - 1);
        if (auto bad = check_span(first, last, "time_series::downsample")) return *bad;
        std::vector<kv::batch_record> batch;
        for (std::int64_t p = first; p <= last; ++p) {
            auto k = key_of(owner, p);
            if (!k) return k.error();
            std::vector<kv::operation> ops;
            for (cdt::op& o : summary_ops(p, from, to, what))
                ops.push_back(kv::op::cdt(m_opt.where.bin, std::move(o)));
            batch.push_back(kv::batch_record::read(std::move(*k), std::move(ops), m_opt.where.read));
        }
        const auto res = kv::batch_operate(*m_store, std::span<const kv::batch_record>(batch));
        for (std::int64_t p = first; p <= last; ++p) {
            const auto& r = res[static_cast<std::size_t>(p - first)];
            if (!r && r.error().code != status::record_not_found) return r.error();
            auto s = summarize(p, from, to, what, r ? &r->results : nullptr);
            if (!s) return s.error();
            // A step's start: floor(period start / step) * step.
            const std::int64_t ps = period_start(p);
            const std::int64_t start = ps - (((ps % step_ms) + step_ms) % step_ms);
            if (out.empty() || out.back().start != start) {
                s->start = start;
                out.push_back(*s);
                continue;
            }
            period_summary& acc = out.back();
            acc.count += s->count;
            if (s->min) acc.min = acc.min ? std::min(*acc.min, *s->min) : *s->min;
            if (s->max) acc.max = acc.max ? std::max(*acc.max, *s->max) : *s->max;
            if (s->sum) acc.sum = acc.sum.value_or(0.0) + *s->sum;
        }
        return out;
    }

    /// Retention by hand: deletes the owner's periods that end at or before
    /// `before` (looking back to `since`), and trims the readings older than
    /// `before` from the period containing it: ONE batch (a remove per
    /// period and the trim). Resend after a failure: each part is idempotent.
    result<drop_result> drop_older_than(const std::string& owner, std::int64_t before,
                                        std::int64_t since) const {
        drop_result out;
        if (since >= before) return out;
        const std::int64_t edge = period_of(before);
        const std::int64_t first = period_of(since);
        if (auto bad = check_span(first, edge, "time_series::drop_older_than")) return *bad;
        std::vector<kv::batch_record> batch;
        for (std::int64_t p = first; p < edge; ++p) {
            auto k = key_of(owner, p);
            if (!k) return k.error();
            batch.push_back(kv::batch_record::remove(std::move(*k), m_opt.where.write));
        }
        const bool trim = before != period_start(edge);
        if (trim) {
            auto k = key_of(owner, edge);
            if (!k) return k.error();
            kv::write_policy wp = m_opt.where.write;
            wp.ttl = kv::ttl_dont_update; // trimming is not a write that extends retention
            batch.push_back(kv::batch_record::write(
                std::move(*k),
                {kv::op::cdt(m_opt.where.bin,
                             cdt::map_ops::remove_by_key_range(value{}, value(before),
                                                               cdt::return_type::count))},
                wp));
        }
        if (batch.empty()) return out;
        const auto res = kv::batch_operate(*m_store, std::span<const kv::batch_record>(batch));
        for (std::size_t i = 0; i < res.size(); ++i) {
            if (!res[i]) {
                if (res[i].error().code == status::record_not_found) continue;
                return res[i].error();
            }
            if (!trim || i + 1 < res.size()) {
                ++out.periods_removed;
                continue;
            }
            auto n = count_result(res[i]->results.front(), "time_series::drop_older_than");
            if (!n) return n.error();
            out.points_trimmed = *n;
        }
        return out;
    }

private:
    /// PARAMETER_ERROR when periods [first, last] are more than a read may span.
    std::optional<error> check_span(std::int64_t first, std::int64_t last,
                                    std::string_view what) const {
        // Unsigned: the difference of two extreme periods must not overflow.
        const std::uint64_t n =
            static_cast<std::uint64_t>(last) - static_cast<std::uint64_t>(first) + 1;
        if (n <= m_opt.max_periods_per_read) return std::nullopt;
        return error{status::parameter_error,
                     std::string(what) + ": the window spans " + std::to_string(n) +
                         " periods, more than max_periods_per_read (" +
                         std::to_string(m_opt.max_periods_per_read) + ")"};
    }

    /// Whether period p ends at or before t (no overflow near the int64 ends).
    bool ends_by(std::int64_t p, std::int64_t t) const noexcept {
        return t >= period_start(p) && t - period_start(p) >= m_opt.period_ms;
    }

    result<std::vector<kv::key>> keys_of(const std::string& owner, std::int64_t from,
                                         std::int64_t to, std::string_view what) const {
        const std::int64_t first = period_of(from);
        const std::int64_t last = period_of(to - 1);
        if (auto bad = check_span(first, last, what)) return *bad;
        std::vector<kv::key> keys;
        keys.reserve(static_cast<std::size_t>(last - first + 1));
        for (std::int64_t p = first; p <= last; ++p) {
            auto k = key_of(owner, p);
            if (!k) return k.error();
            keys.push_back(std::move(k).value());
        }
        return keys;
    }

    /// One read operate on period p; a missing record reads as `absent`.
    result<std::vector<value>> read_ops(const std::string& owner, std::int64_t p,
                                        std::vector<cdt::op> ops, const value& absent) const {
        auto k = key_of(owner, p);
        if (!k) return k.error();
        std::vector<kv::operation> kops;
        kops.reserve(ops.size());
        for (cdt::op& o : ops) kops.push_back(kv::op::cdt(m_opt.where.bin, std::move(o)));
        auto r = patterns::operate(*m_store, *k, kops, m_opt.where.write);
        if (!r) {
            if (r.error().code == status::record_not_found)
                return std::vector<value>(kops.size(), absent);
            return std::move(r).error();
        }
        return std::move(r->results);
    }

    result<std::vector<std::pair<std::int64_t, Value>>> read_pairs(const std::string& owner,
                                                                   std::int64_t p, cdt::op o) const {
        std::vector<cdt::op> ops;
        ops.push_back(std::move(o));
        auto r = read_ops(owner, p, std::move(ops), value{list{}});
        if (!r) return r.error();
        return decode_pairs<std::int64_t, Value>(r->front(), "time_series");
    }

    /// Whether downsample() reads period p's aggregates from the server
    /// (whole inside the window, no sum) or its values in the window.
    bool server_aggregates(std::int64_t p, std::int64_t from, std::int64_t to,
                           aggregates what) const {
        return from <= period_start(p) && ends_by(p, to) && what == aggregates::count_min_max;
    }

    /// downsample()'s read ops on period p: map size and value ranks 0 and
    /// -1, or the values of the readings in the window.
    std::vector<cdt::op> summary_ops(std::int64_t p, std::int64_t from, std::int64_t to,
                                     aggregates what) const {
        std::vector<cdt::op> ops;
        if (server_aggregates(p, from, to, what)) {
            ops.push_back(cdt::map_ops::size());
            ops.push_back(cdt::map_ops::get_by_rank_range(0, 1, cdt::return_type::value));
            ops.push_back(cdt::map_ops::get_by_rank_range(-1, 1, cdt::return_type::value));
            return ops;
        }
        ops.push_back(cdt::map_ops::get_by_key_range(
            value(std::max(from, period_start(p))),
            ends_by(p, to) ? value(period_start(p) + m_opt.period_ms) : value(to),
            cdt::return_type::value));
        return ops;
    }

    /// Period p's summary from summary_ops' results (nullptr: no record).
    result<period_summary> summarize(std::int64_t p, std::int64_t from, std::int64_t to,
                                     aggregates what, const std::vector<value>* r) const {
        period_summary s;
        s.start = period_start(p);
        if (what == aggregates::with_sum) s.sum = 0.0;
        if (r == nullptr) return s;
        if (server_aggregates(p, from, to, what)) {
            auto n = count_result(r->at(0), "time_series::downsample");
            if (!n) return n.error();
            s.count = *n;
            for (std::size_t i : {1U, 2U}) {
                auto v = decode_values<Value>(r->at(i), "time_series::downsample");
                if (!v) return v.error();
                if (v->empty()) continue;
                (i == 1 ? s.min : s.max) = static_cast<double>(v->front());
            }
            return s;
        }
        auto vs = decode_values<Value>(r->at(0), "time_series::downsample");
        if (!vs) return vs.error();
        s.count = vs->size();
        for (const Value& x : *vs) {
            auto d = static_cast<double>(x);
            s.min = s.min ? std::min(*s.min, d) : d;
            s.max = s.max ? std::max(*s.max, d) : d;
            if (s.sum) *s.sum += d;
        }
        return s;
    }

    Store* m_store;
    time_series_options m_opt;
};

} // namespace kvmodel::patterns
