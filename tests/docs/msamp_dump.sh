#!/usr/bin/env bash
# Usage: tests/docs/msamp_dump.sh FWDIR FILE...   (test docs-msamp-dump)
# msamp-dump's command blocks (docs/MSAMP_DUMP.md) as written, in a user's checkout holding
# capture.bin, the whole UART stream of the demo firmware ($DEMO_ELF under QEMU, to its end), and
# firmware.elf (the README's snippet, FWDIR/firmware.elf) for the device on /dev/ttyUSB0: a QEMU
# pty linked as CHECKOUT/dev/ttyUSB0 (only the device's folder replaced); that line (socat | ...)
# ends when the device goes away (QEMU ends: socat reads the end of the tty) after 3 s, as
# unplugging it would, so msamp-dump ends at its end of input. Every line must exit 0, and:
# a listing starts with a frame and the SESSION; -t gives device times (@ts=); -s prints the
# counters on stderr.
. "$(dirname "$0")/lib.sh"
fw=$1
shift
[ -n "${BOARD_QEMU:-}" ] && [ -n "${DEMO_ELF:-}" ] || { echo "BOARD_QEMU and DEMO_ELF must be set" >&2; exit 2; }
BOARD_QEMU_TIMEOUT=60 boards/qemu_run.sh "$DEMO_ELF" uart "$W/demo" >"$W/demo.log" 2>&1 || { fail "demo run"; show "$W/demo.log"; }

line_hook() {
  case "$2" in
    *"/dev/ttyUSB0"*) tty_line "$1" "$2" "$co/firmware.elf" device ;;
    *) return 1 ;;
  esac
}
for f in "$@"; do
  co=$W/co-$(basename "$f" .md)
  checkout "$co"
  cp "$W/demo/stream.bin" "$co/capture.bin"
  cp "$fw/firmware.elf" "$co/"
  run_lines "$f" "$co"
  while IFS=$'\t' read -r text out; do
    case "${text%%#*}" in
      *msamp-dump*" -s "*)
        grep -q '^msamp-dump: [a-z_]*=[0-9]' "$out.err" && ok "$f: -s: $(head -n1 "$out.err")" || { fail "$f: -s printed no counters"; show "$out.err"; } ;;
      *msamp-dump*" -t"*)
        grep -q '^SESSION ' "$out.out" && grep -qE '@ts=[0-9]+' "$out.out" &&
          ok "$f: -t: $(grep -m1 -E '@ts=[0-9]+' "$out.out" | cut -c1-70)..." || { fail "$f: no listing with device times"; show "$out.out"; } ;;
      *msamp-dump*)
        head -n2 "$out.out" | tr '\n' ' ' | grep -qE '^frame seq=[0-9]+ SESSION version=' &&
          ok "$f: the listing starts with a frame and its SESSION" || { fail "$f: listing"; show "$out.out"; } ;;
    esac
  done <"$W/lines/index"
done
finish
