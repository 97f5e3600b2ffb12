#!/usr/bin/env bash
# Usage: check_replay.sh RAW TRUTH ADJUST
# RAW is `go tool pprof -raw` output of a drain profile; TRUTH is gen's truth file, whose lines
#   "replay LEAF alloc_objects alloc_bytes inuse_objects inuse_bytes"   (LEAF: return address)
#   "replay full alloc_objects alloc_bytes inuse_objects inuse_bytes"   (the "stack table full" id)
# are the estimates a reader computes from the stream when it replays the device exactly: weights at
# allocation time, and each live entry's weight after the thinnings it survived (gen's simulated
# device knows them). Each of drain's four values must equal them to within rounding (1 per pprof
# sample behind the site, drain rounds each sample's sums); so must the totals over all samples,
# so nothing is counted outside the listed sites. A wrong replay (an entry kept that the device
# thinned, or a weight not scaled) is off by a whole weight, far beyond that.
set -u
raw=$1 truth=$2 adj=$3
awk -v adj="$adj" '
function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
  for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
  return v }
function near(name, what, est, want, n,   tol) {
  tol = n + 1e-9 * (want < 0 ? -want : want)
  if (est - want > tol || want - est > tol) { bad++; printf "  %s %s: drain %d, replay %.3f  OFF BY %.3f\n", name, what, est, want, est - want; return }
  return }
FNR == NR {
  if ($1 == "replay") { nr++; key[nr] = $2; leaf[nr] = ($2 == "full") ? -1 : hex($2)
    r[nr, "alloc_objects"] = $3; r[nr, "alloc_space"] = $4; r[nr, "inuse_objects"] = $5; r[nr, "inuse_space"] = $6
    for (c in cols) tot[c] += r[nr, c] }
  next }
BEGIN { cols["alloc_objects"]; cols["alloc_space"]; cols["inuse_objects"]; cols["inuse_space"] }
/^Samples:/ { insamples = 1; next }
insamples && !hdr { for (i = 1; i <= NF; i++) { t = $i; sub(/\/.*/, "", t); col[t] = i } hdr = 1; next }
/^Locations/ { insamples = 0; inloc = 1; next }
/^Mappings/ { inloc = 0 }
insamples && /:/ { split($0, parts, ":"); split(parts[1], v, " "); split(parts[2], l, " ")
  nsamp++; sleaf[nsamp] = l[1]; for (c in cols) val[nsamp, c] = v[col[c]]; next }
inloc && /^ *[0-9]+: 0x/ { sub(":", "", $1); addr[$1] = hex($2); full[$1] = index($0, "[stack table full]") > 0 }
END {
  if (!hdr) { print "check_replay: no samples in profile"; exit 1 }
  if (!nr) { print "check_replay: no replay lines in the truth file"; exit 1 }
  for (k = 1; k <= nr; k++) {
    matched = 0; split("", sum)
    for (j = 1; j <= nsamp; j++) {
      L = sleaf[j]
      if ((leaf[k] >= 0 && !full[L] && addr[L] == leaf[k] - adj) || (leaf[k] < 0 && full[L])) {
        matched++; for (c in cols) sum[c] += val[j, c] }
    }
    if (!matched) { bad++; printf "  %s: no sample in the profile\n", key[k]; continue }
    for (c in cols) near(key[k], c, sum[c], r[k, c], matched)
    printf "%s (%d samples): alloc %d/%.1f inuse %d/%.1f objects\n", key[k], matched,
      sum["alloc_objects"], r[k, "alloc_objects"], sum["inuse_objects"], r[k, "inuse_objects"]
  }
  split("", all)
  for (j = 1; j <= nsamp; j++) for (c in cols) all[c] += val[j, c]
  for (c in cols) near("total", c, all[c], tot[c], nsamp)
  if (bad) { printf "check_replay: %d value(s) differ from the exact replay\n", bad; exit 1 }
  print "check_replay: every estimate equals the exact replay"
}' "$truth" "$raw"
