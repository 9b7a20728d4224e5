#!/usr/bin/env python3
"""Generates tests/adapters/data/cdt_conformance.json: cdt-json cases
(shared/spec/cdt-json.md) that sweep every map, list and bit operation over
return types, INVERTED, write flags, orders, contexts, missing records/bins and
wrong types.

The expected output of each case is what a real Aerospike server answers
(tests/adapters/data/cdt_conformance.server.jsonl, recorded with
`kvmodel cdt --backend aerospike`); cdt_conformance_test.cpp checks that the
simulator answers the same.

Shapes that crash Aerospike 8.1.2 (AEROSPIKE-CDT.md §12/§14) are never
generated: an EMPTY key/value list with INVERTED; list-index create steps
before the start, -1 with pad on a missing list, huge pad indexes, persisted
lists growing through create steps; PARTIAL shifts and logic ops.

usage: gen_cdt_conformance.py > cdt_conformance.json
"""
import json

NIL = {"$nil": True}
INF = {"$inf": True}
WILD = {"$wildcard": True}


def d(x):
    return {"$double": x}


cases = []


def case(cid, bin_type, initial, ops, order=None, record_exists=True):
    c = {"id": cid, "bin_type": bin_type}
    if order is not None:
        c["order"] = order
    if not record_exists:
        c["record_exists"] = False
    c["initial"] = initial
    c["ops"] = ops
    cases.append(c)


RTS = ["NONE", "INDEX", "REVERSE_INDEX", "RANK", "REVERSE_RANK", "COUNT", "KEY", "VALUE",
       "KEY_VALUE", "EXISTS", "UNORDERED_MAP", "ORDERED_MAP", 99]

# --- maps -----------------------------------------------------------------------
MAPS = {
    "mixed": [["b", 20], ["a", 10], ["d", 40], ["c", 20], [1, "x"], [3, d(1.5)], ["e", [1, 2]]],
    "num": [[9, 10], [0, 17], [5, 15], [4, 2]],
}
MAP_SELECTORS = [
    ("key", {"key": "c"}), ("key", {"key": "zz"}), ("key", {"key": 1}),
    ("key_list", {"keys": ["c", "a", "zz"]}), ("key_list", {"keys": [3, "e"]}),
    ("key_range", {"begin": "b", "end": "d"}), ("key_range", {"begin": NIL}),
    ("key_range", {"end": "c"}), ("key_range", {"begin": "c", "end": INF}), ("key_range", {"begin": 0, "end": 5}),
    ("key_rel_index_range", {"key": "bb", "index": -1, "count": 2}),
    ("key_rel_index_range", {"key": 3, "index": -2}), ("key_rel_index_range", {"key": 3, "index": 2}),
    ("key_rel_index_range", {"key": 3, "index": -2, "count": 2}),
    ("value", {"value": 20}), ("value", {"value": 99}), ("value", {"value": [1, WILD]}),
    ("value_list", {"values": [20, 40, 99]}), ("value_list", {"values": [17, 2]}),
    ("value_range", {"begin": 15, "end": 41}), ("value_range", {"begin": NIL, "end": 15}),
    ("value_range", {"begin": "a"}),
    ("value_rel_rank_range", {"value": 11, "rank": -1}), ("value_rel_rank_range", {"value": 11, "rank": 1}),
    ("value_rel_rank_range", {"value": 11, "rank": -1, "count": 1}),
    ("index", {"index": 1}), ("index", {"index": -1}), ("index", {"index": 99}),
    ("index_range", {"index": 1, "count": 2}), ("index_range", {"index": -2}),
    ("index_range", {"index": 100, "count": 1}), ("index_range", {"index": -9, "count": 3}),
    ("rank", {"rank": 0}), ("rank", {"rank": -1}), ("rank", {"rank": 99}),
    ("rank_range", {"rank": 1, "count": 2}), ("rank_range", {"rank": -3}), ("rank_range", {"rank": 0, "count": -1}),
]
for mname, pairs in MAPS.items():
    for order in (["UNORDERED", "K_ORDERED", "KV_ORDERED"] if mname == "mixed" else ["UNORDERED"]):
        for si, (sel, args) in enumerate(MAP_SELECTORS):
            for rt in RTS:
                for inv in (False, True):
                    op = {"op": "map_get_by_" + sel, "args": args, "return_type": rt}
                    if inv:
                        op["inverted"] = True
                    case(f"map-{mname}-{order}-get_by_{sel}{si}-{rt}{'-inv' if inv else ''}", "map", pairs, [op],
                         order)
            # removes: the return types that shape results, and the map after
            for rt in ["NONE", "COUNT", "KEY_VALUE", "RANK"]:
                for inv in (False, True):
                    op = {"op": "map_remove_by_" + sel, "args": args, "return_type": rt}
                    if inv:
                        op["inverted"] = True
                    case(f"map-{mname}-{order}-remove_by_{sel}{si}-{rt}{'-inv' if inv else ''}", "map", pairs,
                         [op, {"op": "map_size"}], order)

