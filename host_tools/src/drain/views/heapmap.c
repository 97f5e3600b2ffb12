/* drain's heap map of a post-mortem dump (heapmap.h, docs/POSTMORTEM.md "The heap map"). */
#include "views/heapmap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "views/flame.h"
#include "views/site_name.h"
#include "util.h"

#define W 1000       /* the map's width in pixels */
#define ROW_H 14     /* a row's height */
#define ROWS_MAX 64  /* rows at most: a row holds (heap bytes / rows) */
#define COLOURS 8

/* Free holes, allocated blocks, unreachable blocks and the largest hole's outline; then the
 * reachable sampled blocks' colours by site rank. */
#define C_FREE "#2ca02c"
#define C_USED "#c7c7c7"
#define C_LOST "#d62728"
#define C_BIG "#ff7f0e"
static const char *const site_colour[COLOURS] = {"#1f77b4", "#9467bd", "#8c564b", "#e377c2",
                                                 "#17becf", "#bcbd22", "#393b79", "#7f7f7f"};

/* Per site of the session (index nsites: blocks with no slot in the profile). */
struct agg {
    size_t n[5];
    uint64_t bytes;
};

static const struct agg *sort_agg;
static int by_bytes(const void *a, const void *b)
{
    const struct agg *x = &sort_agg[*(const size_t *)a], *y = &sort_agg[*(const size_t *)b];
    return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

static size_t site_of(const struct session *s, const struct hw_live *l)
{
    const struct slot *sl = session_slot(s, l->slot);
    return sl && sl->site < s->nsites ? sl->site : s->nsites;
}

/* The sites holding sampled blocks, by sampled bytes: *order (m of them); agg per site. */
static struct agg *aggregate(const struct hw_heap *h, const struct session *s, size_t **order,
                             size_t *m)
{
    struct agg *a = xcalloc(s->nsites + 1, sizeof(*a));
    for (size_t i = 0; i < h->nlive; i++) {
        struct agg *x = &a[site_of(s, &h->live[i])];
        x->n[h->live[i].state]++;
        x->bytes += h->live[i].size;
    }
    *order = xmalloc((s->nsites + 1) * sizeof(**order));
    *m = 0;
    for (size_t i = 0; i <= s->nsites; i++)
        if (a[i].n[0] + a[i].n[1] + a[i].n[2] + a[i].n[3] + a[i].n[4])
            (*order)[(*m)++] = i;
    sort_agg = a;
    qsort(*order, *m, sizeof(**order), by_bytes);
    return a;
}

static void site_name(const struct session *s, const struct built *b, size_t site, char *out,
                      size_t n)
{
    if (site >= s->nsites)
        snprintf(out, n, "(a slot the profile does not hold)");
    else
        report_site_name(b, site, out, n);
}

void heapmap_sites(FILE *f, const struct hw_heap *h, const struct session *s,
                   const struct built *b)
{
    size_t *order, m;
    struct agg *a = aggregate(h, s, &order, &m);
    char line[256];
    hw_describe(h, line, sizeof(line));
    fprintf(f, "\nHeap (%s)\n", line);
    fprintf(f, "Sampled live blocks by site, reachable (held) or unreachable (leaked): a "
               "conservative scan of the writable sections and the heap blocks reached, interior "
               "pointers counted; registers and memory not dumped are not seen "
               "(docs/POSTMORTEM.md)\n");
    fprintf(f, "  %9s %11s %6s %10s  %s\n", "reachable", "unreachable", "other", "bytes",
            "site (innermost first)");
    for (size_t r = 0; r < m; r++) {
        const struct agg *x = &a[order[r]];
        char site[1024];
        site_name(s, b, order[r], site, sizeof(site));
        fprintf(f, "  %9zu %11zu %6zu %10" PRIu64 "  %s\n", x->n[HW_REACHABLE],
                x->n[HW_UNREACHABLE], x->n[HW_IN_FREE] + x->n[HW_OUTSIDE] + x->n[HW_NOT_SCANNED],
                x->bytes, site);
    }
    free(order);
    free(a);
}

/* A span [a, a + n) of the heap as rects over the rows it crosses. */
static void rects(FILE *f, const struct hw_heap *h, uint64_t row_bytes, uint64_t a, uint64_t n,
                  const char *fill, const char *extra)
{
    uint64_t off = a - h->lo, end = off + n;
    while (off < end) {
        uint64_t row = off / row_bytes, stop = (row + 1) * row_bytes < end ? (row + 1) * row_bytes
                                                                           : end;
        double x = (double)(off - row * row_bytes) * W / (double)row_bytes;
        double w = (double)(stop - off) * W / (double)row_bytes;
        fprintf(f, "<rect x=\"%.2f\" y=\"%" PRIu64 "\" width=\"%.2f\" height=\"%d\" fill=\"%s\"%s/>"
                   "\n", x, row * (ROW_H + 2), w < 0.6 ? 0.6 : w, ROW_H, fill, extra);
        off = stop;
    }
}

/* The neighbour of the largest hole in direction dir (-1 before, +1 after), described. */
static void neighbour(FILE *f, const struct hw_heap *h, const struct session *s,
                      const struct built *b, int dir)
{
    size_t k = SIZE_MAX;
    for (size_t i = 0; i < h->nb; i++)
        if (h->b[i].addr == h->largest_at)
            k = i;
    if (k == SIZE_MAX || (dir < 0 && k == 0) || (dir > 0 && k + 1 >= h->nb)) {
        fprintf(f, "%s", dir < 0 ? "the heap's start" : "the heap's end");
        return;
    }
    const struct hw_block *n = &h->b[k + (size_t)(ptrdiff_t)dir];
    fprintf(f, "block 0x%" PRIx64 " (%" PRIu64 " B%s", n->addr + h->hdr, n->size,
            n->free ? ", free" : "");
    for (size_t i = 0; i < h->nlive; i++)
        if (h->live[i].block == (size_t)(n - h->b)) {
            char site[1024];
            site_name(s, b, site_of(s, &h->live[i]), site, sizeof(site));
            fprintf(f, ", sampled, %s: ", hw_state_name(h->live[i].state));
            views_xml_text(f, site, strlen(site));
        }
    fprintf(f, ")");
}

/* The bytes the map spans. */
static uint64_t map_span(const struct hw_heap *h)
{
    return h->hi > h->lo ? h->hi - h->lo : 1;
}

/* Rows of the map: 16 to ROWS_MAX, about 64 KiB each; a row's bytes. */
static uint64_t map_row_bytes(const struct hw_heap *h, uint64_t *rows)
{
    uint64_t span = map_span(h);
    *rows = span / (64u * 1024u) + 1u;
    *rows = *rows < 16 ? 16 : *rows > ROWS_MAX ? ROWS_MAX : *rows;
    return (span + *rows - 1) / *rows;
}

/* The page's head, the heap's health and numbers, and the colours' key. */
static void map_head(FILE *f, const struct hw_heap *h, uint64_t row_bytes)
{
    char line[512];
    hw_describe(h, line, sizeof(line));
    fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>heap map</title>\n"
               "<style>body{font:13px sans-serif;margin:12px}table{border-collapse:collapse}"
               "td,th{padding:1px 8px;text-align:left}td.n{text-align:right}"
               ".k{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px}</style>"
               "</head><body>\n<h1>Heap map</h1>\n<p id=\"health\">");
    views_xml_text(f, line, strlen(line));
    fprintf(f, "</p>\n<p id=\"numbers\">free <b>%" PRIu64 "</b> B, largest free block <b>%" PRIu64
               "</b> B, free blocks <b>%zu</b>, allocated %" PRIu64 " B in %" PRIu64
               " blocks; each row is %" PRIu64 " B</p>\n", h->free_bytes, h->largest, h->nfl,
            h->used_bytes, h->used_blocks, row_bytes);
    fprintf(f, "<p><span class=\"k\" style=\"background:%s\"></span>free"
               "<span class=\"k\" style=\"background:%s\"></span>allocated, not sampled"
               "<span class=\"k\" style=\"background:%s\"></span>sampled, unreachable"
               "<span class=\"k\" style=\"background:none;border:2px solid %s\"></span>the largest "
               "hole; sampled reachable blocks in their site's colour (table below)</p>\n",
            C_FREE, C_USED, C_LOST, C_BIG);
}

