#!/usr/bin/env python3
"""Generates tests/adapters/data/go_suite_{map,list,bit}.json: the scenarios of
the Aerospike Go client's own CDT and bit test suites (cdt_map_test.go,
cdt_list_test.go, cdt_bitwise_test.go of aerospike-client-go v7, with the
one test its stage branch adds, the Operate() calls with list ops in
client_test.go and batch_test.go, and examples/list_map's testListOperate,
ids "go/examples.list_map/...") written as
cdt-json cases (shared/spec/cdt-json.md), the way gen_client_suite.py and
gen_java_suite.py write the C and Java clients'.

One case per client.Operate() call of a Go test (a ginkgo It) that does CDT or
bit operations on one bin; its id is "go/<file>/<It text>/<n>" (n counts the
test's calls from 1). A call's reads of the bin afterwards (client.Get) are
folded into its case as "final". Each case carries "expected": what the Go
test asserts about that call, in the notation gen_client_suite.py describes
(a call whose error the test checks for nil and nothing else expects [ANY,
...], i.e. success); check_expected.py compares answers with it. Each case
starts from the bin the test's previous call left (chained through `kvmodel
cdt`, see suite_lib.py); generate with a server (--backend aerospike --host
H) so the chain is the server's.

Go specifics:
  * A Go map literal is sent in Go's map iteration order, which is random;
    the cases send its entries in source order (every Go assert holds for any
    order, or the test would be flaky).
  * MapPolicy write modes CREATE_ONLY / UPDATE_ONLY are sent by the Go client
    as the legacy ADD / REPLACE commands; the cases use the equivalent write
    flags, as the C and Java generators do.
  * cdt_list_test.go's "CDT List Operations" BeforeEach deletes the record
    and appends 1..10 one operate() at a time: those ten calls are recorded
    once, as "go/cdt_list_test/BeforeEach (CDT List Operations)/1..10", and
    every It of that Describe starts from the list they leave.
  * A test name used by two Its gets " #2" on the second; the second bin of
    a two-bin test is its own test, "<It text> (bin2)".
  * A case whose input (bin type, order, record_exists, initial bin, ops) is
    byte for byte a case of the C or Java suites is left out (its id is
    skipped): most of cdt_bitwise_test.go's regions of 1-10 bits and a few
    list tests the Java suite ports verbatim. What remains of the bit suite
    is mostly the Go *Ex tests' wider regions (set, and, not: 11-80 bits;
    add: 11-64; subtract 1-64 by 2^n - 1, where Java subtracts -1).
  * Those region loops are sampled, not enumerated: every size, at offsets
    0, 1, 7, 8, 9, 63, 64, 65 and the last two the size allows (see
    regions()). The full loops were run once: 28,422 cases (with the v4
    sample below) and 206,374 of the v4 shift loops, all agreeing with the
    server; enumerating them made go_suite_bit.json 26 MB.
  * The v4 and master branches' "should LSHIFTEX/RSHIFTEX bits" shift
    regions of up to 80 bits (v7: up to 4): a sample of them is kept, ids
    "... (v4)/n" (206,374 cases in full; all agreed with the server): every
    size at one offset, shifted by 0, 1, the loop's limit, 63, 64, set_sz.

Left out: UDFs (the CDT-in-UDF test), scans, batch reads (client_test.go's
BatchGetOperate / BatchGetComplex: their Operate() appends are kept, once),
expressions and HLL (exp_*_test.go, hll_operation_test.go), and the PARTIAL
rshift regions at the blob's end in "should RSHIFTEX bits", which crash 8.1.2
(shared/AEROSPIKE-CDT.md section 14; the same cases as gen_java_suite.py
--crash-shapes writes).

usage: gen_go_suite.py KVMODEL [--backend aerospike --host H[:P]]
       (writes the three JSON files beside this script)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from suite_lib import (ANY, NIL, INF, WILD, size, d, m, hx, op, c_li, c_lr, c_mk, c_mr,  # noqa: E402,F401
                       c_lic, Registry, build)

REG = Registry("go", ["go_suite_map", "go_suite_list", "go_suite_bit"])
test = REG.test
MAX = 2 ** 63 - 1


def consist(*xs):
    """A list asserted with gomega's ConsistOf: these elements, any order."""
    return {"$consist": list(xs)}


def ok(n):
    """n results of which the test only asserts that the call succeeded."""
    return [ANY] * n


def pairs(*ps):
    return [list(p) for p in ps]


# ============================================================================
# cdt_map_test.go. DefaultMapPolicy() is UNORDERED with no flags; addMode is
# UNORDERED CREATE_ONLY.
# ============================================================================
CM = "cdt_map_test"
MAPS = "go_suite_map"
CREATE, UPDATE = ["CREATE_ONLY"], ["UPDATE_ONLY"]


def mt(name, order="UNORDERED"):
    return test(MAPS, CM, name, "map", order)


t = mt("should create a valid CDT Map using MapPutOp")
t.call([op("map_put", key=1, value=1), op("map_put", key=2, value=2)] +
       [op("map_put", key=k, value=k, flags=CREATE) for k in (3, 4, 6, 7, 8)],
       results=ok(7), final={"$map": pairs(*[(k, k) for k in (1, 2, 3, 4, 6, 7, 8)])})

t = mt("should unpack an empty Non-Ordered CDT map correctly")
t.call([op("map_put", key=1, value=1), op("map_remove_by_key", "NONE", key=1)], results=ok(2), final={"$map": []})

t = mt("should unpack an empty Ordered CDT map correctly", "K_ORDERED")
t.call([op("map_put", key=1, value=1, order="K_ORDERED")], results=ok(1),
       note="the Go test then scans the set and asserts no record errors")

t = mt("should return the content of an Ordered CDT map correctly", "KV_ORDERED")
MK = pairs(("mk1", ["v1.0", "v1.1"]), ("mk2", ["v2.0", "v2.1"]))
t.call([op("map_put_items", items=MK, order="KV_ORDERED")], results=ok(1), note="the Go test's bin is named \"bin\"")
t.call([op("map_get_by_key", "VALUE", key="mk1"), op("map_get_by_key", "VALUE", key="mk2")],
       results=[["v1.0", "v1.1"], ["v2.0", "v2.1"]], final={"$map": MK},
       note="the Go test reads the bin back as the ordered pairs mk1, mk2")

t = mt("should create a valid CDT Map using MapPutOp #2")
t.call([op("map_put", key=1, value=1), op("map_put", key=2, value=2), op("map_put", key=3, value=3, flags=CREATE),
        op("map_put", key=4, value=4, flags=CREATE), op("read")],
       final={"$map": pairs((1, 1), (2, 2), (3, 3), (4, 4))},
       note="the second It of this name in cdt_map_test.go; it asserts nothing of the operate() but the bin read after")

t = mt("should create a valid CDT Map using MapPutItemsOp", "K_ORDERED")
t.call([op("map_put_items", items=pairs((12, "myValue"), (-8734, "str2"), (1, "my default")), flags=CREATE,
           order="K_ORDERED"),
        op("map_put_items", items=pairs((12, "myval12222"), (13, "str13"))),
        op("map_put_items", items=pairs((13, "myval2")), flags=UPDATE, order="K_ORDERED"),
        op("map_put_items", items=pairs((12, 23), (-8734, "changed")), flags=UPDATE, order="K_ORDERED"),
        op("map_get_by_key", "VALUE", key=1), op("map_get_by_key", "VALUE", key=-8734),
        op("map_get_by_key_range", "KEY_VALUE", begin=12, end=15)],
       results=[3, 4, 4, 4, "my default", "changed", [[12, 23], [13, "myval2"]]],
       final={"$map": pairs((-8734, "changed"), (1, "my default"), (12, 23), (13, "myval2"))})

