/*
 * The pprof builder (pprof/profile.h): a session's profile, its sample types, mappings and
 * locations (pprof/prof_locs.c), samples by site, lifetime and age (their values the session's
 * estimates, rounded by pprof/prof_round.c so that each site's sum is exact), the per-site totals the reports read, the
 * peak profile, and the comments on the session (pprof/prof_notes.c). The verdicts are added by
 * verdict/stamp.c.
 */
#include "pprof/profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/heap.h"
#include "model/task_use.h"
#include "msamp_arch.h"
#include "pprof/prof_codec.h"
#include "pprof/prof_locs.h"
#include "pprof/prof_notes.h"
#include "pprof/prof_round.h"
#include "util.h"

static const char *sample_type_names[V_ALL][2] = {
    {"inuse_objects", "count"},        {"inuse_space", "bytes"},
    {"alloc_objects", "count"},        {"alloc_space", "bytes"},
    {"freed_objects", "count"},        {"freed_space", "bytes"},
    {"inuse_objects_var", "count^2"},  {"inuse_space_var", "bytes^2"},
    {"alloc_objects_var", "count^2"},  {"alloc_space_var", "bytes^2"},
    {"alloc_samples", "count"},
    {"inuse_refused_objects", "count"}, {"inuse_refused_space", "bytes"},
    {"refused_samples", "count"},
};

/* Whether a site's samples may share their stack with another site's and must be merged into
 * one pprof sample (interned): only the frameless kinds and a definition two stack ids reached (a
 * late one). Every other site is a distinct stack (drain stores each once; a task's site differs
 * by its label), so its samples skip the intern table's hashing. */
static int site_merges(const struct session *s, const struct site *st)
{
    return st->def >= s->nstacks || s->stacks[st->def].shared;
}

/* A string label; value text of n bytes, non-printable bytes as '?'. */
static struct prof_label str_label(struct prof *p, const char *key, const uint8_t *v, size_t n)
{
    char text[2 * MSAMP_WIRE_MAX_BUILD_ID + 1];
    if (n >= sizeof(text))
        n = sizeof(text) - 1;
    for (size_t i = 0; i < n; i++)
        text[i] = v[i] >= 0x20 && v[i] < 0x7f ? (char)v[i] : '?';
    text[n] = 0;
    return (struct prof_label){prof_cstr(p, key), prof_cstr(p, text), 0, 0};
}

/* A site's `task` label on an RTOS device (the task's name, or the interrupt context's, or
 * "task N" when no TASK record named it): how many it wrote, 0 or 1. */
static __attribute__((noinline)) uint32_t task_label_of(struct prof *p, const struct session *s,
                                                        uint32_t site, struct prof_label *out)
{
    char buf[32];
    const char *task = session_site_task(s, &s->sites[site], buf, sizeof(buf));
    if (task == NULL)
        return 0;
    out[0] = (struct prof_label){prof_cstr(p, "task"), prof_cstr(p, task), 0, 0};
    return 1;
}

/* task_label_of, its test inline: a site of no task (every site off an RTOS) has no label. */
static inline uint32_t task_label(struct prof *p, const struct session *s, uint32_t site,
                                  struct prof_label *out)
{
    return s->sites[site].task ? task_label_of(p, s, site, out) : 0;
}

/* The labels of the session every sample carries (docs/DRAIN.md "Labels"): the device's id
 * (`device`), its build-id (`build_id`) and session id (`session`), each when the stream gave it.
 * Made once per profile (their strings interned once, not per sample): at most 3. */
static uint32_t origin_labels(struct prof *p, const struct session *s, struct prof_label *out)
{
    uint32_t n = 0;
    char text[2 * MSAMP_WIRE_MAX_BUILD_ID + 1];
    if (s->device_id_len)
        out[n++] = str_label(p, "device", s->device_id, s->device_id_len);
    if (s->build_id_len) {
        bid_hex(text, s->build_id, s->build_id_len);
        out[n++] = (struct prof_label){prof_cstr(p, "build_id"), prof_cstr(p, text), 0, 0};
    }
    if (s->have_header) {
        snprintf(text, sizeof(text), "0x%08x", s->session_id);
        out[n++] = (struct prof_label){prof_cstr(p, "session"), prof_cstr(p, text), 0, 0};
    }
    return n;
}

