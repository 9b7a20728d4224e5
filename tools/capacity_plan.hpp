// tools/capacity_plan.hpp
//
// `kvmodel size --plan-owners N`: a capacity plan. The owners of the size
// advisor's workload (tools/size_advisor.hpp) append through one bucket
// policy for a number of days, their count growing each day, with the
// workload's retention; the footprint is simulated on a sample of the
// owners and scaled up:
//   per node: data_used_bytes, index_used_bytes (64 B per record copy) and
//   secondary-index bytes, on the worst node, day by day; the same after
//   losing one node (its partitions' copies move to the others); the
//   headroom left then under stop-writes; the day stop-writes would hit; and
//   the namespace configuration to set.
//
// The scaling assumption: owners are independent and the footprint is the
// sum of theirs, so the sample's footprint times owners / sample owners is
// the full one (heavy owners are spread evenly through the owner numbers,
// so a sample keeps their share); a node holds its share of the partition
// copies (the share of 4096 x replication the cluster's partition map gives
// it, the same at every scale). Reads do not change the footprint and are
// not replayed. tests/tools/capacity_plan_test.cpp checks it: the plan from
// a 1% sample lands within 5% of a full simulation's worst node.
//
// Past the simulated days, the stop-writes day is extrapolated at the last
// simulated week's growth (linear).
#pragma once

#include "size_advisor.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace kvmodel::tools::sizing {

/// What the plan is for, beyond the workload's per-owner behaviour.
struct plan_options {
    /// Owners on day 0.
    std::uint64_t owners = 1'000'000;
    /// Owners added each day, as a fraction of day 0's (0.01 = 1%).
    double owner_growth_per_day = 0;
    /// Days simulated.
    std::size_t days = 30;
    /// Nodes in the cluster.
    std::uint32_t nodes = 3;
    /// Share of the owners simulated (0 < sample <= 1).
    double sample = 0.01;
    /// data-size per node; 0 = recommend one.
    std::uint64_t data_size = 0;
    /// stop-writes-used-pct (1..100).
    std::uint32_t stop_writes_used_pct = 70;
};

/// The footprint at the end of one day, per node (the worst node), scaled.
struct plan_day {
    std::size_t day = 0;
    double owners = 0;
    double data_bytes = 0;
    double index_bytes = 0;
    double sindex_bytes = 0;
    /// The same with one node down (the worst node of the worst loss).
    double data_bytes_one_down = 0;
    double index_bytes_one_down = 0;
};

struct capacity_plan {
    workload w;
    plan_options opt;
    candidate cand;
    std::uint64_t sample_owners = 0;
    /// The worst node's share of the partition copies, all nodes up and
    /// after the worst single loss.
    double share = 0;
    double share_one_down = 0;
    std::vector<plan_day> days;
    /// data-size per node: given, or recommended (the last day's data with
    /// one node down under stop-writes-used-pct, rounded up to a GiB).
    std::uint64_t data_size = 0;
    bool data_size_recommended = false;
    /// indexes-memory-budget suggested: the last day's index bytes with one
    /// node down under the same percentage, rounded up to a MiB.
    std::uint64_t indexes_memory_budget = 0;
    /// The day the worst node reaches stop-writes (nullopt: never, at no
    /// growth); `extrapolated` when past the simulated days.
    std::optional<double> stop_writes_day;
    std::optional<double> stop_writes_day_one_down;
};

