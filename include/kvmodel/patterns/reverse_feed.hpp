// kvmodel/patterns/reverse_feed.hpp
//
// Reverse-time feed (seed "time ticks in NoSQL table as a range key"): each
// post gets a tick, its key is MAX - tick, so ascending key order is newest
// first, and a page is an index range of a K-ordered map.
//
// Ticks: the seed used System.nanoTime(), which is not wall-clock time (its
// origin is arbitrary, per process) and so neither comparable across
// processes nor unique across threads. tick_source builds ticks from epoch
// milliseconds plus a tiebreaker:
//     tick = (ms since 2020-01-01 UTC) << 22 | node_id << 12 | sequence
// Guarantee: the ticks of one tick_source are unique and strictly increasing
// across all its threads (up to 4096 per millisecond; beyond that, or when
// the wall clock steps back, the source runs its own millisecond ahead of the
// clock rather than repeat a tick). Ticks of sources with DIFFERENT node ids
// (0..1023; give every process its own) never collide, and order across
// processes by wall time to within the clocks' skew.
//
// Storage: per owner and UTC day one record `owner:YYYYMMDD` holding a
// K-ordered map  MAX - tick -> post  (bin `feed`), and the owner's head
// record listing the days that have posts (bin `days`). A page reads the
// head and then one day record per day it spans: O(log n + k) per record,
// whatever the feed's total size. The next page starts after the cursor's
// key (a key-relative index range), so a cursor stays valid while new posts
// arrive and while old days are dropped.
//
// Posting: synchronously to the author's and each follower's feed (1 +
// followers writes in one batch, one round trip per node, each idempotent:
// a retry rewrites the same key), or
// through fan_out_queue, a bounded queue drained by worker threads (the
// seed's "message bus and worker"): submit() refuses when the queue is full
// (back-pressure), deliveries are retried on transient errors, and
// shutdown() delivers or reports every accepted post.
#pragma once

#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/kv/batch.hpp>
#include <kvmodel/kv/retry.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/patterns/bucketed_list.hpp>
#include <kvmodel/patterns/codec.hpp>
#include <kvmodel/patterns/detail/record_pattern.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// Unique, increasing ticks from wall-clock time plus a tiebreaker (see the
/// header comment). Thread-safe.
class tick_source {
public:
    /// Ticks count milliseconds from here: 2020-01-01T00:00:00Z.
    static constexpr std::int64_t epoch_ms = 1577836800000; // 2020-01-01T00:00:00Z
    /// The largest node id a tick can carry.
    static constexpr std::uint32_t max_node_id = 1023;

    /// A source for node `node_id` (0..1023) reading the system clock, or
    /// `clock` (ms since the Unix epoch) for tests and simulations.
    explicit tick_source(std::uint32_t node_id, std::int64_t (*clock)() = &system_ms)
        : m_node(node_id)
        , m_clock(clock) {
        KVMODEL_ASSERT(node_id <= max_node_id);
    }

    /// The next tick. Lock-free; never repeats.
    std::int64_t next() {
        std::int64_t now = std::max<std::int64_t>(m_clock() - epoch_ms, 0);
        std::uint64_t cur = m_state.load(std::memory_order_relaxed);
        for (;;) {
            auto ms = static_cast<std::int64_t>(cur >> 12);
            std::uint64_t seq = cur & 0xFFF;
            std::uint64_t next_state = now > ms ? static_cast<std::uint64_t>(now) << 12
                                       : seq < 0xFFF ? cur + 1
                                                     : static_cast<std::uint64_t>(ms + 1) << 12;
            if (m_state.compare_exchange_weak(cur, next_state, std::memory_order_relaxed)) {
                return static_cast<std::int64_t>(((next_state >> 12) << 22) |
                                                 (static_cast<std::uint64_t>(m_node) << 12) |
                                                 (next_state & 0xFFF));
            }
        }
    }

