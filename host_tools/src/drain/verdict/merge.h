/* `drain merge OUT IN...`: merges pprof profiles of the same sample types into one. The merger is
 * also usable on profiles in memory (the merge fuzzer's). */
#ifndef DRAIN_MERGE_H
#define DRAIN_MERGE_H

#include <stdint.h>

#include "pprof/prof_model.h"
#include "util.h"
#include "verdict/growth.h"
#include "verdict/ended.h"
#include "verdict/marks.h"

struct merger {
    struct prof out;       /* the merged profile */
    int n;                 /* profiles merged */
    int64_t start, end;    /* earliest start, latest end (ns) */
    struct iset mapset;    /* equal mappings are unified */
    uint8_t *comment_seen; /* by string index of out: a comment already kept */
    size_t cap_seen;
    /* The growth verdicts (docs/VERDICTS.md): the inputs' peaks summed (npeak of them, known
     * while all are), their leaks by merged sample (slopes and variances summed, earliest
     * since) and steps (bytes summed), written by merge_finish. */
    struct growth_peak peak;
    int npeak;
    struct growth_leak *leaks;
    size_t nleaks, capleaks;
    struct growth_step *steps;
    size_t nsteps, capsteps;
    /* The session marks (docs/VERDICTS.md "Marks"): known while every input's are, complete
     * while every input is, counts summed (the sites' refused samples are sample values, summed
     * as values are). */
    struct prof_marks marks;
    int nmarks;
    /* The bound of what no live sample hides (verdict/unseen.h): the inputs' largest interval,
     * NAN once an input holds none. */
    double unseen_interval;
    /* How the inputs' sessions ended (verdict/ended.h). */
    struct ended_merge ended;
};

void merge_init(struct merger *mg);
/* Adds a profile: 0, or -1 with the reason in err (an invalid profile, sample types that differ
 * from the first profile's). */
int merge_add(struct merger *mg, const struct prof *in, char *err, size_t errlen);
/* Sets time and duration and adds the "merged N profiles" comment. */
void merge_finish(struct merger *mg);
void merge_free(struct merger *mg);

int drain_merge(int argc, char **argv);

#endif
