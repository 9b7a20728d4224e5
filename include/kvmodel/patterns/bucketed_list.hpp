// kvmodel/patterns/bucketed_list.hpp
//
// Bucketed list: an unbounded per-owner collection split over many records
// (seeds "Using a List and a Sequence to store an unbounded collection" and
// "Data Modeling Part 5: Bucketing"), keeping their idea and fixing their
// flaws.
//
// Records of one stream (an owner; with the time policy, an owner's day or hour):
//   head    key `owner` (time policy: `owner:YYYYMMDD`, hourly `owner:YYYYMMDDHH`), bins
//             claims  list of recent append ids (unordered, ADD_UNIQUE)
//             base    slots claimed before claims[0]
//             epochs  map first_slot -> [policy, size, first_bucket]: the
//                     bucketing scheme, versioned from day one
//             starts  map first_slot -> bucket (byte-bounded epochs)
//             trim    first live slot (retention)
//             listed  time policy: 1 once the period is in the owner's index
//   bucket  key `owner:seq` (time policy `owner:YYYYMMDD:seq`), optionally
//           hashed (RIPEMD-160 hex, as the bucketing seed does); bin `items`,
//           a K-ordered map slot -> [ts, element] (or [] for a fenced hole,
//           see below); byte-bounded buckets also keep `bytes`, the packed
//           size appended so far.
//   The time policy also keeps the list of periods in the owner's head (`days`).
//
// Appending never locks. The seed's "set total-records to -1 as a lock" is a
// race (two writers read the same count; a crashed writer leaves the lock
// forever). Here an append
//   1. claims a slot atomically and idempotently: ONE operate on the head
//      appends the append's unique id to `claims` (ADD_UNIQUE|NO_FAIL) and
//      reads back its index, `base`, the epochs and the current byte bucket,
//      so slot = base + index. A retry with the same id (after a timeout or
//      an in-doubt write) gets the same slot instead of a second one. The
//      id is random per append() call, or the caller's own (append with an
//      append id), so a caller's retry or a re-delivered event is stored once;
//   2. writes the element into its bucket keyed by that slot (a map put: a
//      retry rewrites the same entry, never a duplicate).
// Transient failures (kv::is_transient: timeouts, node failures, refused
// connections, the client's error-rate limit) are retried with the same id,
// up to location.max_attempts per step, paced and bounded by location.retry
// (kv/retry.hpp). An append either returns its slot or an error; the error
// is in doubt when the claim or any attempt may have been applied — then the
// element is present once or not at all, and appending again with the SAME
// append id stores it once; an error not in doubt means nothing was stored.
//
// The period index (time policy). Readers find an owner's periods in the
// owner's `days` list, so an element must never land in a period missing
// from it. The rule: an element is written only after its appender saw its
// period indexed — either the claim (the same operate) read `listed` = 1 on
// the period's head, or the appender indexed the period itself (ADD_UNIQUE
// into `days`) and then set `listed`. `listed` is set only after the index
// write succeeded and retention clears it before it unindexes a period; so
// an append that fails or dies anywhere leaves at worst an index entry
// without elements, never an element without an index entry. Cost: two
// extra round trips on the first append of each owner's period, none after.
// One race is left: an append into a period that retention drops WHILE the
// append runs (its claim before the drop, its write after) leaves its
// element below the trim; give late arrivals time before dropping a period.
//
// Holes. A claimed slot whose element never lands (the writer failed or
// died) is a hole. A failed append fences its own slot at once — one
// operate on the bucket puts [] at the slot unless something is there
// (CREATE_ONLY|NO_FAIL) and reads the slot back: if its element did land
// (an in-doubt write) the append reports success after all. A fenced hole
// counts as resolved. Compaction keeps `claims` short: once it holds
// 2 x claim_window ids, up to claim_window of the oldest ids that are older
// than claim_retention (default 5 s, by the id's time: the append's start
// for a generated id, the append's ts_ms for a caller's) move into `base`,
// each slot resolved first (an empty one is fenced); and once `claims`
// holds 4 x claim_window ids, the oldest claim_window move however young,
// empty slots fenced. An id younger than claim_retention stays while
// `claims` is below 4 x claim_window, landed or not: a writer still
// retrying its claim must find its id, else it claims a second slot (and
// stores its element twice if the first attempt landed). So `claims` never
// holds more than 4 x claim_window ids plus the claims that race a
// compaction (those made between its head read and its generation-checked
// head write, which then fails and leaves the work to the next append) at
// any append or failure rate; a hole costs one bucket write (its fence). A
// late write of the hole's element simply replaces the [] (it is then
// visible, once). Readers skip [].
//
// Exactly-once for retries. A retry with the same id finds its slot (and
// stores the element once) while the id is in `claims`, that is at least
// while BOTH hold: the id is younger than claim_retention, and fewer than
// 3 x claim_window other claims followed it on the stream (the hard bound;
// an old id also stays until claim_window others followed it). A retry
// after the id left claims a NEW slot: the element is stored a second time
// if the first attempt landed, once if it did not (its slot was fenced).
//
// Bucket of a slot: by count N, first_bucket + (slot - first_slot) / N; by
// bytes, the bucket of the last `starts` entry at or below the slot — a
// writer whose bucket passes the byte budget opens the next bucket at the
// next unclaimed slot (a generation-checked head write, so two writers never
// open two). Slots in a bucket are therefore always contiguous, cursors
// (slot numbers) never move, and a scheme change (change_scheme) opens a new
// epoch at the next unclaimed slot without rewriting old buckets.
//
// Order. Slots are arrival order (the order of the claims). Reads named by
// time return time order, by the element's timestamp, ties by arrival:
// read_time (oldest first), and newest with its cursors on the time policy
// (newest first; a page reads its whole period, whose elements may have
// arrived in any order). read_all and read_range return arrival order
// (period by period with the time policy). A count or byte list has no time
// index: its newest is the latest appended, which is newest first by time
// when timestamps arrive in order.
//
// Costs (round trips): append 2 (+1 when it opens a bucket or compacts
// claims, +2 on the first append of a period); read_all 2 (the head, then
// ONE batch read of every bucket); a newest page 2 for any total size (time
// policy: the index, then a head and a batch per period it visits); count
// 1. Bytes written per append: the head (small: at most 4 x claim_window
// ids) plus the WHOLE bucket record — the write amplification that bucket
// size trades against read round trips (see `kvmodel size`).
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record_size.hpp>
#include <kvmodel/kv/retry.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/patterns/codec.hpp>
#include <kvmodel/patterns/detail/store_ref.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// How a bucketed list splits its elements over records.
enum class bucket_policy : std::uint8_t {
    by_count = 1, ///< N elements per bucket
    by_bytes = 2, ///< a bucket closes once its packed elements reach a byte budget
    by_time = 3,  ///< buckets per owner and UTC day or hour (`owner:YYYYMMDD:seq`), N elements each
};

/// The period of time buckets.
enum class time_period : std::uint8_t {
    day = 1,  ///< streams `owner:YYYYMMDD`
    hour = 2, ///< streams `owner:YYYYMMDDHH`
};

/// A bucketing scheme: the policy and its size (elements per bucket for
/// by_count and by_time, the byte budget for by_bytes); by_time also has a
/// period (a UTC day or hour per stream).
struct bucket_scheme {
    /// How elements are split over bucket records.
    bucket_policy policy = bucket_policy::by_count;
    /// Elements per bucket (by_count, by_time) or the byte budget of a
    /// bucket (by_bytes); 0 is rejected by bucketed_list::validate.
    std::uint64_t size = 100;
    /// by_time: a stream per UTC day or per UTC hour (ignored otherwise).
    time_period period = time_period::day;

    /// Member-wise equality.
    friend bool operator==(const bucket_scheme&, const bucket_scheme&) = default;
};

/// Where a bucketed list lives and how it retries.
struct bucketed_location {
    /// The namespace of every record of the list.
    std::string ns = "test";
    /// The set of the head records (one per stream).
    std::string head_set = "heads";
    /// The set of the bucket records.
    std::string bucket_set = "buckets";
    /// Name bucket records by the RIPEMD-160 hex of `owner:seq` (as the seed).
    bool hash_bucket_keys = false;
    /// The namespace's max-record-size: byte budgets and elements are checked
    /// against it before anything is written.
    std::size_t max_record_size = kv::default_max_record_size;
    /// Claims compacted at a time (see the header comment).
    std::size_t claim_window = 64;
    /// How long compaction keeps a claim's id (landed or not; an empty slot
    /// is then fenced as a hole): a writer retrying its claim with the same
    /// id finds its slot meanwhile, unless `claims` is full (see the header
    /// comment).
    std::chrono::milliseconds claim_retention{5000};
    /// The clock append ids carry (Unix ms): the system clock, or a
    /// simulation's (sim::cluster::time_source), so ids carry simulated time.
    std::function<std::int64_t()> clock{};
    /// Attempts per step on transient errors (kv::is_transient).
    std::uint32_t max_attempts = 8;
    /// Backoff between attempts and the time budget of each step.
    kv::retry_policy retry{};
    /// Policy of every write (claims, bucket writes, fences, index writes).
    kv::write_policy write{};
    /// Policy of every read (heads, batch reads of buckets).
    kv::read_policy read{};
};

/// An opaque position in an owner's list for newest-first paging. Valid
/// across bucket boundaries, scheme changes, rollover and trims: it names a
/// slot (and, on the time policy, the element's timestamp), and slots never
/// move.
class bucket_cursor {
public:
    bucket_cursor() = default;
    /// Before slot `before` of period `day` (arrival order).
    bucket_cursor(std::int64_t day, std::uint64_t before) : m_day(day), m_before(before) {}
    /// Before the element (ts, slot) of period `day` in time order.
    static bucket_cursor at_time(std::int64_t day, std::int64_t ts, std::uint64_t slot) {
        bucket_cursor c(day, slot);
        c.m_ts = ts;
        return c;
    }

