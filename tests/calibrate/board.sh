#!/usr/bin/env bash
# Usage: tests/calibrate/board.sh OUTDIR RUNS [FIRST_SEED]
# The calibration suite's board workload (issue 36): the demo firmware of the default board
# (qemu-virt-aarch64, boards/examples/demo/demo.c, over the UART as `make demo` runs it) under
# QEMU, RUNS times with the sampling seeds FIRST_SEED (default 1), FIRST_SEED + 1, ..., each run's
# estimates and 95 % intervals judged against the truth the firmware prints itself.
#
# Each run (boards/examples/demo/run_demo.sh, then drain check, as tests/board/verdict.sh does):
#   1. a copy of demo.elf with the run's seed in the word demo_seed (below);
#   2. run_demo.sh runs it under QEMU, the UART's stream into drain (OUTDIR/board/seed-S/);
#   3. the console's "msamp-demo run ... seed=S" must say that seed (the patch took);
#   4. `drain check STREAM --elf COPY --budget KIND:FN<=1024G ... --json` for KIND alloc and inuse
#      of each of the demo's sites (FN: the function that calls the allocator, every stack through
#      it) and of the total;
#   5. `msamp-dump STREAM`: its INTERVAL records, reason 1, 2, 3 or 5 a raise, 4 a lowering.
# It appends one line per judged quantity to OUTDIR/rows.tsv, tab-separated, no header:
#     workload run kind where truth est lo hi raises lowers marked
# workload board-aarch64, run the seed, where the function or - for the total, truth/est/lo/hi
# in bytes, marked 1 where drain's JSON calls the estimate a lower bound or incomplete (a
# "lower_bound" member, or "complete": false, where drain writes one; 0 otherwise), as
# tests/calibrate/calibrate.sh writes the hosted workloads' rows.
#
# The judged quantities. The truth is the console's "msamp-demo truth site=F size=S allocs=A
# live=L" lines, by function: allocated sum(S * A), in use sum(S * L). Functions:
# cache_insert, leak_record, churn_scratch, deep_alloc, isr_make_packet and grow_buffer. Realloc
# chains (grow_buffer) keep their in-use at the chain's first site (docs/DRAIN.md "Realloc
# chains"), which tests/board/verdict.sh leaves out by leaf; here the chain's first site and every
# realloc's are all in grow_buffer, the function judged, so its in-use is the chains' whole (0 at
# the end: every chain freed) and its allocated every block realloc returned, both exact. The
# total (where -) is over every site: these six are every allocation the firmware makes (a run
# whose console names another site fails), so its truth is exact too. A quantity whose truth and
# estimate are both 0 (churn_scratch's in-use: freed at once) is no row, as in verdict.sh.
#
# Why and how the seed varies. msamp's sampling decisions are a function of its seed: the demo's
# is DEMO_SEED (12345) at build time. The firmware reads it at start from demo_seed, a volatile
# const uint64_t of its own in the image (boards/examples/demo/demo.h), so each run needs no
# rebuild: its copy of the ELF has the seed written over the 8 file bytes of that symbol (found
# in .symtab: the section's file offset + the symbol's address - the section's, in the ELF's own
# byte order), and QEMU's -kernel loads it with the rest of .data. Nothing else in the copy
# changes (the build-id note is the original's), so drain symbolizes the stream with it as with
# the original; a firmware run without a copy is the demo as it always was. Seed 0 would mean
# "from the device's entropy" (msamp_init): seeds start at 1.
#
# CALIB_EXHAUST=1 (the demo-exhaust firmware, tests/calibrate/board_exhaust.sh): each run also
# judges drain check's exhaustion>=1s, its row kind "exhaustion", where -, truth/est/lo/hi in
# seconds (as calibrate.sh's exhaustion rows), the truth the console's "msamp-demo exhaustion ...
# us=T" (the heap's free bytes at the end over the leak's rate in the allocator's bytes over the
# session's recent half: demo.c's report_exhaustion); a run whose console has no such line fails.
# CALIB_WORKLOAD names the rows' workload (default board-aarch64; tests/link/link.sh's paced
# links: link-115200, link-9600; board_exhaust.sh's board-exhaustion).
# Tools: with DEMO_ELF set it builds nothing and takes DEMO_ELF, DRAIN and MSAMP_DUMP (default
# host_tools/drain and host_tools/msamp-dump), BOARD_QEMU (the board's QEMU command line, default
# make's) and BOARD_QEMU_TIMEOUT; otherwise it builds drain, msamp-dump and the firmware with make
# (build/qemu-virt-aarch64/uart/demo.elf, as `make firmware`). A missing cross compiler, QEMU or
# python3 skips it (exit 77), or fails it with CI=true (tests/need.sh).
# Runs of one seed sample the main loop's sites alike (the same rows for them, measured over two
# sets of 20 runs); the timer interrupt's site follows QEMU's wall clock (its tick count, 600 to
# 2000 a run), and with it the totals. CALIB_JOBS=2 runs two QEMUs at a time (default 1).
# CALIB_KEEP=1 keeps each run's stream, ELF copy and profile (about 100 KB a run); otherwise a run
# keeps its console, drain output, check JSON and rows.
#
# Cost: each run prints its seconds. On this project's 2-core machine, shared with other jobs
# (load about 3), 20 runs one at a time took 18 to 21 s: 0.56 to 1.45 s a run, 0.92 and 1.05 s on
# average. run_demo.sh (QEMU's 4000 main-loop iterations, 0.25-0.6 s of guest time; drain into
# the profile and its pprof summary) takes about 0.4 s of it unloaded; drain check, msamp-dump and
# the two python3 steps about 0.1 s. CALIB_JOBS=2: 0.8 s a run. The firmware's build, once, about
# 10 s (make -j2; the script's make runs one job unless MAKEFLAGS says more).
set -u
if [ $# -lt 2 ] || [ $# -gt 3 ]; then echo "usage: $0 OUTDIR RUNS [FIRST_SEED]" >&2; exit 2; fi
out=$1 runs=$2 first=${3:-1}
case "$runs$first" in *[!0-9]*) echo "$0: RUNS and FIRST_SEED are numbers" >&2; exit 2 ;; esac
[ "$first" -ge 1 ] || { echo "$0: FIRST_SEED must be >= 1 (seed 0 is msamp's 'from entropy')" >&2; exit 2; }
jobs=${CALIB_JOBS:-1}
case "$jobs" in 1 | 2) ;; *) echo "$0: CALIB_JOBS is 1 or 2" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
board="qemu-virt-aarch64"
workload=${CALIB_WORKLOAD:-board-aarch64}
fns="cache_insert leak_record churn_scratch deep_alloc isr_make_packet grow_buffer"