/* The labels every sample of site `site` carries: on an RTOS device the site's `task` (the
 * task's name, or the interrupt context's, or "task N" when no TASK record named it), then the
 * session's (origin, norigin: origin_labels()). At most DRAIN_SITE_LABELS; the caller may append
 * more (a lifetime). */
#define DRAIN_SITE_LABELS 8
static uint32_t sample_labels(struct prof *p, const struct session *s, uint32_t site,
                              const struct prof_label *origin, uint32_t norigin,
                              struct prof_label *out)
{
    uint32_t n = task_label(p, s, site, out);
    for (uint32_t k = 0; k < norigin; k++)
        out[n++] = origin[k];
    return n;
}

/* A numeric time label: a lifetime bucket's lower edge in nanoseconds. */
static struct prof_label time_label(struct prof *p, const char *key, unsigned bucket)
{
    return (struct prof_label){prof_cstr(p, key), 0, (int64_t)session_life_edge_ns(bucket),
                               prof_cstr(p, "nanoseconds")};
}

/* tot += v, saturating (the values of a hostile stream can be INT64_MAX). */
static void add_values(int64_t *tot, const int64_t *v)
{
    for (int k = 0; k < V_ALL; k++)
        if (__builtin_add_overflow(tot[k], v[k], &tot[k]))
            tot[k] = INT64_MAX;
}

/* Live entries of one site in one age bucket (AGE_UNKNOWN: no known birth). */
#define AGE_UNKNOWN 15u
struct agebin {
    uint32_t site, bucket, next;
    double n, b, an, ab;
    double cn, cb; /* of n, b: realloc chains' in-use, whose allocated share is at another site */
    double v[4];   /* the variances of n, b, an, ab */
    uint64_t samples;
};

/* Site i's totals tot (the sum of its samples' values) as its sample of out->agg, with the
 * sampled allocations behind them (inuse_cnt, and the site's alloc_samples). */
static void site_total(struct prof *p, const struct session *s, uint32_t i, const uint64_t *locs,
                       uint32_t nloc, int merge, const int64_t *tot, uint64_t inuse_cnt,
                       struct built *out)
{
    /* Per site: the same stack in two tasks stays two lines of --top (the label's strings are
     * p's, as the locations are). */
    struct prof_label tl[1];
    uint32_t si = prof_add_sample(&out->agg, locs, nloc, tot, tl, task_label(p, s, i, tl), merge);
    out->site_agg[i] = si;
    GROW(out->inuse_samples, out->cap_inuse, si + 1);
    GROW(out->alloc_samples, out->cap_alloc, si + 1);
    if (si + 1 == out->agg.nsample) {
        out->inuse_samples[si] = 0;
        out->alloc_samples[si] = 0;
    }
    out->inuse_samples[si] += inuse_cnt;
    out->alloc_samples[si] += s->sites[i].alloc_samples;
}

/* The samples of every site (docs/DRAIN.md "Lifetimes"): one per age bucket of its live entries
 * (in use and their allocated share, label `age`), one per lifetime bucket of its freed entries
 * (allocated and freed, label `lifetime`), and one with the rest of its allocated and freed
 * totals (allocations without a slot, entries whose free was inferred or had no time), without a
 * time label. With agg, the per-site totals go to out->agg, one sample per distinct stack, for
 * reports (a profile written alone does without: 10^6 sites' totals are 100+ MB). */
/* The live entries' age bins of a session, and per site the lists of them and of its lifetime
 * bins (session.life). */
struct site_bins {
    struct agebin *ages;
    size_t nages, capages;
    uint32_t *age_head, *life_head, *life_next;
};

