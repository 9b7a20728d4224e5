#!/usr/bin/env python3
"""Generates tests/adapters/data/python_suite_{map,list,bit}.json: the scenarios
of the Aerospike Python client's own CDT and bit test suites
(test/new_tests/test_nested_cdt_ctx.py, test_bitwise_operations.py,
test_new_list_operations.py, test_new_list_operation_helpers.py,
test_map_operation_helpers.py, test_operate_map.py, test_operate.py,
test_operate_helpers.py, test_operate_ordered.py, test_relative_cdt_operations.py,
test_inverted_map_operations.py, test_map_write_flags.py,
test_key_ordered_dict_get_by_value.py, test_cdt_compators.py) written as
cdt-json cases (shared/spec/cdt-json.md), like gen_client_suite.py and
gen_java_suite.py do for the C and Java clients.

The Python tests are hundreds of parametrized cases, so they are not
transcribed by hand: this script RUNS them, unchanged, from a checkout of
the client (--client DIR), with stand-ins for the pieces they need:
  - a fake `aerospike` module: the client's constants (their real values),
    aerospike.null(), CDTWildcard(), CDTInfinite(), KeyOrderedDict and the
    exception classes; the real aerospike_helpers package of the checkout
    builds the operation dicts;
  - a fake `pytest` that expands @pytest.mark.parametrize (one run per
    parameter set, pytest.param marks skip/xfail honoured by skipping),
    runs the class's fixtures and records what pytest.raises expects;
  - a fake client whose operate() / operate_ordered() translate the
    operation dicts to cdt-json ops, one case per bin, and run them through
    `kvmodel cdt` (a real server with --backend aerospike --host H). Each bin
    keeps what was put in it plus the ops that succeeded since, and every
    call replays them, so results are exact even where a JSON initial value
    cannot say a nested container is ordered. Results are handed back in the
    Python client's shapes (operate(): one result per bin, the last;
    KEY_VALUE as a flat [k, v, k, v] list; operate_ordered(): (bin, value)
    pairs with KEY_VALUE as (k, v) tuples; results of ops that return nothing
    left out unless the call has a map or bit op, as the C client asks).
    put / get / remove / exists keep the records.
Returned values are wrapped so that what the test compares them with (==)
is recorded: that is the case's "expected" (results of a call, "final" from
a get() that follows it, "error" from pytest.raises), in the notation
gen_client_suite.py describes. Asserts the harness cannot see (len(), `is`,
elements) are simply not recorded.

One case per operate() call and bin; id "python/<file>/<test>/<n>" (n counts
the cases of a test function over all its parameter sets). A case's initial
bin is the bin as the test left it (from the replay); the nested orders a
JSON value cannot carry (map_set_policy / list_set_order with a ctx, e.g.
test_nested_cdt_ctx's setup) are set again by ops put in front ("restore",
as suite_lib does). Each case is checked before it is kept: run alone, it
must give what the replay gave, or it is left out (counted in the summary).
Calls with ops this format has no words for (expressions, HLL, writes of
the same bin in one call, client-side parameter errors) end the test's
recording there. Cases byte-identical to a C/Java suite case or to an
earlier Python case are left out (nested_cdt_ctx's setup call repeats for
every test).

Recorded from aerospike-client-python 8700253d (2026-02-06): 1,670
operate() calls, 1,646 cases of which 874 duplicates are left out, 772
kept (670 with asserts). What stops a test early, and why, is printed at
the end; for the CDT tests it is: a KeyOrderedDict inside a value (a
key-ordered nested map, which cdt-json values cannot say), a value list
that is not a list (the runner takes arrays only), a bit op whose
value_byte_size exceeds its value (the client would read past the buffer),
and tests that pytest.skip themselves.

usage: gen_python_suite.py KVMODEL --client DIR [--backend aerospike --host H[:P]]
       DIR: a checkout of aerospike/aerospike-client-python (test/new_tests
       and aerospike_helpers are used), e.g. from a bare clone:
       git --git-dir=REPO archive HEAD test/new_tests aerospike_helpers | tar -x -C DIR
       Writes the three JSON files beside this script and prints what was
       left out. About 5 minutes: each call runs `kvmodel cdt` two or three
       times (the replay, the case). GEN_PY_ONLY=<test function> runs one
       test; GEN_PY_DEBUG=1 prints the tracebacks of tests that stop.
"""
import contextlib
import importlib
import json
import os
import subprocess
import sys
import time
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from suite_lib import ANY, as_initial, Registry, build  # noqa: E402

FILES = ["test_nested_cdt_ctx", "test_bitwise_operations", "test_new_list_operations",
         "test_new_list_operation_helpers", "test_map_operation_helpers", "test_operate_map", "test_operate",
         "test_operate_helpers", "test_operate_ordered", "test_relative_cdt_operations",
         "test_inverted_map_operations", "test_map_write_flags", "test_key_ordered_dict_get_by_value",
         "test_cdt_compators"]
SUITES = {"map": "python_suite_map", "list": "python_suite_list", "bytes": "python_suite_bit"}
REG = Registry("python", list(SUITES.values()))


class Unsupported(Exception):
    """Something the harness or cdt-json cannot express: the test stops."""


# ============================================================================
# The fake `aerospike` module
# ============================================================================
RT_NAMES = {0: "NONE", 1: "INDEX", 2: "REVERSE_INDEX", 3: "RANK", 4: "REVERSE_RANK", 5: "COUNT", 6: "KEY",
            7: "VALUE", 8: "KEY_VALUE", 13: "EXISTS", 16: "UNORDERED_MAP", 17: "ORDERED_MAP"}
CONSTS = {"MAP_UNORDERED": 0, "MAP_KEY_ORDERED": 1, "MAP_KEY_VALUE_ORDERED": 3,
          "LIST_UNORDERED": 0, "LIST_ORDERED": 1,
          "LIST_WRITE_DEFAULT": 0, "LIST_WRITE_ADD_UNIQUE": 1, "LIST_WRITE_INSERT_BOUNDED": 2,
          "LIST_WRITE_NO_FAIL": 4, "LIST_WRITE_PARTIAL": 8,
          "LIST_SORT_DEFAULT": 0, "LIST_SORT_DESCENDING": 1, "LIST_SORT_DROP_DUPLICATES": 2,
          "MAP_WRITE_FLAGS_DEFAULT": 0, "MAP_WRITE_FLAGS_CREATE_ONLY": 1, "MAP_WRITE_FLAGS_UPDATE_ONLY": 2,
          "MAP_WRITE_FLAGS_NO_FAIL": 4, "MAP_WRITE_FLAGS_PARTIAL": 8, "MAP_WRITE_NO_FAIL": 4,
          "MAP_WRITE_PARTIAL": 8, "MAP_UPDATE": 0, "MAP_UPDATE_ONLY": 2, "MAP_CREATE_ONLY": 1,
          "BIT_WRITE_DEFAULT": 0, "BIT_WRITE_CREATE_ONLY": 1, "BIT_WRITE_UPDATE_ONLY": 2, "BIT_WRITE_NO_FAIL": 4,
          "BIT_WRITE_PARTIAL": 8, "BIT_RESIZE_DEFAULT": 0, "BIT_RESIZE_FROM_FRONT": 1, "BIT_RESIZE_GROW_ONLY": 2,
          "BIT_RESIZE_SHRINK_ONLY": 4, "BIT_OVERFLOW_FAIL": 0, "BIT_OVERFLOW_SATURATE": 2, "BIT_OVERFLOW_WRAP": 4,
          "INTEGER": 0, "AS_BOOL": 1}
