/*
 * drain push (docs/FLEET.md): each profile file's bytes stored with what selects it (device, build
 * id, session, kind, time range, labels), its totals and heap figures, a per-site rollup (the
 * symbolized stack, the task, every sample type's value by name, so variance types are kept as
 * well) and the leak verdicts drain stored in it. A profile is stored once (its SHA-256), in one
 * transaction; the month's partitions are made first (msamp_partition, schema.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "fleet/pq.h"
#include "fleet/push_row.h"
#include "fleet/schema.h"
#include "util.h"

static const char push_usage[] =
    "usage: drain push --db CONNINFO PROFILE...\n"
    "Stores pprof profiles (drain's) in PostgreSQL: CONNINFO is a libpq connection string or URI.\n"
    "A profile already stored (the same bytes) is stored once. See docs/FLEET.md.\n";

static const char sql_profile[] =
    "WITH p AS (INSERT INTO msamp_profile (device, build_id, session, kind, t_start, t_end,"
    " labels, sample_types, comments, failures, bytes, sha256, totals, heap_free,"
    " heap_min_free, heap_largest_free, heap_total)"
    " VALUES ($1, $2, $3, $4, to_timestamp($5::numeric / 1e9), to_timestamp($6::numeric / 1e9),"
    " $7::text[], $8::text[], $9::text[], $10::bigint, $11::bytea, sha256($11::bytea),"
    " $12::jsonb, $13::bigint, $14::bigint, $15::bigint, $16::bigint)"
    " ON CONFLICT (device, sha256, t_end) DO NOTHING"
    " RETURNING device, id, build_id, labels, t_start, t_end),"
    " b AS (INSERT INTO msamp_bucket AS o (device, build_id, labels, day, profiles, t_start_min,"
    " t_start_max, t_end_min, t_end_max) SELECT device, build_id, labels, msamp_day(t_end), 1,"
    " t_start, t_start, t_end, t_end FROM p ON CONFLICT (device, build_id, labels, day) DO UPDATE"
    " SET profiles = o.profiles + 1, gen = o.gen + 1, t_start_min = least(o.t_start_min, EXCLUDED.t_start_min),"
    " t_start_max = greatest(o.t_start_max, EXCLUDED.t_start_max),"
    " t_end_min = least(o.t_end_min, EXCLUDED.t_end_min),"
    " t_end_max = greatest(o.t_end_max, EXCLUDED.t_end_max) RETURNING id)"
    " SELECT p.id, p.t_end, b.id, ((extract(epoch FROM p.t_end) - 946684800) * 1000000)::bigint"
    " FROM p, b";
static const char sql_leaks[] =
    "INSERT INTO msamp_leak (device, profile_id, t_end, site, slope, slope_var, since_s)"
    " SELECT $1, $2::bigint, $4::timestamptz, (e->>'i')::int, (e->>'slope')::float8,"
    " (e->>'var')::float8, (e->>'since')::float8 FROM jsonb_array_elements($3::jsonb) e"
    " ON CONFLICT DO NOTHING";
/* The month's partitions (made once, in their own transaction: msamp_partition). */
static const char sql_part[] = "SELECT msamp_partition(to_timestamp($1::numeric / 1e9))";
/* The batch's stacks (msamp_stack_in: h computed by the server, as schema version 7 computed it)
 * added to msamp_stack (schema version 8: one row a stack and task, by h), in the order of h (two
 * pushes bringing the same new stacks wait for each other, never deadlock); then each one's h, by
 * its number, and whether the stack stored under its h is another (a 64-bit hash's collision:
 * the push fails, never joins two sites). */
static const char sql_stacks[] =
    "INSERT INTO msamp_stack (h, stack, task) SELECT h, stack, task FROM msamp_stack_in"
    " ORDER BY h ON CONFLICT (h) DO NOTHING;"
    "SELECT i.h, s.stack <> i.stack OR s.task <> i.task FROM msamp_stack_in i"
    " JOIN msamp_stack s ON s.h = i.h ORDER BY i.sid";
/* The batch's sets of types added to msamp_tset (in order, as the stacks), then its rollup rows
 * (summed by push) added to the stored ones of their key (device, bucket, h); store_rollup writes
 * the sum of rows of the same types (the usual case) inline for each count of types the batch
 * has (rollup_sql); rows of other types are added by type name. */
