#!/usr/bin/env python3
"""Generates tests/adapters/data/wildcard_probes.json: seeded sweeps of the
places where a WILDCARD (or INF) makes Aerospike 8.1.2 answer from how it
searched rather than from the values alone, recorded
(wildcard_probes.server.jsonl) so the simulator keeps matching them.

  * lists: value lists holding a WILDCARD on UNORDERED lists (and ORDERED
    ones, which answer per item); maps: value lists on unindexed maps and key
    lists on unordered maps. The server sorts the items (glibc's stable merge
    sort, where a WILDCARD makes unequal items tie) and bisects the sorted
    items once per element, so a match can be missed; RANK results (INDEX for
    key lists) come from the same search;
  * top-level KV_ORDERED maps with a persisted index: get/remove by value,
    value list, value range and relative rank range with a WILDCARD, where the
    index search stops at the entry of key index 0 inside the equal run; and
    map_value context steps on them. Every such map holds a double, which
    ranks above every probe: 8.1.2 crashes (order_index_get assert) on a
    map_value step that ranks past the last entry of a persisted index;
  * context steps whose value holds a WILDCARD or INF: a map_key step with one
    never matches; a list_value / map_value step with one marks the op's
    arguments "non-storage" (the mark is sticky until a map_key step), so
    every op that stores a value fails with PARAMETER_ERROR.

usage: gen_wildcard_probes.py > wildcard_probes.json
"""
import json
import random

W = {"$wildcard": True}
INF = {"$inf": True}
MAP_RTS = ["NONE", "INDEX", "REVERSE_INDEX", "RANK", "REVERSE_RANK", "COUNT", "KEY", "VALUE", "KEY_VALUE",
           "EXISTS"]
LIST_RTS = ["NONE", "INDEX", "REVERSE_INDEX", "RANK", "REVERSE_RANK", "COUNT", "VALUE", "EXISTS"]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def scalar(self):
        return self.r.choice([0, 1, 2, 3, "x", "y", "zz", True, False, None])

    def elem(self, d=0):
        if self.r.random() < 0.5 or d > 1:
            return self.scalar()
        return [self.elem(d + 1) for _ in range(self.r.randint(0, 3))]

    def item(self, d=0):
        k = self.r.random()
        if k < 0.15:
            return W
        if k < 0.5 or d > 1:
            return self.scalar()
        return [self.item(d + 1) for _ in range(self.r.randint(0, 3))]

    def wild_item(self):
        while True:
            v = self.item()
            if "wildcard" in json.dumps(v):
                return v


def op(name, args, rt=None, inverted=False, ctx=None):
    o = {"op": name, "args": args}
    if rt:
        o["return_type"] = rt
    if inverted:
        o["inverted"] = True
    if ctx:
        o["ctx"] = ctx
    return o


def item_lists(seed, count):
    g = Gen(seed)
    r = g.r
    out = []
    for i in range(count):
        n = r.randint(1, 25)
        items = [g.item() for _ in range(r.randint(1, 14))]
        if "wildcard" not in json.dumps(items):
            items.append(r.choice([W, [r.choice(["x", 1]), W]]))
        inv = r.random() < 0.3
        rm = r.random() < 0.3
        cid = f"items-{seed}-{i}"
        if r.random() < 0.5:
            keylist = r.random() < 0.25
            pairs = [[k, g.elem()] for k in r.sample(range(40), n)]
            rt = r.choice([t for t in MAP_RTS if not (keylist and "RANK" in t)])
            if keylist:
                keys = [r.choice([r.randint(0, 40), W]) for _ in range(r.randint(1, 5))] + [W]
                o = op("map_remove_by_key_list" if rm else "map_get_by_key_list", {"keys": keys}, rt, inv)
            else:
                o = op("map_remove_by_value_list" if rm else "map_get_by_value_list", {"values": items}, rt, inv)
            out.append({"id": cid, "bin_type": "map", "order": r.choice(["UNORDERED", "K_ORDERED", "KV_ORDERED"]),
                        "initial": pairs, "ops": [o, {"op": "read"}]})
        else:
            o = op("list_remove_by_value_list" if rm else "list_get_by_value_list", {"values": items},
                   r.choice(LIST_RTS), inv)
            out.append({"id": cid, "bin_type": "list", "order": r.choice(["UNORDERED_LIST", "UNORDERED_LIST", "ORDERED"]),
                        "initial": [g.elem() for _ in range(n)], "ops": [o, {"op": "read"}]})
    return out


