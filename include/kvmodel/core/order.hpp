// kvmodel/core/order.hpp
//
// Aerospike's total order over CDT values (AEROSPIKE-CDT.md §1):
//   NIL < BOOL < INT < STRING < LIST < MAP < BYTES < DOUBLE < INF
// ints and doubles never compare numerically (every int sorts below every
// double); strings and bytes by unsigned bytes, then length; lists element by
// element, then length; maps by entry count, then entry by entry in key order
// (key, then value). WILDCARD compares equal to anything and ends the whole
// comparison, so [1, *] matches [1, "d", "e"].
//
// Departures: NaN sorts above every other double and equals only NaN (the
// server lets NaN compare equal to every double, which is no order at all);
// 0.0 and -0.0 are equivalent, as on the server.
//
// Also: exact equality, hashing, readable printing.
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/value.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <system_error>

namespace kvmodel {
namespace detail {

// Three-way result plus "a wildcard ended the comparison".
struct cmp_result {
    int c;
    bool stop;
};

inline int cmp_bytes(const void* a, std::size_t na, const void* b, std::size_t nb) noexcept {
    std::size_t n = std::min(na, nb);
    int c = n == 0 ? 0 : std::memcmp(a, b, n);
    if (c != 0) return c < 0 ? -1 : 1;
    return na < nb ? -1 : (na > nb ? 1 : 0);
}

inline int cmp_double(double a, double b) noexcept {
    // NaN sorts above every number so the order stays strict and weak.
    bool na = std::isnan(a);
    bool nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
    return a < b ? -1 : (a > b ? 1 : 0);
}

// Out of line: the general comparison is every caller's slow path (the
// containers decide integers and strings inline first), and inlined its
// per-type branches give GCC 12 false -Wmaybe-uninitialized on the
// alternatives a caller's value cannot hold.
KVMODEL_NOINLINE inline cmp_result cmp(const value& a, const value& b, bool wild) noexcept {
    if (wild && (a.is_wildcard() || b.is_wildcard())) return {0, true};
    auto ta = static_cast<int>(a.type());
    auto tb = static_cast<int>(b.type());
    if (ta != tb) return {ta < tb ? -1 : 1, false};
    switch (a.type()) {
    case value_type::nil:
    case value_type::inf:
    case value_type::wildcard: return {0, false};
    case value_type::boolean: return {static_cast<int>(a.as_bool()) - static_cast<int>(b.as_bool()), false};
    case value_type::integer: {
        auto x = a.as_int();
        auto y = b.as_int();
        return {x < y ? -1 : (x > y ? 1 : 0), false};
    }
    case value_type::floating: return {cmp_double(a.as_double(), b.as_double()), false};
    case value_type::string: {
        const auto& x = a.as_string();
        const auto& y = b.as_string();
        return {cmp_bytes(x.data(), x.size(), y.data(), y.size()), false};
    }
    case value_type::bytes: {
        const auto& x = a.as_bytes();
        const auto& y = b.as_bytes();
        return {cmp_bytes(x.data(), x.size(), y.data(), y.size()), false};
    }
    case value_type::list: {
        const list& x = a.as_list();
        const list& y = b.as_list();
        auto ix = x.begin();
        auto iy = y.begin();
        for (; ix != x.end() && iy != y.end(); ++ix, ++iy) {
            cmp_result r = cmp(*ix, *iy, wild);
            if (r.stop || r.c != 0) return r;
        }
        return {x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0), false};
    }
    case value_type::map: {
        const map& x = a.as_map();
        const map& y = b.as_map();
        if (x.size() != y.size()) return {x.size() < y.size() ? -1 : 1, false};
        for (auto ix = x.begin(), iy = y.begin(); ix != x.end(); ++ix, ++iy) {
            cmp_result r = cmp(ix->key, iy->key, wild);
            if (r.stop || r.c != 0) return r;
            r = cmp(ix->val, iy->val, wild);
            if (r.stop || r.c != 0) return r;
        }
        return {0, false};
    }
    }
    return {0, false};
}

inline int cdt_compare(const value& a, const value& b, bool wildcard_matches) noexcept {
    return cmp(a, b, wildcard_matches).c;
}

inline void hash_combine(std::size_t& seed, std::size_t h) noexcept {
    seed ^= h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

inline void append_escaped(std::string& out, const std::string& s) {
    out += '"';
    // Over the characters by pointer: the string's iterators would be five
    // more functions to compile at -O0.
    for (const char *p = s.data(), *end = p + s.size(); p != end; ++p) {
        auto ch = static_cast<unsigned char>(*p);
        switch (ch) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if (ch < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", ch);
                out += buf;
            } else {
                out += static_cast<char>(ch);
            }
        }
    }
    out += '"';
}

inline void print(std::string& out, const value& v) {
    switch (v.type()) {
    case value_type::nil: out += "nil"; return;
    case value_type::inf: out += "INF"; return;
    case value_type::wildcard: out += "*"; return;
    case value_type::boolean: out += v.as_bool() ? "true" : "false"; return;
    case value_type::integer: out += std::to_string(v.as_int()); return;
    case value_type::floating: {
        // Shortest text that reads back to the same double (1.1, not
        // 1.1000000000000001); ".0" keeps it visibly a double.
        char buf[40];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.as_double());
        const char* last = ec == std::errc{} ? end : buf;
        out.append(buf, static_cast<std::size_t>(last - buf));
        bool plain = true; // no '.', exponent, "nan" or "inf"
        for (const char* p = buf; p != last; ++p)
            if (*p == '.' || *p == 'e' || *p == 'E' || *p == 'n') plain = false;
        if (plain) out += ".0";
        return;
    }
    case value_type::string: append_escaped(out, v.as_string()); return;
    case value_type::bytes: {
        static constexpr char hex[] = "0123456789abcdef";
        out += "0x";
        for (std::uint8_t b : v.as_bytes()) {
            out += hex[b >> 4];
            out += hex[b & 15];
        }
        return;
    }
    case value_type::list: {
        out += '[';
        bool first = true;
        for (const value& e : v.as_list()) {
            if (!first) out += ", ";
            first = false;
            print(out, e);
        }
        out += ']';
        return;
    }
    case value_type::map: {
        out += '{';
        bool first = true;
        for (const map_entry& e : v.as_map()) {
            if (!first) out += ", ";
            first = false;
            print(out, e.key);
            out += ": ";
            print(out, e.val);
        }
        out += '}';
        return;
    }
    }
}

} // namespace detail

