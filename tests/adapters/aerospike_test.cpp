// Tests of kvmodel/adapters/aerospike.hpp against a real Aerospike server.
//
// Built with the client when CMake finds it (-DKVMODEL_AEROSPIKE_ROOT=...);
// runs against AEROSPIKE_HOST (e.g. 127.0.0.1:3000, namespace `test`). When
// the client is not built in, or AEROSPIKE_HOST is unset or unreachable, every
// test says so and passes without touching a server. Records live in set
// "kvmodel_adapter_test" under keys unique to the process, and are removed.
//
// The conformance cases run the same command on the simulator and on the
// server and require identical results, final records and statuses: the
// server is the truth the simulator imitates.
#include <catch2/catch.hpp>

#if defined(KVMODEL_HAVE_AEROSPIKE)

#    include "../sim/capacity_datasets.hpp"

#    include <kvmodel/adapters/aerospike.hpp>
#    include <kvmodel/cdt/list_ops.hpp>
#    include <kvmodel/cdt/map_ops.hpp>
#    include <kvmodel/sim/cluster.hpp>

#    include <cstdlib>
#    include <cstring>
#    include <map>
#    include <optional>
#    include <set>
#    include <string>
#    include <unistd.h>
#    include <vector>

namespace adapters_aerospike_test {

using namespace kvmodel;
namespace ka = kvmodel::adapters;
namespace mo = kvmodel::cdt::map_ops;
namespace lo = kvmodel::cdt::list_ops;

namespace {

ka::aerospike_store* server() {
    static std::optional<ka::aerospike_store> store;
    static bool tried = false;
    static std::string why;
    if (!tried) {
        tried = true;
        const char* host = std::getenv("AEROSPIKE_HOST");
        if (host == nullptr || *host == '\0') {
            why = "AEROSPIKE_HOST is not set";
        } else {
            ka::aerospike_config cfg;
            cfg.hosts = host;
            auto s = ka::aerospike_store::connect(cfg);
            if (s) store.emplace(std::move(s).value());
            else why = std::string("AEROSPIKE_HOST=") + host + " is unreachable: " + s.error().message;
        }
    }
    if (!store) WARN("Aerospike server tests skipped: " << why);
    return store ? &*store : nullptr;
}

kv::key test_key(const std::string& name) {
    static const std::string prefix = "t" + std::to_string(::getpid()) + "-";
    return kv::key("test", "kvmodel_adapter_test", prefix + name);
}

/// Same value, order flags included.
bool same_with_flags(const value& a, const value& b) {
    if (!(a == b)) return false;
    if (a.is_list()) {
        if (a.as_list().order() != b.as_list().order()) return false;
        for (std::size_t i = 0; i < a.as_list().size(); ++i)
            if (!same_with_flags(a.as_list()[i], b.as_list()[i])) return false;
    }
    if (a.is_map()) {
        if (a.as_map().order() != b.as_map().order()) return false;
        for (std::size_t i = 0; i < a.as_map().size(); ++i)
            if (!same_with_flags(a.as_map().value_at(i), b.as_map().value_at(i))) return false;
    }
    return true;
}

struct cleanup {
    ka::aerospike_store* s;
    kv::key k;
    ~cleanup() { (void)s->remove(k); }
};

} // namespace

TEST_CASE("put, get, exists, touch and remove round-trip", "[adapters][aerospike]") {
    ka::aerospike_store* s = server();
    if (s == nullptr) return;
    kv::key k = test_key("basic");
    cleanup c{s, k};
    (void)s->remove(k);
    CHECK_FALSE(*s->exists(k));
    auto missing = s->get(k);
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == status::record_not_found);

    std::vector<kv::bin> bins{{"i", value(42)}, {"s", value("text")}, {"d", value(2.5)}, {"b", value(true)},
                              {"blob", value(bytes{0, 1, 255})}};
    REQUIRE(s->put(k, bins));
    CHECK(*s->exists(k));
    auto r = s->get(k);
    REQUIRE(r);
    CHECK(r->generation == 1);
    CHECK(r->bins == bins);  // creation order, as the server keeps it
    REQUIRE(s->touch(k));
    CHECK(s->get(k)->generation == 2);

