// kvmodel/adapters/aerospike.hpp
//
// aerospike_store: the kv_store concept (kv/store.hpp) on a real Aerospike
// cluster through the official Aerospike C client — the only kvmodel header
// that includes <aerospike/...>. Link with kvmodel::aerospike (CMake: found
// through the KVMODEL_AEROSPIKE_ROOT / AEROSPIKE_ROOT hint).
//
// What it does:
// * connect(aerospike_config) owns one `aerospike` (cluster tender, connection
//   pools) with RAII; hosts "h1[:p1],h2", user/password, timeouts, TLS
//   settings passed through to as_config.
// * kv::key -> as_key (int, string or blob user key; a digest-only key by its
//   digest). Policies -> as_policy_read / _write / _operate / _remove / _batch
//   (timeouts, retries, exists action, generation check, TTL, send_key,
//   durable_delete, and the filter expression: the policy's packed bytes
//   become the as_exp the C client sends, unchanged).
// * operate(): each kv::operation is exactly one as_operations_* call (CDT ops
//   as_operations_map_* / list_*, bit ops as_operations_bit_*, HLL ops
//   as_operations_hll_* (sketches sent as HLL particles), each ctx step an
//   as_cdt_ctx item, create steps included; exp_read / exp_write as
//   as_operations_exp_read / _write on the packed bytes), sent as ONE command with
//   respond_all_ops; results come back in operation order.
// * Values: list and map bins are written as Aerospike msgpack particles
//   (detail/aerospike_wire.hpp: exact key order and order flags) and every list
//   or map the server returns is decoded from its raw msgpack (deserialize off),
//   so a result keeps the server's order; a KEY_VALUE result is the list of
//   [key, value] pairs cdt::apply returns. CDT op arguments are as_val (the only
//   way the C client takes them).
// * Errors: the server's as_status becomes the same kvmodel status, with the
//   client's message ("operate: ... AEROSPIKE_ERR_OP_NOT_APPLICABLE") and its
//   in_doubt flag (detail::client_error: every client code of as_status.h has
//   its status; kv::is_transient says which a pattern retries). Checks the C client would otherwise refuse without a useful
//   status are done first, with the same statuses the simulator gives: bin name
//   over 15 bytes (BIN_NAME_TOO_LONG), INF/WILDCARD in a stored value and an
//   empty command (PARAMETER_ERROR), bad namespace/set names (PARAMETER_ERROR).
// * Optional members: get(bins), exists, put, touch, batch_get (one
//   aerospike_batch_read), batch_operate (one aerospike_batch_write of read,
//   write and remove records), truncate (aerospike_truncate), and the
//   kv_queryable surface (secondary indexes, scans, queries), and paged
//   scans and queries: scan_page / query_page send the partition_cursor as
//   the C client's as_partitions_status (per partition: not done = retry,
//   the last digest and a query's index value) to aerospike_scan_partitions
//   / aerospike_query_partitions with max_records and records_per_second,
//   and copy its progress back, so a page costs one page (not the whole
//   scan kv::scan_page's fallback cuts). record.last_update_ms stays 0 (the
//   protocol does not return it).
//
// Where it departs from the simulator, because of what the C client can send:
// * read_header has no as_operations call: alone (or with other read_headers)
//   it is sent as aerospike_key_exists; among other ops it is not sent (every
//   operate answer carries the header anyway) and its result is nil.
// * ctx indexes/ranks and bit offsets are C ints and bit sizes uint32: values
//   beyond are clamped (detail::clamp_int32 / clamp_uint32 explain why the
//   server's answer does not change).
// * HLL bins come back as bytes (kvmodel's HLL bin), but a bytes value you
//   write or put is stored as a blob, not an HLL: make HLL bins with HLL ops
//   (hll_add, hll_init, hll_set_union). hll_may_contain has no named C client
//   call; it goes through as_operations_hll_read_list with its op code. An
//   hll_op with another argument count than the C client's calls send is
//   CLIENT_PARAM.
// * The C client packs lists in op arguments without order flags, so an
//   ORDERED list passed as a value argument arrives unordered (maps keep their
//   flags). Values you store with write/put keep them.
// * The server does not say which op of a failed command failed; the error
//   names the command.
//
// Cost: one network round trip per call (batch_get: one per node); the
// conversions are linear in the values' size. Thread-safe: one store may be
// used from many threads (the C client's `aerospike` is).
#pragma once

#include <kvmodel/adapters/detail/aerospike_wire.hpp>
#include <kvmodel/cdt/bit_ops.hpp>
#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/batch.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/store.hpp>

#include <aerospike/aerospike.h>
#include <aerospike/aerospike_batch.h>
#include <aerospike/aerospike_index.h>
#include <aerospike/aerospike_key.h>
#include <aerospike/aerospike_query.h>
#include <aerospike/aerospike_scan.h>
#include <aerospike/as_arraylist.h>
#include <aerospike/as_batch.h>
#include <aerospike/as_bin.h>
#include <aerospike/as_bit_operations.h>
#include <aerospike/as_boolean.h>
#include <aerospike/as_bytes.h>
#include <aerospike/as_cdt_ctx.h>
#include <aerospike/as_double.h>
#include <aerospike/as_error.h>
#include <aerospike/as_exp.h>
#include <aerospike/as_exp_operations.h>
#include <aerospike/as_geojson.h>
#include <aerospike/as_hll_operations.h>
#include <aerospike/as_integer.h>
#include <aerospike/as_key.h>
#include <aerospike/as_list_operations.h>
#include <aerospike/as_map.h>
#include <aerospike/as_map_operations.h>
#include <aerospike/as_msgpack_ext.h>
#include <aerospike/as_nil.h>
#include <aerospike/as_operations.h>
#include <aerospike/as_orderedmap.h>
#include <aerospike/as_partition_filter.h>
#include <aerospike/as_policy.h>
#include <aerospike/as_query.h>
#include <aerospike/as_record.h>
#include <aerospike/as_record_iterator.h>
#include <aerospike/as_scan.h>
#include <aerospike/as_status.h>
#include <aerospike/as_string.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <limits>
#include <memory>
#include <new>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kvmodel::adapters {

// --- the client's numbers are the wire's: checked here, at compile time -------------
static_assert(static_cast<int>(cdt::return_type::key_value) == AS_MAP_RETURN_KEY_VALUE);
static_assert(static_cast<int>(cdt::return_type::exists) == AS_MAP_RETURN_EXISTS);
static_assert(static_cast<int>(cdt::return_type::ordered_map) == AS_MAP_RETURN_ORDERED_MAP);
static_assert(static_cast<int>(cdt::return_type::reverse_rank) == AS_LIST_RETURN_REVERSE_RANK);
static_assert(cdt::return_inverted == AS_MAP_RETURN_INVERTED);
static_assert(cdt::return_inverted == AS_LIST_RETURN_INVERTED);
static_assert(cdt::map_write_flags::partial == AS_MAP_WRITE_PARTIAL);
static_assert(cdt::map_write_flags::no_fail == AS_MAP_WRITE_NO_FAIL);
static_assert(cdt::map_write_flags::create_only == AS_MAP_WRITE_CREATE_ONLY);
static_assert(cdt::map_write_flags::update_only == AS_MAP_WRITE_UPDATE_ONLY);
static_assert(cdt::list_write_flags::add_unique == AS_LIST_WRITE_ADD_UNIQUE);
static_assert(cdt::list_write_flags::insert_bounded == AS_LIST_WRITE_INSERT_BOUNDED);
static_assert(cdt::list_sort_flags::drop_duplicates == AS_LIST_SORT_DROP_DUPLICATES);
static_assert(static_cast<int>(map_order::key_value_ordered) == AS_MAP_KEY_VALUE_ORDERED);
static_assert(static_cast<int>(map_order::key_ordered) == AS_MAP_KEY_ORDERED);
static_assert(static_cast<int>(list_order::ordered) == AS_LIST_ORDERED);
static_assert(static_cast<int>(cdt::map_write_mode::update_only) == AS_MAP_UPDATE_ONLY);
static_assert(static_cast<int>(cdt::map_write_mode::create_only) == AS_MAP_CREATE_ONLY);
static_assert(cdt::bit_write_flags::partial == AS_BIT_WRITE_PARTIAL);
static_assert(cdt::bit_resize_flags::shrink_only == AS_BIT_RESIZE_SHRINK_ONLY);
static_assert(static_cast<int>(cdt::bit_overflow_action::wrap) == AS_BIT_OVERFLOW_WRAP);
static_assert(static_cast<int>(cdt::bit_overflow_action::saturate) == AS_BIT_OVERFLOW_SATURATE);
static_assert(static_cast<int>(status::op_not_applicable) == AEROSPIKE_ERR_OP_NOT_APPLICABLE);
static_assert(static_cast<int>(status::bin_type_error) == AEROSPIKE_ERR_BIN_INCOMPATIBLE_TYPE);
static_assert(static_cast<int>(status::record_not_found) == AEROSPIKE_ERR_RECORD_NOT_FOUND);
static_assert(static_cast<int>(status::element_exists) == AEROSPIKE_ERR_FAIL_ELEMENT_EXISTS);
static_assert(static_cast<int>(status::client_param) == AEROSPIKE_ERR_PARAM);
static_assert(static_cast<int>(status::connection) == AEROSPIKE_ERR_CONNECTION);
static_assert(detail::particle::map == AS_BYTES_MAP && detail::particle::list == AS_BYTES_LIST);
static_assert(detail::particle::blob == AS_BYTES_BLOB && detail::particle::geojson == AS_BYTES_GEOJSON);
static_assert(kv::max_bin_name_length + 1 == AS_BIN_NAME_MAX_SIZE);

/// TLS settings, passed through to as_config.tls (empty strings are unset).
struct aerospike_tls {
    /// Use TLS to the cluster.
    bool enable = false;
    /// Trusted CA certificate file (PEM).
    std::string cafile;
    /// Directory of trusted CA certificates.
    std::string capath;
    /// Allowed TLS protocols, as the C client spells them (e.g. "TLSv1.2").
    std::string protocols;
    /// Allowed cipher suites (an OpenSSL cipher list).
    std::string cipher_suite;
    /// File of certificate serial numbers the client refuses.
    std::string cert_blacklist;
    /// The client's private key (mutual authentication).
    std::string keyfile;
    /// The password of `keyfile`.
    std::string keyfile_pw;
    /// The client's certificate chain (mutual authentication).
    std::string certfile;
    /// Check the server's leaf certificate against certificate revocation lists.
    bool crl_check = false;
    /// Check every certificate of the chain against CRLs.
    bool crl_check_all = false;
    /// Log each TLS session's details (the C client's log).
    bool log_session_info = false;
    /// Use TLS for the login only, then plain connections.
    bool for_login_only = false;
    /// The TLS name of every seed host (as_config_tls_add_host).
    std::string tls_name;
};

/// How to reach a cluster.
struct aerospike_config {
    /// Seed hosts: "h1[:port][,h2[:port]...]" (IPv6 in brackets), port 3000 by default.
    std::string hosts = "127.0.0.1:3000";
    /// User name for a cluster with security enabled; empty = no login.
    std::string user;
    /// The user's password (unused without `user`).
    std::string password;
    /// Expected cluster name; nodes that report another are not used.
    /// Empty = any.
    std::string cluster_name;
    /// Timeout of opening a connection to a node (as_config.conn_timeout_ms).
    std::chrono::milliseconds connect_timeout{1000};
    /// Timeout of a node login (as_config.login_timeout_ms).
    std::chrono::milliseconds login_timeout{5000};
    /// How often the client polls the cluster for node and partition changes
    /// (as_config.tender_interval).
    std::chrono::milliseconds tend_interval{1000};
    /// Most connections the client opens to one node
    /// (as_config.max_conns_per_node); beyond it a command fails with the
    /// client's NO_MORE_CONNECTIONS.
    std::uint32_t max_conns_per_node = 100;
    /// Learn peers from the nodes' alternate addresses ("services-alternate").
    bool use_services_alternate = false;
    /// TLS settings.
    aerospike_tls tls;
};

