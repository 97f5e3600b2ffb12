#include "views/timeline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "views/flame.h"
#include "msamp_arch.h"
#include "views/health.h"
#include "views/leaks.h"
#include "views/site_name.h"
#include "util.h"

/* One time bin: the estimate after the last record that fell in it (its time in ts), and the
 * largest total seen in it (peaks survive the merging of bins). */
struct tl_point {
    uint64_t ts;
    double total, total_max;
    uint8_t used;
};

struct tl_event {
    uint64_t ts;
    int ts_valid;
    uint64_t from, to; /* INTERVAL: the interval before and after */
    char text[DRAIN_MAX_MARK_LEN + 1];
};

struct timeline {
    int session;         /* index of the session followed; 0 before the first record */
    int have_t0;
    uint64_t t0, width;  /* bin i covers device times [t0 + i * width, t0 + (i + 1) * width) */
    uint64_t last_ts;    /* latest time seen: records without one are put there */
    uint64_t records;    /* records sampled */
    uint64_t interval;   /* the interval in force (for the from of an INTERVAL) */
    struct tl_point pt[TL_MAX_POINTS];
    /* Candidates: sites followed, their largest in-use so far and per bin (NAN: not followed
     * then). A site enters when its in-use passes the smallest peak of a full set, which it
     * replaces. */
    uint32_t cand[TL_CANDIDATES];
    double peak[TL_CANDIDATES];
    uint32_t ncand;
    double val[TL_MAX_POINTS][TL_CANDIDATES];
    struct tl_event marks[TL_MAX_MARKS], ivals[TL_MAX_INTERVALS];
    size_t nmarks, nivals;
    uint64_t marks_over, ivals_over, replaced;
    size_t hi; /* bins from hi on are unused */
    /* The bins used, in order (time never goes back: a record's bin is the last used or later):
     * merges and resets visit these, not every bin. */
    uint16_t used[TL_MAX_POINTS];
    size_t nused;
};

/* Starts over for a session: the bins used are cleared (not the whole table: a stream of many
 * short sessions costs what it holds). Per-candidate values are written before they are read. */
static void tl_reset(struct timeline *tl, int session)
{
    for (size_t u = 0; u < tl->nused; u++)
        tl->pt[tl->used[u]].used = 0;
    tl->nused = 0;
    memset(tl->cand, 0, sizeof(tl->cand));
    memset(tl->peak, 0, sizeof(tl->peak));
    tl->session = session;
    tl->have_t0 = 0;
    tl->t0 = tl->last_ts = tl->records = tl->interval = 0;
    tl->width = 1;
    tl->ncand = 0;
    tl->nmarks = tl->nivals = 0;
    tl->marks_over = tl->ivals_over = tl->replaced = tl->hi = 0;
}

struct timeline *timeline_new(void)
{
    struct timeline *tl = xcalloc(1, sizeof(*tl));
    tl_reset(tl, 0);
    return tl;
}

void timeline_free(struct timeline *tl)
{
    free(tl);
}

/* Widens the bins 2^k times at once: bin j >> k takes bins j (the latest used one's values, the
 * largest max). One pass over the bins in use, however far time jumped (k doublings one at a
 * time walked every bin k times: a session whose records span 2^40 ticks cost 30 walks). In
 * place: bin j >> k is at most j, and bins are read in order. */
static void tl_merge(struct timeline *tl, unsigned k)
{
    size_t n = 0;
    for (size_t u = 0; u < tl->nused; u++) {
        size_t j = tl->used[u], d = j >> k;
        struct tl_point b = tl->pt[j];
        if (d == j) { /* bin 0 */
            tl->used[n++] = (uint16_t)d;
            continue;
        }
        tl->pt[j].used = 0;
        if (n > 0 && tl->used[n - 1] == d) {
            if (tl->pt[d].total_max > b.total_max)
                b.total_max = tl->pt[d].total_max;
        } else {
            tl->used[n++] = (uint16_t)d;
        }
        tl->pt[d] = b;
        memcpy(tl->val[d], tl->val[j], sizeof(tl->val[d]));
    }
    tl->nused = n;
    tl->width <<= k;
    tl->hi = tl->hi ? ((tl->hi - 1) >> k) + 1 : 0;
}

