// kvmodel/patterns/codec.hpp
//
// How a pattern stores a caller's type as a kvmodel::value and reads it back:
// `codec<T>::encode(const T&) -> value` and `codec<T>::decode(const value&)
// -> result<T>`. Defaults cover value itself, bool, integers, floating point,
// std::string, bytes, std::optional, std::vector, std::pair and std::tuple
// (as lists) and std::map (as maps); a caller's struct gets a codec by
// specialising codec<T>, typically as a list of its fields so that the value
// order (and thus ranks and value ranges) follows the first field:
//
//   template <> struct kvmodel::patterns::codec<score> {
//       static value encode(const score& s) { return list{s.points, s.name}; }
//       static result<score> decode(const value& v) { ... }
//   };
//
// or, in one line at global scope, by naming its fields (the same list
// encoding, first field first):
//
//   KVMODEL_CODEC(score, &score::points, &score::name);
//
// lenient<N> decodes a number stored as int or double when the conversion is
// exact (20 as a double, 20.0 as an int; 20.5 as an int is an error).
//
// decode never trusts the stored value: a wrong shape is a PARAMETER_ERROR
// naming what was expected, never UB.
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace kvmodel::patterns {

template <class T, class Enable = void>
struct codec;

/// A type the patterns can store: codec<T> encodes and decodes it.
template <class T>
concept encodable = requires(const T& t, const value& v) {
    { codec<T>::encode(t) } -> std::convertible_to<value>;
    { codec<T>::decode(v) } -> std::same_as<result<T>>;
};

namespace detail {
/// PARAMETER_ERROR "decode: expected <expected>, got <type> <value>".
KVMODEL_DECL error decode_error(std::string_view expected, const value& got);
/// PARAMETER_ERROR "decode: integer <i> does not fit the target type".
KVMODEL_DECL error int_range_error(std::int64_t i);
} // namespace detail

/// A value stores as itself.
template <>
struct codec<value> {
    /// v.
    static value encode(const value& v) { return v; }
    /// v; never fails.
    static result<value> decode(const value& v) { return v; }
};

/// bool as a boolean value.
template <>
struct codec<bool> {
    /// b as a value.
    static value encode(bool b) { return value{b}; }
    /// PARAMETER_ERROR unless v is a boolean.
    static result<bool> decode(const value& v) {
        if (!v.is_bool()) return detail::decode_error("bool", v);
        return v.as_bool();
    }
};

template <class I>
struct codec<I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>> {
    static value encode(I i) { return value{static_cast<std::int64_t>(i)}; }
    static result<I> decode(const value& v) {
        if (!v.is_int()) return detail::decode_error("int", v);
        std::int64_t i = v.as_int();
        if constexpr (std::is_unsigned_v<I> && sizeof(I) == 8) {
            return static_cast<I>(i);
        } else {
            if (i < static_cast<std::int64_t>(std::numeric_limits<I>::min()) ||
                i > static_cast<std::int64_t>(std::numeric_limits<I>::max()))
                return detail::int_range_error(i);
            return static_cast<I>(i);
        }
    }
};

template <class F>
struct codec<F, std::enable_if_t<std::is_floating_point_v<F>>> {
    static value encode(F f) { return value{static_cast<double>(f)}; }
    static result<F> decode(const value& v) {
        if (!v.is_double()) return detail::decode_error("double", v);
        return static_cast<F>(v.as_double());
    }
};

template <>
struct codec<std::string> {
    static value encode(const std::string& s) { return value{s}; }
    static result<std::string> decode(const value& v) {
        if (!v.is_string()) return detail::decode_error("string", v);
        return v.as_string();
    }
};

/// bytes as a blob.
template <>
struct codec<bytes> {
    /// b as a value.
    static value encode(const bytes& b) { return value{b}; }
    /// PARAMETER_ERROR unless v is a blob.
    static result<bytes> decode(const value& v) {
        if (!v.is_bytes()) return detail::decode_error("bytes", v);
        return v.as_bytes();
    }
};

template <encodable T>
struct codec<std::optional<T>> {
    static value encode(const std::optional<T>& o) { return o ? value(codec<T>::encode(*o)) : value{}; }
    static result<std::optional<T>> decode(const value& v) {
        if (v.is_nil()) return std::optional<T>{};
        auto r = codec<T>::decode(v);
        if (!r) return r.error();
        return std::optional<T>(std::move(r).value());
    }
};

template <encodable T>
struct codec<std::vector<T>> {
    static value encode(const std::vector<T>& xs) {
        list l;
        for (const T& x : xs) l.push_back(codec<T>::encode(x));
        return value{std::move(l)};
    }
    static result<std::vector<T>> decode(const value& v) {
        if (!v.is_list()) return detail::decode_error("list", v);
        std::vector<T> out;
        out.reserve(v.as_list().size());
        for (const value& e : v.as_list()) {
            auto r = codec<T>::decode(e);
            if (!r) return r.error();
            out.push_back(std::move(r).value());
        }
        return out;
    }
};

template <encodable K, encodable V, class C, class A>
struct codec<std::map<K, V, C, A>> {
    static value encode(const std::map<K, V, C, A>& m) {
        map out;
        for (const auto& [k, v] : m) out.put(codec<K>::encode(k), codec<V>::encode(v));
        return value{std::move(out)};
    }
    static result<std::map<K, V, C, A>> decode(const value& v) {
        if (!v.is_map()) return detail::decode_error("map", v);
        std::map<K, V, C, A> out;
        for (const map_entry& e : v.as_map()) {
            auto k = codec<K>::decode(e.key);
            if (!k) return k.error();
            auto x = codec<V>::decode(e.val);
            if (!x) return x.error();
            out.emplace(std::move(k).value(), std::move(x).value());
        }
        return out;
    }
};

template <encodable... Ts>
struct codec<std::tuple<Ts...>> {
    static value encode(const std::tuple<Ts...>& t) {
        list l;
        std::apply([&](const Ts&... xs) { (l.push_back(codec<Ts>::encode(xs)), ...); }, t);
        return value{std::move(l)};
    }
    static result<std::tuple<Ts...>> decode(const value& v) {
        if (!v.is_list() || v.as_list().size() != sizeof...(Ts))
            return detail::decode_error("list of " + std::to_string(sizeof...(Ts)) + " elements", v);
        return decode_at(v.as_list(), std::index_sequence_for<Ts...>{});
    }

private:
    template <std::size_t... I>
    static result<std::tuple<Ts...>> decode_at(const list& l, std::index_sequence<I...>) {
        std::tuple<result<Ts>...> parts{codec<Ts>::decode(l[I])...};
        std::optional<error> first_error;
        (
            [&] {
                if (!first_error && !std::get<I>(parts)) first_error = std::get<I>(parts).error();
            }(),
            ...);
        if (first_error) return *first_error;
        return std::tuple<Ts...>{std::move(std::get<I>(parts)).value()...};
    }
};

template <encodable A, encodable B>
struct codec<std::pair<A, B>> {
    static value encode(const std::pair<A, B>& p) {
        return value{list{codec<A>::encode(p.first), codec<B>::encode(p.second)}};
    }
    // As codec<std::tuple<A, B>> decodes (both decoded, the first error
    // wins), without its tuple<result<A>, result<B>> machinery.
    static result<std::pair<A, B>> decode(const value& v) {
        if (!v.is_list() || v.as_list().size() != 2) return detail::decode_error("list of 2 elements", v);
        auto a = codec<A>::decode(v.as_list()[0]);
        auto b = codec<B>::decode(v.as_list()[1]);
        if (!a) return a.error();
        if (!b) return b.error();
        return std::pair<A, B>{std::move(a).value(), std::move(b).value()};
    }
};

/// A struct stored as the list of the named fields, in that order: the
/// codec KVMODEL_CODEC declares. T must be default-constructible.
template <class T, auto... Members>
struct member_codec {
    /// [t.*Members...].
    static value encode(const T& t) {
        list l;
        (l.push_back(codec<std::remove_cvref_t<decltype(t.*Members)>>::encode(t.*Members)), ...);
        return value{std::move(l)};
    }
    /// PARAMETER_ERROR unless v is a list of sizeof...(Members) decodable fields.
    static result<T> decode(const value& v) {
        if (!v.is_list() || v.as_list().size() != sizeof...(Members))
            return detail::decode_error("list of " + std::to_string(sizeof...(Members)) + " fields",
                                        v);
        T out{};
        std::optional<error> failed;
        std::size_t i = 0;
        (decode_field<Members>(out, v.as_list()[i++], failed), ...);
        if (failed) return *failed;
        return out;
    }

private:
    template <auto Member>
    static void decode_field(T& out, const value& v, std::optional<error>& failed) {
        if (failed) return;
        auto r = codec<std::remove_cvref_t<decltype(out.*Member)>>::decode(v);
        if (!r) failed = r.error();
        else out.*Member = std::move(r).value();
    }
};

/// A number that decodes from an int or a double when the conversion is
/// exact; converts to and from N implicitly.
template <class N>
    requires std::is_arithmetic_v<N> && (!std::is_same_v<N, bool>)
struct lenient {
    N value{}; ///< the number

    /// Wraps n.
    lenient(N n = N{}) noexcept // NOLINT(google-explicit-constructor): a drop-in for N
        : value(n) {}
    /// The number.
    operator N() const noexcept { return value; } // NOLINT(google-explicit-constructor)
};

/// lenient<N>: stored as N; decodes an int or a double that converts exactly.
template <class N>
struct codec<lenient<N>> {
    /// As codec<N>.
    static value encode(const lenient<N>& n) { return codec<N>::encode(n.value); }
    /// PARAMETER_ERROR for a non-number or an inexact conversion.
    static result<lenient<N>> decode(const value& v) {
        if constexpr (std::is_floating_point_v<N>) {
            if (v.is_int()) {
                const std::int64_t i = v.as_int();
                const auto d = static_cast<N>(i);
                // Exact when it converts back (and |i| stays below 2^63).
                if (d < static_cast<N>(9.2233720368547758e18) && static_cast<std::int64_t>(d) == i)
                    return lenient<N>(d);
                return error{status::parameter_error,
                             "decode: integer " + std::to_string(i) + " is not exact as a double"};
            }
        } else {
            if (v.is_double()) {
                const double d = v.as_double();
                if (d >= -9.2233720368547758e18 && d < 9.2233720368547758e18) {
                    const auto i = static_cast<std::int64_t>(d);
                    if (static_cast<double>(i) == d) return codec<lenient<N>>::decode(value{i});
                }
                return detail::decode_error("an integral double", v);
            }
        }
        auto r = codec<N>::decode(v);
        if (!r) return r.error();
        return lenient<N>(*r);
    }
};

/// encode() through the type's codec.
template <encodable T>
value encode(const T& t) {
    return codec<T>::encode(t);
}
/// decode() through the type's codec.
template <encodable T>
result<T> decode(const value& v) {
    return codec<T>::decode(v);
}

} // namespace kvmodel::patterns

/// Declares kvmodel::patterns::codec<T> for a plain struct as the list of
/// the given member pointers, in order (use at global scope):
/// `KVMODEL_CODEC(reading, &reading::ts, &reading::celsius);`
#define KVMODEL_CODEC(T, ...)                                                                      \
    template <>                                                                                    \
    struct kvmodel::patterns::codec<T> : kvmodel::patterns::member_codec<T, __VA_ARGS__> {}

#if KVMODEL_DEFINITIONS
namespace kvmodel::patterns {

KVMODEL_DECL error detail::decode_error(std::string_view expected, const value& got) {
    return error{status::parameter_error, "decode: expected " + std::string(expected) + ", got " +
                                              std::string(type_name(got.type())) + " " +
                                              to_string(got)};
}

KVMODEL_DECL error detail::int_range_error(std::int64_t i) {
    return error{status::parameter_error,
                 "decode: integer " + std::to_string(i) + " does not fit the target type"};
}

} // namespace kvmodel::patterns
#endif // KVMODEL_DEFINITIONS
