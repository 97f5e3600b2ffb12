#!/usr/bin/env bash
# drain's views stay bounded and fail clearly (no browser): a generated stream of 200 sites in two
# sessions (a timeline per session; 8 top sites among 32 followed, at most 1024 bins), crafted
# hostile streams (huge values, 300 marks, 200 distinct 256-frame stacks: the flame graph's frame
# cap), write errors (/dev/full, a missing directory) with a clear message and exit 1, a bad
# --flame-type, and SIGINT: the views are written with what was read. drain runs under ASan+UBSan.
# Env: DRAIN, GEN, T (build dir), CRAFT.
set -u
W=$T/work-bounds
rm -rf "$W"
mkdir -p "$W"
nfail=0
fail() { echo "FAIL: $*" >&2; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }
rows() { tail -n +2 "$1" | wc -l; }

"$GEN" --sites 200 --allocs 100000 --sessions 2 "$W/g.bin" "$W/g.truth" >/dev/null || fail "gen"
$DRAIN -q -o "$W/g.pb.gz" --timeline "$W/g.html" --timeline-csv "$W/g.csv" --flame "$W/g.svg" \
  "$W/g.bin" || fail "drain on 2 sessions exit $?"
for s in "" .s2; do
  [ -s "$W/g$s.html" ] && [ -s "$W/g$s.svg" ] && [ -s "$W/g$s.csv" ] || { fail "session g$s: a view missing"; continue; }
  n=$(rows "$W/g$s.csv")
  cols=$(head -n1 "$W/g$s.csv" | tr ',' '\n' | wc -l)
  took=$(grep -o '[0-9]* times a site took' "$W/g$s.html" | cut -d' ' -f1)
  [ "$n" -ge 100 ] && [ "$n" -le 1024 ] && [ "$cols" -eq 12 ] && [ "${took:-0}" -gt 0 ] &&
    ok "session g$s: $n rows (<= 1024), 8 site columns, $took candidate replacements among 200 sites" ||
    fail "session g$s: $n rows, $cols columns, ${took:-no} replacements"
done
grep -q 'session 2 ' "$W/g.s2.html" && ! grep -q 'session 2 ' "$W/g.html" &&
  ok "one page per session (g.html, g.s2.html)" || fail "sessions not separated"

"$CRAFT" huge 2000 "$W/h.bin" && $DRAIN -q -o "$W/h.pb.gz" --timeline "$W/h.html" \
  --timeline-csv "$W/h.csv" --flame "$W/h.svg" "$W/h.bin" && [ "$(rows "$W/h.csv")" -le 1024 ] &&
  ok "huge values: written, $(rows "$W/h.csv") rows, $(grep -o 'more interval changes' "$W/h.html" | head -n1) counted" ||
  fail "huge values"
"$CRAFT" marks 300 "$W/m.bin" && $DRAIN -q -o "$W/m.pb.gz" --timeline "$W/m.html" "$W/m.bin" &&
  [ "$(grep -c '<td>mark: ' "$W/m.html")" -eq 64 ] && grep -q 'Not shown: 236 more marks' "$W/m.html" &&
  ok "300 marks: 64 kept, 236 counted" || fail "marks cap: $(grep -c '<td>mark: ' "$W/m.html")"
"$CRAFT" frames 200 "$W/f.bin" && $DRAIN -q -o "$W/f.pb.gz" --flame "$W/f.svg" --flame-type alloc \
  "$W/f.bin" || fail "frames: drain exit $?"
nf=$(grep -c 'class="f"' "$W/f.svg")
[ "$nf" -ge 1000 ] && [ "$nf" -le 8192 ] && grep -q 'not drawn' "$W/f.svg" &&
  ok "200 x 256 distinct frames: $nf drawn (cap 8192), $(grep -o '[0-9]* not drawn[^(]*' "$W/f.svg")" ||
  fail "flame cap: $nf frames drawn"

# Write errors: the profile is written, the view is not, exit 1 with the path and the reason.
for v in "--timeline /dev/full:timeline not written: /dev/full: No space left" \
  "--timeline-csv /dev/full:timeline not written: /dev/full: No space left" \
  "--flame /dev/full:flame graph not written: /dev/full: No space left" \
  "--flame $W/no/such/dir/f.svg:flame graph not written: $W/no/such/dir/f.svg: No such file"; do
  opt=${v%%:*} msg=${v#*:}
  # shellcheck disable=SC2086  # an option and its value
  $DRAIN -q -o "$W/e.pb.gz" $opt "$W/g.bin" 2>"$W/e.err"
  rc=$?
  [ $rc -eq 1 ] && grep -qF "$msg" "$W/e.err" && ! grep -q Sanitizer "$W/e.err" && [ -s "$W/e.pb.gz" ] &&
    ok "$opt: exit 1, '$(head -n1 "$W/e.err")'" || { fail "$opt: exit $rc"; cat "$W/e.err" >&2; }
  rm -f "$W/e.pb.gz"
done
$DRAIN -q --flame-type space "$W/g.bin" 2>"$W/e.err"
[ $? -eq 2 ] && grep -q 'expected inuse or alloc' "$W/e.err" && ok "--flame-type space: exit 2" ||
  fail "--flame-type space"

# SIGINT while following a file: the views hold what was read.
$DRAIN -q -F -o "$W/i.pb.gz" --timeline "$W/i.html" --timeline-csv "$W/i.csv" --flame "$W/i.svg" \
  "$W/g.bin" 2>"$W/i.err" &
pid=$!
for _ in $(seq 1 50); do [ -s "$W/i.pb.gz" ] && break; sleep 0.1; done # session 1 ends at the reset
# Then until drain has read the whole file (its read() bytes, /proc/PID/io) and its CPU time
# stands still (waiting at the end for more), at most 60 s: not a fixed 0.5 s a loaded machine may
# not give the ASan build to reach 100 rows of session 2.
size=$(stat -c %s "$W/g.bin")
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null; }
prev=-1
for _ in $(seq 1 600); do
  got=$(sed -n 's/^rchar: //p' "/proc/$pid/io" 2>/dev/null)
  now=$(ticks)
  [ "${got:-0}" -ge "$size" ] && [ "$now" = "$prev" ] && break
  prev=$now
  sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 0 ] && [ "$(rows "$W/i.s2.csv" 2>/dev/null)" -ge 100 ] && grep -q '<path id="total"' "$W/i.s2.html" &&
  grep -q 'class="f"' "$W/i.s2.svg" && ok "SIGINT: session 2's timeline and flame graph written ($(rows "$W/i.s2.csv") rows)" ||
  { fail "SIGINT: exit $rc"; cat "$W/i.err" >&2; }

if [ $nfail -gt 0 ]; then
  echo "t_bounds: $nfail failure(s)"
  exit 1
fi
echo "t_bounds: all passed"
