#!/usr/bin/env python3
"""Generates seeded random path-expression cases (shared/spec/exp-json.md) to
diff the simulator's select_by_path / modify_by_path against a real Aerospike
8.1 server.

Each case is a record whose bin `m` (a map) or `l` (a list) holds a random
tree of lists and maps 1 to 4 levels deep (UNORDERED, K_ORDERED and
KV_ORDERED maps; int, string, float, bool, nil and bytes leaves), sometimes
an ORDERED top-level list (the case bin `o`), and one op:

  * exp_read of select_by_path with every flag (MATCHING_TREE VALUE MAP_KEY
    MAP_KEY_VALUE, with or without NO_FAIL) over a context of 1 to 4 steps:
    all_children, all_children_with_filter (filters on loopvar_* KEY, VALUE
    and INDEX of every type, and / or / not, regexes, sizes of nested
    containers, filters that are unknown or not booleans, bin reads that are
    unknown without a record), and_filter after an ordinary step,
    map_keys_in, and the ordinary steps (index, rank, key, value; negative
    and out of range);
  * exp_write of modify_by_path (a new value from the loop variables,
    remove_result, cond between them, CDT calls on the element, INF, unknown)
    with or without NO_FAIL;
  * now and then a declared result type that does not fit, a bin of another
    type, or a filter on the command built from a select.

A sixth of the cases hold few distinct leaves and more rank steps, so ties
are picked as the server's quickselect picks them. Steps that make the server walk into a container of the wrong kind, filters
that are unknown and NO_FAIL against errors come out of the random mix. No
metadata read is generated inside a filter (the server evaluates those
without a record), nor an and-filter on a map index or rank step (see ctx()).

usage: gen_path_cases.py [--seed S] [--count N] > path_random.json
  then: kvmodel cdt --backend aerospike --host 127.0.0.1:3000 path_random.json \\
            > path_random.server.jsonl
"""
import argparse
import json
import random

STRS = ["", "a", "ab", "abc", "b", "x", "y", "zz", "k1", "k2"]
FLAG_MODES = [[], ["VALUE"], ["LIST_VALUE"], ["MAP_VALUE"], ["MAP_KEY"], ["MAP_KEY_VALUE"],
              ["MATCHING_TREE"]]
