#!/usr/bin/env bash
# Usage: tests/docs/hosted.sh   (test docs-hosted; from the checkout's root, BUILD set)
# The hosted examples as written: README.md's "In a hosted Linux program" block and
# docs/HOSTED.md's "Build and link" block, each run line by line (bash) in a fresh user's
# checkout (tests/docs/lib.sh: links to this checkout, build -> $BUILD, so make hosted reuses what
# make test built) that holds one more file, tests/docs/app.c. Every line must exit 0; then:
#   README: the profile holds app.c's three sites with file:line, whole stacks (site < caller <
#   main: the frame pointers of the compile step), the --top report and go tool pprof -top's table;
#   HOSTED.md: the stream file %p named exists, and msamp-dump | head lists its first frame.
. "$(dirname "$0")/lib.sh"

co=$W/readme
checkout "$co"
cp "$here/app.c" "$co/"
run_lines README.md "$co"
[ -s "$co/app.msamp" ] && ok "README: the stream app.msamp ($(stat -c %s "$co/app.msamp") bytes)" || fail "README: no app.msamp"
if [ -s "$co/app.pb.gz" ]; then
  pp -raw "$co/app.pb.gz" >"$W/raw.txt" 2>&1
  for f in load_records scratch_copy grow_index; do
    grep -qE "M=1 $f [^ ]*app.c:[0-9]+ " "$W/raw.txt" && ok "README: $f symbolized: $(grep -oE "$f [^ ]*app.c:[0-9]+" "$W/raw.txt" | head -n1)" ||
      fail "README: no symbolized location of $f"
  done
  pp -traces "$co/app.pb.gz" >"$W/traces.txt" 2>&1
  # One trace per stack: the frames joined innermost first.
  awk '/^-----------/ { if (s != "") print s; s = ""; next } /bytes:/ { next } NF { s = s " " $NF } END { if (s != "") print s }' \
    "$W/traces.txt" >"$W/stacks.txt"
  for st in "load_records load_config main" "scratch_copy handle_request main" "grow_index build_index main"; do
    grep -q " $st" "$W/stacks.txt" && ok "README: whole stack $st (-traces)" || fail "README: no stack '$st' in -traces (frame pointers?)"
  done
else
  fail "README: no profile app.pb.gz"
fi
top=$(line_out '^host_tools/drain ')
grep -q 'in-use bytes (live at the end' "$top" && grep -q load_records "$top" && ok "README: drain --top lists load_records among the sites live at the end" ||
  { fail "README: drain --top report"; show "$top"; }
top=$(line_out '^go tool pprof -top')
grep -qE '^ +flat +flat%' "$top" && grep -q load_records "$top" && ok "README: go tool pprof -top shows load_records" ||
  { fail "README: go tool pprof -top output"; show "$top"; }

co=$W/hosted
checkout "$co"
cp "$here/app.c" "$co/"
run_lines docs/HOSTED.md "$co"
set -- "$co"/heap.*.bin
[ $# = 1 ] && [ -s "$1" ] && [[ "$(basename "$1")" =~ ^heap\.[0-9]+\.bin$ ]] && ok "HOSTED.md: the stream $(basename "$1") (%p: the pid)" ||
  fail "HOSTED.md: no single heap.PID.bin: $*"
dump=$(line_out 'msamp-dump')
head -n2 "$dump" | tr '\n' ' ' | grep -qE '^frame seq=[0-9]+ SESSION version=' && ok "HOSTED.md: msamp-dump | head: $(sed -n 2p "$dump" | cut -c1-60)..." ||
  { fail "HOSTED.md: msamp-dump output"; show "$dump"; }
finish
