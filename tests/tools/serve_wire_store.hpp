// tests/tools/serve_wire_store.hpp
//
// A kv::kv_store that goes through `kvmodel serve`'s wire protocol in
// process: operate() packs each kv::operation as the C client does (CDT
// and bit ops as their msgpack [op, args...], with [0xff, ctx, [...]] for a
// context; one as_msg, respond-all-ops), hands the bytes to
// tools::serve::service::handle and unpacks the answer. The recorded CDT
// corpora run through it (serve_corpus_test.cpp), so every list, map, bit,
// HLL and expression op crosses the wire both ways. Test-only: it is the
// client half of the codec.
#pragma once

#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../../tools/serve/service.hpp"

namespace kvmodel::tools::serve::testing {

using bytes_t = std::vector<std::uint8_t>;

/// A selector's argument shape after the return type (as make_cdt_op reads it).
enum class shape : std::uint8_t { value, index, index_count, values, range, relative };

/// The wire code and selector shape of a CDT op; code -1 when the op is not
/// a selector (packed by pack_cdt's own cases) or not packable.
struct cdt_wire {
    int code = -1;
    std::optional<shape> sel;
};

inline cdt_wire wire_of(cdt::op_code c) {
    using cdt::op_code;
    switch (c) {
    case op_code::list_get_by_index:
        return {19, shape::index};
    case op_code::list_get_by_rank:
        return {21, shape::index};
    case op_code::list_get_by_value:
        return {22, shape::value};
    case op_code::list_get_by_value_list:
        return {23, shape::values};
    case op_code::list_get_by_index_range:
        return {24, shape::index_count};
    case op_code::list_get_by_value_range:
        return {25, shape::range};
    case op_code::list_get_by_rank_range:
        return {26, shape::index_count};
    case op_code::list_get_by_value_rel_rank_range:
        return {27, shape::relative};
    case op_code::list_remove_by_index:
        return {32, shape::index};
    case op_code::list_remove_by_rank:
        return {34, shape::index};
    case op_code::list_remove_by_value:
        return {35, shape::value};
    case op_code::list_remove_by_value_list:
        return {36, shape::values};
    case op_code::list_remove_by_index_range:
        return {37, shape::index_count};
    case op_code::list_remove_by_value_range:
        return {38, shape::range};
    case op_code::list_remove_by_rank_range:
        return {39, shape::index_count};
    case op_code::list_remove_by_value_rel_rank_range:
        return {40, shape::relative};
    case op_code::map_remove_by_key:
        return {76, shape::value};
    case op_code::map_remove_by_index:
        return {77, shape::index};
    case op_code::map_remove_by_rank:
        return {79, shape::index};
    case op_code::map_remove_by_key_list:
        return {81, shape::values};
    case op_code::map_remove_by_value:
        return {82, shape::value};
    case op_code::map_remove_by_value_list:
        return {83, shape::values};
    case op_code::map_remove_by_key_range:
        return {84, shape::range};
    case op_code::map_remove_by_index_range:
        return {85, shape::index_count};
    case op_code::map_remove_by_value_range:
        return {86, shape::range};
    case op_code::map_remove_by_rank_range:
        return {87, shape::index_count};
    case op_code::map_remove_by_key_rel_index_range:
        return {88, shape::relative};
    case op_code::map_remove_by_value_rel_rank_range:
        return {89, shape::relative};
    case op_code::map_get_by_key:
        return {97, shape::value};
    case op_code::map_get_by_index:
        return {98, shape::index};
    case op_code::map_get_by_rank:
        return {100, shape::index};
    case op_code::map_get_by_value:
        return {102, shape::value};
    case op_code::map_get_by_key_range:
        return {103, shape::range};
    case op_code::map_get_by_index_range:
        return {104, shape::index_count};
    case op_code::map_get_by_value_range:
        return {105, shape::range};
    case op_code::map_get_by_rank_range:
        return {106, shape::index_count};
    case op_code::map_get_by_key_list:
        return {107, shape::values};
    case op_code::map_get_by_value_list:
        return {108, shape::values};
    case op_code::map_get_by_key_rel_index_range:
        return {109, shape::relative};
    case op_code::map_get_by_value_rel_rank_range:
        return {110, shape::relative};
    default:
        return {};
    }
}

inline value values_list(const std::vector<value>& v) {
    return value(list(v));
}

/// The args after the op code, or nullopt for an op this packer leaves out.
inline std::optional<std::pair<int, std::vector<value>>> cdt_args(const cdt::op& o) {
    using cdt::op_code;
    std::vector<value> a;
    auto lpol = [&](bool with_order) {
        if (with_order)
            a.emplace_back(static_cast<std::int64_t>(o.lpolicy.order));
        a.emplace_back(static_cast<std::int64_t>(o.lpolicy.flags));
    };
    auto morder = [&] {
        a.emplace_back(static_cast<std::int64_t>(o.mpolicy.order));
    };
    if (cdt_wire w = wire_of(o.code); w.sel) {
        a.emplace_back(static_cast<std::int64_t>(o.return_type));
        switch (*w.sel) {
        case shape::value:
            a.push_back(o.key);
            break;
        case shape::index:
            a.emplace_back(o.index);
            break;
        case shape::index_count:
            a.emplace_back(o.index);
            if (o.count)
                a.emplace_back(*o.count);
            break;
        case shape::values:
            a.push_back(values_list(o.values));
            break;
        case shape::range:
            a.push_back(o.begin);
            if (o.end)
                a.push_back(*o.end);
            break;
        case shape::relative:
            a.push_back(o.key);
            a.emplace_back(o.index);
            if (o.count)
                a.emplace_back(*o.count);
            break;
        }
        return std::pair{w.code, std::move(a)};
    }
    auto put_code = [&](int with_policy, int create, int update) {
        if (o.mpolicy.mode == cdt::map_write_mode::create_only)
            return create;
        if (o.mpolicy.mode == cdt::map_write_mode::update_only)
            return update;
        return with_policy;
    };
    switch (o.code) {
    case op_code::list_append:
        a.push_back(o.key);
        lpol(true);
        return std::pair{1, a};
    case op_code::list_append_items:
        a.push_back(values_list(o.values));
        lpol(true);
        return std::pair{2, a};
    case op_code::list_insert:
        a.emplace_back(o.index);
        a.push_back(o.key);
        lpol(false);
        return std::pair{3, a};
    case op_code::list_insert_items:
        a.emplace_back(o.index);
        a.push_back(values_list(o.values));
        lpol(false);
        return std::pair{4, a};
    case op_code::list_pop:
        a.emplace_back(o.index);
        return std::pair{5, a};
    case op_code::list_remove:
        a.emplace_back(o.index);
        return std::pair{7, a};
    case op_code::list_get:
        a.emplace_back(o.index);
        return std::pair{17, a};
    case op_code::list_pop_range:
    case op_code::list_remove_range:
    case op_code::list_get_range:
        a.emplace_back(o.index);
        if (o.count)
            a.emplace_back(*o.count);
        return std::pair{o.code == op_code::list_pop_range      ? 6
                         : o.code == op_code::list_remove_range ? 8
                                                                : 18,
                         a};
    case op_code::list_set:
        a.emplace_back(o.index);
        a.push_back(o.key);
        lpol(false);
        return std::pair{9, a};
    case op_code::list_trim:
        a.emplace_back(o.index);
        a.emplace_back(o.count.value_or(0));
        return std::pair{10, a};
    case op_code::list_clear:
        return std::pair{11, a};
    case op_code::list_increment:
        a.emplace_back(o.index);
        a.push_back(o.val);
        lpol(true);
        return std::pair{12, a};
    case op_code::list_sort:
        a.emplace_back(static_cast<std::int64_t>(o.sort_flags));
        return std::pair{13, a};
    case op_code::list_size:
        return std::pair{16, a};
    case op_code::map_put: {
        int code = put_code(67, 65, 69);
        a.push_back(o.key);
        a.push_back(o.val);
        morder();
        if (code == 67)
            a.emplace_back(static_cast<std::int64_t>(o.mpolicy.flags));
        return std::pair{code, a};
    }
    case op_code::map_put_items: {
        int code = put_code(68, 66, 70);
        map m;
        for (const auto& [k, v] : o.items)
            m.put(k, v);
        a.emplace_back(std::move(m));
        morder();
        if (code == 68)
            a.emplace_back(static_cast<std::int64_t>(o.mpolicy.flags));
        return std::pair{code, a};
    }
    case op_code::map_increment:
    case op_code::map_decrement:
        a.push_back(o.key);
        a.push_back(o.val);
        morder();
        a.emplace_back(static_cast<std::int64_t>(o.mpolicy.flags));
        return std::pair{o.code == op_code::map_increment ? 73 : 74, a};
    case op_code::map_clear:
        return std::pair{75, a};
    case op_code::map_size:
        return std::pair{96, a};
    default:
        return std::nullopt;
    }
}

inline value ctx_list(const std::vector<cdt::ctx_step>& ctx) {
    list l;
    for (const cdt::ctx_step& s : ctx) {
        auto t = static_cast<std::int64_t>(s.type);
        if (s.create && s.type == cdt::ctx_step::kind::list_index)
            t |= s.create_list_order == list_order::ordered ? 0xc0 : (s.pad ? 0x80 : 0x40);
        if (s.create && s.type == cdt::ctx_step::kind::map_key)
            t |= s.create_map_order == map_order::key_value_ordered ? 0xc0
                 : s.create_map_order == map_order::key_ordered     ? 0x80
                                                                    : 0x40;
        l.push_back(value(t));
        bool by_int =
            s.type == cdt::ctx_step::kind::list_index || s.type == cdt::ctx_step::kind::list_rank ||
            s.type == cdt::ctx_step::kind::map_index || s.type == cdt::ctx_step::kind::map_rank;
        l.push_back(by_int ? value(s.index) : s.val);
    }
    return value(std::move(l));
}

// Set type (list_create / list_set_order / map_create / map_set_policy):
// [0 or 64, order | 0x10 for a persisted index]; a create puts its flag on
// the last ctx step's type (as_cdt_pack_header_flag).
inline std::optional<bytes_t> pack_set_type(const cdt::op& o) {
    using cdt::op_code;
    bool is_list = o.code == op_code::list_create || o.code == op_code::list_set_order;
    bool create = o.code == op_code::list_create || o.code == op_code::map_create;
    std::int64_t order =
        is_list ? static_cast<std::int64_t>(o.order) : static_cast<std::int64_t>(o.morder);
    value packed(
        list{value(std::int64_t{is_list ? 0 : 64}), value(order | (o.persist_index ? 0x10 : 0))});
    if (o.ctx.empty())
        return adapters::detail::encode_msgpack(packed);
    value ctx = ctx_list(o.ctx);
    if (create) {
        std::int64_t flag = is_list
                                ? (o.order == list_order::ordered ? 0xc0 : (o.pad ? 0x80 : 0x40))
                            : o.morder == map_order::key_value_ordered ? 0xc0
                            : o.morder == map_order::key_ordered       ? 0x80
                                                                       : 0x40;
        list steps = ctx.as_list();
        steps.set(steps.size() - 2, value(steps[steps.size() - 2].as_int() | flag));
        ctx = value(std::move(steps));
    }
    return adapters::detail::encode_msgpack(value(list{value(std::int64_t{0xff}), ctx, packed}));
}

inline std::optional<bytes_t> pack_cdt(const cdt::op& o) {
    using cdt::op_code;
    if (o.code == op_code::list_create || o.code == op_code::list_set_order ||
        o.code == op_code::map_create || o.code == op_code::map_set_policy)
        return pack_set_type(o);
    auto args = cdt_args(o);
    if (!args)
        return std::nullopt;
    list l;
    l.push_back(value(std::int64_t{args->first}));
    for (value& v : args->second)
        l.push_back(std::move(v));
    value packed(std::move(l));
    if (!o.ctx.empty())
        packed = value(list{value(std::int64_t{0xff}), ctx_list(o.ctx), std::move(packed)});
    return adapters::detail::encode_msgpack(packed);
}

inline bytes_t pack_bit(const cdt::bit_op& o) {
    using cdt::bit_op_code;
    list l{value(static_cast<std::int64_t>(o.code))};
    auto i = [&](std::int64_t v) {
        l.push_back(value(v));
    };
    auto pol = [&] {
        i(static_cast<std::int64_t>(o.policy.flags));
    };
    switch (o.code) {
    case bit_op_code::bit_resize:
        i(o.byte_size);
        pol();
        i(o.resize_flags);
        break;
    case bit_op_code::bit_insert:
        i(o.byte_offset);
        l.push_back(value(o.value));
        pol();
        break;
    case bit_op_code::bit_remove:
        i(o.byte_offset);
        i(o.byte_size);
        pol();
        break;
    case bit_op_code::bit_set:
    case bit_op_code::bit_or:
    case bit_op_code::bit_xor:
    case bit_op_code::bit_and:
        i(o.bit_offset);
        i(o.bit_size);
        l.push_back(value(o.value));
        pol();
        break;
    case bit_op_code::bit_not:
        i(o.bit_offset);
        i(o.bit_size);
        pol();
        break;
    case bit_op_code::bit_lshift:
    case bit_op_code::bit_rshift:
        i(o.bit_offset);
        i(o.bit_size);
        i(o.shift);
        pol();
        break;
    case bit_op_code::bit_add:
    case bit_op_code::bit_subtract:
        i(o.bit_offset);
        i(o.bit_size);
        i(o.int_value);
        pol();
        i(static_cast<std::int64_t>(o.action) | (o.sign ? 1 : 0));
        break;
    case bit_op_code::bit_set_int:
        i(o.bit_offset);
        i(o.bit_size);
        i(o.int_value);
        pol();
        break;
    case bit_op_code::bit_lscan:
    case bit_op_code::bit_rscan:
        i(o.bit_offset);
        i(o.bit_size);
        l.push_back(value(o.scan_value));
        break;
    case bit_op_code::bit_get_int:
        i(o.bit_offset);
        i(o.bit_size);
        i(o.sign ? 1 : 0);
        break;
    default:
        i(o.bit_offset);
        i(o.bit_size);
        break;
    }
    return adapters::detail::encode_msgpack(value(std::move(l)));
}

// An HLL op as as_operations_hll_* packs it: [op, args...], the arguments
// by position (init: index bits, minhash bits, flags; add: elements, index
// bits, minhash bits, flags; set_union: sketches, flags; fold: index bits;
// the union / intersect / similarity reads: sketches; may_contain:
// elements), as many as the op carries (n_args).
inline bytes_t pack_hll(const cdt::hll_op& o) {
    using c = cdt::hll_op_code;
    list l{value(static_cast<std::int64_t>(o.code))};
    std::vector<value> a;
    auto sketches = [&] {
        list hl;
        for (const bytes& h : o.hlls)
            hl.push_back(value(h));
        a.emplace_back(std::move(hl));
    };
    auto flags = [&] {
        a.emplace_back(static_cast<std::int64_t>(o.policy.flags));
    };
    switch (o.code) {
    case c::hll_init:
        a = {value(o.index_bit_count), value(o.mh_bit_count)};
        flags();
        break;
    case c::hll_add:
        a = {value(list(o.list)), value(o.index_bit_count), value(o.mh_bit_count)};
        flags();
        break;
    case c::hll_set_union:
        sketches();
        flags();
        break;
    case c::hll_fold:
        a = {value(o.index_bit_count)};
        break;
    case c::hll_get_union:
    case c::hll_get_union_count:
    case c::hll_get_intersect_count:
    case c::hll_get_similarity:
        sketches();
        break;
    case c::hll_may_contain:
        a = {value(list(o.list))};
        break;
    default:
        break;
    }
    for (std::size_t i = 0; i < a.size() && i < o.n_args; ++i)
        l.push_back(std::move(a[i]));
    return adapters::detail::encode_msgpack(value(std::move(l)));
}

// An expression op as as_operations_exp_read / _write packs it: a 2-element
// msgpack list of the packed expression and the flags.
inline bytes_t pack_exp(std::span<const std::uint8_t> packed, std::uint32_t flags) {
    bytes_t out;
    out.reserve(packed.size() + 10);
    out.push_back(0x92);
    for (std::uint8_t b : packed)
        out.push_back(b);
    adapters::detail::encode_msgpack(value(static_cast<std::int64_t>(flags)), out);
    return out;
}

/// Appends one op (u32 size, op, particle type, flags 0, name, value bytes).
inline void put_op(bytes_t& out,
                   std::uint8_t op,
                   std::uint8_t type,
                   std::string_view name,
                   std::span<const std::uint8_t> data) {
    put_be(out, 4 + name.size() + data.size(), 4);
    out.push_back(op);
    out.push_back(type);
    out.push_back(0);
    out.push_back(static_cast<std::uint8_t>(name.size()));
    out.insert(out.end(), name.begin(), name.end());
    out.insert(out.end(), data.begin(), data.end());
}

/// Appends one field (u32 size, type, data).
inline void put_field(bytes_t& out, std::uint8_t type, std::span<const std::uint8_t> data) {
    put_be(out, data.size() + 1, 4);
    out.push_back(type);
    out.insert(out.end(), data.begin(), data.end());
}

/// The store. Not thread-safe (one service call at a time is enough here).
class wire_store {
public:
    explicit wire_store(service& svc)
        : m_svc(svc) {}

