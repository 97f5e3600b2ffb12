#!/usr/bin/env bash
# Usage: tests/bench/wrappers.sh BENCHDIR MSAMP_DUMP
# Each wrapper's unsampled cost (issue 14), x86-64: instructions per call that msamp adds beyond a
# bare counting --wrap (tests/bench/bare_wrap.c), and that the bare wrap adds to an unwrapped build,
# counted by callgrind over tests/bench/bench_wrappers.c, whose workloads each call one wrapped
# function and bypass the others through their __real_ names.
#   - Fixed costs (start-up, msamp's constructor, the exit's flush and snapshot pass) cancel: each
#     build runs N and 2N calls and the difference is divided by N.
#   - msamp runs twice: at the largest interval the library accepts (MSAMP_INTERVAL=4294967295, its
#     bound MSAMP_INTERVAL_MAX too, pinned): no call is sampled (checked: the stream holds no ALLOC
#     record), so this is the unsampled path alone; and at the default interval (512 KiB), where
#     the sampled calls are amortized in.
#   - MSAMP_SEED=1: the same sampling decisions every run. MSAMP_FLUSH=inline: no writer thread,
#     whose polls every 10 ms would add instructions in proportion to the run's wall time (50 times
#     longer under valgrind); the wrappers' paths do not depend on the flush mode. The inline drains
#     come after sampled calls only (since 76d6852 at most one per 10 ms): in the default column.
# Writes the results to BENCHDIR/wrappers.txt as well. BENCH_WRAPPERS_TSV=FILE (tests/budgets): also
# writes "wrapper.NAME.unsampled<TAB>msamp-bare at the largest interval, as printed" to FILE.
set -eu
b=$1 dump=$2
res=$b/wrappers.txt
: > "$res"
[ -z "${BENCH_WRAPPERS_TSV:-}" ] || : >"$BENCH_WRAPPERS_TSV"
say() { echo "$*" | tee -a "$res"; }
N=${BENCH_WRAPPERS_N:-100000}
HUGE=4294967295
unset MSAMP_INTERVAL MSAMP_INTERVAL_MIN MSAMP_INTERVAL_MAX MSAMP_INTERVAL_PIN MSAMP_DISABLE
export MSAMP_SEED=1 MSAMP_FLUSH=inline

# Ir of one run: BUILD WORKLOAD CALLS [VAR=VALUE...] (the stream to $b/w.bin).
ir_of() {
  local prog=$b/wrappers_$1 w=$2 n=$3 out=$b/w.cg
  shift 3
  rm -f "$b/w.bin"
  env MSAMP_OUTPUT="$b/w.bin" "$@" valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$prog" "$w" "$n" > "$b/w.stdout" 2> "$b/w.stderr" ||
    { cat "$b/w.stderr" >&2; echo "wrappers.sh: $prog $w $n failed" >&2; exit 1; }
  awk '/^(summary|totals):/ { print $2; exit }' "$out"
}
allocs() { [ ! -e "$b/w.bin" ] || "$dump" "$b/w.bin" | grep -c '^ALLOC' || true; }
# BUILD WORKLOAD [VAR=VALUE...]: Ir at 2N - Ir at N, and the ALLOC records of the 2N run.
per_call() {
  local one two
  one=$(ir_of "$1" "$2" "$N" "${@:3}")
  two=$(ir_of "$1" "$2" $((2 * N)) "${@:3}")
  echo $((two - one)) "$(allocs)"
}
huge_env=("MSAMP_INTERVAL=$HUGE" "MSAMP_INTERVAL_MAX=$HUGE" MSAMP_INTERVAL_PIN=1)

say "== unsampled instructions per wrapper call, x86-64 (callgrind; (Ir at $((2 * N)) calls - Ir at $N) / $N;"
say "   MSAMP_SEED=1, MSAMP_FLUSH=inline; tests/bench/bench_wrappers.c)"
printf '%-8s %9s %10s | %-34s | %-30s | %s\n' wrapper none bare-none \
  "msamp-bare, interval 2^32-1" "msamp-bare, default interval" "target (unsampled)" | tee -a "$res"
fails=0
for w in malloc free calloc realloc; do
  case $w in malloc) t=4 ;; free) t=5 ;; calloc) t=5 ;; realloc) t=8 ;; esac
  r=$(per_call none "$w"); none=${r% *}
  r=$(per_call bare "$w"); bare=${r% *}
  r=$(per_call msamp "$w" "${huge_env[@]}"); huge=${r% *} huge_allocs=${r#* }
  r=$(per_call msamp "$w"); dflt=${r% *} dflt_allocs=${r#* }
  line=$(awk -v w="$w" -v n="$N" -v none="$none" -v bare="$bare" -v huge="$huge" -v dflt="$dflt" \
      -v ha="$huge_allocs" -v da="$dflt_allocs" -v t="$t" 'BEGIN {
    u = sprintf("%.2f", (huge - bare) / n) + 0 # judged as printed: runs differ by a few instructions
    printf "%-8s %9.1f %+10.2f | %+8.2f (%d sampled in 2N calls)%s | %+8.2f (%d sampled in 2N)%s | <= +%d: %s\n",
      w, none / n, (bare - none) / n, u, ha, (ha < 10 ? " " : ""), (dflt - bare) / n, da,
      (da < 10 ? "  " : (da < 100 ? " " : "")), t, (u <= t ? "met" : "NOT MET")
  }')
  say "$line"
  [ -z "${BENCH_WRAPPERS_TSV:-}" ] ||
    printf 'wrapper.%s.unsampled\t%.2f\n' "$w" "$(awk -v h="$huge" -v b="$bare" -v n="$N" 'BEGIN { print (h - b) / n }')" >>"$BENCH_WRAPPERS_TSV"
  case $line in *"NOT MET"*) fails=$((fails + 1)) ;; esac
  # An unsampled measure that sampled is no measure of the unsampled path.
  [ "$huge_allocs" = 0 ] || say "   (!) $w at the largest interval sampled $huge_allocs calls: that column is not the unsampled path alone"
done
say "none: the unwrapped program's instructions per loop iteration (the workload and the allocator);"
say "bare-none: what a counting --wrap adds; msamp-bare: what msamp adds beyond it (its target in the"
say "last column, judged on the unsampled column). $fails of 4 wrappers above target."
