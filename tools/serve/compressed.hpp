// tools/serve/compressed.hpp
//
// Compressed messages (proto type 4), as the clients send them when their
// policy asks for compression: the body is the uncompressed size (u64,
// big-endian) then a zlib stream of a whole type-3 proto (header and body).
// inflate() gives that proto's body back, or PARAMETER_ERROR for a size
// over proto::max_body, a stream that does not inflate to exactly that size,
// or a proto inside that is not a message. Answers go back uncompressed,
// which the clients accept. Needs zlib (KVMODEL_SERVE_ZLIB); without it
// compressed messages close the connection.
#pragma once

#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "wire.hpp"

#ifdef KVMODEL_SERVE_ZLIB
#    include <zlib.h>
#endif

namespace kvmodel::tools::serve {

/// The message body inside a compressed proto's body.
inline result<std::vector<std::uint8_t>> inflate(std::span<const std::uint8_t> body) {
#ifdef KVMODEL_SERVE_ZLIB
    if (body.size() < 8)
        return fail(status::parameter_error,
                    "compressed: body of " + std::to_string(body.size()) +
                        " bytes, no uncompressed size");
    std::uint64_t size = get_be(body.data(), 8);
    if (size < proto::header_size || size > proto::max_body + proto::header_size)
        return fail(status::parameter_error,
                    "compressed: uncompressed size " + std::to_string(size) + " out of bounds");
    std::vector<std::uint8_t> out(static_cast<std::size_t>(size));
    auto out_size = static_cast<uLongf>(size);
    int rv =
        uncompress(out.data(), &out_size, body.data() + 8, static_cast<uLong>(body.size() - 8));
    if (rv != Z_OK || out_size != size)
        return fail(status::parameter_error,
                    "compressed: the zlib stream does not inflate to " + std::to_string(size) +
                        " bytes");
    auto h = parse_proto_header(
        std::span<const std::uint8_t, proto::header_size>(out.data(), proto::header_size));
    if (!h || h->type != proto::type_message || h->size != size - proto::header_size)
        return fail(status::parameter_error, "compressed: the inflated proto is not one message");
    out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(proto::header_size));
    return out;
#else
    (void)body;
    return fail(status::unsupported_feature, "compressed: kvmodel serve was built without zlib");
#endif
}

} // namespace kvmodel::tools::serve
