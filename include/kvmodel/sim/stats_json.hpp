// kvmodel/sim/stats_json.hpp
//
// A stats snapshot (sim/stats.hpp) as JSON: per namespace its totals, nodes,
// hot keys and hot partitions, for dashboards and the tools. Apart from
// stats.hpp and cluster.hpp so that only the code that exports pays for
// parsing nlohmann/json.hpp (about a third of a sim/cluster.hpp parse).
//
//   auto j = kvmodel::sim::to_json(cluster.stats());
#pragma once

#include <kvmodel/core/json.hpp>
#include <kvmodel/kv/digest.hpp>
#include <kvmodel/sim/stats.hpp>

#include <cstdint>
#include <utility>

#include <nlohmann/json.hpp>

namespace kvmodel::sim {

/// A counters snapshot as a JSON object, one field per counter (ops,
/// round_trips, reads, ..., largest_record). Never fails.
inline nlohmann::json to_json(const counters& c) {
    return nlohmann::json{
        {"ops", c.ops},
        {"round_trips", c.round_trips},
        {"reads", c.reads},
        {"writes", c.writes},
        {"deletes", c.deletes},
        {"bytes_read", c.bytes_read},
        {"bytes_written", c.bytes_written},
        {"errors", c.errors},
        {"not_found", c.not_found},
        {"timeouts", c.timeouts},
        {"in_doubt", c.in_doubt},
        {"unavailable", c.unavailable},
        {"key_busy", c.key_busy},
        {"latency_us", c.latency_us},
        {"max_latency_us", c.max_latency_us},
        {"largest_record", c.largest_record},
    };
}

/// A partition's counters as JSON, plus its id, master node, records and
/// bytes. Never fails.
inline nlohmann::json to_json(const partition_stats& p) {
    nlohmann::json j = to_json(p.ops);
    j["partition"] = p.id;
    j["master"] = p.master;
    j["records"] = p.records;
    j["bytes"] = p.bytes;
    return j;
}

/// The snapshot as JSON: per namespace its totals, nodes, hot keys and hot
/// partitions; with all_partitions, every partition that saw an op or holds
/// a record as well.
inline nlohmann::json to_json(const stats& s, bool all_partitions = false) {
    using nlohmann::json;
    json out = json::object();
    out["fault_fires"] = s.fault_fires;
    json nss = json::array();
    for (const namespace_stats& n : s.namespaces) {
        json j;
        j["name"] = n.name;
        j["totals"] = to_json(n.totals);
        j["records"] = n.records;
        j["bytes"] = n.bytes;
        json nodes = json::array();
        for (const node_stats& nd : n.nodes) {
            json x = to_json(nd.ops);
            x["node"] = nd.node;
            x["alive"] = nd.alive;
            x["master_partitions"] = nd.master_partitions;
            x["replica_partitions"] = nd.replica_partitions;
            x["master_records"] = nd.master_records;
            x["replica_records"] = nd.replica_records;
            x["master_bytes"] = nd.master_bytes;
            x["replica_bytes"] = nd.replica_bytes;
            x["data_used_bytes"] = nd.data_used_bytes;
            x["data_used_pct"] = nd.data_used_pct;
            x["index_used_bytes"] = nd.index_used_bytes;
            x["sindex_used_bytes"] = nd.sindex_used_bytes;
            x["stop_writes"] = nd.stop_writes;
            nodes.push_back(std::move(x));
        }
        j["nodes"] = std::move(nodes);
        j["data_used_bytes"] = n.data_used_bytes;
        j["index_used_bytes"] = n.index_used_bytes;
        j["sindex_used_bytes"] = n.sindex_used_bytes;
        j["nsup_cycles"] = n.nsup_cycles;
        j["expired_records"] = n.expired_records;
        j["evicted_records"] = n.evicted_records;
        j["evict_void_time"] = n.evict_void_time;
        j["stop_writes_refused"] = n.stop_writes_refused;
        json keys = json::array();
        for (const key_heat& k : n.hot_keys) {
            keys.push_back(json{{"digest", kv::to_hex(k.digest)},
                                {"set", k.set},
                                {"key", k.user_key ? kvmodel::to_json(*k.user_key) : json(nullptr)},
                                {"partition", k.partition},
                                {"reads", k.reads},
                                {"writes", k.writes},
                                {"live", k.live}});
        }
        j["hot_keys"] = std::move(keys);
        json hot = json::array();
        for (std::uint32_t id : n.hot_partitions)
            if (id < n.partitions.size())
                hot.push_back(to_json(n.partitions[id]));
        j["hot_partitions"] = std::move(hot);
        if (all_partitions) {
            json parts = json::array();
            for (const partition_stats& p : n.partitions)
                if (p.ops.ops != 0 || p.records != 0)
                    parts.push_back(to_json(p));
            j["partitions"] = std::move(parts);
        }
        nss.push_back(std::move(j));
    }
    out["namespaces"] = std::move(nss);
    return out;
}

} // namespace kvmodel::sim
