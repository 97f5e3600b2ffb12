#!/usr/bin/env bash
# Leaks by growth on a hosted program (docs/VERDICTS.md "Leaks by growth"): growth_app ($APP) has
# a steady leak (leak_record, 40 MB over the run), a bounded cache that fills then levels off
# (cache_insert), a set allocated once and kept (keep_table), churn (churn_buf) and (GROWTH_POOL=1)
# a pool of the leak's 40 MB allocated at once at 70 % of the run, then kept (pool_once: a step).
# Over SEEDS seeds at the default interval (512 KiB), 64 KiB, 16 KiB and 4 KiB, drain must call
# leak_record a leak and nothing else, list pool_once as a step and nothing else, and its views
# must agree (tests/analysis/leaks_agree.sh): --leaks, the heap verdict of --top (glibc's heap:
# "leak", its sites the leaks'; docs/HEALTH.md) and --json's leaks, steps and heap. drain merge
# keeps the verdicts (docs/VERDICTS.md).
set -u
export MSAMP_HEAP_WALK_US=1000000000 # every walk: glibc's exact heap figures (docs/HEALTH.md)
D=${DRAIN:?} app=${APP:?} W=${W:?}
SEEDS=${SEEDS:-5}
here=$(dirname "$0")
nfail=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
rm -rf "$W" && mkdir -p "$W"

for iv in 524288 65536 16384 4096; do
  agree=0
  for seed in $(seq 1 "$SEEDS"); do
    w=$W/i$iv.s$seed
    # The pool must fall in the run's later half by the clock, where drain looks (the app prints
    # where it fell: about 0.7); a run descheduled long enough before it (CI's load: 0.135 s runs)
    # puts it earlier, and is run again, at most 4 times, rather than the check made weaker.
    for try in 1 2 3 4; do
      GROWTH_POOL=1 MSAMP_OUTPUT=$w.bin MSAMP_INTERVAL=$iv MSAMP_SEED=$seed "$app" >"$w.app" ||
        fail "growth_app seed $seed: exit $?"
      at=$(awk '$1 == "pool_at" { print $2 }' "$w.app")
      awk -v a="${at:-0}" 'BEGIN { exit !(a >= 0.6) }' && break
      echo "  interval $iv seed $seed: the pool fell at ${at:-?} of the run by the clock (want >= 0.6): run again ($try of 4)"
    done
    "$D" -q "$w.bin" --elf "$app" -o "$w.pb.gz" --leaks -t 1 --json "$w.json" >"$w.out" 2>"$w.err" ||
      fail "drain interval $iv seed $seed: exit $? ($(head -c 300 "$w.err"))"
    if "$here/leaks_agree.sh" leak_record pool_once "$w.json" "$w.out" >"$w.agree"; then
      agree=$((agree + 1))
    else
      echo "  interval $iv seed $seed: $(cat "$w.agree")"
      sed -n '/^leaks by growth/,$p;/^  verdict/,/^  [a-z]/p' "$w.out"
    fi
  done
  [ "$agree" = "$SEEDS" ] &&
    ok "interval $iv: leak_record alone a leak, pool_once alone a step, the heap verdict leak with leak_record, --leaks, --top and --json agreeing, in $agree of $SEEDS seeds" ||
    fail "interval $iv: $((SEEDS - agree)) of $SEEDS seeds other than leak_record alone a leak and pool_once alone a step in every view"
done

# drain merge keeps the verdicts at the merged site: a profile merged with itself (the same stacks:
# two devices of one build) has one leak verdict, its slope twice the input's, and one step, its
# bytes twice the input's (docs/VERDICTS.md).
w=$W/i16384.s1
"$D" merge "$W/m.pb.gz" "$w.pb.gz" "$w.pb.gz" || fail "drain merge: exit $?"
field() { zcat "$1" | grep -a -o "msamp-verdict $2|[^|]*|$3=[-0-9.e+]*" | sed "s/.*$3=//"; }
for v in "leak slope" "step bytes"; do
  set -- $v
  in=$(field "$w.pb.gz" "$1" "$2") out=$(field "$W/m.pb.gz" "$1" "$2")
  [ "$(echo "$out" | wc -l)" = 1 ] && awk -v a="$in" -v b="$out" 'BEGIN { exit !(b == 2 * a && a > 0) }' &&
    ok "merge of a profile with itself: one $1 verdict, $2 $out = 2 x $in" ||
    fail "merge of a profile with itself: $1 $2 [$out], the input's [$in]"
done
exit $((nfail > 0))
