// A fan-out post is several writes: once one of them is applied, a later
// failure must say in doubt (kv/retry.hpp), even when that failure itself
// was refused before anything was sent — and posting again with the same id
// finishes the post with every inbox holding it once.
#include <kvmodel/patterns/activity_stream.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace patterns_activity_stream_retry_test {

using namespace kvmodel;
using namespace std::chrono_literals;
using patterns::message;

TEST_CASE("a fan-out post that failed after an inbox got it is in doubt",
          "[patterns][activity_stream][retry]") {
    sim::cluster c;
    patterns::fan_out_on_write<sim::cluster> stream(c);
    auto node_of = [&](const std::string& user) { return c.replicas(kv::key("test", "inboxes", user)).front(); };
    // The sender's inbox (written first: the audience is sorted) lives on
    // another node than Zed's, whose node dies under some other write.
    const int dead = node_of("Zed");
    std::string sender;
    for (int i = 0; sender.empty(); ++i) {
        std::string name = std::string("A").append(std::to_string(i));
        if (node_of(name) != dead) sender = name;
    }
    REQUIRE(c.add_fault(sim::fault::node_crash(dead, 60000ms)));
    for (std::int64_t i = 0;; ++i) {
        kv::key k("test", "other", i);
        if (c.replicas(k).front() != dead) continue;
        REQUIRE_FALSE(c.put(k, {{"x", value(1)}}));
        break;
    }

    message m{"m-1", sender, {"Zed"}, 1000, "hello"};
    auto r = stream.post(m);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == status::connection); // Zed's inbox: refused, nothing sent
    CHECK(r.error().in_doubt);                   // but the sender's inbox has it
    CHECK(stream.inbox(sender, 10).value().items.size() == 1);

    // Once the node is out of the client's map, the same id finishes it.
    c.manual_time()->advance(60000ms);
    REQUIRE(stream.post(m));
    CHECK(stream.inbox(sender, 10).value().items.size() == 1);
    CHECK(stream.inbox("Zed", 10).value().items.size() == 1);
}

} // namespace patterns_activity_stream_retry_test
