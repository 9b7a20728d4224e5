#!/usr/bin/env python3
"""Probes of the CDT engine's last known disagreement classes with 8.1.2
(issue 27, item 7), as cdt-json cases: raw return-type codes 9-12 on every
selector; list_increment / list_insert with NO_FAIL and other flags on an
ORDERED list or a missing bin; relative-rank ranges whose rank or count is
near INT64_MAX; WILDCARD as a key-range bound; UNORDERED_MAP / ORDERED_MAP on
single index and rank selectors. Deterministic (no seed).

Two recorded suites: item7_raw_return_types.json is section 1 alone
(--raw-return-types), item7_probes.json sections 2-5 (no flag).

usage: gen_cdt_item7_probes.py [--raw-return-types] > cases.json
  then: kvmodel cdt --backend aerospike --host 127.0.0.1:3000 cases.json > server.jsonl
"""
import json

I64_MAX = 2**63 - 1
WILD = {"$wildcard": True}

LIST = [5, 3, 1, 4, 3]
MAP = [["a", 1], ["b", 2], ["c", 3], ["d", 2]]

LIST_SELECTORS = {
    "index": {"index": 1}, "index_range": {"index": 1, "count": 2}, "rank": {"rank": 1},
    "rank_range": {"rank": 1, "count": 2}, "value": {"value": 3}, "value_list": {"values": [3, 4]},
    "value_range": {"begin": 2, "end": 5}, "value_rel_rank_range": {"value": 3, "rank": 0, "count": 2},
}
MAP_SELECTORS = {
    "key": {"key": "b"}, "key_list": {"keys": ["b", "c"]}, "key_range": {"begin": "b", "end": "d"},
    "key_rel_index_range": {"key": "b", "index": 0, "count": 2}, "value": {"value": 2},
    "value_list": {"values": [2, 3]}, "value_range": {"begin": 2, "end": 3},
    "value_rel_rank_range": {"value": 2, "rank": 0, "count": 2}, "index": {"index": 1},
    "index_range": {"index": 1, "count": 2}, "rank": {"rank": 1}, "rank_range": {"rank": 1, "count": 2},
}


