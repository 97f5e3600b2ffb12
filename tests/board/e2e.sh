#!/usr/bin/env bash
# Usage: tests/board/e2e.sh MODE TRANSPORT DIR   (environment: BOARD_QEMU, BOARD_QEMU_TIMEOUT, DRAIN)
# End-to-end board tests of the demo firmware built in DIR/TRANSPORT/ (demo.elf, demo-stall.elf):
#   full   run, drain, check symbols, accuracy, leak, interrupt attribution and drop counters; then
#          every view of the stream against its JSON (tests/analysis/t_consistency.sh)
#   stall  the firmware stops handing bytes to the transport for 2000 iterations (its interval
#          pinned, demo.c): it must finish
#          anyway, its ring must overflow, and drain must report exactly the drops it counted
#   late   drain joins the stream late (from 55% of its bytes, mid-frame): the in-use profile it
#          builds must equal the one from the whole stream, site by site, thanks to the re-sends
#   scale  demo-scale.elf: a live sampled set over 10x the live table; the adaptive interval keeps
#          every site's estimates within the bound of the truth at the largest interval reached
#   verdict  the demo gated by `drain check` as a firmware project's CI would (tests/board/verdict.sh)
#   tcp-late  QEMU's UART is a TCP server and drain connects 0.4 s after the firmware
#          started (demo-long.elf, at least 1.5 s): the in-use profile at the end is within the
#          bound of the truth for every site, though drain never saw the cache being filled
set -u
mode=$1; transport=$2; dir=$3
drain=${DRAIN:-host_tools/drain}
here=$(cd "$(dirname "$0")" && pwd)
case "$mode" in
  full|late|verdict) elf=$dir/$transport/demo.elf ;;
  stall) elf=$dir/$transport/demo-stall.elf ;;
  tcp-late) elf=$dir/$transport/demo-long.elf ;;
  scale) elf=$dir/$transport/demo-scale.elf ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
out=$dir/$transport/test-$mode
[ "$mode" = tcp-late ] && exec "$here/tcp_late.sh" "$elf" "$out"
boards/examples/demo/run_demo.sh "$elf" "$transport" "$out" "$out/demo.pb.gz" 8 || exit 1
case "$mode" in
  full) "$here/check_demo.sh" "$out/demo.pb.gz" "$out/console.txt" || exit 1
        # One truth (docs/VERDICTS.md "One verdict model"): every view of the board's stream
        # names the JSON's leaks, peak, low watermark, verdict and sites; with the allocator's
        # figures the leaks are the demo's own, leak_record alone.
        DRAIN=$drain exec "$here/../analysis/t_consistency.sh" "$out/consistency" "$out/stream.bin:$elf:leak_record" ;;
  stall) exec "$here/check_demo.sh" "$out/demo.pb.gz" "$out/console.txt" symbols leak isr drops-nonzero ;;
  scale) exec "$here/check_demo.sh" "$out/demo.pb.gz" "$out/console.txt" adapt accuracy leak drops ;;
  verdict) exec "$here/verdict.sh" "$elf" "$out" ;;
esac

# late join
size=$(stat -c %s "$out/stream.bin")
cut=$((size * 55 / 100))
# Inside a frame: step past a delimiter the cut would fall just after.
while [ "$(od -A n -t x1 -j $((cut - 1)) -N 1 "$out/stream.bin" | tr -d ' ')" = 00 ]; do cut=$((cut + 1)); done
tail -c +$((cut + 1)) "$out/stream.bin" >"$out/late.bin"
"$drain" -q -e "$elf" -o "$out/late.pb.gz" "$out/late.bin" || { echo "FAIL: drain on the late stream"; exit 1; }
inuse() {
  go tool pprof -sample_index="$2" -top -unit=B -nodefraction=0 -nodecount=100000 "$1" 2>/dev/null |
    awk '/flat%/ { go = 1; next } go && NF >= 6 && $1 != "0" { v = $1; sub(/B$/, "", v); s[$6] += v } END { for (f in s) print f, s[f] }' | sort
}
go tool pprof -comments "$out/late.pb.gz" 2>/dev/null | grep -E '^(stream losses|reader):'
# Joined late: the cut is inside a frame, and drain learned of live blocks it never saw allocated.
[ "$(od -A n -t x1 -j $((cut - 1)) -N 1 "$out/stream.bin" | tr -d ' ')" != 00 ] ||
  { echo "FAIL: the cut fell on a frame boundary"; exit 1; }
late_live=$(go tool pprof -comments "$out/late.pb.gz" 2>/dev/null | sed -n 's/.* late_live=\([0-9]*\).*/\1/p')
[ "${late_live:-0}" -gt 0 ] || { echo "FAIL: drain did not join late (late_live=${late_live:-none})"; exit 1; }
fail=0
for t in inuse_space inuse_objects; do
  full=$(inuse "$out/demo.pb.gz" $t); late=$(inuse "$out/late.pb.gz" $t)
  echo "$t, whole stream:"; echo "$full" | sed 's/^/  /'
  if [ -z "$full" ] || [ "$full" != "$late" ]; then
    echo "FAIL: $t from the stream joined at byte $cut of $size differs:"; echo "$late" | sed 's/^/  /'; fail=1
  fi
done
[ $fail = 0 ] && echo "ok: joined at byte $cut of $size, the in-use profile equals the whole stream's"
"$here/check_demo.sh" "$out/late.pb.gz" "$out/console.txt" leak || fail=1
exit $fail
