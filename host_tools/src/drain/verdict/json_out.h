/* --json: drain's results in machine-readable form (docs/VERDICTS.md "JSON"). */
#ifndef DRAIN_JSON_OUT_H
#define DRAIN_JSON_OUT_H

#include <stdio.h>

#include "pprof/prof_model.h"
#include "model/est.h"

struct vprof;

/* One session of the "sessions" array. extra, when not NULL, writes more members of the session
 * object (each preceded by ", "), such as a "heap" object: it is called last, with the profile as
 * the writer read it (v, verdict/vprof.h). */
struct json_session {
    const struct prof *p;   /* its profile (a built one or a file drain wrote) */
    const char *session;    /* "0x..." or NULL */
    const char *device;     /* NULL: none */
    double interval;        /* the mean sampling interval (bytes) */
    void (*extra)(FILE *f, const void *ctx, const struct prof *p, const struct vprof *v);
    const void *ctx;
    /* When not NULL: writes more members of the tasks[] entry of task name (each preceded by
     * ", "), such as its peak and budget events. */
    void (*task_extra)(FILE *f, const void *ctx, const char *name);
};

/* {"est": E, "lo": LO, "hi": HI}: e with its symmetric 95 % interval (a change, of either sign). */
void json_est_sym(FILE *f, struct est e);
/* The sites of v's profile's leaks by growth, as "leaks" names them: [{"stack": [...], "task":
 * ...}, ...] (for another member that names them, the heap's verdict). */
void json_leak_sites(FILE *f, const struct vprof *v);
/* Writes {"sessions": [...]} to path ("-": stdout): 0, or -1 with why. */
int json_write(const char *path, const struct json_session *s, size_t n, char *why,
               size_t whylen);

#endif
