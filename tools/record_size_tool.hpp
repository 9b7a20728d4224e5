// tools/record_size_tool.hpp
//
// `kvmodel record-size [FILE|-] [--max-record-size BYTES]`: what records would
// weigh in Aerospike and whether they fit, in the JSON format of
// shared/spec/record-size.md. The sizes are kv/record_size.hpp's — the same
// definition the simulator charges and limits writes by — so the tool and a
// store never disagree.
//
// A record that Aerospike could not store at all (no bins, a bin name over 15
// bytes, a null / INF / WILDCARD bin value, more than 32,767 bins, a set name
// over 63 bytes, send_key without a key) is reported invalid with the reason,
// and so is anything malformed; the run goes on and the exit status is 1.
// Unknown top-level fields (e.g. "expected", "notes") are ignored, as in
// cdt-json.md.
//
// Cost: linear in the input.
#pragma once

#include <kvmodel/core/json.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/record_size.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "json_io.hpp"

namespace kvmodel::tools::record_size_tool {

inline constexpr std::string_view usage_text =
    R"(usage: kvmodel record-size [FILE|-] [--max-record-size BYTES]

What records would weigh in Aerospike (shared/AEROSPIKE-RECORDS.md) and
whether they fit the namespace's max-record-size. Reads FILE, or standard input
for "-" or no FILE: a JSON array of records, or one record per line:

  {"id": "events-6", "set": "", "key": "user-1", "send_key": false,
   "bins": {"events": {"$map": [[1523474230000, ["fav", {"$map": [["sku", 1]]}]]]}},
   "map_order": {"events": "KV_ORDERED"}, "list_order": {}, "persist_index": {}}

bins: bin name -> value in the cdt-json notation ({"$map": [[k, v], ...]},
arrays are lists, {"$double": x}, {"$bytes": hex}). set (default none), key
(int, string or {"$bytes": hex}), send_key (default false: the key is not
stored), map_order / list_order (bin -> UNORDERED | K_ORDERED | KV_ORDERED,
ORDERED | UNORDERED_LIST), persist_index (bin -> bool), ttl (seconds; a record
with a TTL carries a 4-byte void time; default 0 = none).

Prints one line per record, in input order:
  {"id": "events-6", "record_size": 256, "flat_size": 249, "max_record_size": 1048576, "fits": true}
record_size = ceil16(flat_size + 4); fits = flat_size + 4 <= max_record_size.
A malformed record prints {"id": ..., "invalid": "why"}.

options:
  --max-record-size BYTES   the namespace limit, 64 .. 8M (default 1M = 1048576);
                            a K or M suffix multiplies by 1024 or 1048576
  -h, --help                this help

exit status: 0 all records read, 1 some record invalid, 2 bad usage.
)";

/// One record's size, as the tool reports it.
struct sized_record {
    std::size_t flat_size = 0;
    std::size_t record_size = 0;
    bool fits = false;
};

namespace detail {

struct invalid {
    std::string message;
};
[[noreturn]] inline void reject(std::string message) {
    throw invalid{std::move(message)};
}

/// The object at field `name` (bin name -> something), or nullptr.
inline const json* per_bin(const json& rec, std::string_view name) {
    auto it = rec.find(name);
    if (it == rec.end() || it->is_null())
        return nullptr;
    if (!it->is_object())
        reject(std::string(name) + ": expected an object of bin name -> setting, got " +
               brief(*it));
    return &*it;
}

inline value*
bin_value(std::vector<kv::bin>& bins, const std::string& name, const std::string& where) {
    for (kv::bin& b : bins)
        if (b.name == name)
            return &b.val;
    reject(where + ": no bin named '" + name + "' in bins");
}

} // namespace detail

