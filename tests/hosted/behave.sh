#!/usr/bin/env bash
# Usage: [RUNNER=qemu-...] tests/hosted/behave.sh BUILDDIR [CHECK]
# BUILDDIR holds behave_plain and behave_msamp (and msamp_check, unless CHECK names it).
# The allocator's answers (return values, errno, alignment, contents) are the same without msamp,
# with msamp at interval 1 (every call on the sampled path) and at the default interval.
set -eu
b=$1 dir=$1/behave check=${2:-$1/msamp_check}
run=${RUNNER:-}
mkdir -p "$dir"
rm -f "$dir"/*
$run "$b/behave_plain" > "$dir/plain.out"
MSAMP_OUTPUT="$dir/every.bin" MSAMP_INTERVAL=1 $run "$b/behave_msamp" > "$dir/every.out"
MSAMP_OUTPUT="$dir/default.bin" $run "$b/behave_msamp" > "$dir/default.out"
diff -u "$dir/plain.out" "$dir/every.out"
diff -u "$dir/plain.out" "$dir/default.out"
"$check" decode "$dir/every.bin"
echo "behaviour: $(wc -l < "$dir/plain.out") results identical with and without msamp"
