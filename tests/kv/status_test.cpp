// Tests for kvmodel/kv/status.hpp.
#include <kvmodel/kv/status.hpp>

#include <catch2/catch.hpp>

namespace kv_status_test {

using namespace kvmodel;

TEST_CASE("transient statuses are the ones worth resending", "[kv][status]") {
    for (status s : {status::timeout,
                     status::partition_unavailable,
                     status::key_busy,
                     status::device_overload,
                     status::max_retries_exceeded,
                     status::connection,
                     status::no_more_connections})
        CHECK(kv::is_transient(s));
    for (status s : {status::ok,
                     status::record_not_found,
                     status::generation_error,
                     status::record_exists,
                     status::record_too_big,
                     status::bin_type_error,
                     status::parameter_error,
                     status::bin_name_too_long})
        CHECK_FALSE(kv::is_transient(s));
    CHECK(kv::status_code(kv::status::record_too_big) == 13);
    CHECK(kv::status_name(kv::status::record_not_found) == "KEY_NOT_FOUND");
}

TEST_CASE("in doubt is the error's flag", "[kv][status]") {
    error e{status::timeout, "operate: timeout"};
    CHECK_FALSE(kv::is_in_doubt(e));
    e.in_doubt = true;
    CHECK(kv::is_in_doubt(e));
    CHECK_FALSE(e == error{status::timeout, "operate: timeout"});
}

} // namespace kv_status_test
