// kvmodel/core/result.hpp
//
// result<T>: a value or an error, the std::expected subset kvmodel needs
// (has_value, value, error, operator bool, and_then). Expected outcomes (record
// not found, element exists, record too big) are results, never exceptions;
// value() on an error throws bad_result_access.
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/status.hpp>

#include <cstdint>
#include <exception>
#include <memory>
#include <new>
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
// What result<T>::error() throws on a success, as std::get did when a
// std::variant held the two.
[[noreturn]] inline void throw_bad_variant_access() {
    throw std::bad_variant_access();
}

// The success flag every result<T> starts with (the same size as a flag
// after the union): its tests, on every op's path, are then one function for
// all T rather than one per result type a file uses.
class result_state {
public:
    /// Whether it holds a value.
    KVMODEL_FORCE_INLINE bool has_value() const noexcept { return m_ok; }
    /// has_value().
    KVMODEL_FORCE_INLINE explicit operator bool() const noexcept { return m_ok; }

protected:
    explicit result_state(bool ok) noexcept : m_ok(ok) {}
    bool m_ok;
};
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
/// A failure of `code` with `message` (name the operation and the limit).
inline failure fail(status code, std::string message) {
    return failure{error{code, std::move(message)}};
}
/// A failure carrying `e` as is (to pass an error on).
inline failure fail(error e) {
    return failure{std::move(e)};
}

/// A value or an error: the std::expected subset kvmodel needs. Expected outcomes
/// (not found, element exists, record too big, timeouts) come back as an error
/// value, never as an exception; value() on an error throws bad_result_access.
/// `auto x = f().value();` keeps the value; `for (auto& e : f().value())`
/// iterates a destroyed temporary (value() && returns T&&): name the result first.
template <class T>
class [[nodiscard]] result : public detail::result_state {
public:
    /// The value's type.
    using value_type = T;

    result()
        requires std::is_default_constructible_v<T>
        : result_state(true), m_value() {}
    // Built in place: a copy or a move, never both (results are on every
    // op's path).
    /// A success holding a copy of v.
    // NOLINTNEXTLINE(google-explicit-constructor)
    result(const T& v) : result_state(true), m_value(v) {}
    /// A success holding v, moved.
    // NOLINTNEXTLINE(google-explicit-constructor)
    result(T&& v) : result_state(true), m_value(std::move(v)) {}
    /// A success holding a T built from v.
    template <class U>
        requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::decay_t<U>, T> &&
                 !std::is_same_v<std::decay_t<U>, failure> &&
                 !std::is_same_v<std::decay_t<U>, kvmodel::error> &&
                 !std::is_same_v<std::decay_t<U>, result>)
    result(U&& v) : result_state(true), m_value(static_cast<T>(std::forward<U>(v))) {} // NOLINT
    /// A failure: fail(code, message).
    result(failure f) : result_state(false), m_error(std::move(f.err)) {} // NOLINT
    /// A failure holding e.
    result(kvmodel::error e) : result_state(false), m_error(std::move(e)) {} // NOLINT

    /// A copy.
    result(const result& o)
        requires std::is_copy_constructible_v<T>
        : result_state(o.m_ok) {
        construct_from(o);
    }
    /// Takes o's content (o keeps a moved-from one).
    result(result&& o) noexcept(std::is_nothrow_move_constructible_v<T>)
        requires std::is_move_constructible_v<T>
        : result_state(o.m_ok) {
        construct_from(std::move(o));
    }
    /// Copy assignment.
    result& operator=(const result& o)
        requires(std::is_copy_constructible_v<T> && std::is_copy_assignable_v<T>)
    {
        if (m_ok == o.m_ok) {
            if (m_ok) m_value = o.m_value;
            else m_error = o.m_error;
        } else {
            result copy(o);
            replace_with(std::move(copy));
        }
        return *this;
    }
    /// Move assignment.
    result& operator=(result&& o) noexcept(std::is_nothrow_move_constructible_v<T> &&
                                           std::is_nothrow_move_assignable_v<T>)
        requires(std::is_move_constructible_v<T> && std::is_move_assignable_v<T>)
    {
        if (m_ok == o.m_ok) {
            if (m_ok) m_value = std::move(o.m_value);
            else m_error = std::move(o.m_error);
        } else {
            replace_with(std::move(o));
        }
        return *this;
    }
    // destroy()'s body: at -O0 a result type's destructor is then one
    // function, not two.
    ~result() {
        if (m_ok) m_value.~T();
        else m_error.~error();
    }

    /// The value; throws bad_result_access on an error.
    KVMODEL_FORCE_INLINE T& value() & {
        if (!m_ok) detail::throw_bad_result_access(m_error);
        return m_value;
    }
    /// \overload
    KVMODEL_FORCE_INLINE const T& value() const& {
        if (!m_ok) detail::throw_bad_result_access(m_error);
        return m_value;
    }
    /// The value, moved out; throws bad_result_access on an error. The reference
    /// dies with the result: bind it to a variable (`auto v = f().value();`).
    KVMODEL_FORCE_INLINE T&& value() && {
        if (!m_ok) detail::throw_bad_result_access(m_error);
        return std::move(m_value);
    }
    /// value().
    KVMODEL_FORCE_INLINE T& operator*() & { return value(); }
    /// value().
    KVMODEL_FORCE_INLINE const T& operator*() const& { return value(); }
    /// &value().
    KVMODEL_FORCE_INLINE T* operator->() { return &value(); }
    /// &value().
    KVMODEL_FORCE_INLINE const T* operator->() const { return &value(); }

    /// The error; precondition: !has_value() (else throws std::bad_variant_access).
    KVMODEL_FORCE_INLINE const kvmodel::error& error() const& {
        if (m_ok) detail::throw_bad_variant_access();
        return m_error;
    }
    /// The error, moved out; precondition: !has_value().
    KVMODEL_FORCE_INLINE kvmodel::error&& error() && {
        if (m_ok) detail::throw_bad_variant_access();
        return std::move(m_error);
    }
    /// The status: ok on success.
    KVMODEL_FORCE_INLINE status code() const noexcept { return m_ok ? status::ok : m_error.code; }

    /// The value, or fallback converted to T on an error.
    template <class U>
    T value_or(U&& fallback) const& {
        return m_ok ? m_value : static_cast<T>(std::forward<U>(fallback));
    }

    /// Calls f(value) on success and returns its result; forwards the error otherwise.
    template <class F>
    auto and_then(F&& f) const& {
        using r = std::invoke_result_t<F, const T&>;
        if (!m_ok) return r(failure{m_error});
        return std::forward<F>(f)(m_value);
    }
    /// \overload
    template <class F>
    auto and_then(F&& f) && {
        using r = std::invoke_result_t<F, T&&>;
        if (!m_ok) return r(failure{std::move(m_error)});
        return std::forward<F>(f)(std::move(m_value));
    }

