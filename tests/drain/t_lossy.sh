#!/usr/bin/env bash
# drain on a noisy line: a clean generated stream damaged at byte error rates 1e-4, 1e-3, 1e-2
# (mangle noise: bit flips, dropped bytes, inserted bytes, repeated stretches, equally likely).
# For each rate: drain (ASan+UBSan) exits 0, its profiles are readable by go tool pprof, and it
# reports the share of the samples of intact frames (ALLOC/REALLOC records in frames with a valid
# CRC, counted by msamp-dump) it used: weighted (interval known) and with a stack (not
# "[unknown stack]"), and in every profile in-use <= allocated for every site. The target:
# >= 80 % of intact frames' samples used at 1e-3 (and 1e-4). Prints the totals against the clean
# stream's. Each rate from the stream's start and joining late (from 30 % on). SOAK=1: more seeds.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
: "${MSAMP_DUMP:?MSAMP_DUMP: path of msamp-dump}"
seeds="1 2"
[ "${SOAK:-0}" = 1 ] && seeds="1 2 3 4 5 6 7 8"
$GEN --allocs 120000 --snap-every 8000 "$W/clean.bin" "$W/clean.truth"

# totals FILE...: "alloc_objects alloc_space inuse_objects inuse_space sites_over" summed over the
# profiles; sites_over counts samples whose in-use exceeds their allocated (objects or bytes). The
# columns are found by their names in pprof's header line.
totals() {
  local f
  for f in "$@"; do pp -raw "$f" 2>/dev/null; done | awk '
    /^Samples:/ { s = 1; h = 1; next } /^Locations/ { s = 0 }
    s && h { for (i = 1; i <= NF; i++) { n = $i; sub(/\/.*/, "", n); c[n] = i }; h = 0; next }
    s && $0 ~ /^ *[0-9-]/ {
      io += $c["inuse_objects"]; ib += $c["inuse_space"]; ao += $c["alloc_objects"]; ab += $c["alloc_space"]
      if ($c["inuse_objects"] > $c["alloc_objects"] || $c["inuse_space"] > $c["alloc_space"]) over++ }
    END { printf "%d %d %d %d %d\n", ao, ab, io, ib, over }'
}
# sumcounter NAME FILE...: a reader counter summed over profiles.
sumcounter() {
  local n=$1 t=0 f v
  shift
  for f in "$@"; do v=$(counter "$n" "$f"); t=$((t + ${v:-0})); done
  echo $t
}

$D -q -o "$W/clean.pb.gz" "$W/clean.bin" || fail "clean stream"
read -r cao cab cio cib cover <<<"$(totals "$W/clean.pb.gz")"
echo "clean: alloc $cao objects / $cab B, in use $cio objects / $cib B"

# A reader joining late: the stream from 30 % on (mid-frame), so the first records come before any
# SESSION header (kept and replayed once one arrives) and use stacks defined before the join.
$MANGLE skip 300 1 "$W/clean.bin" "$W/late.bin"
for rate in 100 1000 10000; do
  for seed in $seeds; do for from in start late; do
    n=r$rate.s$seed.$from
    src=$W/clean.bin; [ $from = late ] && src=$W/late.bin
    $MANGLE noise $rate $seed "$src" "$W/$n.bin"
    intact=$("$MSAMP_DUMP" "$W/$n.bin" 2>/dev/null | grep -c '^\(ALLOC\|REALLOC\) ')
    timeout 120 $D -o "$W/$n.pb.gz" "$W/$n.bin" >"$W/$n.out" 2>"$W/$n.err"
    rc=$?
    if [ $rc -ne 0 ] || grep -q 'Sanitizer\|runtime error' "$W/$n.err"; then
      fail "$n: exit $rc"; head -n 20 "$W/$n.err" >&2; continue
    fi
    profs=$(ls "$W/$n".pb.gz "$W/$n".s*.pb.gz 2>/dev/null | grep -v part)
    bad=0
    for p in $profs; do pp -raw "$p" >/dev/null 2>&1 || bad=1; done
    [ $bad = 0 ] || { fail "$n: pprof cannot read a profile"; continue; }
    samples=$(sumcounter samples $profs); unw=$(sumcounter samples_unweighted $profs)
    unk=$(sumcounter samples_unknown_stack $profs)
    weighted=$((samples - unw)); known=$((samples - unk))
    read -r ao ab io ib over <<<"$(totals $profs)"
    pw=$(( intact > 0 ? weighted * 1000 / intact : 1000 )); pk=$(( intact > 0 ? known * 1000 / intact : 1000 ))
    printf 'rate %s seed %s %s: intact-frame samples %d; drain: %d samples, weighted %d.%d %%, with a stack %d.%d %% of them; alloc %d/%d objects, %d/%d B; in use %d/%d objects, %d/%d B of the clean stream; %d profile(s)\n' \
      "$(awk -v r=$rate 'BEGIN { printf "%g", r / 1e6 }')" $seed $from $intact $samples $((pw / 10)) $((pw % 10)) \
      $((pk / 10)) $((pk % 10)) $ao $cao $ab $cab $io $cio $ib $cib "$(echo $profs | wc -w)"
    [ "$over" = 0 ] || fail "$n: $over site(s) with in-use above allocated"
    if [ $rate -le 1000 ] && { [ $pw -lt 800 ] || [ $pk -lt 800 ]; }; then
      fail "$n: used too few of the intact frames' samples (target >= 80 % weighted and with a stack)"
    fi
    [ $samples -le $((intact + intact / 100 + 5)) ] || fail "$n: $samples samples, more than the $intact of intact frames"
  done; done
