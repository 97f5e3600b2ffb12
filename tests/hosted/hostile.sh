#!/usr/bin/env bash
# Usage: tests/hosted/hostile.sh APP CHECK WORKDIR   (APP: tests/hosted/hostile_app.c, built with UBSan)
# Hostile API use (docs/HOSTED.md, "Hostile API use"): the program's fixed misuse cases and a
# seeded random mix of 20000 calls, at interval 1 (every allocation sampled; both flush modes), at
# 4096 and at the default. The program checks each call against what its allocator received and
# returned, and msamp's live table against the allocator's live blocks. Here: the program passes,
# no sanitizer report, the stream decodes cleanly (no FREE of an unknown slot), and at interval 1
# drain's in-use bytes equal the program's live bytes exactly.
set -eu
app=$1 check=$2 dir=$3
mkdir -p "$dir"
rm -rf "${dir:?}"/*
drain=host_tools/drain
fail() { echo "FAIL: $*"; exit 1; }

for run in 1-thread 1-inline 4096-thread default-thread; do
  interval=${run%-*} flush=${run#*-}
  env=(MSAMP_FLUSH=$flush MSAMP_OUTPUT="$dir/$run.bin" MSAMP_SEED=7)
  [ "$interval" = default ] || env+=(MSAMP_INTERVAL=$interval MSAMP_INTERVAL_PIN=1)
  env "${env[@]}" UBSAN_OPTIONS=print_stacktrace=1 "$app" 20000 > "$dir/$run.out" 2> "$dir/$run.err" ||
    { cat "$dir/$run.out" "$dir/$run.err" | grep -v '^PASS$' | head -40; fail "$run: the program found a difference"; }
  [ ! -s "$dir/$run.err" ] || { cat "$dir/$run.err"; fail "$run: messages on stderr (a sanitizer report?)"; }
  tail -4 "$dir/$run.out" | head -3 | sed "s/^/$run: /"
  "$check" decode "$dir/$run.bin" > "$dir/$run.decode" || { cat "$dir/$run.decode"; fail "$run: stream damaged"; }
  grep -q ' 0 bad slot references' "$dir/$run.decode" || { cat "$dir/$run.decode"; fail "$run: FREE of an unknown slot"; }
  "$drain" "$dir/$run.bin" --elf "$app" -o "$dir/$run.pb.gz" -s "$dir/$run.folded" 2> "$dir/$run.drain" ||
    { cat "$dir/$run.drain"; fail "$run: drain failed"; }
  if [ "$interval" = 1 ]; then
    want=$(awk '$1 == "live_bytes" { print $2 }' "$dir/$run.out")
    got=$(awk '{ s += $NF } END { print s + 0 }' "$dir/$run.folded")
    [ "$got" = "$want" ] || fail "$run: drain's in-use bytes $got, the program holds $want"
    grep -q 'device drops 0;' "$dir/$run.drain" || { cat "$dir/$run.drain"; fail "$run: records dropped"; }
    echo "$run: drain's in-use bytes = the program's live bytes = $got"
  fi
done
echo "hostile: every call reached the allocator unchanged; the live table and the stream stayed exact"
