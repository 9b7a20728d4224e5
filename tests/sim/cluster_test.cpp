// Tests for kvmodel/sim/cluster.hpp: the server's read and write paths on
// one record — every status path, all-or-nothing operate(), respond-all-ops
// results, policies, TTL — plus partitions, batch reads, scans and queries.
// Where a rule comes from the server source it is cited
// (aerospike-server as/src/transaction/write.c, read.c, delete_ce.c).
#include <kvmodel/cdt/bit_ops.hpp>
#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace sim_cluster_test {

using namespace kvmodel;
using namespace std::chrono_literals;
namespace mo = kvmodel::cdt::map_ops;
namespace lo = kvmodel::cdt::list_ops;

namespace {

kv::key K(std::int64_t i, const std::string& set = "s") {
    return kv::key("test", set, i);
}

// A cluster with a manual clock the test can move.
struct fixture {
    std::shared_ptr<sim::manual_clock> clock = std::make_shared<sim::manual_clock>();
    sim::cluster db;
    explicit fixture(std::size_t max_record_size = kv::default_max_record_size,
                     std::int64_t default_ttl = 0,
                     bool enterprise = false)
        : db(config(clock, max_record_size, default_ttl, enterprise)) {}
    static sim::cluster_config
    config(std::shared_ptr<sim::manual_clock> c, std::size_t max, std::int64_t ttl, bool ee) {
        sim::cluster_config cfg;
        cfg.time_source = std::move(c);
        cfg.namespaces[0].max_record_size = max;
        cfg.namespaces[0].default_ttl = ttl;
        cfg.namespaces[0].nsup_period = 60; // TTL writes need nsup, as on the server
        cfg.enterprise = ee;
        return cfg;
    }
};

// prefix + i, built without operator+(const char*, string&&), which trips
// GCC 12's -Wrestrict false positive.
std::string name(const char* prefix, int i) {
    std::string s = prefix;
    s += std::to_string(i);
    return s;
}

kv::write_policy policy(kv::record_exists_action a) {
    kv::write_policy wp;
    wp.exists = a;
    return wp;
}

// The record exactly as stored: bins, generation, void time.
kv::record snapshot(sim::cluster& db, const kv::key& k) {
    auto r = db.get(k);
    REQUIRE(r);
    return *r;
}

} // namespace

TEST_CASE("put and get: bins, generation, creation order", "[sim][cluster]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"b", 1}, {"a", "x"}}));
    auto r = db.get(K(1));
    REQUIRE(r);
    REQUIRE(r->bins.size() == 2);
    CHECK(r->bins[0] == kv::bin{"b", 1});
    CHECK(r->bins[1] == kv::bin{"a", "x"});
    CHECK(r->generation == 1);
    CHECK(r->ttl == kv::ttl_never_expires);
    REQUIRE(db.put(K(1), {{"a", "y"}, {"c", 2.5}}));
    r = db.get(K(1));
    REQUIRE(r);
    CHECK(r->generation == 2);
    CHECK(r->value_of("b") == value(1)); // UPDATE merges
    CHECK(r->value_of("a") == value("y"));
    CHECK(r->value_of("c") == value(2.5));
    CHECK(r->bins[2].name == "c");
    // A nil bin in a put deletes it.
    REQUIRE(db.put(K(1), {{"b", value()}}));
    CHECK_FALSE(db.get(K(1))->contains("b"));
}

TEST_CASE("KEY_NOT_FOUND on a missing record", "[sim][cluster][status]") {
    sim::cluster db;
    auto g = db.get(K(404));
    REQUIRE_FALSE(g);
    CHECK(g.error().code == status::record_not_found);
    CHECK(g.error().message == "get: record not found");
    CHECK_FALSE(g.error().in_doubt);
    CHECK(db.remove(K(404)).code() == status::record_not_found);
    CHECK(db.touch(K(404)).code() == status::record_not_found);
    CHECK(db.exists(K(404)).value() == false);
    // A read-only command on a missing record.
    CHECK(db.operate(K(404), {kv::op::read("a")}).code() == status::record_not_found);
    CHECK(db.operate(K(404), {kv::op::read_header()}).code() == status::record_not_found);
    CHECK(db.operate(K(404), {kv::op::cdt("m", mo::size())}).code() == status::record_not_found);
    // UPDATE_ONLY / REPLACE_ONLY never create.
    CHECK(db.put(K(404), {{"a", 1}}, policy(kv::record_exists_action::update_only)).code() ==
          status::record_not_found);
    CHECK(db.put(K(404), {{"a", 1}}, policy(kv::record_exists_action::replace_only)).code() ==
          status::record_not_found);
    // A command that would leave a missing record without bins (write.c:
    // write_master_apply): deleting a bin, deleting the record, a CDT remove.
    CHECK(db.operate(K(404), {kv::op::write("a", value())}).code() == status::record_not_found);
    CHECK(db.operate(K(404), {kv::op::delete_record()}).code() == status::record_not_found);
    CHECK(db.operate(K(404), {kv::op::cdt("m", mo::remove_by_key(1, cdt::return_type::none))})
              .code() == status::record_not_found);
    CHECK(db.record_count("test") == 0);
    // A read followed by a write creates the record; the read sees nothing.
    auto rw = db.operate(K(405), {kv::op::read("a"), kv::op::write("a", 1), kv::op::read("a")});
    REQUIRE(rw);
    CHECK(rw->results == std::vector<value>{value(), value(), value(1)});
}

TEST_CASE("operate answers one result per op, in order (respond-all-ops)", "[sim][cluster]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"n", 5}, {"s", "ab"}}));
    auto r = db.operate(K(1),
                        {kv::op::add("n", 2),
                         kv::op::read("n"),
                         kv::op::append("s", "c"),
                         kv::op::prepend("s", "z"),
                         kv::op::read("s"),
                         kv::op::read("none"),
                         kv::op::touch(),
                         kv::op::read_header(),
                         kv::op::write("w", true)});
    REQUIRE(r);
    CHECK(r->results == std::vector<value>{value(),
                                           value(7),
                                           value(),
                                           value(),
                                           value("zabc"),
                                           value(),
                                           value(),
                                           value(),
                                           value()});
    // Read ops return their bins in record.bins too.
    CHECK(r->value_of("n") == value(7));
    CHECK(r->value_of("s") == value("zabc"));
    CHECK_FALSE(r->contains("none"));
    CHECK(r->generation == 2);
    // read_all alone (with writes) returns every bin after the writes before it.
    auto all = db.operate(K(1), {kv::op::write("x", 1), kv::op::read_all()});
    REQUIRE(all);
    CHECK(all->bins.size() == 4);
    CHECK(all->value_of("x") == value(1));
    CHECK(all->results == std::vector<value>{value(), value()});
}

