// Randomized tests of the expression engine.
//
// 1. Differential: random typed expression trees over random records; each
//    tree is packed by the builder, compiled and evaluated by exp::, and
//    evaluated directly on the tree by a naive reference written here from
//    exp.c's eval_* semantics (unknown propagation, wrapping arithmetic,
//    shift counts modulo 64, division rules), path expressions over a list
//    bin among them. 0 divergences.
// 2. Decoder: random bytes and single-byte mutations of valid expressions
//    (path expressions among them);
//    compile returns a status every time (never a crash, an over-read or a
//    giant allocation: the sanitizers watch), and whatever compiles
//    evaluates without crashing.
//
// Seed: KVMODEL_SEED (else Catch's --rng-seed, else fixed). Size:
// KVMODEL_FUZZ_OPS evaluations (default 1,000,000 in an optimized build,
// 100,000 under sanitizers or without optimization).
#include <kvmodel/exp/build.hpp>
#include <kvmodel/exp/eval.hpp>

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/random_value.hpp"

namespace exp_fuzz_test {

using namespace kvmodel;
namespace e = kvmodel::exp;

namespace {

#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
constexpr std::size_t default_evals = 100'000;
#else
constexpr std::size_t default_evals = 1'000'000;
#endif

using i64 = std::int64_t;
using u64 = std::uint64_t;

enum class ty : std::uint8_t { b, i, f, s };

// --- the reference: a tree evaluated directly -----------------------------------

enum class rk : std::uint8_t {
    constant,
    bin,
    bin_exists,
    bin_type,
    unknown,
    cmp,
    logic_and,
    logic_or,
    logic_not,
    exclusive,
    arith,
    mod,
    abs,
    floor,
    ceil,
    to_int,
    to_float,
    int_not,
    shift,
    count,
    scan,
    cond,
    let,
    var,
    in_list,
    set_name,
    list_size,
    path_count, // a path expression over bin "l" (sub 0: select, 1: modify)
    digest_mod,
    ttl,
};

struct rnode {
    rk kind = rk::constant;
    int sub = 0;     // which comparison / arithmetic op / shift / scan
    ty type = ty::i; // static type of the node
    value v;
    std::string name;
    i64 slot = 0;
    std::vector<rnode> kids;
};

struct record {
    std::vector<std::pair<std::string, value>> bins;
    std::array<std::uint8_t, 20> digest{};
    i64 void_time = 0;
    i64 now_ms = 1'700'000'000'000;
};

const value* find(const record& r, std::string_view n) {
    for (const auto& [name, v] : r.bins)
        if (name == n)
            return &v;
    return nullptr;
}

using opt = std::optional<value>;

bool typed(const value& v, ty t) {
    switch (t) {
    case ty::b:
        return v.is_bool();
    case ty::i:
        return v.is_int();
    case ty::f:
        return v.is_double();
    case ty::s:
        return v.is_string();
    }
    return false;
}

i64 wrap(u64 x) {
    return static_cast<i64>(x);
}

struct ref {
    const record& rec;
    std::vector<opt> vars = std::vector<opt>(64);

