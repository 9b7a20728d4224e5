// tools/size_advisor.hpp
//
// `kvmodel size`: which bucket policy and size suits a workload, answered by
// simulation. The workload (element sizes, appends per owner per day with a
// few heavy owners, a read mix, retention, the namespace's max-record-size
// and replication factor) is replayed on a fresh simulated cluster for every
// candidate policy through patterns::bucketed_list; the cluster's cost
// accounting gives each candidate's numbers:
//   round trips per append and per read (newest page, one day, everything),
//   device bytes written per append and per day, and write amplification
//   (device bytes written x replication / payload bytes appended),
//   records per owner and their primary-index memory (64 bytes per record
//   per copy, as Aerospike's index), the largest record against the limit,
//   and RECORD_TOO_BIG failures.
// A candidate is safe when nothing failed and its largest record stays under
// half the limit (room for the heaviest owners to grow). Among safe ones the
// advisor recommends the lowest daily cost, in bytes of device work:
//   bytes written (all copies) + round trips x rt_cost_bytes (default 16 KiB,
//   about what a network round trip costs in device time)
//   + records read x record_cost_bytes (default 4 KiB: one device read each;
//   a batch is one round trip per node but still one read per record).
#pragma once

#include <kvmodel/patterns/bucketed_list.hpp>
#include <kvmodel/patterns/time_series.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace kvmodel::tools::sizing {

/// What the owners do, per simulated day.
struct workload {
    std::size_t element_bytes = 200;     ///< smallest (or fixed) element payload
    std::size_t element_bytes_max = 0;   ///< > element_bytes: uniform in [min, max]
    std::size_t owners = 40;
    double appends_per_owner_per_day = 40;
    double heavy_fraction = 0.05;        ///< share of owners that are heavy
    double heavy_multiplier = 50;        ///< heavy owners append this many times more
    std::size_t days = 2;
    double newest_page_reads_per_day = 10; ///< per owner
    std::size_t page_size = 50;
    double day_reads_per_day = 1;        ///< reads of one day, per owner
    double read_all_per_day = 0.2;       ///< per owner
    std::size_t retention_days = 0;      ///< 0 = keep everything
    std::size_t max_record_size = kv::default_max_record_size;
    std::uint32_t replication_factor = 2;
    double rt_cost_bytes = 16384;
    double record_cost_bytes = 4096;
    std::uint64_t seed = 1;

    /// The largest element payload (element_bytes when sizes are fixed).
    std::size_t largest_element() const { return std::max(element_bytes, element_bytes_max); }
};

/// One candidate scheme, with the number the chart plots it against.
struct candidate {
    std::string name;
    patterns::bucket_scheme scheme;
    /// > 0: a time-bucketed map (patterns::time_series) with periods of this
    /// many ms instead of a bucketed list; `scheme` is then unused.
    std::int64_t series_period_ms = 0;
};

/// The default candidates: count 10..10k, bytes 16 KiB..half the limit, day, hour.
inline std::vector<candidate> default_candidates(std::size_t max_record_size) {
    using patterns::bucket_policy;
    std::vector<candidate> out{
        {"count 10", {bucket_policy::by_count, 10}},
        {"count 100", {bucket_policy::by_count, 100}},
        {"count 1000", {bucket_policy::by_count, 1000}},
        {"count 10000", {bucket_policy::by_count, 10000}},
    };
    for (std::size_t b : {std::size_t{16} << 10, std::size_t{64} << 10, std::size_t{256} << 10})
        if (b + 4096 < max_record_size / 2) out.push_back({"bytes " + std::to_string(b >> 10) + "K", {bucket_policy::by_bytes, b}});
    out.push_back({"bytes " + std::to_string((max_record_size / 2) >> 10) + "K", {bucket_policy::by_bytes, max_record_size / 2}});
    out.push_back({"time day", {bucket_policy::by_time, 1000000, patterns::time_period::day}});
    out.push_back({"time hour", {bucket_policy::by_time, 1000000, patterns::time_period::hour}});
    out.push_back({"series day", {}, 86'400'000});
    out.push_back({"series hour", {}, 3'600'000});
    return out;
}

