#!/usr/bin/env bash
# Usage: tests/hosted/scale.sh APP DRAIN DUMP WORKDIR [adaptive|pinned|all]   (default all)
# The adaptive interval at scale. APP is tests/hosted/scale_app.c: about 10^6 blocks (350 MB) live
# across six sites of 24 B to 1 MiB, plus short-lived blocks. DRAIN is host_tools/drain (the
# estimates), DUMP host_tools/msamp-dump (the stream's SESSION and INTERVAL records: the table's
# capacity and every change of the interval).
#
# adaptive: the default live table (65536 slots), start interval 16 B, 5 fixed seeds. At 16 B the
#   live set's expected samples, sum over live blocks of p(s, R) = 1 - exp(-s/R), are 852,000: 13x
#   the table (printed per run from the truth). The library must raise its interval and thin the
#   table; drain replays the thinning and weights each entry by the interval it stands for. Checks:
#   in-use and allocated byte totals within 2 % of the truth, and the in-use bytes of every site
#   holding >= 5 % of the live bytes within 10 %.
# pinned: MSAMP_INTERVAL_PIN=1, MSAMP_LIVE_CAPACITY=4096, one seed, a tenth of the live set: the
#   behaviour before adaptation: the interval never changes and drain reports live_full > 0 (the
#   estimates, printed, are far too low: that is the bug adaptation fixes).
#
# Where the bounds come from. After thinning, each live block of s bytes is in the table with
# probability P = p(s, R_final) (a block sampled at R and kept with probability p(s, R')/p(s, R) at
# each raise is there with probability p(s, R')), independently (different slots' coins), and drain
# weights it 1/P (Horvitz-Thompson). So an in-use estimate is unbiased with
#     Var = sum over live blocks of s^2 (1 - P) / P,   P = p(s, R_final).
# s^2 (1 - p)/p grows with R, so the same sum at R_max, the largest interval of the run, bounds it
# when the interval was also lowered (an entry then stands for the interval it was sampled or last
# thinned at, <= R_max), and bounds the allocated bytes' variance (each allocation sampled at the
# interval then in force, <= R_max). check_run computes these sd's from the truth at R_max, prints
# the z-scores, and fails if a bound is less than 4 sd (the workload would be too noisy to test:
# change scale_app's counts), so a correct library fails a check with probability below 1e-4.
# The workload's design: blocks much larger than R_final are in the table with P ~ 1 and cost no
# variance; for s << R, s^2 (1 - P)/P ~ s R, so the small blocks' B bytes give sd ~ sqrt(R B). With
# 45 % of the live bytes in 1 MiB blocks and 9 % in blocks of 24 and 64 B, the in-use total's sd is
# 0.11 % of it at R_final = 4 KiB (the final interval simulated for 8-way buckets that also raise
# when one is full), so 2 % = 18 sd; it stays >= 4 sd up to R_final = 32 KiB. The sites' worst case
# (site_small, 64 B blocks, 6.6 % of the bytes) is 10 % = 7.6 sd at 4 KiB, 5.3 sd at 8 KiB.
# Each app run takes a few seconds (10^6 mallocs, samples and thinning); drain well under one.
set -eu
app=$1 drain=$2 dump=$3 dir=$4 mode=${5:-all}
R0=16
SEEDS="1 2 3 4 5"

for f in "$app" "$drain" "$dump"; do
  [ -x "$f" ] || { echo "FAIL: $f is missing or not executable" >&2; exit 1; }
done
mkdir -p "$dir"
unset MSAMP_INTERVAL MSAMP_INTERVAL_MIN MSAMP_INTERVAL_MAX MSAMP_INTERVAL_PIN MSAMP_LIVE_CAPACITY \
  MSAMP_STACK_CAPACITY MSAMP_DISABLE MSAMP_FLUSH
start=$(date +%s.%N)
failed=0

