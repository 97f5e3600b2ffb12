#!/usr/bin/env bash
# Usage: tests/postmortem/t_postmortem.sh OUTDIR ELF MODE [tiny]
#   (environment: DRAIN, DRAIN_ASAN, BOARD_QEMU, BOARD_QEMU_TIMEOUT, READELF)
# The same in-use profile from the stream and from a dump: the demo firmware runs under QEMU
# ($BOARD_QEMU, started paused, its monitor on a unix socket: QMP) with its UART going to a file;
# once 30000 bytes arrived, the guest is stopped, its memory dumped (MODE: pmemsave, memsave or
# core) and its stream length noted; then it runs on for 9 KiB more of the stream (two rings
# worth: what was still in the ring at the dump comes out first). drain (under ASan+UBSan)
# reads the dump: `--ram FILE@ADDR` for each image (one per group of the ELF's sections: code
# and RAM apart on a Cortex-M), or `--core FILE` (dump-guest-memory over the same range, an ELF
# core). The block's byte order and pointer size it reports must be the ELF's, and its report say
# what a dump is (in use when it was taken; no allocated table, peak or END). compare.py then
# finds the stream's in-use profile at the dump: the records received by then plus the ring's
# unsent ones, which it reports; any other difference fails. MODE core also reads the same
# memory with pmemsave and checks both give the same profile. tiny: the compact tables' block
# (no stacks, coded sizes: compare.py's tiny rule).
set -u
out=$1
elf=$(realpath "$2")
mode=$3
tiny=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
drain=$(realpath "${DRAIN:-host_tools/drain}")
asan=$(realpath "${DRAIN_ASAN:-$drain}")
readelf=${READELF:-readelf}
limit=${BOARD_QEMU_TIMEOUT:-60}
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 2
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# The ELF's allocated sections in groups (a gap over 1 MiB starts a new one): "ADDR SIZE" lines.
# Its class and byte order: what drain must report.
"$readelf" -SW "$elf" >sections.txt || exit 2
python3 "$here/regions.py" sections.txt >regions.txt || exit 2
class=$("$readelf" -hW "$elf" | sed -n 's/^ *Class: *ELF\([0-9]*\)$/\1/p')
endian=$("$readelf" -hW "$elf" | sed -n 's/^ *Data: *.*\(little\|big\) endian.*$/\1/p')
ptr=$([ "$class" = 64 ] && echo 8 || echo 4)

# QMP: the dump commands for each region; the guest stopped once 30000 bytes arrived.
cmds=()
ram_args=()
i=0
while read -r addr size; do
  val=$addr # QMP's addresses are int64: the top half of the address space is negative
  [ ${#addr} -ge 19 ] && val=$(python3 -c "print($addr - (1 << 64) if $addr >= 1 << 63 else $addr)")
  case "$mode" in
    pmemsave | core) cmds+=(pmemsave "{\"val\": $val, \"size\": $size, \"filename\": \"$PWD/ram$i.bin\"}") ;;
    memsave) cmds+=(memsave "{\"val\": $val, \"size\": $size, \"filename\": \"$PWD/ram$i.bin\", \"cpu-index\": 0}") ;;
  esac
  [ "$mode" = core ] &&
    cmds+=(dump-guest-memory "{\"paging\": false, \"protocol\": \"file:$PWD/core$i.elf\", \"begin\": $val, \"length\": $size}")
  ram_args+=(--ram "ram$i.bin@$(printf '0x%x' "$addr")")
  i=$((i + 1))
done <regions.txt
echo "regions: $(tr '\n' ';' <regions.txt)"

# shellcheck disable=SC2086  # BOARD_QEMU is a command line
timeout "$limit" $BOARD_QEMU -S -qmp unix:qmp.sock,server,nowait -serial "file:$PWD/stream.bin" \
  -kernel "$elf" </dev/null >console.txt 2>&1 &
qpid=$!
python3 "$here/qmp.py" qmp.sock cont wait-bytes "{\"file\": \"$PWD/stream.bin\", \"bytes\": 30000, \"timeout\": $limit}" \
  stop size "{\"file\": \"$PWD/stream.bin\"}" "${cmds[@]}" cont \
  wait-more "{\"file\": \"$PWD/stream.bin\", \"bytes\": 9216, \"timeout\": $limit}" quit >qmp.txt 2>qmp.err ||
  { fail "QMP: $(cat qmp.err)"; kill $qpid 2>/dev/null; }
wait $qpid
st=$?
[ $st = 0 ] && ok "QEMU ran on after the dump, 9 KiB more of the stream (exit 0)" || { fail "QEMU exit $st"; tail -5 console.txt; }
stop=$(sed -n 3p qmp.txt)
[ -n "$stop" ] || { fail "no stream length at the stop"; exit 1; }
ok "stopped after $stop of $(stat -c %s stream.bin) stream bytes; dumped $(ls ram*.bin core*.elf 2>/dev/null | tr '\n' ' ')"

if [ "$mode" = core ]; then
  src=(--core core0.elf)
  [ "$(wc -l <regions.txt)" = 1 ] || { fail "core mode wants one region"; exit 1; }
else
  src=("${ram_args[@]}")
fi
"$asan" -e "$elf" "${src[@]}" -o dump.pb.gz -t 1000 -s dump.folded >dump.top 2>dump.err
dr=$?
[ $dr = 0 ] && ok "drain ${src[*]}: $(grep -o 'block at.*' dump.err)" || { fail "drain ${src[*]}: exit $dr"; cat dump.err; }
grep -q "$endian-endian, $ptr-byte pointers" dump.err && ok "the block is $endian-endian with $ptr-byte pointers, as the ELF" ||
  fail "drain did not report $endian-endian, $ptr-byte pointers"
grep -qi 'sanitizer\|runtime error' dump.err && fail "sanitizer report: $(grep -i -m1 'sanitizer\|runtime error' dump.err)"
# What a dump is (docs/POSTMORTEM.md): in use when it was taken; no history (no samples or frees
# counted, no END awaited, no allocated table, no peak).
grep -q '^post-mortem dump: what was in use when it was taken' dump.top &&
  grep -q '^no allocated table' dump.top && grep -q 'sampled blocks in use; interval' dump.err &&
  ! grep -q 'peak in use\|sites by allocated\|without END\|0 samples, 0 frees' dump.top dump.err &&
  ok "the report says a dump: in use when taken, no allocated table, no peak" ||
  fail "the dump's report claims history: $(grep -m2 'without END\|peak in use\|0 samples' dump.top dump.err)"
if [ -n "$tiny" ]; then
  grep -q 'compact tables' dump.err && ok "the compact tables' block (coded sizes, no stacks)" || fail "not the compact tables' block"
fi
if [ "$mode" = core ]; then
  "$asan" -q -e "$elf" "${ram_args[@]}" -o ram.pb.gz -s ram.folded >/dev/null 2>ram.err
  cmp -s ram.folded dump.folded && ok "the same profile from --core and from --ram (pmemsave)" ||
    fail "--core and --ram differ: $(diff ram.folded dump.folded | head -5)"
fi
python3 "$here/compare.py" "$drain" "$elf" stream.bin "$stop" dump.folded dump.top . $tiny || nfail=$((nfail + 1))
[ $nfail = 0 ] && echo "t_postmortem: all passed" || echo "t_postmortem: $nfail failure(s)"
[ $nfail = 0 ]
