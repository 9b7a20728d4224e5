#!/usr/bin/env python3
"""Generates tests/adapters/data/python_suite_exp.json: the scenarios of the
Aerospike Python client's expression tests (test/new_tests:
test_expressions_base, test_expressions_list, test_expressions_map,
test_expressions_bit, test_expressions_bitwise_operators,
test_arithmetic_expressions, test_expressions_everywhere,
test_expression_operations, test_query_expressions, and
test_expressions_hll, written out by hand in hll_file()) written as
expression cases (shared/spec/exp-json.md).

Like gen_python_suite.py (whose fake `aerospike` and `pytest` modules, test
runner and value conversions it reuses), this script RUNS the tests,
unchanged, from a checkout of the client (--client DIR), with the client's
real aerospike_helpers package building the expressions and a fake client
that turns each command carrying an expression into a case:
  - expressions: every helper class's constructor is wrapped so each object
    remembers its arguments; compile() hands back the object, and the fake
    client writes it in the spec's notation (class -> as_exp macro name,
    arguments in the macro's order: a remove's `inverted` becomes its return
    type, a bin given by name becomes the typed bin read, plain values
    become value expressions). Operator-built nodes (expr + 1, abs(expr))
    are written from their op code.
  - the fake client keeps the records the tests put (in the replay's shapes)
    and makes a case of every get / select / exists / remove / remove_bin /
    put / operate / operate_ordered whose policy has "expressions" (the
    filter), every operate with an expression_read / expression_write op,
    and every record a batch_read, query or scan with a filter visits. A
    case's bins are the record as the earlier calls left it (the replay's
    answers, so the chain is the server's when generated against it).
    Reads become read_bin ops, writes write_bin; remove with a filter is
    asked with a read (the runner cannot delete) and removes the record in
    the replay when the filter passes. List, map and bit ops in an operate
    run on the case's bin (bin_name: the bin they name). A query or scan
    runs its filter on every record of its set at once and keeps up to
    three records that pass and three that do not.
  - what a pytest.raises expects is the case's "expected" error; a call the
    Python client itself refuses (ParamError: bad expression objects, bad
    flags) is not a server case and is left out.
One case per (command, record); id "python/<file>/<test>/<n>".

Differences from the Python tests, forced by the case format:
  * a case's record key is its id in set "cdt", so key_* / digest_modulo /
    set_name ask that key and set;
  * GeoJSON values in the tests' records are stored as their JSON text (a
    string), and path expressions and GeoJSON comparisons end a test (the
    runner does not pack them yet);
  * time-dependent metadata (ttl, void_time, last_update, since_update)
    keeps only the comparisons whose answer cannot depend on when the case
    runs (a test's "now" bound on last_update / void_time becomes 2020 for
    a lower bound, 2116 for an upper one); others would be left out (listed
    at the end), as gen_exp_cases.py does.

Recorded from aerospike-client-python 8700253d: 1,471 cases (16 of them
test_expressions_hll's). What stops a test early is printed at the end:
GeoJSON comparisons, increments (no such runner op), aerospike.calc_digest,
and asserts that the
GeoJSON-as-text records or the case keys make fail (the cases before them
are kept; their recorded answers are the server's).

usage: gen_python_suite_exp.py KVMODEL --client DIR [--backend aerospike --host H[:P]]
       DIR as for gen_python_suite.py (test/new_tests and aerospike_helpers).
"""
import importlib
import inspect
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_expected  # noqa: E402
import gen_python_suite as gps  # noqa: E402
from suite_lib import client_args, spread  # noqa: E402

FILES = ["test_expressions_base", "test_expressions_list", "test_expressions_map", "test_expressions_bit",
         "test_expressions_bitwise_operators", "test_arithmetic_expressions", "test_expressions_everywhere",
         "test_expression_operations", "test_query_expressions"]
Unsupported = gps.Unsupported

gps.AS.__dict__.update({
    "REGEX_NONE": 0, "REGEX_EXTENDED": 1, "REGEX_ICASE": 2, "REGEX_NOSUB": 4, "REGEX_NEWLINE": 8,
    "EXP_READ_DEFAULT": 0, "EXP_READ_EVAL_NO_FAIL": 16, "EXP_WRITE_DEFAULT": 0, "EXP_WRITE_CREATE_ONLY": 1,
    "EXP_WRITE_UPDATE_ONLY": 2, "EXP_WRITE_ALLOW_DELETE": 4, "EXP_WRITE_POLICY_NO_FAIL": 8,
    "EXP_WRITE_EVAL_NO_FAIL": 16, "POLICY_KEY_SEND": 1, "POLICY_KEY_DIGEST": 0,
    "TTL_NAMESPACE_DEFAULT": 0, "TTL_NEVER_EXPIRE": -1, "TTL_DONT_UPDATE": -2, "TTL_CLIENT_DEFAULT": -3,
    "AS_BOOL": 1, "INTEGER": 0, "AS_BYTES_UNDEF": 0, "AS_BYTES_INTEGER": 1, "AS_BYTES_DOUBLE": 2,
    "AS_BYTES_STRING": 3, "AS_BYTES_BLOB": 4, "AS_BYTES_BOOL": 17, "AS_BYTES_HLL": 18, "AS_BYTES_MAP": 19,
    "AS_BYTES_LIST": 20, "AS_BYTES_GEOJSON": 23})
