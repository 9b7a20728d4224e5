// kvmodel/core/json.hpp
//
// Values to and from the JSON notation of shared/spec/cdt-json.md, which the
// `kvmodel` tools read and write:
//   int, string, true/false, null (nil), arrays (lists);
//   {"$double": x}, {"$bytes": "0aff"}, {"$map": [[k, v], ...]},
//   {"$nil": true}, {"$inf": true}, {"$wildcard": true}.
// On input a plain JSON number with a fraction or exponent is a double. On
// output doubles are always {"$double": x} (NaN and infinities as the strings
// "NaN", "Infinity", "-Infinity") and maps list their entries in stored (key)
// order, so to_json and value_from_json round-trip exactly. Container order
// flags have no notation and are not carried. parse_json reads the text itself
// and refuses integer literals beyond 64 bits instead of turning them into
// doubles. Strings are bytes here; nlohmann's dump() needs them to be UTF-8.
#pragma once

#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace kvmodel {

/// A value in the JSON notation of the header comment (round-trips through
/// value_from_json). O(size of the value); never fails.
inline nlohmann::json to_json(const value& v) {
    using nlohmann::json;
    switch (v.type()) {
    case value_type::nil: return nullptr;
    case value_type::boolean: return v.as_bool();
    case value_type::integer: return v.as_int();
    case value_type::floating: {
        double d = v.as_double();
        if (std::isnan(d)) return json{{"$double", "NaN"}};
        if (std::isinf(d)) return json{{"$double", d > 0 ? "Infinity" : "-Infinity"}};
        return json{{"$double", d}};
    }
    case value_type::string: return v.as_string();
    case value_type::bytes: {
        static constexpr char hex[] = "0123456789abcdef";
        std::string s;
        s.reserve(v.as_bytes().size() * 2);
        for (std::uint8_t b : v.as_bytes()) {
            s += hex[b >> 4];
            s += hex[b & 15];
        }
        return json{{"$bytes", s}};
    }
    case value_type::list: {
        json a = json::array();
        for (const value& e : v.as_list()) a.push_back(to_json(e));
        return a;
    }
    case value_type::map: {
        json a = json::array();
        for (const map_entry& e : v.as_map()) a.push_back(json::array({to_json(e.key), to_json(e.val)}));
        return json{{"$map", a}};
    }
    case value_type::inf: return json{{"$inf", true}};
    case value_type::wildcard: return json{{"$wildcard", true}};
    }
    return nullptr;
}

