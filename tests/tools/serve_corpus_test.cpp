// tests/tools/serve_corpus_test.cpp
//
// The recorded CDT corpora (tests/adapters/data/<suite>.json beside
// <suite>.server.jsonl, what Aerospike 8.1.2 answered) replayed through
// `kvmodel serve`'s wire protocol: each case's ops packed as the C client
// packs them (serve_wire_store.hpp), decoded by the server side
// (tools/serve/ops.hpp: the expression engine's CDT decoder, the bit
// decoder), run on sim::cluster, and the answer unpacked again. Each line
// must equal the server's; where it does not, it must equal the simulator's
// own line (adapters_cdt_conformance_test holds the simulator to the
// server's, allowing only UNORDERED_MAP results to differ in map order).
#include <kvmodel/core/json.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../tools/cdt_runner.hpp"
#include "../sanitized.hpp"
#include "serve_wire_store.hpp"

namespace tools_serve_corpus_test {

using namespace kvmodel;

namespace {

std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    REQUIRE(f.good());
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos)
            end = text.size();
        if (end > at)
            out.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

} // namespace

TEST_CASE("the recorded CDT corpora answer through the wire as the server did", "[tools][serve]") {
    const std::filesystem::path dir =
        std::filesystem::path(__FILE__).parent_path().parent_path() / "adapters" / "data";
    std::vector<std::string> suites;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        std::string name = e.path().filename().string();
        const std::string tail = ".server.jsonl";
        if (name.size() > tail.size() && name.ends_with(tail))
            suites.push_back(name.substr(0, name.size() - tail.size()));
    }
    // Every corpus, the HLL and expression ones included.
    std::sort(suites.begin(), suites.end());
    REQUIRE(suites.size() >= 12);
    CHECK(std::count(suites.begin(), suites.end(), "exp_random") == 1);
    CHECK(std::count(suites.begin(), suites.end(), "hll_random") == 1);
    for (const std::string& suite : suites) {
        SECTION(suite) {
            nlohmann::json cases = nlohmann::json::parse(slurp(dir / (suite + ".json")));
            std::vector<std::string> expected = split_lines(slurp(dir / (suite + ".server.jsonl")));
            REQUIRE(cases.size() == expected.size());
            if (KVMODEL_TEST_SANITIZED) {
                // -O0 with the sanitizers: every 10th case of each suite.
                nlohmann::json some = nlohmann::json::array();
                std::vector<std::string> some_expected;
                for (std::size_t i = 0; i < cases.size(); i += 10) {
                    some.push_back(cases[i]);
                    some_expected.push_back(expected[i]);
                }
                cases = std::move(some);
                expected = std::move(some_expected);
            }

            // nsup every 60 s, as on the server the corpora were recorded on
            // (a case may write its record with a TTL).
            const auto config = sim::cluster_config{}.with_nsup_period(60);
            sim::cluster db(config);
            tools::serve::service svc(db, {3000, 3001, 3002}, "kvmodel");
            tools::serve::testing::wire_store wire(svc);
            std::ostringstream through_wire;
            CHECK(tools::cdt_json::run_cases(wire, cases.dump(), through_wire) == 0);
            std::vector<std::string> got = split_lines(through_wire.str());
            REQUIRE(got.size() == expected.size());

            // The simulator's own lines, for the cases whose wire line is not the server's.
            nlohmann::json differing = nlohmann::json::array();
            for (std::size_t i = 0; i < got.size(); ++i)
                if (got[i] != expected[i])
                    differing.push_back(cases[i]);
            sim::cluster direct_db(config);
            std::ostringstream direct;
            CHECK(tools::cdt_json::run_cases(direct_db, differing.dump(), direct) == 0);
            std::vector<std::string> sim_lines = split_lines(direct.str());
            REQUIRE(sim_lines.size() == differing.size());

            std::size_t as_server = 0;
            std::size_t as_sim = 0;
            std::size_t shown = 0;
            std::size_t next_sim = 0;
            for (std::size_t i = 0; i < got.size(); ++i) {
                if (got[i] == expected[i]) {
                    ++as_server;
                } else if (got[i] == sim_lines[next_sim++]) {
                    ++as_sim;
                } else if (shown++ < 10) {
                    UNSCOPED_INFO("case " << cases[i].dump() << "\n  wire:   " << got[i]
                                          << "\n  server: " << expected[i]);
                }
            }
            INFO(suite << ": " << as_server << " of " << got.size() << " lines as the server's, "
                       << as_sim << " as the simulator's");
            CHECK(as_server + as_sim == got.size());
            CHECK(as_server * 100 >= got.size() * 95);
        }
    }
}

} // namespace tools_serve_corpus_test
