// tools/main.cpp
//
// `kvmodel <command> [args...]`: dispatches to the commands that tools/cmd_*.cpp
// register through command.hpp. `kvmodel --help` lists them; `kvmodel help
// <command>` runs `<command> --help`. Exit status: the command's own; 2 for bad
// usage (no command, unknown command); 1 when a command throws.
#include "command.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#ifndef KVMODEL_VERSION_STRING
#    define KVMODEL_VERSION_STRING "unknown"
#endif

namespace {

using kvmodel::tools::command;

std::vector<command> sorted_commands() {
    std::vector<command> all = kvmodel::tools::commands();
    std::sort(all.begin(), all.end(), [](const command& a, const command& b) {
        return a.name < b.name;
    });
    return all;
}

void print_help(std::ostream& out, const std::vector<command>& all) {
    out << "usage: kvmodel <command> [args...]\n"
           "       kvmodel help <command>     help for one command\n"
           "       kvmodel --version\n"
           "\n";
    if (all.empty()) {
        out << "No commands are registered yet.\n";
        return;
    }
    std::size_t width = 0;
    for (const command& c : all) {
        width = std::max(width, c.name.size());
    }
    out << "commands:\n";
    for (const command& c : all) {
        out << "  " << c.name << std::string(width - c.name.size() + 3, ' ') << c.summary << '\n';
    }
}

} // namespace

int main(int argc, char** argv) {
    const std::span<char*> args(argv, static_cast<std::size_t>(argc));
    const std::vector<command> all = sorted_commands();

    // Two files registering one name is a bug in the tool, not bad usage.
    const auto duplicate = std::adjacent_find(
        all.begin(), all.end(), [](const command& a, const command& b) { return a.name == b.name; });
    if (duplicate != all.end()) {
        std::cerr << "kvmodel: internal error: command '" << duplicate->name
                  << "' is registered twice\n";
        return 1;
    }

    if (args.size() < 2) {
        print_help(std::cerr, all);
        return 2;
    }
    const std::string_view first = args[1];
    if (first == "--help" || first == "-h" || (first == "help" && args.size() == 2)) {
        print_help(std::cout, all);
        return 0;
    }
    if (first == "--version" || first == "version") {
        std::cout << "kvmodel " << KVMODEL_VERSION_STRING << '\n';
        return 0;
    }

    std::string_view name = first;
    std::span<char*> rest = args.subspan(2);
    static std::array<char, 7> help_flag{'-', '-', 'h', 'e', 'l', 'p', '\0'};
    std::array<char*, 1> help_args{help_flag.data()};
    if (first == "help") {
        name = args[2];
        rest = help_args;
    }

    const auto found = std::find_if(
        all.begin(), all.end(), [name](const command& c) { return c.name == name; });
    if (found == all.end()) {
        std::cerr << "kvmodel: unknown command '" << name << "'\n\n";
        print_help(std::cerr, all);
        return 2;
    }
    try {
        return found->run(rest);
    } catch (const std::exception& e) {
        std::cerr << "kvmodel " << name << ": error: " << e.what() << '\n';
    } catch (...) {
        std::cerr << "kvmodel " << name << ": error: unknown exception\n";
    }
    return 1;
}
