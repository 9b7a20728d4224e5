// kvmodel/sim/detail/heap_array.hpp
//
// heap_array<T>: an owning pointer to a heap array whose size is fixed when
// it is made (new T[n]() on reset, delete[] on reset and destruction), for
// the cluster's per-partition and per-node arrays. It replaces
// std::unique_ptr<T[]>: each unique_ptr<T[]> type instantiates its
// tuple/deleter/impl layers (~40 functions and as many debug entries per
// element type in every header-only file), this one a handful. Not copyable
// nor movable: the arrays live as long as their owner.
#pragma once

#include <kvmodel/config.hpp>

#include <cstddef>

namespace kvmodel::sim::detail {

template <class T>
class heap_array {
public:
    // The small members are forced inline at -O0: with eight element types
    // they were ~40 functions per header-only file (compile time).
    KVMODEL_FORCE_INLINE heap_array() noexcept = default;
    heap_array(const heap_array&) = delete;
    heap_array& operator=(const heap_array&) = delete;
    KVMODEL_FORCE_INLINE ~heap_array() { delete[] m_items; } // NOLINT(*-owning-memory)

    /// n value-initialized elements (as std::make_unique<T[]>(n)); the old
    /// ones are destroyed after the new ones are made.
    void reset(std::size_t n) {
        T* const made = new T[n](); // NOLINT(*-owning-memory)
        delete[] m_items;           // NOLINT(*-owning-memory)
        m_items = made;
    }

    KVMODEL_FORCE_INLINE T& operator[](std::size_t i) const noexcept { return m_items[i]; }
    KVMODEL_FORCE_INLINE T* get() const noexcept { return m_items; }

private:
    T* m_items = nullptr;
};

} // namespace kvmodel::sim::detail