for _code, _n in RT_NAMES.items():
    CONSTS["MAP_RETURN_" + _n] = _code
    CONSTS["LIST_RETURN_" + _n] = _code
CONSTS["LIST_RETURN_INVERTED"] = CONSTS["MAP_RETURN_INVERTED"] = 0x10000


class Null:
    pass


class Wildcard:
    pass


class Infinite:
    pass


class KeyOrderedDict(dict):
    pass


def make_aerospike():
    a = types.ModuleType("aerospike")
    a.__dict__.update(CONSTS)
    a.null, a.CDTWildcard, a.CDTInfinite, a.KeyOrderedDict = Null, Wildcard, Infinite, KeyOrderedDict

    def client(*_a, **_k):
        raise Unsupported("aerospike.client()")

    a.client = client
    a.__getattr__ = lambda name: name  # OP_*, OPERATOR_*, CDT_CTX_*, ...: their names
    return a


# exception classes by result code
class AerospikeError(Exception):
    code = None

    def __init__(self, msg="", code=None):
        super().__init__(msg)
        self.msg = msg
        if code is not None:
            self.code = code


def make_exceptions():
    ex = types.ModuleType("aerospike.exception")
    tree = {"ClientError": "AerospikeError", "ServerError": "AerospikeError", "RecordError": "ServerError",
            "ParamError": "ClientError", "InvalidRequest": "ServerError", "OpNotApplicable": "ServerError",
            "ElementNotFoundError": "ServerError", "ElementExistsError": "ServerError",
            "RecordNotFound": "RecordError", "RecordExistsError": "RecordError",
            "BinIncompatibleType": "RecordError", "BinNotFound": "RecordError", "RecordTooBig": "RecordError",
            "BinNameError": "RecordError", "BinExistsError": "RecordError"}
    codes = {"ParamError": -2, "InvalidRequest": 4, "OpNotApplicable": 26, "ElementNotFoundError": 23,
             "ElementExistsError": 24, "RecordNotFound": 2, "RecordExistsError": 5, "BinIncompatibleType": 12,
             "BinNotFound": 17, "RecordTooBig": 13, "BinNameError": 21, "BinExistsError": 6}
    ex.AerospikeError = AerospikeError
    for name in tree:  # parents are defined before children
        cls = type(name, (getattr(ex, tree[name]),), {"code": codes.get(name)})
        setattr(ex, name, cls)
    ex.by_code = {c: getattr(ex, n) for n, c in codes.items()}

    def other(name):
        if name.startswith("__"):
            raise AttributeError(name)
        cls = type(name, (ex.ServerError,), {"code": None})
        setattr(ex, name, cls)
        return cls

    ex.__getattr__ = other
    return ex


AS = make_aerospike()
EX = make_exceptions()
AS.exception = EX


# ============================================================================
# The fake `pytest`
# ============================================================================
class Skipped(Exception):
    pass


class Failed(Exception):
    pass


class ParamSet:
    def __init__(self, values, marks=(), id=None):
        self.values, self.marks = values, marks if isinstance(marks, (list, tuple)) else [marks]


class Mark:
    def __init__(self, name, args, kwargs):
        self.name, self.args, self.kwargs = name, args, kwargs

    def __call__(self, f):
        if isinstance(f, type):
            return f
        f.__dict__.setdefault("_marks", []).append(self)
        return f


class MarkGen:
    def __getattr__(self, name):
        def factory(*args, **kwargs):
            if name != "parametrize" and len(args) == 1 and callable(args[0]) and not kwargs:
                return Mark(name, (), {})(args[0])
            return Mark(name, args, kwargs)
        return factory


class RaisesCM:
    def __init__(self, expected, *_a, **_k):
        self.expected = expected if isinstance(expected, tuple) else (expected,)
        self.value = None

    def __enter__(self):
        HARNESS.expect.append(self.expected)
        return self

    def __exit__(self, et, ev, tb):
        HARNESS.expect.pop()
        if et is None:
            raise Failed("DID NOT RAISE %s" % (self.expected,))
        if issubclass(et, self.expected):
            self.value = ev
            return True
        return False


def make_pytest():
    p = types.ModuleType("pytest")
    p.mark = MarkGen()
    p.param = lambda *values, marks=(), id=None: ParamSet(values, marks, id)
    p.raises = RaisesCM

    def fixture(*args, **kwargs):
        def deco(f):
            f._fixture = kwargs
            return f
        if len(args) == 1 and callable(args[0]):
            return deco(args[0])
        return deco

    p.fixture = fixture

    def skip(*_a, **_k):
        raise Skipped()

    def fail(msg="", *_a, **_k):
        raise Failed(msg)

    p.skip = p.xfail = p.importorskip = skip
    p.fail = fail
    p.approx = lambda x, *a, **k: x
    return p


# ============================================================================
# Values: Python <-> cdt-json
# ============================================================================
def to_cj(v, bound=False):
    """A Python value as a cdt-json value; bound: a range bound, where
    None / aerospike.null() is {"$nil": true}."""
    if v is None or isinstance(v, Null):
        return {"$nil": True} if bound else None
    if isinstance(v, Wildcard):
        return {"$wildcard": True}
    if isinstance(v, Infinite):
        return {"$inf": True}
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        if not -2 ** 63 <= v < 2 ** 63:
            raise Unsupported("integer out of int64")
        return int(v)
    if isinstance(v, float):
        return {"$double": float(v)}
    if isinstance(v, str):
        return str(v)
    if isinstance(v, (bytes, bytearray)):
        if type(v).__name__ == "HyperLogLog":
            raise Unsupported("HyperLogLog")
        return {"$bytes": bytes(v).hex()}
    if isinstance(v, (list, tuple)):
        return [to_cj(x) for x in v]
    if isinstance(v, dict):
        if isinstance(v, KeyOrderedDict):
            raise Unsupported("a KeyOrderedDict nested in a value")
        return {"$map": [[to_cj(k), to_cj(x)] for k, x in v.items()]}
    raise Unsupported("value of type %s" % type(v).__name__)