/* The site a record touched (its slot's), or UINT32_MAX. */
static uint32_t touched_site(const struct session *s, const struct msamp_record *r)
{
    uint64_t slot1 = 0;
    switch (r->type) {
    case MSAMP_REC_ALLOC: slot1 = r->u.alloc.slot1; break;
    case MSAMP_REC_REALLOC: slot1 = r->u.realloc.new_slot1; break;
    case MSAMP_REC_FREE: slot1 = r->u.free.slot + 1; break;
    case MSAMP_REC_LIVE: slot1 = r->u.live.slot + 1; break;
    default: return UINT32_MAX;
    }
    const struct slot *sl = slot1 ? session_slot(s, slot1 - 1) : NULL;
    return sl && sl->site < s->nsites ? sl->site : UINT32_MAX;
}

static void tl_candidate(struct timeline *tl, const struct session *s, uint32_t site)
{
    if (site == UINT32_MAX)
        return;
    size_t low = 0;
    for (size_t c = 0; c < tl->ncand; c++) {
        if (tl->cand[c] == site)
            return;
        if (tl->peak[c] < tl->peak[low])
            low = c;
    }
    double v = s->sites[site].inuse_b;
    if (tl->ncand == TL_CANDIDATES) {
        if (!(v > tl->peak[low]))
            return;
        tl->replaced++;
    } else {
        if (!(v > 0))
            return;
        low = tl->ncand++;
    }
    tl->cand[low] = site;
    tl->peak[low] = v;
    for (size_t u = 0; u < tl->nused; u++)
        tl->val[tl->used[u]][low] = NAN;
}

static void tl_event(struct tl_event *v, size_t *n, uint64_t *over, size_t cap, uint64_t ts,
                     int ts_valid, uint64_t from, uint64_t to, const uint8_t *text, size_t len)
{
    if (*n == cap) {
        (*over)++;
        return;
    }
    struct tl_event *e = &v[(*n)++];
    e->ts = ts;
    e->ts_valid = ts_valid;
    e->from = from;
    e->to = to;
    if (len > DRAIN_MAX_MARK_LEN)
        len = DRAIN_MAX_MARK_LEN;
    if (len)
        memcpy(e->text, text, len);
    e->text[len] = 0;
}

void timeline_record(struct timeline *tl, const struct session *s, const struct msamp_record *r)
{
    if (tl->session != s->index)
        tl_reset(tl, s->index);
    if (r->type < 0)
        return;
    int known = r->ts_valid || tl->have_t0;
    uint64_t ts = r->ts_valid ? r->ts : tl->last_ts;
    if (known && tl->have_t0 && ts < tl->last_ts)
        ts = tl->last_ts; /* time never goes back on the chart */
    if (known && !tl->have_t0) {
        tl->have_t0 = 1;
        tl->t0 = ts;
    }
    if (known)
        tl->last_ts = ts;
    if (r->type == MSAMP_REC_MARK)
        tl_event(tl->marks, &tl->nmarks, &tl->marks_over, TL_MAX_MARKS, ts, known, 0, 0,
                 r->u.mark.text, r->u.mark.len);
    if (r->type == MSAMP_REC_SESSION && s->have_header)
        tl->interval = s->interval;
    if (r->type == MSAMP_REC_INTERVAL && r->u.interval.interval != tl->interval) {
        tl_event(tl->ivals, &tl->nivals, &tl->ivals_over, TL_MAX_INTERVALS, ts, known,
                 tl->interval, r->u.interval.interval, NULL, 0);
        tl->interval = r->u.interval.interval;
    }
    tl_candidate(tl, s, touched_site(s, r));
    if (!known)
        return;
    uint64_t q = (ts - tl->t0) / tl->width;
    unsigned k = 0;
    for (; q >> k >= TL_MAX_POINTS; k++)
        ;
    if (k) {
        tl_merge(tl, k);
        q >>= k;
    }
    size_t i = (size_t)q;
    struct tl_point *p = &tl->pt[i];
    if (!p->used)
        tl->used[tl->nused++] = (uint16_t)i;
    /* A bin's values are read only while it is used: written here for every candidate followed,
     * and NAN for the bins used when a candidate enters (tl_candidate). Bins skipped by a
     * jump in time are not touched. */
    if (tl->hi <= i)
        tl->hi = i + 1;
    if (!p->used || s->inuse_b > p->total_max)
        p->total_max = s->inuse_b;
    p->used = 1;
    p->ts = ts;
    p->total = s->inuse_b;
    for (size_t c = 0; c < tl->ncand; c++) {
        double v = s->sites[tl->cand[c]].inuse_b;
        tl->val[i][c] = v;
        if (v > tl->peak[c])
            tl->peak[c] = v;
    }
    tl->records++;
}

