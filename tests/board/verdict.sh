#!/usr/bin/env bash
# Usage: tests/board/verdict.sh ELF OUT   (after run_demo.sh wrote OUT/demo.pb.gz, OUT/demo.json)
# The demo under QEMU gated by `drain check` as a firmware project's CI would (docs/VERDICTS.md
# "CI recipes"): a budget it meets (its total in use within the heap it has) passes with exit 0,
# one it breaks (leak_record allocating at most 1 KiB) fails with exit 1 and a JUnit failure;
# the JSON run_demo.sh wrote is valid and names leak_record; the intervals hold the demo's truth.
set -u
elf=$1; out=$2
drain=${DRAIN:-host_tools/drain}
fail=0
python3 -m json.tool "$out/demo.json" >/dev/null && grep -q '"leak_record"' "$out/demo.json" &&
  echo "ok: out/demo.json is valid JSON and names leak_record" || { echo "FAIL: demo.json"; fail=1; }
"$drain" check "$out/demo.pb.gz" --budget 'inuse<=1M' --junit "$out/pass.xml" >"$out/pass.txt"; rc=$?
cat "$out/pass.txt"
[ $rc = 0 ] && grep -q '^PASS inuse<=1M' "$out/pass.txt" && echo "ok: a budget it meets passes (exit 0)" ||
  { echo "FAIL: met budget: exit $rc"; fail=1; }
"$drain" check "$out/demo.pb.gz" --budget 'inuse<=1M' --budget 'alloc:leak_record<=1K' \
  --junit "$out/fail.xml" >"$out/fail.txt"; rc=$?
cat "$out/fail.txt"
[ $rc = 1 ] && grep -q '^FAIL alloc:leak_record<=1K' "$out/fail.txt" &&
  grep -q 'tests="2" failures="1"' "$out/fail.xml" && echo "ok: a budget it breaks fails (exit 1, JUnit failure)" ||
  { echo "FAIL: broken budget: exit $rc"; fail=1; }
# the stream itself as INPUT, symbolized with the ELF (uart: the stream run_demo.sh kept, if any)
if [ -s "$out/stream.bin" ]; then
  "$drain" check "$out/stream.bin" --elf "$elf" --budget 'alloc:leak_record<=1K' >/dev/null; rc=$?
  [ $rc = 1 ] && echo "ok: the stream as INPUT fails the same budget" || { echo "FAIL: stream input: exit $rc"; fail=1; }
fi
# The demo's own truth (its console's "truth" lines, by leaf function; grow_buffer's realloc
# chains left out: in use at their first site): the 95 % intervals of drain check's sums hold it
# for at least 7 of the 9 (function, allocated/in-use) pairs with a truth (each holds it with
# 95 %: 7 or fewer would happen once in a thousand runs).
fns="cache_insert leak_record churn_scratch deep_alloc isr_make_packet"
args=()
for f in $fns; do args+=(--budget "alloc:$f<=1G" --budget "inuse:$f<=1G"); done
"$drain" check "$out/demo.pb.gz" "${args[@]}" --json "$out/truth.json" >/dev/null ||
  { echo "FAIL: check for the truth"; fail=1; }
python3 - "$out/console.txt" "$out/truth.json" <<'PY' || fail=1
import json, re, sys
truth = {}
for line in open(sys.argv[1]):
    m = re.search(r"truth site=(\w+) size=(\d+) allocs=(\d+) live=(\d+)", line)
    if m:
        f, size, a, l = m.group(1), *map(int, m.groups()[1:])
        t = truth.setdefault(f, {"alloc": 0, "inuse": 0})
        t["alloc"] += size * a; t["inuse"] += size * l
hit = n = 0
for b in json.load(open(sys.argv[2]))["budgets"]:
    t = truth[b["where"]][b["kind"]]
    if t == 0 and b["value"]["est"] == 0:
        continue
    v = b["value"]; n += 1; ok = v["lo"] <= t <= v["hi"]; hit += ok
    print(f"  {b['kind']:5} {b['where']:16} truth {t:8} estimate {v['est']:8.0f} [{v['lo']:.0f}, {v['hi']:.0f}]{'' if ok else '  outside'}")
print(f"{'ok' if hit >= 7 else 'FAIL'}: the demo's truth inside the 95 % interval for {hit} of {n} pairs")
sys.exit(0 if hit >= 7 else 1)
PY
[ $fail = 0 ] && echo "verdict: all passed"
exit $fail
