// Unit tests for kvmodel/cdt/bit_ops.hpp: every bit op at byte boundaries, past
// the end, with negative offsets, every write flag and overflow action, the
// missing-bin and wrong-type rules, the size caps, and the PARTIAL-past-the-end
// case that overruns the 8.1.2 server's heap (run under ASan in CI).
//
// Expected values come from AEROSPIKE-CDT.md §14, the examples documented in
// the C client's as_bit_operations.h, and the Java client's TestOperateBit
// vectors (all results of a real server); the rules not covered there are
// written down here, with the reason.
#include <kvmodel/cdt/bit_ops.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace cdt_bit_ops_test {

using namespace kvmodel;
using namespace kvmodel::cdt;
namespace bo = kvmodel::cdt::bit_ops;

namespace {

bytes B(std::initializer_list<int> v) {
    bytes out;
    for (int x : v) out.push_back(static_cast<std::uint8_t>(x));
    return out;
}
bytes filled(std::size_t n, std::uint8_t v) { return bytes(n, v); }

bit_policy P(std::uint32_t flags) { return bit_policy{flags}; }
constexpr std::uint32_t CREATE_ONLY = bit_write_flags::create_only;
constexpr std::uint32_t UPDATE_ONLY = bit_write_flags::update_only;
constexpr std::uint32_t NO_FAIL = bit_write_flags::no_fail;
constexpr std::uint32_t PARTIAL = bit_write_flags::partial;
constexpr auto FAIL = bit_overflow_action::fail;
constexpr auto SATURATE = bit_overflow_action::saturate;
constexpr auto WRAP = bit_overflow_action::wrap;

/// The outcome of one command: the ops applied in order, all or nothing (as
/// operate() does): the results, or the failing op's status with the bin
/// restored.
struct outcome {
    status code = status::ok;
    std::vector<value> results;
    std::optional<value> bin;
};

outcome run(std::optional<value> bin, std::initializer_list<bit_op> ops) {
    outcome out;
    std::optional<value> work = bin;
    for (const bit_op& o : ops) {
        std::optional<value> before = work;
        result<value> r = apply_bit_op(work, o);
        if (!r) {
            // The engine's own guarantee: a failed op leaves the bin as it was.
            REQUIRE(work == before);
            out.code = r.code();
            out.bin = bin;
            INFO(r.error().message);
            if (bit_op_name(o.code) != "?")
                CHECK(r.error().message.find(std::string(bit_op_name(o.code))) == 0);
            return out;
        }
        out.results.push_back(*r);
    }
    out.bin = work;
    return out;
}
outcome run(const bytes& initial, std::initializer_list<bit_op> ops) {
    return run(std::optional<value>(value(initial)), ops);
}

/// One op on a blob: the resulting blob (the command must succeed).
bytes after(const bytes& initial, std::initializer_list<bit_op> ops) {
    outcome o = run(initial, ops);
    REQUIRE(o.code == status::ok);
    REQUIRE(o.bin.has_value());
    REQUIRE(o.bin->is_bytes());
    return o.bin->as_bytes();
}
status code_of(const bytes& initial, std::initializer_list<bit_op> ops) {
    return run(initial, ops).code;
}
value read1(const bytes& initial, const bit_op& op) {
    outcome o = run(initial, {op});
    REQUIRE(o.code == status::ok);
    REQUIRE(o.results.size() == 1);
    return o.results[0];
}

/// Every bit op with valid arguments for a blob of at least 8 bytes.
std::vector<bit_op> one_of_each() {
    return {
        bo::bit_resize(8),           bo::bit_insert(1, B({0xAB})),
        bo::bit_remove(1, 1),        bo::bit_set(3, 5, B({0xFF})),
        bo::bit_or(3, 5, B({0xFF})), bo::bit_xor(3, 5, B({0xFF})),
        bo::bit_and(3, 5, B({0xFF})), bo::bit_not(3, 5),
        bo::bit_lshift(3, 5, 1),     bo::bit_rshift(3, 5, 1),
        bo::bit_add(8, 8, 1),        bo::bit_subtract(8, 8, 0),
        bo::bit_set_int(8, 8, 7),    bo::bit_get(3, 5),
        bo::bit_count(3, 5),         bo::bit_lscan(3, 5, true),
        bo::bit_rscan(3, 5, true),   bo::bit_get_int(3, 5),
    };
}

} // namespace

TEST_CASE("bit op vocabulary: names, wire codes, builders", "[cdt][bit_ops]") {
    CHECK(static_cast<int>(bit_op_code::bit_resize) == 0);
    CHECK(static_cast<int>(bit_op_code::bit_set_int) == 12);
    CHECK(static_cast<int>(bit_op_code::bit_get) == 50);
    CHECK(static_cast<int>(bit_op_code::bit_get_int) == 54);
    CHECK(static_cast<int>(bit_overflow_action::saturate) == 2);
    CHECK(static_cast<int>(bit_overflow_action::wrap) == 4);
    for (bit_op_code c : all_bit_op_codes) CHECK(bit_op_from_name(bit_op_name(c)) == c);
    CHECK_FALSE(bit_op_from_name("bit_b64_encode").has_value());
    CHECK(bit_op_from_name("bit_lscan") == bit_op_code::bit_lscan);

    bit_op a = bo::bit_add(24, 16, 128, true, SATURATE, P(NO_FAIL));
    CHECK(a.code == bit_op_code::bit_add);
    CHECK(a.bit_offset == 24);
    CHECK(a.bit_size == 16);
    CHECK(a.int_value == 128);
    CHECK(a.sign);
    CHECK(a.action == SATURATE);
    CHECK(a.policy.flags == NO_FAIL);
    bit_op r = bo::bit_resize(4, bit_resize_flags::from_front);
    CHECK(r.byte_size == 4);
    CHECK(r.resize_flags == bit_resize_flags::from_front);
    bit_op i = bo::bit_insert(-2, B({1, 2}));
    CHECK(i.byte_offset == -2);
    CHECK(i.value == B({1, 2}));
    CHECK(bo::bit_lscan(1, 2, true).scan_value);
    CHECK(bo::bit_get_int(1, 2, true).sign);
    CHECK(bo::bit_lshift(1, 2, 3).shift == 3);
    CHECK(is_bit_read(bit_op_code::bit_get));
    CHECK_FALSE(is_bit_read(bit_op_code::bit_set_int));
}

TEST_CASE("bit ops: the C client's documented examples", "[cdt][bit_ops]") {
    const bytes five = B({0x01, 0x42, 0x03, 0x04, 0x05});
    CHECK(after(B({0x01, 0x42}), {bo::bit_resize(4)}) == B({0x01, 0x42, 0x00, 0x00}));
    CHECK(after(five, {bo::bit_insert(1, B({0xFF, 0xC7}))}) ==
          B({0x01, 0xFF, 0xC7, 0x42, 0x03, 0x04, 0x05}));
    CHECK(after(five, {bo::bit_remove(2, 3)}) == B({0x01, 0x42}));
    CHECK(after(five, {bo::bit_set(13, 3, B({0xE0}))}) == B({0x01, 0x47, 0x03, 0x04, 0x05}));
    CHECK(after(five, {bo::bit_or(17, 6, B({0xA8}))}) == B({0x01, 0x42, 0x57, 0x04, 0x05}));
    CHECK(after(five, {bo::bit_xor(17, 6, B({0xAC}))}) == B({0x01, 0x42, 0x55, 0x04, 0x05}));
    CHECK(after(five, {bo::bit_and(23, 9, B({0x3C, 0x80}))}) ==
          B({0x01, 0x42, 0x02, 0x00, 0x05}));
    CHECK(after(five, {bo::bit_not(25, 6)}) == B({0x01, 0x42, 0x03, 0x7A, 0x05}));
    CHECK(after(five, {bo::bit_lshift(32, 8, 3)}) == B({0x01, 0x42, 0x03, 0x04, 0x28}));
    CHECK(after(five, {bo::bit_rshift(0, 9, 1)}) == B({0x00, 0xC2, 0x03, 0x04, 0x05}));
    CHECK(after(five, {bo::bit_add(24, 16, 128, false, FAIL)}) ==
          B({0x01, 0x42, 0x03, 0x04, 0x85}));
    CHECK(after(five, {bo::bit_subtract(24, 16, 128, false, FAIL)}) ==
          B({0x01, 0x42, 0x03, 0x03, 0x85}));
    CHECK(after(five, {bo::bit_set_int(1, 8, 127)}) == B({0x3F, 0xC2, 0x03, 0x04, 0x05}));
    CHECK(read1(five, bo::bit_get(9, 5)) == value(B({0x80})));
    CHECK(read1(five, bo::bit_count(20, 4)) == value(2));
    CHECK(read1(five, bo::bit_lscan(24, 8, true)) == value(5));
    CHECK(read1(five, bo::bit_rscan(32, 8, true)) == value(7));
    CHECK(read1(five, bo::bit_get_int(8, 16, false)) == value(16899));
}

