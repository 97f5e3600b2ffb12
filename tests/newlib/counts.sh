#!/usr/bin/env bash
# Usage: BOARD_QEMU="..." tests/newlib/counts.sh OUTDIR
# newlib's allocator under msamp (test newlib-counts): tests/newlib/newlib_fw.c built against
# Debian's newlib (libc.a, and newlib-nano's libc_nano.a) with each wrap set below, through
# port/msamp.mk (tests/newlib/fw.make), run under QEMU, its stream listed by msamp-dump and checked by
# tests/newlib/check_counts.awk: each allocation and each free recorded exactly once, with its
# size, at its call site, and the device counters equal to the records. Then a control that must
# fail: malloc and _malloc_r wrapped without the nesting guard msamp.mk sets for them
# (MSAMP_CFG_WRAP_NESTED=2) count each malloc twice. drain reads every stream too, and its heap
# figures (the HEAP records of msamp's newlib hook, port/newlib/, msamp_end's last) equal those
# the firmware prints from newlib's own _mallinfo_r at the end (tests/board/check_heap.sh: free,
# min_free, largest_free; full newlib's largest free block unknown on both sides).
set -u
out=${1:?usage: $0 OUTDIR}
dump=${MSAMP_DUMP:-host_tools/msamp-dump}; drain=${DRAIN:-host_tools/drain}
for t in "$dump" "$drain"; do [ -x "$t" ] || { echo "FAIL: $t is not built"; exit 1; }; done
sets=(
  "malloc free calloc realloc"
  "_malloc_r _free_r _calloc_r _realloc_r"
  "malloc free calloc realloc _malloc_r _free_r _calloc_r _realloc_r"
  "malloc _malloc_r free _free_r"
  "calloc _calloc_r _malloc_r"
  "realloc _realloc_r _malloc_r _free_r"
)
fail=0
mkdir -p "$out"

# run NAME LIBC WRAP [make variables...]: builds, runs and checks one firmware; the check's status.
run() {
  local name=$1 libc=$2 wrap=$3; shift 3
  local dir=$out/$name
  rm -rf "$dir/run"
  if ! make --no-print-directory -s -j2 -f tests/newlib/fw.make OBJ_ROOT="${NL_OBJ:-$out}" OUT="$dir" LIBC="$libc" WRAP="$wrap" "$@" \
      >"$dir.build.log" 2>&1; then
    echo "FAIL: $name: the build failed:"; cat "$dir.build.log"; return 2
  fi
  BOARD_QEMU_TIMEOUT=${BOARD_QEMU_TIMEOUT:-30} boards/qemu_run.sh "$dir/fw.elf" uart "$dir/run" >/dev/null 2>&1
  local status=$?
  if [ $status != 0 ] || ! grep -q '^nl-done' "$dir/run/console.txt"; then
    echo "FAIL: $name: the firmware did not finish (QEMU $status):"; cat "$dir/run/console.txt"; return 2
  fi
  "$dump" "$dir/run/stream.bin" >"$dir/run/listing.txt" || { echo "FAIL: $name: msamp-dump failed"; return 2; }
  if ! "$drain" -q -e "$dir/fw.elf" -o "$dir/run/heap.pb.gz" -t 3 "$dir/run/stream.bin" >"$dir/run/drain.txt" 2>&1; then
    echo "FAIL: $name: drain failed:"; cat "$dir/run/drain.txt"; return 2
  fi
  arm-none-eabi-nm -S --defined-only "$dir/fw.elf" >"$dir/syms.txt"
  awk -v wrap="$wrap" -f tests/newlib/check_counts.awk "$dir/syms.txt" "$dir/run/console.txt" \
    "$dir/run/listing.txt" >"$dir/check.txt"
  local check=$?
  tests/board/check_heap.sh "$dir/run" >"$dir/heap.txt" || { cat "$dir/heap.txt" >>"$dir/check.txt"; check=1; }
  return $check
}

for libc in full nano; do
  i=0
  for wrap in "${sets[@]}"; do
    i=$((i + 1))
    name=$libc-set$i
    if run "$name" "$libc" "$wrap"; then
      echo "ok: $libc, wrap $wrap: $(sed 's/^ok: //' "$out/$name/check.txt"); heap: $(sed -n 's/^msamp-demo heap //p' "$out/$name/run/console.txt") in drain too"
    else
      [ -f "$out/$name/check.txt" ] && { echo "FAIL: $libc, wrap $wrap:"; cat "$out/$name/check.txt"; }
      fail=1
    fi
  done
done

# The control: the same firmware without malloc's guard must be caught counting twice.
run nano-control nano "malloc _malloc_r free _free_r" MSAMP_CFLAGS_FILTER=-DMSAMP_CFG_WRAP_NESTED=2
status=$?
if [ $status = 1 ] && grep -q 'records differ' "$out/nano-control/check.txt"; then
  echo "ok: control: malloc and _malloc_r wrapped without MSAMP_CFG_WRAP_NESTED=2 are caught: $(grep -m1 'device counters' "$out/nano-control/check.txt" | sed 's/^FAIL: //')"
else
  echo "FAIL: control: the check did not catch malloc counted twice without the guard (status $status)"
  cat "$out/nano-control/check.txt" 2>/dev/null
  fail=1
fi
exit $fail