t = mt("should create a valid CDT Map using mixed MapPutOp and MapPutItemsOp", "KV_ORDERED")
t.call([op("map_put_items", items=pairs((12, "myval"), (-8734, "str2"), (1, "my default"), (7, 1)),
           order="KV_ORDERED")],
       results=[4], note="the Go test also puts bin other_bin in this call; left out")
t.call([op("map_get_by_key", "INDEX", key=12)], results=[3],
       note="the Go test also appends to and reads bin other_bin in this call; left out")
t.call([op("map_get_by_key", "VALUE", key=12)], results=["myval"], note="the Go test sends this one with SendKey")

for name, persist in [("should create a valid CDT Map and then Switch Policy For Order", False),
                      ("should create a valid CDT Map and then Switch Policy For Order with Persisted Index", True)]:
    t = mt(name)
    t.call([op("map_put", key=4, value=1), op("map_put", key=3, value=2), op("map_put", key=2, value=3),
            op("map_put", key=1, value=4), op("map_get_by_index", "KEY_VALUE", index=2),
            op("map_get_by_index_range", "KEY_VALUE", index=0, count=10)],
           results=[1, 2, 3, 4, [[3, 2]], consist([1, 4], [2, 3], [3, 2], [4, 1])])
    sp = op("map_set_policy", order="K_ORDERED")
    if persist:
        sp["args"]["persist_index"] = True
    t.call([sp, op("map_get_by_key_range", "COUNT", begin=3, end=5),
            op("map_get_by_key_range", "KEY_VALUE", begin=-5, end=2),
            op("map_get_by_index_range", "KEY_VALUE", index=0, count=10)],
           results=[None, 2, [[1, 4]], [[1, 4], [2, 3], [3, 2], [4, 1]]], order="K_ORDERED")

JOHN4 = pairs(("Charlie", 55), ("Jim", 98), ("John", 76), ("Harry", 82))
t = mt("should create a valid CDT Map and then apply Inc/Dec operations and Get Correct Values")
t.call([op("map_put_items", items=JOHN4)], results=ok(1))
t.call([op("map_increment", key="John", delta=5), op("map_decrement", key="Jim", delta=4)], results=ok(2))
t.call([op("map_get_by_rank_range", "KEY", rank=-2, count=2),
        op("map_get_by_rank_range", "KEY_VALUE", rank=0, count=2),
        op("map_get_by_rank", "VALUE", rank=0), op("map_get_by_rank", "KEY", rank=2),
        op("map_get_by_value_range", "RANK", begin=90, end=95),
        op("map_get_by_value_range", "COUNT", begin=90, end=95),
        op("map_get_by_value_range", "KEY_VALUE", begin=90, end=95),
        op("map_get_by_value_range", "KEY", begin=81, end=82),
        op("map_get_by_value", "KEY", value=77), op("map_get_by_value", "RANK", value=81),
        op("map_get_by_key", "RANK", key="Charlie"), op("map_get_by_key", "REVERSE_RANK", key="Charlie"),
        op("map_get_by_key_list", "KEY", keys=["Charlie", "Jim"]),
        op("map_get_by_value_list", "KEY", values=[55, 94])],
       results=[["Harry", "Jim"], [["Charlie", 55], ["John", 81]], 55, "Harry", [3], 1, [["Jim", 94]], ["John"], [],
                [1], 0, 3, ["Charlie", "Jim"], ["Charlie", "Jim"]])

t = mt("should create a valid CDT Map and then Get via MapReturnType.INVERTED")
t.call([op("map_put_items", items=JOHN4)], results=ok(1))
t.call([op("map_get_by_rank_range", "KEY", inv=True, rank=-2, count=2),
        op("map_get_by_rank_range", "KEY_VALUE", inv=True, rank=0, count=2),
        op("map_get_by_value_range", "RANK", inv=True, begin=90, end=95),
        op("map_get_by_value_range", "COUNT", inv=True, begin=90, end=95),
        op("map_get_by_value_range", "KEY_VALUE", inv=True, begin=90, end=95),
        op("map_get_by_value_range", "KEY", inv=True, begin=81, end=82),
        op("map_get_by_value", "KEY", inv=True, value=77),
        op("map_get_by_value", "RANK", inv=True, value=81)],
       results=[["Charlie", "John"], [["Harry", 82], ["Jim", 98]], [0, 1, 2, 3], 4,
                [["Charlie", 55], ["Harry", 82], ["Jim", 98], ["John", 76]], ["Charlie", "Harry", "Jim", "John"],
                ["Charlie", "Harry", "Jim", "John"], [0, 1, 2, 3]])

SEVEN = pairs(("Charlie", 55), ("Jim", 98), ("John", 76), ("Harry", 82), ("Sally", 79), ("Lenny", 84), ("Abe", 88))
t = mt("should create a valid CDT Map and then execute Remove operations")
t.call([op("map_put_items", items=SEVEN), op("map_remove_by_key", "VALUE", key="NOTFOUND"),
        op("map_remove_by_key", "VALUE", key="Jim"),
        op("map_remove_by_key_list", "VALUE", keys=["Sally", "UNKNOWN", "Lenny"]),
        op("map_remove_by_value", "KEY", value=55)],
       results=[7, None, 98, consist(79, 84), ["Charlie"]])

t = mt("should create a valid CDT Map and then execute RemoveRange operations")
t.call([op("map_put_items", items=SEVEN), op("map_remove_by_key_range", "COUNT", begin="J", end="K"),
        op("map_remove_by_value_range", "COUNT", begin=80, end=85),
        op("map_remove_by_index_range", "COUNT", index=0, count=2),
        op("map_remove_by_rank_range", "COUNT", rank=0, count=2)],
       results=[7, 2, 2, 2, 1])

t = mt("should create a valid CDT Map and then execute Clear operations")
t.call([op("map_put_items", items=SEVEN)], results=ok(1))
t.call([op("map_clear"), op("map_size")], results=[None, 0])

t = mt("should create a valid CDT Map and then execute RANK operations", "KV_ORDERED")
t.call([op("map_put_items", items=pairs(("p1", 0), ("p2", 0), ("p3", 0), ("p4", 0)), order="KV_ORDERED")],
       results=ok(1))
t.call([op("map_increment", key=k, delta=v, order="KV_ORDERED") for k, v in [("p1", 10), ("p2", 20), ("p3", 1),
                                                                            ("p4", 20)]], results=ok(4))
t.call([op("map_get_by_rank_range", "KEY", rank=-3, count=3)], results=[["p1", "p2", "p4"]])
t.call([op("map_remove_by_value", "KEY", value=10), op("map_get_by_rank_range", "KEY", rank=-3, count=3)],
       results=[["p1"], ["p3", "p2", "p4"]])

REL4 = pairs((0, 17), (4, 2), (5, 15), (9, 10))
N = "should support MapWriteFlagsPartial & MapWriteFlagsNoFail"
t = mt(N)
t.call([op("map_put_items", items=REL4)], results=ok(1),
       note="the Go test also puts these items in bin2 (\"%s (bin2)\")" % N)
