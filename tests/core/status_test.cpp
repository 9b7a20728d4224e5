// tests/core/status_test.cpp
//
// Result codes: Aerospike's numbers (server codes as the server sends them,
// client codes as the C client's as_status numbers them) and the upper-case
// names the tools print (shared/spec/cdt-json.md).
#include <kvmodel/core/status.hpp>

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace core_status_test {

using namespace kvmodel;

TEST_CASE("status numbers and names are Aerospike's", "[core][status]") {
    struct row {
        status s;
        int code;
        std::string_view name;
    };
    // The names and numbers cdt-json.md lists, plus the rest of AEROSPIKE-CDT.md §11.
    const std::vector<row> rows = {
        {status::ok, 0, "OK"},
        {status::server_error, 1, "SERVER_ERROR"},
        {status::record_not_found, 2, "KEY_NOT_FOUND"},
        {status::generation_error, 3, "GENERATION_ERROR"},
        {status::parameter_error, 4, "PARAMETER_ERROR"},
        {status::record_exists, 5, "RECORD_EXISTS"},
        {status::bin_exists_error, 6, "BIN_EXISTS_ERROR"},
        {status::timeout, 9, "TIMEOUT"},
        {status::partition_unavailable, 11, "PARTITION_UNAVAILABLE"},
        {status::bin_type_error, 12, "BIN_TYPE_ERROR"},
        {status::record_too_big, 13, "RECORD_TOO_BIG"},
        {status::key_busy, 14, "KEY_BUSY"},
        {status::bin_not_found, 17, "BIN_NOT_FOUND"},
        {status::bin_name_too_long, 21, "BIN_NAME_TOO_LONG"},
        {status::element_not_found, 23, "ELEMENT_NOT_FOUND"},
        {status::element_exists, 24, "ELEMENT_EXISTS"},
        {status::op_not_applicable, 26, "OP_NOT_APPLICABLE"},
        {status::client, -1, "CLIENT"},
        {status::client_param, -2, "PARAM"},
        {status::invalid_node, -8, "INVALID_NODE"},
        {status::connection, -10, "CONNECTION"},
        {status::max_retries_exceeded, -12, "MAX_RETRIES_EXCEEDED"},
    };
    for (const row& r : rows) {
        INFO(r.name);
        CHECK(status_code(r.s) == r.code);
        CHECK(status_name(r.s) == r.name);
    }
    CHECK(status_name(static_cast<status>(999)) == "UNKNOWN");
}

TEST_CASE("every status has its own name", "[core][status]") {
    std::set<std::string_view> names;
    int known = 0;
    for (int c = -20; c <= 300; ++c) {
        std::string_view n = status_name(static_cast<status>(c));
        if (n == "UNKNOWN") continue;
        ++known;
        CHECK(names.insert(n).second);
    }
    CHECK(known >= 40);
}

} // namespace core_status_test
