/*
 * drain fleet (docs/FLEET.md): its command line (a query, the selection's filters), the store
 * opened and the times checked by the server, then the query: merge (merged.c: merge.c on the
 * buckets' merged profiles and the selection's other stored files), prune (old profiles removed,
 * their month's partitions dropped whole), or a
 * query printing tables (top, devices, leaks: queries.h). The rest of the store: pq.c (libpq),
 * schema.c, push.c (drain push), query.c (the selection, the queries' loop).
 */
#include "fleet/fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/merged.h"
#include "fleet/pq.h"
#include "fleet/queries.h"
#include "fleet/query.h"
#include "fleet/schema.h"
#include "util.h"

/* prune --before T: the profiles whose t_end is before T go, with their sites and leaks: each
 * month's partitions that end at or before T are dropped whole (DROP TABLE: no row by row
 * delete, no dead rows left), then the rest of them (the month T falls in, the DEFAULT
 * partition) deleted, and the rollups of the buckets that held any rebuilt from the rows left
 * (msamp_rollup_rebuild). One transaction, under the schema's advisory lock (no partition is made
 * meanwhile). */
static int fleet_prune(PGconn *c, struct sel *s, const char *before, char *err, size_t errlen)
{
    struct buf q = {0}, t = {0};
    PGresult *parts = NULL;
    time_sql(&t, add_param(s, before));
    if (db_cmd(c, "BEGIN", "begin", err, errlen) != 0 ||
        db_cmd(c, FLEET_LOCK_SQL, "lock", err, errlen) != 0)
        goto fail;
    buf_printf(&q, "SELECT substr(c.relname, 16) FROM pg_inherits i JOIN pg_class c"
              " ON c.oid = i.inhrelid WHERE i.inhparent = 'msamp_profile'::regclass"
              " AND CASE WHEN c.relname ~ '^msamp_profile_p[0-9]{6}$' THEN ((to_date("
              "substr(c.relname, 16), 'YYYYMM') + interval '1 month')::timestamp AT TIME ZONE"
              " 'UTC') <= %s END ORDER BY 1",
              buf_cstr(&t));
    parts = sel_query(c, s, buf_cstr(&q), err, errlen);
    buf_free(&q);
    long long dropped = 0, deleted = 0;
    int np = parts ? PQntuples(parts) : 0;
    for (int i = 0; parts && i < np; i++) {
        const char *m = PQgetvalue(parts, i, 0);
        char sql[512];
        snprintf(sql, sizeof(sql), "SELECT count(*) FROM msamp_profile_p%s", m);
        PGresult *r = PQexec(c, sql);
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            db_err(c, r, "counting a partition's profiles", err, errlen);
            goto fail;
        }
        dropped += atoll(PQgetvalue(r, 0, 0));
        PQclear(r);
        snprintf(sql, sizeof(sql), "DROP TABLE msamp_leak_p%s, msamp_site_p%s, msamp_profile_p%s",
                 m, m, m);
        if (db_cmd(c, sql, "dropping a partition", err, errlen) != 0)
            goto fail;
    }
    q = (struct buf){0};
    buf_printf(&q, "WITH l AS (DELETE FROM msamp_leak WHERE t_end < %s),"
              " s AS (DELETE FROM msamp_site WHERE t_end < %s),"
              " d AS (DELETE FROM msamp_profile WHERE t_end < %s RETURNING 1)"
              " SELECT count(*) FROM d", buf_cstr(&t), buf_cstr(&t), buf_cstr(&t));
    PGresult *r = parts ? sel_query(c, s, buf_cstr(&q), err, errlen) : NULL;
    buf_free(&q);
    if (!r)
        goto fail;
    deleted = atoll(PQgetvalue(r, 0, 0));
    PQclear(r);
    /* the rollups of the buckets that held pruned profiles: rebuilt from the rows left; their
     * merged profiles dropped, their gen moved on (one made meanwhile from the rows before is
     * stale) */
    q = (struct buf){0};
    buf_printf(&q, "WITH g AS (UPDATE msamp_bucket SET gen = gen + 1 WHERE t_end_min < %s"
               " RETURNING device, id) DELETE FROM msamp_merged m USING g WHERE m.device = g.device"
               " AND m.bucket = g.id RETURNING 1", buf_cstr(&t));
    r = sel_query(c, s, buf_cstr(&q), err, errlen);
    buf_free(&q);
    if (!r)
        goto fail;
    PQclear(r);
    q = (struct buf){0};
    buf_printf(&q, "SELECT msamp_rollup_rebuild(array_agg(id)) FROM msamp_bucket WHERE t_end_min < %s",
               buf_cstr(&t));
    r = sel_query(c, s, buf_cstr(&q), err, errlen);
    buf_free(&q);
    if (!r)
        goto fail;
    PQclear(r);
    if (db_cmd(c, "COMMIT", "commit", err, errlen) != 0)
        goto fail;
    printf("drain fleet prune: %d month partitions dropped (%lld profiles), %lld profiles deleted"
           " from the others; the profiles ending at or after %s kept\n", np, dropped, deleted,
           before);
    PQclear(parts);
    buf_free(&t);
    return 0;
fail:
    PQclear(parts);
    buf_free(&t);
    PQclear(PQexec(c, "ROLLBACK"));
    return -1;
}

