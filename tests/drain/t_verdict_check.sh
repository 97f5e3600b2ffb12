#!/usr/bin/env bash
# drain check (docs/VERDICTS.md "Check") on a verdict_app profile and on its stream: a budget it
# meets passes (exit 0), one it breaks fails (exit 1), one inside the interval warns (exit 0);
# lines say PASS/WARN/FAIL; JUnit XML is well formed and counts the failures; peak and growth
# budgets without growth data warn; hostile SPECs and budget files exit 2 with a clear error.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
app=$T/verdict_app
MSAMP_OUTPUT=$W/v.bin MSAMP_INTERVAL=4096 MSAMP_SEED=7 "$app" "$W/v.truth" || fail "verdict_app exit $?"
$D -q -o "$W/v.pb.gz" --elf "$app" --json "$W/v.json" "$W/v.bin" || fail "drain exit $?"
# budgets from the profile's own interval: one above hi, one below lo, one at the estimate
read -r lo est hi < <(python3 -c '
import json,sys; s=json.load(open(sys.argv[1]))["sessions"][0]
e=[x for x in s["sites"] if x["stack"][0]=="site_7"][0]["inuse_bytes"]; print(int(e["lo"]), int(e["est"]), int(e["hi"]))' "$W/v.json")
above=$((hi + 1024)) below=$((lo - 1024))
$D check "$W/v.pb.gz" --budget "inuse:site_7<=$above" >"$W/p.out"; rc=$?
[ $rc = 0 ] && grep -q "^PASS inuse:site_7<=$above" "$W/p.out" && ok "pass: exit 0" || fail "pass: exit $rc"
$D check "$W/v.pb.gz" --budget "inuse:site_7<=$est" >"$W/w.out"; rc=$?
[ $rc = 0 ] && grep -q "^WARN " "$W/w.out" && ok "warn: exit 0, WARN" || fail "warn: exit $rc"
$D check "$W/v.pb.gz" --budget "inuse:site_7<=$below" --budget "alloc<=1G" --junit "$W/j.xml" \
  --json "$W/c.json" >"$W/f.out"; rc=$?
[ $rc = 1 ] && grep -q "^FAIL inuse:site_7" "$W/f.out" && grep -q "^PASS alloc<=1G" "$W/f.out" &&
  ok "fail: exit 1, one line a budget" || { fail "fail: exit $rc"; cat "$W/f.out"; }
xmllint --noout "$W/j.xml" && grep -q 'tests="2" failures="1"' "$W/j.xml" && grep -c '<failure ' "$W/j.xml" | grep -qx 1 &&
  ok "JUnit: 2 tests, 1 failure" || fail "JUnit"
python3 -m json.tool "$W/c.json" >/dev/null && grep -q '"status": "fail"' "$W/c.json" && ok "JSON" || fail "JSON"
# the stream itself, read as drain reads it
$D check "$W/v.bin" --elf "$app" --budget "inuse:site_7<=$above" --budget "inuse<=1K" >"$W/s.out"; rc=$?
[ $rc = 1 ] && grep -q '^PASS inuse:site_7' "$W/s.out" && grep -q '^FAIL inuse<=1K' "$W/s.out" &&
  ok "a stream as INPUT" || { fail "stream input: exit $rc"; cat "$W/s.out"; }
# tasks: none in this program, so task=NAME matches nothing and passes with a note
$D check "$W/v.pb.gz" --budget "inuse:task=idle<=1" | grep -q 'PASS .*no site of this task' &&
  ok "task= of no site: a note" || fail "task="
# peak and growth: drain stores its peak and leak verdicts in the profile (docs/VERDICTS.md); this
# program's peak is megabytes and its leaking sites grow by megabytes a second, so 1K fails and
# 100G passes; a profile without them (an older drain's: the comments dropped) warns, not judged.
for k in peak growth; do
  $D check "$W/v.pb.gz" --budget "$k<=1K" --budget "$k<=100G" >"$W/$k.out"; rc=$?
  [ $rc = 1 ] && grep -q "^FAIL $k<=1K" "$W/$k.out" && grep -q "^PASS $k<=100G" "$W/$k.out" &&
    ok "$k: judged from the profile's verdicts" || fail "$k: exit $rc $(cat "$W/$k.out")"
done
python3 - "$W/v.pb.gz" "$W/nov.pb.gz" <<'PY'
import gzip, sys
# the profile without its msamp-verdict comments: rebuild it with them cut from the string table
# (a comment is a string index; an emptied string is no verdict)
data = gzip.open(sys.argv[1]).read()
out = data.replace(b"msamp-verdict ", b"msamp-verdicX ")
gzip.open(sys.argv[2], "wb").write(out)
PY
for k in peak growth; do
  $D check "$W/nov.pb.gz" --budget "$k<=1K" >"$W/$k.nov.out"; rc=$?
  [ $rc = 0 ] && grep -q "^WARN $k<=1K: no .* not judged" "$W/$k.nov.out" && ok "$k without growth data warns" ||
    fail "$k without verdicts: exit $rc $(cat "$W/$k.nov.out")"
done
printf '# limits\ninuse<=1G   # total\n\n  alloc:site_3<=1G\n' >"$W/b.txt"
$D check "$W/v.pb.gz" --budgets "$W/b.txt" | grep -c '^PASS' | grep -qx 2 && ok "--budgets FILE" || fail "--budgets"
for spec in 'inuse' 'inuse<=' 'bogus<=1K' 'inuse:<=1K' 'inuse<=1X' 'inuse<=-5' 'inuse<=nan' \
  'inuse<=1e999' 'peak:main<=1K' 'inuse:task=<=1' 'inuse>=1K' "$(printf 'inuse<=1\tK')" ''; do
  expect_fail "SPEC '$spec'" "drain check: budget" $D check "$W/v.pb.gz" --budget "$spec"
  [ -s "$W/out" ] && fail "SPEC '$spec': output on stdout"
done
printf 'inuse<=1G\nnonsense here\n' >"$W/bad1.txt"
head -c 2000 /dev/urandom >"$W/bad2.txt"
python3 -c 'print("inuse<=" + "9" * 2000)' >"$W/bad3.txt"
for f in bad1 bad2 bad3; do
  $D check "$W/v.pb.gz" --budgets "$W/$f.txt" >/dev/null 2>"$W/err"; rc=$?
  [ $rc = 2 ] && grep -q 'drain check: ' "$W/err" && ok "budgets file $f: exit 2 ($(head -c 100 "$W/err"))" ||
    fail "budgets file $f: exit $rc"
done
$D check "$W/none.pb.gz" --budget 'inuse<=1K' >/dev/null 2>"$W/err"; rc=$?
[ $rc = 1 ] && ok "missing INPUT: exit 1" || fail "missing input: exit $rc"
$D check "$W/v.pb.gz" >/dev/null 2>&1; [ $? = 2 ] && ok "no budget: exit 2" || fail "no budget"
finish
