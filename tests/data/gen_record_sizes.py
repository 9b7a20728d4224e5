#!/usr/bin/env python3
"""Generates seeded random records in `kvmodel record-size`'s input format
(shared/spec/record-size.md) to diff kvmodel's record sizes against a real
Aerospike server: random set names (0..63 bytes), user keys (int, string,
bytes; stored or not), 1..N bins (names 1..15 bytes, sometimes more than 127
or 16,383 bins: the bin count is a varint), scalars at every msgpack and
stored-width boundary, nested lists and maps of random depth with element
counts around the header thresholds (15/16, 65535/65536), top-level orders and persisted indexes with bodies
around the index-entry width thresholds (2^8, 2^16 bytes), and a TTL on some
records ("ttl": seconds; the record then carries a void time).

A record's stored size is rounded up to 16 bytes, which would hide an error
of a few bytes. So --edges emits every record again with a "pad" string bin
(variants "ID#L", L its length) sized so that kvmodel's flat + 4 lands exactly
on a 16-byte boundary and one byte past it: any difference in flat, up or
down, then changes the rounded size of one of the two. --edges reads
kvmodel's flat sizes from the `kvmodel record-size` output of the plain
records (--flat FILE); with --all-pads it emits every L in 0..16 instead,
which pins the server's exact flat size (for minimised cases).

The recorded suite tests/data/record_size_server.json
(tests/tools/record_size_tool_test.cpp) holds the minimised cases of every
divergence found (record_size_minimised.jsonl, all pads) and --seed 1
--count 2000 --small (edge pads), each with the sizes the server stored.
Suite records may give "bins_repeat": {"count": N, "value": v} for bins b0 ..
b{N-1} holding v.

usage: gen_record_sizes.py [--seed S] [--count N] [--small] > records.jsonl
       kvmodel record-size records.jsonl > flat.jsonl
       gen_record_sizes.py --edges records.jsonl --flat flat.jsonl > edged.jsonl
       (write edged.jsonl to a server, one {"id", "record_size"} line per
        record, or {"id", "error": 13} for RECORD_TOO_BIG: server.jsonl)
       gen_record_sizes.py --suite records.jsonl --server server.jsonl > suite.json
"""
import argparse
import json
import random

INT_EDGES = [0, 1, 2, 31, 32, 33, 126, 127, 128, 129, 254, 255, 256, 257,
             32767, 32768, 65534, 65535, 65536, 65537,
             2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**62, 2**63 - 1,
             -1, -2, -31, -32, -33, -34, -127, -128, -129, -130,
             -(2**15) + 1, -(2**15), -(2**15) - 1, -(2**16), -(2**31) + 1, -(2**31),
             -(2**31) - 1, -(2**32), -(2**63) + 1, -(2**63)]
# Stored lengths (msgpack str headers in containers: the type prefix adds one).
LEN_EDGES = [0, 1, 2, 15, 16, 29, 30, 31, 32, 33, 253, 254, 255, 256, 257]
BIG_LEN_EDGES = [65533, 65534, 65535, 65536, 65537]
COUNT_EDGES = [0, 1, 2, 14, 15, 16, 17]
BIG_COUNT_EDGES = [65534, 65535, 65536, 65537]
TEXT = "abcdefghijklmnopqrstuvwxyz0123456789"
UTF8 = ["\u00e9", "\u20ac", "\U0001F600", "\u00df"]  # 2, 3, 4, 2 bytes
NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
# A fixed pool of set names, one per length 0..63 (a namespace holds a limited
# number of sets).
SETS = [("s" + "".join(NAME_CHARS[(i * 7 + j) % 52] for j in range(n - 1)))[:n] for i, n in
        enumerate(range(64))]


# ---- packed sizes (for aiming bodies at index thresholds only; the truth is
# the server, the model under test is kvmodel) -------------------------------
def hdr(n):
    return 1 if n < 16 else (3 if n < 65536 else 5)


def packed(v):
    if v is None or isinstance(v, bool):
        return 1
    if isinstance(v, int):
        if v >= 0:
            return 1 if v < 128 else 2 if v < 256 else 3 if v < 65536 else 5 if v < 2**32 else 9
        return 1 if v >= -32 else 2 if v >= -128 else 3 if v >= -32768 else 5 if v >= -2**31 else 9
    if isinstance(v, str):
        n = len(v.encode()) + 1
        return (1 if n < 32 else 2 if n < 256 else 3 if n < 65536 else 5) + n
    if isinstance(v, list):
        return hdr(len(v)) + sum(packed(e) for e in v)
    if "$double" in v:
        return 9
    if "$bytes" in v:
        n = len(v["$bytes"]) // 2 + 1
        return (1 if n < 32 else 2 if n < 256 else 3 if n < 65536 else 5) + n
    pairs = v["$map"]
    return hdr(len(pairs)) + sum(packed(k) + packed(x) for k, x in pairs)