namespace detail {

/// An as_error as a kvmodel error: the same status number, the client's message
/// prefixed by the command, and the in-doubt flag.
inline error to_error(const as_error& err, std::string_view what) {
    return client_error(static_cast<int>(err.code), err.message, err.in_doubt, what);
}

/// Owns an as_val* until released into a C client call that takes ownership.
struct val_deleter {
    void operator()(as_val* v) const noexcept {
        if (v != nullptr) as_val_destroy(v);
    }
};
using val_ptr = std::unique_ptr<as_val, val_deleter>;

inline as_val* nil_val() noexcept { return const_cast<as_val*>(&as_nil); }

inline as_bytes* new_blob(const std::uint8_t* p, std::size_t n, as_bytes_type type) {
    auto size = static_cast<uint32_t>(n);
    // as_bytes_new_wrap takes a malloc'd buffer it frees itself.
    auto* buf = static_cast<uint8_t*>(std::malloc(n == 0 ? 1 : n));
    if (n != 0) std::memcpy(buf, p, n);
    as_bytes* b = as_bytes_new_wrap(buf, size, true);
    b->type = type;
    return b;
}

/// A value as an as_val for a CDT argument (ownership to the caller). A map
/// keeps its order flag; the C client sorts its entries itself (as_orderedmap).
inline result<val_ptr> to_as_val(const value& v, std::string_view what) {
    switch (v.type()) {
    case value_type::nil: return val_ptr(nil_val());
    case value_type::boolean: return val_ptr(reinterpret_cast<as_val*>(as_boolean_new(v.as_bool())));
    case value_type::integer: return val_ptr(reinterpret_cast<as_val*>(as_integer_new(v.as_int())));
    case value_type::floating: return val_ptr(reinterpret_cast<as_val*>(as_double_new(v.as_double())));
    case value_type::string: {
        const std::string& s = v.as_string();
        auto* buf = static_cast<char*>(std::malloc(s.size() + 1));
        std::memcpy(buf, s.data(), s.size());
        buf[s.size()] = '\0';
        return val_ptr(reinterpret_cast<as_val*>(as_string_new_wlen(buf, s.size(), true)));
    }
    case value_type::bytes: {
        const bytes& b = v.as_bytes();
        return val_ptr(reinterpret_cast<as_val*>(new_blob(b.data(), b.size(), AS_BYTES_BLOB)));
    }
    case value_type::list: {
        const list& l = v.as_list();
        as_arraylist* al = as_arraylist_new(static_cast<uint32_t>(l.size()), 8);
        val_ptr owner(reinterpret_cast<as_val*>(al));
        for (const value& e : l) {
            auto ev = to_as_val(e, what);
            if (!ev) return ev;
            as_arraylist_append(al, ev->release());
        }
        return owner;
    }
    case value_type::map: {
        const map& m = v.as_map();
        as_orderedmap* om = as_orderedmap_new(static_cast<uint32_t>(m.size() == 0 ? 1 : m.size()));
        val_ptr owner(reinterpret_cast<as_val*>(om));
        for (const map_entry& e : m) {
            auto k = to_as_val(e.key, what);
            if (!k) return k;
            auto x = to_as_val(e.val, what);
            if (!x) return x;
            if (as_orderedmap_set(om, k.value().release(), x.value().release()) != 0)
                return fail(status::client_param, std::string(what) + ": the C client refused map key " +
                                                      to_string(e.key));
        }
        // The C client orders keys with its own comparison; two keys it
        // cannot tell apart (maps differing only in values) would merge.
        if (as_orderedmap_size(om) != m.size())
            return fail(status::client_param,
                        std::string(what) + ": map argument has keys the C client cannot tell apart");
        as_orderedmap_set_flags(om, static_cast<uint32_t>(m.order()));
        return owner;
    }
    case value_type::inf: return val_ptr(const_cast<as_val*>(&as_cmp_inf));
    case value_type::wildcard: return val_ptr(const_cast<as_val*>(&as_cmp_wildcard));
    }
    return fail(status::client_param, std::string(what) + ": unsupported value");
}

/// A value as a bin value to store (write, put): lists and maps as raw
/// Aerospike msgpack particles, exactly as encode_msgpack packs them.
inline result<as_bin_value*> to_bin_value(const value& v, std::string_view what) {
    if (v.is_list() || v.is_map()) {
        std::vector<std::uint8_t> packed = encode_msgpack(v);
        return reinterpret_cast<as_bin_value*>(
            new_blob(packed.data(), packed.size(), v.is_list() ? AS_BYTES_LIST : AS_BYTES_MAP));
    }
    auto x = to_as_val(v, what);
    if (!x) return x.error();
    return reinterpret_cast<as_bin_value*>(x.value().release());
}

/// A value the client handed over (deserialize off: lists and maps are raw
/// msgpack particles). pairs: a map result becomes [key, value] pairs.
inline result<value> from_as_val(const as_val* v, bool pairs = false) {
    if (v == nullptr) return value();
    switch (as_val_type(v)) {
    case AS_NIL: return value();
    case AS_BOOLEAN: return value(as_boolean_get(reinterpret_cast<const as_boolean*>(v)));
    case AS_INTEGER: return value(static_cast<std::int64_t>(as_integer_get(reinterpret_cast<const as_integer*>(v))));
    case AS_DOUBLE: return value(as_double_get(reinterpret_cast<const as_double*>(v)));
    case AS_STRING: {
        const auto* s = reinterpret_cast<const as_string*>(v);
        return value(std::string(as_string_get(s), as_string_len(const_cast<as_string*>(s))));
    }
    case AS_GEOJSON: return value(std::string(as_geojson_get(reinterpret_cast<const as_geojson*>(v))));
    case AS_BYTES: {
        const auto* b = reinterpret_cast<const as_bytes*>(v);
        return decode_particle(static_cast<std::uint8_t>(b->type),
                               std::span<const std::uint8_t>(b->value, b->size), pairs);
    }
    case AS_LIST: {
        // Only when something deserialized after all.
        const auto* l = reinterpret_cast<const as_list*>(v);
        list out;
        uint32_t n = as_list_size(const_cast<as_list*>(l));
        for (uint32_t i = 0; i < n; ++i) {
            auto e = from_as_val(as_list_get(l, i));
            if (!e) return e;
            out.push_back(std::move(e).value());
        }
        return value(std::move(out));
    }
    case AS_MAP: {
        struct state {
            map out;
            std::optional<error> err;
        } st;
        as_map_foreach(
            reinterpret_cast<const as_map*>(v),
            [](const as_val* k, const as_val* x, void* udata) -> bool {
                auto* s = static_cast<state*>(udata);
                auto kk = from_as_val(k);
                if (!kk) s->err = kk.error();
                auto xx = from_as_val(x);
                if (!xx) s->err = xx.error();
                if (s->err) return false;
                s->out.put(std::move(kk).value(), std::move(xx).value());
                return true;
            },
            &st);
        if (st.err) return *st.err;
        return value(std::move(st.out));
    }
    default: break;
    }
    return fail(status::client, "unexpected as_val type " + std::to_string(static_cast<int>(as_val_type(v))));
}

/// kv::key -> as_key. The key must outlive the as_key (strings and blobs are
/// referenced, not copied). A digest-only key goes by its digest.
inline result<void> init_key(as_key& out, const kv::key& k, std::string_view what) {
    if (auto c = k.check(); !c) return fail(c.error().code, std::string(what) + ": " + c.error().message);
    const std::optional<value>& uk = k.user_key();
    if (!uk) {
        as_digest_value d;
        static_assert(sizeof(d) == 20);
        std::memcpy(d, k.digest().data(), sizeof d);
        as_key_init_digest(&out, k.ns().c_str(), k.set().c_str(), d);
        return {};
    }
    switch (uk->type()) {
    case value_type::integer: as_key_init_int64(&out, k.ns().c_str(), k.set().c_str(), uk->as_int()); return {};
    case value_type::string: as_key_init_str(&out, k.ns().c_str(), k.set().c_str(), uk->as_string().c_str()); return {};
    case value_type::bytes: {
        const bytes& b = uk->as_bytes();
        as_key_init_rawp(&out, k.ns().c_str(), k.set().c_str(), b.data(), static_cast<uint32_t>(b.size()), false);
        return {};
    }
    default: break;
    }
    return fail(status::parameter_error, std::string(what) + ": a user key must be an integer, a string or bytes");
}

inline uint32_t ms(std::chrono::milliseconds d) noexcept {
    auto c = d.count();
    if (c <= 0) return 0;
    if (c > std::numeric_limits<uint32_t>::max()) return std::numeric_limits<uint32_t>::max();
    return static_cast<uint32_t>(c);
}

/// An as_exp holding a copy of packed expression bytes (kvmodel's packed
/// form is the C client's as_exp::packed, byte for byte), alive for one
/// command.
class exp_holder {
public:
    const as_exp* set(std::span<const std::uint8_t> packed) {
        void* mem = std::malloc(sizeof(as_exp) + packed.size());
        if (mem == nullptr) throw std::bad_alloc();
        m_mem.reset(mem);
        auto* e = static_cast<as_exp*>(mem);
        e->packed_sz = static_cast<uint32_t>(packed.size());
        if (!packed.empty()) std::memcpy(e->packed, packed.data(), packed.size());
        return e;
    }

private:
    struct free_deleter {
        void operator()(void* p) const noexcept { std::free(p); }
    };
    std::unique_ptr<void, free_deleter> m_mem;
};

/// Timeouts, retries and the filter expression (kept alive by fx).
inline void apply_base(as_policy_base& b, const kv::base_policy& p, exp_holder& fx) {
    b.socket_timeout = ms(p.socket_timeout);
    b.total_timeout = ms(p.total_timeout);
    b.max_retries = p.max_retries;
    b.sleep_between_retries = ms(p.sleep_between_retries);
    b.filter_exp = p.filter_exp.empty() ? nullptr : const_cast<as_exp*>(fx.set(p.filter_exp));
}

/// kv::record_exists_action -> as_policy_exists (different numbering).
constexpr as_policy_exists exists_policy(kv::record_exists_action a) noexcept {
    switch (a) {
    case kv::record_exists_action::update: return AS_POLICY_EXISTS_IGNORE;
    case kv::record_exists_action::update_only: return AS_POLICY_EXISTS_UPDATE;
    case kv::record_exists_action::replace: return AS_POLICY_EXISTS_CREATE_OR_REPLACE;
    case kv::record_exists_action::replace_only: return AS_POLICY_EXISTS_REPLACE;
    case kv::record_exists_action::create_only: return AS_POLICY_EXISTS_CREATE;
    }
    return AS_POLICY_EXISTS_IGNORE;
}

constexpr as_policy_gen gen_policy(kv::generation_policy g) noexcept {
    switch (g) {
    case kv::generation_policy::none: return AS_POLICY_GEN_IGNORE;
    case kv::generation_policy::eq: return AS_POLICY_GEN_EQ;
    case kv::generation_policy::gt: return AS_POLICY_GEN_GT;
    }
    return AS_POLICY_GEN_IGNORE;
}

/// kv TTL seconds -> the C client's uint32 TTL.
constexpr uint32_t wire_ttl(std::int64_t ttl) noexcept {
    if (ttl == kv::ttl_never_expire) return AS_RECORD_NO_EXPIRE_TTL;
    if (ttl == kv::ttl_dont_update) return AS_RECORD_NO_CHANGE_TTL;
    if (ttl <= 0) return AS_RECORD_DEFAULT_TTL;
    return static_cast<uint32_t>(ttl);
}

/// Fills a record's metadata from the client's record.
inline void read_meta(kv::record& out, const as_record& rec) {
    out.generation = rec.gen;
    if (rec.ttl == AS_RECORD_NO_EXPIRE_TTL || rec.ttl == 0) {
        out.ttl = kv::ttl_never_expires;
        out.void_time = 0;
    } else {
        out.ttl = rec.ttl;
        out.void_time = static_cast<std::int64_t>(std::time(nullptr)) + rec.ttl;
    }
}

/// All bins of a client record, in the order the server sent them.
inline result<void> read_bins(kv::record& out, const as_record& rec) {
    for (uint16_t i = 0; i < rec.bins.size; ++i) {
        const as_bin& b = rec.bins.entries[i];
        auto v = from_as_val(reinterpret_cast<const as_val*>(b.valuep));
        if (!v) return v.error();
        out.set(b.name, std::move(v).value());
    }
    return {};
}

struct record_deleter {
    void operator()(as_record* r) const noexcept {
        if (r != nullptr) as_record_destroy(r);
    }
};
using record_ptr = std::unique_ptr<as_record, record_deleter>;

/// as_operations with RAII.
struct ops_holder {
    as_operations ops;
    explicit ops_holder(uint16_t capacity) { as_operations_init(&ops, capacity); }
    ~ops_holder() { as_operations_destroy(&ops); }
    ops_holder(const ops_holder&) = delete;
    ops_holder& operator=(const ops_holder&) = delete;
};

/// as_cdt_ctx with RAII; get() is nullptr when the op has no ctx.
struct ctx_holder {
    as_cdt_ctx ctx{};
    bool used = false;
    ~ctx_holder() {
        if (used) as_cdt_ctx_destroy(&ctx);
    }
    as_cdt_ctx* get() noexcept { return used ? &ctx : nullptr; }
};

inline result<void> build_ctx(const std::vector<cdt::ctx_step>& steps, ctx_holder& h, std::string_view what) {
    if (steps.empty()) return {};
    as_cdt_ctx_init(&h.ctx, static_cast<uint32_t>(steps.size()));
    h.used = true;
    using kind = cdt::ctx_step::kind;
    for (const cdt::ctx_step& s : steps) {
        switch (s.type) {
        case kind::list_index:
            if (s.create)
                as_cdt_ctx_add_list_index_create(&h.ctx, clamp_int32(s.index),
                                                 static_cast<as_list_order>(s.create_list_order), s.pad);
            else as_cdt_ctx_add_list_index(&h.ctx, clamp_int32(s.index));
            break;
        case kind::list_rank: as_cdt_ctx_add_list_rank(&h.ctx, clamp_int32(s.index)); break;
        case kind::map_index: as_cdt_ctx_add_map_index(&h.ctx, clamp_int32(s.index)); break;
        case kind::map_rank: as_cdt_ctx_add_map_rank(&h.ctx, clamp_int32(s.index)); break;
        case kind::list_value:
        case kind::map_key:
        case kind::map_value: {
            auto v = to_as_val(s.val, what);
            if (!v) return v.error();
            as_val* raw = v.value().release();
            if (s.type == kind::list_value) as_cdt_ctx_add_list_value(&h.ctx, raw);
            else if (s.type == kind::map_value) as_cdt_ctx_add_map_value(&h.ctx, raw);
            else if (s.create)
                as_cdt_ctx_add_map_key_create(&h.ctx, raw, static_cast<as_map_order>(s.create_map_order));
            else as_cdt_ctx_add_map_key(&h.ctx, raw);
            break;
        }
        }
    }
    return {};
}

inline as_list* new_list(const std::vector<value>& items, std::string_view what, error& err) {
    as_arraylist* al = as_arraylist_new(static_cast<uint32_t>(items.size()), 8);
    for (const value& e : items) {
        auto v = to_as_val(e, what);
        if (!v) {
            err = v.error();
            as_arraylist_destroy(al);
            return nullptr;
        }
        as_arraylist_append(al, v.value().release());
    }
    return reinterpret_cast<as_list*>(al);
}

/// Adds one CDT op: exactly one as_operations_map_* / list_* call.
inline result<void> add_cdt(as_operations* ops, const char* bin, const cdt::op& o) {
    const std::string what(cdt::op_name(o.code));
    ctx_holder ch;
    if (auto c = build_ctx(o.ctx, ch, what); !c) return c;
    as_cdt_ctx* ctx = ch.get();
    error err{status::client_param, ""};
    // Arguments as as_val; each is handed to the client (which frees it).
    auto val = [&](const value& v) -> as_val* {
        auto r = to_as_val(v, what);
        if (!r) {
            err = r.error();
            return nullptr;
        }
        return r.value().release();
    };
    auto lst = [&](const std::vector<value>& vs) -> as_list* { return new_list(vs, what, err); };
    const auto mrt = static_cast<as_map_return_type>(o.return_type);
    const auto lrt = static_cast<as_list_return_type>(o.return_type);
    const std::uint64_t cnt = o.count ? count_bits(*o.count) : 0;
    const bool has_count = o.count.has_value();

    as_map_policy mp;
    as_map_policy_init(&mp);
    if (o.mpolicy.mode)
        as_map_policy_set(&mp, static_cast<as_map_order>(o.mpolicy.order), static_cast<as_map_write_mode>(*o.mpolicy.mode));
    else
        as_map_policy_set_all(&mp, static_cast<as_map_order>(o.mpolicy.order), o.mpolicy.flags, o.mpolicy.persist_index);
    as_list_policy lp;
    as_list_policy_init(&lp);
    as_list_policy_set(&lp, static_cast<as_list_order>(o.lpolicy.order), static_cast<as_list_write_flags>(o.lpolicy.flags));

    // Values that must be built before the call (a failed conversion stops here).
    as_val* a_key = nullptr;
    as_val* a_val = nullptr;
    as_val* a_begin = nullptr;
    as_val* a_end = nullptr;
    as_list* a_values = nullptr;
    auto cleanup = [&] {
        if (a_key) as_val_destroy(a_key);
        if (a_val) as_val_destroy(a_val);
        if (a_begin) as_val_destroy(a_begin);
        if (a_end) as_val_destroy(a_end);
        if (a_values) as_list_destroy(a_values);
    };
    using oc = cdt::op_code;
    switch (o.code) {
    case oc::map_put:
    case oc::map_increment:
    case oc::map_decrement:
        a_key = val(o.key);
        if (a_key && !(o.code != oc::map_put && o.val.is_nil())) a_val = val(o.val);
        break;
    case oc::map_get_by_key:
    case oc::map_remove_by_key:
    case oc::map_get_by_key_rel_index_range:
    case oc::map_remove_by_key_rel_index_range:
    case oc::map_get_by_value:
    case oc::map_remove_by_value:
    case oc::map_get_by_value_rel_rank_range:
    case oc::map_remove_by_value_rel_rank_range:
    case oc::list_append:
    case oc::list_insert:
    case oc::list_set:
    case oc::list_get_by_value:
    case oc::list_remove_by_value:
    case oc::list_get_by_value_rel_rank_range:
    case oc::list_remove_by_value_rel_rank_range: a_key = val(o.key); break;
    case oc::list_increment:
        if (!o.val.is_nil()) a_val = val(o.val);
        break;
    case oc::map_get_by_key_range:
    case oc::map_remove_by_key_range:
    case oc::map_get_by_value_range:
    case oc::map_remove_by_value_range:
    case oc::list_get_by_value_range:
    case oc::list_remove_by_value_range:
        a_begin = val(o.begin);
        if (a_begin && o.end) a_end = val(*o.end);
        break;
    case oc::map_get_by_key_list:
    case oc::map_remove_by_key_list:
    case oc::map_get_by_value_list:
    case oc::map_remove_by_value_list:
    case oc::list_append_items:
    case oc::list_insert_items:
    case oc::list_get_by_value_list:
    case oc::list_remove_by_value_list: a_values = lst(o.values); break;
    default: break;
    }
    if (!err.message.empty()) {
        cleanup();
        return err;
    }
    // From here on every built argument is handed over to exactly one call.
    auto take = [](as_val*& p) {
        as_val* r = p;
        p = nullptr;
        return r;
    };
    auto take_list = [&]() {
        as_list* r = a_values;
        a_values = nullptr;
        return r;
    };
    const int64_t idx = o.index;
    bool ok = true;
    switch (o.code) {
    // --- map writes
    case oc::map_create: ok = as_operations_map_create_all(ops, bin, ctx, static_cast<as_map_order>(o.morder), o.persist_index); break;
    case oc::map_set_policy: {
        as_map_policy sp;
        as_map_policy_init(&sp);
        as_map_policy_set_all(&sp, static_cast<as_map_order>(o.morder), AS_MAP_WRITE_DEFAULT, o.persist_index);
        ok = as_operations_map_set_policy(ops, bin, ctx, &sp);
        break;
    }
    case oc::map_put: ok = as_operations_map_put(ops, bin, ctx, &mp, take(a_key), take(a_val)); break;
    case oc::map_put_items: {
        as_orderedmap* items = as_orderedmap_new(static_cast<uint32_t>(o.items.empty() ? 1 : o.items.size()));
        for (const auto& [k, v] : o.items) {
            auto kk = to_as_val(k, what);
            if (!kk) {
                as_orderedmap_destroy(items);
                return kk.error();
            }
            auto vv = to_as_val(v, what);
            if (!vv) {
                as_orderedmap_destroy(items);
                return vv.error();
            }
            as_orderedmap_set(items, kk.value().release(), vv.value().release());
        }
        ok = as_operations_map_put_items(ops, bin, ctx, &mp, reinterpret_cast<as_map*>(items));
        break;
    }
    case oc::map_increment: ok = as_operations_map_increment(ops, bin, ctx, &mp, take(a_key), take(a_val)); break;
    case oc::map_decrement: ok = as_operations_map_decrement(ops, bin, ctx, &mp, take(a_key), take(a_val)); break;
    case oc::map_clear: ok = as_operations_map_clear(ops, bin, ctx); break;
    case oc::map_size: ok = as_operations_map_size(ops, bin, ctx); break;
    // --- map selectors
    case oc::map_get_by_key: ok = as_operations_map_get_by_key(ops, bin, ctx, take(a_key), mrt); break;
    case oc::map_remove_by_key: ok = as_operations_map_remove_by_key(ops, bin, ctx, take(a_key), mrt); break;
    case oc::map_get_by_key_list: ok = as_operations_map_get_by_key_list(ops, bin, ctx, take_list(), mrt); break;
    case oc::map_remove_by_key_list: ok = as_operations_map_remove_by_key_list(ops, bin, ctx, take_list(), mrt); break;
    case oc::map_get_by_key_range: ok = as_operations_map_get_by_key_range(ops, bin, ctx, take(a_begin), take(a_end), mrt); break;
    case oc::map_remove_by_key_range: ok = as_operations_map_remove_by_key_range(ops, bin, ctx, take(a_begin), take(a_end), mrt); break;
    case oc::map_get_by_key_rel_index_range:
        ok = has_count ? as_operations_map_get_by_key_rel_index_range(ops, bin, ctx, take(a_key), idx, cnt, mrt)
                       : as_operations_map_get_by_key_rel_index_range_to_end(ops, bin, ctx, take(a_key), idx, mrt);
        break;
    case oc::map_remove_by_key_rel_index_range:
        ok = has_count ? as_operations_map_remove_by_key_rel_index_range(ops, bin, ctx, take(a_key), idx, cnt, mrt)
                       : as_operations_map_remove_by_key_rel_index_range_to_end(ops, bin, ctx, take(a_key), idx, mrt);
        break;
    case oc::map_get_by_value: ok = as_operations_map_get_by_value(ops, bin, ctx, take(a_key), mrt); break;
    case oc::map_remove_by_value: ok = as_operations_map_remove_by_value(ops, bin, ctx, take(a_key), mrt); break;
    case oc::map_get_by_value_list: ok = as_operations_map_get_by_value_list(ops, bin, ctx, take_list(), mrt); break;
    case oc::map_remove_by_value_list: ok = as_operations_map_remove_by_value_list(ops, bin, ctx, take_list(), mrt); break;
    case oc::map_get_by_value_range: ok = as_operations_map_get_by_value_range(ops, bin, ctx, take(a_begin), take(a_end), mrt); break;
    case oc::map_remove_by_value_range: ok = as_operations_map_remove_by_value_range(ops, bin, ctx, take(a_begin), take(a_end), mrt); break;
    case oc::map_get_by_value_rel_rank_range:
        ok = has_count ? as_operations_map_get_by_value_rel_rank_range(ops, bin, ctx, take(a_key), idx, cnt, mrt)
                       : as_operations_map_get_by_value_rel_rank_range_to_end(ops, bin, ctx, take(a_key), idx, mrt);
        break;
    case oc::map_remove_by_value_rel_rank_range:
        ok = has_count ? as_operations_map_remove_by_value_rel_rank_range(ops, bin, ctx, take(a_key), idx, cnt, mrt)
                       : as_operations_map_remove_by_value_rel_rank_range_to_end(ops, bin, ctx, take(a_key), idx, mrt);
        break;
    case oc::map_get_by_index: ok = as_operations_map_get_by_index(ops, bin, ctx, idx, mrt); break;
    case oc::map_remove_by_index: ok = as_operations_map_remove_by_index(ops, bin, ctx, idx, mrt); break;
    case oc::map_get_by_index_range:
        ok = has_count ? as_operations_map_get_by_index_range(ops, bin, ctx, idx, cnt, mrt)
                       : as_operations_map_get_by_index_range_to_end(ops, bin, ctx, idx, mrt);
        break;
    case oc::map_remove_by_index_range:
        ok = has_count ? as_operations_map_remove_by_index_range(ops, bin, ctx, idx, cnt, mrt)
                       : as_operations_map_remove_by_index_range_to_end(ops, bin, ctx, idx, mrt);
        break;
    case oc::map_get_by_rank: ok = as_operations_map_get_by_rank(ops, bin, ctx, idx, mrt); break;
    case oc::map_remove_by_rank: ok = as_operations_map_remove_by_rank(ops, bin, ctx, idx, mrt); break;
    case oc::map_get_by_rank_range:
        ok = has_count ? as_operations_map_get_by_rank_range(ops, bin, ctx, idx, cnt, mrt)
                       : as_operations_map_get_by_rank_range_to_end(ops, bin, ctx, idx, mrt);
        break;
    case oc::map_remove_by_rank_range:
        ok = has_count ? as_operations_map_remove_by_rank_range(ops, bin, ctx, idx, cnt, mrt)
                       : as_operations_map_remove_by_rank_range_to_end(ops, bin, ctx, idx, mrt);
        break;
    // --- list writes
    case oc::list_create:
        ok = as_operations_list_create_all(ops, bin, ctx, static_cast<as_list_order>(o.order), o.pad, o.persist_index);
        break;
    case oc::list_set_order:
        // At the top level a persisted index rides on the same SET_TYPE flags.
        ok = (o.persist_index && ctx == nullptr)
                 ? as_operations_list_create_all(ops, bin, nullptr, static_cast<as_list_order>(o.order), false, true)
                 : as_operations_list_set_order(ops, bin, ctx, static_cast<as_list_order>(o.order));
        break;
    case oc::list_sort: ok = as_operations_list_sort(ops, bin, ctx, static_cast<as_list_sort_flags>(o.sort_flags)); break;
    case oc::list_append: ok = as_operations_list_append(ops, bin, ctx, &lp, take(a_key)); break;
    case oc::list_append_items: ok = as_operations_list_append_items(ops, bin, ctx, &lp, take_list()); break;
    case oc::list_insert: ok = as_operations_list_insert(ops, bin, ctx, &lp, idx, take(a_key)); break;
    case oc::list_insert_items: ok = as_operations_list_insert_items(ops, bin, ctx, &lp, idx, take_list()); break;
    case oc::list_set: ok = as_operations_list_set(ops, bin, ctx, &lp, idx, take(a_key)); break;
    case oc::list_increment: ok = as_operations_list_increment(ops, bin, ctx, &lp, idx, take(a_val)); break;
    case oc::list_trim: ok = as_operations_list_trim(ops, bin, ctx, idx, has_count ? cnt : std::numeric_limits<std::uint64_t>::max()); break;
    case oc::list_clear: ok = as_operations_list_clear(ops, bin, ctx); break;
    case oc::list_pop: ok = as_operations_list_pop(ops, bin, ctx, idx); break;
    case oc::list_pop_range:
        ok = has_count ? as_operations_list_pop_range(ops, bin, ctx, idx, cnt) : as_operations_list_pop_range_from(ops, bin, ctx, idx);
        break;
    case oc::list_remove: ok = as_operations_list_remove(ops, bin, ctx, idx); break;
    case oc::list_remove_range:
        ok = has_count ? as_operations_list_remove_range(ops, bin, ctx, idx, cnt)
                       : as_operations_list_remove_range_from(ops, bin, ctx, idx);
        break;
    // --- list reads
    case oc::list_size: ok = as_operations_list_size(ops, bin, ctx); break;
    case oc::list_get: ok = as_operations_list_get(ops, bin, ctx, idx); break;
    case oc::list_get_range:
        ok = has_count ? as_operations_list_get_range(ops, bin, ctx, idx, cnt) : as_operations_list_get_range_from(ops, bin, ctx, idx);
        break;
    case oc::list_get_by_index: ok = as_operations_list_get_by_index(ops, bin, ctx, idx, lrt); break;
    case oc::list_remove_by_index: ok = as_operations_list_remove_by_index(ops, bin, ctx, idx, lrt); break;
    case oc::list_get_by_index_range:
        ok = has_count ? as_operations_list_get_by_index_range(ops, bin, ctx, idx, cnt, lrt)
                       : as_operations_list_get_by_index_range_to_end(ops, bin, ctx, idx, lrt);
        break;
    case oc::list_remove_by_index_range:
        ok = has_count ? as_operations_list_remove_by_index_range(ops, bin, ctx, idx, cnt, lrt)
                       : as_operations_list_remove_by_index_range_to_end(ops, bin, ctx, idx, lrt);
        break;
    case oc::list_get_by_rank: ok = as_operations_list_get_by_rank(ops, bin, ctx, idx, lrt); break;
    case oc::list_remove_by_rank: ok = as_operations_list_remove_by_rank(ops, bin, ctx, idx, lrt); break;
    case oc::list_get_by_rank_range:
        ok = has_count ? as_operations_list_get_by_rank_range(ops, bin, ctx, idx, cnt, lrt)
                       : as_operations_list_get_by_rank_range_to_end(ops, bin, ctx, idx, lrt);
        break;
    case oc::list_remove_by_rank_range:
        ok = has_count ? as_operations_list_remove_by_rank_range(ops, bin, ctx, idx, cnt, lrt)
                       : as_operations_list_remove_by_rank_range_to_end(ops, bin, ctx, idx, lrt);
        break;
    case oc::list_get_by_value: ok = as_operations_list_get_by_value(ops, bin, ctx, take(a_key), lrt); break;
    case oc::list_remove_by_value: ok = as_operations_list_remove_by_value(ops, bin, ctx, take(a_key), lrt); break;
    case oc::list_get_by_value_list: ok = as_operations_list_get_by_value_list(ops, bin, ctx, take_list(), lrt); break;
    case oc::list_remove_by_value_list: ok = as_operations_list_remove_by_value_list(ops, bin, ctx, take_list(), lrt); break;
    case oc::list_get_by_value_range: ok = as_operations_list_get_by_value_range(ops, bin, ctx, take(a_begin), take(a_end), lrt); break;
    case oc::list_remove_by_value_range: ok = as_operations_list_remove_by_value_range(ops, bin, ctx, take(a_begin), take(a_end), lrt); break;
    case oc::list_get_by_value_rel_rank_range:
        ok = has_count ? as_operations_list_get_by_value_rel_rank_range(ops, bin, ctx, take(a_key), idx, cnt, lrt)
                       : as_operations_list_get_by_value_rel_rank_range_to_end(ops, bin, ctx, take(a_key), idx, lrt);
        break;
    case oc::list_remove_by_value_rel_rank_range:
        ok = has_count ? as_operations_list_remove_by_value_rel_rank_range(ops, bin, ctx, take(a_key), idx, cnt, lrt)
                       : as_operations_list_remove_by_value_rel_rank_range_to_end(ops, bin, ctx, take(a_key), idx, lrt);
        break;
    }
    cleanup();
    if (!ok) return fail(status::client_param, what + ": the C client refused the operation");
    return {};
}

/// Adds one bit op: exactly one as_operations_bit_* call.
inline result<void> add_bit(as_operations* ops, const char* bin, const cdt::bit_op& o) {
    as_bit_policy bp;
    as_bit_policy_init(&bp);
    as_bit_policy_set_write_flags(&bp, static_cast<as_bit_write_flags>(o.policy.flags));
    // The C client takes a non-const buffer it only reads.
    std::vector<std::uint8_t> buf(o.value);
    auto* data = buf.empty() ? nullptr : buf.data();
    const auto vsize = static_cast<uint32_t>(buf.size());
    const int off = clamp_int32(o.bit_offset);
    const uint32_t size = clamp_uint32(o.bit_size);
    bool ok = true;
    using bc = cdt::bit_op_code;
    switch (o.code) {
    case bc::bit_resize:
        ok = as_operations_bit_resize(ops, bin, nullptr, &bp, clamp_uint32(o.byte_size),
                                      static_cast<as_bit_resize_flags>(o.resize_flags));
        break;
    case bc::bit_insert: ok = as_operations_bit_insert(ops, bin, nullptr, &bp, clamp_int32(o.byte_offset), vsize, data); break;
    case bc::bit_remove: ok = as_operations_bit_remove(ops, bin, nullptr, &bp, clamp_int32(o.byte_offset), clamp_uint32(o.byte_size)); break;
    case bc::bit_set: ok = as_operations_bit_set(ops, bin, nullptr, &bp, off, size, vsize, data); break;
    case bc::bit_or: ok = as_operations_bit_or(ops, bin, nullptr, &bp, off, size, vsize, data); break;
    case bc::bit_xor: ok = as_operations_bit_xor(ops, bin, nullptr, &bp, off, size, vsize, data); break;
    case bc::bit_and: ok = as_operations_bit_and(ops, bin, nullptr, &bp, off, size, vsize, data); break;
    case bc::bit_not: ok = as_operations_bit_not(ops, bin, nullptr, &bp, off, size); break;
    case bc::bit_lshift: ok = as_operations_bit_lshift(ops, bin, nullptr, &bp, off, size, clamp_uint32(o.shift)); break;
    case bc::bit_rshift: ok = as_operations_bit_rshift(ops, bin, nullptr, &bp, off, size, clamp_uint32(o.shift)); break;
    case bc::bit_add:
        ok = as_operations_bit_add(ops, bin, nullptr, &bp, off, size, static_cast<uint64_t>(o.int_value), o.sign,
                                   static_cast<as_bit_overflow_action>(o.action));
        break;
    case bc::bit_subtract:
        ok = as_operations_bit_subtract(ops, bin, nullptr, &bp, off, size, static_cast<uint64_t>(o.int_value), o.sign,
                                        static_cast<as_bit_overflow_action>(o.action));
        break;
    case bc::bit_set_int: ok = as_operations_bit_set_int(ops, bin, nullptr, &bp, off, size, o.int_value); break;
    case bc::bit_get: ok = as_operations_bit_get(ops, bin, nullptr, off, size); break;
    case bc::bit_count: ok = as_operations_bit_count(ops, bin, nullptr, off, size); break;
    case bc::bit_lscan: ok = as_operations_bit_lscan(ops, bin, nullptr, off, size, o.scan_value); break;
    case bc::bit_rscan: ok = as_operations_bit_rscan(ops, bin, nullptr, off, size, o.scan_value); break;
    case bc::bit_get_int: ok = as_operations_bit_get_int(ops, bin, nullptr, off, size, o.sign); break;
    }
    if (!ok) return fail(status::client_param, std::string(cdt::bit_op_name(o.code)) + ": the C client refused the operation");
    return {};
}

/// One HLL op through as_operations_hll_*, with the arguments the C client
/// sends (init 3, add 4, set_union 2, fold 1, reads 0 or 1); an op carrying
/// another argument count (only an expression's decoder makes one) has no C
/// client call. Sketches go as HLL particles, elements through to_as_val.
/// may_contain has no named call in the C client: as_operations_hll_read_list
/// with its op code is what as_exp_hll_may_contain's op would send.
inline result<void> add_hll(as_operations* ops, const char* bin, const cdt::hll_op& o) {
    using hc = cdt::hll_op_code;
    const std::string_view what = cdt::hll_op_name(o.code);
    const auto want = [&]() -> std::uint8_t {
        switch (o.code) {
        case hc::hll_init: return 3;
        case hc::hll_add: return 4;
        case hc::hll_set_union: return 2;
        case hc::hll_refresh_count:
        case hc::hll_get_count:
        case hc::hll_describe: return 0;
        default: return 1;
        }
    }();
    if (o.n_args != want)
        return fail(status::client_param, std::string(what) + ": " + std::to_string(o.n_args) +
                                              " arguments; the C client sends " + std::to_string(want));
    as_hll_policy hp;
    as_hll_policy_init(&hp);
    hp.flags = o.policy.flags;
    // The list argument: elements (add, may_contain) or sketches.
    as_arraylist* al = nullptr;
    val_ptr owner;
    if (!o.list.empty() || !o.hlls.empty()) {
        const std::size_t n = o.list.empty() ? o.hlls.size() : o.list.size();
        al = as_arraylist_new(static_cast<uint32_t>(n), 8);
        owner.reset(reinterpret_cast<as_val*>(al));
        for (const value& e : o.list) {
            auto ev = to_as_val(e, what);
            if (!ev) return ev.error();
            as_arraylist_append(al, ev->release());
        }
        for (const bytes& h : o.hlls)
            as_arraylist_append(al, reinterpret_cast<as_val*>(new_blob(h.data(), h.size(), AS_BYTES_HLL)));
    } else if (o.code == hc::hll_add || o.code == hc::hll_may_contain || o.code == hc::hll_set_union ||
               o.code == hc::hll_get_union || o.code == hc::hll_get_union_count ||
               o.code == hc::hll_get_intersect_count || o.code == hc::hll_get_similarity) {
        al = as_arraylist_new(1, 8); // an empty list: the server's PARAMETER_ERROR
        owner.reset(reinterpret_cast<as_val*>(al));
    }
    auto* l = reinterpret_cast<as_list*>(al);
    const int ib = clamp_int32(o.index_bit_count);
    const int mb = clamp_int32(o.mh_bit_count);
    bool ok = true;
    switch (o.code) {
    case hc::hll_init: ok = as_operations_hll_init_mh(ops, bin, nullptr, &hp, ib, mb); break;
    case hc::hll_add: ok = as_operations_hll_add_mh(ops, bin, nullptr, &hp, l, ib, mb); break;
    case hc::hll_set_union: ok = as_operations_hll_set_union(ops, bin, nullptr, &hp, l); break;
    case hc::hll_refresh_count: ok = as_operations_hll_refresh_count(ops, bin, nullptr); break;
    case hc::hll_fold: ok = as_operations_hll_fold(ops, bin, nullptr, ib); break;
    case hc::hll_get_count: ok = as_operations_hll_get_count(ops, bin, nullptr); break;
    case hc::hll_get_union: ok = as_operations_hll_get_union(ops, bin, nullptr, l); break;
    case hc::hll_get_union_count: ok = as_operations_hll_get_union_count(ops, bin, nullptr, l); break;
    case hc::hll_get_intersect_count: ok = as_operations_hll_get_intersect_count(ops, bin, nullptr, l); break;
    case hc::hll_get_similarity: ok = as_operations_hll_get_similarity(ops, bin, nullptr, l); break;
    case hc::hll_describe: ok = as_operations_hll_describe(ops, bin, nullptr); break;
    case hc::hll_may_contain:
        ok = as_operations_hll_read_list(ops, bin, nullptr, AS_HLL_OP_MAY_CONTAIN, l);
        break;
    }
    // The calls pack the list into the op's own buffer; the list stays ours.
    if (!ok) return fail(status::client_param, std::string(what) + ": the C client refused the operation");
    return {};
}

/// A plain bin op (incr / append / prepend / write) with any operand: the
/// server, not the client, judges the operand's type.
inline result<void> add_bin_op(as_operations* ops, as_operator op, const std::string& bin, const value& v,
                               std::string_view what) {
    auto bv = to_bin_value(v, what);
    if (!bv) return bv.error();
    as_binops& b = ops->binops;
    if (b.size >= b.capacity) {
        as_val_destroy(reinterpret_cast<as_val*>(*bv));
        return fail(status::client_param, std::string(what) + ": operation list is full");
    }
    // What as_operations_add_write does for its operator, for any operator
    // (the name was checked: at most 15 bytes).
    as_binop& slot = b.entries[b.size++];
    slot.op = op;
    std::memset(slot.bin.name, 0, sizeof slot.bin.name);
    std::memcpy(slot.bin.name, bin.data(), bin.size());
    reinterpret_cast<as_val*>(&slot.bin.value)->type = AS_UNKNOWN;
    slot.bin.valuep = *bv;
    return {};
}

/// How many response bins an op produces with respond_all_ops.
inline std::size_t response_bins(const kv::operation& o) noexcept {
    switch (kv::kind(o)) {
    case kv::op_kind::read_header:
    case kv::op_kind::touch: return 0;
    default: return 1;
    }
}

/// Whether a CDT op's result is a KEY_VALUE map to read as pairs.
inline bool key_value_result(const kv::operation& o) noexcept {
    const auto* c = std::get_if<kv::cdt_operation>(&o);
    if (c == nullptr || !cdt::is_map_op(c->op.code)) return false;
    return (c->op.return_type & ~cdt::return_inverted) == static_cast<std::int32_t>(cdt::return_type::key_value);
}

} // namespace detail