TEST_CASE("bit ops: modify sequences from the Java client's tests", "[cdt][bit_ops]") {
    SECTION("set, set UPDATE_ONLY, remove UPDATE_ONLY") {
        CHECK(after(B({1, 2, 3, 4, 5, 6, 7, 8}),
                    {bo::bit_set(1, 1, B({0x80})), bo::bit_set(3, 1, B({0x80}), P(UPDATE_ONLY)),
                     bo::bit_remove(6, 2, P(UPDATE_ONLY))}) == B({0x51, 2, 3, 4, 5, 6}));
    }
    SECTION("set across byte boundaries, value longer than needed") {
        const bytes bits1 = B({0x11, 0x22, 0x33});
        CHECK(after(B({0x01, 0x12, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B,
                       0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x41}),
                    {bo::bit_set(1, 1, B({0x80})), bo::bit_set(15, 1, B({0x80})),
                     bo::bit_set(16, 24, bits1), bo::bit_set(40, 22, bits1),
                     bo::bit_set(73, 21, bits1), bo::bit_set(100, 20, bits1),
                     bo::bit_set(120, 17, bits1), bo::bit_set(144, 1, B({0x80}))}) ==
              B({0x41, 0x13, 0x11, 0x22, 0x33, 0x11, 0x22, 0x33, 0x08, 0x08, 0x91, 0x1B, 0x01,
                 0x12, 0x23, 0x11, 0x22, 0x11, 0xC1}));
    }
    SECTION("lshift") {
        CHECK(after(B({0x01, 0x01, 0x00, 0x80, 0xFF, 0x01, 0x01, 0x18, 0x01}),
                    {bo::bit_lshift(0, 8, 1), bo::bit_lshift(9, 7, 6), bo::bit_lshift(23, 2, 1),
                     bo::bit_lshift(37, 18, 3), bo::bit_lshift(58, 2, 1),
                     bo::bit_lshift(64, 4, 7)}) ==
              B({0x02, 0x40, 0x01, 0x00, 0xF8, 0x08, 0x01, 0x28, 0x01}));
        CHECK(after(B({0xFF, 0xFF, 0xFF}), {bo::bit_lshift(0, 20, 15)}) == B({0xF8, 0x00, 0x0F}));
    }
    SECTION("rshift") {
        CHECK(after(B({0x80, 0x40, 0x01, 0x00, 0xFF, 0x01, 0x01, 0x18, 0x80}),
                    {bo::bit_rshift(0, 8, 1), bo::bit_rshift(9, 7, 6), bo::bit_rshift(23, 2, 1),
                     bo::bit_rshift(37, 18, 3), bo::bit_rshift(60, 2, 1),
                     bo::bit_rshift(68, 4, 7)}) ==
              B({0x40, 0x01, 0x00, 0x80, 0xF8, 0xE0, 0x21, 0x14, 0x80}));
    }
    const bytes bits1 = B({0x11, 0x22, 0x33});
    const bytes logic_in = B({0x80, 0x40, 0x01, 0x00, 0x00, 0x01, 0x02, 0x03});
    SECTION("or") {
        CHECK(after(logic_in, {bo::bit_or(0, 5, bits1), bo::bit_or(9, 7, bits1),
                               bo::bit_or(23, 6, bits1), bo::bit_or(32, 8, bits1),
                               bo::bit_or(40, 24, bits1)}) ==
              B({0x90, 0x48, 0x01, 0x20, 0x11, 0x11, 0x22, 0x33}));
    }
    SECTION("xor") {
        CHECK(after(logic_in, {bo::bit_xor(0, 5, bits1), bo::bit_xor(9, 7, bits1),
                               bo::bit_xor(23, 6, bits1), bo::bit_xor(32, 8, bits1),
                               bo::bit_xor(40, 24, bits1)}) ==
              B({0x90, 0x48, 0x01, 0x20, 0x11, 0x10, 0x20, 0x30}));
    }
    SECTION("and") {
        CHECK(after(logic_in, {bo::bit_and(0, 5, bits1), bo::bit_and(9, 7, bits1),
                               bo::bit_and(23, 6, bits1), bo::bit_and(32, 8, bits1),
                               bo::bit_and(40, 24, bits1)}) ==
              B({0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03}));
    }
    SECTION("not") {
        CHECK(after(logic_in, {bo::bit_not(0, 5), bo::bit_not(9, 7), bo::bit_not(23, 6),
                               bo::bit_not(32, 8), bo::bit_not(40, 24)}) ==
              B({0x78, 0x3F, 0x00, 0xF8, 0xFF, 0xFE, 0xFD, 0xFC}));
    }
    const bytes int_in = B({0x38, 0x1F, 0x00, 0xE8, 0x7F, 0x80, 0x80, 0x80, 0x01, 0x01,
                            0x01, 0x01, 0x01, 0x01, 0x02, 0x02, 0x02, 0x03, 0x03, 0x03});
    SECTION("add at odd offsets and sizes") {
        CHECK(after(B({0x38, 0x1F, 0x00, 0xE8, 0x7F, 0x00, 0x00, 0x00, 0x01, 0x01,
                       0x01, 0x01, 0x01, 0x01, 0x02, 0x02, 0x02, 0x03, 0x03, 0x03}),
                    {bo::bit_add(0, 5, 1), bo::bit_add(9, 7, 1), bo::bit_add(23, 6, 0x21),
                     bo::bit_add(32, 8, 1), bo::bit_add(40, 24, 0x7F7F7F),
                     bo::bit_add(64, 20, 0x01010), bo::bit_add(92, 20, 0x10101),
                     bo::bit_add(113, 22, 0x8082), bo::bit_add(136, 23, 0x20202)}) ==
              B({0x40, 0x20, 0x01, 0xF0, 0x80, 0x7F, 0x7F, 0x7F, 0x02, 0x02,
                 0x01, 0x02, 0x02, 0x02, 0x03, 0x03, 0x06, 0x07, 0x07, 0x07}));
    }
    SECTION("subtract at odd offsets and sizes") {
        CHECK(after(int_in, {bo::bit_subtract(0, 5, 0x01), bo::bit_subtract(9, 7, 0x01),
                             bo::bit_subtract(23, 6, 0x03), bo::bit_subtract(32, 8, 0x01),
                             bo::bit_subtract(40, 24, 0x10101), bo::bit_subtract(64, 20, 0x101),
                             bo::bit_subtract(92, 20, 0x10101), bo::bit_subtract(113, 21, 0x101),
                             bo::bit_subtract(136, 23, 0x11111)}) ==
              B({0x30, 0x1E, 0x00, 0xD0, 0x7E, 0x7F, 0x7F, 0x7F, 0x00, 0xF0,
                 0xF1, 0x00, 0x00, 0x00, 0x01, 0xFD, 0xFE, 0x00, 0xE0, 0xE1}));
    }
    SECTION("set_int at odd offsets and sizes") {
        CHECK(after(int_in, {bo::bit_set_int(0, 5, 0x01), bo::bit_set_int(9, 7, 0x01),
                             bo::bit_set_int(23, 6, 0x03), bo::bit_set_int(32, 8, 0x01),
                             bo::bit_set_int(40, 24, 0x10101), bo::bit_set_int(64, 20, 0x101),
                             bo::bit_set_int(92, 20, 0x10101), bo::bit_set_int(113, 21, 0x101),
                             bo::bit_set_int(136, 23, 0x11111)}) ==
              B({0x08, 0x01, 0x00, 0x18, 0x01, 0x01, 0x01, 0x01, 0x00, 0x10,
                 0x11, 0x01, 0x01, 0x01, 0x00, 0x04, 0x06, 0x02, 0x22, 0x23}));
    }
    SECTION("add: WRAP and SATURATE, signed and unsigned") {
        CHECK(after(filled(6, 0),
                    {bo::bit_add(0, 8, 0xFF, false, WRAP), bo::bit_add(0, 8, 0xFF, false, WRAP),
                     bo::bit_add(8, 8, 0x7F, true, WRAP), bo::bit_add(8, 8, 0x7F, true, WRAP),
                     bo::bit_add(16, 8, 0x80, true, WRAP), bo::bit_add(16, 8, 0xFF, true, WRAP),
                     bo::bit_add(24, 8, 0x80, false, SATURATE),
                     bo::bit_add(24, 8, 0x80, false, SATURATE),
                     bo::bit_add(32, 8, 0x77, true, SATURATE),
                     bo::bit_add(32, 8, 0x77, true, SATURATE),
                     bo::bit_add(40, 8, 0x8F, true, SATURATE),
                     bo::bit_add(40, 8, 0x8F, true, SATURATE)}) ==
              B({0xFE, 0xFE, 0x7F, 0xFF, 0x7F, 0x80}));
        CHECK(code_of(filled(6, 0), {bo::bit_add(0, 8, 0xFF, false, FAIL),
                                     bo::bit_add(0, 8, 0xFF, false, FAIL)}) ==
              status::op_not_applicable);
        CHECK(code_of(filled(6, 0), {bo::bit_add(0, 8, 0x7F, true, FAIL),
                                     bo::bit_add(0, 8, 0x02, true, FAIL)}) ==
              status::op_not_applicable);
        CHECK(code_of(filled(6, 0), {bo::bit_add(0, 8, 0x81, true, FAIL),
                                     bo::bit_add(0, 8, 0xFE, true, FAIL)}) ==
              status::op_not_applicable);
    }
    SECTION("subtract: WRAP and SATURATE, signed and unsigned") {
        CHECK(after(filled(6, 0),
                    {bo::bit_subtract(0, 8, 0x01, false, WRAP),
                     bo::bit_subtract(8, 8, 0x80, true, WRAP),
                     bo::bit_subtract(8, 8, 0x8A, true, WRAP),
                     bo::bit_subtract(16, 8, 0x7F, true, WRAP),
                     bo::bit_subtract(16, 8, 0x02, true, WRAP),
                     bo::bit_subtract(24, 8, 0xAA, false, SATURATE),
                     bo::bit_subtract(32, 8, 0x77, true, SATURATE),
                     bo::bit_subtract(32, 8, 0x77, true, SATURATE),
                     bo::bit_subtract(40, 8, 0x81, true, SATURATE),
                     bo::bit_subtract(40, 8, 0x8F, true, SATURATE)}) ==
              B({0xFF, 0xF6, 0x7F, 0x00, 0x80, 0x7F}));
        CHECK(code_of(filled(6, 0), {bo::bit_subtract(0, 8, 1, false, FAIL)}) ==
              status::op_not_applicable);
        CHECK(code_of(filled(6, 0), {bo::bit_subtract(0, 8, 0x7F, true, FAIL),
                                     bo::bit_subtract(0, 8, 0x02, true, FAIL)}) ==
              status::op_not_applicable);
        CHECK(code_of(filled(6, 0), {bo::bit_subtract(0, 8, 0x81, true, FAIL),
                                     bo::bit_subtract(0, 8, 0xFE, true, FAIL)}) ==
              status::op_not_applicable);
    }
    SECTION("resize sequence on a missing bin, flags and NO_FAIL") {
        outcome o = run(std::nullopt,
                        {bo::bit_resize(20), bo::bit_get(19 * 8, 8),
                         bo::bit_resize(10, bit_resize_flags::grow_only, P(NO_FAIL)),
                         bo::bit_get(19 * 8, 8), bo::bit_resize(10, bit_resize_flags::shrink_only),
                         bo::bit_get(9 * 8, 8),
                         bo::bit_resize(30, bit_resize_flags::shrink_only, P(NO_FAIL)),
                         bo::bit_get(9 * 8, 8), bo::bit_resize(19, bit_resize_flags::grow_only),
                         bo::bit_get(18 * 8, 8),
                         bo::bit_resize(0, bit_resize_flags::grow_only, P(NO_FAIL)),
                         bo::bit_resize(0, bit_resize_flags::shrink_only)});
        REQUIRE(o.code == status::ok);
        for (int i : {1, 3, 5, 7, 9}) CHECK(o.results[static_cast<std::size_t>(i)] == value(B({0x00})));
        for (int i : {0, 2, 4, 6, 8, 10, 11}) CHECK(o.results[static_cast<std::size_t>(i)].is_nil());
        REQUIRE(o.bin.has_value());
        CHECK(o.bin->as_bytes().empty()); // shrunk to nothing: an empty blob, still a bin
    }
}

