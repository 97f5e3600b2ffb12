#!/usr/bin/env bash
# Usage: tests/drain/t_listen_qemu.sh ELF   (environment: DRAIN, BOARD_QEMU, BOARD_QEMU_TIMEOUT)
# QEMU's UART as a TCP client (-serial tcp:127.0.0.1:PORT, no "server") into drain
# tcp-listen:127.0.0.1:0: drain listens first and says where, QEMU connects at start, the demo
# firmware runs to its end, QEMU closes the connection and drain ends by itself (exit 0). The
# profile is checked against the firmware's truth like the board tests' (tests/board/check_demo.sh:
# symbols, accuracy, leak, interrupt stacks, drop counters, build-id). Then the same firmware with
# its UART connected nowhere (-serial null) and drain listening: nothing arrives, SIGINT: exit 4.
set -u
elf=$(realpath "$1")
drain=$(realpath "${DRAIN:-host_tools/drain}")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
limit=${BOARD_QEMU_TIMEOUT:-60}
out=$(dirname "$elf")/test-drain-listen
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 2
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }

# listening ERRFILE: waits for drain's "listening on" line; sets port.
listening() {
  port=""
  for _ in $(seq 100); do
    port=$(sed -n 's/^drain: listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$1")
    [ -n "$port" ] && return 0
    sleep 0.05
  done
  fail "drain: no 'listening on' line"; cat "$1"; kill $dpid; exit 1
}

"$drain" -e "$elf" -o q.pb.gz -t 8 tcp-listen:127.0.0.1:0 >drain.txt 2>drain.err &
dpid=$!
listening drain.err
ok "drain listening on 127.0.0.1:$port"
# shellcheck disable=SC2086  # BOARD_QEMU is a command line
timeout "$limit" $BOARD_QEMU -serial "tcp:127.0.0.1:$port" -kernel "$elf" </dev/null >console.txt 2>&1
st=$?
[ $st = 0 ] && ok "QEMU (UART as a TCP client) exit 0" || { fail "QEMU exit status $st"; cat console.txt; }
for _ in $(seq $((limit * 10))); do kill -0 $dpid 2>/dev/null || break; sleep 0.1; done
kill -0 $dpid 2>/dev/null && { fail "drain still running after QEMU ended"; kill -KILL $dpid; }
wait $dpid
dr=$?
[ $dr = 0 ] && ok "drain ended with the connection, exit 0" || { fail "drain exit status $dr"; cat drain.err; }
grep -q 'connection 1 from 127.0.0.1:' drain.err && ok "$(grep 'connection 1' drain.err)" ||
  fail "no connection line"
grep -q 'wrote q.pb.gz' drain.err && ok "drain: $(grep -o 'session 1 ([^:]*): [0-9]* samples' drain.err)" ||
  fail "no profile written"
"$root/tests/board/check_demo.sh" q.pb.gz console.txt || fail "check_demo.sh"

# The UART going nowhere: drain hears nothing; SIGINT ends it with 4 and no profile.
"$drain" -q -e "$elf" -o silent.pb.gz tcp-listen:127.0.0.1:0 2>silent.err &
dpid=$!
listening silent.err
# shellcheck disable=SC2086
timeout "$limit" $BOARD_QEMU -serial null -kernel "$elf" </dev/null >silent-console.txt 2>&1
kill -INT $dpid
wait $dpid
dr=$?
[ $dr = 4 ] && grep -q 'no connection came' silent.err && [ ! -e silent.pb.gz ] &&
  ok "UART not connected: exit 4, $(grep -m1 'no data' silent.err | cut -c1-100)" || { fail "UART not connected: exit $dr"; cat silent.err; }
[ $nfail = 0 ] && echo "t_listen_qemu: all passed" || echo "t_listen_qemu: $nfail failure(s)"
[ $nfail = 0 ]
