# Sourced by tests/fleet/*.sh: starts a scratch PostgreSQL server (initdb in a scratch folder,
# 127.0.0.1 only, a free port, its socket in the folder; as the postgres user when run as root),
# stopped by pg_stop (the callers' trap). Sets PG_DIR, PG_PORT, PG_CONN (the superuser's
# connection string, trust auth over the socket) and PG_BIN. With CI=true a missing server fails.
pg_bin() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
  done
  return 1
}
# pg_as CMD...: runs CMD as the server's owner
pg_as() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
pg_start() {
  PG_BIN=$(pg_bin) || {
    if [ "${CI:-}" = true ]; then echo "FAIL: no PostgreSQL server (/usr/lib/postgresql/*/bin): ci/deps.sh test installs postgresql"; exit 1; fi
    echo "SKIP: no PostgreSQL server (/usr/lib/postgresql/*/bin; ci/deps.sh test installs postgresql)"; exit 77
  }
  PG_DIR=$(mktemp -d /tmp/msamp-pg.XXXXXX)
  chmod 755 "$PG_DIR"
  [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
  pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres -A trust --no-sync >"$PG_DIR/initdb.log" 2>&1 ||
    { echo "FAIL: initdb: $(tail -3 "$PG_DIR/initdb.log")"; exit 1; }
  PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  # password auth for TCP (the wrong-password check), trust on the scratch socket
  printf 'local all all trust\nhost all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n' |
    pg_as tee "$PG_DIR/data/pg_hba.conf" >/dev/null
  pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 start \
    -o "-c listen_addresses=127.0.0.1 -k $PG_DIR -p $PG_PORT -c fsync=off" >/dev/null ||
    { echo "FAIL: the PostgreSQL server did not start: $(tail -5 "$PG_DIR/server.log")"; exit 1; }
  PG_CONN="host=$PG_DIR port=$PG_PORT user=postgres dbname=postgres"
}
pg_stop() {
  [ -n "${PG_DIR:-}" ] || return 0
  [ -f "$PG_DIR/data/postmaster.pid" ] && pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1
  rm -rf "$PG_DIR"
}
# psql as the superuser
pg_sql() { "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 "$PG_CONN" -c "$1"; }
# pg_restart VAR=VALUE...: restarts the server with these in its environment (t_fleet.sh's full
# disk: LD_PRELOAD of a shim), on the same port and folder
pg_restart() {
  pg_as env "$@" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 -m fast restart >/dev/null ||
    { echo "FAIL: the PostgreSQL server did not restart: $(tail -5 "$PG_DIR/server.log")"; exit 1; }
}
# pg_sql_db CONNINFO SQL: psql on another database
pg_sql_db() { "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 "$1" -c "$2"; }
# pg_test: a fleet test's start (t_fleet.sh, t_reset.sh): ok and fail counting failures in nfail,
# $W made afresh, the server started (and stopped at exit)
pg_test() {
  nfail=0
  ok() { echo "ok: $*"; }
  fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
  rm -rf "$W" && mkdir -p "$W"
  trap pg_stop EXIT
  pg_start
}
# pg_bench NAME: a fleet bench's start (bench_push.sh, bench_fleet.sh): $SRC there (else NAME says
# so, exit 1), $W made afresh, the server started (and stopped at exit)
pg_bench() {
  [ -f "$SRC" ] || { echo "$1: $SRC missing (make test-budgets makes it)"; exit 1; }
  rm -rf "$W" && mkdir -p "$W"
  trap pg_stop EXIT
  pg_start
}
