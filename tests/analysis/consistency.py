#!/usr/bin/env python3
"""One truth, said once (docs/VERDICTS.md "One verdict model"): every view drain writes of one
session must name the same leaks, the same peak, the same low watermark, the same heap verdict and
the same sites and the same time to exhaustion as its --json. Usage:

  consistency.py DIR        the outputs t_consistency.sh wrote for one stream (names below)
  consistency.py --views HELP_TEXT   every option and command of `drain --help` is a view this
                            test reads, or is named below as no view, with why

DIR holds: top.txt (drain --top 30 --leaks stdout), top.err (its stderr, the summary), d.json
(--json), d.csv (--timeline-csv), d.html (--timeline), d.svg (--flame), d.folded (--folded),
check.json (drain check of the saved profile, the budgets this script asked for in budgets.txt),
check_stream.json (the same budgets on the stream), diff.json (drain diff of the profile with
itself), and budgets.txt, which this script writes with --budgets DIR before those checks run.
Prints "ok: ..." / "FAIL: ..." lines; exits 1 when any fails.
"""
import html
import json
import math
import os
import re
import sys

FAILS = []


def ok(msg):
    print("ok: " + msg)


def fail(msg):
    print("FAIL: " + msg)
    FAILS.append(msg)


def expect(cond, what, detail=""):
    (ok if cond else fail)(what + ("" if cond or not detail else ": " + detail))


# The views `drain --help` names: each is read below (its check's name), or is no view (why).
VIEWS = {
    "--output": "the profile: its verdict comments read back by drain check (check.json)",
    "--top": "peak line, time to exhaustion, tables' sites, heap verdict and its leak lines, "
             "low watermark",
    "--leaks": "the leak lines",
    "--json": "the reference every other view is compared with",
    "--timeline": "the sites' and leaks' labels, the total's peak, the time to exhaustion",
    "--timeline-csv": "the column headers' sites",
    "--flame": "the frames' function names",
    "--folded": "the frames' function names",
    "--peak": "the peak profile's sites (a subset of the sites)",
    "--lifetimes": "the sites named (a subset of the sites)",
    "check": "peak, growth, in-use and exhaustion budgets on the profile and on the stream",
    "diff": "a profile against itself: no change, no new leak",
    "merge": "tests/analysis/t_growth.sh: a merged profile keeps the leak verdict",
    "fleet": "tests/fleet/t_fleet.sh: fleet leaks lists the device whose profile has a leak verdict",
    "push": "tests/fleet/t_fleet.sh: the pushed profile is the profile checked here",
    "--heap-map": "a dump's view (tests/postmortem): the walked heap has no verdicts",
    "--push": "as push",
}
NOT_VIEWS = {
    "--elf": "input", "--force": "input", "--baud": "input", "--rtt-scan": "input",
    "--follow": "input", "--every": "partial profiles: the same writer as --output",
    "--min-lifetime": "a filter of the allocated values", "--quiet": "no output",
    "--send": "a command to the device", "--send-file": "a command to the device",
    "--send-stdin": "a command to the device", "--stats": "drain's own costs",
    "--ram": "input (a dump)", "--core": "input (a dump)", "--help": "usage", "--version": "usage",
    "--flame-type": "the flame graph's value (--flame)", "--budget": "check's input",
    "--budgets": "check's input", "--junit": "check's output: the same verdicts as check.json",
    "--db": "fleet's input", "--per-budget": "check's rule: each budget alone, not as a family",
}


def check_views(help_text):
    opts = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", help_text))
    cmds = set(re.findall(r"^\s+drain ([a-z]+) ", help_text, re.M))
    cmds |= set(re.findall(r"drain fleet --db CONNINFO ([a-z]+)", help_text))
    missing = sorted(x for x in opts | cmds if x not in VIEWS and x not in NOT_VIEWS)
    expect(not missing, "every option and command of drain --help is read by this test or named "
           "as no view (%d views, %d others)" % (len(VIEWS), len(NOT_VIEWS)),
           "not listed: " + " ".join(missing))