CODE_EXC = {27: "FilteredOut", 4: "InvalidRequest", 26: "OpNotApplicable", 17: "BinNotFound",
            6: "BinExistsError", 12: "BinIncompatibleType", 2: "RecordNotFound", 5: "RecordExistsError",
            13: "RecordTooBig"}


class GeoJSON:
    """aerospike.GeoJSON: kept as its JSON text."""

    def __init__(self, v=None, *_a):
        self.text = v if isinstance(v, str) else json.dumps(v)


gps.AS.GeoJSON = GeoJSON
gps.AS.client = lambda *_a, **_k: FakeClient()


# ============================================================================
# Expressions: the helper objects -> the spec's notation
# ============================================================================
NAMES = {"Eq": "cmp_eq", "NE": "cmp_ne", "GT": "cmp_gt", "GE": "cmp_ge", "LT": "cmp_lt", "LE": "cmp_le",
         "CmpRegex": "cmp_regex", "CmpGeo": "cmp_geo", "BoolBin": "bin_bool", "IntBin": "bin_int",
         "StrBin": "bin_str", "FloatBin": "bin_float", "BlobBin": "bin_blob", "GeoBin": "bin_geo",
         "ListBin": "bin_list", "MapBin": "bin_map", "HLLBin": "bin_hll", "KeyExists": "key_exist",
         "LastUpdateTime": "last_update", "SinceUpdateTime": "since_update", "TTL": "ttl",
         "DigestMod": "digest_modulo", "IntXOr": "int_xor", "IntLeftShift": "int_lshift",
         "IntRightShift": "int_rshift", "IntArithmeticRightShift": "int_arshift", "IntLeftScan": "int_lscan",
         "IntRightScan": "int_rscan", "BitLeftShift": "bit_lshift", "BitRightShift": "bit_rshift",
         "BitLeftScan": "bit_lscan", "BitRightScan": "bit_rscan", "ListGetByValueRelRankRangeToEnd":
         "list_get_by_rel_rank_range_to_end", "ListGetByValueRelRankRange": "list_get_by_rel_rank_range",
         "ListRemoveByValueRelRankToEnd": "list_remove_by_rel_rank_range_to_end",
         "ListRemoveByValueRelRankRange": "list_remove_by_rel_rank_range"}
OPCODES = {1: "cmp_eq", 2: "cmp_ne", 3: "cmp_gt", 4: "cmp_ge", 5: "cmp_lt", 6: "cmp_le", 16: "and", 17: "or",
           18: "not", 19: "exclusive", 20: "add", 21: "sub", 22: "mul", 23: "div", 24: "pow", 25: "log",
           26: "mod", 27: "abs", 28: "floor", 29: "ceil", 30: "to_int", 31: "to_float", 50: "min", 51: "max"}
VTYPES = {0: "NIL", 1: "BOOL", 2: "INT", 3: "STR", 4: "LIST", 5: "MAP", 6: "BLOB", 7: "FLOAT", 8: "GEO", 9: "HLL"}
TIME_META = {"ttl", "void_time", "last_update", "since_update"}


def snake(s):
    out = ""
    for i, ch in enumerate(s):
        if ch.isupper() and i and not s[i - 1].isupper():
            out += "_"
        out += ch.lower()
    return out


def macro(cname):
    return NAMES.get(cname) or snake(cname)


def bin_read(cname, b):
    if not isinstance(b, str):
        return conv(b)
    kind = "bin_list" if cname.startswith("List") else "bin_map" if cname.startswith("Map") else \
        "bin_blob" if cname.startswith("Bit") else "bin_hll" if cname.startswith("HLL") else None
    if kind is None:
        raise Unsupported("a bin name where %s takes an expression" % cname)
    return [kind, b]


def value(v):
    """A plain Python value as an expression argument."""
    if isinstance(v, (list, tuple)):
        return {"$list": [cj(x) for x in v]}
    return cj(v)


def cj(v):
    if isinstance(v, GeoJSON):
        return v.text
    if isinstance(v, gps.KeyOrderedDict):
        return {"$map": [[cj(k), cj(x)] for k, x in v.items()], "$order": "K_ORDERED"}
    if isinstance(v, dict):
        return {"$map": [[cj(k), cj(x)] for k, x in v.items()]}
    if isinstance(v, (list, tuple)):
        return [cj(x) for x in v]
    if isinstance(v, gps.Null):
        return None
    return gps.to_cj(v)


