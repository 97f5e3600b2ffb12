#!/usr/bin/env bash
# Usage: tests/bench/apps.sh BENCHDIR MSAMP_DUMP
# Whole programs' wall time with msamp at the default interval (issue 14), each figure the median
# of interleaved pairs measured in this run (A, B, then B, A: the order alternates; one ratio per
# pair; the median of the ratios, with its quartiles):
#   msamp/unwrapped   the program linked with msamp against the same program unwrapped (<= 1.03)
#   A/A               unwrapped against unwrapped, the same procedure: the noise of this machine
#   msamp on/off      the msamp build profiling against MSAMP_DISABLE=1 (the wrappers still run)
#   jemalloc on/off   Debian's jemalloc (LD_PRELOAD) with its heap profiler sampling every 512 KiB
#                     (MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:19) against prof off
#   tcmalloc on/off   Debian's tcmalloc (gperftools, LD_PRELOAD) with TCMALLOC_SAMPLE_PARAMETER
#                     =524288 against 0
# on three workloads: BENCHDIR/alloc_* app (tests/bench/bench_alloc.c's word count), lua_trees_*
# (binary trees in Lua 5.4 from Debian's static liblua5.4.a) and sqlite_speed_* (a speedtest1-like
# run on Debian's static libsqlite3.a). Instruction ratios with perf stat when the machine's PMU
# is visible (not in most VMs), and with callgrind on smaller runs of the same programs, by flush
# mode and disabled (BENCH_APPS_CALLGRIND=0: not those).
# Then the exit: a ~45 ms program with msamp against unwrapped, the median ratio and difference in
# ms. Nothing is pinned; the programs' output goes to /dev/null, msamp's stream to
# BENCHDIR/apps.msamp.bin. BENCH_APPS_PAIRS pairs per figure (default 11: fewer only to try the
# script out), BENCH_APPS_EXIT_PAIRS for the exit (default 21).
# Writes the results to BENCHDIR/apps.txt as well.
set -eu
b=$1 dump=$2
res=$b/apps.txt
: > "$res"
say() { echo "$*" | tee -a "$res"; }
PAIRS=${BENCH_APPS_PAIRS:-11}
EXIT_PAIRS=${BENCH_APPS_EXIT_PAIRS:-21}
cc=${CC:-cc}
unset MSAMP_INTERVAL MSAMP_INTERVAL_MIN MSAMP_INTERVAL_MAX MSAMP_INTERVAL_PIN MSAMP_DISABLE MSAMP_SEED \
  MSAMP_FLUSH MALLOC_CONF TCMALLOC_SAMPLE_PARAMETER LD_PRELOAD
export MSAMP_OUTPUT=$b/apps.msamp.bin
: > "$b/apps.stderr"

# The peers' shared libraries, as the compiler's library path finds them.
lib_of() {
  local p
  p=$("$cc" -print-file-name="$1")
  if [ "$p" = "$1" ] || [ ! -e "$p" ]; then
    echo "apps.sh: $1 not found (ci/deps.sh bench)" >&2
    exit 1
  fi
  realpath "$p"
}
je=$(lib_of libjemalloc.so.2)
tc=$(lib_of libtcmalloc.so.4)
# The environments of the runs, arrays of VAR=VALUE that pair() takes by name.
# shellcheck disable=SC2034,SC2054  # used through namerefs; the commas are MALLOC_CONF's
JE_ON=("LD_PRELOAD=$je" MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:19)
# shellcheck disable=SC2034
JE_OFF=("LD_PRELOAD=$je") TC_ON=("LD_PRELOAD=$tc" TCMALLOC_SAMPLE_PARAMETER=524288)
# shellcheck disable=SC2034
TC_OFF=("LD_PRELOAD=$tc" TCMALLOC_SAMPLE_PARAMETER=0) NONE=() MSAMP_ON=() MSAMP_OFF=(MSAMP_DISABLE=1)

