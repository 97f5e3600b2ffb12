# Shared helpers of the doc tests (sourced from the checkout's root by tests/docs/*.sh).
# Needs BUILD (the build folder, default build) and DOCS_T (default $BUILD/docs).
#   block FILE NAME        the one doc block FILE annotates with doc-test: NAME (the test's own
#                          name unless given), as written
#   block_numbered FILE    every block of FILE annotated with the test's name, LINE<TAB>TEXT
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

USER_ENV=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u MAKE -u MAKE_TERMOUT -u MAKE_TERMERR
  -u BUILD -u DOCS_T -u BOARD -u TRANSPORT -u CC -u BOARD_QEMU -u BOARD_QEMU_TIMEOUT
  HOME="$W/home" GOCACHE="$W/home/gocache" GOPATH="$W/home/go" GOPROXY=off GOFLAGS=
  PPROF_TMPDIR="$W/home/pprof")
user() { "${USER_ENV[@]}" "$@"; }

run_line() {
  local where=$1 text=$2 rc t0=$SECONDS
  echo "\$ $text      [$where]" >>"$W/commands.log"
  user bash -c "$text" >"$W/last.out" 2>"$W/last.err"
  rc=$?
  echo "  exit $rc after $((SECONDS - t0)) s" >>"$W/commands.log"
  return $rc
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

# A device on a tty, for the docs' /dev/ttyUSB0 lines: no test may create /dev/ttyUSB0 (root, and
# the machine's own devices), so the board runs under QEMU with its UART on a pseudo-terminal
# (-serial pty) and DIR/dev/ttyUSB0 links to it; the line runs with "/dev/ttyUSB0" replaced by
# "DIR/dev/ttyUSB0" (the device's folder only). Needs BOARD_QEMU (qemu-virt-aarch64's command).
# tty_device_start ELF DIR: sets DEV_PID (QEMU) and DEV_TTY (the pty).
tty_device_start() {
  local elf=$1 dir=$2 i
  mkdir -p "$dir/dev"
  # shellcheck disable=SC2086  # BOARD_QEMU is a command line
  $BOARD_QEMU -serial pty -kernel "$elf" </dev/null >"$W/qemu-tty.log" 2>&1 &
  DEV_PID=$!
  DEV_TTY=
  for i in $(seq 100); do
    DEV_TTY=$(grep -o '/dev/pts/[0-9]*' "$W/qemu-tty.log" | head -n1)
    [ -n "$DEV_TTY" ] && break
    sleep 0.1
  done
  [ -n "$DEV_TTY" ] || { fail "QEMU gave no pty"; show "$W/qemu-tty.log"; return 1; }
  ln -sfn "$DEV_TTY" "$dir/dev/ttyUSB0"
}
tty_device_stop() {
  kill "$DEV_PID" 2>/dev/null
  wait "$DEV_PID" 2>/dev/null
  rm -f "$1/dev/ttyUSB0"
}

# run_session TEXT SECONDS STOP: runs the line in a session of its own (its own process group, as
# a shell runs a foreground job), output in $LINE_OUT.out/.err; after SECONDS, STOP is "int"
# (SIGINT to the group: the user's Ctrl-C) or a command run then (e.g. to take the device away;
# SESSION_PID is the group), and the line must end within 20 s. Returns the line's exit status (124 if it did not end).
run_session() {
  local text=$1 secs=$2 stop=$3 pid i
  echo "\$ $text      [session, stopped after $secs s by $stop]" >>"$W/commands.log"
  "${USER_ENV[@]}" setsid bash -c "$text" </dev/null >"$LINE_OUT.out" 2>"$LINE_OUT.err" &
  pid=$!
  SESSION_PID=$pid
  sleep "$secs"
  if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid"
    return $?
  fi
  if [ "$stop" = int ]; then kill -INT -- -"$pid" 2>/dev/null; else eval "$stop"; fi
  for i in $(seq 200); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL -- -"$pid" 2>/dev/null
    wait "$pid"
    return 124
  fi
  wait "$pid"
}

# tty_line WHERE TEXT ELF STOP: a line reading /dev/ttyUSB0, against ELF on the pty device, run for
# a few seconds and ended by STOP (int: Ctrl-C; device: the device goes away, QEMU ends). Exit
# status must be 0. Returns 0 (it ran the line) whatever the result.
tty_line() {
  local where=$1 text=$2 elf=$3 stop=$4 rc dir
  dir=$(pwd)
  tty_device_start "$elf" "$dir" || return 0
  local t=${text//\/dev\/ttyUSB0/$dir\/dev\/ttyUSB0}
  if [ "$stop" = int ]; then
    run_session "$t" 3 int
  else
    run_session "$t" 3 "tty_device_stop '$dir'"
  fi
  rc=$?
  tty_device_stop "$dir"
  if [ $rc = 0 ]; then
    ok "$where: $text   (on $DEV_TTY as $dir/dev/ttyUSB0; ended by $([ "$stop" = int ] && echo Ctrl-C/SIGINT || echo the device going away))"
  else
    fail "$where: exit $rc: $text"; show "$LINE_OUT.err"
  fi
  return 0
}

# http_line WHERE TEXT CHECK...: a `go tool pprof -http=...` line: it runs in its own session with
# BROWSER set to a script that only records the URL pprof opens; the web UI must serve (each CHECK
# is a path, /ui/top..., that must answer 200 and, after a '=', contain a text), then it is stopped
# (SIGTERM to its group). The landing page (the graph view) needs graphviz: with dot installed it
# must answer 200, without it the README must say that the graph view needs graphviz.
http_line() {
  local where=$1 text=$2 pid url i c path want code
  shift 2
  printf '#!/bin/sh\necho "$*" >"%s"\n' "$W/browser.url" >"$W/browser.sh"
  chmod +x "$W/browser.sh"
  echo "\$ $text      [web UI, BROWSER=$W/browser.sh]" >>"$W/commands.log"
  "${USER_ENV[@]}" BROWSER="$W/browser.sh" setsid bash -c "$text" </dev/null >"$LINE_OUT.out" 2>"$LINE_OUT.err" &
  pid=$!
  url=
  for i in $(seq 300); do
    url=$(grep -ohE 'Serving web UI on http://[^ ]+' "$LINE_OUT.out" "$LINE_OUT.err" | head -n1 | sed 's/.* on //')
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    fail "$where: no 'Serving web UI on' from: $text"; show "$LINE_OUT.err"
  else
    case "$url" in
      http://127.0.0.1:*) ok "$where: $text   (serving on $url)" ;;
      *) fail "$where: web UI on $url, not on 127.0.0.1" ;;
    esac
    for c in "$@"; do
      path=${c%%=*} want=${c#*=}
      code=$(curl -s -o "$W/page.html" -w '%{http_code}' "${url%/}$path")
      if [ "$code" = 200 ] && grep -q -- "$want" "$W/page.html"; then
        ok "$where: $path answers 200 and shows $want"
      else
        fail "$where: $path answered $code$(grep -q -- "$want" "$W/page.html" || echo ", without $want")"
      fi
    done
    code=$(curl -sL -o "$W/page.html" -w '%{http_code}' "$url")
    if command -v dot >/dev/null; then
      [ "$code" = 200 ] && ok "$where: the landing page (graph view) answers 200" || fail "$where: the landing page answered $code"
    elif grep -q graphviz "$W/page.html" && grep -q 'graph view also needs graphviz' "$ROOT/README.md"; then
      ok "$where: without graphviz the landing page says to install it ($code), as the README says"
    else
      fail "$where: landing page answered $code without graphviz, and the README does not say the graph view needs it"
    fi
    for i in $(seq 20); do [ -s "$W/browser.url" ] && break; sleep 0.1; done
    [ -s "$W/browser.url" ] && note "pprof opened the browser (BROWSER) at $(cat "$W/browser.url")"
  fi
  kill -TERM -- -"$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}

# Output examples. norm: the shape of each line of stdin: numbers N, addresses X (lists of them
# one X), build-ids H, quoted strings S, profile file names F, the interval's reasons R (lists of
# "N R" one), a plural after a number singular, "host_tools/" and "usage: " dropped.
REASONS='live table high water|stack table high water|live-table bucket full|tables below low water|set by the application|set by a command from the host|seen in a session header'
norm() {
  sed -E -e 's#host_tools/##g' -e 's/^usage: +//' -e 's/^ +//' -e 's/ +$//' \
    -e "s/$REASONS/R/g" \
    -e 's/"([^"\\]|\\.)*"/S/g' \
    -e 's/build_id=[0-9a-f]*/build_id=H/g' \
    -e 's/0x[0-9a-f]+/X/g' \
    -e 's#[^ ]*\.pb\.gz#F#g' \
    -e 's/[0-9]+(\.[0-9]+)?/N/g' \
    -e 's/X(,X)+/X/g' \
    -e 's/\(N R(, N R)*\)/(N R)/g' \
    -e 's/(N [a-z-]+)s( |;|,|\)|$)/\1\2/g'
}

# shape_check WHERE EXAMPLE REAL [SRCDIR...]: every line of the file EXAMPLE (a doc's output
# example) must have the shape (norm) of a line of the file REAL (what the tools printed here); an
# example line ending in " ..." is a prefix. A line no run here prints passes only when SRCDIR's
# sources hold its text without numbers (the tool's own format), said so.
shape_check() {
  local where=$1 ex=$2 real=$3 line n lit
  shift 3
  norm <"$real" | sort -u >"$W/shape.real"
  while IFS= read -r line; do
    [ -n "${line// /}" ] || continue
    n=$(printf '%s\n' "$line" | norm)
    if [[ "$n" == *" ..." ]]; then
      awk -v p="${n% ...}" 'index($0, p) == 1 { f = 1 } END { exit !f }' "$W/shape.real"
    else
      grep -qxF -- "$n" "$W/shape.real"
    fi && { ok "$where: the tools print lines of this shape: $(cut -c1-90 <<<"$line")"; continue; }
    # The longest stretch of the line without digits, as it would stand in a format string.
    lit=$(printf '%s\n' "$line" | sed -E 's/^\.\.\. //' | tr -s '0-9' '\n' | awk '{ if (length($0) > length(b)) b = $0 } END { print b }')
    lit=$(sed -E 's/^ +//; s/ +$//' <<<"$lit")
    if [ $# -gt 0 ] && [ ${#lit} -ge 12 ] && grep -rqF -- "$lit" "$@"; then
      ok "$where: no run here prints '$(cut -c1-60 <<<"$line")', but '$lit' is the tool's own text ($*)"
    else
      fail "$where: no output of this shape: $line"
      note "shape: $n"
    fi
  done <"$ex"
}