def policy(cname, p):
    if p is None or p == {}:
        return None
    if cname.startswith("List"):
        return {"order": gps.LIST_ORDERS[p.get("list_order", 0)],
                "flags": gps.bits(p.get("write_flags", 0), gps.LIST_FLAGS)}
    if cname.startswith("Map"):
        return {"order": gps.MAP_ORDERS[p.get("map_order", 0)],
                "flags": gps.bits(p.get("map_write_flags", 0), gps.MAP_FLAGS)}
    if cname.startswith("Bit"):
        return gps.bits(p.get("bit_write_flags", 0), [(1, "CREATE_ONLY"), (2, "UPDATE_ONLY"), (4, "NO_FAIL"),
                                                      (8, "PARTIAL")]) or None
    raise Unsupported("policy of %s" % cname)


def rtype(rt, inverted=False):
    inv = bool(rt & 0x10000) or bool(inverted)
    name = gps.RT_NAMES.get(rt & ~0x10000, rt & ~0x10000)
    return [name, "INVERTED"] if inv else name


def from_ctor(x):
    cname, args = x._cargs
    name = macro(cname)
    if name.startswith(("hll_", "select_by_path", "modify_by_path", "loop_var", "result_remove")) or \
            name in ("cmp_geo", "bin_geo", "bin_hll"):
        raise Unsupported("%s in an expression (not packed by the runner)" % cname)
    if name.startswith("bin_") or name in ("var", "digest_modulo"):
        return [name] + list(args.values())
    out = [name]
    inverted = args.get("inverted", False)
    if name.startswith(("list_remove_by", "map_remove_by")) and "inverted" in args:
        out.append(ctx(args["ctx"]))
        out.append(rtype(0, inverted))
        rest = [k for k in args if k not in ("ctx", "inverted")]
    else:
        rest = [k for k in args if k != "inverted"]
    for k in rest:
        v = args[k]
        if k == "ctx":
            out.append(ctx(v))
        elif k == "bin":
            out.append(bin_read(cname, v))
        elif k in ("end", "value_end") and v is None:
            out.append({"$inf": True})  # the helpers' "no end": CDTInfinite
        elif k == "policy":
            out.append(policy(cname, v))
        elif k == "return_type":
            out.append(rtype(v, inverted))
        elif k == "value_type":
            out.append(VTYPES[v])
        elif k in ("var_name", "regex_str", "mod"):
            out.append(v)
        elif k == "options":
            out.append(gps.bits(v, [(1, "EXTENDED"), (2, "ICASE"), (4, "NOSUB"), (8, "NEWLINE")]))
        elif k == "flags" and cname == "BitResize":
            out.append(gps.bits(v, [(1, "FROM_FRONT"), (2, "GROW_ONLY"), (4, "SHRINK_ONLY")]))
        elif k == "action":
            out.append({0: "FAIL", 2: "SATURATE", 4: "WRAP"}[v])
        elif k == "sign":
            out.append(bool(v))
        elif k == "order" and cname == "ListSort":
            out.append(gps.bits(v, [(1, "DESCENDING"), (2, "DROP_DUPLICATES")]))
        elif k in ("exprs", "args"):
            out += [conv(e) for e in v]
        else:
            out.append(conv(v))
    if name == "def":
        out = ["def", args["var_name"], conv(args["expr"])]
    return out


def ctx(c):
    if not c:
        return None
    return gps.ctx_of({"ctx": c})


def conv(x):
    from aerospike_helpers.expressions.resources import _BaseExpr
    if isinstance(x, _BaseExpr):
        if "_cargs" in x.__dict__:
            return from_ctor(x)
        if x._op not in OPCODES:
            raise Unsupported("expression node with op %r" % (x._op,))
        kids = [c for c in x._children if not (isinstance(c, _BaseExpr) and c._op == 150)]
        return [OPCODES[x._op]] + [conv(c) for c in kids]
    if isinstance(x, Compiled):
        return conv(x.e)
    return value(x)


class Compiled(list):
    """What compile() gives the test: the expression object (a list, so the
    client's type checks on "a compiled expression" pass)."""

    def __init__(self, e):
        super().__init__()
        self.e = e


PAST, FUTURE = 1_600_000_000 * 10 ** 9, 2 ** 62  # 2020-09-13, 2116: ns since 1970


def timeless(e):
    """e with the tests' "now" bounds on last_update / void_time (ns since
    1970, taken when the test ran) moved out to 2020 (lower bounds) and 2116
    (upper bounds): the same question, whenever the case runs."""
    if not isinstance(e, list):
        return e
    if len(e) == 3 and e[0] in ("cmp_lt", "cmp_le", "cmp_gt", "cmp_ge") and e[1] in (["last_update"], ["void_time"]) \
            and isinstance(e[2], int) and e[2] > 10 ** 15:
        return [e[0], e[1], FUTURE if e[0] in ("cmp_lt", "cmp_le") else PAST]
    return [timeless(x) for x in e]


