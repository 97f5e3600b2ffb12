#!/usr/bin/env bash
# Usage: tests/analysis/t_exhaust.sh   (environment: DRAIN, APP = exhaust_app, GROWTH = growth_app, W)
# Time to exhaustion's verdicts (docs/VERDICTS.md "Time to exhaustion"); its coverage of the true
# time is the calibration suite's exhaustion workload (tests/calibrate/calibrate.sh).
#   steady (exhaust_app steady: a fixed-size heap, a cache that levels off and churn, no leak),
#     SEEDS seeds: drain must say "not running out" in --top, --json ("running_out": false, no
#     estimate, a finite bound) and drain check (exhaustion>=1s never FAILs, an exhaustion budget
#     beyond the bound WARNs) on the saved profile;
#   leak (exhaust_app leak, 4 MB/s), SEEDS seeds: "heap runs out in", driven by leak_record, and
#     drain check's exhaustion>=1d FAILs (its high end below a day); drain without --top (a
#     profile built only to be written: no frames) says it on stderr, driven by the fastest leak;
#   a heap that grows (growth_app: glibc's arena takes from sbrk as it leaks): "unknown", with the
#     reason, and drain check's budget not judged (WARN).
set -u
export MSAMP_HEAP_WALK_US=1000000000 # every walk: glibc's exact heap figures (docs/HEALTH.md)
D=${DRAIN:-host_tools/drain} A=${APP:?APP} G=${GROWTH:?GROWTH} W=${W:?W}
SEEDS=${SEEDS:-5}
rm -rf "$W" && mkdir -p "$W"
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
run() { # WORKLOAD SEED: its stream, profile, --top, JSON and checks in $W/WORKLOAD-SEED.*
  local b=$W/$1-$2
  MSAMP_OUTPUT=$b.bin MSAMP_INTERVAL=32768 MSAMP_SEED=$2 EXHAUST_SECONDS=2 "$A" "$1" "$2" "$b.truth" ||
    { echo "FAIL: $A $1 $2: exit $?"; return 1; }
  "$D" "$b.bin" -e "$A" -o "$b.pb.gz" --top 5 --json "$b.json" >"$b.top" 2>"$b.err" ||
    { echo "FAIL: drain $b.bin: exit $?"; return 1; }
}
export -f run
export D A W
for s in $(seq 1 "$SEEDS"); do echo "steady $s"; echo "leak $s"; done |
  xargs -P 2 -L 1 bash -c 'run "$0" "$1"' || nfail=$((nfail + 1))
for s in $(seq 1 "$SEEDS"); do
  b=$W/steady-$s
  grep -q '^heap not running out' "$b.top" || fail "steady $s: --top does not say not running out: $(grep -i exhaust "$b.top")"
  python3 - "$b.json" <<'PY' || fail "steady $s: --json"
import json, math, sys
e = json.load(open(sys.argv[1]))["sessions"][0]["exhaustion"]
assert e and e["known"] and e["running_out"] is False, e
assert e["seconds"] is None and e["hi"] is None and e["driver"] is None and e["basis"] == "total", e
assert e["not_running_out_within"] is not None and e["not_running_out_within"] > 0, e
PY
  "$D" check "$b.pb.gz" --budget 'exhaustion>=1s' >"$b.check" 2>&1 || fail "steady $s: exhaustion>=1s failed: $(cat "$b.check")"
  grep -q '^PASS exhaustion>=1s: not running out' "$b.check" || fail "steady $s: exhaustion>=1s: $(head -1 "$b.check")"
  "$D" check "$b.pb.gz" --budget 'exhaustion>=1000d' >"$b.check2" 2>&1 || fail "steady $s: exhaustion>=1000d failed"
  grep -q '^WARN exhaustion>=1000d: not running out' "$b.check2" || fail "steady $s: exhaustion>=1000d: $(head -1 "$b.check2")"

  b=$W/leak-$s
  grep -q '^heap runs out in .* driven by leak_record' "$b.top" || fail "leak $s: --top: $(grep -i 'heap runs\|running' "$b.top")"
  python3 - "$b.json" <<'PY' || fail "leak $s: --json"
import json, sys
e = json.load(open(sys.argv[1]))["sessions"][0]["exhaustion"]
assert e and e["running_out"] is True and e["basis"] == "leaks", e
assert 0 < e["lo"] <= e["seconds"] <= e["hi"], e
assert e["driver"]["stack"][0] == "leak_record", e
PY
  # drain without a report: its profile built only to be written (samples encoded, no frames):
  # stderr's summary names the driver as --leaks' fastest (it read freed frames before)
  "$D" "$b.bin" -e "$A" -o "$b.plain.pb.gz" 2>"$b.plain.err" || fail "leak $s: drain without --top: exit $? ($(tail -c 300 "$b.plain.err"))"
  grep -q '^drain: session 1: heap runs out in .* driven by the fastest leak (--leaks)' "$b.plain.err" || fail "leak $s: the summary: $(grep -i 'runs out' "$b.plain.err")"
  "$D" check "$b.pb.gz" --budget 'exhaustion>=1d' >"$b.check" 2>&1 && fail "leak $s: exhaustion>=1d passed: $(cat "$b.check")"
  grep -q '^FAIL exhaustion>=1d: .* below budget' "$b.check" || fail "leak $s: exhaustion>=1d: $(head -1 "$b.check")"
done
# A heap that grows: its free bytes are not its room.
MSAMP_OUTPUT=$W/grow.bin MSAMP_INTERVAL=65536 MSAMP_SEED=1 "$G" || fail "growth_app: exit $?"
"$D" "$W/grow.bin" -e "$G" -o "$W/grow.pb.gz" --top 5 --json "$W/grow.json" >"$W/grow.top" 2>"$W/grow.err"
grep -q "^time to exhaustion unknown: the allocator's total changed" "$W/grow.top" || fail "growth_app: --top: $(grep -i exhaust "$W/grow.top")"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["sessions"][0]["exhaustion"]; assert e["known"] is False and "total changed" in e["why"], e' "$W/grow.json" || fail "growth_app: --json"
"$D" check "$W/grow.pb.gz" --budget 'exhaustion>=1s' >"$W/grow.check" 2>&1
grep -q '^WARN exhaustion>=1s: time to exhaustion unknown' "$W/grow.check" || fail "growth_app: check: $(head -1 "$W/grow.check")"
[ $nfail = 0 ] && echo "ok: time to exhaustion: steady says not running out in $SEEDS of $SEEDS seeds, the leak runs out driven by leak_record, a growing heap unknown"
exit $((nfail > 0))
