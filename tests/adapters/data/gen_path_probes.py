#!/usr/bin/env python3
"""Hand-written path-expression probes (shared/spec/exp-json.md) for what the
random corpus (gen_path_cases.py) reaches seldom: a path call inside another
call (list_size of a modify, a select of a modified list, map_keys_in of a
tree), a select on a constant or nil, an empty context, modify expressions
that are let / cond with remove_result, WILDCARD, a map written over each
element, a modify of the wrong declared type, loop variables and
remove_result outside a path expression, and a select inside a filter.

usage: gen_path_probes.py > path_probes.json
  then: kvmodel cdt --backend aerospike path_probes.json > path_probes.server.jsonl
"""
import json

M = {"$map": [["a", {"$map": [["x", 1], ["y", 2]]}], ["b", [3, 4, 5]], ["c", 7]]}
L = [[1, 2], [3], {"$map": [["k", 9]]}]
AC = {"type": "all_children"}
B = {"type": "map_key", "key": "b"}
MB, LB = ["bin_map", "m"], ["bin_list", "l"]


def sel(ctx, rt, flags, b):
    return ["select_by_path", ctx, rt, flags, b]


def mod(ctx, rt, e, flags, b):
    return ["modify_by_path", ctx, rt, e, flags, b]


def main():
    cases = []

    def add(e, flags=None, extra=None):
        op = {"op": "exp_read", "name": "r", "exp": e}
        if flags:
            op["flags"] = flags
        c = {"id": "path_probe_%02d" % len(cases), "bins": {"m": M, "l": L}, "ops": [op]}
        c.update(extra or {})
        cases.append(c)

    add(["list_size", None, mod([AC, AC], "MAP", ["remove_result"], [], MB)])
    add(["map_size", None, mod([AC, AC], "MAP", ["remove_result"], ["NO_FAIL"], MB)])
    add(sel([AC], "LIST", ["VALUE"],
            mod([AC, {"type": "list_index", "index": 0}], "LIST", ["add", ["loopvar_int", "VALUE"], 10], [], LB)))
    add(sel([AC, AC], "LIST", ["VALUE"], ["val", L]))
    add(sel([AC], "MAP", [], {"$map": [["q", [1, 2]], ["r", 3]]}))
    add(["map_keys_in", sel([AC], "MAP", [], MB)])
    add(["map_values_in", sel([{"type": "map_keys_in", "keys": ["a", "c"]}], "MAP", [], MB)])
    add(sel([AC], "LIST", ["VALUE"], MB),
        extra={"filter": ["cmp_eq", ["list_size", None, sel([AC], "LIST", ["VALUE"], MB)], 3]})
    add(sel([AC], "LIST", ["VALUE"], ["nil"]))
    add(sel([], "LIST", ["VALUE"], MB))
    add(sel([AC], "LIST", ["VALUE"], ["bin_int", "nope"]), ["EVAL_NO_FAIL"])
    add(mod([AC], "MAP", ["loopvar_map", "VALUE"], [], MB))
    add(mod([AC], "MAP", ["loopvar_map", "VALUE"], ["NO_FAIL"], MB))
    add(mod([B, AC], "MAP", ["mul", ["loopvar_int", "INDEX"], ["loopvar_int", "VALUE"]], [], MB))
    add(mod([B, AC], "MAP", ["let", ["def", "v", ["loopvar_int", "VALUE"]],
                             ["cond", ["cmp_gt", ["var", "v"], 3], ["remove_result"], ["unknown"]]], ["NO_FAIL"], MB))
    add(mod([B, AC], "MAP", ["wildcard"], ["NO_FAIL"], MB))
    add(mod([B, AC], "MAP", ["val", {"$map": [["z", 1]]}], [], MB))
    add(mod([AC], "LIST", ["remove_result"], [], MB))
    add(["loopvar_int", "VALUE"])
    add(["remove_result"])
    add(["remove_result"], ["EVAL_NO_FAIL"])
    print("[")
    print(",\n".join(json.dumps(c) for c in cases))
    print("]")


if __name__ == "__main__":
    main()
