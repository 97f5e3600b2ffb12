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

#include "prof_model.h"
#include "verdict/est.h"

/* The four estimates of a site (or a total), in this order. */
enum { E_INUSE_B, E_ALLOC_B, E_INUSE_N, E_ALLOC_N, E_COUNT };
extern const char *const vprof_est_name[E_COUNT]; /* "inuse_bytes", "alloc_bytes", ... */

struct vsite {
    uint32_t sample;  /* the first of its samples in the profile (growth_leak.sample) */
    uint32_t nframe;  /* frames in vprof.frames from frame_off, innermost first */
    size_t frame_off;
    const char *task; /* its task label, NULL for none */
    const char *session, *device; /* labels, NULL for none */
    uint64_t samples; /* sampled allocations behind its allocated estimate */
    struct est e[E_COUNT];
};

struct vprof {
    const struct prof *p;
    int has_var;
    struct vsite *site;
    size_t nsite;
    struct vframe {
        const char *name; /* the function's (the profile's string), NULL: a raw address */
        uint64_t addr;
    } *frames;
    size_t nframes, capframes;
    struct est total[E_COUNT];
    uint32_t *site_of; /* per profile sample: its site's index in site */
};

/* 0, or -1 with why: a profile without drain's six sample types. */
int vprof_build(const struct prof *p, struct vprof *out, char *why, size_t whylen);
void vprof_free(struct vprof *v);
/* A frame's text: its function's name, or its address as "0x..." (in buf). */
#define VFRAME_TEXT 24
const char *vframe_text(const struct vframe *f, char buf[VFRAME_TEXT]);
/* 1 when the site's stack has a frame named fn. */
int vsite_has_frame(const struct vprof *v, const struct vsite *s, const char *fn);
/* Sums over the sites of task (NULL: all). Returns the sites summed. */
size_t vprof_sum(const struct vprof *v, const char *task, const char *fn, struct est *out);
/* The site's stack and task as one key (frames joined by '\n', then "task=" and its task; with
 * any_address, raw addresses, which move between runs, as "?"). The caller frees it. */
char *vsite_key(const struct vprof *v, const struct vsite *s, int any_address);
/* JSON output: a string (quoted, escaped; NULL: null), a number (null when not finite), an
 * estimate {"est","lo","hi"} (lo and hi null when its variance is unknown), and a site's stack
 * as an array of names. */
void json_str(FILE *f, const char *s);
void json_num(FILE *f, double x);
void json_est(FILE *f, struct est e, int has_var);
void json_stack(FILE *f, const struct vprof *v, const struct vsite *s);

#endif
