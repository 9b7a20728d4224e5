// Tests for sim::cluster::batch_operate (kv/batch.hpp on the simulator):
// the same answers as the one-command-per-record fallback, one round trip per
// node touched, the batch policy's filter inherited, a node failing mid-batch
// (answered records kept, the rest failed, writes in doubt) and
// respond_all_keys false stopping only the failing node's part.
#include <kvmodel/exp/build.hpp>
#include <kvmodel/kv/batch.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <random>
#include <set>
#include <span>
#include <vector>

#include "queryable_only.hpp"

namespace sim_batch_operate_test {

using namespace kvmodel;

namespace {

kv::key K(std::int64_t i) {
    return kv::key("test", "b", i);
}

// The cluster seen through the required members only: kv::batch_operate's
// fallback.
using plain = test::queryable_only;

std::uint64_t round_trips(const sim::cluster& db) {
    return db.stats().find("test")->totals.round_trips;
}

std::set<int> nodes_of(const sim::cluster& db, const std::vector<kv::batch_record>& batch) {
    std::set<int> nodes;
    for (const kv::batch_record& br : batch)
        nodes.insert(db.replicas(br.k).front());
    return nodes;
}

} // namespace

TEST_CASE("batch_operate answers as one command per record would", "[sim][batch]") {
    std::mt19937_64 rng(Catch::rngSeed());
    sim::cluster a;
    sim::cluster b;
    plain fallback{b};
    for (int round = 0; round < 20; ++round) {
        std::vector<kv::batch_record> batch;
        for (int j = 0; j < 40; ++j) {
            const auto id = static_cast<std::int64_t>(rng() % 25); // duplicates on purpose
            kv::write_policy wp;
            switch (rng() % 6) {
            case 0:
                batch.push_back(kv::batch_record::read(K(id)));
                break;
            case 1:
                batch.push_back(kv::batch_record::read(K(id), {kv::op::read("n")}));
                break;
            case 2:
                batch.push_back(kv::batch_record::remove(K(id)));
                break;
            case 3:
                wp.exists = kv::record_exists_action::create_only;
                batch.push_back(kv::batch_record::write(K(id), {kv::op::write("n", 1)}, wp));
                break;
            case 4:
                wp.filter_exp = (exp::bin_int("n") < 3).bytes();
                batch.push_back(
                    kv::batch_record::write(K(id), {kv::op::add("n", 1), kv::op::read("n")}, wp));
                break;
            default:
                batch.push_back(kv::batch_record::write(K(id), {kv::op::add("n", 2)}));
                break;
            }
        }
        const auto x = a.batch_operate(batch);
        const auto y = kv::batch_operate(fallback, batch);
        REQUIRE(x.size() == y.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
            INFO("round " << round << " record " << i);
            REQUIRE(x[i].code() == y[i].code());
            if (x[i])
                CHECK(*x[i] == *y[i]);
        }
    }
    for (int id = 0; id < 25; ++id) {
        const auto ra = a.get(K(id));
        const auto rb = b.get(K(id));
        REQUIRE(ra.code() == rb.code());
        if (ra)
            CHECK(*ra == *rb);
    }
}

TEST_CASE("batch_operate: one round trip per node touched", "[sim][batch]") {
    sim::cluster db;
    std::vector<kv::batch_record> batch;
    for (int i = 0; i < 100; ++i)
        batch.push_back(kv::batch_record::write(K(i), {kv::op::write("v", i)}));
    const auto rs = db.batch_operate(batch);
    for (const auto& r : rs)
        REQUIRE(r);
    CHECK(round_trips(db) == nodes_of(db, batch).size());
    CHECK(db.record_count("test") == 100);
    // Two keys on one node: one round trip.
    db.reset_stats();
    int first = -1;
    std::vector<kv::batch_record> same;
    for (int i = 0; same.size() < 2; ++i) {
        const int node = db.replicas(K(i)).front();
        if (first < 0)
            first = node;
        if (node == first)
            same.push_back(kv::batch_record::read(K(i)));
    }
    (void)db.batch_operate(same);
    CHECK(round_trips(db) == 1);
}

TEST_CASE("batch_operate: bad records fail alone", "[sim][batch]") {
    sim::cluster db;
    const std::vector<kv::batch_record> batch{
        kv::batch_record::write(K(1), {}),                     // no ops
        kv::batch_record::read(K(1), {kv::op::write("a", 1)}), // a write in a read
        kv::batch_record::write(kv::key("nope", "b", 1), {kv::op::write("a", 1)}),
        kv::batch_record::write(K(2), {kv::op::write("a_name_too_long_here", 1)}),
        kv::batch_record::write(K(3), {kv::op::write("a", 1)}),
    };
    const auto rs = db.batch_operate(batch);
    CHECK(rs[0].code() == status::parameter_error);
    CHECK(rs[1].code() == status::parameter_error);
    CHECK(rs[2].code() == status::invalid_namespace);
    CHECK(rs[3].code() == status::bin_name_too_long);
    CHECK(rs[4]);
    CHECK(db.record_count("test") == 1);
}

TEST_CASE("batch_operate: the batch policy's filter applies to records without one",
          "[sim][batch]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"a", 1}}));
    REQUIRE(db.put(K(2), {{"a", 2}}));
    kv::batch_policy bp;
    bp.filter_exp = (exp::bin_int("a") == 1).bytes();
    kv::read_policy own;
    own.filter_exp = (exp::bin_int("a") == 2).bytes();
    const std::vector<kv::batch_record> batch{
        kv::batch_record::read(K(1)),
        kv::batch_record::read(K(2)),
        kv::batch_record::read(K(2), {}, own),
        kv::batch_record::write(K(2), {kv::op::write("a", 9)}),
    };
    const auto rs = db.batch_operate(batch, bp);
    CHECK(rs[0]);
    CHECK(rs[1].code() == status::filtered_out);
    CHECK(rs[2]);
    CHECK(rs[3].code() == status::filtered_out);
    CHECK(db.get(K(2))->value_of("a") == value(2));
}

TEST_CASE("batch_operate: a node failing mid-batch", "[sim][batch][faults]") {
    // Records of one node, in batch order, and one record of another node.
    sim::cluster db;
    std::vector<std::int64_t> mine;
    std::int64_t other = -1;
    const int node = db.replicas(K(0)).front();
    for (std::int64_t i = 0; mine.size() < 4 || other < 0; ++i) {
        if (db.replicas(K(i)).front() == node) {
            if (mine.size() < 4)
                mine.push_back(i);
        } else if (other < 0) {
            other = i;
        }
    }
    std::vector<kv::batch_record> batch;
    for (std::int64_t i : mine)
        batch.push_back(kv::batch_record::write(K(i), {kv::op::add("n", 1)}));
    batch.push_back(kv::batch_record::write(K(other), {kv::op::add("n", 1)}));

    SECTION("answer lost at the second record: the rest applied, in doubt") {
        REQUIRE(db.add_fault(sim::fault::in_doubt().for_key(K(mine[1]))));
        const auto rs = db.batch_operate(batch);
        CHECK(rs[0]);
        for (std::size_t i = 1; i < 4; ++i) {
            REQUIRE_FALSE(rs[i]);
            CHECK(rs[i].error().code == status::timeout);
            CHECK(rs[i].error().in_doubt);
            CHECK(db.get(K(mine[i]))->value_of("n") == value(1));
        }
        CHECK(rs[4]);
    }
    SECTION("request lost at the second record: the rest not applied") {
        REQUIRE(db.add_fault(sim::fault::timeout().for_key(K(mine[1]))));
        const auto rs = db.batch_operate(batch);
        CHECK(rs[0]);
        for (std::size_t i = 1; i < 4; ++i) {
            CHECK(rs[i].code() == status::timeout);
            CHECK(db.get(K(mine[i])).code() == status::record_not_found);
        }
        CHECK(rs[4]);
    }
    SECTION("with a retry the unanswered records are sent again") {
        REQUIRE(db.add_fault(sim::fault::timeout().for_key(K(mine[1]))));
        kv::batch_policy bp;
        bp.max_retries = 1;
        const auto rs = db.batch_operate(batch, bp);
        for (const auto& r : rs)
            CHECK(r);
        for (std::int64_t i : mine)
            CHECK(db.get(K(i))->value_of("n") == value(1));
    }
    SECTION("a crash under the second record: it is applied, the rest are not") {
        REQUIRE(db.add_fault(sim::fault::node_crash(node).for_key(K(mine[1]))));
        const auto rs = db.batch_operate(batch);
        CHECK(rs[0]);
        for (std::size_t i = 1; i < 4; ++i) {
            CHECK(rs[i].code() == status::connection);
            CHECK(rs[i].error().in_doubt);
        }
        // The node is refused until it is taken down; then its replica answers.
        db.manual_time()->advance(std::chrono::seconds(3));
        CHECK(db.get(K(mine[1]))->value_of("n") == value(1));
        CHECK(db.get(K(mine[2])).code() == status::record_not_found);
    }
}

TEST_CASE("batch_operate: respond_all_keys false stops the failing node's part only",
          "[sim][batch]") {
    sim::cluster db;
    const int node = db.replicas(K(0)).front();
    std::vector<std::int64_t> mine;
    std::int64_t other = -1;
    for (std::int64_t i = 0; mine.size() < 3 || other < 0; ++i) {
        if (db.replicas(K(i)).front() == node) {
            if (mine.size() < 3)
                mine.push_back(i);
        } else if (other < 0) {
            other = i;
        }
    }
    REQUIRE(db.put(K(mine[1]), {{"n", 1}}));
    kv::write_policy create_only;
    create_only.exists = kv::record_exists_action::create_only;
    const std::vector<kv::batch_record> batch{
        kv::batch_record::read(K(mine[0])), // not found: goes on
        kv::batch_record::write(K(mine[1]), {kv::op::write("n", 2)}, create_only),
        kv::batch_record::write(K(other), {kv::op::write("n", 2)}),
        kv::batch_record::write(K(mine[2]), {kv::op::write("n", 2)}),
    };
    kv::batch_policy bp;
    bp.respond_all_keys = false;
    const auto rs = db.batch_operate(batch, bp);
    CHECK(rs[0].code() == status::record_not_found);
    CHECK(rs[1].code() == status::record_exists);
    CHECK(rs[2]);
    CHECK(rs[3].code() == status::no_response);
    CHECK(db.get(K(mine[2])).code() == status::record_not_found);
}

} // namespace sim_batch_operate_test
