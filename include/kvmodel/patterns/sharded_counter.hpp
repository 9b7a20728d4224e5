// kvmodel/patterns/sharded_counter.hpp
//
// Sharded hot counter (seed "Counter Examples: Hot Counters"): a counter that
// takes more concurrent increments than one record accepts (Aerospike answers
// KEY_BUSY past transaction-pending-limit) is split into N shard records
// `name#0 .. name#N-1`. An increment goes to one shard — a random one, or one
// fixed per thread — and total() sums a batch read of every shard. The shard
// count lives in a head record `name` and can change at any time: the head
// also keeps the largest count ever used, and reads cover that many shards,
// so nothing counted in a retired shard is lost.
//
// Exactly once: each increment carries a token (writer id, sequence) that the
// same operate() puts into the shard's token map with CREATE_ONLY, after
// removing the writer's older tokens. A timeout whose write may have applied
// (in doubt) is resent to the SAME shard with the SAME token: ELEMENT_EXISTS
// then means the first copy was counted, success means it was not — so a
// timed-out increment ends counted once or reported, never doubled. KEY_BUSY
// and the other transient failures that were not in doubt were not applied
// and are retried (KEY_BUSY on another shard), paced by options.retry
// (kv/retry.hpp); an increment that fails after a send in doubt is reported
// in doubt, whatever its last send met. The store's own retry loop is
// switched off for increments (max_retries = 0): a blind resend of an add
// could count twice.
// Writers are threads: the token map holds one entry per thread that ever
// incremented the shard (one 16-byte key and an int), and a thread must not
// increment the same counter concurrently with itself (it cannot).
//
// Cost: an increment is one operate() on one shard record (plus one per
// resend); total() is one head read and one batch read of max-shards keys.
// Departure from the seed: the seed reads a shard, compares it with a cap and
// increments it in a second command — a race; increment() here is one atomic
// command and never reads first.
#pragma once

#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/retry.hpp>
#include <kvmodel/kv/store.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// Which shard an increment goes to.
enum class shard_choice : std::uint8_t {
    random,    ///< a uniformly random shard per increment (spreads best)
    per_thread ///< one shard per thread (a thread's increments never contend with each other)
};

/// Where a sharded counter lives, its bins, shards and retries.
struct sharded_counter_options {
    /// The namespace.
    std::string ns = "test";
    /// The set of the head and the shards.
    std::string set = "counters";
    /// The count in each shard record.
    std::string bin = "c";
    /// The token map in each shard record (writer → latest token).
    std::string tokens_bin = "t";
    /// Head record bins: the current and the largest shard count.
    std::string shards_bin = "shards";
    /// Head record bin: the largest shard count ever used (reads cover that many).
    std::string max_shards_bin = "max";
    /// Shards used until the head record says otherwise (1 .. 4096).
    std::uint32_t shards = 8;
    /// How an increment picks its shard.
    shard_choice choice = shard_choice::random;
    /// Sends per increment, resends included (>= 1).
    std::uint32_t max_attempts = 8;
    /// Backoff between sends and the time budget of an increment.
    kv::retry_policy retry{};
    /// Policy of the increments (its max_retries is ignored: resends are the counter's own).
    kv::write_policy write{};
    /// Policy of the reads.
    kv::read_policy read{};
};

/// What one increment took.
struct increment_report {
    /// The shard that counted it.
    std::uint32_t shard = 0;
    /// Commands sent (1 = no resend).
    std::uint32_t attempts = 0;
    /// KEY_BUSY answers on the way.
    std::uint32_t key_busy = 0;
    /// Timeouts on the way, and how many of them were in doubt.
    std::uint32_t timeouts = 0;
    /// Of the timeouts, those in doubt (the write may have applied).
    std::uint32_t in_doubt = 0;
    /// The increment was found already counted by a resend (its first copy
    /// applied, but the answer was lost).
    bool counted_by_earlier_send = false;
};

/// A hot counter split over N shard records: an increment is one operate on one
/// shard, exactly once (a token per increment makes resends safe), total() sums a
/// batch read. Errors: the store's after max_attempts sends; a TIMEOUT with
/// error::in_doubt when the last send's fate is unknown.
template <kv::kv_store Store>
class sharded_counter {
public:
    /// The largest shard count.
    static constexpr std::uint32_t max_shard_count = 4096;

    /// A counter named `name`. shards outside 1..4096 or max_attempts 0 are a
    /// broken precondition (KVMODEL_ASSERT).
    sharded_counter(Store& store, std::string name, sharded_counter_options options = {})
        : m_store(&store)
        , m_name(std::move(name))
        , m_opt(std::move(options))
        , m_shards(m_opt.shards) {
        m_opt.retry = kv::retry_timing(store, std::move(m_opt.retry));
        KVMODEL_ASSERT(m_opt.shards >= 1 && m_opt.shards <= max_shard_count);
        KVMODEL_ASSERT(m_opt.max_attempts >= 1);
    }

