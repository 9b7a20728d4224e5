// Tests of HLL inside expressions (exp/build.hpp's hll_* builders,
// exp/detail/hll.hpp): the C client's packing, the server's build checks,
// evaluation of every call, and the positional argument quirk of
// as_exp_hll_init. Expected values follow the server's exp.c (build_call,
// eval_call) and particle_hll.c; the counts are cdt::apply_hll_op's, which
// tests/cdt/hll_ops_test.cpp checks against the server's own functions.
// The reads, the init quirk, CREATE_ONLY / NO_FAIL on an existing sketch and
// bin_type were also sent to a real 8.1.2 server through the Aerospike
// adapter (a local probe, not in CI): the same answers, doubles included.
#include <kvmodel/cdt/hll_ops.hpp>
#include <kvmodel/exp/build.hpp>
#include <kvmodel/exp/eval.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace exp_hll_test {

using namespace kvmodel;
namespace e = kvmodel::exp;
namespace ho = kvmodel::cdt::hll_ops;

namespace {

struct rec {
    std::vector<std::pair<std::string, value>> bins;
    e::record_view view;
    rec() {
        view.find_bin = [](const void* c, std::string_view n) -> const value* {
            for (const auto& [name, v] : static_cast<const rec*>(c)->bins)
                if (name == n)
                    return &v;
            return nullptr;
        };
        view.bins_ctx = this;
        view.now_ms = 1'700'000'000'000;
    }
    rec(const rec&) = delete;
    rec& operator=(const rec&) = delete;
};

std::optional<value> run(const e::expr& x, const rec& r) {
    auto p = e::compile(x.packed());
    if (!p)
        FAIL("compile: " << p.error().message);
    return e::evaluate(*p, r.view);
}
std::string refused(const e::expr& x) {
    auto p = e::compile(x.packed());
    if (p)
        return "";
    CHECK(p.error().code == status::parameter_error);
    return p.error().message;
}
value users(int from, int to) {
    list l;
    for (int k = from; k < to; ++k) {
        // Not "u" + to_string(k): GCC 12's -Wrestrict false positive at -O3.
        std::string s = "u";
        s += std::to_string(k);
        l.push_back(value(std::move(s)));
    }
    return value(std::move(l));
}
bytes sketch(int from, int to, int index_bits = 10, int mh = 0) {
    std::optional<value> b;
    REQUIRE(cdt::apply_hll_op(
        b, ho::hll_add_mh(users(from, to).as_list().to_vector(), index_bits, mh)));
    return b->as_bytes();
}

} // namespace

TEST_CASE("HLL calls pack as the C client packs them", "[exp][hll]") {
    // as_exp_hll_get_count(as_exp_bin_hll("h")):
    // [call, INT, HLL, [COUNT], [bin, HLL, "h"]].
    const std::vector<std::uint8_t> want = {
        0x95, 0x7f, 0x02, 0x02, 0x91, 0x32, 0x93, 0x51, 0x09, 0xa1, 'h'};
    CHECK(e::hll_get_count(e::bin_hll("h")).bytes() == want);
    // as_exp_hll_init(NULL, 8, bin): two params, [INIT, 8, 0], modify-local.
    const std::vector<std::uint8_t> init = {
        0x95, 0x7f, 0x09, 0x42, 0x93, 0x00, 0x08, 0x00, 0x93, 0x51, 0x09, 0xa1, 'h'};
    CHECK(e::hll_init(nullptr, 8, e::bin_hll("h")).bytes() == init);
}

TEST_CASE("HLL reads in expressions", "[exp][hll]") {
    rec r;
    const bytes a = sketch(0, 800);
    const bytes b = sketch(400, 1200);
    r.bins = {{"h", value(a)}, {"s", value("text")}, {"blob", value(bytes{1, 2})}};
    std::optional<value> h = value(a);
    const auto expect = [&](const cdt::hll_op& o) {
        return cdt::apply_hll_op(h, o).value();
    };

    CHECK(run(e::hll_get_count(e::bin_hll("h")), r) == expect(ho::hll_get_count()));
    CHECK(run(e::hll_describe(e::bin_hll("h")), r) == expect(ho::hll_describe()));
    const value lb = value(list{value(b)});
    CHECK(run(e::hll_get_union_count(e::val(lb), e::bin_hll("h")), r) ==
          expect(ho::hll_get_union_count({b})));
    CHECK(run(e::hll_get_intersect_count(e::val(lb), e::bin_hll("h")), r) ==
          expect(ho::hll_get_intersect_count({b})));
    CHECK(run(e::hll_get_similarity(e::val(lb), e::bin_hll("h")), r) ==
          expect(ho::hll_get_similarity({b})));
    CHECK(run(e::hll_get_union(e::val(lb), e::bin_hll("h")), r) == expect(ho::hll_get_union({b})));
    // An HLL constant as the operand.
    std::optional<value> bv = value(b);
    CHECK(run(e::hll_get_count(e::hll_val(b)), r) ==
          cdt::apply_hll_op(bv, ho::hll_get_count()).value());
    CHECK(run(e::hll_may_contain(e::val(users(0, 10)), e::bin_hll("h")), r) ==
          value(std::int64_t{1}));
    // A filter: more than 700 unique users.
    CHECK(run(e::hll_get_count(e::bin_hll("h")) > 700, r) == value(true));
    // Unknown: a missing bin, a bin of another type, a failing op.
    CHECK(!run(e::hll_get_count(e::bin_hll("none")), r));
    CHECK(!run(e::hll_get_count(e::bin_hll("blob")), r));
    CHECK(!run(e::hll_get_union_count(e::val(value(list{})), e::bin_hll("h")), r));
    CHECK(!run(e::hll_may_contain(e::val(value(list{value(list{})})), e::bin_hll("h")), r));
}

