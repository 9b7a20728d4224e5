// Randomized differential test: the map engine (cdt/detail/map_engine.hpp)
// against the naive reference model (reference_map.hpp) on seeded random
// operation sequences — every map op, return type (valid and not), INVERTED,
// write flags and legacy modes, all orders with and without a persisted index,
// top-level and nested maps, mixed key and value types (nested small lists and
// maps, doubles, bytes), WILDCARD / INF / nil probes and extreme indexes.
//
// KVMODEL_SEED overrides the seed, KVMODEL_FUZZ_OPS the number of ops
// (default 1,000,000; a quarter of that under a sanitizer). On a divergence it
// prints the seed, the op number and a shrunk reproducer as a cdt-json case
// (shared/spec/cdt-json.md), runnable with `kvmodel cdt` against a real server.
#include <kvmodel/cdt/detail/map_engine.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/core/json.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../sanitized.hpp"
#include "reference_map.hpp"

namespace cdt_map_fuzz_test {

using namespace kvmodel;
using cdt::op;
using cdt::op_code;

namespace {

constexpr std::uint64_t default_ops = KVMODEL_TEST_SANITIZED ? 250'000 : 1'000'000;

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
    const char* s = std::getenv(name);
    if (s == nullptr || *s == '\0')
        return fallback;
    return std::strtoull(s, nullptr, 0);
}

class gen {
public:
    explicit gen(std::uint64_t seed)
        : m_rng(seed) {}

