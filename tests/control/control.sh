#!/usr/bin/env bash
# Usage: tests/control/control.sh OUTDIR BOARD...   (environment: DRAIN, DUMP; OUTDIR holds each
# board's BOARD.board line "BOARD|BOARD_DIR|BOARD_QEMU" and control_app)
# The down-channel end to end, every case at once:
#   uart-BOARD   the demo (demo-long) over its UART, served by QEMU on a unix socket, through
#                proxy.py (which sends 3 malformed frames first and keeps a copy of the stream);
#                drain --send ... plus one command on its stdin (a pipe: --send-stdin; a terminal is read without it). Checks: each command acked
#                with the status expected, the device counted 3 malformed frames, the MARKs, the
#                INTERVAL and (full profile) a SNAP_BEGIN after the snapshot's ack are in the stream,
#                and drain says the interval was set by a command from the host (not the application).
#   paced-BOARD  the first board's UART as a 115200-baud link: proxy.py --pace 11520 queues the
#                device's bytes (its stream runs seconds ahead of its acks) and forces resends: it
#                holds the 3rd command's first frame 1.5 s (the device sees later ones first) and
#                sends the disable's frame again 3 s after it passed (after the enable); the
#                interval pinned at 16384 keeps the stream dense. Run alone, after the others (a
#                device slowed by 4 other QEMUs would not fill the link). Checks:
#                the device carried out exactly the 9 commands drain sent (commands=9), each once
#                and in order (the MARKs p1..p4, "typed line" in the stream once each, in order),
#                it ends enabled as the last enable/disable asked, it refused (held) and repeated
#                (duplicated) frames, and every command was acknowledged ok.
#   semihosting  the demo on the first board over semihosting: drain -F follows stream.bin and
#                appends its frames to msamp.cmd (--send-file), after 3 malformed frames there.
#   hosted       control_app (single-threaded: no writer thread) with MSAMP_CONTROL=ctl.fifo: drain -F
#                stream.bin --send-file ctl.fifo, after 3 malformed frames written to the FIFO.
set -u
out=$(realpath "$1"); shift
here=$(cd "$(dirname "$0")" && pwd)
drain=$(realpath "${DRAIN:-host_tools/drain}")
dump=$(realpath "${DUMP:-host_tools/msamp-dump}")
limit=30

fail() { echo "FAIL [$case]: $*"; for f in drain.txt console.txt app.txt; do [ -f "$f" ] && sed "s/^/  $f: /" "$f" | grep -v 'msamp-demo truth' | tail -n 15; done; exit 1; }
acked() { grep -qF "command '$1' (seq " drain.txt && grep "command '$1' (seq " drain.txt | grep -qF "acknowledged: $2" || fail "no ack '$2' for $1"; }
# The device's counters (demo console line "msamp-demo control ..." or control_app's "control ...").
counter() { sed -n "s/.*control .*\b$1=\([0-9]*\).*/\1/p" "$2" | tail -n 1; }
listing() { "$dump" stream.bin 2>/dev/null; }

# A board's UART: QEMU on a unix socket, proxy.py, drain. $1 board, $2 dir, $3 qemu, then drain's --send options.
uart_case() {
  local board=$1 dir=$2 qemu=$3; shift 3
  case=${case_name:-uart}-$board
  mkdir -p "$out/$case" && cd "$out/$case" || exit 2
  rm -f uart.sock port stream.bin drain.txt console.txt
  # shellcheck disable=SC2086  # qemu is a command line
  timeout "$limit" $qemu -serial unix:uart.sock,server=on,wait=on -kernel "$dir/uart/demo-long.elf" \
    </dev/null >console.txt 2>&1 &
  local q=$!
  # shellcheck disable=SC2086  # the proxy's options are words
  timeout "$limit" python3 "$here/proxy.py" uart.sock port stream.bin ${proxy_opts:-} &
  local p=$!
  for _ in $(seq 250); do [ -s port ] && break; sleep 0.02; done
  [ -s port ] || fail "proxy did not listen"
  printf 'mark=typed line\n' | timeout "$limit" "$drain" -q -o heap.pb.gz --send-stdin "$@" "tcp:127.0.0.1:$(cat port)" 2>drain.txt
  local dr=$?
  wait "$q"; local st=$?
  wait "$p"
  [ "$st" = 0 ] || fail "QEMU exit status $st"
  [ "$dr" = 0 ] || fail "drain exit status $dr"
  grep -q 'msamp-demo done' console.txt || fail "the demo did not finish"
}

