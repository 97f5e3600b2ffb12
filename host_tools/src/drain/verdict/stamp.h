/*
 * A session's profile with its verdicts (verdict/stamp.c): pprof/profile.h's builder, then every
 * verdict made from the session stored in the profile as comments (the growth verdicts and the
 * time to exhaustion, the unseen bound, the marks, the clock, how the session ended), in that
 * order. What drain writes and reads is this profile.
 */
#ifndef DRAIN_STAMP_H
#define DRAIN_STAMP_H

#include <stddef.h>

#include "model/session.h"
#include "msamp_decode.h"
#include "pprof/profile.h"

/* pprof_build of s, then its verdicts (kind: "final" or "partial N", as pprof_build's). Returns
 * 0, or -1 with a message in err, as pprof_build. */
int build_profile(const struct session *s, const struct elf_set *elves, const char *kind,
                  const struct msamp_dec_stats *dec_now, int keep, struct built *out, char *err,
                  size_t errlen);
/* Stores the verdicts of s (the model b was built from: built_session) in b's profile. */
void verdicts_store(const struct session *s, const char *kind,
                    const struct msamp_dec_stats *dec_now, struct built *b);

#endif