    /// The token to hand to a client: "b1.<day>.<slot>", or
    /// "b2.<day>.<ts>.<slot>" in time order.
    std::string token() const {
        if (m_ts) return "b2." + std::to_string(m_day) + "." + std::to_string(*m_ts) + "." + std::to_string(m_before);
        return "b1." + std::to_string(m_day) + "." + std::to_string(m_before);
    }
    /// Parses a token; PARAMETER_ERROR for anything token() did not make.
    static result<bucket_cursor> parse(std::string_view t) {
        auto bad = [&] {
            return error{status::parameter_error, "bucket_cursor: malformed token '" + std::string(t) + "'"};
        };
        const bool timed = t.substr(0, 3) == "b2.";
        if (t.substr(0, 3) != "b1." && !timed) return bad();
        std::vector<std::uint64_t> parts;
        for (auto rest = t.substr(3);;) {
            auto dot = rest.find('.');
            auto part = parse_uint(rest.substr(0, dot));
            if (!part) return bad();
            parts.push_back(*part);
            if (dot == std::string_view::npos) break;
            rest = rest.substr(dot + 1);
        }
        if (parts.size() != (timed ? 3U : 2U) || parts[0] > 9999123123 ||
            (timed && parts[1] > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())))
            return bad();
        if (timed) return at_time(static_cast<std::int64_t>(parts[0]), static_cast<std::int64_t>(parts[1]), parts[2]);
        return bucket_cursor(static_cast<std::int64_t>(parts[0]), parts[1]);
    }

    /// The period (YYYYMMDD, or YYYYMMDDHH for hourly streams; 0 without
    /// the time policy) the cursor points into.
    std::int64_t day() const noexcept { return m_day; }
    /// The slot the next page starts before (exclusive).
    std::uint64_t before() const noexcept { return m_before; }
    /// The timestamp of a time-order cursor.
    std::optional<std::int64_t> ts() const noexcept { return m_ts; }
    /// Equality of period, slot and timestamp.
    friend bool operator==(const bucket_cursor&, const bucket_cursor&) = default;

private:
    static std::optional<std::uint64_t> parse_uint(std::string_view s) {
        if (s.empty() || s.size() > 19) return std::nullopt;
        std::uint64_t v = 0;
        for (char c : s) {
            if (c < '0' || c > '9') return std::nullopt;
            v = v * 10 + static_cast<std::uint64_t>(c - '0');
        }
        return v;
    }
    std::int64_t m_day = 0;
    std::uint64_t m_before = 0;
    std::optional<std::int64_t> m_ts;
};

/// UTC day number YYYYMMDD of a Unix millisecond timestamp.
inline std::int64_t utc_day(std::int64_t ts_ms) {
    std::int64_t days = ts_ms >= 0 ? ts_ms / 86400000 : (ts_ms - 86399999) / 86400000;
    // Civil-from-days (H. Hinnant's algorithm), exact for the proleptic Gregorian calendar.
    days += 719468;
    std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    std::int64_t doe = days - era * 146097;
    std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    std::int64_t y = yoe + era * 400;
    std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    std::int64_t mp = (5 * doy + 2) / 153;
    std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
    std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) ++y;
    return y * 10000 + m * 100 + d;
}

/// The Unix millisecond timestamp at 00:00 UTC of a YYYYMMDD day.
inline std::int64_t utc_day_start_ms(std::int64_t day) {
    std::int64_t y = day / 10000;
    std::int64_t m = (day / 100) % 100;
    std::int64_t d = day % 100;
    y -= m <= 2 ? 1 : 0;
    std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    std::int64_t yoe = y - era * 400;
    std::int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (era * 146097 + doe - 719468) * 86400000;
}

/// The stream id of a timestamp: YYYYMMDD for days, YYYYMMDDHH for hours.
inline std::int64_t period_of(std::int64_t ts_ms, time_period p) {
    std::int64_t day = utc_day(ts_ms);
    if (p == time_period::day) return day;
    std::int64_t hour = (ts_ms - utc_day_start_ms(day)) / 3600000;
    return day * 100 + hour;
}
/// The Unix milliseconds a period starts at.
inline std::int64_t period_start_ms(std::int64_t id, time_period p) {
    return p == time_period::day ? utc_day_start_ms(id) : utc_day_start_ms(id / 100) + (id % 100) * 3600000;
}
/// The length of a period in milliseconds.
constexpr std::int64_t period_ms(time_period p) noexcept {
    return p == time_period::day ? 86400000 : 3600000;
}

/// An unbounded per-owner list of `T` split over bucket records, appended
/// without locks: several objects or processes may append to one owner at
/// once (see the header comment for the layout, the claim protocol, holes,
/// order and costs). change_scheme changes this object's scheme: do not call
/// it concurrently with other calls on the same object.
namespace detail {

namespace bucketed { // bucketed_core's internals, defined with its functions
struct epoch;
struct stream;
struct head_state;
struct claimed_slot;
} // namespace bucketed

/// An element as bucketed_core reads it: `item` indexes the caller's
/// decoded items (item_sink).
struct bucket_element {
    std::int64_t day = 0;
    std::uint64_t slot = 0;
    std::int64_t ts = 0;
    std::size_t item = 0;
};

/// Where bucketed_core's reads put the elements' values: decode(items, v)
/// decodes v as the caller's type and appends it to `items` (a
/// std::vector<T>); `size` counts them, the index of the next one.
struct item_sink {
    void* items = nullptr;
    result<void> (*decode)(void* items, const value& v) = nullptr;
    std::size_t size = 0;
};

/// A newest() page as bucketed_core reads it.
struct bucket_page {
    std::vector<bucket_element> items;
    std::optional<bucket_cursor> next;
};

/// bucketed_list without its item type: the protocol (claims, buckets,
/// fences, compaction, retention, reads) on encoded items and a type-erased
/// store; bucketed_list<Store, T> encodes, decodes and forwards. Compiled
/// once with kvmodel::compiled.
class bucketed_core {
public:
    static constexpr std::size_t max_append_id_bytes = 256;

    /// `where.retry` already on the store's clock (kv::retry_timing).
    bucketed_core(store_ref store, bucket_scheme scheme, bucketed_location where)
        : m_store(store)
        , m_scheme(scheme)
        , m_where(std::move(where)) {}

    KVMODEL_DECL static result<void> validate(const bucket_scheme& s, const bucketed_location& w);

    const bucket_scheme& scheme() const noexcept { return m_scheme; }
    const bucketed_location& location() const noexcept { return m_where; }

    /// append() of an encoded item under a generated append id.
    KVMODEL_DECL result<std::uint64_t> append(const std::string& owner, const value& item, std::int64_t ts_ms);
    /// append() of an encoded item under the caller's append id.
    KVMODEL_DECL result<std::uint64_t> append(const std::string& owner, const value& item, std::int64_t ts_ms,
                                              std::string_view append_id);
    KVMODEL_DECL result<std::uint64_t> count(const std::string& owner) const;
    KVMODEL_DECL result<std::vector<bucket_element>> read_all(const std::string& owner, item_sink& sink) const;
    KVMODEL_DECL result<std::vector<bucket_element>> read_range(const std::string& owner, std::uint64_t first,
                                                                std::uint64_t last, item_sink& sink) const;
    KVMODEL_DECL result<std::vector<bucket_element>> read_time(const std::string& owner, std::int64_t from_ms,
                                                               std::int64_t to_ms, item_sink& sink) const;
    KVMODEL_DECL result<bucket_page> newest(const std::string& owner, std::size_t n,
                                            const std::optional<bucket_cursor>& from, item_sink& sink) const;
    KVMODEL_DECL result<std::size_t> drop_older_than(const std::string& owner, std::int64_t before_ms);
    KVMODEL_DECL result<std::size_t> keep_newest(const std::string& owner, std::uint64_t keep);
    KVMODEL_DECL result<void> change_scheme(const std::string& owner, bucket_scheme next);
    KVMODEL_DECL kv::key bucket_key(const std::string& owner, std::int64_t day, std::uint64_t bucket) const;
    KVMODEL_DECL kv::key head_key(const std::string& owner, std::int64_t day) const;

private:
    static constexpr std::size_t overhead_bytes = 1024; // record header, bins, map headers
    // `claims` past max_claims_factor x claim_window ids: compaction fences
    // holes however young.
    static constexpr std::size_t max_claims_factor = 4;
    static constexpr std::size_t max_days_per_read = 24 * 366;

    using epoch = bucketed::epoch;
    using stream = bucketed::stream;
    using head_state = bucketed::head_state;
    using claimed_slot = bucketed::claimed_slot;

    KVMODEL_DECL std::int64_t retention_cutoff() const;
    KVMODEL_DECL std::int64_t now_ms() const;
    KVMODEL_DECL result<std::uint64_t> append_as(const std::string& owner, const value& item, std::int64_t ts_ms,
                                                 const value& id);
    KVMODEL_DECL result<std::uint64_t> release(const stream& s, const claimed_slot& c, const error& failure) const;
    KVMODEL_DECL result<void> mark_listed(const stream& s) const;
    KVMODEL_DECL value next_append_id() const;
    KVMODEL_DECL stream stream_of(const std::string& owner, std::int64_t day) const;
    KVMODEL_DECL result<kv::record> operate_retried(const kv::key& k, const std::vector<kv::operation>& ops,
                                                    const kv::write_policy& wp) const;
    KVMODEL_DECL result<kv::record> write_checked(const kv::key& k, const std::vector<kv::operation>& ops,
                                                  std::uint32_t generation) const;
    KVMODEL_DECL result<head_state> read_head(const stream& s) const;
    // Per period of `days`, four numbers appended to `spans`: trim, claimed
    // and the first and last bucket holding them (first > last: none).
    KVMODEL_DECL result<void> read_head_spans(const std::string& owner, const std::vector<std::int64_t>& days,
                                              std::vector<std::uint64_t>& spans) const;
    KVMODEL_DECL result<claimed_slot> claim(const stream& s, const value& id) const;
    KVMODEL_DECL void compact(const stream& s) const;
    KVMODEL_DECL std::uint64_t fence_holes(const kv::key& bk, std::uint64_t first, std::uint64_t last) const;
    KVMODEL_DECL result<void> write_element(const stream& s, const claimed_slot& c, const value& stored);
    KVMODEL_DECL result<void> open_next_bucket(const stream& s, std::uint64_t full_bucket);
    KVMODEL_DECL result<value> encode_stored(std::int64_t ts, const value& item) const;
    KVMODEL_DECL result<void> index_day(const std::string& owner, std::int64_t day) const;
    KVMODEL_DECL result<void> unindex_day(const std::string& owner, std::int64_t day) const;
    KVMODEL_DECL result<std::vector<std::int64_t>> indexed_days(const std::string& owner) const;
    // Decodes every element of a bucket record (so a malformed one fails
    // the read) and appends to `out` those with first <= slot < last and,
    // with `windowed`, from_ms <= ts < to_ms.
    KVMODEL_DECL result<void> decode_bucket(const kv::record& r, std::int64_t day, item_sink& sink,
                                            std::uint64_t first, std::uint64_t last, bool windowed,
                                            std::int64_t from_ms, std::int64_t to_ms,
                                            std::vector<bucket_element>& out) const;
    KVMODEL_DECL result<std::vector<bucket_element>> read_slots(const stream& s, const head_state& h,
                                                                std::uint64_t first, std::uint64_t last,
                                                                item_sink& sink) const;
    // Elements of the given periods in arrival order; with `windowed`, only
    // those with from_ms <= ts < to_ms.
    KVMODEL_DECL result<std::vector<bucket_element>>
    read_days(const std::string& owner, const std::vector<std::int64_t>& days, bool windowed,
              std::int64_t from_ms, std::int64_t to_ms, item_sink& sink) const;
    KVMODEL_DECL result<bucket_page> newest_by_time(const std::string& owner, std::size_t n,
                                                    const std::optional<bucket_cursor>& from,
                                                    item_sink& sink) const;
    KVMODEL_DECL result<std::size_t> drop_stream_before(const stream& s, std::optional<std::uint64_t> below,
                                                        std::optional<std::int64_t> before_ms,
                                                        bool whole_stream = false);