    opt eval(const rnode& n) {
        switch (n.kind) {
        case rk::constant:
            return n.v;
        case rk::unknown:
            return std::nullopt;
        case rk::bin: {
            const value* b = find(rec, n.name);
            if (b == nullptr || !typed(*b, n.type))
                return std::nullopt;
            return *b;
        }
        case rk::bin_exists:
            return value(find(rec, n.name) != nullptr);
        case rk::bin_type: {
            const value* b = find(rec, n.name);
            if (b == nullptr)
                return value(i64{0});
            if (b->is_int())
                return value(i64{1});
            if (b->is_double())
                return value(i64{2});
            if (b->is_string())
                return value(i64{3});
            if (b->is_bool())
                return value(i64{17});
            if (b->is_list())
                return value(i64{20});
            return value(i64{-100});
        }
        case rk::set_name:
            return value("s");
        case rk::ttl:
            return value(rec.void_time == 0 ? i64{-1}
                                            : std::max<i64>(1, rec.void_time - rec.now_ms / 1000));
        case rk::digest_mod: {
            u64 d = rec.digest[16] | (u64{rec.digest[17]} << 8) | (u64{rec.digest[18]} << 16) |
                    (u64{rec.digest[19]} << 24);
            return value(static_cast<i64>(d) % n.v.as_int());
        }
        case rk::list_size: {
            const value* b = find(rec, n.name);
            if (b == nullptr || !b->is_list())
                return std::nullopt;
            return value(static_cast<i64>(b->as_list().size()));
        }
        case rk::path_count: {
            // sub 0: how many elements of l are > v (selected); sub 1: how
            // many are left once those < v are removed (>= v).
            const value* b = find(rec, "l");
            if (b == nullptr || !b->is_list())
                return std::nullopt;
            i64 c = 0;
            for (const value& x : b->as_list())
                c += n.sub == 0 ? (x.as_int() > n.v.as_int()) : (x.as_int() >= n.v.as_int());
            return value(c);
        }
        case rk::cmp: {
            opt a = eval(n.kids[0]);
            if (!a)
                return std::nullopt;
            opt b = eval(n.kids[1]);
            if (!b)
                return std::nullopt;
            int c = 0;
            bool nan = false;
            if (a->is_int())
                c = a->as_int() < b->as_int() ? -1 : (a->as_int() > b->as_int() ? 1 : 0);
            else if (a->is_bool())
                c = int(a->as_bool()) - int(b->as_bool());
            else if (a->is_double()) {
                double x = a->as_double(), y = b->as_double();
                nan = std::isnan(x) || std::isnan(y);
                c = x < y ? -1 : (x > y ? 1 : 0);
            } else {
                const std::string& x = a->as_string();
                const std::string& y = b->as_string();
                std::size_t m = std::min(x.size(), y.size());
                for (std::size_t k = 0; k < m && c == 0; ++k)
                    c = int(static_cast<unsigned char>(x[k])) -
                        int(static_cast<unsigned char>(y[k]));
                if (c == 0)
                    c = x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
            }
            if (nan)
                return value(n.sub == 1); // only != holds
            switch (n.sub) {
            case 0:
                return value(c == 0);
            case 1:
                return value(c != 0);
            case 2:
                return value(c > 0);
            case 3:
                return value(c >= 0);
            case 4:
                return value(c < 0);
            default:
                return value(c <= 0);
            }
        }
        case rk::logic_and:
        case rk::logic_or: {
            bool want = n.kind == rk::logic_or;
            bool unk = false;
            for (const rnode& k : n.kids) {
                opt x = eval(k);
                if (!x)
                    unk = true;
                else if (x->as_bool() == want)
                    return value(want);
            }
            if (unk)
                return std::nullopt;
            return value(!want);
        }
        case rk::logic_not: {
            opt x = eval(n.kids[0]);
            if (!x)
                return std::nullopt;
            return value(!x->as_bool());
        }
        case rk::exclusive: {
            int trues = 0;
            for (const rnode& k : n.kids) {
                opt x = eval(k);
                if (!x)
                    return std::nullopt;
                if (x->as_bool() && ++trues == 2)
                    return value(false);
            }
            return value(trues == 1);
        }
        case rk::arith: {
            std::vector<value> xs;
            for (const rnode& k : n.kids) {
                opt x = eval(k);
                if (!x)
                    return std::nullopt;
                xs.push_back(*x);
            }
            if (n.type == ty::f) {
                double acc = xs[0].as_double();
                if (n.sub == 3) { // div
                    double d = 1.0;
                    for (std::size_t k = 1; k < xs.size(); ++k)
                        d *= xs[k].as_double();
                    return xs.size() == 1 ? value(1.0 / acc) : value(acc / d);
                }
                if (n.sub == 1 && xs.size() == 1)
                    return value(0.0 - acc);
                for (std::size_t k = 1; k < xs.size(); ++k) {
                    double y = xs[k].as_double();
                    switch (n.sub) {
                    case 0:
                        acc += y;
                        break;
                    case 1:
                        acc -= y;
                        break;
                    case 2:
                        acc *= y;
                        break;
                    case 4:
                        acc = acc > y ? y : acc;
                        break;
                    default:
                        acc = acc < y ? y : acc;
                        break;
                    }
                }
                return value(acc);
            }
            u64 acc = static_cast<u64>(xs[0].as_int());
            if (n.sub == 3) {
                u64 d = 1;
                for (std::size_t k = 1; k < xs.size(); ++k)
                    d *= static_cast<u64>(xs[k].as_int());
                i64 num = xs.size() == 1 ? 1 : wrap(acc);
                i64 den = xs.size() == 1 ? wrap(acc) : wrap(d);
                if (den == 0)
                    return std::nullopt;
                if (num == std::numeric_limits<i64>::min() && den == -1)
                    return std::nullopt;
                return value(num / den);
            }
            if (n.sub == 1 && xs.size() == 1)
                return value(wrap(0 - acc));
            for (std::size_t k = 1; k < xs.size(); ++k) {
                u64 y = static_cast<u64>(xs[k].as_int());
                switch (n.sub) {
                case 0:
                    acc += y;
                    break;
                case 1:
                    acc -= y;
                    break;
                case 2:
                    acc *= y;
                    break;
                case 4:
                    acc = wrap(acc) > wrap(y) ? y : acc;
                    break;
                case 5:
                    acc = wrap(acc) < wrap(y) ? y : acc;
                    break;
                case 6:
                    acc &= y;
                    break;
                case 7:
                    acc |= y;
                    break;
                default:
                    acc ^= y;
                    break;
                }
            }
            return value(wrap(acc));
        }
        case rk::mod: {
            opt a = eval(n.kids[0]);
            if (!a)
                return std::nullopt;
            opt b = eval(n.kids[1]);
            if (!b || b->as_int() == 0)
                return std::nullopt;
            if (b->as_int() == -1) {
                if (a->as_int() == std::numeric_limits<i64>::min())
                    return std::nullopt;
                return value(i64{0});
            }
            return value(a->as_int() % b->as_int());
        }
        case rk::abs: {
            opt a = eval(n.kids[0]);
            if (!a)
                return std::nullopt;
            if (a->is_double())
                return value(std::fabs(a->as_double()));
            i64 x = a->as_int();
            return value(x < 0 ? wrap(0 - static_cast<u64>(x)) : x);
        }
        case rk::floor:
        case rk::ceil: {
            opt a = eval(n.kids[0]);
            if (!a)
                return std::nullopt;
            return value(n.kind == rk::floor ? std::floor(a->as_double())
                                             : std::ceil(a->as_double()));
        }
        case rk::to_int: {
            opt a = eval(n.kids[0]);
            if (!a)
                return std::nullopt;
            double d = a->as_double();
            // Outside int64 (or NaN): the "integer indefinite" value.
            if (std::isnan(d) || std::fabs(d) >= 9223372036854775808.0)
                return value(std::numeric_limits<i64>::min());
            return value(static_cast<i64>(std::trunc(d)));
        }
        case rk::to_float: {
            opt a = eval(n.kids[0]);
            if (!a)
                return std::nullopt;
            return value(static_cast<double>(a->as_int()));
        }
        case rk::int_not: {
            opt a = eval(n.kids[0]);
            if (!a)
                return std::nullopt;
            return value(wrap(~static_cast<u64>(a->as_int())));
        }
        case rk::count: {
            opt a = eval(n.kids[0]);
            if (!a)
                return std::nullopt;
            u64 x = static_cast<u64>(a->as_int());
            i64 c = 0;
            for (; x != 0; x >>= 1)
                c += static_cast<i64>(x & 1);
            return value(c);
        }
        case rk::shift: {
            opt a = eval(n.kids[0]);
            if (!a)
                return std::nullopt;
            opt b = eval(n.kids[1]);
            if (!b)
                return std::nullopt;
            u64 x = static_cast<u64>(a->as_int());
            unsigned s = static_cast<unsigned>(static_cast<u64>(b->as_int()) % 64);
            if (n.sub == 0)
                return value(wrap(x << s));
            if (n.sub == 1)
                return value(wrap(x >> s));
            // Arithmetic: shift in copies of the sign bit.
            u64 r = x >> s;
            if ((x >> 63) != 0 && s != 0)
                r |= ~(~u64{0} >> s);
            return value(wrap(r));
        }
        case rk::scan: {
            opt a = eval(n.kids[0]);
            if (!a)
                return std::nullopt;
            opt b = eval(n.kids[1]);
            if (!b)
                return std::nullopt;
            u64 x = static_cast<u64>(a->as_int());
            bool want = b->as_bool();
            if (n.sub == 0) { // lscan: index from the most significant bit
                for (int k = 0; k < 64; ++k)
                    if (((x >> (63 - k)) & 1) == u64{want})
                        return value(i64{k});
                return value(i64{-1});
            }
            for (int k = 63; k >= 0; --k) // rscan: the last such index
                if (((x >> (63 - k)) & 1) == u64{want})
                    return value(i64{k});
            return value(i64{-1});
        }
        case rk::cond: {
            std::size_t k = 0;
            for (; k + 1 < n.kids.size(); k += 2) {
                opt c = eval(n.kids[k]);
                if (!c)
                    return std::nullopt;
                if (c->as_bool())
                    return eval(n.kids[k + 1]);
            }
            return eval(n.kids[k]);
        }
        case rk::let: {
            for (std::size_t k = 0; k + 1 < n.kids.size(); ++k)
                vars[static_cast<std::size_t>(n.kids[k].slot)] = eval(n.kids[k].kids[0]);
            return eval(n.kids.back());
        }
        case rk::var:
            return vars[static_cast<std::size_t>(n.slot)];
        case rk::in_list: {
            opt a = eval(n.kids[0]);
            if (!a)
                return std::nullopt;
            for (const value& x : n.v.as_list())
                if (x.type() == a->type() && x == *a)
                    return value(true);
            return value(false);
        }
        }
        return std::nullopt;
    }
};

// --- random trees, built twice: as a tree and with the builder ----------------------

struct built {
    rnode n;
    e::expr x;
};

class gen {
public:
    explicit gen(u64 seed)
        : m_rng(seed) {}

