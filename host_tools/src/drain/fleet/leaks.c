/*
 * drain fleet leaks (docs/FLEET.md) as a query of fleet_query_run (query.h): its SQL (the growth
 * of each device's sites across consecutive profiles), the leak verdicts of each device's latest
 * profile read after it, the two joined into suspects; its tables, the suspects by device and the
 * same suspects by site (their devices' rates added), as text and JSON.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/queries.h"
#include "model/est.h"
#include "verdict/growth.h"
#include "verdict/vprof.h"

/* leaks: two kinds of evidence (docs/FLEET.md). The leak verdicts of each device's latest profile,
 * as drain stored them (verdict_leaks). And the verdicts' test (docs/VERDICTS.md "Leaks by
 * growth") over consecutive profiles of a device. Per session of the device (its profiles:
 * partials and the final), ordered by the device time they cover (t_end - t_start, from the
 * session's first record), the change D of each site's in-use from the session's middle (its first
 * profile at or after half the time its last covers, before the last) to its last profile. D's
 * variance is that of the sampled blocks whose state differs between the two (growth.c); from the
 * rollups it is bounded above by: the blocks born between them and live at the end (at most the
 * last's inuse_space_var and at most the growth of its alloc_space_var), plus, unless the site
 * freed nothing between them (freed_objects did not grow), the blocks live at the middle (its
 * inuse_space_var). An upper bound: the test is conservative. The sessions' changes, variances and
 * times add up (their samples are independent). A site is a suspect when D >= 3.29 sd (or, exact,
 * a byte or more) and so is its group's: the sites of the same innermost frame together. Sites are
 * matched by stack (unsymbolized frames as "?") and task. */
#define F(row, key) "coalesce((" row "->>'" key "')::float8, 0)"
/* A site's stack (sk: msamp_stack, schema version 8) with its raw addresses ("0x...") as "?":
 * across sessions a raw address names no place (profiles of drains before hosted images' frames
 * became "[lib.so]+0xOFF", which ASLR does not move and which are kept), so the same call path of
 * two sessions is one site. */
#define STACK_SQL                                                                                \
    "ARRAY(SELECT CASE WHEN f ~ '^0x[0-9a-f]+$' THEN '?' ELSE f END FROM"                        \
    " unnest(sk.stack) WITH ORDINALITY u(f, o) ORDER BY o)"

/* A leak suspect of fleet leaks: a device's site with the evidence it has, the leak verdict of
 * the device's latest profile (v: its slope, since) and the growth across consecutive profiles
 * (c: the change d over dt seconds, its sessions and profiles); the slope reported is the
 * verdict's when there is one (the profile's own, as drain --leaks gave it), else the growth's. */
struct suspect {
    const char *device, *stack, *task;
    int has_v, has_c;
    struct est v, d;
    double since, dt;
    const char *nses, *nprof;
};

static struct est suspect_slope(const struct suspect *x)
{
    if (x->has_v)
        return x->v;
    return (struct est){x->d.est / x->dt, x->d.var / (x->dt * x->dt)};
}

static int by_suspect_slope(const void *a, const void *b)
{
    const struct suspect *x = a, *y = b;
    double sx = suspect_slope(x).est, sy = suspect_slope(y).est;
    if (sx != sy)
        return sx < sy ? 1 : -1;
    int c = strcmp(x->device, y->device);
    c = c ? c : strcmp(x->stack, y->stack);
    return c ? c : strcmp(x->task, y->task);
}

/* The leak verdicts (msamp_leak rows, the profile's msamp-verdict leak comments) of each selected
 * device's latest profile (the latest end; a final before a partial), with their sites' stacks. */
