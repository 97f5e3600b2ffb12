#!/usr/bin/env bash
# Usage: tests/docs/firmware_outoftree.sh README.md   (test docs-firmware-outoftree)
# A firmware built outside the checkout from the README's words alone: a temporary folder (not
# under the checkout) holds a user's own start-up, linker script, heap and application
# (tests/docs/outoftree/) and third_party/msamp, the checkout; its msamp parts are the README's
# blocks as written: the firmware snippet (main.c), the "With Make" block (readme.mk) and the
# linker script's INCLUDE line (docs-firmware-ld, put into link.ld). make builds it with none of
# msamp's build rules; the same script without the README's line must fail to link on msamp's
# symbols. The firmware runs under QEMU ($BOARD_QEMU, qemu-virt-aarch64's machine) for a few
# seconds, its UART into a file; drain reads it with the ELF: real stacks (keep_message < do_work <
# main), no walk without a frame, the build-id of the stream the ELF's. Then the same firmware
# linked with stack bounds that leave its stack out (--defsym over msamp.ld's PROVIDE): every walk
# finds no frame and the device counts each as begun outside the bounds (out_of_bounds =
# no_frame = samples in the profile's comments), and drain's hint says so.
. "$(dirname "$0")/lib.sh"
readme=$1
[ -n "${BOARD_QEMU:-}" ] || { echo "BOARD_QEMU is not set" >&2; exit 2; }

P=$(mktemp -d "${TMPDIR:-/tmp}/msamp-outoftree.XXXXXX") || exit 2
trap 'rm -rf "$P"' EXIT
case "$P/" in "$ROOT"/*) fail "the temporary folder $P is inside the checkout"; finish ;; esac
cp "$here"/outoftree/* "$P/"
mkdir -p "$P/third_party"
ln -s "$ROOT" "$P/third_party/msamp"
block "$readme" docs-firmware-snippet >"$P/main.c" || fail "no firmware snippet block"
block "$readme" board-integration-make >"$P/readme.mk" || fail "no Make block"
block "$readme" >"$W/ld.block" || { fail "no linker-script block"; finish; }
awk -v f="$W/ld.block" '/^@MSAMP@$/ { while ((getline l < f) > 0) print l; next } { print }' \
  "$P/link.ld.in" >"$P/link.ld"
grep -v '^@MSAMP@$' "$P/link.ld.in" >"$P/link-bare.ld"
note "project in $P: $(cd "$P" && echo *)"

# Without the README's line the link fails on msamp's symbols (the line is what makes it link).
if user make -C "$P" -s ELF=bare.elf LDSCRIPT=link-bare.ld >"$W/bare.log" 2>&1; then
  fail "a linker script without the README's INCLUDE line linked"
elif grep -q 'undefined reference to `__msamp_\(stack\|build_id\)' "$W/bare.log"; then
  ok "without the README's line the link fails: $(grep -o 'undefined reference to `__msamp_[a-z_]*' "$W/bare.log" | sort -u | tr '\n' ' ')"
else
  fail "the link without the README's line failed otherwise"; show "$W/bare.log"
fi

if user make -C "$P" -s >"$W/make.log" 2>&1; then
  ok "built outside the checkout from README.md's snippet, Make block and INCLUDE line: $(cd "$P" && ls -1 firmware.elf)"
else
  fail "the out-of-tree build failed"; show "$W/make.log"; finish
fi
cp "$P/firmware.elf" "$W/firmware.elf"
syms=$(aarch64-linux-gnu-nm "$W/firmware.elf" | awk '$3 ~ /^__msamp_(stack|build_id)/ { printf "%s=0x%s ", $3, $1 }')
note "symbols: $syms"
lo=$(aarch64-linux-gnu-nm "$W/firmware.elf" | awk '$3 == "__msamp_stack_lo" { print $1 }')
hi=$(aarch64-linux-gnu-nm "$W/firmware.elf" | awk '$3 == "__msamp_stack_hi" { print $1 }')
top=$(aarch64-linux-gnu-nm "$W/firmware.elf" | awk '$3 == "stack_top" { print $1 }')
if [ -n "$lo" ] && [ -n "$hi" ] && [ $((16#$lo)) -lt $((16#$top)) ] && [ $((16#$top)) -le $((16#$hi)) ]; then
  ok "the stack (top 0x$top) lies in [0x$lo, 0x$hi): the RAM region"
else
  fail "stack bounds [$lo, $hi) do not hold the stack (top $top)"
fi

BOARD_QEMU_TIMEOUT=4 "$ROOT/boards/qemu_run.sh" "$W/firmware.elf" uart "$W/run" >"$W/qemu.log" 2>&1
rc=$?
[ $rc = 124 ] || { fail "QEMU exit status $rc (124: the snippet loops until the timeout)"; show "$W/qemu.log"; }
[ -s "$W/run/stream.bin" ] || { fail "no UART output"; finish; }
host_tools/drain -e "$W/firmware.elf" -o "$W/oot.pb.gz" -t 5 "$W/run/stream.bin" >"$W/top.txt" 2>"$W/drain.err"
rc=$?
if [ $rc = 0 ]; then ok "drain (the ELF's build-id checked against the stream's): $(tail -n1 "$W/drain.err")"; else fail "drain exit $rc"; show "$W/drain.err"; finish; fi
if grep -q 'found no frame' "$W/drain.err"; then fail "drain: walks without a frame"; show "$W/drain.err"; fi
pp -raw "$W/oot.pb.gz" >"$W/raw.txt" 2>/dev/null
n=$(sed -n 's/.*reader: samples=\([0-9]*\).*/\1/p' "$W/raw.txt")
[ "${n:-0}" -ge 50 ] && ok "$n samples" || fail "only ${n:-0} samples"
pp -comments "$W/oot.pb.gz" >"$W/comments.txt" 2>/dev/null
nf=$(grep -o 'no_frame=[0-9]*' "$W/comments.txt" | head -n1 | cut -d= -f2)
[ "${nf:-x}" = 0 ] && ok "no_frame=0 in the profile's comments" || fail "no_frame=${nf:-missing}"
bid=$(sed -n 's/.*build_id=\([^ ]*\).*/\1/p' "$W/comments.txt" | head -n1)
elf_bid=$(aarch64-linux-gnu-readelf -n "$W/firmware.elf" | awk '/Build ID:/ { print $3 }')
if [ -n "$elf_bid" ] && [ "$bid" = "$elf_bid" ]; then
  ok "the stream carried the ELF's build-id $bid (the note kept by msamp.ld)"
