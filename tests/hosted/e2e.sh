#!/usr/bin/env bash
# Usage: [RUNNER=...] tests/hosted/e2e.sh APP CHECK WORKDIR
# Runs the known-sites program (tests/hosted/e2e_app.c) with MSAMP_OUTPUT and checks the decoded
# stream with msamp_check: each site's stacks name the site and its caller, and its estimated
# allocated and in-use objects and bytes are within 4.5 standard deviations of the truth (a false
# alarm has probability below 1e-5 per check). Seeds are fixed, so a run repeats exactly.
# RUNNER (environment) runs a foreign-architecture binary, e.g. qemu-aarch64.
set -eu
app=$1 check=$2 dir=$3

mkdir -p "$dir"
# NAME SEED INTERVAL FLUSH ("-": the default)
for spec in "r64k-seed1 1 65536 -" "r64k-seed2 2 65536 -" "default-seed3 3 - -" \
    "r64k-inline-seed4 4 65536 inline"; do
  set -- $spec
  name=$1 seed=$2 interval=${3#-} flush=${4#-}
  rm -f "$dir/$name".*.bin
  env MSAMP_OUTPUT="$dir/$name.%p.bin" MSAMP_SEED="$seed" ${interval:+MSAMP_INTERVAL=$interval} \
    ${flush:+MSAMP_FLUSH=$flush} ${RUNNER:-} "$app" "$dir/$name.truth"
  stream=$(ls "$dir/$name".*.bin)
  echo "== $name: $(basename "$stream") (interval ${interval:-default}, flush ${flush:-thread})"
  "$check" sites --elf "$app" --truth "$dir/$name.truth" "$stream" > "$dir/$name.out" ||
    { cat "$dir/$name.out"; exit 1; }
  grep -E '^(stream|drops|samples outside|PASS)' "$dir/$name.out"
done
