/*
 * A site as every view names it, on one line (views/site_name.c).
 */
#ifndef DRAIN_SITE_NAME_H
#define DRAIN_SITE_NAME_H

#include <stddef.h>
#include <stdint.h>

#include "pprof/profile.h"

/* Frames as --top names a site, on one line: the locations locs of p (ids, innermost first), at
 * most 5 frames, the first "func file:line", then "func:line" (inlined: " (inline)"), or the
 * address where unsymbolized. */
void report_frames(const struct prof *p, const uint64_t *locs, uint32_t nloc, char *out, size_t n);
/* Site i of the session (session.sites) as --top names it (at most 5 frames, innermost first). */
void report_site_name(const struct built *b, uint32_t site, char *out, size_t n);
/* Appends location loc_id's frames to out (len bytes of it used; returns the new length), counting
 * them in *frames: "func file:line" for a site's first frame (first), then "func:line" for the
 * inlined callers and outer frames, or the address where unsymbolized. */
size_t site_frames(const struct prof *p, uint64_t loc_id, int first, char *out, size_t n,
                   size_t len, int *frames);
/* A site's frames as one line (at most 5 frames), from its agg sample s of b. */
void site_text(const struct built *b, const struct prof_sample *s, char *site, size_t n);

#endif
