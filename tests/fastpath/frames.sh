#!/usr/bin/env bash
# Usage: tests/fastpath/frames.sh APP CHECK WORKDIR [RUNNER...]
# Runs tests/fastpath/frames_app.c with every allocation sampled and checks that each sampled
# stack starts at the function that called the allocator, then its caller: the wrappers built no
# frame and the slow path walked from its own frame, skipping it exactly.
set -eu
app=$1 check=$2 dir=$3
shift 3
mkdir -p "$dir"
rm -f "$dir"/*
MSAMP_OUTPUT="$dir/stream.bin" MSAMP_INTERVAL=1 "$@" "$app"
"$check" stacks --elf "$app" "$dir/stream.bin" > "$dir/stacks.txt"
cat "$dir/stacks.txt"
# Each line: stack ID samples N depth D: FRAME0 FRAME1 FRAME2 ...; the innermost three frames.
awk '{ sub(/^[^:]*: /, ""); print $1, $2, $3 }' "$dir/stacks.txt" | sort > "$dir/got.txt"
cat > "$dir/want.txt" <<'LIST'
site_aligned caller_four main
site_calloc caller_two main
site_malloc caller_one main
site_memalign caller_four main
site_posix_memalign caller_four main
site_realloc_grow caller_two main
site_realloc_new caller_three main
LIST
if ! diff -u "$dir/want.txt" "$dir/got.txt"; then
  echo "FAIL: sampled stacks do not start at the allocating function and its caller"
  exit 1
fi
# Every call sampled: 2000 of each site.
bad=$(awk '$4 != 2000 { n++ } END { print n + 0 }' "$dir/stacks.txt")
[ "$bad" = 0 ] || { echo "FAIL: a site without its 2000 samples"; exit 1; }
echo "frames: 7 sites, each stack starts at its site and its caller"