    u64 below(u64 n) { return std::uniform_int_distribution<u64>(0, n - 1)(m_rng); }
    bool chance(int pct) { return below(100) < static_cast<u64>(pct); }

    i64 integer() {
        static constexpr std::array<i64, 14> edges = {0,
                                                      1,
                                                      -1,
                                                      2,
                                                      3,
                                                      7,
                                                      63,
                                                      64,
                                                      65,
                                                      -64,
                                                      std::numeric_limits<i64>::max(),
                                                      std::numeric_limits<i64>::min(),
                                                      1LL << 32,
                                                      -(1LL << 31)};
        if (chance(40))
            return edges[below(edges.size())];
        if (chance(50))
            return static_cast<i64>(below(21)) - 10;
        return static_cast<i64>(m_rng());
    }
    double floating() {
        static constexpr std::array<double, 10> edges = {
            0.0, -0.0, 1.0, -1.5, 0.5, 1e300, -1e300, 9.3e18, 2.5, 1e-300};
        if (chance(5))
            return std::nan("");
        if (chance(40))
            return edges[below(edges.size())];
        return std::uniform_real_distribution<double>(-1000.0, 1000.0)(m_rng);
    }
    std::string text() {
        static constexpr std::array<const char*, 6> words = {"", "a", "ab", "b", "\xff", "abc"};
        return words[below(words.size())];
    }

