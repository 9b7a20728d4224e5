// docs/snippets/md_snippets.cpp
//
// Extracts the C++ of Markdown pages into one translation unit, so that the
// code in README.md and docs/ is compiled and run by ctest (docs/CMakeLists.txt)
// instead of being copied by hand and left to rot.
//
//   md_snippets OUT.cpp ROOT PAGE.md...   (PAGE paths relative to ROOT)
//
// Fenced blocks, by info string:
//   ```cpp           a program or declarations: compiled at namespace scope in a
//                    namespace of its own; a block with `int main(` is run.
//   ```cpp fragment  statements: compiled as the body of a function that is
//                    never called (for a call shown on its own).
//   ```output        the next fenced block after a program (prose may come
//                    between): what the program must print to std::cout,
//                    exactly. The costs a page quotes are checked this way.
// Any other block (sh, cmake, text, ...) is left alone. A program's
// `int main()` becomes `auto md_main()` in its namespace (so it may end
// without a return, as main may). `#include` lines of a block go to the top
// of the file; `#line` directives point compiler errors at the page's own
// lines. The generated main() runs the programs in order, captures what each
// prints and fails (exit 1) on a non-zero return or an output that differs
// from its ```output block; a program that crashes is named by the line
// printed before it runs.
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct block {
    std::string page;
    std::string kind;   // "cpp", "fragment", "output"
    int first_line = 0; // the line after the opening fence
    std::vector<std::string> lines;
};

std::string trim(const std::string& s) {
    auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos)
        return {};
    auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

bool read_page(const std::string& root, const std::string& page, std::vector<block>& out) {
    std::ifstream in(root + "/" + page);
    if (!in) {
        std::cerr << "md_snippets: cannot read " << root << "/" << page << "\n";
        return false;
    }
    std::string line;
    int n = 0;
    bool inside = false;
    std::string fence;
    block cur;
    bool keep = false;
    while (std::getline(in, line)) {
        ++n;
        std::string t = trim(line);
        if (!inside) {
            if (t.rfind("```", 0) == 0 || t.rfind("~~~", 0) == 0) {
                inside = true;
                fence = t.substr(0, 3);
                std::string info = trim(t.substr(3));
                cur = block{page, "", n + 1, {}};
                keep = true;
                if (info == "cpp" || info == "c++")
                    cur.kind = "cpp";
                else if (info == "cpp fragment" || info == "c++ fragment")
                    cur.kind = "fragment";
                else if (info == "output")
                    cur.kind = "output";
                else
                    keep = false;
            }
        } else if (t.rfind(fence, 0) == 0 && trim(t.substr(3)).empty()) {
            inside = false;
            if (keep)
                out.push_back(cur);
        } else if (keep) {
            cur.lines.push_back(line);
        }
    }
    if (inside) {
        std::cerr << page << ":" << cur.first_line - 1 << ": unterminated code block\n";
        return false;
    }
    return true;
}

// A C++ raw string literal holding s, with a delimiter s does not contain.
std::string raw_literal(const std::string& s) {
    std::string d = "md";
    while (s.find(")" + d + "\"") != std::string::npos)
        d += "_";
    return "R\"" + d + "(" + s + ")" + d + "\"";
}

