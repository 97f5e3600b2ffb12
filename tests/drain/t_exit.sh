#!/usr/bin/env bash
# drain's and msamp-dump's exit statuses, each as documented (docs/DRAIN.md "Exit status",
# docs/MSAMP_DUMP.md): every code, through the case that gives it, with its message. drain:
#   0 a profile written (also: a damaged stream, frames without a SESSION, SIGINT/SIGTERM after
#     data, --help, --version)
#   1 input, output, ELF or build-id error (missing, unreadable or failing input, port in use,
#     a profile or report that cannot be written, stdout on a full disk)
#   2 bad command line (options, their values, a malformed tcp:/tcp-listen: INPUT)
#   3 out of memory
#   4 no valid msamp frame in the input (empty, zeros, text, random bytes, nothing before the stop
#     signal): no profile written
# msamp-dump: 0 read, 1 damage with --strict, 2 bad usage, unreadable input or unwritable output.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
DUMP=${MSAMP_DUMP:?MSAMP_DUMP: msamp-dump}
$GEN --allocs 2000 "$W/s.bin" "$W/s.truth"

# expect_rc WHAT CODE PATTERN CMD...: CMD exits with CODE exactly (no signal, no sanitizer
# report) and prints PATTERN on stderr (PATTERN empty: anything).
expect_rc() {
  local what=$1 want=$2 pat=$3
  shift 3
  "$@" >"$W/out" 2>"$W/err"
  local rc=$?
  if [ $rc -ne "$want" ] || grep -q 'Sanitizer\|runtime error' "$W/err"; then
    fail "$what: exit $rc, want $want"; sed 's/^/    /' "$W/err" >&2
  elif [ -n "$pat" ] && ! grep -qi -- "$pat" "$W/err"; then
    fail "$what: exit $rc but stderr lacks '$pat':"; sed 's/^/    /' "$W/err" >&2
  else
    ok "$what: exit $rc${pat:+ ($(grep -i -m1 -- "$pat" "$W/err" | cut -c1-150))}"
  fi
}
# none WHAT PATH...: no file at any PATH (nor a temporary one beside it).
none() {
  local what=$1 p
  shift
  for p in "$@"; do
    if [ -e "$p" ] || [ -n "$(temporaries "$p")" ]; then fail "$what: $p written"; return; fi
  done
  ok "$what: no profile written"
}

# --- 0: a profile written -------------------------------------------------------------------
expect_rc "a stream" 0 "wrote" $D -o "$W/ok.pb.gz" "$W/s.bin"
[ -n "$(counter samples "$W/ok.pb.gz")" ] && ok "a stream: profile written" || fail "a stream: no profile"
size=$(stat -c %s "$W/s.bin")
head -c $((size * 2 / 3)) "$W/s.bin" >"$W/cut.bin"
expect_rc "a stream cut short (damage is counted, not an error)" 0 "" $D -q -o "$W/cut.pb.gz" "$W/cut.bin"
"$T/craft" prehdr 100 "$W/nohdr.bin"
expect_rc "valid frames but no SESSION: a warning" 0 "no session header" $D -o "$W/nohdr.pb.gz" "$W/nohdr.bin"
[ -n "$(counter samples "$W/nohdr.pb.gz")" ] && ok "no SESSION: the records' profile is written" ||
  fail "no SESSION: no profile"
expect_rc "--help" 0 "" $DRAIN_REL --help
expect_rc "--version" 0 "" $DRAIN_REL --version
# SIGINT after data (--follow never ends by itself).
$D --follow -o "$W/int.pb.gz" "$W/s.bin" 2>"$W/int.err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 0 ] && [ -n "$(counter samples "$W/int.pb.gz")" ] && ok "SIGINT after data: exit 0, profile written" ||
  { fail "SIGINT after data: exit $rc"; cat "$W/int.err" >&2; }

# --- 1: input, output, ELF or build-id error ------------------------------------------------
expect_rc "missing file" 1 "No such file" $D "$W/nonexistent.bin"
expect_rc "directory input" 1 "directory" $D "$W"
expect_rc "read error (EIO)" 1 "Input/output error" $D -o "$W/eio.pb.gz" /proc/self/mem
expect_rc "missing tty" 1 "No such file" $D /dev/ttyMSAMPNONE
expect_rc "unknown host" 1 "no.such.host.invalid" $D tcp:no.such.host.invalid:1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
expect_rc "refused connection" 1 "refused" $D "tcp:127.0.0.1:$port"
expect_rc "tcp-listen on an address not ours" 1 "cannot listen on 192.0.2.1" $D tcp-listen:192.0.2.1:0
expect_rc "missing ELF" 1 "No such file" $D --elf "$W/none.elf" "$W/s.bin"
echo "not an elf" >"$W/text.elf"
expect_rc "not an ELF" 1 "not an ELF" $D --elf "$W/text.elf" "$W/s.bin"
expect_rc "ELF of another build" 1 "build-id" $D -q -o "$W/bid.pb.gz" --elf "$T/gen" "$W/s.bin"
none "build-id mismatch" "$W/bid.pb.gz"
expect_rc "output in a missing directory" 1 "$W/nodir/x.pb.gz" $D -q -o "$W/nodir/x.pb.gz" "$W/s.bin"
# A full disk (lib.sh's full_disk; every output kind: t_fulldisk.sh).
expect_rc "final profile on a full disk" 1 "$W/full.pb.gz: File too large" \
  full_disk $D -q -o "$W/full.pb.gz" "$W/s.bin"
