#!/usr/bin/env bash
# Allocated as peers count it (docs/DRAIN.md "Realloc chains"): chains_app's realloc chains (arrays
# doubled 1 KiB -> 1 MiB, 100 -> 1000 -> 4000 byte chains) against the program's own truth, per
# leaf function: every block the allocator returns counts in alloc_objects/alloc_space at the
# function that asked for it. Run at a pinned interval (MSAMP_INTERVAL_PIN=1) and at a rising one
# (a small live table: the adaptive interval raises and thins), RUNS seeds each. Per site and mode
# the estimates are pooled (their mean over the runs): its bias against the truth must be below
# 3 standard errors (the runs' own standard deviation / sqrt(RUNS), at least the Poisson-sampling
# one at the start interval: sqrt(sum s^2 (1 - p) / p / RUNS)); at the pinned interval the in-use
# totals too (in-use follows the chain: its first site, its latest size; the split between sites is
# not checked). At the rising interval the filler (small_keep) and the totals over everything are
# reported, not checked: a site whose blocks mostly stay live reads high there (about +5 % at
# small_keep over 30 seeds, without any realloc) because the profile raises a site's allocated
# values to its in-use when a replayed thinning's survivors weigh more than the site was counted
# at (alloc_raised, docs/DRAIN.md): E[max(allocated, in use)] is above the truth. Not a chain
# matter: with that raise left out the same runs read +1.3 % (1.25 se).
# Needs DRAIN, APP, W; RUNS (default 16), R (default 4096).
set -u
here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-16}
R=${R:-4096}
rm -rf "$W"
mkdir -p "$W"
nfail=0
fail() { echo "FAIL: $*" >&2; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }

# One mode's RUNS runs from seed OFF+1; sets n, the values beyond 3 se.
run_mode() {
  local mode=$1 off=$2 seed b
  : >"$W/$mode.est"
  for seed in $(seq $((off + 1)) $((off + runs))); do
    b=$W/$mode.$seed
    if [ $mode = pinned ]; then
      env MSAMP_OUTPUT=$b.bin MSAMP_INTERVAL=$R MSAMP_INTERVAL_PIN=1 MSAMP_SEED=$seed \
        "$APP" "$W/truth" || fail "chains_app exit $?"
    else
      env MSAMP_OUTPUT=$b.bin MSAMP_INTERVAL=$R MSAMP_LIVE_CAPACITY=1024 MSAMP_SEED=$seed \
        "$APP" "$W/truth" || fail "chains_app exit $?"
    fi
    "$DRAIN" -q -o "$b.pb.gz" --elf "$APP" "$b.bin" 2>"$b.err" || { fail "drain exit $?"; cat "$b.err"; }
    "$here/pprof_sum.sh" "$b.pb.gz" | sed "s/^/$((seed - off)) /" >>"$W/$mode.est"
    if [ $mode = rising ] && [ "$seed" = $((off + 1)) ]; then
      "$here/../drain/gopprof.sh" -comments "$b.pb.gz" 2>/dev/null | grep -m1 'adapted' >"$W/rising.story"
      grep -q 'raise' "$W/rising.story" && ok "rising: $(cat "$W/rising.story")" ||
        fail "rising: the interval did not rise"
    fi
  done
  # est lines: "SEED FUNC TYPE VALUE"; truth: "site NAME an ab in ib", "total - an ab in ib".
  # CHAINS: the chains' sites together (all but small_keep).
  awk -v mode=$mode -v runs="$runs" '
    FNR == NR { k = ($1 == "total") ? "TOTAL" : $2; site[++ns] = k
                tr[k, "alloc_objects"] = $3; tr[k, "alloc_space"] = $4
                tr[k, "inuse_objects"] = $5; tr[k, "inuse_space"] = $6
                hv[k, "alloc_objects"] = $7; hv[k, "alloc_space"] = $8
                if (k != "TOTAL" && k != "small_keep") {
                  tr["CHAINS", "alloc_objects"] += $3; tr["CHAINS", "alloc_space"] += $4
                  hv["CHAINS", "alloc_objects"] += $7; hv["CHAINS", "alloc_space"] += $8 }
                next }
    { v[$2, $3, $1] += $4
      if ($2 ~ /^(arr_|chain_)/) v["CHAINS", $3, $1] += $4 }
    END {
      site[++ns] = "CHAINS"
      for (s = 1; s <= ns; s++) {
        k = site[s]
        for (t = 1; t <= 4; t++) {
          ty = (t == 1) ? "alloc_objects" : (t == 2) ? "alloc_space" : (t == 3) ? "inuse_objects" : "inuse_space"
          if (t > 2 && k != "TOTAL") continue
          m = 0; for (r = 1; r <= runs; r++) m += v[k, ty, r]; m /= runs
          q = 0; for (r = 1; r <= runs; r++) q += (v[k, ty, r] - m) ^ 2
          se = sqrt(q / (runs - 1) / runs)
          # Not below the Poisson-sampling standard error at the start interval (few runs can
          # underestimate it by chance; a rising interval only makes it larger).
          hse = sqrt(hv[k, ty] / runs)
          if (hse > se) se = hse
          bias = m - tr[k, ty]
          z = se > 0 ? bias / se : (bias == 0 ? 0 : 99)
          rel = tr[k, ty] ? 100 * bias / tr[k, ty] : 0
          bad = (z > 3 || z < -3)
          # The filler at a rising interval: reported, not checked (alloc_raised, see above; so
          # are the totals over everything).
          # In use at a rising interval: reported too (this test is about allocated).
          filler = mode == "rising" && (k == "small_keep" || k == "TOTAL")
          if (filler && bad) bad = 2
          printf "%s %s %s %s: truth %d, pooled estimate %.0f, bias %+.1f %% = %+.2f se (se %.0f)%s\n",
            (bad == 1 ? "FAIL:" : bad ? "note:" : filler ? "note:" : "ok:"), mode, k, ty, tr[k, ty], m, rel, z, se,
            (bad == 1 ? "  BIASED" : bad ? "  (not checked: the filler, see above)" : "")
        }
      }
    }' "$W/truth" "$W/$mode.est" >"$W/$mode.check"
  cat "$W/$mode.check"
  n=$(grep -c '^FAIL:' "$W/$mode.check")
}

# Pinned runs are the same every time (fixed seeds). Rising ones are not (when the writer thread's
# thinning passes fall depends on the machine), and a dozen checked values at 3 se each leave a
# few per cent of unbiased runs with one beyond it by chance: a rising set that flags is run again
# with other seeds, and fails only when that one flags too (a real bias does, by far).
for mode in pinned rising; do
  run_mode $mode 0
  if [ "$n" != 0 ] && [ $mode = rising ]; then
    echo "note: rising: $n value(s) beyond 3 se in seeds 1..$runs; again with seeds $((runs + 1))..$((2 * runs))"
    run_mode $mode "$runs"
  fi
  [ "$n" = 0 ] && ok "$mode: every site's allocated and the in-use totals within 3 se of the truth ($runs runs)" ||
    fail "$mode: $n value(s) biased beyond 3 se"
done
[ $nfail = 0 ] && echo "t_chains: all passed" || echo "t_chains: $nfail failed"
[ $nfail = 0 ]
