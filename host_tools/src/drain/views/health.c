/* Heap health in --top and --json (docs/HEALTH.md): the allocator's latest figures, the headroom,
 * the verdict in plain words with its evidence, each failure explained. The model and the verdict
 * are model/heap.c's. */
#include <stdio.h>
#include <stdlib.h>

#include "model/heap.h"
#include "verdict/json_out.h"
#include "verdict/vprof.h"
#include "views/health.h"
#include "views/leaks.h"
#include "views/site_name.h"
#include "util.h"

/* The leaks by growth the profile p stores (*lk: malloc'd, the caller frees), as --leaks and
 * --json read them: the heap's leaks are theirs (docs/HEALTH.md). */
static size_t stored_leaks(const struct prof *p, struct growth_leak **lk)
{
    *lk = xmalloc((p->ncomment + 1) * sizeof(**lk));
    return growth_leaks_from_prof(p, *lk, p->ncomment + 1);
}

void health_top(FILE *f, const struct session *s, const struct built *b)
{
    const struct heap_model *h = s->heap;
    if (!h || h->records == 0)
        return;
    const struct heap_point *e = &h->last;
    fprintf(f, "heap (the allocator's own figures, %llu HEAP records):",
            (unsigned long long)h->records);
    heap_put_figures(f, e, 0);
    fputc('\n', f);
    if (e->valid & MSAMP_WIRE_HEAP_MIN_SEEN)
        fprintf(f, "  (min_free: the fewest the device saw at its polls; the allocator keeps none)\n");
    if (heap_put_unheld(f, s, 0, "  ", "\n  "))
        fputc('\n', f);
    struct growth_leak *lk;
    size_t nlk = stored_leaks(&b->prof, &lk);
    struct heap_verdict v;
    heap_verdict(s, nlk > 0, &v);
    char site[1024];
    uint64_t low, total;
    if (heap_headroom(s, &low, &total))
        fprintf(f, "  headroom: at its lowest %llu B free (%.1f %% of %llu B)\n",
                (unsigned long long)low, 100.0 * (double)low / (double)total,
                (unsigned long long)total);
    else if (h->total_varies)
        fprintf(f, "  headroom: unknown (the allocator's total changed over the session: the heap "
                   "grows, up to a limit its figures do not tell)\n");
    fprintf(f, "  verdict: %s", heap_verdict_word(&v));
    if (!v.known && !v.leak)
        fprintf(f, " (%s%s)",
                s->ts_known && s->tick_hz ? "fewer than two HEAP records with the free bytes"
                                          : "no device time: leaks by growth not judged",
                e->has_var ? "; the unheld bytes over time: --json's heap series" : "");
    fputc('\n', f);
    if (v.window_s > 0)
        fprintf(f, "    trend over the later half (%.3g s): allocator's use (%s) %+.0f B, sampled "
                   "in-use %+.0f B\n",
                v.window_s, v.use_total ? "total - free" : "- free", v.used_growth,
                v.sampled_growth);
    for (size_t i = 0; i < nlk; i++)
        leaks_line(f, &b->prof, &lk[i], "    leak: ");
    free(lk);
    if (v.frag) {
        fprintf(f, "    fragmentation: %.0f %% of the free bytes outside the largest block at the "
                   "end (%.0f %% at the start)",
                100.0 * v.frag_last, 100.0 * v.frag_first);
        if (v.frag_fails)
            fprintf(f, "; %llu failures asked for less than was free",
                    (unsigned long long)v.frag_fails);
        fputc('\n', f);
        for (size_t i = 0; i < v.nheld; i++) {
            report_site_name(b, v.held_site[i], site, sizeof(site));
            fprintf(f, "    long-lived blocks between the holes: %.0f B  %s\n", v.held_b[i], site);
        }
    }
    if (!v.leak && !v.frag && v.known)
        fprintf(f, "    healthy: no leak by growth (--leaks), %s\n",
                v.frag_last >= 0 ? "the free bytes mostly in one block"
                : h->total_varies
                    ? "fragmentation not judged (the heap grows: its room beyond what it took "
                      "is unknown)"
                    : "fragmentation not judged (the largest free block unknown)");
    for (size_t i = 0; i < h->nfails; i++) {
        if (i == 4 && h->nfails > 5) { /* the first four and the last */
            fprintf(f, "  ... %zu more failures explained alike in --json\n", h->nfails - 5);
            i = h->nfails - 1;
        }
        char text[256];
        heap_fail_text(&h->fails[i], text, sizeof(text));
        report_site_name(b, h->fails[i].site, site, sizeof(site));
        fprintf(f, "  failure: %s  %s\n", text, site);
    }
    if (h->have_low) { /* the low watermark is headroom's; this says which moment --peak takes */
        char low[160];
        heap_low_text(s, low, sizeof(low));
        if (heap_peak_is_device(s, NULL))
            fprintf(f, "  --peak takes the device's last low-watermark snapshot (drain's own model "
                       "is incomplete): %s\n", low);
        else
            fprintf(f, "  --peak takes the peak of drain's running estimate (its model is "
                       "complete), not the device's low-watermark snapshot\n");
    }
}

