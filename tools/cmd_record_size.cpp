// tools/cmd_record_size.cpp
//
// Registers `kvmodel record-size` (tools/record_size_tool.hpp).
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "command.hpp"
#include "record_size_tool.hpp"

namespace {

int run_record_size(std::span<char*> args) {
    std::vector<std::string> a(args.begin(), args.end());
    return kvmodel::tools::record_size_tool::run(a, std::cin, std::cout, std::cerr);
}

} // namespace

KVMODEL_REGISTER_COMMAND("record-size",
                         "what records weigh in Aerospike and whether they fit",
                         run_record_size);
