// kvmodel/sim/detail/record_engine.hpp
//
// The record-level half of the simulator: a stored record (entry) and the
// server's read and write paths over it (as/src/transaction/read.c and
// write.c), without locking, routing or accounting — cluster.hpp adds those.
//
// Atomicity: the write path changes the stored entry in place under an undo
// log (txn) and rolls it back if any operation, the bin count or the size
// check fails, so a failed command leaves the record exactly as it was.
// Unchanged bins are never copied; a replaced bin's old value is moved into
// the log. A list or map bin mutated by a CDT op keeps its old handle in the
// log, so the first mutation clones the container (values are copy-on-write),
// O(its size) - except for a command's last op when it cannot take the
// record past the size limit (ops_impl::cdt_growth_bound, through a context
// too): nothing after it can fail, so it changes the bin in place, unlogged.
// A blob mutated by a bit op is copied likewise.
#pragma once

#include <kvmodel/cdt/context.hpp> // detail::apply_in_context, for the in-place write
#include <kvmodel/cdt/detail/bit_op.hpp> // the bit engine's hook, not the engine
#include <kvmodel/cdt/detail/hll_op.hpp> // the HLL engine's hook, not the engine
#include <kvmodel/cdt/detail/range_return.hpp> // detail::is_range_return
#include <kvmodel/cdt/engine.hpp>
#include <kvmodel/cdt/ops.hpp>
#include <kvmodel/config.hpp> // KVMODEL_FORCE_INLINE
#include <kvmodel/core/assert.hpp>
#include <kvmodel/core/msgpack_size.hpp>
#include <kvmodel/core/result.hpp>
#include <kvmodel/core/value.hpp>
#include <kvmodel/exp/codes.hpp>
#include <kvmodel/exp/hook.hpp>
#include <kvmodel/kv/key.hpp>
#include <kvmodel/kv/operation.hpp>
#include <kvmodel/kv/policy.hpp>
#include <kvmodel/kv/record.hpp>
#include <kvmodel/kv/record_size.hpp>
#include <kvmodel/kv/status.hpp>
#include <kvmodel/sim/detail/function_ref.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kvmodel::sim::detail {

/// Equality of short names (bins, sets, namespaces) without a call to
/// memcmp, which dominates for names of a few bytes: a name of 4..16 bytes
/// is two overlapping word compares, longer ones a loop of 8-byte words.
[[gnu::always_inline]] inline bool same_name(std::string_view a, std::string_view b) noexcept {
    const std::size_t n = a.size();
    if (n != b.size())
        return false;
    const char* x = a.data();
    const char* y = b.data();
    const auto word8 = [](const char* p) noexcept {
        std::uint64_t w = 0;
        std::memcpy(&w, p, sizeof w);
        return w;
    };
    const auto word4 = [](const char* p) noexcept {
        std::uint32_t w = 0;
        std::memcpy(&w, p, sizeof w);
        return w;
    };
    if (n >= 8) {
        for (std::size_t i = 0; i + 8 < n; i += 8)
            if (word8(x + i) != word8(y + i))
                return false;
        return word8(x + n - 8) == word8(y + n - 8);
    }
    if (n >= 4)
        return word4(x) == word4(y) && word4(x + n - 4) == word4(y + n - 4);
    for (std::size_t i = 0; i < n; ++i)
        if (x[i] != y[i])
            return false;
    return true;
}

/// Most operations one command may carry (the server's MAX_N_OPS).
inline constexpr std::size_t max_ops = std::size_t{32} * 1024;

/// A bin name held inline: Aerospike's are at most 15 bytes (the store
/// checks every name it is handed), so a stored bin needs no string object
/// and fills one cache line.
class bin_name {
public:
    bin_name() = default;
    explicit bin_name(std::string_view s)
        : m_size(static_cast<std::uint8_t>(s.size())) {
        KVMODEL_ASSERT(s.size() <= kv::max_bin_name_length);
        std::memcpy(m_chars.data(), s.data(), s.size());
    }
    // NOLINTNEXTLINE(google-explicit-constructor): a name reads as a string_view
    operator std::string_view() const noexcept { return {m_chars.data(), m_size}; }

private:
    std::array<char, kv::max_bin_name_length> m_chars{};
    std::uint8_t m_size = 0;
};

/// A bin as stored, with its cached stored size (record_size::bin_size).
struct stored_bin {
    bin_name name;
    value val;
    std::size_t size = 0;
};

/// The name of "no set", which every namespace's set table starts with.
inline const std::string& no_set() {
    static const std::string empty;
    return empty;
}

/// True when `to = from` cannot allocate (and so cannot throw): from's type
/// copies without a heap block (a number, a container handle), or to is a
/// string or blob of the same type with the room for from's bytes.
inline bool assigns_in_place(const value& to, const value& from) noexcept {
    if (from.is_string())
        return to.is_string() && to.as_string().capacity() >= from.as_string().size();
    if (from.is_bytes())
        return to.is_bytes() && to.as_bytes().capacity() >= from.as_bytes().size();
    return true;
}

/// A value on the heap, owned, or none: a record's stored key. (A raw
/// owner, not a unique_ptr<value>: one smart-pointer type less, about 25
/// emitted functions, in every header-only file.)
class boxed_value {
public:
    boxed_value() = default;
    explicit boxed_value(const value& v)
        : m_v(new value(v)) {} // NOLINT(*-owning-memory)
    boxed_value(const boxed_value&) = delete;
    boxed_value& operator=(const boxed_value&) = delete;
    boxed_value(boxed_value&& o) noexcept
        : m_v(o.m_v) {
        o.m_v = nullptr;
    }
    boxed_value& operator=(boxed_value&& o) noexcept {
        if (this != &o) {
            value* const old = m_v;
            m_v = o.m_v;
            o.m_v = nullptr;
            delete old; // NOLINT(*-owning-memory)
        }
        return *this;
    }
    ~boxed_value() { delete m_v; } // NOLINT(*-owning-memory)

    KVMODEL_FORCE_INLINE explicit operator bool() const noexcept { return m_v != nullptr; }
    KVMODEL_FORCE_INLINE const value& operator*() const noexcept { return *m_v; }
    KVMODEL_FORCE_INLINE const value* get() const noexcept { return m_v; }

private:
    value* m_v = nullptr;
};

/// Bins a record holds inline, without a heap block of its own.
inline constexpr std::size_t inline_bins = 4;

/// A record's bins. The first inline_bins live inside the record, so
/// reading a record of a few bins follows no pointer but its values'.
using bin_list = boost::container::small_vector<stored_bin, inline_bins>;

