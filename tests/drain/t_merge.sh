#!/usr/bin/env bash
# drain merge: profiles of two runs merge into one whose every sample type sums the inputs;
# merging a profile with itself doubles every value; go tool pprof reads the result; profiles
# with different sample types, and malformed profiles (no sample types, indexes out of range,
# value counts, unknown ids, bad protobuf or gzip, beyond the bounds) are refused with a clear
# error and nothing written.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
$GEN --allocs 30000 "$W/a.bin" "$W/a.truth"
$GEN --allocs 30000 --seed 5 "$W/b.bin" "$W/b.truth"
$D -q -o "$W/a.pb.gz" "$W/a.bin" && $D -q -o "$W/b.pb.gz" "$W/b.bin" || fail "drain"

total() { # PROFILE SAMPLE-INDEX: the total pprof prints for that sample type, in raw units
  pp -raw "$1" 2>/dev/null | awk -v want="$2" '
    /^Samples:/ { s = 1; next }
    s && !h { for (i = 1; i <= NF; i++) { t = $i; sub(/\/.*/, "", t); if (t == want) c = i }; h = 1; next }
    /^Locations/ { s = 0 }
    s && /:/ { split($0, p, ":"); split(p[1], v, " "); sum += v[c] }
    END { printf "%d\n", sum }'
}

$D merge "$W/ab.pb.gz" "$W/a.pb.gz" "$W/b.pb.gz" && ok "merge of two runs" || fail "merge exit $?"
for t in inuse_objects inuse_space alloc_objects alloc_space freed_objects freed_space; do
  a=$(total "$W/a.pb.gz" $t) b=$(total "$W/b.pb.gz" $t) ab=$(total "$W/ab.pb.gz" $t)
  [ "$ab" -eq $((a + b)) ] && [ "$ab" -gt 0 ] && ok "$t: $a + $b = $ab" || fail "$t: $a + $b != $ab"
done
$D merge "$W/aa.pb.gz" "$W/a.pb.gz" "$W/a.pb.gz" || fail "self merge"
n_a=$(pp -raw "$W/a.pb.gz" 2>/dev/null | sed -n '/^Samples:/,/^Locations/p' | grep -c ':')
n_aa=$(pp -raw "$W/aa.pb.gz" 2>/dev/null | sed -n '/^Samples:/,/^Locations/p' | grep -c ':')
[ "$n_a" -eq "$n_aa" ] && [ "$(total "$W/aa.pb.gz" alloc_space)" -eq $((2 * $(total "$W/a.pb.gz" alloc_space))) ] &&
  ok "self merge: same $n_a samples, doubled values" || fail "self merge: $n_a vs $n_aa samples"
pp -raw "$W/ab.pb.gz" 2>/dev/null | grep -q 'inuse_space/bytes\[dflt\]' && ok "merged default sample type" ||
  fail "merged default sample type"
pp -comments "$W/ab.pb.gz" 2>/dev/null | grep -q 'merged 2 profiles' && ok "merge comment" || fail "merge comment"
# A profile with other sample types (a hand-made one: go's own heap profile needs a Go program).
printf '\x0a\x04\x08\x01\x10\x02\x32\x00\x32\x01x\x32\x01y' | gzip >"$W/other.pb.gz"
pp -raw "$W/other.pb.gz" >/dev/null 2>&1 || fail "hand-made profile unreadable by pprof"
expect_fail "merge of different sample types" "sample types differ" $D merge "$W/x.pb.gz" "$W/a.pb.gz" "$W/other.pb.gz"
[ ! -e "$W/x.pb.gz" ] && ok "nothing written when refused" || fail "a profile was written"

