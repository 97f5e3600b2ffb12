#!/usr/bin/env bash
# The hosted end-to-end: hosted_app linked against build/hosted/libmsamp.a records a real stream
# (MSAMP_OUTPUT, MSAMP_INTERVAL, MSAMP_SEED); drain symbolizes it with --elf; go tool pprof reads
# it: -raw, -top -sample_index=inuse_space and -traces succeed and show the functions, file:line
# and the inlined inline_node as a frame of its own; estimates match the program's truth,
# including blocks moved by realloc (REALLOC records).
. "$(dirname "$0")/lib.sh"
D=$DRAIN_REL
app=$T/hosted_app
R=4096
MSAMP_OUTPUT=$W/h.bin MSAMP_INTERVAL=$R MSAMP_SEED=12345 "$app" "$W/h.truth" || fail "hosted_app exit $?"
[ -s "$W/h.bin" ] || { fail "no stream recorded"; finish; }
$D -o "$W/h.pb.gz" --elf "$app" --top 5 "$W/h.bin" >"$W/h.top" 2>"$W/h.err" || { fail "drain exit $?"; cat "$W/h.err"; }
grep -q 'wrote' "$W/h.err" && ok "drain: $(cat "$W/h.err")"

pp -raw "$W/h.pb.gz" >"$W/h.raw" 2>"$W/h.rawerr" && ok "pprof -raw" || fail "pprof -raw"
for fn in 'inline_node [^ ]*tests/drain/hosted_app.c:' 'make_list [^ ]*tests/drain/hosted_app.c:' \
  'churn_buffers [^ ]*tests/drain/hosted_app.c:' 'load_table [^ ]*tests/drain/hosted_app.c:' \
  'grow_buffers [^ ]*tests/drain/hosted_app.c:' 'start_buffer [^ ]*tests/drain/hosted_app.c:' \
  'main [^ ]*tests/drain/hosted_app.c:'; do
  grep -q "$fn" "$W/h.raw" && ok "-raw shows $fn" || fail "-raw lacks '$fn'"
done
l_inl=$(grep -n 'void \*p = malloc(n);' "$here/hosted_app.c" | cut -d: -f1)
grep -q "inline_node [^ ]*tests/drain/hosted_app.c:$l_inl " "$W/h.raw" && ok "inline frame at its malloc line $l_inl" ||
  fail "inline_node line"
grep -A1 ' inline_node [^ ]*tests/drain/hosted_app.c:' "$W/h.raw" | tail -n1 | grep -q '^ *make_list ' &&
  ok "inline_node and make_list share one location" || fail "inline chain"

pp -top -sample_index=inuse_space "$W/h.pb.gz" >"$W/h.top2" 2>/dev/null && ok "pprof -top -sample_index=inuse_space" ||
  fail "pprof -top"
grep -q 'load_table' "$W/h.top2" && grep -q 'inline_node' "$W/h.top2" && grep -q 'start_buffer' "$W/h.top2" &&
  ! grep -q 'churn_buffers' "$W/h.top2" &&
  ok "-top in use: load_table, inline_node, start_buffer (a realloc chain's first site), not the freed ones" ||
  { fail "-top content"; cat "$W/h.top2"; }
pp -top -sample_index=alloc_space "$W/h.pb.gz" 2>/dev/null | grep -q 'churn_buffers' &&
  ok "-top alloc_space shows churn_buffers" || fail "-top alloc_space"

pp -traces "$W/h.pb.gz" >"$W/h.traces" 2>/dev/null && ok "pprof -traces" || fail "pprof -traces"
grep -q 'inline_node (inline)' "$W/h.traces" && grep -q '^ *make_list$' "$W/h.traces" &&
  ok "-traces: inline_node (inline) above make_list" || fail "-traces inline frames"

"$here/check_truth.sh" "$W/h.raw" "$W/h.truth" $R 1 >"$W/h.check" && ok "$(tail -n1 "$W/h.check")" ||
  { fail "estimates vs truth"; cat "$W/h.check"; }
cat "$W/h.check"
grep -q 'in-use bytes (live at the end' "$W/h.top" && grep -q 'load_table' "$W/h.top" && ok "--top report" || fail "--top report"
finish
