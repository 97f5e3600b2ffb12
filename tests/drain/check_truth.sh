#!/usr/bin/env bash
# Usage: check_truth.sh RAW TRUTH INTERVAL ADJUST [K]
# RAW is `go tool pprof -raw` output of a drain profile. TRUTH lines are
#   "site ID LEAF alloc_objects alloc_bytes inuse_objects inuse_bytes"      (LEAF: return address)
#   "site NAME - alloc_objects alloc_bytes inuse_objects inuse_bytes"       (NAME: leaf function)
# exact, unsampled counts. A site's estimate is the sum over samples whose leaf location is at
# LEAF - ADJUST, or whose leaf location's innermost function is NAME. Each value must be within
# K * sigma + 2 + w of the truth, sigma = v * sqrt((1 - p) / (n * p)), p = 1 - exp(-size / INTERVAL),
# n the true count: the standard deviation of the unbiased Poisson-sampling estimate (K defaults to
# 4.5); w = 1/p objects (size/p bytes), one sample's weight, covers the discreteness of sites with
# few expected samples, where the normal approximation fails. In-use estimates may also fall short by the device's live_full drops (samples the device
# could not track as live, reported in the profile's comments), each worth 1/p objects.
set -u
raw=$1 truth=$2 interval=$3 adj=$4 k=${5:-4.5}
awk -v interval="$interval" -v adj="$adj" -v k="$k" '
function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
  for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
  return v }
function check(name, est, tru, n, p, slack, size,   sig, bound) {
  sig = (n > 0 && p < 1) ? tru * sqrt((1 - p) / (n * p)) : 0
  bound = k * sig + 2 + (p < 1 ? size / p : 0)
  if (est - tru > bound || tru - est > bound + slack) { bad++; printf "  %s: estimate %d, truth %d, bound +-%.0f (slack %.0f)  OUT OF BOUND\n", name, est, tru, bound, slack }
  return sprintf("%s %d/%d", name, est, tru) }
FNR == NR { if ($1 == "site") { ns++; id[ns] = $2; leaf[ns] = ($3 == "-") ? -1 : hex($3); an[ns] = $4; ab[ns] = $5; in_[ns] = $6; ib[ns] = $7 } next }
/^Comment: device drops:/ { for (i = 1; i <= NF; i++) if ($i ~ /^live_full=/) { sub(/live_full=/, "", $i); live_full = $i } }
/^Samples:/ { insamples = 1; next }
insamples && !hdr { for (i = 1; i <= NF; i++) { t = $i; sub(/\/.*/, "", t); col[t] = i } hdr = 1; next }
/^Locations/ { insamples = 0; inloc = 1; next }
/^Mappings/ { inloc = 0 }
insamples && /:/ { split($0, parts, ":"); split(parts[1], v, " "); split(parts[2], l, " ")
  nsamp++; sleaf[nsamp] = l[1]; for (c in col) val[nsamp, c] = v[col[c]]; next }
inloc && /^ *[0-9]+: 0x/ { sub(":", "", $1); addr[$1] = hex($2); fn[$1] = ($4 ~ /^s=/) ? "" : $4 }
END {
  if (!hdr) { print "check_truth: no samples in profile"; exit 1 }
  for (s = 1; s <= ns; s++) {
    matched = 0; split("", sum)
    for (j = 1; j <= nsamp; j++) {
      L = sleaf[j]
      if ((leaf[s] >= 0 && addr[L] == leaf[s] - adj) || (leaf[s] < 0 && fn[L] == id[s])) {
        matched++; for (c in col) sum[c] += val[j, c] }
    }
    size = ab[s] / an[s]
    p = (interval <= 1) ? 1 : 1 - exp(-size / interval)
    if (!matched) { if (an[s] * p > 5) { bad++; printf "site %s: no sample found\n", id[s] }; continue }
    slack_n = live_full / p; slack_b = slack_n * size
    line = sprintf("site %s (%d samples):", id[s], matched)
    line = line " " check("alloc_space", sum["alloc_space"], ab[s], an[s], p, 0, size)
    line = line " " check("alloc_objects", sum["alloc_objects"], an[s], an[s], p, 0, 1)
    line = line " " check("inuse_space", sum["inuse_space"], ib[s], in_[s], p, slack_b, size)
    line = line " " check("inuse_objects", sum["inuse_objects"], in_[s], in_[s], p, slack_n, 1)
    print line
  }
  if (bad) { printf "check_truth: %d value(s) outside the statistical bound\n", bad; exit 1 }
  print "check_truth: all estimates within bounds"
}' "$truth" "$raw"
