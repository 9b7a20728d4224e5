#include <kvmodel/patterns/nested_document.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include "../../examples/scenarios/awards.hpp"

#include <sstream>

namespace patterns_nested_document_test {

using namespace kvmodel;

TEST_CASE("nested documents: the awards seed", "[patterns][nested_document]") {
    sim::cluster c;
    std::ostringstream out;
    auto r = examples::run_awards(c, out);
    REQUIRE(r);
    CHECK(r->cfo_attrs_after_first == 3);
    CHECK(r->cfo_attrs_after_second == 3); // given once
    CHECK(r->leader == "ACE");
    CHECK(r->trophies == 2);
    CHECK(r->top3 == std::vector<std::string>{"ACE", "SOS", "EIR"});
}

TEST_CASE("nested documents: depth errors leave the document unchanged", "[patterns][nested_document]") {
    sim::cluster c;
    patterns::nested_document<sim::cluster> d(c);
    using who = patterns::nested_document<sim::cluster>::who;
    REQUIRE(d.set_player("g", {"p1", 10, map{{"x", 1}}}));
    REQUIRE(d.set_player("g", {"p2", 20, map{}}));
    // A missing player is a missing context step.
    auto missing = d.increment("g", who::player("nobody"), "n");
    REQUIRE_FALSE(missing);
    CHECK(missing.error().code == status::op_not_applicable);
    // Incrementing a string counter is a parameter error.
    REQUIRE(d.award_once("g", who::player("p1"), "title", value{"champ"}));
    auto bad = d.increment("g", who::player("p1"), "title");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code == status::parameter_error);
    CHECK(d.attribute("g", who::player("p1"), "title").value() == value{"champ"});
    CHECK(d.increment("g", who::by_rank(0), "n").value() == value{1}); // the lowest score: p1
    CHECK(d.attribute("g", who::player("p1"), "n").value() == value{1});
    CHECK(d.attribute("g", who::leader(), "n").value().is_nil());
}

} // namespace patterns_nested_document_test
