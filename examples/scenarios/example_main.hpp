// examples/scenarios/example_main.hpp
//
// The shared main() of the example programs: runs one scenario on a
// simulated 3-node cluster (or, with `--backend aerospike --host H[:P]`, on a
// real server when the program was built with the adapter), prints its output
// and what it cost, and checks its results — an example whose results are
// not the documented ones exits 1, so each example is also a test.
#pragma once

#include <kvmodel/kv/record_size.hpp>
#include <kvmodel/sim/cluster.hpp>

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

/// Runs `body(cluster, out, check)` with the command line handled; returns the exit status.
inline int example_main(int argc, char** argv, std::string_view title,
                        const std::function<bool(sim::cluster&, std::ostream&, checker&)>& body) {
    std::vector<std::string_view> args(argv + 1, argv + argc);
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--help" || args[i] == "-h") {
            std::cout << "usage: " << argv[0] << " [--backend sim]\n"
                      << title << ", on a simulated 3-node cluster.\n";
            return 0;
        }
        if (args[i] == "--backend" && i + 1 < args.size()) {
            if (args[i + 1] != "sim") {
                std::cerr << argv[0] << ": backend '" << args[i + 1]
                          << "' is not built into this program (only 'sim')\n";
                return 2;
            }
            ++i;
            continue;
        }
        std::cerr << argv[0] << ": unknown argument '" << args[i] << "' (try --help)\n";
        return 2;
    }
    sim::cluster cluster;
    checker check;
    std::cout << "== " << title << "\n";
    bool ok = body(cluster, std::cout, check);
    print_cost(std::cout, cluster);
    if (!ok || check.failures > 0) {
        std::cerr << argv[0] << ": " << (ok ? std::to_string(check.failures) + " check(s) failed" : "failed")
                  << "\n";
        return 1;
    }
    return 0;
}

} // namespace kvmodel::examples
