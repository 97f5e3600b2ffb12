/* How a session ended, in its profile (ended.h, docs/DRAIN.md "How a session ended"). */
#include "verdict/ended.h"

#include <math.h>
#include <string.h>

#include "model/session.h"
#include "pprof/prof_model.h"
#include "pprof/vcomment.h"
#include "verdict/vjson.h"

static const char *const kinds[ENDED_KINDS] = {"end", "reset", "cut", "unknown"};

void ended_store(const struct session *s, const char *kind, struct prof *p)
{
    const char *how = session_ended(s);
    if (!how || strncmp(kind, "partial", 7) == 0)
        return;
    char line[128];
    if (strcmp(how, "reset") == 0)
        snprintf(line, sizeof(line), "%sended|how=reset|at_s=%.9g|cause=%s", GROWTH_COMMENT,
                 session_time_s(s, s->reset_ts, s->reset_ts_valid), session_reset_cause(s));
    else
        snprintf(line, sizeof(line), "%sended|how=%s", GROWTH_COMMENT, how);
    prof_comment(p, line);
}

void ended_from_prof(const struct prof *p, struct ended *e)
{
    memset(e, 0, sizeof(*e));
    e->reset_at_s = -1;
    char buf[256], how[16];
    for (size_t i = 0; i < p->ncomment; i++) {
        const char *c = verdict_comment(p, i, "ended", buf, sizeof(buf));
        if (!c || !verdict_field(c, "how", how, sizeof(how), 0))
            continue;
        int k = 0;
        while (k < ENDED_KINDS && strcmp(how, kinds[k]) != 0)
            k++;
        if (k == ENDED_KINDS)
            continue;
        e->has[k] = 1;
        if (k != 1)
            continue;
        double n;
        e->resets += verdict_num(c, "resets", &n) == 0 && n >= 1 ? (unsigned long)n : 1;
        if (verdict_num(c, "at_s", &e->reset_at_s) != 0 || e->reset_at_s < 0)
            e->reset_at_s = -1;
        if (!verdict_field(c, "cause", e->cause, sizeof(e->cause), 0))
            snprintf(e->cause, sizeof(e->cause), "unknown");
    }
    int n = 0;
    for (int k = 0; k < ENDED_KINDS; k++)
        if (e->has[k]) {
            n++;
            e->how = kinds[k];
        }
    e->known = n > 0;
    if (n > 1)
        e->how = "mixed";
}

void ended_merge_add(struct ended_merge *m, const struct prof *src)
{
    struct ended e;
    ended_from_prof(src, &e);
    m->inputs++;
    if (!e.known) {
        m->has[3] = 1;
        return;
    }
    for (int k = 0; k < ENDED_KINDS; k++)
        m->has[k] |= e.has[k];
    if (!e.resets)
        return;
    char line[128];
    if (e.resets == 1)
        snprintf(line, sizeof(line), "%sended|how=reset|at_s=%.9g|cause=%s", GROWTH_COMMENT,
                 e.reset_at_s, e.cause);
    else
        line[0] = 0;
    if (m->resets == 0)
        snprintf(m->reset_line, sizeof(m->reset_line), "%s", line);
    else if (strcmp(m->reset_line, line) != 0)
        m->reset_line[0] = 0;
    m->resets += e.resets;
}

void ended_merge_write(const struct ended_merge *m, struct prof *out)
{
    int any = m->has[0] || m->has[1] || m->has[2];
    for (int k = 0; k < ENDED_KINDS && any; k++) {
        char line[128];
        if (!m->has[k])
            continue;
        if (k == 1 && m->reset_line[0])
            snprintf(line, sizeof(line), "%s", m->reset_line);
        else if (k == 1)
            snprintf(line, sizeof(line), "%sended|how=reset|resets=%lu", GROWTH_COMMENT,
                     m->resets);
        else
            snprintf(line, sizeof(line), "%sended|how=%s", GROWTH_COMMENT, kinds[k]);
        prof_comment(out, line);
    }
}

void ended_list(const struct ended *e, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (int k = 0; k < ENDED_KINDS && len < n; k++)
        if (e->has[k])
            len += (size_t)snprintf(out + len, n - len, "%s%s", len ? ", " : "", kinds[k]);
}

void ended_json(FILE *f, const struct ended *e)
{
    fputs(", \"ended\": ", f);
    json_str(f, e->how);
    if (e->known && strcmp(e->how, "mixed") == 0) {
        fputs(", \"endings\": [", f);
        for (int k = 0, first = 1; k < ENDED_KINDS; k++)
            if (e->has[k]) {
                fprintf(f, "%s\"%s\"", first ? "" : ", ", kinds[k]);
                first = 0;
            }
        fputc(']', f);
    }
    if (e->resets == 1) {
        fputs(", \"reset\": {\"at_s\": ", f);
        json_num(f, e->reset_at_s >= 0 ? e->reset_at_s : NAN);
        fputs(", \"cause\": ", f);
        json_str(f, e->cause);
        fputc('}', f);
    }
}