def to_py(v, ordered=False):
    """A printed cdt-json value as the Python client gives it back."""
    if isinstance(v, list):
        return [to_py(x) for x in v]
    if isinstance(v, dict):
        if "$map" in v:
            d = KeyOrderedDict() if ordered else {}
            for k, x in v["$map"]:
                d[hashable(to_py(k))] = to_py(x)
            return d
        if "$double" in v:
            return float(v["$double"])
        if "$bytes" in v:
            return bytearray(bytes.fromhex(v["$bytes"]))
        raise Unsupported("result %r" % v)
    return v


def hashable(k):
    if isinstance(k, list):
        return tuple(hashable(x) for x in k)
    if isinstance(k, bytearray):
        return bytes(k)
    if isinstance(k, dict):
        raise Unsupported("map key that is a map")
    return k


def expect_cj(v, shape=None):
    """What a test compares a result with, in the runner's notation."""
    if shape == "kv_flat" and isinstance(v, (list, tuple)) and len(v) % 2 == 0:
        return [[expect_cj(v[i]), expect_cj(v[i + 1])] for i in range(0, len(v), 2)]
    if isinstance(v, Recorded):
        raise Unsupported("compares two results")
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return v
    if isinstance(v, float):
        return {"$double": v}
    if isinstance(v, (bytes, bytearray)):
        return {"$bytes": bytes(v).hex()}
    if isinstance(v, (list, tuple)):
        return [expect_cj(x) for x in v]
    if isinstance(v, dict):
        return {"$map": [[expect_cj(k), expect_cj(x)] for k, x in v.items()]}
    raise Unsupported("expected value of type %s" % type(v).__name__)


# Returned values that note what they are compared with.
class Recorded:
    pass


def _recording(base):
    def eq(self, other):
        if not isinstance(other, Recorded):
            self._note(other)
        return base.__eq__(self, other)

    def note(self, other):
        where, key, shape = self._where
        try:
            where[key] = expect_cj(other, shape)
        except Unsupported:
            pass

    return type("R" + base.__name__, (Recorded, base), {"__eq__": eq, "__ne__": lambda s, o: not eq(s, o),
                                                       "__hash__": base.__hash__, "_note": note})


R_TYPES = {t: _recording(t) for t in (list, dict, bytearray, int, str, float)}


def wrap(v, where, key, shape=None):
    """v, noting comparisons into where[key] (shape: how to read them)."""
    t = type(v)
    if t is bool or v is None:
        return v
    if t is KeyOrderedDict:
        t = dict
    if t not in R_TYPES:
        return v
    r = R_TYPES[t](v)
    r._where = (where, key, shape)
    return r


class ResultDict(dict):
    """operate()'s bins: == with a dict notes each bin's expectation."""

    def __eq__(self, other):
        if isinstance(other, dict):
            ok = set(self) == set(other)
            for k in other:
                if k in self:
                    ok = (self[k] == other[k]) and ok
            return ok
        return dict.__eq__(self, other)

    __hash__ = None


class ResultList(list):
    """operate_ordered()'s (bin, value) list: == compares every entry."""

    def __eq__(self, other):
        if isinstance(other, (list, tuple)):
            ok = len(self) == len(other)
            for a, b in zip(self, other):
                ok = (a == b) and ok
            return ok
        return list.__eq__(self, other)

    __hash__ = None


# ============================================================================
# Operation dicts -> cdt-json ops
# ============================================================================
MAP_ORDERS = {0: "UNORDERED", 1: "K_ORDERED", 3: "KV_ORDERED"}
LIST_ORDERS = {0: "UNORDERED_LIST", 1: "ORDERED"}


def bits(v, names):
    if not isinstance(v, int) or isinstance(v, bool):
        raise EX.ParamError("flags")
    out = [n for b, n in names if v & b]
    if v & ~sum(b for b, _ in names):
        raise Unsupported("flags %d" % v)
    return out


LIST_FLAGS = [(1, "ADD_UNIQUE"), (2, "INSERT_BOUNDED"), (4, "NO_FAIL"), (8, "PARTIAL")]
MAP_FLAGS = [(1, "CREATE_ONLY"), (2, "UPDATE_ONLY"), (4, "NO_FAIL"), (8, "PARTIAL")]


def need(d, k):
    if k not in d:
        raise EX.ParamError("missing %s" % k)
    return d[k]


def need_int(d, k):
    v = need(d, k)
    if not isinstance(v, int) or isinstance(v, bool):
        raise EX.ParamError("%s is not an integer" % k)
    return v


def ctx_of(d):
    out = []
    for c in d.get("ctx") or []:
        kind = {"CDT_CTX_LIST_INDEX": "list_index", "CDT_CTX_LIST_RANK": "list_rank",
                "CDT_CTX_LIST_VALUE": "list_value", "CDT_CTX_MAP_INDEX": "map_index", "CDT_CTX_MAP_KEY": "map_key",
                "CDT_CTX_MAP_RANK": "map_rank", "CDT_CTX_MAP_VALUE": "map_value",
                "CDT_CTX_LIST_INDEX_CREATE": "list_index_create",
                "CDT_CTX_MAP_KEY_CREATE": "map_key_create"}.get(getattr(c, "id", None))
        if kind is None:
            raise Unsupported("ctx %r" % getattr(c, "id", c))
        field = {"list_index": "index", "list_rank": "rank", "list_value": "value", "map_index": "index",
                 "map_key": "key", "map_rank": "rank", "map_value": "value", "list_index_create": "index",
                 "map_key_create": "key"}[kind]
        if field in ("index", "rank") and (not isinstance(c.value, int) or isinstance(c.value, bool)):
            raise EX.ParamError("ctx %s is not an integer" % field)
        s = {"type": kind, field: to_cj(c.value)}
        extra = c.extra_args or {}
        if kind == "list_index_create":
            s["order"] = LIST_ORDERS.get(extra.get("order_key", 0)) or bad("list order")
            if extra.get("pad_key"):
                s["pad"] = True
        elif kind == "map_key_create":
            s["order"] = MAP_ORDERS.get(extra.get("order_key", 0)) or bad("map order")
        out.append(s)
    return out


def bad(what):
    raise Unsupported(what)


