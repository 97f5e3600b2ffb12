#!/usr/bin/env bash
# Usage: tests/board/heap_timeline.sh OUTDIR ELF
# The timeline of a demo run (OUTDIR/stream.bin) drawn by drain --timeline and loaded in headless
# Chromium: the allocator's free bytes, low watermark and largest free block are drawn beside the
# sampled in-use, each ending at the figure the firmware printed ("msamp-demo heap ...",
# OUTDIR/console.txt), on an axis of their own: the sampled in-use (tens of KiB beside the heap's
# 470 KiB free) fills its own (check_views.py layout, with the legend's names those of --top); the
# CSV has a header of its own for each column (the demo's two grow_buffer sites, one name).
# The screenshot is kept in OUTDIR/timeline.png.
set -u
out=${1:?outdir} elf=${2:?elf}
here=$(cd "$(dirname "$0")" && pwd)
D=$(realpath "${DRAIN:-host_tools/drain}")
CHROME_DIR=$out
. "$here/../views/chrome.sh"
rm -f "$out/timeline.html" "$out/timeline.dom"
"$D" -q "$out/stream.bin" --elf "$elf" -o "$out/tl.pb.gz" --timeline "$out/timeline.html" --timeline-csv "$out/timeline.csv" --top 20 >"$out/tl.top" 2>"$out/tl.err" ||
  { echo "FAIL: drain --timeline: $(head -c 300 "$out/tl.err")"; exit 1; }
chrome --dump-dom "file://$(realpath "$out/timeline.html")" >"$out/timeline.dom"
chrome --screenshot="$(realpath "$out")/timeline.png" --window-size=1040,760 "file://$(realpath "$out/timeline.html")" >/dev/null
[ -s "$out/timeline.dom" ] || { echo "FAIL: Chromium dumped no DOM: $(tail -n 3 "$out/chrome.err")"; exit 1; }
fig() { sed -n "s/^msamp-demo heap.* $1=\([0-9]*\).*/\1/p" "$out/console.txt"; }
python3 "$here/../views/check_views.py" heap "$out/timeline.dom" "$(fig free)" "$(fig min_free)" "$(fig largest_free)" &&
  python3 "$here/../views/check_views.py" layout "$out/timeline.dom" "$out/tl.top" &&
  python3 "$here/../views/check_views.py" csvshape "$out/timeline.csv"
