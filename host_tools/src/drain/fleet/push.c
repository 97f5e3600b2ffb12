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

/* COPY's text format (docs/FLEET.md "Push"): byte c of a column's text, escaped. */
static void copy_byte(struct buf *out, unsigned char c)
{
    static const char esc[] = {['\\'] = '\\', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't', [0] = '0'};
    if (c < sizeof(esc) && (esc[c] || c == 0)) {
        char e[4] = {'\\', c ? esc[c] : '0', c ? 0 : '0', c ? 0 : '0'};
        buf_put(out, e, c ? 2 : 4); /* a NUL as \000: the server refuses it, naming the file */
    } else {
        buf_put(out, &c, 1);
    }
}

/* The JSON string at *js (drain's escaper's output, json_put_str: its escapes \" \\ \b \f \n \r
 * \t \uXXXX, valid UTF-8 else) decoded into out as COPY text; in a text[] literal (arr) quoted,
 * '"' and '\\' backslash-escaped first. *js moves past its closing quote. */
static void copy_json_str(struct buf *out, const char **js, int arr)
{
    static const char unesc[][2] = {{'b', 8}, {'f', 12}, {'n', 10}, {'r', 13}, {'t', 9}};
    const char *s = *js + 1;
    if (arr)
        buf_put(out, "\"", 1);
    while (*s && *s != '"') {
        unsigned u = (unsigned char)*s++;
        int esc = u == '\\';
        if (esc) {
            u = (unsigned char)*s++; /* \" \\ as they are */
            for (size_t i = 0; i < sizeof(unesc) / sizeof(unesc[0]); i++)
                if (u == (unsigned char)unesc[i][0])
                    u = (unsigned char)unesc[i][1];
            if (u == 'u') {
                u = (unsigned)strtoul((char[5]){s[0], s[1], s[2], s[3], 0}, NULL, 16);
                s += 4;
            }
        }
        /* a raw byte as it is; an escaped code point (below U+D800: the escaper's) as UTF-8 */
        unsigned char utf[3] = {(unsigned char)u, 0, 0};
        int n = 1;
        if (esc && u >= 0x800) {
            utf[0] = (unsigned char)(0xe0 | u >> 12);
            utf[1] = (unsigned char)(0x80 | (u >> 6 & 0x3f));
            utf[2] = (unsigned char)(0x80 | (u & 0x3f));
            n = 3;
        } else if (esc && u >= 0x80) {
            utf[0] = (unsigned char)(0xc0 | u >> 6);
            utf[1] = (unsigned char)(0x80 | (u & 0x3f));
            n = 2;
        }
        for (int i = 0; i < n; i++) {
            if (arr && (utf[i] == '"' || utf[i] == '\\'))
                copy_byte(out, '\\');
            copy_byte(out, utf[i]);
        }
    }
    if (arr)
        buf_put(out, "\"", 1);
    *js = *s ? s + 1 : s;
}

/* The sites' columns as COPY text (docs/FLEET.md "Push"): each site's stack (a text[] literal)
 * and task, a tab between, into keys (site j's at keys->p + koff[j]); its values into vals
 * (nvt a site). The sites freed. */
static void site_rows(const struct prof *p, struct site *sites, size_t nsites, struct buf *keys,
                      size_t **koff, int64_t **vals)
{
    *koff = xcalloc(nsites + 1, sizeof(size_t));
    *vals = xcalloc(nsites * p->nvt + 1, sizeof(int64_t));
    struct buf t = {0};
    for (size_t j = 0; j < nsites; j++) {
        (*koff)[j] = keys->len;
        const char *js = sites[j].key + 1; /* the JSON array's strings */
        buf_str(keys, "{");
        for (int first = 1; *js == '"'; first = 0) {
            if (!first)
                buf_str(keys, ",");
            copy_json_str(keys, &js, 1);
            js += *js == ',';
        }
        buf_str(keys, "}\t");
        t.len = 0;
        json_put_str(&t, sites[j].task, strlen(sites[j].task), 0);
        const char *ts = buf_cstr(&t);
        copy_json_str(keys, &ts, 0);
        memcpy(*vals + j * p->nvt, sites[j].val, p->nvt * sizeof(int64_t));
        free(sites[j].key);
        free(sites[j].val);
    }
    (*koff)[nsites] = keys->len;
    buf_free(&t);
    free(sites);
}

/* The profile's rollup by site (site_key: its samples' values summed), as site_rows' columns
 * (the number of sites); each sample's site into *site_of_sample. */
