// Tests of kvmodel/adapters/detail/aerospike_wire.hpp: the Aerospike adapter's
// translation rules that need no client library (msgpack both ways, result
// codes, host lists, argument narrowing). Byte sequences are Aerospike's as
// the C client packs them and the server sends them.
#include <kvmodel/adapters/detail/aerospike_wire.hpp>
#include <kvmodel/core/msgpack_size.hpp>
#include <kvmodel/kv/status.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace adapters_aerospike_wire_test {

namespace kd = kvmodel::adapters::detail;
using kvmodel::bytes;
using kvmodel::list;
using kvmodel::list_order;
using kvmodel::map;
using kvmodel::map_order;
using kvmodel::status;
using kvmodel::value;
using bvec = std::vector<std::uint8_t>;

namespace {

std::uint64_t test_seed() {
    if (const char* s = std::getenv("KVMODEL_SEED"); s != nullptr && *s != '\0')
        return std::strtoull(s, nullptr, 10);
    return 20240608;
}

std::size_t fuzz_ops(std::size_t dflt) {
    if (const char* s = std::getenv("KVMODEL_FUZZ_OPS"); s != nullptr && *s != '\0')
        return static_cast<std::size_t>(std::strtoull(s, nullptr, 10));
    return dflt;
}

// Same identity as the value model's operator==, plus container order flags,
// which operator== ignores and the wire carries.
bool same_with_flags(const value& a, const value& b) {
    if (!(a == b)) return false;
    if (a.is_list()) {
        if (a.as_list().order() != b.as_list().order()) return false;
        for (std::size_t i = 0; i < a.as_list().size(); ++i)
            if (!same_with_flags(a.as_list()[i], b.as_list()[i])) return false;
    }
    if (a.is_map()) {
        if (a.as_map().order() != b.as_map().order()) return false;
        for (std::size_t i = 0; i < a.as_map().size(); ++i)
            if (!same_with_flags(a.as_map().value_at(i), b.as_map().value_at(i))) return false;
    }
    return true;
}

value random_value(std::mt19937_64& rng, int depth) {
    std::uniform_int_distribution<int> kind(0, depth > 3 ? 6 : 9);
    switch (kind(rng)) {
    case 0: return value();
    case 1: return value(static_cast<bool>(rng() & 1));
    case 2: {
        // Integers at every encoding boundary and in between.
        static const std::int64_t edges[] = {0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295LL, 4294967296LL,
                                             std::numeric_limits<std::int64_t>::max(), -1, -32, -33, -128, -129,
                                             -32768, -32769, -2147483648LL, -2147483649LL,
                                             std::numeric_limits<std::int64_t>::min()};
        if (rng() % 2 == 0) return value(edges[rng() % std::size(edges)]);
        return value(static_cast<std::int64_t>(rng()));
    }
    case 3: return value(std::uniform_real_distribution<double>(-1e9, 1e9)(rng));
    case 4: {
        static const std::size_t lens[] = {0, 1, 30, 31, 32, 254, 255, 256, 65534, 65535, 65536};
        std::size_t n = rng() % 4 == 0 ? lens[rng() % std::size(lens)] : rng() % 12;
        std::string s(n, 'x');
        for (char& c : s) c = static_cast<char>('a' + rng() % 26);
        return value(std::move(s));
    }
    case 5: {
        bytes b(rng() % 40);
        for (auto& x : b) x = static_cast<std::uint8_t>(rng());
        return value(std::move(b));
    }
    case 6: return value(static_cast<std::int64_t>(rng() % 100));
    case 7:
    case 8: {
        std::size_t n = rng() % 5 == 0 ? 15 + rng() % 3 : rng() % 6;
        std::vector<value> items;
        for (std::size_t i = 0; i < n; ++i) items.push_back(random_value(rng, depth + 1));
        list l(std::move(items));
        if (rng() % 3 == 0) {
            l.sort();
            l.set_order_flag(list_order::ordered);
        }
        return value(std::move(l));
    }
    default: {
        static const map_order orders[] = {map_order::unordered, map_order::key_ordered,
                                           map_order::key_value_ordered};
        map m(orders[rng() % 3]);
        std::size_t n = rng() % 5 == 0 ? 15 + rng() % 3 : rng() % 6;
        for (std::size_t i = 0; i < n; ++i) m.put(random_value(rng, depth + 2), random_value(rng, depth + 1));
        return value(std::move(m));
    }
    }
}

} // namespace

