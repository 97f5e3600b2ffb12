#!/usr/bin/env bash
# Usage: tests/docs/tail_call.sh docs/API.md   (test docs-tail-call)
# What docs/API.md ("Wrapping a project's own allocator") and the README say about a project's own
# allocator, on a hosted program at MSAMP_INTERVAL=1 (tests/docs/tailcall/):
#   - helper.c's make_buf ends in `return malloc(n);`: built at -O2 its samples show at its caller
#     (use_helper innermost), built with -fno-optimize-sibling-calls at make_buf;
#   - pool_alloc wrapped with MSAMP_WRAP_ALLOCATOR (main.c) and -Wl,--wrap: the 500 calls from
#     main.c are sampled at use_pool, the 300 from the pool's own file (pool_refill) never.
. "$(dirname "$0")/lib.sh"
doc=$1
pc=$BUILD/hosted
src=$here/tailcall
grep -q -- '-fno-optimize-sibling-calls' "$doc" && grep -q 'return malloc(n);' "$doc" ||
  fail "$doc no longer says what this test shows (return malloc(n); -fno-optimize-sibling-calls)"
base="-std=c11 -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer $(PKG_CONFIG_PATH=$pc pkg-config --cflags msamp)"
# top PROFILE: "function flat_alloc_objects" per innermost function.
top() {
  pp -top -sample_index=alloc_objects -nodecount=50 "$1" 2>/dev/null |
    awk '$1 ~ /^[0-9]+$/ && NF >= 6 { print $6, $1 }'
}
for variant in o2 nosibling; do
  extra=; [ $variant = nosibling ] && extra=-fno-optimize-sibling-calls
  if cc $base $extra -c "$src/helper.c" -o "$W/helper-$variant.o" 2>"$W/cc.err" &&
    cc $base -c "$src/main.c" -o "$W/main.o" 2>>"$W/cc.err" &&
    cc "$W/main.o" "$W/helper-$variant.o" -Wl,--wrap=pool_alloc,--wrap=pool_free \
      $(PKG_CONFIG_PATH=$pc pkg-config --libs msamp) -o "$W/app-$variant" 2>>"$W/cc.err"; then :; else
    fail "build ($variant)"; show "$W/cc.err"; finish
  fi
  MSAMP_OUTPUT=$W/$variant.msamp MSAMP_INTERVAL=1 "$W/app-$variant" >"$W/truth-$variant.txt" || fail "the program failed"
  host_tools/drain -q --elf "$W/app-$variant" -o "$W/$variant.pb.gz" "$W/$variant.msamp" || { fail "drain"; finish; }
  top "$W/$variant.pb.gz" >"$W/top-$variant.txt"
  n() { awk -v f="$1" '$1 == f { print $2 }' "$W/top-$variant.txt"; }
  if [ $variant = o2 ]; then
    if [ "$(n use_helper)" = 500 ] && [ -z "$(n make_buf)" ]; then
      ok "-O2: make_buf's 500 allocations (return malloc(n), a tail call) show at its caller use_helper"
    else
      fail "-O2: use_helper=$(n use_helper) make_buf=$(n make_buf), want 500 at use_helper"; show "$W/top-$variant.txt"
    fi
  else
    if [ "$(n make_buf)" = 500 ]; then
      ok "-fno-optimize-sibling-calls: the 500 allocations show at make_buf"
    else
      fail "-fno-optimize-sibling-calls: make_buf=$(n make_buf), want 500"; show "$W/top-$variant.txt"
    fi
  fi
  if [ "$(n use_pool)" = 500 ] && [ "$(awk '$1 == "pool_refill" || $1 == "pool_alloc" { s += $2 } END { print s + 0 }' "$W/top-$variant.txt")" = 0 ]; then
    ok "$variant: pool_alloc wrapped: 500 samples from main.c (use_pool), none of the 300 calls from the pool's own file"
  else
    fail "$variant: use_pool=$(n use_pool) pool_refill=$(n pool_refill), want 500 and none"; show "$W/top-$variant.txt"
  fi
done
finish
