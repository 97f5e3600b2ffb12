#!/usr/bin/env python3
"""Usage: preload_heaptrack.py PRELOAD DRAIN MSAMP_DUMP OUTDIR CXX_PROGRAM CXX_MAP_PROGRAM

Real Debian binaries (python3 running a script, the sqlite3 shell on a scripted workload, git log
-p on this checkout) and two C++ programs built the default way (dynamic libstdc++: tests/hosted/
preload_strings.cpp, std::string; preload_map.cpp, std::map of strings to vectors), each run three
ways: plainly, under LD_PRELOAD=PRELOAD (msamp at its
default interval, 3 seeds) and under Debian's heaptrack (exact: every call). heaptrack_print
gives the truth: the allocated bytes (its size histogram, -H), the calls, the peak, the bytes
still held at the end (leaked) and, per innermost function (its folded stacks, -F, leaf frame),
the calls and the bytes held at the end. msamp's estimates and 95 % intervals come from drain
--json; a site is named by its innermost frame outside the C++ runtime's (operator new, std::
templates: the two tools show those their own ways) in both tools, and a frame drain left as a
module and offset is named through the stream's MAPPING records and the module's
symbols (nm), as heaptrack names it (a raw address where the module has no symbol there). A sum of several of drain's sites gets the normal approximation
of their intervals combined.

Judged (exit 1 when one fails): per workload, at least 95 % of the samples (pooled over the
seeds) have stacks that reach main: their outermost frame is the executable's _start (named from
its entry point where the executable is stripped) or a thread's start; pooled over every workload
and seed, the allocated bytes, the
bytes in use at the end and each top site's calls and bytes held at the end (heaptrack's 5
innermost functions with the most calls, each with at least 1 % of them) hold heaptrack's figure inside msamp's 95 % interval
in at least 80 % of the comparisons (each does with probability about 0.95); per workload, the
seeds' mean allocated and in-use bytes within 4.5 standard errors of heaptrack's. The peak and
the call count are printed, not judged (drain's peak is a maximum over time of a noisy estimate;
heaptrack counts each realloc call where msamp follows a realloc chain). The programs being
deterministic, heaptrack's run stands for msamp's (same input, same environment but for the two
tools' own variables). Reported, not judged: the CPU time (user + system, the process and its
children) of msamp's runs (the least of the 3 seeds') and of heaptrack's run over the plain
run's (the least of 3)."""
import json
import math
import os
import re
import resource
import subprocess
import sys

PRELOAD, DRAIN, DUMP, OUT, CXX, CXX_MAP = sys.argv[1:7]
os.makedirs(OUT, exist_ok=True)
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

SQL = os.path.join(OUT, "workload.sql")
with open(SQL, "w") as f:
    f.write("""create table t(id integer primary key, name text, body text);
with recursive n(i) as (select 1 union all select i + 1 from n where i < 200000)
insert into t select i, 'name' || i, printf('%.*c', i % 300, 'x') from n;
create index t_name on t(name);
select count(*), sum(length(body)) from t where name like 'name1%';
select substr(name, 1, 6) as k, count(*) from t group by k order by k limit 5;
""")

PY = ("import json\n"
      "rows = [{'id': i, 'name': 'row%d' % i, 'tags': ['t%d' % (i % 7)] * 3} for i in range(150000)]\n"
      "text = json.dumps(rows)\n"
      "back = json.loads(text)\n"
      "words = sorted(set(text.split(',')))\n"
      "print(len(text), len(back), len(words))\n")

PYFILE = os.path.join(OUT, "workload.py")
with open(PYFILE, "w") as f:
    f.write(PY)

WORKLOADS = [
    ("python3", ["/usr/bin/python3", PYFILE], {"PYTHONHASHSEED": "0", "PYTHONMALLOC": "malloc"}),
    ("sqlite3", ["/usr/bin/sqlite3", ":memory:", ".read " + SQL], {}),
    ("git", ["/usr/bin/git", "--no-pager", "-C", REPO, "log", "-p", "-n", "150", "--no-color",
             "--no-ext-diff", "--no-textconv"], {}),
    ("cxx-strings", [os.path.abspath(CXX), "100000"], {}),
    ("cxx-map", [os.path.abspath(CXX_MAP), "100000"], {}),
]
NO_SITES = set()
SEEDS = [1, 2, 3]
TOP = 5
ROOTS = {"_start", "clone3", "__clone3", "clone", "__clone"}
ROOTED_MIN = 0.95  # of a workload's samples, pooled over its seeds, whose stack reaches its root


