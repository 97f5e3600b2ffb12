/*
 * How a session ended, kept in its profile (docs/DRAIN.md "How a session ended"): the final
 * profile of a stream's session carries "msamp-verdict ended|how=H" with H "end" (END came),
 * "reset" (a RESET record: "|at_s=T|cause=C" follow) or "cut" (neither); a dump's and a partial
 * profile's carry none. Read back by --json ("ended", "reset"), drain check --json and drain diff
 * --json, so a saved profile says what its stream said. drain merge (and drain fleet merge) writes
 * one comment per ending its inputs had (ended_merge): a merge of profiles that ended alike reads
 * as that ending; one of profiles that ended differently, or of some that carry no ending (a
 * partial, an older drain's: "how=unknown"), as "mixed" with the list of endings; the reset's
 * time and cause only when one reset is behind it ("|resets=N" when several).
 */
#ifndef DRAIN_ENDED_H
#define DRAIN_ENDED_H

#include <stddef.h>
#include <stdio.h>

struct prof;
struct session;

#define ENDED_KINDS 4 /* end, reset, cut, unknown (a merge's input without one) */

struct ended {
    int known;             /* 0: the profile carries none (a dump, a partial, an older drain's) */
    int has[ENDED_KINDS];  /* the endings the profile's comments name (several after a merge) */
    const char *how;       /* "end", "reset", "cut" or "mixed" (NULL when not known) */
    unsigned long resets;  /* the resets behind it (several after a merge) */
    double reset_at_s;     /* the reset's time (-1: unknown), when one comment says "reset" */
    char cause[16];        /* its cause, when one comment says "reset" */
};

/* The comment for s's final profile p (kind "final"; nothing for a dump or a partial). */
void ended_store(const struct session *s, const char *kind, struct prof *p);
/* What p's comments say. */
void ended_from_prof(const struct prof *p, struct ended *e);
/* drain merge's: each input's ending (ended_merge_add), then its comments (ended_merge_write). */
struct ended_merge {
    int inputs, has[ENDED_KINDS];
    unsigned long resets;
    char reset_line[128]; /* the resets' comment while all are equal ("" after one differs) */
};
void ended_merge_add(struct ended_merge *m, const struct prof *src);
void ended_merge_write(const struct ended_merge *m, struct prof *out);
/* The endings e names, "end, reset" (in the order end, reset, cut, unknown). */
void ended_list(const struct ended *e, char *out, size_t n);
/* JSON members ", \"ended\": ...[, \"endings\": [...]][, \"reset\": {...}]" (as --json). */
void ended_json(FILE *f, const struct ended *e);

#endif
