/*
 * The growth verdicts (docs/VERDICTS.md "Leaks by growth", "The peak"): fed at every change of a
 * live entry's weight (the session's hook), kept in bounded memory, stored in the profile drain
 * writes as comments (growth_store; their codec is vcomment.c, their text views/leaks.c), read back
 * by growth.h's seam.
 *
 * Leaks. Per site, GR_BINS time bins (their width doubles, merging pairs, as the session outgrows
 * them, as the timeline does) hold the changes of the site's in-use estimate (sum of s * dw), and
 * the variances of the entries that left it (s^2 (w^2 - w)), by the bin they left in and by the bin
 * they were born in. The change of the estimate from a bin boundary b to the end is then
 *   D(b) = sum of the changes after b,
 * an unbiased Horvitz-Thompson estimate of the site's true change I(end) - I(b), and its variance
 * is that of the entries whose state differs between b and the end: those live at b and gone at
 * the end (left after b, born before b: left after b minus born after b, which left after b too)
 * and those born after b and live at the end (from the live set). Entries live at both, or born
 * and gone between, cancel and add nothing: a running estimate's points are correlated, this is
 * what the difference of two of them really varies by. The verdict tests D over the session's
 * recent half (from the first boundary at or after its middle): a working set that levelled off
 * before it (a cache, a pool, a start-up set) has D near 0; growth has D > 0. A leak is sustained
 * growth: outside every run of adjacent bins that holds a third of that window the change still
 * grows (at a lower level), where a step (one batch, then flat: shorter than a third of the
 * window) leaves nothing outside the run it lies in; such growth is reported as a step. Of the
 * two sides of a run, the later reaches the end (its variance as D's); the earlier does not:
 * entries born and freed inside it add nothing, and only those born and freed in one bin are kept
 * apart (xs), so its variance is an upper bound (the test can only be harder to pass).
 *
 * The peak. Each sampled entry is in half A, half B or both (session_half_weights: a hash
 * independent of its sampling, chosen so that the halves are independent samples, each an
 * unbiased estimate on its own; entries of weight 1 are in both). The moment half A's estimate was highest is chosen looking at A only; B's
 * estimate then is unbiased for the heap's in-use at that moment, which is at most the peak: not
 * biased upward by the maximum. Both ways, averaged. The upper end accounts for the maximum: the
 * heap's in-use at its true peak is below the estimate then plus 1.96 sd with 97.5 %, so below the
 * maximum over time of (estimate + 1.96 sd).
 */
#include "verdict/growth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "prof_model.h"
#include "session.h"
#include "verdict/exhaust.h"
#include "verdict/growth_track.h"
#include "verdict/marks.h"
#include "verdict/unseen.h"

#define Z95 1.959963984540054

struct gr_site {
    unsigned shift;     /* the width its bins are at (merged up to the tracker's when touched) */
    double d[GR_BINS];  /* changes of the in-use estimate (bytes) in the bin */
    double dv[GR_BINS]; /* variances of the entries that left in the bin */
    double bv[GR_BINS]; /* the same entries' variances by the bin they were born in */
    double xs[GR_BINS]; /* of those, the ones born in the bin they left in */
};

struct growth {
    int have_t0;
    unsigned shift;     /* bin i covers [t0 + i * 2^shift, t0 + (i + 1) * 2^shift) */
    uint64_t t0, width; /* width = 2^shift */
    uint64_t edge;      /* t0 + GR_BINS * width: a time at or past it merges bins */
    struct gr_site **site;
    size_t capsite;
    uint64_t followed, unfollowed;
    /* The peak: the full estimate's variance, each half's bytes, variance and sampled entries,
     * and per half h its maximum, the other half's bytes, variance and entries then, and when. */
    double v;
    double hs[2], hv[2];
    int64_t hk[2];
    double max[2], other[2], other_v[2];
    int64_t other_k[2];
    uint64_t at[2];
    int have[2], at_valid[2];
    double upper; /* max over time of the estimate + 1.96 sd */
};

static double var_of(double sz, double w)
{
    return w > 1 ? sz * sz * (w * w - w) : 0;
}