static void site_bins_of(const struct session *s, struct site_bins *sb)
{
    struct umap idx = {0};
    memset(sb, 0, sizeof(*sb));
    /* The lists' heads only when there are entries (10^6 sites: 4 MiB each). */
    uint32_t *age_head = s->nlive ? xmalloc((s->nsites + 1) * sizeof(uint32_t)) : NULL;
    uint32_t *life_head = s->nlife ? xmalloc((s->nsites + 1) * sizeof(uint32_t)) : NULL;
    uint32_t *life_next = xmalloc((s->nlife + 1) * sizeof(uint32_t));
    struct agebin *ages = NULL;
    size_t nages = 0, capages = 0;
    for (size_t i = 0; age_head && i < s->nsites; i++)
        age_head[i] = UINT32_MAX;
    for (size_t i = 0; life_head && i < s->nsites; i++)
        life_head[i] = UINT32_MAX;
    for (size_t k = 0; k < s->nlive; k++) {
        const struct slot *sl = &s->slots[s->live[k]];
        double ns = sl->born && s->ts_known ? session_age_ns(s, sl->birth, s->last_ts) : -1;
        unsigned bucket = ns >= 0 ? session_life_bucket(ns) : AGE_UNKNOWN;
        uint64_t key = (uint64_t)sl->site * 16u + bucket;
        uint32_t a = umap_get(&idx, key);
        if (a >= nages) {
            GROW(ages, capages, nages + 1);
            ages[nages] = (struct agebin){sl->site, bucket, age_head[sl->site], 0, 0, 0, 0, 0, 0,
                                          {0, 0, 0, 0}, 0};
            age_head[sl->site] = (uint32_t)nages;
            umap_put(&idx, key, (uint32_t)nages);
            a = (uint32_t)nages++;
        }
        double sz2 = (double)sl->size * (double)sl->size;
        ages[a].n += sl->w;
        ages[a].b += sl->w * (double)sl->size;
        ages[a].v[0] += sl->w * sl->w - sl->w;
        ages[a].v[1] += (sl->w * sl->w - sl->w) * sz2;
        if (sl->lsite == sl->site) {
            ages[a].an += sl->aw;
            ages[a].ab += sl->aw * (double)sl->size;
            ages[a].v[2] += sl->aw * sl->aw - sl->aw;
            ages[a].v[3] += (sl->aw * sl->aw - sl->aw) * sz2;
        } else { /* a chain: its latest block's allocation is in its realloc site's rest */
            ages[a].cn += sl->w;
            ages[a].cb += sl->w * (double)sl->size;
        }
        ages[a].samples++;
    }
    for (size_t l = s->nlife; l-- > 0;) {
        life_next[l] = life_head[s->life[l].site];
        life_head[s->life[l].site] = (uint32_t)l;
    }
    umap_free(&idx);
    *sb = (struct site_bins){ages, nages, capages, age_head, life_head, life_next};
}

static void site_bins_free(struct site_bins *sb)
{
    free(sb->ages);
    free(sb->age_head);
    free(sb->life_head);
    free(sb->life_next);
}

/* One site's samples being added: where, with which locations and labels. */
struct site_out {
    struct prof *p;
    const struct session *s;
    struct built *out;
    int agg, merge;
    uint32_t site, nloc, nl;
    const uint64_t *locs;
    struct prof_label *labels; /* nl of them, room for a time label after */
    double up;                 /* the lossy line's scale (1: none) */
};

/* A site with neither live entries nor lifetime bins: one sample without a time label (what
 * site_parts_add makes of it, in fewer steps; 10^6 distinct stacks of untracked allocations are
 * all such). */
static void site_rest_add(const struct site_out *o, const struct site *st,
                          const struct site_refused *rf, double rv_n, double rv_b)
{
    struct prof *p = o->p;
    const struct session *s = o->s;
    struct built *out = o->out;
    uint32_t i = o->site;
    double up = o->up;
    double x[V_ALL] = {0, 0, st->alloc_n, st->alloc_b, st->free_n, st->free_b, 0, 0,
                       rv_n > 0 ? rv_n : 0, rv_b > 0 ? rv_b : 0,
                       (double)st->alloc_samples, rf->n, rf->b,
                       (double)rf->samples};
    if (up > 1.0)
        lossy_scale(x, up);
    int64_t v[V_ALL];
    int any;
    out->alloc_raised += (uint64_t)round_rest(x, v, &any);
    if (any)
        out->site_prof[i] = prof_add_sample(p, o->locs, o->nloc, v, o->labels, o->nl, o->merge);
    if (o->agg)
        site_total(p, s, i, o->locs, o->nloc, o->merge, v, 0, out);
}

