/*
 * The built profile's types (pprof/profile.h builds it): drain's sample types in their order, the
 * ELFs given, and struct built, the profile with what the reports and verdicts read beside it.
 * Apart from profile.h so that the builder's parts (pprof/prof_locs.c, prof_notes.c,
 * prof_round.c) use them without depending on the builder that uses them.
 */
#ifndef DRAIN_BUILT_H
#define DRAIN_BUILT_H

#include <stddef.h>
#include <stdint.h>

#include "model/session.h"
#include "pprof/prof_model.h"
#include "pprof/symbolize.h"

#define DRAIN_VERSION "0.1"

/* Value order in every sample: the six standard types (V_COUNT), then the variances of the in-use
 * and allocated estimates and the sampled allocations behind the allocated ones (V_VARS, what
 * drain wrote before the refused types), then the samples the device refused a live slot: the
 * in-use objects and bytes they may add (their weights w and w * size) and how many they are
 * (V_ALL: docs/VERDICTS.md "In the profile", "Marks"; a profile's values are the sums of its
 * samples'). */
enum { V_INUSE_N, V_INUSE_B, V_ALLOC_N, V_ALLOC_B, V_FREE_N, V_FREE_B, V_COUNT };
enum { V_INUSE_NV = V_COUNT, V_INUSE_BV, V_ALLOC_NV, V_ALLOC_BV, V_SAMPLES, V_VARS };
enum { V_REF_N = V_VARS, V_REF_B, V_REF_SAMPLES, V_ALL };

struct elf_set {
    struct sym_elf **elf;
    size_t n;
    int force;
};

struct built {
    struct prof prof;
    /* The per-site totals, one sample per distinct stack (its location ids are prof's), without
     * labels: prof's samples are split by lifetime and age (docs/DRAIN.md "Lifetimes"), the
     * reports (--top, --folded) read these. Empty for a peak profile, and unless asked for. */
    struct prof agg;
    /* Per session site: its agg sample (UINT32_MAX: none); NULL without agg. */
    uint32_t *site_agg;
    /* Per session site: its first sample in prof (UINT32_MAX: none), as the verdicts name it. */
    uint32_t *site_prof;
    /* Per agg sample: sampled allocations behind the in-use and the allocated estimates. */
    uint64_t *inuse_samples, *alloc_samples;
    size_t cap_inuse, cap_alloc;
    uint64_t unknown_stack; /* sampled allocations whose stack is id 0 or was never received */
    uint64_t unknown_events; /* of unknown_stack, those of ALLOC/REALLOC records */
    uint64_t alloc_raised;  /* sites whose allocated totals were raised to their in-use */
    /* The model the profile was built from when it is not the session given (a session without
     * header, replayed with defaults): reports read it. Owned. */
    struct session *replayed;
    /* Sites with allocation failures (FAIL records): the site's index in the session and its
     * locations in prof (innermost first), for the reports; not pprof samples. */
    struct built_fail {
        uint32_t site, nloc;
        uint64_t *locs;
    } *fails;
    size_t nfails, cap_fails;
};

#endif
