#!/usr/bin/env bash
# drain's gdb: input against a fake GDB server (tests/rtt/fake_gdb.py), drain built with ASan and
# UBSan ($DRAIN). A stream with known content (gen) goes through the fake target's RTT up-buffer:
#   good, noack  the folded stacks drain writes equal those it writes from the stream file itself
#                (acknowledged packets with run-length encoded replies; no-ack mode)
#   close        the server closes mid-packet: the input ends, drain writes what it read (exit 0)
#   badsum, absurd, changed, wroff, nonhex, silent, nostop, noblock, hugepkt: a clear message,
#                exit status 1, no sanitizer report
#   down         input_write (drain's commands): the bytes land in the down-buffer with its WrOff;
#                a full down-buffer is an error after 1 s (tests/rtt/t_down.c)
#   block        input_write to a firmware whose up-writes block (it reads its commands only once
#                what it made went out): the write reads the up-channel as it waits, all 200 bytes
#                are taken and the stream read after is whole (t_down.c)
#   bad command lines: gdb: without a port, without --elf or --rtt-scan, a bad --rtt-scan (exit 2)
set -u
: "${DRAIN:?}" "${T:?}" "${GEN:?}" "${DOWN:?}"
here=$(cd "$(dirname "$0")" && pwd)
dir=$T/gdb
rm -rf "$dir" && mkdir -p "$dir"
"$GEN" --allocs 20000 --sites 9 "$dir/s.bin" "$dir/truth.txt" >/dev/null || exit 1
"$DRAIN" -q -o "$dir/file.pb.gz" -s "$dir/file.folded" "$dir/s.bin" || { echo "FAIL: drain on the file"; exit 1; }
fail=0
# One fake server process, a port per mode (python starts slowly).
modes="down block good noack close badsum absurd changed wroff nonhex silent nostop hugepkt noblock"
# shellcheck disable=SC2086
python3 "$here/fake_gdb.py" "$dir/s.bin" "$dir/ports" $modes &
srv=$!
trap 'kill $srv 2>/dev/null' EXIT
for _ in $(seq 400); do [ -s "$dir/ports" ] && break; sleep 0.05; done
[ -s "$dir/ports" ] || { echo "FAIL: the fake GDB server did not start"; exit 1; }
# run MODE: runs drain on the fake server's MODE port; sets rc, leaves drain's stderr in $dir/MODE.err
run() {
  local m=$1; shift
  local port; port=$(sed -n "s/^$m //p" "$dir/ports")
  timeout 30 "$DRAIN" -q -o "$dir/$m.pb.gz" -s "$dir/$m.folded" --rtt-scan 0x20000000:0x3000 "$@" \
    "gdb:127.0.0.1:$port" 2>"$dir/$m.err"
  rc=$?
  if grep -q 'Sanitizer' "$dir/$m.err"; then echo "FAIL: $m: sanitizer report:"; cat "$dir/$m.err"; fail=1; fi
}
"$DOWN" "$(sed -n 's/^down //p' "$dir/ports")" "$dir/ports.down" || fail=1
"$DOWN" "$(sed -n 's/^block //p' "$dir/ports")" "$dir/ports.block" "$dir/s.bin" || fail=1
for m in good noack; do
  run $m --stats
  if [ $rc != 0 ] || ! cmp -s "$dir/file.folded" "$dir/$m.folded"; then
    echo "FAIL: $m: exit $rc, folded stacks differ from the file's:"; cat "$dir/$m.err"; fail=1
  else
    echo "ok: $m: $(grep -o 'gdb RTT: .*' "$dir/$m.err")"
  fi
done
run close
if [ $rc != 0 ] || [ ! -s "$dir/close.pb.gz" ] || [ ! -s "$dir/close.folded" ]; then
  echo "FAIL: close: exit $rc:"; cat "$dir/close.err"; fail=1
else
  echo "ok: close: the input ended, the profile of what was read written"
fi
expect_err() { # MODE PATTERN
  run "$1"
  if [ $rc != 1 ] || ! grep -Eq "$2" "$dir/$1.err"; then
    echo "FAIL: $1: exit $rc (1 expected), message /$2/ expected:"; cat "$dir/$1.err"; fail=1
  else
    echo "ok: $1: $(grep -E "$2" "$dir/$1.err" | head -1)"
  fi
}
expect_err badsum '5 packets in a row with a bad checksum'
expect_err absurd 'corrupted.*up-buffer.*out of range'
expect_err changed 'corrupted.*changed'
expect_err wroff 'corrupted.*beyond'
expect_err nonhex 'non-hex'
expect_err silent 'no GDB server answered|no reply'
expect_err nostop 'did not stop'
expect_err hugepkt 'over 65536 bytes'
# noblock: drain gives up after DRAIN_RTT_WAIT seconds (15 by default)
DRAIN_RTT_WAIT=1 expect_err noblock 'no RTT control block'
# command lines
usage() { # expected-pattern args...
  local pat=$1; shift
  "$DRAIN" -q "$@" >"$dir/u.out" 2>"$dir/u.err"; local r=$?
  if [ $r != 2 ] || ! grep -Eq "$pat" "$dir/u.err"; then
    echo "FAIL: drain $*: exit $r (2 expected), /$pat/:"; cat "$dir/u.err"; fail=1
  else
    echo "ok: drain $*: $(head -1 "$dir/u.err")"
  fi
}
usage 'expected gdb:HOST:PORT' gdb:localhost
usage 'where is the RTT control block' gdb:127.0.0.1:1
usage 'expected ADDR:SIZE' --rtt-scan 0x100 gdb:127.0.0.1:1
usage 'expected ADDR:SIZE' --rtt-scan 0x100:zz gdb:127.0.0.1:1
"$DRAIN" -q --rtt-scan 0x0:0x100 gdb:127.0.0.1:1 2>"$dir/refused.err"; r=$?
if [ $r != 1 ] || ! grep -q 'refused' "$dir/refused.err"; then
  echo "FAIL: a refused connection: exit $r:"; cat "$dir/refused.err"; fail=1
fi
exit $fail
