// The simulator writes a command's last CDT op in place (no undo) when
// ops_impl::cdt_growth_bound says the op cannot take the record past its size
// limit. Here that bound is checked against what ops really add: random
// containers (every order, persisted indexes at any depth), random writes
// through random contexts (existing elements, created ones, padding), each
// applied with the engine; a bin never grows by more than the bound, and an
// op that fails leaves its bin as it was (the in-place write relies on both).
#include "../core/random_value.hpp"

#include <kvmodel/cdt/engine.hpp>
#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/kv/record_size.hpp>
#include <kvmodel/sim/detail/record_engine.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace sim_growth_bound_test {

using namespace kvmodel;
namespace mo = kvmodel::cdt::map_ops;
namespace lo = kvmodel::cdt::list_ops;
using step = cdt::ctx_step;

// An index into n elements: mostly in range, a little out of it, counted
// from the end, or well past the end (padding).
std::int64_t signed_index(test::value_gen& g, std::size_t n) {
    if (g.chance(10)) return static_cast<std::int64_t>(n + 20 + g.index(40));
    auto i = static_cast<std::int64_t>(g.index(n + 4)) - 2;
    return g.chance(20) ? i - static_cast<std::int64_t>(n) : i;
}

// A context into b: steps into existing elements, then maybe create steps;
// and the container it reaches (nullptr: a created one, or none).
std::pair<std::vector<step>, const value*> random_ctx(test::value_gen& g, const value& b) {
    std::vector<step> ctx;
    const value* c = &b;
    std::size_t depth = g.index(4);
    for (std::size_t d = 0; d < depth; ++d) {
        if (c == nullptr || g.chance(15)) {
            // A create step (below a created element, or here).
            if (g.chance(50)) {
                std::size_t n = c != nullptr && c->is_list() ? c->as_list().size() : 0;
                ctx.push_back(step::list_index_create(
                    signed_index(g, n), g.chance(20) ? list_order::ordered : list_order::unordered,
                    g.chance(50)));
            } else {
                ctx.push_back(step::map_key_create(g.integer(),
                                                   g.chance(30) ? map_order::key_ordered
                                                                : map_order::unordered));
            }
            c = nullptr;
            continue;
        }
        if (c->is_list() && !c->as_list().empty()) {
            const list& l = c->as_list();
            std::size_t i = g.index(l.size());
            if (g.chance(10)) {
                ctx.push_back(step::list_value(l[i])); // not followed by the bound
            } else if (g.chance(10)) {
                ctx.push_back(step::list_rank(static_cast<std::int64_t>(i)));
            } else {
                ctx.push_back(step::list_index(g.chance(30) ? static_cast<std::int64_t>(i) -
                                                                  static_cast<std::int64_t>(l.size())
                                                            : static_cast<std::int64_t>(i)));
            }
            c = &l[i];
        } else if (c->is_map() && !c->as_map().empty()) {
            const map& m = c->as_map();
            std::size_t i = g.index(m.size());
            switch (g.index(4)) {
            case 0:
                ctx.push_back(step::map_key(m.key_at(i)));
                c = &m.value_at(i);
                break;
            case 1:
                ctx.push_back(step::map_index(static_cast<std::int64_t>(i)));
                c = &m.value_at(i);
                break;
            case 2:
                ctx.push_back(step::map_rank(static_cast<std::int64_t>(m.rank_of(i))));
                c = &m.value_at(i);
                break;
            default:
                ctx.push_back(step::map_value(m.value_at(i)));
                c = &m.value_at(i);
                break;
            }
        } else {
            ctx.push_back(step::list_index(signed_index(g, 0))); // into nothing: the op fails
            c = nullptr;
        }
        if (c != nullptr && !(c->is_list() || c->is_map()))
            break;
    }
    return {std::move(ctx), c};
}

// A write or remove, mostly of the kind the target takes (a list op on a
// list, a map op on a map).
cdt::op random_op(test::value_gen& g, std::vector<step> ctx, const value* target) {
    auto v = [&] { return g.any(1); };
    auto items = [&] {
        std::vector<value> out(g.index(4));
        for (auto& x : out) x = v();
        return out;
    };
    cdt::list_policy lp;
    if (g.chance(20)) lp.flags = cdt::list_write_flags::add_unique | cdt::list_write_flags::no_fail;
    std::size_t kind = g.index(11);
    if (target != nullptr && g.chance(80)) {
        if (target->is_list()) kind = g.chance(85) ? g.index(6) : 9;
        else if (target->is_map()) kind = g.chance(85) ? 6 + g.index(3) : 10;
    }
    switch (kind) {
    case 0: return lo::append(v(), lp, std::move(ctx));
    case 1: return lo::append_items(items(), lp, std::move(ctx));
    case 2: return lo::insert(signed_index(g, 6), v(), lp, std::move(ctx));
    case 3: return lo::insert_items(signed_index(g, 6), items(), lp, std::move(ctx));
    case 4: return lo::set(signed_index(g, 6), v(), lp, std::move(ctx));
    case 5: return lo::increment(signed_index(g, 6), g.chance(50) ? value(g.integer()) : value(1.5), lp, std::move(ctx));
    case 6: return mo::put(g.integer(), v(), mo::policy(map_order::key_ordered, cdt::map_write_flags::none, g.chance(20)), std::move(ctx));
    case 7: {
        std::vector<std::pair<value, value>> kv(g.index(4));
        for (auto& [k, x] : kv) {
            k = g.chance(70) ? value(g.integer()) : value(g.text());
            x = v();
        }
        return mo::put_items(std::move(kv), {}, std::move(ctx));
    }
    case 8: return mo::increment(g.integer(), g.integer(), {}, std::move(ctx));
    case 9: return lo::remove_by_index(signed_index(g, 6), cdt::return_type::none, false, std::move(ctx));
    default: return mo::remove_by_key(g.integer(), cdt::return_type::none, false, std::move(ctx));
    }
}

