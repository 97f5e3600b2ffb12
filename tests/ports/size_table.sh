#!/usr/bin/env bash
# Usage: tests/ports/size_table.sh BUILD_DIR "SMALL_DEFS"
# Prints one table: text/data/bss of the msamp library per architecture (core, the wrappers of
# malloc free calloc realloc, the port, a UART transport), in the default configuration and in
# the smallest useful one (SMALL_DEFS), and the unwinder's share of the text. Builds with each
# board's own flags (qemu-mps2-an385 builds with -Os) through `make BOARD=...`.
set -u
out=${1:?build dir}; small=${2:?small config defs}
make=${MAKE:-make}
# board | make variables | label | unwinder objects (port/...)
configs=(
  "qemu-virt-aarch64||aarch64 (gcc)|"
  "qemu-virt-arm||arm A15 ARM (gcc, frames)|port/arm/msamp_arm_frames.o"
  "qemu-virt-arm|ARM_ISA=thumb|arm A15 Thumb (gcc, exidx)|port/arm/msamp_arm_exidx.o port/arm/msamp_arm_capture.o port/arm/msamp_arm_pr_stubs.o"
  "qemu-mps2-an385||Cortex-M3 -Os (gcc, exidx)|port/arm/msamp_arm_exidx.o port/arm/msamp_arm_capture.o port/arm/msamp_arm_pr_stubs.o"
  "qemu-mps2-an385|BOARD_COMPILER=clang|Cortex-M3 -Os (clang, frames)|port/arm/msamp_arm_frames.o"
  "qemu-malta-mips64el||mips64el (gcc, scanner)|port/mips64/msamp_mips64_walk.o port/mips64/msamp_mips64_capture.o"
  "qemu-malta-mips64||mips64 BE (gcc, scanner)|port/mips64/msamp_mips64_walk.o port/mips64/msamp_mips64_capture.o"
  "qemu-virt-riscv64||riscv64 (gcc, frames)|port/riscv64/msamp_riscv64_frames.o"
  "qemu-microvm-x86_64||x86_64 (gcc, frames)|port/x86_64/msamp_x86_64_frames.o"
)
wraps="src/wrap/wrap_malloc.o src/wrap/wrap_free.o src/wrap/wrap_calloc.o src/wrap/wrap_realloc.o"

# sum FILES...: "text data bss" of the objects that exist
sum() { size "$@" 2>/dev/null | awk 'NR > 1 { t += $1; d += $2; b += $3 } END { printf "%d %d %d", t, d, b }'; }

printf '%-32s | %-22s | %-22s | %s\n' "msamp library, bytes" "default: text data bss" "small: text data bss" "unwinder text"
printf '%s\n' "---------------------------------+------------------------+------------------------+--------------"
for c in "${configs[@]}"; do
  IFS='|' read -r board vars label unwinder <<<"$c"
  [ -f "boards/$board/board.mk" ] || continue
  row=()
  for cfg in default small; do
    dir=$out/$cfg
    defs=""; [ "$cfg" = small ] && defs=$small
    mkdir -p "$dir"
    # shellcheck disable=SC2086
    if ! $make -s --no-print-directory BOARD="$board" $vars BUILD="$dir" OBJ_DEFS="$defs" lib >/dev/null 2>"$dir.err"; then
      echo "size_table: building $board $vars failed:" >&2; tail -5 "$dir.err" >&2; exit 1
    fi
    bdir=$(ls -d "$dir/$board"* 2>/dev/null | while read -r d; do
      case "$vars" in
        *thumb*) [[ $d == *-thumb* ]] && echo "$d" ;;
        *clang*) [[ $d == *-clang* ]] && echo "$d" ;;
        *) [[ $d == "$dir/$board" ]] && echo "$d" ;;
      esac; done | head -1)
    # shellcheck disable=SC2086
    $make -s --no-print-directory BOARD="$board" $vars BUILD="$dir" OBJ_DEFS="$defs" "$bdir/libmsamp_uart.a" >/dev/null 2>&1
    port=$(for f in "$bdir"/obj/port/*/*.o; do
      rel=${f#"$bdir"/obj/}
      case "$rel" in
        port/arm/msamp_arm_frames.o|port/arm/msamp_arm_exidx.o|port/arm/msamp_arm_capture.o|port/arm/msamp_arm_pr_stubs.o)
          [[ " $unwinder " == *" $rel "* ]] && echo "$f" ;;
        *) echo "$f" ;;
      esac; done)
    # shellcheck disable=SC2086
    read -r t d b <<<"$(sum "$bdir"/obj/src/*.o $(printf "$bdir/obj/%s " $wraps) $port "$bdir"/obj-uart/port/transport/*.o)"
    row+=("$(printf '%7d %6d %7d' "$t" "$d" "$b")")
    if [ "$cfg" = default ]; then
      if [ -n "$unwinder" ]; then
        # shellcheck disable=SC2086
        read -r ut _ _ <<<"$(sum $(printf "$bdir/obj/%s " $unwinder))"
        share=$(awk -v u="$ut" -v t="$t" 'BEGIN { printf "%5d (%2.0f%%)", u, 100 * u / t }')
      else
        share="  in the port"
      fi
    fi
  done
  printf '%-32s | %-22s | %-22s | %s\n' "$label" "${row[0]}" "${row[1]}" "$share"
done
echo "text includes .ARM.exidx/.ARM.extab where built with unwind tables; small: $small"
