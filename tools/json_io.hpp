// tools/json_io.hpp
//
// JSON input and output shared by the `kvmodel` tools that read cases
// (`cdt`, `record-size`):
//
// - parse_json: a strict parser over nlohmann's SAX interface that refuses
//   what would otherwise be silently changed or could crash the tool: integer
//   literals beyond the 64-bit range (nlohmann would turn them into doubles),
//   duplicate object keys, and nesting deeper than max_json_depth (deep
//   recursion when the value is later converted, compared or destroyed).
// - read_documents: the input conventions of shared/spec/cdt-json.md — a JSON
//   array of cases, or one case per line — each document with its own parse
//   error and location, so one bad line does not stop the run.
// - dump: compact JSON with ", " and ": " separators, object keys in the
//   order written, as the spec's examples print them.
// - read_input: FILE or "-" (stdin) into memory, with a clear error.
//
// Cost: linear in the input. Nothing here allocates more than the input's own
// size (plus the parsed tree).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvmodel::tools {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

/// Deepest array/object nesting a tool accepts.
inline constexpr std::size_t max_json_depth = 512;

namespace detail {

/// Builds a json tree from SAX events, refusing out-of-range integers,
/// duplicate keys and excessive depth.
class strict_json_builder {
public:
    using number_integer_t = json::number_integer_t;
    using number_unsigned_t = json::number_unsigned_t;
    using number_float_t = json::number_float_t;
    using string_t = json::string_t;
    using binary_t = json::binary_t;

    bool null() { return add(json(nullptr)); }
    bool boolean(bool b) { return add(json(b)); }
    bool number_integer(number_integer_t i) { return add(json(i)); }
    bool number_unsigned(number_unsigned_t u) { return add(json(u)); }
    bool number_float(number_float_t d, const string_t& text) {
        // nlohmann reads an integer literal too large for 64 bits as a double;
        // here that would silently change a key or an index, so refuse it.
        if (text.find_first_of(".eE") == string_t::npos)
            return fail("integer " + abbreviate(text) + " does not fit in 64 bits");
        return add(json(d));
    }
    bool string(string_t& s) { return add(json(std::move(s))); }
    bool binary(binary_t& b) { return add(json::binary(std::move(b))); }
    bool start_object(std::size_t /*elements*/) { return open(json::object()); }
    bool key(string_t& k) {
        json& top = *m_stack.back();
        if (top.contains(k))
            return fail("duplicate object key " + json(k).dump());
        m_key = std::move(k);
        return true;
    }
    bool end_object() {
        m_stack.pop_back();
        return true;
    }
    bool start_array(std::size_t /*elements*/) { return open(json::array()); }
    bool end_array() {
        m_stack.pop_back();
        return true;
    }
    bool parse_error(std::size_t /*position*/,
                     const std::string& /*last_token*/,
                     const nlohmann::detail::exception& e) {
        std::string what = e.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
        if (auto close = what.find("] ");
            what.rfind("[json.exception", 0) == 0 && close != std::string::npos)
            what.erase(0, close + 2);
        if (m_error.empty())
            m_error = what;
        return false;
    }

    json& root() { return m_root; }
    const std::string& error_message() const { return m_error; }

private:
    static std::string abbreviate(const std::string& s) {
        return s.size() <= 40 ? s : s.substr(0, 20) + "..." + s.substr(s.size() - 10);
    }
    bool fail(std::string message) {
        if (m_error.empty())
            m_error = std::move(message);
        return false;
    }
    json* place(json&& v) {
        if (m_stack.empty()) {
            m_root = std::move(v);
            return &m_root;
        }
        json& top = *m_stack.back();
        if (top.is_array()) {
            top.push_back(std::move(v));
            return &top.back();
        }
        json& slot = top[m_key];
        slot = std::move(v);
        return &slot;
    }
    bool add(json&& v) {
        place(std::move(v));
        return true;
    }
    bool open(json&& container) {
        if (m_stack.size() >= max_json_depth)
            return fail("nesting deeper than " + std::to_string(max_json_depth) + " levels");
        m_stack.push_back(place(std::move(container)));
        return true;
    }

    json m_root;
    std::vector<json*> m_stack;
    std::string m_key;
    std::string m_error;
};

inline void dump_string(std::string& out, const std::string& s) {
    // Replace invalid UTF-8 rather than throw: output must never crash the tool.
    out += json(s).dump(-1, ' ', false, json::error_handler_t::replace);
}

template <class Json>
void dump_into(std::string& out, const Json& j) {
    if (j.is_object()) {
        out += '{';
        bool first = true;
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (!first)
                out += ", ";
            first = false;
            dump_string(out, it.key());
            out += ": ";
            dump_into(out, it.value());
        }
        out += '}';
    } else if (j.is_array()) {
        out += '[';
        bool first = true;
        for (const auto& e : j) {
            if (!first)
                out += ", ";
            first = false;
            dump_into(out, e);
        }
        out += ']';
    } else if (j.is_string()) {
        dump_string(out, j.template get_ref<const std::string&>());
    } else {
        out += j.dump(-1, ' ', false, Json::error_handler_t::replace);
    }
}

} // namespace detail

