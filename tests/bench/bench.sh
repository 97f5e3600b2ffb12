#!/usr/bin/env bash
# Usage: tests/bench/bench.sh BENCHDIR CHECK
# The hosted port's costs, each against baselines measured in the same run:
#   1. instructions (callgrind) of the unwrapped program, of a bare counting --wrap and of msamp at
#      the default interval: per allocator call, and msamp's extra as a share of the total;
#   2. wall and CPU time of interleaved runs, as ratios to the unwrapped program;
#   3. ns per sampled allocation (and malloc+free pair) from a 32-frame stack;
#   4. bytes on the wire per sampled allocation and per sampled free, stacks amortized.
# Writes the results to BENCHDIR/results.txt as well.
set -eu
b=$1 check=$2
res=$b/results.txt
: > "$res"
say() { echo "$*" | tee -a "$res"; }
export MSAMP_OUTPUT=/dev/null
unset MSAMP_INTERVAL MSAMP_DISABLE MSAMP_SEED

calls_of() { awk '/^calls/ { print $2 }' "$1"; }
ir_of() { # callgrind totals of a run: PROGRAM ARGS... (a fixed seed: the same samples every run)
  local out=$b/cg.out
  MSAMP_SEED=1 valgrind --tool=callgrind --callgrind-out-file="$out" "$@" > "$b/cg.stdout" 2> /dev/null
  awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

say "== instructions (callgrind), default interval (MSAMP_OUTPUT=/dev/null)"
for w in "micro 300000" "app 400000"; do
  set -- $w
  none=$(ir_of "$b/alloc_none" "$1" "$2")
  calls=$(calls_of "$b/cg.stdout")
  bare=$(ir_of "$b/alloc_bare" "$1" "$2")
  msamp=$(ir_of "$b/alloc_msamp" "$1" "$2")
  awk -v w="$1" -v n="$none" -v b="$bare" -v m="$msamp" -v c="$calls" 'BEGIN {
    printf "%-5s %d allocator calls; Ir: none %d, bare wrap %d, msamp %d\n", w, c, n, b, m
    printf "%-5s per call: bare wrap +%.1f instructions, msamp +%.1f (msamp beyond bare: +%.1f)\n", w, (b-n)/c, (m-n)/c, (m-b)/c
    printf "%-5s ratio to unwrapped: bare wrap %.4f, msamp %.4f; msamp beyond bare: %.2f%% of all instructions\n", w, b/n, m/n, 100*(m-b)/n
  }' | tee -a "$res"
done

say "== wall and CPU time (user+sys), 9 interleaved runs, default interval: ratios of the best"
say "   runs (the least disturbed by other processes), medians in parentheses"
TIMEFORMAT='%3R %3U %3S'
med() { sort -n "$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
best() { sort -n "$1" | head -1; }
for w in "micro 5000000" "app 400000"; do
  set -- $w
  for v in none bare msamp; do : > "$b/t.$v"; : > "$b/c.$v"; done
  for _ in $(seq 9); do
    for v in none bare msamp; do
      { time "$b/alloc_$v" "$1" "$2" > /dev/null; } 2> "$b/time.out"
      awk '{ print $1 * 1000 >> "'"$b/t.$v"'"; print ($2 + $3) * 1000 >> "'"$b/c.$v"'" }' "$b/time.out"
    done
  done
  awk -v w="$1" -v n="$(best "$b/t.none")" -v b="$(best "$b/t.bare")" -v m="$(best "$b/t.msamp")" \
      -v mn="$(med "$b/t.none")" -v mb="$(med "$b/t.bare")" -v mm="$(med "$b/t.msamp")" \
      -v cn="$(best "$b/c.none")" -v cb="$(best "$b/c.bare")" -v cm="$(best "$b/c.msamp")" 'BEGIN {
    printf "%-5s wall ms: none %.0f, bare %.0f, msamp %.0f; ratio to unwrapped: bare %.3f (%.3f), msamp %.3f (%.3f)\n", w, n, b, m, b/n, mb/mn, m/n, mm/mn
    printf "%-5s CPU ms:  none %.0f, bare %.0f, msamp %.0f; ratio to unwrapped: bare %.3f, msamp %.3f\n", w, cn, cb, cm, cb/cn, cm/cn
  }' | tee -a "$res"
done

say "== sampled allocations from a 32-frame stack (best batch of 1000)"
MSAMP_INTERVAL=1 "$b/sampled" 100 > "$b/s.on"
MSAMP_DISABLE=1 "$b/sampled" 100 > "$b/s.off"
awk 'FNR == 1 && NR == 1 { a1 = $2; p1 = $4 } FNR == 1 && NR > 1 { a0 = $2; p0 = $4 }
     /^samples/ && NR <= 2 { d = $0 }
     END { printf "sampled malloc: %.0f ns (fast path alone %.1f ns); sampled malloc+free pair: %.0f ns (fast path %.1f ns)\n%s\n", a1, a0, p1, p0, d }' \
  "$b/s.on" "$b/s.off" | tee -a "$res"

say "== bytes on the wire, steady state (app workload, MSAMP_INTERVAL=4096)"
MSAMP_OUTPUT="$b/wire.bin" MSAMP_INTERVAL=4096 "$b/alloc_msamp" app 2000000 > /dev/null
"$check" wire "$b/wire.bin" | tee -a "$res"