static size_t site_rollup(const struct prof *p, struct buf *keys, size_t **koff, int64_t **vals,
                          uint32_t **site_of_sample)
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
    site_rows(p, sites, nsites, keys, koff, vals);
    return nsites;
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
    struct buf keys;              /* the sites' stack and task as COPY text (site_rows) */
    size_t *koff, nsites;
    int64_t *vals;                /* nvt a site */
    struct buf vtj;               /* the sample types as JSON strings, COPY text, 0 after each */
    size_t *vtoff;
    uint32_t *site_of;            /* each sample's site */
    struct buf raw;               /* the file */
    struct prof p;
    const char *path;
    char id[32], te[64], bucket[32]; /* once stored: its id, t_end, rollup bucket */
    int stored;                   /* 1 stored, 0 there already */
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

static const char push_usage[] =
    "usage: drain push --db CONNINFO PROFILE...\n"
    "Stores pprof profiles (drain's) in PostgreSQL: CONNINFO is a libpq connection string or URI.\n"
    "A profile already stored (the same bytes) is stored once. See docs/FLEET.md.\n";

/* The sites (site_rollup) and the leak verdicts drain stored in the profile, by site. */
static void row_sites(struct push_row *w, const struct prof *p)
{
    w->nsites = site_rollup(p, &w->keys, &w->koff, &w->vals, &w->site_of);
    w->vtoff = xcalloc(p->nvt + 1, sizeof(size_t));
    struct buf t = {0};
    for (size_t v = 0; v < p->nvt; v++) {
        w->vtoff[v] = w->vtj.len;
        t.len = 0;
        json_put_str(&t, w->vtn[v], strlen(w->vtn[v]), 0);
        for (size_t i = 0; i < t.len; i++)
            copy_byte(&w->vtj, t.p[i]);
        buf_put(&w->vtj, "", 1);
    }
    w->vtoff[p->nvt] = w->vtj.len;
    buf_free(&t);
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
    for (size_t i = 0; i < w->nlv; i++)
        free(w->lv[i]);
    free(w->lv);
    free(w->vtn);
    free(w->cm);
    free(w->site_of);
    free(w->koff);
    free(w->vals);
    free(w->vtoff);
    buf_free(&w->keys);
    buf_free(&w->vtj);
    buf_free(&w->lab);
    buf_free(&w->vts);
    buf_free(&w->tot);
    buf_free(&w->cms);
    buf_free(&w->leaks);
    prof_free(&w->p);
    buf_free(&w->raw);
}

/* The file at path read and made ready to store into w: 0, or -1 with "PATH: reason" in err. */
static int row_read(struct push_row *w, const char *path, char *err, size_t errlen)
{
    memset(w, 0, sizeof(*w));
    w->path = path;
    if (push_read(path, &w->raw, &w->p, err, errlen) != 0)
        return -1;
    row_names(w, &w->p);
    row_comments(w, &w->p);
    row_labels(w, &w->p);
    row_totals(w, &w->p);
    row_sites(w, &w->p);
    return 0;
}

/* The statements push prepares on each connection (push_prepare). The profile's row, unless its
 * hash is there (no row back), with its rollup bucket (docs/FLEET.md "Rollups": its device,
 * build id, labels and UTC day) made or widened in the same statement, its gen moved on (the
 * bucket's merged profile made before is stale: fleet merge makes it again): its id, t_end,
 * bucket. */
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
    " SELECT p.id, p.t_end, b.id FROM p, b";
static const char sql_leaks[] =
    "INSERT INTO msamp_leak (device, profile_id, t_end, site, slope, slope_var, since_s)"
    " SELECT $1, $2::bigint, $4::timestamptz, (e->>'i')::int, (e->>'slope')::float8,"
    " (e->>'var')::float8, (e->>'since')::float8 FROM jsonb_array_elements($3::jsonb) e"
    " ON CONFLICT DO NOTHING";