namespace detail {

/// Owner i is heavy when the running share of heavy owners crosses the
/// next whole one: heavy owners spread evenly, so any prefix keeps the share.
inline bool heavy_owner(std::uint64_t i, double fraction) {
    return std::floor(static_cast<double>(i + 1) * fraction) > std::floor(static_cast<double>(i) * fraction);
}

/// The largest share of the partition copies one node holds, all nodes up
/// (down = -1) or with node `down` down.
inline double worst_share(std::uint32_t nodes, std::uint32_t rf, std::uint64_t seed, int down) {
    sim::cluster_config cfg;
    cfg.nodes = nodes;
    cfg.seed = seed;
    cfg.namespaces[0].replication_factor = rf;
    sim::cluster c(cfg);
    if (down >= 0) (void)c.node_down(down);
    std::vector<std::uint64_t> held(nodes, 0);
    std::uint64_t copies = 0;
    for (std::uint32_t pid = 0; pid < kv::partition_count; ++pid)
        for (int n : c.replicas("test", pid)) {
            ++held[static_cast<std::size_t>(n)];
            ++copies;
        }
    return copies == 0 ? 0 : static_cast<double>(*std::max_element(held.begin(), held.end())) /
                                 static_cast<double>(copies);
}

/// The day `limit` is reached by `bytes(day)`: the first simulated day at
/// or over it, else extrapolated at the last week's growth.
template <class Bytes>
std::optional<double> day_reaching(const std::vector<plan_day>& days, double limit, Bytes bytes) {
    for (const plan_day& d : days)
        if (bytes(d) >= limit) return static_cast<double>(d.day);
    if (days.size() < 2) return std::nullopt;
    const plan_day& last = days.back();
    const plan_day& before = days[days.size() - 1 - std::min<std::size_t>(7, days.size() - 1)];
    const double slope = (bytes(last) - bytes(before)) / static_cast<double>(last.day - before.day);
    if (!(slope > 0)) return std::nullopt;
    return static_cast<double>(last.day) + (limit - bytes(last)) / slope;
}

inline std::uint64_t round_up(double x, std::uint64_t unit) {
    return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(x / static_cast<double>(unit)))) * unit;
}

} // namespace detail

/// The total footprint (all copies) of `owners` owners of w after
/// opt.days days through cand, simulated as they are (no scaling) on
/// opt.nodes nodes; one entry per day. What plan() scales.
struct footprint_day {
    std::uint64_t owners = 0;
    sim::namespace_stats stats;
};

inline std::vector<footprint_day> simulate_footprint(const workload& w, const plan_options& opt,
                                                     const candidate& cand, std::uint64_t owners) {
    auto clock = std::make_shared<sim::manual_clock>();
    sim::cluster_config cfg = detail::cluster_config_of(w, clock);
    cfg.nodes = opt.nodes;
    cfg.namespaces[0].data_size = std::uint64_t{1} << 50U; // the plan sizes it, the replay must not stop
    sim::cluster c(cfg);
    std::optional<patterns::bucketed_list<sim::cluster, std::string>> list;
    std::optional<detail::series_model> series;
    if (cand.series_period_ms > 0)
        series.emplace(detail::series_model{
            patterns::time_series<sim::cluster, std::string>(
                c, {.period_ms = cand.series_period_ms, .max_periods_per_read = 1'000'000}),
            clock, clock->now_ms()});
    else
        list.emplace(c, cand.scheme, detail::location_of(w, clock));
    std::mt19937_64 rng(w.seed);
    std::uniform_int_distribution<std::size_t> size_of(w.element_bytes, w.largest_element());
    const std::int64_t day0 = clock->now_ms();
    double grown = static_cast<double>(owners);
    std::vector<footprint_day> out;
    for (std::size_t d = 0; d < opt.days; ++d) {
        const std::int64_t start = day0 + static_cast<std::int64_t>(d) * 86'400'000;
        const auto n_owners = static_cast<std::uint64_t>(std::floor(grown));
        for (std::uint64_t o = 0; o < n_owners; ++o) {
            const std::string name = "owner-" + std::to_string(o);
            const double rate =
                w.appends_per_owner_per_day * (detail::heavy_owner(o, w.heavy_fraction) ? w.heavy_multiplier : 1.0);
            const std::uint64_t n = detail::draws(rate, rng);
            for (std::uint64_t i = 0; i < n; ++i) {
                const std::int64_t ts =
                    start + static_cast<std::int64_t>(86'400'000.0 / static_cast<double>(n) * static_cast<double>(i));
                clock->set(ts);
                std::string v(size_of(rng), 'x');
                if (list) (void)list->append(name, v, ts);
                else (void)series->append(name, v, ts);
            }
            if (w.retention_days > 0 && d >= w.retention_days) {
                const std::int64_t before = start - static_cast<std::int64_t>(w.retention_days - 1) * 86'400'000;
                if (list) (void)list->drop_older_than(name, before);
                else (void)series->drop_older_than(name, before);
            }
        }
        clock->set(start + 86'400'000 - 1);
        out.push_back({n_owners, *c.stats().find("test")});
        grown += static_cast<double>(owners) * opt.owner_growth_per_day;
    }
    return out;
}

