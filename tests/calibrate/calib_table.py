#!/usr/bin/env python3
"""The calibration suite's table (docs/VERDICTS.md "Calibration"), from the rows of
tests/calibrate/calibrate.sh and board.sh:

    workload run kind where truth est lo hi raises lowers marked

Per (workload, measure): the runs and rows, the coverage of the 95 % intervals (the fraction of
rows with lo <= truth <= hi), the bias (the mean of est/truth - 1 over the rows, its t = mean /
standard error), the worst |t| of one quantity (a leaf's or the total's, over its runs), the
median interval width (hi - lo over the truth) and the table events seen (raises, lowerings per
run). Fails (exit 1) when
  - a coverage is out of [90, 99] % beyond chance: its 99.9 % Wilson interval lies wholly outside
    (with hundreds of rows that is the point coverage itself; with a few dozen it allows the
    binomial noise of a short run);
  - a pooled |t| exceeds 4, or one quantity's |t| exceeds 5 (the allowance for comparing a few
    hundred quantities: a correct library fails it with probability about 1 %);
  - a workload did not see the table events it is there for (raises-N: N raises in every run;
    raises-3+: 3 or more; lowering: a lowering; long: 100 interval changes).
Marked rows (estimates drain marks as lower bounds: refused samples, lost records) are judged on
coverage only, and cover the truth when their interval holds it or their low end is at most it.
usage: calib_table.py ROWS.tsv [RUNS_DIR]   (RUNS_DIR: the truth files, for allocations per run)
"""
import glob
import math
import os
import statistics
import sys

Z999 = 3.2905  # two-sided 99.9 %


def wilson(k, n, z=Z999):
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def tstat(xs, sds):
    """t of the mean of relative errors xs: over the larger of the sample's standard error and
    the one the intervals themselves claim (sds: each row's sd, its interval's width / 3.92, over
    the truth). The floor keeps a quantity drain counts almost exactly (blocks far above the
    interval, sampled with p = 1 - 6e-6: the same +6e-6 every run) from a t of 10^4."""
    if len(xs) < 2:
        return 0.0
    m = statistics.fmean(xs)
    se = max(statistics.stdev(xs), math.sqrt(statistics.fmean([s * s for s in sds]))) / math.sqrt(len(xs))
    if se == 0:
        return 0.0 if m == 0 else math.copysign(math.inf, m)
    return m / se


EVENTS = {  # workload: (test on (raises, lowers, marked rows) of each run, what it says)
    "raises-0": (lambda r, l, m: r == 0 and l == 0, "no interval change"),
    "raises-1": (lambda r, l, m: r == 1, "1 raise"),
    "raises-2": (lambda r, l, m: r == 2, "2 raises"),
    "raises-3+": (lambda r, l, m: r >= 3, "3 or more raises"),
    "lowering": (lambda r, l, m: r >= 1 and l >= 1, "raises and a lowering"),
    "long": (lambda r, l, m: r + l >= 100, "100 interval changes"),
    "pinned-full": (lambda r, l, m: r == 0 and l == 0 and m > 0, "refusals, no interval change"),
    "ring-drops": (lambda r, l, m: m > 0, "records lost (marked estimates)"),
    "smallbig-1024": (lambda r, l, m: r == 2, "2 raises"),
    "smallbig-2048": (lambda r, l, m: r == 1, "1 raise"),
}