t.call([op("map_put_items", items=pairs((3, 3), (5, 15)), flags=["CREATE_ONLY", "PARTIAL", "NO_FAIL"])], results=[5])
t = mt(N + " (bin2)")
t.call([op("map_put_items", items=REL4)], results=ok(1), note="bin2 of the Go test's first call")
t.call([op("map_put_items", items=pairs((3, 3), (5, 15)), flags=["CREATE_ONLY", "NO_FAIL"])], results=[4],
       note="bin2 of the Go test's second call")

t = mt("should support Map Infinity ops")
t.call([op("map_put_items", items=REL4)], results=ok(1))
t.call([op("map_get_by_key_range", "KEY", begin=5, end=INF)], results=[[5, 9]])

t = mt("should support Map WildCard ops")
t.call([op("map_put_items", items=pairs((4, ["John", 55]), (5, ["Jim", 95]), (9, ["Joe", 80])))], results=ok(1))
t.call([op("map_get_by_value", "KEY", value=["Joe", WILD])], results=[[9]])

t = mt("should support Relative MapGet ops")
t.call([op("map_put_items", items=REL4)], results=ok(1))
KRI = [(5, 0, None), (5, 1, None), (5, -1, None), (3, 2, None), (3, -2, None),
       (5, 0, 1), (5, 1, 2), (5, -1, 1), (3, 2, 1), (3, -2, 2)]
VRR = [(11, 1, None), (11, -1, None), (11, 1, 1), (11, -1, 1)]


def cnt(c):
    return {} if c is None else {"count": c}


t.call([op("map_get_by_key_rel_index_range", "KEY", key=k, index=i, **cnt(c)) for k, i, c in KRI] +
       [op("map_get_by_value_rel_rank_range", "VALUE", value=v, rank=r, **cnt(c)) for v, r, c in VRR],
       results=[[5, 9], [9], [4, 5, 9], [9], [0, 4, 5, 9], [5], [9], [4], [9], [0], [17], [10, 15, 17], [17], [10]])

t = mt("should support Relative MapRemove ops")
t.call([op("map_put_items", items=REL4)], results=ok(1))
t.call([op("map_remove_by_key_rel_index_range", "VALUE", key=5, index=0),
        op("map_remove_by_key_rel_index_range", "VALUE", key=5, index=1),
        op("map_remove_by_key_rel_index_range", "VALUE", key=5, index=-1, count=1)],
       results=[[15, 10], [], [2]])
t.reset()
t.call([op("map_put_items", items=REL4)], results=ok(1))
t.call([op("map_remove_by_value_rel_rank_range", "VALUE", value=11, rank=1),
        op("map_remove_by_value_rel_rank_range", "VALUE", value=11, rank=-1, count=1)],
       results=[[17], [10]])

t = mt("should support Nested Map ops")
NEST = pairs(("key1", m(("key11", 9), ("key12", 4))), ("key2", m(("key21", 3), ("key22", 5))))
t.start(NEST)
t.call([op("read")], results=[{"$map": NEST}])
t.call([op("map_put", key="key21", value=11, ctx=[c_mk("key2")]), op("read")],
       results=[2, {"$map": pairs(("key1", m(("key11", 9), ("key12", 4))), ("key2", m(("key21", 11), ("key22", 5))))}])

t = mt("should support Double Nested Map ops")
DNEST = pairs(("key1", m(("key11", m(("key111", 1))), ("key12", m(("key121", 5))))),
              ("key2", m(("key21", m(("key211", 7))))))
t.start(DNEST)
t.call([op("read")], results=[{"$map": DNEST}])
t.call([op("map_put", key="key121", value=11, ctx=[c_mk("key1"), c_mr(-1)]), op("read")],
       results=[1, {"$map": pairs(("key1", m(("key11", m(("key111", 1))), ("key12", m(("key121", 11))))),
                                  ("key2", m(("key21", m(("key211", 7))))))}])

t = mt("should handle Map Create gg.Context")
t.start(NEST)
t.call([op("map_create", order="K_ORDERED", ctx=[c_mk("key3")]),
        op("map_put", key="key31", value=99, ctx=[c_mk("key3")]), op("read")],
       results=[ANY, 1, {"$map": [["key1", ANY], ["key2", ANY], ["key3", m(("key31", 99))]]}])


# ============================================================================
# cdt_list_test.go. The Go client leaves out the results of ops that return
# nothing only when it is not asked for every op's result; the runner answers
# null for them, so they are None below.
# ============================================================================
CL = "cdt_list_test"
LISTS = "go_suite_list"


def lt(name, order="UNORDERED_LIST"):
    return test(LISTS, CL, name, "list", order)


t = lt("should create a valid CDT List")
t.call([op("list_get", index=0)], error=2)
for i in range(1, 101):
    t.call([op("list_append", value=i)], results=[i])
    t.call([op("list_size")], results=[i])
L100 = list(range(1, 101))
t.call([op("list_get_range", index=0, count=100)], results=[L100])
t.call([op("list_append_items", values=L100)], results=[200])

# On the stage branch (2024-03-28) only: ListCreateWithIndexOp without a
# context sets the top-level order with a persisted index.
t = lt("should create a valid CDT List with persisted index", "ORDERED")
t.call([op("list_create", order="ORDERED", pad=False, persist_index=True),
        op("list_append_items", values=[1, 2, 3, 4], order="UNORDERED_LIST"), op("read")],
       results=[None, 4, [1, 2, 3, 4]], note="the Go test's bin is named \"indexedList\"")

# "CDT List Operations": BeforeEach deletes the record and appends 1..10.
t = lt("BeforeEach (CDT List Operations)")
for i in range(1, 11):
    t.call([op("list_append", value=i)], results=[i])
L10 = list(range(1, 11))
BEFORE = "starts from the list BeforeEach leaves (go/%s/BeforeEach (CDT List Operations)/10)" % CL


def lo(name, order="UNORDERED_LIST"):
    """An It of "CDT List Operations": the bin is the BeforeEach's list."""
    t = lt(name, order)
    t.start(list(L10))
    return t


def first(t, ops, **kw):
    """The test's first call, noted as starting from the BeforeEach list."""
    note = kw.pop("note", None)
    return t.call(ops, note=BEFORE if note is None else BEFORE + "; " + note, **kw)


t = lo("should Get the last element")
first(t, [op("list_get", index=-1)], results=[10])
t = lo("should Get the last element again")
first(t, [op("list_get", index=-1)], results=[10])
t.call([op("list_get", index=-1)], results=[10])
t = lo("should Get the last 3 element")
first(t, [op("list_get_range", index=-3, count=3)], results=[[8, 9, 10]])
t = lo("should Get the from element #7 till the end of list")
first(t, [op("list_get_range", index=7)], results=[[8, 9, 10]])

t = lo("should Get by value")
first(t, [op("list_get_by_value", "VALUE", value=7)], results=[[7]])
t.call([op("list_get_by_value_list", "INDEX", values=[7, 9])], results=[[6, 8]])
t.call([op("list_get_by_value_range", "VALUE", begin=5, end=9)], results=[[5, 6, 7, 8]])
t.call([op("list_get_by_value_range", "INDEX", begin=5, end=9)], results=[[4, 5, 6, 7]])
t.call([op("list_get_by_value_range", "EXISTS", begin=5, end=9)], results=[True])