def rt_of(d, default=None):
    if default is not None and "return_type" not in d:
        return RT_NAMES[default], bool(d.get("inverted"))  # the client's default for map ops
    rt = need_int(d, "return_type")
    inv = bool(rt & 0x10000) or bool(d.get("inverted"))
    rt &= ~0x10000
    return RT_NAMES.get(rt, rt), inv


def translate(d):
    """One operation dict -> (kind, bin, cdt-json op): kind "list", "map",
    "bytes" or "plain" (a plain record op: read, write, ...)."""
    name = need(d, "op")
    if not isinstance(name, str):
        raise Unsupported("op %r" % (name,))
    if name.startswith("OPERATOR_"):
        return "plain", d.get("bin"), dict(d)
    b = need(d, "bin")
    if name.startswith("OP_LIST_"):
        return "list", b, list_op(name[8:].lower(), d)
    if name.startswith("OP_MAP_"):
        return "map", b, map_op(name[7:].lower(), d)
    if name.startswith("OP_BIT_"):
        return "bytes", b, bit_op(name[7:].lower(), d)
    raise Unsupported(name)


def finish(o, d, inv=False, rt=None):
    if rt is not None:
        o["return_type"] = rt
    if inv:
        o["inverted"] = True
    c = ctx_of(d)
    if c:
        o["ctx"] = c
    return o


def list_policy(o, d):
    pol = d.get("list_policy")
    if pol:
        if "write_flags" in pol:
            f = bits(pol["write_flags"], LIST_FLAGS)
            if f:
                o["flags"] = f
        if "list_order" in pol:
            o["policy_order"] = LIST_ORDERS.get(pol["list_order"]) or bad("list order")


def list_op(n, d):
    a = {}
    o = {"op": "list_" + n}
    if n in ("append", "insert", "set"):
        a["value"] = to_cj(need(d, "val"))
    if n in ("append_items", "insert_items"):
        v = need(d, "val")
        if not isinstance(v, list):
            raise EX.ParamError("values")
        a["values"] = to_cj(v)
    if n in ("insert", "insert_items", "set", "increment", "pop", "pop_range", "remove", "remove_range", "get",
             "get_range", "trim", "get_by_index", "get_by_index_range", "remove_by_index",
             "remove_by_index_range"):
        a["index"] = need_int(d, "index")
    if n == "increment":
        v = need(d, "val")
        a["delta"] = to_cj(v)
    if n in ("pop_range", "remove_range", "get_range", "trim"):
        a["count"] = need_int(d, "val")
    if n in ("append", "append_items", "insert", "insert_items", "set", "increment"):
        list_policy(o, d)
    rt = inv = None
    if "_by_" in n:
        rt, inv = rt_of(d)
        kind = n.split("_by_")[1]
        if kind in ("rank", "rank_range"):
            a["rank"] = need_int(d, "rank")
        if kind in ("index_range", "rank_range", "value_rank_range_rel") and d.get("count") is not None:
            a["count"] = need_int(d, "count")
        if kind in ("value", "value_rank_range_rel"):
            a["value"] = to_cj(need(d, "val"))
        if kind == "value_rank_range_rel":
            o["op"] = o["op"].replace("value_rank_range_rel", "value_rel_rank_range")
            a["rank"] = need_int(d, "rank")
        if kind == "value_list":
            v = need(d, "value_list")
            if not isinstance(v, list):
                raise EX.ParamError("value_list")
            a["values"] = to_cj(v)
        if kind == "value_range":
            if "value_begin" in d:
                a["begin"] = to_cj(d["value_begin"], True)
            if "value_end" in d:
                a["end"] = to_cj(d["value_end"], True)
    if n == "set_order":
        a["order"] = LIST_ORDERS.get(need(d, "list_order")) or bad("list order")
    if n == "sort":
        f = d.get("sort_flags", 0) or 0
        if f & ~2:
            raise Unsupported("sort flags %d" % f)
        if f:
            o["flags"] = ["DROP_DUPLICATES"]
    if n == "create":
        a["order"] = LIST_ORDERS.get(need(d, "list_order")) or bad("list order")
        a["pad"] = bool(d.get("pad"))
        a["persist_index"] = bool(d.get("persist_index"))
    if a:
        o["args"] = a
    return finish(o, d, inv, rt)


def map_policy(o, d):
    pol = d.get("map_policy")
    if pol:
        if "map_write_flags" in pol:
            f = bits(pol["map_write_flags"], MAP_FLAGS)
            if f:
                o["flags"] = f
        if "map_write_mode" in pol:
            raise Unsupported("map_write_mode")
        if "map_order" in pol:
            o["policy_order"] = MAP_ORDERS.get(pol["map_order"]) or bad("map order")
        if pol.get("persist_index"):
            o.setdefault("args", {})["persist_index"] = True


def map_op(n, d):
    a = {}
    o = {"op": "map_" + n}
    rt = inv = None
    if n == "set_policy":
        pol = need(d, "map_policy")
        a["order"] = MAP_ORDERS.get(pol.get("map_order", 0)) or bad("map order")
        if pol.get("persist_index"):
            a["persist_index"] = True
    elif n == "create":
        a["order"] = MAP_ORDERS.get(need(d, "map_order")) or bad("map order")
        if d.get("persist_index"):
            a["persist_index"] = True
    elif n == "put":
        a["key"], a["value"] = to_cj(need(d, "key")), to_cj(need(d, "val"))
    elif n == "put_items":
        v = need(d, "val")
        if not isinstance(v, dict):
            raise EX.ParamError("items")
        a["items"] = [[to_cj(k), to_cj(x)] for k, x in v.items()]
    elif n in ("increment", "decrement"):
        a["key"], a["delta"] = to_cj(need(d, "key")), to_cj(need(d, "val"))
    elif n in ("size", "clear"):
        pass
    elif "_by_" in n:
        rt, inv = rt_of(d, 0)
        kind = n.split("_by_")[1]
        if kind == "key":
            a["key"] = to_cj(need(d, "key"))
        elif kind == "key_list":
            v = need(d, "val")
            if not isinstance(v, list):
                raise EX.ParamError("keys")
            a["keys"] = to_cj(v)
        elif kind == "key_range":
            # the get takes its end from "range", the remove from "val"
            a["begin"] = to_cj(need(d, "key"), True)
            a["end"] = to_cj(need(d, "range" if n.startswith("get") else "val"), True)
        elif kind == "value":
            a["value"] = to_cj(need(d, "val"))
        elif kind == "value_list":
            v = need(d, "val")
            if not isinstance(v, list):
                raise EX.ParamError("values")
            a["values"] = to_cj(v)
        elif kind == "value_range":
            a["begin"], a["end"] = to_cj(need(d, "val"), True), to_cj(need(d, "range"), True)
        elif kind == "index":
            a["index"] = need_int(d, "index")
        elif kind == "index_range":
            a["index"], a["count"] = need_int(d, "index"), need_int(d, "val")
        elif kind == "rank":
            a["rank"] = need_int(d, "index")
        elif kind == "rank_range":
            a["rank"], a["count"] = need_int(d, "index"), need_int(d, "val")
        elif kind == "value_rank_range_rel":
            o["op"] = o["op"].replace("value_rank_range_rel", "value_rel_rank_range")
            a["value"], a["rank"] = to_cj(need(d, "val")), need_int(d, "rank")
            if d.get("count") is not None:
                a["count"] = need_int(d, "count")
        elif kind == "key_index_range_rel":
            o["op"] = o["op"].replace("key_index_range_rel", "key_rel_index_range")
            a["key"], a["index"] = to_cj(need(d, "key")), need_int(d, "index")
            if d.get("count") is not None:
                a["count"] = need_int(d, "count")
        else:
            raise Unsupported(n)
    else:
        raise Unsupported(n)
    if n in ("put", "put_items", "increment", "decrement"):
        if a:
            o["args"] = a
        map_policy(o, d)
        a = o.pop("args", {})
    if a:
        o["args"] = a
    return finish(o, d, inv, rt)


