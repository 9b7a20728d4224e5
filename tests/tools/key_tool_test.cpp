// tests/tools/key_tool_test.cpp
//
// `kvmodel key` (tools/key_tool.hpp): digests against the known answers of
// Aerospike's client test suites (aerospike-client-go key_test.go, set "set"),
// the argument rules of the issue (--string default, --int, --bytes, --hex,
// "" = no set, keys starting with '-' after "--", 100,000-character keys),
// nodes that agree with sim::cluster, and bad usage answered with a message
// and exit status 2.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "../../tools/key_tool.hpp"

namespace tools_key_tool_test {

using namespace kvmodel;
using namespace kvmodel::tools;

namespace {

struct cli_result {
    int status = 0;
    std::string out;
    std::string err;
};

cli_result key_cli(const std::vector<std::string>& args) {
    std::ostringstream out;
    std::ostringstream err;
    cli_result r;
    r.status = key_tool::run(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

/// The --json answer of a successful run.
nlohmann::json key_json(std::vector<std::string> args) {
    args.insert(args.begin(), "--json");
    cli_result r = key_cli(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out);
}

std::string digest_of(const std::vector<std::string>& args) {
    return key_json(args).at("digest").get<std::string>();
}

/// The partition of a digest given in hex: (d[0] | d[1] << 8) & 0xfff.
std::uint32_t partition_of_hex(const std::string& hex) {
    auto d = kv::digest_from_hex(hex);
    REQUIRE(d);
    return ((*d)[0] | (static_cast<std::uint32_t>((*d)[1]) << 8U)) & 0xfffU;
}

} // namespace

TEST_CASE("digests are the clients' known answers", "[tools][key_tool]") {
    // Integers, negative ones after "--".
    CHECK(digest_of({"test", "set", "--int", "--", "-1"}) ==
          "22116d253745e29fc63fdf760b6e26f7e197e01d");
    CHECK(digest_of({"test", "set", "--int", "1"}) == "82d7213b469812947c109a6d341e3b5b1dedec1f");
    CHECK(digest_of({"test", "set", "--int", "--", "-9223372036854775808"}) ==
          "7185c2a47fb02c996daed26b4e01b83240aee9d4");
    CHECK(digest_of({"test", "set", "--int", "9223372036854775807"}) ==
          "1698328974afa62c8e069860c1516f780d63dbb8");
    CHECK(digest_of({"test", "set", "--int", "4294967295"}) ==
          "2cdf52bf5641027042b9cf9a499e509a58b330e2");
    // Strings: the default type; empty and 100,000 characters.
    CHECK(digest_of({"test", "set", "s"}) == "607cddba7cd111745ef0a3d783d57f0e83c8f311");
    CHECK(digest_of({"test", "set", "--string", ""}) == "2819b1ff6e346a43b4f5f6b77a88bc3eaac22a83");
    CHECK(digest_of({"test", "set", std::string(100000, '+')}) ==
          "0a3e888c20bb8958537ddd4ba835e4070bd51740");
    CHECK(digest_of({"test", "set", "--", std::string(10000, '-')}) ==
          "b42e64afbfccb05912a609179228d9249ea1c1a0");
    // Bytes: KEY's characters, or hex.
    CHECK(digest_of({"test", "set", "--bytes", "s"}) == "ca2d96dc9a184d15a7fa2927565e844e9254e001");
    CHECK(digest_of({"test", "set", "--hex", "73"}) == "ca2d96dc9a184d15a7fa2927565e844e9254e001");
    CHECK(digest_of({"test", "set", "--hex", "61616161616161616161"}) ==
          "d10982327b2b04c7360579f252e164a75f83cd99");
    CHECK(digest_of({"test", "set", "--bytes", ""}) == "327e2877b8815c7aeede0d5a8620d4ef8df4a4b4");
    CHECK(digest_of({"test", "set", "--bytes", "--", std::string(100000, '+')}) ==
          "fe19770c371774ba1a1532438d4851b8a773a9e6");
    // An empty SET is no set.
    CHECK(digest_of({"test", "", "--int", "1"}) == "a443f05d05d962202b59abb402afae1737dbf66a");
    // The namespace takes no part in the digest.
    CHECK(digest_of({"other", "set", "s"}) == digest_of({"test", "set", "s"}));
}

TEST_CASE("the partition is computed from the digest", "[tools][key_tool]") {
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"test", "set", "--int", "--", "-1"},
                                               {"test", "set", "s"},
                                               {"test", "", "user-1"},
                                               {"test", "demo", "--hex", "00ff10"}}) {
        nlohmann::json j = key_json(args);
        CHECK(j.at("partition") == partition_of_hex(j.at("digest")));
    }
    CHECK(key_json({"test", "set", "--int", "--", "-1"}).at("partition") == 0x122);
}

TEST_CASE("the text output names every field", "[tools][key_tool]") {
    cli_result r = key_cli({"test", "set", "s"});
    CHECK(r.status == 0);
    CHECK(r.out ==
          "namespace  test\n"
          "set        set\n"
          "key        s (string, 1 bytes)\n"
          "digest     607cddba7cd111745ef0a3d783d57f0e83c8f311\n"
          "partition  " +
              std::to_string(partition_of_hex("607cddba7cd111745ef0a3d783d57f0e83c8f311")) + "\n");
    r = key_cli({"test", "", "--int", "--nodes", "3", "--", "-1"});
    CHECK(r.status == 0);
    CHECK(r.out.find("set        (none)\n") != std::string::npos);
    CHECK(r.out.find("key        -1 (integer)\n") != std::string::npos);
    CHECK(r.out.find("nodes      3 (replication factor 2)\n") != std::string::npos);
    CHECK(r.out.find("master     node ") != std::string::npos);
    CHECK(r.out.find("replicas   node ") != std::string::npos);
    // A long key is shortened in the text, never in the digest.
    r = key_cli({"test", "set", std::string(100000, 'k')});
    CHECK(r.out.find("(string, 100000 bytes)") != std::string::npos);
    CHECK(r.out.size() < 400);
}

