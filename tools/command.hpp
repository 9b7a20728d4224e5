// tools/command.hpp
//
// The registry of `kvmodel` subcommands. Each command lives in its own
// tools/cmd_<name>.cpp (every tools/*.cpp is built into the tool) and registers
// itself at static-initialization time; main.cpp never changes:
//
//   #include "command.hpp"
//   namespace {
//   int run_key(std::span<char*> args) { ...; return 0; }
//   } // namespace
//   KVMODEL_REGISTER_COMMAND("key", "digest and partition of a key", run_key);
//
// `args` holds the arguments after the command name: `kvmodel key test demo 42`
// passes {"test", "demo", "42"}. `kvmodel help key` passes {"--help"}, so every
// command should answer --help. The return value is the exit status: 0 success,
// 1 failure, 2 bad usage. main() reports an escaping exception as an error
// (exit 1), but commands should print their own clear message instead.
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace kvmodel::tools {

struct command {
    std::string_view name;    // what follows `kvmodel` on the command line
    std::string_view summary; // one line for `kvmodel --help`
    int (*run)(std::span<char*> args);
};

/// Every registered command, in registration order (main() sorts them by name).
/// A function-local static, so registration order across files does not matter.
inline std::vector<command>& commands() {
    static std::vector<command> registry;
    return registry;
}

/// Registers a command from the constructor of a namespace-scope object.
struct command_registration {
    explicit command_registration(const command& c) { commands().push_back(c); }
};

} // namespace kvmodel::tools

#define KVMODEL_COMMAND_CONCAT_IMPL(a, b) a##b
#define KVMODEL_COMMAND_CONCAT(a, b) KVMODEL_COMMAND_CONCAT_IMPL(a, b)

/// KVMODEL_REGISTER_COMMAND("name", "one-line summary", function) at namespace
/// scope registers `kvmodel name`; function is `int (std::span<char*> args)`.
#define KVMODEL_REGISTER_COMMAND(name, summary, function)                                          \
    static const ::kvmodel::tools::command_registration KVMODEL_COMMAND_CONCAT(                    \
        kvmodel_command_registration_, __COUNTER__) {                                               \
        ::kvmodel::tools::command { name, summary, function }                                      \
    }