none "final profile on a full disk" "$W/full.pb.gz"
# An output that exists and is no regular file is written in place, never renamed over: /dev/full
# stays the device (drain may run as root), a FIFO's reader gets the profile.
expect_rc "-o /dev/full" 1 "No space left on device" $D -q -o /dev/full "$W/s.bin"
[ -c /dev/full ] && ok "-o /dev/full: still a character device" || fail "-o /dev/full replaced the device node"
mkfifo "$W/out.fifo"
cat "$W/out.fifo" >"$W/fifo.pb.gz" &
cat_pid=$!
$D -q -o "$W/out.fifo" "$W/s.bin"; rc=$?
wait $cat_pid
[ $rc = 0 ] && [ -p "$W/out.fifo" ] && [ -n "$(counter samples "$W/fifo.pb.gz")" ] &&
  ok "-o FIFO: the profile through the FIFO, which stays a FIFO" || fail "-o FIFO: exit $rc"
expect_rc "--folded on a full disk" 1 "folded stacks not written: /dev/full: No space left on device" \
  $D -q -o "$W/fo.pb.gz" --folded /dev/full "$W/s.bin"
[ -n "$(counter samples "$W/fo.pb.gz")" ] && ok "--folded on a full disk: the profile itself is written" ||
  fail "--folded on a full disk: no profile"
expect_rc "--top to a full stdout" 1 "standard output" \
  bash -c "exec $D -q -o '$W/top.pb.gz' --top 5 '$W/s.bin' >/dev/full"
expect_rc "--help to a full stdout" 1 "standard output" bash -c "exec $DRAIN_REL --help >/dev/full"
expect_rc "merge of a missing file" 1 "No such file" $D merge "$W/m.pb.gz" "$W/none.pb.gz"
expect_rc "merge into a full disk" 1 "$W/mfull.pb.gz: File too large" \
  full_disk $D merge "$W/mfull.pb.gz" "$W/ok.pb.gz"
none "merge into a full disk" "$W/mfull.pb.gz"
# An error outranks "no frame": garbage with a missing ELF is the ELF's error.
head -c 5000 /dev/urandom >"$W/random.bin"
expect_rc "missing ELF and no frame: the ELF error" 1 "No such file" $D --elf "$W/none.elf" "$W/random.bin"

# --- 2: bad command line --------------------------------------------------------------------
expect_rc "no input" 2 "no input" $D
expect_rc "two inputs" 2 "more than one input" $D "$W/s.bin" "$W/s.bin"
expect_rc "unknown option" 2 "unknown option" $D --bogus "$W/s.bin"
expect_rc "missing argument" 2 "needs an argument" $D "$W/s.bin" -o
expect_rc "--baud not a rate" 2 "baud" $D --baud 12345 "$W/s.bin"
expect_rc "--baud not a number" 2 "baud" $D --baud fast "$W/s.bin"
expect_rc "--every not positive" 2 "every" $D --every 0 "$W/s.bin"
expect_rc "--top not a count" 2 "top" $D --top 1.5 "$W/s.bin"
expect_rc "empty --output" 2 "empty --output" $D -o "" "$W/s.bin"
elves=()
for _ in $(seq 17); do elves+=(--elf "$T/gen"); done
expect_rc "17 --elf" 2 "at most 16" $D "${elves[@]}" "$W/s.bin"
expect_rc "tcp: without a port" 2 "tcp:HOST:PORT" $D tcp:nohost
expect_rc "tcp-listen: without a port" 2 "tcp-listen:PORT" $D tcp-listen:
expect_rc "tcp-listen: a port not a number" 2 "tcp-listen:PORT" $D tcp-listen:http
expect_rc "tcp-listen: a port too large" 2 "0 to 65535" $D tcp-listen:127.0.0.1:65536
expect_rc "tcp-listen: host without a port" 2 "tcp-listen:HOST:PORT" $D tcp-listen:127.0.0.1:
expect_rc "merge without inputs" 2 "usage" $D merge "$W/m.pb.gz"
none "usage errors" "$W/m.pb.gz"

# --- 3: out of memory (the release build: sanitizers need more address space) ---------------
"$T/craft" frames 20000 "$W/frames.bin"
expect_rc "out of memory (ulimit -v 60000)" 3 "out of memory" \
  bash -c "ulimit -v 60000 && exec $DRAIN_REL -q -o '$W/oom.pb.gz' '$W/frames.bin'"

