// kvmodel/kvmodel.hpp
//
// Everything except the adapters (which need a database client).
#pragma once

#include <kvmodel/cdt/bit_ops.hpp>
#include <kvmodel/cdt/engine.hpp>
#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/core/assert.hpp>
#include <kvmodel/core/json.hpp>
#include <kvmodel/core/msgpack_size.hpp>
#include <kvmodel/core/order.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/digest.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/record_size.hpp>
#include <kvmodel/kv/status.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/sim/clock.hpp>
#include <kvmodel/sim/cluster.hpp>
#include <kvmodel/sim/faults.hpp>
#include <kvmodel/sim/stats.hpp>
