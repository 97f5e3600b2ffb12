#!/usr/bin/env bash
# The analysis end-to-end on the hosted library (docs/DRAIN.md: realloc chains, lifetimes,
# --min-lifetime, --peak, labels, folded stacks): analysis_app ($APP) runs twice,
#   a: interval 1 (exact numbers), MSAMP_DEVICE_ID=dev-a: the checks of check.sh;
#   b: interval 4096 (estimates), MSAMP_DEVICE_ID=dev-b: the peak profile is within 4 standard
#      deviations of the sampling estimate (the app computes it) of the program's own peak;
# and `drain merge` of both profiles splits back by the device label with exact totals.
set -u
D=${DRAIN:?} app=${APP:?} W=${W:?}
here=$(dirname "$0")
nfail=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
rm -rf "$W" && mkdir -p "$W"

MSAMP_OUTPUT=$W/a.bin MSAMP_INTERVAL=1 MSAMP_DEVICE_ID=dev-a MSAMP_SEED=1 "$app" "$W/a.truth" ||
  fail "analysis_app (a): exit $?"
MSAMP_OUTPUT=$W/b.bin MSAMP_INTERVAL=4096 MSAMP_DEVICE_ID=dev-b MSAMP_SEED=2 "$app" "$W/b.truth" ||
  fail "analysis_app (b): exit $?"
"$here/check.sh" "$W/a.bin" "$app" "$W/a.truth" "$W/a" dev-a || nfail=$((nfail + 1))

# b: estimates. The peak of the in-use estimate against the program's peak, within 4 sd.
"$D" -q "$W/b.bin" --elf "$app" -o "$W/b.pb.gz" --peak "$W/b.peak.pb.gz" 2>"$W/b.err" ||
  fail "drain (b): exit $? ($(head -c 300 "$W/b.err"))"
"$here/pprof_sum.sh" "$W/b.peak.pb.gz" >"$W/b.peak"
got=$(awk '$1 == "TOTAL" && $2 == "inuse_space" { print $3 }' "$W/b.peak")
want=$(awk '$1 == "peak_bytes" { print $2 }' "$W/b.truth")
sd=$(awk '$1 == "peak_sd" { print $2 }' "$W/b.truth")
awk -v g="${got:-0}" -v w="$want" -v s="$sd" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(s > 0 && d <= 4 * s) }' &&
  ok "peak at interval 4096: $got bytes, the program's $want (sd $sd, within 4 sd)" ||
  fail "peak at interval 4096: $got bytes, the program's $want, sd $sd: beyond 4 sd"

# A fleet: the merge splits back by device, every sample type exact.
"$D" merge "$W/m.pb.gz" "$W/a.pb.gz" "$W/b.pb.gz" 2>"$W/m.err" || fail "drain merge: exit $?"
for dev in a b; do
  "$here/pprof_sum.sh" "$W/m.pb.gz" -tagfocus=device=dev-$dev | grep '^TOTAL ' >"$W/m.$dev"
  "$here/pprof_sum.sh" "$W/$dev.pb.gz" | grep '^TOTAL ' >"$W/$dev.total"
  [ -s "$W/m.$dev" ] && cmp -s "$W/m.$dev" "$W/$dev.total" &&
    ok "merge: -tagfocus device=dev-$dev gives dev-$dev's totals: $(tr '\n' ' ' <"$W/m.$dev")" ||
    fail "merge: device=dev-$dev: $(tr '\n' ' ' <"$W/m.$dev") vs $(tr '\n' ' ' <"$W/$dev.total")"
done
all=$("$here/pprof_sum.sh" "$W/m.pb.gz" | awk '$1 == "TOTAL" && $2 == "alloc_objects" { print $3 }')
sum=$(awk '$2 == "alloc_objects" { s += $3 } END { print s }' "$W/a.total" "$W/b.total")
[ "$all" = "$sum" ] && ok "merge: $all allocations in all, the two devices' sum" || fail "merge: $all allocations, want $sum"
[ $nfail = 0 ] && echo "analysis-hosted: all checks passed" || echo "analysis-hosted: $nfail failed"
exit $((nfail > 0))