# map writes and flags
MAP_FLAGS = [[], ["CREATE_ONLY"], ["UPDATE_ONLY"], ["CREATE_ONLY", "NO_FAIL"], ["UPDATE_ONLY", "NO_FAIL"],
             ["CREATE_ONLY", "NO_FAIL", "PARTIAL"], ["UPDATE_ONLY", "NO_FAIL", "PARTIAL"], ["PARTIAL"]]
for order in ["UNORDERED", "K_ORDERED", "KV_ORDERED"]:
    base = [["a", 1], ["b", 2]]
    for fi, fl in enumerate(MAP_FLAGS):
        case(f"map-put-{order}-f{fi}-new", "map", base,
             [{"op": "map_put", "args": {"key": "c", "value": 3}, "flags": fl}, {"op": "read"}], order)
        case(f"map-put-{order}-f{fi}-old", "map", base,
             [{"op": "map_put", "args": {"key": "a", "value": 9}, "flags": fl}, {"op": "read"}], order)
        case(f"map-put_items-{order}-f{fi}", "map", base,
             [{"op": "map_put_items", "args": {"items": [["a", 7], ["z", 8], ["b", 9]]}, "flags": fl},
              {"op": "read"}], order)
        case(f"map-increment-{order}-f{fi}", "map", base,
             [{"op": "map_increment", "args": {"key": "a", "delta": 5}, "flags": fl},
              {"op": "map_increment", "args": {"key": "q", "delta": 2}, "flags": fl}], order)
    case(f"map-increment-double-{order}", "map", [["a", d(1.5)], ["b", 2]],
         [{"op": "map_increment", "args": {"key": "a", "delta": d(1.0)}},
          {"op": "map_increment", "args": {"key": "b", "delta": d(0.5)}},
          {"op": "map_decrement", "args": {"key": "b", "delta": 3}}, {"op": "read"}], order)
    case(f"map-increment-nonnumber-{order}", "map", [["s", "str"]],
         [{"op": "map_increment", "args": {"key": "s", "delta": 1}}], order)
    case(f"map-increment-by-string-{order}", "map", [["a", 1]],
         [{"op": "map_increment", "args": {"key": "a", "delta": "x"}}], order)
    case(f"map-clear-size-{order}", "map", base,
         [{"op": "map_size"}, {"op": "map_clear"}, {"op": "map_size"}, {"op": "read"}], order)
    for to in ["UNORDERED", "K_ORDERED", "KV_ORDERED"]:
        case(f"map-set_policy-{order}-to-{to}", "map", [["b", 1], ["a", 2]],
             [{"op": "map_set_policy", "args": {"order": to}}, {"op": "map_get_by_index", "args": {"index": 0},
                                                                "return_type": "KEY"}, {"op": "read"}], order)
    case(f"map-create-missing-bin-{order}", "map", None,
         [{"op": "map_create", "args": {"order": order}}, {"op": "map_put", "args": {"key": 2, "value": 1}},
          {"op": "map_put", "args": {"key": 1, "value": 2}}, {"op": "read"}], order)
    case(f"map-put-missing-record-{order}", "map", None,
         [{"op": "map_put", "args": {"key": "k", "value": 1}}, {"op": "map_get_by_key", "args": {"key": "k"}}],
         order, record_exists=False)