# --- 4: no valid msamp frame: nothing written -----------------------------------------------
: >"$W/empty.bin"
expect_rc "empty file" 4 "no data received from $W/empty.bin" $D -o "$W/empty.pb.gz" "$W/empty.bin"
none "empty file" "$W/empty.pb.gz"
expect_rc "empty stdin" 4 "no data received from stdin" $D -o "$W/stdin.pb.gz" - </dev/null
head -c 100000 /dev/zero >"$W/zero.bin"
expect_rc "zero bytes" 4 "no valid msamp frame in the 100000 bytes.*all zero bytes" $D -o "$W/zero.pb.gz" "$W/zero.bin"
none "zero bytes" "$W/zero.pb.gz"
for _ in $(seq 200); do echo "msamp-demo: booting, heap at 0x40100000, nothing to see here"; done >"$W/text.bin"
expect_rc "a text file" 4 "no valid msamp frame.*mostly text" $D -q -o "$W/text.pb.gz" "$W/text.bin"
grep -q 'baud rate' "$W/err" && grep -q 'msamp_init' "$W/err" && [ "$(wc -l <"$W/err")" -eq 1 ] &&
  ok "a text file: one line naming the likely causes" || { fail "a text file: message"; cat "$W/err" >&2; }
none "a text file" "$W/text.pb.gz"
head -c 200000 /dev/urandom >"$W/random.bin"
expect_rc "random bytes (a wrong baud rate's garbage)" 4 "no valid msamp frame in the 200000 bytes.*binary" \
  $D -o "$W/random.pb.gz" --every 0.01 --top 3 --folded "$W/random.folded" "$W/random.bin"
none "random bytes, --every, --folded" "$W/random.pb.gz" "$W/random.part1.pb.gz" "$W/random.folded"
# The messages are docs/DRAIN.md's (its block annotated doc-test: drain-exit), file names replaced.
doc=$("$here/../docs/extract.sh" "$here/../../docs/DRAIN.md" drain-exit)
for c in "1 capture.bin random.bin" "2 app.msamp empty.bin"; do
  set -- $c
  wantl=$(printf '%s\n' "$doc" | sed -n "$1p" | sed "s|$2|$W/$3|")
  gotl=$($D -o "$W/doc.pb.gz" "$W/$3" 2>&1 >/dev/null | grep '^drain: no ')
  [ -n "$wantl" ] && [ "$gotl" = "$wantl" ] && ok "docs/DRAIN.md shows the message for $3 as it is" ||
    { fail "docs/DRAIN.md message for $3:"; printf '    doc:   %s\n    drain: %s\n' "$wantl" "$gotl" >&2; }
done
# The same bytes at the pace of a line: --every finds nothing to write either.
(cat "$W/random.bin"; sleep 0.5) | $D --every 0.1 -q -o "$W/slow.pb.gz" - 2>"$W/slow.err"
rc=$?
[ $rc -eq 4 ] && ! ls "$W"/slow*.pb.gz >/dev/null 2>&1 && ok "random bytes over a pipe with --every: exit 4, no partial" ||
  { fail "random bytes over a pipe: exit $rc"; cat "$W/slow.err" >&2; }
# --follow on a file that holds no frame: SIGINT ends it with 4 and no profile.
cp "$W/text.bin" "$W/ftext.bin"
$D --follow -o "$W/ftext.pb.gz" "$W/ftext.bin" 2>"$W/ftext.err" &
pid=$!
sleep 0.8
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 4 ] && grep -q 'no valid msamp frame' "$W/ftext.err" && [ ! -e "$W/ftext.pb.gz" ] &&
  ok "--follow, no frame, SIGINT: exit 4, no profile" || { fail "--follow no frame: exit $rc"; cat "$W/ftext.err" >&2; }
# Merge is not concerned: profiles in, profile out.
expect_rc "merge of a profile" 0 "" $D merge "$W/merged.pb.gz" "$W/ok.pb.gz" "$W/nohdr.pb.gz"

# --- msamp-dump -----------------------------------------------------------------------------
expect_rc "msamp-dump: a stream" 0 "" $DUMP "$W/s.bin"
expect_rc "msamp-dump: damage without --strict" 0 "" $DUMP "$W/random.bin"
expect_rc "msamp-dump: damage with --strict" 1 "damaged" $DUMP --strict "$W/cut.bin"
expect_rc "msamp-dump: unknown option" 2 "unknown option" $DUMP --bogus
expect_rc "msamp-dump: missing file" 2 "cannot open" $DUMP "$W/nonexistent.bin"
expect_rc "msamp-dump: read error" 2 "read error" $DUMP "$W"
expect_rc "msamp-dump: stdout on a full disk" 2 "write error" bash -c "exec $DUMP '$W/s.bin' >/dev/full"
expect_rc "msamp-dump: --help to a full stdout" 2 "write error" bash -c "exec $DUMP --help >/dev/full"
finish