/* ---- writing ---- */

/* Candidates by peak, largest first: the top sites (at most TL_TOP, peaks above 0). */
static size_t top_sites(const struct timeline *tl, size_t *order)
{
    size_t n = 0;
    for (size_t c = 0; c < tl->ncand; c++) {
        if (!(tl->peak[c] > 0))
            continue;
        size_t k = n++;
        while (k > 0 && tl->peak[order[k - 1]] < tl->peak[c]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = c;
    }
    return n < TL_TOP ? n : TL_TOP;
}

/* Bytes in a readable unit: the unit's divisor and name for values up to max. */
static double byte_unit(double max, const char **name)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double d = 1;
    size_t u = 0;
    while (u + 1 < sizeof(names) / sizeof(names[0]) && max >= 1024 * d) {
        d *= 1024;
        u++;
    }
    *name = names[u];
    return d;
}

/* A round step (1, 2 or 5 times a power of ten) giving about 6 ticks up to max. */
static double nice_step(double max)
{
    if (!(max > 0))
        return 1;
    double raw = max / 6, p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static const char *const palette[] = {"#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#bcbd22"};
_Static_assert(sizeof(palette) / sizeof(palette[0]) >= TL_TOP, "a colour per top site");
#define TL_TOTAL_COLOUR "#1f4e9c"

/* Chart geometry (px). */
#define CW 1000.0
#define CH 460.0
#define PL 90.0
#define PR 90.0 /* room for the allocator's own axis, on the right */
#define PT 30.0
#define PB 60.0

/* x: seconds (ticks when tick_hz is 0) since org, the session's first record (docs/DRAIN.md
 * "Times"); y: bytes up to ymax. */
struct chart {
    double tick_hz, xmax, ymax;
    uint64_t org;
};

static double px(const struct chart *c, double t)
{
    return PL + (c->xmax > 0 ? t / c->xmax : 0) * (CW - PL - PR);
}
static double py(const struct chart *c, double v)
{
    return CH - PB - (c->ymax > 0 ? v / c->ymax : 0) * (CH - PT - PB);
}
static double tl_x(const struct chart *c, uint64_t ts)
{
    return ts > c->org ? (double)(ts - c->org) / (c->tick_hz > 0 ? c->tick_hz : 1) : 0;
}

/* The session clock's origin: its first record's time (the timeline's first when it has none). */
static uint64_t tl_org(const struct timeline *tl, const struct session *s)
{
    return s->ts_known && s->first_ts <= tl->t0 ? s->first_ts : tl->t0;
}

/* A y axis of c from 0 to c->ymax in steps (values shown in unit): tick labels at x (anchor
 * "end": left of it, "start": right of it), grid lines across the plot when grid. */
static void y_axis(FILE *f, const char *id, const struct chart *c, double step, double unit,
                   double x, const char *anchor, const char *colour, int grid)
{
    fprintf(f, "<g id=\"%s\" stroke=\"#dddddd\">\n", id);
    for (double v = 0; v <= c->ymax * 1.0000001; v += step) {
        if (grid)
            fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", PL, CW - PR,
                    py(c, v), py(c, v));
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" stroke=\"none\" "
                   "fill=\"%s\">%.6g</text>\n",
                x, py(c, v) + 4, anchor, colour, v / unit);
    }
    fprintf(f, "</g>\n");
}

