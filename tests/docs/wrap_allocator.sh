#!/usr/bin/env bash
# Usage: tests/docs/wrap_allocator.sh README.md   (test docs-wrap-allocator)
# The README's "Profiling another allocator" block as written is wrap.c of a hosted program, with
# the link flag the README's text gives (-Wl,--wrap=pvPortMalloc,--wrap=vPortFree): pool.c is a
# FreeRTOS-like pvPortMalloc/vPortFree, pool_tasks.c two sites calling it. At MSAMP_INTERVAL=1 the
# drained profile must count exactly what the program did at each site (allocated and in use),
# with create_task and send_message (the allocator's callers) as the innermost frames.
. "$(dirname "$0")/lib.sh"
readme=$1
pc=$BUILD/hosted
block "$readme" >"$W/wrap.c" || { fail "no block"; finish; }
grep -q -- '-Wl,--wrap=pvPortMalloc,--wrap=vPortFree' "$readme" || fail "$readme no longer names the link flag this test uses"
cflags="-std=c11 -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer $(PKG_CONFIG_PATH=$pc pkg-config --cflags msamp)"
if cc $cflags -c "$W/wrap.c" -o "$W/wrap.o" 2>"$W/cc.err" &&
  cc $cflags -c "$here/pool.c" -o "$W/pool.o" 2>>"$W/cc.err" &&
  cc $cflags -c "$here/pool_tasks.c" -o "$W/pool_tasks.o" 2>>"$W/cc.err" &&
  cc "$W/wrap.o" "$W/pool.o" "$W/pool_tasks.o" -Wl,--wrap=pvPortMalloc,--wrap=vPortFree \
    $(PKG_CONFIG_PATH=$pc pkg-config --libs msamp) -o "$W/tasks" 2>>"$W/cc.err"; then
  ok "the block compiles (-Wall -Wextra -Werror) and links with -Wl,--wrap=pvPortMalloc,--wrap=vPortFree"
else
  fail "build"; show "$W/cc.err"; finish
fi
MSAMP_OUTPUT=$W/tasks.msamp MSAMP_INTERVAL=1 "$W/tasks" >"$W/truth.txt" || fail "the program failed"
host_tools/drain -q --elf "$W/tasks" -o "$W/tasks.pb.gz" "$W/tasks.msamp" || { fail "drain"; finish; }
pp -raw "$W/tasks.pb.gz" >"$W/raw.txt" 2>&1 || { fail "go tool pprof -raw"; show "$W/raw.txt"; finish; }
# Per innermost function: inuse_objects inuse_space alloc_objects alloc_space.
awk '
  /^Samples:/ { sec = "s"; next } /^Locations/ { sec = "l"; next } /^Mappings/ { sec = "m"; next }
  sec == "s" && /:/ && $1 ~ /^[0-9]+$/ { split($0, a, ":"); split(a[2], ids, " "); n++; leaf[n] = ids[1]; v[n] = $1 " " $2 " " $3 " " $4 }
  sec == "l" && $1 ~ /^[0-9]+:$/ { id = $1; sub(/:/, "", id); fn[id] = $4 }
  END { for (i = 1; i <= n; i++) { split(v[i], x, " "); f = fn[leaf[i]]; io[f] += x[1]; is[f] += x[2]; ao[f] += x[3]; as[f] += x[4] }
        for (f in ao) print f, io[f], is[f], ao[f], as[f] }' "$W/raw.txt" >"$W/sites.txt"
eval "$(sed -n 's/^tasks=\([0-9]*\) live=\([0-9]*\) task_bytes=\([0-9]*\) messages=\([0-9]*\) message_bytes=\([0-9]*\)$/T=\1 TL=\2 TB=\3 M=\4 MB=\5/p' "$W/truth.txt")"
[ -n "${T:-}" ] || { fail "no truth line from the program"; finish; }
want_task="create_task $TL $((TL * TB)) $T $((T * TB))"
want_msg="send_message 0 0 $M $((M * MB))"
grep -qx "$want_task" "$W/sites.txt" && ok "create_task exact: in use $TL objects, allocated $T ($TB bytes each)" ||
  { fail "create_task: want '$want_task'"; show "$W/sites.txt"; }
grep -qx "$want_msg" "$W/sites.txt" && ok "send_message exact: allocated $M, none in use" ||
  { fail "send_message: want '$want_msg'"; show "$W/sites.txt"; }
finish
