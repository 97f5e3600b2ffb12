#!/usr/bin/env bash
# A session a reset ended in the fleet store (docs/FLEET.md, docs/DRAIN.md "How a session ended"),
# on a scratch PostgreSQL server (tests/fleet/pg.sh). The stream: tests/drain/reset_cortexm3.bin
# (test-board-reset-cortexm's software run, saved: boot 0's session, which a software reset ended,
# sent by boot 1 from the block it kept, then boot 1's own, ended by END; interval 1, so boot 0's
# in use is its known live set: keep_big 8 x 1000 B, keep_mid 20 x 200 B, keep_small 120 x 48 B =
# 17760 B). drain reads it through a pipe with a pause of 1 s before the next boot's bytes (as a
# live reader gets them: boot 1's profile starts later), writing the two sessions' profiles.
# Checks: drain push stores both; the reset-ended profile's row is a final one with its session
# id, its stored in-use (totals and the sum of its site rows) 17760 B, as drain --json says, and
# its msamp-verdict ended comment (reset, cause software); drain fleet devices (the firmware sends
# no device id: each boot an anonymous device, session-ID): the reset-ended one with its in-use
# and "resets" 1, the next boot's with 0; drain fleet top of the reset-ended session: its three
# sites at the live set's bytes, of both: the in-use summed; drain fleet merge of the session
# alone says "ended": "reset" (cause software) as its file did, of both "mixed".
set -u
D=${DRAIN:?} W=${W:?}
T=$(dirname "$0")
S=$T/../drain/reset_cortexm3.bin
. "$T/pg.sh"
. "$T/../board/faults_lib.sh" # session_starts
pg_test

at=$(session_starts "$S" | awk '$3 == 1 { print $1; exit }')
[ -n "$at" ] || { echo "FAIL: no SESSION with the flag PREVIOUS in $S"; exit 1; }
{ head -c "$at" "$S"; sleep 1; tail -c +$((at + 1)) "$S"; } |
  "$D" -q --json "$W/r.json" -o "$W/r.pb.gz" - >/dev/null 2>"$W/r.err" || fail "drain: exit $? ($(cat "$W/r.err"))"
python3 - "$W/r.json" "$W/r.json.s2" >"$W/want" <<'PY' || fail "drain --json: not a reset-ended session and an ended one"
import json, sys
a, b = (json.load(open(f))["sessions"][0] for f in sys.argv[1:3])
assert a["ended"] == "reset" and a["reset"]["cause"] == "software" and b["ended"] == "end", (a["ended"], b["ended"])
print(a["session"], round(a["totals"]["inuse_bytes"]["est"]), b["session"], round(b["totals"]["inuse_bytes"]["est"]))
PY
read -r sid inuse sid2 inuse2 <"$W/want"
[ "$inuse" = 17760 ] && ok "drain: session $sid ended by a reset, in use $inuse B (the known live set); session $sid2 ended by END, in use $inuse2 B" ||
  fail "drain: the reset-ended session's in use $inuse B, want 17760"

"$D" push --db "$PG_CONN" "$W/r.pb.gz" "$W/r.s2.pb.gz" 2>"$W/push.err" || fail "push: exit $? ($(cat "$W/push.err"))"
grep -q "2 profiles stored, 0 already there" "$W/push.err" && ok "push: both sessions' profiles stored" || fail "push: $(cat "$W/push.err")"