/* The axis of bytes up to max: its top (a whole number of steps), its step, unit and the unit's
 * name. */
static void byte_axis(struct chart *c, double max, double *step, double *unit, const char **name)
{
    *unit = byte_unit(max, name);
    *step = nice_step(max / *unit) * *unit;
    c->ymax = max > 0 ? ceil(max / *step) * *step : 1;
}

/* One series as a step path: col -1 the total, -2 the total's maximum, else candidate col. */
static void series_path(FILE *f, const struct timeline *tl, const struct chart *c, int col)
{
    int pen = 0;
    for (size_t u = 0; u < tl->nused; u++) { /* the bins used, in order */
        size_t i = tl->used[u];
        const struct tl_point *p = &tl->pt[i];
        if (!p->used)
            continue;
        double v = col == -1 ? p->total : col == -2 ? p->total_max : tl->val[i][col];
        if (isnan(v)) {
            pen = 0;
            continue;
        }
        double x = px(c, tl_x(c, p->ts)), y = py(c, v);
        if (!pen)
            fprintf(f, "M%.1f %.1f", x, y);
        else
            fprintf(f, "H%.1f V%.1f", x, y);
        pen = 1;
    }
}

/* The chart's scales: in use on the left (c, from the sampled series alone), the allocator's
 * bytes on the right (hc, views/health.c: often many times the in-use, so an axis of their own,
 * drawn when heap_axis), one time axis; tpeak the total's peak. */
struct axes {
    struct chart c, hc;
    double tpeak, unit, ystep, hunit, hstep, xstep;
    const char *uname, *hname, *xunit;
    int heap_axis;
};

static void chart_axes(struct axes *a, const struct timeline *tl, const struct session *s,
                       const size_t *top, size_t ntop)
{
    a->c = (struct chart){(double)s->tick_hz, 0, 0, tl_org(tl, s)};
    a->tpeak = 0;
    for (size_t u = 0; u < tl->nused; u++) { /* the bins used, in order */
        size_t i = tl->used[u];
        const struct tl_point *p = &tl->pt[i];
        if (!p->used)
            continue;
        if (tl_x(&a->c, p->ts) > a->c.xmax)
            a->c.xmax = tl_x(&a->c, p->ts);
        if (p->total_max > a->tpeak)
            a->tpeak = p->total_max;
    }
    double ymax = a->tpeak;
    for (size_t k = 0; k < ntop; k++)
        if (tl->peak[top[k]] > ymax)
            ymax = tl->peak[top[k]];
    a->xstep = nice_step(a->c.xmax);
    byte_axis(&a->c, ymax, &a->ystep, &a->unit, &a->uname);
    a->hc = a->c;
    byte_axis(&a->hc, health_timeline_ymax(s), &a->hstep, &a->hunit, &a->hname);
    a->heap_axis = health_timeline_ymax(s) > 0;
    if (a->c.xmax <= 0)
        a->c.xmax = 1;
    a->c.xmax = ceil(a->c.xmax / a->xstep) * a->xstep;
    a->hc.xmax = a->c.xmax;
    a->xunit = s->tick_hz ? "s" : "device ticks";
}

