// Unique visitors with HyperLogLog bins (patterns/unique_count.hpp): one
// sketch per page and day, filled as visits arrive; the weekly unique count
// of a page from its 7 daily sketches, computed by the server; the week
// stored as a record of its own; and the overlap of two audiences (the
// visitors of two pages). Every count is an estimate with the server's
// HyperLogLog error (about 0.8% at 14 index bits); the checks below allow 3%.
#include <kvmodel/patterns/unique_count.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

using namespace kvmodel;

namespace {
std::vector<value> visitors(int from, int to) {
    std::vector<value> v;
    for (int k = from; k < to; ++k) {
        std::string s = "visitor-"; // (not + to_string: GCC 12's -Wrestrict false positive)
        s += std::to_string(k);
        v.push_back(value(std::move(s)));
    }
    return v;
}
bool near(std::int64_t estimate, double truth) {
    return std::abs(static_cast<double>(estimate) - truth) <= 0.03 * truth;
}
} // namespace

int main() {
    sim::cluster db;
    patterns::unique_count<sim::cluster> uniques(db);
    int failures = 0;
    auto check = [&](bool ok, const char* what) {
        if (!ok) {
            ++failures;
            std::cerr << "CHECK FAILED: " << what << "\n";
        }
    };
    std::cout << "== unique visitors\n";

    // Day d: visitors [1000 d, 1000 d + 3000) see /home; each batch is one
    // operate that adds and counts. Returning visitors are not counted twice.
    std::vector<std::string> week;
    for (int d = 0; d < 7; ++d) {
        std::string day = "2026-11-";
        day += std::to_string(20 + d);
        week.push_back(day);
        std::int64_t today = 0;
        for (int from = 1000 * d; from < 1000 * d + 3000; from += 500)
            today = uniques.add("/home", day, visitors(from, from + 500)).value();
        today = uniques.add("/home", day, visitors(1000 * d, 1000 * d + 100)).value(); // repeats
        std::cout << day << ": ~" << today << " unique visitors of /home (3000 distinct)\n";
        check(near(today, 3000), "a day's count within 3%");
    }
    const std::int64_t weekly = uniques.union_count("/home", week).value();
    std::cout << "week: ~" << weekly << " unique visitors of /home (9000 distinct)\n";
    check(near(weekly, 9000), "the week's union within 3%");
    const std::int64_t stored = uniques.rollup("/home", week, "2026-W48").value();
    check(stored == weekly, "the stored week counts what the union counted");
    check(uniques.count("/home", "2026-W48").value() == weekly,
          "the week reads back in one operate");
    check(uniques.count("/home", "2026-12-01").value() == 0, "a day without visits counts 0");

    // Two audiences on one day: /pricing saw visitors [2000, 4000), /docs
    // [3000, 6000): 1000 in both, 4000 in either.
    (void)uniques.add("/pricing", "2026-11-26", visitors(2000, 4000)).value();
    (void)uniques.add("/docs", "2026-11-26", visitors(3000, 6000)).value();
    const auto o = uniques.overlap("/pricing", "2026-11-26", "/docs", "2026-11-26").value();
    std::cout << "/pricing and /docs: ~" << o.both << " in both, ~" << o.either
              << " in either, similarity " << o.similarity << "\n";
    check(near(o.either, 4000), "union of the audiences within 3%");
    check(std::abs(static_cast<double>(o.both) - 1000) <= 0.03 * 4000,
          "intersection within 3% of the union");
    check(std::abs(o.similarity - 0.25) <= 0.03, "similarity near 1000 / 4000");

    if (failures != 0) {
        std::cerr << failures << " check(s) failed\n";
        return 1;
    }
    std::cout << "all checks passed\n";
    return 0;
}
