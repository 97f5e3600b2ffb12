#!/usr/bin/env bash
# --follow across the ways a stream file starts over: truncated and written again from zero (the
# program restarted), rotated (renamed away, the program still finishing the old file, then a new
# file at the path), replaced atomically (a new file renamed over the path), a path that does not
# exist yet when drain starts (waited for, as tail -F). drain reopens or
# rewinds, decodes the new data from its start, and each device session gets its own complete
# profile: the first stream's in OUT, the second's in OUT.s2. drain under ASan+UBSan.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
# Two boots of a device: different session ids (seeds), B shorter than A.
$GEN --allocs 40000 --snap-every 10000 "$W/a.bin" "$W/a.truth"
$GEN --allocs 20000 --snap-every 10000 --seed 7 "$W/b.bin" "$W/b.truth"
$D -q -o "$W/ref-a.pb.gz" "$W/a.bin" && $D -q -o "$W/ref-b.pb.gz" "$W/b.bin" || fail "reference runs"
want_a=$(counter samples "$W/ref-a.pb.gz")
want_b=$(counter samples "$W/ref-b.pb.gz")
size_a=$(stat -c %s "$W/a.bin")

# read_all PID FILE: waits (up to 20 s) until drain has read FILE to its end: its descriptor's
# offset (/proc/PID/fdinfo) equals the file's size.
read_all() {
  local f size fd pos
  f=$(readlink -f "$2")
  size=$(stat -c %s "$f")
  for _ in $(seq 200); do
    for fd in /proc/"$1"/fd/*; do
      [ "$(readlink "$fd" 2>/dev/null)" = "$f" ] || continue
      pos=$(sed -n 's/^pos:[[:space:]]*//p' "/proc/$1/fdinfo/${fd##*/}" 2>/dev/null)
      [ "$pos" = "$size" ] && return 0
    done
    sleep 0.1
  done
  fail "drain did not read $2 to its end"
}

# start NAME: drain follows $W/NAME.msamp (which exists) and has read it; sets pid.
start() {
  $D --follow -o "$W/$1.pb.gz" "$W/$1.msamp" 2>"$W/$1.err" &
  pid=$!
  read_all $pid "$W/$1.msamp"
}

# check NAME NOTICE: SIGINT, then both sessions' profiles complete and the notice on stderr.
check() {
  local name=$1 notice=$2 rc got
  sleep 0.8
  kill -0 $pid 2>/dev/null && ok "$name: still following" || fail "$name: drain exited early"
  kill -INT $pid
  wait $pid
  rc=$?
  [ $rc -eq 0 ] || { fail "$name: exit $rc"; sed 's/^/    /' "$W/$name.err" >&2; }
  grep -q Sanitizer "$W/$name.err" && { fail "$name: sanitizer report"; sed 's/^/    /' "$W/$name.err" >&2; }
  grep -q -- "$notice" "$W/$name.err" && ok "$name: $(grep -m1 -- "$notice" "$W/$name.err")" ||
    { fail "$name: no notice '$notice'"; sed 's/^/    /' "$W/$name.err" >&2; }
  got=$(counter samples "$W/$name.pb.gz")
  [ "$got" = "$want_a" ] && ok "$name: first session's profile: all $want_a samples" ||
    fail "$name: first session's profile has '$got' samples, want $want_a"
  got=$(counter samples "$W/$name.s2.pb.gz")
  [ "$got" = "$want_b" ] && ok "$name: second session's profile: all $want_b samples" ||
    fail "$name: second session's profile has '$got' samples, want $want_b"
  [ ! -e "$W/$name.s3.pb.gz" ] && ok "$name: two sessions, no more" || fail "$name: a third session"
  pp -raw "$W/$name.s2.pb.gz" 2>/dev/null | grep -q 'inuse_space/bytes' && ok "$name: pprof reads the second profile" ||
    fail "$name: pprof cannot read the second profile"
}

# --- truncated and written again: the restarted program truncates, then writes from zero ---
cp "$W/a.bin" "$W/trunc.msamp"
start trunc
: >"$W/trunc.msamp"
sleep 0.3
cat "$W/b.bin" >>"$W/trunc.msamp"
check trunc "truncated"

# --- truncated and rewritten at once, the new stream shorter than what was read ---
cp "$W/a.bin" "$W/trunc2.msamp"
start trunc2
cat "$W/b.bin" >"$W/trunc2.msamp"
check trunc2 "truncated"

# --- rotated: renamed away while the program still writes the old file, then a new file ---
head -c $((size_a / 2)) "$W/a.bin" >"$W/rot.msamp"
start rot
mv "$W/rot.msamp" "$W/rot.msamp.1"
sleep 0.3
tail -c +$((size_a / 2 + 1)) "$W/a.bin" >>"$W/rot.msamp.1"
read_all $pid "$W/rot.msamp.1"
cat "$W/b.bin" >"$W/rot.msamp"
check rot "replaced by another file"

# --- replaced atomically: a new file renamed over the path ---
cp "$W/a.bin" "$W/repl.msamp"
start repl
cp "$W/b.bin" "$W/repl.msamp.new"
mv "$W/repl.msamp.new" "$W/repl.msamp"
check repl "replaced by another file"

# --- a path that disappears for a while (rotated, no new file yet) keeps the old file ---
cp "$W/a.bin" "$W/gone.msamp"
start gone
mv "$W/gone.msamp" "$W/gone.msamp.1"
sleep 1
kill -0 $pid 2>/dev/null && ok "gone: still following the old file while the path is missing" ||
  fail "gone: drain exited"
cat "$W/b.bin" >"$W/gone.msamp"
check gone "replaced by another file"

# --- a path that does not exist yet (drain started before the program, as tail -F) ---
rm -f "$W/late.msamp"
$D --follow -o "$W/late.pb.gz" "$W/late.msamp" 2>"$W/late.err" &
pid=$!
sleep 0.5
kill -0 $pid 2>/dev/null && grep -q 'does not exist yet: waiting for it' "$W/late.err" &&
  ok "--follow waits for a missing file" || { fail "--follow on a missing file"; cat "$W/late.err" >&2; }
cp "$W/a.bin" "$W/late.msamp"
read_all $pid "$W/late.msamp" || fail "drain did not read the file that appeared"
kill -INT $pid; wait $pid; rc=$?
got=$(counter samples "$W/late.pb.gz")
[ $rc = 0 ] && [ "$got" = "$want_a" ] && grep -q 'appeared: following it' "$W/late.err" &&
  ok "the file that appeared read whole ($got samples)" ||
  { fail "late file: exit $rc, samples '$got' want $want_a"; cat "$W/late.err" >&2; }
finish
