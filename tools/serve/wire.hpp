// tools/serve/wire.hpp
//
// Aerospike's wire protocol as `kvmodel serve` reads and writes it, with no
// socket in sight (tests/tools/serve_wire_test.cpp drives it with bytes):
//
// * the proto header: 8 bytes, version 2, a type (1 info, 3 message, 4
//   compressed message) and a 48-bit big-endian body size;
// * the message (as_msg): a 22-byte header (info1..4 bits, result code,
//   generation, record TTL / void time, transaction TTL, field and op counts),
//   then the fields (u32 size, u8 type, data) and the ops (u32 size, u8 op,
//   u8 particle type, u8 flags, u8 name length, name, value);
// * particles: integer and float as 8 big-endian bytes, string and blob raw,
//   boolean one byte, list and map msgpack (adapters/detail/aerospike_wire.hpp);
// * the info protocol: "name\n..." asked, "name\tvalue\n..." answered.
//
// Parsing never trusts a length: every size is checked against what is left
// before anything is read or allocated, so any byte sequence gets a
// PARAMETER_ERROR naming what is wrong (the caller closes the connection),
// never an over-read. Constants are the server's (as/src/base/proto.h) and
// the C client's (as_proto.h, as_command.h).
#pragma once

#include <kvmodel/adapters/detail/aerospike_wire.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/core/value.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kvmodel::tools::serve {

namespace proto {
inline constexpr std::uint8_t version = 2;
inline constexpr std::uint8_t type_info = 1;
inline constexpr std::uint8_t type_admin = 2;
inline constexpr std::uint8_t type_message = 3;
inline constexpr std::uint8_t type_compressed = 4;
inline constexpr std::size_t header_size = 8;
/// The server's PROTO_SIZE_MAX: a larger body closes the connection.
inline constexpr std::uint64_t max_body = std::uint64_t{128} * 1024 * 1024;
/// as_msg's fixed header.
inline constexpr std::size_t msg_header_size = 22;
} // namespace proto

namespace info1 {
inline constexpr std::uint8_t read = 1;
inline constexpr std::uint8_t get_all = 2;
inline constexpr std::uint8_t short_query = 4;
inline constexpr std::uint8_t batch = 8;
inline constexpr std::uint8_t get_no_bins = 32;
inline constexpr std::uint8_t compress_response = 128;
} // namespace info1
namespace info2 {
inline constexpr std::uint8_t write = 1;
inline constexpr std::uint8_t remove = 2;
inline constexpr std::uint8_t generation = 4;
inline constexpr std::uint8_t generation_gt = 8;
inline constexpr std::uint8_t durable_delete = 16;
inline constexpr std::uint8_t create_only = 32;
inline constexpr std::uint8_t respond_all_ops = 128;
} // namespace info2
namespace info3 {
inline constexpr std::uint8_t last = 1;
inline constexpr std::uint8_t commit_master = 2;
inline constexpr std::uint8_t partition_done = 4;
inline constexpr std::uint8_t update_only = 8;
inline constexpr std::uint8_t create_or_replace = 16;
inline constexpr std::uint8_t replace_only = 32;
} // namespace info3

namespace field {
inline constexpr std::uint8_t ns = 0;
inline constexpr std::uint8_t set = 1;
inline constexpr std::uint8_t key = 2;
inline constexpr std::uint8_t digest = 4;
inline constexpr std::uint8_t query_id = 7;
inline constexpr std::uint8_t socket_timeout = 9;
inline constexpr std::uint8_t records_per_second = 10;
inline constexpr std::uint8_t pid_array = 11;
inline constexpr std::uint8_t digest_array = 12;
inline constexpr std::uint8_t max_records = 13;
inline constexpr std::uint8_t bval_array = 15;
inline constexpr std::uint8_t index_name = 21;
inline constexpr std::uint8_t index_range = 22;
inline constexpr std::uint8_t index_context = 23;
inline constexpr std::uint8_t index_type = 26;
inline constexpr std::uint8_t udf_package = 30;
inline constexpr std::uint8_t query_binlist = 40;
inline constexpr std::uint8_t batch_index = 41;
inline constexpr std::uint8_t filter_exp = 43;
} // namespace field

