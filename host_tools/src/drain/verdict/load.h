/* Loading a profile for the verdicts: a file drain wrote (or a merge), or an msamp stream turned
 * into one by drain itself (check.c, diff.c). */
#ifndef DRAIN_LOAD_H
#define DRAIN_LOAD_H

#include <stddef.h>

#include "pprof/prof_model.h"

/* Reads path as a pprof profile; when it is none, runs drain on it as a stream (with these
 * --elf files) and reads the profile of its first session. 0, or -1 with why. */
int verdict_load(struct prof *p, const char *path, char *const *elves, size_t nelf, char *why,
                 size_t whylen);
/* The options check and diff share: --elf FILE (-e; at most VERDICT_MAX_ELF) and --json FILE. */
#define VERDICT_MAX_ELF 16
struct verdict_args {
    char *elf[VERDICT_MAX_ELF];
    size_t nelf;
    const char *json;
};
/* 1 when argv[*i] is one of them (its argument consumed: *i advanced), 0 when it is not, -1 with
 * why when it is wrong (one of them last, without its value: "--json needs a value"). own: the
 * command's own options that take a value (NULL-ended): one of them last is wrong too. */
int verdict_arg(struct verdict_args *va, int argc, char **argv, int *i, const char *const *own,
                char *why, size_t whylen);

#endif
