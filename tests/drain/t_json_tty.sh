#!/usr/bin/env bash
# drain's JSON on a terminal (docs/DRAIN.md "Faults"): `--json -` to a line-buffered stdout (a
# pseudo-terminal from script(1)) and to an unbuffered one (stdbuf -o0), by the ASan+UBSan build:
# the same bytes as through a pipe, and no memory error. drain's JSON writer copies short pieces
# into glibc's stream buffer itself; a line-buffered stream keeps its write end behind its write
# pointer, which a size difference would have read as room (a heap overflow, found in review).
# Two runs: the JSON alone, and the JSON after --top's table on the same stdout.
set -eu
: "${DRAIN:?} ${T:?}"
W=$T/json-tty
rm -rf "$W" && mkdir -p "$W"
fail() { echo "FAIL: $*"; exit 1; }
"$T/gen" --interval 64 --allocs 20000 --sites 300 "$W/s.bin" /dev/null > /dev/null
n=0
for what in json top; do
  case $what in
    json) args=("$W/s.bin" -q -o "$W/x.pb.gz" --json -) ;;
    top) args=("$W/s.bin" -o "$W/x.pb.gz" --top 5 --json -) ;;
  esac
  "$DRAIN" "${args[@]}" > "$W/$what.pipe" 2> "$W/$what.pipe.err" || true
  [ -s "$W/$what.pipe" ] || { cat "$W/$what.pipe.err"; fail "$what: no JSON through a pipe"; }
  [ $what = top ] || python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$W/$what.pipe" ||
    fail "$what: the JSON through a pipe does not parse"
  # A terminal: line-buffered stdout. script(1) writes the pty's output, \r\n for \n.
  cmd=$(printf '%q ' "$DRAIN" "${args[@]}")
  script -qec "$cmd 2> $W/$what.tty.err" /dev/null > "$W/$what.tty" || true
  grep -q "AddressSanitizer\|runtime error" "$W/$what.tty.err" "$W/$what.tty" &&
    { head -20 "$W/$what.tty.err"; fail "$what: a memory error writing JSON to a terminal"; }
  tr -d '\r' < "$W/$what.tty" | cmp -s - "$W/$what.pipe" ||
    fail "$what: the JSON on a terminal differs from the pipe's"
  # Unbuffered stdout (stdbuf preloads its library: ASan is told not to mind the order).
  ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0 stdbuf -o0 "$DRAIN" "${args[@]}" > "$W/$what.unbuf" 2> "$W/$what.unbuf.err" || true
  grep -q "AddressSanitizer\|runtime error" "$W/$what.unbuf.err" &&
    { head -20 "$W/$what.unbuf.err"; fail "$what: a memory error writing JSON unbuffered"; }
  cmp -s "$W/$what.unbuf" "$W/$what.pipe" || fail "$what: unbuffered JSON differs from the pipe's"
  n=$((n + 1))
done
echo "drain-json-tty: $n runs' --json - on a terminal and unbuffered equal to a pipe's, no memory error"