# missing record / bin, wrong types
for op in [{"op": "map_size"}, {"op": "map_get_by_key", "args": {"key": "a"}},
           {"op": "map_remove_by_key", "args": {"key": "a"}}, {"op": "map_clear"},
           {"op": "map_put", "args": {"key": "a", "value": 1}}, {"op": "read"}]:
    name = op["op"]
    case(f"map-missing-record-{name}", "map", None, [op], "UNORDERED", record_exists=False)
    case(f"map-missing-bin-{name}", "map", None, [op, {"op": "read"}], "UNORDERED")
    case(f"map-on-string-{name}", "map", "hello", [op])
    case(f"map-op-on-list-bin-{name}", "list", [1, 2], [op])
case("map-two-ops-error-last", "map", [["a", 1]],
     [{"op": "map_put", "args": {"key": "b", "value": 2}}, {"op": "map_get_by_index", "args": {"index": 5}}])
case("map-two-ops-error-first", "map", [["a", 1]],
     [{"op": "map_get_by_rank", "args": {"rank": 5}}, {"op": "map_put", "args": {"key": "b", "value": 2}}])
case("map-inverted-single", "map", [["a", 1]],
     [{"op": "map_get_by_key", "args": {"key": "a"}, "return_type": "VALUE", "inverted": True}])
case("map-mixed-key-order", "map", [["b", 1], [3, 1], [{"$bytes": "00"}, 1], ["a", 1], [1, 1]],
     [{"op": "map_get_by_rank_range", "args": {"rank": 0}, "return_type": "KEY"},
      {"op": "map_get_by_index_range", "args": {"index": 0}, "return_type": "KEY_VALUE"}])
case("map-int-double", "map", [[1, 1], [2, d(1.0)], [3, 2], [4, d(2.5)]],
     [{"op": "map_get_by_value", "args": {"value": 1}, "return_type": "KEY"},
      {"op": "map_get_by_value", "args": {"value": d(1.0)}, "return_type": "KEY"},
      {"op": "map_get_by_value_range", "args": {"begin": 1, "end": d(2.0)}, "return_type": "KEY"}])

# --- lists ----------------------------------------------------------------------
LISTS = {
    "num": [7, 6, 5, 8, 9, 10, 5],
    "mixed": [1, "a", [1, 2], {"$map": [["k", 1]]}, {"$bytes": "01"}, d(2.5), True, None, "b"],
}
LIST_SELECTORS = [
    ("index", {"index": 1}), ("index", {"index": -1}), ("index", {"index": 99}),
    ("index_range", {"index": 1, "count": 3}), ("index_range", {"index": -2}),
    ("index_range", {"index": 100, "count": 1}), ("index_range", {"index": -9, "count": 3}),
    ("rank", {"rank": 0}), ("rank", {"rank": -1}), ("rank", {"rank": 99}),
    ("rank_range", {"rank": 0, "count": 3}), ("rank_range", {"rank": 1, "count": 4}), ("rank_range", {"rank": -2}),
    ("value", {"value": 5}), ("value", {"value": 99}), ("value", {"value": [1, WILD]}),
    ("value_list", {"values": [9, 5, 42]}), ("value_list", {"values": ["a", 7]}),
    ("value_range", {"begin": 6, "end": 10}), ("value_range", {"begin": NIL, "end": 7}),
    ("value_range", {"begin": "a"}), ("value_range", {"begin": 1, "end": d(3.0)}),
    ("value_rel_rank_range", {"value": 6, "rank": 0, "count": 3}),
    ("value_rel_rank_range", {"value": 7, "rank": -1}), ("value_rel_rank_range", {"value": 3, "rank": -3, "count": 3}),
]
LIST_RTS = ["NONE", "INDEX", "REVERSE_INDEX", "RANK", "REVERSE_RANK", "COUNT", "VALUE", "EXISTS", "KEY", 99]
for lname, items in LISTS.items():
    for order in (["UNORDERED_LIST", "ORDERED"] if lname == "num" else ["UNORDERED_LIST"]):
        for si, (sel, args) in enumerate(LIST_SELECTORS):
            for rt in LIST_RTS:
                for inv in (False, True):
                    op = {"op": "list_get_by_" + sel, "args": args, "return_type": rt}
                    if inv:
                        op["inverted"] = True
                    case(f"list-{lname}-{order}-get_by_{sel}{si}-{rt}{'-inv' if inv else ''}", "list", items, [op],
                         order)
            for rt in ["NONE", "COUNT", "VALUE", "INDEX", "RANK"]:
                for inv in (False, True):
                    op = {"op": "list_remove_by_" + sel, "args": args, "return_type": rt}
                    if inv:
                        op["inverted"] = True
                    case(f"list-{lname}-{order}-remove_by_{sel}{si}-{rt}{'-inv' if inv else ''}", "list", items,
                         [op, {"op": "read"}], order)

