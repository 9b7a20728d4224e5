// kvmodel/exp/detail/hll.hpp
//
// HLL calls inside expressions (as_exp_hll_*), for exp/eval.hpp: the call's
// evaluated arguments are read by position into a cdt::hll_op, as the
// server's as_bin_hll_read_exp / as_bin_hll_modify_exp parse the msgpack the
// expression hands them, and cdt::apply_hll_op does the rest. Arguments of
// the wrong msgpack type, an op code of the other kind (a read op in a modify
// call or the reverse), a context, or a failing op are unknown, as the
// server's PARAMETER_ERROR and op errors are inside an expression.
//
// The argument positions are the server's, whatever the client meant: the C
// client's as_exp_hll_init(policy, index_bit_count, bin) sends [index,
// flags], which the server reads as [index, minhash bits] (flags 0 makes no
// minhash bits; CREATE_ONLY = 1 is an out-of-range minhash count: unknown).
//
// kvmodel keeps an HLL as bytes: bytes holding a well-formed sketch are an
// HLL here (bin_hll reads them, bin_type says 18; bin_blob reads them too),
// other bytes a blob; a blob that happens to hold a well-formed sketch is
// taken as an HLL (the server knows a blob from an HLL by its particle type).
//
// Departures: an HLL read of a nil operand (the bin expression is nil, not a
// missing bin) is unknown here; the 8.1.2 server asserts on a dead bin there.
#pragma once

#include <kvmodel/cdt/detail/hll_engine.hpp>
#include <kvmodel/cdt/hll_ops.hpp>
#include <kvmodel/core/value.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <utility>

namespace kvmodel::exp::detail {

/// Whether v is an HLL value: bytes holding a well-formed sketch.
inline bool is_hll_value(const value& v) noexcept {
    return v.is_bytes() && cdt::is_hll_sketch(v.as_bytes());
}

namespace hll_args {
inline bool int_at(std::span<const value> a, std::size_t k, std::int64_t& out) {
    if (!a[k].is_int())
        return false;
    out = a[k].as_int();
    return true;
}
inline bool flags_at(std::span<const value> a, std::size_t k, std::uint64_t& out) {
    if (!a[k].is_int())
        return false;
    out = static_cast<std::uint64_t>(a[k].as_int());
    return true;
}
inline bool elements_at(std::span<const value> a, std::size_t k, std::vector<value>& out) {
    if (!a[k].is_list())
        return false;
    out.assign(a[k].as_list().begin(), a[k].as_list().end());
    return true;
}
/// A list of sketches, or one sketch on its own (the server takes both).
inline bool hlls_at(std::span<const value> a, std::size_t k, std::vector<kvmodel::bytes>& out) {
    if (a[k].is_bytes()) {
        out.push_back(a[k].as_bytes());
        return true;
    }
    if (!a[k].is_list())
        return false;
    for (const value& h : a[k].as_list()) {
        if (!h.is_bytes())
            return false;
        out.push_back(h.as_bytes());
    }
    return true;
}
} // namespace hll_args

/// The op an HLL call's arguments make, or nullopt when they do not parse.
inline std::optional<cdt::hll_op> make_hll_op(std::uint64_t op, std::span<const value> a) {
    namespace ha = hll_args;
    using c = cdt::hll_op_code;
    cdt::hll_op o;
    const auto code = static_cast<c>(op);
    if (op > 0xff || !cdt::detail::hll::known_code(code) || a.size() > 0xff)
        return std::nullopt;
    o.code = code;
    o.n_args = static_cast<std::uint8_t>(a.size());
    const std::size_t n = a.size();
    if (n < cdt::detail::hll::min_args(code) || n > cdt::detail::hll::arg_parsers(code).size())
        return o; // the engine reports the count
    bool ok = true;
    switch (code) {
    case c::hll_init:
        ok = (n < 1 || ha::int_at(a, 0, o.index_bit_count)) &&
             (n < 2 || ha::int_at(a, 1, o.mh_bit_count)) &&
             (n < 3 || ha::flags_at(a, 2, o.policy.flags));
        break;
    case c::hll_add:
        ok = ha::elements_at(a, 0, o.list) && (n < 2 || ha::int_at(a, 1, o.index_bit_count)) &&
             (n < 3 || ha::int_at(a, 2, o.mh_bit_count)) &&
             (n < 4 || ha::flags_at(a, 3, o.policy.flags));
        break;
    case c::hll_set_union:
        ok = ha::hlls_at(a, 0, o.hlls) && (n < 2 || ha::flags_at(a, 1, o.policy.flags));
        break;
    case c::hll_fold:
        ok = ha::int_at(a, 0, o.index_bit_count);
        break;
    case c::hll_get_union:
    case c::hll_get_union_count:
    case c::hll_get_intersect_count:
    case c::hll_get_similarity:
        ok = ha::hlls_at(a, 0, o.hlls);
        break;
    case c::hll_may_contain:
        ok = ha::elements_at(a, 0, o.list);
        break;
    default:
        break;
    }
    if (!ok)
        return std::nullopt;
    return o;
}

/// An HLL call on operand `bin` (nil: none): a modify call's result is the
/// modified sketch, a read call's the op's result; nullopt = unknown.
inline std::optional<value>
hll_call(std::uint64_t op, bool modify, std::span<const value> args, value bin) {
    std::optional<value> operand;
    if (!bin.is_nil()) {
        if (!bin.is_bytes())
            return std::nullopt;
        operand = std::move(bin);
    }
    std::optional<cdt::hll_op> o = make_hll_op(op, args);
    if (!o || modify == cdt::is_hll_read(o->code))
        return std::nullopt;
    if (!modify && !operand)
        return std::nullopt;
    result<value> r = cdt::apply_hll_op(operand, *o);
    if (!r)
        return std::nullopt;
    if (modify)
        return operand;
    return std::move(r).value();
}

} // namespace kvmodel::exp::detail
