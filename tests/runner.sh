#!/usr/bin/env bash
# Runs each named test as `make test-NAME`, keeps its output in $BUILD/test-logs/NAME.log (BUILD
# from the environment, default build), prints one line per test (its wall time and the CPU time,
# user+sys, of it and every process it started) and ends with "N passed, N failed[, N skipped]".
# Exit status 0 only if none failed. A test exits 77 to say it was skipped (tests/need.sh does
# that outside CI). $BUILD/test-logs/times.tsv keeps one row per test: name, PASS/FAIL/SKIP, wall
# seconds, CPU seconds; the line before the last sums them ("tests: N s of CPU; wall N s").
# TEST_LANE (environment): more test names, run one after another in a second lane beside the
# first (make test puts there the cross-architecture, unit and libFuzzer tests, whose build
# outputs no other test shares), so two cores are both busy; their lines are printed as they
# end, and the last line counts both lanes.
# TEST_JOBS (environment, default 1): that many workers share the named tests, each taking the
# next one not yet taken (make check: its programs are built before, so no two tests build the
# same file).
# TEST_MAKEFLAGS (environment): more flags for each `make test-NAME` (make check: -r).
set -u
logs=${BUILD:-build}/test-logs
mkdir -p "$logs"
: >"$logs/times.tsv"

res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT
start_all=$(date +%s.%N)

# run_lane RESULT SHARED NAME...: runs the tests (when SHARED is 1, only those no other worker has
# taken), prints their lines, writes "pass fail skip failed..." to RESULT.
run_lane() {
  local result=$1 shared=$2 t rc secs cpu out st times
  shift 2
  local pass=0 fail=0 skip=0 failed=""
  times=$(mktemp -p "$res")
  local TIMEFORMAT='%R %U %S'
  for t in "$@"; do
    if [ "$shared" = 1 ]; then mkdir "$res/taken.$t" 2>/dev/null || continue; fi
    # in a subshell of its own: time counts the CPU of the children reaped while it runs, and this
    # shell may reap another worker then
    (time ${MAKE:-make} ${TEST_MAKEFLAGS:-} -s --no-print-directory "test-$t" >"$logs/$t.log" 2>&1) 2>"$times"
    rc=$?
    read -r secs cpu <<<"$(awk '{ printf "%.1f %.2f", $1, $2 + $3 }' "$times")"
    if [ $rc -eq 0 ]; then
      st=PASS; pass=$((pass + 1)); printf 'PASS  %-34s %6ss  cpu %6ss\n' "$t" "$secs" "$cpu"
    elif [ $rc -eq 77 ] || grep -q '^make.*Error 77' "$logs/$t.log"; then
      st=SKIP; skip=$((skip + 1)); printf 'SKIP  %-34s (%s)\n' "$t" "$(grep -m1 'missing tool' "$logs/$t.log")"
    else
      st=FAIL; fail=$((fail + 1)); failed="$failed $t"
      # one write, so the other lane's lines do not land inside the log's tail
      out=$(printf 'FAIL  %-34s %6ss  cpu %6ss\n' "$t" "$secs" "$cpu"; sed 's/^/    | /' "$logs/$t.log" | tail -n 40)
      printf '%s\n' "$out"
    fi
    printf '%s\t%s\t%s\t%s\n' "$t" "$st" "$secs" "$cpu" >>"$logs/times.tsv"
  done
  echo "$pass $fail $skip$failed" >"$result"
}

lane2=()
read -r -a lane2 <<<"${TEST_LANE:-}"
jobs=${TEST_JOBS:-1}
pids=()
if [ ${#lane2[@]} -gt 0 ]; then
  run_lane "$res/lane2" 0 "${lane2[@]}" &
  pids+=($!)
fi
shared=0
[ "$jobs" -gt 1 ] && shared=1
for ((w = 2; w <= jobs; w++)); do
  run_lane "$res/worker$w" 1 "$@" &
  pids+=($!)
done
run_lane "$res/worker1" "$shared" "$@"
for pid in ${pids[@]+"${pids[@]}"}; do
  # bash may have reaped a lane long ago (and forgotten it: "not a child of this shell")
  while kill -0 "$pid" 2>/dev/null; do sleep 1; done
  wait "$pid" 2>/dev/null
done
pass=0; fail=0; skip=0; failed=""
for ((w = 2; w <= jobs; w++)); do
  [ -s "$res/worker$w" ] || { echo "worker $w ended without its counts"; echo "0 1 0 (worker $w)" >"$res/worker$w"; }
done
if [ ${#lane2[@]} -gt 0 ] && [ ! -s "$res/lane2" ]; then
  echo "the second lane ended without its counts"; echo "0 1 0 (second lane)" >"$res/lane2"
fi
for f in "$res"/lane2 "$res"/worker*; do
  [ -f "$f" ] || continue
  read -r p f_ s rest <"$f"
  pass=$((pass + p)); fail=$((fail + f_)); skip=$((skip + s)); failed="$failed${rest:+ $rest}"
done
awk -F'\t' -v a="$start_all" -v b="$(date +%s.%N)" \
  '{ c += $4 } END { printf "tests: %.1f s of CPU (user+sys); wall %.1f s\n", c, b - a }' "$logs/times.tsv"
[ -n "$failed" ] && echo "failed:$failed"
if [ $skip -gt 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[ $fail -eq 0 ]
