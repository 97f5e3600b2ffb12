/*
 * The pprof builder (pprof/profile.c, prof_locs.c, prof_round.c, prof_notes.c; its types
 * pprof/built.h): turns a session (model/session.h) into a pprof profile (pprof/prof_model.h)
 * with six sample types (and the extra ones of the verdicts), symbolized locations, mappings
 * with build-ids and comments. The
 * verdicts are added by verdict/stamp.h; the text reports made from a built profile are
 * views/report.h's.
 */
#ifndef DRAIN_PROFILE_H
#define DRAIN_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "model/session.h"
#include "msamp_decode.h"
#include "pprof/built.h"

/* 1 when p's first sample types are drain's six standard ones, in their order; 1 when they are
 * followed by the variances and sample count (V_VARS): a profile with variances; 1 when
 * these are followed by the refused samples' types (V_ALL). */
int prof_std_types(const struct prof *p);
int prof_has_variances(const struct prof *p);
int prof_has_refused(const struct prof *p);

/* The model a profile was built from: b->replayed, or s. */
const struct session *built_session(const struct built *b, const struct session *s);

/* What pprof_build keeps of the profile beside its encoding (keep): nothing (the samples are
 * encoded as they are added: the profile alone), its samples (for a view of its sites,
 * verdict/vprof.h), or its samples and the per-site totals (built.agg, which the reports and
 * other views read). */
enum { BUILT_ENCODED, BUILT_SAMPLES, BUILT_AGG };
/* Builds the profile of s, without the verdicts (verdict/stamp.h's build_profile adds them). kind
 * is "final" or "partial N"; keep: BUILT_*. Returns 0, or -1 with a message in err (an ELF whose
 * build-id matches no mapping of the stream, unless elves->force). */
int pprof_build(const struct session *s, const struct elf_set *elves, const char *kind,
                const struct msamp_dec_stats *dec_now, int keep, struct built *out, char *err,
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
