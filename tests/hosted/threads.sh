#!/usr/bin/env bash
# Usage: tests/hosted/threads.sh THREADS_APP CHECK WORKDIR
# 8 threads under ThreadSanitizer, every allocation sampled, run three times:
#   MSAMP_FLUSH=thread  the writer thread drains, from start-up;
#   MSAMP_FLUSH=inline  the allocating threads drain;
#   (default)           the main thread drains until it starts the workers; then the first
#                       sampled path that sees them starts the writer.
# Under this burst (and TSan's slowdown) the ring may overflow in either mode: then the port's
# exit ends the stream with a snapshot pass, which must restore the exact live set.
# Each time: no race report, the device's live table holds exactly the blocks the program still
# holds (checked by the program), and so does the stream's live set (msamp_check live).
set -eu
app=$1 check=$2 dir=$3
mkdir -p "$dir"
rm -f "$dir"/*
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
for mode in thread inline default; do
  echo "== MSAMP_FLUSH=$mode"
  MSAMP_FLUSH=${mode#default} MSAMP_OUTPUT="$dir/$mode.bin" MSAMP_INTERVAL=1 "$app" "$dir/$mode.held" 20000
  "$check" live --expect "$dir/$mode.held" "$dir/$mode.bin" | tee "$dir/$mode.out" | tail -3
  grep -qx PASS "$dir/$mode.out"
done