# run NAME SEED PERMILLE [VAR=VALUE...]: runs the app and drain; leaves NAME.truth, NAME.app (its
# stdout), NAME.top (drain's report), NAME.pb.gz, NAME.meta (drain's interval line and drops) and
# NAME.iv (the stream's SESSION and INTERVAL records, in order).
run() {
  local name=$1 seed=$2 permille=$3
  shift 3
  rm -f "$dir/$name".*.bin "$dir/$name.pb.gz" "$dir/$name.top" "$dir/$name.meta"
  local t0
  t0=$(date +%s.%N)
  env MSAMP_OUTPUT="$dir/$name.%p.bin" MSAMP_SEED="$seed" MSAMP_INTERVAL="$R0" "$@" \
    ${RUNNER:-} "$app" "$dir/$name.truth" "$permille" > "$dir/$name.app" ||
    { echo "FAIL: $name: $app exited $?" >&2; return 1; }
  local t1 stream
  t1=$(date +%s.%N)
  stream=$(ls "$dir/$name".*.bin)
  "$drain" --elf "$app" --top 100000 -o "$dir/$name.pb.gz" "$stream" > "$dir/$name.top" \
    2> "$dir/$name.drain" || { cat "$dir/$name.drain" >&2; echo "FAIL: $name: drain exited $?" >&2; return 1; }
  # The profile's comments (pprof string table): the interval line and the device's drop counters.
  gzip -dc "$dir/$name.pb.gz" | tr -c '[:print:]' '\n' |
    grep -oE 'sampling interval: [0-9]+ bytes \(first [0-9]+, [0-9]+ changes\)|device drops:( [a-z_]+=[0-9]+)+' \
    > "$dir/$name.meta" || true
  "$dump" "$stream" | grep -E '^(SESSION|INTERVAL) ' > "$dir/$name.iv" ||
    { echo "FAIL: $name: no SESSION record in the stream" >&2; return 1; }
  awk -v a="$t0" -v b="$t1" -v c="$(date +%s.%N)" -v n="$name" \
    'BEGIN { printf "== %s: app %.1f s, drain and msamp-dump %.1f s\n", n, b - a, c - b }'
}

# field KEY FILE: the number after "KEY=" in FILE (empty when absent).
field() { grep -oE "(^| )$1=[0-9]+" "$2" | head -1 | sed 's/.*=//'; }

# intervals NAME: "CAPACITY FIRST FINAL MAX RAISES LOWERS DRAIN_FINAL DRAIN_CHANGES" of a run: the
# device's live table and its intervals from the stream (msamp-dump), and what drain reports.
intervals() {
  local name=$1 line dfinal dchanges
  line=$(grep -m1 '^sampling interval' "$dir/$name.meta" || true)
  dfinal=$(sed -nE '1s/^session .*, interval ([0-9]+) bytes\).*/\1/p' "$dir/$name.top")
  dchanges=$(echo "$line" | sed -nE 's/.*, ([0-9]+) changes\).*/\1/p')
  awk -v df="${dfinal:-?}" -v dc="${dchanges:-?}" '
    { iv = ""; cap = ""
      for (i = 2; i <= NF; i++) {
        if ($i ~ /^interval=/) iv = substr($i, 10) + 0
        if ($i ~ /^live_capacity=/) cap = substr($i, 15) + 0
      }
      if (cap != "" && c == "") c = cap
      if (iv == "") next
      if (first == "") first = iv
      else if (iv > last) up++
      else if (iv < last) down++
      last = iv; if (iv > max) max = iv
    }
    END { printf "%s %s %s %s %d %d %s %s\n", (c == "" ? "?" : c), (first == "" ? "?" : first), (last == "" ? "?" : last), (max == "" ? "?" : max), up, down, df, dc }' "$dir/$name.iv"
}