/* The month's partitions (made once, in their own transaction: msamp_partition). */
static const char sql_part[] = "SELECT msamp_partition(to_timestamp($1::numeric / 1e9))";
/* The batch's rollup rows (summed by push) added to the stored ones. */
static const char sql_rollup[] =
    "INSERT INTO msamp_rollup AS o SELECT * FROM msamp_rollup_in ON CONFLICT (device, bucket,"
    " stack, task) DO UPDATE SET vals = msamp_vals_add(o.vals, EXCLUDED.vals)";

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
    return db_cmd(c, "CREATE TEMP TABLE msamp_rollup_in (LIKE msamp_rollup) ON COMMIT DELETE ROWS",
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

/* COPY table FROM STDIN of the text rows: 0, or -1 with what and the server's error. */
static int copy_rows(PGconn *c, const char *table, const struct buf *rows, const char *what,
                     char *err, size_t errlen)
{
    char sql[256];
    snprintf(sql, sizeof(sql), "COPY %s FROM STDIN", table);
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

/* A batch's rollup rows, summed by push: each row's key (device, bucket, stack, task as COPY text,
 * a 0 after each) and its sum of each of the batch's sample types (types: their JSON names as
 * COPY text, a 0 after each; stride sums a row, has says which it holds). */
struct roll {
    struct buf keys, types;
    size_t *off, n, cap, *toff, ntype, tcap, stride;
    int64_t *sum;
    uint8_t *has;
    struct umap idx;
};

/* Sample type JSON name tj's index among the batch's (one made when new: the rows' sums moved
 * to a wider stride when full). */
static size_t roll_type(struct roll *r, const char *tj)
{
    size_t t = 0;
    while (t < r->ntype && strcmp((const char *)r->types.p + r->toff[t], tj) != 0)
        t++;
    if (t < r->ntype)
        return t;
    grow((void **)&r->toff, &r->tcap, r->ntype + 1, sizeof(*r->toff));
    r->toff[r->ntype] = r->types.len;
    buf_put(&r->types, tj, strlen(tj) + 1);
    if (r->ntype == r->stride) {
        size_t ns = r->stride ? 2 * r->stride : 16;
        int64_t *sum = xcalloc(r->cap * ns + 1, sizeof(int64_t));
        uint8_t *has = xcalloc(r->cap * ns + 1, 1);
        for (size_t j = 0; j < r->n; j++) {
            memcpy(sum + j * ns, r->sum + j * r->stride, r->stride * sizeof(int64_t));
            memcpy(has + j * ns, r->has + j * r->stride, r->stride);
        }
        free(r->sum);
        free(r->has);
        r->sum = sum, r->has = has, r->stride = ns;
    }
    return r->ntype++;
}

/* The row of key (len bytes): its index, made when new. */
static size_t roll_row(struct roll *r, const char *key, size_t len)
{
    uint64_t h = hash_bytes(key, len, 7);
    size_t j = umap_get(&r->idx, h);
    if (j < r->n && strcmp((const char *)r->keys.p + r->off[j], key) != 0)
        for (j = 0; j < r->n; j++) /* a hash collision: look through all (rare) */
            if (strcmp((const char *)r->keys.p + r->off[j], key) == 0)
                break;
    if (j < r->n)
        return j;
    if (r->n == r->cap) {
        size_t ncap = r->cap ? 2 * r->cap : 1024;
        r->off = xrealloc(r->off, ncap * sizeof(*r->off));
        r->sum = xrealloc(r->sum, (ncap * r->stride + 1) * sizeof(int64_t));
        r->has = xrealloc(r->has, ncap * r->stride + 1);
        r->cap = ncap;
    }
    memset(r->sum + r->n * r->stride, 0, r->stride * sizeof(int64_t));
    memset(r->has + r->n * r->stride, 0, r->stride);
    r->off[r->n] = r->keys.len;
    buf_put(&r->keys, key, len + 1);
    umap_put(&r->idx, h, (uint32_t)r->n);
    return r->n++;
}

static void roll_free(struct roll *r)
{
    buf_free(&r->keys);
    buf_free(&r->types);
    free(r->off);
    free(r->toff);
    free(r->sum);
    free(r->has);
    umap_free(&r->idx);
}

/* x in decimal. */
static void put_i64(struct buf *b, int64_t x)
{
    char t[24];
    int n = 0;
    uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
    do
        t[sizeof(t) - 1 - n++] = (char)('0' + u % 10);
    while (u /= 10);
    if (x < 0)
        t[sizeof(t) - 1 - n++] = '-';
    buf_put(b, t + sizeof(t) - n, (size_t)n);
}

/* A stored profile's site rows (COPY text of msamp_site) into out; its sites' values added to
 * the batch's rollup rows (roll). */
static void row_copy(const struct push_row *w, struct buf *out, struct roll *roll)
{
    const struct prof *p = &w->p;
    struct buf head = {0}, k = {0};
    for (const char *d = w->device; *d; d++)
        copy_byte(&head, (unsigned char)*d);
    buf_put(&k, head.p, head.len);
    buf_printf(&k, "\t%s\t", w->bucket);
    size_t klen = k.len;
    buf_printf(&head, "\t%s\t%s\t", w->id, w->te);
    size_t *tix = xcalloc(p->nvt + 1, sizeof(size_t));
    for (size_t v = 0; v < p->nvt; v++)
        tix[v] = roll_type(roll, (const char *)w->vtj.p + w->vtoff[v]);
    for (size_t j = 0; j < w->nsites; j++) {
        const char *sk = (const char *)w->keys.p + w->koff[j];
        size_t sl = w->koff[j + 1] - w->koff[j];
        buf_put(out, head.p, head.len);
        put_i64(out, (int64_t)j);
        buf_put(out, "\t", 1);
        buf_put(out, sk, sl);
        buf_put(out, "\t{", 2);
        k.len = klen;
        buf_put(&k, sk, sl);
        size_t row = roll_row(roll, buf_cstr(&k), k.len);
        for (size_t v = 0; v < p->nvt; v++) {
            const char *tj = (const char *)w->vtj.p + w->vtoff[v];
            int64_t x = w->vals[j * p->nvt + v];
            if (v)
                buf_put(out, ",", 1);
            buf_put(out, tj, w->vtoff[v + 1] - w->vtoff[v] - 1);
            buf_put(out, ":", 1);
            put_i64(out, x);
            roll->sum[row * roll->stride + tix[v]] += x;
            roll->has[row * roll->stride + tix[v]] = 1;
        }
        buf_put(out, "}\n", 2);
    }
    free(tix);
    buf_free(&head);
    buf_free(&k);
}

/* The batch's rollup rows as COPY text of msamp_rollup_in, then added to msamp_rollup. */
static int store_rollup(PGconn *c, struct roll *roll, const char *what, char *err, size_t errlen)
{
    struct buf rows = {0};
    for (size_t j = 0; j < roll->n; j++) {
        buf_str(&rows, (const char *)roll->keys.p + roll->off[j]);
        buf_put(&rows, "\t{", 2);
        for (size_t t = 0, first = 1; t < roll->ntype; t++) {
            if (!roll->has[j * roll->stride + t])
                continue;
            buf_str(&rows, first ? "" : ",");
            buf_str(&rows, (const char *)roll->types.p + roll->toff[t]);
            buf_put(&rows, ":", 1);
            put_i64(&rows, roll->sum[j * roll->stride + t]);
            first = 0;
        }
        buf_put(&rows, "}\n", 2);
    }
    int rc = copy_rows(c, "msamp_rollup_in", &rows, what, err, errlen);
    buf_free(&rows);
    return rc ? rc : db_cmd(c, sql_rollup, what, err, errlen);
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
    struct buf rows = {0};
    struct roll roll;
    memset(&roll, 0, sizeof(roll));
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        snprintf(what, sizeof(what), "%s: storing it", w[i]->path);
        rc = store_profile(c, w[i], what, err, errlen);
        if (rc != 0)
            *culprit = (int)i;
        else if (w[i]->stored)
            row_copy(w[i], &rows, &roll);
    }
    if (n > 1)
        snprintf(what, sizeof(what), "storing %zu profiles (%s ...)", n, w[0]->path);
    if (rc == 0)
        rc = copy_rows(c, "msamp_site", &rows, what, err, errlen);
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
        rc = store_rollup(c, &roll, what, err, errlen);
    if (rc == 0)
        rc = db_cmd(c, "COMMIT", what, err, errlen);
    else if (PQstatus(c) == CONNECTION_OK)
        PQclear(PQexec(c, "ROLLBACK"));
    buf_free(&rows);
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

/* Every file is pushed or named with why not: read (a file that cannot be read or is refused is
 * named), then stored PUSH_BATCH in a transaction (push_batch). A connection lost on a file (the
 * server went down, its backend ended) is opened again for the next one; when that fails, each
 * file left is named with the reason (not tried again: a server that is down would make each
 * wait). */
int drain_push(int argc, char **argv)
{
    int head = db_head(argc, argv, push_usage);
    if (head >= 0)
        return head;
    char err[1024];
    PGconn *c = push_open(argv[2], err, sizeof(err));
    struct push_count k = {0, 0, 0};
    struct push_row *rows = xcalloc(PUSH_BATCH, sizeof(*rows));
    struct push_row *w[PUSH_BATCH];
    for (int i = 3; i < argc;) {
        size_t n = 0;
        for (; i < argc && n < PUSH_BATCH; i++) {
            if (!c) {
                fprintf(stderr, "drain push: %s: not pushed: %s\n", argv[i], err);
                k.nfail++;
            } else if (row_read(&rows[n], argv[i], err, sizeof(err)) != 0) {
                fprintf(stderr, "drain push: %s\n", err);
                k.nfail++;
            } else {
                w[n] = &rows[n];
                n++;
            }
        }
        if (n)
            push_batch(&c, argv[2], w, n, &k, err, sizeof(err));
        for (size_t j = 0; j < n; j++)
            row_free(&rows[j]);
    }
    free(rows);
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
