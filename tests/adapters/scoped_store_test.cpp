// Tests of kvmodel/adapters/scoped_store.hpp on sim::cluster: records move to
// scoped sets, reads and writes round-trip, and everything written through the
// scope is gone after it.
#include <catch2/catch.hpp>

#include <kvmodel/adapters/scoped_store.hpp>
#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <string>
#include <vector>

namespace adapters_scoped_store_test {

using namespace kvmodel;
using adapters::scoped_store;

static_assert(kv::kv_store<scoped_store<sim::cluster>>);

TEST_CASE("scoped_store moves records into its own sets and removes them", "[adapters][scoped_store]") {
    sim::cluster c;
    const kv::key k("test", "users", "u1");
    const kv::key no_set("test", "", 7);
    const kv::bin outside[] = {{"v", value("outside")}};
    REQUIRE(c.put(k, outside));
    {
        scoped_store<sim::cluster> s(c, "run1");
        CHECK(s.scoped_set("users") == "users_run1");
        CHECK(s.scoped_set("") == "run1");
        // The scope does not see the unscoped record.
        auto missing = s.get(k);
        REQUIRE_FALSE(missing);
        CHECK(missing.error().code == status::record_not_found);
        const kv::bin inside[] = {{"v", value("inside")}};
        REQUIRE(s.put(k, inside));
        const kv::operation ops[] = {kv::op::cdt("l", cdt::list_ops::append(value(1)))};
        REQUIRE(s.operate(no_set, ops));
        CHECK(s.get(k)->value_of("v") == value("inside"));
        CHECK(*s.exists(no_set));
        // Underneath: the scoped sets, and the original record untouched.
        CHECK(c.get(kv::key("test", "users_run1", "u1"))->value_of("v") == value("inside"));
        CHECK(c.get(kv::key("test", "run1", 7))->value_of("l") == value(list{value(1)}));
        CHECK(c.get(k)->value_of("v") == value("outside"));
        const kv::key both[] = {k, no_set};
        auto batch = s.batch_get(both);
        REQUIRE(batch.size() == 2);
        REQUIRE(batch[0]);
        REQUIRE(batch[1]);
        CHECK(batch[1]->value_of("l") == value(list{value(1)}));
        // An over-long scoped set name is the same PARAMETER_ERROR as any.
        auto bad = s.get(kv::key("test", std::string(60, 's'), 1));
        REQUIRE_FALSE(bad);
        CHECK(bad.error().code == status::parameter_error);
    }
    CHECK(c.get(kv::key("test", "users_run1", "u1")).error().code == status::record_not_found);
    CHECK(c.get(kv::key("test", "run1", 7)).error().code == status::record_not_found);
    CHECK(c.get(k)->value_of("v") == value("outside"));
}

} // namespace adapters_scoped_store_test
