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
inline constexpr std::uint8_t unknown = 0;
inline constexpr std::uint8_t cmp_eq = 1;
inline constexpr std::uint8_t cmp_ne = 2;
inline constexpr std::uint8_t cmp_gt = 3;
inline constexpr std::uint8_t cmp_ge = 4;
inline constexpr std::uint8_t cmp_lt = 5;
inline constexpr std::uint8_t cmp_le = 6;
inline constexpr std::uint8_t cmp_regex = 7;
inline constexpr std::uint8_t cmp_geo = 8;
inline constexpr std::uint8_t in_list = 9;
inline constexpr std::uint8_t and_ = 16;
inline constexpr std::uint8_t or_ = 17;
inline constexpr std::uint8_t not_ = 18;
inline constexpr std::uint8_t exclusive = 19;
inline constexpr std::uint8_t add = 20;
inline constexpr std::uint8_t sub = 21;
inline constexpr std::uint8_t mul = 22;
inline constexpr std::uint8_t div = 23;
inline constexpr std::uint8_t pow = 24;
inline constexpr std::uint8_t log = 25;
inline constexpr std::uint8_t mod = 26;
inline constexpr std::uint8_t abs = 27;
inline constexpr std::uint8_t floor = 28;
inline constexpr std::uint8_t ceil = 29;
inline constexpr std::uint8_t to_int = 30;
inline constexpr std::uint8_t to_float = 31;
inline constexpr std::uint8_t int_and = 32;
inline constexpr std::uint8_t int_or = 33;
inline constexpr std::uint8_t int_xor = 34;
inline constexpr std::uint8_t int_not = 35;
inline constexpr std::uint8_t int_lshift = 36;
inline constexpr std::uint8_t int_rshift = 37;
inline constexpr std::uint8_t int_arshift = 38;
inline constexpr std::uint8_t int_count = 39;
inline constexpr std::uint8_t int_lscan = 40;
inline constexpr std::uint8_t int_rscan = 41;
inline constexpr std::uint8_t min = 50;
inline constexpr std::uint8_t max = 51;
inline constexpr std::uint8_t digest_modulo = 64;
inline constexpr std::uint8_t device_size = 65;
inline constexpr std::uint8_t last_update = 66;
inline constexpr std::uint8_t since_update = 67;
inline constexpr std::uint8_t void_time = 68;
inline constexpr std::uint8_t ttl = 69;
inline constexpr std::uint8_t set_name = 70;
inline constexpr std::uint8_t key_exists = 71;
inline constexpr std::uint8_t is_tombstone = 72;
inline constexpr std::uint8_t memory_size = 73;
inline constexpr std::uint8_t record_size = 74;
inline constexpr std::uint8_t key = 80;
inline constexpr std::uint8_t bin = 81;
inline constexpr std::uint8_t bin_type = 82;
inline constexpr std::uint8_t result_remove = 100;
inline constexpr std::uint8_t map_keys = 101;
inline constexpr std::uint8_t map_values = 102;
inline constexpr std::uint8_t var_builtin = 122;
inline constexpr std::uint8_t cond = 123;
inline constexpr std::uint8_t var = 124;
inline constexpr std::uint8_t let = 125;
inline constexpr std::uint8_t quote = 126;
inline constexpr std::uint8_t call = 127;
} // namespace code

/// The system a call runs in, and the flag that makes it modify its operand
/// (_AS_EXP_SYS_*).
namespace call_system {
inline constexpr std::uint8_t cdt = 0;
inline constexpr std::uint8_t bits = 1;
inline constexpr std::uint8_t hll = 2;
inline constexpr std::uint8_t modify_local = 0x40;
} // namespace call_system

/// The CDT op code of a call through a context: `[0xff, ctx, [op...]]`.
inline constexpr std::uint8_t cdt_context_eval = 0xff;

/// Particle type numbers (as_particle_type), what bin_type returns.
namespace particle_type {
inline constexpr std::int64_t null = 0;
inline constexpr std::int64_t integer = 1;
inline constexpr std::int64_t floating = 2;
inline constexpr std::int64_t string = 3;
inline constexpr std::int64_t blob = 4;
inline constexpr std::int64_t boolean = 17;
inline constexpr std::int64_t hll = 18;
inline constexpr std::int64_t map = 19;
inline constexpr std::int64_t list = 20;
inline constexpr std::int64_t geojson = 23;
} // namespace particle_type

/// POSIX regex flags cmp_regex passes to regcomp (glibc's values, which the
/// server and the C client's as_regex_flags use).
namespace regex_flags {
inline constexpr std::int64_t none = 0;
inline constexpr std::int64_t extended = 1;
inline constexpr std::int64_t icase = 2;
inline constexpr std::int64_t newline = 4;
inline constexpr std::int64_t nosub = 8;
} // namespace regex_flags

/// exp_write flags (as_exp_write_flags) and exp_read flags (as_exp_read_flags).
namespace write_flags {
inline constexpr std::uint32_t none = 0;
inline constexpr std::uint32_t create_only = 1;
inline constexpr std::uint32_t update_only = 2;
inline constexpr std::uint32_t allow_delete = 4;
inline constexpr std::uint32_t policy_no_fail = 8;
inline constexpr std::uint32_t eval_no_fail = 16;
} // namespace write_flags
namespace read_flags {
inline constexpr std::uint32_t none = 0;
inline constexpr std::uint32_t eval_no_fail = 16;
} // namespace read_flags

/// The server's limit on a packed expression (EXP_MAX_SIZE applies to its
/// compiled form; kvmodel bounds the packed bytes by it).
inline constexpr std::size_t max_packed_size = std::size_t{1024} * 1024;

} // namespace kvmodel::exp
