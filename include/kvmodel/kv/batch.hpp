// kvmodel/kv/batch.hpp
//
// THROW-AWAY LOCAL COPY (branch `score`) of the agreed batch-operate interface
// (/work/wt/BATCH_INTERFACE.md, issue 29 item 1), written so that
// bucketed_scoreboard.hpp compiles before branch `batch` lands. The lead
// replaces this file with batch's at merge. Only the fallback is here: one
// operate / get / remove per record (so a batch costs one round trip per
// record on stores without a batch_operate member).
#pragma once

#include <kvmodel/core/result.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/store.hpp>

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace kvmodel::kv {

/// One record's part of a batch: a read (read ops, or all bins when ops is
/// empty), a write (ops, with reads among them allowed, as operate), or a
/// delete — each with its own policy.
struct batch_record {
    /// What the record's part does.
    enum class kind : std::uint8_t { read, write, remove };
    kind type = kind::read;      ///< read, write or remove
    key k;                       ///< the record
    std::vector<operation> ops;  ///< the read or write ops
    read_policy rp;              ///< used by a read
    write_policy wp;             ///< used by a write or a delete

    /// A read of `ops` (all bins when empty).
    static batch_record read(key k, std::vector<operation> ops = {}, read_policy rp = {}) {
        return batch_record{kind::read, std::move(k), std::move(ops), std::move(rp), {}};
    }
    /// A write of `ops` (reads among them allowed).
    static batch_record write(key k, std::vector<operation> ops, write_policy wp = {}) {
        return batch_record{kind::write, std::move(k), std::move(ops), {}, std::move(wp)};
    }
    /// A delete.
    static batch_record remove(key k, write_policy wp = {}) {
        return batch_record{kind::remove, std::move(k), {}, {}, std::move(wp)};
    }
};

/// The batch's own policy (as_policy_batch).
struct batch_policy : base_policy {
    bool respond_all_keys = true; ///< go on after a record fails (the server's default)
};

namespace detail {
template <class S>
concept has_batch_operate =
    requires(S& s, std::span<const batch_record> b, const batch_policy& bp) {
        { s.batch_operate(b, bp) } -> std::same_as<std::vector<result<record>>>;
    };
} // namespace detail

/// One result per record, in order: the record (its results one per op, as
/// operate) or its error. Uses S::batch_operate when present, else one
/// operate / get / remove per record.
template <kv_store S>
std::vector<result<record>> batch_operate(S& s, std::span<const batch_record> batch,
                                          const batch_policy& bp = {}) {
    if constexpr (detail::has_batch_operate<S>) {
        return s.batch_operate(batch, bp);
    } else {
        std::vector<result<record>> out;
        out.reserve(batch.size());
        for (const batch_record& b : batch) {
            switch (b.type) {
            case batch_record::kind::read:
                if (b.ops.empty())
                    out.push_back(s.get(b.k, b.rp));
                else
                    out.push_back(s.operate(b.k, std::span<const operation>(b.ops),
                                            as_write_policy(b.rp)));
                break;
            case batch_record::kind::write:
                out.push_back(s.operate(b.k, std::span<const operation>(b.ops), b.wp));
                break;
            case batch_record::kind::remove: {
                auto r = s.remove(b.k, b.wp);
                if (r)
                    out.push_back(record{});
                else
                    out.push_back(r.error());
                break;
            }
            }
        }
        return out;
    }
}

} // namespace kvmodel::kv
