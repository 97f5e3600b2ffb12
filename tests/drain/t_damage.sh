#!/usr/bin/env bash
# Damaged streams end to end through drain built with ASan+UBSan: truncated, cut mid-frame, random
# bit flips, dropped runs, inserted garbage, a device reset in the middle, a reader joining late,
# pure garbage. Each damaged run must exit 0 without a sanitizer report, write a profile that go
# tool pprof reads, keep the intact frames' samples, and report the losses in the profile's
# comments; pure garbage and an empty input (no valid frame) exit 4 and write no profile.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
$GEN --allocs 60000 --snap-every 5000 "$W/clean.bin" "$W/clean.truth"
$GEN --allocs 30000 --snap-every 5000 --seed 99 --sessions 2 "$W/two.bin" "$W/two.truth"
$D -q -o "$W/clean.pb.gz" "$W/clean.bin" || fail "clean stream"
clean_samples=$(counter samples "$W/clean.pb.gz")

case_run() { # NAME EXPECT-LOSS(1/0) MIN-SAMPLE-PERCENT
  local n=$1 loss=$2 minpct=$3
  $D -o "$W/$n.pb.gz" "$W/$n.bin" >"$W/$n.out" 2>"$W/$n.err"
  local rc=$?
  if [ $rc -ne 0 ] || grep -q 'Sanitizer\|runtime error' "$W/$n.err"; then
    fail "$n: exit $rc"; head -n 20 "$W/$n.err" >&2; return
  fi
  pp -raw "$W/$n.pb.gz" >"$W/$n.raw" 2>/dev/null || { fail "$n: pprof cannot read the profile"; return; }
  local s bad lost disc mal
  s=$(counter samples "$W/$n.pb.gz"); bad=$(counter frames_bad "$W/$n.pb.gz")
  lost=$(counter frames_lost "$W/$n.pb.gz"); disc=$(counter bytes_discarded "$W/$n.pb.gz")
  mal=$(counter records_malformed "$W/$n.pb.gz")
  local losses=$(( ${bad:-0} + ${lost:-0} + ${disc:-0} + ${mal:-0} ))
  if [ "$loss" = 1 ] && [ $losses -eq 0 ]; then fail "$n: no loss reported"; return; fi
  if [ $(( ${s:-0} * 100 )) -lt $(( clean_samples * minpct )) ]; then
    fail "$n: only ${s:-0} of $clean_samples samples kept"; return
  fi
  grep -q 'stream losses' "$W/$n.err" || { fail "$n: no summary on stderr"; return; }
  ok "$n: samples ${s:-0}/$clean_samples, bad frames ${bad:-0}, lost frames ${lost:-0}, discarded ${disc:-0}"
}

$MANGLE truncate 500 1 "$W/clean.bin" "$W/trunc.bin" && case_run trunc 0 40
$MANGLE cutmid 700 1 "$W/clean.bin" "$W/cutmid.bin" && case_run cutmid 1 60
$MANGLE flip 40 2 "$W/clean.bin" "$W/flip.bin" && case_run flip 1 80
$MANGLE flip 2000 3 "$W/clean.bin" "$W/flipmany.bin" && case_run flipmany 1 0
$MANGLE drop 40 4 "$W/clean.bin" "$W/drop.bin" && case_run drop 1 80
$MANGLE garbage 40 5 "$W/clean.bin" "$W/garbage.bin" && case_run garbage 1 80
$MANGLE skip 400 6 "$W/clean.bin" "$W/late.bin" && case_run late 1 40
# Late join: after the first snapshot pass the in-use profile is complete; pre-header records
# counted unweighted; a mid-stream attach starts with a partial frame.
pp -comments "$W/late.pb.gz" 2>/dev/null | grep -q 'arch=aarch64' && ok "late: session identity recovered" ||
  fail "late: no session identity"
# Device reset mid-stream: the first session cut off mid-frame, then a new boot.
$MANGLE cutmid 500 7 "$W/clean.bin" "$W/cut1.bin" && cat "$W/cut1.bin" "$W/two.bin" >"$W/reset.bin"
case_run reset 1 40
ls "$W"/reset*.pb.gz | wc -l | grep -qx 3 && ok "reset: three sessions, three profiles" ||
  fail "reset: expected 3 profiles, got $(ls "$W"/reset*.pb.gz | xargs -n1 basename | tr '\n' ' ')"
# Pure garbage and an empty input: no valid frame, exit 4 and no (misleading, empty) profile.
head -c 200000 /dev/urandom >"$W/random.bin"
$D -o "$W/random.pb.gz" "$W/random.bin" 2>"$W/random.err"
rc=$?
[ $rc -eq 4 ] && ! grep -q Sanitizer "$W/random.err" && grep -q 'no valid msamp frame' "$W/random.err" &&
  [ ! -e "$W/random.pb.gz" ] && ok "random bytes: exit 4, no profile" || { fail "random bytes (exit $rc)"; head "$W/random.err"; }
: >"$W/empty.bin"
$D -o "$W/empty.pb.gz" "$W/empty.bin" 2>"$W/empty.err"
rc=$?
[ $rc -eq 4 ] && grep -q 'no data' "$W/empty.err" && [ ! -e "$W/empty.pb.gz" ] &&
  ok "empty input: exit 4, says so" || { fail "empty input (exit $rc)"; cat "$W/empty.err"; }
finish