    store_ref m_store;
    bucket_scheme m_scheme;
    bucketed_location m_where;
};

} // namespace detail

/// An unbounded per-owner list of `T` split over bucket records, appended
/// without locks: several objects or processes may append to one owner at
/// once (see the header comment for the layout, the claim protocol, holes,
/// order and costs). change_scheme changes this object's scheme: do not call
/// it concurrently with other calls on the same object.
template <kv::kv_store Store, encodable T>
class bucketed_list {
public:
    /// One stored element: its slot (position in its stream, stable forever),
    /// the day of its stream (time policy; 0 otherwise), its timestamp and value.
    struct element {
        /// The element's period (YYYYMMDD or YYYYMMDDHH; 0 without the time policy).
        std::int64_t day = 0;
        /// Its slot: position in its stream in arrival order, never moves.
        std::uint64_t slot = 0;
        /// The timestamp (Unix ms) it was appended with.
        std::int64_t ts = 0;
        /// The decoded value.
        T item{};
        /// Member-wise equality.
        friend bool operator==(const element&, const element&) = default;
    };

    /// A page of the newest elements and the cursor of the next one.
    struct page {
        std::vector<element> items; ///< newest first
        /// Where the next (older) page starts; empty when this page is the last.
        std::optional<bucket_cursor> next;
    };

    /// PARAMETER_ERROR-free construction; a scheme of size 0 is a broken
    /// precondition (validate() reports it as a status first).
    bucketed_list(Store& store, bucket_scheme scheme, bucketed_location where = {})
        : m_core(detail::store_ref(store), scheme, on_clock_of(store, scheme, std::move(where))) {}

    /// PARAMETER_ERROR when the scheme cannot work: size 0, or a byte budget
    /// that leaves no room under max-record-size.
    static result<void> validate(const bucket_scheme& s, const bucketed_location& w) {
        return detail::bucketed_core::validate(s, w);
    }

    /// The scheme new appends use (change_scheme changes it). O(1).
    const bucket_scheme& scheme() const noexcept { return m_core.scheme(); }
    /// Where the list lives and how it retries. O(1).
    const bucketed_location& location() const noexcept { return m_core.location(); }

    /// Appends one element with its timestamp (ms); returns its slot.
    /// Two round trips (three when it opens a bucket or compacts claims).
    result<std::uint64_t> append(const std::string& owner, const T& item, std::int64_t ts_ms) {
        return m_core.append(owner, codec<T>::encode(item), ts_ms);
    }

    /// Appends one element under the caller's own append id: appending again
    /// with the same id and timestamp (a caller's retry after an error, a
    /// re-delivered event) returns the first append's slot and stores the
    /// element there again instead of adding it twice — while the id is
    /// in the stream's claims, that is at least while ts_ms is younger than
    /// claim_retention and fewer than 3 x claim_window other appends to the
    /// stream have followed it (later, the retry claims a new slot; see
    /// "Exactly-once for retries" in the header comment). An id whose
    /// slot retention has dropped meanwhile is returned without writing
    /// (the element counts as stored, then dropped). An id is
    /// 1..max_append_id_bytes bytes (it is kept in the head record), else
    /// PARAMETER_ERROR.
    result<std::uint64_t> append(const std::string& owner, const T& item, std::int64_t ts_ms,
                                 std::string_view append_id) {
        return m_core.append(owner, codec<T>::encode(item), ts_ms, append_id);
    }

    /// The longest caller append id (claims keep up to 4 x claim_window ids
    /// in the head record).
    static constexpr std::size_t max_append_id_bytes = detail::bucketed_core::max_append_id_bytes;

    /// Appends elements one after another (each is an append()); returns
    /// their slots. On an error the elements before it are stored (the
    /// error is then in doubt).
    result<std::vector<std::uint64_t>> append(const std::string& owner, std::span<const T> items,
                                              std::int64_t ts_ms) {
        std::vector<std::uint64_t> slots;
        slots.reserve(items.size());
        for (const T& x : items) {
            auto r = append(owner, x, ts_ms);
            if (!r) return kv::after_step(!slots.empty(), r.error());
            slots.push_back(*r);
        }
        return slots;
    }

    /// Claimed slots of the owner (for the time policy: of every indexed
    /// day), including trimmed ones and holes; 0 for an owner with none. One
    /// round trip (plus one batch for the time policy).
    result<std::uint64_t> count(const std::string& owner) const { return m_core.count(owner); }

    /// Every live element in arrival order (slot order; with the time
    /// policy period by period, each in slot order — read_time gives time
    /// order): the head, then ONE batch read of every bucket (time policy:
    /// one batch of day heads, one of buckets).
    result<std::vector<element>> read_all(const std::string& owner) const {
        decoded d;
        return d.elements(m_core.read_all(owner, d.sink));
    }

    /// Elements with first <= slot < last in arrival (slot) order (count and
    /// byte policies). Two round trips.
    result<std::vector<element>> read_range(const std::string& owner, std::uint64_t first,
                                            std::uint64_t last) const {
        decoded d;
        return d.elements(m_core.read_range(owner, first, last, d.sink));
    }

    /// Elements with from <= ts < to in time order: oldest timestamp first,
    /// equal timestamps in arrival order. Time policy: the day heads of the
    /// range in one batch, then their buckets in one batch. Other policies:
    /// read_all filtered (their buckets are not keyed by time).
    result<std::vector<element>> read_time(const std::string& owner, std::int64_t from_ms,
                                           std::int64_t to_ms) const {
        decoded d;
        return d.elements(m_core.read_time(owner, from_ms, to_ms, d.sink));
    }

    /// The newest n elements, newest first, from `from` (or the newest) on.
    /// Time policy: newest timestamp first (equal timestamps latest arrival
    /// first), period by period; a page reads each period it visits whole
    /// (its head, then one batch of its buckets), since its elements may have
    /// arrived in any order. Count and byte policies: the latest appended
    /// first (arrival order: such a list has no time index), two round trips
    /// per page whatever the total size.
    result<page> newest(const std::string& owner, std::size_t n,
                        std::optional<bucket_cursor> from = std::nullopt) const {
        decoded d;
        auto p = m_core.newest(owner, n, from, d.sink);
        if (!p) return p.error();
        auto items = d.elements(std::move(p->items));
        return page{std::move(*items), std::move(p->next)};
    }

    /// Retention: drops whole buckets whose newest element is older than
    /// `before_ms` (oldest first, stopping at the first bucket to keep);
    /// returns how many elements were dropped with them.
    result<std::size_t> drop_older_than(const std::string& owner, std::int64_t before_ms) {
        return m_core.drop_older_than(owner, before_ms);
    }

    /// Retention: drops whole buckets holding only elements older than the
    /// newest `keep` (count and byte policies); returns elements dropped.
    result<std::size_t> keep_newest(const std::string& owner, std::uint64_t keep) {
        return m_core.keep_newest(owner, keep);
    }

    /// Changes the scheme of the owner's list from the next unclaimed slot
    /// on (a new epoch); old buckets keep theirs, cursors stay valid. With
    /// the time policy the new scheme applies to days not yet started.
    result<void> change_scheme(const std::string& owner, bucket_scheme next) {
        return m_core.change_scheme(owner, next);
    }

    /// The key of a bucket record (for tests and tools).
    kv::key bucket_key(const std::string& owner, std::int64_t day, std::uint64_t bucket) const {
        return m_core.bucket_key(owner, day, bucket);
    }
    /// The key of a stream's head record.
    kv::key head_key(const std::string& owner, std::int64_t day = 0) const { return m_core.head_key(owner, day); }

private:
    static bucketed_location on_clock_of(Store& store, const bucket_scheme& scheme, bucketed_location where) {
        KVMODEL_ASSERT(validate(scheme, where).has_value());
        where.retry = kv::retry_timing(store, std::move(where.retry));
        return where;
    }

    // The items one read decodes, and its elements built from them.
    struct decoded {
        std::vector<T> items;
        detail::item_sink sink{&items, &decode_into};

        static result<void> decode_into(void* items, const value& v) {
            auto x = codec<T>::decode(v);
            if (!x) return x.error();
            static_cast<std::vector<T>*>(items)->push_back(std::move(x).value());
            return {};
        }
        result<std::vector<element>> elements(result<std::vector<detail::bucket_element>> got) {
            if (!got) return got.error();
            std::vector<element> out;
            out.reserve(got->size());
            for (const detail::bucket_element& e : *got)
                out.push_back(element{e.day, e.slot, e.ts, std::move(items[e.item])});
            return out;
        }
    };

    detail::bucketed_core m_core;
};

} // namespace kvmodel::patterns

