/*
 * Heap over time (drain --timeline, --timeline-csv; docs/VIEWS.md): the session's running in-use
 * estimate (session.inuse_b, site.inuse_b) sampled after every record into a fixed number of time
 * bins, with the MARK and INTERVAL records, written at the end of the session as a self-contained
 * HTML page with an inline SVG chart and/or a CSV of the series. Memory is fixed whatever the
 * stream: TL_MAX_POINTS bins (their width doubles, merging neighbours, when the session outgrows
 * them), TL_CANDIDATES sites followed, TL_MAX_MARKS marks and interval changes.
 */
#ifndef DRAIN_TIMELINE_H
#define DRAIN_TIMELINE_H

#include "msamp_decode.h"
#include "pprof/profile.h"
#include "model/session.h"

#define TL_MAX_POINTS 1024 /* time bins of one session */
#define TL_CANDIDATES 32   /* sites followed (largest peaks so far) */
#define TL_TOP 8           /* sites drawn and written: the candidates with the largest peaks */
#define TL_MAX_MARKS 64    /* MARK records kept (drawn); the rest are counted */
#define TL_MAX_INTERVALS 64 /* INTERVAL changes kept (drawn); the rest are counted */

struct timeline;

struct timeline *timeline_new(void);
void timeline_free(struct timeline *tl);

/* After session_record(s, rec): samples s's estimates at rec's time. A session other than the one
 * followed so far (a new index) starts the timeline over. */
void timeline_record(struct timeline *tl, const struct session *s, const struct msamp_record *rec);

/* Writes the timeline of s: the HTML page to html and/or the CSV to csv (either may be NULL);
 * b is s's built profile (names of the sites' frames). 0, or -1 with "PATH: reason" in err. */
int timeline_write(const struct timeline *tl, const struct session *s, const struct built *b,
                   const char *html, const char *csv, char *err, size_t errlen);

#endif
