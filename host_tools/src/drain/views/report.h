/*
 * drain's text reports, made from a built profile (pprof/profile.h): the top sites (--top), folded
 * stacks for flame-graph tools (--folded), lifetimes and the one-line summary of a session. How a
 * site is named is views/site_name.h's; the heap's lines views/health.h's; the verdicts' lines
 * views/leaks.h's.
 */
#ifndef DRAIN_REPORT_H
#define DRAIN_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "model/session.h"
#include "msamp_decode.h"
#include "pprof/profile.h"

/* Top n sites by in-use bytes and by allocated bytes. final: the in-use list is what was live at
 * the end (a working set as much as a leak: the leaks are growth's, --leaks). */
void report_top(FILE *f, const struct session *s, const struct built *b, size_t n, int final);
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
