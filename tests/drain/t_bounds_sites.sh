#!/usr/bin/env bash
# drain's site cap (docs/DRAIN.md, "Bounds"): a stream of (stack, task) sites, each new site about
# 11 input bytes (a SAMPLE_TASK and an ALLOC) referencing a whole 256-frame stack (craft.c
# tasksites), once took 1.4 GB for 2.9 MB of input and lost the whole capture at 10 MB ("final
# profile not written: too large"). Now a site costs the frames it references; past the cap new
# sites fold into one "[msamp: site limit reached]" site. Checked: exit 0, a profile pprof reads,
# peak RSS within 80 MiB + 80 B per input byte, the sites before the cap kept with their values,
# the fold counted in the comments and said on stderr; the ASan+UBSan build on a small form.
. "$(dirname "$0")/lib.sh"
REL=${DRAIN_REL:?DRAIN_REL: release drain}
CRAFT=$T/craft
[ -x /usr/bin/time ] || { echo "skip: /usr/bin/time needed for peak RSS"; exit 0; }

for n in 30000 270000 900000; do
  in=$W/ts.$n.bin; out=$W/ts.$n.pb.gz
  "$CRAFT" tasksites $n "$in" || { fail "craft tasksites $n"; continue; }
  bytes=$(stat -c %s "$in")
  /usr/bin/time -f '%M' -o "$W/rss" "$REL" -q -o "$out" "$in" 2>"$W/err"
  rc=$?
  rss=$(tail -n1 "$W/rss")
  lim=$(( (80 * 1048576 + 80 * bytes) / 1024 ))
  [ $lim -gt $((1536 * 1024)) ] && lim=$((1536 * 1024))
  echo "  tasksites $n: $bytes bytes, peak RSS $rss KiB (bound $lim KiB), exit $rc"
  [ "$rc" = 0 ] && [ -s "$out" ] || { fail "tasksites $n: exit $rc, profile $(ls -l "$out" 2>&1)"; head -n5 "$W/err" >&2; continue; }
  [ "$rss" -le "$lim" ] || fail "tasksites $n: peak RSS $rss KiB above $lim KiB"
  grep -q 'site limit reached: [0-9]* samples of new sites counted under \[msamp: site limit reached\]' "$W/err" ||
    fail "tasksites $n: stderr does not say the site limit"
  pp -raw "$out" >"$W/raw" 2>/dev/null || { fail "tasksites $n: no profile pprof reads"; continue; }
  folded=$(sed -n 's/.*site_limit_samples=\([0-9]*\).*/\1/p' "$W/raw" | head -n1)
  [ "${folded:-0}" -gt 0 ] || fail "tasksites $n: site_limit_samples ${folded:-none}"
  grep -q '\[msamp: site limit reached\]' "$W/raw" || fail "tasksites $n: no overflow location"
  # The sites before the cap (2^22 frames referenced: 16383 of 256 frames, the first the 1 MB
  # ALLOC of task 1 with task 1's 64-byte one) keep their values, and no sample is lost.
  kept=$(grep -c 'task:\[task ' "$W/raw")
  [ "$kept" -ge 16000 ] || fail "tasksites $n: $kept task sites kept (expected 16383)"
  awk '/^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+/ { v = $4 } /task:\[task 1\]$/ { print v; exit }' "$W/raw" >"$W/t1"
  [ "$(cat "$W/t1")" = 1004128 ] || fail "tasksites $n: task 1's alloc_space $(cat "$W/t1"), expected 1004128"
  samples=$(awk '/^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+( +[0-9]+)*:/ { s += $3 } END { print s }' "$W/raw")
  # alloc_objects: a 64-byte sample at 4096 weighs 65 (rounded per site), the 1 MB one 1
  [ "$samples" -ge $(( n * 64 )) ] || fail "tasksites $n: alloc_objects $samples: samples lost"
  ok "tasksites $n: exit 0, $rss KiB <= $lim KiB, $kept sites kept whole, $folded samples under the overflow site"
done

"$CRAFT" tasksites 20000 "$W/asan.bin"
"$DRAIN" -q -o "$W/asan.pb.gz" "$W/asan.bin" 2>"$W/asan.err"
rc=$?
if [ $rc -ne 0 ] || grep -q 'Sanitizer\|runtime error' "$W/asan.err"; then
  fail "asan tasksites: exit $rc"; head -n 10 "$W/asan.err" >&2
else
  ok "ASan+UBSan: tasksites"
fi
finish
