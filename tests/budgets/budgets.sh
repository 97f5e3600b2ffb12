#!/usr/bin/env bash
# Usage: tests/budgets/budgets.sh OUT   (make budgets, make test-budgets; docs/PERFORMANCE.md#budgets-make-budgets)
# Takes the deterministic measures of msamp and judges them against the checked-in table
# (tests/budgets/budgets.tsv, through compare.sh): one "ok MEASURE X <= BUDGET" or "budget exceeded:
# MEASURE = X > BUDGET (unit)" line per measure; exits 1 if a measure is over its budget or could not
# be taken. The parts, each timed:
#   size      every row of `make size` (tests/ports/size_table.sh, SIZE_TABLE_TSV), in the build
#             folder of make test's ports-size ($BUILD/test-size), which it reuses
#   hosted    wire bytes per sampled allocation and free, a hosted program at a fixed seed
#             (tests/bench/bench_alloc.c's app workload, msamp_check wire); and per sampled
#             allocation with its free, every byte of the stream included, on its synthetic
#             malloc/free workload at 64 KiB (issue 26: at most 12) and on tests/hosted/e2e_app
#             x13 (issue 41: at most 10)
#   demo      the demo firmware on qemu-virt-aarch64 over the UART: stream bytes per event (ALLOC,
#             FREE, REALLOC records), wire bytes per sampled allocation and free and per HEAP
#             record (framing included); QEMU -icount
#   wrappers  unsampled instructions per call of each wrapper beyond a bare --wrap (callgrind,
#             tests/bench/wrappers.sh, BENCH_WRAPPERS_TSV)
#   ports     instructions per sampled and per unsampled malloc+free and per call of the heap-stats
#             hook (the demo heap's) on each board of bench-ports (QEMU -icount, tests/ports/bench.sh)
#   drain     drain's instructions per MB of stream and for the profile of 10^6 distinct stacks
#             (callgrind), and its peak RSS on generated streams (1000 stacks; 10^6 distinct stacks);
#             --json and diff over the profile alone on 10^5 sites (instructions, peak RSS: ratios)
# Environment: MAKE, BUILD; SIZE_SMALL (the small configuration's definitions, as make size);
# BUDGETS_TABLE (another table: default tests/budgets/budgets.tsv); BUDGETS_PARTS (a subset of the
# parts above, judged alone); BUDGETS_SELFTEST=1 (then: the judge run again on a copy of the table
# with every budget lowered below its measure must fail, with a "budget exceeded" line for each,
# and the README's check on a copy with one figure edited by hand must fail on that figure);
# BUDGETS_DRAIN (another drain binary measured by the drain part: an older tree's, to compare; the
# README is then not judged); BUDGETS_README (another README: default README.md).
# After the budgets, the README's Numbers table is judged against the measures taken
# (tests/budgets/numbers.py check): a figure off by more than its rounding fails the run.
# shellcheck disable=SC2317 # the parts are called by name (part_$p)
set -u
out=${1:?output folder}
make=${MAKE:-make}
build=${BUILD:-build}
table=${BUDGETS_TABLE:-tests/budgets/budgets.tsv}
parts=${BUDGETS_PARTS:-size hosted demo wrappers ports drain}
small=${SIZE_SMALL:--include include/msamp_config_small.h}
drain=${BUDGETS_DRAIN:-host_tools/drain}
mkdir -p "$out"
unset MSAMP_INTERVAL MSAMP_INTERVAL_MIN MSAMP_INTERVAL_MAX MSAMP_INTERVAL_PIN MSAMP_DISABLE MSAMP_SEED MSAMP_FLUSH

# Callgrind's instruction count of a finished run's output file.
ir_of() { awk '/^(summary|totals):/ { print $2; exit }' "$1"; }

part_size() {
  SIZE_TABLE_TSV="$1" MAKE="$make" tests/ports/size_table.sh "$build/test-size" "$small" >"$out/size.txt" ||
    { cat "$out/size.txt"; return 1; }
}

