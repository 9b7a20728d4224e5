// tools/cdt_runner.hpp
//
// `kvmodel cdt [FILE|-]`: runs JSON scenarios (shared/spec/cdt-json.md) through
// a store's operate() and prints one JSON line per case, in input order.
//
// Each case is one record: the runner deletes it, writes the case's initial
// bin (or another bin, or nothing, as record_exists / initial say), sends the
// case's ops as ONE operate() and reads the record back for `final`. The
// store is a template parameter (any kv::kv_store): run_cases<sim::cluster>
// is `kvmodel cdt`; a real-server backend plugs in the same way, so the two
// outputs can be diffed line by line.
//
// A failed operate() fails as a whole: the failing op's result is
// {"error": NAME, "code": N}, every other result null, and `final` is the bin
// as it was. Which op failed: the store's own report when it gives one
// (sim::cluster::operate with an op_report); otherwise — a real server only
// answers per command — the first op whose prefix of the command fails alone
// with the same status, found by re-running prefixes from the initial state.
// An error no prefix reproduces goes on the last op.
//
// Malformed cases (tools/cdt_case.hpp), and initial values no record can hold
// (INF, WILDCARD, over max-record-size), print {"id": ..., "invalid": "..."};
// the run goes on, and the exit status is 1.
//
// HLL cases (bin_type "hll"): kvmodel keeps an HLL bin as bytes, so bytes
// holding a well-formed sketch print as {"$hll": hex}; on a real server an
// $hll initial is made with hll_set_union (a written blob stays a blob), which
// does not carry a non-zero cached count over.
//
// Cost: per case, one remove, one write, one operate and one get (plus up to
// n more operates for an error without a reported op).
#pragma once

#include <kvmodel/cdt/hll_ops.hpp>
#include <kvmodel/core/json.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/store.hpp>
#include <kvmodel/sim/cluster.hpp>

#include "cdt_case.hpp"
#include "json_io.hpp"

#if defined(KVMODEL_HAVE_AEROSPIKE)
#    include <kvmodel/adapters/aerospike.hpp>

#    include <unistd.h>
#endif

#include <cstddef>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace kvmodel::tools::cdt_json {

inline constexpr std::string_view usage_text =
    R"(usage: kvmodel cdt [FILE|-] [--backend sim|aerospike] [--host H[:P]]

Runs CDT scenarios (shared/spec/cdt-json.md) through operate() on a fresh
simulated cluster and prints one JSON line per case, in input order. Reads
FILE, or standard input for "-" or no FILE: a JSON array of cases, or one case
per line:

  {"id": "put-then-get", "bin_type": "map", "order": "KV_ORDERED",
   "initial": [["a", 1], [2, "b"]],
   "ops": [{"op": "map_put", "args": {"key": "c", "value": 3}},
           {"op": "map_get_by_rank_range", "args": {"rank": -2},
            "return_type": "KEY", "inverted": false}]}

  bin_type       map, list, bytes or hll
  order          UNORDERED K_ORDERED KV_ORDERED (maps), ORDERED UNORDERED_LIST
                 (lists); the order the bin gets when an op creates it
  record_exists  default true; false: no record before the ops
  initial        map: [[key, value], ...]; list: [...]; bytes: {"$bytes": hex};
                 hll: {"$hll": hex}; any other value: the bin holds it; null:
                 no such bin
  ops            [{"op": NAME, "args": {...}, "return_type": RT, "inverted": B,
                   "flags": [...], "policy_order": ORDER, "ctx": [...]}, ...]
                 map_* and list_* ops, bit_* ops on bytes bins, hll_* ops on
                 hll bins (args index_bit_count, minhash_bit_count, values;
                 flags CREATE_ONLY UPDATE_ONLY NO_FAIL ALLOW_FOLD), "read"
                 (the bin)

