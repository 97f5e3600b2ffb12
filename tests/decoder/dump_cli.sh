#!/usr/bin/env bash
# Usage: tests/decoder/dump_cli.sh MSAMP_DUMP
# Checks msamp-dump's command line: input from a file or stdin, -t, -s, --strict, --help, and
# clear errors with exit status 2 for unreadable input and bad usage.
set -u
dump=$1
out=${BUILD:-build}/dump-cli
mkdir -p "$out"
fail=0
vec=tests/vectors/basic.bin
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1" >&2; fail=$((fail + 1)); }
expect_rc() { # NAME WANT_RC CMD...
  local name=$1 want=$2; shift 2
  "$@" >"$out/stdout" 2>"$out/stderr"; local rc=$?
  if [ $rc -eq "$want" ]; then ok "$name (exit $rc)"; else bad "$name: exit $rc, expected $want"; cat "$out/stderr" >&2; fi
}

[ -f $vec ] || { echo "dump-cli: $vec missing" >&2; exit 1; }
expect_rc "file" 0 "$dump" $vec
cp "$out/stdout" "$out/file.txt"
grep -q '^frame seq=0$' "$out/file.txt" && ok "listing" || bad "listing has no first frame"
expect_rc "stdin" 0 "$dump" - <$vec
cmp -s "$out/stdout" "$out/file.txt" && ok "stdin = file" || bad "stdin listing differs"
expect_rc "stdin by default" 0 "$dump" <$vec
cmp -s "$out/stdout" "$out/file.txt" && ok "default stdin = file" || bad "default stdin differs"
# A live pipe is listed as bytes arrive, not when it closes.
rm -f "$out/live.txt" "$out/live.fifo"
mkfifo "$out/live.fifo"
"$dump" <"$out/live.fifo" >"$out/live.txt" &
live=$!
exec 3>"$out/live.fifo"
cat $vec >&3
for _ in $(seq 50); do grep -q '^frame seq=0$' "$out/live.txt" && break; sleep 0.2; done
grep -q '^frame seq=0$' "$out/live.txt" && ok "live pipe" || bad "live pipe: nothing listed after 10 s"
exec 3>&-
wait $live && ok "live pipe: exit at end of input" || bad "live pipe: exit status $?"
expect_rc "-t" 0 "$dump" -t $vec
grep -q '^TIME ts=\([0-9]*\) @ts=\1$' "$out/stdout" && ok "-t times" || bad "-t: no TIME line with its @ts"
[ "$(grep -c ' @ts=' "$out/stdout")" -eq "$(grep -vc '^frame\|^#' "$out/stdout")" ] &&
  ok "-t on every record" || bad "-t: records without @ts"
expect_rc "-s" 0 "$dump" -s $vec
grep -q '^msamp-dump: frames_ok=[1-9]' "$out/stderr" && ok "-s stats" || bad "-s: no frames_ok on stderr"
cmp -s "$out/stdout" "$out/file.txt" && ok "-s keeps stdout" || bad "-s changed stdout"
expect_rc "--strict clean" 0 "$dump" --strict $vec
# Damage: flip a byte inside the second frame, then cut the last frame.
first=$(od -An -v -tu1 -w1 $vec | awk '$1 == 0 { print NR - 1; exit }')
size=$(stat -c %s $vec)
head -c $((size - 3)) $vec >"$out/damaged.bin"
byte=$(od -An -tu1 -j $((first + 3)) -N1 $vec | tr -d ' ')
printf "\\$(printf %o $((byte ^ 0x21)))" |
  dd of="$out/damaged.bin" bs=1 seek=$((first + 3)) conv=notrunc status=none
expect_rc "damaged" 0 "$dump" -s "$out/damaged.bin"
grep -q '^# loss bytes=' "$out/stdout" && ok "loss listed" || bad "no '# loss' line for damage"
grep -q '^msamp-dump: frames_bad=1$' "$out/stderr" && ok "bad frame counted" || bad "frames_bad not 1"
expect_rc "--strict damaged" 1 "$dump" --strict "$out/damaged.bin"
grep -q 'damaged' "$out/stderr" && ok "--strict says why" || bad "--strict: no message"
expect_rc "missing file" 2 "$dump" "$out/no-such-file.bin"
grep -q 'cannot open' "$out/stderr" && ok "missing file message" || bad "missing file: no message"
expect_rc "directory" 2 "$dump" "$out"
grep -q 'read error' "$out/stderr" && ok "directory message" || bad "directory: no message"
expect_rc "bad option" 2 "$dump" --bogus $vec
expect_rc "two files" 2 "$dump" $vec $vec
expect_rc "--help" 0 "$dump" --help
grep -q '^usage: msamp-dump' "$out/stdout" && ok "help text" || bad "no usage line"
expect_rc "empty input" 0 "$dump" --strict /dev/null
[ -s "$out/stdout" ] && bad "empty input printed something" || ok "empty input prints nothing"
echo "msamp-dump-cli: $fail failed"
[ $fail -eq 0 ]