static const char sql_rollup_head[] =
    "INSERT INTO msamp_tset (types) SELECT types FROM msamp_types_in ORDER BY types"
    " ON CONFLICT (types) DO NOTHING;"
    "INSERT INTO msamp_rollup AS o (device, bucket, h, tid, vals)"
    " SELECT r.device, r.bucket, r.h, g.tid, r.vals FROM msamp_rollup_in r"
    " JOIN msamp_types_in t ON t.tid = r.tid JOIN msamp_tset g ON g.types = t.types"
    " ON CONFLICT (device, bucket, h) DO UPDATE"
    " SET tid = CASE WHEN o.tid = EXCLUDED.tid THEN o.tid ELSE msamp_tset_id(msamp_types_add("
    "msamp_tset_types(o.tid), msamp_tset_types(EXCLUDED.tid))) END,"
    " vals = CASE WHEN o.tid <> EXCLUDED.tid THEN msamp_rvals_add(msamp_tset_types(o.tid), o.vals,"
    " msamp_tset_types(EXCLUDED.tid), EXCLUDED.vals)";

static int push_prepare(PGconn *c, char *err, size_t errlen)
{
    static const char *const name[3] = {"msamp_profile", "msamp_leaks", "msamp_part"};
    const char *const sql[3] = {sql_profile, sql_leaks, sql_part};
    const int nparam[3] = {16, 4, 1};
    for (int i = 0; i < 3; i++) {
        PGresult *r = PQprepare(c, name[i], sql[i], nparam[i], NULL);
        if (PQresultStatus(r) != PGRES_COMMAND_OK)
            return db_err(c, r, "preparing push's statements", err, errlen);
        PQclear(r);
    }
    /* temp_buffers before the first temporary table (a batch's rows, 64 000 of them, in memory,
     * not written out and read back); no JIT (7-8 ms of compiling a batch's upsert, which runs
     * for about as long again) */
    return db_cmd(c, "SET temp_buffers = '64MB'; SET jit = off;"
                  "CREATE TEMP TABLE msamp_rollup_in (device text, bucket bigint, h bigint,"
                  " tid int, vals bigint[]) ON COMMIT DELETE ROWS;"
                  "CREATE TEMP TABLE msamp_stack_in (sid int, stack text[], task text, h bigint"
                  " GENERATED ALWAYS AS " MSAMP_STACK_H("stack", "task") " STORED)"
                  " ON COMMIT DELETE ROWS;"
                  "CREATE TEMP TABLE msamp_types_in (tid int, types text[]) ON COMMIT DELETE ROWS",
                  "preparing push's statements", err, errlen);
}

/* A prepared statement's run: its result when it returned want, else NULL with db_err's why. */
static PGresult *run_prepared(PGconn *c, const char *name, int n, const char *const *v,
                              const int *lens, const int *fmts, ExecStatusType want,
                              const char *what, char *err, size_t errlen)
{
    PGresult *r = PQexecPrepared(c, name, n, v, lens, fmts, 0);
    if (PQresultStatus(r) == want)
        return r;
    db_err(c, r, what, err, errlen);
    return NULL;
}

/* COPY binary's signature, flags and extension; its trailer. */
#define COPY_HEAD "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0"
#define COPY_TRAILER 0xffff

/* COPY table FROM STDIN of the rows, in COPY's binary format (from COPY_HEAD to COPY_TRAILER): 0,
 * or -1 with what and the server's error. */
static int copy_rows(PGconn *c, const char *table, const struct buf *rows, const char *what,
                     char *err, size_t errlen)
{
    char sql[256];
    snprintf(sql, sizeof(sql), "COPY %s FROM STDIN (FORMAT binary)", table);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COPY_IN)
        return db_err(c, r, what, err, errlen);
    PQclear(r);
    int ok = 1;
    for (size_t at = 0; at < rows->len && ok; at += 1u << 20) {
        size_t n = rows->len - at < (1u << 20) ? rows->len - at : 1u << 20;
        ok = PQputCopyData(c, (const char *)rows->p + at, (int)n) == 1;
    }
    ok = PQputCopyEnd(c, ok ? NULL : "the data could not be sent") == 1 && ok;
    r = PQgetResult(c);
    int rc = PQresultStatus(r) == PGRES_COMMAND_OK && ok ? 0 : db_err(c, r, what, err, errlen);
    if (rc == 0)
        PQclear(r);
    while ((r = PQgetResult(c)) != NULL)
        PQclear(r);
    return rc;
}

