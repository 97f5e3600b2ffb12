#!/usr/bin/env bash
# The fleet store end to end (docs/FLEET.md) on a scratch PostgreSQL server (tests/fleet/pg.sh):
# three hosted devices (growth_app, which leaks, as "leaky"; peak_app, which does not, as "q1" and
# "q2"; each drained with --leaks so the verdicts are in the profiles) and one board profile
# ($BOARD_PROF, device board-1 under QEMU). Checks: push stores each once (a second push stores
# none); drain fleet merge is byte-identical to drain merge of the same files in the same order,
# for all and for selections by device, build id, time and label, and its six totals equal
# drain merge's; top's totals equal the merge's; devices and leaks (the leaky device's
# leak_record alone); errors: the server down, a wrong password, a newer schema (profile files
# unchanged), libpq missing (MSAMP_DRAIN_LIBPQ); drain without a store loads no libpq.
set -u
D=${DRAIN:?} W=${W:?} GROWTH=${GROWTH_APP:?} PEAK=${PEAK_APP:?} BOARD_PROF=${BOARD_PROF:?}
T=$(dirname "$0")
. "$T/pg.sh"
nfail=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
rm -rf "$W" && mkdir -p "$W"
trap pg_stop EXIT
pg_start

# The devices' profiles.
for dev in leaky q1 q2; do
  app=$PEAK; [ $dev = leaky ] && app=$GROWTH
  MSAMP_DEVICE_ID=$dev MSAMP_OUTPUT=$W/$dev.bin MSAMP_SEED=7 "$app" || fail "$dev: exit $?"
  "$D" -q "$W/$dev.bin" --elf "$app" -o "$W/$dev.pb.gz" --leaks >"$W/$dev.out" 2>"$W/$dev.err" ||
    fail "drain $dev: exit $? ($(head -c 300 "$W/$dev.err"))"
done
cp "$BOARD_PROF" "$W/board.pb.gz"
files="$W/leaky.pb.gz $W/q1.pb.gz $W/q2.pb.gz $W/board.pb.gz"
sha256sum $files >"$W/files.sha"

# push, twice
"$D" push --db "$PG_CONN" $files 2>"$W/push1.err" || fail "push: exit $? ($(cat "$W/push1.err"))"
grep -q '4 profiles stored, 0 already there' "$W/push1.err" && ok "push: 4 stored" || fail "push: $(cat "$W/push1.err")"
"$D" push --db "$PG_CONN" $W/q1.pb.gz $files 2>"$W/push2.err" || fail "push again: exit $?"
grep -q '0 profiles stored, 5 already there' "$W/push2.err" && [ "$(pg_sql 'select count(*) from msamp_profile')" = 4 ] &&
  ok "push again: stored once" || fail "push again: $(cat "$W/push2.err"), $(pg_sql 'select count(*) from msamp_profile') rows"

# The stored files of a selection in fleet merge's order (by their SHA-256).
order() {
  pg_sql "select encode(sha256, 'hex') from msamp_profile p where $1 order by t_start, device, id" |
    while read -r h; do awk -v h="$h" '$1 == h { print $2 }' "$W/files.sha"; done
}
# check NAME SQL-WHERE FILTER...: fleet merge of the filter equals drain merge of the files SQL selects
check() {
  local name=$1 where=$2
  shift 2
  local sel
  sel=$(order "$where")
  [ -n "$sel" ] || { fail "$name: the selection is empty"; return; }
  "$D" fleet --db "$PG_CONN" merge "$W/f.$name.pb.gz" "$@" 2>"$W/f.$name.err" ||
    { fail "$name: fleet merge exit $? ($(cat "$W/f.$name.err"))"; return; }
  # shellcheck disable=SC2086
  "$D" merge "$W/m.$name.pb.gz" $sel || { fail "$name: drain merge exit $?"; return; }
  # the six standard sample types (the variance types after them are compared with the bytes)
  "$T/../analysis/pprof_sum.sh" "$W/f.$name.pb.gz" |
    grep -E '^TOTAL (inuse|alloc|freed)_(objects|space) ' >"$W/f.$name.tot"
  "$T/../analysis/pprof_sum.sh" "$W/m.$name.pb.gz" |
    grep -E '^TOTAL (inuse|alloc|freed)_(objects|space) ' >"$W/m.$name.tot"
  if cmp -s "$W/f.$name.pb.gz" "$W/m.$name.pb.gz" && [ "$(wc -l <"$W/f.$name.tot")" = 6 ] &&
     cmp -s "$W/f.$name.tot" "$W/m.$name.tot"; then
    ok "$name: fleet merge = drain merge of $(echo "$sel" | wc -l) files (bytes and six totals)"
  else
    fail "$name: fleet merge differs from drain merge of $(echo $sel)"; diff "$W/f.$name.tot" "$W/m.$name.tot"
  fi
}
check all "true"
check dev-leaky "device = 'leaky'" --device leaky
check dev-q "device in ('q1', 'q2')" --device q1 --device q2
bid=$(pg_sql "select build_id from msamp_profile where device = 'board-1'")
check build "build_id = '$bid'" --build-id "$bid"
check label "'device=q2' = any(labels)" --label device=q2
# time: the board profile was made before the hosted ones (its file is older)
cut=$(pg_sql "select extract(epoch from t_end) + 0.001 from msamp_profile where device = 'board-1'")
[ "$(pg_sql "select count(*) from msamp_profile where t_start <= to_timestamp($cut)")" -lt 4 ] ||
  fail "time: the board's profile is not older than the hosted ones"
