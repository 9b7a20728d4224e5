// tests/sanitized.hpp
//
// KVMODEL_TEST_SANITIZED: 1 when the test is compiled with AddressSanitizer
// or ThreadSanitizer (GCC's and Clang's spellings), else 0 — randomized tests
// scale their default op counts down by it, to keep each ctest under a
// minute at -O0 with the sanitizers.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#    define KVMODEL_TEST_SANITIZED 1
#elif defined(__has_feature)
#    if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#        define KVMODEL_TEST_SANITIZED 1
#    endif
#endif
#ifndef KVMODEL_TEST_SANITIZED
#    define KVMODEL_TEST_SANITIZED 0
#endif
