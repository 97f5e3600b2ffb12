#!/usr/bin/env python3
"""Usage: preload_sites.py [--caller] LABEL RUN...   (RUN: a pair TRUTH.txt,DRAIN.json)

One program's runs over several seeds (tests/hosted/preload_sites.sh). TRUTH.txt is the program's
line "leaf ADDR caller NAME objects N bytes B live L": the library function that calls malloc
(libstdc++'s operator new, libc's strdup) and the exact truth. In drain's --json, the site is the
one whose innermost frame is a return address within 64 bytes after ADDR. Each run's site must
exist; drain's 95 % intervals of its allocated and in-use bytes must hold the truth in at least 7
of 10 runs (each does with probability 0.95: 7 or fewer of 10 has probability 0.001); the pooled
estimate (the runs' mean) must be within 4.5 of its standard errors (each run's from its
interval's width, 2 x 1.96 sd) of the truth. --caller: the site's stack must also name NAME (the
program's function that called the library): stacks through frames without a frame pointer."""
import json
import math
import sys

# The library functions the programs' truth lines name by address, as drain names them when it
# reads the library's symbols (libstdc++'s operator new, glibc's strdup).
LEAF_NAMES = ("operator new(", "strdup", "__strdup")


def main():
    args = sys.argv[1:]
    need_caller = args and args[0] == "--caller"
    if need_caller:
        args = args[1:]
    label, runs = args[0], args[1:]
    bad = 0
    per = {"alloc_bytes": [], "inuse_bytes": []}
    for run in runs:
        truth_path, json_path = run.split(",")
        words = open(truth_path).read().split()
        t = dict(zip(words[0::2], words[1::2]))
        leaf, caller = int(t["leaf"], 16), t["caller"]
        truth = {"alloc_bytes": int(t["bytes"]), "inuse_bytes": int(t["live"])}
        doc = json.load(open(json_path))
        sites = [s for sess in doc["sessions"] for s in sess["sites"]]
        found = []
        for s in sites:
            top = s["stack"][0] if s["stack"] else ""
            # raw (drain without the library's symbols) or symbolized (drain reads the library)
            if (top.startswith("0x") and 0 <= int(top, 16) - leaf < 64) or top.startswith(LEAF_NAMES):
                found.append(s)
        if len(found) != 1:
            print(f"{label} {json_path}: {len(found)} sites with the leaf {t['leaf']} (expected 1)")
            bad += 1
            continue
        s = found[0]
        if need_caller and caller not in " ".join(s["stack"]):
            print(f"{label} {json_path}: the site's stack {s['stack']} does not reach {caller}")
            bad += 1
        for m in per:
            v = s[m]
            per[m].append((v["est"], v["lo"], v["hi"], truth[m]))
        print(f"{label} {json_path}: stack {' < '.join(s['stack'][:4])}; samples {s['samples']}; "
              + "; ".join(f"{m} {s[m]['est']:.0f} [{s[m]['lo']:.0f}, {s[m]['hi']:.0f}] truth {truth[m]}"
                          for m in per))
    for m, rows in per.items():
        if len(rows) < len(runs):
            continue
        covered = sum(1 for est, lo, hi, tr in rows if lo <= tr <= hi)
        need = math.ceil(0.7 * len(rows))
        mean = sum(r[0] for r in rows) / len(rows)
        se = math.sqrt(sum(((r[2] - r[1]) / 3.92) ** 2 for r in rows)) / len(rows)
        tr = rows[0][3]
        z = (mean - tr) / se if se > 0 else float("inf")
        ok = covered >= need and abs(z) <= 4.5
        print(f"{label} {m}: truth {tr}, covered in {covered}/{len(rows)} runs (need {need}), "
              f"pooled {mean:.0f} ({(mean / tr - 1) * 100:+.1f} %, z = {z:+.2f})"
              + ("" if ok else "  FAIL"))
        bad += not ok
    if bad:
        sys.exit(f"{label}: {bad} failure(s)")
    print(f"{label}: ok")


main()