/// The plan: opt.sample of the owners simulated, scaled to opt.owners.
inline capacity_plan plan(const workload& w, const plan_options& opt, const candidate& cand) {
    capacity_plan p;
    p.w = w;
    p.opt = opt;
    p.cand = cand;
    p.sample_owners = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(std::llround(static_cast<double>(opt.owners) * opt.sample)));
    p.share = detail::worst_share(opt.nodes, w.replication_factor, w.seed, -1);
    for (std::uint32_t n = 0; opt.nodes > 1 && n < opt.nodes; ++n)
        p.share_one_down = std::max(p.share_one_down,
                                    detail::worst_share(opt.nodes, w.replication_factor, w.seed, static_cast<int>(n)));
    // Copies with one node down: replication is kept while nodes remain.
    const double rf = std::min<double>(w.replication_factor, opt.nodes);
    const double rf_down = std::min<double>(w.replication_factor, std::max<std::uint32_t>(1, opt.nodes - 1));
    std::vector<footprint_day> sample = simulate_footprint(w, opt, cand, p.sample_owners);
    double full = static_cast<double>(opt.owners);
    for (std::size_t d = 0; d < sample.size(); ++d) {
        const footprint_day& f = sample[d];
        const double scale = full / static_cast<double>(std::max<std::uint64_t>(1, f.owners));
        plan_day day;
        day.day = d + 1;
        day.owners = std::floor(full);
        day.data_bytes = static_cast<double>(f.stats.data_used_bytes) * scale * p.share;
        day.index_bytes = static_cast<double>(f.stats.index_used_bytes) * scale * p.share;
        day.sindex_bytes = static_cast<double>(f.stats.sindex_used_bytes) * scale * p.share;
        const double down = rf_down / rf * p.share_one_down;
        day.data_bytes_one_down = static_cast<double>(f.stats.data_used_bytes) * scale * down;
        day.index_bytes_one_down = static_cast<double>(f.stats.index_used_bytes + f.stats.sindex_used_bytes) * scale * down;
        p.days.push_back(day);
        full += static_cast<double>(opt.owners) * opt.owner_growth_per_day;
    }
    const double pct = static_cast<double>(opt.stop_writes_used_pct) / 100.0;
    const plan_day last = p.days.empty() ? plan_day{} : p.days.back();
    p.data_size = opt.data_size;
    if (p.data_size == 0) {
        p.data_size = detail::round_up(last.data_bytes_one_down / pct, std::uint64_t{1} << 30U);
        p.data_size_recommended = true;
    }
    p.indexes_memory_budget = detail::round_up(last.index_bytes_one_down / pct, std::uint64_t{1} << 20U);
    const double limit = static_cast<double>(p.data_size) * pct;
    p.stop_writes_day = detail::day_reaching(p.days, limit, [](const plan_day& d) { return d.data_bytes; });
    p.stop_writes_day_one_down =
        detail::day_reaching(p.days, limit, [](const plan_day& d) { return d.data_bytes_one_down; });
    return p;
}

inline std::string bytes_text(double b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    std::size_t u = 0;
    while (b >= 1024 && u + 1 < std::size(units)) {
        b /= 1024;
        ++u;
    }
    return fixed(b, u == 0 ? 0 : 1) + " " + units[u];
}

/// The aerospike.conf namespace stanza the plan calls for.
inline std::string config_text(const capacity_plan& p) {
    std::ostringstream s;
    s << "namespace test {\n"
      << "    replication-factor " << p.w.replication_factor << "\n"
      << "    indexes-memory-budget " << (p.indexes_memory_budget >> 20U) << "M\n"
      << "    storage-engine memory {\n"
      << "        data-size " << (p.data_size >> 30U) << "G\n"
      << "        stop-writes-used-pct " << p.opt.stop_writes_used_pct << "\n"
      << "    }\n"
      << "}\n";
    return s.str();
}

