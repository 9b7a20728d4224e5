#include <kvmodel/patterns/bucketed_list.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace patterns_bucketed_list_test {

using namespace kvmodel;
using patterns::bucket_policy;
using patterns::bucket_scheme;
using list_type = patterns::bucketed_list<sim::cluster, std::string>;

namespace {
std::vector<std::string> items_of(const std::vector<list_type::element>& els) {
    std::vector<std::string> out;
    for (const auto& e : els) out.push_back(e.item);
    return out;
}
} // namespace

TEST_CASE("bucketed list: 350 events make 4 buckets of 100 (user-events seed)", "[patterns][bucketed_list]") {
    sim::cluster c;
    list_type events(c, {bucket_policy::by_count, 100});
    for (int i = 0; i < 350; ++i)
        REQUIRE(events.append("user-1", std::string("e").append(std::to_string(i)), 1000 + i).value() ==
                static_cast<std::uint64_t>(i));
    CHECK(events.count("user-1").value() == 350);
    for (std::uint64_t b = 0; b < 4; ++b) {
        auto r = c.get(events.bucket_key("user-1", 0, b));
        REQUIRE(r);
        CHECK(r->value_of("items").as_map().size() == (b < 3 ? 100U : 50U));
    }
    CHECK_FALSE(c.get(events.bucket_key("user-1", 0, 4)));

    c.reset_stats();
    auto all = events.read_all("user-1").value();
    REQUIRE(all.size() == 350);
    for (std::size_t i = 0; i < all.size(); ++i) CHECK(all[i].slot == i);
    auto st = c.stats();
    // One head read, then one batch over the 4 buckets: one round trip per node touched.
    CHECK(st.namespaces[0].totals.round_trips <= 1 + c.node_count());

    auto range = events.read_range("user-1", 95, 105).value();
    REQUIRE(range.size() == 10);
    CHECK(range.front().item == "e95");
    CHECK(range.back().item == "e104");
}

TEST_CASE("bucketed list: newest-first pages with a cursor across buckets", "[patterns][bucketed_list]") {
    sim::cluster c;
    list_type l(c, {bucket_policy::by_count, 7});
    for (int i = 0; i < 40; ++i) REQUIRE(l.append("o", std::to_string(i), i));
    std::vector<std::string> seen;
    std::optional<patterns::bucket_cursor> cur;
    int pages = 0;
    do {
        auto p = l.newest("o", 6, cur).value();
        for (const auto& e : p.items) seen.push_back(e.item);
        cur = p.next;
        if (cur) {
            // The cursor survives a round trip through its token.
            auto parsed = patterns::bucket_cursor::parse(cur->token());
            REQUIRE(parsed);
            CHECK(*parsed == *cur);
        }
        ++pages;
    } while (cur && pages < 20);
    REQUIRE(seen.size() == 40);
    for (int i = 0; i < 40; ++i) CHECK(seen[static_cast<std::size_t>(i)] == std::to_string(39 - i));
    CHECK_FALSE(patterns::bucket_cursor::parse("b1.x.3"));
    CHECK_FALSE(patterns::bucket_cursor::parse("garbage"));
}

TEST_CASE("bucketed list: retention drops whole buckets and keeps cursors valid", "[patterns][bucketed_list]") {
    sim::cluster c;
    list_type l(c, {bucket_policy::by_count, 10});
    for (int i = 0; i < 55; ++i) REQUIRE(l.append("o", std::to_string(i), 1000 * i));
    auto first = l.newest("o", 5).value();
    REQUIRE(first.next);
    // Keep the newest 20: buckets holding only slots < 35 go (slots 0..29).
    CHECK(l.keep_newest("o", 20).value() == 30);
    auto all = l.read_all("o").value();
    REQUIRE(all.size() == 25);
    CHECK(all.front().slot == 30);
    // Elements older than ts 42000 live in bucket 3 (30..39) and 4 (40..49): bucket 3 goes.
    CHECK(l.drop_older_than("o", 42000).value() == 10);
    CHECK(l.read_all("o").value().front().slot == 40);
    // The cursor taken before the trims still pages on, down to the trim.
    auto next = l.newest("o", 100, first.next).value();
    CHECK(next.items.size() == 10);
    CHECK(next.items.front().slot == 49);
    CHECK(l.count("o").value() == 55);
}

