// kvmodel/patterns/activity_stream.hpp
//
// Activity streams (seed "Data Modeling Part 5: Bucketing"): messages
// {from, to[], sent_ts, body} and each user's view of them, newest first, in
// the seed's three patterns plus its "store the body once" variant:
//
//   fan_out_on_read   one record per message (the sender's outbox); a
//                     reader finds received messages with a secondary-index
//                     query on the `to` list — a scatter-gather over every
//                     node (its cost shows in the simulator's stats).
//                     Post: 1 write. Inbox: 1 query (one round trip per node).
//   fan_out_on_write  each recipient's and the sender's inbox record holds
//                     the message. Post: 1 + |to| writes in one batch (one
//                     round trip per node touched). Inbox page: 1 read.
//                     Bounded by max-record-size.
//   bucketed_fan_out  inboxes as bucketed lists (patterns/bucketed_list.hpp):
//                     unbounded. Post: 2 writes per inbox. Inbox page: 2.
//   by_reference      the message stored once in its own record; inboxes hold
//                     only references (sent time, id). Post: 1 + (1 + |to|)
//                     small writes. Inbox page: 1 read + 1 batch read.
//
// Fixes to the seed: posting never modifies the caller's recipient list, and
// an inbox read reads the asked user's record (the seed's get_inbox_fanout
// always read Jane's). Inboxes are maps keyed by sent time and message id
// (one string, see detail::inbox_key), not lists: a retried post (after a timeout) rewrites the same entry instead of
// adding a duplicate, and a cursor (the last key seen) stays valid while new
// messages arrive, since the next page is a key-relative index range.
// A post that fails after one of its writes succeeded returns an error in
// doubt (kv/retry.hpp): some inboxes may have it; post it again with the
// same message id (set message::id before the first post) to finish it.
#pragma once

#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/kv/batch.hpp>
#include <kvmodel/kv/retry.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/patterns/bucketed_list.hpp>
#include <kvmodel/patterns/codec.hpp>
#include <kvmodel/patterns/detail/record_pattern.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// A message of an activity stream.
struct message {
    std::string id; ///< unique; post() fills it in when empty
    /// The sender.
    std::string from;
    /// The recipients (post() never modifies the caller's list).
    std::vector<std::string> to;
    /// When it was sent (the inbox order; seconds or ms, the caller's choice).
    std::int64_t sent_ts = 0;
    /// The text.
    std::string body;

    /// Field by field.
    friend bool operator==(const message&, const message&) = default;
};

/// Stores a message as the map {id, from, to, sent_ts, body}.
template <>
struct codec<message> {
    /// The message as a map.
    static value encode(const message& m) {
        list to;
        for (const auto& r : m.to) to.push_back(r);
        return value{map{{"id", m.id}, {"from", m.from}, {"to", value{std::move(to)}},
                         {"sent_ts", m.sent_ts}, {"body", m.body}}};
    }
    /// PARAMETER_ERROR unless v is such a map.
    static result<message> decode(const value& v) {
        if (!v.is_map()) return detail::decode_error("message map", v);
        const map& m = v.as_map();
        const value* id = m.get("id");
        const value* from = m.get("from");
        const value* to = m.get("to");
        const value* ts = m.get("sent_ts");
        const value* body = m.get("body");
        if (id == nullptr || !id->is_string() || from == nullptr || !from->is_string() || to == nullptr ||
            !to->is_list() || ts == nullptr || !ts->is_int() || body == nullptr || !body->is_string())
            return detail::decode_error("message {id, from, to, sent_ts, body}", v);
        message out{id->as_string(), from->as_string(), {}, ts->as_int(), body->as_string()};
        for (const value& r : to->as_list()) {
            if (!r.is_string()) return detail::decode_error("recipient string", r);
            out.to.push_back(r.as_string());
        }
        return out;
    }
};

/// A page of an inbox, newest first, and the cursor of the next page.
struct inbox_page {
    /// Newest first.
    std::vector<message> items;
    std::optional<std::string> next; ///< opaque; nullopt at the end
};

