/*
 * Marks (docs/VERDICTS.md "Marks"): what the device refused or the line lost, kept in the profile
 * so that every reader of it (--top, --json, drain check, drain merge) knows which estimates are
 * lower bounds. A session's, in a comment: "msamp-verdict marks|complete=C|refused=N|
 * unattributed=N|lost=N|note=TEXT"; a site's refused samples (ALLOC records without a live slot)
 * are sample types of its samples (profile.h V_REF_N, V_REF_B, V_REF_SAMPLES: the in-use they may
 * add, their weights w and w * size, and how many they are), summed as values are.
 */
#ifndef DRAIN_MARKS_H
#define DRAIN_MARKS_H

#include <stddef.h>
#include <stdint.h>

struct prof;
struct session;
struct msamp_dec_stats;

struct prof_marks {
    int known;    /* the profile holds a marks comment (drain before issue 36 wrote none) */
    int complete; /* the stream was complete and nothing refused (session_completeness) */
    uint64_t refused, unattributed, lost; /* lost: records lost, their sites unknown */
    char note[384];
};
/* Writes s's session marks into p (the sites' refused samples are in their values).
 * complete: session_completeness's verdict. */
void marks_store(const struct session *s, const struct msamp_dec_stats *dec_now, int complete,
                 struct prof *p);
/* A profile's session marks (0 when it holds none). */
int marks_from_prof(const struct prof *p, struct prof_marks *out);
/* The in-use bytes p's refused samples may add (the sum of its samples' inuse_refused_space; 0
 * for a profile without that type), and how many samples were refused (NULL: not asked). */
double marks_refused_bytes(const struct prof *p, uint64_t *samples);
/* Writes marks (known ones) into p. */
void marks_write(struct prof *p, const struct prof_marks *m);
/* Whether the marks make every site's estimates lower bounds (records lost or unattributed), and
 * every total's too (lost). */
int marks_sites(const struct prof_marks *m);
/* Any mark at all: growth (a sum of sites' slopes) is a lower bound; the peak (a total) when
 * samples were refused or records lost (unattributed ones are in it). */
int marks_any(const struct prof_marks *m);
int marks_peak(const struct prof_marks *m);
int marks_totals(const struct prof_marks *m);

#endif
