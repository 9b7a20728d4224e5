// Unit tests for kvmodel/cdt/hll_ops.hpp: the sketch bytes, the hash, the
// estimators, every op's flags and error statuses, and the relations between
// ops (union, fold, intersect, may_contain).
//
// Expected values: the murmur, sketch, count, union, intersection and
// similarity tables below were produced by the 8.1.2 server's own functions
// (as/src/base/particle_hll.c's hmh_* and aerospike-common's
// murmurHash3_x64_128, compiled on their own as a local oracle, x86-64, not
// committed), fed the elements' client msgpack encodings. The one-element
// sketch is also worked out by hand below. The status rules follow the
// server's hll_modify / hll_read order (read in its source, not probed: no
// server ran while these were written).
#include <kvmodel/adapters/detail/aerospike_wire.hpp>
#include <kvmodel/cdt/detail/hll_engine.hpp> // the hash, for its known answers
#include <kvmodel/cdt/hll_ops.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace cdt_hll_ops_test {

using namespace kvmodel;
using namespace kvmodel::cdt;
namespace ho = kvmodel::cdt::hll_ops;

namespace {

constexpr std::uint64_t CREATE_ONLY = hll_write_flags::create_only;
constexpr std::uint64_t UPDATE_ONLY = hll_write_flags::update_only;
constexpr std::uint64_t NO_FAIL = hll_write_flags::no_fail;
constexpr std::uint64_t ALLOW_FOLD = hll_write_flags::allow_fold;

value elem(bool str, long k) {
    if (!str)
        return value(static_cast<std::int64_t>(k));
    // Not "user-" + to_string(k): GCC 12's -Wrestrict false positive at -O3.
    std::string s = "user-";
    s += std::to_string(k);
    return value(std::move(s));
}
std::vector<value> elems(bool str, long from, long to) {
    std::vector<value> v;
    for (long k = from; k < to; ++k)
        v.push_back(elem(str, k));
    return v;
}
/// A sketch with the given bits holding elements [from, to), added in
/// batches as a client would.
bytes sketch_of(int i, int m, bool str, long from, long to) {
    std::optional<value> bin;
    REQUIRE(apply_hll_op(bin, ho::hll_init_mh(i, m)));
    for (long k = from; k < to; k += 1000) {
        long e = std::min(to, k + 1000);
        REQUIRE(apply_hll_op(bin, ho::hll_add(elems(str, k, e), -1)));
    }
    return bin->as_bytes();
}
std::uint64_t fnv1a(const bytes& b) {
    std::uint64_t h = 1469598103934665603ULL;
    for (std::uint8_t x : b) {
        h ^= x;
        h *= 1099511628211ULL;
    }
    return h;
}
std::string hex(const bytes& b) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (std::uint8_t x : b) {
        s += d[x >> 4];
        s += d[x & 15];
    }
    return s;
}
std::int64_t int_of(const result<value>& r) {
    REQUIRE(r);
    REQUIRE(r.value().is_int());
    return r.value().as_int();
}

/// Applies o to a copy of bin; checks that a failure leaves it unchanged and
/// returns the status.
status status_of(const std::optional<value>& bin, const hll_op& o) {
    std::optional<value> work = bin;
    result<value> r = apply_hll_op(work, o);
    if (r)
        return status::ok;
    CHECK(work == bin);
    CHECK(r.error().message.find(std::string(hll_op_name(o.code))) != std::string::npos);
    return r.error().code;
}

} // namespace