LIST_FLAGS = [[], ["ADD_UNIQUE"], ["ADD_UNIQUE", "NO_FAIL"], ["ADD_UNIQUE", "NO_FAIL", "PARTIAL"],
              ["INSERT_BOUNDED"], ["INSERT_BOUNDED", "NO_FAIL"]]
for order in ["UNORDERED_LIST", "ORDERED"]:
    base = [0, 4, 5, 9, 11, 15]
    for fi, fl in enumerate(LIST_FLAGS):
        for name, args in [("list_append", {"value": 5}), ("list_append", {"value": 6}),
                           ("list_append_items", {"values": [0, 4, 5, 9, 9, 11, 15, 0]}),
                           ("list_append_items", {"values": [1, 2, 2]}),
                           ("list_insert", {"index": 2, "value": 3}), ("list_insert", {"index": 9, "value": 3}),
                           ("list_insert", {"index": -1, "value": 4}),
                           ("list_insert_items", {"index": 1, "values": [7, 4]}),
                           ("list_insert_items", {"index": 20, "values": [7]}),
                           ("list_set", {"index": 1, "value": 9}), ("list_set", {"index": 8, "value": 1}),
                           ("list_increment", {"index": 0, "delta": 4}), ("list_increment", {"index": 1}),
                           ("list_increment", {"index": 9, "delta": 1})]:
            case(f"list-{name}-{order}-f{fi}-{json.dumps(args, sort_keys=True)}", "list", base,
                 [{"op": name, "args": args, "flags": fl}, {"op": "read"}], order)
    for name, args in [("list_pop", {"index": 1}), ("list_pop", {"index": -1}), ("list_pop", {"index": 6}),
                       ("list_pop_range", {"index": 1, "count": 2}), ("list_pop_range", {"index": -2}),
                       ("list_remove", {"index": 0}), ("list_remove", {"index": 10}),
                       ("list_remove_range", {"index": 2}), ("list_remove_range", {"index": 1, "count": 0}),
                       ("list_trim", {"index": 1, "count": 3}), ("list_trim", {"index": 0, "count": 0}),
                       ("list_trim", {"index": 1, "count": -5}), ("list_trim", {"index": 9, "count": 1}),
                       ("list_get", {"index": 2}), ("list_get", {"index": -7}), ("list_get_range", {"index": 6, "count": 4}),
                       ("list_get_range", {"index": -7, "count": 3}), ("list_get_range", {"index": 0, "count": -1}),
                       ("list_size", {}), ("list_clear", {}), ("list_sort", {}),
                       ("list_set_order", {"order": "ORDERED"}), ("list_set_order", {"order": "UNORDERED_LIST"})]:
        case(f"list-{name}-{order}-{json.dumps(args, sort_keys=True)}", "list", [5, 0, 15, 4, 11, 9, 4],
             [{"op": name, "args": args}, {"op": "read"}], order)
    case(f"list-sort-dropdup-{order}", "list", [3, 1, 3, 2, 1],
         [{"op": "list_sort", "flags": ["DROP_DUPLICATES"]}, {"op": "read"}], order)
    case(f"list-increment-nonnumber-{order}", "list", ["a", 1], [{"op": "list_increment", "args": {"index": 0}}], order)
    case(f"list-increment-double-{order}", "list", [d(1.5), 1],
         [{"op": "list_increment", "args": {"index": 0, "delta": 2}}, {"op": "read"}], order)
    case(f"list-create-missing-bin-{order}", "list", None,
         [{"op": "list_append_items", "args": {"values": [3, 1, 2]}}, {"op": "read"}], order)
    case(f"list-missing-record-append-{order}", "list", None,
         [{"op": "list_append", "args": {"value": 1}}, {"op": "list_size"}], order, record_exists=False)
