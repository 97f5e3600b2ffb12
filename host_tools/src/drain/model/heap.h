/* Heap health (docs/HEALTH.md): the device's HEAP records (the allocator's own figures) kept per
 * session beside the sampled in-use, the failures they explain, the device's low-watermark moment,
 * and a verdict in plain words: leak (the leaks by growth's, docs/VERDICTS.md), fragmentation, or
 * healthy with its headroom. */
#ifndef DRAIN_HEAP_H
#define DRAIN_HEAP_H

#include <stdint.h>
#include <stdio.h>

#include "msamp_decode.h"

struct session;

#define HEAP_MAX_POINTS 4096u /* series points kept: past it, every other one is let go */
#define HEAP_MAX_FAILS 64u    /* failures explained (the first ones) */
#define HEAP_MAX_NAMED 3u     /* sites named for fragmentation */

/* One HEAP record, with the session's sampled in-use estimate then. A record with the total but
 * not the free bytes (glibc's past start-up: the private resident bytes, docs/HEALTH.md) keeps
 * also that estimate's variance, half A's and half B's estimates and half B's variance
 * (session_half_weights: the unheld low watermark's split halves); has_var 0: none (no growth
 * tracker, or the free bytes known). */
struct heap_point {
    uint64_t ts;
    int ts_known, has_var;
    unsigned reason;
    uint64_t valid, free, min_free, largest, blocks, total;
    double inuse_b, inuse_v, half_a, half_b, half_v;
};

/* The unheld bytes (docs/HEALTH.md "glibc: the walk's budget"): a total-only record's total less
 * the sampled in-use then, its 95 % interval [total - in-use's upper end, total - its lower end]
 * clamped at 0: the private resident bytes no live allocation holds, an upper bound of the heap's
 * free bytes. The low watermark's: its moment (t_s, -1 unknown) and the points it is the lowest
 * of (points 0: one record's). */
struct heap_unheld {
    double est, lo, hi, t_s;
    size_t points;
};
/* Their meaning in words, printed beside them. */
#define HEAP_UNHELD_MEANS                                                                          \
    "estimated: private resident less sampled in use; heap free unknown. The private resident "   \
    "bytes no live allocation holds: the allocator's free chunks and overhead plus thread stacks " \
    "and writable data, an upper bound of the heap's free bytes"
#define HEAP_UNHELD_LOW_MEANS                                                                      \
    "the lowest over the HEAP series: its moment from half A of the samples, its bytes from "     \
    "half B, its lower end the least of every record's"


/* A failure and the heap as it left it (the HEAP record of its event). */
struct heap_fail {
    uint64_t size, kind;
    uint32_t site;
    struct heap_point at;
};

struct heap_model {
    struct heap_point *pts;
    size_t n, cap;
    uint64_t records; /* HEAP records received */
    struct heap_point last;
    /* The FAIL just before (its HEAP follows in the same event). */
    int fail_pending;
    uint64_t fail_size, fail_kind;
    uint32_t fail_site;
    struct heap_fail fails[HEAP_MAX_FAILS];
    size_t nfails;
    /* The device's low-watermark moment (a HEAP of reason LOW) and the sites' in-use at the end
     * of the snapshot pass it started (every live entry re-sent: the device's own live set). */
    int have_low, low_pending, total_varies;
    uint64_t low_copied_at; /* records when the sites were last copied (the work bound) */
    struct heap_point low, low_next;
    double *low_n, *low_b;
    size_t low_sites;
};

struct heap_verdict {
    int known;        /* the allocator said free at two moments at least, and time is known */
    int leak, frag;   /* the verdicts (both may hold); neither, known: healthy */
    /* The evidence beside a leak: the trends over the later half, bytes; use_total: the
     * allocator's use is its total less free (else less free alone: its total unknown). */
    double used_growth, sampled_growth;
    int use_total;
    double window_s;                    /* its length (-1: unknown) */
    double frag_first, frag_last;       /* 1 - largest free / free; -1 unknown, total varied */
    uint64_t frag_fails;                /* failures the largest free block explains */
    uint32_t held_site[HEAP_MAX_NAMED];
    double held_b[HEAP_MAX_NAMED];
    size_t nheld;
};

