// tools/cmd_cdt.cpp
//
// Registers `kvmodel cdt` (tools/cdt_runner.hpp).
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "cdt_runner.hpp"
#include "command.hpp"

namespace {

int run_cdt(std::span<char*> args) {
    std::vector<std::string> a(args.begin(), args.end());
    return kvmodel::tools::cdt_json::run(a, std::cin, std::cout, std::cerr);
}

} // namespace

KVMODEL_REGISTER_COMMAND("cdt",
                         "run CDT scenarios (shared/spec/cdt-json.md) through operate()",
                         run_cdt);