# ---- readers -------------------------------------------------------------------------------

def innermost(site_text):
    """The innermost function of a site as the text views print it ("f file.c:12 < g < ...")."""
    first = site_text.strip().split(" < ")[0].strip()
    return first.split(" ")[0]


def num(s):
    return float(s.replace(",", ""))


def read_text(d):
    with open(d + "/top.txt") as f:
        top = f.read()
    with open(d + "/top.err") as f:
        err = f.read()
    return top, err


def json_session(d):
    with open(d + "/d.json") as f:
        j = json.load(f)
    return j["sessions"][0]


def json_names(sess):
    names = set()
    for s in sess["sites"]:
        names.update(s["stack"])
    return names


def leaks_text(top):
    m = re.search(r"^leaks by growth.*?\n((?:  .*\n?)*)", top, re.M)
    if not m:
        return None
    out = []
    for line in m.group(1).splitlines():
        if line.startswith("  +") or line.startswith("  -"):
            site = re.split(r" since [0-9.]+ s  ", line, maxsplit=1)
            if len(site) == 2:
                out.append(innermost(site[1]))
    return out


def heap_section(top):
    m = re.search(r"^heap \(the allocator's own figures.*?(?=^\S|\Z)", top, re.M | re.S)
    return m.group(0) if m else None


def table_sites(top):
    """Innermost functions of the --top tables' rows."""
    names = []
    for m in re.finditer(r"^top \d+ sites by .*\n(.*)\n((?:  +\S.*\n)*)", top, re.M):
        tasks = " task " in m.group(1)
        for line in m.group(2).splitlines():
            if line.strip().startswith("(") or line.strip().startswith(">="):
                continue
            # bytes objects samples (lo-hi) [task, a column of 16] site
            parts = re.split(r"\)\s+", line, maxsplit=1)
            if len(parts) != 2:
                continue
            site = parts[1]
            if tasks:
                site = site[17:] if len(site) > 16 and site[16] == " " else site.split(" ", 1)[-1]
            names.append(site.strip())
    return names


def peak_line(top):
    """--top's peak line (also stderr's, its "drain: session N: " cut): placed, "peak in use: EST
    bytes [LO, HI] (95 %) at T s; ...", or not, "peak in use: not placed, [LO, HI] bytes (95 %);
    ..." (its interval alone: est None)."""
    m = re.search(r"^peak in use: (>=)?([0-9]+) bytes \[([0-9]+), ([0-9]+)\] \(95 %\)"
                  r"(?: at ([0-9.]+) s)?(.*)$", top, re.M)
    if m:
        return {"est": num(m.group(2)), "lo": num(m.group(3)), "hi": num(m.group(4)),
                "at": float(m.group(5)) if m.group(5) else None, "placed": True}
    m = re.search(r"^peak in use: not placed, \[([0-9]+), ([0-9]+)\] bytes \(95 %\)", top, re.M)
    if m:
        return {"est": None, "lo": num(m.group(1)), "hi": num(m.group(2)), "at": None,
                "placed": False}
    return None


def close(a, b, rel=1e-6, absol=1.0):
    return a is not None and b is not None and abs(a - b) <= max(absol, rel * max(abs(a), abs(b)))


def same(a, b):
    """close, or both absent (a peak not placed has no estimate)."""
    return (a is None and b is None) or close(a, b)


# ---- the checks ----------------------------------------------------------------------------

