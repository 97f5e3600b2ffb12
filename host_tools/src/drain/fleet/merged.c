/*
 * drain fleet merge (docs/FLEET.md "Merged buckets"): the selection's stored profiles merged by
 * drain merge's code (verdict/merge.c). The rollup buckets the selection holds whole are read as
 * their merged profile (msamp_merged: drain merge of the bucket's files, made by the first merge
 * that needs it and kept while the bucket's gen is unchanged), the other selected profiles as
 * their files; --exact reads every selected file (the output byte for byte drain merge's).
 */
#include "fleet/merged.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof/built.h"
#include "pprof/prof_file.h"
#include "verdict/merge.h"

/* What fleet merge reads, in merge order: a bucket held whole (its merged profile, made when
 * missing or stale) or a profile of the other buckets (its file). */
struct item {
    int whole;
    char device[256], id[32], gen[32], day[32];
    long long profiles, peaks; /* a bucket's profiles, and those of them with a peak */
    const uint8_t *bytes;      /* in the query's result, or made (fresh) */
    size_t len;
    struct buf made;
};

/* "msamp drain V: merged N profiles", merge_finish's comment: a bucket's, removed from its merged
 * profile before it is merged with others (the output says the whole count once). */
static void drop_count_comment(struct prof *p, long long n)
{
    char c[128];
    snprintf(c, sizeof(c), "msamp drain %s: merged %lld profiles", DRAIN_VERSION, n);
    for (size_t i = 0; i < p->ncomment; i++) {
        int64_t s = p->comment[i];
        if (p->strlen[s] == strlen(c) && memcmp(p->str[s], c, strlen(c)) == 0) {
            memmove(&p->comment[i], &p->comment[i + 1], (p->ncomment - i - 1) * sizeof(int64_t));
            p->ncomment--;
            return;
        }
    }
}

/* Adds the n profiles of r's column 0 (rows from..) to mg: 0, or -1 with err. */
static int merge_rows(struct merger *mg, const PGresult *r, int from, int n, char *err,
                      size_t errlen)
{
    for (int i = from; i < from + n; i++) {
        struct prof in;
        if (prof_read_mem(&in, (const uint8_t *)PQgetvalue(r, i, 0), (size_t)PQgetlength(r, i, 0),
                          err, errlen) != 0)
            return -1;
        int rc = merge_add(mg, &in, err, errlen);
        prof_free(&in);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* The bucket's (it) merged profile made: its files (by start time and id, drain merge's order for
 * them) merged and finished, as prof_write_file's bytes into it->made (peaks: mg's count). */
static const char sql_bucket_files[] =
    "SELECT p.bytes FROM msamp_bucket b JOIN msamp_profile p ON p.device = b.device"
    " AND p.build_id = b.build_id AND p.labels = b.labels"
    " WHERE b.device = $1 AND b.id = $2::bigint AND p.t_end >= to_timestamp($3::bigint * 86400)"
    " AND p.t_end < to_timestamp(($3::bigint + 1) * 86400) ORDER BY p.t_start, p.device, p.id";
static int bucket_make(PGconn *c, struct item *it, char *err, size_t errlen)
{
    const char *v[3] = {it->device, it->id, it->day};
    PGresult *r = PQexecParams(c, sql_bucket_files, 3, NULL, v, NULL, NULL, 1);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        return db_err(c, r, "reading a bucket's profiles", err, errlen);
    struct merger mg;
    merge_init(&mg);
    int rc = merge_rows(&mg, r, 0, PQntuples(r), err, errlen);
    if (rc == 0 && mg.n != it->profiles) {
        snprintf(err, errlen, "bucket %s of %s: %d profiles, its row counts %lld", it->id,
                 it->device, mg.n, it->profiles);
        rc = -1;
    }
    PQclear(r);
    if (rc == 0) {
        merge_finish(&mg);
        it->peaks = mg.npeak;
        rc = prof_write_mem(&mg.out, &it->made, err, errlen); /* in memory: no scratch file */
        it->bytes = it->made.p, it->len = it->made.len;
    }
    merge_free(&mg);
    return rc;
}

/* The buckets' merged profiles made now kept (msamp_merged, at the gen they were read at: a
 * newer one there is not replaced). A failure (a read-only role) is a note: the merge goes on. */
static const char sql_merged_put[] =
    "INSERT INTO msamp_merged AS o VALUES ($1, $2::bigint, $3::bigint, $4, $5::bigint, $6::bigint,"
    " $7::bytea) ON CONFLICT (device, bucket) DO UPDATE SET gen = EXCLUDED.gen, drain ="
    " EXCLUDED.drain, profiles = EXCLUDED.profiles, peaks = EXCLUDED.peaks, bytes = EXCLUDED.bytes"
    " WHERE o.gen <= EXCLUDED.gen";
static void buckets_store(PGconn *c, struct item *it, int n)
{
    for (int i = 0; i < n; i++) {
        if (!it[i].whole || !it[i].made.len)
            continue;
        char prof[32], peaks[32];
        snprintf(prof, sizeof(prof), "%lld", it[i].profiles);
        snprintf(peaks, sizeof(peaks), "%lld", it[i].peaks);
        const char *v[7] = {it[i].device, it[i].id, it[i].gen, DRAIN_VERSION, prof, peaks,
                            (const char *)it[i].made.p};
        int lens[7] = {0, 0, 0, 0, 0, 0, (int)it[i].made.len}, fmts[7] = {0, 0, 0, 0, 0, 0, 1};
        PGresult *r = PQexecParams(c, sql_merged_put, 7, NULL, v, lens, fmts, 0);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) {
            char err[1024];
            db_err(c, r, "storing a bucket's merged profile", err, sizeof(err));
            fprintf(stderr, "drain fleet merge: note: %s (the merge goes on)\n", err);
            return;
        }
        PQclear(r);
    }
}