Expression cases (shared/spec/exp-json.md): "bin_name", "bins" (the record's
other bins), "ttl", "send_key", "filter" (an expression), and the ops
{"op": "exp_read", "name": N, "exp": E, "flags": [...]}, {"op": "exp_write",
"bin": B, "exp": E, "flags": [...]}, {"op": "read_bin", "bin": B},
{"op": "write_bin", "bin": B, "value": V}; E is ["as_exp macro name", args...].
Such a case's record key is its id; its output adds "bins".

Values: ints, strings, true/false, null, arrays (lists), {"$double": x},
{"$bytes": hex}, {"$map": [[k, v], ...]}, {"$nil": true}, {"$inf": true},
{"$wildcard": true}, {"$hll": hex} (HLL sketches). Extra case fields (expected, notes) are ignored.

Defaults: return_type VALUE for *_get_by_*, NONE for *_remove_by_*; no flags.

Output, one line per case:
  {"id": "...", "results": [r0, r1, ...], "final": <bin or null>, "bin_exists": true}
A failed command: the failing op's result is {"error": "NAME", "code": N}, the
others null, and final is the bin as it was. A malformed case:
  {"id": ..., "invalid": "what is wrong and where"}

options:
  --backend sim   the store to run on (the in-memory simulated cluster)
  --backend aerospike
                  a real Aerospike server (builds with the C client only):
                  namespace test, set cdt, key kvmodel-cdt-<process id> (so
                  runs sharing a server never touch each other's record;
                  removed at the end)
  --host H[:P]    the server's seed host(s), "h1[:p1],h2"; default
                  $AEROSPIKE_HOST, else 127.0.0.1:3000
  -h, --help      this help

exit status: 0 every case ran, 1 some case invalid, 2 bad usage.
)";

/// Where the runner keeps each case's record.
struct runner_config {
    std::string ns = "test";
    std::string set = "cdt";
    std::string user_key = "kvmodel-cdt";
    /// The case's bin, and the bin that makes the record exist without it.
    std::string bin = "bin";
    std::string other_bin = "other";
};

namespace detail {

template <class Store>
concept reports_failed_op = requires(Store& s,
                                     const kv::key& k,
                                     std::span<const kv::operation> ops,
                                     const kv::write_policy& wp,
                                     sim::op_report& rep) {
    { s.operate(k, ops, wp, rep) } -> std::same_as<result<kv::record>>;
};

inline std::string error_json(const error& e) {
    return R"({"error": ")" + std::string(status_name(e.code)) + R"(", "code": )" +
           std::to_string(status_code(e.code)) + "}";
}

} // namespace detail

/// Runs cases on one store. Store: any kv::kv_store.
template <kv::kv_store Store>
class runner {
public:
    explicit runner(Store& store, runner_config cfg = {})
        : m_store(store)
        , m_cfg(std::move(cfg))
        , m_key(m_cfg.ns, m_cfg.set, m_cfg.user_key)
        , m_case_key(m_key)
        , m_bin(m_cfg.bin) {}

    /// The output line (without the newline) for one parsed case; `invalid`
    /// is set when the case's initial state cannot be written.
    /// Complexity: see the header comment.
    std::string run_case(const scenario& s, bool& invalid) {
        invalid = false;
        // An expression case (exp-json.md) is the record with the case's id
        // as its user key, and may name its bin.
        m_case_key = s.keyed && s.id.is_string()
                         ? kv::key(m_cfg.ns, m_cfg.set, s.id.get<std::string>())
                         : m_key;
        m_bin = s.bin_name.value_or(m_cfg.bin);
        std::string line = run_prepared(s, invalid);
        if (!(m_case_key == m_key))
            (void)m_store.remove(m_case_key, kv::write_policy{});
        return line;
    }

