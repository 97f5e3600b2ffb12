#!/usr/bin/env bash
# Usage: BOARD_QEMU="..." tests/rtt/bench_transport.sh LABEL UART_ELF RTT_ELF
# Instructions per byte of msamp_transport_write() over the UART and over RTT
# (tests/rtt/bench_rtt_fw.c), counted under QEMU with one instruction per translation block, and
# their ratio. Instructions only: a UART's wait for its line (87 us a byte at 115200 baud) is not
# counted, nor a probe's reads.
set -u
label=$1; shift
. "$(dirname "$0")/../ports/qemu_trace.sh"
count() {
  qemu_trace_start "$1"
  awk '/^Trace/ { fn = $NF; if (fn == "bench_begin") { if (!inside) { inside = 1; seen++ } next } if (fn == "bench_end") { inside = 0; next } if (inside) n++ }
       END { if (seen != 16) { print "bench: " seen " regions, 16 expected" > "/dev/stderr"; exit 1 } printf "%.2f", n / (16 * 256) }' <"$dir/trace" >"$dir/n"
  local a=$?
  wait "$qemu"; local q=$?
  if [ $a != 0 ] || [ $q != 0 ] || ! grep -q 'msamp-bench done' "$dir/console.txt"; then
    echo "bench: $label $1 failed" >&2; cat "$dir/console.txt" >&2; return 1
  fi
  cat "$dir/n"; rm -rf "$dir"; trap - EXIT
}
u=$(count "$1") || exit 1
r=$(count "$2") || exit 1
awk -v l="$label" -v u="$u" -v r="$r" 'BEGIN { printf "  %-34s %10.2f %10.2f %10.3f\n", l, u, r, r / u }'