namespace opcode {
inline constexpr std::uint8_t read = 1;
inline constexpr std::uint8_t write = 2;
inline constexpr std::uint8_t cdt_read = 3;
inline constexpr std::uint8_t cdt_modify = 4;
inline constexpr std::uint8_t incr = 5;
inline constexpr std::uint8_t exp_read = 7;
inline constexpr std::uint8_t exp_modify = 8;
inline constexpr std::uint8_t append = 9;
inline constexpr std::uint8_t prepend = 10;
inline constexpr std::uint8_t touch = 11;
inline constexpr std::uint8_t bit_read = 12;
inline constexpr std::uint8_t bit_modify = 13;
inline constexpr std::uint8_t remove = 14;
inline constexpr std::uint8_t hll_read = 15;
inline constexpr std::uint8_t hll_modify = 16;
} // namespace opcode

namespace particle = adapters::detail::particle;

/// Big-endian reads and writes of n <= 8 bytes.
inline std::uint64_t get_be(const std::uint8_t* p, std::size_t n) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i)
        v = (v << 8) | p[i];
    return v;
}
inline void put_be(std::vector<std::uint8_t>& out, std::uint64_t v, std::size_t n) {
    for (std::size_t i = n; i > 0; --i)
        out.push_back(static_cast<std::uint8_t>(v >> (8 * (i - 1))));
}

/// A parsed proto header.
struct proto_header {
    std::uint8_t version = 0;
    std::uint8_t type = 0;
    std::uint64_t size = 0;
};

/// The 8 header bytes; PARAMETER_ERROR for a version other than 2, an
/// unknown type or a body over proto::max_body.
inline result<proto_header>
parse_proto_header(std::span<const std::uint8_t, proto::header_size> b) {
    proto_header h{b[0], b[1], get_be(b.data() + 2, 6)};
    if (h.version != proto::version)
        return fail(status::parameter_error,
                    "proto: version " + std::to_string(h.version) + ", expected 2");
    if (h.type != proto::type_info && h.type != proto::type_message &&
        h.type != proto::type_compressed && h.type != proto::type_admin)
        return fail(status::parameter_error, "proto: unknown type " + std::to_string(h.type));
    if (h.size > proto::max_body)
        return fail(status::parameter_error,
                    "proto: body of " + std::to_string(h.size) + " bytes, max " +
                        std::to_string(proto::max_body));
    return h;
}

/// as_msg's fixed header.
struct msg_header {
    std::uint8_t info1 = 0;
    std::uint8_t info2 = 0;
    std::uint8_t info3 = 0;
    std::uint8_t info4 = 0;
    std::uint8_t result_code = 0;
    std::uint32_t generation = 0;
    std::uint32_t record_ttl = 0;
    std::uint32_t transaction_ttl = 0;
    std::uint16_t n_fields = 0;
    std::uint16_t n_ops = 0;
};

/// One field: its type and bytes (a view into the message).
struct wire_field {
    std::uint8_t type = 0;
    std::span<const std::uint8_t> data;
};

/// One op: op type, particle type, name and value bytes (views).
struct wire_op {
    std::uint8_t op = 0;
    std::uint8_t particle_type = 0;
    std::uint8_t flags = 0;
    std::string_view name;
    std::span<const std::uint8_t> data;
};

/// A parsed message: views into the body it was parsed from.
struct message {
    msg_header h;
    std::vector<wire_field> fields;
    std::vector<wire_op> ops;
    /// A batch row's digest (the row carries it outside the fields).
    std::span<const std::uint8_t> row_digest;

    /// The first field of this type, or nullptr.
    const wire_field* find(std::uint8_t type) const noexcept {
        for (const wire_field& f : fields)
            if (f.type == type)
                return &f;
        return nullptr;
    }
};

