// Tests for kvmodel/kv/record_size.hpp: the worked examples of
// shared/AEROSPIKE-RECORDS.md (measured on a real 8.1.2 server) and the
// max-record-size check.
#include <kvmodel/kv/record_size.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kv_record_size_test {

using namespace kvmodel;
namespace rs = kv::record_size;

namespace {

std::size_t flat_of(const std::vector<kv::bin>& bins,
                    std::string_view set = "",
                    const std::optional<value>& key = std::nullopt,
                    bool ttl = false) {
    return rs::flat(set, key, ttl, bins);
}

// The seed's event map (aerospike-modeling event_capture_and_query.py):
// ts -> [type, {attrs}], KV_ORDERED.
map seed_events() {
    map m(map_order::key_value_ordered);
    m.put(1523474230000, list{"fav", map{{"sku", 1}, {"b", 2}}});
    m.put(1523474231001, list{"comment", map{{"sku", 2}, {"b", 22}}});
    m.put(1523474236006, list{"viewed", map{{"foo", "bar"}, {"sku", 3}, {"zz", "top"}}});
    m.put(1523474235005, list{"comment", map{{"sku", 1}, {"c", 1234}}});
    m.put(1523474233003, list{"viewed", map{{"sku", 3}, {"z", 26}}});
    m.put(1523474234004, list{"viewed", map{{"sku", 1}, {"ff", "hhhl"}}});
    return m;
}

} // namespace

TEST_CASE("one int bin, no set, no stored key: 48 bytes", "[kv][record_size]") {
    std::vector<kv::bin> bins{{"a", 1}};
    std::size_t flat = flat_of(bins);
    CHECK(flat == 35 + 1 + (1 + 1 + 3));
    CHECK(rs::stored(flat) == 48);
}

TEST_CASE("integer widths follow the unsigned 64-bit value", "[kv][record_size]") {
    CHECK(rs::value_size(0) == 3);
    CHECK(rs::value_size(255) == 3);
    CHECK(rs::value_size(256) == 4);
    CHECK(rs::value_size(65535) == 4);
    CHECK(rs::value_size(65536) == 6);
    CHECK(rs::value_size(std::int64_t{4294967295LL}) == 6);
    CHECK(rs::value_size(std::int64_t{4294967296LL}) == 10);
    CHECK(rs::value_size(-1) == 10); // every negative takes 8
    CHECK(rs::value_size(true) == 2);
    CHECK(rs::value_size(1.5) == 9);
    CHECK(rs::value_size("abc") == 8);
    CHECK(rs::value_size(kvmodel::bytes{1, 2}) == 7);
    CHECK(rs::value_size(value()) == 0);
    // A list bin: 5 + its msgpack ([1, 2] = 0x92 0x01 0x02).
    CHECK(rs::value_size(list{1, 2}) == 8);
    // ORDERED adds the empty ext element (3 bytes).
    CHECK(rs::value_size(list({1, 2}, list_order::ordered)) == 11);
}

TEST_CASE("set, stored key, bin count and void time add their bytes", "[kv][record_size]") {
    std::vector<kv::bin> bins{{"a", 1}};
    std::size_t base = flat_of(bins);
    CHECK(flat_of(bins, "events") == base + 1 + 6);
    CHECK(flat_of(bins, "", value(7)) == base + 1 + 1 + 8);
    CHECK(flat_of(bins, "", value("user-1")) == base + 1 + 1 + 6);
    CHECK(flat_of(bins, "", value(kvmodel::bytes{1, 2, 3})) == base + 1 + 1 + 3);
    CHECK(flat_of(bins, "", std::nullopt, true) == base + 4);

    std::vector<kv::bin> many;
    for (int i = 0; i < 127; ++i) {
        std::string name = "b";
        name += std::to_string(i); // not "b" + ...: GCC 12's -Wrestrict false positive
        many.push_back({name, i});
    }
    std::size_t f127 = flat_of(many);
    many.push_back({"b127", 127});
    CHECK(flat_of(many) == f127 + rs::bin_size("b127", 127) + 1); // bin count takes 2 bytes
}