    /// The Unix milliseconds a tick was taken at.
    static std::int64_t time_of(std::int64_t tick) noexcept { return (tick >> 22) + epoch_ms; }
    /// The node id in a tick.
    static std::uint32_t node_of(std::int64_t tick) noexcept {
        return static_cast<std::uint32_t>((tick >> 12) & 0x3FF);
    }
    /// The feed key of a tick: ascending keys are newest first.
    static std::int64_t reverse_key(std::int64_t tick) noexcept {
        return std::numeric_limits<std::int64_t>::max() - tick;
    }

    /// The system clock in Unix milliseconds (the default clock).
    static std::int64_t system_ms() {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    }

private:
    std::uint32_t m_node;
    std::int64_t (*m_clock)();
    std::atomic<std::uint64_t> m_state{0}; // ms since epoch_ms << 12 | sequence
};

/// One feed entry.
template <encodable T>
struct feed_post {
    /// Its tick (unique, increasing); the feed key is MAX - tick.
    std::int64_t tick = 0;
    /// Who posted it.
    std::string author;
    /// What was posted.
    T content{};
    /// Field by field.
    friend bool operator==(const feed_post&, const feed_post&) = default;
};

/// A reverse-time feed per owner: posts keyed MAX - tick in one record per owner and
/// UTC day, pages newest first with cursors. A delivery is one operate (two on a
/// day's first post), idempotent; a page reads the owner's head and one record
/// per day it spans. Errors: the store's; PARAMETER_ERROR for a malformed cursor
/// or an undecodable stored post.
template <kv::kv_store Store, encodable T>
class reverse_feed {
public:
    /// A post of this feed.
    using post_type = feed_post<T>;

    /// A page of posts and the cursor of the next one.
    struct page {
        std::vector<post_type> items; ///< newest first
        /// The next page's cursor; nullopt at the end.
        std::optional<std::string> next;
    };

    /// Feeds in (ns, set), ticks from `ticks`; keeps references to both.
    reverse_feed(Store& store, tick_source& ticks, std::string ns = "test", std::string set = "feeds")
        : m_store(&store)
        , m_ticks(&ticks)
        , m_ns(std::move(ns))
        , m_set(std::move(set)) {}

    /// The store the feed writes to.
    Store& store() const noexcept { return *m_store; }

    /// A new post by `author` (not yet delivered anywhere).
    post_type make_post(std::string author, T content) const {
        return post_type{m_ticks->next(), std::move(author), std::move(content)};
    }

    /// Writes the post into one feed: one operate (two on the first post of
    /// a day, or when the post was there already). Idempotent: delivering the
    /// same post again changes nothing.
    result<void> deliver(const std::string& owner, const post_type& p) const {
        if (p.author.empty()) return fail(status::parameter_error, "reverse_feed: a post needs an author");
        const std::int64_t day = utc_day(tick_source::time_of(p.tick));
        auto r = detail::operate(*m_store, day_key(owner, day), feed_ops(p), kv::write_policy{});
        if (!r) return r.error();
        if (joins_head(*r)) {
            auto d = detail::operate(*m_store, head_key(owner), head_ops(day), kv::write_policy{});
            // The post is in the feed already: the call is in doubt.
            if (!d) return kv::after_applied(d.error());
        }
        return {};
    }