/// A reader over a byte span that refuses to run past its end.
class reader {
public:
    reader() noexcept = default;
    explicit reader(std::span<const std::uint8_t> b) noexcept
        : m_b(b) {}
    std::size_t left() const noexcept { return m_b.size() - m_at; }
    std::size_t offset() const noexcept { return m_at; }
    bool need(std::size_t n) const noexcept { return left() >= n; }
    std::uint64_t be(std::size_t n) noexcept {
        std::uint64_t v = get_be(m_b.data() + m_at, n);
        m_at += n;
        return v;
    }
    std::span<const std::uint8_t> take(std::size_t n) noexcept {
        auto s = m_b.subspan(m_at, n);
        m_at += n;
        return s;
    }

private:
    std::span<const std::uint8_t> m_b;
    std::size_t m_at = 0;
};

namespace detail {
[[gnu::cold]] inline error bad_message(const std::string& what, std::size_t at) {
    return error{status::parameter_error, "message: " + what + " at byte " + std::to_string(at)};
}
} // namespace detail

/// Reads m.h.n_fields fields and m.h.n_ops ops from r into m.
inline result<void> parse_fields_ops(reader& r, message& m) {
    // Each field takes at least 5 bytes and each op 8: counts the body
    // cannot hold are refused before anything is reserved.
    if (std::size_t{m.h.n_fields} * 5 + std::size_t{m.h.n_ops} * 8 > r.left())
        return detail::bad_message(std::to_string(m.h.n_fields) + " fields and " +
                                       std::to_string(m.h.n_ops) + " ops do not fit in " +
                                       std::to_string(r.left()) + " bytes",
                                   r.offset());
    m.fields.reserve(m.h.n_fields);
    for (std::uint16_t i = 0; i < m.h.n_fields; ++i) {
        if (!r.need(5))
            return detail::bad_message("truncated field header", r.offset());
        auto size = r.be(4);
        if (size < 1 || size - 1 > r.left() - 1)
            return detail::bad_message("field size " + std::to_string(size) + " runs past the end",
                                       r.offset());
        wire_field f;
        f.type = static_cast<std::uint8_t>(r.be(1));
        f.data = r.take(static_cast<std::size_t>(size - 1));
        m.fields.push_back(f);
    }
    m.ops.reserve(m.h.n_ops);
    for (std::uint16_t i = 0; i < m.h.n_ops; ++i) {
        if (!r.need(8))
            return detail::bad_message("truncated op header", r.offset());
        auto size = r.be(4);
        if (size < 4 || size - 4 > r.left() - 4)
            return detail::bad_message("op size " + std::to_string(size) + " runs past the end",
                                       r.offset());
        wire_op o;
        o.op = static_cast<std::uint8_t>(r.be(1));
        o.particle_type = static_cast<std::uint8_t>(r.be(1));
        o.flags = static_cast<std::uint8_t>(r.be(1));
        auto name_len = static_cast<std::size_t>(r.be(1));
        if (name_len > size - 4)
            return detail::bad_message("op name of " + std::to_string(name_len) +
                                           " bytes in an op of " + std::to_string(size),
                                       r.offset());
        auto name = r.take(name_len);
        o.name = std::string_view(reinterpret_cast<const char*>(name.data()), name.size());
        o.data = r.take(static_cast<std::size_t>(size - 4 - name_len));
        m.ops.push_back(o);
    }
    return {};
}

/// Parses one message at the start of `body`; `used` gets its length (a
/// batch or a stream may hold several). The fields and ops view `body`.
inline result<message> parse_message(std::span<const std::uint8_t> body, std::size_t& used) {
    reader r(body);
    if (!r.need(proto::msg_header_size))
        return detail::bad_message(
            "header of " + std::to_string(body.size()) + " bytes, expected 22", 0);
    message m;
    auto header_size = r.be(1);
    if (header_size != proto::msg_header_size)
        return detail::bad_message("header size " + std::to_string(header_size) + ", expected 22",
                                   0);
    m.h.info1 = static_cast<std::uint8_t>(r.be(1));
    m.h.info2 = static_cast<std::uint8_t>(r.be(1));
    m.h.info3 = static_cast<std::uint8_t>(r.be(1));
    m.h.info4 = static_cast<std::uint8_t>(r.be(1));
    m.h.result_code = static_cast<std::uint8_t>(r.be(1));
    m.h.generation = static_cast<std::uint32_t>(r.be(4));
    m.h.record_ttl = static_cast<std::uint32_t>(r.be(4));
    m.h.transaction_ttl = static_cast<std::uint32_t>(r.be(4));
    m.h.n_fields = static_cast<std::uint16_t>(r.be(2));
    m.h.n_ops = static_cast<std::uint16_t>(r.be(2));
    if (auto ok = parse_fields_ops(r, m); !ok)
        return ok.error();
    used = r.offset();
    return m;
}

