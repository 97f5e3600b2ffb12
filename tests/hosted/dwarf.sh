#!/usr/bin/env bash
# Usage: tests/hosted/dwarf.sh DWARF_APP CTOR_LIBRARY DRAIN WORKDIR
# Stacks through code without frame pointers (dwarf_app.cpp: a -fomit-frame-pointer shared
# library, glibc's qsort, libstdc++'s ostream, std::string, a dlopen()ed constructor, a signal
# handler), every allocation sampled. With the default walk (DWARF call frame information) the
# program must finish (a deadlock hits the timeout) and every site drain --json lists must reach
# main, each kind of site present, the library's five frames below its caller; with MSAMP_UNWIND=fp
# (frame chains) the library's site must not reach main, which is what the DWARF walk adds.
set -eu
app=$1 ctor=$2 drain=$3 dir=$4
mkdir -p "$dir"
rm -f "$dir"/*
run() { # MODE: the stream, drain's JSON and the sites, one line each: samples, then the stack
  local mode=$1
  MSAMP_UNWIND=$mode MSAMP_INTERVAL=1 MSAMP_OUTPUT="$dir/$mode.bin" timeout 120 "$app" 20000 "$ctor" |
    tee "$dir/$mode.out" || { echo "FAIL: MSAMP_UNWIND=$mode: exit $? (124: deadlock)"; exit 1; }
  "$drain" "$dir/$mode.bin" --elf "$app" --json "$dir/$mode.json" -o "$dir/$mode.pb.gz" -q >/dev/null
  python3 - "$dir/$mode.json" >"$dir/$mode.sites" <<'PY'
import json, sys
for s in json.load(open(sys.argv[1]))["sessions"]:
    for site in s["sites"]:
        print(site["samples"], "\t".join(site["stack"]), sep="\t")
PY
}
# Fails unless some site of the file has FRAME as a whole entry of its stack.
has() { awk -F'\t' -v f="$2" '{ for (i = 2; i <= NF; i++) if ($i == f) { n++; next } } END { exit !n }' "$1" ||
  { echo "FAIL: $1: no site through $2"; exit 1; }; }

run dwarf
sites=$dir/dwarf.sites
awk -F'\t' '{ m = 0; for (i = 2; i <= NF; i++) if ($i == "main") m = 1; if (!m) { print "FAIL: a site that does not reach main:", $0; bad = 1 } }
  END { exit bad }' "$sites"
for f in through_so through_qsort cmp through_ostream 'allocbuf::xsputn(char const*, long)' make_string \
  dwarf_ctor_alloc through_dlopen on_prof; do
  has "$sites" "$f"
done
# malloc called by the library's innermost frame: its 5 frames, then through_so.
awk -F'\t' '{ for (i = 2; i <= NF; i++) if ($i == "through_so" && $2 != "on_prof") print i - 2 }' "$sites" |
  sort -u | grep -qx 5 || { echo "FAIL: the library's site has not its 5 frames below through_so"; exit 1; }
n=$(wc -l <"$sites")
s=$(awk -F'\t' '{ s += $1 } END { print s }' "$sites")
echo "dwarf: $n sites, $s samples, every one reaching main"

run fp
awk -F'\t' '{ t = 0; m = 0; for (i = 2; i <= NF; i++) { if ($i == "through_so") t = 1; if ($i == "main") m = 1 }
  if ($2 ~ /^(0x|nofp_so_chain|\[libdwarf_lib)/ && !t && !m) n++ } END { exit !n }' "$dir/fp.sites" ||
  { echo "FAIL: MSAMP_UNWIND=fp walked through the library without frame pointers: the test shows nothing"; exit 1; }
echo "fp: the library's site ends at its first frame, as expected of frame chains"
