// tests/patterns/bucketed_list_model.hpp
//
// Model-based randomized test of bucketed_list (issue 28): random appends
// with random timestamps and ids, caller retries under the same id,
// timeouts, in-doubt writes, node loss, clock steps, scheme changes and
// retention, on every bucket policy; after EVERY step each owner's reads
// (count, read_all, read_time, read_range, newest pages through their cursor
// tokens) are checked against a plain in-memory model of what must be
// visible and against the elements physically in the bucket records (a
// scan): an element stored anywhere is visible to every read, an
// acknowledged one is never lost unless retention dropped it, nothing is
// stored twice, and each read returns the order it documents.
//
// Seed: KVMODEL_SEED (default per family); steps: KVMODEL_FUZZ_OPS per
// policy family (default 25,000 each: 100,000 for the four families, two per
// test file bucketed_list_model_{time,slot}_test.cpp; 2,000 each under
// sanitizers). A
// failure prints the seed, the step and the divergence;
// KVMODEL_MODEL_TRACE=1 prints every step, KVMODEL_MODEL_VISIBILITY_ONLY=1
// checks what is visible but not in which order (for older headers).
#pragma once

#include <kvmodel/patterns/bucketed_list.hpp>
#include <kvmodel/sim/cluster.hpp>

#include "../sanitized.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace bucketed_list_model {

using namespace kvmodel;
using patterns::bucket_policy;
using patterns::bucket_scheme;
using patterns::time_period;
using list_type = patterns::bucketed_list<sim::cluster, std::string>;
using element = list_type::element;

inline std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
    const char* s = std::getenv(name);
    if (s == nullptr || *s == '\0') return fallback;
    return std::strtoull(s, nullptr, 10);
}

// What the model knows of one append (keyed by its item, unique per claim id).
struct known {
    std::int64_t ts = 0;
    bool acked = false;             // must be visible (until retention drops it)
    std::optional<std::uint64_t> slot; // when acked
};

struct run {
    enum class family : std::uint8_t { count, bytes, day, hour };

    std::mt19937_64 rng;
    family fam;
    std::shared_ptr<sim::manual_clock> clock = std::make_shared<sim::manual_clock>();
    std::unique_ptr<sim::cluster> cluster;
    std::unique_ptr<list_type> list;
    std::vector<std::string> owners{"a", "b"};
    std::map<std::string, std::map<std::string, known>> model; // owner -> item -> what is known
    std::vector<sim::fault> faults;                            // re-installed before each step's operation
    std::set<int> down;
    std::uint64_t next_item = 0;
    std::int64_t t0 = 0;
    std::string last_step;
    // KVMODEL_MODEL_VISIBILITY_ONLY=1: check what is visible, not in which
    // order (to run this test against an older header, whose reads had
    // other orders).
    bool visibility_only = env_u64("KVMODEL_MODEL_VISIBILITY_ONLY", 0) != 0;
    std::uint64_t appends_ok = 0, appends_failed = 0, retention_runs = 0;

    run(std::uint64_t seed, family f) : rng(seed), fam(f) {
        sim::cluster_config cfg;
        cfg.time_source = clock;
        cfg.seed = seed;
        cfg.namespaces[0].max_record_size = 64 * 1024;
        cluster = std::make_unique<sim::cluster>(cfg);
        patterns::bucketed_location where;
        where.max_record_size = 64 * 1024;
        where.claim_window = 2 + rng() % 6;
        where.max_attempts = 1 + static_cast<std::uint32_t>(rng() % 3);
        where.clock = [c = clock] { return c->now_ms(); };
        list = std::make_unique<list_type>(*cluster, random_scheme(), where);
        t0 = clock->now_ms();
    }

    std::uint64_t pick(std::uint64_t n) { return rng() % n; }
    bool chance(std::uint64_t one_in) { return pick(one_in) == 0; }
    bool time_policy() const { return fam == family::day || fam == family::hour; }

