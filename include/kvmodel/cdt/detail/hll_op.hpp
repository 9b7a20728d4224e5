// kvmodel/cdt/detail/hll_op.hpp
//
// The HLL operation vocabulary without its engine: what kv::operation holds
// (cdt::hll_op, its codes, flags, limits and names) and the hook through
// which a store reaches the engine. cdt/hll_ops.hpp (the builders and
// cdt::apply_hll_op) includes this; kv/operation.hpp includes only this, so
// a file that never builds an HLL op never compiles the HLL engine.
//
// The engine registers itself in hll_op's constructor, which is defined with
// it: every HLL op a program makes was made where the engine is compiled, so
// a store that finds an HLL op finds the engine (else it answers
// PARAMETER_ERROR, never a crash). The hook is read with one atomic load.
#pragma once

#include <kvmodel/config.hpp>
#include <kvmodel/core/detail/engine_hook.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/status.hpp>
#include <kvmodel/core/value.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvmodel::cdt {

/// HLL write flags (as_hll_write_flags), OR-able.
namespace hll_write_flags {
/// Default: create the bin or update it.
inline constexpr std::uint64_t none = 0;
/// Fail BIN_EXISTS_ERROR if the bin exists.
inline constexpr std::uint64_t create_only = 1;
/// Fail BIN_NOT_FOUND if the bin does not exist.
inline constexpr std::uint64_t update_only = 2;
/// Do nothing (nil) instead of failing on a flag's condition.
inline constexpr std::uint64_t no_fail = 4;
/// set_union: allow the result to have fewer index / minhash bits than the bin.
inline constexpr std::uint64_t allow_fold = 8;
} // namespace hll_write_flags

/// HLL operation policy (as_hll_policy): the write flags.
struct hll_policy {
    /// OR of hll_write_flags.
    std::uint64_t flags = hll_write_flags::none;

    /// Flags equal.
    friend bool operator==(const hll_policy&, const hll_policy&) = default;
};

/// The sketch limits (the server's).
namespace hll_limits {
/// Fewest index bits.
inline constexpr int min_index_bits = 4;
/// Most index bits.
inline constexpr int max_index_bits = 16;
/// Fewest minhash bits, when there are any.
inline constexpr int min_minhash_bits = 4;
/// Most minhash bits (64 - 6 - 7).
inline constexpr int max_minhash_bits = 51;
/// Most index + minhash bits.
inline constexpr int max_index_and_minhash_bits = 64;
/// Bits of the HLL part of a register.
inline constexpr int hll_bits = 6;
/// Bytes before the registers.
inline constexpr std::size_t header_bytes = 11;
} // namespace hll_limits

/// Every HLL operation, numbered as on the wire (as_hll_op). The names are
/// the cdt-json op names (shared/spec/cdt-json.md, "HyperLogLog bins").
enum class hll_op_code : std::uint8_t {
    hll_init = 0,
    hll_add = 1,
    hll_set_union = 2,
    hll_refresh_count = 3,
    hll_fold = 4,
    hll_get_count = 50,
    hll_get_union = 51,
    hll_get_union_count = 52,
    hll_get_intersect_count = 53,
    hll_get_similarity = 54,
    hll_describe = 55,
    hll_may_contain = 56,
};

/// Whether an op only reads (reads never create or change the bin).
constexpr bool is_hll_read(hll_op_code c) noexcept {
    return static_cast<std::uint8_t>(c) >= 50;
}

