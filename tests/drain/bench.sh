#!/usr/bin/env bash
# drain's benchmark (make bench-drain): decode throughput on a large recorded stream, time to
# write a profile of 10^6 samples, peak memory. Streams come from gen (interval 1: every
# allocation is a sample). Needs T (build dir); uses host_tools/drain.
set -eu
D=host_tools/drain
W=$T/bench
mkdir -p "$W"
[ -s "$W/many.bin" ] || "$T/gen" --interval 1 --allocs 4000000 --sites 1000 --snap-every 100000 "$W/many.bin" /dev/null
[ -s "$W/unique.bin" ] || "$T/gen" --interval 1 --allocs 1000000 --unique-stacks --snap-every 0 "$W/unique.bin" /dev/null
echo "drain benchmark (targets: decode >= 250 MB/s, profile of 10^6 samples <= 2 s)"
echo "large stream, 1000 stacks, 4*10^6 sampled allocations:"
$D --stats -q -o "$W/many.pb.gz" "$W/many.bin" 2>&1 | sed 's/^/  /'
echo "10^6 samples with 10^6 distinct stacks (10^6 pprof samples, 4*10^6 frames):"
$D --stats -q -o "$W/unique.pb.gz" "$W/unique.bin" 2>&1 | sed 's/^/  /'
ls -l "$W/unique.pb.gz" | awk '{ printf "  profile size %.1f MB\n", $5 / 1e6 }'
# Issue 41: drain's reports and decode + model in CPU seconds (user + sys), each against a baseline
# run in the same benchmark: --json and drain diff against writing the profile alone on 10^5 sites
# (goal: at most 2x), and decode + model of a 100 MB stream of 1000 sites (its profile is small) in
# MB/s of CPU (goal >= 250), with BENCH_DRAIN_BASELINE's beside it.
[ -s "$W/s5.bin" ] || "$T/gen" --interval 1 --allocs 100000 --unique-stacks --snap-every 0 "$W/s5.bin" /dev/null
[ -s "$W/s5b.bin" ] || "$T/gen" --interval 1 --allocs 100000 --unique-stacks --seed 2 --snap-every 0 "$W/s5b.bin" /dev/null
[ -s "$W/mb100.bin" ] || "$T/gen" --interval 1 --allocs 9800000 --sites 1000 --snap-every 100000 "$W/mb100.bin" /dev/null
cpu() { # CPU seconds of the command, best of 3 (a shared machine's noise only adds)
  local best="" t
  for _ in 1 2 3; do
    /usr/bin/time -o "$W/cpu.txt" -f '%U %S' "$@" >/dev/null 2>&1
    t=$(awk '{ print $1 + $2 }' "$W/cpu.txt")
    best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
  done
  echo "$best"
}
for d in "$D" ${BENCH_DRAIN_BASELINE:+"$BENCH_DRAIN_BASELINE"}; do
  "$d" -q -o "$W/s5b.pb.gz" "$W/s5b.bin"
  p=$(cpu "$d" -q -o "$W/s5.pb.gz" "$W/s5.bin")
  j=$(cpu "$d" -q -o "$W/s5j.pb.gz" --json "$W/s5.json" "$W/s5.bin")
  f=$(cpu "$d" diff "$W/s5.pb.gz" "$W/s5b.pb.gz" --json "$W/s5d.json")
  m=$(cpu "$d" -q -o "$W/mb100.pb.gz" "$W/mb100.bin")
  awk -v d="$d" -v p="$p" -v j="$j" -v f="$f" -v m="$m" -v b="$(stat -c %s "$W/mb100.bin")" 'BEGIN {
    printf "%s, 10^5 sites: profile %.2f s of CPU, --json %.2f s (%.2fx, goal <= 2x), diff %.2f s (%.2fx)\n",
      d, p, j, j / p, f, f / p
    printf "%s, decode + model of %.0f MB: %.2f s of CPU, %.0f MB/s (%.2fx the goal of 250 MB/s)\n",
      d, b / 1e6, m, b / 1e6 / m, b / 1e6 / m / 250 }'
done
# Instructions (callgrind), the measure that holds on a shared machine: this drain's and, with
# BENCH_DRAIN_BASELINE=/path/to/drain (another tree's, e.g. turn 2's at ac7c75d), that one's on the
# same streams, in the same run. BENCH_DRAIN_CALLGRIND=0 skips it (about 3 minutes).
if [ "${BENCH_DRAIN_CALLGRIND:-1}" != 0 ]; then
  command -v valgrind >/dev/null || { echo "bench-drain: valgrind is needed for the instruction counts (ci/deps.sh bench)" >&2; exit 1; }
  for d in "$D" ${BENCH_DRAIN_BASELINE:+"$BENCH_DRAIN_BASELINE"}; do
    for f in many unique; do
      valgrind --tool=callgrind --callgrind-out-file="$W/cg.$f.out" "$d" -q -o "$W/cg.$f.pb.gz" "$W/$f.bin" \
        >/dev/null 2>"$W/cg.$f.err" || { tail -5 "$W/cg.$f.err" >&2; exit 1; }
      awk -v d="$d" -v f="$f" '/^(summary|totals):/ { printf "instructions, %s.bin, %s: %.3f G\n", f, d, $2 / 1e9; exit }' "$W/cg.$f.out"
    done
  done
fi
