// kvmodel/cdt/context.hpp
//
// Nested contexts: resolves an op's ctx steps (list_index, list_rank,
// list_value, map_index, map_key, map_rank, map_value and the create steps
// list_index_create / map_key_create) down to the target container, applies
// the op there with the list or map engine, and writes the result back into
// its parents. Rules: AEROSPIKE-CDT.md §10-§12; the server's cdt_context_dig
// and list/map_subcontext_by_* (as/src/base/cdt.c, particle_list.c,
// particle_map.c).
//
//  * A step that finds nothing (index or rank out of range, missing key, no
//    equal value), a list step on a map or a map step on a list, or a step
//    into something that is not a container: OP_NOT_APPLICABLE. The op's own
//    target of the wrong type: BIN_TYPE_ERROR (from the engine). A bin that is
//    not a list or map at all: PARAMETER_ERROR (the server's cdt_context_dig).
//  * list_value / map_value pick the first equal element (list order; key
//    order for maps); among equal values list_rank picks as the server's
//    order heap does (list_heap_window), map_rank by key.
//  * Create steps: a missing element is created, as the container the next
//    step (or the op) needs; the step's order/pad flags describe the container
//    the step indexes into and apply only when that container is created too.
//    An index equal to the size appends; past the size pads with nil when the
//    step pads (an ORDERED step never pads), else OP_NOT_APPLICABLE; in an
//    ORDERED list the index is ignored and the element is sorted in. Below a
//    created element only list_index (-1 or 0 unless padding or ORDERED) and
//    map_key (no INF/WILDCARD key) steps can follow.
//  * Read ops reaching a missing element through a create step:
//    OP_NOT_APPLICABLE. Remove-type ops through a create step create nothing
//    and answer nil (on a missing bin too). A modify op that ends as a no-op
//    without writing (NO_FAIL denials of list writes and of every item of a
//    map put / put_items, sorting nothing) creates nothing either.
//  * A container modified through a context inside an ORDERED list is
//    re-sorted into place.
//  * list_create / map_create with a context are the clients' encoding: the
//    last step gets the create flag of the order (and pad), the op sets the
//    order of the container it lands on.
//
// The server's crash cases (AEROSPIKE-CDT.md §12) get defined answers:
//  (a) a create index before the start of an existing UNORDERED list
//      (index < -size): OP_NOT_APPLICABLE;
//  (b) index -1 with pad where the list is created: the same as index 0;
//  (c), (d) persisted-index lists: the plain result;
//  (e) padding to a huge index: RECORD_TOO_BIG (every element takes at least
//      a byte, so a list longer than max-record-size bytes cannot fit),
//      before anything is allocated.
//
// Costs: O(log n) per level on a level of n elements (a list_value / map_value
// step with a WILDCARD pattern O(log n + k) over its k matches); a write moves
// the nested container out of its parent, modifies it and moves it back, never
// copying it. A read walks without writing and hands the op a copy-on-write
// handle of its target: a long nested list that has no rank index yet (one
// only ever appended to) is then indexed on that handle, O(n log n), and the
// index dropped with it; a write that ranks builds it in place instead.
// A step into an ORDERED list that lands on a container costs O(log n) more
// on the way back, to re-sort the changed container into place.
// On error the bin is unchanged; out of memory, see apply_in_context.
#pragma once

#include <kvmodel/cdt/detail/common.hpp>
#include <kvmodel/cdt/detail/list_engine.hpp>
#include <kvmodel/cdt/detail/map_engine.hpp>
#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kvmodel::cdt::detail {

/// The create-flag bits of a step as the clients put them on the wire
/// (AS_CDT_CTX_CREATE_*): 0x40, 0x80 (list: pad; map: K_ORDERED), 0xc0
/// (list: ORDERED; map: KV_ORDERED); 0 when the step does not create.
inline unsigned ctx_create_bits(const ctx_step& s) noexcept {
    if (!s.create)
        return 0;
    if (s.type == ctx_step::kind::map_key || s.type == ctx_step::kind::map_index ||
        s.type == ctx_step::kind::map_rank || s.type == ctx_step::kind::map_value) {
        switch (s.create_map_order) {
        case map_order::key_ordered:
            return 0x80;
        case map_order::key_value_ordered:
            return 0xc0;
        default:
            return 0x40;
        }
    }
    if (s.create_list_order == list_order::ordered)
        return 0xc0;
    return s.pad ? 0x80 : 0x40;
}

