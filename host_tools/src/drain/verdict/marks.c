/* The session's marks in a profile's comment (marks.h, docs/VERDICTS.md "Marks"). */
#include "verdict/marks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof/profile.h"
#include "pprof/prof_model.h"
#include "pprof/vcomment.h"

void marks_write(struct prof *p, const struct prof_marks *m)
{
    char line[640];
    if (m && m->known) {
        snprintf(line, sizeof(line),
                 "%smarks|complete=%d|refused=%llu|unattributed=%llu|lost=%llu|note=%s",
                 GROWTH_COMMENT, m->complete, (unsigned long long)m->refused,
                 (unsigned long long)m->unattributed, (unsigned long long)m->lost, m->note);
        prof_comment(p, line);
    }
}

void marks_store(const struct session *s, const struct msamp_dec_stats *dec_now, int complete,
                 struct prof *p)
{
    struct session_marks sm;
    session_marks_of(s, dec_now, &sm);
    struct prof_marks m = {1, complete && !session_marks_any(&sm), sm.refused, sm.unattributed,
                           sm.ring_records + sm.reentrant + sm.frames_lost + sm.events_lost, ""};
    session_marks_text(&sm, m.note, sizeof(m.note));
    marks_write(p, &m);
}

static int count_of(const char *c, const char *key, uint64_t *v)
{
    double x;
    if (verdict_num(c, key, &x) || x < 0 || x > 1.8e19 || x != floor(x))
        return -1;
    *v = (uint64_t)x;
    return 0;
}

int marks_from_prof(const struct prof *p, struct prof_marks *out)
{
    memset(out, 0, sizeof(*out));
    char buf[1024];
    for (size_t i = 0; i < p->ncomment; i++) {
        const char *c = verdict_comment(p, i, "marks", buf, sizeof(buf));
        uint64_t complete;
        if (!c || count_of(c, "complete", &complete) || complete > 1 ||
            count_of(c, "refused", &out->refused) ||
            count_of(c, "unattributed", &out->unattributed) || count_of(c, "lost", &out->lost))
            continue;
        out->known = 1;
        out->complete = (int)complete;
        if (!verdict_field(c, "note", out->note, sizeof(out->note), 1))
            out->note[0] = 0;
        return 1;
    }
    memset(out, 0, sizeof(*out));
    return 0;
}

double marks_refused_bytes(const struct prof *p, uint64_t *samples)
{
    double b = 0;
    uint64_t n = 0;
    int has = prof_has_refused(p);
    for (size_t i = 0; has && i < p->nsample; i++) {
        const struct prof_sample *s = &p->sample[i];
        if (s->nloc == PROF_SAMPLE_ENCODED)
            continue; /* kept encoded: only the writer reads it */
        const int64_t *v = &p->valpool[s->val_off];
        b += v[V_REF_B] > 0 ? (double)v[V_REF_B] : 0;
        n += v[V_REF_SAMPLES] > 0 ? (uint64_t)v[V_REF_SAMPLES] : 0;
    }
    if (samples)
        *samples = n;
    return b;
}

int marks_sites(const struct prof_marks *m)
{
    return m->unattributed || m->lost;
}

int marks_totals(const struct prof_marks *m)
{
    return m->lost != 0;
}

int marks_any(const struct prof_marks *m)
{
    return m->refused || m->unattributed || m->lost;
}

int marks_peak(const struct prof_marks *m)
{
    return m->refused || m->lost;
}