else
  fail "the stream's build-id '${bid:-missing}' is not the ELF's '$elf_bid'"
fi
pp -traces "$W/oot.pb.gz" >"$W/traces.txt" 2>/dev/null
for site in keep_message scratch; do
  if awk -v s="$site" '/-----------/ { t = "" } { t = t " " $NF } /main$/ && t ~ (s " do_work main") { f = 1 } END { exit !f }' "$W/traces.txt"; then
    ok "-traces: $site < do_work < main"
  else
    fail "-traces lacks $site < do_work < main"; show "$W/traces.txt"
  fi
done
unknown=$(grep -c 'unknown stack' "$W/traces.txt")
[ "$unknown" = 0 ] && ok "no [unknown stack]" || fail "$unknown [unknown stack] traces"

# Bounds that leave the stack out: 256 bytes at the start of RAM, below the code's end.
oob_flags="-Wl,--defsym=__msamp_stack_lo=0x40100000 -Wl,--defsym=__msamp_stack_hi=0x40100100"
if user make -C "$P" -s ELF=oob.elf EXTRA_LDFLAGS="$oob_flags" >"$W/oob-make.log" 2>&1; then
  ok "linked with the stack outside its declared bounds ($oob_flags)"
else
  fail "the link with narrow bounds failed"; show "$W/oob-make.log"; finish
fi
cp "$P/oob.elf" "$W/oob.elf"
BOARD_QEMU_TIMEOUT=3 "$ROOT/boards/qemu_run.sh" "$W/oob.elf" uart "$W/oob-run" >"$W/oob-qemu.log" 2>&1
host_tools/drain -e "$W/oob.elf" -o "$W/oob.pb.gz" "$W/oob-run/stream.bin" >/dev/null 2>"$W/oob-drain.err" ||
  { fail "drain exit $? on the out-of-bounds stream"; show "$W/oob-drain.err"; }