class Gen:
    def __init__(self, rng, small):
        self.r = rng
        self.small = small
        self.bin_names = sorted({self.name(n) for n in range(1, 16) for _ in range(20)})

    def chance(self, p):
        return self.r.random() < p

    def name(self, n):
        return "".join(self.r.choice(NAME_CHARS) for _ in range(n))

    # ---- scalars ------------------------------------------------------------
    def integer(self):
        k = self.r.random()
        if k < 0.5:
            return self.r.choice(INT_EDGES)
        if k < 0.75:
            return self.r.randint(-40, 300)
        return self.r.randint(-(2**63), 2**63 - 1) >> self.r.randint(0, 63)

    def length(self):
        if not self.small and self.chance(0.01):
            return self.r.choice(BIG_LEN_EDGES)
        if self.chance(0.6):
            return self.r.choice(LEN_EDGES)
        return self.r.randint(0, 40)

    def string(self, n=None):
        n = self.length() if n is None else n
        s = "".join(self.r.choice(TEXT) for _ in range(min(n, 64)))
        s = (s * (n // max(len(s), 1) + 1))[:n] if n > 64 else s
        if n >= 4 and self.chance(0.15):  # multi-byte UTF-8: the size is in bytes
            c = self.r.choice(UTF8)
            s = c + s[len(c.encode()):]
        return s

    def blob(self, n=None):
        n = self.length() if n is None else n
        return {"$bytes": "".join(self.r.choice("0123456789abcdef") for _ in range(2 * min(n, 32)))
                + "ab" * max(n - 32, 0)}

    def double(self):
        return {"$double": self.r.choice([0.0, -0.0, 1.5, -2.25, 1e300, -1e-300, 3.0,
                                          self.r.uniform(-1e6, 1e6)])}

    def scalar(self, nil=False):
        k = self.r.random()
        if k < 0.45:
            return self.integer()
        if k < 0.65:
            return self.string()
        if k < 0.75:
            return self.blob()
        if k < 0.85:
            return self.double()
        if k < 0.93 or not nil:
            return self.chance(0.5)
        return None

    # ---- containers ---------------------------------------------------------
    def count(self, depth):
        if depth == 0 and not self.small and self.chance(0.01):
            return self.r.choice(BIG_COUNT_EDGES)
        if self.chance(0.3):
            return self.r.choice(COUNT_EDGES)
        return self.r.randint(0, 6)

    def element(self, depth, big):
        if big:  # a 65536-element container: 1-byte elements, or nothing fits
            return self.r.randint(-32, 127)
        if depth < 4 and self.chance(0.15):
            return self.container(depth + 1)
        return self.scalar(nil=True)

    def map_key(self, big):
        if big:
            return None
        k = self.r.random()
        if k < 0.5:
            return self.integer()
        if k < 0.85:
            return self.string(self.r.choice([0, 1, 2, 3, 5, 30, 31, 32, 40]))
        return self.blob(self.r.choice([0, 1, 2, 4, 31]))

    def pairs(self, n, depth):
        big = n > 1000
        out, seen = [], set()
        for i in range(n):
            k = i if big else self.map_key(False)
            tag = json.dumps(k)
            if tag in seen:
                continue
            seen.add(tag)
            out.append([k, self.element(depth, big)])
        return out

    def container(self, depth=0):
        n = self.count(depth)
        if self.chance(0.5):
            return [self.element(depth, n > 1000) for _ in range(n)]
        return {"$map": self.pairs(n, depth)}

    def aimed(self, is_map, ordered):
        """A container whose body is aimed at an index-entry width threshold."""
        target = self.r.choice([250, 254, 255, 256, 257, 260] +
                               ([] if self.small else [65530, 65535, 65536, 65537, 65540]))
        if is_map:
            n = self.r.choice([2, 3, 16, 100, 127, 128, 129, 255, 256, 257])
            pairs = [[i, self.r.randint(0, 127)] for i in range(n)]
            body = sum(packed(k) + packed(v) for k, v in pairs)
            if body < target:
                pairs[-1][1] = self.string(max(target - body - 3, 0))
            return {"$map": pairs}
        n = self.r.choice([2, 3, 16, 127, 128, 129, 130, 255, 256, 257, 258])
        items = [self.r.randint(0, 127) for _ in range(n)]
        body = sum(packed(e) for e in items)
        if body < target:
            items[-1] = self.string(max(target - body - 3, 0))
        if ordered:
            items.sort(key=lambda e: (isinstance(e, str), e))
        return items

    # ---- records ------------------------------------------------------------
    def key(self):
        k = self.r.random()
        if k < 0.2:
            return None
        if k < 0.5:
            return self.integer()
        if k < 0.85:
            return self.string(self.r.choice([1, 2, 5, 20, 31, 32, 64, 255, 256]))
        return self.blob(self.r.choice([1, 2, 8, 20, 32]))

    def record(self, i):
        rec = {"id": "r%d" % i}
        if self.chance(0.7):
            n = self.r.choice([0, 1, 2, 62, 63]) if self.chance(0.3) else self.r.randint(0, 63)
            if n:
                rec["set"] = SETS[n]
        k = self.key()
        if k is not None:
            rec["key"] = k
            rec["send_key"] = self.chance(0.5)
        if not self.small and self.chance(0.002):  # a 3-byte bin count from 2^14 bins
            nbins = self.r.choice([16383, 16384])
            names = ["b%d" % i for i in range(nbins)]
        else:
            nbins = self.r.choice([126, 127, 128, 129, 200]) if self.chance(0.03) else \
                self.r.randint(1, 8)
            names = self.r.sample(self.bin_names, nbins)
        bins = {}
        map_order, list_order, persist = {}, {}, {}
        for name in names:
            k = self.r.random()
            if nbins > 100:
                bins[name] = self.r.randint(-1, 300)
            elif k < 0.45:
                bins[name] = self.scalar()
            else:
                aimed = self.chance(0.2)
                is_map = self.chance(0.5)
                if aimed:
                    v = self.aimed(is_map, ordered=self.chance(0.5))
                else:
                    v = self.container()
                bins[name] = v
                if isinstance(v, list):
                    if self.chance(0.5):
                        list_order[name] = self.r.choice(["ORDERED", "UNORDERED_LIST"])
                else:
                    if self.chance(0.6):
                        map_order[name] = self.r.choice(["UNORDERED", "K_ORDERED", "KV_ORDERED"])
                if self.chance(0.5 if aimed else 0.25):
                    persist[name] = self.chance(0.85)
        rec["bins"] = bins
        if map_order:
            rec["map_order"] = map_order
        if list_order:
            rec["list_order"] = list_order
        if persist:
            rec["persist_index"] = persist
        if self.chance(0.15):
            rec["ttl"] = self.r.choice([1000, 86400, 10 * 365 * 86400])
        return rec


def expand(rec):
    """A record in the compact suite form made whole: "bins_repeat": {"count":
    N, "value": v} adds bins b0 .. b{N-1} holding v."""
    rec = dict(rec)
    rep = rec.pop("bins_repeat", None)
    if rep:
        rec["bins"] = dict(rec.get("bins", {}))
        for i in range(rep["count"]):
            rec["bins"]["b%d" % i] = rep["value"]
    return rec


def padded(rec, length):
    v = expand(rec)
    v["id"] = "%s#%d" % (rec["id"], length)
    v["bins"] = dict(v["bins"])
    v["bins"]["pad"] = "p" * length
    return v


def edges(records_path, flat_path, all_pads):
    """Each record (made whole), then its padded variants "id#L": L around a
    16-byte boundary of kvmodel's flat size, or every L in 0..16."""
    flats = {}
    if flat_path:
        with open(flat_path) as f:
            for line in f:
                o = json.loads(line)
                if "flat_size" in o:
                    flats[o["id"]] = o["flat_size"]
    with open(records_path) as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            print(json.dumps(expand(rec)))
            if "pad" in rec["bins"]:
                continue
            if all_pads:
                pads = range(17)
            else:
                flat = flats.get(rec["id"])
                if flat is None:
                    continue
                # A "pad" string bin of length L adds 1 + 3 + 5 + L.
                pad = -(flat + 4 + 9) % 16
                pads = (pad, pad + 1)
            for length in pads:
                print(json.dumps(padded(rec, length)))


def suite(records_path, server_path):
    """The recorded suite: each record in its compact form with what the
    server stored, "expected": {"record_size": S} (or {"fits": false} for
    RECORD_TOO_BIG), and "pads": [[L, S], ...] for its padded variants."""
    server = {}
    with open(server_path) as f:
        for line in f:
            o = json.loads(line)
            if "record_size" in o:
                server[o["id"]] = {"record_size": o["record_size"]}
            elif o.get("error") == 13:
                server[o["id"]] = {"fits": False}
            else:
                raise SystemExit("server error on %s: %s" % (o["id"], o))
    padded_sizes = {}
    for vid, got in server.items():
        base, sep, length = vid.rpartition("#")
        if sep and "record_size" in got:
            padded_sizes.setdefault(base, []).append([int(length), got["record_size"]])
    out = []
    with open(records_path) as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            rec["expected"] = server[rec["id"]]
            pads = sorted(p for p in padded_sizes.get(rec["id"], []))
            if pads:
                rec["pads"] = pads
            out.append(rec)
    print("[")
    print(",\n".join(json.dumps(r) for r in out))
    print("]")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--small", action="store_true",
                    help="no 64 KiB strings or 65536-element containers (the recorded suite)")
    ap.add_argument("--edges", metavar="RECORDS")
    ap.add_argument("--flat", metavar="KVMODEL_OUTPUT")
    ap.add_argument("--all-pads", action="store_true",
                    help="with --edges: pads of 0..16 bytes (pins the exact flat size)")
    ap.add_argument("--suite", metavar="RECORDS")
    ap.add_argument("--server", metavar="PROBE_OUTPUT")
    a = ap.parse_args()
    if a.edges:
        edges(a.edges, a.flat, a.all_pads)
        return
    if a.suite:
        suite(a.suite, a.server)
        return
    g = Gen(random.Random(a.seed), a.small)
    for i in range(a.count):
        print(json.dumps(g.record(i)))


if __name__ == "__main__":
    main()
