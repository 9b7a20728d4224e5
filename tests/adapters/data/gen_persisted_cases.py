#!/usr/bin/env python3
"""Generates tests/adapters/data/persisted_random.json: gen_random_cases.py's
cases (--profile values --seed 901, then --profile small --seed 902) rebuilt
on a top-level container with a persisted index, recorded
(persisted_random.server.jsonl) so the server's index paths stay covered.

Each list or map case starts from no bin: map_create / list_create with the
case's order and persist_index, then map_put_items / list_append_items of its
initial contents, then its ops. Aerospike 8.1.2 answers some ops on such a
container by other paths: any flag makes a map key-ordered (an UNORDERED map
with a persisted index too), and a KV_ORDERED map searches its value index.

Left out, as shapes that crash 8.1.2 on a persisted index
(tests/cdt/context_test.cpp, crash (c), (d), (f)) or change it: context
create steps, a first map_value step, list_sort with DROP_DUPLICATES,
list_create / map_create / set-order ops, UNORDERED lists of more than 15
elements; bytes bins and cases without an initial bin.

usage: gen_persisted_cases.py > persisted_random.json
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_random_cases  # noqa: E402

RUNS = [("values", 901, 5000), ("small", 902, 5000)]


def persisted(c):
    if not c.get("initial") or c["bin_type"] not in ("map", "list"):
        return None
    for o in c["ops"]:
        ctx = o.get("ctx", [])
        if o["op"] == "list_sort" and "DROP_DUPLICATES" in o.get("flags", []):
            return None
        if any(s["type"].endswith("_create") for s in ctx) or (ctx and ctx[0]["type"] == "map_value"):
            return None
        if o["op"] in ("list_create", "map_create", "list_set_order", "map_set_policy"):
            return None
    if c["bin_type"] == "map":
        pre = [{"op": "map_create", "args": {"order": c.get("order", "UNORDERED"), "persist_index": True}},
               {"op": "map_put_items", "args": {"items": c["initial"]}}]
    else:
        order = c.get("order", "UNORDERED_LIST")
        if order == "UNORDERED_LIST" and len(c["initial"]) > 15:
            return None
        pre = [{"op": "list_create", "args": {"order": order, "persist_index": True}},
               {"op": "list_append_items", "args": {"values": c["initial"]}}]
    return {"id": c["id"], "bin_type": c["bin_type"], "initial": None, "ops": pre + c["ops"]}


def main():
    cases = []
    for profile, seed, count in RUNS:
        g = gen_random_cases.Gen(random.Random(seed), profile)
        for i in range(count):
            p = persisted(gen_random_cases.make_case(g, i))
            if p is not None:
                p["id"] = f"persisted-{profile}{seed}-{p['id']}"
                cases.append(p)
    print("[")
    print(",\n".join(json.dumps(c) for c in cases))
    print("]")


if __name__ == "__main__":
    main()
