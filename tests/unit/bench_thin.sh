#!/usr/bin/env bash
# Usage: tests/unit/bench_thin.sh BENCH_THIN   (see tests/unit/bench_thin.c)
# Instructions (callgrind) of a whole thinning pass, per live slot, and of one sampled malloc+free
# (the baseline), printed as counts and as ratios against the baseline.
set -eu
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ir() { # instructions inside function $1
  valgrind --tool=callgrind --toggle-collect="$1" --callgrind-out-file="$dir/cg.$1" "$bin" >"$dir/out.$1" 2>/dev/null
  callgrind_annotate "$dir/cg.$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}
pass=$(ir bench_settle_all)
sampled=$(ir bench_sampled)
line=$(cat "$dir/out.bench_settle_all")
slots=$(echo "$line" | sed -n 's/^pass over \([0-9]*\) slots: \([0-9]*\) entries.*/\1/p')
entries=$(echo "$line" | sed -n 's/^pass over \([0-9]*\) slots: \([0-9]*\) entries.*/\2/p')
echo "$line"
awk -v p="$pass" -v s="$sampled" -v n="$slots" -v e="$entries" 'BEGIN {
  base = s / 64
  printf "  %-44s %12s %10s\n", "x86-64, instructions (callgrind)", "count", "ratio"
  printf "  %-44s %12.0f %10s\n", "sampled malloc+free (baseline)", base, "1.00"
  printf "  %-44s %12.0f %10.2f\n", "thinning, per slot walked", p / n, p / n / base
  printf "  %-44s %12.0f %10.2f\n", "thinning, per pending entry settled", p / e, p / e / base
  printf "  %-44s %12.0f %10.2f\n", "whole pass (worst single allocation adds)", p, p / base
  printf "  %-44s %12.0f %10.2f\n", "per sampled allocation during a pass (8 slots)", 8 * p / n, 8 * p / n / base
}'