TEST_CASE("CDT and bit ops run through the engines inside operate", "[sim][cluster]") {
    sim::cluster db;
    auto r = db.operate(K(1),
                        {kv::op::cdt("m", mo::put(1, "a")),
                         kv::op::cdt("m", mo::put(2, "b")),
                         kv::op::cdt("m", mo::size()),
                         kv::op::cdt("l", lo::append(10)),
                         kv::op::cdt("l", lo::append(20)),
                         kv::op::bit("b", cdt::bit_ops::bit_resize(2)),
                         kv::op::bit("b", cdt::bit_ops::bit_count(0, 16))});
    REQUIRE(r);
    CHECK(r->results[0] == value(1));
    CHECK(r->results[1] == value(2));
    CHECK(r->results[2] == value(2));
    CHECK(r->results[3] == value(1));
    CHECK(r->results[4] == value(2));
    CHECK(r->results[5].is_nil());
    CHECK(r->results[6] == value(0));
    auto g = db.get(K(1));
    REQUIRE(g);
    CHECK(g->value_of("m") == value(map{{1, "a"}, {2, "b"}}));
    CHECK(g->value_of("l") == value(list{10, 20}));
    CHECK(g->value_of("b") == value(kvmodel::bytes{0, 0}));
    // A CDT read-only command takes the read path.
    auto rd = db.operate(K(1), {kv::op::cdt("m", mo::get_by_key(2, cdt::return_type::value))});
    REQUIRE(rd);
    CHECK(rd->results == std::vector<value>{value("b")});
    CHECK(rd->generation == 1); // unchanged by a read
}

TEST_CASE("GENERATION_ERROR: EQ and GT checks, the record left as it was",
          "[sim][cluster][status]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"a", 1}}));
    REQUIRE(db.put(K(1), {{"a", 2}}));
    const kv::record before = snapshot(db, K(1));
    REQUIRE(before.generation == 2);
    kv::write_policy eq;
    eq.gen = kv::generation_policy::eq;
    eq.generation = 1;
    auto r = db.operate(K(1), {kv::op::write("a", 99)}, eq);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::generation_error);
    CHECK_THAT(r.error().message, Catch::Contains("generation is 2, policy expects 1"));
    CHECK(snapshot(db, K(1)) == before);
    eq.generation = 2;
    REQUIRE(db.operate(K(1), {kv::op::write("a", 3)}, eq));
    CHECK(db.get(K(1))->generation == 3);

    kv::write_policy gt;
    gt.gen = kv::generation_policy::gt;
    gt.generation = 3; // must be greater than the record's generation
    CHECK(db.put(K(1), {{"a", 4}}, gt).code() == status::generation_error);
    gt.generation = 4;
    CHECK(db.put(K(1), {{"a", 4}}, gt));

    // A record being created has generation 0 (write.c: generation_check on
    // the fresh index entry).
    kv::write_policy eq0;
    eq0.gen = kv::generation_policy::eq;
    eq0.generation = 0;
    CHECK(db.put(K(2), {{"a", 1}}, eq0));
    eq0.generation = 1;
    CHECK(db.put(K(3), {{"a", 1}}, eq0).code() == status::generation_error);
    // remove checks it too.
    kv::write_policy rm;
    rm.gen = kv::generation_policy::eq;
    rm.generation = 7;
    CHECK(db.remove(K(1), rm).code() == status::generation_error);
    CHECK(db.get(K(1)));
    rm.generation = 4;
    CHECK(db.remove(K(1), rm));
    CHECK(db.get(K(1)).code() == status::record_not_found);
}

TEST_CASE("the generation wraps from 65535 to 1", "[sim][cluster]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"n", 0}}));
    for (int i = 0; i < 65534; ++i)
        REQUIRE(db.operate(K(1), {kv::op::add("n", 1)}));
    CHECK(db.get(K(1))->generation == 65535);
    REQUIRE(db.operate(K(1), {kv::op::add("n", 1)}));
    CHECK(db.get(K(1))->generation == 1);
}

TEST_CASE("RECORD_EXISTS and the other record-exists actions", "[sim][cluster][status]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"a", 1}, {"b", 2}}));
    const kv::record before = snapshot(db, K(1));
    auto r = db.put(K(1), {{"a", 5}}, policy(kv::record_exists_action::create_only));
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::record_exists);
    CHECK(r.error().message == "put: record exists (CREATE_ONLY)");
    CHECK(snapshot(db, K(1)) == before);
    CHECK(db.put(K(2), {{"a", 5}}, policy(kv::record_exists_action::create_only)));

    // UPDATE_ONLY merges into an existing record.
    CHECK(db.put(K(1), {{"c", 3}}, policy(kv::record_exists_action::update_only)));
    CHECK(db.get(K(1))->bins.size() == 3);
    // REPLACE drops the bins not written; REPLACE_ONLY likewise, existing only.
    CHECK(db.put(K(1), {{"z", 9}}, policy(kv::record_exists_action::replace)));
    auto g = db.get(K(1));
    REQUIRE(g->bins.size() == 1);
    CHECK(g->bins[0] == kv::bin{"z", 9});
    CHECK(g->generation == 3);
    CHECK(db.put(K(3), {{"z", 1}}, policy(kv::record_exists_action::replace)));
    CHECK(db.put(K(1), {{"y", 8}}, policy(kv::record_exists_action::replace_only)));
    CHECK(db.get(K(1))->bins == std::vector<kv::bin>{{"y", 8}});
}

TEST_CASE("PARAMETER_ERROR: replace with deletes or modify ops (write.c)",
          "[sim][cluster][status]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"a", 1}}));
    const kv::record before = snapshot(db, K(1));
    for (auto a : {kv::record_exists_action::replace, kv::record_exists_action::replace_only}) {
        const kv::write_policy wp = policy(a);
        CHECK(db.put(K(1), {{"a", value()}}, wp).code() == status::parameter_error);
        CHECK(db.operate(K(1), {kv::op::add("a", 1)}, wp).code() == status::parameter_error);
        CHECK(db.operate(K(1), {kv::op::append("s", "x")}, wp).code() == status::parameter_error);
        CHECK(db.operate(K(1), {kv::op::touch()}, wp).code() == status::parameter_error);
        CHECK(db.operate(K(1), {kv::op::delete_record()}, wp).code() == status::parameter_error);
        CHECK(db.operate(K(1), {kv::op::cdt("m", mo::put(1, 1))}, wp).code() ==
              status::parameter_error);
        // A CDT read is fine with replace.
        CHECK(db.operate(K(1), {kv::op::write("a", 2), kv::op::cdt("m", mo::size())}, wp));
    }
    (void)before;
}

