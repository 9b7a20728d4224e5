// kvmodel/cdt/detail/bit_engine.hpp
//
// The engine behind cdt::apply_bit_op (cdt/bit_ops.hpp). Being written.
#pragma once

#include <kvmodel/cdt/bit_ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <optional>
#include <string>

namespace kvmodel::cdt {

inline result<value> apply_bit_op(std::optional<value>& bin, const bit_op& o) {
    (void)bin;
    return fail(status::unsupported_feature, std::string(bit_op_name(o.code)) + ": bit engine not built yet");
}

} // namespace kvmodel::cdt