check until "t_start <= to_timestamp($cut)" --until "$cut"
check since "t_end >= to_timestamp($cut)" --since "$cut"
"$D" fleet --db "$PG_CONN" merge "$W/none.pb.gz" --device nobody 2>"$W/none.err" &&
  fail "an empty selection: exit 0" || ok "an empty selection: $(cat "$W/none.err")"

# top: its totals over all sites equal the merge's
"$D" fleet --db "$PG_CONN" top --top 1000000 --json "$W/top.json" >"$W/top.txt" 2>&1 || fail "top: exit $?"
python3 - "$W/top.json" "$W/m.all.tot" <<'PY' && ok "top: totals equal the merge's" || fail "top: totals differ"
import json, sys
top = json.load(open(sys.argv[1]))
tot = {}
for s in top["sites"]:
    for k, v in s["values"].items():
        tot[k] = tot.get(k, 0) + v["value"]
want = {l.split()[1]: int(float(l.split()[2])) for l in open(sys.argv[2])}
print("top:", tot, "merge:", want)
sys.exit(0 if len(want) == 6 and all(tot.get(k) == v for k, v in want.items()) else 1)
PY
# devices: four, the leaky one's in-use first (its leak and cache hold ~50 MB to the end)
"$D" fleet --db "$PG_CONN" devices --json "$W/dev.json" >"$W/dev.txt" || fail "devices: exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"]; print([x["device"] for x in d]); sys.exit(0 if len(d) == 4 and d[0]["device"] == "leaky" else 1)' "$W/dev.json" &&
  ok "devices: 4, leaky first" || { fail "devices"; cat "$W/dev.txt"; }
# leaks: the leaky device's leak_record, only
"$D" fleet --db "$PG_CONN" leaks --json "$W/leaks.json" >"$W/leaks.txt" || fail "leaks: exit $?"
got=$(python3 -c 'import json,sys; print(" ".join(sorted(x["device"] + ":" + x["stack"][0] for x in json.load(open(sys.argv[1]))["leaks"])))' "$W/leaks.json")
# leaky's leak is there and the churn of q1 and q2 is no leak; board-1 (analysis_app at interval 1)
# may name its realloc chain, grown to 64 KiB late in its run and held to the end.
case " $got " in *" leaky:leak_record "*) ok_leak=1 ;; *) ok_leak=0 ;; esac
case " $got " in *" q1:"* | *" q2:"*) ok_leak=0 ;; esac
[ $ok_leak = 1 ] && ok "leaks: $got" || { fail "leaks: [$got], want leaky:leak_record and none of q1, q2"; cat "$W/leaks.txt"; }

# drain --push while draining: the profile written is stored as well
"$D" -q "$W/q1.bin" --elf "$PEAK" -o "$W/q1b.pb.gz" --push "$PG_CONN" 2>"$W/q1b.err" || fail "drain --push: exit $?"
h=$(sha256sum "$W/q1b.pb.gz" | cut -d' ' -f1)
[ "$(pg_sql "select count(*) from msamp_profile where sha256 = decode('$h', 'hex') and device = 'q1'")" = 1 ] &&
  ok "drain --push: the profile written is stored" || fail "drain --push: not stored ($(cat "$W/q1b.err"))"
# Errors. The server down: a port nothing listens on.
down="host=127.0.0.1 port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') user=postgres connect_timeout=5"
"$D" push --db "$down" $files 2>"$W/down.err"; rc=$?
"$D" -q "$W/q2.bin" --elf "$PEAK" -o "$W/q2b.pb.gz" --push "$down" 2>"$W/down2.err" && [ -s "$W/q2b.pb.gz" ] &&
  grep -q 'the profile is kept in' "$W/down2.err" && ok "drain --push, server down: profile written, the failure reported" ||
  fail "drain --push, server down: $(cat "$W/down2.err")"