/// Parses text as one JSON value. On failure returns nullopt and sets error to
/// a message saying what and where ("parse error at line 1, column 5: ...").
/// Complexity: O(text size).
inline std::optional<json> parse_json(std::string_view text, std::string& error) {
    detail::strict_json_builder builder;
    bool ok = false;
    try {
        ok = json::sax_parse(text, &builder, json::input_format_t::json, true, false);
    } catch (const std::exception& e) {
        // sax_parse reports through the handler; this only guards the unexpected.
        error = e.what();
        return std::nullopt;
    }
    if (!ok) {
        error = builder.error_message().empty() ? "invalid JSON" : builder.error_message();
        return std::nullopt;
    }
    return std::move(builder.root());
}

/// Compact JSON with ", " and ": " separators; keys in the object's own order.
/// Complexity: O(size of j).
template <class Json>
std::string dump(const Json& j) {
    std::string out;
    detail::dump_into(out, j);
    return out;
}

/// One input document: its JSON, or why it could not be read, and where it came
/// from ("line 3", "element 2").
struct document {
    std::optional<json> value;
    std::string error;
    std::string where;
};

/// Splits the input into documents, as shared/spec/cdt-json.md reads cases:
/// input that is one JSON array gives its elements; input that is one other
/// JSON value gives that value; otherwise each non-blank line is a document.
/// Input starting with '[' that is not one array and whose first line is not
/// a JSON value on its own is a broken array: one document carrying the
/// error. Complexity: O(input size).
inline std::vector<document> read_documents(std::string_view input) {
    std::vector<document> docs;
    std::size_t first = input.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos)
        return docs;
    if (input[first] == '[') {
        std::string error;
        if (std::optional<json> all = parse_json(input, error)) {
            std::size_t i = 0;
            for (json& e : *all) {
                docs.push_back({std::move(e), {}, "element " + std::to_string(i)});
                ++i;
            }
            return docs;
        }
        // Not one array. If the first line is a JSON value on its own, this is
        // the one-per-line form (whose first line happens to be an array);
        // otherwise it is a broken array, and that is the error to report.
        std::size_t eol = input.find('\n', first);
        std::string ignored;
        if (eol == std::string_view::npos ||
            !parse_json(input.substr(first, eol - first), ignored)) {
            docs.push_back({std::nullopt, error, "input"});
            return docs;
        }
    } else {
        std::string error;
        if (std::optional<json> one = parse_json(input, error)) {
            docs.push_back({std::move(one), {}, "input"});
            return docs;
        }
    }
    std::size_t line_no = 0;
    std::size_t pos = 0;
    while (pos <= input.size()) {
        std::size_t nl = input.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = input.size();
        std::string_view line = input.substr(pos, nl - pos);
        ++line_no;
        pos = nl + 1;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos)
            continue;
        std::string error;
        std::optional<json> one = parse_json(line, error);
        docs.push_back({std::move(one), error, "line " + std::to_string(line_no)});
        if (nl == input.size())
            break;
    }
    return docs;
}

/// Reads FILE, or stdin for "-". On failure returns nullopt and sets error.
inline std::optional<std::string>
read_input(const std::string& path, std::istream& in, std::string& error) {
    std::ostringstream buf;
    if (path == "-") {
        buf << in.rdbuf();
        if (in.bad()) {
            error = "cannot read standard input";
            return std::nullopt;
        }
        return std::move(buf).str();
    }
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        error = "'" + path + "' is a directory";
        return std::nullopt;
    }
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        error = "cannot open '" + path + "'";
        return std::nullopt;
    }
    buf << file.rdbuf();
    if (file.bad()) {
        error = "cannot read '" + path + "'";
        return std::nullopt;
    }
    return std::move(buf).str();
}

/// A short rendering of a JSON value for error messages.
inline std::string brief(const json& j) {
    std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
    if (s.size() > 60)
        s = s.substr(0, 57) + "...";
    return s;
}

/// "an integer", "a string", ... for error messages.
inline std::string kind_of(const json& j) {
    switch (j.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::boolean:
        return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
        return "an integer";
    case json::value_t::number_float:
        return "a number with a fraction";
    case json::value_t::string:
        return "a string";
    case json::value_t::array:
        return "an array";
    case json::value_t::object:
        return "an object";
    default:
        return "an unsupported JSON value";
    }
}

} // namespace kvmodel::tools