/// kv_store (and kv_queryable) on a real Aerospike cluster. Move-only; the
/// connection closes when the store is destroyed.
class aerospike_store {
public:
    /// Connects to the cluster. Errors: PARAMETER_ERROR for a bad host list,
    /// the client's status (e.g. CONNECTION / TIMEOUT) when no seed answers.
    static result<aerospike_store> connect(const aerospike_config& cfg) {
        auto hosts = detail::parse_hosts(cfg.hosts);
        if (!hosts) return fail(hosts.error().code, "connect: " + hosts.error().message);
        as_config c;
        as_config_init(&c);
        for (const detail::host& h : *hosts) {
            if (cfg.tls.enable && !cfg.tls.tls_name.empty())
                as_config_tls_add_host(&c, h.name.c_str(), cfg.tls.tls_name.c_str(), h.port);
            else
                as_config_add_host(&c, h.name.c_str(), h.port);
        }
        if (!cfg.user.empty()) as_config_set_user(&c, cfg.user.c_str(), cfg.password.c_str());
        if (!cfg.cluster_name.empty()) as_config_set_cluster_name(&c, cfg.cluster_name.c_str());
        c.conn_timeout_ms = detail::ms(cfg.connect_timeout);
        c.login_timeout_ms = detail::ms(cfg.login_timeout);
        c.tender_interval = detail::ms(cfg.tend_interval);
        c.max_conns_per_node = cfg.max_conns_per_node;
        c.use_services_alternate = cfg.use_services_alternate;
        const aerospike_tls& t = cfg.tls;
        c.tls.enable = t.enable;
        if (!t.cafile.empty()) as_config_tls_set_cafile(&c, t.cafile.c_str());
        if (!t.capath.empty()) as_config_tls_set_capath(&c, t.capath.c_str());
        if (!t.protocols.empty()) as_config_tls_set_protocols(&c, t.protocols.c_str());
        if (!t.cipher_suite.empty()) as_config_tls_set_cipher_suite(&c, t.cipher_suite.c_str());
        if (!t.cert_blacklist.empty()) as_config_tls_set_cert_blacklist(&c, t.cert_blacklist.c_str());
        if (!t.keyfile.empty()) as_config_tls_set_keyfile(&c, t.keyfile.c_str());
        if (!t.keyfile_pw.empty()) as_config_tls_set_keyfile_pw(&c, t.keyfile_pw.c_str());
        if (!t.certfile.empty()) as_config_tls_set_certfile(&c, t.certfile.c_str());
        c.tls.crl_check = t.crl_check;
        c.tls.crl_check_all = t.crl_check_all;
        c.tls.log_session_info = t.log_session_info;
        c.tls.for_login_only = t.for_login_only;

        std::unique_ptr<aerospike, client_deleter> as(new aerospike);
        aerospike_init(as.get(), &c);  // takes over the config
        as_error err;
        if (aerospike_connect(as.get(), &err) != AEROSPIKE_OK) {
            // Never connected: destroy without close.
            aerospike* p = as.release();
            aerospike_destroy(p);
            delete p;
            return detail::to_error(err, "connect to " + cfg.hosts);
        }
        return aerospike_store(std::move(as));
    }

