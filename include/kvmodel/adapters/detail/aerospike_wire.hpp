// kvmodel/adapters/detail/aerospike_wire.hpp
//
// The part of the Aerospike adapter that needs no client library, so CI tests
// it without one (tests/adapters/aerospike_wire_test.cpp):
//
// * Aerospike's msgpack, both ways: encode_msgpack writes a value as the
//   server stores a list or map particle (strings and blobs in the str family
//   with a particle-type prefix byte, smallest integer encodings, doubles as
//   float64, an ext "flags" element first in an ORDERED list or K/KV-ordered
//   map); decode_msgpack reads what the server sends back (also msgpack bin
//   strings, float32, and any flags element, whose order bits it keeps). The
//   adapter writes list and map bins through encode_msgpack and reads every
//   list and map it gets back (bins and operation results) through
//   decode_msgpack, so values keep the server's exact order and flags instead
//   of passing through the C client's as_val containers.
// * A KEY_VALUE result keeps the server's order: the decoder can read a
//   top-level map as a list of [key, value] pairs, as cdt::apply returns them.
// * Result codes: as_status numbers are kvmodel::status numbers (both are
//   Aerospike's; every client-side code of as_status.h, -20 .. -1, has its
//   kvmodel status, with kv::is_transient saying which are worth a retry);
//   a code the enum does not name (a newer client's) maps to status::client
//   with the number in the message. client_error builds the whole error,
//   the client's in_doubt flag kept.
// * Host lists ("h1[:p1],h2[:p2]", IPv6 in brackets), and the narrowing of
//   int64 arguments to the C client's int / uint32 parameters (clamped: see
//   clamp_int32).
//
// Departures, all documented at the function: GeoJSON particles decode as
// strings (kvmodel has no GeoJSON type); blobs of the language-specific
// particle types (Java, Python, ...) decode as plain bytes; a persisted index
// is never written (the server builds one when an op asks for it).
//
// Cost: encode and decode are linear in the encoded size. The decoder
// validates lengths against the input before it allocates, and limits
// nesting to max_decode_depth, so hostile or truncated input gets an error,
// never an over-read, a giant allocation or a stack overflow.
#pragma once

#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/core/value.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kvmodel::adapters::detail {

// --- Aerospike's particle types (as_bytes_type) -----------------------------------
namespace particle {
inline constexpr std::uint8_t undef = 0;
inline constexpr std::uint8_t integer = 1;
inline constexpr std::uint8_t floating = 2;
inline constexpr std::uint8_t string = 3;
inline constexpr std::uint8_t blob = 4;
inline constexpr std::uint8_t java_blob = 7;
inline constexpr std::uint8_t csharp_blob = 8;
inline constexpr std::uint8_t python_blob = 9;
inline constexpr std::uint8_t ruby_blob = 10;
inline constexpr std::uint8_t php_blob = 11;
inline constexpr std::uint8_t erlang_blob = 12;
inline constexpr std::uint8_t boolean = 17;
inline constexpr std::uint8_t hll = 18;
inline constexpr std::uint8_t map = 19;
inline constexpr std::uint8_t list = 20;
inline constexpr std::uint8_t geojson = 23;
} // namespace particle

// --- flags of the leading ext element ------------------------------------------------
namespace packed_flags {
inline constexpr std::uint8_t list_ordered = 0x01;
inline constexpr std::uint8_t map_k_ordered = 0x01;
inline constexpr std::uint8_t map_v_ordered = 0x02;
inline constexpr std::uint8_t map_kv_ordered = 0x03;
inline constexpr std::uint8_t map_preserve_order = 0x08;
inline constexpr std::uint8_t persist_index = 0x10;
} // namespace packed_flags

/// The ext type clients send INF and WILDCARD as (as_msgpack_ext.h), with one
/// content byte: 1 = INF, 0 = WILDCARD.
inline constexpr std::uint8_t cmp_ext_type = 0xff;

/// Deepest nesting decode_msgpack accepts (the JSON tools' limit too).
inline constexpr std::size_t max_decode_depth = 512;

// --- encoding --------------------------------------------------------------------------

class msgpack_writer {
public:
    explicit msgpack_writer(std::vector<std::uint8_t>& out) : m_out(out) {}