/* The site's parts (age bins, lifetime bins, the rest) into parts: how many; *inuse_cnt the
 * sampled entries of its age bins. */
static size_t site_parts(const struct site_bins *sb, const struct session *s, const struct site *st,
                         const struct site_refused *rf, uint32_t age0, uint32_t life0,
                         double rv_n, double rv_b, struct part *parts, uint64_t *inuse_cnt_out)
{
    const struct agebin *ages = sb->ages;
    const uint32_t *life_next = sb->life_next;
    size_t np = 0;
    double ra_n = st->alloc_n, ra_b = st->alloc_b, rf_n = st->free_n, rf_b = st->free_b;
    uint64_t inuse_cnt = 0;
    for (uint32_t a = age0; a != UINT32_MAX && np < MAX_PARTS - 1; a = ages[a].next) {
        const struct agebin *g = &ages[a];
        parts[np++] = (struct part){{g->n, g->b, g->an, g->ab, 0, 0, g->v[0], g->v[1], g->v[2],
                                     g->v[3], 0, 0, 0, 0},
                                    {0},
                                    "age",
                                    g->bucket,
                                    {g->cn, g->cb}};
        ra_n -= g->an;
        ra_b -= g->ab;
        rv_n -= g->v[2];
        rv_b -= g->v[3];
        inuse_cnt += g->samples;
    }
    for (uint32_t l = life0; l != UINT32_MAX && np < MAX_PARTS - 1; l = life_next[l]) {
        const struct lifebin *lb = &s->life[l];
        parts[np++] = (struct part){
            {0, 0, lb->an, lb->ab, lb->fn, lb->fb, 0, 0, 0, 0, 0, 0, 0, 0}, {0}, "lifetime",
            lb->bucket,
            {0, 0}};
        ra_n -= lb->an;
        ra_b -= lb->ab;
        rf_n -= lb->fn;
        rf_b -= lb->fb;
    }
    /* The rest holds the allocated variance the age bins do not (the lifetime bins' too),
     * the site's sampled allocations and its refused samples. */
    parts[np++] = (struct part){{0, 0, ra_n, ra_b, rf_n, rf_b, 0, 0, rv_n > 0 ? rv_n : 0,
                                 rv_b > 0 ? rv_b : 0, (double)st->alloc_samples,
                                 rf->n, rf->b, (double)rf->samples},
                                {0},
                                NULL,
                                AGE_UNKNOWN,
                                {0, 0}};
    *inuse_cnt_out = inuse_cnt;
    return np;
}

/* The site's parts, rounded so that they add up to the site's rounded totals (largest
 * remainders: the per-site totals of a split profile are those of an unsplit one), as samples:
 * one per timed part, the untimed ones summed into one after them. */
