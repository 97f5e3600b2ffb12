#!/usr/bin/env bash
# Builds the fuzzers' seed corpora from real streams and profiles, at build time (nothing large is
# committed): usage: tests/fuzz/seeds.sh T FUZZDIR, T holding drain's test helpers (gen,
# drain-asan) and unframe. Writes FUZZDIR/model-seed (streams of tests/drain/gen.c in several
# shapes and tests/vectors, raw with a 0x00 first, and their records unframed) and
# FUZZDIR/merge-seed (drain's profiles of those streams, gzip and raw, and small hand-made ones).
set -eu
T=$1
F=$2
rm -rf "$F/model-seed" "$F/merge-seed" "$F/seed-work"
mkdir -p "$F/model-seed" "$F/merge-seed" "$F/seed-work"
w=$F/seed-work
i=0
add_stream() { # STREAM: a raw seed (0x00 first) and a record seed
  i=$((i + 1))
  { printf '\0'; cat "$1"; } >"$F/model-seed/raw$i"
  "$T/unframe" "$1" "$F/model-seed/rec$i"
}
while read -r opts; do
  # shellcheck disable=SC2086
  "$T/gen" --allocs 400 --snap-every 150 $opts "$w/s.bin" "$w/s.truth"
  add_stream "$w/s.bin"
  "$T/drain-asan" -q -o "$w/p.pb.gz" "$w/s.bin"
  cp "$w/p.pb.gz" "$F/merge-seed/prof$i.pb.gz"
  gzip -dc "$w/p.pb.gz" >"$F/merge-seed/prof$i.pb"
done <<'OPTS'
--interval 256
--interval 256 --adapt 64
--interval 64 --stack-cap 8 --adapt 32 --coded
--interval 256 --sessions 2 --allocs 200
--interval 1 --allocs 100
--interval 128 --unknown-stacks --lose-free-every 5
--interval 128 --interval-change 1024 --odd-sizes
--interval 64 --adapt 48 --release-leaks
OPTS
for v in tests/vectors/*.bin; do add_stream "$v"; done
# Hand-made profiles: two sample types and three strings; a profile with a location, a function
# and a mapping; the smallest valid profile (one sample type, one sample without location).
printf '\x0a\x04\x08\x01\x10\x02\x32\x00\x32\x01x\x32\x01y' >"$F/merge-seed/small.pb"
printf '\x0a\x04\x08\x01\x10\x02\x12\x05\x0a\x01\x01\x10\x05\x1a\x06\x08\x01\x18\x10\x30\x01\x22\x08\x08\x01\x10\x01\x22\x02\x08\x01\x2a\x04\x08\x01\x10\x01\x32\x00\x32\x01f\x32\x01b' >"$F/merge-seed/loc.pb"
printf '\x0a\x02\x08\x01\x12\x02\x10\x07\x32\x00\x32\x01n' >"$F/merge-seed/min.pb"
printf 'Z\x0a\x02\x08\x01\x12\x02\x10\x07\x32\x00\x32\x01n' >"$F/merge-seed/zmin"
rm -rf "$w"
echo "seeds: $(ls "$F/model-seed" | wc -l) model, $(ls "$F/merge-seed" | wc -l) merge"