/* The map: the heap allocated, its free holes, the sampled blocks (reachable ones in their site's
 * colour, rank[site]), the largest hole outlined; then the largest hole's neighbours. */
static void map_svg(FILE *f, const struct hw_heap *h, const struct session *s,
                    const struct built *b, const size_t *rank, uint64_t rows, uint64_t row_bytes)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"map\" width=\"%d\" height=\"%"
               PRIu64 "\">\n", W, rows * (ROW_H + 2));
    rects(f, h, row_bytes, h->lo, map_span(h), C_USED, "");
    for (size_t i = 0; i < h->nfl; i++) {
        char extra[96];
        snprintf(extra, sizeof(extra), " class=\"hole\" data-addr=\"%" PRIu64 "\" data-size=\"%"
                 PRIu64 "\"", h->fl[i].addr, h->fl[i].size);
        rects(f, h, row_bytes, h->fl[i].addr, h->fl[i].size, C_FREE, extra);
    }
    for (size_t i = 0; i < h->nlive; i++) {
        const struct hw_live *l = &h->live[i];
        if (l->block == SIZE_MAX)
            continue;
        const struct hw_block *bl = &h->b[l->block];
        char extra[96];
        snprintf(extra, sizeof(extra), " class=\"live %s\" data-addr=\"%" PRIu64 "\"",
                 l->state == HW_UNREACHABLE ? "lost" : "held", l->addr);
        rects(f, h, row_bytes, bl->addr, bl->size,
              l->state == HW_UNREACHABLE ? C_LOST : site_colour[rank[site_of(s, l)]], extra);
    }
    if (h->largest) {
        uint64_t off = h->largest_at - h->lo;
        double x = (double)(off % row_bytes) * W / (double)row_bytes;
        fprintf(f, "<rect x=\"%.2f\" y=\"%" PRIu64 "\" width=\"%.2f\" height=\"%d\" fill=\"none\" "
                   "stroke=\"%s\" stroke-width=\"2\" id=\"largest\"/>\n", x,
                off / row_bytes * (ROW_H + 2), h->largest * W / (double)row_bytes > W - x
                                                   ? W - x : h->largest * W / (double)row_bytes,
                ROW_H, C_BIG);
    }
    fprintf(f, "</svg>\n");
    if (h->largest) {
        fprintf(f, "<p id=\"largest-hole\">The largest hole: %" PRIu64 " B at 0x%" PRIx64
                   "; before it ", h->largest, h->largest_at);
        neighbour(f, h, s, b, -1);
        fprintf(f, "; after it ");
        neighbour(f, h, s, b, 1);
        fprintf(f, ".</p>\n");
    }
}