TEST_CASE("MurmurHash3 x64_128 of element encodings", "[cdt][hll_ops]") {
    struct kat {
        value v;
        std::uint64_t h1, h2;
    };
    const std::vector<kat> kats = {
        {value(std::int64_t{0}), 0x4610abe56eff5cb5ULL, 0x51622daa78f83583ULL},
        {value(std::int64_t{1}), 0x7ace5c908374fe16ULL, 0x778867e4430e6785ULL},
        {value(std::int64_t{-1}), 0x47da3778a4e290ecULL, 0xfa2f17143880ce2eULL},
        {value(std::int64_t{300}), 0x91810df1abfc2849ULL, 0xad57e2b8dd4ab747ULL},
        {value(std::string("a")), 0x8d15ae180c40a275ULL, 0x0e22c7dd0fe0da88ULL},
        {value(std::string("user-12345678901")), 0x00b98bb3608f2e65ULL, 0x0a6474d4aa4844aaULL},
        {value(std::string(40, 'x')), 0x8eefb4780efb5c65ULL, 0x966d1e8fcbd854afULL},
        {value(1.5), 0x930947b00dc1962fULL, 0x1d00a0f3d08e2090ULL},
    };
    for (const kat& k : kats) {
        const bytes e = adapters::detail::encode_msgpack(k.v);
        const auto h = kvmodel::cdt::detail::hll::murmur3_x64_128(e.data(), e.size());
        CHECK(h[0] == k.h1);
        CHECK(h[1] == k.h2);
    }
}

TEST_CASE("one element, worked by hand", "[cdt][hll_ops]") {
    // Element 0 encodes as msgpack 0x00; its hash is h1 = 0x4610abe56eff5cb5,
    // h2 = 0x51622daa78f83583. With 4 index bits: register h1 & 15 = 5; h2 is
    // odd, so the HLL value is 0 trailing zeros + 1 = 1. Register 5 holds
    // bits 30..35 of the 12 register bytes (16 x 6 bits): 000001 puts the one
    // set bit at bit 35, the fourth bit of register byte 4: 0x10.
    std::optional<value> bin;
    CHECK(int_of(apply_hll_op(bin, ho::hll_add({value(std::int64_t{0})}, 4))) == 1);
    CHECK(hex(bin->as_bytes()) == "00"
                                  "04"
                                  "00"
                                  "0000000000000000"
                                  "000000001000000000000000");
    CHECK(int_of(apply_hll_op(bin, ho::hll_get_count())) == 1);
    // The same element again changes nothing.
    CHECK(int_of(apply_hll_op(bin, ho::hll_add({value(std::int64_t{0})}, 4))) == 0);
    result<value> d = apply_hll_op(bin, ho::hll_describe());
    REQUIRE(d);
    CHECK(d.value() == value(list{value(std::int64_t{4}), value(std::int64_t{0})}));
}

TEST_CASE("sketch bytes and counts match the server's", "[cdt][hll_ops]") {
    struct kat {
        int i, m;
        bool str;
        long n;
        std::uint64_t count, fnv;
        const char* hex;
    };
    const std::vector<kat> kats = {
        {4,
         0,
         false,
         1,
         1ULL,
         0xaecfa90ae57ae325ULL,
         "0004000000000000000000000000001000000000000000"},
        {4,
         0,
         false,
         3,
         3ULL,
         0x2cb6cc802e782c25ULL,
         "0004000000000000000000000040001040000000000000"},
        {4,
         0,
         true,
         100,
         95ULL,
         0xae1d8289ba24e0eaULL,
         "00040000000000000000000c31021021050c2106104087"},
        {4,
         4,
         false,
         5,
         5ULL,
         0xa7904ae835a3c3e8ULL,
         "00040400000000000000000000007c000001b0440000035000000001200000"},
        {5, 51, true, 10, 11ULL, 0x028df1174b1984a7ULL, ""},
        {8, 0, false, 1000, 1037ULL, 0x34c3cae5e0914a8aULL, ""},
        {10, 6, true, 1000, 1018ULL, 0x65b83919cbde0043ULL, ""},
        {12, 12, false, 10000, 9991ULL, 0x3b53ed858200f828ULL, ""},
        {14, 0, true, 50000, 49938ULL, 0x7e95ddd4a11ba440ULL, ""},
        {16, 0, false, 100000, 99892ULL, 0x166777cb0833d11aULL, ""},
        {16, 48, true, 20000, 19925ULL, 0xbc9d240da9ad5b74ULL, ""},
        {11, 0, false, 0, 0ULL, 0x4e1fc22fbbef2ca2ULL, ""},
        {13, 20, false, 300, 297ULL, 0x55a84f5264d55165ULL, ""},
    };
    for (const kat& k : kats) {
        CAPTURE(k.i, k.m, k.str, k.n);
        const bytes s = sketch_of(k.i, k.m, k.str, 0, k.n);
        CHECK(s.size() ==
              11 + ((6 + static_cast<std::size_t>(k.m)) * (std::size_t{1} << k.i) + 7) / 8);
        CHECK(fnv1a(s) == k.fnv);
        if (*k.hex)
            CHECK(hex(s) == k.hex);
        std::optional<value> bin = value(s);
        CHECK(static_cast<std::uint64_t>(int_of(apply_hll_op(bin, ho::hll_get_count()))) ==
              k.count);
    }
}