/// A whole message body (exactly one message).
inline result<message> parse_message(std::span<const std::uint8_t> body) {
    std::size_t used = 0;
    auto m = parse_message(body, used);
    if (m && used != body.size())
        return detail::bad_message(std::to_string(body.size() - used) + " trailing bytes", used);
    return m;
}

namespace batch_msg {
inline constexpr std::uint8_t read = 0x0;
inline constexpr std::uint8_t repeat = 0x1;
inline constexpr std::uint8_t info = 0x2;
inline constexpr std::uint8_t gen = 0x4;
inline constexpr std::uint8_t ttl = 0x8;
inline constexpr std::uint8_t info4 = 0x10;
} // namespace batch_msg

/// One key of a batch index request.
struct batch_row {
    std::uint32_t index = 0; ///< the key's position in the client's batch
    message m;               ///< its command (row_digest set)
};

/// The rows of a batch index field (u32 count, u8 flags, then per key: u32
/// index, 20-byte digest, u8 row type and what the type says follows). A
/// REPEAT row reuses the previous row's command with its own digest. The
/// rows view `data`; `parent` gives the transaction TTL.
inline result<std::vector<batch_row>> parse_batch(std::span<const std::uint8_t> data,
                                                  const msg_header& parent) {
    reader r(data);
    if (!r.need(5))
        return detail::bad_message("batch field of " + std::to_string(data.size()) + " bytes", 0);
    auto n = r.be(4);
    r.be(1); // allow inline: every answer is computed the same way here
    if (n * 25 > r.left())
        return detail::bad_message(std::to_string(n) + " batch keys do not fit in " +
                                       std::to_string(r.left()) + " bytes",
                                   r.offset());
    std::vector<batch_row> rows;
    rows.reserve(static_cast<std::size_t>(n));
    for (std::uint64_t i = 0; i < n; ++i) {
        if (!r.need(25))
            return detail::bad_message("truncated batch key", r.offset());
        batch_row row;
        row.index = static_cast<std::uint32_t>(r.be(4));
        auto digest = r.take(20);
        auto type = static_cast<std::uint8_t>(r.be(1));
        if (type == batch_msg::repeat) {
            if (rows.empty())
                return detail::bad_message("batch REPEAT with no key before it", r.offset());
            row.m = rows.back().m;
        } else {
            message& m = row.m;
            m.h.transaction_ttl = parent.transaction_ttl;
            if (type == batch_msg::read) {
                if (!r.need(1))
                    return detail::bad_message("truncated batch key", r.offset());
                m.h.info1 = static_cast<std::uint8_t>(r.be(1));
            } else {
                std::size_t need =
                    ((type & batch_msg::info) ? 3U : 0U) + ((type & batch_msg::info4) ? 1U : 0U) +
                    ((type & batch_msg::gen) ? 2U : 0U) + ((type & batch_msg::ttl) ? 4U : 0U);
                if (!r.need(need))
                    return detail::bad_message("truncated batch key", r.offset());
                if (type & batch_msg::info) {
                    m.h.info1 = static_cast<std::uint8_t>(r.be(1));
                    m.h.info2 = static_cast<std::uint8_t>(r.be(1));
                    m.h.info3 = static_cast<std::uint8_t>(r.be(1));
                }
                if (type & batch_msg::info4)
                    m.h.info4 = static_cast<std::uint8_t>(r.be(1));
                if (type & batch_msg::gen)
                    m.h.generation = static_cast<std::uint32_t>(r.be(2));
                if (type & batch_msg::ttl)
                    m.h.record_ttl = static_cast<std::uint32_t>(r.be(4));
            }
            if (!r.need(4))
                return detail::bad_message("truncated batch key", r.offset());
            m.h.n_fields = static_cast<std::uint16_t>(r.be(2));
            m.h.n_ops = static_cast<std::uint16_t>(r.be(2));
            if (auto ok = parse_fields_ops(r, m); !ok)
                return ok.error();
        }
        row.m.row_digest = digest;
        rows.push_back(std::move(row));
    }
    return rows;
}

