/* Marks in a profile's comments (marks.h, docs/VERDICTS.md "Marks"). */
#include "verdict/marks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof_model.h"
#include "session.h"
#include "verdict/growth_track.h"

void marks_write(struct prof *p, const struct prof_marks *m, const struct marks_refused *r,
                 size_t n)
{
    char line[640];
    if (m && m->known) {
        snprintf(line, sizeof(line),
                 "%smarks|complete=%d|refused=%llu|unattributed=%llu|lost=%llu|note=%s",
                 GROWTH_COMMENT, m->complete, (unsigned long long)m->refused,
                 (unsigned long long)m->unattributed, (unsigned long long)m->lost, m->note);
        prof_comment(p, line);
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(line, sizeof(line), "%srefused|sample=%u|samples=%llu|objects=%.17g|bytes=%.17g",
                 GROWTH_COMMENT, r[i].sample, (unsigned long long)r[i].samples, r[i].n, r[i].b);
        prof_comment(p, line);
    }
}

void marks_store(const struct session *s, const struct msamp_dec_stats *dec_now, int complete,
                 struct prof *p, const uint32_t *site_sample)
{
    struct session_marks sm;
    session_marks_of(s, dec_now, &sm);
    struct prof_marks m = {1, complete && !session_marks_any(&sm), sm.refused, sm.unattributed,
                           sm.ring_records + sm.reentrant + sm.frames_lost + sm.events_lost, ""};
    session_marks_text(&sm, m.note, sizeof(m.note));
    size_t n = 0, cap = 0;
    struct marks_refused *r = NULL;
    for (size_t i = 0; i < s->nsites && site_sample; i++) {
        const struct site_rare *rr = session_site_rare(s, (uint32_t)i);
        if (rr->refused == 0 || site_sample[i] == UINT32_MAX)
            continue;
        GROW(r, cap, n + 1);
        r[n++] = (struct marks_refused){site_sample[i], rr->refused, rr->refused_n, rr->refused_b};
    }
    marks_write(p, &m, r, n);
    free(r);
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

size_t marks_refused_from_prof(const struct prof *p, struct marks_refused *out, size_t max)
{
    char buf[1024];
    size_t n = 0;
    for (size_t i = 0; i < p->ncomment && n < max; i++) {
        const char *c = verdict_comment(p, i, "refused", buf, sizeof(buf));
        double idx, x, b;
        uint64_t samples;
        if (!c || verdict_num(c, "sample", &idx) || count_of(c, "samples", &samples) ||
            verdict_num(c, "objects", &x) || verdict_num(c, "bytes", &b) || !(x >= 0) ||
            !(b >= 0) || !isfinite(x) || !isfinite(b) || idx < 0 || idx >= (double)p->nsample ||
            idx != floor(idx))
            continue;
        out[n++] = (struct marks_refused){(uint32_t)idx, samples, x, b};
    }
    return n;
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