/// A stored record. The set name is interned per namespace and a stored key
/// is boxed; the bins come last, so the fixed fields sit next to the digest
/// in the record table's node.
struct entry {
    /// Sum of bins[i].size.
    std::size_t bins_size = 0;
    /// Unix seconds; 0 = never expires.
    std::int64_t void_time = 0;
    /// When the last write applied, Unix milliseconds (the server's
    /// last_update_time, which expressions read).
    std::int64_t last_update_ms = 0;
    // Hot-key accounting (survives updates; see cluster).
    std::uint64_t reads = 0;
    std::uint64_t writes = 0;
    /// The interned set name (no_set() for none); never null.
    const std::string* set_ref = &no_set();
    /// The user key, when stored (send_key).
    boxed_value stored_key;
    std::uint16_t generation = 0;
    bin_list bins;

    KVMODEL_FORCE_INLINE const std::string& set() const noexcept { return *set_ref; }
    /// The record's flat size (record_size.hpp). O(1).
    std::size_t flat() const noexcept {
        return kv::record_size::fixed_size(set(), stored_key.get(), void_time != 0, bins.size()) +
               bins_size;
    }
    /// The size the server reports, ceil16(flat + 4).
    std::size_t stored_size() const noexcept { return kv::record_size::stored(flat()); }
    /// Expired: the void time has passed (the server keeps a record through
    /// its void-time second).
    bool expired(std::int64_t now_s) const noexcept { return void_time != 0 && void_time < now_s; }

    stored_bin* find(std::string_view name) noexcept {
        for (stored_bin& b : bins)
            if (same_name(b.name, name))
                return &b;
        return nullptr;
    }
    const stored_bin* find(std::string_view name) const noexcept {
        for (const stored_bin& b : bins)
            if (same_name(b.name, name))
                return &b;
        return nullptr;
    }
    /// Sets a bin (appends a new one) and refreshes its cached size.
    void put(std::string_view name, value v) {
        std::size_t size = kv::record_size::bin_size(name, v);
        if (stored_bin* b = find(name)) {
            bins_size = bins_size - b->size + size;
            b->val = std::move(v);
            b->size = size;
            return;
        }
        bins.push_back(stored_bin{bin_name(name), std::move(v), size});
        bins_size += size;
    }
    void erase(std::string_view name) {
        for (auto it = bins.begin(); it != bins.end(); ++it) {
            if (same_name(it->name, name)) {
                bins_size -= it->size;
                bins.erase(it);
                return;
            }
        }
    }
    void clear_bins() noexcept {
        bins.clear();
        bins_size = 0;
    }
    /// Remaining TTL at now_s, as a record reports it.
    std::int64_t ttl(std::int64_t now_s) const noexcept {
        return void_time == 0 ? kv::ttl_never_expires
                              : std::max<std::int64_t>(0, void_time - now_s);
    }
};

/// A namespace's settings the paths need.
struct limits {
    std::size_t max_record_size = kv::default_max_record_size;
    std::int64_t default_ttl = 0;
    bool enterprise = false;
    /// nsup-period 0 without allow-ttl-without-nsup: a write that sets a
    /// TTL fails FAIL_FORBIDDEN (is_ttl_disallowed).
    bool ttl_forbidden = false;
};

/// A failed command: the error and, if one operation caused it, its index.
struct failure_info {
    std::optional<std::size_t> op_index;
};

inline error op_failure(failure_info& fi,
                        std::size_t i,
                        const kv::operation& o,
                        status code,
                        const std::string& what,
                        std::string_view cmd) {
    fi.op_index = i;
    std::string msg =
        std::string(cmd) + " op #" + std::to_string(i) + " (" + std::string(kv::op_name(o));
    if (const std::string* b = kv::bin_of(o))
        msg += " on bin '" + *b + "'";
    msg += "): " + what;
    return error{code, std::move(msg)};
}

/// Whether a command is read-only (every op a read): it takes the read path.
inline bool is_read_only(std::span<const kv::operation> ops) noexcept {
    // A loop, not std::all_of over a lambda: no algorithm chain per caller (compile time).
    for (std::size_t i = 0; i < ops.size(); ++i)
        if (!kv::is_read(ops[i]))
            return false;
    return true;
}

/// Checks that need no record, in the server's order (write_master_policies):
/// op count, then per op the replace-flag conflicts and the bin name, then
/// read_all's restrictions. For a read-only command only the op count and
/// read_all are checked here; bin names are checked on the record (read.c).
inline result<void> check_command(std::span<const kv::operation> ops,
                                  const kv::write_policy& wp,
                                  std::string_view cmd,
                                  failure_info& fi) {
    if (ops.empty())
        return fail(status::parameter_error, std::string(cmd) + ": no operations");
    if (ops.size() > max_ops)
        return fail(status::parameter_error,
                    std::string(cmd) + ": " + std::to_string(ops.size()) + " operations, max " +
                        std::to_string(max_ops));
    const bool read_only = is_read_only(ops);
    const bool replace = wp.exists == kv::record_exists_action::replace ||
                         wp.exists == kv::record_exists_action::replace_only;
    std::size_t read_alls = 0;
    bool response_bins = false; // ops that answer with a bin, which read_all cannot join
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const kv::operation& o = ops[i];
        const kv::op_kind k = kv::kind(o);
        if (!read_only) {
            if (k == kv::op_kind::touch) {
                if (replace)
                    return op_failure(fi,
                                      i,
                                      o,
                                      status::parameter_error,
                                      "touch can't have record-level replace (" +
                                          std::string(kv::exists_action_name(wp.exists)) + ")",
                                      cmd);
                continue;
            }
            if (const std::string* b = kv::bin_of(o)) {
                result<void> name = kv::check_bin_name(*b, cmd);
                if (!name)
                    return op_failure(
                        fi, i, o, status::bin_name_too_long, name.error().message, cmd);
            }
            if (replace) {
                bool conflict = false;
                switch (k) {
                case kv::op_kind::write:
                    conflict = std::get_if<kv::detail::at(kv::op_kind::write)>(&o)->val.is_nil();
                    break;
                case kv::op_kind::add:
                case kv::op_kind::append:
                case kv::op_kind::prepend:
                case kv::op_kind::delete_record:
                case kv::op_kind::exp_write:
                    conflict = true;
                    break;
                case kv::op_kind::cdt:
                case kv::op_kind::bit:
                case kv::op_kind::hll:
                    conflict = !kv::is_read(o);
                    break;
                default:
                    break;
                }
                if (conflict)
                    return op_failure(
                        fi,
                        i,
                        o,
                        status::parameter_error,
                        "a bin delete or modify op can't have record-level replace (" +
                            std::string(kv::exists_action_name(wp.exists)) + ")",
                        cmd);
            }
        }
        switch (k) {
        case kv::op_kind::read_all:
            ++read_alls;
            break;
        case kv::op_kind::read:
        case kv::op_kind::cdt:
        case kv::op_kind::exp_read:
            response_bins = true;
            break;
        case kv::op_kind::bit:
        case kv::op_kind::hll:
            response_bins = response_bins || kv::is_read(o);
            break;
        default:
            break;
        }
    }
    if (read_alls > 1)
        return fail(status::parameter_error, std::string(cmd) + ": more than one read_all op");
    if (read_alls == 1 && response_bins)
        return fail(status::parameter_error,
                    std::string(cmd) +
                        ": read_all can't mix with ops that return bins (read, CDT, bit read)");
    return {};
}

