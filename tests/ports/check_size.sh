#!/usr/bin/env bash
# Test of `make size` (tests/ports/size_table.sh): the table has a row of numbers for every
# architecture and profile, the size probe linked on every board, the tiny profile's smallest
# configuration stays within the 1 KiB of RAM it is for, plus the RAM-dump block's header (at most
# 84 bytes on the Cortex-M3: MSAMP_CFG_HEAPDUMP, on by default), and a firmware that never calls the
# control API does not link it (src/msamp_control.c is a member of its own).
set -u
out=${1:?build dir}; small=${2:?small config defs}
fail=0
bad() { echo "FAIL: $*"; fail=1; }

table=$(tests/ports/size_table.sh "$out" "$small") || { echo "FAIL: size_table.sh failed"; exit 1; }
echo "$table"
rows=$(echo "$table" | awk -F'|' 'NF == 5 && $2 ~ /^ *[0-9]+ +[0-9]+ +[0-9]+ *$/ &&
  $3 ~ /^ *[0-9]+ +[0-9]+ +[0-9]+ *$/ && $4 ~ /^ *[1-9][0-9]* +[0-9]+ *$/' | wc -l)
# One row per configuration of size_table.sh's list (a board added there is a row more).
want=$(grep -c '^  "qemu-' tests/ports/size_table.sh)
[ "$rows" -eq "$want" ] || bad "expected $want rows of numbers (size_table.sh's configurations), got $rows"

# The minimal row (every feature knob off, malloc and free wrapped): within 1 KiB of RAM.
minimal=$(echo "$table" | awk -F'|' '$1 ~ /minimal \(clang, frames\)/')
[ -n "$minimal" ] || bad "no minimal row with clang"
read -r mcode mram <<<"$(echo "$minimal" | cut -d'|' -f4)"
[ -n "${mram:-}" ] && [ "$mram" -le 1024 ] || bad "minimal, clang: firmware RAM ${mram:-?} > 1024"

tiny=$(echo "$table" | awk -F'|' '$1 ~ /tiny \(clang, frames\)/')
[ -n "$tiny" ] || bad "no row for the tiny profile with clang"
read -r _ sd sb <<<"$(echo "$tiny" | cut -d'|' -f3)"
read -r _ fram <<<"$(echo "$tiny" | cut -d'|' -f4)"

elf=$out/small/qemu-mps2-an385-clang/size-probe/with.elf
syms=$(arm-none-eabi-nm "$elf" 2>/dev/null) || bad "no size probe $elf"
# The heapdump block of the compact tables: its header only (the arrays are the tables').
blk=$(arm-none-eabi-nm -S "$elf" 2>/dev/null | awk '$4 == "msamp_heapdump" {print $2}')
blk=$((16#${blk:-0}))
[ "$blk" -gt 0 ] && [ "$blk" -le 84 ] || bad "tiny, small config: heapdump block of $blk bytes (its header: 1..84)"
[ -n "${sb:-}" ] && [ $((sd + sb)) -le $((1024 + blk)) ] ||
  bad "tiny, small config: library RAM $((sd + sb)) > 1024 + the $blk-byte heapdump header"
[ -n "${fram:-}" ] && [ "$fram" -le $((1024 + blk)) ] ||
  bad "tiny, small config: firmware RAM $fram > 1024 + the $blk-byte heapdump header"
for s in msamp_init msamp_poll __wrap_malloc __wrap_realloc msamp_frame_walk msamp_transport_write; do
  grep -q " T $s\$" <<<"$syms" || bad "the tiny size probe lacks $s"
done
for s in msamp_get_stats msamp_set_interval msamp_mark msamp_enable; do
  grep -q " T $s\$" <<<"$syms" && bad "the tiny size probe links $s, which it never calls"
done
[ $fail -eq 0 ] && echo "ok: $rows rows; tiny small config RAM $((sd + sb)) (firmware $fram, of which the heapdump header $blk); minimal (clang) code $mcode RAM $mram; control API not linked"
exit $fail