    std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : m_rng() % n; }
    bool chance(unsigned percent) { return below(100) < percent; }
    std::int64_t between(std::int64_t lo, std::int64_t hi) {
        return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo + 1)));
    }

    /// A storable key: mostly int/string/bytes (what map_put accepts), now
    /// and then a double, bool, nil or small list (only put_items stores those).
    value key(bool exotic) {
        if (exotic && chance(15)) {
            switch (below(4)) {
            case 0:
                return 1.5;
            case 1:
                return below(2) == 0;
            case 2:
                return value();
            default:
                return list{between(0, 2), "x"};
            }
        }
        switch (below(3)) {
        case 0:
            return between(-2, 6);
        case 1:
            return std::string(1, static_cast<char>('a' + below(4)));
        default:
            return bytes{static_cast<std::uint8_t>(below(3))};
        }
    }

    /// A storable value: small domain so ties in rank are frequent.
    value val() {
        switch (below(10)) {
        case 0:
        case 1:
        case 2:
        case 3:
            return between(0, 4);
        case 4:
            return std::string(1, static_cast<char>('a' + below(3)));
        case 5:
            return list{between(0, 2), std::string(1, static_cast<char>('x' + below(2)))};
        case 6:
            return map{{between(0, 1), between(0, 1)}};
        case 7:
            return 0.5 * static_cast<double>(between(0, 3));
        case 8:
            return below(2) == 0;
        default:
            return below(4) == 0 ? value() : value(between(0, 4));
        }
    }

    /// A probe for selectors: a key or value, or a pattern / bound.
    value probe(bool for_key) {
        switch (below(12)) {
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
            return for_key ? key(true) : val();
        }
    }

    std::int64_t position() {
        switch (below(20)) {
        case 0:
            return std::numeric_limits<std::int64_t>::min();
        case 1:
            return std::numeric_limits<std::int64_t>::max();
        case 2:
            return between(-40, 40);
        default:
            return between(-9, 9);
        }
    }

    std::optional<std::int64_t> count() {
        switch (below(12)) {
        case 0:
        case 1:
        case 2:
            return std::nullopt;
        case 3:
            return -1;
        case 4:
            return std::numeric_limits<std::int64_t>::max();
        case 5:
            return std::numeric_limits<std::int64_t>::min();
        default:
            return between(0, 8);
        }
    }

    map_order order() {
        switch (below(13)) {
        case 0:
            return static_cast<map_order>(2); // V_ORDERED: refused / unordered
        case 1:
            return static_cast<map_order>(7);
        default: {
            static constexpr map_order orders[] = {
                map_order::unordered, map_order::key_ordered, map_order::key_value_ordered};
            return orders[below(3)];
        }
        }
    }

    std::int32_t return_type() {
        static constexpr std::int32_t valid[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 16, 17};
        std::int32_t rt = 0;
        if (chance(4)) {
            static constexpr std::int32_t invalid[] = {9, 11, 12, 14, 15, 18, 99, -1};
            rt = invalid[below(std::size(invalid))];
        } else {
            rt = valid[below(std::size(valid))];
        }
        if (chance(35))
            rt |= cdt::return_inverted;
        if (chance(2))
            rt |= 0x20000; // an unknown flag bit the server ignores
        return rt;
    }

    cdt::map_policy policy() {
        cdt::map_policy p;
        p.order = order();
        p.persist_index = chance(30);
        if (chance(15)) {
            p.mode = static_cast<cdt::map_write_mode>(below(3));
        } else {
            p.flags = static_cast<std::uint32_t>(below(16));
        }
        return p;
    }

    std::vector<value> probes(bool for_key) {
        std::vector<value> out;
        std::uint64_t k = below(5);
        for (std::uint64_t i = 0; i < k; ++i) {
            if (!out.empty() && chance(20))
                out.push_back(out[below(out.size())]); // duplicate
            else
                out.push_back(chance(80) ? (for_key ? key(true) : val()) : probe(for_key));
        }
        return out;
    }

    op random_op() {
        op o;
        o.code = static_cast<op_code>(
            below(static_cast<std::uint64_t>(op_code::map_remove_by_rank_range) + 1));
        o.return_type = return_type();
        switch (o.code) {
        case op_code::map_create:
        case op_code::map_set_policy:
            o.morder = order();
            o.persist_index = chance(40);
            break;
        case op_code::map_put:
            o.key = chance(90) ? key(false) : probe(true);
            o.val = chance(95) ? val() : probe(false);
            o.mpolicy = policy();
            break;
        case op_code::map_put_items: {
            std::uint64_t k = below(5);
            for (std::uint64_t i = 0; i < k; ++i)
                o.items.emplace_back(chance(97) ? key(true) : probe(true),
                                     chance(97) ? val() : probe(false));
            if (!o.items.empty() && chance(10))
                o.items.push_back(o.items.front());
            o.mpolicy = policy();
            break;
        }
        case op_code::map_increment:
        case op_code::map_decrement:
            o.key = chance(90) ? key(false) : probe(true);
            switch (below(6)) {
            case 0:
                o.val = value();
                break;
            case 1:
                o.val = 0.25 * static_cast<double>(between(-8, 8));
                break;
            case 2:
                o.val = "x";
                break;
            case 3:
                o.val = chance(50) ? value(std::numeric_limits<std::int64_t>::min()) : value(1e300);
                break;
            default:
                o.val = between(-3, 3);
                break;
            }
            o.mpolicy = policy();
            break;
        case op_code::map_get_by_key:
        case op_code::map_remove_by_key:
            o.key = chance(85) ? key(true) : probe(true);
            break;
        case op_code::map_get_by_key_list:
        case op_code::map_remove_by_key_list:
            o.values = probes(true);
            break;
        case op_code::map_get_by_value_list:
        case op_code::map_remove_by_value_list:
            o.values = probes(false);
            break;
        case op_code::map_get_by_key_range:
        case op_code::map_remove_by_key_range:
            o.begin = chance(70) ? key(true) : probe(true);
            if (chance(75))
                o.end = chance(70) ? key(true) : probe(true);
            break;
        case op_code::map_get_by_value_range:
        case op_code::map_remove_by_value_range:
            o.begin = chance(70) ? val() : probe(false);
            if (chance(75))
                o.end = chance(70) ? val() : probe(false);
            break;
        case op_code::map_get_by_key_rel_index_range:
        case op_code::map_remove_by_key_rel_index_range:
            o.key = chance(80) ? key(true) : probe(true);
            o.index = position();
            o.count = count();
            break;
        case op_code::map_get_by_value:
        case op_code::map_remove_by_value:
            o.key = chance(75) ? val() : probe(false);
            break;
        case op_code::map_get_by_value_rel_rank_range:
        case op_code::map_remove_by_value_rel_rank_range:
            o.key = chance(80) ? val() : probe(false);
            o.index = position();
            o.count = count();
            break;
        case op_code::map_get_by_index:
        case op_code::map_remove_by_index:
        case op_code::map_get_by_rank:
        case op_code::map_remove_by_rank:
            o.index = position();
            break;
        case op_code::map_get_by_index_range:
        case op_code::map_remove_by_index_range:
        case op_code::map_get_by_rank_range:
        case op_code::map_remove_by_rank_range:
            o.index = position();
            o.count = count();
            break;
        default:
            break;
        }
        return o;
    }

    std::optional<value> random_bin() {
        if (chance(8))
            return std::nullopt;
        if (chance(3))
            return chance(50) ? value("not a map") : value(std::int64_t{7});
        map m(chance(85) ? order_valid() : map_order::unordered);
        m.set_persist_index(m.order() != map_order::unordered && chance(40));
        std::uint64_t n = below(9);
        for (std::uint64_t i = 0; i < n; ++i)
            m.put(key(true), val());
        return value(std::move(m));
    }

