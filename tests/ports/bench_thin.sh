#!/usr/bin/env bash
# Usage: BOARD_QEMU="..." tests/ports/bench_thin.sh BENCH_ELF LABEL   (tests/ports/bench_thin_fw.c)
# Counts under QEMU (one instruction per translation block, its execution trace) the instructions
# between bench_begin and bench_end: the mean sampled malloc+free pair (the baseline) and a whole
# thinning pass, printed with the pass per slot and per settled entry, as counts and ratios.
set -u
elf=$1; label=$2
. "$(dirname "$0")/qemu_trace.sh"
qemu_trace_start "$elf"
awk '/^Trace/ { fn = $NF
    if (fn == "bench_begin") { inside = 1; k = seen++ < 64 ? 0 : 1; next }
    if (fn == "bench_end") { inside = 0; next }
    if (inside) count[k]++ }
  END { printf "%d %d %d\n", count[0], count[1], seen }' <"$dir/trace" >"$dir/counts.txt"
wait "$qemu" || true
grep -q "msamp-bench done" "$dir/console.txt" || { echo "bench-thin: $label failed" >&2; cat "$dir/console.txt" >&2; exit 1; }
read -r pairs pass seen <"$dir/counts.txt"
line=$(grep "msamp-bench thin" "$dir/console.txt")
slots=$(echo "$line" | sed -n 's/.* slots=\([0-9]*\).*/\1/p'); pending=$(echo "$line" | sed -n 's/.* pending=\([0-9]*\).*/\1/p')
awk -v l="$label" -v a="$pairs" -v p="$pass" -v s="$slots" -v e="$pending" -v line="$line" 'BEGIN {
  base = a / 64
  printf "  %s (%s)\n", l, line
  printf "    %-46s %10.0f %8s\n", "sampled malloc+free (baseline)", base, "1.00"
  printf "    %-46s %10.0f %8.2f\n", "thinning, per slot walked", p / s, p / s / base
  printf "    %-46s %10.0f %8.2f\n", "thinning, per pending entry settled", p / e, p / e / base
  printf "    %-46s %10.0f %8.2f\n", "whole pass (the most one allocation adds)", p, p / base
  printf "    %-46s %10.0f %8.2f\n", "per sampled allocation during a pass (8 slots)", 8 * p / s, 8 * p / s / base
}'
