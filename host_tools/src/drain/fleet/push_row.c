/*
 * drain push's rows (docs/FLEET.md): what push stores of a profile file, read from it before any
 * statement runs: its msamp_profile row's columns as text (device, build id, session, kind, time
 * range, labels, totals, heap figures, leak verdicts), its per-site rows (the symbolized stack,
 * the task, every sample type's value by name) as COPY text, and their sums into a batch's rollup
 * rows. push.c stores them.
 */
#include "fleet/push_row.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The JSON string at *js (drain's escaper's output, json_put_str: its escapes \" \\ \b \f \n \r
 * \t \uXXXX, valid UTF-8 else) decoded into out, its bytes as they are (a field of COPY's binary
 * format; a NUL among them the server refuses, naming the file). *js moves past its closing
 * quote. */
static void copy_json_str(struct buf *out, const char **js)
{
    static const char unesc[][2] = {{'b', 8}, {'f', 12}, {'n', 10}, {'r', 13}, {'t', 9}};
    const char *s = *js + 1;
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
        buf_put(out, utf, (size_t)n);
    }
    *js = *s ? s + 1 : s;
}

/* x big-endian (COPY's binary format) onto b. */
void push_put_be(struct buf *b, uint64_t x, int bytes)
{
    unsigned char t[8];
    for (int i = 0; i < bytes; i++)
        t[i] = (unsigned char)(x >> 8 * (bytes - 1 - i));
    buf_put(b, t, (size_t)bytes);
}

/* COPY binary's field of n bytes from at on: its length (4 bytes) at at - 4. */
static void be_len_at(struct buf *b, size_t at)
{
    uint32_t n = (uint32_t)(b->len - at);
    unsigned char t[4] = {(unsigned char)(n >> 24), (unsigned char)(n >> 16),
                          (unsigned char)(n >> 8), (unsigned char)n};
    memcpy(b->p + at - 4, t, 4);
}

/* A site's stack (text[]) and task (text) as two fields of COPY's binary format onto out, from
 * its key's JSON array (js: after the '[') and its task. */
static void site_bin(struct buf *out, const char *js, const char *task, struct buf *t)
{
    size_t n = 0, arr, el;
    push_put_be(out, 0, 4);
    arr = out->len;
    push_put_be(out, 1, 4);  /* dimensions */
    push_put_be(out, 0, 4);  /* no NULL */
    push_put_be(out, 25, 4); /* text's type oid */
    push_put_be(out, 0, 4);  /* the frames' count, set below */
    push_put_be(out, 1, 4);  /* lower bound */
    for (; *js == '"'; n++) {
        push_put_be(out, 0, 4);
        el = out->len;
        copy_json_str(out, &js);
        be_len_at(out, el);
        js += *js == ',';
    }
    if (n == 0) { /* an empty array has no dimension: its header alone */
        out->len = arr;
        push_put_be(out, 0, 4);
        push_put_be(out, 0, 4);
        push_put_be(out, 25, 4);
    } else { /* the count, in place */
        size_t end = out->len;
        out->len = arr + 12;
        push_put_be(out, n, 4);
        out->len = end;
    }
    be_len_at(out, arr);
    push_put_be(out, 0, 4);
    el = out->len;
    json_put_str(t, task, strlen(task), 0);
    const char *ts = buf_cstr(t);
    copy_json_str(out, &ts);
    be_len_at(out, el);
    t->len = 0;
}

/* The sites' columns in COPY's binary format (docs/FLEET.md "Push"): each site's stack (text[])
 * and task into bkeys (site j's at bkoff[j]); its values into vals (nvt a site). The sites
 * freed. */
