// Filter expressions on sim::cluster's commands, as the server applies them
// (as/src/transaction/read.c, write.c, delete.c, rw_utils.c
// handle_meta_filter / read_and_filter_bins): an existing record is filtered,
// false or unknown is FILTERED_OUT (27) and changes nothing; a write that
// creates the record never evaluates the filter; a read of a missing record
// is KEY_NOT_FOUND first; scans and queries skip filtered records; a batch
// fails the filtered keys only.
#include <kvmodel/exp/build.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sim_exp_filter_test {

using namespace kvmodel;
namespace e = kvmodel::exp;

namespace {

kv::key K(std::int64_t i) {
    return kv::key("test", "s", i);
}

struct fixture {
    std::shared_ptr<sim::manual_clock> clock = std::make_shared<sim::manual_clock>();
    sim::cluster db{config(clock)};
    static sim::cluster_config config(std::shared_ptr<sim::manual_clock> c) {
        sim::cluster_config cfg;
        cfg.time_source = std::move(c);
        cfg.namespaces[0].nsup_period = 60; // TTL writes need nsup, as on the server
        return cfg;
    }
};

template <class P>
P with(const e::expr& x) {
    P p;
    p.filter_exp = x.bytes();
    return p;
}

} // namespace

TEST_CASE("get and exists: FILTERED_OUT when false or unknown", "[sim][exp]") {
    fixture f;
    REQUIRE(f.db.put(K(1), {{"a", 5}}));
    auto yes = with<kv::read_policy>(e::bin_int("a") == 5);
    auto no = with<kv::read_policy>(e::bin_int("a") == 6);
    auto unknown = with<kv::read_policy>(e::bin_int("missing") == 6);
    CHECK(f.db.get(K(1), yes));
    CHECK(f.db.get(K(1), no).code() == status::filtered_out);
    CHECK(f.db.get(K(1), unknown).code() == status::filtered_out);
    CHECK(f.db.exists(K(1), yes).value());
    CHECK(f.db.exists(K(1), no).code() == status::filtered_out);
    // A missing record is KEY_NOT_FOUND before any filter.
    CHECK(f.db.get(K(2), no).code() == status::record_not_found);
    CHECK(f.db.exists(K(2), no).value() == false);
    // Named bins go through the read path.
    std::array<std::string, 1> bins{"a"};
    CHECK(f.db.get(K(1), bins, no).code() == status::filtered_out);
    CHECK(f.db.get(K(1), bins, yes));
}

TEST_CASE("writes: filtered on an existing record, not on creation", "[sim][exp]") {
    fixture f;
    auto only_low = with<kv::write_policy>(e::bin_int("score") < 10);
    // Creating: the filter is not evaluated (the bin does not even exist).
    REQUIRE(f.db.put(K(1), {{"score", 5}}, only_low));
    REQUIRE(f.db.put(K(1), {{"score", 20}}, only_low));
    auto r = f.db.put(K(1), {{"score", 30}}, only_low);
    CHECK(r.code() == status::filtered_out);
    CHECK(f.db.get(K(1))->bins[0].val == value(std::int64_t{20}));
    CHECK(f.db.get(K(1))->generation == 2);
    CHECK(f.db.touch(K(1), only_low).code() == status::filtered_out);
    CHECK(f.db.remove(K(1), only_low).code() == status::filtered_out);
    CHECK(f.db.operate(K(1), {kv::op::add("score", 1)}, only_low).code() == status::filtered_out);
    CHECK(f.db.operate(K(1), {kv::op::read("score")}, only_low).code() == status::filtered_out);
    auto high = with<kv::write_policy>(e::bin_int("score") >= 10);
    CHECK(f.db.operate(K(1), {kv::op::add("score", 1)}, high));
    CHECK(f.db.remove(K(1), high));
    CHECK(f.db.remove(K(1), high).code() == status::record_not_found);
}

TEST_CASE("a malformed or non-boolean filter is PARAMETER_ERROR", "[sim][exp]") {
    fixture f;
    REQUIRE(f.db.put(K(1), {{"a", 5}}));
    kv::read_policy rp;
    rp.filter_exp = {0x93, 0x01, 0x01}; // truncated
    auto r = f.db.get(K(1), rp);
    CHECK(r.code() == status::parameter_error);
    CHECK_THAT(r.error().message, Catch::Contains("get"));
    rp.filter_exp = e::bin_int("a").bytes(); // an int, not a bool
    CHECK(f.db.get(K(1), rp).code() == status::parameter_error);
    // The write that creates a record never builds the filter.
    kv::write_policy wp;
    wp.filter_exp = {0x93, 0x01, 0x01};
    CHECK(f.db.put(K(2), {{"a", 1}}, wp));
    CHECK(f.db.put(K(2), {{"a", 1}}, wp).code() == status::parameter_error);
}

