// tests/tools/cdt_runner_test.cpp
//
// `kvmodel cdt` (tools/cdt_runner.hpp): the scenario file
// tests/data/cdt_scenarios.json — every op name of shared/spec/cdt-json.md,
// with expected results taken from AEROSPIKE-CDT.md's examples and rules —
// run through sim::cluster's operate(). Every case but the one whose id says
// "server-crash" (a shape that crashes the 8.1.2 server, AEROSPIKE-CDT.md §12)
// was also run on a real Aerospike Community 8.1.2 server through the probe of
// /work/aerospike: its output was identical, line for line. Also: the exact
// output format; the same
// output from a store that does not report which op failed; invalid cases and
// bad usage giving messages and non-zero exits, never a crash.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../../tools/cdt_runner.hpp"

namespace tools_cdt_runner_test {

using namespace kvmodel;
using namespace kvmodel::tools;

namespace {

const std::filesystem::path data_dir =
    std::filesystem::path(__FILE__).parent_path().parent_path() / "data";

std::string read_file(const std::filesystem::path& p) {
    std::ifstream f(p);
    REQUIRE(f);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

/// Runs input on a fresh sim::cluster; returns the output lines.
std::vector<std::string> run_on_sim(const std::string& input, int& rc) {
    sim::cluster cluster;
    std::ostringstream out;
    rc = cdt_json::run_cases(cluster, input, out);
    return lines_of(out.str());
}

std::string run_one(const std::string& case_json) {
    int rc = 0;
    std::vector<std::string> lines = run_on_sim(case_json, rc);
    REQUIRE(lines.size() == 1);
    return lines[0];
}

/// A kv_store with only the required members (no op_report): the runner must
/// find the failing op itself, as it would on a real server.
class plain_store {
public:
    result<kv::record> get(const kv::key& k, const kv::read_policy& rp) { return m_sim.get(k, rp); }
    result<kv::record>
    operate(const kv::key& k, std::span<const kv::operation> ops, const kv::write_policy& wp) {
        ++operates;
        return m_sim.operate(k, ops, wp);
    }
    result<void> remove(const kv::key& k, const kv::write_policy& wp) {
        return m_sim.remove(k, wp);
    }
    std::size_t operates = 0;

private:
    sim::cluster m_sim;
};
static_assert(kv::kv_store<plain_store>);
static_assert(!cdt_json::detail::reports_failed_op<plain_store>);
static_assert(cdt_json::detail::reports_failed_op<sim::cluster>);

struct cli_result {
    int status = 0;
    std::string out;
    std::string err;
};

cli_result cli(const std::vector<std::string>& args, const std::string& input = "") {
    std::istringstream in(input);
    std::ostringstream out;
    std::ostringstream err;
    cli_result r;
    r.status = cdt_json::run(args, in, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

} // namespace

TEST_CASE("the scenario file: every case gives its expected output", "[tools][cdt_runner]") {
    const std::string text = read_file(data_dir / "cdt_scenarios.json");
    json cases = json::parse(text);
    REQUIRE(cases.is_array());
    int rc = -1;
    std::vector<std::string> lines = run_on_sim(text, rc);
    CHECK(rc == 0);
    REQUIRE(lines.size() == cases.size());
    std::size_t failures = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const json& c = cases[i];
        json got = json::parse(lines[i]);
        json want = c.at("expected");
        want["id"] = c.at("id");
        if (got != want) {
            ++failures;
            UNSCOPED_INFO("case " << c.at("id") << "\n  want " << want.dump() << "\n  got  "
                                  << lines[i] << "\n  notes: " << c.value("notes", ""));
        }
    }
    CHECK(failures == 0);
    // Every case is named once, so a failure message points at one case.
    std::set<std::string> ids;
    for (const json& c : cases)
        CHECK(ids.insert(c.at("id").get<std::string>()).second);
}

TEST_CASE("the scenario file covers every op name of the spec", "[tools][cdt_runner]") {
    json cases = json::parse(read_file(data_dir / "cdt_scenarios.json"));
    std::set<std::string> used;
    for (const json& c : cases)
        for (const json& o : c.at("ops"))
            used.insert(o.at("op").get<std::string>());
    std::vector<std::string> missing;
    for (std::size_t i = 0; i < cdt::op_code_count; ++i) {
        std::string name(cdt::op_name(static_cast<cdt::op_code>(i)));
        if (used.count(name) == 0)
            missing.push_back(name);
    }
    for (cdt::bit_op_code b : cdt::all_bit_op_codes)
        if (used.count(std::string(cdt::bit_op_name(b))) == 0)
            missing.emplace_back(cdt::bit_op_name(b));
    if (used.count("read") == 0)
        missing.emplace_back("read");
    INFO("missing: " << json(missing).dump());
    CHECK(missing.empty());
    CHECK(used.size() == cdt::op_code_count + std::size(cdt::all_bit_op_codes) + 1);
}

TEST_CASE("a store without an op report: the failing op is found by prefixes",
          "[tools][cdt_runner]") {
    // The whole scenario file on both stores gives identical output.
    const std::string text = read_file(data_dir / "cdt_scenarios.json");
    int rc = -1;
    std::vector<std::string> sim_lines = run_on_sim(text, rc);
    plain_store store;
    std::ostringstream out;
    CHECK(cdt_json::run_cases(store, text, out) == 0);
    std::vector<std::string> plain_lines = lines_of(out.str());
    REQUIRE(plain_lines.size() == sim_lines.size());
    for (std::size_t i = 0; i < sim_lines.size(); ++i)
        CHECK(plain_lines[i] == sim_lines[i]);

    // The error lands on the op that fails, not on the first or the last.
    plain_store s2;
    std::ostringstream out2;
    const std::string c = R"({"id": "x", "bin_type": "list", "initial": [1, 2], "ops": [
        {"op": "list_append", "args": {"value": 3}}, {"op": "list_get", "args": {"index": 7}},
        {"op": "list_size"}]})";
    CHECK(cdt_json::run_cases(s2, c, out2) == 0);
    CHECK(
        out2.str() ==
        R"({"id": "x", "results": [null, {"error": "OP_NOT_APPLICABLE", "code": 26}, null], "final": [1, 2], "bin_exists": true})"
        "\n");
}