TEST_CASE("the bin count is a varint: 1 byte to 127 bins, 2 to 16,383, then 3",
          "[kv][record_size]") {
    // Measured on 8.1.2 (tests/data/record_size_server.json).
    CHECK(rs::varint(0) == 1);
    CHECK(rs::varint(127) == 1);
    CHECK(rs::varint(128) == 2);
    CHECK(rs::varint(16383) == 2);
    CHECK(rs::varint(16384) == 3);
    CHECK(rs::varint(32767) == 3);
    CHECK(rs::fixed_size("", std::nullopt, false, 16384) ==
          rs::fixed_size("", std::nullopt, false, 16383) + 1);
    CHECK(rs::fixed_size("", std::nullopt, false, 128) ==
          rs::fixed_size("", std::nullopt, false, 127) + 1);
}

TEST_CASE("a stored key's length 1 + K is a varint: 2 bytes from a 127-byte key",
          "[kv][record_size]") {
    // Measured: string keys of 126 bytes take 1 + 1 + 126, of 127 bytes
    // 2 + 1 + 127; of 16,383 bytes 3 + 1 + 16,383. Blobs alike.
    CHECK(rs::stored_key_size(value(std::string(126, 'k'))) == 1 + 1 + 126);
    CHECK(rs::stored_key_size(value(std::string(127, 'k'))) == 2 + 1 + 127);
    CHECK(rs::stored_key_size(value(std::string(256, 'k'))) == 2 + 1 + 256);
    CHECK(rs::stored_key_size(value(std::string(16382, 'k'))) == 2 + 1 + 16382);
    CHECK(rs::stored_key_size(value(std::string(16383, 'k'))) == 3 + 1 + 16383);
    CHECK(rs::stored_key_size(value(kvmodel::bytes(126, 1))) == 1 + 1 + 126);
    CHECK(rs::stored_key_size(value(kvmodel::bytes(127, 1))) == 2 + 1 + 127);
    CHECK(rs::stored_key_size(value(std::int64_t{-1})) == 1 + 1 + 8);
    std::vector<kv::bin> bins{{"a", 1}};
    CHECK(rs::stored(flat_of(bins, "", value(std::string(127, 'k')))) == 176); // flat 171
}

TEST_CASE("a TTL adds the 4-byte void time (measured)", "[kv][record_size]") {
    std::vector<kv::bin> bins{{"a", 1}};
    CHECK(flat_of(bins, "", std::nullopt, true) == 45); // one int bin: 41 + 4
    CHECK(rs::stored(45) == 64);
}

TEST_CASE("an UNORDERED map bin with a persisted index weighs a K_ORDERED one's",
          "[kv][record_size]") {
    map u{{1, 2}, {2, 3}, {3, 4}};
    u.set_persist_index(true);
    map k(map_order::key_ordered);
    k.put(1, 2);
    k.put(2, 3);
    k.put(3, 4);
    k.set_persist_index(true);
    std::vector<kv::bin> bu{{"m", u}};
    std::vector<kv::bin> bk{{"m", k}};
    CHECK(flat_of(bu) == 57); // measured: 35 + 1 + (1 + 1 + 5 + 14)
    CHECK(flat_of(bk) == 57);
}

TEST_CASE("nested ordered lists and maps carry their ext element at every level",
          "[kv][record_size]") {
    // Measured on 8.1.2 (nested lists ordered by list_set_order through a
    // context, nested maps put with their order): +3 bytes for a list, +4 for
    // a map (ext key + nil), plus any growth of the header (15 -> 16).
    auto flat1 = [](value v) {
        std::vector<kv::bin> bins{{"v", std::move(v)}};
        return flat_of(bins);
    };
    CHECK(flat1(list{list({3, 1, 2}, list_order::ordered)}) == 51);
    std::vector<value> fifteen;
    for (int i = 15; i >= 1; --i)
        fifteen.emplace_back(i);
    CHECK(flat1(list{list(fifteen, list_order::ordered)}) == 65);
    map k(map_order::key_ordered);
    k.put(2, 3);
    map outer;
    outer.put(1, k);
    CHECK(flat1(outer) == 52);
    map kv15(map_order::key_value_ordered);
    for (int i = 0; i < 15; ++i)
        kv15.put(i, i);
    map outer15;
    outer15.put(1, kv15);
    CHECK(flat1(outer15) == 82);
    map deep(map_order::key_ordered);
    deep.put(1, list({2, 1}, list_order::ordered));
    CHECK(flat1(list{deep}) == 56);
}