# check_run NAME: the estimates of NAME.top against NAME.truth, sd's at the run's largest interval.
check_run() {
  local name=$1 cap first final max raises lowers dfinal dchanges
  read -r cap first final max raises lowers dfinal dchanges <<< "$(intervals "$name")"
  local live_full
  live_full=$(field live_full "$dir/$name.meta")
  echo "interval: start $R0, first $first, final $final, max $max; $raises raises, $lowers lowers" \
    "(stream); drain: final $dfinal, $dchanges changes; live_full ${live_full:-?}"
  grep '^stats' "$dir/$name.app" || true
  [ "$max" != "?" ] && [ "$cap" != "?" ] || { echo "FAIL: no interval or capacity in the stream"; return 1; }
  [ "$dfinal" = "$final" ] || { echo "FAIL: drain's final interval $dfinal is not the stream's $final"; return 1; }
  awk -v R0="$R0" -v R="$max" -v cap="$cap" -f - "$dir/$name.truth" "$dir/$name.top" <<'EOF'
function p(s, r) { return r <= 1 ? 1 : 1 - exp(-s / r) }
function v(s, r,   q) { q = p(s, r); return s * s * (1 - q) / q }
function abs(x) { return x < 0 ? -x : x }
FNR == NR && $1 == "site" {
  s = $3; if (!($2 in lb)) order[++n] = $2; lb[$2] += $5 * s; ab[$2] += $4 * s; L += $5 * s; A += $4 * s
  vl[$2] += $5 * v(s, R); VL += $5 * v(s, R); VA += $4 * v(s, R); E0 += $5 * p(s, R0)
  next
}
FNR == NR { next }
/^top .* by in-use bytes/ { sec = "inuse"; next }
/^top .* by allocated bytes/ { sec = "alloc"; next }
/^session / { sec = ""; next }
sec != "" && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 4 {
  if (sec == "inuse") { el[$4] += $1; EL += $1 } else { ea[$4] += $1; EA += $1 }
}
END {
  bad = 0
  printf "truth: %.1f MB live, %.1f MB allocated; live samples expected at the start interval %d: %.0f = %.1fx the live table (%d)\n", L / 1e6, A / 1e6, R0, E0, E0 / cap, cap
  if (E0 < 10 * cap) { print "FAIL: the live set is less than 10x the table at the start interval"; bad = 1 }
  printf "  %-12s %14s %14s %8s %7s %6s %8s\n", "estimate", "truth", "drain", "error", "sd", "z", "bound"
  bad += line("in-use total", L, EL, sqrt(VL), 0.02)
  bad += line("alloc total", A, EA, sqrt(VA), 0.02)
  for (i = 1; i <= n; i++) {
    k = order[i]
    if (lb[k] >= 0.05 * L) bad += line(k, lb[k], el[k], sqrt(vl[k]), 0.10)
    else line(k " *", lb[k], el[k], sqrt(vl[k]), 0)
  }
  print "  (* under 5 % of the live bytes: not checked)"
  exit bad ? 1 : 0
}
function line(what, t, e, sd, bound,   err, z, r) {
  err = (e - t) / t; z = sd > 1e-9 * t ? (e - t) / sd : (e == t ? 0 : 999)
  printf "  %-12s %14d %14d %+7.2f%% %6.2f%% %7.2f %s\n", what, t, e, 100 * err, 100 * sd / t, z, (!bound ? "-" : sd > 1e-9 * t ? sprintf("%.0f%% = %.1f sd", 100 * bound, bound * t / sd) : sprintf("%.0f%%, exact", 100 * bound))
  if (!bound) return 0
  r = 0
  if (abs(err) > bound) { printf "FAIL: %s off by %.2f%% (bound %.0f%%)\n", what, 100 * err, 100 * bound; r = 1 }
  if (bound * t < 4 * sd) { printf "FAIL: %s: the %.0f%% bound is only %.1f sd at interval %d: the workload is too noisy to test\n", what, 100 * bound, bound * t / sd, R; r = 1 }
  return r
}
EOF
}

if [ "$mode" = adaptive ] || [ "$mode" = all ]; then
  echo "== adaptive: default live table, start interval $R0, seeds $SEEDS"
  for seed in $SEEDS; do
    name=adaptive-seed$seed
    run "$name" "$seed" 1000 || { failed=1; continue; }
    check_run "$name" || failed=1
  done
fi

if [ "$mode" = pinned ] || [ "$mode" = all ]; then
  echo "== pinned: MSAMP_INTERVAL_PIN=1, MSAMP_LIVE_CAPACITY=4096, a tenth of the live set"
  name=pinned
  if run "$name" 1 100 MSAMP_INTERVAL_PIN=1 MSAMP_LIVE_CAPACITY=4096; then
    read -r cap first final max raises lowers dfinal dchanges <<< "$(intervals "$name")"
    live_full=$(field live_full "$dir/$name.meta")
    echo "live table $cap; interval: start $R0, first $first, final $final, max $max; $raises raises," \
      "$lowers lowers (stream); drain: final $dfinal, $dchanges changes; live_full ${live_full:-?}"
    grep '^stats' "$dir/$name.app" || true
    if [ "$first" != "$R0" ] || [ "$final" != "$R0" ] || [ "$max" != "$R0" ] ||
      [ "$dfinal" != "$R0" ] || [ "$dchanges" != 0 ]; then
      echo "FAIL: pinned: the interval changed"; failed=1
    fi
    [ "$cap" = 4096 ] || { echo "FAIL: pinned: the live table has $cap slots, not MSAMP_LIVE_CAPACITY=4096"; failed=1; }
    if [ -z "$live_full" ] || [ "$live_full" -eq 0 ]; then
      echo "FAIL: pinned: drain reports no live_full drops"; failed=1
    fi
    awk '$1 == "total" { printf "in-use estimate (not checked): truth %d bytes, ", $3 }' "$dir/$name.truth"
    awk '/^top .* by in-use/ { s = 1; next } /^top .* by allocated/ { s = 0 }
         s && $1 ~ /^[0-9]+$/ && NF >= 4 { e += $1 } END { printf "drain %d\n", e }' "$dir/$name.top"
  else
    failed=1
  fi
fi

awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "total time %.1f s\n", b - a }'
if [ $failed -ne 0 ]; then echo "FAIL"; exit 1; fi
echo "PASS"