// bucketed_core's definitions: in every translation unit when header-only,
// once in the library with kvmodel::compiled.
#if KVMODEL_DEFINITIONS
#    include <kvmodel/cdt/list_ops.hpp>
#    include <kvmodel/cdt/map_ops.hpp>
#    include <kvmodel/core/msgpack_size.hpp>
#    include <kvmodel/patterns/detail/record_pattern.hpp>

namespace kvmodel::patterns::detail {

namespace bucketed {

struct epoch {
    std::uint64_t first_slot = 0;
    bucket_policy policy = bucket_policy::by_count;
    std::uint64_t size = 0;
    std::uint64_t first_bucket = 0;
};

// One stream: a head and its buckets.
struct stream {
    std::string owner;
    std::int64_t day = 0;
    std::string prefix; // "owner" or "owner:<period>"
    kv::key head;

    kv::key bucket(std::uint64_t b, const bucketed_location& w) const {
        std::string name = prefix + ":" + std::to_string(b + 1);
        if (w.hash_bucket_keys) {
            kv::key plain(w.ns, w.bucket_set, name);
            static constexpr char hex[] = "0123456789abcdef";
            std::string h;
            for (std::uint8_t x : plain.digest()) {
                h += hex[x >> 4];
                h += hex[x & 15];
            }
            name = std::move(h);
        }
        return kv::key(w.ns, w.bucket_set, std::move(name));
    }
};

// What a head says.
struct head_state {
    std::uint64_t claimed = 0;
    std::uint64_t trim = 0;
    // The epochs, four numbers each (first_slot, policy, size,
    // first_bucket) in a vector<uint64_t>, compiled anyway: a
    // std::vector<epoch> of its own cost ~55 -O0 functions in every
    // header-only file.
    std::vector<std::uint64_t> epoch_words;
    // `starts` (first slot -> bucket) as two parallel vectors sorted by
    // first slot: vector<uint64_t> is compiled anyway, a std::map of its
    // own costs ~50 functions in every header-only file.
    std::vector<std::uint64_t> start_slots;
    std::vector<std::uint64_t> start_buckets;
    std::uint32_t generation = 0;

