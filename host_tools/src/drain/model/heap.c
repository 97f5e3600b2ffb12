/* Heap health (heap.h, docs/HEALTH.md): HEAP records into a bounded series beside the sampled
 * in-use, failures with the heap they left, the device's low-watermark moment, the verdict. */
#include "model/heap.h"

#include <stdlib.h>
#include <string.h>

#include "model/session.h"
#include "util.h"
#include "model/est.h"
#include "model/growth_track.h"

void heap_model_free(struct heap_model *h)
{
    if (!h)
        return;
    free(h->pts);
    free(h->low_n);
    free(h->low_b);
    free(h);
}

static void free_part(void *p)
{
    heap_model_free(p);
}

static struct heap_model *model_of(struct session *s)
{
    if (!s->heap) {
        s->heap = xcalloc(1, sizeof(*s->heap));
        session_attach(s, free_part, s->heap);
    }
    return s->heap;
}

/* The sites' in-use bytes now, and objects (*n), into fresh arrays. */
static double *sites_now(const struct session *s, double **n)
{
    double *b = xcalloc(s->nsites + 1, sizeof(*b));
    *n = xcalloc(s->nsites + 1, sizeof(**n));
    for (size_t i = 0; i < s->nsites; i++) {
        b[i] = s->sites[i].inuse_b;
        (*n)[i] = s->sites[i].inuse_n;
    }
    return b;
}

static void add_point(struct heap_model *h, const struct heap_point *p)
{
    if (h->n == HEAP_MAX_POINTS) { /* every other one goes, the latest stays */
        size_t k = 0;
        for (size_t i = 0; i < h->n; i += 2)
            h->pts[k++] = h->pts[i];
        h->n = k;
    }
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->pts = xrealloc(h->pts, h->cap * sizeof(*h->pts));
    }
    h->pts[h->n++] = *p;
}

void heap_on_record(struct session *s, const struct msamp_record *r)
{
    struct heap_model *h = model_of(s);
    struct heap_point p = {.ts = r->ts,
                           .ts_known = r->ts_valid,
                           .reason = (unsigned)r->u.heap.reason,
                           .valid = r->u.heap.valid,
                           .free = r->u.heap.free_bytes,
                           .min_free = r->u.heap.min_free,
                           .largest = r->u.heap.largest_free,
                           .blocks = r->u.heap.free_blocks,
                           .total = r->u.heap.total,
                           .inuse_b = s->inuse_b};
    /* The free bytes unknown, the total known: the unheld bytes' estimate (heap_unheld_at). */
    if ((p.valid & (MSAMP_WIRE_HEAP_FREE | MSAMP_WIRE_HEAP_TOTAL)) == MSAMP_WIRE_HEAP_TOTAL &&
        growth_inuse_var(s, &p.inuse_v, &p.half_v)) {
        p.has_var = 1;
        p.half_a = s->half_a_b;
        p.half_b = s->half_b;
    }
    if (h->records && (p.valid & MSAMP_WIRE_HEAP_TOTAL) && p.total != h->last.total)
        h->total_varies = 1; /* a heap that grows (glibc's arenas): its low is not its worst */
    h->records++;
    h->last = p;
    add_point(h, &p);
    if (p.reason == MSAMP_HEAP_FAIL && h->fail_pending && h->nfails < HEAP_MAX_FAILS)
        h->fails[h->nfails++] = (struct heap_fail){h->fail_size, h->fail_kind, h->fail_site, p};
    h->fail_pending = 0;
    if (p.reason == MSAMP_HEAP_LOW) {
        h->low_next = p;
        h->low_pending = 1;
    }
}

void heap_on_snap_end(struct session *s)
{
    struct heap_model *h = s->heap;
    /* A copy of every site at most once per nsites/16 HEAP records: a stream of low watermarks
     * and passes costs drain 16 site copies per record at most (docs/RELIABILITY.md's bounds). */
    if (!h || !h->low_pending || (h->have_low && h->records - h->low_copied_at < s->nsites / 16))
        return;
    h->low_copied_at = h->records;
    free(h->low_n);
    free(h->low_b);
    h->low_b = sites_now(s, &h->low_n);
    h->low_sites = s->nsites;
    h->low = h->low_next;
    h->have_low = 1;
    h->low_pending = 0;
}

