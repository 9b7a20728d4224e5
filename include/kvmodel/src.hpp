// kvmodel/src.hpp
//
// The compiled part of kvmodel for programs built with
// KVMODEL_SEPARATE_COMPILATION (kvmodel/config.hpp): include this header in
// exactly one .cpp of the program, before any other kvmodel header. Without
// KVMODEL_SEPARATE_COMPILATION it is an ordinary header-only include.
#pragma once

#if defined(KVMODEL_SEPARATE_COMPILATION)
#    if defined(KVMODEL_CONFIG_INCLUDED)
#        error "<kvmodel/src.hpp> must come before any other kvmodel header in its .cpp"
#    endif
#    define KVMODEL_SOURCE 1
#endif

#include <kvmodel/config.hpp>

#include <kvmodel/cdt/bit_ops.hpp>
#include <kvmodel/cdt/engine.hpp>
#include <kvmodel/cdt/hll_ops.hpp>
#include <kvmodel/exp/eval.hpp> // registers the expression engine (exp/hook.hpp)
#include <kvmodel/sim/cluster.hpp>
#include <kvmodel/patterns/bucketed_list.hpp>
#include <kvmodel/patterns/capped_map.hpp>
#include <kvmodel/patterns/leaderboard.hpp>
#include <kvmodel/patterns/record_pattern.hpp>
