#!/usr/bin/env bash
# Usage: tests/analysis/pprof_sum.sh PROFILE [go tool pprof options: -tagfocus=...]
# Sums the samples `go tool pprof -raw` keeps (after the options' filters) by the function of their
# leaf location, one line per function and sample type: "FUNC TYPE VALUE", and "TOTAL TYPE VALUE"
# over every sample. Functions are the innermost of the leaf's lines; "?" for an unsymbolized leaf.
set -u
prof=$1
shift
"$(dirname "$0")/../drain/gopprof.sh" -raw "$@" "$prof" 2>/dev/null | awk '
  /^Samples:/ { ins = 1; next }
  ins && !hdr { for (i = 1; i <= NF; i++) { t = $i; sub(/\/.*/, "", t); col[i] = t; nt = NF } hdr = 1; next }
  /^Locations/ { ins = 0; inl = 1; next }
  /^Mappings/ { inl = 0 }
  ins && $1 ~ /^-?[0-9]+$/ && /:/ { split($0, parts, ":"); split(parts[1], v, " "); split(parts[2], l, " ")
               n++; leaf[n] = l[1]; for (i = 1; i <= nt; i++) val[n, i] = v[i] }
  inl && $1 ~ /^[0-9]+:$/ { id = $1; sub(/:$/, "", id); fn[id] = ($4 != "" && $4 !~ /^s=/) ? $4 : "?" }
  END {
    for (k = 1; k <= n; k++) {
      f = (leaf[k] in fn) ? fn[leaf[k]] : "?"
      for (i = 1; i <= nt; i++) { sum[f " " col[i]] += val[k, i]; tot[col[i]] += val[k, i] }
    }
    for (key in sum) print key, sum[key]
    for (i = 1; i <= nt; i++) print "TOTAL", col[i], tot[col[i]] + 0
  }' | sort