TEST_CASE("encode_msgpack writes Aerospike's encoding byte for byte", "[adapters][aerospike_wire]") {
    CHECK(kd::encode_msgpack(value()) == bvec{0xc0});
    CHECK(kd::encode_msgpack(value(true)) == bvec{0xc3});
    CHECK(kd::encode_msgpack(value(false)) == bvec{0xc2});
    CHECK(kd::encode_msgpack(value(127)) == bvec{0x7f});
    CHECK(kd::encode_msgpack(value(128)) == bvec{0xcc, 0x80});
    CHECK(kd::encode_msgpack(value(65536)) == bvec{0xce, 0x00, 0x01, 0x00, 0x00});
    CHECK(kd::encode_msgpack(value(-1)) == bvec{0xff});
    CHECK(kd::encode_msgpack(value(-33)) == bvec{0xd0, 0xdf});
    CHECK(kd::encode_msgpack(value(-129)) == bvec{0xd1, 0xff, 0x7f});
    CHECK(kd::encode_msgpack(value(1.5)) == bvec{0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0});
    // Strings and blobs: str family with the particle type first.
    CHECK(kd::encode_msgpack(value("ab")) == bvec{0xa3, 0x03, 'a', 'b'});
    CHECK(kd::encode_msgpack(value(bytes{0x0a, 0xff})) == bvec{0xa3, 0x04, 0x0a, 0xff});
    CHECK(kd::encode_msgpack(value(std::string(31, 'z'))).front() == 0xd9);  // 32 bytes with the prefix
    // An ORDERED list opens with an empty ext whose type is the flags.
    list ol({value(1), value(2)}, list_order::ordered);
    CHECK(kd::encode_msgpack(value(ol)) == bvec{0x93, 0xc7, 0x00, 0x01, 0x01, 0x02});
    CHECK(kd::encode_msgpack(value(list{value(1)})) == bvec{0x91, 0x01});
    // A K-ordered map: ext key (flags 1) with a nil value, then key order.
    map km(map_order::key_ordered);
    km.put(value("b"), value(2));
    km.put(value("a"), value(1));
    CHECK(kd::encode_msgpack(value(km)) ==
          bvec{0x83, 0xc7, 0x00, 0x01, 0xc0, 0xa2, 0x03, 'a', 0x01, 0xa2, 0x03, 'b', 0x02});
    map kvm(map_order::key_value_ordered);
    CHECK(kd::encode_msgpack(value(kvm)) == bvec{0x81, 0xc7, 0x00, 0x03, 0xc0});
    // An unordered map has no ext, entries still in key order.
    map um;
    um.put(value(2), value("x"));
    um.put(value(1), value("y"));
    CHECK(kd::encode_msgpack(value(um)) == bvec{0x82, 0x01, 0xa2, 0x03, 'y', 0x02, 0xa2, 0x03, 'x'});
    CHECK(kd::encode_msgpack(value(kvmodel::inf)) == bvec{0xd4, 0xff, 0x01});
    CHECK(kd::encode_msgpack(value(kvmodel::wildcard)) == bvec{0xd4, 0xff, 0x00});
}

TEST_CASE("encoded size is core's packed_size and decoding restores the value", "[adapters][aerospike_wire]") {
    const std::uint64_t seed = test_seed();
    std::mt19937_64 rng(seed);
    const std::size_t n = fuzz_ops(400);
    for (std::size_t i = 0; i < n; ++i) {
        value v = random_value(rng, 0);
        bvec enc = kd::encode_msgpack(v);
        INFO("seed " << seed << " (KVMODEL_SEED), case " << i << ": " << kvmodel::to_string(v));
        REQUIRE(enc.size() == kvmodel::packed_size(v));
        auto back = kd::decode_msgpack(enc);
        REQUIRE(back.has_value());
        REQUIRE(same_with_flags(*back, v));
    }
}

