/*
 * drain push (docs/FLEET.md): each profile file's bytes stored with what selects it (device, build
 * id, session, kind, time range, labels), its totals and heap figures, a per-site rollup (the
 * symbolized stack, the task, every sample type's value by name, so variance types are kept as
 * well) and the leak verdicts drain stored in it. A profile is stored once (its SHA-256), in one
 * transaction; the month's partitions are made first (msamp_partition, schema.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "fleet/pq.h"
#include "fleet/schema.h"
#include "pprof/prof_file.h"
#include "util.h"
#include "verdict/growth.h"

static const char *pstr(const struct prof *p, int64_t i)
{
    return i >= 0 && (size_t)i < p->nstr ? p->str[i] : "";
}

/* The first value of the string label key over the samples ("" if none). */
static const char *first_label(const struct prof *p, const char *key)
{
    for (size_t s = 0; s < p->nsample; s++)
        for (uint32_t l = 0; l < p->sample[s].nlabel; l++) {
            const struct prof_label *lb = &p->labelpool[p->sample[s].label_off + l];
            if (lb->str && strcmp(pstr(p, lb->key), key) == 0)
                return pstr(p, lb->str);
        }
    return "";
}

/* The figure NAME of an msamp-heap comment (pprof/prof_notes.c: " name=V", V '?' when unknown) into
 * out as digits; NULL when unknown or absent (the column's NULL). */
static const char *heap_fig(const char *comment, const char *name, char out[24])
{
    char key[32];
    snprintf(key, sizeof(key), " %s=", name);
    const char *v = strstr(comment, key);
    size_t n = v ? strspn(v += strlen(key), "0123456789") : 0;
    if (n == 0 || n > 20)
        return NULL;
    memcpy(out, v, n);
    out[n] = 0;
    return out;
}

/* A site: a symbolized stack (innermost first) and a task; its samples' values summed. */
struct site {
    char *key;          /* the stack as JSON array text, a 0, the task */
    size_t key_len;
    size_t stack_len;   /* the JSON array's length in key */
    const char *task;
    int64_t *val;
};

static void frame_text(const struct prof *p, uint64_t locid, struct buf *b)
{
    const struct prof_location *l = &p->location[locid - 1];
    if (l->nline == 0) {
        char t[PROF_ADDR_TEXT];
        prof_addr_text(p, l, t, NULL);
        json_put_str(b, t, strlen(t), 0);
        return;
    }
    for (uint32_t i = 0; i < l->nline; i++) {
        const struct prof_line *ln = &p->linepool[l->line_off + i];
        const char *fn = ln->function_id ? pstr(p, p->function[ln->function_id - 1].name) : "?";
        if (i)
            buf_str(b, ",");
        json_put_str(b, fn, strlen(fn), 0);
    }
}

/* Sample sm's site as a key: its stack as a JSON array (innermost frame first), a 0, its task;
 * *stack_len the array's length, *task the task ("" none). */
static void site_key(const struct prof *p, const struct prof_sample *sm, struct buf *k,
                     size_t *stack_len, const char **task)
{
    buf_str(k, "[");
    for (uint32_t i = 0; i < sm->nloc; i++) {
        if (i)
            buf_str(k, ",");
        frame_text(p, p->locpool[sm->loc_off + i], k);
    }
    buf_str(k, "]");
    *stack_len = k->len;
    *task = "";
    for (uint32_t l = 0; l < sm->nlabel; l++) {
        const struct prof_label *lb = &p->labelpool[sm->label_off + l];
        if (lb->str && strcmp(pstr(p, lb->key), "task") == 0)
            *task = pstr(p, lb->str);
    }
    buf_put(k, "", 1); /* a 0 between stack and task in the key */
    buf_str(k, *task);
}

/* The sites' rows as JSON arrays msamp_site's rows are inserted from, of at most SITE_BATCH sites
 * each (a JSON value of PostgreSQL is at most 256 MiB): their number; the sites freed. */
