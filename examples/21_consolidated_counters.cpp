// Seed "Counter Examples: Consolidated Counters" (consolidated_counter.py):
// the ads of a campaign shown to a user today, all counters in one map of one
// record "user|campaign|day" that expires with the day. Each showing is capped
// at 4 per ad — atomically (the seed reads, compares, then increments in a
// second command, which lets two racing servers pass the cap).
#include <kvmodel/patterns/consolidated_counters.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <cstdint>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace kvmodel;

int main() {
    auto clock = std::make_shared<sim::manual_clock>();
    sim::cluster_config cfg;
    cfg.time_source = clock;
    cfg.namespaces[0].nsup_period = 60; // TTL writes need nsup running, as on a server
    sim::cluster db(cfg);
    kv::write_policy day;
    day.ttl = 24 * 3600; // the record expires with the day
    patterns::consolidated_counters<sim::cluster> ads(db, {.set = "adcap", .bin = "ads", .write = day});
    int failures = 0;
    auto check = [&](bool ok, const char* what) {
        if (!ok) {
            ++failures;
            std::cerr << "CHECK FAILED: " << what << "\n";
        }
    };
    std::cout << "== consolidated counters\n";

    const value key = "cf296d9a-0b77-4dd0-8d2b-91e59a6f02d2|campaign123|2019-03-05";
    const std::vector<std::string> names = {"adx123", "adz345", "ady987", "ado717"};
    constexpr std::int64_t ad_limit = 4;
    std::mt19937 rng(20190305);
    int shown = 0;
    int capped = 0;
    for (int i = 0; i < 20; ++i) {
        const std::string& ad = names[rng() % names.size()];
        auto r = ads.increment_capped(key, ad, ad_limit).value();
        if (r) {
            ++shown;
            std::cout << "ad " << ad << " shown (" << *r << " today)\n";
        } else {
            ++capped;
            std::cout << "ad " << ad << " is at the cap, not shown\n";
        }
    }
    std::cout << "\nstate of the consolidated counters:\n";
    std::int64_t sum = 0;
    const auto counters = ads.all(key).value(); // a copy: value() of a temporary dangles in a range-for
    for (const auto& [ad, n] : counters) {
        std::cout << "  " << to_string(ad) << ": " << n << "\n";
        check(n <= ad_limit, "no ad above the cap");
        sum += n;
    }
    check(sum == shown, "the counters sum to the ads shown");
    check(shown + capped == 20, "every request shown or capped");
    auto top = ads.top(key, 2).value();
    std::cout << "top 2: " << to_string(top.at(0).first) << " (" << top.at(0).second << "), "
              << to_string(top.at(1).first) << " (" << top.at(1).second << ")\n";
    check(top.at(0).second >= top.at(1).second, "top K in descending order");

    // Several counters in one operate (a page showing two ads).
    const patterns::consolidated_counters<sim::cluster>::entry page[] = {{value("adq001"), 1},
                                                                         {value("adq002"), 1}};
    auto both = ads.increment_many(key, page).value();
    check(both.size() == 2 && both[0] == 1 && both[1] == 1, "two counters in one operate");

    const auto ttl = db.get(ads.key_of(key).value()).value().ttl;
    std::cout << "record TTL: " << ttl << " s\n";
    check(ttl == 24 * 3600, "TTL of one day");
    clock->advance(std::chrono::hours(25));
    check(ads.all(key).value().empty(), "tomorrow the day's counters are gone");
    std::cout << "a day later: " << ads.all(key).value().size() << " counters\n";
    if (failures > 0) {
        std::cerr << failures << " check(s) failed\n";
        return 1;
    }
    return 0;
}