/// PARAMETER_ERROR for a key whose set is not the record's (only a
/// digest-only key can have one; the server checks on every command).
inline error set_mismatch(std::string_view cmd, const kv::key& k, const entry& e) {
    return error{status::parameter_error,
                 std::string(cmd) + ": set name '" + k.set() +
                     "' does not match the record's set '" + e.set() + "'"};
}

/// Copies an entry's header (generation, void time, TTL left at now_s) into
/// a record.
inline void copy_header(const entry& e, std::int64_t now_s, kv::record& r) noexcept {
    r.generation = e.generation;
    r.void_time = e.void_time;
    r.ttl = e.ttl(now_s);
    r.last_update_ms = e.last_update_ms;
}

/// Converts an entry's bins for a record.
inline void copy_bins(const entry& e, kv::record& r) {
    r.bins.reserve(r.bins.size() + e.bins.size());
    // Converts where the bin's name is initialised, so the string is built
    // in place: a temporary string would be copied again (a name is short,
    // so moving it copies its bytes).
    struct name_string {
        std::string_view name;
        // NOLINTNEXTLINE(google-explicit-constructor): for copy-initialisation
        operator std::string() const { return std::string(name); }
    };
    for (const stored_bin& b : e.bins) {
#if defined(__cpp_aggregate_paren_init)
        r.bins.emplace_back(name_string{b.name}, b.val);
#else
        // clang before 16 has no parenthesised aggregate initialisation
        r.bins.push_back(kv::bin{name_string{b.name}, b.val});
#endif
    }
}

/// The value of bin `name` of the entry c points to, or null (an
/// expression's bin lookup; a function, not a lambda: no conversion thunk).
inline const value* find_bin_value(const void* c, std::string_view name) {
    const stored_bin* b = static_cast<const entry*>(c)->find(name);
    return b != nullptr ? &b->val : nullptr;
}

/// What an expression sees of an entry: its bins, stored key and metadata.
inline exp::record_view view_of(const entry& e, const kv::digest& d, std::int64_t now_ms) {
    exp::record_view v;
    v.find_bin = &find_bin_value;
    v.bins_ctx = &e;
    static_assert(sizeof(v.digest) == sizeof(d));
    std::memcpy(v.digest.data(), d.data(), sizeof(d));
    v.set_name = e.set();
    v.user_key = e.stored_key.get();
    v.void_time = e.void_time;
    v.last_update_ms = e.last_update_ms;
    v.now_ms = now_ms;
    v.record_size = static_cast<std::int64_t>(e.stored_size());
    return v;
}

/// Where an expression op runs: the record's digest and the clock.
struct exp_env {
    const kv::digest* digest = nullptr;
    std::int64_t now_ms = 0;
    /// The record's stored size when the command began, which record_size
    /// and device_size answer in every op of an operate (as 8.1.2 does);
    /// -1: the entry's size now.
    std::int64_t record_size = -1;
};

/// An expression op's value on an entry (nullopt: unknown), or the error of
/// a malformed op: unknown flag bits, a malformed expression, no engine.
inline result<std::optional<value>> eval_exp_op(std::span<const std::uint8_t> packed,
                                                std::uint32_t flags,
                                                std::uint32_t allowed_flags,
                                                const entry& e,
                                                const exp_env& env) {
    if ((flags & ~allowed_flags) != 0)
        return fail(status::parameter_error, "invalid expression op flags " + std::to_string(flags));
    result<const exp::detail::engine_hooks*> h = exp::detail::need_engine("operate");
    if (!h)
        return h.error();
    exp::record_view v = view_of(e, *env.digest, env.now_ms);
    if (env.record_size >= 0)
        v.record_size = env.record_size;
    return (*h)->eval(packed, v);
}

/// A bit or HLL op (the two blob engines) applied to `bin`, through the
/// hooks the ops' constructors set (cdt/detail/bit_op.hpp, hll_op.hpp): a
/// program compiles an engine only where it builds such ops.
// (Here and below, alternatives are reached by index, std::get_if<at(kind)>,
// as kv/operation.hpp does: std::get<T> and get_if<T> were ~20 more functions
// per header-only file, compile time.)
inline result<value> apply_bit_or_hll(std::optional<value>& bin, const kv::operation& o) {
    if (const auto* b = std::get_if<kv::detail::at(kv::op_kind::bit)>(&o)) {
        result<cdt::detail::bit_engine_fn> f = cdt::detail::need_bit_engine(b->op);
        if (!f)
            return f.error();
        return (*f)(bin, b->op, cdt::default_max_blob_bytes);
    }
    const cdt::hll_op& h = std::get_if<kv::detail::at(kv::op_kind::hll)>(&o)->op;
    result<cdt::detail::hll_engine_fn> f = cdt::detail::need_hll_engine(h);
    if (!f)
        return f.error();
    return (*f)(bin, h);
}

/// Applies one read-type op to a bin value without changing it; the result.
inline result<value>
read_one(const entry& e, const kv::operation& o, kv::record& out, const exp_env& env) {
    switch (kv::kind(o)) {
    case kv::op_kind::exp_read: {
        const auto& x = *std::get_if<kv::detail::at(kv::op_kind::exp_read)>(&o);
        result<std::optional<value>> v =
            eval_exp_op(x.exp, x.flags, exp::read_flags::eval_no_fail, e, env);
        if (!v)
            return v.error();
        if (!*v) {
            if ((x.flags & exp::read_flags::eval_no_fail) != 0)
                return value{};
            return fail(status::op_not_applicable, "the expression evaluated to unknown");
        }
        out.set(x.name, **v);
        return std::move(**v);
    }
    case kv::op_kind::read: {
        const std::string& name = std::get_if<kv::detail::at(kv::op_kind::read)>(&o)->bin;
        const stored_bin* b = e.find(name);
        if (b == nullptr)
            return value{};
        out.set(name, b->val);
        return b->val;
    }
    case kv::op_kind::read_all:
        copy_bins(e, out);
        return value{};
    case kv::op_kind::read_header:
        return value{};
    case kv::op_kind::cdt: {
        const auto& c = *std::get_if<kv::detail::at(kv::op_kind::cdt)>(&o);
        const stored_bin* b = e.find(c.bin);
        std::optional<value> bin;
        if (b != nullptr)
            bin = b->val; // O(1) for lists and maps
        return cdt::apply(bin, c.op);
    }
    case kv::op_kind::bit:
    case kv::op_kind::hll: {
        const stored_bin* b = e.find(*kv::bin_of(o));
        std::optional<value> bin;
        if (b != nullptr)
            bin = b->val;
        return apply_bit_or_hll(bin, o);
    }
    default:
        break;
    }
    return fail(status::parameter_error, "not a read op");
}