mk() { make --no-print-directory -s -C "$root" BOARD=$board TRANSPORT=uart "$@"; }
qemu=${BOARD_QEMU:-$(mk board-qemu)}
export BOARD_QEMU=$qemu BOARD_QEMU_TIMEOUT=${BOARD_QEMU_TIMEOUT:-60}
if [ -z "${DEMO_ELF:-}" ]; then
  "$root/tests/need.sh" aarch64-linux-gnu-gcc "${qemu%% *}" python3 || exit
  bdir=$(mk board-dir)
  t0=$(date +%s.%N)
  mk host_tools/drain host_tools/msamp-dump "$bdir/uart/demo.elf" || { echo "FAIL: $0: the build failed" >&2; exit 1; }
  echo "$workload: tools and firmware built in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
  DEMO_ELF=$root/$bdir/uart/demo.elf
else
  "$root/tests/need.sh" "${qemu%% *}" python3 || exit
fi
elf=$(realpath "$DEMO_ELF")
drain=$(realpath "${DRAIN:-$root/host_tools/drain}")
dump=$(realpath "${MSAMP_DUMP:-$root/host_tools/msamp-dump}")
for f in "$elf" "$drain" "$dump"; do
  [ -f "$f" ] || { echo "FAIL: $0: $f is missing" >&2; exit 1; }
