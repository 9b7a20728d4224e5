// Unit tests of exp::compile and exp::evaluate, one section per op family.
// Every expected value comes from the 8.1.2 server's source
// (aerospike-server as/src/base/exp.c: the build_* checks and eval_*
// functions), cited where the rule is not obvious.
#include <kvmodel/exp/build.hpp>
#include <kvmodel/exp/eval.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace exp_eval_test {

using namespace kvmodel;
namespace e = kvmodel::exp;

namespace {

constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();

struct rec {
    std::vector<std::pair<std::string, value>> bins;
    e::record_view view;
    value key;

    rec() {
        view.find_bin = [](const void* c, std::string_view n) -> const value* {
            for (const auto& [name, v] : static_cast<const rec*>(c)->bins)
                if (name == n)
                    return &v;
            return nullptr;
        };
        view.bins_ctx = this;
        view.now_ms = 1'700'000'000'000;
    }
    rec(const rec&) = delete;
    rec& operator=(const rec&) = delete;
};

// Evaluates an expression; "unknown" for unknown; throws on compile error.
std::optional<value> run(const e::expr& x, const rec& r) {
    auto p = e::compile(x.packed());
    if (!p)
        FAIL("compile: " << p.error().message);
    return e::evaluate(*p, r.view);
}
std::optional<value> run(const e::expr& x) {
    rec r;
    return run(x, r);
}
// The compile error of an expression, "" when it compiles.
std::string refused(std::span<const std::uint8_t> b) {
    auto p = e::compile(b);
    if (p)
        return "";
    CHECK(p.error().code == status::parameter_error);
    return p.error().message;
}
std::string refused(const e::expr& x) {
    return refused(x.packed());
}

value v(std::int64_t i) {
    return value(i);
}

} // namespace

TEST_CASE("comparisons follow the server's typed compare", "[exp][eval]") {
    CHECK(run(e::int_val(3) < 5) == value(true));
    CHECK(run(e::int_val(-1) >= e::int_val(-1)) == value(true));
    CHECK(run(e::float_val(1.5) > 1.25) == value(true));
    double nan = std::nan("");
    CHECK(run(e::cmp_eq(e::float_val(nan), e::float_val(nan))) == value(false));
    CHECK(run(e::cmp_ne(e::float_val(nan), e::float_val(nan))) == value(true));
    // Strings and blobs: unsigned bytes, then length (cmp_bytes).
    CHECK(run(e::str("aa") < e::str("b")) == value(true));
    CHECK(run(e::str("ab") < e::str("abc")) == value(true));
    CHECK(run(e::str("\xff") > e::str("a")) == value(true));
    CHECK(run(e::bytes_val(bytes{1, 2}) < e::bytes_val(bytes{1, 2, 0})) == value(true));
    CHECK(run(e::bool_val(false) < true) == value(true));
    // nil == nil, nil <= nil; nil < nil is false (cmp_nil).
    CHECK(run(e::nil() == e::nil()) == value(true));
    CHECK(run(e::nil() < e::nil()) == value(false));
    // Lists compare in CDT order.
    CHECK(run(e::val(value(list{v(1), v(2)})) < e::val(value(list{v(1), v(2), v(1)}))) ==
          value(true));
    // A key-ordered map compares; an unordered one with entries is unknown.
    map km(map_order::key_ordered);
    km.put(v(1), v(2));
    map um;
    um.put(v(1), v(2));
    CHECK(run(e::val(value(km)) == e::val(value(km))) == value(true));
    CHECK_FALSE(run(e::val(value(um)) == e::val(value(um))).has_value());
    CHECK(run(e::val(value(map{})) == e::val(value(map{}))) == value(true));
    // Only where the comparison reaches it (8.1.2's msgpack_cmp stops at the
    // first difference): [true, {…}] != [1, {…}] is decided by true vs 1.
    CHECK(run(e::val(value(list{value(true), value(um)})) != e::val(value(list{v(1), value(um)}))) ==
          value(true));
    CHECK_FALSE(run(e::val(value(list{v(1), value(um)})) != e::val(value(list{v(1), value(um)})))
                    .has_value());
    CHECK(run(e::val(value(list{value(km), value(um)})) < e::val(value(list{value(map{})}))) ==
          value(false));
    // Mismatched static types are refused when the expression is built.
    CHECK_THAT(refused(e::int_val(1) == e::float_val(1.0)),
               Catch::Contains("cmp_eq") && Catch::Contains("mismatched"));
    CHECK_THAT(refused(e::str("1") == 1), Catch::Contains("mismatched"));
}

