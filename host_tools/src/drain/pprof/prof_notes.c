/*
 * The profile's comments on its session (pprof/prof_notes.h, docs/DRAIN.md): the device, the
 * sampling interval and its changes, drops and stream losses, the reader's counts and repairs,
 * the heap's last figures, failures, marks. The verdicts' comments are pprof/vcomment.c's.
 */
#include "pprof/prof_notes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/heap.h"
#include "model/task_use.h"
#include "msamp_arch.h"
#include "pprof/prof_locs.h"
#include "util.h"

static const char *const drop_names[MSAMP_DROP_COUNT] = {
    [MSAMP_DROP_RING_RECORDS] = "ring_records", [MSAMP_DROP_RING_BYTES] = "ring_bytes",
    [MSAMP_DROP_LIVE_FULL] = "live_full",       [MSAMP_DROP_STACK_FULL] = "stack_full",
    [MSAMP_DROP_REENTRANT] = "reentrant",       [MSAMP_DROP_TRUNCATED] = "truncated",
    [MSAMP_DROP_NO_FRAME] = "no_frame",         [MSAMP_DROP_OUT_OF_BOUNDS] = "out_of_bounds",
};

/* A comment of the profile, formatted (at most 511 bytes, as the others). */
static void commentf(struct prof *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void commentf(struct prof *p, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    prof_comment(p, line);
}

/* A comment "WHAT: name=count name=count ...": names is "WHAT: name name ...", v the counts. */
static void comment_counts(struct prof *p, const char *names, const uint64_t *v)
{
    char line[512];
    const char *at = strchr(names, ':') + 1;
    size_t len = (size_t)snprintf(line, sizeof(line), "%.*s", (int)(at - names), names);
    for (size_t i = 0; *at && len < sizeof(line); i++) {
        size_t w = strcspn(++at, " ");
        len += (size_t)snprintf(line + len, sizeof(line) - len, " %.*s=%llu", (int)w, at,
                                (unsigned long long)v[i]);
        at += w;
    }
    prof_comment(p, line);
}

static void comment_line(void *ctx, const char *line)
{
    prof_comment(ctx, line);
}

/* The first comments: drain's version, the profile's kind and session, the device (its header, or
 * why there is none). */
static void comments_device(struct prof *p, const struct session *s, const char *kind)
{
    const struct session_counts *n = &s->n;
    char line[512], bid[BID_HEX_SIZE];
    commentf(p, "msamp drain %s, wire format v%u, %s profile of session %d",
             DRAIN_VERSION, s->version ? s->version : MSAMP_WIRE_VERSION, kind, s->index);
    if (s->have_header) {
        bid_hex(bid, s->build_id, s->build_id_len);
        snprintf(line, sizeof(line),
                 "device: arch=%s ptr_size=%u session_id=0x%08x tick_hz=%llu build_id=%s "
                 "live_capacity=%llu stack_capacity=%llu max_depth=%llu",
                 msamp_arch_get(s->arch)->name, s->ptr_size, s->session_id,
                 (unsigned long long)s->tick_hz, s->build_id_len ? bid : "(none)",
                 (unsigned long long)s->live_capacity, (unsigned long long)s->stack_capacity,
                 (unsigned long long)s->max_depth);
    } else if (n->pre_defaults) {
        snprintf(line, sizeof(line),
                 "device: no session header received (joined mid-stream): %llu records replayed "
                 "with defaults (interval %s, thinning not replayed, stacks as sent)",
                 (unsigned long long)n->pre_defaults,
                 s->first_interval ? "from the INTERVAL records" : "unknown: samples unweighted");
    } else {
        snprintf(line, sizeof(line), "device: no session header received (joined mid-stream)");
    }
    prof_comment(p, line);
}

/* The sampling interval, its changes (summed, then the latest listed). */
static void comments_interval(struct prof *p, const struct session *s)
{
    const struct session_counts *n = &s->n;
    char line[512];
    commentf(p, "sampling interval: %llu bytes (first %llu, %llu changes)",
             (unsigned long long)s->interval, (unsigned long long)s->first_interval,
             (unsigned long long)n->interval_changes);
    if (n->interval_changes) {
        session_interval_summary(s, line, sizeof(line));
        prof_comment(p, line);
    }
    for (size_t i = 0; i < s->ninterval_log; i++) {
        session_interval_change_text(s, &s->interval_log[i], i ? &s->interval_log[i - 1] : NULL,
                                     line, sizeof(line));
        prof_comment(p, line);
    }
    if (n->interval_changes > s->ninterval_log) {
        commentf(p, "... and %llu more interval changes (not listed)",
                 (unsigned long long)(n->interval_changes - s->ninterval_log));
    }
}

/* The device's drops, the session's completeness and its allocation failures. */
static void comments_drops(struct prof *p, const struct session *s, const char *kind)
{
    const struct session_counts *n = &s->n;
    char line[512];
    if (s->have_drops) {
        size_t len = (size_t)snprintf(line, sizeof(line), "device drops:");
        for (int i = 0; i < MSAMP_DROP_COUNT; i++)
            if ((i != MSAMP_DROP_NO_FRAME || s->have_no_frame) &&
                (i != MSAMP_DROP_OUT_OF_BOUNDS || s->have_out_of_bounds))
                len += (size_t)snprintf(line + len, sizeof(line) - len, " %s=%llu",
                                        drop_names[i], (unsigned long long)s->drops[i]);
    } else {
        snprintf(line, sizeof(line), "device drops: not reported");
    }
    prof_comment(p, line);
    session_completeness(s, strncmp(kind, "partial", 7) != 0, line, sizeof(line));
    prof_comment(p, line);
    if (n->fails[MSAMP_FAIL_NULL] || n->fails[MSAMP_FAIL_GIANT] || n->fails_other ||
        session_failures(s, MSAMP_FAIL_NULL) || session_failures(s, MSAMP_FAIL_GIANT)) {
        commentf(p,
                 "allocation failures: null=%llu giant_refused=%llu (device counts; records "
                 "received: %llu and %llu, %llu of unknown kinds)",
                 (unsigned long long)session_failures(s, MSAMP_FAIL_NULL),
                 (unsigned long long)session_failures(s, MSAMP_FAIL_GIANT),
                 (unsigned long long)n->fails[MSAMP_FAIL_NULL],
                 (unsigned long long)n->fails[MSAMP_FAIL_GIANT],
                 (unsigned long long)n->fails_other);
    }
}

/* The last HEAP record's figures (drain fleet reads them) and the unheld bytes. */
static void comments_heap(struct prof *p, const struct session *s)
{
    char line[512];
    if (s->heap && s->heap->records) { /* the last HEAP record's figures (drain fleet reads them) */
        FILE *m = fmemopen(line, sizeof(line), "w");
        if (m) {
            fputs("msamp-heap", m);
            heap_put_figures(m, &s->heap->last, 0);
            if (fclose(m) == 0)
                prof_comment(p, line);
        }
        /* The unheld bytes where the free bytes are unknown (docs/HEALTH.md). */
        char *text = NULL;
        size_t len = 0;
        m = open_memstream(&text, &len);
        if (m) {
            int any = heap_put_unheld(m, s, 0, "msamp-heap-unheld ", "; ");
            if (fclose(m) == 0 && any)
                prof_comment(p, text);
            free(text);
        }
    }
}

/* What the reader counted and repaired: stream losses, a lossy line, its counts, repairs and
 * bounds, the site limit, frees after drops. */
static void comments_reader(struct prof *p, const struct session *s, const struct msamp_dec_stats *d,
                            const struct built *b)
{
    uint64_t unknown_stack = b->unknown_stack, alloc_raised = b->alloc_raised;
    const struct session_counts *n = &s->n;
    if (d) {
        struct msamp_dec_stats l = session_stream_losses(s, d);
        comment_counts(p,
                       "stream losses: frames_bad frames_lost bytes_discarded records_malformed "
                       "records_unknown frames_repeated",
                       (const uint64_t[]){l.frames_bad, l.frames_lost, l.bytes_discarded,
                                          l.records_malformed, l.records_unknown,
                                          l.frames_repeated});
    }
    if (s->line_frames_lost) {
        double q = session_line_loss(s);
        commentf(p,
                 "lossy line: %llu frames received, %llu missed (seq gaps): allocated and freed "
                 "of blocks no longer live scaled by 1/(1 - %.4f) = %.4f for the records lost "
                 "with them (the live blocks' own, by LIVE records, are not)",
                 (unsigned long long)s->line_frames, (unsigned long long)s->line_frames_lost, q,
                 1.0 / (1.0 - q));
    }
    comment_counts(p,
                   "reader: samples frees reallocs lost_frees unknown_frees late_live bad_slots "
                   "unknown_stack stack_full stack_overflow stack_redefined unweighted thinned "
                   "snapshots_ok snapshots_skipped",
                   (const uint64_t[]){n->samples, n->frees, n->reallocs, n->lost_frees,
                                      n->unknown_frees, n->late_live, n->bad_slots, unknown_stack,
                                      n->stack_full, n->stack_overflow, n->stack_redefined,
                                      n->unweighted, n->thinned, n->snapshots_ok,
                                      n->snapshots_skipped});
    comment_counts(p,
                   "reader repairs: pre_header_replayed pre_header_defaults "
                   "pre_header_interval_guessed pending_stack_resolved alloc_reweighted "
                   "alloc_raised thin_over_budget samples_unweighted samples_unknown_stack "
                   "frees_settled",
                   (const uint64_t[]){n->pre_replayed, n->pre_defaults, n->pre_guessed,
                                      n->pending_resolved, n->reweighted_up, alloc_raised,
                                      n->thin_over_budget, n->samples_unweighted,
                                      b->unknown_events, n->settled_frees});
    comment_counts(p, "reader bounds: frees_after_drops site_limit_samples site_limit_pending",
                   (const uint64_t[]){n->drop_frees, n->site_limit, n->sites_folded});
    if (n->site_limit || n->sites_folded) {
        commentf(p,
                 "site limit reached: %llu samples of new sites beyond drain's caps (%u sites, "
                 "%u frames referenced by sites) counted under " DRAIN_SITE_LIMIT_NAME
                 " (and %llu sites defined past the cap shown with that frame); the sites "
                 "before the cap are kept whole",
                 (unsigned long long)n->site_limit, DRAIN_MAX_STACKS, DRAIN_MAX_SITE_FRAMES,
                 (unsigned long long)n->sites_folded);
    }
    if (n->drop_frees) {
        commentf(p,
                 "frees after device drops: %llu FREEs of slots not known live, their ALLOC "
                 "among the %llu records the device dropped (not stream damage)",
                 (unsigned long long)n->drop_frees,
                 (unsigned long long)s->drops[MSAMP_DROP_RING_RECORDS]);
    }
}

/* The session's own notes: tasks' peaks and budget events, the device id, realloc chains, the
 * --peak moment, --min-lifetime, marks. */
static void comments_session(struct prof *p, const struct session *s)
{
    const struct session_counts *n = &s->n;
    task_use_comments(s, comment_line, p); /* model/task_use.c: peaks and budget events */
    if (s->device_id_len) {
        char id[MSAMP_WIRE_MAX_DEVICE_ID + 1];
        for (size_t i = 0; i < s->device_id_len; i++)
            id[i] = s->device_id[i] >= 0x20 && s->device_id[i] < 0x7f ? (char)s->device_id[i] : '?';
        id[s->device_id_len] = 0;
        commentf(p, "device id: %s (label device)", id);
    }
    if (n->chain_links) {
        commentf(p,
                 "realloc chains: %llu reallocs continued a live sampled allocation (in use a chain "
                 "is one allocation: its first site and birth, its latest size; allocated counts "
                 "each block at the call that returned it, a realloc's at its stack and new size, "
                 "so a chain's first site may show more in use than allocated)",
                 (unsigned long long)n->chain_links);
    }
    if (n->chains_moved) {
        commentf(p,
                 "realloc chains: %llu moved to a block that was not sampled (no longer in use "
                 "nor freed; their sampled blocks stay allocated where they were asked for)",
                 (unsigned long long)n->chains_moved);
    }
    if (s->peak_gen && !s->dump) {
        char when[64], hwm[192];
        double t = session_time_s(s, s->peak_ts, s->peak_ts_valid);
        if (t >= 0)
            snprintf(when, sizeof(when), "%.6f s after the session's first record", t);
        else
            snprintf(when, sizeof(when), "at an unknown time");
        heap_hwm_text(s, hwm, sizeof(hwm));
        commentf(p,
                 "--peak's moment: half A of the samples peaked %s; half B's in-use estimate "
                 "then: %.0f bytes, %.0f objects (the --peak profile's; the peak verdict, "
                 "msamp-verdict peak, is the mean of both ways round: docs/VERDICTS.md); %s",
                 when, s->peak_b, s->peak_n, hwm);
    }
    if (s->min_life_s > 0) {
        commentf(p,
                 "min lifetime %g s: left out %llu sampled allocations freed younger (estimated "
                 "%.0f objects, %.0f bytes) from the allocated and freed values",
                 s->min_life_s, (unsigned long long)n->culled, s->cull_n, s->cull_b);
    }
    for (size_t i = 0; i < s->nmarks; i++) {
        commentf(p, "mark: %s", s->marks[i]);
    }
}

void add_comments(struct prof *p, const struct session *s, const char *kind,
                  const struct msamp_dec_stats *d, const struct built *b)
{
    comments_device(p, s, kind);
    comments_interval(p, s);
    comments_drops(p, s, kind);
    comments_heap(p, s);
    comments_reader(p, s, d, b);
    comments_session(p, s);
}