for what in ["index", "rank"]:
    t = lo("should Get by " + what)
    first(t, [op("list_get_by_" + what, "VALUE", **{what: 7})], results=[8])
    t.call([op("list_get_by_%s_range" % what, "INDEX", **{what: 7})], results=[[7, 8, 9]])
    t.call([op("list_get_by_%s_range" % what, "VALUE", **{what: 7})], results=[[8, 9, 10]])
    t.call([op("list_get_by_%s_range" % what, "VALUE", **{what: 8})], results=[[9, 10]])
    t.call([op("list_get_by_%s_range" % what, "VALUE", count=2, **{what: 5})], results=[[6, 7]])

t = lo("should append an element to the tail")
first(t, [op("list_append", value=MAX)], results=[11])
t.call([op("list_get", index=10)], results=[MAX])
t = lo("should append the same cached element to the tail")
first(t, [op("list_append", value=MAX)], results=[11])
t.call([op("list_get", index=10)], results=[MAX])
t.call([op("list_append", value=MAX)], results=[12])
t.call([op("list_get", index=10)], results=[MAX])
ELEMS = [MAX, MAX - 1, MAX - 2]
t = lo("should append a few elements to the tail")
first(t, [op("list_append_items", values=ELEMS)], results=[13])
t.call([op("list_get_range", index=10, count=3)], results=[ELEMS])
t = lo("should append a few elements to the tail with policy")
first(t, [op("list_append_items", values=ELEMS, order="UNORDERED_LIST")], results=[13],
      note="DefaultListPolicy(): UNORDERED, no flags")
t.call([op("list_append", value=0, order="UNORDERED_LIST")], results=[14])
t.call([op("list_get_range", index=10, count=4)], results=[ELEMS + [0]])

t = lo("should prepend an element to the head via ListInsertOp")
first(t, [op("list_insert", index=0, value=MAX)], results=[11])
t.call([op("list_get", index=0)], results=[MAX])
t = lo("should prepend an element to the head via ListInsertWithPolicyOp")
first(t, [op("list_insert", index=0, value=MAX, order="UNORDERED_LIST")], results=[11],
      note="DefaultListPolicy(): UNORDERED, no flags")
t.call([op("list_insert_items", index=0, values=[MAX - 1, MAX - 2], order="UNORDERED_LIST")], results=[13])
t.call([op("list_get_range", index=0, count=-1)], results=[[MAX - 1, MAX - 2, MAX] + L10])
t = lo("should prepend a few elements to the tail via ListInsertOp")
first(t, [op("list_insert_items", index=0, values=ELEMS)], results=[13])
t.call([op("list_get_range", index=0, count=3)], results=[ELEMS])

t = lo("should pop elements from the head")
first(t, [op("list_pop_range", index=0, count=3)], results=[[1, 2, 3]])
t.call([op("read")], results=[L10[3:]])

t = lo("should pop element range from the index")
rest = list(L10)
for i in range(10, 0, -1):
    c = [op("list_pop", index=0)]
    if i == 10:
        first(t, c, results=[rest[0]])
    else:
        t.call(c, results=[rest[0]])
    rest = rest[1:]
    if i > 1:
        t.call([op("list_get_range", index=0, count=i)], results=[list(rest)])

t = lo("should pop elements from element #7 to the end of list")
first(t, [op("list_get_range", index=0)], results=[L10])
t.call([op("list_pop_range", index=7)], results=[L10[7:]])
t.call([op("list_get_range", index=0)], results=[L10[:7]])

t = lo("should remove elements from the head")
rest = list(L10)
for i in range(10, 0, -1):
    c = [op("list_remove", index=0)]
    if i == 10:
        first(t, c, results=[1])
    else:
        t.call(c, results=[1])
    rest = rest[1:]
    if i > 1:
        t.call([op("list_get_range", index=0, count=i)], results=[list(rest)])

t = lo("should remove elements from element #7 to the end of list")
first(t, [op("list_get_range", index=0)], results=[L10])
t.call([op("list_remove_range", index=7)], results=[3])
t.call([op("list_get_range", index=0)], results=[L10[:7]])

t = lo("should remove elements from the head in increasing numbers")
rest, n = list(L10), 10
for i in range(1, 5):
    c = [op("list_remove_range", index=0, count=i)]
    if i == 1:
        first(t, c, results=[i])
    else:
        t.call(c, results=[i])
    rest, n = rest[i:], n - i
    if n > 0:
        t.call([op("list_get_range", index=0, count=n)], results=[list(rest)])
    else:
        t.call([op("list_get_range", index=0, count=n)], note="the Go test asserts nothing of this call")

t = lo("should remove elements by value")
first(t, [op("list_remove_by_value_list", "VALUE", values=[1, 2, 3, 4, 5, 6, 7])], results=[[1, 2, 3, 4, 5, 6, 7]])
t.call([op("list_get_range", index=0, count=-1)], results=[[8, 9, 10]])
t.call([op("list_remove_by_value", "COUNT", value=9)], results=[1])
t.call([op("list_get_range", index=0, count=-1)], results=[[8, 10]])

t = lo("should remove elements by value range")
first(t, [op("list_remove_by_value_range", "VALUE", begin=1, end=5)], results=[[1, 2, 3, 4]])
t.call([op("list_get_range", index=0, count=-1)], results=[[5, 6, 7, 8, 9, 10]])
t.call([op("list_remove_by_value_range", "COUNT", begin=6, end=9)], results=[3])
t.call([op("list_get_range", index=0, count=-1)], results=[[5, 9, 10]])

for what in ["index", "rank"]:
    t = lo("should remove elements by " + what)
    if what == "rank":
        first(t, [op("list_sort")], results=ok(1))
        t.call([op("list_remove_by_rank", "VALUE", rank=0)], results=[1])
    else:
        first(t, [op("list_remove_by_index", "VALUE", index=0)], results=[1])
    t.call([op("list_get_range", index=0, count=-1)], results=[L10[1:]])
    t.call([op("list_remove_by_%s_range" % what, "COUNT", **{what: 5})], results=[4])
    t.call([op("list_get_range", index=0, count=-1)], results=[[2, 3, 4, 5, 6]])
    t.call([op("list_remove_by_%s_range" % what, "COUNT", count=3, **{what: 2})], results=[3])
    t.call([op("list_get_range", index=0, count=-1)], results=[[2, 3]])

for suffix, pol in [("", {}), (" with policy", {"order": "UNORDERED_LIST"})]:
    t = lo("should increment elements" + suffix)
    first(t, [op("list_get_range", index=0)], results=[L10])
    t.call([op("list_increment", index=0, delta=10, **pol)], results=[11])
    t.call([op("list_get", index=0)], results=[11])
    t.call([op("list_increment", index=0, **pol)], results=[12],
           note="ListIncrementByOne%sOp: no delta" % ("WithPolicy" if pol else ""))
    t.call([op("list_get", index=0)], results=[12])

t = lo("should sort elements with policy")
first(t, [op("list_increment", index=0, delta=100, order="UNORDERED_LIST")], results=[101])
t.call([op("list_get_range", index=0)], results=[[101] + L10[1:]])
t.call([op("list_sort")], results=ok(1))
t.call([op("list_get_range", index=0)], results=[L10[1:] + [101]])

