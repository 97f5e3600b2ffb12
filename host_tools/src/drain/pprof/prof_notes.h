/*
 * The profile's comments on its session (pprof/prof_notes.c).
 */
#ifndef DRAIN_PROF_NOTES_H
#define DRAIN_PROF_NOTES_H

#include "model/session.h"
#include "msamp_decode.h"
#include "pprof/built.h"

/* Appends the comments on session s to p (kind: "final", "partial N" or "peak"; d: the decoder's
 * counters now, NULL: none; b: the profile being built, its reader counts). */
void add_comments(struct prof *p, const struct session *s, const char *kind,
                  const struct msamp_dec_stats *d, const struct built *b);

#endif