TEST_CASE("output lines are exactly the spec's notation", "[tools][cdt_runner]") {
    CHECK(
        run_one(R"({"id": "d", "bin_type": "map", "order": "KV_ORDERED",
                      "initial": [["b", {"$double": 2}], [1, {"$bytes": "0A"}]],
                      "ops": [{"op": "map_get_by_index_range", "args": {"index": 0}, "return_type": "KEY_VALUE"},
                              {"op": "map_put", "args": {"key": "n", "value": {"$map": [["z", 1], ["a", [true, null]]]}}}]})") ==
        R"({"id": "d", "results": [[[1, {"$bytes": "0a"}], ["b", {"$double": 2.0}]], 3], )"
        R"("final": {"$map": [[1, {"$bytes": "0a"}], ["b", {"$double": 2.0}], ["n", {"$map": [["a", [true, null]], ["z", 1]]}]]}, "bin_exists": true})");
    // No id: null is echoed.
    CHECK(run_one(R"({"bin_type": "list", "initial": [], "ops": [{"op": "list_size"}]})") ==
          R"({"id": null, "results": [0], "final": [], "bin_exists": true})");
    // Errors name the status and its number.
    CHECK(
        run_one(
            R"({"id": "e", "bin_type": "list", "record_exists": false, "ops": [{"op": "list_size"}]})") ==
        R"({"id": "e", "results": [{"error": "KEY_NOT_FOUND", "code": 2}], "final": null, "bin_exists": false})");
}

