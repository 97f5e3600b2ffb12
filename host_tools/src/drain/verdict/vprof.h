/*
 * A profile's verdict view (docs/VERDICTS.md): from an in-memory pprof profile (a stream's built
 * profile or a file drain wrote, or a merge of them), its sites with estimates and their
 * variances, keyed by symbolized stack and task, with totals and per-task sums. Works on every
 * profile with drain's six standard sample types; one without the variance types (an older
 * drain's) has unknown variance (has_var 0: intervals [est, est] are not claimed, lo/hi null).
 */
#ifndef DRAIN_VPROF_H
#define DRAIN_VPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pprof/prof_model.h"
#include "model/est.h"
#include "verdict/marks.h"
#include "verdict/vjson.h"

/* The four estimates of a site (or a total), in this order. */
enum { E_INUSE_B, E_ALLOC_B, E_INUSE_N, E_ALLOC_N, E_COUNT };
extern const char *const vprof_est_name[E_COUNT]; /* "inuse_bytes", "alloc_bytes", ... */

/* Samples refused a live slot (docs/VERDICTS.md "Marks"): how many, and the objects and bytes
 * they may add to the in-use estimates (their weights w and w * size). */
struct vrefused {
    uint64_t samples;
    double n, b;
};

struct vsite {
    uint32_t sample;  /* the first of its samples in the profile (growth_leak.sample) */
    uint32_t nframe;  /* frames in vprof.frames from frame_off, innermost first */
    size_t frame_off;
    const char *task; /* its task label, NULL for none */
    uint64_t samples; /* sampled allocations behind its allocated estimate */
    struct est e[E_COUNT];
    struct vrefused refused;
};

struct vprof {
    const struct prof *p;
    int has_var;
    struct vsite *site;
    size_t nsite;
    struct vframe {
        /* named: the function's name; else, unsymbolized in an image, its file's base name, or
         * NULL (the profile's strings) */
        const char *text;
        uint64_t addr; /* unsymbolized: the address, or with a module its offset in its file */
    } *frames;
    uint8_t *named; /* per frame: 1 when its text is its function's name (16-byte frames) */
    size_t nframes, capframes, capnamed;
    struct est total[E_COUNT];
    struct vrefused total_refused;
    struct prof_marks marks; /* the session's (merged) marks; known 0 for an older profile */
    /* The bytes a set with no live sample may hold unseen (verdict/unseen.h: 97.5 %); NAN when
     * the profile holds no bound. */
    double unseen;
    /* The session's largest sampling interval (the same comment; the merged inputs' largest):
     * no sample weighs more bytes, the w of a byte estimate's upper end (est_hi_max); NAN: none. */
    double interval;
    uint32_t *site_of; /* per profile sample: its site's index in site (VPROF_NO_SITE_OF: NULL) */
};

/* 0, or -1 with why: a profile without drain's six sample types. */
int vprof_build(const struct prof *p, struct vprof *out, char *why, size_t whylen);
/* The same with flags: VPROF_NO_SITE_OF, no site_of (NULL: drain diff reads no sample's site). */
#define VPROF_NO_SITE_OF 1u
int vprof_build_opt(const struct prof *p, struct vprof *out, unsigned flags, char *why,
                    size_t whylen);
void vprof_free(struct vprof *v);
/* The text of frame i of v->frames: its function's name, or its address as "0x..." (in buf). */
#define VFRAME_TEXT PROF_ADDR_TEXT
const char *vframe_text(const struct vprof *v, size_t i, char buf[VFRAME_TEXT]);
/* 1 when the site's stack has a frame named fn. */
int vsite_has_frame(const struct vprof *v, const struct vsite *s, const char *fn);
/* Sums over the sites of task (NULL: all), and their refused samples (ref, when not NULL).
 * Returns the sites summed. */
size_t vprof_sum(const struct vprof *v, const char *task, const char *fn, struct est *out,
                 struct vrefused *ref);
/* Whether estimate e of sites with refused samples r (a site's, a sum's) is a lower bound
 * (docs/VERDICTS.md "Marks"): their in-use ones when r has samples, every site's when the session
 * lost records or has unattributed samples, and every total's (all: a sum of all sites) when it
 * lost records. *add: what may be missing from its upper end (the refused in-use; 0 else). */
int vprof_marked(const struct vprof *v, const struct vrefused *r, int all, int e, double *add);
/* The 95 % interval [*lo, *hi] of estimate x of kind e (E_*) of a site or a sum of sites: est.h's,
 * hi raised by add (what refused samples may hold); an estimate of 0 bytes (no sample in the set:
 * in use, no live one) has v->unseen for its upper end (docs/VERDICTS.md "No live sample"), one of
 * 0 objects an unknown one (NAN). Both NAN when the variance is unknown. Returns 1 when the upper
 * end is the bound of what no sample may hide. */
int vprof_interval(const struct vprof *v, int e, struct est x, double add, double *lo, double *hi);
/* Appends the site's stack and task as one key, 0-terminated, to out (frames joined by '\n', then
 * "task=" and its task; with any_address, raw addresses, which move between runs, as "?"). Returns
 * its offset in out. */
size_t vsite_key(const struct vprof *v, const struct vsite *s, int any_address, struct buf *out);
/* JSON output (the values: verdict/vjson.h): a site's stack as an array of names, and: */
/* Estimate x of kind e of v's sites with its vprof_interval (hi raised by add) and, marked
 * (vprof_marked), "lower_bound": true. */
void json_est(FILE *f, const struct vprof *v, int e, struct est x, int marked, double add);
void json_stack(FILE *f, const struct vprof *v, const struct vsite *s);

#endif
