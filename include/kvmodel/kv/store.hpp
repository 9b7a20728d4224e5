// kvmodel/kv/store.hpp
//
// The kv_store concept: what patterns need from a key-value store, with a
// small required surface and the optional extras dispatched in one place.
//
// | expression                  | result                    | errors         | meaning          |
// |-----------------------------|---------------------------|----------------|------------------|
// | s.get(k, rp)                | result<record>            | not found (2), | all bins, gen,   |
// |                             |                           | timeout, unav. | ttl              |
// | s.operate(k, ops, wp)       | result<record>            | see operation  | ops atomically,  |
// |                             |                           | .hpp, policy   | record.results   |
// | s.remove(k, wp)             | result<void>              | not found,     | deletes the      |
// |                             |                           | generation     | record           |
// | opt: s.get(k, bins, rp)     | result<record>            | as get         | named bins only  |
// | opt: s.exists(k, rp)        | result<bool>              | timeout, unav. | exists?          |
// | opt: s.put(k, bins, wp)     | result<void>              | as operate     | writes bins      |
// | opt: s.touch(k, wp)         | result<void>              | not found      | new ttl, gen     |
// | opt: s.batch_get(keys, rp)  | std::vector<result<record>> | per key      | one per key, in  |
// | opt: s.batch_get(keys, bins, rp) |                      |                | key order        |
// | opt: s.retry_timing(p)      | retry_policy              | -              | p on the store's |
// |                             |                           |                | clock (sim)      |
// | opt: s.truncate(ns, set, t) | result<void>              | param, ns      | deletes records  |
// |                             |                           |                | written before t |
//
// Errors carry Aerospike's status and a message naming the operation, the
// bin and the limit; a write that failed after it may have been applied
// (a timeout) has error::in_doubt set.
//
// Without an optional member, kv::get / exists / put / touch / batch_get fall
// back to the required ones: selected bins and exists through operate() with
// read ops (as Aerospike's clients send them), put through operate() with
// write ops, touch through operate({touch}), batch_get through one get per
// key. A store provides a member when it can do better (one round trip per
// node for a batch, say) — the results must not differ.
//
// kv_queryable adds scans and secondary-index queries (fan-out on read
// needs them): create_index / drop_index, scan a set, query an index on a bin
// — on its values, or, for collection indexes, on a list's elements, a map's
// keys or a map's values. Equality filters on numeric, string and blob
// indexes; inclusive ranges on numeric ones, as Aerospike's Filter.equal and
// Filter.range. A query on a bin without a matching index fails
// INDEX_NOT_FOUND (201).
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/partition_filter.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/retry.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::kv {

/// A key-value store: get, operate and remove (see the table above).
template <class S>
concept kv_store = requires(S& s,
                            const key& k,
                            std::span<const operation> ops,
                            const read_policy& rp,
                            const write_policy& wp) {
    { s.get(k, rp) } -> std::same_as<result<record>>;
    { s.operate(k, ops, wp) } -> std::same_as<result<record>>;
    { s.remove(k, wp) } -> std::same_as<result<void>>;
};

namespace detail {
template <class S>
concept has_get_bins =
    requires(S& s, const key& k, std::span<const std::string> bins, const read_policy& rp) {
    { s.get(k, bins, rp) } -> std::same_as<result<record>>;
};
template <class S>
concept has_exists = requires(S& s, const key& k, const read_policy& rp) {
    { s.exists(k, rp) } -> std::same_as<result<bool>>;
};
template <class S>
concept has_put = requires(S& s, const key& k, std::span<const bin> bins, const write_policy& wp) {
    { s.put(k, bins, wp) } -> std::same_as<result<void>>;
};
template <class S>
concept has_touch = requires(S& s, const key& k, const write_policy& wp) {
    { s.touch(k, wp) } -> std::same_as<result<void>>;
};
template <class S>
concept has_batch_get = requires(S& s, std::span<const key> keys, const read_policy& rp) {
    { s.batch_get(keys, rp) } -> std::same_as<std::vector<result<record>>>;
};
template <class S>
concept has_batch_get_bins = requires(S& s,
                                      std::span<const key> keys,
                                      std::span<const std::string> bins,
                                      const read_policy& rp) {
    { s.batch_get(keys, bins, rp) } -> std::same_as<std::vector<result<record>>>;
};
template <class S>
concept has_retry_timing = requires(const S& s, const retry_policy& p) {
    { s.retry_timing(p) } -> std::same_as<retry_policy>;
};
} // namespace detail

/// p as a pattern on s retries with it: timed by the store's own clock when
/// the store has one (S::retry_timing: a simulation's pauses move its manual
/// clock instead of sleeping), else p unchanged (real sleeps, steady_clock).
template <kv_store S>
retry_policy retry_timing(const S& s, retry_policy p) {
    if constexpr (detail::has_retry_timing<S>) {
        return s.retry_timing(std::move(p));
    } else {
        (void)s;
        return p;
    }
}

/// All bins of k. Complexity: the store's.
template <kv_store S>
result<record> get(S& s, const key& k, const read_policy& rp = {}) {
    return s.get(k, rp);
}

/// The named bins of k (a missing bin is absent from record.bins). Uses
/// S::get(k, bins, rp) when present, else operate() with one read per bin.
template <kv_store S>
result<record>
get(S& s, const key& k, std::span<const std::string> bins, const read_policy& rp = {}) {
    if constexpr (detail::has_get_bins<S>) {
        return s.get(k, bins, rp);
    } else {
        std::vector<operation> ops;
        ops.reserve(bins.size());
        for (const std::string& b : bins)
            ops.push_back(op::read(b));
        result<record> r = s.operate(k, ops, as_write_policy(rp));
        if (r)
            r->results.clear();
        return r;
    }
}

/// Whether k exists. Uses S::exists when present, else operate() with a
/// header read (KEY_NOT_FOUND -> false).
template <kv_store S>
result<bool> exists(S& s, const key& k, const read_policy& rp = {}) {
    if constexpr (detail::has_exists<S>) {
        return s.exists(k, rp);
    } else {
        const std::array<operation, 1> ops = {op::read_header()};
        result<record> r = s.operate(k, ops, as_write_policy(rp));
        if (r)
            return true;
        if (r.error().code == status::record_not_found)
            return false;
        return r.error();
    }
}

/// Writes bins to k (nil deletes a bin). Uses S::put when present, else
/// operate() with one write per bin.
template <kv_store S>
result<void> put(S& s, const key& k, std::span<const bin> bins, const write_policy& wp = {}) {
    if constexpr (detail::has_put<S>) {
        return s.put(k, bins, wp);
    } else {
        std::vector<operation> ops;
        ops.reserve(bins.size());
        for (const bin& b : bins)
            ops.push_back(op::write(b.name, b.val));
        result<record> r = s.operate(k, ops, wp);
        if (!r)
            return std::move(r).error();
        return {};
    }
}

/// Rewrites k with wp's TTL and a new generation; KEY_NOT_FOUND if missing.
template <kv_store S>
result<void> touch(S& s, const key& k, const write_policy& wp = {}) {
    if constexpr (detail::has_touch<S>) {
        return s.touch(k, wp);
    } else {
        const std::array<operation, 1> ops = {op::touch()};
        result<record> r = s.operate(k, ops, wp);
        if (!r)
            return std::move(r).error();
        return {};
    }
}

/// One result per key, in key order (a missing record is a
/// record_not_found error in its slot). Uses S::batch_get when present, else
/// one get per key.
template <kv_store S>
std::vector<result<record>> batch_get(S& s, std::span<const key> keys, const read_policy& rp = {}) {
    if constexpr (detail::has_batch_get<S>) {
        return s.batch_get(keys, rp);
    } else {
        std::vector<result<record>> out;
        out.reserve(keys.size());
        for (const key& k : keys)
            out.push_back(s.get(k, rp));
        return out;
    }
}

/// The named bins of each key, in key order.
template <kv_store S>
std::vector<result<record>> batch_get(S& s,
                                      std::span<const key> keys,
                                      std::span<const std::string> bins,
                                      const read_policy& rp = {}) {
    if constexpr (detail::has_batch_get_bins<S>) {
        return s.batch_get(keys, bins, rp);
    } else {
        std::vector<result<record>> out;
        out.reserve(keys.size());
        for (const key& k : keys)
            out.push_back(kv::get(s, k, bins, rp));
        return out;
    }
}

// --- queries ---------------------------------------------------------------

/// The particle type a secondary index holds (as_index_type).
enum class index_type : std::uint8_t { numeric = 0, string = 1, blob = 2 };

/// What of a bin an index covers (as_index_collection_type): the bin's own
/// value, a list's elements, a map's keys or a map's values.
enum class index_collection : std::uint8_t { none = 0, list = 1, map_keys = 2, map_values = 3 };

/// A secondary index definition. What it indexes is the bin, or the element
/// a CDT context path selects inside the bin (6.1+), or the value of an
/// expression on the record (8.1+, no bin then); of that value, the value
/// itself (collection none, when of the index's type) or the elements, map
/// keys or map values of the list or map it is (those of the index's type).
/// A record holds one entry per distinct indexed value (sindex.c: equal
/// values of one record are one tree key).
struct index_spec {
    std::string ns;  ///< the namespace
    std::string set; ///< empty = every set of the namespace
    std::string bin; ///< the indexed bin (at most 15 bytes); empty with exp
    std::string name; ///< the index's name, unique in the namespace
    index_type type = index_type::numeric; ///< the particle type it holds
    index_collection collection = index_collection::none; ///< what of the value it covers
    /// A path into the bin (a list or map): the index covers the element
    /// there (aerospike_index_create_ctx); empty = the bin itself. Not with exp.
    std::vector<cdt::ctx_step> ctx{};
    /// A packed expression (exp::expr::bytes()) whose value on each record
    /// is indexed instead of a bin (aerospike_index_create_exp); its type
    /// must be the index's (collection none) or list / map. Empty = a bin index.
    std::vector<std::uint8_t> exp{};
};

/// A query filter on a secondary index: equality (end absent) or, on a
/// numeric index, the inclusive range [begin, *end]. The index is found as
/// the server finds it: by bin, collection, type, ctx and exp together (a
/// ctx or exp index is queried with the same ctx or the same expression
/// bytes).
struct filter {
    std::string bin; ///< the indexed bin (empty for an expression index)
    index_collection collection = index_collection::none; ///< must match the index's
    value begin; ///< the value (equality) or the range's first value
    std::optional<value> end; ///< the range's last value, inclusive; absent = equality
    std::vector<cdt::ctx_step> ctx{}; ///< the index's ctx path (as_query_where_with_ctx)
    std::vector<std::uint8_t> exp{};  ///< the index's expression (as_query_where_with_exp)

    /// Records whose bin (or an element, key or value of it) equals v.
    static filter equal(std::string bin, value v, index_collection c = index_collection::none) {
        return filter{std::move(bin), c, std::move(v), std::nullopt, {}, {}};
    }
    /// Records whose numeric bin (or element...) is in [begin, end].
    static filter range(std::string bin,
                        std::int64_t begin,
                        std::int64_t end,
                        index_collection c = index_collection::none) {
        return filter{std::move(bin), c, value(begin), value(end), {}, {}};
    }
    /// The same condition on the index over the element at ctx in the bin.
    filter in(std::vector<cdt::ctx_step> path) && {
        ctx = std::move(path);
        return std::move(*this);
    }
    /// The same condition on the index over the expression `packed` (the
    /// bin name is ignored: an expression index has none).
    filter on(std::vector<std::uint8_t> packed) && {
        exp = std::move(packed);
        bin.clear();
        return std::move(*this);
    }
};

/// A scan of a set (empty set = the whole namespace).
struct scan_request {
    std::string ns;  ///< the namespace
    std::string set; ///< the set; empty = every record of the namespace
    /// Bins to return; empty = all.
    std::vector<std::string> bins;
    /// Stop after this many records; 0 = no limit. A paged scan: the page size.
    std::uint64_t max_records = 0;
};

/// A secondary-index query.
struct query_request {
    std::string ns;                ///< the namespace
    std::string set;               ///< the set; empty = the namespace
    std::vector<std::string> bins; ///< bins to return; empty = all
    kv::filter where;              ///< the indexed condition
    std::uint64_t max_records = 0; ///< stop after this many records (a page); 0 = no limit
};

/// What a background job (a scan or query with write operations, run by the
/// server) did.
struct background_result {
    std::uint64_t matched = 0; ///< records the scan or query selected
    std::uint64_t written = 0; ///< records the operations were applied to
    std::uint64_t skipped = 0; ///< records the write policy's filter left out
    std::uint64_t failed = 0;  ///< records the operations failed on (left as they were)
    std::optional<error> first_error; ///< the first of those failures
};

/// A record with its key (the user key only if it was stored with send_key).
struct keyed_record {
    key k;      ///< the record's key (digest always; user key if stored)
    record rec; ///< its bins and metadata
};

/// A kv_store that can also scan and query secondary indexes.
template <class S>
concept kv_queryable = kv_store<S> && requires(S& s,
                                               const index_spec& ix,
                                               const scan_request& sr,
                                               const query_request& qr,
                                               const read_policy& rp,
                                               const std::string& name) {
    { s.create_index(ix) } -> std::same_as<result<void>>;
    { s.drop_index(name, name) } -> std::same_as<result<void>>;
    { s.scan(sr, rp) } -> std::same_as<result<std::vector<keyed_record>>>;
    { s.query(qr, rp) } -> std::same_as<result<std::vector<keyed_record>>>;
};

} // namespace kvmodel::kv

