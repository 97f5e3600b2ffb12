#!/usr/bin/env bash
# The rollups (docs/FLEET.md "Rollups") against the full scan, on a scratch PostgreSQL server
# (tests/fleet/pg.sh) and profiles of a generated stream (tests/drain/gen.c: no board): 4 devices
# (sessions), 2 build ids, 5 times each (the same day, hours and a day apart, 40 days back: several
# buckets, several profiles in one), pushed in three pushes (one file twice). fleet top --json
# (rollups of the buckets the selection holds whole, site rows of the rest) must equal the same
# query with no bucket (every selected profile's site rows: the full scan), for no filter, each
# filter and several together, times that cut a bucket included; again after prune cuts a bucket
# (it is rebuilt from the rows left); and on a store of schema version 3 migrated to 8 by fleet.
# Two sites' equal hashes in a bucket (made by hand) fail a push into it.
# fleet merge of each selection (the buckets' merged profiles: docs/FLEET.md "Merged buckets")
# must equal --exact's as canon.py's text, one bucket's byte for byte, and a push into a bucket
# makes its merged profile stale (made again).
set -u
D=${DRAIN:?} W=${W:?} GEN=${GEN:?}
T=$(dirname "$0")
. "$T/pg.sh"
pg_test

B1=a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3 B2=c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3
"$GEN" --sessions 4 --allocs 300 "$W/s.bin" "$W/s.truth" || fail "gen: exit $?"
"$D" -q -o "$W/d1.pb.gz" "$W/s.bin" || fail "drain: exit $?"
for k in 2 3 4; do mv "$W/d1.s$k.pb.gz" "$W/d$k.pb.gz"; done
mkdir -p "$W/p"
for k in 1 2 3 4; do
  builds=$B1; [ $k -le 2 ] && builds="$B1 $B2"
  for b in $builds; do
    if [ $b = $B1 ]; then cp "$W/d$k.pb.gz" "$W/b.pb.gz"; else python3 "$T/strtab.py" "$W/d$k.pb.gz" "$W/b.pb.gz" $B1 $B2 || fail "strtab.py"; fi
    for s in 0 -120 -18000 -86400 -3456000; do
      python3 "$T/relabel.py" "$W/b.pb.gz" "$W/p/d$k.${b:0:2}.$((-s)).pb.gz" $s || fail "relabel.py"
    done
  done
