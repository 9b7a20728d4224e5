#!/usr/bin/env python3
"""Generates seeded random cdt-json HLL cases (shared/spec/cdt-json.md,
"HyperLogLog bins") to diff the simulator's HLL engine against a real
Aerospike server: every HLL op, with every subset of the write flags on the
ops that take them, index bits 4..16 and minhash bits 0 / 4..51 (and values
just out of range), over a missing record, a record without the bin, an HLL
bin built in the same operate, and bins of other types; operand sketches
(set_union, get_union, the counts, similarity) of matching and mismatched
bits, empty ones, and malformed ones (bad size, flags, bits).

Operand sketches are built here (`$hll` hex) with the server's element hash
(MurmurHash3 x64_128, seed 0, over the element's client msgpack encoding)
and register packing; the generator computes no estimates - the answers are
the server's (hll_random.server.jsonl, recorded with `kvmodel cdt --backend
aerospike`) and the simulator's.

Sketch sizes are kept small (index bits above 10 in a few cases only,
minhash bits capped for wider sketches) so the files stay a few MB.

usage: gen_hll_cases.py [--seed S] [--count N] > hll_random.json
  then: kvmodel cdt hll_random.json > sim.jsonl
        kvmodel cdt --backend aerospike --host 127.0.0.1:3000 hll_random.json > server.jsonl
        diff sim.jsonl server.jsonl
"""
import argparse
import json
import random
import struct

M64 = (1 << 64) - 1
FLAGS = ["CREATE_ONLY", "UPDATE_ONLY", "NO_FAIL", "ALLOW_FOLD"]


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def fmix(k):
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & M64
    k ^= k >> 33
    return k


def murmur3_x64_128(data):
    c1, c2 = 0x87C37B91114253D5, 0x4CF5AD432745937F
    h1 = h2 = 0
    n = len(data) // 16
    for i in range(n):
        k1, k2 = struct.unpack_from("<QQ", data, i * 16)
        k1 = (rotl((k1 * c1) & M64, 31) * c2) & M64
        h1 ^= k1
        h1 = (rotl(h1, 27) + h2) & M64
        h1 = (h1 * 5 + 0x52DCE729) & M64
        k2 = (rotl((k2 * c2) & M64, 33) * c1) & M64
        h2 ^= k2
        h2 = (rotl(h2, 31) + h1) & M64
        h2 = (h2 * 5 + 0x38495AB5) & M64
    tail = data[n * 16:]
    k1 = k2 = 0
    for i in range(len(tail) - 1, 7, -1):
        k2 ^= tail[i] << (8 * (i - 8))
    if len(tail) > 8:
        h2 ^= (rotl((k2 * c2) & M64, 33) * c1) & M64
    for i in range(min(len(tail), 8) - 1, -1, -1):
        k1 ^= tail[i] << (8 * i)
    if tail:
        h1 ^= (rotl((k1 * c1) & M64, 31) * c2) & M64
    h1 ^= len(data)
    h2 ^= len(data)
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    h1, h2 = fmix(h1), fmix(h2)
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    return h1, h2


def msgpack(v):
    """The client's encoding of an element (ints, strings with prefix 3)."""
    if isinstance(v, int):
        if 0 <= v < 128:
            return bytes([v])
        if -32 <= v < 0:
            return struct.pack("b", v)
        if v >= 0:
            for lim, code, fmt in ((1 << 8, 0xCC, ">B"), (1 << 16, 0xCD, ">H"), (1 << 32, 0xCE, ">I")):
                if v < lim:
                    return bytes([code]) + struct.pack(fmt, v)
            return bytes([0xCF]) + struct.pack(">Q", v)
        for lim, code, fmt in ((-(1 << 7), 0xD0, ">b"), (-(1 << 15), 0xD1, ">h"), (-(1 << 31), 0xD2, ">i")):
            if v >= lim:
                return bytes([code]) + struct.pack(fmt, v)
        return bytes([0xD3]) + struct.pack(">q", v)
    b = bytes([3]) + v.encode()
    n = len(b)
    if n < 32:
        return bytes([0xA0 | n]) + b
    if n < 256:
        return bytes([0xD9, n]) + b
    return bytes([0xDA]) + struct.pack(">H", n) + b


def sketch(index_bits, minhash_bits, elements):
    """The sketch's bytes after adding `elements` to an empty one."""
    nb = 6 + minhash_bits
    nregs = 1 << index_bits
    regs = [0] * nregs
    for e in elements:
        h1, h2 = murmur3_x64_128(msgpack(e))
        r = h1 & 0xFFFF & (nregs - 1)
        mh = (h1 >> index_bits) & ((1 << minhash_bits) - 1)
        tz = 64 if h2 == 0 else (h2 & -h2).bit_length() - 1
        val = ((tz + 1) << minhash_bits) | mh
        if regs[r] < val:
            regs[r] = val & ((1 << nb) - 1)
    bits = 0
    for v in regs:
        bits = (bits << nb) | v
    total = nb * nregs
    nbytes = (total + 7) // 8
    bits <<= nbytes * 8 - total
    return bytes([0, index_bits, minhash_bits]) + bytes(8) + bits.to_bytes(nbytes, "big")


def elements(rng, n, base=None):
    base = rng.randrange(0, 5000) if base is None else base
    kind = rng.choice(["int", "str", "mixed"])
    out = []
    for k in range(base, base + n):
        if kind == "int" or (kind == "mixed" and k % 2):
            out.append(k if rng.random() < 0.9 else -k)
        else:
            out.append("user-%d" % k)
    return out


