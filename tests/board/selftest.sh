#!/usr/bin/env bash
# Usage: tests/board/selftest.sh ELF OUTDIR. Runs the port self-test under QEMU; passes when it
# exits 0, printed no failure, and reported the ELF's own build-id.
set -u
elf=$1; out=$2
boards/qemu_run.sh "$elf" uart "$out" >/dev/null
status=$?
cat "$out/console.txt"
[ "$status" = 0 ] || { echo "FAIL: self-test exited with status $status"; exit 1; }
grep -q '^selftest FAIL' "$out/console.txt" && { echo "FAIL: a check failed"; exit 1; }
grep -q '^selftest passed' "$out/console.txt" || { echo "FAIL: no final line"; exit 1; }
want=$("${BOARD_CROSS}readelf" -n "$elf" | awk '/Build ID:/ { print $3 }')
got=$(sed -n 's/^selftest build_id=//p' "$out/console.txt")
[ -n "$want" ] && [ "$got" = "$want" ] || { echo "FAIL: build-id on the board '$got', in the ELF '$want'"; exit 1; }
echo "build-id matches the ELF: $want"
