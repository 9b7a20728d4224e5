// Tests of kvmodel/patterns/activity_stream.hpp on sim::cluster: the seed's
// inbox, and what every fan-out pattern promises - each recipient and the
// sender get a message once, inboxes are newest first and page by cursor, a
// retried post adds nothing, bad input fails before anything is written.
#include <kvmodel/patterns/activity_stream.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include "../../examples/scenarios/activity.hpp"

#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace patterns_activity_stream_test {

using namespace kvmodel;
using patterns::message;

// How each pattern is made on a cluster (TEMPLATE_TEST_CASE's type list).
struct on_write {
    using stream = patterns::fan_out_on_write<sim::cluster>;
    static stream make(sim::cluster& c) { return stream(c); }
};
struct bucketed {
    using stream = patterns::bucketed_fan_out<sim::cluster>;
    static stream make(sim::cluster& c) { return stream(c, {patterns::bucket_policy::by_count, 2}); }
};
struct by_reference {
    using stream = patterns::fan_out_by_reference<sim::cluster>;
    static stream make(sim::cluster& c) { return stream(c); }
};
struct on_read {
    using stream = patterns::fan_out_on_read<sim::cluster>;
    static stream make(sim::cluster& c) {
        stream s(c);
        REQUIRE(s.setup());
        REQUIRE(s.setup()); // an existing index is fine
        return s;
    }
};

/// Every message of the user's inbox, n per page, following the cursors.
template <class Stream>
std::vector<message> read_all(const Stream& s, const std::string& user, std::size_t n) {
    std::vector<message> out;
    std::optional<std::string> cursor;
    for (int pages = 0; pages < 100; ++pages) {
        auto page = s.inbox(user, n, cursor);
        REQUIRE(page);
        CHECK(page->items.size() <= n);
        out.insert(out.end(), page->items.begin(), page->items.end());
        if (!page->next) return out;
        cursor = page->next;
    }
    FAIL("inbox of " << user << ": the cursor never ends");
    return out;
}

std::vector<std::string> ids(const std::vector<message>& ms) {
    std::vector<std::string> out;
    for (const message& m : ms) out.push_back(m.id);
    return out;
}

TEST_CASE("activity streams: the seed's four posts, Jane's inbox under every pattern",
          "[patterns][activity_stream]") {
    sim::cluster c;
    std::ostringstream out;
    auto r = examples::run_activity(c, out);
    REQUIRE(r);
    const std::vector<std::string> expected = {"Jane>> My 3rd message...", "Jane>> My 2nd message...",
                                               "Jane>> My 1st message...", "Joe>> Silly message..."};
    CHECK(r->on_write == expected);
    CHECK(r->bucketed == expected);
    CHECK(r->by_reference == expected);
    CHECK(r->on_read == expected);
}

TEMPLATE_TEST_CASE("activity streams: each of the audience gets a message once, newest first, in pages",
                   "[patterns][activity_stream]", on_write, bucketed, by_reference, on_read) {
    sim::cluster c;
    auto s = TestType::make(c);
    // Recipients repeated and the sender among them: each inbox gets it once.
    auto m1 = s.post({"", "Joe", {"Bob", "Jane", "Bob", "Joe"}, 1000, "hello all"});
    auto m2 = s.post({"", "Jane", {"Bob"}, 2000, "to Bob"});
    auto m3 = s.post({"", "Bob", {}, 3000, "a note to self"});
    REQUIRE(m1);
    REQUIRE(m2);
    REQUIRE(m3);
    CHECK_FALSE(m1->id.empty());
    CHECK(m1->id != m2->id);
    CHECK(m1->to == std::vector<std::string>{"Bob", "Jane", "Bob", "Joe"}); // kept as posted

    for (std::size_t n : std::vector<std::size_t>{1, 2, 3, 10}) {
        INFO("page size " << n);
        std::vector<message> bob = read_all(s, "Bob", n);
        CHECK(ids(bob) == std::vector<std::string>{m3->id, m2->id, m1->id});
        REQUIRE(bob.size() == 3);
        CHECK(bob[2] == *m1); // the whole message comes back
        CHECK(ids(read_all(s, "Jane", n)) == std::vector<std::string>{m2->id, m1->id});
        CHECK(ids(read_all(s, "Joe", n)) == std::vector<std::string>{m1->id});
        CHECK(read_all(s, "Nobody", n).empty());
    }

    // A page of zero messages is empty, with no cursor.
    auto none = s.inbox("Bob", 0);
    REQUIRE(none);
    CHECK(none->items.empty());
    CHECK_FALSE(none->next);

    // Posting a message again, with the id its first post gave it.
    REQUIRE(s.post(*m2));
    CHECK(ids(read_all(s, "Bob", 10)) == std::vector<std::string>{m3->id, m2->id, m1->id});
    CHECK(ids(read_all(s, "Jane", 10)) == std::vector<std::string>{m2->id, m1->id});
}

