#!/usr/bin/env bash
# Usage: boards/qemu_run.sh ELF TRANSPORT OUTDIR [SERIAL]
# Runs a board firmware under QEMU (command in $BOARD_QEMU, limit $BOARD_QEMU_TIMEOUT seconds) with
# OUTDIR as QEMU's working directory. The msamp stream ends up in OUTDIR/stream.bin: the UART's
# output (uart), or the file the firmware writes by semihosting (semihosting). SERIAL overrides
# the UART's destination (a QEMU -serial value, e.g. tcp:127.0.0.1:PORT,server=on). The console
# text (semihosting SYS_WRITE0) goes to OUTDIR/console.txt and to stdout. Exits with QEMU's status
# (the firmware's exit status; 124 on timeout). BOARD_QEMU_EXTRA, when set, adds QEMU options
# (e.g. "-qmp unix:qmp.sock,server=on,wait=off" for a test that resets the board).
set -u
[ $# -ge 3 ] || { echo "usage: $0 ELF TRANSPORT OUTDIR [SERIAL]" >&2; exit 2; }
elf=$(realpath "$1"); transport=$2; out=$3; serial=${4:-}
[ -n "${BOARD_QEMU:-}" ] || { echo "$0: BOARD_QEMU is not set" >&2; exit 2; }
[ -f "$elf" ] || { echo "$0: no such firmware: $1" >&2; exit 2; }
mkdir -p "$out"
rm -f "$out/stream.bin" "$out/console.txt"
if [ -z "$serial" ]; then
  case "$transport" in
    semihosting) serial=null ;;
    *) serial=file:stream.bin ;;
  esac
fi
cd "$out" || exit 2
# shellcheck disable=SC2086  # BOARD_QEMU is a command line
timeout "${BOARD_QEMU_TIMEOUT:-60}" $BOARD_QEMU ${BOARD_QEMU_EXTRA:-} -serial "$serial" -kernel "$elf" </dev/null 2>&1 | tee console.txt
status=${PIPESTATUS[0]}
[ "$status" = 124 ] && echo "qemu_run: QEMU timed out after ${BOARD_QEMU_TIMEOUT:-60} s" >&2
exit "$status"
