// The suite every kv_store passes (STYLE.md): the same commands give the
// same statuses and records on every store. `all_stores` lists them; the
// Aerospike adapter joins with a factory that connects to a server.
//
// Each store type S needs a store_factory<S> with
//   static std::unique_ptr<S> make();      // nullptr: skip (no server)
//   static std::string ns();               // namespace to use
#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace kv_store_conformance_test {

using namespace kvmodel;

namespace {

template <class S>
struct store_factory;

template <>
struct store_factory<sim::cluster> {
    static std::unique_ptr<sim::cluster> make() { return std::make_unique<sim::cluster>(); }
    static std::string ns() { return "test"; }
};

using all_stores = std::tuple<sim::cluster>;

template <class S>
struct suite {
    std::unique_ptr<S> store = store_factory<S>::make();
    std::string set = "kvconf";

    kv::key key(int i) const { return kv::key(store_factory<S>::ns(), set, i); }
    // Starts each test from a missing record (a real server keeps data).
    kv::key fresh(int i) {
        kv::key k = key(i);
        (void)store->remove(k, {});
        return k;
    }
    kv::record read(const kv::key& k) { return kv::get(*store, k).value(); }
};

} // namespace

TEMPLATE_LIST_TEST_CASE("put, get, exists, touch, remove", "[kv][conformance]", all_stores) {
    suite<TestType> s;
    if (!s.store)
        return;
    const kv::key k = s.fresh(1);
    const std::vector<kv::bin> bins{{"i", 1}, {"s", "x"}, {"d", 1.5}, {"l", list{1, 2}}};
    REQUIRE(kv::put(*s.store, k, bins));
    kv::record r = s.read(k);
    CHECK(r.generation == 1);
    CHECK(r.value_of("i") == value(1));
    CHECK(r.value_of("s") == value("x"));
    CHECK(r.value_of("d") == value(1.5));
    CHECK(r.value_of("l") == value(list{1, 2}));
    CHECK(kv::exists(*s.store, k).value());
    REQUIRE(kv::touch(*s.store, k));
    CHECK(s.read(k).generation == 2);
    REQUIRE(s.store->remove(k, {}));
    CHECK(kv::get(*s.store, k).code() == status::record_not_found);
    CHECK_FALSE(kv::exists(*s.store, k).value());
    CHECK(s.store->remove(k, {}).code() == status::record_not_found);
}

TEMPLATE_LIST_TEST_CASE("operate is atomic per record", "[kv][conformance]", all_stores) {
    suite<TestType> s;
    if (!s.store)
        return;
    const kv::key k = s.fresh(2);
    const std::vector<kv::bin> bins{{"n", 1}, {"s", "text"}};
    REQUIRE(kv::put(*s.store, k, bins));
    const std::vector<kv::operation> seed{kv::op::cdt("m", cdt::map_ops::put(1, "a"))};
    REQUIRE(s.store->operate(k, seed, {}));
    const kv::record before = s.read(k);
    // Writes, a CDT change and a bin delete, then a failing op.
    const std::vector<kv::operation> ops{kv::op::add("n", 5),
                                         kv::op::cdt("m", cdt::map_ops::put(2, "b")),
                                         kv::op::write("s", value()),
                                         kv::op::add("m", 1)};
    auto r = s.store->operate(k, ops, {});
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::bin_type_error);
    CHECK(s.read(k) == before);
}

TEMPLATE_LIST_TEST_CASE("one result per op, in order", "[kv][conformance]", all_stores) {
    suite<TestType> s;
    if (!s.store)
        return;
    const kv::key k = s.fresh(3);
    const std::vector<kv::operation> ops{
        kv::op::write("n", 1),
        kv::op::add("n", 2),
        kv::op::read("n"),
        kv::op::cdt("l", cdt::list_ops::append(7)),
        kv::op::cdt("l", cdt::list_ops::append(8)),
        kv::op::cdt("l", cdt::list_ops::get_by_index(-1, cdt::return_type::value)),
        kv::op::read("missing"),
    };
    auto r = s.store->operate(k, ops, {});
    REQUIRE(r);
    CHECK(r->results ==
          std::vector<value>{value(), value(), value(3), value(1), value(2), value(8), value()});
    CHECK(r->generation == 1);
}

TEMPLATE_LIST_TEST_CASE("every status path", "[kv][conformance]", all_stores) {
    suite<TestType> s;
    if (!s.store)
        return;
    const kv::key k = s.fresh(4);
    CHECK(kv::get(*s.store, k).code() == status::record_not_found);
    const std::vector<kv::operation> read_n{kv::op::read("n")};
    CHECK(s.store->operate(k, read_n, {}).code() == status::record_not_found);
    const std::vector<kv::bin> bins{{"n", 1}, {"s", "x"}};
    REQUIRE(kv::put(*s.store, k, bins));
    const kv::record before = s.read(k);

    kv::write_policy gen;
    gen.gen = kv::generation_policy::eq;
    gen.generation = before.generation + 5;
    CHECK(kv::put(*s.store, k, bins, gen).code() == status::generation_error);

    kv::write_policy create;
    create.exists = kv::record_exists_action::create_only;
    CHECK(kv::put(*s.store, k, bins, create).code() == status::record_exists);

    const std::vector<kv::bin> big{{"big", std::string(kv::default_max_record_size, 'x')}};
    CHECK(kv::put(*s.store, k, big).code() == status::record_too_big);

    const std::vector<kv::bin> long_name{{"sensor_temperature", 1}};
    CHECK(kv::put(*s.store, k, long_name).code() == status::bin_name_too_long);

    const std::vector<kv::operation> clash{kv::op::add("s", 1)};
    CHECK(s.store->operate(k, clash, {}).code() == status::bin_type_error);

    kv::write_policy bad_ttl;
    bad_ttl.ttl = kv::max_ttl + 1;
    CHECK(kv::put(*s.store, k, bins, bad_ttl).code() == status::parameter_error);
    kv::write_policy replace;
    replace.exists = kv::record_exists_action::replace;
    const std::vector<kv::operation> modify{kv::op::add("n", 1)};
    CHECK(s.store->operate(k, modify, replace).code() == status::parameter_error);

    CHECK(s.read(k) == before);
}

TEMPLATE_LIST_TEST_CASE("batch reads answer per key", "[kv][conformance]", all_stores) {
    suite<TestType> s;
    if (!s.store)
        return;
    const kv::key a = s.fresh(5);
    const kv::key b = s.fresh(6);
    const std::vector<kv::bin> bins{{"v", 5}};
    REQUIRE(kv::put(*s.store, a, bins));
    const std::vector<kv::key> keys{a, b, a};
    auto rs = kv::batch_get(*s.store, keys);
    REQUIRE(rs.size() == 3);
    CHECK(rs[0]->value_of("v") == value(5));
    CHECK(rs[1].code() == status::record_not_found);
    CHECK(rs[2]->value_of("v") == value(5));
}

} // namespace kv_store_conformance_test
