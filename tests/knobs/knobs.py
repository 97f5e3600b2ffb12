#!/usr/bin/env python3
"""The knob matrix: the core compiled (syntax and warnings only) for every documented value of
every MSAMP_CFG_* knob of include/msamp_config.h, alone and in pairs, and the documented invalid
combinations refused by their static assert.

Usage: tests/knobs/knobs.py OUTDIR [--list]
Environment (from tests/knobs/knobs.mk): TARGET_WARN, CORE_SRCS, PORT_HOSTED, PORT_AARCH64,
PORT_ARM (source lists), JOBS.

Configurations:
- single: each knob's values other than its default, one knob at a time;
- pairs: a covering array (greedy, seeded: the same every run) in which every pair of values of
  any two knobs (the default, "unset", among them) meets in at least one configuration that the
  knobs' documented rules allow; one array for the firmware defaults, one for the hosted ones
  (port/hosted/msamp_hosted_config.h); the pairs no allowed configuration holds are listed by
  --list (each is a documented invalid combination below);
- invalid: the combinations include/msamp_config.h and the core's static asserts refuse; each must
  fail, and its first error must be the assert's message.
The builds: pairs on every one, singles on one of each compiler per family, the invalid ones on the
firmware family's (whose defaults they break; the hosted configuration has other defaults):
  gcc-hosted, clang-hosted    x86-64: the core with the hosted configuration, the hosted port
  gcc-aarch64, clang-aarch64  freestanding AArch64: the core, port/aarch64 (singles: gcc)
  gcc-m3, clang-m3            freestanding Cortex-M3 (Thumb): the core, port/arm (singles: clang)
The ports read few knobs: singles and invalid ones compile the core alone. The core's sources
(src/ and src/wrap/) are concatenated into one translation unit, the port's into another, each
compiled -fsyntax-only
under the project's TARGET_WARN (-Werror), as many compiles at a time as JOBS. Each build of each
file alone, optimised, is what tests/cross (cross-core, cross-core-tiny) checks.
"""
import itertools
import os
import random
import re
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

U = None  # the knob left unset: its default (which may derive from other knobs)

# Each knob's documented values (include/msamp_config.h): 0/1 switches both ways, numbers at their
# documented special values (0 where it means "off"), their bounds and a value well inside.
KNOBS = {
    "TINY": [U, 1],
    "HEAPDUMP": [U, 0],
    "COMPACT_TABLES": [U, 0, 1],
    "SNAPSHOTS": [U, 0, 1],
    "CONTROL": [U, 0, 1],
    "CONTROL_READ": [U, 1, 256],
    "MAPPINGS": [U, 0, 1],
    "SAMPLER32": [U, 0, 1],
    "SMALL_CODE": [U, 0, 1],
    "CRC_TABLE": [U, 0, 1, 2],
    "FRAME_BYTES": [U, 16, 1024],
    "RESEND_BYTES": [U, 0, 1024],
    "RUNTIME_TABLES": [U, 0, 1],
    "RESET_PROFILE": [U, 0],
    "LIVE_CAPACITY": [U, 32, 65536],
    "LIVE_WAYS": [U, 1, 32],
    "STACK_CAPACITY": [U, 2, 65536],
    "FRAME_POOL": [U, 256, 262144],
    "MAX_DEPTH": [U, 1, 256],
    "RING_SIZE": [U, 4096, 262144],
    "DEFAULT_INTERVAL": [U, 1],
    "TIME_HZ": [U, 1000000],
    "INTERVAL_MAX": [U, 65536],
    "ADAPTIVE": [U, 0, 1],
    "REALLOC_CHAINS": [U, 0, 1],
    "FREE_FILTER": [U, 0, 1],
    "DEVICE_ID": [U, 0, 1],
    "THIN_BATCH": [U, 1],
    "LINK_ADAPT": [U, 0, 1],
    "LINK_BYTES_PER_S": [U, 0, 1, 1440],
    "STACK_RESEND_SAMPLES": [U, 0, 1],
    "SNAPSHOT_BYTES": [U, 0, 4096],
    "RESEND_MS": [U, 60000],
    "SNAPSHOT_BATCH": [U, 1],
    "SEND_ADDRESSES": [U, 0, 1],
    "MAX_CONTEXTS": [U, 1, 256],
    "GIANT_BYTES": [U, 0, 1048576],
    "FAILURES": [U, 0, 1],
    "HEAP_STATS": [U, 0, 1],
    "HEAP_STEP": [U, 0, 1, 65536],
    "HEAP_POLL_MS": [U, 0, 1000],
    "TASK_BUDGETS": [U, 0, 1, 255],
    "FAIL_WATCH_BYTES": [U, 0, 4096, "MSAMP_FAIL_WATCH_SAMPLED"],
    "WRAP_NESTED": [U, 0, 1, 2],
    "ASSERT(x)": [U, "((x) ? (void)0 : __builtin_trap())"],
    # Not a knob: the smallest configuration (include/msamp_config_small.h, -include'd as `make
    # size` does), whose values the other knobs here override.
    "small": [U, 1],
}
SMALL = {"LIVE_CAPACITY": 32, "STACK_CAPACITY": 16, "FRAME_POOL": 256, "MAX_DEPTH": 16,
         "RING_SIZE": 512, "MAX_CONTEXTS": 2}