def bit_op(n, d):
    a = {}
    o = {"op": "bit_" + n}
    pol = d.get("policy")
    if pol and pol.get("bit_write_flags"):
        o["flags"] = bits(pol["bit_write_flags"], MAP_FLAGS)
    if n == "resize":
        a["byte_size"] = need_int(d, "byte_size")
        a["resize_flags"] = bits(d.get("resize_flags") or 0, [(1, "FROM_FRONT"), (2, "GROW_ONLY"), (4, "SHRINK_ONLY")])
    elif n == "insert":
        a["byte_offset"] = need_int(d, "byte_offset")
        a["value"] = blob(d)
    elif n == "remove":
        a["byte_offset"], a["byte_size"] = need_int(d, "byte_offset"), need_int(d, "byte_size")
    else:
        a["bit_offset"], a["bit_size"] = need_int(d, "bit_offset"), need_int(d, "bit_size")
        if n in ("set", "or", "xor", "and"):
            a["value"] = blob(d)
        elif n in ("lshift", "rshift"):
            a["shift"] = need_int(d, "value")
        elif n in ("add", "subtract"):
            a["value"], a["signed"] = need_int(d, "value"), bool(d.get("sign"))
            a["action"] = {0: "FAIL", 2: "SATURATE", 4: "WRAP"}.get(d.get("action")) or bad("overflow action")
        elif n == "set_int":
            a["value"] = need_int(d, "value")
        elif n in ("lscan", "rscan"):
            a["value"] = bool(need(d, "value"))
        elif n == "get_int":
            a["signed"] = bool(d.get("sign"))
        elif n not in ("not", "get", "count"):
            raise Unsupported(n)
    o["args"] = a
    return o


def blob(d):
    """The first value_byte_size bytes of value, as the client sends them."""
    v = need(d, "value")
    if not isinstance(v, (bytes, bytearray)):
        raise EX.ParamError("value is not bytes")
    n = d.get("value_byte_size", len(v))
    if not isinstance(n, int) or n > len(v) or n < 0:
        raise Unsupported("value_byte_size %r of %d bytes" % (n, len(v)))
    return {"$bytes": bytes(v[:n]).hex()}


PLAIN_OPS = {"OPERATOR_READ", "OPERATOR_WRITE", "OPERATOR_TOUCH", "OPERATOR_INCR", "OPERATOR_APPEND",
             "OPERATOR_PREPEND", "OPERATOR_DELETE"}


def plain_op(client, key, r, b, o):
    """A record op on a bin no CDT op of the call touches: kept locally
    (it makes no case; a wrong-type incr/append is not modelled)."""
    st = r.bins.get(b)
    cur = to_py(st.cur) if st is not None and st.exists else None
    name = o["op"]
    if name == "OPERATOR_READ":
        o["_read"] = cur
    elif name == "OPERATOR_WRITE":
        client.put(key, {b: o.get("val")})
    elif name == "OPERATOR_INCR":
        v = o.get("val")
        if type(v) not in (int, float) or (cur is not None and type(cur) is not type(v)):
            raise Unsupported("increment of a %s by a %s" % (type(cur).__name__, type(v).__name__))
        client.put(key, {b: (cur or 0) + v})
    elif name in ("OPERATOR_APPEND", "OPERATOR_PREPEND"):
        v = o.get("val")
        kind = str if isinstance(v, str) else bytes if isinstance(v, (bytes, bytearray)) else None
        if kind is None or (cur is not None and not isinstance(cur, str if kind is str else (bytes, bytearray))):
            raise Unsupported("append to a %s of a %s" % (type(cur).__name__, type(v).__name__))
        cur = cur if cur is not None else kind()
        client.put(key, {b: cur + v if name == "OPERATOR_APPEND" else v + cur})
    elif name == "OPERATOR_DELETE":
        HARNESS.records[rkey(key)] = Record()


# ops that, without a map or bit op in the call, send back no result
NO_RESULT = {"list_set", "list_clear", "list_sort", "list_set_order", "list_create"}


def returns_nothing(o):
    if o["op"] in NO_RESULT:
        return True
    return o.get("return_type") == "NONE"


# ============================================================================
# Records and the fake client
# ============================================================================
class Bin:
    """One bin: what was put in it (base), the ops that succeeded since
    (hist), its value now (cur) and the nested-order ops to restore."""

    def __init__(self, value):
        self.base = value  # cdt-json, None: the bin was never put
        self.base_type, self.base_order = kind_of(value)
        self.hist = []
        self.cur = value
        self.exists = value is not None
        self.order = self.base_order
        self.order_ops = []
        self.last = None  # the expectation dict of the last call, while the bin is as it left it


def kind_of(v):
    if isinstance(v, dict) and "$map" in v:
        return "map", "UNORDERED"
    if isinstance(v, list):
        return "list", "UNORDERED_LIST"
    if isinstance(v, dict) and "$bytes" in v:
        return "bytes", None
    return None, None


class Record:
    def __init__(self):
        self.bins = {}

    def exists(self):
        return any(b.exists for b in self.bins.values())