done
ok "noisy line: no crash, readable profiles, in-use <= allocated everywhere, >= 80 % of intact frames' samples used up to 1e-3"

# The estimates on a lossy line (issue 26): a stream of 64-byte frames (the firmware's) whose
# samples take free live-table slots at random (--scatter: a block whose FREE was lost stays live
# for the reader until its slot is reused or a pass settles it), damaged at 1e-3 and 4e-3 with 6
# seeds (mangle rounds a seed up to odd). The in-use and allocated byte totals of each damaged
# stream against the clean one's, pooled over the seeds: |mean error| within 2 % at 1e-3 and 5 % at
# 4e-3 (the standard error of the mean is printed). Before passes settled slot ranges and allocated
# was corrected for the frames lost: in-use +3 % and +9 %, allocated -4 % and -14 %. The clean
# stream settles nothing (frees_settled=0: no entry is dropped that the device still had).
$GEN --allocs 120000 --snap-every 8000 --max-body 64 --scatter "$W/f64.bin" "$W/f64.truth"
$D -q -o "$W/f64.pb.gz" "$W/f64.bin" || fail "64-byte frames: clean stream"
read -r _ fab _ fib _ <<<"$(totals "$W/f64.pb.gz")"
v=$(counter frees_settled "$W/f64.pb.gz")
[ "$v" = 0 ] || fail "64-byte frames: the clean stream settled '$v' frees (expected 0)"
for rate in 1000 4000; do
  bound=2; [ $rate = 4000 ] && bound=5
  errs=
  for seed in 1 3 5 7 9 11; do
    n=f64.r$rate.s$seed
    $MANGLE noise $rate $seed "$W/f64.bin" "$W/$n.bin"
    $D -q -o "$W/$n.pb.gz" "$W/$n.bin" 2>"$W/$n.err" || { fail "$n: drain failed"; continue; }
    read -r _ ab _ ib _ <<<"$(totals "$W/$n.pb.gz")"
    errs="$errs $ib $ab"
  done
  res=$(echo "$errs" | awk -v fi="$fib" -v fa="$fab" -v b=$bound '{
      for (i = 1; i < NF; i += 2) { e = 100 * ($i / fi - 1); f = 100 * ($(i + 1) / fa - 1)
        si += e; qi += e * e; sa += f; qa += f * f; k++ } }
    END { mi = si / k; ma = sa / k
      sei = k > 1 ? sqrt((qi - k * mi * mi) / (k - 1) / k) : 0
      sea = k > 1 ? sqrt((qa - k * ma * ma) / (k - 1) / k) : 0
      printf "%d seeds: in-use %+.2f %% (se %.2f), allocated %+.2f %% (se %.2f), bound %d %%\n", k, mi, sei, ma, sea, b
      exit !(k >= 6 && mi <= b && mi >= -b && ma <= b && ma >= -b) }')
  rc=$?
  echo "lossy estimates at $(awk -v r=$rate 'BEGIN { printf "%g", r / 1e6 }'): $res"
  [ $rc = 0 ] || fail "lossy estimates at rate $rate per 10^6: $res"
done
finish
