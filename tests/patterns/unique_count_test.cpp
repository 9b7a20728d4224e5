// Tests for kvmodel/patterns/unique_count.hpp on sim::cluster: add returns
// the count in one operate, union_count / rollup / overlap against the
// engine's own answers for the same sketches, missing periods, the bits.
#include <kvmodel/cdt/hll_ops.hpp>
#include <kvmodel/patterns/unique_count.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace patterns_unique_count_test {

using namespace kvmodel;
namespace ho = kvmodel::cdt::hll_ops;

namespace {

std::vector<value> members(int from, int to) {
    std::vector<value> v;
    for (int k = from; k < to; ++k)
        v.push_back(value(static_cast<std::int64_t>(k)));
    return v;
}
/// The sketch the pattern should hold for [from, to) at 14 bits.
bytes sketch(int from, int to, int index_bits = 14, int mh = 0) {
    std::optional<value> b;
    REQUIRE(cdt::apply_hll_op(b, ho::hll_add_mh(members(from, to), index_bits, mh)));
    return b->as_bytes();
}
std::int64_t count_of(const bytes& s, const cdt::hll_op& o) {
    std::optional<value> b = value(s);
    return cdt::apply_hll_op(b, o).value().as_int();
}

} // namespace

TEST_CASE("add counts in one operate; count reads; missing is 0", "[patterns][unique_count]") {
    sim::cluster db;
    patterns::unique_count<sim::cluster> u(db);
    const std::int64_t c = u.add("page", "d1", members(0, 2000)).value();
    CHECK(c == count_of(sketch(0, 2000), ho::hll_get_count()));
    CHECK(u.count("page", "d1").value() == c);
    CHECK(u.add("page", "d1", members(0, 2000)).value() == c); // nothing new
    CHECK(u.add("page", "d1", {}).value() == c);
    CHECK(u.count("page", "d2").value() == 0);
    CHECK(u.count("other", "d1").value() == 0);
    auto rec = db.get(u.key_of("page", "d1").value());
    REQUIRE(rec);
    CHECK(rec->get("hll")->as_bytes() == sketch(0, 2000));
}

TEST_CASE("union_count and rollup over periods", "[patterns][unique_count]") {
    sim::cluster db;
    patterns::unique_count<sim::cluster> u(db);
    REQUIRE(u.add("p", "d1", members(0, 1000)));
    REQUIRE(u.add("p", "d2", members(500, 1500)));
    REQUIRE(u.add("p", "d4", members(1400, 3000)));
    const std::vector<std::string> days = {"d1", "d2", "d3", "d4"};
    const std::int64_t want =
        count_of(sketch(0, 1000), ho::hll_get_union_count({sketch(500, 1500), sketch(1400, 3000)}));
    CHECK(u.union_count("p", days).value() == want);
    CHECK(u.union_count("p", {"d3"}).value() == 0);
    CHECK(u.union_count("p", {"d2"}).value() == u.count("p", "d2").value());
    CHECK(u.rollup("p", days, "w1").value() == want);
    CHECK(u.count("p", "w1").value() == want);
    // A rollup replaces what the target held.
    CHECK(u.rollup("p", {"d1"}, "w1").value() == u.count("p", "d1").value());
    CHECK(u.rollup("p", {"d9"}, "w1").value() == 0);
}

TEST_CASE("overlap of two audiences", "[patterns][unique_count]") {
    sim::cluster db;
    patterns::unique_count_options opt;
    opt.index_bits = 12;
    opt.minhash_bits = 16;
    patterns::unique_count<sim::cluster> u(db, opt);
    REQUIRE(u.add("a", "d", members(0, 3000)));
    REQUIRE(u.add("b", "d", members(2000, 5000)));
    const bytes a = sketch(0, 3000, 12, 16);
    const bytes b = sketch(2000, 5000, 12, 16);
    auto o = u.overlap("a", "d", "b", "d").value();
    CHECK(o.both == count_of(a, ho::hll_get_intersect_count({b})));
    CHECK(o.either == count_of(a, ho::hll_get_union_count({b})));
    std::optional<value> av = value(a);
    CHECK(o.similarity == cdt::apply_hll_op(av, ho::hll_get_similarity({b})).value().as_double());
    CHECK(o.both > 800);
    CHECK(o.both < 1200);
    auto none = u.overlap("a", "d", "c", "d").value();
    CHECK(none.both == 0);
    CHECK(none.either == 0);
}

TEST_CASE("bad bits fail with the server's status", "[patterns][unique_count]") {
    sim::cluster db;
    patterns::unique_count_options opt;
    opt.index_bits = 17;
    patterns::unique_count<sim::cluster> u(db, opt);
    auto r = u.add("p", "d", members(0, 3));
    REQUIRE(!r);
    CHECK(r.error().code == status::parameter_error);
    CHECK(u.count("p", "d").value() == 0);
}

} // namespace patterns_unique_count_test
