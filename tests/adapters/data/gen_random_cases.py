#!/usr/bin/env python3
"""Generates seeded random cdt-json cases (shared/spec/cdt-json.md) to diff the
simulator against a real Aerospike server: random small maps and lists of
mixed value types, nested up to three levels, random operations of every map,
list and bit kind with random arguments, return types, INVERTED, write flags,
policy orders and context paths (mostly paths that exist, some that do not,
create steps among them), one to three ops per case.

gen_cdt_conformance.py sweeps each argument on a fixed bin; this one mixes
them, so the shapes nobody thought to write down get asked too. The recorded
suite random_diff.json (--seed 1 --count 4000) and random_diff.server.jsonl
keep what the server answered (cdt_conformance_test.cpp); cases of other
seeds that once diverged live in server_probes.json (gen_server_probes.py).

Shapes that crash Aerospike 8.1.2 (AEROSPIKE-CDT.md §12, §14) are never
generated: empty key/value lists with INVERTED, list-index create steps with a
negative index (nor list_create / map_create through one), pads
beyond a few elements, persisted indexes, PARTIAL shifts and logic ops on bytes.

--profile picks the shape of the random containers (PROFILES below): small
(the default, and the recorded suite's), wide (long containers of few distinct
integers: ties), deep (three levels, nearly every op through a context), bits
(longer blobs, wider bit ranges), values (edge ints, doubles, deltas and
strings), large (lists and maps of up to a few thousand elements: indexed
lists, map trees of two and three levels, ranges selecting hundreds).

usage: gen_random_cases.py [--seed S] [--count N] [--profile P] > cases.json
  then: kvmodel cdt cases.json > sim.jsonl
        kvmodel cdt --backend aerospike --host 127.0.0.1:3000 cases.json > server.jsonl
        diff sim.jsonl server.jsonl
"""
import argparse
import json
import random

NIL = {"$nil": True}
INF = {"$inf": True}
WILD = {"$wildcard": True}

MAP_ORDERS = ["UNORDERED", "K_ORDERED", "KV_ORDERED"]
LIST_ORDERS = ["UNORDERED_LIST", "ORDERED"]
MAP_RTS = ["NONE", "INDEX", "REVERSE_INDEX", "RANK", "REVERSE_RANK", "COUNT", "KEY", "VALUE",
           "KEY_VALUE", "EXISTS", "UNORDERED_MAP", "ORDERED_MAP"]
LIST_RTS = ["NONE", "INDEX", "REVERSE_INDEX", "RANK", "REVERSE_RANK", "COUNT", "VALUE", "EXISTS"]
MAP_SELECTORS = ["key", "key_list", "key_range", "key_rel_index_range", "value", "value_list",
                 "value_range", "value_rel_rank_range", "index", "index_range", "rank", "rank_range"]
LIST_SELECTORS = ["index", "index_range", "rank", "rank_range", "value", "value_list", "value_range",
                  "value_rel_rank_range"]


