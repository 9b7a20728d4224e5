// tests/core/failing_new.hpp
//
// A global operator new that throws on request, for the tests that make
// every allocation of an operation fail in turn (include it from exactly one
// file of a test executable: it replaces the program's operator new/delete).
// fail_in = k > 0: this thread's k-th allocation from now throws
// std::bad_alloc; live: the blocks this thread allocated and has not freed.
// Otherwise it is malloc and free.
#pragma once

#include <cstdlib>
#include <new>

namespace kvmodel::test {
inline thread_local long fail_in = 0;
inline thread_local long live = 0;

// Out of line, so the compiler does not pair a new-expression with free().
[[gnu::noinline]] inline void* failing_allocate(std::size_t n) {
    if (fail_in > 0 && --fail_in == 0) throw std::bad_alloc();
    if (void* p = std::malloc(n == 0 ? 1 : n)) {
        ++live;
        return p;
    }
    throw std::bad_alloc();
}
[[gnu::noinline]] inline void failing_release(void* p) noexcept {
    if (p != nullptr) --live;
    std::free(p);
}
} // namespace kvmodel::test

void* operator new(std::size_t n) {
    return kvmodel::test::failing_allocate(n);
}
void* operator new[](std::size_t n) {
    return kvmodel::test::failing_allocate(n);
}
void operator delete(void* p) noexcept {
    kvmodel::test::failing_release(p);
}
void operator delete[](void* p) noexcept {
    kvmodel::test::failing_release(p);
}
void operator delete(void* p, std::size_t) noexcept {
    kvmodel::test::failing_release(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    kvmodel::test::failing_release(p);
}
// The nothrow forms too (std::stable_sort's buffer): all or none of the
// unaligned family is replaced, or a sanitizer sees mismatched pairs.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return kvmodel::test::failing_allocate(n);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept {
    return ::operator new(n, t);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
    kvmodel::test::failing_release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
    kvmodel::test::failing_release(p);
}
