// A write command that runs out of memory leaves the record as it was: every
// allocation the command makes is made to fail in turn (a bad_alloc from the
// k-th allocation, k = 1, 2, ... until the command succeeds), and after each
// failure the record - bins, generation, void time - is compared with what it
// was; a record the command would have created does not exist. The commands
// cover each way the simulator writes bins: the undo log (bins written,
// added, deleted, replaced), a put without a log, and a command's last CDT
// write changed in place.
//
// The allocation failures come from this test binary's global operator new
// (tests/core/failing_new.hpp), which throws on request and otherwise is malloc.
#include "../core/failing_new.hpp"

#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace sim_alloc_failure_test {

using namespace kvmodel;
using kvmodel::test::fail_in;
namespace mo = kvmodel::cdt::map_ops;
namespace lo = kvmodel::cdt::list_ops;

kv::key K(std::int64_t i) {
    return kv::key("test", "s", i);
}

std::optional<kv::record> stored(sim::cluster& db, const kv::key& k) {
    auto r = db.get(k);
    if (!r) return std::nullopt;
    return *r;
}

// Runs command with its k-th allocation failing, k = 1, 2, ..., checking
// the record after every failure, until it succeeds; returns the number of
// failures (the command's allocations before its last one).
long fail_each_allocation(sim::cluster& db,
                          const kv::key& k,
                          const std::function<bool(sim::cluster&)>& command) {
    const std::optional<kv::record> before = stored(db, k);
    for (long at = 1;; ++at) {
        bool threw = false;
        bool ok = false;
        fail_in = at;
        try {
            ok = command(db);
        } catch (const std::bad_alloc&) {
            threw = true;
        }
        fail_in = 0;
        if (!threw) {
            REQUIRE(ok);
            return at - 1;
        }
        INFO("allocation " << at << " failed");
        const std::optional<kv::record> now = stored(db, k);
        REQUIRE(now.has_value() == before.has_value());
        if (now) REQUIRE(*now == *before);
    }
}

std::vector<std::pair<value, value>> entries(int n) {
    std::vector<std::pair<value, value>> items;
    for (int i = 0; i < n; ++i)
        items.emplace_back(i, list{i, std::string(20, static_cast<char>('a' + i % 26))});
    return items;
}

void seed(sim::cluster& db) {
    REQUIRE(db.operate(K(1),
                       {kv::op::write("a", 1),
                        kv::op::write("s", std::string(40, 's')),
                        kv::op::cdt("m", mo::put_items(entries(300))),
                        kv::op::cdt("l", lo::append_items({3, 1, 2}))}));
}

TEST_CASE("a command's last CDT write, changed in place, survives a failed allocation") {
    sim::cluster db;
    seed(db);
    long failures = fail_each_allocation(db, K(1), [](sim::cluster& c) {
        return c
            .operate(K(1),
                     {kv::op::cdt("m", mo::put(1000, list{1000, std::string(30, 'n')}))})
            .has_value();
    });
    CHECK(failures > 0);
    CHECK(stored(db, K(1))->get("m")->as_map().size() == 301);
    // A remove, and an overwrite that moves an entry in the value order.
    fail_each_allocation(db, K(1), [](sim::cluster& c) {
        return c.operate(K(1), {kv::op::cdt("m", mo::remove_by_rank_range(0, 2, cdt::return_type::value))})
            .has_value();
    });
    fail_each_allocation(db, K(1), [](sim::cluster& c) {
        return c.operate(K(1), {kv::op::cdt("m", mo::put(7, list{-5, std::string(25, 'x')}))})
            .has_value();
    });
    CHECK(stored(db, K(1))->get("m")->as_map().size() == 299);
}

TEST_CASE("a last CDT write through a context, in place, survives a failed allocation") {
    sim::cluster db;
    seed(db);
    list unordered;
    list ordered(list_order::ordered);
    for (int i = 0; i < 100; ++i) {
        unordered.push_back(list{i, std::string(20, 'u')});
        ordered.push_back(list{i, std::string(20, 'o')});
    }
    REQUIRE(db.operate(K(1),
                       {kv::op::write("u", value(unordered)),
                        kv::op::write("o", value(ordered)),
                        kv::op::cdt("n", mo::put(1, map{{"a", list{1, 2}}}))}));
    auto run = [&](const std::string& bin, cdt::op o) {
        fail_each_allocation(db, K(1), [&](sim::cluster& c) {
            return c.operate(K(1), {kv::op::cdt(bin, o)}).has_value();
        });
    };
    // Into an entry of a map, an UNORDERED and an ORDERED list (the changed
    // element re-sorted), two levels down, and through create steps.
    run("m", lo::append(std::string(20, 'c'), {}, {lo::ctx::map_key(3)}));
    run("u", lo::set(0, -7, {}, {lo::ctx::list_index(50)}));
    run("o", lo::set(0, 1000, {}, {lo::ctx::list_index(10)}));
    run("n", lo::append(3, {}, {lo::ctx::map_key(1), lo::ctx::map_key("a")}));
    run("n", lo::append(3, {}, {lo::ctx::map_key_create(2, map_order::key_ordered),
                                lo::ctx::list_index_create(5, list_order::unordered, true)}));
    run("u", lo::append(1, {}, {lo::ctx::list_index_create(130, list_order::unordered, true)}));
    kv::record now = *stored(db, K(1));
    CHECK(now.get("o")->as_list().back() == value(list{1000, std::string(20, 'o')}));
    CHECK(now.get("u")->as_list().size() == 131);
    CHECK(now.get("n")->as_map().get(value(1))->as_map().get(value("a"))->as_list().size() == 3);
}