# Profiles: what the random containers look like. `small` (the default, and the
# recorded suite's) keeps containers short and types mixed; `wide` makes longer
# containers over few distinct integers (many ties: rank windows, value runs,
# ADD_UNIQUE), `deep` nests three levels and reaches into them by context
# almost always, `bits` uses longer blobs and wider bit ranges.
PROFILES = {
    "small": {"ints": (-2, 9), "key_ints": (-2, 9), "top_list": (0, 7), "top_map": (0, 6),
              "inner_list": (0, 4), "inner_map": (0, 3), "nest": 0.3, "deep": 0.5, "ctx": 0.6,
              "count": (-2, 6), "blob": (0, 5), "bit_size": 20},
    "wide": {"ints": (0, 4), "key_ints": (-10, 40), "top_list": (8, 30), "top_map": (8, 30),
             "inner_list": (0, 8), "inner_map": (0, 6), "nest": 0.2, "deep": 0.7, "ctx": 0.5,
             "count": (-2, 12), "blob": (0, 5), "bit_size": 20},
    "deep": {"ints": (-2, 9), "key_ints": (-2, 9), "top_list": (1, 5), "top_map": (1, 5),
             "inner_list": (1, 4), "inner_map": (1, 3), "nest": 0.7, "deep": 0.0, "ctx": 0.9,
             "count": (-2, 6), "blob": (0, 5), "bit_size": 20},
    # Edge values: msgpack width boundaries, int64 limits (increments wrap),
    # -0.0 and huge doubles, multi-byte strings.
    "values": {"ints": (-2, 9), "key_ints": (-2, 9), "top_list": (0, 9), "top_map": (0, 8),
               "inner_list": (0, 4), "inner_map": (0, 3), "nest": 0.3, "deep": 0.5, "ctx": 0.6,
               "count": (-2, 6), "blob": (0, 5), "bit_size": 20,
               "int_pool": [0, 1, -1, 127, 128, -32, -33, 255, 256, -128, -129, 65535, 65536,
                            -32768, -32769, 2**31 - 1, 2**31, -2**31, 2**32, 2**63 - 1, -2**63,
                            2**63 - 2, -2**63 + 1],
               "doubles": [-0.0, 0.0, 1.0, -1.0, 0.5, 1e308, -1e308, 5e-324, 2.0**63, 127.0],
               "strings": ["", "a", "A", "é", "日本", "a\u0000b", "zz", "aa" * 20, "ü", "\u00ff"],
               "deltas": [1, -1, 2**63 - 1, -2**63, 2**62, {"$double": 1e308}, {"$double": -0.0},
                          {"$double": 0.5}, "x"]},
    # Long containers (tens to a few thousand elements): lists past the flat
    # layout, maps whose trees have two or three levels, ranges that select
    # hundreds; values repeat now and then (ties across leaves).
    "large": {"ints": (-300, 300), "key_ints": (-3000, 3000), "top_list": (60, 2500),
              "top_map": (30, 2500), "inner_list": (0, 4), "inner_map": (0, 3), "nest": 0.1,
              "deep": 0.8, "ctx": 0.4, "count": (-2, 400), "blob": (0, 5), "bit_size": 20},
    "bits": {"ints": (-2, 9), "key_ints": (-2, 9), "top_list": (0, 7), "top_map": (0, 6),
             "inner_list": (0, 4), "inner_map": (0, 3), "nest": 0.3, "deep": 0.5, "ctx": 0.6,
             "count": (-2, 6), "blob": (0, 24), "bit_size": 80},
}