TEST_CASE("invalid cases: a line each, the run goes on, exit status 1", "[tools][cdt_runner]") {
    const std::string input =
        R"({"id": "ok1", "bin_type": "list", "initial": [1], "ops": [{"op": "list_size"}]})"
        "\n"
        R"({"id": "bad-op", "bin_type": "list", "initial": [1], "ops": [{"op": "list_frob"}]})"
        "\n"
        R"({"id": "broken", "bin_type": )"
        "\n"
        R"({"id": "inf", "bin_type": "list", "initial": [{"$inf": true}], "ops": [{"op": "list_size"}]})"
        "\n"
        R"({"id": "wild", "bin_type": "map", "initial": [[1, {"$wildcard": true}]], "ops": [{"op": "map_size"}]})"
        "\n"
        R"([1, 2])"
        "\n"
        R"({"id": "ok2", "bin_type": "map", "initial": [], "ops": [{"op": "map_size"}]})"
        "\n";
    int rc = 0;
    std::vector<std::string> lines = run_on_sim(input, rc);
    CHECK(rc == 1);
    REQUIRE(lines.size() == 7);
    CHECK(lines[0] == R"({"id": "ok1", "results": [1], "final": [1], "bin_exists": true})");
    CHECK(lines[1] == R"({"id": "bad-op", "invalid": "ops[0].op: unknown op \"list_frob\""})");
    json broken = json::parse(lines[2]);
    CHECK(broken.at("id").is_null());
    CHECK(broken.at("invalid").get<std::string>().rfind("line 3: parse error", 0) == 0);
    json inf = json::parse(lines[3]);
    CHECK(inf.at("id") == "inf");
    CHECK(inf.at("invalid").get<std::string>().find(
              "initial: the store refused the initial record: PARAMETER_ERROR") == 0);
    CHECK(json::parse(lines[4]).contains("invalid"));
    CHECK(json::parse(lines[5]).at("invalid") == "the case must be a JSON object, got an array");
    CHECK(lines[6] ==
          R"({"id": "ok2", "results": [0], "final": {"$map": []}, "bin_exists": true})");
}

TEST_CASE("an initial record over max-record-size is invalid, not a crash", "[tools][cdt_runner]") {
    json c;
    c["id"] = "huge";
    c["bin_type"] = "list";
    c["initial"] = json::array({std::string(1100000, 'x')});
    c["ops"] = json::array({json{{"op", "list_size"}}});
    json out = json::parse(run_one(c.dump()));
    CHECK(out.at("invalid").get<std::string>().find("RECORD_TOO_BIG") != std::string::npos);
    // Growing past the limit inside the command is the command's error.
    c["initial"] = json::array({std::string(1000000, 'x')});
    c["ops"] =
        json::array({json{{"op", "list_append"}, {"args", {{"value", std::string(100000, 'y')}}}}});
    out = json::parse(run_one(c.dump()));
    CHECK(out.at("results") == json::parse(R"([{"error": "RECORD_TOO_BIG", "code": 13}])"));
    CHECK(out.at("final").size() == 1);
}

TEST_CASE("hostile input never crashes the runner", "[tools][cdt_runner]") {
    const std::vector<std::string> inputs = {
        std::string(100000, '['),
        R"({"id": "n", "bin_type": "list", "initial": [1], "ops": [{"op": "list_get", "args": {"index": 99999999999999999999999}}]})",
        R"({"id": "n", "bin_type": "list", "initial": [1], "ops": [{"op": "list_get", "args": {"index": -9223372036854775808}}]})",
        R"({"id": "n", "bin_type": "list", "initial": [1], "ops": [{"op": "list_get_range", "args": {"index": 9223372036854775807, "count": 9223372036854775807}}]})",
        R"({"id": "n", "bin_type": "list", "initial": [], "ops": [{"op": "list_insert", "args": {"index": 2000000000, "value": 1}}]})",
        R"({"id": "n", "bin_type": "list", "initial": [], "ops": [{"op": "list_append", "args": {"value": 1}, "ctx": [{"type": "list_index_create", "index": 2147483000, "pad": true}]}]})",
        R"({"id": "n", "bin_type": "bytes", "initial": {"$bytes": "00"}, "ops": [{"op": "bit_resize", "args": {"byte_size": 9223372036854775807}}]})",
        R"({"id": "n", "bin_type": "bytes", "initial": {"$bytes": "00"}, "ops": [{"op": "bit_insert", "args": {"byte_offset": 4000000000, "value": {"$bytes": "01"}}}]})",
        R"({"id": "n", "bin_type": "map", "initial": [], "ops": [{"op": "map_get_by_key", "args": {"key": 1}, "return_type": -2147483648}]})",
        "\xff\xfe garbage \x00 bytes",
        R"({"id": "\ud800", "bin_type": "map", "ops": [{"op": "map_size"}]})",
        "",
    };
    for (const std::string& in : inputs) {
        INFO(in.substr(0, 200));
        int rc = 0;
        std::vector<std::string> lines = run_on_sim(in, rc);
        for (const std::string& l : lines)
            CHECK_NOTHROW(json::parse(l));
        if (!in.empty())
            CHECK(lines.size() == 1);
    }
}

