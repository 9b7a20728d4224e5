#!/usr/bin/env python3
"""Generates tests/adapters/data/client_suite_exp.json and java_suite_exp.json:
the scenarios of the Aerospike C and Java clients' own expression tests
written as expression cases (shared/spec/exp-json.md), the way
gen_client_suite.py and gen_java_suite.py write their CDT tests.

  C (ids "client/<file>/<test>/<n>"): src/test/filter_exp.c (filters on
  put, get, batch, delete, operate, udf; CDT calls with ctx, modify calls,
  record key, float bins, since_update, string / list / map comparisons,
  exclusive, arithmetic, integer bit ops, min/max, let, cond, values as
  call bins, HLL values), src/test/exp_operate.c (exp_read / exp_write with
  every flag, every result type, unknown, merged expressions) and the
  filtered scans and queries of aerospike_query/query_foreach.c and
  aerospike_scan/scan_basics.c (record size, void_time, ttl, last_update,
  digest_modulo, set_name, regex with and without ICASE, key_str, a
  background exp_write).
  Java (ids "java/<File>/<test>/<n>"): TestFilterExp, TestExpOperation,
  TestListExp, TestMapExp, TestBitExp, TestHLLExp, and the query tests
  TestQueryFilterExp and TestQueryFilterSet. A Java case that asks byte for
  byte what an earlier case asks (a C one, or an earlier Java one: the Java
  tests repeat the C ones, and each *Except test its plain twin) is left
  out.

One case per client call that carries an expression (a filter on a
command, or exp_read / exp_write operations), or per record of a filtered
scan or query (the test asserts the count; the generator checks that the
verdicts add up to it); its record is the test's
record at that point: the bins the test wrote, chained through `kvmodel cdt`
(each call of a test starts from the bins the previous call left, as the
backend answered: generate with --backend aerospike so the chain is the
server's). Each case carries "expected": what the client test asserts,
in gen_client_suite.py's notation (check_expected.py compares), and
"error": 27 for a command the test expects FILTERED_OUT.

What a case cannot say, and how it is written instead:
  * the command: every case is one operate(). A filtered put, get, batch
    read, delete or UDF call is an operate with the same filter whose ops
    are the command's (put: write_bin; get / batch / exists: read_bin of the
    bins the test reads; delete / UDF / touch: a read_bin, so the case asks
    the filter's verdict; the note names the command);
  * the key: a case's user key is its id (a string, set "cdt"), so a test's
    blob key B is a string key here; tests that assert on the key's type
    (key_blob) keep only their string-key half (noted);
  * wall time: void_time, last_update, since_update and ttl only in
    comparisons whose answer does not depend on when the case runs (as
    gen_exp_cases.py does): a comparison with the client's clock is made
    with the record's own last_update, or with a fixed instant before every
    write (each such place says which);
  * the set: always "cdt", so a set_name comparison names cdt where the
    test names its own set (noted).
  * HLL bins: a case's record cannot hold one before its ops, so the
    case's first ops make them (exp_write of hll_add) and a filter's verdict
    is read with exp_read (see hll_tests()).
Left out, each named where its test is: keys of other types (integer and
blob keys), GeoJSON, and what 8.1.2 does not have (in_list and map_keys_in
/ map_values_in need 8.1.3; path select/apply; string calls of later
clients).

usage: gen_exp_suites.py KVMODEL [--backend aerospike --host H[:P]]
       (writes the two JSON files beside this script)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite_lib import run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FILTERED_OUT = 27
OP_NOT_APPLICABLE = 26
BIN_NOT_FOUND = 17
BIN_EXISTS = 6


ANY = {"$any": True}


def d(x):
    return {"$double": x}


def hx(s):
    return {"$bytes": s}


def lv(*xs):
    """A list value inside an expression."""
    return {"$list": list(xs)}


def mv(pairs, order=None):
    out = {"$map": [list(p) for p in pairs]}
    if order:
        out["$order"] = order
    return out


# expression shorthands (the spec's names; arguments in the macro's order):
# bi("A") is ["bin_int", "A"], and so on
def _bin_read(t):
    return lambda n: ["bin_" + t, n]


bi, bf, bs, bl, bm, bb = (_bin_read(t) for t in ("int", "float", "str", "list", "map", "blob"))


def eq(a, b):
    return ["cmp_eq", a, b]


def fl(x):
    return ["float", x]


# ops
def rd(b):
    return {"op": "read_bin", "bin": b}


def wr(b, v):
    return {"op": "write_bin", "bin": b, "value": v}


def xr(name, e, *flags):
    o = {"op": "exp_read", "name": name, "exp": e}
    if flags:
        o["flags"] = list(flags)
    return o


def xw(b, e, *flags):
    o = {"op": "exp_write", "bin": b, "exp": e}
    if flags:
        o["flags"] = list(flags)
    return o


class Rec:
    """One record of a client test, carried from call to call."""

    def __init__(self, reg, file, test, bins=None, send_key=False):
        self.reg, self.file, self.test = reg, file, test
        self.calls = []
        self.next_bins = dict(bins) if bins is not None else None
        self.given = True  # the next call's bins are these, not the previous call's
        self.send_key = send_key
        reg.recs.append(self)

    def call(self, ops, filter=None, expected=None, note=None, test=None):
        key = (self.file, test or self.test)
        self.reg.counts[key] = self.reg.counts.get(key, 0) + 1
        c = {"id": "%s/%s/%s/%d" % (self.reg.prefix, key[0], key[1], self.reg.counts[key])}
        if note:
            c["notes"] = note
        c["ops"] = ops
        if filter is not None:
            c["filter"] = filter
        if self.send_key:
            c["send_key"] = True
        if expected is not None:
            c["expected"] = expected
        self.calls.append((c, self.given, self.next_bins))
        self.given = False
        return self

    # the commonest calls
    def get(self, filter, ok, bins=("A",), note=None, test=None, results=None):
        if not ok:
            exp = {"error": FILTERED_OUT}
        else:
            exp = {"results": results if results is not None else [ANY] * len(bins)}
        return self.call([rd(b) for b in bins], filter, exp, note, test)


class Registry:
    def __init__(self, prefix, suite):
        self.prefix, self.suite = prefix, suite
        self.recs = []
        self.counts = {}


# a case's fields in the order they are written
FIELD_ORDER = ["id", "notes", "bin_name", "record_exists", "bins", "ttl", "send_key", "filter", "ops", "expected"]


def signature(c):
    """What a case asks, without its id and notes; None when the answer may
    depend on the key (the id), so the case is never a duplicate."""
    s = json.dumps({k: v for k, v in c.items() if k not in ("id", "notes", "expected")}, sort_keys=True)
    return None if "digest_modulo" in s or '"key_' in s else s


def build(reg, kvmodel, extra, seen):
    """Runs call k of every record in one batch, k = 1, 2, ...: each call
    starts from the bins the previous one left (or the bins its test put).
    Writes the cases but those that ask what an earlier case (of this suite
    or an earlier one, in `seen`) asks byte for byte."""
    state = {id(r): None for r in reg.recs}
    depth = max((len(r.calls) for r in reg.recs), default=0)
    for k in range(depth):
        batch = []
        for r in reg.recs:
            if k >= len(r.calls):
                continue
            c, given, bins = r.calls[k]
            if not given:
                bins = state[id(r)]
            if bins is None:
                c["record_exists"] = False
            else:
                c["bins"] = bins
            c2 = {f: c[f] for f in FIELD_ORDER if f in c}
            c.clear()
            c.update(c2)
            batch.append((r, c))
        out = run(kvmodel, extra, [c for _, c in batch])
        for (r, _), o in zip(batch, out):
            b = o.get("bins")
            state[id(r)] = None if b is None else dict(b)
    cases = []
    dropped = 0
    for r in reg.recs:
        for c, _, _ in r.calls:
            sig = signature(c)
            if sig is not None and sig in seen:
                dropped += 1
                continue
            seen.add(sig)
            cases.append(c)
    path = os.path.join(HERE, reg.suite + ".json")
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(c) for c in cases) + "\n]\n")
    print("%s: %d cases (%d left out as duplicates)" % (path, len(cases), dropped))


# ============================================================================
# C client: src/test/filter_exp.c
# ============================================================================
C = Registry("client", "client_suite_exp")
FE = "filter_exp"
REC_A = {"A": 1, "B": d(1.1), "C": "abcde", "D": 1, "E": -1}
REC_B = {"A": 2, "B": d(2.2), "C": "abcdeabcde", "D": 1, "E": -2}
A_EQ_1 = eq(bi("A"), 1)
ALL = ("A", "B", "C", "D", "E")


def fe(test, bins=REC_A, send_key=False):
    return Rec(C, FE, test, bins, send_key)


def pair(test, filt, ok_a, ok_b, b_bins=REC_B, b_send_key=False, read=("A",), note=None):
    """filter_prepare's records A and B, one filtered get each."""
    fe(test).get(filt, ok_a, read, note)
    fe(test, b_bins, b_send_key).get(filt, ok_b, read, note)


