// tools/cmd_size.cpp
//
// `kvmodel size`: the bucket-size advisor (tools/size_advisor.hpp) on the
// command line: options set the workload, a table (or --json) and a
// recommendation come out, --svg FILE writes the chart.
#include "command.hpp"
#include "capacity_plan.hpp"
#include "size_advisor.hpp"

#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unistd.h>

namespace {

using namespace kvmodel::tools::sizing;

constexpr std::string_view usage = R"(usage: kvmodel size [options]

Replays a workload on a simulated cluster for each candidate bucket policy
(count 10..10000, bytes 16K..half the limit, time day and hour) and prints
what each costs, with a recommendation. Defaults run a small example in
seconds.

workload:
  --element-bytes N          element payload bytes (default 200)
  --element-bytes-max N      elements uniform in [element-bytes, N]
  --owners N                 owners (default 40)
  --appends-per-day X        appends per typical owner per day (default 40)
  --heavy-fraction F         share of heavy owners (default 0.05)
  --heavy-multiplier X       heavy owners append X times more (default 50)
  --days N                   simulated days (default 2)
  --page-reads-per-day X     newest-page reads per owner per day (default 10)
  --page-size N              elements per page (default 50)
  --day-reads-per-day X      one-day reads per owner per day (default 1)
  --read-all-per-day X       read-everything per owner per day (default 0.2)
  --retention-days N         drop data older than N days (default: keep)
  --max-record-size BYTES    namespace max-record-size (default 1048576)
  --replication-factor N     copies of each record (default 2)
  --rt-cost-bytes X          price of a round trip in bytes written (default 16384)
  --record-cost-bytes X      price of reading one record (default 4096)
  --seed N                   seed of the replay (default 1)
capacity plan (with --plan-owners):
  --plan-owners N            plan for N owners: the footprint per node over
                             time, simulated on a sample and scaled up; the
                             headroom after losing a node, the day stop-writes
                             hits, the namespace config to set
  --owner-growth-per-day F   owners added per day, fraction of N (default 0)
  --plan-days N              days simulated (default 30)
  --nodes N                  cluster nodes (default 3)
  --sample F                 share of the owners simulated (default 0.01)
  --data-size BYTES          data-size per node (default: recommend one)
  --stop-writes-used-pct N   stop-writes-used-pct (default 70)
  --policy NAME              bucket policy, e.g. "count 10" (default: the
                             advisor's recommendation for the workload)
output:
  --json                     print JSON instead of the table
  --svg FILE                 write a chart of write amplification and round trips
  --no-progress              no progress bar
)";

std::optional<double> number(std::string_view s) {
    try {
        std::size_t used = 0;
        double v = std::stod(std::string(s), &used);
        if (used != s.size() || !(v >= 0) || v > 1e12) return std::nullopt;
        return v;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// The capacity plan: the policy named, or the advisor's pick for w.
int run_plan(const workload& w, const plan_options& opt, const std::optional<std::string>& policy, bool json,
             std::ofstream* svg, const std::function<void(std::size_t, std::size_t)>& bar) {
    const std::vector<candidate> cands = default_candidates(w.max_record_size);
    std::optional<candidate> cand;
    if (policy) {
        for (const candidate& c : cands)
            if (c.name == *policy) cand = c;
        if (!cand) {
            std::cerr << "kvmodel size: no policy '" << *policy << "'; one of:";
            for (const candidate& c : cands) std::cerr << " '" << c.name << "'";
            std::cerr << "\n";
            return 2;
        }
    } else {
        report r = advise(w, cands, bar);
        if (!r.recommended) {
            std::cerr << "kvmodel size: " << r.reason << "\n";
            return 1;
        }
        cand = r.outcomes[*r.recommended].cand;
    }
    const capacity_plan p = plan(w, opt, *cand);
    if (json) std::cout << to_json(p).dump(2) << "\n";
    else std::cout << to_text(p);
    if (svg != nullptr) {
        *svg << to_svg(p);
        svg->flush();
        if (!*svg) {
            std::cerr << "kvmodel size: cannot write the chart\n";
            return 1;
        }
    }
    return 0;
}

int run_size(std::span<char*> args) {
    workload w;
    bool json = false;
    bool progress = isatty(STDERR_FILENO) != 0;
    std::optional<std::string> svg;
    plan_options popt;
    bool plan_mode = false;
    std::optional<std::string> policy;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string_view a = args[i];
        if (a == "--help" || a == "-h") {
            std::cout << usage;
            return 0;
        }
        if (a == "--json") { json = true; continue; }
        if (a == "--no-progress") { progress = false; continue; }
        if (i + 1 >= args.size()) {
            std::cerr << "kvmodel size: " << a << " needs a value (try --help)\n";
            return 2;
        }
        std::string_view v = args[++i];
        if (a == "--svg") { svg = std::string(v); continue; }
        if (a == "--policy") { policy = std::string(v); continue; }
        auto x = number(v);
        if (!x) {
            std::cerr << "kvmodel size: " << a << ": '" << v << "' is not a non-negative number\n";
            return 2;
        }
        auto whole = [&](auto& field, double lo, double hi) {
            if (*x < lo || *x > hi || std::floor(*x) != *x) {
                std::cerr << "kvmodel size: " << a << " must be a whole number in [" << lo << ", " << hi << "]\n";
                return false;
            }
            field = static_cast<std::remove_reference_t<decltype(field)>>(*x);
            return true;
        };
        bool ok = true;
        if (a == "--element-bytes") ok = whole(w.element_bytes, 1, 8 << 20);
        else if (a == "--element-bytes-max") ok = whole(w.element_bytes_max, 0, 8 << 20);
        else if (a == "--owners") ok = whole(w.owners, 1, 100000);
        else if (a == "--appends-per-day") w.appends_per_owner_per_day = *x;
        else if (a == "--heavy-fraction") ok = *x <= 1 ? (w.heavy_fraction = *x, true) : false;
        else if (a == "--heavy-multiplier") w.heavy_multiplier = *x;
        else if (a == "--days") ok = whole(w.days, 1, 3650);
        else if (a == "--page-reads-per-day") w.newest_page_reads_per_day = *x;
        else if (a == "--page-size") ok = whole(w.page_size, 1, 100000);
        else if (a == "--day-reads-per-day") w.day_reads_per_day = *x;
        else if (a == "--read-all-per-day") w.read_all_per_day = *x;
        else if (a == "--retention-days") ok = whole(w.retention_days, 0, 3650);
        else if (a == "--max-record-size") ok = whole(w.max_record_size, 64 * 1024, 8 << 20);
        else if (a == "--replication-factor") ok = whole(w.replication_factor, 1, 3);
        else if (a == "--rt-cost-bytes") w.rt_cost_bytes = *x;
        else if (a == "--record-cost-bytes") w.record_cost_bytes = *x;
        else if (a == "--seed") ok = whole(w.seed, 0, 1e12);
        else if (a == "--plan-owners") ok = plan_mode = whole(popt.owners, 1, 1e12);
        else if (a == "--owner-growth-per-day") ok = *x <= 10 ? (popt.owner_growth_per_day = *x, true) : false;
        else if (a == "--plan-days") ok = whole(popt.days, 1, 3650);
        else if (a == "--nodes") ok = whole(popt.nodes, 2, 128);
        else if (a == "--sample") ok = *x > 0 && *x <= 1 ? (popt.sample = *x, true) : false;
        else if (a == "--data-size") ok = whole(popt.data_size, 1, 1e15);
        else if (a == "--stop-writes-used-pct") ok = whole(popt.stop_writes_used_pct, 1, 100);
        else {
            std::cerr << "kvmodel size: unknown option '" << a << "' (try --help)\n";
            return 2;
        }
        if (!ok) {
            if (a == "--heavy-fraction") std::cerr << "kvmodel size: --heavy-fraction must be in [0, 1]\n";
            if (a == "--sample") std::cerr << "kvmodel size: --sample must be in (0, 1]\n";
            if (a == "--owner-growth-per-day") std::cerr << "kvmodel size: --owner-growth-per-day must be in [0, 10]\n";
            return 2;
        }
    }
    if (auto e = workload_error(w)) {
        std::cerr << "kvmodel size: " << *e << "\n";
        return 2;
    }
    // Opened before the replay, so an unwritable path fails in a moment.
    std::ofstream svg_out;
    if (svg) {
        svg_out.open(*svg);
        if (!svg_out) {
            std::cerr << "kvmodel size: cannot write " << *svg << "\n";
            return 2;
        }
    }
    auto bar = [&](std::size_t done, std::size_t total) {
        if (!progress) return;
        int width = 40;
        int filled = static_cast<int>(static_cast<double>(done) / static_cast<double>(total) * width);
        std::fprintf(stderr, "\rsimulating [%s%s] %3d%%", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                     std::string(static_cast<std::size_t>(width - filled), ' ').c_str(),
                     static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total)));
        if (done == total) std::fprintf(stderr, "\n");
    };
    if (plan_mode) return run_plan(w, popt, policy, json, svg ? &svg_out : nullptr, bar);
    report r = advise(w, default_candidates(w.max_record_size), bar);
    if (json) std::cout << to_json(r).dump(2) << "\n";
    else std::cout << to_table(r);
    if (svg) {
        svg_out << to_svg(r);
        svg_out.flush();
        if (!svg_out) {
            std::cerr << "kvmodel size: cannot write " << *svg << "\n";
            return 1;
        }
    }
    return r.recommended ? 0 : 1;
}

} // namespace

KVMODEL_REGISTER_COMMAND("size", "recommend a bucket policy and size for a workload, by simulation", run_size);