    /// Takes over the connection; the moved-from store holds none.
    aerospike_store(aerospike_store&&) noexcept = default;
    /// Closes this store's connection, then takes over the other's.
    aerospike_store& operator=(aerospike_store&&) noexcept = default;
    aerospike_store(const aerospike_store&) = delete;
    aerospike_store& operator=(const aerospike_store&) = delete;
    ~aerospike_store() = default;

    /// The C client's handle, for what kvmodel does not wrap.
    aerospike* native() noexcept { return m_as.get(); }

    /// All bins of k (record_not_found when missing). One round trip.
    result<kv::record> get(const kv::key& k, const kv::read_policy& rp = {}) {
        as_key key;
        if (auto r = detail::init_key(key, k, "get"); !r) return r.error();
        detail::exp_holder fx;
        as_policy_read p = read_policy(rp, fx);
        as_error err;
        as_record* raw = nullptr;
        as_status st = aerospike_key_get(m_as.get(), &err, &p, &key, &raw);
        detail::record_ptr rec(raw);
        if (st != AEROSPIKE_OK) return detail::to_error(err, "get");
        kv::record out;
        detail::read_meta(out, *rec);
        if (auto r = detail::read_bins(out, *rec); !r) return r.error();
        return out;
    }

    /// The named bins of k (absent bins are left out). One round trip.
    result<kv::record> get(const kv::key& k, std::span<const std::string> bins, const kv::read_policy& rp = {}) {
        as_key key;
        if (auto r = detail::init_key(key, k, "get"); !r) return r.error();
        std::vector<const char*> names;
        for (const std::string& b : bins) {
            if (auto c = kv::check_bin_name(b, "get"); !c) return c.error();
            names.push_back(b.c_str());
        }
        names.push_back(nullptr);
        detail::exp_holder fx;
        as_policy_read p = read_policy(rp, fx);
        as_error err;
        as_record* raw = nullptr;
        as_status st = aerospike_key_select(m_as.get(), &err, &p, &key, names.data(), &raw);
        detail::record_ptr rec(raw);
        if (st != AEROSPIKE_OK) return detail::to_error(err, "get");
        kv::record out;
        detail::read_meta(out, *rec);
        if (auto r = detail::read_bins(out, *rec); !r) return r.error();
        return out;
    }