/// The read path: e is the live record or nullptr. The record's metadata and
/// one result per op.
inline result<kv::record> read_path(const entry* e,
                                    const kv::key& k,
                                    std::span<const kv::operation> ops,
                                    std::int64_t now_s,
                                    std::string_view cmd,
                                    failure_info& fi,
                                    std::int64_t now_ms) {
    if (e == nullptr)
        return fail(status::record_not_found, std::string(cmd) + ": record not found");
    if (!same_name(e->set(), k.set()))
        return fail(status::parameter_error,
                    std::string(cmd) + ": set name '" + k.set() +
                        "' does not match the record's set '" + e->set() + "'");
    kv::record out;
    copy_header(*e, now_s, out);
    out.results.reserve(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const kv::operation& o = ops[i];
        if (const std::string* b = kv::bin_of(o)) {
            result<void> name = kv::check_bin_name(*b, cmd);
            if (!name)
                return op_failure(fi, i, o, status::bin_name_too_long, name.error().message, cmd);
        }
        result<value> r = read_one(*e, o, out, exp_env{&k.digest(), now_ms});
        if (!r)
            return op_failure(fi, i, o, r.error().code, r.error().message, cmd);
        out.results.push_back(std::move(r).value());
    }
    return out;
}

/// What a successful write path did.
struct write_outcome {
    bool created = false;
    /// The command deleted the record (the caller erases it).
    bool deleted = false;
};

/// An entry being written, with the undo log that puts it back exactly as
/// it was if the command fails: changed bins keep their old value (moved,
/// so a string is not copied), removed bins keep their place. Unchanged bins
/// are never copied. A list or map bin handed to the CDT engine keeps its
/// old handle here, so the engine's first mutation clones the container —
/// O(its size), the price of all-or-nothing — unless logging has stopped
/// (take_out()).
class txn {
public:
    /// Logging off: a fresh entry needs no undo (it is dropped on failure).
    txn(entry& e, bool log)
        : m_e(e)
        , m_log(log)
        , m_log_meta(log) {
        if (log) {
            m_generation = e.generation;
            m_void_time = e.void_time;
            if (e.stored_key)
                m_stored_key = boxed_value(*e.stored_key);
            m_bins_size = e.bins_size;
        }
    }

    KVMODEL_FORCE_INLINE entry& target() noexcept { return m_e; }

    /// Stops logging bin changes: the caller has established that nothing
    /// can fail from here on (put's prediction). The metadata stays logged.
    KVMODEL_FORCE_INLINE void stop_bin_logging() noexcept { m_log = false; }

    /// Sets a bin to a copy of v whose stored size is known. Without bin
    /// logging an existing bin's storage is reused (copy-assignment).
    void assign(std::string_view name, const value& v, std::size_t size) {
        if (m_log) {
            put(name, v);
            return;
        }
        if (stored_bin* b = m_e.find(name)) {
            m_e.bins_size = m_e.bins_size - b->size + size;
            b->val = v;
            b->size = size;
            return;
        }
        m_e.bins.push_back(stored_bin{bin_name(name), v, size});
        m_e.bins_size += size;
    }

    /// Sets a bin (appends a new one).
    void put(std::string_view name, value v) {
        std::size_t size = kv::record_size::bin_size(name, v);
        for (std::size_t i = 0; i < m_e.bins.size(); ++i) {
            stored_bin& b = m_e.bins[i];
            if (!same_name(b.name, name))
                continue;
            if (m_log) {
                change& c = log(change::kind::modified, i);
                c.old = std::move(b.val);
                c.old_size = b.size;
            }
            m_e.bins_size = m_e.bins_size - b.size + size;
            b.val = std::move(v);
            b.size = size;
            return;
        }
        // A failed allocation leaves the record and the log agreeing: the
        // bin goes again if its log entry cannot be made. (Not reserve():
        // its reallocation path is one more chain per header-only file.)
        m_e.bins.push_back(stored_bin{bin_name(name), std::move(v), size});
        if (m_log) {
            const std::size_t at = m_e.bins.size() - 1;
            try {
                log(change::kind::inserted, at);
            } catch (...) {
                m_e.bins.erase(m_e.bins.begin() + static_cast<std::ptrdiff_t>(at));
                throw;
            }
        }
        m_e.bins_size += size;
    }
    void erase(std::string_view name) {
        for (std::size_t i = 0; i < m_e.bins.size(); ++i) {
            if (!same_name(m_e.bins[i].name, name))
                continue;
            m_e.bins_size -= m_e.bins[i].size;
            if (m_log)
                log(change::kind::erased, i).bin = std::move(m_e.bins[i]);
            m_e.bins.erase(m_e.bins.begin() + static_cast<std::ptrdiff_t>(i));
            return;
        }
    }
    void clear() {
        if (m_e.bins.empty())
            return;
        if (m_log) {
            // Each bin logged as erased and erased, the last first, so
            // rollback re-inserts them in their order (no second bin-list
            // type to keep whole lists in). A failed allocation leaves the
            // record and the log agreeing (not reserve(): its reallocation
            // path is one more chain per header-only file).
            for (std::size_t i = m_e.bins.size(); i-- > 0;) {
                change& c = log(change::kind::erased, i); // may throw
                m_e.bins_size -= m_e.bins[i].size;
                c.bin = std::move(m_e.bins[i]);
                m_e.bins.erase(m_e.bins.begin() + static_cast<std::ptrdiff_t>(i));
            }
        }
        m_e.bins.clear();
        m_e.bins_size = 0;
    }
    /// The bin's current value for an in-place op (nullopt = absent); the
    /// old value stays logged. Hand the result back with give_back().
    std::optional<value> take(std::string_view name) {
        const stored_bin* b = m_e.find(name);
        if (b == nullptr)
            return std::nullopt;
        return b->val; // a copy: O(1) for lists and maps, O(n) for strings and blobs
    }
    /// The bin's value itself, moved out (nil holds its place until
    /// give_back()), so an op changes it in place. Only without bin logging
    /// (stop_bin_logging()): nothing keeps the old value.
    std::optional<value> take_out(std::string_view name) {
        KVMODEL_ASSERT(!m_log);
        stored_bin* b = m_e.find(name);
        if (b == nullptr)
            return std::nullopt;
        return std::exchange(b->val, value{});
    }
    KVMODEL_FORCE_INLINE bool logging() const noexcept { return m_log; }
    void give_back(std::string_view name, std::optional<value> v) {
        if (v)
            put(name, std::move(*v));
        else
            erase(name);
    }