/* Doubles the bins' width: the sites' bins follow when next touched (gr_sync), so a doubling
 * costs O(1), not O(sites). */
static void gr_merge(struct growth *g)
{
    g->shift++;
    g->width <<= 1;
    g->edge = g->t0 + (g->width > (UINT64_MAX - g->t0) / GR_BINS ? UINT64_MAX - g->t0
                                                                   : g->width * GR_BINS);
}

/* Widens the bins (gr_merge) until time ts falls in them, or their width is at its cap. */
static void gr_reach(struct growth *g, uint64_t ts)
{
    while (ts >= g->edge && ((ts - g->t0) >> g->shift) >= GR_BINS && g->shift < 62)
        gr_merge(g);
}

/* A site's bins at the tracker's width: bin j takes bins [j << k, (j + 1) << k), in place (bin j
 * has moved down before anything is added to it). */
static void gr_sync(const struct growth *g, struct gr_site *t)
{
    unsigned k = g->shift - t->shift;
    if (k == 0)
        return;
    for (size_t i = 1; i < GR_BINS; i++) {
        size_t j = k >= 8 ? 0 : i >> k;
        t->d[j] += t->d[i];
        t->dv[j] += t->dv[i];
        t->bv[j] += t->bv[i];
        t->xs[j] += t->xs[i];
        t->d[i] = t->dv[i] = t->bv[i] = t->xs[i] = 0;
    }
    t->shift = g->shift;
}

static size_t gr_bin(const struct growth *g, uint64_t ts)
{
    if (ts <= g->t0)
        return 0;
    uint64_t b = (ts - g->t0) >> g->shift;
    return b < GR_BINS ? (size_t)b : GR_BINS - 1;
}

static void gr_change(void *ctx, const struct session *s, const struct slot *sl, double w_old,
                      double w_new, const double *c_old, const double *c_new)
{
    struct growth *g = ctx;
    /* What is read, in locals: the stores below (doubles all) cannot change them. */
    const double sz = (double)sl->size, inuse_b = s->inuse_b;
    const double co[2] = {c_old[0], c_old[1]}, cn[2] = {c_new[0], c_new[1]};
    const uint64_t last_ts = s->last_ts;
    const int ts_known = s->ts_known;
    g->v += var_of(sz, w_new) - var_of(sz, w_old);
    for (int h = 0; h < 2; h++) {
        if (cn[h] == co[h])
            continue;
        g->hs[h] += sz * (cn[h] - co[h]);
        g->hv[h] += var_of(sz, cn[h]) - var_of(sz, co[h]);
        g->hk[h] += (int64_t)(cn[h] > 0) - (int64_t)(co[h] > 0);
    }
    if (s->nlive == 0)
        g->v = g->hs[0] = g->hs[1] = g->hv[0] = g->hv[1] = g->hk[0] = g->hk[1] = 0;
    for (int h = 0; h < 2; h++) {
        if (cn[h] > co[h] && (!g->have[h] || g->hs[h] > g->max[h])) {
            g->have[h] = 1;
            g->max[h] = g->hs[h];
            g->other[h] = g->hs[!h];
            g->other_v[h] = g->hv[!h];
            g->other_k[h] = g->hk[!h];
            g->at[h] = last_ts;
            g->at_valid[h] = ts_known;
        }
    }
    /* The upper end: a new maximum of the estimate + 1.96 sd (a square root only when one may
     * be: below the maximum by more than 1.96 sd is none). */
    double gap = g->upper - inuse_b, v = g->v > 0 ? g->v : 0;
    if (w_new > w_old && (gap <= 0 || gap * gap < Z95 * Z95 * v)) {
        double up = inuse_b + Z95 * sqrt(v);
        if (up > g->upper)
            g->upper = up;
    }

    /* Growth: the site's bins. */
    if (!ts_known)
        return;
    uint64_t ts = last_ts;
    if (!g->have_t0) {
        g->have_t0 = 1;
        g->t0 = s->first_ts < ts ? s->first_ts : ts;
        g->width = 1;
        g->edge = g->t0 + GR_BINS;
    }
    if (ts >= g->edge) /* the common case, a change within the bins, stays a compare */
        gr_reach(g, ts);
    uint32_t si = sl->site;
    if (si >= g->capsite) {
        size_t old = g->capsite;
        GROW(g->site, g->capsite, (size_t)si + 1);
        memset(g->site + old, 0, (g->capsite - old) * sizeof(*g->site));
    }
    struct gr_site *t = g->site[si];
    if (!t) {
        if (g->followed >= GR_MAX_SITES) {
            g->unfollowed++;
            return;
        }
        t = g->site[si] = xcalloc(1, sizeof(*t));
        t->shift = g->shift;
        g->followed++;
    }
    if (t->shift != g->shift)
        gr_sync(g, t);
    size_t b = gr_bin(g, ts);
    t->d[b] += sz * (w_new - w_old);
    if (w_new == 0 && w_old > 0) {
        double v = var_of(sz, w_old);
        t->dv[b] += v;
        size_t bb = sl->born ? gr_bin(g, sl->birth < ts ? sl->birth : ts) : 0;
        t->bv[bb] += v;
        if (bb == b)
            t->xs[b] += v;
    }
}