# bench_alloc.c's app workload (words counted in a hash table) at interval 1024, seed 1, inline flush:
# about 3800 sampled allocations and 760 sampled frees.
part_hosted() {
  local s=$out/hosted.bin
  rm -f "$s"
  MSAMP_SEED=1 MSAMP_FLUSH=inline MSAMP_INTERVAL=1024 MSAMP_OUTPUT="$s" "$build/bench/alloc_msamp" app 200000 \
    >/dev/null || return 1
  "$build/tests/hosted/msamp_check" wire "$s" >"$out/hosted.txt" || { cat "$out/hosted.txt"; return 1; }
  awk '/^wire_bytes_per_sampled_alloc / { print "hosted.wire-per-sampled-alloc\t" $2 }
       /^wire_bytes_per_sampled_free / { print "hosted.wire-per-sampled-free\t" $2 }' "$out/hosted.txt" >"$1"
  # bench_alloc micro: 4*10^6 malloc+free pairs of 16..1040 bytes at 64 KiB, about 32000 sampled
  # pairs: the stream's bytes over them (identity re-sends, snapshot passes, END, framing).
  pair_64k "$1" 64k "$build/bench/alloc_msamp" micro 4000000 || return 1
  # Issue 41's workload: e2e_app x13, 2.26*10^6 allocations at 9 sites (a held set growing to the
  # exit's snapshot pass, realloc chains), about 70000 sampled allocations.
  pair_64k "$1" e2e "$build/tests/hosted/e2e_app" "$out/e2e-truth.txt" 13
}

# pair_64k TSV NAME PROGRAM ARGS...: the program's stream at 64 KiB, seed 1, inline flush: its bytes
# over its sampled allocations (msamp_check wire), as the row hosted.wire-per-sampled-pair-NAME.
pair_64k() {
  local tsv=$1 name=$2 s=$out/hosted-$2.bin
  shift 2
  rm -f "$s"
  MSAMP_SEED=1 MSAMP_FLUSH=inline MSAMP_INTERVAL=65536 MSAMP_OUTPUT="$s" "$@" >/dev/null || return 1
  "$build/tests/hosted/msamp_check" wire "$s" >"$out/hosted-$name.txt" ||
    { cat "$out/hosted-$name.txt"; return 1; }
  awk -v n="$name" '/^wire_bytes_per_sampled_pair / { print "hosted.wire-per-sampled-pair-" n "\t" $2 }' \
    "$out/hosted-$name.txt" >>"$tsv"
}

# QEMU's clock from the instruction count (16 ns an instruction, no sleeping when idle): the timer
# ticks at the same instructions every run, so the demo's stream and the boards' counts are the same
# every run, however loaded the machine (in real time, a loaded machine gives the demo 50 % more
# bytes per event: more ticks, snapshot passes and re-sends in its run).
icount="-icount shift=4,sleep=off"