    record random_record() {
        record r;
        auto maybe = [&](const char* name, value v) {
            if (chance(85))
                r.bins.emplace_back(name, std::move(v));
        };
        auto other = [&]() -> value {
            switch (below(4)) {
            case 0:
                return value(integer());
            case 1:
                return value(floating());
            case 2:
                return value(text());
            default:
                return value(chance(50));
            }
        };
        maybe("a", chance(90) ? value(integer()) : other());
        maybe("b", chance(90) ? value(integer()) : other());
        maybe("f", chance(90) ? value(floating()) : other());
        maybe("g", chance(90) ? value(floating()) : other());
        maybe("s", chance(90) ? value(text()) : other());
        maybe("x", chance(90) ? value(chance(50)) : other());
        list l;
        for (u64 k = below(4); k > 0; --k)
            l.push_back(value(integer()));
        maybe("l", value(l));
        for (auto& d : r.digest)
            d = static_cast<std::uint8_t>(below(256));
        r.void_time = chance(30) ? 0 : r.now_ms / 1000 + static_cast<i64>(below(200)) - 50;
        return r;
    }

    built make(ty t, int depth) {
        if (depth <= 0 || chance(25))
            return leaf(t);
        switch (t) {
        case ty::b:
            return make_bool(depth);
        case ty::i:
            return make_int(depth);
        case ty::f:
            return make_float(depth);
        case ty::s:
            return leaf(t);
        }
        return leaf(t);
    }

private:
    struct scoped_var {
        std::string name;
        ty type;
        i64 slot;
    };