pp -comments "$W/oob.pb.gz" >"$W/oob-comments.txt" 2>/dev/null
nf=$(grep -o ' no_frame=[0-9]*' "$W/oob-comments.txt" | head -n1 | cut -d= -f2)
oob=$(grep -o ' out_of_bounds=[0-9]*' "$W/oob-comments.txt" | head -n1 | cut -d= -f2)
ns=$(pp -raw "$W/oob.pb.gz" 2>/dev/null | sed -n 's/.*reader: samples=\([0-9]*\).*/\1/p')
if [ "${nf:-0}" -ge 50 ] && [ "$oob" = "$nf" ]; then
  ok "device drops: no_frame=$nf out_of_bounds=$oob ($ns samples): every walk began outside the bounds"
else
  fail "no_frame=${nf:-missing} out_of_bounds=${oob:-missing}: want equal, at least 50"; show "$W/oob-comments.txt"
fi
if grep -q "found no frame at all.* $oob of them began on a stack outside the bounds the walker may read (\[__msamp_stack_lo, __msamp_stack_hi)" "$W/oob-drain.err" &&
  ! grep -q 'began inside them' "$W/oob-drain.err"; then
  ok "drain's hint: $(grep -o "$oob of them began[^:]*" "$W/oob-drain.err")"
else
  fail "drain's hint does not name the stack outside the bounds"; show "$W/oob-drain.err"
fi

# A reset kept by INCLUDE msamp.ld alone: its .msamp.noinit (NOLOAD, in no loadable segment) holds
# msamp's block; QEMU's system_reset in the middle of the run (QMP), and the next boot sends the
# session the reset ended: drain says "ended": "reset" on it.
sec=$(aarch64-linux-gnu-readelf -SW "$W/firmware.elf" | awk '{ for (i = 1; i < NF; i++) if ($i == ".msamp.noinit") print $(i + 2), $(i + 4) }')
blk=$(aarch64-linux-gnu-nm "$W/firmware.elf" | awk '$3 == "msamp_heapdump" { print $1 }')
if [ -n "$sec" ] && [ -n "$blk" ] && [ $((16#$blk)) -ge $((16#${sec% *})) ] &&
  [ $((16#$blk)) -lt $((16#${sec% *} + 16#${sec#* })) ] &&
  ! aarch64-linux-gnu-readelf -lW "$W/firmware.elf" | grep -A20 'Section to Segment' | grep -q 'msamp.noinit'; then
  ok "msamp.ld's .msamp.noinit (0x${sec% *}, 0x${sec#* } bytes, in no loadable segment) holds msamp_heapdump"
else
  fail ".msamp.noinit '$sec' does not hold msamp_heapdump ($blk) outside the segments"
fi
Q=$(mktemp -d "${TMPDIR:-/tmp}/msamp-qmp.XXXXXX") || finish
BOARD_QEMU_TIMEOUT=8 BOARD_QEMU_EXTRA="-qmp unix:$Q/qmp.sock,server=on,wait=off" \
  "$ROOT/boards/qemu_run.sh" "$W/firmware.elf" uart "$W/reset-run" >"$W/reset-qemu.log" 2>&1 &
qemu=$!
python3 "$ROOT/tests/postmortem/qmp.py" "$Q/qmp.sock" \
  wait-bytes "{\"file\": \"$W/reset-run/stream.bin\", \"bytes\": 6000, \"timeout\": 20}" system_reset \
  size "{\"file\": \"$W/reset-run/stream.bin\"}" \
  wait-more "{\"file\": \"$W/reset-run/stream.bin\", \"bytes\": 6000, \"timeout\": 20}" >"$W/qmp.txt" 2>&1 ||
  fail "QMP: $(cat "$W/qmp.txt")"
wait "$qemu"
rm -rf "$Q"
host_tools/drain -e "$W/firmware.elf" -t 1 --json "$W/reset.json" -o "$W/reset.pb.gz" "$W/reset-run/stream.bin" \
  >"$W/reset-top.txt" 2>"$W/reset-drain.err" || { fail "drain exit $? on the reset stream"; show "$W/reset-drain.err"; }
if grep -q '"ended": "reset", "reset": {"at_s": [0-9.]*, "cause": "unknown"}' "$W/reset.json" &&
  grep -q '^ended by a reset at [0-9.]* s (cause: unknown)' "$W/reset-top.txt"; then
  ok "system_reset mid-run: the next boot sent the session it ended ($(grep -o '^ended by a reset at [0-9.]* s' "$W/reset-top.txt"), \"ended\": \"reset\")"
else
  fail "no session ended by the reset"; show "$W/reset-top.txt"
fi
finish