CMPS = ["cmp_eq", "cmp_ne", "cmp_gt", "cmp_ge", "cmp_lt", "cmp_le"]


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.ties = False  # few distinct leaves: rank steps among equal values

    def chance(self, p):
        return self.r.random() < p

    # --- data --------------------------------------------------------------------------
    def scalar(self):
        if self.ties:
            return self.r.choice([1, 2, 2, "a"])
        k = self.r.randint(0, 11)
        if k <= 4:
            return self.r.randint(-2, 9)
        if k <= 7:
            return self.r.choice(STRS)
        if k == 8:
            return {"$double": self.r.choice([0.5, 1.5, -2.0, 3.25])}
        if k == 9:
            return self.r.choice([True, False])
        if k == 10:
            return None
        return {"$bytes": self.r.choice(["", "01", "ff00"])}

    def key(self):
        return self.r.choice([self.r.randint(-1, 6), self.r.choice(STRS[1:])])

    def tree(self, depth):
        if depth <= 0 or self.chance(0.2):
            return self.scalar()
        return self.list_val(depth) if self.chance(0.45) else self.map_val(depth)

    def list_val(self, depth):
        return [self.tree(depth - 1) for _ in range(self.r.randint(0, 5))]

    def map_val(self, depth):
        m = {}
        for _ in range(self.r.randint(0, 5)):
            m[json.dumps(self.key())] = self.tree(depth - 1)
        out = {"$map": [[json.loads(k), v] for k, v in m.items()]}
        if self.chance(0.3):
            out["$order"] = self.r.choice(["K_ORDERED", "KV_ORDERED"])
        return out

    # --- filters over the loop variables -----------------------------------------------
    def loopvar(self, t=None):
        t = t or self.r.choice(["int", "str", "float", "bool", "list", "map", "blob", "nil"])
        vid = self.r.choice(["VALUE", "VALUE", "KEY", "INDEX"])
        if vid == "INDEX" and self.chance(0.9):
            t = "int"
        return t, ["loopvar_" + t, vid]

    def lit(self, t):
        if t == "int":
            return self.r.randint(-1, 8)
        if t == "str":
            return self.r.choice(STRS)
        if t == "float":
            return {"$double": self.r.choice([0.0, 1.0, 2.5])}
        if t == "bool":
            return self.r.choice([True, False])
        if t == "list":
            return {"$list": [self.r.randint(0, 3)]}
        if t == "map":
            return {"$map": [["a", 1]]}
        if t == "blob":
            return {"$bytes": "01"}
        return None

    def atom(self):
        k = self.r.randint(0, 13)
        if k <= 6:
            t, v = self.loopvar()
            if t in ("list", "map"):
                size = ["list_size" if t == "list" else "map_size", None, v]
                return [self.r.choice(CMPS), size, self.r.randint(0, 3)]
            if t == "nil":
                return ["cmp_eq", v, None]
            return [self.r.choice(CMPS), v, self.lit(t)]
        if k == 7:
            return ["cmp_regex", self.r.choice([[], ["ICASE"], ["EXTENDED"]]),
                    self.r.choice(["^a", "b", "^k[0-9]$", "z+"]), self.loopvar("str")[1]]
        if k == 8:
            return ["cmp_gt", ["mod", self.loopvar("int")[1], 2], 0]
        if k == 9:
            return ["cmp_eq", ["bin_int", "a"], 1]  # no record inside a filter: unknown
        if k == 10:
            return self.r.choice([True, False, ["unknown"]])
        if k == 11:
            return ["in_list", self.loopvar("int")[1], {"$list": [0, 2, 4, 6]}]
        if k == 12:
            return ["cmp_gt", ["list_size", None, ["map_keys_in", self.loopvar("map")[1]]], 1]
        return ["cmp_eq", ["loopvar_int", "INDEX"], self.r.randint(0, 3)]

    def filter(self, d=0):
        if d < 2 and self.chance(0.25):
            op = self.r.choice(["and", "or", "not"])
            if op == "not":
                return ["not", self.filter(d + 1)]
            return [op] + [self.filter(d + 1) for _ in range(self.r.randint(2, 3))]
        if self.chance(0.03):
            return ["add", self.loopvar("int")[1], 1]  # not a boolean: false
        return self.atom()

    # --- contexts ----------------------------------------------------------------------
    def step(self):
        k = self.r.randint(0, 19)
        if k <= 5:
            return {"type": "all_children"}
        if k <= 10:
            return {"type": "all_children_with_filter", "exp": self.filter()}
        if k == 11:
            return {"type": "map_keys_in", "keys": [self.key() for _ in range(self.r.randint(0, 4))]}
        if k == 12:
            return {"type": "map_key", "key": self.key()}
        if k == 13:
            return {"type": "map_index", "index": self.r.randint(-4, 4)}
        if k == 14 or (self.ties and k < 4):
            return {"type": "map_rank" if self.chance(0.5) else "list_rank", "rank": self.r.randint(-6, 6)}
        if k == 15:
            return {"type": "map_value", "value": self.scalar()}
        if k == 16:
            return {"type": "list_index", "index": self.r.randint(-5, 5)}
        if k == 17:
            return {"type": "list_rank", "rank": self.r.randint(-4, 4)}
        if k == 18:
            return {"type": "list_value", "value": self.scalar()}
        return {"type": "all_children"}

    def ctx(self):
        steps = []
        for _ in range(self.r.randint(1, 4)):
            s = self.step()
            steps.append(s)
            # (No and-filter on a map index or rank step: 8.1.2 then reads the
            # picked entry from where the filter's loop variables left its
            # reader and sends a garbled map, or corrupts a modified bin.)
            if not s["type"].startswith(("all_children", "map_index", "map_rank")) and self.chance(0.25):
                steps.append({"type": "and_filter", "exp": self.filter()})
        if self.chance(0.02):
            # An and-filter that the server refuses: first, or after an all-children step.
            steps.insert(0 if self.chance(0.5) else len(steps),
                         {"type": "and_filter", "exp": self.atom()})
        return steps

    def flags(self):
        f = list(self.r.choice(FLAG_MODES))
        if self.chance(0.4):
            f.append("NO_FAIL")
        return f

    # --- modify expressions --------------------------------------------------------------
    def mod_exp(self):
        k = self.r.randint(0, 15)
        if k <= 2:
            return ["add", ["loopvar_int", "VALUE"], self.r.randint(1, 100)]
        if k == 3:
            return ["remove_result"]
        if k == 4:
            return ["cond", self.filter(), ["remove_result"], ["unknown"]]
        if k == 5:
            return self.scalar() if self.chance(0.5) else ["val", self.scalar()]
        if k == 6:
            return ["mul", ["loopvar_int", "INDEX"], 10]
        if k == 7:
            return ["loopvar_str", "KEY"]
        if k == 8:
            return ["list_append", None, None, 99, ["loopvar_list", "VALUE"]]
        if k == 9:
            return ["map_put", None, None, "new", 1, ["loopvar_map", "VALUE"]]
        if k == 10:
            return ["inf"]
        if k == 11:
            return ["bin_int", "a"]
        if k == 12:
            return ["cond", self.filter(), ["add", ["loopvar_int", "VALUE"], 1], ["loopvar_int", "VALUE"]]
        if k == 13:
            return ["cond", self.filter(), ["remove_result"], ["loopvar_int", "VALUE"]]  # mixed types
        if k == 14:
            return ["cmp_gt", ["loopvar_int", "VALUE"], 3]
        return ["loopvar_" + self.r.choice(["int", "str", "map", "list", "float", "bool", "nil"]),
                self.r.choice(["VALUE", "KEY"])]

    # --- cases ---------------------------------------------------------------------------
    def case(self, i):
        c = {"id": "path_%05d" % i}
        self.ties = self.chance(0.15)
        kind = self.r.random()
        if kind < 0.45:
            bin_name, top = "m", self.map_val(self.r.randint(1, 4))
            while not top["$map"]:
                top = self.map_val(self.r.randint(1, 4))
        elif kind < 0.9:
            bin_name, top = "l", self.list_val(self.r.randint(1, 4))
        else:
            bin_name, top = "o", None
        bins = {"a": 1}
        if top is not None:
            bins[bin_name] = top
        else:
            c["bin_name"] = "o"
            c["bin_type"] = "list"
            c["order"] = "ORDERED"
            c["initial"] = sorted(self.r.randint(-2, 9) for _ in range(self.r.randint(0, 6)))
        c["bins"] = bins
        read = {"m": ["bin_map", "m"], "l": ["bin_list", "l"], "o": ["bin_list", "o"]}[bin_name]
        if self.chance(0.03):
            read = ["bin_map" if read[0] == "bin_list" else "bin_list", read[1]]
        top_type = "MAP" if bin_name == "m" else "LIST"
        steps = self.ctx()
        if self.chance(0.3):
            rt = top_type
            if self.chance(0.05):
                rt = "LIST" if rt == "MAP" else "MAP"
            flags = ["NO_FAIL"] if self.chance(0.4) else []
            mod = ["modify_by_path", steps, rt, self.mod_exp(), flags, read]
            c["ops"] = [{"op": "exp_write", "bin": bin_name, "exp": mod}]
            if self.chance(0.2):
                c["ops"][0]["flags"] = ["EVAL_NO_FAIL"]
            return c
        flags = self.flags()
        mode = [f for f in flags if f != "NO_FAIL"]
        rt = top_type if mode in ([], ["MATCHING_TREE"]) else "LIST"
        if self.chance(0.04):
            rt = self.r.choice(["LIST", "MAP", "INT"])
        sel = ["select_by_path", steps, rt, flags, read]
        if self.chance(0.08) and rt == "LIST":
            c["filter"] = ["cmp_gt", ["list_size", None, sel], self.r.randint(0, 2)]
            c["ops"] = [{"op": "read_bin", "bin": "a"}]
            return c
        op = {"op": "exp_read", "name": "r", "exp": sel}
        if self.chance(0.25):
            op["flags"] = ["EVAL_NO_FAIL"]
        c["ops"] = [op]
        return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1600)
    a = ap.parse_args()
    g = Gen(random.Random(a.seed))
    cases = [g.case(i) for i in range(a.count)]
    print("[")
    print(",\n".join(json.dumps(c) for c in cases))
    print("]")


if __name__ == "__main__":
    main()