static PGresult *verdict_leaks(PGconn *c, struct sel *s, char *err, size_t errlen)
{
    struct buf q = {0};
    buf_printf(&q,
              "WITH sel AS (SELECT p.device, p.id, p.t_end, p.kind FROM msamp_profile p WHERE %s),"
              " lat AS (SELECT DISTINCT ON (device) device, id, t_end FROM sel"
              " ORDER BY device, t_end DESC, kind = 'final' DESC, id DESC)"
              " SELECT lat.device, array_to_json(" STACK_SQL ")::text, sk.task, lk.slope,"
              " lk.slope_var, lk.since_s FROM lat JOIN msamp_leak lk ON lk.device = lat.device"
              " AND lk.profile_id = lat.id AND lk.t_end = lat.t_end JOIN msamp_site st"
              " ON st.device = lk.device AND st.profile_id = lk.profile_id AND st.t_end = lk.t_end"
              " AND st.site = lk.site JOIN msamp_stack sk ON sk.h = st.h WHERE TRUE%s",
              buf_cstr(&s->where), buf_cstr(&s->where_st));
    PGresult *r = sel_query(c, s, buf_cstr(&q), err, errlen);
    buf_free(&q);
    return r;
}

/* The growth rows: device, stack (JSON), task, the change d and its variance v, the seconds dt its
 * sessions cover, its sessions and profiles compared. */
static void leaks_sql(struct buf *b, struct sel *s, const struct fleet_rows *q)
{
    (void)q;
    buf_printf(b,
               "WITH sel AS (SELECT p.device, p.id, p.t_end AS te, p.session, p.kind,"
               " p.sample_types AS ty,"
               " extract(epoch FROM p.t_end - p.t_start)::float8 AS up FROM msamp_profile p WHERE %s),"
               " ses AS (SELECT device, session, max(up) / 2 AS half, max(up) AS u1, count(*) AS n"
               " FROM sel GROUP BY device, session HAVING count(*) > 1 AND max(up) > min(up)),"
               " lst AS (SELECT DISTINCT ON (sel.device, sel.session) sel.device, sel.session, sel.id,"
               " sel.te, sel.up, sel.ty FROM sel JOIN ses USING (device, session)"
               " ORDER BY sel.device, sel.session, sel.up DESC, sel.kind = 'final' DESC, sel.id DESC),"
               " mid AS (SELECT DISTINCT ON (sel.device, sel.session) sel.device, sel.session, sel.id,"
               " sel.te, sel.up, sel.ty, ses.n FROM sel JOIN ses USING (device, session) WHERE sel.up < ses.u1"
               " ORDER BY sel.device, sel.session, sel.up < ses.half,"
               " CASE WHEN sel.up >= ses.half THEN sel.up END, sel.up DESC, sel.id),"
               " pr AS (SELECT l.device, m.id AS mid_id, m.te AS mid_te, l.id AS last_id,"
               " l.te AS last_te, l.up - m.up AS dt, m.n, m.ty AS mid_ty, l.ty AS last_ty"
               " FROM lst l JOIN mid m USING (device, session)),"
               " dev AS (SELECT device, sum(dt) AS dt, count(*) AS nses, sum(n) AS nprof FROM pr"
               " GROUP BY device),"
               " m AS (SELECT pr.device, pr.mid_id AS pair, " STACK_SQL " AS stack, sk.task,"
               " msamp_vals(pr.mid_ty, st.vals) AS vals"
               " FROM pr JOIN msamp_site st ON st.device = pr.device AND st.profile_id = pr.mid_id"
               " AND st.t_end = pr.mid_te JOIN msamp_stack sk ON sk.h = st.h WHERE TRUE%s),"
               " l AS (SELECT pr.device, pr.mid_id AS pair, " STACK_SQL " AS stack, sk.task,"
               " msamp_vals(pr.last_ty, st.vals) AS vals"
               " FROM pr JOIN msamp_site st ON st.device = pr.device AND st.profile_id = pr.last_id"
               " AND st.t_end = pr.last_te JOIN msamp_stack sk ON sk.h = st.h WHERE TRUE%s),"
               " ml AS (SELECT coalesce(l.device, m.device) AS device, coalesce(l.stack, m.stack)"
               " AS stack, coalesce(l.task, m.task) AS task, coalesce(m.vals, '{}') AS a,"
               " coalesce(l.vals, '{}') AS b FROM m FULL JOIN l ON l.device = m.device AND"
               " l.pair = m.pair AND l.stack = m.stack AND l.task = m.task),"
               " ch AS (SELECT device, stack, task, " F("b", "inuse_space") " - " F("a", "inuse_space")
               " AS d, least(" F("b", "inuse_space_var") ", CASE WHEN b ? 'alloc_space_var' THEN"
               " greatest(" F("b", "alloc_space_var") " - " F("a", "alloc_space_var") ", 0) ELSE "
               F("b", "inuse_space_var") " END) + CASE WHEN b ? 'freed_objects' AND "
               F("b", "freed_objects") " <= " F("a", "freed_objects") " THEN 0 ELSE "
               F("a", "inuse_space_var") " END AS v FROM ml),"
               " site AS (SELECT device, stack, task, sum(d) AS d, sum(v) AS v FROM ch"
               " GROUP BY device, stack, task),"
               " grp AS (SELECT device, stack[1] AS f, sum(d) AS d, sum(v) AS v FROM site"
               " GROUP BY device, stack[1])"
               " SELECT st.device, array_to_json(st.stack)::text, st.task, st.d, st.v, dev.dt,"
               " dev.nses, dev.nprof FROM site st JOIN dev USING (device) JOIN grp"
               " ON grp.device = st.device AND grp.f IS NOT DISTINCT FROM st.stack[1]"
               " WHERE st.d > 0.5 AND (st.v <= 0 OR st.d >= %.17g * sqrt(st.v))"
               " AND grp.d > 0.5 AND (grp.v <= 0 OR grp.d >= %.17g * sqrt(grp.v))"
               " ORDER BY st.d / dev.dt DESC, st.device, 2, st.task",
               buf_cstr(&s->where), buf_cstr(&s->where_st), buf_cstr(&s->where_st), GR_Z_LEAK,
               GR_Z_LEAK);
}