class Gen:
    def __init__(self, rng, profile="small"):
        self.r = rng
        self.p = PROFILES[profile]
        self.profile = profile

    def chance(self, p):
        return self.r.random() < p

    # ---- values -------------------------------------------------------------
    def small_int(self):
        if "int_pool" in self.p:
            return self.r.choice(self.p["int_pool"])
        return self.r.randint(*self.p["ints"])

    def scalar(self):
        k = self.r.random()
        if k < 0.55:
            return self.small_int()
        if k < 0.80:
            return self.r.choice(self.p.get("strings", ["a", "b", "c", "d", "e", "bb", ""]))
        if k < 0.88:
            return {"$double": self.r.choice(self.p.get("doubles", [-1.5, 0.0, 1.0, 2.5, 7.25]))}
        if k < 0.93:
            return self.r.choice([True, False])
        if k < 0.97:
            return {"$bytes": self.r.choice(["", "00", "01ff"])}
        return None

    def map_key(self):
        if self.chance(0.6):
            return self.r.randint(*self.p["key_ints"])
        return self.r.choice(["a", "b", "c", "d", "e"])

    def pairs(self, depth, n=None):
        """[key, value] pairs with distinct keys, in random (insertion) order."""
        n = self.r.randint(*self.p["top_map"]) if n is None else n
        out, seen = [], set()
        for _ in range(n):
            k = self.map_key()
            if json.dumps(k) in seen:
                continue
            seen.add(json.dumps(k))
            out.append([k, self.value(depth)])
        return out

    def value(self, depth):
        """A value; containers while depth > 0."""
        if depth > 0 and self.chance(self.p["nest"]):
            if self.chance(0.55):
                return [self.value(depth - 1) for _ in range(self.r.randint(*self.p["inner_list"]))]
            return self.nested_map(depth - 1)
        return self.scalar()

    def nested_map(self, depth):
        # Map values sent as arguments are compared as sent (AEROSPIKE-CDT.md
        # §12): keep them key-sorted, one key type per map.
        ps = self.pairs(depth, self.r.randint(*self.p["inner_map"]))
        if any(isinstance(k, int) for k, _ in ps):
            ps = [p for p in ps if isinstance(p[0], int)]
        ps.sort(key=lambda p: p[0])
        return {"$map": ps}

    def probe(self, pool):
        """A search value: mostly one present in pool, sometimes a fresh or wildcard one."""
        if pool and self.chance(0.6):
            v = self.r.choice(pool)
            if isinstance(v, list) and v and self.chance(0.25):
                return [v[0], WILD]
            return v
        return self.value(1)

    def bound(self, pool):
        k = self.r.random()
        if k < 0.1:
            return NIL
        if k < 0.15:
            return INF
        if k < 0.22:
            return [self.small_int(), INF] if self.chance(0.5) else [self.small_int(), NIL]
        return self.probe(pool)

    def count(self):
        if self.chance(0.3):
            return None
        return self.r.randint(*self.p["count"])

    def idx(self, n):
        """Mostly an index or rank that exists, sometimes one just outside."""
        if n and self.chance(0.8):
            return self.r.randint(-n, n - 1)
        return self.r.randint(-n - 2, n + 2)

    def rts(self, table):
        if self.chance(0.02):
            return self.r.choice([99, 13])
        return self.r.choice(table)

    # ---- ops on one container ---------------------------------------------------
    def map_op(self, keys, vals, n, in_ctx):
        op, args = None, {}
        k = self.r.random()
        if k < 0.62:
            sel = self.r.choice(MAP_SELECTORS)
            verb = "get" if self.chance(0.6) else "remove"
            op = f"map_{verb}_by_{sel}"
            what = sel.split("_")[0]  # key, value, index or rank
            pool = keys if what == "key" else vals
            if sel in ("key", "value"):
                args = {sel: self.probe(pool)}
            elif sel.endswith("_list"):
                args = {what + "s": [self.probe(pool) for _ in range(self.r.randint(0, 3))]}
            elif sel in ("key_range", "value_range"):
                args = self.range_args(pool)
            elif "_rel_" in sel:
                args = {what: self.probe(pool), "index" if what == "key" else "rank": self.r.randint(-3, 3)}
            elif sel in ("index", "rank"):
                args = {sel: self.idx(n)}
            else:
                args = {"index" if sel == "index_range" else "rank": self.idx(n)}
            if sel in ("key_rel_index_range", "value_rel_rank_range", "index_range", "rank_range"):
                c = self.count()
                if c is not None:
                    args["count"] = c
            o = {"op": op, "args": args, "return_type": self.rts(MAP_RTS)}
            empty_list = sel in ("key_list", "value_list") and not args.get("keys", args.get("values"))
            if self.chance(0.25) and not empty_list:
                o["inverted"] = True
            return o
        if k < 0.78:
            o = {"op": "map_put", "args": {"key": self.probe(keys) if self.chance(0.5) else self.map_key(),
                                           "value": self.value(1)}}
        elif k < 0.86:
            o = {"op": "map_put_items", "args": {"items": self.pairs(1, self.r.randint(0, 3))}}
        elif k < 0.92:
            o = {"op": self.r.choice(["map_increment", "map_decrement"]),
                 "args": {"key": self.probe(keys) if self.chance(0.6) else self.map_key(),
                          "delta": self.r.choice(self.p.get("deltas", [1, -2, 5, {"$double": 0.5}, "x"]))}}
        elif k < 0.95:
            o = {"op": self.r.choice(["map_size", "map_clear"])}
        else:
            o = {"op": self.r.choice(["map_set_policy", "map_create"]),
                 "args": {"order": self.r.choice(MAP_ORDERS)}}
        if o["op"] in ("map_put", "map_put_items", "map_increment", "map_decrement"):
            if self.chance(0.4):
                o["flags"] = self.r.choice([["CREATE_ONLY"], ["UPDATE_ONLY"], ["CREATE_ONLY", "NO_FAIL"],
                                            ["UPDATE_ONLY", "NO_FAIL"], ["CREATE_ONLY", "NO_FAIL", "PARTIAL"],
                                            ["UPDATE_ONLY", "NO_FAIL", "PARTIAL"], ["PARTIAL"], ["NO_FAIL"]])
            if self.chance(0.3):
                o["policy_order"] = self.r.choice(MAP_ORDERS)
        return o

    def range_args(self, pool):
        a = {}
        if self.chance(0.85):
            a["begin"] = self.bound(pool)
        if self.chance(0.8):
            a["end"] = self.bound(pool)
        return a

    def list_op(self, vals, n, in_ctx):
        k = self.r.random()
        if k < 0.55:
            sel = self.r.choice(LIST_SELECTORS)
            verb = "get" if self.chance(0.6) else "remove"
            if sel in ("index", "rank"):
                args = {sel: self.idx(n)}
            elif sel in ("index_range", "rank_range"):
                args = {sel[:-6]: self.idx(n)}
            elif sel == "value":
                args = {"value": self.probe(vals)}
            elif sel == "value_list":
                args = {"values": [self.probe(vals) for _ in range(self.r.randint(0, 3))]}
            elif sel == "value_range":
                args = self.range_args(vals)
            else:
                args = {"value": self.probe(vals), "rank": self.r.randint(-3, 3)}
            if sel in ("index_range", "rank_range", "value_rel_rank_range"):
                c = self.count()
                if c is not None:
                    args["count"] = c
            o = {"op": f"list_{verb}_by_{sel}", "args": args, "return_type": self.rts(LIST_RTS)}
            if self.chance(0.25) and not (sel == "value_list" and not args["values"]):
                o["inverted"] = True
            return o
        if k < 0.63:
            o = {"op": "list_append", "args": {"value": self.probe(vals)}}
        elif k < 0.68:
            o = {"op": "list_append_items", "args": {"values": [self.probe(vals) for _ in range(self.r.randint(0, 3))]}}
        elif k < 0.73:
            o = {"op": "list_insert", "args": {"index": self.idx(n), "value": self.probe(vals)}}
        elif k < 0.76:
            o = {"op": "list_insert_items",
                 "args": {"index": self.idx(n), "values": [self.probe(vals) for _ in range(self.r.randint(0, 3))]}}
        elif k < 0.80:
            o = {"op": "list_set", "args": {"index": self.idx(n), "value": self.probe(vals)}}
        elif k < 0.83:
            o = {"op": "list_increment", "args": {"index": self.idx(n)}}
            if self.chance(0.7):
                o["args"]["delta"] = self.r.choice(self.p.get("deltas", [1, -3, {"$double": 1.5}, "x"]))
        else:
            name = self.r.choice(["list_pop", "list_pop_range", "list_remove", "list_remove_range", "list_trim",
                                  "list_get", "list_get_range", "list_size", "list_clear", "list_sort",
                                  "list_set_order", "list_create"])
            o = {"op": name}
            if name in ("list_pop", "list_remove", "list_get"):
                o["args"] = {"index": self.idx(n)}
            elif name in ("list_pop_range", "list_remove_range", "list_trim", "list_get_range"):
                o["args"] = {"index": self.idx(n)}
                c = self.count()
                if c is not None or name == "list_trim":
                    o["args"]["count"] = c if c is not None else self.r.randint(0, 4)
            elif name == "list_sort" and self.chance(0.5):
                o["flags"] = ["DROP_DUPLICATES"]
            elif name in ("list_set_order", "list_create"):
                o["args"] = {"order": self.r.choice(LIST_ORDERS)}
                if name == "list_create" and self.chance(0.3):
                    o["args"]["pad"] = True
        if o["op"] in ("list_append", "list_append_items", "list_insert", "list_insert_items", "list_set",
                       "list_increment"):
            if self.chance(0.4):
                o["flags"] = self.r.choice([["ADD_UNIQUE"], ["ADD_UNIQUE", "NO_FAIL"],
                                            ["ADD_UNIQUE", "NO_FAIL", "PARTIAL"], ["INSERT_BOUNDED"],
                                            ["INSERT_BOUNDED", "NO_FAIL"], ["NO_FAIL"],
                                            ["ADD_UNIQUE", "INSERT_BOUNDED", "NO_FAIL", "PARTIAL"]])
            if self.chance(0.3):
                o["policy_order"] = self.r.choice(LIST_ORDERS)
        return o

    # ---- contexts ------------------------------------------------------------------
    def ctx_path(self, top):
        """A context path into `top` (a list, or a {"$map": pairs}), and the container it reaches."""
        steps, cur = [], top
        for _ in range(self.r.randint(1, 3)):
            if isinstance(cur, list) and cur:
                i = self.r.randrange(len(cur))
                k = self.r.random()
                if k < 0.6:
                    steps.append({"type": "list_index", "index": i if self.chance(0.7) else i - len(cur)})
                    cur = cur[i]
                elif k < 0.8:
                    # rank/value steps: the element found is computed by the server; follow index 0's shape
                    steps.append({"type": "list_value", "value": cur[i]})
                    cur = cur[i]
                else:
                    steps.append({"type": "list_rank", "rank": self.r.randint(-1, len(cur) - 1)})
                    cur = None
            elif isinstance(cur, dict) and cur.get("$map"):
                ps = cur["$map"]
                i = self.r.randrange(len(ps))
                k = self.r.random()
                if k < 0.6:
                    steps.append({"type": "map_key", "key": ps[i][0]})
                    cur = ps[i][1]
                elif k < 0.75:
                    steps.append({"type": "map_index", "index": self.r.randint(-1, len(ps) - 1)})
                    cur = None
                elif k < 0.88:
                    steps.append({"type": "map_value", "value": ps[i][1]})
                    cur = ps[i][1]
                else:
                    steps.append({"type": "map_rank", "rank": self.r.randint(-1, len(ps) - 1)})
                    cur = None
            else:
                break
            if cur is None or not isinstance(cur, (list, dict)):
                break
        # Sometimes a step that does not exist, or creates.
        k = self.r.random()
        if k < 0.1:
            steps.append({"type": "map_key", "key": "zz"})
            cur = None
        elif k < 0.2:
            s = {"type": "map_key_create", "key": self.r.choice(["new", "a", 1])}
            if self.chance(0.5):
                s["order"] = self.r.choice(MAP_ORDERS)
            steps.append(s)
            cur = None
        elif k < 0.27:
            s = {"type": "list_index_create", "index": self.r.randint(0, 3)}
            if self.chance(0.5):
                s["order"] = self.r.choice(LIST_ORDERS)
            if self.chance(0.5):
                s["pad"] = True
            steps.append(s)
            cur = None
        return steps, cur