TEST_CASE("decode_msgpack reads what the server sends", "[adapters][aerospike_wire]") {
    SECTION("msgpack bin, str8 and float32 forms") {
        auto b = kd::decode_msgpack(bvec{0xc4, 0x03, 0x04, 0xde, 0xad});
        REQUIRE(b.has_value());
        CHECK(*b == value(bytes{0xde, 0xad}));
        auto s = kd::decode_msgpack(bvec{0xd9, 0x02, 0x03, 'q'});
        REQUIRE(s.has_value());
        CHECK(*s == value("q"));
        auto f = kd::decode_msgpack(bvec{0xca, 0x3f, 0xc0, 0x00, 0x00});
        REQUIRE(f.has_value());
        CHECK(*f == value(1.5));
        auto empty = kd::decode_msgpack(bvec{0xa0});
        REQUIRE(empty.has_value());
        CHECK(*empty == value(""));
        // A uint64 above INT64_MAX is the integer particle's two's complement.
        auto u = kd::decode_msgpack(bvec{0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe});
        REQUIRE(u.has_value());
        CHECK(*u == value(-2));
    }
    SECTION("list and map flags") {
        auto l = kd::decode_msgpack(bvec{0x93, 0xd4, 0x01, 0x00, 0x05, 0x07});  // fixext1 flags form
        REQUIRE(l.has_value());
        CHECK(l->as_list().order() == list_order::ordered);
        CHECK(*l == value(list{value(5), value(7)}));
        auto m = kd::decode_msgpack(bvec{0x82, 0xc7, 0x00, 0x03, 0xc0, 0x01, 0x02});
        REQUIRE(m.has_value());
        CHECK(m->as_map().order() == map_order::key_value_ordered);
        CHECK(m->as_map().size() == 1);
        // A persisted index's content is skipped; the flag is kept.
        auto p = kd::decode_msgpack(bvec{0x83, 0xc7, 0x02, 0x11, 0x00, 0x01, 0xc0, 0x01, 0x02, 0x03, 0x04});
        REQUIRE(p.has_value());
        CHECK(p->as_map().order() == map_order::key_ordered);
        CHECK(p->as_map().persist_index());
        CHECK(p->as_map().size() == 2);
    }
    SECTION("KEY_VALUE pairs keep the server's order, duplicates included") {
        // {"b": 2, "a": 1, "b": 3} as sent, e.g. in rank order
        bvec wire{0x83, 0xa2, 0x03, 'b', 0x02, 0xa2, 0x03, 'a', 0x01, 0xa2, 0x03, 'b', 0x03};
        auto pairs = kd::decode_msgpack(wire, true);
        REQUIRE(pairs.has_value());
        CHECK(*pairs == value(list{value(list{value("b"), value(2)}), value(list{value("a"), value(1)}),
                                   value(list{value("b"), value(3)})}));
        // Without the flag it is a (key-sorted) map.
        auto m = kd::decode_msgpack(wire);
        REQUIRE(m.has_value());
        REQUIRE(m->is_map());
        CHECK(m->as_map().key_at(0) == value("a"));
        // Only the top level becomes pairs.
        auto nested = kd::decode_msgpack(bvec{0x81, 0x01, 0x81, 0x02, 0x03}, true);
        REQUIRE(nested.has_value());
        CHECK(nested->as_list()[0].as_list()[1].is_map());
    }
    SECTION("INF and WILDCARD") {
        auto l = kd::decode_msgpack(bvec{0x93, 0x01, 0xd4, 0xff, 0x01, 0xd4, 0xff, 0x00});
        REQUIRE(l.has_value());
        REQUIRE(l->as_list().size() == 3);
        CHECK(l->as_list()[1].is_inf());
        CHECK(l->as_list()[2].is_wildcard());
        // An ext first in a list is its flags element, whatever its type, as the
        // server and the C client read it: a list cannot start with INF or WILDCARD.
        auto first = kd::decode_msgpack(bvec{0x92, 0xd4, 0xff, 0x01, 0x05});
        REQUIRE(first.has_value());
        CHECK(*first == value(list{value(5)}));
    }
}