/* The tables: sampled live blocks by site (the m sites of order[], agg a), each sampled live
 * block, the free holes. */
static void map_tables(FILE *f, const struct hw_heap *h, const struct session *s,
                       const struct built *b, const struct agg *a, const size_t *order, size_t m,
                       const size_t *rank)
{
    fprintf(f, "<h2>Sampled live blocks by site</h2>\n<p>Reachable: a chain of aligned pointers "
               "from .data, .bss or another section the firmware writes (the main stack too) "
               "through the heap blocks reached (task stacks among them) ends inside it "
               "(interior pointers count). Unreachable: none does: leaked, unless a register or "
               "memory not in the dump held it (docs/POSTMORTEM.md).</p>\n<table id=\"sites\">"
               "<tr><th></th><th>reachable</th><th>unreachable</th><th>other</th><th>bytes</th>"
               "<th>site</th></tr>\n");
    for (size_t r = 0; r < m; r++) {
        const struct agg *x = &a[order[r]];
        char site[1024];
        site_name(s, b, order[r], site, sizeof(site));
        fprintf(f, "<tr><td><span class=\"k\" style=\"background:%s\"></span></td><td class=\"n\">"
                   "%zu</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td><td class=\"n\">%"
                   PRIu64 "</td><td>", site_colour[rank[order[r]]], x->n[HW_REACHABLE],
                x->n[HW_UNREACHABLE], x->n[HW_IN_FREE] + x->n[HW_OUTSIDE] + x->n[HW_NOT_SCANNED],
                x->bytes);
        views_xml_text(f, site, strlen(site));
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n<h2>Sampled live blocks</h2>\n<table id=\"blocks\"><tr><th>address"
               "</th><th>size</th><th>state</th><th>held by (the first word found)</th><th>site"
               "</th></tr>\n");
    for (size_t i = 0; i < h->nlive; i++) {
        const struct hw_live *l = &h->live[i];
        char site[1024], holder[160] = "";
        site_name(s, b, site_of(s, l), site, sizeof(site));
        if (l->state == HW_REACHABLE)
            hw_holder(h, h->b[l->block].held_at, holder, sizeof(holder));
        fprintf(f, "<tr><td>0x%" PRIx64 "</td><td class=\"n\">%" PRIu64 "</td><td>%s</td><td>",
                l->addr, l->size, hw_state_name(l->state));
        views_xml_text(f, holder, strlen(holder));
        fprintf(f, "</td><td>");
        views_xml_text(f, site, strlen(site));
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n<h2>Free holes (the free list's order)</h2>\n<table id=\"holes\">"
               "<tr><th>address</th><th>size</th></tr>\n");
    for (size_t i = 0; i < h->nfl; i++)
        fprintf(f, "<tr><td>0x%" PRIx64 "</td><td class=\"n\">%" PRIu64 "</td></tr>\n",
                h->fl[i].addr, h->fl[i].size);
    fputs("</table>\n", f);
}

/* The heap's data for scripts and tests: the free holes and the sampled live blocks. */
static void map_json(FILE *f, const struct hw_heap *h, const struct session *s,
                     const struct built *b)
{
    fputs("<script type=\"application/json\" id=\"heap-data\">{\"allocator\": ", f);
    json_fput_str(f, h->allocator, strlen(h->allocator), JSON_IN_SCRIPT);
    fprintf(f, ", \"lo\": %" PRIu64 ", \"hi\": %" PRIu64 ", \"free_bytes\": %" PRIu64
               ", \"largest_free\": %" PRIu64 ", \"free_blocks\": %zu, \"free\": [",
            h->lo, h->hi, h->free_bytes, h->largest, h->nfl);
    for (size_t i = 0; i < h->nfl; i++)
        fprintf(f, "%s[%" PRIu64 ", %" PRIu64 "]", i ? ", " : "", h->fl[i].addr, h->fl[i].size);
    fprintf(f, "], \"live\": [");
    for (size_t i = 0; i < h->nlive; i++) {
        const struct hw_live *l = &h->live[i];
        char site[1024];
        site_name(s, b, site_of(s, l), site, sizeof(site));
        fprintf(f, "%s{\"addr\": %" PRIu64 ", \"size\": %" PRIu64 ", \"state\": \"%s\", "
                   "\"site\": ", i ? ", " : "", l->addr, l->size, hw_state_name(l->state));
        json_fput_str(f, site, strlen(site), JSON_IN_SCRIPT);
        fputc('}', f);
    }
    fprintf(f, "]}</script>\n");
}

int heapmap_write(const struct hw_heap *h, const struct session *s, const struct built *b,
                  const char *path, char *why, size_t whylen)
{
    struct out_file o;
    if (out_open(&o, path, why, whylen) != 0)
        return -1;
    FILE *f = o.f;
    size_t *order, m;
    struct agg *a = aggregate(h, s, &order, &m);
    size_t *rank = xmalloc((s->nsites + 1) * sizeof(*rank));
    for (size_t i = 0; i <= s->nsites; i++)
        rank[i] = COLOURS - 1;
    for (size_t r = 0; r < m && r < COLOURS - 1; r++)
        rank[order[r]] = r;
    uint64_t rows, row_bytes = map_row_bytes(h, &rows);
    map_head(f, h, row_bytes);
    map_svg(f, h, s, b, rank, rows, row_bytes);
    map_tables(f, h, s, b, a, order, m, rank);
    map_json(f, h, s, b);
    fprintf(f, "</body></html>\n");
    free(rank);
    free(order);
    free(a);
    return out_close(&o, 0, why, whylen);
}
