// kvmodel/kvmodel.hpp
//
// Everything except the adapters (which need a database client), the JSON
// notation of values and stats (core/json.hpp, sim/stats_json.hpp), which
// bring in nlohmann/json (a quarter of this header's compile time), and the
// expression builder and engine (exp/build.hpp, exp/eval.hpp: ~4,000 lines
// that alone more than doubled this header's compile time) and the patterns
// that compute with expressions (patterns/scoreboard.hpp,
// patterns/bucketed_scoreboard.hpp): include them where they are used. Without the engine in the program, a filter or an
// expression op fails with PARAMETER_ERROR naming the header to include.
#pragma once

/// \namespace kvmodel
/// The core: value (Aerospike's data model), status and result<T>,
/// Aerospike's total order over values, JSON and msgpack sizes.
///
/// \namespace kvmodel::cdt
/// The exact CDT engine: map, list, bit and HyperLogLog operations applied to
/// values as the Aerospike server applies them.
///
/// \namespace kvmodel::cdt::map_ops
/// Builders of the map operations (as_operations_map_*).
///
/// \namespace kvmodel::cdt::list_ops
/// Builders of the list operations (as_operations_list_*).
///
/// \namespace kvmodel::cdt::hll_ops
/// Builders of the HyperLogLog operations (as_operations_hll_*).
///
/// \namespace kvmodel::kv
/// The key-value store interface: keys, records, operations, policies,
/// statuses, retries, and the kv_store concept every store models.
///
/// \namespace kvmodel::exp
/// Aerospike expressions: a builder that packs as the C client does
/// (build.hpp), the wire numbers (codes.hpp), and the evaluator the
/// simulator runs them with (eval.hpp).
///
/// \namespace kvmodel::msgpack_size
/// Exact msgpack sizes of values, as the server packs them.
///
/// \namespace kvmodel::kv::record_size
/// A record's stored size, as the server computes it against max-record-size.
///
/// \namespace kvmodel::sim
/// The simulated cluster: sim::cluster, its clock, scripted faults and stats.
///
/// \namespace kvmodel::patterns
/// Data-modeling patterns, each on any kv_store.
///
/// \namespace kvmodel::adapters
/// Stores on a real database (aerospike_store) and stores over stores
/// (scoped_store).
///
/// \namespace kvmodel::testing
/// Helpers for tests written with Catch2 (testing.hpp).

#include <kvmodel/cdt/bit_ops.hpp>
#include <kvmodel/cdt/engine.hpp>
#include <kvmodel/cdt/hll_ops.hpp>
#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/core/assert.hpp>
#include <kvmodel/core/msgpack_size.hpp>
#include <kvmodel/core/order.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/exp/codes.hpp>
#include <kvmodel/exp/hook.hpp>
#include <kvmodel/kv/batch.hpp>
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