# filter_put: a filtered put of A=3 (written as an operate's write_bin)
fe("filter_put").call([wr("A", 3)], A_EQ_1, {"results": [None]}, "aerospike_key_put with the filter")
fe("filter_put", REC_B).call([wr("A", 3)], A_EQ_1, {"error": FILTERED_OUT}, "aerospike_key_put with the filter")
pair("filter_get", A_EQ_1, True, False, read=ALL)
fe("filter_batch").get(A_EQ_1, True, ALL, "aerospike_batch_read: record A")
fe("filter_batch", REC_B).get(A_EQ_1, False, ALL, "aerospike_batch_read: record B (per-key FILTERED_OUT)")
fe("filter_delete").get(A_EQ_1, True, note="aerospike_key_remove with the filter: its verdict")
fe("filter_delete", REC_B).get(A_EQ_1, False, note="aerospike_key_remove with the filter: its verdict")
fe("filter_operate").get(A_EQ_1, True, results=[1])
fe("filter_operate", REC_B).get(A_EQ_1, False)
fe("filter_udf").get(A_EQ_1, True, note="aerospike_key_apply with the filter: its verdict")
fe("filter_udf", REC_B).get(A_EQ_1, False, note="aerospike_key_apply with the filter: its verdict")

# filter_call: list bin A = [1,2,3,4] / [0,1,2,3,4], B = 1
f = eq(3, ["list_get_by_index", None, "VALUE", "INT", 2, bl("A")])
fe("filter_call", dict(REC_A, A=[1, 2, 3, 4], B=1)).get(f, True, ("B",), results=[1])
fe("filter_call", dict(REC_B, A=[0, 1, 2, 3, 4], B=1)).get(f, False)

# filter_call_chain: map A = {i: i % 3 for i < 100}, B = 1
chain_map = mv([(i, i % 3) for i in range(100)])
f = eq(["list_get_by_index", None, "VALUE", "INT", 4, ["map_get_by_value", None, "KEY", 1, bm("A")]], 13)
Rec(C, FE, "filter_call_chain", {"A": chain_map, "B": 1}).get(f, True, ("B",), results=[1])

# filter_call_modify: B = [i*100] set ORDERED / [i*i]; appends in the filter
POL = {"order": "ORDERED", "flags": ["ADD_UNIQUE", "NO_FAIL", "PARTIAL"]}
list_a = [i * 100 for i in range(10)]
list_b = [i * i for i in range(10)]
ra = fe("filter_call_modify", {"B": list_a})
ra.call([{"op": "list_set_order", "args": {"order": "ORDERED"}}], None, {"results": [None]},
        "as_operations_add_list_set_order on bin B (the case's bin is B)")
ra.calls[-1][0]["bin_name"] = "B"
f = eq(["list_size", None, ["list_append", None, POL, 100,
                            ["list_append_items", None, POL, lv(*list_b), bl("B")]]], 19)
ra.get(f, True, ("B",))
f2 = eq(["list_size", None, ["list_append", None, POL, 1000,
                             ["list_append_items", None, POL, lv(*list_a),
                              ["list_append", None, POL, 81, bl("B")]]]], 20)
fe("filter_call_modify", {"B": list_b}).get(f2, True, ("B",))

# filter_call_context: A = [a b c d [e d c b a]] / [0 a b c d [...]]
sub = ["e", "d", "c", "b", "a"]
f = eq(["list_get_by_index", [{"type": "list_index", "index": 4}], "VALUE", "STR", 2, bl("A")], "c")
fe("filter_call_context", dict(REC_A, A=["a", "b", "c", "d", sub], B=1)).get(f, True, ("B",), results=[1])
fe("filter_call_context", dict(REC_B, A=[0, "a", "b", "c", "d", sub], B=1)).get(f, False)
# filter_call_context_param
CTX4 = [{"type": "list_index", "index": 4}]
f = eq(["list_size", CTX4, ["list_append_items", CTX4, None, bl("B"), bl("A")]], 8)
fe("filter_call_context_param", dict(REC_A, A=["a", "b", "c", "d", sub], B=["x", "y", "z"])).get(
    f, True, ("B",), results=[["x", "y", "z"]])

# filter_rec_key: B removed, then put {A: 3} with the key sent
f = ["and", eq(["bin_type", "A"], 1), ["key_exist"]]
fe("filter_rec_key").get(f, False)
fe("filter_rec_key", {"A": 3}, True).get(f, True, results=[3])
B3 = dict(REC_B, A=3)
pair("filter_float_bin", ["cmp_gt", bf("B"), fl(2.01)], False, True, B3, True)
fe("filter_blob_key").get(eq(["key_blob"], hx("42")), False,
                          note="key_blob on a string key: unknown (the C test's blob-key half needs a blob key)")
pair("filter_since_update", ["cmp_ge", ["since_update"], 0], True, True, B3, True)
pair("filter_compare_string_to_unk", ["cmp_gt", bs("C"), bs("bogus")], False, False, B3, True)
pair("filter_compare_strings", ["cmp_gt", bs("C"), "abcde"], False, True, B3, True)

# filter_compare_lists_basic: A = [7 9 5], then [7 9 10]
L1 = [7, 9, 5]
for lst, verdicts in (([7, 9, 5], (1, 0, 1, 0, 1, 0)), ([7, 9, 10], (0, 1, 1, 1, 0, 0))):
    for cmp, ok in zip(("cmp_eq", "cmp_ne", "cmp_ge", "cmp_gt", "cmp_le", "cmp_lt"), verdicts):
        fe("filter_compare_lists_basic", dict(REC_A, A=lst)).get([cmp, bl("A"), lv(*L1)], ok)

# filter_compare_maps_basic: A = ordered {key1: 1, key2: 2}, then {key1: 9, key2: 3}
M1 = mv([("key1", 1), ("key2", 2)], "K_ORDERED")
M2 = mv([("key1", 9), ("key2", 3)], "K_ORDERED")
for m, verdicts in ((M1, (1, 0, 1, 0, 1, 0)), (M2, (0, 1, 1, 1, 0, 0))):
    for cmp, ok in zip(("cmp_eq", "cmp_ne", "cmp_ge", "cmp_gt", "cmp_le", "cmp_lt"), verdicts):
        fe("filter_compare_maps_basic", dict(REC_A, A=m)).get([cmp, bm("A"), M1], ok)
