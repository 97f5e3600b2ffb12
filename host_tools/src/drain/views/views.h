/* drain's views (docs/VIEWS.md) as a table (views.c), which the driver (driver/) reads to parse
 * their options, print their help, feed and write them. */
#ifndef DRAIN_VIEWS_H
#define DRAIN_VIEWS_H

#include <stddef.h>

#include "msamp_decode.h"
#include "pprof/profile.h"
#include "model/session.h"

/* The views (docs/VIEWS.md): what is written from a session's final profile besides the profile.
 * A view is one entry of views[]: its options, its lines in --help, what it needs and its writer.
 * drain turns a view on when one of its options that say so is given, makes its state (new) when
 * it needs every record (VIEW_RECORDS), hands it each record (record), writes it when a session
 * ends (write, in the table's order; the first failure is the one reported) and frees its state
 * (free) once, at the end. */
#define VIEW_OPTS 2 /* options of one view at most */
enum view_arg {
    VIEW_FLAG,  /* no argument */
    VIEW_FILE,  /* a path, named per session as -o names sessions (STEM.sN.EXT) */
    VIEW_VALUE, /* a value, checked (and turned into the number val) by the view's check */
};
struct view_opt {
    const char *name;  /* the long option */
    int letter;        /* its short option, or 0 */
    enum view_arg arg;
    int on;            /* giving it turns the view on */
    /* Its argument, when it needs checking: 0 (and *val set for a VIEW_VALUE), or -1 with the
     * message (after "drain: "). */
    int (*check)(const char *arg, long *val, char *msg, size_t msglen);
};
#define VIEW_RECORDS 1u /* needs every record of the stream: new, record and free are called */
#define VIEW_SITE_PEAKS 2u /* reads each site's in-use at the peak (session_keep_site_peaks) */
/* reads the final profile's samples (verdict/vprof.h) but not the per-site totals (built.agg,
 * which every view without this flag may read): pprof_build's BUILT_SAMPLES */
#define VIEW_NO_AGG 4u
/* What a view's writer is given: the session, its final profile, the paths of its FILE options
 * (NULL: not given), its value, its state, the --top count (0: not given), the ELFs and the
 * decoder's counters. */
struct view_run {
    const struct session *s;
    const struct built *b;
    const char *path[VIEW_OPTS];
    long val;
    void *state;
    long top;
    const struct elf_set *elves;       /* --elf */
    const struct msamp_dec_stats *dec; /* the decoder's counters */
};
struct view {
    struct view_opt opt[VIEW_OPTS];
    const char *help; /* its lines in drain --help */
    unsigned needs;   /* VIEW_RECORDS, VIEW_SITE_PEAKS, VIEW_NO_AGG or 0 */
    const char *fail; /* the message's start when it is not written */
    void *(*new)(void);
    void (*free)(void *state);
    void (*record)(void *state, const struct session *s, const struct msamp_record *rec);
    int (*write)(const struct view_run *r, char *why, size_t whylen); /* 0, or -1 with why */
};

#define VIEW_MAX 16 /* views in the table at most */
#define VIEW_TOP 0  /* views[VIEW_TOP] is --top, whose count --lifetimes uses too */
extern const struct view views[];
extern const size_t nviews;

#endif
