#!/usr/bin/env bash
# Usage: tests/hosted/preload_sites.sh MODE DRAIN OUTDIR PROGRAM... [-- CALLER]
# MODE preload: each PROGRAM (built plainly) runs under LD_PRELOAD=$PRELOAD; MODE interpose: each
# PROGRAM is linked with msamp-interpose.pc. 10 seeds each (MSAMP_SEED 1..10); drain --json of each
# run; tests/hosted/preload_sites.py checks the library site (operator new in libstdc++, strdup in
# libc) against the program's truth, and its stack must reach the program's caller (the DWARF walk
# through libstdc++ and libc; drain symbolizes the program with --elf). PRELOAD_CALLER=0: not.
set -eu
mode=$1 drain=$2 out=$3
shift 3
mkdir -p "$out"
caller=()
[ "${PRELOAD_CALLER:-1}" = 1 ] && caller=(--caller)
for prog in "$@"; do
  name=$(basename "$prog")
  runs=()
  for seed in 1 2 3 4 5 6 7 8 9 10; do
    base=$out/$name.$seed
    rm -f "$base".bin "$base".json
    if [ "$mode" = preload ]; then
      MSAMP_SEED=$seed MSAMP_OUTPUT=$base.bin LD_PRELOAD=$PRELOAD "$prog" > "$base".truth
    else
      MSAMP_SEED=$seed MSAMP_OUTPUT=$base.bin "$prog" > "$base".truth
    fi
    "$drain" --elf "$prog" --json "$base".json -o "$base".pb.gz "$base".bin 2> "$base".err ||
      { cat "$base".err; exit 1; }
    runs+=("$base.truth,$base.json")
  done
  python3 tests/hosted/preload_sites.py "${caller[@]}" "$mode:$name" "${runs[@]}"
done