done
mkdir -p "$out/board"
out=$(realpath "$out")

# seed_elf SRC DST SEED: DST is SRC with SEED in the file bytes of the symbol demo_seed.
seed_elf() {
  python3 - "$@" <<'PY'
import struct, sys
src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, "rb").read())
if b[:4] != b"\x7fELF":
    sys.exit(f"{src}: not an ELF file")
c64, e = b[4] == 2, "<" if b[5] == 1 else ">"
if c64:
    (shoff,) = struct.unpack_from(e + "Q", b, 0x28)
    shentsize, shnum = struct.unpack_from(e + "HH", b, 0x3A)
    shf, symf = e + "IIQQQQIIQQ", e + "IBBHQQ"
else:
    (shoff,) = struct.unpack_from(e + "I", b, 0x20)
    shentsize, shnum = struct.unpack_from(e + "HH", b, 0x2E)
    shf, symf = e + "IIIIIIIIII", e + "IIIBBH"
# (type, addr, offset, size, link, entsize) of each section
secs = [struct.unpack_from(shf, b, shoff + i * shentsize)[1:] for i in range(shnum)]
secs = [(s[0], s[2], s[3], s[4], s[5], s[8]) for s in secs]
symtab = [s for s in secs if s[0] == 2]  # SHT_SYMTAB
if not symtab:
    sys.exit(f"{src}: no symbol table")
_, _, off, size, link, ent = symtab[0]
stroff = secs[link][2]
for k in range(size // ent):
    f = struct.unpack_from(symf, b, off + k * ent)
    name, value, ssize, shndx = (f[0], f[4], f[5], f[3]) if c64 else (f[0], f[1], f[2], f[5])
    if b[stroff + name:b.index(0, stroff + name)] != b"demo_seed":
        continue
    if ssize != 8 or shndx == 0 or shndx >= len(secs) or secs[shndx][0] == 8:  # SHT_NOBITS
        sys.exit(f"{src}: demo_seed is not 8 bytes held in the file (size {ssize}, section {shndx})")
    stype, addr, soff = secs[shndx][:3]
    struct.pack_into(e + "Q", b, soff + value - addr, seed)
    open(dst, "wb").write(b)
    sys.exit(0)
sys.exit(f"{src}: no symbol demo_seed (a demo older than the seed word?)")
PY
}