    /// The counter's name (its head record's key).
    const std::string& name() const noexcept { return m_name; }
    /// The options it was built with.
    const sharded_counter_options& options() const noexcept { return m_opt; }
    /// The shard count increments use now.
    std::uint32_t shards() const noexcept { return m_shards.load(std::memory_order_relaxed); }

    /// The record of shard i: (ns, set, "name#i").
    result<kv::key> shard_key(std::uint32_t i) const {
        return kv::key::make(m_opt.ns, m_opt.set, value(m_name + "#" + std::to_string(i)));
    }
    /// The head record: (ns, set, "name").
    result<kv::key> head_key() const { return kv::key::make(m_opt.ns, m_opt.set, value(m_name)); }

    /// Adds `by` to the counter, exactly once (see the header comment).
    /// Errors: the last failure after max_attempts sends (or options.retry's
    /// time budget), in doubt when any send's fate is unknown (it may have
    /// counted).
    /// Complexity: one operate() per send.
    result<increment_report> increment(std::int64_t by = 1) {
        writer& w = this_writer();
        increment_report rep;
        std::uint32_t shard = pick_shard(w, std::nullopt);
        std::optional<std::uint64_t> pending_seq; // set while a send is in doubt
        kv::write_policy wp = m_opt.write;
        wp.max_retries = 0;
        kv::retry_scope scope(m_opt.retry, m_opt.max_attempts);
        result<kv::record> r = scope.run(kv::step_kind::write, [&]() -> result<kv::record> {
            const std::uint64_t seq = pending_seq ? *pending_seq : ++w.seq;
            auto k = shard_key(shard);
            if (!k) return k.error();
            ++rep.attempts;
            const std::vector<kv::operation> ops = increment_ops(w.id, seq, by);
            result<kv::record> sent = m_store->operate(*k, ops, wp);
            if (sent) return sent;
            const error& e = sent.error();
            if (e.code == status::element_exists && pending_seq) {
                // The token is there: the in-doubt send was counted.
                rep.counted_by_earlier_send = true;
                return kv::record{};
            }
            if (e.code == status::timeout) ++rep.timeouts;
            if (e.in_doubt) {
                ++rep.in_doubt;
                pending_seq = seq; // resend the same token to the same shard
            }
            if (e.code == status::key_busy) {
                ++rep.key_busy;
                if (!pending_seq) shard = pick_shard(w, shard);
            }
            return sent;
        });
        if (r) {
            rep.shard = shard;
            return rep;
        }
        error last = std::move(r).error();
        last.message = "sharded_counter::increment(" + m_name + "): " + last.message +
                       " after " + std::to_string(rep.attempts) + " sends";
        return last;
    }

    /// The counter's value: the sum over every shard ever used (a missing
    /// shard counts 0). One head read and one batch read.
    result<std::int64_t> total() const {
        auto values = shard_values();
        if (!values) return values.error();
        std::int64_t sum = 0;
        for (std::int64_t v : *values) sum += v;
        return sum;
    }

    /// Each shard's count, for shards 0 .. max-shards-ever - 1.
    result<std::vector<std::int64_t>> shard_values() const {
        auto head = read_head();
        if (!head) return head.error();
        const std::uint32_t n = std::max({head->max_shards, head->shards, shards()});
        std::vector<kv::key> keys;
        keys.reserve(n);
        for (std::uint32_t i = 0; i < n; ++i) {
            auto k = shard_key(i);
            if (!k) return k.error();
            keys.push_back(std::move(k).value());
        }
        const std::string bins[] = {m_opt.bin};
        std::vector<result<kv::record>> recs = kv::batch_get(*m_store, keys, bins, m_opt.read);
        std::vector<std::int64_t> out(n, 0);
        for (std::uint32_t i = 0; i < n; ++i) {
            const result<kv::record>& r = recs[i];
            if (!r) {
                if (r.error().code == status::record_not_found) continue;
                return error{r.error().code, "sharded_counter::total(" + m_name + "): shard " +
                                                 std::to_string(i) + ": " + r.error().message};
            }
            const value* v = r->get(m_opt.bin);
            if (v == nullptr || v->is_nil()) continue;
            if (!v->is_int())
                return error{status::bin_type_error, "sharded_counter::total(" + m_name +
                                                         "): shard " + std::to_string(i) +
                                                         " holds " + to_string(*v)};
            out[i] = v->as_int();
        }
        return out;
    }