/* The batch's stacks (roll->stacks, row_stacks') by COPY (binary) into msamp_stack_in, added to
 * msamp_stack; each one's h as the server computed it into roll->h: 0, or -1 with err (a stored
 * stack of the same h and another stack: an error). */
static int store_stacks(PGconn *c, struct roll *roll, const char *what, char *err, size_t errlen)
{
    size_t n = roll->stacks.n;
    roll->h = xcalloc(n + 1, sizeof(*roll->h));
    if (n == 0)
        return 0;
    struct buf st = {0};
    buf_put(&st, COPY_HEAD, 19);
    keys_copy(&roll->stacks, 2, &st); /* sid, stack, task */
    push_put_be(&st, COPY_TRAILER, 2);
    int rc = copy_rows(c, "msamp_stack_in (sid, stack, task)", &st, what, err, errlen);
    buf_free(&st);
    if (rc != 0)
        return rc;
    PGresult *r = PQexec(c, sql_stacks);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        return db_err(c, r, what, err, errlen);
    size_t bad = 0, got = (size_t)PQntuples(r);
    for (size_t i = 0; i < got && i < n; i++) {
        roll->h[i] = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
        bad += PQgetvalue(r, (int)i, 1)[0] == 't';
    }
    PQclear(r);
    if (bad == 0 && got == n)
        return 0;
    snprintf(err, errlen, "%s: %zu of the batch's %zu stacks have the hash of another stack "
             "stored (msamp_stack's key h): not stored", what, bad ? bad : n - got, n);
    return -1;
}

/* The sums of the types, the same in a stored row and the batch's (o.vals, EXCLUDED.vals), for
 * each count of types the batch's rows have (at most 8 counts, of at most 64 types: others by
 * msamp_rvals_sum), as the rest of the upsert's CASE onto q. */
static void rollup_sql(struct buf *q, const struct roll *roll)
{
    size_t seen[8], nseen = 0;
    buf_str(q, sql_rollup_head);
    for (size_t t = 0; t < roll->tsets.n; t++) {
        size_t n = roll_tset_n(roll, t), k = 0;
        while (k < nseen && seen[k] != n)
            k++;
        if (k < nseen || nseen == 8 || n == 0 || n > 64)
            continue;
        seen[nseen++] = n;
        buf_printf(q, " WHEN cardinality(o.vals) = %zu THEN ARRAY[", n);
        for (size_t i = 1; i <= n; i++)
            buf_printf(q, "%so.vals[%zu] + EXCLUDED.vals[%zu]", i > 1 ? ", " : "", i, i);
        buf_str(q, "]");
    }
    buf_str(q, " ELSE msamp_rvals_sum(o.vals, EXCLUDED.vals) END");
}

/* The batch's rollup rows (rows: those of profiles alone in their bucket in the batch, nrows of
 * them, after COPY_HEAD; roll's summed rows added) by COPY (binary) into msamp_rollup_in, its
 * sets of types into msamp_types_in; the sets added to msamp_tset, the rows to msamp_rollup (each
 * inserted or added to). */
static int store_rollup(PGconn *c, struct roll *roll, struct buf *rows, size_t nrows,
                        const char *what, char *err, size_t errlen)
{
    nrows += roll_copy(roll, rows);
    push_put_be(rows, COPY_TRAILER, 2);
    if (nrows == 0)
        return 0;
    struct buf ty = {0}, q = {0};
    buf_put(&ty, COPY_HEAD, 19);
    keys_copy(&roll->tsets, 1, &ty); /* tid, types */
    push_put_be(&ty, COPY_TRAILER, 2);
    int rc = copy_rows(c, "msamp_types_in", &ty, what, err, errlen);
    buf_free(&ty);
    if (rc == 0)
        rc = copy_rows(c, "msamp_rollup_in", rows, what, err, errlen);
    if (rc == 0) {
        rollup_sql(&q, roll);
        rc = db_cmd(c, buf_cstr(&q), what, err, errlen);
    }
    buf_free(&q);
    return rc;
}