/// Sets a step's create flag from wire bits.
inline void ctx_set_create_bits(ctx_step& s, unsigned bits) noexcept {
    s.create = bits != 0;
    s.create_list_order = (bits & 0xc0) == 0xc0 ? list_order::ordered : list_order::unordered;
    s.pad = (bits & 0xc0) == 0x80;
    s.create_map_order = (bits & 0xc0) == 0xc0   ? map_order::key_value_ordered
                         : (bits & 0xc0) == 0x80 ? map_order::key_ordered
                                                 : map_order::unordered;
}

inline std::string ctx_step_text(const ctx_step& s) {
    switch (s.type) {
    case ctx_step::kind::list_index:
        return std::string(s.create ? "list_index_create(" : "list_index(") +
               std::to_string(s.index) + ")";
    case ctx_step::kind::list_rank:
        return "list_rank(" + std::to_string(s.index) + ")";
    case ctx_step::kind::list_value:
        return "list_value(" + to_string(s.val) + ")";
    case ctx_step::kind::map_index:
        return "map_index(" + std::to_string(s.index) + ")";
    case ctx_step::kind::map_rank:
        return "map_rank(" + std::to_string(s.index) + ")";
    case ctx_step::kind::map_key:
        return std::string(s.create ? "map_key_create(" : "map_key(") + to_string(s.val) + ")";
    case ctx_step::kind::map_value:
        return "map_value(" + to_string(s.val) + ")";
    }
    return "?";
}

inline bool ctx_is_map_step(const ctx_step& s) noexcept {
    return s.type == ctx_step::kind::map_index || s.type == ctx_step::kind::map_rank ||
           s.type == ctx_step::kind::map_key || s.type == ctx_step::kind::map_value;
}

/// Where a step lands in a container: an existing element, or where a create
/// step puts a new one.
struct ctx_hit {
    std::size_t pos = 0; // element index (list position / map key order)
    bool create = false; // missing: create it
    std::size_t pad = 0; // list create: nils before the new element
};

/// Resolves and applies one op through its context.
class ctx_apply {
public:
    ctx_apply(const op& o, std::size_t max_record_size, bool strong = false)
        : m_op(o)
        , m_steps(o.ctx)
        , m_class(classify(o.code))
        , m_limit(max_record_size)
        , m_strong(strong) {
        // list_create / map_create: the clients OR the order's create flag into
        // the last step and send set-order.
        if (!m_steps.empty() && (o.code == op_code::list_create || o.code == op_code::map_create)) {
            unsigned bits = 0;
            if (o.code == op_code::list_create)
                bits = o.order == list_order::ordered ? 0xc0 : (o.pad ? 0x80 : 0x40);
            else
                bits = o.morder == map_order::key_value_ordered ? 0xc0
                       : o.morder == map_order::key_ordered     ? 0x80
                                                                : 0x40;
            ctx_step& last = m_steps.back();
            ctx_set_create_bits(last, ctx_create_bits(last) | bits);
        }
    }

    result<value> run(std::optional<value>& bin) {
        if (m_steps.empty()) {
            if (is_map_op(m_op.code))
                return apply_map_op(bin, m_op);
            return apply_list_op(bin, m_op, m_limit);
        }
        if (!bin) {
            // Reads of a missing bin never reach the CDT code.
            if (m_class == op_class::read)
                return value();
            const ctx_step& first = m_steps.front();
            if (!first.create ||
                (first.type != ctx_step::kind::list_index && first.type != ctx_step::kind::map_key))
                return fail(step_error(0, "the bin does not exist and the step does not create"));
            std::size_t pads = 0;
            if (result<void> chain_ok = check_chain(0, pads); !chain_ok)
                return fail(chain_ok.error());
            if (m_class == op_class::remove)
                return value();
            std::optional<value> leaf;
            result<value> r = apply_target(leaf, false);
            if (!r || !leaf)
                return r;
            if (pads > m_limit)
                return too_big(pads);
            bin = build_chain(0, std::move(*leaf));
            return r;
        }
        if (!bin->is_list() && !bin->is_map())
            return fail(op_error(status::parameter_error,
                                 m_op.code,
                                 "ctx on a bin that holds a " +
                                     std::string(type_name(bin->type())) + ", not a list or map"));
        if (m_class == op_class::read)
            return read(*bin);
        return modify(*bin, 0);
    }

private:
    error step_error(std::size_t i, const std::string& what) const {
        return op_error(status::op_not_applicable,
                        m_op.code,
                        "ctx step " + std::to_string(i + 1) + " " + ctx_step_text(m_steps[i]) +
                            ": " + what);
    }
    error too_big(std::size_t elements) const {
        return op_error(status::record_too_big,
                        m_op.code,
                        "ctx padding makes " + std::to_string(elements) +
                            " elements, more bytes than max-record-size " +
                            std::to_string(m_limit));
    }