int heap_peak_is_device(const struct session *s, const struct heap_point **when)
{
    const struct heap_model *h = s->heap;
    char text[512];
    if (!h || !h->have_low || h->total_varies)
        return 0;
    /* Records known lost: the END's totals against what came, or without an END the device's
     * drops, a late join or the reader's repairs. A stream that only lacks its END (a firmware
     * that never calls msamp_end) keeps drain's own peak, exact for what it saw. */
    if (s->have_end ? session_completeness(s, 1, text, sizeof(text))
                    : !(session_device_drops(s) || s->n.unknown_frees || s->n.late_live ||
                        s->n.lost_frees))
        return 0;
    if (when)
        *when = &h->low;
    return 1;
}

void heap_on_fail(struct session *s, const struct msamp_record *r, uint32_t site)
{
    struct heap_model *h = model_of(s);
    h->fail_pending = 1;
    h->fail_size = r->u.fail.size;
    h->fail_kind = r->u.fail.kind;
    h->fail_site = site;
}

int heap_site_low(const struct session *s, uint32_t site, double *n, double *b)
{
    const struct heap_model *h = s->heap;
    if (!heap_peak_is_device(s, NULL))
        return 0;
    *n = site < h->low_sites ? h->low_n[site] : 0;
    *b = site < h->low_sites ? h->low_b[site] : 0;
    return 1;
}

#define KNOWS(p, bit) (((p)->valid & (bit)) != 0)

static double frag_index(const struct heap_point *p)
{
    if (!KNOWS(p, MSAMP_WIRE_HEAP_FREE) || !KNOWS(p, MSAMP_WIRE_HEAP_LARGEST_FREE) || p->free == 0)
        return -1;
    return 1.0 - (double)p->largest / (double)p->free;
}

/* The largest values of x over sites, their indexes into site[] (at most HEAP_MAX_NAMED, each at
 * least min). */
static size_t top_sites(const double *x, size_t n, double min, uint32_t *site, double *val)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] >= min) || !(x[i] > 0))
            continue;
        size_t j = k < HEAP_MAX_NAMED ? k++ : HEAP_MAX_NAMED;
        if (j == HEAP_MAX_NAMED) {
            if (!(x[i] > val[HEAP_MAX_NAMED - 1]))
                continue;
            j = HEAP_MAX_NAMED - 1;
        }
        while (j > 0 && val[j - 1] < x[i]) {
            val[j] = val[j - 1];
            site[j] = site[j - 1];
            j--;
        }
        val[j] = x[i];
        site[j] = (uint32_t)i;
    }
    return k;
}

/* The least-squares slope of y over t (0 with fewer than 2 distinct times). */
static double slope(const double *t, const double *y, size_t n)
{
    double st = 0, sy = 0, stt = 0, sty = 0;
    for (size_t i = 0; i < n; i++) {
        st += t[i];
        sy += y[i];
        stt += t[i] * t[i];
        sty += t[i] * y[i];
    }
    double d = (double)n * stt - st * st;
    return n >= 2 && d > 0 ? ((double)n * sty - st * sy) / d : 0;
}

