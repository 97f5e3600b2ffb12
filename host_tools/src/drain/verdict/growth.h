/*
 * The growth verdicts (the honest peak, leaks by growth, steps): made from the session's growth
 * tracker (model/growth_track.h) and stored in its profile by verdict/growth.c; what a profile
 * drain wrote holds of them is read back through pprof/vcomment.h's codec (included here). Every
 * view reads them through this seam: --leaks, the heap's verdict, the JSON writer, the timeline,
 * `drain check`'s peak and growth budgets, merge and the fleet.
 */
#ifndef DRAIN_GROWTH_H
#define DRAIN_GROWTH_H

#include <stddef.h>
#include <stdint.h>

#include "model/est.h"
#include "pprof/vcomment.h"

struct session;

#define GR_Z_LEAK 3.2905267314919 /* growth over the recent half at one-sided 0.0005 */
#define GR_Z_PART 1.6448536269515 /* sustained: growth outside every run of bins that holds a
                                  * third of the recent half, one-sided 0.05 */

/* The peak a profile stores (growth_peak_from_prof) with its 95 % interval as every view gives it: its upper end widened by what
 * the refused samples may hold, *marked when it is a lower bound (docs/VERDICTS.md "Marks"). */
int growth_peak_interval(const struct prof *p, struct growth_peak *pk, double *lo, double *hi,
                         int *marked);
/* The session's peak (0: none, or no tracker), and its leaks (returned, in *out) and steps (*nsteps
 * in *steps): malloc'd, the caller frees; site_sample maps a site index to its sample in the
 * profile (UINT32_MAX: none). */
int growth_peak_of(const struct session *s, struct growth_peak *out);
/* The window the leaks are judged over (the session's recent half): when it starts (device tick),
 * its length, and the change of the session's sampled in-use over it, every followed site's
 * summed (an unbiased estimate of the heap's true change, its variance the sites' summed). */
struct growth_window {
    int known;
    uint64_t from_ts;
    double secs;
    struct est total;
};
size_t growth_leaks_of(const struct session *s, const uint32_t *site_sample,
                       struct growth_leak **out, struct growth_step **steps, size_t *nsteps,
                       struct growth_window *win);
/* Verdicts of sites that are one symbolized stack (prof_loc_canon: one call line reached through
 * two return addresses) merged into the first, as --top and --json list that stack once; returns
 * how many leaks remain (*nst_out: steps). A profile built only to be written (its samples
 * encoded) keeps them apart: readers of the file (check, merge) sum them by site. */
size_t growth_one_per_stack(const struct prof *p, struct growth_leak *lk, size_t n,
                            struct growth_step *st, size_t nst, size_t *nst_out);

#endif
