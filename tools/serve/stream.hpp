// tools/serve/stream.hpp
//
// What a `kvmodel serve` connection does with the bytes it received, without
// the socket: every whole request at the start of the buffer (proto header,
// then its body: info, message, or compressed message inflated first) gets
// its answer, in order; a bad proto header, or a request whose answer closes
// the connection, ends the stream. server.hpp's sessions call this on their
// input buffer, and so does the parser's fuzz target (tools/serve/fuzz.cpp),
// so the fuzzer reaches exactly what a socket's bytes reach.
#pragma once

#include <cstdint>
#include <exception>
#include <span>
#include <vector>

#include "compressed.hpp"
#include "service.hpp"
#include "wire.hpp"

namespace kvmodel::tools::serve {

/// The answer to one whole request of proto type `type` received by node n;
/// a compressed message that does not inflate, and an exception out of the
/// service (bad_alloc and the like), close the connection.
inline reply answer_request(service& svc,
                            std::uint32_t node,
                            std::uint8_t type,
                            std::span<const std::uint8_t> body) {
    try {
        if (type == proto::type_compressed) {
            auto inner = inflate(body);
            if (!inner)
                return {{}, true};
            return svc.handle(node, proto::type_message, *inner);
        }
        return svc.handle(node, type, body);
    } catch (const std::exception&) {
        // this request fails, the server lives on
        return {{}, true};
    }
}

/// What answer_stream did with a buffer.
struct stream_step {
    std::size_t used = 0; // bytes of whole requests answered (the rest waits for more)
    bool close = false;   // the connection closes once `out` is sent
};

/// Answers every whole request at the start of `in` (a pipelining client's
/// several at once), appending the answers to `out`.
/// Complexity: the requests' own costs; one pass over `in`.
inline stream_step answer_stream(service& svc,
                                 std::uint32_t node,
                                 std::span<const std::uint8_t> in,
                                 std::vector<std::uint8_t>& out) {
    stream_step s;
    while (in.size() - s.used >= proto::header_size) {
        auto h = parse_proto_header(std::span<const std::uint8_t, proto::header_size>(
            in.data() + s.used, proto::header_size));
        if (!h) {
            s.close = true; // a bad header: what was answered goes, then the connection closes
            return s;
        }
        if (in.size() - s.used - proto::header_size < h->size)
            return s;
        reply r = answer_request(
            svc,
            node,
            h->type,
            in.subspan(s.used + proto::header_size, static_cast<std::size_t>(h->size)));
        s.used += proto::header_size + static_cast<std::size_t>(h->size);
        if (out.empty())
            out = std::move(r.bytes);
        else
            out.insert(out.end(), r.bytes.begin(), r.bytes.end());
        if (r.close) {
            s.close = true;
            return s;
        }
    }
    return s;
}

} // namespace kvmodel::tools::serve
