#!/usr/bin/env python3
"""The path-expression scenarios of the Aerospike Python client's tests
(test/new_tests/test_path_exprs.py, reference only: the data, contexts,
flags and filters they ask about) as expression cases of
shared/spec/exp-json.md: select_by_path in exp_read, modify_by_path in
exp_write. Where a client test checks an error or a result the runner
records whatever Aerospike 8.1.2 answers.

usage: gen_path_client_suite.py > path_client_suite.json
  then: kvmodel cdt --backend aerospike path_client_suite.json > path_client_suite.server.jsonl
"""
import json

MAP = {"$map": [["a", 1], ["ab", {"$map": [["bb", 12]]}], ["b", 2], ["c", True],
                ["d", {"$bytes": "313233"}], ["e", None], ["f", 3], ["g", 4], [1, 5]]}
LIST = [{"$map": [["a", 1], ["ab", {"$map": [["aa", 11], ["ab", 13], ["bb", 12]]}], ["b", 2]]},
        {"$map": [["c", 3], ["cd", {"$map": [["cc", 9]]}], ["d", 4]]}]
NESTED = [[1, 2, 3], [4, 5], [6]]
DAYS = {"$map": [["Day1", {"$map": [["book", {"$double": 14.99}], ["ferry", {"$double": 5.0}]]}],
                 ["Day2", {"$map": [["food", {"$double": 34.0}], ["game", {"$double": 12.99}]]}],
                 ["Day3", {"$map": [["plants", {"$double": 19.99}], ["stickers", {"$double": 2.0}]]}]]}
BINS = {"map_bin": MAP, "list_bin": LIST, "list_of_lists": NESTED, "map_of_maps": DAYS,
        "ints": [1, 2, 3], "ints2": [3]}

ALL = {"type": "all_children"}


def filt(e):
    return {"type": "all_children_with_filter", "exp": e}


def sel(bin_read, ctx, flags, rtype="LIST"):
    return ["select_by_path", ctx, rtype, flags, bin_read]


