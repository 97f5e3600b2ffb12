#!/usr/bin/env bash
# Usage: tests/decoder/vectors_decode.sh MSAMP_DUMP...
# Decodes every tests/vectors/*.bin with each msamp-dump given and compares the listing with the
# vector's .txt; comment lines ('#') are ignored on both sides. Fails when there are no vectors.
set -u
shopt -s nullglob
vectors=(tests/vectors/*.bin)
if [ ${#vectors[@]} -eq 0 ]; then
  echo "vectors-decode: no tests/vectors/*.bin" >&2
  exit 1
fi
out=${BUILD:-build}/vectors-decode
mkdir -p "$out"
fail=0; n=0
for bin in "${vectors[@]}"; do
  name=$(basename "$bin" .bin)
  txt=tests/vectors/$name.txt
  if [ ! -f "$txt" ]; then
    echo "FAIL $name: no $txt" >&2; fail=$((fail + 1)); continue
  fi
  grep -v '^#' "$txt" >"$out/$name.want"
  for dump in "$@"; do
    n=$((n + 1))
    if ! "$dump" "$bin" >"$out/$name.out" 2>"$out/$name.err"; then
      echo "FAIL $name ($dump): exit status $?" >&2; cat "$out/$name.err" >&2
      fail=$((fail + 1)); continue
    fi
    grep -v '^#' "$out/$name.out" >"$out/$name.got"
    if ! diff -u "$out/$name.want" "$out/$name.got" >"$out/$name.diff"; then
      echo "FAIL $name ($dump): listing differs from $txt" >&2; head -n 40 "$out/$name.diff" >&2
      fail=$((fail + 1)); continue
    fi
  done
done
echo "vectors-decode: ${#vectors[@]} vectors, $n decodes, $fail failed"
[ $fail -eq 0 ]