    // The first start above `slot` (the map's upper_bound).
    std::size_t start_above(std::uint64_t slot) const {
        std::size_t lo = 0;
        std::size_t hi = start_slots.size();
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (start_slots[mid] <= slot)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }
    // starts[slot] = bucket: kept in order, the last bucket for a slot wins.
    void put_start(std::uint64_t slot, std::uint64_t bucket) {
        std::size_t i = start_above(slot);
        if (i > 0 && start_slots[i - 1] == slot) {
            start_buckets[i - 1] = bucket;
            return;
        }
        start_slots.push_back(slot);
        start_buckets.push_back(bucket);
        for (std::size_t j = start_slots.size() - 1; j > i; --j) {
            start_slots[j] = start_slots[j - 1];
            start_buckets[j] = start_buckets[j - 1];
        }
        start_slots[i] = slot;
        start_buckets[i] = bucket;
    }
    std::size_t epoch_count() const { return epoch_words.size() / 4; }
    std::uint64_t epoch_first_slot(std::size_t i) const { return epoch_words[4 * i]; }
    void add_epoch(const epoch& e) {
        epoch_words.push_back(e.first_slot);
        epoch_words.push_back(static_cast<std::uint64_t>(e.policy));
        epoch_words.push_back(e.size);
        epoch_words.push_back(e.first_bucket);
    }
    // The last epoch starting at or before `slot` into `out`; false if none.
    bool epoch_of(std::uint64_t slot, epoch& out) const {
        std::size_t k = epoch_count();
        for (std::size_t i = 0; i < epoch_count(); ++i)
            if (epoch_first_slot(i) <= slot) k = i;
        if (k == epoch_count()) return false;
        const std::uint64_t* w = &epoch_words[4 * k];
        out = epoch{w[0], static_cast<bucket_policy>(w[1]), w[2], w[3]};
        return true;
    }
    std::optional<std::uint64_t> bucket_of(std::uint64_t slot) const {
        epoch e;
        if (!epoch_of(slot, e)) return std::nullopt;
        std::uint64_t b = e.first_bucket;
        if (e.policy != bucket_policy::by_bytes) {
            b += (slot - e.first_slot) / e.size;
        } else {
            const std::size_t i = start_above(slot);
            if (i > 0 && start_slots[i - 1] >= e.first_slot) b = start_buckets[i - 1];
        }
        return b;
    }
    std::uint64_t next_bucket() const {
        if (claimed == 0 && epoch_words.empty()) return 0;
        auto last = bucket_of(claimed == 0 ? 0 : claimed - 1);
        std::uint64_t b = last ? *last + 1 : 0;
        for (std::size_t i = 0; i < start_buckets.size(); ++i) b = std::max(b, start_buckets[i] + 1);
        return b;
    }
};

struct claimed_slot {
    std::uint64_t slot = 0;
    std::uint64_t bucket = 0;
    bool by_bytes = false;
    std::uint64_t claims_len = 0;
    std::uint64_t trim = 0;
    bool listed = false; // time policy: the period is in the owner's index
};

inline cdt::map_policy key_ordered() { return cdt::map_ops::policy(map_order::key_ordered); }

inline value epoch_value(const bucket_scheme& s, std::uint64_t first_bucket) {
    return value{list{static_cast<std::int64_t>(s.policy), static_cast<std::int64_t>(s.size),
                      static_cast<std::int64_t>(first_bucket)}};
}

// The time of a claim id ([time, ...]); an id of another shape counts
// as new.
inline std::int64_t claim_time(const value& id) {
    if (id.is_list() && !id.as_list().empty() && id.as_list()[0].is_int()) return id.as_list()[0].as_int();
    return std::numeric_limits<std::int64_t>::max();
}

// What a fence leaves at a slot: [] (an element is [ts, value]).
inline value hole() { return value{list{}}; }

inline bool is_element(const value& v) { return v.is_list() && !v.as_list().empty(); }

inline cdt::map_policy fence_policy() {
    return cdt::map_ops::policy(map_order::key_ordered,
                                cdt::map_write_flags::create_only | cdt::map_write_flags::no_fail);
}

inline result<std::uint64_t> as_count(const value& v, std::string_view what) {
    if (v.is_nil()) return std::uint64_t{0};
    if (!v.is_int() || v.as_int() < 0)
        return error{status::parameter_error,
                     "bucketed_list: head bin '" + std::string(what) + "' is " + to_string(v)};
    return static_cast<std::uint64_t>(v.as_int());
}

// The PARAMETER_ERROR of a malformed head, claim or bucket: `what`, then
// the offending value if any (one body for every such message).
inline error malformed(const char* what, const value* v = nullptr) {
    std::string m = what;
    if (v != nullptr) m += to_string(*v);
    return error{status::parameter_error, std::move(m)};
}

// The head's epochs into h.epoch_words (empty).
inline result<void> parse_epochs(const value& v, head_state& h) {
    if (v.is_nil()) return {};
    if (!v.is_map()) return malformed("bucketed_list: epochs is ", &v);
    for (const map_entry& e : v.as_map()) {
        const value& x = e.val;
        if (!e.key.is_int() || e.key.as_int() < 0 || !x.is_list() || x.as_list().size() != 3 ||
            !x.as_list()[0].is_int() || !x.as_list()[1].is_int() || !x.as_list()[2].is_int() ||
            x.as_list()[0].as_int() < 1 || x.as_list()[0].as_int() > 3 ||
            x.as_list()[1].as_int() < 1 || x.as_list()[2].as_int() < 0)
            return malformed("bucketed_list: malformed epoch ", &x);
        h.add_epoch(epoch{static_cast<std::uint64_t>(e.key.as_int()),
                          static_cast<bucket_policy>(x.as_list()[0].as_int()),
                          static_cast<std::uint64_t>(x.as_list()[1].as_int()),
                          static_cast<std::uint64_t>(x.as_list()[2].as_int())});
    }
    return {};
}

// The head's starts into h.start_slots/start_buckets.
inline result<void> parse_starts(const value& v, head_state& h) {
    h.start_slots.clear();
    h.start_buckets.clear();
    if (v.is_nil()) return {};
    if (!v.is_map()) return malformed("bucketed_list: starts is ", &v);
    for (const map_entry& e : v.as_map()) {
        if (!e.key.is_int() || !e.val.is_int() || e.key.as_int() < 0 || e.val.as_int() < 0)
            return malformed("bucketed_list: malformed start ", &e.val);
        h.put_start(static_cast<std::uint64_t>(e.key.as_int()), static_cast<std::uint64_t>(e.val.as_int()));
    }
    return {};
}

inline result<head_state> parse_head(const kv::record& r) {
    head_state h;
    auto base = as_count(r.value_of("base"), "base");
    if (!base) return base.error();
    const value claims = r.value_of("claims");
    if (!claims.is_nil() && !claims.is_list())
        return malformed("bucketed_list: claims is ", &claims);
    h.claimed = *base + (claims.is_list() ? claims.as_list().size() : 0);
    auto trim = as_count(r.value_of("trim"), "trim");
    if (!trim) return trim.error();
    h.trim = *trim;
    if (auto ok = parse_epochs(r.value_of("epochs"), h); !ok) return ok.error();
    if (auto ok = parse_starts(r.value_of("starts"), h); !ok) return ok.error();
    h.generation = r.generation;
    return h;
}

// The two orders reads return elements in: arrival (period, then slot)
// and time (timestamp, then arrival). One comparator type, so one sort is
// compiled for every read.
enum class element_order : std::uint8_t { arrival, time, newest_first };

struct element_less {
    element_order order;
    bool operator()(const bucket_element& a, const bucket_element& b) const noexcept {
        if (order == element_order::newest_first) return element_less{element_order::time}(b, a);
        if (order == element_order::time && a.ts != b.ts) return a.ts < b.ts;
        return a.day != b.day ? a.day < b.day : a.slot < b.slot;
    }
};

// (period, slot) names one element, so each order is total and any sort
// gives what a stable one would. Reads collect elements bucket by bucket,
// almost always already in the order asked (or its reverse): one pass
// settles those; the rest is a bottom-up merge sort. A plain function, not
// std::sort: that is ~40 functions per element type and comparator in
// every header-only file.
inline void sort_elements(std::vector<bucket_element>& v, element_order order) {
    const element_less less{order};
    const std::size_t n = v.size();
    bool ascending = true;
    bool descending = true;
    for (std::size_t i = 1; i < n; ++i) {
        const bool lt = less(v[i], v[i - 1]);
        ascending = ascending && !lt;
        descending = descending && lt;
    }
    if (ascending) return;
    if (descending) {
        for (std::size_t i = 0, j = n - 1; i < j; ++i, --j) {
            const bucket_element t = v[i];
            v[i] = v[j];
            v[j] = t;
        }
        return;
    }
    std::vector<bucket_element> buf;
    for (std::size_t i = 0; i < n; ++i) buf.push_back(v[i]);
    bucket_element* src = &v[0];
    bucket_element* dst = &buf[0];
    for (std::size_t width = 1; width < n; width *= 2) {
        for (std::size_t lo = 0; lo < n; lo += 2 * width) {
            const std::size_t mid = std::min(lo + width, n);
            const std::size_t hi = std::min(lo + 2 * width, n);
            std::size_t a = lo;
            std::size_t b = mid;
            std::size_t k = lo;
            while (a < mid && b < hi) dst[k++] = less(src[b], src[a]) ? src[b++] : src[a++];
            while (a < mid) dst[k++] = src[a++];
            while (b < hi) dst[k++] = src[b++];
        }
        bucket_element* const t = src;
        src = dst;
        dst = t;
    }
    if (src != &v[0])
        for (std::size_t i = 0; i < n; ++i) v[i] = src[i];
}

// Ascending order of period numbers, by sort_elements (one sort body).
inline void sort_periods(std::vector<std::int64_t>& days) {
    std::vector<bucket_element> els;
    for (std::size_t i = 0; i < days.size(); ++i) {
        // push_back(const&), as every other bucket_element append: one
        // append body at -O0, not also push_back(&&)/emplace_back/realloc.
        const bucket_element el{days[i], 0, 0, 0};
        els.push_back(el);
    }
    sort_elements(els, element_order::arrival);
    for (std::size_t i = 0; i < days.size(); ++i) days[i] = els[i].day;
}

inline value pairs_to_map(const value& pairs) {
    map m(map_order::key_ordered);
    if (pairs.is_list())
        for (const value& p : pairs.as_list())
            if (p.is_list() && p.as_list().size() == 2) m.put(p.as_list()[0], p.as_list()[1]);
    return value{std::move(m)};
}

} // namespace bucketed

KVMODEL_DECL result<void> bucketed_core::validate(const bucket_scheme& s,
                                                  const bucketed_location& w) {
    if (s.size == 0) return fail(status::parameter_error, "bucketed_list: bucket size 0");
    if (s.policy == bucket_policy::by_bytes && s.size + overhead_bytes >= w.max_record_size)
        return fail(status::parameter_error,
                    "bucketed_list: byte budget " + std::to_string(s.size) +
                        " leaves no headroom under max-record-size " +
                        std::to_string(w.max_record_size));
    if (w.claim_window == 0 || w.max_attempts == 0)
        return fail(status::parameter_error, "bucketed_list: claim_window and max_attempts must be > 0");
    return {};
}

KVMODEL_DECL result<std::uint64_t>
bucketed_core::append(const std::string& owner, const value& item, std::int64_t ts_ms) {
    return append_as(owner, item, ts_ms, next_append_id());
}

KVMODEL_DECL result<std::uint64_t> bucketed_core::append(const std::string& owner,
                                                         const value& item,
                                                         std::int64_t ts_ms,
                                                         std::string_view append_id) {
    if (append_id.empty() || append_id.size() > max_append_id_bytes)
        return fail(status::parameter_error,
                    "bucketed_list::append: an append id is 1.." + std::to_string(max_append_id_bytes) +
                        " bytes, not " + std::to_string(append_id.size()));
    // [time, string]: never equal to a generated id, [time, integer].
    return append_as(owner, item, ts_ms, value{list{ts_ms, std::string(append_id)}});
}

KVMODEL_DECL result<std::uint64_t> bucketed_core::count(const std::string& owner) const {
    if (m_scheme.policy == bucket_policy::by_time) {
        auto days = indexed_days(owner);
        if (!days) return days.error();
        std::vector<std::uint64_t> spans;
        if (auto ok = read_head_spans(owner, *days, spans); !ok) return ok.error();
        std::uint64_t n = 0;
        for (std::size_t i = 1; i < spans.size(); i += 4) n += spans[i];
        return n;
    }
    auto h = read_head(stream_of(owner, 0));
    if (!h) {
        if (h.error().code == status::record_not_found) return std::uint64_t{0}; // as read_all: no list yet
        return h.error();
    }
    return h->claimed;
}

KVMODEL_DECL result<std::vector<bucket_element>> bucketed_core::read_all(const std::string& owner,
                                                                         item_sink& sink) const {
    if (m_scheme.policy == bucket_policy::by_time) {
        auto d = indexed_days(owner);
        if (!d) return d.error();
        return read_days(owner, *d, false, 0, 0, sink);
    }
    std::vector<std::int64_t> days;
    days.push_back(0);
    return read_days(owner, days, false, 0, 0, sink);
}

KVMODEL_DECL result<std::vector<bucket_element>> bucketed_core::read_range(const std::string& owner,
                                                                           std::uint64_t first,
                                                                           std::uint64_t last,
                                                                           item_sink& sink) const {
    if (m_scheme.policy == bucket_policy::by_time)
        return fail(status::parameter_error,
                    "bucketed_list::read_range: the time policy has one slot range per day; "
                    "use read_time");
    stream s = stream_of(owner, 0);
    auto h = read_head(s);
    if (!h) return h.error();
    return read_slots(s, *h, first, last, sink);
}

KVMODEL_DECL result<std::vector<bucket_element>> bucketed_core::read_time(const std::string& owner,
                                                                          std::int64_t from_ms,
                                                                          std::int64_t to_ms,
                                                                          item_sink& sink) const {
    std::vector<std::int64_t> days;
    if (m_scheme.policy == bucket_policy::by_time) {
        if (to_ms <= from_ms) return std::vector<bucket_element>{};
        const time_period per = m_scheme.period;
        for (std::int64_t d = period_of(std::max<std::int64_t>(from_ms, 0), per); d <= period_of(to_ms - 1, per);
             d = period_of(period_start_ms(d, per) + period_ms(per), per)) {
            days.push_back(d);
            if (days.size() > max_days_per_read)
                return fail(status::parameter_error,
                            "bucketed_list::read_time: more than " +
                                std::to_string(max_days_per_read) + " periods in one read");
        }
    } else {
        days.push_back(0);
    }
    auto out = read_days(owner, days, true, from_ms, to_ms, sink);
    // read_days returns arrival order: time order breaks ties by arrival.
    if (out) bucketed::sort_elements(*out, bucketed::element_order::time);
    return out;
}

KVMODEL_DECL result<bucket_page> bucketed_core::newest(const std::string& owner,
                                                       std::size_t n,
                                                       const std::optional<bucket_cursor>& from,
                                                       item_sink& sink) const {
    if (m_scheme.policy == bucket_policy::by_time) return newest_by_time(owner, n, from, sink);
    bucket_page out;
    if (n == 0) return out;
    stream s = stream_of(owner, 0);
    auto h = read_head(s);
    if (!h) {
        if (h.error().code == status::record_not_found) return out;
        return h.error();
    }
    std::uint64_t upper = h->claimed;
    if (from) upper = std::min(upper, from->before());
    // Holes (claimed, never written) make a window come back short:
    // widen it until the page is full or the stream is exhausted.
    while (out.items.size() < n && upper > h->trim) {
        std::uint64_t want = n - out.items.size();
        std::uint64_t lo = upper - std::min(upper - h->trim, want);
        auto got = read_slots(s, *h, lo, upper, sink);
        if (!got) return got.error();
        for (std::size_t i = got->size(); i-- > 0 && out.items.size() < n;) {
            out.items.push_back((*got)[i]);
            lo = (*got)[i].slot;
        }
        upper = lo;
    }
    if (out.items.size() >= n && out.items.back().slot > h->trim) out.next = bucket_cursor(0, out.items.back().slot);
    return out;
}

KVMODEL_DECL result<std::size_t> bucketed_core::drop_older_than(const std::string& owner,
                                                                std::int64_t before_ms) {
    if (m_scheme.policy == bucket_policy::by_time) {
        auto days = indexed_days(owner);
        if (!days) return days.error();
        std::size_t dropped = 0;
        for (std::int64_t day : *days) {
            if (period_start_ms(day, m_scheme.period) + period_ms(m_scheme.period) > before_ms) break;
            // A day that ended before the cutoff goes whole, its last
            // bucket too. Its head forgets it is listed first, so that a
            // late append into it from now on indexes it again.
            stream s = stream_of(owner, day);
            if (auto c = operate_retried(s.head, detail::kv_ops(kv::op::write("listed", 0)), m_where.write); !c)
                return c.error();
            auto r = drop_stream_before(s, std::nullopt, std::nullopt, true);
            if (!r) return r.error();
            dropped += *r;
            auto u = unindex_day(owner, day);
            if (!u) return u.error();
        }
        return dropped;
    }
    return drop_stream_before(stream_of(owner, 0), std::nullopt, before_ms, false);
}

KVMODEL_DECL result<std::size_t> bucketed_core::keep_newest(const std::string& owner,
                                                            std::uint64_t keep) {
    if (m_scheme.policy == bucket_policy::by_time)
        return fail(status::parameter_error, "bucketed_list::keep_newest: use drop_older_than with the time policy");
    stream s = stream_of(owner, 0);
    auto h = read_head(s);
    if (!h) return h.error();
    if (h->claimed <= keep) return std::size_t{0};
    return drop_stream_before(s, h->claimed - keep, std::nullopt, false);
}

KVMODEL_DECL result<void> bucketed_core::change_scheme(const std::string& owner,
                                                       bucket_scheme next) {
    auto v = validate(next, m_where);
    if (!v) return v;
    if ((next.policy == bucket_policy::by_time) != (m_scheme.policy == bucket_policy::by_time))
        return fail(status::parameter_error,
                    "bucketed_list::change_scheme: cannot switch between time and slot bucketing");
    m_scheme = next;
    if (next.policy == bucket_policy::by_time) return {};
    stream s = stream_of(owner, 0);
    for (std::uint32_t attempt = 0;; ++attempt) {
        auto h = read_head(s);
        if (!h) {
            if (h.error().code == status::record_not_found) return {}; // first append records it
            return h.error();
        }
        std::uint64_t first_bucket = h->next_bucket();
        std::vector<kv::operation> ops = detail::kv_ops(
            kv::op::cdt("epochs", cdt::map_ops::put(static_cast<std::int64_t>(h->claimed),
                                                    bucketed::epoch_value(next, first_bucket),
                                                    bucketed::key_ordered())));
        if (next.policy == bucket_policy::by_bytes)
            ops.push_back(kv::op::cdt("starts", cdt::map_ops::put(static_cast<std::int64_t>(h->claimed),
                                                                  static_cast<std::int64_t>(first_bucket),
                                                                  bucketed::key_ordered())));
        auto r = write_checked(s.head, ops, h->generation);
        if (r) return {};
        if (r.error().code != status::generation_error || attempt + 1 >= m_where.max_attempts) return r.error();
    }
}

KVMODEL_DECL kv::key
bucketed_core::bucket_key(const std::string& owner, std::int64_t day, std::uint64_t bucket) const {
    return stream_of(owner, day).bucket(bucket, m_where);
}

KVMODEL_DECL kv::key bucketed_core::head_key(const std::string& owner, std::int64_t day) const {
    return stream_of(owner, day).head;
}

// Claims older than this may leave `claims`.
KVMODEL_DECL std::int64_t bucketed_core::retention_cutoff() const {
    return now_ms() - m_where.claim_retention.count();
}

KVMODEL_DECL std::int64_t bucketed_core::now_ms() const {
    if (m_where.clock) return m_where.clock();
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// An append under claim id `id` (see the header comment).
KVMODEL_DECL result<std::uint64_t> bucketed_core::append_as(const std::string& owner,
                                                            const value& item,
                                                            std::int64_t ts_ms,
                                                            const value& id) {
    auto stored = encode_stored(ts_ms, item);
    if (!stored) return stored.error();
    if (m_scheme.policy == bucket_policy::by_time && (ts_ms < 0 || ts_ms >= 253402300800000))
        return fail(status::parameter_error,
                    "bucketed_list::append: timestamp " + std::to_string(ts_ms) + " is outside years 1970..9999");
    std::int64_t day = m_scheme.policy == bucket_policy::by_time ? period_of(ts_ms, m_scheme.period) : 0;
    if (day < 0)
        return fail(status::parameter_error,
                    "bucketed_list::append: timestamp " + std::to_string(ts_ms) + " is outside years 0..9999");
    stream s = stream_of(owner, day);
    auto c = claim(s, id);
    if (!c) return c.error();
    // A retry under an id whose slot retention has since dropped: the
    // element was dropped with it (writing it now would hide it below
    // the trim).
    if (c->slot < c->trim) return c->slot;
    // The period index rule (header comment): index before writing.
    if (day != 0 && !c->listed) {
        auto d = index_day(owner, day);
        if (d) d = mark_listed(s);
        // The claim is applied: whatever fails from here leaves the call
        // in doubt (a retry with the same id finds the slot).
        if (!d) return release(s, *c, kv::after_applied(d.error()));
    }
    auto w = write_element(s, *c, *stored);
    if (!w) return release(s, *c, kv::after_applied(w.error()));
    return c->slot;
}

// A failed append's claimed slot: fence it ([] unless something is
// there) so that compaction need not wait for it, and read it back — if
// the element landed after all (an in-doubt write), the append succeeded.
// When the fence cannot be written, `failure` stands and compaction
// fences the hole later.
KVMODEL_DECL result<std::uint64_t>
bucketed_core::release(const stream& s, const claimed_slot& c, const error& failure) const {
    auto r = detail::operate(m_store,
                             s.bucket(c.bucket, m_where),
                             detail::kv_ops(kv::op::cdt("items", cdt::map_ops::put(static_cast<std::int64_t>(c.slot), bucketed::hole(), bucketed::fence_policy())),
                                            kv::op::cdt("items", cdt::map_ops::get_by_key(static_cast<std::int64_t>(c.slot),
                                                                                          cdt::return_type::value))),
                             m_where.write);
    if (r && r->results.size() == 2 && bucketed::is_element(r->results[1])) return c.slot;
    return failure;
}

// Sets the period head's `listed` flag once the period is indexed.
KVMODEL_DECL result<void> bucketed_core::mark_listed(const stream& s) const {
    auto r = operate_retried(s.head, detail::kv_ops(kv::op::write("listed", 1)), m_where.write);
    if (!r) return r.error();
    return {};
}

// An append id: [Unix ms, 63 random bits] — unique across threads and
// processes with overwhelming probability, nothing to coordinate, and
// its time tells a reader of the head when a claim was made.
KVMODEL_DECL value bucketed_core::next_append_id() const {
    return value{list{now_ms(), static_cast<std::int64_t>(kv::detail::random_bits() >> 1)}};
}

KVMODEL_DECL bucketed::stream bucketed_core::stream_of(const std::string& owner,
                                                       std::int64_t day) const {
    std::string prefix = day == 0 ? owner : owner + ":" + std::to_string(day);
    kv::key head(m_where.ns, m_where.head_set, prefix);
    return stream{owner, day, std::move(prefix), std::move(head)};
}

// operate() retried on transient errors (in doubt sticks across the
// attempts); only for idempotent op lists.
KVMODEL_DECL result<kv::record> bucketed_core::operate_retried(
    const kv::key& k, const std::vector<kv::operation>& ops, const kv::write_policy& wp) const {
    return kv::retry(m_where.retry, m_where.max_attempts, kv::step_kind::write,
                     [&] { return detail::operate(m_store, k, ops, wp); });
}

KVMODEL_DECL result<kv::record> bucketed_core::write_checked(const kv::key& k,
                                                             const std::vector<kv::operation>& ops,
                                                             std::uint32_t generation) const {
    kv::write_policy wp = m_where.write;
    wp.gen = kv::generation_policy::eq;
    wp.generation = generation;
    return detail::operate(m_store, k, ops, wp);
}

KVMODEL_DECL result<bucketed::head_state> bucketed_core::read_head(const stream& s) const {
    auto r = kv::retry(m_where.retry, m_where.max_attempts, kv::step_kind::read,
                       [&] { return m_store.get(s.head, m_where.read); });
    if (!r) return r.error();
    return bucketed::parse_head(*r);
}

// Numbers, not a std::vector<head_state>: that vector was ~31 -O0
// functions in every header-only file, for two callers needing four
// numbers per period.
KVMODEL_DECL result<void> bucketed_core::read_head_spans(const std::string& owner,
                                                         const std::vector<std::int64_t>& days,
                                                         std::vector<std::uint64_t>& spans) const {
    std::vector<kv::key> keys;
    for (std::int64_t d : days) keys.push_back(stream_of(owner, d).head);
    auto rs = kv::batch_get(m_store, std::span<const kv::key>(keys), m_where.read);
    for (auto& r : rs) {
        std::uint64_t trim = 0; // a period without a head has no elements
        std::uint64_t claimed = 0;
        std::uint64_t first = 1;
        std::uint64_t last = 0;
        if (!r) {
            if (r.error().code != status::record_not_found) return r.error();
        } else {
            auto h = bucketed::parse_head(*r);
            if (!h) return h.error();
            trim = h->trim;
            claimed = h->claimed;
            if (claimed > trim) {
                auto b0 = h->bucket_of(trim);
                auto b1 = h->bucket_of(claimed - 1);
                if (b0 && b1) {
                    first = *b0;
                    last = *b1;
                }
            }
        }
        spans.push_back(trim);
        spans.push_back(claimed);
        spans.push_back(first);
        spans.push_back(last);
    }
    return {};
}

// Step 1 of an append: the idempotent slot claim (see the header comment).
KVMODEL_DECL result<bucketed::claimed_slot> bucketed_core::claim(const stream& s,
                                                                 const value& id) const {
    cdt::list_policy unique;
    unique.flags = cdt::list_write_flags::add_unique | cdt::list_write_flags::no_fail;
    cdt::map_policy first_only =
        cdt::map_ops::policy(map_order::key_ordered,
                             cdt::map_write_flags::create_only | cdt::map_write_flags::no_fail);
    // push_back, not a braced list: see detail::kv_ops.
    std::vector<kv::operation> ops;
    ops.reserve(10);
    ops.push_back(kv::op::cdt("claims", cdt::list_ops::append(id, unique)));
    ops.push_back(kv::op::cdt("claims", cdt::list_ops::get_by_value(id, cdt::return_type::index)));
    ops.push_back(kv::op::read("base"));
    // The first claim of a stream records its scheme; later ones keep it.
    ops.push_back(kv::op::cdt("epochs", cdt::map_ops::put(0, bucketed::epoch_value(m_scheme, 0), first_only)));
    ops.push_back(kv::op::cdt("epochs", cdt::map_ops::get_by_index_range(0, std::nullopt,
                                                                         cdt::return_type::key_value)));
    ops.push_back(kv::op::read("trim"));
    ops.push_back(kv::op::read("listed"));
    // The oldest claim: whether compaction has anything to move yet.
    ops.push_back(kv::op::cdt("claims", cdt::list_ops::get_by_index(0, cdt::return_type::value)));
    if (m_scheme.policy == bucket_policy::by_bytes)
        ops.push_back(kv::op::cdt("starts", cdt::map_ops::put(0, 0, first_only)));
    ops.push_back(kv::op::cdt("starts", cdt::map_ops::get_by_index_range(-1, 1, cdt::return_type::key_value)));
    auto r = operate_retried(s.head, ops, m_where.write);
    if (!r) return r.error();
    const std::vector<value>& res = r->results;
    if (res.size() != ops.size() || !res[1].is_list() || res[1].as_list().size() != 1 ||
        !res[1].as_list()[0].is_int())
        return bucketed::malformed("bucketed_list: unexpected claim result");
    auto base = bucketed::as_count(res[2], "base");
    if (!base) return base.error();
    claimed_slot c;
    c.claims_len = static_cast<std::uint64_t>(res[0].is_int() ? res[0].as_int() : 0);
    c.slot = *base + static_cast<std::uint64_t>(res[1].as_list()[0].as_int());
    auto trim = bucketed::as_count(res[5], "trim");
    if (!trim) return trim.error();
    c.trim = *trim;
    c.listed = res[6].is_int() && res[6].as_int() == 1;
    // Rebuild the part of the head the claim read.
    head_state h;
    if (auto ok = bucketed::parse_epochs(bucketed::pairs_to_map(res[4]), h); !ok) return ok.error();
    if (auto ok = bucketed::parse_starts(bucketed::pairs_to_map(res.back()), h); !ok) return ok.error();
    if (!h.start_slots.empty() && h.start_slots[0] > c.slot) {
        // A retried claim after later byte buckets opened: the start at or
        // below the slot, not the last one (which would misplace it).
        auto below = operate_retried(s.head,
                                     detail::kv_ops(kv::op::cdt("starts", cdt::map_ops::get_by_key_rel_index_range(
                                                                static_cast<std::int64_t>(c.slot + 1), -1, 1,
                                                                cdt::return_type::key_value))),
                                     m_where.write);
        if (!below) return below.error();
        if (auto ok = bucketed::parse_starts(bucketed::pairs_to_map(below->results[0]), h); !ok)
            return ok.error();
    }
    epoch e;
    if (!h.epoch_of(c.slot, e)) return bucketed::malformed("bucketed_list: no epoch covers the claimed slot");
    c.by_bytes = e.policy == bucket_policy::by_bytes;
    auto b = h.bucket_of(c.slot);
    if (!b) return bucketed::malformed("bucketed_list: no bucket for the claimed slot");
    c.bucket = *b;
    if (c.claims_len >= max_claims_factor * m_where.claim_window ||
        (c.claims_len >= 2 * m_where.claim_window && bucketed::claim_time(res[7]) < retention_cutoff()))
        compact(s);
    return c;
}

// Moves up to claim_window of the oldest ids into `base`: those older
// than claim_retention (by the id's time), or any once `claims` holds
// max_claims_factor x claim_window ids (whatever the rate, the head
// stays bounded); a younger id stops compaction there, landed or not,
// so that a writer still retrying its claim finds its id. Their slots
// are resolved first: landed, trimmed, or fenced as holes ([] put unless
// something is there; a late write of the element replaces it). Best
// effort: a head that moved on meanwhile (a generation
// conflict) or a failed read or fence leaves the rest to a later append.
// Round trips: the head, one read per bucket the prefix covers, one
// fence per bucket with holes to fence, the head write.
KVMODEL_DECL void bucketed_core::compact(const stream& s) const {
    auto r = m_store.get(s.head, m_where.read);
    if (!r) return;
    auto h = bucketed::parse_head(*r);
    const value claims = r->value_of("claims");
    if (!h || !claims.is_list()) return;
    const list& ids = claims.as_list();
    // A compaction that raced this one left fewer: the ids it kept stay.
    if (ids.size() < 2 * m_where.claim_window) return;
    const std::uint64_t first = h->claimed - ids.size(); // base
    const bool full = ids.size() >= max_claims_factor * m_where.claim_window;
    const std::int64_t cutoff = retention_cutoff();
    // Only ids older than claim_retention move (unless `claims` is full),
    // landed or not: a writer retrying one must still find it.
    std::uint64_t last = first;
    while (last < first + m_where.claim_window &&
           (full || bucketed::claim_time(ids[static_cast<std::size_t>(last - first)]) < cutoff))
        ++last;
    std::uint64_t resolved = first; // slots below it are resolved
    for (std::uint64_t slot = first; slot < last && resolved == slot;) {
        std::uint64_t end = slot + 1;
        auto b = h->bucket_of(slot);
        if (!b) break;
        while (end < last && h->bucket_of(end) == b) ++end;
        const std::uint64_t live = std::max(slot, h->trim); // trimmed slots need nothing
        resolved = live < end ? fence_holes(s.bucket(*b, m_where), live, end) : end;
        slot = end;
    }
    auto k = static_cast<std::int64_t>(resolved - first);
    if (k == 0) return;
    (void)write_checked(s.head, detail::kv_ops(kv::op::cdt("claims", cdt::list_ops::remove_range(0, k)), kv::op::add("base", k)),
                        h->generation);
}

// Resolves slots [first, last) of one bucket, fencing the empty ones;
// returns the first slot not resolved (`last` when all are).
KVMODEL_DECL std::uint64_t
bucketed_core::fence_holes(const kv::key& bk, std::uint64_t first, std::uint64_t last) const {
    auto got = detail::operate(m_store,
                               bk,
                               detail::kv_ops(kv::op::cdt("items", cdt::map_ops::get_by_key_range(static_cast<std::int64_t>(first),
                                                                                    value(static_cast<std::int64_t>(last)),
                                                                                    cdt::return_type::key))),
                               m_where.write);
    if (!got && got.error().code != status::record_not_found) return first;
    std::vector<bool> present(last - first, false);
    if (got && got->results[0].is_list())
        for (const value& k : got->results[0].as_list())
            if (k.is_int() && static_cast<std::uint64_t>(k.as_int()) >= first &&
                static_cast<std::uint64_t>(k.as_int()) < last)
                present[static_cast<std::size_t>(static_cast<std::uint64_t>(k.as_int()) - first)] = true;
    std::vector<kv::operation> fences;
    std::uint64_t slot = first;
    for (; slot < last; ++slot) {
        if (present[slot - first]) continue;
        fences.push_back(kv::op::cdt("items", cdt::map_ops::put(static_cast<std::int64_t>(slot), bucketed::hole(), bucketed::fence_policy())));
    }
    if (fences.empty() || detail::operate(m_store, bk, fences, m_where.write)) return slot;
    // No fence written: resolved up to the first empty slot.
    slot = first;
    while (slot < last && present[slot - first]) ++slot;
    return slot;
}

// Step 2 of an append: the idempotent bucket write.
KVMODEL_DECL result<void>
bucketed_core::write_element(const stream& s, const claimed_slot& c, const value& stored) {
    kv::key bk = s.bucket(c.bucket, m_where);
    std::vector<kv::operation> ops = detail::kv_ops(kv::op::cdt(
        "items", cdt::map_ops::put(static_cast<std::int64_t>(c.slot), stored, bucketed::key_ordered())));
    if (c.by_bytes) {
        ops.push_back(kv::op::add("bytes", static_cast<std::int64_t>(packed_size(stored) + 9)));
        ops.push_back(kv::op::read("bytes"));
    }
    auto r = operate_retried(bk, ops, m_where.write);
    if (!r) return r.error();
    if (c.by_bytes && r->results.back().is_int() &&
        static_cast<std::uint64_t>(r->results.back().as_int()) >= m_scheme.size)
        return open_next_bucket(s, c.bucket);
    return {};
}

// A byte-bounded bucket is full: the next unclaimed slot starts a new
// bucket, unless another writer already opened one.
KVMODEL_DECL result<void> bucketed_core::open_next_bucket(const stream& s,
                                                          std::uint64_t full_bucket) {
    for (std::uint32_t attempt = 0; attempt < m_where.max_attempts; ++attempt) {
        auto h = read_head(s);
        if (!h) return h.error();
        if (h->start_buckets.empty() || h->start_buckets.back() != full_bucket) return {};
        std::vector<kv::operation> ops = detail::kv_ops(kv::op::cdt(
            "starts", cdt::map_ops::put(static_cast<std::int64_t>(h->claimed),
                                        static_cast<std::int64_t>(full_bucket + 1), bucketed::key_ordered())));
        auto r = write_checked(s.head, ops, h->generation);
        if (r || r.error().code != status::generation_error) return r ? result<void>{} : r.error();
    }
    return {}; // busy head: the next writer into the full bucket tries again
}

KVMODEL_DECL result<value> bucketed_core::encode_stored(std::int64_t ts, const value& item) const {
    value stored{list{ts, item}};
    if (auto ok = kv::check_bin_value(stored, "bucketed_list::append", "items"); !ok) return ok.error();
    std::size_t bytes = packed_size(stored) + 9;
    std::size_t limit = m_scheme.policy == bucket_policy::by_bytes
                            ? m_where.max_record_size - m_scheme.size - overhead_bytes
                            : m_where.max_record_size - overhead_bytes;
    if (bytes > limit)
        return fail(status::record_too_big,
                    "bucketed_list::append: element of " + std::to_string(bytes) +
                        " bytes exceeds the " + std::to_string(limit) +
                        " bytes a bucket can take under max-record-size " +
                        std::to_string(m_where.max_record_size));
    return stored;
}

// --- the time policy's day index in the owner's head.

KVMODEL_DECL result<void> bucketed_core::index_day(const std::string& owner,
                                                   std::int64_t day) const {
    cdt::list_policy p;
    p.order = list_order::ordered;
    p.flags = cdt::list_write_flags::add_unique | cdt::list_write_flags::no_fail;
    auto r = operate_retried(stream_of(owner, 0).head, detail::kv_ops(kv::op::cdt("days", cdt::list_ops::append(day, p))),
                             m_where.write);
    if (!r) return r.error();
    return {};
}

KVMODEL_DECL result<void> bucketed_core::unindex_day(const std::string& owner,
                                                     std::int64_t day) const {
    auto r = operate_retried(stream_of(owner, 0).head,
                             detail::kv_ops(kv::op::cdt("days", cdt::list_ops::remove_by_value(day, cdt::return_type::none))),
                             m_where.write);
    if (!r && r.error().code != status::record_not_found) return r.error();
    return {};
}

KVMODEL_DECL result<std::vector<std::int64_t>>
bucketed_core::indexed_days(const std::string& owner) const {
    auto r = m_store.get(stream_of(owner, 0).head, m_where.read);
    if (!r) {
        if (r.error().code == status::record_not_found) return std::vector<std::int64_t>{};
        return r.error();
    }
    std::vector<std::int64_t> days;
    bool in_order = true; // index_day keeps `days` an ordered list
    const value d = r->value_of("days");
    if (d.is_list())
        for (const value& x : d.as_list())
            if (x.is_int()) {
                in_order = in_order && (days.empty() || days.back() <= x.as_int());
                days.push_back(x.as_int());
            }
    if (!in_order) bucketed::sort_periods(days);
    return days;
}

// --- reads

// Filters as it decodes, into the read's own vector: no per-bucket vector
// and one append per kept element, not one per decoded element. newest()
// keeps 50 of a 1,000-element bucket: the appends (an out-of-line call at
// -O2 in a large unit) had cost bucket_bench read_newest50/2/512 +5-10%.
KVMODEL_DECL result<void> bucketed_core::decode_bucket(const kv::record& r, std::int64_t day, item_sink& sink,
                                                       std::uint64_t first, std::uint64_t last, bool windowed,
                                                       std::int64_t from_ms, std::int64_t to_ms,
                                                       std::vector<bucket_element>& out) const {
    const value items = r.value_of("items");
    if (items.is_nil()) return {};
    if (!items.is_map()) return bucketed::malformed("bucketed_list: items is ", &items);
    for (const map_entry& e : items.as_map()) {
        const value& v = e.val;
        if (v.is_list() && v.as_list().empty()) continue; // a fenced hole
        if (!e.key.is_int() || e.key.as_int() < 0 || !v.is_list() || v.as_list().size() != 2 ||
            !v.as_list()[0].is_int())
            return bucketed::malformed("bucketed_list: malformed element ", &v);
        auto item = sink.decode(sink.items, v.as_list()[1]);
        if (!item) return item.error();
        const bucket_element el{day, static_cast<std::uint64_t>(e.key.as_int()), v.as_list()[0].as_int(),
                                sink.size++};
        if (el.slot < first || el.slot >= last) continue;
        if (windowed && (el.ts < from_ms || el.ts >= to_ms)) continue;
        out.push_back(el);
    }
    return {};
}

// Elements of slots [first, last) of one stream: ONE batch read of the
// buckets covering them.
KVMODEL_DECL result<std::vector<bucket_element>> bucketed_core::read_slots(const stream& s,
                                                                           const head_state& h,
                                                                           std::uint64_t first,
                                                                           std::uint64_t last,
                                                                           item_sink& sink) const {
    first = std::max(first, h.trim);
    last = std::min(last, h.claimed);
    std::vector<bucket_element> out;
    if (first >= last) return out;
    auto b0 = h.bucket_of(first);
    auto b1 = h.bucket_of(last - 1);
    if (!b0 || !b1) return out;
    std::vector<kv::key> keys;
    for (std::uint64_t b = *b0; b <= *b1; ++b) keys.push_back(s.bucket(b, m_where));
    auto rs = kv::batch_get(m_store, std::span<const kv::key>(keys), m_where.read);
    for (auto& r : rs) {
        if (!r) {
            if (r.error().code == status::record_not_found) continue; // dropped or not yet written
            return r.error();
        }
        auto got = decode_bucket(*r, s.day, sink, first, last, false, 0, 0, out);
        if (!got) return got.error();
    }
    bucketed::sort_elements(out, bucketed::element_order::arrival);
    return out;
}

KVMODEL_DECL result<std::vector<bucket_element>>
bucketed_core::read_days(const std::string& owner,
                         const std::vector<std::int64_t>& days,
                         bool windowed,
                         std::int64_t from_ms,
                         std::int64_t to_ms,
                         item_sink& sink) const {
    std::vector<std::uint64_t> spans; // per period: trim, claimed, first and last bucket
    if (auto ok = read_head_spans(owner, days, spans); !ok) return ok.error();
    std::vector<kv::key> keys;
    std::vector<std::size_t> period_of_key; // index into days and spans / 4
    for (std::size_t i = 0; i < days.size(); ++i) {
        const std::uint64_t* sp = &spans[4 * i];
        if (sp[2] > sp[3]) continue; // no bucket holds an element (read_head_spans)
        stream s = stream_of(owner, days[i]);
        for (std::uint64_t b = sp[2]; b <= sp[3]; ++b) {
            keys.push_back(s.bucket(b, m_where));
            period_of_key.push_back(i);
        }
    }
    std::vector<bucket_element> out;
    if (keys.empty()) return out;
    auto rs = kv::batch_get(m_store, std::span<const kv::key>(keys), m_where.read);
    for (std::size_t i = 0; i < rs.size(); ++i) {
        auto& r = rs[i];
        if (!r) {
            if (r.error().code == status::record_not_found) continue;
            return r.error();
        }
        const std::size_t p = period_of_key[i];
        const std::uint64_t* sp = &spans[4 * p];
        auto got = decode_bucket(*r, days[p], sink, sp[0], sp[1], windowed, from_ms, to_ms, out);
        if (!got) return got.error();
    }
    bucketed::sort_elements(out, bucketed::element_order::arrival);
    return out;
}

// newest() on the time policy: period by period, newest first; each
// period visited is read whole and put in time order.
KVMODEL_DECL result<bucket_page>
bucketed_core::newest_by_time(const std::string& owner,
                              std::size_t n,
                              const std::optional<bucket_cursor>& from,
                              item_sink& sink) const {
    bucket_page out;
    if (n == 0) return out;
    auto days = indexed_days(owner); // oldest first: walk it backwards
    if (!days) return days.error();
    const bucketed::element_less newer{bucketed::element_order::newest_first};
    for (std::size_t i = days->size(); i-- > 0;) {
        const std::int64_t day = (*days)[i];
        if (from && day > from->day()) continue;
        stream s = stream_of(owner, day);
        auto h = read_head(s);
        if (!h) {
            if (h.error().code == status::record_not_found) continue;
            return h.error();
        }
        auto got = read_slots(s, *h, h->trim, h->claimed, sink);
        if (!got) return got.error();
        bucketed::sort_elements(*got, bucketed::element_order::newest_first);
        std::size_t end = got->size();
        if (from && day == from->day()) {
            // Keep what is past the cursor's element, in order: a cursor
            // without a time (an arrival-order token) pages by slot.
            const bucket_element at{day, from->before(), from->ts().value_or(0), 0};
            end = 0;
            for (const bucket_element& e : *got)
                if (from->ts() ? newer(at, e) : e.slot < from->before()) (*got)[end++] = e;
        }
        std::size_t k = 0;
        for (; k < end && out.items.size() < n; ++k) out.items.push_back((*got)[k]);
        if (out.items.size() >= n) {
            const bucket_element& last = out.items.back();
            if (k < end || i > 0) out.next = bucket_cursor::at_time(day, last.ts, last.slot);
            return out;
        }
    }
    return out;
}

// Drops the buckets of one stream below slot `below` (keep_newest) or
// whose newest element is older than `before_ms`, oldest first — all of
// them with whole_stream, else never the last (open) one; then raises
// the head's trim. Returns the elements dropped.
KVMODEL_DECL result<std::size_t>
bucketed_core::drop_stream_before(const stream& s,
                                  std::optional<std::uint64_t> below,
                                  std::optional<std::int64_t> before_ms,
                                  bool whole_stream) {
    auto h = read_head(s);
    if (!h) {
        if (h.error().code == status::record_not_found) return std::size_t{0};
        return h.error();
    }
    if (h->claimed <= h->trim) return std::size_t{0};
    std::uint64_t slot = h->trim;
    std::uint64_t new_trim = h->trim;
    std::size_t dropped = 0;
    while (slot < h->claimed) {
        auto b = h->bucket_of(slot);
        if (!b) break;
        // The bucket's last slot: the slot before the next bucket starts.
        std::uint64_t end = slot;
        while (end < h->claimed && h->bucket_of(end) == b) {
            epoch e;
            if (h->epoch_of(end, e) && e.policy != bucket_policy::by_bytes) {
                std::uint64_t next = e.first_slot + ((end - e.first_slot) / e.size + 1) * e.size;
                end = std::min(next, h->claimed);
                // An epoch change may start inside: stop at it.
                for (std::size_t i = 0; i < h->epoch_count(); ++i)
                    if (h->epoch_first_slot(i) > slot && h->epoch_first_slot(i) < end) end = h->epoch_first_slot(i);
            } else {
                const std::size_t i = h->start_above(end);
                std::uint64_t next = i == h->start_slots.size() ? h->claimed : h->start_slots[i];
                for (std::size_t j = 0; j < h->epoch_count(); ++j)
                    if (h->epoch_first_slot(j) > end && h->epoch_first_slot(j) < next) next = h->epoch_first_slot(j);
                end = std::min(next, h->claimed);
            }
        }
        if (end == h->claimed && !whole_stream) break; // never drop the open bucket
        if (below && end > *below) break;
        kv::key bk = s.bucket(*b, m_where);
        if (before_ms) {
            auto newest = detail::operate(m_store,
                bk, detail::kv_ops(kv::op::cdt("items", cdt::map_ops::get_by_rank(-1, cdt::return_type::value))),
                m_where.write);
            if (newest) {
                const value& v = newest->results.front();
                if (v.is_list() && !v.as_list().empty() && v.as_list()[0].is_int() &&
                    v.as_list()[0].as_int() >= *before_ms)
                    break;
            } else if (newest.error().code != status::record_not_found) {
                return newest.error();
            }
        }
        auto got = m_store.get(bk, m_where.read);
        std::size_t n = 0;
        if (got) {
            const value items = got->value_of("items");
            if (items.is_map())
                for (const map_entry& e : items.as_map())
                    if (bucketed::is_element(e.val)) ++n;
        }
        auto rm = m_store.remove(bk, m_where.write);
        if (!rm && rm.error().code != status::record_not_found) return rm.error();
        dropped += n;
        new_trim = end;
        slot = end;
    }
    if (new_trim > h->trim) {
        // trim only grows: write it unless a concurrent trim went further.
        for (std::uint32_t attempt = 0; attempt < m_where.max_attempts; ++attempt) {
            auto cur = read_head(s);
            if (!cur) return cur.error();
            if (cur->trim >= new_trim) break;
            auto r = write_checked(s.head, detail::kv_ops(kv::op::write("trim", static_cast<std::int64_t>(new_trim))),
                                   cur->generation);
            if (r) break;
            if (r.error().code != status::generation_error) return r.error();
        }
    }
    return dropped;
}

} // namespace kvmodel::patterns::detail
#endif // KVMODEL_DEFINITIONS