#define SITE_BATCH 4096
static size_t site_batches(const struct prof *p, struct site *sites, size_t nsites,
                           struct buf **batch)
{
    size_t nb = (nsites + SITE_BATCH - 1) / SITE_BATCH;
    *batch = xcalloc(nb ? nb : 1, sizeof(**batch));
    for (size_t j = 0; j < nsites; j++) {
        struct buf *out = &(*batch)[j / SITE_BATCH];
        buf_printf(out, "%s{\"i\":%zu,\"stack\":", j % SITE_BATCH ? "," : "[", j);
        buf_put(out, sites[j].key, sites[j].stack_len);
        buf_str(out, ",\"task\":");
        json_put_str(out, sites[j].task, strlen(sites[j].task), 0);
        buf_str(out, ",\"vals\":{");
        for (size_t v = 0; v < p->nvt; v++) {
            const char *name = pstr(p, p->vt[v].type);
            if (v)
                buf_str(out, ",");
            json_put_str(out, name, strlen(name), 0);
            buf_printf(out, ":%lld", (long long)sites[j].val[v]);
        }
        buf_str(out, j % SITE_BATCH == SITE_BATCH - 1 || j == nsites - 1 ? "}}]" : "}}");
        free(sites[j].key);
        free(sites[j].val);
    }
    free(sites);
    return nb;
}

/* The profile's rollup by site (site_key: its samples' values summed), as site_batches' JSON
 * batches (their number); each sample's site into *site_of_sample. */
static size_t rollup_json(const struct prof *p, struct buf **batch, uint32_t **site_of_sample)
{
    struct site *sites = NULL;
    size_t nsites = 0, cap = 0;
    struct umap idx;
    memset(&idx, 0, sizeof(idx));
    *site_of_sample = xcalloc(p->nsample ? p->nsample : 1, sizeof(uint32_t));
    for (size_t s = 0; s < p->nsample; s++) {
        const struct prof_sample *sm = &p->sample[s];
        struct buf k = {0};
        size_t stack_len;
        const char *task;
        site_key(p, sm, &k, &stack_len, &task);
        uint64_t h = hash_bytes(k.p, k.len, 1);
        size_t j = umap_get(&idx, h);
        if (j < nsites && (sites[j].key_len != k.len || memcmp(sites[j].key, k.p, k.len) != 0))
            for (j = 0; j < nsites; j++) /* a hash collision: look through all (rare) */
                if (sites[j].key_len == k.len && memcmp(sites[j].key, k.p, k.len) == 0)
                    break;
        if (j > nsites)
            j = nsites;
        if (j == nsites) {
            grow((void **)&sites, &cap, nsites + 1, sizeof(*sites));
            sites[nsites] = (struct site){(char *)k.p, k.len, stack_len, task,
                                          xcalloc(p->nvt ? p->nvt : 1, 8)};
            umap_put(&idx, h, (uint32_t)nsites);
            nsites++;
        } else {
            buf_free(&k);
        }
        for (size_t v = 0; v < p->nvt; v++)
            sites[j].val[v] += p->valpool[sm->val_off + v];
        (*site_of_sample)[s] = (uint32_t)j;
    }
    umap_free(&idx);
    return site_batches(p, sites, nsites, batch);
}

/* "{a,b}" text array literal of strings. */
static void pg_array(struct buf *b, const char *const *v, size_t n)
{
    buf_str(b, "{");
    for (size_t i = 0; i < n; i++) {
        buf_str(b, i ? ",\"" : "\"");
        for (const char *s = v[i]; *s; s++) {
            if (*s == '"' || *s == '\\')
                buf_put(b, "\\", 1);
            buf_put(b, s, 1);
        }
        buf_str(b, "\"");
    }
    buf_str(b, "}");
}

/* Whether string i holds a NUL byte (its text cut there). */
static int has_nul(const struct prof *p, int64_t i)
{
    return i > 0 && (size_t)i < p->nstr && memchr(p->str[i], 0, p->strlen[i]) != NULL;
}

/* A string the store keeps as text (a label's key or value, a sample type, a comment, a mapping's
 * build id) that holds a NUL byte: PostgreSQL's text cannot hold one, and cut there a device's name
 * would be another's. 0 when there is none, else -1 with what it is in why. */