static void site_rows(const struct prof *p, struct site *sites, size_t nsites, int64_t **vals,
                      struct buf *bkeys, size_t **bkoff)
{
    *bkoff = xcalloc(nsites + 1, sizeof(size_t));
    *vals = xcalloc(nsites * p->nvt + 1, sizeof(int64_t));
    struct buf t = {0};
    for (size_t j = 0; j < nsites; j++) {
        (*bkoff)[j] = bkeys->len;
        site_bin(bkeys, sites[j].key + 1, sites[j].task, &t);
        memcpy(*vals + j * p->nvt, sites[j].val, p->nvt * sizeof(int64_t));
        free(sites[j].key);
        free(sites[j].val);
    }
    (*bkoff)[nsites] = bkeys->len;
    buf_free(&t);
    free(sites);
}

/* The profile's rollup by site (site_key: its samples' values summed), as site_rows' columns
 * (the number of sites); each sample's site into *site_of_sample. */
static size_t site_rollup(struct push_row *w, uint32_t **site_of_sample)
{
    const struct prof *p = &w->p;
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
    site_rows(p, sites, nsites, &w->vals, &w->bkeys, &w->bkoff);
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


/* The sites (site_rollup) and the leak verdicts drain stored in the profile, by site. */
static void row_sites(struct push_row *w, const struct prof *p)
{
    w->nsites = site_rollup(w, &w->site_of);
    struct growth_leak gl[256];
    size_t ngl = growth_leaks_from_prof(p, gl, 256);
    buf_str(&w->leaks, "[");
    for (size_t i = 0; i < ngl; i++)
        buf_printf(&w->leaks, "%s{\"i\":%u,\"slope\":%.17g,\"var\":%.17g,\"since\":%.17g}",
                   i ? "," : "", gl[i].sample < p->nsample ? w->site_of[gl[i].sample] : 0,
                   gl[i].slope_bytes_per_s.est, gl[i].slope_bytes_per_s.var, gl[i].since_s);
    buf_str(&w->leaks, "]");
}

void row_free(struct push_row *w)
{
    for (size_t i = 0; i < w->nlv; i++)
        free(w->lv[i]);
    free(w->lv);
    free(w->vtn);
    free(w->cm);
    free(w->site_of);
    free(w->bkoff);
    free(w->vals);
    buf_free(&w->bkeys);
    buf_free(&w->lab);
    buf_free(&w->vts);
    buf_free(&w->tot);
    buf_free(&w->cms);
    buf_free(&w->leaks);
    prof_free(&w->p);
    buf_free(&w->raw);
}

/* The file at path read and made ready to store into w: 0, or -1 with "PATH: reason" in err. */
int row_read(struct push_row *w, const char *path, char *err, size_t errlen)
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

/* Sample type tj's index among the batch's (one made when new: the rows' sums moved to a wider
 * stride when full). */
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
        for (size_t j = 0; j < r->rows.n; j++) {
            memcpy(sum + j * ns, r->sum + j * r->stride, r->stride * sizeof(int64_t));
            memcpy(has + j * ns, r->has + j * r->stride, r->stride);
        }
        free(r->sum);
        free(r->has);
        r->sum = sum, r->has = has, r->stride = ns;
    }
    return r->ntype++;
}

/* Key j's length. */
static size_t keys_len(const struct keys *k, size_t j)
{
    return (j + 1 < k->n ? k->off[j + 1] : k->b.len) - k->off[j];
}

size_t keys_add(struct keys *k, const uint8_t *key, size_t len)
{
    uint64_t h = hash_bytes(key, len, 7);
    size_t j = umap_get(&k->idx, h);
#define KEYS_SAME(j) (keys_len(k, j) == len && memcmp(k->b.p + k->off[j], key, len) == 0)
    if (j < k->n && !KEYS_SAME(j))
        for (j = 0; j < k->n; j++) /* a hash collision: look through all (rare) */
            if (KEYS_SAME(j))
                break;
#undef KEYS_SAME
    if (j < k->n)
        return j;
    GROW(k->off, k->cap, k->n + 1);
    k->off[k->n] = k->b.len;
    buf_put(&k->b, key, len);
    umap_put(&k->idx, h, (uint32_t)k->n);
    return k->n++;
}

