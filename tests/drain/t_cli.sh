#!/usr/bin/env bash
# drain's command line and error paths: every bad invocation gives a clear message and a nonzero
# exit (2 for usage, 1 for input/ELF errors), never a crash.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
$GEN --allocs 2000 "$W/s.bin" "$W/s.truth"
"$T/symprog" "$W/sym.bin" "$W/sym.truth" 4096 >/dev/null

$DRAIN_REL --help >"$W/help" && grep -q -- '--elf' "$W/help" && grep -q 'merge' "$W/help" &&
  ok "--help" || fail "--help"
$DRAIN_REL --version | grep -q 'drain (msamp)' && ok "--version" || fail "--version"

expect_fail "no input" "no input" $D
expect_fail "two inputs" "more than one input" $D "$W/s.bin" "$W/s.bin"
expect_fail "unknown option" "unknown option" $D --bogus "$W/s.bin"
expect_fail "missing argument" "needs an argument" $D "$W/s.bin" -o
expect_fail "bad baud" "baud" $D --baud 12345 "$W/s.bin"
expect_fail "baud not a number" "baud" $D --baud fast "$W/s.bin"
expect_fail "bad --every" "every" $D --every -1 "$W/s.bin"
expect_fail "bad --top" "top" $D --top 0 "$W/s.bin"
expect_fail "missing file" "No such file" $D "$W/nonexistent.bin"
expect_fail "directory input" "directory" $D "$W"
expect_fail "missing tty" "No such file" $D /dev/ttyMSAMPNONE
expect_fail "bad tcp spec" "tcp:HOST:PORT" $D tcp:nohost
expect_fail "unknown host" "tcp:no.such.host.invalid:1" $D tcp:no.such.host.invalid:1
# A port nobody listens on: bind one, close it, then connect.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null || echo 9)
expect_fail "refused connection" "refused" $D "tcp:127.0.0.1:$port"
expect_fail "unwritable output" "$W/nodir/x.pb.gz" $D -q -o "$W/nodir/x.pb.gz" "$W/s.bin"
expect_fail "missing ELF" "No such file" $D --elf "$W/none.elf" "$W/s.bin"
echo "not an elf" >"$W/text.elf"
expect_fail "not an ELF" "not an ELF" $D --elf "$W/text.elf" "$W/s.bin"
head -c 100 "$T/symprog" >"$W/trunc.elf"
expect_fail "truncated ELF" "trunc.elf" $D --elf "$W/trunc.elf" "$W/sym.bin"
chmod 000 "$W/text.elf"
if [ "$(id -u)" != 0 ]; then
  expect_fail "unreadable ELF" "Permission denied" $D --elf "$W/text.elf" "$W/s.bin"
fi
# ELF of another build: the stream's build-id differs (generated stream, then symprog's stream
# against a different program).
expect_fail "ELF of another build (bare)" "build-id" $D -q -o "$W/x.pb.gz" --elf "$T/symprog" "$W/s.bin"
[ ! -e "$W/x.pb.gz" ] && ok "no profile written on build-id mismatch" || fail "profile written despite mismatch"
expect_fail "ELF of another build (PIE)" "build-id" $D -q -o "$W/y.pb.gz" --elf "$T/gen" "$W/sym.bin"
# On a live input (--follow never ends by itself) the mismatch is reported at once.
expect_fail "ELF mismatch reported while following" "build-id" timeout 20 $D -q --follow -o "$W/f.pb.gz" --elf "$T/gen" "$W/sym.bin"
$D -q -f -o "$W/z.pb.gz" --elf "$T/gen" "$W/sym.bin" 2>"$W/err" && grep -q warning "$W/err" &&
  ok "--force overrides the mismatch with a warning" || fail "--force"
$D merge 2>"$W/err"; [ $? -eq 2 ] && grep -q usage "$W/err" && ok "merge usage" || fail "merge usage"
expect_fail "merge of a non-profile" "not a profile" $D merge "$W/m.pb.gz" "$W/s.truth"
expect_fail "merge of a missing file" "No such file" $D merge "$W/m.pb.gz" "$W/none.pb.gz"
finish
