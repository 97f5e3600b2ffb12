#!/usr/bin/env bash
# Usage: tests/board/t_reset.sh DIR   (environment: BOARD_QEMU, BOARD_QEMU_TIMEOUT, DRAIN)
# A profile that survives a reset (docs/POSTMORTEM.md#a-profile-that-survives-a-reset), with the
# firmware of tests/board/reset_fw.c built in DIR (board_reset.mk):
#   software, fault  reset-fw and reset-fw-fault run under QEMU (no -no-reboot: the reset reboots
#           the board; QEMU keeps the NOLOAD .noinit): boot 0 samples a known live set, writes
#           .noinit to ram.bin (the RAM dump just before the reset) and resets itself (a software
#           reset, or a fault its handler notes). drain reads the stream: session 1 "ended by a
#           reset" with the cause (the text, --json "ended": "reset" and "reset".cause), session 2
#           "ended": "end"; session 1's in-use profile (folded) equal to drain --ram's of ram.bin
#           and to the known live set (interval 1: exact); the stream from the next boot's first
#           byte alone (a reader that missed boot 0) gives the same profile, "ended": "reset".
#   kept    ram.bin of the software run loaded (QEMU -device loader) over .noinit of a cold
#           reset-fw: the board counter says boot 1, msamp finds its block valid and sends it
#           (the block loaded is what kept it); the same into reset-fw-other (the same objects,
#           another build-id): refused, no previous session.
#   garbage random bytes over .noinit of a cold reset-fw-once (5 seeds): no previous session,
#           one session, exit 0.
set -u
dir=$(realpath "$1")
# drain runs in the run's folder: the files it writes there by default (heap.pb.gz) stay in it.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
drain=$(realpath "${DRAIN:-host_tools/drain}")
out=$dir/t_reset
rm -rf "$out" && mkdir -p "$out" || exit 2
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }

# run NAME ELF [QEMU options...]: the firmware under QEMU in $out/NAME, its status.
run() {
  local name=$1 elf=$2
  shift 2
  BOARD_QEMU_EXTRA="$*" "$root/boards/qemu_run.sh" "$elf" uart "$out/$name" >"$out/$name.log" 2>&1
}

. "$here/faults_lib.sh" # session_starts
# previous STREAM: the offset of the first frame whose first record is a SESSION with the flag
# PREVIOUS (the next boot's account of the session a reset ended), or nothing.
previous() { session_starts "$1" | awk '$3 == 1 { print $1; exit }'; }

# The known live set at the reset (interval 1: every block sampled): keep_small 120 x 48 B,
# keep_big 8 x 1000 B, keep_mid 20 x 200 B.
truth() {
  printf 'keep_big 8000\nkeep_mid 4000\nkeep_small 5760\n'
}
# FOLDED's in-use bytes by innermost function, sorted.
by_site() {
  awk '{ n = split($1, f, ";"); sub(/@.*/, "", f[n]); print f[n], $2 }' "$1" | sort
}

