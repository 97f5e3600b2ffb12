#include "views/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "msamp_arch.h"
#include "verdict/marks.h"
#include "verdict/unseen.h"
#include "model/task_use.h"
#include "views/health.h"
#include "views/leaks.h"
#include "views/site_name.h"
#include "model/est.h"
#include "util.h"

static const struct built *sort_b;
static int sort_v;

static int by_value(const void *a, const void *b)
{
    const struct prof *p = &sort_b->agg;
    int64_t x = p->valpool[p->sample[*(const uint32_t *)a].val_off + sort_v];
    int64_t y = p->valpool[p->sample[*(const uint32_t *)b].val_off + sort_v];
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The `task` label of sample s of p (its labels' strings are those of strs: the built profile's,
 * which the agg samples share), or "" when it has none. */
static const char *sample_task(const struct prof *strs, const struct prof *p,
                               const struct prof_sample *s)
{
    for (uint32_t k = 0; k < s->nlabel; k++) {
        const struct prof_label *l = &p->labelpool[s->label_off + k];
        if (l->str > 0 && strcmp(strs->str[l->key], "task") == 0)
            return strs->str[l->str];
    }
    return "";
}

/* tasks: the session has tasks (an RTOS device): a task column after the samples. marked: every
 * estimate of the table is a lower bound (docs/VERDICTS.md "Marks": records lost, samples
 * unattributed); in-use rows of sites with refused samples are too, their intervals widened by
 * the refused bytes. A lower bound's bytes read ">=N". */
static void top_table(FILE *f, const struct built *b, size_t n, int v_bytes, const char *title,
                      int tasks, int marked)
{
    const struct prof *p = &b->agg;
    uint32_t *order = xmalloc((p->nsample + 1) * sizeof(*order));
    for (size_t i = 0; i < p->nsample; i++)
        order[i] = (uint32_t)i;
    sort_b = b;
    sort_v = v_bytes;
    qsort(order, p->nsample, sizeof(*order), by_value);
    fprintf(f, "%s\n", title);
    if (tasks)
        fprintf(f, "  %14s %10s %8s  %-25s %-16s %s\n", "bytes", "objects", "samples",
                "(bytes: 95 % interval)", "task", "site (innermost first)");
    else
        fprintf(f, "  %14s %10s %8s  %-25s %s\n", "bytes", "objects", "samples",
                "(bytes: 95 % interval)", "site (innermost first)");
    const uint64_t *cnt = v_bytes == V_INUSE_B ? b->inuse_samples : b->alloc_samples;
    double wmax; /* the session's largest interval: no sample weighs more (est_hi_max) */
    unseen_from_prof(&b->prof, &wmax);
    size_t shown = 0;
    for (size_t i = 0; i < p->nsample && shown < n; i++) {
        const struct prof_sample *s = &p->sample[order[i]];
        const int64_t *v = &p->valpool[s->val_off];
        if (v[v_bytes] == 0)
            break;
        char site[1024];
        site_text(b, s, site, sizeof(site));
        struct est e = {(double)v[v_bytes], (double)v[v_bytes + V_INUSE_BV - V_INUSE_B]};
        char ci[64], bytes[32];
        int refused = v_bytes == V_INUSE_B && p->nvt == V_ALL && v[V_REF_SAMPLES] > 0;
        double add = refused ? (double)v[V_REF_B] : 0;
        snprintf(ci, sizeof(ci), "(%.0f-%.0f)", est_lo(e), est_hi_max(e, wmax) + add);
        snprintf(bytes, sizeof(bytes), "%s%lld", refused || marked ? ">=" : "",
                 (long long)v[v_bytes]);
        fprintf(f, "  %14s %10lld %8llu  %-25s ", bytes, (long long)v[v_bytes - 1],
                (unsigned long long)cnt[order[i]], ci);
        if (tasks)
            fprintf(f, "%-16s ", sample_task(&b->prof, p, s));
        fprintf(f, "%s\n", site);
        shown++;
    }
    if (shown == 0)
        fprintf(f, "  (none)\n");
    size_t unseen_sites = 0;
    for (size_t i = 0; v_bytes == V_INUSE_B && i < p->nsample; i++)
        unseen_sites += p->valpool[p->sample[i].val_off + V_INUSE_B] == 0 && b->alloc_samples[i];
    double unseen = unseen_from_prof(&b->prof, NULL);
    if (unseen_sites && !isnan(unseen))
        fprintf(f, "  no live sample: %zu site%s with sampled allocations, %s at most %.0f bytes "
                   "in use unseen (97.5 %%; docs/VERDICTS.md \"No live sample\")\n",
                unseen_sites, unseen_sites == 1 ? "" : "s",
                unseen_sites == 1 ? "holding" : "together holding", unseen);
    uint64_t nref = 0;
    double bref = v_bytes == V_INUSE_B ? marks_refused_bytes(p, &nref) : 0;
    if (nref)
        fprintf(f, "  >=: %llu samples refused by the live table (live_full) at these sites: their "
                   "in-use a lower bound, its interval widened by the %.0f bytes they may hold\n",
                (unsigned long long)nref, bref);
    if (marked)
        fprintf(f, "  >=: every estimate a lower bound (see the stream line above)\n");
    free(order);
}

static const struct prof *task_p;

/* Samples by the string index of their task label, then by index. */
static int by_task(const void *a, const void *b)
{
    const struct prof *p = task_p;
    const char *x = sample_task(p, p, &p->sample[*(const uint32_t *)a]);
    const char *y = sample_task(p, p, &p->sample[*(const uint32_t *)b]);
    int c = strcmp(x, y);
    return c != 0 ? c : (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* An RTOS device's totals by task: in-use and allocated estimates summed over each task's sites;
 * marked as top_table's (">=": a lower bound, in-use widened by its sites' refused bytes). */
static void task_table(FILE *f, const struct built *b, int marked)
{
    const struct prof *p = &b->prof;
    uint32_t *order = xmalloc((p->nsample + 1) * sizeof(*order));
    for (size_t i = 0; i < p->nsample; i++)
        order[i] = (uint32_t)i;
    task_p = p;
    qsort(order, p->nsample, sizeof(*order), by_task);
    double wmax, unseen = unseen_from_prof(p, &wmax);
    fprintf(f, "by task:\n  %14s %10s %14s %10s  %-25s %-25s %s\n", "in-use bytes", "objects",
            "alloc bytes", "objects", "(in-use: 95 % interval)", "(alloc: 95 % interval)", "task");
    for (size_t i = 0; i < p->nsample;) {
        const char *task = sample_task(p, p, &p->sample[order[i]]);
        int64_t t[4] = {0, 0, 0, 0};
        double var[2] = {0, 0}; /* the sites' variances add (docs/VERDICTS.md) */
        for (; i < p->nsample && strcmp(sample_task(p, p, &p->sample[order[i]]), task) == 0; i++) {
            const int64_t *v = &p->valpool[p->sample[order[i]].val_off];
            t[0] += v[V_INUSE_B];
            t[1] += v[V_INUSE_B - 1];
            t[2] += v[V_ALLOC_B];
            t[3] += v[V_ALLOC_B - 1];
            if (p->nvt > V_ALLOC_BV) {
                var[0] += (double)v[V_INUSE_BV];
                var[1] += (double)v[V_ALLOC_BV];
            }
        }
        uint64_t nref = 0;
        double add = 0;
        for (size_t k = 0; b->agg.nvt == V_ALL && k < b->agg.nsample; k++) {
            const int64_t *v = &b->agg.valpool[b->agg.sample[k].val_off];
            if (v[V_REF_SAMPLES] > 0 &&
                strcmp(sample_task(p, &b->agg, &b->agg.sample[k]), task) == 0) {
                nref += (uint64_t)v[V_REF_SAMPLES];
                add += v[V_REF_B] > 0 ? (double)v[V_REF_B] : 0;
            }
        }
        char ci[2][64], bytes[2][32];
        for (int k = 0; k < 2; k++) {
            struct est e = {(double)t[2 * k], var[k]};
            /* nothing sampled: the upper end what the sampling may have missed */
            double hi = t[2 * k] ? est_hi_max(e, wmax) : unseen;
            snprintf(ci[k], sizeof(ci[k]), isnan(hi) ? "(%.0f-?)" : "(%.0f-%.0f)", est_lo(e),
                     hi + (k ? 0 : add));
            snprintf(bytes[k], sizeof(bytes[k]), "%s%lld", marked || (k == 0 && nref) ? ">=" : "",
                     (long long)t[2 * k]);
        }
        fprintf(f, "  %14s %10lld %14s %10lld  %-25s %-25s %s\n", bytes[0], (long long)t[1],
                bytes[1], (long long)t[3], ci[0], ci[1], task[0] ? task : "(no task)");
    }
    free(order);
}

static const struct session *fail_s;

/* Failure sites, most failures first. */
static int by_failures(const void *a, const void *b)
{
    const struct site_rare *x = session_site_rare(fail_s, ((const struct built_fail *)a)->site);
    const struct site_rare *y = session_site_rare(fail_s, ((const struct built_fail *)b)->site);
    uint64_t nx = x->fail_n[MSAMP_FAIL_NULL] + x->fail_n[MSAMP_FAIL_GIANT];
    uint64_t ny = y->fail_n[MSAMP_FAIL_NULL] + y->fail_n[MSAMP_FAIL_GIANT];
    return nx < ny ? 1 : nx > ny ? -1 : 0;
}

/* Allocation failures and the giant guard's refusals: totals, then the sites (every failure is
 * reported by the device, so these are counts, not estimates). */
static void fail_table(FILE *f, const struct session *s, const struct built *b, size_t n)
{
    uint64_t nul = session_failures(s, MSAMP_FAIL_NULL), giant = session_failures(s, MSAMP_FAIL_GIANT);
    if (nul == 0 && giant == 0 && s->n.fails_other == 0)
        return;
    fprintf(f, "allocation failures: %llu (the allocator returned NULL), %llu refused by the giant "
               "guard",
            (unsigned long long)nul, (unsigned long long)giant);
    uint64_t lost = nul + giant - s->n.fails[MSAMP_FAIL_NULL] - s->n.fails[MSAMP_FAIL_GIANT];
    if (lost)
        fprintf(f, "; %llu of them without their record (lost)", (unsigned long long)lost);
    if (s->n.fails_other)
        fprintf(f, "; %llu records of an unknown kind", (unsigned long long)s->n.fails_other);
    int tasks = s->task_samples != 0; /* an RTOS device: the failing task after the kind */
    fprintf(f, ":\n  %10s %14s %14s  %-6s %s%s\n", "failures", "bytes asked", "largest", "kind",
            tasks ? "task             " : "", "site (innermost first)");
    struct built_fail *order = xmalloc((b->nfails + 1) * sizeof(*order));
    if (b->nfails)
        memcpy(order, b->fails, b->nfails * sizeof(*order));
    fail_s = s;
    qsort(order, b->nfails, sizeof(*order), by_failures);
    size_t shown = 0;
    for (size_t i = 0; i < b->nfails && shown < n; i++) {
        const struct site *st = &s->sites[order[i].site];
        const struct site_rare *rr = session_site_rare(s, order[i].site);
        char site[1024] = "";
        size_t len = 0;
        int frames = 0;
        for (uint32_t k = 0; k < order[i].nloc && frames < 5 && len < sizeof(site) - 1; k++)
            len = site_frames(&b->prof, order[i].locs[k], k == 0, site, sizeof(site), len,
                              &frames);
        for (int kind = 0; kind < MSAMP_FAIL_KINDS && shown < n; kind++) {
            if (rr->fail_n[kind] == 0)
                continue;
            char buf[32];
            const char *task = session_site_task(s, st, buf, sizeof(buf));
            fprintf(f, "  %10llu %14llu %14llu  %-6s ", (unsigned long long)rr->fail_n[kind],
                    (unsigned long long)rr->fail_b[kind], (unsigned long long)rr->fail_max[kind],
                    kind == MSAMP_FAIL_NULL ? "null" : "giant");
            if (tasks)
                fprintf(f, "%-16s ", task ? task : "");
            fprintf(f, "%s\n", site);
            shown++;
        }
    }
    if (shown == 0)
        fprintf(f, "  (no record of them arrived)\n");
    free(order);
}

void report_top(FILE *f, const struct session *s, const struct built *b, size_t n, int final)
{
    s = built_session(b, s);
    char title[256], story[512];
    fprintf(f, "session %d (id 0x%08x, %s, interval %llu bytes): estimates; samples = sampled "
               "allocations behind each\n",
            s->index, s->session_id, msamp_arch_get(s->arch)->name, (unsigned long long)s->interval);
    session_interval_summary(s, story, sizeof(story));
    fprintf(f, "sampling: %s\n", story);
    session_completeness(s, final, story, sizeof(story));
    fprintf(f, "%s\n", story);
    growth_print_peak(f, &b->prof);
    exhaust_print(f, &b->prof); /* the forecast, as the profile stores it (verdict/exhaust.h) */
    snprintf(title, sizeof(title), "top %zu sites by in-use bytes%s:", n,
             s->dump ? " (in use when the dump was taken)"
             : final ? " (live at the end)" : "");
    int tasks = s->task_samples != 0;
    struct prof_marks m; /* the profile's, as --json, check and the peak line read them */
    marks_from_prof(&b->prof, &m);
    int marked = marks_sites(&m);
    top_table(f, b, n, V_INUSE_B, title, tasks, marked);
    if (s->dump) { /* a dump's allocated values are its live blocks again: no table of them */
        fprintf(f, "no allocated table: a dump holds what was in use when it was taken, not what "
                   "was allocated before\n");
    } else {
        snprintf(title, sizeof(title), "top %zu sites by allocated bytes:", n);
        top_table(f, b, n, V_ALLOC_B, title, tasks, marked);
    }
    if (tasks) {
        task_table(f, b, marked);
        task_use_top(f, s); /* model/task_use.c: peaks and budgets */
    }
    fail_table(f, s, b, n);
    health_top(f, s, b); /* views/health.c */
}

/* Said once per run: most samples came without a single frame. */
static void warn_no_frame(FILE *f, const struct session *s)
{
    static int said;
    uint64_t nf = s->drops[MSAMP_DROP_NO_FRAME], total = s->n.samples;
    if (said || !s->have_no_frame || nf == 0 || nf * 10 < total)
        return;
    said = 1;
    uint64_t oob = s->drops[MSAMP_DROP_OUT_OF_BOUNDS];
    fprintf(f,
            "drain: %llu of the device's stack walks found no frame at all, so those samples "
            "have no call stack ([unknown stack]).",
            (unsigned long long)nf);
    if (oob != 0)
        fprintf(f,
                " %llu of them began on a stack outside the bounds the walker may read "
                "([__msamp_stack_lo, __msamp_stack_hi) on firmware): an RTOS task's or an "
                "interrupt's stack elsewhere, or a linker script whose bounds leave the stack out; "
                "widen the bounds to hold every stack (port/msamp.ld gives all of RAM).",
                (unsigned long long)oob);
    if (oob < nf && s->have_out_of_bounds)
        fprintf(f, " %s%llu began inside them: the code lacks what the walker needs: %s.",
                oob != 0 ? "The other " : "All ", (unsigned long long)(nf - oob),
                msamp_arch_get(s->arch)->no_frame);
    else if (!s->have_out_of_bounds)
        fprintf(f,
                " Likely causes: the code lacks what the walker needs (%s), or the allocations "
                "ran on a stack outside the bounds the walker may read (firmware: "
                "[__msamp_stack_lo, __msamp_stack_hi); this device does not say which).",
                msamp_arch_get(s->arch)->no_frame);
    fputc('\n', f);
}

/* Appends s to folded text, ';' and ' ' as '_'. */
static void folded_put(struct buf *o, const char *s)
{
    for (const char *c = s; *c; c++) {
        char ch = *c == ';' || *c == ' ' ? '_' : *c;
        buf_put(o, &ch, 1);
    }
}

/* Appends one frame of folded text: "func@file.c:LINE" (the call's line in the caller), or "func"
 * without a line, or the address ("[lib.so]+0xOFF" in a library: prof_addr_text); ';' and ' ' in
 * names become '_'. */
static void folded_frame(struct buf *o, const struct prof *p, const struct prof_location *l,
                         uint32_t j)
{
    char tmp[PROF_ADDR_TEXT];
    if (l->nline == 0) {
        folded_put(o, prof_addr_text(p, l, tmp, NULL));
        return;
    }
    const struct prof_line *ln = &p->linepool[l->line_off + j];
    const struct prof_function *fn = &p->function[ln->function_id - 1];
    folded_put(o, p->str[fn->name]);
    if (fn->filename && ln->line > 0) {
        buf_put(o, "@", 1);
        folded_put(o, base_name(p->str[fn->filename]));
        snprintf(tmp, sizeof(tmp), ":%lld", (long long)ln->line);
        buf_put(o, tmp, strlen(tmp));
    }
}

struct folded_line {
    size_t off, len;
    int64_t v;
};
static const char *folded_text;

static int by_text(const void *a, const void *b)
{
    const struct folded_line *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(folded_text + x->off, folded_text + y->off, n);
    return c ? c : x->len < y->len ? -1 : x->len > y->len ? 1 : 0;
}

int report_folded(const struct built *b, const char *path, char *err, size_t errlen)
{
    struct out_file o;
    if (out_open(&o, path, err, errlen) != 0)
        return -1;
    FILE *f = o.f;
    const struct prof *p = &b->prof, *a = &b->agg;
    struct buf text = {0};
    struct folded_line *lines = xmalloc((a->nsample + 1) * sizeof(*lines));
    size_t n = 0;
    for (size_t i = 0; i < a->nsample; i++) {
        const struct prof_sample *s = &a->sample[i];
        int64_t v = a->valpool[s->val_off + V_INUSE_B];
        if (v <= 0)
            continue;
        /* Root first: locations outermost last in pprof, lines innermost first within one. */
        size_t off = text.len;
        int first = 1;
        for (uint32_t k = s->nloc; k-- > 0;) {
            const struct prof_location *l = &p->location[a->locpool[s->loc_off + k] - 1];
            for (uint32_t j = l->nline ? l->nline : 1; j-- > 0;) {
                if (!first)
                    buf_put(&text, ";", 1);
                folded_frame(&text, p, l, j);
                first = 0;
            }
        }
        lines[n++] = (struct folded_line){off, text.len - off, v};
    }
    /* One line per distinct text: stacks that symbolize alike (return addresses in one line of
     * a caller) are summed. */
    folded_text = (const char *)text.p;
    qsort(lines, n, sizeof(*lines), by_text);
    for (size_t i = 0; i < n;) {
        int64_t v = 0;
        size_t j = i;
        for (; j < n && by_text(&lines[i], &lines[j]) == 0; j++)
            if (__builtin_add_overflow(v, lines[j].v, &v))
                v = INT64_MAX;
        fprintf(f, "%.*s %lld\n", (int)lines[i].len, (const char *)text.p + lines[i].off,
                (long long)v);
        i = j;
    }
    free(lines);
    buf_free(&text);
    return out_close(&o, 0, err, errlen);
}

/* A row of --lifetimes: the session sites of one symbolized stack (one row of --top, built.agg). */
struct life_row {
    size_t rep;   /* its first site */
    uint32_t was; /* its index before the sort (row[] of its sites) */
    uint64_t samples, culled;
    double bytes; /* allocated, culled ones included, as --top ranks them */
};

static int by_alloc(const void *a, const void *b)
{
    double x = ((const struct life_row *)a)->bytes, y = ((const struct life_row *)b)->bytes;
    return x < y ? 1 : x > y ? -1 : 0;
}

void report_lifetimes(FILE *f, const struct session *s, const struct built *b, size_t n)
{
    s = built_session(b, s);
    fprintf(f, "lifetimes (device time, %s): freed = sampled allocations freed, by how long they "
               "lived; live = those still live, by age at the end",
            s->tick_hz ? "ticks converted with the session's tick_hz" : "no tick_hz: unknown");
    if (s->min_life_s > 0)
        fprintf(f, "; --min-lifetime %g s left out %llu (estimated %.0f objects, %.0f bytes)",
                s->min_life_s, (unsigned long long)s->n.culled, s->cull_n, s->cull_b);
    fprintf(f, "\n");
    /* Rows by allocated bytes (culled ones included), as --top ranks its sites, the sites of one
     * symbolized stack together (docs/VERDICTS.md "One verdict model"); the top n get a row of
     * counts: the lifetime bins, the live entries' ages. */
    size_t nagg = b->site_agg ? b->agg.nsample : 0;
    uint32_t *group = xmalloc((nagg + s->nsites + 1) * sizeof(*group)); /* key -> row */
    uint32_t *row = xmalloc((s->nsites + 1) * sizeof(*row));            /* site -> row */
    struct life_row *rw = xmalloc((s->nsites + 1) * sizeof(*rw));
    for (size_t k = 0; k < nagg + s->nsites; k++)
        group[k] = UINT32_MAX;
    size_t m = 0;
    for (size_t i = 0; i < s->nsites; i++) {
        row[i] = UINT32_MAX;
        const struct site_rare *r = session_site_rare(s, (uint32_t)i);
        if (!s->sites[i].alloc_samples && !r->cull_samples)
            continue;
        size_t key = b->site_agg && b->site_agg[i] < nagg ? b->site_agg[i] : nagg + i;
        if (group[key] == UINT32_MAX) {
            group[key] = (uint32_t)m;
            rw[m] = (struct life_row){i, (uint32_t)m, 0, 0, 0};
            m++;
        }
        struct life_row *w = &rw[group[key]];
        w->samples += s->sites[i].alloc_samples;
        w->culled += r->cull_samples;
        w->bytes += s->sites[i].alloc_b + r->cull_b;
        row[i] = group[key];
    }
    qsort(rw, m, sizeof(*rw), by_alloc);
    size_t rows = m < n ? m : n;
    uint32_t *rank = xmalloc((m + 1) * sizeof(*rank)); /* index before the sort -> row */
    for (size_t r = 0; r < m; r++)
        rank[rw[r].was] = (uint32_t)r;
    for (size_t i = 0; i < s->nsites; i++)
        row[i] = row[i] != UINT32_MAX && rank[row[i]] < rows ? rank[row[i]] : UINT32_MAX;
    uint64_t *freed = xcalloc((size_t)DRAIN_LIFE_BUCKETS * (rows + 1), sizeof(uint64_t));
    uint64_t *live = xcalloc((size_t)DRAIN_LIFE_BUCKETS * (rows + 1), sizeof(uint64_t));
    for (size_t l = 0; l < s->nlife; l++)
        if (row[s->life[l].site] != UINT32_MAX)
            freed[(size_t)row[s->life[l].site] * DRAIN_LIFE_BUCKETS + s->life[l].bucket] +=
                s->life[l].samples;
    for (size_t k = 0; k < s->nlive; k++) {
        const struct slot *sl = &s->slots[s->live[k]];
        double ns = sl->born && s->ts_known ? session_age_ns(s, sl->birth, s->last_ts) : -1;
        if (ns >= 0 && row[sl->site] != UINT32_MAX)
            live[(size_t)row[sl->site] * DRAIN_LIFE_BUCKETS + session_life_bucket(ns)]++;
    }
    for (size_t r = 0; r < rows; r++) {
        size_t i = rw[r].rep;
        char site[1024] = "(no sample in the profile)";
        if (b->site_agg && b->site_agg[i] < b->agg.nsample)
            site_text(b, &b->agg.sample[b->site_agg[i]], site, sizeof(site));
        fprintf(f, "  site %s: %llu sampled allocations (%.0f bytes estimated)", site,
                (unsigned long long)rw[r].samples, rw[r].bytes);
        if (rw[r].culled)
            fprintf(f, ", %llu culled", (unsigned long long)rw[r].culled);
        fprintf(f, "\n    %-6s", "");
        for (unsigned k = 0; k < DRAIN_LIFE_BUCKETS; k++)
            fprintf(f, " %6s", session_life_name(k));
        fprintf(f, "\n    %-6s", "freed");
        for (unsigned k = 0; k < DRAIN_LIFE_BUCKETS; k++)
            fprintf(f, " %6llu", (unsigned long long)freed[r * DRAIN_LIFE_BUCKETS + k]);
        fprintf(f, "\n    %-6s", "live");
        for (unsigned k = 0; k < DRAIN_LIFE_BUCKETS; k++)
            fprintf(f, " %6llu", (unsigned long long)live[r * DRAIN_LIFE_BUCKETS + k]);
        fprintf(f, "\n");
    }
    if (m == 0)
        fprintf(f, "  (no sampled allocation)\n");
    free(group);
    free(row);
    free(rw);
    free(rank);
    free(freed);
    free(live);
}

void report_site_limit(FILE *f, const struct session *s)
{
    if (s->n.site_limit || s->n.sites_folded)
        fprintf(f,
                "drain: session %d: site limit reached: %llu samples of new sites counted under "
                DRAIN_SITE_LIMIT_NAME "; the profile keeps the sites before it\n",
                s->index, (unsigned long long)(s->n.site_limit + s->n.sites_folded));
}

void report_summary(FILE *f, const struct session *s, const struct built *b,
                    const struct msamp_dec_stats *dec_now, const char *path)
{
    s = built_session(b, s);
    struct msamp_dec_stats l = session_stream_losses(s, dec_now);
    char story[512], full[80] = "", frees[320];
    session_interval_summary(s, story, sizeof(story));
    session_frees_text(s, frees, sizeof(frees));
    if (s->n.stack_full)
        snprintf(full, sizeof(full), ", %llu samples under [stack table full]",
                 (unsigned long long)s->n.stack_full);
    if (s->dump)
        fprintf(f, "drain: session %d (id 0x%08x, %s): %zu sampled blocks in use; %s; reader: "
                   "%llu unknown stacks%s; wrote %s\n",
                s->index, s->session_id, msamp_arch_get(s->arch)->name, s->nlive, story,
                (unsigned long long)b->unknown_stack, full, path);
    else
        fprintf(f,
                "drain: session %d (id 0x%08x, %s): %llu samples, %s; %s; stream losses: "
                "%llu bad frames, %llu lost frames, %llu bytes discarded, %llu malformed records; "
                "device drops %llu; reader: %llu lost frees, %llu unknown stacks%s; wrote %s\n",
                s->index, s->session_id, msamp_arch_get(s->arch)->name,
                (unsigned long long)s->n.samples, frees, story, (unsigned long long)l.frames_bad,
                (unsigned long long)l.frames_lost, (unsigned long long)l.bytes_discarded,
                (unsigned long long)l.records_malformed,
                (unsigned long long)session_device_drops(s), (unsigned long long)s->n.lost_frees,
                (unsigned long long)b->unknown_stack, full, path);
    session_completeness(s, 1, story, sizeof(story));
    fprintf(f, "drain: session %d: %s\n", s->index, story);
    uint64_t fails = session_failures(s, MSAMP_FAIL_NULL) + session_failures(s, MSAMP_FAIL_GIANT);
    if (fails)
        fprintf(f, "drain: session %d: %llu allocation failures (NULL returns and giant-guard "
                   "refusals): see the report (--top) or the profile's comments\n",
                s->index, (unsigned long long)fails);
    char peak[1024]; /* the peak verdict, as --top and the profile say it */
    if (growth_peak_text(&b->prof, peak, sizeof(peak)))
        fprintf(f, "drain: session %d: %s\n", s->index, peak);
    if (exhaust_text(&b->prof, peak, sizeof(peak)))
        fprintf(f, "drain: session %d: %s\n", s->index, peak);
    if (s->min_life_s > 0)
        fprintf(f, "drain: session %d: --min-lifetime left out %llu sampled allocations freed "
                   "younger than %g s (estimated %.0f objects, %.0f bytes)\n",
                s->index, (unsigned long long)s->n.culled, s->min_life_s, s->cull_n, s->cull_b);
    warn_no_frame(f, s);
}