# The defaults the builds start from: include/msamp_config.h's (firmware) and, where it sets them,
# port/hosted/msamp_hosted_config.h's. A configuration must be valid under both.
FIRMWARE = {"RUNTIME_TABLES": 0, "MAPPINGS": 0, "LIVE_CAPACITY": 256, "STACK_CAPACITY": 128,
            "FRAME_POOL": 2048, "MAX_DEPTH": 32, "RING_SIZE": 2048, "MAX_CONTEXTS": 4}
HOSTED = {"RUNTIME_TABLES": 1, "MAPPINGS": 1, "LIVE_CAPACITY": 65536, "STACK_CAPACITY": 16384,
          "FRAME_POOL": 16384 * 16, "MAX_DEPTH": 64, "RING_SIZE": 256 * 1024, "MAX_CONTEXTS": 256}
FAIL_WATCH_SAMPLED = 0xFFFFFFFF

# The documented invalid combinations: the knobs set, and the message that must be the first error.
INVALID = [
    ({"SNAPSHOTS": 1, "COMPACT_TABLES": 1}, "MSAMP_CFG_SNAPSHOTS needs the full tables"),
    ({"SNAPSHOTS": 1, "TINY": 1}, "MSAMP_CFG_SNAPSHOTS needs the full tables"),
    ({"RUNTIME_TABLES": 1, "COMPACT_TABLES": 1}, "MSAMP_CFG_RUNTIME_TABLES needs the full tables"),
    ({"RUNTIME_TABLES": 1, "HEAPDUMP": 0}, "MSAMP_CFG_RUNTIME_TABLES needs the full tables"),
    ({"HEAPDUMP": 0, "COMPACT_TABLES": 0}, "MSAMP_CFG_HEAPDUMP 0 needs the compact tables"),
    ({"small": 1, "MAPPINGS": 1, "FRAME_BYTES": 256}, "MSAMP_CFG_RING_SIZE below one frame"),
    ({"MAX_DEPTH": 256, "RING_SIZE": 1024}, "MSAMP_CFG_RING_SIZE below one frame"),
    ({"MAX_DEPTH": 256, "FRAME_POOL": 256}, "frame pool below one stack"),
    ({"HEAPDUMP": 0, "SNAPSHOTS": 1}, "MSAMP_CFG_SNAPSHOTS needs the full tables"),
    ({"LIVE_CAPACITY": 100}, "MSAMP_CFG_LIVE_CAPACITY: power of two"),
    ({"LIVE_CAPACITY": 4}, "live table smaller than a bucket"),
    ({"LIVE_WAYS": 6}, "MSAMP_CFG_LIVE_WAYS: power of two"),
    ({"LIVE_WAYS": 64}, "MSAMP_CFG_LIVE_WAYS: at most 32"),
    ({"STACK_CAPACITY": 100}, "MSAMP_CFG_STACK_CAPACITY: power of two"),
    ({"STACK_CAPACITY": 1}, "MSAMP_CFG_STACK_CAPACITY: at least 2"),
    ({"STACK_CAPACITY": 131072}, "MSAMP_CFG_STACK_CAPACITY: at most 65536"),
    ({"MAX_DEPTH": 0}, "MSAMP_CFG_MAX_DEPTH: 1..MSAMP_WIRE_MAX_DEPTH"),
    ({"MAX_DEPTH": 257}, "MSAMP_CFG_MAX_DEPTH: 1..MSAMP_WIRE_MAX_DEPTH"),
    ({"FRAME_POOL": 16}, "frame pool below one stack"),
    ({"RING_SIZE": 1000}, "MSAMP_CFG_RING_SIZE: power of two"),
    ({"RING_SIZE": 256}, "MSAMP_CFG_RING_SIZE below one frame"),
    ({"MAX_CONTEXTS": 0}, "MSAMP_CFG_MAX_CONTEXTS: at least 1"),
    ({"THIN_BATCH": 0}, "MSAMP_CFG_THIN_BATCH: at least 1"),
    ({"CONTROL_READ": 0}, "MSAMP_CFG_CONTROL_READ"),
    ({"CONTROL_READ": 257}, "MSAMP_CFG_CONTROL_READ"),
    ({"STACK_RESEND_SAMPLES": 100}, "MSAMP_CFG_STACK_RESEND_SAMPLES"),
    ({"RESEND_BYTES": 1000}, "MSAMP_CFG_RESEND_BYTES"),
    ({"CRC_TABLE": 3}, "MSAMP_CFG_CRC_TABLE: 0, 1 or 2"),
    ({"TASK_BUDGETS": 256}, "MSAMP_CFG_TASK_BUDGETS: at most 255"),
    ({"TASK_BUDGETS": 4, "RUNTIME_TABLES": 1}, "MSAMP_CFG_TASK_BUDGETS needs fixed tables"),
]


