// tools/serve/service.hpp
//
// What `kvmodel serve` answers, without sockets: a service wraps one
// sim::cluster and turns a request body received by node n into the bytes
// to send back (tools/serve/server.hpp moves the bytes).
//
// * Info (proto type 1): the commands the official clients send while they
//   tend the cluster (node, build, version, edition, features, partitions,
//   partition-generation, replicas / replicas-master / replicas-all,
//   peers-generation, peers-clear-std / -alt, peers-tls-*, service-clear-std,
//   rebalance-generation, rack-ids, cluster-name, namespaces,
//   namespace/<ns>, statistics), sindex-create / sindex-delete, truncate /
//   truncate-namespace, and the test powers (kvmodel-*; README "Testing from
//   any language"). An unknown name is left out of the answer, as the server
//   does.
// * Messages (proto type 3): single-record commands (get, exists, put,
//   delete, touch, operate) through sim::cluster::operate / remove with the
//   policy the header's bits carry; batch index requests through
//   kv::batch_operate (one as_msg per key, then LAST); scans and
//   secondary-index queries by partition (records, then PARTITION_DONE per
//   partition asked, then LAST). Every node answers every command (the
//   server would proxy a command that reached the wrong node); a node that
//   is down has its port closed by the server.
//
// Departures: the sim's client-side retry loop is off (max_retries 0), the
// real client retries; a TIMEOUT the sim reports (an injected timeout or
// latency) is answered as the server's TIMEOUT result code, and a
// client-side status (a node crash's refused connection) closes the
// connection. Record TTLs are sent as void times on the client's clock
// (now + the sim's seconds left), so a client computes the sim's TTL.
#pragma once

#include <kvmodel/kv/batch.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/sim/cluster.hpp>
#include <kvmodel/sim/stats_json.hpp>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ops.hpp"
#include "wire.hpp"

namespace kvmodel::tools::serve {

/// Standard base64 (as the server's cf_b64 encodes partition bitmaps).
inline std::string base64(std::span<const std::uint8_t> in) {
    static constexpr char digits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < in.size(); i += 3) {
        std::uint32_t n = std::uint32_t{in[i]} << 16;
        if (i + 1 < in.size())
            n |= std::uint32_t{in[i + 1]} << 8;
        if (i + 2 < in.size())
            n |= in[i + 2];
        out.push_back(digits[(n >> 18) & 63]);
        out.push_back(digits[(n >> 12) & 63]);
        out.push_back(i + 1 < in.size() ? digits[(n >> 6) & 63] : '=');
        out.push_back(i + 2 < in.size() ? digits[n & 63] : '=');
    }
    return out;
}

/// Seconds between the Unix epoch and Aerospike's (2010-01-01).
inline constexpr std::int64_t citrusleaf_epoch = 1262304000;

/// "k1=v1;k2=v2" parameters of an info command.
inline std::map<std::string, std::string, std::less<>> info_params(std::string_view s) {
    std::map<std::string, std::string, std::less<>> out;
    while (!s.empty()) {
        std::size_t end = s.find(';');
        std::string_view kv = s.substr(0, end);
        std::size_t eq = kv.find('=');
        if (eq != std::string_view::npos)
            out.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
        else if (!kv.empty())
            out.emplace(std::string(kv), std::string());
        if (end == std::string_view::npos)
            break;
        s.remove_prefix(end + 1);
    }
    return out;
}

/// What a handled request asks the connection to do.
struct reply {
    std::vector<std::uint8_t> bytes; ///< to send (may be empty)
    bool close = false;              ///< close the connection after sending
};

/// The service behind every node's port.
class service {
public:
    /// `ports[n]` is node n's port (for peers and service addresses).
    service(sim::cluster& db, std::vector<std::uint16_t> ports, std::string cluster_name)
        : m_db(db)
        , m_ports(std::move(ports))
        , m_cluster_name(std::move(cluster_name)) {}

    sim::cluster& cluster() noexcept { return m_db; }
    /// The ports actually bound (after binding port 0).
    void set_ports(std::vector<std::uint16_t> ports) { m_ports = std::move(ports); }
    std::uint32_t nodes() const noexcept { return static_cast<std::uint32_t>(m_ports.size()); }

    /// Node n's name: what `node` answers and peers list.
    static std::string node_name(std::uint32_t n) {
        std::string hex = "0123456789ABCDEF";
        std::string s = "BB9";
        for (int shift = 44; shift >= 0; shift -= 4)
            s.push_back(hex[(std::uint64_t{n + 1} >> shift) & 15]);
        return s;
    }

