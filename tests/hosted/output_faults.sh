#!/usr/bin/env bash
# Usage: tests/hosted/output_faults.sh fd|stall|tcp APP CHECK WORKDIR   (APP: tests/hosted/output_app.c)
# msamp's output never blocks or hurts the program (docs/HOSTED.md, "When the consumer stalls or
# fails"):
#   fd     the daemon pattern (close 3..1023, or everything, then open a file of its own, even under
#          msamp's old number): the program's file holds exactly its own lines, msamp says once that
#          its output stopped; /dev/full (ENOSPC): one message, the program runs on. Both flush modes.
#   stall  a FIFO without a reader (the program runs to the end in bounded time; a reader that comes
#          late gets a valid profile from drain), a pipe that is never read (the allocation loop
#          within 3x + 0.5 s of the same loop with a reading consumer; the exit within
#          MSAMP_EXIT_TIMEOUT_MS + 1 s), a slow FIFO reader (a valid stream whose DROPS account for
#          every record lost: ALLOCs + FREEs received + ring_records dropped = 2 x the program's
#          mallocs at interval 1, and drain reports the drops). Both flush modes.
#   tcp    the same for a TCP peer on 127.0.0.1 that accepts and never reads, and one that reads
#          late.
set -eu
what=$1 app=$2 check=$3 dir=$4
mkdir -p "$dir"
rm -rf "${dir:?}"/*
dump=host_tools/msamp-dump
drain=host_tools/drain
fail() { echo "FAIL: $*"; exit 1; }
# Now in ns, read by the shell itself (bash's EPOCHREALTIME, microseconds): a `date` forked on a
# loaded machine added up to a few hundred ms to the exit times judged below.
now_ns() { local t=${EPOCHREALTIME//[.,]/}; echo "${t}000"; }
# The one line of msamp's that says why the output stopped, and that it is said once.
stopped_once() { # FILE PATTERN WHAT
  local n
  n=$(grep -c 'profiling output stopped' "$1" || true)
  [ "$n" = 1 ] || { cat "$1"; fail "$3: $n messages about the output stopping, expected 1"; }
  grep -q "$2" "$1" || { cat "$1"; fail "$3: the message does not say '$2'"; }
}
val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

if [ "$what" = fd ]; then
  for flush in thread inline; do
    for how in close1023 closeall; do
      t=$how-$flush
      MSAMP_FLUSH=$flush MSAMP_INTERVAL=64 MSAMP_OUTPUT="$dir/$t.msamp" \
        "$app" daemon "$how" "$dir/$t.own" > "$dir/$t.out" 2> "$dir/$t.err" ||
        { cat "$dir/$t.err"; fail "$t: the program failed"; }
      lines=$(val lines "$dir/$t.out")
      [ -n "$lines" ] && [ "$lines" -gt 10 ] || fail "$t: the program wrote too few lines ($lines)"
      for ((i = 0; i < lines; i++)); do echo "line $i of the program's own file"; done > "$dir/$t.want"
      cmp "$dir/$t.want" "$dir/$t.own" || fail "$t: the program's own file holds more than its lines"
      [ "$(val msamp_fd "$dir/$t.out")" -ge 64 ] || fail "$t: msamp's descriptor is not moved high"
      if [ $how = closeall ]; then
        [ "$(val own_fd "$dir/$t.out")" = "$(val msamp_fd "$dir/$t.out")" ] ||
          fail "$t: the program's file did not get msamp's old number"
        stopped_once "$dir/$t.err" "the program .*msamp's descriptor" "$t"
      else
        stopped_once "$dir/$t.err" "the program closed msamp's descriptor" "$t"
      fi
      # What msamp wrote before the descriptor went is a stream a reader decodes.
      [ ! -s "$dir/$t.msamp" ] || "$check" decode "$dir/$t.msamp" > /dev/null ||
        fail "$t: msamp's stream up to the close is damaged"
      echo "$t: the program's file intact ($lines lines), one message"
    done
    # A full disk: one message, the program runs to the end.
    MSAMP_FLUSH=$flush MSAMP_INTERVAL=1 MSAMP_OUTPUT=/dev/full "$app" loop 200000 10 \
      > "$dir/full-$flush.out" 2> "$dir/full-$flush.err" || fail "/dev/full ($flush): the program failed"
    [ "$(val mallocs "$dir/full-$flush.out")" = 200001 ] || fail "/dev/full ($flush): the loop did not finish"
    stopped_once "$dir/full-$flush.err" "^msamp: output /dev/full: No space left on device; profiling output stopped$" \
      "/dev/full ($flush)"
    [ "$(wc -l < "$dir/full-$flush.err")" = 1 ] || { cat "$dir/full-$flush.err"; fail "/dev/full ($flush): more than one line"; }
    echo "/dev/full ($flush): one message, the program finished"
  done
  # MSAMP_EXIT_TIMEOUT_MS out of range: said, and the default kept.
  for bad in abc -1 700000 12x; do
    MSAMP_EXIT_TIMEOUT_MS=$bad MSAMP_OUTPUT="$dir/bad.msamp" "$app" loop 1000 0 > "$dir/bad.out" 2> "$dir/bad.err" ||
      fail "MSAMP_EXIT_TIMEOUT_MS=$bad: the program failed"
    grep -q "ignoring MSAMP_EXIT_TIMEOUT_MS=$bad" "$dir/bad.err" || fail "MSAMP_EXIT_TIMEOUT_MS=$bad: no message"
    "$check" decode "$dir/bad.msamp" > /dev/null || fail "MSAMP_EXIT_TIMEOUT_MS=$bad: stream damaged"
  done
  echo "output-fd: the program's files untouched, failures said once"
  exit 0
fi

[ "$what" = stall ] || [ "$what" = tcp ] || { echo "usage: $0 fd|stall|tcp APP CHECK WORKDIR" >&2; exit 2; }
helpers=""
cleanup() { for p in $helpers; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
# Runs the program's loop: run NAME N[:PAUSE] ENV...; sets loop_ms, exit_ms (main's return to the
# end of the process: the exit flush) and total_ms. A program that hangs is killed after 60 s.
run() {
  local name=$1 n=${2%:*} pause=0 start rc end
  [[ $2 != *:* ]] || pause=${2#*:}
  shift 2
  start=${EPOCHREALTIME//[.,]/}000
  env "$@" timeout 60 "$app" loop "$n" 0 "$pause" > "$dir/$name.out" 2> "$dir/$name.err" && rc=0 || rc=$?
  end=${EPOCHREALTIME//[.,]/}000
  total_ms=$(((end - start) / 1000000))
  [ $rc = 0 ] || { cat "$dir/$name.err"; fail "$name: exit status $rc after $total_ms ms"; }
  exit_ms=$(((end - $(val end_ns "$dir/$name.out")) / 1000000))
  loop_ms=$(val loop_ms "$dir/$name.out")
  loop_ms=${loop_ms%.*}
  echo "$name: loop $loop_ms ms, exit $exit_ms ms, total $total_ms ms"
}
# A helper of output_app's (not profiled) in the background; its pid in $!.
helper() { MSAMP_DISABLE=1 "$app" "$@" & helpers="$helpers $!"; }
fresh_fifo() { rm -f "$1"; mkfifo "$1"; }
tcp_peer() { # DELAY OUT: starts a peer, sets port
  rm -f "$dir/port"
  helper peer "$dir/port" "$1" "$2"
  peer=$!
  for _ in $(seq 200); do [ -s "$dir/port" ] && break; sleep 0.02; done
  port=$(cat "$dir/port") || fail "the TCP peer did not start"
}

for flush in thread inline; do
  common=(MSAMP_FLUSH=$flush MSAMP_INTERVAL=1)
  if [ "$what" = stall ]; then
    # A FIFO nobody opens: the program runs to the end; its exit waits MSAMP_EXIT_TIMEOUT_MS at most.
    fresh_fifo "$dir/noreader"
    run "noreader-$flush" 200000 "${common[@]}" MSAMP_EXIT_TIMEOUT_MS=300 MSAMP_OUTPUT="$dir/noreader"
    grep -q "has no reader yet" "$dir/noreader-$flush.err" || fail "noreader-$flush: no message"
    [ $exit_ms -le 1300 ] || fail "noreader-$flush: exit took $exit_ms ms, bound 300 ms (+1 s margin)"

    # The same FIFO with a reader (drain) that comes 500 ms late: a valid profile from the start.
    fresh_fifo "$dir/late"
    (sleep 0.5; exec "$drain" "$dir/late" --elf "$app" -o "$dir/late-$flush.pb.gz" --top 3 \
       > "$dir/late-$flush.drain" 2>&1) &
    dp=$!
    helpers="$helpers $dp"
    run "late-$flush" 200000 MSAMP_FLUSH=$flush MSAMP_INTERVAL=4096 MSAMP_EXIT_TIMEOUT_MS=10000 \
      MSAMP_OUTPUT="$dir/late"
    wait $dp || { cat "$dir/late-$flush.drain"; fail "late-$flush: drain failed"; }
    grep -q "loop_mode output_app.c" "$dir/late-$flush.drain" || { cat "$dir/late-$flush.drain"; fail "late-$flush: no site in drain's top"; }
    grep -q "0 bad frames, 0 lost frames" "$dir/late-$flush.drain" || { cat "$dir/late-$flush.drain"; fail "late-$flush: damaged stream"; }
    [ -s "$dir/late-$flush.pb.gz" ] || fail "late-$flush: no profile"
    [ $exit_ms -le 11000 ] || fail "late-$flush: exit took $exit_ms ms"

    # A pipe with a reader that reads promptly, then one whose reader never reads.
    fresh_fifo "$dir/pipe"
    helper fifo "$dir/pipe" 0 "$dir/pipe-read-$flush.bin"
    run "pipe-reading-$flush" 300000 "${common[@]}" MSAMP_OUTPUT="$dir/pipe"
    base=$loop_ms
    "$check" decode "$dir/pipe-read-$flush.bin" > /dev/null || fail "pipe-reading-$flush: damaged stream"
    fresh_fifo "$dir/pipe"
    helper fifo "$dir/pipe" -1 /dev/null
    run "pipe-stalled-$flush" 300000 "${common[@]}" MSAMP_OUTPUT="$dir/pipe"
    kill $! 2>/dev/null || true
    [ "$loop_ms" -le $((3 * base + 500)) ] || fail "pipe-stalled-$flush: loop $loop_ms ms, reading $base ms"
    grep -q "not taken within MSAMP_EXIT_TIMEOUT_MS=1000" "$dir/pipe-stalled-$flush.err" ||
      { cat "$dir/pipe-stalled-$flush.err"; fail "pipe-stalled-$flush: the consumer did not stall (no exit message)"; }
    [ $exit_ms -le 2000 ] || fail "pipe-stalled-$flush: exit took $exit_ms ms, bound 1000 ms (+1 s margin)"
    # A reader that leaves after 1000 bytes: EPIPE, not SIGPIPE (which would kill the program).
    fresh_fifo "$dir/pipe"
    (exec head -c 1000 "$dir/pipe" > /dev/null) &
    helpers="$helpers $!"
    run "pipe-gone-$flush" 300000 "${common[@]}" MSAMP_OUTPUT="$dir/pipe"
    stopped_once "$dir/pipe-gone-$flush.err" "Broken pipe" "pipe-gone-$flush"
    # A shorter bound is kept too.
    fresh_fifo "$dir/pipe"
    helper fifo "$dir/pipe" -1 /dev/null
    run "pipe-stalled-200ms-$flush" 300000 "${common[@]}" MSAMP_EXIT_TIMEOUT_MS=200 MSAMP_OUTPUT="$dir/pipe"
    kill $! 2>/dev/null || true
    [ $exit_ms -le 1200 ] || fail "pipe-stalled-200ms-$flush: exit took $exit_ms ms, bound 200 ms (+1 s margin)"
  fi

  if [ "$what" = tcp ]; then
    # A TCP peer on 127.0.0.1 that reads, then one that accepts and never reads; 7*10^5 allocations
    # (about 9 MB of stream), paced so that the stalled one's socket buffers (up to 4 MB) fill.
    tcp_peer 0 "$dir/tcp-read-$flush.bin"
    run "tcp-reading-$flush" 700000:1400 "${common[@]}" MSAMP_OUTPUT="tcp:127.0.0.1:$port"
    wait "$peer" || fail "tcp-reading-$flush: the peer failed"
    base=$loop_ms
    tcp_peer -1 /dev/null
    run "tcp-stalled-$flush" 700000:1400 "${common[@]}" MSAMP_OUTPUT="tcp:127.0.0.1:$port"
    kill "$peer" 2>/dev/null || true
    [ "$loop_ms" -le $((3 * base + 500)) ] || fail "tcp-stalled-$flush: loop $loop_ms ms, reading $base ms"
    grep -q "not taken within MSAMP_EXIT_TIMEOUT_MS=1000" "$dir/tcp-stalled-$flush.err" ||
      { cat "$dir/tcp-stalled-$flush.err"; fail "tcp-stalled-$flush: the consumer did not stall (no exit message)"; }
    [ $exit_ms -le 2000 ] || fail "tcp-stalled-$flush: exit took $exit_ms ms, bound 1000 ms (+1 s margin)"
  fi

  # Slow consumers: nothing read while the program's loop runs (the consumer waits for the
  # program's stdout, written when the loop has ended: an event, not a time, so a loaded machine
  # cannot make the loop end before the stall does), then everything. The stream is valid and its
  # DROPS account for what the full ring refused: at interval 1 (pinned) every malloc is an ALLOC
  # and every free a FREE, received or counted in ring_records.
  kind=fifo
  [ "$what" = stall ] || kind=tcp
  t=slow-$kind-$flush
  if [ $kind = fifo ]; then
    fresh_fifo "$dir/slow"
    helper fifo "$dir/slow" "@$dir/$t.out" "$dir/$t.bin"
    out="$dir/slow"
  else
    tcp_peer "@$dir/$t.out" "$dir/$t.bin"
    out="tcp:127.0.0.1:$port"
  fi
  hp=$!
  n=200000
  [ $kind = fifo ] || n=700000 # more than the socket buffers hold
  run "$t" $n "${common[@]}" MSAMP_INTERVAL_PIN=1 MSAMP_EXIT_TIMEOUT_MS=20000 MSAMP_OUTPUT="$out"
  wait $hp || fail "$t: the consumer failed"
  "$check" decode "$dir/$t.bin" > "$dir/$t.decode" || { cat "$dir/$t.decode"; fail "$t: damaged stream"; }
  $dump "$dir/$t.bin" > "$dir/$t.dump"
  [ "$(grep -m1 -v '^frame' "$dir/$t.dump" | cut -d' ' -f1)" = SESSION ] ||
    fail "$t: the stream does not start with SESSION"
  read -r a f d < <(awk '$1 == "ALLOC" { a++ } $1 == "FREE" { f++ }
    $1 == "DROPS" { sub("ring_records=", "", $2); d = $2 } END { print a + 0, f + 0, d + 0 }' "$dir/$t.dump")
  n=$(val mallocs "$dir/$t.out")
  echo "$t: $a ALLOC + $f FREE received, $d records dropped; $n mallocs and frees"
  [ "$d" -gt 0 ] || fail "$t: nothing dropped: the consumer did not stall"
  [ $((a + f)) -le $((2 * n)) ] || fail "$t: more records than allocations"
  [ $((a + f + d)) -ge $((2 * n)) ] || fail "$t: $((2 * n - a - f - d)) records lost without being counted"
  [ $((a + f + d)) -le $((2 * n + n / 100)) ] || fail "$t: drops overcounted"
  "$drain" "$dir/$t.bin" --elf "$app" -o "$dir/$t.pb.gz" > /dev/null 2> "$dir/$t.drain" ||
    { cat "$dir/$t.drain"; fail "$t: drain failed"; }
  grep -q "device drops [1-9]" "$dir/$t.drain" || { cat "$dir/$t.drain"; fail "$t: drain does not report the drops"; }
done
echo "output-$what: no blocking, bounded exits, late readers served, drops accounted"