/// A particle's bytes as a value: PARAMETER_ERROR for a size the type cannot
/// have, malformed msgpack or a type kvmodel does not store (GeoJSON is its
/// text, HLL and language blobs are bytes).
inline result<value> particle_value(std::uint8_t type, std::span<const std::uint8_t> data) {
    switch (type) {
    case particle::undef:
        return value();
    case particle::integer:
        if (data.size() != 8)
            return fail(status::parameter_error,
                        "particle: integer of " + std::to_string(data.size()) +
                            " bytes, expected 8");
        return value(static_cast<std::int64_t>(get_be(data.data(), 8)));
    case particle::floating:
        if (data.size() != 8)
            return fail(status::parameter_error,
                        "particle: float of " + std::to_string(data.size()) + " bytes, expected 8");
        return value(std::bit_cast<double>(get_be(data.data(), 8)));
    case particle::string:
        return value(std::string(reinterpret_cast<const char*>(data.data()), data.size()));
    case particle::boolean:
        if (data.size() != 1)
            return fail(status::parameter_error,
                        "particle: boolean of " + std::to_string(data.size()) +
                            " bytes, expected 1");
        return value(data[0] != 0);
    default:
        break;
    }
    auto v = adapters::detail::decode_particle(type, data);
    if (!v)
        return fail(status::parameter_error, "particle: " + v.error().message);
    return v;
}

/// Appends v's particle bytes to out; returns its particle type.
inline std::uint8_t append_particle(const value& v, std::vector<std::uint8_t>& out) {
    switch (v.type()) {
    case value_type::nil:
        return particle::undef;
    case value_type::boolean:
        out.push_back(v.as_bool() ? 1 : 0);
        return particle::boolean;
    case value_type::integer:
        put_be(out, static_cast<std::uint64_t>(v.as_int()), 8);
        return particle::integer;
    case value_type::floating:
        put_be(out, std::bit_cast<std::uint64_t>(v.as_double()), 8);
        return particle::floating;
    case value_type::string:
        out.insert(out.end(), v.as_string().begin(), v.as_string().end());
        return particle::string;
    case value_type::bytes:
        out.insert(out.end(), v.as_bytes().begin(), v.as_bytes().end());
        return particle::blob;
    case value_type::list:
        adapters::detail::encode_msgpack(v, out);
        return particle::list;
    case value_type::map:
        adapters::detail::encode_msgpack(v, out);
        return particle::map;
    default: // inf / wildcard are never stored: as msgpack, what they are
        adapters::detail::encode_msgpack(v, out);
        return particle::list;
    }
}

/// A list of [key, value] pairs (a KEY_VALUE result as cdt::apply gives it)
/// as the msgpack map the server sends, entries in the same order: led by
/// the PRESERVE_ORDER flags element (ext 0x08, then nil), even when empty,
/// which the C client (and so the Node and Python clients) decodes as a flat
/// list [k1, v1, k2, v2, ...] in that order, not as a map.
inline void append_pairs_as_map(const list& pairs, std::vector<std::uint8_t>& out) {
    adapters::detail::msgpack_writer w(out);
    w.map_header(pairs.size() + 1);
    w.flags_ext(adapters::detail::packed_flags::map_preserve_order);
    w.nil();
    for (const value& p : pairs) {
        const list& kv = p.as_list();
        adapters::detail::encode_into(w, kv[0]);
        adapters::detail::encode_into(w, kv[1]);
    }
}

