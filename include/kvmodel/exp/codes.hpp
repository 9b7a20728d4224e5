// kvmodel/exp/codes.hpp
//
// The numbers of Aerospike's expression wire format (8.1.2), shared by the
// builder (exp/build.hpp) and the evaluator (exp/eval.hpp): the op codes of
// as/src/base/exp.c, the value types of the C client's as_exp_type, the call
// systems and the particle type numbers bin_type answers with. An expression
// on the wire is msgpack in prefix form: `[op_code, args...]` for an op, a
// bare msgpack scalar for a constant.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kvmodel::exp {

/// Result and value types (as_exp_type): what a bin read, a key read or a
/// CDT call declares it returns. `automatic` exists only in the builder.
enum class type : std::uint8_t {
    nil = 0,
    boolean = 1,
    integer = 2,
    string = 3,
    list = 4,
    map = 5,
    blob = 6,
    floating = 7,
    geojson = 8,
    hll = 9,
    automatic = 10,
};

/// Operation codes on the wire (exp.c's exp_op_code; as_exp.h's _AS_EXP_CODE_*).
namespace code {
inline constexpr std::uint8_t unknown = 0;        ///< unknown(): always unknown
inline constexpr std::uint8_t cmp_eq = 1;         ///< a == b
inline constexpr std::uint8_t cmp_ne = 2;         ///< a != b
inline constexpr std::uint8_t cmp_gt = 3;         ///< a > b
inline constexpr std::uint8_t cmp_ge = 4;         ///< a >= b
inline constexpr std::uint8_t cmp_lt = 5;         ///< a < b
inline constexpr std::uint8_t cmp_le = 6;         ///< a <= b
inline constexpr std::uint8_t cmp_regex = 7;      ///< string matches a POSIX regex (regex_flags)
inline constexpr std::uint8_t cmp_geo = 8;        ///< GeoJSON comparison (refused: no GeoJSON type)
inline constexpr std::uint8_t in_list = 9;        ///< value is an element of a list
inline constexpr std::uint8_t and_ = 16;          ///< logical and
inline constexpr std::uint8_t or_ = 17;           ///< logical or
inline constexpr std::uint8_t not_ = 18;          ///< logical not
inline constexpr std::uint8_t exclusive = 19;     ///< exactly one argument is true
inline constexpr std::uint8_t add = 20;           ///< sum (ints wrap)
inline constexpr std::uint8_t sub = 21;           ///< difference (ints wrap)
inline constexpr std::uint8_t mul = 22;           ///< product (ints wrap)
inline constexpr std::uint8_t div = 23;           ///< quotient (int division by zero: unknown)
inline constexpr std::uint8_t pow = 24;           ///< float power
inline constexpr std::uint8_t log = 25;           ///< float logarithm in a base
inline constexpr std::uint8_t mod = 26;           ///< int remainder (by zero: unknown)
inline constexpr std::uint8_t abs = 27;           ///< absolute value
inline constexpr std::uint8_t floor = 28;         ///< float floor
inline constexpr std::uint8_t ceil = 29;          ///< float ceiling
inline constexpr std::uint8_t to_int = 30;        ///< float to int (truncated; NaN: INT64_MIN)
inline constexpr std::uint8_t to_float = 31;      ///< int to float
inline constexpr std::uint8_t int_and = 32;       ///< bitwise and
inline constexpr std::uint8_t int_or = 33;        ///< bitwise or
inline constexpr std::uint8_t int_xor = 34;       ///< bitwise xor
inline constexpr std::uint8_t int_not = 35;       ///< bitwise not
inline constexpr std::uint8_t int_lshift = 36;    ///< left shift (count modulo 64)
inline constexpr std::uint8_t int_rshift = 37;    ///< logical right shift (count modulo 64)
inline constexpr std::uint8_t int_arshift = 38;   ///< arithmetic right shift (count modulo 64)
inline constexpr std::uint8_t int_count = 39;     ///< count of set bits
inline constexpr std::uint8_t int_lscan = 40;     ///< first bit equal to a value, from the left
inline constexpr std::uint8_t int_rscan = 41;     ///< first bit equal to a value, from the right
inline constexpr std::uint8_t min = 50;           ///< smallest argument
inline constexpr std::uint8_t max = 51;           ///< largest argument
inline constexpr std::uint8_t digest_modulo = 64; ///< the digest (bytes 16..19) modulo n
inline constexpr std::uint8_t device_size = 65;   ///< stored size on device
inline constexpr std::uint8_t last_update = 66;   ///< last write, ns since the Unix epoch
inline constexpr std::uint8_t since_update = 67;  ///< ms since the last write
inline constexpr std::uint8_t void_time = 68;     ///< expiry, ns since the Unix epoch (-1: never)
inline constexpr std::uint8_t ttl = 69;           ///< seconds left to live (-1: never)
inline constexpr std::uint8_t set_name = 70;      ///< the record's set name
inline constexpr std::uint8_t key_exists = 71;    ///< whether the user key is stored
inline constexpr std::uint8_t is_tombstone = 72; ///< whether the record is a tombstone (false here)
inline constexpr std::uint8_t memory_size = 73;  ///< size in memory (0 here: on device)
inline constexpr std::uint8_t record_size = 74;  ///< the record's stored size
inline constexpr std::uint8_t key = 80;          ///< the stored user key, of a declared type
inline constexpr std::uint8_t bin = 81;          ///< a bin's value, of a declared type
inline constexpr std::uint8_t bin_type = 82;     ///< a bin's particle type (particle_type)
inline constexpr std::uint8_t result_remove = 100; ///< path expressions only (unknown elsewhere)
inline constexpr std::uint8_t map_keys = 101;      ///< the keys of a map, as a list
inline constexpr std::uint8_t map_values = 102;    ///< the values of a map, as a list
inline constexpr std::uint8_t var_builtin = 122;   ///< path loop variable (unknown elsewhere)
inline constexpr std::uint8_t cond = 123;          ///< cond(c1, v1, ..., default)
inline constexpr std::uint8_t var = 124;           ///< a let variable's value
inline constexpr std::uint8_t let = 125;           ///< let(def(name, e)..., body)
inline constexpr std::uint8_t quote = 126;         ///< a literal list (not an op)
inline constexpr std::uint8_t call = 127;          ///< a CDT (or bit / HLL) call on a bin or value
} // namespace code

