#!/usr/bin/env bash
# Usage: tests/hosted/heapstall.sh APP
# The heap hook never stalls the program (docs/HEALTH.md, "glibc: the walk's budget"):
# tests/hosted/heapstall_app.c with 10^6 free chunks in 4 arenas (3 threads' and the main one's)
# times each malloc+free pair of its main thread for 3 s while msamp's writer polls the heap.
# Judged on the hook's own measured figures (its longest call, and the walk, which is how long an
# arena's lock was held for it): at most 1 ms a call, no walk of the big heap, and the hook's
# time at most 0.1 % of the run. Then, as a gross backstop only (the machine is shared and loaded:
# a run without msamp saw a 124 ms pause), 3 runs with msamp on interleaved with 3 with it off
# (MSAMP_DISABLE=1): the on runs' mildest longest pair within 50 ms of the off runs' worst. The
# hook before its budget stalled every on run, by mallinfo2's whole walk (182-870 ms here).
set -u
app=$1
fail=0
field() { sed -n "s/.* $1=\\([-0-9.]*\\).*/\\1/p" <<<" $2"; }
on_min=1e12 off_max=0
for r in 1 2 3; do
  on=$(MSAMP_OUTPUT=/dev/null "$app" 1000000 4 3) || { echo "FAIL: $app exited $?"; exit 1; }
  off=$(MSAMP_OUTPUT=/dev/null MSAMP_DISABLE=1 "$app" 1000000 4 3) || { echo "FAIL: $app (off) exited $?"; exit 1; }
  echo "run $r on:  $on"
  echo "run $r off: $off"
  calls=$(field calls "$on") walks=$(field walks "$on") longest=$(field longest_us "$on")
  total=$(field total_us "$on") secs=$(field seconds "$on") blocks=$(field free_blocks "$on")
  [ "${blocks:-0}" -ge 900000 ] || { echo "FAIL: run $r: $blocks free chunks, want 10^6"; fail=1; }
  [ "${calls:-0}" -ge 2 ] || { echo "FAIL: run $r: the hook ran $calls times in 3 s, want >= 2"; fail=1; }
  awk -v l="$longest" 'BEGIN { exit !(l <= 1000) }' ||
    { echo "FAIL: run $r: the hook's longest call $longest us > 1 ms"; fail=1; }
  # The walk at start-up (a small heap) is allowed; none of the fragmented heap.
  [ "${walks:-9}" -le 1 ] && awk -v w="$(field longest_walk_us "$on")" 'BEGIN { exit !(w <= 1000) }' ||
    { echo "FAIL: run $r: $walks walks, the longest $(field longest_walk_us "$on") us"; fail=1; }
  awk -v t="$total" -v s="$secs" 'BEGIN { exit !(t <= 0.001 * s * 1e6) }' ||
    { echo "FAIL: run $r: the hook took $total us in $secs s, over 0.1 %"; fail=1; }
  on_min=$(awk -v a="$on_min" -v b="$(field max_us "$on")" 'BEGIN { print (b < a ? b : a) }')
  off_max=$(awk -v a="$off_max" -v b="$(field max_us "$off")" 'BEGIN { print (b > a ? b : a) }')
done
if awk -v a="$on_min" -v b="$off_max" 'BEGIN { exit !(a <= b + 50000) }'; then
  echo "ok: longest malloc+free with msamp (its mildest run) $on_min us, without (its worst) $off_max us: within 50 ms"
else
  echo "FAIL: longest malloc+free with msamp (its mildest run) $on_min us, without (its worst) $off_max us: more than 50 ms apart"; fail=1
fi
[ $fail = 0 ] && echo "ok: the hook's longest call <= 1 ms, no walk of 10^6 free chunks, <= 0.1 % of the time"
exit $fail