def run_kvmodel(cases):
    if not cases:
        return []
    for attempt in range(6):
        p = subprocess.run([HARNESS.kvmodel, "cdt", "-"] + HARNESS.extra,
                           input="\n".join(json.dumps(c) for c in cases), capture_output=True, text=True)
        if "Failed to connect" not in p.stderr:
            break
        time.sleep(2 + 3 * attempt)  # thousands of short connections: wait for ports to free up
    out = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    if len(out) != len(cases):
        raise RuntimeError("kvmodel: %s" % p.stderr)
    for o in out:
        if "invalid" in o:
            raise RuntimeError("invalid case: %s" % o["invalid"])
    return out


def case_for(bin_type, order, rec_exists, initial, ops):
    c = {"id": "x", "bin_type": bin_type}
    if bin_type != "bytes":
        c["order"] = order or {"map": "UNORDERED", "list": "UNORDERED_LIST"}[bin_type]
    if not rec_exists:
        c["record_exists"] = False
    c["initial"] = as_initial(bin_type, initial)
    c["ops"] = ops
    return c


def same(a, b):
    return json.dumps(a.get("results"), sort_keys=True) == json.dumps(b.get("results"), sort_keys=True) and \
        json.dumps(a.get("final"), sort_keys=True) == json.dumps(b.get("final"), sort_keys=True) and \
        a.get("bin_exists", True) == b.get("bin_exists", True)


class Harness:
    def __init__(self):
        self.expect = []
        self.records = {}
        self.stats = {"calls": 0, "cases": 0, "unfaithful": 0, "restored": 0, "split_error": 0}
        self.stopped = {}
        self.unfaithful = []

    def start_test(self, cfile, tname):
        self.cfile, self.tname = cfile, tname
        self.records = {}
        self.expect = []


HARNESS = Harness()


def rkey(key):
    return repr(key)


class FakeClient:
    def connect(self, *a, **k):
        return self

    def close(self):
        pass

    def is_connected(self):
        return True

    def _rec(self, key):
        return HARNESS.records.setdefault(rkey(key), Record())

    def put(self, key, bins, meta=None, policy=None, *a, **k):
        r = self._rec(key)
        for name, v in bins.items():
            if isinstance(v, KeyOrderedDict):
                b = Bin({"$map": [[to_cj(x), to_cj(y)] for x, y in v.items()]})
                b.order = b.base_order = "K_ORDERED"
            elif v is None or isinstance(v, Null):
                b = Bin(None)
            else:
                b = Bin(to_cj(v))
            r.bins[name] = b
        return 0

    def get(self, key, policy=None):
        r = self._rec(key)
        if not r.exists():
            raise EX.RecordNotFound("record not found", 2)
        out = ResultDict()
        for name, b in r.bins.items():
            if b.exists:
                ordered = b.order in ("K_ORDERED", "KV_ORDERED")
                if b.last is not None:
                    out[name] = wrap(to_py(b.cur, ordered), b.last, "final")
                else:
                    out[name] = to_py(b.cur, ordered)
        return key, {"gen": 1, "ttl": 0}, out

    def select(self, key, bins, policy=None):
        k, m, out = self.get(key)
        return k, m, ResultDict({b: out[b] for b in bins if b in out})

    def exists(self, key, policy=None):
        r = self._rec(key)
        return key, ({"gen": 1, "ttl": 0} if r.exists() else None)

    def remove(self, key, meta=None, policy=None):
        r = self._rec(key)
        if not r.exists():
            raise EX.RecordNotFound("record not found", 2)
        HARNESS.records[rkey(key)] = Record()
        return 0

    def remove_bin(self, key, bins, meta=None, policy=None):
        r = self._rec(key)
        for name in bins:
            r.bins[name] = Bin(None)
        return 0

    def operate(self, key, ops, meta=None, policy=None):
        return self._operate(key, ops, False)

    def operate_ordered(self, key, ops, meta=None, policy=None):
        return self._operate(key, ops, True)

    def __getattr__(self, name):
        raise Unsupported("client.%s" % name)

    def _operate(self, key, ops, ordered):
        expected = HARNESS.expect[-1] if HARNESS.expect else None
        if expected and all(issubclass(x, EX.ClientError) for x in expected):
            raise EX.ParamError("a client-side error the test expects: not sent")
        if not isinstance(ops, list) or not ops:
            raise EX.ParamError("ops")
        tr = [translate(d) for d in ops]
        r = self._rec(key)
        cdt_bins = []
        for kind, b, o in tr:
            if kind != "plain" and b not in cdt_bins:
                cdt_bins.append(b)
        for kind, b, o in tr:
            if kind == "plain" and b in cdt_bins and o["op"] != "OPERATOR_READ":
                raise Unsupported("a record op on a CDT bin in the same call")
            if kind == "plain" and (o["op"] not in PLAIN_OPS or (o["op"] == "OPERATOR_DELETE" and cdt_bins)):
                raise Unsupported(o["op"])
        respond_all = any(kind in ("map", "bytes") for kind, _, _ in tr)
        rec_exists = r.exists()
        HARNESS.stats["calls"] += 1
        # run each CDT bin's ops: the replay (exact) and the case (checked)
        per_bin = {}
        for b in cdt_bins:
            st = r.bins.setdefault(b, Bin(None))
            bops = [("read" if k == "plain" else k, {"op": "read"} if k == "plain" else o)
                    for k, bb, o in tr if bb == b]
            kinds = [k for k, _ in bops if k != "read"]
            bin_type = (st.base_type if st.base is not None else None) or kind_of(st.cur)[0] or kinds[0]
            cur_ops = [o for _, o in bops]
            base_exists = rec_exists or (st.base is not None)
            replay = case_for(bin_type, st.base_order, base_exists if st.base is not None else rec_exists,
                              st.base, st.hist + cur_ops)
            per_bin[b] = dict(st=st, ops=cur_ops, bin_type=kind_of(st.cur)[0] if st.exists and kind_of(st.cur)[0]
                              else bin_type, replay=replay)
        outs = run_kvmodel([v["replay"] for v in per_bin.values()])
        error = None
        for (b, v), o in zip(per_bin.items(), outs):
            n = len(v["ops"])
            res = o["results"][-n:]
            head = o["results"][:-n]
            if any(isinstance(x, dict) and "error" in x for x in head):
                raise RuntimeError("replay of %s failed before the call: %s" % (b, o))
            v["out"] = {"results": res, "final": o["final"], "bin_exists": o.get("bin_exists", True)}
            errs = [x for x in res if isinstance(x, dict) and "error" in x]
            v["error"] = errs[0]["code"] if errs else None
            if errs:  # the replay's whole operate failed: the bin stays as the call found it
                v["out"]["final"], v["out"]["bin_exists"] = (v["st"].cur, True) if v["st"].exists else (None, False)
            if errs and error is None:
                error = (errs[0]["code"], b)
        # the cases, one per bin
        recs = {}
        for b, v in per_bin.items():
            if error is not None and v["error"] is None:
                HARNESS.stats["split_error"] += 1
                continue  # the call fails on another bin: this bin's part alone would not
            recs[b] = self._case(r, b, v, rec_exists, expected)  # sets v["restored"]
        if error is not None:
            code, b = error
            if expected and recs.get(b) is not None:
                # what pytest.raises names: one code, several, or any error
                codes = [x.code for x in expected if x.code is not None]
                recs[b]["error"] = codes[0] if len(codes) == 1 else (codes or True)
                del recs[b]["results"]
            for bb in per_bin:
                per_bin[bb]["st"].last = None
            cls = EX.by_code.get(code, EX.ServerError)
            raise cls("error %d" % code, code)
        # success: the bins move on
        for b, v in per_bin.items():
            st = v["st"]
            st.hist += v["ops"]
            track_order(st, v["ops"], v["bin_type"])
            st.cur, st.exists = v["out"]["final"], v["out"]["bin_exists"]
            st.last = recs.get(b)
        for kind, b, o in tr:
            if kind == "plain" and b not in per_bin:
                plain_op(self, key, r, b, o)
        # the Python client's answer
        pos = {b: 0 for b in per_bin}
        answers = []
        for kind, b, o in tr:
            if b in per_bin:
                i = pos[b]
                pos[b] += 1
                cj_op = per_bin[b]["ops"][i]
                val = per_bin[b]["out"]["results"][i]
                if kind == "plain":
                    answers.append((b, to_py(val), None, None))
                    continue
                if not respond_all and returns_nothing(cj_op):
                    continue
                shape = None
                if cj_op.get("return_type") == "KEY_VALUE" and isinstance(val, list):
                    if ordered:
                        py = [tuple(to_py(x) for x in p) for p in val]
                    else:
                        py = [to_py(x) for p in val for x in p]
                        shape = "kv_flat"
                else:
                    py = to_py(val, cj_op.get("return_type") == "ORDERED_MAP")
                answers.append((b, py, recs.get(b), (i + per_bin[b].get("restored", 0), shape)))
            elif kind == "plain":
                if o["op"] == "OPERATOR_READ":
                    answers.append((b, o["_read"], None, None))
                elif respond_all:
                    answers.append((b, None, None, None))
        if ordered:
            out = ResultList()
            for b, py, rec, at in answers:
                out.append((b, self._wrap(py, rec, at)))
        else:
            last = {}
            for a in answers:
                last[a[0]] = a
            out = ResultDict()
            for b, (_, py, rec, at) in last.items():
                out[b] = self._wrap(py, rec, at)
        return key, {"gen": 1, "ttl": 0}, out

    @staticmethod
    def _wrap(py, rec, at):
        if rec is None or at is None:
            return py
        i, shape = at
        return wrap(py, rec["results"], i, shape)

    def _case(self, r, b, v, rec_exists, expected):
        """The call's case for bin b, checked against the replay; returns
        its expectation dict (filled in as the test compares), or None."""
        st = v["st"]
        cur_type = kind_of(st.cur)[0] if st.exists else None
        bin_type = cur_type or v["bin_type"]
        if bin_type is None:
            return None
        initial = st.cur if st.exists else None
        tries = []
        if st.order_ops:
            tries.append(st.order_ops)
        tries.append([])
        for restore in tries:
            c = case_for(bin_type, st.order if st.exists else None, rec_exists, initial, restore + v["ops"])
            o = run_kvmodel([c])[0]
            o["results"] = o["results"][len(restore):]
            if same(o, v["out"]):
                break
        else:
            if os.environ.get("GEN_PY_DEBUG"):
                print("replay", json.dumps(v["replay"]), json.dumps(v["out"]), "case", json.dumps(o))
            HARNESS.stats["unfaithful"] += 1
            HARNESS.unfaithful.append("%s/%s (bin %s): %s" % (HARNESS.cfile, HARNESS.tname, b, json.dumps(c)))
            return None
        if restore:
            HARNESS.stats["restored"] += 1
        v["restored"] = len(restore)
        suite = SUITES[bin_type]
        t = REG.test(suite, HARNESS.cfile, HARNESS.tname, bin_type, c.get("order"))
        if not rec_exists:
            t.reset()
        elif st.exists:
            t.start(as_initial(bin_type, initial))
        else:
            t.absent()
        t.call(v["ops"], restore=restore or None)
        exp = t.calls[-1]["exp"]
        exp["results"] = [ANY] * len(restore + v["ops"])
        HARNESS.stats["cases"] += 1
        return exp