row=$(pg_sql "select kind, (totals->>'inuse_space')::bigint,
  (select sum(s.vals[array_position(p.sample_types, 'inuse_space')]) from msamp_site s where s.device = p.device and s.profile_id = p.id and s.t_end = p.t_end),
  (select c from unnest(p.comments) c where c like 'msamp-verdict ended|%')
  from msamp_profile p where session = '$sid'")
[[ $row == "final|17760|17760|msamp-verdict ended|how=reset|at_s="*"|cause=software" ]] &&
  ok "store: the reset-ended session's profile: final, in use 17760 B (totals and site rows), ${row##*|how=}" ||
  fail "store: the reset-ended session's row: $row"
n=$(pg_sql "select count(*) from msamp_profile where session = '$sid2' and 'msamp-verdict ended|how=end' = any(comments)")
[ "$n" = 1 ] && ok "store: the next boot's profile: ended by END" || fail "store: the next boot's profile: $n rows with its ending"

# devices: a firmware without a device id (this one) is known by its session (docs/FLEET.md): the
# two boots are two anonymous devices, the reset-ended one with its in-use and its reset
"$D" fleet --db "$PG_CONN" devices --json "$W/dev.json" >"$W/dev.txt" 2>&1 || fail "devices: exit $? ($(cat "$W/dev.txt"))"
python3 - "$W/dev.json" "$sid" "$inuse" "$sid2" "$inuse2" <<'PY' && ok "devices: $(sed -n 3p "$W/dev.txt" | tr -s ' ')" || { fail "devices"; cat "$W/dev.txt"; }
import json, sys
d = json.load(open(sys.argv[1]))["devices"]
want = [("session-" + sys.argv[2], int(sys.argv[3]), 1), ("session-" + sys.argv[4], int(sys.argv[5]), 0)]
got = [(x["device"], x["inuse"], x["resets"]) for x in d]
assert got == want, (got, want)  # the reset-ended boot first: its heap's low watermark is the lower
assert all(x["profiles"] == 1 and x["min_inuse"] == x["max_inuse"] == x["inuse"] for x in d), d
PY

# top: of the reset-ended session alone, its three sites at the known live set's bytes; of all,
# both sessions' in-use summed
topsum() { # NAME FILTER...: "sum: site values..." of fleet top's inuse_space
  local n=$1
  shift
  "$D" fleet --db "$PG_CONN" top --json "$W/top.$n.json" --top 100 "$@" >"$W/top.$n.txt" 2>&1 || { echo "exit $?"; return; }
  python3 -c 'import json,sys; v=sorted(x["values"]["inuse_space"]["value"] for x in json.load(open(sys.argv[1]))["sites"]); print(sum(v), *[x for x in v if x])' "$W/top.$n.json"
}
t=$(topsum one --device "session-$sid")
[ "$t" = "17760 4000 5760 8000" ] && ok "top of the reset-ended session: in use $t (keep_mid, keep_small, keep_big)" ||
  fail "top of the reset-ended session: $t"
t=$(topsum all)
[ "${t%% *}" = $((inuse + inuse2)) ] && ok "top of both: in use ${t%% *} B" || fail "top of both: $t"

# fleet merge: of the session a reset ended alone, and of both
ended() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps({k: d[k] for k in ("ended", "endings", "reset") if k in d}))' "$1"; }
"$D" check "$W/r.pb.gz" --budget 'inuse<=1G' --json "$W/file.check" >/dev/null
for sel in "one:--label session=$sid" "both:"; do
  name=${sel%%:*}
  # shellcheck disable=SC2086
  "$D" fleet --db "$PG_CONN" merge "$W/m.$name.pb.gz" ${sel#*:} >/dev/null 2>"$W/m.$name.err" || fail "fleet merge $name: exit $?"
  "$D" check "$W/m.$name.pb.gz" --budget 'inuse<=1G' --json "$W/m.$name.check" >/dev/null
done
[ "$(ended "$W/m.one.check")" = "$(ended "$W/file.check")" ] &&
  ok "fleet merge of the reset-ended session: $(ended "$W/m.one.check") (as its file)" ||
  fail "fleet merge of the reset-ended session: $(ended "$W/m.one.check"), the file: $(ended "$W/file.check")"
[[ $(ended "$W/m.both.check") == '{"ended": "mixed", "endings": ["end", "reset"], '* ]] &&
  ok "fleet merge of both: $(ended "$W/m.both.check" | cut -d, -f1-3)" || fail "fleet merge of both: $(ended "$W/m.both.check")"

[ $nfail = 0 ] && echo "t_reset: all passed"
[ $nfail = 0 ]