    /// Puts the entry back as it was.
    void rollback() {
        if (!m_log_meta)
            return;
        for (std::size_t n = m_changes.size(); n-- > 0;) {
            change* const it = &m_changes[n];
            const auto at = m_e.bins.begin() + static_cast<std::ptrdiff_t>(it->index);
            switch (it->k) {
            case change::kind::modified:
                at->val = std::move(it->old);
                at->size = it->old_size;
                break;
            case change::kind::inserted:
                m_e.bins.erase(at);
                break;
            case change::kind::erased: {
                // Back at its index: appended, then moved down past the
                // later bins (no insert(): its own chain per header-only
                // file). No allocation: the list held this bin before.
                m_e.bins.push_back(std::move(it->bin));
                for (std::size_t j = m_e.bins.size() - 1; j > it->index; --j)
                    std::swap(m_e.bins[j], m_e.bins[j - 1]);
                break;
            }
            }
        }
        m_changes.clear();
        m_e.bins_size = m_bins_size;
        m_e.generation = m_generation;
        m_e.void_time = m_void_time;
        m_e.stored_key = std::move(m_stored_key);
    }

private:
    struct change {
        enum class kind : std::uint8_t { modified, inserted, erased };
        kind k = kind::modified;
        std::size_t index = 0;
        value old;
        std::size_t old_size = 0;
        stored_bin bin;
    };
    change& log(change::kind k, std::size_t index) {
        change& c = m_changes.emplace_back();
        c.k = k;
        c.index = index;
        return c;
    }

    entry& m_e;
    bool m_log;
    bool m_log_meta;
    // Inline room for the few changes of a typical command: no allocation.
    boost::container::small_vector<change, 4> m_changes;
    std::uint16_t m_generation = 0;
    std::int64_t m_void_time = 0;
    boxed_value m_stored_key;
    std::size_t m_bins_size = 0;
};

