#!/usr/bin/env bash
# Usage: tests/check_time.sh [FOLDER]   (FOLDER: an empty build folder; default a temporary one,
# removed after)
# Measures `make check` from a clean build folder: its wall time and CPU time (user+sys of make and
# every process it starts), the tests' own CPU time (the runner's FOLDER/test-logs/times.tsv) and
# so the build's, and estimates its wall time on idle cores (nproc), which a busy machine cannot
# show: the build phase takes at least its CPU time shared by the cores and at least the longest
# program's build (drain's unit-test program, one gcc command over all of drain: timed alone after,
# built again); the tests at least their CPU time shared by the cores and at least the longest
# test's (a test is one process at a time: its CPU time is its wall time when idle).
set -eu
cd "$(dirname "$0")/.."
own=0
if [ $# -gt 0 ]; then b=$1; mkdir -p "$b"; else b=$(mktemp -d); own=1; fi
[ -z "$(ls -A "$b")" ] || { echo "$b is not empty: give an empty build folder" >&2; exit 2; }
b=$(cd "$b" && pwd)
cores=$(nproc 2>/dev/null || echo 2)
rc=0
/usr/bin/time -f '%e %U %S' -o "$b/check.time" make --no-print-directory check BUILD="$b" >"$b/check.out" 2>&1 || rc=$?
tail -n 2 "$b/check.out"
read -r wall user sys <"$b/check.time"
read -r tcpu tlong tname < <(awk -F'\t' '{ c += $4; if ($4 > m) { m = $4; n = $1 } } END { print c + 0, m + 0, n }' "$b/test-logs/times.tsv")
prog=$b/drain/test_drain
rm -f "$prog"
/usr/bin/time -f '%U %S' -o "$b/prog.time" make --no-print-directory -r -s BUILD="$b" "$prog" >/dev/null 2>&1
read -r puser psys <"$b/prog.time"
awk -v w="$wall" -v u="$user" -v s="$sys" -v t="$tcpu" -v tl="$tlong" -v tn="$tname" -v p="$puser" -v ps="$psys" -v n="$cores" 'BEGIN {
  c = u + s; bld = c - t; pl = p + ps
  eb = bld / n > pl ? bld / n : pl; et = t / n > tl ? t / n : tl
  printf "make check from a clean build folder: %.1f s wall, %.1f s CPU (user+sys): build %.1f s, tests %.1f s\n", w, c, bld, t
  printf "longest program to build: drain/test_drain %.1f s CPU; longest test: %s %.1f s CPU\n", pl, tn, tl
  printf "on %d idle cores: build max(%.1f/%d, %.1f) + tests max(%.1f/%d, %.1f) = about %.0f s\n", n, bld, n, pl, t, n, tl, eb + et
}'
[ $own -eq 1 ] && rm -rf "$b"
exit $rc