TEST_CASE("bit reads: get, count, scans, get_int (Java client vectors)", "[cdt][bit_ops]") {
    SECTION("get returns ceil(size/8) bytes, left-aligned, trailing bits zero") {
        const bytes b = B({0xC1, 0xAA, 0xAA});
        CHECK(read1(b, bo::bit_get(0, 1)) == value(B({0x80})));
        CHECK(read1(b, bo::bit_get(1, 1)) == value(B({0x80})));
        CHECK(read1(b, bo::bit_get(7, 1)) == value(B({0x80})));
        CHECK(read1(b, bo::bit_get(0, 8)) == value(B({0xC1})));
        CHECK(read1(b, bo::bit_get(8, 16)) == value(B({0xAA, 0xAA})));
        CHECK(read1(b, bo::bit_get(9, 15)) == value(B({0x55, 0x54})));
        CHECK(read1(b, bo::bit_get(9, 14)) == value(B({0x55, 0x54})));
        CHECK(read1(b, bo::bit_get(2, 7)) == value(B({0x06}))); // 000001 1 from C1 AA
        CHECK(read1(b, bo::bit_get(-24, 24)) == value(b));
    }
    SECTION("count") {
        const bytes b = B({0xC1, 0xAA, 0xAB});
        CHECK(read1(b, bo::bit_count(0, 1)) == value(1));
        CHECK(read1(b, bo::bit_count(1, 1)) == value(1));
        CHECK(read1(b, bo::bit_count(7, 1)) == value(1));
        CHECK(read1(b, bo::bit_count(0, 8)) == value(3));
        CHECK(read1(b, bo::bit_count(8, 16)) == value(9));
        CHECK(read1(b, bo::bit_count(9, 15)) == value(8));
        CHECK(read1(b, bo::bit_count(9, 14)) == value(7));
    }
    const bytes scan_in = B({0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x01});
    SECTION("lscan: position relative to bit_offset, -1 when not found") {
        const std::vector<std::pair<bit_op, std::int64_t>> cases = {
            {bo::bit_lscan(0, 1, true), 0},    {bo::bit_lscan(0, 8, true), 0},
            {bo::bit_lscan(0, 9, true), 0},    {bo::bit_lscan(0, 32, true), 0},
            {bo::bit_lscan(0, 32, false), -1}, {bo::bit_lscan(1, 30, false), -1},
            {bo::bit_lscan(32, 40, true), 39}, {bo::bit_lscan(33, 38, true), -1},
            {bo::bit_lscan(32, 40, false), 0}, {bo::bit_lscan(33, 38, false), 0},
            {bo::bit_lscan(0, 72, true), 0},   {bo::bit_lscan(0, 72, false), 32},
            {bo::bit_lscan(-1, 1, true), 0},   {bo::bit_lscan(-1, 1, false), -1},
        };
        for (const auto& [op, want] : cases) {
            INFO("lscan(" << op.bit_offset << ", " << op.bit_size << ", " << op.scan_value << ")");
            CHECK(read1(scan_in, op) == value(want));
        }
    }
    SECTION("rscan: position relative to bit_offset, -1 when not found") {
        const std::vector<std::pair<bit_op, std::int64_t>> cases = {
            {bo::bit_rscan(0, 1, true), 0},    {bo::bit_rscan(0, 8, true), 7},
            {bo::bit_rscan(0, 9, true), 8},    {bo::bit_rscan(0, 32, true), 31},
            {bo::bit_rscan(0, 32, false), -1}, {bo::bit_rscan(1, 30, false), -1},
            {bo::bit_rscan(32, 40, true), 39}, {bo::bit_rscan(33, 38, true), -1},
            {bo::bit_rscan(32, 40, false), 38}, {bo::bit_rscan(33, 38, false), 37},
            {bo::bit_rscan(0, 72, true), 71},  {bo::bit_rscan(0, 72, false), 70},
            {bo::bit_rscan(-1, 1, true), 0},   {bo::bit_rscan(-1, 1, false), -1},
        };
        for (const auto& [op, want] : cases) {
            INFO("rscan(" << op.bit_offset << ", " << op.bit_size << ", " << op.scan_value << ")");
            CHECK(read1(scan_in, op) == value(want));
        }
    }
    SECTION("rscan: a match only before bit_offset in the first byte answers its distance, negative") {
        // 8.1.2's rscan stops on the range's first byte without masking the
        // bits before bit_offset and answers bit - offset. Probed on the
        // server (§14 says -1; the server is the truth): 0 - 3 = -3 here.
        CHECK(read1(B({0x80, 0x00}), bo::bit_rscan(3, 13, true)) == value(-3));
        CHECK(read1(B({0x90}), bo::bit_rscan(4, 4, true)) == value(-1)); // bit 3: 3 - 4
        CHECK(read1(B({0x7F, 0xFF}), bo::bit_rscan(3, 13, false)) == value(-3));
        CHECK(read1(B({0x90}), bo::bit_rscan(3, 5, true)) == value(0));
        CHECK(read1(B({0x8F, 0x1F}), bo::bit_rscan(2, 1, true)) == value(-2));
        CHECK(read1(B({0xF0, 0x00, 0x00, 0x00}), bo::bit_rscan(6, 20, true)) == value(-3));
        CHECK(read1(B({0xFF, 0x00, 0xFF}), bo::bit_rscan(9, 5, true)) == value(-1));
        // Nothing at all in the bytes: -1.
        CHECK(read1(B({0x00, 0x00}), bo::bit_rscan(3, 10, true)) == value(-1));
    }
    SECTION("get_int, signed and unsigned, negative offset") {
        const bytes b = B({0x0F, 0x0F, 0x00});
        const std::vector<std::pair<bit_op, std::int64_t>> cases = {
            {bo::bit_get_int(4, 4, false), 15},      {bo::bit_get_int(4, 4, true), -1},
            {bo::bit_get_int(0, 8, false), 15},      {bo::bit_get_int(0, 8, true), 15},
            {bo::bit_get_int(7, 4, false), 8},       {bo::bit_get_int(7, 4, true), -8},
            {bo::bit_get_int(8, 16, false), 3840},   {bo::bit_get_int(8, 16, true), 3840},
            {bo::bit_get_int(9, 15, false), 3840},   {bo::bit_get_int(9, 15, true), 3840},
            {bo::bit_get_int(9, 14, false), 1920},   {bo::bit_get_int(9, 14, true), 1920},
            {bo::bit_get_int(5, 17, false), 115648}, {bo::bit_get_int(5, 17, true), -15424},
            {bo::bit_get_int(-12, 4, false), 15},    {bo::bit_get_int(-12, 4, true), -1},
        };
        for (const auto& [op, want] : cases) {
            INFO("get_int(" << op.bit_offset << ", " << op.bit_size << ", " << op.sign << ")");
            CHECK(read1(b, op) == value(want));
        }
        // 64 bits: the whole int64 range, as the server's integer particle holds it.
        const bytes all = filled(9, 0xFF);
        CHECK(read1(all, bo::bit_get_int(0, 64, true)) == value(-1));
        CHECK(read1(all, bo::bit_get_int(3, 64, false)) == value(-1)); // uint64 max as int64
        CHECK(read1(B({0x80, 0, 0, 0, 0, 0, 0, 0}), bo::bit_get_int(0, 64, true)) ==
              value(INT64_MIN));
        CHECK(read1(B({0x80, 0, 0, 0, 0, 0, 0, 0}), bo::bit_get_int(0, 64, false)) ==
              value(INT64_MIN));
    }
    SECTION("modify ops return nil") {
        const bytes b = filled(8, 0);
        for (const bit_op& op : one_of_each()) {
            if (is_bit_read(op.code)) continue;
            INFO(bit_op_name(op.code));
            outcome o = run(b, {op});
            REQUIRE(o.code == status::ok);
            CHECK(o.results[0].is_nil());
        }
    }
}

