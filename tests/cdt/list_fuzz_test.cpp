// Randomized differential test: the list engine (cdt/detail/list_engine.hpp)
// and nested contexts (cdt/context.hpp) against the naive reference model
// (reference_list.hpp, which hands maps reached through contexts to
// reference_map.hpp) on seeded random operation sequences — every list op,
// return type (valid and not), INVERTED, write flags, both orders with and
// without a persisted index, short (flat) and long (indexed) lists, mixed
// element types, WILDCARD / INF / nil probes, extreme indexes and counts, and
// contexts through maps-in-lists and lists-in-maps to depth 4, with create
// steps, padding and map ops at the end of a path.
//
// KVMODEL_SEED overrides the seed, KVMODEL_FUZZ_OPS the number of ops
// (default 1,000,000; a quarter of that under a sanitizer). On a divergence it
// prints the seed, the op number and a shrunk reproducer as a cdt-json case
// (shared/spec/cdt-json.md), runnable with `kvmodel cdt` against a real server.
#include <kvmodel/cdt/engine.hpp>
#include <kvmodel/core/msgpack_size.hpp>
#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/core/json.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "../sanitized.hpp"
#include "reference_list.hpp"

namespace cdt_list_fuzz_test {

using namespace kvmodel;
using cdt::ctx_step;
using cdt::op;
using cdt::op_code;

namespace {

constexpr std::uint64_t default_ops = KVMODEL_TEST_SANITIZED ? 250'000 : 1'000'000;

// A small limit, so padding beyond it is exercised without big allocations.
constexpr std::size_t fuzz_limit = 2000;

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
    const char* s = std::getenv(name);
    if (s == nullptr || *s == '\0')
        return fallback;
    return std::strtoull(s, nullptr, 0);
}

const std::vector<op_code>& list_codes() {
    static const std::vector<op_code> codes = [] {
        std::vector<op_code> c;
        for (auto i = static_cast<std::size_t>(op_code::list_create); i < cdt::op_code_count; ++i)
            c.push_back(static_cast<op_code>(i));
        return c;
    }();
    return codes;
}

// Map ops used at the end of a context path (the map fuzz covers the rest).
const std::vector<op_code>& map_codes() {
    static const std::vector<op_code> codes = {
        op_code::map_put,
        op_code::map_increment,
        op_code::map_get_by_key,
        op_code::map_remove_by_key,
        op_code::map_size,
        op_code::map_get_by_rank_range,
        op_code::map_clear,
        op_code::map_get_by_value,
        op_code::map_remove_by_index_range,
        op_code::map_create,
        op_code::map_get_by_value_list,
    };
    return codes;
}

/// splitmix64: fast, and plenty random for picking test cases.
class splitmix {
public:
    explicit splitmix(std::uint64_t seed)
        : m_s(seed) {}
    std::uint64_t operator()() {
        std::uint64_t z = (m_s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }

private:
    std::uint64_t m_s;
};

class gen {
public:
    explicit gen(std::uint64_t seed)
        : m_rng(seed) {}