inline std::string day_text(const std::optional<double>& d, std::size_t simulated) {
    if (!d) return "never at this growth";
    if (*d <= static_cast<double>(simulated)) return "day " + std::to_string(static_cast<std::uint64_t>(*d));
    return "day " + std::to_string(static_cast<std::uint64_t>(std::ceil(*d))) + " (extrapolated)";
}

/// The plan as `kvmodel size` prints it.
inline std::string to_text(const capacity_plan& p) {
    std::ostringstream out;
    out << "capacity plan: " << p.opt.owners << " owners";
    if (p.opt.owner_growth_per_day > 0) out << " (+" << fixed(p.opt.owner_growth_per_day * 100, 1) << "%/day)";
    out << ", policy " << p.cand.name << ", " << p.opt.nodes << " nodes, replication " << p.w.replication_factor
        << ", " << p.days.size() << " days"
        << (p.w.retention_days > 0 ? ", retention " + std::to_string(p.w.retention_days) + " days" : "") << "\n"
        << "simulated: " << p.sample_owners << " owners (" << fixed(p.opt.sample * 100, 2)
        << "%), scaled up; the worst node holds " << fixed(p.share * 100, 1) << "% of the partition copies ("
        << fixed(p.share_one_down * 100, 1) << "% after losing one node)\n\n";
    out << "day  owners      data/node    index/node   sindex/node  data/node, one down\n";
    for (const plan_day& d : p.days) {
        if (d.day != 1 && d.day % 5 != 0 && d.day != p.days.size()) continue;
        auto pad = [](std::string s, std::size_t w) { return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' '); };
        out << pad(std::to_string(d.day), 5) << pad(std::to_string(static_cast<std::uint64_t>(d.owners)), 12)
            << pad(bytes_text(d.data_bytes), 13) << pad(bytes_text(d.index_bytes), 13)
            << pad(bytes_text(d.sindex_bytes), 13) << bytes_text(d.data_bytes_one_down) << "\n";
    }
    const plan_day last = p.days.empty() ? plan_day{} : p.days.back();
    const double limit = static_cast<double>(p.data_size) * p.opt.stop_writes_used_pct / 100.0;
    out << "\nper node on day " << last.day << ": data " << bytes_text(last.data_bytes) << ", index "
        << bytes_text(last.index_bytes) << ", secondary index " << bytes_text(last.sindex_bytes) << "\n"
        << "after losing one node: data " << bytes_text(last.data_bytes_one_down) << ", indexes "
        << bytes_text(last.index_bytes_one_down) << "; headroom under stop-writes "
        << bytes_text(std::max(0.0, limit - last.data_bytes_one_down)) << " ("
        << fixed(std::max(0.0, 100.0 * (limit - last.data_bytes_one_down) / limit), 0) << "%)\n"
        << "stop-writes at " << p.opt.stop_writes_used_pct << "% of data-size " << bytes_text(static_cast<double>(p.data_size))
        << (p.data_size_recommended ? " (recommended)" : "") << ": " << day_text(p.stop_writes_day, p.days.size())
        << "; one node down: " << day_text(p.stop_writes_day_one_down, p.days.size()) << "\n\n"
        << "config:\n"
        << config_text(p) << "\n"
        << "assumption: the footprint is linear in the owners and spread by partition share (tested: a 1% sample\n"
           "within 5% of a full simulation); data-size and indexes-memory-budget keep day "
        << last.day << " with one node\ndown under stop-writes-used-pct.\n";
    return out.str();
}

inline nlohmann::json to_json(const capacity_plan& p) {
    nlohmann::json days = nlohmann::json::array();
    for (const plan_day& d : p.days)
        days.push_back({{"day", d.day}, {"owners", d.owners}, {"data_bytes_per_node", d.data_bytes},
                        {"index_bytes_per_node", d.index_bytes}, {"sindex_bytes_per_node", d.sindex_bytes},
                        {"data_bytes_per_node_one_down", d.data_bytes_one_down},
                        {"index_bytes_per_node_one_down", d.index_bytes_one_down}});
    auto opt_day = [](const std::optional<double>& d) { return d ? nlohmann::json(*d) : nlohmann::json(nullptr); };
    return {{"owners", p.opt.owners}, {"owner_growth_per_day", p.opt.owner_growth_per_day},
            {"nodes", p.opt.nodes}, {"replication_factor", p.w.replication_factor},
            {"policy", p.cand.name}, {"sample_owners", p.sample_owners}, {"sample", p.opt.sample},
            {"worst_node_share", p.share}, {"worst_node_share_one_down", p.share_one_down},
            {"days", std::move(days)}, {"data_size", p.data_size},
            {"data_size_recommended", p.data_size_recommended},
            {"stop_writes_used_pct", p.opt.stop_writes_used_pct},
            {"indexes_memory_budget", p.indexes_memory_budget},
            {"stop_writes_day", opt_day(p.stop_writes_day)},
            {"stop_writes_day_one_down", opt_day(p.stop_writes_day_one_down)},
            {"config", config_text(p)}};
}