    /// Whether k exists. One round trip.
    result<bool> exists(const kv::key& k, const kv::read_policy& rp = {}) {
        as_key key;
        if (auto r = detail::init_key(key, k, "exists"); !r) return r.error();
        detail::exp_holder fx;
        as_policy_read p = read_policy(rp, fx);
        as_error err;
        as_record* raw = nullptr;
        as_status st = aerospike_key_exists(m_as.get(), &err, &p, &key, &raw);
        detail::record_ptr rec(raw);
        if (st == AEROSPIKE_OK) return true;
        if (st == AEROSPIKE_ERR_RECORD_NOT_FOUND) return false;
        return detail::to_error(err, "exists");
    }

    /// Writes bins (nil deletes one). One round trip.
    result<void> put(const kv::key& k, std::span<const kv::bin> bins, const kv::write_policy& wp = {}) {
        if (bins.empty()) return fail(status::parameter_error, "put: no bins");
        as_key key;
        if (auto r = detail::init_key(key, k, "put"); !r) return r.error();
        if (auto t = kv::check_ttl(wp.ttl, "put"); !t) return t.error();
        as_record rec;
        as_record_init(&rec, static_cast<uint16_t>(bins.size()));
        struct guard {
            as_record* r;
            ~guard() { as_record_destroy(r); }
        } g{&rec};
        for (const kv::bin& b : bins) {
            if (auto c = kv::check_bin_name(b.name, "put"); !c) return c.error();
            if (auto c = kv::check_bin_value(b.val, "put", b.name); !c) return c.error();
            auto bv = detail::to_bin_value(b.val, "put");
            if (!bv) return bv.error();
            as_record_set(&rec, b.name.c_str(), *bv);
        }
        rec.ttl = detail::wire_ttl(wp.ttl);
        rec.gen = static_cast<uint16_t>(wp.generation);
        detail::exp_holder fx;
        as_policy_write p;
        as_policy_write_init(&p);
        detail::apply_base(p.base, wp, fx);
        p.exists = detail::exists_policy(wp.exists);
        p.gen = detail::gen_policy(wp.gen);
        p.key = wp.send_key ? AS_POLICY_KEY_SEND : AS_POLICY_KEY_DIGEST;
        p.durable_delete = wp.durable_delete;
        as_error err;
        if (aerospike_key_put(m_as.get(), &err, &p, &key, &rec) != AEROSPIKE_OK) return detail::to_error(err, "put");
        return {};
    }