TEST_CASE("the seed's 6-event KV_ORDERED map weighs 256 bytes", "[kv][record_size]") {
    std::vector<kv::bin> bins{{"events", seed_events()}};
    std::size_t flat = flat_of(bins);
    CHECK(flat == 249); // spec/record-size.md's example output
    CHECK(rs::stored(flat) == 256);
}

TEST_CASE("with the seed's 800 extra events (806) it weighs 25,104 bytes", "[kv][record_size]") {
    map m = seed_events();
    std::int64_t t = 1523473230000;
    for (int i = 1; i <= 400; ++i) {
        m.put(t, list{"zzz", map{{"sku", i}, {"bbb", i}}});
        t += 7337;
    }
    t = 1523474237007;
    for (int i = 401; i <= 800; ++i) {
        m.put(t, list{"xyz", map{{"sku", i}, {"bbb", i}}});
        t += 7139;
    }
    REQUIRE(m.size() == 806);
    std::vector<kv::bin> bins{{"events", m}};
    CHECK(rs::stored(flat_of(bins)) == 25104);
}

TEST_CASE("the limit is flat + 4 <= max-record-size", "[kv][record_size]") {
    // Measured: a list holding one blob of 1,048,516 bytes fits with
    // record_size exactly 1 MiB; one byte more is RECORD_TOO_BIG.
    std::vector<kv::bin> fits{{"payload", list{kvmodel::bytes(1048516, 0xab)}}};
    std::size_t flat = flat_of(fits);
    CHECK(rs::stored(flat) == 1048576);
    CHECK(rs::fits(flat, kv::default_max_record_size));
    CHECK(kv::check_record_size(flat, kv::default_max_record_size, "put"));

    std::vector<kv::bin> over{{"payload", list{kvmodel::bytes(1048517, 0xab)}}};
    std::size_t flat2 = flat_of(over);
    CHECK_FALSE(rs::fits(flat2, kv::default_max_record_size));
    auto r = kv::check_record_size(flat2, kv::default_max_record_size, "put");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::record_too_big);
    CHECK_THAT(r.error().message, Catch::Contains("put: record would be 1048577 bytes"));
    CHECK_THAT(r.error().message, Catch::Contains("max-record-size 1048576"));

    // A list of 100-byte blobs holds 10,179 of them.
    list blobs;
    for (int i = 0; i < 10179; ++i)
        blobs.push_back(kvmodel::bytes(100, 1));
    std::vector<kv::bin> b1{{"blobs", blobs}};
    CHECK(rs::fits(flat_of(b1), kv::default_max_record_size));
    blobs.push_back(kvmodel::bytes(100, 1));
    std::vector<kv::bin> b2{{"blobs", blobs}};
    CHECK_FALSE(rs::fits(flat_of(b2), kv::default_max_record_size));
}

TEST_CASE("a configured 128 KiB limit", "[kv][record_size]") {
    const std::size_t max = 128 * 1024;
    std::vector<kv::bin> bins{{"s", std::string(max - 48, 'x')}};
    std::size_t flat = flat_of(bins);
    CHECK(flat + 4 == max - 48 + 35 + 1 + 1 + 1 + 5 + 4);
    CHECK(rs::fits(flat, max));
    bins[0].val = std::string(max - 48 + 2, 'x');
    CHECK_FALSE(rs::fits(flat_of(bins), max));
}

} // namespace kv_record_size_test