/* What leaks made of its rows: the suspects (each growth row, joined by the verdict of its
 * device's site when there is one; the verdicts without growth after them), by slope; the sites:
 * each suspect's (the index of the first suspect of its stack and task), and those first ones. */
struct leaks_made {
    struct suspect *x;
    int n;
    int *site_of; /* n of them, then site's */
    int *site;
};

static struct leaks_made *made(const struct fleet_rows *q)
{
    return q->made;
}

/* The suspect of growth row i of r. */
static struct suspect growth_suspect(const PGresult *r, int i)
{
    return (struct suspect){PQgetvalue(r, i, 0), PQgetvalue(r, i, 1), PQgetvalue(r, i, 2), 0, 1,
                            {0, 0}, {atof(PQgetvalue(r, i, 3)), atof(PQgetvalue(r, i, 4))},
                            0, atof(PQgetvalue(r, i, 5)), PQgetvalue(r, i, 6),
                            PQgetvalue(r, i, 7)};
}

/* The verdicts read (into aux), the suspects made, sorted and put by site. */
static int leaks_after(PGconn *c, struct sel *s, struct fleet_rows *q, char *err, size_t errlen)
{
    q->aux = verdict_leaks(c, s, err, errlen);
    if (!q->aux)
        return -1;
    const PGresult *r = q->r, *rv = q->aux;
    int nc = PQntuples(r), nv = PQntuples(rv), n = 0;
    struct leaks_made *m = xcalloc(1, sizeof(*m));
    q->made = m;
    struct suspect *x = m->x = xcalloc((size_t)(nc + nv) + 1, sizeof(*x));
    for (int i = 0; i < nc; i++, n++)
        x[n] = growth_suspect(r, i);
    for (int i = 0; i < nv; i++) {
        int k = 0;
        while (k < nc && (strcmp(x[k].device, PQgetvalue(rv, i, 0)) != 0 ||
                          strcmp(x[k].stack, PQgetvalue(rv, i, 1)) != 0 ||
                          strcmp(x[k].task, PQgetvalue(rv, i, 2)) != 0))
            k++;
        if (k == nc)
            x[k = n++] = (struct suspect){PQgetvalue(rv, i, 0), PQgetvalue(rv, i, 1),
                                          PQgetvalue(rv, i, 2), 0, 0, {0, 0}, {0, 0}, 0, 0, "0",
                                          "0"};
        x[k].has_v = 1;
        x[k].v = (struct est){atof(PQgetvalue(rv, i, 3)), atof(PQgetvalue(rv, i, 4))};
        x[k].since = atof(PQgetvalue(rv, i, 5));
    }
    qsort(x, (size_t)n, sizeof(*x), by_suspect_slope);
    /* by site: the suspects of the same stack and task on several devices */
    m->n = n;
    m->site_of = xcalloc(2 * (size_t)n + 1, sizeof(int));
    m->site = m->site_of + n;
    int nsite = 0;
    for (int i = 0; i < n; i++) {
        m->site_of[i] = i;
        for (int j = 0; j < i; j++)
            if (strcmp(x[j].stack, x[i].stack) == 0 && strcmp(x[j].task, x[i].task) == 0) {
                m->site_of[i] = m->site_of[j];
                break;
            }
        if (m->site_of[i] == i)
            m->site[nsite++] = i;
    }
    q->n[0] = n;
    q->n[1] = nsite;
    return 0;
}