    built leaf(ty t) {
        built r;
        r.n.type = t;
        // A variable in scope, now and then.
        std::vector<const scoped_var*> fit;
        for (const scoped_var& v : m_scope)
            if (v.type == t)
                fit.push_back(&v);
        if (!fit.empty() && chance(30)) {
            const scoped_var* v = fit[below(fit.size())];
            r.n.kind = rk::var;
            r.n.slot = v->slot;
            r.x = e::var(v->name);
            return r;
        }
        if (chance(45)) {
            static constexpr std::array<const char*, 2> ints = {"a", "b"};
            static constexpr std::array<const char*, 2> floats = {"f", "g"};
            r.n.kind = rk::bin;
            switch (t) {
            case ty::b:
                r.n.name = "x";
                r.x = e::bin_bool("x");
                break;
            case ty::i:
                r.n.name = ints[below(2)];
                r.x = e::bin_int(r.n.name);
                break;
            case ty::f:
                r.n.name = floats[below(2)];
                r.x = e::bin_float(r.n.name);
                break;
            case ty::s:
                r.n.name = "s";
                r.x = e::bin_str("s");
                break;
            }
            return r;
        }
        if (t == ty::i && chance(15)) {
            switch (below(4)) {
            case 0:
                r.n.kind = rk::bin_type;
                r.n.name = "a";
                r.x = e::bin_type("a");
                return r;
            case 1:
                r.n.kind = rk::list_size;
                r.n.name = "l";
                r.x = e::list_size(e::bin_list("l"));
                return r;
            case 2: {
                i64 m = static_cast<i64>(below(9)) - 4;
                if (m == 0)
                    m = 7;
                r.n.kind = rk::digest_mod;
                r.n.v = value(m);
                r.x = e::digest_modulo(m);
                return r;
            }
            default:
                r.n.kind = rk::ttl;
                r.x = e::ttl();
                return r;
            }
        }
        if (t == ty::s && chance(15)) {
            r.n.kind = rk::set_name;
            r.x = e::set_name();
            return r;
        }
        if (t == ty::b && chance(15)) {
            r.n.kind = rk::bin_exists;
            r.n.name = chance(50) ? "a" : "zz";
            r.x = e::bin_exists(r.n.name);
            return r;
        }
        if (t == ty::b && chance(5)) {
            r.n.kind = rk::unknown;
            r.x = e::unknown();
            return r;
        }
        r.n.kind = rk::constant;
        switch (t) {
        case ty::b:
            r.n.v = value(chance(50));
            break;
        case ty::i:
            r.n.v = value(integer());
            break;
        case ty::f:
            r.n.v = value(floating());
            break;
        case ty::s:
            r.n.v = value(text());
            break;
        }
        r.x = e::val(r.n.v);
        return r;
    }

    built node(rk kind, int sub, ty t, std::vector<built> kids, const e::expr& x) {
        built r;
        r.n.kind = kind;
        r.n.sub = sub;
        r.n.type = t;
        for (built& k : kids)
            r.n.kids.push_back(std::move(k.n));
        r.x = x;
        return r;
    }

    std::vector<built> several(ty t, int depth, std::size_t lo, std::size_t hi) {
        std::vector<built> v;
        std::size_t n = lo + below(hi - lo + 1);
        for (std::size_t k = 0; k < n; ++k)
            v.push_back(make(t, depth - 1));
        return v;
    }
    static std::vector<e::expr> exprs(const std::vector<built>& v) {
        std::vector<e::expr> out;
        for (const built& b : v)
            out.push_back(b.x);
        return out;
    }
    static e::expr variadic(std::uint8_t code, const std::vector<built>& v) {
        std::vector<e::expr> xs = exprs(v);
        return e::detail::op_n(code, xs);
    }

