// tests/tools/serve_thread_test.cpp
//
// `kvmodel serve`'s sockets and threads (tools/serve/server.hpp) under load
// from several client threads at once, in process: a 2-node server on
// ephemeral ports with 3 io threads; each client thread pipelines its puts
// (several requests in one send, answered in order with one write), reads
// them back, and scans by partition with a filter expression, while another
// thread takes node 1 down and up and asks for info. Its name holds
// "thread": CI runs it under ThreadSanitizer.
#include <kvmodel/exp/build.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "../../tools/serve/server.hpp"
#include "serve_wire_store.hpp"

namespace tools_serve_thread_test {

using namespace kvmodel;
using namespace kvmodel::tools::serve;
using boost::asio::ip::tcp;
using testing::bytes_t;

namespace {

bytes_t framed(std::uint8_t type, const bytes_t& body) {
    bytes_t out{proto::version, type};
    put_be(out, body.size(), 6);
    out.insert(out.end(), body.begin(), body.end());
    return out;
}

// Reads one whole proto frame (header and body).
bytes_t read_frame(tcp::socket& s) {
    bytes_t head(proto::header_size);
    boost::asio::read(s, boost::asio::buffer(head));
    bytes_t out = head;
    out.resize(proto::header_size + get_be(head.data() + 2, 6));
    boost::asio::read(
        s, boost::asio::buffer(out.data() + proto::header_size, out.size() - proto::header_size));
    return out;
}

kv::key key_of(int client, int i) {
    return kv::key("test", "thr", "c" + std::to_string(client) + "-" + std::to_string(i));
}

} // namespace

TEST_CASE("serve: client threads pipeline, read back and scan while a node flaps",
          "[tools][serve]") {
    sim::cluster_config cfg;
    cfg.nodes = 2;
    sim::cluster db(cfg);
    service svc(db, {0, 0}, "kvmodel");
    server srv(svc, {0, 0}, 3);
    svc.set_ports(srv.ports());
    const std::uint16_t port0 = srv.ports()[0];
    std::thread runner([&] { srv.run(false); });

    constexpr int clients = 4;
    constexpr int per_client = 40;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c) {
        threads.emplace_back([&, c] {
            try {
                boost::asio::io_context io;
                tcp::socket s(io);
                s.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port0));
                // Every put in one send: the server answers them in order.
                bytes_t batch;
                for (int i = 0; i < per_client; ++i) {
                    std::vector<kv::operation> ops{
                        kv::op::write("v", value(std::int64_t{c * 1000 + i}))};
                    auto body = testing::wire_store::request(
                        key_of(c, i), ops, 0, info2::write | info2::respond_all_ops);
                    bytes_t f = framed(proto::type_message, *body);
                    batch.insert(batch.end(), f.begin(), f.end());
                }
                boost::asio::write(s, boost::asio::buffer(batch));
                for (int i = 0; i < per_client; ++i)
                    if (!testing::wire_store::answer(read_frame(s), {}))
                        ++failures;
                // Read each back, one request at a time.
                for (int i = 0; i < per_client; ++i) {
                    std::vector<kv::operation> ops{kv::op::read("v")};
                    auto body = testing::wire_store::request(key_of(c, i), ops, info1::read, 0);
                    boost::asio::write(s, boost::asio::buffer(framed(proto::type_message, *body)));
                    auto r = testing::wire_store::answer(read_frame(s), ops);
                    if (!r || r->results.size() != 1 ||
                        r->results[0] != value(std::int64_t{c * 1000 + i}))
                        ++failures;
                }
            } catch (const std::exception&) {
                ++failures;
            }
        });
    }
    // Topology changes and info from another thread meanwhile.
    threads.emplace_back([&] {
        for (int i = 0; i < 5; ++i) {
            if (!svc.set_node(1, false) || !svc.set_node(1, true))
                ++failures;
            if (svc.info(0, "partition-generation\n").empty())
                ++failures;
        }
    });
    for (std::thread& t : threads)
        t.join();
    CHECK(failures == 0);
    CHECK(db.record_count("test") == std::uint64_t{clients * per_client});

    // A scan with a filter expression through the socket: only v >= 3000
    // (client 3's records), every partition done, then LAST.
    {
        boost::asio::io_context io;
        tcp::socket s(io);
        s.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port0));
        bytes_t body{22, info1::read, 0, 0, 0, 0};
        body.insert(body.end(), 12, 0); // generation, ttl, timeout: zero
        put_be(body, 3, 2);
        put_be(body, 0, 2);
        testing::put_field(body, field::ns, bytes_t{'t', 'e', 's', 't'});
        testing::put_field(body, field::set, bytes_t{'t', 'h', 'r'});
        auto flt = exp::cmp_ge(exp::bin_int("v"), exp::int_val(3000));
        testing::put_field(body, field::filter_exp, flt.bytes());
        boost::asio::write(s, boost::asio::buffer(framed(proto::type_message, body)));
        std::size_t records = 0;
        std::size_t done = 0;
        bool last = false;
        while (!last) {
            bytes_t f = read_frame(s);
            std::span<const std::uint8_t> rest(f.data() + proto::header_size,
                                               f.size() - proto::header_size);
            while (!rest.empty()) {
                std::size_t used = 0;
                auto m = parse_message(rest, used);
                REQUIRE(m);
                rest = rest.subspan(used);
                if (m->h.info3 & info3::last)
                    last = true;
                else if (m->h.info3 & info3::partition_done)
                    ++done;
                else
                    ++records;
            }
        }
        CHECK(records == std::size_t{per_client});
        CHECK(done == 4096);
    }
    srv.stop();
    runner.join();
}

} // namespace tools_serve_thread_test
