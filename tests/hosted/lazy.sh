#!/usr/bin/env bash
# Usage: tests/hosted/lazy.sh single|thread|exitwake CHECK WORKDIR APP...
# When msamp's writer thread exists, and that the exit never waits for it to wake by itself
# (docs/HOSTED.md, "Who drains the ring"). APP is tests/hosted/lazy_app.c, which checks its own
# threads as it runs (/proc/self/task, the writer's name msamp-writer, __libc_single_threaded).
#   single    a single-threaded program at MSAMP_INTERVAL=4096: no thread but the main one and
#             __libc_single_threaded still 1 at the start, at three points of the run, at the end
#             of main and in an atexit handler, with the default MSAMP_FLUSH and with inline; the
#             output grows during the run (the ring is drained inline, not only at exit); with
#             MSAMP_FLUSH=thread the writer is there from the start. The stream is complete: no
#             drops, and msamp_check sites finds both sites within 4.5 sd of the truth.
#   thread    a program that starts a thread of its own after 1000 rounds, at MSAMP_INTERVAL=1:
#             the writer appears (a task named msamp-writer) with the default MSAMP_FLUSH, never
#             with inline; the stream is exact at every site (msamp_check sites), and neither the
#             program's msamp_get_stats nor the stream's DROPS count an allocation as reentrant
#             (pthread_create's allocations, seen by the wrappers in a -static link, come from
#             inside msamp's guarded path). Each APP given (dynamic and -static) is run.
#   exitwake  APP linked with a library whose writer waits 60 s between polls
#             (-DMSAMP_HOSTED_POLL_MS=60000), under strace -f: the program waits until the writer
#             waits (futex or a sleep, from /proc), then returns from main. In the writer's own
#             log there must be no nanosleep or clock_nanosleep (a sleep the exit cannot cut
#             short), and its last timed futex wait must have ended by a wake (= 0 or EAGAIN), not
#             by its timeout and not unfinished: the exit woke it. With the default MSAMP_FLUSH (a
#             writer started lazily) and with MSAMP_FLUSH=thread. No timing is measured.
set -eu
what=$1 check=$2 dir=$3
shift 3
mkdir -p "$dir"
rm -rf "${dir:?}"/*
fail() { echo "FAIL: $*"; exit 1; }

# run NAME APP MODE WRITER ENV...: the program's checks, then the stream's.
run() {
  local name=$1 app=$2 mode=$3 writer=$4
  shift 4
  echo "== $name: $mode, writer $writer, $*"
  env "$@" MSAMP_OUTPUT="$dir/$name.bin" MSAMP_SEED=11 "$app" "$mode" "$writer" "$dir/$name.bin" \
    "$dir/$name.truth" > "$dir/$name.out" 2> "$dir/$name.err" ||
    { cat "$dir/$name.out" "$dir/$name.err"; fail "$name: the program's checks failed"; }
  grep -E '^(checkpoint|with a|atexit|samples)' "$dir/$name.out"
  [ ! -s "$dir/$name.err" ] || { cat "$dir/$name.err"; fail "$name: msamp said something on stderr"; }
  "$check" sites --elf "$app" --truth "$dir/$name.truth" "$dir/$name.bin" > "$dir/$name.check" ||
    { cat "$dir/$name.check"; fail "$name: the stream does not match the program's allocations"; }
  grep -E '^(stream|drops|site_|PASS)' "$dir/$name.check"
  if grep -q '^drops:' "$dir/$name.check"; then
    grep -q '^drops:.* reentrant=0 ' "$dir/$name.check" ||
      fail "$name: the stream's DROPS count reentrant allocations"
  fi
}

case $what in
single)
  app=$1
  run single-lazy "$app" single lazy MSAMP_INTERVAL=4096
  run single-inline "$app" single lazy MSAMP_INTERVAL=4096 MSAMP_FLUSH=inline
  run single-thread "$app" single start MSAMP_INTERVAL=4096 MSAMP_FLUSH=thread
  ;;
thread)
  for app in "$@"; do
    b=$(basename "$app")
    run "$b-lazy" "$app" thread lazy MSAMP_INTERVAL=1
    run "$b-inline" "$app" thread never MSAMP_INTERVAL=1 MSAMP_FLUSH=inline
    run "$b-thread" "$app" thread start MSAMP_INTERVAL=1 MSAMP_FLUSH=thread
  done
  ;;
exitwake)
  app=$1
  for flush in lazy thread; do
    name=exit-$flush
    writer=lazy
    env=(MSAMP_INTERVAL=4096 MSAMP_SEED=11 MSAMP_OUTPUT="$dir/$name.bin")
    [ $flush = thread ] && { writer=start; env+=(MSAMP_FLUSH=thread); }
    echo "== $name"
    env "${env[@]}" strace -f -ff -q -o "$dir/$name.st" -e trace=futex,nanosleep,clock_nanosleep \
      "$app" exitwake $writer "$dir/$name.bin" "$dir/$name.truth" > "$dir/$name.out" 2> "$dir/$name.err" ||
      { cat "$dir/$name.out" "$dir/$name.err"; fail "$name: the program's checks failed"; }
    tid=$(awk '$1 == "writer" { print $2 }' "$dir/$name.out")
    [ -n "$tid" ] && [ -f "$dir/$name.st.$tid" ] || { cat "$dir/$name.out"; fail "$name: no writer's log"; }
    log=$dir/$name.st.$tid
    if grep -E 'nanosleep\(' "$log" > "$dir/$name.sleeps"; then
      head -3 "$dir/$name.sleeps"
      fail "$name: the writer sleeps in nanosleep ($(wc -l < "$dir/$name.sleeps") times): the exit cannot wake it"
    fi
    grep -E 'futex\(.*FUTEX_WAIT.*tv_sec' "$log" > "$dir/$name.waits" ||
      { cat "$log"; fail "$name: the writer never waited"; }
    last=$(tail -1 "$dir/$name.waits")
    echo "writer $tid: $(wc -l < "$dir/$name.waits") timed wait(s), the last: ${last##*)}"
    grep -q 'ETIMEDOUT' "$dir/$name.waits" && fail "$name: a wait of the writer timed out"
    echo "$last" | grep -Eq '\) = (0|-1 EAGAIN)' ||
      fail "$name: the writer's last wait did not end by a wake: $last"
    "$check" decode "$dir/$name.bin" | tail -1 | grep -qx PASS || fail "$name: the stream is damaged"
  done
  ;;
*)
  fail "unknown test $what"
  ;;
esac
echo PASS
