#!/usr/bin/env bash
# Usage: tests/ports/size_table.sh BUILD_DIR "SMALL_DEFS"
# Prints one table: text/data/bss of the msamp library per architecture (the members of
# libmsamp.a and libmsamp_uart.a that a firmware wrapping malloc free calloc realloc links), in the
# default configuration and in the smallest useful one (SMALL_DEFS), and the unwinder's share of
# the text. Builds with each board's own flags (qemu-mps2-an385 builds with -Os) through
# `make BOARD=...`; Cortex-M3 in both profiles of the core.
# SIZE_TABLE_TSV=FILE (tests/budgets): also writes each number as a line "size.ROW.MEASURE<TAB>N" to
# FILE (ROW: the label in lower case, runs of other characters as one '-'); the table is unchanged.
set -u
# Each row names its own variables: none may leak in from the make that runs this (BOARD_COMPILER).
unset MAKEFLAGS MFLAGS MAKEOVERRIDES
out=${1:?build dir}; small=${2:?small config defs}
make=${MAKE:-make}
jobs=-j$(nproc 2>/dev/null || echo 2) # each build's objects in parallel
# One table at a time in a build folder (make test's ports-size and budgets share theirs): the
# second waits, then finds it built.
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
# board | make variables | label | unwinder objects (port/...: msamp_frame_walk.o is port/common's
# frame walker with msamp_port_walk()) | knobs added to both configurations | the functions wrapped
# (default: malloc free calloc realloc)
# The minimal rows: the tiny profile with every feature knob off (include/msamp_config_minimal.h:
# no adaptive interval, RAM-dump block, failure reports, stack or identity re-sends, nested-call
# guards, realloc chains, the free filter's masks), malloc and free wrapped only; timestamps and the
# build-id kept.
minimal="-include include/msamp_config_minimal.h"
configs=(
  "qemu-virt-aarch64||aarch64 (gcc, frames)|msamp_frame_walk.o"
  "qemu-virt-arm||arm A15 ARM (gcc, frames)|msamp_frame_walk.o"
  "qemu-virt-arm|ARM_ISA=thumb|arm A15 Thumb (gcc, exidx)|msamp_arm_exidx.o msamp_arm_capture.o msamp_arm_pr_stubs.o"
  "qemu-mps2-an385|MSAMP_PROFILE=full|Cortex-M3 -Os full (gcc, exidx)|msamp_arm_exidx.o msamp_arm_capture.o msamp_arm_pr_stubs.o"
  "qemu-mps2-an385|MSAMP_PROFILE=full BOARD_COMPILER=clang|Cortex-M3 -Os full (clang, frames)|msamp_frame_walk.o"
  "qemu-mps2-an385|MSAMP_PROFILE=tiny|Cortex-M3 -Os tiny (gcc, exidx)|msamp_arm_exidx.o msamp_arm_capture.o msamp_arm_pr_stubs.o"
  "qemu-mps2-an385|MSAMP_PROFILE=tiny BOARD_COMPILER=clang|Cortex-M3 -Os tiny (clang, frames)|msamp_frame_walk.o"
  "qemu-mps2-an385|MSAMP_PROFILE=tiny|Cortex-M3 minimal (gcc, exidx)|msamp_arm_exidx.o msamp_arm_capture.o msamp_arm_pr_stubs.o|$minimal|malloc free"
  "qemu-mps2-an385|MSAMP_PROFILE=tiny BOARD_COMPILER=clang|Cortex-M3 minimal (clang, frames)|msamp_frame_walk.o|$minimal|malloc free"
  "qemu-microbit||Cortex-M0 -Os tiny (gcc, exidx)|msamp_arm_exidx.o msamp_arm_capture.o msamp_arm_pr_stubs.o"
  "qemu-microbit|BOARD_COMPILER=clang|Cortex-M0 -Os tiny (clang, frames)|msamp_frame_walk.o"
  "qemu-microbit|MICROBIT_CPU=cortex-m23|Cortex-M23 -Os tiny (gcc, exidx)|msamp_arm_exidx.o msamp_arm_capture.o msamp_arm_pr_stubs.o"
  "qemu-microbit|MICROBIT_CPU=cortex-m23 BOARD_COMPILER=clang|Cortex-M23 -Os tiny (clang, frames)|msamp_frame_walk.o"
  "qemu-mps2-an386||Cortex-M4F -Os full (gcc, exidx)|msamp_arm_exidx.o msamp_arm_capture.o msamp_arm_pr_stubs.o"
  "qemu-mps2-an505||Cortex-M33 -Os full (gcc, exidx)|msamp_arm_exidx.o msamp_arm_capture.o msamp_arm_pr_stubs.o"
  "qemu-malta-mips64el||mips64el (gcc, scanner)|msamp_mips64_walk.o msamp_mips64_capture.o"
  "qemu-malta-mips64||mips64 BE (gcc, scanner)|msamp_mips64_walk.o msamp_mips64_capture.o"
  "qemu-virt-riscv64||riscv64 (gcc, frames)|msamp_frame_walk.o"
  "qemu-virt-riscv32||riscv32 RV32IMAC (gcc, frames)|msamp_frame_walk.o"
  "qemu-microvm-x86_64||x86_64 (gcc, frames)|msamp_frame_walk.o"
)
# The archive members a firmware that wraps malloc free calloc realloc links: the core (not the
# msamp_on_* hooks), those four wrappers, the port (one of the ARM unwinders), the UART transport.
skip="msamp_hooks.o wrap_aligned_alloc.o wrap_memalign.o wrap_posix_memalign.o wrap_malloc_r.o \
wrap_free_r.o wrap_calloc_r.o wrap_realloc_r.o"
arm_unwinders="msamp_frame_walk.o msamp_arm_exidx.o msamp_arm_capture.o msamp_arm_pr_stubs.o"

