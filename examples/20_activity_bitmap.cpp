// Seed "Bitwise operations on bitfields" (bitwise_operations.py): per user a
// bitfield of the minutes of today (1440 bits), one of the last 368 days, and
// counters (total, month, week, today) updated in the same operate as the bit
// set. Queries: activity at a minute, count in a window, the most recent
// minute (rscan), the first active day of the last 90 (lscan); the daily roll
// (lshift by one) for one user, then for every user of the set as a
// background job.
#include <kvmodel/patterns/activity_bitmap.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>

using namespace kvmodel;

namespace {
std::string show(const std::optional<std::uint32_t>& v) {
    return v ? std::to_string(*v) : std::string("none");
}
} // namespace

int main() {
    sim::cluster db;
    patterns::activity_bitmap<sim::cluster> activity(db);
    int failures = 0;
    auto check = [&](bool ok, const char* what) {
        if (!ok) {
            ++failures;
            std::cerr << "CHECK FAILED: " << what << "\n";
        }
    };
    std::cout << "== activity bitmap\n";

    // Activity at minute 1421 (23:41): bits and counters in one operate.
    auto c = activity.record("bit-example1", 1421).value();
    std::cout << "after minute 1421: total " << c.total << ", month " << c.month << ", week "
              << c.week << ", today " << c.today << "\n";
    check(c.total == 1 && c.today == 1, "counters incremented with the bit");
    (void)activity.record("bit-example1", 600).value();
    (void)activity.record("bit-example2", 1421).value();

    const bool at_1421 = activity.was_active("bit-example2", 1421).value();
    std::cout << "bit-example2 active at minute 1421? " << (at_1421 ? "yes" : "no") << "\n";
    check(at_1421, "bit 1421 raised");
    const auto morning = activity.count_active("bit-example1", 0, 720).value();
    const auto evening = activity.count_active("bit-example1", 720, 1440).value();
    std::cout << "bit-example1: " << morning << " active minute(s) before noon, " << evening
              << " after\n";
    check(morning == 1 && evening == 1, "window counts");
    const auto last = activity.last_active_slot("bit-example1").value();
    std::cout << "most recent activity today at minute " << show(last) << " (rscan)\n";
    check(last == std::optional<std::uint32_t>(1421), "rscan finds minute 1421");

    // Ten days pass for bit-example1 (active again 3 days ago).
    for (int d = 0; d < 7; ++d) (void)activity.roll_day("bit-example1").value();
    (void)activity.record("bit-example1", 30).value();
    for (int d = 0; d < 3; ++d) (void)activity.roll_day("bit-example1").value();
    const auto first90 = activity.first_active_day("bit-example1", 90).value();
    const auto last_day = activity.last_active_day("bit-example1").value();
    std::cout << "bit-example1: first activity of the last 90 days " << show(first90)
              << " days ago (lscan), most recent " << show(last_day) << " days ago (rscan), "
              << activity.active_days("bit-example1", 90).value() << " active days\n";
    check(first90 == std::optional<std::uint32_t>(10), "lscan: oldest active day 10 days ago");
    check(last_day == std::optional<std::uint32_t>(3), "rscan: most recent active day 3 days ago");

    // The daily roll of every user of the set, as a background job.
    for (int i = 0; i < 100; ++i) (void)activity.record("user-" + std::to_string(i), 60).value();
    auto job = activity.roll_day_all({.new_week = true});
    auto done = job.wait();
    std::cout << "background roll: " << done.applied << " of " << done.total
              << " records rolled, " << done.failed << " failed\n";
    check(done.total == 102 && done.applied == 102 && done.failed == 0, "every record rolled once");
    check(activity.last_active_day("user-7").value() == std::optional<std::uint32_t>(1),
          "yesterday is one day ago after the roll");
    check(activity.last_active_day("bit-example1").value() == std::optional<std::uint32_t>(4),
          "bit-example1 rolled too");
    check(activity.counters("user-7").value().week == 0, "new week resets the week counter");

    const auto rec = db.get(activity.key_of("bit-example1").value()).value();
    std::cout << "record bins: dminutes " << rec.get("dminutes")->as_bytes().size()
              << " bytes, recent " << rec.get("recent")->as_bytes().size() << " bytes\n";
    if (failures > 0) {
        std::cerr << failures << " check(s) failed\n";
        return 1;
    }
    return 0;
}
