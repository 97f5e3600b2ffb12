#!/usr/bin/env bash
# drain's session model end to end on generated streams with known truth (gen.c), read back with
# go tool pprof: estimates within the statistical bound, exact at interval 1, interval changes,
# FREEs lost on the link repaired by snapshots, unknown stacks, several sessions, marks.
. "$(dirname "$0")/lib.sh"
D=$DRAIN

run() { # NAME INTERVAL ADJ GEN-ARGS...
  local n=$1 r=$2 adj=$3
  shift 3
  $GEN "$@" "$W/$n.bin" "$W/$n.truth" || { fail "$n: gen"; return 1; }
  $D -q -o "$W/$n.pb.gz" "$W/$n.bin" || { fail "$n: drain exit $?"; return 1; }
  pp -raw "$W/$n.pb.gz" >"$W/$n.raw" 2>"$W/$n.rawerr" || { fail "$n: pprof -raw"; cat "$W/$n.rawerr"; return 1; }
  if "$here/check_truth.sh" "$W/$n.raw" "$W/$n.truth" "$r" "$adj" >"$W/$n.check"; then
    ok "$n: $(tail -n1 "$W/$n.check")"
  else
    fail "$n:"; cat "$W/$n.check" >&2
  fi
}

run basic 4096 4 --interval 4096 --allocs 120000
run exact 1 4 --interval 1 --allocs 30000
# Exact mode must be exact: no statistical slack at all.
"$here/check_truth.sh" "$W/exact.raw" "$W/exact.truth" 1 4 0 >/dev/null && ok "interval 1 is exact" ||
  fail "interval 1 not exact"
run bigint 65536 4 --interval 65536 --allocs 150000 --seed 7
# A lossy link: every 5th FREE never arrives; snapshot passes prove those blocks were freed.
run lostfree 4096 4 --interval 4096 --allocs 100000 --lose-free-every 5 --snap-every 5000
lf=$(counter lost_frees "$W/lostfree.pb.gz")
[ "${lf:-0}" -gt 0 ] && ok "lost frees repaired by snapshots: $lf" || fail "no lost frees reported"
# Interval changed mid-run: each half weighted with its own interval (checked against the larger).
run intchange 16384 4 --interval 4096 --interval-change 16384 --allocs 120000
pp -comments "$W/intchange.pb.gz" 2>/dev/null | grep -q '1 changes' && ok "interval change noted" ||
  fail "interval change not in comments"
# Unknown stacks (id 0) appear as one "[unknown stack]" frame.
$GEN --unknown-stacks --allocs 20000 "$W/unk.bin" "$W/unk.truth"
$D -q -o "$W/unk.pb.gz" "$W/unk.bin" && pp -top -sample_index=alloc_space "$W/unk.pb.gz" 2>/dev/null |
  grep -q '\[unknown stack\]' && ok "unknown stack frame" || fail "unknown stack frame"
# Two sessions (a device reset): two profiles, the second named .s2.
$GEN --sessions 2 --allocs 20000 "$W/two.bin" "$W/two.truth"
$D -q -o "$W/two.pb.gz" "$W/two.bin" && [ -s "$W/two.pb.gz" ] && [ -s "$W/two.s2.pb.gz" ] &&
  ok "two sessions, two profiles" || fail "two sessions"
pp -comments "$W/two.s2.pb.gz" 2>/dev/null | grep -q 'session_id=0x5eed0001' && ok "second profile is session 2" ||
  fail "second profile's session id"
pp -raw "$W/two.s2.pb.gz" >"$W/two.raw" 2>/dev/null
"$here/check_truth.sh" "$W/two.raw" "$W/two.truth" 4096 4 >/dev/null && ok "session 2 matches its truth" ||
  fail "session 2 truth"
pp -comments "$W/basic.pb.gz" 2>/dev/null | grep -q 'mark: gen start' && ok "marks in comments" || fail "marks"
# The profile's fixed fields as pprof reads them.
pp -raw "$W/basic.pb.gz" 2>/dev/null >"$W/basic.raw2"
grep -q '^PeriodType: space bytes' "$W/basic.raw2" && grep -q '^Period: 4096' "$W/basic.raw2" &&
  grep -q 'inuse_space/bytes\[dflt\]' "$W/basic.raw2" &&
  grep -q 'inuse_objects/count inuse_space/bytes\[dflt\] alloc_objects/count alloc_space/bytes freed_objects/count freed_space/bytes' "$W/basic.raw2" &&
  ok "sample types, default inuse_space, period" || fail "profile header fields"
pp -comments "$W/basic.pb.gz" 2>/dev/null >"$W/basic.comments"
for c in 'msamp drain' 'arch=aarch64' 'sampling interval: 4096' 'device drops:' 'stream losses:'; do
  grep -q "$c" "$W/basic.comments" || fail "comment '$c' missing"
done
# --top, --folded on the generated stream.
$D -q -o "$W/t.pb.gz" --top 3 --folded "$W/t.folded" "$W/basic.bin" >"$W/top.txt" &&
  grep -q 'top 3 sites by in-use bytes' "$W/top.txt" && grep -q 'top 3 sites by allocated bytes' "$W/top.txt" &&
  [ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+  \([0-9]+-[0-9]+\) +0x' "$W/top.txt")" -eq 6 ] && ok "--top" || { fail "--top"; cat "$W/top.txt"; }
[ -s "$W/t.folded" ] && awk '{ if ($NF !~ /^[0-9]+$/ || NF != 2) bad = 1 } END { exit bad }' "$W/t.folded" &&
  ok "--folded" || fail "--folded format"
finish
