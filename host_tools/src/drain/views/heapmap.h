/*
 * drain's heap map of a post-mortem dump (--heap-map FILE, docs/POSTMORTEM.md "The heap map"):
 * an HTML page with an SVG of the heap walked (heapwalk.h): free holes, allocated blocks, the
 * sampled live blocks coloured by site and marked reachable or unreachable, the largest hole and
 * its neighbours, the health numbers, the tables behind them and the same data as JSON.
 */
#ifndef DRAIN_HEAPMAP_H
#define DRAIN_HEAPMAP_H

#include <stddef.h>
#include <stdio.h>

#include "input/heapwalk.h"
#include "pprof/profile.h"
#include "model/session.h"

int heapmap_write(const struct hw_heap *h, const struct session *s, const struct built *b,
                  const char *path, char *why, size_t whylen);
/* The sampled live blocks' reachability per site, for --top of a dump. */
void heapmap_sites(FILE *f, const struct hw_heap *h, const struct session *s,
                   const struct built *b);

#endif