TEST_CASE("PARAMETER_ERROR: malformed commands and values", "[sim][cluster][status]") {
    sim::cluster db(sim::cluster_config{}.with_nsup_period(60)); // TTLs below
    REQUIRE(db.put(K(1), {{"a", 1}}));
    const kv::record before = snapshot(db, K(1));
    sim::op_report rep;
    auto none = db.operate(K(1), std::span<const kv::operation>{}, {}, rep);
    CHECK(none.code() == status::parameter_error);
    CHECK(none.error().message == "operate: no operations");
    CHECK(db.put(K(1), std::span<const kv::bin>{}).code() == status::parameter_error);
    // read_all cannot mix with ops that answer with a bin, nor appear twice.
    CHECK(db.operate(K(1), {kv::op::read_all(), kv::op::read("a")}).code() ==
          status::parameter_error);
    CHECK(db.operate(K(1), {kv::op::read_all(), kv::op::cdt("m", mo::size())}).code() ==
          status::parameter_error);
    CHECK(db.operate(K(1), {kv::op::read_all(), kv::op::read_all()}).code() ==
          status::parameter_error);
    // TTLs: -3 and more than 10 years.
    kv::write_policy wp;
    wp.ttl = -3;
    CHECK(db.put(K(1), {{"a", 2}}, wp).code() == status::parameter_error);
    wp.ttl = kv::max_ttl + 1;
    auto far = db.put(K(1), {{"a", 2}}, wp);
    CHECK(far.code() == status::parameter_error);
    CHECK_THAT(far.error().message, Catch::Contains("ttl 315360001 is invalid"));
    wp.ttl = kv::max_ttl;
    CHECK(db.put(K(2), {{"a", 2}}, wp));
    // INF and WILDCARD are not storable; a nil delta is meaningless.
    CHECK(db.put(K(1), {{"a", inf}}).code() == status::parameter_error);
    CHECK(db.operate(K(1), {kv::op::write("l", list{1, wildcard})}).code() ==
          status::parameter_error);
    auto nil_delta = db.operate(K(1), {kv::op::add("a", value())}, {}, rep);
    CHECK(nil_delta.code() == status::parameter_error);
    CHECK(rep.failed_op == std::size_t{0});
    CHECK(snapshot(db, K(1)) == before);
    // A set name longer than 63 bytes.
    CHECK(db.put(kv::key("test", std::string(64, 's'), 1), {{"a", 1}}).code() ==
          status::parameter_error);
    // A key whose set differs from the record's (a digest-only key).
    kv::key other = kv::key::from_digest("test", "other", K(1).digest());
    CHECK(db.get(other).code() == status::parameter_error);
    CHECK(db.put(other, {{"a", 3}}).code() == status::parameter_error);
    CHECK(db.remove(other).code() == status::parameter_error);
    CHECK(snapshot(db, K(1)) == before);
}

TEST_CASE("INVALID_NAMESPACE for a namespace the cluster does not have", "[sim][cluster][status]") {
    sim::cluster db;
    auto r = db.put(kv::key("nope", "s", 1), {{"a", 1}});
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::invalid_namespace);
    CHECK(r.error().message == "put: namespace 'nope' is not configured");
    CHECK(db.get(kv::key("nope", "s", 1)).code() == status::invalid_namespace);
}

TEST_CASE("BIN_NAME_TOO_LONG: more than 15 bytes", "[sim][cluster][status]") {
    sim::cluster db;
    auto r = db.put(K(1), {{"sensor_temperature", 1}});
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::bin_name_too_long);
    CHECK(r.error().message == "put: bin name 'sensor_temperature' is 18 bytes, max 15");
    CHECK(db.get(K(1)).code() == status::record_not_found);
    REQUIRE(db.put(K(1), {{std::string(15, 'n'), 1}}));
    const kv::record before = snapshot(db, K(1));
    sim::op_report rep;
    auto w =
        db.operate(K(1), {kv::op::write("ok", 1), kv::op::add(std::string(16, 'n'), 1)}, {}, rep);
    CHECK(w.code() == status::bin_name_too_long);
    CHECK(rep.failed_op == std::size_t{1});
    CHECK(snapshot(db, K(1)) == before);
    // The write path checks names before the record (write.c policies); the
    // read path finds the record first (read.c), so a missing record wins.
    CHECK(db.operate(K(2), {kv::op::write(std::string(16, 'n'), 1)}).code() ==
          status::bin_name_too_long);
    CHECK(db.operate(K(2), {kv::op::read(std::string(16, 'n'))}).code() ==
          status::record_not_found);
    CHECK(db.operate(K(1), {kv::op::read(std::string(16, 'n'))}).code() ==
          status::bin_name_too_long);
    std::vector<std::string> names{std::string(16, 'x')};
    CHECK(db.get(K(1), names).code() == status::bin_name_too_long);
}

TEST_CASE("BIN_TYPE_ERROR: add, append and prepend need matching types", "[sim][cluster][status]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"i", 1}, {"d", 1.5}, {"s", "x"}, {"b", kvmodel::bytes{1}}}));
    const kv::record before = snapshot(db, K(1));
    struct bad {
        kv::operation op;
        const char* why;
    };
    const std::vector<bad> cases{
        {kv::op::add("s", 1), "the bin holds a string, the operand is an int"},
        {kv::op::add("i", 1.0), "the bin holds an int, the operand is a double"},
        {kv::op::add("d", 1), "the bin holds a double, the operand is an int"},
        {kv::op::append("i", "x"), "the bin holds an int, the operand is a string"},
        {kv::op::append("s", kvmodel::bytes{2}), "the bin holds a string, the operand is a bytes"},
        {kv::op::prepend("b", "x"), "the bin holds a bytes, the operand is a string"},
    };
    for (const bad& c : cases) {
        sim::op_report rep;
        const kv::operation ops[] = {kv::op::write("i", 100), c.op};
        auto r = db.operate(K(1), ops, {}, rep);
        REQUIRE_FALSE(r);
        CHECK(r.error().code == status::bin_type_error);
        CHECK_THAT(r.error().message, Catch::Contains(c.why));
        CHECK_THAT(r.error().message, Catch::StartsWith("operate op #1 ("));
        CHECK(rep.failed_op == std::size_t{1});
        CHECK(snapshot(db, K(1)) == before);
    }
    // A map op on a string bin: the CDT engine's BIN_TYPE_ERROR.
    sim::op_report rep;
    auto m = db.operate(K(1), {kv::op::cdt("s", mo::put(1, 1))}, {}, rep);
    CHECK(m.code() == status::bin_type_error);
    CHECK(rep.failed_op == std::size_t{0});
    CHECK(snapshot(db, K(1)) == before);
}