# run_one SEED: one run in $out/board/seed-SEED; its rows in rows.tsv there, and a file ok when
# the run went through.
run_one() {
  local seed=$1 d="$out/board/seed-$1" t0 t1 raises lowers
  t0=$(date +%s.%N)
  rm -rf "$d" && mkdir -p "$d" || return 1
  seed_elf "$elf" "$d/demo.elf" "$seed" || { echo "FAIL: $workload seed $seed: could not write the seed into a copy of $elf" >&2; return 1; }
  if ! (cd "$root" && DRAIN=$drain boards/examples/demo/run_demo.sh "$d/demo.elf" uart "$d" "$d/demo.pb.gz") >"$d/run.log" 2>&1; then
    echo "FAIL: $workload seed $seed: the demo run failed:" >&2; tail -n 5 "$d/run.log" >&2; return 1
  fi
  grep -q "^msamp-demo run .* seed=$seed\$" "$d/console.txt" ||
    { echo "FAIL: $workload seed $seed: the console does not say seed=$seed: $(grep '^msamp-demo run' "$d/console.txt")" >&2; return 1; }
  local args=(--budget "alloc<=1024G" --budget "inuse<=1024G") f
  for f in $fns; do args+=(--budget "alloc:$f<=1024G" --budget "inuse:$f<=1024G"); done
  [ "${CALIB_EXHAUST:-}" = 1 ] && args+=(--budget "exhaustion>=1s")
  if ! "$drain" check "$d/stream.bin" --elf "$d/demo.elf" "${args[@]}" --json "$d/check.json" >"$d/check.txt" 2>&1; then
    echo "FAIL: $workload seed $seed: drain check exited nonzero: $(tail -n 3 "$d/check.txt")" >&2; return 1
  fi
  "$dump" "$d/stream.bin" >"$d/dump.txt" 2>&1 || { echo "FAIL: $workload seed $seed: msamp-dump failed" >&2; return 1; }
  raises=$(grep -cE '^INTERVAL .*reason=[1235]( |$)' "$d/dump.txt")
  lowers=$(grep -cE '^INTERVAL .*reason=4( |$)' "$d/dump.txt")
  python3 - "$d/console.txt" "$d/check.json" "$workload" "$seed" "$raises" "$lowers" "$fns" "${CALIB_EXHAUST:-0}" >"$d/rows.tsv" <<'PY' || return 1
import json, re, sys
console, check, workload, seed, raises, lowers, fns, exhaust = sys.argv[1:]
fns = fns.split()
truth = {(k, f): 0 for k in ("alloc", "inuse") for f in fns + ["-"]}
if exhaust == "1":  # seconds: the firmware's microseconds
    m = re.search(r"^msamp-demo exhaustion .* us=(\d+) ", open(console).read(), re.M)
    if not m:
        sys.exit(f"FAIL: {workload} seed {seed}: no 'msamp-demo exhaustion ... us=' line on the console")
    truth[("exhaustion", "-")] = int(m.group(1)) / 1e6
for line in open(console):
    m = re.search(r"^msamp-demo truth site=(\w+) size=(\d+) allocs=(\d+) live=(\d+)$", line)
    if not m:
        continue
    f, size, a, l = m.group(1), *map(int, m.groups()[1:])
    if f not in fns:
        sys.exit(f"FAIL: {workload} seed {seed}: the console names a site no budget judges: {f}")
    for w in (f, "-"):
        truth[("alloc", w)] += size * a
        truth[("inuse", w)] += size * l
if truth[("alloc", "-")] == 0:
    sys.exit(f"FAIL: {workload} seed {seed}: no truth lines on the console")
for b in json.load(open(check))["budgets"]:
    where = b.get("where") or "-"
    if b["value"] is None:
        sys.exit(f"FAIL: {workload} seed {seed}: {b['spec']} not judged: {b['note']}")
    v = {k: (float("inf") if x is None else x) for k, x in b["value"].items()}  # null: unbounded
    t = truth[(b["kind"], where)]
    if t == 0 and v["est"] == 0:
        continue
    marked = int(bool(b.get("lower_bound") or v.get("lower_bound") or b.get("complete") is False))
    print("\t".join(map(str, [workload, seed, b["kind"], where, t, v["est"], v["lo"], v["hi"],
                              raises, lowers, marked])))
PY
  [ "${CALIB_KEEP:-}" = 1 ] || rm -f "$d/stream.bin" "$d/demo.elf" "$d/demo.pb.gz" "$d/dump.txt"
  touch "$d/ok"
  t1=$(date +%s.%N)
  echo "$workload seed $seed: $(wc -l <"$d/rows.tsv") rows, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
}

start=$(date +%s.%N)
echo "$workload: $runs runs of ${elf#"$root"/} under QEMU, seeds $first..$((first + runs - 1)), $jobs at a time"
fail=0
s=$first
while [ "$s" -lt $((first + runs)) ]; do
  batch=()
  for ((j = 0; j < jobs && s < first + runs; j++, s++)); do batch+=("$s"); done
  pids=()
  for b in "${batch[@]}"; do run_one "$b" & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || fail=1; done
  for b in "${batch[@]}"; do [ -f "$out/board/seed-$b/ok" ] && cat "$out/board/seed-$b/rows.tsv" >>"$out/rows.tsv"; done
  [ $fail = 0 ] || break
done
t=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
if [ $fail != 0 ]; then
  echo "FAIL: $workload: a run failed (above); the runs before it are in $out/rows.tsv" >&2
  exit 1
fi
echo "$workload: $runs runs in $t s ($(awk -v t="$t" -v n="$runs" 'BEGIN { printf "%.2f", t / n }') s a run), rows appended to $out/rows.tsv"