    /// Bumped on every topology change: partition- and peers-generation.
    std::uint32_t generation() const noexcept { return m_generation.load(); }

    /// Takes node n down or up (the server closes or reopens its port:
    /// on_topology is called after the change).
    result<void> set_node(std::uint32_t n, bool up) {
        auto r = up ? m_db.node_up(static_cast<int>(n)) : m_db.node_down(static_cast<int>(n));
        if (r) {
            ++m_generation;
            if (on_topology)
                on_topology(n, up);
        }
        return r;
    }
    /// Called after set_node changed a node (the server opens or closes its port).
    std::function<void(std::uint32_t, bool)> on_topology;

    /// A whole request of proto type `type` received by node n.
    reply handle(std::uint32_t n, std::uint8_t type, std::span<const std::uint8_t> body) {
        if (type == proto::type_info) {
            std::string_view text(reinterpret_cast<const char*>(body.data()), body.size());
            return {info_frame(info(n, text)), false};
        }
        if (type == proto::type_message)
            return message(body);
        // Admin (security) messages: the Community server has no security.
        // Compressed ones are inflated by the server first (compressed.hpp).
        // Both close the connection here, as the server does with what it
        // cannot read.
        return {{}, true};
    }

    /// The answer to an info request: "name\tvalue\n" per command asked.
    std::string info(std::uint32_t n, std::string_view request) {
        std::string out;
        if (request.empty()) // the whole default list: node and build are enough
            request = "node\nbuild\n";
        while (!request.empty()) {
            std::size_t end = request.find('\n');
            std::string_view cmd = request.substr(0, end);
            if (!cmd.empty()) {
                std::optional<std::string> v = info_one(n, cmd);
                if (v) {
                    out.append(cmd);
                    out.push_back('\t');
                    out.append(*v);
                    out.push_back('\n');
                }
            }
            if (end == std::string_view::npos)
                break;
            request.remove_prefix(end + 1);
        }
        return out;
    }

private:
    // --- info ------------------------------------------------------------------

    std::string replicas(std::uint32_t n) const {
        std::string out;
        for (const sim::namespace_config& nc : m_db.config().namespaces) {
            std::uint32_t rf = std::min<std::uint32_t>(nc.replication_factor, nodes());
            std::vector<std::vector<std::uint8_t>> maps(rf, std::vector<std::uint8_t>(512, 0));
            for (std::uint32_t pid = 0; pid < 4096; ++pid) {
                std::vector<int> reps = m_db.replicas(nc.name, pid);
                for (std::size_t i = 0; i < reps.size() && i < rf; ++i)
                    if (reps[i] == static_cast<int>(n))
                        maps[i][pid >> 3] |= static_cast<std::uint8_t>(0x80 >> (pid & 7));
            }
            out += nc.name + ":0," + std::to_string(rf);
            for (const auto& m : maps)
                out.append(",").append(base64(m));
            out += ";";
        }
        if (!out.empty())
            out.pop_back();
        return out;
    }

    std::string replicas_master(std::uint32_t n) const {
        std::string out;
        for (const sim::namespace_config& nc : m_db.config().namespaces) {
            std::vector<std::uint8_t> map(512, 0);
            for (std::uint32_t pid = 0; pid < 4096; ++pid) {
                std::vector<int> reps = m_db.replicas(nc.name, pid);
                if (!reps.empty() && reps[0] == static_cast<int>(n))
                    map[pid >> 3] |= static_cast<std::uint8_t>(0x80 >> (pid & 7));
            }
            out += nc.name + ":" + base64(map) + ";";
        }
        if (!out.empty())
            out.pop_back();
        return out;
    }

    std::string peers(std::uint32_t n) const {
        std::string out = std::to_string(generation()) + ",,[";
        bool first = true;
        for (std::uint32_t p = 0; p < nodes(); ++p) {
            if (p == n || !m_db.node_alive(static_cast<int>(p)))
                continue;
            if (!first)
                out += ",";
            first = false;
            out += "[" + node_name(p) + ",,[127.0.0.1:" + std::to_string(m_ports[p]) + "]]";
        }
        return out + "]";
    }