ROBUST = [["cmp_ne", ["ttl"], 0], ["cmp_ne", ["void_time"], 0], ["cmp_ge", ["since_update"], 0],
          ["cmp_gt", ["last_update"], 0]]


def uses_time(e):
    """Whether e reads time-dependent metadata other than in a comparison
    whose answer does not depend on when it runs."""
    if isinstance(e, list):
        if e in ROBUST or (len(e) == 3 and e[2] in (PAST, FUTURE)):
            return False
        return (len(e) == 1 and isinstance(e[0], str) and e[0] in TIME_META) or any(uses_time(x) for x in e)
    if isinstance(e, dict):
        return any(uses_time(x) for x in e.values())
    return False


def instrument():
    import aerospike_helpers.expressions as ex
    from aerospike_helpers.expressions import resources
    seen = set()
    for modname in ["base", "arithmetic", "bitwise", "bitwise_operators", "hll", "list", "map"]:
        mod = importlib.import_module("aerospike_helpers.expressions." + modname)
        for cls in vars(mod).values():
            if not (isinstance(cls, type) and issubclass(cls, resources._BaseExpr)) or cls in seen:
                continue
            seen.add(cls)
            orig = cls.__dict__.get("__init__")
            if orig is None:
                continue

            def make(orig=orig, cls=cls):
                sig = inspect.signature(orig)

                def init(self, *a, **k):
                    orig(self, *a, **k)
                    b = sig.bind(self, *a, **k)
                    b.apply_defaults()
                    args = dict(b.arguments)
                    args.pop("self")
                    self.__dict__["_cargs"] = (cls.__name__, args)
                return init
            cls.__init__ = make()
    resources._BaseExpr.compile = lambda self: Compiled(self)
    return ex


# ============================================================================
# The fake client
# ============================================================================
class Harness:
    def __init__(self, kvmodel, extra):
        self.kvmodel, self.extra = kvmodel, extra
        self.expect = []
        self.stats = {}
        self.stopped = {}
        self.cases = []
        self.counts = {}
        self.time_left_out = []
        self.outs = {}  # case id -> the replay's answer
        self.records = {}

    def start_test(self, cfile, tname):
        self.cfile, self.tname = cfile, tname
        self.records = {}
        self.expect = []
        setup = getattr(self.mods.get(cfile), "clean_test_demo_namespace", None)
        if setup is not None:  # the class's usefixtures: the records every query test reads
            next(setup.__wrapped__(FakeClient()) if hasattr(setup, "__wrapped__") else setup(FakeClient()))

    def expected_error(self):
        if not self.expect:
            return None
        return self.expect[-1]

    def run_query(self, keys, filt):
        """A query's filter on each of its records, run at once; the records
        that pass, in order. Up to three passing and three filtered-out
        records are kept as cases (ids "<test>/<n>" count on)."""
        if uses_time([filt]):
            raise Unsupported("time-dependent metadata")
        cases = []
        for rk in keys:
            rec = self.records[rk]
            cases.append({"id": None, "bins": {b: cj(v) for b, v in rec["bins"].items()}, "filter": filt,
                          "ops": [{"op": "read_bin", "bin": next(iter(rec["bins"]), "x")}]})
        p = subprocess.run([self.kvmodel, "cdt", "-"] + self.extra,
                           input="\n".join(json.dumps(dict(c, id="q%d" % i)) for i, c in enumerate(cases)),
                           capture_output=True, text=True)
        outs = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
        assert len(outs) == len(cases), p.stderr
        if any("invalid" in o for o in outs):
            raise Unsupported("invalid case: " + outs[0].get("invalid", ""))
        errs = [o["results"][0] for o in outs if isinstance(o["results"][0], dict) and "error" in o["results"][0]]
        passed = [i for i, o in enumerate(outs) if o["results"][0] not in errs]
        failed = [i for i, o in enumerate(outs) if o["results"][0] in errs]
        for i in sorted(spread(passed) + spread(failed)):
            key = (self.cfile, self.tname)
            self.counts[key] = self.counts.get(key, 0) + 1
            c = dict(cases[i], id="python/%s/%s/%d" % (self.cfile, self.tname, self.counts[key]),
                     notes="a query over %d records: this one %s" % (
                         len(cases), "passes" if i in passed else "fails"))
            c["expected"] = {"results": [{"$any": True}]} if i in passed else {"error": outs[i]["results"][0]["code"]}
            self.cases.append(c)
        other = [e for e in errs if e.get("code") != 27]
        if other:
            code = other[0]["code"]
            raise getattr(gps.EX, CODE_EXC.get(code, "ServerError"))(other[0]["error"], code)
        return [keys[i] for i in passed]

    def run(self, rec_key, ops, filt=None, note=None, case_bin=None):
        """One case on the stored record rec_key; returns the output line
        and stores the record as the case left it."""
        exc = self.expected_error()
        if exc and all(issubclass(c, gps.EX.ParamError) for c in exc):
            raise gps.EX.ParamError("a client-side refusal: not sent")
        key = (self.cfile, self.tname)
        self.counts[key] = self.counts.get(key, 0) + 1
        c = {"id": "python/%s/%s/%d" % (self.cfile, self.tname, self.counts[key])}
        rec = self.records.get(rec_key)
        if rec is None:
            c["record_exists"] = False
        else:
            c["bins"] = {b: cj(v) for b, v in rec["bins"].items()}
            if rec.get("ttl") not in (None, 0):
                c["ttl"] = rec["ttl"]
            if rec.get("send_key"):
                c["send_key"] = True
        if case_bin is not None:  # CDT ops: their bin is the case's bin
            b, kind = case_bin
            v = c.get("bins", {}).pop(b, None)
            c["bin_name"], c["bin_type"] = b, kind
            if kind != "bytes":
                order = v.get("$order", "UNORDERED") if isinstance(v, dict) and "$map" in v else "UNORDERED_LIST"
                c["order"] = order if kind == "map" else "UNORDERED_LIST"
            c["initial"] = gps.as_initial(kind, v) if v is not None else None
        if filt is not None:
            c["filter"] = filt
        c["ops"] = ops
        if note:
            c["notes"] = note
        if uses_time([filt, ops]):
            self.time_left_out.append(c)
            raise Unsupported("time-dependent metadata")
        p = subprocess.run([self.kvmodel, "cdt", "-"] + self.extra, input=json.dumps(c), capture_output=True,
                           text=True)
        (o,) = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
        if "invalid" in o:
            raise Unsupported("invalid case: " + o["invalid"])
        errs = [r for r in o["results"] if isinstance(r, dict) and "error" in r]
        if exc:
            codes = [getattr(e, "code", None) for e in exc]
            c["expected"] = {"error": [x for x in codes if x is not None] or True}
        self.cases.append(c)
        self.outs[c["id"]] = o
        if o.get("bins") is None:
            self.records.pop(rec_key, None)
        else:
            new = {"bins": {b: gps.to_py(v) for b, v in o["bins"].items()}}
            if rec is not None:
                new.update({k: v for k, v in rec.items() if k != "bins"})
            self.records[rec_key] = new
        if errs:
            code = errs[0]["code"]
            cls = getattr(gps.EX, CODE_EXC.get(code, "ServerError"))
            raise cls("%s" % errs[0]["error"], code)
        return o


