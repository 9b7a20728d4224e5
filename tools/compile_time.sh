#!/usr/bin/env bash
# tools/compile_time.sh — what a user's test file costs to compile, beside a
# typical nlohmann/json test file, on this machine.
#
#   bash tools/compile_time.sh [--repeat N] [--keep DIR]
#
# Compiles, one after another with the same compiler and flags (-std=c++20
# -O0 -g, as a test build does):
#   downstream        bench/compile_time/downstream_test.cpp (Catch2, a
#                     sim::cluster and three patterns instantiated and called),
#                     header-only (kvmodel::kvmodel)
#   downstream+lib    the same file as a user of kvmodel::compiled compiles it
#                     (KVMODEL_SEPARATE_COMPILATION; the library itself is
#                     compiled once and timed on its own line)
#   kvmodel.hpp       a file that only includes <kvmodel/kvmodel.hpp>
#   json              bench/compile_time/json_test.cpp (Catch2 + nlohmann/json)
#   library           the compiled target's one source (<kvmodel/src.hpp>),
#                     for information: built once per program, not per file
# and prints for each the CPU seconds (user + sys, the least of N runs: other
# jobs on a shared machine only ever add time), the ratio to the json file and
# the peak memory (max resident set, from /usr/bin/time -v).
#
# Environment: CXX (default c++), CXXFLAGS (default "-O0 -g").
#
# Where the time goes, per header and per template instantiation (clang's
# -ftime-trace writes DIR/<file>.json beside each object; open it in
# chrome://tracing or https://www.speedscope.app):
#   CXX=clang++-14 CXXFLAGS="-O0 -g -ftime-trace" bash tools/compile_time.sh --keep DIR
# Needs /usr/bin/time (Debian: apt-get install time), Catch2 2.x, nlohmann/json.
set -euo pipefail

repeat=1
keep=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --repeat) repeat=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "usage: bash tools/compile_time.sh [--repeat N] [--keep DIR]" >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cxx=${CXX:-c++}
read -r -a flags <<<"${CXXFLAGS:--O0 -g}"
if [[ ! -x /usr/bin/time ]]; then
    echo "compile_time: /usr/bin/time is missing (Debian: apt-get install time)" >&2
    exit 1
fi

work=${keep:-$(mktemp -d)}
mkdir -p "$work"
[[ -n "$keep" ]] || trap 'rm -rf "$work"' EXIT
printf '#include <kvmodel/kvmodel.hpp>\n' >"$work/kvmodel_alone.cpp"
printf '#include <kvmodel/src.hpp>\n' >"$work/library.cpp"

common=(-std=c++20 "${flags[@]}" -I "$root/include" -c)
separate=(-DKVMODEL_SEPARATE_COMPILATION)

# measure NAME SOURCE [EXTRA FLAGS...] — sets cpu[NAME] and mem[NAME] (MB).
declare -A cpu mem
measure() {
    local name=$1 source=$2
    shift 2
    local best_cpu="" best_mem="" i log
    for ((i = 0; i < repeat; ++i)); do
        log="$work/$name.time"
        if ! /usr/bin/time -v -o "$log" "$cxx" "${common[@]}" "$@" "$source" -o "$work/$name.o"; then
            echo "compile_time: compiling $source failed" >&2
            exit 1
        fi
        local c m
        c=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$log")
        m=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$log")
        if [[ -z "$best_cpu" ]] || awk -v a="$c" -v b="$best_cpu" 'BEGIN { exit !(a < b) }'; then
            best_cpu=$c
        fi
        if [[ -z "$best_mem" ]] || ((m < best_mem)); then best_mem=$m; fi
    done
    cpu[$name]=$best_cpu
    mem[$name]=$best_mem
}

measure json "$root/bench/compile_time/json_test.cpp"
measure downstream "$root/bench/compile_time/downstream_test.cpp"
measure downstream_lib "$root/bench/compile_time/downstream_test.cpp" "${separate[@]}"
measure kvmodel_hpp "$work/kvmodel_alone.cpp"
measure library "$work/library.cpp" "${separate[@]}"

echo "compiler: $("$cxx" --version | head -n 1); flags: -std=c++20 ${flags[*]}; least of $repeat run(s)"
printf '%-16s %8s %9s %9s\n' "file" "CPU s" "vs json" "peak MB"
for name in downstream downstream_lib kvmodel_hpp json library; do
    label=$name
    case "$name" in
        downstream_lib) label="downstream+lib" ;;
        kvmodel_hpp) label="kvmodel.hpp" ;;
        library) label="library (once)" ;;
    esac
    ratio=$(awk -v a="${cpu[$name]}" -v b="${cpu[json]}" 'BEGIN { printf "%.2fx", a / b }')
    printf '%-16s %8s %9s %9s\n' "$label" "${cpu[$name]}" "$ratio" "${mem[$name]}"
done
