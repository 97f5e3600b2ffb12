#!/usr/bin/env bash
# The fleet store's benchmark (docs/FLEET.md "Sizing"), not a gating test: PROFILES distinct
# profiles of 1000 sites each (build/budgets' sites.pb.gz, 1000 sites, its gzip header's MTIME
# varied so each file's bytes, hence its SHA-256, differ; all carry the source's labels, one device), pushed in
# batches of BATCH files per drain push, into a scratch PostgreSQL server; then the queries over
# all of them. Prints push time per profile, query times (top twice: by the rollups, and by the full
# scan of the site rows with the rollups set aside, whose output must be the same), and the
# database's bytes per profile, per site row and of the rollups (pg_total_relation_size of the
# tables' partitions after VACUUM).
# FILL=sql builds the store without pushing all (10^5 pushed take hours): the source pushed once,
# then PROFILES copies of its rows made by SQL (tests/fleet/fill.sql: other devices, ids, times and
# SHA-256, the same file bytes and site rows; DEVICES devices, PER_DAY profiles a device-day, so
# PROFILES / PER_DAY buckets of PER_DAY each), the source's rows removed, the buckets and rollups
# computed (each copy's sites are the source's: a bucket's sums are the source's times its
# profiles), and SITES=0 leaves the copies' site rows out (top and merge of all read none: every
# bucket whole). One bucket's merged profile made by fleet merge, then copied to every bucket (their
# files are the same bytes in the same order: the same merged profile). Then the queries; merge
# twice before the copy in push mode (the first makes the merged profiles). FULL=0 leaves out the
# top by the full scan (minutes at 10^4 profiles); EXACT=0 merge --exact.
set -u
D=${DRAIN:?} W=${W:?}
PROFILES=${PROFILES:-10000} BATCH=${BATCH:-200} FILL=${FILL:-push}
DEVICES=${DEVICES:-10} PER_DAY=${PER_DAY:-100} SITES=${SITES:-1}
SRC=${SRC:-build/budgets/sites.pb.gz}
T=$(dirname "$0")
. "$T/pg.sh"
pg_bench bench-fleet
mkdir -p "$W/p"
[ "$FILL" = sql ] && np=$((1 + ${PUSH_N:-200})) || np=$PROFILES
python3 - "$SRC" "$W/p" "$np" <<'PY'
import sys
src, out, n = open(sys.argv[1], "rb").read(), sys.argv[2], int(sys.argv[3])
assert src[:2] == b"\x1f\x8b"
for i in range(n):
    b = bytearray(src); b[4:8] = (i + 1).to_bytes(4, "little")
    open(f"{out}/p{i:06d}.pb.gz", "wb").write(b)
PY
"$D" push --db "$PG_CONN" "$W/p/p000000.pb.gz" 2>/dev/null || exit 1
sites=$(pg_sql "select count(*) from msamp_site")
t0=$(date +%s.%N)
if [ "$FILL" = sql ]; then
  "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -v n="$PROFILES" -v devices="$DEVICES" -v per_day="$PER_DAY" \
    -v sites="$SITES" "$PG_CONN" -f "$T/fill.sql" >"$W/fill.out" 2>&1 || { tail -5 "$W/fill.out"; exit 1; }
  b=$(pg_sql "select device || ' ' || day * 86400 || ' ' || (day + 1) * 86400 - 1 from msamp_bucket order by id limit 1")
  set -- $b
  "$D" fleet --db "$PG_CONN" merge "$W/one.pb.gz" --device "$1" --since "$2" --until "$3" 2>"$W/one.err" || { cat "$W/one.err"; exit 1; }
  pg_sql "insert into msamp_merged select b.device, b.id, b.gen, m.drain, b.profiles, m.peaks, m.bytes from msamp_bucket b, msamp_merged m where b.profiles = m.profiles on conflict do nothing"
