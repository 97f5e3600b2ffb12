#!/usr/bin/env bash
# Usage: tests/hosted/heapstall.sh APP
# The heap hook never stalls the program (docs/HEALTH.md, "glibc: the walk's budget"):
# tests/hosted/heapstall_app.c with 10^6 free chunks in 4 arenas (3 threads' and the main one's)
# times each malloc+free pair of its main thread for 3 s while msamp's writer polls the heap.
# Judged on the hook's own measured figures: its longest call at most 1 ms of CPU time in every
# run, its longest walk (how long an arena's lock was held for it) at most 1 ms, so none of the
# fragmented heap, and in 2 runs of 3 (a preemption inside a call may lengthen one) its longest
# call at most 1 ms of wall time and its time at most 0.1 % of the run. Then, as a gross backstop only (the machine is shared and loaded:
# a run without msamp saw a 124 ms pause), 3 runs with msamp on interleaved with 3 with it off
# (MSAMP_DISABLE=1): the on runs' mildest longest pair within 50 ms of the off runs' worst. The
# hook before its budget stalled every on run, by mallinfo2's whole walk (182-870 ms here).
set -u
app=$1
fail=0
field() { sed -n "s/.* $1=\\([-0-9.]*\\).*/\\1/p" <<<" $2"; }
on_min=1e12 off_max=0 wall_ok=0
for r in 1 2 3; do
  on=$(MSAMP_OUTPUT=/dev/null "$app" 1000000 4 3) || { echo "FAIL: $app exited $?"; exit 1; }
  off=$(MSAMP_OUTPUT=/dev/null MSAMP_DISABLE=1 "$app" 1000000 4 3) || { echo "FAIL: $app (off) exited $?"; exit 1; }
  echo "run $r on:  $on"
  echo "run $r off: $off"
  calls=$(field calls "$on") walks=$(field walks "$on") longest=$(field longest_us "$on")
  total=$(field total_us "$on") secs=$(field seconds "$on") blocks=$(field free_blocks "$on")
  [ "${blocks:-0}" -ge 900000 ] || { echo "FAIL: run $r: $blocks free chunks, want 10^6"; fail=1; }
  [ "${calls:-0}" -ge 2 ] || { echo "FAIL: run $r: the hook ran $calls times in 3 s, want >= 2"; fail=1; }
  cpu=$(field longest_cpu_us "$on") walk=$(field longest_walk_us "$on")
  awk -v l="$cpu" 'BEGIN { exit !(l >= 0 && l <= 1000) }' ||
    { echo "FAIL: run $r: the hook's longest call took $cpu us of CPU, over 1 ms"; fail=1; }
  # Wall time (the longest call, the hook's share of the run): a preemption inside a call (no lock
  # held but a walk's) may lengthen one run's.
  if awk -v l="$longest" -v t="$total" -v s="$secs" 'BEGIN { exit !(l >= 0 && l <= 1000 && t <= 0.001 * s * 1e6) }'; then
    wall_ok=$((wall_ok + 1))
  else
    echo "note: run $r: the hook's longest call $longest us, $total us in $secs s of wall time"
  fi
  # The walks (of the still-small heap at start-up) hold an arena's lock: never that of 10^6 chunks.
  awk -v w="$walk" 'BEGIN { exit !(w >= 0 && w <= 1000) }' ||
    { echo "FAIL: run $r: a walk held an arena's lock $walk us ($walks walks), over 1 ms"; fail=1; }
  on_min=$(awk -v a="$on_min" -v b="$(field max_us "$on")" 'BEGIN { print (b < a ? b : a) }')
  off_max=$(awk -v a="$off_max" -v b="$(field max_us "$off")" 'BEGIN { print (b > a ? b : a) }')
done
[ $wall_ok -ge 2 ] || { echo "FAIL: the hook over 1 ms a call or 0.1 % of the time in $((3 - wall_ok)) of 3 runs"; fail=1; }
if awk -v a="$on_min" -v b="$off_max" 'BEGIN { exit !(a <= b + 50000) }'; then
  echo "ok: longest malloc+free with msamp (its mildest run) $on_min us, without (its worst) $off_max us: within 50 ms"
else
  echo "FAIL: longest malloc+free with msamp (its mildest run) $on_min us, without (its worst) $off_max us: more than 50 ms apart"; fail=1
fi
[ $fail = 0 ] && echo "ok: the hook's longest call <= 1 ms, no walk of 10^6 free chunks, <= 0.1 % of the time"
exit $fail