def run(cmd, env_extra, stdout=subprocess.DEVNULL):
    """Runs cmd; returns its CPU seconds (user + system, children included)."""
    env = dict(os.environ)
    env.update(env_extra)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, stdout=stdout, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def human(s):
    """heaptrack_print's sizes: 67.72M, 5.43K, 350B (powers of 1000)."""
    m = re.fullmatch(r"([0-9.]+)([KMGT]?)B?", s)
    return float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)]


def leaf_name(frame):
    """A frame of heaptrack's folded stacks as a site's name: the function, or for an address it
    could not name (a runtime address: ASLR) its offset in the page, which the loader keeps."""
    frame = re.sub(r" \([^()]*\)$", "", frame.strip())
    if re.fullmatch(r"0x[0-9a-f]+", frame):
        return "?+0x%03x" % (int(frame, 16) & 0xfff)
    return frame


def heaptrack_truth(name, cmd, env):
    base = os.path.join(OUT, name + ".ht")
    for ext in (".zst", ".gz"):
        if os.path.exists(base + ext):
            os.remove(base + ext)
    cpu = run(["heaptrack", "-o", base] + cmd, env)
    data = base + ".zst" if os.path.exists(base + ".zst") else base + ".gz"
    hist, fa, fl = base + ".hist", base + ".alloc.folded", base + ".leak.folded"
    summary = subprocess.run(["heaptrack_print", "-a", "0", "-p", "0", "-T", "0", "-H", hist, data],
                             capture_output=True, text=True, check=True).stdout
    for cost, path in (("allocations", fa), ("leaked", fl)):
        subprocess.run(["heaptrack_print", "-a", "0", "-p", "0", "-T", "0", "-F", path,
                        "--flamegraph-cost-type", cost, data], capture_output=True, check=True)
    t = {"cpu": cpu}
    t["calls"] = int(re.search(r"calls to allocation functions: (\d+)", summary).group(1))
    t["peak"] = human(re.search(r"peak heap memory consumption: (\S+)", summary).group(1))
    t["leaked"] = human(re.search(r"total memory leaked: (\S+)", summary).group(1))
    t["alloc_bytes"] = 0
    with open(hist) as f:
        for line in f:
            size, count = line.split()
            t["alloc_bytes"] += int(size) * int(count)
    sites = {}
    for path, key in ((fa, "calls"), (fl, "leaked")):
        with open(path) as f:
            for line in f:
                stack, _, count = line.rstrip("\n").rpartition(" ")
                frames = [leaf_name(x) for x in stack.split(";") if x.strip()]
                own = [x for x in frames if not x.startswith(RUNTIME)]
                leaf = own[-1] if own else frames[-1] if frames else "?"
                sites.setdefault(leaf, {"calls": 0, "leaked": 0})[key] += int(count)
    t["sites"] = sites
    return t


class Symbols:
    """Names an address of a sampled stack through the stream's MAPPING records and nm."""

    def __init__(self, stream):
        self.maps = []
        dump = subprocess.run([DUMP, stream], capture_output=True, text=True, check=True).stdout
        for line in dump.splitlines():
            if line.startswith("MAPPING "):
                kv = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
                self.maps.append((int(kv["start"], 16), int(kv["limit"], 16),
                                  int(kv["offset"], 16), kv["path"].strip('"')))
        self.syms = {}

    def table(self, path):
        if path not in self.syms:
            rows = []
            vaddr_of = {}
            ph = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
            for line in ph.splitlines():
                w = line.split()
                if w and w[0] == "LOAD":
                    vaddr_of[int(w[1], 16)] = int(w[2], 16)
            for flag in ([], ["-D"]):
                nm = subprocess.run(["nm", "-S", "--defined-only"] + flag + [path],
                                    capture_output=True, text=True).stdout
                for line in nm.splitlines():
                    w = line.split()
                    if len(w) == 4 and w[2] in "TtWi":
                        rows.append((int(w[0], 16), int(w[1], 16), w[3].split("@")[0]))
            # The entry point as _start, which a stripped executable's symbols lack (the return
            # address of its call to __libc_start_main lies a few bytes past it).
            hdr = subprocess.run(["readelf", "-hW", path], capture_output=True, text=True).stdout
            m = re.search(r"Entry point address:\s+0x([0-9a-f]+)", hdr)
            if m and not any(lo <= int(m.group(1), 16) < lo + max(size, 1) for lo, size, _ in rows):
                rows.append((int(m.group(1), 16), 64, "_start"))
            rows.sort()
            self.syms[path] = (rows, vaddr_of)
        return self.syms[path]

    def name(self, addr):
        for start, limit, offset, path in self.maps:
            if start <= addr < limit:
                rows, vaddr_of = self.table(path)
                vaddr = addr - start + vaddr_of.get(offset, offset)
                for lo, size, name in rows:
                    if lo <= vaddr < lo + max(size, 1):
                        return name
                break
        return "?+0x%03x" % (addr & 0xfff)

    def frame(self, text):
        """A frame of drain's --json: a raw address, a module and its file offset ("[python3.11]+
        0x1107e6": drain without the module's symbols) or a name (drain read them)."""
        if text.startswith("0x"):
            return self.name(int(text, 16))
        m = re.fullmatch(r"\[(.+)\]\+0x([0-9a-f]+)", text)
        if not m:
            return text
        for start, limit, offset, path in self.maps:
            if os.path.basename(path) == m.group(1) and offset <= int(m.group(2), 16) < offset + limit - start:
                return self.name(start + int(m.group(2), 16) - offset)
        return "?+0x%03x" % (int(m.group(2), 16) & 0xfff)