namespace ops_impl {

/// What the growth bounds below need of a container: its element count and
/// whether it has a persisted index. A null c is a container a context step
/// creates (empty, no index); false: c is not a list or map. (An out
/// parameter, not an optional: one optional type less per header-only file.)
struct container_shape {
    std::size_t n = 0;
    bool persisted = false;
};
inline bool shape_of(const value* c, container_shape& out) noexcept {
    if (c == nullptr) {
        out = container_shape{};
        return true;
    }
    if (c->is_list()) {
        out = container_shape{c->as_list().size(), c->as_list().persist_index()};
        return true;
    }
    if (c->is_map()) {
        out = container_shape{c->as_map().size(), c->as_map().persist_index()};
        return true;
    }
    return false;
}

/// An upper bound on the bytes op o can add to container c's packed size,
/// the op applied to c itself (o's context already followed to c), or
/// nullopt where none is simple. c is null for a container the context
/// creates (empty, no persisted index). Appends, inserts, sets, increments
/// and puts add at most their arguments' packed bytes, the nils padding an
/// index past the end, a few header bytes, and - on a container with a
/// persisted index - at most 8 bytes per element for the index (its widths
/// may grow for every entry). Other ops (create, order and policy changes,
/// sorts) have no bound here.
inline std::optional<std::size_t> op_growth_bound(const value* c, const cdt::op& o) {
    using cdt::op_code;
    container_shape shape;
    if (!shape_of(c, shape))
        return std::nullopt;
    const std::size_t n = shape.n;
    const bool persisted =
        shape.persisted || (o.ctx.empty() && (o.persist_index || o.mpolicy.persist_index));
    std::size_t args = 0; // the packed bytes the op may store
    std::size_t added = 0; // elements the op may add
    std::size_t pad = 0;   // nils an index past the end may add
    // Nils an index past the end pads with (for the ops that take an index).
    const std::size_t past_end = o.index > 0 && static_cast<std::uint64_t>(o.index) > n
                                     ? static_cast<std::size_t>(o.index) - n
                                     : std::size_t{0};
    switch (o.code) {
    case op_code::list_append:
        args = packed_size(o.key);
        added = 1;
        break;
    case op_code::list_append_items:
        for (const value& v : o.values)
            args += packed_size(v);
        added = o.values.size();
        break;
    case op_code::list_insert:
    case op_code::list_set:
        args = packed_size(o.key);
        pad = past_end;
        added = 1 + pad;
        break;
    case op_code::list_insert_items:
        for (const value& v : o.values)
            args += packed_size(v);
        pad = past_end;
        added = o.values.size() + pad;
        break;
    case op_code::list_increment:
        args = 9; // an integer or a double, at most 9 bytes
        pad = past_end;
        added = 1 + pad;
        break;
    case op_code::map_put:
        args = packed_size(o.key) + packed_size(o.val);
        added = 1;
        break;
    case op_code::map_put_items:
        for (const auto& [k, v] : o.items)
            args += packed_size(k) + packed_size(v);
        added = o.items.size();
        break;
    case op_code::map_increment:
    case op_code::map_decrement:
        args = packed_size(o.key) + 9;
        added = 1;
        break;
    default:
        return std::nullopt;
    }
    std::size_t index = persisted ? 8 * (n + added) + 6 : 0;
    return args + pad + 4 + index;
}

/// Position i (negative: from the end) among n elements into out; false when
/// there is no such element.
inline bool ctx_position(std::int64_t i, std::size_t n, std::size_t& out) noexcept {
    std::int64_t x = i < 0 ? i + static_cast<std::int64_t>(n) : i;
    if (x < 0 || static_cast<std::uint64_t>(x) >= n)
        return false;
    out = static_cast<std::size_t>(x);
    return true;
}

/// The element context step s selects in container c into child (null when
/// it does not exist); false when the step is one this bound does not follow
/// (by value, or by rank in a list) or c is not the container it steps into.
/// (An out parameter, not an optional: one optional type less per file.)
inline bool ctx_child(const value& c, const cdt::ctx_step& s, const value*& child) {
    using kind = cdt::ctx_step::kind;
    std::size_t i = 0;
    switch (s.type) {
    case kind::list_index:
        if (!c.is_list())
            return false;
        child = ctx_position(s.index, c.as_list().size(), i) ? &c.as_list()[i] : nullptr;
        return true;
    case kind::map_index:
    case kind::map_rank:
        if (!c.is_map())
            return false;
        child =
            ctx_position(s.index, c.as_map().size(), i)
                ? &c.as_map().value_at(s.type == kind::map_index ? i : c.as_map().index_at_rank(i))
                : nullptr;
        return true;
    case kind::map_key:
        if (!c.is_map() || s.val.contains_wildcard())
            return false;
        child = c.as_map().get(s.val);
        return true;
    default:
        return false;
    }
}

/// An upper bound on the bytes CDT op o can add to bin b's stored size, or
/// nullopt where none is simple. Remove-type ops never add (every term of a
/// container's size - header, body, persisted index - grows with its count
/// and body only, and they create nothing, through a context or not). An op
/// through a context adds what it adds to its target (op_growth_bound), and
/// on the way there each level may add an element created by a create step
/// (its key, padding nils, a new container's header: 8 bytes), a few header
/// bytes, and for a container with a persisted index 8 bytes per element.
/// A context step by value, or by rank in a list, is not followed: no bound.
inline std::optional<std::size_t> cdt_growth_bound(const value& b, const cdt::op& o) {
    if (cdt::classify(o.code) == cdt::op_class::remove)
        return 0;
    std::size_t bound = 0;
    const value* c = &b;
    for (const cdt::ctx_step& s : o.ctx) {
        container_shape shape;
        if (!shape_of(c, shape))
            return std::nullopt;
        if (shape.persisted)
            bound += 8 * (shape.n + 1) + 6;
        if (c != nullptr) {
            const value* child = nullptr;
            if (!ctx_child(*c, s, child))
                return std::nullopt;
            if (child != nullptr) {
                bound += 4;
                c = child;
                continue;
            }
            if (!s.create)
                return std::nullopt; // the op fails; no bound needed
        } else if (s.type != cdt::ctx_step::kind::list_index &&
                   s.type != cdt::ctx_step::kind::map_key) {
            return std::nullopt; // nothing else steps into a created container
        }
        // A new element here (every level below is new too): padding up to
        // a list index past the end, its key, a new container's header.
        if (s.type == cdt::ctx_step::kind::list_index && s.index > 0 &&
            static_cast<std::uint64_t>(s.index) > shape.n)
            bound += static_cast<std::size_t>(s.index) - shape.n;
        c = nullptr;
        bound += 4 + packed_size(s.val) + 8;
    }
    std::optional<std::size_t> op = op_growth_bound(c, o);
    if (!op)
        return std::nullopt;
    return bound + *op;
}

inline std::string a_type(const value& v) {
    const std::string_view t = type_name(v.type());
    const bool vowel =
        !t.empty() && (t[0] == 'a' || t[0] == 'e' || t[0] == 'i' || t[0] == 'o' || t[0] == 'u');
    return (vowel ? "an " : "a ") + std::string(t);
}
inline std::string type_clash(const value& bin, const value& operand) {
    return "the bin holds " + a_type(bin) + ", the operand is " + a_type(operand);
}

inline result<void> add_to(txn& t, const kv::add_op& a) {
    const stored_bin* b = t.target().find(a.bin);
    const value& d = a.delta;
    if (b == nullptr) {
        // As the server: a modify op on a missing bin creates it from the operand.
        t.put(a.bin, d);
        return {};
    }
    if (b->val.is_int() && d.is_int()) {
        // Integer bins wrap on overflow, as the server's uint64 addition.
        auto sum =
            static_cast<std::uint64_t>(b->val.as_int()) + static_cast<std::uint64_t>(d.as_int());
        t.put(a.bin, value(static_cast<std::int64_t>(sum)));
        return {};
    }
    if (b->val.is_double() && d.is_double()) {
        t.put(a.bin, value(b->val.as_double() + d.as_double()));
        return {};
    }
    return fail(status::bin_type_error,
                type_clash(b->val, d) + " (add: int + int or double + double)");
}

inline result<void> concat(txn& t, const std::string& bin, const value& v, bool at_end) {
    const stored_bin* b = t.target().find(bin);
    if (b == nullptr) {
        t.put(bin, v);
        return {};
    }
    if (b->val.is_string() && v.is_string()) {
        const std::string& first = at_end ? b->val.as_string() : v.as_string();
        const std::string& second = at_end ? v.as_string() : b->val.as_string();
        std::string s;
        s.reserve(first.size() + second.size());
        s.append(first);
        s.append(second);
        t.put(bin, value(std::move(s)));
        return {};
    }
    if (b->val.is_bytes() && v.is_bytes()) {
        const kvmodel::bytes& cur = b->val.as_bytes();
        const kvmodel::bytes& add = v.as_bytes();
        const kvmodel::bytes& first = at_end ? cur : add;
        const kvmodel::bytes& second = at_end ? add : cur;
        // Sized, then copied with memcpy: a range insert would compile its
        // own chain of vector members into every header-only file.
        kvmodel::bytes out(first.size() + second.size());
        if (!first.empty())
            std::memcpy(out.data(), first.data(), first.size());
        if (!second.empty())
            std::memcpy(out.data() + first.size(), second.data(), second.size());
        t.put(bin, value(std::move(out)));
        return {};
    }
    return fail(status::bin_type_error,
                type_clash(b->val, v) + (at_end ? " (append" : " (prepend") +
                    ": string to string or bytes to bytes)");
}

/// exp_write (expop.c as_exp_modify_tr): the value of the expression to
/// the bin, under the op's flags.
inline result<void> exp_write(txn& t, const kv::exp_write_op& x, const exp_env& env) {
    namespace wf = exp::write_flags;
    constexpr std::uint32_t allowed =
        wf::create_only | wf::update_only | wf::allow_delete | wf::policy_no_fail | wf::eval_no_fail;
    result<std::optional<value>> v = eval_exp_op(x.exp, x.flags, allowed, t.target(), env);
    if (!v)
        return v.error();
    const bool was_live = t.target().find(x.bin) != nullptr;
    if (was_live && (x.flags & wf::create_only) != 0) {
        if ((x.flags & wf::policy_no_fail) != 0)
            return {};
        return fail(status::bin_exists_error, "the bin exists (CREATE_ONLY)");
    }
    if (!was_live && (x.flags & wf::update_only) != 0) {
        if ((x.flags & wf::policy_no_fail) != 0)
            return {};
        return fail(status::bin_not_found, "the bin does not exist (UPDATE_ONLY)");
    }
    if (!*v) {
        if ((x.flags & wf::eval_no_fail) != 0)
            return {};
        return fail(status::op_not_applicable, "the expression evaluated to unknown");
    }
    value& nv = **v;
    if (nv.is_nil()) {
        if (!was_live)
            return {};
        if ((x.flags & wf::allow_delete) == 0) {
            // The server tests `flags && AS_EXP_FLAG_POLICY_NO_FAIL`: any
            // flag at all keeps the bin silently.
            if (x.flags != 0)
                return {};
            return fail(status::op_not_applicable, "the value is nil and ALLOW_DELETE is not set");
        }
        t.erase(x.bin);
        return {};
    }
    if (result<void> c = kv::check_bin_value(nv, "exp_write", x.bin); !c)
        return c;
    t.put(x.bin, std::move(nv));
    return {};
}

} // namespace ops_impl