TEST_CASE("a CDT write never grows its bin by more than cdt_growth_bound") {
    const std::uint64_t seed = test::seed_for("sim_growth_bound");
    INFO("seed " << seed);
    test::value_gen g(seed);
    g.flags = true;
    g.max_len = 6;
    g.allow_nan = false;
    const std::size_t rounds = test::fuzz_ops(20000);
    std::size_t bounded = 0, through_ctx = 0, applied = 0;
    for (std::size_t round = 0; round < rounds; ++round) {
        const value b = g.chance(50) ? value(g.make_list(0)) : value(g.make_map(0));
        auto [ctx, target] = g.chance(80) ? random_ctx(g, b)
                                          : std::pair<std::vector<step>, const value*>{{}, &b};
        const cdt::op o = random_op(g, std::move(ctx), target);
        const std::optional<std::size_t> bound = sim::detail::ops_impl::cdt_growth_bound(b, o);
        std::optional<value> bin = b;
        const result<value> r = cdt::apply(bin, o);
        INFO("round " << round << ": bin " << b << ", op code " << static_cast<int>(o.code)
                                 << " with " << o.ctx.size() << " context steps");
        if (!r) {
            REQUIRE(bin.has_value());
            REQUIRE(*bin == b); // a failed op leaves its bin as it was
            continue;
        }
        if (!bound) continue;
        ++bounded;
        through_ctx += o.ctx.empty() ? 0U : 1U;
        applied += 1;
        REQUIRE(bin.has_value());
        const std::size_t before = kv::record_size::bin_size("b", b);
        const std::size_t after = kv::record_size::bin_size("b", *bin);
        if (after > before) REQUIRE(after - before <= *bound);
    }
    // The bound is given for most writes, and for writes through a context.
    CHECK(bounded > rounds / 4);
    CHECK(through_ctx > rounds / 40);
    CHECK(applied > 0);
}

// Growth that only the bound's per-level terms cover: each case fails with
// its term left out.
TEST_CASE("cdt_growth_bound covers padding, created containers and nested persisted indexes") {
    auto grows_within_bound = [](const value& b, const cdt::op& o) {
        const std::optional<std::size_t> bound = sim::detail::ops_impl::cdt_growth_bound(b, o);
        REQUIRE(bound.has_value());
        std::optional<value> bin = b;
        REQUIRE(cdt::apply(bin, o));
        const std::size_t before = kv::record_size::bin_size("b", b);
        const std::size_t after = kv::record_size::bin_size("b", *bin);
        REQUIRE(after > before);
        CHECK(after - before <= *bound);
        return after - before;
    };
    const value two(list{1, 2});
    SECTION("a create step pads an existing list") {
        CHECK(grows_within_bound(
                  two, lo::append(1, {}, {step::list_index_create(300, list_order::unordered, true)})) > 298);
    }
    SECTION("a create step pads a list it creates") {
        CHECK(grows_within_bound(
                  value(map{{1, 1}}),
                  lo::append(1, {}, {step::map_key_create(2, map_order::unordered),
                                     step::list_index_create(300, list_order::unordered, true)})) >
              300);
    }
    SECTION("create steps make containers, each with its key") {
        std::vector<step> ctx;
        for (int i = 0; i < 40; ++i)
            ctx.push_back(step::map_key_create(std::string(40, 'k'), map_order::key_ordered));
        CHECK(grows_within_bound(value(map{{1, 1}}), mo::put(1, 1, {}, ctx)) > 40 * 40);
    }
    SECTION("a persisted index on the way widens") {
        // An ORDERED list with a persisted index: one offset per element,
        // their width set by the body, which a write into its first element
        // takes past 255 bytes.
        list outer(list_order::ordered);
        for (int i = 0; i < 120; ++i)
            outer.push_back(list{i});
        outer.set_persist_index(true);
        CHECK(grows_within_bound(value(std::move(outer)),
                                 lo::append(std::string(200, 's'), {}, {step::list_index(0)})) >
              200 + 120);
    }
}

} // namespace sim_growth_bound_test
