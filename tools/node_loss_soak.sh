#!/usr/bin/env bash
# tools/node_loss_soak.sh — the node-loss soak of issue 33 on a REAL
# multi-node Aerospike cluster through the adapter (not run in CI; the
# simulator's version is tests/patterns/node_loss_concurrency_test.cpp).
#
#   bash tools/node_loss_soak.sh --hosts h1:3000,h2:3000 \
#        --kill 'docker kill aerospike2' --restart 'docker start aerospike2' \
#        [--threads 4] [--appends 5000] [--kill-after 5] [--restart-after 10]
#
# Compiles tools/soak/node_loss_soak.cpp against the Aerospike C client (its
# install prefix in AEROSPIKE_ROOT, default /usr) and runs it with these
# arguments: N writers append to a bucketed list of 8 owners, following the
# README's retry contract, while --kill takes a node down and --restart
# brings it back. It prints what was acknowledged, the errors in doubt and
# not, lost, duplicated and empty slots, and the longest pending-claims list;
# it exits non-zero when an acknowledged element is lost or one is stored
# twice. Use a cluster with replication factor 2 or more and let migrations
# finish before reading the numbers twice.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
case "${1:-}" in
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
esac
root=${AEROSPIKE_ROOT:-/usr}
if [[ ! -f "$root/include/aerospike/aerospike.h" ]]; then
    echo "node_loss_soak: no Aerospike C client under $root (set AEROSPIKE_ROOT)" >&2
    exit 2
fi
out=${KVMODEL_BUILD_DIR:-build}/node_loss_soak
mkdir -p "$(dirname "$out")"
lib=$root/lib/libaerospike.a
[[ -f $lib ]] || lib="-L$root/lib -laerospike"
# shellcheck disable=SC2086
c++ -std=c++20 -O2 -DNDEBUG -Iinclude -I"$root/include" tools/soak/node_loss_soak.cpp \
    -o "$out" $lib -lssl -lcrypto -lz -lyaml -lpthread -lm -ldl
exec "$out" "$@"