/// Sizes one record given in the record-size.md notation. On failure the
/// error says what is wrong and where. Complexity: linear in the record.
inline result<sized_record> size_record(const json& rec, std::size_t max_record_size) {
    using detail::reject;
    try {
        if (!rec.is_object())
            reject("the record must be a JSON object, got " + kind_of(rec));
        if (auto it = rec.find("id"); it != rec.end() && !it->is_string() && !it->is_null())
            reject("id: expected a string, got " + brief(*it));

        std::string set;
        if (auto it = rec.find("set"); it != rec.end() && !it->is_null()) {
            if (!it->is_string())
                reject("set: expected a string, got " + brief(*it));
            set = it->get<std::string>();
            if (set.size() > kv::max_set_length)
                reject("set: '" + set + "' is " + std::to_string(set.size()) + " bytes, max " +
                       std::to_string(kv::max_set_length));
        }

        std::optional<value> user_key;
        if (auto it = rec.find("key"); it != rec.end() && !it->is_null()) {
            result<value> k = value_from_json(*it, "key");
            if (!k)
                reject(k.error().message);
            if (!k->is_int() && !k->is_string() && !k->is_bytes())
                reject("key: a user key is an integer, a string or {\"$bytes\": hex}, got " +
                       brief(*it));
            user_key = std::move(k).value();
        }
        bool send_key = false;
        if (auto it = rec.find("send_key"); it != rec.end() && !it->is_null()) {
            if (!it->is_boolean())
                reject("send_key: expected true or false, got " + brief(*it));
            send_key = it->get<bool>();
        }
        if (send_key && !user_key)
            reject("send_key: true, but the record has no key");
        // A TTL gives the record a void time (4 bytes); 0 or -1 mean none.
        bool has_void_time = false;
        if (auto it = rec.find("ttl"); it != rec.end() && !it->is_null()) {
            if (!it->is_number_integer() || it->get<std::int64_t>() < -1 ||
                it->get<std::int64_t>() > 0xFFFFFFFDLL)
                reject("ttl: expected seconds (an integer, 0 or -1 for none), got " + brief(*it));
            has_void_time = it->get<std::int64_t>() > 0;
        }

        auto bins_it = rec.find("bins");
        if (bins_it == rec.end())
            reject("bins: missing (an object of bin name -> value)");
        if (!bins_it->is_object())
            reject("bins: expected an object of bin name -> value, got " + brief(*bins_it));
        if (bins_it->empty())
            reject("bins: empty (Aerospike stores no record without bins)");
        if (bins_it->size() > kv::max_bins)
            reject("bins: " + std::to_string(bins_it->size()) + " bins, max " +
                   std::to_string(kv::max_bins));
        std::vector<kv::bin> bins;
        bins.reserve(bins_it->size());
        for (const auto& item : bins_it->items()) {
            std::string where = "bins." + item.key();
            if (result<void> name_ok = kv::check_bin_name(item.key(), "bins"); !name_ok)
                reject(name_ok.error().message);
            if (item.value().is_null())
                reject(where + ": null is not a stored value (writing nil deletes the bin)");
            result<value> v = value_from_json(item.value(), where);
            if (!v)
                reject(v.error().message);
            if (result<void> storable = kv::check_bin_value(*v, "bins", item.key()); !storable)
                reject(storable.error().message);
            bins.push_back(kv::bin{item.key(), std::move(v).value()});
        }

        if (const json* orders = detail::per_bin(rec, "map_order")) {
            for (const auto& item : orders->items()) {
                std::string where = "map_order." + item.key();
                value* v = detail::bin_value(bins, item.key(), where);
                if (!v->is_map())
                    reject(where + ": bin '" + item.key() + "' is not a map");
                const json& o = item.value();
                const std::string* s = o.is_string() ? &o.get_ref<const std::string&>() : nullptr;
                if (s != nullptr && *s == "UNORDERED")
                    v->as_map().set_order(map_order::unordered);
                else if (s != nullptr && *s == "K_ORDERED")
                    v->as_map().set_order(map_order::key_ordered);
                else if (s != nullptr && *s == "KV_ORDERED")
                    v->as_map().set_order(map_order::key_value_ordered);
                else
                    reject(where + ": expected UNORDERED, K_ORDERED or KV_ORDERED, got " +
                           brief(o));
            }
        }
        if (const json* orders = detail::per_bin(rec, "list_order")) {
            for (const auto& item : orders->items()) {
                std::string where = "list_order." + item.key();
                value* v = detail::bin_value(bins, item.key(), where);
                if (!v->is_list())
                    reject(where + ": bin '" + item.key() + "' is not a list");
                const json& o = item.value();
                const std::string* s = o.is_string() ? &o.get_ref<const std::string&>() : nullptr;
                if (s != nullptr && *s == "ORDERED") {
                    // Stored sorted; the order changes no size, but keep the value honest.
                    v->as_list().sort();
                    v->as_list().set_order_flag(list_order::ordered);
                } else if (s != nullptr && *s == "UNORDERED_LIST") {
                    v->as_list().set_order_flag(list_order::unordered);
                } else {
                    reject(where + ": expected ORDERED or UNORDERED_LIST, got " + brief(o));
                }
            }
        }
        if (const json* persist = detail::per_bin(rec, "persist_index")) {
            for (const auto& item : persist->items()) {
                std::string where = "persist_index." + item.key();
                value* v = detail::bin_value(bins, item.key(), where);
                if (!item.value().is_boolean())
                    reject(where + ": expected true or false, got " + brief(item.value()));
                bool p = item.value().get<bool>();
                if (v->is_map())
                    v->as_map().set_persist_index(p);
                else if (v->is_list())
                    v->as_list().set_persist_index(p);
                else
                    reject(where + ": bin '" + item.key() + "' is not a list or a map");
            }
        }

        sized_record out;
        out.flat_size = kv::record_size::flat(set, send_key ? user_key : std::nullopt, has_void_time, bins);
        out.record_size = kv::record_size::stored(out.flat_size);
        out.fits = kv::record_size::fits(out.flat_size, max_record_size);
        return out;
    } catch (detail::invalid& e) {
        return fail(status::parameter_error, std::move(e.message));
    }
}

