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
