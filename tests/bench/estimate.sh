#!/usr/bin/env bash
# Usage: tests/bench/estimate.sh APP DRAIN DUMP OUTDIR
# Estimate error of the adaptive interval against the live set's size. APP is
# tests/hosted/scale_app.c, DRAIN host_tools/drain, DUMP host_tools/msamp-dump. A live table of 4096 slots (MSAMP_LIVE_CAPACITY),
# start interval 16 B, and the live set scaled (scale_app's PERMILLE) so that its expected samples
# at the start interval, sum over live blocks of 1 - exp(-s/16), are 1, 10 and 100 times the table.
# For each ratio, over SEEDS (default 5) fixed seeds: the mean absolute error of the in-use total
# and of the worst site holding >= 5 % of the live bytes, each also as a ratio to the ratio-1
# baseline measured in the same run; the sd the run's largest interval predicts for the in-use
# total (sum s^2 (1 - P)/P, P = p(s, R_max); tests/hosted/scale.sh), the final intervals, and the
# in-use error of one run with the interval pinned (MSAMP_INTERVAL_PIN=1: the behaviour before
# adaptation). Writes OUTDIR/results.txt as well.
set -eu
app=$1 drain=$2 dump=$3 out=$4
CAP=${CAP:-4096} R0=16 SEEDS=${SEEDS:-"1 2 3 4 5"}
for f in "$app" "$drain" "$dump"; do
  [ -x "$f" ] || { echo "$f is missing or not executable" >&2; exit 1; }
done
mkdir -p "$out"
res=$out/results.txt
: > "$res"
say() { echo "$*" | tee -a "$res"; }
unset MSAMP_INTERVAL MSAMP_INTERVAL_MIN MSAMP_INTERVAL_MAX MSAMP_INTERVAL_PIN MSAMP_LIVE_CAPACITY \
  MSAMP_STACK_CAPACITY MSAMP_DISABLE MSAMP_FLUSH
start=$(date +%s.%N)

# Expected live samples at the start interval, from a truth file.
expected() { awk -v R="$R0" '$1 == "site" { e += $5 * (1 - exp(-$3 / R)) } END { printf "%.0f", e }' "$1"; }

# One run: NAME SEED PERMILLE [VAR=VALUE...] -> "in-use-error worst-site-error final-interval
# predicted-sd max-interval" (errors and sd as fractions of the truth).
one() {
  local name=$1 seed=$2 permille=$3
  shift 3
  rm -f "$out/$name".*.bin
  env MSAMP_OUTPUT="$out/$name.%p.bin" MSAMP_SEED="$seed" MSAMP_INTERVAL="$R0" \
    MSAMP_LIVE_CAPACITY="$CAP" "$@" "$app" "$out/$name.truth" "$permille" > "$out/$name.app"
  "$drain" --elf "$app" --top 100000 -o "$out/$name.pb.gz" "$out/$name".*.bin > "$out/$name.top" \
    2> "$out/$name.drain"
  local max
  max=$("$dump" "$out/$name".*.bin | awk '/^(SESSION|INTERVAL) / { for (i = 2; i <= NF; i++)
    if ($i ~ /^interval=/ && substr($i, 10) + 0 > m) m = substr($i, 10) + 0 } END { print m + 0 }')
  awk -v M="$max" '
    function p(s, r) { return r <= 1 ? 1 : 1 - exp(-s / r) }
    FNR == NR && $1 == "site" { lb[$2] = $5 * $3; L += $5 * $3; z[$2] = $3; n[$2] = $5; next }
    FNR == NR { next }
    FNR == 1 { R = $0; sub(/.*, interval /, "", R); sub(/ bytes.*/, "", R); R += 0 }
    /^top .* by in-use/ { s = 1; next }
    /^top .* by allocated/ { s = 0 }
    s && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 4 { site = $4 ~ /^\(/ ? $5 : $4; e[site] += $1; E += $1 }
    END {
      for (k in lb) {
        q = p(z[k], M); V += n[k] * z[k] * z[k] * (1 - q) / q
        if (lb[k] >= 0.05 * L) { d = (e[k] - lb[k]) / lb[k]; if (d < 0) d = -d; if (d > w) w = d }
      }
      printf "%.6f %.6f %d %.6f %d\n", (E - L) / L, w, R, sqrt(V) / L, M
    }' "$out/$name.truth" "$out/$name.top"
}

MSAMP_DISABLE=1 "$app" -n "$out/full.truth" 1000 > /dev/null
full=$(expected "$out/full.truth")
say "== estimate error against live set / live table (MSAMP_LIVE_CAPACITY=$CAP, start interval $R0 B,"
say "   seeds: $SEEDS; errors are mean |estimate - truth| / truth; x1: ratio to the ratio-1 row)"
printf '%-6s %7s %8s %-44s %9s %6s %10s %6s %8s %8s\n' ratio actual blocks "final intervals (max)" \
  "in-use" x1 "worst site" x1 "pred sd" pinned | tee -a "$res"
base_t="" base_w=""
for ratio in 1 10 100; do
  permille=$(awk -v r="$ratio" -v c="$CAP" -v f="$full" 'BEGIN { printf "%d", 1000 * r * c / f + 0.5 }')
  [ "$permille" -ge 1 ] || permille=1
  : > "$out/r$ratio.runs"
  for seed in $SEEDS; do
    one "r$ratio-s$seed" "$seed" "$permille" >> "$out/r$ratio.runs"
  done
  pinned=$(one "r$ratio-pinned" 1 "$permille" MSAMP_INTERVAL_PIN=1 | awk '{ printf "%+.2f%%", 100 * $1 }')
  actual=$(awk -v c="$CAP" -v e="$(expected "$out/r$ratio-s1.truth")" 'BEGIN { printf "%.2f", e / c }')
  blocks=$(awk '$1 == "total" { print $4 }' "$out/r$ratio-s1.truth")
  read -r mt mw sd <<< "$(awk '{ t += ($1 < 0 ? -$1 : $1); w += $2; s += $4 } END { printf "%.6f %.6f %.6f", t / NR, w / NR, s / NR }' "$out/r$ratio.runs")"
  finals=$(awk '{ printf "%s%s", (NR > 1 ? "," : ""), $3; if ($5 > m) m = $5 } END { printf " (%d)", m }' "$out/r$ratio.runs")
  [ -n "$base_t" ] || { base_t=$mt; base_w=$mw; }
  awk -v r="$ratio" -v a="$actual" -v b="$blocks" -v f="$finals" -v t="$mt" -v w="$mw" -v bt="$base_t" \
      -v bw="$base_w" -v sd="$sd" -v pin="$pinned" 'BEGIN {
    printf "%-6s %7s %8d %-44s %8.3f%% %6s %9.3f%% %6s %7.3f%% %8s\n", r, a, b, f, 100 * t,
      (bt > 0 ? sprintf("%.1f", t / bt) : "-"), 100 * w, (bw > 0 ? sprintf("%.1f", w / bw) : "-"), 100 * sd, pin
  }' | tee -a "$res"
done
say "(actual: expected live samples at the start interval / table; pred sd: the in-use total's sd at"
say " the run's largest interval, mean over seeds; pinned: in-use error of seed 1, MSAMP_INTERVAL_PIN=1)"
awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "total time %.1f s\n", b - a }' | tee -a "$res"