    /// Applies ops atomically, ONE command with respond_all_ops; one result per
    /// op in record.results, read bins in record.bins. See the header comment
    /// for read_header. Complexity: one round trip.
    result<kv::record> operate(const kv::key& k, std::span<const kv::operation> ops, const kv::write_policy& wp = {}) {
        static constexpr std::string_view cmd = "operate";
        if (ops.empty()) return fail(status::parameter_error, "operate: no operations");
        as_key key;
        if (auto r = detail::init_key(key, k, cmd); !r) return r.error();
        if (auto t = kv::check_ttl(wp.ttl, cmd); !t) return t.error();
        std::size_t sent = 0;
        for (const kv::operation& o : ops) {
            if (const std::string* b = kv::bin_of(o)) {
                if (auto c = kv::check_bin_name(*b, cmd); !c) return c.error();
            }
            if (const auto* w = std::get_if<kv::write_op>(&o)) {
                if (auto c = kv::check_bin_value(w->val, cmd, w->bin); !c) return c.error();
            }
            if (kv::kind(o) != kv::op_kind::read_header) ++sent;
        }
        if (sent > std::numeric_limits<uint16_t>::max())
            return fail(status::parameter_error, "operate: " + std::to_string(ops.size()) + " operations, max 65535");
        if (sent == 0) {
            // Only header reads: the header is what exists() answers.
            detail::exp_holder fx;
            as_policy_read p = read_policy(kv::read_policy{}, fx);
            detail::apply_base(p.base, wp, fx);
            as_error err;
            as_record* raw = nullptr;
            as_status st = aerospike_key_exists(m_as.get(), &err, &p, &key, &raw);
            detail::record_ptr rec(raw);
            if (st != AEROSPIKE_OK) return detail::to_error(err, cmd);
            kv::record out;
            detail::read_meta(out, *rec);
            out.results.assign(ops.size(), value());
            return out;
        }
        detail::ops_holder h(static_cast<uint16_t>(sent));
        as_operations* aops = &h.ops;
        std::vector<detail::exp_holder> exps(ops.size());
        if (auto added = add_ops(aops, ops, exps); !added) return added.error();
        aops->ttl = detail::wire_ttl(wp.ttl);
        aops->gen = static_cast<uint16_t>(wp.generation);
        detail::exp_holder fx;
        as_policy_operate p;
        as_policy_operate_init(&p);
        detail::apply_base(p.base, wp, fx);
        p.exists = detail::exists_policy(wp.exists);
        p.gen = detail::gen_policy(wp.gen);
        p.key = wp.send_key ? AS_POLICY_KEY_SEND : AS_POLICY_KEY_DIGEST;
        p.durable_delete = wp.durable_delete;
        p.respond_all_ops = true;
        p.deserialize = false;
        as_error err;
        as_record* raw = nullptr;
        as_status st = aerospike_key_operate(m_as.get(), &err, &p, &key, aops, &raw);
        detail::record_ptr rec(raw);
        if (st != AEROSPIKE_OK) return detail::to_error(err, cmd);
        return answer_of(ops, rec.get());
    }

    /// operate() with a braced list of operations, as sim::cluster takes them.
    result<kv::record> operate(const kv::key& k, std::initializer_list<kv::operation> ops,
                               const kv::write_policy& wp = {}) {
        return operate(k, std::span<const kv::operation>(ops.begin(), ops.size()), wp);
    }

    /// Deletes the record (record_not_found when missing). One round trip.
    result<void> remove(const kv::key& k, const kv::write_policy& wp = {}) {
        as_key key;
        if (auto r = detail::init_key(key, k, "remove"); !r) return r.error();
        detail::exp_holder fx;
        as_policy_remove p;
        as_policy_remove_init(&p);
        detail::apply_base(p.base, wp, fx);
        p.gen = detail::gen_policy(wp.gen);
        p.generation = static_cast<uint16_t>(wp.generation);
        p.key = wp.send_key ? AS_POLICY_KEY_SEND : AS_POLICY_KEY_DIGEST;
        p.durable_delete = wp.durable_delete;
        as_error err;
        if (aerospike_key_remove(m_as.get(), &err, &p, &key) != AEROSPIKE_OK) return detail::to_error(err, "remove");
        return {};
    }

    /// New TTL and generation (record_not_found when missing). One round trip.
    result<void> touch(const kv::key& k, const kv::write_policy& wp = {}) {
        const kv::operation ops[] = {kv::op::touch()};
        auto r = operate(k, ops, wp);
        if (!r) return std::move(r).error();
        return {};
    }

    /// One result per key, in key order: one aerospike_batch_read.
    std::vector<result<kv::record>> batch_get(std::span<const kv::key> keys, const kv::read_policy& rp = {}) {
        return batch(keys, nullptr, rp);
    }
    /// The named bins of each key, in key order.
    std::vector<result<kv::record>> batch_get(std::span<const kv::key> keys, std::span<const std::string> bins,
                                              const kv::read_policy& rp = {}) {
        return batch(keys, &bins, rp);
    }

    /// Batch operate (kv/batch.hpp): one aerospike_batch_write with a read,
    /// write or remove record per entry, each with its own batch sub-policy
    /// (a record without a filter expression inherits bp's, as the client
    /// does). One result per record, in order; in_doubt as the client sets it.
    std::vector<result<kv::record>> batch_operate(std::span<const kv::batch_record> batch,
                                                  const kv::batch_policy& bp = {}) {
        static constexpr std::string_view cmd = "batch_operate";
        using kind = kv::batch_record::kind;
        const std::size_t n = batch.size();
        std::vector<result<kv::record>> out;
        out.reserve(n);
        if (n == 0) return out;
        as_batch_records records;
        as_batch_records_init(&records, static_cast<uint32_t>(n));
        struct guard {
            as_batch_records* r;
            ~guard() { as_batch_records_destroy(r); }
        } g{&records};
        // What each record's C structures point at, alive until the answer.
        struct held {
            std::optional<detail::ops_holder> ops;
            std::vector<detail::exp_holder> exps;
            detail::exp_holder filter;
            as_policy_batch_read read{};
            as_policy_batch_write write{};
            as_policy_batch_remove remove{};
        };
        std::vector<held> hold(n);
        std::vector<std::optional<error>> pre(n);
        for (std::size_t i = 0; i < n; ++i) {
            const kv::batch_record& br = batch[i];
            held& h = hold[i];
            as_key* key = nullptr;
            const kv::base_policy& own = br.type == kind::read ? static_cast<const kv::base_policy&>(br.rp)
                                                               : static_cast<const kv::base_policy&>(br.wp);
            as_exp* filter = own.filter_exp.empty() ? nullptr : const_cast<as_exp*>(h.filter.set(own.filter_exp));
            if (br.type == kind::remove) {
                as_batch_remove_record* r = as_batch_remove_reserve(&records);
                key = &r->key;
                as_policy_batch_remove_init(&h.remove);
                h.remove.filter_exp = filter;
                h.remove.key = br.wp.send_key ? AS_POLICY_KEY_SEND : AS_POLICY_KEY_DIGEST;
                h.remove.gen = detail::gen_policy(br.wp.gen);
                h.remove.generation = static_cast<uint16_t>(br.wp.generation);
                h.remove.durable_delete = br.wp.durable_delete;
                r->policy = &h.remove;
            } else {
                std::size_t sent = 0;
                for (const kv::operation& o : br.ops) {
                    if (const std::string* b = kv::bin_of(o); b != nullptr && !pre[i]) {
                        if (auto c = kv::check_bin_name(*b, cmd); !c) pre[i] = c.error();
                    }
                    if (const auto* w = std::get_if<kv::write_op>(&o); w != nullptr && !pre[i]) {
                        if (auto c = kv::check_bin_value(w->val, cmd, w->bin); !c) pre[i] = c.error();
                    }
                    if (kv::kind(o) != kv::op_kind::read_header) ++sent;
                }
                if (br.type == kind::write && br.ops.empty() && !pre[i])
                    pre[i] = error{status::parameter_error, "batch_operate: a write with no operations", false};
                if (br.type == kind::write && !pre[i]) {
                    if (auto t = kv::check_ttl(br.wp.ttl, cmd); !t) pre[i] = t.error();
                }
                if (sent > std::numeric_limits<uint16_t>::max() && !pre[i])
                    pre[i] = error{status::parameter_error,
                                   "batch_operate: " + std::to_string(br.ops.size()) + " operations, max 65535", false};
                as_operations* aops = nullptr;
                if (!br.ops.empty() && !pre[i]) {
                    h.ops.emplace(static_cast<uint16_t>(sent));
                    aops = &h.ops->ops;
                    h.exps.resize(br.ops.size());
                    if (auto added = add_ops(aops, br.ops, h.exps); !added) pre[i] = added.error();
                }
                if (br.type == kind::read) {
                    as_batch_read_record* r = as_batch_read_reserve(&records);
                    key = &r->key;
                    as_policy_batch_read_init(&h.read);
                    h.read.filter_exp = filter;
                    r->policy = &h.read;
                    if (aops != nullptr) r->ops = aops;
                    else r->read_all_bins = true;
                } else {
                    as_batch_write_record* r = as_batch_write_reserve(&records);
                    key = &r->key;
                    as_policy_batch_write_init(&h.write);
                    h.write.filter_exp = filter;
                    h.write.key = br.wp.send_key ? AS_POLICY_KEY_SEND : AS_POLICY_KEY_DIGEST;
                    h.write.gen = detail::gen_policy(br.wp.gen);
                    h.write.exists = detail::exists_policy(br.wp.exists);
                    h.write.ttl = detail::wire_ttl(br.wp.ttl);
                    h.write.durable_delete = br.wp.durable_delete;
                    if (aops != nullptr) {
                        aops->ttl = detail::wire_ttl(br.wp.ttl);
                        aops->gen = static_cast<uint16_t>(br.wp.generation);
                    }
                    r->policy = &h.write;
                    r->ops = aops;
                }
            }
            if (auto ok = detail::init_key(*key, br.k, cmd); !ok && !pre[i]) pre[i] = ok.error();
            if (pre[i]) {
                // A placeholder the server answers for; the slot reports the record's own error.
                as_key_init_int64(key, br.k.ns().c_str(), "", 0);
                if (br.type == kind::write && !hold[i].ops) {
                    // A write needs operations to be sent: a harmless read.
                    hold[i].ops.emplace(1);
                    as_operations_add_read(&hold[i].ops->ops, "_");
                    reinterpret_cast<as_batch_write_record*>(as_vector_get(&records.list, static_cast<uint32_t>(i)))
                        ->ops = &hold[i].ops->ops;
                }
            }
        }
        detail::exp_holder fx;
        as_policy_batch p;
        as_policy_batch_init(&p);
        detail::apply_base(p.base, bp, fx);
        p.respond_all_keys = bp.respond_all_keys;
        p.deserialize = false;
        as_error err;
        as_status st = aerospike_batch_write(m_as.get(), &err, &p, &records);
        (void)st; // every record carries its own result (AEROSPIKE_NO_RESPONSE when unanswered)
        for (std::size_t i = 0; i < n; ++i) {
            if (pre[i]) {
                out.push_back(*pre[i]);
                continue;
            }
            const auto* r = static_cast<const as_batch_base_record*>(as_vector_get(&records.list, static_cast<uint32_t>(i)));
            if (r->result != AEROSPIKE_OK) {
                out.push_back(record_error(r->result, r->in_doubt, cmd));
                continue;
            }
            const kv::batch_record& br = batch[i];
            if (br.type == kind::remove) {
                out.push_back(kv::record{});
            } else if (br.type == kind::read && br.ops.empty()) {
                kv::record rec;
                detail::read_meta(rec, r->record);
                if (auto b = detail::read_bins(rec, r->record); !b) out.push_back(b.error());
                else out.push_back(std::move(rec));
            } else if (br.type == kind::read && r->record.bins.size < br.ops.size()) {
                out.push_back(read_answer_by_name(br.ops, r->record));
            } else {
                out.push_back(answer_of(br.ops, &r->record));
            }
        }
        return out;
    }

    /// A batch read's answer has no per-op bins (respond_all_ops is for
    /// writes): a read of a bin the record lacks answers no bin at all. When
    /// every op reads its own bin, match them by name (an absent bin is nil);
    /// else as answer_of.
    static result<kv::record> read_answer_by_name(std::span<const kv::operation> ops,
                                                  const as_record& rec) {
        std::vector<std::string> names;
        for (const kv::operation& o : ops) {
            const std::string* b = kv::bin_of(o);
            if (b == nullptr || std::find(names.begin(), names.end(), *b) != names.end()) return answer_of(ops, &rec);
            names.push_back(*b);
        }
        kv::record out;
        detail::read_meta(out, rec);
        out.results.assign(ops.size(), value());
        for (std::size_t pos = 0; pos < rec.bins.size; ++pos) {
            const as_bin& b = rec.bins.entries[pos];
            const auto at = static_cast<std::size_t>(std::find(names.begin(), names.end(), b.name) - names.begin());
            if (at == names.size())
                return fail(status::client, std::string("batch_operate: the server answered bin ") + b.name +
                                                " that no operation read");
            auto v = detail::from_as_val(reinterpret_cast<const as_val*>(b.valuep), detail::key_value_result(ops[at]));
            if (!v) return fail(v.error().code, "batch_operate: " + v.error().message);
            if (!v->is_nil()) out.set(b.name, *v);
            out.results[at] = std::move(v).value();
        }
        return out;
    }

