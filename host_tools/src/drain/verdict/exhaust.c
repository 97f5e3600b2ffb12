/*
 * Time to exhaustion (exhaust.h, docs/VERDICTS.md "Time to exhaustion"): made where the profile is
 * built, from the session's heap model (model/heap.c) and its growth verdicts (growth.c), and
 * stored as "msamp-verdict exhaustion|free=F|at_s=A|rate=R|var=V|basis=B|driver=I|t=T|lo=L|hi=H"
 * or "msamp-verdict exhaustion|known=0|why=W".
 *
 * The rate. Where the session has leaks by growth, their slopes summed: each an unbiased estimate
 * of its site's growth over the session's recent half, their variances summed (independent
 * samples); sites that levelled off (a cache, a pool) or grew in one batch (a step) are not the
 * present growth and stay out; the fastest names the driver. Without a leak, the session's sampled
 * in-use trend over that window (every followed site's change summed, its variance theirs): its
 * interval bounds the growth a leak too slow to be judged one may have. Not the allocator's own
 * use trend (total - free from the HEAP records): exact figures, but as few points as the device
 * polls, and its scatter is the program's churn, which no variance of drain's accounts for; the
 * sampled estimates' variance is known, and calibrated (docs/VERDICTS.md "Calibration").
 *
 * The allocator's bytes. The slopes are in requested bytes, the free bytes the allocator's, which
 * takes more for each block (a header, rounding): a demo's 48-byte leak takes 64 bytes of its heap,
 * a forecast a third too long on requested bytes. The bytes a block takes beyond those asked, c,
 * the heap's average, from the last HEAP record's use A = total - free (exact) and the live set's
 * sampled bytes R and blocks N at the end: c = (A - R) / N (0 where negative: the estimates'
 * noise; no allocator takes fewer). A leak whose live blocks are of mean size m (its site's
 * estimate, sum s w / sum w) then grows the allocator's use by slope (1 + c / m); without a leak
 * the trend by (1 + c / (R / N)) = A / R, the heap's own ratio. c's variance is its linearization's
 * over the live sample, sum over the live entries of (s + c)^2 (w^2 - w), over N^2, one error
 * common to every leak's; the slope's and c's errors are taken as independent (where the leak's
 * blocks are most of the live set they are negatively correlated: more of its blocks sampled
 * raises the slope and lowers c), m as known (exact for a site of one size).
 */
#include "verdict/exhaust.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/heap.h"
#include "model/session.h"
#include "pprof/prof_model.h"
#include "pprof/vcomment.h"
#include "verdict/growth.h"
#include "verdict/vjson.h"

#define Z95 1.959963984540054

void exhaust_times(double free_b, struct est rate, double *t, double *lo, double *hi)
{
    double sd = rate.var > 0 ? sqrt(rate.var) : 0, up = rate.est + Z95 * sd,
           down = rate.est - Z95 * sd;
    *t = rate.est > 0 ? free_b / rate.est : INFINITY;
    *lo = up > 0 ? free_b / up : INFINITY;
    *hi = down > 0 ? free_b / down : INFINITY;
}

int exhaust_running_out(const struct exhaustion *e)
{
    return e->known && isfinite(e->hi);
}

#define KNOWS(p, bit) (((p)->valid & (bit)) != 0)

/* The live entries' sampled bytes and blocks (of site sample `of`'s sites, or all with
 * UINT32_MAX), and the sums q0, q1, q2 of (w^2 - w), s (w^2 - w) and s^2 (w^2 - w): the variance at
 * any overhead c, sum of (s + c)^2 (w^2 - w), is q2 + 2 c q1 + c^2 q0. */
struct live_sums {
    double bytes, blocks, q0, q1, q2;
};

static void live_sum(const struct session *s, const uint32_t *site_sample, uint32_t of,
                     struct live_sums *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < s->nlive; i++) {
        const struct slot *sl = &s->slots[s->live[i]];
        if (of != UINT32_MAX && (sl->site >= s->nsites || site_sample[sl->site] != of))
            continue;
        double sz = (double)sl->size, q = sl->w > 1 ? sl->w * sl->w - sl->w : 0;
        out->bytes += sz * sl->w;
        out->blocks += sl->w;
        out->q0 += q;
        out->q1 += sz * q;
        out->q2 += sz * sz * q;
    }
}