t = lo("should set elements")
for i in range(10):
    c = [op("list_set", index=i, value=MAX)]
    if i == 0:
        first(t, c, results=[None])
    else:
        t.call(c, results=[None])
    t.call([op("list_get_range", index=0, count=i + 1)], results=[[MAX] * (i + 1)])

t = lo("should set the last element")
first(t, [op("list_set", index=-1, value=MAX)], results=[None])
t.call([op("list_get", index=-1)], results=[MAX])

t = lo("should trim list elements")
first(t, [op("list_trim", index=2, count=3)], results=[7])
t.call([op("list_size")], results=[3])
t.call([op("list_get_range", index=0, count=3)], results=[[3, 4, 5]])

t = lo("should clear list elements")
for i in range(10):
    c = [op("list_append", value=i)]
    if i == 0:
        first(t, c, results=ok(1))
    else:
        t.call(c, results=ok(1))
t.call([op("list_size")], results=[{"$int": True}], note="the Go test asserts the size is not 0")
t.call([op("list_clear")], results=[None])
t.call([op("list_size")], results=[0])

PART = [0, 4, 5, 9, 9, 11, 15, 0]
N = "should support ListWriteFlagsPartial & ListWriteFlagsNoFail"
t = lt(N, "ORDERED")
t.reset()
t.call([op("list_append_items", values=PART, order="ORDERED", flags=["ADD_UNIQUE", "PARTIAL", "NO_FAIL"])],
       results=[6], note="the Go test also appends to bin2 in this call (\"%s (bin2)\")" % N)
t.call([op("list_append_items", values=[11, 3], order="ORDERED", flags=["ADD_UNIQUE", "PARTIAL", "NO_FAIL"])],
       results=[7])
t = lt(N + " (bin2)", "ORDERED")
t.call([op("list_append_items", values=PART, order="ORDERED", flags=["ADD_UNIQUE", "NO_FAIL"])], results=[0])
t.call([op("list_append_items", values=[11, 3], order="ORDERED", flags=["ADD_UNIQUE", "NO_FAIL"])], results=[2])

REL6 = [0, 4, 5, 9, 11, 15]
t = lt("should support Relative GetList Ops", "ORDERED")
t.call([op("list_append_items", values=REL6, order="ORDERED")] +
       [op("list_get_by_value_rel_rank_range", "VALUE", value=v, rank=r, **cnt(c))
        for v, r, c in [(5, 0, None), (5, 1, None), (5, -1, None), (3, 0, None), (3, 3, None), (3, -3, None),
                        (5, 0, 2), (5, 1, 1), (5, -1, 2), (3, 0, 1), (3, 3, 7), (3, -3, 2)]],
       results=[6, [5, 9, 11, 15], [9, 11, 15], [4, 5, 9, 11, 15], [4, 5, 9, 11, 15], [11, 15],
                [0, 4, 5, 9, 11, 15], [5, 9], [9], [4, 5], [4], [11, 15], []])

t = lt("should support Relative RemoveList Ops", "ORDERED")
t.call([op("list_append_items", values=REL6, order="ORDERED")] +
       [op("list_remove_by_value_rel_rank_range", "VALUE", value=v, rank=r, **cnt(c))
        for v, r, c in [(5, 0, None), (5, 1, None), (5, -1, None), (3, -3, 1), (3, -3, 2), (3, -3, 3)]],
       results=[6, [5, 9, 11, 15], [], [4], [], [], [0]])

t = lt("should support List Infinity Ops", "ORDERED")
t.call([op("list_append_items", values=REL6, order="ORDERED"),
        op("list_get_by_value_range", "VALUE", begin=10, end=INF)],
       results=[6, [11, 15]])

t = lt("should support List WildCard Ops", "ORDERED")
t.call([op("list_append_items", values=[["John", 55], ["Jim", 95], ["Joe", 80]], order="ORDERED"),
        op("list_get_by_value", "VALUE", value=["Jim", WILD])],
       results=[3, [["Jim", 95]]])

t = lt("should support Nested List Ops")
NL = [[7, 9, 5], [1, 2, 3], [6, 5, 4, 1]]
t.start(NL)
t.call([op("read")], results=[NL])
t.call([op("list_append", value=11, order="UNORDERED_LIST", ctx=[c_li(-1)]), op("read")],
       results=[5, [[7, 9, 5], [1, 2, 3], [6, 5, 4, 1, 11]]])

t = test(LISTS, CL, "should support Nested List Map Ops", "map")
NLM = pairs(("key1", [[7, 9, 5], [13]]), ("key2", [[9], [2, 4], [6, 1, 9]]))
t.start(NLM)
t.call([op("read")], results=[{"$map": NLM}])
t.call([op("list_append", value=11, order="UNORDERED_LIST", ctx=[c_mk("key2"), c_lr(0)]), op("read")],
       results=[3, {"$map": pairs(("key1", [[7, 9, 5], [13]]), ("key2", [[9], [2, 4, 11], [6, 1, 9]]))}])

t = lt("should support Create List Ops", "ORDERED")
t.call([op("list_append_items", values=NL, order="ORDERED"), op("read")], results=ok(2))
t.call([op("list_append", value=2, order="ORDERED", ctx=[c_lic(3, "ORDERED")]), op("read")],
       results=[1, [ANY, [2], ANY, ANY]])

# batch_test.go: the one test there that operates on a single record.
t = test(LISTS, "batch_test", "ListGetByValueRangeOp and ListRemoveByValueRangeOp with nil arguments correctly", "list")
t.start([7, 6, 5, 8, 9, 10])
t.call([op("list_get_by_value_range", "VALUE", begin=7, end=9), op("list_get_by_value_range", "INDEX", begin=7),
        op("list_get_by_value_range", "VALUE", begin=7), op("list_get_by_value_range", "RANK", begin=7),
        op("list_get_by_value_range", "VALUE", begin=NIL, end=9)],
       results=[[7, 8], [0, 3, 4, 5], [7, 8, 9, 10], [2, 3, 4, 5], [7, 6, 5, 8]],
       note="a nil end is left out of the op; a nil begin is sent as nil")
t.call([op("list_remove_by_value_range", "INDEX", begin=7)], results=[[0, 3, 4, 5]], final=[6, 5])

# examples/list_map/list_map.go, testListOperate: the one example with CDT
# ops; it checks the list read back (validate panics otherwise).
t = test(LISTS, "examples.list_map", "testListOperate", "list")
t.start(["string1", "string2", "string3"])
UNIQUE = ["ADD_UNIQUE", "NO_FAIL"]
t.call([op("list_append", value="string4", order="UNORDERED_LIST", flags=UNIQUE)], results=ok(1))
t.call([op("list_append", value="string4", order="UNORDERED_LIST", flags=UNIQUE)], results=ok(1),
       final=["string1", "string2", "string3", "string4"], note="the duplicate is ignored (NO_FAIL)")

# client_test.go: the Operate() calls of its tests that do list ops.
CT = "client_test"
# "must execute BatchGetOperate with Operations": ten records, each built by
# ten appends; the batch read that follows is left out (batch).
# "must execute BatchGetComplex with Operations" makes the same calls.
for j in range(10):
    t = test(LISTS, CT, "must execute BatchGetOperate with Operations (key %d)" % j, "list")
    for i in range(1, 11):
        t.call([op("list_append", value=j + i * 100)], results=[i])
