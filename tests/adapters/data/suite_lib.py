#!/usr/bin/env python3
"""What gen_client_suite.py and gen_java_suite.py share: the cdt-json op and
ctx builders, the "expected" notation (described in gen_client_suite.py), and
the Test / Registry / build machinery that chains a client test's calls
through `kvmodel cdt` so each case starts from the bin the previous call left.
"""
import json
import os
import subprocess
import sys

ANY = {"$any": True}
NIL = {"$nil": True}
INF = {"$inf": True}
WILD = {"$wildcard": True}


def size(n):
    return {"$size": n}


def starts(*xs):
    return {"$starts": list(xs)}


def d(x):
    return {"$double": x}


def m(*pairs):
    """A map nested in a value: m((k, v), ...)."""
    return {"$map": [list(p) for p in pairs]}


def hx(s):
    return {"$bytes": s}


# ops whose order= is their own argument; for the others it is the policy's
ORDER_ARG_OPS = {"map_set_policy", "map_create", "list_create", "list_set_order"}


def op(name, rt=None, inv=False, flags=None, ctx=None, order=None, **args):
    o = {"op": name}
    if args:
        o["args"] = args
    if rt is not None:
        o["return_type"] = rt
    if inv:
        o["inverted"] = True
    if flags:
        o["flags"] = flags
    if order is not None:
        if name in ORDER_ARG_OPS:
            o.setdefault("args", {})["order"] = order
        else:
            o["policy_order"] = order
    if ctx:
        o["ctx"] = ctx
    return o


# ctx steps
def _step(kind, field):
    return lambda x: {"type": kind, field: x}


c_li, c_lr, c_lv = _step("list_index", "index"), _step("list_rank", "rank"), _step("list_value", "value")
c_mi, c_mk = _step("map_index", "index"), _step("map_key", "key")
c_mr, c_mv = _step("map_rank", "rank"), _step("map_value", "value")


def c_lic(i, order="UNORDERED_LIST", pad=False):
    s = {"type": "list_index_create", "index": i, "order": order}
    if pad:
        s["pad"] = True
    return s


def c_mkc(k, order="UNORDERED"):
    return {"type": "map_key_create", "key": k, "order": order}


ABSENT = object()


class Test:
    def __init__(self, reg, suite, cfile, name, bin_type, order):
        self.reg = reg
        self.suite, self.cfile, self.name = suite, cfile, name
        self.bin_type, self.order = bin_type, order
        self.calls = []          # each: dict(case, fresh, initial_given)
        self.fresh = True        # next call starts on a missing record
        self.given = None

    def reset(self, order=None):
        """The test removes the record (aerospike_key_remove)."""
        self.fresh = True
        self.given = None
        if order is not None:
            self.order = order

    def start(self, initial, order=None):
        """The test writes the bin whole (a put), e.g. a list bin."""
        self.fresh = False
        self.given = initial
        if order is not None:
            self.order = order

    def absent(self):
        """The record exists but the test's bin does not."""
        self.fresh = False
        self.given = ABSENT

    def call(self, ops, results=None, final=None, error=None, order=None, note=None, name=None, restore=None,
             **more):
        """One operate() of the test; order: the bin's order after it (when
        the call changes it); name: the C test it belongs to when one record
        is carried across tests (ids count calls per C test)."""
        if restore:
            # An initial value cannot say that a nested container is ordered:
            # the earlier calls' nested orders are set again first.
            ops = restore + ops
            if results is not None:
                results = [None] * len(restore) + results
            rn = "the first %d op(s) restore the nested order the test's earlier calls left" % len(restore)
            note = rn if note is None else note + "; " + rn
        key = (self.cfile, name or self.name)
        counts = self.reg.counts
        counts[key] = counts.get(key, 0) + 1
        exp = {}
        if results is not None:
            assert len(results) == len(ops), (self.name, len(self.calls) + 1)
            exp["results"] = results
        if final is not None:
            exp["final"] = final
        if error is not None:
            exp["error"] = error
        exp.update(more)
        c = {"id": "%s/%s/%s/%d" % (self.reg.prefix, key[0], key[1], counts[key]),
             "bin_type": self.bin_type, "order": self.order}
        if note:
            c["notes"] = note
        self.calls.append({"case": c, "ops": ops, "exp": exp, "fresh": self.fresh, "given": self.given})
        if order is not None:
            self.order = order  # the bin's order once this call has run
        self.fresh = False
        self.given = None
        return self