def track_order(st, ops, bin_type):
    """The bin's top-level order after ops that succeeded; nested order
    ops are kept to be restored."""
    exists = st.exists
    for o in ops:
        if o["op"] == "read":
            continue
        a = o.get("args", {})
        if o.get("ctx"):
            if o["op"] in ("map_set_policy", "list_set_order"):
                st.order_ops.append(o)
            continue
        if o["op"] in ("map_set_policy", "list_set_order"):
            st.order = a["order"]
        elif not exists and o["op"] in ("map_create", "list_create"):
            st.order = a["order"]
        elif not exists and not o["op"].startswith("bit_") and "_get" not in o["op"] and o["op"] not in (
                "list_size", "map_size"):
            st.order = o.get("policy_order") or {"map": "UNORDERED", "list": "UNORDERED_LIST"}.get(
                o["op"].split("_")[0])
        exists = True


# ============================================================================
# Running the test files
# ============================================================================
def expand(f):
    """Parameter sets of a test function: list of kwargs dicts (None when
    a mark says skip)."""
    marks = getattr(f, "_marks", [])
    sets = [{}]
    for mk in marks:
        if mk.name in ("skip", "xfail") or (mk.name == "skipif" and mk.args and mk.args[0]):
            return []
        if mk.name != "parametrize":
            continue
        names = mk.args[0]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        vals = []
        for p in mk.args[1]:
            if isinstance(p, ParamSet):
                if any(getattr(m, "name", "") in ("skip", "xfail") for m in p.marks):
                    vals.append(None)
                    continue
                p = p.values if len(names) > 1 else p.values[0]
            vals.append(dict(zip(names, p)) if len(names) > 1 else {names[0]: p})
        sets = [None if (s is None or v is None) else {**s, **v} for s in sets for v in vals]
    return sets


class FakeRequest:
    def __init__(self, cls):
        self.cls = cls
        self.node = types.SimpleNamespace(name="test")
        self.fin = []

    def addfinalizer(self, f):
        self.fin.append(f)