H = None


def filt_of(policy):
    e = (policy or {}).get("expressions")
    if e is None:
        return None
    if not isinstance(e, Compiled):
        raise gps.EX.ParamError("expressions is not a compiled expression")
    return timeless(conv(e))


def out_key(key):
    return (key[0], key[1], key[2] if len(key) > 2 else None, b"digest")


class BatchRecord:
    def __init__(self, key, result, record):
        self.key, self.result, self.record = key, result, record
        self.in_doubt = False


class BatchRecords:
    def __init__(self, recs):
        self.batch_records = recs
        self.result = 0


class FakeClient(gps.FakeClient):
    """gen_python_suite's client (connect, close, ...) with the commands
    below keeping records in H.records and making expression cases."""
    case_bin = None  # (bin, kind) of the CDT ops of the operate being translated

    def _rk(self, key):
        return repr(tuple(key[:3]))

    # --- writes
    def put(self, key, bins, meta=None, policy=None, serialization=None):
        rk = self._rk(key)
        f = filt_of(policy)
        if f is not None:
            ops = [{"op": "write_bin", "bin": b, "value": cj(v)} for b, v in bins.items()]
            H.run(rk, ops, f)
            return 0
        rec = H.records.setdefault(rk, {"bins": {}})
        for b, v in bins.items():
            if v is None:
                rec["bins"].pop(b, None)
            else:
                rec["bins"][b] = v
        if meta and "ttl" in meta:
            rec["ttl"] = meta["ttl"]
        if policy and policy.get("key") == 1:
            rec["send_key"] = True
        return 0

    def remove(self, key, meta=None, policy=None):
        rk = self._rk(key)
        f = filt_of(policy)
        if rk not in H.records:
            raise gps.EX.RecordNotFound("no record", 2)
        if f is not None:
            first = next(iter(H.records[rk]["bins"]), "x")
            H.run(rk, [{"op": "read_bin", "bin": first}], f, "a remove with a filter: asked with a read")
        H.records.pop(rk, None)
        return 0

    def remove_bin(self, key, bins, meta=None, policy=None):
        rk = self._rk(key)
        f = filt_of(policy)
        if f is None:
            for b in bins:
                H.records.get(rk, {"bins": {}})["bins"].pop(b, None)
            return 0
        H.run(rk, [{"op": "write_bin", "bin": b, "value": None} for b in bins], f)
        return 0

    # --- reads
    def _read(self, key, policy, bins=None):
        rk = self._rk(key)
        f = filt_of(policy)
        if f is None:
            rec = H.records.get(rk)
            if rec is None:
                raise gps.EX.RecordNotFound("no record", 2)
            return rec
        rec = H.records.get(rk)
        names = bins or (list(rec["bins"]) if rec else ["x"]) or ["x"]
        o = H.run(rk, [{"op": "read_bin", "bin": names[0]}], f)
        rec = H.records.get(rk)
        if rec is None or o.get("bins") is None:
            raise gps.EX.RecordNotFound("no record", 2)
        return rec

    def get(self, key, policy=None):
        rec = self._read(key, policy)
        return out_key(key), {"gen": 1, "ttl": 0}, dict(rec["bins"])

    def select(self, key, bins, policy=None):
        rec = self._read(key, policy, list(bins))
        return out_key(key), {"gen": 1, "ttl": 0}, {b: rec["bins"][b] for b in bins if b in rec["bins"]}

    def exists(self, key, policy=None):
        try:
            self._read(key, policy)
        except gps.EX.RecordNotFound:
            return out_key(key), None
        return out_key(key), {"gen": 1, "ttl": 0}

    def batch_read(self, keys, bins=None, policy=None):
        out = []
        for k in keys:
            try:
                rec = self._read(k, policy, list(bins) if bins else None)
                b = dict(rec["bins"]) if not bins else {x: rec["bins"].get(x) for x in bins}
                out.append(BatchRecord(out_key(k), 0, (out_key(k), {"gen": 1, "ttl": 0}, b)))
            except gps.AerospikeError as x:
                out.append(BatchRecord(out_key(k), x.code if x.code is not None else -1, None))
        return BatchRecords(out)

    def get_many(self, keys, policy=None):
        return [(r.key, None, None) if r.record is None else r.record
                for r in self.batch_read(keys, policy=policy).batch_records]

    # --- operate
    def _ops(self, ops):
        out, names = [], []
        for d in ops:
            o = d.get("op")
            if o == "OP_EXPR_READ":
                if not isinstance(d.get("expr"), Compiled) or not isinstance(d.get("expr_flags", 0), int):
                    raise gps.EX.ParamError("bad expression read")
                out.append({"op": "exp_read", "name": d["bin"], "exp": conv(d["expr"]),
                            "flags": gps.bits(d.get("expr_flags", 0), [(16, "EVAL_NO_FAIL")])})
                names.append(d["bin"])
            elif o == "OP_EXPR_WRITE":
                if not isinstance(d.get("expr"), Compiled) or not isinstance(d.get("expr_flags", 0), int):
                    raise gps.EX.ParamError("bad expression write")
                out.append({"op": "exp_write", "bin": d["bin"], "exp": conv(d["expr"]),
                            "flags": gps.bits(d.get("expr_flags", 0), [(1, "CREATE_ONLY"), (2, "UPDATE_ONLY"),
                                                                       (4, "ALLOW_DELETE"), (8, "POLICY_NO_FAIL"),
                                                                       (16, "EVAL_NO_FAIL")])})
                names.append(None)
            elif o == "OPERATOR_READ":
                out.append({"op": "read_bin", "bin": d["bin"]})
                names.append(d["bin"])
            elif o == "OPERATOR_WRITE":
                out.append({"op": "write_bin", "bin": d["bin"], "value": cj(d["val"])})
                names.append(None)
            elif isinstance(o, str) and o.startswith(("OP_LIST_", "OP_MAP_", "OP_BIT_")):
                kind, b, cop = gps.translate(d)
                if self.case_bin not in (None, (b, kind)):
                    raise Unsupported("CDT ops on two bins in one operate")
                self.case_bin = (b, kind)
                out.append(cop)
                names.append(None if gps.returns_nothing(cop) else b)
            else:
                raise Unsupported("op %s in operate" % o)
        return out, names

    def operate(self, key, list=None, meta=None, policy=None, ordered=False):  # noqa: A002 (the client's name)
        ops = list
        rk = self._rk(key)
        f = filt_of(policy)
        self.case_bin = None
        cops, names = self._ops(ops)
        o = H.run(rk, cops, f, case_bin=self.case_bin)
        # What the test compares each result with becomes the case's
        # expected result (gen_python_suite's recording values).
        c = H.cases[-1]
        want = [{"$any": True}] * len(cops)
        if "expected" not in c:
            c["expected"] = {"results": want}
        res = [(n, gps.wrap(gps.to_py(r), want, i)) for i, (n, r) in enumerate(zip(names, o["results"]))
               if n is not None]
        if ordered:
            return out_key(key), {"gen": 1, "ttl": 0}, gps.ResultList(res)
        return out_key(key), {"gen": 1, "ttl": 0}, gps.ResultDict(res)

    def operate_ordered(self, key, list=None, meta=None, policy=None):  # noqa: A002
        return self.operate(key, list, meta, policy, ordered=True)

    # --- queries and scans: each record of the set the filter visits
    def query(self, ns, set_name=None):
        return Query(self, ns, set_name)

    def scan(self, ns, set_name=None):
        return Query(self, ns, set_name)


