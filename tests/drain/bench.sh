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
echo "drain benchmark (targets: decode >= 200 MB/s, profile of 10^6 samples <= 2 s)"
echo "large stream, 1000 stacks, 4*10^6 sampled allocations:"
$D --stats -q -o "$W/many.pb.gz" "$W/many.bin" 2>&1 | sed 's/^/  /'
echo "10^6 samples with 10^6 distinct stacks (10^6 pprof samples, 4*10^6 frames):"
$D --stats -q -o "$W/unique.pb.gz" "$W/unique.bin" 2>&1 | sed 's/^/  /'
ls -l "$W/unique.pb.gz" | awk '{ printf "  profile size %.1f MB\n", $5 / 1e6 }'
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
