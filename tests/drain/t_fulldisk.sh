#!/usr/bin/env bash
# Every file drain writes, whole or not at all (docs/DRAIN.md "Output files"). For each output
# kind (the profile, --peak, --folded, --timeline HTML and CSV, --flame SVG, --json; drain
# check's --junit and --json, drain diff's --json, drain merge; drain fleet's --json of top,
# devices and leaks and fleet merge, against a scratch PostgreSQL) drain writes on a full disk
# (lib.sh's full_disk: RLIMIT_FSIZE 0, root or not), to a path that is not there and to one that
# is: drain exits nonzero (not by a signal) with a message naming the file, the path is still
# absent or unchanged byte for byte, and no temporary (.NAME.XXXXXX) is left beside it. With room,
# each kind is written whole: the profile gunzips, JSON parses, JUnit and SVG parse as XML, the
# HTML pages end with </html>, the CSV's rows have its header's columns; its mode is 0666 less the
# umask, as a plain create gives. The profile itself goes to /dev/null for the views' rows (a
# device: no limit on it), so that the view's own file is the one refused.
# And drain check --budgets on text that is no budgets file: a NUL byte (its line named), a line
# too long, /dev/zero and an endless pipe (refused within a second, exit 2).
. "$(dirname "$0")/lib.sh"
. "$here/../fleet/pg.sh"
D=$DRAIN
$GEN --allocs 20000 --snap-every 5000 "$W/s.bin" "$W/s.truth"
$D -q -o "$W/a.pb.gz" "$W/s.bin" || fail "the input profile: exit $?"

# valid KIND FILE: FILE is a whole output of KIND (gz, json, xml, html, csv).
valid() {
  python3 - "$1" "$2" <<'PY'
import csv, gzip, json, sys, xml.etree.ElementTree as ET
kind, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
if kind == "gz":
    assert len(gzip.decompress(data)) > 0
elif kind == "json":
    json.loads(data)
elif kind == "xml":
    ET.fromstring(data)
elif kind == "html":
    assert data.rstrip().endswith(b"</html>"), data[-60:]
elif kind == "csv":
    rows = list(csv.reader(data.decode().splitlines()))
    assert len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows), "ragged rows"
PY
}

mode=$(printf '%o' $((0666 & ~$(umask))))
# kind NAME TYPE RC_OK CMD...: CMD writes its output to the path @OUT@ stands for; it exits RC_OK
# with room.
kind() {
  local name=$1 type=$2 rc_ok=$3 out rc old
  shift 3
  local -a cmd
  for case in absent present room; do
    out=$W/$name.$case
    cmd=("${@//@OUT@/$out}")
    rm -f "$out"
    [ $case = present ] && { printf 'what was there before\n' >"$out"; old=$(sha256sum <"$out"); }
    if [ $case = room ]; then
      "${cmd[@]}" >"$W/$name.stdout" 2>"$W/$name.err"
    else
      full_disk "${cmd[@]}" >"$W/$name.stdout" 2>"$W/$name.err"
    fi
    rc=$?
    if grep -q 'Sanitizer\|runtime error' "$W/$name.err"; then
      fail "$name, $case: sanitizer report"; sed 's/^/    /' "$W/$name.err" >&2
    fi
    [ -z "$(temporaries "$out")" ] || fail "$name, $case: temporary left: $(temporaries "$out")"
    case $case in
    room)
      if [ $rc = "$rc_ok" ] && valid "$type" "$out" && [ "$(stat -c %a "$out")" = "$mode" ]; then
        ok "$name, with room: exit $rc, whole ($type), mode $mode"
      else
        fail "$name, with room: exit $rc (want $rc_ok), mode $(stat -c %a "$out" 2>&1)"
        sed 's/^/    /' "$W/$name.err" >&2
      fi ;;
    *)
      if [ $rc = 0 ] || [ $rc -ge 128 ] || ! grep -qF -- "$out" "$W/$name.err"; then
        fail "$name, full disk, $case: exit $rc, stderr:"; sed 's/^/    /' "$W/$name.err" >&2
      elif [ $case = absent ] && [ -e "$out" ]; then
        fail "$name, full disk: $out exists ($(stat -c %s "$out") bytes)"
      elif [ $case = present ] && [ "$(sha256sum <"$out")" != "$old" ]; then
        fail "$name, full disk: $out changed ($(stat -c %s "$out") bytes)"
      else
        ok "$name, full disk, $case: exit $rc, $([ $case = absent ] && echo 'none written' || echo 'unchanged'), no temporary: $(grep -F -m1 -- "$out" "$W/$name.err" | cut -c1-150)"
      fi ;;
    esac
  done
}