for op in [{"op": "list_size"}, {"op": "list_get", "args": {"index": 0}}, {"op": "list_pop", "args": {"index": 0}},
           {"op": "list_clear"}, {"op": "list_append", "args": {"value": 1}},
           {"op": "list_get_by_rank", "args": {"rank": 0}}]:
    name = op["op"]
    case(f"list-missing-record-{name}", "list", None, [op], record_exists=False)
    case(f"list-missing-bin-{name}", "list", None, [op, {"op": "read"}])
    case(f"list-on-int-{name}", "list", 42, [op])
    case(f"list-op-on-map-bin-{name}", "map", [["a", 1]], [op])
case("list-sort-mixed", "list", [d(1.1), {"$map": [[1, 1]]}, "7", 9, 5, 3],
     [{"op": "list_sort"}, {"op": "read"}])
case("list-int-double", "list", [1, d(1.0), 2, d(2.5)],
     [{"op": "list_get_by_value", "args": {"value": 1}, "return_type": "INDEX"},
      {"op": "list_get_by_value", "args": {"value": d(1.0)}, "return_type": "INDEX"},
      {"op": "list_get_by_value_range", "args": {"begin": 1, "end": d(2.0)}, "return_type": "VALUE"}])
case("list-nested-wildcard-range", "list", [[1, "a"], [1, "b", "c"], [2, "x"], [1]],
     [{"op": "list_get_by_value_range", "args": {"begin": [1, NIL], "end": [1, INF]}, "return_type": "INDEX"},
      {"op": "list_get_by_value", "args": {"value": [1, WILD]}, "return_type": "INDEX"}])

# --- contexts --------------------------------------------------------------------
DOC = [["users", [{"$map": [["name", "a"], ["scores", [3, 1, 2]]]}, {"$map": [["name", "b"], ["scores", [9]]]}]],
       ["meta", {"$map": [["n", 2]]}]]