# The demo (seeded; its timer interrupt's allocations, snapshot passes and re-sends follow the
# clock), its UART stream in a file.
part_demo() {
  local b=qemu-virt-aarch64 d=$out/demo qemu elf bytes
  $make -s --no-print-directory BOARD="$b" TRANSPORT=uart firmware >"$out/demo-build.txt" 2>&1 ||
    { tail -20 "$out/demo-build.txt"; return 1; }
  elf=$($make -s --no-print-directory BOARD="$b" board-dir)/uart/demo.elf
  qemu=$($make -s --no-print-directory BOARD="$b" board-qemu)
  BOARD_QEMU=$qemu BOARD_QEMU_EXTRA=$icount BOARD_QEMU_TIMEOUT=120 boards/qemu_run.sh "$elf" uart "$d" >/dev/null ||
    { echo "the demo failed under QEMU:"; tail -5 "$d/console.txt"; return 1; }
  "$build/tests/hosted/msamp_check" wire "$d/stream.bin" >"$out/demo.txt" || { cat "$out/demo.txt"; return 1; }
  bytes=$(stat -c %s "$d/stream.bin")
  host_tools/msamp-dump "$d/stream.bin" >"$d/dump.txt" || { echo "msamp-dump failed on the demo's stream"; return 1; }
  awk -v bytes="$bytes" -v b="demo.$b" '
    $1 == "ALLOC" || $1 == "FREE" || $1 == "REALLOC" { ev++ }
    END { if (ev) printf "%s.stream-per-event\t%.2f\n", b, bytes / ev }' "$d/dump.txt" >"$1"
  awk -v b="demo.$b" '/^wire_bytes_per_sampled_alloc / { print b ".wire-per-sampled-alloc\t" $2 }
       /^wire_bytes_per_sampled_free / { print b ".wire-per-sampled-free\t" $2 }
       /^wire_bytes_per_heap_record / { print b ".wire-per-heap-record\t" $2 }' "$out/demo.txt" >>"$1"
}

# N = 20000 calls (and 2N): the per-call figures are those of the default N = 100000 but realloc's
# (whose glibc path depends on N), and it takes a fifth of the time.
part_wrappers() {
  BENCH_WRAPPERS_N=20000 BENCH_WRAPPERS_TSV="$1" tests/bench/wrappers.sh "$build/bench" host_tools/msamp-dump \
    >"$out/wrappers.txt" 2>&1 || { cat "$out/wrappers.txt"; return 1; }
}

# The boards of bench-ports (PT_BENCH_BOARDS in tests/ports/ports.mk), one row each: label walk
# frames sampled drain smp+drain unsampled; QEMU with $icount (in real time, the sampled path's
# count moves by 1 % with the load: its clock reads and what follows from them).
part_ports() {
  local label board vars row qemu st=0
  : >"$1"
  while IFS='|' read -r label board vars; do
    [ -n "$label" ] || continue
    # shellcheck disable=SC2086
    qemu=$($make -s --no-print-directory BOARD="$board" $vars board-qemu)
    # shellcheck disable=SC2086
    if ! row=$($make -s --no-print-directory -j2 BOARD="$board" $vars BOARD_QEMU="$qemu $icount" \
        PT_BENCH_LABEL="$label" bench-ports-one 2>"$out/ports-$label.err"); then
      echo "bench-ports on $label failed:"; tail -5 "$out/ports-$label.err"; st=1; continue
    fi
    echo "$row" | awk -v l="$label" '$1 == l && $4 ~ /^[0-9]+$/ { print "ports." l ".sampled-malloc-free\t" $4 }
      $1 == l && l == "mps2-an385" && $2 ~ /^[0-9]+$/ { print "ports." l ".walk\t" $2 }
      $1 == l && $7 ~ /^[0-9]+$/ { print "ports." l ".unsampled-malloc-free\t" $7 }
      $1 == l && $8 ~ /^[0-9]+$/ { print "ports." l ".heap-stats-call\t" $8 }' >>"$1"
  done < <($make -s --no-print-directory budgets-ports-list)
  return "$st"
}

