#!/usr/bin/env bash
# drain on streams of a device that adapts its sampling interval (gen.c --adapt, simdev.h): raises
# that thin the live table (reasons live table high water, stack table high water), lowers, coded
# sizes, LIVE records with their own interval, a small stack table whose ids are redefined, and
# samples under the "stack table full" id. Each profile, read back with go tool pprof, must equal
# the exact replay of the device (check_replay.sh: every estimate to within rounding) and its truth
# within the statistical bound at the largest interval (check_truth.sh); the comments, --top and
# the summary must tell the interval's story; a partial profile (--every) must be the profile of
# the stream up to that point.
. "$(dirname "$0")/lib.sh"
D=$DRAIN

run() { # NAME GEN-ARGS...: gen, drain (summary kept), pprof -raw, exact replay and truth
  local n=$1
  shift
  $GEN "$@" "$W/$n.bin" "$W/$n.truth" || { fail "$n: gen"; return 1; }
  $D -o "$W/$n.pb.gz" --top 13 "$W/$n.bin" >"$W/$n.top" 2>"$W/$n.summary" ||
    { fail "$n: drain exit $?"; cat "$W/$n.summary" >&2; return 1; }
  pp -raw "$W/$n.pb.gz" >"$W/$n.raw" 2>"$W/$n.rawerr" || { fail "$n: pprof -raw"; cat "$W/$n.rawerr"; return 1; }
  grep '^Comment: ' "$W/$n.raw" >"$W/$n.comments"
  if "$here/check_replay.sh" "$W/$n.raw" "$W/$n.truth" 4 >"$W/$n.replay"; then
    ok "$n: $(tail -n1 "$W/$n.replay")"
  else
    fail "$n: replay:"; cat "$W/$n.replay" >&2
  fi
  [ -n "${NOTRUTH:-}" ] && return 0 # samples under "[stack table full]" miss their site's truth
  local peak
  peak=$(sed -n 's/^interval_peak //p' "$W/$n.truth")
  if "$here/check_truth.sh" "$W/$n.raw" "$W/$n.truth" "$peak" 4 >"$W/$n.check"; then
    ok "$n: truth at interval $peak: $(tail -n1 "$W/$n.check")"
  else
    fail "$n: truth:"; cat "$W/$n.check" >&2
  fi
}

# The device's own account (gen's "# device:" line): NAME FIELD.
device() { sed -n "s/^# device:.*[ ,]\([0-9]*\) $2.*/\1/p" "$W/$1.truth"; }

# Live table of 2048 slots: the interval doubles twice, each time thinning the live table.
run adapt --adapt 2048 --allocs 200000
th=$(counter thinned "$W/adapt.pb.gz")
dev=$(device adapt thinned)
[ -n "$th" ] && [ "$th" = "$dev" ] && [ "$th" -gt 0 ] && ok "drain thinned the $dev entries the device did" ||
  fail "thinned: drain ${th:-?}, device ${dev:-?}"
grep -qE '^Comment: interval 4096 -> 8192 at [0-9]+\.[0-9]{3} s: raised by the device: live table high water, [0-9]+ of [0-9]+ live entries thinned$' \
  "$W/adapt.comments" && ok "comments: the raise, its time, reason and thinning" ||
  { fail "comments lack the raise"; grep interval "$W/adapt.comments" >&2; }
# The per-change counts add up to the total.
sum=$(sed -n 's/^Comment: interval .* \([0-9]*\) of [0-9]* live entries thinned$/\1/p' "$W/adapt.comments" |
  awk '{ s += $1 } END { print s + 0 }')
[ "$sum" = "$th" ] && ok "per-change thinned counts add up ($sum)" || fail "per-change thinned $sum, total $th"
grep -q '^Comment: interval 16384 bytes now (first 4096), adapted: 2 raises (2 live table high water); ' \
  "$W/adapt.comments" && ok "comments: the story" || fail "comments: no story line"
grep -q '^sampling: interval 16384 bytes now (first 4096), adapted: 2 raises (2 live table high water); '"$th"' live entries thinned' \
  "$W/adapt.top" && ok "--top: the story" || { fail "--top lacks the story"; head -n3 "$W/adapt.top" >&2; }
grep -q 'adapted: 2 raises (2 live table high water); '"$th"' live entries thinned; stream losses' \
  "$W/adapt.summary" && ok "summary: the story" || { fail "summary lacks the story"; cat "$W/adapt.summary" >&2; }
grep -q '^Period: 16384' "$W/adapt.raw" && ok "period: the interval now" || fail "period"

# Coded sizes: sizes and intervals no 8-bit code holds, thinned with their codes.
run coded --adapt 2048 --coded --odd-sizes --interval 5000 --allocs 200000
# The same device without the flag thins differently: a reader that ignored the flag would not
# match (the replay above would fail).
$GEN --adapt 2048 --odd-sizes --interval 5000 --allocs 200000 "$W/exact.bin" "$W/exact.truth"
cmp -s <(grep '^replay' "$W/coded.truth") <(grep '^replay' "$W/exact.truth") &&
  fail "coded and exact thinning gave the same replay: the coded test proves nothing" ||
  ok "coded thinning differs from exact thinning"

# Lowers: most leaks are released at three quarters; the interval comes back down while the oldest
# entries keep their raised interval (snapshot LIVE records carry it), and a later raise thins
# entries of two intervals.
run lower --adapt 2048 --release-leaks --allocs 200000
grep -q 'live table high water' "$W/lower.comments" && grep -q ': lowered by the device: tables below low water$' "$W/lower.comments" &&
  ok "comments: raises and lowers" || fail "comments: lowers"
