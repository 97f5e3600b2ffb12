/*
 * A site's values rounded for its samples (pprof/prof_round.c), for the pprof builder
 * (pprof/profile.c): a profile's values are integers; the sums of a site's samples are its
 * rounded estimates.
 */
#ifndef DRAIN_PROF_ROUND_H
#define DRAIN_PROF_ROUND_H

#include <stddef.h>
#include <stdint.h>

#include "pprof/built.h"

/* One sample of a site: its values (estimates), rounded; key "age", "lifetime" or NULL (the rest,
 * no time label). */
#define MAX_PARTS (2 * 16 + 2)
struct part {
    double x[V_ALL];
    int64_t v[V_ALL];
    const char *key;
    unsigned bucket;
    /* Of its in-use objects and bytes, realloc chains' (allocated at their reallocs' sites): in
     * use above allocated by that much is not repaired (docs/DRAIN.md "Realloc chains"). */
    double chain[2];
};

/* v rounded half away from 0 (llround's), 0 for what is not above 0, INT64_MAX beyond 9e18. Its
 * whole part and fraction are exact (v - t is exact below 2^53, 0 above): no call to llround. */
int64_t round_val(double v);
/* Rounds each value column of the parts so that the rounded parts add up to the rounded sum of the
 * column: each part gets its value's floor (an allocated value at least its part's rounded in-use
 * one, unless it is below it unrounded), and the units left go to the largest remainders.
 * Negative values count as 0; values beyond 2^53 are rounded one by one. */
void round_parts(struct part *parts, size_t np);
/* In use never above allocated (docs/DRAIN.md), in every sample, but for realloc chains: a live
 * part whose in-use is above its allocated share (its entries' weights raised since they were
 * counted as allocated: a replayed thinning's survivors, an interval corrected by a LIVE record)
 * takes the difference from the site's other parts' allocated values (what they hold beyond their
 * own in-use); only what the whole site lacks is added (the site's allocated values raised to its
 * in-use: returns 1, counted as alloc_raised). A realloc chain's in-use is at its first site and
 * the allocation of its latest block at the realloc's site (allocated counts every block the
 * allocator returned, where it was asked for): that part of the in-use (part.chain) is not
 * covered, so a first site may show more in use than it allocated. */
int cover_inuse(struct part *parts, size_t np);
/* A lossy line: the allocations counted of blocks no longer live (and their frees) are those
 * whose records arrived, a share 1 - q of them (up = 1 / (1 - q)); the live blocks' are whole (a
 * LIVE record counts one whose ALLOC was lost): the values x of a part that is no age bin scaled.
 * Said in the comments (add_comments). */
void lossy_scale(double *x, double up);
/* cover_inuse and round_parts of a site whose only part is the rest x (no live entry, no lifetime
 * bin: every site of untracked allocations), in fewer steps: the rest's in-use values are 0, so
 * cover_inuse only raises an allocated value below 0 to 0, and each column of one part rounds to
 * round_val of its value. The values go to v (*any: one is not 0); returns cover_inuse's value. */
int round_rest(const double *x, int64_t *v, int *any);

#endif