    /// Synchronous fan-out: deliver() to the author's feed and every
    /// follower's (an owner listed twice gets it once), as one batch of feed
    /// writes (one round trip per node) and then, for the feeds whose day
    /// must join their owner's head, one batch of head writes (after the
    /// feeds, as deliver() orders them). Returns the post; on an error the
    /// feeds written keep it (re-deliver: idempotent), and the error is in
    /// doubt once any feed was written.
    result<post_type> post(const std::string& author, T content, const std::vector<std::string>& followers) const {
        post_type p = make_post(author, std::move(content));
        if (p.author.empty()) return fail(status::parameter_error, "reverse_feed: a post needs an author");
        std::vector<std::string> owners(followers);
        owners.push_back(author);
        std::sort(owners.begin(), owners.end());
        owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
        const std::int64_t day = utc_day(tick_source::time_of(p.tick));
        const std::vector<kv::operation> ops = feed_ops(p);
        std::vector<kv::batch_record> feeds;
        for (const std::string& o : owners) feeds.push_back(kv::batch_record::write(day_key(o, day), ops, kv::write_policy{}));
        const auto written = kv::batch_operate(*m_store, std::span<const kv::batch_record>(feeds));
        bool applied = false;
        std::optional<error> failed;
        std::vector<kv::batch_record> heads;
        for (std::size_t i = 0; i < written.size(); ++i) {
            if (!written[i]) {
                if (!failed) failed = written[i].error();
                continue;
            }
            applied = true;
            if (joins_head(*written[i]))
                heads.push_back(kv::batch_record::write(head_key(owners[i]), head_ops(day), kv::write_policy{}));
        }
        if (!heads.empty())
            for (const auto& h : kv::batch_operate(*m_store, std::span<const kv::batch_record>(heads)))
                if (!h && !failed) failed = h.error();
        if (failed) return kv::after_step(applied, *std::move(failed));
        return p;
    }

    /// The owner's newest n posts after `cursor`, newest first.
    result<page> newest(const std::string& owner, std::size_t n,
                        const std::optional<std::string>& cursor = std::nullopt) const {
        page out;
        if (n == 0) return out;
        std::optional<std::pair<std::int64_t, std::int64_t>> from; // day, reverse key
        if (cursor) {
            auto c = parse_cursor(*cursor);
            if (!c) return c.error();
            from = *c;
        }
        auto head = m_store->get(head_key(owner), kv::read_policy{});
        if (!head) {
            if (head.error().code == status::record_not_found) return out;
            return head.error();
        }
        std::vector<std::int64_t> days;
        const value d = head->value_of("days");
        if (d.is_list())
            for (const value& x : d.as_list())
                if (x.is_int()) days.push_back(x.as_int());
        std::sort(days.begin(), days.end(), std::greater<>());
        for (std::int64_t day : days) {
            if (from && day > from->first) continue;
            auto want = static_cast<std::int64_t>(n - out.items.size());
            cdt::op o = from && day == from->first
                            ? cdt::map_ops::get_by_key_rel_index_range(from->second, 1, want,
                                                                       cdt::return_type::key_value)
                            : cdt::map_ops::get_by_index_range(0, want, cdt::return_type::key_value);
            auto r = detail::operate(*m_store, day_key(owner, day), {kv::op::cdt("feed", std::move(o))}, kv::write_policy{});
            if (!r) {
                if (r.error().code == status::record_not_found) continue; // dropped day
                return r.error();
            }
            auto pairs = detail::decode_pairs<std::int64_t, value>(r->results.front(), "reverse_feed");
            if (!pairs) return pairs.error();
            for (auto& [rk, v] : *pairs) {
                auto p = decode_post(v);
                if (!p) return p.error();
                out.items.push_back(std::move(*p));
                if (out.items.size() == n) {
                    out.next = "f1." + std::to_string(day) + "." + std::to_string(rk);
                    return out;
                }
            }
        }
        return out;
    }