    /// The kv operations of a case, on the case's bin.
    std::vector<kv::operation> to_operations(const scenario& s) const {
        std::vector<kv::operation> ops;
        ops.reserve(s.ops.size());
        for (const case_op& co : s.ops) {
            if (const auto* c = std::get_if<cdt::op>(&co))
                ops.push_back(kv::op::cdt(m_bin, *c));
            else if (const auto* b = std::get_if<cdt::bit_op>(&co))
                ops.push_back(kv::op::bit(m_bin, *b));
            else if (const auto* k = std::get_if<kv::operation>(&co))
                ops.push_back(*k);
            else if (const auto* h = std::get_if<cdt::hll_op>(&co))
                ops.push_back(kv::op::hll(m_bin, *h));
            else
                ops.push_back(kv::op::read(m_bin));
        }
        return ops;
    }

    static std::string invalid_line(const json& id, const std::string& why) {
        ordered_json o;
        o["id"] = id;
        o["invalid"] = why;
        return dump(o);
    }

    /// Removes the case record (after the last case).
    void remove_record() { (void)m_store.remove(m_key, kv::write_policy{}); }

private:
    std::string run_prepared(const scenario& s, bool& invalid) {
        std::vector<kv::operation> ops = to_operations(s);

        if (result<void> r = setup(s); !r) {
            invalid = true;
            return invalid_line(s.id,
                                "initial: the store refused the initial record: " +
                                    std::string(status_name(r.error().code)) + ": " +
                                    r.error().message);
        }

        std::optional<std::size_t> failed_op;
        result<kv::record> r = operate(s, ops, failed_op);
        std::string line = "{\"id\": " + dump(s.id) + ", \"results\": [";
        if (r) {
            for (std::size_t i = 0; i < ops.size(); ++i) {
                if (i > 0)
                    line += ", ";
                line += i < r->results.size() ? dump(out_json(s, r->results[i])) : "null";
            }
        } else {
            // An expression case is attributed by prefixes on every store: a
            // server evaluates an exp_read of a missing record only in a
            // command that writes, so its prefixes answer differently from
            // the op that failed, and the two outputs must be comparable.
            if (!failed_op || *failed_op >= ops.size() || s.keyed)
                failed_op = first_failing_prefix(s, ops, r.error().code);
            for (std::size_t i = 0; i < ops.size(); ++i) {
                if (i > 0)
                    line += ", ";
                line += i == *failed_op ? detail::error_json(r.error()) : "null";
            }
        }
        line += "], ";

        // `final`: read back, as a client would after the command.
        result<kv::record> after = m_store.get(m_case_key, kv::read_policy{});
        const value* bin = after ? after->get(m_bin) : nullptr;
        if (!after && after.error().code != status::record_not_found) {
            invalid = true;
            return invalid_line(
                s.id,
                "reading the record back failed: " + std::string(status_name(after.error().code)) +
                    ": " + after.error().message);
        }
        line += "\"final\": " + (bin != nullptr ? dump(out_json(s, *bin)) : std::string("null"));
        line += ", \"bin_exists\": ";
        line += bin != nullptr ? "true" : "false";
        if (s.bins) {
            // Every bin of the record, by name (a server returns them in its own order).
            line += ", \"bins\": ";
            if (!after) {
                line += "null";
            } else {
                std::map<std::string, const value*> by_name;
                for (const kv::bin& b : after->bins)
                    by_name.emplace(b.name, &b.val);
                line += "{";
                bool first = true;
                for (const auto& [name, v] : by_name) {
                    line += (first ? "" : ", ") + dump(json(name)) + ": " + dump(out_json(s, *v));
                    first = false;
                }
                line += "}";
            }
        }
        line += "}";
        return line;
    }

    /// A value in the output notation: in an hll case, bytes that hold a
    /// sketch are {"$hll": hex} (kvmodel keeps an HLL bin as bytes).
    static json out_json(const scenario& s, const value& v) {
        json j = to_json(v);
        if (s.kind == bin_kind::hll && v.is_bytes() && cdt::is_hll_sketch(v.as_bytes()))
            return json{{"$hll", j.at("$bytes")}};
        return j;
    }