static int nul_check(const struct prof *p, char *why, size_t whylen)
{
    const char *what = NULL;
    int64_t at = 0, key = 0;
    for (size_t s = 0; s < p->nsample && !what; s++)
        for (uint32_t l = 0; l < p->sample[s].nlabel && !what; l++) {
            const struct prof_label *lb = &p->labelpool[p->sample[s].label_off + l];
            if (has_nul(p, lb->key) || has_nul(p, lb->str))
                what = "a label", key = lb->key, at = has_nul(p, lb->key) ? lb->key : lb->str;
        }
    for (size_t v = 0; v < p->nvt && !what; v++)
        if (has_nul(p, p->vt[v].type))
            what = "a sample type", at = p->vt[v].type;
    for (size_t i = 0; i < p->ncomment && !what; i++)
        if (has_nul(p, p->comment[i]))
            what = "a comment", at = p->comment[i];
    for (size_t m = 0; m < p->nmapping && !what; m++)
        if (has_nul(p, p->mapping[m].build_id))
            what = "a mapping's build id", at = p->mapping[m].build_id;
    if (!what)
        return 0;
    snprintf(why, whylen, "%s%s%s holds a NUL byte (\"%s\\0...\"): refused, nothing stored (the "
             "store's text cannot hold one; cut there, it would be another's)", what,
             key ? " " : "", key ? pstr(p, key) : "", pstr(p, at));
    return -1;
}

/* The file at path read whole (at most PROF_MAX_FILE bytes) into raw and decoded into p, its
 * strings checked (nul_check): 0, or -1 with "PATH: reason" in err and nothing kept. */
static int push_read(const char *path, struct buf *raw, struct prof *p, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    *raw = (struct buf){0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && raw->len <= PROF_MAX_FILE)
        buf_put(raw, chunk, n);
    int rerr = ferror(f);
    fclose(f);
    if (rerr || raw->len > PROF_MAX_FILE) {
        snprintf(err, errlen, "%s: %s", path, rerr ? "read error" : "larger than the bound");
        buf_free(raw);
        return -1;
    }
    char why[512];
    int bad = prof_read_mem(p, raw->p, raw->len, why, sizeof(why));
    if (bad == 0 && nul_check(p, why, sizeof(why)) != 0) {
        prof_free(p);
        bad = -1;
    }
    if (bad != 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        buf_free(raw);
        return -1;
    }
    return 0;
}

/* What push stores of a profile: its msamp_profile row's columns as text (the INSERT's
 * parameters), its sites' rows as JSON batches (rollup_json) and its leaks' as a JSON array. */
struct push_row {
    const char *device, *build, *session, *kind;
    char anon[96];                /* device when the profile names none */
    char t0[32], t1[32], fl[32];  /* its time range (ns since the epoch), its failures */
    const char *heap[4];          /* free, min_free, largest_free, total (NULL unknown) */
    char heapv[4][24];
    const char **cm, **vtn;       /* its comments, its sample types */
    char **lv;                    /* its labels K=V */
    size_t nlv;
    struct buf lab, vts, cms, tot, leaks; /* text arrays, the totals, the leaks */
    struct buf *sites;            /* the sites' batches */
    size_t nbatch;
    uint32_t *site_of;            /* each sample's site */
};

/* What selects it: device, build id, session. A device that sends no id (its configuration
 * leaves it out) is known by its session only. */
static void row_names(struct push_row *w, const struct prof *p)
{
    w->device = first_label(p, "device");
    w->build = first_label(p, "build_id");
    if (!*w->build)
        for (size_t m = 0; m < p->nmapping && !*w->build; m++)
            w->build = pstr(p, p->mapping[m].build_id);
    w->session = first_label(p, "session");
    if (!*w->device) {
        snprintf(w->anon, sizeof(w->anon), "session-%s", *w->session ? w->session : "unknown");
        w->device = w->anon;
    }
    snprintf(w->t0, sizeof(w->t0), "%lld", (long long)p->time_nanos);
    snprintf(w->t1, sizeof(w->t1), "%lld", (long long)(p->time_nanos + p->duration_nanos));
}

