// Aerospike expressions on the simulator: a filtered write, a derived bin
// and a computed read in one operate. The same code runs on a real server
// through adapters/aerospike.hpp (the packed bytes go to it unchanged).
// (The README's "Expressions" section shows this program.)
#include <kvmodel/exp/build.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/sim/cluster.hpp>

#include <cstdint>
#include <iostream>

int main() {
    using namespace kvmodel;
    namespace e = kvmodel::exp;
    sim::cluster db;
    kv::key k("test", "players", "ann");
    if (!db.put(k, {{"score", 40}, {"level", 3}}))
        return 1;

    // Write only if the stored score is lower than 50 (one round trip).
    kv::write_policy wp;
    wp.filter_exp = (e::bin_int("score") < 50).bytes();
    if (!db.put(k, {{"score", 50}}, wp))
        return 1;
    if (db.put(k, {{"score", 60}}, wp).code() != status::filtered_out)
        return 1;

    // Compute in an operate: a derived bin and a computed read.
    auto bonus = e::let(e::def("s", e::bin_int("score")),
                        e::cond(e::var("s") >= 50, e::var("s") * 2, e::var("s")));
    auto r =
        db.operate(k,
                   {kv::op::exp_write("bonus", bonus.bytes()),
                    kv::op::exp_read("sum", (e::bin_int("bonus") + e::bin_int("level")).bytes())});
    if (!r || r->results[1] != value(std::int64_t{103}))
        return 1;
    std::cout << "bonus + level = " << r->results[1].as_int() << "\n";
    return 0;
}
