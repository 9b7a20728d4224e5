// kvmodel/exp/detail/unordered_cmp.hpp
//
// Which comparisons of lists and maps the server refuses. exp.c's
// cmp_msgpack compares the two packed values with msgpack_cmp and answers
// unknown when that comparison parsed the header of a non-empty map that is
// not key-ordered (cf/src/msgpack_in.c, cmp_parse_container). msgpack_cmp
// walks both values in lockstep, in preorder, and stops at the first
// difference: a list's elements up to the shorter length, a map only when
// both have as many entries (then key, value, key, value, ...). So an
// unordered map is refused only where the walk reaches it: [true, {…}] and
// [1, {…}] compare fine (true and 1 differ first).
//
// Cost: O(the common prefix walked).
#pragma once

#include <kvmodel/core/order.hpp>
#include <kvmodel/core/value.hpp>

#include <algorithm>
#include <cstddef>

namespace kvmodel::exp::detail {

/// Whether msgpack_cmp, comparing a with b, reads the header of a non-empty
/// map that is not key-ordered (its element count counted as parsed).
inline bool cmp_reaches_unordered_map(const value& a, const value& b) {
    auto unordered = [](const value& v) {
        return v.is_map() && !v.as_map().empty() &&
               (static_cast<unsigned>(v.as_map().order()) & 1U) == 0;
    };
    // Both headers are parsed before their types are compared.
    if (unordered(a) || unordered(b))
        return true;
    if (a.is_list() && b.is_list()) {
        const list& x = a.as_list();
        const list& y = b.as_list();
        std::size_t n = std::min(x.size(), y.size());
        for (std::size_t i = 0; i < n; ++i) {
            if (cmp_reaches_unordered_map(x[i], y[i]))
                return true;
            if (kvmodel::detail::cdt_compare(x[i], y[i], true) != 0)
                return false;
        }
        return false;
    }
    if (a.is_map() && b.is_map()) {
        const map& x = a.as_map();
        const map& y = b.as_map();
        if (x.size() != y.size())
            return false;
        for (std::size_t i = 0; i < x.size(); ++i) {
            const map_entry& p = x.entry_at(i);
            const map_entry& q = y.entry_at(i);
            if (cmp_reaches_unordered_map(p.key, q.key))
                return true;
            if (kvmodel::detail::cdt_compare(p.key, q.key, true) != 0)
                return false;
            if (cmp_reaches_unordered_map(p.val, q.val))
                return true;
            if (kvmodel::detail::cdt_compare(p.val, q.val, true) != 0)
                return false;
        }
    }
    return false;
}

} // namespace kvmodel::exp::detail