class Query:
    def __init__(self, client, ns, set_name):
        self.client, self.ns, self.set = client, ns, set_name
        self.where_pred = None
        self.bins = None

    def select(self, *bins):
        self.bins = list(bins)

    def where(self, pred, *_a):
        raise Unsupported("secondary index query")

    def results(self, policy=None, options=None):
        f = filt_of(policy)
        keys = [rk for rk in H.records if eval(rk)[0] == self.ns and (self.set is None or eval(rk)[1] == self.set)]
        if f is None:
            passed = keys
        else:
            passed = H.run_query(keys, f)
        out = []
        for rk in passed:
            rec = H.records[rk]
            b = dict(rec["bins"]) if not self.bins else {x: rec["bins"][x] for x in self.bins if x in rec["bins"]}
            out.append((out_key(eval(rk)), {"gen": 1, "ttl": 0}, b))
        return out

    def foreach(self, callback, policy=None, options=None, nodename=None):
        for r in self.results(policy):
            if callback(r) is False:
                break

    def execute_background(self, policy=None):
        raise Unsupported("background query")

    def add_ops(self, ops):
        raise Unsupported("query ops")

    def apply(self, *a, **k):
        raise Unsupported("query UDF")


# ============================================================================
# test_expressions_hll.py, written out here: its nine records are alike (the
# same three hll_add ops each, 15 index bits and 49 minhash bits: 225 KB
# sketches), so each test's filter is asked of one record, as an exp_read
# of the filter's verdict. A case's record cannot start with an HLL bin, so
# the bins a test reads are made by the case's first ops (exp_write of
# hll_add_mh on nil, as hll_operations.hll_add makes them) and deleted by its
# last (so the 225 KB sketches are not in every answer); the sketches the
# tests read back with get() are the backend's, and a value the test's And()
# uses twice is bound once (let): an expression with two copies of the
# three-sketch list (over 1 MiB) the server takes and the simulator refuses.
# ============================================================================
HLL_ELEMS = {"hll_bin": range(10000), "hll_bin2": range(5000, 15000), "hll_bin3": range(20000, 30000)}
HLL_NOTE = "one of the test's nine alike records; its HLL bins made by the first ops"