TEST_CASE("bit ops: every region of a 15-byte blob (Java client's exhaustive tests)",
          "[cdt][bit_ops]") {
    // After the op, region [offset, offset + size) of an all-ones blob is all
    // zeros; checked with every read op.
    const std::size_t bin_sz = 15;
    const auto bin_bits = static_cast<std::int64_t>(bin_sz * 8);
    auto check_region = [&](std::int64_t offset, std::int64_t set_sz, bool is_insert,
                            std::initializer_list<bit_op> ops) {
        const std::int64_t int_sz = set_sz < 64 ? set_sz : 64;
        const std::int64_t total_bits = bin_bits + (is_insert ? set_sz : 0);
        outcome o = run(filled(bin_sz, 0xFF), ops);
        INFO("offset " << offset << " size " << set_sz);
        REQUIRE(o.code == status::ok);
        std::optional<value> bin = o.bin;
        auto rd = [&](const bit_op& op) {
            result<value> r = apply_bit_op(bin, op);
            REQUIRE(r.has_value());
            return *r;
        };
        CHECK(rd(bo::bit_lscan(offset, set_sz, true)) == value(-1));
        CHECK(rd(bo::bit_rscan(offset, set_sz, true)) == value(-1));
        CHECK(rd(bo::bit_get_int(offset, int_sz, false)) == value(0));
        CHECK(rd(bo::bit_count(offset, set_sz)) == value(0));
        CHECK(rd(bo::bit_lscan(0, total_bits, false)) == value(offset));
        CHECK(rd(bo::bit_rscan(0, total_bits, false)) == value(offset + set_sz - 1));
        CHECK(rd(bo::bit_get(offset, set_sz)) ==
              value(bytes(static_cast<std::size_t>((set_sz + 7) / 8), 0)));
    };
    for (std::int64_t set_sz = 1; set_sz <= 80; ++set_sz) {
        const bytes zeros(static_cast<std::size_t>((set_sz + 7) / 8), 0);
        for (std::int64_t offset = 0; offset <= bin_bits - set_sz; ++offset) {
            check_region(offset, set_sz, false, {bo::bit_set(offset, set_sz, zeros)});
            check_region(offset, set_sz, false, {bo::bit_and(offset, set_sz, zeros)});
            check_region(offset, set_sz, false, {bo::bit_not(offset, set_sz)});
            check_region(offset, set_sz, false,
                         {bo::bit_set(offset, set_sz, zeros),
                          bo::bit_lshift(offset, set_sz, set_sz % 17)});
            check_region(offset, set_sz, false,
                         {bo::bit_set(offset, set_sz, zeros),
                          bo::bit_rshift(offset, set_sz, set_sz % 13)});
            // Shifting the region's ones out entirely leaves zeros too.
            check_region(offset, set_sz, false, {bo::bit_lshift(offset, set_sz, set_sz)});
            check_region(offset, set_sz, false, {bo::bit_rshift(offset, set_sz, set_sz + 5)});
            if (set_sz <= 64) {
                check_region(offset, set_sz, false, {bo::bit_add(offset, set_sz, 1, false, WRAP)});
                check_region(offset, set_sz, false,
                             {bo::bit_subtract(offset, set_sz, -1, false, WRAP)});
                check_region(offset, set_sz, false, {bo::bit_set_int(offset, set_sz, 0)});
            }
        }
    }
    for (std::int64_t set_sz = 1; set_sz <= 10; ++set_sz)
        for (std::int64_t offset = 0; offset <= static_cast<std::int64_t>(bin_sz); ++offset)
            check_region(offset * 8, set_sz * 8, true,
                         {bo::bit_insert(offset, bytes(static_cast<std::size_t>(set_sz), 0))});
}

TEST_CASE("bit ops: byte boundaries", "[cdt][bit_ops]") {
    const bytes z = filled(3, 0);
    // The last bit of a byte, the first of the next, and a range over the boundary.
    CHECK(after(z, {bo::bit_set(7, 1, B({0x80}))}) == B({0x01, 0x00, 0x00}));
    CHECK(after(z, {bo::bit_set(8, 1, B({0x80}))}) == B({0x00, 0x80, 0x00}));
    CHECK(after(z, {bo::bit_set(7, 2, B({0xC0}))}) == B({0x01, 0x80, 0x00}));
    CHECK(after(z, {bo::bit_set(8, 8, B({0xA5}))}) == B({0x00, 0xA5, 0x00}));
    CHECK(after(z, {bo::bit_not(15, 2)}) == B({0x00, 0x01, 0x80}));
    CHECK(after(z, {bo::bit_set_int(4, 16, 0xABCD)}) == B({0x0A, 0xBC, 0xD0}));
    CHECK(after(z, {bo::bit_set_int(8, 16, -1)}) == B({0x00, 0xFF, 0xFF}));
    CHECK(after(B({0x00, 0xFF, 0x00}), {bo::bit_lshift(4, 16, 4)}) == B({0x0F, 0xF0, 0x00}));
    CHECK(after(B({0x00, 0xFF, 0x00}), {bo::bit_rshift(4, 16, 4)}) == B({0x00, 0x0F, 0xF0}));
    CHECK(after(B({0x00, 0xFF, 0x00}), {bo::bit_lshift(4, 16, 8)}) == B({0x0F, 0x00, 0x00}));
    CHECK(after(B({0x01, 0x80, 0x00}), {bo::bit_lshift(0, 24, 8)}) == B({0x80, 0x00, 0x00}));
    CHECK(after(B({0x01, 0x80, 0x00}), {bo::bit_rshift(0, 24, 9)}) == B({0x00, 0x00, 0xC0}));
    // A shift never pulls in bits from outside the range, nor pushes bits out of it.
    CHECK(after(B({0xFF, 0xFF, 0xFF}), {bo::bit_rshift(8, 8, 3)}) == B({0xFF, 0x1F, 0xFF}));
    CHECK(after(B({0xFF, 0xFF, 0xFF}), {bo::bit_lshift(8, 8, 3)}) == B({0xFF, 0xF8, 0xFF}));
    CHECK(after(B({0xFF, 0x00, 0xFF}), {bo::bit_lshift(8, 8, 0)}) == B({0xFF, 0x00, 0xFF}));
    CHECK(read1(B({0x01, 0x80}), bo::bit_get(7, 2)) == value(B({0xC0})));
    CHECK(read1(B({0x01, 0x80}), bo::bit_count(7, 2)) == value(2));
    CHECK(read1(B({0x01, 0x80}), bo::bit_get_int(7, 2)) == value(3));
    CHECK(read1(B({0x00, 0x01}), bo::bit_lscan(0, 16, true)) == value(15));
    CHECK(read1(B({0x80, 0x00}), bo::bit_rscan(0, 16, true)) == value(0));
    CHECK(read1(B({0xFF, 0xFE}), bo::bit_lscan(0, 16, false)) == value(15));
    CHECK(read1(B({0x7F, 0xFF}), bo::bit_rscan(0, 16, false)) == value(0));
    // Long ranges (many whole bytes between partial ends).
    bytes big = filled(40, 0);
    big[39] = 0x01;
    CHECK(read1(big, bo::bit_lscan(3, 317, true)) == value(316));
    CHECK(read1(big, bo::bit_count(1, 319)) == value(1));
    CHECK(after(big, {bo::bit_lshift(0, 320, 319)})[0] == 0x80);
}