def effective(cfg, base):
    """The knobs' values once include/msamp_config.h's derivations are applied."""
    v = dict(base)
    if cfg.get("small"):
        v.update(SMALL)
    v.update({k: x for k, x in cfg.items() if x is not U and k != "small"})
    tiny = v.get("TINY", 0)
    heapdump = v.get("HEAPDUMP", 1)
    compact = v.get("COMPACT_TABLES", int(bool(tiny or not heapdump)))
    return dict(v, TINY=tiny, HEAPDUMP=heapdump, COMPACT_TABLES=compact,
                SNAPSHOTS=v.get("SNAPSHOTS", int(not compact)), LIVE_WAYS=v.get("LIVE_WAYS", 8),
                FRAME_BYTES=v.get("FRAME_BYTES", min(v["RING_SIZE"] // 4, 64)))


def ring_fits(e, ptr):
    """src/msamp_writer.c's bound: a frame of FRAME_BYTES plus the largest event fits the ring."""
    pv = (ptr * 8 + 6) // 7
    sample = 11 + (1 + 2 * pv) + (3 + 10 + e["MAX_DEPTH"] * pv) + (1 + 6 * pv)
    mapping = 3 + 3 * pv + 1 + 64 + 2 + 192
    session = 3 + 6 + 5 + 2 + 25 + 1 + 64 + 1 + 32
    body = e["FRAME_BYTES"] + max(sample, session, mapping if e["MAPPINGS"] else 0) + 4
    return body <= 4096 and body + body // 254 + 2 <= e["RING_SIZE"]


def valid_under(cfg, base):
    e = effective(cfg, base)
    return not ((e["SNAPSHOTS"] and e["COMPACT_TABLES"]) or
                (e["RUNTIME_TABLES"] and e["COMPACT_TABLES"]) or
                (not e["HEAPDUMP"] and not e["COMPACT_TABLES"]) or
                (e.get("TASK_BUDGETS") and e["RUNTIME_TABLES"]) or
                e["LIVE_CAPACITY"] < e["LIVE_WAYS"] or
                e["FRAME_POOL"] < e["MAX_DEPTH"] + 1 or
                (e["COMPACT_TABLES"] and e["STACK_CAPACITY"] > 65536) or
                not ring_fits(e, 4) or not ring_fits(e, 8))


def covering_array(base, seed=25):
    """Configurations in which every pair of (knob, value) the rules allow over the defaults
    `base` meets at least once."""
    valid = lambda c: valid_under(c, base)
    rnd = random.Random(seed)
    names = list(KNOBS)
    pairs = set()
    for a, b in itertools.combinations(range(len(names)), 2):
        for va in range(len(KNOBS[names[a]])):
            for vb in range(len(KNOBS[names[b]])):
                pairs.add((a, va, b, vb))
    configs, unreachable = [], []
    while pairs:
        best, best_cov = None, set()
        seedpair = min(pairs)
        for _ in range(40):
            a, va, b, vb = seedpair
            pick = {a: va, b: vb}
            order = [i for i in range(len(names)) if i not in pick]
            rnd.shuffle(order)
            for i in order:
                scored = []
                for vi in range(len(KNOBS[names[i]])):
                    gain = sum(1 for j, vj in pick.items()
                               if (min(i, j), vi if i < j else vj, max(i, j),
                                   vj if i < j else vi) in pairs)
                    scored.append((gain, rnd.random(), vi))
                for _gain, _r, vi in sorted(scored, reverse=True):
                    trial = dict(pick)
                    trial[i] = vi
                    partial = {names[k]: KNOBS[names[k]][x] for k, x in trial.items()}
                    if valid(partial):
                        pick = trial
                        break
                else:
                    pick[i] = 0  # unset
            cfg = {names[k]: KNOBS[names[k]][x] for k, x in pick.items()}
            if not valid(cfg):
                continue
            cov = {(a2, pick[a2], b2, pick[b2])
                   for a2, b2 in itertools.combinations(range(len(names)), 2)} & pairs
            if len(cov) > len(best_cov):
                best, best_cov = cfg, cov
        if best is None or seedpair not in best_cov:
            unreachable.append(seedpair)
            pairs.discard(seedpair)
            if best is None:
                continue
        configs.append(best)
        pairs -= best_cov
    return configs, [(names[a], KNOBS[names[a]][va], names[b], KNOBS[names[b]][vb])
                     for a, va, b, vb in unreachable]


def defs(cfg):
    out = ["-DMSAMP_CFG_%s=%s" % (k, v) for k, v in sorted(cfg.items()) if v is not U and k != "small"]
    return out + (["-include", "include/msamp_config_small.h"] if cfg.get("small") else [])


def label(cfg):
    s = " ".join("%s=%s" % (k, v) for k, v in sorted(cfg.items()) if v is not U)
    return s or "(defaults)"


def unity(path, srcs, gnu=False):
    """One translation unit of the given sources. What one file defines for itself stays its own:
    the names each wrapper file keeps static (slow, real_call) are renamed per file, and every
    macro a file defines is undefined after it."""
    with open(path, "w") as f:
        if gnu:  # the hosted port's files ask for _GNU_SOURCE (the same empty definition)
            f.write("#define _GNU_SOURCE\n")
        for i, s in enumerate(srcs):
            names = sorted(set(re.findall(r"^\s*#\s*define\s+(\w+)", open(s).read(), re.M)))
            f.write("#define slow slow_%d\n#define real_call real_call_%d\n" % (i, i))
            f.write('#include "%s"\n' % os.path.abspath(s))
            for n in ["slow", "real_call"] + [n for n in names if n != "_GNU_SOURCE"]:
                f.write("#undef %s\n" % n)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    warn = os.environ["TARGET_WARN"].split()
    core = os.environ["CORE_SRCS"].split()
    hosted = ["port/" + s for s in os.environ["PORT_HOSTED"].split()] + ["port/hosted/hosted_cxx.c"]
    a64 = ["port/" + s for s in os.environ["PORT_AARCH64"].split()]
    arm = ["port/" + s for s in os.environ["PORT_ARM"].split()]
    jobs = int(os.environ.get("JOBS", "2"))
    unity(out + "/core.c", core)
    unity(out + "/hosted.c", hosted, gnu=True)
    # The ports' files in translation units of their own: their locals share names with the core's
    # file-scope statics (the tables' `t`), which -Wshadow would take up in one.
    unity(out + "/aarch64.c", a64)
    unity(out + "/arm.c", arm)
    inc = ["-Iinclude", "-Isrc"]
    hcfg = ["-DMSAMP_CONFIG_FILE=\"msamp_hosted_config.h\"", "-Iport/hosted"]
    free = ["-ffreestanding", "-fno-omit-frame-pointer"]
    m3 = ["--target=thumbv7m-none-eabi", "-mcpu=cortex-m3"]
    m3gcc = ["-mcpu=cortex-m3", "-mthumb"]
    a64cl = ["--target=aarch64-none-elf", "-mstrict-align"]
    hport = hcfg + ["-pthread", "-fPIE", "-Iport/common"]
    # name, compiler, translation units (file, flags), which configurations it builds
    # name, compiler, translation units (file, flags; the first is the core's), what it builds
    builds = [
        ("gcc-hosted", "gcc", [(out + "/core.c", free + hcfg + ["-fPIE"]), (out + "/hosted.c", hport)],
         ("single", "pairs")),
        ("clang-hosted", "clang", [(out + "/core.c", free + hcfg + ["-fPIE"]), (out + "/hosted.c", hport)],
         ("single", "pairs")),
        ("gcc-aarch64", "aarch64-linux-gnu-gcc",
         [(out + "/core.c", free + ["-mstrict-align"]),
          (out + "/aarch64.c", free + ["-mstrict-align", "-Iport/aarch64", "-Iport/common"])],
         ("single", "pairs", "invalid")),
        ("clang-aarch64", "clang",
         [(out + "/core.c", free + a64cl),
          (out + "/aarch64.c", free + a64cl + ["-Iport/aarch64", "-Iport/common"])],
         ("pairs",)),
        ("gcc-m3", "arm-none-eabi-gcc",
         [(out + "/core.c", free + m3gcc), (out + "/arm.c", free + m3gcc + ["-Iport/arm", "-Iport/common"])],
         ("pairs",)),
        ("clang-m3", "clang",
         [(out + "/core.c", free + m3), (out + "/arm.c", free + m3 + ["-Iport/arm", "-Iport/common"])],
         ("single", "pairs", "invalid")),
    ]
    # Each family of builds (its defaults) has its own configurations: those its rules allow.
    families = {}
    for fam, base in (("firmware", FIRMWARE), ("hosted", HOSTED)):
        singles = [{k: v} for k, vals in KNOBS.items() for v in vals if v is not U]
        pairs, unreachable = covering_array(base)
        families[fam] = {"single": [{}] + [c for c in singles if valid_under(c, base)],
                         "pairs": pairs, "unreachable": unreachable,
                         "invalid": [c for c, _m in INVALID] if fam == "firmware" else []}
    if "--list" in sys.argv:
        print("%d knobs, %d values" % (len(KNOBS), sum(len(v) for v in KNOBS.values())))
        for fam, f in families.items():
            for kind in ("single", "pairs", "invalid"):
                for c in f[kind]:
                    print("%-8s %-7s %s" % (fam, kind, label(c)))
            for u in f["unreachable"]:
                print("%-8s no configuration its rules allow holds %s=%s with %s=%s" % ((fam,) + u))
        return 0

    jobs_list = []  # (kind, cfg, build name, cc, tu, flags, expected error)
    for name, cc, tus, kinds in builds:
        f = families["hosted" if "hosted" in name else "firmware"]
        for kind in kinds:
            for n, c in enumerate(f[kind]):
                for tu, flags in tus if kind == "pairs" else tus[:1]:
                    jobs_list.append((kind, c, name, cc, tu, flags,
                                      INVALID[n][1] if kind == "invalid" else None))

    def run(j):
        kind, c, name, cc, tu, flags, expect = j
        cmd = [cc] + warn + flags + inc + defs(c) + ["-fsyntax-only", tu]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if expect is None:
            ok = p.returncode == 0
            why = "" if ok else p.stdout
        else:
            first = next((l for l in p.stdout.splitlines() if re.search(r"\berror\b", l)), "")
            ok = p.returncode != 0 and expect in first
            why = "" if ok else ("compiled" if p.returncode == 0 else
                                 "first error is not \"%s\":\n%s" % (expect, p.stdout))
        return j, ok, why, " ".join(shlex.quote(x) for x in cmd)

    t0 = time.time()
    failed = 0
    counts = {}
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        for j, ok, why, cmd in ex.map(run, jobs_list):
            kind = j[0]
            n = counts.setdefault(kind, [0, 0])
            n[0 if ok else 1] += 1
            if not ok:
                failed += 1
                log = "%s/fail-%d.log" % (out, failed)
                with open(log, "w") as f:
                    f.write(cmd + "\n" + why)
                first = next((l for l in why.splitlines() if re.search(r"\berror\b", l)), why[:200])
                print("FAIL  %-7s %-13s %-9s %s\n      %s (%s)" % (kind, j[2], os.path.basename(j[4]),
                                                             label(j[1]), first.strip(), log))
    for kind in ("single", "pairs", "invalid"):
        ok, bad = counts.get(kind, [0, 0])
        n = "%d firmware and %d hosted configurations" % (len(families["firmware"][kind]),
                                                          len(families["hosted"][kind]))
        what = {"single": n + ", one knob each (and none)",
                "pairs": n + " covering every pair of values",
                "invalid": "%d invalid combinations refused by their static assert" % len(INVALID)}[kind]
        print("%-4s  %-7s %s: %d compiles passed, %d failed" % ("ok" if bad == 0 else "FAIL", kind,
                                                             what, ok, bad))
    print("%d compiles (gcc and clang: hosted x86-64, aarch64, Cortex-M3) in %.1f s; pairs no "
          "configuration the rules allow holds: %d firmware, %d hosted (--list names them)" %
          (len(jobs_list), time.time() - t0, len(families["firmware"]["unreachable"]),
           len(families["hosted"]["unreachable"])))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