    bucket_scheme random_scheme() {
        switch (fam) {
        case family::count:
        case family::bytes:
            // Either slot policy: a scheme change may switch between them.
            if ((fam == family::count) != chance(4)) return {bucket_policy::by_count, 1 + pick(6)};
            return {bucket_policy::by_bytes, 120 + pick(400)};
        case family::day: return {bucket_policy::by_time, 1 + pick(5), time_period::day};
        case family::hour: break;
        }
        return {bucket_policy::by_time, 1 + pick(5), time_period::hour};
    }

    std::int64_t period_len() const { return fam == family::day ? 86400000 : 3600000; }

    // A timestamp near now: mostly in order, sometimes late (an earlier
    // period) or a little ahead.
    std::int64_t random_ts() {
        const std::int64_t now = clock->now_ms();
        const std::int64_t span = time_policy() ? period_len() : 60000;
        switch (pick(6)) {
        case 0: return std::max<std::int64_t>(0, now - static_cast<std::int64_t>(pick(3)) * span -
                                                     static_cast<std::int64_t>(pick(static_cast<std::uint64_t>(span))));
        case 1: return now + static_cast<std::int64_t>(pick(static_cast<std::uint64_t>(span / 4)));
        default: return std::max<std::int64_t>(0, now - static_cast<std::int64_t>(pick(5000)));
        }
    }

    void install_faults() {
        cluster->clear_faults();
        for (const sim::fault& f : faults) REQUIRE(cluster->add_fault(f));
    }

    void random_faults() {
        faults.clear();
        switch (pick(5)) {
        case 0: break; // none
        case 1:
            faults.push_back(sim::fault::timeout().with_probability(0.05 * static_cast<double>(1 + pick(8))).forever());
            break;
        case 2:
            faults.push_back(sim::fault::in_doubt().with_probability(0.05 * static_cast<double>(1 + pick(8))).forever());
            faults.push_back(sim::fault::timeout().with_probability(0.1).forever());
            break;
        case 3: {
            // The records of one owner's index: the period index and the
            // count/byte head are the same record.
            const std::string& o = owners[pick(owners.size())];
            faults.push_back(sim::fault::timeout().for_key(list->head_key(o)).with_probability(0.5 + 0.1 * static_cast<double>(pick(5))).forever());
            break;
        }
        default:
            faults.push_back(sim::fault::in_doubt().with_probability(0.3).forever());
            faults.push_back(sim::fault::timeout().with_probability(0.3).forever());
            break;
        }
    }

    std::string new_item(const std::string& owner) { return owner + "-" + std::to_string(next_item++); }

    void append_once(const std::string& owner) {
        std::string item = new_item(owner);
        std::int64_t ts = random_ts();
        std::string payload = item + std::string(pick(3) == 0 ? pick(60) : 0, '.');
        install_faults();
        const bool with_id = chance(2);
        std::string id = "id-" + item;
        auto r = with_id ? list->append(owner, payload, ts, id) : list->append(owner, payload, ts);
        known& k = model[owner][payload];
        k.ts = ts;
        // A caller retries under the same id (the documented contract).
        for (int retry = 0; !r && with_id && retry < 2; ++retry) {
            if (chance(3)) install_faults();
            else cluster->clear_faults();
            r = list->append(owner, payload, ts, id);
        }
        cluster->clear_faults();
        if (r) {
            k.acked = true;
            k.slot = *r;
            ++appends_ok;
        } else {
            ++appends_failed;
        }
        last_step = "append " + owner + " " + payload + " ts " + std::to_string(ts) + (with_id ? " (caller id)" : "") +
                    (r ? " -> slot " + std::to_string(*r) : " -> " + r.error().message);
    }

