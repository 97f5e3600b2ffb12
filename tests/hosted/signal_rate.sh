#!/usr/bin/env bash
# Usage: tests/hosted/signal_rate.sh SIGNAL_APP CHECK WORKDIR [SEEDS]
# A signal handler's allocations are sampled at their own rate. signal_app's handler allocates one
# 32-byte block a run, on the thread that mallocs in a loop at MSAMP_INTERVAL=1024 (a sample every
# fifth call or so, so the handler often lands inside msamp). Each handler allocation is either
# sampled (a sample whose stack holds on_prof) or turned away by the reentrancy guard (the
# program's reentrant count: the guard skips only allocations whose countdown crossed), so over the
# runs their sum is Poisson-like around runs x p, p = 1 - exp(-32/1024). A handler that re-samples
# its thread's spent countdown (landing between the thread's crossing and its next gap) adds
# samples of its own; the pooled z over SEEDS seeds (default 30) must stay within +-4.
set -eu
app=$1 check=$2 dir=$3 seeds=${4:-30}
mkdir -p "$dir"
rm -f "$dir"/*
for s in $(seq 1 "$seeds"); do
  MSAMP_SEED=$s MSAMP_INTERVAL=1024 MSAMP_INTERVAL_PIN=1 MSAMP_FLUSH=inline MSAMP_OUTPUT="$dir/$s.bin" \
    timeout 60 "$app" 1 32 >"$dir/$s.out" || { echo "FAIL: seed $s: exit $?"; cat "$dir/$s.out"; exit 1; }
  on=$("$check" stacks --elf "$app" "$dir/$s.bin" | awk '/ on_prof / { n += $4 } END { print n + 0 }')
  # signal_app: N000 malloc+free pairs, R handler runs, S samples, T reentrant (...), D ring drops, ...
  awk -v s="$s" -v on="$on" '{ for (i = 1; i < NF; i++) { if ($(i + 1) == "handler") r = $i
      if ($(i + 1) == "reentrant") t = $i; if ($(i + 1) == "ring") d = $i } }
    END { print s, r, on, t, d }' "$dir/$s.out" >>"$dir/rows"
done
awk 'BEGIN { p = 1 - exp(-32 / 1024) }
  { if ($5 != 0) { printf "FAIL: seed %s: %s ring drops (samples lost on the way)\n", $1, $5; bad = 1 }
    runs += $2; on += $3; turned += $4 }
  END {
    e = runs * p; v = runs * p * (1 - p); z = (on + turned - e) / sqrt(v)
    printf "signal rate: %d seeds, %d handler runs: %d sampled + %d turned away = %d, expected %.1f (z %+.2f)\n",
      NR, runs, on, turned, on + turned, e, z
    if (bad || runs < 100 || z > 4 || z < -4) { print "FAIL: a handler'"'"'s allocations off their rate"; exit 1 }
    print "PASS" }' "$dir/rows"
