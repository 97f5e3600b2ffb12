#!/usr/bin/env bash
# Budgets as a family (docs/VERDICTS.md "Budgets as a family"): the share of CI runs that go red
# when every budget holds, with drain check's family (Holm) and with --per-budget (each budget
# alone, drain check before the family), and the power left for a budget truly broken.
# CALIB_APP (tests/calibrate/calib_app.c) runs its "many" workload (64 leaves, each function's
# exact allocated and in-use bytes written by the program) at a pinned 256 B interval, so the
# samples of distinct leaves are independent: one program run gives 4 independent CI runs, each
# judging 14 leaves (7 by in-use, 7 by allocated bytes) with budgets 0.1 % above their truth.
# FAMILY_PROGRAM_RUNS (default 60: 240 CI runs) program runs, seeds 1...
# Asserts: the family's red runs at most the 0.999 binomial quantile for 2.5 %; --per-budget's at
# least that (the budgets are tight: the family is what keeps CI green); the family only turns
# FAILs into WARNs ("held", with its reason); a budget set at 70 % of its truth, among 13 honest
# ones, FAILs in at least 95 % of the runs (even groups: about 99 % expected); one at 90 % (odd
# groups) shows the power the family costs (printed, beside the same budget's verdict alone).
. "$(dirname "$0")/lib.sh"
D=$DRAIN
app=${CALIB_APP:?CALIB_APP: tests/calibrate/calib_app}
runs=${FAMILY_PROGRAM_RUNS:-60}
start=$(date +%s)
for ((seed = 1; seed <= runs; seed++)); do
  MSAMP_OUTPUT=$W/m$seed.bin MSAMP_INTERVAL=256 MSAMP_INTERVAL_PIN=1 MSAMP_SEED=$seed \
    "$app" many "$seed" "$W/m$seed.truth" >/dev/null || fail "calib_app seed $seed: exit $?"
  "$DRAIN_REL" -q -o "$W/m$seed.pb.gz" "$W/m$seed.bin" --elf "$app" 2>"$W/m$seed.err" ||
    fail "drain seed $seed: exit $? $(head -c 300 "$W/m$seed.err")"
  rm -f "$W/m$seed.bin"
done
echo "$runs program runs in $(($(date +%s) - start)) s"
python3 - "$D" "$W" "$runs" <<'PY' || fail "family rates"
import json, math, subprocess, sys
drain, W, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
GROUPS, M = 4, 14

def check(prof, budgets, extra):
    """drain check on the budgets: its exit status and its JSON's budgets by spec"""
    r = subprocess.run([drain, "check", prof, *sum((["--budget", b] for b in budgets), []),
                        "--json", f"{W}/c.json", *extra], capture_output=True, text=True)
    if r.returncode not in (0, 1) or "Sanitizer" in r.stderr or "runtime error" in r.stderr:
        sys.exit(f"drain check exit {r.returncode}: {r.stderr[-500:]}")
    j = json.load(open(f"{W}/c.json"))
    fam = j["family"]
    want = ("none", 0) if extra else ("holm", M)
    if (fam["method"], fam["budgets"], fam["alpha"]) != (*want, 0.025):
        sys.exit(f"family {fam}, want {want}")
    if not r.stdout.rstrip().split("\n")[-1].startswith(
            "family: none (--per-budget)" if extra else f"family: {M} of {M} budgets"):
        sys.exit(f"no family line: {r.stdout[-300:]}")
    by = {b["spec"]: b for b in j["budgets"]}
    if (r.returncode == 1) != any(b["status"] == "fail" for b in by.values()):
        sys.exit(f"exit {r.returncode} but statuses {[b['status'] for b in by.values()]}")
    return r.returncode, by

def binom_upper(n, p, q=0.999):
    """the smallest k with P(X <= k) >= q, X ~ Binomial(n, p)"""
    c = 0.0
    for k in range(n + 1):
        c += math.comb(n, k) * p**k * (1 - p) ** (n - k)
        if c >= q:
            return k
    return n

