#!/usr/bin/env bash
# Usage: tests/calibrate/calibrate.sh APP DRAIN DUMP OUTDIR short|full [WORKLOAD...]
# The calibration suite (docs/VERDICTS.md "Calibration"): drain's estimates and 95 % intervals
# judged against the exact truth that the workloads of APP (tests/calibrate/calib_app.c, linked
# with the hosted library) write themselves, over many seeded runs. DRAIN is host_tools/drain,
# DUMP host_tools/msamp-dump (the stream's INTERVAL records: raises and lowerings per run).
#
# Each run: the app with its workload's settings and MSAMP_SEED = the app's seed = the run's seed,
# then `drain check STREAM --elf APP --budget KIND:WHERE<=1024G ... --json`, one budget per line of
# the app's truth (a leaf function's, a chain group's or the total's in-use and allocated bytes):
# the estimate and its 95 % interval, appended to OUTDIR/rows.tsv as
#     workload run kind where truth est lo hi raises lowers marked
# (tests/calibrate/board.sh appends the board workload's rows the same way). Then calib_table.py
# prints the table per (workload, measure) and fails on a coverage or a bias out of bounds.
#
# The workloads and the table events each is there for (runs short / full):
#   raises-0    steady, 16 KiB, the default 65536-slot table: no interval change     20 / 150
#   raises-1    grow, 32 KiB, 512 slots: 1 raise, to 64 KiB                          12 / 120
#   raises-2    grow, 16 KiB, 512 slots: 2 raises, to 64 KiB                         12 / 120
#   raises-3+   grow, 4 KiB, 512 slots: 4 raises, to 64 KiB, and their passes        12 / 120
#               (grow frees nothing: the entries sampled before a raise live to the end;
#               the raises cross 64 KiB, where the first thinning rule kept the 16 B and
#               24 B leaves' entries at 2/3 of their weight: issue 36's -20 %)
#   phases      growth to 2x, mass free of 90 %, regrowth; 16 KiB, 1024 slots        10 / 100
#   lowering    3 raises, a mass free, 2 lowerings after 1.2 s pauses, regrowth       4 /  60
#   chains      realloc chains, 512 KiB (default)                                     10 / 100
#   many        64 leaves of 8..72 B, 1 KiB                                           6 /  80
#   threads     4 threads, 3 leaves each, 16 KiB, 1024 slots (raises from 4 threads) 10 / 100
#   long        28 cycles of growth, mass free and two pauses (>= 100 interval
#               changes, >= 10^7 allocations), 4 KiB, 1024 slots, 70 s a run         0 /   6
#   pinned-full steady, 16 KiB pinned, 256 slots: the table refuses about 3700 samples  8 /  80
#               a run (drain marks those sites' in-use a lower bound, widened by them)
#   smallbig-1024, smallbig-2048   issue 36's first program (500 000 x 24 B, 10 000 x
#               3000 B, nothing freed) at 16 KiB with 1024 and 2048 slots: 2 raises and
#               1 (its 24 B site read -20 % with two, t = -12)                        20 / 100 each
#   ring-drops  steady, 512 B, its writer thread stopped (tests/hosted/freeze_writer.py)
#               from before the first allocation to the 1 000 000th (CALIB_RELEASE_AT; a stop
#               of 0.5 s of the wall clock dropped 0-17 000 records by the machine's load):
#               the ring drops 16-17 % of the records (every estimate marked "may be
#               low")                                                                    6 /  60
#   exhaustion  time to exhaustion (tests/calibrate/exhaust_app.c, beside APP): a heap of
#               fixed size leaking 4 MB/s in device time for 4 s among a cache and churn,
#               32 KiB; its row `drain check --budget exhaustion>=1s`'s seconds against the
#               free bytes over the leak's rate in the allocator's bytes                10 /  40
#   board-aarch64  the demo firmware under QEMU, its seed patched per run
#               (tests/calibrate/board.sh)                                             10 / 100
#   unheld      the unheld bytes (docs/HEALTH.md): tests/hosted/unheld_app.c (CALIB_UNHELD_APP)
#               holds a glibc heap still at 8 levels; tests/hosted/unheld.sh's runs, one row a
#               seed (its point of the largest truth: total - sampled in-use against total - live)  10 / 60
# Marked rows (a lower bound) are judged on coverage only, and a marked row whose interval was
# not widened by what was lost covers the truth when its low end is at most the truth: that is
# all a lower bound claims (calib_table.py).
# WORKLOAD... runs only those. CALIB_RUNS=N overrides the run count of every workload.
# Runs go two at a time (nproc); the short form takes 80-90 s here, the full form about 20 minutes.
set -u
export MSAMP_HEAP_WALK_US=1000000000 # every walk: glibc's exact heap figures (docs/HEALTH.md)
app=$1 drain=$2 dump=$3 out=$4 mode=$5
shift 5
for f in "$app" "$drain" "$dump"; do
  [ -x "$f" ] || { echo "FAIL: $f is missing or not executable" >&2; exit 1; }