    result<kv::record> get(const kv::key& k, const kv::read_policy& rp = {}) {
        return send(k, {}, info1::read | info1::get_all, 0, rp.filter_exp);
    }
    result<void> remove(const kv::key& k, const kv::write_policy& wp = {}) {
        auto r = send(k, {}, 0, info2::write | info2::remove, wp.filter_exp);
        if (!r)
            return r.error();
        return {};
    }
    result<kv::record>
    operate(const kv::key& k, std::span<const kv::operation> ops, const kv::write_policy& wp = {}) {
        std::uint8_t i1 = 0;
        std::uint8_t i2 = info2::respond_all_ops;
        for (const kv::operation& o : ops)
            if (kv::is_read(o))
                i1 |= info1::read;
            else
                i2 |= info2::write;
        return send(k, ops, i1, i2, wp.filter_exp, wp.send_key, wp.ttl);
    }

private:
    // One op's bytes; false for what this packer leaves out.
    static bool pack(const kv::operation& o, bytes_t& out) {
        bytes_t data;
        auto plain = [&](std::uint8_t code, const std::string& bin, const value& v) {
            std::uint8_t type = append_particle(v, data);
            put_op(out, code, type, bin, data);
            return true;
        };
        switch (kv::kind(o)) {
        case kv::op_kind::read:
            put_op(out, opcode::read, 0, std::get<kv::read_op>(o).bin, data);
            return true;
        case kv::op_kind::read_all:
            put_op(out, opcode::read, 0, "", data);
            return true;
        case kv::op_kind::write:
            return plain(
                opcode::write, std::get<kv::write_op>(o).bin, std::get<kv::write_op>(o).val);
        case kv::op_kind::add:
            return plain(opcode::incr, std::get<kv::add_op>(o).bin, std::get<kv::add_op>(o).delta);
        case kv::op_kind::append:
            return plain(
                opcode::append, std::get<kv::append_op>(o).bin, std::get<kv::append_op>(o).val);
        case kv::op_kind::prepend:
            return plain(
                opcode::prepend, std::get<kv::prepend_op>(o).bin, std::get<kv::prepend_op>(o).val);
        case kv::op_kind::touch:
            put_op(out, opcode::touch, 0, "", data);
            return true;
        case kv::op_kind::delete_record:
            put_op(out, opcode::remove, 0, "", data);
            return true;
        case kv::op_kind::cdt: {
            const auto& c = std::get<kv::cdt_operation>(o);
            auto packed = pack_cdt(c.op);
            if (!packed)
                return false;
            bool read = cdt::classify(c.op.code) == cdt::op_class::read;
            put_op(
                out, read ? opcode::cdt_read : opcode::cdt_modify, particle::blob, c.bin, *packed);
            return true;
        }
        case kv::op_kind::bit: {
            const auto& b = std::get<kv::bit_operation>(o);
            put_op(out,
                   cdt::is_bit_read(b.op.code) ? opcode::bit_read : opcode::bit_modify,
                   particle::blob,
                   b.bin,
                   pack_bit(b.op));
            return true;
        }
        case kv::op_kind::hll: {
            const auto& h = std::get<kv::hll_operation>(o);
            put_op(out,
                   cdt::is_hll_read(h.op.code) ? opcode::hll_read : opcode::hll_modify,
                   particle::blob,
                   h.bin,
                   pack_hll(h.op));
            return true;
        }
        case kv::op_kind::exp_read: {
            const auto& e = std::get<kv::exp_read_op>(o);
            put_op(out, opcode::exp_read, particle::blob, e.name, pack_exp(e.exp, e.flags));
            return true;
        }
        case kv::op_kind::exp_write: {
            const auto& e = std::get<kv::exp_write_op>(o);
            put_op(out, opcode::exp_modify, particle::blob, e.bin, pack_exp(e.exp, e.flags));
            return true;
        }
        default:
            return false;
        }
    }

