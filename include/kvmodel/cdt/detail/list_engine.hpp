// kvmodel/cdt/detail/list_engine.hpp
//
// The list half of the CDT engine: every list op applied to a target that is
// reached already (no context). Being written; see cdt/engine.hpp.
#pragma once

#include <kvmodel/cdt/detail/common.hpp>
#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <optional>

namespace kvmodel::cdt::detail {

/// Applies list op o to target (nullopt = absent; a modify op creates it).
/// On error target is unchanged.
inline result<value> apply_list_op(std::optional<value>& target, const op& o) {
    (void)target;
    return op_error(status::unsupported_feature, o.code, "list engine not built yet");
}

} // namespace kvmodel::cdt::detail
