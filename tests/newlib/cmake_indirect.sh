#!/usr/bin/env bash
# Usage: BOARD_QEMU="..." tests/newlib/cmake_indirect.sh OUTDIR
# Test newlib-cmake-indirect: tests/newlib/newlib_indirect.c through port/msamp.cmake (the
# tests/newlib/cmake project, -DNL_SRC, -DNL_WRAP) with newlib's _r functions alone wrapped, the
# firmware calling only newlib's malloc, strdup, calloc, realloc and free: the _r functions are
# reached only from inside libc.a, linked after libmsamp.a. It must link (msamp.cmake names each
# _r wrapper with -u; without, __wrap__malloc_r is undefined) and, at interval 1, record each
# allocation once with its size (100, strdup's 35, calloc's 96, realloc's 64; four rounds) and
# each free, as the firmware's own count and msamp's counters say, every stack with a frame in
# main (malloc, calloc, realloc: newlib's entry tail-calls its _r function) or in newlib's
# _strdup_r (newlib has no unwind tables: the walk ends there).
set -u
out=${1:?usage: $0 OUTDIR}
dump=${MSAMP_DUMP:-host_tools/msamp-dump}
[ -x "$dump" ] || { echo "FAIL: $dump is not built"; exit 1; }
wrap="_malloc_r _free_r _calloc_r _realloc_r"
rm -rf "$out" && mkdir -p "$out"
if ! { cmake -S tests/newlib/cmake -B "$out/build" -DCMAKE_TOOLCHAIN_FILE="$PWD/tests/newlib/cmake/arm-m3.cmake" \
    -DNL_SRC="$PWD/tests/newlib/newlib_indirect.c" -DNL_WRAP="$wrap" &&
    cmake --build "$out/build" -j2; } >"$out/build.log" 2>&1; then
  echo "FAIL: the CMake build with WRAP $wrap failed:"; grep -E 'undefined|error' "$out/build.log" | head -n 20; exit 1
fi
echo "ok: linked with WRAP $wrap, the firmware calling none of them itself"
elf=$out/build/fw.elf
BOARD_QEMU_TIMEOUT=${BOARD_QEMU_TIMEOUT:-30} boards/qemu_run.sh "$elf" uart "$out/run" >/dev/null 2>&1
grep -q '^nl-done' "$out/run/console.txt" || { echo "FAIL: the firmware did not finish:"; cat "$out/run/console.txt"; exit 1; }
"$dump" "$out/run/stream.bin" >"$out/listing.txt" || { echo "FAIL: msamp-dump failed"; exit 1; }
arm-none-eabi-nm -S --defined-only "$elf" >"$out/syms.txt"
awk -v syms="$out/syms.txt" '
  function hex(s,    v, i) { s = tolower(s); sub(/^0x/, "", s); v = 0
    for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
  BEGIN { while ((getline l < syms) > 0) { split(l, f, " "); if (f[4] == "main" || f[4] == "_strdup_r") { lo[f[4]] = hex(f[1]); hi[f[4]] = hex(f[1]) + hex(f[2]) } } }
  FILENAME ~ /console/ && /^nl-made/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); made[kv[1]] = kv[2] } next }
  FILENAME ~ /console/ { next }
  $1 == "STACK" { for (i = 2; i <= NF; i++) if ($i ~ /^frames=/) { fr = substr($i, 8); n = split(fr, a, ","); ok = 0
      for (j = 1; j <= n; j++) { pc = hex(a[j]); for (k in lo) if (pc >= lo[k] && pc < hi[k]) ok = 1 }
      split($2, id, "="); good[id[2]] = ok } }
  $1 == "ALLOC" { allocs++; for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    sizes[v["size"]]++; if (!good[v["stack"]]) bad++ }
  $1 == "FREE" { fr_n++ }
  END {
    if (allocs != made["allocs"] || allocs != made["samples"] || allocs != 16) { print "FAIL: " allocs " ALLOC records, the firmware made " made["allocs"] ", msamp counted " made["samples"]; exit 1 }
    if (fr_n != made["frees"] || fr_n != made["msamp_frees"]) { print "FAIL: " fr_n " FREE records, the firmware freed " made["frees"] ", msamp counted " made["msamp_frees"]; exit 1 }
    if (sizes[100] != 4 || sizes[35] != 4 || sizes[96] != 4 || sizes[64] != 4) { print "FAIL: sizes 100/35/96/64: " sizes[100] "/" sizes[35] "/" sizes[96] "/" sizes[64] " (4 each)"; exit 1 }
    if (bad) { print "FAIL: " bad " allocations whose stack has no frame in main or _strdup_r"; exit 1 }
    if (made["reentrant"] != 0) { print "FAIL: reentrant=" made["reentrant"]; exit 1 }
    print "ok: " allocs " allocations (sizes 100, 35, 96, 64, four each) and " fr_n " frees recorded once each, as the firmware made them and msamp counted; every stack in main or _strdup_r"
  }' "$out/run/console.txt" "$out/listing.txt" || exit 1
