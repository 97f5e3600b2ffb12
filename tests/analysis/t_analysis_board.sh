#!/usr/bin/env bash
# Usage: tests/analysis/t_analysis_board.sh FIRMWARE.elf OUTDIR
# analysis_app.c built for the board runs once under QEMU ($BOARD_QEMU) with its stream on the
# UART (boards/examples/demo/run_demo.sh keeps it in OUTDIR/stream.bin); its truth comes on the
# board console ("analysis-truth KEY VALUE"). Then check.sh's checks with the device id the
# firmware gave msamp_config ("board-1").
set -u
elf=${1:?firmware}; out=${2:?outdir}
here=$(dirname "$0")
rm -rf "$out" && mkdir -p "$out"
DRAIN=host_tools/drain boards/examples/demo/run_demo.sh "$elf" uart "$out/run" "$out/run/live.pb.gz" >/dev/null ||
  { echo "FAIL: the firmware run failed: $(tail -5 "$out/run/console.txt" "$out/run/drain.err" 2>/dev/null)"; exit 1; }
grep -q '^analysis done' "$out/run/console.txt" || { echo "FAIL: no 'analysis done' on the console"; exit 1; }
sed -n 's/^analysis-truth //p' "$out/run/console.txt" >"$out/truth"
"$here/check.sh" "$out/run/stream.bin" "$elf" "$out/truth" "$out/b" board-1 && rc=0 || rc=1
[ $rc = 0 ] && echo "analysis-board: all checks passed" || echo "analysis-board: checks failed"
exit $rc