def main():
    cases = []

    def read(name, e, flags=None):
        op = {"op": "exp_read", "name": "r", "exp": e}
        if flags:
            op["flags"] = flags
        cases.append({"id": "path_client_%s" % name, "bins": BINS, "ops": [op]})

    def write(name, bin_name, e, then=None):
        ops = [{"op": "exp_write", "bin": bin_name, "exp": e}]
        if then is not None:
            ops.append({"op": "exp_read", "name": "r", "exp": then})
        cases.append({"id": "path_client_%s" % name, "bins": BINS, "ops": ops})

    lb, mb = ["bin_list", "list_bin"], ["bin_map", "map_bin"]
    days, nested = ["bin_map", "map_of_maps"], ["bin_list", "list_of_lists"]
    read("all_children_list", sel(lb, [ALL], ["VALUE"]))
    read("all_children_twice_list", sel(lb, [ALL, ALL], ["VALUE"]))
    read("all_children_map", sel(mb, [ALL], ["VALUE"]))
    str_a = ["cmp_eq", ["loopvar_str", "VALUE"], "a"]
    read("no_fail_other_type", sel(mb, [ALL, filt(str_a)], ["VALUE", "NO_FAIL"]))
    read("fail_other_type", sel(mb, [ALL, filt(str_a)], ["VALUE"]))
    read("float_filter", sel(days, [ALL, filt(["cmp_ge", ["loopvar_float", "VALUE"], {"$double": 20.0}])],
                             ["VALUE"]))
    loopvars = {
        "int": ["cmp_ge", ["loopvar_int", "VALUE"], 2],
        "map": ["cmp_ge", ["map_get_by_key", None, "VALUE", "INT", "bb", ["loopvar_map", "VALUE"]], 10],
        "bool": ["cmp_eq", ["loopvar_bool", "VALUE"], True],
        "blob": ["cmp_eq", ["loopvar_blob", "VALUE"], {"$bytes": "313233"}],
        "nil": ["cmp_eq", ["loopvar_nil", "VALUE"], None],
    }
    for t, f in loopvars.items():
        read("loopvar_" + t, sel(mb, [filt(f)], ["VALUE", "NO_FAIL"]))
        read("loopvar_%s_fail" % t, sel(mb, [filt(f)], ["VALUE"]))
    read("loopvar_list", sel(nested, [filt(["cmp_ge", ["list_size", None, ["loopvar_list", "VALUE"]], 2])],
                             ["VALUE"]))
    minus5 = ["sub", ["loopvar_float", "VALUE"], {"$double": 5.0}]
    for flags in ([], ["NO_FAIL"]):
        write("modify_minus_5" + ("_no_fail" if flags else ""), "map_of_maps",
              ["modify_by_path", [ALL, ALL], "MAP", minus5, flags, days],
              sel(days, [ALL, ALL], ["VALUE"]))
    read("matching_tree", sel(days, [ALL, filt(["cmp_ge", ["loopvar_float", "VALUE"], {"$double": 20.0}])],
                              ["MATCHING_TREE"], "MAP"))
    read("flag_map_key", sel(days, [ALL, ALL], ["MAP_KEY"]))
    read("flag_map_key_value", sel(days, [ALL, ALL], ["MAP_KEY_VALUE"]))
    read("loopvar_key_tree", sel(days, [ALL, filt(["cmp_eq", ["loopvar_str", "KEY"], "book"])],
                                 ["MATCHING_TREE"], "MAP"))
    read("loopvar_index_tree", sel(lb, [filt(["cmp_eq", ["loopvar_int", "INDEX"], 0])], ["MATCHING_TREE"]))
    write("remove_result", "map_of_maps", ["modify_by_path", [ALL, ALL], "MAP", ["remove_result"], [], days])
    for k, keys in enumerate([[], ["a"], ["a", "b"], ["a", 1], ["a", "z"], ["z"], ["z", "zz"]]):
        read("keys_in_%d" % k, sel(mb, [{"type": "map_keys_in", "keys": keys}], ["MAP_VALUE"]))
    ge2 = ["cmp_ge", ["loopvar_int", "VALUE"], 2]
    le3 = ["cmp_le", ["loopvar_int", "VALUE"], 3]
    read("keys_in_and_filter", sel(mb, [{"type": "map_keys_in", "keys": ["a", "b"]},
                                        {"type": "and_filter", "exp": ge2}], ["MAP_VALUE"]))
    read("keys_in_two_and_filters", sel(mb, [{"type": "map_keys_in", "keys": ["a", "b", "f", "g"]},
                                             {"type": "and_filter", "exp": ge2},
                                             {"type": "and_filter", "exp": le3}], ["MAP_VALUE"]))
    read("filter_then_and_filter", sel(mb, [filt(ge2), {"type": "and_filter", "exp": ge2}],
                                       ["MAP_VALUE", "NO_FAIL"]))
    read("and_filter_not_bool", sel(mb, [{"type": "map_keys_in", "keys": ["a", "b"]},
                                         {"type": "and_filter", "exp": ["bin_map", "map_bin"]}], ["MAP_VALUE"]))
    ints = ["bin_list", "ints"]
    read("in_list_value", sel(ints, [filt(["in_list", ["loopvar_int", "VALUE"], {"$list": [3]}])],
                              ["LIST_VALUE"]))
    read("in_list_bin", sel(ints, [filt(["in_list", ["loopvar_int", "VALUE"], ["bin_list", "ints2"]])],
                            ["LIST_VALUE"]))
    read("in_list_map", sel(ints, [filt(["in_list", ["loopvar_int", "VALUE"], ["bin_map", "map_bin"]])],
                            ["LIST_VALUE"]))
    read("map_keys", ["map_keys_in", mb])
    read("map_values", ["map_values_in", mb])
    read("map_keys_of_list", ["map_keys_in", lb])
    print("[")
    print(",\n".join(json.dumps(c) for c in cases))
    print("]")


if __name__ == "__main__":
    main()
