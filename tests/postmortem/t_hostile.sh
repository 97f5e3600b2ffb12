#!/usr/bin/env bash
# Usage: tests/postmortem/t_hostile.sh OUTDIR ELF OTHER_ELF [SAME_ARCH_ELF]
#   (environment: DRAIN (ASan+UBSan), BOARD_QEMU, BOARD_QEMU_TIMEOUT, READELF, NM)
# Hostile dumps: the demo (ELF, a little-endian 64-bit board) is stopped mid-run and its memory
# saved (pmemsave, and an ELF core of the same range); then drain reads that dump cut short,
# at a wrong base address, with header fields and pointers corrupted, overlapping regions,
# files missing or not what they claim, a missing ELF and wrong ones (OTHER_ELF: another
# firmware, big-endian; SAME_ARCH_ELF: another firmware of the same board, told by its build-id), and the plain dump given as a stream. Each must end with its message and
# its exit status (1: a bad dump or file, 2: a bad command line, 4: a RAM dump given as a stream),
# never a crash or a sanitizer report; a few damaged dumps that are still readable (a stack
# entry out of range, no --elf) must give a profile.
set -u
out=$1
elf=$(realpath "$2")
other=$(realpath "$3")
same=${4:+$(realpath "$4")}
here=$(cd "$(dirname "$0")" && pwd)
drain=$(realpath "${DRAIN:-host_tools/drain}")
readelf=${READELF:-readelf}
nm=${NM:-nm}
limit=${BOARD_QEMU_TIMEOUT:-60}
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 2
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# The image: from the first allocated section to the end of .bss, page-aligned.
read -r base size < <("$readelf" -SW "$elf" | python3 -c '
import re, sys
lo, hi = None, 0
for l in sys.stdin:
    m = re.match(r"\s*\[\s*\d+\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)", l)
    if m and "A" in m.group(3) and int(m.group(2), 16):
        a = int(m.group(1), 16); lo = a if lo is None else min(lo, a); hi = max(hi, a + int(m.group(2), 16))
lo &= ~0xFFF
print(lo, ((hi + 0xFFF) & ~0xFFF) - lo)')
hexbase=$(printf '0x%x' "$base")
block=$(( 0x$("$nm" "$elf" | awk '$3 == "msamp_heapdump" {print $1}') - base ))
# shellcheck disable=SC2086  # BOARD_QEMU is a command line
timeout "$limit" $BOARD_QEMU -S -qmp unix:qmp.sock,server,nowait -serial "file:$PWD/stream.bin" \
  -kernel "$elf" </dev/null >console.txt 2>&1 &
qpid=$!
python3 "$here/qmp.py" qmp.sock cont wait-bytes "{\"file\": \"$PWD/stream.bin\", \"bytes\": 10000, \"timeout\": $limit}" \
  stop pmemsave "{\"val\": $base, \"size\": $size, \"filename\": \"$PWD/ram.bin\"}" \
  dump-guest-memory "{\"paging\": false, \"protocol\": \"file:$PWD/core.elf\", \"begin\": $base, \"length\": $size}" \
  quit >qmp.txt 2>qmp.err || fail "QMP: $(cat qmp.err)"
wait $qpid
[ -s ram.bin ] && [ -s core.elf ] || { fail "no dump taken"; exit 1; }
chmod u+w core.elf
ok "dump of $size bytes at $hexbase, the block at +$block"

# patch FILE OFFSET HEXBYTES: a copy of ram.bin with bytes replaced.
patch() {
  cp ram.bin "$1"
  printf '%b' "$(echo "$3" | sed 's/../\\x&/g')" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
# expect NAME STATUS RE ARGS...: drain ARGS exits STATUS and says RE (an extended regular
# expression), without a sanitizer report. The cases run four at a time; their lines are printed
# in order at the end. Bash's own tests only: a process costs 50 ms on a loaded machine.
order=()
check() {
  local name=$1 want=$2 re=$3 err="" line pre post
  shift 3
  # LeakSanitizer's exit scan triples a run's time: on for the cases that read a dump through,
  # off for the refusals (the fuzzer checks leaks on those paths, input by input).
  local leaks=0
  [ "$want" = 0 ] && leaks=1
  ASAN_OPTIONS=detect_leaks=$leaks "$drain" -o "$name.pb.gz" "$@" >"$name.out" 2>"$name.err"
  local st=$?
  IFS= read -r -d '' err <"$name.err"
  if [[ $err =~ [Ss]anitizer|runtime\ error ]]; then
    echo "FAIL: $name: sanitizer report: ${err:0:400}"
  elif [ $st != "$want" ]; then
    echo "FAIL: $name: exit $st, expected $want: ${err:0:300}"
  elif ! [[ $err =~ $re ]]; then
    echo "FAIL: $name: exit $st but no '$re' in: ${err:0:300}"
  elif [ "$want" != 0 ] && [ -e "$name.pb.gz" ]; then
    echo "FAIL: $name: a profile was written"
  else
    pre=${err%%"${BASH_REMATCH[0]}"*}
    post=${err#*"${BASH_REMATCH[0]}"}
    line=${pre##*$'\n'}${BASH_REMATCH[0]}${post%%$'\n'*}
    echo "ok: $name: exit $st: ${line:0:150}"
  fi
}
expect() {
  order+=("$1")
  check "$@" >"$1.res" &
  while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
}

expect good 0 'version 4, little-endian, 8-byte pointers' --ram "ram.bin@$hexbase" -e "$elf"
expect core 0 'version 4' --core core.elf -e "$elf"
expect no-elf 0 'found by scanning' --ram "ram.bin@$hexbase"
head -c $((block + 40)) ram.bin >cut-header.bin
expect truncated-header 1 'not wholly in the dump' --ram "cut-header.bin@$hexbase" -e "$elf"
# The image cut at its front, past the start of the live_addr array: the header is whole.
live=$(( $(od -An -tu8 -j $((block + 56)) -N8 ram.bin) - base + 64 ))
tail -c +$((live + 1)) ram.bin >cut-arrays.bin
cutbase=$(printf '0x%x' $((base + live)))
expect truncated-arrays 1 'array live_addr .* is not wholly in the dump: a truncated image' --ram "cut-arrays.bin@$cutbase" -e "$elf"
expect truncated-arrays-scan 1 'none with a valid header' --ram "cut-arrays.bin@$cutbase"
head -c $((size / 2)) core.elf >cut-core.elf
expect truncated-core 1 'runs past the end of the file' --core cut-core.elf -e "$elf"
head -c 30 core.elf >stub-core.elf
expect core-stub 1 'not an ELF file' --core stub-core.elf -e "$elf"
expect wrong-base 1 'in none of the dump' --ram "ram.bin@$(printf '0x%x' $((base + 0x100000)))" -e "$elf"
expect wrong-base-scan 1 'none with a valid header' --ram "ram.bin@$(printf '0x%x' $((base + 0x100000)))"
expect bad-base-shift 1 'no valid msamp_heapdump block|not the firmware of this dump' --ram "ram.bin@$(printf '0x%x' $((base + 8)))" -e "$elf"
patch bad-version.bin $((block + 4)) 6300
expect bad-version 1 'block version 99' --ram "bad-version.bin@$hexbase" -e "$elf"
patch bad-ptr.bin $((block + 6)) 0300
expect bad-ptr-size 1 'pointer size 3' --ram "bad-ptr.bin@$hexbase" -e "$elf"
patch bad-cap.bin $((block + 8)) e8030000
expect bad-capacity 1 'live_capacity 1000' --ram "bad-cap.bin@$hexbase" -e "$elf"
patch bad-ways.bin $((block + 12)) 00000001
expect bad-ways 1 'live_ways' --ram "bad-ways.bin@$hexbase" -e "$elf"
patch bad-stacks.bin $((block + 16)) 00000000
expect bad-stack-cap 1 'stack_capacity 0' --ram "bad-stacks.bin@$hexbase" -e "$elf"
patch bad-flags.bin $((block + 52)) 08000000
expect bad-flags 1 'unknown flags 0x8' --ram "bad-flags.bin@$hexbase" -e "$elf"
patch bad-magic.bin $((block)) 00000000
expect bad-magic 1 'no magic there' --ram "bad-magic.bin@$hexbase" -e "$elf"
expect bad-magic-scan 1 'no msamp_heapdump block in the' --ram "bad-magic.bin@$hexbase"
patch bad-live-ptr.bin $((block + 56)) efbeadde00000000
expect pointer-out 1 'array live_addr \(0xdeadbeef' --ram "bad-live-ptr.bin@$hexbase" -e "$elf"
patch bad-frames-ptr.bin $((block + 56 + 6 * 8)) f0ffffffffffffff
expect pointer-wrap 1 'array frames' --ram "bad-frames-ptr.bin@$hexbase" -e "$elf"
patch null-ptr.bin $((block + 56 + 5 * 8)) 0000000000000000
expect pointer-null 1 'array stacks \(0x0, ' --ram "null-ptr.bin@$hexbase" -e "$elf"
# A stack entry with a depth beyond max_depth: skipped, its samples unknown, a profile written.
stacks=$(( $(od -An -tu8 -j $((block + 56 + 5 * 8)) -N8 ram.bin) - base ))
patch bad-depth.bin $((stacks + 16 + 8)) ffff
expect bad-stack-entry 0 '1 stack skipped' --ram "bad-depth.bin@$hexbase" -e "$elf"
expect overlap 1 'overlaps' --ram "ram.bin@$hexbase" --ram "ram.bin@$(printf '0x%x' $((base + 4096)))" -e "$elf"
expect missing-file 1 'No such file' --ram "missing.bin@$hexbase" -e "$elf"
: >empty.bin
expect empty-file 1 'empty file' --ram "empty.bin@$hexbase" -e "$elf"
expect directory 1 'is a directory' --ram ".@$hexbase" -e "$elf"
expect bad-spec 2 'expected FILE@ADDR' --ram ram.bin -e "$elf"
expect bad-addr 2 'expected FILE@ADDR' --ram ram.bin@zz -e "$elf"
expect input-and-dump 2 'one or the other' --ram "ram.bin@$hexbase" stream.bin
expect missing-elf 1 'No such file' --ram "ram.bin@$hexbase" -e missing.elf
expect not-elf 1 'not an ELF' --ram "ram.bin@$hexbase" -e ram.bin
expect core-as-elf 1 'a core file, not the firmware' --ram "ram.bin@$hexbase" -e core.elf
expect elf-as-core 1 'not a core file' --core "$elf" -e "$elf"
expect wrong-elf 1 'no valid msamp_heapdump block|in none of the dump|not the firmware|endian' --ram "ram.bin@$hexbase" -e "$other"
[ -n "$same" ] &&
  expect wrong-elf-same-arch 1 'is not the firmware of this dump: its build-id' --ram "ram.bin@$hexbase" -e "$same"
head -c 100000 /dev/urandom >random.bin
expect random 1 'no msamp_heapdump block|none with a valid header' --ram "random.bin@0x1000"
expect as-stream 4 'this looks like a RAM dump: use --ram FILE@ADDR' ram.bin
wait
for name in "${order[@]}"; do
  while IFS= read -r line; do
    echo "$line"
    [[ $line == FAIL* ]] && nfail=$((nfail + 1))
  done <"$name.res"
done
[ $nfail = 0 ] && echo "t_hostile: all passed" || echo "t_hostile: $nfail failure(s)"
[ $nfail = 0 ]