TEST_CASE("decode_msgpack refuses bad input without over-reading or over-allocating",
          "[adapters][aerospike_wire]") {
    map m(map_order::key_ordered);
    m.put(value("k"), value(list{value(1), value(2.5), value(bytes{1, 2, 3})}));
    m.put(value(7), value(std::string(300, 's')));
    bvec good = kd::encode_msgpack(value(m));
    // Every proper prefix is truncated input: an error, never a crash (ASan checks reads).
    for (std::size_t n = 0; n < good.size(); ++n) {
        auto r = kd::decode_msgpack(std::span<const std::uint8_t>(good.data(), n));
        INFO("prefix of " << n << " bytes");
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code == status::client);
    }
    // Counts far beyond the input are refused before anything is reserved.
    CHECK_FALSE(kd::decode_msgpack(bvec{0xdd, 0xff, 0xff, 0xff, 0xff, 0x01}).has_value());
    CHECK_FALSE(kd::decode_msgpack(bvec{0xdf, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02}).has_value());
    CHECK_FALSE(kd::decode_msgpack(bvec{0xdb, 0xff, 0xff, 0xff, 0xff, 0x03}).has_value());
    // 0xc1 is never used; trailing bytes after a value are an error.
    auto never = kd::decode_msgpack(bvec{0xc1});
    REQUIRE_FALSE(never.has_value());
    CHECK(never.error().message.find("invalid msgpack byte 193") != std::string::npos);
    CHECK_FALSE(kd::decode_msgpack(bvec{0x01, 0x02}).has_value());
    // Nesting beyond the limit.
    bvec deep(kd::max_decode_depth + 10, 0x91);
    deep.push_back(0x01);
    auto d = kd::decode_msgpack(deep);
    REQUIRE_FALSE(d.has_value());
    CHECK(d.error().message.find("nesting deeper") != std::string::npos);
    bvec ok_depth(kd::max_decode_depth, 0x91);
    ok_depth.push_back(0x01);
    CHECK(kd::decode_msgpack(ok_depth).has_value());
    // An ext element that is neither flags nor INF/WILDCARD, where a value is expected.
    CHECK_FALSE(kd::decode_msgpack(bvec{0xd4, 0x05, 0x00}).has_value());
}

TEST_CASE("decode_particle maps every raw particle type", "[adapters][aerospike_wire]") {
    bvec blob{1, 2};
    for (std::uint8_t t : {kd::particle::blob, kd::particle::java_blob, kd::particle::python_blob,
                           kd::particle::erlang_blob, kd::particle::hll}) {
        auto v = kd::decode_particle(t, blob);
        REQUIRE(v.has_value());
        CHECK(*v == value(bytes{1, 2}));
    }
    auto geo = kd::decode_particle(kd::particle::geojson, bvec{'{', '}'});
    REQUIRE(geo.has_value());
    CHECK(*geo == value("{}"));
    auto l = kd::decode_particle(kd::particle::list, bvec{0x91, 0x05});
    REQUIRE(l.has_value());
    CHECK(*l == value(list{value(5)}));
    auto kv = kd::decode_particle(kd::particle::map, bvec{0x81, 0x05, 0x06}, true);
    REQUIRE(kv.has_value());
    CHECK(*kv == value(list{value(list{value(5), value(6)})}));
    CHECK_FALSE(kd::decode_particle(kd::particle::integer, bvec{1}).has_value());
}

TEST_CASE("as_status numbers map to kvmodel statuses", "[adapters][aerospike_wire]") {
    // Server codes are the same numbers.
    for (int code = 0; code <= 28; ++code) {
        bool unknown = true;
        status s = kd::status_from_code(code, &unknown);
        CHECK(static_cast<int>(s) == code);
        CHECK_FALSE(unknown);
    }
    CHECK(kd::status_from_code(2) == status::record_not_found);
    CHECK(kd::status_from_code(26) == status::op_not_applicable);
    CHECK(kd::status_from_code(201) == status::index_not_found);
    // Client codes kvmodel names keep their number (AEROSPIKE_ERR_PARAM, _CLIENT, _CONNECTION, ...).
    CHECK(kd::status_from_code(-2) == status::client_param);
    CHECK(kd::status_from_code(-1) == status::client);
    CHECK(kd::status_from_code(-10) == status::connection);
    CHECK(kd::status_from_code(-8) == status::invalid_node);
    // A client code newer than as_status.h's -20 is a client error.
    bool unknown = false;
    CHECK(kd::status_from_code(-21, &unknown) == status::client);
    CHECK(unknown);
    // An unnamed server code keeps its number (the caller reports it).
    CHECK(static_cast<int>(kd::status_from_code(99, &unknown)) == 99);
    CHECK(unknown);
}