    /// Changes the shard count (1 .. 4096) for every user of the counter:
    /// writes it to the head record with the largest count ever used
    /// (compare-and-set on the head's generation). Increments through this
    /// object use it at once; other objects after refresh().
    result<void> set_shards(std::uint32_t n) {
        if (n < 1 || n > max_shard_count)
            return error{status::parameter_error, "sharded_counter::set_shards(" + m_name +
                                                      "): " + std::to_string(n) +
                                                      " shards, allowed 1.." +
                                                      std::to_string(max_shard_count)};
        auto k = head_key();
        if (!k) return k.error();
        // Transient failures are retried inside each write (paced, in doubt
        // kept); a lost race with another writer re-reads the head.
        kv::retry_scope call(m_opt.retry, m_opt.max_attempts);
        for (int attempt = 0; attempt < 16; ++attempt) {
            auto head = read_head();
            if (!head) return call.fail(head.error());
            const std::uint32_t max_n = std::max({head->max_shards, shards(), n});
            kv::write_policy wp = m_opt.write;
            wp.max_retries = 0;
            wp.gen = kv::generation_policy::eq;
            wp.generation = head->generation;
            const std::vector<kv::operation> ops = {
                kv::op::write(m_opt.shards_bin, value(static_cast<std::int64_t>(n))),
                kv::op::write(m_opt.max_shards_bin, value(static_cast<std::int64_t>(max_n)))};
            result<kv::record> r =
                call.run(kv::step_kind::write, [&] { return m_store->operate(*k, ops, wp); });
            if (r) {
                m_shards.store(n, std::memory_order_relaxed);
                return {};
            }
            // Lost a race with another writer of the head (or with our own
            // write whose answer was lost): read again and retry; the write
            // is idempotent.
            if (r.error().code != status::generation_error) return r.error();
        }
        return call.fail(error{status::generation_error,
                               "sharded_counter::set_shards(" + m_name + "): the head kept changing"});
    }

    /// Reads the shard count from the head record (the constructor's count
    /// when there is none) and uses it from now on.
    result<std::uint32_t> refresh() {
        auto head = read_head();
        if (!head) return head.error();
        if (head->shards != 0) m_shards.store(head->shards, std::memory_order_relaxed);
        return shards();
    }

private:
    struct writer {
        std::uint64_t id = 0;
        std::uint64_t seq = 0;
        std::mt19937_64 rng;
    };
    struct head_state {
        std::uint32_t shards = 0;
        std::uint32_t max_shards = 0;
        std::uint32_t generation = 0;
    };

    /// The calling thread's writer identity: a random 64-bit id (unique across
    /// processes with overwhelming probability) and its sequence.
    static writer& this_writer() {
        thread_local writer w = [] {
            std::random_device rd;
            writer x;
            x.id = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
            x.rng.seed(x.id);
            return x;
        }();
        return w;
    }

    std::uint32_t pick_shard(writer& w, std::optional<std::uint32_t> avoid) const {
        const std::uint32_t n = shards();
        if (n == 1) return 0;
        std::uint32_t s = 0;
        if (m_opt.choice == shard_choice::per_thread && !avoid) {
            s = static_cast<std::uint32_t>(w.id % n);
        } else {
            s = static_cast<std::uint32_t>(w.rng() % n);
            if (avoid && s == *avoid) s = (s + 1) % n;
        }
        return s;
    }

    /// The token: writer id then sequence, big-endian, so one writer's tokens
    /// are a contiguous key range in sequence order.
    static value token(std::uint64_t id, std::uint64_t seq) {
        bytes b(16);
        for (int i = 0; i < 8; ++i) {
            b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(id >> (56 - 8 * i));
            b[static_cast<std::size_t>(8 + i)] = static_cast<std::uint8_t>(seq >> (56 - 8 * i));
        }
        return value(std::move(b));
    }

    std::vector<kv::operation> increment_ops(std::uint64_t id, std::uint64_t seq,
                                             std::int64_t by) const {
        namespace mo = cdt::map_ops;
        return {
            // Fails ELEMENT_EXISTS (and aborts the add) if this token counted already.
            kv::op::cdt(m_opt.tokens_bin,
                        mo::put(token(id, seq), value(true),
                                mo::policy(map_order::key_ordered, cdt::map_write_flags::create_only))),
            // Keeps only the writer's newest token.
            kv::op::cdt(m_opt.tokens_bin,
                        mo::remove_by_key_range(token(id, 0), token(id, seq), cdt::return_type::none)),
            kv::op::add(m_opt.bin, value(by)),
        };
    }

    result<head_state> read_head() const {
        auto k = head_key();
        if (!k) return k.error();
        result<kv::record> r = kv::get(*m_store, *k, m_opt.read);
        head_state h;
        if (!r) {
            if (r.error().code == status::record_not_found) return h;
            return error{r.error().code,
                         "sharded_counter(" + m_name + "): head record: " + r.error().message};
        }
        h.generation = r->generation;
        auto count = [&](const std::string& bin) -> result<std::uint32_t> {
            const value* v = r->get(bin);
            if (v == nullptr || v->is_nil()) return std::uint32_t{0};
            if (!v->is_int() || v->as_int() < 1 || v->as_int() > max_shard_count)
                return error{status::bin_type_error, "sharded_counter(" + m_name +
                                                         "): head bin '" + bin + "' holds " +
                                                         to_string(*v)};
            return static_cast<std::uint32_t>(v->as_int());
        };
        auto s = count(m_opt.shards_bin);
        if (!s) return s.error();
        auto m = count(m_opt.max_shards_bin);
        if (!m) return m.error();
        h.shards = *s;
        h.max_shards = *m;
        return h;
    }

    Store* m_store;
    std::string m_name;
    sharded_counter_options m_opt;
    std::atomic<std::uint32_t> m_shards;
};

} // namespace kvmodel::patterns
