#!/usr/bin/env python3
"""Generates seeded random expression cases (shared/spec/exp-json.md) to diff
the simulator's expression engine against a real Aerospike server.

Each case is a record with a few typed bins (int a/b, float f, string s, bool
t, list l, map m, bytes y; some missing, some of another type) and one to
three ops: exp_read of a random expression, exp_write with random flags, plain
bin reads and writes, and sometimes a filter on the command. Expressions are
grown by result type over every op code of the 8.1.2 expression language
(comparisons, regex, in_list, logic, arithmetic with edge integers, integer
bit ops, min/max, metadata, key, bin reads, bin_type, cond, let/var,
unknown, every list and map read and modify call with return types
(raw codes too), contexts and policies, and bit calls), and a few percent of
nodes get an argument of the wrong type, an unknown value or an unknown
variable, so the error paths are asked too.

Shapes that crash Aerospike 8.1.2 are never generated (see
gen_random_cases.py). Time-dependent metadata (ttl, void_time, last_update,
since_update) appears only in comparisons whose answer does not depend on
when the case runs.

usage: gen_exp_cases.py [--seed S] [--count N] > cases.json
  then: kvmodel cdt cases.json > sim.jsonl
        kvmodel cdt --backend aerospike --host 127.0.0.1:3000 cases.json > server.jsonl
"""
import argparse
import json
import random

