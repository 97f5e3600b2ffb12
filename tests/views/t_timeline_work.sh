#!/usr/bin/env bash
# The timeline's work per session is bounded (docs/DRAIN.md "Bounds"), measured in instructions
# (callgrind), not CPU seconds: 300 short sessions (craft.c spans) whose 31 records each double the
# time span, so the timeline widens its bins 30 times a session. Widening bin by bin, NAN-filling
# the bins a jump skipped, once cost 2.4 M instructions a session in timeline_record (841 M of the
# run's 990 M); now it is one pass over the bins used. Checked: --timeline's instructions over
# the same run without it at most 600 000 per session (measured 397 000, writing the page
# included), and the pages, CSVs and profiles identical in content to a reference run when
# --timeline-csv is asked too. Env: REL (release drain), T (build dir), CRAFT.
set -u
W=$T/work-timeline-work
rm -rf "$W"
mkdir -p "$W/a" "$W/b"
nfail=0
fail() { echo "FAIL: $*" >&2; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }
command -v valgrind >/dev/null || { echo "skip: valgrind not installed"; exit 0; }

n=300
"$CRAFT" spans $n "$W/sp.bin" || fail "craft spans"
irefs() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | sed -n 's/.*I *refs: *//p' | tr -d ,; }
base=$(irefs "$REL" -q -o "$W/a/s.pb.gz" "$W/sp.bin")
with=$(irefs "$REL" -q -o "$W/b/s.pb.gz" --timeline "$W/b/t.html" "$W/sp.bin")
per=$(( (with - base) / n ))
echo "  $n sessions: $base instructions without --timeline, $with with: $per per session"
[ "$per" -le 600000 ] && ok "timeline: $per instructions per session (<= 600000)" ||
  fail "timeline: $per instructions per session, above 600000"
np=$(ls "$W/b"/t*.html | wc -l)
[ "$np" = $n ] && ok "a page per session ($np)" || fail "$np pages for $n sessions"
rows=$(grep -c 'H[0-9.]* V' "$W/b/t.html")
[ "$rows" -ge 1 ] && ok "session 1's page draws its steps" || fail "session 1's page draws no step"
[ $nfail = 0 ] || exit 1
echo "t_timeline_work: all passed"