    /// Drops whole days older than `before_day` (YYYYMMDD) from the owner's
    /// feed; returns how many days went. Three round trips whatever the
    /// number of days: read the head, ONE batch removing the day records,
    /// one operate taking the removed days out of the head. Resend after a
    /// failure: a day whose record is gone but still listed is skipped by
    /// newest() and dropped again (not found counts as removed).
    result<std::size_t> drop_days_before(const std::string& owner, std::int64_t before_day) const {
        auto head = m_store->get(head_key(owner), kv::read_policy{});
        if (!head) return head.error().code == status::record_not_found ? result<std::size_t>(std::size_t{0}) : head.error();
        const value d = head->value_of("days");
        if (!d.is_list()) return std::size_t{0};
        std::vector<kv::batch_record> batch;
        std::vector<value> days;
        for (const value& x : d.as_list()) {
            if (!x.is_int() || x.as_int() >= before_day) continue;
            batch.push_back(kv::batch_record::remove(day_key(owner, x.as_int()), kv::write_policy{}));
            days.push_back(x);
        }
        if (batch.empty()) return std::size_t{0};
        const auto res = kv::batch_operate(*m_store, std::span<const kv::batch_record>(batch));
        std::vector<value> gone;
        std::optional<error> failed;
        for (std::size_t i = 0; i < res.size(); ++i) {
            if (res[i] || res[i].error().code == status::record_not_found) gone.push_back(days[i]);
            else if (!failed) failed = res[i].error();
        }
        if (!gone.empty()) {
            auto u = detail::operate(
                *m_store, head_key(owner),
                {kv::op::cdt("days", cdt::list_ops::remove_by_value_list(gone,
                                                                         cdt::return_type::none))},
                kv::write_policy{});
            if (!u) return u.error();
        }
        if (failed) return *failed;
        return gone.size();
    }

private:
    // A feed write: whether the post was there, then the put (the map's size).
    static std::vector<kv::operation> feed_ops(const post_type& p) {
        const std::int64_t rkey = tick_source::reverse_key(p.tick);
        value entry{list{p.tick, p.author, codec<T>::encode(p.content)}};
        return {kv::op::cdt("feed", cdt::map_ops::get_by_key(rkey, cdt::return_type::count)),
                kv::op::cdt("feed", cdt::map_ops::put(rkey, entry, cdt::map_ops::policy(map_order::key_ordered)))};
    }
    // Whether a feed write's day joins the owner's head: on its first post,
    // and on a re-delivery: an earlier attempt may have written the post and
    // then failed (a timeout in doubt, a writer that died) before indexing
    // the day, while other posts made this one no longer the first. Every
    // 64th post re-adds it too, for a re-delivery that never comes.
    static bool joins_head(const kv::record& written) {
        const value& existed = written.results.front();
        const value& size = written.results.back();
        const bool again = existed.is_int() && existed.as_int() != 0;
        return again || (size.is_int() && size.as_int() % 64 == 1);
    }
    static std::vector<kv::operation> head_ops(std::int64_t day) {
        cdt::list_policy p_days;
        p_days.order = list_order::ordered;
        p_days.flags = cdt::list_write_flags::add_unique | cdt::list_write_flags::no_fail;
        return {kv::op::cdt("days", cdt::list_ops::append(day, p_days))};
    }

    kv::key head_key(const std::string& owner) const { return kv::key(m_ns, m_set, owner); }
    kv::key day_key(const std::string& owner, std::int64_t day) const {
        return kv::key(m_ns, m_set, owner + ":" + std::to_string(day));
    }

    static result<std::pair<std::int64_t, std::int64_t>> parse_cursor(const std::string& c) {
        auto bad = [&] { return error{status::parameter_error, "reverse_feed: malformed cursor '" + c + "'"}; };
        if (c.rfind("f1.", 0) != 0) return bad();
        auto dot = c.find('.', 3);
        if (dot == std::string::npos) return bad();
        try {
            std::size_t used = 0;
            std::int64_t day = std::stoll(c.substr(3, dot - 3), &used);
            if (used != dot - 3) return bad();
            std::int64_t rk = std::stoll(c.substr(dot + 1), &used);
            if (used != c.size() - dot - 1) return bad();
            return std::pair{day, rk};
        } catch (const std::exception&) {
            return bad();
        }
    }

    static result<post_type> decode_post(const value& v) {
        if (!v.is_list() || v.as_list().size() != 3 || !v.as_list()[0].is_int() || !v.as_list()[1].is_string())
            return error{status::parameter_error, "reverse_feed: malformed post " + to_string(v)};
        auto content = codec<T>::decode(v.as_list()[2]);
        if (!content) return content.error();
        return post_type{v.as_list()[0].as_int(), v.as_list()[1].as_string(), std::move(content).value()};
    }

    Store* m_store;
    tick_source* m_ticks;
    std::string m_ns;
    std::string m_set;
};

