#!/usr/bin/env bash
# drain diff (docs/VERDICTS.md "Diff"): verdict_app at 8 KiB, pairs of runs with different seeds:
# pooled over 6 pairs, at most 5 % of the (site, estimate) comparisons are flagged significant.
# A build keeping 25 % more at site_07 (VERDICT_MORE=1) against a base run, over 4 pairs: flagged
# at site_07 and at no other site, and the delta's interval of in-use bytes contains the true
# change (from the truths). An option that takes a value, last without it: exit 2, said so.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
app=$T/verdict_app
R=8192 # below the live table's fill at 4 KiB, where a thinning raise can come (see docs/VERDICTS.md)
run() { # NAME SEED [MORE]
  VERDICT_MORE=${3:-0} MSAMP_OUTPUT=$W/$1.bin MSAMP_INTERVAL=$R MSAMP_SEED=$2 "$app" "$W/$1.truth" ||
    fail "verdict_app exit $?"
  $D -q -o "$W/$1.pb.gz" --elf "$app" "$W/$1.bin" || fail "drain exit $? ($1)"
}
for i in 1 2 3 4 5 6; do
  run a$i $((100 + i)); run b$i $((200 + i))
  $D diff "$W/a$i.pb.gz" "$W/b$i.pb.gz" --json "$W/d$i.json" >"$W/d$i.txt" || fail "diff exit $?"
done
for i in 1 2 3 4; do
  run m$i $((300 + i)) 1
  $D diff "$W/a$i.pb.gz" "$W/m$i.pb.gz" --json "$W/e$i.json" --top 5 >"$W/e$i.txt" || fail "diff exit $?"
done
cat "$W/e1.txt"
python3 - "$W" <<'PY' && ok "diff properties" || fail "diff properties"
import json, sys
W = sys.argv[1]
bad = 0
flag = tot = 0
for i in range(1, 7):
    for s in json.load(open(f"{W}/d{i}.json"))["sites"]:
        for k, v in s.items():
            if isinstance(v, dict) and "significant" in v:
                tot += 1; flag += v["significant"]
print(f"same program, other seeds: {flag} of {tot} comparisons flagged ({100*flag/tot:.1f} %)")
if flag > 0.05 * tot: bad += 1
def truth(path):
    return {l.split()[1]: list(map(int, l.split()[2:6])) for l in open(path)}
for i in range(1, 5):
    ta, tm = truth(f"{W}/a{i}.truth"), truth(f"{W}/m{i}.truth")
    for s in json.load(open(f"{W}/e{i}.json"))["sites"]:
        fn = s["stack"][0] if s["stack"] else "?"
        sig = [k for k, v in s.items() if isinstance(v, dict) and v.get("significant")]
        if fn == "site_7":
            d = s["inuse_bytes"]["delta"]; true = tm[fn][3] - ta[fn][3]
            print(f"pair {i}: site_7 flagged on {sig}; in-use delta {d['est']:.0f} "
                  f"[{d['lo']:.0f}, {d['hi']:.0f}], true {true}")
            if "inuse_bytes" not in sig or not d["lo"] <= true <= d["hi"]: bad += 1
        elif sig:
            print(f"pair {i}: {fn} flagged on {sig}: a false positive"); bad += 1
sys.exit(1 if bad else 0)
PY
# An option that takes a value, last and without it: said so, exit 2.
for opt in --top -t --json --elf -e; do
  $D diff "$W/a1.pb.gz" "$W/b1.pb.gz" $opt >/dev/null 2>"$W/err"; rc=$?
  [ $rc = 2 ] && head -1 "$W/err" | grep -qx -- "drain diff: $opt needs a value" &&
    ok "$opt last: exit 2, $(head -1 "$W/err")" || fail "$opt last: exit $rc, $(head -1 "$W/err")"
done
finish