def runs_of(rs):
    """{run: (raises, lowerings, marked rows)} over the rows rs."""
    out = {}
    for r in rs:
        out[r[1]] = (r[8], r[9], out.get(r[1], (0, 0, 0))[2] + r[10])
    return out


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    rows = []
    for line in open(sys.argv[1]):
        f = line.rstrip("\n").split("\t")
        if len(f) != 11:
            print(f"FAIL: malformed row: {line!r}")
            return 1
        w, run, kind, where = f[0], f[1], f[2], f[3]
        truth, est, lo, hi = map(float, f[4:8])
        rows.append((w, run, kind, where, truth, est, lo, hi, int(f[8]), int(f[9]), int(f[10])))
    if not rows:
        print("FAIL: no rows")
        return 1
    allocs = {}
    if len(sys.argv) == 3:
        for t in glob.glob(os.path.join(sys.argv[2], "*.truth")):
            w = os.path.basename(t).rsplit(".", 2)[0]
            for line in open(t):
                if line.startswith("# allocations"):
                    allocs.setdefault(w, []).append(int(line.split()[2]))
    fails = []
    order = []
    groups = {}
    for r in rows:
        key = (r[0], r[2])
        if key not in groups:
            order.append(key)
            groups[key] = []
        groups[key].append(r)
    print("| workload | measure | runs | rows | coverage (99.9 % Wilson) | bias (t) | worst quantity t "
          "| median width | raises | lowerings |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    npairs = 0
    checked = set()
    for w, kind in order:
        g = groups[(w, kind)]
        npairs += 1
        runs = sorted({r[1] for r in g})
        # a marked row (a lower bound) covers when its interval holds the truth, or, its
        # interval not widened by what was lost (truth above it), when its low end is at most
        # the truth: all a lower bound claims
        hit = sum(1 for r in g if r[6] <= r[4] <= r[7] or (r[10] and r[6] <= r[4]))
        lo, hi = wilson(hit, len(g))
        cov = hit / len(g)
        # (an exhaustion row with no estimate, not judged running out, has its interval only)
        judged = [r for r in g if 0 < r[4] < math.inf and r[5] < math.inf and not r[10]]
        rel = [r[5] / r[4] - 1 for r in judged]
        sds = [(r[7] - r[6]) / 3.92 / r[4] for r in judged]
        t = tstat(rel, sds)
        worst, worst_q = 0.0, "-"
        for q in sorted({r[3] for r in judged}):
            xs = [r[5] / r[4] - 1 for r in judged if r[3] == q]
            qs = [(r[7] - r[6]) / 3.92 / r[4] for r in judged if r[3] == q]
            if len(xs) >= 5:
                tq = tstat(xs, qs)
                if abs(tq) > abs(worst):
                    worst, worst_q = tq, q
        widths = [(r[7] - r[6]) / r[4] for r in g if 0 < r[4] < math.inf and r[7] < math.inf]
        per_run = runs_of(g)
        ra = [v[0] for v in per_run.values()]
        lw = [v[1] for v in per_run.values()]
        marked = sum(r[10] for r in g)
        bias = statistics.fmean(rel) if rel else 0.0
        unit = "seconds" if kind == "exhaustion" else "bytes"
        print(f"| {w} | {kind} {unit} | {len(runs)} | {len(g)} | {100 * cov:.1f} % "
              f"[{100 * lo:.1f}, {100 * hi:.1f}] | {100 * bias:+.2f} % ({t:+.2f}) | "
              f"{worst:+.2f} ({worst_q}) | {100 * statistics.median(widths) if widths else math.nan:.1f} % | "
              f"{min(ra)}-{max(ra)} | {min(lw)}-{max(lw)} |" + (f" {marked} marked" if marked else ""))
        if hi < 0.90 or lo > 0.99:
            fails.append(f"{w} {kind}: coverage {100 * cov:.1f} % of {len(g)} rows "
                         f"(99.9 % interval {100 * lo:.1f}-{100 * hi:.1f} %) outside [90, 99] %")
        if abs(t) > 4:
            fails.append(f"{w} {kind}: bias {100 * bias:+.2f} %, t = {t:+.2f} (|t| > 4)")
        if abs(worst) > 5:
            fails.append(f"{w} {kind}: {worst_q} biased, t = {worst:+.2f} over its runs (|t| > 5)")
        if w in EVENTS and w not in checked:
            checked.add(w)
            test, what = EVENTS[w]
            # the workload's runs over both measures: marks on either count
            runs_w = runs_of([r for r in rows if r[0] == w])
            bad = [run for run, (a, b, m) in runs_w.items() if not test(a, b, m)]
            if bad:
                fails.append(f"{w}: {len(bad)} of {len(runs_w)} runs without {what} "
                             f"(raises {min(ra)}-{max(ra)}, lowerings {min(lw)}-{max(lw)})")
    for w, v in sorted(allocs.items()):
        print(f"{w}: {min(v)}-{max(v)} allocations a run")
        if w == "long" and min(v) < 10_000_000:
            fails.append(f"long: {min(v)} allocations in a run (10^7 wanted)")
    for f in fails:
        print("FAIL: " + f)
    print(f"calibrate: {len(rows)} rows, {npairs} (workload, measure) pairs, {len(fails)} out of bounds")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