else
  ls "$W/p"/*.pb.gz | tail -n +2 | xargs -n "$BATCH" "$D" push --db "$PG_CONN" 2>"$W/push.err" || { tail -3 "$W/push.err"; exit 1; }
fi
t1=$(date +%s.%N)
n=$(pg_sql "select count(*) from msamp_profile")
rows=$(pg_sql "select count(*) from msamp_site")
pg_sql "vacuum analyze" >/dev/null
q() { local s e; s=$(date +%s.%N); "$D" fleet --db "$PG_CONN" "$@" >/dev/null 2>&1 || echo "query $* failed"; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f\n", e - s }'; }
tm0=$(q merge "$W/all0.pb.gz")
tm=$(q merge "$W/all.pb.gz")
tmx="not run" tmk="not run"
if [ "${EXACT:-1}" = 1 ]; then
  tmx="$(q merge "$W/allx.pb.gz" --exact) s"
  # the merged profiles set aside: the merge that makes every bucket's
  pg_sql "create table t_mg as select * from msamp_merged; delete from msamp_merged"
  tmk="$(q merge "$W/allk.pb.gz") s"
  pg_sql "delete from msamp_merged; insert into msamp_merged select * from t_mg; drop table t_mg"
  cmp -s "$W/allk.pb.gz" "$W/all.pb.gz" || tmk="$tmk, DIFFERENT from the kept ones' (a bug)"
fi
tt=$(q top --top 20 --json "$W/top.json")
# the same top by the full scan (schema 4's rollups set aside: every profile's site rows), the
# baseline in the same run; its output must be the rollups'
if [ "$SITES" = 1 ] && [ "${FULL:-1}" = 1 ]; then
  pg_sql "create table t_bk as select * from msamp_bucket; delete from msamp_bucket"
  tf=$(q top --top 20 --json "$W/top_full.json")
  pg_sql "insert into msamp_bucket select * from t_bk; drop table t_bk"
  cmp -s "$W/top.json" "$W/top_full.json" && same="the same sites and sums" || same="DIFFERENT (a bug)"
else
  tf=0 same="not run (SITES=0: no site rows of the copies, or FULL=0)"
fi
# merge by the buckets' merged profiles against --exact (canon.py: the same samples and comments)
if [ -f "$W/allx.pb.gz" ]; then
  [ "$(python3 "$T/canon.py" "$W/all.pb.gz")" = "$(python3 "$T/canon.py" "$W/allx.pb.gz")" ] &&
    msame="the same as --exact's (canon.py)" || msame="DIFFERENT from --exact's (a bug)"
else msame="--exact not run"; fi
nbk=$(pg_sql "select count(*) from msamp_bucket")
td=$(q devices)
tl=$(q leaks)
tm1=$(q merge "$W/last.pb.gz" --since "$(pg_sql "select extract(epoch from max(t_end)) from msamp_profile")")
# the tables are partitioned (schema version 3): their partitions' sizes, indexes included
size() { pg_sql "select coalesce(sum(pg_total_relation_size(relid)), 0) from pg_partition_tree('$1')"; }
prof_b=$(size msamp_profile)
site_b=$(size msamp_site)
roll_b=$(pg_sql "select pg_total_relation_size('msamp_rollup') + pg_total_relation_size('msamp_bucket') + pg_total_relation_size('msamp_stack') + pg_total_relation_size('msamp_tset')")
roll_n=$(pg_sql "select count(*) from msamp_rollup")
file_b=$(stat -c %s "$SRC")
# FILL=sql: the push rate into the filled store, PUSH_N more files (the source's time: one bucket)
if [ "$FILL" = sql ]; then
  p0=$(date +%s.%N)
  ls "$W/p"/*.pb.gz | tail -n +2 | xargs -n "$BATCH" "$D" push --db "$PG_CONN" 2>"$W/push.err" || { tail -3 "$W/push.err"; exit 1; }
  p1=$(date +%s.%N)
  pushed="  push into the filled store: $(awk -v a="$p0" -v b="$p1" -v n="${PUSH_N:-200}" 'BEGIN { printf "%.1f ms per profile, %.1f profiles a second", (b - a) * 1000 / n, n / (b - a) }') (${PUSH_N:-200} files, batches of $BATCH files per drain push)"
fi
echo "bench-fleet: $n profiles of $sites sites ($rows site rows, $nbk buckets), source $(basename "$SRC") ($file_b bytes gzip)"
if [ "$FILL" = sql ]; then
  echo "  filled by SQL (tests/fleet/fill.sql: $DEVICES devices, $PER_DAY profiles a device-day, site rows $([ "$SITES" = 1 ] && echo made || echo left out)) in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
  echo "$pushed"
else
  echo "  push: $(awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "%.1f", (b - a) * 1000 / (n - 1) }') ms per profile (batches of $BATCH files per drain push)"
fi
echo "  fleet merge of all: $tm0 s (first), $tm s (again: the buckets' merged profiles), every bucket's made: $tmk; --exact: $tmx; $msame"
echo "  top: $tt s; devices: $td s; leaks: $tl s; merge --since (one time): $tm1 s"
echo "  top by the full scan of the site rows: $tf s ($(awk -v a="$tf" -v b="$tt" 'BEGIN { printf "%.1f", a / (b > 0 ? b : 0.01) }')x the rollups' time; $same)"
echo "  msamp_profile: $prof_b bytes ($((prof_b / n)) per profile, the file's bytes included)"
echo "  msamp_site: $site_b bytes ($((site_b / (rows > 0 ? rows : 1))) per site row, indexes included)"
echo "  rollups: $roll_b bytes ($roll_n rollup rows: msamp_bucket, msamp_rollup, msamp_stack and msamp_tset, indexes included)"
