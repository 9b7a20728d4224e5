// examples/scenarios/example_main.hpp
//
// The shared main() of the example programs: runs one scenario on a
// simulated 3-node cluster (or, with `--backend aerospike --host H[:P]`, on a
// real server when the program was built with the adapter, records scoped to
// the run and removed afterwards), prints its output
// and what it cost, and checks its results — an example whose results are
// not the documented ones exits 1, so each example is also a test.
#pragma once

#include <kvmodel/kv/record_size.hpp>
#include <kvmodel/sim/cluster.hpp>

#if defined(KVMODEL_HAVE_AEROSPIKE)
#    include <kvmodel/adapters/aerospike.hpp>
#    include <kvmodel/adapters/scoped_store.hpp>

#    include <cstdlib>
#    include <type_traits>
#    include <unistd.h>
#endif

#include <cstdio>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace kvmodel::examples {

/// Prints what a run cost on the simulated cluster.
inline void print_cost(std::ostream& out, const sim::cluster& c, std::string_view ns = "test") {
    sim::stats s = c.stats();
    const sim::namespace_stats* n = s.find(ns);
    if (n == nullptr) return;
    const sim::counters& t = n->totals;
    std::size_t limit = 0;
    for (const auto& cfg : c.config().namespaces)
        if (cfg.name == ns) limit = cfg.max_record_size;
    out << "cost: " << t.round_trips << " round trips, " << t.reads << " records read ("
        << t.bytes_read << " bytes), " << t.writes << " records written (" << t.bytes_written
        << " bytes), largest record " << t.largest_record << " of " << limit << " bytes\n";
}

/// A failed expectation: printed, and the example exits 1.
struct checker {
    int failures = 0;
    void expect(bool ok, std::string_view what) {
        if (!ok) {
            ++failures;
            std::cerr << "CHECK FAILED: " << what << "\n";
        }
    }
};

/// Runs `body(store, out, check)` with the command line handled; returns the
/// exit status. The store is a fresh sim::cluster; with `--backend aerospike
/// [--host H[:P]]` (default $AEROSPIKE_HOST, else 127.0.0.1:3000), in a program
/// built with the adapter, it is a real server seen through
/// adapters::scoped_store: the example's records go to sets of their own and
/// are removed afterwards, so runs do not see each other. A body that takes
/// sim::cluster& (it measures the simulated cluster) runs on sim only.
template <class Body>
int example_main(int argc, char** argv, std::string_view title, Body&& body) {
    std::vector<std::string_view> args(argv + 1, argv + argc);
    std::string_view backend = "sim";
    std::string host;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--help" || args[i] == "-h") {
            std::cout << "usage: " << argv[0] << " [--backend sim|aerospike] [--host H[:P]]\n"
                      << title << ", on a simulated 3-node cluster (or a real Aerospike server).\n";
            return 0;
        }
        if (args[i] == "--backend" && i + 1 < args.size()) {
            backend = args[++i];
            if (backend != "sim" && backend != "aerospike") {
                std::cerr << argv[0] << ": unknown backend '" << backend << "' (sim, aerospike)\n";
                return 2;
            }
            continue;
        }
        if (args[i] == "--host" && i + 1 < args.size()) {
            host = std::string(args[++i]);
            continue;
        }
        std::cerr << argv[0] << ": unknown argument '" << args[i] << "' (try --help)\n";
        return 2;
    }
    checker check;
    auto finish = [&](bool ok) {
        if (!ok || check.failures > 0) {
            std::cerr << argv[0] << ": "
                      << (ok ? std::to_string(check.failures) + " check(s) failed" : "failed") << "\n";
            return 1;
        }
        return 0;
    };
    if (backend == "aerospike") {
#if defined(KVMODEL_HAVE_AEROSPIKE)
        using scoped = adapters::scoped_store<adapters::aerospike_store>;
        if constexpr (std::is_invocable_r_v<bool, Body&, scoped&, std::ostream&, checker&>) {
            adapters::aerospike_config cfg;
            const char* env = std::getenv("AEROSPIKE_HOST");
            cfg.hosts = !host.empty() ? host : (env != nullptr && *env != '\0' ? env : "127.0.0.1:3000");
            auto server = adapters::aerospike_store::connect(cfg);
            if (!server) {
                std::cerr << argv[0] << ": " << server.error().message << "\n";
                return 1;
            }
            bool ok = false;
            {
                scoped store(*server, "ex" + std::to_string(::getpid()));
                std::cout << "== " << title << " (Aerospike at " << cfg.hosts << ")\n";
                ok = body(store, std::cout, check);
            }
            std::cout << "cost: measured on the simulated cluster only (run without --backend)\n";
            return finish(ok);
        } else {
            std::cerr << argv[0] << ": this example measures the simulated cluster; it runs on sim only\n";
            return 2;
        }
#else
        std::cerr << argv[0] << ": built without the Aerospike adapter (configure with "
                     "-DKVMODEL_AEROSPIKE_ROOT=<client>); only 'sim'\n";
        return 2;
#endif
    }
    if (!host.empty()) {
        std::cerr << argv[0] << ": --host is for --backend aerospike\n";
        return 2;
    }
    sim::cluster cluster;
    std::cout << "== " << title << "\n";
    bool ok = body(cluster, std::cout, check);
    print_cost(std::cout, cluster);
    return finish(ok);
}

} // namespace kvmodel::examples