/* The items, merged in order into out: one bucket alone is its merged profile's bytes; else each
 * item's profile added (a bucket's without its count comment, its peaks counted as its
 * profiles'), the count the profiles'. */
static int items_merge(struct item *it, int n, const char *out, long long *nprof, char *err,
                       size_t errlen)
{
    *nprof = 0;
    if (n == 1 && it[0].whole) {
        *nprof = it[0].profiles;
        struct out_file o;
        if (out_open(&o, out, err, errlen) != 0)
            return -1;
        fwrite(it[0].bytes, 1, it[0].len, o.f);
        return out_close(&o, 0, err, errlen);
    }
    struct merger mg;
    merge_init(&mg);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        struct prof in;
        rc = prof_read_mem(&in, it[i].bytes, it[i].len, err, errlen);
        if (rc != 0)
            break;
        if (it[i].whole)
            drop_count_comment(&in, it[i].profiles);
        int npeak = mg.npeak;
        rc = merge_add(&mg, &in, err, errlen);
        prof_free(&in);
        if (it[i].whole && mg.npeak > npeak)
            mg.npeak += (int)it[i].peaks - 1;
        *nprof += it[i].whole ? it[i].profiles : 1;
    }
    if (rc == 0) {
        mg.n = (int)*nprof;
        merge_finish(&mg);
        rc = prof_write_file(&mg.out, out, err, errlen);
    }
    merge_free(&mg);
    return rc;
}

/* The items' query: the buckets held whole (their merged profile when kept at the bucket's gen by
 * this drain's version, else NULL) and the other selected profiles (their file), by start time
 * (a bucket's earliest), device, kind and id; every column as text but the bytes. */
static void items_sql(struct buf *q, struct sel *s, int exact)
{
    if (exact) {
        buf_printf(q, "SELECT '0', p.device, p.id::text, NULL, NULL, NULL, p.bytes, NULL"
                   " FROM msamp_profile p WHERE %s ORDER BY p.t_start, p.device, p.id",
                   buf_cstr(&s->where));
        return;
    }
    const char *ver = add_param(s, DRAIN_VERSION);
    fleet_sel_buckets(q, s, ", p.t_start, p.bytes");
    buf_printf(q, " SELECT '1', b.device, b.id::text, b.gen::text, b.profiles::text, m.peaks::text,"
               " m.bytes, b.day::text, b.t_start_min AS t, b.id AS k FROM fb JOIN msamp_bucket b"
               " ON b.device = fb.device AND b.id = fb.id LEFT JOIN msamp_merged m"
               " ON m.device = b.device AND m.bucket = b.id AND m.gen = b.gen AND m.drain = %s"
               " UNION ALL SELECT '0', device, id::text, NULL, NULL, NULL, bytes, NULL, t_start, id"
               " FROM pp ORDER BY 9, 2, 1, 10", ver);
}

int fleet_merge(PGconn *c, struct sel *s, const char *out, int exact, char *err, size_t errlen)
{
    if (db_cmd(c, "BEGIN ISOLATION LEVEL REPEATABLE READ", "begin", err, errlen) != 0)
        return -1;
    struct buf q = {0};
    items_sql(&q, s, exact);
    PGresult *r = PQexecParams(c, buf_cstr(&q), s->nparams, NULL, s->params, NULL, NULL, 1);
    buf_free(&q);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        db_err(c, r, "query", err, errlen);
        PQclear(PQexec(c, "ROLLBACK"));
        return -1;
    }
    int n = PQntuples(r), rc = 0;
    struct item *it = xcalloc((size_t)n + 1, sizeof(*it));
    for (int i = 0; i < n && rc == 0; i++) {
        it[i].whole = PQgetvalue(r, i, 0)[0] == '1';
        snprintf(it[i].device, sizeof(it[i].device), "%s", PQgetvalue(r, i, 1));
        snprintf(it[i].id, sizeof(it[i].id), "%s", PQgetvalue(r, i, 2));
        snprintf(it[i].gen, sizeof(it[i].gen), "%s", PQgetvalue(r, i, 3));
        it[i].profiles = atoll(PQgetvalue(r, i, 4));
        it[i].peaks = atoll(PQgetvalue(r, i, 5));
        snprintf(it[i].day, sizeof(it[i].day), "%s", PQgetvalue(r, i, 7));
        it[i].bytes = (const uint8_t *)PQgetvalue(r, i, 6);
        it[i].len = (size_t)PQgetlength(r, i, 6);
        if (it[i].whole && it[i].len == 0)
            rc = bucket_make(c, &it[i], err, errlen);
    }
    PQclear(PQexec(c, rc == 0 ? "COMMIT" : "ROLLBACK"));
    if (rc == 0 && n == 0) {
        snprintf(err, errlen, "no stored profile matches the selection");
        rc = -1;
    }
    if (rc == 0)
        buckets_store(c, it, n);
    long long nprof = 0;
    if (rc == 0)
        rc = items_merge(it, n, out, &nprof, err, errlen);
    int nwhole = 0;
    for (int i = 0; i < n; i++)
        nwhole += it[i].whole;
    if (rc == 0)
        fprintf(stderr, "drain fleet merge: %lld profiles merged into %s (%d buckets' merged "
                "profiles, %d files)\n", nprof, out, nwhole, n - nwhole);
    for (int i = 0; i < n; i++)
        buf_free(&it[i].made);
    free(it);
    PQclear(r);
    return rc;
}