def persisted(seed, count):
    g = Gen(seed)
    r = g.r
    out = []
    for i in range(count):
        keys = r.sample(range(40), r.randint(1, 20))
        pairs = [[k, g.elem()] for k in keys]
        kind = r.choice(["value", "list", "range", "rel", "ctx"])
        rm = r.random() < 0.3
        inv = r.random() < 0.25
        rt = r.choice(MAP_RTS)
        pre = "map_remove_by_" if rm else "map_get_by_"
        if kind == "value":
            o = op(pre + "value", {"value": g.wild_item()}, rt, inv)
        elif kind == "list":
            o = op(pre + "value_list", {"values": [g.item() for _ in range(r.randint(1, 5))] + [g.wild_item()]},
                   rt, inv)
        elif kind == "range":
            args = {"begin": g.wild_item() if r.random() < 0.7 else g.item()}
            if r.random() < 0.75:
                args["end"] = g.wild_item() if r.random() < 0.6 else g.item()
            o = op(pre + "value_range", args, rt, inv)
        elif kind == "rel":
            args = {"value": g.wild_item(), "rank": r.randint(-4, 4)}
            if r.random() < 0.6:
                args["count"] = r.randint(0, 5)
            o = op(pre + "value_rel_rank_range", args, rt, inv)
        else:
            pairs = [[k, [r.choice([0, 1, "x"]), r.choice([0, 1, "x"])] if r.random() < 0.7 else g.elem()]
                     for k in keys]
            ctx = [{"type": "map_value", "value": r.choice([W, [W], [r.choice([0, 1, "x"]), W],
                                                            [W, r.choice([0, 1])]])}]
            o = op("list_size", {}, ctx=ctx) if r.random() < 0.5 else op("list_remove_by_index", {"index": 0},
                                                                           "VALUE", ctx=ctx)
        pairs.append([99, {"$double": 1.5}])
        out.append({"id": f"persisted-{seed}-{i}", "bin_type": "map", "initial": None,
                    "ops": [{"op": "map_create", "args": {"order": "KV_ORDERED", "persist_index": True}},
                            {"op": "map_put_items", "args": {"items": pairs}}, o, {"op": "read"}]})
    return out


CTX_OPS = [("list_append", {"value": 7}), ("list_append_items", {"values": [7, 8]}),
           ("list_insert", {"index": 0, "value": 7}), ("list_insert_items", {"index": 1, "values": [7]}),
           ("list_set", {"index": 0, "value": 7}), ("list_increment", {"index": 0, "delta": 1}),
           ("list_size", {}), ("list_remove_by_index", {"index": 0}), ("map_put", {"key": "k", "value": 7}),
           ("map_put_items", {"items": [["k", 7]]}), ("map_increment", {"key": "k", "delta": 1}),
           ("map_size", {}), ("map_remove_by_key", {"key": "k"}), ("list_sort", {}), ("map_clear", {}),
           ("list_clear", {})]


def contexts(seed, count):
    g = Gen(seed)
    r = g.r

    def small():
        return r.choice([0, 1, 2, "x"])

    def step_value():
        return r.choice([W, INF, [W], [small(), W], [small(), INF], small(), [small()], [small(), small()]])

    def inner():
        return r.choice([[small(), small()], [small()], {"$map": [["k", 1], ["a", small()]]},
                         [[small()], [small(), small()]], {"$map": [["k", [1]]]}])

    out = []
    for i in range(count):
        if r.random() < 0.5:
            c = {"bin_type": "map", "order": r.choice(["UNORDERED", "K_ORDERED", "KV_ORDERED"]),
                 "initial": [[k, inner()] for k in r.sample(["a", "b", "c", "d"], r.randint(1, 4))]}
        else:
            c = {"bin_type": "list", "order": r.choice(["UNORDERED_LIST", "ORDERED"]),
                 "initial": [inner() for _ in range(r.randint(1, 4))]}
        ctx = []
        for _ in range(r.randint(1, 3)):
            t = r.choice(["list_value", "map_value", "map_key", "list_index", "map_index", "map_key_create",
                          "list_index_create"])
            s = {"type": t}
            if t in ("list_value", "map_value"):
                s["value"] = step_value()
            elif t == "map_key":
                s["key"] = r.choice(["a", "b", "k", W, INF])
            elif t == "map_key_create":
                s["key"] = r.choice(["a", "z", "k"])
            elif t == "list_index_create":
                s["index"] = r.choice([0, 1, 5, -1])
            else:
                s["index"] = r.randint(-1, 2)
            ctx.append(s)
        name, args = r.choice(CTX_OPS)
        rt = "VALUE" if name.startswith(("list_remove", "map_remove")) else None
        c["id"] = f"ctx-{seed}-{i}"
        c["ops"] = [op(name, dict(args), rt, ctx=ctx), {"op": "read"}]
        out.append(c)
    return out


def main():
    cases = item_lists(1, 2000) + persisted(2, 1500) + contexts(3, 1500)
    print("[")
    print(",\n".join(json.dumps(c) for c in cases))
    print("]")


if __name__ == "__main__":
    main()