static void gr_free(void *ctx)
{
    struct growth *g = ctx;
    for (size_t i = 0; i < g->capsite; i++)
        free(g->site[i]);
    free(g->site);
    free(g);
}

void growth_attach(struct session *s)
{
    struct growth *g = xcalloc(1, sizeof(*g));
    s->hook.change = gr_change;
    s->hook.free = gr_free;
    s->hook.ctx = g;
}

static struct growth *growth_of(const struct session *s)
{
    return s->hook.change == gr_change ? s->hook.ctx : NULL;
}

int growth_inuse_var(const struct session *s, double *v, double *half_b_v)
{
    const struct growth *g = growth_of(s);
    if (!g)
        return 0;
    *v = g->v > 0 ? g->v : 0;
    *half_b_v = g->hv[1] > 0 ? g->hv[1] : 0;
    return 1;
}

/* The variance v >= v0 for which est_hi({est, v}) reaches hi (est_hi grows with v). */
static double var_for_hi(double est, double v0, double hi)
{
    if (est_hi((struct est){est, v0}) >= hi)
        return v0;
    double lo = v0 > 0 ? v0 : 1e-9 * (hi * hi + 1), up = lo;
    for (int i = 0; i < 200 && est_hi((struct est){est, up}) < hi; i++)
        up *= 4;
    for (int i = 0; i < 100; i++) {
        double mid = sqrt(lo * up);
        if (est_hi((struct est){est, mid}) < hi)
            lo = mid;
        else
            up = mid;
    }
    return up;
}

int growth_peak_of(const struct session *s, struct growth_peak *out)
{
    memset(out, 0, sizeof(*out));
    const struct growth *g = growth_of(s);
    if (!g || (!g->have[0] && !g->have[1]))
        return 0;
    double est, var;
    int64_t k;
    int h = g->have[0] ? 0 : 1;
    if (g->have[0] && g->have[1]) {
        est = (g->other[0] + g->other[1]) / 2;
        var = (g->other_v[0] + g->other_v[1]) / 4;
        k = g->other_k[0] + g->other_k[1];
    } else {
        est = g->other[h];
        var = g->other_v[h];
        k = g->other_k[h];
    }
    if (est < 0)
        est = 0;
    /* Placed: enough sampled blocks at the moments chosen, or every block there sampled surely
     * (weights 1: var 0); none at all is no estimate of 0 B. */
    out->known = k >= GR_PEAK_SAMPLES || (var == 0 && k > 0);
    double upper = g->upper > est ? g->upper : est;
    /* Not placed: at the true peak's moment the live samples may be none (estimate + 1.96 sd
     * then 0), where what no live sample hides is at most unseen_bound (97.5 %). */
    double unseen = unseen_bound((double)s->interval_max);
    if (!out->known && upper < unseen)
        upper = unseen;
    out->inuse_bytes = (struct est){est, var_for_hi(est, var, upper)};
    out->at_s = session_time_s(s, g->at[h], g->at_valid[h]);
    snprintf(out->method, sizeof(out->method), "split halves: moment from one, bytes from other");
    if (out->known)
        snprintf(out->note, sizeof(out->note),
                 "%lld sampled blocks live at the moments chosen; upper end: max over time of "
                 "estimate + 1.96 sd",
                 (long long)k);
    else
        snprintf(out->note, sizeof(out->note),
                 "%s%lld sampled blocks live at the moments chosen: the samples cannot place "
                 "the peak; it is at most %.0f bytes (95 %%)",
                 k ? "only " : "", (long long)k, upper);
    return 1;
}

