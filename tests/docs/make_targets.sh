#!/usr/bin/env bash
# Usage: tests/docs/make_targets.sh FILE...   (test docs-make-targets)
# The docs' blocks of make commands (the README's quick start and boards, docs/BOARDS.md,
# boards/README.md, docs/VERDICTS.md), each line as written, in one user's checkout (tests/docs/lib.sh: build ->
# $BUILD, so what make test built is reused; out/ of its own):
#   - a line naming a long target (LONG below: make test itself and its fast tier make check,
#     make size over every board, make calibrate's thousand runs, the soak, fuzz and bench runs, and single tests of make test,
#     which make test runs anyway) is not
#     run: make's database for the same command line (make -npq, which runs nothing, where make -n
#     would still run the recipe lines that call $(MAKE)) must have the target, and its recipe, or
#     that of a target it runs through $(MAKE), must run what the table below names;
#   - any other line runs and must exit 0; a line run before with the same text (another doc) is
#     not run again; every build/... or out/... path its comment or text names (without <...>)
#     must exist afterwards.
. "$(dirname "$0")/lib.sh"

# Long targets and what their recipes must run (an extended regex over the recipe lines).
declare -A LONG=(
  [test]='TEST_LANE="\$\(TEST_LANE\)" tests/runner\.sh \$\(filter-out \$\(TEST_LANE\),\$\(TESTS\)\)'
  [check]='tests/runner\.sh \$\(CHECK_TESTS\)'
  [size]='tests/ports/size_table\.sh'
  [soak]='robust|soak'
  [fuzz]='fuzz'
  [bench]='bench-\$\$b|BENCHES'
  [check-robust]='runner\.sh'
  [calibrate]='tests/calibrate/calibrate\.sh'
)
long_expect() { # GOAL -> regex, or nothing when GOAL is not long
  local g=$1
  if [ -n "${LONG[$g]+x}" ]; then echo "${LONG[$g]}"; return; fi
  case "$g" in
    test-*) echo '.' ;; # a test of make test: its rule must exist and have a recipe
    bench-*) echo '.' ;;
  esac
}

# recipe DB TARGET: the recipe lines of TARGET in make's database DB, and those of the targets its
# $(MAKE) lines name (one level).
recipe() {
  local db=$1 t=$2 r sub
  r=$(awk -v t="$t:" 'index($0, t) == 1 && (length($0) == length(t) || substr($0, length(t) + 1, 1) ~ /[ :]/) { on = 1; next }
    on && /^$/ { exit } on && /^\t/ { print }' "$db")
  printf '%s\n' "$r"
  for sub in $(printf '%s\n' "$r" | grep -F '$(MAKE)' | grep -oE '(^| )[a-z][a-z0-9_-]+( |$)' | tr -d ' ' | sort -u); do
    awk -v t="$sub:" 'index($0, t) == 1 { on = 1; next } on && /^$/ { exit } on && /^\t/ { print }' "$db"
  done
}

co=$W/co
checkout "$co"
declare -A done_lines
line_hook() {
  local where=$1 text=$2 words goals=() vars=() w g rx db
  # A shell line that is not a make command runs plainly.
  read -r -a words <<<"${text%%#*}"
  [ "${words[0]:-}" = make ] || return 1
  for w in "${words[@]:1}"; do
    case "$w" in
      *=*) vars+=("$w") ;;
      -*) ;;
      *) goals+=("$w") ;;
    esac
  done
  local long=0
  for g in "${goals[@]}"; do [ -n "$(long_expect "$g")" ] && long=1; done
  if [ $long = 1 ]; then
    db=$W/db-$(printf '%s' "${vars[*]}" | tr -c 'A-Za-z0-9_.-' _).txt
    [ -s "$db" ] || user make -npq "${vars[@]}" .DEFAULT >"$db" 2>/dev/null
    for g in "${goals[@]}"; do
      rx=$(long_expect "$g")
      if [ -z "$rx" ]; then
        fail "$where: $g is run along with a long target; not handled: $text"
        continue
      fi
      if ! grep -qE "^$g:( |$)" "$db"; then
        fail "$where: make has no target $g: $text"
      elif recipe "$db" "$g" | grep -qE -- "$rx"; then
        ok "$where: $text   (long: not run; make's database has $g, its recipe runs /$rx/)"
      else
        fail "$where: the recipe of $g does not run /$rx/"; recipe "$db" "$g" | show /dev/stdin
      fi
    done
    return 0
  fi
  local key=${text%%#*}
  key=$(echo $key)
  if [ -n "${done_lines[$key]:-}" ]; then
    ok "$where: $text   (the same command as ${done_lines[$key]}, run once)"
    return 0
  fi
  run_line "$where" "$text"
  local rc=$?
  cp "$W/last.out" "$LINE_OUT.out"; cp "$W/last.err" "$LINE_OUT.err"
  if [ $rc != 0 ]; then
    fail "$where: exit $rc: $text"; show "$W/last.err"; return 0
  fi
  done_lines[$key]=$where
  ok "$where: $text"
  # The paths the line names must exist now.
  for w in $(grep -oE '(^|[ (`])(build|out)/[^ )`]*' <<<"$text" | sed 's/^[ (`]//; s/[.:,;]$//' | grep -v '<'); do
    [ -e "$w" ] && ok "$where: $w exists" || fail "$where: $w, named by the line, does not exist after it ran"
  done
  return 0
}

for f in "$@"; do
  run_lines "$f" "$co"
done
finish