fe("filter_compare_maps_basic", dict(REC_A, A=M2)).get(eq(bm("A"), M1), False,
                                                       note="the C test's filter_bad (its hm is an orderedmap too)")
# Its last two asserts compare an unordered map bin with an ordered and an
# unordered map value: both filter out (a comparison with an unordered map
# is unknown).
M1U = mv([("key1", 1), ("key2", 2)])
fe("filter_compare_maps_basic", dict(REC_A, A=M1U)).get(eq(bm("A"), M1), False)
fe("filter_compare_maps_basic", dict(REC_A, A=M1U)).get(eq(bm("A"), M1U), False)

pair("filter_xor", ["exclusive", A_EQ_1, eq(bi("D"), 1)], False, True)


def between(name, e, lo, hi):
    return ["let", ["def", name, e], ["and", ["cmp_ge", ["var", name], fl(lo)], ["cmp_le", ["var", name], fl(hi)]]]


ARITH = [
    ("filter_add", eq(["add", bi("A"), bi("D"), 1], 4)),
    ("filter_add_1", eq(["add", bi("A")], 2)),
    ("filter_add_float", between("val", ["add", bf("B"), fl(1.1)], 3.2999, 3.3001)),
    ("filter_add_float_1", ["cmp_ge", ["add", bf("B")], fl(2.2)]),
    ("filter_sub", eq(["sub", 1, bi("A"), bi("D")], -2)),
    ("filter_sub_1", eq(["sub", bi("A")], -2)),
    ("filter_sub_float", between("val", ["sub", bf("B"), fl(1.1)], 1.0999, 1.1001)),
    ("filter_sub_float_1", ["let", ["def", "val", ["sub", bf("B")]],
                            ["and", ["cmp_le", ["var", "val"], fl(-2.1999)], ["cmp_ge", ["var", "val"], fl(-2.2001)]]]),
    ("filter_mul", eq(["mul", 2, bi("A"), bi("D")], 4)),
    ("filter_mul_1", eq(["mul", bi("A")], 2)),
    ("filter_div", eq(["div", 8, bi("A"), bi("D")], 4)),
    ("filter_div_1", eq(["div", bi("A")], 0)),
    ("filter_div_float", eq(["div", fl(8.8), bf("B")], fl(4.0))),
    ("filter_div_float_1", between("x", ["div", bf("B")], 0.4544, 0.4546)),
    ("filter_pow", between("x", ["pow", bf("B"), fl(2.0)], 4.8399, 4.8401)),
    ("filter_log", between("x", ["log", bf("B"), fl(2.0)], 1.1374, 1.1376)),
    ("filter_mod", eq(["mod", bi("A"), 2], 0)),
    ("filter_abs", eq(["abs", bi("E")], 2)),
    ("filter_floor", eq(["floor", bf("B")], fl(2.0))),
    ("filter_ceil", eq(["ceil", bf("B")], fl(3.0))),
    ("filter_to_int", eq(["to_int", bf("B")], 2)),
    ("filter_to_float", eq(["to_float", bi("A")], fl(2.0))),
    ("filter_min", eq(["min", bi("A"), 2], 2)),
    ("filter_max", eq(["max", bi("A"), 1], 2)),
    ("filter_min_float", eq(["min", bf("B"), fl(2.3)], fl(2.2))),
    ("filter_max_float", eq(["max", bf("B"), fl(0.9)], fl(2.2))),
]
for name, f in ARITH:
    pair(name, f, False, True)

# the integer bit tests: record A = {A: 0, B: -1, C: 1}; each asserts that
# not(all) filters out and all passes
BITREC = {"A": 0, "B": -1, "C": 1}
M64 = -2  # 0xFFFFffffFFFFfffe
BITWISE = {
    "filter_bitwise_and": [eq(["int_and", bi("A"), 0], 0), eq(["int_and", bi("A"), -1], 0),
                           eq(["int_and", bi("B"), -1], -1)],
    "filter_bitwise_or": [eq(["int_or", bi("A"), 0], 0), eq(["int_or", bi("A"), -1], -1),
                          eq(["int_or", bi("B"), -1], -1)],
    "filter_bitwise_xor": [eq(["int_xor", bi("A"), 0], 0), eq(["int_xor", bi("A"), -1], -1),
                           eq(["int_xor", bi("B"), -1], 0)],
    "filter_bitwise_not": [eq(["int_not", bi("A")], -1), eq(["int_not", bi("B")], 0)],
    "filter_bitwise_lshift": [eq(["int_lshift", bi("B"), 1], M64), eq(["int_lshift", bi("C"), 1], 2)],
    "filter_bitwise_rshift": [eq(["int_rshift", bi("B"), 1], 2**63 - 1), eq(["int_rshift", bi("C"), 1], 0)],
    "filter_bitwise_arshift": [eq(["int_arshift", bi("B"), 1], -1), eq(["int_arshift", bi("C"), 1], 0)],
    "filter_bitwise_count": [eq(["int_count", bi("A")], 0), eq(["int_count", bi("B")], 64),
                             eq(["int_count", bi("C")], 1)],
    "filter_bitwise_lscan": [eq(["int_lscan", bi(b), v], r) for b, v, r in
                             (("A", True, -1), ("B", True, 0), ("C", True, 63),
                              ("A", False, 0), ("B", False, -1), ("C", False, 0))],
    "filter_bitwise_rscan": [eq(["int_rscan", bi(b), v], r) for b, v, r in
                             (("A", True, -1), ("B", True, 63), ("C", True, 63),
                              ("A", False, 63), ("B", False, -1), ("C", False, 62))],
}
for name, parts in BITWISE.items():
    allp = ["and"] + parts
    fe(name, BITREC).get(["not", allp], False)
    fe(name, BITREC).get(allp, True)

# filter_let / filter_cond: an int key 0 with the key sent, {A: 3}
f = ["let", ["def", "x", eq(["bin_type", "A"], 1)], ["and", ["var", "x"], ["key_exist"]]]
Rec(C, FE, "filter_let", {"A": 3}, True).get(f, True, results=[3])


def cond3(v1, v2):
    return ["cond", eq(v1, bi("A")), 10, eq(v2, bi("A")), 20, 30]


for v1, v2, r in ((3, 4, 10), (1, 3, 20), (1, 2, 30)):
    Rec(C, FE, "filter_cond", {"A": 3}, True).get(eq(cond3(v1, v2), r), True, results=[3])

f = eq(["list_get_by_index", None, "VALUE", "INT", 1, lv(1, -1)], -1)
fe("filter_list_value_to_bin").get(f, True)
fe("filter_map_value_to_bin").get(f, True, note="the C test repeats filter_list_value_to_bin's list")
fe("filter_blob_value_to_bin").get(eq(["bit_count", 24, ["uint", 8], hx("00010203")], 2), True)
# filter_hll_value_to_bin: hll_tests()

# ============================================================================
# C client: src/test/exp_operate.c (records A = {A: 1, D: 2}, B = {B: 2, D: 2})
# ============================================================================
EO = "exp_operate"
OA = {"A": 1, "D": 2}
OB = {"B": 2, "D": 2}
ADD4 = ["add", bi("A"), 4]


def eo(test, bins=OA):
    return Rec(C, EO, test, bins)


eo("exp_read_eval_errors").call([xr("EV", ADD4)], None, {"results": [5]})
r = eo("exp_read_eval_errors", OB)
r.call([xr("EV", ADD4)], None, {"error": OP_NOT_APPLICABLE}, "bin A does not exist on record B")
r.call([xr("EV", ADD4, "EVAL_NO_FAIL")], None, {"results": [None]})

