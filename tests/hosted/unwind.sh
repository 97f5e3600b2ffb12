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
MSAMP_OUTPUT="$dir/stream.bin" MSAMP_INTERVAL=1 "$@" "$app" "$dir/truth.txt"
"$check" sites --elf "$app" --truth "$dir/truth.txt" "$dir/stream.bin"
"$check" stacks --elf "$app" "$dir/stream.bin" > "$dir/stacks.txt"
grep -qE ' (__)?strdup( |$)' "$dir/stacks.txt" || { echo "no sample from inside glibc (strdup)"; exit 1; }
echo "unwind: $(wc -l < "$dir/stacks.txt") distinct stacks, no fault"