TEST_CASE("--nodes answers with sim::cluster's partition map", "[tools][key_tool]") {
    for (std::uint32_t n : {1U, 2U, 3U, 5U, 128U}) {
        for (const std::string user_key : {"user-1", "user-2", "a", ""}) {
            nlohmann::json j =
                key_json({"test", "demo", "--nodes", std::to_string(n), "--", user_key});
            sim::cluster_config cfg;
            cfg.nodes = n;
            sim::cluster c(cfg);
            std::vector<int> want = c.replicas(kv::key("test", "demo", user_key));
            REQUIRE_FALSE(want.empty());
            INFO("nodes " << n << " key " << user_key);
            CHECK(j.at("nodes") == n);
            CHECK(j.at("replication_factor") == std::min(2U, n));
            CHECK(j.at("master") == want.front());
            CHECK(j.at("replicas") ==
                  nlohmann::json(std::vector<int>(want.begin() + 1, want.end())));
        }
    }
    // Replication factor and seed are the cluster's settings.
    nlohmann::json j =
        key_json({"test", "demo", "--nodes", "8", "--replication-factor", "3", "--seed=42", "k"});
    sim::cluster_config cfg;
    cfg.nodes = 8;
    cfg.seed = 42;
    cfg.namespaces.front().replication_factor = 3;
    sim::cluster c(cfg);
    std::vector<int> want = c.replicas(kv::key("test", "demo", "k"));
    CHECK(j.at("master") == want.front());
    CHECK(j.at("replicas").size() == 2);
    CHECK(j.at("replicas") == nlohmann::json(std::vector<int>(want.begin() + 1, want.end())));
    // Without --nodes there are no node fields.
    CHECK_FALSE(key_json({"test", "demo", "k"}).contains("master"));
}

TEST_CASE("options may come anywhere before --", "[tools][key_tool]") {
    CHECK(digest_of({"--int", "test", "set", "1"}) == "82d7213b469812947c109a6d341e3b5b1dedec1f");
    CHECK(digest_of({"test", "--int", "set", "1"}) == "82d7213b469812947c109a6d341e3b5b1dedec1f");
    // After "--", options are keys.
    CHECK(key_json({"test", "set", "--", "--int"}).at("key") == "--int");
    CHECK(key_json({"test", "set", "-"}).at("key") == "-");
    CHECK(key_json({"test", "set", "--string", "--string", "x"}).at("key") == "x");
}

TEST_CASE("bad usage: a message and exit status 2", "[tools][key_tool]") {
    struct bad {
        std::vector<std::string> args;
        std::string message;
    };
    const bad cases[] = {
        {{}, "missing NAMESPACE, SET and KEY"},
        {{"test"}, "missing SET and KEY"},
        {{"test", "set"}, "missing KEY"},
        {{"test", "set", "a", "b"}, "too many arguments"},
        {{"test", "set", "--int", "-5"},
         "unknown option '-5' (a KEY starting with '-' goes after '--'"},
        {{"test", "set", "--int", "12x"}, "--int key '12x' is not a signed 64-bit integer"},
        {{"test", "set", "--int", "9223372036854775808"}, "is not a signed 64-bit integer"},
        {{"test", "set", "--int", "+5"}, "is not a signed 64-bit integer"},
        {{"test", "set", "--int", ""}, "is not a signed 64-bit integer"},
        {{"test", "set", "--hex", "abc"}, "--hex key has an odd number of digits (3)"},
        {{"test", "set", "--hex", "0g"}, "--hex key: '0g' at position 0 is not a hex byte"},
        {{"test", "set", "--int", "--hex", "1"}, "choose one key type: --int and --hex both given"},
        {{"", "set", "k"}, "the namespace name is empty"},
        {{std::string(32, 'n'), "set", "k"}, "is 32 bytes, max 31"},
        {{"test", std::string(64, 's'), "k"}, "is 64 bytes, max 63"},
        {{"test", "set", "--nodes", "0", "k"}, "--nodes '0' is not a node count from 1 to 128"},
        {{"test", "set", "--nodes", "129", "k"}, "from 1 to 128"},
        {{"test", "set", "--nodes", "-3", "k"}, "is not a node count"},
        {{"test", "set", "--nodes"}, "--nodes needs a value"},
        {{"test", "set", "--replication-factor", "2", "k"}, "--replication-factor needs --nodes"},
        {{"test", "set", "--seed", "x", "k"}, "--seed 'x' is not an unsigned 64-bit integer"},
        {{"test", "set", "--frob", "k"}, "unknown option '--frob'"},
    };
    for (const bad& b : cases) {
        INFO(nlohmann::json(b.args).dump());
        cli_result r = key_cli(b.args);
        CHECK(r.status == 2);
        CHECK(r.out.empty());
        INFO(r.err);
        CHECK(r.err.find(b.message) != std::string::npos);
        CHECK(r.err.find("usage: kvmodel key") != std::string::npos);
    }
    cli_result r = key_cli({"--help"});
    CHECK(r.status == 0);
    CHECK(r.out.find("usage: kvmodel key NAMESPACE SET") == 0);
}

} // namespace tools_key_tool_test
