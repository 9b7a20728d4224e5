// examples/scenarios/common.hpp
//
// Helpers shared by the seed scenarios (examples/scenarios/*.hpp). Each
// scenario is written once and used three ways: by an example program
// (examples/0N_*.cpp), by `kvmodel demo`, and by tests that assert what it
// prints. Each runs on any kv_store, prints its results to `out`, and returns
// them for checking.
#pragma once

#include <kvmodel/core/order.hpp>
#include <kvmodel/kv/record_size.hpp>
#include <kvmodel/kv/store.hpp>

#include <cstdio>
#include <optional>
#include <string>

namespace kvmodel::examples {

/// Stored size of a record as the server measures it (AEROSPIKE-RECORDS.md).
template <kv::kv_store Store>
std::size_t stored_size(Store& store, const kv::key& k) {
    auto r = store.get(k, kv::read_policy{});
    if (!r) return 0;
    return kv::record_size::stored(kv::record_size::flat(k.set(), std::nullopt, r->void_time != 0, r->bins));
}

inline std::string fmt_double(double d, int decimals = 2) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, d);
    return buf;
}

} // namespace kvmodel::examples
