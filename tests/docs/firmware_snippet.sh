#!/usr/bin/env bash
# Usage: tests/docs/firmware_snippet.sh README.md FWDIR   (test docs-firmware-snippet)
# The README's "In firmware" snippet as written: FWDIR/main.c is the block (docs.mk extracts it
# from README.md and builds FWDIR/firmware.elf for qemu-virt-aarch64 with tests/docs/do_work.c,
# the board's start-up, link script and the demo's heap, libmsamp.a and the PL011 transport). The
# snippet never returns: QEMU runs it for a few seconds ($BOARD_QEMU, killed by timeout), the UART
# into a file; drain reads the file with --elf; the profile must hold samples whose sites are
# symbolized with file:line, called through do_work() from the snippet's main().
. "$(dirname "$0")/lib.sh"
readme=$1 fw=$2
[ -n "${BOARD_QEMU:-}" ] || { echo "BOARD_QEMU is not set" >&2; exit 2; }

# The source built is the README's block, as it reads now.
if block "$readme" >"$W/block.c" && cmp -s "$W/block.c" "$fw/main.c"; then
  ok "firmware.elf built from $readme's block as written ($(wc -l <"$W/block.c") lines: $fw/main.c)"
else
  fail "$fw/main.c is not $readme's docs-firmware-snippet block"
fi

secs=4
BOARD_QEMU_TIMEOUT=$secs boards/qemu_run.sh "$fw/firmware.elf" uart "$W/run" >"$W/qemu.log" 2>&1
rc=$?
if [ $rc = 124 ]; then
  ok "the snippet ran until QEMU's ${secs} s timeout (it loops forever); UART stream $(stat -c %s "$W/run/stream.bin") bytes"
else
  fail "QEMU exit status $rc (124 expected: the snippet never returns)"; show "$W/qemu.log"
fi
[ -s "$W/run/stream.bin" ] || { fail "no UART output"; finish; }

host_tools/drain -e "$fw/firmware.elf" -o "$W/snippet.pb.gz" -t 5 "$W/run/stream.bin" >"$W/top.txt" 2>"$W/drain.err"
rc=$?
if [ $rc = 0 ]; then ok "drain: $(tail -n1 "$W/drain.err")"; else fail "drain exit $rc"; show "$W/drain.err"; fi
pp -raw "$W/snippet.pb.gz" >"$W/raw.txt" 2>"$W/raw.err" || { fail "go tool pprof -raw cannot read the profile"; show "$W/raw.err"; finish; }
n=$(sed -n 's/.*reader: samples=\([0-9]*\).*/\1/p' "$W/raw.txt")
if [ "${n:-0}" -ge 100 ]; then ok "$n samples"; else fail "only ${n:-0} samples in the profile"; fi

# Each site symbolized with its file:line, and the snippet's main() (main.c) in the stacks.
for f in queue_message parse_packet grow_log do_work; do
  if grep -qE "M=1 $f [^ ]*tests/docs/do_work.c:[0-9]+ " "$W/raw.txt"; then
    ok "site $f symbolized: $(grep -oE "$f [^ ]*do_work.c:[0-9]+" "$W/raw.txt" | head -n1)"
  else
    fail "no symbolized location of $f (tests/docs/do_work.c:LINE)"
  fi
done
call=$(grep -n 'do_work();' "$fw/main.c" | head -n1 | cut -d: -f1)
if grep -qE "M=1 main [^ ]*main.c:$call " "$W/raw.txt"; then
  ok "main() of the snippet at its do_work() call, main.c:$call"
else
  fail "the snippet's main (main.c:$call) is not in the stacks"
fi
pp -traces "$W/snippet.pb.gz" >"$W/traces.txt" 2>/dev/null
if awk '/-----------/ { s = "" } { s = s " " $NF } /main$/ && s ~ /queue_message do_work main/ { found = 1 } END { exit !found }' "$W/traces.txt"; then
  ok "-traces: queue_message < do_work < main"
else
  fail "-traces lacks the stack queue_message, do_work, main"; show "$W/traces.txt"
fi
if grep -q 'queue_message' "$W/top.txt" && grep -q 'in-use bytes (live at the end' "$W/top.txt"; then
  ok "--top: the live queue (queue_message) among the sites live at the end"
else
  fail "--top report"; show "$W/top.txt"
fi
finish