    std::string statistics() const {
        std::uint32_t alive = 0;
        for (std::uint32_t p = 0; p < nodes(); ++p)
            alive += m_db.node_alive(static_cast<int>(p)) ? 1U : 0U;
        std::uint64_t objects = 0;
        for (const sim::namespace_config& nc : m_db.config().namespaces)
            objects += m_db.record_count(nc.name);
        return "cluster_size=" + std::to_string(alive) + ";objects=" + std::to_string(objects) +
               ";cluster_generation=" + std::to_string(generation());
    }

    static std::string fail_text(const error& e) {
        return "FAIL:" + std::to_string(static_cast<int>(e.code)) + ":" + e.message;
    }

    std::optional<std::string> info_one(std::uint32_t n, std::string_view cmd) {
        std::string_view name = cmd.substr(0, cmd.find(':'));
        std::string_view args = cmd.find(':') == std::string_view::npos
                                    ? std::string_view()
                                    : cmd.substr(cmd.find(':') + 1);
        auto params = info_params(args);
        if (name == "node")
            return node_name(n);
        if (name == "build")
            return "8.1.2.0";
        if (name == "version")
            return "Aerospike Community Edition build 8.1.2.0";
        if (name == "edition")
            return "Aerospike Community Edition";
        if (name == "features")
            return "batch-any;batch-index;blob-bits;cdt-list;cdt-map;cluster-stable;float;"
                   "sindex-exists;peers;pipelining;pquery;pscans;query-show;replicas;"
                   "replicas-all;replicas-master;truncate-namespace";
        if (name == "partitions")
            return "4096";
        if (name == "partition-generation" || name == "peers-generation" ||
            name == "rebalance-generation" || name == "cluster-stable")
            return std::to_string(generation());
        if (name == "replicas" || name == "replicas-all")
            return replicas(n);
        if (name == "replicas-master")
            return replicas_master(n);
        if (name == "peers-clear-std" || name == "peers-clear-alt")
            return peers(n);
        if (name == "peers-tls-std" || name == "peers-tls-alt")
            return std::to_string(generation()) + ",,[]";
        if (name == "service-clear-std" || name == "service-clear-alt" || name == "service")
            return "127.0.0.1:" + std::to_string(m_ports[n]);
        if (name == "rack-ids")
            return std::string();
        if (name == "cluster-name")
            return m_cluster_name;
        if (name == "namespaces") {
            std::string out;
            for (const sim::namespace_config& nc : m_db.config().namespaces)
                out.append(out.empty() ? "" : ";").append(nc.name);
            return out;
        }
        if (name.starts_with("namespace/")) {
            std::string_view ns = name.substr(10);
            for (const sim::namespace_config& nc : m_db.config().namespaces)
                if (nc.name == ns)
                    return "objects=" + std::to_string(m_db.record_count(ns)) +
                           ";replication-factor=" + std::to_string(nc.replication_factor) +
                           ";default-ttl=" + std::to_string(nc.default_ttl) +
                           ";max-record-size=" + std::to_string(nc.max_record_size) +
                           ";storage-engine=memory";
            return "type=unknown";
        }
        if (name == "statistics")
            return statistics();
        if (name == "sindex-create")
            return sindex_create(params);
        if (name == "sindex-delete") {
            auto r = m_db.drop_index(params.count("namespace") ? params["namespace"] : params["ns"],
                                     params["indexname"]);
            return r ? std::string("OK") : fail_text(r.error());
        }
        if (name == "sindex-stat" || name.starts_with("sindex/"))
            return std::string("load_pct=100"); // indexes are built at once
        if (name == "truncate" || name == "truncate-namespace")
            return truncate(params["namespace"], params["set"]);
        if (name.starts_with("kvmodel-"))
            return powers(name.substr(8), params);
        return std::nullopt;
    }

    std::string sindex_create(std::map<std::string, std::string, std::less<>>& p) {
        kv::index_spec ix;
        ix.ns = p.count("namespace") ? p["namespace"] : p["ns"];
        ix.set = p["set"];
        ix.name = p["indexname"];
        // indexdata=bin,type (older) or bin=..;type=.. (8.x)
        std::string type;
        if (p.count("indexdata")) {
            std::string d = p["indexdata"];
            std::size_t c = d.find(',');
            ix.bin = d.substr(0, c);
            type = c == std::string::npos ? "" : d.substr(c + 1);
        } else {
            ix.bin = p["bin"];
            type = p["type"];
        }
        for (char& ch : type)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (type == "numeric" || type == "integer")
            ix.type = kv::index_type::numeric;
        else if (type == "string")
            ix.type = kv::index_type::string;
        else
            return "FAIL:4:index type '" + type + "' is not supported by kvmodel";
        std::string it = p.count("indextype") ? p["indextype"] : "default";
        for (char& ch : it)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (it == "list")
            ix.collection = kv::index_collection::list;
        else if (it == "mapkeys")
            ix.collection = kv::index_collection::map_keys;
        else if (it == "mapvalues")
            ix.collection = kv::index_collection::map_values;
        auto r = m_db.create_index(ix);
        return r ? std::string("OK") : fail_text(r.error());
    }

