/*
 * A site's values rounded for its samples (pprof/prof_round.h): each value column of the site's
 * parts rounded so that they add up to the site's rounded totals, in use never above allocated,
 * the lossy line's scale.
 */
#include "pprof/prof_round.h"

#include <math.h>
#include <string.h>

/* v rounded half away from 0 (llround's), 0 for what is not above 0, INT64_MAX beyond 9e18. Its
 * whole part and fraction are exact (v - t is exact below 2^53, 0 above): no call to llround. */
int64_t round_val(double v)
{
    if (!(v > 0))
        return 0;
    if (v > 9.0e18)
        return INT64_MAX;
    int64_t t = (int64_t)v;
    return t + (v - (double)t >= 0.5);
}

/* Rounds each value column of the parts so that the rounded parts add up to the rounded sum of the
 * column: each part gets its value's floor (an allocated value at least its part's rounded in-use
 * one, unless it is below it unrounded), and the units left go to the largest remainders.
 * Negative values count as 0; values beyond 2^53 are rounded one by one. */
void round_parts(struct part *parts, size_t np)
{
    for (size_t k = 0; k < np; k++) /* variances and counts: each alone */
        for (int c = V_COUNT; c < V_ALL; c++)
            parts[k].v[c] = round_val(parts[k].x[c]);
    for (int c = 0; c < V_COUNT; c++) {
        double sum = 0;
        int big = 0;
        for (size_t k = 0; k < np; k++) {
            double x = parts[k].x[c] > 0 ? parts[k].x[c] : 0;
            sum += x;
            big |= x > 9.0e15;
        }
        if (big || sum > 9.0e15) {
            for (size_t k = 0; k < np; k++)
                parts[k].v[c] = round_val(parts[k].x[c]);
            continue;
        }
        int64_t left = round_val(sum);
        for (size_t k = 0; k < np; k++) {
            double x = parts[k].x[c] > 0 ? parts[k].x[c] : 0;
            parts[k].v[c] = (int64_t)floor(x);
            /* A part's allocated values are not rounded below its in-use ones (the in-use
             * columns come first) when they are not below them unrounded. */
            if ((c == V_ALLOC_N || c == V_ALLOC_B) && x >= parts[k].x[c - 2] * (1 - 1e-12) &&
                parts[k].v[c] < parts[k].v[c - 2])
                parts[k].v[c] = parts[k].v[c - 2];
            left -= parts[k].v[c];
        }
        while (left > 0) { /* at most np units */
            size_t best = np;
            double frac = -1;
            for (size_t k = 0; k < np; k++) {
                double x = parts[k].x[c] > 0 ? parts[k].x[c] : 0;
                double f = x - (double)parts[k].v[c];
                if (f > frac && f > 0) {
                    frac = f;
                    best = k;
                }
            }
            if (best == np)
                break;
            parts[best].v[c]++;
            left--;
        }
    }
}

/* In use never above allocated (docs/DRAIN.md), in every sample, but for realloc chains: a live
 * part whose in-use is above its allocated share (its entries' weights raised since they were
 * counted as allocated: a replayed thinning's survivors, an interval corrected by a LIVE record)
 * takes the difference from the site's other parts' allocated values (what they hold beyond their
 * own in-use); only what the whole site lacks is added (the site's allocated values raised to its
 * in-use: returns 1, counted as alloc_raised). A realloc chain's in-use is at its first site and
 * the allocation of its latest block at the realloc's site (allocated counts every block the
 * allocator returned, where it was asked for): that part of the in-use (part.chain) is not
 * covered, so a first site may show more in use than it allocated. */
int cover_inuse(struct part *parts, size_t np)
{
    int raised = 0;
    for (int c = V_ALLOC_N; c <= V_ALLOC_B; c++) {
        int u = c - 2; /* the in-use column of the same unit */
        for (size_t k = 0; k < np; k++) {
            double backed = parts[k].x[u] - parts[k].chain[c - V_ALLOC_N];
            double need = backed - parts[k].x[c];
            for (size_t j = 0; j < np && need > 0; j++) {
                double bj = parts[j].x[u] - parts[j].chain[c - V_ALLOC_N];
                double spare = parts[j].x[c] - (bj > 0 ? bj : 0);
                if (j == k || !(spare > 0))
                    continue;
                double take = spare < need ? spare : need;
                parts[j].x[c] -= take;
                parts[k].x[c] += take;
                need -= take;
            }
            if (need > 1e-9 * (1 + parts[k].x[u])) {
                parts[k].x[c] += need;
                raised = 1;
            } else if (need > 0) {
                parts[k].x[c] = backed;
            }
        }
    }
    return raised;
}

/* A lossy line: the allocations counted of blocks no longer live (and their frees) are those
 * whose records arrived, a share 1 - q of them (up = 1 / (1 - q)); the live blocks' are whole (a
 * LIVE record counts one whose ALLOC was lost): the values x of a part that is no age bin scaled.
 * Said in the comments (add_comments). */
void lossy_scale(double *x, double up)
{
    for (int c = V_ALLOC_N; c <= V_FREE_B; c++)
        x[c] *= up;
    x[V_ALLOC_NV] *= up * up;
    x[V_ALLOC_BV] *= up * up;
}

/* cover_inuse and round_parts of a site whose only part is the rest x (no live entry, no lifetime
 * bin: every site of untracked allocations), in fewer steps: the rest's in-use values are 0, so
 * cover_inuse only raises an allocated value below 0 to 0, and each column of one part rounds to
 * round_val of its value. The values go to v (*any: one is not 0); returns cover_inuse's value.
 * x's in-use columns must be 0 (V_INUSE_N, V_INUSE_B and their variances): they are not read. */
int round_rest(const double *x, int64_t *v, int *any)
{
    int raised = x[V_ALLOC_N] < -1e-9 || x[V_ALLOC_B] < -1e-9;
    /* The in-use columns are 0 (round_val's 0); the others one by one, without a loop's steps
     * (10^6 sites of untracked allocations: 14 * 10^6 values). */
    v[V_INUSE_N] = v[V_INUSE_B] = v[V_INUSE_NV] = v[V_INUSE_BV] = 0;
#define RR(c) (v[c] = round_val(x[c]))
    int64_t bits = RR(V_ALLOC_N) | RR(V_ALLOC_B) | RR(V_FREE_N) | RR(V_FREE_B) | RR(V_ALLOC_NV) |
                   RR(V_ALLOC_BV) | RR(V_SAMPLES) | RR(V_REF_N) | RR(V_REF_B) | RR(V_REF_SAMPLES);
#undef RR
    *any = bits != 0;
    return raised;
}