TEST_CASE("add, append and prepend: create, wrap, concatenate", "[sim][cluster]") {
    sim::cluster db;
    // A modify op on a missing bin creates it from the operand (particle.c).
    REQUIRE(db.operate(K(1),
                       {kv::op::add("i", 5),
                        kv::op::add("d", 0.5),
                        kv::op::append("s", "b"),
                        kv::op::prepend("s", "a"),
                        kv::op::append("b", kvmodel::bytes{2}),
                        kv::op::prepend("b", kvmodel::bytes{1})}));
    auto g = db.get(K(1));
    CHECK(g->value_of("i") == value(5));
    CHECK(g->value_of("d") == value(0.5));
    CHECK(g->value_of("s") == value("ab"));
    CHECK(g->value_of("b") == value(kvmodel::bytes{1, 2}));
    // Integer addition wraps as the server's uint64 addition does.
    REQUIRE(db.put(K(2), {{"i", std::numeric_limits<std::int64_t>::max()}}));
    REQUIRE(db.operate(K(2), {kv::op::add("i", 1)}));
    CHECK(db.get(K(2))->value_of("i") == value(std::numeric_limits<std::int64_t>::min()));
}

TEST_CASE("RECORD_TOO_BIG: flat + 4 > max-record-size, the record unchanged",
          "[sim][cluster][status]") {
    const std::size_t max = 128 * 1024;
    fixture f(max);
    // Record: 35 + 1 + set "s" (1 + 1) + bin (1 + 1 + 5 + len) = 45 + len;
    // it fits while flat + 4 <= max.
    const std::size_t fits = max - 4 - 45;
    REQUIRE(f.db.put(K(1), {{"s", std::string(fits, 'x')}}));
    auto over = f.db.put(K(2), {{"s", std::string(fits + 1, 'x')}});
    REQUIRE_FALSE(over);
    CHECK(over.error().code == status::record_too_big);
    CHECK(over.error().message ==
          "put: record would be 131073 bytes (flat 131069 + 4), over max-record-size 131072");
    CHECK(f.db.get(K(2)).code() == status::record_not_found);

    // An operate that grows an existing record past the limit is refused and
    // leaves every bin, the generation and the TTL as they were.
    REQUIRE(f.db.put(K(3), {{"a", 1}, {"s", std::string(1000, 'y')}}));
    REQUIRE(f.db.operate(K(3), {kv::op::cdt("m", mo::put(1, "one"))}));
    const kv::record before = snapshot(f.db, K(3));
    sim::op_report rep;
    auto grow = f.db.operate(K(3),
                             {kv::op::add("a", 1),
                              kv::op::cdt("m", mo::put(2, std::string(max, 'z'))),
                              kv::op::write("a", 7)},
                             {},
                             rep);
    REQUIRE_FALSE(grow);
    CHECK(grow.error().code == status::record_too_big);
    CHECK_FALSE(rep.failed_op.has_value()); // the record as a whole, not one op
    CHECK_FALSE(rep.applied);
    CHECK(snapshot(f.db, K(3)) == before);
    // The same through put (predicted before any bin is touched).
    CHECK(f.db.put(K(3), {{"a", 2}, {"t", std::string(max, 'q')}}).code() ==
          status::record_too_big);
    CHECK(snapshot(f.db, K(3)) == before);
    // Shrinking is always fine.
    CHECK(f.db.put(K(3), {{"s", value()}}));
}

TEST_CASE("a command's last CDT write changes its bin in place, all or nothing",
          "[sim][cluster][status]") {
    // Where the command's last op cannot take the record past the limit, its
    // bin is written in place with no old value kept (no copy of the
    // container). Wherever that op fails, or an op before it, or the record
    // ends over the limit, the record is as it was.
    const std::size_t max = 64 * 1024;
    fixture f(max);
    std::vector<std::pair<value, value>> items;
    for (int i = 0; i < 1000; ++i)
        items.emplace_back(i, list{i, "payload"});
    REQUIRE(f.db.operate(K(1),
                         {kv::op::write("a", 1),
                          kv::op::cdt("m", mo::put_items(items)),
                          kv::op::cdt("l", lo::append_items({3, 1, 2}))}));
    const kv::record before = snapshot(f.db, K(1));
    const value* old_map = before.get("m");
    REQUIRE(old_map != nullptr);
    sim::op_report rep;

    SECTION("a write that succeeds; the copy read before it keeps the old map") {
        REQUIRE(f.db.operate(K(1), {kv::op::add("a", 1), kv::op::cdt("m", mo::put(5000, "new"))}));
        kv::record now = snapshot(f.db, K(1));
        CHECK(*now.get("a") == value(2));
        CHECK(now.get("m")->as_map().size() == 1001);
        CHECK(*now.get("m")->as_map().get(value(5000)) == value("new"));
        CHECK(old_map->as_map().size() == 1000); // copy-on-write: the reader's map
        CHECK(now.generation == before.generation + 1);
        // Removes (through a context: the logged path).
        REQUIRE(f.db.operate(K(1), {kv::op::cdt("m", mo::remove_by_key(1, cdt::return_type::none))}));
        REQUIRE(f.db.operate(
            K(1),
            {kv::op::cdt("m", lo::remove_by_index(0, cdt::return_type::none, false, {lo::ctx::map_key(2)}))}));
        now = snapshot(f.db, K(1));
        CHECK(now.get("m")->as_map().size() == 1000);
        CHECK(*now.get("m")->as_map().get(value(2)) == value(list{"payload"}));
    }
    SECTION("the last op fails: the ops before it are rolled back, its bin untouched") {
        auto r = f.db.operate(
            K(1),
            {kv::op::add("a", 1),
             kv::op::cdt("m", mo::put(1, "dup", mo::policy(map_order::unordered, cdt::map_write_mode::create_only)))},
            {},
            rep);
        REQUIRE_FALSE(r);
        CHECK(r.error().code == status::element_exists);
        CHECK(rep.failed_op == std::size_t{1});
        CHECK(snapshot(f.db, K(1)) == before);
        // A list op on the map bin, and a remove through a missing context.
        CHECK(f.db.operate(K(1), {kv::op::write("a", 9), kv::op::cdt("m", lo::append(1))}).code() ==
              status::bin_type_error);
        CHECK(f.db.operate(K(1),
                           {kv::op::write("a", 9),
                            kv::op::cdt("l", lo::remove_by_index(0, cdt::return_type::none, false,
                                                                 {lo::ctx::list_index(0)}))})
                  .code() == status::bin_type_error);
        CHECK(snapshot(f.db, K(1)) == before);
    }
    SECTION("near the limit: a write that would end over it changes nothing") {
        // Grow the record to within a few bytes of the limit, then append
        // values that do and do not fit, as the last op.
        const std::size_t flat_now = kv::record_size::flat(
            "s", std::nullopt, false, std::span<const kv::bin>(before.bins));
        const std::size_t room = max - 4 - flat_now; // fits(flat) <=> flat + 4 <= max
        // A string bin that leaves no byte free.
        const std::size_t empty_string_bin = kv::record_size::bin_size("s", value(std::string()));
        REQUIRE(f.db.operate(K(1), {kv::op::write("s", std::string(room - empty_string_bin, 'x'))}));
        const kv::record full = snapshot(f.db, K(1));
        CHECK(f.db.operate(K(1), {kv::op::add("a", 1), kv::op::cdt("l", lo::append(1))}).code() ==
              status::record_too_big);
        CHECK(f.db.operate(K(1), {kv::op::cdt("m", mo::put(1, list{1, "payload"}))}));
        CHECK(snapshot(f.db, K(1)).generation == full.generation + 1);
        CHECK(f.db.operate(K(1), {kv::op::cdt("m", mo::put(1, list{1, "payload!"}))}).code() ==
              status::record_too_big);
        // Through a context: a write into an entry's list that keeps the
        // size succeeds (in place); one that grows it, or creates an entry
        // on the way, fails and leaves the record as it was.
        CHECK(f.db.operate(K(1), {kv::op::cdt("m", lo::set(1, "payload", {}, {lo::ctx::map_key(1)}))}));
        CHECK(snapshot(f.db, K(1)).generation == full.generation + 2);
        CHECK(f.db.operate(K(1), {kv::op::cdt("m", lo::set(1, "payload!", {}, {lo::ctx::map_key(1)}))})
                  .code() == status::record_too_big);
        CHECK(f.db.operate(K(1),
                           {kv::op::cdt("m",
                                        lo::append(1, {}, {lo::ctx::map_key_create(5000, map_order::unordered)}))})
                  .code() == status::record_too_big);
        kv::record after = snapshot(f.db, K(1));
        after.generation = full.generation;
        CHECK(after == full);
    }
}