void heap_json_write(FILE *f, const struct session *s, const uint32_t *site_prof,
                     const struct vprof *vp)
{
    const struct heap_model *h = s->heap;
    if (!h || h->records == 0) {
        fputs("\"heap\":null", f);
        return;
    }
    const struct heap_point *e = &h->last;
    fprintf(f, "\"heap\":{\"records\":%llu", (unsigned long long)h->records);
    heap_put_figures(f, e, 1);
    heap_put_unheld(f, s, 1, "", "");
    fprintf(f, ",\"min_free_seen_by_device\":%s",
            e->valid & MSAMP_WIRE_HEAP_MIN_SEEN ? "true" : "false");
    struct growth_leak *lk;
    size_t nlk = stored_leaks(vp->p, &lk);
    free(lk);
    struct heap_verdict v;
    heap_verdict(s, nlk > 0, &v);
    uint64_t low, total;
    int room = heap_headroom(s, &low, &total);
    fprintf(f, ",\"verdict\":\"%s\",\"used_growth\":%.0f,\"used_is_total_less_free\":%s,"
               "\"sampled_growth\":%.0f,\"headroom\":",
            heap_verdict_word(&v), v.used_growth, v.use_total ? "true" : "false",
            v.sampled_growth);
    if (room)
        fprintf(f, "%.6f", (double)low / (double)total);
    else
        fputs("null", f);
    fputs(",\"leaks\":", f);
    json_leak_sites(f, vp);
    /* The long-lived blocks' sites named as every site of the JSON is (its stack's functions and
     * its task), not by the device's stack id (docs/VERDICTS.md "One verdict model"). */
    fputs(",\"long_lived\":[", f);
    for (size_t i = 0, k = 0; i < v.nheld; i++) {
        uint32_t smp = site_prof ? site_prof[v.held_site[i]] : UINT32_MAX;
        if (smp == UINT32_MAX || smp >= vp->p->nsample)
            continue;
        const struct vsite *vs = &vp->site[vp->site_of[smp]];
        fputs(k++ ? ",{\"stack\":" : "{\"stack\":", f);
        json_stack(f, vp, vs);
        fputs(",\"task\":", f);
        json_str(f, vs->task);
        fprintf(f, ",\"bytes\":%.0f}", v.held_b[i]);
    }
    fputs("],\"failures\":[", f);
    for (size_t i = 0; i < h->nfails; i++) {
        char text[256];
        heap_fail_text(&h->fails[i], text, sizeof(text));
        fprintf(f, "%s{\"size\":%llu,\"free\":%llu,\"largest_free\":%llu,\"why\":\"%s\"}",
                i ? "," : "", (unsigned long long)h->fails[i].size,
                (unsigned long long)h->fails[i].at.free,
                (unsigned long long)h->fails[i].at.largest, text);
    }
    fputs("],\"series\":[", f);
    for (size_t i = 0; i < h->n; i++) {
        const struct heap_point *p = &h->pts[i];
        double t = session_time_s(s, p->ts, p->ts_known);
        fprintf(f, "%s{\"t\":%.6f,\"reason\":%u,\"free\":%llu,\"min_free\":%llu,"
                   "\"largest_free\":%llu,\"free_blocks\":%llu,\"inuse_sampled\":%.0f",
                i ? "," : "", t, p->reason, (unsigned long long)p->free,
                (unsigned long long)p->min_free, (unsigned long long)p->largest,
                (unsigned long long)p->blocks, p->inuse_b);
        if (p->valid & MSAMP_WIRE_HEAP_TOTAL)
            fprintf(f, ",\"total\":%llu", (unsigned long long)p->total);
        else
            fputs(",\"total\":null", f);
        heap_put_point_unheld(f, p);
        fputc('}', f);
    }
    fputs("]}", f);
}