    built make_bool(int depth) {
        switch (below(7)) {
        case 0:
        case 1: {
            static constexpr std::array<std::uint8_t, 6> codes = {e::code::cmp_eq,
                                                                  e::code::cmp_ne,
                                                                  e::code::cmp_gt,
                                                                  e::code::cmp_ge,
                                                                  e::code::cmp_lt,
                                                                  e::code::cmp_le};
            int sub = static_cast<int>(below(6));
            ty t = static_cast<ty>(below(4));
            std::vector<built> k{make(t, depth - 1), make(t, depth - 1)};
            return node(rk::cmp, sub, ty::b, k, variadic(codes[static_cast<std::size_t>(sub)], k));
        }
        case 2: {
            auto k = several(ty::b, depth, 2, 4);
            return node(rk::logic_and, 0, ty::b, k, variadic(e::code::and_, k));
        }
        case 3: {
            auto k = several(ty::b, depth, 2, 4);
            return node(rk::logic_or, 0, ty::b, k, variadic(e::code::or_, k));
        }
        case 4: {
            auto k = several(ty::b, depth, 2, 4);
            return node(rk::exclusive, 0, ty::b, k, variadic(e::code::exclusive, k));
        }
        case 5: {
            std::vector<built> k{make(ty::b, depth - 1)};
            return node(rk::logic_not, 0, ty::b, k, e::not_(k[0].x));
        }
        default: {
            std::vector<built> k{make(ty::i, depth - 1)};
            list l;
            for (u64 c = below(4); c > 0; --c)
                l.push_back(value(integer()));
            if (chance(30))
                l.push_back(value(1.0));
            built r = node(rk::in_list, 0, ty::b, k, e::in_list(k[0].x, e::val(value(l))));
            r.n.v = value(l);
            return r;
        }
        }
    }

    built arith(ty t, int depth) {
        static constexpr std::array<std::uint8_t, 9> codes = {e::code::add,
                                                              e::code::sub,
                                                              e::code::mul,
                                                              e::code::div,
                                                              e::code::min,
                                                              e::code::max,
                                                              e::code::int_and,
                                                              e::code::int_or,
                                                              e::code::int_xor};
        int sub = static_cast<int>(below(t == ty::i ? 9 : 6));
        auto k = several(t, depth, 1, 3);
        return node(rk::arith, sub, t, k, variadic(codes[static_cast<std::size_t>(sub)], k));
    }

    built cond(ty t, int depth) {
        std::vector<built> k;
        std::size_t cases = 1 + below(2);
        for (std::size_t c = 0; c < cases; ++c) {
            k.push_back(make(ty::b, depth - 1));
            k.push_back(make(t, depth - 1));
        }
        k.push_back(make(t, depth - 1));
        return node(rk::cond, 0, t, k, variadic(e::code::cond, k));
    }

    built let(ty t, int depth) {
        if (m_scope.size() >= 6)
            return make(t, depth - 1);
        ty vt = static_cast<ty>(below(3));
        built def = make(vt, depth - 1);
        std::string name = "v" + std::to_string(m_next++);
        i64 slot = static_cast<i64>(m_scope.size());
        m_scope.push_back({name, vt, slot});
        built body = make(t, depth - 1);
        m_scope.pop_back();
        built r;
        r.n.kind = rk::let;
        r.n.type = t;
        rnode holder;
        holder.slot = slot;
        holder.kids.push_back(std::move(def.n));
        r.n.kids.push_back(std::move(holder));
        r.n.kids.push_back(std::move(body.n));
        r.x = e::let(e::def(name, def.x), body.x);
        return r;
    }

    // A path expression over the int list bin "l", counted.
    built path_count() {
        const i64 k = integer();
        const e::expr l = e::bin_list("l");
        const e::expr elem = e::loopvar_int(e::loopvar::value);
        built r;
        r.n.kind = rk::path_count;
        r.n.type = ty::i;
        r.n.v = value(k);
        r.n.sub = static_cast<int>(below(2));
        r.x = r.n.sub == 0
                  ? e::list_size(e::select_by_path({e::ctx_all_children_with_filter(elem > k)},
                                                   e::type::list,
                                                   e::path_flags::value,
                                                   l))
                  : e::list_size(e::modify_by_path({e::ctx_all_children_with_filter(elem < k)},
                                                   e::type::list,
                                                   e::remove_result(),
                                                   0,
                                                   l));
        return r;
    }

