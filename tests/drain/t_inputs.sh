#!/usr/bin/env bash
# drain's inputs: a real pseudo-terminal pair (socat) at 921600 baud, exclusive; a TCP connection
# to a local listener on 127.0.0.1; --follow on a growing file with --every partial profiles and
# SIGINT; stdin. Every path must deliver all samples of the stream and write the final profile.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
$GEN --allocs 40000 --snap-every 10000 "$W/s.bin" "$W/s.truth"
$D -q -o "$W/ref.pb.gz" "$W/s.bin" || fail "reference run"
want=$(counter samples "$W/ref.pb.gz")
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT

same_samples() { # NAME PROFILE
  local got
  got=$(counter samples "$2")
  [ "$got" = "$want" ] && ok "$1: all $want samples" || fail "$1: $got samples, want $want"
}

wait_for() { # PATH: wait up to 5 s for a file to exist
  for _ in $(seq 50); do [ -e "$1" ] && return 0; sleep 0.1; done
  return 1
}

# --- pty pair at a non-default baud ---
socat pty,raw,echo=0,link="$W/ttyA" pty,raw,echo=0,link="$W/ttyB" 2>"$W/socat.err" &
pids="$pids $!"
wait_for "$W/ttyB" || fail "socat pty pair"
$D --baud 921600 -o "$W/tty.pb.gz" "$W/ttyA" 2>"$W/tty.err" &
dpid=$!
sleep 0.5
expect_fail "tty already in use" "busy" $D --baud 921600 -o "$W/tty2.pb.gz" "$W/ttyA"
cat "$W/s.bin" >"$W/ttyB"
sleep 1
kill -INT $dpid
wait $dpid
rc=$?
[ $rc -eq 0 ] && grep -q 'Interrupt' "$W/tty.err" && ok "tty: SIGINT writes the final profile" ||
  { fail "tty: exit $rc"; cat "$W/tty.err"; }
same_samples tty "$W/tty.pb.gz"
# The pty keeps its settings after drain closed it (socat holds the pair open).
stty -F "$W/ttyA" speed 2>/dev/null | grep -qx 921600 && ok "tty set to 921600 baud" ||
  fail "tty speed is $(stty -F "$W/ttyA" speed 2>&1)"

# --- TCP to a local listener ---
for _ in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 30000))
  socat -u FILE:"$W/s.bin" TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr 2>"$W/tcpsrv.err" &
  spid=$!
  sleep 0.3
  kill -0 $spid 2>/dev/null && break
done
pids="$pids $spid"
timeout 20 $D -q -o "$W/tcp.pb.gz" "tcp:127.0.0.1:$port" && ok "tcp: drain ends at the connection's end" ||
  fail "tcp: drain failed"
same_samples tcp "$W/tcp.pb.gz"

# --- --follow on a growing file, partial profiles, SIGTERM ---
size=$(stat -c %s "$W/s.bin")
head -c $((size / 3)) "$W/s.bin" >"$W/grow.bin"
$D --follow --every 0.3 -q -o "$W/follow.pb.gz" "$W/grow.bin" &
dpid=$!
sleep 0.8
tail -c +$((size / 3 + 1)) "$W/s.bin" | head -c $((size / 3)) >>"$W/grow.bin"
sleep 0.5
tail -c +$((2 * (size / 3) + 1)) "$W/s.bin" >>"$W/grow.bin"
sleep 0.8
kill -0 $dpid 2>/dev/null && ok "--follow keeps running at end of file" || fail "--follow exited early"
kill -TERM $dpid
wait $dpid
rc=$?
[ $rc -eq 0 ] && ok "--follow: SIGTERM ends cleanly" || fail "--follow: exit $rc"
same_samples follow "$W/follow.pb.gz"
nparts=$(ls "$W"/follow.part*.pb.gz 2>/dev/null | wc -l)
[ "$nparts" -ge 2 ] && ok "--every: $nparts partial profiles" || fail "--every: $nparts partial profiles"
p1=$(counter samples "$W/follow.part1.pb.gz")
[ -n "$p1" ] && [ "$p1" -lt "$want" ] && ok "first partial profile has $p1 samples (fewer than the final)" ||
  fail "first partial profile: $p1"

# --- stdin ---
$D -q -o "$W/stdin.pb.gz" - <"$W/s.bin" && same_samples stdin "$W/stdin.pb.gz" || fail "stdin"
# --- the status line, when stderr is a terminal (script gives drain a pty) ---
if command -v script >/dev/null; then
  script -qec "sh -c '(cat $W/s.bin; sleep 1.3) | $D -o $W/status.pb.gz -'" "$W/typescript" >/dev/null 2>&1
  tr '\r' '\n' <"$W/typescript" | grep -q 'samples .* KB/s  drops 0  crc errors 0' &&
    tr '\r' '\n' <"$W/typescript" | grep -q 'wrote' && ok "status line on a terminal" ||
    { fail "status line"; cat -v "$W/typescript"; }
  $D -o "$W/quiet.pb.gz" "$W/s.bin" 2>"$W/notty.err" </dev/null
  ! grep -q 'KB/s' "$W/notty.err" && ok "no status line when stderr is not a terminal" || fail "status line on a file"
fi
finish