    std::string truncate(const std::string& ns, const std::string& set) {
        kv::scan_request req;
        req.ns = ns;
        req.set = set;
        auto all = m_db.scan(req);
        if (!all)
            return fail_text(all.error());
        for (const kv::keyed_record& r : *all)
            (void)m_db.remove(r.k);
        return "ok";
    }

    // The test powers (documented in README "Testing from any language").
    std::string powers(std::string_view what, std::map<std::string, std::string, std::less<>>& p) {
        auto num = [&](const char* k, std::int64_t def) {
            auto it = p.find(k);
            if (it == p.end() || it->second.empty())
                return def;
            try {
                return static_cast<std::int64_t>(std::stoll(it->second));
            } catch (...) {
                return def;
            }
        };
        sim::manual_clock* clock = m_db.manual_time();
        if (what == "clock")
            return std::to_string(m_db.time_source().now_ms());
        if (what == "clock-advance") {
            if (!clock)
                return "FAIL:4:the clock is not manual";
            clock->advance(std::chrono::milliseconds(num("ms", 0)));
            return std::to_string(clock->now_ms());
        }
        if (what == "node-down" || what == "node-up") {
            std::int64_t node = num("node", -1);
            if (node < 0 || node >= static_cast<std::int64_t>(nodes()))
                return "FAIL:4:no node " + std::to_string(node);
            auto r = set_node(static_cast<std::uint32_t>(node), what == "node-up");
            return r ? std::string("ok") : fail_text(r.error());
        }
        if (what == "fault") {
            std::string kind = p["kind"];
            std::int64_t times = num("times", 1);
            if (kind == "status") {
                std::lock_guard lock(m_mutex);
                m_status_faults.push_back({static_cast<std::uint8_t>(num("code", 1)),
                                           static_cast<std::uint64_t>(times),
                                           p["ns"]});
                return "ok";
            }
            sim::fault f;
            if (kind == "timeout")
                f = sim::fault::timeout();
            else if (kind == "in_doubt")
                f = sim::fault::in_doubt();
            else if (kind == "latency")
                f = sim::fault::latency(std::chrono::microseconds(num("us", 0)));
            else
                return "FAIL:4:unknown fault kind '" + kind +
                       "' (timeout, in_doubt, latency, status)";
            f = f.times(static_cast<std::uint64_t>(times))
                    .on_node(static_cast<int>(num("node", -1)));
            if (p.count("ns"))
                f = f.in_namespace(p["ns"]);
            auto id = m_db.add_fault(f);
            return id ? std::to_string(*id) : fail_text(id.error());
        }
        if (what == "faults-clear") {
            m_db.clear_faults();
            std::lock_guard lock(m_mutex);
            m_status_faults.clear();
            return "ok";
        }
        if (what == "stats")
            return sim::to_json(m_db.stats()).dump();
        if (what == "stats-reset") {
            m_db.reset_stats();
            return "ok";
        }
        if (what == "reset") {
            for (std::uint32_t n = 0; n < nodes(); ++n)
                if (!m_db.node_alive(static_cast<int>(n)))
                    (void)set_node(n, true);
            m_db.clear_faults();
            {
                std::lock_guard lock(m_mutex);
                m_status_faults.clear();
            }
            for (const sim::namespace_config& nc : m_db.config().namespaces)
                (void)truncate(nc.name, "");
            m_db.reset_stats();
            return "ok";
        }
        return "FAIL:4:unknown kvmodel command '" + std::string(what) + "'";
    }

    // --- messages -------------------------------------------------------------

    struct status_fault {
        std::uint8_t code = 0;
        std::uint64_t left = 0; // 0 = forever
        std::string ns;
    };