    built make_int(int depth) {
        if (chance(3))
            return path_count();
        switch (below(11)) {
        case 0:
        case 1:
        case 2:
            return arith(ty::i, depth);
        case 3: {
            std::vector<built> k{make(ty::i, depth - 1), make(ty::i, depth - 1)};
            return node(rk::mod, 0, ty::i, k, e::mod(k[0].x, k[1].x));
        }
        case 4: {
            std::vector<built> k{make(ty::i, depth - 1)};
            switch (below(3)) {
            case 0:
                return node(rk::abs, 0, ty::i, k, e::abs(k[0].x));
            case 1:
                return node(rk::int_not, 0, ty::i, k, e::int_not(k[0].x));
            default:
                return node(rk::count, 0, ty::i, k, e::int_count(k[0].x));
            }
        }
        case 5: {
            int sub = static_cast<int>(below(3));
            std::vector<built> k{make(ty::i, depth - 1), make(ty::i, depth - 1)};
            e::expr x = sub == 0 ? e::int_lshift(k[0].x, k[1].x)
                                 : (sub == 1 ? e::int_rshift(k[0].x, k[1].x)
                                             : e::int_arshift(k[0].x, k[1].x));
            return node(rk::shift, sub, ty::i, k, x);
        }
        case 6: {
            int sub = static_cast<int>(below(2));
            std::vector<built> k{make(ty::i, depth - 1), make(ty::b, depth - 1)};
            return node(rk::scan,
                        sub,
                        ty::i,
                        k,
                        sub == 0 ? e::int_lscan(k[0].x, k[1].x) : e::int_rscan(k[0].x, k[1].x));
        }
        case 7: {
            std::vector<built> k{make(ty::f, depth - 1)};
            return node(rk::to_int, 0, ty::i, k, e::to_int(k[0].x));
        }
        case 8:
            return cond(ty::i, depth);
        case 9:
            return let(ty::i, depth);
        default:
            return leaf(ty::i);
        }
    }

    built make_float(int depth) {
        switch (below(7)) {
        case 0:
        case 1:
            return arith(ty::f, depth);
        case 2: {
            std::vector<built> k{make(ty::f, depth - 1)};
            switch (below(3)) {
            case 0:
                return node(rk::abs, 0, ty::f, k, e::abs(k[0].x));
            case 1:
                return node(rk::floor, 0, ty::f, k, e::floor(k[0].x));
            default:
                return node(rk::ceil, 0, ty::f, k, e::ceil(k[0].x));
            }
        }
        case 3: {
            std::vector<built> k{make(ty::i, depth - 1)};
            return node(rk::to_float, 0, ty::f, k, e::to_float(k[0].x));
        }
        case 4:
            return cond(ty::f, depth);
        case 5:
            return let(ty::f, depth);
        default:
            return leaf(ty::f);
        }
    }

    std::mt19937_64 m_rng;
    std::vector<scoped_var> m_scope;
    std::uint64_t m_next = 0;
};

e::record_view view_of(const record& r) {
    e::record_view v;
    v.find_bin = [](const void* c, std::string_view n) {
        return find(*static_cast<const record*>(c), n);
    };
    v.bins_ctx = &r;
    v.digest = r.digest;
    v.set_name = "s";
    v.void_time = r.void_time;
    v.now_ms = r.now_ms;
    return v;
}

std::string show(const std::optional<value>& v) {
    return v ? to_string(*v) : std::string("unknown");
}

bool same(const std::optional<value>& a, const std::optional<value>& b) {
    if (a.has_value() != b.has_value())
        return false;
    if (!a)
        return true;
    if (a->is_double() && b->is_double()) {
        double x = a->as_double(), y = b->as_double();
        return (std::isnan(x) && std::isnan(y)) || std::bit_cast<u64>(x) == std::bit_cast<u64>(y);
    }
    return *a == *b;
}

std::string hex(std::span<const std::uint8_t> b) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string s;
    for (std::uint8_t c : b) {
        s += digits[c >> 4];
        s += digits[c & 15];
    }
    return s;
}

} // namespace

TEST_CASE("the evaluator agrees with a naive reference on random expressions", "[exp][fuzz]") {
    const u64 seed = test::seed_for("exp_fuzz");
    const std::size_t evals = test::fuzz_ops(default_evals);
    INFO("KVMODEL_SEED base " << test::seed());
    gen g(seed);
    constexpr std::size_t records_per_tree = 10;
    std::size_t done = 0;
    std::size_t failures = 0;
    std::size_t unknowns = 0;
    std::size_t nodes = 0;
    std::vector<record> recs(records_per_tree);
    while (done < evals && failures < 5) {
        ty t = static_cast<ty>(g.below(4));
        built b = g.make(t, 1 + static_cast<int>(g.below(5)));
        nodes += b.x.bytes().size();
        auto p = e::compile(b.x.packed());
        if (!p) {
            FAIL_CHECK("a builder expression does not compile: " << p.error().message << " "
                                                                 << hex(b.x.packed()));
            ++failures;
            continue;
        }
        for (record& r : recs)
            r = g.random_record();
        for (const record& r : recs) {
            std::optional<value> got = e::evaluate(*p, view_of(r));
            ref rf{r};
            std::optional<value> want = rf.eval(b.n);
            ++done;
            if (!want)
                ++unknowns;
            if (!same(got, want)) {
                ++failures;
                FAIL_CHECK("divergence: expression " << hex(b.x.packed()) << " got " << show(got)
                                                     << " want " << show(want));
                break;
            }
        }
    }
    std::cout << "exp_fuzz: seed " << seed << ", " << done << " evaluations (" << unknowns
              << " unknown), " << nodes << " packed bytes, " << failures << " divergences\n";
    CHECK(failures == 0);
    CHECK(unknowns > done / 50);
    CHECK(unknowns < done / 10 * 9);
}

