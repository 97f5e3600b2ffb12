/*
 * drain fleet's selection and the loop every query of it runs through (docs/FLEET.md): the
 * filters (--device, --build-id, --since, --until, --label) as a WHERE over the profiles with its
 * parameters, the times checked by the server first; and fleet_query_run: a query's steps (its
 * SQL, the rows it makes) run, then each of its tables printed as text and, with --json FILE, as
 * one JSON document written whole or not at all (util.h's out_file).
 */
#include "fleet/query.h"

#include <string.h>

const char *add_param(struct sel *s, const char *v)
{
    static char num[2 * MAX_FILTERS + 4 + MAX_TYPES][16];
    s->params[s->nparams] = v;
    snprintf(num[s->nparams], sizeof(num[0]), "$%u", (unsigned)(s->nparams + 1) % 1000u);
    return num[s->nparams++];
}

void time_sql(struct buf *b, const char *pn)
{
    buf_printf(b, "(CASE WHEN %s ~ '^[0-9]+(\\.[0-9]*)?$' THEN to_timestamp(%s::float8)"
              " ELSE %s::timestamptz END)", pn, pn, pn);
}

int time_check(PGconn *c, const char *opt, const char *t, char *why, size_t whylen)
{
    struct buf q = {0};
    buf_str(&q, "SELECT ");
    time_sql(&q, "$1::text");
    PGresult *r = PQexecParams(c, buf_cstr(&q), 1, NULL, &t, NULL, NULL, 0);
    buf_free(&q);
    if (PQresultStatus(r) == PGRES_TUPLES_OK) {
        PQclear(r);
        return 0;
    }
    const char *st = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    int bad = st && strncmp(st, "22", 2) == 0;
    char what[128];
    snprintf(what, sizeof(what), "%s %s%s", opt, t,
             bad ? ": not a time (seconds since the epoch or a timestamp)" : "");
    db_err(c, r, what, why, whylen);
    return bad ? 2 : -1;
}

/* t's condition on column col of the profiles (and of the sites, for t_end). */
static void time_cond(struct sel *s, const char *col, const char *op, const char *t)
{
    const char *pn = add_param(s, t);
    buf_printf(&s->where, " AND p.%s %s ", col, op);
    time_sql(&s->where, pn);
    if (strcmp(col, "t_end") == 0) { /* the site rows carry t_end: their partitions pruned too */
        buf_printf(&s->where_st, " AND st.%s %s ", col, op);
        time_sql(&s->where_st, pn);
    }
}

void sel_build(struct sel *s)
{
    buf_str(&s->where, "TRUE");
    buf_str(&s->where_st, "");
    if (s->ndevice) {
        buf_str(&s->where, " AND p.device IN (");
        for (int i = 0; i < s->ndevice; i++)
            buf_printf(&s->where, "%s%s", i ? ", " : "", add_param(s, s->device[i]));
        buf_str(&s->where, ")");
    }
    if (s->build)
        buf_printf(&s->where, " AND p.build_id = %s", add_param(s, s->build));
    if (s->since)
        time_cond(s, "t_end", ">=", s->since);
    if (s->until)
        time_cond(s, "t_start", "<=", s->until);
    for (int i = 0; i < s->nlabel; i++)
        buf_printf(&s->where, " AND %s = ANY (p.labels)", add_param(s, s->label[i]));
}

PGresult *sel_query(PGconn *c, struct sel *s, const char *sql, char *err, size_t errlen)
{
    PGresult *r = PQexecParams(c, sql, s->nparams, NULL, s->params, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        db_err(c, r, "query", err, errlen);
        return NULL;
    }
    return r;
}

/* --json FILE of a query, written whole or not at all (util.h's out_file): *jf the open file
 * (NULL without --json); -1 with why ("--json PATH: reason") when it cannot be opened. */
static int json_open(struct out_file *o, FILE **jf, const char *path, char *err, size_t errlen)
{
    *jf = NULL;
    if (!path)
        return 0;
    char why[512]; /* a path and a reason, within err's 1024 with the prefix */
    if (out_open(o, path, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "--json %s", why);
        return -1;
    }
    *jf = o->f;
    return 0;
}

/* Ends the document with tail and completes it: -1 with why when the writes failed (a full disk). */
static int json_close(struct out_file *o, FILE *jf, const char *tail, char *err, size_t errlen)
{
    if (!jf)
        return 0;
    fputs(tail, jf);
    char why[512]; /* a path and a reason, within err's 1024 with the prefix */
    if (out_close(o, 0, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "--json %s", why);
        return -1;
    }
    return 0;
}

int fleet_query_run(PGconn *c, struct sel *s, const struct fleet_query *d, char *err,
                    size_t errlen)
{
    struct fleet_rows q;
    memset(&q, 0, sizeof(q));
    int rc = d->before ? d->before(c, s, &q, err, errlen) : 0;
    if (rc == 0) {
        struct buf sql = {0};
        d->sql(&sql, s, &q);
        q.r = sel_query(c, s, buf_cstr(&sql), err, errlen);
        buf_free(&sql);
        rc = q.r ? 0 : -1;
    }
    if (rc == 0) {
        q.n[0] = PQntuples(q.r);
        rc = d->after ? d->after(c, s, &q, err, errlen) : 0;
    }
    struct out_file jo;
    FILE *jf = NULL;
    if (rc == 0)
        rc = json_open(&jo, &jf, s->json, err, errlen);
    if (rc == 0) {
        for (int t = 0; t < d->ntable; t++) {
            const struct fleet_table *tb = &d->table[t];
            if (jf)
                fprintf(jf, "%s\"%s\":[", t ? "]," : "{", tb->key);
            tb->title(&q);
            for (int i = 0; i < q.n[t]; i++) {
                tb->text(&q, i);
                if (jf && i)
                    fputc(',', jf);
                if (jf)
                    tb->json(jf, &q, i);
            }
        }
        rc = json_close(&jo, jf, "]}\n", err, errlen);
    }
    if (d->free)
        d->free(&q);
    PQclear(q.r);
    PQclear(q.aux);
    return rc;
}

void fleet_sel_buckets(struct buf *b, struct sel *s, const char *pp_cols)
{
    buf_printf(b, "WITH fb AS (SELECT b.device, b.id, b.build_id, b.labels, b.day"
               " FROM msamp_bucket b CROSS JOIN LATERAL (SELECT b.device, b.build_id, b.labels,"
               " b.t_end_min AS t_end, b.t_start_max AS t_start) p WHERE %s),"
               " pp AS (SELECT p.device, p.id, p.t_end%s FROM msamp_profile p WHERE %s AND NOT EXISTS"
               " (SELECT 1 FROM fb WHERE fb.device = p.device AND fb.build_id = p.build_id"
               " AND fb.labels = p.labels AND fb.day = msamp_day(p.t_end)))",
               buf_cstr(&s->where), pp_cols ? pp_cols : "", buf_cstr(&s->where));
}
