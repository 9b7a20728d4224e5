// tests/core/result_test.cpp
//
// result<T> / result<void>: the std::expected subset (has_value, value, error,
// operator bool, and_then, value_or), bad_result_access carrying the error and
// a message with the status name.
#include <kvmodel/core/result.hpp>

#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace core_result_test {

using namespace kvmodel;

namespace {

result<int> parse_positive(int x) {
    if (x <= 0) return fail(status::parameter_error, "parse: " + std::to_string(x) + " is not positive");
    return x;
}

struct point {
    int x = 0;
    int y = 0;
};

} // namespace

TEST_CASE("a successful result holds its value", "[core][result]") {
    result<int> r = 5;
    CHECK(r.has_value());
    CHECK(static_cast<bool>(r));
    CHECK(r.value() == 5);
    CHECK(*r == 5);
    CHECK(r.code() == status::ok);
    CHECK(r.value_or(7) == 5);
    r.value() = 6;
    CHECK(*r == 6);

    result<point> p = point{1, 2};
    CHECK(p->y == 2);
    p->x = 9;
    CHECK(p.value().x == 9);

    // Converting construction: a result<std::string> from a literal.
    result<std::string> s = "abc";
    CHECK(s.value() == "abc");
    const result<std::string>& cs = s;
    CHECK(cs.value() == "abc");
    CHECK(*cs == "abc");

    result<std::vector<int>> d; // default-constructible T: a default value
    CHECK(d.has_value());
    CHECK(d.value().empty());
}

TEST_CASE("a failed result holds its error; value() throws bad_result_access", "[core][result]") {
    result<int> r = fail(status::element_exists, "map_put: key 'a' exists");
    CHECK_FALSE(r.has_value());
    CHECK_FALSE(static_cast<bool>(r));
    CHECK(r.code() == status::element_exists);
    CHECK(r.error().code == status::element_exists);
    CHECK(r.error().message == "map_put: key 'a' exists");
    CHECK(r.value_or(7) == 7);
    CHECK_THROWS_AS(r.value(), bad_result_access);
    CHECK_THROWS_AS(*r, bad_result_access);
    CHECK_THROWS_WITH(r.value(), "kvmodel: ELEMENT_EXISTS: map_put: key 'a' exists");
    try {
        (void)std::move(r).value();
        FAIL("no throw");
    } catch (const bad_result_access& e) {
        CHECK(e.error() == error{status::element_exists, "map_put: key 'a' exists"});
        CHECK(std::string(e.what()) == "kvmodel: ELEMENT_EXISTS: map_put: key 'a' exists");
    }
    // bad_result_access is a std::exception.
    CHECK_THROWS_AS(r.value(), std::exception);

    // From an error value, and from make_error.
    result<std::string> e1 = make_error(status::record_too_big, "put: record is 1048577 bytes, max 1048576");
    CHECK(e1.code() == status::record_too_big);
    CHECK_THROWS_WITH(e1.value(), "kvmodel: RECORD_TOO_BIG: put: record is 1048577 bytes, max 1048576");
    result<int> e2 = fail(error{status::bin_name_too_long, "put: bin name 'sensor_temperature' is 18 bytes, max 15"});
    CHECK(e2.error().message == "put: bin name 'sensor_temperature' is 18 bytes, max 15");
    // The rvalue error() moves the error out.
    error moved = std::move(e2).error();
    CHECK(moved.code == status::bin_name_too_long);
}

TEST_CASE("and_then chains on success and forwards the first error", "[core][result]") {
    auto twice = [](int x) -> result<int> { return 2 * x; };
    auto show = [](int x) -> result<std::string> { return std::to_string(x); };
    CHECK(parse_positive(4).and_then(twice).and_then(show).value() == "8");

    int calls = 0;
    auto counted = [&](int x) -> result<int> {
        ++calls;
        return x;
    };
    result<std::string> bad = parse_positive(-1).and_then(counted).and_then(show);
    CHECK(calls == 0);
    CHECK(bad.code() == status::parameter_error);
    CHECK(bad.error().message == "parse: -1 is not positive");

    // A step that fails stops the chain there.
    auto refuse = [](int) -> result<int> { return fail(status::op_not_applicable, "step two"); };
    result<int> stopped = parse_positive(3).and_then(refuse).and_then(counted);
    CHECK(calls == 0);
    CHECK(stopped.error() == error{status::op_not_applicable, "step two"});

    // The rvalue overload moves the value: works with move-only types.
    result<std::unique_ptr<int>> owned = std::make_unique<int>(41);
    auto next = std::move(owned).and_then([](std::unique_ptr<int> p) -> result<int> { return *p + 1; });
    CHECK(next.value() == 42);
    result<std::unique_ptr<int>> none = fail(status::record_not_found, "get: no record");
    auto next2 = std::move(none).and_then([](std::unique_ptr<int> p) -> result<int> { return *p; });
    CHECK(next2.error().message == "get: no record");
    static_assert(std::is_same_v<decltype(next), result<int>>);
}

