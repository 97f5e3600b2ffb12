/*
 * The verdicts' comments in a profile (pprof/vcomment.c, docs/VERDICTS.md "In the profile"):
 * "msamp-verdict KIND|key=value|...". The growth verdicts' types (the honest peak, leaks by
 * growth, steps), their writer and reader, and the parts every other verdict's codec uses
 * (verdict/marks.c, clock.c, ended.c, exhaust.c, unseen.c).
 */
#ifndef DRAIN_VCOMMENT_H
#define DRAIN_VCOMMENT_H

#include <stddef.h>
#include <stdint.h>

#include "model/est.h"

#define GROWTH_COMMENT "msamp-verdict " /* the comments' prefix (docs/VERDICTS.md) */

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
size_t growth_leaks_from_prof(const struct prof *p, struct growth_leak *out, size_t max);
size_t growth_steps_from_prof(const struct prof *p, struct growth_step *out, size_t max);

/* Appends the verdicts to p's comments (pk NULL: no peak). */
void growth_write(struct prof *p, const struct growth_peak *pk, const struct growth_leak *lk,
                  size_t n);
/* Appends the steps to p's comments. */
void growth_write_steps(struct prof *p, const struct growth_step *st, size_t n);
/* The verdict comments' parts: comment i of p as a C string in buf when it is a verdict of this
 * kind ("msamp-verdict KIND|..."), else NULL; the value of "|key=" in comment c into out (NULL
 * when absent; rest: up to the end, else up to the next '|'); a number field (0, or -1 when
 * absent or not a number). */
const char *verdict_comment(const struct prof *p, size_t i, const char *kind, char *buf, size_t n);
const char *verdict_field(const char *c, const char *key, char *out, size_t n, int rest);
int verdict_num(const char *c, const char *key, double *v);

#endif