/// The numbers of one candidate.
struct outcome {
    candidate cand;
    std::uint64_t appends = 0;
    std::uint64_t failed_appends = 0;      ///< RECORD_TOO_BIG and other errors
    double rt_per_append = 0;
    double bytes_written_per_append = 0;   ///< device bytes, one copy
    double bytes_written_per_day = 0;      ///< device bytes, all copies
    double write_amplification = 0;        ///< device bytes (all copies) / payload bytes
    double rt_per_newest_page = 0;
    double rt_per_day_read = 0;
    double rt_per_read_all = 0;
    double rt_per_day = 0;                 ///< all reads and appends of a day
    double records_read_per_day = 0;
    double records_per_owner = 0;
    double index_bytes_per_owner = 0;      ///< 64 B per record per copy
    std::uint64_t largest_record = 0;
    double largest_vs_limit = 0;
    bool safe = false;
    double daily_cost = 0;                 ///< see the header comment
};

struct report {
    workload w;
    std::vector<outcome> outcomes;
    std::optional<std::size_t> recommended;
    std::string reason;
};

namespace detail {

struct owner_plan {
    std::string name;
    bool heavy = false;
};

inline std::vector<owner_plan> plan_owners(const workload& w) {
    std::vector<owner_plan> out;
    auto heavy = static_cast<std::size_t>(std::ceil(w.heavy_fraction * static_cast<double>(w.owners)));
    for (std::size_t i = 0; i < w.owners; ++i)
        out.push_back({std::string("owner-").append(std::to_string(i)), i < heavy});
    return out;
}

/// How many times something with a rate of x per day happens today: the
/// integer part, plus one with probability of the fraction.
inline std::uint64_t draws(double x, std::mt19937_64& rng) {
    double whole = std::floor(x);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    return static_cast<std::uint64_t>(whole) + (u(rng) < x - whole ? 1 : 0);
}

/// The replay's cluster and where its list lives: the workload's record
/// limit, replication and seed, on the given clock (none: the system's).
inline sim::cluster_config cluster_config_of(const workload& w, std::shared_ptr<sim::manual_clock> clock = {}) {
    sim::cluster_config cfg;
    cfg.namespaces[0].max_record_size = w.max_record_size;
    cfg.namespaces[0].replication_factor = w.replication_factor;
    cfg.seed = w.seed;
    if (clock) cfg.time_source = std::move(clock);
    return cfg;
}
inline patterns::bucketed_location location_of(const workload& w, std::shared_ptr<sim::manual_clock> clock = {}) {
    patterns::bucketed_location where;
    where.max_record_size = w.max_record_size;
    if (clock) where.clock = [clock] { return clock->now_ms(); };
    return where;
}

inline sim::counters totals(const sim::cluster& c) {
    sim::stats s = c.stats();
    return s.namespaces.empty() ? sim::counters{} : s.namespaces[0].totals;
}

} // namespace detail

/// Why w cannot be replayed, or nothing: too many appends to replay, element
/// sizes given the wrong way round, or an element no bucket can hold under
/// w's max-record-size. The last is the pattern's own check (one append of
/// the largest element to an empty list on the replay's cluster), so the
/// tool refuses at once what every append of the replay would refuse.
inline std::optional<std::string> workload_error(const workload& w) {
    double expected = static_cast<double>(w.owners) * w.appends_per_owner_per_day *
                      (1 + w.heavy_fraction * (w.heavy_multiplier - 1)) * static_cast<double>(w.days);
    if (expected > 5e6)
        return "the workload makes about " + std::to_string(static_cast<std::uint64_t>(expected)) +
               " appends per candidate; keep it under 5,000,000 (fewer owners or days)";
    if (w.element_bytes_max != 0 && w.element_bytes_max < w.element_bytes)
        return "--element-bytes-max " + std::to_string(w.element_bytes_max) + " is below --element-bytes " +
               std::to_string(w.element_bytes);
    sim::cluster c(detail::cluster_config_of(w));
    patterns::bucketed_list<sim::cluster, std::string> l(c, {patterns::bucket_policy::by_count, 1},
                                                         detail::location_of(w));
    if (auto r = l.append("probe", std::string(w.largest_element(), 'x'), 0); !r)
        return "an element of " + std::to_string(w.largest_element()) + " bytes cannot be stored: " +
               r.error().message;
    return std::nullopt;
}