    const std::string names[] = {"s", "nope"};
    auto sel = s->get(k, names);
    REQUIRE(sel);
    REQUIRE(sel->bins.size() == 1);
    CHECK(sel->bins[0] == kv::bin{"s", value("text")});

    REQUIRE(s->remove(k));
    auto gone = s->remove(k);
    REQUIRE_FALSE(gone);
    CHECK(gone.error().code == status::record_not_found);
}

TEST_CASE("kv::key's digest is the C client's", "[adapters][aerospike]") {
    // No server needed, but the client is: as_key_digest is the reference.
    std::vector<kv::key> keys{kv::key("test", "s", 42), kv::key("test", "", -1), kv::key("test", "set", "user-1"),
                              kv::key("test", "set", std::string()), kv::key("ns", "s", bytes{0, 1, 2, 255}),
                              kv::key("test", "s", std::int64_t{1} << 62)};
    for (const kv::key& k : keys) {
        as_key ak;
        REQUIRE(ka::detail::init_key(ak, k, "test"));
        as_digest* d = as_key_digest(&ak);
        REQUIRE(d != nullptr);
        INFO(kv::to_string(k));
        CHECK(std::memcmp(d->value, k.digest().data(), 20) == 0);
        as_key_destroy(&ak);
    }
}

TEST_CASE("values round-trip exactly, order flags included", "[adapters][aerospike]") {
    ka::aerospike_store* s = server();
    if (s == nullptr) return;
    kv::key k = test_key("values");
    cleanup c{s, k};
    map km(map_order::key_ordered);
    km.put(value("b"), value(list{value(1), value(2.5)}));
    km.put(value(3), value(bytes{9}));
    km.put(value("a"), value());
    map kvm(map_order::key_value_ordered);
    kvm.put(value(1), value("x"));
    map um;
    um.put(value("z"), value(1));
    um.put(value(-7), value(false));
    list ol({value(3), value(1), value(2)});
    ol.sort();
    ol.set_order_flag(list_order::ordered);
    std::vector<kv::bin> bins{{"km", value(km)}, {"kvm", value(kvm)}, {"um", value(um)},
                              {"ol", value(ol)}, {"nested", value(list{value(um), value(ol), value("s")})},
                              {"big", value(std::int64_t{-9223372036854775807LL - 1})}};
    REQUIRE(s->put(k, bins));
    auto r = s->get(k);
    REQUIRE(r);
    REQUIRE(r->bins.size() == bins.size());
    for (std::size_t i = 0; i < bins.size(); ++i) {
        INFO(bins[i].name << ": wrote " << to_string(bins[i].val) << ", read " << to_string(r->bins[i].val));
        CHECK(r->bins[i].name == bins[i].name);
        CHECK(same_with_flags(r->bins[i].val, bins[i].val));
    }
    // INF and WILDCARD are never stored.
    const kv::bin inf_bin[] = {{"x", value(list{value(1), value(inf)})}};
    auto bad = s->put(k, inf_bin);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code == status::parameter_error);
}

