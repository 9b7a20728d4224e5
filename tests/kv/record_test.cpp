// Tests for kvmodel/kv/record.hpp: bin access, nil-erases, bin name and
// bin value checks.
#include <kvmodel/kv/record.hpp>

#include <catch2/catch.hpp>

#include <string>

namespace kv_record_test {

using namespace kvmodel;

TEST_CASE("record bins keep creation order; set replaces, nil erases", "[kv][record]") {
    kv::record r;
    r.set("b", 1);
    r.set("a", "x");
    r.set("b", 2);
    REQUIRE(r.bins.size() == 2);
    CHECK(r.bins[0] == kv::bin{"b", 2});
    CHECK(r.bins[1] == kv::bin{"a", "x"});
    CHECK(r.value_of("b") == value(2));
    CHECK(r.value_of("zz").is_nil());
    CHECK(r.contains("a"));
    r.set("a", value());
    CHECK_FALSE(r.contains("a"));
    CHECK_FALSE(r.erase("a"));
    CHECK(r.erase("b"));
    CHECK(r.bins.empty());
    CHECK(r.ttl == kv::ttl_never_expires);
}

TEST_CASE("bin names are at most 15 bytes without NUL", "[kv][record]") {
    CHECK(kv::check_bin_name("", "put"));
    CHECK(kv::check_bin_name(std::string(15, 'n'), "put"));
    auto r = kv::check_bin_name("sensor_temperature", "put");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::bin_name_too_long);
    CHECK(r.error().message == "put: bin name 'sensor_temperature' is 18 bytes, max 15");
    auto nul = kv::check_bin_name(std::string("a\0b", 3), "operate");
    REQUIRE_FALSE(nul);
    CHECK(nul.error().code == status::bin_name_too_long);
}

TEST_CASE("INF and WILDCARD cannot be stored", "[kv][record]") {
    CHECK(kv::check_bin_value(list{1, map{{"a", "b"}}}, "put", "x"));
    CHECK(kv::check_bin_value(kvmodel::bytes{}, "put", "x"));
    for (const value& v : {value(inf),
                           value(wildcard),
                           value(list{1, list{wildcard}}),
                           value(map{{1, inf}}),
                           value(map{{inf, 1}})}) {
        auto r = kv::check_bin_value(v, "put", "x");
        REQUIRE_FALSE(r);
        CHECK(r.error().code == status::parameter_error);
        CHECK_THAT(r.error().message, Catch::StartsWith("put: bin 'x'"));
    }
}

} // namespace kv_record_test
