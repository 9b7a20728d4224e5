// kvmodel/testing.hpp
//
// For a test author using Catch2 2.x: printers so that a failing CHECK shows
// kvmodel's types instead of `{?}` (Catch::StringMaker for value, error,
// result<T>, result<void> and kv::record), and the helpers a test reaches
// for: a fresh simulated cluster on a manual clock, and a fault scope that
// installs faults and removes them when it ends. Include it from test files
// only: it needs <catch2/catch.hpp>, and kvmodel.hpp does not include it.
#pragma once

#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/sim/clock.hpp>
#include <kvmodel/sim/cluster.hpp>
#include <kvmodel/sim/faults.hpp>

#include <catch2/catch.hpp>

#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

namespace kvmodel::testing {

/// A simulated cluster whose time is a manual clock the test moves. Its
/// namespaces are the server's defaults unless cfg says otherwise, so a write
/// with a TTL fails FAIL_FORBIDDEN until nsup runs:
/// `fresh_cluster c(sim::cluster_config{}.with_nsup_period(60));`.
struct fresh_cluster {
    /// The cluster's clock: advance() it to expire records.
    std::shared_ptr<sim::manual_clock> clock = std::make_shared<sim::manual_clock>();
    /// The cluster (cfg's other fields as given, its time source this clock).
    sim::cluster db;

    /// A cluster built from cfg with time_source replaced by clock.
    explicit fresh_cluster(sim::cluster_config cfg = {})
        : db(with_clock(std::move(cfg), clock)) {}

private:
    static sim::cluster_config with_clock(sim::cluster_config cfg,
                                          const std::shared_ptr<sim::manual_clock>& c) {
        cfg.time_source = c;
        return cfg;
    }
};

/// Installs faults on a cluster for the scope's lifetime; removes every
/// fault of the cluster when it ends (sim::cluster::clear_faults). A fault
/// the cluster refuses fails the test (REQUIRE).
class fault_scope {
public:
    /// Installs `faults` on db.
    fault_scope(sim::cluster& db, std::initializer_list<sim::fault> faults)
        : m_db(&db) {
        for (const sim::fault& f : faults) REQUIRE(m_db->add_fault(f));
    }
    fault_scope(const fault_scope&) = delete;
    fault_scope& operator=(const fault_scope&) = delete;
    /// Removes the cluster's faults.
    ~fault_scope() { m_db->clear_faults(); }

private:
    sim::cluster* m_db;
};

/// "STATUS_NAME (code): message [in doubt]".
inline std::string describe(const error& e) {
    return std::string(status_name(e.code)) + " (" + std::to_string(static_cast<int>(e.code)) +
           "): " + e.message + (e.in_doubt ? " [in doubt]" : "");
}

} // namespace kvmodel::testing

namespace Catch {

/// Prints a value as kvmodel::to_string does.
template <>
struct StringMaker<kvmodel::value> {
    /// to_string(v).
    static std::string convert(const kvmodel::value& v) { return kvmodel::to_string(v); }
};

/// Prints an error as its status name, code and message.
template <>
struct StringMaker<kvmodel::error> {
    /// kvmodel::testing::describe(e).
    static std::string convert(const kvmodel::error& e) { return kvmodel::testing::describe(e); }
};

/// Prints a result as "ok: <value>" or "error: <error>".
template <class T>
struct StringMaker<kvmodel::result<T>> {
    /// The value (through Catch's printer of T) or the error.
    static std::string convert(const kvmodel::result<T>& r) {
        if (!r) return "error: " + kvmodel::testing::describe(r.error());
        if constexpr (std::is_void_v<T>) return "ok";
        else return "ok: " + Catch::Detail::stringify(*r);
    }
};

/// Prints a record's bins, generation and TTL.
template <>
struct StringMaker<kvmodel::kv::record> {
    /// "{bin: value, ...} gen=G ttl=T".
    static std::string convert(const kvmodel::kv::record& r) {
        std::string out = "{";
        for (const auto& b : r.bins) {
            if (out.size() > 1) out += ", ";
            out += b.name + ": " + kvmodel::to_string(b.val);
        }
        return out + "} gen=" + std::to_string(r.generation) + " ttl=" + std::to_string(r.ttl);
    }
};

} // namespace Catch
