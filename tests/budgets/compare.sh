#!/usr/bin/env bash
# Usage: tests/budgets/compare.sh TABLE MEASURED [PREFIX...]
# Judges MEASURED ("measure<TAB>value" lines) against TABLE (tests/budgets/budgets.tsv: measure,
# budget, unit, headroom, how; '#' lines and blank lines are comments), for the measures whose name
# starts with one of PREFIX (all when none is given). Prints one line per measure:
#   ok MEASURE X <= BUDGET
#   budget exceeded: MEASURE = X > BUDGET (unit)
#   budget not measured: MEASURE (unit)              a budget whose measure was not taken
#   no budget: MEASURE = X (add it to TABLE)         a measure the table does not hold
# and exits 1 if any line but "ok" was printed.
set -u
table=${1:?table}; measured=${2:?measured}
shift 2
awk -F'\t' -v prefixes="$*" '
  function wanted(m,   i, n, p) {
    if (prefixes == "") return 1
    n = split(prefixes, p, " ")
    for (i = 1; i <= n; i++) if (index(m, p[i]) == 1) return 1
    return 0
  }
  FNR == NR {
    if ($0 ~ /^#/ || $0 ~ /^[ \t]*$/) next
    if (NF < 5 || $2 !~ /^[0-9]+(\.[0-9]+)?$/) { printf "bad line %d of the table: %s\n", FNR, $0; bad++; next }
    if ($1 in budget) { printf "measure %s twice in the table (line %d)\n", $1, FNR; bad++; next }
    budget[$1] = $2; unit[$1] = $3; order[++n] = $1
    next
  }
  $0 !~ /^[ \t]*$/ {
    if ($2 !~ /^[0-9]+(\.[0-9]+)?$/) { printf "budget not measured: %s (not a number: \"%s\")\n", $1, $2; bad++; next }
    value[$1] = $2
    if (!($1 in budget) && wanted($1)) { printf "no budget: %s = %s (add it to the table)\n", $1, $2; bad++ }
  }
  END {
    for (i = 1; i <= n; i++) {
      m = order[i]
      if (!wanted(m)) continue
      if (!(m in value)) { printf "budget not measured: %s (%s)\n", m, unit[m]; bad++; continue }
      if (value[m] + 0 > budget[m] + 0) { printf "budget exceeded: %s = %s > %s (%s)\n", m, value[m], budget[m], unit[m]; bad++ }
      else printf "ok %s %s <= %s\n", m, value[m], budget[m]
    }
    exit bad > 0
  }' "$table" "$measured"
