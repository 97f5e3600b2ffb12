#!/usr/bin/env bash
# The device's clock against the stream's own pace (docs/DRAIN.md "The device's clock",
# verdict/clock.c): the rule for a clock that runs far too SLOW, which the board tests (a clock too
# fast, one that stood still: test-board-clock) do not reach. A crafted session (craft.c paced) in
# two parts fed to drain through a pipe with a pause of PAUSE s between them (the arrival span W):
#   slow     its records span 0.0029 s of device time (29 ticks at 10 kHz): W > 10 D + 10 s, so
#            drain warns on stderr "the device's clock ran Rx too slow for the stream's pace", R
#            W / D, naming docs/FIRMWARE.md, and --json's clock_warning holds D, W and that note;
#            the profile keeps it (drain check of it reads the same comment back)
#   honest   the same records 11 s of device time apart (110019 ticks): no warning, clock_warning
#            null
#   file     the slow stream read from a file (no pace): no warning
# The two live runs go at once (one pause for both).
T=${T:?} DRAIN=${DRAIN:?}
. "$(dirname "$0")/lib.sh"
PAUSE=${PAUSE:-12}

for v in slow:10 honest:110000; do
  "$T/craft" paced "${v#*:}" "$W/${v%%:*}.bin" || fail "craft paced ${v#*:}"
done
# live NAME: the two parts through a pipe, PAUSE s apart
live() {
  { cat "$W/$1.bin"; sleep "$PAUSE"; cat "$W/$1.bin.tail"; } |
    "$DRAIN" -q --json "$W/$1.json" -o "$W/$1.pb.gz" - >/dev/null 2>"$W/$1.err"
  echo $? >"$W/$1.rc"
}
live slow &
live honest &
wait
for v in slow honest; do
  [ "$(cat "$W/$v.rc")" = 0 ] || fail "$v: drain exit $(cat "$W/$v.rc"): $(head -c 300 "$W/$v.err")"
done

# slow: stderr, --json and the ratio
warn=$(grep "^drain: warning: session 1: the device's clock" "$W/slow.err")
python3 - "$W/slow.json" "$warn" "$PAUSE" <<'PY' && ok "slow: $(sed 's/; every time.*//' <<<"${warn#drain: warning: session 1: }")" || fail "slow clock: $warn"
import json, re, sys
cw = json.load(open(sys.argv[1]))["sessions"][0]["clock_warning"]
warn, pause = sys.argv[2], float(sys.argv[3])
if cw is None:
    sys.exit("--json clock_warning is null")
d, w, note = cw["device_s"], cw["arrival_s"], cw["note"]
if abs(d - 0.0029) > 1e-9:
    sys.exit(f"device_s {d}, want 0.0029 (29 ticks at 10 kHz)")
if not pause - 1 <= w < pause + 5:  # drain's start-up may take part of the pause
    sys.exit(f"arrival_s {w}, want the pause {pause} s (within -1 s, +5 s)")
m = re.fullmatch(r"the device's clock ran (\d+)x too slow for the stream's pace: its records span "
                 r"0\.003 s of device time but arrived over ([0-9.]+) s; every time, rate and "
                 r"lifetime of the session is off by as much \(a firmware that misreads its clock: "
                 r"on Cortex-M see MSAMP_ARM_CPU_HZ and msamp_arm_app_ticks, docs/FIRMWARE\.md\)", note)
if not m:
    sys.exit(f"note: {note}")
if abs(int(m.group(1)) - w / d) > 1 or abs(float(m.group(2)) - w) > 0.001:
    sys.exit(f"note's ratio {m.group(1)} or span {m.group(2)}: want {w / d:.0f} and {w:.3f}")
if warn != "drain: warning: session 1: " + note:
    sys.exit(f"stderr and --json differ: {warn}")
PY
# the profile keeps it (its string table holds the comment)
n=$(zcat "$W/slow.pb.gz" | grep -a -o "msamp-verdict clock|device_s=0.0029|arrival_s=[0-9.]*|note=the device's clock ran [0-9]*x too slow [^(]*(a firmware that misreads its clock: on Cortex-M see MSAMP_ARM_CPU_HZ and msamp_arm_app_ticks, docs/FIRMWARE.md)" | wc -l)
[ "$n" = 1 ] && ok "slow: the profile keeps the warning (msamp-verdict clock comment)" || fail "slow: the profile's clock comment: $n"

# honest: no warning
python3 -c 'import json,sys; cw = json.load(open(sys.argv[1]))["sessions"][0]["clock_warning"]; sys.exit(cw is not None)' "$W/honest.json" &&
  ! grep -q "the device's clock" "$W/honest.err" &&
  ok "honest: 11 s of device time over a ${PAUSE} s pause: no warning, clock_warning null" ||
  fail "honest: warned: $(cat "$W/honest.err")"

# file: no pace, no warning
cat "$W/slow.bin" "$W/slow.bin.tail" >"$W/file.bin"
"$DRAIN" -q --json "$W/file.json" -o "$W/file.pb.gz" "$W/file.bin" >/dev/null 2>"$W/file.err" || fail "file: drain exit $?"
python3 -c 'import json,sys; cw = json.load(open(sys.argv[1]))["sessions"][0]["clock_warning"]; sys.exit(cw is not None)' "$W/file.json" &&
  ! grep -q "the device's clock" "$W/file.err" && ok "file: the slow stream from a file (no pace): no warning" ||
  fail "file: warned: $(cat "$W/file.err")"

[ $nfail = 0 ] && echo "t_clock: all passed"
[ $nfail = 0 ]
