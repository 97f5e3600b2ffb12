#!/usr/bin/env bash
# Usage: tests/docs/drain_examples.sh FWDIR FILE...   (test docs-drain-examples)
# drain's example blocks (README.md's drain section, docs/DRAIN.md's Examples), each line as written
# in order, in a user's checkout holding what the lines name and a user would have:
#   firmware.elf   the README's firmware snippet (FWDIR/firmware.elf, docs-firmware-snippet)
#   ./app          tests/docs/app.c built through pkg-config (-O2 -g -fno-omit-frame-pointer)
# Each kind of line gets its device:
#   /dev/ttyUSB0         firmware.elf under QEMU on a pty linked as CHECKOUT/dev/ttyUSB0 (only the
#                        device's folder replaced), Ctrl-C (SIGINT to the line's group) after 3 s
#   tcp:HOST:PORT        QEMU serving the UART on 127.0.0.1:PORT (server, waiting for drain) and
#                        running the line's --elf firmware to its end
#   tcp-listen:PORT ... &  runs on in the background; the next line (MSAMP_OUTPUT=tcp:...) runs once
#                        it printed "listening on", and the listener must then end with status 0
#   --follow FILE        a SIGINT to the line's group once the program writing FILE has ended
#   drain merge OUT IN...  the IN profiles the checkout lacks are copies of the profiles the lines
#                        before wrote (stand-ins for two devices' profiles)
# A port the lines name that is in use on this machine is replaced by a free one (said so). Every
# line must exit 0; every profile a line writes (-o, merge) must hold samples, every view it asks
# for (--timeline, --flame, --folded, --peak) must be written; go tool pprof's
# table must list the firmware's or the app's sites. A block identical to one run before is not
# run again.
. "$(dirname "$0")/lib.sh"
fw=$1
shift
[ -n "${BOARD_QEMU:-}" ] || { echo "BOARD_QEMU is not set" >&2; exit 2; }
pc=$BUILD/hosted

port_busy() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }
free_port() { local p; for p in $(shuf -i 20000-60000 -n 50); do port_busy "$p" || { echo "$p"; return; }; done; }
declare -A PORTS
# subst TEXT: the line with busy ports replaced (PORTS), as run.
subst() {
  local t=$1 p
  for p in "${!PORTS[@]}"; do t=${t//:$p/:${PORTS[$p]}}; done
  printf '%s' "$t"
}
claim_ports() { # TEXT: ports named as tcp...:PORT or 127.0.0.1:PORT, replaced when busy
  local p
  for p in $(grep -oE '(tcp(-listen)?:([0-9.]+:)?|127\.0\.0\.1:)[0-9]+' <<<"$1" | grep -oE '[0-9]+$'); do
    [ -n "${PORTS[$p]:-}" ] && continue
    if port_busy "$p"; then
      PORTS[$p]=$(free_port)
      note "port $p is in use here: the lines run with ${PORTS[$p]}"
    else
      PORTS[$p]=$p
    fi
  done
}

LISTEN_PID=
line_hook() {
  local where=$1 text=$2 t rc elf port
  claim_ports "$text"
  t=$(subst "$text")
  case "$t" in
    *"/dev/ttyUSB0"*)
      tty_line "$where" "$t" "$co/firmware.elf" int ;;
    *"tcp-listen:"*"&"*)
      "${USER_ENV[@]}" setsid bash -c "${t%%&*}" </dev/null >"$LINE_OUT.out" 2>"$LINE_OUT.err" &
      LISTEN_PID=$!
      for i in $(seq 100); do grep -q 'listening on' "$LINE_OUT.err" && break; kill -0 "$LISTEN_PID" 2>/dev/null || break; sleep 0.1; done
      if grep -q 'listening on' "$LINE_OUT.err"; then
        ok "$where: $text   (in the background: $(grep -m1 'listening on' "$LINE_OUT.err"))"
      else
        fail "$where: no 'listening on' from: $text"; show "$LINE_OUT.err"
      fi ;;
    *"MSAMP_OUTPUT=tcp:"*)
      run_line "$where" "$t"
      rc=$?
      cp "$W/last.out" "$LINE_OUT.out"; cp "$W/last.err" "$LINE_OUT.err"
      [ $rc = 0 ] && ok "$where: $text" || { fail "$where: exit $rc: $text"; show "$W/last.err"; }
      if [ -n "$LISTEN_PID" ]; then
        for i in $(seq 200); do kill -0 "$LISTEN_PID" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$LISTEN_PID" 2>/dev/null; then
          kill -KILL -- -"$LISTEN_PID"; fail "$where: the listening drain did not end after the program"
        else
          wait "$LISTEN_PID"
          rc=$?
          [ $rc = 0 ] && ok "$where: the listening drain ended with status 0 after the program" || fail "$where: the listening drain's status $rc"
        fi
        LISTEN_PID=
      fi ;;
    *"host_tools/drain tcp:"*)
      port=$(grep -oE 'tcp:[0-9.]+:[0-9]+' <<<"$t" | grep -oE '[0-9]+$')
      elf=$(grep -oE -- '(--elf|-e) [^ ]+' <<<"$t" | head -n1 | cut -d' ' -f2)
      if [ ! -f "$elf" ]; then
        fail "$where: $elf, the --elf of the line, does not exist (a user's checkout after make: $(ls build/*/uart/demo.elf 2>/dev/null | head -n1))"
        return 0
      fi
      # shellcheck disable=SC2086  # BOARD_QEMU is a command line
      $BOARD_QEMU -serial "tcp:127.0.0.1:$port,server=on,wait=on" -kernel "$elf" </dev/null >"$W/qemu-tcp.log" 2>&1 &
      local qpid=$!
      for i in $(seq 100); do port_busy "$port" && break; sleep 0.1; done
      run_line "$where" "$t"
      rc=$?
      cp "$W/last.out" "$LINE_OUT.out"; cp "$W/last.err" "$LINE_OUT.err"
      kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null
      [ $rc = 0 ] && ok "$where: $text   (QEMU serving $elf's UART on 127.0.0.1:$port)" || { fail "$where: exit $rc: $text"; show "$W/last.err"; } ;;
    *"--follow"*)
      run_session "$t" 1 'for i in $(seq 200); do pgrep -g "$SESSION_PID" -x app >/dev/null || break; sleep 0.1; done; sleep 0.5; kill -INT -- -"$SESSION_PID"'
      rc=$?
      [ $rc = 0 ] && ok "$where: $text   (Ctrl-C, a SIGINT to the line's group, once ./app ended)" || { fail "$where: exit $rc: $text"; show "$LINE_OUT.err"; } ;;
    *"drain merge "*)
      local w have=() f
      for f in *.pb.gz; do [ -f "$f" ] && have+=("$f"); done
      read -r -a w <<<"${t%%#*}"
      for f in "${w[@]:3}"; do
        [ -e "$f" ] && continue
        [ ${#have[@]} -gt 0 ] || { fail "$where: no profile to stand in for $f"; break; }
        cp "${have[0]}" "$f"; note "$f: a copy of ${have[0]} (a stand-in)"
        have=("${have[@]:1}" "${have[0]}")
      done
      return 1 ;;
    *) [ "$t" = "$text" ] && return 1
      run_line "$where" "$t"; rc=$?
      cp "$W/last.out" "$LINE_OUT.out"; cp "$W/last.err" "$LINE_OUT.err"
      [ $rc = 0 ] && ok "$where: $text   (as $t)" || { fail "$where: exit $rc: $t"; show "$W/last.err"; } ;;
  esac
  return 0
}