    void retention(const std::string& owner) {
        install_faults();
        if (time_policy()) {
            const std::int64_t now = clock->now_ms();
            const std::int64_t cutoff = now - static_cast<std::int64_t>(pick(4)) * period_len();
            auto r = list->drop_older_than(owner, cutoff);
            cluster->clear_faults();
            for (auto it = model[owner].begin(); it != model[owner].end();) {
                const std::int64_t end = patterns::period_start_ms(patterns::period_of(it->second.ts, list->scheme().period),
                                                                   list->scheme().period) +
                                         period_len();
                if (end <= cutoff) {
                    if (r) it = model[owner].erase(it); // must be gone: checked against the scan
                    else (it++)->second.acked = false;  // may be gone
                } else {
                    ++it;
                }
            }
            last_step = "drop_older_than " + owner + " " + std::to_string(cutoff) + (r ? "" : " -> " + r.error().message);
        } else if (chance(2)) {
            const std::uint64_t keep = pick(20);
            auto count = list->count(owner);
            auto r = list->keep_newest(owner, keep);
            cluster->clear_faults();
            for (auto& [item, k] : model[owner])
                if (!k.slot || !count || *k.slot + keep < *count) k.acked = false;
            last_step = "keep_newest " + owner + " " + std::to_string(keep) + (r ? "" : " -> " + r.error().message);
        } else {
            const std::int64_t cutoff = clock->now_ms() - static_cast<std::int64_t>(pick(120000));
            auto r = list->drop_older_than(owner, cutoff);
            cluster->clear_faults();
            for (auto& [item, k] : model[owner])
                if (k.ts < cutoff) k.acked = false; // its bucket may go (whole buckets only)
            last_step = "drop_older_than " + owner + " " + std::to_string(cutoff) + (r ? "" : " -> " + r.error().message);
        }
        ++retention_runs;
    }

    void step() {
        switch (pick(20)) {
        case 0: random_faults(); last_step = "faults"; break;
        case 1: {
            const int n = static_cast<int>(pick(cluster->node_count()));
            if (down.count(n) != 0) {
                REQUIRE(cluster->node_up(n));
                down.erase(n);
            } else if (down.empty()) {
                REQUIRE(cluster->node_down(n));
                down.insert(n);
            }
            last_step = "node " + std::to_string(n);
            break;
        }
        case 2:
        case 3: {
            // The clock moves on (minutes to periods), now and then back.
            const std::int64_t span = time_policy() ? period_len() : 60000;
            std::int64_t d = static_cast<std::int64_t>(pick(static_cast<std::uint64_t>(span)));
            if (chance(8)) d = -d / 4;
            clock->set(std::max(t0, clock->now_ms() + d));
            last_step = "clock " + std::to_string(d);
            break;
        }
        case 4: {
            const std::string& o = owners[pick(owners.size())];
            install_faults();
            auto r = list->change_scheme(o, random_scheme());
            cluster->clear_faults();
            last_step = "change_scheme " + o + (r ? "" : " -> " + r.error().message);
            break;
        }
        case 5: retention(owners[pick(owners.size())]); break;
        default: append_once(owners[pick(owners.size())]); break;
        }
    }

    // --- the checks, fault-free ----------------------------------------------------

    std::string owner_of(const std::string& item) const { return item.substr(0, item.find('-')); }

    // Every element stored in a bucket record: owner -> item -> copies.
    std::map<std::string, std::map<std::string, int>> stored() const {
        std::map<std::string, std::map<std::string, int>> out;
        auto recs = cluster->scan({"test", list->location().bucket_set, {}, 0});
        REQUIRE(recs);
        for (const auto& kr : *recs) {
            const value items = kr.rec.value_of("items");
            if (!items.is_map()) continue;
            for (const map_entry& e : items.as_map())
                if (e.val.is_list() && e.val.as_list().size() == 2 && e.val.as_list()[1].is_string()) {
                    const std::string& item = e.val.as_list()[1].as_string();
                    ++out[owner_of(item)][item];
                }
        }
        return out;
    }

    static bool by_arrival(const element& a, const element& b) { return a.day != b.day ? a.day < b.day : a.slot < b.slot; }
    static bool by_time(const element& a, const element& b) {
        return a.ts != b.ts ? a.ts < b.ts : by_arrival(a, b);
    }