TEST_CASE("copies, moves and assignments between values and errors", "[core][result]") {
    const result<std::string> ok = std::string(40, 'v');
    const result<std::string> bad = fail(status::record_too_big, "too big");
    auto same = [](const result<std::string>& a, const result<std::string>& b) {
        if (a.has_value() != b.has_value()) return false;
        return a ? *a == *b : a.error() == b.error();
    };
    for (const auto* a : {&ok, &bad}) {
        for (const auto* b : {&ok, &bad}) {
            result<std::string> x = *a;
            CHECK(same(x, *a));
            x = *b; // copy-assign, possibly switching between value and error
            CHECK(same(x, *b));
            result<std::string> y = *a;
            result<std::string> from = *b;
            y = std::move(from);
            CHECK(same(y, *b));
            result<std::string> z(std::move(y));
            CHECK(same(z, *b));
        }
    }
    result<std::string> self = ok;
    const result<std::string>& alias = self;
    self = alias;
    CHECK(same(self, ok));
    SECTION("a move-only value") {
        result<std::unique_ptr<int>> p = std::make_unique<int>(7);
        result<std::unique_ptr<int>> q = std::move(p);
        REQUIRE(q);
        CHECK(**q == 7);
        q = fail(status::parameter_error, "gone");
        CHECK(q.code() == status::parameter_error);
        q = std::make_unique<int>(8);
        CHECK(**q == 8);
        STATIC_REQUIRE_FALSE(std::is_copy_constructible_v<result<std::unique_ptr<int>>>);
    }
    SECTION("a value whose move throws: the result is left holding an error, never a dead member") {
        struct fragile {
            bool throw_on_move = false;
            fragile() = default;
            fragile(const fragile&) = default;
            fragile& operator=(const fragile&) = default;
            fragile& operator=(fragile&&) = default;
            fragile(fragile&& o) : throw_on_move(o.throw_on_move) { // NOLINT
                if (o.throw_on_move) throw std::runtime_error("move");
            }
        };
        result<fragile> x = fail(status::parameter_error, "was an error");
        fragile f;
        f.throw_on_move = true;
        result<fragile> v = f;
        CHECK_THROWS_AS(x = std::move(v), std::runtime_error);
        REQUIRE_FALSE(x.has_value());
        x = fragile{}; // and it is still usable
        CHECK(x.has_value());
    }
}

TEST_CASE("result<void>", "[core][result]") {
    result<void> ok;
    CHECK(ok.has_value());
    CHECK(static_cast<bool>(ok));
    CHECK(ok.code() == status::ok);
    CHECK_NOTHROW(ok.value());

    result<void> bad = fail(status::generation_error, "put: generation 3, expected 2");
    CHECK_FALSE(bad.has_value());
    CHECK(bad.code() == status::generation_error);
    CHECK(bad.error().message == "put: generation 3, expected 2");
    CHECK_THROWS_WITH(bad.value(), "kvmodel: GENERATION_ERROR: put: generation 3, expected 2");
    result<void> bad2 = error{status::timeout, "operate: 1000 ms"};
    CHECK(bad2.code() == status::timeout);

    int calls = 0;
    auto step = [&]() -> result<int> {
        ++calls;
        return 1;
    };
    CHECK(ok.and_then(step).value() == 1);
    CHECK(calls == 1);
    result<int> skipped = bad.and_then(step);
    CHECK(calls == 1);
    CHECK(skipped.error() == bad.error());
    // Into result<void> and back out.
    auto check_size = [](int n) -> result<void> {
        if (n > 3) return fail(status::record_too_big, "too big");
        return {};
    };
    CHECK(parse_positive(2).and_then(check_size).has_value());
    CHECK(parse_positive(9).and_then(check_size).code() == status::record_too_big);
}

TEST_CASE("errors compare by code and message", "[core][result]") {
    CHECK(error{status::timeout, "a"} == error{status::timeout, "a"});
    CHECK_FALSE(error{status::timeout, "a"} == error{status::timeout, "b"});
    CHECK_FALSE(error{status::timeout, "a"} == error{status::key_busy, "a"});
    CHECK(error{}.code == status::server_error); // a default error is never "ok"
}

} // namespace core_result_test
