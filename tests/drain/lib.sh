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
