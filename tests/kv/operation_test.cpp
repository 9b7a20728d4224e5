// Tests for kvmodel/kv/operation.hpp: the builders, kinds, bins, names and
// the read/write classification that decides a command's path.
#include <kvmodel/cdt/bit_ops.hpp>
#include <kvmodel/cdt/hll_ops.hpp>
#include <kvmodel/cdt/list_ops.hpp>
#include <kvmodel/cdt/map_ops.hpp>
#include <kvmodel/kv/operation.hpp>

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace kv_operation_test {

using namespace kvmodel;

TEST_CASE("builders make the matching alternative", "[kv][operation]") {
    CHECK(kv::kind(kv::op::read("a")) == kv::op_kind::read);
    CHECK(kv::kind(kv::op::read_all()) == kv::op_kind::read_all);
    CHECK(kv::kind(kv::op::read_header()) == kv::op_kind::read_header);
    CHECK(kv::kind(kv::op::write("a", 1)) == kv::op_kind::write);
    CHECK(kv::kind(kv::op::add("a", 1)) == kv::op_kind::add);
    CHECK(kv::kind(kv::op::append("a", "x")) == kv::op_kind::append);
    CHECK(kv::kind(kv::op::prepend("a", "x")) == kv::op_kind::prepend);
    CHECK(kv::kind(kv::op::touch()) == kv::op_kind::touch);
    CHECK(kv::kind(kv::op::delete_record()) == kv::op_kind::delete_record);
    CHECK(kv::kind(kv::op::cdt("m", cdt::map_ops::size())) == kv::op_kind::cdt);
    CHECK(kv::kind(kv::op::bit("b", cdt::bit_ops::bit_count(0, 8))) == kv::op_kind::bit);
    const kv::operation h = kv::op::hll("h", cdt::hll_ops::hll_get_count());
    CHECK(kv::kind(h) == kv::op_kind::hll);
    CHECK(*kv::bin_of(h) == "h");
    CHECK(kv::is_read(h));
    CHECK(kv::op_name(h) == "hll_get_count");
    CHECK(!kv::is_read(kv::op::hll("h", cdt::hll_ops::hll_fold(4))));

    const kv::operation w = kv::op::write("count", 5);
    CHECK(std::get<kv::write_op>(w) == kv::write_op{"count", 5});
    const kv::operation a = kv::op::add("n", 2.5);
    CHECK(std::get<kv::add_op>(a).delta == value(2.5));
}

TEST_CASE("bin_of names the bin of bin operations only", "[kv][operation]") {
    CHECK(*kv::bin_of(kv::op::read("a")) == "a");
    CHECK(*kv::bin_of(kv::op::write("b", 1)) == "b");
    CHECK(*kv::bin_of(kv::op::cdt("events", cdt::map_ops::size())) == "events");
    CHECK(*kv::bin_of(kv::op::bit("flags", cdt::bit_ops::bit_count(0, 8))) == "flags");
    CHECK(kv::bin_of(kv::op::read_all()) == nullptr);
    CHECK(kv::bin_of(kv::op::read_header()) == nullptr);
    CHECK(kv::bin_of(kv::op::touch()) == nullptr);
    CHECK(kv::bin_of(kv::op::delete_record()) == nullptr);
}

TEST_CASE("expression ops: kinds, names, read or write", "[kv][operation]") {
    const kv::operation r = kv::op::exp_read("sum", {0xc3}, 16);
    const kv::operation w = kv::op::exp_write("out", {0x01}, 1);
    CHECK(kv::kind(r) == kv::op_kind::exp_read);
    CHECK(kv::kind(w) == kv::op_kind::exp_write);
    CHECK(kv::op_name(r) == "exp_read");
    CHECK(kv::op_name(w) == "exp_write");
    CHECK(kv::is_read(r));
    CHECK_FALSE(kv::is_read(w));
    CHECK(*kv::bin_of(r) == "sum");
    CHECK(*kv::bin_of(w) == "out");
    CHECK(std::get<kv::exp_write_op>(w) == kv::exp_write_op{"out", {0x01}, 1});
}

TEST_CASE("is_read: reads, CDT reads and bit reads; everything else writes", "[kv][operation]") {
    CHECK(kv::is_read(kv::op::read("a")));
    CHECK(kv::is_read(kv::op::read_all()));
    CHECK(kv::is_read(kv::op::read_header()));
    CHECK(kv::is_read(kv::op::cdt("m", cdt::map_ops::size())));
    CHECK(kv::is_read(kv::op::cdt("l", cdt::list_ops::get_by_index(0, cdt::return_type::value))));
    CHECK(kv::is_read(kv::op::bit("b", cdt::bit_ops::bit_get(0, 8))));
    CHECK_FALSE(kv::is_read(kv::op::write("a", 1)));
    CHECK_FALSE(kv::is_read(kv::op::add("a", 1)));
    CHECK_FALSE(kv::is_read(kv::op::append("a", "x")));
    CHECK_FALSE(kv::is_read(kv::op::prepend("a", "x")));
    CHECK_FALSE(kv::is_read(kv::op::touch()));
    CHECK_FALSE(kv::is_read(kv::op::delete_record()));
    CHECK_FALSE(kv::is_read(kv::op::cdt("m", cdt::map_ops::put(1, 1))));
    // Remove-type CDT ops are modify ops on the wire.
    CHECK_FALSE(
        kv::is_read(kv::op::cdt("m", cdt::map_ops::remove_by_key(1, cdt::return_type::none))));
    CHECK_FALSE(kv::is_read(kv::op::bit("b", cdt::bit_ops::bit_resize(4))));
}

TEST_CASE("op_name for messages", "[kv][operation]") {
    CHECK(kv::op_name(kv::op::read("a")) == "read");
    CHECK(kv::op_name(kv::op::read_all()) == "read_all");
    CHECK(kv::op_name(kv::op::read_header()) == "read_header");
    CHECK(kv::op_name(kv::op::write("a", 1)) == "write");
    CHECK(kv::op_name(kv::op::add("a", 1)) == "add");
    CHECK(kv::op_name(kv::op::append("a", "x")) == "append");
    CHECK(kv::op_name(kv::op::prepend("a", "x")) == "prepend");
    CHECK(kv::op_name(kv::op::touch()) == "touch");
    CHECK(kv::op_name(kv::op::delete_record()) == "delete");
    CHECK(kv::op_name(kv::op::cdt("m", cdt::map_ops::put(1, 1))) == "map_put");
    CHECK(kv::op_name(kv::op::cdt("l", cdt::list_ops::append(1))) == "list_append");
    CHECK(kv::op_name(kv::op::bit("b", cdt::bit_ops::bit_resize(1))) == "bit_resize");
}

TEST_CASE("an operation is used as a std::variant of its alternatives", "[kv][operation]") {
    static_assert(std::variant_size_v<kv::operation> == 14);
    static_assert(
        std::is_same_v<std::variant_alternative_t<3, const kv::operation>, const kv::write_op>);
    kv::operation o = kv::write_op{"a", 1}; // from an alternative
    CHECK(std::holds_alternative<kv::write_op>(o));
    CHECK(o.index() == static_cast<std::size_t>(kv::op_kind::write));
    CHECK(std::visit(
        [](const auto& x) { return std::is_same_v<std::decay_t<decltype(x)>, kv::write_op>; }, o));
    o = kv::add_op{"b", 2}; // assigned an alternative
    CHECK(std::get<kv::add_op>(o).bin == "b");
    CHECK(std::get_if<kv::write_op>(&o) == nullptr);
    const kv::operation_variant v = o; // and seen as the variant itself
    CHECK(std::get<kv::add_op>(v).delta == value(2));
    CHECK(kv::kind(kv::operation{}) == kv::op_kind::read);

    // Copies, moves and assignments keep the alternative and its content.
    std::vector<kv::operation> ops{kv::op::read("r"), kv::op::cdt("m", cdt::map_ops::size()), o};
    for (int i = 0; i < 20; ++i)
        ops.push_back(kv::op::write("w", i)); // moved on growth
    std::vector<kv::operation> copy = ops;
    CHECK(copy.size() == 23);
    CHECK(*kv::bin_of(copy[1]) == "m");
    CHECK(std::get<kv::write_op>(copy[22]) == kv::write_op{"w", 19});
    copy[0] = copy[1];
    copy[2] = std::move(copy[22]);
    CHECK(kv::op_name(copy[0]) == "map_size");
    CHECK(std::get<kv::write_op>(copy[2]).val == value(19));
}

TEST_CASE("an operation copies, moves and assigns as its variant, valueless included",
          "[kv][operation]") {
    // From a const alternative, and assigned one (held or not).
    const kv::write_op w{"c", 3};
    kv::operation d = w;
    CHECK(std::get<kv::write_op>(d) == w);
    d = kv::op::read("r");
    d = w;
    CHECK(std::get<kv::write_op>(d) == w);
    d = kv::write_op{"e", 4};
    CHECK(std::get<kv::write_op>(d) == kv::write_op{"e", 4});
    const kv::operation& same = d;
    d = same; // self-assignment keeps it
    CHECK(std::get<kv::write_op>(d) == kv::write_op{"e", 4});

    // An alternative whose construction throws leaves it valueless; copies,
    // moves and assignments from a valueless operation are valueless too.
    struct boom {
        operator kv::write_op() const { throw std::runtime_error("boom"); }
    };
    kv::operation o = kv::op::read("r");
    CHECK_THROWS_AS(o.emplace<kv::write_op>(boom{}), std::runtime_error);
    REQUIRE(o.valueless_by_exception());
    kv::operation c = o;
    CHECK(c.valueless_by_exception());
    kv::operation m = std::move(c);
    CHECK(m.valueless_by_exception());
    kv::operation a = kv::op::write("w", 1);
    a = o;
    CHECK(a.valueless_by_exception());
    kv::operation b = kv::op::cdt("m", cdt::map_ops::size());
    b = std::move(m);
    CHECK(b.valueless_by_exception());
    a = kv::op::add("x", 1); // and holds an alternative again when assigned one
    CHECK(kv::kind(a) == kv::op_kind::add);
    CHECK(*kv::bin_of(a) == "x");
}

} // namespace kv_operation_test
