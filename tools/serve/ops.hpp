// tools/serve/ops.hpp
//
// Wire ops to kv::operation: read, write, incr, append, prepend, touch,
// delete, CDT read/modify (list and map: the msgpack [op, args...] or
// [0xff, ctx, [op, args...]] the clients pack, decoded by the expression
// engine's CDT call decoder, exp::detail::make_cdt_op; the set-type ops
// list/map create, set order and set policy decoded here), bit read/modify,
// HLL read/modify, and expression read/modify. A wire op kvmodel does not
// model (a ctx kind other than index/rank/value/key) is PARAMETER_ERROR naming it, as
// the server answers a request it cannot parse. Op arguments are read as the
// server reads them: an INF or WILDCARD leading a list is an element
// (decode_msgpack_args). Cost: one msgpack decode of the op's bytes.
#pragma once

#include <kvmodel/exp/eval.hpp>
#include <kvmodel/kv/operation.hpp>

#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "wire.hpp"

namespace kvmodel::tools::serve {

namespace detail {

[[gnu::cold]] inline error bad_op(std::string_view name, const std::string& what) {
    return error{status::parameter_error, "op on bin '" + std::string(name) + "': " + what};
}

// A ctx list [type, value, ...] as the C client's as_cdt_ctx_pack writes it;
// the create bits (0x40 / 0x80 / 0xc0) select the order of what is created.
inline result<std::vector<cdt::ctx_step>> decode_ctx(const value& v) {
    if (!v.is_list() || v.as_list().empty() || v.as_list().size() % 2 != 0)
        return fail(status::parameter_error, "invalid context");
    const list& l = v.as_list();
    std::vector<cdt::ctx_step> out;
    for (std::size_t k = 0; k < l.size(); k += 2) {
        if (!l[k].is_int())
            return fail(status::parameter_error, "invalid context type");
        std::int64_t t = l[k].as_int();
        const value& arg = l[k + 1];
        std::int64_t base = t & 0x3f;
        std::int64_t create = t & 0xc0;
        bool needs_int = base == 0x10 || base == 0x11 || base == 0x20 || base == 0x21;
        if (needs_int && !arg.is_int())
            return fail(status::parameter_error,
                        "context type " + std::to_string(t) + " needs an integer");
        if (create != 0 && base != 0x10 && base != 0x22)
            return fail(status::parameter_error, "invalid context type " + std::to_string(t));
        switch (base) {
        case 0x10:
            if (create != 0)
                out.push_back(cdt::ctx_step::list_index_create(
                    arg.as_int(),
                    create == 0xc0 ? kvmodel::list_order::ordered : kvmodel::list_order::unordered,
                    create == 0x80));
            else
                out.push_back(cdt::ctx_step::list_index(arg.as_int()));
            break;
        case 0x11:
            out.push_back(cdt::ctx_step::list_rank(arg.as_int()));
            break;
        case 0x13:
            out.push_back(cdt::ctx_step::list_value(arg));
            break;
        case 0x20:
            out.push_back(cdt::ctx_step::map_index(arg.as_int()));
            break;
        case 0x21:
            out.push_back(cdt::ctx_step::map_rank(arg.as_int()));
            break;
        case 0x22:
            if (create != 0)
                out.push_back(cdt::ctx_step::map_key_create(
                    arg,
                    create == 0xc0   ? kvmodel::map_order::key_value_ordered
                    : create == 0x80 ? kvmodel::map_order::key_ordered
                                     : kvmodel::map_order::unordered));
            else
                out.push_back(cdt::ctx_step::map_key(arg));
            break;
        case 0x23:
            out.push_back(cdt::ctx_step::map_value(arg));
            break;
        default:
            return fail(status::parameter_error,
                        "context type " + std::to_string(t) + " is not supported by kvmodel");
        }
    }
    return out;
}

// A CDT op's msgpack: [op, args...] or [0xff, ctx, [op, args...]].
inline result<cdt::op> decode_cdt(const wire_op& w) {
    auto v = adapters::detail::decode_msgpack_args(w.data);
    if (!v)
        return bad_op(w.name, "malformed CDT op: " + v.error().message);
    if (!v->is_list() || v->as_list().empty() || !v->as_list()[0].is_int())
        return bad_op(w.name, "a CDT op is a msgpack list starting with its op code");
    exp::detail::call_info ci;
    std::vector<value> args = v->as_list().to_vector();
    std::int64_t create_flag = 0; // on the last ctx step: list_create / map_create
    if (args[0].as_int() == 0xff) {
        if (args.size() != 3)
            return bad_op(w.name, "a CDT op with a context is [0xff, ctx, [op, args...]]");
        const value& inner = args[2];
        bool set_type = inner.is_list() && !inner.as_list().empty() &&
                        inner.as_list()[0].is_int() &&
                        (inner.as_list()[0].as_int() == 0 || inner.as_list()[0].as_int() == 64);
        if (set_type && args[1].is_list() && args[1].as_list().size() >= 2 &&
            args[1].as_list()[args[1].as_list().size() - 2].is_int() &&
            inner.as_list().size() == 2 && inner.as_list()[1].is_int()) {
            // list_create / map_create (as_cdt_pack_header_flag): the flag of
            // the created order rides on the last step's type. A flag that
            // does not match the order argument is a create step of its own
            // (a set_order / set_policy through a created container).
            list steps = args[1].as_list();
            std::int64_t t = steps[steps.size() - 2].as_int();
            std::int64_t f = t & 0xc0;
            std::int64_t order = inner.as_list()[1].as_int();
            bool is_list = inner.as_list()[0].as_int() == 0;
            bool matches = is_list ? ((order & 1) != 0 ? f == 0xc0 : (f == 0x40 || f == 0x80))
                                   : f == ((order & 3) == 3   ? 0xc0
                                           : (order & 1) != 0 ? 0x80
                                                              : 0x40);
            if (f != 0 && matches) {
                create_flag = f;
                steps.set(steps.size() - 2, value(t & ~std::int64_t{0xc0}));
                args[1] = value(std::move(steps));
            }
        }
        auto ctx = decode_ctx(args[1]);
        if (!ctx)
            return bad_op(w.name, ctx.error().message);
        ci.ctx = std::move(*ctx);
        if (!args[2].is_list() || args[2].as_list().empty() || !args[2].as_list()[0].is_int())
            return bad_op(w.name, "a CDT op is a msgpack list starting with its op code");
        args = args[2].as_list().to_vector();
    }
    ci.op = static_cast<std::uint64_t>(args[0].as_int());
    if (ci.op == 0 || ci.op == 64) {
        // Set type: [0, list flags] or [64, map flags]; order in the low
        // bits, 0x10 a persisted index. With a create flag on the last ctx
        // step it creates the container (list_create / map_create).
        if (args.size() != 2 || !args[1].is_int() || w.op != opcode::cdt_modify)
            return bad_op(w.name, "set-type op: invalid arguments");
        std::int64_t f = args[1].as_int();
        cdt::op o;
        o.ctx = std::move(ci.ctx);
        o.persist_index = (f & 0x10) != 0;
        if (ci.op == 0) {
            o.code = create_flag != 0 ? cdt::op_code::list_create : cdt::op_code::list_set_order;
            o.order = (f & 1) ? kvmodel::list_order::ordered : kvmodel::list_order::unordered;
            o.pad = create_flag == 0x80;
        } else {
            o.code = create_flag != 0 ? cdt::op_code::map_create : cdt::op_code::map_set_policy;
            o.morder = (f & 3) == 3   ? kvmodel::map_order::key_value_ordered
                       : (f & 1) != 0 ? kvmodel::map_order::key_ordered
                                      : kvmodel::map_order::unordered;
            o.mpolicy.order = o.morder;
            o.mpolicy.persist_index = o.persist_index;
        }
        return o;
    }
    auto o = exp::detail::make_cdt_op(ci, std::span<const value>(args).subspan(1));
    if (!o)
        return bad_op(w.name,
                      "CDT op " + std::to_string(ci.op) + " with these arguments is not supported");
    bool read = cdt::classify(o->code) == cdt::op_class::read;
    if (read != (w.op == opcode::cdt_read))
        return bad_op(w.name,
                      std::string(cdt::op_name(o->code)) + " sent as a CDT " +
                          (w.op == opcode::cdt_read ? "read" : "modify"));
    return std::move(*o);
}

// A bit op's msgpack as the C client's as_bit_operations packs it:
// [op, args...] with the policy flags (and add/subtract's sign and overflow
// flags, resize's flags) last and optional.
inline result<cdt::bit_op> decode_bit(const wire_op& w) {
    auto v = adapters::detail::decode_msgpack_args(w.data);
    if (!v || !v->is_list() || v->as_list().empty() || !v->as_list()[0].is_int())
        return bad_op(w.name, "a bit op is a msgpack list starting with its op code");
    const list& a = v->as_list();
    std::size_t n = a.size();
    auto code = a[0].as_int();
    bool known = (code >= 0 && code <= 12) || (code >= 50 && code <= 54);
    if (!known)
        return bad_op(w.name, "bit op " + std::to_string(code) + " is not supported");
    cdt::bit_op o;
    o.code = static_cast<cdt::bit_op_code>(code);
    bool ok = true;
    auto int_at = [&](std::size_t k, std::int64_t& out) {
        if (k >= n || !a[k].is_int())
            return ok = false;
        out = a[k].as_int();
        return true;
    };
    auto opt_int = [&](std::size_t k, auto& out) {
        if (k < n) {
            std::int64_t x = 0;
            if (int_at(k, x))
                out = static_cast<std::remove_reference_t<decltype(out)>>(x);
        }
    };
    auto bytes_at = [&](std::size_t k) {
        if (k >= n || !a[k].is_bytes())
            return ok = false;
        o.value = a[k].as_bytes();
        return true;
    };
    std::size_t max_args = 0;
    switch (o.code) {
    case cdt::bit_op_code::bit_resize:
        int_at(1, o.byte_size);
        opt_int(2, o.policy.flags);
        opt_int(3, o.resize_flags);
        max_args = 4;
        break;
    case cdt::bit_op_code::bit_insert:
        int_at(1, o.byte_offset);
        bytes_at(2);
        opt_int(3, o.policy.flags);
        max_args = 4;
        break;
    case cdt::bit_op_code::bit_remove:
        int_at(1, o.byte_offset);
        int_at(2, o.byte_size);
        opt_int(3, o.policy.flags);
        max_args = 4;
        break;
    case cdt::bit_op_code::bit_set:
    case cdt::bit_op_code::bit_or:
    case cdt::bit_op_code::bit_xor:
    case cdt::bit_op_code::bit_and:
        int_at(1, o.bit_offset);
        int_at(2, o.bit_size);
        bytes_at(3);
        opt_int(4, o.policy.flags);
        max_args = 5;
        break;
    case cdt::bit_op_code::bit_not:
        int_at(1, o.bit_offset);
        int_at(2, o.bit_size);
        opt_int(3, o.policy.flags);
        max_args = 4;
        break;
    case cdt::bit_op_code::bit_lshift:
    case cdt::bit_op_code::bit_rshift:
        int_at(1, o.bit_offset);
        int_at(2, o.bit_size);
        int_at(3, o.shift);
        opt_int(4, o.policy.flags);
        max_args = 5;
        break;
    case cdt::bit_op_code::bit_add:
    case cdt::bit_op_code::bit_subtract: {
        int_at(1, o.bit_offset);
        int_at(2, o.bit_size);
        int_at(3, o.int_value);
        opt_int(4, o.policy.flags);
        std::int64_t flags = 0;
        opt_int(5, flags);
        o.sign = (flags & 1) != 0;
        o.action = static_cast<cdt::bit_overflow_action>(flags & 6);
        max_args = 6;
        break;
    }
    case cdt::bit_op_code::bit_set_int:
        int_at(1, o.bit_offset);
        int_at(2, o.bit_size);
        int_at(3, o.int_value);
        opt_int(4, o.policy.flags);
        max_args = 5;
        break;
    case cdt::bit_op_code::bit_lscan:
    case cdt::bit_op_code::bit_rscan:
        int_at(1, o.bit_offset);
        int_at(2, o.bit_size);
        if (n <= 3 || !a[3].is_bool())
            ok = false;
        else
            o.scan_value = a[3].as_bool();
        max_args = 4;
        break;
    case cdt::bit_op_code::bit_get_int: {
        int_at(1, o.bit_offset);
        int_at(2, o.bit_size);
        std::int64_t flags = 0;
        opt_int(3, flags);
        o.sign = (flags & 1) != 0;
        max_args = 4;
        break;
    }
    default: // get, count
        int_at(1, o.bit_offset);
        int_at(2, o.bit_size);
        max_args = 3;
        break;
    }
    if (!ok || n > max_args)
        return bad_op(w.name, std::string(cdt::bit_op_name(o.code)) + ": invalid arguments");
    if (cdt::is_bit_read(o.code) != (w.op == opcode::bit_read))
        return bad_op(w.name,
                      std::string(cdt::bit_op_name(o.code)) + " sent as a bit " +
                          (w.op == opcode::bit_read ? "read" : "modify"));
    return o;
}

// An HLL op's msgpack as the C client's as_operations_hll_* pack it:
// [op, args...] (no context), its arguments read by position as an
// expression's HLL call reads them (exp::detail::make_hll_op); sketches in
// a list are HLL (or blob) particles, kept as bytes.
inline result<cdt::hll_op> decode_hll(const wire_op& w) {
    auto v = adapters::detail::decode_msgpack_args(w.data);
    if (!v || !v->is_list() || v->as_list().empty() || !v->as_list()[0].is_int() ||
        v->as_list()[0].as_int() < 0)
        return bad_op(w.name, "an HLL op is a msgpack list starting with its op code");
    std::vector<value> args = v->as_list().to_vector();
    auto code = static_cast<std::uint64_t>(args[0].as_int());
    auto o = exp::detail::make_hll_op(code, std::span<const value>(args).subspan(1));
    if (!o)
        return bad_op(w.name,
                      "HLL op " + std::to_string(code) + " with these arguments is not supported");
    if (cdt::is_hll_read(o->code) != (w.op == opcode::hll_read))
        return bad_op(w.name,
                      std::string(cdt::hll_op_name(o->code)) + " sent as an HLL " +
                          (w.op == opcode::hll_read ? "read" : "modify"));
    return std::move(*o);
}

} // namespace detail

/// One wire op as a kv::operation.
inline result<kv::operation> decode_op(const wire_op& w) {
    std::string name(w.name);
    auto val = [&]() {
        return particle_value(w.particle_type, w.data);
    };
    switch (w.op) {
    case opcode::read:
        if (name.empty())
            return kv::op::read_all();
        return kv::op::read(std::move(name));
    case opcode::write:
    case opcode::incr:
    case opcode::append:
    case opcode::prepend: {
        auto v = val();
        if (!v)
            return detail::bad_op(w.name, v.error().message);
        if (w.op == opcode::write)
            return kv::op::write(std::move(name), std::move(*v));
        if (w.op == opcode::incr)
            return kv::op::add(std::move(name), std::move(*v));
        if (w.op == opcode::append)
            return kv::op::append(std::move(name), std::move(*v));
        return kv::op::prepend(std::move(name), std::move(*v));
    }
    case opcode::touch:
        return kv::op::touch();
    case opcode::remove:
        return kv::op::delete_record();
    case opcode::cdt_read:
    case opcode::cdt_modify: {
        auto o = detail::decode_cdt(w);
        if (!o)
            return o.error();
        return kv::op::cdt(std::move(name), std::move(*o));
    }
    case opcode::bit_read:
    case opcode::bit_modify: {
        auto o = detail::decode_bit(w);
        if (!o)
            return o.error();
        return kv::op::bit(std::move(name), std::move(*o));
    }
    case opcode::hll_read:
    case opcode::hll_modify: {
        auto o = detail::decode_hll(w);
        if (!o)
            return o.error();
        return kv::op::hll(std::move(name), std::move(*o));
    }
    case opcode::exp_read:
    case opcode::exp_modify: {
        // [packed expression, flags]
        auto v = adapters::detail::decode_msgpack(w.data);
        if (!v || !v->is_list() || v->as_list().size() != 2 || !v->as_list()[1].is_int())
            return detail::bad_op(w.name, "an expression op is [expression, flags]");
        // The expression's own bytes, as sent: between the 2-element list
        // header (one byte, 0x92) and the flags.
        std::size_t flags_size = adapters::detail::encode_msgpack(v->as_list()[1]).size();
        if (w.data[0] != 0x92 || w.data.size() < 1 + flags_size)
            return detail::bad_op(w.name, "an expression op is [expression, flags]");
        std::vector<std::uint8_t> packed(w.data.begin() + 1,
                                         w.data.end() - static_cast<std::ptrdiff_t>(flags_size));
        auto flags = static_cast<std::uint32_t>(v->as_list()[1].as_int());
        if (w.op == opcode::exp_read)
            return kv::op::exp_read(std::move(name), std::move(packed), flags);
        return kv::op::exp_write(std::move(name), std::move(packed), flags);
    }
    default:
        break;
    }
    return fail(status::parameter_error,
                "op type " + std::to_string(w.op) + " on bin '" + name +
                    "' is not supported by kvmodel serve");
}

} // namespace kvmodel::tools::serve