ops = [xw("D", bi("D")), xr("EV", bi("A"))]
eo("exp_read_on_write_eval_errors").call(ops, None, {"results": [None, 1]})
r = eo("exp_read_on_write_eval_errors", OB)
r.call(ops, None, {"error": OP_NOT_APPLICABLE})
r.call([xr("EV", bi("A"), "EVAL_NO_FAIL")], None, {"results": [None]})

eo("exp_write_eval_errors").call([xw("C", ADD4), xr("EV", bi("C")), rd("C")], None, {"results": [None, 5, 5]})
r = eo("exp_write_eval_errors", OB)
r.call([xw("C", ADD4), xr("EV", bi("C")), rd("C")], None, {"error": OP_NOT_APPLICABLE})
r.call([xw("C", ADD4, "EVAL_NO_FAIL"), xr("EV", bi("C"))], None, {"error": OP_NOT_APPLICABLE},
       "bin C does not exist since the write failed")
r.call([xw("C", ADD4, "EVAL_NO_FAIL"), xr("EV", bi("C"), "EVAL_NO_FAIL")], None, {"results": [None, None]})



def write_policy_errors(r):
    """exp_write_policy_errors (C) / expWritePolicyError (Java): the write
    flags one after another on record A."""
    r.call([xw("C", ADD4, "UPDATE_ONLY")], None, {"error": BIN_NOT_FOUND})
    r.call([xw("C", ADD4, "UPDATE_ONLY", "POLICY_NO_FAIL")], None, {"results": [None]})
    r.call([xw("C", ADD4, "CREATE_ONLY")], None, {"results": [None]})
    r.call([xw("C", ADD4, "CREATE_ONLY")], None, {"error": BIN_EXISTS})
    r.call([xw("C", ADD4, "CREATE_ONLY", "POLICY_NO_FAIL")], None, {"results": [None]})
    r.call([xw("C", None)], None, {"error": OP_NOT_APPLICABLE}, "deleting a bin needs ALLOW_DELETE")
    r.call([xw("C", None, "POLICY_NO_FAIL")], None, {"results": [None]})
    r.call([xw("C", None, "ALLOW_DELETE")], None, {"results": [None]})
    r.call([xw("C", ADD4, "CREATE_ONLY")], None, {"results": [None]}, "bin C was deleted")


write_policy_errors(eo("exp_write_policy_errors"))

UNK = ["cond", eq(bi("C"), 5), ["unknown"], ["bin_exists", "A"], 5, ["unknown"]]
r = eo("exp_returns_unknown")
r.call([xw("C", UNK), rd("C")], None, {"error": OP_NOT_APPLICABLE})
r.call([xw("C", UNK, "EVAL_NO_FAIL"), rd("C")], None, {"results": [None, None]})
eo("exp_returns_nil").call([xr("EV", None), rd("C")], None, {"results": [None, None]})
for name, e, v in (("exp_returns_int", ADD4, 5),
                   ("exp_returns_float", ["add", ["to_float", bi("A")], fl(4.0)], d(5.0)),
                   ("exp_returns_string", "xxx", "xxx"),
                   ("exp_returns_blob", hx("787878"), hx("787878")),
                   ("exp_returns_bool", eq(bi("A"), 1), True)):
    r = eo(name)
    r.call([xw("C", e), rd("C"), xr("EV", e)], None, {"results": [None, v, v]})
    r.call([xr("EV", e)], None, {"results": [v]})
# exp_returns_hll: hll_tests()
E0 = eq(bi("A"), 0)
eo("exp_merge").call([xr("res1", ["and", E0, eq(bi("D"), 2)]), xr("res2", ["or", E0, eq(bi("D"), 2)])], None,
                     {"results": [False, True]}, "as_exp_expr merges a built expression into another")
# exp_base64: client-side only. exp_select, exp_in_list, exp_map_keys_values:
# 8.1.3 and later (the test skips on 8.1.2).


# ============================================================================
# Java client: test/src/com/aerospike/test/sync/basic/TestFilterExp.java
# (records A = "A", B = the blob 'B' (a string key here), C = "C")
# ============================================================================
J = Registry("java", "java_suite_exp")
TF = "TestFilterExp"
JA = dict(REC_A)
JB = dict(REC_B)
JC = {"A": 0, "B": -1, "C": 1}


def tf(test, bins=JA):
    return Rec(J, TF, test, bins)


for name in ("put", "putExcept"):
    tf(name).call([wr("A", 3)], A_EQ_1, {"results": [None]}, "client.put with the filter")
    tf(name, JB).call([wr("A", 3)], A_EQ_1, {"error": FILTERED_OUT}, "client.put with the filter")
for name in ("get", "getExcept"):
    tf(name).get(A_EQ_1, True, ALL, results=[1, d(1.1), "abcde", 1, -1])
    tf(name, JB).get(A_EQ_1, False, ALL)
tf("batch").get(A_EQ_1, True, ALL, "batch get: record A", results=[1, d(1.1), "abcde", 1, -1])
tf("batch", JB).get(A_EQ_1, False, ALL, "batch get: record B (null in the result)")
for name in ("delete", "deleteExcept", "durableDelete", "durableDeleteExcept", "udf", "udfExcept"):
    cmd = "client.execute (UDF)" if name.startswith("udf") else "client.delete"
    tf(name).get(A_EQ_1, True, note=cmd + " with the filter: its verdict")
    tf(name, JB).get(A_EQ_1, False, note=cmd + " with the filter: its verdict")
for name in ("operateRead", "operateReadExcept"):
    tf(name).get(A_EQ_1, True, results=[1])
    tf(name, JB).get(A_EQ_1, False)
for name in ("operateWrite", "operateWriteExcept"):
    tf(name).call([wr("A", 3), rd("A")], A_EQ_1, {"results": [None, 3]})
    tf(name, JB).call([wr("A", 3), rd("A")], A_EQ_1, {"error": FILTERED_OUT})


def jpair(test, filt, rec_fail, rec_pass, read=("A",)):
    """assertThrows FILTERED_OUT on one record, then the get on the other."""
    tf(test, rec_fail).get(filt, False, read)
    tf(test, rec_pass).get(filt, True, read)


jpair("filterExclusive", ["exclusive", A_EQ_1, eq(bi("D"), 1)], JA, JB)
JARITH = {
    "filterAddInt": "filter_add", "filterAddFloat": "filter_add_float", "filterSub": "filter_sub",
    "filterMul": "filter_mul", "filterDiv": "filter_div", "filterPow": "filter_pow", "filterLog": "filter_log",
    "filterMod": "filter_mod", "filterAbs": "filter_abs", "filterFloor": "filter_floor",
    "filterCeil": "filter_ceil", "filterToInt": "filter_to_int", "filterToFloat": "filter_to_float",
}
for jname, cname in JARITH.items():
    jpair(jname, dict(ARITH)[cname], JA, JB)


def notall(test, e, rec, read=("A",)):
    """not(e) filters the record out, e lets it through."""
    tf(test, rec).get(["not", e], False, read)
    tf(test, rec).get(e, True, read)