/* The page's head, title and the paragraph saying what the chart shows. */
static void html_head(FILE *f, const struct timeline *tl, const struct session *s,
                      const char *xunit)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<title>msamp heap over time: session %d</title>\n<style>\n"
               "body{font-family:'DejaVu Sans',sans-serif;margin:16px;color:#222}\n"
               "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;"
               "padding:2px 8px;text-align:left}td.n{text-align:right}\n"
               "svg text{font-family:'DejaVu Sans',sans-serif}\n</style></head><body>\n",
            s->index);
    fprintf(f, "<h2>Heap in use over time: session %d (id 0x%08x, %s)</h2>\n", s->index,
            s->session_id, msamp_arch_get(s->arch)->name);
    char story[512];
    session_interval_summary(s, story, sizeof(story));
    fprintf(f, "<p id=\"about\">Estimated in-use bytes (drain's running estimate from the sampled "
               "allocations) after each record, in %d time bins of %.6g %s; each point is the "
               "estimate after the last record of its bin, the light line the largest total "
               "within the bin. Sampling: ",
            TL_MAX_POINTS, (double)tl->width / (s->tick_hz ? (double)s->tick_hz : 1), xunit);
    views_xml_text(f, story, strlen(story));
    fprintf(f, ". %llu records sampled.</p>\n", (unsigned long long)tl->records);
}

/* Grid and axes: in use on the left, the allocator's bytes on the right, time below. */
static void svg_axes(FILE *f, const struct axes *a)
{
    y_axis(f, "yaxis", &a->c, a->ystep, a->unit, PL - 6, "end", "#333", 1);
    if (a->heap_axis)
        y_axis(f, "yaxis-heap", &a->hc, a->hstep, a->hunit, CW - PR + 6, "start", "#555555", 0);
    fprintf(f, "<g id=\"xaxis\" stroke=\"#dddddd\">\n");
    for (double t = 0; t <= a->c.xmax * 1.0000001; t += a->xstep)
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" stroke=\"none\" "
                   "fill=\"#333\">%.6g</text>\n",
                px(&a->c, t), px(&a->c, t), PT, CH - PB, px(&a->c, t), CH - PB + 16, t);
    fprintf(f, "</g>\n<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
               "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
            PL, CW - PR, CH - PB, CH - PB, PL, PL, PT, CH - PB);
    fprintf(f, "<text id=\"xlabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time (%s) since "
               "the session's first record</text>\n",
            (PL + CW - PR) / 2, CH - PB + 36, a->xunit);
    fprintf(f, "<text id=\"ylabel\" transform=\"translate(20 %.1f) rotate(-90)\" "
               "text-anchor=\"middle\">in use, sampled estimate (%s)</text>\n", (PT + CH - PB) / 2,
            a->uname);
    if (a->heap_axis)
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#555555\"/>"
                   "<text id=\"ylabel-heap\" transform=\"translate(%.1f %.1f) rotate(90)\" "
                   "text-anchor=\"middle\" fill=\"#555555\">allocator's free bytes (%s), black "
                   "and grey lines</text>\n",
                CW - PR, CW - PR, PT, CH - PB, CW - 14, (PT + CH - PB) / 2, a->hname);
}

/* Interval changes, then marks: vertical lines with their labels. */
static void svg_events(FILE *f, const struct timeline *tl, const struct chart *c)
{
    for (int mark = 0; mark < 2; mark++) {
        const struct tl_event *v = mark ? tl->marks : tl->ivals;
        size_t n = mark ? tl->nmarks : tl->nivals;
        for (size_t i = 0; i < n; i++) {
            const struct tl_event *e = &v[i];
            if (!e->ts_valid)
                continue;
            double x = px(c, tl_x(c, e->ts));
            if (!mark) {
                fprintf(f, "<g class=\"interval\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                           "y2=\"%.1f\" stroke=\"#e08000\" stroke-dasharray=\"2 3\"/><text "
                           "x=\"%.1f\" y=\"%.1f\" fill=\"#b06000\" font-size=\"11\" "
                           "transform=\"rotate(-90 %.1f %.1f)\">interval %llu&#8594;%llu</text>"
                           "</g>\n",
                        x, x, PT, CH - PB, x - 3, CH - PB - 4, x - 3, CH - PB - 4,
                        (unsigned long long)e->from, (unsigned long long)e->to);
                continue;
            }
            fprintf(f, "<g class=\"mark\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#555555\" stroke-dasharray=\"6 3\"/><text class=\"mark-label\" "
                       "x=\"%.1f\" y=\"%.1f\" fill=\"#333\" font-size=\"11\" "
                       "transform=\"rotate(90 %.1f %.1f)\">",
                    x, x, PT, CH - PB, x + 3, PT + 2, x + 3, PT + 2);
            views_xml_text(f, e->text, strlen(e->text));
            fprintf(f, "</text></g>\n");
        }
    }
}