namespace detail {

/// A fresh message id: sender, timestamp and 64 random bits.
inline std::string new_message_id(const message& m) {
    static constexpr char hex[] = "0123456789abcdef";
    std::uint64_t r = kv::detail::random_bits();
    std::string s = m.from + ":" + std::to_string(m.sent_ts) + ":";
    for (int i = 0; i < 16; ++i) s += hex[(r >> (4 * i)) & 15];
    return s;
}

/// Everyone a message is delivered to: the recipients and the sender, each once.
inline std::vector<std::string> audience(const message& m) {
    std::vector<std::string> out = m.to;
    out.push_back(m.from);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

inline result<void> check_message(const message& m) {
    if (m.from.empty()) return fail(status::parameter_error, "post: a message needs a sender");
    if (m.sent_ts < 0)
        return fail(status::parameter_error, "post: sent_ts " + std::to_string(m.sent_ts) + " is negative");
    for (const auto& r : m.to)
        if (r.empty()) return fail(status::parameter_error, "post: an empty recipient name");
    return {};
}

/// Inbox map key: the sent time as 20 zero-padded digits, a dot, the id —
/// a string (Aerospike map keys are scalars) whose byte order is time order.
inline value inbox_key(const message& m) {
    std::string ts = std::to_string(m.sent_ts);
    return value{std::string(20 - ts.size(), '0') + ts + "." + m.id};
}

/// Cursor tokens of map-keyed inboxes are the last key seen.
inline std::string cursor_of(const value& key) { return key.as_string(); }
inline result<value> parse_cursor(const std::string& c) {
    bool ok = c.size() > 21 && c[20] == '.';
    for (std::size_t i = 0; ok && i < 20; ++i) ok = c[i] >= '0' && c[i] <= '9';
    if (!ok) return fail(status::parameter_error, "inbox: malformed cursor '" + c + "'");
    return value{c};
}

/// The newest page of a map-keyed inbox before `cursor`: one operate.
template <kv::kv_store Store>
result<std::vector<std::pair<value, value>>> map_page(Store& store, const kv::key& k, const std::string& bin,
                                                      std::size_t n, const std::optional<std::string>& cursor,
                                                      const kv::write_policy& wp) {
    auto sn = static_cast<std::int64_t>(n);
    cdt::op o = cdt::map_ops::get_by_index_range(-sn, sn, cdt::return_type::key_value);
    if (cursor) {
        auto anchor = parse_cursor(*cursor);
        if (!anchor) return anchor.error();
        // The n keys just below the cursor's: anchor index - n .. anchor index.
        o = cdt::map_ops::get_by_key_rel_index_range(*anchor, -sn, sn, cdt::return_type::key_value);
    }
    auto r = detail::operate(store, k, {kv::op::cdt(bin, std::move(o))}, wp);
    std::vector<std::pair<value, value>> out;
    if (!r) {
        if (r.error().code == status::record_not_found) return out;
        return r.error();
    }
    auto pairs = decode_pairs<value, value>(r->results.front(), "inbox");
    if (!pairs) return pairs.error();
    // Key order is oldest first; a page is newest first.
    std::reverse(pairs->begin(), pairs->end());
    return std::move(*pairs);
}

} // namespace detail

// ------------------------------------------------------------ fan out on write

/// Fan out on write: the message is written into the inbox of each recipient
/// and of the sender.
template <kv::kv_store Store>
class fan_out_on_write {
public:
    /// Inboxes in `where` (default: set "inboxes", bin "stream"), one record per user.
    explicit fan_out_on_write(Store& store, record_location where = {.set = "inboxes", .bin = "stream"})
        : m_store(&store)
        , m_where(std::move(where)) {}

    /// Posts m; returns it with its id. Writes 1 + |to| records in one
    /// kv::batch_operate (one round trip per node on a store with batch
    /// writes, else one operate each); a bad user key fails before anything
    /// is written. The first failed inbox is the error, in doubt when
    /// another inbox took the message; retrying a failed post with the
    /// returned id is idempotent.
    result<message> post(message m) const {
        if (auto ok = detail::check_message(m); !ok) return ok.error();
        if (m.id.empty()) m.id = detail::new_message_id(m);
        value key = detail::inbox_key(m);
        value body = codec<message>::encode(m);
        std::vector<kv::batch_record> batch;
        for (const std::string& user : detail::audience(m)) {
            auto k = kv::key::make(m_where.ns, m_where.set, user);
            if (!k) return k.error();
            batch.push_back(kv::batch_record::write(
                std::move(k).value(),
                {kv::op::cdt(m_where.bin,
                             cdt::map_ops::put(key, body, cdt::map_ops::policy(map_order::key_ordered)))},
                m_where.write));
        }
        const std::vector<result<kv::record>> rs = kv::batch_operate(*m_store, batch);
        const bool applied = std::any_of(rs.begin(), rs.end(), [](const result<kv::record>& r) { return r.has_value(); });
        for (const result<kv::record>& r : rs)
            if (!r) return kv::after_step(applied, r.error());
        return m;
    }

