#!/usr/bin/env bash
# drain-failures: allocation failures end to end. A hosted program (fail_app, linked through
# pkg-config) fails 11 allocations at four sites (compiled with -fno-optimize-sibling-calls: a tail call leaves no frame) at the default interval: every failure is
# reported (not sampled) and drain's --top report lists them by site with exact counts, sizes and
# symbolized stacks; the profile's comments and the status line say so. Then the fake-port stream
# of unit-fail (NULL returns, giant-guard refusals, walks without a frame): drain's report counts
# both kinds and says once, in plain words, why the stacks were empty.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
app=$T/fail_app
MSAMP_OUTPUT=$W/f.bin "$app" || fail "fail_app exit $?"
[ -s "$W/f.bin" ] || { fail "no stream recorded"; finish; }
host_tools/msamp-dump "$W/f.bin" >"$W/f.dump" || fail "msamp-dump exit $?"
n=$(grep -c '^FAIL kind=0 ' "$W/f.dump")
[ "$n" = 11 ] && ok "11 FAIL records of kind 0 in the stream" || fail "FAIL records: $n, want 11"
grep -q "^FAIL kind=0 size=$(( 1 << 62 )) .* count=11$" "$W/f.dump" && ok "the last one counts 11" ||
  fail "FAIL count field"
grep -q '^FAIL kind=0 size=18446744073709551615 ' "$W/f.dump" && ok "calloc overflow as SIZE_MAX" ||
  fail "calloc overflow size"

$D -o "$W/f.pb.gz" --elf "$app" --top 10 "$W/f.bin" >"$W/f.top" 2>"$W/f.err" ||
  { fail "drain exit $?"; cat "$W/f.err"; }
grep -q '^allocation failures: 11 (the allocator returned NULL), 0 refused by the giant guard:' "$W/f.top" &&
  ok "--top: the failure totals" || { fail "--top failure totals"; cat "$W/f.top"; }
# count, bytes asked, largest, kind, site
want() { # COUNT BYTES MAX FUNC
  grep -Eq "^ +$1 +$2 +$3  null +$4 [^ ]*fail_app.c:[0-9]+ < main:" "$W/f.top" &&
    ok "--top: $4 failed $1 times" || fail "--top lacks '$1 $2 $3 null $4 ... < main'"
}
want 5 18446744073709551615 $(( 1 << 62 )) grab_huge  # 5 x 2^62 saturates
want 3 18446744073709551615 18446744073709551615 grab_table
want 2 9223372036854775808 $(( 1 << 62 )) grow_log
want 1 $(( 1 << 62 )) $(( 1 << 62 )) grab_aligned
grep -q 'session 1: 11 allocation failures' "$W/f.err" && ok "the status line says so" ||
  { fail "status line"; cat "$W/f.err"; }
pp -comments "$W/f.pb.gz" 2>/dev/null | grep -q 'allocation failures: null=11 giant_refused=0' &&
  ok "profile comment" || fail "profile comment"
! grep -q 'found no frame' "$W/f.err" && ok "no frameless-walk warning for a program with frames" ||
  fail "a warning about frames where there are frames"

"$T/../unit/test_fail" "$W/u.bin" >"$W/u.log" 2>&1 || { fail "test_fail exit $?"; cat "$W/u.log"; }
$D -o "$W/u.pb.gz" --top 10 "$W/u.bin" >"$W/u.top" 2>"$W/u.err" || { fail "drain (unit stream) exit $?"; cat "$W/u.err"; }
grep -q '^allocation failures: 5 (the allocator returned NULL), 4 refused by the giant guard:' "$W/u.top" &&
  ok "unit stream: both kinds counted" || { fail "unit stream totals"; cat "$W/u.top"; }
grep -Eq '^ +2 +4194304 +3145728  giant ' "$W/u.top" && ok "unit stream: a giant site" ||
  { fail "unit stream giant site"; cat "$W/u.top"; }
n=$(grep -c 'found no frame at all' "$W/u.err")
[ "$n" = 1 ] && ok "the frameless walks explained once: $(grep -o 'needs: .*' "$W/u.err" | cut -c1-60)..." ||
  { fail "frameless-walk warning said $n times"; cat "$W/u.err"; }
finish