CTX_OPS = [
    ([{"type": "map_key", "key": "users"}, {"type": "list_index", "index": 0}, {"type": "map_key", "key": "scores"}],
     {"op": "list_append", "args": {"value": 7}}),
    ([{"type": "map_key", "key": "users"}, {"type": "list_index", "index": -1}, {"type": "map_key", "key": "scores"}],
     {"op": "list_get_by_rank", "args": {"rank": -1}}),
    ([{"type": "map_key", "key": "users"}, {"type": "list_rank", "rank": 0}], {"op": "map_size"}),
    ([{"type": "map_key", "key": "users"}, {"type": "list_value", "value": {"$map": [["name", "b"], ["scores", [9]]]}}],
     {"op": "map_get_by_key", "args": {"key": "name"}}),
    ([{"type": "map_index", "index": 0}], {"op": "map_get_by_key", "args": {"key": "n"}}),
    ([{"type": "map_rank", "rank": 0}], {"op": "map_size"}),
    ([{"type": "map_value", "value": {"$map": [["n", 2]]}}], {"op": "map_put", "args": {"key": "m", "value": 1}}),
    ([{"type": "map_key", "key": "nope"}], {"op": "map_size"}),
    ([{"type": "map_key", "key": "users"}, {"type": "list_index", "index": 5}], {"op": "map_size"}),
    ([{"type": "map_key", "key": "meta"}, {"type": "map_key", "key": "n"}], {"op": "map_size"}),
    ([{"type": "map_key", "key": "users"}], {"op": "map_size"}),
    ([{"type": "map_key_create", "key": "new", "order": "K_ORDERED"}], {"op": "map_put", "args": {"key": "z", "value": 1}}),
    ([{"type": "map_key_create", "key": "new2"}, {"type": "list_index_create", "index": 0}],
     {"op": "list_append", "args": {"value": 1}}),
    ([{"type": "map_key", "key": "users"}, {"type": "list_index_create", "index": 2}],
     {"op": "map_put", "args": {"key": "name", "value": "c"}}),
    ([{"type": "map_key", "key": "users"}, {"type": "list_index_create", "index": 4, "pad": True}],
     {"op": "map_put", "args": {"key": "name", "value": "c"}}),
    ([{"type": "map_key", "key": "users"}, {"type": "list_index_create", "index": 4}],
     {"op": "map_put", "args": {"key": "name", "value": "c"}}),
    ([{"type": "map_key_create", "key": "users"}], {"op": "list_size"}),
    ([{"type": "map_key_create", "key": "gone"}], {"op": "map_clear"}),
    ([{"type": "map_key", "key": "users"}], {"op": "list_create", "args": {"order": "ORDERED"}}),
    ([{"type": "map_key", "key": "fresh"}], {"op": "map_create", "args": {"order": "KV_ORDERED"}}),
]
for i, (ctx, op) in enumerate(CTX_OPS):
    op = dict(op)
    op["ctx"] = ctx
    case(f"ctx-{i}", "map", DOC, [op, {"op": "read"}], "K_ORDERED")
case("ctx-create-missing-bin", "map", None,
     [{"op": "list_append", "args": {"value": 1},
       "ctx": [{"type": "map_key_create", "key": "k", "order": "K_ORDERED"},
               {"type": "list_index_create", "index": 2, "order": "UNORDERED_LIST", "pad": True}]}, {"op": "read"}])
case("ctx-ordered-outer-resort", "list", [[1, 5], [3], [2, 0]],
     [{"op": "list_append", "args": {"value": 0}, "ctx": [{"type": "list_index", "index": 2}]}, {"op": "read"}],
     "ORDERED")
case("ctx-on-int-element", "list", [1, [2]], [{"op": "list_size", "ctx": [{"type": "list_index", "index": 0}]}])

