#!/usr/bin/env bash
# An honest end (docs/DRAIN.md "Completeness"): the device's last record is END, with its session
# totals, and drain says whether the stream it read is complete.
#   normal     hosted_app writing a file: END arrives, drain says "stream complete" (summary on
#              stderr, --top, the profile's comments).
#   truncated  the same stream without its last 200 bytes (END's frame and a few before): "stream
#              ended without END: incomplete".
#   stalled    hosted_app at MSAMP_INTERVAL=1 (churn 200000: wire v2's 1-byte empty FREEs put the
#              default's events in about 300 KiB, under the ring and the pipe) writing into a FIFO
#              whose reader opens it and reads
#              nothing until the program has done its allocations (the truth file appears at the
#              end of main): the ring (256 KiB) and the pipe fill, most events are dropped; the
#              reader then reads during the exit's flush: END arrives and drain counts the events
#              lost (produced - received) and the ring's drops.
#   stalled-to-exit  the reader reads nothing until the program has exited (MSAMP_EXIT_TIMEOUT_MS
#              200): the exit cannot send END; drain says the stream ended without it.
#   two boots  the normal stream twice (the same session id: a device without entropy that boots
#              twice): two sessions, each complete; a first boot cut short (a reset) before a
#              whole second one: session 1 without END, session 2 complete.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
app=$T/hosted_app

# verdict NAME STREAM: drain's summary (stderr), --top and the profile's comments, in $W/NAME.*
verdict() {
  $D -o "$W/$1.pb.gz" --top 3 "$2" >"$W/$1.top" 2>"$W/$1.err" || fail "$1: drain exit $?"
  grep 'stream \|without END' "$W/$1.err" | sed "s/^/    $1: /"
}

MSAMP_OUTPUT=$W/n.bin MSAMP_INTERVAL=4096 MSAMP_SEED=7 "$app" "$W/n.truth" || fail "hosted_app exit $?"
verdict normal "$W/n.bin"
grep -q 'session 1: stream complete: END received' "$W/normal.err" && ok "normal: complete (stderr)" ||
  fail "normal: stderr does not say complete"
grep -q '^stream complete: END received' "$W/normal.top" && ok "normal: complete (--top)" ||
  fail "normal: --top does not say complete"
pp -comments "$W/normal.pb.gz" 2>/dev/null | grep -q 'stream complete: END received' &&
  ok "normal: complete (profile comments)" || fail "normal: the profile's comments do not say complete"

# END is the stream's last record: msamp_end sends only what the ring holds after it, no duty (a
# snapshot pass going on, an identity re-send) follows it.
last=$("${MSAMP_DUMP:?MSAMP_DUMP: msamp-dump}" "$W/n.bin" | grep -v '^frame \|^#' | tail -1)
case $last in END\ *) ok "normal: END is the last record" ;; *) fail "normal: a record after END: $last" ;; esac

size=$(stat -c %s "$W/n.bin")
head -c $((size - 200)) "$W/n.bin" >"$W/cut.bin"
verdict truncated "$W/cut.bin"
grep -q 'session 1: stream ended without END: incomplete' "$W/truncated.err" &&
  ok "truncated: ended without END (stderr)" || fail "truncated: stderr does not say so"
grep -q '^stream ended without END: incomplete' "$W/truncated.top" &&
  ok "truncated: ended without END (--top)" || fail "truncated: --top does not say so"
pp -comments "$W/truncated.pb.gz" 2>/dev/null | grep -q 'stream ended without END: incomplete' &&
  ok "truncated: ended without END (profile comments)" || fail "truncated: the comments do not say so"

# stalled NAME WAIT_FOR TIMEOUT_MS: the program writes into a FIFO whose reader reads nothing until
# WAIT_FOR (truth: the truth file exists; exit: the program has exited).
stalled() {
  local name=$1 until=$2 ms=$3 fifo=$W/$1.fifo
  mkfifo "$fifo"
  (
    exec 3<"$fifo"
    while [ ! -e "$W/$name.go" ]; do sleep 0.02; done
    cat <&3 >"$W/$name.bin"
  ) &
  local reader=$!
  # The interval pinned: the ring is to overflow (the link-aware device would raise the interval
  # instead: docs/ADAPTIVE.md "The link"), and drain to count what it lost.
  MSAMP_OUTPUT=$fifo MSAMP_INTERVAL=1 MSAMP_INTERVAL_PIN=1 MSAMP_FLUSH=inline MSAMP_EXIT_TIMEOUT_MS=$ms MSAMP_SEED=9 \
    "$app" "$W/$name.truth" 200000 2>"$W/$name.app.err" &
  local prog=$!
  if [ "$until" = truth ]; then
    while [ ! -s "$W/$name.truth" ] && kill -0 $prog 2>/dev/null; do sleep 0.01; done
    touch "$W/$name.go"
    wait $prog || fail "$name: hosted_app exit $?"
  else
    wait $prog || fail "$name: hosted_app exit $?"
    touch "$W/$name.go"
  fi
  # A reader still in its open (the program never opened the FIFO) is let through: no hang.
  exec 4<>"$fifo"
  exec 4>&-
  wait $reader
  sed "s/^/    $name: program: /" "$W/$name.app.err"
  verdict "$name" "$W/$name.bin"
}

stalled stalled truth 20000
line=$(grep 'session 1: stream incomplete: END received' "$W/stalled.err")
lost=$(sed -n 's/.*; \([0-9]*\) events lost.*/\1/p' <<<"$line")
[ -n "$lost" ] && [ "$lost" -gt 10000 ] && ok "stalled: END received, $lost events lost" ||
  fail "stalled: drain does not count the events lost: $line"
grep -q '^stream incomplete: END received' "$W/stalled.top" && ok "stalled: incomplete (--top)" ||
  fail "stalled: --top does not say incomplete"
pp -comments "$W/stalled.pb.gz" 2>/dev/null | grep -q 'events lost (produced - received)' &&
  ok "stalled: events lost (profile comments)" || fail "stalled: the comments do not count them"
grep -q 'device drops [1-9]' "$W/stalled.err" && ok "stalled: device drops counted" ||
  fail "stalled: device drops 0"

stalled stalled-exit exit 200
grep -q 'session 1: stream ended without END: incomplete' "$W/stalled-exit.err" &&
  ok "stalled to exit: ended without END" || fail "stalled to exit: drain does not say so"

cat "$W/n.bin" "$W/n.bin" >"$W/twice.bin"
verdict twice "$W/twice.bin"
[ "$(grep -c 'session [12]: stream complete: END received' "$W/twice.err")" = 2 ] &&
  [ "$(grep -o 'session [12] (id 0x[0-9a-f]*' "$W/twice.err" | sed 's/.*id //' | sort -u | wc -l)" = 1 ] &&
  ok "two boots with the same session id: two sessions, each complete" ||
  fail "two boots with the same session id are not told apart"
{ head -c $((size / 2)) "$W/n.bin"; cat "$W/n.bin"; } >"$W/reset.bin"
verdict reset "$W/reset.bin"
grep -q 'session 1: stream ended without END' "$W/reset.err" &&
  grep -q 'session 2: stream complete: END received' "$W/reset.err" &&
  ok "a boot cut short by a reset: session 1 without END, session 2 complete" ||
  fail "a reset mid-stream: the boots' verdicts"
finish