/* 1 when the profile's sample types' names are distinct (drain writes no other). */
static int types_distinct(const struct push_row *w)
{
    for (size_t a = 0; a < w->p.nvt; a++)
        for (size_t b = a + 1; b < w->p.nvt; b++)
            if (strcmp(w->vtn[a], w->vtn[b]) == 0)
                return 0;
    return 1;
}

/* The stored profiles' site rows onto rows; their rollup rows: a profile alone in its bucket in
 * this batch straight onto direct (*ndirect counting them), the others summed in roll. */
static void batch_rows(struct push_row **w, size_t n, struct buf *rows, struct roll *roll,
                       struct buf *direct, size_t *ndirect)
{
    for (size_t i = 0; i < n; i++) {
        if (!w[i]->stored)
            continue;
        int alone = types_distinct(w[i]);
        for (size_t j = 0; j < n && alone; j++)
            alone = j == i || !w[j]->stored || strcmp(w[j]->bucket, w[i]->bucket) != 0;
        row_copy(w[i], rows, roll, alone ? direct : NULL);
        *ndirect += alone ? w[i]->nsites : 0;
    }
}

/* The profile's row (prepared msamp_profile): w->stored, and once stored its id, t_end, bucket. */
static int store_profile(PGconn *c, struct push_row *w, const char *what, char *err,
                         size_t errlen)
{
    const char *vals[16] = {w->device, w->build, w->session, w->kind, w->t0, w->t1,
                            buf_cstr(&w->lab), buf_cstr(&w->vts), buf_cstr(&w->cms), w->fl,
                            (const char *)w->raw.p, buf_cstr(&w->tot), w->heap[0], w->heap[1],
                            w->heap[2], w->heap[3]};
    int lens[16] = {0};
    int fmts[16] = {0};
    lens[10] = (int)w->raw.len;
    fmts[10] = 1;
    PGresult *r = run_prepared(c, "msamp_profile", 16, vals, lens, fmts, PGRES_TUPLES_OK, what,
                               err, errlen);
    if (!r)
        return -1;
    w->stored = PQntuples(r);
    snprintf(w->id, sizeof(w->id), "%s", w->stored ? PQgetvalue(r, 0, 0) : "");
    snprintf(w->te, sizeof(w->te), "%s", w->stored ? PQgetvalue(r, 0, 1) : "");
    snprintf(w->bucket, sizeof(w->bucket), "%s", w->stored ? PQgetvalue(r, 0, 2) : "");
    w->te_us = w->stored ? strtoll(PQgetvalue(r, 0, 3), NULL, 10) : 0;
    PQclear(r);
    return 0;
}

/* The UTC days of the profiles whose months' partitions a batch has asked for (a day, finer than
 * a month: one msamp_partition call a day of the batch, each cheap once the month is there). */
#define BATCH_DAYS 64

/* The months' partitions of the n profiles w[0..n), each made in its own transaction
 * (msamp_partition): 0, or -1 with the profile whose month failed in *culprit. */
static int store_months(PGconn *c, struct push_row **w, size_t n, int *culprit, char *err,
                        size_t errlen)
{
    long long day[BATCH_DAYS];
    size_t nday = 0;
    for (size_t i = 0; i < n; i++) {
        long long d = (long long)(w[i]->p.time_nanos + w[i]->p.duration_nanos) / 86400000000000LL;
        size_t k = 0;
        while (k < nday && day[k] != d)
            k++;
        if (k < nday)
            continue;
        char what[600];
        snprintf(what, sizeof(what), "%s: storing it", w[i]->path);
        const char *v = w[i]->t1;
        PGresult *r = run_prepared(c, "msamp_part", 1, &v, NULL, NULL, PGRES_TUPLES_OK, what, err,
                                   errlen);
        if (!r) {
            *culprit = (int)i;
            return -1;
        }
        PQclear(r);
        if (nday < BATCH_DAYS)
            day[nday++] = d;
    }
    return 0;
}

