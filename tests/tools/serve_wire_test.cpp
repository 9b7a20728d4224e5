// tests/tools/serve_wire_test.cpp
//
// `kvmodel serve` without sockets (tools/serve/wire.hpp, ops.hpp,
// service.hpp): the proto and message codec, the info answers the clients'
// tend reads (replicas bitmaps, peers), single-record commands and a batch
// through request bytes as the C client lays them out, and a seeded fuzz of
// the parser and the service: random and mutated bodies get an answer or a
// closed connection, never a crash (CI runs it under ASan + UBSan).
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "../../tools/serve/service.hpp"
#include "../sanitized.hpp"
#include "serve_wire_store.hpp"

namespace tools_serve_wire_test {

using namespace kvmodel;
using namespace kvmodel::tools::serve;

namespace {

using bytes_t = std::vector<std::uint8_t>;

sim::cluster_config nodes(std::uint32_t n) {
    sim::cluster_config c;
    c.nodes = n;
    return c;
}

using tools::serve::testing::put_field;
using tools::serve::testing::put_op;

void be(bytes_t& out, std::uint64_t v, std::size_t n) {
    put_be(out, v, n);
}

void add_text_field(bytes_t& out, std::uint8_t type, std::string_view s) {
    put_field(out, type, std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
}

void add_op(bytes_t& out, std::uint8_t op, std::string_view name, const value& v) {
    bytes_t data;
    std::uint8_t type = append_particle(v, data);
    put_op(out, op, type, name, data);
}

// A raw op whose value bytes are given (CDT ops: msgpack).
void add_raw_op(bytes_t& out, std::uint8_t op, std::string_view name, const bytes_t& data) {
    put_op(out, op, particle::blob, name, data);
}

// An as_msg header (22 bytes).
bytes_t header(std::uint8_t i1, std::uint8_t i2, std::uint16_t n_fields, std::uint16_t n_ops) {
    bytes_t out{22, i1, i2, 0, 0, 0};
    be(out, 0, 4);
    be(out, 0, 4);
    be(out, 1000, 4);
    be(out, n_fields, 2);
    be(out, n_ops, 2);
    return out;
}

// A single-record request: ns, set, digest fields, then the ops.
bytes_t request(
    std::uint8_t i1, std::uint8_t i2, const kv::key& k, const bytes_t& ops, std::uint16_t n_ops) {
    bytes_t out = header(i1, i2, 3, n_ops);
    add_text_field(out, field::ns, k.ns());
    add_text_field(out, field::set, k.set());
    put_field(out, field::digest, k.digest());
    out.insert(out.end(), ops.begin(), ops.end());
    return out;
}

// The answer's first as_msg: result code and its ops as name -> value.
struct answer {
    int code = -1;
    std::uint32_t generation = 0;
    std::vector<std::pair<std::string, value>> bins;
};

answer read_answer(const reply& r) {
    REQUIRE(r.bytes.size() >= proto::header_size + proto::msg_header_size);
    std::span<const std::uint8_t> body(r.bytes);
    body = body.subspan(proto::header_size);
    std::size_t used = 0;
    auto m = parse_message(body, used);
    REQUIRE(m);
    answer a;
    a.code = m->h.result_code;
    a.generation = m->h.generation;
    for (const wire_op& o : m->ops) {
        auto v = particle_value(o.particle_type, o.data);
        REQUIRE(v);
        a.bins.emplace_back(std::string(o.name), *v);
    }
    return a;
}

} // namespace

TEST_CASE("proto headers: version, type and size are checked", "[tools][serve]") {
    std::array<std::uint8_t, 8> ok{2, 3, 0, 0, 0, 0, 0, 22};
    auto h = parse_proto_header(ok);
    REQUIRE(h);
    CHECK(h->type == proto::type_message);
    CHECK(h->size == 22);
    std::array<std::uint8_t, 8> bad_version{1, 3, 0, 0, 0, 0, 0, 22};
    CHECK(parse_proto_header(bad_version).error().code == status::parameter_error);
    std::array<std::uint8_t, 8> bad_type{2, 9, 0, 0, 0, 0, 0, 22};
    CHECK(parse_proto_header(bad_type).error().code == status::parameter_error);
    std::array<std::uint8_t, 8> too_big{2, 3, 0, 0, 0x08, 0, 0, 1};
    auto big = parse_proto_header(too_big);
    REQUIRE(!big);
    CHECK(big.error().message.find("max 134217728") != std::string::npos);
}

TEST_CASE("messages: counts and sizes that run past the body are refused", "[tools][serve]") {
    bytes_t m = header(1, 0, 1, 0);
    CHECK(!parse_message(m)); // one field announced, none present
    bytes_t f = header(1, 0, 1, 0);
    be(f, 100, 4); // a field of 100 bytes in a body of 5
    f.push_back(0);
    auto r = parse_message(f);
    REQUIRE(!r);
    CHECK(r.error().message.find("runs past the end") != std::string::npos);
    bytes_t o = header(1, 0, 0, 1);
    be(o, 4, 4);
    o.insert(o.end(), {1, 0, 0, 9}); // a name of 9 bytes in an op of 4
    CHECK(!parse_message(o));
}

TEST_CASE("info: the tend commands answer as the server does", "[tools][serve]") {
    sim::cluster db(nodes(3));
    service svc(db, {3000, 3001, 3002}, "kvmodel");
    CHECK(svc.info(1, "node\n") == "node\t" + service::node_name(1) + "\n");
    CHECK(svc.info(0, "build\nno-such-command\n") == "build\t8.1.2.0\n");
    std::string rep = svc.info(0, "replicas\n");
    // test:<regime>,<replicas>,<master bitmap>,<prole bitmap> (4096 bits: 684 base64 chars)
    REQUIRE(rep.starts_with("replicas\ttest:0,2,"));
    CHECK(rep.size() == std::string("replicas\ttest:0,2,").size() + 684 + 1 + 684 + 1);
    std::string peers = svc.info(0, "peers-clear-std\n");
    CHECK(peers.find("[" + service::node_name(1) + ",,[127.0.0.1:3001]]") != std::string::npos);
    CHECK(peers.find(service::node_name(0)) == std::string::npos);
    std::uint32_t gen = svc.generation();
    CHECK(svc.info(0, "kvmodel-node-down:node=2\n") == "kvmodel-node-down:node=2\tok\n");
    CHECK(svc.generation() == gen + 1);
    CHECK(svc.info(0, "peers-clear-std\n").find(service::node_name(2)) == std::string::npos);
    CHECK(svc.info(0, "kvmodel-node-down:node=7\n").find("FAIL:4:") != std::string::npos);
}

TEST_CASE("messages: put, get, operate with a CDT op, delete", "[tools][serve]") {
    sim::cluster db(nodes(1));
    service svc(db, {3000}, "kvmodel");
    kv::key k("test", "s", "k1");

    bytes_t put_ops;
    add_op(put_ops, opcode::write, "a", value(7));
    add_op(put_ops, opcode::write, "s", value("x"));
    auto put = svc.handle(0, proto::type_message, request(0, info2::write, k, put_ops, 2));
    CHECK(read_answer(put).code == 0);

    auto get = read_answer(
        svc.handle(0, proto::type_message, request(info1::read | info1::get_all, 0, k, {}, 0)));
    CHECK(get.code == 0);
    CHECK(get.generation == 1);
    REQUIRE(get.bins.size() == 2);
    CHECK(get.bins[0] == std::pair<std::string, value>{"a", value(7)});

    // map_put_items {b: 2, c: 1} then map_get_by_rank(-1, KEY): [66, {..}, ...]
    bytes_t cdt_ops;
    map items;
    items.put(value("b"), value(2));
    items.put(value("c"), value(1));
    add_raw_op(cdt_ops,
               opcode::cdt_modify,
               "m",
               adapters::detail::encode_msgpack(value(list{value(68), value(std::move(items))})));
    add_raw_op(cdt_ops,
               opcode::cdt_read,
               "m",
               adapters::detail::encode_msgpack(value(list{value(100), value(6), value(-1)})));
    auto op = read_answer(
        svc.handle(0,
                   proto::type_message,
                   request(info1::read, info2::write | info2::respond_all_ops, k, cdt_ops, 2)));
    CHECK(op.code == 0);
    REQUIRE(op.bins.size() == 2);
    CHECK(op.bins[0].second == value(2)); // the map's size after the put
    CHECK(op.bins[1].second == value("b"));

    // map_get_by_rank_range(0, 2, KEY_VALUE): a map led by the PRESERVE_ORDER
    // flags element (ext 0x08, nil), in rank order, as the server sends it
    // (the C client reads it as the flat list [c, 1, b, 2]).
    bytes_t kv_op;
    add_raw_op(
        kv_op,
        opcode::cdt_read,
        "m",
        adapters::detail::encode_msgpack(value(list{value(106), value(8), value(0), value(2)})));
    reply kv = svc.handle(0, proto::type_message, request(info1::read, 0, k, kv_op, 1));
    std::span<const std::uint8_t> kv_body(kv.bytes);
    kv_body = kv_body.subspan(proto::header_size);
    std::size_t kv_used = 0;
    auto kv_msg = parse_message(kv_body, kv_used);
    REQUIRE(kv_msg);
    REQUIRE(kv_msg->ops.size() == 1);
    CHECK(kv_msg->ops[0].particle_type == particle::map);
    const bytes_t expected_kv{
        0x83, 0xc7, 0x00, 0x08, 0xc0, 0xa2, 0x03, 'c', 0x01, 0xa2, 0x03, 'b', 0x02};
    CHECK(bytes_t(kv_msg->ops[0].data.begin(), kv_msg->ops[0].data.end()) == expected_kv);

    bytes_t bad;
    add_op(bad, opcode::incr, "s", value(1));
    CHECK(
        read_answer(svc.handle(0, proto::type_message, request(0, info2::write, k, bad, 1))).code ==
        static_cast<int>(status::bin_type_error));

    bytes_t unknown;
    add_op(unknown, 99, "s", value(1));
    CHECK(read_answer(svc.handle(0, proto::type_message, request(0, info2::write, k, unknown, 1)))
              .code == static_cast<int>(status::parameter_error));

    CHECK(
        read_answer(
            svc.handle(0, proto::type_message, request(0, info2::write | info2::remove, k, {}, 0)))
            .code == 0);
    CHECK(
        read_answer(
            svc.handle(0, proto::type_message, request(info1::read | info1::get_all, 0, k, {}, 0)))
            .code == static_cast<int>(status::record_not_found));
}

TEST_CASE("messages: a batch answers every key in order, then LAST", "[tools][serve]") {
    sim::cluster db(nodes(1));
    service svc(db, {3000}, "kvmodel");
    kv::key a("test", "", 1);
    kv::key b("test", "", 2);
    db.put(a, {kv::bin{"v", 1}}).value();
    bytes_t req = tools::serve::testing::batch_read_body(a, b);
    reply r = svc.handle(0, proto::type_message, req);
    std::span<const std::uint8_t> body(r.bytes);
    body = body.subspan(proto::header_size);
    std::vector<std::pair<int, std::uint32_t>> seen; // code, index
    while (!body.empty()) {
        std::size_t used = 0;
        auto m = parse_message(body, used);
        REQUIRE(m);
        body = body.subspan(used);
        if (m->h.info3 & info3::last)
            break;
        seen.emplace_back(m->h.result_code, m->h.transaction_ttl);
    }
    CHECK(body.empty());
    CHECK(seen == std::vector<std::pair<int, std::uint32_t>>{{0, 0}, {2, 1}});
}

TEST_CASE("fuzz: any bytes get an answer or a closed connection", "[tools][serve][fuzz]") {
    sim::cluster db(nodes(2));
    service svc(db, {3000, 3001}, "kvmodel");
    kv::key k("test", "s", "k");
    bytes_t ops;
    add_op(ops, opcode::write, "a", value(1));
    map m;
    m.put(value(1), value(2));
    add_raw_op(
        ops,
        opcode::cdt_modify,
        "m",
        adapters::detail::encode_msgpack(value(list{value(66), value(std::move(m)), value(1)})));
    const bytes_t valid = request(info1::read, info2::write, k, ops, 2);
    std::mt19937_64 rng(Catch::rngSeed());
    std::size_t answered = 0;
    const int rounds = KVMODEL_TEST_SANITIZED ? 5000 : 20000;
    for (int i = 0; i < rounds; ++i) {
        bytes_t body;
        if (i % 2 == 0) {
            body = valid;
            int flips = 1 + static_cast<int>(rng() % 4);
            for (int f = 0; f < flips; ++f)
                body[rng() % body.size()] = static_cast<std::uint8_t>(rng());
            if (rng() % 4 == 0)
                body.resize(rng() % body.size());
        } else {
            body.resize(rng() % 96);
            for (auto& b : body)
                b = static_cast<std::uint8_t>(rng());
            if (body.size() > 22 && rng() % 2 == 0)
                body[0] = 22; // past the header-size check
        }
        std::uint8_t type = (i % 5 == 0) ? proto::type_info : proto::type_message;
        reply r = svc.handle(static_cast<std::uint32_t>(rng() % 2), type, body);
        if (!r.bytes.empty()) {
            ++answered;
            REQUIRE(r.bytes.size() >= proto::header_size);
            CHECK(get_be(r.bytes.data() + 2, 6) == r.bytes.size() - proto::header_size);
        }
    }
    CHECK(answered > 0);
}

} // namespace tools_serve_wire_test