    // The first divergence, or empty.
    std::string check() {
        std::ostringstream why;
        const auto physical = stored();
        for (const std::string& o : owners) {
            auto all = list->read_all(o);
            if (!all) return "read_all " + o + ": " + all.error().message;
            std::map<std::string, const element*> seen;
            for (std::size_t i = 0; i < all->size(); ++i) {
                const element& e = (*all)[i];
                if (!seen.emplace(e.item, &e).second)
                    return "read_all " + o + ": " + e.item + " twice, slots " + std::to_string(seen[e.item]->slot) + " and " +
                           std::to_string(e.slot);
                auto k = model[o].find(e.item);
                if (k == model[o].end()) return "read_all " + o + ": " + e.item + " was never appended, or dropped by retention";
                if (k->second.ts != e.ts) return "read_all " + o + ": " + e.item + " has the wrong timestamp";
                if (k->second.slot && *k->second.slot != e.slot) return "read_all " + o + ": " + e.item + " moved slot";
                if (i > 0 && !by_arrival((*all)[i - 1], e) && !visibility_only) return "read_all " + o + ": not in arrival order at " + e.item;
            }
            for (const auto& [item, k] : model[o])
                if (k.acked && seen.count(item) == 0)
                    return "read_all " + o + ": acknowledged " + item + " (slot " + std::to_string(k.slot.value_or(0)) +
                           ", ts " + std::to_string(k.ts) + ") is invisible";
            const auto ph = physical.find(o);
            if (ph != physical.end())
                for (const auto& [item, copies] : ph->second) {
                    if (copies > 1) return "stored " + o + ": " + item + " stored " + std::to_string(copies) + " times";
                    if (seen.count(item) == 0) return "stored " + o + ": " + item + " is in a bucket but invisible to read_all";
                }
            if (seen.size() != (ph == physical.end() ? 0 : ph->second.size()))
                return "read_all " + o + ": shows an element no bucket holds";
            for (const auto& [item, k] : model[o])
                if (seen.count(item) != 0 && !k.acked) model[o][item].acked = true; // seen once: stays visible

            auto n = list->count(o);
            if (!n && visibility_only && n.error().code == status::record_not_found) n = std::uint64_t{0};
            if (!n) return "count " + o + ": " + n.error().message;
            if (*n < all->size()) return "count " + o + ": " + std::to_string(*n) + " < " + std::to_string(all->size()) + " visible";

            // read_time: the whole span and a random window, in time order.
            std::vector<element> timed = *all;
            std::sort(timed.begin(), timed.end(), by_time);
            // The span of every visible element (every stored one is visible:
            // checked above), and a random window around it.
            const std::int64_t lo = timed.empty() ? t0 : timed.front().ts;
            const std::int64_t hi = timed.empty() ? t0 + 1 : timed.back().ts + 1;
            const std::int64_t a = lo - 1000 + static_cast<std::int64_t>(pick(static_cast<std::uint64_t>(hi - lo + 2000)));
            const std::int64_t b = a + static_cast<std::int64_t>(pick(static_cast<std::uint64_t>(time_policy() ? 3 * period_len() : 600000)));
            for (auto [from, to] : {std::pair{lo, hi}, std::pair{a, b}}) {
                if (fam == family::hour && to - from > 24LL * 366 * 3600000) continue;
                auto rt = list->read_time(o, from, to);
                if (!rt) return "read_time " + o + ": " + rt.error().message;
                std::vector<element> want;
                for (const element& e : timed)
                    if (e.ts >= from && e.ts < to) want.push_back(e);
                if (visibility_only) {
                    std::sort(rt->begin(), rt->end(), by_time);
                    std::sort(want.begin(), want.end(), by_time);
                }
                if (*rt != want) {
                    why << "read_time " << o << " [" << from << ", " << to << "): " << rt->size() << " elements, want "
                        << want.size() << " in time order";
                    return why.str();
                }
            }
            if (!time_policy() && *n > 0) {
                std::uint64_t first = pick(*n + 1);
                std::uint64_t last = first + pick(*n + 2 - first);
                auto rr = list->read_range(o, first, last);
                if (!rr) return "read_range " + o + ": " + rr.error().message;
                std::vector<element> want;
                for (const element& e : *all)
                    if (e.slot >= first && e.slot < last) want.push_back(e);
                if (*rr != want) return "read_range " + o + ": differs";
            }

            // newest, paged through cursor tokens.
            std::vector<element> want = time_policy() ? timed : *all;
            std::reverse(want.begin(), want.end());
            const std::size_t page = 1 + want.size() / 4 + pick(std::max<std::size_t>(want.size() / 2, 1));
            std::vector<element> got;
            std::optional<patterns::bucket_cursor> cur;
            for (int pages = 0;; ++pages) {
                if (static_cast<std::size_t>(pages) > want.size() + 1) return "newest " + o + ": pages past the end";
                auto p = list->newest(o, page, cur);
                if (!p) return "newest " + o + ": " + p.error().message;
                if (p->items.size() > page) return "newest " + o + ": page too long";
                got.insert(got.end(), p->items.begin(), p->items.end());
                if (!p->next) {
                    if (p->items.size() == page && got.size() < want.size()) return "newest " + o + ": no cursor on a full page";
                    break;
                }
                auto parsed = patterns::bucket_cursor::parse(p->next->token());
                if (!parsed || !(*parsed == *p->next)) return "newest " + o + ": cursor token does not round-trip";
                cur = *parsed;
            }
            if (visibility_only) {
                std::sort(got.begin(), got.end(), by_time);
                std::sort(want.begin(), want.end(), by_time);
            }
            if (got != want) {
                why << "newest " << o << " (pages of " << page << "): " << got.size() << " elements, want " << want.size()
                    << (time_policy() ? " newest timestamp first" : " latest appended first");
                return why.str();
            }
        }
        return {};
    }
};

