// kvmodel/core/detail/engine_hook.hpp
//
// An engine a store reaches through a pointer, so that a file which never
// makes the engine's operations never compiles the engine: the expression
// engine (exp/hook.hpp), the bit and HLL engines (cdt/detail/bit_op.hpp,
// hll_op.hpp). The engine sets its hook where it is compiled; a store reads
// it with one atomic load and, should it be unset, answers PARAMETER_ERROR
// naming the header to include — never a crash.
#pragma once

#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace kvmodel::detail {

// What every hook holds, whatever its pointer type: the pointer's bits in a
// std::atomic<std::uintptr_t> (a pointer converted to an integer wide enough
// and back is the same pointer), and the PARAMETER_ERROR of an unset hook.
// Not a template: a file compiles one atomic type and one error message for
// all hooks instead of an std::atomic<P> (with its debug entries) and a
// message per hook type.
class engine_hook_bits {
protected:
    std::uintptr_t load_bits() const noexcept { return m_bits.load(std::memory_order_acquire); }
    void set_bits(std::uintptr_t b) noexcept {
        if (m_bits.load(std::memory_order_relaxed) == 0) m_bits.store(b, std::memory_order_release);
    }
    std::uintptr_t exchange_bits(std::uintptr_t b) noexcept {
        return m_bits.exchange(b, std::memory_order_acq_rel);
    }
    static failure missing(std::string_view who, std::string_view needs, std::string_view header) {
        return fail(status::parameter_error, std::string(who) + ": " + std::string(needs) +
                                                 ": include " + std::string(header) + " in the program");
    }

private:
    std::atomic<std::uintptr_t> m_bits{0};
};

/// A hook holding P (an engine's function or table pointer), null until the
/// engine sets it.
template <class P>
class engine_hook : engine_hook_bits {
public:
    /// The engine, or null.
    KVMODEL_FORCE_INLINE P get() const noexcept { return reinterpret_cast<P>(load_bits()); }
    /// Sets the engine; a hook already set is left alone (every setter sets
    /// the same engine), so setting it again costs one load, no store.
    void set(P p) noexcept { set_bits(reinterpret_cast<std::uintptr_t>(p)); }
    /// Puts p in the hook and returns what it held (tests empty a hook).
    P exchange(P p) noexcept {
        return reinterpret_cast<P>(exchange_bits(reinterpret_cast<std::uintptr_t>(p)));
    }
    /// The engine, or PARAMETER_ERROR
    /// "<who>: <needs>: include <header> in the program".
    result<P> need(std::string_view who, std::string_view needs, std::string_view header) const {
        if (const P p = get())
            return p;
        return missing(who, needs, header);
    }
};

} // namespace kvmodel::detail
