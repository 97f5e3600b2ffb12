#!/usr/bin/env bash
# The fleet store's benchmark (docs/FLEET.md "Sizing"), not a gating test: PROFILES distinct
# profiles of 1000 sites each (build/budgets' sites.pb.gz, 1000 sites, its gzip header's MTIME
# varied so each file's bytes, hence its SHA-256, differ; all carry the source's labels, one device), pushed in
# batches of BATCH files per drain push, into a scratch PostgreSQL server; then the queries over
# all of them. Prints push time per profile, query times (top twice: by the rollups, and by the full
# scan of the site rows with the rollups set aside, whose output must be the same), and the
# database's bytes per profile, per site row and of the rollups (pg_total_relation_size of the
# tables' partitions after VACUUM).
set -u
D=${DRAIN:?} W=${W:?}
PROFILES=${PROFILES:-10000} BATCH=${BATCH:-200}
SRC=${SRC:-build/budgets/sites.pb.gz}
T=$(dirname "$0")
. "$T/pg.sh"
[ -f "$SRC" ] || { echo "bench-fleet: $SRC missing (make test-budgets makes it)"; exit 1; }
rm -rf "$W" && mkdir -p "$W/p"
trap pg_stop EXIT
pg_start
python3 - "$SRC" "$W/p" "$PROFILES" <<'PY'
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
ls "$W/p"/*.pb.gz | tail -n +2 | xargs -n "$BATCH" "$D" push --db "$PG_CONN" 2>"$W/push.err" || { tail -3 "$W/push.err"; exit 1; }
t1=$(date +%s.%N)
n=$(pg_sql "select count(*) from msamp_profile")
rows=$(pg_sql "select count(*) from msamp_site")
pg_sql "vacuum analyze" >/dev/null
q() { local s e; s=$(date +%s.%N); "$D" fleet --db "$PG_CONN" "$@" >/dev/null 2>&1 || echo "query $* failed"; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f\n", e - s }'; }
tm=$(q merge "$W/all.pb.gz")
tt=$(q top --top 20 --json "$W/top.json")
# the same top by the full scan (schema 4's rollups set aside: every profile's site rows), the
# baseline in the same run; its output must be the rollups'
pg_sql "create table t_bk as select * from msamp_bucket; delete from msamp_bucket"
tf=$(q top --top 20 --json "$W/top_full.json")
pg_sql "insert into msamp_bucket select * from t_bk; drop table t_bk"
cmp -s "$W/top.json" "$W/top_full.json" && same="the same sites and sums" || same="DIFFERENT (a bug)"
td=$(q devices)
tl=$(q leaks)
tm1=$(q merge "$W/last.pb.gz" --since "$(pg_sql "select extract(epoch from max(t_end)) from msamp_profile")")
# the tables are partitioned (schema version 3): their partitions' sizes, indexes included
size() { pg_sql "select coalesce(sum(pg_total_relation_size(relid)), 0) from pg_partition_tree('$1')"; }
prof_b=$(size msamp_profile)
site_b=$(size msamp_site)
roll_b=$(pg_sql "select pg_total_relation_size('msamp_rollup') + pg_total_relation_size('msamp_bucket')")
roll_n=$(pg_sql "select count(*) from msamp_rollup")
file_b=$(stat -c %s "$SRC")
echo "bench-fleet: $n profiles of $sites sites ($rows site rows), source $(basename "$SRC") ($file_b bytes gzip)"
echo "  push: $(awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "%.1f", (b - a) * 1000 / (n - 1) }') ms per profile (batches of $BATCH files per drain push)"
echo "  fleet merge of all: $tm s; top: $tt s; devices: $td s; leaks: $tl s; merge --since (one time): $tm1 s"
echo "  top by the full scan of the site rows: $tf s ($(awk -v a="$tf" -v b="$tt" 'BEGIN { printf "%.1f", a / (b > 0 ? b : 0.01) }')x the rollups' time; $same)"
echo "  msamp_profile: $prof_b bytes ($((prof_b / n)) per profile, the file's bytes included)"
echo "  msamp_site: $site_b bytes ($((site_b / rows)) per site row, indexes included)"
echo "  rollups: $roll_b bytes ($roll_n rollup rows, msamp_bucket and msamp_rollup, indexes included)"
