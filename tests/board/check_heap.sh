#!/usr/bin/env bash
# Usage: tests/board/check_heap.sh OUTDIR [EXPECT...]
# Heap health (docs/HEALTH.md) of a demo run (boards/examples/demo/run_demo.sh: OUTDIR/console.txt,
# the firmware's lines; OUTDIR/drain.txt, drain's --top report):
#   figures  drain's free, min_free and largest_free (the latest HEAP record: msamp_end's) equal
#            the allocator's own figures the firmware printed at the end ("msamp-demo heap ...")
# and each EXPECT:
#   leak=FUNC  the verdict says leak, and FUNC is among the leaks by growth it names
#   frag=FUNC  the verdict says fragmentation, and FUNC among the sites of long-lived blocks
#   fragfail   the firmware's fragmentation failure ("msamp-freertos frag asked=N ...") is
#              explained as "asked N B, F B free, largest free block L B: fragmentation" with
#              L < N <= F (the heap as the failure left it)
# Prints ok:/FAIL: lines; exits 1 on a failure.
set -u
out=${1:?outdir}; shift
console=$out/console.txt; report=$out/drain.txt
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
fig() { sed -n "s/^$1.* $2=\([0-9?]*\).*/\1/p" "$3" | head -1; }
for k in free min_free largest_free; do
  want=$(fig 'msamp-demo heap' $k "$console") got=$(fig 'heap (the allocator' $k "$report")
  [ -n "$want" ] && [ "$want" = "$got" ] && ok "$k: drain $got = the allocator's $want" ||
    bad "$k: drain '${got}', the allocator's '${want}' ($(grep -m1 '^heap' "$report"))"
done
verdict=$(sed -n 's/^  verdict: //p' "$report")
for e in "$@"; do
  case $e in
  leak=*)
    f=${e#leak=}
    [[ $verdict == *leak* ]] && grep -q "^    leak: +.* since .*$f" "$report" &&
      ok "verdict '$verdict', leak $f named" ||
      bad "want a leak at $f: verdict '$verdict'; $(grep '^    leak' "$report" | tr '\n' ';')"
    ;;
  frag=*)
    f=${e#frag=}
    [[ $verdict == *fragmentation* ]] && grep -q "^    long-lived blocks between the holes: .*$f" "$report" &&
      ok "verdict '$verdict', long-lived site $f named" ||
      bad "want fragmentation with $f: verdict '$verdict'; $(grep '^    long-lived' "$report" | tr '\n' ';')"
    ;;
  fragfail)
    asked=$(fig 'msamp-freertos frag' asked "$console")
    line=$(grep -m1 "^  failure: asked $asked B," "$report")
    read -r F L < <(sed -n 's/.*, \([0-9]*\) B free, largest free block \([0-9]*\) B: fragmentation .*/\1 \2/p' <<<"$line")
    [ -n "$asked" ] && [ -n "${L:-}" ] && [ "$L" -lt "$asked" ] && [ "$asked" -le "$F" ] &&
      ok "the failure explained: ${line#  failure: }" ||
      bad "no failure of $asked B explained as fragmentation: '$line'"
    ;;
  *) bad "unknown expectation $e" ;;
  esac
done
exit $fail
