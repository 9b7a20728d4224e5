// Tests for kvmodel/kv/digest.hpp: Aerospike's digests against the known
// answers published in Aerospike's client test suites
// (aerospike-client-go key_test.go, aerospike-client-python
// test_calc_digest.py: namespace "namespace", set "set"), the partition id
// formula, and the agreement of the two RIPEMD-160 paths.
#include <kvmodel/kv/digest.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace kv_digest_test {

using namespace kvmodel;
using kv::compute_digest;
using kv::to_hex;

namespace {
kv::digest bytes_digest(const std::string& set, const std::string& chars) {
    std::vector<std::uint8_t> b(chars.begin(), chars.end());
    return compute_digest(set, kv::key_type::bytes, b);
}
} // namespace

TEST_CASE("integer key digests match the clients' known answers", "[kv][digest]") {
    struct kat {
        std::int64_t key;
        const char* hex;
    };
    const kat cases[] = {
        {-1, "22116d253745e29fc63fdf760b6e26f7e197e01d"},
        {0, "93d943aae37b017ad7e011b0c1d2e2143c2fb37d"},
        {1, "82d7213b469812947c109a6d341e3b5b1dedec1f"},
        // 8-bit boundaries
        {-128, "93191e549f8f3548d7e2cfc958ddc8c65bcbe4c6"},
        {127, "a58f7d98bf60e10fe369c82030b1c9dee053def9"},
        {255, "5a7dd3ea237c30c8735b051524e66fd401a10f6a"},
        // 16-bit boundaries
        {-32768, "7f41e9dd1f3fe3694be0430e04c8bfc7d51ec2af"},
        {32767, "309fc9c2619c4f65ff7f4cd82085c3ee7a31fc7c"},
        {65535, "3f0dd44352749a9fd5b7ec44213441ef54c46d57"},
        // 32-bit boundaries
        {-2147483648LL, "d635a867b755f8f54cdc6275e6fb437df82a728c"},
        {2147483647LL, "fa8c47b8b898af1bbcb20af0d729ca68359a2645"},
        {4294967295LL, "2cdf52bf5641027042b9cf9a499e509a58b330e2"},
        // 64-bit boundaries
        {std::numeric_limits<std::int64_t>::min(), "7185c2a47fb02c996daed26b4e01b83240aee9d4"},
        {std::numeric_limits<std::int64_t>::max(), "1698328974afa62c8e069860c1516f780d63dbb8"},
    };
    for (const kat& c : cases) {
        INFO("key " << c.key);
        CHECK(to_hex(compute_digest("set", c.key)) == c.hex);
    }
}

TEST_CASE("string key digests match the clients' known answers", "[kv][digest]") {
    CHECK(to_hex(compute_digest("set", std::string_view(""))) ==
          "2819b1ff6e346a43b4f5f6b77a88bc3eaac22a83");
    CHECK(to_hex(compute_digest("set", std::string_view("s"))) ==
          "607cddba7cd111745ef0a3d783d57f0e83c8f311");
    CHECK(to_hex(compute_digest("set", std::string(10, 'a'))) ==
          "5979fb32a80da070ff356f7695455592272e36c2");
    CHECK(to_hex(compute_digest("set", std::string(100, 'm'))) ==
          "f00ad7dbcb4bd8122d9681bca49b8c2ffd4beeed");
    CHECK(to_hex(compute_digest("set", std::string(1000, 't'))) ==
          "07ac412d4c33b8628ab147b8db244ce44ae527f8");
    CHECK(to_hex(compute_digest("set", std::string(10000, '-'))) ==
          "b42e64afbfccb05912a609179228d9249ea1c1a0");
    CHECK(to_hex(compute_digest("set", std::string(100000, '+'))) ==
          "0a3e888c20bb8958537ddd4ba835e4070bd51740");
}

