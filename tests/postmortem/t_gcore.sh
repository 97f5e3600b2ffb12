#!/usr/bin/env bash
# Usage: tests/postmortem/t_gcore.sh OUTDIR APP...   (environment: DRAIN, default host_tools/drain;
#   DRAIN_ASAN, with two APPs, PIE then -no-pie: hostile cores, below; TABLE_APP: the live table at
#   15 % load, below)
# Post-mortem of a hosted program's gdb core (docs/POSTMORTEM.md, "Hosted programs"): each APP
# (tests/postmortem/gcore_app.c linked with the hosted port: a PIE, Debian's default, and a
# -no-pie build) runs at the default table size (65536 live slots) with MSAMP_INTERVAL=4096, sends
# its stream to a file, stops itself (SIGSTOP); `gcore` takes its core; continued, it exits without
# touching its heap (its stream ends with the exit's snapshot of the same live set). drain reads
# the stream (`--elf APP`) and the core (`--core CORE --elf APP`): the folded in-use stacks (names
# symbolized: each site's function must be there) and the in-use section of --top (bytes, objects
# and samples per site) must be equal. The PIE's core must report the load bias drain found; the
# core read without --elf (the block found by scanning) must hold the same in-use total. The core's
# report says what a dump is: in use when it was taken, no allocated table, no peak (--peak
# refused), no samples, frees or END counted.
# TABLE_APP (tests/hosted/table_app.c, run with "stop" and MSAMP_INTERVAL=1: every block sampled,
# 10 100 live at the default 65536 slots, issue 36): its core must read the exact in-use, the
# 1000 B site 10 000 000 bytes in 10 000 objects and the 64 KiB site 6 553 600 in 100.
set -u
out=$1
shift
drain=$(realpath "${DRAIN:-host_tools/drain}")
rm -rf "$out" && mkdir -p "$out" || exit 2
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }

# The in-use section of --top: "bytes objects samples site" lines, sorted (the section ends at the
# next line that is not indented: the allocated table's title, or a dump's "no allocated table").
inuse() { awk '/sites by in-use bytes/ { on = 1; next } on && /^[^ ]/ { on = 0 } on && /^ +[0-9]/' "$1" | sort; }
total() { inuse "$1" | awk '{b += $1; o += $2} END {print b, o}'; }