/* Its comments, and what they say: partial or final, the allocation failures, the heap's figures
 * (the msamp-heap comment). */
static void row_comments(struct push_row *w, const struct prof *p)
{
    w->kind = "final";
    long long failures = 0;
    w->cm = xcalloc(p->ncomment + 1, sizeof(char *));
    for (size_t i = 0; i < p->ncomment; i++) {
        const char *c = w->cm[i] = pstr(p, p->comment[i]);
        if (strstr(c, "no END yet (the stream goes on)"))
            w->kind = "partial";
        unsigned long long a, g;
        if (sscanf(c, "allocation failures: null=%llu giant_refused=%llu", &a, &g) == 2)
            failures = (long long)(a + g);
        if (strncmp(c, "msamp-heap ", 11) == 0) {
            static const char *const fig[4] = {"free", "min_free", "largest_free", "total"};
            for (int f = 0; f < 4; f++)
                w->heap[f] = heap_fig(c, fig[f], w->heapv[f]);
        }
    }
    pg_array(&w->cms, w->cm, p->ncomment);
    snprintf(w->fl, sizeof(w->fl), "%lld", failures);
}

/* The labels: every distinct string label K=V but the per-site ones (task). */
static void row_labels(struct push_row *w, const struct prof *p)
{
    size_t caplv = 0;
    for (size_t s = 0; s < p->nsample; s++)
        for (uint32_t l = 0; l < p->sample[s].nlabel; l++) {
            const struct prof_label *lb = &p->labelpool[p->sample[s].label_off + l];
            const char *k = pstr(p, lb->key);
            if (!lb->str || strcmp(k, "task") == 0)
                continue;
            char kv[512];
            snprintf(kv, sizeof(kv), "%s=%s", k, pstr(p, lb->str));
            size_t i = 0;
            while (i < w->nlv && strcmp(w->lv[i], kv) != 0)
                i++;
            if (i == w->nlv && w->nlv < 256) {
                grow((void **)&w->lv, &caplv, w->nlv + 1, sizeof(*w->lv));
                w->lv[w->nlv++] = xstrndup(kv, strlen(kv));
            }
        }
    pg_array(&w->lab, (const char *const *)w->lv, w->nlv);
}

/* The sample types, and the totals: each type summed over the samples, as a JSON object. */
static void row_totals(struct push_row *w, const struct prof *p)
{
    w->vtn = xcalloc(p->nvt + 1, sizeof(char *));
    for (size_t v = 0; v < p->nvt; v++)
        w->vtn[v] = pstr(p, p->vt[v].type);
    pg_array(&w->vts, w->vtn, p->nvt);
    int64_t *sum = xcalloc(p->nvt + 1, sizeof(int64_t));
    for (size_t i = 0; i < p->nsample; i++)
        for (size_t v = 0; v < p->nvt; v++)
            sum[v] += p->valpool[p->sample[i].val_off + v];
    buf_str(&w->tot, "{");
    for (size_t v = 0; v < p->nvt; v++) {
        json_put_str(&w->tot, w->vtn[v], strlen(w->vtn[v]), 0);
        buf_printf(&w->tot, ":%lld%s", (long long)sum[v], v + 1 < p->nvt ? "," : "");
    }
    buf_str(&w->tot, "}");
    free(sum);
}

/* The sites (rollup_json) and the leak verdicts drain stored in the profile, by site. */
static void row_sites(struct push_row *w, const struct prof *p)
{
    w->nbatch = rollup_json(p, &w->sites, &w->site_of);
    struct growth_leak gl[256];
    size_t ngl = growth_leaks_from_prof(p, gl, 256);
    buf_str(&w->leaks, "[");
    for (size_t i = 0; i < ngl; i++)
        buf_printf(&w->leaks, "%s{\"i\":%u,\"slope\":%.17g,\"var\":%.17g,\"since\":%.17g}",
                   i ? "," : "", gl[i].sample < p->nsample ? w->site_of[gl[i].sample] : 0,
                   gl[i].slope_bytes_per_s.est, gl[i].slope_bytes_per_s.var, gl[i].since_s);
    buf_str(&w->leaks, "]");
}