namespace detail {

/// A time_series behind the calls the replay makes of a bucketed list:
/// newest pages and "everything" read back to the replay's first day.
struct series_model {
    patterns::time_series<sim::cluster, std::string> s;
    std::shared_ptr<sim::manual_clock> clock;
    std::int64_t day0 = 0;

    result<std::size_t> append(const std::string& owner, const std::string& v, std::int64_t ts) const {
        return s.write(owner, ts, v);
    }
    result<patterns::time_page<std::string>> newest(const std::string& owner, std::size_t n) const {
        return s.newest(owner, n, day0, clock->now_ms() + 1);
    }
    result<std::vector<patterns::time_point<std::string>>> read_time(const std::string& owner, std::int64_t from,
                                                                     std::int64_t to) const {
        return s.range(owner, from, to);
    }
    result<std::vector<patterns::time_point<std::string>>> read_all(const std::string& owner) const {
        return s.range(owner, day0, clock->now_ms() + 1);
    }
    result<patterns::drop_result> drop_older_than(const std::string& owner, std::int64_t before) const {
        return s.drop_older_than(owner, before, day0);
    }
};

/// Replays w through `l` (a bucketed list or a series_model).
template <class Model>
outcome replay(const workload& w, const candidate& cand, const std::shared_ptr<sim::manual_clock>& clock,
               sim::cluster& c, Model& l, const std::function<void()>& tick) {
    outcome o;
    o.cand = cand;
    std::mt19937_64 rng(w.seed);
    std::uniform_int_distribution<std::size_t> size_of(w.element_bytes, w.largest_element());
    auto owners = detail::plan_owners(w);
    const std::int64_t day0 = clock->now_ms();
    sim::counters append_cost{};
    sim::counters page_cost{};
    sim::counters dayread_cost{};
    sim::counters all_cost{};
    std::uint64_t pages = 0;
    std::uint64_t dayreads = 0;
    std::uint64_t readalls = 0;
    double payload = 0;
    auto measure = [&](sim::counters& into, auto&& body) {
        c.reset_stats();
        body();
        into += detail::totals(c);
    };
    for (std::size_t d = 0; d < w.days; ++d) {
        const std::int64_t start = day0 + static_cast<std::int64_t>(d) * 86400000;
        for (const auto& own : owners) {
            double rate = w.appends_per_owner_per_day * (own.heavy ? w.heavy_multiplier : 1.0);
            std::uint64_t n = detail::draws(rate, rng);
            measure(append_cost, [&] {
                for (std::uint64_t i = 0; i < n; ++i) {
                    std::int64_t ts = start + static_cast<std::int64_t>((86400000.0 / static_cast<double>(n)) * static_cast<double>(i));
                    clock->set(ts);
                    std::size_t bytes = size_of(rng);
                    ++o.appends;
                    payload += static_cast<double>(bytes);
                    if (!l.append(own.name, std::string(bytes, 'x'), ts)) ++o.failed_appends;
                }
            });
            clock->set(start + 86400000 - 1);
            std::uint64_t np = detail::draws(w.newest_page_reads_per_day, rng);
            measure(page_cost, [&] {
                for (std::uint64_t i = 0; i < np; ++i) (void)l.newest(own.name, w.page_size);
            });
            pages += np;
            std::uint64_t nd = detail::draws(w.day_reads_per_day, rng);
            measure(dayread_cost, [&] {
                for (std::uint64_t i = 0; i < nd; ++i) (void)l.read_time(own.name, start, start + 86400000);
            });
            dayreads += nd;
            std::uint64_t na = detail::draws(w.read_all_per_day, rng);
            measure(all_cost, [&] {
                for (std::uint64_t i = 0; i < na; ++i) (void)l.read_all(own.name);
            });
            readalls += na;
            if (w.retention_days > 0 && d >= w.retention_days)
                (void)l.drop_older_than(own.name, start - static_cast<std::int64_t>(w.retention_days - 1) * 86400000);
            if (tick) tick();
        }
    }
    auto per = [](std::uint64_t x, std::uint64_t n) { return n == 0 ? 0.0 : static_cast<double>(x) / static_cast<double>(n); };
    o.rt_per_append = per(append_cost.round_trips, o.appends);
    o.bytes_written_per_append = per(append_cost.bytes_written, o.appends);
    const double copies = static_cast<double>(std::min<std::uint32_t>(w.replication_factor, 3));
    o.bytes_written_per_day = static_cast<double>(append_cost.bytes_written) * copies / static_cast<double>(w.days);
    o.write_amplification = payload == 0 ? 0 : static_cast<double>(append_cost.bytes_written) * copies / payload;
    o.rt_per_newest_page = per(page_cost.round_trips, pages);
    o.rt_per_day_read = per(dayread_cost.round_trips, dayreads);
    o.rt_per_read_all = per(all_cost.round_trips, readalls);
    o.rt_per_day = static_cast<double>(append_cost.round_trips + page_cost.round_trips + dayread_cost.round_trips +
                                       all_cost.round_trips) /
                   static_cast<double>(w.days);
    o.records_read_per_day = static_cast<double>(append_cost.reads + page_cost.reads + dayread_cost.reads +
                                                 all_cost.reads) /
                             static_cast<double>(w.days);
    sim::stats s = c.stats();
    const auto& ns = s.namespaces[0];
    o.records_per_owner = static_cast<double>(ns.records) / static_cast<double>(std::max<std::size_t>(w.owners, 1));
    o.index_bytes_per_owner = o.records_per_owner * 64.0 * copies;
    o.largest_record = std::max({append_cost.largest_record, page_cost.largest_record, all_cost.largest_record});
    o.largest_vs_limit = static_cast<double>(o.largest_record) / static_cast<double>(w.max_record_size);
    o.safe = o.failed_appends == 0 && o.largest_vs_limit <= 0.5;
    o.daily_cost = o.bytes_written_per_day + o.rt_per_day * w.rt_cost_bytes + o.records_read_per_day * w.record_cost_bytes;
    return o;
}

} // namespace detail

