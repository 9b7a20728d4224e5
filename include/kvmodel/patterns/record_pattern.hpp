// kvmodel/patterns/record_pattern.hpp
//
// The extension base for one's own single-record pattern (what every
// single-record pattern here derives from): the store, where its records live
// (namespace, set, bin), the policies, and one operate() per call whose
// per-op results are unpacked with decode errors instead of UB:
//   run(owner, {ops...})         CDT ops on the pattern's bin (the bin is
//                                implied), ONE operate, the per-op results;
//   run(owner, {ops...}, {more}) the same plus kv operations on other bins
//                                (a counter, a marker) in the same operate;
//   read(owner, {ops...}, empty) a read for which a missing record is empty;
//   decode_pairs / decode_values / count_result: typed decoding of results.
// See docs/guide/writing-your-own-pattern.md for a complete example.
#pragma once

#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/patterns/codec.hpp>
#include <kvmodel/patterns/detail/store_ref.hpp>

#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

/// Where a single-record pattern keeps its records: one record per owner,
/// key (ns, set, owner), the collection in one bin.
struct record_location {
    std::string ns = "test";   ///< the namespace
    std::string set;           ///< the set; each pattern has its own default
    std::string bin = "items"; ///< the bin holding the collection (<= 15 bytes)
    kv::write_policy write{};  ///< policy of the pattern's writes (TTL, retries, timeouts)
    kv::read_policy read{};    ///< policy of its reads
};

namespace detail {
/// record_pattern::run and read without the store's type: the CDT ops on
/// `where.bin` of owner's record plus `more`, ONE operate; with `absent`, a
/// missing record reads as ops.size() copies of *absent.
KVMODEL_DECL result<std::vector<value>> run_on_bin(const store_ref& store, const record_location& where,
                                                   const value& owner, std::vector<cdt::op>& ops,
                                                   std::vector<kv::operation> more, const value* absent);

/// {o} as a vector by push_back: vector<cdt::op>'s initializer_list
/// constructor is ~25 functions of its own in every header-only file.
inline std::vector<cdt::op> one_op(cdt::op o) {
    std::vector<cdt::op> ops;
    ops.push_back(std::move(o));
    return ops;
}

/// {a} and {a, b} as vectors by push_back: for the same reason (the
/// initializer_list constructor of vector<kv::operation>).
inline std::vector<kv::operation> kv_ops(kv::operation a) {
    std::vector<kv::operation> ops;
    ops.push_back(std::move(a));
    return ops;
}
/// \overload
inline std::vector<kv::operation> kv_ops(kv::operation a, kv::operation b) {
    std::vector<kv::operation> ops;
    ops.reserve(2);
    ops.push_back(std::move(a));
    ops.push_back(std::move(b));
    return ops;
}
} // namespace detail

/// operate() through the kv_store concept's span form, so braced operation
/// lists (and vectors) work on every store: `operate(db, k, {op1, op2}, wp)`.
template <kv::kv_store Store>
result<kv::record> operate(Store& store, const kv::key& k, const std::vector<kv::operation>& ops,
                           const kv::write_policy& wp = {}) {
    return store.operate(k, std::span<const kv::operation>(ops), wp);
}

/// Base of a pattern keeping one record per owner with its collection in one
/// bin. Derive from it, build CDT ops, call run() or read(): one operate per
/// call, a missing record read as empty, typed decoding by the free helpers
/// below. Copyable; keeps a reference to the store.
template <kv::kv_store Store>
class record_pattern {
public:
    /// A pattern over `store` keeping its records at `where`.
    record_pattern(Store& store, record_location where)
        : m_store(&store)
        , m_where(std::move(where)) {}

    /// Where the records live and the policies used.
    const record_location& location() const noexcept { return m_where; }
    /// The store the pattern talks to.
    Store& store() const noexcept { return *m_store; }

    /// The owner's record key: (ns, set, owner). PARAMETER_ERROR for an owner
    /// that is not an int, string or bytes.
    result<kv::key> key_of(const value& owner) const {
        return kv::key::make(m_where.ns, m_where.set, owner);
    }

protected:
    /// Runs the CDT ops on the pattern's bin as ONE operate(); returns the
    /// per-op results. One round trip; a write rewrites the whole record.
    result<std::vector<value>> run(const value& owner, std::vector<cdt::op> ops) const {
        return detail::run_on_bin(detail::store_ref(*m_store), m_where, owner, ops, {}, nullptr);
    }

    /// run() plus kv operations on other bins (or any kv::operation) in the
    /// SAME operate, after the CDT ops; the results of both, in that order.
    result<std::vector<value>> run(const value& owner, std::vector<cdt::op> ops,
                                   std::vector<kv::operation> more) const {
        return detail::run_on_bin(detail::store_ref(*m_store), m_where, owner, ops, std::move(more), nullptr);
    }