def check_leaks(d, top, sess, check):
    jleaks = [l["stack"][0] for l in sess.get("leaks") or []]
    tleaks = leaks_text(top)
    expect(tleaks is not None, "--leaks printed its section")
    if tleaks is None:
        return
    expect(sorted(tleaks) == sorted(jleaks), "--leaks names the JSON's leaks %s" % sorted(jleaks),
           "--leaks %s" % sorted(tleaks))
    # Steps (one batch, then flat: not leaks) as --leaks lists them after the leaks.
    jsteps = sorted(x["stack"][0] for x in sess.get("steps") or [])
    m = re.search(r"^steps, not leaks.*?\n((?:  .*\n?)*)", top, re.M)
    tsteps = sorted(innermost(re.split(r" s  ", l, maxsplit=1)[1])
                    for l in (m.group(1).splitlines() if m else []) if " s  " in l)
    expect(tsteps == jsteps, "--leaks' steps are the JSON's steps %s" % jsteps,
           "--leaks %s" % tsteps)
    expect(not set(jsteps) & set(jleaks), "no site is both a leak and a step")
    heap = heap_section(top)
    jheap = sess.get("heap")
    want = os.environ.get("EXPECT_LEAKS")
    if want is not None and jheap and jheap.get("verdict") not in (None, "unknown"):
        expect(sorted(jleaks) == sorted(want.split()), "with the allocator's figures, the leaks "
               "are the program's own: %s" % want, "JSON leaks %s" % sorted(jleaks))
    if heap and jheap:
        vm = re.search(r"^  verdict: (.*)$", heap, re.M)
        word = vm.group(1).split(" (")[0] if vm else None
        expect(word == jheap.get("verdict"), "--top's heap verdict is the JSON's (%s)" % word,
               "JSON %s" % jheap.get("verdict"))
        hl = [innermost(re.sub(r"^\s*leak: .*?  ", "", l))
              for l in heap.splitlines() if re.match(r"^\s+leak: ", l)]
        if word not in (None, "unknown"):
            expect(("leak" in word.split()) == bool(jleaks),
                   "the heap verdict says leak exactly when the growth verdict has leaks",
                   "verdict %r, leaks %s" % (word, jleaks))
            expect(sorted(set(hl)) == sorted(set(jleaks)),
                   "the heap verdict's leak lines name the JSON's leaks", "heap %s" % hl)
        jh = [x.get("function") or (x.get("stack") or [None])[0]
              for x in jheap.get("leaks") or []]
        if word not in (None, "unknown"):
            expect(sorted(set(jh)) == sorted(set(jleaks)), "the JSON heap section's leaks are "
                   "the JSON's leaks", "heap %s" % jh)
    # drain check: a growth budget of 1 B/s fails exactly at the leaks (saved profile and stream).
    for name, c in check.items():
        for b in c:
            if b["kind"] != "growth" or not b["where"]:
                continue
            fn = b["where"]
            leak = fn in jleaks
            expect((b["status"] == "fail") == leak or (not leak and b["status"] == "pass"),
                   "check %s growth:%s<=1/s %s (%s)" % (name, fn, b["status"],
                                                      "a leak" if leak else "no leak"))
    # The timeline's legend marks the same leaks.
    try:
        with open(d + "/d.html") as f:
            page = f.read()
    except OSError:
        return
    legend = [html.unescape(t) for t in re.findall(r'class="legend-site"[^>]*>([^<]*)<', page)]
    tl = [innermost(t.split(" (peak")[0]) for t in legend if re.search(r"\bleak: ", t)]
    expect(set(tl) <= set(jleaks) and (not jleaks or set(tl) & set(jleaks) or not legend),
           "the timeline's leak labels are JSON leaks", "timeline %s" % tl)