    std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : m_rng() % n; }
    bool chance(unsigned percent) { return below(100) < percent; }
    std::int64_t between(std::int64_t lo, std::int64_t hi) {
        return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo + 1)));
    }

    /// A storable scalar from a small domain, so ties are frequent.
    value scalar() {
        switch (below(12)) {
        case 0:
        case 1:
        case 2:
        case 3:
        case 4:
            return between(0, 6);
        case 5:
            return std::string(1, static_cast<char>('a' + below(3)));
        case 6:
            return value();
        case 7:
            return below(2) == 0;
        case 8:
            return 0.5 * static_cast<double>(between(0, 4));
        case 9:
            return bytes{static_cast<std::uint8_t>(below(3))};
        case 10:
            return between(-3, 12);
        default:
            return list{between(0, 2), std::string(1, static_cast<char>('x' + below(2)))};
        }
    }

    /// A map key the map ops accept (int / string / bytes).
    value key() {
        switch (below(3)) {
        case 0:
            return between(0, 4);
        case 1:
            return std::string(1, static_cast<char>('k' + below(4)));
        default:
            return bytes{static_cast<std::uint8_t>(below(2))};
        }
    }

    /// An element: a scalar, or (depth permitting) a nested list or map.
    value element(int depth) {
        if (depth > 0 && chance(40)) {
            if (chance(50)) {
                list l(chance(30) ? list_order::ordered : list_order::unordered);
                std::vector<value> items;
                for (std::uint64_t i = 0, n = below(5); i < n; ++i)
                    items.push_back(element(depth - 1));
                list filled(std::move(items), l.order());
                return filled;
            }
            static constexpr map_order orders[] = {
                map_order::unordered, map_order::key_ordered, map_order::key_value_ordered};
            map m(orders[below(3)]);
            for (std::uint64_t i = 0, n = below(4); i < n; ++i)
                m.put(key(), element(depth - 1));
            return m;
        }
        return scalar();
    }

    /// A probe for selectors: an element, or a pattern / bound.
    value probe() {
        switch (below(14)) {
        case 0:
            return wildcard;
        case 1:
            return inf;
        case 2:
            return value();
        case 3:
            return list{between(0, 2), wildcard};
        case 4:
            return list{wildcard};
        default:
            return element(1);
        }
    }

    std::int64_t position() {
        switch (below(24)) {
        case 0:
            return std::numeric_limits<std::int64_t>::min();
        case 1:
            return std::numeric_limits<std::int64_t>::max();
        case 2:
            return between(-120, 120);
        case 3:
            return std::numeric_limits<std::int64_t>::min() + between(0, 8);
        case 4:
            return std::int64_t{1} << 33;
        default:
            return between(-9, 12);
        }
    }

    std::optional<std::int64_t> count() {
        switch (below(14)) {
        case 0:
        case 1:
        case 2:
            return std::nullopt;
        case 3:
            return between(-3, -1);
        case 4:
            return std::numeric_limits<std::int64_t>::min();
        case 5:
            return std::numeric_limits<std::int64_t>::max();
        case 6:
            return std::int64_t{1} << 32;
        default:
            return between(0, 8);
        }
    }

    std::int32_t return_type() {
        static constexpr std::int32_t valid[] = {0, 1, 2, 3, 4, 5, 7, 13};
        std::int32_t t = below(25) == 0 ? static_cast<std::int32_t>(below(20)) : valid[below(8)];
        if (chance(20))
            t |= cdt::return_inverted;
        if (chance(2))
            t |= 0x20000; // other flag bits are ignored
        return t;
    }

    std::uint32_t list_flags() {
        if (chance(40))
            return 0;
        return static_cast<std::uint32_t>(below(16));
    }

    std::vector<value> values(bool storable_only) {
        std::vector<value> v;
        std::uint64_t n = chance(10) ? 0 : below(6);
        for (std::uint64_t i = 0; i < n; ++i)
            v.push_back(storable_only && !chance(3) ? element(1) : probe());
        return v;
    }

    /// A list bin, sometimes long enough to be indexed, sometimes nested.
    value random_list(int depth, std::size_t n) {
        std::vector<value> items;
        for (std::size_t i = 0; i < n; ++i)
            items.push_back(element(depth));
        list l(std::move(items), chance(35) ? list_order::ordered : list_order::unordered);
        if (chance(10))
            l.set_persist_index(true);
        if (n > 64 && chance(50))
            l.build_index();
        return l;
    }

    std::optional<value> random_bin() {
        switch (below(40)) {
        case 0:
        case 1:
            return std::nullopt;
        case 2:
            return value(between(0, 5));
        case 3:
            return element(3).is_map() ? element(3) : value(map{{key(), random_list(2, below(4))}});
        default: {
            std::size_t n = chance(12) ? static_cast<std::size_t>(between(60, 90))
                                       : static_cast<std::size_t>(below(13));
            return random_list(chance(70) ? 3 : 1, n);
        }
        }
    }

    /// A context path: mostly steps that exist (walking the bin towards a
    /// container of the wanted kind), sometimes ones that do not, create
    /// steps, steps of the wrong kind or steps into a scalar.
    std::vector<ctx_step> path(const std::optional<value>& bin, bool want_map) {
        std::vector<ctx_step> steps;
        std::uint64_t max_depth = 1 + below(4);
        const value* cur = bin ? &*bin : nullptr;
        // Nothing of the wanted kind below the top: mostly create one.
        bool reachable = false;
        if (cur != nullptr && cur->is_list())
            for (const value& e : cur->as_list())
                reachable = reachable || leads_to(e, want_map);
        if (cur != nullptr && cur->is_map())
            for (const map_entry& e : cur->as_map())
                reachable = reachable || leads_to(e.val, want_map);
        if (!reachable && chance(70)) {
            if (cur == nullptr || cur->is_list()) {
                auto n = static_cast<std::int64_t>(cur ? cur->as_list().size() : 0);
                steps.push_back(ctx_step::list_index_create(chance(80) ? n : n + between(1, 3),
                                                            chance(30) ? list_order::ordered
                                                                       : list_order::unordered,
                                                            chance(50)));
            } else {
                steps.push_back(ctx_step::map_key_create(key(), map_order::unordered));
            }
            return steps;
        }
        for (std::uint64_t d = 0; d < max_depth; ++d) {
            ctx_step s = ctx_step::list_index(0);
            const value* next = nullptr;
            bool hit = cur != nullptr && !chance(8);
            if (hit && cur->is_list() && !cur->as_list().empty()) {
                const list& l = cur->as_list();
                std::size_t i = pick(l.size(), [&](std::size_t k) { return rate(l[k], want_map); });
                auto si = static_cast<std::int64_t>(i);
                switch (below(5)) {
                case 0:
                    s = ctx_step::list_rank(static_cast<std::int64_t>(l.rank_of(i)));
                    break;
                case 1:
                    s = ctx_step::list_value(l[i]);
                    break;
                default:
                    s = ctx_step::list_index(chance(20) ? si - static_cast<std::int64_t>(l.size())
                                                        : si);
                }
                next = &l[i];
            } else if (hit && cur->is_map() && !cur->as_map().empty()) {
                const map& m = cur->as_map();
                std::size_t i =
                    pick(m.size(), [&](std::size_t k) { return rate(m.value_at(k), want_map); });
                switch (below(5)) {
                case 0:
                    s = ctx_step::map_index(static_cast<std::int64_t>(i));
                    break;
                case 1:
                    s = ctx_step::map_rank(static_cast<std::int64_t>(m.rank_of(i)));
                    break;
                case 2:
                    s = ctx_step::map_value(m.value_at(i));
                    break;
                default:
                    s = ctx_step::map_key(m.key_at(i));
                }
                next = &m.value_at(i);
            } else if (cur != nullptr && cur->is_list() && chance(60)) {
                s = ctx_step::list_index_create(chance(50) ? 0 : -1, list_order::unordered, false);
            } else if (cur != nullptr && cur->is_map() && chance(60)) {
                s = ctx_step::map_key_create(key(), map_order::unordered);
            } else {
                switch (below(10)) {
                case 0:
                    s = ctx_step::list_rank(between(-3, 3));
                    break;
                case 1:
                    s = ctx_step::list_value(scalar());
                    break;
                case 2:
                    s = ctx_step::map_index(between(-2, 2));
                    break;
                case 3:
                    s = ctx_step::map_rank(between(-2, 2));
                    break;
                case 4:
                    s = ctx_step::map_value(scalar());
                    break;
                case 5:
                case 6:
                    s = ctx_step::map_key(chance(10) ? value(wildcard) : key());
                    break;
                default:
                    s = ctx_step::list_index(between(-3, 4));
                }
            }
            // Now and then make it a create step (with random flags).
            if (chance(25) && (s.type == ctx_step::kind::list_index ||
                               s.type == ctx_step::kind::map_key || chance(10))) {
                s.create = true;
                s.create_list_order = chance(30) ? list_order::ordered : list_order::unordered;
                s.pad = chance(50);
                static constexpr map_order orders[] = {
                    map_order::unordered, map_order::key_ordered, map_order::key_value_ordered};
                s.create_map_order = orders[below(3)];
                if (s.type == ctx_step::kind::list_index && chance(30))
                    s.index = chance(5) ? (std::int64_t{1} << 31) - 5 : between(-8, 12);
            }
            steps.push_back(s);
            cur = next;
            if (cur == nullptr || (!cur->is_list() && !cur->is_map())) {
                if (chance(90))
                    break; // stepping on would go into a scalar
                continue;
            }
            // Stop on the kind of container the op wants, unless it holds
            // containers to go deeper into (then go on, mostly).
            bool deeper = false;
            if (cur->is_list())
                for (const value& e : cur->as_list())
                    deeper = deeper || leads_to(e, want_map);
            else
                for (const map_entry& e : cur->as_map())
                    deeper = deeper || leads_to(e.val, want_map);
            bool wanted = want_map ? cur->is_map() : cur->is_list();
            if (wanted && (!deeper || chance(35)))
                break;
        }
        return steps;
    }

    /// Whether v is, or holds somewhere, a container of the wanted kind.
    static bool leads_to(const value& v, bool want_map) {
        if (want_map ? v.is_map() : v.is_list())
            return true;
        if (v.is_list())
            for (const value& e : v.as_list())
                if (leads_to(e, want_map))
                    return true;
        if (v.is_map())
            for (const map_entry& e : v.as_map())
                if (leads_to(e.val, want_map))
                    return true;
        return false;
    }
    /// How good a step target v is: 2 leads to a container of the wanted
    /// kind, 1 another container, 0 a scalar.
    static int rate(const value& v, bool want_map) {
        if (leads_to(v, want_map))
            return 2;
        return v.is_list() || v.is_map() ? 1 : 0;
    }

    /// A random position in [0, n), mostly one of the best rated.
    template <class F>
    std::size_t pick(std::size_t n, F rating) {
        if (chance(10))
            return below(n);
        int best = 0;
        for (std::size_t k = 0; k < n; ++k)
            best = std::max(best, rating(k));
        std::vector<std::size_t> top;
        for (std::size_t k = 0; k < n; ++k)
            if (rating(k) == best)
                top.push_back(k);
        return top[below(top.size())];
    }

    /// An index near the list's size, or anything.
    std::int64_t near(std::size_t n) {
        if (chance(25))
            return position();
        auto sn = static_cast<std::int64_t>(n);
        return between(-sn - 2, sn + 2);
    }

    op random_op(const std::optional<value>& bin) {
        op o;
        bool with_ctx = chance(45);
        bool map_target = with_ctx && chance(20);
        if (with_ctx)
            o.ctx = path(bin, map_target);
        std::size_t n = bin && bin->is_list() ? bin->as_list().size() : 4;
        o.code = map_target ? map_codes()[below(map_codes().size())]
                            : list_codes()[below(list_codes().size())];
        o.index = near(n);
        o.count = count();
        o.return_type = return_type();
        o.lpolicy.order = chance(40) ? list_order::ordered : list_order::unordered;
        o.lpolicy.flags = list_flags();
        o.order = chance(3) ? static_cast<list_order>(2)
                            : (chance(50) ? list_order::ordered : list_order::unordered);
        o.pad = chance(50);
        o.persist_index = chance(20);
        o.sort_flags = static_cast<std::uint32_t>(below(4));
        bool write = cdt::classify(o.code) == cdt::op_class::modify;
        // Only what the op reads (and now and then junk it ignores).
        bool reads_key = o.code == op_code::list_append || o.code == op_code::list_insert ||
                         o.code == op_code::list_set || o.code == op_code::list_get_by_value ||
                         o.code == op_code::list_remove_by_value ||
                         o.code == op_code::list_get_by_value_rel_rank_range ||
                         o.code == op_code::list_remove_by_value_rel_rank_range || chance(5);
        bool reads_values = o.code == op_code::list_append_items ||
                            o.code == op_code::list_insert_items ||
                            o.code == op_code::list_get_by_value_list ||
                            o.code == op_code::list_remove_by_value_list || chance(5);
        bool reads_range = o.code == op_code::list_get_by_value_range ||
                           o.code == op_code::list_remove_by_value_range || chance(5);
        if (reads_key)
            o.key = write ? (chance(3) ? probe() : element(2)) : probe();
        if (reads_values)
            o.values = values(write);
        if (o.code == op_code::list_increment) {
            switch (below(6)) {
            case 0:
                o.val = value();
                break;
            case 1:
                o.val = 0.5 * static_cast<double>(between(-3, 3));
                break;
            case 2:
                o.val = std::string("x");
                break;
            case 3:
                o.val = chance(50) ? value(std::numeric_limits<std::int64_t>::max()) : value(1e300);
                break;
            default:
                o.val = between(-3, 3);
            }
            if (chance(40))
                o.index = between(-4, 8);
        }
        if (o.code == op_code::list_insert || o.code == op_code::list_insert_items ||
            o.code == op_code::list_set) {
            if (chance(60))
                o.index = between(-6, 14);
            if (chance(2))
                o.index = std::int64_t{2147483000};
        }
        if (reads_range) {
            o.begin = chance(15) ? value() : probe();
            if (chance(70))
                o.end = chance(10) ? value(inf) : probe();
        }
        if (map_target) {
            o.key = key();
            o.val = chance(80) ? element(1) : value(between(-2, 2));
            if (o.code == op_code::map_increment)
                o.val = between(-2, 2);
            o.index = between(-4, 4);
            o.count = chance(30) ? std::nullopt : std::optional<std::int64_t>(between(0, 4));
            static constexpr map_order orders[] = {
                map_order::unordered, map_order::key_ordered, map_order::key_value_ordered};
            o.morder = orders[below(3)];
            o.mpolicy.order = orders[below(3)];
            std::int32_t t = static_cast<std::int32_t>(below(9));
            o.return_type = t == 6 ? 7 : t;
        }
        return o;
    }