namespace detail {

inline result<bytes> parse_hex(const std::string& s, const std::string& where) {
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    if (s.size() % 2 != 0)
        return fail(status::parameter_error, where + ": hex string has an odd number of digits");
    bytes out;
    out.reserve(s.size() / 2);
    for (std::size_t i = 0; i < s.size(); i += 2) {
        int hi = nibble(s[i]);
        int lo = nibble(s[i + 1]);
        if (hi < 0 || lo < 0)
            return fail(status::parameter_error,
                        where + ": '" + s.substr(i, 2) + "' is not a hex byte");
        out.push_back(static_cast<std::uint8_t>(hi * 16 + lo));
    }
    return out;
}

/// Deepest list/map nesting value_from_json reads: deeper input is refused
/// rather than risking the stack (a tool's guard, not an Aerospike limit).
inline constexpr std::size_t json_max_depth = 1000;

// `where` is the path so far; each level appends its step and cuts it off
// again, so a long array costs no string per element.
inline result<value> from_json_at(const nlohmann::json& j, std::string& where, std::size_t depth) {
    using nlohmann::json;
    if ((j.is_array() || j.is_object()) && depth >= json_max_depth)
        return fail(status::parameter_error, where + ": nested deeper than " +
                                                 std::to_string(json_max_depth) + " levels");
    switch (j.type()) {
    case json::value_t::null: return value{};
    case json::value_t::boolean: return value{j.get<bool>()};
    case json::value_t::number_integer: return value{j.get<std::int64_t>()};
    case json::value_t::number_unsigned: {
        auto u = j.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return fail(status::parameter_error,
                        where + ": integer " + std::to_string(u) + " is out of int64 range");
        return value{static_cast<std::int64_t>(u)};
    }
    case json::value_t::number_float: return value{j.get<double>()};
    case json::value_t::string: return value{j.get<std::string>()};
    case json::value_t::array: {
        list l;
        const std::size_t len = where.size();
        std::size_t i = 0;
        for (const json& e : j) {
            where.append("[").append(std::to_string(i++)).append("]");
            auto r = from_json_at(e, where, depth + 1);
            if (!r) return r;
            where.resize(len);
            l.push_back(std::move(r).value());
        }
        return value{std::move(l)};
    }
    case json::value_t::object: {
        // {"$map": [...], "$order": ORDER}: a nested map with that order.
        if (j.size() == 2 && j.contains("$map") && j.contains("$order")) {
            const json& o = j["$order"];
            std::optional<map_order> order;
            if (o == "UNORDERED") order = map_order::unordered;
            if (o == "K_ORDERED") order = map_order::key_ordered;
            if (o == "KV_ORDERED") order = map_order::key_value_ordered;
            if (!order)
                return fail(status::parameter_error,
                            where + ".$order: expected UNORDERED, K_ORDERED or KV_ORDERED, got " + o.dump());
            auto m = from_json_at(json{{"$map", j["$map"]}}, where, depth);
            if (!m) return m;
            m->as_map().set_order(*order);
            return m;
        }
        if (j.size() != 1)
            return fail(status::parameter_error,
                        where + ": an object must be one of $double, $bytes, $map (with an optional "
                                "$order), $nil, $inf, $wildcard, got " + j.dump());
        // Not `*j.items().begin()`: that proxy is a temporary, gone before its
        // key is read (GCC 12 -Wdangling-pointer at -O2).
        const auto first = j.begin();
        const std::string& name = first.key();
        const json& arg = first.value();
        if (name == "$double") {
            if (arg.is_number()) return value{arg.get<double>()};
            if (arg.is_string()) {
                auto s = arg.get<std::string>();
                if (s == "NaN") return value{std::numeric_limits<double>::quiet_NaN()};
                if (s == "Infinity") return value{std::numeric_limits<double>::infinity()};
                if (s == "-Infinity") return value{-std::numeric_limits<double>::infinity()};
            }
            return fail(status::parameter_error, where + ": $double needs a number, got " + arg.dump());
        }
        if (name == "$bytes") {
            if (!arg.is_string())
                return fail(status::parameter_error, where + ": $bytes needs a hex string, got " + arg.dump());
            auto b = parse_hex(arg.get<std::string>(), where + ".$bytes");
            if (!b) return b.error();
            return value{std::move(b).value()};
        }
        if (name == "$map") {
            if (!arg.is_array())
                return fail(status::parameter_error, where + ": $map needs an array of [key, value] pairs");
            map m;
            const std::size_t len = where.size();
            std::size_t i = 0;
            for (const json& pair : arg) {
                where.append(".$map[").append(std::to_string(i++)).append("]");
                if (!pair.is_array() || pair.size() != 2)
                    return fail(status::parameter_error, where + ": expected a [key, value] pair, got " + pair.dump());
                const std::size_t at = where.size();
                where += "[0]";
                auto k = from_json_at(pair[0], where, depth + 1);
                if (!k) return k;
                where.resize(at);
                where += "[1]";
                auto v = from_json_at(pair[1], where, depth + 1);
                if (!v) return v;
                where.resize(len);
                m.put(std::move(k).value(), std::move(v).value());
            }
            return value{std::move(m)};
        }
        if (name == "$nil" || name == "$inf" || name == "$wildcard") {
            if (arg != json(true))
                return fail(status::parameter_error, where + ": " + name + " must be true");
            if (name == "$nil") return value{};
            if (name == "$inf") return value{inf};
            return value{wildcard};
        }
        return fail(status::parameter_error, where + ": unknown tag '" + name + "'");
    }
    default: break;
    }
    return fail(status::parameter_error, where + ": unsupported JSON value " + j.dump());
}

/// value_from_json with the path of j given (kept for callers of the
/// two-argument form).
inline result<value> from_json_at(const nlohmann::json& j, const std::string& where) {
    std::string path = where;
    return from_json_at(j, path, 0);
}

} // namespace detail

/// Parses a value from the cdt-json notation; errors name the JSON path
/// (`where` names the root). Lists and maps nested deeper than
/// detail::json_max_depth levels are refused. Complexity: O(size of j).
inline result<value> value_from_json(const nlohmann::json& j, const std::string& where = "$") {
    std::string path = where;
    return detail::from_json_at(j, path, 0);
}

namespace detail {

// Validates JSON text without building it. Finds integer literals beyond 64
// bits, which nlohmann would quietly read as doubles.
class json_text_check final : public nlohmann::json_sax<nlohmann::json> {
public:
    std::string problem;

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t& text) override {
        if (text.find_first_of(".eE") != std::string::npos) return true;
        problem = "integer " + text + " is out of int64 range";
        return false;
    }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) override {
        problem = ex.what();
        return false;
    }
};

} // namespace detail

/// Parses JSON text for value_from_json. Unlike nlohmann::json::parse it never
/// throws, and an integer literal too big for 64 bits is an error rather than
/// a double (in this notation only a fraction or an exponent makes a double).
/// Complexity: O(text size).
inline result<nlohmann::json> parse_json(std::string_view text) {
    detail::json_text_check check;
    if (!nlohmann::json::sax_parse(text.begin(), text.end(), &check))
        return fail(status::parameter_error, "json: " + check.problem);
    return nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
}

/// parse_json, then value_from_json.
inline result<value> value_from_json_text(std::string_view text) {
    return parse_json(text).and_then([](const nlohmann::json& j) { return value_from_json(j); });
}

} // namespace kvmodel
