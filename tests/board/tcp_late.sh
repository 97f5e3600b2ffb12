#!/usr/bin/env bash
# Usage: tests/board/tcp_late.sh ELF OUTDIR   (environment: BOARD_QEMU, BOARD_QEMU_TIMEOUT, DRAIN)
# A drain started after the firmware: QEMU serves the UART on a TCP port of 127.0.0.1 without
# waiting for a client (bytes before the connection are lost), and drain connects 0.4 s
# later. The in-use profile at the end must hold every live site within its bound.
set -u
elf=$(realpath "$1"); out=$2
drain=$(realpath "${DRAIN:-host_tools/drain}")
here=$(cd "$(dirname "$0")" && pwd)
limit=${BOARD_QEMU_TIMEOUT:-60}
mkdir -p "$out" && cd "$out" || exit 2
rm -f console.txt late.pb.gz drain.txt

listening() { ss -ltn 2>/dev/null | awk '{ print $4 }' | grep -q ":$1\$"; }
qemu=""
for attempt in 1 2 3 4 5; do
  port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
  listening "$port" && continue
  # shellcheck disable=SC2086  # BOARD_QEMU is a command line
  timeout "$limit" $BOARD_QEMU -serial "tcp:127.0.0.1:$port,server=on,wait=off" -kernel "$elf" \
    </dev/null >console.txt 2>&1 &
  qemu=$!
  for _ in $(seq 50); do listening "$port" && break; kill -0 "$qemu" 2>/dev/null || break; sleep 0.02; done
  listening "$port" && break
  wait "$qemu"; qemu=""
done
[ -n "$qemu" ] || { echo "FAIL: QEMU did not listen on a TCP port"; cat console.txt; exit 1; }
sleep 0.4
kill -0 "$qemu" 2>/dev/null || { echo "FAIL: the firmware ended before drain joined; make the run longer"; exit 1; }
timeout "$limit" "$drain" -q -e "$elf" -o late.pb.gz -t 8 "tcp:127.0.0.1:$port" >drain.txt 2>&1
dr=$?
wait "$qemu"; st=$?
grep -v '^msamp-demo truth' console.txt
[ "$st" = 0 ] || { echo "FAIL: QEMU exit status $st"; exit 1; }
[ "$dr" = 0 ] || { echo "FAIL: drain exit status $dr"; cat drain.txt; exit 1; }
go tool pprof -comments late.pb.gz 2>/dev/null | grep -E '^(stream losses|reader):'
late_live=$(go tool pprof -comments late.pb.gz 2>/dev/null | sed -n 's/.* late_live=\([0-9]*\).*/\1/p')
[ "${late_live:-0}" -gt 0 ] || { echo "FAIL: drain did not join late (late_live=${late_live:-none})"; exit 1; }
echo "joined late: $late_live live blocks learned from re-sends"
exec "$here/check_demo.sh" late.pb.gz console.txt symbols accuracy-inuse leak drops
