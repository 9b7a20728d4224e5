// tests/core/assert_test.cpp
//
// KVMODEL_ASSERT's handler: catch_main installs throw_assertion_failure for
// every test; a program may install its own and restore the one it replaced.
// (Without a handler a failed assertion aborts: not testable in process.)
#include <kvmodel/core/assert.hpp>

#include <catch2/catch.hpp>

#include <string>

namespace core_assert_test {

using namespace kvmodel;

struct custom_failure {
    std::string where;
};

[[noreturn]] void throw_custom(const char* expr, const char* file, int line) {
    throw custom_failure{std::string(expr) + "@" + file + ":" + std::to_string(line)};
}

int checked_half(int x) {
    KVMODEL_ASSERT(x % 2 == 0);
    return x / 2;
}

TEST_CASE("tests run with the throwing assertion handler", "[core][assert]") {
    CHECK(checked_half(4) == 2);
    try {
        checked_half(3);
        FAIL("no assertion_failure");
    } catch (const assertion_failure& e) {
        std::string what = e.what();
        CHECK(what.find("assert_test.cpp:") != std::string::npos);
        CHECK(what.find(": assertion failed: x % 2 == 0") != std::string::npos);
    }
}

TEST_CASE("set_assertion_handler installs a handler and returns the one it replaces", "[core][assert]") {
    assertion_handler before = set_assertion_handler(&throw_custom);
    CHECK(before == &throw_assertion_failure);
    try {
        checked_half(5);
        FAIL("no custom_failure");
    } catch (const custom_failure& e) {
        CHECK(e.where.rfind("x % 2 == 0@", 0) == 0);
    }
    CHECK(set_assertion_handler(before) == &throw_custom);
    CHECK_THROWS_AS(checked_half(7), assertion_failure);
}

} // namespace core_assert_test