class Registry:
    """The tests of one generator: suite name -> its tests in file order;
    case ids are "<prefix>/<file>/<test>/<n>"."""

    def __init__(self, prefix, suites):
        self.prefix = prefix
        self.suites = {s: [] for s in suites}
        self.counts = {}

    def test(self, suite, cfile, name, bin_type, order=None):
        if order is None:
            order = {"map": "UNORDERED", "list": "UNORDERED_LIST", "bytes": None}[bin_type]
        t = Test(self, suite, cfile, name, bin_type, order)
        self.suites[suite].append(t)
        return t


def as_initial(bin_type, final):
    """A printed final bin as a case's initial bin."""
    if final is None:
        return None
    if bin_type == "map" and isinstance(final, dict) and "$map" in final:
        return final["$map"]
    return final


def spread(xs):
    """At most three of xs: all of them, or the first, the middle and the last."""
    if len(xs) <= 3:
        return xs
    return [xs[0], xs[len(xs) // 2], xs[-1]]


def client_args():
    """The command line of a generator that reads a client checkout:
    KVMODEL --client DIR [--backend B] [--host H]; (kvmodel, dir, the
    `kvmodel cdt` options)."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("kvmodel")
    ap.add_argument("--client", required=True)
    ap.add_argument("--backend")
    ap.add_argument("--host")
    a = ap.parse_args()
    extra = (["--backend", a.backend] if a.backend else []) + (["--host", a.host] if a.host else [])
    return a.kvmodel, a.client, extra


def run(kvmodel, extra, cases):
    if not cases:
        return []
    p = subprocess.run([kvmodel, "cdt", "-"] + extra, input="\n".join(json.dumps(c) for c in cases),
                       capture_output=True, text=True)
    out = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    for c, o in zip(cases, out):
        if "invalid" in o:
            sys.exit("invalid case %s: %s" % (c["id"], o["invalid"]))
    assert len(out) == len(cases), p.stderr
    return out


def build(reg, kvmodel, extra, outdir=os.path.dirname(os.path.abspath(__file__))):
    for suite, tests in reg.suites.items():
        # Run call k of every test in one batch, k = 1, 2, ...
        finals = {id(t): (None, False) for t in tests}
        cases_out = {}
        depth = max((len(t.calls) for t in tests), default=0)
        for k in range(depth):
            batch = []
            for t in tests:
                if k >= len(t.calls):
                    continue
                cl = t.calls[k]
                c = dict(cl["case"])
                if c["order"] is None:
                    del c["order"]
                final, rec_exists = finals[id(t)]
                if cl["given"] is ABSENT:
                    rec_exists, c["initial"] = True, None
                elif cl["given"] is not None:
                    rec_exists, c["initial"] = True, cl["given"]
                elif cl["fresh"] or not rec_exists:
                    rec_exists, c["initial"] = False, None
                    c["record_exists"] = False
                else:
                    c["initial"] = as_initial(t.bin_type, final)
                c["_rec"] = rec_exists
                c["ops"] = cl["ops"]
                if cl["exp"]:
                    c["expected"] = cl["exp"]
                batch.append((t, c))
            for _, c in batch:
                c["_rec"] = c.pop("_rec")
            recs = [c.pop("_rec") for _, c in batch]
            out = run(kvmodel, extra, [c for _, c in batch])
            for (t, c), o, rec in zip(batch, out, recs):
                exists = o.get("bin_exists", True)
                finals[id(t)] = (o["final"] if exists else None, rec or exists)
                cases_out[c["id"]] = c
        ordered = [cases_out[cl["case"]["id"]] for t in tests for cl in t.calls]
        path = os.path.join(outdir, suite + ".json")
        with open(path, "w") as f:
            f.write("[\n")
            f.write(",\n".join(json.dumps(c) for c in ordered))
            f.write("\n]\n")
        print("%s: %d cases" % (suite, len(ordered)))


