// The bucketed list's model-based test (bucketed_list_model.hpp): count and byte buckets.
#include "bucketed_list_model.hpp"

#include <catch2/catch.hpp>

namespace patterns_bucketed_list_model_slot_test {

TEST_CASE("bucketed list model: count and byte buckets", "[patterns][bucketed_list_model]") {
    bucketed_list_model::run_model(bucketed_list_model::run::family::count, 0x636f756e74);
    bucketed_list_model::run_model(bucketed_list_model::run::family::bytes, 0x6279746573);
}

} // namespace patterns_bucketed_list_model_slot_test