/// Builds one response message (or several, for a stream) into a buffer:
/// begin() writes the proto header and as_msg header, field() and op()
/// append, end() patches the sizes and counts.
class msg_writer {
public:
    /// Starts a message in the same buffer (a batch or scan response holds
    /// several as_msg in one proto body: pass proto_header = false for those
    /// after the first and call end_proto() once).
    void begin(std::uint8_t result_code,
               std::uint32_t generation,
               std::uint32_t void_time,
               std::uint8_t i3 = 0,
               std::uint32_t batch_index = 0) {
        if (m_proto_at == npos) {
            m_proto_at = m_out.size();
            m_out.push_back(proto::version);
            m_out.push_back(proto::type_message);
            put_be(m_out, 0, 6);
        }
        m_msg_at = m_out.size();
        m_out.push_back(static_cast<std::uint8_t>(proto::msg_header_size));
        m_out.push_back(0);
        m_out.push_back(0);
        m_out.push_back(i3);
        m_out.push_back(0);
        m_out.push_back(result_code);
        put_be(m_out, generation, 4);
        put_be(m_out, void_time, 4);
        put_be(m_out, batch_index, 4); // transaction_ttl: the batch index in batch answers
        put_be(m_out, 0, 2);
        put_be(m_out, 0, 2);
        m_fields = 0;
        m_ops = 0;
    }
    void field(std::uint8_t type, std::span<const std::uint8_t> data) {
        put_be(m_out, data.size() + 1, 4);
        m_out.push_back(type);
        m_out.insert(m_out.end(), data.begin(), data.end());
        ++m_fields;
    }
    /// An op holding a value; `pairs_as_map`: a KEY_VALUE result list sent
    /// as a map; `hll`: bytes sent as an HLL particle (a sketch).
    void op(std::string_view name, const value& v, bool pairs_as_map = false, bool hll = false) {
        std::size_t at = m_out.size();
        put_be(m_out, 0, 4);
        m_out.push_back(opcode::read);
        std::size_t type_at = m_out.size();
        m_out.push_back(0);
        m_out.push_back(0);
        m_out.push_back(static_cast<std::uint8_t>(name.size()));
        m_out.insert(m_out.end(), name.begin(), name.end());
        std::uint8_t type = 0;
        if (pairs_as_map && v.is_list()) {
            append_pairs_as_map(v.as_list(), m_out);
            type = particle::map;
        } else {
            type = append_particle(v, m_out);
            if (hll && type == particle::blob)
                type = adapters::detail::particle::hll;
        }
        m_out[type_at] = type;
        patch(at, m_out.size() - at - 4, 4);
        ++m_ops;
    }
    /// Ends the current as_msg (its counts).
    void end() {
        patch(m_msg_at + 18, m_fields, 2);
        patch(m_msg_at + 20, m_ops, 2);
    }
    /// Ends the proto body (its size); the next begin() starts a new proto.
    void end_proto() {
        patch(m_proto_at + 2, m_out.size() - m_proto_at - proto::header_size, 6);
        m_proto_at = npos;
    }
    std::vector<std::uint8_t>& bytes() noexcept { return m_out; }
    std::size_t size() const noexcept { return m_out.size(); }

private:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
    void patch(std::size_t at, std::uint64_t v, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i)
            m_out[at + i] = static_cast<std::uint8_t>(v >> (8 * (n - 1 - i)));
    }
    std::vector<std::uint8_t> m_out;
    std::size_t m_proto_at = npos;
    std::size_t m_msg_at = 0;
    std::uint16_t m_fields = 0;
    std::uint16_t m_ops = 0;
};

/// An info answer framed as a proto of type 1.
inline std::vector<std::uint8_t> info_frame(std::string_view text) {
    std::vector<std::uint8_t> out;
    out.reserve(proto::header_size + text.size());
    out.push_back(proto::version);
    out.push_back(proto::type_info);
    put_be(out, text.size(), 6);
    out.insert(out.end(), text.begin(), text.end());
    return out;
}

} // namespace kvmodel::tools::serve