[ $rc = 1 ] && grep -q 'cannot connect to the database' "$W/down.err" && ok "server down: exit 1, $(head -1 "$W/down.err")" ||
  fail "server down: exit $rc, $(cat "$W/down.err")"
# A file that is no profile: reported, the others still stored, exit 1.
"$D" push --db "$PG_CONN" "$W/q1.bin" "$W/q1.pb.gz" 2>"$W/bad.err"; rc=$?
[ $rc = 1 ] && grep -q "q1.bin: not a profile" "$W/bad.err" && grep -q '0 profiles stored, 1 already there' "$W/bad.err" &&
  ok "a file that is no profile: exit 1, $(head -1 "$W/bad.err")" || fail "no profile: exit $rc, $(cat "$W/bad.err")"
# A wrong password (scram over TCP).
pg_sql "create role fleet login password 'right'; grant all on schema public to fleet" || fail "create role"
"$D" push --db "host=127.0.0.1 port=$PG_PORT user=fleet password=wrong dbname=postgres" $files 2>"$W/pw.err"; rc=$?
[ $rc = 1 ] && grep -q 'password authentication failed' "$W/pw.err" && ok "wrong password: exit 1" ||
  fail "wrong password: exit $rc, $(cat "$W/pw.err")"
PGPASSWORD=right "$D" fleet --db "host=127.0.0.1 port=$PG_PORT user=fleet dbname=postgres" devices >/dev/null 2>"$W/pwok.err"; rc=$?
# the role may not read the superuser's tables: the query's error is clear and nonzero
[ $rc = 1 ] && grep -q 'permission denied' "$W/pwok.err" && ok "right password, no grant: $(cat "$W/pwok.err")" ||
  fail "right password: exit $rc, $(cat "$W/pwok.err")"
# A newer schema.
pg_sql "insert into msamp_schema values (99)"
"$D" push --db "$PG_CONN" "$W/q1.pb.gz" 2>"$W/new.err"; rc=$?
[ $rc = 1 ] && grep -q 'version 99, newer than this drain' "$W/new.err" && ok "newer schema: push refused" ||
  fail "newer schema: exit $rc, $(cat "$W/new.err")"
"$D" fleet --db "$PG_CONN" top >/dev/null 2>"$W/new2.err"; rc=$?
[ $rc = 1 ] && grep -q 'newer than this drain' "$W/new2.err" && ok "newer schema: fleet refused" ||
  fail "newer schema (fleet): exit $rc, $(cat "$W/new2.err")"
# libpq missing (MSAMP_DRAIN_LIBPQ names one that is not there): push, fleet and --push say so,
# exit 1, and --push before it drains anything; drain without a store does not load it at all.
nolib="$W/no-such-dir/libpq.so.5"
nolib_check() { # NAME ARG...: drain ARG... with libpq missing
  local name=$1 rc; shift
  MSAMP_DRAIN_LIBPQ=$nolib "$D" "$@" >/dev/null 2>"$W/nolib.err"; rc=$?
  [ $rc = 1 ] && grep -q "^drain: the PostgreSQL store needs libpq (Debian package libpq5): $nolib" "$W/nolib.err" &&
    [ ! -e "$W/q2c.pb.gz" ] && ok "no libpq, $name: exit 1, $(head -1 "$W/nolib.err")" ||
    fail "no libpq, $name: exit $rc, $(cat "$W/nolib.err")"
}
nolib_check push push --db "$PG_CONN" "$W/q1.pb.gz"
nolib_check fleet fleet --db "$PG_CONN" top
nolib_check --push -q "$W/q2.bin" --elf "$PEAK" -o "$W/q2c.pb.gz" --push "$PG_CONN"
MSAMP_DRAIN_LIBPQ=$nolib LD_DEBUG=files "$D" -q "$W/q2.bin" --elf "$PEAK" -o "$W/q2d.pb.gz" 2>"$W/nostore.err" &&
  [ -s "$W/q2d.pb.gz" ] && grep -q 'file=libz' "$W/nostore.err" && ! grep -q 'libpq' "$W/nostore.err" && ok "no store: drain works without libpq, loads none" ||
  fail "no store: $(grep -m3 'libpq\|drain' "$W/nostore.err")"
sha256sum -c --quiet "$W/files.sha" && ok "profile files unchanged" || fail "profile files changed"

[ $nfail = 0 ] && echo "fleet: all passed" || echo "fleet: $nfail failed"
exit $((nfail != 0))
