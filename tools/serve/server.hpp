// tools/serve/server.hpp
//
// The sockets of `kvmodel serve` (Boost.Asio): one listening port per node on
// 127.0.0.1, each connection a loop of read proto header -> read body ->
// service::handle -> write answer, on a pool of threads (the sim is
// thread-safe; each connection runs on its own strand).
//
// Compressed messages (type 4) are inflated first (compressed.hpp).
//
// Bounds: a body over proto::max_body (the server's 128 MiB), a bad version
// or type, or a message that does not parse closes the connection before
// anything more is read; a body is read in chunks of 1 MiB, so a connection
// holds what it was sent, not what a header claims; one request and one
// answer at a time. A node taken down (service::set_node) closes its
// listening socket and every connection to it, so clients see refused
// connections and move to the replicas; brought up, it listens again on the
// same port. stop() closes everything and returns from run().
#pragma once

#include <boost/asio.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iostream>
#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "compressed.hpp"
#include "service.hpp"
#include "wire.hpp"

namespace kvmodel::tools::serve {

namespace asio = boost::asio;
using asio::ip::tcp;

class server;

/// One client connection to one node.
class session : public std::enable_shared_from_this<session> {
public:
    session(tcp::socket s, service& svc, std::uint32_t node)
        : m_socket(std::move(s))
        , m_svc(svc)
        , m_node(node) {}

    void start() { read_header(); }

    /// Closes the socket (from any thread: runs on the session's strand).
    void close() {
        asio::post(m_socket.get_executor(), [self = shared_from_this()] {
            boost::system::error_code ec;
            self->m_socket.shutdown(tcp::socket::shutdown_both, ec);
            self->m_socket.close(ec);
        });
    }

    std::uint32_t node() const noexcept { return m_node; }

private:
    void read_header() {
        asio::async_read(m_socket,
                         asio::buffer(m_header),
                         [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                             if (!ec)
                                 self->read_body();
                         });
    }

    void read_body() {
        auto h = parse_proto_header(std::span<const std::uint8_t, proto::header_size>(m_header));
        if (!h)
            return; // the connection closes when the last handler lets go of it
        m_type = h->type;
        m_need = static_cast<std::size_t>(h->size);
        m_body.clear();
        read_more();
    }

    // The body in chunks of at most 1 MiB: a connection holds what it was
    // sent (plus a chunk), not what its header announced.
    void read_more() {
        if (m_body.size() == m_need) {
            answer();
            return;
        }
        std::size_t at = m_body.size();
        std::size_t chunk = std::min<std::size_t>(m_need - at, std::size_t{1} << 20);
        m_body.resize(at + chunk);
        asio::async_read(m_socket,
                         asio::buffer(m_body.data() + at, chunk),
                         [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                             if (!ec)
                                 self->read_more();
                         });
    }

    void answer() {
        reply r;
        try {
            if (m_type == proto::type_compressed) {
                auto inner = inflate(m_body);
                if (!inner)
                    return; // closes the connection
                m_body = std::move(*inner);
                m_type = proto::type_message;
            }
            r = m_svc.handle(m_node, m_type, m_body);
        } catch (const std::exception&) {
            // bad_alloc and the like: this request fails, the server lives on
            r.close = true;
        }
        // A large body's memory is given back between requests.
        if (m_body.capacity() > 1 << 20)
            std::vector<std::uint8_t>().swap(m_body);
        if (r.bytes.empty()) {
            if (!r.close)
                read_header();
            return;
        }
        m_out = std::move(r.bytes);
        bool close = r.close;
        asio::async_write(
            m_socket,
            asio::buffer(m_out),
            [self = shared_from_this(), close](boost::system::error_code ec, std::size_t) {
                if (self->m_out.capacity() > 1 << 20)
                    std::vector<std::uint8_t>().swap(self->m_out);
                if (!ec && !close)
                    self->read_header();
            });
    }

    tcp::socket m_socket;
    service& m_svc;
    std::uint32_t m_node;
    std::array<std::uint8_t, proto::header_size> m_header{};
    std::uint8_t m_type = 0;
    std::size_t m_need = 0;
    std::vector<std::uint8_t> m_body;
    std::vector<std::uint8_t> m_out;
};

/// N listening ports over one service.
class server {
public:
    /// Binds node n to ports[n] on 127.0.0.1 (0: any free port; ports()
    /// then says which). Throws boost::system::system_error when a port is taken.
    server(service& svc, std::vector<std::uint16_t> ports, unsigned threads)
        : m_svc(svc)
        , m_threads(threads == 0 ? 1 : threads)
        , m_topology(asio::make_strand(m_io)) {
        for (std::size_t n = 0; n < ports.size(); ++n) {
            m_nodes.push_back(std::make_unique<node_ports>());
            m_nodes[n]->acceptor = std::make_unique<tcp::acceptor>(m_topology);
            open(static_cast<std::uint32_t>(n), ports[n]);
        }
    }

