/*
 * drain fleet top and devices (docs/FLEET.md) as queries of fleet_query_run (query.h): each its
 * SQL over the selection and its table's row printers, text and JSON. top: the selection's sites
 * (stack, task) by their sums of each sample type; devices: each device's heap figures, failures,
 * in-use, resets and time to exhaustion, ranked by minimum free heap.
 */
#include "fleet/queries.h"

#include <stdlib.h>
#include <string.h>

#include "model/est.h"
#include "verdict/exhaust.h"
#include "verdict/vprof.h"

/* top: the selection's sample types (in the profiles' order), then one row per site (stack, task)
 * with each type's sum, aggregated by the server over the site rows (one GROUP BY, no row per
 * type); the first --top N by the ranking type. */
static int top_types(PGconn *c, struct sel *s, struct fleet_rows *q, char *err, size_t errlen)
{
    struct buf b = {0};
    buf_printf(&b,
               "SELECT t FROM msamp_profile p, unnest(p.sample_types) WITH ORDINALITY u(t, o)"
               " WHERE %s GROUP BY t ORDER BY min(o), t", buf_cstr(&s->where));
    q->aux = sel_query(c, s, buf_cstr(&b), err, errlen);
    buf_free(&b);
    return q->aux ? 0 : -1;
}

/* The sample types top sums: the first MAX_TYPES. */
static int top_ntypes(const struct fleet_rows *q)
{
    int nt = PQntuples(q->aux);
    return nt > MAX_TYPES ? MAX_TYPES : nt;
}

/* The sites' columns: stack (JSON), task, the sites in all, then each type's sum (a parameter
 * names the type); ranked by inuse_space when there, else the last type. The sums come from the
 * rollups (docs/FLEET.md "Rollups") of the buckets the selection holds whole (fleet_sel_buckets:
 * the filters true of the bucket's every profile) and from the site rows of the selected profiles
 * of the other buckets, summed together per site. */
static void top_sql(struct buf *b, struct sel *s, const struct fleet_rows *q)
{
    int nt = PQntuples(q->aux), rank = nt - 1;
    for (int k = 0; k < nt; k++)
        if (strcmp(PQgetvalue(q->aux, k, 0), "inuse_space") == 0)
            rank = k;
    nt = top_ntypes(q);
    int base = s->nparams;
    for (int k = 0; k < nt; k++)
        add_param(s, PQgetvalue(q->aux, k, 0));
    fleet_sel_buckets(b, s, ", p.sample_types");
    /* tp: each set of types' place of each type (p1 ..); u: each type's value (v1 ..) of each
     * rollup row (bigint[] in the order of its set of types) and site row (bigint[] in the order
     * of its profile's sample_types, version 6), their stack and task in msamp_stack (version 8) */
    buf_str(b, ", tp AS (SELECT tid");
    for (int k = 0; k < nt; k++)
        buf_printf(b, ", array_position(types, $%d) AS p%d", base + k + 1, k);
    buf_str(b, " FROM msamp_tset), u AS (SELECT s.stack, s.task");
    for (int k = 0; k < nt; k++)
        buf_printf(b, ", r.vals[tp.p%d]::numeric AS v%d", k, k);
    buf_str(b, " FROM fb JOIN msamp_rollup r ON r.device = fb.device AND r.bucket = fb.id"
               " JOIN msamp_stack s ON s.h = r.h JOIN tp ON tp.tid = r.tid"
               " UNION ALL SELECT sk.stack, sk.task");
    for (int k = 0; k < nt; k++)
        buf_printf(b, ", st.vals[array_position(pp.sample_types, $%d)]", base + k + 1);
    buf_printf(b, " FROM pp CROSS JOIN LATERAL (SELECT * FROM msamp_site st WHERE st.device ="
               " pp.device AND st.profile_id = pp.id AND st.t_end = pp.t_end%s) st"
               " JOIN msamp_stack sk ON sk.h = st.h)"
               " SELECT array_to_json(stack)::text, task, count(*) OVER ()",
               buf_cstr(&s->where_st));
    for (int k = 0; k < nt; k++)
        buf_printf(b, ", sum(v%d)::text", k);
    buf_str(b, " FROM u GROUP BY stack, task");
    if (nt > 0)
        buf_printf(b, " ORDER BY sum(v%d) DESC NULLS LAST, 1, 2", rank < nt ? rank : 0);
    buf_printf(b, " LIMIT %ld", s->ntop);
}

static void top_title(const struct fleet_rows *q)
{
    printf("top sites of the selection (%s sites; value [95 %% interval] when the variance is "
           "stored)\n", PQntuples(q->r) ? PQgetvalue(q->r, 0, 2) : "0");
}

/* Site i's value of type k, its variance that of type KEY_var when that is summed too (var -1
 * without): 0 when type k is a variance or the site has no value of it. */