TEST_CASE("cmp_regex is POSIX regcomp/regexec with the client's flags", "[exp][eval]") {
    rec r;
    r.bins = {{"s", value("Hello World")}};
    CHECK(run(e::cmp_regex(e::regex_flags::none, "^Hello", e::bin_str("s")), r) == value(true));
    CHECK(run(e::cmp_regex(e::regex_flags::none, "^hello", e::bin_str("s")), r) == value(false));
    CHECK(run(e::cmp_regex(e::regex_flags::icase, "^hello", e::bin_str("s")), r) == value(true));
    // Without EXTENDED, + is a literal in a basic regex.
    CHECK(run(e::cmp_regex(e::regex_flags::none, "l+", e::str("l+")), r) == value(true));
    CHECK(run(e::cmp_regex(e::regex_flags::extended, "^l+$", e::str("lll")), r) == value(true));
    // The server matches a NUL-terminated copy: an embedded NUL ends the subject.
    CHECK(run(e::cmp_regex(e::regex_flags::extended, "b$", e::str(std::string("a\0b", 3))), r) ==
          value(false));
    // A missing bin is unknown; a non-string argument or a bad regex is refused.
    CHECK_FALSE(run(e::cmp_regex(0, "x", e::bin_str("nope")), r).has_value());
    CHECK_THAT(refused(e::cmp_regex(0, "x", e::int_val(1))), Catch::Contains("cmp_regex"));
    CHECK_THAT(refused(e::cmp_regex(e::regex_flags::extended, "(", e::str("x"))),
               Catch::Contains("regex compile"));
}

TEST_CASE("in_list compares in CDT order", "[exp][eval]") {
    value l(list{v(1), value("a"), value(2.0)});
    CHECK(run(e::in_list(e::int_val(1), e::val(l))) == value(true));
    CHECK(run(e::in_list(e::str("a"), e::val(l))) == value(true));
    CHECK(run(e::in_list(e::int_val(2), e::val(l))) == value(false)); // 2 is not 2.0
    rec r;
    CHECK_FALSE(run(e::in_list(e::bin_int("x"), e::val(l)), r).has_value());
    CHECK_THAT(refused(e::in_list(e::int_val(1), e::int_val(1))), Catch::Contains("in_list"));
}

TEST_CASE("and, or, not, exclusive over three values", "[exp][eval]") {
    rec r; // bin "x" is missing: bin_int("x") == 1 is unknown
    e::expr unk = e::bin_int("x") == 1;
    CHECK(run(e::and_(true, true), r) == value(true));
    CHECK(run(e::and_(unk, false), r) == value(false));
    CHECK_FALSE(run(e::and_(unk, true), r).has_value());
    CHECK(run(e::or_(unk, true), r) == value(true));
    CHECK_FALSE(run(e::or_(unk, false), r).has_value());
    CHECK_FALSE(run(e::not_(unk), r).has_value());
    CHECK(run(!e::bool_val(false), r) == value(true));
    CHECK(run(e::exclusive(true, false, false), r) == value(true));
    CHECK(run(e::exclusive(true, true, false), r) == value(false));
    CHECK(run(e::exclusive(false, false), r) == value(false));
    // exclusive is unknown as soon as an argument is, even after two trues
    // would have settled it later.
    CHECK_FALSE(run(e::exclusive(unk, true, true), r).has_value());
    CHECK_FALSE(run(e::unknown(), r).has_value());
    CHECK_THAT(refused(e::and_(true)), Catch::Contains("too few args"));
    CHECK_THAT(refused(e::and_(true, 1)), Catch::Contains("invalid type at arg 2"));
}

