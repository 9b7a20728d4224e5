// Copy-on-write across threads: a container read through one copy on one
// thread and written through another on a second. Under ThreadSanitizer
// (CI's concurrency stage) these fail if a write in place is not ordered
// after the reads of a copy dropped on the other thread.
#include <kvmodel/core/value.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <thread>

namespace core_value_thread_test {

using namespace kvmodel;

// The reader reads its copy and drops it, then says so through a relaxed
// flag: nothing orders its reads before the writer's writes but the handle's
// own count. The writer waits for the flag, finds itself the sole owner and
// writes in place (no clone: the data the reader read is the data written).
template <class Read, class Write>
void drop_then_write(value shared, Read read, Write write) {
    std::atomic<bool> dropped{false};
    std::int64_t seen = 0;
    std::thread reader([copy = shared, &dropped, &seen, read]() mutable {
        seen = read(copy);
        copy = value(); // the reader's copy goes
        dropped.store(true, std::memory_order_relaxed);
    });
    while (!dropped.load(std::memory_order_relaxed))
        std::this_thread::yield();
    write(shared);
    reader.join();
    CHECK(seen > 0);
}

TEST_CASE("a map written in place after another thread dropped its copy") {
    for (int round = 0; round < 200; ++round) {
        map m;
        for (std::int64_t k = 0; k < 100; ++k)
            m.put(k, list{k, "payload"});
        drop_then_write(
            value(std::move(m)),
            [](const value& v) {
                std::int64_t sum = 0;
                for (const auto& e : v.as_map())
                    sum += e.val.as_list()[0].as_int() + 1;
                return sum;
            },
            [](value& v) {
                map& w = v.as_map();
                w.put(std::int64_t{5}, 0);
                w.erase_at(0);
                CHECK(w.size() == 99);
            });
    }
}

TEST_CASE("a list written in place after another thread dropped its copy") {
    for (int round = 0; round < 200; ++round) {
        list l;
        for (std::int64_t i = 0; i < 100; ++i)
            l.push_back(i);
        l.build_index(); // both layouts: a ranked list first
        drop_then_write(
            value(std::move(l)),
            [](const value& x) {
                std::int64_t sum = 0;
                for (const value& e : x.as_list())
                    sum += e.as_int() + 1;
                return sum;
            },
            [](value& x) {
                list& w = x.as_list();
                w.set(3, -1);
                w.insert(50, 7);
                CHECK(w.size() == 101);
            });
        drop_then_write(
            value(list{1, 2, 3}),
            [](const value& x) { return x.as_list()[2].as_int(); },
            [](value& x) { x.as_list().push_back(4); });
    }
}

} // namespace core_value_thread_test
