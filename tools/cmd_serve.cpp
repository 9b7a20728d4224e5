// tools/cmd_serve.cpp
//
// `kvmodel serve`: a simulated Aerospike cluster (sim::cluster) behind
// Aerospike's wire protocol, one port per node on 127.0.0.1, for the official
// clients of any language (tools/serve/*.hpp; README "Testing from any
// language").
#include <charconv>
#include <iostream>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"
#include "serve/server.hpp"

namespace {

using namespace kvmodel;

constexpr std::string_view serve_usage =
    "usage: kvmodel serve [--nodes N] [--port P] [--namespace NAME]...\n"
    "                     [--replication-factor R] [--threads T] [--cluster-name NAME]\n"
    "                     [--nsup-period S] [--allow-ttl-without-nsup true|false]\n"
    "                     [--default-ttl S]\n"
    "\n"
    "Serves a simulated N-node Aerospike 8.1.2 cluster (default 1 node) on\n"
    "127.0.0.1, node n on port P + n (default P = 3000; --port 0 picks free\n"
    "ports). Official clients connect to any node's port as a seed. Namespaces\n"
    "default to `test`; replication factor 2 (capped at N). The clock is manual:\n"
    "TTLs move only with the info command kvmodel-clock-advance:ms=N.\n"
    "\n"
    "Every namespace takes the namespace settings given (the server's names):\n"
    "nsup-period (default 120, as the server's own CI configuration; 0 = never,\n"
    "the server's default, and then a write with a TTL fails FAIL_FORBIDDEN unless\n"
    "allow-ttl-without-nsup is true), allow-ttl-without-nsup (default false) and\n"
    "default-ttl (default 0 = never expire).\n"
    "\n"
    "Prints one line `kvmodel serve: ready ports=P0,P1,...` when it listens; stops\n"
    "on SIGINT or SIGTERM. Test powers (info commands): kvmodel-clock,\n"
    "kvmodel-clock-advance:ms=N, kvmodel-node-down:node=N, kvmodel-node-up:node=N,\n"
    "kvmodel-fault:kind=timeout|in_doubt|latency|status;... , kvmodel-faults-clear,\n"
    "kvmodel-stats, kvmodel-stats-reset, kvmodel-reset.\n";

bool parse_uint(std::string_view s, std::uint64_t max, std::uint64_t& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && out <= max;
}

bool parse_bool(std::string_view s, bool& out) {
    if (s != "true" && s != "false")
        return false;
    out = s == "true";
    return true;
}

/// The server's nsup-period in `kvmodel serve` unless --nsup-period says
/// otherwise: 120 s, as aerospike-server's own CI configuration
/// (as/etc/gh-action.conf), so that TTL writes work as on such a server.
constexpr std::uint64_t serve_nsup_period_s = 120;

int run_serve(std::span<char*> args) {
    std::uint64_t nodes = 1;
    std::uint64_t port = 3000;
    std::uint64_t rf = 2;
    std::uint64_t threads = 2;
    std::string cluster_name = "kvmodel";
    std::vector<std::string> namespaces;
    std::uint64_t nsup_period = serve_nsup_period_s;
    std::uint64_t default_ttl = 0;
    bool allow_ttl_without_nsup = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string_view a = args[i];
        if (a == "--help" || a == "-h") {
            std::cout << serve_usage;
            return 0;
        }
        if (i + 1 >= args.size()) {
            std::cerr << "kvmodel serve: unknown argument or missing value '" << a
                      << "' (try --help)\n";
            return 2;
        }
        std::string_view v = args[++i];
        bool ok = true;
        if (a == "--nodes")
            ok = parse_uint(v, 64, nodes) && nodes >= 1;
        else if (a == "--port")
            ok = parse_uint(v, 65535, port);
        else if (a == "--replication-factor")
            ok = parse_uint(v, 255, rf) && rf >= 1;
        else if (a == "--threads")
            ok = parse_uint(v, 256, threads) && threads >= 1;
        else if (a == "--namespace")
            namespaces.emplace_back(v);
        else if (a == "--cluster-name")
            cluster_name = v;
        else if (a == "--nsup-period")
            ok = parse_uint(v, std::numeric_limits<std::uint32_t>::max(), nsup_period);
        else if (a == "--allow-ttl-without-nsup")
            ok = parse_bool(v, allow_ttl_without_nsup);
        else if (a == "--default-ttl")
            ok = parse_uint(v, static_cast<std::uint64_t>(kv::max_ttl), default_ttl);
        else {
            std::cerr << "kvmodel serve: unknown argument '" << a << "' (try --help)\n";
            return 2;
        }
        if (!ok) {
            std::cerr << "kvmodel serve: invalid value '" << v << "' for " << a << '\n';
            return 2;
        }
    }
    if (port != 0 && port + nodes - 1 > 65535) {
        std::cerr << "kvmodel serve: ports " << port << ".." << port + nodes - 1
                  << " run past 65535\n";
        return 2;
    }
    sim::cluster_config cfg;
    cfg.nodes = static_cast<std::uint32_t>(nodes);
    if (namespaces.empty())
        namespaces.emplace_back("test");
    cfg.namespaces.clear();
    for (const std::string& n : namespaces) {
        sim::namespace_config nc;
        nc.name = n;
        nc.replication_factor = static_cast<std::uint32_t>(rf);
        nc.nsup_period = static_cast<std::uint32_t>(nsup_period);
        nc.allow_ttl_without_nsup = allow_ttl_without_nsup;
        nc.default_ttl = static_cast<std::int64_t>(default_ttl);
        cfg.namespaces.push_back(nc);
    }
    if (auto ok = sim::cluster::validate(cfg); !ok) {
        std::cerr << "kvmodel serve: " << ok.error().message << '\n';
        return 2;
    }
    sim::cluster db(cfg);
    std::vector<std::uint16_t> ports;
    for (std::uint64_t n = 0; n < nodes; ++n)
        ports.push_back(port == 0 ? 0 : static_cast<std::uint16_t>(port + n));
    tools::serve::service svc(db, ports, cluster_name);
    std::unique_ptr<tools::serve::server> srv;
    try {
        srv = std::make_unique<tools::serve::server>(svc, ports, static_cast<unsigned>(threads));
    } catch (const std::exception& e) {
        std::cerr << "kvmodel serve: cannot listen: " << e.what() << '\n';
        return 1;
    }
    ports = srv->ports();
    svc.set_ports(ports);
    std::cout << "kvmodel serve: ready ports=";
    for (std::size_t n = 0; n < ports.size(); ++n)
        std::cout << (n ? "," : "") << ports[n];
    std::cout << std::endl;
    srv->run(true);
    std::cout << "kvmodel serve: stopped" << std::endl;
    return 0;
}

} // namespace

KVMODEL_REGISTER_COMMAND("serve",
                         "serve a simulated cluster over Aerospike's wire protocol",
                         run_serve);
