// tools/serve/server.hpp
//
// The sockets of `kvmodel serve` (Boost.Asio): one listening port per node on
// 127.0.0.1, each connection a loop of read what arrived -> service::handle
// each whole request in it -> write all the answers with one send, on a pool
// of threads, one io_context each (the sim is thread-safe; a connection
// stays on the thread it was given).
//
// What a connection does with its bytes is stream.hpp (compressed
// messages, type 4, are inflated first: compressed.hpp).
//
// Bounds: a body over proto::max_body (the server's 128 MiB), a bad version
// or type, or a message that does not parse closes the connection before
// anything more is read; the input buffer grows by at most 1 MiB past what
// was received, so a connection holds what it was sent, not what a header
// claims; answers go in the order of the requests. A node taken down
// (service::set_node) closes its listening socket and every connection to
// it, so clients see refused connections and move to the replicas; brought
// up, it listens again on the same port. stop() closes everything and
// returns from run().
#pragma once

#include <boost/asio.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <list>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "service.hpp"
#include "stream.hpp"
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

    void start() { read_more(); }

    /// Closes the socket (from any thread: runs on the session's thread).
    void close() {
        asio::post(m_socket.get_executor(), [self = shared_from_this()] {
            boost::system::error_code ec;
            self->m_socket.shutdown(tcp::socket::shutdown_both, ec);
            self->m_socket.close(ec);
        });
    }

    std::uint32_t node() const noexcept { return m_node; }

private:
    static constexpr std::size_t min_buffer = std::size_t{16} << 10;
    static constexpr std::size_t chunk = std::size_t{1} << 20;

    // Reads what the socket has (at least one byte) into the input buffer.
    // The buffer grows towards the frame being read by at most 1 MiB past
    // what was received: a connection holds what it was sent, not what a
    // header announced.
    void read_more() {
        std::size_t want = proto::header_size;
        if (m_len >= proto::header_size)
            want += static_cast<std::size_t>(
                get_be(m_in.data() + 2, 6)); // checked by process() already
        std::size_t target = std::max(min_buffer, std::min(want, m_len + chunk));
        if (m_in.size() < target)
            m_in.resize(target);
        m_socket.async_read_some(
            asio::buffer(m_in.data() + m_len, m_in.size() - m_len),
            [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
                if (ec)
                    return; // the connection closes when the last handler lets go of it
                self->m_len += n;
                self->process();
            });
    }

    // Answers every whole request in the buffer (a pipelining client's
    // several at once: stream.hpp), then sends all the answers with one write.
    void process() {
        stream_step step =
            answer_stream(m_svc, m_node, std::span<const std::uint8_t>(m_in.data(), m_len), m_out);
        std::size_t at = step.used;
        bool close = step.close;
        if (at > 0) {
            std::memmove(m_in.data(), m_in.data() + at, m_len - at);
            m_len -= at;
        }
        // A large body's memory is given back between requests.
        if (m_in.size() > chunk && m_len < min_buffer) {
            m_in.resize(min_buffer);
            m_in.shrink_to_fit();
        }
        if (m_out.empty()) {
            if (!close)
                read_more();
            return;
        }
        asio::async_write(
            m_socket,
            asio::buffer(m_out),
            [self = shared_from_this(), close](boost::system::error_code ec, std::size_t) {
                self->m_out.clear();
                if (self->m_out.capacity() > chunk)
                    std::vector<std::uint8_t>().swap(self->m_out);
                if (ec || close)
                    return;
                // Requests that came with the last read and are now whole
                // (none: process() answered them all) or more to read.
                self->read_more();
            });
    }

    tcp::socket m_socket;
    service& m_svc;
    std::uint32_t m_node;
    std::vector<std::uint8_t> m_in; // received, m_len bytes of it
    std::size_t m_len = 0;
    std::vector<std::uint8_t> m_out;
};

/// N listening ports over one service.
class server {
public:
    /// Binds node n to ports[n] on 127.0.0.1 (0: any free port; ports()
    /// then says which). Throws boost::system::system_error when a port is taken.
    server(service& svc, std::vector<std::uint16_t> ports, unsigned threads)
        : m_svc(svc)
        , m_topology(asio::make_strand(m_io)) {
        // One io_context per thread, each run by its own thread: a
        // connection's handlers stay on one thread (no strand, no hand-over
        // between threads per request). Context 0 also runs the acceptors.
        for (unsigned i = 1; i < std::max(threads, 1U); ++i)
            m_workers.push_back(std::make_unique<asio::io_context>(1));
        for (auto& w : m_workers)
            m_guards.emplace_back(w->get_executor());
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
        for (auto& w : m_workers)
            pool.emplace_back([&io = *w] { io.run(); });
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
            m_guards.clear(); // the workers return when their connections are closed
            m_io.stop();
            for (auto& w : m_workers)
                w->stop();
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
        a.async_accept(next_executor(), [this, n](boost::system::error_code ec, tcp::socket s) {
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
    // Where the next connection runs: the contexts in turn.
    asio::any_io_executor next_executor() {
        std::size_t i = m_next++ % (m_workers.size() + 1);
        return i == 0 ? m_io.get_executor() : m_workers[i - 1]->get_executor();
    }

    // The workers before m_io, so they die after it: m_io may still hold an
    // aborted accept whose peer socket belongs to a worker's context.
    std::vector<std::unique_ptr<asio::io_context>> m_workers;
    asio::io_context m_io{1};
    std::vector<asio::executor_work_guard<asio::io_context::executor_type>> m_guards;
    std::size_t m_next = 0; // only the topology strand accepts
    asio::strand<asio::io_context::executor_type> m_topology;
    std::vector<std::unique_ptr<node_ports>> m_nodes;
};

} // namespace kvmodel::tools::serve
