#!/usr/bin/env bash
# Usage: tests/docs/layout.sh README.md   (test docs-layout)
# The README's Layout block is a map of the checkout: each entry of its first column must exist;
# each path it names (a word with a '/', without <...>) must exist, from the checkout's root or
# from the entry's folder; and the tests/ entry must name every folder of tests/ (a user looking
# for a test's folder finds it there).
. "$(dirname "$0")/lib.sh"
readme=$1
block "$readme" >"$W/layout.txt" || { fail "no block"; finish; }
entry=
while IFS= read -r line; do
  case "$line" in
    " "* | "") ;;
    *)
      entry=${line%% *}
      [ -e "$entry" ] && ok "$entry exists" || fail "$entry, an entry of the layout, does not exist"
      ;;
  esac
  for p in $(grep -oE '[A-Za-z0-9_.*-]*/[A-Za-z0-9_./<>-]*' <<<"${line#"$entry"}" | grep -v '[<>*]' | sed 's/[.,;:]$//'); do
    if [ -e "$p" ] || [ -e "$entry$p" ]; then
      ok "$entry: $p exists"
    else
      fail "$entry: $p, named by the layout, does not exist (from the root or $entry)"
    fi
  done
  [ "$entry" = tests/ ] && printf '%s\n' "$line" >>"$W/tests-entry.txt"
done <"$W/layout.txt"
[ -s "$W/tests-entry.txt" ] || fail "the layout has no tests/ entry"
# The folders of tests/ in the checkout (git's files when it is a git checkout: not a folder only
# being written in a working tree).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  dirs=$(git ls-files tests | awk -F/ 'NF > 2 { print $2 }' | sort -u)
else
  dirs=$(cd tests && ls -d */ | tr -d /)
fi
for d in $dirs; do
  grep -qw -- "$d" "$W/tests-entry.txt" && ok "tests/$d is named by the tests/ entry" ||
    fail "tests/$d is not named by the layout's tests/ entry"
done
finish