TEST_CASE("union, intersection and similarity match the server's", "[cdt][hll_ops]") {
    // A = [0, n), B = [n/2, 3n/2); the server's operand order is the op's
    // sketches, then the bin: bin B, sketches [A].
    struct kat {
        int i0, m0, i1, m1;
        bool str;
        long n;
        std::uint64_t uni, inter;
        double sim;
    };
    const std::vector<kat> kats = {
        {8, 0, 8, 0, false, 1000, 1567ULL, 530ULL, 0.33822590938098279},
        {12, 0, 10, 0, true, 20000, 28178ULL, 10003ULL, 0.35499325715096886},
        {10, 16, 10, 16, false, 5000, 7280ULL, 2382ULL, 0.32714584563137933},
        // Equal minhash bits, different index bits: the minhash values are
        // taken from different hash bits, so no register ever matches (the
        // server's answer too).
        {14, 20, 12, 20, true, 20000, 30011ULL, 0ULL, 0},
        {12, 20, 12, 0, false, 5000, 7568ULL, 2510ULL, 0.33165961945031713},
        {4, 4, 4, 4, false, 10, 16ULL, 4ULL, 0.26654487791798603},
        {16, 16, 14, 16, false, 100000, 150492ULL, 0ULL, 0},
    };
    for (const kat& k : kats) {
        CAPTURE(k.i0, k.m0, k.i1, k.m1, k.n);
        const bytes a = sketch_of(k.i0, k.m0, k.str, 0, k.n);
        std::optional<value> bin = value(sketch_of(k.i1, k.m1, k.str, k.n / 2, 3 * k.n / 2));
        CHECK(static_cast<std::uint64_t>(int_of(apply_hll_op(bin, ho::hll_get_union_count({a})))) ==
              k.uni);
        CHECK(static_cast<std::uint64_t>(
                  int_of(apply_hll_op(bin, ho::hll_get_intersect_count({a})))) == k.inter);
        result<value> s = apply_hll_op(bin, ho::hll_get_similarity({a}));
        REQUIRE(s);
        REQUIRE(s.value().is_double());
        CHECK(s.value().as_double() == k.sim);
    }
    struct kat3 {
        int i, m;
        long n;
        std::uint64_t uni, inter;
        double sim;
    };
    // A = [0, n), B = [n/3, 4n/3), C = [2n/3, 5n/3): bin C, sketches [A, B].
    const std::vector<kat3> kats3 = {
        {12, 0, 9000, 14758ULL, 3016ULL, 0.20436373492343135},
        {12, 16, 9000, 14758ULL, 2938ULL, 0.19909502262443438},
        {10, 0, 300, 484ULL, 94ULL, 0.19421487603305784},
    };
    for (const kat3& k : kats3) {
        CAPTURE(k.i, k.m, k.n);
        const bytes a = sketch_of(k.i, k.m, false, 0, k.n);
        const bytes b = sketch_of(k.i, k.m, false, k.n / 3, 4 * k.n / 3);
        std::optional<value> bin = value(sketch_of(k.i, k.m, false, 2 * k.n / 3, 5 * k.n / 3));
        CHECK(static_cast<std::uint64_t>(
                  int_of(apply_hll_op(bin, ho::hll_get_union_count({a, b})))) == k.uni);
        CHECK(static_cast<std::uint64_t>(
                  int_of(apply_hll_op(bin, ho::hll_get_intersect_count({a, b})))) == k.inter);
        result<value> s = apply_hll_op(bin, ho::hll_get_similarity({a, b}));
        REQUIRE(s);
        CHECK(s.value().as_double() == k.sim);
    }
}

