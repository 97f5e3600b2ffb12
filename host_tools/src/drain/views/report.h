/*
 * drain's text reports, made from a built profile (profile.h): the top sites (--top), folded
 * stacks for flame-graph tools (--folded) and the one-line summary of a session.
 */
#ifndef DRAIN_REPORT_H
#define DRAIN_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "msamp_decode.h"
#include "profile.h"
#include "session.h"

/* Top n sites by in-use bytes and by allocated bytes. final: the in-use list is what was live at
 * the end (a working set as much as a leak: the leaks are growth's, --leaks). */
void report_top(FILE *f, const struct session *s, const struct built *b, size_t n, int final);
/* Frames as --top names a site, on one line: the locations locs of p (ids, innermost first), at
 * most 5 frames, the first "func file:line", then "func:line" (inlined: " (inline)"), or the
 * address where unsymbolized. */
void report_frames(const struct prof *p, const uint64_t *locs, uint32_t nloc, char *out, size_t n);
/* Site i of the session (session.sites) as --top names it (at most 5 frames, innermost first). */
void report_site_name(const struct built *b, uint32_t site, char *out, size_t n);
/* Heap health (views/health.c, docs/HEALTH.md): the allocator's figures, the verdict with its
 * evidence and each failure explained, after --top's tables; nothing without HEAP records. */
void health_top(FILE *f, const struct session *s, const struct built *b);
/* The member "heap": {...} of a session's JSON object (no leading comma; views/health.c); v: the
 * session's profile as the JSON reads it (verdict/vprof.h), whose leaks the heap's are. */
struct vprof;
void heap_json_write(FILE *f, const struct session *s, const uint32_t *site_prof,
                     const struct vprof *v);
/* The timeline's heap lines (views/health.c): the allocator's free bytes, low watermark and largest
 * free block beside the sampled in-use, on the chart's time axis and the allocator's own byte axis
 * (x: seconds since t0, the session's first record, over [0, xmax] -> [left, left + width]; y:
 * bytes over [0, ymax] -> [bottom, bottom - height]); health_timeline_ymax: their largest value. */
struct health_map {
    uint64_t t0;
    double tick_hz, xmax, ymax, left, width, bottom, height;
};
double health_timeline_ymax(const struct session *s);
void health_timeline_svg(FILE *f, const struct session *s, const struct health_map *m);
/* --leaks (views/leaks.c): the leaks by growth the profile p stores, one line each, then its
 * steps. */
void growth_print_leaks(FILE *f, const struct prof *p);
/* One leak of p: lead, "+RATE/s [LO/s, HI/s] since T s  SITE" (the site as --top names it). */
struct growth_leak;
void leaks_line(FILE *f, const struct prof *p, const struct growth_leak *lk, const char *lead);
/* Folded stacks (root first, ';'-separated frames "func@file.c:LINE", then in-use bytes) for
 * flame-graph tools: one line per distinct symbolized stack, written to path whole or not at all
 * (util.h's out_file). 0, or -1 with "PATH: reason" in err. */
int report_folded(const struct built *b, const char *path, char *err, size_t errlen);
/* Lifetimes of the top n sites by allocated bytes: sampled allocations freed, by lifetime bucket,
 * and live, by age (--lifetimes). */
void report_lifetimes(FILE *f, const struct session *s, const struct built *b, size_t n);
/* One line: the session's samples, stream losses, device drops and reader repairs, and the profile
 * written to path. dec_now: the decoder's counters now. */
/* The site limit, when reached: one line (said even with --quiet: the profile lost detail). */
void report_site_limit(FILE *f, const struct session *s);
void report_summary(FILE *f, const struct session *s, const struct built *b,
                    const struct msamp_dec_stats *dec_now, const char *path);

#endif