I64_MAX = 2**63 - 1
I64_MIN = -2**63
EDGE_INTS = [0, 1, -1, 2, 63, 64, 65, -64, I64_MAX, I64_MIN, I64_MAX - 1, I64_MIN + 1, 2**32, -2**31]
LIST_RTS = ["NONE", "INDEX", "REVERSE_INDEX", "RANK", "REVERSE_RANK", "COUNT", "VALUE", "EXISTS"]
MAP_RTS = LIST_RTS + ["KEY", "KEY_VALUE", "UNORDERED_MAP", "ORDERED_MAP"]
VTYPES = ["INT", "STR", "FLOAT", "LIST", "MAP", "BOOL", "BLOB", "NIL", "AUTO"]


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.vars = []  # let variables in scope: (name, type)

    def chance(self, p):
        return self.r.random() < p

    # --- plain values ----------------------------------------------------------------
    def int_lit(self):
        return self.r.choice(EDGE_INTS) if self.chance(0.2) else self.r.randint(-5, 12)

    def float_lit(self):
        return {"$double": self.r.choice([0.0, -0.0, 1.5, -2.25, 3.0, 1e300, -1e-300, 0.5, 10.0])}

    def str_lit(self):
        return self.r.choice(["", "a", "ab", "abc", "Abc", "b", "zz", "a.c", "x\ny", "10"])

    def scalar(self):
        k = self.r.randint(0, 5)
        if k == 0:
            return self.float_lit()
        if k == 1:
            return self.str_lit()
        if k == 2:
            return self.r.choice([True, False])
        return self.r.randint(-3, 8)

    def elem(self, depth=0):
        if depth < 1 and self.chance(0.15):
            return self.list_val(depth + 1)
        if depth < 1 and self.chance(0.1):
            return self.map_val(depth + 1)
        return self.scalar()

    def list_val(self, depth=0):
        return [self.elem(depth) for _ in range(self.r.randint(0, 5))]

    def map_key(self):
        return self.r.choice([self.r.randint(-2, 6), self.str_lit()])

    def map_val(self, depth=0):
        m = {}
        for _ in range(self.r.randint(0, 5)):
            m[json.dumps(self.map_key())] = self.elem(depth)
        pairs = [[json.loads(k), v] for k, v in m.items()]
        out = {"$map": pairs}
        if self.chance(0.3):
            out["$order"] = self.r.choice(["K_ORDERED", "KV_ORDERED"])
        return out

    def bytes_val(self):
        n = self.r.randint(0, 4)
        return {"$bytes": "".join(self.r.choice("0f13a5ff80") for _ in range(2 * n))[:2 * n]}

    # --- expressions by type --------------------------------------------------------
    def wrong(self, t, d):
        """Now and then an expression of another type (an error path)."""
        if self.chance(0.012):
            other = self.r.choice([x for x in ["int", "float", "str", "bool", "list", "map", "blob"] if x != t])
            return self.exp(other, d)
        if self.chance(0.005):
            return ["unknown"]
        return None

    def exp(self, t, d=0):
        w = self.wrong(t, d) if d > 0 else None
        if w is not None:
            return w
        if self.vars and self.chance(0.15):
            same = [n for n, vt in self.vars if vt == t]
            if same:
                return ["var", self.r.choice(same)]
        if d > 3 or self.chance(0.25):
            return self.leaf(t)
        if self.chance(0.05):
            return self.let_exp(t, d)
        if self.chance(0.05):
            return self.cond_exp(t, d)
        return getattr(self, "exp_" + t)(d + 1)

    def leaf(self, t):
        if t == "int":
            return self.r.choice([self.int_lit(), ["bin_int", self.r.choice("ab")], ["int", self.int_lit()]])
        if t == "float":
            return self.r.choice([self.float_lit(), ["bin_float", "f"], ["float", 2.5]])
        if t == "str":
            return self.r.choice([self.str_lit(), ["bin_str", "s"], ["str", self.str_lit()]])
        if t == "bool":
            return self.r.choice([True, False, ["bin_bool", "t"], ["bool", self.chance(0.5)]])
        if t == "list":
            return self.r.choice([{"$list": self.list_val()}, ["bin_list", "l"], ["val", self.list_val()]])
        if t == "map":
            return self.r.choice([self.map_val(), ["bin_map", "m"]])
        return self.r.choice([self.bytes_val(), ["bin_blob", "y"], ["bytes", self.bytes_val()]])

    def let_exp(self, t, d):
        name = self.r.choice(["x", "y", "v1", "_z"])
        vt = self.r.choice(["int", "float", "str", "list", "bool"])
        e = self.exp(vt, d + 1)
        self.vars.append((name, vt))
        body = self.exp(t, d + 1)
        self.vars.pop()
        if self.chance(0.02):
            body = ["var", "undefined"]
        return ["let", ["def", name, e], body]

    def cond_exp(self, t, d):
        n = self.r.randint(1, 2)
        args = []
        for _ in range(n):
            args += [self.exp("bool", d + 1), self.exp(t, d + 1)]
        if not self.chance(0.05):
            args.append(self.exp(t, d + 1))
        return ["cond"] + args

    def exp_int(self, d):
        r = self.r
        k = r.randint(0, 23)
        a = lambda: self.exp("int", d)
        if k < 4:
            return [r.choice(["add", "sub", "mul", "div", "min", "max"])] + [a() for _ in range(r.randint(1, 3))]
        if k == 4:
            return ["mod", a(), a()]
        if k == 5:
            return ["abs", a()]
        if k == 6:
            return [r.choice(["int_and", "int_or", "int_xor"])] + [a() for _ in range(r.randint(1, 3))]
        if k == 7:
            return [r.choice(["int_lshift", "int_rshift", "int_arshift"]), a(), a()]
        if k == 8:
            return [r.choice(["int_not", "int_count"]), a()]
        if k == 9:
            return [r.choice(["int_lscan", "int_rscan"]), a(), self.exp("bool", d)]
        if k == 10:
            return ["to_int", self.exp("float", d)]
        if k == 11:
            return ["digest_modulo", r.choice([1, 2, 3, 7, 100])]
        if k == 12:
            return ["bin_type", r.choice("abfstlmyq")]
        if k == 13:
            return ["list_size", self.ctx(d, "list"), self.exp("list", d)]
        if k == 14:
            return ["map_size", self.ctx(d, "map"), self.exp("map", d)]
        if k == 15:
            return self.list_read(d, "INT")
        if k == 16:
            return self.map_read(d, "INT")
        if k == 17:
            return ["bit_count", a(), a(), self.exp("blob", d)]
        if k == 18:
            return [r.choice(["bit_lscan", "bit_rscan"]), a(), a(), self.exp("bool", d), self.exp("blob", d)]
        if k == 19:
            return ["bit_get_int", a(), r.choice([1, 8, 16, 64, 65, 0]), r.choice([True, False]), self.exp("blob", d)]
        if k == 20:
            # Not device_size / memory_size: they answer by the namespace's storage
            # (the simulator's is a device, the recording server's memory).
            return ["record_size"]
        if k == 21:
            return ["key_int"] if self.chance(0.3) else ["bin_int", r.choice("abfq")]
        return [r.choice(["add", "mul", "max"]), a(), a()]

    def exp_float(self, d):
        r = self.r
        k = r.randint(0, 7)
        a = lambda: self.exp("float", d)
        if k < 2:
            return [r.choice(["add", "sub", "mul", "div", "min", "max"])] + [a() for _ in range(r.randint(1, 3))]
        if k == 2:
            return [r.choice(["pow", "log"]), a(), a()]
        if k == 3:
            return [r.choice(["floor", "ceil", "abs"]), a()]
        if k == 4:
            return ["to_float", self.exp("int", d)]
        if k == 5:
            return self.list_read(d, "FLOAT")
        if k == 6:
            return self.map_read(d, "FLOAT")
        return ["mod", a(), a()] if self.chance(0.2) else ["div", a(), a()]

    def exp_str(self, d):
        r = self.r
        k = r.randint(0, 4)
        if k == 0:
            return ["set_name"]
        if k == 1:
            return ["key_str"]
        if k == 2:
            return self.list_read(d, "STR")
        if k == 3:
            return self.map_read(d, "STR")
        return ["bin_str", r.choice(["s", "a", "zz"])]

    def exp_bool(self, d):
        r = self.r
        k = r.randint(0, 16)
        if k < 5:
            t = r.choice(["int", "int", "float", "str", "list", "map", "bool", "blob"])
            return [r.choice(["cmp_eq", "cmp_ne", "cmp_gt", "cmp_ge", "cmp_lt", "cmp_le"]),
                    self.exp(t, d), self.exp(t, d)]
        if k < 8:
            return [r.choice(["and", "or", "exclusive"])] + [self.exp("bool", d) for _ in range(r.randint(1, 3))]
        if k == 8:
            return ["not", self.exp("bool", d)]
        if k == 9:
            return ["bin_exists", r.choice("abfstlmyq")]
        if k == 10:
            return ["in_list", self.exp(r.choice(["int", "str"]), d), self.exp("list", d)]
        if k == 11:
            flags = [f for f in ["EXTENDED", "ICASE", "NEWLINE"] if self.chance(0.4)]
            pat = r.choice(["^a", "b$", "a.c", "^$", "[a-c]+", "A", "(a|z)", "^x$", "y", "a{2}"])
            return ["cmp_regex", flags, pat, self.exp("str", d)]
        if k == 12:
            return r.choice([["key_exist"], ["is_tombstone"]])
        if k == 13:
            # Time-dependent metadata, only where the answer does not depend on when.
            return r.choice([["cmp_ge", ["since_update"], 0], ["cmp_gt", ["last_update"], 0],
                             ["cmp_eq", ["ttl"], -1], ["cmp_eq", ["void_time"], -1],
                             ["cmp_gt", ["ttl"], 100000]])
        if k == 14:
            return self.list_read(d, "BOOL")
        if k == 15:
            return ["cmp_eq", self.list_read(d, "AUTO"), self.exp("int", d)]
        return ["cmp_eq", self.map_read(d, "AUTO"), self.exp("list", d)]

    def exp_list(self, d):
        r = self.r
        k = r.randint(0, 5)
        if k < 2:
            return self.list_modify(d)
        if k == 2:
            return self.list_read(d, "LIST", multi=True)
        if k == 3:
            return self.map_read(d, "LIST", multi=True)
        if k == 4:
            return self.list_read(d, "LIST")
        return ["bin_list", r.choice(["l", "m"])]

    def exp_map(self, d):
        r = self.r
        k = r.randint(0, 3)
        if k < 2:
            return self.map_modify(d)
        if k == 2:
            return self.map_read(d, "MAP", multi=True)
        return self.map_read(d, "MAP")

    def exp_blob(self, d):
        return self.bit_modify(d) if self.chance(0.7) else ["bit_get", self.exp("int", d), self.r.randint(0, 16), self.exp("blob", d)]

    # --- CDT calls -------------------------------------------------------------------
    def ctx(self, d, kind):
        if not self.chance(0.15):
            return None
        r = self.r
        step = r.choice([{"type": "list_index", "index": r.randint(-2, 3)},
                         {"type": "list_rank", "rank": r.randint(-1, 2)},
                         {"type": "map_key", "key": self.map_key()},
                         {"type": "map_index", "index": r.randint(-1, 2)},
                         {"type": "map_rank", "rank": r.randint(-1, 2)},
                         {"type": "list_value", "value": self.scalar()},
                         {"type": "map_value", "value": self.scalar()}])
        return [step]

    def rtype(self, rts):
        r = self.r
        if self.chance(0.03):
            return r.randint(0, 18)
        rt = r.choice(rts)
        if self.chance(0.15):
            return [rt, "INVERTED"]
        return rt

    def list_read(self, d, want, multi=False):
        r = self.r
        c = self.ctx(d, "list")
        b = self.exp("list", d)
        i = lambda: self.exp("int", d)
        v = lambda: self.exp(r.choice(["int", "str"]), d)
        if not multi and self.chance(0.6):
            name = r.choice(["list_get_by_index", "list_get_by_rank"])
            rt = "VALUE" if self.chance(0.7) else self.rtype(["VALUE", "INDEX", "RANK", "COUNT", "EXISTS", "REVERSE_INDEX"])
            vt = want if want != "AUTO" else r.choice(VTYPES[:-1] if self.chance(0.9) else VTYPES)
            return [name, c, rt, vt, i(), b]
        rt = "VALUE" if self.chance(0.5) else self.rtype(LIST_RTS)
        k = r.randint(0, 8)
        if k == 0:
            return ["list_get_by_value", c, rt, v(), b]
        if k == 1:
            return ["list_get_by_value_list", c, rt, self.exp("list", d), b]
        if k == 2:
            return ["list_get_by_value_range", c, rt, v(), v(), b]
        if k == 3:
            return ["list_get_by_index_range", c, rt, i(), i(), b]
        if k == 4:
            return ["list_get_by_index_range_to_end", c, rt, i(), b]
        if k == 5:
            return ["list_get_by_rank_range", c, rt, i(), i(), b]
        if k == 6:
            return ["list_get_by_rank_range_to_end", c, rt, i(), b]
        if k == 7:
            return ["list_get_by_rel_rank_range", c, rt, v(), i(), i(), b]
        return ["list_get_by_rel_rank_range_to_end", c, rt, v(), i(), b]

    def map_read(self, d, want, multi=False):
        r = self.r
        c = self.ctx(d, "map")
        b = self.exp("map", d)
        i = lambda: self.exp("int", d)
        k_ = lambda: self.exp(r.choice(["int", "str"]), d)
        if not multi and self.chance(0.6):
            name = r.choice(["map_get_by_key", "map_get_by_index", "map_get_by_rank"])
            rt = "VALUE" if self.chance(0.7) else self.rtype(
                ["VALUE", "KEY", "INDEX", "RANK", "COUNT", "EXISTS", "KEY_VALUE", "ORDERED_MAP", "UNORDERED_MAP"])
            vt = want if want != "AUTO" else r.choice(VTYPES[:-1] if self.chance(0.9) else VTYPES)
            arg = k_() if name == "map_get_by_key" else i()
            return [name, c, rt, vt, arg, b]
        rt = self.r.choice(["VALUE", "KEY", "ORDERED_MAP"]) if self.chance(0.5) else self.rtype(MAP_RTS)
        k = r.randint(0, 12)
        if k == 0:
            return ["map_get_by_value", c, rt, k_(), b]
        if k == 1:
            return ["map_get_by_value_list", c, rt, self.exp("list", d), b]
        if k == 2:
            return ["map_get_by_key_list", c, rt, self.exp("list", d), b]
        if k == 3:
            return ["map_get_by_key_range", c, rt, k_(), k_(), b]
        if k == 4:
            return ["map_get_by_value_range", c, rt, k_(), k_(), b]
        if k == 5:
            return ["map_get_by_index_range", c, rt, i(), i(), b]
        if k == 6:
            return ["map_get_by_index_range_to_end", c, rt, i(), b]
        if k == 7:
            return ["map_get_by_rank_range", c, rt, i(), i(), b]
        if k == 8:
            return ["map_get_by_rank_range_to_end", c, rt, i(), b]
        if k == 9:
            return ["map_get_by_key_rel_index_range", c, rt, k_(), i(), i(), b]
        if k == 10:
            return ["map_get_by_key_rel_index_range_to_end", c, rt, k_(), i(), b]
        if k == 11:
            return ["map_get_by_value_rel_rank_range", c, rt, k_(), i(), i(), b]
        return ["map_get_by_value_rel_rank_range_to_end", c, rt, k_(), i(), b]

    def list_policy(self):
        if self.chance(0.5):
            return None
        flags = [f for f in ["ADD_UNIQUE", "INSERT_BOUNDED", "NO_FAIL", "PARTIAL"] if self.chance(0.25)]
        return {"order": self.r.choice(["ORDERED", "UNORDERED"]), "flags": flags}

    def map_policy(self):
        if self.chance(0.5):
            return None
        flags = [f for f in ["CREATE_ONLY", "UPDATE_ONLY", "NO_FAIL", "PARTIAL"] if self.chance(0.25)]
        return {"order": self.r.choice(["UNORDERED", "K_ORDERED", "KV_ORDERED"]), "flags": flags}

    def list_modify(self, d):
        r = self.r
        c = self.ctx(d, "list")
        b = self.exp("list", d)
        i = lambda: self.exp("int", d)
        v = lambda: self.exp(r.choice(["int", "str", "float"]), d)
        k = r.randint(0, 17)
        if k == 0:
            return ["list_append", c, self.list_policy(), v(), b]
        if k == 1:
            return ["list_append_items", c, self.list_policy(), self.exp("list", d), b]
        if k == 2:
            return ["list_insert", c, self.list_policy(), i(), v(), b]
        if k == 3:
            return ["list_insert_items", c, self.list_policy(), i(), self.exp("list", d), b]
        if k == 4:
            return ["list_set", c, self.list_policy(), i(), v(), b]
        if k == 5:
            return ["list_increment", c, self.list_policy(), i(), self.exp(r.choice(["int", "float"]), d), b]
        if k == 6:
            return ["list_clear", c, b]
        if k == 7:
            return ["list_sort", c, r.choice([[], ["DROP_DUPLICATES"]]), b]
        rt = r.choice(["NONE", "NONE", ["NONE", "INVERTED"]])
        if k == 8:
            return ["list_remove_by_index", c, i(), b]
        if k == 9:
            return ["list_remove_by_rank", c, i(), b]
        if k == 10:
            return ["list_remove_by_value", c, rt, v(), b]
        if k == 11:
            return ["list_remove_by_value_list", c, rt, self.exp("list", d), b]
        if k == 12:
            return ["list_remove_by_value_range", c, rt, v(), v(), b]
        if k == 13:
            return ["list_remove_by_index_range", c, rt, i(), i(), b]
        if k == 14:
            return ["list_remove_by_index_range_to_end", c, rt, i(), b]
        if k == 15:
            return ["list_remove_by_rank_range", c, rt, i(), i(), b]
        if k == 16:
            return ["list_remove_by_rel_rank_range", c, rt, v(), i(), i(), b]
        return ["list_remove_by_rank_range_to_end", c, rt, i(), b]

    def map_modify(self, d):
        r = self.r
        c = self.ctx(d, "map")
        b = self.exp("map", d)
        i = lambda: self.exp("int", d)
        k_ = lambda: self.exp(r.choice(["int", "str"]), d)
        v = lambda: self.exp(r.choice(["int", "str", "float", "list"]), d)
        k = r.randint(0, 16)
        if k == 0:
            return ["map_put", c, self.map_policy(), k_(), v(), b]
        if k == 1:
            return ["map_put_items", c, self.map_policy(), self.exp("map", d), b]
        if k == 2:
            return ["map_increment", c, self.map_policy(), k_(), self.exp(r.choice(["int", "float"]), d), b]
        if k == 3:
            return ["map_clear", c, b]
        rt = r.choice(["NONE", "NONE", ["NONE", "INVERTED"]])
        if k == 4:
            return ["map_remove_by_key", c, k_(), b]
        if k == 5:
            return ["map_remove_by_index", c, i(), b]
        if k == 6:
            return ["map_remove_by_rank", c, i(), b]
        if k == 7:
            return ["map_remove_by_key_list", c, rt, self.exp("list", d), b]
        if k == 8:
            return ["map_remove_by_value", c, rt, v(), b]
        if k == 9:
            return ["map_remove_by_value_list", c, rt, self.exp("list", d), b]
        if k == 10:
            return ["map_remove_by_key_range", c, rt, k_(), k_(), b]
        if k == 11:
            return ["map_remove_by_index_range", c, rt, i(), i(), b]
        if k == 12:
            return ["map_remove_by_value_range", c, rt, v(), v(), b]
        if k == 13:
            return ["map_remove_by_rank_range_to_end", c, rt, i(), b]
        if k == 14:
            return ["map_remove_by_key_rel_index_range", c, rt, k_(), i(), i(), b]
        if k == 15:
            return ["map_remove_by_value_rel_rank_range_to_end", c, rt, v(), i(), b]
        return ["map_remove_by_index_range_to_end", c, rt, i(), b]

    def bit_policy(self):
        if self.chance(0.6):
            return None
        return [f for f in ["CREATE_ONLY", "UPDATE_ONLY", "NO_FAIL", "PARTIAL"] if self.chance(0.2)]

    def bit_modify(self, d):
        r = self.r
        b = self.exp("blob", d)
        off = lambda: r.choice([0, 1, 3, 7, 8, 9, 15, 16, 31, -1, -8, 40]) if self.chance(0.8) else self.exp("int", d)
        size = lambda: r.choice([0, 1, 2, 4, 7, 8, 9, 16, 24, 64, 65]) if self.chance(0.8) else self.exp("int", d)
        p = self.bit_policy()
        # PARTIAL shifts crash 8.1.2: shifts never get PARTIAL.
        k = r.randint(0, 12)
        if k == 0:
            return ["bit_resize", p, r.randint(0, 6),
                    [f for f in ["FROM_FRONT", "GROW_ONLY", "SHRINK_ONLY"] if self.chance(0.3)], b]
        if k == 1:
            return ["bit_insert", p, r.randint(-2, 5), self.exp("blob", d), b]
        if k == 2:
            return ["bit_remove", p, r.randint(-2, 5), r.randint(0, 4), b]
        if k < 7:
            return [r.choice(["bit_set", "bit_or", "bit_xor", "bit_and"]), p, off(), size(), self.exp("blob", d), b]
        if k == 7:
            return ["bit_not", p, off(), size(), b]
        if k == 8:
            p2 = [f for f in (p or []) if f != "PARTIAL"]
            return [r.choice(["bit_lshift", "bit_rshift"]), p2, off(), size(), r.randint(0, 9), b]
        if k == 9:
            return [r.choice(["bit_add", "bit_subtract"]), p, off(), r.choice([1, 4, 8, 16, 63, 64]),
                    self.exp("int", d), r.choice(["FAIL", "SATURATE", "WRAP"]), b]
        if k == 10:
            return [r.choice(["bit_add_signed", "bit_subtract_signed"]), p, off(), r.choice([1, 4, 8, 16, 63, 64]),
                    self.exp("int", d), r.choice([True, False]), r.choice(["FAIL", "SATURATE", "WRAP"]), b]
        return ["bit_set_int", p, off(), r.choice([1, 4, 8, 16, 64]), self.exp("int", d), b]

    # --- cases ------------------------------------------------------------------------
    def bins(self):
        r = self.r
        b = {}
        typed = {"a": lambda: self.int_lit(), "b": lambda: self.int_lit(), "f": lambda: self.float_lit(),
                 "s": lambda: self.str_lit(), "t": lambda: r.choice([True, False]),
                 "l": lambda: self.list_val(), "m": lambda: self.map_val(), "y": lambda: self.bytes_val()}
        for name, mk in typed.items():
            if self.chance(0.85):
                b[name] = mk()
            elif self.chance(0.5):
                b[name] = self.scalar()  # a bin of another type
        if not b:
            b["a"] = 1
        return b

    def case(self, i):
        r = self.r
        c = {"id": "exp-%d" % i, "bins": self.bins()}
        if self.chance(0.1):
            c["send_key"] = True
        if self.chance(0.03):
            c["record_exists"] = False
        ops = []
        for _ in range(r.randint(1, 3)):
            k = r.random()
            t = r.choice(["int", "int", "bool", "bool", "float", "str", "list", "list", "map", "map", "blob"])
            if k < 0.65:
                op = {"op": "exp_read", "name": r.choice(["r", "q", "a"]), "exp": self.exp(t)}
                if self.chance(0.6):
                    op["flags"] = ["EVAL_NO_FAIL"]
            elif k < 0.9:
                op = {"op": "exp_write", "bin": r.choice(["w", "a", "l", "m", "y", "s"]), "exp": self.exp(t)}
                flags = [f for f in ["CREATE_ONLY", "UPDATE_ONLY", "ALLOW_DELETE", "POLICY_NO_FAIL"]
                         if self.chance(0.2)]
                if self.chance(0.5):
                    flags.append("EVAL_NO_FAIL")
                if flags:
                    op["flags"] = flags
            elif k < 0.95:
                op = {"op": "read_bin", "bin": r.choice(["a", "w", "l", "m"])}
            else:
                op = {"op": "write_bin", "bin": r.choice(["a", "w"]), "value": self.scalar()}
            ops.append(op)
        c["ops"] = ops
        if self.chance(0.2):
            c["filter"] = self.exp("bool")
        return c


def strip_inverted_value_lists(e):
    """8.1.2 crashes on a key or value list selector with INVERTED whose list is
    empty (gen_random_cases.py): such selectors never get INVERTED here."""
    if isinstance(e, list):
        if e and isinstance(e[0], str) and (e[0].endswith("_value_list") or e[0].endswith("_key_list")):
            if len(e) > 2 and isinstance(e[2], list) and e[2][1:] == ["INVERTED"]:
                e[2] = e[2][0]
        for x in e:
            strip_inverted_value_lists(x)
    elif isinstance(e, dict):
        for x in e.values():
            strip_inverted_value_lists(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=5000)
    a = ap.parse_args()
    g = Gen(random.Random(a.seed))
    cases = [g.case(i) for i in range(a.count)]
    for c in cases:
        strip_inverted_value_lists(c)
    print("[")
    print(",\n".join(json.dumps(c) for c in cases))
    print("]")


if __name__ == "__main__":
    main()