// Every client-side code of the C client's as_status.h (AEROSPIKE_METRICS_CONFLICT
// -20 .. AEROSPIKE_ERR_CLIENT -1), through the helper the adapter's to_error
// uses: its kvmodel status (same number and name), whether a pattern retries
// it, and the client's in_doubt kept both ways (the client alone knows
// whether the command was sent before it failed).
struct client_code {
    int code;
    status s;
    const char* name;
    bool transient;
};
const std::vector<client_code>& client_codes() {
    static const std::vector<client_code> rows = {
        {-20, status::metrics_conflict, "METRICS_CONFLICT", false},
        {-19, status::txn_already_aborted, "TXN_ALREADY_ABORTED", false},
        {-18, status::txn_already_committed, "TXN_ALREADY_COMMITTED", false},
        {-17, status::txn_failed, "TXN_FAILED", false},
        {-16, status::batch_failed, "BATCH_FAILED", false},
        {-15, status::no_response, "NO_RESPONSE", true},
        {-14, status::max_error_rate, "MAX_ERROR_RATE", true},
        {-13, status::use_normal_retry, "USE_NORMAL_RETRY", true},
        {-12, status::max_retries_exceeded, "MAX_RETRIES_EXCEEDED", true},
        {-11, status::async_queue_full, "ASYNC_QUEUE_FULL", true},
        {-10, status::connection, "CONNECTION", true},
        {-9, status::tls_error, "TLS_ERROR", false},
        {-8, status::invalid_node, "INVALID_NODE", true},
        {-7, status::no_more_connections, "NO_MORE_CONNECTIONS", true},
        {-6, status::async_connection, "ASYNC_CONNECTION", true},
        {-5, status::client_abort, "CLIENT_ABORT", false},
        {-4, status::invalid_host, "INVALID_HOST", false},
        {-3, status::no_more_records, "NO_MORE_RECORDS", false},
        {-2, status::client_param, "PARAM", false},
        {-1, status::client, "CLIENT", false},
    };
    return rows;
}

void check_client_code(int code) {
    const client_code* row = nullptr;
    for (const client_code& r : client_codes())
        if (r.code == code) row = &r;
    REQUIRE(row != nullptr);
    INFO("as_status " << code);
    for (bool doubt : {false, true}) {
        kvmodel::error e = kd::client_error(code, "client says so", doubt, "operate");
        CHECK(e.code == row->s);
        CHECK(kvmodel::status_code(e.code) == code);
        CHECK(kvmodel::status_name(e.code) == row->name);
        CHECK(e.message == "operate: client says so");
        CHECK(e.in_doubt == doubt);
        CHECK(kvmodel::kv::is_transient(e.code) == row->transient);
    }
}

