// kvmodel/core/result.hpp
//
// result<T>: a value or an error, the std::expected subset kvmodel needs
// (has_value, value, error, operator bool, and_then). Expected outcomes (record
// not found, element exists, record too big) are results, never exceptions;
// value() on an error throws bad_result_access.
#pragma once

#include <kvmodel/core/status.hpp>

#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace kvmodel {

/// A failed operation: Aerospike's result code and a message that names the
/// operation, the bin and the limit involved.
struct error {
    /// Aerospike's result code (same names and numbers).
    status code = status::server_error;
    /// What failed: the operation, the bin and the limit.
    std::string message;
    /// A write that failed this way may nevertheless have been applied (a
    /// timeout after the server received it), as Aerospike's as_error.in_doubt.
    bool in_doubt = false;

    /// Code, message and in_doubt equal.
    friend bool operator==(const error& a, const error& b) = default;
};

/// Thrown by result<T>::value() on an error.
class bad_result_access : public std::exception {
public:
    /// An exception carrying e; what() is "kvmodel: STATUS_NAME: message".
    explicit bad_result_access(kvmodel::error e)
        : m_error(std::move(e))
        , m_what(std::string("kvmodel: ") + std::string(status_name(m_error.code)) + ": " +
                 m_error.message) {}
    /// "kvmodel: STATUS_NAME: message".
    const char* what() const noexcept override { return m_what.c_str(); }
    /// The error value() found.
    const kvmodel::error& error() const noexcept { return m_error; }

private:
    kvmodel::error m_error;
    std::string m_what;
};

namespace detail {
[[noreturn]] inline void throw_bad_result_access(const error& e) {
    throw bad_result_access(e);
}
} // namespace detail

/// Builds an error from a code and a message.
inline error make_error(status code, std::string message) {
    return error{code, std::move(message)};
}

/// Tag to construct a failed result: `return fail(status::parameter_error, "...")`.
struct failure {
    /// The error the result will hold.
    error err;
};
inline failure fail(status code, std::string message) {
    return failure{error{code, std::move(message)}};
}
inline failure fail(error e) {
    return failure{std::move(e)};
}

/// A value or an error: the std::expected subset kvmodel needs. Expected outcomes
/// (not found, element exists, record too big, timeouts) come back as an error
/// value, never as an exception; value() on an error throws bad_result_access.
/// `auto x = f().value();` keeps the value; `for (auto& e : f().value())`
/// iterates a destroyed temporary (value() && returns T&&): name the result first.
template <class T>
class [[nodiscard]] result {
public:
    /// The value's type.
    using value_type = T;

    result()
        requires std::is_default_constructible_v<T>
        : m_state(std::in_place_index<0>) {}
    // Built in place: a copy or a move, never both (results are on every
    // op's path).
    /// A success holding a copy of v.
    // NOLINTNEXTLINE(google-explicit-constructor)
    result(const T& v) : m_state(std::in_place_index<0>, v) {}
    /// A success holding v, moved.
    // NOLINTNEXTLINE(google-explicit-constructor)
    result(T&& v) : m_state(std::in_place_index<0>, std::move(v)) {}
    /// A success holding a T built from v.
    template <class U>
        requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::decay_t<U>, T> &&
                 !std::is_same_v<std::decay_t<U>, failure> &&
                 !std::is_same_v<std::decay_t<U>, kvmodel::error> &&
                 !std::is_same_v<std::decay_t<U>, result>)
    result(U&& v) : m_state(std::in_place_index<0>, std::forward<U>(v)) {} // NOLINT
    /// A failure: fail(code, message).
    result(failure f) : m_state(std::in_place_index<1>, std::move(f.err)) {}  // NOLINT
    /// A failure holding e.
    result(kvmodel::error e) : m_state(std::in_place_index<1>, std::move(e)) {}        // NOLINT

    /// Whether it holds a value.
    bool has_value() const noexcept { return m_state.index() == 0; }
    /// has_value().
    explicit operator bool() const noexcept { return has_value(); }

    /// The value; throws bad_result_access on an error.
    T& value() & {
        if (!has_value()) detail::throw_bad_result_access(std::get<1>(m_state));
        return std::get<0>(m_state);
    }
    /// \overload
    const T& value() const& {
        if (!has_value()) detail::throw_bad_result_access(std::get<1>(m_state));
        return std::get<0>(m_state);
    }
    /// The value, moved out; throws bad_result_access on an error. The reference
    /// dies with the result: bind it to a variable (`auto v = f().value();`).
    T&& value() && {
        if (!has_value()) detail::throw_bad_result_access(std::get<1>(m_state));
        return std::move(std::get<0>(m_state));
    }
    /// value().
    T& operator*() & { return value(); }
    /// value().
    const T& operator*() const& { return value(); }
    /// &value().
    T* operator->() { return &value(); }
    /// &value().
    const T* operator->() const { return &value(); }

    /// The error; precondition: !has_value().
    const kvmodel::error& error() const& { return std::get<1>(m_state); }
    /// The error, moved out; precondition: !has_value().
    kvmodel::error&& error() && { return std::move(std::get<1>(m_state)); }
    /// The status: ok on success.
    status code() const noexcept { return has_value() ? status::ok : std::get<1>(m_state).code; }

    /// The value, or fallback converted to T on an error.
    template <class U>
    T value_or(U&& fallback) const& {
        return has_value() ? std::get<0>(m_state) : static_cast<T>(std::forward<U>(fallback));
    }

    /// Calls f(value) on success and returns its result; forwards the error otherwise.
    template <class F>
    auto and_then(F&& f) const& {
        using r = std::invoke_result_t<F, const T&>;
        if (!has_value()) return r(failure{std::get<1>(m_state)});
        return std::forward<F>(f)(std::get<0>(m_state));
    }
    /// \overload
    template <class F>
    auto and_then(F&& f) && {
        using r = std::invoke_result_t<F, T&&>;
        if (!has_value()) return r(failure{std::move(std::get<1>(m_state))});
        return std::forward<F>(f)(std::move(std::get<0>(m_state)));
    }

private:
    std::variant<T, kvmodel::error> m_state;
};

/// result<void>: success, or an error.
template <>
class [[nodiscard]] result<void> {
public:
    /// void.
    using value_type = void;

    result() = default;
    /// A failure: fail(code, message).
    result(failure f) : m_error(std::move(f.err)), m_ok(false) {} // NOLINT
    /// A failure holding e.
    result(kvmodel::error e) : m_error(std::move(e)), m_ok(false) {}        // NOLINT

    /// Whether it succeeded.
    bool has_value() const noexcept { return m_ok; }
    /// has_value().
    explicit operator bool() const noexcept { return m_ok; }
    /// Throws bad_result_access on an error; nothing otherwise.
    void value() const {
        if (!m_ok) detail::throw_bad_result_access(m_error);
    }
    /// The error; precondition: !has_value().
    const kvmodel::error& error() const& { return m_error; }
    /// The status: ok on success.
    status code() const noexcept { return m_ok ? status::ok : m_error.code; }

    /// Calls f() on success and returns its result; forwards the error otherwise.
    template <class F>
    auto and_then(F&& f) const {
        using r = std::invoke_result_t<F>;
        if (!m_ok) return r(failure{m_error});
        return std::forward<F>(f)();
    }

private:
    kvmodel::error m_error;
    bool m_ok = true;
};

} // namespace kvmodel
