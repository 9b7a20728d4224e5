// kvmodel/cdt/engine.hpp
//
// cdt::apply: applies one CDT operation to one bin, exactly as Aerospike's
// server does, and returns the op's result. The bin is std::nullopt when it
// does not exist; a modify op creates it (with the order in the op's policy),
// read and remove ops never create anything. Nested contexts are resolved
// first (cdt/context.hpp). On error the bin is left exactly as it was.
//
// Record-level rules (a read or remove op on a missing record fails
// KEY_NOT_FOUND; an error aborts the whole operate) belong to the store, which
// uses cdt::classify(op_code).
#pragma once

#include <kvmodel/cdt/detail/common.hpp>
#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/config.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <cstddef>
#include <optional>

// The engine itself is parsed only where it is compiled: in each translation
// unit when header-only, once in the library with kvmodel::compiled.
#if KVMODEL_DEFINITIONS
#    include <kvmodel/cdt/context.hpp>
#    include <kvmodel/cdt/detail/list_engine.hpp>
#    include <kvmodel/cdt/detail/map_engine.hpp>
#    include <kvmodel/cdt/detail/range_return.hpp>
#endif

namespace kvmodel::cdt {

/// Applies o to bin (nullopt = absent bin). max_record_size is the
/// namespace's limit (default 1 MiB): list padding that could not fit in it is
/// RECORD_TOO_BIG before anything is allocated; the store still checks the
/// record's real size. Complexity: O(log n + k) for selectors on n elements
/// returning k, O(log n) per context level.
KVMODEL_HOT result<value> apply(std::optional<value>& bin, const op& o,
                                std::size_t max_record_size = detail::default_max_record_size);

namespace detail {
/// cdt::apply for an op through a context, or a map op.
KVMODEL_DECL result<value> apply_nested_or_map(std::optional<value>& bin, const op& o,
                                               std::size_t max_record_size);
} // namespace detail

#if KVMODEL_DEFINITIONS
KVMODEL_DECL result<value> detail::apply_nested_or_map(std::optional<value>& bin, const op& o,
                                                       std::size_t max_record_size) {
    if (!o.ctx.empty()) return apply_in_context(bin, o, max_record_size);
    return apply_map_op(bin, o);
}

KVMODEL_HOT result<value> apply(std::optional<value>& bin, const op& o,
                                std::size_t max_record_size) {
    if (detail::is_range_return(o)) [[unlikely]] {
        // The raw return types 9-12: answered from ordinary ops.
        return detail::apply_range_return(bin, o, [&](std::optional<value>& b, const op& x) {
            if (x.ctx.empty() && !is_map_op(x.code))
                return detail::apply_list_op(b, x, max_record_size);
            return detail::apply_nested_or_map(b, x, max_record_size);
        });
    }
    // A list op on the bin itself: apply_list_op answers the commonest (one
    // append, one element by index or rank) inline - in the caller's code
    // when header-only - and the rest out of line.
    if (o.ctx.empty() && !is_map_op(o.code)) return detail::apply_list_op(bin, o, max_record_size);
    return detail::apply_nested_or_map(bin, o, max_record_size);
}
#endif

} // namespace kvmodel::cdt