/* The allocator's bytes per block beyond those asked: c and its variance (above), and the live
 * set's mean block size; 0 where unknown (no total in the HEAP record, no live entry). */
static int overhead_of(const struct session *s, const struct heap_model *h, struct est *c,
                       double *mean)
{
    struct live_sums l;
    if (!KNOWS(&h->last, MSAMP_WIRE_HEAP_TOTAL) || h->last.total < h->last.free)
        return 0;
    live_sum(s, NULL, UINT32_MAX, &l);
    if (!(l.blocks > 0) || !(l.bytes > 0))
        return 0;
    double used = (double)(h->last.total - h->last.free), x = (used - l.bytes) / l.blocks;
    c->est = x > 0 ? x : 0;
    c->var = (l.q2 + 2 * c->est * l.q1 + c->est * c->est * l.q0) / (l.blocks * l.blocks);
    *mean = l.bytes / l.blocks;
    return 1;
}

void exhaust_of(const struct session *s, const struct prof *p, const struct growth_leak *lk,
                size_t n, const struct growth_window *win, const uint32_t *site_sample,
                struct exhaustion *out)
{
    (void)p;
    memset(out, 0, sizeof(*out));
    out->driver = UINT32_MAX;
    const struct heap_model *h = s->heap;
    if (!h || !h->records || !KNOWS(&h->last, MSAMP_WIRE_HEAP_FREE)) {
        snprintf(out->why, sizeof(out->why), "no HEAP record with the allocator's free bytes "
                                             "(docs/HEALTH.md)");
        return;
    }
    if (!s->ts_known || !s->tick_hz || !h->last.ts_known) {
        snprintf(out->why, sizeof(out->why), "no device time: growth not judged");
        return;
    }
    if (!win->known || !(win->secs > 0)) {
        snprintf(out->why, sizeof(out->why), "the session too short to judge growth");
        return;
    }
    /* The free bytes are the room left only where the heap's total held still over the window
     * the rate is judged on: a heap that grows (glibc's by sbrk, newlib's without its end) has
     * room beyond them that its figures do not tell. */
    for (size_t i = 0; i < h->n; i++) {
        const struct heap_point *q = &h->pts[i];
        if (q->ts_known && q->ts >= win->from_ts && KNOWS(q, MSAMP_WIRE_HEAP_TOTAL) &&
            KNOWS(&h->last, MSAMP_WIRE_HEAP_TOTAL) && q->total != h->last.total) {
            snprintf(out->why, sizeof(out->why),
                     "the allocator's total changed over the growth window (a heap that grows: "
                     "its room beyond its free bytes unknown)");
            return;
        }
    }
    out->known = 1;
    out->free_b = (double)h->last.free;
    out->at_s = session_time_s(s, h->last.ts, h->last.ts_known);
    struct est c = {0, 0};
    double mean = 0, per_c = 0; /* the rate's derivative in c: sum of slope / m */
    int ovh = overhead_of(s, h, &c, &mean);
    out->overhead = c;
    if (n) {
        out->basis = EX_LEAKS;
        size_t fast = 0;
        double most = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            struct est r = lk[i].slope_bytes_per_s;
            double m = mean;
            if (ovh && site_sample) {
                struct live_sums l;
                live_sum(s, site_sample, lk[i].sample, &l);
                if (l.blocks > 0 && l.bytes > 0)
                    m = l.bytes / l.blocks;
            }
            double k = ovh ? 1 + c.est / m : 1;
            out->rate.est += r.est * k;
            out->rate.var += r.var * k * k;
            per_c += ovh ? r.est / m : 0;
            if (r.est * k > most) {
                most = r.est * k;
                fast = i;
            }
        }
        out->driver = lk[fast].sample;
    } else {
        out->basis = EX_TOTAL;
        double k = ovh ? 1 + c.est / mean : 1, r = win->total.est / win->secs;
        out->rate = (struct est){r * k, win->total.var / (win->secs * win->secs) * k * k};
        per_c = ovh ? r / mean : 0;
    }
    out->rate.var += c.var * per_c * per_c;
    exhaust_times(out->free_b, out->rate, &out->t, &out->lo, &out->hi);
    /* Without a leak the heap is not judged running out (growth is a leak's at its own level,
     * docs/VERDICTS.md "Leaks by growth"): no estimate, the bound of its trend's upper end. */
    if (out->basis == EX_TOTAL)
        out->t = out->hi = INFINITY;
}