# Streams from tests/drain/gen (budgets.mk makes them): sites.bin, 400000 sampled allocations at 1000
# sites (4.8 MB); unique.bin, 10^6 allocations with 10^6 distinct stacks (27.5 MB).
part_drain() {
  local s=$out/streams cg=$out/drain.cg bytes ir
  valgrind --tool=callgrind --callgrind-out-file="$cg" "$drain" -q -o "$out/sites.pb.gz" "$s/sites.bin" \
    >/dev/null 2>"$out/drain-cg.err" || { tail -5 "$out/drain-cg.err"; return 1; }
  ir=$(ir_of "$cg"); bytes=$(stat -c %s "$s/sites.bin")
  [ -n "$ir" ] || { echo "no instruction count in $cg"; return 1; }
  awk -v ir="$ir" -v b="$bytes" 'BEGIN { printf "drain.instructions-per-mb\t%.0f\n", ir / (b / 1e6) }' >"$1"
  # The profile of 10^6 distinct stacks (issue 26: no slower than turn 2's drain, 5.65 G): about
  # 100 s under callgrind.
  valgrind --tool=callgrind --callgrind-out-file="$cg.unique" "$drain" -q -o "$out/unique-cg.pb.gz" \
    "$s/unique.bin" >/dev/null 2>"$out/drain-cg-unique.err" || { tail -5 "$out/drain-cg-unique.err"; return 1; }
  ir=$(ir_of "$cg.unique")
  [ -n "$ir" ] || { echo "no instruction count in $cg.unique"; return 1; }
  printf 'drain.instructions-unique\t%s\n' "$ir" >>"$1"
  for f in sites unique; do
    "$out/maxrss" "$out/rss-$f.txt" "$drain" -q -o "$out/$f.pb.gz" "$s/$f.bin" 2>"$out/drain-$f.err" ||
      { echo "drain failed on $f.bin:"; tail -5 "$out/drain-$f.err"; return 1; }
    awk -v f="$f" '{ printf "drain.peak-rss-%s\t%.1f\n", f, $1 / 1024 }' "$out/rss-$f.txt" >>"$1"
  done
  part_drain_reports "$1"
}

# Issue 41: drain's reports against the profile alone on 10^5 sites (sites5.bin, gen --allocs 100000
# --unique-stacks; sites5b.bin, the same at seed 2, diff's NEW): instructions (callgrind) and peak
# RSS of --json and of drain diff over those of writing the profile, as ratios (goal: at most 2).
part_drain_reports() {
  local s=$out/streams w=$out/reports k ir
  mkdir -p "$w"
  "$drain" -q -o "$w/new.pb.gz" "$s/sites5b.bin" 2>"$w/new.err" || { tail -5 "$w/new.err"; return 1; }
  local -A run=([profile]="-q -o $w/base.pb.gz $s/sites5.bin"
    [json]="-q -o $w/json.pb.gz --json $w/s5.json $s/sites5.bin"
    [diff]="diff $w/base.pb.gz $w/new.pb.gz --json $w/diff.json")
  for k in profile json diff; do # profile first: diff reads its base.pb.gz
    # shellcheck disable=SC2086 # the run's words
    valgrind --tool=callgrind --callgrind-out-file="$w/cg.$k" "$drain" ${run[$k]} >/dev/null 2>"$w/cg.$k.err" ||
      { tail -5 "$w/cg.$k.err"; return 1; }
    ir=$(ir_of "$w/cg.$k")
    [ -n "$ir" ] || { echo "no instruction count in $w/cg.$k"; return 1; }
    echo "$ir" >"$w/ir.$k"
    # shellcheck disable=SC2086
    "$out/maxrss" "$w/rss.$k" "$drain" ${run[$k]} >/dev/null 2>"$w/$k.err" || { tail -5 "$w/$k.err"; return 1; }
  done
  for k in json diff; do
    awk -v k="$k" -v p="$(cat "$w/ir.profile")" '{ printf "drain.%s-instructions-ratio\t%.2f\n", k, $1 / p }' \
      "$w/ir.$k" >>"$1"
    awk -v k="$k" -v p="$(cat "$w/rss.profile")" '{ printf "drain.%s-peak-rss-ratio\t%.2f\n", k, $1 / p }' \
      "$w/rss.$k" >>"$1"
  done
}

prefix_of() {
  case $1 in size) echo size. ;; hosted) echo hosted. ;; demo) echo demo. ;; wrappers) echo wrapper. ;;
    ports) echo ports. ;; drain) echo drain. ;; *) return 1 ;; esac
}

