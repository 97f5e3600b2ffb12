/*
 * The growth tracker (model/growth_track.c): what the session feeds at every change of a live
 * entry's weight, in bounded memory, for the growth verdicts (verdict/growth.h) and the heap's
 * model (model/heap.c: the variances of the running in-use estimates).
 */
#ifndef DRAIN_GROWTH_TRACK_H
#define DRAIN_GROWTH_TRACK_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/session.h"
#include "util.h"

#define GR_BINS 32             /* time bins per site (their width doubles as the session grows) */
#define GR_MAX_SITES 65536u    /* sites followed; later ones are counted (growth_unfollowed) */
#define GR_PEAK_SAMPLES 10     /* sampled blocks at the chosen moments that place the peak */

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

/* The session's tracker, or NULL (none attached: a dump). */
struct growth *growth_of(const struct session *s);
/* The variances of the session's running in-use estimate of bytes (session.inuse_b) and of half
 * B's (session.half_b): 0 without a tracker (a dump). */
int growth_inuse_var(const struct session *s, double *v, double *half_b_v);
/* Sites beyond GR_MAX_SITES, not followed for growth. */
uint64_t growth_unfollowed(const struct session *s);
/* The variance an entry of size sz and weight w adds to an estimate of bytes: sz^2 (w^2 - w). */
static inline double gr_var(double sz, double w)
{
    return w > 1 ? sz * sz * (w * w - w) : 0;
}
/* Widens g's bins until time ts falls in them (or their width is at its cap). */
void gr_reach(struct growth *g, uint64_t ts);
/* Site t's bins at g's width (a site's bins follow the tracker's when touched). */
void gr_sync(const struct growth *g, struct gr_site *t);
/* The bin time ts falls in (the last one past the end). */
static inline size_t gr_bin(const struct growth *g, uint64_t ts)
{
    if (ts <= g->t0)
        return 0;
    uint64_t b = (ts - g->t0) >> g->shift;
    return b < GR_BINS ? (size_t)b : GR_BINS - 1;
}

#define GR_Z95 1.959963984540054 /* the normal's 97.5 % point */

/* The tracker's feed: a change of a live entry's weight, w_old -> w_new (0 when it is not live),
 * with its half weights before and after (session_half_weights), s->last_ts the time. Inline in
 * the in-use estimate's update (model/live.c), its one caller, which set_live and unset_live hold
 * (no call between, the halves' weights in registers: a call through a hook in the session was some
 * 30 instructions a change, a direct call some 20; issue 41, round 3). The comment atop
 * growth_track.c has the method. */
static inline __attribute__((always_inline)) void
growth_change(struct growth *g, const struct session *s, const struct slot *sl, double w_old,
              double w_new, const double *c_old, const double *c_new)
{
    /* What is read, in locals: the stores below (doubles all) cannot change them. */
    const double sz = (double)sl->size, inuse_b = s->inuse_b;
    const double co[2] = {c_old[0], c_old[1]}, cn[2] = {c_new[0], c_new[1]};
    const uint64_t last_ts = s->last_ts;
    const int ts_known = s->ts_known;
    /* Weights at most 1 (halves at their weights) have no variance: their terms add +0, which
     * leaves sums from +0 (never -0) as they are. */
    const int var = w_old > 1 || w_new > 1;
    if (var)
        g->v += gr_var(sz, w_new) - gr_var(sz, w_old);
    for (int h = 0; h < 2; h++) {
        if (cn[h] == co[h])
            continue;
        g->hs[h] += sz * (cn[h] - co[h]);
        if (var)
            g->hv[h] += gr_var(sz, cn[h]) - gr_var(sz, co[h]);
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
    if (w_new > w_old && (gap <= 0 || gap * gap < GR_Z95 * GR_Z95 * v)) {
        double up = inuse_b + GR_Z95 * sqrt(v);
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
    if (w_new == 0 && w_old > 1) { /* an entry of weight 1 leaves no variance (adds +0) */
        double v = gr_var(sz, w_old);
        t->dv[b] += v;
        size_t bb = sl->born ? gr_bin(g, sl->birth < ts ? sl->birth : ts) : 0;
        t->bv[bb] += v;
        if (bb == b)
            t->xs[b] += v;
    }
}

#endif
