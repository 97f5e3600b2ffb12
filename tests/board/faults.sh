#!/usr/bin/env bash
# Usage: tests/board/faults.sh MODE DIR   (environment: BOARD_QEMU, BOARD_QEMU_TIMEOUT, DRAIN,
#        MSAMP_DUMP; SOAK=1 for the long forms; FAULT_SEEDS, FAULT_RESETS override them)
# Device faults on a QEMU board, with the demo's fault variants built in DIR/uart/
# (demo-faults-reset.elf, demo-faults-tables.elf; tests/board/board_faults.mk):
#   reset   the board is reset through QMP (system_reset on a unix socket in the test's folder)
#           at random times while it streams, for several seeds; then streams are spliced at
#           chosen byte offsets: a boot cut inside its SESSION record, at a frame's end, inside a
#           frame, followed by a fresh boot (another session id, and the same one), and a boot cut
#           inside its replay of the session the reset ended, then that boot again. Each time: one
#           session per boot, each session's report equal to drain's report of its bytes alone (its
#           boot's, then the next boot's replay of it: no mixing), each session a reset ended (a
#           RESET in its bytes) reported ended by a reset, the cut frame counted as bad, no frame
#           counted lost, the last boot's estimates within the demo's bounds; with the replay cut,
#           the session's figures those of the whole replay alone.
#   boots   demo-faults-boots, a device without entropy (the clock gives its session id nothing):
#           two warm resets (QMP system_reset) in one QEMU run, then a cold boot in a new QEMU.
#           The boot counter (.noinit) reads 0, 1, 2 and the three session ids differ; drain
#           reports three sessions with those ids, each equal to its bytes alone, the first two
#           ended by a reset; the cold boot counts 0 again and draws the first boot's id (nothing
#           else tells boots apart). The same with demo-faults-boots-nokeep (MSAMP_CFG_RESET_PROFILE
#           0): no session ended by a reset.
#   drain   the UART is a TCP server; a drain is killed (SIGKILL) mid-stream, another interrupted
#           (SIGINT: it writes what it had, a profile pprof reads), a third connects later: its
#           in-use profile is within bound of the truth after the re-sends.
#   power   QEMU is killed (SIGKILL) with a drain connected: drain sees the end of input and
#           writes its profile; a new QEMU and a new connection give a new, clean session. The
#           same into one file (QEMU appending) followed by `drain --follow`: a session per boot,
#           none ended by a reset (power lost: nothing kept).
#   tables  demo-faults-tables: live table and stack table full, ring full (polling stalled),
#           the timer interrupt allocating and freeing every 50 us while the main loop does; the
#           run ends (no deadlock), the firmware finds msamp's live table exact against the
#           blocks it holds, drain's in-use count per site equals the firmware's live entries.
set -u
mode=$1; dir=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
DRAIN=$(realpath "${DRAIN:-host_tools/drain}")
DUMP=$(realpath "${MSAMP_DUMP:-host_tools/msamp-dump}")
export MSAMP_DUMP=$DUMP
limit=${BOARD_QEMU_TIMEOUT:-60}
. "$here/faults_lib.sh"
out=$(realpath -m "$dir/uart/faults-$mode")
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 2
fail=0
CUT_FRAMES=0
bad() { echo "FAIL: $*"; fail=1; }

