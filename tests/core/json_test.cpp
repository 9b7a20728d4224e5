// tests/core/json_test.cpp
//
// The cdt-json value notation (shared/spec/cdt-json.md): to_json and
// value_from_json round-trip exactly (in memory and through text), the output
// shapes are the spec's, and every malformed input gets a parameter_error whose
// message names the JSON path and the problem.
#include <kvmodel/core/json.hpp>

#include "random_value.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace core_json_test {

using namespace kvmodel;
using nlohmann::json;

namespace {

// Exact equality, doubles bitwise (value's operator== already is).
bool same(const value& a, const value& b) {
    return a == b;
}

std::string message_of(const result<value>& r) {
    REQUIRE_FALSE(r.has_value());
    CHECK(r.code() == status::parameter_error);
    return r.error().message;
}

std::string error_for(std::string_view text) {
    auto j = json::parse(text);
    return message_of(value_from_json(j));
}

} // namespace

TEST_CASE("to_json then value_from_json gives back the same value", "[core][json]") {
    INFO("seed " << test::seed() << " (KVMODEL_SEED to replay)");
    test::value_gen g(test::seed_for("json/roundtrip"));
    g.allow_inf = true;
    g.wildcard_pct = 3;
    const std::size_t n = test::fuzz_ops(5000);
    for (std::size_t i = 0; i < n; ++i) {
        value v = g.any();
        json j = to_json(v);
        auto back = value_from_json(j);
        REQUIRE(back.has_value());
        if (!same(back.value(), v)) FAIL("round trip changed " << to_string(v) << " into " << to_string(back.value()));
    }
}

TEST_CASE("round trip through JSON text is exact (UTF-8 strings)", "[core][json]") {
    INFO("seed " << test::seed() << " (KVMODEL_SEED to replay)");
    test::value_gen g(test::seed_for("json/text"));
    g.utf8 = true; // JSON text carries UTF-8 strings only
    g.allow_inf = true;
    g.wildcard_pct = 3;
    const std::size_t n = test::fuzz_ops(5000);
    for (std::size_t i = 0; i < n; ++i) {
        value v = g.any();
        std::string text = to_json(v).dump();
        auto back = value_from_json_text(text);
        if (!back.has_value()) FAIL(text << ": " << back.error().message);
        if (!same(back.value(), v)) FAIL("text round trip: " << text << " gave " << to_string(back.value()));
    }
}

TEST_CASE("doubles survive exactly, extremes and special values included", "[core][json]") {
    const double cases[] = {0.0,
                            -0.0,
                            1.1,
                            0.1 + 0.2,
                            1e308,
                            -1e-308,
                            std::numeric_limits<double>::max(),
                            std::numeric_limits<double>::lowest(),
                            std::numeric_limits<double>::min(),
                            std::numeric_limits<double>::denorm_min(),
                            std::numeric_limits<double>::epsilon(),
                            9007199254740993.0,
                            123456789.0,
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN()};
    for (double d : cases) {
        INFO(d);
        std::string text = to_json(value{d}).dump();
        auto back = value_from_json_text(text);
        REQUIRE(back.has_value());
        REQUIRE(back.value().is_double());
        CHECK(std::bit_cast<std::uint64_t>(back.value().as_double()) == std::bit_cast<std::uint64_t>(d));
    }
    CHECK(to_json(value{std::numeric_limits<double>::quiet_NaN()}).dump() == R"({"$double":"NaN"})");
    CHECK(to_json(value{std::numeric_limits<double>::infinity()}).dump() == R"({"$double":"Infinity"})");
    CHECK(to_json(value{-std::numeric_limits<double>::infinity()}).dump() == R"({"$double":"-Infinity"})");
    // A NaN's sign and payload have no notation: every NaN reads back as the quiet NaN.
    double odd_nan = std::bit_cast<double>(std::uint64_t{0xfff0000000000123ULL});
    REQUIRE(std::isnan(odd_nan));
    auto back = value_from_json(to_json(value{odd_nan}));
    REQUIRE(back.has_value());
    CHECK(std::bit_cast<std::uint64_t>(back.value().as_double()) ==
          std::bit_cast<std::uint64_t>(std::numeric_limits<double>::quiet_NaN()));
}