TEST_CASE("bit ops: ranges starting at or past the end", "[cdt][bit_ops]") {
    const bytes b = B({0x12, 0x34});
    // Starting at the end (bit 16 of a 2-byte blob) or beyond: OP_NOT_APPLICABLE.
    for (std::int64_t start : {16, 17, 23, 24, 1000}) {
        INFO("start " << start);
        CHECK(code_of(b, {bo::bit_set(start, 1, B({0x80}))}) == status::op_not_applicable);
        CHECK(code_of(b, {bo::bit_set(start, 1, B({0x80}), P(PARTIAL))}) ==
              status::op_not_applicable);
        CHECK(code_of(b, {bo::bit_not(start, 1)}) == status::op_not_applicable);
        CHECK(code_of(b, {bo::bit_lshift(start, 1, 1)}) == status::op_not_applicable);
        CHECK(code_of(b, {bo::bit_add(start, 1, 1)}) == status::op_not_applicable);
        CHECK(code_of(b, {bo::bit_set_int(start, 1, 1)}) == status::op_not_applicable);
        CHECK(code_of(b, {bo::bit_get(start, 1)}) == status::op_not_applicable);
        CHECK(code_of(b, {bo::bit_count(start, 1)}) == status::op_not_applicable);
        CHECK(code_of(b, {bo::bit_lscan(start, 1, true)}) == status::op_not_applicable);
        CHECK(code_of(b, {bo::bit_rscan(start, 1, true)}) == status::op_not_applicable);
        CHECK(code_of(b, {bo::bit_get_int(start, 1)}) == status::op_not_applicable);
        // NO_FAIL makes the write a silent no-op.
        outcome o = run(b, {bo::bit_not(start, 1, P(NO_FAIL)), bo::bit_get(0, 16)});
        REQUIRE(o.code == status::ok);
        CHECK(o.results[0].is_nil());
        CHECK(o.results[1] == value(b));
    }
    // Crossing the end: OP_NOT_APPLICABLE unless PARTIAL; NO_FAIL skips it.
    CHECK(code_of(b, {bo::bit_set(9, 8, B({0xFF}))}) == status::op_not_applicable);
    CHECK(code_of(b, {bo::bit_rshift(15, 2, 1)}) == status::op_not_applicable);
    CHECK(code_of(b, {bo::bit_get(9, 8)}) == status::op_not_applicable);
    CHECK(code_of(b, {bo::bit_get_int(9, 8)}) == status::op_not_applicable);
    CHECK(after(b, {bo::bit_set(9, 8, B({0xFF}), P(NO_FAIL))}) == b);
    CHECK(after(b, {bo::bit_set(9, 8, B({0xFF}), P(PARTIAL))}) == B({0x12, 0x7F}));
    // The integer ops accept no PARTIAL: they fail, or skip with NO_FAIL.
    CHECK(code_of(b, {bo::bit_add(9, 8, 1)}) == status::op_not_applicable);
    CHECK(after(b, {bo::bit_add(9, 8, 1, false, FAIL, P(NO_FAIL))}) == b);
    CHECK(code_of(b, {bo::bit_add(9, 8, 1, false, FAIL, P(PARTIAL))}) ==
          status::parameter_error);
    // The last bits exactly.
    CHECK(after(b, {bo::bit_not(8, 8)}) == B({0x12, 0xCB}));
    CHECK(read1(b, bo::bit_get_int(12, 4)) == value(4));
}

TEST_CASE("bit ops: PARTIAL past the end (crashes 8.1.2) is clipped in bounds",
          "[cdt][bit_ops]") {
    // 8.1.2 overruns its heap on PARTIAL shifts and logic ops whose range starts
    // at byte >= 1 and runs past the end. Intended: clip to the bits that exist.
    const bytes ones = filled(4, 0xFF);
    const bytes zeros = filled(4, 0x00);
    CHECK(after(zeros, {bo::bit_set(12, 40, filled(5, 0xFF), P(PARTIAL))}) ==
          B({0x00, 0x0F, 0xFF, 0xFF}));
    CHECK(after(ones, {bo::bit_rshift(12, 64, 4, P(PARTIAL))}) == B({0xFF, 0xF0, 0xFF, 0xFF}));
    CHECK(after(ones, {bo::bit_lshift(12, 64, 4, P(PARTIAL))}) == B({0xFF, 0xFF, 0xFF, 0xF0}));
    CHECK(after(zeros, {bo::bit_not(20, 100, P(PARTIAL))}) == B({0x00, 0x00, 0x0F, 0xFF}));
    CHECK(after(zeros, {bo::bit_or(8, 64, filled(8, 0x81), P(PARTIAL))}) ==
          B({0x00, 0x81, 0x81, 0x81}));
    CHECK(after(ones, {bo::bit_xor(16, 32, filled(4, 0xF0), P(PARTIAL))}) ==
          B({0xFF, 0xFF, 0x0F, 0x0F}));
    CHECK(after(ones, {bo::bit_and(24, 9, B({0x0F, 0x80}), P(PARTIAL))}) ==
          B({0xFF, 0xFF, 0xFF, 0x0F}));
    // The largest ranges the server accepts, starting in the last byte: only
    // the existing bits are touched (ASan / _GLIBCXX_ASSERTIONS watch here).
    const std::int64_t huge = std::int64_t{1} << 30;
    CHECK(after(zeros, {bo::bit_not(31, huge, P(PARTIAL))}) == B({0x00, 0x00, 0x00, 0x01}));
    CHECK(after(ones, {bo::bit_rshift(25, huge, huge, P(PARTIAL))}) ==
          B({0xFF, 0xFF, 0xFF, 0x80}));
    CHECK(after(ones, {bo::bit_lshift(-3, huge, 1, P(PARTIAL))}) == B({0xFF, 0xFF, 0xFF, 0xFE}));
    // The value must still cover the requested (unclipped) size.
    CHECK(code_of(zeros, {bo::bit_set(12, 40, filled(2, 0xFF), P(PARTIAL))}) ==
          status::parameter_error);
    // A sweep: every start byte >= 1 and every overshoot, against a bit-by-bit model.
    for (std::int64_t start = 8; start < 64; ++start)
        for (std::int64_t size = 64 - start + 1; size <= 64 - start + 20; ++size) {
            bytes init(8);
            for (std::size_t i = 0; i < 8; ++i) init[i] = static_cast<std::uint8_t>(0x5A ^ (i * 37));
            bytes expect = init;
            for (std::int64_t bit = start; bit < 64; ++bit) {
                const auto byte = static_cast<std::size_t>(bit / 8);
                expect[byte] = static_cast<std::uint8_t>(expect[byte] ^ (0x80U >> (bit % 8)));
            }
            INFO("start " << start << " size " << size);
            CHECK(after(init, {bo::bit_not(start, size, P(PARTIAL))}) == expect);
            CHECK(after(init, {bo::bit_xor(start, size, bytes(static_cast<std::size_t>((size + 7) / 8), 0xFF), P(PARTIAL))}) == expect);
        }
}

TEST_CASE("bit ops: negative offsets count from the end", "[cdt][bit_ops]") {
    const bytes b = B({0x00, 0x00});
    CHECK(after(b, {bo::bit_set(-1, 1, B({0x80}))}) == B({0x00, 0x01}));
    CHECK(after(b, {bo::bit_set(-16, 1, B({0x80}))}) == B({0x80, 0x00}));
    CHECK(after(b, {bo::bit_set(-9, 2, B({0xC0}))}) == B({0x01, 0x80}));
    CHECK(read1(B({0x00, 0x01}), bo::bit_lscan(-4, 4, true)) == value(3));
    // Before the start: PARAMETER_ERROR, even with NO_FAIL, for reads too.
    CHECK(code_of(b, {bo::bit_set(-17, 1, B({0x80}))}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_set(-17, 1, B({0x80}), P(NO_FAIL))}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_get(-17, 1)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_add(-17, 8, 1, false, FAIL, P(NO_FAIL))}) ==
          status::parameter_error);
    // insert / remove count bytes.
    CHECK(after(B({1, 2, 3}), {bo::bit_insert(-1, B({9}))}) == B({1, 2, 9, 3}));
    CHECK(after(B({1, 2, 3}), {bo::bit_insert(-3, B({9}))}) == B({9, 1, 2, 3}));
    CHECK(code_of(B({1, 2, 3}), {bo::bit_insert(-4, B({9}))}) == status::parameter_error);
    CHECK(after(B({1, 2, 3}), {bo::bit_remove(-2, 1)}) == B({1, 3}));
    CHECK(code_of(B({1, 2, 3}), {bo::bit_remove(-4, 1, P(NO_FAIL))}) == status::parameter_error);
    // Any negative offset on a missing bin is PARAMETER_ERROR (insert would create).
    CHECK(run(std::nullopt, {bo::bit_insert(-1, B({9}))}).code == status::parameter_error);
    // On an empty blob, -1 already reaches before the start.
    CHECK(code_of(bytes{}, {bo::bit_get(-1, 1)}) == status::parameter_error);
}