# check_pieces STREAM NAME "IDS" [TRUTH-CONSOLE]   (environment: RESETS)
# STREAM is boots whose own sessions have ids IDS. A boot after
# a warm reset sends the session the reset ended first (SESSION with the flag PREVIOUS, its live
# set, HEAP, RESET: docs/WIRE_FORMAT.md#reset), then its own SESSION; drain continues the previous
# session with it (the same id, no END or RESET yet), or starts that session from it (a reader that
# joins at that boot). So the stream is cut into sessions at each SESSION with resend_seq 0
# (session_starts) that drain would start one with, and each one's bytes run up to the next
# session's first frame (the first also holds the bytes before it). Each must give one session
# (but a header without a sample or a stack that another follows: drain writes none) whose report
# (--top of every site, samples, frees, bad and lost frames) equals drain's report of its bytes
# alone, no frame counted lost; whenever its bytes hold a RESET, drain reports it ended by a reset.
# The own sessions' ids are IDS in order, but for a boot cut inside its SESSION frame (none then).
# RESETS=keep or none (a stream whose every boot but the last was reset, by a build with the kept
# profile or without): every boot's own session is there, and with keep each session but the last
# is reported ended by a reset (with none, no session is). With TRUTH-CONSOLE (the console of the boot that finished), the last
# session is checked against the demo's truth by check_demo.sh.
check_pieces() {
  local s=$1 name=$2 size ids n i k from to ses lastp
  read -r -a ids <<<"$3"
  size=$(stat -c %s "$s")
  # KEEP_RUN=1: drain's reports of STREAM are already in NAME.top and NAME.err (drain --follow).
  [ "${KEEP_RUN:-0}" = 1 ] || drain_run "$s" "$name" || { bad "$name: drain exit status $?"; cat "$name.err"; return; }
  # The sessions: starts[j] their first byte, sid[j] their id.
  local -a starts=() sid=() ended=()
  local off id prev own="" last_reset=0
  while read -r off id prev; do
    if [ "$prev" = 1 ] && [ ${#sid[@]} -gt 0 ] && [ "${sid[-1]}" = "$id" ] && [ "$last_reset" = 0 ]; then
      # The session this replay ends: it continues it (a replay cut by a reset leaves it open)
      tail -c +$((off + 1)) "$s" | head -c 65536 | "$DUMP" 2>/dev/null | awk '/^SESSION / && n++ { exit } /^RESET / { f = 1 } END { exit !f }' && last_reset=1
      continue
    fi
    [ "$prev" = 1 ] || own="$own $id"
    starts+=("$off"); sid+=("$id"); last_reset=0
  done < <(session_starts "$s")
  [ "${starts[0]:-x}" != x ] || { bad "$name: no session in the stream"; return; }
  starts[0]=0
  # shellcheck disable=SC2086 # one id a word
  if [ -n "${RESETS:-}" ]; then
    [ "$(echo $own)" = "${ids[*]}" ] || bad "$name: the boots' own sessions have ids$own, their consoles ${ids[*]}"
  else
    k=" ${ids[*]} "
    for id in $own; do [ "${k#* "$id" }" != "$k" ] && k=" ${k#* "$id" }" || k=""; done
    [ -n "$k" ] || bad "$name: the own sessions' ids$own are not the boots' ${ids[*]} in order"
  fi
  n=${#starts[@]}; ses=0; local empty=0
  for ((i = 0; i < n; i++)); do
    # from the delimiter ahead of its first frame, to the one ahead of the next session's
    from=$((starts[i] > 0 ? starts[i] - 1 : 0)); to=$([ $((i + 1)) -lt "$n" ] && echo "${starts[i + 1]}" || echo "$size")
    slice "$s" "$from" "$to" "$name.piece$i.bin"
    ses=$((ses + 1))
    # The bytes alone end with a delimiter: a frame that lost only its 0x00 to the end of the stream
    # is whole, a cut one is a bad frame.
    [ "$(byte_at "$s" $((to - 1)))" = 00 ] || printf '\0' >>"$name.piece$i.bin"
    drain_run "$name.piece$i.bin" "$name.piece$i" || { bad "$name: drain on piece $i"; continue; }
    [ "$(sessions_of "$name.piece$i")" = 1 ] || bad "$name: piece $i alone gives $(sessions_of "$name.piece$i") sessions, not 1"
    if [ $((i + 1)) -lt "$n" ] && [ "$(summary "$name.piece$i" 1 samples)" = 0 ] &&
       ! "$DUMP" "$name.piece$i.bin" 2>/dev/null | grep -q '^STACK '; then
      # A session cut before its first sample or stack (its first frames hold the SESSION header,
      # TIME and HEAP records alone): drain writes no profile for an empty session that another
      # follows (docs/DRAIN.md), so no session (it keeps its number).
      empty=$((empty + 1))
      echo "  piece $i [$from, $to) id ${sid[i]}: a header without a sample or a stack, no session (as drain writes none for an empty boot)"
      continue
    fi
    local got_id got_bad got_lost want_bad ends
    want_bad=$(summary "$name.piece$i" 1 bad)
    CUT_FRAMES=$((CUT_FRAMES + want_bad))
    got_id=$(summary "$name" "$ses" id); got_bad=$(summary "$name" "$ses" bad); got_lost=$(summary "$name" "$ses" lost)
    ends=$(grep "^drain: session $ses: ended by a reset" "$name.err" | head -1)
    echo "  piece $i [$from, $to) id ${sid[i]}$([ "$want_bad" -gt 0 ] && echo ", $want_bad cut frame(s)"):" \
      "session $ses id ${got_id:-none}, $(summary "$name" "$ses" samples) samples" \
      "(alone: $(summary "$name.piece$i" 1 samples)), bad frames ${got_bad:-?}, lost frames ${got_lost:-?}$([ -n "$ends" ] &&
      echo "$ends" | sed 's/^drain: session [0-9]*: \(ended by a reset at [^ ]* s\).*/, \1/')"
    [ "$got_id" = "${sid[i]}" ] || bad "$name: session $ses has id ${got_id:-none}, its SESSION's is ${sid[i]}"
    [ "${got_bad:-x}" = "$want_bad" ] || bad "$name: session $ses counts ${got_bad:-?} bad frames, its bytes alone $want_bad"
    [ "${got_lost:-x}" = 0 ] || bad "$name: session $ses counts ${got_lost:-?} lost frames (a reset is not a loss)"
    for k in samples frees; do
      [ "$(summary "$name" "$ses" $k)" = "$(summary "$name.piece$i" 1 $k)" ] ||
        bad "$name: session $ses has $(summary "$name" "$ses" $k) $k, its bytes alone $(summary "$name.piece$i" 1 $k)"
    done
    if ! diff <(session_top "$name.top" "$ses") <(session_top "$name.piece$i.top" 1) >"$name.diff$i"; then
      bad "$name: session $ses's sites differ from those of its bytes alone (mixed sessions):"
      head -20 "$name.diff$i"
    fi
    # Ended by a reset exactly when its bytes hold the next boot's RESET (and, in a stream of
    # resets, every session but the last).
    if "$DUMP" "$name.piece$i.bin" 2>/dev/null | grep -q '^RESET ' ||
       { [ "${RESETS:-}" = keep ] && [ $((i + 1)) -lt "$n" ]; }; then
      [ -n "$ends" ] || bad "$name: session $ses was ended by a reset, drain does not say so"
      [ "${RESETS:-}" != none ] || bad "$name: a build without the kept profile sent session $ses's end at its next boot"
      grep -q "^drain: session 1: ended by a reset" "$name.piece$i.err" || bad "$name: piece $i alone is not ended by a reset"
    else
      [ -z "$ends" ] || bad "$name: session $ses reported ended by a reset without a RESET in its bytes"
    fi
  done
  k=$(sessions_of "$name")
  [ "$k" = $((ses - empty)) ] || bad "$name: drain reported $k sessions for $((ses - empty)) with data"
  lastp=$(profile_of "$name" "$ses")
  [ -s "$lastp" ] || { bad "$name: no profile $lastp"; return; }
  [ -n "${4:-}" ] || return 0
  cp "$4" "$name.console.txt"
  "$here/check_demo.sh" "$lastp" "$name.console.txt" symbols accuracy leak drops >"$name.check" 2>&1 ||
    { bad "$name: the last session is not within the demo's bounds:"; cat "$name.check"; }
}
mode_reset() {
  local elf=$dir/uart/demo-faults-reset.elf seeds resets seed r boots st offs ids
  elf=$(realpath "$elf")
  if [ "${SOAK:-0}" = 1 ]; then seeds=${FAULT_SEEDS:-"1 2 3 4 5 6 7 8"}; resets=${FAULT_RESETS:-5}
  else seeds=${FAULT_SEEDS:-"1"}; resets=${FAULT_RESETS:-3}; fi
  ELF=$elf
  local total_cuts=0 same_ids=0
  for seed in $seeds; do
    local run=$out/seed$seed
    mkdir -p "$run"
    RANDOM=$seed
    BOARD_QEMU_EXTRA="-qmp unix:$run/qmp.sock,server=on,wait=off" \
      "$(realpath "$here/../../boards/qemu_run.sh")" "$elf" uart "$run" >/dev/null 2>&1 &
    local qemu=$!
    qmp_open "$run/qmp.sock" || { bad "seed $seed: QMP"; kill "$qemu"; wait "$qemu"; continue; }
    for ((r = 1; r <= resets; r++)); do
      wait_lines "$run/console.txt" '^msamp-demo boot' "$r" 20 || { bad "seed $seed: boot $r never came"; break; }
      # A random moment 40 .. 640 ms into the boot (each boot streams for at least 1.5 s).
      sleep "0.$(printf %03d $((40 + RANDOM % 600)))" 2>/dev/null || sleep 0.3
      qmp_cmd system_reset || { bad "seed $seed: reset $r"; break; }
    done
    qmp_close
    wait_pid "$qemu" "$limit"; st=$?
    [ "$st" = 0 ] || { bad "seed $seed: QEMU exit status $st"; tail -3 "$run/console.txt"; continue; }
    boots=$(grep -c '^msamp-demo boot' "$run/console.txt")
    ids=$(boot_lines "$run/console.txt" session | tr '\n' ' ')
    offs=$(boot_offsets "$run/stream.bin" | tr '\n' ' ')
    echo "seed $seed: $boots boots (session ids $ids), boot frames at bytes $offs of $(stat -c %s "$run/stream.bin")"
    [ "$boots" = $((resets + 1)) ] || bad "seed $seed: $boots boots for $resets resets"
    # shellcheck disable=SC2086
    [ "$(echo $offs | wc -w)" = "$boots" ] || { bad "seed $seed: $(echo $offs | wc -w) boot frames in the stream for $boots boots"; continue; }
    [ "$(echo "$ids" | tr ' ' '\n' | sed '/^$/d' | sort | uniq -d)" = "" ] || same_ids=$((same_ids + 1))
    total_cuts=$((total_cuts + boots - 1))
    cd "$run" && RESETS=keep check_pieces "$run/stream.bin" reset "$ids" "$run/console.txt"; cd "$out" || exit 2
  done
  echo "real resets: $total_cuts, of which $CUT_FRAMES cut a frame; runs with a session id drawn twice: $same_ids"

  # Splices at chosen offsets: A = the first boot of seed ${seeds%% *} (cold, cut short by its
  # reset), B = its last boot (complete, the truth in its console: the previous boot's session, P,
  # then its own), P's boot before it.
  local s1=${seeds%% *} run a b p a_id b_id p_id first o name bo
  run=$out/seed$s1
  [ -s "$run/stream.bin" ] || { bad "no stream from seed $s1 to splice"; return; }
  read -r -a bo <<<"$(boot_offsets "$run/stream.bin" | tr '\n' ' ')"
  [ "${#bo[@]}" -ge 3 ] || { bad "seed $s1: ${#bo[@]} boots, too few to splice"; return; }
  la=$(lead_of "$run/stream.bin" "${bo[0]}")
  a=$run/boot-first.bin; p=$run/boot-previous.bin; b=$run/boot-last.bin
  slice "$run/stream.bin" 0 $((bo[1] - la)) "$a"
  slice "$run/stream.bin" $((bo[-2] - la)) $((bo[-1] - la)) "$p"
  slice "$run/stream.bin" $((bo[-1] - la)) "$(stat -c %s "$run/stream.bin")" "$b"
  own_id() { session_starts "$1" | awk '$3 == 0 { print $2; exit }'; }
  a_id=$(own_id "$a"); b_id=$(own_id "$b"); p_id=$(own_id "$p")
  local lb=$la
  # A's first frame ends here (after its delimiter, when it has one)
  first=$(tail -c +$((la + 1)) "$a" | LC_ALL=C grep -obUaP '\x00' | head -1 | cut -d: -f1)
  first=$((first + la))
  mkdir -p "$out/splice" && cd "$out/splice" || exit 2
  # name:cut  (inside the SESSION header, inside its build-id, just after the first frame, inside
  # the second frame, inside a frame half-way)
  local half
  half=$(( $(stat -c %s "$a") / 2 ))
  while [ "$(byte_at "$a" $((half - 1)))" = 00 ]; do half=$((half + 1)); done
  for spec in session-header:$((la + 3)) session-buildid:$((la + 30)) frame-end:$((first + 1)) second-frame:$((first + 8)) \
      half:$half; do
    name=${spec%%:*}; o=${spec#*:}
    head -c "$o" "$a" >"$name.bin"; cat "$b" >>"$name.bin"
    echo "splice $name: boot A (id $a_id) cut at byte $o, then boot B (id $b_id)"
    check_pieces "$out/splice/$name.bin" "$name" "$a_id $b_id" \
      "$([ "$name" = session-header ] && echo "$run/console.txt")"
  done
  # The same session id twice: B cut half-way, then B again (two boots that drew the same id).
  half=$(( $(stat -c %s "$b") / 2 ))
  while [ "$(byte_at "$b" $((half - 1)))" = 00 ]; do half=$((half + 1)); done
  head -c "$half" "$b" >same-id.bin; cat "$b" >>same-id.bin
  echo "splice same-id: boot B (id $b_id) cut at byte $half, then boot B again (the same id)"
  check_pieces "$out/splice/same-id.bin" same-id "$b_id $b_id"
  # A reset during the replay: B cut half-way through its account of P, then B again (which sends
  # P's end again), after P's boot. P's session is the same as without the cut replay.
  local own_b
  own_b=$(session_starts "$b" | awk '$3 == 0 { print $1; exit }')
  half=$(( (lb + own_b) / 2 ))
  # inside a frame (not at its end: a frame that lost only its 0x00 is whole)
  while [ "$(byte_at "$b" $((half - 1)))" = 00 ] || [ "$(byte_at "$b" "$half")" = 00 ]; do half=$((half + 1)); done
  cat "$p" >replay-cut.bin; head -c "$half" "$b" >>replay-cut.bin; cat "$b" >>replay-cut.bin
  cat "$p" "$b" >replay-whole.bin
  echo "splice replay-cut: P's boot (id $p_id), boot B (id $b_id) cut at byte $half of its replay of P (${own_b} bytes), then boot B again"
  check_pieces "$out/splice/replay-cut.bin" replay-cut "$p_id $b_id"
  drain_run replay-whole.bin replay-whole || bad "replay-whole: drain exit status"
  rs() { grep "^drain: session [0-9]* (id $2," "$1.err" | sed -n 's/^drain: session \([0-9]*\) .*/\1/p' | head -1; }
  # The cut frame is one lost on the line (a bad frame: the estimates lower bounds, >=); the
  # figures are the same.
  bounds() { session_top "$1.top" "$(rs "$1" "$p_id")" | sed '/^  >=: every estimate/d; s/: >=/: /; s/>=/  /g; s/; a lower bound: .*//'; }
  local cb wb
  cb=$(summary replay-cut "$(rs replay-cut "$p_id")" bad); wb=$(summary replay-whole "$(rs replay-whole "$p_id")" bad)
  if [ -n "$(rs replay-cut "$p_id")" ] && [ "$cb" = $((wb + 1)) ] && diff <(bounds replay-cut) <(bounds replay-whole) >replay.diff; then
    echo "  session $p_id: with a replay cut by a reset, the same figures as with its replay alone, one more bad frame ($cb)"
  else
    bad "replay-cut: session $p_id ($cb bad frames) differs from its report without the cut replay ($wb bad frames):"; head -20 replay.diff
  fi
  cd "$out" || exit 2
}

mode_boots() {
  # The default build (the kept profile: each boot sends the session the reset ended), then one
  # with MSAMP_CFG_RESET_PROFILE 0 (nothing sent again; the session ids chained all the same).
  local v
  for v in demo-faults-boots:keep demo-faults-boots-nokeep:none; do
    echo "${v%%:*} (kept profile: ${v#*:})"
    boots_of "${v%%:*}" "${v#*:}"
  done
}
boots_of() {
  local elf run=$out/$1 cold=$out/$1-cold qemu st r ids counts offs
  elf=$(realpath "$dir/uart/$1.elf"); ELF=$elf
  mkdir -p "$run" "$cold"
  BOARD_QEMU_EXTRA="-qmp unix:$run/qmp.sock,server=on,wait=off" \
    "$(realpath "$here/../../boards/qemu_run.sh")" "$elf" uart "$run" >/dev/null 2>&1 &
  qemu=$!
  qmp_open "$run/qmp.sock" || { bad "QMP"; kill "$qemu"; wait "$qemu"; return; }
  for ((r = 1; r <= 2; r++)); do
    wait_lines "$run/console.txt" '^msamp-demo boot' "$r" 20 || { bad "boot $r never came"; break; }
    sleep 0.3
    qmp_cmd system_reset || { bad "reset $r"; break; }
  done
  qmp_close
  wait_pid "$qemu" "$limit"; st=$?
  [ "$st" = 0 ] || { bad "QEMU exit status $st"; tail -3 "$run/console.txt"; return; }
  ids=$(boot_lines "$run/console.txt" session | tr '\n' ' ')
  counts=$(boot_lines "$run/console.txt" boots | tr '\n' ' ')
  echo "one QEMU run, two warm resets: boot counts $counts, session ids $ids"
  [ "$counts" = "0 1 2 " ] || bad "boot counts '$counts', expected '0 1 2 ' (.noinit kept across a warm reset)"
  # shellcheck disable=SC2086 # one id a word
  [ "$(printf '%s\n' $ids | sort -u | wc -l)" = 3 ] || bad "session ids $ids: not three different ones"
  offs=$(boot_offsets "$run/stream.bin" | tr '\n' ' ')
  cd "$run" && RESETS=$2 check_pieces "$run/stream.bin" boots "$ids" "$run/console.txt"; cd "$out" || exit 2
  # A cold boot: a new QEMU, RAM as it comes up: the count starts again, and without entropy the
  # session id is the first boot's.
  "$(realpath "$here/../../boards/qemu_run.sh")" "$elf" uart "$cold" >/dev/null 2>&1 ||
    { bad "cold boot: QEMU exit status $?"; return; }
  local cold_id cold_count
  cold_id=$(boot_lines "$cold/console.txt" session); cold_count=$(boot_lines "$cold/console.txt" boots)
  echo "a cold boot in a new QEMU: boot count $cold_count, session id $cold_id"
  [ "$cold_count" = 0 ] || bad "cold boot: boot count '$cold_count', expected 0"
  [ "$cold_id" = "${ids%% *}" ] || bad "cold boot: id $cold_id, not the first boot's ${ids%% *}: the firmware has entropy after all"
}

mode_drain() {
  local elf st d1 d2 d3
  elf=$(realpath "$dir/uart/demo-faults-reset.elf"); ELF=$elf
  : >console.txt
  qemu_tcp "$elf" off || { fail=1; return; }
  local qemu=$QEMU_PID
  wait_lines console.txt '^msamp-demo boot' 1 20 || bad "no boot line"
  "$DRAIN" -q -e "$elf" -o killed.pb.gz "tcp:127.0.0.1:$PORT" >killed.out 2>&1 & d1=$!
  sleep 0.3; kill -9 "$d1"; wait "$d1" 2>/dev/null
  "$DRAIN" -q -e "$elf" -o interrupted.pb.gz "tcp:127.0.0.1:$PORT" >interrupted.out 2>&1 & d2=$!
  sleep 0.3; kill -INT "$d2"; wait_pid "$d2" 10; local st2=$?
  "$DRAIN" -q -e "$elf" -o late.pb.gz -t 8 "tcp:127.0.0.1:$PORT" >late.out 2>&1 & d3=$!
  wait_pid "$qemu" "$limit"; st=$?
  [ "$st" = 0 ] || bad "QEMU exit status $st"
  wait_pid "$d3" 10; d3=$?
  # SIGKILL: nothing written, and never half a file.
  [ ! -e killed.pb.gz ] || bad "a drain killed with SIGKILL left killed.pb.gz"
  ls ./*.tmp* .*.tmp* 2>/dev/null | grep -q . && bad "temporary files left: $(ls -a | grep tmp)"
  echo "drain killed (SIGKILL) after 0.3 s: no profile, no temporary file"
  # SIGINT: what it had, in a profile pprof reads.
  [ -s interrupted.pb.gz ] || bad "the drain interrupted by SIGINT wrote no profile: $(cat interrupted.out)"
  local n
  n=$(go tool pprof -comments interrupted.pb.gz 2>/dev/null | sed -n 's/.*reader: samples=\([0-9]*\).*/\1/p')
  [ "${n:-0}" -gt 0 ] && echo "drain interrupted (SIGINT) after 0.3 s: exit $st2, a profile pprof reads with $n samples" ||
    bad "the interrupted drain's profile has no samples (pprof: ${n:-unreadable})"
  [ "$st2" = 0 ] || bad "the drain interrupted by SIGINT exited with status $st2"
  # The drain that came later: in-use complete after the re-sends.
  [ "$d3" = 0 ] || bad "the last drain's exit status $d3: $(cat late.out)"
  local late_live
  late_live=$(go tool pprof -comments late.pb.gz 2>/dev/null | sed -n 's/.* late_live=\([0-9]*\).*/\1/p')
  [ "${late_live:-0}" -gt 0 ] || bad "the last drain did not join late (late_live=${late_live:-none})"
  echo "last drain joined late: $late_live live blocks learned from re-sends"
  "$here/check_demo.sh" late.pb.gz console.txt symbols accuracy-inuse leak drops || fail=1
}

mode_power() {
  local elf st d q1 id1 id2 n
  elf=$(realpath "$dir/uart/demo-faults-reset.elf"); ELF=$elf
  # 1. TCP: QEMU waits for the drain, streams 0.5 s, and dies.
  mkdir -p tcp && cd tcp || exit 2
  : >console.txt
  qemu_tcp "$elf" on || { fail=1; return; }
  q1=$QEMU_PID
  "$DRAIN" -e "$elf" -o lost.pb.gz "tcp:127.0.0.1:$PORT" >lost.out 2>lost.err & d=$!
  wait_lines console.txt '^msamp-demo boot' 1 20 || bad "no boot line"
  sleep 0.5; kill -9 "$q1"; wait "$q1" 2>/dev/null
  wait_pid "$d" 5; st=$?
  id1=$(boot_lines console.txt session | head -1)
  [ "$st" = 0 ] || bad "drain after the power loss: exit status $st"
  n=$(sed -n 's/^drain: session 1 (id \(0x[0-9a-f]*\), [^)]*): \([0-9]*\) samples.*/\1 \2/p' lost.err)
  echo "power loss: QEMU killed 0.5 s into the boot; drain ended by itself ($st): session ${n:-none}"
  [ "${n%% *}" = "$id1" ] && [ "${n##* }" -gt 0 ] || bad "drain's session after the power loss: '${n:-}' (boot id $id1)"
  go tool pprof -raw lost.pb.gz >/dev/null 2>&1 || bad "pprof cannot read the profile written at the power loss"
  # A new boot into a new connection: a new session, complete and within bound.
  : >console.txt
  qemu_tcp "$elf" on || { fail=1; return; }
  "$DRAIN" -e "$elf" -o again.pb.gz -t 8 "tcp:127.0.0.1:$PORT" >again.out 2>again.err & d=$!
  wait_pid "$QEMU_PID" "$limit"; st=$?
  wait_pid "$d" 10 || bad "drain of the second boot: exit status $?"
  [ "$st" = 0 ] || bad "second QEMU: exit status $st"
  id2=$(boot_lines console.txt session | head -1)
  n=$(sed -n 's/^drain: session 1 (id \(0x[0-9a-f]*\),.*/\1/p' again.err)
  [ "$n" = "$id2" ] && [ "$(sessions_of again)" = 1 ] || bad "second boot: sessions $(sessions_of again), id ${n:-none} (boot id $id2)"
  echo "power back: a new connection, session $n"
  "$here/check_demo.sh" again.pb.gz console.txt symbols accuracy leak isr drops || fail=1
  cd "$out" || exit 2

  # 2. One file: QEMU appends to stream.bin, drain --follow reads it; the first QEMU is killed
  # 0.5 s into its boot, a second one boots and finishes.
  mkdir -p follow && cd follow || exit 2
  : >stream.bin; : >console.txt
  "$DRAIN" -e "$elf" -t 1000 --follow -o follow.pb.gz stream.bin >follow.top 2>follow.err & d=$!
  local chr="-chardev file,id=uart0,path=stream.bin,append=on -serial chardev:uart0"
  # shellcheck disable=SC2086
  $BOARD_QEMU $chr -kernel "$elf" </dev/null >>console.txt 2>&1 & q1=$!
  wait_lines console.txt '^msamp-demo boot' 1 20 || bad "no boot line"
  sleep 0.5; kill -9 "$q1"; wait "$q1" 2>/dev/null
  local cut
  cut=$(stat -c %s stream.bin)
  # shellcheck disable=SC2086
  $BOARD_QEMU $chr -kernel "$elf" </dev/null >>console.txt 2>&1 & q1=$!
  wait_pid "$q1" "$limit"; st=$?
  [ "$st" = 0 ] || bad "second QEMU appending to the file: exit status $st"
  sleep 0.5; kill -INT "$d"; wait_pid "$d" 10 || bad "drain --follow: exit status $?"
  echo "power loss with drain --follow: first boot cut at byte $cut ($([ "$(byte_at stream.bin $((cut - 1)))" = 00 ] && echo 'a frame end' || echo 'inside a frame'))"
  # drain --follow's sessions, one per boot, each the same as drain's of that boot's bytes alone.
  local ids offs lead
  ids=$(boot_lines console.txt session | tr '\n' ' ')
  offs=$(boot_offsets stream.bin | tr '\n' ' ')
  lead=$(lead_of stream.bin "${offs%% *}")
  [ "$offs" = "$lead $((cut + lead)) " ] || bad "boot frames at $offs, expected at $lead and $((cut + lead))"
  for f in follow.pb.gz follow.s2.pb.gz; do go tool pprof -raw "$f" >/dev/null 2>&1 || bad "--follow: $f unreadable"; done
  KEEP_RUN=1 RESETS=none check_pieces "$(pwd)/stream.bin" follow "$ids" console.txt
  cd "$out" || exit 2
}

mode_tables() {
  local elf st fw
  elf=$(realpath "$dir/uart/demo-faults-tables.elf"); ELF=$elf
  local t0=$SECONDS
  "$(realpath "$here/../../boards/qemu_run.sh")" "$elf" uart "$out" >/dev/null 2>&1; st=$?
  echo "demo-faults-tables: QEMU exit status $st after $((SECONDS - t0)) s (limit $limit s)"
  grep -v '^msamp-demo truth' console.txt
  [ "$st" = 0 ] || { bad "the firmware did not finish cleanly (124: deadlock or timeout)"; return; }
  fw=$(sed -n 's/^msamp-demo faults //p' console.txt)
  val() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
  local stats k
  stats=$(sed -n 's/^msamp-demo stats //p' console.txt)
  for k in live_full stack_full ring_records; do
    [ "$(val $k "$stats")" -gt 0 ] || bad "$k is 0: that table or the ring never filled"
  done
  [ "$(val isr_in_alloc "$fw")" -gt 0 ] || bad "no interrupt landed inside the main context's allocation calls"
  drain_run stream.bin tables || bad "drain exit status"
  [ "$(sessions_of tables)" = 1 ] || bad "sessions: $(sessions_of tables)"
  # drain's in-use objects per site (interval 1: each weighs 1) against the firmware's live table.
  go tool pprof -sample_index=inuse_objects -top -nodefraction=0 -nodecount=100000 tables.pb.gz 2>/dev/null |
    awk '/flat%/ { go = 1; next } go && NF >= 6 && $1 != "0" { n = $6; for (i = 7; i <= NF; i++) n = n " " $i; print n "=" $1 }' |
    sort >drain.sites
  { sed -n 's/^msamp-demo faults-site site=\([^ ]*\) live_entries=\([0-9]*\)/\1=\2/p' console.txt | grep -v '=0$'
    k=$(val stack_full_entries "$fw"); [ "$k" -gt 0 ] && echo "[stack table full]=$k"; } | sort >fw.sites
  echo "live entries by site, firmware: $(tr '\n' ' ' <fw.sites)"
  echo "in-use objects by site, drain:  $(tr '\n' ' ' <drain.sites)"
  diff -q fw.sites drain.sites >/dev/null || bad "drain's in-use set differs from the firmware's live table"
  "$here/check_demo.sh" tables.pb.gz console.txt drops || fail=1
}

case "$mode" in
  reset|boots|drain|power|tables) "mode_$mode" ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
[ $fail = 0 ] && echo "ok: device faults ($mode)"
exit $fail
