#!/usr/bin/env bash
# Usage: tests/hosted/unwind.sh UNWIND_APP CHECK WORKDIR [RUNNER...]
# A static program whose allocations come from glibc's own frames, from code built without frame
# pointers and from calls with hostile frame-pointer values, every one sampled: it must exit
# normally (a fault in the walker kills it), and every hostile call must be in the stream with
# its caller as the innermost frame.
set -eu
app=$1 check=$2 dir=$3
shift 3
mkdir -p "$dir"
rm -f "$dir"/*
# Frame chains (MSAMP_UNWIND=fp) with the hostile calls; the default walk (by the code's call
# frame information where built: docs/HOSTED.md) without them, which make the CFI lie.
for mode in fp default; do
  extra=
  [ "$mode" = fp ] || extra=no-hostile
  env MSAMP_UNWIND=${mode#default} MSAMP_OUTPUT="$dir/$mode.bin" MSAMP_INTERVAL=1 \
    "$@" "$app" "$dir/$mode.truth" $extra
  "$check" sites --elf "$app" --truth "$dir/$mode.truth" "$dir/$mode.bin"
  "$check" stacks --elf "$app" "$dir/$mode.bin" > "$dir/$mode.stacks"
  grep -qE ' (__)?strdup( |$)' "$dir/$mode.stacks" || { echo "$mode: no sample from inside glibc (strdup)"; exit 1; }
  echo "unwind ($mode): $(wc -l < "$dir/$mode.stacks") distinct stacks, no fault"
done