/// Replays w on one candidate. `tick` is called after each owner-day.
inline outcome simulate(const workload& w, const candidate& cand, const std::function<void()>& tick = {}) {
    auto clock = std::make_shared<sim::manual_clock>();
    sim::cluster c(detail::cluster_config_of(w, clock));
    if (cand.series_period_ms > 0) {
        detail::series_model m{patterns::time_series<sim::cluster, std::string>(
                                   c, {.period_ms = cand.series_period_ms, .max_periods_per_read = 1'000'000}),
                               clock, clock->now_ms()};
        return detail::replay(w, cand, clock, c, m, tick);
    }
    patterns::bucketed_list<sim::cluster, std::string> l(c, cand.scheme, detail::location_of(w, clock));
    return detail::replay(w, cand, clock, c, l, tick);
}

/// Replays w on every candidate and recommends one.
inline report advise(const workload& w, const std::vector<candidate>& cands,
                     const std::function<void(std::size_t done, std::size_t total)>& progress = {}) {
    report r;
    r.w = w;
    std::size_t total = cands.size() * w.days * w.owners;
    std::size_t done = 0;
    for (const candidate& c : cands) {
        r.outcomes.push_back(simulate(w, c, [&] {
            ++done;
            if (progress) progress(done, total);
        }));
    }
    for (std::size_t i = 0; i < r.outcomes.size(); ++i) {
        const outcome& o = r.outcomes[i];
        if (!o.safe) continue;
        if (!r.recommended || o.daily_cost < r.outcomes[*r.recommended].daily_cost) r.recommended = i;
    }
    if (!r.recommended) {
        r.reason = "no candidate is safe: every one failed appends (RECORD_TOO_BIG) or filled a record past half "
                   "of max-record-size; raise max-record-size or use smaller elements";
        return r;
    }
    const outcome& best = r.outcomes[*r.recommended];
    std::ostringstream why;
    why << best.cand.name << ": the lowest daily cost among safe candidates ("
        << static_cast<std::uint64_t>(best.bytes_written_per_day) << " bytes written and "
        << static_cast<std::uint64_t>(best.rt_per_day) << " round trips and "
        << static_cast<std::uint64_t>(best.records_read_per_day) << " record reads a day; largest record "
        << static_cast<int>(best.largest_vs_limit * 100) << "% of the limit).";
    std::size_t unsafe = 0;
    for (const outcome& o : r.outcomes) unsafe += o.safe ? 0 : 1;
    if (unsafe > 0) why << " " << unsafe << " candidate(s) excluded: RECORD_TOO_BIG or records past half the limit.";
    r.reason = why.str();
    return r;
}

