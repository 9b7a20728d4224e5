// tests/core/msgpack_size_test.cpp
//
// packed_size(v) against the length of a real msgpack encoding of v made with
// msgpack-cxx, written the way Aerospike stores a CDT (AEROSPIKE-RECORDS.md):
// strings and blobs as msgpack str with a one-byte particle-type prefix inside
// (3 string, 4 blob), integers in their smallest form, doubles as float64, an
// ORDERED list or K/KV-ORDERED map led by one ext element (a map's as the key
// of a pair whose value is nil) carrying the persisted index, INF/WILDCARD as
// fixext1. Random values (flags included) and every header boundary.
#include <kvmodel/core/msgpack_size.hpp>

#include "random_value.hpp"

#include <catch2/catch.hpp>
#include <msgpack.hpp>

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace core_msgpack_size_test {

using namespace kvmodel;

namespace {

// ---- the reference encoder ------------------------------------------------------

// Persisted-index entry width, per AEROSPIKE-RECORDS.md.
std::size_t width(std::size_t x) {
    if (x < (std::size_t{1} << 8)) return 1;
    if (x < (std::size_t{1} << 16)) return 2;
    if (x < (std::size_t{1} << 24)) return 3;
    return 4;
}

std::string encode(const value& v);

using sizes = std::vector<std::size_t>;

// A str whose first byte is Aerospike's particle type.
std::string typed_str(char type, const char* data, std::size_t n) {
    msgpack::sbuffer buf(32); // small: most encodings are a few bytes
    msgpack::packer<msgpack::sbuffer> p(buf);
    p.pack_str(static_cast<std::uint32_t>(n + 1));
    p.pack_str_body(&type, 1);
    p.pack_str_body(data, static_cast<std::uint32_t>(n));
    return std::string(buf.data(), buf.size());
}

// An ext element with c content bytes of the given type.
std::string ext(std::size_t c, std::int8_t type, char fill = 0) {
    msgpack::sbuffer buf(32); // small: most encodings are a few bytes
    msgpack::packer<msgpack::sbuffer> p(buf);
    p.pack_ext(c, type);
    std::string body(c, fill);
    p.pack_ext_body(body.data(), static_cast<std::uint32_t>(c));
    return std::string(buf.data(), buf.size());
}

std::string encode(const value& v) {
    msgpack::sbuffer buf(32); // small: most encodings are a few bytes
    msgpack::packer<msgpack::sbuffer> p(buf);
    switch (v.type()) {
    case value_type::nil: p.pack_nil(); break;
    case value_type::boolean:
        if (v.as_bool()) p.pack_true();
        else p.pack_false();
        break;
    case value_type::integer:
        if (v.as_int() >= 0) p.pack_uint64(static_cast<std::uint64_t>(v.as_int()));
        else p.pack_int64(v.as_int());
        break;
    case value_type::floating: {
        // Always float64 (0xcb), as Aerospike stores doubles. Not pack_double:
        // msgpack-cxx 4 packs integral doubles (0.0, -0.0, 5.0) as integers.
        auto bits = std::bit_cast<std::uint64_t>(v.as_double());
        char raw[9] = {'\xcb'};
        for (int i = 0; i < 8; ++i) raw[1 + i] = static_cast<char>((bits >> (56 - 8 * i)) & 0xff);
        buf.write(raw, sizeof raw);
        break;
    }
    case value_type::string: return typed_str('\x03', v.as_string().data(), v.as_string().size());
    case value_type::bytes:
        return typed_str('\x04', reinterpret_cast<const char*>(v.as_bytes().data()), v.as_bytes().size());
    case value_type::inf: return ext(1, -1, '\x01');      // d4 ff 01
    case value_type::wildcard: return ext(1, -1, '\x00'); // d4 ff 00
    case value_type::list: {
        const list& l = v.as_list();
        std::string body;
        for (const value& e : l) body += encode(e);
        std::size_t n = l.size();
        bool has_ext = l.is_ordered() || l.persist_index();
        std::size_t c = 0;
        if (l.persist_index() && n > 1) {
            if (l.is_ordered()) {
                c = n * width(body.size());
            } else {
                std::size_t k = (n - 1) / 128;
                c = k >= 1 ? (k + 1) * width(body.size()) : 0;
            }
        }
        p.pack_array(static_cast<std::uint32_t>(n + (has_ext ? 1 : 0)));
        std::string out(buf.data(), buf.size());
        if (has_ext) out += ext(c, l.is_ordered() ? 1 : 0);
        return out + body;
    }
    case value_type::map: {
        const map& m = v.as_map();
        std::string body;
        for (const map_entry& e : m) body += encode(e.key) + encode(e.val);
        std::size_t n = m.size();
        // A persisted index makes even an UNORDERED map carry the ext pair
        // and a key offset index, as a K_ORDERED one does.
        bool ordered = m.order() != map_order::unordered || m.persist_index();
        std::size_t c = 0;
        if (ordered && m.persist_index() && n > 1) {
            c = n * width(body.size());
            if (m.order() == map_order::key_value_ordered) c += n * width(n);
        }
        p.pack_map(static_cast<std::uint32_t>(n + (ordered ? 1 : 0)));
        std::string out(buf.data(), buf.size());
        if (ordered) {
            out += ext(c, static_cast<std::int8_t>(m.order() == map_order::unordered
                                                       ? map_order::key_ordered
                                                       : m.order()));
            out += encode(value{}); // the ext key's nil value
        }
        return out + body;
    }
    }
    return std::string(buf.data(), buf.size());
}

// The encoding is well-formed msgpack: one object, every byte used.
bool well_formed(const std::string& bytes) {
    std::size_t off = 0;
    try {
        msgpack::object_handle oh = msgpack::unpack(bytes.data(), bytes.size(), off);
        (void)oh;
    } catch (const std::exception&) {
        return false;
    }
    return off == bytes.size();
}

void check_size(const value& v) {
    std::string enc = encode(v);
    if (packed_size(v) != enc.size() || !well_formed(enc)) {
        INFO("value " << (to_string(v).size() > 400 ? to_string(v).substr(0, 400) + "..." : to_string(v)));
        CHECK(packed_size(v) == enc.size());
        CHECK(well_formed(enc));
    }
}

list ints(std::size_t n, std::int64_t x = 0) {
    return list(std::vector<value>(n, value{x}));
}

map int_map(std::size_t n, map_order order = map_order::unordered) {
    map m(order);
    for (std::size_t i = 0; i < n; ++i) m.put(static_cast<std::int64_t>(i), 0);
    return m;
}

} // namespace

TEST_CASE("packed_size equals the msgpack-cxx encoding of random values", "[core][msgpack_size]") {
    INFO("seed " << test::seed() << " (KVMODEL_SEED to replay)");
    test::value_gen g(test::seed_for("msgpack_size/random"));
    g.flags = true;
    g.allow_inf = true;
    g.wildcard_pct = 1;
    const std::size_t n = test::fuzz_ops(12000);
    std::size_t bytes_total = 0;
    for (std::size_t i = 0; i < n; ++i) {
        value v;
        if (g.chance(3)) {
            // A flat list or map around the 15/16 header boundary.
            std::size_t len = 13 + g.index(6);
            if (g.chance(50)) {
                list l;
                for (std::size_t j = 0; j < len; ++j) l.push_back(g.scalar());
                if (g.chance(50)) {
                    l.sort();
                    l.set_order_flag(list_order::ordered);
                }
                l.set_persist_index(g.chance(30));
                v = l;
            } else {
                map m(g.chance(50) ? map_order::key_value_ordered : map_order::unordered);
                while (m.size() < len) m.put(g.integer(), g.scalar());
                m.set_persist_index(g.chance(30));
                v = m;
            }
        } else {
            v = g.any();
        }
        bytes_total += packed_size(v);
        check_size(v);
    }
    WARN("msgpack_size: " << n << " random values, " << bytes_total << " bytes, seed "
                          << test::seed());
}

TEST_CASE("headers match msgpack-cxx for every length up to 70000", "[core][msgpack_size]") {
    for (std::size_t n = 0; n <= 70000; ++n) {
        msgpack::sbuffer s;
        msgpack::packer<msgpack::sbuffer> p(s);
        p.pack_str(static_cast<std::uint32_t>(n));
        std::size_t str = s.size();
        s.clear();
        p.pack_array(static_cast<std::uint32_t>(n));
        std::size_t arr = s.size();
        s.clear();
        p.pack_map(static_cast<std::uint32_t>(n));
        std::size_t mp = s.size();
        s.clear();
        p.pack_ext(n, 1);
        std::size_t ex = s.size();
        if (msgpack_size::str_header(n) != str || msgpack_size::array_header(n) != arr ||
            msgpack_size::map_header(n) != mp || msgpack_size::ext_header(n) != ex) {
            INFO("n = " << n);
            CHECK(msgpack_size::str_header(n) == str);
            CHECK(msgpack_size::array_header(n) == arr);
            CHECK(msgpack_size::map_header(n) == mp);
            CHECK(msgpack_size::ext_header(n) == ex);
        }
    }
    // The 32-bit forms, without building 4 GiB.
    CHECK(msgpack_size::str_header(std::size_t{1} << 32 >> 1) == 5);
    CHECK(msgpack_size::array_header(4000000000U) == 5);
    CHECK(msgpack_size::ext_header(100000) == 6);
}

TEST_CASE("integer boundaries: fixint, uint8/16/32/64, negative fixint, int8/16/32/64",
          "[core][msgpack_size]") {
    struct edge {
        std::int64_t v;
        std::size_t size;
    };
    const std::int64_t i64max = std::numeric_limits<std::int64_t>::max();
    const std::int64_t i64min = std::numeric_limits<std::int64_t>::min();
    const std::vector<edge> edges = {
        {0, 1},           {127, 1},         {128, 2},         {255, 2},         {256, 3},
        {65535, 3},       {65536, 5},       {4294967295LL, 5}, {4294967296LL, 9}, {i64max, 9},
        {-1, 1},          {-32, 1},         {-33, 2},         {-128, 2},        {-129, 3},
        {-32768, 3},      {-32769, 5},      {-2147483648LL, 5}, {-2147483649LL, 9}, {i64min, 9},
    };
    for (const edge& e : edges) {
        INFO("integer " << e.v);
        CHECK(packed_size(e.v) == e.size);
        CHECK(encode(e.v).size() == e.size);
        CHECK(msgpack_size::integer(e.v) == e.size);
    }
    // uint64 values above INT64_MAX are stored as their int64 bit pattern,
    // i.e. negative: 9 bytes (int64), as the server stores them.
    CHECK(packed_size(std::numeric_limits<std::uint64_t>::max()) == 1); // == -1
    CHECK(packed_size(std::uint64_t{1} << 63) == 9);
}

TEST_CASE("string and blob boundaries: fixstr, str8, str16, str32 (prefix byte included)",
          "[core][msgpack_size]") {
    // Payload = length + 1 (the particle-type prefix): fixstr up to 31.
    for (std::size_t len : sizes{0, 1, 29, 30, 31, 32, 253, 254, 255, 256, 65533, 65534, 65535, 65536, 70000}) {
        INFO("length " << len);
        value s{std::string(len, 'x')};
        value b{bytes(len, 0xab)};
        check_size(s);
        check_size(b);
        std::size_t header = len + 1 < 32 ? 1 : (len + 1 < 256 ? 2 : (len + 1 < 65536 ? 3 : 5));
        CHECK(packed_size(s) == header + len + 1);
        CHECK(packed_size(b) == header + len + 1);
    }
}

TEST_CASE("blobs use the msgpack str family, as Aerospike stores them", "[core][msgpack_size]") {
    // Rule (AEROSPIKE-RECORDS.md), checked against the sources: the C client
    // (aerospike-common as_msgpack.c, pack_bytes -> "Use string header codes
    // for byte arrays") packs blobs with str headers; the server accepts
    // bin8/16/32 but its msgpack_compactify rewrites them as str. So a short
    // blob takes a one-byte fixstr header, where msgpack's bin8 would take two.
    value b{bytes(5, 1)};
    CHECK(packed_size(b) == 1 + 1 + 5);
    msgpack::sbuffer s;
    msgpack::packer<msgpack::sbuffer> p(s);
    p.pack_bin(6);
    CHECK(s.size() + 6 == packed_size(b) + 1); // the bin form would be one byte longer
    CHECK(static_cast<unsigned char>(encode(b)[0]) == 0xa6); // fixstr of 6
    CHECK(static_cast<unsigned char>(encode(b)[1]) == 0x04); // AS_BYTES_BLOB
    CHECK(static_cast<unsigned char>(encode(value{"x"})[1]) == 0x03); // AS_BYTES_STRING
}

TEST_CASE("container boundaries: fixarray/array16/array32 and fixmap/map16/map32",
          "[core][msgpack_size]") {
    SECTION("lists") {
        for (std::size_t n : sizes{0, 1, 14, 15, 16, 17, 65534, 65535, 65536, 65537}) {
            INFO("n = " << n);
            list l = ints(n);
            check_size(l);
            std::size_t header = n < 16 ? 1 : (n < 65536 ? 3 : 5);
            CHECK(packed_size(l) == header + n);
            // ORDERED: one more element (the ext), 3 bytes more plus any header growth.
            list o = l;
            o.set_order_flag(list_order::ordered);
            check_size(o);
            std::size_t oheader = n + 1 < 16 ? 1 : (n + 1 < 65536 ? 3 : 5);
            CHECK(packed_size(o) == oheader + 3 + n);
        }
    }
    SECTION("maps") {
        for (std::size_t n : sizes{0, 1, 14, 15, 16, 65534, 65535, 65536}) {
            INFO("n = " << n);
            map m = int_map(n);
            check_size(m);
            std::size_t header = n < 16 ? 1 : (n < 65536 ? 3 : 5);
            std::size_t body = packed_size(m) - header;
            for (map_order o : {map_order::key_ordered, map_order::key_value_ordered}) {
                map k = m;
                k.set_order(o);
                check_size(k);
                // K/KV-ORDERED: ext key (3) + nil value (1), plus header growth.
                std::size_t kheader = n + 1 < 16 ? 1 : (n + 1 < 65536 ? 3 : 5);
                CHECK(packed_size(k) == kheader + 4 + body);
            }
        }
    }
    SECTION("nested") {
        list inner = ints(16, 300);
        inner.set_order_flag(list_order::ordered);
        map m(map_order::key_ordered);
        m.put("k", inner);
        m.put(1, list{inner, map{{1, 2}}});
        check_size(list{m, inner, value{inf}, value{wildcard}});
    }
}

TEST_CASE("persisted index: ext content lengths across every ext header form",
          "[core][msgpack_size]") {
    SECTION("ORDERED list: n x width(body)") {
        // 1-byte elements: body = n, so c = n (n < 256) or 2n.
        for (std::size_t n : sizes{1, 2, 3, 4, 5, 8, 16, 17, 255, 256, 1000, 32767, 32768, 40000}) {
            INFO("n = " << n);
            list l = ints(n);
            l.set_order_flag(list_order::ordered);
            l.set_persist_index(true);
            check_size(l);
        }
        // Wider entries: body >= 2^16 (width 3) and >= 2^24 (width 4).
        for (std::size_t len : sizes{40000, 8400000}) {
            list l{std::string(len, 'a'), std::string(len, 'b')};
            l.set_order_flag(list_order::ordered);
            l.set_persist_index(true);
            check_size(l);
            std::size_t elem = msgpack_size::str_header(len + 1) + len + 1;
            std::size_t w = 2 * elem < (std::size_t{1} << 24) ? 3 : 4;
            CHECK(packed_size(l) == 1 + msgpack_size::ext_header(2 * w) + 2 * w + 2 * elem);
        }
    }
    SECTION("UNORDERED list: (k + 1) x width(body), k = (n - 1) div 128, when k >= 1") {
        for (std::size_t n : sizes{0, 1, 2, 128, 129, 130, 256, 257, 385, 1000, 70000}) {
            INFO("n = " << n);
            list l = ints(n);
            l.set_persist_index(true);
            check_size(l);
        }
        // n = 128: no content but the ext element is there (3 bytes).
        list l = ints(128);
        l.set_persist_index(true);
        CHECK(packed_size(l) == 3 + 3 + 128);
    }
    SECTION("K_ORDERED map: n x width(body); KV_ORDERED adds n x width(n)") {
        for (std::size_t n : sizes{1, 2, 3, 4, 8, 15, 16, 100, 127, 128, 300, 5000, 40000}) {
            for (map_order o : {map_order::key_ordered, map_order::key_value_ordered}) {
                INFO("n = " << n << " order " << static_cast<int>(o));
                map m = int_map(n, o);
                m.set_persist_index(true);
                check_size(m);
            }
        }
    }
    SECTION("UNORDERED map with a persisted index: stored as a K_ORDERED one") {
        // Measured on 8.1.2 (map_create / map_set_policy with persist_index on
        // an UNORDERED map, or a put of one): {} takes 4 more bytes (ext
        // header + nil), {1:2, 2:3, 3:4} 7 more (3 offset entries).
        for (std::size_t n : sizes{0, 1, 2, 3, 20, 128, 300, 40000}) {
            INFO("n = " << n);
            map u = int_map(n);
            u.set_persist_index(true);
            check_size(u);
            map k = int_map(n, map_order::key_ordered);
            k.set_persist_index(true);
            CHECK(packed_size(u) == packed_size(k));
        }
        map u0;
        u0.set_persist_index(true);
        CHECK(packed_size(u0) == 1 + 3 + 1);
        map u3{{1, 2}, {2, 3}, {3, 4}};
        std::size_t plain = packed_size(u3);
        u3.set_persist_index(true);
        CHECK(packed_size(u3) == plain + 3 + 3 + 1);
    }
}

TEST_CASE("INF and WILDCARD weigh the 3-byte fixext1 clients send", "[core][msgpack_size]") {
    CHECK(packed_size(inf) == 3);
    CHECK(packed_size(wildcard) == 3);
    CHECK(encode(inf) == std::string("\xd4\xff\x01", 3));
    CHECK(encode(wildcard) == std::string("\xd4\xff\x00", 3));
    check_size(list{1, wildcard});
}

} // namespace core_msgpack_size_test