    /// Puts the record in the case's initial state.
    result<void> setup(const scenario& s) {
        if (result<void> gone = m_store.remove(m_case_key, kv::write_policy{});
            !gone && gone.error().code != status::record_not_found)
            return gone;
        if (!s.record_exists)
            return {};
        std::vector<kv::bin> bins;
        const bool hll_initial = s.kind == bin_kind::hll && s.initial && s.initial->is_bytes() &&
                                 cdt::is_hll_sketch(s.initial->as_bytes());
        if (s.initial && !(hll_initial && !std::is_same_v<Store, sim::cluster>))
            bins.push_back(kv::bin{m_bin, *s.initial});
        if (s.bins)
            bins.insert(bins.end(), s.bins->begin(), s.bins->end());
        if (bins.empty())
            bins.push_back(kv::bin{m_cfg.other_bin, value{std::int64_t{1}}});
        kv::write_policy wp;
        wp.ttl = s.ttl.value_or(kv::ttl_namespace_default);
        wp.send_key = s.send_key;
        result<void> put = kv::put(m_store, m_case_key, std::span<const kv::bin>(bins), wp);
        if (!put || !hll_initial || std::is_same_v<Store, sim::cluster>)
            return put;
        // A real server stores a written blob as a blob: make the HLL bin with
        // a union into a missing bin (same bits, same registers; a non-zero
        // cached count in the initial sketch is not reproduced).
        const std::vector<kv::operation> make = {
            kv::op::hll(m_bin, cdt::hll_ops::hll_set_union({s.initial->as_bytes()}))};
        result<kv::record> r = m_store.operate(m_case_key, make, kv::write_policy{});
        if (!r)
            return r.error();
        return {};
    }

    result<kv::record> operate(const scenario& s,
                               std::span<const kv::operation> ops,
                               std::optional<std::size_t>& failed_op) {
        kv::write_policy wp;
        wp.filter_exp = s.filter;
        if constexpr (detail::reports_failed_op<Store>) {
            sim::op_report rep;
            result<kv::record> r = m_store.operate(m_case_key, ops, wp, rep);
            failed_op = rep.failed_op;
            return r;
        } else {
            failed_op.reset();
            return m_store.operate(m_case_key, ops, wp);
        }
    }

    /// The first op whose prefix of the command fails alone with `code`
    /// (from the initial state each time); the last op if none does. Leaves
    /// the record in its initial state.
    std::size_t
    first_failing_prefix(const scenario& s, std::span<const kv::operation> ops, status code) {
        std::size_t found = ops.size() - 1;
        for (std::size_t n = 1; n <= ops.size(); ++n) {
            if (!setup(s))
                break;
            std::optional<std::size_t> ignored;
            result<kv::record> r = operate(s, ops.first(n), ignored);
            if (!r && r.error().code == code) {
                found = n - 1;
                break;
            }
        }
        (void)setup(s);
        return found;
    }

    Store& m_store;
    runner_config m_cfg;
    kv::key m_key;
    kv::key m_case_key; // the current case's record
    std::string m_bin;  // the current case's bin
};

/// Runs every case of input on store, one output line each. Returns 0, or 1
/// when a case was invalid. Complexity: linear in the input, plus the ops.
template <kv::kv_store Store>
int run_cases(Store& store, std::string_view input, std::ostream& out, runner_config cfg = {}) {
    runner<Store> run(store, std::move(cfg));
    int rc = 0;
    for (document& doc : read_documents(input)) {
        json id = nullptr;
        if (doc.value && doc.value->is_object())
            if (auto it = doc.value->find("id"); it != doc.value->end())
                id = *it;
        if (!doc.value) {
            out << runner<Store>::invalid_line(id, doc.where + ": " + doc.error) << '\n';
            rc = 1;
            continue;
        }
        result<scenario> s = parse_case(*doc.value);
        if (!s) {
            out << runner<Store>::invalid_line(id, s.error().message) << '\n';
            rc = 1;
            continue;
        }
        bool invalid = false;
        out << run.run_case(*s, invalid) << '\n';
        if (invalid)
            rc = 1;
    }
    run.remove_record();
    return rc;
}

