#!/bin/sh
# Records scenarios.server.jsonl: what Aerospike answers to the scenarios of
# tests/adapters/multi_record_test.cpp (secondary indexes on a ctx and on
# expressions, batch operate, truncate, paged queries and scans), played
# through the C-client adapter. Needs adapters_tests built with the client
# (-DKVMODEL_AEROSPIKE_ROOT=...) and a server; uses sets named multi2_*.
#   record.sh <build-dir> [host:port]
set -eu
build=${1:?usage: record.sh <build-dir-with-client> [host:port]}
here=$(cd "$(dirname "$0")" && pwd)
AEROSPIKE_HOST=${2:-127.0.0.1:3000} KVMODEL_RECORD="$here/scenarios.server.jsonl" \
    "$build/tests/adapters_tests" "[.record]"