def check_peak(top, err, sess, check):
    jp = sess.get("peak")
    tp = peak_line(top)
    if jp is None:
        expect(tp is None, "no peak in JSON, none in --top", "--top %s" % tp)
        return
    est = jp["inuse_bytes"]["est"]
    expect(tp is not None and same(tp["est"], est), "--top's peak is the JSON's (%s B)" % est,
           "--top %s" % tp)
    if tp:
        expect(close(tp["lo"], jp["inuse_bytes"]["lo"]) and
               (close(tp["hi"], jp["inuse_bytes"]["hi"]) or tp["hi"] > jp["inuse_bytes"]["hi"]),
               "--top's peak interval is the JSON's", "--top [%s, %s], JSON [%s, %s]" % (
                   tp["lo"], tp["hi"], jp["inuse_bytes"]["lo"], jp["inuse_bytes"]["hi"]))
        placed = jp.get("placed", True)
        expect(tp["placed"] == bool(placed), "--top and JSON agree the peak is %splaced" %
               ("" if placed else "not "))
    # stderr's summary names the same peak, in --top's words (when it names one).
    for line in err.splitlines():
        rest = re.sub(r"^drain: session [0-9]+: ", "", line)
        if not re.match(r"peak\b", rest):
            expect(not re.search(r"peak[^0-9\n]*?[0-9]+ bytes", rest) or "--peak" in rest,
                   "stderr names no other peak", line)
            continue
        sp = peak_line(rest)
        expect(sp is not None and tp is not None and sp == tp, "stderr's peak line is --top's",
               "stderr %s, --top %s" % (sp, tp))
    for name, c in check.items():
        for b in c:
            if b["kind"] == "peak":
                v = b.get("value") or {}
                expect(same(v.get("est"), est) and close(v.get("lo"), jp["inuse_bytes"]["lo"]),
                       "check %s peak is the JSON's" % name, "check %s" % v)


UNITS = {"s": 1, "min": 60, "h": 3600, "d": 86400}


def secs(t):
    """A time as the text views write it ("48.7 s", "3.70 h", "never") in seconds."""
    if t == "never":
        return math.inf
    v, u = t.split(" ")
    return float(v) * UNITS[u]


def exhaust_line(text):
    """The forecast's line ("drain: session N: " cut): {"out": running out, "t", "lo", "hi" (inf:
    never), "driver": innermost function or None}, {"unknown": why}, or None when none."""
    for line in text.splitlines():
        line = re.sub(r"^drain: session [0-9]+: ", "", line)
        m = re.match(r"heap runs out in (\S+ \S+) \[(\S+ \S+), (\S+ \S+)\] \(95 %\)", line)
        n = re.match(r"heap not running out within (\S+ \S+) \(95 %\)", line)
        z = re.match(r"heap not running out: in use not growing", line)
        u = re.match(r"time to exhaustion unknown: (.*)$", line)
        if u:
            return {"unknown": u.group(1), "line": line}
        if not (m or n or z):
            continue
        d = re.search(r", driven by (.*?); ", line)
        return {"out": bool(m), "t": secs(m.group(1)) if m else math.inf,
                "lo": secs(m.group(2)) if m else secs(n.group(1)) if n else math.inf,
                "hi": secs(m.group(3)) if m else math.inf,
                "driver": innermost(d.group(1)) if d else None, "line": line}
    return None


def near3(text_v, json_v):
    """A time printed to 3 significant digits against the JSON's (None: unbounded)."""
    if json_v is None:
        return text_v == math.inf
    return text_v != math.inf and abs(text_v - json_v) <= 0.006 * abs(json_v) + 1e-9