    /// Truncate (aerospike_truncate): the records of `set` (empty = the
    /// namespace) last updated before `before_ms` (Unix ms; nullopt = now).
    result<void> truncate(const std::string& ns, const std::string& set,
                          std::optional<std::int64_t> before_ms = std::nullopt) {
        if (before_ms && *before_ms <= 0)
            return fail(status::parameter_error, "truncate: would truncate to 0 (cutoff " +
                                                     std::to_string(*before_ms) + " ms)");
        const uint64_t nanos = before_ms ? static_cast<uint64_t>(*before_ms) * 1000000ULL : 0;
        as_error err;
        as_policy_info p;
        as_policy_info_init(&p);
        if (aerospike_truncate(m_as.get(), &err, &p, ns.c_str(), set.empty() ? nullptr : set.c_str(), nanos) !=
            AEROSPIKE_OK)
            return detail::to_error(err, "truncate " + ns + (set.empty() ? "" : "." + set));
        return {};
    }

    // --- kv_queryable -------------------------------------------------------------

    /// Creates a secondary index and waits until it is built.
    result<void> create_index(const kv::index_spec& ix) {
        // NUMERIC, not INTEGER: the server is 8.1.2 (INTEGER is 8.1.3+).
        as_index_datatype type = ix.type == kv::index_type::numeric ? AS_INDEX_NUMERIC
                                 : ix.type == kv::index_type::string ? AS_INDEX_STRING
                                                                      : AS_INDEX_BLOB;
        as_index_type ctype = AS_INDEX_TYPE_DEFAULT;
        switch (ix.collection) {
        case kv::index_collection::none: ctype = AS_INDEX_TYPE_DEFAULT; break;
        case kv::index_collection::list: ctype = AS_INDEX_TYPE_LIST; break;
        case kv::index_collection::map_keys: ctype = AS_INDEX_TYPE_MAPKEYS; break;
        case kv::index_collection::map_values: ctype = AS_INDEX_TYPE_MAPVALUES; break;
        }
        as_index_task task;
        as_error err;
        as_policy_info p;
        as_policy_info_init(&p);
        const char* set = ix.set.empty() ? nullptr : ix.set.c_str();
        as_status st = AEROSPIKE_OK;
        // The info command's rules the C client cannot send (one index
        // reads a bin, a ctx in a bin, or an expression).
        if (!ix.exp.empty() && !ix.bin.empty())
            return fail(status::parameter_error, "create_index " + ix.name + ": both 'bin' and 'exp' are specified");
        if (!ix.exp.empty() && !ix.ctx.empty())
            return fail(status::parameter_error,
                        "create_index " + ix.name + ": both 'context' and 'exp' are specified");
        if (!ix.exp.empty()) {
            detail::exp_holder ex;
            st = aerospike_index_create_exp(m_as.get(), &err, &task, &p, ix.ns.c_str(), set, ix.name.c_str(), ctype,
                                            type, const_cast<as_exp*>(ex.set(ix.exp)));
        } else {
            detail::ctx_holder ctx;
            if (auto c = detail::build_ctx(ix.ctx, ctx, "create_index"); !c) return c.error();
            st = aerospike_index_create_ctx(m_as.get(), &err, &task, &p, ix.ns.c_str(), set, ix.bin.c_str(),
                                            ix.name.c_str(), ctype, type, ctx.get());
        }
        if (st != AEROSPIKE_OK) return detail::to_error(err, "create_index " + ix.name);
        if (aerospike_index_create_wait(&err, &task, 100) != AEROSPIKE_OK)
            return detail::to_error(err, "create_index " + ix.name);
        return {};
    }

    /// Drops a secondary index of namespace ns.
    result<void> drop_index(const std::string& ns, const std::string& name) {
        as_error err;
        if (aerospike_index_remove(m_as.get(), &err, nullptr, ns.c_str(), name.c_str()) != AEROSPIKE_OK)
            return detail::to_error(err, "drop_index " + name);
        return {};
    }

    /// Every record of a set (or namespace), with the named bins (all if none).
    result<std::vector<kv::keyed_record>> scan(const kv::scan_request& req, const kv::read_policy& rp = {}) {
        return run_scan(req, rp, 0, [&](as_error& err, const as_policy_scan& p, as_scan& s, collector& c) {
            return aerospike_scan_foreach(m_as.get(), &err, &p, &s, &collector::callback, &c);
        });
    }

    /// One page of a scan (kv::scan_page): aerospike_scan_partitions on the
    /// cursor's partitions, at most req.max_records records, throttled to
    /// cursor.records_per_second; the cursor moves past them.
    result<std::vector<kv::keyed_record>> scan_page(const kv::scan_request& req, kv::partition_cursor& cursor,
                                                    const kv::read_policy& rp) {
        return run_page(cursor, "scan_page", [&](as_partition_filter& pf) {
            return run_scan(req, rp, cursor.records_per_second,
                            [&](as_error& err, const as_policy_scan& p, as_scan& s, collector& c) {
                                return aerospike_scan_partitions(m_as.get(), &err, &p, &s, &pf,
                                                                 &collector::callback, &c);
                            });
        });
    }

    /// Records whose indexed bin matches the filter.
    result<std::vector<kv::keyed_record>> query(const kv::query_request& req, const kv::read_policy& rp = {}) {
        return run_query(req, rp, 0, [&](as_error& err, const as_policy_query& p, as_query& q, collector& c) {
            return aerospike_query_foreach(m_as.get(), &err, &p, &q, &collector::callback, &c);
        });
    }

    /// One page of a query (kv::query_page), as scan_page with
    /// aerospike_query_partitions.
    result<std::vector<kv::keyed_record>> query_page(const kv::query_request& req, kv::partition_cursor& cursor,
                                                     const kv::read_policy& rp) {
        return run_page(cursor, "query_page", [&](as_partition_filter& pf) {
            return run_query(req, rp, cursor.records_per_second,
                             [&](as_error& err, const as_policy_query& p, as_query& q, collector& c) {
                                 return aerospike_query_partitions(m_as.get(), &err, &p, &q, &pf,
                                                                   &collector::callback, &c);
                             });
        });
    }

private:
    // A scan of req's set and bins under rp, throttled to rps (0 = none):
    // run(err, policy, scan, collector) sends it; its records or its error.
    template <class Run>
    static result<std::vector<kv::keyed_record>> run_scan(const kv::scan_request& req, const kv::read_policy& rp,
                                                          std::uint32_t rps, Run&& run) {
        as_scan s;
        as_scan_init(&s, req.ns.c_str(), req.set.c_str());
        struct guard {
            as_scan* s;
            ~guard() { as_scan_destroy(s); }
        } g{&s};
        if (!req.bins.empty()) {
            as_scan_select_init(&s, static_cast<uint16_t>(req.bins.size()));
            for (const std::string& b : req.bins) as_scan_select(&s, b.c_str());
        }
        detail::exp_holder fx;
        as_policy_scan p;
        as_policy_scan_init(&p);
        detail::apply_base(p.base, rp, fx);
        p.max_records = req.max_records;
        p.records_per_second = rps;
        collector c;
        as_error err;
        if (run(err, p, s, c) != AEROSPIKE_OK) return detail::to_error(err, "scan");
        return c.take();
    }

    // A query as run_scan (run(err, policy, query, collector) sends it).
    template <class Run>
    static result<std::vector<kv::keyed_record>> run_query(const kv::query_request& req, const kv::read_policy& rp,
                                                           std::uint32_t rps, Run&& run) {
        as_query q;
        as_query_init(&q, req.ns.c_str(), req.set.c_str());
        struct guard {
            as_query* q;
            ~guard() { as_query_destroy(q); }
        } g{&q};
        if (!req.bins.empty()) {
            as_query_select_init(&q, static_cast<uint16_t>(req.bins.size()));
            for (const std::string& b : req.bins) as_query_select(&q, b.c_str());
        }
        as_query_where_init(&q, 1);
        const kv::filter& f = req.where;
        as_index_type ctype = AS_INDEX_TYPE_DEFAULT;
        switch (f.collection) {
        case kv::index_collection::none: ctype = AS_INDEX_TYPE_DEFAULT; break;
        case kv::index_collection::list: ctype = AS_INDEX_TYPE_LIST; break;
        case kv::index_collection::map_keys: ctype = AS_INDEX_TYPE_MAPKEYS; break;
        case kv::index_collection::map_values: ctype = AS_INDEX_TYPE_MAPVALUES; break;
        }
        // The index is named by bin (and ctx) or by its expression (both
        // outlive the query's use; as_query_destroy leaves them alone).
        detail::ctx_holder ctx;
        if (auto c = detail::build_ctx(f.ctx, ctx, "query"); !c) return c.error();
        detail::exp_holder ex;
        as_exp* exp = f.exp.empty() ? nullptr : const_cast<as_exp*>(ex.set(f.exp));
        const auto where = [&](as_predicate_type pt, as_index_datatype dt, auto... args) {
            if (exp != nullptr) return as_query_where_with_exp(&q, exp, pt, ctype, dt, args...);
            if (ctx.get() != nullptr)
                return as_query_where_with_ctx(&q, f.bin.c_str(), ctx.get(), pt, ctype, dt, args...);
            return as_query_where(&q, f.bin.c_str(), pt, ctype, dt, args...);
        };
        bool ok = false;
        if (f.end) {
            if (!f.begin.is_int() || !f.end->is_int())
                return fail(status::parameter_error, "query: a range filter needs integer bounds");
            ok = where(AS_PREDICATE_RANGE, AS_INDEX_NUMERIC, f.begin.as_int(), f.end->as_int());
        } else if (f.begin.is_int()) {
            ok = where(AS_PREDICATE_EQUAL, AS_INDEX_NUMERIC, f.begin.as_int());
        } else if (f.begin.is_string()) {
            ok = where(AS_PREDICATE_EQUAL, AS_INDEX_STRING, f.begin.as_string().c_str());
        } else if (f.begin.is_bytes()) {
            const bytes& b = f.begin.as_bytes();
            ok = where(AS_PREDICATE_EQUAL, AS_INDEX_BLOB, b.data(), static_cast<uint32_t>(b.size()), false);
        } else {
            return fail(status::parameter_error, "query: filter value must be an integer, a string or bytes");
        }
        if (!ok) return fail(status::client_param, "query: the C client refused the filter");
        detail::exp_holder fx;
        as_policy_query p;
        as_policy_query_init(&p);
        detail::apply_base(p.base, rp, fx);
        q.max_records = req.max_records;
        q.records_per_second = rps;
        collector c;
        as_error err;
        if (run(err, p, q, c) != AEROSPIKE_OK) return detail::to_error(err, "query");
        return c.take();
    }

    // Frees an as_partitions_status (the C client's reference count).
    struct partitions_release {
        void operator()(as_partitions_status* p) const noexcept { as_partitions_status_release(p); }
    };

