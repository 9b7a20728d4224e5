#!/usr/bin/env python3
"""Compares what `kvmodel cdt` answers to a client_suite_* file's cases with
each case's "expected" field: what the Aerospike C client test the case
follows asserts (see gen_client_suite.py for the notation). Lists every
mismatch; exits 1 if there is one.

usage: check_expected.py KVMODEL SUITE.json [kvmodel cdt options, e.g.
       --backend aerospike --host 127.0.0.1:3000]
       check_expected.py --answers ANSWERS.jsonl SUITE.json
       (compare recorded answers, e.g. a .server.jsonl, instead of running)
"""
import json
import subprocess
import sys


def canon_map(v):
    """A map as a key-sorted pair list (the C test reads maps by key)."""
    return sorted((json.dumps(k, sort_keys=True), canon(x)) for k, x in v["$map"])


def canon(v):
    if isinstance(v, dict) and "$map" in v:
        return ["$map", canon_map(v)]
    if isinstance(v, list):
        return [canon(x) for x in v]
    return v


def match(exp, got):
    if isinstance(exp, dict):
        if exp.get("$any"):
            return True
        if "$size" in exp:
            if isinstance(got, dict) and "$map" in got:
                return len(got["$map"]) == exp["$size"]
            return isinstance(got, list) and len(got) == exp["$size"]
        if exp.get("$int"):
            return isinstance(got, int) and not isinstance(got, bool)
        if "$each" in exp:
            return isinstance(got, list) and all(match(exp["$each"], g) for g in got)
        if "$consist" in exp:
            return isinstance(got, list) and consists_of(exp["$consist"], got)
        if "$starts" in exp:
            want = exp["$starts"]
            return isinstance(got, list) and len(got) >= len(want) and all(match(w, g) for w, g in zip(want, got))
        if "$map" in exp:
            if not (isinstance(got, dict) and "$map" in got):
                return False
            a = sorted(((json.dumps(k, sort_keys=True), v) for k, v in exp["$map"]), key=lambda p: p[0])
            b = sorted(((json.dumps(k, sort_keys=True), v) for k, v in got["$map"]), key=lambda p: p[0])
            return len(a) == len(b) and all(ka == kb and match(va, vb) for (ka, va), (kb, vb) in zip(a, b))
    if isinstance(exp, list):
        return isinstance(got, list) and len(exp) == len(got) and all(match(e, g) for e, g in zip(exp, got))
    return exp == got and type(exp) == type(got)


def consists_of(want, got):
    """Whether got is want in some order (gomega's ConsistOf)."""
    if len(want) != len(got):
        return False
    if not want:
        return True
    for j, g in enumerate(got):
        if match(want[0], g) and consists_of(want[1:], got[:j] + got[j + 1:]):
            return True
    return False


def check(case, out):
    exp = case.get("expected")
    if not exp:
        return []
    bad = []
    results = out.get("results", [])
    errors = [r for r in results if isinstance(r, dict) and "error" in r]
    if "error" in exp:
        if exp["error"] is True and errors:
            return bad
        codes = exp["error"] if isinstance(exp["error"], list) else [exp["error"]]
        if not any(r.get("code") in codes for r in errors):
            bad.append("expected error %s, got %s" % (json.dumps(exp["error"]), json.dumps(results)))
        return bad
    if errors:
        bad.append("expected success, got %s" % json.dumps(results))
        return bad
    for i, e in enumerate(exp.get("results", [])):
        g = results[i] if i < len(results) else None
        if not match(e, g):
            bad.append("op %d (%s): expected %s, got %s" % (i, case["ops"][i]["op"], json.dumps(e), json.dumps(g)))
    initial = case.get("initial")
    if case.get("bin_type") == "map" and isinstance(initial, list):
        initial = {"$map": initial}
    if exp.get("unchanged") and not match(initial, out.get("final")):
        bad.append("final: expected the initial bin unchanged, got %s" % json.dumps(out.get("final")))
    if "extends" in exp and not match(initial + exp["extends"], out.get("final")):
        bad.append("final: expected the initial list + %s, got %s" % (json.dumps(exp["extends"]), json.dumps(out.get("final"))))
    if "bin_exists" in exp and out.get("bin_exists", True) != exp["bin_exists"]:
        bad.append("bin_exists: expected %s" % exp["bin_exists"])
    if "final" in exp and not match(exp["final"], out.get("final")):
        bad.append("final: expected %s, got %s" % (json.dumps(exp["final"]), json.dumps(out.get("final"))))
    return bad


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    if args[0] == "--answers":
        answers_path, suite_path, rest = args[1], args[2], []
    else:
        kvmodel, suite_path, rest = args[0], args[1], args[2:]
        answers_path = None
    with open(suite_path) as f:
        cases = json.load(f)
    if answers_path:
        with open(answers_path) as f:
            outs = [json.loads(l) for l in f if l.strip()]
    else:
        p = subprocess.run([kvmodel, "cdt", suite_path] + rest, capture_output=True, text=True)
        outs = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    by_id = {o["id"]: o for o in outs}
    n_bad = 0
    n_exp = 0
    for c in cases:
        o = by_id.get(c["id"])
        if o is None:
            print("%s: no answer" % c["id"])
            n_bad += 1
            continue
        if "invalid" in o:
            print("%s: invalid: %s" % (c["id"], o["invalid"]))
            n_bad += 1
            continue
        if c.get("expected"):
            n_exp += 1
        problems = check(c, o)
        for p in problems:
            print("%s: %s" % (c["id"], p))
        n_bad += bool(problems)
    print("%s: %d cases, %d with expectations, %d mismatched" % (suite_path, len(cases), n_exp, n_bad))
    sys.exit(1 if n_bad else 0)