private:
    splitmix m_rng;
};

/// Exact equality including list/map order and persisted-index flags.
bool same(const value& a, const value& b) {
    if (!(a == b))
        return false;
    if (a.is_list()) {
        const list& x = a.as_list();
        const list& y = b.as_list();
        if (x.order() != y.order() || x.persist_index() != y.persist_index())
            return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!same(x[i], y[i]))
                return false;
    }
    if (a.is_map()) {
        const map& x = a.as_map();
        const map& y = b.as_map();
        if (x.order() != y.order() || x.persist_index() != y.persist_index())
            return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!same(x.value_at(i), y.value_at(i)))
                return false;
    }
    return true;
}
bool same_bin(const std::optional<value>& a, const std::optional<value>& b) {
    if (a.has_value() != b.has_value())
        return false;
    return !a || same(*a, *b);
}
std::string show(const std::optional<value>& v) {
    return v ? to_string(*v) : std::string("<absent>");
}

std::string order_name(list_order o) {
    return o == list_order::ordered ? "ORDERED" : "UNORDERED_LIST";
}
std::string map_order_name(map_order o) {
    switch (o) {
    case map_order::unordered:
        return "UNORDERED";
    case map_order::key_ordered:
        return "K_ORDERED";
    case map_order::key_value_ordered:
        return "KV_ORDERED";
    }
    return std::to_string(static_cast<int>(o));
}