def hll_make(b):
    return ["hll_add_mh", None, {"$list": ["key%d" % i for i in HLL_ELEMS[b]]}, 15, 49, None]


def hll_bits(n):
    return -1 if n is None else n


def hll_file(kvmodel, extra):
    from math import ceil, floor, sqrt
    from suite_lib import run
    cases = []
    b1 = ["bin_hll", "hll_bin"]

    def case(test, n, name, bins, e, expected):
        cases.append({"id": "python/test_expressions_hll/%s/%d" % (test, n), "bins": {"k": 0}, "notes": HLL_NOTE,
                      "ops": [{"op": "exp_write", "bin": b, "exp": hll_make(b)} for b in bins] +
                      [{"op": "exp_read", "name": name, "exp": e}] +
                      [{"op": "exp_write", "bin": b, "exp": None, "flags": ["ALLOW_DELETE"]} for b in bins],
                      "expected": expected})

    def verdict(test, n, bins, e):
        case(test, n, "filter", bins, e, {"results": [None] * len(bins) + [True] + [None] * len(bins)})

    def count_error(bits, expected):
        return expected * (1.04 / sqrt(2 ** bits)) * 8

    def near(e, expected, bits, lo_op="cmp_ge"):
        """The test's And(GE(e, lower), LE(e, upper)), e computed once."""
        lo, hi = floor(expected - count_error(bits, expected)), ceil(expected + count_error(bits, expected))
        return ["let", ["def", "e", e], ["and", [lo_op, ["var", "e"], lo], ["cmp_le", ["var", "e"], hi]]]

    adds = ([None, 15, None], [None, None, None], [None, 15, 49], [["NO_FAIL"], None, None])
    for n, (pol, ib, mh) in enumerate(adds, 1):
        add = ["hll_add_mh", pol, {"$list": ["key%d" % i for i in range(11000, 16000)]}, hll_bits(ib),
               hll_bits(mh), b1]
        verdict("test_hll_add_pos", n, ["hll_bin"], near(["hll_get_count", add], 15000, 15))
    inits = [(None, 12, None, [12, 49]), (None, None, None, [15, 49]), (None, 8, 20, [8, 20]),
             (["CREATE_ONLY", "NO_FAIL"], 15, 49, [15, 49]), (["CREATE_ONLY"], 8, 20, None)]
    for n, (pol, ib, mh, want) in enumerate(inits, 1):
        e = ["hll_describe", ["hll_init_mh", pol, hll_bits(ib), hll_bits(mh), b1]]
        test, n = ("test_hll_init_pos", n) if want else ("test_hll_init_neg", 1)
        case(test, n, "hll_bin", ["hll_bin"], e, {"results": [None, want, None]} if want else {"error": 26})
    (o,) = run(kvmodel, extra, [{"id": "sketches", "bins": {"k": 0}, "ops": [
        {"op": "exp_read", "name": b, "exp": hll_make(b)} for b in HLL_ELEMS]}])
    s1, s2, s3 = ({"$hll": r["$bytes"]} for r in o["results"])
    three = {"$list": [s1, s2, s3]}
    verdict("test_hll_get_union_pos", 1, ["hll_bin"], near(["hll_get_count", ["hll_get_union", three, b1]], 25000, 10))
    verdict("test_hll_get_union_pos", 2, ["hll_bin"], near(["hll_get_count", ["hll_get_union", s3, b1]], 20000, 10))
    verdict("test_hll_get_union_count_pos", 1, ["hll_bin"],
            near(["hll_get_union_count", three, b1], 25000, 10, "cmp_gt"))
    sigma = 1.04 / sqrt(2 ** 10)
    err = sqrt((sigma * 10000) ** 2 * 2 + sigma * 5000 ** 2)
    verdict("test_hll_get_intersect_count_pos", 1, ["hll_bin"],
            ["let", ["def", "e", ["hll_get_intersect_count", {"$list": [s2]}, b1]],
             ["and", ["cmp_ge", ["var", "e"], floor(5000 - err)], ["cmp_le", ["var", "e"], ceil(5000 + err)]]])
    verdict("test_hll_get_similarity_pos", 1, ["hll_bin"],
            ["let", ["def", "e", ["hll_get_similarity", {"$list": [s2]}, b1]],
             ["and", ["cmp_ge", ["var", "e"], {"$double": 0.33 - 0.03}],
              ["cmp_le", ["var", "e"], {"$double": 0.33 + 0.03}]]])
    verdict("test_hll_describe_pos", 1, ["hll_bin"], ["cmp_eq", ["hll_describe", b1], {"$list": [15, 49]}])
    verdict("test_hll_may_contain_pos", 1, ["hll_bin"],
            ["cmp_eq", ["hll_may_contain", {"$list": ["key1", "key2", "key3"]}, b1], 1])
    return cases, run(kvmodel, extra, cases)