private:
    map_order order_valid() {
        static constexpr map_order orders[] = {
            map_order::unordered, map_order::key_ordered, map_order::key_value_ordered};
        return orders[below(3)];
    }

    std::mt19937_64 m_rng;
};

/// Exact equality plus the order flags exact equality ignores, at the top.
bool same(const value& a, const value& b) {
    if (!(a == b))
        return false;
    if (a.is_map())
        return a.as_map().order() == b.as_map().order() &&
               a.as_map().persist_index() == b.as_map().persist_index();
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

std::string order_name(map_order o) {
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

/// The op in cdt-json notation (shared/spec/cdt-json.md).
nlohmann::json op_json(const op& o) {
    using nlohmann::json;
    json j;
    j["op"] = std::string(cdt::op_name(o.code));
    json args = json::object();
    auto pairs = [](const std::vector<std::pair<value, value>>& items) {
        json a = json::array();
        for (const auto& [k, v] : items)
            a.push_back(json::array({to_json(k), to_json(v)}));
        return a;
    };
    auto vals = [](const std::vector<value>& vs) {
        json a = json::array();
        for (const value& v : vs)
            a.push_back(to_json(v));
        return a;
    };
    switch (o.code) {
    case op_code::map_create:
    case op_code::map_set_policy:
        args["order"] = order_name(o.morder);
        args["persist_index"] = o.persist_index;
        break;
    case op_code::map_put:
        args["key"] = to_json(o.key);
        args["value"] = to_json(o.val);
        break;
    case op_code::map_put_items:
        args["items"] = pairs(o.items);
        break;
    case op_code::map_increment:
    case op_code::map_decrement:
        args["key"] = to_json(o.key);
        args["delta"] = to_json(o.val);
        break;
    case op_code::map_get_by_key:
    case op_code::map_remove_by_key:
        args["key"] = to_json(o.key);
        break;
    case op_code::map_get_by_value:
    case op_code::map_remove_by_value:
        args["value"] = to_json(o.key);
        break;
    case op_code::map_get_by_key_list:
    case op_code::map_remove_by_key_list:
        args["keys"] = vals(o.values);
        break;
    case op_code::map_get_by_value_list:
    case op_code::map_remove_by_value_list:
        args["values"] = vals(o.values);
        break;
    case op_code::map_get_by_key_range:
    case op_code::map_remove_by_key_range:
    case op_code::map_get_by_value_range:
    case op_code::map_remove_by_value_range:
        args["begin"] = o.begin.is_nil() ? json{{"$nil", true}} : to_json(o.begin);
        if (o.end)
            args["end"] = o.end->is_nil() ? json{{"$nil", true}} : to_json(*o.end);
        break;
    case op_code::map_get_by_key_rel_index_range:
    case op_code::map_remove_by_key_rel_index_range:
        args["key"] = to_json(o.key);
        args["index"] = o.index;
        if (o.count)
            args["count"] = *o.count;
        break;
    case op_code::map_get_by_value_rel_rank_range:
    case op_code::map_remove_by_value_rel_rank_range:
        args["value"] = to_json(o.key);
        args["rank"] = o.index;
        if (o.count)
            args["count"] = *o.count;
        break;
    case op_code::map_get_by_index:
    case op_code::map_remove_by_index:
        args["index"] = o.index;
        break;
    case op_code::map_get_by_rank:
    case op_code::map_remove_by_rank:
        args["rank"] = o.index;
        break;
    case op_code::map_get_by_index_range:
    case op_code::map_remove_by_index_range:
        args["index"] = o.index;
        if (o.count)
            args["count"] = *o.count;
        break;
    case op_code::map_get_by_rank_range:
    case op_code::map_remove_by_rank_range:
        args["rank"] = o.index;
        if (o.count)
            args["count"] = *o.count;
        break;
    default:
        break;
    }
    j["args"] = args;
    if (o.code >= op_code::map_get_by_key) {
        j["return_type"] = o.return_type & 0xffff;
        j["inverted"] = (o.return_type & cdt::return_inverted) != 0;
    }
    if (o.code == op_code::map_put || o.code == op_code::map_put_items ||
        o.code == op_code::map_increment || o.code == op_code::map_decrement) {
        j["policy_order"] = order_name(o.mpolicy.order);
        json flags = json::array();
        if (o.mpolicy.mode) {
            flags.push_back("legacy mode " + std::to_string(static_cast<int>(*o.mpolicy.mode)));
        } else {
            if (o.mpolicy.flags & cdt::map_write_flags::create_only)
                flags.push_back("CREATE_ONLY");
            if (o.mpolicy.flags & cdt::map_write_flags::update_only)
                flags.push_back("UPDATE_ONLY");
            if (o.mpolicy.flags & cdt::map_write_flags::no_fail)
                flags.push_back("NO_FAIL");
            if (o.mpolicy.flags & cdt::map_write_flags::partial)
                flags.push_back("PARTIAL");
        }
        j["flags"] = flags;
        if (o.mpolicy.persist_index)
            j["persist_index"] = true;
    }
    return j;
}

nlohmann::json case_json(const std::optional<value>& bin, const op& o) {
    using nlohmann::json;
    json c;
    c["id"] = "map_fuzz";
    c["bin_type"] = "map";
    if (bin && bin->is_map()) {
        c["order"] = order_name(bin->as_map().order());
        json init = json::array();
        for (const map_entry& e : bin->as_map())
            init.push_back(json::array({to_json(e.key), to_json(e.val)}));
        c["initial"] = init;
        if (bin->as_map().persist_index())
            c["persist_index"] = true;
    } else {
        c["initial"] = bin ? to_json(*bin) : json();
    }
    c["ops"] = json::array({op_json(o)});
    return c;
}

struct run_result {
    bool ok = true;
    status code = status::ok;
    value v;
    std::optional<value> after;
};

run_result run_engine(const std::optional<value>& before, const op& o, bool top) {
    std::optional<value> bin = before;
    result<value> r = cdt::detail::apply_map_op(bin, o, top);
    return {r.has_value(), r.code(), r ? *r : value(), bin};
}

run_result run_ref(const std::optional<value>& before, const op& o, bool top) {
    std::optional<value> bin = before;
    test::ref_outcome r = test::ref_apply(bin, o, top);
    if (!r.ok)
        bin = before; // a failed op leaves the bin as it was
    return {r.ok, r.code, r.v, bin};
}

/// Empty string when engine and reference agree (and a failing engine op left
/// the bin untouched); else what differs. `engine_out` gets the engine's run.
std::string divergence(const std::optional<value>& before,
                       const op& o,
                       bool top,
                       run_result* engine_out = nullptr) {
    run_result e = run_engine(before, o, top);
    run_result r = run_ref(before, o, top);
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
    if (engine_out != nullptr)
        *engine_out = std::move(e);
    return s.str();
}

/// Removes entries from the bin while the divergence persists.
std::optional<value> shrink(std::optional<value> bin, const op& o, bool top) {
    if (!bin || !bin->is_map())
        return bin;
    bool progress = true;
    while (progress) {
        progress = false;
        const map& m = bin->as_map();
        for (std::size_t i = 0; i < m.size(); ++i) {
            value smaller = *bin;
            smaller.as_map().erase_at(i);
            std::optional<value> candidate = smaller;
            if (!divergence(candidate, o, top).empty()) {
                bin = candidate;
                progress = true;
                break;
            }
        }
    }
    return bin;
}

} // namespace

TEST_CASE("map engine agrees with the naive reference on random op sequences", "[cdt][map_fuzz]") {
    const std::uint64_t seed = env_u64("KVMODEL_SEED", 0x6b766d6170ULL);
    const std::uint64_t ops = env_u64("KVMODEL_FUZZ_OPS", default_ops);
    gen g(seed);
    auto t0 = std::chrono::steady_clock::now();

    std::optional<value> bin = g.random_bin();
    std::uint64_t failures = 0;
    std::uint64_t errors = 0;
    for (std::uint64_t i = 0; i < ops; ++i) {
        // Restart from a fresh bin now and then, and whenever it grew large.
        if (g.chance(3) || (bin && bin->is_map() && bin->as_map().size() > 12))
            bin = g.random_bin();
        op o = g.random_op();
        bool top = !g.chance(10);
        run_result e;
        std::string diff = divergence(bin, o, top, &e);
        if (!diff.empty()) {
            std::optional<value> small = shrink(bin, o, top);
            std::cerr << "map_fuzz divergence: KVMODEL_SEED=" << seed << " op #" << i
                      << (top ? "" : " (nested map)") << "\n"
                      << divergence(small, o, top) << "reproducer: " << case_json(small, o).dump()
                      << "\n";
            if (++failures >= 5)
                break;
        }
        if (!e.ok)
            ++errors;
        bin = e.after;
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "map_fuzz: seed " << seed << ", " << ops << " ops (" << errors
              << " refused as errors), " << failures << " divergences, " << secs << " s\n";
    CHECK(failures == 0);
}

TEST_CASE("the map indices' fast comparison agrees with compare()", "[cdt][map_fuzz]") {
    // containers.hpp compares integers, strings and lists of them inline;
    // everything else goes to cdt_compare. Both must give the same sign.
    const std::uint64_t seed = env_u64("KVMODEL_SEED", 0x6b766d6170ULL) + 1;
    gen g(seed);
    auto element = [&]() -> value {
        switch (g.below(9)) {
        case 0:
            return wildcard;
        case 1:
            return inf;
        case 2:
            return value();
        case 3:
            return 1.5;
        case 4:
            return list{g.between(0, 2)};
        case 5:
            return std::string(g.below(3), static_cast<char>('a' + g.below(2)));
        default:
            return g.between(-2, 2);
        }
    };
    auto any = [&]() -> value {
        if (g.chance(60)) {
            list l;
            std::uint64_t k = g.below(4);
            for (std::uint64_t i = 0; i < k; ++i)
                l.push_back(element());
            return l;
        }
        return element();
    };
    auto sign = [](int c) {
        return (c > 0) - (c < 0);
    };
    int compared = 0;
    for (int i = 0; i < 100000; ++i) {
        value a = any();
        value b = any();
        for (bool wild : {false, true}) {
            int fast = sign(kvmodel::detail::map_compare(a, b, wild));
            int slow = sign(kvmodel::detail::cdt_compare(a, b, wild));
            if (fast != slow) {
                INFO("seed " << seed << ": " << to_string(a) << " vs " << to_string(b)
                             << (wild ? " (WILDCARD matches)" : ""));
                REQUIRE(fast == slow);
            }
            ++compared;
        }
        // The value index's comparison between stored values, and the
        // integer and flat-list probes the searches use.
        namespace kd = kvmodel::detail;
        auto check = [&](int fast, int slow, const char* what) {
            if (sign(fast) != sign(slow)) {
                INFO("seed " << seed << ": " << what << " " << to_string(a) << " vs "
                             << to_string(b));
                REQUIRE(sign(fast) == sign(slow));
            }
        };
        check(kd::map_compare_values(a, b), kd::cdt_compare(a, b, false), "values");
        check(kd::map_less(a, b, true) ? -1 : 1,
              kd::cdt_compare(a, b, true) < 0 ? -1 : 1,
              "less, WILDCARD matching");
        check(
            kd::map_less(a, b, false) ? -1 : 1, kd::cdt_compare(a, b, false) < 0 ? -1 : 1, "less");
        if (b.is_list() && !b.as_list().empty()) {
            const list& l = b.as_list();
            kd::map_list_probe p{&b, &*l.begin(), l.size()};
            check(kd::map_compare_list_probe(a, p), kd::cdt_compare(a, b, true), "list probe");
        }
        // A tree's comparison of a stored reference r with the probe p built
        // for b, both ways, as cdt_compare has it with WILDCARD matching.
        auto check_probe = [&](const auto& less, const kd::map_ref& r, const auto& p, const char* what) {
            check(less(r, p) ? -1 : 1, kd::cdt_compare(a, b, true) < 0 ? -1 : 1, what);
            check(less(p, r) ? -1 : 1, kd::cdt_compare(b, a, true) < 0 ? -1 : 1, what);
            return 0;
        };
        // The value index's own order on its nodes (list values by their
        // cached leads first; ties by key, here 0 < 1), and its searches with
        // the probe built for b. Stored values hold no WILDCARD.
        if (!a.contains_wildcard()) {
            kd::map_value_less less;
            kd::map_val_ref_less vless; // the trees compare references: summaries first
            alignas(kd::node_align) kd::map_node na(value(0), a);
            kd::map_ref ra = kd::map_val_ref(&na);
            if (!b.contains_wildcard()) {
                alignas(kd::node_align) kd::map_node nb(value(1), b);
                kd::map_ref rb = kd::map_val_ref(&nb);
                int slow = kd::cdt_compare(a, b, false);
                check(less(na, nb) ? -1 : 1, slow != 0 ? slow : -1, "value nodes");
                check(less(nb, na) ? -1 : 1, slow != 0 ? -slow : 1, "value nodes, swapped");
                check(vless(ra, rb) ? -1 : 1, slow != 0 ? slow : -1, "value refs");
                check(vless(rb, ra) ? -1 : 1, slow != 0 ? -slow : 1, "value refs, swapped");
            }
            kd::map_value_probe(b, [&](const auto& p) { return check_probe(vless, ra, p, "value ref vs probe"); });
        }
        // The key tree's references, exact between stored keys (a WILDCARD
        // key included) and WILDCARD-matching against the key probes.
        {
            kd::map_key_ref_less kless;
            alignas(kd::node_align) kd::map_node ka(a, value(0));
            alignas(kd::node_align) kd::map_node kb(b, value(0));
            kd::map_ref ra = kd::map_key_ref(&ka);
            kd::map_ref rb = kd::map_key_ref(&kb);
            check(kless(ra, rb) ? -1 : (kless(rb, ra) ? 1 : 0),
                  kd::cdt_compare(a, b, false),
                  "key refs");
            kd::map_key_probe(b, [&](const auto& p) { return check_probe(kless, ra, p, "key ref vs probe"); });
        }
    }
    CHECK(compared == 200000);
}

} // namespace cdt_map_fuzz_test
