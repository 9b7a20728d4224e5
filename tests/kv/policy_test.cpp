// Tests for kvmodel/kv/policy.hpp: defaults (the C client's), TTL validity
// (the server's is_valid_ttl) and names.
#include <kvmodel/kv/policy.hpp>

#include <catch2/catch.hpp>

#include <chrono>

namespace kv_policy_test {

using namespace kvmodel;
using namespace std::chrono_literals;

TEST_CASE("policy defaults follow the C client", "[kv][policy]") {
    kv::read_policy rp;
    CHECK(rp.socket_timeout == 30000ms);
    CHECK(rp.total_timeout == 1000ms);
    CHECK(rp.max_retries == 2);
    kv::write_policy wp;
    CHECK(wp.max_retries == 0);
    CHECK(wp.exists == kv::record_exists_action::update);
    CHECK(wp.gen == kv::generation_policy::none);
    CHECK(wp.ttl == kv::ttl_namespace_default);
    CHECK_FALSE(wp.durable_delete);
    CHECK_FALSE(wp.send_key);
    // A read run through operate() keeps the read policy's timeouts only.
    rp.total_timeout = 5ms;
    rp.max_retries = 4;
    const kv::write_policy from = kv::as_write_policy(rp);
    CHECK(from.total_timeout == 5ms);
    CHECK(from.max_retries == 4);
    CHECK(from.exists == kv::record_exists_action::update);
}

TEST_CASE("TTL: special values and 0 .. 10 years", "[kv][policy]") {
    for (std::int64_t ttl : {kv::ttl_namespace_default,
                             kv::ttl_never_expire,
                             kv::ttl_dont_update,
                             std::int64_t{1},
                             kv::max_ttl})
        CHECK(kv::check_ttl(ttl, "put"));
    CHECK(kv::max_ttl == 315360000);
    for (std::int64_t ttl : {std::int64_t{-3}, std::int64_t{-100}, kv::max_ttl + 1}) {
        auto r = kv::check_ttl(ttl, "put");
        REQUIRE_FALSE(r);
        CHECK(r.error().code == status::parameter_error);
        CHECK_THAT(r.error().message, Catch::StartsWith("put: ttl "));
    }
}

TEST_CASE("exists action names are Aerospike's", "[kv][policy]") {
    CHECK(kv::exists_action_name(kv::record_exists_action::update) == "UPDATE");
    CHECK(kv::exists_action_name(kv::record_exists_action::update_only) == "UPDATE_ONLY");
    CHECK(kv::exists_action_name(kv::record_exists_action::replace) == "REPLACE");
    CHECK(kv::exists_action_name(kv::record_exists_action::replace_only) == "REPLACE_ONLY");
    CHECK(kv::exists_action_name(kv::record_exists_action::create_only) == "CREATE_ONLY");
}

} // namespace kv_policy_test
