/*
 * Heap health in --top, --json and the timeline (views/health.c, docs/HEALTH.md): the allocator's
 * figures and the heap's verdict (model/heap.h) in words.
 */
#ifndef DRAIN_HEALTH_H
#define DRAIN_HEALTH_H

#include <stdint.h>
#include <stdio.h>

#include "model/session.h"
#include "pprof/profile.h"

/* Heap health (docs/HEALTH.md): the allocator's figures, the verdict with its
 * evidence and each failure explained, after --top's tables; nothing without HEAP records. */
void health_top(FILE *f, const struct session *s, const struct built *b);
/* The member "heap": {...} of a session's JSON object (no leading comma); v: the
 * session's profile as the JSON reads it (verdict/vprof.h), whose leaks the heap's are. */
struct vprof;
void heap_json_write(FILE *f, const struct session *s, const uint32_t *site_prof,
                     const struct vprof *v);
/* The timeline's heap lines: the allocator's free bytes, low watermark and largest
 * free block beside the sampled in-use, on the chart's time axis and the allocator's own byte axis
 * (x: seconds since t0, the session's first record, over [0, xmax] -> [left, left + width]; y:
 * bytes over [0, ymax] -> [bottom, bottom - height]); health_timeline_ymax: their largest value. */
struct health_map {
    uint64_t t0;
    double tick_hz, xmax, ymax, left, width, bottom, height;
};
double health_timeline_ymax(const struct session *s);
void health_timeline_svg(FILE *f, const struct session *s, const struct health_map *m);

#endif
