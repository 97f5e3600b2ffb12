#!/usr/bin/env bash
# One slot limit (MSAMP_WIRE_MAX_SLOTS in include/msamp_wire.h, 2^22): the library accepts live
# tables up to it and drain tracks every slot below it. A 2^21-slot table (craft.c bigslots: 1.5 M
# ALLOCs of 100 bytes at interval 1 over all its slots, every third freed) once read 50 MB in use
# against the true 100 MB: drain dropped the slots at and above 2^20 (bad_slots=999989). Checked:
# in-use exactly the truth, at the peak and in the samples, and no bad slot. Then end to end: a
# hosted program (slots_app, the real library) with MSAMP_LIVE_CAPACITY=2^21 at interval 1 holds
# 1.2 M blocks of 64 bytes (and its 9.6 MB array of them): drain's in-use is the truth, 86.4 MB
# (48.0 MB before: 1.8 M records of slots at and above 2^20 dropped as bad_slots).
. "$(dirname "$0")/lib.sh"
CRAFT=$T/craft

n=1500000
truth=$(( (n - (n + 2) / 3) * 100 ))
"$CRAFT" bigslots $n "$W/big.bin" || fail "craft bigslots"
"$DRAIN" -q -o "$W/big.pb.gz" "$W/big.bin" 2>"$W/err" || { fail "drain: exit $?"; head -n5 "$W/err" >&2; }
grep -q 'Sanitizer\|runtime error' "$W/err" && fail "sanitizer: $(head -n3 "$W/err")"
pp -raw "$W/big.pb.gz" >"$W/raw" 2>/dev/null || fail "no profile pprof reads"
bad=$(sed -n 's/.* bad_slots=\([0-9]*\).*/\1/p' "$W/raw" | head -n1)
[ "$bad" = 0 ] && ok "2^21 slots: no bad slot" || fail "bad_slots=$bad"
peak=$(sed -n 's/.*--peak.s moment: .*half B.s in-use estimate then: \([0-9]*\) bytes.*/\1/p' "$W/raw")
[ "$peak" = "$truth" ] && ok "peak in-use $peak bytes = the truth" || fail "peak in-use $peak bytes, truth $truth"
inuse=$(awk '/^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+( +[0-9]+)*:/ { s += $2 } END { print s }' "$W/raw")
[ "$inuse" = "$truth" ] && ok "inuse_space $inuse bytes = the truth" || fail "inuse_space $inuse, truth $truth"

if [ -n "${SLOTS_APP:-}" ]; then
  n=1200000
  MSAMP_OUTPUT=$W/app.bin MSAMP_INTERVAL=1 MSAMP_INTERVAL_PIN=1 MSAMP_LIVE_CAPACITY=2097152 \
    MSAMP_FLUSH=inline "$SLOTS_APP" $n >/dev/null || fail "slots_app: exit $?"
  "$DRAIN" -q -o "$W/app.pb.gz" "$W/app.bin" 2>"$W/err" || fail "drain on slots_app: exit $?"
  pp -raw "$W/app.pb.gz" >"$W/araw" 2>/dev/null || fail "slots_app: no profile pprof reads"
  cap=$(sed -n 's/.* live_capacity=\([0-9]*\).*/\1/p' "$W/araw" | head -n1)
  bad=$(sed -n 's/.* bad_slots=\([0-9]*\).*/\1/p' "$W/araw" | head -n1)
  drops=$(sed -n 's/.*device drops: ring_records=\([0-9]*\) ring_bytes=[0-9]* live_full=\([0-9]*\).*/\1 \2/p' "$W/araw")
  set -- $drops
  truth=$(( (n - ${1:-0} - ${2:-0}) * 64 + 8 * n ))
  peak=$(sed -n 's/.*--peak.s moment: .*half B.s in-use estimate then: \([0-9]*\) bytes.*/\1/p' "$W/araw")
  echo "  slots_app: live_capacity $cap, bad_slots $bad, device drops (ring, live_full) ${drops:-none}, peak in-use $peak, truth $truth"
  [ "$cap" = 2097152 ] && [ "$bad" = 0 ] && [ "$peak" = "$truth" ] &&
    ok "hosted, 2^21 slots: peak in-use $peak bytes = the truth, no bad slot" ||
    fail "hosted, 2^21 slots: capacity $cap, bad_slots $bad, peak $peak against $truth"
fi
finish