TEST_CASE("the cached count", "[cdt][hll_ops]") {
    std::optional<value> bin = value(sketch_of(10, 0, false, 0, 5000));
    const std::int64_t c = int_of(apply_hll_op(bin, ho::hll_get_count()));
    CHECK(int_of(apply_hll_op(bin, ho::hll_refresh_count())) == c);
    // Bytes 3..10 hold the count, little-endian.
    const bytes& s = bin->as_bytes();
    std::uint64_t cached = 0;
    for (std::size_t k = 8; k > 0; --k)
        cached = (cached << 8) | s[2 + k];
    CHECK(cached == static_cast<std::uint64_t>(c));
    // An add that changes no register keeps the cache; one that does clears it.
    CHECK(int_of(apply_hll_op(bin, ho::hll_add(elems(false, 0, 10), -1))) == 0);
    CHECK(bin->as_bytes() == s);
    bytes before = bin->as_bytes();
    long k = 5000;
    while (int_of(apply_hll_op(bin, ho::hll_add({elem(false, k)}, -1))) == 0)
        ++k;
    for (int b = 3; b < 11; ++b)
        CHECK(bin->as_bytes()[static_cast<std::size_t>(b)] == 0);
    // get_count answers from a cache even when the registers say otherwise
    // (the server trusts it, e.g. in a sketch a client sends).
    bytes forged = before;
    forged[3] = 7;
    for (int b = 4; b < 11; ++b)
        forged[static_cast<std::size_t>(b)] = 0;
    std::optional<value> f = value(forged);
    CHECK(int_of(apply_hll_op(f, ho::hll_get_count())) == 7);
}

TEST_CASE("relations between ops", "[cdt][hll_ops]") {
    std::mt19937_64 rng(Catch::rngSeed());
    for (int round = 0; round < 20; ++round) {
        const int i = 4 + static_cast<int>(rng() % 13);
        const int m = rng() % 2 ? 0 : std::min(4 + static_cast<int>(rng() % 48), 64 - i);
        const long n = static_cast<long>(rng() % 3000);
        const long off = static_cast<long>(rng() % 3000);
        CAPTURE(i, m, n, off);
        const bytes a = sketch_of(i, m, false, 0, n);
        const bytes b = sketch_of(i, m, false, off, off + n);
        // set_union into a equals get_union of a and b, and adding b's
        // elements into a.
        std::optional<value> u = value(a);
        REQUIRE(apply_hll_op(u, ho::hll_set_union({b})));
        std::optional<value> ga = value(a);
        result<value> gu = apply_hll_op(ga, ho::hll_get_union({b}));
        REQUIRE(gu);
        CHECK(gu.value() == *u);
        std::optional<value> direct = value(a);
        if (n > 0)
            REQUIRE(apply_hll_op(direct, ho::hll_add(elems(false, off, off + n), -1)));
        CHECK(*direct == *u);
        // Union counts at least each count; intersect at most the smaller.
        std::optional<value> bb = value(b);
        const std::int64_t ca = int_of(apply_hll_op(ga, ho::hll_get_count()));
        const std::int64_t cb = int_of(apply_hll_op(bb, ho::hll_get_count()));
        const std::int64_t cu = int_of(apply_hll_op(bb, ho::hll_get_union_count({a})));
        CHECK(cu >= std::max(ca, cb));
        CHECK(cu == int_of(apply_hll_op(u, ho::hll_get_count())));
        // Every added element may be contained.
        if (n > 0)
            CHECK(int_of(apply_hll_op(ga, ho::hll_may_contain(elems(false, 0, n)))) == 1);
        // Folding equals building with fewer index bits.
        if (m == 0 && i > 4) {
            const int to = 4 + static_cast<int>(rng() % static_cast<unsigned>(i - 4));
            std::optional<value> fa = value(a);
            REQUIRE(apply_hll_op(fa, ho::hll_fold(to)));
            CHECK(fa->as_bytes() == sketch_of(to, 0, false, 0, n));
        }
    }
}

