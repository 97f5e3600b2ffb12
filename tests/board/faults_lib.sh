# Helpers of tests/board/faults.sh (sourced): QMP over a unix socket, QEMU with its UART on a TCP
# port of 127.0.0.1, the boot frames of a stream, drain's per-session reports.

# --- QMP (QEMU's machine protocol) through socat, one connection kept open -----------------------
# qmp_open SOCK: connect and leave command mode on (qmp_capabilities).
qmp_open() {
  local sock=$1 line i
  for i in $(seq 100); do [ -S "$sock" ] && break; sleep 0.02; done
  [ -S "$sock" ] || { echo "FAIL: no QMP socket $sock"; return 1; }
  coproc QMP { exec socat - "UNIX-CONNECT:$sock"; }
  read -r -t 5 line <&"${QMP[0]}" || { echo "FAIL: no QMP greeting"; return 1; }
  qmp_cmd qmp_capabilities
}
# qmp_cmd COMMAND: send it, wait for its return (events before it are skipped).
qmp_cmd() {
  local line
  echo "{\"execute\":\"$1\"}" >&"${QMP[1]}"
  while read -r -t 5 line <&"${QMP[0]}"; do
    case "$line" in
      *'"return"'*) return 0 ;;
      *'"error"'*) echo "FAIL: QMP $1: $line"; return 1 ;;
    esac
  done
  echo "FAIL: QMP $1: no answer"
  return 1
}
qmp_close() {
  [ -n "${QMP_PID:-}" ] || return 0
  exec {QMP[1]}>&-
  wait "$QMP_PID" 2>/dev/null
  return 0
}