    // An injected status for a command on ns, if one is due.
    std::optional<std::uint8_t> injected(std::string_view ns) {
        std::lock_guard lock(m_mutex);
        for (auto it = m_status_faults.begin(); it != m_status_faults.end(); ++it) {
            if (!it->ns.empty() && it->ns != ns)
                continue;
            std::uint8_t code = it->code;
            if (it->left == 1)
                m_status_faults.erase(it);
            else if (it->left > 1)
                --it->left;
            return code;
        }
        return std::nullopt;
    }

    static std::uint32_t wire_void_time(const kv::record& r) {
        if (r.ttl < 0)
            return 0;
        auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
        return static_cast<std::uint32_t>(now - citrusleaf_epoch +
                                          std::max<std::int64_t>(r.ttl, 1));
    }

    // A stream's answers go out in proto frames of about 128 KiB, as the
    // server sends them: ends the frame in w and moves it to out once it is
    // that large (or now, for the last one).
    static void flush_large(msg_writer& w, std::vector<std::uint8_t>& out, bool last = false) {
        if (!last && w.size() <= 128 * 1024)
            return;
        w.end_proto();
        out.insert(out.end(), w.bytes().begin(), w.bytes().end());
        w.bytes().clear();
    }

    static reply error_reply(std::uint8_t code) {
        msg_writer w;
        w.begin(code, 0, 0, info3::last);
        w.end();
        w.end_proto();
        return {std::move(w.bytes()), false};
    }

    static std::string field_text(const message& m, std::uint8_t type) {
        const wire_field* f = m.find(type);
        return f ? std::string(reinterpret_cast<const char*>(f->data.data()), f->data.size())
                 : std::string();
    }

    // The key a command names: the user key when sent (so send_key stores
    // it), else the digest.
    static result<kv::key> key_of(const message& m) {
        std::string ns = field_text(m, field::ns);
        std::string set = field_text(m, field::set);
        if (ns.empty() || ns.size() > kv::max_namespace_length)
            return fail(status::parameter_error, "message: no valid namespace field");
        if (set.size() > kv::max_set_length)
            return fail(status::parameter_error, "message: set name too long");
        if (const wire_field* k = m.find(field::key); k && !k->data.empty()) {
            auto v = particle_value(k->data[0], k->data.subspan(1));
            if (!v)
                return v.error();
            auto key = kv::key::make(ns, set, std::move(*v));
            if (key)
                return key;
        }
        const wire_field* d = m.find(field::digest);
        std::span<const std::uint8_t> bytes = d ? d->data : m.row_digest;
        if (bytes.size() != 20)
            return fail(status::parameter_error, "message: no 20-byte digest field");
        kv::digest dg{};
        std::copy(bytes.begin(), bytes.end(), dg.begin());
        return kv::key::from_digest(ns, set, dg);
    }

    static kv::write_policy policy_of(const message& m) {
        kv::write_policy wp;
        wp.max_retries = 0;
        wp.socket_timeout = std::chrono::milliseconds(0);
        wp.total_timeout = std::chrono::milliseconds(m.h.transaction_ttl);
        if (m.h.info2 & info2::generation)
            wp.gen = kv::generation_policy::eq;
        else if (m.h.info2 & info2::generation_gt)
            wp.gen = kv::generation_policy::gt;
        wp.generation = m.h.generation;
        if (m.h.info2 & info2::create_only)
            wp.exists = kv::record_exists_action::create_only;
        else if (m.h.info3 & info3::update_only)
            wp.exists = kv::record_exists_action::update_only;
        else if (m.h.info3 & info3::create_or_replace)
            wp.exists = kv::record_exists_action::replace;
        else if (m.h.info3 & info3::replace_only)
            wp.exists = kv::record_exists_action::replace_only;
        wp.ttl = m.h.record_ttl == 0xFFFFFFFFU   ? kv::ttl_never_expire
                 : m.h.record_ttl == 0xFFFFFFFEU ? kv::ttl_dont_update
                                                 : static_cast<std::int64_t>(m.h.record_ttl);
        wp.durable_delete = (m.h.info2 & info2::durable_delete) != 0;
        wp.send_key = m.find(field::key) != nullptr;
        if (const wire_field* f = m.find(field::filter_exp))
            wp.filter_exp.assign(f->data.begin(), f->data.end());
        return wp;
    }

    static bool pairs_as_map(const kv::operation& o) {
        const auto* c = std::get_if<kv::cdt_operation>(&o);
        return c && cdt::is_map_op(c->op.code) &&
               (c->op.return_type & 0xffff) ==
                   static_cast<std::int32_t>(cdt::return_type::key_value);
    }