static int top_value(const struct fleet_rows *q, int i, int k, struct est *e)
{
    const char *key = PQgetvalue(q->aux, k, 0);
    size_t kl = strlen(key);
    if ((kl > 4 && strcmp(key + kl - 4, "_var") == 0) || PQgetlength(q->r, i, 3 + k) == 0)
        return 0;
    *e = (struct est){atof(PQgetvalue(q->r, i, 3 + k)), -1};
    for (int m = 0; m < top_ntypes(q); m++)
        if (strncmp(PQgetvalue(q->aux, m, 0), key, kl) == 0 &&
            strcmp(PQgetvalue(q->aux, m, 0) + kl, "_var") == 0 && PQgetlength(q->r, i, 3 + m))
            e->var = atof(PQgetvalue(q->r, i, 3 + m));
    return 1;
}

static void top_text(const struct fleet_rows *q, int i)
{
    const PGresult *r = q->r;
    printf("%d. %s%s%s\n", i + 1, PQgetvalue(r, i, 0), PQgetvalue(r, i, 1)[0] ? " task=" : "",
           PQgetvalue(r, i, 1));
    struct est e;
    for (int k = 0; k < top_ntypes(q); k++) {
        if (!top_value(q, i, k, &e))
            continue;
        const char *key = PQgetvalue(q->aux, k, 0), *val = PQgetvalue(r, i, 3 + k);
        if (e.var >= 0)
            printf("   %s %s [%.0f, %.0f]\n", key, val, est_lo(e), est_hi(e));
        else
            printf("   %s %s\n", key, val);
    }
}

static void top_json(FILE *js, const struct fleet_rows *q, int i)
{
    const PGresult *r = q->r;
    fprintf(js, "{\"stack\":%s,\"task\":", PQgetvalue(r, i, 0));
    json_str(js, PQgetvalue(r, i, 1));
    fputs(",\"values\":{", js);
    int first = 1;
    struct est e;
    for (int k = 0; k < top_ntypes(q); k++) {
        if (!top_value(q, i, k, &e))
            continue;
        fputs(first ? "" : ",", js);
        json_str(js, PQgetvalue(q->aux, k, 0)); /* a sample type's name, escaped like any string */
        fprintf(js, ":{\"value\":%s", PQgetvalue(r, i, 3 + k));
        if (e.var >= 0)
            fprintf(js, ",\"lo\":%.17g,\"hi\":%.17g", est_lo(e), est_hi(e));
        fputs("}", js);
        first = 0;
    }
    fputs("}}", js);
}

const struct fleet_query fleet_top_query = {
    .before = top_types,
    .sql = top_sql,
    .ntable = 1,
    .table = {{"sites", top_title, top_text, top_json}},
};

/* The sample type the ranking uses: inuse_space when there, else the last one. */
static const char rank_sql[] =
    "(SELECT coalesce((SELECT t FROM unnest(p.sample_types) t WHERE t = 'inuse_space'),"
    " p.sample_types[array_length(p.sample_types, 1)]))";

/* A JSON value of a column: its text, or null when SQL NULL. */
static const char *jv(const PGresult *r, int i, int k)
{
    return PQgetlength(r, i, k) ? PQgetvalue(r, i, k) : "null";
}
/* A text column's value, or "?" when SQL NULL (unknown). */
static const char *tv(const PGresult *r, int i, int k)
{
    return PQgetlength(r, i, k) ? PQgetvalue(r, i, k) : "?";
}

/* A device's time to exhaustion (docs/FLEET.md), from its latest profile's comment c ("": none,
 * an older drain's) and driver (its fastest leak's innermost frame, "" none): into txt, the
 * devices table's column ("3.70 h [3.20 h, 4.38 h] leak_record", "not within 13.3 min", "?"
 * unknown), or into js, ',"exhaustion":...' as drain's --json says it. */
static void device_exhaustion(FILE *txt, FILE *js, const char *c, const char *driver)
{
    struct exhaustion e;
    int have = exhaust_parse(c, 0, &e);
    char t[32], lo[32], hi[32];
    fmt_secs(t, sizeof(t), e.t);
    fmt_secs(lo, sizeof(lo), e.lo);
    fmt_secs(hi, sizeof(hi), e.hi);
    int out = exhaust_running_out(&e);
    if (txt) {
        if (!e.known)
            fputs("  ?", txt);
        else if (out)
            fprintf(txt, "  %s [%s, %s] %s", t, lo, hi, driver);
        else
            fprintf(txt, "  not within %s", lo);
        return;
    }
    fputs(",\"exhaustion\":", js);
    if (!have) {
        fputs("null", js);
        return;
    }
    if (!exhaust_json(js, &e))
        return;
    fputs(", \"driver\": ", js);
    json_str(js, out && driver[0] ? driver : NULL);
    fputc('}', js);
}

/* Per device: the smallest free heap its allocator reported (min_free of its profiles' last HEAP
 * records), its failures (per session the most its profiles count, summed over sessions), its
 * latest profile's in-use, free, largest free block and heap size (a final one before a partial at
 * the same end), its profiles, its smallest and largest in-use. Ranked by minimum free heap
 * (unknown last), then failures, then in-use. One row a profile is read (its totals), not its
 * sites; of the latest profile, its time to exhaustion (its msamp-verdict exhaustion comment, as
 * drain stored it) and its fastest leak's innermost frame (the forecast's driver); its sessions a
 * reset ended (their profiles' msamp-verdict ended comments: verdict/ended.h). Columns: device,
 * the nine figures of the table (dev_col), the ranking type, the exhaustion comment, the driver,
 * the resets. */
