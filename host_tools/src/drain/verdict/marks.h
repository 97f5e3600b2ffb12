/*
 * Marks (docs/VERDICTS.md "Marks"): what the device refused or the line lost, kept in a profile's
 * comments so that every reader of it (--top, --json, drain check, drain merge) knows which
 * estimates are lower bounds. A session's: "msamp-verdict marks|complete=C|refused=N|
 * unattributed=N|lost=N|note=TEXT"; a site's refused samples (ALLOC records without a live slot),
 * keyed by its first sample: "msamp-verdict refused|sample=I|samples=N|objects=X|bytes=Y", the
 * in-use they may add (their weights w and w * size).
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
struct marks_refused {
    uint32_t sample; /* the site's first sample in prof->sample */
    uint64_t samples;
    double n, b;
};

/* Writes s's marks into p: the session's, and each refusing site's at its sample site_sample[i]
 * (UINT32_MAX: none). complete: session_completeness's verdict. */
void marks_store(const struct session *s, const struct msamp_dec_stats *dec_now, int complete,
                 struct prof *p, const uint32_t *site_sample);
/* A profile's session marks (0 when it holds none) and refused sites (at most max). */
int marks_from_prof(const struct prof *p, struct prof_marks *out);
size_t marks_refused_from_prof(const struct prof *p, struct marks_refused *out, size_t max);
/* Writes marks (known ones) and refused sites into p. */
void marks_write(struct prof *p, const struct prof_marks *m, const struct marks_refused *r,
                 size_t n);
/* Whether the marks make every site's estimates lower bounds (records lost or unattributed), and
 * every total's too (lost). */
int marks_sites(const struct prof_marks *m);
/* Any mark at all: growth (a sum of sites' slopes) is a lower bound; the peak (a total) when
 * samples were refused or records lost (unattributed ones are in it). */
int marks_any(const struct prof_marks *m);
int marks_peak(const struct prof_marks *m);
int marks_totals(const struct prof_marks *m);

#endif
