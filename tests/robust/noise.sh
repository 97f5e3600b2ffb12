#!/usr/bin/env bash
# A real stream through a noisy line (tests/robust/noise.c) at byte error rates 1e-4, 1e-3 and 1e-2:
# drain must exit 0 without a sanitizer report, write a profile go tool pprof reads, use at least
# MIN_USED% of the samples of the frames that arrived intact (counted by msamp-dump) with a weight
# and a stack (drain's samples less its samples_unknown_stack and samples_unweighted), and keep the
# in-use and allocated byte totals within the rate's bound of the clean stream's (the clean stream
# itself: no free settled by a pass, frees_settled=0):
#   1e-4: 2%     1e-3: 10%     1e-2: no bound (no crash, no hang, a readable profile)
# usage: noise.sh NAME STREAM [ELF]   (environment: DRAIN, MSAMP_DUMP, NOISE, OUT, SOAK)
# The short form damages with every kind of error mixed (seed 1); SOAK=1 runs each kind alone
# (flip, drop, insert, dup) and mixed, with 5 seeds, and reports the worst case per rate.
set -u
name=$1; stream=$2; elf=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
pp() { "$here/../drain/gopprof.sh" "$@"; }
out=$OUT/$name
rm -rf "$out"; mkdir -p "$out"
nfail=0
fail() { echo "FAIL: $name: $*" >&2; nfail=$((nfail + 1)); }
MIN_USED=80
elfarg=()
[ -n "$elf" ] && elfarg=(-e "$elf")

# totals PROFILE: "inuse_bytes alloc_bytes" summed over every sample.
totals() {
  pp -raw "$1" 2>/dev/null | awk '
    /^Samples:/ { on = 1; next }
    on && /^Locations/ { on = 0 }
    on && $NF ~ /:/ || (on && $0 ~ /:/) {
      n = split($0, f, ":"); split(f[1], v, " ");
      if (v[2] ~ /^[0-9-]+$/) { iu += v[2]; al += v[4] } }
    END { printf "%d %d\n", iu, al }'
}
counter() { pp -comments "$2" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n1; }
intact_samples() { "$MSAMP_DUMP" "$1" 2>/dev/null | grep -c '^ALLOC \|^REALLOC ' ; }

"$DRAIN" -q "${elfarg[@]}" -o "$out/clean.pb.gz" "$stream" 2>"$out/clean.err" || { fail "clean stream: drain failed"; cat "$out/clean.err" >&2; exit 1; }
read -r c_in c_al < <(totals "$out/clean.pb.gz")
c_s=$(counter samples "$out/clean.pb.gz")
[ "${c_al:-0}" -gt 0 ] || { fail "clean stream: no allocated bytes in the profile"; exit 1; }
echo "$name clean: $(stat -c %s "$stream") bytes, samples=$c_s inuse=$c_in alloc=$c_al"
# A pass heard in part settles slots (docs/DRAIN.md "Snapshots"): on the clean stream, whose passes
# run between the program's events, it must drop no entry the device still had.
c_set=$(counter frees_settled "$out/clean.pb.gz")
[ "$c_set" = 0 ] || fail "clean stream: drain settled '$c_set' frees (expected 0)"

if [ -n "${SOAK:-}" ]; then modes="mix flip drop insert dup"; seeds="1 2 3 4 5"; else modes=mix; seeds=1; fi
printf '%-6s %-7s %4s %9s %9s %8s %8s %8s\n' rate mode seed errors used% inuse% alloc% secs
for rate in 1e-4 1e-3 1e-2; do
  case $rate in 1e-4) bound=2 ;; 1e-3) bound=10 ;; *) bound= ;; esac
  for mode in $modes; do
    for seed in $seeds; do
      n=$out/$rate-$mode-$seed
      errs=$("$NOISE" "$mode" "$rate" "$seed" "$stream" "$n.bin" 2>&1 | sed -n 's/^errors=\([0-9]*\).*/\1/p')
      t0=$(date +%s.%N)
      timeout 120 "$DRAIN" "${elfarg[@]}" -o "$n.pb.gz" "$n.bin" >"$n.out" 2>"$n.err"
      rc=$?
      secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
      if [ $rc -ne 0 ] || grep -q 'Sanitizer\|runtime error' "$n.err"; then
        fail "$rate $mode seed $seed: drain exit $rc"; head -n 20 "$n.err" >&2; continue
      fi
      pp -raw "$n.pb.gz" >/dev/null 2>&1 || { fail "$rate $mode seed $seed: pprof cannot read the profile"; continue; }
      read -r in al < <(totals "$n.pb.gz")
      # Used: counted with a weight and under a stack (not left "[unknown stack]" or unweighted).
      s=$(counter samples "$n.pb.gz"); intact=$(intact_samples "$n.bin")
      unk=$(counter samples_unknown_stack "$n.pb.gz"); unw=$(counter samples_unweighted "$n.pb.gz")
      used=$(awk -v s="${s:-0}" -v u="${unk:-0}" -v w="${unw:-0}" -v i="$intact" \
        'BEGIN { printf "%.1f", i ? 100 * (s - u - w) / i : 100 }')
      din=$(awk -v a="$in" -v b="$c_in" 'BEGIN { printf "%.2f", b ? 100 * (a - b) / b : 0 }')
      dal=$(awk -v a="$al" -v b="$c_al" 'BEGIN { printf "%.2f", 100 * (a - b) / b }')
      printf '%-6s %-7s %4s %9s %9s %8s %8s %8s\n' "$rate" "$mode" "$seed" "$errs" "$used" "$din" "$dal" "$secs"
      if [ -n "$bound" ]; then
        awk -v u="$used" -v m=$MIN_USED 'BEGIN { exit !(u >= m) }' ||
          fail "$rate $mode seed $seed: drain used $used% of the intact frames' samples (< $MIN_USED%)"
        awk -v a="$din" -v b="$dal" -v m="$bound" 'BEGIN { a = a < 0 ? -a : a; b = b < 0 ? -b : b; exit !(a <= m && b <= m) }' ||
          fail "$rate $mode seed $seed: totals off by in-use $din% allocated $dal% (bound $bound%)"
      fi
    done
  done
done
[ $nfail -eq 0 ] && echo "$name: all passed" || { echo "$name: $nfail failure(s)"; exit 1; }
