#!/usr/bin/env bash
# Usage: tests/docs/readme_intro.sh README.md FWDIR   (test docs-readme-intro)
# The README's first block as written, in a user's checkout holding firmware.elf (the README's own
# firmware snippet, FWDIR/firmware.elf: docs-firmware-snippet builds it):
#   host_tools/drain /dev/ttyUSB0 ...: the firmware runs under QEMU with its UART on a
#     pseudo-terminal that stands for /dev/ttyUSB0 (CHECKOUT/dev/ttyUSB0 links to it: only the
#     device's folder is replaced in the line); after 3 s a SIGINT to the line's process group is
#     the user's Ctrl-C. It must exit 0, print the --top report and write heap.pb.gz with the
#     firmware's symbolized sites.
#   go tool pprof -http=...: must serve its web UI on 127.0.0.1 (the top view lists the firmware's
#     sites), with BROWSER a script that only records the URL; then it is stopped.
. "$(dirname "$0")/lib.sh"
readme=$1 fw=$2
[ -n "${BOARD_QEMU:-}" ] || { echo "BOARD_QEMU is not set" >&2; exit 2; }
co=$W/co
checkout "$co"
cp "$fw/firmware.elf" "$co/"

line_hook() {
  case "$2" in
    *"/dev/ttyUSB0"*) tty_line "$1" "$2" "$co/firmware.elf" int ;;
    "go tool pprof -http="*) http_line "$1" "$2" "/ui/top=queue_message" ;;
    *) return 1 ;;
  esac
}
run_lines "$readme" "$co"

if [ -s "$co/heap.pb.gz" ]; then
  pp -raw "$co/heap.pb.gz" >"$W/raw.txt" 2>&1
  n=$(sed -n 's/.*reader: samples=\([0-9]*\).*/\1/p' "$W/raw.txt")
  [ "${n:-0}" -ge 50 ] && ok "heap.pb.gz: $n samples" || fail "heap.pb.gz: ${n:-0} samples"
  grep -qE "M=1 queue_message [^ ]*do_work.c:[0-9]+ " "$W/raw.txt" && ok "heap.pb.gz: sites symbolized with firmware.elf" ||
    fail "heap.pb.gz: queue_message not symbolized"
else
  fail "no heap.pb.gz"
fi
top=$(line_out '^host_tools/drain ')
grep -q 'in-use bytes (live at the end' "$top" && grep -q queue_message "$top" && ok "--top 10: queue_message among the sites live at the end" ||
  { fail "the --top report"; show "$top"; }
finish
