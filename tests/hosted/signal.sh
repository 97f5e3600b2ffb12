#!/usr/bin/env bash
# Usage: tests/hosted/signal.sh SIGNAL_APP CHECK WORKDIR
# A second of sampled malloc/free with a signal handler that allocates through msamp every
# 100 us, with MSAMP_FLUSH=thread, inline and the default (this program has one thread: the
# allocating thread drains, as inline): the program must finish (a deadlock hits the timeout), some handler
# allocations must have met the reentrancy guard, and the stream must decode cleanly.
set -eu
app=$1 check=$2 dir=$3
mkdir -p "$dir"
rm -f "$dir"/*
for mode in thread inline default; do
  MSAMP_FLUSH=${mode#default} MSAMP_OUTPUT="$dir/$mode.bin" MSAMP_INTERVAL=1 timeout 30 "$app" 1 | tee "$dir/$mode.out" ||
    { echo "FAIL: MSAMP_FLUSH=$mode: exit $? (124: deadlock)"; exit 1; }
  "$check" decode "$dir/$mode.bin"
  # The main loop spends most of its time inside msamp: some handler calls must have landed there.
  awk '/reentrant/ { for (i = 1; i < NF; i++) if ($(i + 1) == "reentrant") n = $i } END { exit !(n > 0) }' \
    "$dir/$mode.out" || { echo "FAIL: no handler allocation met the reentrancy guard"; exit 1; }
done
