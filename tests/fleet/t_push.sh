#!/usr/bin/env bash
# drain push's and drain fleet's bad cases (docs/FLEET.md) on a scratch PostgreSQL server
# (tests/fleet/pg.sh) and profiles of a generated stream (tests/drain/gen.c: no board). Every file
# is pushed or named: the connection lost on one (a trigger ends its backend): the next still
# pushed, exit 1; the server stopped on one (a trigger asks the postmaster for a fast shutdown):
# each file left named with the reason, exit 1, and pushed once the server is back. A label
# holding a NUL byte (the device's name cut there would be another device's): refused, named,
# nothing of it stored, the other file stored. Times the server does not read (--since, --until,
# prune --before): bad input, exit 2, named; a time it reads: exit 0. A sample type named in UTF-8:
# its jsonb keys keep it.
set -u
D=${DRAIN:?} W=${W:?} GEN=${GEN:?}
T=$(dirname "$0")
. "$T/pg.sh"
pg_test

"$GEN" --sessions 4 --allocs 300 "$W/s.bin" "$W/s.truth" || fail "gen: exit $?"
"$D" -q -o "$W/p1.pb.gz" "$W/s.bin" || fail "drain: exit $?"
for k in 2 3 4; do mv "$W/p1.s$k.pb.gz" "$W/p$k.pb.gz"; done
sha() { sha256sum "$1" | cut -c1-64; }
stored() { pg_sql "select count(*) from msamp_profile where sha256 = decode('$(sha "$1")', 'hex')"; }
# push CASE FILE...: drain push into $W/CASE.err, its exit status into rc
push() { local c=$1; shift; "$D" push --db "$PG_CONN" "$@" 2>"$W/$c.err"; rc=$?; }

push first "$W/p1.pb.gz"
[ $rc = 0 ] && [ "$(stored "$W/p1.pb.gz")" = 1 ] && ok "push: the store made, p1 stored" || fail "first push: exit $rc, $(cat "$W/first.err")"
# The trigger: a row whose bytes' SHA-256 is in t_kill ends its backend ('backend') or asks the
# postmaster (the one running then) for a fast shutdown ('server': its backends end, no new
# connection is taken).
pg_sql "create table t_kill (sha bytea, how text);
create function t_kill() returns trigger language plpgsql as \$\$
declare h text;
begin
  select how into h from t_kill where sha = new.sha256;
  if h = 'backend' then perform pg_terminate_backend(pg_backend_pid()); perform pg_sleep(5); end if;
  if h = 'server' then execute format('copy (select 1) to program %L', 'kill -INT \$(head -1 $PG_DIR/data/postmaster.pid)'); perform pg_sleep(5); end if;
  return new;
end \$\$;
create trigger t_kill before insert on msamp_profile for each row execute function t_kill();"

# The connection lost on p2: p2 named, p3 pushed on a new connection, exit 1.
pg_sql "insert into t_kill values (decode('$(sha "$W/p2.pb.gz")', 'hex'), 'backend')"
push lost "$W/p2.pb.gz" "$W/p3.pb.gz"
[ $rc = 1 ] && grep -q "p2.pb.gz: storing it: .*terminat" "$W/lost.err" && [ "$(stored "$W/p3.pb.gz")" = 1 ] &&
  grep -q "1 profiles stored, 0 already there, 1 not pushed" "$W/lost.err" &&
  ok "connection lost on a file: the next still pushed, exit 1: $(head -1 "$W/lost.err" | cut -c1-160)" ||
  { fail "connection lost on a file: exit $rc, p3 stored $(stored "$W/p3.pb.gz") times"; cat "$W/lost.err"; }