static void leaks_free(struct fleet_rows *q)
{
    struct leaks_made *m = made(q);
    if (m) {
        free(m->x);
        free(m->site_of);
    }
    free(m);
}

/* The growth's rate: its change over its time (0 without growth). */
static struct est growth_slope(const struct suspect *x)
{
    return (struct est){x->has_c ? x->d.est / x->dt : 0,
                        x->has_c ? x->d.var / (x->dt * x->dt) : 0};
}

static void suspects_title(const struct fleet_rows *q)
{
    printf("leak suspects by device (%d): +bytes/s [95 %% interval], the evidence (verdict: the "
           "leak verdict of the device's latest profile, as drain --leaks gave it; growth: in-use "
           "grown over the recent half of the device's sessions, across consecutive profiles), "
           "site\n", q->n[0]);
}

static void suspect_text(const struct fleet_rows *q, int i)
{
    const struct suspect *x = &made(q)->x[i];
    struct est sl = suspect_slope(x), g = growth_slope(x);
    printf("  %s +%.0f/s [%.0f/s, %.0f/s] evidence:", x->device, sl.est, est_sym_lo(sl),
           est_sym_hi(sl));
    if (x->has_v)
        printf(" verdict (latest profile, since %.3f s)%s", x->since, x->has_c ? ";" : "");
    if (x->has_c)
        printf(" growth +%.0f B (z %.1f) +%.0f/s [%.0f/s, %.0f/s] %s sessions, %s profiles",
               x->d.est, x->d.var > 0 ? x->d.est / sqrt(x->d.var) : INFINITY, g.est,
               est_sym_lo(g), est_sym_hi(g), x->nses, x->nprof);
    printf("  %s%s%s\n", x->stack, x->task[0] ? " task=" : "", x->task);
}

