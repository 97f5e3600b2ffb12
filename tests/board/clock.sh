#!/usr/bin/env bash
# Usage: tests/board/clock.sh DIR   (environment: BOARD_QEMU, BOARD_QEMU_TIMEOUT, DRAIN)
# The Cortex-M clock (port/arm/README.md "The clock") on the board built in DIR, over the UART:
#   1. demo-clock (msamp's own clock: SysTick free-running, or the DWT) and demo-haltick (the same
#      firmware with a HAL-style SysTick at 1 kHz and its interrupt started before msamp_init,
#      msamp reading it through msamp_arm_app_ticks) run RUNS times each; the ratios (HAL tick over own
#      clock, run by run) of drain's peak time and of its leak_record growth (B/s), averaged over
#      the runs, must be within 10 % of 1. QEMU runs with -icount
#      (virtual time from the instructions run: without it a loaded host makes one run twice as
#      long as the next), each run at another shift (0, 1, 2: 2^shift ns an instruction; larger
#      shifts make runs of tens of seconds): the runs differ in how the timer interrupts fall
#      among the allocations, hence in what is sampled.
#   2. None of those runs may carry drain's clock warning (--json clock_warning, stderr);
#      demo-haltick-wrong (a tick 1000 times too fast) and demo-haltick-none (no tick given: the
#      clock stands still) must carry it. Their streams read again from the saved file (no pace):
#      the clock that stood still is still said, the one too fast no longer can be.
set -u
dir=$1
runs=${CLOCK_RUNS:-3}
out=$dir/uart/test-clock
rm -rf "$out" && mkdir -p "$out"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# run VARIANT TAG SHIFT: one run in $out/VARIANT-TAG; prints "peak_s leak_Bps warned".
run() {
  local d=$out/$1-$2
  BOARD_QEMU="$BOARD_QEMU -icount shift=$3" boards/examples/demo/run_demo.sh "$dir/uart/$1.elf" uart \
    "$d" "$d/demo.pb.gz" >"$d.log" 2>&1 || { echo "FAIL: $1 run $2:" >&2; cat "$d.log" >&2; return 1; }
  python3 - "$d/demo.json" "$d/drain.err" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sessions"][0]
peak = s["peak"]["at_s"] if s["peak"] and s["peak"]["placed"] else "nan"
leak = [l["growth_bytes_per_s"]["est"] for l in s["leaks"]
        if any("leak_record" in json.dumps(f) for f in l["stack"])]
warned = s["clock_warning"] is not None
said = "drain: warning: session 1: the device's clock" in open(sys.argv[2]).read()
if warned != said:
    sys.exit("--json clock_warning and stderr disagree")
print(peak, leak[0] if leak else "nan", int(warned))
PY
}

for v in demo-clock demo-haltick; do
  for i in $(seq 1 "$runs"); do
    r=$(run "$v" "$i" $(((i - 1) % 3))) || exit 1
    echo "$v $i $r" >>"$out/runs.txt"
  done
done
cat "$out/runs.txt"
awk -v tol=0.10 '
  { if ($3 == "nan" || $4 == "nan") { print "FAIL: " $1 " run " $2 ": no peak time or no leak_record leak"; bad = 1 }
    if ($5 != 0) { print "FAIL: " $1 " run " $2 ": drain warned of an honest clock"; bad = 1 }
    peak[$1, $2] = $3; leak[$1, $2] = $4; n = $2 > n ? $2 : n }
  END {
    if (bad) exit 1
    for (i = 1; i <= n; i++) {
      rp = peak["demo-haltick", i] / peak["demo-clock", i]; rl = leak["demo-haltick", i] / leak["demo-clock", i]
      printf "run %d: HAL tick / own clock: peak time %.3f, leak rate %.3f\n", i, rp, rl
      p += rp / n; l += rl / n
    }
    printf "HAL tick / own clock, mean of the %d runs: peak time %.3f, leak rate %.3f\n", n, p, l
    if (p < 1 - tol || p > 1 + tol || l < 1 - tol || l > 1 + tol) { print "FAIL: not within 10 %"; exit 1 }
    print "ok: the HAL-tick firmware'"'"'s peak time and leak rate are within 10 % of its own-clock twin'"'"'s" }
' "$out/runs.txt" || fail=1

for v in demo-haltick-wrong demo-haltick-none; do
  r=$(run "$v" 1 1) || exit 1
  echo "$v $r"
  [ "${r##* }" = 1 ] && echo "ok: drain warns of $v's clock: $(grep -o "the device's clock [^:;]*" "$out/$v-1/drain.err")" ||
    bad "drain did not warn of $v's clock"
  "${DRAIN:-host_tools/drain}" -q -o "$out/$v-file.pb.gz" "$out/$v-1/stream.bin" 2>"$out/$v-file.err" >/dev/null
  w=$(grep -c "warning: session 1: the device's clock" "$out/$v-file.err")
  [ "$v" = demo-haltick-none ] && want=1 || want=0
  [ "$w" = "$want" ] && echo "ok: $v's stream as a file: $([ "$want" = 1 ] && echo "the clock that stood still said" || echo "no pace, no warning")" ||
    bad "$v's stream as a file: $w clock warnings, want $want"
done
exit $fail