t = test(LISTS, CT, "must re-apply the same operations, and result should match expectation", "list")
for i in range(1, 11):
    t.call([op("list_append", value=1)], results=[i])
t.call([op("list_get", index=-1)], results=[1])
t.call([op("list_get", index=-1)], results=[1])


# ============================================================================
# cdt_bitwise_test.go. assertBitModifyOperations deletes the record, puts the
# blob (unless nil), operates and reads the bin back ("final");
# assertBitReadOperation puts the blob and operates; assertThrows operates
# on the record as the test left it; assertBitModifyRegion puts bin_sz 0xFF
# bytes, operates the ops and seven reads of the region.
# ============================================================================
CB = "cdt_bitwise_test"
BITS = "go_suite_bit"


def bt(name):
    return test(BITS, CB, name, "bytes")


def h(*bs):
    return hx("".join("%02x" % (b & 0xFF) for b in bs))


def bit_modify(t, initial, expected, ops):
    if initial is None:
        t.reset()
    else:
        t.start(initial)
    t.call(ops, results=ok(len(ops)), final=expected)


def bit_read(name, initial, expected, ops):
    t = bt(name)
    t.start(initial)
    t.call(ops, results=list(expected))


def bset(off, sz, val, flags=None):
    return op("bit_set", flags=flags, bit_offset=off, bit_size=sz, value=val)


def bint(name, off, sz, val, signed, action, flags=None):
    return op(name, flags=flags, bit_offset=off, bit_size=sz, value=val, signed=signed, action=action)


def shift(name, off, sz, n, flags=None):
    return op(name, flags=flags, bit_offset=off, bit_size=sz, shift=n)


def logic(name, off, sz, val=None):
    if val is None:
        return op(name, bit_offset=off, bit_size=sz)
    return op(name, bit_offset=off, bit_size=sz, value=val)


def bget(off, sz):
    return op("bit_get", bit_offset=off, bit_size=sz)


BIT0 = h(0x80)
BITS1 = h(0x11, 0x22, 0x33)

t = bt("should Set a Bin")
bit_modify(t, h(1, 2, 3, 4, 5, 6, 7, 8), h(0x51, 2, 3, 4, 5, 6),
           [bset(1, 1, BIT0), bset(3, 1, BIT0, UPDATE), op("bit_remove", flags=UPDATE, byte_offset=6, byte_size=2)])
bit_modify(t, None, h(0, 0x0A), [op("bit_insert", flags=CREATE, byte_offset=1, value=h(0x0A))])
t2 = bt("should Set a Bin")
t2.absent()
t2.call([bset(1, 1, BIT0)], error=17, note="the Go test sets bin \"b\", which the record does not have")
t.call([bset(1, 1, BIT0, CREATE)], error=4)

bit_modify(bt("should Set a Bin's bits"),
           h(0x01, 0x12, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11,
             0x41),
           h(0x41, 0x13, 0x11, 0x22, 0x33, 0x11, 0x22, 0x33, 0x08, 0x08, 0x91, 0x1B, 0x01, 0x12, 0x23, 0x11, 0x22, 0x11,
             0xc1),
           [bset(1, 1, BIT0), bset(15, 1, BIT0), bset(16, 24, BITS1), bset(40, 22, BITS1), bset(73, 21, BITS1),
            bset(100, 20, BITS1), bset(120, 17, BITS1), bset(144, 1, BIT0)])

t = bt("should LSHIFT bits")
bit_modify(t, h(0x01, 0x01, 0x00, 0x80, 0xFF, 0x01, 0x01, 0x18, 0x01),
           h(0x02, 0x40, 0x01, 0x00, 0xF8, 0x08, 0x01, 0x28, 0x01),
           [shift("bit_lshift", 0, 8, 1), shift("bit_lshift", 9, 7, 6), shift("bit_lshift", 23, 2, 1),
            shift("bit_lshift", 37, 18, 3), shift("bit_lshift", 58, 2, 1), shift("bit_lshift", 64, 4, 7)])
bit_modify(t, h(0xFF, 0xFF, 0xFF), h(0xF8, 0x00, 0x0F), [shift("bit_lshift", 0, 20, 15)])
bit_modify(bt("should RSHIFT bits"), h(0x80, 0x40, 0x01, 0x00, 0xFF, 0x01, 0x01, 0x18, 0x80),
           h(0x40, 0x01, 0x00, 0x80, 0xF8, 0xE0, 0x21, 0x14, 0x80),
           [shift("bit_rshift", 0, 8, 1), shift("bit_rshift", 9, 7, 6), shift("bit_rshift", 23, 2, 1),
            shift("bit_rshift", 37, 18, 3), shift("bit_rshift", 60, 2, 1), shift("bit_rshift", 68, 4, 7)])

LOGIC_IN = h(0x80, 0x40, 0x01, 0x00, 0x00, 0x01, 0x02, 0x03)
LOGIC_AT = [(0, 5), (9, 7), (23, 6), (32, 8), (40, 24)]
for tname, name, out in [("should OR bits", "bit_or", h(0x90, 0x48, 0x01, 0x20, 0x11, 0x11, 0x22, 0x33)),
                         ("should XOR bits", "bit_xor", h(0x90, 0x48, 0x01, 0x20, 0x11, 0x10, 0x20, 0x30)),
                         ("should AND bits", "bit_and", h(0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03))]:
    bit_modify(bt(tname), LOGIC_IN, out, [logic(name, o, s, BITS1) for o, s in LOGIC_AT])
bit_modify(bt("should NOT bits"), LOGIC_IN, h(0x78, 0x3F, 0x00, 0xF8, 0xFF, 0xFE, 0xFD, 0xFC),
           [logic("bit_not", o, s) for o, s in LOGIC_AT])

ARITH_AT = [(0, 5), (9, 7), (23, 6), (32, 8), (40, 24), (64, 20), (92, 20)]
ZERO6 = h(0, 0, 0, 0, 0, 0)


def bytewise(name, spec):
    return [bint(name, 8 * i, 8, v, s, a) for i, v, s, a in spec]


t = bt("should ADD bits")
bit_modify(t, h(0x38, 0x1F, 0x00, 0xE8, 0x7F, 0x00, 0x00, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x02, 0x02, 0x02,
                0x03, 0x03, 0x03),
           h(0x40, 0x20, 0x01, 0xF0, 0x80, 0x7F, 0x7F, 0x7F, 0x02, 0x02, 0x01, 0x02, 0x02, 0x02, 0x03, 0x03, 0x06,
             0x07, 0x07, 0x07),
           [bint("bit_add", o, s, v, False, "FAIL") for (o, s), v in
            zip(ARITH_AT + [(113, 22), (136, 23)], [1, 1, 0x21, 1, 0x7F7F7F, 0x01010, 0x10101, 0x8082, 0x20202])])
bit_modify(t, ZERO6, h(0xFE, 0xFE, 0x7F, 0xFF, 0x7F, 0x80), bytewise("bit_add", [
    (0, 0xFF, False, "WRAP"), (0, 0xFF, False, "WRAP"), (1, 0x7F, True, "WRAP"), (1, 0x7F, True, "WRAP"),
    (2, 0x80, True, "WRAP"), (2, 0xFF, True, "WRAP"), (3, 0x80, False, "SATURATE"), (3, 0x80, False, "SATURATE"),
    (4, 0x77, True, "SATURATE"), (4, 0x77, True, "SATURATE"), (5, 0x8F, True, "SATURATE"),
    (5, 0x8F, True, "SATURATE")]))
