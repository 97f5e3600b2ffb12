/*
 * The seam to the growth verdicts (the honest peak, leaks by growth): what a profile drain wrote
 * holds of them. This build has no growth analysis yet (growth_none.c says so); the JSON writer,
 * `drain check`'s peak and growth budgets call only these.
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
/* From a profile drain wrote (the peak and leaks it stored in it); 0 when it holds none. */
int growth_peak_from_prof(const struct prof *p, struct growth_peak *out);
/* The same with the peak's 95 % interval as every view gives it: its upper end widened by what
 * the refused samples may hold, *marked when it is a lower bound (docs/VERDICTS.md "Marks"). */
int growth_peak_interval(const struct prof *p, struct growth_peak *pk, double *lo, double *hi,
                         int *marked);
size_t growth_leaks_from_prof(const struct prof *p, struct growth_leak *out, size_t max);

#endif