# --- bits ----------------------------------------------------------------------
BLOB = {"$bytes": "0f00ff81"}
BIT_OPS = [
    ("bit_get", {"bit_offset": 4, "bit_size": 8}), ("bit_get", {"bit_offset": -8, "bit_size": 8}),
    ("bit_get", {"bit_offset": 30, "bit_size": 4}), ("bit_get", {"bit_offset": 32, "bit_size": 1}),
    ("bit_count", {"bit_offset": 0, "bit_size": 32}), ("bit_count", {"bit_offset": 3, "bit_size": 10}),
    ("bit_lscan", {"bit_offset": 0, "bit_size": 32, "value": True}),
    ("bit_lscan", {"bit_offset": 8, "bit_size": 8, "value": True}),
    ("bit_rscan", {"bit_offset": 0, "bit_size": 32, "value": False}),
    ("bit_get_int", {"bit_offset": 24, "bit_size": 8, "signed": True}),
    ("bit_get_int", {"bit_offset": 0, "bit_size": 12}),
    ("bit_set", {"bit_offset": 4, "bit_size": 8, "value": {"$bytes": "ab"}}),
    ("bit_set", {"bit_offset": 4, "bit_size": 16, "value": {"$bytes": "ab"}}),
    ("bit_or", {"bit_offset": 0, "bit_size": 8, "value": {"$bytes": "f0"}}),
    ("bit_xor", {"bit_offset": 8, "bit_size": 8, "value": {"$bytes": "ff"}}),
    ("bit_and", {"bit_offset": 16, "bit_size": 8, "value": {"$bytes": "0f"}}),
    ("bit_not", {"bit_offset": 2, "bit_size": 5}),
    ("bit_lshift", {"bit_offset": 0, "bit_size": 16, "shift": 3}),
    ("bit_rshift", {"bit_offset": 8, "bit_size": 24, "shift": 9}),
    ("bit_add", {"bit_offset": 24, "bit_size": 8, "value": 200, "action": "FAIL"}),
    ("bit_add", {"bit_offset": 24, "bit_size": 8, "value": 200, "action": "SATURATE"}),
    ("bit_add", {"bit_offset": 24, "bit_size": 8, "value": 200, "action": "WRAP"}),
    ("bit_add", {"bit_offset": 24, "bit_size": 8, "value": 5, "signed": True, "action": "SATURATE"}),
    ("bit_subtract", {"bit_offset": 0, "bit_size": 8, "value": 20, "action": "SATURATE"}),
    ("bit_subtract", {"bit_offset": 0, "bit_size": 8, "value": 20, "signed": True, "action": "WRAP"}),
    ("bit_set_int", {"bit_offset": 4, "bit_size": 12, "value": 1000}),
    ("bit_resize", {"byte_size": 6}), ("bit_resize", {"byte_size": 2, "resize_flags": ["FROM_FRONT"]}),
    ("bit_resize", {"byte_size": 2, "resize_flags": ["GROW_ONLY"]}),
    ("bit_resize", {"byte_size": 8, "resize_flags": ["SHRINK_ONLY"]}),
    ("bit_insert", {"byte_offset": 1, "value": {"$bytes": "aabb"}}),
    ("bit_insert", {"byte_offset": 9, "value": {"$bytes": "cc"}}),
    ("bit_remove", {"byte_offset": 1, "byte_size": 2}), ("bit_remove", {"byte_offset": 3, "byte_size": 5}),
]
BIT_FLAGS = [[], ["NO_FAIL"], ["CREATE_ONLY"], ["UPDATE_ONLY"], ["CREATE_ONLY", "NO_FAIL"]]
for i, (name, args) in enumerate(BIT_OPS):
    read = name in ("bit_get", "bit_count", "bit_lscan", "bit_rscan", "bit_get_int")
    for fi, fl in enumerate([[]] if read else BIT_FLAGS):
        op = {"op": name, "args": args}
        if fl:
            op["flags"] = fl
        case(f"bits-{i}-{name}-f{fi}", "bytes", BLOB, [op, {"op": "read"}])
    case(f"bits-{i}-{name}-missing-bin", "bytes", None, [{"op": name, "args": args}, {"op": "read"}])
    case(f"bits-{i}-{name}-on-string", "bytes", "str", [{"op": name, "args": args}])
# PARTIAL only where the server clips safely (ops from byte 0, and the integer ops, which refuse it)
case("bits-partial-get-past-end", "bytes", BLOB,
     [{"op": "bit_set", "args": {"bit_offset": 0, "bit_size": 40, "value": {"$bytes": "ffffffffff"}},
       "flags": ["PARTIAL"]}, {"op": "read"}])
case("bits-partial-add", "bytes", BLOB,
     [{"op": "bit_add", "args": {"bit_offset": 0, "bit_size": 8, "value": 1}, "flags": ["PARTIAL"]}])
case("bits-empty-blob-count", "bytes", {"$bytes": ""}, [{"op": "bit_count", "args": {"bit_offset": 0, "bit_size": 1}}])
case("bits-missing-record-insert", "bytes", None,
     [{"op": "bit_insert", "args": {"byte_offset": 0, "value": {"$bytes": "01"}}}, {"op": "read"}],
     record_exists=False)

print("[")
print(",\n".join(json.dumps(c, separators=(", ", ": ")) for c in cases))
print("]")
