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
# Then the demo's true live bytes beside drain's in-use estimate (the profile's total, read with
# go tool pprof when go is installed), where the stream was saved with the drain command that
# turns it into a timeline and a flame graph, and the commands that open the profile (pprof's web
# UI on a free local port). Paths are relative to the folder it was started from.
# Exits nonzero if QEMU, the firmware or drain fails.
set -u
[ $# -ge 4 ] || { echo "usage: $0 ELF TRANSPORT OUTDIR PROFILE [TOP]" >&2; exit 2; }
elf=$(realpath "$1"); transport=$2; out=$3; profile=$4; top=${5:-8}
drain=$(realpath "${DRAIN:-host_tools/drain}")
[ -x "$drain" ] || { echo "$0: drain not built: $drain" >&2; exit 2; }
[ -n "${BOARD_QEMU:-}" ] || { echo "$0: BOARD_QEMU is not set" >&2; exit 2; }
mkdir -p "$out" "$(dirname "$profile")"
profile=$(realpath "$profile")
start_dir=$(pwd)
rel() { realpath -m --relative-to="$start_dir" "$1"; }
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
# The truth: each site's size times its live count, from the console's truth lines (heap_in_use
# also counts the heap's block headers and alignment).
truth=$(awk '/^msamp-demo truth / { s = l = 0; for (i = 3; i <= NF; i++) { split($i, kv, "=")
  if (kv[1] == "size") s = kv[2]; if (kv[1] == "live") l = kv[2] } t += s * l; n += l }
  END { if (n) printf "%d %d", t, n }' console.txt)
if [ -n "$truth" ]; then
  est=
  if command -v go >/dev/null; then
    est=$(go tool pprof -top -sample_index=inuse_space -unit=B -nodecount=1 "$profile" 2>/dev/null |
      sed -n 's/.*% of \([0-9.]*\)B total.*/\1/p' | head -n1)
  fi
  t=${truth% *}; n=${truth#* }
  if [ -n "$est" ]; then
    echo "in use at the end: $t bytes in $n blocks, the demo's own count (heap_in_use adds the heap's headers);" \
      "$est bytes estimated from the samples ($(awk -v e="$est" -v t="$t" 'BEGIN { printf "%+.1f", (e - t) * 100 / t }') %)"
  else
    echo "in use at the end: $t bytes in $n blocks, the demo's own count (heap_in_use adds the heap's headers)"
  fi
fi
p=$(rel "$profile")
if [ -f stream.bin ]; then
  s=$(rel "$(pwd)/stream.bin")
  echo "stream: $(stat -c %s stream.bin) bytes over $transport, saved in $s; profile: $p"
  echo "timeline and flame graph:  host_tools/drain $s --elf $(rel "$elf") -o $p --timeline ${p%.pb.gz}.html --flame ${p%.pb.gz}.svg"
else
  echo "stream: $(sed -n 's/^drain stats: \([0-9]*\) bytes.*/\1/p' drain.err) bytes over $transport (read through the debugger, not saved); profile: $p"
fi
echo "open it with:  go tool pprof -http=127.0.0.1: $p     (web UI on a free local port; its graph view needs graphviz)"
echo "           or: go tool pprof -top -sample_index=alloc_space $p"
