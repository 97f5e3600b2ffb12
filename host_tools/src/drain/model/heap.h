/* Heap health (docs/HEALTH.md): the device's HEAP records (the allocator's own figures) kept per
 * session beside the sampled in-use, the failures they explain, the device's low-watermark moment,
 * and a verdict in plain words: leak, fragmentation, or healthy with its headroom. */
#ifndef DRAIN_HEAP_H
#define DRAIN_HEAP_H

#include <stdint.h>
#include <stdio.h>

#include "msamp_decode.h"

struct session;

#define HEAP_MAX_POINTS 4096u /* series points kept: past it, every other one is let go */
#define HEAP_MAX_FAILS 64u    /* failures explained (the first ones) */
#define HEAP_MAX_NAMED 3u     /* sites named in a verdict */

/* One HEAP record, with the session's sampled in-use estimate then. */
struct heap_point {
    uint64_t ts;
    int ts_known;
    unsigned reason;
    uint64_t valid, free, min_free, largest, blocks, total;
    double inuse_b;
};

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
    /* Sites' in-use at the first records 2^k and 2^(k+1) ticks after the first timed HEAP record
     * (records, in a stream without time): the baselines of growth, the older one a quarter to a
     * half of the session's time back, as the trend's window is the later half by time (a burst
     * of records, such as low watermarks, does not move it). */
    double *base[2];
    size_t base_sites[2];
    struct heap_point base_pt[2];
    uint64_t base_t0, base_next; /* the first timed record's time; the next baseline's offset */
    int base_timed;
    /* The device's low-watermark moment (a HEAP of reason LOW) and the sites' in-use at the end
     * of the snapshot pass it started (every live entry re-sent: the device's own live set). */
    int have_low, low_pending, total_varies;
    uint64_t low_copied_at; /* records when the sites were last copied (the work bound) */
    struct heap_point low, low_next;
    double *low_n, *low_b;
    size_t low_sites;
};

struct heap_verdict {
    int known;        /* the allocator said free at two moments at least */
    int leak, frag;   /* the verdicts (both may hold); neither: healthy */
    double used_growth, sampled_growth; /* over the window, bytes */
    double window_s;                    /* its length (-1: unknown) */
    double frag_first, frag_last;       /* 1 - largest free / free, -1 unknown */
    uint64_t frag_fails;                /* failures the largest free block explains */
    uint32_t grow_site[HEAP_MAX_NAMED], held_site[HEAP_MAX_NAMED];
    double grow_b[HEAP_MAX_NAMED], held_b[HEAP_MAX_NAMED];
    size_t ngrow, nheld;
};

void heap_model_free(struct heap_model *h);
/* From the session model (session.c): a HEAP record, a FAIL record at site. */
void heap_on_record(struct session *s, const struct msamp_record *r);
void heap_on_fail(struct session *s, const struct msamp_record *r, uint32_t site);
void heap_on_snap_end(struct session *s);
/* 1 when --peak takes the device's low-watermark snapshot rather than the peak of drain's running
 * estimate: drain's model is not complete (no END, or records lost: docs/HEALTH.md), the heap's
 * total held still, and a snapshot pass followed a low watermark. Then *when is its HEAP point. */
int heap_peak_is_device(const struct session *s, const struct heap_point **when);
/* The site's in-use in the device's low-watermark snapshot, when heap_peak_is_device. */
int heap_site_low(const struct session *s, uint32_t site, double *n, double *b);
void heap_verdict(const struct session *s, struct heap_verdict *v);
/* Why a failure failed, in words: "asked 6144 B, 20480 B free, largest free block 4096 B:
 * fragmentation". */
void heap_fail_text(const struct heap_fail *f, char *out, size_t n);
/* The verdict's word: "leak", "fragmentation", "leak and fragmentation", "healthy", "unknown". */
const char *heap_verdict_word(const struct heap_verdict *v);
/* p's free, min_free, largest_free, free_blocks and total: ' name=V' each (json 0; '?' when
 * unknown) or ',"name":V' (json 1; null). */
void heap_put_figures(FILE *f, const struct heap_point *p, int json);

#endif
