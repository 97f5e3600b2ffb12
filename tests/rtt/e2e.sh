#!/usr/bin/env bash
# Usage: tests/rtt/e2e.sh BOARD_DIR   (environment: BOARD_QEMU, BOARD_QEMU_TIMEOUT)
# The demo over SEGGER RTT, read by drain gdb: through QEMU's gdbstub on 127.0.0.1, against the
# same demo over the UART: the RTT profile passes the demo's own truth checks (check_demo.sh),
# and its per-site allocated and in-use bytes equal the UART run's for every site of the main
# loop (the workload and the sampler's seed are fixed; the timer interrupt's site varies with
# QEMU's timing and is left out). The firmware holds no "SEGGER RTT" string (a RAM scan finds only
# the live block). Prints drain's throughput through the gdbstub.
set -u
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
demo=boards/examples/demo/run_demo.sh
fail=0
elf=$dir/rtt/demo.elf
if grep -qa 'SEGGER RTT' "$elf"; then echo "FAIL: $elf holds the string \"SEGGER RTT\""; fail=1; fi
$demo "$elf" rtt "$dir/rtt/test-e2e" "$dir/rtt/test-e2e/demo.pb.gz" 8 >"$dir/rtt/test-e2e.log" 2>&1 ||
  { cat "$dir/rtt/test-e2e.log"; echo "FAIL: the demo over RTT"; exit 1; }
grep -o 'gdb RTT: .*' "$dir/rtt/test-e2e/drain.err" | sed 's/^/drain through the gdbstub: /'
"$here/../board/check_demo.sh" "$dir/rtt/test-e2e/demo.pb.gz" "$dir/rtt/test-e2e/console.txt" || fail=1
$demo "$dir/uart/demo.elf" uart "$dir/uart/test-rtt-cmp" "$dir/uart/test-rtt-cmp/demo.pb.gz" 8 >"$dir/uart/test-rtt-cmp.log" 2>&1 ||
  { cat "$dir/uart/test-rtt-cmp.log"; echo "FAIL: the demo over the UART"; exit 1; }
sites() { # PROFILE INDEX: "function bytes" per main-loop site
  go tool pprof -sample_index="$2" -top -unit=B -nodefraction=0 -nodecount=100000 "$1" 2>/dev/null |
    awk '/flat%/ { go = 1; next } go && NF >= 6 && $6 != "isr_make_packet" { v = $1; sub(/B$/, "", v); if (v + 0 != 0) s[$6] += v } END { for (f in s) print f, s[f] }' | sort
}
for t in alloc_space inuse_space alloc_objects inuse_objects; do
  r=$(sites "$dir/rtt/test-e2e/demo.pb.gz" $t); u=$(sites "$dir/uart/test-rtt-cmp/demo.pb.gz" $t)
  if [ -z "$r" ] || [ "$r" != "$u" ]; then
    echo "FAIL: $t per site differs between RTT and UART:"; paste <(echo "$r") <(echo "$u"); fail=1
  else
    echo "ok: $t per site equal over RTT and UART ($(echo "$r" | wc -l) sites)"
  fi
done
# Commands down the RTT down-buffer (docs/CONTROL.md): drain --send writes each frame into the
# down-buffer through the gdbstub, the device's msamp_poll() reads it, and its CMD_ACK comes back
# up: each acknowledged (drain reports the acks), and the demo counted the commands it carried out.
DEMO_DRAIN_ARGS="--send mark=over-rtt --send interval=8192 --send identity" \
  $demo "$elf" rtt "$dir/rtt/test-cmd" "$dir/rtt/test-cmd/demo.pb.gz" 8 >"$dir/rtt/test-cmd.log" 2>&1 ||
  { cat "$dir/rtt/test-cmd.log"; echo "FAIL: the demo over RTT with commands"; exit 1; }
for c in mark=over-rtt interval=8192 identity; do
  if grep -F "command '$c' (seq " "$dir/rtt/test-cmd/drain.err" "$dir/rtt/test-cmd/drain.txt" 2>/dev/null |
      grep -qF "acknowledged: ok"; then
    echo "ok: '$c' sent down RTT and acknowledged"
  else
    echo "FAIL: no ack for '$c' over RTT:"; cat "$dir/rtt/test-cmd/drain.err"; fail=1
  fi
done
grep -q 'msamp-demo control.*commands[= ]*[1-9]' "$dir/rtt/test-cmd/console.txt" ||
  { echo "FAIL: the demo counted no command:"; grep 'msamp-demo control' "$dir/rtt/test-cmd/console.txt"; fail=1; }
exit $fail
