#!/usr/bin/env bash
# Usage: tests/hosted/table.sh APP DRAIN WORKDIR
# The live table at low load (issue 36): tests/hosted/table_app.c, every allocation sampled
# (MSAMP_INTERVAL=1) with the default 65536 live slots, keeps 10 000 blocks of 1000 B and 100 of
# 64 KiB (15 % of the slots) after 20 000 short-lived ones. drain's in-use must be exact: the 1000 B
# site 10 000 000 bytes in 10 000 objects, the 64 KiB site 6 553 600 in 100, and the device's
# drops live_full=0 (a refused sample is a block the table never holds).
set -u
app=$1 drain=$2 dir=$3
mkdir -p "$dir"
rm -f "$dir"/s.*.bin
fail=0
MSAMP_OUTPUT="$dir/s.%p.bin" MSAMP_INTERVAL=1 "$app" || { echo "FAIL: $app exited $?"; exit 1; }
"$drain" --elf "$app" --top 10 -o "$dir/s.pb.gz" "$dir"/s.*.bin >"$dir/s.top" 2>"$dir/s.err" ||
  { echo "FAIL: drain: $(head -c 300 "$dir/s.err")"; exit 1; }
# The in-use section of --top: "bytes objects samples ... site".
inuse() { sed -n '/sites by in-use bytes/,/^top .*allocated/p' "$dir/s.top" | grep -E "^ +[0-9].* $1 "; }
for want in "live_small 10000000 10000" "live_large 6553600 100"; do
  set -- $want
  got=$(inuse "$1" | awk '{print $1, $2}')
  if [ "$got" = "$2 $3" ]; then
    echo "ok: $1: in use $2 bytes in $3 objects"
  else
    echo "FAIL: $1: in use '$got' (bytes objects), want '$2 $3'"; fail=1
  fi
done
# The device's drop counters: a comment of the profile.
full=$(gzip -dc "$dir/s.pb.gz" | tr -c '[:print:]' '\n' | grep -m1 -oE 'device drops:.* live_full=[0-9]+' |
  sed 's/.*live_full=//')
if [ "$full" = 0 ]; then
  echo "ok: device drops: live_full=0"
else
  echo "FAIL: device drops: live_full='$full', want 0"; fail=1
fi
exit $fail