constexpr std::uint64_t default_steps = KVMODEL_TEST_SANITIZED ? 2'000 : 25'000;

/// Runs KVMODEL_FUZZ_OPS (default 25,000; 2,000 under sanitizers) steps of
/// one bucket policy family, a fresh cluster every 400 steps.
inline void run_model(run::family fam, std::uint64_t seed_base) {
    const std::uint64_t seed = env_u64("KVMODEL_SEED", seed_base);
    const std::uint64_t steps = env_u64("KVMODEL_FUZZ_OPS", default_steps);
    // A fresh cluster and list every 400 steps: many schemes and windows per run.
    constexpr std::uint64_t per_run = 400;
    const bool trace = env_u64("KVMODEL_MODEL_TRACE", 0) != 0; // print every step
    std::uint64_t ok = 0, failed = 0, retention = 0;
    for (std::uint64_t done = 0, r = 0; done < steps; ++r) {
        run m(seed + r, fam);
        for (std::uint64_t i = 0; i < per_run && done < steps; ++i, ++done) {
            m.step();
            if (trace) std::cout << r << "." << i << ": " << m.last_step << "\n";
            std::string d = m.check();
            if (!d.empty()) {
                INFO("KVMODEL_SEED=" << seed << " run " << r << " (seed " << seed + r << ") step " << i
                                     << " after: " << m.last_step);
                FAIL(d);
            }
        }
        ok += m.appends_ok;
        failed += m.appends_failed;
        retention += m.retention_runs;
    }
    std::cout << "bucketed_list model: " << steps << " steps, " << ok << " appends acknowledged, " << failed
              << " failed, " << retention << " retention runs (KVMODEL_SEED=" << seed << ", KVMODEL_FUZZ_OPS)\n";
    if (steps >= 2000) {
        CHECK(ok > steps / 4);
        CHECK(failed > 0);
        CHECK(retention > 0);
    }
}


} // namespace bucketed_list_model
