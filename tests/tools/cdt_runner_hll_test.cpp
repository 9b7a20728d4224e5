// tests/tools/cdt_runner_hll_test.cpp
//
// `kvmodel cdt` with HyperLogLog bins (shared/spec/cdt-json.md, "HyperLogLog
// bins"): bin_type "hll", {"$hll": hex} values in and out, every op name and
// argument name, flags, errors, and invalid cases. The one-element sketch is
// the one worked out by hand in tests/cdt/hll_ops_test.cpp.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "../../tools/cdt_runner.hpp"

namespace tools_cdt_runner_hll_test {

using namespace kvmodel;
using namespace kvmodel::tools;

namespace {

std::string run_one(const std::string& case_json, int* rc_out = nullptr) {
    sim::cluster cluster;
    std::ostringstream out;
    const int rc = cdt_json::run_cases(cluster, case_json, out);
    if (rc_out != nullptr)
        *rc_out = rc;
    std::string s = out.str();
    REQUIRE(!s.empty());
    REQUIRE(s.back() == '\n');
    s.pop_back();
    REQUIRE(s.find('\n') == std::string::npos);
    return s;
}

const std::string one_element = "000400"
                                "0000000000000000"
                                "000000001000000000000000";
// The same with its count (1) cached by hll_refresh_count, little-endian.
const std::string cached = "000400"
                           "0100000000000000"
                           "000000001000000000000000";

} // namespace

TEST_CASE("hll ops run with the spec's names and notation", "[tools][cdt_runner]") {
    CHECK(run_one(R"({"id": "a", "bin_type": "hll", "initial": null, "ops": [
        {"op": "hll_add", "args": {"values": [0], "index_bit_count": 4}},
        {"op": "hll_get_count"}, {"op": "hll_describe"},
        {"op": "hll_may_contain", "args": {"values": [0]}}]})") ==
          R"({"id": "a", "results": [1, 1, [4, 0], 1], "final": {"$hll": ")" + one_element +
              R"("}, "bin_exists": true})");
    // An $hll initial, a union read, a refresh that caches the count.
    const std::string in = R"({"id": "b", "bin_type": "hll", "initial": {"$hll": ")" + one_element +
                           R"("}, "ops": [
        {"op": "hll_get_union", "args": {"values": [{"$hll": ")" +
                           one_element + R"("}]}},
        {"op": "hll_get_union_count", "args": {"values": [{"$hll": ")" +
                           one_element + R"("}]}},
        {"op": "hll_get_intersect_count", "args": {"values": [{"$hll": ")" +
                           one_element + R"("}]}},
        {"op": "hll_refresh_count"}]})";
    CHECK(run_one(in) == R"({"id": "b", "results": [{"$hll": ")" + one_element +
                             R"("}, 1, 1, 1], "final": {"$hll": ")" + cached +
                             R"("}, "bin_exists": true})");
}

TEST_CASE("hll flags, errors and empty similarity", "[tools][cdt_runner]") {
    CHECK(
        run_one(R"({"id": "c", "bin_type": "hll", "initial": null, "ops": [
        {"op": "hll_init", "args": {"index_bit_count": 4}, "flags": ["UPDATE_ONLY"]}]})") ==
        R"({"id": "c", "results": [{"error": "BIN_NOT_FOUND", "code": 17}], "final": null, "bin_exists": false})");
    CHECK(
        run_one(R"({"id": "d", "bin_type": "hll", "initial": null, "ops": [
        {"op": "hll_init", "args": {"index_bit_count": 4, "minhash_bit_count": 4}},
        {"op": "hll_get_similarity", "args": {"values": [{"$hll": "00040400000000000000000000000000000000000000000000000000000000"}]}},
        {"op": "hll_fold", "args": {"index_bit_count": 4}}]})") ==
        R"({"id": "d", "results": [null, null, {"error": "OP_NOT_APPLICABLE", "code": 26}], "final": null, "bin_exists": false})");
    CHECK(
        run_one(R"({"id": "e", "bin_type": "hll", "initial": null, "ops": [
        {"op": "hll_init", "args": {"index_bit_count": 4, "minhash_bit_count": 4}},
        {"op": "hll_get_similarity", "args": {"values": [{"$hll": "00040400000000000000000000000000000000000000000000000000000000"}]}}]})") ==
        R"({"id": "e", "results": [null, {"$double": "NaN"}], "final": {"$hll": "00040400000000000000000000000000000000000000000000000000000000"}, "bin_exists": true})");
    // A bin of another type.
    CHECK(
        run_one(
            R"({"id": "f", "bin_type": "hll", "initial": "x", "ops": [{"op": "hll_get_count"}]})") ==
        R"({"id": "f", "results": [{"error": "BIN_TYPE_ERROR", "code": 12}], "final": "x", "bin_exists": true})");
}

TEST_CASE("malformed hll cases are invalid", "[tools][cdt_runner]") {
    int rc = 0;
    CHECK(
        run_one(
            R"({"id": "g", "bin_type": "hll", "ops": [{"op": "hll_get_count", "flags": ["NO_FAIL"]}]})",
            &rc)
            .find("takes no flags") != std::string::npos);
    CHECK(rc == 1);
    CHECK(
        run_one(
            R"({"id": "h", "bin_type": "hll", "ops": [{"op": "hll_add", "args": {"values": [1], "bits": 4}}]})")
            .find("unknown argument 'bits'") != std::string::npos);
    CHECK(
        run_one(
            R"({"id": "i", "bin_type": "hll", "ops": [{"op": "hll_set_union", "args": {"values": [{"$bytes": "00"}]}}]})")
            .find("expected an HLL") != std::string::npos);
    CHECK(
        run_one(
            R"({"id": "j", "bin_type": "hll", "ops": [{"op": "hll_init", "flags": ["PARTIAL"]}]})")
            .find("unknown flag") != std::string::npos);
}

} // namespace tools_cdt_runner_hll_test
