// kvmodel/core/assert.hpp
//
// KVMODEL_ASSERT checks a broken precondition (a bug in the caller, never bad
// input: bad input gets a status). A failed one calls the installed
// assertion handler, if any, then prints the location and aborts. A handler
// may throw instead: tests install throw_assertion_failure so that a
// precondition can be checked (REQUIRE_THROWS_AS(..., assertion_failure)).
// The handler is chosen at run time, not by a macro, so code compiled once
// (KVMODEL_SEPARATE_COMPILATION) serves programs that want either.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace kvmodel {

struct assertion_failure : std::logic_error {
    using std::logic_error::logic_error;
};

/// What a failed KVMODEL_ASSERT calls with the failed expression and its
/// location. It may throw; if it returns, the program aborts.
using assertion_handler = void (*)(const char* expr, const char* file, int line);

namespace detail {
// The handler's bits (a pointer converted to an integer wide enough and back
// is the same pointer): an std::atomic<std::uintptr_t>, which other headers
// use anyway, rather than an atomic of this one function pointer type, whose
// class every file with debug info would describe.
inline std::atomic<std::uintptr_t> installed_assertion_handler{0};
} // namespace detail

/// Installs h (nullptr: none, the default) for every thread; returns the
/// handler it replaces.
inline assertion_handler set_assertion_handler(assertion_handler h) noexcept {
    return reinterpret_cast<assertion_handler>(
        detail::installed_assertion_handler.exchange(reinterpret_cast<std::uintptr_t>(h)));
}

/// An assertion handler that throws assertion_failure("file:line: assertion
/// failed: expr"). A failure inside a noexcept function still terminates.
[[noreturn]] inline void throw_assertion_failure(const char* expr, const char* file, int line) {
    throw assertion_failure(std::string(file) + ":" + std::to_string(line) +
                            ": assertion failed: " + expr);
}

namespace detail {
[[noreturn]] inline void assert_fail(const char* expr, const char* file, int line) {
    if (auto h = reinterpret_cast<assertion_handler>(installed_assertion_handler.load()))
        h(expr, file, line);
    std::fprintf(stderr, "%s:%d: kvmodel assertion failed: %s\n", file, line, expr);
    std::abort();
}
} // namespace detail

} // namespace kvmodel

#if !defined(KVMODEL_ASSERT)
#    define KVMODEL_ASSERT(expr)                                                                   \
        ((expr) ? static_cast<void>(0) : ::kvmodel::detail::assert_fail(#expr, __FILE__, __LINE__))
#endif