    /// The user's newest n messages before `cursor`, newest first. One read.
    result<inbox_page> inbox(const std::string& user, std::size_t n,
                             const std::optional<std::string>& cursor = std::nullopt) const {
        inbox_page page;
        if (n == 0) return page;
        auto k = kv::key::make(m_where.ns, m_where.set, user);
        if (!k) return k.error();
        auto got = detail::map_page(*m_store, *k, m_where.bin, n, cursor, m_where.write);
        if (!got) return got.error();
        for (auto& [key, v] : *got) {
            auto m = codec<message>::decode(v);
            if (!m) return m.error();
            page.items.push_back(std::move(*m));
        }
        if (page.items.size() == n) page.next = detail::cursor_of(got->back().first);
        return page;
    }

private:
    Store* m_store;
    record_location m_where;
};

// ------------------------------------------------------------- fan out on read

/// Fan out on read: one record per message; inboxes are secondary-index
/// queries on the `to` list (a list collection index on strings).
template <kv::kv_queryable Store>
class fan_out_on_read {
public:
    /// Messages in (ns, set), one record per message; setup() creates the index the inbox query needs.
    /// `write` is the policy of each post's write (its max_retries is the client's retry of a
    /// transient status: DEVICE_OVERLOAD, a timeout...).
    explicit fan_out_on_read(Store& store, std::string ns = "test", std::string set = "outbox",
                             kv::write_policy write = {})
        : m_store(&store)
        , m_ns(std::move(ns))
        , m_set(std::move(set))
        , m_write(std::move(write)) {}

    /// Creates the indexes on `to` (list elements) and `from`; an index that
    /// exists already is fine.
    result<void> setup() const {
        for (auto ix : {kv::index_spec{m_ns, m_set, "to", m_set + "_to", kv::index_type::string,
                                       kv::index_collection::list},
                        kv::index_spec{m_ns, m_set, "from", m_set + "_from", kv::index_type::string,
                                       kv::index_collection::none}}) {
            auto r = m_store->create_index(ix);
            if (!r && r.error().code != status::index_found) return r;
        }
        return {};
    }

    /// Posts m: ONE write, the message's own record in the sender's outbox.
    result<message> post(message m) const {
        if (auto ok = detail::check_message(m); !ok) return ok.error();
        if (m.id.empty()) m.id = detail::new_message_id(m);
        list to;
        for (const auto& r : m.to) to.push_back(r);
        kv::key k(m_ns, m_set, m.id);
        auto r = detail::operate(*m_store, k,
                                  {kv::op::write("from", m.from), kv::op::write("to", value{std::move(to)}),
                                   kv::op::write("sent_ts", m.sent_ts), kv::op::write("body", m.body),
                                   kv::op::write("id", m.id)},
                                  m_write);
        if (!r) return r.error();
        return m;
    }

    /// Messages the user received or sent, newest first, n per page: two
    /// index queries, each a scatter-gather over every node.
    result<inbox_page> inbox(const std::string& user, std::size_t n,
                             const std::optional<std::string>& cursor = std::nullopt) const {
        inbox_page page;
        if (n == 0) return page;
        std::vector<message> all;
        std::set<std::string> seen;
        for (auto f : {kv::filter::equal("to", user, kv::index_collection::list), kv::filter::equal("from", user)}) {
            kv::query_request q{m_ns, m_set, {}, f, 0};
            auto rs = m_store->query(q, kv::read_policy{});
            if (!rs) return rs.error();
            for (const kv::keyed_record& kr : *rs) {
                auto m = from_record(kr.rec);
                if (!m) return m.error();
                if (seen.insert(m->id).second) all.push_back(std::move(*m));
            }
        }
        std::sort(all.begin(), all.end(), [](const message& a, const message& b) {
            return a.sent_ts != b.sent_ts ? a.sent_ts > b.sent_ts : a.id > b.id;
        });
        std::optional<value> anchor;
        if (cursor) {
            auto a = detail::parse_cursor(*cursor);
            if (!a) return a.error();
            anchor = *a;
        }
        for (const message& m : all) {
            if (anchor && compare(detail::inbox_key(m), *anchor) >= 0) continue;
            if (page.items.size() == n) {
                page.next = detail::cursor_of(detail::inbox_key(page.items.back()));
                break;
            }
            page.items.push_back(m);
        }
        return page;
    }

private:
    static result<message> from_record(const kv::record& r) {
        map m;
        for (const char* b : {"id", "from", "to", "sent_ts", "body"}) m.put(b, r.value_of(b));
        return codec<message>::decode(value{std::move(m)});
    }

    Store* m_store;
    std::string m_ns;
    std::string m_set;
    kv::write_policy m_write;
};

// --------------------------------------------------- fan out on write, bucketed

/// Fan out on write with bucketing: each inbox is a bucketed list, so it is
/// unbounded; the cursor is the bucketed list's.
template <kv::kv_store Store>
class bucketed_fan_out {
public:
    /// Inboxes as bucketed lists (bucketed_list.hpp) of `scheme`, in `where`.
    bucketed_fan_out(Store& store, bucket_scheme scheme, bucketed_location where = {.head_set = "inbox_heads",
                                                                                   .bucket_set = "inbox_buckets"})
        : m_list(store, scheme, std::move(where)) {}