TEST_CASE("HLL modify calls in expressions", "[exp][hll]") {
    rec r;
    r.bins = {{"h", value(sketch(0, 100))}};
    // The value is the modified sketch; the bin is not written.
    std::optional<value> want = r.bins[0].second;
    REQUIRE(cdt::apply_hll_op(want, ho::hll_add(users(100, 200).as_list().to_vector(), -1)));
    CHECK(run(e::hll_update(nullptr, e::val(users(100, 200)), e::bin_hll("h")), r) == want);
    CHECK(r.bins[0].second.as_bytes() == sketch(0, 100));
    // Counting what the modified sketch would hold.
    CHECK(run(e::hll_get_count(e::hll_update(nullptr, e::val(users(100, 200)), e::bin_hll("h"))),
              r) == cdt::apply_hll_op(want, ho::hll_get_count()).value());
    // A new sketch from nil.
    std::optional<value> fresh;
    REQUIRE(cdt::apply_hll_op(fresh, ho::hll_add(users(0, 5).as_list().to_vector(), 8)));
    CHECK(run(e::hll_add(nullptr, e::val(users(0, 5)), 8, e::nil()), r) == fresh);
    CHECK(run(e::hll_init_mh(nullptr, 12, 16, e::nil()), r) ==
          value(cdt::hll_empty_sketch(12, 16).value()));
    // as_exp_hll_init sends [index, flags]: the server reads the flags as the
    // minhash count. No policy: 0 minhash bits; CREATE_ONLY (1): out of range.
    CHECK(run(e::hll_init(nullptr, 10, e::nil()), r) ==
          value(cdt::hll_empty_sketch(10, 0).value()));
    const cdt::hll_policy create_only{cdt::hll_write_flags::create_only};
    CHECK(!run(e::hll_init(&create_only, 10, e::nil()), r));
    CHECK(run(e::hll_init_mh(&create_only, 10, 0, e::nil()), r) ==
          value(cdt::hll_empty_sketch(10, 0).value()));
    // CREATE_ONLY on an existing sketch fails: unknown.
    CHECK(!run(e::hll_init_mh(&create_only, 10, 0, e::bin_hll("h")), r));
    // NO_FAIL keeps the sketch as it was.
    const cdt::hll_policy quiet{cdt::hll_write_flags::create_only | cdt::hll_write_flags::no_fail};
    CHECK(run(e::hll_init_mh(&quiet, 10, 0, e::bin_hll("h")), r) == r.bins[0].second);
}

TEST_CASE("bin_type of an HLL bin is 18", "[exp][hll]") {
    rec r;
    r.bins = {{"h", value(sketch(0, 10))}, {"b", value(bytes{1, 2, 3})}};
    CHECK(run(e::bin_type("h"), r) == value(std::int64_t{18}));
    CHECK(run(e::bin_type("b"), r) == value(std::int64_t{4}));
}

TEST_CASE("HLL build checks", "[exp][hll]") {
    CHECK(refused(e::hll_get_count(e::bin_int("n"))).find("is not hll") != std::string::npos);
    CHECK(refused(e::hll_get_count(e::bin_list("l"))).find("is not hll") != std::string::npos);
    CHECK(refused(e::hll_get_count(e::bin_hll("h"))).empty());
    CHECK(refused(e::hll_get_count(e::nil())).empty());
    CHECK(refused(e::cmp_eq(e::bin_hll("a"), e::bin_hll("b"))).find("cannot compare") !=
          std::string::npos);
}

} // namespace exp_hll_test