TEST_CASE("the command line: help, options, files", "[tools][cdt_runner]") {
    cli_result r = cli({"--help"});
    CHECK(r.status == 0);
    CHECK(r.out.find("usage: kvmodel cdt") == 0);

    r = cli({}, R"({"id": "a", "bin_type": "list", "initial": [], "ops": [{"op": "list_size"}]})");
    CHECK(r.status == 0);
    CHECK(r.out == "{\"id\": \"a\", \"results\": [0], \"final\": [], \"bin_exists\": true}\n");
    r = cli({"-", "--backend", "sim"},
            R"({"id": "a", "bin_type": "list", "initial": [], "ops": [{"op": "list_size"}]})");
    CHECK(r.status == 0);

    r = cli({(data_dir / "cdt_scenarios.json").string()});
    CHECK(r.status == 0);
    CHECK(lines_of(r.out).size() == json::parse(read_file(data_dir / "cdt_scenarios.json")).size());

    for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
             {"--frob"}, {"a.json", "b.json"}, {"--backend"}, {"--backend", "redis"}}) {
        INFO(bad[0]);
        r = cli(bad);
        CHECK(r.status == 2);
        CHECK_FALSE(r.err.empty());
        CHECK(r.out.empty());
    }
    r = cli({"/no/such/file.json"});
    CHECK(r.status == 1);
    CHECK(r.err.find("cannot open '/no/such/file.json'") != std::string::npos);
    r = cli({"-"}, R"({"id": "x", "ops": []})");
    CHECK(r.status == 1);
    CHECK(r.err.find("invalid") != std::string::npos);
}

