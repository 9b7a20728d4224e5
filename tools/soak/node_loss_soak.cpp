// tools/soak/node_loss_soak.cpp — the node-loss soak of issue 33 against a
// real Aerospike cluster through the adapter (the simulator's version runs
// in CI: tests/patterns/node_loss_concurrency_test.cpp). Built and run by
// tools/node_loss_soak.sh; not part of the CMake build (it needs the C
// client and a multi-node cluster).
//
// N writer threads append to a bucketed_list of 8 owners. Each follows the
// contract of README "Retries and in doubt": an error in doubt is retried
// with the same append id, and that id is kept from then on; an error not in
// doubt, with no earlier call in doubt, is retried under a new id. While it
// runs, the script kills a node and restarts it (--kill / --restart commands
// after --kill-after seconds). At the end it reads every owner back and
// prints: acknowledged, errors in doubt / not, lost, duplicates, empty slots
// (holes), the longest pending-claims list and the heads' sizes. Exit 0 when
// nothing acknowledged is lost and nothing is stored twice.
#include <kvmodel/adapters/aerospike.hpp>
#include <kvmodel/core/msgpack_size.hpp>
#include <kvmodel/patterns/bucketed_list.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace kvmodel;
using list_type = patterns::bucketed_list<adapters::aerospike_store, std::string>;

struct options {
    std::string hosts = "127.0.0.1:3000";
    int threads = 4;
    int appends = 5000; // per thread
    int owners = 8;
    int kill_after_s = 5;
    std::string kill_cmd;
    std::string restart_cmd;
    int restart_after_s = 10;
};

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

int main(int argc, char** argv) {
    options o;
    if (argc % 2 == 0) {
        std::cerr << "node_loss_soak: options come in pairs (--name value)\n";
        return 2;
    }
    try {
        for (int i = 1; i + 1 < argc; i += 2) {
            const std::string a = argv[i];
            const std::string v = argv[i + 1];
            if (a == "--hosts") o.hosts = v;
            else if (a == "--threads") o.threads = std::stoi(v);
            else if (a == "--appends") o.appends = std::stoi(v);
            else if (a == "--owners") o.owners = std::stoi(v);
            else if (a == "--kill-after") o.kill_after_s = std::stoi(v);
            else if (a == "--kill") o.kill_cmd = v;
            else if (a == "--restart") o.restart_cmd = v;
            else if (a == "--restart-after") o.restart_after_s = std::stoi(v);
            else {
                std::cerr << "node_loss_soak: unknown option " << a << "\n";
                return 2;
            }
        }
    } catch (const std::exception&) {
        std::cerr << "node_loss_soak: a number was expected after an option\n";
        return 2;
    }
    if (o.threads < 1 || o.appends < 1 || o.owners < 1) {
        std::cerr << "node_loss_soak: --threads, --appends and --owners must be at least 1\n";
        return 2;
    }
    adapters::aerospike_config cfg;
    cfg.hosts = o.hosts;
    auto store = adapters::aerospike_store::connect(cfg);
    if (!store) {
        std::cerr << "node_loss_soak: " << store.error().message << "\n";
        return 1;
    }
    const std::string run = "soak" + std::to_string(now_ms());
    patterns::bucketed_location where;
    where.head_set = run + "h";
    where.bucket_set = run + "b";
    list_type l(*store, {patterns::bucket_policy::by_count, 100}, where);

    std::atomic<int> acked{0}, in_doubt{0}, definite{0}, error_rate{0}, gave_up{0};
    std::mutex acked_mu;
    std::vector<std::string> acked_items;
    std::atomic<bool> done{false};
    std::thread chaos([&] {
        auto wait_s = [&](int s) {
            for (int i = 0; i < s * 10 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        };
        wait_s(o.kill_after_s);
        if (!done && !o.kill_cmd.empty()) {
            std::cout << "killing: " << o.kill_cmd << std::endl;
            (void)std::system(o.kill_cmd.c_str());
        }
        wait_s(o.restart_after_s);
        if (!o.restart_cmd.empty()) {
            std::cout << "restarting: " << o.restart_cmd << std::endl;
            (void)std::system(o.restart_cmd.c_str());
        }
    });
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int w = 0; w < o.threads; ++w)
        pool.emplace_back([&, w] {
            for (int i = 0; i < o.appends; ++i) {
                const std::string owner = "owner-" + std::to_string((w + i) % o.owners);
                const std::string item = std::to_string(w) + ":" + std::to_string(i);
                const std::int64_t ts = now_ms();
                std::string id = item;
                bool doubted = false;
                bool stored = false;
                for (int tries = 0; tries < 1000 && !stored; ++tries) {
                    auto r = l.append(owner, item, ts, id);
                    if (r) {
                        stored = true;
                        break;
                    }
                    if (r.error().code == status::max_error_rate) ++error_rate;
                    if (r.error().in_doubt) {
                        ++in_doubt;
                        doubted = true;
                        continue;
                    }
                    ++definite;
                    if (!doubted) id = item + "#" + std::to_string(tries);
                }
                if (stored) {
                    ++acked;
                    std::lock_guard lock(acked_mu);
                    acked_items.push_back(item);
                } else {
                    ++gave_up;
                }
            }
        });
    for (auto& t : pool) t.join();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    done = true;
    chaos.join();

    std::set<std::string> seen;
    std::uint64_t stored = 0, duplicates = 0, holes = 0;
    std::size_t longest_claims = 0, largest_head = 0;
    for (int i = 0; i < o.owners; ++i) {
        const std::string owner = "owner-" + std::to_string(i);
        auto els = l.read_all(owner);
        auto claimed = l.count(owner);
        if (!els || !claimed) {
            std::cerr << "node_loss_soak: reading " << owner << " failed\n";
            return 1;
        }
        for (const auto& e : *els) duplicates += seen.insert(e.item).second ? 0U : 1U;
        stored += els->size();
        holes += *claimed - els->size();
        auto head = store->get(kv::key(where.ns, where.head_set, owner));
        if (head) {
            const value claims = head->value_of("claims");
            if (claims.is_list()) longest_claims = std::max(longest_claims, claims.as_list().size());
            largest_head = std::max(largest_head, packed_size(claims));
        }
    }
    const std::uint64_t expected = static_cast<std::uint64_t>(o.threads) * static_cast<std::uint64_t>(o.appends);
    std::uint64_t lost = 0;
    for (const std::string& item : acked_items) lost += seen.count(item) == 0 ? 1U : 0U;
    std::cout << "appends " << expected << " in " << secs << " s (" << static_cast<double>(expected) / secs << "/s)\n"
              << "acknowledged " << acked << ", gave up " << gave_up << "\n"
              << "errors in doubt " << in_doubt << ", not in doubt " << definite << " (max error rate " << error_rate
              << ")\n"
              << "stored " << stored << " distinct " << seen.size() << ": lost " << lost << ", duplicates "
              << duplicates << ", empty slots " << holes << "\n"
              << "longest pending-claims list " << longest_claims << " (" << largest_head << " bytes packed)\n";
    return lost == 0 && duplicates == 0 ? 0 : 1;
}