# members ARCHIVE...: "text data bss name" of each member
members() { size "$@" 2>/dev/null | awk 'NR > 1 && $1 ~ /^[0-9]+$/ { print $1, $2, $3, $6 }'; }

printf '%-36s | %-22s | %-22s | %-15s | %s\n' "msamp library, bytes" "default: text data bss" "small: text data bss" \
  "firmware, small" "unwinder text"
printf '%s\n' "-------------------------------------+------------------------+------------------------+-----------------+--------------"
tsv=${SIZE_TABLE_TSV:-}
[ -z "$tsv" ] || : >"$tsv"
# tsv_put LABEL MEASURE N: one machine-readable line (SIZE_TABLE_TSV)
tsv_put() {
  [ -n "$tsv" ] || return 0
  printf 'size.%s.%s\t%s\n' "$(echo "$1" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')" "$2" "$3" >>"$tsv"
}
for c in "${configs[@]}"; do
  IFS='|' read -r board vars label unwinder extra wraps <<<"$c"
  wrapvar=()
  [ -n "$wraps" ] && wrapvar=("MSAMP_WRAP_FUNCS=$wraps")
  unwrapped=""
  for f in calloc realloc; do
    case " ${wraps:-calloc realloc} " in *" $f "*) ;; *) unwrapped="$unwrapped wrap_$f.o" ;; esac
  done
  [ -f "boards/$board/board.mk" ] || continue
  row=()
  for cfg in default small; do
    dir=$out/$cfg${extra:+-minimal}
    defs=$extra; [ "$cfg" = small ] && defs="$small $extra"
    mkdir -p "$dir"
    # shellcheck disable=SC2086
    bdir=$($make -s --no-print-directory BOARD="$board" $vars BUILD="$dir" board-dir)
    # shellcheck disable=SC2086
    if ! $make -s --no-print-directory $jobs BOARD="$board" $vars "${wrapvar[@]}" BUILD="$dir" OBJ_DEFS="$defs" \
        "$bdir/libmsamp.a" "$bdir/libmsamp_uart.a" >/dev/null 2>"$dir.err"; then
      echo "size_table: building $board $vars failed:" >&2; tail -5 "$dir.err" >&2; exit 1
    fi
    read -r t d b ut <<<"$(members "$bdir/libmsamp.a" "$bdir/libmsamp_uart.a" |
      awk -v skip=" $skip $unwrapped " -v arm=" $arm_unwinders " -v mine=" $unwinder " '
        skip ~ " " $4 " " { next }
        arm ~ " " $4 " " && mine !~ " " $4 " " { next }
        { t += $1; d += $2; b += $3; if (mine ~ " " $4 " ") u += $1 }
        END { printf "%d %d %d %d", t, d, b, u }')"
    row+=("$(printf '%7d %6d %7d' "$t" "$d" "$b")")
    tsv_put "$label" "lib-$cfg-text" "$t"; tsv_put "$label" "lib-$cfg-ram" "$((d + b))"
    if [ "$cfg" = small ]; then
      # shellcheck disable=SC2086
      if ! fw=$($make -s --no-print-directory $jobs BOARD="$board" $vars "${wrapvar[@]}" BUILD="$dir" OBJ_DEFS="$defs" \
          size-probe 2>"$dir.err"); then
        echo "size_table: the size probe of $board $vars failed:" >&2; tail -5 "$dir.err" >&2; exit 1
      fi
      read -r ft fd fb <<<"$fw"
      firmware=$(printf '%7d %7d' "$ft" "$((fd + fb))")
      tsv_put "$label" fw-small-code "$ft"; tsv_put "$label" fw-small-ram "$((fd + fb))"
    fi
    if [ "$cfg" = default ]; then
      if [ -n "$unwinder" ]; then
        share=$(awk -v u="$ut" -v t="$t" 'BEGIN { printf "%5d (%2.0f%%)", u, 100 * u / t }')
      else
        share="  in the port"
      fi
    fi
  done
  printf '%-36s | %-22s | %-22s | %-15s | %s\n' "$label" "${row[0]}" "${row[1]}" "$firmware" "$share"