namespace kvmodel::kv {

namespace detail {
template <class S>
concept has_truncate = requires(S& s, const std::string& name, std::optional<std::int64_t> t) {
    { s.truncate(name, name, t) } -> std::same_as<result<void>>;
};
} // namespace detail

/// Truncate: deletes the records of `set` (empty = the whole namespace)
/// last written strictly before `before_ms` (Unix ms; nullopt = now), as
/// Aerospike's truncate. Uses S::truncate when present; else, on a
/// kv_queryable store, a scan of the set and one remove per record whose
/// last_update_ms is before the cutoff (every scanned record without a
/// cutoff; a record the store reports no last-update time for counts as
/// before it); else UNSUPPORTED_FEATURE.
template <kv_store S>
result<void> truncate(S& s,
                      const std::string& ns,
                      const std::string& set,
                      std::optional<std::int64_t> before_ms = std::nullopt) {
    if constexpr (detail::has_truncate<S>) {
        return s.truncate(ns, set, before_ms);
    } else if constexpr (kv_queryable<S>) {
        scan_request sr;
        sr.ns = ns;
        sr.set = set;
        result<std::vector<keyed_record>> all = s.scan(sr, read_policy{});
        if (!all)
            return std::move(all).error();
        for (const keyed_record& kr : *all) {
            if (before_ms && kr.rec.last_update_ms >= *before_ms)
                continue;
            result<void> r = s.remove(kr.k, write_policy{});
            if (!r && r.code() != status::record_not_found)
                return r;
        }
        return {};
    } else {
        (void)s;
        (void)before_ms;
        return fail(status::unsupported_feature,
                    "truncate: the store has neither truncate nor scan (namespace '" + ns +
                        "', set '" + set + "')");
    }
}

} // namespace kvmodel::kv

