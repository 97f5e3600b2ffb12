#!/usr/bin/env bash
# Usage: tests/docs/output.sh FILE...   (test docs-output)
# The docs' examples of output and usage, annotated doc-test: docs-output: every line of each must
# have the shape of a line the tools print here (tests/docs/lib.sh norm: numbers, addresses,
# strings, file names and the interval's reasons aside; "host_tools/" and "usage: " dropped), from:
#   drain --help; drain on generated streams of a device that adapts its interval ($BUILD/drain/gen
#   --adapt, raises only and raises and lowers): its summary line, --top report and the profile's
#   comments (go tool pprof -comments); the demo firmware's console under QEMU
#   ($DEMO_ELF, qemu-virt-aarch64); msamp-dump over every golden vector and over the demo's stream
#   with 37 bytes cut out of its middle (loss lines). And a FILE named DRAIN.md must name, in its
#   Synopsis, every option drain --help gives.
# A line no run here prints (e.g. drain's "... and N more interval changes", past 64 changes)
# passes only when its text is the tool's own (host_tools' or the demo's sources), said so.
. "$(dirname "$0")/lib.sh"
[ -n "${BOARD_QEMU:-}" ] && [ -n "${DEMO_ELF:-}" ] && [ -n "${GEN:-}" ] || { echo "BOARD_QEMU, DEMO_ELF, GEN must be set" >&2; exit 2; }
real=$W/real.txt
: >"$real"
D=host_tools/drain

$D --help >>"$real" 2>&1
for args in "--adapt 2048 --allocs 200000" "--adapt 2048 --allocs 200000 --release-leaks"; do
  # shellcheck disable=SC2086
  "$GEN" $args "$W/g.bin" "$W/g.truth" || fail "gen $args"
  $D -o "$W/g.pb.gz" --top 5 "$W/g.bin" >>"$real" 2>>"$real" || fail "drain on gen $args"
  pp -comments "$W/g.pb.gz" >>"$real" 2>/dev/null || fail "go tool pprof -comments"
done
BOARD_QEMU_TIMEOUT=60 boards/qemu_run.sh "$DEMO_ELF" uart "$W/demo" >"$W/demo.log" 2>&1 || { fail "demo run"; show "$W/demo.log"; }
cat "$W/demo/console.txt" >>"$real"
for v in tests/vectors/*.bin; do host_tools/msamp-dump "$v" >>"$real" || fail "msamp-dump $v"; done
s=$W/demo/stream.bin
half=$(($(stat -c %s "$s") / 2))
{ head -c "$half" "$s"; tail -c +$((half + 38)) "$s"; } >"$W/cut.bin"
host_tools/msamp-dump "$W/cut.bin" >>"$real"
grep -q '^# loss bytes=' "$real" || fail "msamp-dump printed no loss line for the cut stream"
note "$(wc -l <"$real") lines of real output"

# drain's manual names every option drain --help does, in its Synopsis (the usage lines, then
# the options line).
for f in "$@"; do
  case "$f" in */DRAIN.md | DRAIN.md) ;; *) continue ;; esac
  syn=$(awk '/^## Synopsis/ { on = 1; next } /^## / { on = 0 } on' "$f")
  opts=$($D --help 2>&1 | grep -oE -- '--[a-z][a-z-]+' | sort -u)
  opts="$opts $($D --help 2>&1 | sed -nE 's/^  (-[a-zA-Z]), --.*/\1/p')"
  missing=
  for o in $opts; do
    grep -qE -- "(^|[\`/ ])$o([\` ]|\$)" <<<"$syn" || missing="$missing $o"
  done
  [ -z "$missing" ] && ok "$f: its Synopsis names every option of drain --help ($(wc -w <<<"$opts"))" ||
    fail "$f: its Synopsis lacks options drain --help names:$missing"
done

for f in "$@"; do
  i=0
  while :; do
    i=$((i + 1))
    "$here/extract.sh" -n "$f" "$TEST" | awk -F'\t' -v k=$i '
      NR == 1 || $1 != last + 1 { b++ } { last = $1 } b == k { print substr($0, length($1) + 2) }' >"$W/example.txt"
    [ -s "$W/example.txt" ] || break
    first=$("$here/extract.sh" -n "$f" "$TEST" | awk -F'\t' -v k=$i 'NR == 1 || $1 != last + 1 { b++ } { last = $1 } b == k { print $1; exit }')
    shape_check "$f:$first" "$W/example.txt" "$real" host_tools/src host_tools/lib boards/examples
  done
  [ $i -gt 1 ] || fail "$f: no block annotated doc-test: $TEST"
done
finish