S=$W/s.bin P=$W/a.pb.gz
kind profile gz 0 $D -q -o @OUT@ "$S"
kind peak gz 0 $D -q -o /dev/null --peak @OUT@ "$S"
kind folded csv 0 $D -q -o /dev/null --folded @OUT@ "$S"
kind timeline html 0 $D -q -o /dev/null --timeline @OUT@ "$S"
kind timeline-csv csv 0 $D -q -o /dev/null --timeline-csv @OUT@ "$S"
kind flame xml 0 $D -q -o /dev/null --flame @OUT@ "$S"
kind json json 0 $D -q -o /dev/null --json @OUT@ "$S"
kind check-junit xml 0 $D check "$P" --budget 'inuse<=1G' --junit @OUT@
kind check-json json 0 $D check "$P" --budget 'inuse<=1G' --json @OUT@
kind diff-json json 0 $D diff "$P" "$P" --json @OUT@
kind merge gz 0 $D merge @OUT@ "$P" "$P"

# drain fleet: a scratch PostgreSQL server (tests/fleet/pg.sh), one profile pushed.
if pg_bin >/dev/null; then
  trap pg_stop EXIT
  pg_start
  $D push --db "$PG_CONN" "$P" 2>"$W/push.err" || fail "push: $(cat "$W/push.err")"
  for q in top devices leaks; do
    kind "fleet-$q" json 0 $D fleet --db "$PG_CONN" $q --json @OUT@
  done
  kind fleet-merge gz 0 $D fleet --db "$PG_CONN" merge @OUT@
elif [ "${CI:-}" = true ]; then
  fail "no PostgreSQL server (/usr/lib/postgresql/*/bin; ci/deps.sh test installs postgresql): drain fleet's outputs untested"
else
  echo "SKIP: drain fleet's outputs: no PostgreSQL server (ci/deps.sh test installs postgresql)"
fi

# --- drain check --budgets on text that is no budgets file: exit 2, promptly ---
# budgets WHAT PATTERN FILE: drain check --budgets FILE exits 2 within 5 s, PATTERN on stderr.
budgets() {
  local what=$1 pat=$2 rc t0
  t0=$(date +%s.%N)
  timeout 5 $D check "$P" --budgets "$3" >/dev/null 2>"$W/b.err"
  rc=$?
  if [ $rc != 2 ] || ! grep -q -- "$pat" "$W/b.err" || grep -q Sanitizer "$W/b.err"; then
    fail "--budgets $what: exit $rc, stderr:"; sed 's/^/    /' "$W/b.err" >&2
  else
    ok "--budgets $what: exit 2 in $(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$(date +%s.%N)") s: $(head -n1 "$W/b.err")"
  fi
}
printf 'inuse<=1G\nalloc<=1G\0inuse<=1\n' >"$W/nul.txt"
budgets "a NUL byte in line 2" "nul.txt:2: a NUL byte" "$W/nul.txt"
{ printf 'inuse<=1G\n'; head -c 600 /dev/zero | tr '\0' ' '; printf 'inuse<=1G\n'; } >"$W/long.txt"
budgets "a line of 609 bytes" "long.txt:2: line too long" "$W/long.txt"
budgets /dev/zero "/dev/zero:1: a NUL byte" /dev/zero
# An endless stream of blank lines (a pipe: no size to stat).
budgets "an endless pipe" "larger than 1048576 bytes" <(yes '')
# Near the limits, still a budgets file: 1 MiB of comments and blank lines, a 514-byte line.
# (11 + 1048050 + 515 = 1048576 bytes: the limit itself)
{ printf 'inuse<=1G \n'; yes '#' | head -c 1048050; printf '%-513s#\n' 'alloc<=1G'; } >"$W/big.txt"
$D check "$P" --budgets "$W/big.txt" >"$W/big.out" 2>"$W/big.err" && grep -c '^PASS' "$W/big.out" | grep -qx 2 &&
  ok "--budgets of $(stat -c %s "$W/big.txt") bytes, a line of 514: both budgets judged" ||
  { fail "--budgets near the limits: exit $?"; cat "$W/big.err" >&2; }
printf '\n' >>"$W/big.txt"
budgets "of 1048577 bytes" "big.txt: larger than 1048576 bytes" "$W/big.txt"
finish