// --- paged scans and queries -------------------------------------------------

namespace kvmodel::kv {

namespace detail {
template <class S>
concept has_scan_page =
    requires(S& s, const scan_request& sr, partition_cursor& c, const read_policy& rp) {
    { s.scan_page(sr, c, rp) } -> std::same_as<result<std::vector<keyed_record>>>;
};
template <class S>
concept has_background = requires(S& s,
                                  const scan_request& sr,
                                  const query_request& qr,
                                  std::span<const operation> ops,
                                  const write_policy& wp) {
    { s.scan_background(sr, ops, wp) } -> std::same_as<result<background_result>>;
    { s.query_background(qr, ops, wp) } -> std::same_as<result<background_result>>;
};
template <class S>
concept has_query_page =
    requires(S& s, const query_request& qr, partition_cursor& c, const read_policy& rp) {
    { s.query_page(qr, c, rp) } -> std::same_as<result<std::vector<keyed_record>>>;
};

// One page out of a whole answer: the records of the cursor's partitions
// after its digests, in (partition, digest) order, at most `max` (0 = all);
// the cursor moves past them. What a store without paging can do. A
// template (Record: keyed_record) so that only a file that pages such a
// store compiles it and its sort, not every file that includes this header.
template <class Record>
std::vector<Record> page_of(std::vector<Record> all, partition_cursor& c, std::uint64_t max);
} // namespace detail

/// One page of a scan: at most sr.max_records records (0 = all that are
/// left) of the cursor's partitions (partition_cursor::start(filter); an
/// empty cursor covers them all), resuming after the digests it holds.
/// Returns an empty page once
/// cursor.done(). Uses S::scan_page when present; else a kv_queryable
/// store's whole scan, sorted and cut (correct, not cheap).
template <kv_queryable S>
result<std::vector<keyed_record>>
scan_page(S& s, const scan_request& sr, partition_cursor& cursor, const read_policy& rp = {}) {
    if constexpr (detail::has_scan_page<S>) {
        return s.scan_page(sr, cursor, rp);
    } else {
        if (cursor.parts.empty())
            cursor = partition_cursor::start(partition_filter::all());
        scan_request whole = sr;
        whole.max_records = 0;
        result<std::vector<keyed_record>> all = s.scan(whole, rp);
        if (!all)
            return all;
        return detail::page_of(std::move(all).value(), cursor, sr.max_records);
    }
}

/// One page of a secondary-index query, as scan_page.
template <kv_queryable S>
result<std::vector<keyed_record>>
query_page(S& s, const query_request& qr, partition_cursor& cursor, const read_policy& rp = {}) {
    if constexpr (detail::has_query_page<S>) {
        return s.query_page(qr, cursor, rp);
    } else {
        if (cursor.parts.empty())
            cursor = partition_cursor::start(partition_filter::all());
        query_request whole = qr;
        whole.max_records = 0;
        result<std::vector<keyed_record>> all = s.query(whole, rp);
        if (!all)
            return all;
        return detail::page_of(std::move(all).value(), cursor, qr.max_records);
    }
}

} // namespace kvmodel::kv