measured=$out/measured.tsv
: >"$measured"
prefixes=""
failed=""
for p in $parts; do
  pre=$(prefix_of "$p") || { echo "budgets: no part '$p' (parts: size hosted demo wrappers ports drain)"; exit 2; }
  prefixes="$prefixes $pre"
  start=$(date +%s)
  rm -f "$out/$p.tsv"
  if ! "part_$p" "$out/$p.tsv"; then
    echo "could not measure $p (its measures are reported as not measured below)"
    failed="$failed $p"
  fi
  [ -f "$out/$p.tsv" ] && cat "$out/$p.tsv" >>"$measured"
  echo "part $p: $(($(date +%s) - start)) s"
done

# shellcheck disable=SC2086 # one argument per prefix
tests/budgets/compare.sh "$table" "$measured" $prefixes
st=$?
[ -z "$failed" ] || { echo "budgets: could not measure:$failed"; st=1; }

# The README's Numbers table: each figure as this run measured it, to its rounding
# (tests/budgets/numbers.py; `make readme-numbers` rewrites it). Not with another tree's drain.
readme=${BUDGETS_README:-README.md}
if [ -n "${BUDGETS_DRAIN:-}" ]; then
  echo "README Numbers: not judged (BUDGETS_DRAIN measures another drain)"
else
  # shellcheck disable=SC2086 # one argument per prefix
  readme_said=$(tests/budgets/numbers.py check "$readme" "$measured" $prefixes) || st=1
  echo "$readme_said"
fi

if [ "${BUDGETS_SELFTEST:-}" = 1 ]; then
  # The judge on a table whose every budget is just below its measure (a tenth of a unit, or 1 for
  # whole numbers; 0 stays 0 and passes): it must fail, with a "budget exceeded" line for each.
  low=$out/selftest.tsv
  awk -F'\t' -v OFS='\t' 'FNR == NR { v[$1] = $2; next }
    /^#/ || /^[ \t]*$/ { print; next }
    $1 in v && v[$1] > 0 { $2 = (v[$1] ~ /\./) ? sprintf("%.2f", v[$1] - 0.01) : sprintf("%.0f", v[$1] - 1) } { print }' \
    "$measured" "$table" >"$low"
  want=$(awk -F'\t' '$2 > 0' "$measured" | wc -l)
  # shellcheck disable=SC2086 # one argument per prefix
  sel=$(tests/budgets/compare.sh "$low" "$measured" $prefixes)
  sst=$?
  got=$(grep -c '^budget exceeded: ' <<<"$sel")
  echo "self-test, every budget lowered just below its measure: exit $sst, $got of $want measures exceeded, e.g."
  grep -m2 '^budget exceeded: ' <<<"$sel" | sed 's/^/  /'
  if [ "$sst" = 0 ] || [ "$got" != "$want" ]; then
    echo "FAIL: the lowered table should fail every measure over 0"; st=1
  fi
  # The README's check on a copy with one figure edited by hand (ten units of its rounding off).
  if [ -z "${BUDGETS_DRAIN:-}" ]; then
    # shellcheck disable=SC2086 # one argument per prefix
    what=$(tests/budgets/numbers.py edit "$readme" "$measured" "$out/README-edited.md" $prefixes) ||
      { echo "FAIL: no README figure to edit"; st=1; }
    # shellcheck disable=SC2086 # one argument per prefix
    sel=$(tests/budgets/numbers.py check "$out/README-edited.md" "$measured" $prefixes)
    sst=$?
    # What the check says of the edited copy beyond what it says of the README itself.
    more=$(grep ' shows ' <<<"$sel" | grep -vxF -f <(grep ' shows ' <<<"$readme_said") )
    echo "self-test, the README with $what: exit $sst"
    printf '  %s\n' "$more"
    if [ "$sst" != 1 ] || [ "$(grep -c . <<<"$more")" != 1 ]; then
      echo "FAIL: the edited README should fail on that figure, one line more than the README"; st=1
    fi
  fi
fi
exit $st