# The server stopped on p4: p4 named, then p2 named with the reason, exit 1. The reason is
# "cannot connect" when the backend has ended before p2 is sent, else the connection closed on p2
# (seen under load: the trigger's COPY TO PROGRAM fails on the shutdown's broken pipe and returns
# p4's error while the backend still runs).
pg_sql "update t_kill set how = 'server' where true; insert into t_kill values (decode('$(sha "$W/p4.pb.gz")', 'hex'), 'server')"
push down "$W/p4.pb.gz" "$W/p2.pb.gz"
[ $rc = 1 ] && grep -q "p4.pb.gz: storing it: " "$W/down.err" &&
  grep -Eq "p2.pb.gz: (not pushed: cannot connect to the database|storing it: server closed the connection)" "$W/down.err" &&
  grep -q "0 profiles stored, 0 already there, 2 not pushed" "$W/down.err" &&
  ok "server stopped on a file: each file left named, exit 1: $(grep p2.pb.gz "$W/down.err" | cut -c1-160)" ||
  { fail "server stopped on a file: exit $rc"; cat "$W/down.err"; }
pg_restart
pg_sql "drop trigger t_kill on msamp_profile"
push again "$W/p4.pb.gz" "$W/p2.pb.gz"
[ $rc = 0 ] && [ "$(stored "$W/p4.pb.gz")$(stored "$W/p2.pb.gz")" = 11 ] && ok "the server back: both pushed" ||
  { fail "server back: exit $rc"; cat "$W/again.err"; }

# A NUL byte in a label: p1 with its session label made a device label (device=SID), and a copy
# whose device is SID, a NUL byte and more: refused, named, nothing stored; the other stored.
sid=$(pg_sql "select session from msamp_profile where sha256 = decode('$(sha "$W/p1.pb.gz")', 'hex')")
python3 "$T/strtab.py" "$W/p1.pb.gz" "$W/dev.pb.gz" session device || fail "strtab.py"
python3 "$T/strtab.py" "$W/dev.pb.gz" "$W/nul.pb.gz" "$sid" "$sid\\0evil" || fail "strtab.py NUL"
push nul "$W/nul.pb.gz" "$W/dev.pb.gz"
n=$(pg_sql "select count(*) from msamp_profile where device like '$sid%'")
[ $rc = 1 ] && grep -q "nul.pb.gz: a label device holds a NUL byte (\"$sid\\\\0...\"): refused" "$W/nul.err" &&
  [ "$(stored "$W/dev.pb.gz")" = 1 ] && [ "$(stored "$W/nul.pb.gz")" = 0 ] && [ "$n" = 1 ] &&
  ok "a NUL in a label: refused, exit 1: $(head -1 "$W/nul.err" | cut -c1-160)" ||
  { fail "a NUL in a label: exit $rc, $n rows of device $sid"; cat "$W/nul.err"; }