inline nlohmann::json to_json(const report& r) {
    nlohmann::json out;
    out["workload"] = {{"element_bytes", r.w.element_bytes}, {"element_bytes_max", r.w.largest_element()},
                       {"owners", r.w.owners}, {"appends_per_owner_per_day", r.w.appends_per_owner_per_day},
                       {"heavy_fraction", r.w.heavy_fraction}, {"heavy_multiplier", r.w.heavy_multiplier},
                       {"days", r.w.days}, {"newest_page_reads_per_day", r.w.newest_page_reads_per_day},
                       {"page_size", r.w.page_size}, {"day_reads_per_day", r.w.day_reads_per_day},
                       {"read_all_per_day", r.w.read_all_per_day}, {"retention_days", r.w.retention_days},
                       {"max_record_size", r.w.max_record_size}, {"replication_factor", r.w.replication_factor},
                       {"rt_cost_bytes", r.w.rt_cost_bytes}, {"record_cost_bytes", r.w.record_cost_bytes},
                       {"seed", r.w.seed}};
    out["candidates"] = nlohmann::json::array();
    for (const outcome& o : r.outcomes)
        out["candidates"].push_back({{"name", o.cand.name}, {"appends", o.appends}, {"failed_appends", o.failed_appends},
                                     {"rt_per_append", o.rt_per_append}, {"bytes_written_per_append", o.bytes_written_per_append},
                                     {"bytes_written_per_day", o.bytes_written_per_day},
                                     {"write_amplification", o.write_amplification},
                                     {"rt_per_newest_page", o.rt_per_newest_page}, {"rt_per_day_read", o.rt_per_day_read},
                                     {"rt_per_read_all", o.rt_per_read_all}, {"rt_per_day", o.rt_per_day},
                                     {"records_read_per_day", o.records_read_per_day},
                                     {"records_per_owner", o.records_per_owner},
                                     {"index_bytes_per_owner", o.index_bytes_per_owner},
                                     {"largest_record", o.largest_record}, {"largest_vs_limit", o.largest_vs_limit},
                                     {"safe", o.safe}, {"daily_cost", o.daily_cost}});
    out["recommended"] = r.recommended ? nlohmann::json(r.outcomes[*r.recommended].cand.name) : nlohmann::json(nullptr);
    out["reason"] = r.reason;
    return out;
}

inline std::string fixed(double x, int decimals) {
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(decimals);
    s << x;
    return s.str();
}

/// The table `kvmodel size` prints.
inline std::string to_table(const report& r) {
    std::ostringstream out;
    out << "candidate     rt/append  B written/append  write amp  rt/page  rt/day-read  rt/read-all  "
           "records/owner  index B/owner  largest record  too big\n";
    for (std::size_t i = 0; i < r.outcomes.size(); ++i) {
        const outcome& o = r.outcomes[i];
        auto pad = [&](std::string s, std::size_t w) { return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' '); };
        out << pad(o.cand.name + (r.recommended == i ? " *" : ""), 14) << pad(fixed(o.rt_per_append, 2), 11)
            << pad(std::to_string(static_cast<std::uint64_t>(o.bytes_written_per_append)), 18)
            << pad(fixed(o.write_amplification, 1), 11) << pad(fixed(o.rt_per_newest_page, 2), 9)
            << pad(fixed(o.rt_per_day_read, 2), 13) << pad(fixed(o.rt_per_read_all, 2), 13)
            << pad(fixed(o.records_per_owner, 1), 15) << pad(std::to_string(static_cast<std::uint64_t>(o.index_bytes_per_owner)), 15)
            << pad(std::to_string(o.largest_record) + " (" + std::to_string(static_cast<int>(o.largest_vs_limit * 100)) + "%)", 16)
            << o.failed_appends << "\n";
    }
    out << "\nrecommendation: " << r.reason << "\n";
    return out.str();
}