TEST_CASE("bucketed list: byte-bounded buckets stay under the budget", "[patterns][bucketed_list]") {
    sim::cluster_config cfg;
    cfg.namespaces[0].max_record_size = 128 * 1024;
    sim::cluster c(cfg);
    patterns::bucketed_location where;
    where.max_record_size = 128 * 1024;
    list_type l(c, {bucket_policy::by_bytes, 16 * 1024}, where);
    for (int i = 0; i < 200; ++i) REQUIRE(l.append("o", std::string(500, static_cast<char>('a' + i % 26)), i));
    auto all = l.read_all("o").value();
    REQUIRE(all.size() == 200);
    std::size_t buckets = 0;
    for (std::uint64_t b = 0; b < 20; ++b) {
        auto r = c.get(l.bucket_key("o", 0, b));
        if (!r) break;
        ++buckets;
        std::size_t size = kv::record_size::flat("buckets", std::nullopt, false, r->bins);
        CHECK(size < 16 * 1024 + 1024);
    }
    CHECK(buckets >= 6);
    // An element that cannot fit in any bucket is refused before anything is written.
    auto big = l.append("o", std::string(120 * 1024, 'x'), 1);
    REQUIRE_FALSE(big);
    CHECK(big.error().code == status::record_too_big);
    CHECK(l.count("o").value() == 200);
}

TEST_CASE("bucketed list: time buckets per day and date-range reads", "[patterns][bucketed_list]") {
    sim::cluster c;
    list_type l(c, {bucket_policy::by_time, 3});
    const std::int64_t day0 = patterns::utc_day_start_ms(20240301);
    CHECK(patterns::utc_day(day0) == 20240301);
    CHECK(patterns::utc_day(day0 - 1) == 20240229);
    for (int d = 0; d < 3; ++d)
        for (int i = 0; i < 5; ++i)
            REQUIRE(l.append("u", std::string("d").append(std::to_string(d)).append("i").append(std::to_string(i)),
                             day0 + d * 86400000LL + i * 1000));
    CHECK(c.get(l.bucket_key("u", 20240302, 1))); // u:20240302:2 holds slots 3..4
    auto mid = l.read_time("u", day0 + 86400000LL, day0 + 2 * 86400000LL).value();
    CHECK(items_of(mid) == std::vector<std::string>{"d1i0", "d1i1", "d1i2", "d1i3", "d1i4"});
    CHECK(l.read_all("u").value().size() == 15);
    CHECK(l.count("u").value() == 15);
    auto p = l.newest("u", 7).value();
    REQUIRE(p.items.size() == 7);
    CHECK(p.items[0].item == "d2i4");
    CHECK(p.items[6].item == "d1i3");
    REQUIRE(p.next);
    auto p2 = l.newest("u", 100, p.next).value();
    CHECK(p2.items.size() == 8);
    CHECK(l.drop_older_than("u", day0 + 86400000LL).value() == 5);
    CHECK(l.read_all("u").value().size() == 10);
}

TEST_CASE("bucketed list: a scheme change keeps old buckets and positions", "[patterns][bucketed_list]") {
    sim::cluster c;
    list_type l(c, {bucket_policy::by_count, 10});
    for (int i = 0; i < 25; ++i) REQUIRE(l.append("o", std::to_string(i), i));
    REQUIRE(l.change_scheme("o", {bucket_policy::by_count, 4}));
    for (int i = 25; i < 40; ++i) REQUIRE(l.append("o", std::to_string(i), i));
    auto all = l.read_all("o").value();
    REQUIRE(all.size() == 40);
    for (std::size_t i = 0; i < 40; ++i) CHECK(all[i].item == std::to_string(i));
    // Slots 25..28 went to the first bucket of the new epoch (bucket 3).
    auto b3 = c.get(l.bucket_key("o", 0, 3));
    REQUIRE(b3);
    CHECK(b3->value_of("items").as_map().size() == 4);
    // A second writer configured with the old scheme follows the head's epochs.
    list_type stale(c, {bucket_policy::by_count, 10});
    REQUIRE(stale.append("o", "40", 40));
    CHECK(l.read_all("o").value().size() == 41);
}