TEST_CASE("RECORD_TOO_BIG at the sizes a real 8.1.2 server measures", "[sim][cluster][status]") {
    // Measured with max-record-size 1000: this record with an 796-byte
    // string fits (flat 996 + 4 = 1000; the server reports 1008), with 797
    // bytes it is RECORD_TOO_BIG. It weighs what the server measured:
    // 35 + 1 bin-count byte + set (1 + 1) + the stored 127-byte key (a
    // 2-byte varint length 128, a type byte, 127) + 4 void time (the TTL)
    // + map bin (1 + 1 + 5 + 14: an UNORDERED map with a persisted index is
    // stored as a K_ORDERED one) + string bin (1 + 1 + 5 + 796) = 996.
    fixture f(1000);
    kv::write_policy wp;
    wp.send_key = true;
    wp.ttl = 3600;
    auto write = [&](std::size_t len) {
        kv::key k("test", "s", std::string(127, 'k'));
        (void)f.db.remove(k);
        return f.db.operate(k,
                            {kv::op::cdt("m", mo::create(map_order::unordered, true)),
                             kv::op::cdt("m", mo::put(1, 2)),
                             kv::op::cdt("m", mo::put(2, 3)),
                             kv::op::cdt("m", mo::put(3, 4)),
                             kv::op::write("s", std::string(len, 'x'))},
                            wp);
    };
    REQUIRE(write(796));
    const sim::stats snap = f.db.stats();
    const auto* ns = snap.find("test");
    REQUIRE(ns != nullptr);
    CHECK(ns->totals.largest_record == 1008);
    auto over = write(797);
    REQUIRE_FALSE(over);
    CHECK(over.error().code == status::record_too_big);
    CHECK_THAT(over.error().message, Catch::Contains("record would be 1001 bytes (flat 997 + 4)"));
}

TEST_CASE("CDT list padding is checked against the namespace's max-record-size",
          "[sim][cluster][status]") {
    SECTION("a smaller limit refuses the op itself, before padding, the record unchanged") {
        const std::size_t max = 128 * 1024;
        fixture f(max);
        REQUIRE(f.db.operate(K(1), {kv::op::write("a", 1), kv::op::cdt("l", lo::append(1))}));
        const kv::record before = snapshot(f.db, K(1));
        sim::op_report rep;
        // 200,000 elements take at least 200,000 bytes: more than 128 KiB,
        // though less than the engine's default 1 MiB.
        auto r = f.db.operate(K(1), {kv::op::cdt("l", lo::insert(200000, 7))}, {}, rep);
        REQUIRE_FALSE(r);
        CHECK(r.error().code == status::record_too_big);
        CHECK(rep.failed_op == std::size_t{0}); // the op, not the record check
        CHECK_THAT(r.error().message, Catch::Contains("max-record-size 131072"));
        CHECK_FALSE(rep.applied);
        CHECK(snapshot(f.db, K(1)) == before);
    }
    SECTION("a larger limit admits padding past the engine's default 1 MiB") {
        fixture f(kv::max_max_record_size);
        auto r = f.db.operate(K(1),
                              {kv::op::cdt("l", lo::insert(1100000, 7)),
                               kv::op::cdt("l", lo::size())});
        REQUIRE(r);
        CHECK(r->results[1] == value(1100001));
    }
}

TEST_CASE("a failed operate leaves the record exactly as it was", "[sim][cluster][status]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"a", 1}, {"b", "two"}, {"c", 3.0}}));
    REQUIRE(db.operate(K(1), {kv::op::cdt("m", mo::put(1, "x")), kv::op::cdt("l", lo::append(1))}));
    const kv::record before = snapshot(db, K(1));
    // Every kind of change before the failing op: writes, a delete, an
    // erased bin, appends, CDT modifications, a delete-record and re-creates.
    const std::vector<kv::operation> ops{
        kv::op::write("a", 10),
        kv::op::write("b", value()),
        kv::op::write("new", "n"),
        kv::op::append("new", "m"),
        kv::op::cdt("m", mo::put(2, "y")),
        kv::op::cdt("l", lo::append(2)),
        kv::op::delete_record(),
        kv::op::write("c", 4.0),
        kv::op::add("c", 1), // BIN_TYPE_ERROR: int to a double bin
    };
    sim::op_report rep;
    auto r = db.operate(K(1), ops, {}, rep);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::bin_type_error);
    CHECK(rep.failed_op == std::size_t{8});
    const kv::record after = snapshot(db, K(1));
    CHECK(after == before);
    // Bin order included.
    REQUIRE(after.bins.size() == before.bins.size());
    for (std::size_t i = 0; i < after.bins.size(); ++i)
        CHECK(after.bins[i].name == before.bins[i].name);
    // The size accounting did not drift: one more write charges the same size.
    db.reset_stats();
    REQUIRE(db.operate(K(1), {kv::op::write("a", 1)}));
    const sim::stats snap = db.stats();
    const auto* ns = snap.find("test");
    CHECK(ns->totals.bytes_written == ns->totals.largest_record);
}

