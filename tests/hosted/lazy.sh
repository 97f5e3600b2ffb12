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

# run NAME APP MODE WRITER ENV...: the program's checks, then the stream's. The stream must be
# complete (no DROPS but of the kinds checked below). Where the writer thread drains the ring
# (WRITER start, or thread mode with a writer), that premise depends on the writer being scheduled
# within the 2.5 ms or so the program takes to fill 256 KiB: on a loaded machine it may not be
# (16642 records dropped once in a full make test, and then the FREE of a dropped ALLOC's slot
# looks like damage). Such a run, when the program counted ring drops, is said and done again
# once with APP_bigring, the same program linked with a 4 MiB ring (16x: a writer 16x later);
# drops there fail. A run drained by the allocating thread itself (inline, or lazy while
# single-threaded) has no such excuse: drops fail at once. LAZY_WRAP: a command put before APP,
# e.g. LAZY_WRAP="tests/hosted/freeze_writer.py 0.5" (stops the writer thread alone for 0.5 s, as
# a loaded machine may: needs ptrace) shows the retry.
run() {
  local name=$1 app=$2 mode=$3 writer=$4 rc dropped
  shift 4
  echo "== $name: $mode, writer $writer, $*"
  rc=0
  env "$@" MSAMP_OUTPUT="$dir/$name.bin" MSAMP_SEED=11 ${LAZY_WRAP:-} "$app" "$mode" "$writer" "$dir/$name.bin" \
    "$dir/$name.truth" > "$dir/$name.out" 2> "$dir/$name.err" || rc=$?
  dropped=$(sed -n 's/.*ring_records dropped \([0-9]*\).*/\1/p' "$dir/$name.out")
  if [ "${dropped:-0}" -gt 0 ] && { [ "$writer" = start ] || { [ "$mode" = thread ] && [ "$writer" = lazy ]; }; }; then
    case $app in
    *_bigring) ;;
    *)
      echo "$name: the writer thread was not scheduled in time: $dropped records dropped at the ring" \
        "(a loaded machine; exit status $rc); again with a 4 MiB ring (${app##*/}_bigring)"
      [ -x "${app}_bigring" ] || fail "$name: no ${app}_bigring to run again with"
      run "$name-bigring" "${app}_bigring" "$mode" "$writer" "$@"
      return
      ;;
    esac
  fi
  [ $rc = 0 ] || { cat "$dir/$name.out" "$dir/$name.err"; fail "$name: the program's checks failed"; }
  grep -E '^(checkpoint|with a|atexit|samples)' "$dir/$name.out"
  [ ! -s "$dir/$name.err" ] || { cat "$dir/$name.err"; fail "$name: msamp said something on stderr"; }
  [ "${dropped:-0}" = 0 ] || fail "$name: $dropped records dropped at the ring$(
    case $app in *_bigring) echo " of 4 MiB";; *) echo " (the allocating thread drains it)";; esac)"
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