TEST_CASE("operate: one result per op, in order, with the server's orders", "[adapters][aerospike]") {
    ka::aerospike_store* s = server();
    if (s == nullptr) return;
    kv::key k = test_key("operate");
    cleanup c{s, k};
    (void)s->remove(k);
    cdt::map_policy kv_ordered;
    kv_ordered.order = map_order::key_value_ordered;
    std::vector<std::pair<value, value>> items{{value("p1"), value(30)}, {value("p2"), value(20)},
                                               {value("p3"), value(10)}, {value("p4"), value(20)}};
    const kv::operation ops[] = {
        kv::op::cdt("m", mo::put_items(items, kv_ordered)),
        kv::op::cdt("m", mo::get_by_rank_range(0, 3, cdt::return_type::key_value)),
        kv::op::cdt("m", mo::get_by_rank_range(0, 3, cdt::return_type::key)),
        kv::op::write("n", value(5)),
        kv::op::add("n", value(2)),
        kv::op::read("n"),
        kv::op::cdt("l", lo::append_items({value(7), value(6), value(5), value(8)})),
        kv::op::cdt("l", lo::get_by_rank_range(0, 3, cdt::return_type::value)),
        kv::op::read_header(),
    };
    auto r = s->operate(k, ops);
    REQUIRE(r);
    REQUIRE(r->results.size() == std::size(ops));
    CHECK(r->results[0] == value(4));
    // KEY_VALUE: [key, value] pairs in rank order (ties by key).
    CHECK(r->results[1] == value(list{value(list{value("p3"), value(10)}), value(list{value("p2"), value(20)}),
                                      value(list{value("p4"), value(20)})}));
    CHECK(r->results[2] == value(list{value("p3"), value("p2"), value("p4")}));
    CHECK(r->results[3].is_nil());
    CHECK(r->results[4].is_nil());
    CHECK(r->results[5] == value(7));
    CHECK(r->results[6] == value(4));
    // Unordered list, rank-based VALUE results come in descending rank order (AEROSPIKE-CDT.md §13).
    CHECK(r->results[7] == value(list{value(7), value(6), value(5)}));
    CHECK(r->results[8].is_nil());
    CHECK(r->generation == 1);
    CHECK(r->value_of("n") == value(7));
}

TEST_CASE("operate errors carry the server's status and leave the record as it was", "[adapters][aerospike]") {
    ka::aerospike_store* s = server();
    if (s == nullptr) return;
    kv::key k = test_key("errors");
    cleanup c{s, k};
    (void)s->remove(k);
    const kv::operation miss[] = {kv::op::cdt("l", lo::size())};
    auto nf = s->operate(k, miss);
    REQUIRE_FALSE(nf);
    CHECK(nf.error().code == status::record_not_found);

    const kv::bin init[] = {{"l", value(list{value(1), value(2)})}};
    REQUIRE(s->put(k, init));
    const kv::operation ops[] = {kv::op::cdt("l", lo::append(value(3))), kv::op::cdt("l", lo::get(10))};
    auto r = s->operate(k, ops);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::op_not_applicable);
    CHECK(s->get(k)->value_of("l") == value(list{value(1), value(2)}));

    const kv::operation long_name[] = {kv::op::write("sixteen_bytes_xx", value(1))};
    auto ln = s->operate(k, long_name);
    REQUIRE_FALSE(ln);
    CHECK(ln.error().code == status::bin_name_too_long);

    kv::write_policy create_only;
    create_only.exists = kv::record_exists_action::create_only;
    auto exists = s->put(k, init, create_only);
    REQUIRE_FALSE(exists);
    CHECK(exists.error().code == status::record_exists);

    kv::write_policy gen;
    gen.gen = kv::generation_policy::eq;
    gen.generation = 99;
    auto g = s->put(k, init, gen);
    REQUIRE_FALSE(g);
    CHECK(g.error().code == status::generation_error);

    const kv::operation wrong_type[] = {kv::op::cdt("l", mo::size())};
    auto wt = s->operate(k, wrong_type);
    REQUIRE_FALSE(wt);
    CHECK(wt.error().code == status::bin_type_error);
    CHECK(wt.error().message.find("operate") == 0);
}

TEST_CASE("batch_get answers per key in key order", "[adapters][aerospike]") {
    ka::aerospike_store* s = server();
    if (s == nullptr) return;
    std::vector<kv::key> keys{test_key("b0"), test_key("b-missing"), test_key("b2")};
    cleanup c0{s, keys[0]};
    cleanup c2{s, keys[2]};
    (void)s->remove(keys[1]);
    const kv::bin b0[] = {{"v", value(0)}, {"w", value("zero")}};
    const kv::bin b2[] = {{"v", value(2)}};
    REQUIRE(s->put(keys[0], b0));
    REQUIRE(s->put(keys[2], b2));
    auto all = s->batch_get(keys);
    REQUIRE(all.size() == 3);
    REQUIRE(all[0]);
    CHECK(all[0]->bins.size() == 2);
    REQUIRE_FALSE(all[1]);
    CHECK(all[1].error().code == status::record_not_found);
    REQUIRE(all[2]);
    CHECK(all[2]->value_of("v") == value(2));
    const std::string only_w[] = {"w"};
    auto some = s->batch_get(keys, only_w);
    REQUIRE(some[0]);
    REQUIRE(some[0]->bins.size() == 1);
    CHECK(some[0]->bins[0].name == "w");
}

