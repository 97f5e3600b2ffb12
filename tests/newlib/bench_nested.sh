#!/usr/bin/env bash
# Usage: BOARD_QEMU="..." tests/newlib/bench_nested.sh OUTDIR
# Instructions of malloc+free and calloc+free through newlib-nano under msamp (sampling disabled)
# on qemu-mps2-an385, by wrap set and MSAMP_CFG_WRAP_NESTED (tests/newlib/bench_nested.c built by
# tests/newlib/fw.make, counted by tests/ports/qemu_trace.sh's execution trace): what the guard costs.
set -u
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
. tests/ports/qemu_trace.sh
printf '  %-44s %7s %12s %12s\n' "newlib-nano, wrapped" NESTED malloc+free calloc+free
row() { # WRAP LEVEL
  local wrap=$1 level=$2 fw=$out/$(echo "$1-$2" | tr ' ' '_')
  make --no-print-directory -s -j2 -f tests/newlib/fw.make OBJ_ROOT="${NL_OBJ:-$out}" OUT="$fw" LIBC=nano WRAP="$wrap" \
    SRC=tests/newlib/bench_nested.c MSAMP_CFLAGS_FILTER=-DMSAMP_CFG_WRAP_NESTED=2 \
    LIB_EXTRA_CFLAGS=-DMSAMP_CFG_WRAP_NESTED="$level" >"$fw.log" 2>&1 ||
    { echo "bench-newlib-nested: build failed" >&2; cat "$fw.log" >&2; exit 1; }
  qemu_trace_start "$fw/fw.elf"  # sets dir (its trace and console) and qemu
  counts=$(awk '/^Trace/ { fn = $NF
      if (fn == "bench_begin") { if (!inside) { inside = 1; r = seen++ < 64 ? 0 : 1 }; next }
      if (fn == "bench_end") { inside = 0; next }
      if (inside) n[r]++ }
    END { printf "%d %d %d", n[0], n[1], seen }' <"$dir/trace")
  wait "$qemu" || true
  grep -q "msamp-bench done" "$dir/console.txt" || { echo "bench-newlib-nested: run failed" >&2; cat "$dir/console.txt" >&2; exit 1; }
  read -r m c seen <<<"$counts"
  [ "$seen" = 128 ] || { echo "bench-newlib-nested: $seen regions, 128 expected" >&2; exit 1; }
  rm -rf "$dir"
  awk -v w="$wrap" -v l="$level" -v m="$m" -v c="$c" 'BEGIN { printf "  %-44s %7s %12.1f %12.1f\n", w, l, m / 64, c / 64 }'
}
row "malloc free calloc realloc" 0
row "malloc free calloc realloc" 1
row "malloc _malloc_r free _free_r calloc" 1
row "malloc _malloc_r free _free_r calloc" 2
row "_malloc_r _free_r _calloc_r" 0
row "_malloc_r _free_r _calloc_r" 1
