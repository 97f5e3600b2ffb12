#!/usr/bin/env bash
# drain's bounds (docs/DRAIN.md, "Bounds"): crafted hostile streams (craft.c: valid frames, so every
# record reaches the model) each finish with exit 0, a profile go tool pprof reads, peak memory
# under the stated cap and CPU time linear in the input:
#   memory:  peak RSS <= 80 MiB + 80 bytes per input byte, and <= 1.5 GiB whatever the input
#   work:    CPU seconds <= 1 per MB of input + 2 ms per session profile written
# checked with a margin of 10x on work (the test machine may be loaded) and none on memory.
# Each stream is run by the release build (timing, RSS: /usr/bin/time when installed, else
# drain --stats) at two sizes (N and 4N: the larger must not cost more than 4x per byte plus
# noise; pprof reads the smaller one's profile), and small forms by the ASan+UBSan build. SOAK=1:
# 4x larger streams.
. "$(dirname "$0")/lib.sh"
REL=${DRAIN_REL:?DRAIN_REL: release drain}
CRAFT=$T/craft
scale=1
[ "${SOAK:-0}" = 1 ] && scale=4
have_time=0
[ -x /usr/bin/time ] && have_time=1

# run BIN IN OUT: sets cpu (s), rss (KiB), rc
run() {
  local bin=$1 in=$2 out=$3
  if [ $have_time = 1 ]; then
    /usr/bin/time -f '%U %S %M' -o "$W/time" timeout 600 "$bin" -q -o "$out" "$in" 2>"$W/err"
    rc=$?
    read -r u s rss <"$W/time"
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
  else
    local t0 t1
    t0=$(date +%s.%N)
    timeout 600 "$bin" --stats -o "$out" "$in" 2>"$W/err"
    rc=$?
    t1=$(date +%s.%N)
    cpu=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') # wall time: an upper bound
    rss=$(sed -n 's/.*peak RSS \([0-9]*\) KiB.*/\1/p' "$W/err")
  fi
}

# check MODE N SESSIONS-WRITTEN
check() {
  local mode=$1 n=$2 sess=$3 in out bytes lim_mem lim_cpu per1=""
  for k in 1 4; do
    in=$W/$mode.$k.bin; out=$W/$mode.$k.pb.gz
    "$CRAFT" "$mode" $((n * k * scale)) "$in" || { fail "$mode: craft"; return; }
    bytes=$(stat -c %s "$in")
    run "$REL" "$in" "$out"
    if [ "$rc" != 0 ] || grep -q 'Sanitizer\|runtime error' "$W/err"; then
      fail "$mode x$k: exit $rc"; head -n 5 "$W/err" >&2; return
    fi
    nprof=$(ls "$W/$mode.$k".pb.gz "$W/$mode.$k".s*.pb.gz 2>/dev/null | wc -l)
    if [ $k = 1 ]; then
      pp -raw "$(ls "$W/$mode.$k".pb.gz "$W/$mode.$k".s*.pb.gz 2>/dev/null | tail -n1)" >/dev/null 2>&1 ||
        { fail "$mode x$k: no profile pprof reads"; return; }
    fi
    lim_mem=$(( (80 * 1048576 + 80 * bytes) / 1024 ))
    [ $lim_mem -gt $((1536 * 1024)) ] && lim_mem=$((1536 * 1024))
    lim_cpu=$(awk -v b="$bytes" -v s="$((sess * k * scale))" 'BEGIN { print 10 * (b / 1e6 + 0.002 * s) + 0.5 }')
    local perMB
    perMB=$(awk -v c="$cpu" -v b="$bytes" 'BEGIN { printf "%.3f", c / (b / 1e6) }')
    echo "  $mode x$k: $bytes bytes, cpu $cpu s ($perMB s/MB), peak RSS $rss KiB (cap $lim_mem KiB)"
    [ "${rss:-0}" -le $lim_mem ] || fail "$mode x$k: peak RSS $rss KiB above $lim_mem KiB"
    awk -v c="$cpu" -v l="$lim_cpu" 'BEGIN { exit !(c <= l) }' || fail "$mode x$k: $cpu s CPU above $lim_cpu s"
    if [ $k = 1 ]; then per1=$perMB; else
      # linear: 4x the input may not cost more than 4x per byte (plus 0.3 s/MB of noise)
      awk -v a="$per1" -v b="$perMB" 'BEGIN { exit !(b <= 4 * a + 0.3) }' ||
        fail "$mode: $perMB s/MB at 4x the input against $per1 s/MB: not linear"
    fi
    rm -f "$W/$mode.$k".s*.pb.gz
  done
  ok "$mode: linear work, memory under the cap"
}

check snapstorm 60000 0     # 2^20 live slots declared, a snapshot pass every 17 bytes
check thinstorm 20000 0     # a thinning raise over 20000 live entries every 10 bytes
check mapstorm 20 20        # 256 MAPPINGs x one 256-frame stack, per session
check frames 1000 0         # 256-frame stacks: 256 K frames, then 4x (SOAK=1: at the 2^22 cap)
check huge 100000 0         # capacities, depth, interval, slots, ids, sizes 2^64-1
check sessions 100 100      # one sample per session: a profile per session
[ "$nprof" = $((400 * scale)) ] && ok "$((400 * scale)) sessions with samples: as many profiles" ||
  fail "sessions: $nprof profiles for $((400 * scale)) sessions"
check empty 20000 0         # sessions without samples: no profile each
[ "$nprof" = 1 ] && ok "$((80000 * scale)) sessions without samples: one (empty) profile, at the end" ||
  fail "empty sessions: $nprof profiles"
check stacks 20000 0        # scattered 64-bit stack ids, each redefined
check sitemaps 4000 0       # 64-frame stacks over 256 mappings
check prehdr 100000 0       # records and no SESSION: the pre-header buffer
check marks 20000 0         # MARK, MAPPING, DROPS storms

# The pre-header buffer: replayed with defaults when no SESSION comes, and said so.
pp -comments "$W/prehdr.1.pb.gz" 2>/dev/null | grep -q 'no session header received.*records replayed with defaults' &&
  ok "no SESSION: records replayed with defaults, said in the comments" || fail "prehdr: no comment on the replay"
# The thinning storm: replays beyond the work bound are counted, not done.
v=$(counter thin_over_budget "$W/thinstorm.4.pb.gz")
[ "${v:-0}" -gt 0 ] && ok "thinning storm: $v raises beyond the work bound not replayed" || fail "thinstorm: thin_over_budget ${v:-none}"

# The sanitized build on small forms of each.
for mode in snapstorm thinstorm mapstorm frames huge sessions empty stacks sitemaps prehdr marks; do
  "$CRAFT" $mode 500 "$W/asan.bin"
  "$DRAIN" -q -o "$W/asan.pb.gz" "$W/asan.bin" 2>"$W/asan.err"
  rc=$?
  if [ $rc -ne 0 ] || grep -q 'Sanitizer\|runtime error' "$W/asan.err"; then
    fail "asan $mode: exit $rc"; head -n 10 "$W/asan.err" >&2
  fi
  rm -f "$W"/asan*.pb.gz
done
ok "ASan+UBSan: every crafted stream"
finish