TEST_CASE("secondary-index queries and scans", "[adapters][aerospike]") {
    ka::aerospike_store* s = server();
    if (s == nullptr) return;
    const std::string set = "kvmodel_adapter_q" + std::to_string(::getpid() % 100000);
    std::vector<kv::key> keys;
    for (int i = 0; i < 5; ++i) keys.emplace_back("test", set, i);
    for (int i = 0; i < 5; ++i) {
        const kv::bin b[] = {{"score", value(i * 10)}, {"tags", value(list{value("t" + std::to_string(i % 2))})}};
        kv::write_policy wp;
        wp.send_key = true;
        REQUIRE(s->put(keys[static_cast<std::size_t>(i)], b, wp));
    }
    kv::index_spec ix{"test", set, "score", set + "_score", kv::index_type::numeric, kv::index_collection::none};
    REQUIRE(s->create_index(ix));
    kv::index_spec lx{"test", set, "tags", set + "_tags", kv::index_type::string, kv::index_collection::list};
    REQUIRE(s->create_index(lx));
    kv::query_request q{"test", set, {}, kv::filter::range("score", 10, 30), 0};
    auto rows = s->query(q);
    REQUIRE(rows);
    CHECK(rows->size() == 3);
    for (const auto& row : *rows) {
        REQUIRE(row.k.user_key());
        std::int64_t id = row.k.user_key()->as_int();
        CHECK(row.rec.value_of("score") == value(id * 10));
    }
    kv::query_request tq{"test", set, {"score"}, kv::filter::equal("tags", value("t1"), kv::index_collection::list), 0};
    auto tagged = s->query(tq);
    REQUIRE(tagged);
    CHECK(tagged->size() == 2);
    auto all = s->scan(kv::scan_request{"test", set, {}, 0});
    REQUIRE(all);
    CHECK(all->size() == 5);
    CHECK(s->drop_index("test", ix.name));
    CHECK(s->drop_index("test", lx.name));
    for (const kv::key& k : keys) (void)s->remove(k);
}

TEST_CASE("scan_page: native pages resume across writes, each lasting record once", "[adapters][aerospike]") {
    ka::aerospike_store* s = server();
    if (s == nullptr) return;
    const std::string set = "apage_" + std::to_string(::getpid() % 100000);
    const int n = 2000;
    kv::write_policy wp;
    wp.send_key = true;
    for (int i = 0; i < n; ++i) {
        const kv::bin b[] = {{"i", value(i)}};
        REQUIRE(s->put(kv::key("test", set, i), b, wp));
    }
    // The native path: a page of 10 is 10 records and the cursor goes on.
    kv::partition_cursor small;
    auto ten = kv::scan_page(*s, kv::scan_request{"test", set, {"i"}, 10}, small);
    REQUIRE(ten);
    CHECK(ten->size() == 10);
    CHECK_FALSE(small.done());
    // Pages of 100; between pages, delete one record and create one (ids
    // from n on), so only ids below n that stay are seen throughout.
    std::map<std::int64_t, int> seen;
    std::set<std::int64_t> deleted;
    kv::partition_cursor c;
    int pages = 0;
    int next = n;
    while (!c.done() && pages < 200) {
        auto page = kv::scan_page(*s, kv::scan_request{"test", set, {"i"}, 100}, c);
        REQUIRE(page);
        CHECK(page->size() <= 100);
        ++pages;
        for (const kv::keyed_record& kr : *page) ++seen[kr.rec.value_of("i").as_int()];
        const int victim = (pages * 37) % n;
        if (seen.count(victim) == 0 && deleted.insert(victim).second)
            REQUIRE(s->remove(kv::key("test", set, victim)));
        const kv::bin b[] = {{"i", value(next)}};
        REQUIRE(s->put(kv::key("test", set, next++), b, wp));
    }
    CHECK(c.done());
    CHECK(pages >= n / 100);
    int lasting = 0;
    for (int i = 0; i < n; ++i) {
        if (deleted.count(i) != 0) {
            CHECK(seen.count(i) == 0);
            continue;
        }
        ++lasting;
        INFO("record " << i);
        CHECK(seen[i] == 1);
    }
    for (const auto& [id, times] : seen) CHECK(times == 1);
    CHECK(lasting == n - static_cast<int>(deleted.size()));
    CHECK(s->truncate("test", set, std::nullopt));
}