TEST_CASE("metadata filters: ttl, since_update, set, key, digest", "[sim][exp]") {
    fixture f;
    kv::write_policy wp;
    wp.ttl = 100;
    wp.send_key = true;
    REQUIRE(f.db.put(K(7), {{"a", 1}}, wp));
    f.clock->advance(std::chrono::milliseconds(2500));
    CHECK(f.db.get(K(7), with<kv::read_policy>(e::ttl() == 98)));
    CHECK(f.db.get(K(7), with<kv::read_policy>(e::since_update() == 2500)));
    CHECK(f.db.get(K(7), with<kv::read_policy>(e::set_name() == "s")));
    CHECK(f.db.get(K(7), with<kv::read_policy>(e::key_int() == 7)));
    CHECK(f.db.get(K(7), with<kv::read_policy>(e::key_exists())));
    CHECK(f.db.get(K(7), with<kv::read_policy>(e::record_size() > 0)));
    const kv::digest d = K(7).digest();
    std::uint32_t low =
        static_cast<std::uint32_t>(d[16]) | (static_cast<std::uint32_t>(d[17]) << 8) |
        (static_cast<std::uint32_t>(d[18]) << 16) | (static_cast<std::uint32_t>(d[19]) << 24);
    CHECK(f.db.get(
        K(7), with<kv::read_policy>(e::digest_modulo(3) == static_cast<std::int64_t>(low % 3))));
    CHECK(f.db.get(K(7),
                   with<kv::read_policy>(e::digest_modulo(3) ==
                                         static_cast<std::int64_t>(low % 3 + 1)))
              .code() == status::filtered_out);
    // last_update is in nanoseconds.
    std::int64_t lut_ns = (f.clock->now_ms() - 2500) * 1'000'000;
    CHECK(f.db.get(K(7), with<kv::read_policy>(e::last_update() == lut_ns)));
}

TEST_CASE("scans and queries skip filtered records; batches fail them per key", "[sim][exp]") {
    fixture f;
    for (int i = 0; i < 10; ++i)
        REQUIRE(f.db.put(K(i), {{"n", i}}));
    auto even = with<kv::read_policy>(e::mod(e::bin_int("n"), 2) == 0);
    kv::scan_request sr;
    sr.ns = "test";
    sr.set = "s";
    auto all = f.db.scan(sr, even);
    REQUIRE(all);
    CHECK(all->size() == 5);
    for (const auto& kr : *all)
        CHECK(kr.rec.bins[0].val.as_int() % 2 == 0);
    REQUIRE(f.db.create_index(
        {"test", "s", "n", "ix", kv::index_type::numeric, kv::index_collection::none}));
    kv::query_request qr;
    qr.ns = "test";
    qr.set = "s";
    qr.where.bin = "n";
    qr.where.begin = value(std::int64_t{2});
    qr.where.end = value(std::int64_t{6});
    auto q = f.db.query(qr, even);
    REQUIRE(q);
    CHECK(q->size() == 3);
    kv::read_policy bad;
    bad.filter_exp = {0x91, 0x63};
    CHECK(f.db.scan(sr, bad).code() == status::parameter_error);
    std::vector<kv::key> keys{K(0), K(1), K(42)};
    auto b = f.db.batch_get(keys, even);
    REQUIRE(b.size() == 3);
    CHECK(b[0]);
    CHECK(b[1].code() == status::filtered_out);
    CHECK(b[2].code() == status::record_not_found);
}