    /// Where step i lands in container c (a list or map). `may_build` lets a
    /// long list build its rank index first (modify path: the list is ours).
    result<ctx_hit> resolve(value& c, std::size_t i, bool may_build) const {
        const ctx_step& s = m_steps[i];
        if (c.is_list()) {
            list& l = c.as_list();
            if (ctx_is_map_step(s))
                return fail(step_error(i, "a map step on a list"));
            std::size_t n = l.size();
            bool by_index = s.type == ctx_step::kind::list_index ||
                            (s.type == ctx_step::kind::list_rank && l.is_ordered());
            if (by_index) {
                if (auto p = single_position(s.index, n))
                    return ctx_hit{*p, false, 0};
                if (!s.create)
                    return fail(
                        step_error(i, "index out of range (size " + std::to_string(n) + ")"));
                auto sn = static_cast<std::int64_t>(n);
                if ((n == 0 && s.index == -1) || s.index == sn)
                    return ctx_hit{n, true, 0};
                // Past the end (or, crash case (a), before the start): an
                // ORDERED list sorts the new element in; else only padding.
                if (l.is_ordered())
                    return ctx_hit{n, true, 0};
                if (s.index > sn && s.pad && s.create_list_order != list_order::ordered)
                    return ctx_hit{n, true, static_cast<std::size_t>(s.index - sn)};
                return fail(step_error(
                    i,
                    s.index < 0
                        ? "index before the start of the list (size " + std::to_string(n) + ")"
                        : "index past the end without pad (size " + std::to_string(n) + ")"));
            }
            if (may_build)
                l.build_index();
            if (s.type == ctx_step::kind::list_rank) {
                auto p = single_position(s.index, n);
                if (!p)
                    return fail(
                        step_error(i, "rank out of range (size " + std::to_string(n) + ")"));
                // Equal values: the server's heap picks one (list_heap_window).
                if (detail::list_window_splits_ties(l, *p, *p + 1))
                    return ctx_hit{detail::list_heap_window(l, *p, 1).front(), false, 0};
                return ctx_hit{l.index_at_rank(*p), false, 0};
            }
            // list_value: the first equal element in list order.
            std::size_t lo = l.count_less(s.val);
            std::size_t hi = l.count_less_equal(s.val);
            if (lo == hi)
                return fail(step_error(i, "no element equals the value"));
            if (l.is_ordered())
                return ctx_hit{lo, false, 0};
            if (!s.val.contains_wildcard())
                return ctx_hit{l.index_at_rank(lo), false, 0};
            std::vector<std::size_t> pos = l.indexes_by_rank(lo, hi);
            return ctx_hit{*std::min_element(pos.begin(), pos.end()), false, 0};
        }
        map& m = c.as_map();
        if (!ctx_is_map_step(s))
            return fail(step_error(i, "a list step on a map"));
        std::size_t n = m.size();
        switch (s.type) {
        case ctx_step::kind::map_index: {
            auto p = single_position(s.index, n);
            if (!p)
                return fail(step_error(i, "index out of range (size " + std::to_string(n) + ")"));
            return ctx_hit{*p, false, 0};
        }
        case ctx_step::kind::map_rank: {
            auto p = single_position(s.index, n);
            if (!p)
                return fail(step_error(i, "rank out of range (size " + std::to_string(n) + ")"));
            return ctx_hit{m.index_at_rank(*p), false, 0};
        }
        case ctx_step::kind::map_key: {
            // The server rewrites the key for the lookup, which a WILDCARD or
            // INF fails (cdt_untrusted_rewrite): never found, never created.
            if (!storable(s.val))
                return fail(step_error(i, "a key holding INF/WILDCARD is never found"));
            if (auto p = m.find(s.val))
                return ctx_hit{*p, false, 0};
            if (!s.create)
                return fail(step_error(i, "key not found"));
            return ctx_hit{0, true, 0};
        }
        default: {
            // map_value: the first equal value in key order.
            std::size_t lo = m.count_less_value(s.val);
            std::size_t hi = m.count_less_equal_value(s.val);
            if (lo == hi)
                return fail(step_error(i, "no value equals the value"));
            if (!s.val.contains_wildcard())
                return ctx_hit{m.index_at_rank(lo), false, 0};
            // A persisted value index (top level only): where the server's
            // search of it stops in the equal run.
            if (i == 0 && m.order() == map_order::key_value_ordered && m.persist_index())
                return ctx_hit{m.index_at_rank(detail::map_indexed_value_start(m, s.val).rank),
                               false,
                               0};
            std::vector<std::size_t> idx = m.indexes_by_rank(lo, hi);
            return ctx_hit{*std::min_element(idx.begin(), idx.end()), false, 0};
        }
        }
    }