    /// The bound ports, node by node.
    std::vector<std::uint16_t> ports() const {
        std::vector<std::uint16_t> out;
        for (const auto& n : m_nodes)
            out.push_back(n->port);
        return out;
    }

    /// Serves until stop() (or SIGINT / SIGTERM when `signals`).
    void run(bool signals) {
        m_svc.on_topology = [this](std::uint32_t n, bool up) {
            asio::post(m_topology, [this, n, up] { up ? reopen(n) : shut(n); });
        };
        asio::signal_set sigs(m_io);
        if (signals) {
            sigs.add(SIGINT);
            sigs.add(SIGTERM);
            sigs.async_wait([this](boost::system::error_code ec, int) {
                if (!ec)
                    stop();
            });
        }
        for (std::uint32_t n = 0; n < m_nodes.size(); ++n)
            asio::post(m_topology, [this, n] { accept(n); });
        std::vector<std::thread> pool;
        for (unsigned i = 1; i < m_threads; ++i)
            pool.emplace_back([this] { m_io.run(); });
        m_io.run();
        for (std::thread& t : pool)
            t.join();
        m_svc.on_topology = nullptr;
    }

    /// Stops serving: closes every port and connection; run() returns.
    void stop() {
        asio::post(m_topology, [this] {
            for (std::uint32_t n = 0; n < m_nodes.size(); ++n)
                shut(n);
            m_io.stop();
        });
    }

private:
    struct node_ports {
        std::unique_ptr<tcp::acceptor> acceptor;
        std::uint16_t port = 0;
        std::mutex mutex;
        std::list<std::weak_ptr<session>> sessions;
    };

    void open(std::uint32_t n, std::uint16_t port) {
        tcp::acceptor& a = *m_nodes[n]->acceptor;
        tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), port);
        a.open(ep.protocol());
        a.set_option(tcp::acceptor::reuse_address(true));
        a.bind(ep);
        a.listen(asio::socket_base::max_listen_connections);
        m_nodes[n]->port = a.local_endpoint().port();
    }

    void accept(std::uint32_t n) {
        tcp::acceptor& a = *m_nodes[n]->acceptor;
        if (!a.is_open())
            return;
        a.async_accept(
            asio::make_strand(m_io), [this, n](boost::system::error_code ec, tcp::socket s) {
                if (ec) {
                    // Closed (node down, stop) ends the loop; anything else
                    // (out of descriptors) is retried.
                    if (ec != asio::error::operation_aborted && m_nodes[n]->acceptor->is_open())
                        accept(n);
                    return;
                }
                boost::system::error_code ignored; // a client already gone fails its first read
                s.set_option(tcp::no_delay(true), ignored);
                auto sess = std::make_shared<session>(std::move(s), m_svc, n);
                {
                    std::lock_guard lock(m_nodes[n]->mutex);
                    auto& list = m_nodes[n]->sessions;
                    list.remove_if([](const std::weak_ptr<session>& w) { return w.expired(); });
                    list.push_back(sess);
                }
                sess->start();
                accept(n);
            });
    }

    void shut(std::uint32_t n) {
        boost::system::error_code ec;
        m_nodes[n]->acceptor->close(ec);
        std::lock_guard lock(m_nodes[n]->mutex);
        for (auto& w : m_nodes[n]->sessions)
            if (auto s = w.lock())
                s->close();
        m_nodes[n]->sessions.clear();
    }

    void reopen(std::uint32_t n) {
        if (m_nodes[n]->acceptor->is_open())
            return;
        try {
            open(n, m_nodes[n]->port);
        } catch (const std::exception& e) {
            std::cerr << "kvmodel serve: node " << n << " cannot listen again on port "
                      << m_nodes[n]->port << ": " << e.what() << '\n';
            return;
        }
        accept(n);
    }

    service& m_svc;
    unsigned m_threads;
    asio::io_context m_io;
    asio::strand<asio::io_context::executor_type> m_topology;
    std::vector<std::unique_ptr<node_ports>> m_nodes;
};

} // namespace kvmodel::tools::serve