def check_exhaustion(d, top, err, sess, check):
    """Time to exhaustion (docs/VERDICTS.md "Time to exhaustion"): --top's line, stderr's, the
    timeline's and drain check's exhaustion budget say the JSON's "exhaustion"."""
    je = sess.get("exhaustion")
    tl = exhaust_line(top)
    if je is None:
        expect(tl is None, "no exhaustion in JSON, none in --top", "--top %s" % tl)
        return
    expect(tl is not None, "--top states the time to exhaustion")
    if tl is None:
        return
    if not je["known"]:
        expect(tl.get("unknown") == je["why"], "--top's exhaustion unknown for the JSON's reason",
               "--top %s, JSON %s" % (tl, je["why"]))
    else:
        expect(tl.get("out") == je["running_out"], "--top and JSON agree the heap %s out" %
               ("runs" if je["running_out"] else "does not run"), "--top %s" % tl)
        expect(near3(tl["t"], je["seconds"]) and near3(tl["lo"], je["lo"]) and
               near3(tl["hi"], je["hi"]), "--top's time to exhaustion is the JSON's (%s [%s, %s])" %
               (je["seconds"], je["lo"], je["hi"]), "--top %s" % tl)
        if je["running_out"]:
            expect(je["not_running_out_within"] is None and je["hi"] is not None,
                   "a heap running out has a bounded interval and no not-running-out bound")
        else:
            expect(je["seconds"] is None and je["hi"] is None and
                   same(je["not_running_out_within"], je["lo"]),
                   "a heap not running out: no estimate, its bound the interval's low end")
        jd = (je.get("driver") or {}).get("stack", [None])[0]
        jleaks = [l["stack"][0] for l in sess.get("leaks") or []]
        expect(tl["driver"] == jd, "--top's exhaustion driver is the JSON's (%s)" % jd,
               "--top %s" % tl["driver"])
        expect((jd is None) == (not jleaks) and (jd is None or jd in jleaks),
               "the driver is one of the JSON's leaks, and there is one exactly when there are "
               "leaks", "driver %s, leaks %s" % (jd, jleaks))
        ys = sorted(jleaks)
        expect((je["basis"] == "leaks") == bool(ys), "the rate is the leaks' exactly when there "
               "are leaks (basis %s)" % je["basis"])
    se = exhaust_line(err)
    expect(se is not None and se["line"] == tl["line"], "stderr's exhaustion line is --top's",
           "stderr %s" % (se and se["line"]))
    try:
        with open(d + "/d.html") as f:
            m = re.search(r'<p id="exhaustion">([^<]*)</p>', f.read())
        expect(m is not None and html.unescape(m.group(1)) == tl["line"],
               "the timeline's exhaustion is --top's line", "timeline %s" %
               (m and html.unescape(m.group(1))))
    except OSError:
        pass
    for name, c in check.items():
        for b in c:
            if b["kind"] != "exhaustion":
                continue
            v = b.get("value")
            if not je["known"]:
                expect(v is None and b["status"] == "warn", "check %s: exhaustion not judged, as "
                       "the JSON's is unknown" % name, "check %s" % b)
                continue
            expect(v is not None and same(v["est"], je["seconds"]) and same(v["lo"], je["lo"])
                   and same(v["hi"], je["hi"]), "check %s exhaustion is the JSON's" % name,
                   "check %s" % v)


def check_low(top, sess):
    heap = heap_section(top)
    if not heap:
        return
    vals = set()
    for m in re.finditer(r"(?:low watermark|at its lowest|lowest)[^0-9\n]*([0-9]+) B free", heap):
        vals.add(int(m.group(1)))
    jh = sess.get("heap") or {}
    if jh.get("low_watermark") is not None:
        lw = jh["low_watermark"]
        vals.add(int(lw["free"] if isinstance(lw, dict) else lw))
    expect(len(vals) <= 1, "one low watermark in the report", "values %s" % sorted(vals))