    // An op whose result is an HLL sketch (the server sends it as one).
    static bool is_sketch(const kv::operation& o) {
        const auto* h = std::get_if<kv::hll_operation>(&o);
        return h && h->op.code == cdt::hll_op_code::hll_get_union;
    }

    // The ops of a record answer (see the header comment of this file).
    static void write_bins(msg_writer& w,
                           const message& m,
                           std::span<const kv::operation> ops,
                           const kv::record& r) {
        bool all_ops = (m.h.info2 & info2::respond_all_ops) != 0;
        if (ops.empty() || (m.h.info1 & info1::get_all)) {
            if (!(m.h.info1 & info1::get_no_bins))
                for (const kv::bin& b : r.bins)
                    w.op(b.name, b.val);
            if (ops.empty() || ops.size() == 1)
                return;
        }
        for (std::size_t i = 0; i < ops.size() && i < r.results.size(); ++i) {
            const kv::operation& o = ops[i];
            kv::op_kind k = kv::kind(o);
            // A touch has no bin: the server answers nothing for it, even
            // with respond-all-ops (a delete op answers a nil).
            if (k == kv::op_kind::read_all || k == kv::op_kind::read_header ||
                k == kv::op_kind::touch)
                continue;
            const std::string* bin = kv::bin_of(o);
            const value& v = r.results[i];
            if (!all_ops && v.is_nil())
                continue;
            w.op(bin ? std::string_view(*bin) : std::string_view(),
                 v,
                 pairs_as_map(o),
                 is_sketch(o));
        }
    }

    // One record command, decoded: its key, policy and ops (what it runs),
    // or the result code that answers it without running.
    struct prepared {
        std::optional<kv::key> key;
        kv::write_policy wp;
        std::vector<kv::operation> ops;
        bool remove = false; // a delete command
        int code = 0;        // != 0: answer this code, run nothing
    };

    prepared prepare(const message& m) {
        prepared p;
        auto key = key_of(m);
        if (!key) {
            p.code = static_cast<int>(key.error().code);
            return p;
        }
        if (auto code = injected(key->ns())) {
            p.code = *code;
            return p;
        }
        p.key = std::move(*key);
        p.wp = policy_of(m);
        p.ops.reserve(m.ops.size());
        for (const wire_op& wo : m.ops) {
            auto o = decode_op(wo);
            if (!o) {
                p.code = static_cast<int>(o.error().code);
                return p;
            }
            p.ops.push_back(std::move(*o));
        }
        bool is_write = (m.h.info2 & (info2::write | info2::remove)) != 0;
        p.remove = (m.h.info2 & info2::remove) && p.ops.empty();
        if (p.ops.empty() && !p.remove) {
            if (m.h.info1 & info1::get_no_bins)
                p.ops.push_back(kv::op::read_header());
            else
                p.ops.push_back(kv::op::read_all());
        } else if ((m.h.info1 & info1::get_all) && !is_write) {
            // get with GET_ALL and bin ops: the whole record
            p.ops.assign(1, kv::op::read_all());
        }
        return p;
    }

    // Appends the answer to one record command (one as_msg) to w; false
    // when the connection must close instead (a client-side status).
    static bool answer(const message& m,
                       const prepared& p,
                       const result<kv::record>& r,
                       msg_writer& w,
                       std::uint32_t index,
                       std::uint8_t i3) {
        int code = p.code != 0 ? p.code : r ? 0 : static_cast<int>(r.error().code);
        if (code < 0 || code > 255)
            return false;
        if (code != 0 || p.remove) {
            w.begin(static_cast<std::uint8_t>(code), 0, 0, i3, index);
            w.end();
            return true;
        }
        w.begin(0, r->generation, wire_void_time(*r), i3, index);
        if (!(m.h.info1 & info1::get_no_bins))
            write_bins(w, m, p.ops, *r);
        w.end();
        return true;
    }

    // Runs a prepared command (one whose p.code is set answers that code and
    // runs nothing: the result is a placeholder answer() does not read).
    result<kv::record> run(const prepared& p) {
        if (p.code != 0)
            return fail(status::ok, "");
        if (p.remove) {
            auto r = m_db.remove(*p.key, p.wp);
            if (!r)
                return r.error();
            return kv::record{};
        }
        return m_db.operate(*p.key, p.ops, p.wp);
    }