done
# The FreeRTOS layer (port/rtos/freertos/, docs/FREERTOS.md) on the Cortex-M3: its members of the
# qemu-mps2-an385-freertos library, and the RAM each task costs (its slot of the layer's pool, from
# the symbol's size, the core registry's pointer and the TCB's thread-local storage pointer).
rtos_board=qemu-mps2-an385-freertos
if [ -f "boards/$rtos_board/board.mk" ]; then
  dir=$out/rtos
  bdir=$($make -s --no-print-directory BOARD=$rtos_board BUILD="$dir" board-dir)
  # shellcheck disable=SC2086
  if ! $make -s --no-print-directory $jobs BOARD=$rtos_board BUILD="$dir" "$bdir/libmsamp.a" >/dev/null 2>"$dir.err"; then
    echo "size_table: building $rtos_board failed:" >&2; tail -5 "$dir.err" >&2; exit 1
  fi
  tasks=$($make -s --no-print-directory BOARD=$rtos_board BUILD="$dir" --eval='rtos-tasks: ; @echo $(MSAMP_RTOS_TASKS)' rtos-tasks)
  read -r lt ld lb <<<"$(members "$bdir/libmsamp.a" | awk '$4 == "msamp_freertos.o" || $4 == "msamp_freertos_heap.o" { t += $1; d += $2; b += $3 } END { print t, d, b }')"
  slots=$(arm-none-eabi-nm -S "$bdir/libmsamp.a" 2>/dev/null | awk '$4 == "slots" { print $2 }')
  [ -n "$slots" ] || { echo "size_table: no pool (slots) in $bdir/libmsamp.a" >&2; exit 1; }
  per=$(( 16#$slots / tasks ))
  tsv_put "FreeRTOS layer, Cortex-M3 -Os (gcc)" code "$lt"; tsv_put "FreeRTOS layer, Cortex-M3 -Os (gcc)" ram "$((ld + lb))"
  tsv_put "FreeRTOS layer, Cortex-M3 -Os (gcc)" ram-per-task $((per + 8))
  printf '%-36s | %7d %6d %7d | RAM per task: %d bytes (%d in the layer'"'"'s pool, 4 in the core'"'"'s registry, 4 in the TCB); %d tasks\n' \
    "FreeRTOS layer, Cortex-M3 -Os (gcc)" "$lt" "$ld" "$lb" $((per + 8)) "$per" "$tasks"
  # Per-task budgets (MSAMP_CFG_TASK_BUDGETS, on in this board's build): their member (the table, a
  # byte per live slot, the API, the hook's default); the hooks in the sample and free paths are in
  # the core's members (docs/HEALTH.md#task-budgets has the whole difference).
  entries=$($make -s --no-print-directory BOARD=$rtos_board BUILD="$dir" --eval='task-budgets: ; @echo $(patsubst -DMSAMP_CFG_TASK_BUDGETS=%,%,$(filter -DMSAMP_CFG_TASK_BUDGETS=%,$(BOARD_CFLAGS)))' task-budgets)
  read -r bt bd bb <<<"$(members "$bdir/libmsamp.a" | awk '$4 == "msamp_task_budget.o" { t += $1; d += $2; b += $3 } END { print t + 0, d + 0, b + 0 }')"
  [ "$bt" -gt 0 ] || { echo "size_table: no task budgets in $bdir/libmsamp.a" >&2; exit 1; }
  tsv_put "task budgets, Cortex-M3 -Os (gcc)" code "$bt"; tsv_put "task budgets, Cortex-M3 -Os (gcc)" ram "$((bd + bb))"
  printf '%-36s | %7d %6d %7d | %s entries (MSAMP_CFG_TASK_BUDGETS) and a byte per live slot\n' \
    "task budgets, Cortex-M3 -Os (gcc)" "$bt" "$bd" "$bb" "${entries:-?}"
fi
echo "core (without the msamp_on_* hooks), wrappers of malloc free calloc realloc, port, UART transport;"
echo "minimal: the tiny profile with $minimal, malloc and free wrapped only"
echo "text includes .ARM.exidx/.ARM.extab where built with unwind tables; small: $small"
echo "firmware, small: code (text) and RAM (data + bss) that msamp adds to a firmware that wraps"
echo "malloc free calloc realloc and calls msamp_init and msamp_poll: tests/ports/size_probe.c linked"
echo "with and without msamp (make BOARD=... size-probe); the linker merges unwind entries, and the"
echo "control API (msamp_set_interval, msamp_get_stats...) is not linked in the tiny profile; the full one's"
echo "command parser (MSAMP_CFG_CONTROL, docs/CONTROL.md) calls it; memset & co. are linked where called"
