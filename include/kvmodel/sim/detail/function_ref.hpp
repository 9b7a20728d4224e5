// kvmodel/sim/detail/function_ref.hpp
//
// function_ref<R(Args...)>: a non-owning reference to a callable (an object
// pointer and a call thunk), as C++26's std::function_ref. The cluster's
// loops that take a callback (the client's retry loop, the write path) take
// one, so each is compiled once rather than once per lambda passed to it;
// what a caller's lambda costs is its body and a one-line thunk. The
// referenced callable must outlive the call (pass a lambda straight to the
// function: the temporary lives until the call returns). __builtin_addressof
// and static_cast<Args&&> do what std::addressof and std::forward do without
// instantiating them per callable and argument type (compile time).
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace kvmodel::sim::detail {

template <class Signature>
class function_ref;

template <class R, class... Args>
class function_ref<R(Args...)> {
public:
    template <class F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, function_ref> &&
                 std::is_invocable_r_v<R, F&, Args...>)
    function_ref(F&& f) noexcept // NOLINT(google-explicit-constructor): as std::function_ref
        : m_obj(const_cast<void*>(static_cast<const void*>(__builtin_addressof(f))))
        , m_call(&call<std::remove_reference_t<F>>) {}

    R operator()(Args... args) const { return m_call(m_obj, static_cast<Args&&>(args)...); }

private:
    template <class F>
    static R call(void* obj, Args... args) {
        return (*static_cast<F*>(obj))(static_cast<Args&&>(args)...);
    }

    void* m_obj;
    R (*m_call)(void*, Args...);
};

} // namespace kvmodel::sim::detail