def index_bits(rng, wide=True):
    r = rng.random()
    if r < 0.04:
        return rng.choice([-1, 3, 17, 0])
    if wide and r < 0.07:
        return rng.randint(13, 16)
    return rng.randint(4, 10)


def minhash_bits(rng, ib, cap=51):
    r = rng.random()
    if r < 0.04:
        return rng.choice([-1, 1, 3, 52, -2])
    if r < 0.5:
        return 0
    hi = min(cap, 64 - ib if 4 <= ib <= 16 else 51)
    if hi < 4:
        return 0
    return rng.randint(4, hi)


def flags(rng):
    r = rng.random()
    if r < 0.35:
        return None
    return [f for f in FLAGS if rng.random() < 0.3]


def operand(rng, like=None):
    """A sketch argument: usually valid, sometimes malformed."""
    r = rng.random()
    if like is not None and r < 0.5:
        ib, mh = like
    else:
        ib = rng.randint(4, 9)
        mh = 0 if rng.random() < 0.5 else rng.randint(4, 16 if ib > 6 else 51)
    n = rng.choice([0, 1, 5, 50, 300, 1000])
    s = bytearray(sketch(ib, mh, elements(rng, n)))
    bad = rng.random()
    if bad < 0.03:
        s = s[:-1]
    elif bad < 0.05:
        s[0] = 1
    elif bad < 0.07:
        s[1] = rng.choice([3, 17])
    elif bad < 0.08:
        s = s[:5]
    return {"$hll": bytes(s).hex()}


def bin_setup(rng):
    """Ops that build the bin in the case, its bits, and the case's initial."""
    r = rng.random()
    if r < 0.12:
        return {"record_exists": False}, [], None
    if r < 0.22:
        return {"initial": None}, [], None
    if r < 0.28:
        return {"initial": rng.choice(["text", 7, {"$bytes": "0102"}, [1, 2]])}, [], None
    ib = rng.randint(13, 16) if rng.random() < 0.03 else rng.randint(4, 10)
    mh = minhash_bits(rng, ib, 51 if ib <= 6 else 16) if ib <= 10 else 0
    if mh < 0 or mh in (1, 3) or mh > 51 or ib + mh > 64:
        mh = 0
    if rng.random() < 0.3 and ib <= 9:
        # The bin as an $hll initial (exercises the runner's setup too).
        return {"initial": {"$hll": sketch(ib, mh, elements(rng, rng.choice([0, 10, 400]))).hex()}}, [], (ib, mh)
    n = rng.choice([1, 10, 100, 300])
    op = {"op": "hll_add", "args": {"values": elements(rng, n), "index_bit_count": ib,
                                    "minhash_bit_count": mh}}
    return {"initial": None}, [op], (ib, mh)


def op_under_test(rng, name, bits):
    like = bits
    if name == "hll_init":
        args = {}
        if rng.random() < 0.9:
            args["index_bit_count"] = index_bits(rng)
        if rng.random() < 0.8:
            args["minhash_bit_count"] = minhash_bits(rng, args.get("index_bit_count", 8))
        op = {"op": name, "args": args}
    elif name == "hll_add":
        args = {"values": elements(rng, rng.choice([1, 3, 40, 200]))}
        if rng.random() < 0.8:
            args["index_bit_count"] = index_bits(rng)
        if rng.random() < 0.6:
            args["minhash_bit_count"] = minhash_bits(rng, args.get("index_bit_count", 8))
        if rng.random() < 0.03:
            args["values"] = []
        op = {"op": name, "args": args}
    elif name == "hll_set_union":
        k = rng.choice([1, 1, 2, 3])
        op = {"op": name, "args": {"values": [operand(rng, like) for _ in range(k)]}}
    elif name == "hll_fold":
        op = {"op": name, "args": {"index_bit_count": index_bits(rng, wide=False)}}
    elif name in ("hll_get_union", "hll_get_union_count"):
        k = rng.choice([1, 1, 2, 3])
        op = {"op": name, "args": {"values": [operand(rng, like) for _ in range(k)]}}
    elif name in ("hll_get_intersect_count", "hll_get_similarity"):
        k = rng.choice([1, 1, 1, 2, 3, 4])
        shared = like if like is not None and rng.random() < 0.6 else None
        op = {"op": name, "args": {"values": [operand(rng, shared) for _ in range(k)]}}
    elif name == "hll_may_contain":
        op = {"op": name, "args": {"values": elements(rng, rng.choice([1, 2, 20]))}}
    else:
        op = {"op": name}
    if name in ("hll_init", "hll_add", "hll_set_union"):
        f = flags(rng)
        if f is not None:
            op["flags"] = f
    return op


OPS = ["hll_init", "hll_add", "hll_set_union", "hll_refresh_count", "hll_fold", "hll_get_count",
       "hll_get_union", "hll_get_union_count", "hll_get_intersect_count", "hll_get_similarity",
       "hll_describe", "hll_may_contain"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=2400)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cases = []
    for i in range(a.count):
        name = OPS[i % len(OPS)]
        head, ops, bits = bin_setup(rng)
        ops = list(ops)
        ops.append(op_under_test(rng, name, bits))
        if rng.random() < 0.5:
            ops.append({"op": "hll_get_count"})
        if rng.random() < 0.3:
            ops.append({"op": "hll_describe"})
        case = {"id": "hll/%d/%s" % (i, name), "bin_type": "hll"}
        case.update(head)
        case["ops"] = ops
        cases.append(case)
    print("[")
    print(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
    print("]")


if __name__ == "__main__":
    main()