void heap_verdict(const struct session *s, int leak, struct heap_verdict *v)
{
    memset(v, 0, sizeof(*v));
    v->frag_first = v->frag_last = v->window_s = -1;
    v->leak = leak;
    const struct heap_model *h = s->heap;
    if (!h || !KNOWS(&h->last, MSAMP_WIRE_HEAP_FREE))
        return;
    const struct heap_point *e = &h->last, *first = NULL;
    for (size_t i = 0; i < h->n && !first; i++) /* before the allocator's start it knows nothing */
        if (KNOWS(&h->pts[i], MSAMP_WIRE_HEAP_FREE) && h->pts[i].free != 0)
            first = &h->pts[i];
    if (!first || first == e)
        return;
    v->known = s->ts_known && s->tick_hz; /* the leaks by growth need device time */
    /* The evidence beside the leak verdict: over the later half of the session (by time), the
     * trends (least squares) of the allocator's use and of the sampled in-use. The use: total
     * less free where every record there tells the total (a heap that grows, glibc's by sbrk,
     * newlib's, keeps its free bytes flat), less free alone otherwise. */
    double *t = xcalloc(h->n + 1, sizeof(*t)), *used = xcalloc(h->n + 1, sizeof(*used)),
           *total = xcalloc(h->n + 1, sizeof(*total)), *inuse = xcalloc(h->n + 1, sizeof(*inuse));
    size_t m = 0;
    if (first->ts_known && e->ts_known && s->tick_hz && e->ts > first->ts) {
        uint64_t mid = first->ts + (e->ts - first->ts) / 2;
        v->use_total = 1;
        for (size_t i = 0; i < h->n; i++) {
            const struct heap_point *p = &h->pts[i];
            if (!p->ts_known || p->ts < mid || !KNOWS(p, MSAMP_WIRE_HEAP_FREE))
                continue;
            v->use_total &= KNOWS(p, MSAMP_WIRE_HEAP_TOTAL);
            t[m] = (double)(p->ts - mid) / (double)s->tick_hz;
            used[m] = -(double)p->free;
            total[m] = (double)p->total;
            inuse[m++] = p->inuse_b;
        }
        for (size_t i = 0; i < m && v->use_total; i++)
            used[i] += total[i];
        v->window_s = (double)(e->ts - mid) / (double)s->tick_hz;
    }
    if (m >= 3) {
        v->used_growth = slope(t, used, m) * v->window_s;
        v->sampled_growth = slope(t, inuse, m) * v->window_s;
    }
    free(t);
    free(used);
    free(total);
    free(inuse);
    /* Fragmentation: at the end, half the free bytes at least lie outside the largest block, and
     * that share grew by a quarter since the first record (the largest block shrank while free
     * held); or a failure asked for no more than was free but more than the largest block. The
     * share only where the free bytes are all the heap has free, its total the same in every
     * record: a heap that grows (newlib's without its end) has room beyond what it took, which
     * neither its free bytes nor its largest free block count (a newlib-nano firmware's leak read
     * "leak and fragmentation" from 2880 B free below the break, largest 1032 B, with 174 KiB
     * of room in one piece: test-newlib-verdict). */
    v->frag_first = h->total_varies ? -1 : frag_index(first);
    v->frag_last = h->total_varies ? -1 : frag_index(e);
    for (size_t i = 0; i < h->nfails; i++) {
        const struct heap_point *a = &h->fails[i].at;
        if (h->fails[i].kind == MSAMP_FAIL_NULL && KNOWS(a, MSAMP_WIRE_HEAP_LARGEST_FREE) &&
            h->fails[i].size <= a->free && h->fails[i].size > a->largest)
            v->frag_fails++;
    }
    if ((v->frag_last >= 0.5 && v->frag_first >= 0 && v->frag_last >= v->frag_first + 0.25) ||
        v->frag_fails) {
        v->frag = 1;
        /* The sites holding long-lived blocks (alive over the later half of the session): the
         * blocks that sit between the holes. */
        double *held = xcalloc(s->nsites + 1, sizeof(*held));
        uint64_t half = s->ts_known ? (s->last_ts - s->first_ts) / 2 : 0;
        for (size_t i = 0; i < s->nlive; i++) {
            const struct slot *sl = &s->slots[s->live[i]];
            if (sl->born && s->ts_known && s->last_ts - sl->birth >= half && sl->site < s->nsites)
                held[sl->site] += sl->w * (double)sl->size;
        }
        v->nheld = top_sites(held, s->nsites, 0, v->held_site, v->held_b);
        free(held);
    }
}

const char *heap_verdict_word(const struct heap_verdict *v)
{
    if (v->leak && v->frag)
        return "leak and fragmentation";
    return v->leak ? "leak" : v->frag ? "fragmentation" : v->known ? "healthy" : "unknown";
}

int heap_headroom(const struct session *s, uint64_t *min_free, uint64_t *total)
{
    const struct heap_model *h = s->heap;
    if (!h || h->total_varies || !KNOWS(&h->last, MSAMP_WIRE_HEAP_TOTAL) || !h->last.total ||
        !KNOWS(&h->last, MSAMP_WIRE_HEAP_MIN_FREE | MSAMP_WIRE_HEAP_MIN_SEEN))
        return 0;
    *min_free = h->last.min_free;
    *total = h->last.total;
    return 1;
}