grep -qE 'adapted: [0-9]+ raises \([0-9]+ live table high water\), 2 lowers; ' "$W/lower.summary" &&
  ok "summary: lowers" || { fail "summary: lowers"; cat "$W/lower.summary" >&2; }
[ "$($MSAMP_DUMP "$W/lower.bin" | grep -c '^LIVE .* interval=')" -gt 0 ] &&
  ok "LIVE records with their own interval ($($MSAMP_DUMP "$W/lower.bin" | grep -c '^LIVE .* interval=') of them)" ||
  fail "no LIVE record with an interval: the test does not exercise it"

# A stack table of 6 stacks for 12 sites: ids evicted and redefined, samples without room.
NOTRUTH=1 run stacks --stack-cap 6 --allocs 200000
red=$(counter stack_redefined "$W/stacks.pb.gz")
[ "${red:-0}" -gt 0 ] && ok "stack ids redefined: $red" || fail "no redefinition counted"
# Every site is its own stack in the profile, whatever ids it had: 12 sites and "[stack table
# full]" (a site's samples, split by lifetime and age, share its locations; label lines skipped).
n=$(awk '/^Samples:/ { s = 1; getline; next } /^Locations/ { s = 0 }
  s && $1 ~ /^-?[0-9]+$/ && /:/ { split($0, p, ":"); if (!(p[2] in seen)) { seen[p[2]]; n++ } }
  END { print n + 0 }' "$W/stacks.raw")
[ "$n" -eq 13 ] && ok "12 sites and [stack table full], each one stack" || fail "$n stacks, expected 13"
pp -top -nodefraction=0 -sample_index=alloc_space "$W/stacks.pb.gz" 2>/dev/null | grep -q '\[stack table full\]' &&
  ok "pprof shows [stack table full]" || fail "pprof -top lacks [stack table full]"
full=$(counter stack_full "$W/stacks.pb.gz")
[ "${full:-0}" = "$(device stacks 'stack table full')" ] && ok "stack-table-full samples counted: $full" ||
  fail "stack_full ${full:-?}, device $(device stacks 'stack table full')"
grep -q "$full samples under \[stack table full\]" "$W/stacks.summary" && ok "summary: stack table full" ||
  fail "summary lacks the stack-table-full samples"
# marked (docs/VERDICTS.md "Marks"): samples unattributed, every site's estimates a lower bound
grep -qE '^ +>=[0-9]+ +[0-9]+ +[0-9]+  \([0-9]+-[0-9]+\) +\[stack table full\]$' "$W/stacks.top" &&
  ok "--top shows [stack table full], marked >=" || { fail "--top lacks [stack table full] (marked >=)"; cat "$W/stacks.top" >&2; }

# Both: stack table high water raises and lowers, more than the comments list one by one.
run both --adapt 2048 --stack-cap 8 --allocs 200000
# (pprof drops repeated comment lines, so count the rest: total - 64.)
total=$(sed -n 's/^Comment: sampling interval: .*, \([0-9]*\) changes)$/\1/p' "$W/both.comments")
grep -q "^Comment: \.\.\. and $((total - 64)) more interval changes (not listed)$" "$W/both.comments" &&
  [ "$total" -gt 64 ] && ok "first 64 of $total changes listed, then a count" ||
  fail "change list of ${total:-?} changes"
grep -q 'stack table high water, [0-9]* of [0-9]* live entries thinned$' "$W/both.comments" &&
  ok "comments: stack table high water" || fail "comments: stack table high water"

# A partial profile (--every) is the profile of the stream so far: feed the first part of the
# stream (cut at a frame's end, after the first raise), pause, then the rest.
bytes=$(stat -c %s "$W/adapt.bin")
cut=$(od -An -v -tu1 -w1 "$W/adapt.bin" | awk -v from=$((bytes * 2 / 3)) 'NR > from && $1 == 0 { print NR; exit }')
head -c "$cut" "$W/adapt.bin" >"$W/prefix.bin"
$D -q -o "$W/prefix.pb.gz" "$W/prefix.bin" && pp -raw "$W/prefix.pb.gz" 2>/dev/null | sed -n '/^Samples:/,/^Locations/p' >"$W/prefix.samples"
pp -comments "$W/prefix.pb.gz" 2>/dev/null | grep -q 'live table high water' || fail "prefix: cut before the first raise"
{ cat "$W/prefix.bin"; sleep 1.5; tail -c +$((cut + 1)) "$W/adapt.bin"; } |
  $D -q -o "$W/part.pb.gz" --every 0.3 - || fail "drain --every exit $?"
match=0
for p in "$W"/part.part*.pb.gz; do
  [ -e "$p" ] || continue
  pp -raw "$p" 2>/dev/null | sed -n '/^Samples:/,/^Locations/p' | cmp -s - "$W/prefix.samples" && match=1
done
[ $match -eq 1 ] && ok "a partial profile equals the profile of the stream so far" ||
  fail "no partial profile equals the prefix's ($(ls "$W"/part.part*.pb.gz 2>/dev/null | wc -l) partials)"
pp -raw "$W/part.pb.gz" 2>/dev/null | sed -n '/^Samples:/,/^Locations/p' |
  cmp -s - <(sed -n '/^Samples:/,/^Locations/p' "$W/adapt.raw") && ok "the final profile is unchanged by the pause" ||
  fail "final profile differs"
finish
