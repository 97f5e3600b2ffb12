#!/usr/bin/env bash
# Usage: MAKE=make tests/firstcontact/make_help.sh [MARKDOWN...]
# `make help` lists every target users and developers run:
#  - each test `make test-list` names falls under a pattern line of `make help` (test-unit-*, ...);
#  - each `make X` of the documentation (README.md, docs/*.md and the folders' README.md; inline
#    code and lines of code blocks) names a target that `make help` lists, or one that exists
#    (`make -n X` succeeds with the same VAR=value arguments); a placeholder (test-NAME,
#    test-ports-<config>) must match a name `make help` or `make test-list` gives.
set -u
make=${MAKE:-make}
cd "$(dirname "$0")/../.." || exit 2
if [ $# -eq 0 ]; then
  set -- README.md docs/*.md */README.md */*/README.md
fi
fail=0
bad() { echo "FAIL: $*"; fail=1; }

help=$($make -s --no-print-directory help) || { echo "FAIL: make help failed"; exit 1; }
tests=$($make -s --no-print-directory test-list) || { echo "FAIL: make test-list failed"; exit 1; }
[ -n "$tests" ] || { echo "FAIL: make test-list printed no test"; exit 1; }
# The names make help lists: the first word of each line indented by two spaces.
names=$(sed -n 's/^  \([^ ]\+\).*/\1/p' <<<"$help")
patterns=$(grep '\*' <<<"$names")
for want in demo run lib size hosted tools test check test-list bench fuzz soak check-robust clean deps help; do
  grep -qx -- "$want" <<<"$names" || bad "make help does not list '$want'"
done

# Every registered test is under a group line of make help.
ntests=0
while read -r t; do
  ntests=$((ntests + 1))
  hit=""
  while read -r p; do
    # shellcheck disable=SC2053  # $p is a glob
    [[ "test-$t" == $p ]] && { hit=$p; break; }
  done <<<"$(grep '^test-' <<<"$names")"
  [ -n "$hit" ] || bad "test '$t' falls under no test group of make help (HELP_TEST_GROUPS in the Makefile)"
done <<<"$tests"
for b in $($make -s --no-print-directory -f Makefile -f /dev/stdin print-benches <<<'print-benches: ; @echo $(BENCHES)'); do
  grep -qx -- "bench-$b" <<<"$names" || bad "make help does not list the benchmark bench-$b"
done

# The `make ...` commands of the documentation, one a line: FILE<TAB>COMMAND.
commands() {
  for f in "$@"; do
    [ -f "$f" ] || continue
    grep -o '`make [^`]*`' "$f" | tr -d '`' | sed "s|^|$f\t|"
    awk -v f="$f" '/^ *```/ { code = !code; next } code && /^ *(\$ )?make( |$)/ { sub(/^ *(\$ )?/, ""); print f "\t" $0 }' "$f"
  done
}
checked=0
while IFS=$'\t' read -r file cmd; do
  cmd=${cmd%%#*}
  # Split at &&, ; and |, keep the parts that run make.
  while read -r part; do
    set -f
    # shellcheck disable=SC2086  # words of a command line
    set -- $part
    set +f
    [ "${1:-}" = make ] || continue
    shift
    vars=(); targets=()
    for w in "$@"; do
      case "$w" in
        -*) ;;
        *=*) [[ "$w" == *[\<\>]* ]] || vars+=("$w") ;;
        *) targets+=("$w") ;;
      esac
    done
    for t in "${targets[@]}"; do
      checked=$((checked + 1))
      if [[ "$t" == *"<"*">"* || "$t" =~ (^|-)[A-Z]+($|-) ]]; then
        glob=$(sed -E 's/<[^>]*>/*/g; s/(^|-)[A-Z]+($|-)/\1*\2/g' <<<"$t")
        ok=""
        while read -r n; do
          # shellcheck disable=SC2053  # $glob is a glob
          [[ "$n" == $glob ]] && { ok=1; break; }
        done <<<"$names"$'\n'"$(sed 's/^/test-/' <<<"$tests")"
        [ -n "$ok" ] || bad "$file: \`make $t\` matches no target of make help or make test-list"
      elif grep -qx -- "$t" <<<"$names"; then
        :
      elif [[ "$t" == test-* ]] && grep -qx -- "${t#test-}" <<<"$tests"; then
        :
      elif $make -n -s --no-print-directory "${vars[@]}" "$t" >/dev/null 2>&1; then
        :
      else
        bad "$file: \`make ${vars[*]:+${vars[*]} }$t\` names no target (not in make help, and make -n fails)"
      fi
    done
  done < <(sed 's/&&/\n/g; s/;/\n/g; s/|/\n/g' <<<"$cmd")
done < <(commands "$@")
[ "$checked" -gt 0 ] || bad "found no \`make X\` in $*"
echo "$ntests tests under $(wc -l <<<"$patterns") patterns; $checked make targets named in the documentation"
[ $fail = 0 ] && echo "PASS: make help lists every target the documentation names and every test group"
exit $fail