TEST_CASE("arithmetic follows the server's integer rules", "[exp][eval]") {
    CHECK(run(e::add(1, 2, 3)) == v(6));
    CHECK(run(e::add(i64_max, 1)) == v(i64_min)); // wraps
    CHECK(run(e::mul(i64_max, 2)) == v(-2));
    CHECK(run(e::sub(5)) == v(-5)); // one argument negates
    CHECK(run(e::sub(i64_min)) == v(i64_min));
    CHECK(run(e::sub(10, 1, 2)) == v(7));
    CHECK(run(e::div(100, 5, 2)) == v(10)); // a / (b * c)
    CHECK(run(e::div(3)) == v(0));          // one argument: 1 / a
    CHECK(run(e::div(-7, 2)) == v(-3));     // truncates toward zero
    CHECK_FALSE(run(e::div(1, 0)).has_value());
    CHECK_FALSE(run(e::div(1, 2, 0)).has_value());
    CHECK_FALSE(run(e::div(i64_min, -1)).has_value()); // the server's idiv traps
    CHECK(run(e::div(1.0, 4.0)) == value(0.25));
    CHECK(run(e::div(e::float_val(2.0))) == value(0.5));
    CHECK(run(e::div(1.0, 0.0)) == value(std::numeric_limits<double>::infinity()));
    CHECK(run(e::mod(-7, 3)) == v(-1));
    CHECK(run(e::mod(7, -3)) == v(1));
    CHECK_FALSE(run(e::mod(7, 0)).has_value());
    CHECK(run(e::mod(i64_min, -1)).has_value() == false);
    CHECK(run(e::pow(2.0, 10.0)) == value(1024.0));
    CHECK(run(e::log(8.0, 2.0)) == value(3.0));
    CHECK(run(e::abs(-3)) == v(3));
    CHECK(run(e::abs(i64_min)) == v(i64_min)); // labs wraps
    CHECK(run(e::abs(-2.5)) == value(2.5));
    CHECK(run(e::floor(-2.5)) == value(-3.0));
    CHECK(run(e::ceil(2.1)) == value(3.0));
    CHECK(run(e::to_int(-2.7)) == v(-2));
    CHECK(run(e::to_int(1e300)) == v(i64_min)); // cvttsd2si's "integer indefinite"
    CHECK(run(e::to_int(e::float_val(std::nan("")))) == v(i64_min));
    CHECK(run(e::to_float(3)) == value(3.0));
    CHECK(run(e::min(3, -1, 2)) == v(-1));
    CHECK(run(e::max(1.5, 2.5)) == value(2.5));
    CHECK_THAT(refused(e::add(1, 2.0)), Catch::Contains("mixed types at arg 2"));
    CHECK_THAT(refused(e::pow(2, 3)), Catch::Contains("pow"));
    CHECK_THAT(refused(e::mod(2.0, 3.0)), Catch::Contains("mod"));
    CHECK_THAT(refused(e::floor(2)), Catch::Contains("floor"));
    CHECK_THAT(refused(e::add(e::str("a"))), Catch::Contains("invalid type str"));
}

TEST_CASE("integer bit operations use the hardware's shift rules", "[exp][eval]") {
    CHECK(run(e::int_and(0xff, 0x0f, 0x3)) == v(3));
    CHECK(run(e::int_or(1, 2, 4)) == v(7));
    CHECK(run(e::int_xor(5, 1)) == v(4));
    CHECK(run(~e::int_val(0)) == v(-1));
    CHECK(run(e::int_lshift(1, 63)) == v(i64_min));
    CHECK(run(e::int_lshift(1, 64)) == v(1)); // the count is taken modulo 64
    CHECK(run(e::int_rshift(-1, 60)) == v(15));
    CHECK(run(e::int_arshift(-16, 2)) == v(-4));
    CHECK(run(e::int_arshift(-16, 66)) == v(-4));
    CHECK(run(e::int_count(-1)) == v(64));
    CHECK(run(e::int_lscan(1, true)) == v(63));
    CHECK(run(e::int_lscan(0, true)) == v(-1));
    CHECK(run(e::int_lscan(-1, false)) == v(-1));
    CHECK(run(e::int_lscan(i64_max, false)) == v(0));
    CHECK(run(e::int_rscan(1, true)) == v(63));
    CHECK(run(e::int_rscan(0x10, true)) == v(59));
    CHECK(run(e::int_rscan(0, true)) == v(-1));
    CHECK_THAT(refused(e::int_lscan(1, 1)), Catch::Contains("int_lscan"));
}