nlohmann::json ctx_json(const ctx_step& s) {
    using nlohmann::json;
    json j;
    switch (s.type) {
    case ctx_step::kind::list_index:
        j["type"] = s.create ? "list_index_create" : "list_index";
        j["index"] = s.index;
        if (s.create) {
            j["order"] = order_name(s.create_list_order);
            j["pad"] = s.pad;
        }
        break;
    case ctx_step::kind::list_rank:
        j["type"] = "list_rank";
        j["rank"] = s.index;
        break;
    case ctx_step::kind::list_value:
        j["type"] = "list_value";
        j["value"] = to_json(s.val);
        break;
    case ctx_step::kind::map_index:
        j["type"] = "map_index";
        j["index"] = s.index;
        break;
    case ctx_step::kind::map_rank:
        j["type"] = "map_rank";
        j["rank"] = s.index;
        break;
    case ctx_step::kind::map_key:
        j["type"] = s.create ? "map_key_create" : "map_key";
        j["key"] = to_json(s.val);
        if (s.create)
            j["order"] = map_order_name(s.create_map_order);
        break;
    case ctx_step::kind::map_value:
        j["type"] = "map_value";
        j["value"] = to_json(s.val);
        break;
    }
    if (s.create && s.type != ctx_step::kind::list_index && s.type != ctx_step::kind::map_key)
        j["create_flag_on_a_step_that_cannot_create"] = true;
    return j;
}