    /// Checks the steps from `from` on as containers to create (the server's
    /// cdt_context_count_create_sz) and counts the elements they make.
    /// result<void>, not optional<error>: a type every TU has already.
    result<void> check_chain(std::size_t from, std::size_t& elements) const {
        for (std::size_t i = from; i < m_steps.size(); ++i) {
            const ctx_step& s = m_steps[i];
            if (s.type == ctx_step::kind::map_key) {
                if (!storable(s.val))
                    return step_error(i, "cannot create a key holding INF/WILDCARD");
                elements = add_sat(elements, 1);
                continue;
            }
            if (s.type != ctx_step::kind::list_index)
                return step_error(i, "cannot create an element by this step");
            if (s.index < -1)
                return step_error(i, "index before the start of a created list");
            if (s.create && s.create_list_order == list_order::ordered) {
                elements = add_sat(elements, 1);
            } else if (s.create && s.pad) {
                // Crash case (b): index -1 pads like index 0.
                elements = add_sat(
                    elements, static_cast<std::size_t>(std::max<std::int64_t>(s.index, 0)) + 1);
            } else {
                if (s.index > 0)
                    return step_error(i, "index past the end of a created list without pad");
                elements = add_sat(elements, 1);
            }
        }
        return {};
    }
    static std::size_t add_sat(std::size_t a, std::size_t b) noexcept {
        return a > std::numeric_limits<std::size_t>::max() - b
                   ? std::numeric_limits<std::size_t>::max()
                   : a + b;
    }

    /// The server reads the ctx and the op's arguments with one parser whose
    /// "holds a WILDCARD or INF" mark is sticky (msgpack_in_vec
    /// has_nonstorage), and refuses an argument to be stored while the mark is
    /// on: so a list_value or map_value step holding one makes every op that
    /// stores a value fail with PARAMETER_ERROR. Every map_key step clears the
    /// mark before it reads its key. The first `dug` steps were walked; the
    /// ones after a create are read again only to size what they create.
    result<void> nonstorage_mark(std::size_t dug) const {
        switch (m_op.code) {
        case op_code::list_append:
        case op_code::list_append_items:
        case op_code::list_insert:
        case op_code::list_insert_items:
        case op_code::list_set:
        case op_code::map_put:
        case op_code::map_put_items:
            break;
        default:
            return {};
        }
        bool mark = false;
        for (std::size_t i = 0; i < m_steps.size(); ++i) {
            const ctx_step& s = m_steps[i];
            if (s.type == ctx_step::kind::map_key)
                mark = false; // read afresh (a key that would set it fails the step)
            else if (i < dug && !storable(s.val))
                mark = true;
        }
        if (!mark)
            return {};
        return op_error(status::parameter_error,
                        m_op.code,
                        "a ctx value holding WILDCARD or INF: the server then refuses a value "
                        "to store");
    }

    /// The containers of steps [from, end) around leaf, innermost first.
    value build_chain(std::size_t from, value leaf) const {
        value elem = std::move(leaf);
        for (std::size_t i = m_steps.size(); i-- > from;) {
            const ctx_step& s = m_steps[i];
            if (s.type == ctx_step::kind::map_key) {
                map m(s.create ? s.create_map_order : map_order::unordered);
                m.put(s.val, std::move(elem));
                elem = value(std::move(m));
                continue;
            }
            if (s.create && s.create_list_order == list_order::ordered) {
                list l(list_order::ordered);
                l.push_back(std::move(elem));
                elem = value(std::move(l));
                continue;
            }
            list l;
            if (s.create && s.pad)
                for (std::int64_t k = 0; k < s.index; ++k)
                    l.push_back(value());
            l.push_back(std::move(elem));
            elem = value(std::move(l));
        }
        return elem;
    }