done
case $mode in short | full) ;; *) echo "usage: $0 APP DRAIN DUMP OUTDIR short|full [WORKLOAD...]" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/runs"
rm -f "$out/rows.tsv" "$out"/runs/*

# name|app workload|environment|short runs|full runs|seed base
table="raises-0|steady|MSAMP_INTERVAL=16384|20|150|1000
raises-1|grow|MSAMP_INTERVAL=32768 MSAMP_LIVE_CAPACITY=512|12|120|2000
raises-2|grow|MSAMP_INTERVAL=16384 MSAMP_LIVE_CAPACITY=512|12|120|3000
raises-3+|grow|MSAMP_INTERVAL=4096 MSAMP_LIVE_CAPACITY=512|12|120|4000
phases|phases|MSAMP_INTERVAL=16384 MSAMP_LIVE_CAPACITY=1024|10|100|5000
lowering|lowering|MSAMP_INTERVAL=4096 MSAMP_LIVE_CAPACITY=1024 MSAMP_FLUSH=thread|4|60|6000
chains|chains|MSAMP_INTERVAL=524288|10|100|7000
many|many|MSAMP_INTERVAL=1024|6|80|8000
threads|threads|MSAMP_INTERVAL=16384 MSAMP_LIVE_CAPACITY=1024|10|100|9000
long|long|MSAMP_INTERVAL=4096 MSAMP_LIVE_CAPACITY=1024 MSAMP_FLUSH=thread|0|6|10000
pinned-full|steady|MSAMP_INTERVAL=16384 MSAMP_INTERVAL_PIN=1 MSAMP_LIVE_CAPACITY=256|8|80|11000
smallbig-1024|smallbig|MSAMP_INTERVAL=16384 MSAMP_LIVE_CAPACITY=1024|20|100|13000
smallbig-2048|smallbig|MSAMP_INTERVAL=16384 MSAMP_LIVE_CAPACITY=2048|20|100|14000
ring-drops|steady|MSAMP_INTERVAL=512 MSAMP_FLUSH=thread CALIB_RELEASE_AT=1000000 CALIB_FREEZE=60|6|60|12000
exhaustion|exhaust:leak|MSAMP_INTERVAL=32768|10|40|15000"

# run_one NAME WORKLOAD SEED ENV: one run; its rows in $out/runs/NAME.SEED.tsv, its files beside.
run_one() {
  local name=$1 wl=$2 seed=$3 envs=$4 base="$out/runs/$1.$3" prog=$app
  rm -f "$base".*
  # exhaust:W: exhaust_app's workload W (beside APP), its truth one exhaustion budget's
  case $wl in exhaust:*) prog=$(dirname "$app")/exhaust_app wl=${wl#exhaust:} ;; esac
  # CALIB_FREEZE=S: the app's writer thread stopped (the ring drops records) before its first
  # allocation (it waits for the stop) until its CALIB_RELEASE_AT-th, S seconds at most
  local freeze=() e
  for e in $envs; do
    case $e in
      CALIB_FREEZE=*)
        rm -f "$base.frozen" "$base.release"
        freeze=(env FREEZE_READY="$base.frozen" FREEZE_UNTIL="$base.release" CALIB_WAIT_FILE="$base.frozen"
          CALIB_RELEASE_FILE="$base.release" python3 "$here/../hosted/freeze_writer.py" "${e#CALIB_FREEZE=}") ;;
    esac
  done
  # shellcheck disable=SC2086 # ENV is a list of VAR=VALUE words
  if ! env -u MSAMP_LIVE_CAPACITY -u MSAMP_INTERVAL_PIN -u MSAMP_FLUSH -u MSAMP_DISABLE $envs \
      MSAMP_OUTPUT="$base.bin" MSAMP_SEED="$seed" "${freeze[@]}" "$prog" "$wl" "$seed" "$base.truth" >"$base.app" 2>&1; then
    echo "FAIL: $name seed $seed: $prog exited nonzero: $(tail -n 3 "$base.app")" >&2; return 1
  fi
  local args=() kind where v
  while read -r kind where v; do
    [ "$kind" = "#" ] && continue
    if [ "$kind" = exhaustion ]; then args+=(--budget "exhaustion>=1s")
    elif [ "$where" = - ]; then args+=(--budget "$kind<=1024G"); else args+=(--budget "$kind:$where<=1024G"); fi
  done <"$base.truth"
  if ! "$drain" check "$base.bin" --elf "$prog" "${args[@]}" --json "$base.json" >"$base.check" 2>&1; then
    echo "FAIL: $name seed $seed: drain check exited nonzero: $(tail -n 3 "$base.check")" >&2; return 1
  fi
  local raises lowers
  raises=$("$dump" "$base.bin" | grep -cE '^INTERVAL .*reason=[123]( |$)')
  lowers=$("$dump" "$base.bin" | grep -cE '^INTERVAL .*reason=4( |$)')
  python3 - "$base.truth" "$base.json" "$name" "$seed" "$raises" "$lowers" >"$base.tsv" <<'PY' || return 1
import json, sys
truth_f, json_f, name, seed, raises, lowers = sys.argv[1:]
truth = {}
for line in open(truth_f):
    f = line.split()
    if f and f[0] != "#":
        truth[(f[0], f[1])] = float(f[2])  # bytes; seconds for exhaustion ("inf": never)
for b in json.load(open(json_f))["budgets"]:
    where = b.get("where") or "-"
    v = {k: (float("inf") if x is None else x) for k, x in b["value"].items()}  # null: unbounded
    marked = int(bool(b.get("lower_bound") or v.get("lower_bound") or b.get("complete") is False))
    print("\t".join(map(str, [name, seed, b["kind"], where, truth[(b["kind"], where)],
                              v["est"], v["lo"], v["hi"], raises, lowers, marked])))
PY
  rm -f "$base.bin" # the streams are large; keep truth, json and check output
}
export -f run_one
export app drain dump out here

selected() { # NAME: whether the command line's WORKLOAD... (none: all) names it
  [ ${#sel[@]} = 0 ] && return 0
  local w
  for w in "${sel[@]}"; do [ "$w" = "$1" ] && return 0; done
  return 1
}
sel=("$@")
jobs=()
while IFS='|' read -r name wl envs short full base; do
  selected "$name" || continue
  n=$short
  [ "$mode" = full ] && n=$full
  [ -n "${CALIB_RUNS:-}" ] && n=$CALIB_RUNS
  for ((i = 0; i < n; i++)); do jobs+=("$name|$wl|$((base + i))|$envs"); done
done <<<"$table"
board_runs=10
[ "$mode" = full ] && board_runs=100
[ -n "${CALIB_RUNS:-}" ] && board_runs=$CALIB_RUNS
selected board-aarch64 || board_runs=0
unheld_runs=10
[ "$mode" = full ] && unheld_runs=60
[ -n "${CALIB_RUNS:-}" ] && unheld_runs=$CALIB_RUNS
selected unheld || unheld_runs=0
[ ${#jobs[@]} -gt 0 ] || [ $board_runs -gt 0 ] || [ $unheld_runs -gt 0 ] || { echo "FAIL: no run selected" >&2; exit 2; }

start=$(date +%s)
echo "calibrate ($mode): ${#jobs[@]} hosted runs, $(nproc) at a time; $board_runs board runs"
rc=0
if [ ${#jobs[@]} -gt 0 ]; then
  printf '%s\n' "${jobs[@]}" | xargs -d '\n' -P "$(nproc)" -I{} bash -c \
    'IFS="|" read -r n w s e <<<"{}"; run_one "$n" "$w" "$s" "$e"' || rc=1
  cat "$out"/runs/*.tsv >>"$out/rows.tsv" 2>/dev/null
fi
if [ $board_runs -gt 0 ]; then
  bjobs=1
  [ "$(nproc)" -ge 2 ] && bjobs=2
  CALIB_JOBS=$bjobs DRAIN=$drain MSAMP_DUMP=$dump "$here/board.sh" "$out" "$board_runs" >"$out/board.log" 2>&1
  brc=$?
  tail -n 2 "$out/board.log"
  if [ $brc = 77 ]; then
    echo "calibrate: the board workload skipped: $(grep -m1 'missing tool' "$out/board.log")"
  elif [ $brc != 0 ]; then
    echo "FAIL: the board workload (exit $brc): $(tail -n 5 "$out/board.log")" >&2; exit 1
  fi
fi
if [ $unheld_runs -gt 0 ]; then
  if [ ! -x "${CALIB_UNHELD_APP:-}" ]; then
    echo "FAIL: the unheld workload needs CALIB_UNHELD_APP (tests/hosted/unheld_app), got '${CALIB_UNHELD_APP:-}'" >&2; exit 1
  fi
  UNHELD_SEEDS=$unheld_runs UNHELD_ROWS="$out/rows.tsv" env -u MSAMP_HEAP_WALK_US \
    "$here/../hosted/unheld.sh" "$CALIB_UNHELD_APP" "$drain" "$dump" "$out/unheld" >"$out/unheld.log" 2>&1 ||
    { echo "FAIL: the unheld workload: $(tail -n 5 "$out/unheld.log")" >&2; exit 1; }
  tail -n 2 "$out/unheld.log"
fi
echo "calibrate: $(wc -l <"$out/rows.tsv") rows from $((${#jobs[@]} + board_runs + unheld_runs)) runs in $(($(date +%s) - start)) s"
[ $rc = 0 ] || { echo "FAIL: some runs failed (above)" >&2; exit 1; }
python3 "$here/calib_table.py" "$out/rows.tsv" "$out/runs"