/* One transaction storing the n profiles w[0..n) (their months' partitions made first): each
 * profile's row, all their site rows in one COPY, their leak rows, the batch's rollup sums.
 * 0 stored; else rolled back, nothing stored, the profile whose row failed in *culprit (-1: a
 * step of the whole batch failed), the error in err. */
static int store_batch(PGconn *c, struct push_row **w, size_t n, int *culprit, char *err,
                       size_t errlen)
{
    *culprit = -1;
    if (store_months(c, w, n, culprit, err, errlen) != 0 ||
        db_cmd(c, "BEGIN", "begin", err, errlen) != 0)
        return -1;
    char what[600];
    struct buf rows = {0}, rrows = {0};
    size_t nrrows = 0;
    buf_put(&rows, COPY_HEAD, 19);
    buf_put(&rrows, COPY_HEAD, 19);
    struct roll roll;
    memset(&roll, 0, sizeof(roll));
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        snprintf(what, sizeof(what), "%s: storing it", w[i]->path);
        rc = store_profile(c, w[i], what, err, errlen);
        if (rc != 0)
            *culprit = (int)i;
    }
    for (size_t i = 0; i < n && rc == 0; i++)
        if (w[i]->stored)
            row_stacks(w[i], &roll);
    if (n > 1)
        snprintf(what, sizeof(what), "storing %zu profiles (%s ...)", n, w[0]->path);
    if (rc == 0)
        rc = store_stacks(c, &roll, what, err, errlen);
    if (rc == 0)
        batch_rows(w, n, &rows, &roll, &rrows, &nrrows);
    push_put_be(&rows, COPY_TRAILER, 2);
    if (rc == 0)
        rc = copy_rows(c, "msamp_site (device, profile_id, t_end, site, h, vals)", &rows, what, err,
                       errlen);
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!w[i]->stored || strcmp(buf_cstr(&w[i]->leaks), "[]") == 0)
            continue;
        const char *v[4] = {w[i]->device, w[i]->id, buf_cstr(&w[i]->leaks), w[i]->te};
        PGresult *r = run_prepared(c, "msamp_leaks", 4, v, NULL, NULL, PGRES_COMMAND_OK, what, err,
                                   errlen);
        rc = r ? 0 : -1;
        PQclear(r);
    }
    if (rc == 0)
        rc = store_rollup(c, &roll, &rrows, nrrows, what, err, errlen);
    if (rc == 0)
        rc = db_cmd(c, "COMMIT", what, err, errlen);
    else if (PQstatus(c) == CONNECTION_OK)
        PQclear(PQexec(c, "ROLLBACK"));
    buf_free(&rows);
    buf_free(&rrows);
    roll_free(&roll);
    return rc;
}

/* push's connection, its schema made or migrated, its statements prepared; NULL with err. */
static PGconn *push_open(const char *conninfo, char *err, size_t errlen)
{
    PGconn *c = db_open(conninfo, err, errlen);
    if (c && db_schema(c, 1, err, errlen) != 0) {
        PQfinish(c);
        return NULL;
    }
    if (c && schema_target() < FLEET_SCHEMA_VERSION) {
        snprintf(err, errlen, "the schema is at version %d at most (MSAMP_DRAIN_FLEET_SCHEMA)",
                 schema_target());
        PQfinish(c);
        return NULL;
    }
    if (c && push_prepare(c, err, errlen) != 0) {
        PQfinish(c);
        return NULL;
    }
    return c;
}

/* What a push counts: profiles stored, there already, not pushed. */
struct push_count {
    int nnew, nold, nfail;
};

/* The n profiles w[0..n) stored, in as few transactions as the failures allow (store_batch): a
 * profile whose row fails is named with the error and the rest tried again in a new transaction;
 * a step of the whole batch failing makes each stored alone (its own transaction, as named as
 * its error). The connection is opened again when lost (*c); when that fails, each profile left
 * is named with the reason, which stays in err (the files after them are named with it). Every
 * profile is counted. */
