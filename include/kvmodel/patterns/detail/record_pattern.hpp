// kvmodel/patterns/detail/record_pattern.hpp
//
// The patterns' former internal names for the public extension base
// (patterns/record_pattern.hpp), kept so the patterns read unchanged.
#pragma once

#include <kvmodel/patterns/record_pattern.hpp>

namespace kvmodel::patterns::detail {
using patterns::as_list_result;
using patterns::count_result;
using patterns::decode_pairs;
using patterns::decode_values;
using patterns::operate;
using patterns::record_pattern;
} // namespace kvmodel::patterns::detail