private:
    // Constructs the member m_ok names (not alive) from o's.
    // (Placement new and destructor calls rather than std::construct_at /
    // destroy_at: no helper instantiated per T at -O0.)
    template <class R>
    KVMODEL_FORCE_INLINE void construct_from(R&& o) {
        if (m_ok) ::new (static_cast<void*>(&m_value)) T(std::forward<R>(o).m_value);
        else ::new (static_cast<void*>(&m_error)) kvmodel::error(std::forward<R>(o).m_error);
    }
    KVMODEL_FORCE_INLINE void destroy() noexcept {
        if (m_ok) m_value.~T();
        else m_error.~error();
    }
    // Takes o's content when it holds the other state. Should T's move
    // throw, this result holds a default error rather than a dead member.
    KVMODEL_FORCE_INLINE void replace_with(result&& o) {
        destroy();
        m_ok = o.m_ok;
        if constexpr (std::is_nothrow_move_constructible_v<T>) {
            construct_from(std::move(o));
        } else {
            try {
                construct_from(std::move(o));
            } catch (...) {
                m_ok = false;
                ::new (static_cast<void*>(&m_error)) kvmodel::error();
                throw;
            }
        }
    }

    // A union and a flag rather than std::variant<T, error>: the same two
    // states, but a result type costs a handful of functions to compile
    // instead of the variant's few dozen, and every T a store, the engine or a
    // pattern returns is one (measured with tools/compile_time.sh).
    union {
        T m_value;
        kvmodel::error m_error;
    };
};

/// result<void>: success, or an error.
template <>
class [[nodiscard]] result<void> : public detail::result_state {
public:
    /// void.
    using value_type = void;

    result() noexcept : result_state(true) {}
    /// A failure: fail(code, message).
    result(failure f) : result_state(false), m_error(std::move(f.err)) {} // NOLINT
    /// A failure holding e.
    result(kvmodel::error e) : result_state(false), m_error(std::move(e)) {} // NOLINT
    /// Throws bad_result_access on an error; nothing otherwise.
    void value() const {
        if (!m_ok) detail::throw_bad_result_access(m_error);
    }
    /// The error; precondition: !has_value().
    KVMODEL_FORCE_INLINE const kvmodel::error& error() const& { return m_error; }
    /// The status: ok on success.
    KVMODEL_FORCE_INLINE status code() const noexcept { return m_ok ? status::ok : m_error.code; }

    /// Calls f() on success and returns its result; forwards the error otherwise.
    template <class F>
    auto and_then(F&& f) const {
        using r = std::invoke_result_t<F>;
        if (!m_ok) return r(failure{m_error});
        return std::forward<F>(f)();
    }

private:
    kvmodel::error m_error;
};

} // namespace kvmodel

// The results a store, the engine and the patterns return most (counts,
// sizes, strings); with kvmodel::compiled their members are compiled once, in
// the library.
KVMODEL_INSTANTIATE(class kvmodel::result<std::int64_t>)
KVMODEL_INSTANTIATE(class kvmodel::result<std::uint64_t>)
KVMODEL_INSTANTIATE(class kvmodel::result<std::string>)