# The C++ runtime's frames, which each tool shows its own way (msamp: operator new and the inlined
# allocator templates in full; heaptrack: no operator new, templates abbreviated as "<>"): a site
# of either is named by its innermost frame outside them, the program's own function.
RUNTIME = ("operator new", "std::", "void std::", "__gnu_cxx::")


def leaf_of(sym, stack):
    """A site's name from msamp's stack (innermost first): its innermost frame outside the C++
    runtime's."""
    for text in stack:
        name = sym.frame(text)
        if not name.startswith(RUNTIME):
            return name
    return sym.frame(stack[0]) if stack else "?"


def combine(parts):
    """The sum of drain's estimates, its interval by their sds (interval width / 3.92) combined."""
    est = sum(p["est"] for p in parts)
    sd = math.sqrt(sum(((p["hi"] - p["lo"]) / 3.92) ** 2 for p in parts))
    lo = max(0.0, est - 1.96 * sd) if len(parts) > 1 else parts[0]["lo"]
    hi = est + 1.96 * sd if len(parts) > 1 else parts[0]["hi"]
    return {"est": est, "lo": lo, "hi": hi}


def msamp_runs(name, cmd, env):
    runs = []
    for seed in SEEDS:
        pattern = os.path.join(OUT, "%s.%d.%%p.bin" % (name, seed))
        for f in os.listdir(OUT):
            if f.startswith("%s.%d." % (name, seed)) and f.endswith(".bin"):
                os.remove(os.path.join(OUT, f))
        e = dict(env, LD_PRELOAD=os.path.abspath(PRELOAD), MSAMP_SEED=str(seed),
                 MSAMP_OUTPUT=pattern)
        cpu = run(cmd, e)
        streams = [os.path.join(OUT, f) for f in os.listdir(OUT)
                   if f.startswith("%s.%d." % (name, seed)) and f.endswith(".bin")]
        if len(streams) != 1:
            sys.exit("%s: %d msamp streams (expected the program's alone)" % (name, len(streams)))
        js = os.path.join(OUT, "%s.%d.json" % (name, seed))
        subprocess.run([DRAIN, "--json", js, "-o", os.path.join(OUT, "%s.%d.pb.gz" % (name, seed)),
                        streams[0]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        sess = json.load(open(js))["sessions"]
        if len(sess) != 1:
            sys.exit("%s: %d sessions in the stream" % (name, len(sess)))
        sym = Symbols(streams[0])
        by_leaf = {}
        samples, rooted = 0, 0
        for s in sess[0]["sites"]:
            leaf = leaf_of(sym, s["stack"])
            by_leaf.setdefault(leaf, []).append(s)
            # Reaches main: the outermost frame is the executable's _start (through main and
            # libc's start-up), or a thread's start (clone3) for a thread's allocation.
            samples += s["samples"]
            if s["stack"] and sym.frame(s["stack"][-1]) in ROOTS:
                rooted += s["samples"]
        runs.append({"cpu": cpu, "totals": sess[0]["totals"], "peak": sess[0]["peak"],
                     "by_leaf": by_leaf, "samples": samples, "rooted": rooted})
    return runs


def main():
    fails, pooled, covered = 0, 0, 0
    table = []
    for name, cmd, env in WORKLOADS:
        plain = min(run(cmd, env) for _ in range(3))
        truth = heaptrack_truth(name, cmd, env)
        runs = msamp_runs(name, cmd, env)
        print("== %s: %s" % (name, " ".join(cmd[:3]) + (" ..." if len(cmd) > 3 else "")))
        print("   %-26s %14s %14s %26s" % ("measure", "heaptrack", "msamp seed 1", "msamp 95 % interval"))
        for label, key, tr, judged in (
                ("allocated bytes", "alloc_bytes", truth["alloc_bytes"], True),
                ("in use at the end (bytes)", "inuse_bytes", truth["leaked"], True),
                ("peak in use (bytes)", "peak", truth["peak"], False)):
            vals = [r["peak"]["inuse_bytes"] if key == "peak" else r["totals"][key] for r in runs]
            vals = [v for v in vals if v is not None and v.get("est") is not None]
            hits = sum(1 for v in vals if v["lo"] <= tr <= v["hi"])
            note = "%d/%d seeds inside" % (hits, len(vals))
            if judged:
                pooled += len(vals)
                covered += hits
                # The seeds' mean: within 4.5 of its standard errors of heaptrack's figure.
                mean = sum(v["est"] for v in vals) / len(vals)
                se = math.sqrt(sum(((v["hi"] - v["lo"]) / 3.92) ** 2 for v in vals)) / len(vals)
                z = (mean - tr) / se if se > 0 else 0.0
                note += ", pooled %+.1f %% (z %+.2f)" % (100 * (mean / tr - 1) if tr else 0, z)
                if abs(z) > 4.5:
                    note += "  FAIL"
                    fails += 1
            else:
                note += " (reported, not judged: drain's peak is a maximum over time)"
            v = vals[0] if vals else {"est": float("nan"), "lo": float("nan"), "hi": float("nan")}
            print("   %-26s %14.0f %14.0f %26s  %s" % (label, tr, v["est"], "[%.0f, %.0f]" % (v["lo"], v["hi"]), note))
        print("   %-26s %14d %14.0f  (reported: heaptrack counts every realloc call)" % ("allocation calls", truth["calls"], runs[0]["totals"]["alloc_objects"]["est"]))
        # Sites of at least 1 % of the calls: a site of a few calls has no sample and no interval
        # of its own in drain's report.
        top = [kv for kv in sorted(truth["sites"].items(), key=lambda kv: -kv[1]["calls"])[:TOP]
               if kv[1]["calls"] >= 0.01 * truth["calls"] and name not in NO_SITES]
        print("   top sites by heaptrack's calls (innermost function): heaptrack | msamp seed 1 [95 %]; covered in seeds")
        for leaf, t in top:
            cells = []
            for metric, tkey in (("alloc_objects", "calls"), ("inuse_bytes", "leaked")):
                hits = 0
                first = None
                for r in runs:
                    parts = [s[metric] for s in r["by_leaf"].get(leaf, [])]
                    v = combine(parts) if parts else {"est": 0.0, "lo": 0.0, "hi": 0.0}
                    inside = v["lo"] <= t[tkey] <= v["hi"]
                    hits += inside
                    pooled += 1
                    covered += inside
                    first = first or v
                cells.append("%s %d | %.0f [%.0f, %.0f] %d/%d" % (
                    "calls" if tkey == "calls" else "held", t[tkey], first["est"], first["lo"],
                    first["hi"], hits, len(runs)))
            print("     %-28s %s;  %s" % (leaf[:28], cells[0], cells[1]))
        n, rooted = sum(r["samples"] for r in runs), sum(r["rooted"] for r in runs)
        note = "" if n and rooted >= ROOTED_MIN * n else "  FAIL (need %.0f %%)" % (100 * ROOTED_MIN)
        fails += bool(note)
        print("   stacks reaching main (_start or a thread's start): %d of %d samples (%.1f %%)%s"
              % (rooted, n, 100.0 * rooted / n if n else 0, note))
        msamp_cpu = min(r["cpu"] for r in runs)
        line = "   CPU: plain %.3f s, msamp %.3f s (x%.2f), heaptrack %.3f s (x%.2f); msamp / heaptrack %.3f" % (
            plain, msamp_cpu, msamp_cpu / plain, truth["cpu"], truth["cpu"] / plain, msamp_cpu / truth["cpu"])
        print(line)
        table.append((name, plain, msamp_cpu, truth["cpu"]))
    share = covered / pooled if pooled else 0
    print("top sites: heaptrack's value inside msamp's interval in %d of %d comparisons (%.1f %%, need 80 %%)"
          % (covered, pooled, 100 * share))
    if share < 0.8:
        fails += 1
    print("CPU time over the plain run (reported, not judged):")
    for name, plain, m, h in table:
        print("  %-12s plain %.3f s  msamp x%.2f  heaptrack x%.2f  msamp/heaptrack %.3f" % (name, plain, m / plain, h / plain, m / h))
    if fails:
        sys.exit("preload vs heaptrack: %d failure(s)" % fails)
    print("preload vs heaptrack: ok")


main()
