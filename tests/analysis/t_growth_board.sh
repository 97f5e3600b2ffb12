#!/usr/bin/env bash
# Usage: tests/analysis/t_growth_board.sh OUTDIR ELF...   (environment: BOARD_QEMU, DRAIN)
# Leaks by growth on the demo firmware under QEMU (docs/VERDICTS.md "Leaks by growth"), one run per
# ELF (the demo built with different sampling seeds): the demo's leak_record leaks a 48-byte block
# every 12 iterations; its cache_insert fills a cache at the start and then replaces entries (from
# another call: levels off); churn_scratch, grow_buffer, deep_alloc and the interrupt's packets
# come and go. leak_record, and nothing else, must be the leak of every view in every run
# (tests/analysis/leaks_agree.sh): drain --leaks, the heap verdict of --top (the demo heap's
# figures, docs/HEALTH.md) and --json's leaks and heap, both as the live run wrote them (run_demo.sh:
# drain.txt, out/demo.json) and from the saved stream.
# QEMU runs with -icount (virtual time from the instructions run, as tests/board/clock.sh): growth
# is judged against time, and on a loaded host a stall of QEMU's thread made wall-clock time jump,
# so a steady leak read as one batch then flat ("step, not leak"; 1 run in 12 with two busy
# loads beside it). The shift (2^shift ns an instruction) goes 0..3 with the ELF, so the runs
# still differ in how the timer interrupts fall among the allocations.
set -u
out=$1; shift
D=${DRAIN:-host_tools/drain}
here=$(dirname "$0")
nfail=0
n=0
for elf in "$@"; do
  o=$out/$(basename "$elf" .elf)
  n=$((n + 1))
  BOARD_QEMU="$BOARD_QEMU -icount shift=$(((n - 1) % 4))" boards/examples/demo/run_demo.sh "$elf" uart "$o" "$o/demo.pb.gz" 1 >/dev/null || {
    echo "FAIL: $elf: the demo did not run"; nfail=$((nfail + 1)); continue; }
  "$D" -q -e "$elf" -o "$o/leaks.pb.gz" --leaks "$o/stream.bin" >"$o/leaks.txt" 2>"$o/leaks.err" &&
    "$D" -q -e "$elf" -t 1 --json "$o/top.json" "$o/stream.bin" >"$o/top.txt" 2>>"$o/leaks.err" || {
    echo "FAIL: $elf: drain: exit $? ($(head -c 300 "$o/leaks.err"))"; nfail=$((nfail + 1)); continue; }
  sed -n '/^leaks by growth/,$p' "$o/leaks.txt"
  sed -n '/^  verdict/,/^  [a-z]/p' "$o/drain.txt" | sed '$d'
  for run in "live:$o/demo.json:$o/drain.txt" "saved:$o/top.json:$o/top.txt"; do
    IFS=: read -r name json text <<<"$run"
    line=$("$here/leaks_agree.sh" leak_record - "$json" "$text" "$o/leaks.txt") || nfail=$((nfail + 1))
    echo "${line%%:*}: $(basename "$elf") ($name): ${line#*: }"
  done
done
exit $((nfail > 0))