def check_sites(d, top, sess, check):
    names = json_names(sess)
    rows = table_sites(top)
    bad = [r for r in rows if innermost(r) not in names]
    expect(not bad, "every --top row's site is a JSON site (%d rows)" % len(rows), "%s" % bad[:3])
    try:
        with open(d + "/d.csv") as f:
            header = next(csv_reader(f))
        cols = header[4:] if header[:2] == ["time_s", "ticks"] else header[1:]
        sitecols = [c for c in cols if " < " in c or re.match(r"^[A-Za-z_]", c)]
        expect(len(set(header)) == len(header), "the timeline CSV's headers are distinct",
               "%d headers, %d distinct" % (len(header), len(set(header))))
        bad = [c for c in sitecols if " < " in c and innermost(c) not in names]
        expect(not bad, "the timeline CSV's sites are JSON sites", "%s" % bad[:3])
    except OSError:
        pass
    try:
        with open(d + "/d.html") as f:
            page = f.read()
        legend = [html.unescape(t).split(" (peak")[0] for t in
                  re.findall(r'class="legend-site"[^>]*>([^<]*)<', page)]
        bad = [t for t in legend if innermost(t) not in names]
        expect(legend and not bad, "the timeline's %d site labels are JSON sites" % len(legend),
               "%s" % bad[:3])
    except OSError:
        pass
    try:
        with open(d + "/d.svg") as f:
            svg = html.unescape(f.read())
        fr = set(m.group(1) for m in re.finditer(r"<title>([^ :(<]+)[ :(]", svg)) - {"all"}
        bad = sorted(x for x in fr if x not in names)
        expect(not bad, "the flame graph's %d functions are JSON frames" % len(fr), "%s" % bad[:5])
    except OSError:
        pass
    try:
        with open(d + "/d.folded") as f:
            fr = set()
            for line in f:
                stack = line.rsplit(" ", 1)[0]
                fr.update(x.split("@")[0] for x in stack.split(";"))
        bad = sorted(x for x in fr if x not in names)
        expect(not bad, "the folded stacks' %d functions are JSON frames" % len(fr), "%s" % bad[:5])
    except OSError:
        pass
    # The heap's long-lived blocks (fragmentation) are named as the sites are.
    jheap = sess.get("heap") or {}
    ll = [x["stack"][0] for x in jheap.get("long_lived") or []]
    bad = [x for x in ll if x not in names]
    expect(not bad, "the heap's %d long-lived sites are JSON sites" % len(ll), "%s" % bad[:3])
    # --lifetimes: a row per site, as --top has it (one per symbolized stack), each a JSON site.
    life = re.findall(r"^  site (.*): \d+ sampled allocations", top, re.M)
    expect(len(set(life)) == len(life), "--lifetimes lists each site once (%d rows)" % len(life),
           "repeated: %s" % sorted(set(x for x in life if life.count(x) > 1))[:3])
    bad = [x for x in life if innermost(x) not in names]
    expect(not bad, "--lifetimes' sites are JSON sites", "%s" % bad[:3])
    # check's in-use sums are the JSON's sums over the sites with the function.
    for name, c in check.items():
        for b in c:
            if b["kind"] != "inuse" or not b["where"]:
                continue
            fn = b["where"]
            s = sum(x["inuse_bytes"]["est"] for x in sess["sites"] if fn in x["stack"])
            expect(close(b["value"]["est"], s), "check %s inuse:%s is the JSON's sum (%.0f)" %
                   (name, fn, s), "check %s" % b["value"])


def csv_reader(f):
    import csv
    return csv.reader(f)


def write_budgets(d):
    """The budgets check is asked: the peak, each site function's growth at 1 B/s, the in-use of
    the top functions (judged against nothing: their values are compared)."""
    sess = json_session(d)
    inner = []
    for s in sess["sites"]:
        if s["stack"] and s["stack"][0] not in inner and not s["stack"][0].startswith("0x"):
            inner.append(s["stack"][0])
    lines = ["peak<=1024G", "exhaustion>=1s"] + ["growth:%s<=1/s" % f for f in inner[:12]] + \
            ["inuse:%s<=1024G" % f for f in inner[:12]]
    with open(d + "/budgets.txt", "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--views":
        with open(sys.argv[2]) as f:
            check_views(f.read())
    elif len(sys.argv) == 3 and sys.argv[1] == "--budgets":
        write_budgets(sys.argv[2])
        return 0
    elif len(sys.argv) == 2:
        d = sys.argv[1]
        top, err = read_text(d)
        sess = json_session(d)
        check = {}
        for name in ("profile", "stream"):
            try:
                with open("%s/check%s.json" % (d, "" if name == "profile" else "_stream")) as f:
                    check[name] = json.load(f)["budgets"]
            except OSError:
                fail("no check output of the %s" % name)
        check_leaks(d, top, sess, check)
        check_peak(top, err, sess, check)
        check_exhaustion(d, top, err, sess, check)
        check_low(top, sess)
        check_sites(d, top, sess, check)
        try:
            with open(d + "/diff.json") as f:
                dj = json.load(f)
            txt = json.dumps(dj)
            expect('"new_leaks": []' in txt or "new_leaks" not in txt,
                   "diff of the profile with itself: no new leak")
        except OSError:
            fail("no diff output")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
