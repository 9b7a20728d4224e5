// tests/sim/queryable_only.hpp — a sim::cluster seen through the required
// kv_store and kv_queryable members only (no paging, truncate, batch or
// background members), so a test reaches the kv:: fallbacks.
#pragma once

#include <kvmodel/kv/store.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <span>
#include <string>
#include <vector>

namespace kvmodel::test {

struct queryable_only {
    sim::cluster& db;
    result<kv::record> get(const kv::key& k, const kv::read_policy& rp) { return db.get(k, rp); }
    result<kv::record>
    operate(const kv::key& k, std::span<const kv::operation> ops, const kv::write_policy& wp) {
        return db.operate(k, ops, wp);
    }
    result<void> remove(const kv::key& k, const kv::write_policy& wp) { return db.remove(k, wp); }
    result<void> create_index(const kv::index_spec& ix) { return db.create_index(ix); }
    result<void> drop_index(const std::string& ns, const std::string& name) {
        return db.drop_index(ns, name);
    }
    result<std::vector<kv::keyed_record>> scan(const kv::scan_request& sr,
                                               const kv::read_policy& rp) {
        return db.scan(sr, rp);
    }
    result<std::vector<kv::keyed_record>> query(const kv::query_request& qr,
                                                const kv::read_policy& rp) {
        return db.query(qr, rp);
    }
};

} // namespace kvmodel::test
