#!/usr/bin/env bash
# Runs each named test as `make test-NAME`, keeps its output in $BUILD/test-logs/NAME.log (BUILD
# from the environment, default build), prints one line per test and ends with "N passed, N
# failed[, N skipped]". Exit status 0 only if none failed. A test exits 77 to say it was skipped
# (tests/need.sh does that outside CI).
set -u
logs=${BUILD:-build}/test-logs
mkdir -p "$logs"
pass=0; fail=0; skip=0; failed=""
for t in "$@"; do
  start=$(date +%s.%N)
  ${MAKE:-make} -s --no-print-directory "test-$t" >"$logs/$t.log" 2>&1
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  if [ $rc -eq 0 ]; then
    pass=$((pass + 1)); printf 'PASS  %-34s %6ss\n' "$t" "$secs"
  elif [ $rc -eq 77 ] || grep -q '^make.*Error 77' "$logs/$t.log"; then
    skip=$((skip + 1)); printf 'SKIP  %-34s (%s)\n' "$t" "$(grep -m1 'missing tool' "$logs/$t.log")"
  else
    fail=$((fail + 1)); failed="$failed $t"; printf 'FAIL  %-34s %6ss\n' "$t" "$secs"
    sed 's/^/    | /' "$logs/$t.log" | tail -n 40
  fi
done
[ -n "$failed" ] && echo "failed:$failed"
if [ $skip -gt 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[ $fail -eq 0 ]