/// The system a call runs in, and the flag that makes it modify its operand
/// (_AS_EXP_SYS_*).
namespace call_system {
inline constexpr std::uint8_t cdt = 0;             ///< CDT (map / list) call
inline constexpr std::uint8_t bits = 1;            ///< bit call (refused)
inline constexpr std::uint8_t hll = 2;             ///< HLL call (as_exp_hll_*)
inline constexpr std::uint8_t modify_local = 0x40; ///< OR-ed in: the call modifies its operand
} // namespace call_system

/// The CDT op code of a call through a context: `[0xff, ctx, [op...]]`.
inline constexpr std::uint8_t cdt_context_eval = 0xff;

/// The CDT op code of a path expression's call (select_by_path,
/// modify_by_path): `[0xfe, ctx, flags]` or `[0xfe, ctx, flags, mod_exp]`.
inline constexpr std::uint8_t cdt_select = 0xfe;

/// Path expression flags (as_exp_path_select_flags, as_exp_path_modify_flags).
/// The low nibble is the mode: what select_by_path returns, or `apply`, which
/// modify_by_path ORs in; `no_fail` makes a step that cannot be evaluated (a
/// filter that is unknown, a map-key result on a list) skip instead of fail.
namespace path_flags {
inline constexpr std::uint32_t matching_tree = 0; ///< the tree from the bin down to the matches
inline constexpr std::uint32_t value = 1;         ///< a list of the matched values
inline constexpr std::uint32_t list_value = 1;    ///< (value)
inline constexpr std::uint32_t map_value = 1;     ///< (value)
inline constexpr std::uint32_t map_key = 2;       ///< a list of the matched map keys
inline constexpr std::uint32_t map_key_value = 3; ///< a flat list key, value, key, value, ...
inline constexpr std::uint32_t apply = 4;         ///< modify_by_path: replace or remove the matches
inline constexpr std::uint32_t no_fail = 0x10;    ///< skip what cannot be evaluated
} // namespace path_flags

