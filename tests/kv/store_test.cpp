// Tests for kvmodel/kv/store.hpp: the kv_store concept and the kv::
// dispatchers — that they use a store's optional members when it has them
// and fall back to get/operate/remove otherwise, with the same results.
#include <kvmodel/kv/store.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <span>
#include <string>
#include <vector>

#include "minimal_store.hpp"

namespace kv_store_test {

using namespace kvmodel;

namespace {

// A store with only the required members (backed by a cluster), counting
// what the dispatchers call.
using test::minimal_store;

static_assert(kv::kv_store<minimal_store>);
static_assert(!kv::detail::has_batch_get<minimal_store>);
static_assert(kv::detail::has_batch_get<sim::cluster>);
static_assert(kv::detail::has_exists<sim::cluster>);
static_assert(kv::detail::has_put<sim::cluster>);
static_assert(kv::detail::has_touch<sim::cluster>);
static_assert(kv::detail::has_get_bins<sim::cluster>);
static_assert(kv::detail::has_batch_get_bins<sim::cluster>);
static_assert(!kv::kv_store<int>);

kv::key K(int i) {
    return kv::key("test", "st", i);
}

} // namespace

TEST_CASE("fallbacks go through get / operate / remove", "[kv][store]") {
    minimal_store s;
    const std::vector<kv::bin> bins{{"a", 1}, {"b", "x"}};
    REQUIRE(kv::put(s, K(1), bins));
    CHECK(s.operates == 1);
    CHECK(kv::exists(s, K(1)).value());
    CHECK_FALSE(kv::exists(s, K(2)).value());
    CHECK(s.operates == 3);
    const std::vector<std::string> names{"b"};
    auto some = kv::get(s, K(1), names);
    REQUIRE(some);
    CHECK(some->bins == std::vector<kv::bin>{{"b", "x"}});
    CHECK(some->results.empty());
    REQUIRE(kv::touch(s, K(1)));
    CHECK(kv::get(s, K(1))->generation == 2);
    CHECK(kv::touch(s, K(2)).code() == status::record_not_found);
    const std::vector<kv::key> keys{K(1), K(2)};
    const int gets_before = s.gets;
    auto rs = kv::batch_get(s, keys);
    CHECK(s.gets == gets_before + 2);
    REQUIRE(rs.size() == 2);
    CHECK(rs[0]->value_of("a") == value(1));
    CHECK(rs[1].code() == status::record_not_found);
    auto rb = kv::batch_get(s, keys, names);
    CHECK(rb[0]->bins == std::vector<kv::bin>{{"b", "x"}});
    CHECK(rb[1].code() == status::record_not_found);
    // An error other than not-found passes through exists.
    CHECK(kv::exists(s, kv::key("nope", "st", 1)).code() == status::invalid_namespace);
    // Put failures carry the operate error.
    const std::vector<kv::bin> bad{{std::string(16, 'x'), 1}};
    CHECK(kv::put(s, K(3), bad).code() == status::bin_name_too_long);
}

TEST_CASE("the dispatchers use a store's own members, with the same results", "[kv][store]") {
    minimal_store fallback;
    sim::cluster direct;
    const std::vector<kv::bin> bins{{"a", 1}, {"b", "x"}};
    REQUIRE(kv::put(fallback, K(1), bins));
    REQUIRE(kv::put(direct, K(1), bins));
    CHECK(kv::get(direct, K(1)).value() == kv::get(fallback, K(1)).value());
    const std::vector<std::string> names{"a", "missing"};
    CHECK(kv::get(direct, K(1), names).value() == kv::get(fallback, K(1), names).value());
    CHECK(kv::exists(direct, K(1)).value() == kv::exists(fallback, K(1)).value());
    REQUIRE(kv::touch(direct, K(1)));
    REQUIRE(kv::touch(fallback, K(1)));
    CHECK(kv::get(direct, K(1)).value() == kv::get(fallback, K(1)).value());
    const std::vector<kv::key> keys{K(1), K(9)};
    auto a = kv::batch_get(direct, keys);
    auto b = kv::batch_get(fallback, keys);
    REQUIRE(a.size() == b.size());
    CHECK(a[0].value() == b[0].value());
    CHECK(a[1].code() == b[1].code());
    // The cluster's batch read costs one round trip per node, the fallback one per key.
    direct.reset_stats();
    (void)kv::batch_get(direct, keys);
    CHECK(direct.stats().find("test")->totals.round_trips <= 2);
}

TEST_CASE("filters build equality and inclusive ranges", "[kv][store]") {
    const kv::filter e = kv::filter::equal("tags", "x", kv::index_collection::list);
    CHECK(e.bin == "tags");
    CHECK(e.collection == kv::index_collection::list);
    CHECK(e.begin == value("x"));
    CHECK_FALSE(e.end.has_value());
    const kv::filter r = kv::filter::range("age", 10, 20);
    CHECK(r.begin == value(10));
    CHECK(r.end == value(20));
    CHECK(r.collection == kv::index_collection::none);
    static_assert(kv::kv_queryable<sim::cluster>);
    static_assert(!kv::kv_queryable<minimal_store>);
}

} // namespace kv_store_test
