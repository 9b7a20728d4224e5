// tests/tools/serve_fuzz.cpp
//
// The libFuzzer target of `kvmodel serve`'s protocol parser (built with
// -DKVMODEL_FUZZ=ON and clang: tools/CMakeLists.txt; ctest runs it for
// KVMODEL_FUZZ_SECONDS as the test serve_fuzz). An input is what a
// connection receives: its first byte picks the node (of two), the rest is
// answered by tools/serve/stream.hpp exactly as a session answers its input
// buffer: proto headers, info requests (the test powers included),
// messages (header, fields, ops, batch), compressed messages (type 4).
// Every answer must be whole protos whose sizes add up; a crash, a leak or
// undefined behaviour is what the sanitizers report. One two-node cluster
// serves the run, reset (kvmodel-reset: nodes up, faults cleared, records
// truncated) after every 100th input and after any input holding
// "kvmodel-" (a test power): a finding may depend on the inputs run since
// the last reset, not only on the one libFuzzer reports.
//
// Seeds: when the corpus directory given first on the command line is
// empty, LLVMFuzzerInitialize writes a few valid streams into it (built
// with the tests' client half of the codec, serve_wire_store.hpp): info
// requests, put / get / operate with list, map, bit and HLL ops / delete, a
// batch, a compressed put, two pipelined requests.
#include <kvmodel/cdt/bit_ops.hpp>
#include <kvmodel/cdt/hll_ops.hpp>
#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../../tools/serve/stream.hpp"
#include "serve_wire_store.hpp"

#ifdef KVMODEL_SERVE_ZLIB
#    include <zlib.h>
#endif

namespace tools_serve_fuzz {

using namespace kvmodel;
using namespace kvmodel::tools::serve;
using testing::bytes_t;

// A proto frame: header (version, type, body size) then the body.
bytes_t frame(std::uint8_t type, std::span<const std::uint8_t> body) {
    bytes_t out{proto::version, type};
    put_be(out, body.size(), 6);
    out.insert(out.end(), body.begin(), body.end());
    return out;
}

bytes_t info(std::string_view text) {
    return frame(proto::type_info,
                 std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

bytes_t
message(const kv::key& k, std::vector<kv::operation> ops, std::uint8_t i1, std::uint8_t i2) {
    auto body = testing::wire_store::request(k, ops, i1, i2);
    if (!body)
        std::abort(); // a seed the codec cannot pack is this file's bug
    return frame(proto::type_message, *body);
}

std::vector<bytes_t> seeds() {
    kv::key k("test", "s", "k");
    namespace lo = cdt::list_ops;
    namespace mo = cdt::map_ops;
    bytes_t put =
        message(k,
                {kv::op::write("a", value(1)),
                 kv::op::write("s", value("x")),
                 kv::op::cdt("m", mo::put_items({{value("b"), value(2)}, {value(1), value(1)}})),
                 kv::op::cdt("l", lo::append(value(3)))},
                0,
                info2::write | info2::respond_all_ops);
    bytes_t get = message(k, {}, info1::read | info1::get_all, 0);
    std::vector<bytes_t> out{
        info(
            "node\nbuild\nfeatures\npartition-generation\nreplicas\npeers-clear-std\nnamespaces\n"),
        info("statistics\nkvmodel-clock\nkvmodel-clock-advance:ms=1000\n"),
        info("sindex-create:ns=test;set=s;indexname=ix;indexdata=a,numeric\n"),
        put,
        get,
        message(k,
                {kv::op::cdt("l", lo::append(value(list{value(1), value("a")}))),
                 kv::op::cdt("m", mo::get_by_rank_range(0, 2, cdt::return_type::key_value)),
                 kv::op::bit("b", cdt::bit_ops::bit_resize(4)),
                 kv::op::hll("h", cdt::hll_ops::hll_init(8)),
                 kv::op::add("a", value(2)),
                 kv::op::read("s")},
                info1::read,
                info2::write | info2::respond_all_ops),
        message(k, {}, 0, info2::write | info2::remove),
        frame(proto::type_message,
              testing::batch_read_body(kv::key("test", "", 1), kv::key("test", "", 2))),
    };
    bytes_t pipelined = put;
    pipelined.insert(pipelined.end(), get.begin(), get.end());
    out.push_back(pipelined);
#ifdef KVMODEL_SERVE_ZLIB
    // The uncompressed size, then the zlib stream of the whole put frame.
    uLongf size = compressBound(static_cast<uLong>(put.size()));
    bytes_t packed;
    put_be(packed, put.size(), 8);
    packed.resize(8 + size);
    if (compress(packed.data() + 8, &size, put.data(), static_cast<uLong>(put.size())) != Z_OK)
        std::abort();
    packed.resize(8 + size);
    out.push_back(frame(proto::type_compressed, packed));
#endif
    for (bytes_t& s : out)
        s.insert(s.begin(), 0); // node 0
    return out;
}

// Whether `out` is whole protos (version 2, sizes adding up to its length).
bool whole_protos(std::span<const std::uint8_t> out) {
    while (!out.empty()) {
        if (out.size() < proto::header_size || out[0] != proto::version)
            return false;
        std::uint64_t size = get_be(out.data() + 2, 6);
        if (size > out.size() - proto::header_size)
            return false;
        out = out.subspan(proto::header_size + static_cast<std::size_t>(size));
    }
    return true;
}

} // namespace tools_serve_fuzz

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    // The first argument that is not a -flag is the corpus directory.
    for (int i = 1; i < *argc; ++i) {
        std::string_view a((*argv)[i]);
        if (a.empty() || a[0] == '-')
            continue;
        std::filesystem::path dir(a);
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (!std::filesystem::is_directory(dir) || !std::filesystem::is_empty(dir))
            break;
        int n = 0;
        for (const auto& s : tools_serve_fuzz::seeds()) {
            std::ofstream f(dir / ("seed-" + std::to_string(n++)), std::ios::binary);
            f.write(reinterpret_cast<const char*>(s.data()),
                    static_cast<std::streamsize>(s.size()));
        }
        break;
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace kvmodel;
    if (size == 0)
        return 0;
    // One cluster for the run (building one costs more than most inputs),
    // reset after each input: every node up, no faults, no records.
    static sim::cluster db([] {
        sim::cluster_config cfg;
        cfg.nodes = 2;
        return cfg;
    }());
    static tools::serve::service svc(db, {3000, 3001}, "kvmodel");
    static const std::string reset = "kvmodel-reset\n";
    std::vector<std::uint8_t> out;
    auto step = tools::serve::answer_stream(
        svc, data[0] % 2U, std::span<const std::uint8_t>(data + 1, size - 1), out);
    if (step.used > size - 1 || !tools_serve_fuzz::whole_protos(out))
        std::abort();
    // A reset truncates 4096 partitions (ten times an input's cost): after
    // every 100th input, and after any that may have used a test power.
    static unsigned since_reset = 0;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    if (++since_reset < 100 && text.find("kvmodel-") == std::string_view::npos)
        return 0;
    since_reset = 0;
    auto r =
        svc.handle(0,
                   tools::serve::proto::type_info,
                   std::span(reinterpret_cast<const std::uint8_t*>(reset.data()), reset.size()));
    if (r.close)
        std::abort();
    return 0;
}
