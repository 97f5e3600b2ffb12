#!/usr/bin/env bash
# Usage: BOARD_QEMU="..." tests/ports/bench.sh BENCH_ELF LABEL
# Runs tests/ports/bench_fw.c's firmware under QEMU with one instruction per translation block and
# QEMU's execution trace, and counts the instructions executed between bench_begin and bench_end
# in each of its regions (walk, sampled, unsampled: n times each; drain: once, for the n sampled
# pairs), and between bench_heap_begin and bench_heap_end (heap: n calls of the heap-stats hook).
# Prints one row: the means per region (drain per sampled pair, and sampled + drain, heap per call)
# and the frames the walk found. The counts include a few instructions of marker calls.
set -u
elf=$1; label=$2
n=64
. "$(dirname "$0")/qemu_trace.sh"
qemu_trace_start "$elf"
awk -v n="$n" -v label="$label" '
  /^Trace/ {
    fn = $NF
    if (fn == "bench_begin") {
      if (!inside) { inside = 1; region = seen < 2 * n ? int(seen / n) : seen == 2 * n ? 3 : 2; seen++ }
      next
    }
    if (fn == "bench_end") { inside = 0; next }
    if (fn == "bench_heap_begin") { if (!in_heap) heaps++; in_heap = 1; next }
    if (fn == "bench_heap_end") { in_heap = 0; next }
    if (inside) count[region]++
    if (in_heap) heap++
  }
  END {
    if (seen != 3 * n + 1 || heaps != n) { printf "bench: %s: %d regions seen, %d expected; %d heap calls, %d expected\n", label, seen, 3 * n + 1, heaps, n > "/dev/stderr"; exit 1 }
    printf "  %-34s %8.0f %8s %10.0f %10.0f %10.0f %10.0f %8.0f\n", label, count[0] / n, " - ", count[1] / n,
      count[3] / n, (count[1] + count[3]) / n, count[2] / n, heap / n
  }' <"$dir/trace" >"$dir/row.txt"
awk_status=$?
wait "$qemu"
status=$?
if [ "$status" != 0 ] || [ "$awk_status" != 0 ] || ! grep -q "msamp-bench done" "$dir/console.txt"; then
  echo "bench: $label failed (QEMU $status)" >&2; cat "$dir/console.txt" >&2; exit 1
fi
frames=$(sed -n 's/^msamp-bench frames=0*\([0-9][0-9]*\).*/\1/p' "$dir/console.txt")
sed "s/ - / ${frames:-?} /" "$dir/row.txt"