static void devices_sql(struct buf *b, struct sel *s, const struct fleet_rows *q)
{
    (void)q;
    buf_printf(b,
               "WITH sel AS (SELECT p.device, p.id, p.session, p.t_end, p.kind, p.failures,"
               " p.heap_free, p.heap_min_free, p.heap_largest_free, p.heap_total,"
               " (p.totals->>%s)::numeric AS inuse, %s AS rank_type,"
               " EXISTS (SELECT 1 FROM unnest(p.comments) c"
               " WHERE c LIKE 'msamp-verdict ended|how=reset|%%') AS reset_ended"
               " FROM msamp_profile p WHERE %s),"
               " lat AS (SELECT DISTINCT ON (device) * FROM sel"
               " ORDER BY device, t_end DESC, kind = 'final' DESC, id DESC),"
               " fl AS (SELECT device, sum(f) AS f FROM (SELECT device, max(failures) AS f FROM sel"
               " GROUP BY device, session) x GROUP BY device),"
               " agg AS (SELECT device, count(*) AS n, min(inuse) AS lo, max(inuse) AS hi,"
               " min(heap_min_free) AS min_free,"
               " count(DISTINCT session) FILTER (WHERE reset_ended) AS resets"
               " FROM sel GROUP BY device)"
               " SELECT agg.device, agg.min_free, fl.f, lat.inuse, agg.n, agg.lo, agg.hi,"
               " lat.heap_free, lat.heap_largest_free, lat.heap_total, lat.rank_type,"
               " (SELECT c FROM msamp_profile pp, unnest(pp.comments) c WHERE pp.device ="
               " lat.device AND pp.id = lat.id AND pp.t_end = lat.t_end"
               " AND c LIKE 'msamp-verdict exhaustion|%%' LIMIT 1),"
               " (SELECT sk.stack[1] FROM msamp_leak l JOIN msamp_site st"
               " USING (device, profile_id, t_end, site) JOIN msamp_stack sk ON sk.h = st.h"
               " WHERE l.device = lat.device"
               " AND l.profile_id = lat.id AND l.t_end = lat.t_end ORDER BY l.slope DESC LIMIT 1),"
               " agg.resets FROM agg JOIN fl USING (device) JOIN lat USING (device)"
               " ORDER BY agg.min_free ASC NULLS LAST, fl.f DESC, lat.inuse DESC NULLS LAST,"
               " agg.device",
               rank_sql, rank_sql, buf_cstr(&s->where));
}

/* The table's columns: its heading and JSON key, its width (the device's is 24, left aligned). */
static const char *const dev_col[10] = {"device", "min free", "failures", "in-use", "profiles",
                                        "min in-use", "max in-use", "free", "largest free",
                                        "heap"};
static const char *const dev_key[10] = {"device",    "min_free",  "failures",   "inuse",
                                        "profiles",  "min_inuse", "max_inuse",  "free",
                                        "largest_free", "heap_total"};
static int dev_width(int k)
{
    return k == 2 || k == 4 ? 9 : 12;
}

static void devices_title(const struct fleet_rows *q)
{
    printf("devices by minimum free heap (the allocator's HEAP records; ? unknown), failures, "
           "in-use (their latest profile's %s)\n", PQntuples(q->r) ? PQgetvalue(q->r, 0, 10) : "");
    printf("  %-24s", dev_col[0]);
    for (int k = 1; k < 10; k++)
        printf(" %*s", dev_width(k), dev_col[k]);
    printf(" %7s  %s\n", "resets", "runs out in (95 %), driven by");
}

static void devices_text(const struct fleet_rows *q, int i)
{
    const PGresult *r = q->r;
    printf("  %-24s", PQgetvalue(r, i, 0));
    for (int k = 1; k < 10; k++)
        printf(" %*s", dev_width(k), tv(r, i, k));
    printf(" %7s", tv(r, i, 13));
    device_exhaustion(stdout, NULL, PQgetvalue(r, i, 11), PQgetvalue(r, i, 12));
    printf("\n");
}

static void devices_json(FILE *js, const struct fleet_rows *q, int i)
{
    const PGresult *r = q->r;
    fputs("{\"device\":", js);
    json_str(js, PQgetvalue(r, i, 0));
    for (int k = 1; k < 10; k++)
        fprintf(js, ",\"%s\":%s", dev_key[k], jv(r, i, k));
    fprintf(js, ",\"resets\":%s", jv(r, i, 13));
    device_exhaustion(NULL, js, PQgetvalue(r, i, 11), PQgetvalue(r, i, 12));
    fputs("}", js);
}

const struct fleet_query fleet_devices_query = {
    .sql = devices_sql,
    .ntable = 1,
    .table = {{"devices", devices_title, devices_text, devices_json}},
};
