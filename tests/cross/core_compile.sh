#!/usr/bin/env bash
# Usage: tests/cross/core_compile.sh OUTDIR SOURCES...   (TARGET_WARN, and CORE_DEFS if any, in the
# environment)
# Compiles the core (freestanding C11, warnings as errors) for every architecture msamp targets,
# with gcc and with clang, and prints each build's largest stack frame (gcc -fstack-usage). A
# missing compiler fails under CI=true and skips otherwise (tests/need.sh).
set -u
out=$1
shift
srcs=("$@")
common="-ffreestanding -fno-omit-frame-pointer -O2 $TARGET_WARN ${CORE_DEFS:-} -Iinclude -Isrc"
builds=(
  "gcc-x86_64|gcc|"
  "gcc-aarch64|aarch64-linux-gnu-gcc|-mstrict-align"
  "gcc-cortex-m3|arm-none-eabi-gcc|-mcpu=cortex-m3 -mthumb"
  "gcc-cortex-m0|arm-none-eabi-gcc|-mcpu=cortex-m0 -mthumb"
  "gcc-cortex-m23|arm-none-eabi-gcc|-mcpu=cortex-m23 -mthumb"
  "gcc-cortex-m33|arm-none-eabi-gcc|-mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16"
  "gcc-cortex-a15|arm-none-eabi-gcc|-mcpu=cortex-a15 -marm -mno-unaligned-access"
  "gcc-mips64el|mips64el-linux-gnuabi64-gcc|-mno-abicalls -fno-pic -G0"
  "gcc-mips64-be|mips64el-linux-gnuabi64-gcc|-EB -mno-abicalls -fno-pic -G0"
  "gcc-riscv64|riscv64-linux-gnu-gcc|-mcmodel=medany"
  "gcc-riscv32|riscv64-unknown-elf-gcc|-march=rv32imac -mabi=ilp32 -misa-spec=2.2 -mcmodel=medany"
  "clang-x86_64|clang|--target=x86_64-unknown-linux-gnu"
  "clang-aarch64|clang|--target=aarch64-none-elf -mstrict-align"
  "clang-cortex-m3|clang|--target=thumbv7m-none-eabi -mcpu=cortex-m3"
  "clang-cortex-m0|clang|--target=thumbv6m-none-eabi -mcpu=cortex-m0 -Wno-atomic-alignment"
  "clang-cortex-m23|clang|--target=thumbv8m.base-none-eabi -mcpu=cortex-m23"
  "clang-cortex-a15|clang|--target=armv7a-none-eabi -mcpu=cortex-a15 -marm -mno-unaligned-access"
  "clang-mips64el|clang|--target=mips64el-linux-gnuabi64 -mno-abicalls -fno-pic"
  "clang-riscv64|clang|--target=riscv64-unknown-elf -march=rv64gc -mcmodel=medany"
  "clang-riscv32|clang|--target=riscv32-unknown-elf -march=rv32imac -mabi=ilp32 -mcmodel=medany"
)
compilers=$(for b in "${builds[@]}"; do IFS='|' read -r _ cc _ <<< "$b"; echo "$cc"; done | sort -u)
tests/need.sh $compilers || exit $?
# One build: compiles every source, then prints its line (ok with the largest frame, or FAIL).
build_one() {
  local name=$1 cc=$2 flags=$3 dir=$out/$1 ok=1 s o su frame=""
  mkdir -p "$dir"
  rm -f "$dir"/*.o "$dir"/*.su
  for s in "${srcs[@]}"; do
    o=$dir/$(basename "${s%.c}").o
    su=""
    case $name in gcc-*) su="-fstack-usage" ;; esac
    # shellcheck disable=SC2086
    if ! $cc $common $flags $su -c "$s" -o "$o"; then ok=0; fi
  done
  if [ $ok = 1 ]; then
    if ls "$dir"/*.su > /dev/null 2>&1; then
      frame=$(sort -t$'\t' -k2 -n "$dir"/*.su | tail -1 | awk -F'\t' '{ n = split($1, a, ":"); printf "largest frame %s B (%s)", $2, a[n] }')
    fi
    printf 'ok    %-18s %d files %s\n' "$name" "${#srcs[@]}" "$frame"
  else
    printf 'FAIL  %-18s\n' "$name"
    return 1
  fi
}
# The builds run side by side, as many as there are cores; their output is printed in order.
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$out"
for b in "${builds[@]}"; do
  IFS='|' read -r name cc flags <<< "$b"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  build_one "$name" "$cc" "$flags" > "$out/$name.log" 2>&1 &
done
wait
failed=0
for b in "${builds[@]}"; do
  IFS='|' read -r name _ _ <<< "$b"
  cat "$out/$name.log"
  grep -q '^ok ' "$out/$name.log" || failed=1
done
exit $failed
