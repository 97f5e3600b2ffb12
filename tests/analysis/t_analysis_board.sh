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

# drain's views of the board's stream (docs/VIEWS.md), in headless Chromium: the page's paths,
# legend and axes, the CSV's peak equal to the program's (interval 1: exact), the flame graph's
# frames, and the screenshot not blank with the total's colour drawn. Kept in $ART.
views=$here/../views/check_views.py
art=${ART:-$out/art}
mkdir -p "$art"
CHROME_DIR=$out
. "$here/../views/chrome.sh"
if ! "$DRAIN" -q --elf "$elf" -o "$out/v.pb.gz" --timeline "$art/board.html" \
    --timeline-csv "$out/v.csv" --flame "$art/board.svg" "$out/run/stream.bin" 2>"$out/v.err"; then
  echo "FAIL: drain --timeline --flame: $(head -c 300 "$out/v.err")"; rc=1
else
  chrome --dump-dom "file://$(cd "$art" && pwd)/board.html" >"$out/html.dom" &
  chrome --screenshot="$art/board-timeline.png" --window-size=1040,760 "file://$(cd "$art" && pwd)/board.html" >/dev/null &
  chrome --dump-dom "file://$(cd "$art" && pwd)/board.svg" >"$out/svg.dom" &
  wait
  python3 "$views" page "$out/html.dom" analysis_app.c peak_phase || rc=1
  python3 "$views" peak "$out/v.csv" "$(awk '$1 == "peak_bytes" { print $2 }' "$out/truth")" || rc=1
  python3 "$views" png "$art/board-timeline.png" 1f4e9c || rc=1
  python3 "$views" frame "$out/svg.dom" chain_start || rc=1
fi
[ $rc = 0 ] && echo "analysis-board: all checks passed" || echo "analysis-board: checks failed"
exit $rc