/// The op in cdt-json notation (shared/spec/cdt-json.md); every field the op
/// may read is written out.
/// The cdt-json argument names op c takes (shared/spec/cdt-json.md).
std::vector<std::string_view> arg_names(op_code c) {
    std::string_view n = cdt::op_name(c);
    auto ends = [&](std::string_view tail) {
        return n.size() >= tail.size() && n.substr(n.size() - tail.size()) == tail;
    };
    if (ends("_by_value_list"))
        return {"values"};
    if (ends("_by_key_list"))
        return {"keys"};
    if (ends("_by_value_range") || ends("_by_key_range"))
        return {"begin", "end"};
    if (ends("_by_value_rel_rank_range"))
        return {"value", "rank", "count"};
    if (ends("_by_key_rel_index_range"))
        return {"key", "index", "count"};
    if (ends("_by_value"))
        return {"value"};
    if (ends("_by_key"))
        return {"key"};
    if (ends("_by_index_range"))
        return {"index", "count"};
    if (ends("_by_index"))
        return {"index"};
    if (ends("_by_rank_range"))
        return {"rank", "count"};
    if (ends("_by_rank"))
        return {"rank"};
    switch (c) {
    case op_code::list_append:
        return {"value"};
    case op_code::list_append_items:
        return {"values"};
    case op_code::list_insert:
    case op_code::list_set:
        return {"index", "value"};
    case op_code::list_insert_items:
        return {"index", "values"};
    case op_code::list_increment:
        return {"index", "delta"};
    case op_code::list_pop:
    case op_code::list_get:
    case op_code::list_remove:
        return {"index"};
    case op_code::list_pop_range:
    case op_code::list_get_range:
    case op_code::list_remove_range:
    case op_code::list_trim:
        return {"index", "count"};
    case op_code::list_create:
        return {"order", "pad", "persist_index"};
    case op_code::list_set_order:
    case op_code::map_create:
    case op_code::map_set_policy:
        return {"order", "persist_index"};
    case op_code::map_put:
        return {"key", "value"};
    case op_code::map_increment:
    case op_code::map_decrement:
        return {"key", "delta"};
    default:
        return {};
    }
}