    /// Posts m into every inbox: one bucketed_list append per inbox, under
    /// the message id as its append id. Posting the same message again -
    /// after an error part way through, say - leaves it once in each inbox
    /// it had reached, as long as fewer than the location's claim_window
    /// other messages have arrived there since (an inbox's claims forget
    /// older ids; the map-keyed inboxes never forget). A message id is at
    /// most bucketed_list's max_append_id_bytes, else PARAMETER_ERROR.
    result<message> post(message m) {
        if (auto ok = detail::check_message(m); !ok) return ok.error();
        if (m.id.empty()) m.id = detail::new_message_id(m);
        bool applied = false; // an inbox has it: a later error is in doubt
        for (const std::string& user : detail::audience(m)) {
            auto r = m_list.append(user, m, m.sent_ts, m.id);
            if (!r) return kv::after_step(applied, r.error());
            applied = true;
        }
        return m;
    }

    /// The user's newest n messages, newest first (in arrival order).
    result<inbox_page> inbox(const std::string& user, std::size_t n,
                             const std::optional<std::string>& cursor = std::nullopt) const {
        std::optional<bucket_cursor> from;
        if (cursor) {
            auto c = bucket_cursor::parse(*cursor);
            if (!c) return c.error();
            from = *c;
        }
        auto p = m_list.newest(user, n, from);
        if (!p) return p.error();
        inbox_page page;
        for (auto& e : p->items) page.items.push_back(std::move(e.item));
        if (p->next) page.next = p->next->token();
        return page;
    }

    /// The bucketed list behind the inboxes (for its cursors, sizes and tests).
    const bucketed_list<Store, message>& list() const noexcept { return m_list; }

private:
    bucketed_list<Store, message> m_list;
};

// ------------------------------------------------------------------ by reference

/// Store the body once, fan out its key: the message lives in one record;
/// inboxes hold its key only, so a large body is written once.
template <kv::kv_store Store>
class fan_out_by_reference {
public:
    /// Messages stored once in (ns, message_set); inboxes of references in (ns, inbox_set).
    /// `write` is the policy of each post's writes (its max_retries is the client's retry of
    /// a transient status: DEVICE_OVERLOAD, a timeout...).
    explicit fan_out_by_reference(Store& store, std::string ns = "test", std::string message_set = "messages",
                                  std::string inbox_set = "inbox_refs", kv::write_policy write = {})
        : m_store(&store)
        , m_ns(std::move(ns))
        , m_messages(std::move(message_set))
        , m_inboxes(std::move(inbox_set))
        , m_write(std::move(write)) {}

    /// Writes the message once, then its key into every inbox.
    result<message> post(message m) const {
        if (auto ok = detail::check_message(m); !ok) return ok.error();
        if (m.id.empty()) m.id = detail::new_message_id(m);
        kv::key mk(m_ns, m_messages, m.id);
        auto w = detail::operate(*m_store, mk, {kv::op::write("msg", codec<message>::encode(m))}, m_write);
        if (!w) return w.error();
        value key = detail::inbox_key(m);
        for (const std::string& user : detail::audience(m)) {
            auto k = kv::key::make(m_ns, m_inboxes, user);
            // The message record is written: a later error is in doubt.
            if (!k) return kv::after_applied(k.error());
            auto r = detail::operate(*m_store, *k,
                                      {kv::op::cdt("refs", cdt::map_ops::put(key, true,
                                                                             cdt::map_ops::policy(map_order::key_ordered)))},
                                      m_write);
            if (!r) return kv::after_applied(r.error());
        }
        return m;
    }

    /// One read of the user's references, one batch read of the bodies.
    result<inbox_page> inbox(const std::string& user, std::size_t n,
                             const std::optional<std::string>& cursor = std::nullopt) const {
        inbox_page page;
        if (n == 0) return page;
        auto k = kv::key::make(m_ns, m_inboxes, user);
        if (!k) return k.error();
        auto refs = detail::map_page(*m_store, *k, "refs", n, cursor, kv::write_policy{});
        if (!refs) return refs.error();
        std::vector<kv::key> keys;
        for (const auto& [key, v] : *refs) keys.emplace_back(m_ns, m_messages, key.as_string().substr(21));
        auto bodies = kv::batch_get(*m_store, std::span<const kv::key>(keys), kv::read_policy{});
        for (auto& b : bodies) {
            if (!b) {
                if (b.error().code == status::record_not_found) continue; // deleted since
                return b.error();
            }
            auto m = codec<message>::decode(b->value_of("msg"));
            if (!m) return m.error();
            page.items.push_back(std::move(*m));
        }
        if (refs->size() == n) page.next = detail::cursor_of(refs->back().first);
        return page;
    }

private:
    Store* m_store;
    std::string m_ns;
    std::string m_messages;
    std::string m_inboxes;
    kv::write_policy m_write;
};

} // namespace kvmodel::patterns