static void suspect_json(FILE *js, const struct fleet_rows *q, int i)
{
    const struct suspect *x = &made(q)->x[i];
    struct est sl = suspect_slope(x), g = growth_slope(x);
    fputs("{\"device\":", js);
    json_str(js, x->device);
    fprintf(js, ",\"stack\":%s,\"task\":", x->stack);
    json_str(js, x->task);
    fprintf(js, ",\"evidence\":[%s%s%s],\"slope\":%.17g,\"lo\":%.17g,\"hi\":%.17g,\"verdict\":",
            x->has_v ? "\"verdict\"" : "", x->has_v && x->has_c ? "," : "",
            x->has_c ? "\"growth\"" : "", sl.est, est_sym_lo(sl), est_sym_hi(sl));
    if (x->has_v)
        fprintf(js, "{\"slope\":%.17g,\"var\":%.17g,\"lo\":%.17g,\"hi\":%.17g,\"since_s\":%.17g}",
                x->v.est, x->v.var, est_sym_lo(x->v), est_sym_hi(x->v), x->since);
    else
        fputs("null", js);
    if (x->has_c) /* the growth's: its change, time and rate */
        fprintf(js, ",\"growth_bytes\":%.17g,\"growth_var\":%.17g,\"seconds\":%.17g,"
                "\"growth_slope\":%.17g,\"growth_lo\":%.17g,\"growth_hi\":%.17g",
                x->d.est, x->d.var, x->dt, g.est, est_sym_lo(g), est_sym_hi(g));
    else
        fputs(",\"growth_bytes\":null,\"growth_var\":null,\"seconds\":null,"
              "\"growth_slope\":null,\"growth_lo\":null,\"growth_hi\":null", js);
    /* sessions and profiles: those the growth compared (0 without it) */
    fprintf(js, ",\"sessions\":%s,\"profiles\":%s}", x->nses, x->nprof);
}

static void sites_title(const struct fleet_rows *q)
{
    (void)q;
    printf("leak suspects by site: devices, +bytes/s summed, site\n");
}

/* Site k's suspects: their devices into devs ("a,b", or JSON strings with json set) and how many
 * in *nd; their slopes summed (their samples are independent). */
static struct est site_devices(const struct leaks_made *m, int k, int json, struct buf *devs,
                               int *nd)
{
    struct est sum = {0, 0};
    *nd = 0;
    for (int j = m->site[k]; j < m->n; j++) {
        if (m->site_of[j] != m->site[k])
            continue;
        struct est sl = suspect_slope(&m->x[j]);
        sum.est += sl.est;
        sum.var += sl.var;
        if ((*nd)++)
            buf_str(devs, ",");
        if (json)
            json_put_str(devs, m->x[j].device, strlen(m->x[j].device), 0);
        else
            buf_str(devs, m->x[j].device);
    }
    return sum;
}

static void site_text(const struct fleet_rows *q, int k)
{
    const struct suspect *x = &made(q)->x[made(q)->site[k]];
    struct buf devs = {0};
    int nd;
    struct est sum = site_devices(made(q), k, 0, &devs, &nd);
    printf("  %d device%s (%s) +%.0f/s [%.0f/s, %.0f/s]  %s%s%s\n", nd, nd > 1 ? "s" : "",
           buf_cstr(&devs), sum.est, est_sym_lo(sum), est_sym_hi(sum), x->stack,
           x->task[0] ? " task=" : "", x->task);
    buf_free(&devs);
}

static void site_json(FILE *js, const struct fleet_rows *q, int k)
{
    const struct suspect *x = &made(q)->x[made(q)->site[k]];
    struct buf devs = {0};
    int nd;
    struct est sum = site_devices(made(q), k, 1, &devs, &nd);
    fprintf(js, "{\"stack\":%s,\"task\":", x->stack);
    json_str(js, x->task);
    fprintf(js, ",\"devices\":[%s],\"slope\":%.17g,\"lo\":%.17g,\"hi\":%.17g}", buf_cstr(&devs),
            sum.est, est_sym_lo(sum), est_sym_hi(sum));
    buf_free(&devs);
}

const struct fleet_query fleet_leaks_query = {
    .sql = leaks_sql,
    .after = leaks_after,
    .free = leaks_free,
    .ntable = 2,
    .table = {{"leaks", suspects_title, suspect_text, suspect_json},
              {"sites", sites_title, site_text, site_json}},
};