TEST_CASE("output shapes follow cdt-json.md", "[core][json]") {
    CHECK(to_json(value{}).dump() == "null");
    CHECK(to_json(value{true}).dump() == "true");
    CHECK(to_json(value{-42}).dump() == "-42");
    CHECK(to_json(value{std::numeric_limits<std::int64_t>::min()}).dump() == "-9223372036854775808");
    CHECK(to_json(value{1.5}).dump() == R"({"$double":1.5})");
    CHECK(to_json(value{2.0}).dump() == R"({"$double":2.0})");
    CHECK(to_json(value{"a\"b"}).dump() == R"("a\"b")");
    CHECK(to_json(value{bytes{0x0a, 0xff}}).dump() == R"({"$bytes":"0aff"})");
    CHECK(to_json(value{bytes{}}).dump() == R"({"$bytes":""})");
    CHECK(to_json(value{list{1, "x", list{}}}).dump() == R"([1,"x",[]])");
    // Maps in stored (key) order, whatever the insertion order.
    map m;
    m.put("b", 2);
    m.put(1, list{value{}});
    m.put("a", map{});
    CHECK(to_json(value{m}).dump() == R"({"$map":[[1,[null]],["a",{"$map":[]}],["b",2]]})");
    CHECK(to_json(value{inf}).dump() == R"({"$inf":true})");
    CHECK(to_json(value{wildcard}).dump() == R"({"$wildcard":true})");
}

TEST_CASE("input notation: numbers, tags, and the spec's example", "[core][json]") {
    auto read = [](std::string_view text) {
        auto r = value_from_json_text(text);
        if (!r) FAIL(text << ": " << r.error().message);
        return r.value();
    };
    CHECK(read("5").is_int());
    CHECK(read("-0").is_int());
    CHECK(read("1.0").is_double()); // a fraction makes a double
    CHECK(read("1e3").is_double()); // so does an exponent
    CHECK(read("1e3").as_double() == 1000.0);
    CHECK(std::signbit(read("-0.0").as_double()));
    CHECK(read("9223372036854775807").as_int() == std::numeric_limits<std::int64_t>::max());
    CHECK(read("-9223372036854775808").as_int() == std::numeric_limits<std::int64_t>::min());
    CHECK(read(R"({"$double": 5})").as_double() == 5.0);
    CHECK(read(R"({"$double": "-Infinity"})").as_double() == -std::numeric_limits<double>::infinity());
    CHECK(read(R"({"$bytes": "0AfF"})") == value{bytes{0x0a, 0xff}}); // either case
    CHECK(read(R"({"$nil": true})").is_nil());
    CHECK(read(R"({"$inf": true})").is_inf());
    CHECK(read(R"({"$wildcard": true})").is_wildcard());
    CHECK(read(R"(["a", {"$wildcard": true}])") == value{list{"a", wildcard}});
    value ev = read(R"({"$map": [[1523474230000, ["fav", {"$map": [["sku", 1]]}]]]})");
    REQUIRE(ev.is_map());
    REQUIRE(ev.as_map().size() == 1);
    CHECK(ev.as_map().key_at(0) == value{1523474230000});
    CHECK(ev.as_map().value_at(0) == value{list{"fav", map{{"sku", 1}}}});
    // A key given twice: the later value wins, as a client building the map
    // (the C client's as_orderedmap_set) would have it.
    CHECK(read(R"({"$map": [["k", 1], ["k", 2]]})") == value{map{{"k", 2}}});
}

TEST_CASE("malformed input: a parameter_error naming the path and the problem", "[core][json]") {
    CHECK(error_for(R"({"$bytes": "abc"})") == "$.$bytes: hex string has an odd number of digits");
    CHECK(error_for(R"({"$bytes": "0g"})") == "$.$bytes: '0g' is not a hex byte");
    CHECK(error_for(R"({"$bytes": 12})") == "$: $bytes needs a hex string, got 12");
    CHECK(error_for(R"({"$foo": 1})") == "$: unknown tag '$foo'");
    CHECK(error_for(R"({"$double": 1, "$nil": true})") ==
          R"($: an object must be one of $double, $bytes, $map (with an optional $order), $nil, $inf, $wildcard, got {"$double":1,"$nil":true})");
    CHECK(error_for("{}") ==
          "$: an object must be one of $double, $bytes, $map (with an optional $order), $nil, $inf, $wildcard, got {}");
    CHECK(error_for(R"({"$double": "x"})") == R"($: $double needs a number, got "x")");
    CHECK(error_for(R"({"$double": null})") == "$: $double needs a number, got null");
    CHECK(error_for(R"({"$map": 5})") == "$: $map needs an array of [key, value] pairs");
    CHECK(error_for(R"({"$map": [[1]]})") == "$.$map[0]: expected a [key, value] pair, got [1]");
    CHECK(error_for(R"({"$map": [[1, 2], 3]})") == "$.$map[1]: expected a [key, value] pair, got 3");
    CHECK(error_for(R"({"$map": [[1, {"$bytes": "a"}]]})") ==
          "$.$map[0][1].$bytes: hex string has an odd number of digits");
    CHECK(error_for(R"({"$map": [[{"$x": 1}, 2]]})") == "$.$map[0][0]: unknown tag '$x'");
    CHECK(error_for(R"([1, [2, {"$inf": false}]])") == "$[1][1]: $inf must be true");
    CHECK(error_for(R"({"$nil": 1})") == "$: $nil must be true");
    CHECK(error_for(R"({"$wildcard": "yes"})") == "$: $wildcard must be true");
    CHECK(error_for("9223372036854775808") == "$: integer 9223372036854775808 is out of int64 range");
    CHECK(error_for("[0, 18446744073709551615]") ==
          "$[1]: integer 18446744073709551615 is out of int64 range");
    // A caller-supplied path prefixes every message.
    auto r = value_from_json(json::parse(R"([{"$bytes": "x"}])"), "case[3].initial");
    CHECK(message_of(r) == "case[3].initial[0].$bytes: hex string has an odd number of digits");
    // A JSON value the notation has no place for.
    CHECK(message_of(value_from_json(json::binary({1, 2}))).rfind("$: unsupported JSON value", 0) == 0);
}

