#!/usr/bin/env bash
# Usage: tests/analysis/t_growth_board.sh OUTDIR ELF...   (environment: BOARD_QEMU, DRAIN)
# Leaks by growth on the demo firmware under QEMU (docs/VERDICTS.md "Leaks by growth"), one run per
# ELF (the demo built with different sampling seeds): the demo's leak_record leaks a 48-byte block
# every 12 iterations; its cache_insert fills a cache at the start and then replaces entries (from
# another call: levels off); churn_scratch, grow_buffer, deep_alloc and the interrupt's packets
# come and go. drain --leaks must call leak_record a leak, and nothing else, in every run.
set -u
out=$1; shift
D=${DRAIN:-host_tools/drain}
nfail=0
for elf in "$@"; do
  o=$out/$(basename "$elf" .elf)
  boards/examples/demo/run_demo.sh "$elf" uart "$o" "$o/demo.pb.gz" 1 >/dev/null || {
    echo "FAIL: $elf: the demo did not run"; nfail=$((nfail + 1)); continue; }
  "$D" -q -e "$elf" -o "$o/leaks.pb.gz" --leaks "$o/stream.bin" >"$o/leaks.txt" 2>"$o/leaks.err" || {
    echo "FAIL: $elf: drain --leaks: exit $? ($(head -c 300 "$o/leaks.err"))"; nfail=$((nfail + 1)); continue; }
  sed -n '/^leaks by growth/,$p' "$o/leaks.txt"
  called=$(sed -n '/^leaks by growth/,$p' "$o/leaks.txt" | grep '^  +' | sed 's/.* since [0-9.]* s  //' |
    awk '{ print $1 }' | tr '\n' ' ')
  if [ "$called" = "leak_record " ]; then
    echo "ok: $(basename "$elf"): leak_record alone called a leak (not cache_insert)"
  else
    echo "FAIL: $(basename "$elf"): called [$called], want leak_record alone"
    nfail=$((nfail + 1))
  fi
done
exit $((nfail > 0))