bool is_main(const block& b) {
    for (const std::string& l : b.lines)
        if (l.find("int main(") != std::string::npos)
            return true;
    return false;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::cerr << "usage: md_snippets OUT.cpp ROOT PAGE.md...\n";
        return 2;
    }
    const std::string out_path = argv[1];
    const std::string root = argv[2];
    std::vector<block> blocks;
    for (int i = 3; i < argc; ++i)
        if (!read_page(root, argv[i], blocks))
            return 1;

    std::set<std::string> includes;
    std::ostringstream body;
    struct run {
        std::string ns, where;
        bool has_output = false;
        std::string output;
    };
    std::vector<run> runs;
    int count = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const block& b = blocks[i];
        const std::string where = b.page + ":" + std::to_string(b.first_line - 1);
        if (b.kind == "output") {
            std::cerr << where << ": an ```output block must follow a ```cpp block with a main\n";
            return 1;
        }
        const std::string ns = "md_snippet_" + std::to_string(++count);
        body << "namespace " << ns << " {\n";
        if (b.kind == "fragment")
            body << "[[maybe_unused]] void fragment() {\n";
        body << "#line " << b.first_line << " \"" << root << "/" << b.page << "\"\n";
        for (const std::string& l : b.lines) {
            if (trim(l).rfind("#include", 0) == 0) {
                includes.insert(trim(l));
                body << "\n"; // keep the line numbers
            } else if (auto m = l.find("int main("); m != std::string::npos) {
                // main() may end without a return; a function in a namespace
                // may not, unless its return type is deduced (void then).
                body << l.substr(0, m) << "auto md_main(" << l.substr(m + 9) << "\n";
            } else {
                body << l << "\n";
            }
        }
        if (b.kind == "fragment")
            body << "}\n";
        body << "} // namespace " << ns << "\n\n";
        if (b.kind == "cpp" && is_main(b)) {
            run r{ns, where, false, {}};
            if (i + 1 < blocks.size() && blocks[i + 1].kind == "output") {
                r.has_output = true;
                for (const std::string& l : blocks[i + 1].lines)
                    r.output += l + "\n";
                ++i;
            }
            runs.push_back(r);
        }
    }

    std::ostringstream file;
    file << "// Generated by md_snippets from the Markdown pages; do not edit.\n";
    for (const std::string& inc : includes)
        file << inc << "\n";
    file << "#include <exception>\n#include <iostream>\n#include <sstream>\n#include "
            "<string>\n#include <type_traits>\n\n";
    file << body.str();
    file << "#line 1 \"md_snippets_main\"\n";
    file << "template <class F>\nint md_run(F f) {\n"
         << "    if constexpr (std::is_void_v<std::invoke_result_t<F>>) {\n"
         << "        f();\n        return 0;\n    } else {\n        return f();\n    }\n}\n\n";
    file << "int main() {\n    int failures = 0;\n";
    for (const run& r : runs) {
        // The page and line first, straight to stdout: a program that
        // crashes is then named even though its captured output is lost.
        file << "    {\n        std::cout << \"--- " << r.where << "\\n\" << std::flush;\n"
             << "        std::ostringstream captured;\n"
             << "        std::streambuf* old = std::cout.rdbuf(captured.rdbuf());\n"
             << "        int status = 1;\n"
             << "        try {\n"
             << "            status = md_run(&" << r.ns << "::md_main);\n"
             << "        } catch (const std::exception& e) {\n"
             << "            std::cerr << \"exception: \" << e.what() << \"\\n\";\n"
             << "        }\n"
             << "        std::cout.rdbuf(old);\n"
             << "        std::cout << captured.str();\n"
             << "        if (status != 0) { ++failures; std::cout << \"FAILED: " << r.where
             << " returned \" << status << \"\\n\"; }\n";
        if (r.has_output)
            file << "        if (captured.str() != std::string(" << raw_literal(r.output)
                 << ")) {\n"
                 << "            ++failures;\n"
                 << "            std::cout << \"FAILED: " << r.where
                 << " printed the above; its ```output block says:\\n\" << "
                 << raw_literal(r.output) << ";\n        }\n";
        file << "    }\n";
    }
    file << "    std::cout << (failures == 0 ? \"all " << runs.size()
         << " programs ran as documented\\n\" : \"documentation snippets failed\\n\");\n"
         << "    return failures == 0 ? 0 : 1;\n}\n";

    // Rewrite only on change: a page saved again unchanged recompiles nothing.
    std::string text = file.str();
    {
        std::ifstream old(out_path);
        std::stringstream cur;
        cur << old.rdbuf();
        if (old && cur.str() == text)
            return 0;
    }
    std::ofstream out(out_path);
    out << text;
    if (!out) {
        std::cerr << "md_snippets: cannot write " << out_path << "\n";
        return 1;
    }
    return 0;
}
