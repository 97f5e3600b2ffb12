#!/usr/bin/env bash
# Leaks by growth on a hosted program (docs/VERDICTS.md "Leaks by growth"): growth_app ($APP) has
# a leaking site (leak_record), a bounded cache that fills then levels off (cache_insert), a set
# allocated once and kept (keep_table) and churn (churn_buf). Over SEEDS seeds at the default
# interval (512 KiB) and at 16 KiB, drain --leaks must call leak_record a leak and nothing else.
# drain merge keeps the verdict (docs/VERDICTS.md).
set -u
D=${DRAIN:?} app=${APP:?} W=${W:?}
SEEDS=${SEEDS:-5}
nfail=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
rm -rf "$W" && mkdir -p "$W"

for iv in 524288 16384; do
  called=0 wrong=0
  for seed in $(seq 1 "$SEEDS"); do
    w=$W/i$iv.s$seed
    MSAMP_OUTPUT=$w.bin MSAMP_INTERVAL=$iv MSAMP_SEED=$seed "$app" || fail "growth_app seed $seed: exit $?"
    "$D" -q "$w.bin" --elf "$app" -o "$w.pb.gz" --leaks >"$w.out" 2>"$w.err" ||
      fail "drain interval $iv seed $seed: exit $? ($(head -c 300 "$w.err"))"
    # The leak lines: "  +RATE/s [LO/s, HI/s] since T s  SITE"; SITE's innermost function.
    sed -n '/^leaks by growth/,$p' "$w.out" | grep '^  +' | sed 's/.* since [0-9.]* s  //' |
      awk '{ print $1 }' >"$w.leaks"
    if [ "$(cat "$w.leaks")" = "leak_record" ]; then
      called=$((called + 1))
    else
      wrong=$((wrong + 1))
      echo "  interval $iv seed $seed: called [$(tr '\n' ' ' <"$w.leaks")], want leak_record alone"
      sed -n '/^leaks by growth/,$p' "$w.out"
    fi
    # The verdict is in the profile: drain merge keeps it (one input: the same leak).
  done
  [ "$wrong" = 0 ] && ok "interval $iv: leak_record alone called a leak in $called of $SEEDS seeds (not the cache, the kept set or the churn)" ||
    fail "interval $iv: $wrong of $SEEDS seeds called other than leak_record alone"
done

# drain merge keeps the verdict at the merged site: a profile merged with itself (the same stacks:
# two devices of one build) has one leak verdict, its slope twice the input's (docs/VERDICTS.md).
w=$W/i16384.s1
"$D" merge "$W/m.pb.gz" "$w.pb.gz" "$w.pb.gz" || fail "drain merge: exit $?"
slopes() { zcat "$1" | grep -a -o 'msamp-verdict leak|[^|]*|slope=[-0-9.e+]*' | sed 's/.*slope=//'; }
in=$(slopes "$w.pb.gz") out=$(slopes "$W/m.pb.gz")
[ "$(echo "$out" | wc -l)" = 1 ] && awk -v a="$in" -v b="$out" 'BEGIN { exit !(b == 2 * a && a > 0) }' &&
  ok "merge of a profile with itself: one leak verdict, slope $out = 2 x $in" ||
  fail "merge of a profile with itself: slopes [$out], the input's [$in]"
exit $((nfail > 0))
