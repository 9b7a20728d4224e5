// kvmodel/core/assert.hpp
//
// KVMODEL_ASSERT checks a broken precondition (a bug in the caller, never bad
// input: bad input gets a status). By default it aborts with the location;
// tests define KVMODEL_ASSERT_THROWS to turn it into a thrown
// kvmodel::assertion_failure so a precondition can be tested.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace kvmodel {

struct assertion_failure : std::logic_error {
    using std::logic_error::logic_error;
};

namespace detail {
[[noreturn]] inline void assert_fail(const char* expr, const char* file, int line) {
#if defined(KVMODEL_ASSERT_THROWS)
    throw assertion_failure(std::string(file) + ":" + std::to_string(line) +
                            ": assertion failed: " + expr);
#else
    std::fprintf(stderr, "%s:%d: kvmodel assertion failed: %s\n", file, line, expr);
    std::abort();
#endif
}
} // namespace detail

} // namespace kvmodel

#if !defined(KVMODEL_ASSERT)
#    define KVMODEL_ASSERT(expr)                                                                   \
        ((expr) ? static_cast<void>(0) : ::kvmodel::detail::assert_fail(#expr, __FILE__, __LINE__))
#endif