t.start(ZERO6)
for a, b, s in [(0xFF, 0xFF, False), (0x7F, 0x02, True), (0x81, 0xFE, True)]:
    t.call([bint("bit_add", 0, 8, a, s, "FAIL"), bint("bit_add", 0, 8, b, s, "FAIL")], error=26)

t = bt("should SUB bits")
bit_modify(t, h(0x38, 0x1F, 0x00, 0xE8, 0x7F, 0x80, 0x80, 0x80, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x02, 0x02, 0x02,
                0x03, 0x03, 0x03),
           h(0x30, 0x1E, 0x00, 0xD0, 0x7E, 0x7F, 0x7F, 0x7F, 0x00, 0xF0, 0xF1, 0x00, 0x00, 0x00, 0x01, 0xFD, 0xFE,
             0x00, 0xE0, 0xE1),
           [bint("bit_subtract", o, s, v, False, "FAIL") for (o, s), v in
            zip(ARITH_AT + [(113, 21), (136, 23)], [1, 1, 3, 1, 0x10101, 0x101, 0x10101, 0x101, 0x11111])])
bit_modify(t, ZERO6, h(0xFF, 0xF6, 0x7F, 0x00, 0x80, 0x7F), bytewise("bit_subtract", [
    (0, 0x01, False, "WRAP"), (1, 0x80, True, "WRAP"), (1, 0x8A, True, "WRAP"), (2, 0x7F, True, "WRAP"),
    (2, 0x02, True, "WRAP"), (3, 0xAA, False, "SATURATE"), (4, 0x77, True, "SATURATE"), (4, 0x77, True, "SATURATE"),
    (5, 0x81, True, "SATURATE"), (5, 0x8F, True, "SATURATE")]))
t.start(ZERO6)
t.call([bint("bit_subtract", 0, 8, 1, False, "FAIL")], error=26)
for a, b in [(0x7F, 0x02), (0x81, 0xFE)]:
    t.call([bint("bit_subtract", 0, 8, a, True, "FAIL"), bint("bit_subtract", 0, 8, b, True, "FAIL")], error=26)

bit_modify(bt("should SetInt bits"),
           h(0x38, 0x1F, 0x00, 0xE8, 0x7F, 0x80, 0x80, 0x80, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x02, 0x02, 0x02,
             0x03, 0x03, 0x03),
           h(0x08, 0x01, 0x00, 0x18, 0x01, 0x01, 0x01, 0x01, 0x00, 0x10, 0x11, 0x01, 0x01, 0x01, 0x00, 0x04, 0x06,
             0x02, 0x22, 0x23),
           [op("bit_set_int", bit_offset=o, bit_size=s, value=v) for (o, s), v in
            zip(ARITH_AT + [(113, 21), (136, 23)], [1, 1, 3, 1, 0x10101, 0x101, 0x10101, 0x101, 0x11111])])

BIT_READ_AT = [(0, 1), (1, 1), (7, 1), (0, 8), (8, 16), (9, 15), (9, 14)]
bit_read("should Get bits", h(0xC1, 0xAA, 0xAA),
         [h(0x80), h(0x80), h(0x80), h(0xC1), h(0xAA, 0xAA), h(0x55, 0x54), h(0x55, 0x54)],
         [bget(o, s) for o, s in BIT_READ_AT])
bit_read("should Count bits", h(0xC1, 0xAA, 0xAB), [1, 1, 1, 3, 9, 8, 7],
         [op("bit_count", bit_offset=o, bit_size=s) for o, s in BIT_READ_AT])
SCAN_IN = h(0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x01)
SCAN_AT = [(0, 1, True), (0, 8, True), (0, 9, True), (0, 32, True), (0, 32, False), (1, 30, False), (32, 40, True),
           (33, 38, True), (32, 40, False), (33, 38, False), (0, 72, True), (0, 72, False), (-1, 1, True),
           (-1, 1, False)]
bit_read("should LSCAN bits", SCAN_IN, [0, 0, 0, 0, -1, -1, 39, -1, 0, 0, 0, 32, 0, -1],
         [op("bit_lscan", bit_offset=o, bit_size=s, value=v) for o, s, v in SCAN_AT])
bit_read("should RSCAN bits", SCAN_IN, [0, 7, 8, 31, -1, -1, 39, -1, 38, 37, 71, 70, 0, -1],
         [op("bit_rscan", bit_offset=o, bit_size=s, value=v) for o, s, v in SCAN_AT])
GETINT_AT = [(4, 4), (0, 8), (7, 4), (8, 16), (9, 15), (9, 14), (5, 17), (-12, 4)]
bit_read("should GetInt bits", h(0x0F, 0x0F, 0x00),
         [15, -1, 15, 15, 8, -8, 3840, 3840, 3840, 3840, 1920, 1920, 115648, -15424, 15, -1],
         [op("bit_get_int", bit_offset=o, bit_size=s, signed=sg) for o, s in GETINT_AT for sg in (False, True)])


def bit_region(name, bin_sz, offset, set_sz, expected, ops, is_insert=False, note=None):
    """assertBitModifyRegion."""
    int_sz = min(64, set_sz)
    bin_bit_sz = bin_sz * 8 + (set_sz if is_insert else 0)
    reads = [op("bit_lscan", bit_offset=offset, bit_size=set_sz, value=True),
             op("bit_rscan", bit_offset=offset, bit_size=set_sz, value=True),
             op("bit_get_int", bit_offset=offset, bit_size=int_sz, signed=False),
             op("bit_count", bit_offset=offset, bit_size=set_sz),
             op("bit_lscan", bit_offset=0, bit_size=bin_bit_sz, value=False),
             op("bit_rscan", bit_offset=0, bit_size=bin_bit_sz, value=False),
             op("bit_get", bit_offset=offset, bit_size=set_sz)]
    t = bt(name)
    t.start(hx("ff" * bin_sz))
    n = "bin_sz %d offset %d set_sz %d" % (bin_sz, offset, set_sz)
    t.call(ops + reads, results=ok(len(ops)) + [-1, -1, 0, 0, offset, offset + set_sz - 1, expected],
           note=n if note is None else n + "; " + note)