static const char *const basis_name[] = {"leaks", "total"};

void exhaust_write(struct prof *p, const struct exhaustion *e)
{
    char line[512];
    if (!e->known)
        snprintf(line, sizeof(line), "%sexhaustion|known=0|why=%s", GROWTH_COMMENT, e->why);
    else
        snprintf(line, sizeof(line),
                 "%sexhaustion|known=1|free=%.17g|at_s=%.9g|rate=%.17g|var=%.17g|ovh=%.17g|"
                 "ovh_var=%.17g|basis=%s|driver=%lld|t=%.9g|lo=%.9g|hi=%.9g",
                 GROWTH_COMMENT, e->free_b, e->at_s, e->rate.est, e->rate.var, e->overhead.est,
                 e->overhead.var,
                 basis_name[e->basis], e->driver == UINT32_MAX ? -1LL : (long long)e->driver,
                 e->t, e->lo, e->hi);
    prof_comment(p, line);
}

int exhaust_parse(const char *c, size_t nsample, struct exhaustion *out)
{
    memset(out, 0, sizeof(*out));
    out->driver = UINT32_MAX;
    char basis[16];
    double known, drv;
    if (verdict_num(c, "known", &known))
        return 0;
    if (known == 0) {
        if (!verdict_field(c, "why", out->why, sizeof(out->why), 1))
            snprintf(out->why, sizeof(out->why), "(no reason stored)");
        return 1;
    }
    if (verdict_num(c, "free", &out->free_b) || verdict_num(c, "at_s", &out->at_s) ||
        verdict_num(c, "rate", &out->rate.est) || verdict_num(c, "var", &out->rate.var) ||
        verdict_num(c, "driver", &drv) || verdict_num(c, "t", &out->t) ||
        verdict_num(c, "lo", &out->lo) || verdict_num(c, "hi", &out->hi) ||
        !verdict_field(c, "basis", basis, sizeof(basis), 0) || out->rate.var < 0 ||
        out->free_b < 0)
        return 0;
    /* The allocator's bytes a block beyond those asked: absent from a drain before it (0) */
    if (verdict_num(c, "ovh", &out->overhead.est) || verdict_num(c, "ovh_var", &out->overhead.var))
        out->overhead = (struct est){0, 0};
    out->basis = strcmp(basis, "total") == 0 ? EX_TOTAL : EX_LEAKS;
    out->driver = drv >= 0 && drv < (double)nsample && drv == floor(drv) ? (uint32_t)drv
                                                                          : UINT32_MAX;
    out->known = 1;
    return 1;
}

int exhaust_from_prof(const struct prof *p, struct exhaustion *out)
{
    char buf[1024];
    for (size_t i = 0; i < p->ncomment; i++) {
        const char *c = verdict_comment(p, i, "exhaustion", buf, sizeof(buf));
        if (c && exhaust_parse(c, p->nsample, out))
            return 1;
    }
    memset(out, 0, sizeof(*out));
    out->driver = UINT32_MAX;
    return 0;
}

int exhaust_json(FILE *f, const struct exhaustion *e)
{
    if (!e->known) {
        fputs("{\"known\": false, \"why\": ", f);
        json_str(f, e->why);
        fputc('}', f);
        return 0;
    }
    int out = exhaust_running_out(e);
    fprintf(f, "{\"known\": true, \"running_out\": %s, \"seconds\": ", out ? "true" : "false");
    json_num(f, out ? e->t : NAN);
    fputs(", \"lo\": ", f);
    json_num(f, e->lo);
    fputs(", \"hi\": ", f);
    json_num(f, e->hi);
    fputs(", \"not_running_out_within\": ", f);
    json_num(f, out ? NAN : e->lo);
    fputs(", \"free_bytes\": ", f);
    json_num(f, e->free_b);
    return 1;
}

void fmt_secs(char *out, size_t n, double s)
{
    if (!isfinite(s))
        snprintf(out, n, "never");
    else if (s >= 2 * 86400.0)
        snprintf(out, n, "%.3g d", s / 86400);
    else if (s >= 2 * 3600.0)
        snprintf(out, n, "%.3g h", s / 3600);
    else if (s >= 2 * 60.0)
        snprintf(out, n, "%.3g min", s / 60);
    else
        snprintf(out, n, "%.3g s", s);
}