done
files=("$W"/p/*.pb.gz)
"$D" push --db "$PG_CONN" "${files[@]:0:7}" 2>"$W/push1.err" && "$D" push --db "$PG_CONN" "${files[@]:6:10}" 2>"$W/push2.err" &&
  "$D" push --db "$PG_CONN" "${files[@]:16}" 2>"$W/push3.err" || fail "push: $(cat "$W"/push*.err)"
n=$(pg_sql "select count(*) from msamp_profile") nb=$(pg_sql "select count(*) || ' ' || sum(profiles) from msamp_bucket")
[ "$n" = ${#files[@]} ] && [ "${nb#* }" = "$n" ] && [ "${nb% *}" -lt "$n" ] && [ "${nb% *}" -gt 4 ] &&
  ok "$n profiles stored in ${nb% *} buckets (several a device, several profiles in some)" ||
  fail "stored: $n profiles, buckets and their profiles: $nb"

# T1 cuts the day-0 buckets (t_end of a day-0 profile less 60 s: its bucket's profile 120 s older
# falls before); T2 likewise by t_start.
T1=$(pg_sql "select extract(epoch from max(t_end)) - 60 from msamp_profile")
T2=$(pg_sql "select extract(epoch from min(t_start)) + 60 from msamp_profile where t_end > now() - interval '3 days' and t_end < now() - interval '12 hours'")
cut=$(pg_sql "select count(*) from msamp_bucket where t_end_min < to_timestamp($T1) and t_end_max >= to_timestamp($T1)")
[ "$cut" -gt 0 ] && ok "--since $T1 cuts $cut buckets" || fail "--since $T1 cuts no bucket"
cases=("" "--device session-0x5eed0001" "--build-id $B2" "--since $T1" "--until $T2"
  "--label session=0x5eed0002" "--device session-0x5eed0000 --device session-0x5eed0001 --since $((${T1%.*} - 172800)) --until $T2"
  "--build-id $B1 --label session=0x5eed0000 --since $T1" "--since $T2 --until $T1"
  "$(pg_sql "select '--device ' || device || ' --build-id ' || build_id || ' --since ' || day * 86400 || ' --until ' || (day + 1) * 86400 - 1 from msamp_bucket order by profiles desc, id limit 1")")
# merged CONN I CASE: the case's fleet merge (the merged profiles of the buckets it holds whole, made
# or read) equals --exact's (drain merge's bytes: test-fleet-store) as canon.py's text (the same
# samples, values, comments), twice (the second reads what the first kept: the same bytes); one
# item (one bucket, or one profile) byte for byte. An empty selection fails alike.
merged() {
  local conn=$1 i=$2 c=$3 e1 e2 ex items
  # shellcheck disable=SC2086 # the case's words
  "$D" fleet --db "$conn" merge "$W/mg$i.pb.gz" $c 2>"$W/mg$i.err"; e1=$?
  # shellcheck disable=SC2086
  "$D" fleet --db "$conn" merge "$W/mh$i.pb.gz" $c 2>/dev/null; e2=$?
  # shellcheck disable=SC2086
  "$D" fleet --db "$conn" merge "$W/mx$i.pb.gz" --exact $c 2>"$W/mx$i.err"; ex=$?
  if [ $e1 != 0 ] || [ $e2 != 0 ] || [ $ex != 0 ]; then
    grep -q "no stored profile matches" "$W/mg$i.err" && grep -q "no stored profile matches" "$W/mx$i.err" && return 0
    echo "  merge $c: exit $e1 $e2 --exact $ex: $(cat "$W/mg$i.err" "$W/mx$i.err")"; return 1
  fi
  python3 "$T/canon.py" "$W/mg$i.pb.gz" >"$W/mg$i.txt" && python3 "$T/canon.py" "$W/mx$i.pb.gz" >"$W/mx$i.txt" || return 1
  cmp -s "$W/mg$i.txt" "$W/mx$i.txt" || { echo "  merge $c: differs from --exact"; diff "$W/mg$i.txt" "$W/mx$i.txt" | head -6; return 1; }
  cmp -s "$W/mg$i.pb.gz" "$W/mh$i.pb.gz" || { echo "  merge $c: the second merge's bytes differ from the first's"; return 1; }
  [ "$(grep -c '^sample' "$W/mg$i.txt")" -gt 0 ] || { echo "  merge $c: no sample"; return 1; }
  items=$(sed -n 's/.* (\([0-9]*\) buckets. merged profiles, \([0-9]*\) files)$/\1 + \2/p' "$W/mg$i.err")
  if [ -n "$items" ] && [ $((items)) = 1 ]; then
    cmp -s "$W/mg$i.pb.gz" "$W/mx$i.pb.gz" || { echo "  merge $c: one item, not --exact's bytes"; return 1; }
  fi
  return 0
}
# same CONN WHAT [EMPTY]: each case's top --json by the rollups equals the full scan's (no bucket); each case selects
# sites unless EMPTY (after prune) or it selects nothing by construction
same() {
  local conn=$1 what=$2 empty=${3:-} i=0 bad=0 c
  for c in "${cases[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086 # the case's words
    "$D" fleet --db "$conn" top --top 1000 --json "$W/r$i.json" $c >/dev/null 2>"$W/r$i.err" || { bad=1; echo "  top $c: $(cat "$W/r$i.err")"; }
    pg_sql_db "$conn" "create table t_bk as select * from msamp_bucket; delete from msamp_bucket"
    # shellcheck disable=SC2086
    "$D" fleet --db "$conn" top --top 1000 --json "$W/f$i.json" $c >/dev/null 2>"$W/f$i.err" || { bad=1; echo "  top $c: $(cat "$W/f$i.err")"; }
    pg_sql_db "$conn" "insert into msamp_bucket select * from t_bk; drop table t_bk"
    if ! cmp -s "$W/r$i.json" "$W/f$i.json"; then bad=1; echo "  top $c: the rollups' differ from the full scan's"; diff "$W/r$i.json" "$W/f$i.json" | head -4; fi
    merged "$conn" "$i" "$c" || bad=1
    [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["sites"]))' "$W/f$i.json")" -gt 0 ] || [ "$c" = "--since $T2 --until $T1" ] || [ -n "$empty" ] ||
      { bad=1; echo "  top $c: no site"; }
  done
  [ $bad = 0 ] && ok "$what: top by the rollups = the full scan, fleet merge by the buckets' merged profiles = --exact, ${#cases[@]} selections" || fail "$what: top by the rollups differs from the full scan, or merge from --exact"
}
same "$PG_CONN" "stored"
grep -q "(1 buckets' merged profiles, 0 files)" "$W/mg${#cases[@]}.err" && cmp -s "$W/mg${#cases[@]}.pb.gz" "$W/mx${#cases[@]}.pb.gz" &&
  ok "merge of one bucket whole ($(sed -n 's/.*: \([0-9]*\) profiles merged.*/\1/p' "$W/mg${#cases[@]}.err") profiles): its merged profile, byte for byte --exact's" ||
  fail "merge of one bucket: $(cat "$W/mg${#cases[@]}.err")"
kept=$(pg_sql "select count(*) from msamp_merged m join msamp_bucket b on b.device = m.device and b.id = m.bucket and b.gen = m.gen")
[ "$kept" -gt 1 ] && ok "$kept buckets' merged profiles kept" || fail "buckets' merged profiles kept: $kept"
# a profile pushed into a bucket whose merged profile is kept: its gen moves on, the next merge
# makes it again (the merge still --exact's)
bk=$(pg_sql "select b.id || ' ' || b.gen from msamp_bucket b join msamp_merged m on m.device = b.device and m.bucket = b.id where b.device = 'session-0x5eed0000' and b.build_id = '$B1' order by b.day desc limit 1")
python3 "$T/relabel.py" "$W/d1.pb.gz" "$W/late.pb.gz" -60 && "$D" push --db "$PG_CONN" "$W/late.pb.gz" 2>/dev/null || fail "push late.pb.gz"
g2=$(pg_sql "select gen from msamp_bucket where id = ${bk% *}")
merged "$PG_CONN" late "--device session-0x5eed0000" && [ "$g2" = $((${bk#* } + 1)) ] &&
  [ "$(pg_sql "select gen from msamp_merged where bucket = ${bk% *}")" = "$g2" ] &&
  ok "a profile pushed into bucket ${bk% *}: gen ${bk#* } -> $g2, its merged profile made again, merge = --exact" ||
  fail "a profile pushed into bucket ${bk% *} (gen ${bk#* } -> $g2): merge"

# prune before T1 cuts the day-0 buckets (rebuilt from the rows left) and drops the older ones
"$D" fleet --db "$PG_CONN" prune --before "$T1" >/dev/null 2>"$W/prune.err" || fail "prune: $(cat "$W/prune.err")"
left=$(pg_sql "select count(*) || ' ' || (select coalesce(sum(profiles), 0) from msamp_bucket) from msamp_profile")
[ "${left% *}" = "${left#* }" ] && [ "${left% *}" -gt 0 ] && ok "prune: the buckets count the ${left% *} profiles left" || fail "prune: profiles and buckets' count: $left"
same "$PG_CONN" "after prune" "(some selections empty)"

# A stack whose hash (msamp_stack's key h) equals a stored stack's: made by hand (one stored
# stack changed, its h kept), a push bringing the original stack fails naming it (the two sites'
# rows never added together), nothing of it stored.
pg_sql "create database coll"
CO="${PG_CONN/dbname=postgres/dbname=coll}"
"$D" push --db "$CO" "$W/p/d1.a0.0.pb.gz" 2>/dev/null || fail "push into coll"
pg_sql_db "$CO" "update msamp_stack set stack = stack || '{collided}' where h = (select h from msamp_stack order by h limit 1)" >/dev/null ||
  fail "the collision made"
"$D" push --db "$CO" "$W/p/d1.a0.120.pb.gz" 2>"$W/coll.err"; rc=$?
[ $rc = 1 ] && grep -q "1 of the batch's [0-9]* stacks have the hash of another stack stored (msamp_stack's key h): not stored" "$W/coll.err" &&
  [ "$(pg_sql_db "$CO" "select count(*) || ' ' || (select profiles from msamp_bucket) || ' ' || (select count(*) from msamp_stack where 'collided' = any (stack)) from msamp_profile")" = "1 1 1" ] &&
  ok "two stacks' equal hashes: the push fails naming it, nothing stored" ||
  fail "collision: exit $rc, $(cat "$W/coll.err")"
# msamp_rollup_rebuild (what prune runs on the buckets it cuts) of every bucket of the main
# store: the same sums, type by type, as the pushes made (the site rows name their stacks by h,
# so a rebuild meets no collision)
rq="select r.device, b.build_id, b.day, s.stack, s.task, t, v from msamp_rollup r join msamp_bucket b on b.device = r.device and b.id = r.bucket join msamp_stack s on s.h = r.h, unnest(msamp_tset_types(r.tid), r.vals) x(t, v) order by 1, 2, 3, 4, 5, 6"
r0=$(pg_sql "$rq" | md5sum) n0=$(pg_sql "select count(*) from msamp_rollup")
out=$(pg_sql "select msamp_rollup_rebuild(array_agg(id)) from msamp_bucket" 2>&1); rc=$?
[ $rc = 0 ] && [ "$(pg_sql "$rq" | md5sum)" = "$r0" ] && [ "$n0" -gt 0 ] &&
  ok "every bucket rebuilt from its site rows: the same $n0 rollup rows' sums as the pushes made" ||
  fail "rebuild: exit $rc, $out, $(pg_sql "select count(*) from msamp_rollup") rows (were $n0)"

# A store of schema version 3 migrated by fleet top: made at version 3 (MSAMP_DRAIN_FLEET_SCHEMA=3),
# its months' partitions made, then the rows of the files pushed into another store (version 8)
# copied into it as version 3 keeps them (the site rows' vals as jsonb: msamp_vals).
pg_sql "create database v3"
pg_sql "create database v6"
V3="${PG_CONN/dbname=postgres/dbname=v3}"
V6="${PG_CONN/dbname=postgres/dbname=v6}"
"$D" push --db "$V6" "${files[@]}" 2>/dev/null || fail "push into v6"
MSAMP_DRAIN_FLEET_SCHEMA=3 "$D" push --db "$V3" "${files[0]}" 2>/dev/null
pg_sql_db "$V3" "select count(msamp_partition(t)) from unnest('$(pg_sql_db "$V6" "select array_agg(t_end) from msamp_profile")'::timestamptz[]) t" >/dev/null
pcols="device, id, sha256, build_id, session, kind, t_start, t_end, labels, sample_types, comments, failures, bytes, pushed, totals, heap_free, heap_min_free, heap_largest_free, heap_total"
for tc in "msamp_profile|$pcols|$pcols" "msamp_site|device, profile_id, t_end, site, stack, task, vals|s.device, s.profile_id, s.t_end, s.site, k.stack, k.task, msamp_vals(p.sample_types, s.vals) from msamp_site s join msamp_profile p on p.device = s.device and p.id = s.profile_id and p.t_end = s.t_end join msamp_stack k on k.h = s.h" "msamp_leak|device, profile_id, t_end, site, slope, slope_var, since_s|device, profile_id, t_end, site, slope, slope_var, since_s"; do
  IFS='|' read -r tb to from <<<"$tc"
  [ "$tb" = msamp_site ] || from="$from from $tb"
  "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$V6" -c "\\copy (select $from) to stdout" |
    "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$V3" -c "\\copy $tb ($to) from stdin" || fail "copy $tb into the version 3 store"
done
pg_sql_db "$V3" "select setval('msamp_profile_id_seq', (select max(id) from msamp_profile))" >/dev/null
v=$(pg_sql_db "$V3" "select max(version) from msamp_schema")
"$D" fleet --db "$V3" top >/dev/null 2>"$W/mig.err"; rc=$?
v4=$(pg_sql_db "$V3" "select max(version) || ' ' || (select count(*) from msamp_bucket) from msamp_schema")
[ "$v" = 3 ] && [ $rc = 0 ] && [ "$v4" = "8 ${nb% *}" ] && ok "version 3 store migrated to 8 by fleet top: $v4" ||
  fail "migration 3 -> 8: version $v, exit $rc, then $v4, $(cat "$W/mig.err")"
same "$V3" "migrated from version 3"

[ $nfail = 0 ] && echo "fleet rollups: all ok" || { echo "fleet rollups: $nfail failed"; exit 1; }
