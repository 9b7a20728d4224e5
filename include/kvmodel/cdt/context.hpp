// kvmodel/cdt/context.hpp
//
// Nested contexts: resolves an op's ctx steps (list_index, list_rank,
// list_value, map_index, map_key, map_rank, map_value and the create steps)
// down to the target container, applies the op there, and writes the result
// back into its parents. Being written; see cdt/engine.hpp.
#pragma once

#include <kvmodel/cdt/detail/common.hpp>
#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <optional>

namespace kvmodel::cdt::detail {

/// Applies o (with a non-empty ctx) to bin. On error bin is unchanged.
inline result<value> apply_in_context(std::optional<value>& bin, const op& o) {
    (void)bin;
    return op_error(status::unsupported_feature, o.code, "contexts not built yet");
}

} // namespace kvmodel::cdt::detail