TEST_CASE("bit ops: insert, remove, resize", "[cdt][bit_ops]") {
    SECTION("insert past the end pads with zero bytes; creates a missing bin") {
        CHECK(after(B({1, 2}), {bo::bit_insert(2, B({9}))}) == B({1, 2, 9}));
        CHECK(after(B({1, 2}), {bo::bit_insert(5, B({9, 8}))}) == B({1, 2, 0, 0, 0, 9, 8}));
        outcome o = run(std::nullopt, {bo::bit_insert(1, B({0x0A}), P(CREATE_ONLY))});
        REQUIRE(o.code == status::ok);
        CHECK(o.bin == std::optional<value>(value(B({0x00, 0x0A}))));
        CHECK(after(bytes{}, {bo::bit_insert(0, B({7}))}) == B({7}));
        CHECK(code_of(B({1}), {bo::bit_insert(0, bytes{})}) == status::parameter_error);
    }
    SECTION("remove: past the end PARAMETER_ERROR; crossing it clips with PARTIAL") {
        CHECK(code_of(B({1, 2, 3}), {bo::bit_remove(3, 1)}) == status::parameter_error);
        CHECK(after(B({1, 2, 3}), {bo::bit_remove(3, 1, P(NO_FAIL))}) == B({1, 2, 3}));
        CHECK(code_of(B({1, 2, 3}), {bo::bit_remove(1, 3)}) == status::parameter_error);
        CHECK(after(B({1, 2, 3}), {bo::bit_remove(1, 3, P(NO_FAIL))}) == B({1, 2, 3}));
        CHECK(after(B({1, 2, 3}), {bo::bit_remove(1, 3, P(PARTIAL))}) == B({1}));
        CHECK(after(B({1, 2, 3}), {bo::bit_remove(0, 3)}) == bytes{});
        CHECK(code_of(B({1, 2, 3}), {bo::bit_remove(0, 0)}) == status::parameter_error);
        CHECK(code_of(bytes{}, {bo::bit_remove(0, 1)}) == status::parameter_error);
    }
    SECTION("resize: at the end or FROM_FRONT; GROW_ONLY / SHRINK_ONLY") {
        const bytes b = B({1, 2, 3});
        CHECK(after(b, {bo::bit_resize(5)}) == B({1, 2, 3, 0, 0}));
        CHECK(after(b, {bo::bit_resize(1)}) == B({1}));
        CHECK(after(b, {bo::bit_resize(5, bit_resize_flags::from_front)}) ==
              B({0, 0, 1, 2, 3}));
        CHECK(after(b, {bo::bit_resize(1, bit_resize_flags::from_front)}) == B({3}));
        CHECK(after(b, {bo::bit_resize(3, bit_resize_flags::grow_only)}) == b);
        CHECK(code_of(b, {bo::bit_resize(2, bit_resize_flags::grow_only)}) ==
              status::parameter_error);
        CHECK(after(b, {bo::bit_resize(2, bit_resize_flags::grow_only, P(NO_FAIL))}) == b);
        CHECK(code_of(b, {bo::bit_resize(4, bit_resize_flags::shrink_only)}) ==
              status::parameter_error);
        CHECK(after(b, {bo::bit_resize(4, bit_resize_flags::shrink_only, P(NO_FAIL))}) == b);
        CHECK(after(b, {bo::bit_resize(2, bit_resize_flags::shrink_only |
                                              bit_resize_flags::from_front)}) == B({2, 3}));
        CHECK(code_of(b, {bo::bit_resize(3, bit_resize_flags::grow_only |
                                                bit_resize_flags::shrink_only)}) ==
              status::parameter_error);
        CHECK(code_of(b, {bo::bit_resize(3, 8)}) == status::parameter_error);
        // A missing bin: created zero-filled; resize to 0 leaves it missing.
        outcome o = run(std::nullopt, {bo::bit_resize(3, bit_resize_flags::from_front)});
        CHECK(o.bin == std::optional<value>(value(B({0, 0, 0}))));
        o = run(std::nullopt, {bo::bit_resize(0)});
        REQUIRE(o.code == status::ok);
        CHECK_FALSE(o.bin.has_value());
    }
}

TEST_CASE("bit ops: flags each op accepts", "[cdt][bit_ops]") {
    // The server's table: CREATE_ONLY only on resize/insert; PARTIAL only on
    // remove and the range ops; the integer ops take UPDATE_ONLY and NO_FAIL;
    // reads take no flags. Anything else → PARAMETER_ERROR.
    struct row {
        bit_op_code code;
        bool create_only, update_only, no_fail, partial;
    };
    const row table[] = {
        {bit_op_code::bit_resize, true, true, true, false},
        {bit_op_code::bit_insert, true, true, true, false},
        {bit_op_code::bit_remove, false, true, true, true},
        {bit_op_code::bit_set, false, true, true, true},
        {bit_op_code::bit_or, false, true, true, true},
        {bit_op_code::bit_xor, false, true, true, true},
        {bit_op_code::bit_and, false, true, true, true},
        {bit_op_code::bit_not, false, true, true, true},
        {bit_op_code::bit_lshift, false, true, true, true},
        {bit_op_code::bit_rshift, false, true, true, true},
        {bit_op_code::bit_add, false, true, true, false},
        {bit_op_code::bit_subtract, false, true, true, false},
        {bit_op_code::bit_set_int, false, true, true, false},
        {bit_op_code::bit_get, false, false, false, false},
        {bit_op_code::bit_count, false, false, false, false},
        {bit_op_code::bit_lscan, false, false, false, false},
        {bit_op_code::bit_rscan, false, false, false, false},
        {bit_op_code::bit_get_int, false, false, false, false},
    };
    const bytes b = filled(8, 0);
    for (bit_op base : one_of_each()) {
        const row* r = nullptr;
        for (const row& x : table)
            if (x.code == base.code) r = &x;
        REQUIRE(r != nullptr);
        INFO(bit_op_name(base.code));
        const std::pair<std::uint32_t, bool> flags[] = {{CREATE_ONLY, r->create_only},
                                                        {UPDATE_ONLY, r->update_only},
                                                        {NO_FAIL, r->no_fail},
                                                        {PARTIAL, r->partial},
                                                        {16, false},
                                                        {0x100, false}};
        for (const auto& [flag, accepted] : flags) {
            INFO("flag " << flag);
            bit_op o = base;
            o.policy.flags = flag;
            const status got = code_of(b, {o});
            if (!accepted)
                CHECK(got == status::parameter_error);
            else if (flag == CREATE_ONLY)
                CHECK(got == status::bin_exists_error); // accepted, but the bin exists
            else
                CHECK(got == status::ok);
        }
        if (r->create_only) {
            bit_op o = base;
            o.policy.flags = CREATE_ONLY | UPDATE_ONLY;
            CHECK(code_of(b, {o}) == status::parameter_error);
            CHECK(run(std::nullopt, {o}).code == status::parameter_error);
        }
    }
}

