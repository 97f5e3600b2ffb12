#!/usr/bin/env bash
# Usage: BOARD_QEMU="..." tests/newlib/cmake.sh OUTDIR
# Test newlib-cmake: tests/newlib/cmake (newlib_fw.c through port/msamp.cmake, all eight of newlib's
# allocator entry points wrapped) configured, built, run under QEMU and checked like newlib-counts
# (tests/newlib/check_counts.awk): each allocation and free once (malloc's wrapper got its nesting
# guard from msamp.cmake), every stack whole from its site through main (the firmware's own file
# got -funwind-tables from msamp_add_library's interface, not from the toolchain file).
set -u
out=${1:?usage: $0 OUTDIR}
dump=${MSAMP_DUMP:-host_tools/msamp-dump}
[ -x "$dump" ] || { echo "FAIL: $dump is not built"; exit 1; }
wrap="malloc free calloc realloc _malloc_r _free_r _calloc_r _realloc_r"
rm -rf "$out" && mkdir -p "$out"
if ! { cmake -S tests/newlib/cmake -B "$out/build" -DCMAKE_TOOLCHAIN_FILE="$PWD/tests/newlib/cmake/arm-m3.cmake" &&
    cmake --build "$out/build" -j2; } >"$out/build.log" 2>&1; then
  echo "FAIL: the CMake build failed:"; cat "$out/build.log"; exit 1
fi
elf=$out/build/fw.elf
BOARD_QEMU_TIMEOUT=${BOARD_QEMU_TIMEOUT:-30} boards/qemu_run.sh "$elf" uart "$out/run" >/dev/null 2>&1
grep -q '^nl-done' "$out/run/console.txt" || { echo "FAIL: the firmware did not finish:"; cat "$out/run/console.txt"; exit 1; }
"$dump" "$out/run/stream.bin" >"$out/listing.txt" || { echo "FAIL: msamp-dump failed"; exit 1; }
arm-none-eabi-nm -S --defined-only "$elf" >"$out/syms.txt"
if awk -v wrap="$wrap" -f tests/newlib/check_counts.awk "$out/syms.txt" "$out/run/console.txt" \
    "$out/listing.txt" >"$out/check.txt"; then
  echo "ok: msamp.cmake, wrap $wrap: $(sed 's/^ok: //' "$out/check.txt"), every stack site<main"
else
  echo "FAIL: msamp.cmake, wrap $wrap:"; cat "$out/check.txt"; exit 1
fi