static void site_parts_add(const struct site_out *o, struct part *parts, size_t np,
                           uint64_t inuse_cnt)
{
    struct prof *p = o->p;
    struct built *out = o->out;
    uint32_t i = o->site;
    double up = o->up;
    for (size_t k = 0; k < np && up > 1.0; k++)
        if (parts[k].key == NULL || strcmp(parts[k].key, "age") != 0)
            lossy_scale(parts[k].x, up);
    int raised = cover_inuse(parts, np);
    round_parts(parts, np);
    int64_t tot[V_ALL] = {0}, untimed[V_ALL] = {0};
    int any_untimed = 0;
    for (size_t k = 0; k <= np; k++) {
        /* Parts without a time label share their labels: one sample, after the others. */
        int64_t *v = k < np ? parts[k].v : untimed;
        int timed = k < np && parts[k].key && parts[k].bucket != AGE_UNKNOWN;
        if (k < np && !(parts[k].chain[0] > 0)) {
            if (v[V_ALLOC_N] < v[V_INUSE_N]) /* rounding beyond 2^53 alone */
                v[V_ALLOC_N] = v[V_INUSE_N];
            if (v[V_ALLOC_B] < v[V_INUSE_B])
                v[V_ALLOC_B] = v[V_INUSE_B];
        }
        int64_t bits = 0;
        for (int c = 0; c < V_ALL; c++)
            bits |= v[c];
        int any = bits != 0;
        if (!any || (k == np && !any_untimed))
            continue;
        if (k < np && !timed) {
            if (any_untimed) /* the first (mostly the only one: the rest) is copied */
                add_values(untimed, v);
            else
                memcpy(untimed, v, sizeof(untimed));
            any_untimed = 1;
            continue;
        }
        uint32_t n = o->nl;
        if (timed)
            o->labels[n++] = time_label(p, parts[k].key, parts[k].bucket);
        uint32_t ps = prof_add_sample(p, o->locs, o->nloc, v, o->labels, n, o->merge);
        if (out->site_prof[i] == UINT32_MAX)
            out->site_prof[i] = ps;
        if (o->agg)
            add_values(tot, v);
    }
    out->alloc_raised += (uint64_t)raised;
    if (o->agg)
        site_total(p, o->s, i, o->locs, o->nloc, o->merge, tot, inuse_cnt, out);
}