def zeros(set_sz):
    return hx("00" * ((set_sz + 7) // 8))


BIN_SZ = 15
BIN_BIT_SZ = BIN_SZ * 8


# The Go *Ex tests loop over every region of the 15-byte blob: each set_sz
# 1..max_sz at every offset 0..BIN_BIT_SZ - set_sz. Those full loops were run
# once through the server (go_suite_bit.json then held 28,422 cases, 26,028
# of them these regions; the v4 shift loops below ran 206,374 more; all were
# answered alike by the server and the simulator) and are sampled here, to
# keep the suite small (it was 26 MB of JSON): every set_sz, at the offsets
# that matter for bit arithmetic:
# the first bits and the byte boundaries around the first byte (0, 1, 7, 8,
# 9), the 64-bit word boundary (63, 64, 65) and the blob's end (last - 1,
# last), those that are valid. The fixed ones start at bit 0, 1 or 7 of a
# byte; with every set_sz that still ends a region at every bit of a byte,
# and the two at the end start at every bit across the sizes. Regions of
# 1-10 bits at every offset are the Java suite's (gen_java_suite.py; it
# subtracts -1 where Go subtracts 2^n - 1).
REGION_OFFSETS = (0, 1, 7, 8, 9, 63, 64, 65)


def region_offsets(set_sz):
    last = BIN_BIT_SZ - set_sz
    return sorted({o for o in REGION_OFFSETS + (last - 1, last) if 0 <= o <= last})


def regions(max_sz, every_offset=False):
    for set_sz in range(1, max_sz + 1):
        for offset in (range(BIN_BIT_SZ - set_sz + 1) if every_offset else region_offsets(set_sz)):
            yield set_sz, offset


for set_sz, offset in regions(80):
    bit_region("should BitSetEx bits", BIN_SZ, offset, set_sz, zeros(set_sz), [bset(offset, set_sz, zeros(set_sz))])
for name, tname in [("bit_lshift", "should LSHIFTEX bits"), ("bit_rshift", "should RSHIFTEX bits")]:
    for set_sz, offset in regions(4, every_offset=True):
        # limit = set_sz + 1 (set_sz < 16); the n_bits 63..set_sz loop never runs.
        for n_bits in range(set_sz + 2):
            bit_region(tname, BIN_SZ, offset, set_sz, zeros(set_sz),
                       [bset(offset, set_sz, zeros(set_sz)), shift(name, offset, set_sz, n_bits)],
                       note="shift %d" % n_bits)
    # "Test Partial" (rshift): PARTIAL set and rshift over a range running
    # past the blob's end: crashes 8.1.2; left out (see the docstring).
    # The v4 and master branches run these loops for set_sz up to 80 (limit
    # 16 from set_sz 16, and the n_bits 63..set_sz loop runs): 206,374
    # cases, all answered alike by the server and the simulator when this
    # was generated. Kept: every size, at one offset of 0, 9 and the blob's
    # end in turn (so each meets every set_sz % 8), shifted by 0, 1 and the
    # limit, and by 63, 64 and set_sz where the second loop runs them.
    for set_sz in range(5, 81):
        limit = 16 if set_sz >= 16 else set_sz + 1
        offset = (0, 9, BIN_BIT_SZ - set_sz)[set_sz % 3]
        for n_bits in sorted({0, 1, limit} | {63, 64, set_sz} & set(range(63, set_sz + 1))):
            bit_region(tname + " (v4)", BIN_SZ, offset, set_sz, zeros(set_sz),
                       [bset(offset, set_sz, zeros(set_sz)), shift(name, offset, set_sz, n_bits)],
                       note="shift %d; the v4 and master branches' wider loops, sampled" % n_bits)
for set_sz, offset in regions(80):
    bit_region("should AND Ex bits", BIN_SZ, offset, set_sz, zeros(set_sz),
               [logic("bit_and", offset, set_sz, zeros(set_sz))])
for set_sz, offset in regions(80):
    bit_region("should NOT Ex bits", BIN_SZ, offset, set_sz, zeros(set_sz), [logic("bit_not", offset, set_sz)])
for set_sz in range(1, 11):
    for offset in range(BIN_SZ + 1):
        bit_region("should INSERT Ex bits", BIN_SZ, offset * 8, set_sz * 8, hx("00" * set_sz),
                   [op("bit_insert", byte_offset=offset, value=hx("00" * set_sz))], is_insert=True)
for set_sz, offset in regions(64):
    bit_region("should ADD Ex bits", BIN_SZ, offset, set_sz, zeros(set_sz),
               [bint("bit_add", offset, set_sz, 1, False, "WRAP")])
for set_sz, offset in regions(64):
    # Go's uint64(0xFFFFffffFFFFffff >> (64 - set_sz)) is a logical shift:
    # 2^set_sz - 1, as int64 (-1 when set_sz is 64).
    v = (1 << set_sz) - 1
    bit_region("should SUB Ex bits", BIN_SZ, offset, set_sz, zeros(set_sz),
               [bint("bit_subtract", offset, set_sz, v - (1 << 64) if v >= 1 << 63 else v, False, "WRAP")])

# The second It named "should LSHIFT bits": every op on an empty blob fails.
t = bt("should LSHIFT bits #2")
t.start(hx(""))
for code, o in [(26, bset(0, 1, BIT0)), (26, logic("bit_or", 0, 1, BIT0)), (26, logic("bit_xor", 0, 1, BIT0)),
                (26, logic("bit_and", 0, 1, BIT0)), (26, logic("bit_not", 0, 1)), (26, shift("bit_lshift", 0, 1, 1)),
                (26, shift("bit_rshift", 0, 1, 1)), (4, op("bit_remove", byte_offset=0, byte_size=1)),
                (26, bint("bit_add", 0, 1, 1, False, "FAIL")), (26, bint("bit_subtract", 0, 1, 1, False, "FAIL")),
                (26, op("bit_set_int", bit_offset=0, bit_size=1, value=1)), (26, bget(0, 1)),
                (26, op("bit_count", bit_offset=0, bit_size=1)),
                (26, op("bit_lscan", bit_offset=0, bit_size=1, value=True)),
                (26, op("bit_rscan", bit_offset=0, bit_size=1, value=True)),
                (26, op("bit_get_int", bit_offset=0, bit_size=1, signed=False))]:
    t.call([o], error=code)

t = bt("should Resize bits")
t.reset()


def resize(n, flags, rflags):
    return op("bit_resize", flags=flags, byte_size=n, resize_flags=rflags)


Z = h(0)
t.call([resize(20, None, []), bget(19 * 8, 8), resize(10, ["NO_FAIL"], ["GROW_ONLY"]), bget(19 * 8, 8),
        resize(10, None, ["SHRINK_ONLY"]), bget(9 * 8, 8), resize(30, ["NO_FAIL"], ["SHRINK_ONLY"]), bget(9 * 8, 8),
        resize(19, None, ["GROW_ONLY"]), bget(18 * 8, 8), resize(0, ["NO_FAIL"], ["GROW_ONLY"]),
        resize(0, None, ["SHRINK_ONLY"])],
       results=[ANY, Z, ANY, Z, ANY, Z, ANY, Z, ANY, Z, ANY, ANY])


# ============================================================================
# Leaving out the cases the C and Java suites already have, byte for byte.
# ============================================================================
def signature(c):
    return json.dumps({k: c.get(k) for k in ("bin_type", "order", "record_exists", "initial", "ops")},
                      sort_keys=True)


def drop_known(outdir=HERE):
    known = set()
    for name in sorted(os.listdir(outdir)):
        if name.endswith(".json") and name.startswith(("client_suite_", "java_suite_")):
            with open(os.path.join(outdir, name)) as f:
                known.update(signature(c) for c in json.load(f))
    for suite in REG.suites:
        path = os.path.join(outdir, suite + ".json")
        with open(path) as f:
            cases = json.load(f)
        kept = [c for c in cases if signature(c) not in known]
        with open(path, "w") as f:
            f.write("[\n")
            f.write(",\n".join(json.dumps(c) for c in kept))
            f.write("\n]\n")
        print("%s: %d cases kept, %d left out as byte-identical to a C or Java suite case" %
              (suite, len(kept), len(cases) - len(kept)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build(REG, sys.argv[1], sys.argv[2:])
    drop_known()