TEST_CASE("bucketed list: a retried claim is idempotent, timeouts lose nothing", "[patterns][bucketed_list]") {
    sim::cluster c;
    // Lost requests and lost answers (applied, reported as timeouts).
    REQUIRE(c.add_fault(sim::fault::timeout().with_probability(0.15).forever()));
    REQUIRE(c.add_fault(sim::fault::in_doubt().with_probability(0.15).forever()));
    list_type l(c, {bucket_policy::by_count, 8}, {.max_attempts = 50});
    std::set<std::uint64_t> slots;
    for (int i = 0; i < 200; ++i) {
        auto s = l.append("o", std::to_string(i), i);
        REQUIRE(s);
        CHECK(slots.insert(*s).second);
    }
    c.clear_faults();
    auto all = l.read_all("o").value();
    CHECK(all.size() == 200);
    CHECK(l.count("o").value() == 200); // no slot claimed twice
    std::set<std::string> items;
    for (const auto& e : all) CHECK(items.insert(e.item).second);
}

TEST_CASE("bucketed list: hourly time buckets", "[patterns][bucketed_list]") {
    sim::cluster c;
    list_type l(c, {bucket_policy::by_time, 10, patterns::time_period::hour});
    const std::int64_t t0 = patterns::utc_day_start_ms(20240301) + 22 * 3600000LL; // 22:00
    CHECK(patterns::period_of(t0, patterns::time_period::hour) == 2024030122);
    CHECK(patterns::period_start_ms(2024030122, patterns::time_period::hour) == t0);
    for (int i = 0; i < 30; ++i) REQUIRE(l.append("u", std::to_string(i), t0 + i * 10 * 60000LL)); // every 10 min
    CHECK(c.get(l.bucket_key("u", 2024030122, 0)));
    CHECK(c.get(l.bucket_key("u", 2024030200, 0))); // past midnight: the next day's first hour
    auto h = l.read_time("u", t0 + 3600000LL, t0 + 2 * 3600000LL).value();
    CHECK(h.size() == 6);
    CHECK(l.read_all("u").value().size() == 30);
    CHECK(l.newest("u", 3).value().items.front().item == "29");
}

TEST_CASE("bucketed list: an append under the caller's id is stored once per id", "[patterns][bucketed_list]") {
    sim::cluster c;
    list_type l(c, {bucket_policy::by_count, 3}, {.claim_window = 4});
    auto first = l.append("o", "a", 100, "id-a");
    REQUIRE(first);
    REQUIRE(l.append("o", "b", 200, "id-b").value() == *first + 1);
    REQUIRE(l.append("o", "generated", 300).value() == *first + 2);
    // Again under "id-a": its first slot, rewritten with what is given now.
    CHECK(l.append("o", "a again", 100, "id-a").value() == *first);
    CHECK(items_of(l.read_all("o").value()) == std::vector<std::string>{"a again", "b", "generated"});
    CHECK(l.count("o").value() == 3);
    // The id names a claim together with its timestamp.
    CHECK(l.append("o", "a later", 101, "id-a").value() == *first + 3);

    for (std::size_t bad : {std::size_t{0}, list_type::max_append_id_bytes + 1}) {
        auto r = l.append("o", "x", 400, std::string(bad, 'i'));
        REQUIRE_FALSE(r);
        CHECK(r.error().code == status::parameter_error);
    }
    CHECK(l.append("o", "longest", 400, std::string(list_type::max_append_id_bytes, 'i')));
    CHECK(l.count("o").value() == 5);
}