notall("filterIntAnd", ["and", eq(["int_and", bi("A"), 0], 0), eq(["int_and", bi("A"), 0xFFFF], 1)], JA)
notall("filterIntOr", ["and", eq(["int_or", bi("A"), 0], 1), eq(["int_or", bi("A"), 0xFF], 0xFF)], JA)
notall("filterIntXor", ["and", eq(["int_xor", bi("A"), 0], 1), eq(["int_xor", bi("A"), 0xFF], 0xFE)], JA)
notall("filterIntNot", eq(["int_not", bi("A")], -2), JA)
notall("filterLshift", eq(["int_lshift", bi("A"), 2], 4), JA)
notall("filterRshift", eq(["int_rshift", bi("E"), 62], 3), JB, ("E",))
notall("filterARshift", eq(["int_arshift", bi("E"), 62], -1), JB, ("E",))
notall("filterBitCount", eq(["int_count", bi("A")], 1), JA)
notall("filterLscan", eq(["int_lscan", bi("A"), True], 63), JA)
notall("filterRscan", eq(["int_rscan", bi("A"), True], 63), JA)
notall("filterMin", eq(["min", bi("A"), bi("D"), bi("E")], -1), JA)
notall("filterMax", eq(["max", bi("A"), bi("D"), bi("E")], 1), JA)
notall("filterCond", eq(["cond", eq(bi("A"), 0), ["add", bi("D"), bi("E")], eq(bi("A"), 1), ["sub", bi("D"), bi("E")],
                         eq(bi("A"), 2), ["mul", bi("D"), bi("E")], -1], 2), JA)
tf("batchKeyFilter").call([wr("A", 3)], A_EQ_1, {"results": [None]}, "BatchWrite with the filter")
tf("batchKeyFilter", JB).call([wr("A", 3)], A_EQ_1, {"error": FILTERED_OUT}, "BatchWrite with the filter")
tf("batchKeyFilter", JC).get(eq(bi("A"), 0), True, note="BatchDelete with the filter A == 0: its verdict")

# ============================================================================
# TestExpOperation.java (records A = {A: 1, D: 2}, B = {B: 2, D: 2})
# ============================================================================
TE = "TestExpOperation"


def te(test, bins=OA):
    return Rec(J, TE, test, bins)


te("expReadEvalError").call([xr("EV", ADD4)], None, {"results": [5]})
r = te("expReadEvalError", OB)
r.call([xr("EV", ADD4)], None, {"error": OP_NOT_APPLICABLE})
r.call([xr("EV", ADD4, "EVAL_NO_FAIL")], None, {"results": [None]})
ops = [xw("D", bi("D")), xr("EV", bi("A"))]
te("expReadOnWriteEvalError").call(ops, None, {"results": [None, 1]})
r = te("expReadOnWriteEvalError", OB)
r.call(ops, None, {"error": OP_NOT_APPLICABLE})
r.call([xr("EV", bi("A"), "EVAL_NO_FAIL")], None, {"results": [None]})
te("expWriteEvalError").call([xw("C", ADD4), xr("EV", bi("C"))], None, {"results": [None, 5]})
r = te("expWriteEvalError", OB)
r.call([xw("C", ADD4), xr("EV", bi("C"))], None, {"error": OP_NOT_APPLICABLE})
r.call([xw("C", ADD4, "EVAL_NO_FAIL"), xr("EV", bi("C"), "EVAL_NO_FAIL")], None, {"results": [None, None]})
write_policy_errors(te("expWritePolicyError"))
r = te("expReturnsUnknown")
r.call([xw("C", UNK), rd("C")], None, {"error": OP_NOT_APPLICABLE})
r.call([xw("C", UNK, "EVAL_NO_FAIL"), rd("C")], None, {"results": [None, None]})
te("expReturnsNil").call([xr("EV", None), rd("C")], None, {"results": [None, None]})
for name, e, v, again in (("expReturnsInt", ADD4, 5, True),
                          ("expReturnsFloat", ["add", ["to_float", bi("A")], fl(4.0)], d(5.0), True),
                          ("expReturnsString", "xxx", "xxx", True),
                          ("expReturnsBlob", hx("787878"), hx("787878"), True),
                          ("expReturnsBoolean", eq(bi("A"), 1), True, False)):
    r = te(name)
    r.call([xw("C", e), rd("C"), xr("EV", e)], None, {"results": [None, v, v]})
    if again:
        r.call([xr("EV", e)], None, {"results": [v]})
# expReturnsHLL: hll_tests()
te("expMerge").call([xr("res1", ["and", E0, eq(bi("D"), 2)]), xr("res2", ["or", E0, eq(bi("D"), 2)])], None,
                    {"results": [False, True]}, "Exp.expr merges a built expression into another")

# ============================================================================
# TestListExp.java, TestMapExp.java
# ============================================================================
JPOL = {"order": "UNORDERED", "flags": []}  # ListPolicy.Default: the Java client packs it
LA = ["a", "b", "c", "d", ["e", "d", "c", "b", "a"]]
LB = ["x", "y", "z"]
r = Rec(J, "TestListExp", "modifyWithContext", {"A": LA, "B": LB, "C": "M"})
f1 = eq(["list_size", CTX4, ["list_append_items", CTX4, JPOL, bl("B"),
                             ["list_append", CTX4, JPOL, bs("C"), bl("A")]]], 9)
r.get(f1, True, results=[LA])
f2 = eq(["list_size", CTX4, ["list_append_items", CTX4, JPOL, lv(*LB),
                             ["list_append", CTX4, JPOL, "M", bl("A")]]], 9)
r.get(f2, True, results=[LA])
L4 = lv("a", "b", "c", "d")
Rec(J, "TestListExp", "expReturnsList", None).call([xw("C", L4), rd("C"), xr("var", L4)], None,
                                                 {"results": [None, ["a", "b", "c", "d"], ["a", "b", "c", "d"]]},
                                                 "the record is created by the write")
SME = mv([("key1", "e"), ("key2", "d"), ("key3", "c"), ("key4", "b"), ("key5", "a")], "K_ORDERED")
Rec(J, "TestMapExp", "sortedMapEquality", {"m": SME}).get(eq(bm("m"), SME), True, ("m",))
IME = mv([("a", 1), ("b", 2), ("c", 2), ("d", 3)])
Rec(J, "TestMapExp", "invertedMapExp", {"m": IME}).call(
    [xr("m", ["map_remove_by_value", None, ["NONE", "INVERTED"], 2, bm("m")])], None,
    {"results": [mv([("b", 2), ("c", 2)])]})

# ============================================================================
# TestBitExp.java: bin A = 01 42 03 04 05; each filter is asserted false
# (ne) and true (eq)
# ============================================================================
BLOB = hx("0142030405")
BP = None  # BitPolicy.Default


def bget(off, sz, b=None):
    return ["bit_get", off, sz, b or bb("A")]