// Compiled once in the library with kvmodel::compiled (config.hpp).
#if KVMODEL_DEFINITIONS
namespace kvmodel::kv::detail {

template <class Record>
std::vector<Record> page_of(std::vector<Record> all, partition_cursor& c, std::uint64_t max) {
    const auto order = [](const Record& a, const Record& b) {
        const std::uint32_t pa = a.k.partition_id();
        const std::uint32_t pb = b.k.partition_id();
        return pa != pb ? pa < pb : a.k.digest() < b.k.digest();
    };
    std::sort(all.begin(), all.end(), order);
    std::vector<Record> out;
    auto it = all.begin();
    for (partition_cursor::part& p : c.parts) {
        if (p.done)
            continue;
        while (it != all.end() && it->k.partition_id() < p.id)
            ++it;
        for (; it != all.end() && it->k.partition_id() == p.id; ++it) {
            if (p.last && !(*p.last < it->k.digest()))
                continue;
            if (max != 0 && out.size() == max)
                return out; // p stays open after its last digest
            p.last = it->k.digest();
            out.push_back(*it);
        }
        p.done = true;
    }
    return out;
}

} // namespace kvmodel::kv::detail
#endif // KVMODEL_DEFINITIONS

KVMODEL_INSTANTIATE(std::vector<kvmodel::kv::keyed_record> kvmodel::kv::detail::page_of(
    std::vector<kvmodel::kv::keyed_record>, kvmodel::kv::partition_cursor&, std::uint64_t))