/// The op's name ("hll_init", ...), as the server and cdt-json name it.
constexpr std::string_view hll_op_name(hll_op_code c) noexcept {
    switch (c) {
    case hll_op_code::hll_init:
        return "hll_init";
    case hll_op_code::hll_add:
        return "hll_add";
    case hll_op_code::hll_set_union:
        return "hll_set_union";
    case hll_op_code::hll_refresh_count:
        return "hll_refresh_count";
    case hll_op_code::hll_fold:
        return "hll_fold";
    case hll_op_code::hll_get_count:
        return "hll_get_count";
    case hll_op_code::hll_get_union:
        return "hll_get_union";
    case hll_op_code::hll_get_union_count:
        return "hll_get_union_count";
    case hll_op_code::hll_get_intersect_count:
        return "hll_get_intersect_count";
    case hll_op_code::hll_get_similarity:
        return "hll_get_similarity";
    case hll_op_code::hll_describe:
        return "hll_describe";
    case hll_op_code::hll_may_contain:
        return "hll_may_contain";
    }
    return "?";
}

/// Every HLL op code, in wire order.
inline constexpr std::array<hll_op_code, 12> all_hll_op_codes = {
    hll_op_code::hll_init,
    hll_op_code::hll_add,
    hll_op_code::hll_set_union,
    hll_op_code::hll_refresh_count,
    hll_op_code::hll_fold,
    hll_op_code::hll_get_count,
    hll_op_code::hll_get_union,
    hll_op_code::hll_get_union_count,
    hll_op_code::hll_get_intersect_count,
    hll_op_code::hll_get_similarity,
    hll_op_code::hll_describe,
    hll_op_code::hll_may_contain,
};

/// The hll_op_code for a name, if it is one.
constexpr std::optional<hll_op_code> hll_op_from_name(std::string_view name) noexcept {
    for (hll_op_code c : all_hll_op_codes)
        if (hll_op_name(c) == name)
            return c;
    return std::nullopt;
}

/// One HLL operation. The fields an op reads are fixed by its code and by
/// n_args, the number of arguments it carries on the wire (the builders set
/// what the C client sends; an expression may send fewer): init reads
/// [index_bit_count, mh_bit_count, policy], add [list, index_bit_count,
/// mh_bit_count, policy], set_union [hlls, policy], fold [index_bit_count],
/// get_union / get_union_count / get_intersect_count / get_similarity
/// [hlls], may_contain [list]. -1 bit counts mean "unset" (the bin's, or 0
/// minhash bits for a new bin).
struct hll_op {
    /// An hll_get_count with no arguments, every field default. Defined with
    /// the engine (cdt/hll_ops.hpp) and registers it (detail::hll_engine), so
    /// a program that holds an HLL op can have a store apply it.
    KVMODEL_DECL hll_op() noexcept;

    /// Which operation.
    hll_op_code code = hll_op_code::hll_get_count;
    /// How many of the op's arguments are present, in the order above.
    std::uint8_t n_args = 0;
    /// init / add / fold: index bits (4..16), or -1.
    std::int64_t index_bit_count = -1;
    /// init / add: minhash bits (0 or 4..51), or -1.
    std::int64_t mh_bit_count = -1;
    /// add / may_contain: the elements (no lists or maps).
    std::vector<value> list;
    /// set_union and the union / intersect / similarity reads: sketches.
    std::vector<kvmodel::bytes> hlls;
    /// Modify ops: the write flags.
    hll_policy policy;

    /// Every field equal.
    friend bool operator==(const hll_op&, const hll_op&) = default;
};

namespace detail {

/// cdt::apply_hll_op, as a store calls it.
using hll_engine_fn = result<value> (*)(std::optional<value>& bin, const hll_op& o);

/// The HLL engine, set by the first hll_op constructed (null before).
inline kvmodel::detail::engine_hook<hll_engine_fn>& hll_engine() noexcept {
    static kvmodel::detail::engine_hook<hll_engine_fn> h;
    return h;
}

/// The HLL engine, or PARAMETER_ERROR naming the op and what to include.
inline result<hll_engine_fn> need_hll_engine(const hll_op& o) {
    return hll_engine().need(hll_op_name(o.code), "HLL operations need the HLL engine",
                             "<kvmodel/cdt/hll_ops.hpp>");
}

} // namespace detail
} // namespace kvmodel::cdt