void heap_fail_text(const struct heap_fail *f, char *out, size_t n)
{
    const struct heap_point *a = &f->at;
    size_t len = (size_t)snprintf(out, n, "asked %llu B", (unsigned long long)f->size);
    if (KNOWS(a, MSAMP_WIRE_HEAP_FREE) && len < n)
        len += (size_t)snprintf(out + len, n - len, ", %llu B free", (unsigned long long)a->free);
    if (KNOWS(a, MSAMP_WIRE_HEAP_LARGEST_FREE) && len < n)
        len += (size_t)snprintf(out + len, n - len, ", largest free block %llu B",
                                (unsigned long long)a->largest);
    const char *why = "the allocator's state unknown";
    if (f->kind == MSAMP_FAIL_GIANT)
        why = "refused by the giant guard";
    else if (KNOWS(a, MSAMP_WIRE_HEAP_FREE) && f->size > a->free)
        why = "exhaustion (more than is free)";
    else if (KNOWS(a, MSAMP_WIRE_HEAP_LARGEST_FREE) && f->size > a->largest)
        why = "fragmentation";
    else if (KNOWS(a, MSAMP_WIRE_HEAP_LARGEST_FREE))
        why = "the allocator's overhead or alignment (a free block was large enough)";
    else if (KNOWS(a, MSAMP_WIRE_HEAP_FREE))
        why = "fragmentation or the allocator's overhead (its largest free block unknown)";
    if (len < n)
        snprintf(out + len, n - len, ": %s", why);
}

void heap_put_figures(FILE *f, const struct heap_point *p, int json)
{
    const struct {
        const char *name;
        uint64_t bit, val;
    } fig[5] = {{"free", MSAMP_WIRE_HEAP_FREE, p->free},
                {"min_free", MSAMP_WIRE_HEAP_MIN_FREE | MSAMP_WIRE_HEAP_MIN_SEEN, p->min_free},
                {"largest_free", MSAMP_WIRE_HEAP_LARGEST_FREE, p->largest},
                {"free_blocks", MSAMP_WIRE_HEAP_FREE_BLOCKS, p->blocks},
                {"total", MSAMP_WIRE_HEAP_TOTAL, p->total}};
    const char *lead = json ? ",\"" : " ", *sep = json ? "\":" : "=";
    for (int i = 0; i < 5; i++) {
        if (p->valid & fig[i].bit)
            fprintf(f, "%s%s%s%llu", lead, fig[i].name, sep, (unsigned long long)fig[i].val);
        else
            fprintf(f, "%s%s%s%s", lead, fig[i].name, sep, json ? "null" : "?");
    }
}

void heap_hwm_text(const struct session *s, char *out, size_t n)
{
    const struct heap_model *h = s->heap;
    if (!h || h->records == 0) {
        snprintf(out, n, "the device reports no high-water mark of its own");
        return;
    }
    const struct heap_point *e = &h->last;
    int exact = KNOWS(e, MSAMP_WIRE_HEAP_MIN_FREE), seen = KNOWS(e, MSAMP_WIRE_HEAP_MIN_SEEN);
    if (!exact && !seen)
        snprintf(out, n, "the allocator's HEAP records carry no low watermark: no high-water mark");
    else if (!KNOWS(e, MSAMP_WIRE_HEAP_TOTAL) || h->total_varies || e->total < e->min_free)
        snprintf(out, n, "the allocator's HEAP records give %llu B free at its lowest, but its "
                         "total %s: no high-water mark of its use",
                 (unsigned long long)e->min_free,
                 KNOWS(e, MSAMP_WIRE_HEAP_TOTAL) ? "varied (a heap that grows)" : "is unknown");
    else if (exact)
        snprintf(out, n, "the allocator's HEAP records: at its lowest %llu B free of %llu B, a "
                         "high-water mark of %llu B used (its overhead included)",
                 (unsigned long long)e->min_free, (unsigned long long)e->total,
                 (unsigned long long)(e->total - e->min_free));
    else
        snprintf(out, n, "the allocator's HEAP records: the fewest free the device saw at its "
                         "polls, %llu B of %llu B, so at least %llu B used once (its overhead "
                         "included; the allocator keeps no low watermark)",
                 (unsigned long long)e->min_free, (unsigned long long)e->total,
                 (unsigned long long)(e->total - e->min_free));
}

void heap_low_text(const struct session *s, char *out, size_t n)
{
    const struct heap_model *h = s->heap;
    char at[48] = "";
    double t = session_time_s(s, h->low.ts, h->low.ts_known);
    if (t >= 0)
        snprintf(at, sizeof(at), "at %.3f s, ", t);
    if (h->low.min_free == h->last.min_free)
        snprintf(out, n, "%sthe low watermark", at);
    else
        snprintf(out, n, "%s%llu B free then (the lowest, %llu B, came later without a snapshot)",
                 at, (unsigned long long)h->low.min_free, (unsigned long long)h->last.min_free);
}