/// Parses a --max-record-size value: BYTES, or with a K / M suffix.
inline std::optional<std::size_t> parse_size(std::string_view s) {
    std::uint64_t mult = 1;
    if (!s.empty() && (s.back() == 'K' || s.back() == 'k'))
        mult = 1024;
    if (!s.empty() && (s.back() == 'M' || s.back() == 'm'))
        mult = 1024 * 1024;
    if (mult != 1)
        s.remove_suffix(1);
    std::uint64_t n = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size())
        return std::nullopt;
    if (n > (std::uint64_t{1} << 40) / mult)
        return std::nullopt;
    return static_cast<std::size_t>(n * mult);
}

/// Sizes every record of input, one output line each. Returns 0, or 1 when a
/// record was invalid. Complexity: linear in the input.
inline int size_all(std::string_view input, std::size_t max_record_size, std::ostream& out) {
    int status_code = 0;
    for (document& doc : read_documents(input)) {
        ordered_json line;
        json id = nullptr;
        if (doc.value && doc.value->is_object())
            if (auto it = doc.value->find("id"); it != doc.value->end())
                id = *it;
        line["id"] = id;
        if (!doc.value) {
            line["invalid"] = doc.where + ": " + doc.error;
            status_code = 1;
        } else if (result<sized_record> r = size_record(*doc.value, max_record_size); !r) {
            line["invalid"] = r.error().message;
            status_code = 1;
        } else {
            line["record_size"] = r->record_size;
            line["flat_size"] = r->flat_size;
            line["max_record_size"] = max_record_size;
            line["fits"] = r->fits;
        }
        out << dump(line) << '\n';
    }
    return status_code;
}

/// The command: args are those after `record-size`. Returns the exit status.
inline int
run(std::span<const std::string> args, std::istream& in, std::ostream& out, std::ostream& err) {
    std::optional<std::string> path;
    std::size_t max_record_size = kv::default_max_record_size;
    bool options_done = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (!options_done && (a == "-h" || a == "--help")) {
            out << usage_text;
            return 0;
        }
        if (!options_done && a == "--") {
            options_done = true;
            continue;
        }
        if (!options_done && (a == "--max-record-size" || a.rfind("--max-record-size=", 0) == 0)) {
            std::string v;
            if (a == "--max-record-size") {
                if (i + 1 >= args.size()) {
                    err << "kvmodel record-size: --max-record-size needs a value (bytes)\n";
                    return 2;
                }
                v = args[++i];
            } else {
                v = a.substr(std::string_view("--max-record-size=").size());
            }
            std::optional<std::size_t> n = parse_size(v);
            if (!n || *n < kv::min_max_record_size || *n > kv::max_max_record_size) {
                err << "kvmodel record-size: --max-record-size '" << v
                    << "' is not a size from 64 to 8M (8388608) bytes\n";
                return 2;
            }
            max_record_size = *n;
            continue;
        }
        if (!options_done && a.size() > 1 && a[0] == '-') {
            err << "kvmodel record-size: unknown option '" << a
                << "' (a FILE starting with '-' goes after '--')\n"
                << "usage: kvmodel record-size [FILE|-] [--max-record-size BYTES]\n";
            return 2;
        }
        if (path) {
            err << "kvmodel record-size: more than one FILE ('" << *path << "', '" << a << "')\n";
            return 2;
        }
        path = a;
    }
    std::string error;
    std::optional<std::string> input = read_input(path.value_or("-"), in, error);
    if (!input) {
        err << "kvmodel record-size: " << error << '\n';
        return 1;
    }
    int rc = size_all(*input, max_record_size, out);
    if (rc != 0)
        err << "kvmodel record-size: some records are invalid (see \"invalid\")\n";
    return rc;
}

} // namespace kvmodel::tools::record_size_tool