void heap_model_free(struct heap_model *h);
/* From the session model (the dispatch, model/live.c, and model/sites.c): a HEAP record, a FAIL
 * record at site, the end of a snapshot pass. */
void heap_on_record(struct session *s, const struct msamp_record *r);
void heap_on_fail(struct session *s, const struct msamp_record *r, uint32_t site);
void heap_on_snap_end(struct session *s);
/* 1 when --peak takes the device's low-watermark snapshot rather than the peak of drain's running
 * estimate: drain's model is not complete (no END, or records lost: docs/HEALTH.md), the heap's
 * total held still, and a snapshot pass followed a low watermark. Then *when is its HEAP point. */
int heap_peak_is_device(const struct session *s, const struct heap_point **when);
/* The site's in-use in the device's low-watermark snapshot, when heap_peak_is_device. */
int heap_site_low(const struct session *s, uint32_t site, double *n, double *b);
/* The verdict. leak: the session has leaks by growth (docs/VERDICTS.md "Leaks by growth", as the
 * profile stores them: growth_leaks_from_prof): the heap's leak is theirs, the allocator's use the
 * evidence beside it. */
void heap_verdict(const struct session *s, int leak, struct heap_verdict *v);
/* The headroom, when its figures are known and mean one: the lowest free bytes and the heap's
 * total, a total that held still over the session (a heap that grows, glibc's by sbrk, newlib's
 * without its end, has room beyond its total that the records do not tell). */
int heap_headroom(const struct session *s, uint64_t *min_free, uint64_t *total);
/* Why a failure failed, in words: "asked 6144 B, 20480 B free, largest free block 4096 B:
 * fragmentation". */
void heap_fail_text(const struct heap_fail *f, char *out, size_t n);
/* The verdict's word: "leak", "fragmentation", "leak and fragmentation", "healthy", "unknown". */
const char *heap_verdict_word(const struct heap_verdict *v);
/* p's free, min_free, largest_free, free_blocks and total: ' name=V' each (json 0; '?' when
 * unknown) or ',"name":V' (json 1; null). */
void heap_put_figures(FILE *f, const struct heap_point *p, int json);
/* p's unheld bytes (1), or 0 where it has none (the free bytes known, the total unknown, or no
 * variance). */
int heap_unheld_at(const struct heap_point *p, struct heap_unheld *u);
/* The lowest unheld bytes over the series' points (1), 0 where no point has them. */
int heap_unheld_low(const struct session *s, struct heap_unheld *u);
/* The last record's unheld bytes and their low watermark (heap_unheld_low) with their meaning:
 * lead, 'unheld~X [LO, HI] (95 %; MEANING)', between, 'unheld_low~X [LO, HI] at T s (the lowest
 * of N records; MEANING)' (json 0: 0 and nothing where the last record has none), or
 * ',"unheld":{"est":X,"lo":LO,"hi":HI},"unheld_low":{...,"t":T,"records":N},"unheld_means":M'
 * (json 1; null for none). */
int heap_put_unheld(FILE *f, const struct session *s, int json, const char *lead,
                    const char *between);
/* ',"unheld":{"est":X,"lo":LO,"hi":HI}' for p (null where it has none). */
void heap_put_point_unheld(FILE *f, const struct heap_point *p);
/* What the allocator's own figures (the last HEAP record) say of the heap's high-water mark, in
 * one phrase: none without HEAP records; the allocator's low watermark of free bytes (an exact
 * high-water mark of its use while its total held still), the fewest free the device saw at its
 * polls (a lower bound of it), or why they give none. */
void heap_hwm_text(const struct session *s, char *out, size_t n);
/* The device's last low-watermark snapshot (have_low) in one phrase, said against the heap's one
 * low watermark (the last record's min_free, which headroom gives): "at T s, the low watermark",
 * or "at T s, N B free then (the lowest, M B, came later without a snapshot)". */
void heap_low_text(const struct session *s, char *out, size_t n);

#endif