# --- QEMU with the UART on TCP -------------------------------------------------------------------
listening() { ss -ltn 2>/dev/null | awk '{ print $4 }' | grep -q ":$1\$"; }
# qemu_tcp ELF WAIT(on|off): starts QEMU in the background serving the UART on a free port of
# 127.0.0.1 (wait=on: the guest starts once a client connected), console to console.txt (appended
# to), no time limit of its own (the caller kills it). Sets QEMU_PID and PORT.
qemu_tcp() {
  local elf=$1 wait=$2 attempt
  QEMU_PID=""
  for attempt in 1 2 3 4 5; do
    PORT=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    listening "$PORT" && continue
    # shellcheck disable=SC2086  # BOARD_QEMU is a command line
    $BOARD_QEMU -serial "tcp:127.0.0.1:$PORT,server=on,wait=$wait" -kernel "$elf" </dev/null >>console.txt 2>&1 &
    QEMU_PID=$!
    for _ in $(seq 100); do listening "$PORT" && break; kill -0 "$QEMU_PID" 2>/dev/null || break; sleep 0.02; done
    listening "$PORT" && return 0
    kill -9 "$QEMU_PID" 2>/dev/null; wait "$QEMU_PID" 2>/dev/null; QEMU_PID=""
  done
  echo "FAIL: QEMU did not listen on a TCP port"
  return 1
}
# wait_lines FILE PATTERN N [SECONDS]: until FILE has N lines matching PATTERN.
wait_lines() {
  local i
  for i in $(seq $((${4:-20} * 50))); do
    [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ] && return 0
    sleep 0.02
  done
  return 1
}
# wait_pid PID SECONDS: waits for a background job to end, kills it (SIGKILL) after SECONDS;
# returns its exit status (137 when killed).
wait_pid() {
  local pid=$1 i
  for i in $(seq $(($2 * 50))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
  kill -0 "$pid" 2>/dev/null && { echo "FAIL: process $pid still running after $2 s: killed"; kill -9 "$pid"; }
  wait "$pid"
}

# --- streams -------------------------------------------------------------------------------------
# boot_offsets STREAM: byte offsets where a boot frame starts (seq 0, first record a SESSION with
# resend_seq 0), checked by decoding the stream from there. The frame's COBS encoding starts with
# 0x01 (the seq byte 0), a code byte (at least 4: header, length, version, then flags or more),
# the SESSION header 0xf1, its length (19..127), the version (1, or 2 since issue 41).
boot_offsets() {
  local s=$1 o
  LC_ALL=C grep -obUaP '\x01[\x04-\xff]\xf1[\x13-\x7f][\x01\x02]' "$s" | cut -d: -f1 | while read -r o; do
    tail -c +$((o + 1)) "$s" | head -c 8192 | "$DUMP" 2>/dev/null | head -2 | tr '\n' ' ' |
      grep -q '^frame seq=0 SESSION .*resend_seq=0 ' && echo "$o"
  done
}
# boot_lines CONSOLE FIELD: each boot line's field (session: the session id, boots: the board's boot
# count), one a line ("msamp-demo boot session=0x........ boots=N").
boot_lines() { sed -n "s/^msamp-demo boot .*\<$2=\([0-9a-fx]*\).*/\1/p" "$1"; }
# lead_of STREAM FIRST-BOOT-OFFSET: 1 when the device sends a delimiter ahead of its boot frame
# (the stream starts 0x00 then the boot frame), else 0.
lead_of() { [ "$2" = 1 ] && [ "$(byte_at "$1" 0)" = 00 ] && echo 1 || echo 0; }
# byte_at FILE OFFSET: the byte as two hex digits.
byte_at() { od -A n -t x1 -j "$2" -N 1 "$1" | tr -d ' '; }
# slice FILE FROM TO OUT: bytes [FROM, TO) of FILE.
slice() { tail -c +$(($2 + 1)) "$1" | head -c $(($3 - $2)) >"$4"; }

# --- drain's reports -----------------------------------------------------------------------------
# drain_run STREAM OUT: drain with --top into OUT (profiles OUT.pb.gz, OUT.s2.pb.gz, ...),
# stdout OUT.top, stderr OUT.err (one summary line per session).
drain_run() {
  "$DRAIN" -e "$ELF" -t 1000 -o "$2.pb.gz" "$1" >"$2.top" 2>"$2.err"
}
# session_top TOPFILE N: the --top block of session N, its session number taken out.
session_top() {
  awk -v n="$2" '/^session [0-9]+ \(id / { on = ($2 == n); sub(/^session [0-9]+/, "session") } on' "$1"
}
# summary OUT N FIELD: from session N's summary line: id, samples, frees, bad, lost, discarded.
summary() {
  local line
  line=$(grep "^drain: session $2 (" "$1.err" | head -1)
  case "$3" in
    id) echo "$line" | sed -n 's/.*(id \(0x[0-9a-f]*\),.*/\1/p' ;;
    samples) echo "$line" | sed -n 's/.*): \([0-9]*\) samples.*/\1/p' ;;
    frees) echo "$line" | sed -n 's/.*): [0-9]* samples, \([0-9]*\) frees.*/\1/p' ;;
    bad) echo "$line" | sed -n 's/.* \([0-9]*\) bad frames.*/\1/p' ;;
    lost) echo "$line" | sed -n 's/.* \([0-9]*\) lost frames.*/\1/p' ;;
    discarded) echo "$line" | sed -n 's/.* \([0-9]*\) bytes discarded.*/\1/p' ;;
  esac
}
sessions_of() { grep -c '^drain: session [0-9]* (' "$1.err"; }
# profile_of OUT N: the file of session N.
profile_of() { [ "$2" = 1 ] && echo "$1.pb.gz" || echo "$1.s$2.pb.gz"; }

# session_starts STREAM: the sessions' first frames: each frame (CRC good) whose first record is a
# SESSION with resend_seq 0, one a line: OFFSET (its first byte, after the delimiter before it),
# the session id, 1 when its flags have PREVIOUS (a boot's replay of the session a reset ended:
# docs/WIRE_FORMAT.md#reset), else 0.
session_starts() {
  python3 - "$1" <<'PY'
import sys, zlib
b = open(sys.argv[1], "rb").read()
def cobs(x):
    o, i = bytearray(), 0
    while i < len(x):
        c = x[i]
        if c == 0 or i + c > len(x):
            return None
        o += x[i + 1:i + c]
        i += c
        if c < 0xFF and i < len(x):
            o.append(0)
    return bytes(o)
start = 0
while True:
    end = b.find(b"\0", start)
    if end < 0:
        break
    f = cobs(b[start:end])
    if f and len(f) > 12 and f[1] & 0x0F == 1 and zlib.crc32(f[:-4]) == int.from_bytes(f[-4:], "little"):
        n = 2 if f[1] >> 4 != 15 else 3  # seq, header, [length]: version, flags, id, resend_seq
        if f[n] in (1, 2) and f[n + 6] == 0:  # the wire version (2 since issue 41)
            print(start, "0x%08x" % int.from_bytes(f[n + 2:n + 6], "little"), 1 if f[n + 1] & 0x08 else 0)
    start = end + 1
PY
}