void keys_free(struct keys *k)
{
    buf_free(&k->b);
    free(k->off);
    umap_free(&k->idx);
}

/* The row of key (len bytes): its index, made (its sums 0) when new. */
static size_t roll_row(struct roll *r, const uint8_t *key, size_t len)
{
    size_t made = r->rows.n, j = keys_add(&r->rows, key, len);
    if (j < made)
        return j;
    if (j == r->cap) {
        size_t ncap = r->cap ? 2 * r->cap : 1024;
        r->sum = xrealloc(r->sum, (ncap * r->stride + 1) * sizeof(int64_t));
        r->has = xrealloc(r->has, ncap * r->stride + 1);
        r->cap = ncap;
    }
    memset(r->sum + j * r->stride, 0, r->stride * sizeof(int64_t));
    memset(r->has + j * r->stride, 0, r->stride);
    return j;
}

/* A one-dimensional array's header in COPY's binary format (n elements of type oid; none: no
 * dimension), its length field first (0: be_len_at sets it, from at). */
static size_t arr_head(struct buf *out, size_t n, unsigned oid)
{
    push_put_be(out, 0, 4);
    size_t at = out->len;
    push_put_be(out, n ? 1 : 0, 4);
    push_put_be(out, 0, 4); /* no NULL */
    push_put_be(out, oid, 4);
    if (n) {
        push_put_be(out, n, 4);
        push_put_be(out, 1, 4); /* lower bound */
    }
    return at;
}

/* The types' names as COPY binary's text[] field (its length first) onto out. */
static void names_field(struct buf *out, const char *const *name, size_t n)
{
    size_t at = arr_head(out, n, 25); /* text */
    for (size_t t = 0; t < n; t++) {
        push_put_be(out, strlen(name[t]), 4);
        buf_str(out, name[t]);
    }
    be_len_at(out, at);
}

/* An int4 field of COPY's binary format (its length, then x) onto out. */
static void int4_field(struct buf *out, size_t x)
{
    push_put_be(out, 4, 4);
    push_put_be(out, x, 4);
}

/* An int8 field of COPY's binary format onto out. */
static void int8_field(struct buf *out, int64_t x)
{
    push_put_be(out, 8, 4);
    push_put_be(out, (uint64_t)x, 8);
}

size_t roll_copy(struct roll *r, struct buf *out)
{
    const char **name = xcalloc(r->ntype + 1, sizeof(*name));
    struct buf tf = {0};
    for (size_t j = 0; j < r->rows.n; j++) {
        const uint8_t *has = r->has + j * r->stride;
        const int64_t *sum = r->sum + j * r->stride;
        size_t nt = 0;
        for (size_t t = 0; t < r->ntype; t++)
            if (has[t])
                name[nt++] = (const char *)r->types.p + r->toff[t];
        tf.len = 0;
        names_field(&tf, name, nt);
        push_put_be(out, 5, 2); /* the fields: device, bucket, h (the key), tid, vals */
        buf_put(out, r->rows.b.p + r->rows.off[j], keys_len(&r->rows, j));
        int4_field(out, keys_add(&r->tsets, tf.p, tf.len));
        size_t at = arr_head(out, nt, 20); /* int8 */
        for (size_t t = 0; t < r->ntype; t++)
            if (has[t])
                int8_field(out, sum[t]);
        be_len_at(out, at);
    }
    buf_free(&tf);
    free(name);
    return r->rows.n;
}

void row_stacks(const struct push_row *w, struct roll *roll)
{
    for (size_t j = 0; j < w->nsites; j++)
        keys_add(&roll->stacks, w->bkeys.p + w->bkoff[j], w->bkoff[j + 1] - w->bkoff[j]);
}

void keys_copy(const struct keys *k, int fields, struct buf *out)
{
    for (size_t j = 0; j < k->n; j++) {
        push_put_be(out, 1 + (uint64_t)fields, 2); /* its number, then the key's fields */
        int4_field(out, j);
        buf_put(out, k->b.p + k->off[j], keys_len(k, j));
    }
}