TEST_CASE("bit ops: missing bin, CREATE_ONLY, UPDATE_ONLY, wrong type", "[cdt][bit_ops]") {
    SECTION("only insert and resize create a missing bin") {
        for (const bit_op& op : one_of_each()) {
            INFO(bit_op_name(op.code));
            outcome o = run(std::nullopt, {op});
            if (is_bit_read(op.code)) {
                REQUIRE(o.code == status::ok);
                CHECK(o.results[0].is_nil());
                CHECK_FALSE(o.bin.has_value());
            } else if (op.code == bit_op_code::bit_insert || op.code == bit_op_code::bit_resize) {
                REQUIRE(o.code == status::ok);
                CHECK(o.bin.has_value());
            } else {
                CHECK(o.code == status::bin_not_found);
                // NO_FAIL: a silent no-op, the bin stays missing.
                bit_op nf = op;
                nf.policy.flags = NO_FAIL;
                outcome q = run(std::nullopt, {nf});
                CHECK(q.code == status::ok);
                CHECK_FALSE(q.bin.has_value());
            }
        }
        // UPDATE_ONLY denies the creating ops too.
        CHECK(run(std::nullopt, {bo::bit_insert(0, B({1}), P(UPDATE_ONLY))}).code ==
              status::bin_not_found);
        CHECK(run(std::nullopt, {bo::bit_resize(4, 0, P(UPDATE_ONLY))}).code ==
              status::bin_not_found);
        outcome q = run(std::nullopt, {bo::bit_resize(4, 0, P(UPDATE_ONLY | NO_FAIL))});
        CHECK(q.code == status::ok);
        CHECK_FALSE(q.bin.has_value());
    }
    SECTION("reads of a missing bin are nil without checking their arguments") {
        for (const bit_op& op :
             {bo::bit_get(0, 0), bo::bit_count(-5, -1), bo::bit_lscan(1 << 30, 0, true),
              bo::bit_rscan(INT64_MIN, INT64_MAX, false), bo::bit_get_int(0, 65)}) {
            bit_op o = op;
            o.policy.flags = 0xFF;
            outcome r = run(std::nullopt, {o});
            REQUIRE(r.code == status::ok);
            CHECK(r.results[0].is_nil());
        }
    }
    SECTION("argument errors come before BIN_NOT_FOUND") {
        CHECK(run(std::nullopt, {bo::bit_set(0, 0, B({1}))}).code == status::parameter_error);
        CHECK(run(std::nullopt, {bo::bit_set(0, 1, B({1}), P(CREATE_ONLY))}).code ==
              status::parameter_error);
    }
    SECTION("CREATE_ONLY on an existing bin: BIN_EXISTS_ERROR, before the type check") {
        CHECK(code_of(B({1}), {bo::bit_insert(0, B({2}), P(CREATE_ONLY))}) ==
              status::bin_exists_error);
        CHECK(code_of(B({1}), {bo::bit_resize(4, 0, P(CREATE_ONLY))}) ==
              status::bin_exists_error);
        const std::optional<value> str = value("text");
        CHECK(run(str, {bo::bit_insert(0, B({2}), P(CREATE_ONLY))}).code ==
              status::bin_exists_error);
        outcome o = run(str, {bo::bit_insert(0, B({2}), P(CREATE_ONLY | NO_FAIL))});
        CHECK(o.code == status::ok);
        CHECK(o.bin == str);
        CHECK(after(B({1}), {bo::bit_insert(0, B({2}), P(CREATE_ONLY | NO_FAIL))}) == B({1}));
    }
    SECTION("wrong bin type: BIN_TYPE_ERROR for modify and read ops") {
        // The server answers AS_ERR_INCOMPATIBLE_TYPE (12) for a non-blob bin,
        // after the argument checks (parameter errors win) — NO_FAIL does not
        // cover it.
        for (const value& v : {value("abc"), value(42), value(1.5), value(list{1, 2}),
                               value(map{{1, 2}}), value(true)}) {
            INFO(to_string(v));
            for (bit_op op : one_of_each()) {
                INFO(bit_op_name(op.code));
                CHECK(run(std::optional<value>(v), {op}).code == status::bin_type_error);
                if (!is_bit_read(op.code)) {
                    op.policy.flags = NO_FAIL;
                    CHECK(run(std::optional<value>(v), {op}).code == status::bin_type_error);
                }
            }
            CHECK(run(std::optional<value>(v), {bo::bit_get(0, 0)}).code ==
                  status::parameter_error);
        }
    }
}

TEST_CASE("bit ops: value operands", "[cdt][bit_ops]") {
    const bytes b = filled(4, 0);
    // Longer than needed is fine (only the first bit_size bits are used).
    CHECK(after(b, {bo::bit_or(4, 4, B({0xF0, 0xFF, 0xFF}))}) == B({0x0F, 0, 0, 0}));
    // Shorter than bit_size, or empty: PARAMETER_ERROR, even with NO_FAIL.
    for (bit_op_code c :
         {bit_op_code::bit_set, bit_op_code::bit_or, bit_op_code::bit_xor, bit_op_code::bit_and}) {
        INFO(bit_op_name(c));
        bit_op o = bo::bit_set(0, 9, B({0xFF}));
        o.code = c;
        CHECK(code_of(b, {o}) == status::parameter_error);
        o.policy.flags = NO_FAIL;
        CHECK(code_of(b, {o}) == status::parameter_error);
        o = bo::bit_set(0, 8, bytes{});
        o.code = c;
        CHECK(code_of(b, {o}) == status::parameter_error);
    }
}

TEST_CASE("bit ops: add and subtract, every overflow action", "[cdt][bit_ops]") {
    auto add = [](std::uint8_t start, std::int64_t v, bool sign, bit_overflow_action a) {
        return run(B({start}), {bo::bit_add(0, 8, v, sign, a)});
    };
    auto sub = [](std::uint8_t start, std::int64_t v, bool sign, bit_overflow_action a) {
        return run(B({start}), {bo::bit_subtract(0, 8, v, sign, a)});
    };
    auto byte_of = [](const outcome& o) {
        REQUIRE(o.code == status::ok);
        return o.bin->as_bytes().at(0);
    };
    SECTION("unsigned") {
        CHECK(add(0xF0, 0x20, false, FAIL).code == status::op_not_applicable);
        CHECK(byte_of(add(0xF0, 0x20, false, SATURATE)) == 0xFF);
        CHECK(byte_of(add(0xF0, 0x20, false, WRAP)) == 0x10);
        CHECK(byte_of(add(0xF0, 0x0F, false, FAIL)) == 0xFF);
        CHECK(sub(0x10, 0x20, false, FAIL).code == status::op_not_applicable);
        CHECK(byte_of(sub(0x10, 0x20, false, SATURATE)) == 0x00);
        CHECK(byte_of(sub(0x10, 0x20, false, WRAP)) == 0xF0);
        CHECK(byte_of(sub(0x10, 0x10, false, FAIL)) == 0x00);
        // The value is masked to the bit size: -1 is 0xFF here.
        CHECK(add(0x01, -1, false, FAIL).code == status::op_not_applicable);
        CHECK(byte_of(add(0x01, -1, false, WRAP)) == 0x00);
        CHECK(byte_of(add(0x01, 0x102, false, FAIL)) == 0x03);
    }
    SECTION("signed") {
        CHECK(add(0x70, 0x20, true, FAIL).code == status::op_not_applicable);
        CHECK(byte_of(add(0x70, 0x20, true, SATURATE)) == 0x7F);
        CHECK(byte_of(add(0x70, 0x20, true, WRAP)) == 0x90);
        CHECK(add(0x90, 0xE0, true, FAIL).code == status::op_not_applicable);
        CHECK(byte_of(add(0x90, 0xE0, true, SATURATE)) == 0x80);
        CHECK(byte_of(add(0x90, 0xE0, true, WRAP)) == 0x70);
        CHECK(byte_of(add(0x90, -32, true, WRAP)) == 0x70); // negatives as two's complement
        CHECK(byte_of(add(0x01, -1, true, FAIL)) == 0x00);
        CHECK(byte_of(sub(0x90, 0x20, true, SATURATE)) == 0x80);
        CHECK(byte_of(sub(0x90, 0x20, true, WRAP)) == 0x70);
        CHECK(byte_of(sub(0x70, 0xE0, true, SATURATE)) == 0x7F);
        CHECK(byte_of(sub(0x70, 0xE0, true, WRAP)) == 0x90);
        CHECK(sub(0x70, -32, true, FAIL).code == status::op_not_applicable);
    }
    SECTION("signed edge cases at the minimum value: the server's sign test decides") {
        // 8.1.2 (particle_blob.c handle_signed_overflow, probed): the operand
        // is the value for add and its negation for subtract, and only a
        // load and operand of one sign whose wrapped sum has the other sign
        // overflow; zero has neither sign and MIN negates to MIN. So
        // -128 + -128 wraps to 0 unflagged...
        CHECK(byte_of(add(0x80, 0x80, true, FAIL)) == 0x00);
        CHECK(byte_of(add(0x80, 0x80, true, SATURATE)) == 0x00);
        CHECK(byte_of(add(0x80, 0x80, true, WRAP)) == 0x00);
        // ...-1 - (-128) adds MIN to -1 and overflows downwards...
        CHECK(sub(0xFF, 0x80, true, FAIL).code == status::op_not_applicable);
        CHECK(byte_of(sub(0xFF, 0x80, true, SATURATE)) == 0x80);
        // ...and 0 - (-128) never overflows: 0 has no sign.
        CHECK(byte_of(sub(0x00, 0x80, true, FAIL)) == 0x80);
        CHECK(byte_of(sub(0x00, 0x80, true, SATURATE)) == 0x80);
        CHECK(byte_of(sub(0x00, 0x80, true, WRAP)) == 0x80);
        // A masked value subtracts as the positive field it is: -1 - 2 in 2
        // bits overflows (found by the random server diff).
        CHECK(after(B({0xFF}), {bo::bit_subtract(4, 2, 130, true, SATURATE)}) == B({0xFB}));
    }
    SECTION("NO_FAIL turns an overflow into a no-op") {
        outcome o = run(B({0xF0}), {bo::bit_add(0, 8, 0x20, false, FAIL, P(NO_FAIL))});
        REQUIRE(o.code == status::ok);
        CHECK(o.results[0].is_nil());
        CHECK(o.bin->as_bytes() == B({0xF0}));
    }
    SECTION("64-bit and odd-sized fields") {
        const bytes max_s = B({0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF});
        const bytes min_s = B({0x80, 0, 0, 0, 0, 0, 0, 0});
        const bytes max_u = filled(8, 0xFF);
        CHECK(code_of(max_s, {bo::bit_add(0, 64, 1, true, FAIL)}) == status::op_not_applicable);
        CHECK(after(max_s, {bo::bit_add(0, 64, 1, true, SATURATE)}) == max_s);
        CHECK(after(max_s, {bo::bit_add(0, 64, 1, true, WRAP)}) == min_s);
        CHECK(after(max_s, {bo::bit_add(0, 64, 1, false, FAIL)}) == min_s);
        CHECK(code_of(max_u, {bo::bit_add(0, 64, 1, false, FAIL)}) == status::op_not_applicable);
        CHECK(after(max_u, {bo::bit_add(0, 64, 1, false, SATURATE)}) == max_u);
        CHECK(after(max_u, {bo::bit_add(0, 64, 1, false, WRAP)}) == filled(8, 0));
        CHECK(after(min_s, {bo::bit_subtract(0, 64, 1, true, SATURATE)}) == min_s);
        // 0 - MIN: no overflow for the server (0 has no sign); -1 - MIN: one.
        CHECK(after(filled(8, 0), {bo::bit_subtract(0, 64, INT64_MIN, true, SATURATE)}) == min_s);
        CHECK(after(filled(8, 0), {bo::bit_subtract(0, 64, INT64_MIN, true, FAIL)}) == min_s);
        CHECK(code_of(max_u, {bo::bit_subtract(0, 64, INT64_MIN, true, FAIL)}) ==
              status::op_not_applicable);
        CHECK(after(min_s, {bo::bit_add(0, 64, -1, true, SATURATE)}) == min_s);
        // A 5-bit unsigned field at bit 3 of 0xFE (head 111 kept).
        CHECK(after(B({0xFE}), {bo::bit_add(3, 5, 1, false, FAIL)}) == B({0xFF}));
        CHECK(after(B({0xFE}), {bo::bit_add(3, 5, 2, false, SATURATE)}) == B({0xFF}));
        CHECK(after(B({0xFE}), {bo::bit_add(3, 5, 2, false, WRAP)}) == B({0xE0}));
        CHECK(code_of(B({0xFE}), {bo::bit_add(3, 5, 2, false, FAIL)}) ==
              status::op_not_applicable);
        // The same field signed: 11110 = -2; -2 + -15 = -17 < -16.
        CHECK(after(B({0xFE}), {bo::bit_add(3, 5, -15, true, SATURATE)}) == B({0xF0}));
        CHECK(after(B({0xFE}), {bo::bit_add(3, 5, -14, true, FAIL)}) == B({0xF0}));
    }
    SECTION("invalid overflow action") {
        bit_op o = bo::bit_add(0, 8, 1);
        o.action = static_cast<bit_overflow_action>(6);
        CHECK(code_of(B({0}), {o}) == status::parameter_error);
        o.action = static_cast<bit_overflow_action>(1);
        CHECK(code_of(B({0}), {o}) == status::parameter_error);
    }
}