static void row_free(struct push_row *w)
{
    for (size_t i = 0; i < w->nbatch; i++)
        buf_free(&w->sites[i]);
    free(w->sites);
    for (size_t i = 0; i < w->nlv; i++)
        free(w->lv[i]);
    free(w->lv);
    free(w->vtn);
    free(w->cm);
    free(w->site_of);
    buf_free(&w->lab);
    buf_free(&w->vts);
    buf_free(&w->tot);
    buf_free(&w->cms);
    buf_free(&w->leaks);
}

/* The profile's row, unless its hash is there (*stored 0), then its sites and leaks. */
static const char sql_profile[] =
    "INSERT INTO msamp_profile (device, build_id, session, kind, t_start, t_end,"
    " labels, sample_types, comments, failures, bytes, sha256, totals, heap_free,"
    " heap_min_free, heap_largest_free, heap_total)"
    " VALUES ($1, $2, $3, $4, to_timestamp($5::numeric / 1e9), to_timestamp($6::numeric / 1e9),"
    " $7::text[], $8::text[], $9::text[], $10::bigint, $11::bytea, sha256($11::bytea),"
    " $12::jsonb, $13::bigint, $14::bigint, $15::bigint, $16::bigint)"
    " ON CONFLICT (device, sha256, t_end) DO NOTHING RETURNING id, t_end";
static const char sql_sites[] =
    "INSERT INTO msamp_site (device, profile_id, t_end, site, stack, task, vals)"
    " SELECT $1, $2::bigint, $4::timestamptz, (e->>'i')::int,"
    " ARRAY(SELECT jsonb_array_elements_text(e->'stack')), e->>'task', e->'vals'"
    " FROM jsonb_array_elements($3::jsonb) e";
static const char sql_leaks[] =
    "INSERT INTO msamp_leak (device, profile_id, t_end, site, slope, slope_var, since_s)"
    " SELECT $1, $2::bigint, $4::timestamptz, (e->>'i')::int, (e->>'slope')::float8,"
    " (e->>'var')::float8, (e->>'since')::float8 FROM jsonb_array_elements($3::jsonb) e"
    " ON CONFLICT DO NOTHING";
/* The month's partitions (made once, in their own transaction: msamp_partition). */
static const char sql_part[] = "SELECT msamp_partition(to_timestamp($1::numeric / 1e9))";

/* The rows of a profile just stored (its id and t_end) in the open transaction: its sites' batches,
 * then its leaks. 0, or -1 with what and the server's error. */
static int store_sites(PGconn *c, struct push_row *w, const char *id, const char *te,
                       const char *what, char *err, size_t errlen)
{
    for (size_t i = 0; i <= w->nbatch; i++) {
        const char *rows = buf_cstr(i < w->nbatch ? &w->sites[i] : &w->leaks);
        const char *v[4] = {w->device, id, rows, te};
        PGresult *r = PQexecParams(c, i < w->nbatch ? sql_sites : sql_leaks, 4, NULL, v, NULL,
                                   NULL, 0);
        if (PQresultStatus(r) != PGRES_COMMAND_OK)
            return db_err(c, r, what, err, errlen);
        PQclear(r);
    }
    return 0;
}