# JSON strings into the store (util.h's one escaper): p3 with its sample type freed_space named in
# UTF-8: its jsonb keys (totals, each site's vals as jsonb: msamp_vals) keep it (an escaper that took each byte for a
# code point stored "fr\u00c3\u00a9ed_space").
want=$'fr\xc3\xa9ed_space'
python3 "$T/strtab.py" "$W/p3.pb.gz" "$W/utf.pb.gz" freed_space "$want" || fail "strtab.py UTF-8"
push utf "$W/utf.pb.gz"
utf="sha256 = decode('$(sha "$W/utf.pb.gz")', 'hex')"
k=$(pg_sql "select string_agg(k, ',') from msamp_profile, jsonb_object_keys(totals) k
  where $utf and k like 'fr%space'")
ns=$(pg_sql "select count(*), count(*) filter (where msamp_vals(p.sample_types, s.vals) ? '$want')
  from msamp_site s join msamp_profile p on p.device = s.device and p.id = s.profile_id where p.$utf")
[ $rc = 0 ] && [ "$k" = "$want" ] && [ "${ns%|*}" -gt 0 ] && [ "${ns%|*}" = "${ns#*|}" ] &&
  ok "JSON strings stored: UTF-8 kept: $k in totals and ${ns#*|} sites' vals" ||
  { fail "JSON strings stored: exit $rc, totals key '$k', sites (all|with it) $ns"; cat "$W/utf.err"; }

# A sample type named with a quote and a backslash: stored, and `fleet top --json` writes it as a
# JSON key escaped like any other string (it was written raw: invalid JSON).
q='fr"ee\\d_space'
python3 "$T/strtab.py" "$W/p3.pb.gz" "$W/quote.pb.gz" freed_space "$q" || fail "strtab.py quote"
push quote "$W/quote.pb.gz"
"$D" fleet --db "$PG_CONN" top --json "$W/top.json" >/dev/null 2>"$W/top.err"; rc2=$?
[ $rc = 0 ] && [ $rc2 = 0 ] && python3 - "$W/top.json" "$q" <<'PY' && ok "fleet top --json: a sample type with a quote and a backslash, escaped: valid JSON" ||
import json, sys
sites = json.load(open(sys.argv[1]))["sites"]
sys.exit(0 if any(sys.argv[2] in s["values"] for s in sites) else f"{sys.argv[2]!r} in no site's values")
PY
  { fail "fleet top --json with a quoted sample type: push exit $rc, top exit $rc2"; cat "$W/quote.err" "$W/top.err"; head -c 600 "$W/top.json"; }

# Times: one the server does not read is bad input (exit 2) named; one it reads runs (exit 0).
for c in "top --since yesterday-ish" "merge $W/m.pb.gz --until 2026-13-45" "devices --since 1e999" \
  "leaks --until 99999999999999999999" "prune --before not-a-time"; do
  set -- $c
  "$D" fleet --db "$PG_CONN" $c >/dev/null 2>"$W/t.err"; rc=$?
  v=${c##* }
  [ $rc = 2 ] && grep -q -- "--[a-z]* $v: not a time (seconds since the epoch or a timestamp): " "$W/t.err" &&
    ok "fleet $1, bad time: exit 2, $(head -1 "$W/t.err" | cut -c1-160)" || { fail "fleet $c: exit $rc"; cat "$W/t.err"; }
done
"$D" fleet --db "$PG_CONN" top --since 0 --until '2100-01-01 00:00:00+00' >/dev/null 2>"$W/t.err" &&
  ok "fleet top, times it reads: exit 0" || { fail "fleet top --since 0: exit $?"; cat "$W/t.err"; }
[ "$(pg_sql 'select count(*) from msamp_profile')" = 7 ] && ok "the store: 7 profiles (none pruned)" ||
  fail "the store: $(pg_sql 'select count(*) from msamp_profile') profiles, want 7"

# Many files, read ahead by push's reader thread while a batch is stored: 80 copies of p1 (their
# own bytes: gzip MTIME), the 10th ending its backend (t_kill), and among them files that cannot
# be read or decoded, 130 in a row (more than two batches' rows) in the second batch. Each is
# named when push comes to it, in the files' order (the reading thread's errors after the first
# batch's store error), the others stored; with no server, every file is named "not pushed".
mkdir -p "$W/many"
python3 - "$W/p1.pb.gz" "$W/many" <<'PY'
import sys
raw = open(sys.argv[1], "rb").read()
for i in range(1, 81):
    b = bytearray(raw)
    b[4:8] = (700000 + i).to_bytes(4, "little")
    open(f"{sys.argv[2]}/c{i:03d}.pb.gz", "wb").write(b)
open(f"{sys.argv[2]}/junk1.pb.gz", "wb").write(b"not a profile")
open(f"{sys.argv[2]}/junk2.pb.gz", "wb").write(raw[:40])
PY
m=$W/many
files=("$m/none0.pb.gz")
for i in $(seq 1 40); do files+=("$m/c$(printf %03d "$i").pb.gz"); done
files+=("$m/junk1.pb.gz")
for i in $(seq 41 64); do files+=("$m/c$(printf %03d "$i").pb.gz"); done
for i in $(seq 1 130); do files+=("$m/none$i.pb.gz"); done
for i in $(seq 65 80); do files+=("$m/c$(printf %03d "$i").pb.gz"); done
files+=("$m/junk2.pb.gz")
pg_sql "delete from t_kill; insert into t_kill values (decode('$(sha "$m/c010.pb.gz")', 'hex'), 'backend');
create trigger t_kill before insert on msamp_profile for each row execute function t_kill();"
push many "${files[@]}"
{
  echo "drain push: $m/none0.pb.gz: No such file or directory"
  echo "drain push: $m/junk1.pb.gz: BAD"
  echo "drain push: $m/c010.pb.gz: storing it: BAD"
  for i in $(seq 1 130); do echo "drain push: $m/none$i.pb.gz: No such file or directory"; done
  echo "drain push: $m/junk2.pb.gz: BAD"
  echo "drain push: 79 profiles stored, 0 already there, 134 not pushed"
} >"$W/many.want"
sed -E 's/(junk[12].pb.gz: |storing it: ).*/\1BAD/' "$W/many.err" >"$W/many.got"
n=$(pg_sql "select count(*) from msamp_profile")
[ $rc = 1 ] && cmp -s "$W/many.want" "$W/many.got" && [ "$n" = 86 ] &&
  ok "213 files over 2 batches read ahead: each named in order, 79 stored: $(sed -n 3p "$W/many.err" | cut -c1-120)" ||
  { fail "many files read ahead: exit $rc, $n profiles stored (want 86)"; diff "$W/many.want" "$W/many.got" | head; }
# The server stopped on c010 (the second batch read ahead meanwhile): the first batch's files
# left and every file after named "not pushed", in order; the rows read ahead freed (ASan).
pg_sql "update t_kill set how = 'server'"
push manydown "${files[@]}"
{
  echo "drain push: $m/none0.pb.gz: No such file or directory"
  echo "drain push: $m/junk1.pb.gz: BAD"
  echo "drain push: $m/c010.pb.gz: storing it: BAD"
  for f in "${files[@]:1:9}" "${files[@]:11}"; do [ "${f##*/}" = junk1.pb.gz ] || echo "drain push: $f: not pushed: CONN"; done
  echo "drain push: 0 profiles stored, 0 already there, 213 not pushed"
} >"$W/manydown.want"
# (the file after c010 may be named with the connection closed on it, as p2 above: taken as "not
# pushed")
grep -v $'^\t' "$W/manydown.err" | sed -E 's/(c010.pb.gz: storing it: ).*/\1BAD/; t
  s/(not pushed|storing it): .*/not pushed: CONN/; t; s/(junk[12].pb.gz: ).*/\1BAD/' >"$W/manydown.got"
[ $rc = 1 ] && cmp -s "$W/manydown.want" "$W/manydown.got" &&
  ok "the server stopped in the first of 2 batches: each file left named in order" ||
  { fail "the server stopped in the first batch: exit $rc"; diff "$W/manydown.want" "$W/manydown.got" | head; }
pg_restart
pg_sql "drop trigger t_kill on msamp_profile"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$D" push --db "host=127.0.0.1 port=$port user=postgres dbname=postgres connect_timeout=5" "${files[@]}" 2>"$W/nodb.err"; rc=$?
{ for f in "${files[@]}"; do echo "drain push: $f: not pushed: CONN"; done # (the reason's 2nd line out)
  echo "drain push: 0 profiles stored, 0 already there, 213 not pushed"; } >"$W/nodb.want"
[ $rc = 1 ] && grep -q "not pushed: cannot connect" "$W/nodb.err" &&
  grep -v $'^\t' "$W/nodb.err" | sed -E 's/(not pushed: ).*/\1CONN/' | cmp -s - "$W/nodb.want" &&
  ok "no server: each of 213 files named \"not pushed\" in order, none read" ||
  { fail "no server: exit $rc"; grep -v $'^\t' "$W/nodb.err" | sed -E 's/(not pushed: ).*/\1CONN/' | diff "$W/nodb.want" - | head; }
[ $nfail = 0 ] || { echo "FAIL: $nfail"; exit 1; }
echo "all ok"