TEST_CASE("bit ops: size caps and giant arguments", "[cdt][bit_ops]") {
    const std::int64_t max_bits = std::int64_t{1} << 30;
    const std::int64_t max_bytes = std::int64_t{1} << 27;
    const bytes b = filled(2, 0);
    // 2^30 bits is the largest size / offset / shift; one more is PARAMETER_ERROR.
    CHECK(code_of(b, {bo::bit_get(0, max_bits)}) == status::op_not_applicable);
    CHECK(code_of(b, {bo::bit_get(0, max_bits + 1)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_count(max_bits, 1)}) == status::op_not_applicable);
    CHECK(code_of(b, {bo::bit_count(max_bits + 1, 1)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_count(-max_bits - 1, 1)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_count(-max_bits, 1)}) == status::parameter_error); // before start
    CHECK(after(b, {bo::bit_lshift(0, 16, max_bits)}) == b);
    CHECK(code_of(b, {bo::bit_lshift(0, 16, max_bits + 1)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_lshift(0, 16, -1)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_not(0, -1)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_not(0, 0)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_get_int(0, 65)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_get_int(0, 0)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_set_int(0, 65, 1)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_add(0, 65, 1)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_insert(max_bytes + 1, B({1}))}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_remove(0, max_bytes + 1)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_resize(max_bytes + 1)}) == status::parameter_error);
    // A result of 2^27 bytes or more is PARAMETER_ERROR (the server's limit),
    // decided before any allocation.
    CHECK(code_of(b, {bo::bit_resize(max_bytes)}) == status::parameter_error);
    CHECK(code_of(b, {bo::bit_insert(max_bytes, B({1}))}) == status::parameter_error);
    CHECK(run(std::nullopt, {bo::bit_insert(max_bytes - 1, B({1}))}).code ==
          status::parameter_error);
    // Beyond the record size limit (8 MiB by default, or the store's): RECORD_TOO_BIG,
    // also before allocating.
    CHECK(code_of(b, {bo::bit_resize(max_bytes - 1)}) == status::record_too_big);
    CHECK(code_of(b, {bo::bit_resize(8 * 1024 * 1024 + 1)}) == status::record_too_big);
    CHECK(run(std::nullopt, {bo::bit_insert(9 * 1024 * 1024, B({1}))}).code ==
          status::record_too_big);
    std::optional<value> bin = value(b);
    CHECK(apply_bit_op(bin, bo::bit_resize(100), 64).code() == status::record_too_big);
    CHECK(bin->as_bytes() == b);
    CHECK(apply_bit_op(bin, bo::bit_resize(64), 64).has_value());
    CHECK(bin->as_bytes().size() == 64);
    CHECK(apply_bit_op(bin, bo::bit_insert(0, B({1})), 64).code() == status::record_too_big);
    CHECK(bin->as_bytes().size() == 64);
    // An unknown op code is a PARAMETER_ERROR, not a crash.
    bit_op bad = bo::bit_get(0, 1);
    bad.code = static_cast<bit_op_code>(13);
    CHECK(code_of(b, {bad}) == status::parameter_error);
}

TEST_CASE("bit ops: an empty blob", "[cdt][bit_ops]") {
    // The Java client's null-blob test: nothing to address.
    const bytes e;
    const bytes one = B({0x80});
    for (const bit_op& op :
         {bo::bit_set(0, 1, one), bo::bit_or(0, 1, one), bo::bit_xor(0, 1, one),
          bo::bit_and(0, 1, one), bo::bit_not(0, 1), bo::bit_lshift(0, 1, 1),
          bo::bit_rshift(0, 1, 1), bo::bit_add(0, 1, 1), bo::bit_subtract(0, 1, 1),
          bo::bit_set_int(0, 1, 1), bo::bit_get(0, 1), bo::bit_count(0, 1),
          bo::bit_lscan(0, 1, true), bo::bit_rscan(0, 1, true), bo::bit_get_int(0, 1)}) {
        INFO(bit_op_name(op.code));
        CHECK(code_of(e, {op}) == status::op_not_applicable);
    }
    CHECK(code_of(e, {bo::bit_remove(0, 1)}) == status::parameter_error);
    CHECK(after(e, {bo::bit_insert(0, one)}) == one);
    CHECK(after(e, {bo::bit_resize(2)}) == B({0, 0}));
}

TEST_CASE("bit ops: a failed op in a command leaves the bin as it was", "[cdt][bit_ops]") {
    const bytes b = B({1, 2, 3, 4});
    outcome o = run(b, {bo::bit_set_int(0, 8, 9), bo::bit_insert(0, B({7})),
                        bo::bit_get(1000, 1)});
    CHECK(o.code == status::op_not_applicable);
    CHECK(o.bin == std::optional<value>(value(b)));
    std::optional<value> bin = value(b);
    for (const bit_op& op :
         {bo::bit_add(0, 8, 0xFF, false, FAIL), bo::bit_remove(2, 5), bo::bit_set(30, 8, B({1})),
          bo::bit_resize(1, bit_resize_flags::grow_only), bo::bit_insert(-9, B({1})),
          bo::bit_insert(0, B({1}), P(CREATE_ONLY))}) {
        INFO(bit_op_name(op.code));
        bin = value(B({0xFF, 2, 3, 4}));
        CHECK_FALSE(apply_bit_op(bin, op).has_value());
        CHECK(bin == std::optional<value>(value(B({0xFF, 2, 3, 4}))));
    }
}

} // namespace cdt_bit_ops_test
