#!/usr/bin/env bash
# Usage: tests/firstcontact/farm_demo.sh FARM ELF OUTDIR   (environment: BOARD_QEMU,
# BOARD_QEMU_TIMEOUT, DRAIN)
# `make demo`'s run (boards/examples/demo/run_demo.sh over the UART) with the board's QEMU taken
# from FARM (tests/firstcontact/qemu_farm.sh): the QEMU of a `--no-install-recommends` install.
# Passes when QEMU starts and the firmware ends well, and drain prints the top allocation sites.
set -u
[ $# -eq 3 ] || { echo "usage: $0 FARM ELF OUTDIR" >&2; exit 2; }
farm=$(realpath "$1"); elf=$2; out=$3
[ -n "${BOARD_QEMU:-}" ] || { echo "$0: BOARD_QEMU is not set" >&2; exit 2; }
qemu=${BOARD_QEMU%% *}
[ -x "$farm/bin/$qemu" ] || { echo "$0: no $qemu in $farm/bin" >&2; exit 2; }
echo "QEMU: $farm/bin/$BOARD_QEMU"
mkdir -p "$out"
BOARD_QEMU="$farm/bin/$BOARD_QEMU" boards/examples/demo/run_demo.sh "$elf" uart "$out" "$out/demo.pb.gz" \
  >"$out/demo.txt" 2>&1
st=$?
cat "$out/demo.txt"
if grep -q 'failed to find romfile\|Could not\|could not load' "$out/demo.txt"; then
  echo "FAIL: QEMU wants a file that a --no-install-recommends install of its package does not bring"
  exit 1
fi
[ "$st" = 0 ] || { echo "FAIL: the demo failed (status $st)"; exit 1; }
for what in "in-use bytes" "allocated bytes"; do
  # The heading, then the column titles, then at least one site: bytes objects samples site.
  grep -A2 "^top [0-9]* sites by $what" "$out/demo.txt" | tail -n1 | grep -qE '^ *[0-9]+ +[0-9]+ +[0-9]+ +[^ ]' ||
    { echo "FAIL: no top site by $what in the demo's output"; exit 1; }
done
echo "PASS: the demo ran on $qemu without the files of recommended packages"
