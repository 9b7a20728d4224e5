// tools/key_tool.hpp
//
// `kvmodel key NAMESPACE SET [--int|--string|--bytes|--hex] [--nodes N] [--] KEY`:
// a key's Aerospike digest (lower-case hex), its partition and, with
// --nodes N, the nodes holding that partition in a simulated cluster of N
// nodes — the master first, then the replicas — computed by sim::cluster
// itself, so the answer is the simulator's partition map.
//
// The digest is kv::key's (RIPEMD-160 over set, key type byte and key bytes);
// the namespace takes no part in it but must be a valid name. An empty SET
// ("") means no set. KEY is a string by default; --int parses a signed
// 64-bit integer, --bytes takes KEY's characters as the bytes, --hex parses
// them from hex. Options may come anywhere before "--"; everything after
// "--" is positional, which is how keys starting with '-' are given.
//
// Cost: one digest; with --nodes, building a cluster's partition map (4096
// partitions), a few milliseconds.
#pragma once

#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/digest.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvmodel::tools::key_tool {

inline constexpr std::string_view usage_text =
    R"(usage: kvmodel key NAMESPACE SET [--int|--string|--bytes|--hex] [--nodes N] [--] KEY

Prints a key's Aerospike digest (RIPEMD-160, lower-case hex) and partition id
(0..4095) and, with --nodes N, the nodes that hold the partition in a
simulated cluster of N nodes: the master, then the replicas.

  NAMESPACE   1..31 bytes (it takes no part in the digest)
  SET         up to 63 bytes; "" means no set
  KEY         the user key (any length)

key type (one of):
  --string    KEY is a string (default)
  --int       KEY is a signed 64-bit integer
  --bytes     KEY's characters are the bytes of a blob key
  --hex       KEY is hex digits, the bytes of a blob key

options:
  --nodes N                number of nodes, 1..128: print master and replicas
  --replication-factor R   copies of each partition (default 2, capped at N)
  --seed S                 the simulator's seed (default 1, as sim::cluster)
  --json                   print one JSON object instead of lines
  --                       everything after is positional (keys starting with '-')
  -h, --help               this help

examples:
  kvmodel key test demo user-1
  kvmodel key test "" --int -- -5
  kvmodel key test demo --hex 0aff --nodes 3

exit status: 0 ok, 2 bad usage.
)";

/// What the command prints.
struct key_info {
    kv::digest digest{};
    std::uint32_t partition = 0;
    /// With --nodes: the partition's nodes, master first.
    std::optional<std::vector<int>> nodes;
};

namespace detail {

inline std::optional<std::int64_t> parse_int64(std::string_view s) {
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size())
        return std::nullopt;
    return v;
}

inline std::optional<std::uint64_t> parse_uint64(std::string_view s) {
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size())
        return std::nullopt;
    return v;
}

/// Hex digits to bytes; the error says where the first bad digit is.
inline std::optional<kvmodel::bytes> parse_hex(std::string_view s, std::string& error) {
    if (s.size() % 2 != 0) {
        error = "--hex key has an odd number of digits (" + std::to_string(s.size()) + ")";
        return std::nullopt;
    }
    constexpr auto nibble = kvmodel::kv::hex_nibble;
    kvmodel::bytes out;
    out.reserve(s.size() / 2);
    for (std::size_t i = 0; i < s.size(); i += 2) {
        int hi = nibble(s[i]);
        int lo = nibble(s[i + 1]);
        if (hi < 0 || lo < 0) {
            error = "--hex key: '" + std::string(s.substr(i, 2)) + "' at position " +
                    std::to_string(i) + " is not a hex byte";
            return std::nullopt;
        }
        out.push_back(static_cast<std::uint8_t>(hi * 16 + lo));
    }
    return out;
}

inline std::string to_hex_string(const kvmodel::bytes& b) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s;
    s.reserve(b.size() * 2);
    for (std::uint8_t x : b) {
        s += digits[x >> 4U];
        s += digits[x & 15U];
    }
    return s;
}