BITEXP = {
    "get": [(bget(16, 8), bget(16, 8)), (bget(16, 8), hx("03"))],
    "count": [(["bit_count", 16, 8, bb("A")], ["bit_count", 32, 8, bb("A")])],
    "lscan": [(["bit_lscan", 32, 8, True, bb("A")], 5), (["bit_lscan", 0, 8, True, bget(32, 8)], 5)],
    "rscan": [(["bit_rscan", 32, 8, True, bb("A")], 7)],
    "getInt": [(["bit_get_int", 32, 8, True, bb("A")], 5)],
    "resize": [(["bit_resize", BP, 6, [], bb("A")], ["bit_resize", BP, 6, [], bb("A")])],
    "insert": [(["bit_get_int", 8, 8, False, ["bit_insert", BP, 1, hx("ff"), bb("A")]], 0xff)],
    "remove": [(["bit_get_int", 0, 8, False, ["bit_remove", BP, 0, 1, bb("A")]], 0x42)],
    "set": [(bget(24, 8, ["bit_set", BP, 31, 1, hx("80"), bb("A")]), bget(32, 8))],
    "or": [(bget(24, 8, ["bit_or", BP, 24, 8, hx("01"), bb("A")]), bget(32, 8))],
    "xor": [(bget(0, 8, ["bit_xor", BP, 0, 8, hx("02"), bb("A")]), bget(16, 8))],
    "and": [(bget(0, 8, ["bit_and", BP, 16, 8, hx("01"), bb("A")]), bget(0, 8))],
    "not": [(bget(0, 8, ["bit_not", BP, 6, 1, bb("A")]), bget(16, 8))],
    "lshift": [(bget(0, 6, ["bit_lshift", BP, 0, 8, 2, bb("A")]), bget(2, 6))],
    "rshift": [(bget(26, 6, ["bit_rshift", BP, 24, 8, 2, bb("A")]), bget(24, 6))],
    "add": [(bget(16, 8, ["bit_add", BP, 16, 8, 1, "FAIL", bb("A")]), bget(24, 8))],
    "subtract": [(bget(24, 8, ["bit_subtract", BP, 24, 8, 1, "FAIL", bb("A")]), bget(16, 8))],
    "setInt": [(bget(24, 8, ["bit_set_int", BP, 24, 8, 0x42, bb("A")]), bget(8, 8))],
}
READS = ("get", "count", "lscan", "rscan", "getInt")
for helper, pairs in BITEXP.items():
    test = "callRead" if helper in READS else "callModify"
    for a, b in pairs:
        Rec(J, "TestBitExp", test, {"A": BLOB}).get(["cmp_ne", a, b], False, note="its " + helper + "()")
        Rec(J, "TestBitExp", test, {"A": BLOB}).get(["cmp_eq", a, b], True, note="its " + helper + "()")

# ============================================================================
# TestHLLExp.java: hll_tests().
# test/src/com/aerospike/test/sync/query/TestQueryFilterExp.java: records
# flt1..flt50 {fltint: i, bin2: i, listbin, mapbin}; a query of an index
# range with a filter is one case per record in the range, each with the
# record's verdict (the test asserts the count).
# ============================================================================
QF = "TestQueryFilterExp"


def qrec(i):
    b = {"fltint": i, "bin2": i}
    if i == 1:
        b["listbin"] = [1, 2, 4, 9, 20]
    elif i == 2:
        b["listbin"] = [5, 9, 100]
    elif i == 3:
        b["mapbin"] = mv([("A", "AAA"), ("B", "BBB"), ("C", "BBB")])
    else:
        b["listbin"] = []
        b["mapbin"] = mv([])
    return b


def query(test, lo, hi, filt, passes, count=None):
    n = 0
    for i in range(lo, hi + 1):
        ok = passes(i)
        n += 1 if ok else 0
        Rec(J, QF, test, qrec(i)).get(filt, ok, ("fltint",), note="record flt%d of the query" % i)
    assert count is None or n == count, (test, n, count)


def gi(f):
    return lambda i: bool(f(i))


LISTS = {1: [1, 2, 4, 9, 20], 2: [5, 9, 100]}
MAP3 = {"A": "AAA", "B": "BBB", "C": "BBB"}
query("queryAndOr", 10, 45, ["and", ["or", ["and", ["cmp_gt", bi("bin2"), 40], ["cmp_lt", bi("bin2"), 44]],
                                     eq(bi("bin2"), 22), eq(bi("bin2"), 9)], eq(bi("fltint"), bi("bin2"))],
      lambda i: 40 < i < 44 or i in (22, 9), 4)
query("queryNot", 10, 45, ["not", ["and", ["cmp_ge", bi("bin2"), 15], ["cmp_le", bi("bin2"), 42]]],
      lambda i: not (15 <= i <= 42), 8)
# queryLastUpdate compares with the client's clock + 100 ns; here with
# 2100-01-01 (no record was written later than that).
query("queryLastUpdate", 10, 45, ["cmp_gt", ["last_update"], 4102444800 * 10**9], lambda i: False)
query("queryList1", 1, 10, ["cmp_gt", ["list_get_by_value", None, "COUNT", 4, bl("listbin")], 0],
      lambda i: 4 in LISTS.get(i, []), 1)
query("queryList2", 1, 10, eq(["list_get_by_value", None, "COUNT", 5, bl("listbin")], 0),
      lambda i: i != 3 and 5 not in LISTS.get(i, []), 8)
query("queryList3", 1, 10, eq(["list_get_by_index", None, "VALUE", "INT", 4, bl("listbin")], 20),
      lambda i: i == 1, 1)
query("queryMap1", 1, 10, ["cmp_gt", ["map_get_by_key", None, "COUNT", "INT", "B", bm("mapbin")], 0],
      lambda i: i == 3, 1)
query("queryMap2", 1, 10, ["map_get_by_value", None, "EXISTS", "BBB", bm("mapbin")], lambda i: i == 3, 1)
query("queryMap3", 1, 10, eq(["map_get_by_key", None, "COUNT", "INT", "D", bm("mapbin")], 0),
      lambda i: i >= 3, 8)
query("queryMap4", 1, 10, eq(["map_get_by_value", None, "COUNT", "AAA", bm("mapbin")], 0),
      lambda i: i >= 4, 7)
query("queryMap5", 1, 10, eq(["map_size", None, ["map_get_by_key_list", None, "KEY_VALUE", lv("A", "C"),
                                                  bm("mapbin")]], 2), lambda i: i == 3, 1)
query("queryMap6", 1, 10, eq(["list_size", None, ["map_get_by_key_list", None, "VALUE", lv("A", "C"),
                                                   bm("mapbin")]], 2), lambda i: i == 3, 1)
# queryDigestModulo: the verdicts depend on the keys' digests (flt1..flt10
# there, the case ids here), so they are the backend's, not asserted.
for i in range(1, 11):
    Rec(J, QF, "queryDigestModulo", qrec(i)).call([rd("fltint")], eq(["digest_modulo", 3], 1), None,
                                                  "record flt%d of the query" % i)
query("queryBinExists", 1, 10, ["bin_exists", "bin2"], lambda i: True, 10)
query("queryBinType", 1, 10, eq(["bin_type", "listbin"], 20), lambda i: i != 3, 9)
query("queryRecordSize", 1, 10, ["cmp_ge", ["record_size"], 0], lambda i: True, 10)
query("queryDeviceSize", 1, 10, ["cmp_ge", ["device_size"], 0], lambda i: True, 10)
query("queryMemorySize", 1, 10, ["cmp_ge", ["memory_size"], 0], lambda i: True, 10)


# ============================================================================
# C client: src/test/aerospike_query/query_foreach.c and
# aerospike_scan/scan_basics.c, their scans and queries with a filter: one
# case per record (the test asserts the count; each case its record's
# verdict). query_foreach's 100 records: bins a..g, x, y, z, blob, blob_list
# (bigstr, i KB of 'X', only in the record-size cases), TTL never for 0-9,
# 100 days for 10-41, 10 days for 42-99.
# ============================================================================
QFE = "query_foreach"
DAY = 24 * 60 * 60
NS = 10**9


