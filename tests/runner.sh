#!/usr/bin/env bash
# Runs each named test as `make test-NAME`, keeps its output in $BUILD/test-logs/NAME.log (BUILD
# from the environment, default build), prints one line per test and ends with "N passed, N
# failed[, N skipped]". Exit status 0 only if none failed. A test exits 77 to say it was skipped
# (tests/need.sh does that outside CI).
# TEST_LANE (environment): more test names, run one after another in a second lane beside the
# first (make test puts there the cross-architecture, unit and libFuzzer tests, whose build
# outputs no other test shares), so two cores are both busy; their lines are printed as they
# end, and the last line counts both lanes.
set -u
logs=${BUILD:-build}/test-logs
mkdir -p "$logs"

# run_lane RESULT NAME...: runs the tests, prints their lines, writes "pass fail skip failed..."
# to RESULT.
run_lane() {
  local result=$1 t rc secs start out
  shift
  local pass=0 fail=0 skip=0 failed=""
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
      fail=$((fail + 1)); failed="$failed $t"
      # one write, so the other lane's lines do not land inside the log's tail
      out=$(printf 'FAIL  %-34s %6ss\n' "$t" "$secs"; sed 's/^/    | /' "$logs/$t.log" | tail -n 40)
      printf '%s\n' "$out"
    fi
  done
  echo "$pass $fail $skip$failed" >"$result"
}

res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT
lane2=()
read -r -a lane2 <<<"${TEST_LANE:-}"
pid=""
if [ ${#lane2[@]} -gt 0 ]; then
  run_lane "$res/2" "${lane2[@]}" &
  pid=$!
fi
run_lane "$res/1" "$@"
if [ -n "$pid" ]; then
  # bash may have reaped the lane long ago (and forgotten it: "not a child of this shell")
  while kill -0 "$pid" 2>/dev/null; do sleep 1; done
  wait "$pid" 2>/dev/null
fi
pass=0; fail=0; skip=0; failed=""
if [ -n "$pid" ] && [ ! -s "$res/2" ]; then
  echo "the second lane ended without its counts"; echo "0 1 0 (second lane)" >"$res/2"
fi
for f in "$res"/*; do
  read -r p f_ s rest <"$f"
  pass=$((pass + p)); fail=$((fail + f_)); skip=$((skip + s)); failed="$failed${rest:+ $rest}"
done
[ -n "$failed" ] && echo "failed:$failed"
if [ $skip -gt 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
[ $fail -eq 0 ]