double health_timeline_ymax(const struct session *s)
{
    const struct heap_model *h = s->heap;
    double m = 0;
    for (size_t i = 0; h && i < h->n; i++) {
        const struct heap_point *p = &h->pts[i];
        if ((p->valid & MSAMP_WIRE_HEAP_FREE) && (double)p->free > m)
            m = (double)p->free;
        if ((p->valid & MSAMP_WIRE_HEAP_LARGEST_FREE) && (double)p->largest > m)
            m = (double)p->largest;
    }
    return m;
}

/* The three lines: free, the low watermark, the largest free block (steps from one HEAP record to
 * the next), each with its latest value in its title and a label at its end, on the allocator's
 * own axis (m->ymax: the right-hand one, apart from the sampled in-use). */
void health_timeline_svg(FILE *f, const struct session *s, const struct health_map *m)
{
    const struct heap_model *h = s->heap;
    if (!h || h->n == 0 || !(m->xmax > 0) || !(m->ymax > 0))
        return;
    static const struct {
        const char *id, *name, *colour, *dash;
        uint64_t bit;
    } line[3] = {{"heap-free", "free (allocator)", "#000000", "", MSAMP_WIRE_HEAP_FREE},
                 {"heap-min-free", "min free (allocator)", "#7f7f7f", "4 3",
                  MSAMP_WIRE_HEAP_MIN_FREE | MSAMP_WIRE_HEAP_MIN_SEEN},
                 {"heap-largest-free", "largest free block", "#8c6d31", "1 2",
                  MSAMP_WIRE_HEAP_LARGEST_FREE}};
    fprintf(f, "<g id=\"heap\">\n");
    for (int k = 0; k < 3; k++) {
        int pen = 0;
        double lx = 0, ly = 0;
        uint64_t last = 0;
        for (size_t i = 0; i < h->n; i++) {
            const struct heap_point *p = &h->pts[i];
            if (!(p->valid & line[k].bit) || !p->ts_known || p->ts < m->t0)
                continue;
            uint64_t v = k == 0 ? p->free : k == 1 ? p->min_free : p->largest;
            double t = (double)(p->ts - m->t0) / (m->tick_hz > 0 ? m->tick_hz : 1);
            if (t > m->xmax)
                t = m->xmax;
            double x = m->left + t / m->xmax * m->width;
            double y = m->bottom - ((double)v / m->ymax) * m->height;
            if (!pen)
                fprintf(f, "<path id=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
                           "stroke-dasharray=\"%s\" d=\"M%.1f %.1f",
                        line[k].id, line[k].colour, line[k].dash, x, y);
            else
                fprintf(f, "H%.1f V%.1f", x, y);
            pen = 1;
            lx = x;
            ly = y;
            last = v;
        }
        if (!pen)
            continue;
        char b[32];
        fmt_bytes(b, sizeof(b), (double)last);
        fprintf(f, "\"><title>%s: latest %llu B</title></path>\n<text class=\"heap-label\" "
                   "x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\" text-anchor=\"end\">%s "
                   "%s</text>\n",
                line[k].name, (unsigned long long)last, lx - 2, ly - 3 - 14.0 * k,
                line[k].colour, line[k].name, b);
    }
    fprintf(f, "</g>\n");
}