def qf_rec(i, bigstr=False):
    b = {"a": "abc", "b": 100, "c": i, "d": i % 10, "e": 100 + (i + 1) * (i % 10 + 1) // 2, "f": "0x%04x" % i}
    if i % 2 == 1:
        b["g"] = i
    b["x"] = ["x", "x1", "x2"] if i % 3 == 0 else ["not_x1", "not_x2", "not_x3"]
    b["y"] = mv([("ykey", "yvalue")]) if i % 7 == 0 else mv([("ykey_not", "yvalue_not")])
    b["z"] = [i, i + 1, i + 2, i + 3, i + 4]
    blob = (50000 + i).to_bytes(4, "little").hex()
    b["blob_list"] = [hx(blob)]
    b["blob"] = hx(blob)
    if bigstr:
        b["bigstr"] = "X" * (i * 1024)
    return b


def qf_ttl(i):
    return -1 if i < 10 else (100 * DAY if i < 42 else 10 * DAY)


def scan(reg, file, test, recs, filt, passes, count=None, read=("c",), note=None):
    n = 0
    for i, bins, ttl in recs:
        ok = passes(i) if passes else None
        r = Rec(reg, file, test, bins)
        why = "record %d of the scan" % i + ("; " + note if note else "")
        if ok is None:
            r.call([rd(b) for b in read], filt, None, why)
        else:
            n += 1 if ok else 0
            r.get(filt, ok, read, why)
        if ttl is not None:
            r.calls[-1][0]["ttl"] = ttl
    assert count is None or n == count, (test, n, count)


ALL100 = [(i, qf_rec(i), qf_ttl(i)) for i in range(100)]
C10_30 = [x for x in ALL100 if 10 <= x[0] <= 30]
# query_with_rec_size_filter: record_size >= 65 KiB: records 65-99 (the
# bigstr of i KB); a sample around the edge.
scan(C, QFE, "query_with_rec_size_filter", [(i, qf_rec(i, True), qf_ttl(i)) for i in (0, 64, 65, 66)],
     ["cmp_ge", ["record_size"], 65 * 1024], lambda i: i >= 65)
scan(C, QFE, "query_intermittent_bin_filter", C10_30, ["cmp_gt", bi("g"), 20], lambda i: i % 2 == 1 and i > 20, 5)
# scan_with_rec_last_update_filter(_less): the test compares with the
# client's clock between two writes (and asserts nothing: clock skew); here
# with 2020-01-01, before every write.
scan(C, QFE, "scan_with_rec_last_update_filter", ALL100[::9], ["cmp_gt", ["last_update"], 1577836800 * NS],
     lambda i: True)
scan(C, QFE, "scan_with_rec_last_update_filter_less", ALL100[::9], ["cmp_le", ["last_update"], 1577836800 * NS],
     lambda i: False)
scan(C, QFE, "scan_with_rec_void_time_filter_1", ALL100, eq(["void_time"], -1), lambda i: i < 10, 10)
# _2 and _3 compare void_time with the client's clock + 5 and 15 days; here
# with the record's own last_update + 5 and 15 days (the same verdicts, at
# any time).
LU = ["last_update"]
scan(C, QFE, "scan_with_rec_void_time_filter_2", ALL100,
     ["and", ["cmp_lt", ["void_time"], ["add", LU, 15 * DAY * NS]], ["cmp_gt", ["void_time"], ["add", LU, 5 * DAY * NS]]],
     lambda i: i >= 42, 58)
scan(C, QFE, "scan_with_rec_void_time_filter_3", ALL100, ["cmp_gt", ["void_time"], ["add", LU, 15 * DAY * NS]],
     lambda i: 10 <= i < 42, 32)
# scan_with_rec_digest_modulo_filter: the digests are of the case ids here,
# so the verdicts are the backend's (not asserted).
for ii in range(3):
    scan(C, QFE, "scan_with_rec_digest_modulo_filter", ALL100[ii::10], eq(["digest_modulo", 3], ii), None)
OR37 = ["or", ["and", ["cmp_le", bi("d"), 5], ["cmp_ge", bi("d"), 3]],
        ["and", ["cmp_le", bi("c"), 20], ["cmp_ge", bi("c"), 11]]]
scan(C, QFE, "query_with_or_filter", ALL100, OR37, lambda i: 3 <= i % 10 <= 5 or 11 <= i <= 20, 37)
scan(C, QFE, "query_with_not_filter", ALL100, ["not", OR37], lambda i: not (3 <= i % 10 <= 5 or 11 <= i <= 20), 63)
REGEX14 = lambda i: i <= 0x62 and (i & 0xF) in (1, 2)  # noqa: E731  0x00.[12]
scan(C, QFE, "query_with_regex_filter", ALL100, ["cmp_regex", [], "0x00.[12]", bs("f")], REGEX14, 14)
scan(C, QFE, "query_with_regex_filter_icase", ALL100, ["cmp_regex", ["ICASE"], "0X00.[12]", bs("f")], REGEX14, 14)
scan(C, QFE, "query_with_list_filter", ALL100,
     ["cmp_ne", ["list_get_by_value", None, "COUNT", "x2", bl("x")], 0], lambda i: i % 3 == 0, 34)
scan(C, QFE, "query_with_mapkey_filter", ALL100,
     ["cmp_ne", ["map_get_by_key", None, "COUNT", "INT", "ykey_not", bm("y")], 0], lambda i: i % 7 != 0, 85)
scan(C, QFE, "query_with_mapval_filter", ALL100,
     ["and", ["map_get_by_value", None, "EXISTS", "yvalue", bm("y")],
      ["cmp_ne", ["map_get_by_value", None, "COUNT", "yvalue", bm("y")], 0]], lambda i: i % 7 == 0, 15)

SB = "scan_basics"
SB5 = {"bin1": 5, "bin2": "str-sb_set5-5", "bin3": [5]}
# scan_operate_expop: a background scan's exp_write (cond: bin exists ? +4 : 4)
r = Rec(C, SB, "scan_operate_expop", SB5)
EXPOP = ["cond", ["bin_exists", "scan-expop"], ["add", bi("scan-expop"), 4], 4]
r.call([xw("scan-expop", EXPOP)], None, {"results": [None]}, "the scan's op on one record")
r.call([rd("scan-expop")], None, {"results": [4]})
r.call([xw("scan-expop", EXPOP), rd("scan-expop")], None, {"results": [None, 8]}, "a second scan")
# scan_filter_set_name: set "" or sb_set5; the case's set is "cdt"
scan(C, SB, "scan_filter_set_name", [(5, SB5, None)], ["or", eq("", ["set_name"]), eq("sb_set5", ["set_name"])],
     lambda i: False, read=("bin1",), note="a record of another set (its set is cdt)")
scan(C, SB, "scan_filter_set_name", [(5, SB5, None)], ["or", eq("", ["set_name"]), eq("cdt", ["set_name"])],
     lambda i: True, read=("bin1",), note="the test's set written as cdt, the case's set")
scan(C, SB, "scan_filter_rec_ttl", [(5, SB5, 3600), (6, SB5, -1)], ["cmp_gt", ["ttl"], 1], lambda i: i == 5,
     read=("bin1",), note="ttl 3600 (5) and never (6)")
# scan_filter_rec_str_key: a regex over the stored string key (keys here are
# the case ids, so the regex is written for them)
for n, pattern, ok in ((1, "^client/scan_basics/scan_filter_rec_str_key/.*1$", True),
                       (2, "^key-.*-0$", False)):
    r = Rec(C, SB, "scan_filter_rec_str_key", SB5, True)
    r.get(["cmp_regex", [], pattern, ["key_str"]], ok, ("bin1",))
r = Rec(C, SB, "scan_filter_rec_str_key", SB5, False)
r.get(["cmp_regex", [], ".*", ["key_str"]], False, ("bin1",), note="no stored key: key_str is unknown")

# scan_filter_rec_int_key: left out (an integer key).

# ============================================================================
# Java: test/src/com/aerospike/test/sync/query/TestQueryFilterSet.java
# ============================================================================
QS = "TestQueryFilterSet"
scan(J, QS, "querySetName", [(20, {"a": 20, "b": d(20.0)}, None)], eq(["set_name"], "tqps2"), lambda i: False,
     read=("a",), note="its set is cdt here, not tqps2")
scan(J, QS, "querySetName", [(20, {"a": 20, "b": d(20.0)}, None)], eq(["set_name"], "cdt"), lambda i: True,
     read=("a",), note="the test's set tqps2 written as cdt, the case's set")
scan(J, QS, "queryDouble", [(i, {"a": i, "b": d(float(i))}, None) for i in (20, 21, 22)],
     ["cmp_gt", bf("b"), fl(21.5)], lambda i: i == 22, 1, read=("a",))
for i in range(31, 41):
    Rec(J, QS, "queryKeyExists", {"a": i}, True).get(["key_exist"], True, ("a",), note="record %d, key sent" % i)
Rec(J, QS, "queryKeyExists", {"a": 25}).get(["key_exist"], False, ("a",), note="record 25, key not sent")
for n, pattern, ok in ((1, "^java/TestQueryFilterSet/queryKeyString/.*1$", True), (2, "^key-.*-35$", False)):
    Rec(J, QS, "queryKeyString", {"a": 35}, True).get(["cmp_regex", [], pattern, ["key_str"]], ok, ("a",),
                                                     note="the regex written for the case ids (the keys here)")
# queryKeyInt: left out (an integer key; keys here are the case ids).
# queryVoidTime (void time within [now, now + 2 minutes)) with the record's
# last_update for now; queryTTL as is. Records 1-5 expire in i minutes.
T15 = [(i, {"a": i}, i * 60) for i in range(1, 6)]
scan(J, QS, "queryVoidTime", T15, ["and", ["cmp_ge", ["void_time"], LU],
                                   ["cmp_lt", ["void_time"], ["add", LU, 150 * NS]]], lambda i: i <= 2, 2, read=("a",))
scan(J, QS, "queryTTL", T15, ["cmp_le", ["ttl"], 60], lambda i: i == 1, 1, read=("a",))


# ============================================================================
# HLL calls. A case's record cannot hold an HLL bin before its ops (bins
# are written as blobs), so the tests' HLL bins are made by the case's first
# ops (exp_write of an hll_add, as HLLOperation.add makes them) and a
# filter's verdict is read with exp_read; the sketches the tests keep in
# variables are taken from the backend's answer (sketches()).
# ============================================================================
EMPTY4 = "0004" + "00" * 21  # hll_init(4): the empty sketch


def hll_tests(kvmodel, extra):
    # C exp_operate.c exp_returns_hll: bin New from as_operations_hll_init
    # (the case's bin), C from the expression, both read back.
    x = hx(EMPTY4)
    r = eo("exp_returns_hll")
    r.call([{"op": "hll_init", "args": {"index_bit_count": 4}}, xw("C", ["hll_init", None, 4, None]),
            {"op": "read"}, rd("C"), xr("EV", ["hll_init", None, 4, None])], None,
           {"results": [None, None, x, x, x]}, "bin New is the case's bin")
    r.calls[-1][0]["bin_name"] = "New"
    r.call([xr("EV", ["hll_init", None, 4, None]), rd("C")], None, {"results": [x, x]})
    r.calls[-1][0]["bin_name"] = "New"
    # Java TestExpOperation expReturnsHLL: the same in its op order.
    r = te("expReturnsHLL")
    r.call([{"op": "hll_init", "args": {"index_bit_count": 4}}, xw("C", ["hll_init", None, 4, None]),
            {"op": "read"}, rd("C"), xr("EV", ["hll_init", None, 4, None])], None,
           {"results": [None, None, x, x, x]}, "bin H is the case's bin")
    r.calls[-1][0]["bin_name"] = "H"
    r.call([xr("EV", ["hll_init", None, 4, None])], None, {"results": [x]})
    r.calls[-1][0]["bin_name"] = "H"

    # C filter_exp.c filter_hll_value_to_bin: an hll_init(10) sketch read
    # back from the record, then used as a value in the filter.
    (h10,) = sketches(kvmodel, extra, [["hll_init", None, 10, None]])
    fe("filter_hll_value_to_bin").get(eq(["hll_get_count", {"$hll": h10}], 0), True)

    # Java TestHLLExp.hllExp: bins hllbin_1..3 from three lists, 8 index bits.
    lists = [lv("Akey1", "Akey2", "Akey3"), lv("Bkey1", "Bkey2", "Bkey3"),
             lv("Akey1", "Akey2", "Bkey1", "Bkey2", "Ckey1", "Ckey2")]
    makes = [["hll_add", None, l, 8, None] for l in lists]
    h1, h2, h3 = ({"$hll": h} for h in sketches(kvmodel, extra, makes))
    setup = [xw("hllbin_%d" % (i + 1), mk) for i, mk in enumerate(makes)]
    b1, b2 = ["bin_hll", "hllbin_1"], ["bin_hll", "hllbin_2"]
    hlls = {"$list": [h1, h2, h3]}
    v2, v3 = {"$list": [h2]}, {"$list": [h3]}
    new_val = lv("new_val")

    def desc0(b):
        return ["list_get_by_index", None, "VALUE", "INT", 0, ["hll_describe", b]]

    checks = {
        "count": [(eq(["hll_get_count", b1], 0), False), (["cmp_gt", ["hll_get_count", b1], 0], True)],
        "union": [(["cmp_ne", ["hll_get_count", ["hll_get_union", hlls, b1]], ["hll_get_union_count", hlls, b1]],
                   False),
                  (eq(["hll_get_count", ["hll_get_union", hlls, b1]], ["hll_get_union_count", hlls, b1]), True)],
        "intersect": [(["cmp_ge", ["hll_get_intersect_count", v2, b1], ["hll_get_intersect_count", v3, b1]], False),
                      (["cmp_le", ["hll_get_intersect_count", v2, b1], ["hll_get_intersect_count", v3, b1]], True)],
        "similarity": [(["cmp_ge", ["hll_get_similarity", v2, b1], ["hll_get_similarity", v3, b1]], False),
                       (["cmp_le", ["hll_get_similarity", v2, b1], ["hll_get_similarity", v3, b1]], True)],
        "describe": [(["cmp_ne", desc0(b1), desc0(b2)], False), (eq(desc0(b1), desc0(b2)), True)],
        "mayContain": [(eq(["hll_may_contain", new_val, b2], 1), False),
                       (["cmp_ne", ["hll_may_contain", new_val, b2], 1], True)],
        "add": [(eq(["hll_get_count", b1], ["hll_get_count", ["hll_update", None, new_val, b2]]), False),
                (["cmp_lt", ["hll_get_count", b1], ["hll_get_count", ["hll_update", None, new_val, b2]]], True)],
    }
    for helper, fs in checks.items():
        for f, verdict in fs:
            Rec(J, "TestHLLExp", "hllExp", {"A": 1}).call(
                setup + [xr("f", f)], None, {"results": [None, None, None, verdict]},
                "its " + helper + "(): the filter's verdict, read")


def sketches(kvmodel, extra, exps):
    """The backend's answer to each HLL expression (hex), read with exp_read."""
    case = {"id": "sketches", "bins": {"A": 1}, "ops": [xr("s%d" % i, e) for i, e in enumerate(exps)]}
    (out,) = run(kvmodel, extra, [case])
    return [r["$bytes"] for r in out["results"]]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    kvmodel, extra = sys.argv[1], sys.argv[2:]
    hll_tests(kvmodel, extra)
    seen = set()
    for reg in REGISTRIES:
        build(reg, kvmodel, extra, seen)


REGISTRIES = [C, J]

if __name__ == "__main__":
    main()
