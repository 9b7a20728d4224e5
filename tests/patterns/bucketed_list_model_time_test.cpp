// The bucketed list's model-based test (bucketed_list_model.hpp) on the time policies.
#include "bucketed_list_model.hpp"

#include <catch2/catch.hpp>

namespace patterns_bucketed_list_model_time_test {

using bucketed_list_model::run;
using bucketed_list_model::run_model;

TEST_CASE("bucketed list model: hourly time buckets", "[patterns][bucketed_list_model]") {
    run_model(run::family::hour, 0x686f7572);
}

TEST_CASE("bucketed list model: daily time buckets", "[patterns][bucketed_list_model]") {
    run_model(run::family::day, 0x646179);
}

} // namespace patterns_bucketed_list_model_time_test