TEST_CASE("bytes key digests match the clients' known answers", "[kv][digest]") {
    CHECK(to_hex(bytes_digest("set", "")) == "327e2877b8815c7aeede0d5a8620d4ef8df4a4b4");
    CHECK(to_hex(bytes_digest("set", "s")) == "ca2d96dc9a184d15a7fa2927565e844e9254e001");
    CHECK(to_hex(bytes_digest("set", std::string(10, 'a'))) ==
          "d10982327b2b04c7360579f252e164a75f83cd99");
    CHECK(to_hex(bytes_digest("set", std::string(100, 'm'))) ==
          "475786aa4ee664532a7d1ea69cb02e4695fcdeed");
    CHECK(to_hex(bytes_digest("set", std::string(1000, 't'))) ==
          "5a32b507518a49bf47fdaa3deca53803f5b2e8c3");
    CHECK(to_hex(bytes_digest("set", std::string(10000, '-'))) ==
          "ed65c63f7a1f8c6697eb3894b6409a95461fd982");
    CHECK(to_hex(bytes_digest("set", std::string(100000, '+'))) ==
          "fe19770c371774ba1a1532438d4851b8a773a9e6");
}

TEST_CASE("an empty set name contributes nothing to the digest", "[kv][digest]") {
    // aerospike-client-python test_calculating_a_digest_with_no_set.
    CHECK(to_hex(compute_digest("", std::int64_t{1})) ==
          "a443f05d05d962202b59abb402afae1737dbf66a");
    // The type byte separates a string key from a blob with the same bytes.
    CHECK(compute_digest("set", std::string_view("s")) != bytes_digest("set", "s"));
}

TEST_CASE("partition id is the low 12 bits of the first two digest bytes", "[kv][digest]") {
    // 22 11 ... -> 0x1122 & 0xfff = 0x122
    CHECK(kv::partition_id(compute_digest("set", std::int64_t{-1})) == 0x122U);
    // 93 d9 ... -> 0xd993 & 0xfff = 0x993
    CHECK(kv::partition_id(compute_digest("set", std::int64_t{0})) == 0x993U);
    // 7f 41 ... -> 0x417f & 0xfff = 0x17f
    CHECK(kv::partition_id(compute_digest("set", std::int64_t{-32768})) == 0x17fU);
    kv::digest d{};
    d[0] = 0xff;
    d[1] = 0xff;
    CHECK(kv::partition_id(d) == 4095U);
    d[1] = 0xf0;
    CHECK(kv::partition_id(d) == 0xffU);
}

TEST_CASE("digest hex round-trips and rejects malformed input", "[kv][digest]") {
    kv::digest d = compute_digest("set", std::string_view("user-1"));
    auto back = kv::digest_from_hex(to_hex(d));
    REQUIRE(back);
    CHECK(*back == d);
    std::string upper = to_hex(d);
    for (char& c : upper)
        if (c >= 'a' && c <= 'f')
            c = static_cast<char>(c - 'a' + 'A');
    CHECK(kv::digest_from_hex(upper) == d);
    CHECK_FALSE(kv::digest_from_hex(""));
    CHECK_FALSE(kv::digest_from_hex(std::string(39, '0')));
    CHECK_FALSE(kv::digest_from_hex(std::string(41, '0')));
    CHECK_FALSE(kv::digest_from_hex(std::string(38, '0') + "0g"));
}

TEST_CASE("the EVP path and the RIPEMD160 path agree", "[kv][digest]") {
    std::mt19937_64 rng(Catch::rngSeed());
    for (int i = 0; i < 200; ++i) {
        std::vector<std::uint8_t> a(rng() % 70), b(rng() % 300);
        for (auto& x : a)
            x = static_cast<std::uint8_t>(rng());
        for (auto& x : b)
            x = static_cast<std::uint8_t>(rng());
        const std::span<const std::uint8_t> parts[] = {a, b};
        kv::digest evp{};
        REQUIRE(kv::detail::ripemd160_evp(parts, evp));
        CHECK(evp == kv::detail::ripemd160(parts));
#if defined(KVMODEL_DETAIL_HAVE_RIPEMD160_LOW)
        CHECK(evp == kv::detail::ripemd160_low(parts));
#endif
    }
}

TEST_CASE("digest_hash spreads digests of one partition", "[kv][digest]") {
    kv::digest_hash h;
    kv::digest a = compute_digest("set", std::int64_t{1});
    kv::digest b = a;
    b[10] ^= 1;
    CHECK(h(a) != h(b));
}

} // namespace kv_digest_test
