#!/usr/bin/env bash
# --every: a partial profile that cannot be written does not stop the capture. Its failure is
# reported once per kind (not every period), later partial profiles are written again when they
# can be, and the final profile holds every sample; when the final profile cannot be written
# either, drain exits 1 with a clear error. Conditions that work as root or not: the partial's path
# taken by a directory (EISDIR), and a full disk (lib.sh's full_disk: EFBIG, as ENOSPC) for the
# first FULL_S seconds, lifted then by prlimit (or for the whole run).
. "$(dirname "$0")/lib.sh"
D=$DRAIN
$GEN --allocs 40000 --snap-every 10000 "$W/s.bin" "$W/s.truth"
$D -q -o "$W/ref.pb.gz" "$W/s.bin" || fail "reference run"
want=$(counter samples "$W/ref.pb.gz")

# run NAME [FULL_S]: drain --follow --every 0.2 on the stream for 1.5 s, then SIGINT; with FULL_S,
# on a full disk for its first FULL_S seconds ("all": the whole run). Sets rc; stderr in
# $W/NAME.err.
run() {
  local name=$1 full=${2:-} pid
  rm -f "$W/$name.pid"
  if [ -n "$full" ]; then
    FULL_DISK_PID=$W/$name.pid full_disk $D --follow --every 0.2 -q -o "$W/$name.pb.gz" "$W/s.bin" 2>"$W/$name.err" &
  else
    $D --follow --every 0.2 -q -o "$W/$name.pb.gz" "$W/s.bin" 2>"$W/$name.err" &
    echo $! >"$W/$name.pid"
  fi
  local job=$!
  sleep 0.3
  pid=$(cat "$W/$name.pid")
  if [ -n "$full" ] && [ "$full" != all ]; then
    sleep "$full"
    prlimit --pid "$pid" --fsize=unlimited: || fail "$name: prlimit"
  fi
  sleep 1.2
  kill -INT "$pid"
  wait $job
  rc=$?
  grep -q Sanitizer "$W/$name.err" && { fail "$name: sanitizer report"; cat "$W/$name.err" >&2; }
}

# once NAME PATTERN: the failure was reported exactly once.
once() {
  local n
  n=$(grep -c "not written.*$2" "$W/$1.err")
  [ "$n" -eq 1 ] && ok "$1: '$2' reported once: $(grep -m1 "not written.*$2" "$W/$1.err")" ||
    { fail "$1: '$2' reported $n times"; sed 's/^/    /' "$W/$1.err" >&2; }
}

# --- the first three partial profiles' paths are directories ---
mkdir -p "$W/dir.part1.pb.gz" "$W/dir.part2.pb.gz" "$W/dir.part3.pb.gz"
run dir
[ $rc -eq 0 ] && ok "dir: exit 0" || fail "dir: exit $rc"
once dir "Is a directory"
grep -q 'partial profile 4 written (the 3 before it were not)' "$W/dir.err" &&
  ok "dir: partial profiles written again once the path is free" || fail "dir: no recovery message"
[ -f "$W/dir.part4.pb.gz" ] && [ -n "$(counter samples "$W/dir.part4.pb.gz")" ] &&
  ok "dir: partial profile 4 is a profile" || fail "dir: partial profile 4 missing"
grep -q '3 of [0-9]* partial profiles were not written' "$W/dir.err" && ok "dir: failures counted at the end" ||
  fail "dir: no count of failures"
got=$(counter samples "$W/dir.pb.gz")
[ "$got" = "$want" ] && ok "dir: final profile holds all $want samples" || fail "dir: final has $got samples, want $want"

# --- a full disk for the first 0.6 s (about three partial profiles) ---
run full 0.6
[ $rc -eq 0 ] && ok "full: exit 0" || fail "full: exit $rc"
once full "File too large"
grep -q 'partial profile [0-9]* written (the [0-9]* before it were not)' "$W/full.err" &&
  ok "full: partial profiles written again once the disk has room" || fail "full: no recovery message"
got=$(counter samples "$W/full.pb.gz")
[ "$got" = "$want" ] && ok "full: final profile holds all $want samples" || fail "full: final has $got samples, want $want"
[ -z "$(find "$W" -name '.full.*')" ] && ok "full: no temporary file left" || fail "full: temporary files left"

# --- two kinds of failure: each reported once ---
mkdir -p "$W/two.part1.pb.gz" "$W/two.part3.pb.gz"
run two 0.9
[ $rc -eq 0 ] && ok "two: exit 0" || fail "two: exit $rc"
once two "Is a directory"
once two "File too large"

# --- the final profile cannot be written either: exit 1, clear error ---
run final all
[ $rc -eq 1 ] && ok "final: exit 1 when the final profile cannot be written" || fail "final: exit $rc"
grep -q 'final profile not written: .*final.pb.gz.*File too large' "$W/final.err" &&
  ok "final: $(grep -m1 'final profile not written' "$W/final.err")" ||
  { fail "final: no clear error"; sed 's/^/    /' "$W/final.err" >&2; }
[ ! -e "$W/final.pb.gz" ] && ok "final: no half-written profile" || fail "final: a profile exists"
[ -z "$(find "$W" -name '.final.*')" ] && ok "final: no temporary file left" || fail "final: temporary files left"

# --- without --follow: the final profile's path is a directory ---
mkdir -p "$W/isdir.pb.gz"
expect_fail "final profile's path is a directory" "Is a directory" $D -q -o "$W/isdir.pb.gz" "$W/s.bin"
finish