    /// The op on its target (nullopt when a create step made room for it).
    result<value> apply_target(std::optional<value>& target, bool bin_exists = true) const {
        if (is_map_op(m_op.code)) {
            bool was_absent = !target;
            result<value> r = apply_map_op(target, m_op, false);
            // A created map that a put or a non-empty put_items left empty:
            // NO_FAIL denied every item, and the server creates nothing then
            // (an empty put_items, or an increment, still creates the map).
            bool denied = m_op.code == op_code::map_put ||
                          (m_op.code == op_code::map_put_items && !m_op.items.empty());
            if (r && was_absent && denied && target && target->as_map().empty())
                target.reset();
            return r;
        }
        // sort refuses a dead bin (BIN_TYPE_ERROR); in a live one, the empty
        // list a create step stands for has nothing to sort: a no-op.
        if (!target && m_op.code == op_code::list_sort && bin_exists)
            return value();
        list_run run;
        run.max_record_size = m_limit;
        run.top_level = false;
        bool was_absent = !target;
        result<value> r = apply_list_op(target, m_op, run);
        // A created list the op did not write (NO_FAIL no-op, nothing to sort)
        // is not kept: the server creates nothing then.
        if (r && was_absent && !run.wrote)
            target.reset();
        return r;
    }

public:
    /// The element the steps select in top, walked without touching
    /// anything (what a read op applies to; the server's
    /// as_bin_cdt_get_by_context).
    result<const value*> dig(const value& top) const {
        const value* cur = &top;
        for (std::size_t i = 0; i < m_steps.size(); ++i) {
            if (!cur->is_list() && !cur->is_map())
                return fail(step_error(i,
                                       "steps into a " + std::string(type_name(cur->type())) +
                                           ", not a container"));
            value probe = *cur; // O(1): containers are shared handles
            result<ctx_hit> h = resolve(probe, i, false);
            if (!h)
                return fail(h.error());
            if (h->create)
                return fail(step_error(i, "element not found (a read creates nothing)"));
            cur = cur->is_list() ? &cur->as_list()[h->pos] : &cur->as_map().value_at(h->pos);
        }
        return cur;
    }

private:
    /// Read ops: walk without touching anything, apply to a copy (O(1)).
    result<value> read(const value& top) const {
        result<const value*> cur = dig(top);
        if (!cur)
            return fail(cur.error());
        std::optional<value> target = **cur;
        return apply_target(target);
    }

    /// Modify and remove ops: step i in container c (a list or map this call
    /// may change; on error it is left as it was).
    result<value> modify(value& c, std::size_t i) {
        if (!c.is_list() && !c.is_map())
            return fail(step_error(
                i, "steps into a " + std::string(type_name(c.type())) + ", not a container"));
        result<ctx_hit> h = resolve(c, i, true);
        if (!h)
            return fail(h.error());
        if (h->create)
            return create_at(c, i, *h);

        // The child is moved out (no copy: a write into a nested container
        // costs what the op costs), or in the strong mode copied - its
        // container is then cloned by the op, and c changes only when the
        // changed child replaces the old one.
        value child;
        if (m_strong)
            child = c.is_list() ? c.as_list()[h->pos] : c.as_map().value_at(h->pos);
        else
            child = c.is_list() ? c.as_list().take(h->pos) : c.as_map().take_value_at(h->pos);
        result<value> r;
        try {
            r = [&]() -> result<value> {
                if (i + 1 < m_steps.size())
                    return modify(child, i + 1);
                // The server checks the target's type first (BIN_TYPE_ERROR).
                bool typed = is_map_op(m_op.code) ? child.is_map() : child.is_list();
                if (result<void> mark_ok = nonstorage_mark(m_steps.size()); !mark_ok && typed)
                    return fail(mark_ok.error());
                std::optional<value> target(std::move(child));
                result<value> out = apply_target(target);
                child = std::move(*target);
                return out;
            }();
        } catch (...) {
            // Out of memory below: the child goes back if it can.
            if (!m_strong) {
                try {
                    put_back(c, h->pos, std::move(child), false);
                } catch (...) { // NOLINT(bugprone-empty-catch): the first failure is the one to report
                }
            }
            throw;
        }
        if (!m_strong || r.has_value())
            put_back(c, h->pos, std::move(child), r.has_value());
        return r;
    }