# Checks common to every case: marks, interval, acks in the stream, 3 malformed frames counted.
common_checks() { # $1 file with the device's counters, $2 commands expected carried out
  local n bad
  bad=$(counter bad "$1"); n=$(counter commands "$1")
  [ "${bad:-x}" = 3 ] || fail "device counted bad=${bad:-none} malformed frames, expected 3"
  [ "${n:-0}" -ge "$2" ] || fail "device carried out commands=${n:-none}, expected $2"
  listing >listing.txt
  grep -q '^INTERVAL interval=65536 ' listing.txt || fail "no INTERVAL interval=65536 in the stream"
  [ "$(grep -c '^CMD_ACK ' listing.txt)" -ge "$2" ] || fail "fewer than $2 CMD_ACK records in the stream"
  # drain tells the interval the command set from one the application set (its ack came next).
  "$drain" -q -o top.pb.gz --top 1 stream.bin >top.txt 2>/dev/null
  grep -q '^sampling: .*[^0-9]1 set by a command from the host' top.txt && ! grep -q 'set by the application' top.txt ||
    fail "the interval command's change not said to be the host's: $(grep '^sampling' top.txt)"
}

run_uart() { # board dir qemu
  local board=$1 dir=$2 qemu=$3
  case $board in
    qemu-mps2-an385) # the tiny profile: no snapshot passes
      uart_case "$board" "$dir" "$qemu" --send mark=cmsdk --send snapshot --send interval=65536 --send identity
      acked snapshot "unsupported in this build"
      acked mark=cmsdk ok; acked interval=65536 ok; acked identity ok; acked "mark=typed line" ok
      common_checks console.txt 5
      grep -q '^MARK text="cmsdk"' listing.txt || fail "no MARK cmsdk" ;;
    *)
      uart_case "$board" "$dir" "$qemu" --send snapshot --send mark=uart --send interval=65536 --send identity \
        --send disable --send enable --send bounds=4096:1048576
      for c in snapshot mark=uart interval=65536 identity disable enable bounds=4096:1048576 "mark=typed line"; do
        acked "$c" ok
      done
      [ "$(counter enabled console.txt)" = 1 ] || fail "sampling not enabled again"
      common_checks console.txt 8
      grep -q '^MARK text="uart"' listing.txt || fail "no MARK uart"
      # The snapshot's pass: a SNAP_BEGIN follows its ack.
      awk '/^CMD_ACK .* cmd=5 status=0/ { a = 1 } a && /^SNAP_BEGIN/ { ok = 1 } END { exit !ok }' listing.txt ||
        fail "no SNAP_BEGIN after the snapshot's ack" ;;
  esac
  grep -q '^MARK text="typed line"' listing.txt || fail "the command typed on stdin left no MARK"
  echo "ok $case: $(grep -c '^CMD_ACK' listing.txt) acks, bad=3 counted"
}

run_paced() { # board dir qemu
  case_name=paced proxy_opts="--pace 11520 --hold 3:1.5 --dup 2:3 --log proxy.txt" \
    uart_case "$1" "$2" "$3" --send mark=p1 --send disable --send mark=p2 --send enable \
    --send mark=p3 --send bounds=16384:16384 --send mark=p4 --send identity
  for c in mark=p1 disable mark=p2 enable mark=p3 bounds=16384:16384 mark=p4 identity "mark=typed line"; do
    acked "$c" ok
  done
  # What the link did: the stream queued >= 1 s ahead, one frame held, one sent twice.
  grep -q 'held=1 dup=1' proxy.txt || fail "the proxy did not force the resends: $(cat proxy.txt)"
  awk '{ split($4, q, "="); exit !(q[2] >= 1.0) }' proxy.txt ||
    fail "the stream did not queue a second ahead: $(cat proxy.txt)"
  local n rep ref bad
  bad=$(counter bad console.txt)
  [ "${bad:-x}" = 3 ] || fail "device counted bad=${bad:-none} malformed frames, expected 3"
  listing >listing.txt
  n=$(counter commands console.txt); rep=$(counter repeated console.txt); ref=$(counter refused console.txt)
  [ "$n" = 9 ] || fail "the device carried out commands=$n, drain sent 9 (a command run twice or lost)"
  local marks
  marks=$(sed -n 's/^MARK text="\([^"]*\)".*/\1/p' listing.txt | tr '\n' '|')
  [ "$marks" = "p1|p2|p3|p4|typed line|" ] || fail "MARKs out of order or repeated: $marks"
  [ "$(counter enabled console.txt)" = 1 ] || fail "the device ended disabled; the last command was enable"
  [ "${rep:-0}" -ge 1 ] || fail "the duplicated frame was not acknowledged as a repeat (repeated=${rep:-none})"
  [ "${ref:-0}" -ge 1 ] || fail "no frame refused as out of order (refused=${ref:-none})"
  echo "ok $case: 9 commands once each in order; $(cat proxy.txt); repeated=$rep refused=$ref"
}