    result<kv::record> send(const kv::key& k,
                            std::span<const kv::operation> ops,
                            std::uint8_t i1,
                            std::uint8_t i2,
                            std::span<const std::uint8_t> filter,
                            bool send_key = false,
                            std::int64_t ttl = kv::ttl_namespace_default) {
        auto body = request(k, ops, i1, i2, filter, send_key, ttl);
        if (!body)
            return body.error();
        reply r = m_svc.handle(0, proto::type_message, *body);
        return answer(r.bytes, ops);
    }

public:
    /// One command's as_msg (the proto body): the key's namespace, set and
    /// digest, the user key when `send_key`, the filter expression when
    /// there is one, the record TTL (kv::write_policy's: -1 never, -2 do not
    /// update, as the C client sends them), the ops.
    static result<bytes_t> request(const kv::key& k,
                                   std::span<const kv::operation> ops,
                                   std::uint8_t i1,
                                   std::uint8_t i2,
                                   std::span<const std::uint8_t> filter = {},
                                   bool send_key = false,
                                   std::int64_t ttl = kv::ttl_namespace_default) {
        bool with_key = send_key && k.user_key();
        bytes_t body{22, i1, i2, 0, 0, 0};
        put_be(body, 0, 4); // generation
        // The record ttl: -1 and -2 go as 0xFFFFFFFF and 0xFFFFFFFE.
        put_be(body, static_cast<std::uint32_t>(ttl), 4);
        put_be(body, 0, 4); // transaction ttl
        put_be(body, 3U + (filter.empty() ? 0U : 1U) + (with_key ? 1U : 0U), 2);
        put_be(body, ops.size(), 2);
        put_field(body,
                  field::ns,
                  std::span(reinterpret_cast<const std::uint8_t*>(k.ns().data()), k.ns().size()));
        put_field(body,
                  field::set,
                  std::span(reinterpret_cast<const std::uint8_t*>(k.set().data()), k.set().size()));
        put_field(body, field::digest, k.digest());
        if (with_key) {
            bytes_t kb(1);
            kb[0] = append_particle(*k.user_key(), kb);
            put_field(body, field::key, kb);
        }
        if (!filter.empty())
            put_field(body, field::filter_exp, filter);
        for (const kv::operation& o : ops)
            if (!pack(o, body))
                return fail(status::client,
                            std::string("wire_store: cannot pack ") + std::string(kv::op_name(o)));
        return body;
    }