def main():
    global H
    kvmodel, client, extra = client_args()
    H = Harness(kvmodel, extra)
    H.mods = {}
    gps.HARNESS = H
    gps.FakeClient = FakeClient
    gps.FILES = FILES
    sys.modules["aerospike"] = gps.AS
    sys.modules["aerospike.exception"] = gps.EX
    sys.path.insert(0, client)
    instrument()
    mods = gps.load_modules(client)
    H.mods = mods
    sys.modules["new_tests.test_base_class"].TestBaseClass.get_connection_config = staticmethod(
        lambda: {"hosts": [("127.0.0.1", 3000)], "user": None, "password": None})
    for f in FILES:
        gps.run_file(f, mods[f])
    hll_cases, hll_outs = hll_file(kvmodel, extra)
    H.cases += hll_cases
    H.outs.update((o["id"], o) for o in hll_outs)
    # A result the test compares in the Python client's shape (a map result
    # as a flat list) is no expectation in the runner's notation: dropped.
    dropped = 0
    for c in H.cases:
        o = H.outs.get(c["id"])
        if o is not None and "results" in c.get("expected", {}) and check_expected.check(c, o):
            c["expected"]["results"] = [{"$any": True}] * len(c["ops"])
            dropped += 1
    print("expectations in the Python client's shapes, left out: %d" % dropped)
    ids = [c["id"] for c in H.cases]
    assert len(ids) == len(set(ids))
    with open(os.path.join(HERE, "python_suite_exp.json"), "w") as fh:
        fh.write("[\n" + ",\n".join(json.dumps(c) for c in H.cases) + "\n]\n")
    print("python_suite_exp: %d cases" % len(H.cases))
    print("left out, time-dependent: %d" % len(H.time_left_out))
    for c in H.time_left_out:
        print("  %s: %s" % (c["id"], json.dumps([c.get("filter"), c["ops"]])[:300]))
    for k, n in sorted(H.stopped.items()):
        print("stopped %dx: %s" % (n, k))


if __name__ == "__main__":
    main()