def contents(container):
    """(keys, values, n) of a list or {"$map": pairs} for argument pools."""
    if isinstance(container, list):
        return [], container, len(container)
    if isinstance(container, dict) and "$map" in container:
        ps = container["$map"]
        return [p[0] for p in ps], [p[1] for p in ps], len(ps)
    return [], [], 0


def bit_case(g, cid):
    blob = {"$bytes": "".join(g.r.choice("0f18a5ff") + g.r.choice("0f18a5ff")
                              for _ in range(g.r.randint(*g.p["blob"])))}
    nbits = (len(blob["$bytes"]) // 2) * 8
    ops = []
    for _ in range(g.r.randint(1, 3)):
        off = g.r.randint(-nbits - 2, nbits + 2)
        size = g.r.randint(0, g.p["bit_size"])
        name = g.r.choice(["bit_get", "bit_count", "bit_lscan", "bit_rscan", "bit_get_int", "bit_set", "bit_or",
                           "bit_xor", "bit_and", "bit_not", "bit_lshift", "bit_rshift", "bit_add", "bit_subtract",
                           "bit_set_int", "bit_resize", "bit_insert", "bit_remove"])
        args = {"bit_offset": off, "bit_size": size}
        if name in ("bit_lscan", "bit_rscan"):
            args["value"] = g.chance(0.5)
        elif name == "bit_get_int":
            args["bit_size"] = g.r.randint(0, 65)
            if g.chance(0.5):
                args["signed"] = True
        elif name in ("bit_set", "bit_or", "bit_xor", "bit_and"):
            args["value"] = {"$bytes": g.r.choice(["", "ff", "a5a5", "0f0f0f"])}
        elif name in ("bit_lshift", "bit_rshift"):
            args["shift"] = g.r.randint(0, 12)
        elif name in ("bit_add", "bit_subtract"):
            args["bit_size"] = g.r.randint(0, 65)
            args["value"] = g.r.randint(-300, 300)
            args["action"] = g.r.choice(["FAIL", "SATURATE", "WRAP"])
            if g.chance(0.5):
                args["signed"] = True
        elif name == "bit_set_int":
            args["bit_size"] = g.r.randint(0, 65)
            args["value"] = g.r.randint(-300, 300)
        elif name == "bit_resize":
            args = {"byte_size": g.r.randint(0, 8)}
            if g.chance(0.5):
                args["resize_flags"] = g.r.sample(["FROM_FRONT", "GROW_ONLY", "SHRINK_ONLY"], g.r.randint(1, 2))
        elif name == "bit_insert":
            args = {"byte_offset": g.r.randint(0, 7), "value": {"$bytes": g.r.choice(["", "aa", "0102"])}}
        elif name == "bit_remove":
            args = {"byte_offset": g.r.randint(0, 6), "byte_size": g.r.randint(0, 4)}
        op = {"op": name, "args": args}
        if name not in ("bit_get", "bit_count", "bit_lscan", "bit_rscan", "bit_get_int") and g.chance(0.3):
            fl = g.r.choice([["NO_FAIL"], ["CREATE_ONLY"], ["UPDATE_ONLY"], ["CREATE_ONLY", "NO_FAIL"],
                             ["PARTIAL"], ["NO_FAIL", "PARTIAL"]])
            # PARTIAL on shifts and logic ops crashes 8.1.2 (AEROSPIKE-CDT.md §14).
            if "PARTIAL" in fl and name in ("bit_lshift", "bit_rshift", "bit_set", "bit_or", "bit_xor",
                                            "bit_and", "bit_not"):
                fl = [f for f in fl if f != "PARTIAL"] or ["NO_FAIL"]
            op["flags"] = fl
        ops.append(op)
    initial = blob if g.chance(0.9) else None
    return {"id": cid, "bin_type": "bytes", "initial": initial, "ops": ops}


def make_case(g, i):
    cid = f"random-{i}"
    k = g.r.random()
    if k < 0.08:
        return bit_case(g, cid)
    is_map = k < 0.5
    depth = 0 if g.chance(g.p["deep"]) else g.r.randint(1, 3)
    if is_map:
        initial = g.pairs(depth)
        top = {"$map": initial}
        order = g.r.choice(MAP_ORDERS)
    else:
        initial = [g.value(depth) for _ in range(g.r.randint(*g.p["top_list"]))]
        top = initial
        order = g.r.choice(LIST_ORDERS)
    c = {"id": cid, "bin_type": "map" if is_map else "list", "order": order}
    if g.chance(0.04):
        c["record_exists"] = False
        initial = None
    elif g.chance(0.04):
        initial = None
    c["initial"] = initial
    ops = []
    for _ in range(g.r.choice([1, 1, 1, 2, 2, 3])):
        ctx, target = ([], top)
        if depth > 0 and g.chance(g.p["ctx"]):
            ctx, target = g.ctx_path(top)
        keys, vals, n = contents(target)
        # The container the path found decides the op's kind; a path into
        # something unknown (rank steps, creates, misses) gets either.
        if target is top:
            target_is_map = is_map
        elif isinstance(target, (list, dict)):
            target_is_map = isinstance(target, dict)
        else:
            target_is_map = g.chance(0.5)
        if g.chance(0.03):
            target_is_map = not target_is_map  # wrong container type
        op = g.map_op(keys, vals, n, bool(ctx)) if target_is_map else g.list_op(vals, n, bool(ctx))
        if ctx:
            op["ctx"] = ctx
            # list_create / map_create make the last step a create step, and
            # a negative create index crashes 8.1.2 when it creates a list on
            # a missing bin (§12 case (b), found as seed 129 of a variant) or
            # is out of range: before the start of an UNORDERED list with pad
            # (--profile wide, seed 7), of an ORDERED list with or without
            # (wide seed 21, deep seed 11). The list's length after the case's
            # earlier ops is not known here, so never a negative one.
            last = ctx[-1]
            if op["op"] in ("list_create", "map_create") and \
                    last["type"] == "list_index" and last["index"] < 0:
                op = {"op": "list_size" if op["op"] == "list_create" else "map_size", "ctx": ctx}
        ops.append(op)
    if g.chance(0.3):
        ops.append({"op": "read"})
    c["ops"] = ops
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--profile", choices=sorted(PROFILES), default="small")
    a = ap.parse_args()
    g = Gen(random.Random(a.seed), a.profile)
    cases = [make_case(g, i) for i in range(a.count)]
    print("[")
    print(",\n".join(json.dumps(c, separators=(", ", ": ")) for c in cases))
    print("]")


if __name__ == "__main__":
    main()