    /// The record an answer (proto header and as_msg) to `ops` carries.
    static result<kv::record> answer(std::span<const std::uint8_t> bytes,
                                     std::span<const kv::operation> ops) {
        if (bytes.size() < proto::header_size)
            return fail(status::client, "wire_store: the connection was closed");
        auto m = parse_message(bytes.subspan(proto::header_size));
        if (!m)
            return fail(status::client, "wire_store: bad answer: " + m.error().message);
        if (m->h.result_code != 0)
            return fail(static_cast<status>(m->h.result_code),
                        "wire: result code " + std::to_string(m->h.result_code));
        kv::record rec;
        rec.generation = m->h.generation;
        // A touch gets no answer op: nil here.
        auto record_level = [&](std::size_t i) {
            return i < ops.size() && kv::kind(ops[i]) == kv::op_kind::touch;
        };
        for (std::size_t i = 0, at = 0; at < m->ops.size(); ++i) {
            if (record_level(i)) {
                rec.results.emplace_back();
                continue;
            }
            const wire_op& w = m->ops[at++];
            bool pairs = false;
            if (i < ops.size())
                if (const auto* c = std::get_if<kv::cdt_operation>(&ops[i]))
                    pairs = cdt::is_map_op(c->op.code) &&
                            (c->op.return_type & 0xffff) ==
                                static_cast<std::int32_t>(cdt::return_type::key_value);
            result<value> v = (w.particle_type == particle::map && pairs)
                                  ? adapters::detail::decode_msgpack(w.data, true)
                                  : particle_value(w.particle_type, w.data);
            if (!v)
                return fail(status::client, "wire_store: bad value: " + v.error().message);
            if (ops.empty())
                rec.bins.push_back(kv::bin{std::string(w.name), std::move(*v)});
            else
                rec.results.push_back(std::move(*v));
        }
        while (!ops.empty() && rec.results.size() < ops.size() && record_level(rec.results.size()))
            rec.results.emplace_back();
        return rec;
    }

private:
    service& m_svc;
};

} // namespace kvmodel::tools::serve::testing