static const char fleet_usage[] =
    "usage: drain fleet --db CONNINFO merge OUT.pb.gz [--exact] [FILTER]...\n"
    "       drain fleet --db CONNINFO top|devices|leaks [--json FILE] [--top N] [FILTER]...\n"
    "       drain fleet --db CONNINFO prune --before T\n"
    "Queries the profiles drain push stored. FILTER: --device D (repeatable), --build-id B,\n"
    "--since T, --until T (seconds since the epoch or a timestamp), --label K=V (repeatable).\n"
    "prune removes the profiles that end before T (their month's partitions dropped whole).\n"
    "See docs/FLEET.md.\n";

/* The queries that print tables, by name. */
static const struct fleet_query *table_query(const char *cmd)
{
    static const struct {
        const char *name;
        const struct fleet_query *q;
    } tables[] = {{"top", &fleet_top_query}, {"devices", &fleet_devices_query},
                  {"leaks", &fleet_leaks_query}};
    for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
        if (strcmp(cmd, tables[t].name) == 0)
            return tables[t].q;
    return NULL;
}

/* The options from argv[i] on (the filters; --json and --top but after merge's OUT) into s: -1 to
 * go on, else 2 after a usage error (said). */
static int sel_args(int argc, char **argv, int i, int merge, struct sel *s)
{
    double ntop = 20;
    for (; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--exact") == 0 && merge) { /* a flag: no value */
            s->exact = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "drain fleet: %s needs a value\n", o);
            return 2;
        }
        i++;
        if (strcmp(o, "--device") == 0 && s->ndevice < MAX_FILTERS)
            s->device[s->ndevice++] = v;
        else if (strcmp(o, "--build-id") == 0)
            s->build = v;
        else if (strcmp(o, "--since") == 0)
            s->since = v;
        else if (strcmp(o, "--until") == 0)
            s->until = v;
        else if (strcmp(o, "--label") == 0 && s->nlabel < MAX_FILTERS && strchr(v, '='))
            s->label[s->nlabel++] = v;
        else if (strcmp(o, "--json") == 0 && !merge)
            s->json = v;
        else if (strcmp(o, "--top") == 0 && !merge && parse_num(v, 1, 1e9, &ntop) == 0)
            ;
        else {
            fprintf(stderr, "drain fleet: bad option %s %s\n%s", o, v, fleet_usage);
            return 2;
        }
    }
    s->ntop = (long)ntop;
    return -1;
}

/* The query's own words (merge OUT, prune --before T, or a table's name), then the options:
 * -1 to go on, else the exit status (2 after a usage error, said). */
static int fleet_args(int argc, char **argv, struct sel *s)
{
    const char *cmd = argv[3];
    int i = 4;
    if (strcmp(cmd, "merge") == 0) {
        if (argc < 5) {
            fputs(fleet_usage, stderr);
            return 2;
        }
        i++;
    } else if (strcmp(cmd, "prune") == 0) {
        if (argc != 6 || strcmp(argv[4], "--before") != 0) {
            fputs(fleet_usage, stderr);
            return 2;
        }
        i = argc;
    } else if (!table_query(cmd)) {
        fprintf(stderr, "drain fleet: unknown query '%s'\n%s", cmd, fleet_usage);
        return 2;
    }
    return sel_args(argc, argv, i, strcmp(cmd, "merge") == 0, s);
}

/* The query cmd over the selection (its times checked first: one the server does not read is bad
 * input, exit 2, named): 0, 2, or -1 with err. */
static int fleet_run(PGconn *c, char **argv, struct sel *s, char *err, size_t errlen)
{
    const char *cmd = argv[3];
    const char *before = strcmp(cmd, "prune") == 0 ? argv[5] : NULL;
    const char *topt[3] = {"--since", "--until", "--before"};
    const char *tval[3] = {s->since, s->until, before};
    int rc = 0;
    for (int t = 0; t < 3 && rc == 0; t++)
        rc = tval[t] ? time_check(c, topt[t], tval[t], err, errlen) : 0;
    if (rc != 0)
        return rc;
    if (strcmp(cmd, "merge") == 0)
        return fleet_merge(c, s, argv[4], s->exact, err, errlen);
    if (before)
        return fleet_prune(c, s, before, err, errlen);
    return fleet_query_run(c, s, table_query(cmd), err, errlen);
}

int drain_fleet(int argc, char **argv)
{
    int head = db_head(argc, argv, fleet_usage);
    if (head >= 0)
        return head;
    struct sel s;
    memset(&s, 0, sizeof(s));
    int bad = fleet_args(argc, argv, &s);
    if (bad >= 0)
        return bad;
    sel_build(&s);
    char err[1024];
    PGconn *c = db_open(argv[2], err, sizeof(err));
    int rc = c && db_schema(c, 0, err, sizeof(err)) == 0 ? 0 : -1;
    if (rc == 0)
        rc = fleet_run(c, argv, &s, err, sizeof(err));
    if (rc != 0)
        fprintf(stderr, "drain fleet %s: %s\n", argv[3], err);
    PQfinish(c);
    buf_free(&s.where);
    buf_free(&s.where_st);
    return rc == 0 ? 0 : rc == 2 ? 2 : 1;
}