check_reset() {
  local name=$1 elf=$dir/$2 cause=$3 w=$out/$1
  run "$name" "$elf"
  local st=$?
  [ "$st" = 0 ] && ok "$name: two boots, exit 0" || { fail "$name: QEMU exit $st"; tail -5 "$out/$name.log"; return; }
  grep -q '^reset-fw boot 0' "$w/console.txt" && grep -q '^reset-fw boot 1' "$w/console.txt" &&
    grep -q '^reset-fw done' "$w/console.txt" || { fail "$name: boots: $(tr '\n' '|' <"$w/console.txt")"; return; }
  [ "$cause" = fault ] && { grep -q '^reset-fw fault: noted' "$w/console.txt" &&
    ok "$name: the fault's handler noted it and reset the board" || fail "$name: no fault handled"; }
  (cd "$w" && "$drain" -e "$elf" -t 5 --json out.json -o out.pb.gz -s out.folded stream.bin >top.txt 2>err.txt) ||
    { fail "$name: drain exit $?"; cat "$w/err.txt"; return; }
  local n
  n=$(grep -c '^session [0-9]' "$w/top.txt")
  [ "$n" = 2 ] && ok "$name: two sessions (the one the reset ended, the next boot's)" || fail "$name: $n sessions"
  grep -q "^ended by a reset at [0-9.]* s (cause: $cause)" "$w/top.txt" &&
    ok "$name: $(grep -o '^ended by a reset at [0-9.]* s (cause: [a-z]*)' "$w/top.txt")" ||
    fail "$name: no 'ended by a reset ... (cause: $cause)' in the report"
  grep -q "\"ended\": \"reset\", \"reset\": {\"at_s\": [0-9.]*, \"cause\": \"$cause\"}" "$w/out.json" &&
    ok "$name: --json \"ended\": \"reset\", cause $cause" || fail "$name: --json: $(grep -o '"ended": [^,]*' "$w/out.json")"
  grep -q '"ended": "end"' "$w/out.json.s2" && ok "$name: session 2 --json \"ended\": \"end\"" ||
    fail "$name: session 2: $(grep -o '"ended": [^,]*' "$w/out.json.s2")"
  (cd "$w" && "$drain" -q -e "$elf" --ram "ram.bin@0x$(cat ram.addr)" -s dump.folded -o dump.pb.gz \
    >/dev/null 2>dump.err) || { fail "$name: drain --ram: $(cat "$w/dump.err")"; return; }
  if [ -s "$w/dump.folded" ] && cmp -s "$w/dump.folded" "$w/out.folded"; then
    ok "$name: the previous boot's in-use profile equals the RAM dump's ($(by_site "$w/out.folded" | tr '\n' ' '))"
  else
    fail "$name: the previous boot's in-use profile differs from the RAM dump's:"; diff "$w/dump.folded" "$w/out.folded" | head
  fi
  diff <(by_site "$w/dump.folded") <(truth) >/dev/null && ok "$name: the dump's in use is the known live set" ||
    fail "$name: the dump's in use is not the known live set: $(by_site "$w/dump.folded" | tr '\n' ' ')"
  # A reader that joins at the next boot: the previous session from its bytes alone.
  local at
  at=$(previous "$w/stream.bin")
  [ -n "$at" ] || { fail "$name: no SESSION with the flag PREVIOUS in the stream"; return; }
  tail -c +$((at + 1)) "$w/stream.bin" >"$w/next.bin"
  (cd "$w" && "$drain" -e "$elf" --json next.json -o next.pb.gz -s next.folded next.bin >next.top 2>next.err) ||
    { fail "$name: drain of the next boot's bytes: exit $?"; return; }
  cmp -s "$w/next.folded" "$w/dump.folded" && grep -q '"ended": "reset"' "$w/next.json" &&
    ok "$name: the next boot's bytes alone (from byte $at): the same profile, \"ended\": \"reset\"" ||
    fail "$name: the next boot's bytes alone: $(diff "$w/next.folded" "$w/dump.folded" | head -3) $(grep -o '"ended": [^,]*' "$w/next.json")"
}

check_reset software reset-fw.elf software
check_reset fault reset-fw-fault.elf fault

# Cold boots over a block: the software run's .noinit loaded back, into its own build, then into
# the same objects with another build-id.
addr=0x$(cat "$out/software/ram.addr" 2>/dev/null)
img=$out/software/ram.bin
if [ -s "$img" ]; then
  for v in reset-fw:1 reset-fw-other:0; do
    elf=${v%%:*} want=${v#*:}
    run "kept-$elf" "$dir/$elf.elf" -device "loader,file=$img,addr=$addr"
    st=$?
    got=$(previous "$out/kept-$elf/stream.bin")
    (cd "$out/kept-$elf" && "$drain" -e "$dir/$elf.elf" -t 1 --json out.json stream.bin >top.txt 2>&1)
    if [ "$want" = 1 ]; then
      [ "$st" = 0 ] && [ -n "$got" ] && grep -q '"ended": "reset"' "$out/kept-$elf/out.json" &&
        ok "kept block loaded into its own build: sent as the previous session (\"ended\": \"reset\")" ||
        fail "kept block into its own build: exit $st, previous at '${got}'"
    else
      [ "$st" = 0 ] && [ -z "$got" ] && [ "$(grep -c '^session [0-9]' "$out/kept-$elf/top.txt")" = 1 ] &&
        ok "kept block loaded into another build-id: refused (one session, no previous)" ||
        fail "kept block into another build-id: exit $st, previous at '${got}'"
    fi
  done
else
  fail "no ram.bin from the software run"
fi

# Cold boots over garbage.
size=$(stat -c %s "$img" 2>/dev/null || echo 16384)
bad=0
for seed in 1 2 3 4 5; do
  python3 -c "import random,sys; random.seed($seed); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range($size)))" \
    >"$out/garbage$seed.bin"
  run "garbage$seed" "$dir/reset-fw-once.elf" -device "loader,file=$out/garbage$seed.bin,addr=$addr"
  st=$?
  got=$(previous "$out/garbage$seed/stream.bin")
  n=$(cd "$out/garbage$seed" && "$drain" -e "$dir/reset-fw-once.elf" -t 1 stream.bin 2>&1 | grep -c '^session [0-9]')
  [ "$st" = 0 ] && [ -z "$got" ] && [ "$n" = 1 ] || { bad=$((bad + 1)); echo "  seed $seed: exit $st, previous at '$got', $n sessions"; }
done
[ "$bad" = 0 ] && ok "cold boots over garbage (5 seeds): no previous session, one session each" ||
  fail "$bad of 5 cold boots over garbage"

[ $nfail = 0 ] && echo "t_reset: all passed" || echo "t_reset: $nfail failure(s)"
[ $nfail = 0 ]