static void push_batch(PGconn **c, const char *conninfo, struct push_row **w, size_t n,
                       struct push_count *k, char *err, size_t errlen)
{
    size_t alone = 0; /* the batch failed as a whole: from here each alone */
    while (n > 0) {
        if (*c && PQstatus(*c) != CONNECTION_OK) {
            PQfinish(*c);
            *c = push_open(conninfo, err, errlen);
            if (!*c)
                for (size_t i = 0; i < n; i++) {
                    fprintf(stderr, "drain push: %s: not pushed: %s\n", w[i]->path, err);
                    k->nfail++;
                }
        }
        if (!*c)
            return;
        size_t m = alone ? 1 : n;
        int culprit;
        if (store_batch(*c, w, m, &culprit, err, errlen) == 0) {
            for (size_t i = 0; i < m; i++)
                w[i]->stored ? k->nnew++ : k->nold++;
            w += m, n -= m;
        } else if (culprit >= 0 || m == 1) {
            culprit = culprit < 0 ? 0 : culprit;
            fprintf(stderr, "drain push: %s\n", err);
            k->nfail++;
            for (int i = culprit; i > 0; i--) /* the culprit out, the others on in their order */
                w[i] = w[i - 1];
            w++, n--;
        } else {
            alone = 1;
        }
    }
}

/* The profiles a transaction stores at most (the files read and held meanwhile). */
#define PUSH_BATCH 64
/* The rows read and held at most: the batch being stored and the next one read beside it. */
#define PUSH_AHEAD (2 * PUSH_BATCH)

/* The files read ahead, in their order, by a thread of their own (ahead_thread) while the main
 * thread stores the batch before (the server's backend busy on one core, the reading on the
 * other), and by the main thread too while it waits for its batch's files (the first batch):
 * file i's row in row[i] once done[i], or its error in err[i] (named by the main thread when it
 * comes to file i, in the files' order). The mutex guards nclaim, nheld, stop and done; row[i]
 * and err[i] are their reader's until done[i], then the main thread's (used, given: its own). */
struct push_ahead {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a file done, a row given back, stop */
    char **file;
    int nfile, nclaim, nheld, used, given, stop, threaded;
    unsigned char *done;
    struct push_row **row;
    char **err;
};

/* The next file to read (claimed), or -1: none before limit, PUSH_AHEAD rows held (being read,
 * or read and not given back), or stop. Under mu. */
static int ahead_claim(struct push_ahead *a, int limit)
{
    if (a->stop || a->nclaim >= limit || a->nclaim >= a->nfile || a->nheld >= PUSH_AHEAD)
        return -1;
    a->nheld++;
    return a->nclaim++;
}

/* Claimed file i read into its row, or its error kept; done. Called and returns under mu. */
static void ahead_read(struct push_ahead *a, int i)
{
    pthread_mutex_unlock(&a->mu);
    char err[1024];
    struct push_row *w = xcalloc(1, sizeof(*w));
    if (row_read(w, a->file[i], err, sizeof(err)) != 0) {
        a->err[i] = xstrndup(err, strlen(err));
        free(w);
        w = NULL;
    }
    a->row[i] = w;
    pthread_mutex_lock(&a->mu);
    a->nheld -= w ? 0 : 1;
    a->done[i] = 1;
    pthread_cond_broadcast(&a->cv);
}

/* The reader thread: every file in order, waiting while PUSH_AHEAD rows are held; stops when the
 * main thread has no more use for them (stop: its connection is gone). */
