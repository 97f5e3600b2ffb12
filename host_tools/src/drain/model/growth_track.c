/*
 * The growth tracker (docs/VERDICTS.md "Leaks by growth", "The peak"): fed at every change of a
 * live entry's weight (growth_change, growth_track.h), kept in bounded memory. The verdicts made from it are
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
 * has moved down before anything is added to it). One doubling (k = 1, the common case: a site
 * touched at least once a doubling) adds each pair at once, in the same order: bin j's first term
 * was added to its own +0 before, and x + 0 is x here (sums from +0 are never -0). */
void gr_sync(const struct growth *g, struct gr_site *t)
{
    unsigned k = g->shift - t->shift;
    if (k == 0)
        return;
    if (k == 1) {
        for (size_t j = 0; j < GR_BINS / 2; j++) {
            t->d[j] = t->d[2 * j] + t->d[2 * j + 1];
            t->dv[j] = t->dv[2 * j] + t->dv[2 * j + 1];
            t->bv[j] = t->bv[2 * j] + t->bv[2 * j + 1];
            t->xs[j] = t->xs[2 * j] + t->xs[2 * j + 1];
        }
        for (size_t j = GR_BINS / 2; j < GR_BINS; j++)
            t->d[j] = t->dv[j] = t->bv[j] = t->xs[j] = 0;
        t->shift = g->shift;
        return;
    }
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

void growth_free(struct growth *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->capsite; i++)
        free(g->site[i]);
    free(g->site);
    free(g);
}

void growth_attach(struct session *s)
{
    struct growth *g = xcalloc(1, sizeof(*g));
    s->growth = g;
}

struct growth *growth_of(const struct session *s)
{
    return s->growth;
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
