// kvmodel/exp/hook.hpp
//
// What a store needs to honour expressions without compiling the expression
// engine: the record_view an expression reads, and the hook through which
// the engine, when a program includes <kvmodel/exp/eval.hpp> (or build.hpp,
// or kvmodel.hpp), evaluates packed expressions. sim::cluster includes only
// this header, so programs that never use expressions do not compile the
// engine; a program that sets a filter without including the engine gets
// PARAMETER_ERROR saying so. The hook is set once, before main, and read
// with one atomic load.
#pragma once

#include <kvmodel/core/detail/engine_hook.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace kvmodel::exp {

/// What an expression can see of one record. Without bins (has_bins false:
/// a metadata-only pass) bin and key reads are unknown; without metadata
/// (has_metadata false) the metadata reads are unknown.
struct record_view {
    /// Looks a bin up by name: its value, or nullptr when absent.
    const value* (*find_bin)(const void* ctx, std::string_view name) = nullptr;
    /// Opaque context passed to find_bin as its first argument (the store's
    /// record).
    const void* bins_ctx = nullptr;
    /// False in a metadata-only pass: bin and key reads are then unknown.
    bool has_bins = true;
    /// False when metadata is not available: metadata reads are then unknown.
    bool has_metadata = true;
    /// The key's RIPEMD-160 digest (digest_modulo reads bytes 16..19).
    std::array<std::uint8_t, 20> digest{};
    /// The set's name; empty without a set.
    std::string_view set_name;
    /// The stored user key, nullptr when the key is not stored.
    const value* user_key = nullptr;
    /// Expiry, Unix seconds; 0 = never.
    std::int64_t void_time = 0;
    /// Last write, Unix milliseconds.
    std::int64_t last_update_ms = 0;
    /// The clock, Unix milliseconds.
    std::int64_t now_ms = 0;
    /// The record's stored size in bytes (kv/record_size.hpp).
    std::int64_t record_size = 0;
};

namespace detail {

/// The engine's entry points, as a store calls them.
struct engine_hooks {
    /// A filter on a record: 1 true, 0 false, 2 unknown; PARAMETER_ERROR
    /// when the bytes are no boolean expression.
    result<std::uint8_t> (*filter)(std::span<const std::uint8_t> packed, const record_view& r);
    /// An expression's value on a record (nullopt: unknown); PARAMETER_ERROR
    /// when the bytes are no expression.
    result<std::optional<value>> (*eval)(std::span<const std::uint8_t> packed,
                                         const record_view& r);
    /// An expression's static result type (the server's exp.c result_type:
    /// 2 int, 3 string, 4 list, 5 map, 6 blob, ...); PARAMETER_ERROR when
    /// the bytes are no expression.
    result<std::uint8_t> (*type)(std::span<const std::uint8_t> packed);
};

inline kvmodel::detail::engine_hook<const engine_hooks*>& engine() noexcept {
    static kvmodel::detail::engine_hook<const engine_hooks*> h;
    return h;
}

/// The engine, or PARAMETER_ERROR naming what to include.
inline result<const engine_hooks*> need_engine(std::string_view cmd) {
    return engine().need(cmd, "expressions need the expression engine",
                         "<kvmodel/exp/eval.hpp> (or <kvmodel/exp/build.hpp>)");
}

} // namespace detail
} // namespace kvmodel::exp