TEST_CASE("estimates on 1e5 random elements stay within the error bound", "[cdt][hll_ops]") {
    std::mt19937_64 rng(Catch::rngSeed());
    for (int i : {10, 14, 16}) {
        std::optional<value> bin;
        REQUIRE(apply_hll_op(bin, ho::hll_init_mh(i, 0)));
        std::vector<value> batch;
        for (int k = 0; k < 100000; ++k) {
            batch.push_back(value(static_cast<std::int64_t>(rng())));
            if (batch.size() == 5000) {
                REQUIRE(apply_hll_op(bin, ho::hll_add(batch, -1)));
                batch.clear();
            }
        }
        const double est = static_cast<double>(int_of(apply_hll_op(bin, ho::hll_get_count())));
        // 4 standard errors of HyperLogLog (1.04 / sqrt(m)).
        const double bound = 4 * 1.04 / std::sqrt(static_cast<double>(1 << i));
        CAPTURE(i, est);
        CHECK(std::abs(est - 1e5) / 1e5 < bound);
    }
}

TEST_CASE("flags", "[cdt][hll_ops]") {
    const std::optional<value> none;
    const std::optional<value> some = value(sketch_of(8, 0, false, 0, 10));
    // init: CREATE_ONLY / UPDATE_ONLY / NO_FAIL.
    CHECK(status_of(some, ho::hll_init(8, {CREATE_ONLY})) == status::bin_exists_error);
    CHECK(status_of(none, ho::hll_init(8, {UPDATE_ONLY})) == status::bin_not_found);
    std::optional<value> b = some;
    result<value> r = apply_hll_op(b, ho::hll_init(8, {CREATE_ONLY | NO_FAIL}));
    REQUIRE(r);
    CHECK(r.value().is_nil());
    CHECK(b == some);
    b = none;
    REQUIRE(apply_hll_op(b, ho::hll_init(8, {UPDATE_ONLY | NO_FAIL})));
    CHECK(!b);
    CHECK(status_of(none, ho::hll_init(8, {CREATE_ONLY | UPDATE_ONLY})) == status::parameter_error);
    // add takes CREATE_ONLY and NO_FAIL only; set_union also ALLOW_FOLD and
    // UPDATE_ONLY; init no ALLOW_FOLD.
    CHECK(status_of(some, ho::hll_add({value(std::int64_t{1})}, 8, {UPDATE_ONLY})) ==
          status::parameter_error);
    CHECK(status_of(some, ho::hll_init(8, {ALLOW_FOLD})) == status::parameter_error);
    CHECK(status_of(some, ho::hll_add({value(std::int64_t{1})}, 8, {CREATE_ONLY})) ==
          status::bin_exists_error);
    CHECK(status_of(some, ho::hll_set_union({some->as_bytes()}, {16})) == status::parameter_error);
    // init resets: -1 keeps the bin's bits.
    b = some;
    REQUIRE(apply_hll_op(b, ho::hll_init(-1)));
    CHECK(b->as_bytes() == sketch_of(8, 0, false, 0, 0));
    REQUIRE(apply_hll_op(b, ho::hll_init_mh(10, 20)));
    b = value(sketch_of(10, 20, false, 0, 0));
    REQUIRE(apply_hll_op(b, ho::hll_init_mh(-1, -1)));
    CHECK(b->as_bytes() == sketch_of(10, 20, false, 0, 0));
}