/// Whether op c takes a write policy (flags and order).
bool takes_policy(op_code c) {
    switch (c) {
    case op_code::list_append:
    case op_code::list_append_items:
    case op_code::list_insert:
    case op_code::list_insert_items:
    case op_code::list_set:
    case op_code::list_increment:
    case op_code::map_put:
    case op_code::map_put_items:
    case op_code::map_increment:
    case op_code::map_decrement:
        return true;
    default:
        return false;
    }
}

nlohmann::json op_json(const op& o) {
    using nlohmann::json;
    json j;
    j["op"] = std::string(cdt::op_name(o.code));
    auto vals = [](const std::vector<value>& vs) {
        json a = json::array();
        for (const value& v : vs)
            a.push_back(to_json(v));
        return a;
    };
    json args = json::object();
    args["index"] = o.index;
    args["rank"] = o.index;
    if (o.count)
        args["count"] = *o.count;
    args["value"] = to_json(o.key);
    args["key"] = to_json(o.key);
    args["values"] = vals(o.values);
    args["begin"] = o.begin.is_nil() ? json{{"$nil", true}} : to_json(o.begin);
    if (o.end)
        args["end"] = o.end->is_nil() ? json{{"$nil", true}} : to_json(*o.end);
    args["delta"] = to_json(o.val);
    args["order"] = cdt::is_map_op(o.code) ? map_order_name(o.morder) : order_name(o.order);
    args["pad"] = o.pad;
    args["persist_index"] = o.persist_index;
    if (o.code == op_code::map_put)
        args["value"] = to_json(o.val);
    // Only what the op takes, so that `kvmodel cdt` runs the reproducer.
    json kept = json::object();
    for (std::string_view name : arg_names(o.code))
        if (args.contains(name))
            kept[std::string(name)] = args[std::string(name)];
    j["args"] = kept;
    if (cdt::op_name(o.code).find("_by_") != std::string_view::npos) { // a selector
        j["return_type"] = o.return_type & 0xffff;
        j["inverted"] = (o.return_type & cdt::return_inverted) != 0;
    }
    json flags = json::array();
    if (o.lpolicy.flags & cdt::list_write_flags::add_unique)
        flags.push_back("ADD_UNIQUE");
    if (o.lpolicy.flags & cdt::list_write_flags::insert_bounded)
        flags.push_back("INSERT_BOUNDED");
    if (o.lpolicy.flags & cdt::list_write_flags::no_fail)
        flags.push_back("NO_FAIL");
    if (o.lpolicy.flags & cdt::list_write_flags::partial)
        flags.push_back("PARTIAL");
    if (o.code == op_code::list_sort && (o.sort_flags & cdt::list_sort_flags::drop_duplicates))
        flags.push_back("DROP_DUPLICATES");
    if (takes_policy(o.code) || o.code == op_code::list_sort)
        j["flags"] = flags;
    if (takes_policy(o.code))
        j["policy_order"] =
            cdt::is_map_op(o.code) ? map_order_name(o.mpolicy.order) : order_name(o.lpolicy.order);
    json ctx = json::array();
    for (const ctx_step& s : o.ctx)
        ctx.push_back(ctx_json(s));
    if (!ctx.empty())
        j["ctx"] = ctx;
    return j;
}