TEST_CASE("delete op: removes the record; later ops start afresh", "[sim][cluster]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"a", 1}, {"b", 2}}));
    auto d = db.operate(K(1), {kv::op::read("a"), kv::op::delete_record()});
    REQUIRE(d);
    CHECK(d->results[0] == value(1));
    CHECK(d->generation == 0); // deletes report no metadata
    CHECK(db.get(K(1)).code() == status::record_not_found);
    REQUIRE(db.put(K(1), {{"a", 1}, {"b", 2}}));
    REQUIRE(db.operate(K(1), {kv::op::delete_record(), kv::op::write("c", 3)}));
    auto g = db.get(K(1));
    REQUIRE(g);
    CHECK(g->bins == std::vector<kv::bin>{{"c", 3}});
    // Deleting every bin deletes the record too.
    REQUIRE(db.operate(K(1), {kv::op::write("c", value())}));
    CHECK(db.get(K(1)).code() == status::record_not_found);
}

TEST_CASE("durable delete: Enterprise only when a write deletes the record",
          "[sim][cluster][status]") {
    kv::write_policy durable;
    durable.durable_delete = true;
    {
        sim::cluster ce;
        REQUIRE(ce.put(K(1), {{"a", 1}}));
        auto r = ce.operate(K(1), {kv::op::delete_record()}, durable);
        CHECK(r.code() == status::enterprise_only);
        CHECK(ce.get(K(1))); // unchanged
        // A write that keeps bins is unaffected by the flag.
        CHECK(ce.operate(K(1), {kv::op::write("b", 2)}, durable));
        CHECK(ce.put(K(1), {{"a", value()}, {"b", value()}}, durable).code() ==
              status::enterprise_only);
        CHECK(ce.get(K(1))->bins.size() == 2);
        // A plain delete command ignores it in Community (delete_ce.c).
        CHECK(ce.remove(K(1), durable));
    }
    {
        sim::cluster_config cfg;
        cfg.enterprise = true;
        sim::cluster ee(cfg);
        REQUIRE(ee.put(K(1), {{"a", 1}}));
        CHECK(ee.operate(K(1), {kv::op::delete_record()}, durable));
        CHECK(ee.get(K(1)).code() == status::record_not_found);
    }
}

TEST_CASE("TTL: expiry by the injected clock, namespace default, never, don't update",
          "[sim][cluster][ttl]") {
    fixture f(kv::default_max_record_size, 100); // default-ttl 100 s
    kv::write_policy ttl10;
    ttl10.ttl = 10;
    REQUIRE(f.db.put(K(1), {{"a", 1}}, ttl10));
    auto g = f.db.get(K(1));
    REQUIRE(g);
    CHECK(g->ttl == 10);
    CHECK(g->void_time == sim::default_start_ms / 1000 + 10);
    f.clock->advance(10s); // the record lives through its void-time second
    CHECK(f.db.get(K(1)));
    CHECK(f.db.get(K(1))->ttl == 0);
    f.clock->advance(1s);
    CHECK(f.db.get(K(1)).code() == status::record_not_found);
    CHECK(f.db.exists(K(1)).value() == false);
    // Written again after expiry: a fresh record, generation 1.
    REQUIRE(f.db.put(K(1), {{"b", 2}}));
    g = f.db.get(K(1));
    CHECK(g->generation == 1);
    CHECK_FALSE(g->contains("a"));
    CHECK(g->ttl == 100); // namespace default

    kv::write_policy never;
    never.ttl = kv::ttl_never_expire;
    REQUIRE(f.db.put(K(2), {{"a", 1}}, never));
    CHECK(f.db.get(K(2))->ttl == kv::ttl_never_expires);
    kv::write_policy keep;
    keep.ttl = kv::ttl_dont_update;
    REQUIRE(f.db.put(K(1), {{"c", 3}}, keep));
    CHECK(f.db.get(K(1))->ttl == 100);
    f.clock->advance(40s);
    REQUIRE(f.db.put(K(1), {{"c", 4}}, keep));
    CHECK(f.db.get(K(1))->ttl == 60);
    // don't-update on a new record takes the namespace default.
    REQUIRE(f.db.put(K(3), {{"a", 1}}, keep));
    CHECK(f.db.get(K(3))->ttl == 100);
    // touch resets the TTL and bumps the generation; it never creates.
    REQUIRE(f.db.touch(K(1), ttl10));
    g = f.db.get(K(1));
    CHECK(g->ttl == 10);
    CHECK(g->generation == 4);
    // A TTL makes the record 4 bytes bigger (the void time; measured on 8.1.2).
    sim::cluster plain;
    REQUIRE(plain.put(K(9), {{"a", 1}}));
    REQUIRE(f.db.put(K(9), {{"a", 1}}, never));
    plain.reset_stats();
    f.db.reset_stats();
    REQUIRE(plain.put(K(9), {{"a", 1}}));
    REQUIRE(f.db.put(K(9), {{"a", 1}}, ttl10));
    // 35 + 1 + set (1 + 1) + bin (1 + 1 + 3) = 43 bytes flat: 48 stored,
    // 47 with the void time: 64 stored.
    CHECK(plain.stats().find("test")->totals.bytes_written == 48);
    CHECK(f.db.stats().find("test")->totals.bytes_written == 64);
    // expire() sweeps what has expired.
    f.clock->advance(200s);
    CHECK(f.db.expire() == 3); // K(1), K(3), K(9); K(2) never expires
    CHECK(f.db.record_count("test") == 1);
}

TEST_CASE("send_key stores the user key: it weighs in the record, scans return it",
          "[sim][cluster]") {
    sim::cluster db;
    kv::write_policy wp;
    wp.send_key = true;
    REQUIRE(db.put(kv::key("test", "s", "user-1"), {{"a", 1}}, wp));
    REQUIRE(db.put(kv::key("test", "s", "user-2"), {{"a", 1}}));
    auto all = db.scan({"test", "s", {}, 0});
    REQUIRE(all);
    REQUIRE(all->size() == 2);
    std::set<std::string> keys;
    for (const auto& kr : *all)
        keys.insert(kr.k.user_key() ? kr.k.user_key()->as_string() : kv::to_hex(kr.k.digest()));
    CHECK(keys.count("user-1") == 1);
    CHECK(keys.count(kv::to_hex(kv::key("test", "s", "user-2").digest())) == 1);
    const sim::stats snap = db.stats();
    const auto* ns = snap.find("test");
    // 35 + 1 + set (1 + 1) + bin (1 + 1 + 3) = 43; with the key 1 + 1 + 6 more.
    CHECK(ns->totals.largest_record == kv::record_size::stored(43 + 8));
}

