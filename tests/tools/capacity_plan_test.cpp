// The capacity plan's scaling assumption (tools/capacity_plan.hpp): the
// footprint of a 1% sample of the owners, scaled up, lands within 5% of a
// full simulation of all of them — on the worst node, as the plan reports
// it, against the full simulation's own worst node.
#include "../../tools/capacity_plan.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>

namespace tools_capacity_plan_test {

using namespace kvmodel;
using namespace kvmodel::tools::sizing;
using patterns::bucket_policy;

namespace {

workload small_world() {
    workload w;
    w.element_bytes = 100;
    w.element_bytes_max = 300; // varied sizes: the sample must average them
    w.appends_per_owner_per_day = 10;
    w.heavy_fraction = 0.1;
    w.heavy_multiplier = 3;
    w.replication_factor = 2;
    w.retention_days = 1; // trimming on day 2 too
    return w;
}

} // namespace

TEST_CASE("capacity plan: a 1% sample extrapolates within 5% of the full simulation",
          "[tools][capacity_plan]") {
    const workload w = small_world();
    plan_options opt;
    opt.owners = 2000;
    opt.owner_growth_per_day = 0.1;
    opt.days = 2;
    opt.nodes = 3;
    opt.sample = 0.01;
    const candidate cand{"count 10", {bucket_policy::by_count, 10}};
    const capacity_plan p = plan(w, opt, cand);
    REQUIRE(p.sample_owners == 20);
    REQUIRE(p.days.size() == 2);

    // All 2000 owners (2200 on day 2), simulated as they are.
    const std::vector<footprint_day> full = simulate_footprint(w, opt, cand, opt.owners);
    REQUIRE(full.size() == 2);
    CHECK(full[1].owners == 2200);
    for (std::size_t d = 0; d < 2; ++d) {
        std::uint64_t worst_data = 0;
        std::uint64_t worst_index = 0;
        for (const sim::node_stats& n : full[d].stats.nodes) {
            worst_data = std::max(worst_data, n.data_used_bytes);
            worst_index = std::max(worst_index, n.index_used_bytes);
        }
        INFO("day " << d + 1 << ": plan " << p.days[d].data_bytes << " / " << p.days[d].index_bytes
                    << ", full " << worst_data << " / " << worst_index);
        CHECK(p.days[d].data_bytes == Approx(static_cast<double>(worst_data)).epsilon(0.05));
        CHECK(p.days[d].index_bytes == Approx(static_cast<double>(worst_index)).epsilon(0.05));
    }
}

TEST_CASE("capacity plan: one node down, recommended data-size, stop-writes day",
          "[tools][capacity_plan]") {
    workload w = small_world();
    w.retention_days = 0; // keeps growing
    plan_options opt;
    opt.owners = 1'000'000;
    opt.days = 3;
    opt.sample = 0.00001; // 10 owners
    const capacity_plan p = plan(w, opt, {"count 10", {bucket_policy::by_count, 10}});
    REQUIRE(p.days.size() == 3);
    // 3 nodes, replication 2: a node holds about a third of the copies, half
    // of them once one is gone.
    CHECK(p.share == Approx(1.0 / 3).epsilon(0.05));
    CHECK(p.share_one_down == Approx(0.5));
    CHECK(p.days[2].data_bytes_one_down == Approx(p.days[2].data_bytes * 0.5 / p.share));
    // The recommended data-size keeps the last day, one node down, under 70%.
    REQUIRE(p.data_size_recommended);
    CHECK(p.days[2].data_bytes_one_down <= 0.7 * static_cast<double>(p.data_size));
    CHECK(p.days[2].data_bytes_one_down > 0.7 * static_cast<double>(p.data_size - (std::uint64_t{1} << 30U)));
    REQUIRE(p.stop_writes_day_one_down);
    CHECK(*p.stop_writes_day_one_down > 3); // past the simulated days, extrapolated
    // A data-size the data passes on day 2 stops writes on day 2.
    opt.data_size = static_cast<std::uint64_t>(p.days[1].data_bytes / 0.7) - 1;
    const capacity_plan q = plan(w, opt, {"count 10", {bucket_policy::by_count, 10}});
    REQUIRE(q.stop_writes_day);
    CHECK(*q.stop_writes_day == 2);
    CHECK_THAT(to_text(q), Catch::Contains("stop-writes at 70% of data-size") && Catch::Contains("day 2;"));
    CHECK(to_json(q)["stop_writes_day"] == 2.0);
    CHECK_THAT(to_svg(q), Catch::Contains("<polyline") && Catch::Contains("stop-writes (70%"));
}

} // namespace tools_capacity_plan_test