TEST_CASE("nesting deeper than json_max_depth is refused, not a stack overflow", "[core][json]") {
    const std::size_t limit = detail::json_max_depth;
    auto nested = [](std::size_t levels) {
        return std::string(levels, '[') + "1" + std::string(levels, ']');
    };
    auto ok = value_from_json_text(nested(limit));
    REQUIRE(ok.has_value());
    value v = ok.value();
    std::size_t depth = 0;
    for (const value* p = &v; p->is_list(); p = &p->as_list()[0]) ++depth;
    CHECK(depth == limit);
    auto deep = value_from_json_text(nested(limit + 1));
    REQUIRE_FALSE(deep.has_value());
    CHECK(deep.code() == status::parameter_error);
    std::string path = "$";
    for (std::size_t i = 0; i < limit; ++i) path += "[0]";
    CHECK(deep.error().message == path + ": nested deeper than " + std::to_string(limit) + " levels");
    // Far deeper input (nlohmann parses it iteratively) gets the same answer.
    auto very = value_from_json_text(nested(100000));
    REQUIRE_FALSE(very.has_value());
    CHECK(very.error().message.find("nested deeper than") != std::string::npos);
    // $map levels count too.
    std::string maps;
    for (std::size_t i = 0; i <= limit; ++i) maps += R"({"$map": [[1, )";
    maps += "2";
    for (std::size_t i = 0; i <= limit; ++i) maps += "]]}";
    CHECK(value_from_json_text(maps).code() == status::parameter_error);
}

TEST_CASE("a long array costs no path string per element", "[core][json]") {
    json a = json::array();
    for (int i = 0; i < 200000; ++i) a.push_back(i);
    a.push_back(json::object({{"$bytes", "xyz"}}));
    auto r = value_from_json(a);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message == "$[200000].$bytes: hex string has an odd number of digits");
    a.erase(a.size() - 1);
    auto good = value_from_json(a);
    REQUIRE(good.has_value());
    CHECK(good.value().as_list().size() == 200000);
    CHECK(good.value().as_list()[199999] == value{199999});
    // The two-argument detail form the tools use keeps working.
    CHECK(detail::from_json_at(json::parse("[1, {\"$x\": 1}]"), "case.initial").error().message ==
          "case.initial[1]: unknown tag '$x'");
}

TEST_CASE("parse_json: malformed text and integers beyond 64 bits are errors, not doubles",
          "[core][json]") {
    // nlohmann alone would read these integer literals as doubles.
    for (std::string_view text : {"123456789012345678901234", "18446744073709551616",
                                  "-9223372036854775809", "[1, {\"$map\": [[99999999999999999999, 1]]}]"}) {
        INFO(text);
        auto r = parse_json(text);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.code() == status::parameter_error);
        CHECK(r.error().message.rfind("json: integer ", 0) == 0);
        CHECK(r.error().message.find(" is out of int64 range") != std::string::npos);
    }
    CHECK(parse_json("123456789012345678901234").error().message ==
          "json: integer 123456789012345678901234 is out of int64 range");
    // Still doubles when written as doubles.
    auto big = value_from_json_text("1.8446744073709551616e19");
    REQUIRE(big.has_value());
    CHECK(big.value().is_double());
    // Syntax errors and overflowing doubles carry nlohmann's explanation.
    for (std::string_view text : {"[1,", "{\"a\" 1}", "", "nul", "1e400", "[1] 2"}) {
        INFO(text);
        auto r = parse_json(text);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.code() == status::parameter_error);
        CHECK(r.error().message.rfind("json: [json.exception.", 0) == 0);
    }
    CHECK(value_from_json_text("[1,").code() == status::parameter_error);
    CHECK(value_from_json_text(R"({"$bytes": "abc"})").error().message ==
          "$.$bytes: hex string has an odd number of digits");
}

TEST_CASE("to_json keeps arbitrary bytes in strings; only the text form needs UTF-8",
          "[core][json]") {
    value v{std::string("\xff\x00\x01", 3)};
    json j = to_json(v);
    auto back = value_from_json(j);
    REQUIRE(back.has_value());
    CHECK(back.value() == v);
    // nlohmann refuses to write invalid UTF-8 as text; blobs are the notation for raw bytes.
    CHECK_THROWS_AS(j.dump(), json::type_error);
}

} // namespace core_json_test
