#!/usr/bin/env bash
# Usage: tests/rtos/drain_tasks.sh DRAIN OUTDIR   (test rtos-drain-tasks)
# drain (ASan+UBSan) on the golden vector tests/vectors/tasks.bin, an RTOS device's stream: the
# same stack in three tasks makes three sites, each with its task in --top's column and as the
# pprof label `task`; a sample without SAMPLE_TASK has none (a SAMPLE_TASK holds for one sample
# record only); the by-task table sums them; a stream without tasks keeps --top's old columns.
set -u
drain=${1:?drain}; out=${2:?outdir}
mkdir -p "$out"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
"$drain" -q -o "$out/tasks.pb.gz" -t 10 tests/vectors/tasks.bin >"$out/tasks.txt" 2>"$out/tasks.err" ||
  { echo "FAIL: drain exited $?"; cat "$out/tasks.err"; exit 1; }
row() { awk -v t="$1" -v want="$2" '
  /^top [0-9]+ sites by in-use bytes/ { s = "inuse"; next }
  /^top [0-9]+ sites by allocated bytes/ { s = "alloc"; next }
  /^[a-z]/ { s = "" }
  s == t && $1 ~ /^(>=)?[0-9]+$/ { task = substr($0, 65, 16); gsub(/ +$/, "", task); v = $1; sub(/^>=/, "", v)
    if (task == want) print v, $3 }' "$out/tasks.txt"; }
# producer: 200 bytes realloc'd to 400 at the same stack: in use one allocation of 400 bytes (a
# realloc chain), allocated two blocks, 200 and 400 bytes, each sampled by its own size (allocated
# counts every block the allocator returns, at its call: docs/DRAIN.md "Realloc chains");
# [interrupt]: 48; none: 64 (1024 interval)
[ "$(row alloc producer | awk '{ print $2 }')" = 2 ] || bad "producer's site: not 2 samples: $(row alloc producer)"
[ "$(row inuse producer | awk '{ print $2 }')" = 1 ] || bad "producer in use: not 1 sample"
[ "$(row alloc '[interrupt]' | awk '{ print $2 }')" = 1 ] || bad "no [interrupt] site"
[ "$(row alloc '' | awk '{ print $2 }')" = 1 ] || bad "the sample without SAMPLE_TASK is not task-less"
[ "$(grep -c '' <<<"$(row alloc producer)")" = 1 ] || bad "producer's samples split over sites"
grep -q '^by task:' "$out/tasks.txt" || bad "no by-task table"
# in use 400 / (1 - exp(-400/1024)) = 1237 bytes (3.09 objects); allocated those and
# 200 / (1 - exp(-200/1024)) = 1127 bytes (5.64 objects): 2364 bytes, 9 objects
# (their 95 % intervals: in use one 400-byte sample; allocated with two 200-byte ones)
grep -Eq '^ +1237 +3 +2364 +9  \([0-9]+-[0-9]+\) +\([0-9]+-[0-9]+\) +producer$' "$out/tasks.txt" || bad "by-task producer row: $(grep producer "$out/tasks.txt" | tail -1)"
grep -q '(no task)$' "$out/tasks.txt" || bad "by-task table without the (no task) row"
grep -Eq '^ +1 +100000 +100000  null   Tmr Svc +0x' "$out/tasks.txt" || bad "the failure without its task Tmr Svc"
if command -v go >/dev/null; then
  tags=$(go tool pprof -tags -sample_index=alloc_space "$out/tasks.pb.gz" 2>/dev/null)
  for t in producer '[interrupt]'; do grep -qF "): $t" <<<"$tags" || bad "pprof label task has no $t"; done
elif [ "${CI:-}" = true ]; then
  bad "go missing"
fi
# A stream without tasks: no task column, no by-task table.
"$drain" -q -o "$out/basic.pb.gz" -t 5 tests/vectors/basic.bin >"$out/basic.txt" 2>&1 || bad "drain on basic.bin"
grep -q ' task ' "$out/basic.txt" && bad "a task column without tasks"
grep -q '^by task' "$out/basic.txt" && bad "a by-task table without tasks"
[ $fail = 0 ] && echo "rtos-drain-tasks: sites by task, labels, by-task table: ok"
exit $fail
