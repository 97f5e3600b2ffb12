/*
 * A session's profile with its verdicts: the pprof builder's profile (pprof/profile.c), then the
 * verdicts of the session (verdict/) stored in it as comments (pprof/vcomment.h's codec).
 */
#include "verdict/stamp.h"

#include <stdlib.h>
#include <string.h>

#include "verdict/clock.h"
#include "verdict/ended.h"
#include "verdict/exhaust.h"
#include "verdict/growth.h"
#include "verdict/marks.h"
#include "verdict/unseen.h"

/* The growth verdicts of s and its time to exhaustion (driven by the leaks), written into p. */
static void growth_store(const struct session *s, struct prof *p, const uint32_t *site_sample)
{
    struct growth_peak pk;
    int have = growth_peak_of(s, &pk);
    struct growth_leak *lk;
    struct growth_step *st;
    struct growth_window win;
    size_t nst, n = growth_leaks_of(s, site_sample, &lk, &st, &nst, &win);
    n = growth_one_per_stack(p, lk, n, st, nst, &nst);
    growth_write(p, have ? &pk : NULL, lk, n);
    growth_write_steps(p, st, nst);
    struct exhaustion ex;
    exhaust_of(s, p, lk, n, &win, site_sample, &ex);
    exhaust_write(p, &ex);
    free(lk);
    free(st);
}

void verdicts_store(const struct session *s, const char *kind,
                    const struct msamp_dec_stats *dec_now, struct built *b)
{
    struct prof *p = &b->prof;
    growth_store(s, p, b->site_prof);
    if (s->interval_max)
        unseen_write(p, (double)s->interval_max);
    char text[512];
    int complete = session_completeness(s, strncmp(kind, "partial", 7) != 0, text, sizeof(text));
    marks_store(s, dec_now, complete, p);
    clock_store(s, p);
    ended_store(s, kind, p);
}

int build_profile(const struct session *s, const struct elf_set *elves, const char *kind,
                  const struct msamp_dec_stats *dec_now, int keep, struct built *out, char *err,
                  size_t errlen)
{
    int rc = pprof_build(s, elves, kind, dec_now, keep, out, err, errlen);
    if (rc == 0)
        verdicts_store(built_session(out, s), kind, dec_now, out);
    return rc;
}