    void byte(std::uint8_t b) { m_out.push_back(b); }
    void be(std::uint64_t v, int n) {
        for (int i = n - 1; i >= 0; --i) m_out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void nil() { byte(0xc0); }
    void boolean(bool b) { byte(b ? 0xc3 : 0xc2); }
    void integer(std::int64_t i) {
        if (i >= 0) {
            auto u = static_cast<std::uint64_t>(i);
            if (u < 128) byte(static_cast<std::uint8_t>(u));
            else if (u < 256) { byte(0xcc); be(u, 1); }
            else if (u < 65536) { byte(0xcd); be(u, 2); }
            else if (u < 4294967296ULL) { byte(0xce); be(u, 4); }
            else { byte(0xcf); be(u, 8); }
            return;
        }
        auto u = static_cast<std::uint64_t>(i);
        if (i >= -32) byte(static_cast<std::uint8_t>(u));
        else if (i >= -128) { byte(0xd0); be(u, 1); }
        else if (i >= -32768) { byte(0xd1); be(u, 2); }
        else if (i >= -2147483648LL) { byte(0xd2); be(u, 4); }
        else { byte(0xd3); be(u, 8); }
    }
    void floating(double d) {
        std::uint64_t u = 0;
        std::memcpy(&u, &d, sizeof u);
        byte(0xcb);
        be(u, 8);
    }
    /// A str element holding the particle-type prefix and the bytes.
    void prefixed(std::uint8_t type, const std::uint8_t* p, std::size_t n) {
        std::size_t len = n + 1;
        if (len < 32) byte(static_cast<std::uint8_t>(0xa0 | len));
        else if (len < 256) { byte(0xd9); be(len, 1); }
        else if (len < 65536) { byte(0xda); be(len, 2); }
        else { byte(0xdb); be(len, 4); }
        byte(type);
        m_out.insert(m_out.end(), p, p + n);
    }
    void array_header(std::size_t n) {
        if (n < 16) byte(static_cast<std::uint8_t>(0x90 | n));
        else if (n < 65536) { byte(0xdc); be(n, 2); }
        else { byte(0xdd); be(n, 4); }
    }
    void map_header(std::size_t n) {
        if (n < 16) byte(static_cast<std::uint8_t>(0x80 | n));
        else if (n < 65536) { byte(0xde); be(n, 2); }
        else { byte(0xdf); be(n, 4); }
    }
    /// An ext element with no content and `type` = flags (what clients send).
    void flags_ext(std::uint8_t flags) {
        byte(0xc7);
        byte(0);
        byte(flags);
    }

private:
    std::vector<std::uint8_t>& m_out;
};

inline void encode_into(msgpack_writer& w, const value& v) {
    switch (v.type()) {
    case value_type::nil: w.nil(); return;
    case value_type::boolean: w.boolean(v.as_bool()); return;
    case value_type::integer: w.integer(v.as_int()); return;
    case value_type::floating: w.floating(v.as_double()); return;
    case value_type::string: {
        const std::string& s = v.as_string();
        w.prefixed(particle::string, reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
        return;
    }
    case value_type::bytes: {
        const bytes& b = v.as_bytes();
        w.prefixed(particle::blob, b.data(), b.size());
        return;
    }
    case value_type::list: {
        const list& l = v.as_list();
        bool ordered = l.is_ordered();
        w.array_header(l.size() + (ordered ? 1 : 0));
        if (ordered) w.flags_ext(packed_flags::list_ordered);
        for (const value& e : l) encode_into(w, e);
        return;
    }
    case value_type::map: {
        const map& m = v.as_map();
        bool ordered = m.order() != map_order::unordered;
        w.map_header(m.size() + (ordered ? 1 : 0));
        if (ordered) {
            w.flags_ext(static_cast<std::uint8_t>(m.order()));
            w.nil();
        }
        // kvmodel maps iterate in Aerospike's key order: what the server
        // stores for every map order.
        for (const map_entry& e : m) {
            encode_into(w, e.key);
            encode_into(w, e.val);
        }
        return;
    }
    case value_type::inf:
    case value_type::wildcard:
        w.byte(0xd4);
        w.byte(cmp_ext_type);
        w.byte(v.is_inf() ? 1 : 0);
        return;
    }
}

/// Appends v in Aerospike's msgpack encoding to out (see the header comment).
/// Complexity: O(encoded size).
inline void encode_msgpack(const value& v, std::vector<std::uint8_t>& out) {
    msgpack_writer w(out);
    encode_into(w, v);
}
inline std::vector<std::uint8_t> encode_msgpack(const value& v) {
    std::vector<std::uint8_t> out;
    encode_msgpack(v, out);
    return out;
}

// --- decoding --------------------------------------------------------------------------

/// Reads Aerospike msgpack. Errors are PARAMETER_ERROR-free client errors
/// (status::client), naming what was wrong and the byte offset.
class msgpack_reader {
public:
    explicit msgpack_reader(std::span<const std::uint8_t> data) : m_begin(data.data()), m_p(data.data()), m_end(data.data() + data.size()) {}
    /// INF and WILDCARD leading a list or map are values, not its flags element.
    void cmp_values(bool on) noexcept { m_cmp_values = on; }

    bool at_end() const noexcept { return m_p == m_end; }
    std::size_t offset() const noexcept { return static_cast<std::size_t>(m_p - m_begin); }

    /// One value. top_map_as_pairs: a map at this level becomes a list of
    /// [key, value] lists in the order sent (KEY_VALUE results).
    result<value> read(bool top_map_as_pairs = false) { return read_value(0, top_map_as_pairs); }

private:
    error bad(const std::string& what) const {
        return error{status::client, "msgpack from server: " + what + " at byte " + std::to_string(offset())};
    }
    bool need(std::size_t n) const noexcept { return static_cast<std::size_t>(m_end - m_p) >= n; }
    std::uint64_t be(int n) noexcept {
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i) v = (v << 8) | *m_p++;
        return v;
    }
    result<std::uint64_t> length(int n) {
        if (!need(static_cast<std::size_t>(n))) return bad("truncated length");
        return be(n);
    }
    // The flags element leading a list or map: any ext (as the C client
    // reads answers), or with m_cmp_values any ext but INF and WILDCARD (as
    // the server reads a client's op arguments).
    bool peek_flags_ext() const noexcept {
        if (!peek_ext()) return false;
        if (!m_cmp_values) return true;
        std::size_t at = *m_p >= 0xd4 ? 1 : (*m_p == 0xc7 ? 2 : (*m_p == 0xc8 ? 3 : 5));
        return static_cast<std::size_t>(m_end - m_p) > at && m_p[at] != cmp_ext_type;
    }
    bool peek_ext() const noexcept {
        if (m_p >= m_end) return false;
        std::uint8_t b = *m_p;
        return (b >= 0xd4 && b <= 0xd8) || (b >= 0xc7 && b <= 0xc9);
    }
    struct ext_element {
        std::uint8_t type = 0;
        std::span<const std::uint8_t> content;
    };
    result<ext_element> read_ext() {
        std::uint8_t b = *m_p++;
        std::uint64_t n = 0;
        switch (b) {
        case 0xd4: n = 1; break;
        case 0xd5: n = 2; break;
        case 0xd6: n = 4; break;
        case 0xd7: n = 8; break;
        case 0xd8: n = 16; break;
        case 0xc7:
        case 0xc8:
        case 0xc9: {
            auto l = length(b == 0xc7 ? 1 : (b == 0xc8 ? 2 : 4));
            if (!l) return l.error();
            n = *l;
            break;
        }
        default: return bad("expected an ext element");
        }
        if (!need(1)) return bad("truncated ext");
        std::uint8_t t = *m_p++;
        if (!need(n)) return bad("truncated ext content");
        ext_element e{t, {m_p, static_cast<std::size_t>(n)}};
        m_p += n;
        return e;
    }
    result<value> str(std::uint64_t n) {
        if (!need(n)) return bad("truncated string");
        const std::uint8_t* s = m_p;
        m_p += n;
        if (n == 0) return value(std::string());
        std::uint8_t t = s[0];
        auto body = static_cast<std::size_t>(n - 1);
        // GeoJSON has no kvmodel type: its JSON text is the closest value.
        if (t == particle::string || t == particle::geojson)
            return value(std::string(reinterpret_cast<const char*>(s + 1), body));
        return value(bytes(s + 1, s + 1 + body));
    }
    result<value> array(std::uint64_t n, std::size_t depth) {
        // Every element takes at least one byte: a count beyond the input is a lie.
        if (!need(n)) return bad("list count " + std::to_string(n) + " exceeds the input");
        list l;
        if (n > 0 && peek_flags_ext()) {
            auto e = read_ext();
            if (!e) return e.error();
            if (e->type & packed_flags::list_ordered) l.set_order_flag(list_order::ordered);
            if (e->type & packed_flags::persist_index) l.set_persist_index(true);
            --n;
        }
        for (std::uint64_t i = 0; i < n; ++i) {
            auto v = read_value(depth + 1, false);
            if (!v) return v;
            l.push_back(std::move(v).value());
        }
        return value(std::move(l));
    }
    result<value> map_value(std::uint64_t n, std::size_t depth, bool as_pairs) {
        if (!need(n)) return bad("map count " + std::to_string(n) + " exceeds the input");
        std::uint8_t flags = 0;
        if (n > 0 && peek_flags_ext()) {
            auto e = read_ext();
            if (!e) return e.error();
            flags = e->type;
            auto nil_value = read_value(depth + 1, false);  // the ext key's value
            if (!nil_value) return nil_value;
            --n;
        }
        if (as_pairs) {
            list pairs;
            for (std::uint64_t i = 0; i < n; ++i) {
                auto k = read_value(depth + 1, false);
                if (!k) return k;
                auto v = read_value(depth + 1, false);
                if (!v) return v;
                pairs.push_back(value(list{std::move(k).value(), std::move(v).value()}));
            }
            return value(std::move(pairs));
        }
        map_order order = map_order::unordered;
        if ((flags & packed_flags::map_kv_ordered) == packed_flags::map_kv_ordered)
            order = map_order::key_value_ordered;
        else if (flags & packed_flags::map_k_ordered)
            order = map_order::key_ordered;
        map m(order);
        if (flags & packed_flags::persist_index) m.set_persist_index(true);
        for (std::uint64_t i = 0; i < n; ++i) {
            auto k = read_value(depth + 1, false);
            if (!k) return k;
            auto v = read_value(depth + 1, false);
            if (!v) return v;
            m.put(std::move(k).value(), std::move(v).value());
        }
        return value(std::move(m));
    }
    result<value> read_value(std::size_t depth, bool top_map_as_pairs) {
        if (depth > max_decode_depth)
            return bad("nesting deeper than " + std::to_string(max_decode_depth) + " levels");
        if (!need(1)) return bad("truncated value");
        std::uint8_t b = *m_p;
        if (peek_ext()) {
            auto e = read_ext();
            if (!e) return e.error();
            if (e->type == cmp_ext_type && e->content.size() == 1) {
                if (e->content[0] == 1) return value(inf);
                if (e->content[0] == 0) return value(wildcard);
            }
            return bad("unexpected ext element of type " + std::to_string(e->type));
        }
        ++m_p;
        if (b <= 0x7f) return value(static_cast<std::int64_t>(b));
        if (b >= 0xe0) return value(static_cast<std::int64_t>(static_cast<std::int8_t>(b)));
        if ((b & 0xf0) == 0x80) return map_value(b & 0x0fu, depth, top_map_as_pairs);
        if ((b & 0xf0) == 0x90) return array(b & 0x0fu, depth);
        if ((b & 0xe0) == 0xa0) return str(b & 0x1fu);
        auto sized = [&](int n) -> result<std::uint64_t> { return length(n); };
        switch (b) {
        case 0xc0: return value();
        case 0xc2: return value(false);
        case 0xc3: return value(true);
        case 0xc4:
        case 0xd9: { auto l = sized(1); if (!l) return l.error(); return str(*l); }
        case 0xc5:
        case 0xda: { auto l = sized(2); if (!l) return l.error(); return str(*l); }
        case 0xc6:
        case 0xdb: { auto l = sized(4); if (!l) return l.error(); return str(*l); }
        case 0xca: {
            if (!need(4)) return bad("truncated float");
            auto u = static_cast<std::uint32_t>(be(4));
            float f = 0;
            std::memcpy(&f, &u, sizeof f);
            return value(static_cast<double>(f));
        }
        case 0xcb: {
            if (!need(8)) return bad("truncated double");
            std::uint64_t u = be(8);
            double d = 0;
            std::memcpy(&d, &u, sizeof d);
            return value(d);
        }
        case 0xcc: if (!need(1)) return bad("truncated integer"); return value(static_cast<std::int64_t>(be(1)));
        case 0xcd: if (!need(2)) return bad("truncated integer"); return value(static_cast<std::int64_t>(be(2)));
        case 0xce: if (!need(4)) return bad("truncated integer"); return value(static_cast<std::int64_t>(be(4)));
        // uint64 beyond INT64_MAX: the integer particle's two's-complement bits.
        case 0xcf: if (!need(8)) return bad("truncated integer"); return value(static_cast<std::int64_t>(be(8)));
        case 0xd0: if (!need(1)) return bad("truncated integer"); return value(static_cast<std::int64_t>(static_cast<std::int8_t>(be(1))));
        case 0xd1: if (!need(2)) return bad("truncated integer"); return value(static_cast<std::int64_t>(static_cast<std::int16_t>(be(2))));
        case 0xd2: if (!need(4)) return bad("truncated integer"); return value(static_cast<std::int64_t>(static_cast<std::int32_t>(be(4))));
        case 0xd3: if (!need(8)) return bad("truncated integer"); return value(static_cast<std::int64_t>(be(8)));
        case 0xdc: { auto l = sized(2); if (!l) return l.error(); return array(*l, depth); }
        case 0xdd: { auto l = sized(4); if (!l) return l.error(); return array(*l, depth); }
        case 0xde: { auto l = sized(2); if (!l) return l.error(); return map_value(*l, depth, top_map_as_pairs); }
        case 0xdf: { auto l = sized(4); if (!l) return l.error(); return map_value(*l, depth, top_map_as_pairs); }
        default: break;
        }
        --m_p;
        return bad("invalid msgpack byte " + std::to_string(b));
    }

    const std::uint8_t* m_begin;
    const std::uint8_t* m_p;
    const std::uint8_t* m_end;
    bool m_cmp_values = false;
};

/// Decodes one complete msgpack value; trailing bytes are an error.
/// Complexity: O(size).
inline result<value> decode_msgpack(std::span<const std::uint8_t> data, bool top_map_as_pairs = false) {
    msgpack_reader r(data);
    auto v = r.read(top_map_as_pairs);
    if (!v) return v;
    if (!r.at_end())
        return error{status::client, "msgpack from server: " + std::to_string(data.size() - r.offset()) +
                                         " trailing bytes after the value"};
    return v;
}

/// A client's op arguments as the server reads them: decode_msgpack, but an
/// INF or WILDCARD leading a list or map is an element, not its flags.
inline result<value> decode_msgpack_args(std::span<const std::uint8_t> data) {
    msgpack_reader r(data);
    r.cmp_values(true);
    auto v = r.read(false);
    if (!v) return v;
    if (!r.at_end())
        return error{status::parameter_error, "msgpack: " + std::to_string(data.size() - r.offset()) +
                                                  " trailing bytes after the value"};
    return v;
}

/// A raw particle (as the C client hands over bins with deserialize off, or
/// blobs of any type) to a value: LIST and MAP are msgpack; every blob type
/// is bytes; GeoJSON is its text. Other types are not raw and are an error.
inline result<value> decode_particle(std::uint8_t type, std::span<const std::uint8_t> data,
                                     bool top_map_as_pairs = false) {
    switch (type) {
    case particle::list:
    case particle::map: return decode_msgpack(data, top_map_as_pairs);
    case particle::geojson:
        return value(std::string(reinterpret_cast<const char*>(data.data()), data.size()));
    case particle::blob:
    case particle::java_blob:
    case particle::csharp_blob:
    case particle::python_blob:
    case particle::ruby_blob:
    case particle::php_blob:
    case particle::erlang_blob:
    case particle::hll: return value(bytes(data.begin(), data.end()));
    default: break;
    }
    return error{status::client, "unexpected raw particle type " + std::to_string(type)};
}

// --- result codes --------------------------------------------------------------------

/// The kvmodel status for an as_status number: the same number for every code
/// kvmodel::status names (server codes and every client code of as_status.h);
/// any other client-side code (a newer client's) is status::client, and
/// `unknown` is set so the caller can put the number in the message.
inline status status_from_code(int code, bool* unknown = nullptr) noexcept {
    auto s = static_cast<status>(code);
    bool named = code >= std::numeric_limits<std::int16_t>::min() &&
                 code <= std::numeric_limits<std::int16_t>::max() && status_name(s) != "UNKNOWN";
    if (unknown != nullptr) *unknown = !named;
    if (named) return s;
    return code < 0 ? status::client : s;
}

/// A C client error (as_error's code, message and in_doubt) as a kvmodel
/// error: the status of the same number, "<what>: <client message>" (plus
/// the number when kvmodel does not name it), and the client's in_doubt. The
/// flag is the client's because only the client knows whether the command
/// was sent and then lost its answer (as_error_set_in_doubt: a write sent
/// more than once, or once and then failed with TIMEOUT or a client-side
/// code), whatever the code: MAX_ERROR_RATE or a refused CONNECTION on a
/// retry after such a send is in doubt, on a first attempt it is not.
inline error client_error(int code, std::string_view message, bool in_doubt, std::string_view what) {
    bool unknown = false;
    const status s = status_from_code(code, &unknown);
    std::string msg = std::string(what) + ": " + std::string(message);
    if (unknown) msg += " (as_status " + std::to_string(code) + ")";
    error e{s, std::move(msg)};
    e.in_doubt = in_doubt;
    return e;
}

// --- hosts -------------------------------------------------------------------------

struct host {
    std::string name;
    std::uint16_t port = 3000;
    friend bool operator==(const host&, const host&) = default;
};

/// Parses "h1[:p1][,h2[:p2]...]" (an IPv6 address in brackets: "[::1]:3000";
/// a bare IPv6 address without a port is accepted too). The default port is
/// 3000. PARAMETER_ERROR on an empty list, an empty host, or a port that is
/// not 1..65535. Complexity: O(length).
inline result<std::vector<host>> parse_hosts(std::string_view text, std::uint16_t default_port = 3000) {
    std::vector<host> out;
    auto bad = [&](const std::string& why) {
        return error{status::parameter_error, "hosts '" + std::string(text) + "': " + why};
    };
    std::size_t pos = 0;
    while (true) {
        std::size_t comma = text.find(',', pos);
        std::string_view item = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (item.empty()) return bad("empty host");
        host h;
        h.port = default_port;
        std::string_view port_text;
        if (item.front() == '[') {
            std::size_t close = item.find(']');
            if (close == std::string_view::npos) return bad("unclosed '[' in '" + std::string(item) + "'");
            h.name = std::string(item.substr(1, close - 1));
            std::string_view rest = item.substr(close + 1);
            if (!rest.empty()) {
                if (rest.front() != ':') return bad("expected ':' after ']' in '" + std::string(item) + "'");
                port_text = rest.substr(1);
                if (port_text.empty()) return bad("empty port in '" + std::string(item) + "'");
            }
        } else {
            std::size_t colon = item.rfind(':');
            if (colon != std::string_view::npos && item.find(':') == colon) {
                h.name = std::string(item.substr(0, colon));
                port_text = item.substr(colon + 1);
                if (port_text.empty()) return bad("empty port in '" + std::string(item) + "'");
            } else {
                h.name = std::string(item);  // no port, or a bare IPv6 address
            }
        }
        if (h.name.empty()) return bad("empty host name in '" + std::string(item) + "'");
        if (!port_text.empty()) {
            unsigned long p = 0;
            for (char c : port_text) {
                if (c < '0' || c > '9') return bad("port '" + std::string(port_text) + "' is not a number");
                p = p * 10 + static_cast<unsigned long>(c - '0');
                if (p > 65535) break;
            }
            if (p < 1 || p > 65535) return bad("port '" + std::string(port_text) + "' is not in 1..65535");
            h.port = static_cast<std::uint16_t>(p);
        }
        out.push_back(std::move(h));
        if (comma == std::string_view::npos) break;
        pos = comma + 1;
    }
    return out;
}

// --- narrowing to the C client's parameter types -----------------------------------

/// An index, rank or bit offset for a C client `int` parameter. Values beyond
/// the int range are clamped: a list, map or blob that fits in a record has far
/// fewer than 2^31 elements or 2^30 bits, so ±2^31−1 is out of range of every
/// container exactly when the original value is, and the server answers the
/// same.
constexpr int clamp_int32(std::int64_t v) noexcept {
    if (v > std::numeric_limits<int>::max()) return std::numeric_limits<int>::max();
    if (v < std::numeric_limits<int>::min()) return std::numeric_limits<int>::min();
    return static_cast<int>(v);
}

/// A size or shift for a C client `uint32_t` parameter. Negative values and
/// values beyond 2^32−1 become 2^32−1: above the server's 2^30-bit cap, so it
/// answers PARAMETER_ERROR as it does for the original value.
constexpr std::uint32_t clamp_uint32(std::int64_t v) noexcept {
    if (v < 0 || v > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max()))
        return std::numeric_limits<std::uint32_t>::max();
    return static_cast<std::uint32_t>(v);
}

/// A count for a C client `uint64_t` parameter: the two's-complement bits,
/// which is what the server reads a negative count as ("to the end").
constexpr std::uint64_t count_bits(std::int64_t v) noexcept {
    return static_cast<std::uint64_t>(v);
}

} // namespace kvmodel::adapters::detail
