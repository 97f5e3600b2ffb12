#!/usr/bin/env bash
# drain push's rate and the server's CPU a profile (docs/FLEET.md "Sizing"), not a gating test: two
# or more drains side by side on one scratch PostgreSQL server (tests/fleet/pg.sh), each pushing
# into its own database, so that a change is measured against the drain before it in the same run.
# DRAINS="NAME=PATH ..." (e.g. "before=/tmp/old/drain after=host_tools/drain"); SRC a profile of
# 1000 sites (build/budgets' sites.pb.gz); N files a push (PUSH_BATCH is 64: N=128 is two
# transactions). The cases, each pushed ROUNDS times (2) by each drain (in the order of DRAINS,
# reversed in even rounds, each round's files its own bytes):
#   one:  N profiles of one device and UTC day (one rollup bucket: the batch's rollup rows are one
#         upsert of 1000 rows); round 1 makes the bucket, round 2 adds to it;
#   many: N profiles of N devices (tests/fleet/strtab.py gives each its own session, hence device):
#         a bucket each (a gateway pushing for many devices); round 1 makes the N buckets, the
#         next rounds add to them (their rollup rows updated).
# Server CPU is the postmaster's reaped children's (/proc/PID/stat fields 16-17: each push's
# backend ends with its connection), drain's from bash's times.
set -u
W=${W:?} DRAINS=${DRAINS:?} SRC=${SRC:-build/budgets/sites.pb.gz} N=${N:-128}
# (the files' gzip MTIME is round * 100000 + i + 1: at most 9 rounds keep them apart)
T=$(dirname "$0")
. "$T/pg.sh"
pg_bench bench-push
pg_sql "create database probe"
first=${DRAINS%% *}
"${first#*=}" push --db "${PG_CONN/dbname=postgres/dbname=probe}" "$SRC" 2>/dev/null || { echo "bench-push: push of $SRC failed"; exit 1; }
sess=$(pg_sql_db "${PG_CONN/dbname=postgres/dbname=probe}" "select session from msamp_profile")
# files CASE ROUND: N files of the case, gzip MTIME varied (their own bytes, the same profile)
files() {
  local d="$W/$1.$2"
  mkdir -p "$d"
  python3 - "$SRC" "$d" "$N" "$2" "$1" "$sess" "$T" <<'PY'
import gzip, os, subprocess, sys
src, out, n, rnd, case, sess, t = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6], sys.argv[7]
raw = open(src, "rb").read()
for i in range(n):
    f = f"{out}/p{i:04d}.pb.gz"
    if case == "many":
        new = f"{sess[:-6]}{i:06x}" if len(sess) > 6 else f"{sess}-{i}"
        subprocess.run([sys.executable, f"{t}/strtab.py", src, f, sess, new], check=True)
        b = bytearray(open(f, "rb").read())
    else:
        b = bytearray(raw)
    b[4:8] = (rnd * 100000 + i + 1).to_bytes(4, "little")
    open(f, "wb").write(b)
PY
}
pm=$(head -1 "$PG_DIR/data/postmaster.pid")
srv() { awk '{ print $16 + $17 }' "/proc/$pm/stat"; }
tck=$(getconf CLK_TCK)
# run NAME PATH CASE ROUND: one push of the case's round's files into NAME's database
run() {
  local db="${PG_CONN/dbname=postgres/dbname=b_$1}" s0 s1 t0 t1 c0 c1
  sleep 1; s0=$(srv); t0=$(date +%s.%N)
  c0=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
  ( "$2" push --db "$db" "$W/$3.$4"/*.pb.gz 2>"$W/push.$1.$3.$4.err" ) || { echo "bench-push: $1 $3 round $4 failed: $(tail -2 "$W/push.$1.$3.$4.err")"; return 1; }
  t1=$(date +%s.%N); sleep 1; s1=$(srv)
  c1=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
  grep -q "^drain push: $N profiles stored" "$W/push.$1.$3.$4.err" || { echo "bench-push: $1 $3 round $4: $(tail -1 "$W/push.$1.$3.$4.err")"; return 1; }
  awk -v n="$N" -v a="$t0" -v b="$t1" -v s="$((s1 - s0))" -v c="$((c1 - c0))" -v k="$tck" -v what="$1 $3 round $4" \
    'BEGIN { printf "  %-28s wall %5.1f ms a profile (%5.1f a second), server CPU %4.1f ms, drain CPU %4.1f ms\n", what, (b - a) * 1000 / n, n / (b - a), s * 1000 / k / n, c * 1000 / k / n }'
}
names=() paths=()
for d in $DRAINS; do names+=("${d%%=*}"); paths+=("${d#*=}"); pg_sql "create database b_${d%%=*}"; done
echo "bench-push: $N profiles of $(basename "$SRC") a push, drains: $DRAINS (load $(cut -d' ' -f1 /proc/loadavg))"
for c in one many; do
  for r in $(seq 1 "${ROUNDS:-2}"); do
    files "$c" "$r"
    order=$(seq 0 $((${#names[@]} - 1))); [ $((r % 2)) = 0 ] && order=$(echo "$order" | tac)
    for i in $order; do run "${names[$i]}" "${paths[$i]}" "$c" "$r" || exit 1; done
  done
done
for i in "${!names[@]}"; do
  echo "  ${names[$i]}: $(pg_sql_db "${PG_CONN/dbname=postgres/dbname=b_${names[$i]}}" "select count(*) || ' profiles, ' || (select count(*) from msamp_bucket) || ' buckets, ' || (select count(*) from msamp_rollup) || ' rollup rows, ' || pg_total_relation_size('msamp_rollup') || ' rollup bytes' from msamp_profile")"
done
