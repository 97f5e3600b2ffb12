#!/usr/bin/env bash
# Usage: tests/board/check_demo.sh PROFILE CONSOLE [CHECK...]
# Checks a demo profile with `go tool pprof` against the truth the firmware printed in CONSOLE.
# CHECKs (default: all but "drops-nonzero"):
#   symbols   every demo site appears by name with its file:line (demo.c:N)
#   accuracy  each site's estimated allocated and in-use bytes are within the bound of the truth
#   accuracy-inuse  the same for in-use bytes only (for a drain that joined late)
#   leak      the leak site is live at the end
#   isr       the interrupt's allocations are attributed to the interrupt handler's stack only
#   drops     the device drops in the profile's comments equal the firmware's own counters
#   drops-nonzero  ... and the ring did drop records
#   buildid   the stream carried the firmware's build-id (drain refuses an ELF that differs)
#   failures  the allocation failures in the profile's comments (NULL returns, giant-guard
#             refusals) equal the firmware's counters and the demo's own count of failed requests,
#             and none of the device's walks came back without a frame
#   adapt     the adaptive interval worked: the live sampled set at the start interval was at least
#             10 times the live table, the interval rose, and samples were refused only where a
#             bucket stayed full after the raise it caused (live_full at most the raises)
#
# The accuracy bound. An allocation of s bytes is sampled with probability p = 1 - exp(-s/R) and
# then counted s/p bytes, so the estimate of a site is unbiased with variance
#   sum over its allocations of s^2 (1 - p) / p
# (the live allocations only, for in-use bytes). A site with a few live blocks of weight s/p is
# far from normal (its estimate is a few large steps: skewed upward), so the bound is Bennett's
# inequality, which holds for any sum of independent bounded terms: P(S - ES >= t) <=
# exp(-(v/b^2) h(b t / v)), h(u) = (1 + u) ln(1 + u) - u, with v the variance above and b the
# largest step one term can take (s (1 - p) / p upward, s downward). Each side's t is solved for
# a probability of 1 in 32000 (about 1 in 16000 per two-sided check; 4.55 sd where the steps are
# small, more where one block weighs much), plus 0.5% and 16 bytes for the rounding of per-sample
# weights. R is the largest interval of the run (the start one, or
# the largest the adaptive interval raised it to, from the stream's INTERVAL records): after
# thinning, every entry stands for an interval at most that, and the variance grows with R.
set -u
profile=$1; console=$2; shift 2
checks=${*:-symbols accuracy leak isr drops buildid failures}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
[ -s "$profile" ] || { echo "FAIL: no profile $profile"; exit 1; }
grep -q '^msamp-demo done' "$console" || { echo "FAIL: the firmware did not finish:"; cat "$console"; exit 1; }
pprof() { go tool pprof "$@" "$profile" 2>/dev/null; }
sites="cache_insert leak_record churn_scratch grow_buffer deep_alloc isr_make_packet"
if grep -q '^msamp-demo note: no timer interrupt' "$console"; then
  echo "note: the board has no timer interrupt: no interrupt site to check"
  sites=${sites% isr_make_packet}
  checks=$(echo "$checks" | sed 's/\bisr\b//')
fi
interval=$(sed -n 's/^msamp-demo run .* interval=\([0-9]*\).*/\1/p' "$console")
[ -n "$interval" ] || { echo "FAIL: no run line in $console"; exit 1; }
start_interval=$interval
stream=$(dirname "$console")/stream.bin
if [ -s "$stream" ]; then
  dump=${MSAMP_DUMP:-host_tools/msamp-dump}
  [ -x "$dump" ] || { echo "FAIL: $dump missing"; exit 1; }
  largest=$("$dump" "$stream" | sed -n 's/^INTERVAL .*interval=\([0-9]*\).*/\1/p' | sort -n | tail -1)
  [ -n "$largest" ] && [ "$largest" -gt "$interval" ] && interval=$largest
fi

# flat bytes per function for one sample type: "name bytes" lines
flat() {
  pprof -sample_index="$1" -top -unit=B -nodefraction=0 -nodecount=100000 |
    awk '/flat%/ { go = 1; next } go && NF >= 6 { v = $1; sub(/B$/, "", v); print $6, v + 0 }'
}