declare -A seen_block
for f in "$@"; do
  "$here/extract.sh" -n "$f" "$TEST" | cut -f2- >"$W/this-block" || { fail "$f: no block annotated doc-test: $TEST"; continue; }
  sum=$(md5sum <"$W/this-block" | cut -d' ' -f1)
  if [ -n "${seen_block[$sum]:-}" ]; then
    ok "$f: its block is ${seen_block[$sum]}'s, line for line: run once"
    continue
  fi
  seen_block[$sum]=$f
  co=$W/co-$(basename "$f" .md)
  checkout "$co"
  cp "$fw/firmware.elf" "$here/app.c" "$co/"
  (cd "$co" && cc -O2 -g -fno-omit-frame-pointer -c app.c && cc app.o $(PKG_CONFIG_PATH=$BUILD_ABS/hosted pkg-config --libs msamp) -o app) ||
    { fail "building ./app"; continue; }
  PORTS=()
  run_lines "$f" "$co"
  # The profiles the lines wrote.
  for p in $(sed -nE 's/.*(-o|--output) ([^ ]+).*/\2/p; s/.*drain merge ([^ ]+).*/\1/p' "$W/this-block" | sort -u); do
    n=$(pp -raw "$co/$p" 2>/dev/null | sed -n 's/.*reader: samples=\([0-9]*\).*/\1/p' | head -n1)
    rows=$(samples "$co/$p")
    [ "$rows" -gt 0 ] && ok "$f: $p holds $rows sample rows${n:+ ($n samples)}" || fail "$f: $p: no profile with samples"
  done
  # The views the lines asked for were written.
  for v in $(grep -oE -- '--(timeline|timeline-csv|flame|folded|peak) [^ ]+' "$W/this-block" | cut -d' ' -f2 | sort -u); do
    [ -s "$co/$v" ] && ok "$f: $v written ($(stat -c %s "$co/$v") bytes)" || fail "$f: $v, named by a line, was not written"
  done
  out=$(line_out '^go tool pprof -top')
  if grep -q '^go tool pprof -top' "$W/this-block"; then
    grep -qE '^ +flat +flat%' "$out" && grep -qE 'queue_message|load_records' "$out" &&
      ok "$f: go tool pprof -top lists the sites" || { fail "$f: go tool pprof -top output"; show "$out"; }
  fi
done
finish
