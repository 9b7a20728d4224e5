// The bucketed list's model-based test (bucketed_list_model.hpp): time buckets, hourly and daily.
#include "bucketed_list_model.hpp"

#include <catch2/catch.hpp>

namespace patterns_bucketed_list_model_time_test {

TEST_CASE("bucketed list model: time buckets, hourly and daily", "[patterns][bucketed_list_model]") {
    bucketed_list_model::run_model(bucketed_list_model::run::family::hour, 0x686f7572);
    bucketed_list_model::run_model(bucketed_list_model::run::family::day, 0x646179);
}

} // namespace patterns_bucketed_list_model_time_test
