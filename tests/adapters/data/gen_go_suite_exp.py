#!/usr/bin/env python3
"""Generates tests/adapters/data/go_suite_exp.json: the scenarios of the
Aerospike Go client's expression tests (aerospike-client-go v7:
exp_list_test.go, exp_map_test.go, exp_bit_test.go, exp_hll_test.go,
expression_test.go, expression_ops_test.go, and the filters of
batch_test.go, query_test.go, scan_test.go and examples/expressions)
written as expression cases (shared/spec/exp-json.md), the way
gen_go_suite.py writes its CDT tests.

The Go tests build expressions with the client's builder; this script reads
them from a checkout of the client (--client DIR) and translates each call
to the spec's notation (go_exp_translate.py: the Go names, argument orders
and constants mapped to the C client's as_exp macros). What each test sets
up, runs and asserts is written here, by hand, per test group:

  * Query filters (exp_list, exp_map, exp_bit, exp_hll, and expression_test's
    "Expressions" and "Generic" groups): a test puts N records, queries them
    with a filter expression and asserts how many come back. Each record is
    a case: its bins, the filter, and a read of its bin, so the case answers
    the bin or FILTERED_OUT (27). All N records are run (on the backend
    given: generate against the server) and the count is checked against
    the Go assert; the suite keeps up to three records that pass and three
    that are filtered out, spread over the records (ids
    "go/<file>/<It text>/r<record>"). A count the backend does not give is
    printed (and the cases kept: the recorded answer is the truth).
  * The single-record commands of expression_test's "Commands" group (Get,
    Exists, Put, Add, Prepend, Operate with a filter that fails, then one
    that passes): reads become read_bin, writes write_bin (the runner has no
    delete or touch: those tests' filters are asked with a read); the batch
    test is its five keys, each read without and with the filter.
  * "Expression Filter Operations" (a matrix of filters over three
    records): each row's filter on its record (FILTERED_OUT) and, NOT-ed
    when the row says so, on its other record (passes).
  * batch_test.go, query_test.go, scan_test.go and examples/expressions:
    their few filters, written out by hand in other_files().
  * expression_ops_test.go (exp_read / exp_write in operate, with their
    flags): each Operate() is a case on the record the test's BeforeEach
    wrote (A: {A: 1, D: 2}; B: {B: 2, D: 2}), chained: each case starts from
    the bins the previous call of the test left (ids "go/expression_ops_test/
    <It text>/<n>"); an HLLInitOp's bin is the case's bin.

Differences from the Go tests, forced by the case format:
  * A case's record key is its id (a string) in set "cdt", so ExpKey,
    ExpDigestModulo and ExpSetName are asked of that key and set
    (examples/expressions' regex on the stored string key keeps its intent:
    each of its case ids ends with the example's key).
  * GeoJSON bins (expression_test's locval / rgnval) and the 16*i-byte
    "ballast" bins of the Generic group are left out; the Generic group's
    secondary-index range (intval 0..400) is applied as a record range.
  * ExpSinceUpdate > 150 after a 150 ms sleep depends on the clock: asked as
    ExpSinceUpdate >= 0 (exp_random's rule: time-dependent metadata only in
    comparisons whose answer does not depend on when the case runs).
  * exp_hll_test.go: a case's record cannot hold an HLL bin before its ops,
    so each record's hllbin / hllbin2 (the Go test's HLLAddOp) are made by
    the case's first ops (exp_write of hll_add_mh on nil) and the filter's
    verdict is read with exp_read (gen_exp_suites.py's way): the case
    answers [null, null, true / false].

Recorded from aerospike-client-go 7022c84 (v7): 573 cases; every Go count
matched on the server.

usage: gen_go_suite_exp.py KVMODEL --client DIR [--backend aerospike --host H[:P]]
       DIR: a checkout of aerospike/aerospike-client-go (the *_test.go files
       at its top), e.g. git --git-dir=REPO archive HEAD | tar -x -C DIR
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from go_exp_translate import Translator, parse, Untranslatable  # noqa: E402
from suite_lib import client_args, run, spread  # noqa: E402

FILTERED = {"error": "FILTERED_OUT", "code": 27}
CODES = {"FILTERED_OUT": 27, "OP_NOT_APPLICABLE": 26, "BIN_NOT_FOUND": 17, "BIN_EXISTS_ERROR": 6,
         "PARAMETER_ERROR": 4}


def string_end(text, i):
    """The index of the quote that closes the Go string literal opening at text[i]."""
    q = text[i]
    i = text.index(q, i + 1)
    while q == '"' and text[i - 1] == "\\":
        i = text.index(q, i + 1)
    return i


def its(text):
    """(It text, body, offset) of every gg.It in a Go file."""
    for m in re.finditer(r'gg\.It\("((?:[^"\\]|\\.)*)",\s*func\(\)\s*\{', text):
        depth, i = 1, m.end()
        while depth:
            c = text[i]
            if c in "\"`":
                i = string_end(text, i)
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            i += 1
        yield m.group(1), text[m.end():i - 1], m.start()


def call_args(text, at):
    """The top-level arguments (as text) of the call whose '(' is at text[at]."""
    depth, i, start, out = 0, at, at + 1, []
    while True:
        c = text[i]
        if c in "\"`":
            i = string_end(text, i)
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                out.append(text[start:i])
                return [a.strip() for a in out if a.strip()], i + 1
        elif c == "," and depth == 1:
            out.append(text[start:i])
            start = i + 1
        i += 1


# --- the records each group of query tests puts ---------------------------------------------------
def d(x):
    return {"$double": float(x)}


def hexs(s):
    return {"$bytes": s.encode().hex()}


PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31]
GROUPS = {
    "exp_list_test": (range(100), lambda i: {"bin": [1, 2, 3, i]}),
    "exp_map_test": (range(100), lambda i: {"bin": {"$map": [["test", i], ["test2", "a"]]}}),
    "exp_bit_test": (range(100), lambda i: {"bin": {"$bytes": "0142"}}),
    "exp_hll_test": (range(100), lambda i: {"bin": i, "lbin": [i, "a"]}),
    "Expressions": (range(100), lambda i: {"bin": i, "bin2": str(i), "bin3": d(i / 3), "bin4": hexs("blob%d" % i),
                                           "bin5": ["a", "b", i], "bin6": {"$map": [["a", "test"], ["b", i]]}}),
    "Generic": (range(1000), lambda i: {"intval": i, "strval": "0x%04x" % i, "modval": i % 10,
                                       "lstval": [f for f in PRIMES if i >= f and i % f == 0],
                                       "mapval": {"$map": [[f, "0x%04x" % f] for f in PRIMES
                                                           if i >= f and i % f == 0]}}),
}


# The ops that make a group's HLL bins (its Go BeforeAll's HLLAddOp with 8
# index bits and minhash 0), before the filter is read.
HLL_SETUP = {
    "exp_hll_test": lambda i: [
        {"op": "exp_write", "bin": b, "exp": ["hll_add_mh", None, {"$list": ["asd"] + xs}, 8, 0, None]}
        for b, xs in (("hllbin", [i]), ("hllbin2", [i, i + 1]))],
}


class Suite:
    def __init__(self, kvmodel, extra):
        self.kvmodel, self.extra = kvmodel, extra
        self.cases = []
        self.problems = []

    def filter_test(self, file, name, group, exp, want, note=None, records=None, read_bin=None, error=False):
        recs, make = GROUPS[group]
        if records is not None:
            recs = records
        batch = []
        for i in recs:
            bins = make(i)
            c = {"id": "go/%s/%s/r%d" % (file, name, i), "bins": bins, "filter": exp,
                 "ops": [{"op": "read_bin", "bin": read_bin or next(iter(bins))}]}
            if group in HLL_SETUP:
                del c["filter"]
                c["ops"] = HLL_SETUP[group](i) + [{"op": "exp_read", "name": "filter", "exp": exp}]
            if note:
                c["notes"] = note
            batch.append(c)
        out = run(self.kvmodel, self.extra, batch)
        if group in HLL_SETUP:
            passed = [i for i, o in enumerate(out) if o.get("results", [None])[-1] is True]
            failed = [i for i, o in enumerate(out) if i not in passed]
        else:
            passed = [i for i, o in enumerate(out) if o["results"][0] != FILTERED]
            failed = [i for i, o in enumerate(out) if o["results"][0] == FILTERED]
        if want is not None and len(passed) != want:
            self.problems.append("%s/%s: %d records pass, the Go test asserts %d" % (file, name, len(passed), want))
        keep = sorted(spread(passed) + spread(failed))
        for i in keep:
            c = batch[i]
            if group in HLL_SETUP:
                c["expected"] = {"results": [None, None, i in passed]}
            else:
                c["expected"] = {"error": True} if error else {"error": 27} if i in failed else \
                    {"results": [{"$any": True}]}
            self.cases.append(c)

    def chained(self, file, name, start, calls):
        """calls: [(ops, filter or None, expected or None, note or None)] on
        one record whose bins start as `start`; each call starts from what the
        previous left."""
        bins = start
        for n, (ops, filt, expect, note) in enumerate(calls, 1):
            c = {"id": "go/%s/%s/%d" % (file, name, n), "bins": bins, "ops": ops}
            if filt is not None:
                c["filter"] = filt
            if note:
                c["notes"] = note
            if expect is not None:
                c["expected"] = expect
            (o,) = run(self.kvmodel, self.extra, [c])
            bins = o.get("bins")
            self.cases.append(c)


def fix_time(exp):
    """since_update > 150 after a sleep: the same question without the clock."""
    if exp == ["cmp_gt", ["since_update"], 150]:
        return ["cmp_ge", ["since_update"], 0], "Go asks since_update > 150 after a 150 ms sleep; asked >= 0"
    return exp, None


def query_file(suite, text, file, group_of):
    for name, body, at in its(text):
        group = group_of(at)
        if group is None:
            continue
        n = 0
        for m in re.finditer(r"runQuery\(", body):
            args, end = call_args(body, m.end() - 1)
            tr = Translator({"set": "cdt"})  # the runner's set (the Go test's is random)
            locals_of(body, tr)
            try:
                exp, note = fix_time(tr.exp(parse(args[0])))
            except Untranslatable as e:
                sys.exit("%s / %s: %s in %r" % (file, name, e, args[0][:300]))
            rest = body[end:]
            cm = re.search(r"gm\.Equal\((\d+)\)", rest)
            nxt = rest.find("runQuery(")
            want = int(cm.group(1)) if cm and (nxt < 0 or cm.start() < nxt) else None
            n += 1
            tname = name.strip() or "(unnamed)"
            suite.filter_test(file, tname if n == 1 else "%s #%d" % (tname, n), group, exp, want, note)


def dedupe_names(text):
    """Its sharing a text get " #2", " #3" ... (gen_go_suite.py's rule)."""
    seen = {}

    def rename(m):
        t = m.group(1)
        seen[t] = seen.get(t, 0) + 1
        return 'gg.It("%s"' % (t if seen[t] == 1 else "%s #%d" % (t, seen[t]))
    return re.sub(r'gg\.It\("((?:[^"\\]|\\.)*)"', rename, text)


def generic_group(suite, text):
    """expression_test.go's "Generic" context: 1,000 records, some queries
    under a secondary-index range intval 0..400."""
    start = text.index('gg.Context("Generic"')
    end = text.index("runQuery := func")
    for name, body, _ in its(text[start:end]):
        m = re.search(r"FilterExpression = (.*?)\n\s*(?:recordset|\n)", body, re.S)
        if not m:
            m = re.search(r"exp := (.*?)\n\s*\n", body, re.S)
        exp = Translator().exp(parse(m.group(1).strip()))
        ranged = "NewRangeFilter" in body
        cnt = re.search(r'BeNumerically\("==", (\d+)\)', body)
        recs = range(401) if ranged else range(1000)
        note = "the Go query's index range intval 0..400 is the record range" if ranged else None
        if "top level expression value node" in name:
            # Every record answers an error; three are enough.
            recs, note, cnt = [0, 1, 400], "a filter that is not a boolean: every record of the query fails", None
        want = None if cnt is None else int(cnt.group(1))
        suite.filter_test("expression_test", name, "Generic",
                          exp, want, note, records=recs, read_bin="intval",
                          error="top level expression value node" in name)


def commands_group(suite, text):
    """expression_test.go's "Commands" context: each command with a filter
    that fails, then with one that passes, on the record key i, {bin: i}."""
    start = text.index('gg.Context("Commands"')
    end = text.index('gg.Describe("Expression Filter Operations"')
    for name, body, _ in its(text[start:end]):
        exps = [Translator().exp(parse(x.strip())) for x in
                re.findall(r"FilterExpression = (as\.Exp.*?\n\s*\))\n", body, re.S)]
        km = re.search(r"NewKey\(ns, set, (\d+)\)", body)
        if name == "Batch must work":
            for i in range(85, 90):
                suite.chained("expression_test", "%s/key %d" % (name, i), {"bin": i}, [
                    ([{"op": "read_bin", "bin": "bin"}], None, {"results": [i]}, "BatchGet without a filter"),
                    ([{"op": "read_bin", "bin": "bin"}], exps[0], {"error": 27} if i <= 88 else {"results": [i]},
                     "BatchGet with the filter bin > 88")])
            continue
        if name == "Scan must work":
            suite.filter_test("expression_test", name, "Expressions", exps[0], 1,
                              "ScanAll; the records hold {bin: i} and more", read_bin="bin")
            continue
        i = int(km.group(1))
        if "Get" in name or "Exists" in name or "Delete" in name or "Touch" in name:
            op = {"op": "read_bin", "bin": "bin"}
            note = None if "Get" in name else "%s: asked with a read" % name.split()[0]
        elif name.startswith("Put"):
            op, note = {"op": "write_bin", "bin": "bin", "value": 26}, None
        else:
            binm = re.search(r'NewBin\("(\w+)", ("?\w+"?)\)', body)
            op = {"op": "write_bin", "bin": binm.group(1), "value": json.loads(binm.group(2))}
            note = "%s: asked with a write of the bin" % name.split()[0]
        suite.chained("expression_test", name, {"bin": i},
                      [([op], e, {"error": 27} if k == 0 else {"results": [{"$any": True}]}, note)
                       for k, e in enumerate(exps)])


def matrix_group(suite, text):
    """expression_test.go's "Expression Filter Operations": a filter per row,
    FILTERED_OUT on the row's record, passing (NOT-ed if reverseExp) on its
    other record."""
    start = text.index("matrix := []testParams{")
    body_at = text.index("{", start + len("matrix := []testParams"))
    rows, _ = call_args(text, body_at)
    env = {"binA": "A", "binB": "B", "binC": "C", "binD": "D", "binE": "E"}
    recs = {"keyA": {"A": 1, "B": d(1.1), "C": "abcde", "D": 1, "E": -1},
            "keyB": {"A": 2, "B": d(2.2), "C": "abcdeabcde", "D": 1, "E": -2},
            "keyC": {"A": 0, "B": -1, "C": 1}}
    for row in rows:
        fields, _ = call_args("(" + row.strip()[1:-1] + ")", 0)
        desc = json.loads(fields[0])
        exp = Translator(env).exp(parse(fields[1]))
        key, exp_key, binname, want, reverse = fields[2], fields[3], env[fields[4]], int(fields[5]), \
            fields[6] == "true"
        c1 = {"id": "go/expression_test/Filtering via expressions should work/%s/1" % desc, "bins": recs[key],
              "filter": exp, "ops": [{"op": "read_bin", "bin": binname}], "expected": {"error": 27}}
        e2 = ["not", exp] if reverse else exp
        c2 = {"id": "go/expression_test/Filtering via expressions should work/%s/2" % desc, "bins": recs[exp_key],
              "filter": e2, "ops": [{"op": "read_bin", "bin": binname}], "expected": {"results": [want]}}
        suite.cases += [c1, c2]


def locals_of(body, tr):
    """The Go test's local variables (`x := as.Exp...(...)`, `s := "xxx"`,
    `m := map[...]...{...}`, `b := []byte{...}`) into the translator's env."""
    for m in re.finditer(r"\n\s*(\w+) :?= ", body):
        at = m.end()
        v = body[at:]
        if v.startswith("as.") or v.startswith("[]") or v.startswith("map["):
            ty = re.match(r"(\[\])*(map\[[^\]]*\])?(\[\])*[\w.]*(\{\})?", v).group(0)
            _, end = call_args(body, at + len(ty))
            try:
                tr.env[m.group(1)] = parse(body[at:end])
            except Untranslatable:
                pass
        elif v.startswith('"'):
            tr.env[m.group(1)] = parse(v[:v.index("\n")])


def ops_file(suite, text):
    """expression_ops_test.go: Operate() calls with ExpReadOp / ExpWriteOp /
    GetBinOp on record A or B, each test from the BeforeEach records."""
    env = {"binA": "A", "binB": "B", "binC": "C", "binD": "D", "binH": "H", "expVar": "EV"}
    start = {"keyA": {"A": 1, "D": 2}, "keyB": {"B": 2, "D": 2}}
    for name, body, _ in its(text):
        tr = Translator(env)
        state = {k: dict(v) for k, v in start.items()}
        n = 0
        hll_bin = None  # an HLLInitOp's bin: the case's bin (the runner's hll_init acts on it)
        locals_of(body, tr)
        for m in re.finditer(r"client\.Operate\(", body):
            args, end = call_args(body, m.end() - 1)
            key = args[1]
            ops = []
            for a in args[2:]:
                node = parse(a)
                f = node.f[3:]
                if f == "ExpWriteOp":
                    ops.append({"op": "exp_write", "bin": tr.value(node.args[0]), "exp": tr.exp(node.args[1]),
                                "flags": tr.flags(node.args[2])})
                elif f == "ExpReadOp":
                    ops.append({"op": "exp_read", "name": tr.value(node.args[0]), "exp": tr.exp(node.args[1]),
                                "flags": tr.flags(node.args[2])})
                elif f == "HLLInitOp" and tr.value(node.args[3]) == -1:
                    hll_bin = tr.value(node.args[1])
                    ops.append({"op": "hll_init", "args": {"index_bit_count": tr.value(node.args[2])}})
                elif f == "GetBinOp" and tr.value(node.args[0]) == hll_bin:
                    ops.append({"op": "read"})
                elif f == "GetBinOp":
                    ops.append({"op": "read_bin", "bin": tr.value(node.args[0])})
                else:
                    raise Untranslatable("op %s" % f)
            rest = body[end:end + 400]
            expect = None
            em = re.match(r"\s*gm\.Expect\(err\)\.(To|ToNot)\(gm\.HaveOccurred\(\)\)", rest)
            if em and em.group(1) == "To":
                expect = {"error": CODES[re.search(r"ast\.(\w+)", rest).group(1)]}
            n += 1
            c = {"id": "go/expression_ops_test/%s/%d" % (name, n), "bins": state[key], "ops": ops}
            if hll_bin is not None:
                c["bin_name"] = hll_bin
            if key == "keyB":
                c["notes"] = "record B"
            if expect is not None:
                c["expected"] = expect
            (o,) = run(suite.kvmodel, suite.extra, [c])
            state[key] = o.get("bins")
            suite.cases.append(c)


def other_files(suite):
    """The filter expressions of batch_test.go, query_test.go and
    scan_test.go, written out here (one or two each): a random bin value of
    the Go test is a fixed one."""
    bad = ["cmp_eq", ["list_get_by_value_range", None, "VALUE", 10, 13, ["bin_list", "Aerospike1"]], 11]
    for file, bins in [("scan_test", {"Aerospike1": 12345, "Aerospike2": "abc"}),
                       ("query_test", {"Aerospike1": 12345, "Aerospike2": "abc", "Aerospike3": 77,
                                       "Aerospike4": "constValue", "Aerospike5": -1, "Aerospike6": 1})]:
        suite.chained(file, "must return the error for invalid expression", bins, [
            ([{"op": "read_bin", "bin": "Aerospike1"}], bad, {"error": 4},
             "a list read of an integer bin: every record of the scan / query fails")])
    name = "must successfully execute ops with policies"
    writes = [{"op": "write_bin", "bin": "bin3", "value": 3}, {"op": "write_bin", "bin": "bin4", "value": 4}]
    suite.chained("batch_test", name, {"bin1": 1, "bin2": 2}, [
        (writes, ["cmp_lt", ["bin_int", "bin1"], 1], {"error": 27}, "BatchWrite with the filter bin1 < 1"),
        (writes, None, {"results": [None, None]}, "the same BatchWrite without the filter")])
    for i in (0, 2, 3, 49):
        f = ["cmp_lt", ["bin_int", "i"], 3]
        want = (lambda r: {"results": r}) if i < 3 else (lambda r: {"error": 27})
        suite.chained("batch_test", "must return the result with same ordering/i %d" % i, {"i": i}, [
            ([{"op": "write_bin", "bin": "bin1", "value": "a"}], f, want([None]), "BatchOperate with i < 3"),
            ([{"op": "write_bin", "bin": "bin2", "value": "b"}], f, want([None]), None),
            ([{"op": "read_bin", "bin": "bin2"}], f, want(["b"]), None)])
    # examples/expressions: a regex (ICASE) on the stored string key; a
    # case's key is its id, so each id ends with the example's key.
    for k, b, v in [("jacksapplekey1", "Jack", 26), ("jillgrapekey2", "Jill", 20), ("mangokey3", "James", 38),
                    ("Jimkey4apple", "Jim", 46), ("SeanaPPlekey7", "Sean", 24), ("Susankey9", "Susan", 42)]:
        suite.cases.append({"id": "go/examples.expressions/testKeyRegex/%s" % k, "send_key": True, "bins": {b: v},
                            "filter": ["cmp_regex", ["ICASE"], "^.*apple.*", ["key_str"]],
                            "ops": [{"op": "read_bin", "bin": b}],
                            "expected": {"results": [v]} if "apple" in k.lower() else {"error": 27}})
    suite.chained("batch_test", "BatchDelete with a per-record filter", {"count": 0}, [
        ([{"op": "read_bin", "bin": "count"}], ["cmp_eq", ["bin_int", "count"], 0], {"results": [0]},
         "BatchDelete's per-record filter count == 0 (over the batch policy's count == 999): asked with a read")])


def main():
    kvmodel, client, extra = client_args()
    suite = Suite(kvmodel, extra)

    def read(f):
        with open(os.path.join(client, f)) as fh:
            # whole-line comments out (commented-out tests among them)
            return dedupe_names(re.sub(r"(?m)^\s*//.*$", "", fh.read()))

    for f in ["exp_list_test.go", "exp_map_test.go", "exp_bit_test.go", "exp_hll_test.go"]:
        query_file(suite, read(f), f[:-3], lambda _at, g=f[:-3]: g)
    et = read("expression_test.go")
    generic_group(suite, et)
    lo, hi = et.index('gg.Describe("Expressions"'), et.index('gg.Context("Commands"')
    query_file(suite, et, "expression_test", lambda at: "Expressions" if lo < at < hi else None)
    commands_group(suite, et)
    matrix_group(suite, et)
    ops_file(suite, read("expression_ops_test.go"))
    other_files(suite)

    ids = [c["id"] for c in suite.cases]
    assert len(ids) == len(set(ids)), "duplicate ids"
    path = os.path.join(HERE, "go_suite_exp.json")
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(c) for c in suite.cases) + "\n]\n")
    print("go_suite_exp: %d cases" % len(suite.cases))
    for p in suite.problems:
        print("count differs: " + p)


if __name__ == "__main__":
    main()
