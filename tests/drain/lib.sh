# Shared helpers of drain's test scripts (sourced). Needs DRAIN (drain under test), T (build dir).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
name=$(basename "$0" .sh)
W=$T/work-$name
rm -rf "$W"
mkdir -p "$W"
GEN=$T/gen
MANGLE=$T/mangle
nfail=0

fail() {
  echo "FAIL: $*" >&2
  nfail=$((nfail + 1))
}
ok() { echo "ok: $*"; }

pp() { "$here/gopprof.sh" "$@"; }

# expect_fail DESCRIPTION PATTERN CMD...: CMD must exit nonzero (not by a signal or sanitizer)
# and print PATTERN on stderr.
expect_fail() {
  local what=$1 pat=$2
  shift 2
  "$@" >"$W/out" 2>"$W/err"
  local rc=$?
  if [ $rc -eq 0 ] || [ $rc -ge 128 ] || grep -q 'Sanitizer' "$W/err"; then
    fail "$what: exit $rc"; sed 's/^/    /' "$W/err" >&2
  elif ! grep -qi -- "$pat" "$W/err"; then
    fail "$what: stderr lacks '$pat':"; sed 's/^/    /' "$W/err" >&2
  else
    ok "$what (exit $rc: $(head -n1 "$W/err"))"
  fi
}

# full_disk CMD...: CMD as on a full disk, root or not: RLIMIT_FSIZE 0 (its soft limit; the hard
# one unchanged, so prlimit may lift it) and SIGXFSZ ignored, so a write to a regular file fails
# (EFBIG, "File too large") as on a full disk (ENOSPC). Its stdout and stderr go through FIFOs
# (they may be regular files, which it could not write); its exit status is returned. With
# FULL_DISK_PID=FILE, CMD's pid is written to FILE (for prlimit).
full_disk() {
  rm -f "$W/.full_disk.o" "$W/.full_disk.e"
  mkfifo "$W/.full_disk.o" "$W/.full_disk.e"
  cat "$W/.full_disk.o" &
  local o=$!
  cat "$W/.full_disk.e" >&2 &
  local e=$!
  bash -c '[ -z "${FULL_DISK_PID:-}" ] || echo $$ >"$FULL_DISK_PID"
    trap "" XFSZ; ulimit -S -f 0; exec "$@"' full_disk "$@" >"$W/.full_disk.o" 2>"$W/.full_disk.e"
  local rc=$?
  wait $o $e
  rm -f "$W/.full_disk.o" "$W/.full_disk.e"
  return $rc
}

# temporaries PATH: the temporaries drain may leave beside PATH (.NAME.XXXXXX), one a line.
temporaries() {
  find "$(dirname "$1")" -maxdepth 1 -name ".$(basename "$1").??????"
}

# comment VALUE-NAME FILE: a reader counter from the profile's comments.
counter() {
  pp -comments "$2" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n1
}

finish() {
  if [ $nfail -gt 0 ]; then
    echo "$name: $nfail failure(s)"
    exit 1
  fi
  echo "$name: all passed"
  exit 0
}
