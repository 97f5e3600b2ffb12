#!/usr/bin/env bash
# Usage: tests/hosted/preload_safety.sh PRELOAD APP DL_LIB CHECK MSAMP_DUMP WORKDIR
#        (PRELOAD "-": APP is linked with msamp-interpose.pc, and runs as it is)
# APP (tests/hosted/preload_app.c, no msamp in it) under LD_PRELOAD=PRELOAD at MSAMP_INTERVAL=4096,
# 3 seeds: it must finish (a deadlock hits the timeout) with every allocator entry's results right;
# exactly two streams: the program's and its child exec'ed with the environment as it is (a child
# exec'ed without LD_PRELOAD writes none, a forked child writes nothing; linked, both exec'ed
# children write one: three streams); they decode cleanly; the
# program's holds none of the children's sizes (777, 555) and its sites (the program's constructor,
# a thread started there, threads started in main, main; the signal handler's allocations are
# made, not judged: preload_app.c says why) are within 4.5 sd of its truth (msamp_check sites);
# the exec'ed child's holds its own allocations.
set -eu
preload=$1 app=$2 lib=$3 check=$4 dump=$5 dir=$6
mkdir -p "$dir"
for seed in 1 2 3; do
  rm -f "$dir"/*
  preload_env=()
  want=3
  [ "$preload" != - ] && preload_env=("LD_PRELOAD=$preload") && want=2
  MSAMP_SEED=$seed MSAMP_INTERVAL=4096 MSAMP_OUTPUT="$dir/s.%p.bin" \
    timeout 120 env "${preload_env[@]}" "$app" "$lib" > "$dir/truth" ||
    { echo "FAIL: seed $seed: the program exited $? (124: deadlock)"; exit 1; }
  n=$(ls "$dir"/s.*.bin | wc -l)
  [ "$n" = "$want" ] || { echo "FAIL: expected $want streams (the program, its children exec'ed with LD_PRELOAD or linked), found $n"; exit 1; }
  # The program is the first of the two to start (pids grow; a wrap between them is unlikely).
  parent=$dir/s.$(ls "$dir"/s.*.bin | sed 's/.*s\.\([0-9]*\)\.bin/\1/' | sort -n | head -1).bin
  child=$(ls "$dir"/s.*.bin | grep -v "^$parent\$" | head -1)
  for f in "$dir"/s.*.bin; do "$check" decode "$f"; done
  "$dump" "$parent" > "$dir/parent.txt"
  "$dump" "$child" > "$dir/child.txt"
  if grep -Eq '^ALLOC.* size=(777|555) ' "$dir/parent.txt"; then
    echo "FAIL: a child's allocations reached the program's stream"; exit 1
  fi
  grep -Eq '^ALLOC.* size=555 ' "$dir/child.txt" ||
    { echo "FAIL: the child exec'ed with LD_PRELOAD has no sample of its own"; exit 1; }
  "$check" sites --elf "$app" --truth "$dir/truth" "$parent"
  echo "seed $seed: $(grep -c '^ALLOC' "$dir/parent.txt") samples in the program's stream, $(grep -c '^ALLOC' "$dir/child.txt") in its exec'ed child's"
done
echo "$([ "$preload" = - ] && echo interposing link || echo preload) safety: constructor, threads before and after start-up, signal handler, dlopen, fork and exec: ok"
