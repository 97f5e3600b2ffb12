# Sourced by the benchmarks that count instructions under QEMU (bench.sh, bench_thin.sh).
# qemu_trace_start ELF: makes $dir (removed at exit) with a FIFO $dir/trace, and starts the firmware
# under $BOARD_QEMU with one instruction per translation block and its execution trace into the
# FIFO, the console in $dir/console.txt; $qemu is its pid. The caller reads the FIFO, then waits.
qemu_trace_start() {
  [ -n "${BOARD_QEMU:-}" ] || { echo "$0: BOARD_QEMU is not set" >&2; exit 2; }
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  mkfifo "$dir/trace"
  # shellcheck disable=SC2086  # BOARD_QEMU is a command line
  timeout 300 $BOARD_QEMU -serial null -singlestep -d exec,nochain -D "$dir/trace" -kernel "$1" \
    >"$dir/console.txt" 2>&1 &
  qemu=$!
}