def cases(raw_return_types):
    out = []
    n = 0

    def add(c):
        nonlocal n
        c["id"] = "item7-%d" % n
        n += 1
        out.append(c)

    # 1. raw return types 9-12 (and 14, 15) on every selector, found and not found.
    for kind, sels, initial, order in () if not raw_return_types else (
                                      ("list", LIST_SELECTORS, LIST, "UNORDERED_LIST"),
                                       ("list", LIST_SELECTORS, sorted(LIST), "ORDERED"),
                                       ("map", MAP_SELECTORS, MAP, "UNORDERED"),
                                       ("map", MAP_SELECTORS, MAP, "KV_ORDERED")):
        for sel, args in sels.items():
            for verb in ("get", "remove"):
                for rt in (9, 10, 11, 12, 14, 15):
                    for inv in (False, True):
                        add({"bin_type": kind, "order": order, "initial": initial,
                             "ops": [{"op": "%s_%s_by_%s" % (kind, verb, sel), "args": args,
                                      "return_type": rt, "inverted": inv}]})
                # not found
                miss = dict(args)
                for k in ("index", "rank"):
                    if k in miss and sel in ("index", "rank", "index_range", "rank_range"):
                        miss[k] = 9
                for k in ("value", "key"):
                    if k in miss:
                        miss[k] = 99 if k == "value" else "zz"
                for rt in (9, 10, 11, 12):
                    add({"bin_type": kind, "order": order, "initial": initial,
                         "ops": [{"op": "%s_%s_by_%s" % (kind, verb, sel), "args": miss, "return_type": rt}]})

    if raw_return_types:
        return out

    # 2. list_increment / list_insert with flags on ORDERED lists and missing bins.
    flag_sets = [[], ["NO_FAIL"], ["ADD_UNIQUE"], ["ADD_UNIQUE", "NO_FAIL"], ["INSERT_BOUNDED"],
                 ["INSERT_BOUNDED", "NO_FAIL"], ["PARTIAL"], ["ADD_UNIQUE", "PARTIAL", "NO_FAIL"]]
    for initial, order in (([1, 3, 5], "ORDERED"), (None, "ORDERED"), (None, "UNORDERED_LIST"),
                           ([1, 3, 5], "UNORDERED_LIST")):
        for flags in flag_sets:
            for op, args in (("list_increment", {"index": 1, "delta": 2}),
                             ("list_increment", {"index": 5, "delta": 1}),
                             ("list_increment", {"index": -1}),
                             ("list_insert", {"index": 1, "value": 2}),
                             ("list_insert", {"index": 7, "value": 3}),
                             ("list_insert", {"index": 0, "value": 1})):
                for porder in (None, "ORDERED", "UNORDERED_LIST"):
                    o = {"op": op, "args": args, "flags": flags}
                    if porder:
                        o["policy_order"] = porder
                    c = {"bin_type": "list", "order": order, "ops": [o, {"op": "read"}]}
                    if initial is not None:
                        c["initial"] = initial
                    add(c)

    # 3. relative rank ranges near INT64_MAX.
    big = [I64_MAX, I64_MAX - 1, I64_MAX - 2, -I64_MAX, -I64_MAX - 1, 2**62, 2**32]
    for kind, initial, order in (("list", LIST, "UNORDERED_LIST"), ("list", sorted(LIST), "ORDERED"),
                                 ("map", MAP, "UNORDERED"), ("map", MAP, "K_ORDERED")):
        for verb in ("get", "remove"):
            for r in big + [0, -1]:
                for cnt in (None, 1, I64_MAX, I64_MAX - 1, 2**62):
                    args = {"value": 3, "rank": r}
                    if cnt is not None:
                        args["count"] = cnt
                    add({"bin_type": kind, "order": order, "initial": initial,
                         "ops": [{"op": "%s_%s_by_value_rel_rank_range" % (kind, verb), "args": args,
                                  "return_type": "VALUE"}]})
            if kind == "map":
                for r in big:
                    for cnt in (None, I64_MAX):
                        args = {"key": "b", "index": r}
                        if cnt is not None:
                            args["count"] = cnt
                        add({"bin_type": kind, "order": order, "initial": initial,
                             "ops": [{"op": "map_%s_by_key_rel_index_range" % verb, "args": args,
                                      "return_type": "KEY"}]})

    # 4. WILDCARD as a key-range (and value-range) bound.
    # (Map keys are scalars: 8.1.2 refuses a bin write of a map with list keys.)
    nested = [["a", [1, 2]], ["b", [1, 3]], [1, [2]], [2, 5], [3, [1, 2, 3]]]
    for order in ("UNORDERED", "K_ORDERED", "KV_ORDERED"):
        for begin, end in ((WILD, None), ([1, WILD], None), ([1, WILD], [2, WILD]), (None, WILD),
                           (WILD, WILD), ([WILD], [2]), ("a", WILD), ([1], [1, WILD]), (1, WILD),
                           (WILD, "b"), (2, [WILD])):
            for verb in ("get", "remove"):
                for inv in (False, True):
                    args = {}
                    if begin is not None:
                        args["begin"] = begin
                    if end is not None:
                        args["end"] = end
                    add({"bin_type": "map", "order": order, "initial": nested,
                         "ops": [{"op": "map_%s_by_key_range" % verb, "args": args, "return_type": "KEY",
                                  "inverted": inv}]})
                    add({"bin_type": "map", "order": order, "initial": nested,
                         "ops": [{"op": "map_%s_by_value_range" % verb, "args": args, "return_type": "VALUE",
                                  "inverted": inv}]})

    # 5. UNORDERED_MAP / ORDERED_MAP on single index / rank selectors (and key / value).
    for order in ("UNORDERED", "K_ORDERED", "KV_ORDERED"):
        for sel, args in (("index", {"index": 1}), ("index", {"index": -1}), ("index", {"index": 9}),
                          ("rank", {"rank": 0}), ("rank", {"rank": -1}), ("rank", {"rank": 9}),
                          ("key", {"key": "b"}), ("key", {"key": "zz"}), ("value", {"value": 2})):
            for rt in ("UNORDERED_MAP", "ORDERED_MAP", "KEY_VALUE"):
                for verb in ("get", "remove"):
                    for inv in (False, True):
                        add({"bin_type": "map", "order": order, "initial": MAP,
                             "ops": [{"op": "map_%s_by_%s" % (verb, sel), "args": args, "return_type": rt,
                                      "inverted": inv}]})
    return out


if __name__ == "__main__":
    import sys
    cs = cases("--raw-return-types" in sys.argv[1:])
    print("[")
    print(",\n".join(json.dumps(c) for c in cs))
    print("]")
