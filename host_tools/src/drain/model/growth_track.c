/*
 * The growth tracker (docs/VERDICTS.md "Leaks by growth", "The peak"): fed at every change of a
 * live entry's weight (the session's hook), kept in bounded memory. The verdicts made from it are
 * verdict/growth.c's; their comments in the profile pprof/vcomment.c's; their text views/leaks.c's.
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
#include "model/growth_track.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/session.h"
#include "util.h"

#define Z95 1.959963984540054

double gr_var(double sz, double w)
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
void gr_reach(struct growth *g, uint64_t ts)
{
    while (ts >= g->edge && ((ts - g->t0) >> g->shift) >= GR_BINS && g->shift < 62)
        gr_merge(g);
}

/* A site's bins at the tracker's width: bin j takes bins [j << k, (j + 1) << k), in place (bin j
 * has moved down before anything is added to it). */
void gr_sync(const struct growth *g, struct gr_site *t)
{
    unsigned k = g->shift - t->shift;
    if (k == 0)
        return;
    _Static_assert(GR_BINS <= 256, "i >> 8 is bin 0 for every bin i");
    if (k > 8)
        k = 8;
    for (size_t i = 1; i < GR_BINS; i++) {
        size_t j = i >> k;
        t->d[j] += t->d[i];
        t->dv[j] += t->dv[i];
        t->bv[j] += t->bv[i];
        t->xs[j] += t->xs[i];
        t->d[i] = t->dv[i] = t->bv[i] = t->xs[i] = 0;
    }
    t->shift = g->shift;
}

size_t gr_bin(const struct growth *g, uint64_t ts)
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
    if (w_new == 0 && w_old > 1) { /* an entry of weight 1 leaves no variance (adds +0) */
        double v = gr_var(sz, w_old);
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

struct growth *growth_of(const struct session *s)
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

uint64_t growth_unfollowed(const struct session *s)
{
    const struct growth *g = growth_of(s);
    return g ? g->unfollowed : 0;
}
