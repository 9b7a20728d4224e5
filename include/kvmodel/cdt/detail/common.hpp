// kvmodel/cdt/detail/common.hpp
//
// Index, rank and count arithmetic shared by the map and list engines, as the
// server does it (AEROSPIKE-CDT.md §3, §5): range selectors never fail, they
// clip; single-element selectors fail with OP_NOT_APPLICABLE out of range;
// counts are unsigned on the wire, so a negative count means "to the end".
#pragma once

#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/core/result.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace kvmodel::cdt::detail {

/// A half-open window [begin, end) of positions (indexes or ranks).
struct window {
    std::size_t begin = 0;
    std::size_t end = 0;
    std::size_t size() const noexcept { return end - begin; }
    bool empty() const noexcept { return begin >= end; }
};

/// A coarse view of the wire count: absent or negative = unbounded (see
/// server_count for the exact arithmetic the windows below use).
inline std::optional<std::uint64_t> wire_count(const std::optional<std::int64_t>& count) noexcept {
    if (!count || *count < 0) return std::nullopt;
    return static_cast<std::uint64_t>(*count);
}

/// The count a range selector uses, exactly as the server reads it: left out,
/// UINT32_MAX (its default); negative, the integer's two's complement (it
/// reads the wire integer as unsigned), so -1 means "to the end" in practice.
inline std::uint64_t server_count(const std::optional<std::int64_t>& count) noexcept {
    return count ? static_cast<std::uint64_t>(*count)
                 : std::uint64_t{std::numeric_limits<std::uint32_t>::max()};
}

/// (index, count) over n elements → the selected window (server's
/// calc_index_count_multi): index >= n selects nothing; a negative index
/// counts from the end; an index still before the start shortens the count
/// (server_count) by the overshoot and starts at 0; the window is clipped to n.
inline window index_count_window(std::int64_t index, const std::optional<std::int64_t>& count,
                                 std::size_t n) noexcept {
    auto sn = static_cast<std::int64_t>(n);
    std::uint64_t c = server_count(count);
    if (index >= sn) return {n, n};
    if (index < 0) {
        index += sn;
        if (index < 0) {
            // 0 - index in unsigned arithmetic: -INT64_MIN would overflow.
            auto overshoot = std::uint64_t{0} - static_cast<std::uint64_t>(index);
            if (c <= overshoot) return {0, 0};
            c -= overshoot;
            index = 0;
        }
    }
    auto b = static_cast<std::size_t>(index);
    std::size_t room = n - b;
    std::size_t len = c < room ? static_cast<std::size_t>(c) : room;
    return {b, b + len};
}

/// A relative window: positions [anchor + rel, anchor + rel + count), where a
/// start before 0 shortens the count (server_count) by the overshoot
/// (server's calc_rel_index_count), clipped to n.
inline window relative_window(std::size_t anchor, std::int64_t rel,
                              const std::optional<std::int64_t>& count, std::size_t n) noexcept {
    std::uint64_t c = server_count(count);
    // A start past INT64_MAX is past any end; computing it would overflow.
    if (rel > 0 && static_cast<std::int64_t>(anchor) > INT64_MAX - rel) return {n, n};
    std::int64_t start = static_cast<std::int64_t>(anchor) + rel;
    if (start < 0) {
        auto overshoot = std::uint64_t{0} - static_cast<std::uint64_t>(start);
        if (c <= overshoot) return {0, 0};
        c -= overshoot;
        start = 0;
    }
    auto b = static_cast<std::size_t>(start);
    if (b >= n) return {n, n};
    std::size_t room = n - b;
    std::size_t len = c < room ? static_cast<std::size_t>(c) : room;
    return {b, b + len};
}

/// A single index or rank over n elements: negative counts from the end;
/// nullopt when out of range (→ OP_NOT_APPLICABLE).
inline std::optional<std::size_t> single_position(std::int64_t i, std::size_t n) noexcept {
    auto sn = static_cast<std::int64_t>(n);
    if (i < 0) i += sn;
    if (i < 0 || i >= sn) return std::nullopt;
    return static_cast<std::size_t>(i);
}

/// A decoded wire return type.
struct decoded_return {
    return_type type = return_type::none;
    bool inverted = false;
};

/// Splits the wire value into type and INVERTED; nullopt when the type is not
/// one Aerospike defines for this container kind (maps also allow KEY,
/// KEY_VALUE, UNORDERED_MAP, ORDERED_MAP).
inline std::optional<decoded_return> decode_return(std::int32_t wire, bool for_map) noexcept {
    decoded_return d;
    d.inverted = (wire & return_inverted) != 0;
    std::int32_t base = wire & ~return_inverted;
    switch (base) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 7: case 13:
        d.type = static_cast<return_type>(base);
        return d;
    case 6: case 8: case 16: case 17:
        if (!for_map) return std::nullopt;
        d.type = static_cast<return_type>(base);
        return d;
    default: return std::nullopt;
    }
}

/// A namespace's max-record-size when nothing says otherwise (Aerospike 8.x:
/// 1 MiB). Ops that could grow a bin without bound (list padding) are refused
/// with RECORD_TOO_BIG against it before anything is allocated.
inline constexpr std::size_t default_max_record_size = 1048576;

/// The error for a failed op, naming it: "map_get_by_index: index 200 out of range (size 3)".
inline error op_error(status code, op_code c, const std::string& what) {
    return error{code, std::string(op_name(c)) + ": " + what};
}

} // namespace kvmodel::cdt::detail
