# Shared helpers of the doc tests (sourced from the checkout's root by tests/docs/*.sh).
# Needs BUILD (the build folder, default build) and DOCS_T (default $BUILD/docs).
#   block FILE NAME        the doc block FILE annotates with doc-test: NAME (the test's own name
#                          unless given), as written
#   checkout DIR           DIR becomes a user's checkout: a link to each top-level entry of this
#                          checkout, build -> $BUILD (so the docs' build/... paths and what make
#                          test built are used as written), out/ of its own, nothing else
#   user CMD...            runs CMD as a user at a shell would: in the current directory, without
#                          the make variables of `make test` (MAKEFLAGS: BUILD=..., -j, BOARD=...),
#                          with HOME, GOCACHE and go's proxy private to the test
#   run_line WHERE TEXT    runs one command line of a block with bash in the current directory
#                          (user's environment), output in $W/last.out and .err; status returned
set -u
ROOT=$(pwd)
BUILD=${BUILD:-build}
DOCS_T=${DOCS_T:-$BUILD/docs}
case "$DOCS_T" in /*) ;; *) DOCS_T=$ROOT/$DOCS_T ;; esac
case "$BUILD" in /*) BUILD_ABS=$BUILD ;; *) BUILD_ABS=$ROOT/$BUILD ;; esac
here=$ROOT/tests/docs
TEST=${TEST:-docs-$(basename "$0" .sh | tr _ -)}
W=$DOCS_T/work-$TEST
rm -rf "$W"
mkdir -p "$W/home"
nfail=0

fail() {
  echo "FAIL: $*" >&2
  nfail=$((nfail + 1))
}
ok() { echo "ok: $*"; }
note() { echo "   $*"; }

finish() {
  if [ $nfail -gt 0 ]; then
    echo "$TEST: $nfail failure(s)"
    exit 1
  fi
  echo "$TEST: all passed"
  exit 0
}

block() { "$here/extract.sh" "$1" "${2:-$TEST}"; }
block_numbered() { "$here/extract.sh" -n "$1" "${2:-$TEST}"; }

# The command lines of a numbered block: LINE<TAB>TEXT, comment-only and blank lines left out,
# lines ending in a backslash joined with the next (numbered by the first).
command_lines() {
  awk -F'\t' '
    { t = substr($0, length($1) + 2) }
    cont != "" { t = cont t; n = first } cont == "" { n = $1 }
    t ~ /\\$/ { if (cont == "") first = $1; cont = substr(t, 1, length(t) - 1); next }
    { cont = "" }
    t ~ /^[ \t]*(#|$)/ { next }
    { print n "\t" t }'
}

checkout() {
  local d=$1 e
  rm -rf "$d"
  mkdir -p "$d/out"
  for e in "$ROOT"/* "$ROOT"/.ci; do
    [ -e "$e" ] || continue
    case "$(basename "$e")" in build | build-* | out) continue ;; esac
    ln -s "$e" "$d/$(basename "$e")"
  done
  mkdir -p "$BUILD_ABS"
  ln -s "$BUILD_ABS" "$d/build"
}

user() {
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u MAKE -u MAKE_TERMOUT -u MAKE_TERMERR \
    -u BUILD -u DOCS_T -u BOARD -u TRANSPORT -u CC -u BOARD_QEMU -u BOARD_QEMU_TIMEOUT \
    HOME="$W/home" GOCACHE="$W/home/gocache" GOPATH="$W/home/go" GOPROXY=off GOFLAGS= \
    PPROF_TMPDIR="$W/home/pprof" "$@"
}

run_line() {
  local where=$1 text=$2
  echo "\$ $text      [$where]" >>"$W/commands.log"
  user bash -c "$text" >"$W/last.out" 2>"$W/last.err"
}

# run_lines FILE DIR: each command line of FILE's block for this test, in order, in DIR (a
# checkout), one bash each. A line that defines the function line_hook gets it called first,
# line_hook WHERE TEXT: it returns 0 when it ran the line itself (with its own setup and checks),
# 1 to have the line run plainly here: it must exit 0. Each line's output stays in
# $W/lines/FILE:LINE.out and .err; line_out PATTERN names the .out of the last line matching
# PATTERN (an extended regex).
run_lines() {
  local file=$1 dir=$2 n text where rc
  mkdir -p "$W/lines"
  block_numbered "$file" >"$W/block.tmp" || { fail "$file: no block annotated doc-test: $TEST"; return 1; }
  while IFS=$'\t' read -r n text; do
    where="$file:$n"
    LINE_OUT="$W/lines/${where//\//_}"
    printf '%s\t%s\n' "$text" "$LINE_OUT" >>"$W/lines/index"
    pushd "$dir" >/dev/null || return 1
    if declare -F line_hook >/dev/null && line_hook "$where" "$text"; then
      popd >/dev/null
      continue
    fi
    run_line "$where" "$text"
    rc=$?
    popd >/dev/null
    cp "$W/last.out" "$LINE_OUT.out"; cp "$W/last.err" "$LINE_OUT.err"
    if [ $rc = 0 ]; then
      ok "$where: $text"
    else
      fail "$where: exit $rc: $text"; show "$W/last.err"; show "$W/last.out"
    fi
  done < <(command_lines <"$W/block.tmp")
}
line_out() { awk -F'\t' -v re="$1" '$1 ~ re { f = $2 } END { print f ".out" }' "$W/lines/index"; }

# show FILE: its first lines, indented, for a failure's context.
show() { sed -n '1,25p' "$1" | sed 's/^/    | /' >&2; }

# pp ARGS...: go tool pprof, offline (tests/drain/gopprof.sh).
pp() { "$ROOT/tests/drain/gopprof.sh" "$@"; }

# samples PROFILE: number of samples go tool pprof -raw lists (0 when it cannot read it).
samples() { pp -raw "$1" 2>/dev/null | awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 } on && /^ *[0-9]/ { n++ } END { print n + 0 }'; }