size_t roll_tset_n(const struct roll *r, size_t tid)
{
    const uint8_t *f = r->tsets.b.p + r->tsets.off[tid]; /* length, ndim, flags, oid, n */
    if (f[7] == 0)
        return 0;
    return (size_t)f[16] << 24 | (size_t)f[17] << 16 | (size_t)f[18] << 8 | f[19];
}

void roll_free(struct roll *r)
{
    free(r->h);
    keys_free(&r->rows);
    keys_free(&r->stacks);
    keys_free(&r->tsets);
    buf_free(&r->types);
    free(r->toff);
    free(r->sum);
    free(r->has);
}

/* x in decimal. */
void push_put_i64(struct buf *b, int64_t x)
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

/* A stored profile's site rows (COPY binary of msamp_site: device, profile_id, t_end, site, h,
 * vals: its stack's h, roll->h by its number in roll->stacks) into out; its sites' values added
 * to the batch's rollup rows (roll), or, direct given, its sites as rollup rows onto direct
 * (roll_copy's rows: the profile alone in its bucket in this batch, its sample types' names
 * distinct). */
void row_copy(const struct push_row *w, struct buf *out, struct roll *roll, struct buf *direct)
{
    const struct prof *p = &w->p;
    struct buf head = {0}, k = {0}, names = {0};
    push_put_be(&k, strlen(w->device), 4); /* the rollup row's key: device, bucket (binary) */
    buf_str(&k, w->device);
    int8_field(&k, strtoll(w->bucket, NULL, 10));
    size_t klen = k.len, tid = 0;
    push_put_be(&head, 6, 2); /* the fields */
    push_put_be(&head, strlen(w->device), 4);
    buf_str(&head, w->device);
    int8_field(&head, strtoll(w->id, NULL, 10));
    int8_field(&head, w->te_us);
    size_t *tix = xcalloc(p->nvt + 1, sizeof(size_t));
    for (size_t v = 0; v < p->nvt && !direct; v++)
        tix[v] = roll_type(roll, w->vtn[v]);
    if (direct) {
        names_field(&names, w->vtn, p->nvt);
        tid = keys_add(&roll->tsets, names.p, names.len);
    }
    for (size_t j = 0; j < w->nsites; j++) {
        const uint8_t *bk = w->bkeys.p + w->bkoff[j];
        int64_t h = roll->h[keys_add(&roll->stacks, bk, w->bkoff[j + 1] - w->bkoff[j])];
        buf_put(out, head.p, head.len);
        int4_field(out, j);
        int8_field(out, h);
        /* vals: int8[] of the profile's sample types, in their order */
        size_t vat = out->len;
        push_put_be(out, p->nvt ? 20 + 12 * p->nvt : 12, 4);
        push_put_be(out, p->nvt ? 1 : 0, 4);
        push_put_be(out, 0, 4);
        push_put_be(out, 20, 4); /* int8's type oid */
        if (p->nvt) {
            push_put_be(out, p->nvt, 4);
            push_put_be(out, 1, 4);
        }
        for (size_t v = 0; v < p->nvt; v++)
            int8_field(out, w->vals[j * p->nvt + v]);
        if (direct) { /* device, bucket, h, tid, vals (the site row's) */
            push_put_be(direct, 5, 2);
            buf_put(direct, k.p, klen);
            int8_field(direct, h);
            int4_field(direct, tid);
            buf_put(direct, out->p + vat, out->len - vat);
            continue;
        }
        k.len = klen;
        int8_field(&k, h);
        size_t row = roll_row(roll, k.p, k.len);
        for (size_t v = 0; v < p->nvt; v++) {
            roll->sum[row * roll->stride + tix[v]] += w->vals[j * p->nvt + v];
            roll->has[row * roll->stride + tix[v]] = 1;
        }
    }
    free(tix);
    buf_free(&head);
    buf_free(&k);
    buf_free(&names);
}