    /// Puts a child back where it was taken from (in place of the element at
    /// pos); after a successful change inside an ORDERED list, where its new
    /// value sorts: before every other element not below it. The new element
    /// goes in before the old one leaves, so running out of memory never
    /// loses it.
    static void put_back(value& c, std::size_t pos, value child, bool changed) {
        if (c.is_map()) {
            c.as_map().set_value_at(pos, std::move(child));
            return;
        }
        list& l = c.as_list();
        if (!changed || !l.is_ordered()) {
            l.set(pos, std::move(child));
            return;
        }
        // Its place among the others (the element at pos counted out), then
        // where to insert it so that it lands there once that one is erased.
        std::size_t at = l.count_less(child) - (compare(l[pos], child) < 0 ? 1 : 0);
        std::size_t q = at <= pos ? at : at + 1;
        l.insert(q, std::move(child));
        l.erase(q <= pos ? pos + 1 : pos);
    }

    /// A create step at level i found nothing: build what the remaining steps
    /// and the op need, and insert it into c.
    result<value> create_at(value& c, std::size_t i, const ctx_hit& h) {
        std::size_t elements = 0;
        if (result<void> chain_ok = check_chain(i + 1, elements); !chain_ok)
            return fail(chain_ok.error());
        if (m_class == op_class::remove)
            return value();
        if (result<void> mark_ok = nonstorage_mark(i + 1); !mark_ok)
            return fail(mark_ok.error());
        std::optional<value> leaf;
        result<value> r = apply_target(leaf);
        if (!r || !leaf)
            return r;
        // Padding can ask for billions of nils: refuse before building any.
        std::size_t existing = c.is_list() ? c.as_list().size() : c.as_map().size();
        std::size_t total =
            add_sat(elements, h.pad == 0 ? 0 : add_sat(h.pad, add_sat(existing, 1)));
        if (total > m_limit)
            return too_big(total);
        value elem = build_chain(i + 1, std::move(*leaf));
        if (c.is_map()) {
            c.as_map().put(m_steps[i].val, std::move(elem));
            return r;
        }
        list& l = c.as_list();
        if (l.is_ordered()) {
            std::size_t at = l.count_less(elem); // before elem is moved from
            l.insert(at, std::move(elem));
            return r;
        }
        const std::size_t before = l.size();
        try {
            for (std::size_t k = 0; k < h.pad; ++k)
                l.push_back(value());
            l.push_back(std::move(elem));
        } catch (...) {
            // Out of memory: the padding goes again (a flat list's erase
            // cannot fail; an indexed one's is all or nothing per leaf).
            try {
                l.erase(before, l.size());
            } catch (...) { // NOLINT(bugprone-empty-catch): the first failure is the one to report
            }
            throw;
        }
        return r;
    }

    const op& m_op;
    std::vector<ctx_step> m_steps;
    op_class m_class;
    std::size_t m_limit;
    bool m_strong; // out of memory leaves the bin as it was (see apply_in_context)
};

/// Applies o (with a non-empty ctx) to bin (nullopt = absent). max_record_size
/// is the namespace's limit, which context padding may not exceed.
/// On error bin is unchanged. Complexity: O(log n) per level, plus the op.
/// Out of memory (std::bad_alloc), bin is left valid, its changed element put
/// back where it can be; with `strong`, bin is left as it was - at the price
/// of a copy of each nested container on the path (the op clones what it
/// writes: O(their sizes), the bin's own level O(log n) as ever).
inline result<value> apply_in_context(std::optional<value>& bin,
                                      const op& o,
                                      std::size_t max_record_size = default_max_record_size,
                                      bool strong = false) {
    return ctx_apply(o, max_record_size, strong).run(bin);
}

/// The element a ctx path selects in bin (a list or map), as the server's
/// as_bin_cdt_get_by_context reads it for a secondary index on a context: a
/// copy (O(1), containers are shared handles), or nullopt when bin is no
/// container or a step finds nothing. O(log n) per level.
inline std::optional<value> element_at(const value& bin, const std::vector<ctx_step>& steps) {
    if (!bin.is_list() && !bin.is_map())
        return std::nullopt;
    op o;
    o.ctx = steps;
    const ctx_apply walk(o, default_max_record_size);
    result<const value*> e = walk.dig(bin);
    if (!e)
        return std::nullopt;
    return **e;
}

} // namespace kvmodel::cdt::detail
