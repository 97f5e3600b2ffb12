#!/usr/bin/env bash
# Usage: tests/hosted/env.sh APP CHECK WORKDIR   (APP: tests/hosted/e2e_app.c, CHECK: msamp_check)
# The environment settings of the hosted port: output patterns, MSAMP_DISABLE, MSAMP_INTERVAL,
# bad values (a clear message, the program runs on unchanged), unreachable outputs, tcp: output.
set -eu
app=$1 check=$2 dir=$3
mkdir -p "$dir"
rm -rf "${dir:?}"/*
dump=host_tools/msamp-dump
fail() { echo "FAIL: $*"; exit 1; }

# %e %p %t %% in MSAMP_OUTPUT
MSAMP_OUTPUT="$dir/o-%e-%p-%t-%%.bin" "$app" "$dir/t" > /dev/null
f=$(ls "$dir"/o-e2e_app-*-*-%.bin) || fail "no file named after %e-%p-%t-%%"
[[ $(basename "$f") =~ ^o-e2e_app-[0-9]+-[0-9]{10}-%\.bin$ ]] || fail "bad expansion: $f"
"$check" decode "$f" > /dev/null || fail "stream of $f damaged"
$dump "$f" | grep -q '^SESSION .* interval=524288 ' || fail "default interval is not 524288"

# MSAMP_INTERVAL
MSAMP_OUTPUT="$dir/i.bin" MSAMP_INTERVAL=1000 "$app" "$dir/t" > /dev/null
$dump "$dir/i.bin" | grep -q '^SESSION .* interval=1000 ' || fail "MSAMP_INTERVAL=1000 not in SESSION"

# Bad values: a message on stderr, then defaults
for bad in abc 0 -5 99999999999 12x; do
  MSAMP_OUTPUT="$dir/b.bin" MSAMP_INTERVAL=$bad "$app" "$dir/t" > /dev/null 2> "$dir/err"
  grep -q "ignoring MSAMP_INTERVAL=$bad" "$dir/err" || fail "no message for MSAMP_INTERVAL=$bad"
  $dump "$dir/b.bin" | grep -q '^SESSION .* interval=524288 ' || fail "MSAMP_INTERVAL=$bad: no default"
done
MSAMP_OUTPUT="$dir/fl.bin" MSAMP_FLUSH=sometimes "$app" "$dir/t" > /dev/null 2> "$dir/err"
grep -q "ignoring MSAMP_FLUSH=sometimes" "$dir/err" || fail "no message for MSAMP_FLUSH=sometimes"
"$check" decode "$dir/fl.bin" > /dev/null || fail "MSAMP_FLUSH=sometimes: stream damaged"
MSAMP_OUTPUT="$dir/uw.bin" MSAMP_UNWIND=frames "$app" "$dir/t" > /dev/null 2> "$dir/err"
grep -q "ignoring MSAMP_UNWIND=frames (expected dwarf or fp)" "$dir/err" || fail "no message for MSAMP_UNWIND=frames"
"$check" decode "$dir/uw.bin" > /dev/null || fail "MSAMP_UNWIND=frames: stream damaged"

# MSAMP_DISABLE=1: no output at all, same program output
MSAMP_DISABLE=1 MSAMP_OUTPUT="$dir/d.bin" "$app" "$dir/t" > "$dir/d.out"
[ ! -e "$dir/d.bin" ] || fail "MSAMP_DISABLE=1 still wrote $dir/d.bin"
grep -q 'blocks held' "$dir/d.out" || fail "program output changed with MSAMP_DISABLE=1"

# Unwritable output and refused connections: a message, the program runs to the end, exit 0
for out in "$dir/no/such/dir/x.bin" "tcp:127.0.0.1:1" "tcp:localhost:80" "tcp:127.0.0.1:99999"; do
  MSAMP_OUTPUT=$out "$app" "$dir/t" > "$dir/u.out" 2> "$dir/err" || fail "MSAMP_OUTPUT=$out: exit $?"
  grep -q 'blocks held' "$dir/u.out" || fail "MSAMP_OUTPUT=$out: program did not finish"
  grep -q "profiling off" "$dir/err" || fail "MSAMP_OUTPUT=$out: no message"
done

# tcp: to a listener on 127.0.0.1 (socat writes what it receives to a file)
tests/need.sh socat
listening() { grep -qi "0100007F:$(printf %04X "$1") 00000000:0000 0A" /proc/net/tcp; }
srv=""
for _ in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 20000))
  listening "$port" && continue
  socat -u "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr" "OPEN:$dir/tcp.bin,creat,trunc" &
  srv=$!
  for _ in $(seq 100); do
    listening "$port" && break
    kill -0 "$srv" 2>/dev/null || break
    sleep 0.02
  done
  listening "$port" && break
  kill "$srv" 2>/dev/null || true
  srv=""
done
[ -n "$srv" ] || fail "could not start a listener on 127.0.0.1"
MSAMP_OUTPUT="tcp:127.0.0.1:$port" MSAMP_INTERVAL=65536 MSAMP_SEED=1 "$app" "$dir/tcp.truth" > /dev/null
timeout 5 tail --pid="$srv" -f /dev/null || { kill "$srv"; fail "listener did not see the end of the stream"; }
"$check" sites --elf "$app" --truth "$dir/tcp.truth" "$dir/tcp.bin" | tail -1 | grep -qx PASS ||
  fail "stream over tcp: check failed"
echo "env: patterns, interval, disable, bad values, unreachable outputs and tcp: all behave"
