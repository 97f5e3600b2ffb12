/*
 * Time to exhaustion (docs/VERDICTS.md "Time to exhaustion"): when the heap runs out at the
 * present growth, from the allocator's free bytes (the session's last HEAP record) and the rate its
 * use grows at (the leaks by growth's slopes summed, with their variance; the session's sampled
 * in-use trend over the same window when there is no leak). T = free / rate, its 95 % interval the
 * rate's inverted: [free / hi, free / lo], unbounded above when the rate's low end is not above 0
 * ("not running out within free / hi"). Made once where the profile is built (verdict/stamp.c),
 * stored as the comment "msamp-verdict exhaustion|..." and read back by every view, `drain check`
 * and the fleet.
 */
#ifndef DRAIN_EXHAUST_H
#define DRAIN_EXHAUST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/est.h"

struct prof;
struct session;
struct growth_leak;
struct growth_window;

enum exhaust_basis { EX_LEAKS, EX_TOTAL };

struct exhaustion {
    int known;        /* 0: not forecast, why says */
    char why[200];
    double free_b;    /* the allocator's free bytes, the last HEAP record's */
    double at_s;      /* that record's time (seconds from the session's first record) */
    struct est rate;  /* the allocator's bytes per second (the sampled growth's, each block with
                       * the allocator's bytes beyond those asked: overhead) */
    struct est overhead; /* the allocator's bytes a block beyond those asked (0: unknown) */
    int basis;        /* enum exhaust_basis */
    uint32_t driver;  /* the fastest leak's sample in the profile (UINT32_MAX: none) */
    double t, lo, hi; /* seconds from at_s: the estimate and its 95 % interval (INFINITY: never) */
};

/* The forecast of session s (its leaks lk[0..n), as stored in p, the growth window, and the
 * profile's sample of each session site: a leak's blocks are those of its sample's sites). */
void exhaust_of(const struct session *s, const struct prof *p, const struct growth_leak *lk,
                size_t n, const struct growth_window *win, const uint32_t *site_sample,
                struct exhaustion *out);
/* T and its interval from free bytes and a rate (INFINITY where the rate is not above 0). */
void exhaust_times(double free_b, struct est rate, double *t, double *lo, double *hi);
/* The comment into p; from p (0 when p holds none: a drain before it, a merge). */
void exhaust_write(struct prof *p, const struct exhaustion *e);
int exhaust_from_prof(const struct prof *p, struct exhaustion *out);
/* The same from one comment's text c (its driver checked against nsample samples; 0 when c is
 * not a forecast drain wrote). */
int exhaust_parse(const char *c, size_t nsample, struct exhaustion *out);
/* The "exhaustion" object's members every JSON writer gives (--json, drain fleet devices): the
 * whole {"known": false, "why": W} (returns 0), or {"known": true, "running_out", "seconds",
 * "lo", "hi", "not_running_out_within", "free_bytes" left open for the writer's own members and
 * its '}' (returns 1); seconds null where unbounded. */
int exhaust_json(FILE *f, const struct exhaustion *e);
/* 1 when the forecast runs out: its interval bounded above (the rate's low end above 0). */
int exhaust_running_out(const struct exhaustion *e);
/* Seconds in one unit as the texts write them: "3.70 h", "12.0 min", "45.0 s", "2.50 d". */
void fmt_secs(char *out, size_t n, double s);
#endif
