// Tests for kvmodel/kv/batch.hpp: kv::batch_operate's fallback (a store
// without a batch_operate member) — one result per record in batch order,
// reads / writes / deletes with their own policies, duplicates in order,
// in-doubt writes, respond_all_keys false stopping at the first real error.
#include <kvmodel/exp/build.hpp>
#include <kvmodel/kv/batch.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <span>
#include <vector>

#include "minimal_store.hpp"

namespace kv_batch_test {

using namespace kvmodel;

namespace {

// Only the required members, counting what the fallback calls.
using test::minimal_store;

static_assert(!kv::detail::has_batch_operate<minimal_store>);

kv::key K(int i) {
    return kv::key("test", "b", i);
}

} // namespace

TEST_CASE("fallback: one result per record, in order", "[kv][batch]") {
    minimal_store s;
    REQUIRE(s.db.put(K(1), {{"a", 1}, {"b", "x"}}));
    REQUIRE(s.db.put(K(3), {{"a", 3}}));
    kv::write_policy gen_eq;
    gen_eq.gen = kv::generation_policy::eq;
    gen_eq.generation = 7;
    const std::vector<kv::batch_record> batch{
        kv::batch_record::read(K(1)),
        kv::batch_record::read(K(1), {kv::op::read("b")}),
        kv::batch_record::read(K(2)),
        kv::batch_record::write(K(2), {kv::op::add("a", 5), kv::op::read("a")}),
        kv::batch_record::write(K(3), {kv::op::write("a", 0)}, gen_eq),
        kv::batch_record::remove(K(3)),
        kv::batch_record::remove(K(4)),
    };
    const auto rs = kv::batch_operate(s, batch);
    REQUIRE(rs.size() == batch.size());
    CHECK(s.gets == 2);
    CHECK(s.operates == 3);
    CHECK(s.removes == 2);
    REQUIRE(rs[0]);
    CHECK(rs[0]->value_of("a") == value(1));
    CHECK(rs[0]->value_of("b") == value("x"));
    REQUIRE(rs[1]);
    CHECK(rs[1]->results == std::vector<value>{value("x")});
    CHECK(rs[2].code() == status::record_not_found);
    REQUIRE(rs[3]);
    CHECK(rs[3]->results.back() == value(5));
    CHECK(rs[4].code() == status::generation_error);
    CHECK(rs[5]);
    CHECK(rs[6].code() == status::record_not_found);
    // The failed generation write left K(3) as it was before the delete.
    CHECK(s.db.get(K(2))->value_of("a") == value(5));
    CHECK(s.db.get(K(3)).code() == status::record_not_found);
}

TEST_CASE("fallback: duplicate keys run in batch order", "[kv][batch]") {
    minimal_store s;
    const std::vector<kv::batch_record> batch{
        kv::batch_record::write(K(1), {kv::op::add("n", 1)}),
        kv::batch_record::read(K(1)),
        kv::batch_record::write(K(1), {kv::op::add("n", 1), kv::op::read("n")}),
    };
    const auto rs = kv::batch_operate(s, batch);
    REQUIRE(rs.size() == 3);
    CHECK(rs[1]->value_of("n") == value(1));
    CHECK(rs[2]->results.back() == value(2));
}

TEST_CASE("fallback: filter expressions per record", "[kv][batch]") {
    minimal_store s;
    REQUIRE(s.db.put(K(1), {{"a", 1}}));
    REQUIRE(s.db.put(K(2), {{"a", 2}}));
    kv::read_policy only_one;
    only_one.filter_exp = (exp::bin_int("a") == 1).bytes();
    kv::write_policy only_two;
    only_two.filter_exp = (exp::bin_int("a") == 2).bytes();
    const std::vector<kv::batch_record> batch{
        kv::batch_record::read(K(1), {}, only_one),
        kv::batch_record::read(K(2), {}, only_one),
        kv::batch_record::write(K(1), {kv::op::write("a", 10)}, only_two),
        kv::batch_record::write(K(2), {kv::op::write("a", 20)}, only_two),
        kv::batch_record::remove(K(1), only_two),
    };
    const auto rs = kv::batch_operate(s, batch);
    CHECK(rs[0]);
    CHECK(rs[1].code() == status::filtered_out);
    CHECK(rs[2].code() == status::filtered_out);
    CHECK(rs[3]);
    CHECK(rs[4].code() == status::filtered_out);
    CHECK(s.db.get(K(1))->value_of("a") == value(1));
    CHECK(s.db.get(K(2))->value_of("a") == value(20));
}

TEST_CASE("fallback: a write whose answer is lost is in doubt", "[kv][batch]") {
    minimal_store s;
    REQUIRE(s.db.add_fault(sim::fault::in_doubt().for_key(K(2))));
    const std::vector<kv::batch_record> batch{
        kv::batch_record::write(K(1), {kv::op::write("a", 1)}),
        kv::batch_record::write(K(2), {kv::op::write("a", 2)}),
    };
    const auto rs = kv::batch_operate(s, batch);
    CHECK(rs[0]);
    REQUIRE_FALSE(rs[1]);
    CHECK(rs[1].error().code == status::timeout);
    CHECK(rs[1].error().in_doubt);
}

TEST_CASE("fallback: respond_all_keys false stops at the first real error", "[kv][batch]") {
    minimal_store s;
    REQUIRE(s.db.put(K(1), {{"a", 1}}));
    kv::write_policy create_only;
    create_only.exists = kv::record_exists_action::create_only;
    const std::vector<kv::batch_record> batch{
        kv::batch_record::read(K(9)),                                        // not found: goes on
        kv::batch_record::write(K(1), {kv::op::write("a", 2)}, create_only), // stops
        kv::batch_record::write(K(2), {kv::op::write("a", 2)}),
    };
    kv::batch_policy bp;
    bp.respond_all_keys = false;
    const auto rs = kv::batch_operate(s, batch, bp);
    CHECK(rs[0].code() == status::record_not_found);
    CHECK(rs[1].code() == status::record_exists);
    REQUIRE_FALSE(rs[2]);
    CHECK(rs[2].error().code == status::no_response);
    CHECK_FALSE(rs[2].error().in_doubt);
    CHECK(s.db.get(K(2)).code() == status::record_not_found);
    // With the default every record is answered.
    const auto all = kv::batch_operate(s, batch);
    CHECK(all[2]);
}

} // namespace kv_batch_test
