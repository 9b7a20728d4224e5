// kvmodel/kv/batch.hpp
//
// Batch operate (Aerospike 6.0+ batch records): one command carrying a mix of
// reads, writes and deletes, each with its own policy and filter expression,
// answered with one result per record, in batch order.
//
// | expression                      | result                      | meaning                 |
// |---------------------------------|-----------------------------|-------------------------|
// | opt: s.batch_operate(batch, bp) | std::vector<result<record>> | one round trip per node |
// | kv::batch_operate(s, batch, bp) | the same                    | the member, else one    |
// |                                 |                             | operate/get/remove each |
//
// Per record, as the server answers a batch sub-transaction:
// * read: all bins (ops empty) or the read ops' results (as operate);
//   KEY_NOT_FOUND_ERROR when missing, FILTERED_OUT when its read policy's
//   filter expression is false.
// * write: ops applied atomically as operate() under its write policy
//   (exists action, generation, ttl, filter expression...); record.results
//   one per op.
// * remove: deletes the record (an empty record on success).
// A failed record leaves its record as it was and does not stop the others.
// A write whose fate is unknown (its node timed out) has error::in_doubt.
//
// Duplicate keys are not merged: each occurrence is its own sub-transaction,
// run in batch order (the server serializes sub-transactions on one record),
// so a read after a write of the same key in one batch sees the write.
//
// respond_all_keys (default true): when false, the server stops a node's part
// of the batch at the first record failing with anything other than
// KEY_NOT_FOUND_ERROR or FILTERED_OUT (batch.c: REPORT_ALL_ERRORS unset); the
// records it did not reach answer NO_RESPONSE (-15), not applied. The fallback
// below has no nodes and treats the whole batch as one node's part.
#pragma once

#include <kvmodel/core/result.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/status.hpp>
#include <kvmodel/kv/store.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::kv {

/// One record's part of a batch: a read (read ops, or all bins when ops is
/// empty), a write (ops, with reads among them allowed, as operate), or a
/// delete — each with its own policy (filter expression, generation, exists
/// action, ttl, durable delete...).
struct batch_record {
    /// What the record's sub-transaction does.
    enum class kind : std::uint8_t { read, write, remove };
    kind type = kind::read;     ///< read, write or remove
    key k;                      ///< the record
    std::vector<operation> ops; ///< read: read ops (empty = all bins); write: as operate
    read_policy rp;             ///< used by a read
    write_policy wp;            ///< used by a write or a delete

    /// A read of k: all bins when ops is empty, else the read ops' results.
    static batch_record read(key k, std::vector<operation> ops = {}, read_policy rp = {}) {
        return batch_record{kind::read, std::move(k), std::move(ops), std::move(rp), {}};
    }
    /// A write of k: ops applied atomically under wp, as operate().
    static batch_record write(key k, std::vector<operation> ops, write_policy wp = {}) {
        return batch_record{kind::write, std::move(k), std::move(ops), {}, std::move(wp)};
    }
    /// A delete of k under wp.
    static batch_record remove(key k, write_policy wp = {}) {
        return batch_record{kind::remove, std::move(k), {}, {}, std::move(wp)};
    }
};

/// The batch's own policy (as_policy_batch): timeouts/retries of the batch
/// command, and whether the other records go on after one fails
/// (respond_all_keys, the server's default true).
struct batch_policy : base_policy {
    /// Answer every key; false: a node stops its part at the first real error.
    bool respond_all_keys = true;
};

namespace detail {
template <class S>
concept has_batch_operate = requires(S& s,
                                     std::span<const batch_record> batch,
                                     const batch_policy& bp) {
    { s.batch_operate(batch, bp) } -> std::same_as<std::vector<result<record>>>;
};

/// Whether a failed record stops the rest of its node's part of a batch when
/// respond_all_keys is false (everything but not found and filtered out).
inline bool stops_batch(const error& e) noexcept {
    return e.code != status::record_not_found && e.code != status::filtered_out;
}

/// The answer of a record a stopped batch did not reach.
inline error batch_not_reached(std::size_t index) {
    return error{status::no_response,
                 "batch_operate: record " + std::to_string(index) +
                     " not processed: an earlier record failed and respond_all_keys is false"};
}

/// One record of a batch through the required kv_store members.
template <kv_store S>
result<record> run_one(S& s, const batch_record& br) {
    switch (br.type) {
    case batch_record::kind::read:
        if (br.ops.empty())
            return s.get(br.k, br.rp);
        return s.operate(br.k, br.ops, as_write_policy(br.rp));
    case batch_record::kind::write:
        return s.operate(br.k, br.ops, br.wp);
    case batch_record::kind::remove: {
        result<void> r = s.remove(br.k, br.wp);
        if (!r)
            return std::move(r).error();
        return record{};
    }
    }
    return fail(status::parameter_error, "batch_operate: unknown batch record kind");
}
} // namespace detail

/// One result per record, in order — the record (its record.results one per
/// op, as operate) or its error (FILTERED_OUT, KEY_NOT_FOUND_ERROR,
/// GENERATION_ERROR, ..., with error::in_doubt set when a write may have
/// been applied). Uses S::batch_operate when the store has one (one round
/// trip per node touched), else one operate / get / remove per record.
/// Complexity: the store's per record.
template <kv_store S>
std::vector<result<record>>
batch_operate(S& s, std::span<const batch_record> batch, const batch_policy& bp = {}) {
    if constexpr (detail::has_batch_operate<S>) {
        return s.batch_operate(batch, bp);
    } else {
        std::vector<result<record>> out;
        out.reserve(batch.size());
        bool stopped = false;
        for (std::size_t i = 0; i < batch.size(); ++i) {
            if (stopped) {
                out.emplace_back(detail::batch_not_reached(i));
                continue;
            }
            out.push_back(detail::run_one(s, batch[i]));
            if (!bp.respond_all_keys && !out.back() && detail::stops_batch(out.back().error()))
                stopped = true;
        }
        return out;
    }
}

} // namespace kvmodel::kv
