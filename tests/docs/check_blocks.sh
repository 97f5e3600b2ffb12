#!/usr/bin/env bash
# Usage: tests/docs/check_blocks.sh TEST...   (TEST...: every test `make test` runs, $(TESTS))
# Every fenced code block of every markdown file a user reads (README.md, docs/, boards/, port/*/,
# tests/*/ ... : each *.md of the checkout outside build and output folders) must carry, on the
# line just above its opening fence, an HTML comment (invisible when rendered):
#   <!-- doc-test: NAME -->              test NAME runs this block's text as written
#   <!-- doc-test: NAME (NOTE) -->       the same; NOTE says how (a substitution, make -n, or
#                                        that NAME checks real output has this block's shape)
#   <!-- doc-test: none (REASON) -->     not runnable: a diagram, a grammar (REASON required)
# It fails, naming FILE:LINE, for a block without annotation, a malformed one, a NAME that is not a
# test of `make test`, a NAME whose test definition never names FILE (its recipe in a *.mk fragment and the
# scripts that recipe names: a block nobody reads), "none" on a block with a line that reads as
# a command (make, host_tools/..., go tool, cc, cmake, socat, ./prog, VAR=... prog), and a block
# never closed. It also fails on a table row of docs/TESTS.md longer than 300 characters, and when
# docs/TESTS.md's make check section does not name a test of make check (CHECK_TESTS).
set -u
cd "$(dirname "$0")/../.." || exit 2
here=tests/docs
[ $# -gt 0 ] || { echo "usage: $0 TEST... (the names make test runs)" >&2; exit 2; }
declare -A known
for t in "$@"; do known[$t]=1; done

mapfile -t files < <(find . -mindepth 1 \( -name '.*' -o -name 'build' -o -name 'build-*' -o -name out -o -name third_party \) \
  -prune -o -name '*.md' -type f -print | sed 's|^\./||' | sort)

mapfile -t mkfiles < <(find . -mindepth 1 \( -name '.*' -o -name 'build' -o -name 'build-*' -o -name out \) -prune \
  -o -name '*.mk' -type f -print)

# The text defining test NAME: its `test-NAME:` rule and recipe in the make fragments, and every
# file under tests/ or boards/ the recipe names (the scripts it runs).
definition() {
  local name=$1 rule
  rule=$(awk -v t="test-$name:" '
    index($0, t) == 1 { on = 1; print; next }
    on && /^\t/ { print; next }
    on { on = 0 }' Makefile "${mkfiles[@]}")
  printf '%s\n' "$rule"
  for w in $(printf '%s\n' "$rule" | grep -oE '(tests|boards)/[A-Za-z0-9_./-]+' | sort -u); do
    [ -f "$w" ] && cat "$w"
  done
}

nbad=0
bad() { echo "$1: $2" >&2; nbad=$((nbad + 1)); }
declare -A defs
nblocks=0 nnone=0
while IFS=$'\t' read -r file line ann; do
  nblocks=$((nblocks + 1))
  where="$file:$line"
  if [ "$ann" = "(unterminated)" ]; then
    bad "$where" "fenced block never closed"
    continue
  fi
  if [ "$ann" = - ]; then
    bad "$where" "fenced block without annotation: put <!-- doc-test: NAME --> (a test that runs it) or <!-- doc-test: none (REASON) --> on the line above"
    continue
  fi
  if [[ "$ann" =~ ^none([[:space:]]+\((.*)\))?$ ]]; then
    if [ -z "${BASH_REMATCH[2]// /}" ]; then
      bad "$where" "doc-test: none needs a reason: <!-- doc-test: none (REASON) -->"
    fi
    # none is for what cannot run: a block with a line that reads as a command is not that.
    cmd=$(awk -v l="$line" 'FNR > l && /^[ \t]*(```|~~~)/ { exit } FNR > l' "$file" |
      grep -m1 -E '^[[:space:]]*(\$ )?(make|host_tools/|go tool|cc|gcc|clang|cmake|socat|pkg-config|\./|MSAMP_[A-Z_]+=|PKG_CONFIG_PATH=)([[:space:]]|$)')
    [ -z "$cmd" ] || bad "$where" "doc-test: none on a block that holds a command ('$(sed 's/^ *//' <<<"$cmd" | cut -c1-50)'): a test must run it"
    nnone=$((nnone + 1))
    continue
  fi
  if ! [[ "$ann" =~ ^([a-z0-9][a-z0-9_-]*)([[:space:]]+\((.+)\))?$ ]]; then
    bad "$where" "malformed annotation 'doc-test: $ann' (doc-test: NAME, NAME (NOTE) or none (REASON))"
    continue
  fi
  name=${BASH_REMATCH[1]}
  if [ -z "${known[$name]:-}" ]; then
    bad "$where" "names test '$name', which make test does not have (make test-$name)"
    continue
  fi
  [ -n "${defs[$name]+x}" ] || defs[$name]=$(definition "$name")
  if ! grep -qF -- "$file" <<<"${defs[$name]}"; then
    bad "$where" "test '$name' never reads $file (neither its make rule nor the scripts it runs name the file)"
  fi
done < <("$here/extract.sh" -l "${files[@]}")

# docs/TESTS.md's tables stay readable: no row longer than ROW_MAX characters (a row says what a
# group is for in a line; what each test checks goes in the sections below the table). Characters,
# not bytes: UTF-8's continuation bytes are not counted.
ROW_MAX=300
for file in docs/TESTS.md; do
  while IFS=' ' read -r line len; do
    bad "$file:$line" "table row of $len characters, more than $ROW_MAX: shorten it (details go below the table)"
  done < <(LC_ALL=C awk -v max=$ROW_MAX '/^\|/ { s = $0; gsub(/[\200-\277]/, "", s); if (length(s) > max) print FNR, length(s) }' "$file")
done

# docs/TESTS.md's make check section names each test make check runs (CHECK_TESTS, from the
# environment: docs.mk passes the Makefile's list).
check_section=$(awk '/^## `make check`/ { on = 1; next } /^## / { on = 0 } on' docs/TESTS.md)
for t in ${CHECK_TESTS:-}; do
  grep -qF -- "\`$t\`" <<<"$check_section" ||
    bad docs/TESTS.md "make check runs $t, which its section (## \`make check\`) does not name"
done
[ -n "${CHECK_TESTS:-}" ] || bad docs/TESTS.md "no CHECK_TESTS in the environment: run it as make test-docs-blocks"

if [ $nbad -gt 0 ]; then
  echo "docs-blocks: $nbad failures ($nblocks fenced blocks in ${#files[@]} markdown files, docs/TESTS.md's table rows)" >&2
  exit 1
fi
echo "docs-blocks: $nblocks fenced blocks in ${#files[@]} markdown files, each annotated ($nnone not runnable, with a reason); docs/TESTS.md's table rows at most $ROW_MAX characters"