TEST_CASE("set_union folds only with ALLOW_FOLD", "[cdt][hll_ops]") {
    const bytes small = sketch_of(8, 0, false, 0, 500);
    const bytes mh = sketch_of(12, 16, false, 0, 500);
    const std::optional<value> big = value(sketch_of(12, 0, false, 250, 750));
    CHECK(status_of(big, ho::hll_set_union({small})) == status::op_not_applicable);
    std::optional<value> b = big;
    REQUIRE(apply_hll_op(b, ho::hll_set_union({small}, {ALLOW_FOLD})));
    CHECK(b->as_bytes() == sketch_of(8, 0, false, 0, 750));
    // A bin with minhash bits cannot lose them without ALLOW_FOLD.
    const std::optional<value> bmh = value(mh);
    CHECK(status_of(bmh, ho::hll_set_union({sketch_of(12, 0, false, 0, 1)})) ==
          status::op_not_applicable);
    b = bmh;
    REQUIRE(apply_hll_op(b, ho::hll_set_union({sketch_of(12, 0, false, 0, 1)}, {ALLOW_FOLD})));
    CHECK(b->as_bytes()[2] == 0);
    // A new bin takes the smallest index bits and the common minhash bits.
    std::optional<value> fresh;
    REQUIRE(apply_hll_op(fresh, ho::hll_set_union({mh, sketch_of(14, 16, false, 0, 3)})));
    CHECK(fresh->as_bytes()[1] == 12);
    CHECK(fresh->as_bytes()[2] == 16);
}

