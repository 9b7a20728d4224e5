// kvmodel/patterns/exactly_once.hpp
//
// Exactly-once writes for non-idempotent operations (an increment, an
// append): the caller names each logical operation with an op id, and
// operate_once() sends, in ONE operate() with the caller's operations,
//   1. map put  op_id -> stamp  with CREATE_ONLY into the marker bin, and
//   2. a trim of the marker bin to the `keep` ids with the highest stamps.
// A first send applies everything. A resend of the same op id (after a
// timeout, in doubt or not) whose first copy was applied fails ELEMENT_EXISTS
// on the marker, so nothing is applied twice: operate_once() reports it as
// success with applied == false. A resend whose first copy was not applied
// applies now. All or nothing, as every operate().
//
// The window: an op id is remembered while it is among the record's `keep`
// highest stamps; resend within it (stamps are the caller's clock or
// sequence, so a retry storm shorter than `keep` later operations is safe).
// Cost: the marker bin holds `keep` entries (an id and an int each) in every
// record written this way, and each write rewrites them with the record.
// sharded_counter.hpp uses the same marker keyed per writer (one token per
// thread, trimmed by sequence) since its writers are threads.
// Precondition: the caller's operations themselves never fail ELEMENT_EXISTS
// (it would read as a duplicate).
#pragma once

#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/store.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// Where op ids are remembered and for how long.
struct once_options {
    std::string bin = "op_ids"; ///< the marker bin: a map op id -> stamp (<= 15 bytes)
    std::size_t keep = 64;      ///< op ids remembered per record (the highest stamps); > 0
};

/// The two operations that mark op_id applied (put CREATE_ONLY, then trim
/// to opt.keep), to send FIRST in the operate() that applies it.
inline std::vector<kv::operation> once_marker(const value& op_id, std::int64_t stamp,
                                              const once_options& opt = {}) {
    const auto keep = static_cast<std::int64_t>(opt.keep);
    return {kv::op::cdt(opt.bin,
                        cdt::map_ops::put(op_id, value(stamp),
                                          cdt::map_ops::policy(map_order::key_ordered,
                                                               cdt::map_write_flags::create_only))),
            kv::op::cdt(opt.bin, cdt::map_ops::remove_by_rank_range(-keep, keep,
                                                                    cdt::return_type::none, true))};
}

/// What operate_once() did.
struct once_outcome {
    /// false: an earlier send of this op id was applied, this one was not.
    bool applied = false;
    /// When applied: the record, its results those of the caller's ops only
    /// (the marker's are dropped). Empty otherwise.
    kv::record rec;
};

/// Applies `ops` on k at most once per op_id (see the header comment): ONE
/// operate. Errors: the store's; a timeout may leave it applied (in doubt):
/// resend with the same op_id and stamp. PARAMETER_ERROR for keep == 0.
template <kv::kv_store Store>
result<once_outcome> operate_once(Store& store,
                                  const kv::key& k,
                                  const value& op_id,
                                  std::int64_t stamp,
                                  std::span<const kv::operation> ops,
                                  const kv::write_policy& wp = {},
                                  const once_options& opt = {}) {
    if (opt.keep == 0)
        return error{status::parameter_error, "operate_once: once_options::keep must be > 0"};
    std::vector<kv::operation> all = once_marker(op_id, stamp, opt);
    const std::size_t marker = all.size();
    all.insert(all.end(), ops.begin(), ops.end());
    result<kv::record> r = store.operate(k, std::span<const kv::operation>(all), wp);
    if (!r) {
        if (r.error().code == status::element_exists) return once_outcome{};
        return std::move(r).error();
    }
    once_outcome out{true, std::move(r).value()};
    out.rec.results.erase(out.rec.results.begin(),
                          out.rec.results.begin() + static_cast<std::ptrdiff_t>(marker));
    return out;
}

} // namespace kvmodel::patterns
