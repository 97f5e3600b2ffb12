#!/usr/bin/env bash
# Usage: tests/hosted/fork.sh BUILDDIR   (holds fork_app, behave_msamp and msamp_check)
# The parent's stream decodes without damage and has none of the forked child's allocations;
# the child writes nothing; a program the child execs writes its own stream (%p differs).
set -eu
b=$1 dir=$1/fork
mkdir -p "$dir"
rm -f "$dir"/*
MSAMP_OUTPUT="$dir/s.%p.bin" MSAMP_INTERVAL=1 "$b/fork_app" "$b/behave_msamp" > "$dir/out.txt"
files=$(ls "$dir"/s.*.bin | wc -l)
[ "$files" = 2 ] || { echo "expected 2 streams (parent, exec'd program), found $files"; exit 1; }
parent=""
for f in "$dir"/s.*.bin; do
  "$b/msamp_check" decode "$f"
  if host_tools/msamp-dump "$f" | grep -q 'MARK text="after fork"'; then parent=$f; fi
done
[ -n "$parent" ] || { echo "no stream holds the parent's mark"; exit 1; }
if host_tools/msamp-dump "$parent" | grep -q 'size=777 '; then
  echo "the child's allocations reached the parent's stream"; exit 1
fi
host_tools/msamp-dump "$parent" | grep -c '^ALLOC.*size=300 ' | grep -qx 1000 ||
  { echo "the parent's allocations after the fork are not all in its stream"; exit 1; }
echo "fork: parent stream clean, child silent, exec'd program profiled separately"