    reply single(const message& m) {
        msg_writer w;
        prepared p = prepare(m);
        if (!answer(m, p, run(p), w, 0, info3::last))
            return {{}, true};
        w.end_proto();
        return {std::move(w.bytes()), false};
    }

    // A batch index request: one as_msg per key (its index in the
    // transaction-ttl slot), then an empty one marked LAST; answers are
    // flushed in proto frames of about 128 KiB, as the server streams them.
    reply batch(const message& m, const wire_field& f) {
        auto rows = parse_batch(f.data, m.h);
        if (!rows)
            return {{}, true};
        // The rows that run go to kv::batch_operate as one batch (one round
        // trip per node where the store batches); the rest answer their code.
        std::vector<prepared> preps;
        std::vector<kv::batch_record> batch;
        std::vector<std::size_t> slot(rows->size(), 0);
        preps.reserve(rows->size());
        for (std::size_t i = 0; i < rows->size(); ++i) {
            preps.push_back(prepare((*rows)[i].m));
            prepared& p = preps.back();
            if (p.code != 0)
                continue;
            slot[i] = batch.size();
            bool write = ((*rows)[i].m.h.info2 & (info2::write | info2::remove)) != 0;
            if (p.remove)
                batch.push_back(kv::batch_record::remove(*p.key, p.wp));
            else if (write)
                batch.push_back(kv::batch_record::write(*p.key, p.ops, p.wp));
            else {
                kv::read_policy rp;
                static_cast<kv::base_policy&>(rp) = p.wp;
                batch.push_back(kv::batch_record::read(*p.key, p.ops, rp));
            }
        }
        kv::batch_policy bp;
        bp.max_retries = 0;
        bp.total_timeout = std::chrono::milliseconds(m.h.transaction_ttl);
        std::vector<result<kv::record>> results = kv::batch_operate(m_db, batch, bp);
        msg_writer w;
        std::vector<std::uint8_t> out;
        for (std::size_t i = 0; i < rows->size(); ++i) {
            const prepared& p = preps[i];
            // (answer reads r only for a row that ran: p.code == 0)
            result<kv::record> none = fail(status::ok, "");
            const result<kv::record>& r = p.code != 0 ? none : results[slot[i]];
            if (!answer((*rows)[i].m, p, r, w, (*rows)[i].index, 0)) {
                // A client-side status (a crash fault) cannot close one key's
                // share of the connection: that key answers TIMEOUT.
                w.begin(static_cast<std::uint8_t>(status::timeout), 0, 0, 0, (*rows)[i].index);
                w.end();
            }
            flush_large(w, out);
        }
        w.begin(0, 0, 0, info3::last);
        w.end();
        flush_large(w, out, true);
        return {std::move(out), false};
    }

    // The query filter of an index-range field: u8 count (1), then u8 bin
    // name length, name, u8 particle type, u32 size + begin, u32 size + end.
    static result<kv::filter> filter_of(const wire_field& f, const message& m) {
        reader r(f.data);
        auto bad = [] {
            return fail(status::parameter_error, "query: malformed index range");
        };
        if (!r.need(2) || r.be(1) != 1)
            return bad();
        auto name_len = static_cast<std::size_t>(r.be(1));
        if (!r.need(name_len + 5))
            return bad();
        auto name = r.take(name_len);
        auto type = static_cast<std::uint8_t>(r.be(1));
        auto begin_size = static_cast<std::size_t>(r.be(4));
        if (!r.need(begin_size + 4))
            return bad();
        auto begin = particle_value(type, r.take(begin_size));
        auto end_size = static_cast<std::size_t>(r.be(4));
        if (!r.need(end_size) || !begin)
            return bad();
        auto end = particle_value(type, r.take(end_size));
        if (!end)
            return bad();
        kv::filter flt;
        flt.bin.assign(reinterpret_cast<const char*>(name.data()), name.size());
        flt.begin = std::move(*begin);
        if (flt.begin.is_int())
            flt.end = std::move(*end);
        if (const wire_field* t = m.find(field::index_type);
            t && t->data.size() == 1 && t->data[0] <= 3)
            flt.collection = static_cast<kv::index_collection>(t->data[0]);
        return flt;
    }

