/*
 * The growth verdicts' own side: the tracker the session feeds and the verdicts it makes
 * (growth.c), their comments in the profile (vcomment.c) and their text (views/leaks.c). The seam
 * others read is growth.h.
 */
#ifndef DRAIN_GROWTH_TRACK_H
#define DRAIN_GROWTH_TRACK_H

#include <stdint.h>
#include <stdio.h>

#include "verdict/growth.h"

struct session;

#define GR_BINS 32             /* time bins per site (their width doubles as the session grows) */
#define GR_MAX_SITES 65536u    /* sites followed; later ones are counted (growth_unfollowed) */
#define GR_Z_LEAK 3.2905267314919 /* growth over the recent half at one-sided 0.0005 */
#define GR_Z_PART 1.6448536269515 /* sustained: growth outside every run of bins that holds a
                                  * third of the recent half, one-sided 0.05 */
#define GR_PEAK_SAMPLES 10     /* sampled blocks at the chosen moments that place the peak */
#define GROWTH_COMMENT "msamp-verdict " /* the comments' prefix (docs/VERDICTS.md) */

/* Feeds the session's growth tracker from now on (its hook); freed with the session. */
void growth_attach(struct session *s);
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
/* The variances of the session's running in-use estimate of bytes (session.inuse_b) and of half
 * B's (session.half_b): 0 without a tracker (a dump). */
int growth_inuse_var(const struct session *s, double *v, double *half_b_v);
/* Sites beyond GR_MAX_SITES, not followed for growth. */
uint64_t growth_unfollowed(const struct session *s);
/* Appends the verdicts to p's comments (pk NULL: no peak). */
void growth_write(struct prof *p, const struct growth_peak *pk, const struct growth_leak *lk,
                  size_t n);
/* Appends the steps to p's comments. */
void growth_write_steps(struct prof *p, const struct growth_step *st, size_t n);
/* growth_peak_of and growth_leaks_of of s, written into p. */
void growth_store(const struct session *s, struct prof *p, const uint32_t *site_sample);
/* The verdict comments' parts (the marks' too, verdict/marks.c): comment i of p as a C string in
 * buf when it is a verdict of this kind ("msamp-verdict KIND|..."), else NULL; the value of
 * "|key=" in comment c into out (NULL when absent; rest: up to the end, else up to the next '|');
 * a number field (0, or -1 when absent or not a number). */
const char *verdict_comment(const struct prof *p, size_t i, const char *kind, char *buf, size_t n);
const char *verdict_field(const char *c, const char *key, char *out, size_t n, int rest);
int verdict_num(const char *c, const char *key, double *v);
/* --top's peak line, from a profile's stored verdict. */
void growth_print_peak(FILE *f, const struct prof *p);
/* The peak's line ("peak in use: EST bytes [LO, HI] (95 %) at T s; ...", or "peak in use: not
 * placed, [LO, HI] bytes (95 %); ..."), as --top and the summary print it: 0 when p holds no
 * peak. */
int growth_peak_text(const struct prof *p, char *out, size_t n);

#endif
