#!/usr/bin/env bash
# Usage: tests/hosted/heap.sh APP DRAIN WORKDIR
# Heap health hosted (docs/HEALTH.md): tests/hosted/heap_app.c, run with MSAMP_OUTPUT over three
# seeds, writes glibc's own mallinfo2 figures at its exit; drain's free and free_blocks (the last
# HEAP record, msamp_end's from the destructor) must be within 1 % of them, and the largest free
# block and the low watermark unknown (glibc keeps neither cheaply). The walk is let through
# (MSAMP_HEAP_WALK_US=1000000: the program's 4000 holes sit in a heap whose worst case is over the
# default 1 ms); a last run at the default budget must report the total alone (/proc/self/statm's
# private resident bytes) and the free bytes unknown (docs/HEALTH.md).
set -u
app=$1 drain=$2 dir=$3
mkdir -p "$dir"
fail=0
within() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.01 * b) }'; }
for seed in 1 2 3; do
  rm -f "$dir/s$seed".*.bin
  MSAMP_OUTPUT="$dir/s$seed.%p.bin" MSAMP_SEED=$seed MSAMP_HEAP_WALK_US=1000000 "$app" "$dir/s$seed.truth" ||
    { echo "FAIL: $app exited $?"; exit 1; }
  "$drain" -q "$dir"/s$seed.*.bin --elf "$app" -o "$dir/s$seed.pb.gz" --top 3 >"$dir/s$seed.top" 2>"$dir/s$seed.err" ||
    { echo "FAIL: drain: $(head -c 300 "$dir/s$seed.err")"; exit 1; }
  line=$(grep -m1 '^heap (the allocator' "$dir/s$seed.top")
  for k in free free_blocks; do
    want=$(sed -n "s/.*\\b$k=\\([0-9]*\\).*/\\1/p" "$dir/s$seed.truth")
    got=$(sed -n "s/.* $k=\\([0-9?]*\\).*/\\1/p" <<<"$line")
    if [ -n "$want" ] && [ -n "$got" ] && within "$got" "$want"; then
      echo "ok: seed $seed: $k drain $got, glibc's $want (within 1 %)"
    else
      echo "FAIL: seed $seed: $k drain '$got', glibc's '$want': $line"; fail=1
    fi
  done
  [[ $line == *"largest_free=?"* && $line == *"min_free="* ]] ||
    { echo "FAIL: seed $seed: want largest_free unknown: $line"; fail=1; }
done
rm -f "$dir"/cheap.*.bin
MSAMP_OUTPUT="$dir/cheap.%p.bin" MSAMP_SEED=1 "$app" "$dir/cheap.truth" || { echo "FAIL: $app exited $?"; exit 1; }
"$drain" -q "$dir"/cheap.*.bin --elf "$app" -o "$dir/cheap.pb.gz" --top 3 >"$dir/cheap.top" 2>"$dir/cheap.err" ||
  { echo "FAIL: drain: $(head -c 300 "$dir/cheap.err")"; exit 1; }
line=$(grep -m1 '^heap (the allocator' "$dir/cheap.top")
total=$(sed -n "s/.* total=\([0-9]*\).*/\1/p" <<<"$line")
if [[ $line == *"free=?"* && ${total:-0} -gt 0 ]]; then
  echo "ok: default budget: free unknown, total $total (private resident bytes): $line"
else
  echo "FAIL: default budget: want free unknown and a total: $line"; fail=1
fi
exit $fail
