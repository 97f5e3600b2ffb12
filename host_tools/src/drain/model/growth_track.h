/*
 * The growth tracker (model/growth_track.c): what the session feeds at every change of a live
 * entry's weight, in bounded memory, for the growth verdicts (verdict/growth.h) and the heap's
 * model (model/heap.c: the variances of the running in-use estimates).
 */
#ifndef DRAIN_GROWTH_TRACK_H
#define DRAIN_GROWTH_TRACK_H

#include <stddef.h>
#include <stdint.h>

struct session;

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

/* Feeds the session's growth tracker from now on (its hook); freed with the session. */
void growth_attach(struct session *s);
/* The session's tracker, or NULL (none attached: a dump). */
struct growth *growth_of(const struct session *s);
/* The variances of the session's running in-use estimate of bytes (session.inuse_b) and of half
 * B's (session.half_b): 0 without a tracker (a dump). */
int growth_inuse_var(const struct session *s, double *v, double *half_b_v);
/* Sites beyond GR_MAX_SITES, not followed for growth. */
uint64_t growth_unfollowed(const struct session *s);
/* The variance an entry of size sz and weight w adds to an estimate of bytes: sz^2 (w^2 - w). */
double gr_var(double sz, double w);
/* Widens g's bins until time ts falls in them (or their width is at its cap). */
void gr_reach(struct growth *g, uint64_t ts);
/* Site t's bins at g's width (a site's bins follow the tracker's when touched). */
void gr_sync(const struct growth *g, struct gr_site *t);
/* The bin time ts falls in (the last one past the end). */
size_t gr_bin(const struct growth *g, uint64_t ts);

#endif
