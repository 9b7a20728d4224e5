// Tests for kvmodel/kv/key.hpp: construction from each user key type, the
// digest computed at construction (known answers from Aerospike's client
// suites), validation through key::make, equality and hashing.
#include <kvmodel/kv/key.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_set>

namespace kv_key_test {

using namespace kvmodel;

TEST_CASE("keys of each user key type carry the Aerospike digest", "[kv][key]") {
    kv::key i("test", "set", 1);
    CHECK(kv::to_hex(i.digest()) == "82d7213b469812947c109a6d341e3b5b1dedec1f");
    CHECK(i.user_key() == value(1));
    CHECK(i.ns() == "test");
    CHECK(i.set() == "set");
    CHECK(i.has_set());

    kv::key zero("test", "set", 0); // 0 must pick the integer overload, not const char*
    CHECK(kv::to_hex(zero.digest()) == "93d943aae37b017ad7e011b0c1d2e2143c2fb37d");

    kv::key big("test", "set", std::numeric_limits<std::int64_t>::max());
    CHECK(kv::to_hex(big.digest()) == "1698328974afa62c8e069860c1516f780d63dbb8");

    kv::key s("test", "set", "s");
    CHECK(kv::to_hex(s.digest()) == "607cddba7cd111745ef0a3d783d57f0e83c8f311");
    CHECK(s.user_key()->is_string());

    kv::key b("test", "set", kvmodel::bytes{'s'});
    CHECK(kv::to_hex(b.digest()) == "ca2d96dc9a184d15a7fa2927565e844e9254e001");
    CHECK(b.user_key()->is_bytes());

    kv::key noset("test", "", 1);
    CHECK_FALSE(noset.has_set());
    CHECK(kv::to_hex(noset.digest()) == "a443f05d05d962202b59abb402afae1737dbf66a");
}

TEST_CASE("unsigned 64-bit keys are their two's-complement int64", "[kv][key]") {
    kv::key u("test", "set", std::numeric_limits<std::uint64_t>::max());
    kv::key m("test", "set", std::int64_t{-1});
    CHECK(u == m);
    CHECK(u.user_key() == value(std::int64_t{-1}));
}

TEST_CASE("a very long string key works", "[kv][key]") {
    kv::key k("test", "set", std::string(100000, '+'));
    CHECK(kv::to_hex(k.digest()) == "0a3e888c20bb8958537ddd4ba835e4070bd51740");
}

TEST_CASE("partition id comes from the digest", "[kv][key]") {
    kv::key k("test", "set", -1);
    CHECK(k.partition_id() == 0x122U);
    CHECK(k.partition_id() == kv::partition_id(k.digest()));
}

TEST_CASE("key::make accepts int, string and bytes and rejects other types", "[kv][key]") {
    auto i = kv::key::make("test", "set", value(127));
    REQUIRE(i);
    CHECK(kv::to_hex(i->digest()) == "a58f7d98bf60e10fe369c82030b1c9dee053def9");
    auto s = kv::key::make("test", "set", value("a"));
    REQUIRE(s);
    CHECK(*s == kv::key("test", "set", "a"));
    auto b = kv::key::make("test", "set", value(kvmodel::bytes{1, 2}));
    REQUIRE(b);
    CHECK(*b == kv::key("test", "set", kvmodel::bytes{1, 2}));

    for (const value& bad : {value(),
                             value(true),
                             value(1.5),
                             value(list{1, 2}),
                             value(map{{1, 2}}),
                             value(inf),
                             value(wildcard)}) {
        auto r = kv::key::make("test", "set", bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().code == status::parameter_error);
        CHECK_THAT(r.error().message, Catch::Contains("user key must be an integer"));
    }
}

TEST_CASE("key::make checks namespace and set name limits", "[kv][key]") {
    CHECK(kv::key::make(std::string(31, 'n'), std::string(63, 's'), value(1)));
    auto empty_ns = kv::key::make("", "set", value(1));
    REQUIRE_FALSE(empty_ns);
    CHECK(empty_ns.error().code == status::parameter_error);
    auto long_ns = kv::key::make(std::string(32, 'n'), "set", value(1));
    REQUIRE_FALSE(long_ns);
    CHECK_THAT(long_ns.error().message, Catch::Contains("32 bytes, max 31"));
    auto long_set = kv::key::make("test", std::string(64, 's'), value(1));
    REQUIRE_FALSE(long_set);
    CHECK_THAT(long_set.error().message, Catch::Contains("64 bytes, max 63"));
    // The typed constructors cannot fail; check() reports the same error.
    kv::key k("test", std::string(64, 's'), 1);
    CHECK(k.check().code() == status::parameter_error);
}

TEST_CASE("keys compare by namespace and digest", "[kv][key]") {
    CHECK(kv::key("test", "set", 1) == kv::key("test", "set", 1));
    CHECK_FALSE(kv::key("test", "set", 1) == kv::key("other", "set", 1));
    CHECK_FALSE(kv::key("test", "set", 1) == kv::key("test", "set2", 1));
    CHECK_FALSE(kv::key("test", "set", 1) == kv::key("test", "set", "1"));
    kv::key d = kv::key::from_digest("test", "set", kv::key("test", "set", 1).digest());
    CHECK(d == kv::key("test", "set", 1));
    CHECK_FALSE(d.user_key().has_value());
    CHECK(kv::to_string(d) == "test:set:82d7213b469812947c109a6d341e3b5b1dedec1f");
    CHECK(kv::to_string(kv::key("test", "set", "x")) == "test:set:\"x\"");

    std::unordered_set<kv::key> set{
        kv::key("test", "set", 1), kv::key("test", "set", 1), kv::key("test", "set", 2)};
    CHECK(set.size() == 2);
}

} // namespace kv_key_test
