#!/usr/bin/env bash
# Usage: tests/board/faults.sh MODE DIR   (environment: BOARD_QEMU, BOARD_QEMU_TIMEOUT, DRAIN,
#        MSAMP_DUMP; SOAK=1 for the long forms; FAULT_SEEDS, FAULT_RESETS override them)
# Device faults on a QEMU board, with the demo's fault variants built in DIR/uart/
# (demo-faults-reset.elf, demo-faults-tables.elf; tests/board/board_faults.mk):
#   reset   the board is reset through QMP (system_reset on a unix socket in the test's folder)
#           at random times while it streams, for several seeds; then streams are spliced at
#           chosen byte offsets: a boot cut inside its SESSION record, at a frame's end, inside a
#           frame, followed by a fresh boot (another session id, and the same one). Each time:
#           one session per boot, each session's report equal to drain's report of that boot's
#           bytes alone (no mixing), the cut frame counted as bad, no frame counted lost, the last
#           boot's estimates within the demo's bounds.
#   boots   demo-faults-boots, a device without entropy (the clock gives its session id nothing):
#           two warm resets (QMP system_reset) in one QEMU run, then a cold boot in a new QEMU.
#           The boot counter (.noinit) reads 0, 1, 2 and the three session ids differ; drain
#           reports three sessions with those ids, each equal to its boot's bytes alone; the cold
#           boot counts 0 again and draws the first boot's id (nothing else tells boots apart).
#   drain   the UART is a TCP server; a drain is killed (SIGKILL) mid-stream, another interrupted
#           (SIGINT: it writes what it had, a profile pprof reads), a third connects later: its
#           in-use profile is within bound of the truth after the re-sends.
#   power   QEMU is killed (SIGKILL) with a drain connected: drain sees the end of input and
#           writes its profile; a new QEMU and a new connection give a new, clean session. The
#           same into one file (QEMU appending) followed by `drain --follow`.
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