    // A scan or query by partition: the records of the partitions the
    // client lists (pid array: u16 little-endian; digest array: resume
    // after that digest) that pass the filter expression, each with its
    // digest, namespace, set and stored key; a PARTITION_DONE message per
    // partition finished (a max-records page leaves the rest for the
    // client to resume); then LAST. The sim's scan_page / query_page walk
    // the partitions from the cursor the message describes.
    reply scan(const message& m) {
        std::string ns = field_text(m, field::ns);
        std::string set = field_text(m, field::set);
        std::vector<bool> wanted(4096, false);
        std::vector<std::optional<kv::digest>> after(4096);
        bool any = false;
        if (const wire_field* f = m.find(field::pid_array)) {
            for (std::size_t i = 0; i + 1 < f->data.size(); i += 2) {
                std::size_t pid = f->data[i] | (std::size_t{f->data[i + 1]} << 8);
                if (pid < 4096)
                    wanted[pid] = any = true;
            }
        }
        if (const wire_field* f = m.find(field::digest_array)) {
            for (std::size_t i = 0; i + 20 <= f->data.size(); i += 20) {
                kv::digest d{};
                std::copy_n(f->data.begin() + static_cast<std::ptrdiff_t>(i), 20, d.begin());
                std::uint32_t pid = kv::partition_id(d);
                wanted[pid] = any = true;
                after[pid] = d;
            }
        }
        if (!any)
            std::fill(wanted.begin(), wanted.end(), true);
        kv::partition_cursor cursor;
        for (std::uint32_t pid = 0; pid < 4096; ++pid)
            if (wanted[pid])
                cursor.parts.push_back(kv::partition_cursor::part{pid, false, after[pid]});
        std::vector<std::string> bins;
        for (const wire_op& o : m.ops)
            bins.emplace_back(o.name);
        std::uint64_t max_records = 0;
        if (const wire_field* f = m.find(field::max_records); f && f->data.size() == 8)
            max_records = get_be(f->data.data(), 8);
        result<std::vector<kv::keyed_record>> found = std::vector<kv::keyed_record>();
        kv::read_policy rp;
        rp.max_retries = 0;
        if (const wire_field* f = m.find(field::filter_exp))
            rp.filter_exp.assign(f->data.begin(), f->data.end());
        if (const wire_field* f = m.find(field::index_range)) {
            auto flt = filter_of(*f, m);
            if (!flt)
                return error_reply(static_cast<std::uint8_t>(flt.error().code));
            found = m_db.query_page(
                kv::query_request{ns, set, bins, std::move(*flt), max_records}, cursor, rp);
        } else {
            found = m_db.scan_page(kv::scan_request{ns, set, bins, max_records}, cursor, rp);
        }
        if (!found)
            return error_reply(static_cast<std::uint8_t>(found.error().code));
        msg_writer w;
        std::vector<std::uint8_t> out;
        for (const kv::keyed_record& kr : *found) {
            w.begin(0, kr.rec.generation, wire_void_time(kr.rec), 0);
            w.field(field::digest, kr.k.digest());
            w.field(field::ns,
                    std::span(reinterpret_cast<const std::uint8_t*>(ns.data()), ns.size()));
            if (!kr.k.set().empty())
                w.field(field::set,
                        std::span(reinterpret_cast<const std::uint8_t*>(kr.k.set().data()),
                                  kr.k.set().size()));
            if (kr.k.user_key()) {
                std::vector<std::uint8_t> kb(1);
                kb[0] = append_particle(*kr.k.user_key(), kb);
                w.field(field::key, kb);
            }
            if (!(m.h.info1 & info1::get_no_bins))
                for (const kv::bin& b : kr.rec.bins)
                    w.op(b.name, b.val);
            w.end();
            flush_large(w, out);
        }
        for (const kv::partition_cursor::part& part : cursor.parts) {
            if (!part.done)
                continue;
            w.begin(0, part.id, 0, info3::partition_done);
            w.end();
        }
        w.begin(0, 0, 0, info3::last);
        w.end();
        flush_large(w, out, true);
        return {std::move(out), false};
    }

    reply message(std::span<const std::uint8_t> body) {
        auto m = parse_message(body);
        if (!m)
            return {{}, true};
        if (const wire_field* f = m->find(field::batch_index))
            return batch(*m, *f);
        if (!m->find(field::digest) && !m->find(field::key))
            return scan(*m);
        return single(*m);
    }

    sim::cluster& m_db;
    std::vector<std::uint16_t> m_ports;
    std::string m_cluster_name;
    std::atomic<std::uint32_t> m_generation{1};
    std::mutex m_mutex;
    std::vector<status_fault> m_status_faults;
};

} // namespace kvmodel::tools::serve