# Malformed profiles (hand-made protobuf, gzip-compressed as pprof writes them): each is refused
# with a clear error naming the file, nothing is written, never a crash (drain under ASan+UBSan).
bad() { # NAME PATTERN BYTES (printf format)
  printf "$3" | gzip >"$W/bad-$1.pb.gz"
  rm -f "$W/out.pb.gz"
  expect_fail "malformed profile: $1" "$2" $D merge "$W/out.pb.gz" "$W/a.pb.gz" "$W/bad-$1.pb.gz"
  [ ! -e "$W/out.pb.gz" ] || fail "$1: a profile was written"
}
# (pprof writes these fields: 1 sample_type, 2 sample, 3 mapping, 4 location, 5 function, 6 string)
bad no-sample-types "no sample types" '\x12\x02\x10\x07\x32\x00'
bad string-index "string index 5 out of range" '\x0a\x04\x08\x05\x10\x01\x32\x00\x32\x01x'
bad string0 "string_table\[0\] must be empty" '\x0a\x04\x08\x01\x10\x01\x32\x01x'
bad value-count "sample has 1 values, profile has 2 sample types" \
  '\x0a\x04\x08\x01\x10\x02\x0a\x04\x08\x02\x10\x02\x12\x02\x10\x07\x32\x00\x32\x01x\x32\x01y'
bad location "unknown location 9" '\x0a\x04\x08\x01\x10\x02\x12\x05\x0a\x01\x09\x10\x07\x32\x00\x32\x01x\x32\x01y'
bad function "unknown function 4" \
  '\x0a\x04\x08\x01\x10\x02\x22\x06\x08\x01\x22\x02\x08\x04\x32\x00\x32\x01x\x32\x01y'
bad mapping "unknown mapping 3" '\x0a\x04\x08\x01\x10\x02\x22\x04\x08\x01\x10\x03\x32\x00\x32\x01x\x32\x01y'
bad duplicate-id "duplicate location id 1" \
  '\x0a\x04\x08\x01\x10\x02\x22\x02\x08\x01\x22\x02\x08\x01\x32\x00\x32\x01x\x32\x01y'
bad length "malformed protobuf" '\x0a\x7f\x08\x01'
bad wire-type "malformed" '\x0a\x04\x08\x01\x10\x02\x12\x02\x10\x07\x2b\x32\x00\x32\x01x\x32\x01y'
# 257 sample types: beyond the bound of 256.
many=$(for _ in $(seq 257); do printf '\\x0a\\x04\\x08\\x01\\x10\\x01'; done)
bad many-types "more than 256 sample types" "$many"'\x32\x00\x32\x01x'
# Not gzip, or gzip cut short, or empty: refused as well.
gzip -c "$W/a.pb.gz" | head -c 200 >"$W/cut.pb.gz"
expect_fail "truncated gzip" "truncated gzip data" $D merge "$W/out.pb.gz" "$W/cut.pb.gz"
: >"$W/empty.pb.gz"
expect_fail "empty file" "empty file" $D merge "$W/out.pb.gz" "$W/empty.pb.gz"
[ ! -e "$W/out.pb.gz" ] && ok "nothing written for bad inputs" || fail "a profile was written"
# An uncompressed profile merges with a compressed one; the result is valid for pprof.
gzip -dc "$W/a.pb.gz" >"$W/a.pb"
$D merge "$W/raw.pb.gz" "$W/a.pb" "$W/b.pb.gz" && [ "$(total "$W/raw.pb.gz" alloc_space)" -eq "$(total "$W/ab.pb.gz" alloc_space)" ] &&
  ok "raw and gzip inputs merge alike" || fail "raw input"
# The smallest valid profile (one sample type, one sample without location) merges and pprof
# reads the result.
printf '\x0a\x02\x08\x01\x12\x02\x10\x07\x32\x00\x32\x01n' | gzip >"$W/min.pb.gz"
$D merge "$W/min2.pb.gz" "$W/min.pb.gz" "$W/min.pb.gz" && pp -raw "$W/min2.pb.gz" >/dev/null 2>&1 &&
  ok "smallest profile merges, pprof reads it" || fail "smallest profile"
finish