/* total - e's 95 % interval, clamped at 0: lo from e's upper end, hi from its lower. */
static void unheld_of(uint64_t total, struct est e, struct heap_unheld *u)
{
    double t = (double)total, lo = t - est_hi(e), hi = t - est_lo(e), x = t - e.est;
    u->lo = lo > 0 ? lo : 0;
    u->hi = hi > 0 ? hi : 0;
    u->est = x < u->lo ? u->lo : x > u->hi ? u->hi : x;
    u->t_s = -1;
    u->points = 0;
}

int heap_unheld_at(const struct heap_point *p, struct heap_unheld *u)
{
    if (!p->has_var)
        return 0;
    unheld_of(p->total, (struct est){p->inuse_b, p->inuse_v}, u);
    return 1;
}

/* The true lowest, m, is at most the unheld bytes at any moment, so at most half B's upper end at
 * the moment half A chose (independent of half B's draws: 97.5 %); and it is one record's, at
 * least that record's lower end, so at least the least lower end of all (97.5 %). A record whose
 * total lies below the sampled in-use's whole interval (upper end 0: a total the device read
 * before the heap grew, or blocks never written, so never resident) says nothing of it: left out. */
int heap_unheld_low(const struct session *s, struct heap_unheld *u)
{
    const struct heap_model *h = s->heap;
    const struct heap_point *at = NULL;
    double least = 0;
    size_t k = 0;
    for (size_t i = 0; h && i < h->n; i++) {
        const struct heap_point *p = &h->pts[i];
        struct heap_unheld one;
        if (!heap_unheld_at(p, &one) || !(one.hi > 0))
            continue;
        if (!k++ || one.lo < least)
            least = one.lo;
        if (!at || (double)p->total - p->half_a < (double)at->total - at->half_a)
            at = p;
    }
    if (!at)
        return 0;
    unheld_of(at->total, (struct est){at->half_b, at->half_v}, u);
    if (least < u->lo)
        u->lo = least;
    u->t_s = session_time_s(s, at->ts, at->ts_known);
    u->points = k;
    return 1;
}

/* u (NULL: none) as 'NAME~X [LO, HI]', a low watermark's with ' at T s (the lowest of N
 * records' (json 0), or as ',"NAME":{"est":X,"lo":LO,"hi":HI}', a low watermark's with
 * ',"t":T,"records":N' (json 1; null for none). */
static void put_unheld(FILE *f, const char *name, const struct heap_unheld *u, int json)
{
    if (!u) {
        fprintf(f, ",\"%s\":null", name);
        return;
    }
    fprintf(f, json ? ",\"%s\":{\"est\":%.0f,\"lo\":%.0f,\"hi\":%.0f" : "%s~%.0f [%.0f, %.0f]",
            name, u->est, u->lo, u->hi);
    if (u->points && json && u->t_s < 0)
        fputs(",\"t\":null", f);
    else if (u->points && json)
        fprintf(f, ",\"t\":%.6f", u->t_s);
    else if (u->points && u->t_s >= 0)
        fprintf(f, " at %.3f s", u->t_s);
    if (u->points)
        fprintf(f, json ? ",\"records\":%zu" : " (the lowest of %zu records", u->points);
    if (json)
        fputc('}', f);
}

void heap_put_point_unheld(FILE *f, const struct heap_point *p)
{
    struct heap_unheld u;
    put_unheld(f, "unheld", heap_unheld_at(p, &u) ? &u : NULL, 1);
}

int heap_put_unheld(FILE *f, const struct session *s, int json, const char *lead,
                    const char *between)
{
    const struct heap_model *h = s->heap;
    struct heap_unheld u, low;
    int now = h && heap_unheld_at(&h->last, &u), lowest = now && heap_unheld_low(s, &low);
    if (!now && !json)
        return 0;
    if (!json)
        fputs(lead, f);
    put_unheld(f, "unheld", now ? &u : NULL, json);
    if (!json)
        fprintf(f, " (95 %%; %s)%s", HEAP_UNHELD_MEANS, between);
    if (json || lowest)
        put_unheld(f, "unheld_low", lowest ? &low : NULL, json);
    if (!json && lowest)
        fprintf(f, "; %s)", HEAP_UNHELD_LOW_MEANS);
    if (json)
        fprintf(f, ",\"unheld_means\":%s", now ? "\"" HEAP_UNHELD_MEANS "\"" : "null");
    return 1;
}
