/*
 * The seam to the growth verdicts (the honest peak, leaks by growth, steps): what a profile drain
 * wrote holds of them (verdict/growth.c makes and stores them). Every view reads them here:
 * --leaks, the heap's verdict, the JSON writer, the timeline, `drain check`'s peak and growth
 * budgets, merge and the fleet.
 */
#ifndef DRAIN_GROWTH_H
#define DRAIN_GROWTH_H

#include <stddef.h>
#include <stdint.h>

#include "verdict/est.h"

struct prof;
struct growth_peak {
    struct est inuse_bytes;
    double at_s;
    char method[64];
    char note[160];
    int known; /* placed: enough sampled blocks at the moments chosen (else its interval only) */
};
struct growth_leak {
    uint32_t sample; /* index of the site's sample in prof->sample */
    struct est slope_bytes_per_s;
    double since_s;
};
/* Growth over the session's recent half that is not sustained (docs/VERDICTS.md "Leaks by
 * growth"): one batch, then flat. Not a leak. */
struct growth_step {
    uint32_t sample;    /* as growth_leak's */
    struct est bytes;   /* the site's in-use change over the recent half */
    double from_s, to_s; /* the bins it grew in (seconds from the first record) */
};
/* Folds verdict b of the same site into a (drain merge's inputs, one stack's sites): slopes or
 * bytes and their variances summed, the earliest since, the widest bins. */
void growth_leak_fold(struct growth_leak *a, const struct growth_leak *b);
void growth_step_fold(struct growth_step *a, const struct growth_step *b);
/* From a profile drain wrote (the peak, leaks and steps it stored in it); 0 when it holds none. */
int growth_peak_from_prof(const struct prof *p, struct growth_peak *out);
/* The same with the peak's 95 % interval as every view gives it: its upper end widened by what
 * the refused samples may hold, *marked when it is a lower bound (docs/VERDICTS.md "Marks"). */
int growth_peak_interval(const struct prof *p, struct growth_peak *pk, double *lo, double *hi,
                         int *marked);
size_t growth_leaks_from_prof(const struct prof *p, struct growth_leak *out, size_t max);
size_t growth_steps_from_prof(const struct prof *p, struct growth_step *out, size_t max);

#endif
