// tools/cmd_key.cpp
//
// Registers `kvmodel key` (tools/key_tool.hpp).
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "command.hpp"
#include "key_tool.hpp"

namespace {

int run_key(std::span<char*> args) {
    std::vector<std::string> a(args.begin(), args.end());
    return kvmodel::tools::key_tool::run(a, std::cout, std::cerr);
}

} // namespace

KVMODEL_REGISTER_COMMAND("key", "digest, partition and nodes of a key", run_key);