run_semihosting() { # board dir qemu
  local dir=$2 qemu=$3
  case=semihosting-$1
  mkdir -p "$out/$case" && cd "$out/$case" || exit 2
  rm -f stream.bin msamp.cmd drain.txt console.txt
  # shellcheck disable=SC2086
  timeout "$limit" $qemu -serial null -kernel "$dir/semihosting/demo-long.elf" </dev/null >console.txt 2>&1 &
  local q=$!
  # The firmware creates msamp.cmd at msamp_init() and skips what it holds then (commands of an
  # earlier run): what comes after is read. Its run is short (about 1 s of wall time): no waiting.
  for _ in $(seq 500); do [ -e msamp.cmd ] && break; sleep 0.01; done
  [ -e msamp.cmd ] || fail "the firmware did not create msamp.cmd"
  sleep 0.05
  cat "$out/garbage.bin" >>msamp.cmd
  timeout "$limit" "$drain" -q -F -o heap.pb.gz --send-file msamp.cmd --send mark=semi \
    --send interval=65536 stream.bin </dev/null 2>drain.txt &
  local d=$!
  wait "$q"; local st=$?
  for _ in $(seq 100); do [ "$(grep -c 'acknowledged' drain.txt)" -ge 2 ] && break; sleep 0.05; done
  kill -INT "$d"; wait "$d"; local dr=$?
  [ "$st" = 0 ] || fail "QEMU exit status $st"
  [ "$dr" = 0 ] || fail "drain exit status $dr"
  acked mark=semi ok; acked interval=65536 ok
  common_checks console.txt 2
  grep -q '^MARK text="semi"' listing.txt || fail "no MARK semi"
  echo "ok $case: $(grep -c '^CMD_ACK' listing.txt) acks, bad=3 counted"
}

run_hosted() {
  case=hosted
  mkdir -p "$out/$case" && cd "$out/$case" || exit 2
  rm -f stream.bin ctl.fifo drain.txt app.txt
  mkfifo ctl.fifo
  MSAMP_OUTPUT=stream.bin MSAMP_CONTROL=ctl.fifo MSAMP_INTERVAL=4096 timeout "$limit" "$out/control_app" 3 3 >app.txt 2>&1 &
  local a=$!
  python3 -c "
import os, sys, time, zlib
body = bytes([1, 0x42, 0x42, 5]); body += (zlib.crc32(body) ^ 1).to_bytes(4, 'little')
junk = b'\x05junk\x00' + bytes(range(1, 256)) * 2 + b'\x00' + bytes([len(body) + 1]) + body + b'\x00'
for _ in range(750):  # the program opens the FIFO at its first poll (15 s: a loaded machine)
    try:
        fd = os.open('ctl.fifo', os.O_WRONLY | os.O_NONBLOCK); break
    except OSError:
        time.sleep(0.02)
else:
    sys.exit('no reader on ctl.fifo')
os.write(fd, junk)" || fail "could not write to ctl.fifo"
  timeout "$limit" "$drain" -q -F -o heap.pb.gz --send-file ctl.fifo --send mark=hosted \
    --send interval=65536 --send identity stream.bin </dev/null 2>drain.txt &
  local d=$!
  wait "$a"; local st=$?
  for _ in $(seq 100); do [ "$(grep -c 'acknowledged' drain.txt)" -ge 3 ] && break; sleep 0.05; done
  kill -INT "$d"; wait "$d"; local dr=$?
  [ "$st" = 0 ] || fail "control_app exit status $st"
  [ "$dr" = 0 ] || fail "drain exit status $dr"
  for c in mark=hosted interval=65536 identity; do acked "$c" ok; done
  common_checks app.txt 3
  [ "$(counter interval app.txt)" = 65536 ] || fail "the program's interval is not 65536"
  grep -q '^MARK text="hosted"' listing.txt || fail "no MARK hosted"
  echo "ok $case: $(grep -c '^CMD_ACK' listing.txt) acks, bad=3 counted"
}

# The 3 malformed frames of proxy.py, for the semihosting file (written at once: a python started
# while the firmware runs lands too late in its short run).
python3 -c "
import sys
sys.argv = ['x', '', '', '']
exec(open('$here/proxy.py').read().split('lst = socket')[0])
sys.stdout.buffer.write(GARBAGE)" >"$out/garbage.bin" || { echo "FAIL: garbage.bin"; exit 2; }
pids=() names=()
first=""
for b in "$@"; do
  IFS='|' read -r board dir qemu <"$out/$b.board" || { echo "FAIL: no $out/$b.board"; exit 2; }
  dir=$(realpath "$dir")
  if [ -z "$first" ]; then
    first=$board first_dir=$dir first_qemu=$qemu
    [ "${CONTROL_ONLY:-}" = paced ] && break
    (run_semihosting "$board" "$dir" "$qemu") & pids+=($!) names+=("semihosting-$board")
  fi
  (run_uart "$board" "$dir" "$qemu") & pids+=($!) names+=("uart-$board")
done
[ "${CONTROL_ONLY:-}" = paced ] || { (run_hosted) & pids+=($!) names+=(hosted); }
rc=0
for i in "${!pids[@]}"; do wait "${pids[$i]}" || { rc=1; echo "(case ${names[$i]} failed)"; }; done
(run_paced "$first" "$first_dir" "$first_qemu") || { rc=1; echo "(case paced-$first failed)"; }
exit $rc
