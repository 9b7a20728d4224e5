#!/usr/bin/env python3
"""Generates tests/adapters/data/server_probes.json: the cases where the
simulator once disagreed with Aerospike 8.1.2 and the probes that pinned each
rule down, recorded (server_probes.server.jsonl) so that none comes back.

  * rank windows of UNORDERED lists that split equal values (the server's
    order heap picks which copies; list_rank context steps too);
  * map writes through create steps that NO_FAIL denies entirely (nothing is
    created) against those that still create (empty put_items, set_policy,
    increment, list writes);
  * value lists on maps of one entry (the order-index path: results repeat
    per item), swept over map sizes 1-2, orders, return types and INVERTED;
  * bit rscan whose only match lies before bit_offset in the first byte;
  * bit add/subtract overflow as the server's sign test decides it (signed
    edge cases probed, and a seeded sweep over sizes, values and actions);
  * increments that create from 0 with a delta of -0.0 (0 + -0.0 is +0.0);
  * ORDERED adds of -0.0 among 0.0s (the server's search decides the place),
    and rank windows of UNORDERED lists holding both (its heap decides which
    and in what order): a seeded sweep;
  * the cases of gen_random_cases.py's seeds that first showed each of these
    (seed, id; profile, seed, id for other profiles than small), regenerated
    from the generator.

usage: gen_server_probes.py > server_probes.json
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_random_cases  # noqa: E402

PROBES = json.loads("""[
    {"id": "t1", "bin_type": "list", "initial": [2, 1, 2, 1, 2], "ops": [{"op": "list_get_by_rank", "args": {"rank": 3}, "return_type": "INDEX"}, {"op": "list_get_by_rank_range", "args": {"rank": 1, "count": 2}, "return_type": "INDEX"}, {"op": "list_remove_by_rank", "args": {"rank": 2}, "return_type": "INDEX"}]},
    {"id": "t2", "bin_type": "list", "initial": ["e", "b", "e", 5], "ops": [{"op": "list_remove_by_rank", "args": {"rank": 3}, "return_type": "REVERSE_RANK"}]},
    {"id": "t3", "bin_type": "list", "initial": [9, -1, 9], "ops": [{"op": "list_remove_by_rank", "args": {"rank": -2}, "return_type": "NONE"}]},
    {"id": "t4", "bin_type": "list", "initial": [{"$double": -1.5}, 9, 9, "c", 9, 4, 8], "ops": [{"op": "list_get_by_value_rel_rank_range", "args": {"value": {"$double": -1.5}, "rank": -3, "count": 4}, "return_type": "INDEX", "inverted": true}]},
    {"id": "t5", "bin_type": "list", "initial": ["c", 2, "d", 1, 9, 9], "ops": [{"op": "list_get_by_rank_range", "args": {"rank": 3, "count": -2}, "return_type": "INDEX", "inverted": true}, {"op": "list_get_by_rank_range", "args": {"rank": 0, "count": 2}, "return_type": "INDEX"}]},
    {"id": "t6", "bin_type": "list", "initial": [[1], [0], [1]], "ops": [{"op": "list_append", "args": {"value": 7}, "ctx": [{"type": "list_rank", "rank": 1}]}]},
    {"id": "t7", "bin_type": "list", "initial": [5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5], "ops": [{"op": "list_get_by_rank_range", "args": {"rank": 3, "count": 4}, "return_type": "INDEX"}, {"op": "list_get_by_rank_range", "args": {"rank": 7, "count": 3}, "return_type": "INDEX"}, {"op": "list_get_by_rank", "args": {"rank": 6}, "return_type": "INDEX"}]},
    {"id": "c1", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "map_put", "args": {"key": 7, "value": 1}, "flags": ["UPDATE_ONLY", "NO_FAIL"], "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "read"}]},
    {"id": "c2", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "map_put", "args": {"key": 7, "value": 1}, "flags": ["UPDATE_ONLY"], "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "read"}]},
    {"id": "c3", "bin_type": "list", "initial": [[1]], "ops": [{"op": "list_insert", "args": {"index": 3, "value": 1}, "flags": ["INSERT_BOUNDED", "NO_FAIL"], "ctx": [{"type": "list_index_create", "index": 1}]}, {"op": "read"}]},
    {"id": "c4", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "list_append_items", "args": {"values": []}, "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "read"}]},
    {"id": "c5", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "map_put_items", "args": {"items": []}, "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "read"}]},
    {"id": "c6", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "map_put_items", "args": {"items": [[1, 2]]}, "flags": ["UPDATE_ONLY", "NO_FAIL"], "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "read"}]},
    {"id": "c8", "bin_type": "map", "initial": null, "ops": [{"op": "map_put", "args": {"key": 7, "value": 1}, "flags": ["UPDATE_ONLY", "NO_FAIL"], "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "read"}]},
    {"id": "c9", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "map_put", "args": {"key": 7, "value": 1}, "flags": ["UPDATE_ONLY", "NO_FAIL"], "ctx": [{"type": "map_key_create", "key": "a"}, {"type": "map_key_create", "key": "b"}]}, {"op": "read"}]},
    {"id": "c10", "bin_type": "map", "initial": null, "ops": [{"op": "map_put", "args": {"key": 7, "value": 1}, "flags": ["UPDATE_ONLY", "NO_FAIL"]}, {"op": "read"}]},
    {"id": "c11", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "map_set_policy", "args": {"order": "K_ORDERED"}, "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "read"}]},
    {"id": "c11b", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "list_set_order", "args": {"order": "ORDERED"}, "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "read"}]},
    {"id": "c13", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "list_sort", "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "read"}]},
    {"id": "c14", "bin_type": "map", "initial": [["x", [1, 2]]], "ops": [{"op": "list_append", "args": {"value": 1}, "flags": ["ADD_UNIQUE", "NO_FAIL"], "ctx": [{"type": "map_key_create", "key": "x"}]}, {"op": "read"}]},
    {"id": "c15", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "list_append_items", "args": {"values": [1, 1]}, "flags": ["ADD_UNIQUE", "NO_FAIL"], "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "read"}]},
    {"id": "c16", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "map_put", "args": {"key": 7, "value": 1}, "flags": ["UPDATE_ONLY", "NO_FAIL"], "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "map_put", "args": {"key": 8, "value": 1}, "ctx": [{"type": "map_key_create", "key": "b"}]}, {"op": "read"}]},
    {"id": "c17", "bin_type": "list", "initial": [1], "ops": [{"op": "map_put", "args": {"key": 7, "value": 1}, "flags": ["UPDATE_ONLY", "NO_FAIL"], "ctx": [{"type": "list_index_create", "index": 3, "pad": true}]}, {"op": "read"}]},
    {"id": "c18", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "map_increment", "args": {"key": 7, "delta": 1}, "flags": ["UPDATE_ONLY", "NO_FAIL"], "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "read"}]},
    {"id": "c19", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "map_create", "args": {"order": "K_ORDERED"}, "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "read"}]},
    {"id": "c20", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "list_create", "args": {"order": "ORDERED"}, "ctx": [{"type": "map_key_create", "key": "a"}]}, {"op": "read"}]},
    {"id": "c21", "bin_type": "map", "initial": [["x", {"$map": []}]], "ops": [{"op": "map_put", "args": {"key": 7, "value": 1}, "flags": ["UPDATE_ONLY", "NO_FAIL"], "ctx": [{"type": "map_key_create", "key": "x"}, {"type": "map_key_create", "key": "b"}]}, {"op": "read"}]},
    {"id": "c22", "bin_type": "list", "initial": null, "ops": [{"op": "list_insert", "args": {"index": 3, "value": 1}, "flags": ["INSERT_BOUNDED", "NO_FAIL"]}, {"op": "read"}]},
    {"id": "c23", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "map_put", "args": {"key": 7, "value": 1}, "flags": ["CREATE_ONLY", "NO_FAIL"], "ctx": [{"type": "map_key_create", "key": "x"}]}, {"op": "read"}]},
    {"id": "x1", "bin_type": "list", "initial": [[5], [5]], "ops": [{"op": "list_append", "args": {"value": 1}, "ctx": [{"type": "list_rank", "rank": 1}]}]},
    {"id": "x2", "bin_type": "list", "initial": [[5], [5]], "ops": [{"op": "list_append", "args": {"value": 1}, "ctx": [{"type": "list_rank", "rank": 0}]}]},
    {"id": "b1", "bin_type": "bytes", "initial": {"$bytes": "8f1f"}, "ops": [{"op": "bit_rscan", "args": {"bit_offset": 2, "bit_size": 0, "value": true}}]},
    {"id": "b2", "bin_type": "bytes", "initial": {"$bytes": "8f1f"}, "ops": [{"op": "bit_lscan", "args": {"bit_offset": 2, "bit_size": 0, "value": true}}]},
    {"id": "b3", "bin_type": "bytes", "initial": {"$bytes": "8f1f"}, "ops": [{"op": "bit_rscan", "args": {"bit_offset": 2, "bit_size": 1, "value": true}}]},
    {"id": "b4", "bin_type": "bytes", "initial": {"$bytes": "ff00ff"}, "ops": [{"op": "bit_rscan", "args": {"bit_offset": 3, "bit_size": 12, "value": true}}, {"op": "bit_rscan", "args": {"bit_offset": 3, "bit_size": 12, "value": false}}, {"op": "bit_rscan", "args": {"bit_offset": 9, "bit_size": 5, "value": true}}, {"op": "bit_rscan", "args": {"bit_offset": 0, "bit_size": 24, "value": false}}]},
    {"id": "b5", "bin_type": "bytes", "initial": {"$bytes": "f0000000"}, "ops": [{"op": "bit_rscan", "args": {"bit_offset": 6, "bit_size": 20, "value": true}}, {"op": "bit_rscan", "args": {"bit_offset": 6, "bit_size": 2, "value": true}}]},
    {"id": "q1", "bin_type": "bytes", "initial": {"$bytes": "8000"}, "ops": [{"op": "bit_rscan", "args": {"bit_offset": 3, "bit_size": 13, "value": true}}]},
    {"id": "q2", "bin_type": "bytes", "initial": {"$bytes": "90"}, "ops": [{"op": "bit_rscan", "args": {"bit_offset": 4, "bit_size": 4, "value": true}}]},
    {"id": "q3", "bin_type": "bytes", "initial": {"$bytes": "7fff"}, "ops": [{"op": "bit_rscan", "args": {"bit_offset": 3, "bit_size": 13, "value": false}}]},
    {"id": "q4", "bin_type": "bytes", "initial": {"$bytes": "90"}, "ops": [{"op": "bit_rscan", "args": {"bit_offset": 3, "bit_size": 5, "value": true}}]},
{"id": "a1", "bin_type": "bytes", "initial": {"$bytes": "80"}, "ops": [{"op": "bit_add", "args": {"bit_offset": 0, "bit_size": 8, "value": 128, "signed": true, "action": "FAIL"}}]},
{"id": "a2", "bin_type": "bytes", "initial": {"$bytes": "80"}, "ops": [{"op": "bit_add", "args": {"bit_offset": 0, "bit_size": 8, "value": 128, "signed": true, "action": "SATURATE"}}]},
{"id": "a3", "bin_type": "bytes", "initial": {"$bytes": "ff"}, "ops": [{"op": "bit_subtract", "args": {"bit_offset": 0, "bit_size": 8, "value": 128, "signed": true, "action": "FAIL"}}]},
{"id": "a4", "bin_type": "bytes", "initial": {"$bytes": "0000000000000000"}, "ops": [{"op": "bit_subtract", "args": {"bit_offset": 0, "bit_size": 64, "value": -9223372036854775808, "signed": true, "action": "SATURATE"}}]},
{"id": "a5", "bin_type": "bytes", "initial": {"$bytes": "0000000000000000"}, "ops": [{"op": "bit_subtract", "args": {"bit_offset": 0, "bit_size": 64, "value": -9223372036854775808, "signed": true, "action": "FAIL"}}]},
{"id": "a6", "bin_type": "bytes", "initial": {"$bytes": "ffffffffffffffff"}, "ops": [{"op": "bit_subtract", "args": {"bit_offset": 0, "bit_size": 64, "value": -9223372036854775808, "signed": true, "action": "FAIL"}}]},
{"id": "a7", "bin_type": "bytes", "initial": {"$bytes": "ff"}, "ops": [{"op": "bit_subtract", "args": {"bit_offset": 0, "bit_size": 8, "value": 128, "signed": true, "action": "SATURATE"}}]},
{"id": "a8", "bin_type": "bytes", "initial": {"$bytes": "00"}, "ops": [{"op": "bit_subtract", "args": {"bit_offset": 0, "bit_size": 8, "value": 128, "signed": true, "action": "FAIL"}}]},
{"id": "subtract-masked-2bit", "bin_type": "bytes", "initial": {"$bytes": "fff1ff8f1a"}, "ops": [{"op": "bit_subtract", "args": {"bit_offset": -36, "bit_size": 2, "value": 130, "action": "SATURATE", "signed": true}}]},
{"id": "z1", "bin_type": "map", "initial": [], "ops": [{"op": "map_increment", "args": {"key": "a", "delta": {"$double": -0.0}}}, {"op": "read"}]},
{"id": "z2", "bin_type": "map", "initial": [], "ops": [{"op": "map_decrement", "args": {"key": "a", "delta": {"$double": 0.0}}}, {"op": "read"}]},
{"id": "z3", "bin_type": "map", "initial": [["a", {"$double": -0.0}], ["b", {"$double": 0.0}]], "ops": [{"op": "map_increment", "args": {"key": "a", "delta": {"$double": -0.0}}}, {"op": "map_increment", "args": {"key": "b", "delta": {"$double": -0.0}}}, {"op": "map_decrement", "args": {"key": "a", "delta": {"$double": 0.0}}}, {"op": "read"}]},
{"id": "z4", "bin_type": "list", "initial": [1], "ops": [{"op": "list_increment", "args": {"index": 1, "delta": {"$double": -0.0}}}, {"op": "list_increment", "args": {"index": 3, "delta": {"$double": -0.0}}}, {"op": "read"}]},
{"id": "z5", "bin_type": "list", "order": "ORDERED", "initial": [1], "ops": [{"op": "list_increment", "args": {"index": 1, "delta": {"$double": -0.0}}}, {"op": "read"}]},
{"id": "z6", "bin_type": "map", "initial": [["x", 1]], "ops": [{"op": "map_increment", "args": {"key": "n", "delta": {"$double": -0.0}}, "ctx": [{"type": "map_key_create", "key": "m"}]}, {"op": "list_increment", "args": {"index": 0, "delta": {"$double": -0.0}}, "ctx": [{"type": "map_key_create", "key": "l"}]}, {"op": "read"}]},
{"id": "o1", "bin_type": "list", "order": "ORDERED", "initial": [{"$double": 0.0}], "ops": [{"op": "list_append", "args": {"value": {"$double": -0.0}}}, {"op": "read"}]},
{"id": "o2", "bin_type": "list", "order": "ORDERED", "initial": [{"$double": -0.0}], "ops": [{"op": "list_append_items", "args": {"values": [1, {"$double": 0.0}]}}, {"op": "read"}]},
{"id": "o3", "bin_type": "list", "order": "ORDERED", "initial": [1, 2, 3, 4, 5, 6, {"$double": 0.0}, {"$double": -0.0}], "ops": [{"op": "list_append_items", "args": {"values": ["x", {"$double": -0.0}]}}, {"op": "read"}]},
{"id": "o4", "bin_type": "list", "order": "ORDERED", "initial": [1, 2, 3, 4, {"$double": 0.0}], "ops": [{"op": "list_append", "args": {"value": {"$double": -0.0}}}, {"op": "read"}]},
{"id": "o5", "bin_type": "list", "order": "ORDERED", "initial": [{"$double": -1.0}, {"$double": 0.0}, {"$double": 0.0}, {"$double": 0.0}, {"$double": 5.0}], "ops": [{"op": "list_append", "args": {"value": {"$double": -0.0}}}, {"op": "read"}]},
{"id": "o6", "bin_type": "list", "order": "ORDERED", "initial": [{"$double": 0.0}, {"$double": 0.0}, {"$double": 0.0}], "ops": [{"op": "list_append_items", "args": {"values": [{"$double": -0.0}, {"$double": -0.0}, {"$double": 0.0}]}}, {"op": "list_increment", "args": {"index": 1, "delta": {"$double": -0.0}}}, {"op": "read"}]}
]""")

# (seed, id) of gen_random_cases.py --count 4000 where a divergence first showed.
RANDOM_HITS = [[1, "random-2489"], [1, "random-3622"], [2, "random-1444"], [2, "random-2952"], [2, "random-3915"], [3, "random-604"], [4, "random-1291"], [4, "random-1743"], [4, "random-606"], [5, "random-1624"], [5, "random-2978"], [9, "random-2555"], [10, "random-923"], [13, "random-1661"], [13, "random-2546"], [17, "random-3644"], [27, "random-59"], [37, "random-1948"], [40, "random-2215"], [40, "random-27"], [44, "random-3775"], [45, "random-3303"]]

# (profile, seed, id) of gen_random_cases.py --count 5000 --profile P.
PROFILED_HITS = [["values", 1, "random-20"], ["values", 2, "random-781"], ["values", 13, "random-2052"],
                 ["values", 39, "random-3378"], ["values", 40, "random-4912"]]

RTS = ["INDEX", "REVERSE_INDEX", "RANK", "REVERSE_RANK", "COUNT", "KEY", "VALUE", "KEY_VALUE", "EXISTS", "NONE",
       "ORDERED_MAP"]


def value_list_sweep():
    maps = {"one": [["b", 8]], "two": [["b", 8], ["a", 3]]}
    items = [[8, 8], [8, 3, 8], [3, 8, 3], [8, 9, 8], [8, [1, {"$wildcard": True}], 8], [3, 3, 3], [8, 8, 8]]
    out = []
    for name, pairs in maps.items():
        for order in ["UNORDERED", "K_ORDERED", "KV_ORDERED"]:
            for i, vl in enumerate(items):
                for rt in RTS:
                    for inv in (False, True):
                        for verb in ("get", "remove"):
                            op = {"op": f"map_{verb}_by_value_list", "args": {"values": vl}, "return_type": rt}
                            if inv:
                                op["inverted"] = True
                            out.append({"id": f"value-list-{name}-{order}-{i}-{rt}-{verb}{'-inv' if inv else ''}",
                                        "bin_type": "map", "order": order, "initial": pairs,
                                        "ops": [op, {"op": "read"}]})
    return out


def arithmetic_sweep():
    """bit add/subtract over field sizes 1-64, signed or not, every action,
    values at the edges (MIN, -1, 0, masks) and in between: the server's
    overflow test (a sign rule, not the exact result) decides."""
    r = random.Random(7)
    edges = [0, 1, -1, 2, -2, 127, 128, -128, 255, 256, 2**31 - 1, -2**31, 2**63 - 1, -2**63, 130, 3, -3]
    out = []
    for i in range(1000):
        size = r.choice([1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64])
        nbytes = (size + 7) // 8 + r.randint(0, 2)
        off = r.randint(0, nbytes * 8 - size)
        blob = "".join(r.choice(["00", "ff", "80", "7f", "01", "fe", "a5", "5a"]) for _ in range(nbytes))
        v = r.choice(edges) if r.random() < 0.5 else r.randint(-300, 300)
        op = {"op": r.choice(["bit_add", "bit_subtract"]),
              "args": {"bit_offset": off, "bit_size": size, "value": v, "action": r.choice(["FAIL", "SATURATE", "WRAP"])}}
        if r.random() < 0.6:
            op["args"]["signed"] = True
        if r.random() < 0.1:
            op["flags"] = ["NO_FAIL"]
        out.append({"id": f"arith-{i}", "bin_type": "bytes", "initial": {"$bytes": blob}, "ops": [op]})
    return out


def zero_ties_sweep():
    """Lists holding -0.0 and 0.0 (equal, yet different): every rank, rank
    range, relative rank, value and ORDERED add op, UNORDERED and ORDERED.
    Which of them a rank window holds, in what order, and where an ORDERED
    add puts one are the server's search and heap's doing."""
    r = random.Random(5)
    z, nz = {"$double": 0.0}, {"$double": -0.0}
    pool = [z, nz, z, nz, {"$double": 1.0}, 1, 0, [z], [nz], "a"]
    rts = ["INDEX", "REVERSE_INDEX", "RANK", "REVERSE_RANK", "COUNT", "VALUE", "EXISTS", "NONE"]
    out = []
    for i in range(2000):
        n = r.randint(1, 12)
        init = [r.choice(pool) for _ in range(n)]
        k = r.random()
        if k < 0.35:
            op = {"op": r.choice(["list_get_by_rank_range", "list_remove_by_rank_range"]),
                  "args": {"rank": r.randint(-n, n - 1)}, "return_type": r.choice(rts)}
            if r.random() < 0.7:
                op["args"]["count"] = r.randint(0, n)
        elif k < 0.55:
            op = {"op": r.choice(["list_get_by_rank", "list_remove_by_rank"]),
                  "args": {"rank": r.randint(-n, n - 1)}, "return_type": r.choice(rts)}
        elif k < 0.8:
            op = {"op": r.choice(["list_get_by_value_rel_rank_range", "list_remove_by_value_rel_rank_range"]),
                  "args": {"value": r.choice(pool), "rank": r.randint(-3, 3)}, "return_type": r.choice(rts)}
            if r.random() < 0.6:
                op["args"]["count"] = r.randint(0, n)
        elif k < 0.9:
            op = {"op": r.choice(["list_get_by_value", "list_get_by_value_range", "list_remove_by_value"]),
                  "args": {"value": r.choice(pool)}, "return_type": r.choice(rts)}
            if op["op"] == "list_get_by_value_range":
                op["args"] = {"begin": r.choice(pool), "end": r.choice(pool + [{"$inf": True}])}
        else:
            op = {"op": r.choice(["list_append", "list_append_items"]), "args": {}}
            if op["op"] == "list_append":
                op["args"]["value"] = r.choice(pool)
            else:
                op["args"]["values"] = [r.choice(pool) for _ in range(r.randint(1, 3))]
        if r.random() < 0.2 and op["op"] not in ("list_append", "list_append_items"):
            op["inverted"] = True
        out.append({"id": f"zero-ties-{i}", "bin_type": "list", "order": r.choice(["UNORDERED_LIST", "ORDERED"]),
                    "initial": init, "ops": [op, {"op": "read"}]})
    return out


def random_hits():
    out = []
    for seed in sorted({s for s, _ in RANDOM_HITS}):
        g = gen_random_cases.Gen(random.Random(seed))
        wanted = {cid for s, cid in RANDOM_HITS if s == seed}
        for i in range(4000):
            c = gen_random_cases.make_case(g, i)
            if c["id"] in wanted:
                c["id"] = f"seed{seed}-{c['id']}"
                out.append(c)
    for profile, seed, cid in PROFILED_HITS:
        g = gen_random_cases.Gen(random.Random(seed), profile)
        for i in range(5000):
            c = gen_random_cases.make_case(g, i)
            if c["id"] == cid:
                c["id"] = f"{profile}{seed}-{cid}"
                out.append(c)
                break
    return out


def main():
    cases = ([dict(c, id="probe-" + c["id"]) for c in PROBES] + value_list_sweep() + arithmetic_sweep() +
             zero_ties_sweep() + random_hits())
    print("[")
    print(",\n".join(json.dumps(c, separators=(", ", ": ")) for c in cases))
    print("]")


if __name__ == "__main__":
    main()
