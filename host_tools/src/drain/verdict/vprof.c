/* A profile's sites with estimates and variances (vprof.h). */
#include "verdict/vprof.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/merge.h"
#include "pprof/profile.h"
#include "verdict/unseen.h"
#include "util.h"

const char *const vprof_est_name[E_COUNT] = {"inuse_bytes", "alloc_bytes", "inuse_objects",
                                             "alloc_objects"};


static void add_frame(struct vprof *v, int named, const char *text, uint64_t addr)
{
    GROW(v->frames, v->capframes, v->nframes + 1);
    GROW(v->named, v->capnamed, v->nframes + 1);
    v->named[v->nframes] = (uint8_t)named;
    v->frames[v->nframes++] = (struct vframe){text, addr};
}

const char *vframe_text(const struct vprof *v, size_t i, char buf[VFRAME_TEXT])
{
    if (v->named[i])
        return v->frames[i].text;
    return prof_module_text(buf, v->frames[i].text, v->frames[i].addr);
}

/* Samples in site order: symbolized frames (prof_loc_canon: two return addresses of one call line
 * are one site), then task, session, device. */
static const struct prof *cmp_p;
static const uint64_t *cmp_canon;

static int cmp_locs(const struct prof *p, const struct prof_sample *a, const struct prof_sample *b)
{
    if (a->nloc != b->nloc)
        return a->nloc < b->nloc ? -1 : 1;
    for (uint32_t k = 0; k < a->nloc; k++) {
        uint64_t x = cmp_canon[p->locpool[a->loc_off + k]], y = cmp_canon[p->locpool[b->loc_off + k]];
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

/* Each sample's task, session and device labels (NULL: none), looked up once before the sort. */
static const char **cmp_lab;

static int cmp_labels(const struct prof *p, const struct prof_sample *x, const struct prof_sample *y)
{
    const char *const *lx = cmp_lab + 3 * (size_t)(x - p->sample);
    const char *const *ly = cmp_lab + 3 * (size_t)(y - p->sample);
    for (int k = 0; k < 3; k++) {
        const char *s = lx[k], *t = ly[k];
        int c = strcmp(s ? s : "", t ? t : "");
        if (c)
            return c;
        if ((s == NULL) != (t == NULL))
            return s ? 1 : -1;
    }
    return 0;
}

/* Which of task, session and device (0, 1, 2; -1: none) a label key (a string index) is: the
 * last few keys' answers are kept, for a profile's samples share a few keys. */
struct key_memo {
    int64_t key[8];
    int which[8];
    unsigned n;
};

static int key_of(struct key_memo *m, const struct prof *p, int64_t key)
{
    static const char *const keys[] = {"task", "session", "device"};
    for (unsigned i = 0; i < m->n && i < 8; i++)
        if (m->key[i] == key)
            return m->which[i];
    int w = -1;
    for (int k = 0; k < 3 && w < 0; k++)
        if (strcmp(p->str[key], keys[k]) == 0)
            w = k;
    m->key[m->n % 8] = key;
    m->which[m->n++ % 8] = w;
    return w;
}

static int same_site(const struct prof *p, const struct prof_sample *a, const struct prof_sample *b)
{
    return cmp_locs(p, a, b) == 0 && cmp_labels(p, a, b) == 0;
}

static int by_site(const void *a, const void *b)
{
    const struct prof *p = cmp_p;
    const struct prof_sample *x = &p->sample[*(const uint32_t *)a];
    const struct prof_sample *y = &p->sample[*(const uint32_t *)b];
    int c = cmp_locs(p, x, y);
    if (!c)
        c = cmp_labels(p, x, y);
    if (c)
        return c;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    return (i > j) - (i < j);
}

/* Sample i's sort key's first part: its location count, then its first location's canon
 * (cmp_locs' first two comparisons), packed into 64 bits (cb: the canons' bits). Computed where
 * needed rather than kept (8 bytes a sample, twice over in the sort). */
static inline uint64_t prefix_key(const struct prof *p, const uint64_t *canon, unsigned cb,
                                  uint32_t i)
{
    const struct prof_sample *s = &p->sample[i];
    return ((uint64_t)s->nloc << cb) | (s->nloc ? canon[p->locpool[s->loc_off]] : 0);
}

/* order[] (the samples' indexes) by by_site: a stable radix sort by the prefix keys (11 bits a
 * pass, the passes whose digit is the same for all skipped), then each run of one prefix by
 * by_site, whose last resort is the index: the order qsort by by_site alone gives. Returns the
 * canons' bits (prefix_key's cb). */
static unsigned sort_samples(const struct prof *p, const uint64_t *canon, uint32_t *order)
{
    size_t n = p->nsample;
    unsigned cb = 1;
    while (cb < 40 && (p->nlocation >> cb) != 0)
        cb++;
    uint64_t kmax = 0;
    uint32_t *ord = order, *o2 = xmalloc((n + 1) * sizeof(*o2)), *spare = o2;
    for (size_t i = 0; i < n; i++) {
        ord[i] = (uint32_t)i;
        kmax |= prefix_key(p, canon, cb, (uint32_t)i);
    }
    for (unsigned shift = 0; shift < 64 && (kmax >> shift) != 0; shift += 11) {
        size_t count[2048] = {0};
        for (size_t i = 0; i < n; i++)
            count[(prefix_key(p, canon, cb, ord[i]) >> shift) & 2047]++;
        if (n == 0 || count[(prefix_key(p, canon, cb, ord[0]) >> shift) & 2047] == n)
            continue;
        for (size_t d = 0, at = 0; d < 2048; d++) {
            size_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            o2[count[(prefix_key(p, canon, cb, ord[i]) >> shift) & 2047]++] = ord[i];
        uint32_t *to = ord;
        ord = o2, o2 = to;
    }
    if (ord != order)
        memcpy(order, ord, n * sizeof(*order));
    free(spare);
    for (size_t i = 0; i < n;) {
        uint64_t k = prefix_key(p, canon, cb, order[i]);
        size_t j = i + 1;
        while (j < n && prefix_key(p, canon, cb, order[j]) == k)
            j++;
        if (j - i > 1)
            qsort(order + i, j - i, sizeof(*order), by_site);
        i = j;
    }
    return cb;
}

/* The samples' labels (lab: 3 a sample, task, session and device) as cmp_labels reads them. */
static const char **sample_labels(const struct prof *p)
{
    const char **lab = xcalloc(3 * p->nsample + 1, sizeof(*lab));
    struct key_memo km = {0};
    for (size_t i = 0; i < p->nsample; i++) /* each one's first label of the key, as prof_label */
        for (uint32_t k = 0; k < p->sample[i].nlabel; k++) {
            const struct prof_label *l = &p->labelpool[p->sample[i].label_off + k];
            int w = l->str > 0 ? key_of(&km, p, l->key) : -1;
            if (w >= 0 && !lab[3 * i + (size_t)w])
                lab[3 * i + (size_t)w] = p->str[l->str];
        }
    return lab;
}

/* The frames of a location (prof_location: 1 without lines, else its lines). */
static uint32_t loc_frames(const struct prof *p, uint64_t id)
{
    uint32_t n = p->location[id - 1].nline;
    return n ? n : 1;
}

static void site_frames(const struct prof *p, struct vprof *out, const struct prof_sample *s0)
{
    for (uint32_t k = 0; k < s0->nloc; k++) {
        uint64_t id = p->locpool[s0->loc_off + k];
        const struct prof_location *l = &p->location[id - 1];
        if (l->nline == 0) {
            const struct prof_mapping *m = prof_loc_module(p, l);
            add_frame(out, 0, m ? base_name(p->str[m->filename]) : NULL, prof_addr_off(p, l));
        }
        for (uint32_t j = 0; j < l->nline; j++) {
            const struct prof_line *ln = &p->linepool[l->line_off + j];
            const char *name = ln->function_id ? p->str[p->function[ln->function_id - 1].name] : "";
            add_frame(out, 1, name[0] ? name : "??", l->address);
        }
    }
}

/* The sums of site vs over its samples order[i..j) (docs/VERDICTS.md "Marks" for the refused). */
static void site_sums(const struct prof *p, struct vprof *out, struct vsite *vs,
                      const uint32_t *order, size_t i, size_t j, int has_ref)
{
    static const int col[E_COUNT] = {V_INUSE_B, V_ALLOC_B, V_INUSE_N, V_ALLOC_N};
    static const int vcol[E_COUNT] = {V_INUSE_BV, V_ALLOC_BV, V_INUSE_NV, V_ALLOC_NV};
    for (; i < j; i++) {
        const int64_t *val = &p->valpool[p->sample[order[i]].val_off];
        if (out->site_of)
            out->site_of[order[i]] = (uint32_t)(out->nsite - 1);
        if (order[i] < vs->sample)
            vs->sample = order[i];
        for (int e = 0; e < E_COUNT; e++) {
            vs->e[e].est += (double)val[col[e]];
            /* The file holds integers: each value's rounding adds up to 1/12 (uniform on
             * +-0.5), which matters where the sampling's variance is below it (blocks
             * sampled with P near 1). */
            if (out->has_var)
                vs->e[e].var += (double)val[vcol[e]] + 1.0 / 12;
        }
        if (out->has_var)
            vs->samples += (uint64_t)(val[V_SAMPLES] > 0 ? val[V_SAMPLES] : 0);
        if (has_ref && val[V_REF_SAMPLES] > 0) {
            vs->refused.samples += (uint64_t)val[V_REF_SAMPLES];
            vs->refused.n += val[V_REF_N] > 0 ? (double)val[V_REF_N] : 0;
            vs->refused.b += val[V_REF_B] > 0 ? (double)val[V_REF_B] : 0;
        }
    }
}

int vprof_build_opt(const struct prof *p, struct vprof *out, unsigned flags, char *why,
                    size_t whylen)
{
    memset(out, 0, sizeof(*out));
    out->p = p;
    if (!prof_std_types(p)) {
        snprintf(why, whylen, "not a profile drain wrote (its first sample types are not "
                              "inuse_objects, inuse_space, alloc_objects, alloc_space, ...)");
        return -1;
    }
    out->has_var = prof_has_variances(p);
    int has_ref = prof_has_refused(p);
    size_t n = p->nsample;
    uint32_t *order = xmalloc((n + 1) * sizeof(*order));
    uint64_t *canon = prof_loc_canon(p);
    const char **lab = sample_labels(p);
    cmp_p = p;
    cmp_canon = canon;
    cmp_lab = lab;
    unsigned cb = sort_samples(p, canon, order);
    /* Where each site starts (first[i]: order[i] starts one), counted before the arrays are
     * allocated at their size. */
    uint8_t *first = xmalloc(n + 1);
    size_t nframes = 0;
    for (size_t i = 0; i < n; i++) {
        first[i] = i == 0 ||
                   prefix_key(p, canon, cb, order[i]) != prefix_key(p, canon, cb, order[i - 1]) ||
                   !same_site(p, &p->sample[order[i - 1]], &p->sample[order[i]]);
        if (!first[i])
            continue;
        out->nsite++;
        const struct prof_sample *s0 = &p->sample[order[i]];
        for (uint32_t k = 0; k < s0->nloc; k++)
            nframes += loc_frames(p, p->locpool[s0->loc_off + k]);
    }
    /* The sites' tasks taken before the labels and canons are freed, and the frames allocated
     * after: the three are never held at once (a 10^5-site profile: 2.4, 0.8 and 6.8 MB). */
    out->site = xmalloc((out->nsite + 1) * sizeof(*out->site));
    for (size_t i = 0, k = 0; i < n; i++)
        if (first[i]) {
            memset(&out->site[k], 0, sizeof(out->site[k]));
            out->site[k++].task = lab[3 * (size_t)order[i]];
        }
    free(canon);
    free(lab);
    out->capframes = out->capnamed = nframes + 1;
    out->frames = xmalloc(out->capframes * sizeof(*out->frames));
    out->named = xmalloc(out->capnamed);
    if (!(flags & VPROF_NO_SITE_OF))
        out->site_of = xmalloc((n + 1) * sizeof(*out->site_of));
    out->nsite = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && !first[j])
            j++;
        struct vsite *vs = &out->site[out->nsite++];
        vs->sample = order[i];
        vs->frame_off = out->nframes;
        site_frames(p, out, &p->sample[order[i]]);
        vs->nframe = (uint32_t)(out->nframes - vs->frame_off);
        site_sums(p, out, vs, order, i, j, has_ref);
        for (int e = 0; e < E_COUNT; e++) {
            out->total[e].est += vs->e[e].est;
            out->total[e].var += vs->e[e].var;
        }
        out->total_refused.samples += vs->refused.samples;
        out->total_refused.n += vs->refused.n;
        out->total_refused.b += vs->refused.b;
        i = j;
    }
    free(first);
    free(order);
    marks_from_prof(p, &out->marks);
    out->unseen = unseen_from_prof(p, &out->interval);
    return 0;
}

int vprof_build(const struct prof *p, struct vprof *out, char *why, size_t whylen)
{
    return vprof_build_opt(p, out, 0, why, whylen);
}

int vprof_interval(const struct vprof *v, int e, struct est x, double add, double *lo, double *hi)
{
    if (!v->has_var) {
        *lo = *hi = NAN;
        return 0;
    }
    int bytes = e == E_INUSE_B || e == E_ALLOC_B;
    *lo = est_lo(x);
    *hi = (bytes ? est_hi_max(x, v->interval) : est_hi(x)) + add;
    if (x.est != 0)
        return 0;
    /* Nothing sampled in the set: the rounding's variance (1/12 a value) is no interval. */
    *hi = (e == E_INUSE_B || e == E_ALLOC_B ? v->unseen : NAN) + add;
    return 1;
}

int vprof_marked(const struct vprof *v, const struct vrefused *r, int all, int e, double *add)
{
    int inuse = e == E_INUSE_B || e == E_INUSE_N;
    *add = r && inuse ? (e == E_INUSE_B ? r->b : r->n) : 0;
    if (r && inuse && r->samples)
        return 1;
    return all ? marks_totals(&v->marks) : marks_sites(&v->marks);
}

void vprof_free(struct vprof *v)
{
    free(v->frames);
    free(v->named);
    free(v->site);
    free(v->site_of);
    memset(v, 0, sizeof(*v));
}

int vsite_has_frame(const struct vprof *v, const struct vsite *s, const char *fn)
{
    char buf[VFRAME_TEXT];
    for (uint32_t k = 0; k < s->nframe; k++)
        if (strcmp(vframe_text(v, s->frame_off + k, buf), fn) == 0)
            return 1;
    return 0;
}

size_t vprof_sum(const struct vprof *v, const char *task, const char *fn, struct est *out,
                 struct vrefused *ref)
{
    size_t n = 0;
    for (int e = 0; e < E_COUNT; e++)
        out[e] = (struct est){0, 0};
    if (ref)
        *ref = (struct vrefused){0, 0, 0};
    for (size_t i = 0; i < v->nsite; i++) {
        const struct vsite *s = &v->site[i];
        if (task && (!s->task || strcmp(s->task, task)))
            continue;
        if (fn && !vsite_has_frame(v, s, fn))
            continue;
        for (int e = 0; e < E_COUNT; e++) {
            out[e].est += s->e[e].est;
            out[e].var += s->e[e].var;
        }
        if (ref) {
            ref->samples += s->refused.samples;
            ref->n += s->refused.n;
            ref->b += s->refused.b;
        }
        n++;
    }
    return n;
}

/* The text of frame k of s in vsite_key (tmp: its buffer), and its length in *n. */
static const char *key_frame(const struct vprof *v, const struct vsite *s, uint32_t k,
                             int any_address, char tmp[VFRAME_TEXT], size_t *n)
{
    size_t i = s->frame_off + k;
    int raw = !v->named[i] && !v->frames[i].text; /* an address outside any image */
    const char *f = any_address && raw ? "?" : vframe_text(v, i, tmp);
    *n = strlen(f);
    return f;
}

size_t vsite_key(const struct vprof *v, const struct vsite *s, int any_address, struct buf *out)
{
    /* Each frame's text made once and appended (drain diff makes a key of every site of two
     * profiles); the buffer grows by doubling. */
    char tmp[VFRAME_TEXT];
    size_t at = out->len, n, tl = s->task ? strlen(s->task) : 0;
    for (uint32_t k = 0; k < s->nframe; k++) {
        const char *f = key_frame(v, s, k, any_address, tmp, &n);
        GROW(out->p, out->cap, out->len + n + 1);
        memcpy(out->p + out->len, f, n);
        out->p[out->len + n] = '\n';
        out->len += n + 1;
    }
    GROW(out->p, out->cap, out->len + 5 + tl + 1);
    char *o = (char *)out->p + out->len;
    memcpy(o, "task=", 5), o += 5;
    if (tl)
        memcpy(o, s->task, tl), o += tl;
    *o = 0;
    out->len += 5 + tl + 1;
    return at;
}

void json_est(FILE *f, const struct vprof *v, int e, struct est x, int marked, double add)
{
    double lo, hi;
    vprof_interval(v, e, x, add, &lo, &hi);
    json_interval(f, x.est, lo, hi, marked);
}

/* "0x" and the hex digits of a, quoted, at o: the end. */
static char *quoted_hex(char *o, uint64_t a)
{
    int n = (67 - __builtin_clzll(a | 1)) / 4; /* its hex digits, 1 for 0 */
    memcpy(o, "\"0x", 3), o += 3;
    for (int k = n - 1; k >= 0; k--, a >>= 4)
        o[k] = "0123456789abcdef"[a & 15];
    o += n;
    *o++ = '"';
    return o;
}

void json_stack(FILE *f, const struct vprof *v, const struct vsite *s)
{
    /* A raw address (no module, no name: its text needs no escaping) goes straight into t, the
     * stack's text written at once; any other frame through json_str. */
    char t[256], *o = t;
    *o++ = '[';
    for (uint32_t k = 0; k < s->nframe; k++) {
        size_t i = s->frame_off + k;
        if (o - t > (ptrdiff_t)sizeof(t) - 32) {
            jwrite(t, (size_t)(o - t), f);
            o = t;
        }
        if (k)
            *o++ = ',', *o++ = ' ';
        if (!v->named[i] && !v->frames[i].text) {
            o = quoted_hex(o, v->frames[i].addr);
            continue;
        }
        jwrite(t, (size_t)(o - t), f);
        o = t;
        char buf[VFRAME_TEXT];
        json_str(f, vframe_text(v, i, buf));
    }
    *o++ = ']';
    jwrite(t, (size_t)(o - t), f);
}
