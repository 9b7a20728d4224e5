// kvmodel/kvmodel.hpp
//
// Everything except the adapters (which need a database client) and the JSON
// notation of values and stats (core/json.hpp, sim/stats_json.hpp), which
// bring in nlohmann/json (a quarter of this header's compile time): include
// them where they are used.
#pragma once

#include <kvmodel/cdt/bit_ops.hpp>
#include <kvmodel/cdt/engine.hpp>
#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/core/assert.hpp>
#include <kvmodel/core/msgpack_size.hpp>
#include <kvmodel/core/order.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/exp/build.hpp>
#include <kvmodel/exp/codes.hpp>
#include <kvmodel/exp/eval.hpp>
#include <kvmodel/exp/hook.hpp>
#include <kvmodel/kv/digest.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/record_size.hpp>
#include <kvmodel/kv/retry.hpp>
#include <kvmodel/kv/status.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/patterns/activity_bitmap.hpp>
#include <kvmodel/patterns/activity_stream.hpp>
#include <kvmodel/patterns/background_ops.hpp>
#include <kvmodel/patterns/bucketed_list.hpp>
#include <kvmodel/patterns/capped_map.hpp>
#include <kvmodel/patterns/codec.hpp>
#include <kvmodel/patterns/consolidated_counters.hpp>
#include <kvmodel/patterns/event_map.hpp>
#include <kvmodel/patterns/exactly_once.hpp>
#include <kvmodel/patterns/leaderboard.hpp>
#include <kvmodel/patterns/nested_document.hpp>
#include <kvmodel/patterns/reverse_feed.hpp>
#include <kvmodel/patterns/sharded_counter.hpp>
#include <kvmodel/patterns/record_pattern.hpp>
#include <kvmodel/patterns/time_series.hpp>
#include <kvmodel/patterns/timestamped_map.hpp>
#include <kvmodel/sim/clock.hpp>
#include <kvmodel/sim/cluster.hpp>
#include <kvmodel/sim/faults.hpp>
#include <kvmodel/sim/stats.hpp>
