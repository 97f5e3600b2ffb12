/*
 * The growth verdicts (docs/VERDICTS.md "Leaks by growth", "The peak"), made from the session's
 * growth tracker (model/growth_track.c, whose comment tells the method) and stored in the profile
 * drain writes as comments (verdict/stamp.c; their codec is pprof/vcomment.c, their text
 * views/leaks.c), read back by growth.h's seam.
 */
#include "verdict/growth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/growth_track.h"
#include "pprof/profile.h"
#include "verdict/marks.h"
#include "verdict/unseen.h"
#include "util.h"

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

/* The window the leaks are judged over (the session's recent half, bins k to last, ending at
 * end, secs long) and the verdicts found in it so far. */
struct leak_scan {
    const struct session *s;
    const struct growth *g;
    size_t k, last, nb, run; /* a batch shorter than a third of the nb bins lies in run bins */
    uint64_t end;
    double secs;
    struct growth_leak *leaks;
    size_t n, cap;
    struct growth_step *steps;
    size_t nsteps, capst;
};

/* Per site its change over the window and the change's variance (se); per group (the sites whose
 * innermost frame is the same: one allocating call, reached by several stacks) their sums (ge,
 * grp: a site's group); into win, the window's total change. alive: the variances of each site's
 * live entries born in the window. */
static void site_changes(const struct leak_scan *w, size_t ns, const double *alive,
                         struct est *se, struct est *ge, uint32_t *grp, struct growth_window *win)
{
    const struct session *s = w->s;
    const struct growth *g = w->g;
    size_t k = w->k, last = w->last;
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
}

/* Site t (its sample: sample), whose change d over the window grew, judged: a leak when it is
 * sustained (outside every run of w->run bins, where one batch would lie, it still grows), else a
 * step in the run it grew most in. ab: the variances of its live entries by birth bin. */
static void leak_or_step(struct leak_scan *w, const struct gr_site *t, struct est d,
                         uint32_t sample, const double *ab)
{
    const struct session *s = w->s;
    const struct growth *g = w->g;
    size_t k = w->k, last = w->last, nb = w->nb, run = w->run;
    uint64_t end = w->end;
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
        sustained &= grows(gr_outside(t, k, b, b + run, last, ab), GR_Z_PART);
    }
    if (!sustained) { /* the run's bins that grew, from the first to the last */
        size_t lo = at, hi = at + run - 1 < last ? at + run - 1 : last;
        while (lo < hi && t->d[lo] <= 0)
            lo++;
        while (hi > lo && t->d[hi] <= 0)
            hi--;
        uint64_t from = g->t0 + lo * g->width, to = g->t0 + (hi + 1) * g->width;
        GROW(w->steps, w->capst, w->nsteps + 1);
        w->steps[w->nsteps++] = (struct growth_step){sample, d, gr_secs(s, from),
                                                     gr_secs(s, to < end ? to : end)};
        return;
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
    GROW(w->leaks, w->cap, w->n + 1);
    w->leaks[w->n++] = (struct growth_leak){sample,
                                            {d.est / w->secs, d.var / (w->secs * w->secs)},
                                            gr_secs(s, g->t0 + since * g->width)};
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
    size_t nb = last + 1 - (size_t)k;
    struct leak_scan w = {s, g, (size_t)k, last, nb, (nb + 2) / 3 + 1, end, secs,
                          NULL, 0, 0, NULL, 0, 0};
    /* The variances of the live entries born in the window, per site. */
    double *alive = xcalloc(g->capsite + 1, sizeof(double));
    for (size_t i = 0; i < s->nlive; i++) {
        const struct slot *sl = &s->slots[s->live[i]];
        if (sl->site < g->capsite && g->site[sl->site] && sl->born &&
            gr_bin(g, sl->birth < end ? sl->birth : end) >= k)
            alive[sl->site] += gr_var((double)sl->size, sl->w);
    }
    size_t ns = g->capsite < s->nsites ? g->capsite : s->nsites;
    struct est *se = xcalloc(ns + 1, sizeof(*se)), *ge = xcalloc(ns + 1, sizeof(*ge));
    uint32_t *grp = xcalloc(ns + 1, sizeof(uint32_t));
    site_changes(&w, ns, alive, se, ge, grp, win);
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
                gr_var((double)sl->size, sl->w);
    }
    for (size_t i = 0; i < ns; i++)
        if (cand[i] != UINT32_MAX)
            leak_or_step(&w, g->site[i], se[i], site_sample[i], ab + cand[i] * GR_BINS);
    free(alive);
    free(se);
    free(grp);
    free(ge);
    free(cand);
    free(ab);
    *out = w.leaks;
    *steps = w.steps;
    *nsteps = w.nsteps;
    size_t n = w.n;
    if (n > 1)
        qsort(*out, n, sizeof(**out), by_slope);
    if (*nsteps > 1)
        qsort(*steps, *nsteps, sizeof(**steps), by_bytes);
    return n;
}

/* Verdicts of sites that are one symbolized stack (prof_loc_canon: one call line reached through
 * two return addresses) merged into the first, as --top and --json list that stack once: their
 * changes and variances summed, the earliest since and the widest bins. Returns how many remain.
 * A profile built only to be written (its samples encoded) keeps them apart: readers of the file
 * (check, merge) sum them by site. */
size_t growth_one_per_stack(const struct prof *p, struct growth_leak *lk, size_t n,
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

int growth_peak_interval(const struct prof *p, struct growth_peak *pk, double *lo, double *hi,
                         int *marked)
{
    if (!growth_peak_from_prof(p, pk))
        return 0;
    /* Marked (docs/VERDICTS.md "Marks"): a lower bound, its upper end widened by every refused
     * block (at no time more in use than the tracked estimate and all of them). */
    struct prof_marks m;
    marks_from_prof(p, &m);
    *marked = marks_peak(&m);
    *lo = est_lo(pk->inuse_bytes);
    *hi = est_hi(pk->inuse_bytes) + marks_refused_bytes(p, NULL);
    pk->method[sizeof(pk->method) - 1] = 0;
    pk->note[sizeof(pk->note) - 1] = 0;
    return 1;
}
