#!/usr/bin/env bash
# One slot limit (MSAMP_WIRE_MAX_SLOTS in include/msamp_wire.h, 2^22): the library accepts live
# tables up to it and drain tracks every slot below it. A 2^21-slot table (craft.c bigslots: 1.5 M
# ALLOCs of 100 bytes at interval 1 over all its slots, every third freed) once read 50 MB in use
# against the true 100 MB: drain dropped the slots at and above 2^20 (bad_slots=999989). Checked:
# in-use exactly the truth, at the peak and in the samples, and no bad slot.
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
peak=$(sed -n 's/.*peak of the in-use estimate: \([0-9]*\) bytes.*/\1/p' "$W/raw")
[ "$peak" = "$truth" ] && ok "peak in-use $peak bytes = the truth" || fail "peak in-use $peak bytes, truth $truth"
inuse=$(awk '/^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+:/ { s += $2 } END { print s }' "$W/raw")
[ "$inuse" = "$truth" ] && ok "inuse_space $inuse bytes = the truth" || fail "inuse_space $inuse, truth $truth"
finish
