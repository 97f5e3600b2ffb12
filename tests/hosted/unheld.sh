#!/usr/bin/env bash
# Usage: tests/hosted/unheld.sh APP DRAIN DUMP WORKDIR
# The unheld bytes (docs/HEALTH.md "glibc: the walk's budget"): tests/hosted/unheld_app.c holds a
# heap of 12-48 MB still at 8 levels, over 30 seeds (MSAMP_SEED and the program's own), at the
# default walk budget: past start-up every HEAP record carries the total alone. drain's --json
# series gives each such record's unheld bytes, total - sampled in use, with a 95 % interval.
# The truth at a record: its own total (the device's) less the program's live bytes then. The
# records are aligned through the stream (msamp-dump, in order):
# a HEAP record between the marks "still K" and "move K" was sent while level K held still, so the
# sampled in-use then is level K's (drain's series point i is the stream's HEAP record i). Its
# total is the device's latest read, at level K where it equals the program's own /proc/self/statm
# figure there within 1 % (the differences printed), else at an earlier level (the hosted device
# reads the heap at its polls, which an idle program does not drive: counted). Judged: the intervals
# cover the truth at >= 85 % of the points (95 % expected), and the pooled bias, the seeds' mean
# standardized errors summed over sqrt(the seeds judged) (each seed's points share their samples: a mean of
# variance at most 1), within +-4. Not judged: a truth at or below 0 (a total read before the heap
# grew, at start-up), where drain's interval is [0, 0] (counted).
# UNHELD_ROWS=FILE: also append each seed's judged point of the largest truth (one a seed, since a
# seed's points share their samples; the largest, since a relative error over a truth near 0 says
# nothing) to FILE as a row of the calibration suite
# (tests/calibrate/calibrate.sh: workload "unheld", measure "unheld"), judged by calib_table.py.
set -u
app=$1 drain=$2 dump=$3 dir=$4
mkdir -p "$dir"
seeds=${UNHELD_SEEDS:-30}
run() {
  local s=$1
  rm -f "$dir/s$s".*.bin
  MSAMP_OUTPUT="$dir/s$s.%p.bin" MSAMP_SEED=$s MSAMP_FLUSH=thread "$app" "$s" "$dir/s$s.truth" ||
    { echo "FAIL: seed $s: $app exited $?" >"$dir/s$s.fail"; return; }
  "$drain" -q "$dir"/s$s.*.bin --elf "$app" -o "$dir/s$s.pb.gz" --top 3 --json "$dir/s$s.json" \
    >"$dir/s$s.top" 2>"$dir/s$s.err" ||
    { echo "FAIL: seed $s: drain: $(head -c 300 "$dir/s$s.err")" >"$dir/s$s.fail"; return; }
  "$dump" "$dir"/s$s.*.bin | grep -E '^(HEAP|MARK) ' >"$dir/s$s.rec" ||
    echo "FAIL: seed $s: no HEAP record in the stream" >"$dir/s$s.fail"
}
rm -f "$dir"/*.fail
# The runs mostly sleep (1.2 s a level): ten at a time.
for ((s = 1; s <= seeds; s += 10)); do
  for ((k = s; k < s + 10 && k <= seeds; k++)); do run "$k" & done
  wait
done
if compgen -G "$dir/*.fail" >/dev/null; then cat "$dir"/*.fail; exit 1; fi
grep -h '^  unheld' "$dir/s1.top" | cut -c1-160
python3 - "$dir" "$seeds" "${UNHELD_ROWS:-}" <<'EOF'
import json, math, re, sys
d, seeds, rows_f = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = []
judged = covered = stale = clamped = 0
zsum, zseeds = 0.0, 0
gaps = []
for s in range(1, seeds + 1):
    truth = {}
    for line in open(f"{d}/s{s}.truth"):
        m = re.match(r"(\d+) live=(\d+) resident=(\d+)", line)
        truth[int(m[1])] = (int(m[2]), int(m[3]))
    heaps, still = [], None  # per HEAP record in the stream: (total, level still then or None)
    for line in open(f"{d}/s{s}.rec"):
        m = re.match(r'MARK text="(still|move) (\d+)"', line)
        if m:
            still = int(m[2]) if m[1] == "still" else None
        elif line.startswith("HEAP "):
            heaps.append((int(re.search(r" total=(\d+)", line)[1]), still))
    [sess] = json.load(open(f"{d}/s{s}.json"))["sessions"]
    series = sess["heap"]["series"]
    if len(series) != len(heaps):
        sys.exit(f"FAIL: seed {s}: drain's series has {len(series)} points, the stream {len(heaps)} HEAP records")
    zs, best = [], None
    for (total, k), p in zip(heaps, series):
        if k is None:
            continue
        if p["total"] != total or p["unheld"] is None:
            sys.exit(f"FAIL: seed {s}: level {k}: drain's point {p} for the record of total {total}")
        live, resident = truth[k]
        if abs(total - resident) > 0.01 * resident:
            stale += 1
        else:
            gaps.append(total - resident)
        u = p["unheld"]
        want = total - live
        if want <= 0:  # a total read before the heap grew: drain's [0, 0] is right, and tells nothing
            clamped += 1
            continue
        # The sd from the interval's width, from its upper half where 0 cut its lower end.
        sd = (u["hi"] - u["lo"]) / (2 * 1.959964) if u["lo"] > 0 else (u["hi"] - u["est"]) / 1.959964
        judged += 1
        covered += u["lo"] <= want <= u["hi"]
        zs.append((u["est"] - want) / sd if sd > 0 else 0.0)
        # workload run kind where truth est lo hi raises lowers marked (calib_table.py)
        if best is None or want > best[0]:
            best = (want, f"unheld\t{s}\tunheld\t-\t{want}\t{u['est']}\t{u['lo']}\t{u['hi']}\t0\t0\t0\n")
        print(f"seed {s} level {k}: unheld {u['est']:.0f} [{u['lo']:.0f}, {u['hi']:.0f}], truth {want:.0f}"
              f" (total {total}, live {live}){'' if u['lo'] <= want <= u['hi'] else '  MISSED'}")
    if zs:
        rows.append(best[1])
        zsum += sum(zs) / len(zs)
        zseeds += 1
gaps.sort()
print(f"the record's total read at its level (the program's statm within 1 %): {len(gaps)}, its total less the"
      f" program's: median {gaps[len(gaps) // 2] if gaps else 0} B, range [{gaps[0] if gaps else 0},"
      f" {gaps[-1] if gaps else 0}] B; read at an earlier level (the device's last read): {stale};"
      f" not judged, the total below the live bytes: {clamped}")
z = zsum / math.sqrt(zseeds) if zseeds else 0.0
rate = covered / judged if judged else 0
print(f"coverage {covered}/{judged} = {100 * rate:.1f} % (95 % expected, >= 85 % wanted); pooled bias z = {z:+.2f} (within +-4 wanted)")
bad = [w for w, f in ((f"{judged} points judged, {seeds} wanted", judged < seeds),
                      ("coverage below 85 %", rate < 0.85), ("|z| over 4", abs(z) > 4)) if f]
print("ok: drain's unheld intervals cover the truth" if not bad else "FAIL: " + "; ".join(bad))
if rows_f:
    with open(rows_f, "a") as f:
        f.writelines(rows)
sys.exit(0 if not bad else 1)
EOF