inline std::weak_ordering compare(const value& a, const value& b) noexcept {
    int c = detail::cdt_compare(a, b, true);
    return c < 0 ? std::weak_ordering::less
                 : (c > 0 ? std::weak_ordering::greater : std::weak_ordering::equivalent);
}

/// Strict weak order for standard containers and algorithms (no wildcard matching).
struct value_less {
    /// Whether a sorts before b in Aerospike's cross-type order.
    bool operator()(const value& a, const value& b) const noexcept {
        return detail::cdt_compare(a, b, false) < 0;
    }
};

inline bool operator==(const value& a, const value& b) noexcept {
    if (a.type() != b.type()) return false;
    switch (a.type()) {
    case value_type::floating:
        // Bitwise at every depth, so NaN == NaN, 0.0 != -0.0 and hashing
        // agrees (compare() calls 0.0 and -0.0 equivalent, as the server does).
        return std::bit_cast<std::uint64_t>(a.as_double()) ==
               std::bit_cast<std::uint64_t>(b.as_double());
    case value_type::list: {
        const list& x = a.as_list();
        const list& y = b.as_list();
        if (x.size() != y.size()) return false;
        for (auto ix = x.begin(), iy = y.begin(); ix != x.end(); ++ix, ++iy)
            if (!(*ix == *iy)) return false;
        return true;
    }
    case value_type::map: {
        const map& x = a.as_map();
        const map& y = b.as_map();
        if (x.size() != y.size()) return false;
        for (auto ix = x.begin(), iy = y.begin(); ix != x.end(); ++ix, ++iy)
            if (!(ix->key == iy->key) || !(ix->val == iy->val)) return false;
        return true;
    }
    default: return detail::cdt_compare(a, b, false) == 0;
    }
}

inline bool value::contains_wildcard() const noexcept {
    switch (type()) {
    case value_type::wildcard: return true;
    // Loops rather than std::any_of over lambdas: each lambda type is its own
    // chain of algorithm functions to compile in a header-only user's file.
    case value_type::list:
        for (const value& e : as_list())
            if (e.contains_wildcard()) return true;
        return false;
    case value_type::map:
        for (const map_entry& e : as_map())
            if (e.key.contains_wildcard() || e.val.contains_wildcard()) return true;
        return false;
    default: return false;
    }
}

/// The name of a value type for messages: "nil", "bool", "int", "string",
/// "list", "map", "bytes", "double", "INF", "WILDCARD". O(1), never fails.
inline std::string_view type_name(value_type t) noexcept {
    switch (t) {
    case value_type::nil: return "nil";
    case value_type::boolean: return "bool";
    case value_type::integer: return "int";
    case value_type::string: return "string";
    case value_type::list: return "list";
    case value_type::map: return "map";
    case value_type::bytes: return "bytes";
    case value_type::floating: return "double";
    case value_type::inf: return "INF";
    case value_type::wildcard: return "WILDCARD";
    }
    return "?";
}

inline std::string to_string(const value& v) {
    std::string out;
    detail::print(out, v);
    return out;
}

inline std::ostream& operator<<(std::ostream& os, const value& v) {
    return os << to_string(v);
}

} // namespace kvmodel

/// \cond std_hash
inline std::size_t std::hash<kvmodel::value>::operator()(const kvmodel::value& v) const noexcept {
    using kvmodel::value_type;
    std::size_t seed = static_cast<std::size_t>(v.type());
    switch (v.type()) {
    case value_type::boolean: kvmodel::detail::hash_combine(seed, v.as_bool() ? 1 : 2); break;
    case value_type::integer: kvmodel::detail::hash_combine(seed, std::hash<std::int64_t>{}(v.as_int())); break;
    case value_type::floating:
        kvmodel::detail::hash_combine(seed, std::hash<std::uint64_t>{}(std::bit_cast<std::uint64_t>(v.as_double())));
        break;
    case value_type::string: kvmodel::detail::hash_combine(seed, std::hash<std::string>{}(v.as_string())); break;
    case value_type::bytes: {
        const auto& b = v.as_bytes();
        kvmodel::detail::hash_combine(
            seed, std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(b.data()), b.size())));
        break;
    }
    case value_type::list:
        for (const kvmodel::value& e : v.as_list()) kvmodel::detail::hash_combine(seed, (*this)(e));
        break;
    case value_type::map:
        for (const kvmodel::map_entry& e : v.as_map()) {
            kvmodel::detail::hash_combine(seed, (*this)(e.key));
            kvmodel::detail::hash_combine(seed, (*this)(e.val));
        }
        break;
    default: break;
    }
    return seed;
}
/// \endcond