/* The month's partitions, then one transaction: the profile (raw, its bytes) and its rows. */
static int store_row(PGconn *c, struct push_row *w, const struct buf *raw, const char *what,
                     int *stored, char *err, size_t errlen)
{
    const char *vals[16] = {w->device, w->build, w->session, w->kind, w->t0, w->t1,
                            buf_cstr(&w->lab), buf_cstr(&w->vts), buf_cstr(&w->cms), w->fl,
                            (const char *)raw->p, buf_cstr(&w->tot), w->heap[0], w->heap[1],
                            w->heap[2], w->heap[3]};
    int lens[16] = {0};
    int fmts[16] = {0};
    lens[10] = (int)raw->len;
    fmts[10] = 1;
    PGresult *r = PQexecParams(c, sql_part, 1, NULL, &vals[5], NULL, NULL, 0);
    int rc = PQresultStatus(r) != PGRES_TUPLES_OK ? db_err(c, r, what, err, errlen) : 0;
    if (rc == 0)
        PQclear(r);
    rc = rc ? rc : db_cmd(c, "BEGIN", what, err, errlen);
    r = rc ? NULL : PQexecParams(c, sql_profile, 16, NULL, vals, lens, fmts, 0);
    *stored = 0;
    if (r && PQresultStatus(r) != PGRES_TUPLES_OK) {
        rc = db_err(c, r, what, err, errlen);
    } else if (r) {
        char id[32], te[64];
        *stored = PQntuples(r);
        snprintf(id, sizeof(id), "%s", *stored ? PQgetvalue(r, 0, 0) : "");
        snprintf(te, sizeof(te), "%s", *stored ? PQgetvalue(r, 0, 1) : "");
        PQclear(r);
        rc = *stored ? store_sites(c, w, id, te, what, err, errlen) : 0;
    }
    if (rc == 0)
        rc = db_cmd(c, "COMMIT", what, err, errlen);
    else
        PQclear(PQexec(c, "ROLLBACK"));
    return rc;
}

static int push_one(PGconn *c, const char *path, int *stored, char *err, size_t errlen)
{
    struct buf raw;
    struct prof p;
    if (push_read(path, &raw, &p, err, errlen) != 0)
        return -1;
    struct push_row w;
    memset(&w, 0, sizeof(w));
    row_names(&w, &p);
    row_comments(&w, &p);
    row_labels(&w, &p);
    row_totals(&w, &p);
    row_sites(&w, &p);
    char what[600];
    snprintf(what, sizeof(what), "%s: storing it", path);
    int rc = store_row(c, &w, &raw, what, stored, err, errlen);
    row_free(&w);
    prof_free(&p);
    buf_free(&raw);
    return rc;
}

int fleet_push_file(const char *conninfo, const char *path, char *err, size_t errlen)
{
    PGconn *c = db_open(conninfo, err, errlen);
    if (!c)
        return -1;
    int stored = 0;
    int rc = db_schema(c, 1, err, errlen) == 0 ? push_one(c, path, &stored, err, errlen) : -1;
    PQfinish(c);
    return rc;
}

static const char push_usage[] =
    "usage: drain push --db CONNINFO PROFILE...\n"
    "Stores pprof profiles (drain's) in PostgreSQL: CONNINFO is a libpq connection string or URI.\n"
    "A profile already stored (the same bytes) is stored once. See docs/FLEET.md.\n";

/* push's connection, its schema made or migrated; NULL with err. */
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
    return c;
}

/* Every file is pushed or named with why not. A connection lost on a file (the server went down,
 * its backend ended) is opened again for the next one; when that fails, each file left is named
 * with the reason (not tried again: a server that is down would make each wait). */
int drain_push(int argc, char **argv)
{
    int head = db_head(argc, argv, push_usage);
    if (head >= 0)
        return head;
    char err[1024];
    PGconn *c = push_open(argv[2], err, sizeof(err));
    int nnew = 0, nold = 0, nfail = 0;
    for (int i = 3; i < argc; i++) {
        int stored = 0;
        if (c && PQstatus(c) != CONNECTION_OK) {
            PQfinish(c);
            c = push_open(argv[2], err, sizeof(err));
        }
        if (!c) {
            fprintf(stderr, "drain push: %s: not pushed: %s\n", argv[i], err);
            nfail++;
        } else if (push_one(c, argv[i], &stored, err, sizeof(err)) != 0) {
            fprintf(stderr, "drain push: %s\n", err);
            nfail++;
        } else {
            stored ? nnew++ : nold++;
        }
    }
    fprintf(stderr, "drain push: %d profiles stored, %d already there, %d not pushed\n", nnew, nold,
            nfail);
    PQfinish(c);
    return nfail ? 1 : 0;
}