static void *ahead_thread(void *arg)
{
    struct push_ahead *a = arg;
    pthread_mutex_lock(&a->mu);
    while (!a->stop && a->nclaim < a->nfile) {
        int i = ahead_claim(a, a->nfile);
        if (i < 0)
            pthread_cond_wait(&a->cv, &a->mu);
        else
            ahead_read(a, i);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

/* The reader started on the n files (all read by the main thread, ahead_next, when no thread
 * can be made). */
static void ahead_start(struct push_ahead *a, char **file, int n, pthread_t *t)
{
    memset(a, 0, sizeof(*a));
    a->file = file;
    a->nfile = n;
    a->done = xcalloc((size_t)n + 1, 1);
    a->row = xcalloc((size_t)n + 1, sizeof(*a->row));
    a->err = xcalloc((size_t)n + 1, sizeof(*a->err));
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->cv, NULL);
    a->threaded = n > 0 && pthread_create(t, NULL, ahead_thread, a) == 0;
}

/* File i (the next one) once read: its row, or NULL with its error in err. Meanwhile the main
 * thread reads files of its batch no reader has taken yet (those before limit). */
static struct push_row *ahead_next(struct push_ahead *a, int i, int limit, char *err,
                                   size_t errlen)
{
    pthread_mutex_lock(&a->mu);
    while (!a->done[i]) {
        int j = ahead_claim(a, limit);
        if (j >= 0)
            ahead_read(a, j);
        else
            pthread_cond_wait(&a->cv, &a->mu);
    }
    pthread_mutex_unlock(&a->mu);
    a->used = i + 1;
    if (a->err[i])
        snprintf(err, errlen, "%s", a->err[i]);
    return a->row[i];
}

/* The rows of the files the main thread has had freed and given back to the reader (stop: it
 * reads no more). */
static void ahead_give(struct push_ahead *a, int stop)
{
    int n = 0;
    for (; a->given < a->used; a->given++) {
        n += a->row[a->given] ? 1 : 0;
        if (a->row[a->given])
            row_free(a->row[a->given]);
        free(a->row[a->given]);
        a->row[a->given] = NULL;
    }
    pthread_mutex_lock(&a->mu);
    a->nheld -= n;
    a->stop |= stop;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
}

/* The reader stopped and waited for, the rows it read that were not given back freed. */
static void ahead_end(struct push_ahead *a, pthread_t t)
{
    ahead_give(a, 1);
    if (a->threaded)
        pthread_join(t, NULL);
    for (int i = 0; i < a->nfile; i++) {
        if (a->row[i])
            row_free(a->row[i]);
        free(a->row[i]);
        free(a->err[i]);
    }
    free(a->row);
    free(a->err);
    free(a->done);
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->mu);
}

/* Every file is pushed or named with why not: read (a file that cannot be read or is refused is
 * named), then stored PUSH_BATCH in a transaction (push_batch), the next batch read meanwhile
 * (push_ahead; the first while the connection is made). A connection lost on a file (the server
 * went down, its backend ended) is opened again for the next one; when that fails, each file
 * left is named with the reason (not tried again: a server that is down would make each wait). */
int drain_push(int argc, char **argv)
{
    int head = db_head(argc, argv, push_usage);
    if (head >= 0)
        return head;
    char err[1024], rerr[1024];
    struct push_ahead a;
    pthread_t t;
    ahead_start(&a, argv + 3, argc - 3, &t);
    PGconn *c = push_open(argv[2], err, sizeof(err));
    struct push_count k = {0, 0, 0};
    struct push_row *w[PUSH_BATCH];
    ahead_give(&a, !c); /* no connection: nothing more read */
    for (int i = 3; i < argc;) {
        size_t n = 0;
        for (; i < argc && n < PUSH_BATCH; i++) {
            if (!c) {
                fprintf(stderr, "drain push: %s: not pushed: %s\n", argv[i], err);
                k.nfail++;
            } else if ((w[n] = ahead_next(&a, i - 3, i - 3 + (int)(PUSH_BATCH - n), rerr,
                                          sizeof(rerr))) == NULL) {
                fprintf(stderr, "drain push: %s\n", rerr);
                k.nfail++;
            } else {
                n++;
            }
        }
        if (n)
            push_batch(&c, argv[2], w, n, &k, err, sizeof(err));
        ahead_give(&a, !c);
    }
    ahead_end(&a, t);
    fprintf(stderr, "drain push: %d profiles stored, %d already there, %d not pushed\n", k.nnew,
            k.nold, k.nfail);
    PQfinish(c);
    return k.nfail ? 1 : 0;
}

/* drain --push: the one file, stored in its own transaction (push_batch of one). */
int fleet_push_file(const char *conninfo, const char *path, char *err, size_t errlen)
{
    PGconn *c = push_open(conninfo, err, errlen);
    if (!c)
        return -1;
    struct push_row w;
    int rc = row_read(&w, path, err, errlen);
    if (rc == 0) {
        int culprit;
        rc = store_batch(c, (struct push_row *[]){&w}, 1, &culprit, err, errlen);
        row_free(&w);
    }
    PQfinish(c);
    return rc;
}