/* Series: the total's maximum per bin, the sites, the total; the allocator's lines; leaks, a
 * dotted line in the site's colour where its growth began. */
static void svg_series(FILE *f, const struct timeline *tl, const struct session *s,
                       const struct axes *a, const size_t *top, size_t ntop, char names[][256],
                       const struct growth_leak *const *leak)
{
    const struct chart *c = &a->c;
    fprintf(f, "<path id=\"total-max\" fill=\"none\" stroke=\"#9db4e0\" stroke-width=\"1\" d=\"");
    series_path(f, tl, c, -2);
    fprintf(f, "\"/>\n");
    for (size_t k = ntop; k-- > 0;) {
        fprintf(f, "<path class=\"site\" id=\"site%zu\" fill=\"none\" stroke=\"%s\" "
                   "stroke-width=\"2\" d=\"", k + 1, palette[k]);
        series_path(f, tl, c, (int)top[k]);
        fprintf(f, "\"><title>");
        views_xml_text(f, names[k], strlen(names[k]));
        fprintf(f, "</title></path>\n");
    }
    fprintf(f, "<path id=\"total\" fill=\"none\" stroke=\"%s\" stroke-width=\"3\" d=\"",
            TL_TOTAL_COLOUR);
    series_path(f, tl, c, -1);
    fprintf(f, "\"><title>total in use</title></path>\n");
    health_timeline_svg(f, s, &(struct health_map){c->org, c->tick_hz, c->xmax, a->hc.ymax, PL,
                                                   CW - PL - PR, CH - PB, CH - PT - PB});
    for (size_t k = 0; k < ntop; k++) {
        if (!leak[k] || !s->tick_hz)
            continue;
        double x = px(c, leak[k]->since_s > 0 ? leak[k]->since_s : 0); /* the one clock */
        fprintf(f, "<g class=\"leak\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                   "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"1 3\"/><text x=\"%.1f\" "
                   "y=\"%.1f\" fill=\"%s\" font-size=\"11\">leak %zu</text></g>\n",
                x, x, PT, CH - PB, palette[k], x + 3, CH - PB - 4 - 12.0 * (double)k, palette[k],
                k + 1);
    }
}

/* The legend below the chart: the total and each top site with its peak (and its leak). */
static void svg_legend(FILE *f, const struct timeline *tl, double tpeak, const size_t *top,
                       size_t ntop, char names[][256], const struct growth_leak *const *leak)
{
    fprintf(f, "<g id=\"legend\" font-size=\"12\">\n");
    double ly = CH + 6;
    char b0[32], b1[32], b2[32];
    fmt_bytes(b0, sizeof(b0), tpeak);
    fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
               "stroke-width=\"3\"/><text x=\"%.1f\" y=\"%.1f\">total in use (peak %s)"
               "</text>\n",
            PL, PL + 30, ly, ly, TL_TOTAL_COLOUR, PL + 38, ly + 4, b0);
    for (size_t k = 0; k < ntop; k++) {
        ly += 22;
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                   "stroke-width=\"2\"/><text class=\"legend-site\" x=\"%.1f\" y=\"%.1f\">",
                PL, PL + 30, ly, ly, palette[k], PL + 38, ly + 4);
        views_xml_text(f, names[k], strlen(names[k]));
        fmt_bytes(b0, sizeof(b0), tl->peak[top[k]]);
        fprintf(f, " (peak %s)", b0);
        if (leak[k]) { /* as --leaks words it (growth_print_leaks) */
            fmt_bytes(b0, sizeof(b0), leak[k]->slope_bytes_per_s.est);
            fmt_bytes(b1, sizeof(b1), est_sym_lo(leak[k]->slope_bytes_per_s));
            fmt_bytes(b2, sizeof(b2), est_sym_hi(leak[k]->slope_bytes_per_s));
            fprintf(f, " &#8212; leak: +%s/s [%s/s, %s/s] since %.3f s", b0, b1, b2,
                    leak[k]->since_s);
        }
        fprintf(f, "</text>\n");
    }
    fprintf(f, "</g>\n");
}