TEST_CASE("kvmodel cdt runs the expression cases of exp-json.md", "[tools][cdt][exp]") {
    // Other bins, a named case bin, exp_read / exp_write, read_bin / write_bin.
    CHECK(run_one(R"({"id": "e1", "bin_type": "map", "bin_name": "m", "bins": {"a": 12},
        "initial": [["k", 5]],
        "ops": [{"op": "exp_read", "name": "r", "exp": ["let", ["def", "x", ["bin_int", "a"]],
                   ["cond", ["cmp_gt", ["var", "x"], 5], ["mul", ["var", "x"], 2], -1]]},
                {"op": "exp_write", "bin": "w",
                 "exp": ["map_get_by_key", null, "VALUE", "INT", "k", ["bin_map", "m"]]},
                {"op": "read_bin", "bin": "w"}, {"op": "write_bin", "bin": "z", "value": [1]}]})") ==
          R"({"id": "e1", "results": [24, null, 5, null], "final": {"$map": [["k", 5]]}, )"
          R"("bin_exists": true, "bins": {"a": 12, "m": {"$map": [["k", 5]]}, "w": 5, "z": [1]}})");
    // A false filter: FILTERED_OUT on the first op, nothing written.
    CHECK(run_one(R"({"id": "e2", "bins": {"a": 1}, "filter": ["cmp_gt", ["bin_int", "a"], 10],
        "ops": [{"op": "write_bin", "bin": "b", "value": 3}, {"op": "read_bin", "bin": "a"}]})") ==
          R"({"id": "e2", "results": [{"error": "FILTERED_OUT", "code": 27}, null], "final": null, )"
          R"("bin_exists": false, "bins": {"a": 1}})");
    // Unknown without EVAL_NO_FAIL fails the command; with it, nil.
    CHECK(run_one(R"({"id": "e3", "bins": {"a": 1}, "ops": [
        {"op": "exp_read", "name": "r", "exp": ["bin_int", "nope"], "flags": ["EVAL_NO_FAIL"]},
        {"op": "exp_read", "name": "q", "exp": ["unknown"]}]})") ==
          R"({"id": "e3", "results": [null, {"error": "OP_NOT_APPLICABLE", "code": 26}], "final": null, )"
          R"("bin_exists": false, "bins": {"a": 1}})");
    // The record's key is the case's id, stored with send_key.
    CHECK(run_one(R"({"id": "k1", "bins": {"a": 1}, "send_key": true, "ops": [
        {"op": "exp_read", "name": "r", "exp": ["cmp_eq", ["key_str"], "k1"]},
        {"op": "exp_read", "name": "s", "exp": ["set_name"]}]})")
              .find(R"("results": [true, "cdt"])") != std::string::npos);
    // Bit calls, regex with flags, a list value argument.
    CHECK(run_one(R"({"id": "e4", "bins": {"y": {"$bytes": "0f"}, "s": "Abc"}, "ops": [
        {"op": "exp_read", "name": "r", "exp": ["bit_count", 0, 8, ["bin_blob", "y"]]},
        {"op": "exp_read", "name": "q", "exp": ["bit_not", null, 0, 8, ["bin_blob", "y"]]},
        {"op": "exp_read", "name": "t", "exp": ["cmp_regex", ["ICASE"], "^ab", ["bin_str", "s"]]},
        {"op": "exp_read", "name": "u", "exp": ["in_list", 2, {"$list": [1, 2]}]}]})")
              .find(R"("results": [4, {"$bytes": "f0"}, true, true])") != std::string::npos);

    // An unknown name or a wrong argument count makes the case invalid.
    for (const char* bad :
         {R"({"id": "x", "bins": {"a": 1}, "ops": [{"op": "exp_read", "name": "r", "exp": ["nope"]}]})",
          R"({"id": "x", "bins": {"a": 1}, "ops": [{"op": "exp_read", "name": "r", "exp": ["cmp_eq", 1]}]})",
          R"({"id": "x", "bins": {"a": 1}, "ops": [{"op": "exp_read", "exp": 1}]})",
          R"({"id": "x", "bins": {"a": 1}, "filter": ["list_size", 1]})"}) {
        INFO(bad);
        int rc = 0;
        std::vector<std::string> lines = run_on_sim(bad, rc);
        CHECK(rc == 1);
        REQUIRE(lines.size() == 1);
        CHECK(lines[0].find("\"invalid\"") != std::string::npos);
    }
}

TEST_CASE("kvmodel cdt reads the additions to cdt-json.md", "[tools][cdt]") {
    // A nested map's $order; UNORDERED as a list order; empty args; no delta is 1.
    CHECK(run_one(R"({"id": "o", "bin_type": "map",
        "initial": [["a", {"$map": [[2, 1], [1, 2]], "$order": "K_ORDERED"}]],
        "ops": [{"op": "map_get_by_index", "args": {"index": 0}, "ctx": [{"type": "map_key", "key": "a"}]},
                {"op": "map_increment", "args": {"key": "b"}}, {"op": "map_size", "args": {}}]})") ==
          R"({"id": "o", "results": [2, 1, 2], "final": {"$map": [["a", {"$map": [[1, 2], [2, 1]]}], ["b", 1]]}, "bin_exists": true})");
    CHECK(run_one(R"({"id": "u", "bin_type": "list", "initial": [3, 1],
        "ops": [{"op": "read", "args": {}}, {"op": "list_increment", "args": {"index": 0}},
                {"op": "list_set_order", "args": {"order": "UNORDERED"}},
                {"op": "list_append", "args": {"value": 0}, "policy_order": "UNORDERED"}]})") ==
          R"({"id": "u", "results": [[3, 1], 4, null, 3], "final": [4, 1, 0], "bin_exists": true})");
}

} // namespace tools_cdt_runner_test