TEST_CASE("exp_read: the expression's value, unknown per EVAL_NO_FAIL", "[sim][exp]") {
    fixture f;
    REQUIRE(f.db.put(K(1), {{"a", 5}, {"b", 7}}));
    auto r =
        f.db.operate(K(1), {kv::op::exp_read("sum", (e::bin_int("a") + e::bin_int("b")).bytes())});
    REQUIRE(r);
    CHECK(r->results[0] == value(std::int64_t{12}));
    CHECK(r->bins.size() == 1);
    CHECK(r->bins[0].name == "sum");
    // It sees the writes before it in the same command.
    r = f.db.operate(
        K(1), {kv::op::write("a", 100), kv::op::exp_read("x", (e::bin_int("a") * 2).bytes())});
    REQUIRE(r);
    CHECK(r->results[1] == value(std::int64_t{200}));
    // Unknown: OP_NOT_APPLICABLE, and the command's writes are undone.
    auto bad = f.db.operate(
        K(1), {kv::op::write("a", 1), kv::op::exp_read("x", e::bin_int("zz").bytes())});
    CHECK(bad.code() == status::op_not_applicable);
    CHECK(f.db.get(K(1))->bins[0].val == value(std::int64_t{100}));
    r = f.db.operate(
        K(1), {kv::op::exp_read("x", e::bin_int("zz").bytes(), e::read_flags::eval_no_fail)});
    REQUIRE(r);
    CHECK(r->results[0].is_nil());
    CHECK(f.db.operate(K(1), {kv::op::exp_read("x", e::bin_int("a").bytes(), 1)}).code() ==
          status::parameter_error);
    CHECK(f.db.operate(K(1), {kv::op::exp_read("x", {0x91, 0x63})}).code() ==
          status::parameter_error);
    // A CDT call through the engine: the top two of a list bin.
    REQUIRE(f.db.put(
        K(2),
        {{"l",
          value(list{value(std::int64_t{3}), value(std::int64_t{9}), value(std::int64_t{5})})}}));
    r = f.db.operate(
        K(2),
        {kv::op::exp_read("top", e::list_get_by_rank_range(7, -2, 2, e::bin_list("l")).bytes())});
    REQUIRE(r);
    CHECK(r->results[0] ==
          value(list{value(std::int64_t{5}), value(std::int64_t{9})})); // rank order
}

TEST_CASE("exp_write: the value to the bin under the op's flags", "[sim][exp]") {
    namespace wf = e::write_flags;
    fixture f;
    REQUIRE(f.db.put(K(1), {{"score", 40}}));
    // Keep the higher score, in one command.
    auto best = e::cond(e::bin_int("score") < 50, 50, e::bin_int("score")).bytes();
    REQUIRE(f.db.operate(K(1), {kv::op::exp_write("score", best)}));
    CHECK(f.db.get(K(1))->bins[0].val == value(std::int64_t{50}));
    auto one = e::int_val(1).bytes();
    CHECK(f.db.operate(K(1), {kv::op::exp_write("score", one, wf::create_only)}).code() ==
          status::bin_exists_error);
    CHECK(f.db.operate(K(1),
                       {kv::op::exp_write("score", one, wf::create_only | wf::policy_no_fail)}));
    CHECK(f.db.get(K(1))->bins[0].val == value(std::int64_t{50}));
    CHECK(f.db.operate(K(1), {kv::op::exp_write("new", one, wf::update_only)}).code() ==
          status::bin_not_found);
    CHECK(
        f.db.operate(K(1), {kv::op::exp_write("new", one, wf::update_only | wf::policy_no_fail)}));
    CHECK(f.db.get(K(1))->bins.size() == 1);
    CHECK(f.db.operate(K(1), {kv::op::exp_write("new", one, wf::create_only)}));
    CHECK(f.db.get(K(1))->bins.size() == 2);
    // Unknown.
    auto unk = e::bin_int("zz").bytes();
    CHECK(f.db.operate(K(1), {kv::op::exp_write("new", unk)}).code() == status::op_not_applicable);
    CHECK(f.db.operate(K(1), {kv::op::exp_write("new", unk, wf::eval_no_fail)}));
    // Nil deletes only with ALLOW_DELETE; with any other flag it is a no-op.
    auto nil = e::nil().bytes();
    CHECK(f.db.operate(K(1), {kv::op::exp_write("new", nil)}).code() == status::op_not_applicable);
    CHECK(f.db.operate(K(1), {kv::op::exp_write("new", nil, wf::eval_no_fail)}));
    CHECK(f.db.get(K(1))->bins.size() == 2);
    CHECK(f.db.operate(K(1), {kv::op::exp_write("new", nil, wf::allow_delete)}));
    CHECK(f.db.get(K(1))->bins.size() == 1);
    CHECK(f.db.operate(K(1), {kv::op::exp_write("new", one, 64)}).code() ==
          status::parameter_error);
    // A command of one exp_write creates the record.
    CHECK(f.db.operate(K(9), {kv::op::exp_write("v", (e::int_val(2) + 3).bytes())}));
    CHECK(f.db.get(K(9))->bins[0].val == value(std::int64_t{5}));
    // A modify call's result written back: append in one op.
    REQUIRE(f.db.put(K(3), {{"l", value(list{})}}));
    REQUIRE(
        f.db.operate(K(3), {kv::op::exp_write("l", e::list_append(7, e::bin_list("l")).bytes())}));
    CHECK(f.db.get(K(3))->bins[0].val == value(list{value(std::int64_t{7})}));
}

} // namespace sim_exp_filter_test