/* The built profile's per-site maps (site_prof; with agg, site_agg and the agg profile's types). */
static void site_maps_init(struct built *out, const struct session *s, int agg)
{
    out->site_prof = xmalloc((s->nsites + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < s->nsites; i++)
        out->site_prof[i] = UINT32_MAX;
    prof_init(&out->agg);
    if (agg) {
        out->site_agg = xmalloc((s->nsites + 1) * sizeof(uint32_t));
        for (size_t i = 0; i < s->nsites; i++)
            out->site_agg[i] = UINT32_MAX;
        for (int i = 0; i < V_ALL; i++)
            prof_add_type(&out->agg, sample_type_names[i][0], sample_type_names[i][1]);
    }
}

static void site_samples(struct prof *p, const struct session *s, struct mapinfo *maps,
                         size_t nmaps, int bare, struct loc_cache *cache, struct built *out, int agg)
{
    struct site_bins sb;
    site_bins_of(s, &sb);
    site_maps_init(out, s, agg);
    uint64_t locs[MSAMP_DEC_MAX_DEPTH];
    struct prof_label labels[DRAIN_SITE_LABELS + 1], origin[3];
    uint32_t norigin = origin_labels(p, s, origin), nl = UINT32_MAX;
    int task_before = 0;
    const double up = 1.0 / (1.0 - session_line_loss(s)); /* the lossy line's, below */
    for (size_t i = 0; i < s->nsites; i++) {
        const struct site *st = &s->sites[i];
        int failed = 0;
        const struct site_rare *rr = session_site_rare(s, (uint32_t)i);
        const struct site_refused *rf = session_site_refused(s, (uint32_t)i);
        for (int k = 0; k < MSAMP_FAIL_KINDS; k++)
            failed |= rr->fail_n[k] != 0;
        uint32_t age0 = sb.age_head ? sb.age_head[i] : UINT32_MAX;
        uint32_t life0 = sb.life_head ? sb.life_head[i] : UINT32_MAX;
        /* A site whose every sample --min-lifetime left out (culled) keeps its locations and,
         * with agg, a sample of zeros: the views that saw it live name it (the timeline). */
        int sampled = age0 != UINT32_MAX || st->alloc_samples || st->free_samples ||
                      st->alloc_n > 0 || st->free_n > 0 || rr->cull_samples;
        if (!sampled && !failed)
            continue;
        uint32_t nloc = 0;
        const uint64_t *fr = site_locs(p, s, st, maps, nmaps, bare, cache, locs, &nloc);
        int merge = site_merges(s, st);
        if (fr == NULL && st->def != SITE_DEF_FULL &&
            st->def != SITE_DEF_OVER) {
            out->unknown_stack += st->alloc_samples;
            out->unknown_events += st->def == SITE_DEF_NONE ? rr->events : 0;
        }
        if (failed) {
            GROW(out->fails, out->cap_fails, out->nfails + 1);
            struct built_fail *f = &out->fails[out->nfails++];
            f->site = (uint32_t)i;
            f->nloc = nloc;
            f->locs = xmalloc(nloc * sizeof(*f->locs));
            memcpy(f->locs, locs, nloc * sizeof(*f->locs));
        }
        if (!sampled)
            continue;
        /* The labels of a site of no task are the session's, made again only after one of a
         * task (a time label goes after them, not over them). */
        if (st->task || nl == UINT32_MAX || task_before) {
            nl = sample_labels(p, s, (uint32_t)i, origin, norigin, labels);
            task_before = st->task != 0;
        }
        double rv_n = s->site_var[i].n, rv_b = s->site_var[i].b;
        struct site_out o = {p, s, out, agg, merge, (uint32_t)i, nloc, nl, locs, labels, up};
        if (age0 == UINT32_MAX && life0 == UINT32_MAX) {
            site_rest_add(&o, st, rf, rv_n, rv_b);
            continue;
        }
        struct part parts[MAX_PARTS];
        uint64_t inuse_cnt;
        size_t np = site_parts(&sb, s, st, rf, age0, life0, rv_n, rv_b, parts, &inuse_cnt);
        site_parts_add(&o, parts, np, inuse_cnt);
    }
    site_bins_free(&sb);
}

/* The peak profile's samples: each site's in-use at the peak of the estimate (docs/DRAIN.md
 * "Peak"), with the session's labels. */
static void peak_samples(struct prof *p, const struct session *s, struct mapinfo *maps,
                         size_t nmaps, int bare, struct loc_cache *cache)
{
    uint64_t locs[MSAMP_DEC_MAX_DEPTH];
    struct prof_label labels[DRAIN_SITE_LABELS], origin[3];
    uint32_t norigin = origin_labels(p, s, origin);
    for (size_t i = 0; i < s->nsites; i++) {
        const struct site *st = &s->sites[i];
        double n, b;
        session_site_peak(s, st, &n, &b);
        int64_t v[2] = {round_val(n), round_val(b)};
        if (v[0] == 0 && v[1] == 0)
            continue;
        uint32_t nloc = 0;
        site_locs(p, s, st, maps, nmaps, bare, cache, locs, &nloc);
        uint32_t nl = sample_labels(p, s, (uint32_t)i, origin, norigin, labels);
        prof_add_sample(p, locs, nloc, v, labels, nl, site_merges(s, st));
    }
}

/* The reports' per-site totals keyed by symbolized stack (prof_loc_canon): samples of agg whose
 * stacks differ only in return addresses of one call line (a call the compiler duplicated) become
 * one, so --top lists a stack once, as --json, check and diff do (docs/VERDICTS.md "One verdict
 * model"). Nothing is done when no two locations share their frames. */
static void agg_by_symbols(struct built *out, size_t nsites)
{
    const struct prof *p = &out->prof;
    struct prof *a = &out->agg;
    uint64_t *canon = prof_loc_canon(p);
    int any = 0;
    for (size_t i = 1; i <= p->nlocation && !any; i++)
        any = canon[i] != i;
    if (!any) {
        free(canon);
        return;
    }
    struct prof m;
    prof_init(&m);
    for (size_t i = 0; i < a->nvt; i++)
        prof_append_vt(&m, a->vt[i]);
    uint32_t *to = xmalloc((a->nsample + 1) * sizeof(*to));
    uint64_t *inuse = xcalloc(a->nsample + 1, sizeof(*inuse)), *alloc = xcalloc(a->nsample + 1,
                                                                              sizeof(*alloc));
    uint64_t locs[MSAMP_DEC_MAX_DEPTH];
    for (size_t i = 0; i < a->nsample; i++) {
        const struct prof_sample *smp = &a->sample[i];
        uint32_t n = smp->nloc < MSAMP_DEC_MAX_DEPTH ? smp->nloc : MSAMP_DEC_MAX_DEPTH;
        for (uint32_t k = 0; k < n; k++)
            locs[k] = canon[a->locpool[smp->loc_off + k]];
        to[i] = prof_add_sample(&m, locs, n, &a->valpool[smp->val_off],
                                smp->nlabel ? &a->labelpool[smp->label_off] : NULL, smp->nlabel, 1);
        inuse[to[i]] += out->inuse_samples[i];
        alloc[to[i]] += out->alloc_samples[i];
    }
    for (size_t i = 0; i < nsites; i++)
        if (out->site_agg[i] != UINT32_MAX)
            out->site_agg[i] = to[out->site_agg[i]];
    prof_free(a);
    *a = m;
    free(out->inuse_samples);
    free(out->alloc_samples);
    out->inuse_samples = inuse;
    out->alloc_samples = alloc;
    out->cap_inuse = out->cap_alloc = a->nsample + 1;
    free(to);
    free(canon);
}

/* What build_from builds: the profile, the profile with its samples kept, the profile and its
 * per-site totals (built.agg, for reports), or the peak profile. */
enum build_what { BUILD_PROFILE, BUILD_WITH_SAMPLES, BUILD_WITH_AGG, BUILD_PEAK };
static int build_from(const struct session *s, const struct elf_set *elves, const char *kind,
                      const struct msamp_dec_stats *dec_now, struct built *out, char *err,
                      size_t errlen, enum build_what what);

/* The six standard sample types first, in drain's order. */
int prof_std_types(const struct prof *p)
{
    static const char *const names[V_COUNT] = {"inuse_objects", "inuse_space", "alloc_objects",
                                               "alloc_space",   "freed_objects", "freed_space"};
    if (p->nvt < V_COUNT)
        return 0;
    for (int i = 0; i < V_COUNT; i++)
        if (prof_vt_index(p, names[i]) != i)
            return 0;
    return 1;
}

int prof_has_variances(const struct prof *p)
{
    return prof_std_types(p) && prof_vt_index(p, "inuse_objects_var") == V_INUSE_NV &&
           prof_vt_index(p, "inuse_space_var") == V_INUSE_BV &&
           prof_vt_index(p, "alloc_objects_var") == V_ALLOC_NV &&
           prof_vt_index(p, "alloc_space_var") == V_ALLOC_BV &&
           prof_vt_index(p, "alloc_samples") == V_SAMPLES;
}

int prof_has_refused(const struct prof *p)
{
    return prof_has_variances(p) && prof_vt_index(p, "inuse_refused_objects") == V_REF_N &&
           prof_vt_index(p, "inuse_refused_space") == V_REF_B &&
           prof_vt_index(p, "refused_samples") == V_REF_SAMPLES;
}

int check_elves(const struct session *s, const struct elf_set *elves, char *err, size_t errlen)
{
    size_t nmaps;
    struct mapinfo *maps = session_maps(s, &nmaps);
    int rc = assign_elves(maps, nmaps, s->nmaps == 0, elves, err, errlen);
    free(maps);
    return rc;
}

const struct session *built_session(const struct built *b, const struct session *s)
{
    return b->replayed ? b->replayed : s;
}

int pprof_build(const struct session *s, const struct elf_set *elves, const char *kind,
                const struct msamp_dec_stats *dec_now, int keep, struct built *out, char *err,
                size_t errlen)
{
    /* A session whose header never came holds its records unapplied: build from them replayed
     * with defaults (the session itself keeps them, for a header that may still come). */
    struct session *t = session_replayed_defaults(s);
    int rc = build_from(t ? t : s, elves, kind, dec_now, out, err, errlen,
                        keep == BUILT_AGG       ? BUILD_WITH_AGG
                        : keep == BUILT_SAMPLES ? BUILD_WITH_SAMPLES
                                                : BUILD_PROFILE);
    if (rc == 0)
        out->replayed = t;
    else
        session_free(t);
    return rc;
}

int build_peak_profile(const struct session *s, const struct elf_set *elves,
                       const struct msamp_dec_stats *dec_now, struct built *out, char *err,
                       size_t errlen)
{
    struct session *t = session_replayed_defaults(s);
    int rc = build_from(t ? t : s, elves, "peak", dec_now, out, err, errlen, BUILD_PEAK);
    if (rc == 0)
        out->replayed = t;
    else
        session_free(t);
    return rc;
}

static int build_from(const struct session *s, const struct elf_set *elves, const char *kind,
                      const struct msamp_dec_stats *dec_now, struct built *out, char *err,
                      size_t errlen, enum build_what what)
{
    int peak = what == BUILD_PEAK;
    memset(out, 0, sizeof(*out));
    struct prof *p = &out->prof;
    prof_init(p);
    /* Without the views nothing but the file's writer reads the samples: encoded at once. */
    p->encode_samples = what != BUILD_WITH_AGG && what != BUILD_WITH_SAMPLES;
    p->encode_sample = prof_encode_sample;
    for (int i = 0; i < (peak ? V_ALLOC_N : V_ALL); i++)
        prof_add_type(p, sample_type_names[i][0], sample_type_names[i][1]);
    p->default_sample_type = prof_cstr(p, "inuse_space");
    p->period_type = (struct prof_vt){prof_cstr(p, "space"), prof_cstr(p, "bytes")};
    p->period = (int64_t)(s->interval ? s->interval : 1);
    p->time_nanos = (int64_t)s->host_start.tv_sec * 1000000000 + s->host_start.tv_nsec;
    if (s->ts_known && s->tick_hz) {
        double ns = s->last_ts > s->first_ts
                        ? (double)(s->last_ts - s->first_ts) * 1e9 / (double)s->tick_hz
                        : 0.0;
        p->duration_nanos = ns < 9.0e18 ? (int64_t)ns : INT64_MAX;
    } else {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        p->duration_nanos = (int64_t)(now.tv_sec - s->host_start.tv_sec) * 1000000000 +
                            (now.tv_nsec - s->host_start.tv_nsec);
    }

    int bare = s->nmaps == 0;
    size_t nmaps;
    struct mapinfo *maps = session_maps(s, &nmaps);
    int rc = assign_elves(maps, nmaps, bare, elves, err, errlen);
    if (rc != 0)
        goto out;
    if (!bare)
        assign_libraries(maps, nmaps);
    for (size_t i = 0; i < nmaps; i++) {
        char bid[BID_HEX_SIZE];
        bid_hex(bid, maps[i].build_id, maps[i].build_id_len);
        const char *file = bare && maps[i].elf ? sym_path(maps[i].elf) : maps[i].path;
        int sym = maps[i].elf != NULL;
        struct prof_mapping m = {maps[i].start, maps[i].limit, maps[i].offset,
                                 prof_cstr(p, file), prof_cstr(p, bid), (uint8_t)sym,
                                 (uint8_t)sym, (uint8_t)sym, (uint8_t)sym};
        prof_add_mapping(p, &m);
    }

    struct loc_cache cache = {0};
    prof_reserve(p, s->nsites, s->nframes + s->nsites, s->nframes + 1);
    if (peak)
        peak_samples(p, s, maps, nmaps, bare, &cache);
    else
        site_samples(p, s, maps, nmaps, bare, &cache, out, what == BUILD_WITH_AGG);
    if (what == BUILD_WITH_AGG)
        agg_by_symbols(out, s->nsites);
    free(cache.id);
    add_comments(p, s, kind, dec_now, out);
out:
    free(maps);
    if (rc != 0)
        built_free(out);
    return rc;
}

void built_free(struct built *b)
{
    prof_free(&b->prof);
    prof_free(&b->agg);
    free(b->site_agg);
    free(b->site_prof);
    session_free(b->replayed);
    free(b->inuse_samples);
    free(b->alloc_samples);
    for (size_t i = 0; i < b->nfails; i++)
        free(b->fails[i].locs);
    free(b->fails);
    memset(b, 0, sizeof(*b));
}