/// A chart of the worst node's footprint over the days, with the
/// stop-writes line.
inline std::string to_svg(const capacity_plan& p) {
    const double width = 760;
    const double height = 360;
    const double left = 80;
    const double right = 30;
    const double top = 40;
    const double bottom = 50;
    const double limit = static_cast<double>(p.data_size) * p.opt.stop_writes_used_pct / 100.0;
    double max_y = limit;
    for (const plan_day& d : p.days) max_y = std::max({max_y, d.data_bytes_one_down, d.index_bytes_one_down});
    max_y *= 1.1;
    const double last = p.days.empty() ? 1.0 : static_cast<double>(p.days.back().day);
    auto x = [&](double day) { return left + (width - left - right) * day / last; };
    auto y = [&](double v) { return top + (height - top - bottom) * (1.0 - v / max_y); };
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << width / 2 << "\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">Footprint per node over "
      << "time (" << p.opt.owners << " owners, " << p.cand.name << ")</text>\n"
      << "<line x1=\"" << left << "\" y1=\"" << height - bottom << "\" x2=\"" << width - right << "\" y2=\""
      << height - bottom << "\" stroke=\"black\"/>\n"
      << "<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\"" << left << "\" y2=\"" << height - bottom
      << "\" stroke=\"black\"/>\n"
      << "<line x1=\"" << left << "\" y1=\"" << fixed(y(limit), 1) << "\" x2=\"" << width - right << "\" y2=\""
      << fixed(y(limit), 1) << "\" stroke=\"#999\" stroke-dasharray=\"6 4\"/>\n"
      << "<text x=\"" << width - right << "\" y=\"" << fixed(y(limit) - 4, 1) << "\" text-anchor=\"end\">stop-writes ("
      << p.opt.stop_writes_used_pct << "% of " << bytes_text(static_cast<double>(p.data_size)) << ")</text>\n"
      << "<text x=\"" << left - 6 << "\" y=\"" << top + 4 << "\" text-anchor=\"end\">" << bytes_text(max_y) << "</text>\n"
      << "<text x=\"" << left - 6 << "\" y=\"" << height - bottom << "\" text-anchor=\"end\">0</text>\n"
      << "<text x=\"" << width / 2 << "\" y=\"" << height - 15 << "\" text-anchor=\"middle\">day (1.." << last
      << ")</text>\n";
    struct series_line {
        const char* label;
        const char* colour;
        double plan_day::*field;
    };
    const series_line lines[] = {{"data, all nodes up", "#1f77b4", &plan_day::data_bytes},
                                 {"data, one node down", "#d62728", &plan_day::data_bytes_one_down},
                                 {"indexes, one node down", "#2ca02c", &plan_day::index_bytes_one_down}};
    double legend_y = top + 10;
    for (const series_line& l : lines) {
        std::string pts;
        for (const plan_day& d : p.days)
            pts += fixed(x(static_cast<double>(d.day)), 1) + "," + fixed(y(d.*l.field), 1) + " ";
        s << "<polyline fill=\"none\" stroke=\"" << l.colour << "\" stroke-width=\"2\" points=\"" << pts << "\"/>\n"
          << "<text x=\"" << left + 10 << "\" y=\"" << legend_y << "\" fill=\"" << l.colour << "\">" << l.label
          << "</text>\n";
        legend_y += 14;
    }
    s << "</svg>\n";
    return s.str();
}

} // namespace kvmodel::tools::sizing
