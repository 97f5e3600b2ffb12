/*
 * The pprof builder (pprof/profile.c, prof_locs.c, prof_notes.c): turns a session
 * (model/session.h) into a pprof profile (pprof/prof_model.h) with six sample types (and the
 * extra ones of the verdicts), symbolized locations, mappings with build-ids and comments. The
 * verdicts are added by verdict/stamp.h; the text reports made from a built profile are
 * views/report.h's.
 */
#ifndef DRAIN_PROFILE_H
#define DRAIN_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "msamp_decode.h"
#include "pprof/prof_model.h"
#include "model/session.h"
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

/* 1 when p's first sample types are drain's six standard ones, in their order; 1 when they are
 * followed by the variances and sample count (V_VARS): a profile with variances; 1 when
 * these are followed by the refused samples' types (V_ALL). */
int prof_std_types(const struct prof *p);
int prof_has_variances(const struct prof *p);
int prof_has_refused(const struct prof *p);

/* The model a profile was built from: b->replayed, or s. */
const struct session *built_session(const struct built *b, const struct session *s);

/* Builds the profile of s, without the verdicts (verdict/stamp.h's build_profile adds them). kind
 * is "final" or "partial N"; agg: the per-site totals too (built.agg, which the reports and views
 * read). Returns 0, or -1 with a message in err (an ELF whose build-id matches no mapping of the
 * stream, unless elves->force). */
int pprof_build(const struct session *s, const struct elf_set *elves, const char *kind,
                const struct msamp_dec_stats *dec_now, int agg, struct built *out, char *err,
                size_t errlen);
void built_free(struct built *b);
/* The in-use profile at the peak of the session's in-use estimate (docs/DRAIN.md "Peak"): sample
 * types inuse_objects and inuse_space, the comments tell the peak's time and size. */
int build_peak_profile(const struct session *s, const struct elf_set *elves,
                       const struct msamp_dec_stats *dec_now, struct built *out, char *err,
                       size_t errlen);

/* The ELF check of build_profile alone: 0, or -1 with the message (an ELF matches no mapping). */
int check_elves(const struct session *s, const struct elf_set *elves, char *err, size_t errlen);

#endif