for c in $checks; do
  case "$c" in
  buildid)
    bid=$(go tool pprof -comments "$profile" 2>/dev/null | sed -n 's/.*build_id=\([^ ]*\).*/\1/p' | head -1)
    case "$bid" in
      ''|'(none)') bad "the stream carried no build-id (device: build_id=${bid:-missing})" ;;
      *) echo "ok: the stream carried the build-id $bid (drain matched it to the ELF)" ;;
    esac
    ;;
  symbols)
    lines=$(pprof -sample_index=alloc_space -top -lines -nodefraction=0 -nodecount=100000)
    for s in $sites; do
      echo "$lines" | grep -Eq " $s [^ ]*demo\.c:[0-9]+\$" || bad "site $s not symbolized with file:line"
    done
    [ $fail = 0 ] && echo "ok: every site symbolized with demo.c:LINE ($sites)"
    ;;
  accuracy|accuracy-inuse)
    flat alloc_space >alloc.tmp.$$; flat inuse_space >inuse.tmp.$$
    awk -v R="$interval" -v sites="$sites" -v only_inuse=$([ "$c" = accuracy-inuse ] && echo 1 || echo 0) '
      FILENAME ~ /^alloc/ { est_a[$1] += $2; next }
      FILENAME ~ /^inuse/ { est_i[$1] += $2; next }
      /^msamp-demo truth/ {
        for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
        s = f["site"]; n = f["size"]; p = 1 - exp(-n / R); w = n * n * (1 - p) / p
        tru_a[s] += n * f["allocs"]; var_a[s] += f["allocs"] * w
        tru_i[s] += n * f["live"];   var_i[s] += f["live"] * w
        up = n * (1 - p) / p
        if (f["allocs"] > 0) { if (up > bu_a[s]) bu_a[s] = up; if (n > bl_a[s]) bl_a[s] = n }
        if (f["live"] > 0)   { if (up > bu_i[s]) bu_i[s] = up; if (n > bl_i[s]) bl_i[s] = n }
      }
      # Bennett: the t at which exp(-(v/b^2) h(b t / v)) falls to 1/32000 (bisection; h grows).
      function bennett(v, b,   lo, hi, mid, k, L) {
        L = log(32000)
        if (v <= 0) return 0
        if (b <= 0) return sqrt(2 * v * L)
        lo = 0; hi = sqrt(2 * v * L) + 2 * b * L
        for (k = 0; k < 100; k++) {
          mid = (lo + hi) / 2; u = b * mid / v
          if ((v / (b * b)) * ((1 + u) * log(1 + u) - u) < L) lo = mid; else hi = mid
        }
        return hi
      }
      END {
        bad = 0
        printf "%-16s %-9s %10s %10s %10s %8s\n", "site", "bytes", "truth", "estimate", "bound", "sigmas"
        n = split(sites, list, " ")
        for (k = 1; k <= n; k++) {
          s = list[k]
          for (t = only_inuse; t < 2; t++) {
            tr = t ? tru_i[s] : tru_a[s]; va = t ? var_i[s] : var_a[s]; es = t ? est_i[s] : est_a[s]
            sd = sqrt(va); d = es - tr; slack = 0.005 * tr + 16
            hi = bennett(va, t ? bu_i[s] : bu_a[s]) + slack; lo = bennett(va, t ? bl_i[s] : bl_a[s]) + slack
            bound = d >= 0 ? hi : lo
            sig = sd > 0 ? d / sd : 0
            ok = (d <= hi && -d <= lo)
            printf "%-16s %-9s %10d %10d %10d %8.2f %s\n", s, t ? "in-use" : "allocated", tr, es, bound, sig, ok ? "ok" : "OUT OF BOUND"
            if (!ok) bad = 1
          }
          if (tru_a[s] == 0) { print "no truth for site " s; bad = 1 }
        }
        exit bad
      }' alloc.tmp.$$ inuse.tmp.$$ "$console" || bad "an estimate is out of its bound"
    rm -f alloc.tmp.$$ inuse.tmp.$$
    ;;
  adapt)
    line=$(sed -n 's/^msamp-demo adapt //p' "$console")
    [ -n "$line" ] || { bad "no adapt line in the console"; continue; }
    val() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
    cap=$(val live_capacity); raises=$(val raises)
    ratio=$(awk -v R="$start_interval" '/^msamp-demo truth/ {
        for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
        n += f["live"] * (1 - exp(-f["size"] / R)) } END { printf "%.0f", n }' "$console")
    lf=$(sed -n 's/^msamp-demo stats .*live_full=\([0-9]*\).*/\1/p' "$console")
    echo "adaptive: live samples expected at interval $start_interval: $ratio for $cap slots;" \
      "$line; largest interval $interval; live_full ${lf:-?}"
    [ "$ratio" -ge $((10 * cap)) ] || bad "the live sampled set ($ratio) is not 10x the table ($cap)"
    [ "${raises:-0}" -gt 0 ] || bad "the interval never rose"
    [ -n "$lf" ] && [ "$lf" -le "${raises:-0}" ] ||
      bad "samples refused by a full table (live_full=${lf:-?} for ${raises:-0} raises)"
    ;;
  leak)
    v=$(flat inuse_space | awk '$1 == "leak_record" { s += $2 } END { print s + 0 }')
    [ "$v" -gt 0 ] && echo "ok: leak_record live at the end ($v bytes in use)" || bad "leak_record is not live at the end"
    ;;
  isr)
    pprof -traces -sample_index=alloc_space | awk '
      /^-+\+/ { if (n) check(); n = 0; delete fn; next }
      /^ / && NF >= 1 { fn[++n] = $NF }
      function check(   i, isr, irq, mainf, handler) {
        for (i = 1; i <= n; i++) {
          if (fn[i] == "isr_make_packet") isr = 1
          if (fn[i] == "demo_timer_isr") handler = 1
          if (fn[i] == "board_irq_handler" || fn[i] == "irq_entry") irq++
          if (fn[i] == "main") mainf = 1
        }
        if (isr) { isr_traces++; if (!handler || irq < 2 || mainf) wrong++ }
        else if (handler || irq) wrong++
      }
      END {
        if (n) check()
        printf "interrupt stacks: %d, misattributed: %d\n", isr_traces, wrong
        exit !(isr_traces > 0 && wrong == 0)
      }' || bad "interrupt allocations not attributed to the interrupt handler stack"
    ;;
  drops|drops-nonzero)
    dev=$(pprof -comments | sed -n 's/^device drops: //p')
    fw=$(sed -n 's/^msamp-demo stats //p' "$console")
    for k in ring_records ring_bytes live_full stack_full reentrant truncated no_frame; do
      a=$(echo "$dev" | tr ' ' '\n' | sed -n "s/^$k=//p"); b=$(echo "$fw" | tr ' ' '\n' | sed -n "s/^$k=//p")
      [ -n "$a" ] && [ "$a" = "$b" ] || bad "drops: $k is '$a' in the profile, '$b' on the firmware"
    done
    echo "device drops in the profile: $dev"
    echo "firmware counters:           $fw"
    if [ "$c" = drops-nonzero ]; then
      r=$(echo "$fw" | tr ' ' '\n' | sed -n 's/^ring_records=//p')
      [ "${r:-0}" -gt 0 ] || bad "the ring never overflowed: the stall did not stall"
    fi
    ;;
  failures)
    got=$(pprof -comments | sed -n 's/^allocation failures: null=\([0-9]*\) giant_refused=\([0-9]*\) .*/\1 \2/p')
    fw=$(sed -n 's/^msamp-demo stats //p' "$console" | tr ' ' '\n' | sed -n 's/^\(failed\|refused\)=//p' | tr '\n' ' ')
    req=$(sed -n 's/^msamp-demo failures requests=\([0-9]*\) .*/\1/p' "$console")
    lim=$(sed -n 's/^msamp-demo failures .*giant_limit=\([0-9]*\).*/\1/p' "$console")
    read -r gn gg <<<"${got:-x x}"; read -r fn fg <<<"${fw:-y y}"
    if [ -z "$req" ] || [ "$req" -eq 0 ]; then
      bad "failures: the demo made no failing request ('$req')"
    elif [ "$gn $gg" != "$fn $fg" ] || [ $((fn + fg)) -ne "$req" ]; then
      bad "failures: profile null=$gn giant=$gg, firmware failed=$fn refused=$fg, demo requests=$req"
    elif [ "${lim:-0}" -gt 0 ] && [ "$fg" -ne $((req / 2)) ]; then
      bad "failures: the guard (giant_limit=$lim) refused $fg of $req, want half"
    else
      echo "ok: $req failed requests: $gn NULL returns, $gg refused by the giant guard (profile = firmware = demo)"
    fi
    nf=$(sed -n 's/^msamp-demo stats .*no_frame=\([0-9]*\).*/\1/p' "$console")
    [ "${nf:-x}" = 0 ] && echo "ok: no walk without a frame" || bad "failures: $nf walks found no frame"
    ;;
  *) bad "unknown check $c" ;;
  esac
done
[ $fail = 0 ] && echo "all checks passed: $checks"
exit $fail
