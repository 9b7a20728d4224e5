// The data sets whose namespace statistics were recorded on a real 8.1.2
// server (tests/data/capacity_server.json, by the hidden adapters test
// "[.record_capacity]") and that tests/sim/capacity_server_test.cpp loads
// into the simulator to compare: 22 sets of 40 records each, of varied bin
// layouts and sizes, with and without a stored key, a TTL or a secondary
// index. Deterministic: the same records on every call.
#pragma once

#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/store.hpp>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace kvmodel::testing::capacity {

/// One record to write.
struct record_spec {
    kv::key key;
    std::vector<kv::bin> bins;
    kv::write_policy policy;
};

/// One data set: its set, records and optional secondary index.
struct dataset {
    std::string set;
    std::vector<record_spec> records;
    std::optional<kv::index_spec> index;
};

inline constexpr int records_per_set = 40;

inline std::string text(std::size_t n, std::mt19937_64& rng) {
    std::string s(n, ' ');
    for (char& c : s)
        c = static_cast<char>('a' + rng() % 26);
    return s;
}

/// The bins of record i of data set d.
inline std::vector<kv::bin> bins_of(int d, int i, std::mt19937_64& rng) {
    switch (d) {
    case 0: return {{"n", i}};
    case 1: return {{"s", text(10, rng)}};
    case 2: return {{"s", text(100, rng)}};
    case 3: return {{"s", text(1000, rng)}};
    case 4: return {{"s", text(5000, rng)}};
    case 5: return {{"b", bytes(33, std::uint8_t{7})}};
    case 6: {
        std::vector<kv::bin> out;
        for (int b = 0; b < 5; ++b)
            out.push_back({"i" + std::to_string(b), i * 1000 + b});
        return out;
    }
    case 7: {
        std::vector<kv::bin> out;
        for (int b = 0; b < 20; ++b)
            out.push_back({"i" + std::to_string(b), static_cast<std::int64_t>(rng() % 100000)});
        return out;
    }
    case 8: {
        list l;
        for (int x = 0; x < 10; ++x)
            l.push_back(i * 10 + x);
        return {{"l", value(std::move(l))}};
    }
    case 9: {
        list l;
        for (int x = 0; x < 100; ++x)
            l.push_back(text(20, rng));
        return {{"l", value(std::move(l))}};
    }
    case 10: {
        map m;
        for (int x = 0; x < 10; ++x)
            m.put(value("k" + std::to_string(x)), value(x * i));
        return {{"m", value(std::move(m))}};
    }
    case 11: {
        map m(map_order::key_ordered);
        for (int x = 0; x < 200; ++x)
            m.put(value(x), value(text(50, rng)));
        return {{"m", value(std::move(m))}};
    }
    case 12: {
        map m;
        for (int x = 0; x < 5; ++x)
            m.put(value("d" + std::to_string(x)), value(list{x, text(8, rng), list{1, 2, 3}}));
        return {{"doc", value(std::move(m))}};
    }
    case 13: return {{"d", 3.25 * i}, {"t", i % 2 == 0}};
    case 14: return {{"n", i}, {"s", text(40, rng)}, {"l", list{1, "two", 3.0}}, {"m", map{{"a", 1}, {"b", list{}}}}};
    case 15:
    case 16: return {{"n", i}, {"s", text(20, rng)}};
    case 17: return {{"n", i}, {"s", text(60, rng)}};
    case 18: return {{"s", text(rng() % 2001, rng)}};
    case 19: {
        std::vector<kv::bin> out;
        for (int b = 0; b < 10; ++b)
            out.push_back({"long_bin_name" + std::to_string(b), i});
        return out;
    }
    case 20: return {{"n", i}, {"s", text(30, rng)}};
    default: return {{"n", i % 7}, {"s", "v" + std::to_string(i % 5)}};
    }
}

/// The 22 data sets, in sets cap_00 .. cap_21 of namespace `ns`.
inline std::vector<dataset> datasets(const std::string& ns = "test") {
    std::vector<dataset> out;
    for (int d = 0; d < 22; ++d) {
        dataset ds;
        ds.set = std::string("cap_") + (d < 10 ? "0" : "") + std::to_string(d);
        std::mt19937_64 rng(static_cast<std::uint64_t>(1000 + d));
        for (int i = 0; i < records_per_set; ++i) {
            record_spec r{d == 16 ? kv::key(ns, ds.set, "user-key-" + std::to_string(i) + "-" + text(20, rng))
                                  : kv::key(ns, ds.set, std::int64_t{i}),
                          {},
                          {}};
            r.bins = bins_of(d, i, rng);
            r.policy.send_key = d == 15 || d == 16;
            if (d == 17)
                r.policy.ttl = 3600;
            ds.records.push_back(std::move(r));
        }
        if (d == 20)
            ds.index = kv::index_spec{ns, ds.set, "n", "cap_ix20", kv::index_type::numeric};
        if (d == 21)
            ds.index = kv::index_spec{ns, ds.set, "s", "cap_ix21", kv::index_type::string};
        out.push_back(std::move(ds));
    }
    return out;
}

} // namespace kvmodel::testing::capacity