/* The page up to the chart's end. leak[k]: the leak verdict of top site k (docs/VERDICTS.md),
 * NULL when it is not one. */
static void write_html(FILE *f, const struct timeline *tl, const struct session *s,
                       const size_t *top, size_t ntop, char names[][256],
                       const struct growth_leak *const *leak)
{
    struct axes a;
    chart_axes(&a, tl, s, top, ntop);
    html_head(f, tl, s, a.xunit);
    double legend_h = 22.0 * (double)(ntop + 2);
    fprintf(f, "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
               "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-size=\"12\">\n",
            CW, CH + legend_h, CW, CH + legend_h);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", CW,
            CH + legend_h);
    svg_axes(f, &a);
    svg_events(f, tl, &a.c);
    svg_series(f, tl, s, &a, top, ntop, names, leak);
    svg_legend(f, tl, a.tpeak, top, ntop, names, leak);
    fprintf(f, "</svg>\n");
}

static void write_tables(FILE *f, const struct timeline *tl, const struct session *s,
                         const struct chart *c, const size_t *top, size_t ntop, char names[][256])
{
    fprintf(f, "<h3>Top sites</h3>\n<p>The %d sites with the largest in-use peaks among the %d "
               "followed: a site is followed from when its in-use passes the smallest peak of "
               "those followed (its line starts there: before, it was below that peak); "
               "%llu times a site took another's place.</p>\n<table id=\"sites\"><tr><th>#</th>"
               "<th>site (innermost frames)</th><th>peak bytes</th></tr>\n",
            TL_TOP, TL_CANDIDATES, (unsigned long long)tl->replaced);
    for (size_t k = 0; k < ntop; k++) {
        fprintf(f, "<tr><td style=\"color:%s\">&#9632; %zu</td><td>", palette[k], k + 1);
        views_xml_text(f, names[k], strlen(names[k]));
        fprintf(f, "</td><td class=\"n\">%.0f</td></tr>\n", tl->peak[top[k]]);
    }
    fprintf(f, "</table>\n<h3>Marks and interval changes</h3>\n<table id=\"events\"><tr>"
               "<th>time (%s)</th><th>event</th></tr>\n", s->tick_hz ? "s" : "ticks");
    size_t im = 0, ii = 0;
    while (im < tl->nmarks || ii < tl->nivals) {
        int mark = ii == tl->nivals || (im < tl->nmarks && tl->marks[im].ts <= tl->ivals[ii].ts);
        const struct tl_event *e = mark ? &tl->marks[im++] : &tl->ivals[ii++];
        fprintf(f, "<tr><td class=\"n\">");
        if (e->ts_valid)
            fprintf(f, "%.6f", tl_x(c, e->ts));
        else
            fprintf(f, "(no time)");
        if (mark) {
            fprintf(f, "</td><td>mark: ");
            views_xml_text(f, e->text, strlen(e->text));
        } else {
            fprintf(f, "</td><td>interval %llu &#8594; %llu bytes",
                    (unsigned long long)e->from, (unsigned long long)e->to);
        }
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n");
    if (tl->marks_over || tl->ivals_over)
        fprintf(f, "<p>Not shown: %llu more marks and %llu more interval changes (drain keeps "
                   "the first %d of each).</p>\n",
                (unsigned long long)tl->marks_over, (unsigned long long)tl->ivals_over,
                TL_MAX_MARKS);
    fprintf(f, "<p>Written by drain %s (msamp). Times are %s since the session's first record."
               "</p>\n</body></html>\n",
            DRAIN_VERSION, s->tick_hz ? "seconds" : "device ticks");
}

static void csv_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void write_csv(FILE *f, const struct timeline *tl, const struct session *s,
                      const struct chart *c, const size_t *top, size_t ntop, char names[][256])
{
    fprintf(f, "time_s,ticks,total_bytes,total_max_bytes");
    for (size_t k = 0; k < ntop; k++) {
        fputc(',', f);
        csv_field(f, names[k]);
    }
    fputc('\n', f);
    for (size_t u = 0; u < tl->nused; u++) { /* the bins used, in order */
        size_t i = tl->used[u];
        const struct tl_point *p = &tl->pt[i];
        if (!p->used)
            continue;
        if (s->tick_hz)
            fprintf(f, "%.9f", tl_x(c, p->ts));
        fprintf(f, ",%llu,%.0f,%.0f", (unsigned long long)p->ts, p->total, p->total_max);
        for (size_t k = 0; k < ntop; k++) {
            double v = tl->val[i][top[k]];
            if (isnan(v))
                fputc(',', f);
            else
                fprintf(f, ",%.0f", v);
        }
        fputc('\n', f);
    }
}

int timeline_write(const struct timeline *tl, const struct session *s, const struct built *b,
                   const char *html, const char *csv, char *err, size_t errlen)
{
    static struct timeline empty; /* a session that sent no record the timeline saw */
    if (tl->session != s->index) {
        empty.hi = 0;
        tl_reset(&empty, s->index);
        tl = &empty;
    }
    size_t top[TL_CANDIDATES];
    size_t ntop = top_sites(tl, top);
    /* The sites named as --top names them; two of one name (two calls on one line) told apart. */
    char names[TL_TOP][256], base[TL_TOP][240];
    for (size_t k = 0; k < ntop; k++) {
        report_site_name(b, tl->cand[top[k]], base[k], sizeof(base[k]));
        unsigned same = 1;
        for (size_t j = 0; j < k; j++)
            same += strcmp(base[j], base[k]) == 0;
        snprintf(names[k], sizeof(names[k]), same > 1 ? "%s #%u" : "%s", base[k], same);
    }
    struct chart c = {(double)s->tick_hz, 0, 0, tl_org(tl, s)};
    /* The leak verdicts the profile holds, by top site. */
    size_t cap = b->prof.ncomment + 1;
    struct growth_leak *lk = xmalloc(cap * sizeof(*lk));
    size_t nlk = growth_leaks_from_prof(&b->prof, lk, cap);
    const struct growth_leak *leak[TL_CANDIDATES] = {NULL};
    for (size_t k = 0; k < ntop && b->site_prof; k++)
        for (size_t j = 0; j < nlk; j++)
            if (tl->cand[top[k]] < s->nsites && lk[j].sample == b->site_prof[tl->cand[top[k]]])
                leak[k] = &lk[j];
    const char *paths[2] = {html, csv};
    int rc = 0;
    for (int w = 0; w < 2; w++) {
        if (!paths[w])
            continue;
        struct out_file o;
        char e2[1100];
        if (out_open(&o, paths[w], e2, sizeof(e2)) != 0) {
            if (rc == 0)
                snprintf(err, errlen, "%s", e2);
            rc = -1;
            continue;
        }
        FILE *f = o.f;
        if (w == 0) {
            write_html(f, tl, s, top, ntop, names, leak);
            /* The forecast the profile holds, as --top says it (verdict/exhaust.h). */
            char ex[1024];
            if (exhaust_text(&b->prof, ex, sizeof(ex))) {
                fprintf(f, "<h3>Time to exhaustion</h3>\n<p id=\"exhaustion\">");
                views_xml_text(f, ex, strlen(ex));
                fprintf(f, "</p>\n");
            }
            write_tables(f, tl, s, &c, top, ntop, names);
        } else {
            write_csv(f, tl, s, &c, top, ntop, names);
        }
        if (out_close(&o, 0, e2, sizeof(e2)) != 0) {
            if (rc == 0)
                snprintf(err, errlen, "%s", e2);
            rc = -1;
        }
    }
    free(lk);
    return rc;
}