TEST_CASE("client code -20 METRICS_CONFLICT", "[adapters][aerospike_wire]") { check_client_code(-20); }
TEST_CASE("client code -19 TXN_ALREADY_ABORTED", "[adapters][aerospike_wire]") { check_client_code(-19); }
TEST_CASE("client code -18 TXN_ALREADY_COMMITTED", "[adapters][aerospike_wire]") { check_client_code(-18); }
TEST_CASE("client code -17 TXN_FAILED", "[adapters][aerospike_wire]") { check_client_code(-17); }
TEST_CASE("client code -16 BATCH_FAILED", "[adapters][aerospike_wire]") { check_client_code(-16); }
TEST_CASE("client code -15 NO_RESPONSE", "[adapters][aerospike_wire]") { check_client_code(-15); }
TEST_CASE("client code -14 MAX_ERROR_RATE", "[adapters][aerospike_wire]") { check_client_code(-14); }
TEST_CASE("client code -13 USE_NORMAL_RETRY", "[adapters][aerospike_wire]") { check_client_code(-13); }
TEST_CASE("client code -12 MAX_RETRIES_EXCEEDED", "[adapters][aerospike_wire]") { check_client_code(-12); }
TEST_CASE("client code -11 ASYNC_QUEUE_FULL", "[adapters][aerospike_wire]") { check_client_code(-11); }
TEST_CASE("client code -10 CONNECTION", "[adapters][aerospike_wire]") { check_client_code(-10); }
TEST_CASE("client code -9 TLS_ERROR", "[adapters][aerospike_wire]") { check_client_code(-9); }
TEST_CASE("client code -8 INVALID_NODE", "[adapters][aerospike_wire]") { check_client_code(-8); }
TEST_CASE("client code -7 NO_MORE_CONNECTIONS", "[adapters][aerospike_wire]") { check_client_code(-7); }
TEST_CASE("client code -6 ASYNC_CONNECTION", "[adapters][aerospike_wire]") { check_client_code(-6); }
TEST_CASE("client code -5 CLIENT_ABORT", "[adapters][aerospike_wire]") { check_client_code(-5); }
TEST_CASE("client code -4 INVALID_HOST", "[adapters][aerospike_wire]") { check_client_code(-4); }
TEST_CASE("client code -3 NO_MORE_RECORDS", "[adapters][aerospike_wire]") { check_client_code(-3); }
TEST_CASE("client code -2 PARAM", "[adapters][aerospike_wire]") { check_client_code(-2); }
TEST_CASE("client code -1 CLIENT", "[adapters][aerospike_wire]") { check_client_code(-1); }

TEST_CASE("every client code of as_status.h has its own status", "[adapters][aerospike_wire]") {
    REQUIRE(client_codes().size() == 20);
    for (int code = -20; code <= -1; ++code) {
        bool unknown = true;
        CHECK(kvmodel::status_code(kd::status_from_code(code, &unknown)) == code);
        CHECK_FALSE(unknown);
    }
    // A code kvmodel does not name keeps its number in the message.
    kvmodel::error e = kd::client_error(-21, "new", false, "get");
    CHECK(e.code == status::client);
    CHECK(e.message == "get: new (as_status -21)");
}

TEST_CASE("parse_hosts reads host lists", "[adapters][aerospike_wire]") {
    auto one = kd::parse_hosts("127.0.0.1");
    REQUIRE(one.has_value());
    CHECK(*one == std::vector<kd::host>{{"127.0.0.1", 3000}});
    auto many = kd::parse_hosts("a:3100, b ,[::1]:4000,[fe80::1]");
    REQUIRE(many.has_value());
    CHECK(*many == std::vector<kd::host>{{"a", 3100}, {"b", 3000}, {"::1", 4000}, {"fe80::1", 3000}});
    auto bare6 = kd::parse_hosts("::1");
    REQUIRE(bare6.has_value());
    CHECK((*bare6)[0].name == "::1");
    for (const char* bad : {"", "a,", ",a", "a:", "a:0", "a:65536", "a:12x", "[::1", "[::1]x", ":3000", "[]:1"}) {
        auto r = kd::parse_hosts(bad);
        INFO(bad);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code == status::parameter_error);
    }
}

TEST_CASE("int64 arguments narrow to the C client's parameters without changing the answer",
          "[adapters][aerospike_wire]") {
    CHECK(kd::clamp_int32(5) == 5);
    CHECK(kd::clamp_int32(-5) == -5);
    CHECK(kd::clamp_int32(std::int64_t{1} << 40) == std::numeric_limits<int>::max());
    CHECK(kd::clamp_int32(-(std::int64_t{1} << 40)) == std::numeric_limits<int>::min());
    CHECK(kd::clamp_uint32(8) == 8u);
    CHECK(kd::clamp_uint32(-1) == std::numeric_limits<std::uint32_t>::max());
    CHECK(kd::clamp_uint32(std::int64_t{1} << 33) == std::numeric_limits<std::uint32_t>::max());
    CHECK(kd::count_bits(-1) == std::numeric_limits<std::uint64_t>::max());
}

} // namespace adapters_aerospike_wire_test
