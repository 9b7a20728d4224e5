// tests/kv/minimal_store.hpp — a kv_store with only the required members
// (get, operate, remove), backed by a sim::cluster and counting the calls, so
// a test sees what the kv:: dispatchers' fallbacks send.
#pragma once

#include <kvmodel/kv/store.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <span>

namespace kvmodel::test {

struct minimal_store {
    sim::cluster db;
    int gets = 0;
    int operates = 0;
    int removes = 0;

    result<kv::record> get(const kv::key& k, const kv::read_policy& rp) {
        ++gets;
        return db.get(k, rp);
    }
    result<kv::record>
    operate(const kv::key& k, std::span<const kv::operation> ops, const kv::write_policy& wp) {
        ++operates;
        return db.operate(k, ops, wp);
    }
    result<void> remove(const kv::key& k, const kv::write_policy& wp) {
        ++removes;
        return db.remove(k, wp);
    }
};

} // namespace kvmodel::test
