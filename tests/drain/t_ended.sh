#!/usr/bin/env bash
# How a session ended, kept in its profile (docs/DRAIN.md "How a session ended", verdict/ended.h),
# on tests/drain/reset_cortexm3.bin: the stream of test-board-reset-cortexm's software run (boot 0's
# session, ended by a software reset and sent by boot 1, then boot 1's, ended by END), saved by
#   make test-board-reset-cortexm
#   cp build/qemu-mps2-an385-full/reset/t_reset/software/stream.bin tests/drain/reset_cortexm3.bin
# Checks:
#   stream    drain --json of it: session 1 "ended": "reset" (cause software), session 2 "end"; the
#             same stream without its last frame (END's): session 2 "cut"
#   profiles  the saved profiles say the same: drain check --json and drain diff --json of them
#             carry the stream's "ended" and "reset" members
#   merge     of two profiles that ended alike: that ending (a reset's time and cause kept when one
#             reset is behind it, dropped with "resets" when two differ); of profiles that ended
#             differently: "mixed" with the list ("end", "reset"; "reset", "cut"); with a partial
#             profile (no ending yet): "mixed", "unknown" among them; drain merge notes endings
#             that differ on stderr
. "$(dirname "$0")/lib.sh"
D=$(realpath "$DRAIN")
S=$here/reset_cortexm3.bin
# ended FILE: the "ended", "endings" and "reset" members of the first session of a --json FILE
# (or of check's), as JSON; "none" for a file without them
ended() {
  python3 - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(print("none"))
d = d["sessions"][0] if "sessions" in d else d
m = {k: d[k] for k in ("ended", "endings", "reset") if k in d}
print(json.dumps(m) if m else "none")
PY
}

(cd "$W" && "$D" -q --json s.json -o s.pb.gz "$S" >/dev/null 2>s.err) || fail "drain of the stream: exit $?"
python3 - "$S" "$W/cut.bin" <<'PY' || fail "cut"
import sys
b = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(b[: b.rindex(b"\0", 0, len(b) - 1) + 1])  # without the last frame
PY
(cd "$W" && "$D" -q --json c.json -o c.pb.gz cut.bin >/dev/null 2>c.err) || fail "drain of the cut stream: exit $?"
e1=$(ended "$W/s.json") e2=$(ended "$W/s.json.s2") c2=$(ended "$W/c.json.s2")
[[ $e1 == '{"ended": "reset", "reset": {"at_s": '[0-9.]*', "cause": "software"}}' ]] && ok "stream: session 1 $e1" ||
  fail "stream: session 1: $e1"
[ "$e2" = '{"ended": "end"}' ] && ok "stream: session 2 $e2" || fail "stream: session 2: $e2"
[ "$c2" = '{"ended": "cut"}' ] && ok "stream without its last frame: session 2 $c2" || fail "cut stream: session 2: $c2"

# the profiles: check --json (one input) and diff --json (two)
for p in s c.s2 s.s2; do
  "$D" check "$W/$p.pb.gz" --budget 'inuse<=1G' --json "$W/$p.check.json" >/dev/null 2>"$W/$p.check.err" ||
    fail "drain check $p: exit $? ($(cat "$W/$p.check.err"))"
done
[ "$(ended "$W/s.check.json")" = "$e1" ] && [ "$(ended "$W/s.s2.check.json")" = "$e2" ] &&
  [ "$(ended "$W/c.s2.check.json")" = "$c2" ] &&
  ok "saved profiles (drain check --json): the stream's endings, the same members" ||
  fail "drain check --json: $(ended "$W/s.check.json") / $(ended "$W/s.s2.check.json") / $(ended "$W/c.s2.check.json")"
"$D" diff "$W/s.pb.gz" "$W/s.s2.pb.gz" --json "$W/d.json" >/dev/null 2>"$W/d.err" || fail "drain diff: exit $?"
python3 - "$W/d.json" <<'PY' && ok "drain diff --json: base \"reset\" (software), new \"end\"" || fail "drain diff --json"
import json, sys
d = json.load(open(sys.argv[1]))
b, n = d["base"], d["new"]
if b["ended"] != "reset" or b["reset"]["cause"] != "software" or n["ended"] != "end" or "reset" in n:
    sys.exit(f"{b} {n}")
PY

# merges
merged() { # NAME INPUTS...: the merge's ending as drain check --json reads it
  local n=$1
  shift
  "$D" merge "$W/$n.pb.gz" "$@" 2>"$W/$n.err" || { fail "merge $n: exit $?"; return; }
  "$D" check "$W/$n.pb.gz" --budget 'inuse<=1G' --json "$W/$n.json" >/dev/null 2>&1
  ended "$W/$n.json"
}
m=$(merged same "$W/s.pb.gz" "$W/s.pb.gz")
[ "$m" = "$e1" ] && ok "merge of two alike: $m" || fail "merge of two alike: $m"
# a second reset at another time: the same profile with its at_s moved (as another device's)
zcat "$W/s.pb.gz" | sed 's/msamp-verdict ended|how=reset|at_s=0\.\([0-9]\)/msamp-verdict ended|how=reset|at_s=1.\1/' |
  gzip >"$W/s2reset.pb.gz"
m=$(merged resets "$W/s.pb.gz" "$W/s2reset.pb.gz")
[ "$m" = '{"ended": "reset"}' ] && zcat "$W/resets.pb.gz" | grep -a -q 'msamp-verdict ended|how=reset|resets=2' &&
  ok "merge of two resets at different times: $m, no one time (resets=2 in the comment)" || fail "merge of two resets: $m"
m=$(merged mixed "$W/s.pb.gz" "$W/s.s2.pb.gz")
[[ $m == '{"ended": "mixed", "endings": ["end", "reset"], "reset": {'*'"cause": "software"}}' ]] && ok "merge reset + end: $m" ||
  fail "merge reset + end: $m"
grep -q 'drain merge: note: the profiles. sessions ended differently (end, reset): the merge says "ended": "mixed"' "$W/mixed.err" &&
  ! grep -q 'ended differently' "$W/same.err" && ok "merge reset + end: drain merge says so on stderr; a merge of two alike does not" ||
  fail "merge's note: $(cat "$W/mixed.err" "$W/same.err")"
m=$(merged mixedcut "$W/s.pb.gz" "$W/c.s2.pb.gz")
[[ $m == '{"ended": "mixed", "endings": ["reset", "cut"], '* ]] && ok "merge reset + cut: $m" ||
  fail "merge reset + cut: $m"
# a partial profile: the first half of boot 1's session, read live with --every
at=$(python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); print(b.index(b"\0", len(b) // 2) + 1)' "$S")
{ head -c "$at" "$S"; sleep 1; } | (cd "$W" && "$D" -q --every 0.3 -o live.pb.gz - >/dev/null 2>live.err)
part=$(ls "$W"/live*.part1.pb.gz 2>/dev/null | head -1)
if [ -n "$part" ] && ! zcat "$part" | grep -a -q 'msamp-verdict ended'; then
  m=$(merged withpart "$W/s.s2.pb.gz" "$part")
  [ "$m" = '{"ended": "mixed", "endings": ["end", "unknown"]}' ] && ok "merge end + a partial profile (no ending): $m" ||
    fail "merge with a partial: $m"
else
  fail "no partial profile without an ending: $(ls "$W"/live* 2>&1 | tr '\n' ' ')"
fi

[ $nfail = 0 ] && echo "t_ended: all passed"
[ $nfail = 0 ]
