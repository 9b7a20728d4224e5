// Multi-record scenarios recorded from Aerospike 8.1.2 and replayed on the
// simulator: secondary indexes on a CDT context and on expressions (create
// errors, equality and range queries over LIST / MAPKEYS / MAPVALUES under a
// ctx), batch operate (mixed reads, writes, deletes, per-key statuses,
// filters, generation), truncate (with a last-update cutoff) and paged
// queries and scans (partition filters, max_records pages, resume).
//
// run() plays every scenario on a store and answers one JSON line per step.
// In CI the lines of a sim::cluster must equal data/multi_record/
// scenarios.server.jsonl, what the server answered. To record them again
// (the adapter built with the C client, a server at AEROSPIKE_HOST):
//   tests/adapters/data/multi_record/record.sh <build-dir-with-client>
// which runs the "[.record]" test case with KVMODEL_RECORD set.
#include <kvmodel/core/json.hpp>
#include <kvmodel/exp/build.hpp>
#include <kvmodel/kv/batch.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/sim/cluster.hpp>

#if defined(KVMODEL_HAVE_AEROSPIKE)
#    include <kvmodel/adapters/aerospike.hpp>
#endif

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace adapters_multi_record_test {

using namespace kvmodel;
using nlohmann::json;
using step = cdt::ctx_step;

namespace {

// What a scenario needs of its world: the set names' prefix, the store's
// clock and a pause after a truncate (the server applies it asynchronously).
struct world {
    std::string prefix;
    std::function<std::int64_t()> now_ms;
    std::function<void(int)> sleep_ms;
};

class recorder {
public:
    void add(const std::string& name, json body) {
        body["step"] = name;
        m_lines.push_back(body.dump());
    }
    void status(const std::string& name, const result<void>& r) {
        add(name, json{{"status", static_cast<int>(r ? status::ok : r.code())}});
    }
    // A query's or scan's records by their bin "i", sorted, or its status.
    void ids(const std::string& name, const result<std::vector<kv::keyed_record>>& r) {
        if (!r) {
            add(name, json{{"status", static_cast<int>(r.code())}});
            return;
        }
        std::vector<std::int64_t> ids;
        for (const kv::keyed_record& kr : *r)
            ids.push_back(kr.rec.get("i") != nullptr ? kr.rec.get("i")->as_int() : -1);
        std::sort(ids.begin(), ids.end());
        add(name, json{{"status", 0}, {"ids", ids}});
    }
    const std::vector<std::string>& lines() const noexcept { return m_lines; }

private:
    std::vector<std::string> m_lines;
};

using bins = std::vector<kv::bin>;

kv::key K(const std::string& set, std::int64_t i) {
    return kv::key("test", set, i);
}

template <class S>
void put(S& s, const kv::key& k, const bins& b) {
    REQUIRE(s.put(k, std::span<const kv::bin>(b)));
}

template <class S>
void put_all(S& s, const std::string& set, int n, const std::function<bins(int)>& bins_of) {
    for (int i = 0; i < n; ++i) {
        bins b = bins_of(i);
        b.push_back({"i", i});
        put(s, K(set, i), b);
    }
}

template <class S>
void remove_all(S& s, const std::string& set, int n) {
    for (int i = 0; i < n; ++i)
        (void)s.remove(K(set, i));
}

// --- secondary indexes on a ctx and on expressions ---------------------------

template <class S>
void sindex_scenarios(S& s, const world& w, recorder& out) {
    const std::string set = w.prefix + "ix";
    const int n = 24;
    put_all(s, set, n, [](int i) {
        bins b{{"doc",
                map{{"age", i},
                    {"tags", list{"t" + std::to_string(i % 3), "x", "x"}},
                    {"scores", map{{"k" + std::to_string(i % 4), i % 5}, {"z", 9}}}}},
               {"l", list{list{i, i + 1, i}, i % 2}}};
        if (i % 2 == 0) {
            b.push_back({"a", i});
            b.push_back({"b", 100});
        }
        b.push_back({"ll", list{i, 2 * i}});
        return b;
    });
    const auto ix = [&](const std::string& name,
                        const std::string& bin,
                        kv::index_type t,
                        kv::index_collection c,
                        std::vector<step> ctx,
                        std::vector<std::uint8_t> e = {}) {
        kv::index_spec x{"test", set, bin, set + "_" + name, t, c};
        x.ctx = std::move(ctx);
        x.exp = std::move(e);
        return x;
    };
    using T = kv::index_type;
    using C = kv::index_collection;
    const std::vector<std::uint8_t> sum = exp::add(exp::bin_int("a"), exp::bin_int("b")).bytes();
    const std::vector<std::uint8_t> ll = exp::bin_list("ll").bytes();
    const std::vector<kv::index_spec> specs{
        ix("age", "doc", T::numeric, C::none, {step::map_key("age")}),
        ix("tags", "doc", T::string, C::list, {step::map_key("tags")}),
        ix("svals", "doc", T::numeric, C::map_values, {step::map_key("scores")}),
        ix("skeys", "doc", T::string, C::map_keys, {step::map_key("scores")}),
        ix("l0", "l", T::numeric, C::list, {step::list_index(0)}),
        ix("sum", "", T::numeric, C::none, {}, sum),
        ix("ll", "", T::numeric, C::list, {}, ll),
    };
    for (const kv::index_spec& x : specs)
        out.status("create " + x.name.substr(set.size() + 1), s.create_index(x));

    // Refused definitions.
    out.status("create bin+exp", s.create_index(ix("bad1", "a", T::numeric, C::none, {}, sum)));
    out.status("create exp type", s.create_index(ix("bad2", "", T::string, C::none, {}, sum)));
    out.status("create exp list as default",
               s.create_index(ix("bad3", "", T::numeric, C::none, {}, ll)));
    out.status("create ctx+exp",
               s.create_index(ix("bad4", "", T::numeric, C::none, {step::map_key("age")}, sum)));
    out.status("create same name", s.create_index(specs[0]));
    out.status("create same name other ctx",
               s.create_index(ix("age", "doc", T::numeric, C::none, {step::map_key("agE")})));
    // The same definition under another name renames the index.
    out.status("create renames",
               s.create_index(ix("age2", "doc", T::numeric, C::none, {step::map_key("age")})));

    const auto q = [&](const std::string& name, kv::filter f) {
        out.ids(name, s.query(kv::query_request{"test", set, {"i"}, std::move(f), 0}, {}));
    };
    q("age eq", kv::filter::equal("doc", 7).in({step::map_key("age")}));
    q("age range", kv::filter::range("doc", 5, 9).in({step::map_key("age")}));
    q("tags eq", kv::filter::equal("doc", "t1", C::list).in({step::map_key("tags")}));
    q("tags x", kv::filter::equal("doc", "x", C::list).in({step::map_key("tags")}));
    q("svals range", kv::filter::range("doc", 3, 4, C::map_values).in({step::map_key("scores")}));
    q("svals eq 9", kv::filter::equal("doc", 9, C::map_values).in({step::map_key("scores")}));
    q("skeys eq", kv::filter::equal("doc", "k2", C::map_keys).in({step::map_key("scores")}));
    q("l0 range", kv::filter::range("l", 10, 12, C::list).in({step::list_index(0)}));
    q("sum range", kv::filter::range("", 104, 110).on(sum));
    q("sum eq", kv::filter::equal("", 112).on(sum));
    q("ll range", kv::filter::range("", 30, 34, C::list).on(ll));
    // An index is found by its whole definition.
    q("no ctx", kv::filter::equal("doc", 7));
    q("other ctx", kv::filter::equal("doc", 7).in({step::map_key("agE")}));
    q("other exp", kv::filter::equal("", 112).on(exp::bin_int("a").bytes()));
    q("wrong collection", kv::filter::equal("doc", "t1").in({step::map_key("tags")}));

    // Writes move records in and out of the indexes.
    put(s, K(set, 7), bins{{"doc", map{{"age", 8}}}});
    put(s, K(set, 4), bins{{"a", 10}});
    q("age eq after", kv::filter::equal("doc", 8).in({step::map_key("age")}));
    q("sum eq after", kv::filter::equal("", 110).on(sum));

    for (const kv::index_spec& x : specs)
        out.status("drop " + x.name.substr(set.size() + 1), s.drop_index("test", x.name));
    for (const char* x : {"age2", "bad1", "bad2", "bad3", "bad4"})
        out.status(std::string("drop ") + x, s.drop_index("test", set + "_" + x));
    remove_all(s, set, n);
}

// --- batch operate -------------------------------------------------------------

json record_json(const result<kv::record>& r) {
    if (!r)
        return json{{"status", static_cast<int>(r.code())}};
    json out = json::object();
    for (const kv::bin& b : r->bins)
        out[b.name] = to_json(b.val);
    return json{{"status", 0}, {"gen", r->generation}, {"bins", out}};
}

template <class S>
void batch_scenarios(S& s, const world& w, recorder& out) {
    const std::string set = w.prefix + "batch";
    put_all(s, set, 6, [](int i) { return bins{{"n", 10 * i}}; });
    put(s, K(set, 5), bins{{"n", 51}}); // generation 2
    kv::write_policy gen_ok;
    gen_ok.gen = kv::generation_policy::eq;
    gen_ok.generation = 2;
    kv::write_policy gen_bad = gen_ok;
    gen_bad.generation = 7;
    kv::write_policy filtered;
    filtered.filter_exp = exp::cmp_gt(exp::bin_int("n"), exp::int_val(1000)).bytes();
    kv::read_policy read_filtered;
    read_filtered.filter_exp = filtered.filter_exp;
    kv::write_policy update_only;
    update_only.exists = kv::record_exists_action::update_only;
    kv::write_policy create_only;
    create_only.exists = kv::record_exists_action::create_only;
    std::vector<kv::batch_record> batch{
        kv::batch_record::read(K(set, 0)),
        kv::batch_record::read(K(set, 1), {kv::op::read("n")}),
        kv::batch_record::write(K(set, 2), {kv::op::add("n", 1), kv::op::read("n")}),
        kv::batch_record::remove(K(set, 3)),
        kv::batch_record::read(K(set, 99)),
        kv::batch_record::write(K(set, 5), {kv::op::write("g", 1)}, gen_ok),
        kv::batch_record::write(K(set, 4), {kv::op::write("g", 1)}, gen_bad),
        kv::batch_record::write(K(set, 4), {kv::op::write("f", 1)}, filtered),
        kv::batch_record::read(K(set, 4), {}, read_filtered),
        kv::batch_record::write(K(set, 98), {kv::op::write("u", 1)}, update_only),
        kv::batch_record::write(K(set, 0), {kv::op::write("c", 1)}, create_only),
        kv::batch_record::write(
            K(set, 97), {kv::op::write("c", 1), kv::op::read("c")}, create_only),
        kv::batch_record::remove(K(set, 96)),
        kv::batch_record::write(K(set, 1), {kv::op::add("n", "x")}),
    };
    std::vector<result<kv::record>> r = kv::batch_operate(s, batch);
    json rows = json::array();
    for (const result<kv::record>& x : r)
        rows.push_back(record_json(x));
    out.add("batch mixed", json{{"results", rows}});
    // What the batch left behind.
    json after = json::array();
    for (int i : {0, 1, 2, 3, 4, 5, 97, 98}) {
        result<kv::record> g = s.get(K(set, i));
        after.push_back(record_json(g));
    }
    out.add("batch after", json{{"records", after}});
    remove_all(s, set, 6);
    for (int i : {96, 97, 98, 99})
        (void)s.remove(K(set, i));
}

// --- truncate ------------------------------------------------------------------

template <class S>
void truncate_scenarios(S& s, const world& w, recorder& out) {
    const std::string set = w.prefix + "trunc";
    const std::string other = w.prefix + "keep";
    put_all(s, set, 5, [](int) { return bins{}; });
    put_all(s, other, 3, [](int) { return bins{}; });
    w.sleep_ms(30);
    const std::int64_t cutoff = w.now_ms();
    w.sleep_ms(30);
    for (int i = 5; i < 10; ++i)
        put(s, K(set, i), bins{{"i", i}});
    put(s, K(set, 1), bins{{"i", 1}}); // rewritten after the cutoff: kept
    const auto scan = [&](const std::string& name, const std::string& which) {
        out.ids(name, s.scan(kv::scan_request{"test", which, {"i"}, 0}, {}));
    };
    out.status("truncate future", kv::truncate(s, "test", set, w.now_ms() + 3600'000));
    out.status("truncate epoch", kv::truncate(s, "test", set, std::int64_t{1262304000000}));
    out.status("truncate before cutoff", kv::truncate(s, "test", set, cutoff));
    w.sleep_ms(300);
    scan("after cutoff", set);
    scan("other set", other);
    out.status("truncate set", kv::truncate(s, "test", set, std::nullopt));
    w.sleep_ms(300);
    scan("after truncate", set);
    scan("other set kept", other);
    put(s, K(set, 42), bins{{"i", 42}});
    scan("write after truncate", set);
    out.status("truncate other", kv::truncate(s, "test", other, std::nullopt));
    out.status("truncate again", kv::truncate(s, "test", set, std::nullopt));
    w.sleep_ms(300);
}

// --- paged queries and scans ---------------------------------------------------

template <class S>
void paging_scenarios(S& s, const world& w, recorder& out) {
    const std::string set = w.prefix + "page";
    const int n = 120;
    put_all(s, set, n, [](int i) { return bins{{"v", i % 10}}; });
    const kv::index_spec ix{"test", set, "v", set + "_v", kv::index_type::numeric};
    out.status("create v", s.create_index(ix));
    // Walks pages of `page` records to the end: the records seen, in pages.
    const auto walk = [&](const std::string& name, auto&& page_fn, kv::partition_cursor c) {
        std::multiset<std::int64_t> seen;
        std::size_t pages = 0;
        bool over = false;
        while (!c.done() && pages < 1000) {
            result<std::vector<kv::keyed_record>> r = page_fn(c);
            if (!r) {
                out.add(name, json{{"status", static_cast<int>(r.code())}});
                return;
            }
            ++pages;
            for (const kv::keyed_record& kr : *r)
                seen.insert(kr.rec.value_of("i").as_int());
            over = over || r->size() > 7;
        }
        std::vector<std::int64_t> ids(seen.begin(), seen.end());
        out.add(name, json{{"status", 0}, {"ids", ids}, {"page_over_7", over}});
    };
    const kv::query_request q{"test", set, {"i"}, kv::filter::range("v", 2, 4), 7};
    const kv::scan_request sr{"test", set, {"i"}, 7};
    const auto query_pages = [&](kv::partition_cursor& c) {
        return kv::query_page(s, q, c);
    };
    const auto scan_pages = [&](kv::partition_cursor& c) {
        return kv::scan_page(s, sr, c);
    };
    walk("query all", query_pages, kv::partition_cursor::start(kv::partition_filter::all()));
    walk("query range",
         query_pages,
         kv::partition_cursor::start(kv::partition_filter::range(0, 2048)));
    walk("query id",
         query_pages,
         kv::partition_cursor::start(
             kv::partition_filter::id(kv::partition_id(K(set, 3).digest()))));
    walk("scan all", scan_pages, kv::partition_cursor::start(kv::partition_filter::all()));
    walk("scan range",
         scan_pages,
         kv::partition_cursor::start(kv::partition_filter::range(2048, 2048)));
    walk("scan after digest",
         scan_pages,
         kv::partition_cursor::start(kv::partition_filter::by_digest(K(set, 3).digest())));
    // Resume across writes: a record deleted after the first page is not
    // seen; one written in a passed partition is not either.
    kv::partition_cursor c = kv::partition_cursor::start(kv::partition_filter::all());
    result<std::vector<kv::keyed_record>> first = kv::scan_page(s, sr, c);
    REQUIRE(first);
    std::set<std::int64_t> got;
    for (const kv::keyed_record& kr : *first)
        got.insert(kr.rec.value_of("i").as_int());
    std::set<std::int64_t> gone;
    for (int i = 0; i < n && gone.size() < 5; ++i)
        if (got.count(i) == 0) {
            REQUIRE(s.remove(K(set, i)));
            gone.insert(i);
        }
    walk("scan resumed", scan_pages, c);
    out.status("drop v", s.drop_index("test", ix.name));
    remove_all(s, set, n);
    w.sleep_ms(0);
}

template <class S>
std::vector<std::string> run(S& s, const world& w) {
    recorder out;
    sindex_scenarios(s, w, out);
    batch_scenarios(s, w, out);
    truncate_scenarios(s, w, out);
    paging_scenarios(s, w, out);
    return out.lines();
}

std::filesystem::path data_file() {
    return std::filesystem::path(__FILE__).parent_path() / "data" / "multi_record" /
           "scenarios.server.jsonl";
}

} // namespace

TEST_CASE("multi-record scenarios: the simulator answers as Aerospike 8.1.2 did",
          "[adapters][multi_record]") {
    sim::namespace_config nc;
    nc.name = "test";
    nc.replication_factor = 1;
    nc.nsup_period = 60;
    sim::cluster_config cfg;
    cfg.nodes = 1;
    cfg.namespaces = {nc};
    auto clock = std::make_shared<sim::manual_clock>();
    clock->advance(std::chrono::milliseconds(1764000000000)); // 2025-11: after the server's epoch
    cfg.time_source = clock;
    sim::cluster db(cfg);
    world w{"multi2_",
            [&] { return clock->now_ms(); },
            [&](int ms) {
                clock->advance(std::chrono::milliseconds(ms));
            }};
    const std::vector<std::string> got = run(db, w);
    if (const char* dump = std::getenv("KVMODEL_SIM_ANSWERS")) { // to diff by hand
        std::ofstream o(dump);
        for (const std::string& l : got)
            o << l << '\n';
    }
    std::ifstream in(data_file());
    REQUIRE(in.good());
    std::vector<std::string> want;
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            want.push_back(line);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("step " << i);
        CHECK(json::parse(got[i]) == json::parse(want[i]));
    }
}

#if defined(KVMODEL_HAVE_AEROSPIKE)
TEST_CASE("multi-record scenarios: record the server's answers", "[.record]") {
    const char* host = std::getenv("AEROSPIKE_HOST");
    const char* path = std::getenv("KVMODEL_RECORD");
    if (host == nullptr || path == nullptr) {
        WARN("set AEROSPIKE_HOST and KVMODEL_RECORD to record");
        return;
    }
    adapters::aerospike_config ac;
    ac.hosts = host;
    auto store = adapters::aerospike_store::connect(ac);
    REQUIRE(store);
    const auto now = [] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    };
    world w{"multi2_", now, [](int ms) {
                std::this_thread::sleep_for(std::chrono::milliseconds(ms));
            }};
    const std::vector<std::string> lines = run(*store, w);
    std::ofstream o(path);
    for (const std::string& l : lines)
        o << l << '\n';
    REQUIRE(o.good());
}
#endif

} // namespace adapters_multi_record_test
