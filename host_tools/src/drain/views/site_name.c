/*
 * A site as every view names it (--top's rows, --leaks, the heap's verdict, the timeline's legend,
 * the heap map): its frames on one line, innermost first, at most five.
 */
#include "views/site_name.h"
#include "util.h"

#include <stdio.h>


/* Appends a location's frames to out: "func file:line" for the first frame of the site, then
 * "func:line" for the inlined callers and outer frames, or the address when unsymbolized. */
size_t site_frames(const struct prof *p, uint64_t loc_id, int first, char *out, size_t n,
                          size_t len, int *frames)
{
    const struct prof_location *l = &p->location[loc_id - 1];
    if (l->nline == 0 && len < n) {
        char a[PROF_ADDR_TEXT];
        len += (size_t)snprintf(out + len, n - len, "%s%s", first ? "" : " < ",
                                prof_addr_text(p, l, a, NULL));
        (*frames)++;
    }
    for (uint32_t j = 0; j < l->nline && len < n; j++) {
        const struct prof_line *ln = &p->linepool[l->line_off + j];
        const struct prof_function *f = &p->function[ln->function_id - 1];
        const char *sep = first && j == 0 ? "" : " < ";
        if (first && j == 0 && f->filename)
            len += (size_t)snprintf(out + len, n - len, "%s%s %s:%lld", sep, p->str[f->name],
                                    base_name(p->str[f->filename]), (long long)ln->line);
        else if (ln->line > 0) /* the call's line tells two call sites in one caller apart */
            len += (size_t)snprintf(out + len, n - len, "%s%s:%lld%s", sep, p->str[f->name],
                                    (long long)ln->line, j + 1 < l->nline ? " (inline)" : "");
        else
            len += (size_t)snprintf(out + len, n - len, "%s%s%s", sep, p->str[f->name],
                                    j + 1 < l->nline ? " (inline)" : "");
        (*frames)++;
    }
    return len;
}

void report_frames(const struct prof *p, const uint64_t *locs, uint32_t nloc, char *out, size_t n)
{
    size_t len = 0;
    int frames = 0;
    out[0] = 0;
    for (uint32_t k = 0; k < nloc && frames < 5 && len < n - 1; k++)
        len = site_frames(p, locs[k], k == 0, out, n, len, &frames);
}

/* A site's frames as one line (at most 5 frames), from its agg sample. */
void site_text(const struct built *b, const struct prof_sample *s, char *site, size_t n)
{
    report_frames(&b->prof, b->agg.locpool + s->loc_off, s->nloc, site, n);
}

void report_site_name(const struct built *b, uint32_t site, char *out, size_t n)
{
    if (b->site_agg && b->site_agg[site] < b->agg.nsample) {
        site_text(b, &b->agg.sample[b->site_agg[site]], out, n);
        return;
    }
    snprintf(out, n, "(site %u)", site);
    for (size_t i = 0; i < b->nfails; i++) /* a site of failures alone */
        if (b->fails[i].site == site) {
            report_frames(&b->prof, b->fails[i].locs, b->fails[i].nloc, out, n);
            return;
        }
}