modes = (("family", []), ("per-budget", ["--per-budget"]))
red = {m: 0 for m, _ in modes}
budget_fails = {m: 0 for m, _ in modes}
power = {(m, f): [0, 0] for m, _ in modes for f in (0.70, 0.90)}
n = held = 0
for seed in range(1, runs + 1):
    truth = {}
    for line in open(f"{W}/m{seed}.truth"):
        k, where, v = line.split()
        truth[(k, where)] = int(v)
    prof = f"{W}/m{seed}.pb.gz"
    for g in range(GROUPS):
        # 14 leaves, in-use and allocated by turns; the broken budget: the first leaf's in-use
        # at 70 % of its truth (even groups) or 90 % (odd), the 13 others honest
        specs = []
        for i in range(M):
            leaf, kind = g * M + i, "inuse" if i % 2 == 0 else "alloc"
            where = f"calib_s{leaf // 8}{leaf % 8}"
            specs.append((kind, where, truth[(kind, where)]))
        honest = [f"{k}:{w}<={math.floor(t * 1.001) + 1}" for k, w, t in specs]
        frac = 0.70 if g % 2 == 0 else 0.90
        k, w, t = specs[0]
        broken = [f"{k}:{w}<={math.floor(t * frac)}"] + honest[1:]
        n += 1
        got = {}
        for mode, extra in modes:
            rc, got[mode] = check(prof, honest, extra)
            red[mode] += rc == 1
            budget_fails[mode] += sum(b["status"] == "fail" for b in got[mode].values())
        # the broken family once: alone, a budget FAILs when its 95 % low end is above it (as
        # --per-budget's FAILs on the honest ones are, checked below)
        _, by = check(prof, broken, [])
        b = by[broken[0]]
        for mode, failed in (("family", b["status"] == "fail"),
                             ("per-budget", b["value"]["lo"] > b["limit"])):
            power[(mode, frac)][0] += failed
            power[(mode, frac)][1] += 1
        # the family only turns FAILs into WARNs, each with its reason
        for spec, b in got["family"].items():
            alone = got["per-budget"][spec]
            if (alone["status"] == "fail") != (b["value"]["lo"] > b["limit"]):
                sys.exit(f"{spec}: --per-budget {alone['status']}, 95 % low end {b['value']['lo']}")
            if b["status"] == "fail" and alone["status"] != "fail":
                sys.exit(f"{spec}: FAIL in the family, {alone['status']} alone")
            if alone["status"] == "fail" and b["status"] != "fail":
                if not (b["status"] == "warn" and b["value"]["family"].get("held")
                        and "not at the family's level" in b["note"]):
                    sys.exit(f"{spec}: FAIL alone, in the family {b}")
                held += 1
lim = binom_upper(n, 0.025)
for mode, _ in modes:
    print(f"{mode}: {red[mode]} of {n} CI runs red ({100 * red[mode] / n:.1f} %), {M} budgets "
          f"0.1 % above their truth; {budget_fails[mode]} of {n * M} budgets FAIL "
          f"({100 * budget_fails[mode] / (n * M):.2f} %)")
    for frac in (0.70, 0.90):
        k, m = power[(mode, frac)]
        print(f"{mode}: a budget at {100 * frac:.0f} % of its truth among 13 honest ones FAILs in "
              f"{k} of {m} runs ({100 * k / m:.1f} %)")
print(f"{held} budgets FAIL alone held to WARN by the family; the 0.999 binomial quantile at "
      f"2.5 % over {n} runs: {lim} red")
bad = 0
if red["family"] > lim:
    print(f"FAIL: the family's red runs {red['family']} > {lim}"); bad = 1
if red["per-budget"] < lim:
    print(f"FAIL: per budget only {red['per-budget']} red runs, below {lim}: the budgets are not tight"); bad = 1
k, m = power[("family", 0.70)]
if k < 0.95 * m:
    print(f"FAIL: the budget at 70 % FAILs in {k} of {m} runs only"); bad = 1
sys.exit(bad)
PY
echo "$(($(date +%s) - start)) s in all"
finish
