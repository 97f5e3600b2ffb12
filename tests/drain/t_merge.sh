#!/usr/bin/env bash
# drain merge: profiles of two runs merge into one whose every sample type sums the inputs;
# merging a profile with itself doubles every value; go tool pprof reads the result; profiles
# with different sample types are refused.
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
finish