# Runs "$@" (the program and its arguments) with its stream in $dir, waits for it to stop itself,
# takes its core; sets pid and core. Returns 1 (after saying why) when there is no core.
stop_and_core() {
  "$@" &
  pid=$!
  local state= _
  for _ in $(seq 300); do
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
    [ "$state" = T ] && break
    [ -z "$state" ] && break
    sleep 0.1
  done
  if [ "$state" != T ]; then
    fail "$(basename "$1"): did not stop itself (state '${state}')"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 1
  fi
  timeout 120 gcore -o "$dir/core" "$pid" >"$dir/gcore.log" 2>&1
  local grc=$?
  kill -CONT "$pid"
  wait "$pid" || fail "$(basename "$1"): the program exited $?"
  core="$dir/core.$pid"
  if [ $grc != 0 ] || [ ! -s "$core" ]; then
    fail "$(basename "$1"): gcore exit $grc (ptrace not allowed?)"
    tail -3 "$dir/gcore.log"
    return 1
  fi
}
for app in "$@"; do
  app=$(realpath "$app")
  name=$(basename "$app")
  dir=$out/$name
  mkdir -p "$dir"
  pie=no
  file_type=$(od -An -j16 -N2 -tu2 "$app" | tr -d ' ')
  [ "$file_type" = 3 ] && pie=yes
  echo "== $name (PIE: $pie)"
  MSAMP_OUTPUT="$dir/stream.%p.bin" MSAMP_INTERVAL=4096 stop_and_core "$app" || continue
  stream="$dir/stream.$pid.bin"
  ok "$name: core of $(stat -c %s "$core") bytes, stream of $(stat -c %s "$stream") bytes"

  "$drain" --elf "$app" --top 50 --folded "$dir/stream.folded" -o "$dir/stream.pb.gz" \
    "$stream" >"$dir/stream.top" 2>"$dir/stream.err" || { fail "$name: drain of the stream"; cat "$dir/stream.err"; continue; }
  "$drain" --core "$core" --elf "$app" --top 50 --folded "$dir/core.folded" -o "$dir/core.pb.gz" \
    >"$dir/core.top" 2>"$dir/core.err"
  drc=$?
  if [ $drc != 0 ]; then
    fail "$name: drain --core --elf: exit $drc: $(cat "$dir/core.err")"
    continue
  fi
  what=$(grep -o 'block at.*' "$dir/core.err")
  ok "$name: drain --core --elf: $what"
  case "$pie/$what" in
    yes/*"loaded at +0x"*|no/*) ;;
    no/*"loaded at"*) fail "$name: a load bias for a program linked at fixed addresses" ;;
    *) fail "$name: the PIE's load bias is not reported" ;;
  esac
  if diff <(sort "$dir/stream.folded") <(sort "$dir/core.folded") >"$dir/folded.diff"; then
    ok "$name: folded in-use stacks equal ($(wc -l <"$dir/core.folded") sites)"
  else
    fail "$name: folded in-use stacks differ (< stream, > core):"
    cat "$dir/folded.diff"
  fi
  for fn in small_blocks large_blocks zeroed_blocks 'depth1@[^;]*;depth2@[^;]*;depth3' main; do
    grep -q ";$fn@gcore_app.c" "$dir/core.folded" || fail "$name: no symbolized '$fn' in the core's stacks"
  done
  if diff <(inuse "$dir/stream.top") <(inuse "$dir/core.top") >"$dir/top.diff" &&
      [ -n "$(inuse "$dir/core.top")" ]; then
    ok "$name: in-use bytes, objects, samples per site equal (in all: $(total "$dir/core.top"))"
  else
    fail "$name: --top's in-use sections differ (< stream, > core):"
    cat "$dir/top.diff"
  fi
  # A dump's report says what a dump is (docs/POSTMORTEM.md): in use when it was taken, no history:
  # no samples or frees counted, no END awaited, no allocated table, no peak, no growth.
  if grep -q '^post-mortem dump: what was in use when it was taken' "$dir/core.top" &&
      grep -q '^no allocated table: a dump holds' "$dir/core.top" &&
      grep -q 'sampled blocks in use; interval 4096 bytes when the dump was taken' "$dir/core.err" &&
      ! grep -q 'peak in use\|sites by allocated\|without END\|0 samples, 0 frees' "$dir/core.top" "$dir/core.err"; then
    ok "$name: the report says a dump: in use when taken, no allocated table, no peak, no END awaited"
  else
    fail "$name: the dump's report claims history:"; cat "$dir/core.err"; head -n 5 "$dir/core.top"
  fi
  "$drain" --core "$core" --elf "$app" -q -o "$dir/p.pb.gz" --peak "$dir/peak.pb.gz" 2>"$dir/peak.err"
  prc=$?
  [ $prc = 1 ] && [ ! -e "$dir/peak.pb.gz" ] && grep -q 'a dump (--ram, --core) has no peak' "$dir/peak.err" &&
    ok "$name: --peak of a dump: refused ($(head -c 120 "$dir/peak.err"))" ||
    fail "$name: --peak of a dump: exit $prc, $(cat "$dir/peak.err")"
  "$drain" --core "$core" --top 50 -o "$dir/scan.pb.gz" >"$dir/scan.top" 2>"$dir/scan.err" ||
    fail "$name: drain --core without --elf: $(cat "$dir/scan.err")"
  if [ "$(total "$dir/scan.top")" = "$(total "$dir/core.top")" ] &&
      grep -q 'found by scanning' "$dir/scan.err"; then
    ok "$name: without --elf (found by scanning): the same in-use total"
  else
    fail "$name: without --elf: in-use $(total "$dir/scan.top"), with it $(total "$dir/core.top")"
  fi
done
# Hostile cores under ASan+UBSan (DRAIN_ASAN): the PIE's core with its NT_FILE note damaged
# (mutcore.py) must still give the stream's profile (the load bias from the build-id note found in
# the dump), without a sanitizer report; each program's ELF given for the other's core is refused.
# The frames between _start and main are libc's start-up: the stream names them from its MAPPING
# of libc; a core whose note is damaged has no libc mapping left, so there they stay addresses.
below_main() { sed 's/^_start;.*;main@/_start;main@/' "$1" | sort; }
if [ -n "${DRAIN_ASAN:-}" ] && [ $# = 2 ]; then
  asan=$(realpath "$DRAIN_ASAN")
  export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  pie=$(realpath "$1") nopie=$(realpath "$2")
  pdir=$out/$(basename "$pie") ndir=$out/$(basename "$nopie")
  mkdir -p "$out/hostile"
  for m in $(python3 "$(dirname "$0")/mutcore.py" "$(ls "$pdir"/core.[0-9]*)" "$out/hostile"); do
    "$asan" --core "$out/hostile/$m.core" --elf "$pie" --folded "$out/hostile/$m.folded" \
      -o /dev/null >/dev/null 2>"$out/hostile/$m.err"
    hrc=$?
    if grep -q -E 'Sanitizer|runtime error' "$out/hostile/$m.err"; then
      fail "hostile $m: a sanitizer report"; head -5 "$out/hostile/$m.err"
    elif [ $hrc != 0 ]; then
      fail "hostile $m: exit $hrc: $(cat "$out/hostile/$m.err")"
    elif ! diff -q <(below_main "$pdir/stream.folded") <(below_main "$out/hostile/$m.folded") >/dev/null; then
      fail "hostile $m: the profile differs from the stream's"
    else
      ok "hostile $m: $(grep -o 'loaded at.*' "$out/hostile/$m.err")"
    fi
  done
  for pair in "$(ls "$pdir"/core.[0-9]*) $nopie" "$(ls "$ndir"/core.[0-9]*) $pie"; do
    set -- $pair
    "$asan" --core "$1" --elf "$2" -o /dev/null >/dev/null 2>"$out/hostile/wrong.err"
    hrc=$?
    if [ $hrc = 1 ] && ! grep -q -E 'Sanitizer|runtime error' "$out/hostile/wrong.err"; then
      ok "hostile: $(basename "$2") for the other's core: exit 1: $(cut -c1-150 "$out/hostile/wrong.err")"
    else
      fail "hostile: $(basename "$2") for the other's core: exit $hrc: $(head -3 "$out/hostile/wrong.err")"
    fi
  done
  set -- "$pie" "$nopie"
fi
if [ -n "${TABLE_APP:-}" ]; then
  app=$(realpath "$TABLE_APP")
  name=$(basename "$app")
  dir=$out/$name
  mkdir -p "$dir"
  echo "== $name (every block sampled, 10 100 live)"
  if MSAMP_OUTPUT="$dir/stream.%p.bin" MSAMP_INTERVAL=1 stop_and_core "$app" stop; then
    "$drain" --core "$core" --elf "$app" --top 10 -o "$dir/core.pb.gz" >"$dir/core.top" \
      2>"$dir/core.err" || fail "$name: drain --core --elf: $(cat "$dir/core.err")"
    for want in "live_small 10000000 10000" "live_large 6553600 100"; do
      read -r site bytes objects <<<"$want"
      got=$(inuse "$dir/core.top" | grep " $site " | awk '{print $1, $2}')
      if [ "$got" = "$bytes $objects" ]; then
        ok "$name: core: $site in use $bytes bytes in $objects objects"
      else
        fail "$name: core: $site in use '$got' (bytes objects), want '$bytes $objects'"
      fi
    done
  fi
fi
[ $nfail = 0 ] && echo "PASS: $# programs" || { echo "FAILED: $nfail"; exit 1; }