/// The loop variables of a path expression (as_exp_loopvar_type): the key
/// (maps), value and index (lists) of the element a filter or a modify
/// expression is looking at.
enum class loopvar : std::uint8_t { key = 0, value = 1, index = 2 };

/// Context step types that only path expressions take (as_cdt_ctx_type):
/// every child, optionally filtered by an expression; an and-filter on the
/// step before; a map's entries whose keys are in a list.
namespace path_ctx {
inline constexpr std::uint32_t exp = 0x04; ///< all children (filter: an expression or `true`)
inline constexpr std::uint32_t map_keys_in = 0x2a; ///< map entries whose key is in a list
inline constexpr std::uint32_t and_filter = 0x204; ///< AND-combined filter on the step before
} // namespace path_ctx

/// Particle type numbers (as_particle_type), what bin_type returns.
namespace particle_type {
inline constexpr std::int64_t null = 0;     ///< no bin
inline constexpr std::int64_t integer = 1;  ///< integer
inline constexpr std::int64_t floating = 2; ///< double
inline constexpr std::int64_t string = 3;   ///< string
inline constexpr std::int64_t blob = 4;     ///< bytes
inline constexpr std::int64_t boolean = 17; ///< boolean
inline constexpr std::int64_t hll = 18;     ///< HyperLogLog
inline constexpr std::int64_t map = 19;     ///< map
inline constexpr std::int64_t list = 20;    ///< list
inline constexpr std::int64_t geojson = 23; ///< GeoJSON
} // namespace particle_type

/// POSIX regex flags cmp_regex passes to regcomp (glibc's values, which the
/// server and the C client's as_regex_flags use).
namespace regex_flags {
inline constexpr std::int64_t none = 0;     ///< basic regex
inline constexpr std::int64_t extended = 1; ///< REG_EXTENDED: extended syntax
inline constexpr std::int64_t icase = 2;    ///< REG_ICASE: ignore case
inline constexpr std::int64_t newline = 4;  ///< REG_NEWLINE: match line by line
inline constexpr std::int64_t nosub = 8;    ///< REG_NOSUB: report only match / no match
} // namespace regex_flags

/// exp_write flags (as_exp_write_flags) and exp_read flags (as_exp_read_flags).
namespace write_flags {
inline constexpr std::uint32_t none = 0;         ///< default: write, creating or replacing the bin
inline constexpr std::uint32_t create_only = 1;  ///< bin must be missing: BIN_EXISTS_ERROR
inline constexpr std::uint32_t update_only = 2;  ///< bin must exist: BIN_NOT_FOUND
inline constexpr std::uint32_t allow_delete = 4; ///< nil deletes the bin (else OP_NOT_APPLICABLE)
inline constexpr std::uint32_t policy_no_fail = 8; ///< flag refusals become no-ops
inline constexpr std::uint32_t eval_no_fail = 16;  ///< unknown: no-op (else OP_NOT_APPLICABLE)
} // namespace write_flags
/// exp_read flags (as_exp_read_flags).
namespace read_flags {
inline constexpr std::uint32_t none = 0;          ///< unknown fails: OP_NOT_APPLICABLE
inline constexpr std::uint32_t eval_no_fail = 16; ///< an unknown value reads as nil instead
} // namespace read_flags

/// The server's limit on a packed expression (EXP_MAX_SIZE applies to its
/// compiled form; kvmodel bounds the packed bytes by it).
inline constexpr std::size_t max_packed_size = std::size_t{1024} * 1024;

} // namespace kvmodel::exp