TEMPLATE_TEST_CASE("activity streams: a bad message or cursor fails with PARAMETER_ERROR and writes nothing",
                   "[patterns][activity_stream]", on_write, bucketed, by_reference, on_read) {
    sim::cluster c;
    auto s = TestType::make(c);
    for (const message& bad : {message{"", "", {"Bob"}, 1000, "no sender"},
                               message{"", "Joe", {"Bob"}, -1, "before 1970"},
                               message{"", "Joe", {"Bob", ""}, 1000, "an empty recipient"}}) {
        INFO(bad.body);
        auto r = s.post(bad);
        REQUIRE_FALSE(r);
        CHECK(r.error().code == status::parameter_error);
    }
    CHECK(read_all(s, "Bob", 10).empty());
    CHECK(read_all(s, "Joe", 10).empty());

    REQUIRE(s.post({"", "Joe", {"Bob"}, 1000, "fine"}));
    for (const char* cursor : {"", "garbage", "00000000000000001000"}) {
        INFO("cursor '" << cursor << "'");
        auto page = s.inbox("Bob", 1, std::string(cursor));
        REQUIRE_FALSE(page);
        CHECK(page.error().code == status::parameter_error);
    }
}

TEST_CASE("activity streams: fan out on write posts in one batch, a round trip per node",
          "[patterns][activity_stream]") {
    sim::cluster c;
    patterns::fan_out_on_write<sim::cluster> on_write(c);
    std::vector<std::string> to;
    for (int i = 0; i < 20; ++i)
        to.push_back("user" + std::to_string(i));
    c.reset_stats();
    REQUIRE(on_write.post({"", "Joe", to, 1, "hello"}));
    // 21 inboxes over 3 nodes: 3 round trips, not 21.
    CHECK(c.stats().find("test")->totals.round_trips == 3);
    CHECK(c.stats().find("test")->totals.writes == 21);
    CHECK(read_all(on_write, "user7", 4).size() == 1);
}

TEST_CASE("activity streams: an inbox record is bounded under fan out on write, not under the others",
          "[patterns][activity_stream]") {
    sim::cluster c;
    const std::string body(300'000, 'x');
    patterns::fan_out_on_write<sim::cluster> on_write(c);
    std::vector<std::string> posted;
    status failure = status::ok;
    for (std::int64_t ts = 1; ts <= 10; ++ts) {
        auto r = on_write.post({"", "Joe", {"Bob"}, ts, body});
        if (!r) {
            failure = r.error().code;
            break;
        }
        posted.insert(posted.begin(), r->id);
    }
    // 1 MiB records: three 300 kB messages fit, the fourth does not.
    CHECK(failure == status::record_too_big);
    CHECK(posted.size() == 3);
    CHECK(ids(read_all(on_write, "Bob", 2)) == posted); // the inbox is as it was

    // Buckets of two, or references: the same ten posts all land.
    patterns::bucketed_fan_out<sim::cluster> bucketed(c, {patterns::bucket_policy::by_count, 2});
    patterns::fan_out_by_reference<sim::cluster> by_reference(c);
    for (std::int64_t ts = 1; ts <= 10; ++ts) {
        REQUIRE(bucketed.post({"", "Joe", {"Bob"}, ts, body}));
        REQUIRE(by_reference.post({"", "Joe", {"Bob"}, ts, body}));
    }
    CHECK(read_all(bucketed, "Bob", 4).size() == 10);
    CHECK(read_all(by_reference, "Bob", 4).size() == 10);
}

TEST_CASE("activity streams: bucketed inboxes take a re-post once while its id is among the recent claims",
          "[patterns][activity_stream]") {
    sim::cluster c;
    patterns::bucketed_location where{.head_set = "inbox_heads", .bucket_set = "inbox_buckets"};
    where.claim_window = 2;
    where.max_attempts = 1;
    patterns::bucketed_fan_out<sim::cluster> s(c, {patterns::bucket_policy::by_count, 2}, where);

    // The third command - Jane's claim - is applied but answered as a
    // timeout: the post fails after Bob's inbox, with Jane's slot claimed.
    REQUIRE(c.add_fault(sim::fault::in_doubt().after(2)));
    auto failed = s.post({"m1", "Joe", {"Bob", "Jane"}, 1000, "hello"});
    REQUIRE_FALSE(failed);
    CHECK(failed.error().code == status::timeout);
    c.clear_faults();
    auto m1 = s.post({"m1", "Joe", {"Bob", "Jane"}, 1000, "hello"});
    REQUIRE(m1);
    for (const char* user : {"Bob", "Jane", "Joe"}) {
        INFO(user);
        CHECK(ids(read_all(s, user, 10)) == std::vector<std::string>{"m1"});
        CHECK(s.list().count(user).value() == 1); // the retry took the claimed slot: no hole
    }

    // One other message since: still taken once.
    REQUIRE(s.post({"m2", "Jane", {"Bob"}, 2000, "2"}));
    REQUIRE(s.post(*m1));
    CHECK(ids(read_all(s, "Bob", 10)) == std::vector<std::string>{"m2", "m1"});

    // Two more (claim_window 2): Bob's claims compact past m1, so a re-post
    // now is a new arrival, as bucketed_fan_out::post documents.
    REQUIRE(s.post({"m3", "Jane", {"Bob"}, 3000, "3"}));
    REQUIRE(s.post({"m4", "Jane", {"Bob"}, 4000, "4"}));
    REQUIRE(s.post(*m1));
    CHECK(ids(read_all(s, "Bob", 10)) == std::vector<std::string>{"m1", "m4", "m3", "m2", "m1"});

    // An id the head cannot keep fails before anything is written.
    auto long_id = s.post({std::string(257, 'x'), "Joe", {"Bob"}, 5000, "long id"});
    REQUIRE_FALSE(long_id);
    CHECK(long_id.error().code == status::parameter_error);
    CHECK(read_all(s, "Joe", 10).size() == 1);
}

} // namespace patterns_activity_stream_test
