/*
 * The verdicts' printers (views/leaks.c): the lines --leaks, --top, the summary, the heap's
 * verdict and the timeline print of the verdicts a profile stores (their codec is
 * pprof/vcomment.h; they are made by verdict/growth.c and verdict/exhaust.c).
 */
#ifndef DRAIN_LEAKS_H
#define DRAIN_LEAKS_H

#include <stddef.h>
#include <stdio.h>

#include "pprof/vcomment.h"

/* --leaks: the leaks by growth the profile p stores, one line each, then its
 * steps. */
void growth_print_leaks(FILE *f, const struct prof *p);
/* One leak of p: lead, "+RATE/s [LO/s, HI/s] since T s  SITE" (the site as --top names it). */
struct growth_leak;
void leaks_line(FILE *f, const struct prof *p, const struct growth_leak *lk, const char *lead);
/* --top's peak line, from a profile's stored verdict. */
void growth_print_peak(FILE *f, const struct prof *p);
/* The peak's line ("peak in use: EST bytes [LO, HI] (95 %) at T s; ...", or "peak in use: not
 * placed, [LO, HI] bytes (95 %); ..."), as --top and the summary print it: 0 when p holds no
 * peak. */
int growth_peak_text(const struct prof *p, char *out, size_t n);
/* The verdict in one phrase, the driver named by site (its frames, as --top names a site):
 * "heap runs out in 3.70 h [3.20 h, 4.38 h] (95 %) at the present growth, driven by SITE",
 * "heap not running out within 41.0 d (95 %) at the present growth (its growth's interval
 * includes 0)", "time to exhaustion unknown: WHY". 0 when p holds no forecast. */
int exhaust_text(const struct prof *p, char *out, size_t n);
/* Its line (--top), when p holds a forecast. */
void exhaust_print(FILE *f, const struct prof *p);


#endif