/// The command: args are those after `cdt`. Returns the exit status.
inline int
run(std::span<const std::string> args, std::istream& in, std::ostream& out, std::ostream& err) {
    std::optional<std::string> path;
    std::string backend = "sim";
    std::optional<std::string> host;
    bool options_done = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (!options_done && (a == "-h" || a == "--help")) {
            out << usage_text;
            return 0;
        }
        if (!options_done && a == "--") {
            options_done = true;
            continue;
        }
        if (!options_done && (a == "--backend" || a.rfind("--backend=", 0) == 0)) {
            if (a == "--backend") {
                if (i + 1 >= args.size()) {
                    err << "kvmodel cdt: --backend needs a name (sim)\n";
                    return 2;
                }
                backend = args[++i];
            } else {
                backend = a.substr(std::string_view("--backend=").size());
            }
            continue;
        }
        if (!options_done && (a == "--host" || a.rfind("--host=", 0) == 0)) {
            if (a == "--host") {
                if (i + 1 >= args.size()) {
                    err << "kvmodel cdt: --host needs H[:P]\n";
                    return 2;
                }
                host = args[++i];
            } else {
                host = a.substr(std::string_view("--host=").size());
            }
            continue;
        }
        if (!options_done && a.size() > 1 && a[0] == '-') {
            err << "kvmodel cdt: unknown option '" << a
                << "' (a FILE starting with '-' goes after '--')\n"
                << "usage: kvmodel cdt [FILE|-] [--backend sim|aerospike] [--host H[:P]]\n";
            return 2;
        }
        if (path) {
            err << "kvmodel cdt: more than one FILE ('" << *path << "', '" << a << "')\n";
            return 2;
        }
        path = a;
    }
#if defined(KVMODEL_HAVE_AEROSPIKE)
    constexpr std::string_view backends = "sim, aerospike";
#else
    constexpr std::string_view backends =
        "sim; aerospike needs a build with the Aerospike C client";
#endif
    if (backend != "sim" &&
        (backend != "aerospike" || backends.find(',') == std::string_view::npos)) {
        err << "kvmodel cdt: unknown backend '" << backend << "' (this build has: " << backends
            << ")\n";
        return 2;
    }
    if (host && backend != "aerospike") {
        err << "kvmodel cdt: --host is for --backend aerospike\n";
        return 2;
    }

    std::string error;
    std::optional<std::string> input = read_input(path.value_or("-"), in, error);
    if (!input) {
        err << "kvmodel cdt: " << error << '\n';
        return 1;
    }
    int rc = 0;
#if defined(KVMODEL_HAVE_AEROSPIKE)
    if (backend == "aerospike") {
        adapters::aerospike_config cfg;
        const char* env = std::getenv("AEROSPIKE_HOST");
        cfg.hosts = host ? *host : (env != nullptr && *env != '\0' ? env : "127.0.0.1:3000");
        result<adapters::aerospike_store> store = adapters::aerospike_store::connect(cfg);
        if (!store) {
            err << "kvmodel cdt: " << store.error().message << '\n';
            return 1;
        }
        runner_config rcfg;
        rcfg.user_key += "-" + std::to_string(::getpid());
        rc = run_cases(*store, *input, out, std::move(rcfg));
        if (rc != 0)
            err << "kvmodel cdt: some cases are invalid (see \"invalid\")\n";
        return rc;
    }
#endif
    // nsup every 60 s, as the server the corpora are recorded on (a case may
    // write its record with a TTL; with nsup-period 0 that is FAIL_FORBIDDEN).
    sim::cluster cluster(sim::cluster_config{}.with_nsup_period(60));
    rc = run_cases(cluster, *input, out);
    if (rc != 0)
        err << "kvmodel cdt: some cases are invalid (see \"invalid\")\n";
    return rc;
}

} // namespace kvmodel::tools::cdt_json