TEST_CASE("conformance: the same command on sim and on the server", "[adapters][aerospike][conformance]") {
    ka::aerospike_store* s = server();
    if (s == nullptr) return;
    sim::cluster sim_store;
    struct scenario {
        const char* name;
        std::vector<kv::bin> initial;  // empty: no record
        std::vector<kv::operation> ops;
    };
    cdt::list_policy ordered;
    ordered.order = list_order::ordered;
    cdt::map_policy kvo;
    kvo.order = map_order::key_value_ordered;
    map m0;
    m0.put(value(0), value(17));
    m0.put(value(4), value(2));
    m0.put(value(5), value(15));
    m0.put(value(9), value(10));
    const std::vector<scenario> scenarios{
        {"record ops", {{"a", value(1)}, {"s", value("x")}},
         {kv::op::add("a", value(41)), kv::op::append("s", value("yz")), kv::op::prepend("s", value(">")),
          kv::op::read("a"), kv::op::read("s"), kv::op::write("t", value(list{value(1)})), kv::op::read("t")}},
        {"add wrong type", {{"s", value("x")}}, {kv::op::add("s", value(1))}},
        {"append wrong type", {{"a", value(1)}}, {kv::op::append("a", value("x"))}},
        {"read_all with writes", {{"a", value(1)}, {"b", value(2)}},
         {kv::op::write("c", value(3)), kv::op::read_all(), kv::op::write("a", value(9))}},
        {"delete then write", {{"a", value(1)}}, {kv::op::delete_record(), kv::op::write("b", value(2))}},
        {"touch", {{"a", value(1)}}, {kv::op::touch(), kv::op::read("a")}},
        {"missing record read", {}, {kv::op::read("a")}},
        {"missing record write", {}, {kv::op::write("a", value(1)), kv::op::read("a")}},
        {"rel rank", {{"m", value(m0)}},
         {kv::op::cdt("m", mo::get_by_value_rel_rank_range(value(11), -1, std::nullopt, cdt::return_type::value)),
          kv::op::cdt("m", mo::remove_by_key_rel_index_range(value(3), -2, 2, cdt::return_type::key))}},
        {"ordered list", {},
         {kv::op::cdt("l", lo::append_items({value(5), value(1), value(3)}, ordered)),
          kv::op::cdt("l", lo::insert(0, value(4))), kv::op::cdt("l", lo::get_range(0, std::nullopt)),
          kv::op::cdt("l", lo::get_by_value_rel_rank_range(value(3), 0, 2, cdt::return_type::rank))}},
        {"map orders", {},
         {kv::op::cdt("m", mo::put(value("b"), value(1), kvo)), kv::op::cdt("m", mo::put(value("a"), value(2), kvo)),
          kv::op::cdt("m", mo::get_by_index_range(0, std::nullopt, cdt::return_type::ordered_map)),
          kv::op::cdt("m", mo::get_by_rank(-1, cdt::return_type::key))}},
        {"header only", {{"a", value(1)}}, {kv::op::read_header()}},
        {"header of missing record", {}, {kv::op::read_header()}},
        {"header among writes", {{"a", value(1)}}, {kv::op::write("a", value(2)), kv::op::read_header()}},
        {"delete only", {{"a", value(1)}}, {kv::op::delete_record()}},
        {"write nil deletes bin", {{"a", value(1)}, {"b", value(2)}}, {kv::op::write("a", value()), kv::op::read("a")}},
        {"write nil on missing record", {}, {kv::op::write("a", value())}},
        {"read missing bin", {{"a", value(1)}}, {kv::op::read("zz"), kv::op::read("a")}},
        {"bits", {{"b", value(bytes{0x0f, 0x00, 0xff})}},
         {kv::op::bit("b", cdt::bit_ops::bit_get(4, 8)), kv::op::bit("b", cdt::bit_ops::bit_not(0, 8)),
          kv::op::bit("b", cdt::bit_ops::bit_get_int(0, 16, true)), kv::op::read("b")}},
    };
    for (const scenario& sc : scenarios) {
        INFO("scenario: " << sc.name);
        kv::key k = test_key(std::string("conf-") + sc.name);
        cleanup c{s, k};
        (void)s->remove(k);
        if (!sc.initial.empty()) {
            REQUIRE(s->put(k, sc.initial));
            REQUIRE(sim_store.put(k, sc.initial));
        }
        auto on_server = s->operate(k, sc.ops);
        auto on_sim = sim_store.operate(k, sc.ops);
        REQUIRE(on_server.has_value() == on_sim.has_value());
        if (!on_server) {
            INFO("server: " << on_server.error().message << " / sim: " << on_sim.error().message);
            CHECK(on_server.error().code == on_sim.error().code);
        } else {
            REQUIRE(on_server->results.size() == on_sim->results.size());
            for (std::size_t i = 0; i < on_sim->results.size(); ++i) {
                INFO("op " << i << ": server " << to_string(on_server->results[i]) << ", sim "
                           << to_string(on_sim->results[i]));
                CHECK(on_server->results[i] == on_sim->results[i]);
            }
            CHECK(on_server->bins == on_sim->bins);
            CHECK(on_server->generation == on_sim->generation);
            CHECK(on_server->ttl == on_sim->ttl);
        }
        auto after_server = s->get(k);
        auto after_sim = sim_store.get(k);
        REQUIRE(after_server.has_value() == after_sim.has_value());
        if (after_server) CHECK(after_server->bins == after_sim->bins);
    }
}