def run_file(cfile, mod):
    for cname, cls in list(vars(mod).items()):
        if not (isinstance(cls, type) and cname.startswith("Test")):
            continue
        fixtures = {n: f for n, f in vars(cls).items() if callable(f) and hasattr(f, "_fixture")}
        mfixtures = {n: f for n, f in vars(mod).items() if callable(f) and hasattr(f, "_fixture")}
        if any(getattr(m, "name", "") == "skip" for m in getattr(cls, "pytestmark", []) or []):
            continue
        for tname, f in list(vars(cls).items()):
            if not (tname.startswith("test") and callable(f)):
                continue
            if os.environ.get("GEN_PY_ONLY") and os.environ["GEN_PY_ONLY"] != tname:
                continue
            for params in expand(f):
                if params is None:
                    HARNESS.stats.setdefault("skipped_params", 0)
                    HARNESS.stats["skipped_params"] += 1
                    continue
                run_one(cfile, cls, tname, f, params, fixtures, mfixtures)


def run_one(cfile, cls, tname, f, params, fixtures, mfixtures):
    HARNESS.start_test(cfile, tname)
    self = cls.__new__(cls)
    client = FakeClient()
    cls.as_connection = client
    cls.server_version = [8, 1]
    cls.string_server_version = "8.1.2"
    cls.skip_old_server = False
    cls.config = {"hosts": [("127.0.0.1", 3000)]}
    cls.client_no_typechecks = client
    req = FakeRequest(cls)
    teardown = []
    values = {"as_connection": client, "request": req}

    def resolve(name):
        if name in values:
            return values[name]
        fx = fixtures.get(name) or mfixtures.get(name)
        if fx is None:
            raise Unsupported("fixture %s" % name)
        return call_fixture(fx, name in fixtures)

    def call_fixture(fx, bound):
        code = fx.__code__
        argn = list(code.co_varnames[:code.co_argcount])
        if bound:
            argn = argn[1:]
        args = [resolve(n) for n in argn]
        res = fx(self, *args) if bound else fx(*args)
        if isinstance(res, types.GeneratorType):
            v = next(res)
            teardown.append(res)
            return v
        return res

    code = f.__code__
    try:
        for n, fx in list(mfixtures.items()) + list(fixtures.items()):
            if fx._fixture.get("autouse"):
                values[n] = call_fixture(fx, n in fixtures)
        argn = list(code.co_varnames[1:code.co_argcount])
        kwargs = {n: (params[n] if n in params else resolve(n)) for n in argn}
        f(self, **kwargs)
    except (Unsupported, Skipped, Failed, AssertionError, AerospikeError, RuntimeError, Exception) as x:
        kind = type(x).__name__
        if isinstance(x, RuntimeError):
            raise
        key = "%s/%s: %s %s" % (cfile, tname, kind, str(x).split("\n")[0][:100])
        HARNESS.stopped[key] = HARNESS.stopped.get(key, 0) + 1
        if os.environ.get("GEN_PY_DEBUG") and not isinstance(x, (Unsupported, Skipped)):
            traceback.print_exc()
    finally:
        for g in teardown:
            with contextlib.suppress(BaseException):
                next(g)


def load_modules(client_dir):
    sys.modules["aerospike"] = AS
    sys.modules["aerospike.exception"] = EX
    sys.modules["pytest"] = make_pytest()
    sys.path.insert(0, client_dir)
    sys.path.insert(0, os.path.join(client_dir, "test"))
    pkg = types.ModuleType("new_tests")
    pkg.__path__ = [os.path.join(client_dir, "test", "new_tests")]
    sys.modules["new_tests"] = pkg
    base = types.ModuleType("new_tests.test_base_class")

    class TestBaseClass:
        major_ver, minor_ver, patch_ver = 8, 1, 2
        using_enterprise = using_auth = using_tls = False
        user = password = None

        @staticmethod
        def get_connection_config():
            return {"hosts": [("127.0.0.1", 3000)]}

        @staticmethod
        def get_new_connection(*_a, **_k):
            return FakeClient()

    base.TestBaseClass = TestBaseClass
    sys.modules["new_tests.test_base_class"] = base
    return {f: importlib.import_module("new_tests." + f) for f in FILES}


def known_cases():
    """The C and Java suites' cases, to leave out byte-identical ones."""
    seen = set()
    for name in os.listdir(HERE):
        if (name.startswith("client_suite_") or name.startswith("java_suite_")) and name.endswith(".json"):
            with open(os.path.join(HERE, name)) as fh:
                for c in json.load(fh):
                    seen.add(case_key(c))
    return seen


def case_key(c):
    return json.dumps([c.get("bin_type"), c.get("order"), c.get("record_exists", True), c.get("initial"), c["ops"]],
                      sort_keys=True)


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[1] != "--client":
        sys.exit(__doc__)
    HARNESS.kvmodel, client_dir, HARNESS.extra = args[0], args[2], args[3:]
    mods = load_modules(client_dir)
    for cfile, mod in mods.items():
        run_file(cfile, mod)
    # leave out byte-identical cases (with the C/Java suites, or earlier ones)
    seen = known_cases()
    dropped = 0
    for suite, tests in REG.suites.items():
        keep = []
        for t in tests:
            cl = t.calls[0]
            if "results" in cl["exp"] and all(x == ANY for x in cl["exp"]["results"]):
                del cl["exp"]["results"]
            c = dict(cl["case"])
            c["record_exists"] = not cl["fresh"]
            c["initial"] = cl["given"] if isinstance(cl["given"], (list, dict, str, int, float, bool)) else None
            c["ops"] = cl["ops"]
            k = case_key(c) + json.dumps(cl["exp"], sort_keys=True)
            if k in seen or case_key(c) in seen:
                dropped += 1
                continue
            seen.add(k)
            seen.add(case_key(c))
            keep.append(t)
        tests[:] = keep
    build(REG, HARNESS.kvmodel, HARNESS.extra)
    print("calls %(calls)d, cases %(cases)d, nested orders restored in %(restored)d, " % HARNESS.stats +
          "left out: %d duplicate, %d not reproducible from a JSON initial, %d bin parts of calls failing on "
          "another bin" % (dropped, HARNESS.stats["unfaithful"], HARNESS.stats["split_error"]))
    for u in HARNESS.unfaithful:
        print("  not reproducible: %s" % u[:300])
    print("tests stopped early (count over parameter sets):")
    for k, n in sorted(HARNESS.stopped.items()):
        print("  %3d %s" % (n, k))


if __name__ == "__main__":
    main()