TEST_CASE("bucketed list: holes do not choke the head (issue 33)", "[patterns][bucketed_list]") {
    // A fifth of all writes time out once (max_attempts 1): claims whose
    // element write failed leave holes, some fences fail too and are left to
    // compaction. The clock stands still, so no id ever ages past
    // claim_retention: compaction must still pass them once `claims` holds
    // 4 x claim_window ids, and `claims` stays under 4 x claim_window ids
    // without faults (2 x claim_window + 1 when every id is older than
    // claim_retention) and under 5 x claim_window (the appends that race a
    // failed compaction) with them, whatever the hole rate; the head
    // record and the bytes written per append stay within stated bounds of
    // the fault-free run. (Before: a hole stopped compaction for
    // claim_retention, 60 s, and `claims` grew with every append — the
    // head, rewritten by every claim, with it.)
    constexpr std::size_t window = 16;
    struct outcome {
        std::size_t max_claims = 0;
        std::size_t max_head_bytes = 0;
        double bytes_written_per_append = 0;
        std::size_t acked = 0;
    };
    // aged: the clock moves claim_retention at every read, so each id is
    // old by the time compaction looks at it.
    auto run = [&](double write_faults, bool aged) {
        sim::cluster c;
        if (write_faults > 0)
            REQUIRE(c.add_fault(sim::fault::timeout().only(sim::op_scope::writes).with_probability(write_faults).forever()));
        std::int64_t now = 0;
        patterns::bucketed_location where;
        where.claim_window = window;
        where.max_attempts = 1;
        const std::int64_t step = aged ? where.claim_retention.count() : 0;
        where.clock = [&now, step] { return now += step; };
        list_type l(c, {bucket_policy::by_count, 50}, where);
        std::set<std::string> stored;
        outcome out;
        constexpr int appends = 3000;
        for (int i = 0; i < appends; ++i) {
            if (l.append("o", std::to_string(i), i)) stored.insert(std::to_string(i));
            auto h = c.get(l.head_key("o"));
            REQUIRE(h);
            out.max_claims = std::max(out.max_claims, h->value_of("claims").as_list().size());
            out.max_head_bytes =
                std::max(out.max_head_bytes, kv::record_size::flat("heads", std::nullopt, false, h->bins));
        }
        out.bytes_written_per_append = static_cast<double>(c.stats().namespaces[0].totals.bytes_written) / appends;
        out.acked = stored.size();
        c.clear_faults();
        auto all = l.read_all("o");
        REQUIRE(all);
        std::set<std::string> read;
        for (const auto& e : *all) read.insert(e.item);
        for (const std::string& s : stored) CHECK(read.count(s) == 1); // every acknowledged element is there
        CHECK(l.count("o").value() >= read.size());
        return out;
    };
    const outcome aged = run(0.0, true);
    const outcome clean = run(0.0, false);
    const outcome holed = run(0.2, false);
    INFO("claims max " << aged.max_claims << " / " << clean.max_claims << " / " << holed.max_claims << ", head bytes max " << clean.max_head_bytes
                       << " / " << holed.max_head_bytes << ", bytes written per append " << clean.bytes_written_per_append
                       << " / " << holed.bytes_written_per_append << ", acknowledged " << clean.acked << " / "
                       << holed.acked);
    CHECK(clean.acked == 3000);
    CHECK(holed.acked < 2700); // the faults did make holes
    CHECK(aged.acked == 3000);
    CHECK(aged.max_claims <= 2 * window + 1);
    CHECK(clean.max_claims <= 4 * window);
    CHECK(holed.max_claims <= 5 * window);
    CHECK(holed.max_head_bytes <= clean.max_head_bytes * 3);
    CHECK(holed.bytes_written_per_append <= clean.bytes_written_per_append * 2);
}

TEST_CASE("bucketed list: a same-id retry after compaction is stored once (issue 33)", "[patterns][bucketed_list]") {
    // The README's contract: an append that failed in doubt is retried with
    // the SAME id and then stored once. Here its element landed (the bucket
    // write applied, its answer lost) and its fence failed, so the append
    // fails in doubt; 2 x claim_window + 2 other appends follow (compaction
    // runs) before the retry, all within claim_retention. (Before: compaction
    // moved the landed id out of `claims` at once, the retry claimed a new
    // slot and the element was stored twice.)
    constexpr std::size_t window = 4;
    sim::cluster c;
    std::int64_t now = 1'000'000;
    patterns::bucketed_location where;
    where.claim_window = window;
    where.max_attempts = 1;
    where.clock = [&now] { return now; };
    list_type l(c, {bucket_policy::by_count, 3}, where);
    REQUIRE(l.append("o", "first", now));
    const std::int64_t ts = now;
    // The claim goes through, the bucket write is applied and its answer
    // lost, the fence is lost.
    REQUIRE(c.add_fault(sim::fault::in_doubt().after(1).times(1)));
    REQUIRE(c.add_fault(sim::fault::timeout().after(2).times(1)));
    auto doubted = l.append("o", "retried", ts, "retried-id");
    REQUIRE_FALSE(doubted);
    CHECK(doubted.error().in_doubt);
    c.clear_faults();
    for (std::size_t i = 0; i < 2 * window + 2; ++i) {
        ++now;
        REQUIRE(l.append("o", "other " + std::to_string(i), now));
    }
    now += 1000; // still within claim_retention (5 s)
    REQUIRE(l.append("o", "retried", ts, "retried-id"));
    auto all = items_of(l.read_all("o").value());
    CHECK(std::count(all.begin(), all.end(), "retried") == 1);
    CHECK(all.size() == 2 * window + 4);
    CHECK(l.count("o").value() == 2 * window + 4);
}

} // namespace patterns_bucketed_list_test
