#!/usr/bin/env bash
# Marks (docs/VERDICTS.md "Marks"): estimates the device's refusals or the line's losses biased say
# so. refuse_app at MSAMP_INTERVAL=1 (pinned: every allocation sampled, no adaptation):
#   refused  a 256-slot live table and 2000 blocks kept live at keep_site: the table refuses the
#            samples beyond it (DROPS live_full). --top shows keep_site's in-use as ">=N" with an
#            interval widened by the refused bytes (up to the truth, not exact) and a footnote; the
#            completeness line does not say complete; --json has "complete": false and
#            "lower_bound": true on keep_site's in-use (not on its allocated, nor on the sites that
#            lost nothing); drain check gives WARN, never PASS, on keep_site's in-use, for a budget
#            the low estimate passes and for one above the widened interval; a merge keeps the marks.
#   clean    the same program with a table of 2^20 slots: no refusal, "stream complete", exact
#            intervals ((N-N) in --top), no mark in --json, a clean PASS. (The default 65536 slots
#            refused 3 or 4 of the 2000 blocks in runs here: a full bucket of a slot's reach, which
#            a pinned interval does not adapt to; marked too.)
#   lost     the clean stream with 3000 bytes cut from its middle: records lost, site unknown:
#            "complete": false and every estimate marked; a budget that passes on the rest WARNs.
# And the frees (issue 36): the summary line's count is the device's (END's frees), its parts (FREE
# records, reallocs that moved a sampled block) adding up to it.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
app=${REFUSE_APP:?REFUSE_APP: the refuse_app program}
DUMP=${MSAMP_DUMP:?MSAMP_DUMP: msamp-dump}
keep=2000 churn=5000 grow=300

run() { # NAME [ENV...]: the program's stream and truth, drain's --top, --json, profile, stderr
  local n=$1
  shift
  env MSAMP_INTERVAL=1 MSAMP_INTERVAL_PIN=1 MSAMP_OUTPUT="$W/$n.bin" "$@" \
    "$app" "$W/$n.truth" $keep $churn $grow || fail "$n: refuse_app exit $?"
  $D --elf "$app" -o "$W/$n.pb.gz" --top 5 --json "$W/$n.json" "$W/$n.bin" >"$W/$n.top" \
    2>"$W/$n.err" || fail "$n: drain exit $?: $(tail -3 "$W/$n.err")"
}
# js NAME EXPR: a Python expression on session 0 of NAME's --json (s), its sites by first frame
# (site(name): the site whose in-use is largest among those with that frame).
js() {
  python3 - "$W/$1.json" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sessions"][0]
def site(n):
    return max((x for x in s["sites"] if x["stack"][0] == n), key=lambda x: x["inuse_bytes"]["est"])
print(eval(sys.argv[2]))
PY
}
frees_check() { # NAME: the summary line's frees are END's, their parts add up to them
  local n=$1 line end said parts
  line=$(grep "^drain: session 1 (" "$W/$n.err")
  end=$("$DUMP" "$W/$n.bin" | sed -n 's/^END .*frees=\([0-9]*\).*/\1/p' | tail -1)
  said=$(echo "$line" | sed -n 's/.*): [0-9]* samples, \([0-9]*\) frees.*/\1/p')
  parts=$(echo "$line" | sed -n 's/.* frees (\([^)]*\)).*/\1/p' | grep -o '[0-9][0-9]* [A-Za-z]' |
    awk '{ s += $1 } END { print s + 0 }')
  if [ -n "$end" ] && [ "$said" = "$end" ] && [ "$parts" = "$end" ] &&
    echo "$line" | grep -q "+ $((grow - 1)) reallocs that moved a sampled block"; then
    ok "$n: summary says $said frees = END's $end = the sum of its parts ($((grow - 1)) reallocs)"
  else
    fail "$n: frees: summary ${said:-?}, END ${end:-?}, parts ${parts:-?}: $line"
  fi
}

# --- refused ----------------------------------------------------------------------------------
run refused MSAMP_LIVE_CAPACITY=256
frees_check refused
live_full=$("$DUMP" "$W/refused.bin" | sed -n 's/^DROPS .*live_full=\([0-9]*\).*/\1/p' | tail -1)
[ "${live_full:-0}" -gt 1000 ] && ok "refused: the device refused $live_full samples (live_full)" ||
  fail "refused: live_full ${live_full:-?}, expected more than 1000 (2000 kept, 256 slots)"
row=$(grep -m1 ' keep_site refuse_app.c' "$W/refused.top")
read -r b lo hi < <(echo "$row" | sed -n 's/^ *\(>=[0-9]*\) .*(\([0-9]*\)-\([0-9]*\)) .*/\1 \2 \3/p')
if [ -n "${b:-}" ] && [ "$lo" != "$hi" ] && [ "$hi" -ge $((keep * 1000)) ]; then
  ok "refused: --top shows keep_site's in-use as $b ($lo-$hi): marked, widened to the truth"
else
  fail "refused: --top's keep_site row is not marked and widened: $row"
fi
grep -q "^  >=: $live_full samples refused by the live table" "$W/refused.top" &&
  ok "refused: --top's footnote counts the $live_full refused samples" || fail "refused: no footnote"