TEST_CASE("record metadata", "[exp][eval]") {
    rec r;
    r.view.digest[16] = 0x05;
    r.view.digest[17] = 0x01; // little-endian uint32 = 261
    r.view.set_name = "users";
    r.view.void_time = r.view.now_ms / 1000 + 100;
    r.view.last_update_ms = r.view.now_ms - 2500;
    r.view.record_size = 123;
    CHECK(run(e::digest_modulo(10), r) == v(1));
    CHECK(run(e::digest_modulo(-10), r) == v(1)); // C remainder: the dividend's sign
    CHECK(run(e::set_name(), r) == value("users"));
    CHECK(run(e::ttl(), r) == v(100));
    CHECK(run(e::void_time(), r) == v(r.view.void_time * 1'000'000'000));
    CHECK(run(e::last_update(), r) == v(r.view.last_update_ms * 1'000'000));
    CHECK(run(e::since_update(), r) == v(2500));
    CHECK(run(e::record_size(), r) == v(123));
    CHECK(run(e::device_size(), r) == v(123));
    CHECK(run(e::memory_size(), r) == v(0));
    CHECK(run(e::is_tombstone(), r) == value(false));
    CHECK(run(e::key_exists(), r) == value(false));
    r.view.void_time = r.view.now_ms / 1000 - 5; // due: the ttl floors at 1
    CHECK(run(e::ttl(), r) == v(1));
    r.view.void_time = 0;
    CHECK(run(e::ttl(), r) == v(-1));
    CHECK(run(e::void_time(), r) == v(-1));
    r.view.has_metadata = false;
    CHECK_FALSE(run(e::ttl(), r).has_value());
    CHECK_THAT(refused(e::digest_modulo(0)), Catch::Contains("modulo by zero"));
}

TEST_CASE("key reads need a stored key of the declared type", "[exp][eval]") {
    rec r;
    CHECK_FALSE(run(e::key_int() == 7, r).has_value());
    r.key = v(7);
    r.view.user_key = &r.key;
    CHECK(run(e::key_int() == 7, r) == value(true));
    CHECK(run(e::key_exists(), r) == value(true));
    CHECK_FALSE(run(e::key_str() == "7", r).has_value());
    r.key = value("k");
    CHECK(run(e::key_str(), r) == value("k"));
    CHECK_THAT(refused(e::key(e::type::floating)), Catch::Contains("key"));
}

TEST_CASE("bin reads are typed; bin_type and bin_exists", "[exp][eval]") {
    rec r;
    r.bins = {{"i", v(5)},
              {"f", value(1.5)},
              {"s", value("x")},
              {"b", value(true)},
              {"l", value(list{v(1)})},
              {"m", value(map{})},
              {"y", value(bytes{1})}};
    CHECK(run(e::bin_int("i"), r) == v(5));
    CHECK_FALSE(run(e::bin_float("i"), r).has_value());
    CHECK(run(e::bin_bool("b") == true, r) == value(true));
    CHECK(run(e::bin_type("i"), r) == v(1));
    CHECK(run(e::bin_type("f"), r) == v(2));
    CHECK(run(e::bin_type("s"), r) == v(3));
    CHECK(run(e::bin_type("y"), r) == v(4));
    CHECK(run(e::bin_type("b"), r) == v(17));
    CHECK(run(e::bin_type("m"), r) == v(19));
    CHECK(run(e::bin_type("l"), r) == v(20));
    CHECK(run(e::bin_type("none"), r) == v(0));
    CHECK(run(e::bin_exists("l"), r) == value(true));
    CHECK(run(e::bin_exists("none"), r) == value(false));
    CHECK_FALSE(run(e::bin("i", e::type::nil), r).has_value()); // a live bin is never nil
    // An empty bin name is legal (as_bin_name_check); 16 bytes is not.
    CHECK_FALSE(run(e::bin_int(""), r).has_value());
    CHECK_THAT(refused(e::bin_int("sixteen_bytes_xx")), Catch::Contains("bin name"));
    r.view.has_bins = false;
    CHECK_FALSE(run(e::bin_int("i"), r).has_value());
}

TEST_CASE("cond, let and var", "[exp][eval]") {
    rec r;
    r.bins = {{"a", v(7)}};
    auto x = e::let(e::def("x", e::bin_int("a")),
                    e::cond(e::var("x") > 5, e::var("x") * 2, e::int_val(-1)));
    CHECK(run(x, r) == v(14));
    r.bins = {{"a", v(1)}};
    CHECK(run(x, r) == v(-1));
    r.bins.clear(); // unknown condition: the whole cond is unknown
    CHECK_FALSE(run(x, r).has_value());
    // An unknown branch fits any type.
    CHECK_FALSE(run(e::cond(true, e::unknown(), e::int_val(1))).has_value());
    CHECK(run(e::cond(false, e::unknown(), e::int_val(1))) == v(1));
    // Nested scopes see outer variables; a variable holding unknown is unknown.
    CHECK(run(e::let(e::def("a", 1),
                     e::let(e::def("b", e::var("a") + 1), e::var("b") + e::var("a")))) == v(3));
    CHECK_FALSE(run(e::let(e::def("u", e::bin_int("zz")), e::var("u")), r).has_value());
    CHECK_THAT(refused(e::let(e::def("a", 1), e::let(e::def("a", 2), e::var("a")))),
               Catch::Contains("duplicate var name"));
    CHECK_THAT(refused(e::var("nope")), Catch::Contains("undefined var"));
    CHECK_THAT(refused(e::let(e::def("1x", 1), e::var("1x"))),
               Catch::Contains("illegal variable name"));
    CHECK_THAT(refused(e::let(e::def("x", e::var("x")), 1)), Catch::Contains("while defining it"));
    CHECK_THAT(refused(e::cond(true, 1, 2.0)), Catch::Contains("cond"));
    CHECK_THAT(refused(e::cond(1, 1, 2)), Catch::Contains("cond"));
    CHECK_THAT(refused(e::cond(true, 1)), Catch::Contains("too few args"));
}

TEST_CASE("CDT calls go through the CDT engine", "[exp][eval]") {
    rec r;
    r.bins = {{"l", value(list{v(5), v(1), v(9)})}};
    map m;
    m.put(value("a"), v(1));
    m.put(value("b"), v(2));
    r.bins.emplace_back("m", value(m));
    using cdt::return_type;
    auto rt = [](return_type t) {
        return static_cast<std::int32_t>(t);
    };
    CHECK(run(e::list_size(e::bin_list("l")), r) == v(3));
    CHECK(run(e::list_get_by_index(rt(return_type::value), e::type::integer, 1, e::bin_list("l")),
              r) == v(1));
    CHECK(run(e::list_get_by_rank_range(rt(return_type::value), 0, 2, e::bin_list("l")), r) ==
          value(list{v(5), v(1)}));
    // Out of range for a single selector: the CDT op fails, the call is unknown.
    CHECK_FALSE(
        run(e::list_get_by_index(rt(return_type::value), e::type::integer, 7, e::bin_list("l")), r)
            .has_value());
    // A value of another type than declared is unknown.
    CHECK_FALSE(
        run(e::list_get_by_index(rt(return_type::value), e::type::string, 0, e::bin_list("l")), r)
            .has_value());
    CHECK(run(e::map_get_by_key(rt(return_type::value), e::type::integer, "b", e::bin_map("m")),
              r) == v(2));
    CHECK(run(e::map_size(e::bin_map("m")), r) == v(2));
    // KEY_VALUE is a map inside expressions.
    auto kv =
        run(e::map_get_by_key_range(rt(return_type::key_value), "a", "b", e::bin_map("m")), r);
    REQUIRE(kv.has_value());
    REQUIRE(kv->is_map());
    CHECK(kv->as_map().size() == 1);
    // Modify calls return the modified container and leave the bin alone.
    CHECK(run(e::list_append(4, e::bin_list("l")), r) == value(list{v(5), v(1), v(9), v(4)}));
    CHECK(r.bins[0].second == value(list{v(5), v(1), v(9)}));
    CHECK(run(e::list_size(e::list_append(4, e::bin_list("l"))), r) == v(4));
    // A modify of a nil operand creates the container.
    CHECK(run(e::list_append(4, e::nil()), r) == value(list{v(4)}));
    // A read of a constant list.
    CHECK(run(e::list_size(e::val(value(list{v(1), v(2)}))), r) == v(2));
    // Through a context.
    r.bins.emplace_back("n", value(list{value(list{v(1), v(2), v(3)})}));
    e::ctx c{cdt::ctx_step::list_index(0)};
    CHECK(run(e::list_size(e::bin_list("n"), &c), r) == v(3));
    // Computed arguments.
    CHECK(run(e::list_get_by_index(rt(return_type::value),
                                   e::type::integer,
                                   e::list_size(e::bin_list("l")) - 1,
                                   e::bin_list("l")),
              r) == v(9));
    // Removes return the container without the selection.
    CHECK(run(e::list_remove_by_rank(0, e::bin_list("l")), r) == value(list{v(5), v(9)}));
    CHECK(run(e::list_remove_by_value_list(e::val(value(list{v(9), v(5)})), e::bin_list("l")), r) ==
          value(list{v(1)}));
    auto without_a = run(e::map_remove_by_key("a", e::bin_map("m")), r);
    REQUIRE(without_a.has_value());
    CHECK(without_a->as_map().size() == 1);
    CHECK(run(e::map_size(e::map_remove_by_value_range(1, 3, e::bin_map("m"))), r) == v(0));
    CHECK(run(e::map_get_by_rank_range_to_end(rt(return_type::value), -1, e::bin_map("m")), r) ==
          value(list{v(2)}));
    CHECK_THAT(refused(e::list_size(e::int_val(1))), Catch::Contains("not list or map"));
}

TEST_CASE("malformed input gets PARAMETER_ERROR naming the node", "[exp][compile]") {
    using b = std::vector<std::uint8_t>;
    CHECK_THAT(refused(b{}), Catch::Contains("empty"));
    CHECK_THAT(refused(b{0x90}), Catch::Contains("empty list"));
    CHECK_THAT(refused(b{0xc3, 0xc3}), Catch::Contains("trailing"));
    CHECK_THAT(refused(b{0x91, 0x63}), Catch::Contains("invalid op code 99"));
    CHECK_THAT(refused(b{0x92, 0x01, 0x01}),
               Catch::Contains("cmp_eq") && Catch::Contains("expected 2 args"));
    CHECK_THAT(refused(b{0x93, 0x01, 0x01}), Catch::Contains("exceeds the input"));
    CHECK_THAT(refused(b{0xdd, 0xff, 0xff, 0xff, 0xff}), Catch::Contains("exceeds"));
    CHECK_THAT(refused(b{0xa2, 0x61, 0x62}),
               Catch::Contains("blob type")); // a string without prefix
    CHECK(refused(b{0x05}).empty());          // a bare int is an int expression
    CHECK_THAT(refused(b{0xd4, 0xff, 0x01}), Catch::Contains("no result type")); // bare INF
    // Geo is refused clearly.
    CHECK_THAT(refused(b{0x93, 0x08, 0xa2, 0x17, 0x7b, 0xa2, 0x17, 0x7b}),
               Catch::Contains("GeoJSON"));
    // Deep nesting is bounded.
    b deep;
    for (int k = 0; k < 400; ++k) {
        deep.push_back(0x92);
        deep.push_back(0x12); // not
    }
    deep.push_back(0xc3);
    CHECK_THAT(refused(deep), Catch::Contains("nesting deeper"));
    // Size limit.
    b big(e::max_packed_size + 1, 0xc0);
    CHECK_THAT(refused(big), Catch::Contains("limit"));
}

TEST_CASE("bin reads: each bin looked up once per evaluation, any number of bins",
          "[exp][eval]") {
    // 20 distinct bins (past the 16 an evaluation remembers) summed, each
    // read twice; a second record through the same program sees its own bins.
    rec r;
    std::vector<e::expr> terms;
    std::int64_t want = 0;
    for (int k = 0; k < 20; ++k) {
        r.bins.emplace_back("b" + std::to_string(k), value(std::int64_t{k + 1}));
        want += 2 * (k + 1);
        terms.push_back(e::bin_int("b" + std::to_string(k)));
        terms.push_back(e::bin_int("b" + std::to_string(k)));
    }
    e::expr sum = terms[0];
    for (std::size_t k = 1; k < terms.size(); ++k)
        sum = e::add(sum, terms[k]);
    auto p = e::compile(sum.packed());
    REQUIRE(p);
    CHECK(e::evaluate(*p, r.view) == value(want));
    rec other;
    for (int k = 0; k < 20; ++k)
        other.bins.emplace_back("b" + std::to_string(k), value(std::int64_t{-1}));
    CHECK(e::evaluate(*p, other.view) == value(std::int64_t{-40}));
    other.bins[19].second = value("not an int"); // past the remembered slots
    CHECK(e::evaluate(*p, other.view) == std::nullopt);
    other.bins[19].second = value(std::int64_t{-1});
    other.bins[3].second = value(2.5); // a remembered slot, mistyped
    CHECK(e::evaluate(*p, other.view) == std::nullopt);
    // The same bin read as int and as float: the type is checked per read.
    rec f;
    f.bins.emplace_back("x", value(1.5));
    CHECK(run(e::or_(e::bin_int("x") == 1, e::bin_float("x") > 1.0), f) == value(true));
    CHECK(run(e::and_(e::bin_int("x") == 1, e::bin_float("x") > 1.0), f) == std::nullopt);
}

TEST_CASE("an int bin compared with an int constant (one fused step) as the server does",
          "[exp][eval]") {
    rec r;
    r.bins.emplace_back("a", value(std::int64_t{-5}));
    r.bins.emplace_back("s", value("str"));
    CHECK(run(e::bin_int("a") == -5, r) == value(true));
    CHECK(run(e::bin_int("a") != -5, r) == value(false));
    CHECK(run(e::bin_int("a") > -6, r) == value(true));
    CHECK(run(e::bin_int("a") >= -5, r) == value(true));
    CHECK(run(e::bin_int("a") < i64_min + 1, r) == value(false));
    CHECK(run(e::bin_int("a") <= i64_max, r) == value(true));
    // Absent or mistyped: unknown, inside and / or as on their own.
    CHECK(run(e::bin_int("missing") == 1, r) == std::nullopt);
    CHECK(run(e::bin_int("s") == 1, r) == std::nullopt);
    CHECK(run(e::and_(e::bin_int("missing") == 1, e::bin_int("a") == -5), r) == std::nullopt);
    CHECK(run(e::and_(e::bin_int("missing") == 1, e::bin_int("a") == 0), r) == value(false));
    CHECK(run(e::or_(e::bin_int("s") == 1, e::bin_int("a") == -5), r) == value(true));
    CHECK(run(e::or_(e::bin_int("s") == 1, e::bin_int("a") == 0), r) == std::nullopt);
    // The constant on the left is the ordinary path, same answers.
    CHECK(run(e::int_val(-6) < e::bin_int("a"), r) == value(true));
    CHECK(run(e::int_val(1) == e::bin_int("missing"), r) == std::nullopt);
}

} // namespace exp_eval_test