# check_pieces STREAM NAME "OFFSETS" "IDS" [TRUTH-CONSOLE]
# STREAM is pieces, one boot each, whose boot frames start at OFFSETS with session ids IDS. A
# device that sends a delimiter (0x00) ahead of its boot frame (the first offset is then 1) owns
# that byte: piece i is [OFFSETS[i] - lead, OFFSETS[i+1] - lead). A piece with no complete frame
# gives no session (its bytes are counted as discarded or bad); every other piece must give one
# session whose report (--top of every site, samples, frees) equals drain's report of the piece
# alone, with no frame counted lost and as many bad frames as the piece has cut frames (1 when it
# ends inside a frame, but the last). With TRUTH-CONSOLE (the console of the boot that finished),
# the last session is checked against the demo's truth by check_demo.sh.
check_pieces() {
  local s=$1 name=$2 size offs ids n i k from to ses want_bad lastp lead
  read -r -a offs <<<"$3"; read -r -a ids <<<"$4"
  size=$(stat -c %s "$s"); n=${#offs[@]}; lead=$(lead_of "$s" "${offs[0]}")
  # KEEP_RUN=1: drain's reports of STREAM are already in NAME.top and NAME.err (drain --follow).
  [ "${KEEP_RUN:-0}" = 1 ] || drain_run "$s" "$name" || { bad "$name: drain exit status $?"; cat "$name.err"; return; }
  ses=0; local carry=0 empty=0
  for ((i = 0; i < n; i++)); do
    from=$((offs[i] - lead)); to=$([ $((i + 1)) -lt "$n" ] && echo $((offs[i + 1] - lead)) || echo "$size")
    slice "$s" "$from" "$to" "$name.piece$i.bin"
    if ! tail -c +$((lead + 1)) "$name.piece$i.bin" | LC_ALL=C grep -qaP '\x00'; then
      # Its cut frame: a bad frame once the reader is in step (a delimiter came before it),
      # else bytes discarded before the first delimiter.
      [ "$lead" = 1 ] || [ "$i" -gt 0 ] && carry=1
      echo "  piece $i [$from, $to): no complete frame, no session ($([ $carry = 1 ] && echo 'a bad frame' || echo 'bytes discarded'))"
      continue
    fi
    ses=$((ses + 1))
    # The piece alone ends with a delimiter: a frame that lost only its 0x00 to the reset is whole
    # (the next boot's delimiter ends it in the stream too), a cut one is a bad frame.
    printf '\0' >>"$name.piece$i.bin"
    drain_run "$name.piece$i.bin" "$name.piece$i" || { bad "$name: drain on piece $i"; continue; }
    if [ $((i + 1)) -lt "$n" ] && [ "$(summary "$name.piece$i" 1 samples)" = 0 ] &&
       ! "$DUMP" "$name.piece$i.bin" 2>/dev/null | grep -q '^STACK '; then
      # A boot cut before its first sample or stack (its first frames hold the SESSION header,
      # TIME and HEAP records alone): drain writes no profile for an empty boot that another
      # follows (docs/DRAIN.md), so no session (it keeps its number, and its cut frame goes
      # with it).
      empty=$((empty + 1))
      echo "  piece $i [$from, $to) id ${ids[i]}: a header without a sample or a stack, no session (as drain writes none for an empty boot)"
      continue
    fi
    want_bad=$(( carry + $(summary "$name.piece$i" 1 bad) )); carry=0
    CUT_FRAMES=$((CUT_FRAMES + want_bad))
    local got_id got_bad got_lost
    got_id=$(summary "$name" "$ses" id); got_bad=$(summary "$name" "$ses" bad); got_lost=$(summary "$name" "$ses" lost)
    echo "  piece $i [$from, $to) id ${ids[i]}$([ "$want_bad" -gt 0 ] && echo ", $want_bad cut frame(s)"):" \
      "session $ses id ${got_id:-none}, $(summary "$name" "$ses" samples) samples" \
      "(alone: $(summary "$name.piece$i" 1 samples)), bad frames ${got_bad:-?}, lost frames ${got_lost:-?}"
    [ "$got_id" = "${ids[i]}" ] || bad "$name: session $ses has id ${got_id:-none}, the boot's is ${ids[i]}"
    [ "${got_bad:-x}" = "$want_bad" ] || bad "$name: session $ses counts ${got_bad:-?} bad frames, expected $want_bad"
    [ "${got_lost:-x}" = 0 ] || bad "$name: session $ses counts ${got_lost:-?} lost frames (a reset is not a loss)"
    for k in samples frees; do
      [ "$(summary "$name" "$ses" $k)" = "$(summary "$name.piece$i" 1 $k)" ] ||
        bad "$name: session $ses has $(summary "$name" "$ses" $k) $k, the boot's bytes alone $(summary "$name.piece$i" 1 $k)"
    done
    if ! diff <(session_top "$name.top" "$ses") <(session_top "$name.piece$i.top" 1) >"$name.diff$i"; then
      bad "$name: session $ses's sites differ from those of boot $i's bytes alone (mixed sessions):"
      head -20 "$name.diff$i"
    fi
  done
  k=$(sessions_of "$name")
  [ "$k" = $((ses - empty)) ] || bad "$name: drain reported $k sessions for $((ses - empty)) boots with data"
  lastp=$(profile_of "$name" "$ses")
  [ -s "$lastp" ] || { bad "$name: no profile $lastp"; return; }
  [ -n "${5:-}" ] || return 0
  cp "$5" "$name.console.txt"
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
    cd "$run" && check_pieces "$run/stream.bin" reset "$offs" "$ids" "$run/console.txt"; cd "$out" || exit 2
  done
  echo "real resets: $total_cuts, of which $CUT_FRAMES cut a frame; runs with a session id drawn twice: $same_ids"

  # Splices at chosen offsets: A = the first boot of seed ${seeds%% *} (cut short by its reset),
  # B = its last boot (complete, the truth in its console).
  local s1=${seeds%% *} run a b a_id b_id first o name
  run=$out/seed$s1
  [ -s "$run/reset.piece0.bin" ] || { bad "no pieces from seed $s1 to splice"; return; }
  a=$run/reset.piece0.bin
  b=$(ls "$run"/reset.piece*.bin | sort -V | tail -1)
  a_id=$("$DUMP" "$a" 2>/dev/null | sed -n 's/^SESSION .*session_id=\(0x[0-9a-f]*\).*/\1/p' | head -1)
  b_id=$("$DUMP" "$b" 2>/dev/null | sed -n 's/^SESSION .*session_id=\(0x[0-9a-f]*\).*/\1/p' | head -1)
  local la lb
  la=$(lead_of "$a" "$(boot_offsets "$a" | head -1)"); lb=$(lead_of "$b" "$(boot_offsets "$b" | head -1)")
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
    check_pieces "$out/splice/$name.bin" "$name" "$la $((o + lb))" "$a_id $b_id" \
      "$([ "$name" = session-header ] && echo "$run/console.txt")"
  done
  # The same session id twice: B cut half-way, then B again (two boots that drew the same id).
  half=$(( $(stat -c %s "$b") / 2 ))
  while [ "$(byte_at "$b" $((half - 1)))" = 00 ]; do half=$((half + 1)); done
  head -c "$half" "$b" >same-id.bin; cat "$b" >>same-id.bin
  echo "splice same-id: boot B (id $b_id) cut at byte $half, then boot B again (the same id)"
  check_pieces "$out/splice/same-id.bin" same-id "$lb $((half + lb))" "$b_id $b_id"
  cd "$out" || exit 2
}

mode_boots() {
  local elf run=$out/boots cold=$out/cold qemu st r ids counts offs
  elf=$(realpath "$dir/uart/demo-faults-boots.elf"); ELF=$elf
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
  cd "$run" && check_pieces "$run/stream.bin" boots "$offs" "$ids" "$run/console.txt"; cd "$out" || exit 2
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
  KEEP_RUN=1 check_pieces "$(pwd)/stream.bin" follow "$offs" "$ids" console.txt
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
