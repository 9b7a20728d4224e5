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
#include <string>
#include <string_view>

namespace kvmodel::detail {

/// A hook holding P (an engine's function or table pointer), null until the
/// engine sets it.
template <class P>
class engine_hook {
public:
    /// The engine, or null.
    P get() const noexcept { return m_p.load(std::memory_order_acquire); }
    /// Sets the engine; a hook already set is left alone (every setter sets
    /// the same engine), so setting it again costs one load, no store.
    void set(P p) noexcept {
        if (m_p.load(std::memory_order_relaxed) == nullptr)
            m_p.store(p, std::memory_order_release);
    }
    /// Puts p in the hook and returns what it held (tests empty a hook).
    P exchange(P p) noexcept { return m_p.exchange(p, std::memory_order_acq_rel); }
    /// The engine, or PARAMETER_ERROR
    /// "<who>: <needs>: include <header> in the program".
    result<P> need(std::string_view who, std::string_view needs, std::string_view header) const {
        if (const P p = get())
            return p;
        return fail(status::parameter_error, std::string(who) + ": " + std::string(needs) +
                                                 ": include " + std::string(header) + " in the program");
    }

private:
    std::atomic<P> m_p{nullptr};
};

} // namespace kvmodel::detail