// Records the data sets of tests/sim/capacity_datasets.hpp on a real server
// (hidden: run `AEROSPIKE_HOST=127.0.0.1:3000 adapters_tests "[.record_capacity]"`):
// rewrites each set's 40 records and creates the two secondary indexes.
// The namespace statistics are then read with the info protocol (`sets/test`,
// `sindex-stat`) into tests/data/capacity_server.json, which
// tests/sim/capacity_server_test.cpp replays in CI without a server.
TEST_CASE("record the capacity data sets on a real server", "[.record_capacity]") {
    const char* host = std::getenv("AEROSPIKE_HOST");
    REQUIRE(host != nullptr);
    ka::aerospike_config cfg;
    cfg.hosts = host;
    auto store = ka::aerospike_store::connect(cfg);
    REQUIRE(store);
    for (const testing::capacity::dataset& ds : testing::capacity::datasets()) {
        for (const testing::capacity::record_spec& r : ds.records) {
            (void)store->remove(r.key, kv::write_policy{});
            REQUIRE(store->put(r.key, r.bins, r.policy));
        }
        if (ds.index) {
            (void)store->drop_index(ds.index->ns, ds.index->name);
            REQUIRE(store->create_index(*ds.index));
        }
    }
}

} // namespace adapters_aerospike_test

#else

TEST_CASE("Aerospike adapter server tests", "[adapters][aerospike]") {
    WARN("Aerospike server tests skipped: kvmodel was configured without the Aerospike C client "
         "(-DKVMODEL_AEROSPIKE_ROOT=<client prefix>)");
    SUCCEED();
}

#endif