/// Applies operate()'s ops in order inside t, filling out's results and
/// read bins. max_record_size is the namespace's: the CDT engine refuses
/// list padding that could not fit in it (RECORD_TOO_BIG) before allocating.
inline result<void> apply_ops(txn& t,
                              std::span<const kv::operation> ops,
                              std::string_view cmd,
                              kv::record& out,
                              failure_info& fi,
                              std::size_t max_record_size,
                              const exp_env& command_env) {
    exp_env env = command_env;
    env.record_size = static_cast<std::int64_t>(t.target().stored_size());
    out.results.reserve(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const kv::operation& o = ops[i];
        value res;
        switch (kv::kind(o)) {
        case kv::op_kind::read:
        case kv::op_kind::read_all:
        case kv::op_kind::read_header:
        case kv::op_kind::exp_read: {
            result<value> r = read_one(t.target(), o, out, env);
            if (!r)
                return op_failure(fi, i, o, r.error().code, r.error().message, cmd);
            res = std::move(r).value();
            break;
        }
        case kv::op_kind::write: {
            const auto& x = *std::get_if<kv::detail::at(kv::op_kind::write)>(&o);
            if (x.val.is_nil()) {
                t.erase(x.bin);
                break;
            }
            if (result<void> c = kv::check_bin_value(x.val, cmd, x.bin); !c)
                return op_failure(fi, i, o, c.error().code, c.error().message, cmd);
            t.put(x.bin, x.val);
            break;
        }
        case kv::op_kind::add: {
            const auto& x = *std::get_if<kv::detail::at(kv::op_kind::add)>(&o);
            if (x.delta.is_nil())
                return op_failure(fi, i, o, status::parameter_error, "the delta is nil", cmd);
            if (result<void> c = kv::check_bin_value(x.delta, cmd, x.bin); !c)
                return op_failure(fi, i, o, c.error().code, c.error().message, cmd);
            if (result<void> r = ops_impl::add_to(t, x); !r)
                return op_failure(fi, i, o, r.error().code, r.error().message, cmd);
            break;
        }
        case kv::op_kind::append:
        case kv::op_kind::prepend: {
            const bool at_end = kv::kind(o) == kv::op_kind::append;
            const auto* app = std::get_if<kv::detail::at(kv::op_kind::append)>(&o);
            const auto* pre = std::get_if<kv::detail::at(kv::op_kind::prepend)>(&o);
            const std::string& bin = at_end ? app->bin : pre->bin;
            const value& v = at_end ? app->val : pre->val;
            if (v.is_nil())
                return op_failure(fi, i, o, status::parameter_error, "the operand is nil", cmd);
            if (result<void> c = kv::check_bin_value(v, cmd, bin); !c)
                return op_failure(fi, i, o, c.error().code, c.error().message, cmd);
            if (result<void> r = ops_impl::concat(t, bin, v, at_end); !r)
                return op_failure(fi, i, o, r.error().code, r.error().message, cmd);
            break;
        }
        case kv::op_kind::exp_write: {
            const auto& x = *std::get_if<kv::detail::at(kv::op_kind::exp_write)>(&o);
            if (result<void> r = ops_impl::exp_write(t, x, env); !r)
                return op_failure(fi, i, o, r.error().code, r.error().message, cmd);
            break;
        }
        case kv::op_kind::touch:
            break; // the metadata advance is the touch
        case kv::op_kind::delete_record:
            t.clear();
            break;
        case kv::op_kind::cdt: {
            const auto& x = *std::get_if<kv::detail::at(kv::op_kind::cdt)>(&o);
            if (cdt::classify(x.op.code) == cdt::op_class::read) {
                result<value> r = read_one(t.target(), o, out, env);
                if (!r)
                    return op_failure(fi, i, o, r.error().code, r.error().message, cmd);
                res = std::move(r).value();
                break;
            }
            // The last op, on a bin it cannot grow past the record limit:
            // nothing after it can fail (the bin exists, so the bin count
            // stands and the record keeps a bin; the size check is bounded),
            // so the bin is changed in place with no old value kept - no
            // copy of the container. (A fresh record keeps no undo at all.)
            // On error the engine left the bin as it was.
            if (i + 1 == ops.size() && t.logging()) {
                const stored_bin* b = t.target().find(x.bin);
                std::optional<std::size_t> grow =
                    b != nullptr ? ops_impl::cdt_growth_bound(b->val, x.op) : std::nullopt;
                if (grow && kv::record_size::fits(t.target().flat() + *grow, max_record_size))
                    t.stop_bin_logging();
            }
            const bool in_place = !t.logging();
            std::optional<value> bin = in_place ? t.take_out(x.bin) : t.take(x.bin);
            const bool had_bin = static_cast<bool>(bin);
            // (A reader on another thread may just have dropped its copy of
            // this container: the engine's copy-on-write test orders that
            // reader's reads before these writes - detail::sole_owner.)
            result<value> r;
            try {
                // In place through a context: the strong mode, which leaves
                // the bin as it was if memory runs out (there is no undo).
                // (A raw range return type goes through cdt::apply, which
                // answers it: detail/range_return.hpp.)
                r = in_place && !x.op.ctx.empty() && !cdt::detail::is_range_return(x.op)
                        ? cdt::detail::apply_in_context(bin, x.op, max_record_size, true)
                        : cdt::apply(bin, x.op, max_record_size);
            } catch (...) {
                // Out of memory: the engine left the bin valid, and as it
                // was but for a run erased across a sorted list's leaves
                // (counted_btree.hpp: a prefix of the run may be gone).
                // Without a log, it goes back before the rollback.
                if (in_place)
                    t.give_back(x.bin, std::move(bin));
                throw;
            }
            if (!r) {
                if (in_place)
                    t.give_back(x.bin, std::move(bin));
                return op_failure(fi, i, o, r.error().code, r.error().message, cmd);
            }
            KVMODEL_ASSERT(!in_place || !had_bin || bin.has_value()); // ops keep a live bin
            t.give_back(x.bin, std::move(bin));
            res = std::move(r).value();
            break;
        }
        case kv::op_kind::bit:
        case kv::op_kind::hll: {
            if (kv::is_read(o)) {
                result<value> r = read_one(t.target(), o, out, env);
                if (!r)
                    return op_failure(fi, i, o, r.error().code, r.error().message, cmd);
                res = std::move(r).value();
                break;
            }
            const std::string& name = *kv::bin_of(o);
            std::optional<value> bin = t.take(name);
            result<value> r = apply_bit_or_hll(bin, o);
            if (!r)
                return op_failure(fi, i, o, r.error().code, r.error().message, cmd);
            t.give_back(name, std::move(bin));
            res = std::move(r).value();
            break;
        }
        }
        out.results.push_back(std::move(res));
    }
    return {};
}