// A path expression over bin "l" (or a nested constant) for the decoder
// to mutate: filters, and-filters, key lists, a modify expression.
e::expr path_seed(u64 k) {
    const e::expr l = e::bin_list("l");
    switch (k % 4) {
    case 0:
        return e::select_by_path(
            {e::ctx_all_children_with_filter(e::loopvar_int(e::loopvar::value) > 0)},
            e::type::list,
            e::path_flags::value,
            l);
    case 1:
        return e::modify_by_path({e::ctx_all_children()},
                                 e::type::list,
                                 e::add(e::loopvar_int(e::loopvar::value), 1),
                                 0,
                                 l);
    case 2:
        return e::modify_by_path({e::ctx_step(cdt::ctx_step::list_index(0)),
                                  e::ctx_and_filter(e::loopvar_int(e::loopvar::index) == 0)},
                                 e::type::list,
                                 e::remove_result(),
                                 e::path_flags::no_fail,
                                 l);
    default: {
        const value m(map{{value("a"), value(list{value(std::int64_t{1})})},
                          {value(std::int64_t{2}), value("b")}});
        return e::select_by_path({e::ctx_all_children(), e::ctx_map_keys_in(list{value("a")})},
                                 e::type::list,
                                 e::path_flags::map_key_value | e::path_flags::no_fail,
                                 e::val(value(list{m, m})));
    }
    }
}

TEST_CASE("the decoder answers a status on random and mutated bytes", "[exp][fuzz]") {
    const u64 seed = test::seed_for("exp_decoder_fuzz");
    const std::size_t rounds = test::fuzz_ops(default_evals) / 5;
    gen g(seed);
    std::mt19937_64 rng(seed);
    std::size_t compiled = 0;
    record r = g.random_record();
    e::record_view v = view_of(r);
    for (std::size_t i = 0; i < rounds; ++i) {
        std::vector<std::uint8_t> b;
        if (i % 2 == 0) {
            // Random bytes, biased toward list headers and small op codes.
            std::size_t n = 1 + rng() % 24;
            for (std::size_t k = 0; k < n; ++k) {
                u64 c = rng() % 4;
                b.push_back(c == 0 ? static_cast<std::uint8_t>(0x90 | (rng() % 6))
                                   : (c == 1 ? static_cast<std::uint8_t>(rng() % 128)
                                             : static_cast<std::uint8_t>(rng())));
            }
        } else {
            b = i % 4 == 1 ? path_seed(rng()).bytes()
                           : g.make(static_cast<ty>(g.below(4)), 3).x.bytes();
            std::size_t muts = 1 + rng() % 3;
            for (std::size_t m = 0; m < muts && !b.empty(); ++m) {
                std::size_t at = rng() % b.size();
                switch (rng() % 4) {
                case 0:
                    b[at] = static_cast<std::uint8_t>(rng());
                    break;
                case 1:
                    b.erase(b.begin() + static_cast<std::ptrdiff_t>(at));
                    break;
                case 2:
                    b.insert(b.begin() + static_cast<std::ptrdiff_t>(at),
                             static_cast<std::uint8_t>(rng()));
                    break;
                default:
                    b.resize(at);
                    break;
                }
            }
        }
        auto p = e::compile(b);
        if (p) {
            ++compiled;
            (void)e::evaluate(*p, v);
        } else {
            CHECK(p.error().code == status::parameter_error);
            CHECK_FALSE(p.error().message.empty());
        }
    }
    std::cout << "exp_decoder_fuzz: " << rounds << " inputs, " << compiled << " compiled\n";
    CHECK(compiled > 0);
}

} // namespace exp_fuzz_test