/// An SVG chart: write amplification and round trips per day by candidate.
inline std::string to_svg(const report& r) {
    const double width = 760;
    const double height = 360;
    const double left = 70;
    const double right = 70;
    const double top = 40;
    const double bottom = 90;
    double max_wa = 1e-9;
    double max_rt = 1e-9;
    for (const outcome& o : r.outcomes) {
        max_wa = std::max(max_wa, o.write_amplification);
        max_rt = std::max(max_rt, o.rt_per_day);
    }
    std::size_t n = r.outcomes.size();
    auto x = [&](std::size_t i) { return left + (width - left - right) * (n <= 1 ? 0.5 : static_cast<double>(i) / static_cast<double>(n - 1)); };
    auto y = [&](double v, double max) { return top + (height - top - bottom) * (1.0 - v / max); };
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << width / 2 << "\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">Write amplification and "
         "round trips per day, by bucket policy</text>\n"
      << "<line x1=\"" << left << "\" y1=\"" << height - bottom << "\" x2=\"" << width - right << "\" y2=\"" << height - bottom
      << "\" stroke=\"black\"/>\n";
    std::string wa_pts;
    std::string rt_pts;
    for (std::size_t i = 0; i < n; ++i) {
        const outcome& o = r.outcomes[i];
        wa_pts += fixed(x(i), 1) + "," + fixed(y(o.write_amplification, max_wa), 1) + " ";
        rt_pts += fixed(x(i), 1) + "," + fixed(y(o.rt_per_day, max_rt), 1) + " ";
        s << "<text x=\"" << fixed(x(i), 1) << "\" y=\"" << height - bottom + 14 << "\" text-anchor=\"end\" transform=\"rotate(-35 "
          << fixed(x(i), 1) << "," << height - bottom + 14 << ")\"" << (r.recommended == i ? " font-weight=\"bold\"" : "") << ">"
          << o.cand.name << (o.safe ? "" : " (unsafe)") << "</text>\n";
    }
    s << "<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" points=\"" << wa_pts << "\"/>\n"
      << "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"" << rt_pts << "\"/>\n";
    for (std::size_t i = 0; i < n; ++i) {
        s << "<circle cx=\"" << fixed(x(i), 1) << "\" cy=\"" << fixed(y(r.outcomes[i].write_amplification, max_wa), 1)
          << "\" r=\"3\" fill=\"#d62728\"/>\n"
          << "<circle cx=\"" << fixed(x(i), 1) << "\" cy=\"" << fixed(y(r.outcomes[i].rt_per_day, max_rt), 1)
          << "\" r=\"3\" fill=\"#1f77b4\"/>\n";
    }
    s << "<text x=\"" << left - 8 << "\" y=\"" << top << "\" text-anchor=\"end\" fill=\"#d62728\">" << fixed(max_wa, 0) << "x</text>\n"
      << "<text x=\"" << left - 8 << "\" y=\"" << top + 14 << "\" text-anchor=\"end\" fill=\"#d62728\">write amp</text>\n"
      << "<text x=\"" << width - right + 8 << "\" y=\"" << top << "\" fill=\"#1f77b4\">" << fixed(max_rt, 0) << "</text>\n"
      << "<text x=\"" << width - right + 8 << "\" y=\"" << top + 14 << "\" fill=\"#1f77b4\">round trips/day</text>\n"
      << "</svg>\n";
    return s.str();
}

} // namespace kvmodel::tools::sizing
