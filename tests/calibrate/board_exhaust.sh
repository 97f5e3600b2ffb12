#!/usr/bin/env bash
# Usage: tests/calibrate/board_exhaust.sh OUTDIR [RUNS]   (RUNS default 40)
# Time to exhaustion on the demo firmware against its own truth (docs/VERDICTS.md "Time to
# exhaustion", issue 38): the demo-exhaust firmware of qemu-virt-aarch64 (boards/boards.mk: the
# demo's 48-byte leak paced by msamp's clock, a block a millisecond, for at least 0.6 s) under QEMU,
# RUNS times with the sampling seeds 1..RUNS (tests/calibrate/board.sh, CALIB_EXHAUST=1: the seed
# patched into a copy of the ELF, CALIB_JOBS QEMUs at a time, default 2). Each run's truth is the
# console's "msamp-demo exhaustion ... us=T" (demo.c's report_exhaustion: the heap's free bytes at
# the end over the leak's rate in the allocator's bytes, 64 a block, over the session's recent half).
# Fails unless
#   - drain check's exhaustion>=1s interval holds the true time in >= 90 % of the runs;
#   - every run's forecast (the live drain's --json) runs out, driven by leak_record;
#   - the leak is uniform in device time: of the blocks leaked in the recent half, the pooled
#     fraction in its first half is within 0.45-0.55 (a truth over [middle, end] is then the rate
#     over drain's window, which starts at a bin boundary up to 1/16 of it later);
#   - drain's allocator bytes a block beyond those asked ("overhead_bytes_per_block", the forecast's
#     correction from requested to the allocator's bytes) is unbiased against the firmware's own
#     (the heap's use at the end less the live blocks' sizes, over their count: 16 on this heap),
#     pooled |t| <= 4;
#   - calib_table.py passes on the exhaustion rows (bias |t| <= 4).
# Prints the table's row (coverage, bias as mean est/truth - 1 and its t, median width) and the
# overhead's mean. Needs what board.sh needs (a cross compiler, QEMU, python3: else exit 77, or
# fails with CI=true). Cost: the build once, then about 0.9 s a run with CALIB_JOBS=2 (40 runs:
# under a minute on the project's 2-core machine).
set -u
if [ $# -lt 1 ] || [ $# -gt 2 ]; then echo "usage: $0 OUTDIR [RUNS]" >&2; exit 2; fi
out=$1 runs=${2:-40}
case "$runs" in '' | *[!0-9]*) echo "$0: RUNS is a number" >&2; exit 2 ;; esac
[ "$runs" -ge 10 ] || { echo "$0: RUNS must be >= 10" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
board=qemu-virt-aarch64
mk() { make --no-print-directory -s -C "$root" BOARD=$board TRANSPORT=uart "$@"; }
qemu=$(mk board-qemu)
"$root/tests/need.sh" aarch64-linux-gnu-gcc "${qemu%% *}" python3 || exit
elf=$(mk board-dir)/uart/demo-exhaust.elf
mk host_tools/drain host_tools/msamp-dump "$elf" || { echo "FAIL: $0: the build failed" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out" || exit 1
CALIB_EXHAUST=1 CALIB_WORKLOAD=board-exhaustion CALIB_JOBS=${CALIB_JOBS:-2} DEMO_ELF=$root/$elf \
  BOARD_QEMU="$qemu" "$root/tests/calibrate/board.sh" "$out" "$runs" || exit 1
awk -F'\t' '$3 == "exhaustion"' "$out/rows.tsv" >"$out/exhaustion.tsv"
python3 "$root/tests/calibrate/calib_table.py" "$out/exhaustion.tsv"
table=$?
python3 - "$out" "$runs" <<'PY'
import glob, json, math, os, re, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
fails = []
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "exhaustion.tsv"))]
if len(rows) != runs:
    fails.append(f"{len(rows)} exhaustion rows for {runs} runs")
hit = sum(1 for r in rows if float(r[6]) <= float(r[4]) <= float(r[7]))
print(f"board-exhaustion: the true time within drain's 95 % interval in {hit} of {len(rows)} runs "
      f"({100 * hit / max(len(rows), 1):.1f} %)")
if hit < 0.9 * runs:
    fails.append(f"coverage {hit} of {runs} runs, below 90 %")
first = leaked = 0
ovh, ovh_sd, ovh_true = [], [], []
for d in sorted(glob.glob(os.path.join(out, "board", "seed-*"))):
    seed = d.rsplit("-", 1)[1]
    e = json.load(open(os.path.join(d, "demo.json")))["sessions"][0]["exhaustion"]
    drv = (e.get("driver") or {}).get("stack") or ["(none)"]
    if not e.get("running_out") or drv[0] != "leak_record":
        fails.append(f"seed {seed}: the forecast does not run out driven by leak_record: "
                     f"running_out {e.get('running_out')}, driver {drv[0]}")
    con = open(os.path.join(d, "console.txt")).read()
    m = re.search(r"^msamp-demo exhaustion .* leaked=(\d+) .* first_half=(\d+) ", con, re.M)
    h = re.search(r"^msamp-demo heap free=(\d+) .* total=(\d+)$", con, re.M)
    sites = [tuple(map(int, x)) for x in
             re.findall(r"^msamp-demo truth site=\w+ size=(\d+) allocs=\d+ live=(\d+)$", con, re.M)]
    if not m or not h or not sites:
        fails.append(f"seed {seed}: the console lacks its exhaustion, heap or truth lines")
        continue
    leaked += int(m.group(1))
    first += int(m.group(2))
    live = sum(n for _, n in sites)
    ovh_true.append((int(h.group(2)) - int(h.group(1)) - sum(s * n for s, n in sites)) / live)
    o = e["overhead_bytes_per_block"]
    ovh.append(o["est"])
    ovh_sd.append((o["hi"] - o["lo"]) / 3.92)
frac = first / leaked if leaked else math.nan
print(f"board-exhaustion: {leaked} blocks leaked in the runs' recent halves, {100 * frac:.1f} % "
      f"of them in those halves' first half (uniform: 50 %)")
if not 0.45 <= frac <= 0.55:
    fails.append(f"the leak is not uniform in time: {100 * frac:.1f} % in the first half")
if len(ovh) >= 2:
    diff = [a - b for a, b in zip(ovh, ovh_true)]
    se = max(statistics.stdev(diff), math.sqrt(statistics.fmean([s * s for s in ovh_sd]))) / math.sqrt(len(diff))
    t = statistics.fmean(diff) / se if se > 0 else 0.0
    print(f"board-exhaustion: the allocator's bytes a block beyond those asked: drain "
          f"{statistics.fmean(ovh):.2f} (mean over the runs), the heap's {statistics.fmean(ovh_true):.2f}, t {t:+.2f}")
    if abs(t) > 4:
        fails.append(f"the overhead a block is biased: t {t:+.2f}")
for f in fails:
    print("FAIL: board-exhaustion: " + f)
sys.exit(1 if fails else 0)
PY
checks=$?
[ $table = 0 ] && [ $checks = 0 ] || exit 1
echo "ok: board-exhaustion: time to exhaustion on the demo within its interval in >= 90 % of $runs runs, driven by leak_record"