/* A change e is growth at z sd: e.est >= z sd, or, exact (variance 0), a byte or more (not the
 * sums' rounding). */
static int grows(struct est e, double z)
{
    return e.est > 0.5 && (e.var <= 0 || e.est >= z * sqrt(e.var));
}

static int by_slope(const void *a, const void *b)
{
    double x = ((const struct growth_leak *)a)->slope_bytes_per_s.est;
    double y = ((const struct growth_leak *)b)->slope_bytes_per_s.est;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int by_bytes(const void *a, const void *b)
{
    double x = ((const struct growth_step *)a)->bytes.est;
    double y = ((const struct growth_step *)b)->bytes.est;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Site t's change over bins [a, z) (z past last: to the end) and its variance, alive the variance
 * of its live entries born in [a, z): the entries live at a and freed in [a, z) and those born in
 * [a, z) and live at z; those born and freed within add nothing. To the end, those are all the
 * freed entries born in [a, z) (bv); else xs, those born and freed in one bin, a part of them. */
static struct est gr_range(const struct gr_site *t, size_t a, size_t z, size_t last, double alive)
{
    double d = 0, f = 0, b = 0, x = 0;
    for (size_t j = a; j < z && j <= last; j++) {
        d += t->d[j];
        f += t->dv[j];
        b += t->bv[j];
        x += t->xs[j];
    }
    double v = f + b + alive - 2 * (z > last ? b : x);
    return (struct est){d, v > 0 ? v : 0};
}

/* Site t's change over the window (bins k to the end) outside the bins [b, e), and a bound on its
 * variance: the sum of the two sides' (their covariance is not positive: a block that changes
 * state on both sides was born on the first and freed on the second), ab the variances of the
 * site's live entries by the bin they were born in. */
static struct est gr_outside(const struct gr_site *t, size_t k, size_t b, size_t e, size_t last,
                             const double *ab)
{
    double a1 = 0, a2 = 0;
    for (size_t j = k; j <= last; j++) {
        a1 += j < b ? ab[j] : 0;
        a2 += j >= e ? ab[j] : 0;
    }
    struct est x = gr_range(t, k, b, last, a1), y = gr_range(t, e, last + 1, last, a2);
    return (struct est){x.est + y.est, x.var + y.var};
}

/* The seconds from the session's first record to time ts (0 before it). */
static double gr_secs(const struct session *s, uint64_t ts)
{
    return ts > s->first_ts ? (double)(ts - s->first_ts) / (double)s->tick_hz : 0;
}

size_t growth_leaks_of(const struct session *s, const uint32_t *site_sample,
                       struct growth_leak **out, struct growth_step **steps, size_t *nsteps,
                       struct growth_window *win)
{
    *out = NULL;
    *steps = NULL;
    *nsteps = 0;
    if (win)
        memset(win, 0, sizeof(*win));
    struct growth *gm = growth_of(s);
    if (!gm || !gm->have_t0 || !s->ts_known || !s->tick_hz || s->last_ts <= gm->t0)
        return 0;
    /* The bins as they stand at the session's last record: a record that changes no entry (TIME,
     * END, a late DROPS) may lie past the last change's bins; they widen to hold it (the sites
     * follow in gr_sync), or the window's last bin would not be the end's. */
    gr_reach(gm, s->last_ts);
    const struct growth *g = gm;
    uint64_t end = s->last_ts, span = end - g->t0;
    size_t last = gr_bin(g, end);
    uint64_t k = (span / 2 + g->width - 1) / g->width;
    if (k > last)
        k = last;
    uint64_t bk = g->t0 + k * g->width;
    if (bk >= end)
        return 0;
    double secs = (double)(end - bk) / (double)s->tick_hz;
    if (win) {
        win->known = 1;
        win->from_ts = bk;
        win->secs = secs;
    }
    /* A batch shorter than a third of the window (nb bins, the last one partly) lies in `run`
     * adjacent bins. */
    size_t nb = last + 1 - (size_t)k, run = (nb + 2) / 3 + 1;
    /* The variances of the live entries born in the window, per site. */
    double *alive = xcalloc(g->capsite + 1, sizeof(double));
    for (size_t i = 0; i < s->nlive; i++) {
        const struct slot *sl = &s->slots[s->live[i]];
        if (sl->site < g->capsite && g->site[sl->site] && sl->born &&
            gr_bin(g, sl->birth < end ? sl->birth : end) >= k)
            alive[sl->site] += var_of((double)sl->size, sl->w);
    }
    /* Per site its change over the window and the change's variance; per group (the sites whose
     * innermost frame is the same: one allocating call, reached by several stacks) their sums. */
    size_t ns = g->capsite < s->nsites ? g->capsite : s->nsites;
    struct est *se = xcalloc(ns + 1, sizeof(*se)), *ge = xcalloc(ns + 1, sizeof(*ge));
    uint32_t *grp = xcalloc(ns + 1, sizeof(uint32_t));
    struct umap gidx = {0};
    uint32_t ngrp = 0;
    for (size_t i = 0; i < ns; i++) {
        struct gr_site *t = g->site[i];
        if (!t)
            continue;
        gr_sync(g, t);
        se[i] = gr_range(t, k, last + 1, last, alive[i]);
        uint32_t depth = 0;
        const uint64_t *fr = session_site_stack(s, &s->sites[i], &depth);
        uint64_t key = fr && depth ? fr[0] : UINT64_MAX - i;
        uint32_t gi = umap_get(&gidx, key);
        if (gi >= ngrp) {
            gi = ngrp++;
            umap_put(&gidx, key, gi);
        }
        grp[i] = gi;
        ge[gi].est += se[i].est;
        ge[gi].var += se[i].var;
        if (win) { /* the sites' entries are independent samples: their variances add */
            win->total.est += se[i].est;
            win->total.var += se[i].var;
        }
    }
    umap_free(&gidx);
    /* The sites that grew (site and group) and their live entries' variances by birth bin. */
    uint32_t *cand = xmalloc((ns + 1) * sizeof(uint32_t)), ncand = 0;
    for (size_t i = 0; i < ns; i++)
        cand[i] = g->site[i] && site_sample && site_sample[i] != UINT32_MAX &&
                          grows(se[i], GR_Z_LEAK) && grows(ge[grp[i]], GR_Z_LEAK)
                      ? ncand++
                      : UINT32_MAX;
    double *ab = xcalloc((size_t)ncand * GR_BINS + 1, sizeof(double));
    for (size_t i = 0; i < s->nlive && ncand; i++) {
        const struct slot *sl = &s->slots[s->live[i]];
        if (sl->site < ns && cand[sl->site] != UINT32_MAX && sl->born)
            ab[cand[sl->site] * GR_BINS + gr_bin(g, sl->birth < end ? sl->birth : end)] +=
                var_of((double)sl->size, sl->w);
    }
    size_t n = 0, cap = 0, capst = 0;
    for (size_t i = 0; i < ns; i++) {
        if (cand[i] == UINT32_MAX)
            continue;
        const struct gr_site *t = g->site[i];
        struct est d = se[i];
        /* Sustained: outside every run of `run` bins of the window, where one batch would lie,
         * it still grows; else a step, in the run it grew most in. */
        int sustained = nb > run;
        size_t at = (size_t)k;
        double most = -INFINITY;
        for (size_t b = (size_t)k; b + run <= last + 1; b++) {
            double in = 0;
            for (size_t j = b; j < b + run; j++)
                in += t->d[j];
            if (in > most) {
                most = in;
                at = b;
            }
            sustained &= grows(gr_outside(t, k, b, b + run, last, ab + cand[i] * GR_BINS),
                               GR_Z_PART);
        }
        if (!sustained) { /* the run's bins that grew, from the first to the last */
            size_t lo = at, hi = at + run - 1 < last ? at + run - 1 : last;
            while (lo < hi && t->d[lo] <= 0)
                lo++;
            while (hi > lo && t->d[hi] <= 0)
                hi--;
            uint64_t from = g->t0 + lo * g->width, to = g->t0 + (hi + 1) * g->width;
            GROW(*steps, capst, *nsteps + 1);
            (*steps)[(*nsteps)++] = (struct growth_step){site_sample[i], d, gr_secs(s, from),
                                                         gr_secs(s, to < end ? to : end)};
            continue;
        }
    /* Since: the earliest boundary (at most the window's) from which the estimate never
         * fell below its value there: suf[j] = I(end) - I(b_j), suf[last + 1] = 0. */
        double suf[GR_BINS + 1];
        suf[last + 1] = 0;
        for (size_t j = last + 1; j-- > 0;)
            suf[j] = suf[j + 1] + t->d[j];
        size_t since = (size_t)k;
        double later_max = 0;
        for (size_t j = last + 1; j-- > 0;) {
            if (j <= k && suf[j] >= later_max)
                since = j;
            if (suf[j] > later_max)
                later_max = suf[j];
        }
        GROW(*out, cap, n + 1);
        (*out)[n++] = (struct growth_leak){site_sample[i],
                                           {d.est / secs, d.var / (secs * secs)},
                                           gr_secs(s, g->t0 + since * g->width)};
    }
    free(alive);
    free(se);
    free(grp);
    free(ge);
    free(cand);
    free(ab);
    if (n > 1)
        qsort(*out, n, sizeof(**out), by_slope);
    if (*nsteps > 1)
        qsort(*steps, *nsteps, sizeof(**steps), by_bytes);
    return n;
}

uint64_t growth_unfollowed(const struct session *s)
{
    const struct growth *g = growth_of(s);
    return g ? g->unfollowed : 0;
}

/* Verdicts of sites that are one symbolized stack (prof_loc_canon: one call line reached through
 * two return addresses) merged into the first, as --top and --json list that stack once: their
 * changes and variances summed, the earliest since and the widest bins. Returns how many remain.
 * A profile built only to be written (its samples encoded) keeps them apart: readers of the file
 * (check, merge) sum them by site. */
static size_t one_per_stack(const struct prof *p, struct growth_leak *lk, size_t n,
                            struct growth_step *st, size_t nst, size_t *nst_out)
{
    *nst_out = nst;
    if ((n < 2 && nst < 2) || p->encode_samples) /* encoded samples: no frames to compare */
        return n;
    uint64_t *canon = prof_loc_canon(p);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < m && !prof_same_site(p, canon, lk[j].sample, lk[i].sample))
            j++;
        if (j == m) {
            lk[m++] = lk[i];
            continue;
        }
        growth_leak_fold(&lk[j], &lk[i]);
    }
    size_t ms = 0;
    for (size_t i = 0; i < nst; i++) {
        size_t j = 0;
        while (j < ms && !prof_same_site(p, canon, st[j].sample, st[i].sample))
            j++;
        if (j == ms) {
            st[ms++] = st[i];
            continue;
        }
        growth_step_fold(&st[j], &st[i]);
    }
    free(canon);
    *nst_out = ms;
    return m;
}

void growth_store(const struct session *s, struct prof *p, const uint32_t *site_sample)
{
    struct growth_peak pk;
    int have = growth_peak_of(s, &pk);
    struct growth_leak *lk;
    struct growth_step *st;
    struct growth_window win;
    size_t nst, n = growth_leaks_of(s, site_sample, &lk, &st, &nst, &win);
    n = one_per_stack(p, lk, n, st, nst, &nst);
    growth_write(p, have ? &pk : NULL, lk, n);
    growth_write_steps(p, st, nst);
    struct exhaustion ex;
    exhaust_of(s, p, lk, n, &win, site_sample, &ex);
    exhaust_write(p, &ex);
    free(lk);
    free(st);
}