    // One page: the cursor (every partition when empty) as the C client's
    // as_partitions_status (per partition: retry = not done, the last
    // digest and index value), run(filter) sends the scan or query, and the
    // page's progress comes back into the cursor. A failed page leaves the
    // cursor as it was; a done cursor gives an empty page without a call.
    template <class Run>
    static result<std::vector<kv::keyed_record>> run_page(kv::partition_cursor& cursor, std::string_view what,
                                                          Run&& run) {
        if (cursor.parts.empty())
            cursor = kv::partition_cursor::start(kv::partition_filter::all(), cursor.records_per_second);
        if (cursor.done()) return std::vector<kv::keyed_record>{};
        const std::size_t n = cursor.parts.size();
        const std::uint32_t begin = cursor.parts.front().id;
        for (std::size_t i = 0; i < n; ++i)
            if (cursor.parts[i].id != begin + i || cursor.parts[i].id >= kv::partition_count)
                return fail(status::parameter_error,
                            std::string(what) + ": the cursor's partitions must be consecutive ids below " +
                                std::to_string(kv::partition_count) + " (partition " +
                                std::to_string(cursor.parts[i].id) + " at position " + std::to_string(i) + ")");
        void* mem = cf_malloc(sizeof(as_partitions_status) + n * sizeof(as_partition_status));
        if (mem == nullptr) return fail(status::client, std::string(what) + ": out of memory");
        std::unique_ptr<as_partitions_status, partitions_release> parts(static_cast<as_partitions_status*>(mem));
        as_partitions_status& pa = *parts;
        pa.ref_count = 1;
        pa.part_begin = static_cast<uint16_t>(begin);
        pa.part_count = static_cast<uint16_t>(n);
        pa.done = false;
        pa.retry = false; // only the partitions not done
        for (std::size_t i = 0; i < n; ++i) {
            const kv::partition_cursor::part& c = cursor.parts[i];
            as_partition_status& ps = pa.parts[i];
            ps.part_id = static_cast<uint16_t>(c.id);
            ps.replica_index = 0;
            ps.retry = !c.done;
            ps.digest.init = c.last.has_value();
            if (c.last) std::memcpy(ps.digest.value, c.last->data(), c.last->size());
            ps.bval = static_cast<uint64_t>(c.bval);
            ps.node = nullptr;
        }
        as_partition_filter pf;
        as_partition_filter_set_partitions(&pf, parts.get());
        result<std::vector<kv::keyed_record>> page = run(pf);
        if (!page) return page;
        for (std::size_t i = 0; i < n; ++i) {
            kv::partition_cursor::part& c = cursor.parts[i];
            const as_partition_status& ps = pa.parts[i];
            c.done = !ps.retry;
            if (ps.digest.init) {
                kv::digest d{};
                std::memcpy(d.data(), ps.digest.value, d.size());
                c.last = d;
                c.bval = static_cast<std::int64_t>(ps.bval);
            }
        }
        return page;
    }

private:
    struct client_deleter {
        void operator()(aerospike* a) const noexcept {
            if (a == nullptr) return;
            as_error err;
            aerospike_close(a, &err);
            aerospike_destroy(a);
            delete a;
        }
    };

    explicit aerospike_store(std::unique_ptr<aerospike, client_deleter> as) : m_as(std::move(as)) {}

    static as_policy_read read_policy(const kv::read_policy& rp, detail::exp_holder& fx) {
        as_policy_read p;
        as_policy_read_init(&p);
        detail::apply_base(p.base, rp, fx);
        p.deserialize = false;
        return p;
    }

    // Scan / query records arrive on client threads, one call per record.
    struct collector {
        std::mutex mu;
        std::vector<kv::keyed_record> out;
        error failure{status::client, ""};

        // The records, or the first record's conversion failure.
        result<std::vector<kv::keyed_record>> take() {
            std::lock_guard<std::mutex> lock(mu);
            if (!failure.message.empty()) return failure;
            return std::move(out);
        }

        static bool callback(const as_val* v, void* udata) {
            auto* self = static_cast<collector*>(udata);
            if (v == nullptr) return true;  // end of stream
            const as_record* rec = as_record_fromval(v);
            if (rec == nullptr) return true;
            kv::record r;
            detail::read_meta(r, *rec);
            if (auto b = detail::read_bins(r, *rec); !b) {
                std::lock_guard<std::mutex> lock(self->mu);
                self->failure = b.error();
                return false;
            }
            const as_key& k = rec->key;
            kv::digest d{};
            std::memcpy(d.data(), k.digest.value, d.size());
            std::optional<kv::key> key;
            if (k.valuep != nullptr) {
                const auto* kv_ = reinterpret_cast<const as_val*>(k.valuep);
                if (as_val_type(kv_) == AS_INTEGER)
                    key.emplace(k.ns, k.set, as_integer_get(reinterpret_cast<const as_integer*>(kv_)));
                else if (as_val_type(kv_) == AS_STRING)
                    key.emplace(k.ns, k.set, std::string(as_string_get(reinterpret_cast<const as_string*>(kv_))));
                else if (as_val_type(kv_) == AS_BYTES) {
                    const auto* b = reinterpret_cast<const as_bytes*>(kv_);
                    key.emplace(k.ns, k.set, bytes(b->value, b->value + b->size));
                }
            }
            if (!key) key.emplace(kv::key::from_digest(k.ns, k.set, d));
            std::lock_guard<std::mutex> lock(self->mu);
            self->out.push_back(kv::keyed_record{std::move(*key), std::move(r)});
            return true;
        }
    };

    // The C client's operations for ops (all but read_header, which sends
    // nothing) into aops; exps keeps their expressions alive.
    static result<void> add_ops(as_operations* aops, std::span<const kv::operation> ops,
                                std::vector<detail::exp_holder>& exps) {
        std::size_t op_index = 0;
        for (const kv::operation& o : ops) {
            detail::exp_holder& ex = exps[op_index++];
            std::string_view what = kv::op_name(o);
            result<void> added;
            switch (kv::kind(o)) {
            case kv::op_kind::read: as_operations_add_read(aops, std::get<kv::read_op>(o).bin.c_str()); break;
            case kv::op_kind::read_all: as_operations_add_read_all(aops); break;
            case kv::op_kind::read_header: break;
            case kv::op_kind::write: {
                const auto& w = std::get<kv::write_op>(o);
                added = detail::add_bin_op(aops, AS_OPERATOR_WRITE, w.bin, w.val, what);
                break;
            }
            case kv::op_kind::add: {
                const auto& a = std::get<kv::add_op>(o);
                added = detail::add_bin_op(aops, AS_OPERATOR_INCR, a.bin, a.delta, what);
                break;
            }
            case kv::op_kind::append: {
                const auto& a = std::get<kv::append_op>(o);
                added = detail::add_bin_op(aops, AS_OPERATOR_APPEND, a.bin, a.val, what);
                break;
            }
            case kv::op_kind::prepend: {
                const auto& a = std::get<kv::prepend_op>(o);
                added = detail::add_bin_op(aops, AS_OPERATOR_PREPEND, a.bin, a.val, what);
                break;
            }
            case kv::op_kind::touch: as_operations_add_touch(aops); break;
            case kv::op_kind::delete_record: as_operations_add_delete(aops); break;
            case kv::op_kind::cdt: {
                const auto& c = std::get<kv::cdt_operation>(o);
                added = detail::add_cdt(aops, c.bin.c_str(), c.op);
                break;
            }
            case kv::op_kind::bit: {
                const auto& b = std::get<kv::bit_operation>(o);
                added = detail::add_bit(aops, b.bin.c_str(), b.op);
                break;
            }
            case kv::op_kind::hll: {
                const auto& x = std::get<kv::hll_operation>(o);
                added = detail::add_hll(aops, x.bin.c_str(), x.op);
                break;
            }
            case kv::op_kind::exp_read: {
                const auto& x = std::get<kv::exp_read_op>(o);
                if (!as_operations_exp_read(aops, x.name.c_str(), ex.set(x.exp),
                                            static_cast<as_exp_read_flags>(x.flags)))
                    added = fail(status::client_param, "exp_read: the C client refused the op");
                break;
            }
            case kv::op_kind::exp_write: {
                const auto& x = std::get<kv::exp_write_op>(o);
                if (!as_operations_exp_write(aops, x.bin.c_str(), ex.set(x.exp),
                                             static_cast<as_exp_write_flags>(x.flags)))
                    added = fail(status::client_param, "exp_write: the C client refused the op");
                break;
            }
            }
            if (!added) return fail(added.error().code, "operate: " + added.error().message);
        }
        return {};
    }

    // A batch record's own failure as an error naming the command.
    static error record_error(as_status code, bool in_doubt, std::string_view cmd) {
        as_error e;
        as_error_init(&e);
        e.code = code;
        std::snprintf(e.message, sizeof e.message, "%s", as_error_string(code));
        e.in_doubt = in_doubt;
        return detail::to_error(e, cmd);
    }

    // An operate answer (respond_all_ops) as a kv::record: one result per op,
    // read bins in record.bins. rec null: the header-only answer.
    static result<kv::record> answer_of(std::span<const kv::operation> ops, const as_record* rec) {
        kv::record out;
        out.results.reserve(ops.size());
        if (!rec) {
            out.results.assign(ops.size(), value());
            return out;
        }
        detail::read_meta(out, *rec);
        const std::size_t n = rec->bins.size;
        std::size_t pos = 0;
        if (std::any_of(ops.begin(), ops.end(),
                        [](const kv::operation& o) { return kv::kind(o) == kv::op_kind::read_all; })) {
            // With read_all the client must turn respond_all_ops off (GET_ALL):
            // the answer is the record's bins and nothing per op.
            for (; pos < n; ++pos) {
                const as_bin& b = rec->bins.entries[pos];
                auto v = detail::from_as_val(reinterpret_cast<const as_val*>(b.valuep));
                if (!v) return fail(v.error().code, "operate: " + v.error().message);
                out.set(b.name, std::move(v).value());
            }
            out.results.assign(ops.size(), value());
            return out;
        }
        // Each op takes its own response bin, in op order.
        for (const kv::operation& o : ops) {
            if (detail::response_bins(o) == 0) {
                out.results.emplace_back();
                continue;
            }
            if (pos >= n) break;
            const as_bin& b = rec->bins.entries[pos++];
            auto v = detail::from_as_val(reinterpret_cast<const as_val*>(b.valuep), detail::key_value_result(o));
            if (!v) return fail(v.error().code, "operate: " + v.error().message);
            if (kv::kind(o) == kv::op_kind::read && !v->is_nil()) out.set(b.name, *v);
            out.results.push_back(std::move(v).value());
        }
        if (out.results.size() != ops.size() || pos != n)
            return fail(status::client, "operate: the server answered " + std::to_string(n) + " bins for " +
                                            std::to_string(ops.size()) + " operations");
        return out;
    }

    std::vector<result<kv::record>> batch(std::span<const kv::key> keys, const std::span<const std::string>* bins,
                                          const kv::read_policy& rp) {
        std::vector<result<kv::record>> out;
        out.reserve(keys.size());
        if (keys.empty()) return out;
        std::vector<const char*> names;
        if (bins != nullptr) {
            for (const std::string& b : *bins) {
                if (auto c = kv::check_bin_name(b, "batch_get"); !c) {
                    out.assign(keys.size(), c.error());
                    return out;
                }
                names.push_back(b.c_str());
            }
        }
        as_batch_records records;
        as_batch_records_inita(&records, static_cast<uint32_t>(keys.size()));
        struct guard {
            as_batch_records* r;
            ~guard() { as_batch_records_destroy(r); }
        } g{&records};
        std::vector<std::optional<error>> key_errors(keys.size());
        for (std::size_t i = 0; i < keys.size(); ++i) {
            as_batch_read_record* r = as_batch_read_reserve(&records);
            if (auto ok = detail::init_key(r->key, keys[i], "batch_get"); !ok) {
                key_errors[i] = ok.error();
                // A placeholder the server answers "not found" for; the slot reports the key error.
                as_key_init_int64(&r->key, "test", "", 0);
            }
            if (bins == nullptr) r->read_all_bins = true;
            else {
                r->bin_names = const_cast<char**>(names.data());
                r->n_bin_names = static_cast<uint32_t>(names.size());
            }
        }
        detail::exp_holder fx;
        as_policy_batch p;
        as_policy_batch_init(&p);
        detail::apply_base(p.base, rp, fx);
        p.deserialize = false;
        as_error err;
        as_status st = aerospike_batch_read(m_as.get(), &err, &p, &records);
        if (st != AEROSPIKE_OK && st != AEROSPIKE_BATCH_FAILED) {
            out.assign(keys.size(), detail::to_error(err, "batch_get"));
            return out;
        }
        for (std::size_t i = 0; i < keys.size(); ++i) {
            if (key_errors[i]) {
                out.push_back(*key_errors[i]);
                continue;
            }
            const auto* r = static_cast<const as_batch_read_record*>(as_vector_get(&records.list, static_cast<uint32_t>(i)));
            if (r->result != AEROSPIKE_OK) {
                out.push_back(record_error(r->result, r->in_doubt, "batch_get"));
                continue;
            }
            kv::record rec;
            detail::read_meta(rec, r->record);
            if (auto b = detail::read_bins(rec, r->record); !b) {
                out.push_back(b.error());
                continue;
            }
            out.push_back(std::move(rec));
        }
        return out;
    }

    std::unique_ptr<aerospike, client_deleter> m_as;
};

static_assert(kv::kv_store<aerospike_store>);
static_assert(kv::kv_queryable<aerospike_store>);
static_assert(kv::detail::has_batch_operate<aerospike_store>);
static_assert(kv::detail::has_truncate<aerospike_store>);

} // namespace kvmodel::adapters
