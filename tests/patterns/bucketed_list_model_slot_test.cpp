// The bucketed list's model-based test (bucketed_list_model.hpp) on the count and byte policies.
#include "bucketed_list_model.hpp"

#include <catch2/catch.hpp>

namespace patterns_bucketed_list_model_slot_test {

using bucketed_list_model::run;
using bucketed_list_model::run_model;

TEST_CASE("bucketed list model: count buckets", "[patterns][bucketed_list_model]") {
    run_model(run::family::count, 0x636f756e74);
}

TEST_CASE("bucketed list model: byte buckets", "[patterns][bucketed_list_model]") {
    run_model(run::family::bytes, 0x6279746573);
}

} // namespace patterns_bucketed_list_model_slot_test