TEST_CASE("exists, touch and remove", "[sim][cluster]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"a", 1}}));
    CHECK(db.exists(K(1)).value() == true);
    REQUIRE(db.touch(K(1)));
    CHECK(db.get(K(1))->generation == 2);
    REQUIRE(db.remove(K(1)));
    CHECK(db.exists(K(1)).value() == false);
    CHECK(db.remove(K(1)).code() == status::record_not_found);
}

TEST_CASE("batch reads: one result per key, in key order", "[sim][cluster]") {
    sim::cluster db;
    std::vector<kv::key> keys;
    for (int i = 0; i < 20; ++i) {
        keys.push_back(K(i));
        if (i % 3 != 0)
            REQUIRE(db.put(K(i), {{"a", i}, {"b", -i}}));
    }
    keys.push_back(kv::key("nope", "s", 1));
    auto rs = db.batch_get(keys);
    REQUIRE(rs.size() == keys.size());
    for (int i = 0; i < 20; ++i) {
        if (i % 3 == 0) {
            CHECK(rs[static_cast<std::size_t>(i)].code() == status::record_not_found);
        } else {
            REQUIRE(rs[static_cast<std::size_t>(i)]);
            CHECK(rs[static_cast<std::size_t>(i)]->value_of("a") == value(i));
        }
    }
    CHECK(rs.back().code() == status::invalid_namespace);
    const std::vector<std::string> bins{"b"};
    auto some = db.batch_get(keys, bins);
    REQUIRE(some[1]);
    CHECK(some[1]->bins == std::vector<kv::bin>{{"b", -1}});
}

TEST_CASE("partitions: 4096, deterministic master and replica, spread over nodes",
          "[sim][cluster][partitions]") {
    sim::cluster a;
    sim::cluster b;
    std::map<int, int> masters;
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid) {
        auto ra = a.replicas("test", pid);
        REQUIRE(ra.size() == 2);
        CHECK(ra[0] != ra[1]);
        CHECK(ra == b.replicas("test", pid)); // same seed, same map
        ++masters[ra[0]];
    }
    REQUIRE(masters.size() == 3);
    for (const auto& [node, n] : masters)
        CHECK((n > 1200 && n < 1550)); // ~1365 each
    // Another seed gives another map.
    sim::cluster_config cfg;
    cfg.seed = 99;
    sim::cluster c(cfg);
    int differ = 0;
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid)
        differ += a.replicas("test", pid) != c.replicas("test", pid) ? 1 : 0;
    CHECK(differ > 2000);
    CHECK(a.replicas("nope", 0).empty());
    CHECK(a.replicas("test", 4096).empty());
    CHECK(a.replicas(K(1)) == a.replicas("test", K(1).partition_id()));
}

TEST_CASE("node down: only its partitions move; back up, they return",
          "[sim][cluster][partitions]") {
    sim::cluster db;
    std::vector<std::vector<int>> before;
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid)
        before.push_back(db.replicas("test", pid));
    REQUIRE(db.node_down(1));
    CHECK_FALSE(db.node_alive(1));
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid) {
        auto now = db.replicas("test", pid);
        REQUIRE(now.size() == 2);
        CHECK(std::find(now.begin(), now.end(), 1) == now.end());
        const auto& was = before[pid];
        if (std::find(was.begin(), was.end(), 1) == was.end())
            CHECK(now == was);
        else if (was[0] != 1)
            CHECK(now[0] == was[0]); // the master stays
        else
            CHECK(now[0] == was[1]); // the replica takes over
    }
    REQUIRE(db.node_up(1));
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid)
        CHECK(db.replicas("test", pid) == before[pid]);
    CHECK(db.node_down(3).code() == status::parameter_error);
    CHECK(db.node_up(-1).code() == status::parameter_error);
}

TEST_CASE("secondary indexes: equality, ranges, list and map collections",
          "[sim][cluster][query]") {
    sim::cluster db;
    for (int i = 0; i < 30; ++i)
        REQUIRE(db.put(K(i),
                       {{"age", i},
                        {"name", name("n", i % 3)},
                        {"tags", list{i % 5, name("t", i % 2)}},
                        {"attrs", map{{name("k", i % 4), i}}}}));
    REQUIRE(db.put(K(100, "other"), {{"age", 5}}));
    kv::query_request q{"test", "s", {}, kv::filter::range("age", 10, 12), 0};
    CHECK(db.query(q).code() == status::index_not_found);
    REQUIRE(db.create_index(
        {"test", "s", "age", "age_idx", kv::index_type::numeric, kv::index_collection::none}));
    // As 8.1.2 (recorded in adapters/data/multi_record): the same name and
    // definition again is ok, the name with another definition INDEX_FOUND.
    CHECK(db.create_index(
        {"test", "s", "age", "age_idx", kv::index_type::numeric, kv::index_collection::none}));
    CHECK(
        db.create_index(
              {"test", "s", "name", "age_idx", kv::index_type::numeric, kv::index_collection::none})
            .code() == status::index_found);
    auto r = db.query(q);
    REQUIRE(r);
    std::set<std::int64_t> ages;
    for (const auto& kr : *r)
        ages.insert(kr.rec.value_of("age").as_int());
    CHECK(ages == std::set<std::int64_t>{10, 11, 12}); // inclusive, as Filter.range
    // The index covers its set only.
    CHECK(db.query({"test", "other", {}, kv::filter::equal("age", 5), 0}).code() ==
          status::index_not_found);
    // A string filter needs a string index.
    CHECK(db.query({"test", "s", {}, kv::filter::equal("age", "x"), 0}).code() ==
          status::index_not_found);
    CHECK(db.query({"test", "s", {}, kv::filter::equal("age", 1.5), 0}).code() ==
          status::parameter_error);
    REQUIRE(db.create_index(
        {"test", "", "name", "name_idx", kv::index_type::string, kv::index_collection::none}));
    auto n1 = db.query({"test", "s", {"name"}, kv::filter::equal("name", "n1"), 0});
    REQUIRE(n1);
    CHECK(n1->size() == 10);
    CHECK(n1->front().rec.bins.size() == 1);
    REQUIRE(db.create_index(
        {"test", "s", "tags", "tags_idx", kv::index_type::numeric, kv::index_collection::list}));
    auto t =
        db.query({"test", "s", {}, kv::filter::equal("tags", 3, kv::index_collection::list), 0});
    REQUIRE(t);
    CHECK(t->size() == 6);
    REQUIRE(db.create_index({"test",
                             "s",
                             "attrs",
                             "keys_idx",
                             kv::index_type::string,
                             kv::index_collection::map_keys}));
    REQUIRE(db.create_index({"test",
                             "s",
                             "attrs",
                             "vals_idx",
                             kv::index_type::numeric,
                             kv::index_collection::map_values}));
    auto mk = db.query(
        {"test", "s", {}, kv::filter::equal("attrs", "k2", kv::index_collection::map_keys), 0});
    REQUIRE(mk);
    CHECK(mk->size() == 7); // i % 4 == 2 for i < 30
    auto mv = db.query(
        {"test", "s", {}, kv::filter::range("attrs", 0, 4, kv::index_collection::map_values), 0});
    REQUIRE(mv);
    CHECK(mv->size() == 5);
    auto limited = db.query({"test", "s", {}, kv::filter::range("age", 0, 100), 4});
    REQUIRE(limited);
    CHECK(limited->size() == 4);
    REQUIRE(db.drop_index("test", "age_idx"));
    CHECK(db.drop_index("test", "age_idx")); // none left: ok, as the server answers
    CHECK(db.query(q).code() == status::index_not_found);
}

