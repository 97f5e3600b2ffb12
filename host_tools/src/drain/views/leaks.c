/* --leaks (docs/DRAIN.md "Reports", docs/VERDICTS.md "Leaks by growth"): the leaks by growth and
 * the steps a profile stores, in text; the heap's verdict (views/health.c) names its leaks with the
 * same line; the peak's one line (--top and stderr). The verdicts are verdict/growth.c's, read
 * from the profile's comments (pprof/vcomment.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "verdict/exhaust.h"
#include "verdict/growth.h"
#include "verdict/marks.h"
#include "views/leaks.h"
#include "views/site_name.h"
#include "model/est.h"
#include "util.h"

/* Sample si of p's frames, as --top names a site. */
static void sample_text(const struct prof *p, uint32_t si, char *out, size_t n)
{
    const struct prof_sample *smp = &p->sample[si];
    report_frames(p, p->locpool + smp->loc_off, smp->nloc, out, n);
}

/* "+E [LO, HI]" of e (95 %), each with unit u ("/s" for a rate, "" for bytes). */
static void est_text(struct est e, const char *u, char *out, size_t n)
{
    char a[32], lo[32], hi[32];
    fmt_bytes(a, sizeof(a), e.est);
    fmt_bytes(lo, sizeof(lo), est_sym_lo(e));
    fmt_bytes(hi, sizeof(hi), est_sym_hi(e));
    snprintf(out, n, "%s%s%s [%s%s, %s%s]", e.est >= 0 ? "+" : "", a, u, lo, u, hi, u);
}

void leaks_line(FILE *f, const struct prof *p, const struct growth_leak *lk, const char *lead)
{
    char e[128], site[512];
    est_text(lk->slope_bytes_per_s, "/s", e, sizeof(e));
    sample_text(p, lk->sample, site, sizeof(site));
    fprintf(f, "%s%s since %.3f s  %s\n", lead, e, lk->since_s, site);
}

void growth_print_leaks(FILE *f, const struct prof *p)
{
    size_t cap = p->ncomment + 1;
    struct growth_leak *lk = xmalloc(cap * sizeof(*lk));
    size_t n = growth_leaks_from_prof(p, lk, cap);
    fprintf(f, "leaks by growth (in-use still growing through the session's recent half, not in "
               "one batch; slope with its 95 %% interval; docs/VERDICTS.md):\n");
    for (size_t i = 0; i < n; i++)
        leaks_line(f, p, &lk[i], "  ");
    if (n == 0)
        fprintf(f, "  (none)\n");
    free(lk);
    struct growth_step *st = xmalloc(cap * sizeof(*st));
    n = growth_steps_from_prof(p, st, cap);
    if (n)
        fprintf(f, "steps, not leaks (in-use grew over the recent half in one part of it: one "
                   "batch, then flat; bytes with their 95 %% interval, when):\n");
    for (size_t i = 0; i < n; i++) {
        char e[128], site[512];
        est_text(st[i].bytes, "", e, sizeof(e));
        sample_text(p, st[i].sample, site, sizeof(site));
        fprintf(f, "  step %s at %.3f..%.3f s  %s\n", e, st[i].from_s, st[i].to_s, site);
    }
    free(st);
}

int growth_peak_text(const struct prof *p, char *out, size_t n)
{
    struct growth_peak pk;
    double lo, hi;
    int marked;
    if (!growth_peak_interval(p, &pk, &lo, &hi, &marked))
        return 0;
    size_t len;
    if (pk.known)
        len = (size_t)snprintf(out, n, "peak in use: %s%.0f bytes [%.0f, %.0f] (95 %%)",
                               marked ? ">=" : "", pk.inuse_bytes.est, lo, hi);
    else
        len = (size_t)snprintf(out, n, "peak in use: not placed, [%.0f, %.0f] bytes (95 %%)", lo,
                               hi);
    if (pk.known && pk.at_s >= 0 && len < n)
        len += (size_t)snprintf(out + len, n - len, " at %.3f s", pk.at_s);
    struct prof_marks m;
    marks_from_prof(p, &m);
    if (len < n)
        snprintf(out + len, n - len, "; %s; %s%s%s", pk.method, pk.note,
                 marked ? "; a lower bound: " : "", marked ? m.note : "");
    return 1;
}

void growth_print_peak(FILE *f, const struct prof *p)
{
    char line[1024];
    if (growth_peak_text(p, line, sizeof(line)))
        fprintf(f, "%s\n", line);
}

int exhaust_text(const struct prof *p, char *out, size_t n)
{
    struct exhaustion e;
    if (!exhaust_from_prof(p, &e))
        return 0;
    char t[32], lo[32], hi[32], fr[32], site[512] = "";
    if (!e.known) {
        snprintf(out, n, "time to exhaustion unknown: %s", e.why);
        return 1;
    }
    fmt_secs(t, sizeof(t), e.t);
    fmt_secs(lo, sizeof(lo), e.lo);
    fmt_secs(hi, sizeof(hi), e.hi);
    fmt_bytes(fr, sizeof(fr), e.free_b);
    /* A profile built only to be written holds its samples encoded, without their frames: the
     * driver is then named as --leaks' fastest. */
    if (e.driver != UINT32_MAX && p->sample[e.driver].nloc == PROF_SAMPLE_ENCODED)
        snprintf(site, sizeof(site), "the fastest leak (--leaks)");
    else if (e.driver != UINT32_MAX)
        sample_text(p, e.driver, site, sizeof(site));
    size_t len;
    if (exhaust_running_out(&e))
        len = (size_t)snprintf(out, n, "heap runs out in %s [%s, %s] (95 %%) at the present "
                                       "growth", t, lo, hi);
    else if (isfinite(e.lo))
        len = (size_t)snprintf(out, n, "heap not running out within %s (95 %%) at the present "
                                       "growth (%s)", lo,
                               est_sym_lo(e.rate) <= 0 ? "its interval includes 0"
                                                       : "no leak by growth: the in-use trend's "
                                                         "upper end");
    else
        len = (size_t)snprintf(out, n, "heap not running out: in use not growing (its growth's "
                                       "95 %% interval at or below 0)");
    if (len < n && site[0])
        len += (size_t)snprintf(out + len, n - len, ", driven by %s", site);
    char r[128];
    est_text(e.rate, "/s", r, sizeof(r));
    char ov[80] = ""; /* the rate in the allocator's bytes (docs/VERDICTS.md) */
    if (e.overhead.est > 0)
        snprintf(ov, sizeof(ov), ", in the allocator's bytes: +%.1f B a block", e.overhead.est);
    if (len < n)
        snprintf(out + len, n - len, "; %s free at %.3f s, growth %s (%s%s)", fr, e.at_s, r,
                 e.basis == EX_LEAKS ? "the leaks by growth summed"
                                     : "the sampled in-use trend, no leak",
                 ov);
    return 1;
}

void exhaust_print(FILE *f, const struct prof *p)
{
    char line[1024];
    if (exhaust_text(p, line, sizeof(line)))
        fprintf(f, "%s\n", line);
}
