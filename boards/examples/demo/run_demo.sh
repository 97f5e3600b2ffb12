#!/usr/bin/env bash
# Usage: boards/examples/demo/run_demo.sh ELF TRANSPORT OUTDIR PROFILE [TOP]
# Runs the demo firmware under QEMU ($BOARD_QEMU, at most $BOARD_QEMU_TIMEOUT s) and drains its
# stream into PROFILE (gzip pprof) with $DRAIN (default host_tools/drain), printing the top TOP
# sites (default 8) by in-use and by allocated bytes and the pprof command to open the profile.
#   uart:         the UART goes straight into drain through a FIFO (QEMU -serial file:FIFO);
#                 a copy is kept in OUTDIR/stream.bin.
#   semihosting:  the firmware writes OUTDIR/stream.bin on the host; drain reads it afterwards.
#   rtt:          QEMU starts stopped with its gdbstub on 127.0.0.1 (a free port, in OUTDIR/gdb.port)
#                 and drain gdb:127.0.0.1:PORT lets it run and reads the SEGGER RTT up-buffer
#                 through it (docs/RTT.md); no stream.bin (drain --stats in drain.err).
#                 DEMO_DRAIN_ARGS: more drain options for this transport (--send CMD: the
#                 commands go down the RTT down-buffer).
# QEMU's stdout and stderr, where the board console goes (the demo's truth table and counters,
# via semihosting on boards that have it), are kept in OUTDIR/console.txt.
# Exits nonzero if QEMU, the firmware or drain fails.
set -u
[ $# -ge 4 ] || { echo "usage: $0 ELF TRANSPORT OUTDIR PROFILE [TOP]" >&2; exit 2; }
elf=$(realpath "$1"); transport=$2; out=$3; profile=$4; top=${5:-8}
drain=$(realpath "${DRAIN:-host_tools/drain}")
[ -x "$drain" ] || { echo "$0: drain not built: $drain" >&2; exit 2; }
[ -n "${BOARD_QEMU:-}" ] || { echo "$0: BOARD_QEMU is not set" >&2; exit 2; }
mkdir -p "$out" "$(dirname "$profile")"
profile=$(realpath "$profile")
rm -f "$out/stream.bin" "$out/console.txt" "$profile"
limit=${BOARD_QEMU_TIMEOUT:-60}
cd "$out" || exit 2

# shellcheck disable=SC2086  # BOARD_QEMU is a command line
case "$transport" in
  uart)
    # The UART goes into a FIFO that tee copies to stream.bin and drain reads live; QEMU's own
    # stdout and stderr (the board console) go to console.txt.
    rm -f uart.fifo && mkfifo uart.fifo || exit 2
    timeout "$limit" tee stream.bin <uart.fifo |
      timeout "$limit" "$drain" -q -e "$elf" -o "$profile" --json "${profile%.pb.gz}.json" -t "$top" - >drain.txt 2>drain.err &
    reader=$!
    timeout "$limit" $BOARD_QEMU -serial file:uart.fifo -kernel "$elf" </dev/null >console.txt 2>&1
    qemu=$?
    [ "$qemu" = 0 ] || { exec 3<>uart.fifo; exec 3>&-; } # unblock tee if QEMU never opened the FIFO
    wait "$reader"
    dr=$?
    rm -f uart.fifo
    ;;
  semihosting)
    timeout "$limit" $BOARD_QEMU -serial null -kernel "$elf" </dev/null >console.txt 2>&1
    qemu=$?
    dr=1
    echo "no stream file written" >drain.err
    [ -f stream.bin ] && { timeout "$limit" "$drain" -q -e "$elf" -o "$profile" --json "${profile%.pb.gz}.json" -t "$top" stream.bin >drain.txt 2>drain.err; dr=$?; }
    ;;
  rtt)
    # A free port: QEMU fails at once on a port in use, and another is tried.
    qemu=1; dr=1
    for try in 1 2 3 4 5 6 7 8; do
      port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
      timeout "$limit" $BOARD_QEMU -serial null -gdb tcp:127.0.0.1:$port -S -kernel "$elf" \
        </dev/null >console.txt 2>&1 &
      qpid=$!
      up=0
      for _ in $(seq 200); do
        kill -0 "$qpid" 2>/dev/null || break
        # listening on 127.0.0.1:PORT (state 0A), read from /proc: no tool needed
        if grep -q "0100007F:$(printf %04X "$port") 00000000:0000 0A" /proc/net/tcp; then up=1; break; fi
        sleep 0.02
      done
      [ $up = 1 ] && break
      wait "$qpid"
    done
    if [ $up = 1 ]; then
      echo "$port" >gdb.port
      # shellcheck disable=SC2086  # DEMO_DRAIN_ARGS: more drain options (--send CMD ...)
      timeout "$limit" "$drain" -q --stats -e "$elf" -o "$profile" --json "${profile%.pb.gz}.json" -t "$top" ${DEMO_DRAIN_ARGS:-} \
        gdb:127.0.0.1:$port >drain.txt 2>drain.err
      dr=$?
      # drain gone early: a stopped QEMU would wait for its timeout
      [ "$dr" = 0 ] || kill "$qpid" 2>/dev/null
      wait "$qpid"
      qemu=$?
    else
      echo "no free port for QEMU's gdbstub (or QEMU failed):" >drain.err; cat console.txt >>drain.err
    fi
    ;;
  *) echo "$0: unknown transport '$transport'" >&2; exit 2 ;;
esac

grep -v '^msamp-demo truth' console.txt
if [ "$qemu" != 0 ]; then
  echo "demo: the firmware failed (QEMU exit status $qemu; 124 = timeout after $limit s)" >&2
  exit 1
fi
if [ "$dr" != 0 ]; then
  echo "demo: drain failed (exit status $dr):" >&2
  cat drain.err >&2
  exit 1
fi
cat drain.txt
if [ -f stream.bin ]; then
  echo "stream: $(stat -c %s stream.bin) bytes over $transport; profile: $profile"
else
  echo "stream: $(sed -n 's/^drain stats: \([0-9]*\) bytes.*/\1/p' drain.err) bytes over $transport; profile: $profile"
fi
echo "open it with:  go tool pprof -http=127.0.0.1:8080 $profile"
echo "           or: go tool pprof -top -sample_index=alloc_space $profile"
