#include <kvmodel/patterns/codec.hpp>
#include <kvmodel/patterns/record_pattern.hpp>
#include <kvmodel/testing.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

namespace patterns_testing_test {
struct reading {
    std::int64_t ts = 0;
    double celsius = 0;
    std::string where;
    friend bool operator==(const reading&, const reading&) = default;
};
} // namespace patterns_testing_test

KVMODEL_CODEC(patterns_testing_test::reading, &patterns_testing_test::reading::ts,
              &patterns_testing_test::reading::celsius, &patterns_testing_test::reading::where);

namespace patterns_testing_test {

using namespace kvmodel;

TEST_CASE("codec: one line derives a struct's codec as a list of its fields",
          "[patterns][codec]") {
    const reading r{1700, 21.5, "attic"};
    const value v = patterns::encode(r);
    CHECK(v == value(list{1700, 21.5, "attic"}));
    CHECK(patterns::decode<reading>(v).value() == r);
    auto short_list = patterns::decode<reading>(value(list{1700, 21.5}));
    REQUIRE(!short_list);
    CHECK(short_list.error().code == status::parameter_error);
    auto wrong_field = patterns::decode<reading>(value(list{1700, "x", "attic"}));
    REQUIRE(!wrong_field);
    CHECK(wrong_field.error().message == "decode: expected double, got string \"x\"");
}

TEST_CASE("codec: a pair decodes as the two-element tuple does, errors included", "[patterns][codec]") {
    using pr = std::pair<std::int64_t, std::string>;
    using tu = std::tuple<std::int64_t, std::string>;
    CHECK(patterns::decode<pr>(value(list{7, "a"})).value() == pr{7, "a"});
    const value bad[] = {value(list{7}), value(list{7, "a", 1}), value(5), value(list{"x", 2}),
                         value(list{7, 2}), value(list{"x", "a"})};
    for (const value& v : bad) {
        auto p = patterns::decode<pr>(v);
        auto t = patterns::decode<tu>(v);
        REQUIRE(!p);
        REQUIRE(!t);
        CHECK(p.error().code == status::parameter_error);
        CHECK(p.error().message == t.error().message);
    }
    CHECK(patterns::decode<pr>(value(list{7})).error().message.starts_with("decode: expected list of 2 elements, got "));
    // Both halves bad: the first one's error.
    CHECK(patterns::decode<pr>(value(list{"x", 2})).error().message == "decode: expected int, got string \"x\"");
}

TEST_CASE("codec: lenient numbers convert int <-> double only when exact", "[patterns][codec]") {
    using ld = patterns::lenient<double>;
    using li = patterns::lenient<std::int32_t>;
    CHECK(!patterns::decode<double>(value(20)));
    CHECK(patterns::decode<ld>(value(20)).value() == 20.0);
    CHECK(patterns::decode<ld>(value(20.5)).value() == 20.5);
    CHECK(!patterns::decode<ld>(value(std::int64_t{(1LL << 53) + 1})));
    CHECK(!patterns::decode<ld>(value(INT64_MAX)));
    CHECK(patterns::decode<li>(value(20.0)).value() == 20);
    CHECK(!patterns::decode<li>(value(20.5)));
    CHECK(!patterns::decode<li>(value(1e12)));  // exact, but does not fit 32 bits
    CHECK(!patterns::decode<li>(value(1e300))); // no UB past int64
    CHECK(!patterns::decode<ld>(value("20")));
    CHECK(patterns::encode(ld(2.5)) == value(2.5));
}

TEST_CASE("testing: printers show values, errors, results and records", "[patterns][testing]") {
    CHECK(Catch::Detail::stringify(value(list{1, "a"})) == "[1, \"a\"]");
    const error e{status::timeout, "operate: timed out", true};
    CHECK(Catch::Detail::stringify(e) == "TIMEOUT (9): operate: timed out [in doubt]");
    CHECK(Catch::Detail::stringify(result<int>(e)) == "error: TIMEOUT (9): operate: timed out [in doubt]");
    CHECK(Catch::Detail::stringify(result<int>(3)) == "ok: 3");
    CHECK(Catch::Detail::stringify(result<void>()) == "ok");
    kv::record r;
    r.set("n", value(1));
    r.generation = 2;
    r.ttl = -1;
    CHECK(Catch::Detail::stringify(r) == "{n: 1} gen=2 ttl=-1");
}

TEST_CASE("testing: a fresh cluster on a manual clock, faults for a scope", "[patterns][testing]") {
    testing::fresh_cluster c(sim::cluster_config{}.with_nsup_period(60)); // TTLs need nsup
    const auto k = kv::key::make("test", "t", value("k")).value();
    kv::write_policy wp;
    wp.ttl = 10;
    REQUIRE(patterns::operate(c.db, k, {kv::op::write("n", value(1))}, wp));
    {
        testing::fault_scope faults(c.db, {sim::fault::timeout().forever()});
        CHECK(patterns::operate(c.db, k, {kv::op::read("n")}).error().code == status::timeout);
    }
    CHECK(patterns::operate(c.db, k, {kv::op::read("n")}));
    c.clock->advance(std::chrono::seconds(11));
    CHECK(patterns::operate(c.db, k, {kv::op::read("n")}).error().code == status::record_not_found);
}

} // namespace patterns_testing_test