nlohmann::json case_json(const std::optional<value>& bin, const op& o) {
    using nlohmann::json;
    json c;
    c["id"] = "list_fuzz";
    c["bin_type"] = bin && bin->is_map() ? "map" : "list";
    if (bin && bin->is_list()) {
        c["order"] = order_name(bin->as_list().order());
        if (bin->as_list().persist_index())
            c["persist_index"] = true;
    }
    if (bin && bin->is_map()) {
        c["order"] = map_order_name(bin->as_map().order());
        json init = json::array();
        for (const map_entry& e : bin->as_map())
            init.push_back(json::array({to_json(e.key), to_json(e.val)}));
        c["initial"] = init;
    } else {
        c["initial"] = bin ? to_json(*bin) : json();
    }
    c["ops"] = json::array({op_json(o)});
    c["max_record_size"] = fuzz_limit;
    return c;
}

struct run_result {
    bool ok;
    status code;
    value v;
    std::optional<value> after;
};

run_result run_engine(const std::optional<value>& before, const op& o) {
    std::optional<value> bin = before;
    result<value> r = cdt::apply(bin, o, fuzz_limit);
    return {r.has_value(), r.code(), r ? *r : value(), bin};
}

run_result run_ref(const std::optional<value>& before, const op& o) {
    std::optional<value> bin = before;
    test::lref::outcome r = test::lref::apply(bin, o, fuzz_limit);
    if (!r.ok)
        bin = before; // a failed op leaves the bin as it was
    return {r.ok, r.code, r.v, bin};
}

/// Empty string when engine and reference agree (and a failing engine op left
/// the bin untouched); else what differs. The engine's run lands in *engine.
std::string
divergence(const std::optional<value>& before, const op& o, run_result* engine = nullptr) {
    run_result e = run_engine(before, o);
    run_result r = run_ref(before, o);
    if (engine != nullptr)
        *engine = e;
    std::ostringstream s;
    if (e.ok != r.ok || e.code != r.code)
        s << "status: engine " << status_name(e.code) << ", reference " << status_name(r.code)
          << "\n";
    else if (e.ok && !same(e.v, r.v))
        s << "result: engine " << to_string(e.v) << ", reference " << to_string(r.v) << "\n";
    if (!same_bin(e.after, r.after))
        s << "bin after: engine " << show(e.after) << ", reference " << show(r.after) << "\n";
    if (!e.ok && !same_bin(e.after, before))
        s << "a failed op changed the bin\n";
    // The containers keep their packed size as they change: it must be what
    // counting every element anew gives.
    if (e.after && packed_size(*e.after) != kvmodel::detail::packed_size_scan(*e.after))
        s << "packed size kept " << packed_size(*e.after) << ", counted "
          << kvmodel::detail::packed_size_scan(*e.after) << "\n";
    return s.str();
}