# Microseconds of one run: VAR=VALUE... -- PROGRAM ARGS... (a subshell exports the variables and
# execs the program: one fork and one exec, as for any command).
t_run() {
  local vars=() s e
  while [ "$1" != -- ]; do vars+=("$1"); shift; done
  shift
  s=$EPOCHREALTIME
  ( for v in "${vars[@]}"; do export "${v?}"; done; exec "$@" ) > /dev/null 2>> "$b/apps.stderr" ||
    { echo "apps.sh: $* failed (stderr in $b/apps.stderr)" >&2; exit 1; }
  e=$EPOCHREALTIME
  echo $((10#${e/./} - 10#${s/./}))
}
# median and quartiles of the numbers on stdin: "MEDIAN Q1 Q3"
stats() {
  sort -g | awk '{ a[NR] = $1 }
    function q(p,  i, f) { i = 1 + (NR - 1) * p; f = int(i); return a[f] + (i - f) * (a[f + 1 < NR ? f + 1 : NR] - a[f]) }
    END { printf "%.4f %.4f %.4f\n", q(0.5), q(0.25), q(0.75) }'
}

# One pair: NAME ROUND PROG_A PROG_B ENV_A ENV_B ARGS... (ENV_A, ENV_B: names of arrays of
# VAR=VALUE). A first in odd rounds, B first in even ones; appends the ratio B/A to $b/apps.NAME,
# A's microseconds to $b/apps.NAME.a and B - A to $b/apps.NAME.d.
pair() {
  local name=$1 round=$2 pa=$3 pb=$4 ea=$5 eb=$6 ta tb
  shift 6
  local -n env_a=$ea env_b=$eb
  if [ $((round % 2)) = 1 ]; then
    ta=$(t_run "${env_a[@]}" -- "$pa" "$@"); tb=$(t_run "${env_b[@]}" -- "$pb" "$@")
  else
    tb=$(t_run "${env_b[@]}" -- "$pb" "$@"); ta=$(t_run "${env_a[@]}" -- "$pa" "$@")
  fi
  echo "$ta" >> "$b/apps.$name.a"
  echo $((tb - ta)) >> "$b/apps.$name.d"
  awk -v a="$ta" -v b="$tb" 'BEGIN { printf "%.6f\n", b / a }' >> "$b/apps.$name"
}

# The peers' profilers must really be on: Debian's jemalloc says "Invalid conf pair" when built
# without profiling; with prof_final it writes a heap profile at exit.
say "== peers: $je, $tc"
rm -f "$b"/jeprof.*
LD_PRELOAD=$je MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:19,prof_final:true,prof_prefix:$b/jeprof \
  "$b/alloc_none" app 50000 > /dev/null 2> "$b/apps.je.check"
if grep -qi 'invalid conf' "$b/apps.je.check"; then
  say "jemalloc: built WITHOUT its heap profiler (MALLOC_CONF=prof:true refused: $(head -1 "$b/apps.je.check")):"
  say "  the jemalloc on/off column measures nothing"
elif ls "$b"/jeprof.*.heap > /dev/null 2>&1; then
  say "jemalloc: heap profiler available (MALLOC_CONF=prof:true accepted, a heap profile written at exit)"
else
  say "jemalloc: MALLOC_CONF=prof:true accepted but no heap profile was written: profiling unconfirmed"
fi
say "tcmalloc: gperftools' full tcmalloc; TCMALLOC_SAMPLE_PARAMETER turns its allocation sampling on"
say "  (stack traces through libunwind); not checked from outside"

perf_ok=""
if command -v perf > /dev/null 2>&1 &&
  perf stat -x, -e instructions:u true 2>&1 >/dev/null | grep -qE '^[0-9]+,'; then
  perf_ok=1
fi

WORKLOADS=("app|alloc|app 420000" "lua|lua_trees|14" "sqlite|sqlite_speed|40000")
say "== wall time, default intervals: median of $PAIRS interleaved pairs [quartiles]; $(nproc) cores, nothing pinned"
printf '%-7s %8s | %-28s | %-22s | %-22s | %-22s | %-22s\n' workload "none ms" "msamp/unwrapped (<= 1.03)" \
  "A/A unwrapped" "msamp on/off" "jemalloc on/off" "tcmalloc on/off" | tee -a "$res"
verdicts=()
for w in "${WORKLOADS[@]}"; do
  IFS='|' read -r name prog args <<< "$w"
  # shellcheck disable=SC2086  # the workload's arguments
  set -- $args
  none=$b/${prog}_none msamp=$b/${prog}_msamp
  for c in over aa onoff je tc; do rm -f "$b/apps.$c" "$b/apps.$c.a" "$b/apps.$c.d"; done
  for r in $(seq "$PAIRS"); do
    pair over "$r" "$none" "$msamp" NONE MSAMP_ON "$@"
    pair aa "$r" "$none" "$none" NONE NONE "$@"
    pair onoff "$r" "$msamp" "$msamp" MSAMP_OFF MSAMP_ON "$@"
    pair je "$r" "$none" "$none" JE_OFF JE_ON "$@"
    pair tc "$r" "$none" "$none" TC_OFF TC_ON "$@"
  done
  samples=$("$dump" "$MSAMP_OUTPUT" 2> /dev/null | grep -c '^ALLOC' || true)
  base_ms=$(awk '{ print $1 / 1000 }' "$b/apps.aa.a" | stats | awk '{ printf "%.0f", $1 }')
  read -r over over1 over3 < <(stats < "$b/apps.over")
  read -r aa aa1 aa3 < <(stats < "$b/apps.aa")
  read -r onoff onoff1 onoff3 < <(stats < "$b/apps.onoff")
  read -r jer jer1 jer3 < <(stats < "$b/apps.je")
  read -r tcr tcr1 tcr3 < <(stats < "$b/apps.tc")
  awk -v w="$name" -v ms="$base_ms" -v o="$over" -v o1="$over1" -v o3="$over3" -v a="$aa" -v a1="$aa1" \
      -v a3="$aa3" -v f="$onoff" -v f1="$onoff1" -v f3="$onoff3" -v j="$jer" -v j1="$jer1" -v j3="$jer3" \
      -v t="$tcr" -v t1="$tcr1" -v t3="$tcr3" 'BEGIN {
    printf "%-7s %8s | %.3f [%.3f-%.3f] %-7s | %.3f [%.3f-%.3f]    | %.3f [%.3f-%.3f]    | %.3f [%.3f-%.3f]    | %.3f [%.3f-%.3f]\n",
      w, ms, o, o1, o3, (o <= 1.03 ? "met" : "NOT MET"), a, a1, a3, f, f1, f3, j, j1, j3, t, t1, t3
  }' | tee -a "$res"
  verdicts+=("$(awk -v w="$name" -v f="$onoff" -v j="$jer" -v t="$tcr" -v s="$samples" -v a1="$aa1" -v a3="$aa3" 'BEGIN {
    printf "%-7s msamp on/off %.3f: %s jemalloc'"'"'s %.3f, %s tcmalloc'"'"'s %.3f; msamp sampled %d allocations (last run); A/A quartiles %+.1f%%..%+.1f%%",
      w, f, (f <= j ? "no worse than" : "WORSE than"), j, (f <= t ? "no worse than" : "WORSE than"), t, s, 100 * (a1 - 1), 100 * (a3 - 1)
  }')")
  if [ -n "$perf_ok" ]; then
    pn=$(perf stat -x, -e instructions:u "$none" "$@" 2>&1 >/dev/null | awk -F, '/instructions/ { print $1 }')
    pm=$(perf stat -x, -e instructions:u "$msamp" "$@" 2>&1 >/dev/null | awk -F, '/instructions/ { print $1 }')
    verdicts+=("$(awk -v w="$name" -v n="$pn" -v m="$pm" 'BEGIN { printf "%-7s instructions (perf stat, user): msamp/unwrapped %.4f", w, m / n }')")
  fi
done
for v in "${verdicts[@]}"; do say "$v"; done
say "A/A: how far apart two runs of the same program are here; where its quartiles spread wider than"
say "+-3%, wall time cannot tell a 3% overhead on this machine: instruction counts can."
[ -n "$perf_ok" ] || say "perf stat -e instructions: no counter here (a VM without a visible PMU): no instruction ratios"

# Instructions instead of time: callgrind (smaller runs), each thread counted apart, the main
# thread's shown: a writer thread's own instructions are its polls every 10 ms, in proportion to
# the run's wall time (50 times longer under valgrind). Its other cost is counted: a process with a
# second thread takes glibc malloc's locked paths (SINGLE_THREAD_P is false). The msamp build runs
# with the default flush (a writer thread from start-up in libraries before 76d6852, none while the
# program is single-threaded since), MSAMP_FLUSH=thread (a writer from start-up), inline (never a
# writer) and MSAMP_DISABLE=1 (the wrappers alone: no sampling, no thread); the peers (LD_PRELOAD
# under valgrind, which callgrind leaves to the program) with their sampling on and off.
if [ "${BENCH_APPS_CALLGRIND:-1}" != 0 ]; then
  # The main thread's Ir of one run: [VAR=VALUE...] -- PROGRAM ARGS...
  cg_main() {
    local vars=()
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    rm -f "$b"/apps.cg*
    env "${vars[@]}" valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$b/apps.cg" \
      "$@" > /dev/null 2>> "$b/apps.stderr" || { echo "apps.sh: callgrind $* failed" >&2; exit 1; }
    awk '/^(summary|totals):/ { print $2; exit }' "$b/apps.cg-01"
  }
  CG_WORKLOADS=("app|alloc|app 200000" "lua|lua_trees|11" "sqlite|sqlite_speed|6000")
  f0=$(cg_main -- "$b/alloc_none" app 1)
  f1=$(cg_main MSAMP_SEED=1 -- "$b/alloc_msamp" app 1)
  fixed=$((f1 - f0))
  say "== instructions of the main thread (callgrind, MSAMP_SEED=1, smaller runs): msamp / unwrapped by"
  say "   flush mode, and each profiler's sampling on / off"
  printf '%-7s %-19s | %-33s | %-6s | %s\n' "" "" "msamp / unwrapped" fixed "sampling on / off" | tee -a "$res"
  printf '%-7s %-19s | %-7s %-7s %-7s %-8s | %-6s | %-8s %-8s %-8s\n' workload run default thread inline \
    disabled share msamp jemalloc tcmalloc | tee -a "$res"
  cg_verdicts=()
  for w in "${CG_WORKLOADS[@]}"; do
    IFS='|' read -r name prog args <<< "$w"
    # shellcheck disable=SC2086  # the workload's arguments
    set -- $args
    none=$b/${prog}_none msamp=$b/${prog}_msamp
    n0=$(cg_main -- "$none" "$@")
    m=$(cg_main MSAMP_SEED=1 -- "$msamp" "$@")
    mt=$(cg_main MSAMP_SEED=1 MSAMP_FLUSH=thread -- "$msamp" "$@")
    mi=$(cg_main MSAMP_SEED=1 MSAMP_FLUSH=inline -- "$msamp" "$@")
    md=$(cg_main MSAMP_DISABLE=1 -- "$msamp" "$@")
    jon=$(cg_main "${JE_ON[@]}" -- "$none" "$@")
    joff=$(cg_main "${JE_OFF[@]}" -- "$none" "$@")
    ton=$(cg_main "${TC_ON[@]}" -- "$none" "$@")
    toff=$(cg_main "${TC_OFF[@]}" -- "$none" "$@")
    awk -v w="$name" -v a="${prog} $args" -v n="$n0" -v m="$m" -v mt="$mt" -v mi="$mi" -v md="$md" \
        -v f="$fixed" -v jon="$jon" -v joff="$joff" -v ton="$ton" -v toff="$toff" 'BEGIN {
      printf "%-7s %-19s | %-7.4f %-7.4f %-7.4f %-8.4f | %5.2f%% | %-8.4f %-8.4f %-8.4f\n", w, a, m / n, mt / n,
        mi / n, md / n, 100 * f / n, m / md, jon / joff, ton / toff }' | tee -a "$res"
    cg_verdicts+=("$(awk -v w="$name" -v f="$(awk -v a="$m" -v b="$md" 'BEGIN { printf "%.8f", a / b }')" \
        -v j="$(awk -v a="$jon" -v b="$joff" 'BEGIN { printf "%.8f", a / b }')" \
        -v t="$(awk -v a="$ton" -v b="$toff" 'BEGIN { printf "%.8f", a / b }')" 'BEGIN {
      printf "%-7s instructions: msamp on/off %.4f %s jemalloc'"'"'s %.4f, %s tcmalloc'"'"'s %.4f", w, f,
        (f <= j ? "no worse than" : "WORSE than"), j, (f <= t ? "no worse than" : "WORSE than"), t }')")
  done
  for v in "${cg_verdicts[@]}"; do say "$v"; done
  say "default: the flush msamp picks; thread: a writer thread from start-up (glibc malloc then takes its"
  say "locked paths); inline: never a writer; disabled: MSAMP_DISABLE=1, the wrappers alone. Fixed share:"
  say "msamp's instructions per process whatever it allocates (alloc_* app 1: start-up, the exit's flush"
  say "and snapshot pass: $fixed), part of every msamp ratio of the row (on/off: default / disabled)."