/// A command's filter expression on an existing record: ok when true,
/// FILTERED_OUT when false or unknown, PARAMETER_ERROR when the bytes are
/// no boolean expression (or the program lacks the engine).
[[gnu::noinline]] inline result<void> check_filter(std::span<const std::uint8_t> filter,
                                                   const entry& e,
                                                   const kv::digest& d,
                                                   std::int64_t now_ms,
                                                   std::string_view cmd) {
    result<const exp::detail::engine_hooks*> h = exp::detail::need_engine(cmd);
    if (!h)
        return h.error();
    result<std::uint8_t> v = (*h)->filter(filter, view_of(e, d, now_ms));
    if (!v)
        return fail(v.error().code, std::string(cmd) + ": " + v.error().message);
    if (*v != 1)
        return fail(status::filtered_out,
                    std::string(cmd) + ": the filter expression is " +
                        (*v == 0 ? "false" : "unknown") + " on the record (FILTERED_OUT)");
    return {};
}

/// The write path (write_master). cur is the live record, or nullptr when
/// missing or expired, in which case the command builds `fresh` (a
/// default-constructed entry) in the set new_set (the key's set, interned).
/// The ops are
/// applied by apply(txn&) -> result<void>. On success: the record (cur, or
/// fresh to be inserted) holds the new state, or outcome.deleted says to
/// erase it, and out (if given) gets the record's new metadata. On failure:
/// cur is exactly as it was. (apply is a function_ref: one copy of the path
/// serves put and operate. Its messages are joined by fail_joined, not
/// operator+ chains: a call and a cleanup path per temporary at -O0.)
inline result<void> write_path(entry* cur,
                        entry& fresh,
                        const std::string* new_set,
                        const kv::key& k,
                        bool has_touch,
                        const kv::write_policy& wp,
                        const limits& lim,
                        std::int64_t now_s,
                        std::string_view cmd,
                        write_outcome& outcome,
                        kv::record* out,
                        function_ref<result<void>(txn&)> apply) {
    const bool must_not_create = wp.exists == kv::record_exists_action::update_only ||
                                 wp.exists == kv::record_exists_action::replace_only || has_touch;
    const bool replace = wp.exists == kv::record_exists_action::replace ||
                         wp.exists == kv::record_exists_action::replace_only;
    using kv::detail::fail_joined;
    if (cur == nullptr && must_not_create)
        return fail_joined(status::record_not_found,
                           {cmd,
                            ": record not found (",
                            has_touch ? std::string_view("touch")
                                      : kv::exists_action_name(wp.exists),
                            " does not create)"});
    if (cur != nullptr && wp.exists == kv::record_exists_action::create_only)
        return fail_joined(status::record_exists, {cmd, ": record exists (CREATE_ONLY)"});
    const std::uint32_t gen = cur != nullptr ? cur->generation : 0;
    const bool gen_eq = wp.gen == kv::generation_policy::eq;
    if ((gen_eq && wp.generation != gen) ||
        (wp.gen == kv::generation_policy::gt && wp.generation <= gen))
        return fail_joined(status::generation_error,
                           {cmd,
                            ": generation is ",
                            std::to_string(gen),
                            gen_eq ? ", policy expects " : ", policy expects more than ",
                            std::to_string(wp.generation),
                            gen_eq ? " (EQ)" : " (GT)"});
    if (cur != nullptr && !same_name(cur->set(), k.set()))
        return fail_joined(status::parameter_error,
                           {cmd,
                            ": set name '",
                            k.set(),
                            "' does not match the record's set '",
                            cur->set(),
                            "'"});
    if (cur != nullptr && wp.send_key && cur->stored_key && k.user_key() &&
        !(*cur->stored_key == *k.user_key()))
        return fail_joined(status::key_mismatch,
                           {cmd, ": the key sent does not match the stored key"});
    std::int64_t ttl = wp.ttl;
    if (ttl == kv::ttl_dont_update && cur == nullptr)
        ttl = kv::ttl_namespace_default;
    if (result<void> t = kv::check_ttl(ttl, cmd); !t)
        return t.error();
    if (lim.ttl_forbidden &&
        (ttl > 0 || (ttl == kv::ttl_namespace_default && lim.default_ttl != 0)))
        return fail_joined(status::fail_forbidden,
                           {cmd,
                            ": ttl ",
                            std::to_string(ttl),
                            " is forbidden with nsup-period 0 (configure nsup-period, or "
                            "allow-ttl-without-nsup)"});

    entry& e = cur != nullptr ? *cur : fresh;
    if (cur == nullptr) {
        e.set_ref = new_set;
        outcome.created = true;
    }
    txn t(e, cur != nullptr);
    // Advance the metadata (as_record_advance_void_time; the generation
    // wraps past 65535 to 1).
    switch (ttl) {
    case kv::ttl_namespace_default:
        e.void_time = lim.default_ttl != 0 ? now_s + lim.default_ttl : 0;
        break;
    case kv::ttl_never_expire:
        e.void_time = 0;
        break;
    case kv::ttl_dont_update:
        break;
    default:
        e.void_time = now_s + ttl;
        break;
    }
    e.generation = static_cast<std::uint16_t>(e.generation + 1);
    if (e.generation == 0)
        e.generation = 1;

    // A failure, or an exception (out of memory), puts the record back:
    // REPLACE's erased bins too (logging the fifth one allocates).
    result<void> r;
    try {
        if (replace)
            t.clear(); // the server does not even load the old bins
        if (wp.send_key && k.user_key() && !e.stored_key)
            e.stored_key = boxed_value(*k.user_key());
        r = apply(t);
    } catch (...) {
        t.rollback();
        throw;
    }
    if (!r) {
        t.rollback();
        return r;
    }
    if (e.bins.empty()) {
        // A command that leaves no bins deletes the record, and fails on a
        // record that did not exist (write_master_apply).
        if (cur == nullptr)
            return fail_joined(status::record_not_found,
                               {cmd, ": record not found (the command leaves it without bins)"});
        if (wp.durable_delete && !lim.enterprise) {
            t.rollback();
            return fail_joined(status::enterprise_only,
                               {cmd, ": durable delete is an Enterprise feature"});
        }
        outcome.deleted = true;
        if (out != nullptr) {
            // Deletes report no metadata.
            out->generation = 0;
            out->void_time = 0;
            out->ttl = kv::ttl_never_expires;
        }
        return {};
    }
    if (e.bins.size() > kv::max_bins) {
        t.rollback();
        return fail_joined(status::parameter_error,
                           {cmd,
                            ": ",
                            std::to_string(e.bins.size()),
                            " bins, max ",
                            std::to_string(kv::max_bins)});
    }
    if (result<void> sz = kv::check_record_size(e.flat(), lim.max_record_size, cmd); !sz) {
        t.rollback();
        return sz;
    }
    if (out != nullptr) {
        out->generation = e.generation;
        out->void_time = e.void_time;
        out->ttl = e.ttl(now_s);
    }
    return {};
}

} // namespace kvmodel::sim::detail