/// Asynchronous fan-out: a bounded queue of deliveries drained by worker
/// threads. The feed (and its store) must outlive the queue.
template <kv::kv_store Store, encodable T>
class fan_out_queue {
public:
    /// The feed it delivers to.
    using feed_type = reverse_feed<Store, T>;
    /// A post of that feed.
    using post_type = typename feed_type::post_type;

    /// A delivery that failed for good.
    struct failure {
        /// Whose feed.
        std::string owner;
        /// The post.
        post_type post;
        /// The last error.
        error err;
    };
    /// What shutdown() reports: every accepted delivery is in one of the two.
    struct report {
        /// Deliveries that succeeded.
        std::uint64_t delivered = 0;
        /// Deliveries that failed for good.
        std::vector<failure> failed;
    };
    /// What submit() did: queued, refused (queue full: back-pressure), or refused after shutdown().
    enum class submit_status : std::uint8_t { accepted, queue_full, shut_down };

    /// A queue of at most `capacity` deliveries, drained by `workers` threads, each
    /// delivery tried up to `max_attempts` times on transient errors
    /// (kv::is_transient), paced by `retry` (on the store's clock when it has
    /// one: see kv::retry_timing); a failure reported in doubt may have been
    /// delivered.
    fan_out_queue(const feed_type& feed, std::size_t capacity, std::size_t workers = 2,
                  std::uint32_t max_attempts = 5, kv::retry_policy retry = {})
        : m_feed(&feed)
        , m_capacity(capacity)
        , m_max_attempts(max_attempts)
        , m_retry(kv::retry_timing(feed.store(), std::move(retry))) {
        KVMODEL_ASSERT(capacity > 0 && workers > 0 && max_attempts > 0);
        for (std::size_t i = 0; i < workers; ++i) m_workers.emplace_back([this] { work(); });
    }
    fan_out_queue(const fan_out_queue&) = delete;
    fan_out_queue& operator=(const fan_out_queue&) = delete;
    ~fan_out_queue() { (void)shutdown(); }

    /// Queues the post for each follower — all or none: queue_full when the
    /// queue cannot take them all (back-pressure: the caller retries later
    /// or posts synchronously).
    submit_status submit(const post_type& p, const std::vector<std::string>& followers) {
        std::lock_guard lock(m_mutex);
        if (m_stopping) return submit_status::shut_down;
        if (m_queue.size() + followers.size() > m_capacity) return submit_status::queue_full;
        for (const std::string& f : followers) m_queue.push_back(job{f, p});
        m_wake.notify_all();
        return submit_status::accepted;
    }

    /// Stops accepting, delivers everything queued, joins the workers and
    /// reports. Later calls return an empty report.
    report shutdown() {
        {
            std::lock_guard lock(m_mutex);
            if (m_stopping && m_workers.empty()) return {};
            m_stopping = true;
            m_wake.notify_all();
        }
        for (std::thread& t : m_workers) t.join();
        m_workers.clear();
        std::lock_guard lock(m_mutex);
        return std::exchange(m_report, report{});
    }

    /// Deliveries accepted and not yet done.
    std::size_t pending() const {
        std::lock_guard lock(m_mutex);
        return m_queue.size();
    }

private:
    struct job {
        std::string owner;
        post_type post;
    };

    void work() {
        for (;;) {
            job j;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
                if (m_queue.empty()) return; // stopping and drained
                j = std::move(m_queue.front());
                m_queue.pop_front();
            }
            result<void> r = kv::retry(m_retry, m_max_attempts, kv::step_kind::write,
                                       [&] { return m_feed->deliver(j.owner, j.post); });
            std::lock_guard lock(m_mutex);
            if (r) ++m_report.delivered;
            else m_report.failed.push_back(failure{std::move(j.owner), std::move(j.post), r.error()});
        }
    }

    const feed_type* m_feed;
    std::size_t m_capacity;
    std::uint32_t m_max_attempts;
    kv::retry_policy m_retry;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<job> m_queue;
    bool m_stopping = false;
    report m_report;
    std::vector<std::thread> m_workers;
};

} // namespace kvmodel::patterns
