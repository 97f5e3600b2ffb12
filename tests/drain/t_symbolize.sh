#!/usr/bin/env bash
# drain --elf: a PIE program's stream (MAPPING records, build-ids) and a non-PIE one's (bare-metal
# style, no MAPPING) symbolized through libdw, read with go tool pprof: function names, file:line,
# the inlined make_node as a frame of its own, estimates against the program's truth; without
# --elf, pprof still symbolizes the raw addresses itself from the mapping's file.
. "$(dirname "$0")/lib.sh"
D=$DRAIN_REL

check_symbols() { # NAME PROFILE
  local n=$1 f=$2
  pp -raw "$f" >"$W/$n.raw" 2>"$W/$n.err" || { fail "$n: pprof -raw"; return; }
  for fn in 'make_node [^ ]*tests/drain/symprog.c:' 'build_list [^ ]*tests/drain/symprog.c:' \
    'churn [^ ]*tests/drain/symprog.c:' 'big_buffers [^ ]*tests/drain/symprog.c:' 'main [^ ]*tests/drain/symprog.c:'; do
    grep -q "$fn" "$W/$n.raw" || fail "$n: -raw lacks '$fn'"
  done
  # make_node is inlined into build_list: one location, two lines, innermost first.
  grep -A1 ' make_node [^ ]*tests/drain/symprog.c:' "$W/$n.raw" | tail -n1 | grep -q '^ *build_list ' &&
    ok "$n: inline chain make_node -> build_list in one location" || fail "$n: inline chain"
  # The line numbers are those of the calls in the source.
  local l_node l_list
  l_node=$(grep -n 'return tracked_malloc(n, 1);' "$here/symprog.c" | cut -d: -f1)
  l_list=$(grep -n 'keep\[i\] = make_node(256);' "$here/symprog.c" | cut -d: -f1)
  grep -q "make_node [^ ]*tests/drain/symprog.c:$l_node " "$W/$n.raw" && grep -q "build_list [^ ]*tests/drain/symprog.c:$l_list " "$W/$n.raw" &&
    ok "$n: file:line of the inline frame and of its call site ($l_node, $l_list)" || fail "$n: line numbers"
  pp -traces "$f" >"$W/$n.traces" 2>/dev/null
  grep -q 'make_node (inline)' "$W/$n.traces" && grep -q '^ *build_list$' "$W/$n.traces" &&
    ok "$n: -traces shows the inlined frame" || fail "$n: -traces"
  pp -top -sample_index=inuse_space "$f" >"$W/$n.top" 2>/dev/null
  grep -q 'big_buffers' "$W/$n.top" && grep -q 'make_node' "$W/$n.top" && ! grep -q ' churn$' "$W/$n.top" &&
    ok "$n: -top inuse_space lists the live sites only" || fail "$n: -top"
  "$here/check_truth.sh" "$W/$n.raw" "$W/$n.truth" 4096 1 >"$W/$n.check" &&
    ok "$n: $(tail -n1 "$W/$n.check")" || { fail "$n: truth"; cat "$W/$n.check"; }
}

"$T/symprog" "$W/pie.bin" "$W/pie.truth" 4096 || fail "symprog"
$D -q -o "$W/pie.pb.gz" --elf "$T/symprog" "$W/pie.bin" || fail "drain pie"
check_symbols pie "$W/pie.pb.gz"
pp -raw "$W/pie.pb.gz" 2>/dev/null | grep -A3 '^Mappings' | grep -q "$(readelf -n "$T/symprog" | sed -n 's/.*Build ID: //p')" &&
  ok "pie: the mapping carries the build-id" || fail "pie: mapping build-id"

"$T/symprog-nopie" "$W/bare.bin" "$W/bare.truth" 4096 --bare || fail "symprog-nopie"
$D -q -o "$W/bare.pb.gz" --elf "$T/symprog-nopie" "$W/bare.bin" || fail "drain bare"
check_symbols bare "$W/bare.pb.gz"

# Without --elf: raw addresses, which stay resolvable: for the bare (non-PIE) stream they are the
# ELF's own, already moved back into the call instruction, so addr2line names the call sites.
# (Symbolization by go 1.19's pprof itself via PPROF_BINARY_PATH could not be tested here: that
# pprof reads an empty build-id from these binaries and ignores them as mismatched.)
$D -q -o "$W/raw.pb.gz" "$W/bare.bin" || fail "drain raw"
pp -raw "$W/raw.pb.gz" >"$W/raw.raw" 2>/dev/null
grep -q 'make_node' "$W/raw.raw" && fail "raw profile already symbolized"
addrs=$(sed -n '/^Locations/,/^Mappings/p' "$W/raw.raw" | awk '$2 ~ /^0x/ { print $2 }')
addr2line -f -i -e "$T/symprog-nopie" $addrs >"$W/raw.a2l" 2>&1
for fn in make_node build_list churn big_buffers main; do
  grep -qx "$fn" "$W/raw.a2l" || fail "raw address of $fn not resolvable"
done
grep -qx make_node "$W/raw.a2l" && ok "raw profile: addresses resolve to the call sites"
finish
