/*
 * The verdicts' comments in a profile (docs/VERDICTS.md "In the profile", "One verdict model"):
 * "msamp-verdict KIND|key=value|..." written where a profile is built (growth_store, marks_store,
 * unseen) and read back by every view, check, diff, merge and the fleet store: the one place the
 * verdicts of a session live once it is a profile. They are made by verdict/ (growth.c, marks.c,
 * ...) from the session's model; this codec sits with the pprof model it writes into.
 */
#include "pprof/vcomment.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof/prof_model.h"
#include "util.h"

/* The comments: "msamp-verdict peak|est=E|var=V|at_s=T|known=K|method=M|note=N" and
 * "msamp-verdict leak|sample=I|slope=E|var=V|since_s=T" (docs/VERDICTS.md). */
void growth_write(struct prof *p, const struct growth_peak *pk, const struct growth_leak *lk,
                  size_t n)
{
    char line[512];
    if (pk) {
        snprintf(line, sizeof(line),
                 "%speak|est=%.17g|var=%.17g|at_s=%.9g|known=%d|method=%s|note=%s",
                 GROWTH_COMMENT, pk->inuse_bytes.est, pk->inuse_bytes.var, pk->at_s, pk->known,
                 pk->method, pk->note);
        prof_comment(p, line);
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(line, sizeof(line), "%sleak|sample=%u|slope=%.17g|var=%.17g|since_s=%.9g",
                 GROWTH_COMMENT, lk[i].sample, lk[i].slope_bytes_per_s.est,
                 lk[i].slope_bytes_per_s.var, lk[i].since_s);
        prof_comment(p, line);
    }
}

/* "msamp-verdict step|sample=I|bytes=E|var=V|from_s=A|to_s=B" (docs/VERDICTS.md). */
void growth_write_steps(struct prof *p, const struct growth_step *st, size_t n)
{
    char line[512];
    for (size_t i = 0; i < n; i++) {
        snprintf(line, sizeof(line), "%sstep|sample=%u|bytes=%.17g|var=%.17g|from_s=%.9g|to_s=%.9g",
                 GROWTH_COMMENT, st[i].sample, st[i].bytes.est, st[i].bytes.var, st[i].from_s,
                 st[i].to_s);
        prof_comment(p, line);
    }
}

/* The value of "|key=" in the comment c (NULL when absent): up to the next '|' (the note: the
 * rest). */
const char *verdict_field(const char *c, const char *key, char *out, size_t n, int rest)
{
    char pat[32];
    snprintf(pat, sizeof(pat), "|%s=", key);
    const char *f = strstr(c, pat);
    if (!f)
        return NULL;
    f += strlen(pat);
    size_t len = rest ? strlen(f) : strcspn(f, "|");
    if (len >= n)
        len = n - 1;
    memcpy(out, f, len);
    out[len] = 0;
    return out;
}

int verdict_num(const char *c, const char *key, double *v)
{
    char buf[64], *end;
    if (!verdict_field(c, key, buf, sizeof(buf), 0))
        return -1;
    *v = strtod(buf, &end);
    return end != buf && *end == 0 && !isnan(*v) ? 0 : -1;
}

/* Comment i of p as a C string in buf, or NULL when it is not a verdict of this kind. */
const char *verdict_comment(const struct prof *p, size_t i, const char *kind, char *buf, size_t n)
{
    int64_t c = p->comment[i];
    if (c < 0 || (size_t)c >= p->nstr)
        return NULL;
    size_t len = p->strlen[c];
    size_t pl = strlen(GROWTH_COMMENT), kl = strlen(kind);
    if (len >= n || len < pl + kl || memcmp(p->str[c], GROWTH_COMMENT, pl) ||
        memcmp(p->str[c] + pl, kind, kl) || p->str[c][pl + kl] != '|')
        return NULL;
    memcpy(buf, p->str[c], len);
    buf[len] = 0;
    if (memchr(buf, 0, len))
        return NULL;
    return buf;
}

int growth_peak_from_prof(const struct prof *p, struct growth_peak *out)
{
    memset(out, 0, sizeof(*out));
    char buf[1024];
    for (size_t i = 0; i < p->ncomment; i++) {
        const char *c = verdict_comment(p, i, "peak", buf, sizeof(buf));
        double e, v, at, kn;
        if (!c || verdict_num(c, "est", &e) || verdict_num(c, "var", &v) ||
            verdict_num(c, "at_s", &at) || verdict_num(c, "known", &kn) || v < 0)
            continue;
        out->inuse_bytes = (struct est){e, v};
        out->at_s = at;
        out->known = kn != 0;
        if (!verdict_field(c, "method", out->method, sizeof(out->method), 0))
            out->method[0] = 0;
        if (!verdict_field(c, "note", out->note, sizeof(out->note), 1))
            out->note[0] = 0;
        return 1;
    }
    return 0;
}

size_t growth_leaks_from_prof(const struct prof *p, struct growth_leak *out, size_t max)
{
    char buf[1024];
    size_t n = 0;
    for (size_t i = 0; i < p->ncomment && n < max; i++) {
        const char *c = verdict_comment(p, i, "leak", buf, sizeof(buf));
        double idx, e, v, since;
        if (!c || verdict_num(c, "sample", &idx) || verdict_num(c, "slope", &e) ||
            verdict_num(c, "var", &v) || verdict_num(c, "since_s", &since) || v < 0 || idx < 0 ||
            idx >= (double)p->nsample || idx != floor(idx))
            continue;
        out[n++] = (struct growth_leak){(uint32_t)idx, {e, v}, since};
    }
    return n;
}

size_t growth_steps_from_prof(const struct prof *p, struct growth_step *out, size_t max)
{
    char buf[1024];
    size_t n = 0;
    for (size_t i = 0; i < p->ncomment && n < max; i++) {
        const char *c = verdict_comment(p, i, "step", buf, sizeof(buf));
        double idx, e, v, from, to;
        if (!c || verdict_num(c, "sample", &idx) || verdict_num(c, "bytes", &e) ||
            verdict_num(c, "var", &v) || verdict_num(c, "from_s", &from) ||
            verdict_num(c, "to_s", &to) || v < 0 || idx < 0 || idx >= (double)p->nsample ||
            idx != floor(idx))
            continue;
        out[n++] = (struct growth_step){(uint32_t)idx, {e, v}, from, to};
    }
    return n;
}

void growth_leak_fold(struct growth_leak *a, const struct growth_leak *b)
{
    a->slope_bytes_per_s.est += b->slope_bytes_per_s.est;
    a->slope_bytes_per_s.var += b->slope_bytes_per_s.var;
    a->since_s = b->since_s < a->since_s ? b->since_s : a->since_s;
}

void growth_step_fold(struct growth_step *a, const struct growth_step *b)
{
    a->bytes.est += b->bytes.est;
    a->bytes.var += b->bytes.var;
    a->from_s = b->from_s < a->from_s ? b->from_s : a->from_s;
    a->to_s = b->to_s > a->to_s ? b->to_s : a->to_s;
}