    /// A kv operation on the pattern's bin (to mix with others in run()).
    kv::operation on_bin(cdt::op o) const { return kv::op::cdt(m_where.bin, std::move(o)); }

    /// A read-only run: a missing record reads as `absent` (an empty
    /// collection) instead of KEY_NOT_FOUND.
    result<std::vector<value>> read(const value& owner, std::vector<cdt::op> ops,
                                    const value& absent) const {
        return detail::run_on_bin(detail::store_ref(*m_store), m_where, owner, ops, {}, &absent);
    }

private:
    Store* m_store;
    record_location m_where;
};

/// The elements of a list result (nil → empty), as values; `what` names the
/// caller in the error.
KVMODEL_DECL result<const list*> as_list_result(const value& v, std::string_view what);

/// Reverses `v` in place when `yes` (a rank range wanted highest first):
/// decoding stays in list order, so an error names the first bad entry,
/// and no std::reverse family is compiled per element type.
template <class T>
void reverse_if(std::vector<T>& v, bool yes) {
    if (yes)
        for (std::size_t i = 0, j = v.size(); i + 1 < j; ++i, --j) std::swap(v[i], v[j - 1]);
}

/// Decodes [[k, v], ...] pairs (a KEY_VALUE result) into typed pairs, last
/// first when `reversed` (a rank range wanted highest first);
/// PARAMETER_ERROR naming `what` for another shape.
template <encodable K, encodable V>
result<std::vector<std::pair<K, V>>> decode_pairs(const value& v, std::string_view what, bool reversed = false) {
    auto l = as_list_result(v, what);
    if (!l) return l.error();
    std::vector<std::pair<K, V>> out;
    out.reserve((*l)->size());
    for (const value& p : **l) {
        if (!p.is_list() || p.as_list().size() != 2)
            return error{status::parameter_error,
                         std::string(what) + ": expected a [key, value] pair, got " + to_string(p)};
        auto k = codec<K>::decode(p.as_list()[0]);
        if (!k) return k.error();
        auto x = codec<V>::decode(p.as_list()[1]);
        if (!x) return x.error();
        out.emplace_back(std::move(k).value(), std::move(x).value());
    }
    reverse_if(out, reversed);
    return out;
}

/// Decodes a list result into typed values, last first when `reversed` (a
/// rank range wanted highest first); PARAMETER_ERROR naming `what` for
/// another shape.
template <encodable T>
result<std::vector<T>> decode_values(const value& v, std::string_view what, bool reversed = false) {
    auto l = as_list_result(v, what);
    if (!l) return l.error();
    std::vector<T> out;
    out.reserve((*l)->size());
    for (const value& e : **l) {
        auto x = codec<T>::decode(e);
        if (!x) return x.error();
        out.push_back(std::move(x).value());
    }
    reverse_if(out, reversed);
    return out;
}

/// An integer result (COUNT, size); nil (absent bin) is 0.
KVMODEL_DECL result<std::size_t> count_result(const value& v, std::string_view what);

} // namespace kvmodel::patterns

#if KVMODEL_DEFINITIONS
namespace kvmodel::patterns {

KVMODEL_DECL result<std::vector<value>> detail::run_on_bin(const store_ref& store, const record_location& where,
                                                           const value& owner, std::vector<cdt::op>& ops,
                                                           std::vector<kv::operation> more, const value* absent) {
    auto k = kv::key::make(where.ns, where.set, owner);
    if (!k) return k.error();
    const std::size_t n = ops.size();
    std::vector<kv::operation> kops;
    kops.reserve(n + more.size());
    for (cdt::op& o : ops) kops.push_back(kv::op::cdt(where.bin, std::move(o)));
    for (kv::operation& o : more) kops.push_back(std::move(o));
    result<kv::record> r = store.operate(*k, std::span<const kv::operation>(kops), where.write);
    if (!r) {
        if (absent != nullptr && r.error().code == status::record_not_found)
            return std::vector<value>(n, *absent);
        return std::move(r).error();
    }
    return std::move(r->results);
}

KVMODEL_DECL result<const list*> as_list_result(const value& v, std::string_view what) {
    static const list empty;
    if (v.is_nil()) return &empty;
    if (!v.is_list())
        return error{status::parameter_error, std::string(what) + ": expected a list result, got " +
                                                  to_string(v)};
    return &v.as_list();
}

KVMODEL_DECL result<std::size_t> count_result(const value& v, std::string_view what) {
    if (v.is_nil()) return std::size_t{0};
    if (!v.is_int() || v.as_int() < 0)
        return error{status::parameter_error,
                     std::string(what) + ": expected a count, got " + to_string(v)};
    return static_cast<std::size_t>(v.as_int());
}

} // namespace kvmodel::patterns
#endif // KVMODEL_DEFINITIONS
