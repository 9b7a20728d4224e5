#!/usr/bin/env python3
"""Reads a real server's statistics for the capacity data sets into
tests/data/capacity_server.json (replayed by tests/sim/capacity_server_test.cpp).

First write the data sets (tests/sim/capacity_datasets.hpp) with
  AEROSPIKE_HOST=127.0.0.1:3000 adapters_tests "[.record_capacity]"
then run this script (host and port as arguments, 127.0.0.1 3000 by default).
It speaks the info protocol: `build`, `sets/test` (objects and data_used_bytes
per set) and `sindex-stat:namespace=test;indexname=...`.
"""
import json
import socket
import struct
import sys


def info(host, port, cmd):
    s = socket.create_connection((host, port), timeout=5)
    body = (cmd + "\n").encode()
    s.sendall(struct.pack(">Q", (2 << 56) | (1 << 48) | len(body)) + body)
    head = b""
    while len(head) < 8:
        head += s.recv(8 - len(head))
    n = struct.unpack(">Q", head)[0] & ((1 << 48) - 1)
    data = b""
    while len(data) < n:
        data += s.recv(n - len(data))
    s.close()
    out = data.decode().rstrip("\n")
    return out.split("\t", 1)[1] if "\t" in out else out


def fields(text, sep=":"):
    return dict(x.split("=", 1) for x in text.split(sep) if "=" in x)


def main():
    host = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1"
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    out = {"server": info(host, port, "build"), "sets": {}, "sindexes": {}}
    for entry in info(host, port, "sets/test").split(";"):
        f = fields(entry)
        if f.get("set", "").startswith("cap_"):
            out["sets"][f["set"]] = {"objects": int(f["objects"]),
                                     "data_used_bytes": int(f["data_used_bytes"])}
    for name in ("cap_ix20", "cap_ix21"):
        f = fields(info(host, port, "sindex-stat:namespace=test;indexname=" + name), ";")
        out["sindexes"][name] = {"entries": int(f["entries"]), "used_bytes": int(f["used_bytes"])}
    out["sets"] = dict(sorted(out["sets"].items()))
    json.dump(out, sys.stdout, indent=1)
    print()


main()