TEST_CASE("scans: a set or the whole namespace, by partition then digest",
          "[sim][cluster][query]") {
    sim::cluster db;
    for (int i = 0; i < 50; ++i)
        REQUIRE(db.put(K(i, i % 2 == 0 ? "even" : "odd"), {{"i", i}}));
    auto even = db.scan({"test", "even", {}, 0});
    REQUIRE(even);
    CHECK(even->size() == 25);
    for (std::size_t j = 1; j < even->size(); ++j) {
        const auto& a = (*even)[j - 1].k;
        const auto& b = (*even)[j].k;
        CHECK((a.partition_id() < b.partition_id() ||
               (a.partition_id() == b.partition_id() && a.digest() < b.digest())));
    }
    auto all = db.scan({"test", "", {"i"}, 0});
    REQUIRE(all);
    CHECK(all->size() == 50);
    CHECK(db.scan({"nope", "", {}, 0}).code() == status::invalid_namespace);
    CHECK(db.scan({"test", "", {std::string(20, 'x')}, 0}).code() == status::bin_name_too_long);
}

TEST_CASE("configuration is validated", "[sim][cluster]") {
    auto bad = [](auto edit) {
        sim::cluster_config cfg;
        edit(cfg);
        return sim::cluster::validate(cfg).code();
    };
    CHECK(sim::cluster::validate({}).has_value());
    CHECK(bad([](sim::cluster_config& c) { c.nodes = 0; }) == status::parameter_error);
    CHECK(bad([](sim::cluster_config& c) { c.namespaces.clear(); }) == status::parameter_error);
    CHECK(bad([](sim::cluster_config& c) { c.namespaces[0].max_record_size = 63; }) ==
          status::parameter_error);
    CHECK(bad([](sim::cluster_config& c) { c.namespaces[0].max_record_size = 8388609; }) ==
          status::parameter_error);
    CHECK(bad([](sim::cluster_config& c) { c.namespaces[0].replication_factor = 0; }) ==
          status::parameter_error);
    CHECK(bad([](sim::cluster_config& c) { c.namespaces[0].default_ttl = -1; }) ==
          status::parameter_error);
    CHECK(bad([](sim::cluster_config& c) { c.namespaces.push_back(c.namespaces[0]); }) ==
          status::parameter_error);
    CHECK(bad([](sim::cluster_config& c) { c.namespaces[0].name = std::string(32, 'n'); }) ==
          status::parameter_error);
    sim::cluster_config broken;
    broken.nodes = 0;
    CHECK_THROWS_AS(sim::cluster(broken), assertion_failure);
}

TEST_CASE("several namespaces are independent", "[sim][cluster]") {
    sim::cluster_config cfg;
    cfg.namespaces = {{"a", 1024, 0, 1, 20}, {"b", kv::default_max_record_size, 0, 3, 20}};
    sim::cluster db(cfg);
    REQUIRE(db.put(kv::key("a", "s", 1), {{"x", 1}}));
    CHECK(db.get(kv::key("b", "s", 1)).code() == status::record_not_found);
    CHECK(db.put(kv::key("a", "s", 2), {{"x", std::string(2000, 'x')}}).code() ==
          status::record_too_big);
    CHECK(db.put(kv::key("b", "s", 2), {{"x", std::string(2000, 'x')}}));
    CHECK(db.replicas("a", 0).size() == 1);
    CHECK(db.replicas("b", 0).size() == 3);
    CHECK(db.record_count("a") == 1);
    CHECK(db.record_count("b") == 1);
}

TEST_CASE("put: repeated names, deletes and many bins apply in order", "[sim][cluster]") {
    sim::cluster db;
    REQUIRE(db.put(K(1), {{"a", 1}, {"b", 2}}));
    // The last write of a name wins; a delete then a write re-creates the bin
    // at the end; a write then a delete removes it.
    REQUIRE(db.put(K(1), {{"a", 5}, {"a", 6}, {"b", value()}, {"b", 7}, {"c", 1}, {"c", value()}}));
    auto g = db.get(K(1));
    REQUIRE(g);
    CHECK(g->bins == std::vector<kv::bin>{{"a", 6}, {"b", 7}});
    // More bins than the predicted path handles: the logged path, same rules.
    std::vector<kv::bin> many;
    for (int i = 0; i < 40; ++i)
        many.push_back({name("b", i), i});
    many.push_back({"a", value()});
    REQUIRE(db.put(K(1), many));
    g = db.get(K(1));
    REQUIRE(g);
    CHECK(g->bins.size() == 41); // b, b0..b39
    CHECK_FALSE(g->contains("a"));
    CHECK(g->value_of("b39") == value(39));
}

TEST_CASE("put: a refused put of many bins leaves the record as it was", "[sim][cluster][status]") {
    fixture f(4096);
    REQUIRE(f.db.put(K(1), {{"keep", "x"}}));
    const kv::record before = snapshot(f.db, K(1));
    std::vector<kv::bin> many;
    for (int i = 0; i < 30; ++i)
        many.push_back({name("b", i), std::string(200, 'y')});
    auto r = f.db.put(K(1), many);
    CHECK(r.code() == status::record_too_big);
    CHECK(snapshot(f.db, K(1)) == before);
    // Deleting every bin deletes the record; a missing record stays missing.
    REQUIRE(f.db.put(K(1), {{"keep", value()}}));
    CHECK(f.db.get(K(1)).code() == status::record_not_found);
    CHECK(f.db.put(K(2), {{"x", value()}}).code() == status::record_not_found);
}

} // namespace sim_cluster_test