/// Removes top-level elements from the bin while the divergence persists.
std::optional<value> shrink(std::optional<value> bin, const op& o) {
    if (!bin || !bin->is_list())
        return bin;
    bool progress = true;
    while (progress) {
        progress = false;
        for (std::size_t i = 0; i < bin->as_list().size(); ++i) {
            value smaller = *bin;
            smaller.as_list().erase(i);
            std::optional<value> candidate = smaller;
            if (!divergence(candidate, o).empty()) {
                bin = candidate;
                progress = true;
                break;
            }
        }
    }
    return bin;
}

/// Depth of nested containers in v (a scalar is 0, [] is 1).
int depth_of(const value& v) {
    int d = 0;
    if (v.is_list())
        for (const value& e : v.as_list())
            d = std::max(d, depth_of(e));
    if (v.is_map())
        for (const map_entry& e : v.as_map())
            d = std::max(d, depth_of(e.val));
    return v.is_list() || v.is_map() ? d + 1 : 0;
}

} // namespace

TEST_CASE("list engine and contexts agree with the naive reference on random op sequences",
          "[cdt][list_fuzz]") {
    const std::uint64_t seed = env_u64("KVMODEL_SEED", 0x6c697374ULL);
    const std::uint64_t ops = env_u64("KVMODEL_FUZZ_OPS", default_ops);
    gen g(seed);
    auto t0 = std::chrono::steady_clock::now();

    std::optional<value> bin = g.random_bin();
    std::uint64_t failures = 0;
    std::uint64_t errors = 0;
    std::uint64_t ctx_ops = 0;
    std::uint64_t deep_ctx_ops = 0;
    std::uint64_t indexed_ops = 0;
    std::map<std::string, std::uint64_t> error_kinds;
    for (std::uint64_t i = 0; i < ops; ++i) {
        // Restart from a fresh bin now and then, and whenever it grew large.
        if (g.chance(3) || (bin && bin->is_list() && bin->as_list().size() > 100) ||
            (bin && bin->is_list() && bin->as_list().empty() && g.chance(30)))
            bin = g.random_bin();
        op o = g.random_op(bin);
        run_result e;
        std::string diff = divergence(bin, o, &e);
        if (!diff.empty()) {
            std::optional<value> small = shrink(bin, o);
            std::cerr << "list_fuzz divergence: KVMODEL_SEED=" << seed << " op #" << i << "\n"
                      << divergence(small, o) << "reproducer: " << case_json(small, o).dump()
                      << "\n";
            if (++failures >= 5)
                break;
        }
        if (!o.ctx.empty())
            ++ctx_ops;
        if (o.ctx.size() >= 3 && bin && depth_of(*bin) >= 3)
            ++deep_ctx_ops;
        if (bin && bin->is_list() && bin->as_list().has_index())
            ++indexed_ops;
        if (!e.ok) {
            ++errors;
            ++error_kinds[std::string(status_name(e.code)) + (o.ctx.empty() ? "" : " (ctx)")];
        }
        bin = e.after;
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "list_fuzz: seed " << seed << ", " << ops << " ops (" << ctx_ops
              << " through a ctx, " << deep_ctx_ops
              << " of them 3+ levels deep into 3+ level bins; " << indexed_ops
              << " on indexed lists; " << errors << " refused as errors), " << failures
              << " divergences, " << secs << " s\n";
    for (const auto& [kind, n] : error_kinds)
        std::cout << "  " << n << " x " << kind << "\n";
    CHECK(failures == 0);
    CHECK(ctx_ops > ops / 4);
    CHECK(deep_ctx_ops > ops / 100);
}

} // namespace cdt_list_fuzz_test