grep -q 'stream complete' "$W/refused.top" "$W/refused.err" &&
  fail "refused: a completeness line says complete" ||
  ok "refused: no line says 'stream complete' ($(grep -o 'stream incomplete: END received, all [0-9]* samples' "$W/refused.err"))"
got=$(js refused '(s["complete"], s["marks"]["refused"], site("keep_site")["inuse_bytes"].get("lower_bound"),
  site("keep_site")["inuse_bytes"]["hi"] >= '$((keep * 1000))', site("keep_site")["refused"]["samples"],
  "lower_bound" in site("keep_site")["alloc_bytes"], "lower_bound" in site("churn_site")["inuse_bytes"],
  s["totals"]["inuse_bytes"].get("lower_bound"))')
[ "$got" = "(False, $live_full, True, True, $live_full, False, False, True)" ] &&
  ok "refused: --json complete false, keep_site's in-use lower_bound (hi >= truth), its alloc and churn_site unmarked" ||
  fail "refused: --json: $got"
est=$(js refused 'round(sum(x["inuse_bytes"]["est"] for x in s["sites"] if x["stack"][0] == "keep_site"))')
for budget in $((est * 2)) 100000000; do
  $D check "$W/refused.pb.gz" --budget "inuse:keep_site<=$budget" >"$W/c.out"; rc=$?
  if [ $rc = 0 ] && grep -q "^WARN inuse:keep_site<=$budget: .*a lower bound: $live_full samples refused" "$W/c.out"; then
    ok "refused: check inuse:keep_site<=$budget (estimate $est): WARN, a lower bound"
  else
    fail "refused: check inuse:keep_site<=$budget: exit $rc $(cat "$W/c.out")"
  fi
done
$D check "$W/refused.pb.gz" --budget "alloc:keep_site<=3M" | grep -q '^PASS alloc:keep_site' &&
  ok "refused: allocated estimates lost nothing: alloc:keep_site<=3M passes" || fail "refused: alloc budget"
$D merge "$W/m.pb.gz" "$W/refused.pb.gz" "$W/refused.pb.gz" 2>"$W/m.err" || fail "merge exit $?"
$D check "$W/m.pb.gz" --budget "inuse:keep_site<=100000000" --json "$W/m.json" >"$W/m.out"
grep -q '^WARN .*a lower bound: '$((2 * live_full))' samples refused' "$W/m.out" &&
  grep -q '"lower_bound": true' "$W/m.json" && ok "refused: a merge of two keeps the marks (2 x $live_full)" ||
  fail "refused: merged: $(cat "$W/m.out")"

# --- clean ------------------------------------------------------------------------------------
run clean MSAMP_LIVE_CAPACITY=1048576
frees_check clean
grep -q 'session 1: stream complete: END received' "$W/clean.err" && ok "clean: stream complete" ||
  fail "clean: $(grep 'stream' "$W/clean.err")"
row=$(grep -m1 ' keep_site refuse_app.c' "$W/clean.top")
echo "$row" | grep -q "^ *$((keep * 1000)) .*($((keep * 1000))-$((keep * 1000)))" &&
  ! grep -q '>=' "$W/clean.top" && ok "clean: exact interval, no marker: $(echo "$row" | cut -c1-60)" ||
  fail "clean: $row"
got=$(js clean '(s["complete"], s["marks"]["refused"], any("lower_bound" in x[k] for x in s["sites"] for k in x if isinstance(x[k], dict)))')
[ "$got" = "(True, 0, False)" ] && ok "clean: --json complete true, no mark" || fail "clean: --json: $got"
$D check "$W/clean.pb.gz" --budget "inuse:keep_site<=3M" >"$W/c.out"; rc=$?
[ $rc = 0 ] && grep -q '^PASS inuse:keep_site<=3M: .* within budget' "$W/c.out" && ! grep -q 'lower bound' "$W/c.out" &&
  ok "clean: check PASS" || fail "clean: check exit $rc $(cat "$W/c.out")"

# --- lost -------------------------------------------------------------------------------------
size=$(stat -c %s "$W/clean.bin")
{ head -c $((size / 2)) "$W/clean.bin"; tail -c +$((size / 2 + 3000)) "$W/clean.bin"; } >"$W/lost.bin"
$D --elf "$app" -o "$W/lost.pb.gz" --top 5 --json "$W/lost.json" "$W/lost.bin" >"$W/lost.top" 2>"$W/lost.err" ||
  fail "lost: drain exit $?"
got=$(js lost '(s["complete"], s["marks"]["lost"] > 0, all(x[k].get("lower_bound") for x in s["sites"] for k in ("inuse_bytes", "alloc_bytes")), s["totals"]["alloc_bytes"].get("lower_bound"))')
[ "$got" = "(False, True, True, True)" ] && ok "lost: --json complete false, every estimate lower_bound" ||
  fail "lost: --json: $got"
grep -q '^ *>=[0-9]' "$W/lost.top" && ok "lost: --top marks the estimates" || fail "lost: --top unmarked"
$D check "$W/lost.pb.gz" --budget "alloc<=1G" >"$W/c.out"
grep -q '^WARN alloc<=1G: .*a lower bound: .*records lost' "$W/c.out" && ok "lost: check alloc<=1G WARN, records lost" ||
  fail "lost: check: $(cat "$W/c.out")"
finish