TEST_CASE("logged writes are rolled back when an allocation fails") {
    sim::cluster db;
    seed(db);
    fail_each_allocation(db, K(1), [](sim::cluster& c) {
        return c
            .operate(K(1),
                     {kv::op::write("a", 2),
                      kv::op::write("s", std::string(100, 't')),
                      kv::op::write("new", std::string(50, 'w')),
                      kv::op::cdt("m", mo::put(2000, "v")),
                      kv::op::cdt("l", lo::append(4)),
                      kv::op::write("l", value()),
                      kv::op::cdt("m", mo::size())})
            .has_value();
    });
    kv::record now = *stored(db, K(1));
    CHECK(now.get("l") == nullptr);
    CHECK(*now.get("new") == value(std::string(50, 'w')));
    CHECK(now.generation == 2);
    // Through a context, after a logged op; and a REPLACE.
    fail_each_allocation(db, K(1), [](sim::cluster& c) {
        return c
            .operate(K(1),
                     {kv::op::write("a", 3),
                      kv::op::cdt("m",
                                  lo::append(std::string(20, 'c'), {}, {lo::ctx::map_key(3)}))})
            .has_value();
    });
    kv::write_policy replace;
    replace.exists = kv::record_exists_action::replace;
    fail_each_allocation(db, K(1), [&](sim::cluster& c) {
        return c.put(K(1), {{"only", std::string(60, 'o')}}, replace).has_value();
    });
    now = *stored(db, K(1));
    CHECK(now.bins.size() == 1);
}

// REPLACE erases every old bin before it writes (the undo log records each):
// with more bins than the log holds inline, logging an erased bin allocates,
// and a failure there must put back the bins already erased.
TEST_CASE("a REPLACE over many bins is rolled back when an allocation fails") {
    sim::cluster db;
    std::vector<kv::bin> bins;
    for (char c = 'a'; c < 'j'; ++c)
        bins.push_back({std::string(2, c), std::string(40, c)});
    REQUIRE(db.put(K(2), bins));
    kv::write_policy replace;
    replace.exists = kv::record_exists_action::replace;
    replace.send_key = true;
    long failures = fail_each_allocation(db, K(2), [&](sim::cluster& c) {
        return c.put(K(2), {{"only", std::string(60, 'o')}}, replace).has_value();
    });
    CHECK(failures > 0);
    kv::record now = *stored(db, K(2));
    REQUIRE(now.bins.size() == 1);
    CHECK(*now.get("only") == value(std::string(60, 'o')));
    CHECK(now.generation == 2);
}

TEST_CASE("a put without an undo log is all or nothing when an allocation fails") {
    sim::cluster db;
    seed(db);
    // Strings longer than the stored ones (their storage cannot be reused),
    // a container, a new bin.
    fail_each_allocation(db, K(1), [](sim::cluster& c) {
        return c
            .put(K(1),
                 {{"a", std::string(70, 'A')},
                  {"s", std::string(90, 'S')},
                  {"m", list{1, 2, 3}},
                  {"x", std::string(45, 'X')}})
            .has_value();
    });
    kv::record now = *stored(db, K(1));
    CHECK(*now.get("s") == value(std::string(90, 'S')));
    CHECK(*now.get("x") == value(std::string(45, 'X')));
    // Shorter strings: written into the stored ones' storage.
    fail_each_allocation(db, K(1), [](sim::cluster& c) {
        return c.put(K(1), {{"a", std::string(20, 'b')}, {"s", std::string(30, 'c')}}).has_value();
    });
    CHECK(*stored(db, K(1))->get("s") == value(std::string(30, 'c')));
}

TEST_CASE("a record a failed command would create does not exist") {
    sim::cluster db;
    fail_each_allocation(db, K(2), [](sim::cluster& c) {
        return c
            .operate(K(2),
                     {kv::op::write("a", std::string(40, 'a')),
                      kv::op::cdt("m", mo::put_items(entries(50)))})
            .has_value();
    });
    CHECK(stored(db, K(2))->get("m")->as_map().size() == 50);
}

} // namespace sim_alloc_failure_test