TEST_CASE("bad input: a status each, the bin unchanged", "[cdt][hll_ops]") {
    const std::optional<value> none;
    const bytes s8 = sketch_of(8, 0, false, 0, 10);
    const std::optional<value> some = value(s8);
    const std::optional<value> str = value(std::string("not an hll"));
    const std::optional<value> blob = value(bytes{1, 2, 3});
    const std::vector<value> one = {value(std::int64_t{1})};

    SECTION("bit counts") {
        CHECK(status_of(none, ho::hll_init(3)) == status::parameter_error);
        CHECK(status_of(none, ho::hll_init(17)) == status::parameter_error);
        CHECK(status_of(none, ho::hll_init(-2)) == status::parameter_error);
        CHECK(status_of(none, ho::hll_init_mh(8, 3)) == status::parameter_error);
        CHECK(status_of(none, ho::hll_init_mh(8, 52)) == status::parameter_error);
        CHECK(status_of(none, ho::hll_init_mh(16, 49)) == status::parameter_error);
        CHECK(status_of(none, ho::hll_init_mh(16, 48)) == status::ok);
        CHECK(status_of(none, ho::hll_init_mh(4, 51)) == status::ok);
        CHECK(status_of(none, ho::hll_add(one, 17)) == status::parameter_error);
        CHECK(status_of(some, ho::hll_fold(3)) == status::parameter_error);
        // Unset index bits cannot create a bin.
        CHECK(status_of(none, ho::hll_init(-1)) == status::op_not_applicable);
        CHECK(status_of(none, ho::hll_update(one)) == status::op_not_applicable);
        // -1 index bits keep the bin's; then the minhash bits must fit.
        const std::optional<value> s16 = value(sketch_of(16, 0, false, 0, 1));
        CHECK(status_of(s16, ho::hll_init_mh(-1, 49)) == status::op_not_applicable);
    }
    SECTION("elements and sketches") {
        CHECK(status_of(some, ho::hll_add({}, 8)) == status::parameter_error);
        CHECK(status_of(some, ho::hll_add({value(list{})}, 8)) == status::parameter_error);
        CHECK(status_of(some, ho::hll_may_contain({value(map{})})) == status::parameter_error);
        CHECK(status_of(some, ho::hll_set_union({})) == status::parameter_error);
        bytes bad = s8;
        bad.pop_back();
        CHECK(status_of(some, ho::hll_set_union({bad})) == status::parameter_error);
        bad = s8;
        bad[0] = 1;
        CHECK(status_of(some, ho::hll_get_union_count({bad})) == status::parameter_error);
        bad = s8;
        bad[1] = 17;
        CHECK(status_of(some, ho::hll_get_union({bad})) == status::parameter_error);
        CHECK(status_of(some, ho::hll_get_similarity({bytes(5, 0)})) == status::parameter_error);
        // Three or more sketches need one common, non-zero minhash count.
        const bytes m8 = sketch_of(8, 8, false, 0, 10);
        const bytes m9 = sketch_of(8, 9, false, 0, 10);
        CHECK(status_of(some, ho::hll_get_intersect_count({m8, m9, m8})) ==
              status::parameter_error);
        CHECK(status_of(some, ho::hll_get_intersect_count({s8, s8, s8})) ==
              status::parameter_error);
        CHECK(status_of(some, ho::hll_get_similarity({m8, m8, m8})) == status::op_not_applicable);
        const std::optional<value> bm8 = value(m8);
        CHECK(status_of(bm8, ho::hll_get_similarity({m8, m8, m8})) == status::ok);
        // Two sketches of any bits are fine.
        CHECK(status_of(some, ho::hll_get_intersect_count({m8, s8})) == status::ok);
    }
    SECTION("the bin") {
        CHECK(status_of(str, ho::hll_add(one, 8)) == status::bin_type_error);
        CHECK(status_of(str, ho::hll_get_count()) == status::bin_type_error);
        CHECK(status_of(blob, ho::hll_describe()) == status::bin_type_error);
        // The bin's type is checked before the arguments.
        CHECK(status_of(str, ho::hll_init(99)) == status::bin_type_error);
        CHECK(status_of(none, ho::hll_refresh_count()) == status::bin_not_found);
        CHECK(status_of(none, ho::hll_fold(4)) == status::bin_not_found);
        const std::optional<value> mh = value(sketch_of(8, 8, false, 0, 1));
        CHECK(status_of(mh, ho::hll_fold(4)) == status::op_not_applicable);
        CHECK(status_of(some, ho::hll_fold(9)) == status::op_not_applicable);
        CHECK(status_of(some, ho::hll_fold(-1)) == status::op_not_applicable);
        // Reads of a missing bin are nil, whatever their arguments.
        std::optional<value> b;
        result<value> r = apply_hll_op(b, ho::hll_get_union({bytes(3, 0)}));
        REQUIRE(r);
        CHECK(r.value().is_nil());
    }
    SECTION("argument counts (as an expression may send them)") {
        hll_op o = ho::hll_get_count();
        o.n_args = 1;
        CHECK(status_of(some, o) == status::parameter_error);
        o = ho::hll_add(one, 8);
        o.n_args = 5;
        CHECK(status_of(some, o) == status::parameter_error);
        o.n_args = 1; // elements only: fine on an existing bin
        CHECK(status_of(some, o) == status::ok);
        o = ho::hll_init(8);
        o.n_args = 0; // no arguments: resets an existing bin
        CHECK(status_of(some, o) == status::ok);
        CHECK(status_of(none, o) == status::op_not_applicable);
    }
}

TEST_CASE("op names round-trip", "[cdt][hll_ops]") {
    for (hll_op_code c : all_hll_op_codes)
        CHECK(hll_op_from_name(hll_op_name(c)) == c);
    CHECK(!hll_op_from_name("hll_nope"));
    CHECK(is_hll_read(hll_op_code::hll_describe));
    CHECK(!is_hll_read(hll_op_code::hll_fold));
}

} // namespace cdt_hll_ops_test