fi

# The exit: a short program (the app workload, about 45 ms unwrapped), msamp against unwrapped.
EXIT_ARGS=(app 90000)
rm -f "$b"/apps.exit*
for r in $(seq "$EXIT_PAIRS"); do
  pair exit "$r" "$b/alloc_none" "$b/alloc_msamp" NONE MSAMP_ON "${EXIT_ARGS[@]}"
  pair exitaa "$r" "$b/alloc_none" "$b/alloc_none" NONE NONE "${EXIT_ARGS[@]}"
done
read -r ex ex1 ex3 < <(stats < "$b/apps.exit")
read -r exa exa1 exa3 < <(stats < "$b/apps.exitaa")
base=$(awk '{ print $1 / 1000 }' "$b/apps.exit.a" | stats | awk '{ print $1 }')
read -r d d1 d3 < <(awk '{ print $1 / 1000 }' "$b/apps.exit.d" | stats)
read -r da da1 da3 < <(awk '{ print $1 / 1000 }' "$b/apps.exitaa.d" | stats)
say "== exit: alloc_* ${EXIT_ARGS[*]} (unwrapped median $(printf '%.1f' "$base") ms), median of $EXIT_PAIRS interleaved pairs"
awk -v r="$ex" -v r1="$ex1" -v r3="$ex3" -v a="$exa" -v a1="$exa1" -v a3="$exa3" -v d="$d" -v d1="$d1" \
    -v d3="$d3" -v da="$da" -v da1="$da1" -v da3="$da3" 'BEGIN {
  printf "msamp/unwrapped %.3f [%.3f-%.3f], msamp - unwrapped %+.1f ms [%+.1f..%+.1f] (median of the pairs)\n", r, r1, r3, d, d1, d3
  printf "A/A             %.3f [%.3f-%.3f], difference       %+.1f ms [%+.1f..%+.1f]\n", a, a1, a3, da, da1, da3
}' | tee -a "$res"