inline std::string shorten(std::string_view s) {
    if (s.size() <= 64)
        return std::string(s);
    return std::string(s.substr(0, 48)) + "... (" + std::to_string(s.size()) + " bytes)";
}

} // namespace detail

/// The partition's nodes, master first, in a sim::cluster of `nodes` nodes.
/// Complexity: builds the cluster's partition map.
inline std::vector<int> nodes_of(const kv::key& k,
                                 std::uint32_t nodes,
                                 std::uint32_t replication_factor,
                                 std::uint64_t seed) {
    sim::cluster_config cfg;
    cfg.nodes = nodes;
    cfg.seed = seed;
    cfg.namespaces.front().name = k.ns();
    cfg.namespaces.front().replication_factor = replication_factor;
    sim::cluster c(cfg);
    return c.replicas(k);
}

/// The command: args are those after `key`. Returns the exit status.
inline int run(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
    enum class key_kind { string, integer, bytes, hex };
    std::optional<key_kind> kind;
    std::string kind_flag;
    std::optional<std::uint32_t> nodes;
    std::optional<std::uint32_t> replication_factor;
    std::uint64_t seed = 1;
    bool as_json = false;
    std::vector<std::string> positional;
    bool options_done = false;

    auto usage_error = [&](const std::string& message) {
        err << "kvmodel key: " << message << '\n'
            << "usage: kvmodel key NAMESPACE SET [--int|--string|--bytes|--hex] [--nodes N] [--] "
               "KEY\n";
        return 2;
    };

    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (options_done || a.size() < 2 || a[0] != '-') {
            positional.push_back(a);
            continue;
        }
        if (a == "--") {
            options_done = true;
            continue;
        }
        if (a == "-h" || a == "--help") {
            out << usage_text;
            return 0;
        }
        if (a == "--string" || a == "--int" || a == "--bytes" || a == "--hex") {
            key_kind k = a == "--string"  ? key_kind::string
                         : a == "--int"   ? key_kind::integer
                         : a == "--bytes" ? key_kind::bytes
                                          : key_kind::hex;
            if (kind && *kind != k)
                return usage_error("choose one key type: " + kind_flag + " and " + a +
                                   " both given");
            kind = k;
            kind_flag = a;
            continue;
        }
        if (a == "--json") {
            as_json = true;
            continue;
        }
        // Options with a value: "--opt V" or "--opt=V".
        std::string name = a;
        std::optional<std::string> val;
        if (auto eq = a.find('='); eq != std::string::npos) {
            name = a.substr(0, eq);
            val = a.substr(eq + 1);
        }
        if (name == "--nodes" || name == "--replication-factor" || name == "--seed") {
            if (!val) {
                if (i + 1 >= args.size())
                    return usage_error(name + " needs a value");
                val = args[++i];
            }
            std::optional<std::uint64_t> n = detail::parse_uint64(*val);
            if (name == "--nodes") {
                if (!n || *n < 1 || *n > 128)
                    return usage_error("--nodes '" + *val + "' is not a node count from 1 to 128");
                nodes = static_cast<std::uint32_t>(*n);
            } else if (name == "--replication-factor") {
                if (!n || *n < 1 || *n > 128)
                    return usage_error("--replication-factor '" + *val + "' is not from 1 to 128");
                replication_factor = static_cast<std::uint32_t>(*n);
            } else {
                if (!n)
                    return usage_error("--seed '" + *val + "' is not an unsigned 64-bit integer");
                seed = *n;
            }
            continue;
        }
        return usage_error("unknown option '" + detail::shorten(a) +
                           "' (a KEY starting with '-' goes after '--': kvmodel key NS SET -- " +
                           detail::shorten(a) + ")");
    }
    if (positional.size() < 3)
        return usage_error(positional.empty()       ? "missing NAMESPACE, SET and KEY"
                           : positional.size() == 1 ? "missing SET and KEY"
                                                    : "missing KEY");
    if (positional.size() > 3)
        return usage_error("too many arguments: '" + detail::shorten(positional[3]) +
                           "' after NAMESPACE SET KEY (quote a KEY with spaces)");
    if (replication_factor && !nodes)
        return usage_error("--replication-factor needs --nodes");

    const std::string& ns = positional[0];
    const std::string& set = positional[1];
    const std::string& raw = positional[2];
    if (result<void> names = kv::key::check_names(ns, set); !names)
        return usage_error(names.error().message);

    value user_key;
    std::string type_name = "string";
    switch (kind.value_or(key_kind::string)) {
    case key_kind::string:
        user_key = value(raw);
        break;
    case key_kind::integer: {
        std::optional<std::int64_t> v = detail::parse_int64(raw);
        if (!v)
            return usage_error("--int key '" + detail::shorten(raw) +
                               "' is not a signed 64-bit integer (-9223372036854775808 .. "
                               "9223372036854775807)");
        user_key = value(*v);
        type_name = "integer";
        break;
    }
    case key_kind::bytes:
        user_key = value(to_bytes(raw));
        type_name = "bytes";
        break;
    case key_kind::hex: {
        std::string error;
        std::optional<kvmodel::bytes> b = detail::parse_hex(raw, error);
        if (!b)
            return usage_error(error);
        user_key = value(std::move(*b));
        type_name = "bytes";
        break;
    }
    }
    result<kv::key> k = kv::key::make(ns, set, user_key);
    if (!k)
        return usage_error(k.error().message);

    key_info info;
    info.digest = k->digest();
    info.partition = k->partition_id();
    const std::uint32_t rf = replication_factor.value_or(2);
    if (nodes)
        info.nodes = nodes_of(*k, *nodes, rf, seed);

    if (as_json) {
        nlohmann::ordered_json j;
        j["namespace"] = ns;
        j["set"] = set;
        j["key_type"] = type_name;
        if (user_key.is_int())
            j["key"] = user_key.as_int();
        else if (user_key.is_string())
            j["key"] = user_key.as_string();
        else
            j["key"] = nlohmann::json{{"$bytes", detail::to_hex_string(user_key.as_bytes())}};
        j["digest"] = kv::to_hex(info.digest);
        j["partition"] = info.partition;
        if (info.nodes) {
            j["nodes"] = *nodes;
            j["replication_factor"] = std::min(rf, *nodes);
            if (info.nodes->empty())
                j["master"] = nullptr;
            else
                j["master"] = info.nodes->front();
            nlohmann::json replicas = nlohmann::json::array();
            for (std::size_t i = 1; i < info.nodes->size(); ++i)
                replicas.push_back((*info.nodes)[i]);
            j["replicas"] = replicas;
        }
        out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return 0;
    }

    out << "namespace  " << ns << '\n';
    out << "set        " << (set.empty() ? "(none)" : set) << '\n';
    if (user_key.is_int())
        out << "key        " << user_key.as_int() << " (integer)\n";
    else if (user_key.is_string())
        out << "key        " << detail::shorten(user_key.as_string()) << " (string, "
            << user_key.as_string().size() << " bytes)\n";
    else
        out << "key        " << detail::shorten(detail::to_hex_string(user_key.as_bytes()))
            << " (bytes, " << user_key.as_bytes().size() << " bytes)\n";
    out << "digest     " << kv::to_hex(info.digest) << '\n';
    out << "partition  " << info.partition << '\n';
    if (info.nodes) {
        out << "nodes      " << *nodes << " (replication factor " << std::min(rf, *nodes) << ")\n";
        if (info.nodes->empty()) {
            out << "master     (none)\n";
        } else {
            out << "master     node " << info.nodes->front() << '\n';
            out << "replicas   ";
            if (info.nodes->size() == 1)
                out << "(none)";
            for (std::size_t i = 1; i < info.nodes->size(); ++i)
                out << (i > 1 ? ", " : "") << "node " << (*info.nodes)[i];
            out << '\n';
        }
    }
    return 0;
}

} // namespace kvmodel::tools::key_tool
