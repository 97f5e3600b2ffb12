#!/usr/bin/env bash
# Usage: tests/analysis/t_growth_board.sh ELF OUTDIR   (environment: BOARD_QEMU, DRAIN)
# Leaks by growth on the demo firmware under QEMU (docs/VERDICTS.md "Leaks by growth"): the demo's
# leak_record leaks a 48-byte block every 12 iterations; its cache_insert fills a cache at the
# start and then replaces entries (levels off); churn_scratch, grow_buffer, deep_alloc and the
# interrupt's packets come and go. drain --leaks must call leak_record a leak, and nothing else.
set -u
elf=$1 out=$2
D=${DRAIN:-host_tools/drain}
boards/examples/demo/run_demo.sh "$elf" uart "$out" "$out/demo.pb.gz" 1 >/dev/null || {
  echo "FAIL: the demo did not run"; exit 1; }
"$D" -q -e "$elf" -o "$out/leaks.pb.gz" --leaks "$out/stream.bin" >"$out/leaks.txt" 2>"$out/leaks.err" || {
  echo "FAIL: drain --leaks: exit $? ($(head -c 300 "$out/leaks.err"))"; exit 1; }
cat "$out/leaks.txt"
called=$(grep '^  +' "$out/leaks.txt" | sed 's/.* since [0-9.]* s  //' | awk '{ print $1 }' | tr '\n' ' ')
[ "$called" = "leak_record " ] && { echo "ok: the demo: leak_record alone called a leak (not cache_insert)"; exit 0; }
echo "FAIL: the demo: called [$called], want leak_record alone"
exit 1
