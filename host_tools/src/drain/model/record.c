/*
 * A record's way into the session (session_record): the first record's bookkeeping, and the
 * records that come before the session's first header, kept and replayed once it arrives (or
 * with defaults when none comes). Each is then applied by the dispatch (live.c).
 */
#include "model/session.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* --- Records before the first header ---------------------------------------------------------
 * A reader that joins late, or lost the SESSION frames, gets records it cannot weight (no
 * interval), whose thinning it cannot replay (no session id), whose [addr]/[interval] fields it
 * cannot tell apart (no flags). They are kept and replayed once the header comes. */

static int pre_kind(int type)
{
    return type == MSAMP_REC_ALLOC || type == MSAMP_REC_REALLOC || type == MSAMP_REC_LIVE;
}

/* Keeps r (a deep copy). 0 when the buffer is full: the caller applies it directly. */
static int pre_keep(struct session *s, const struct msamp_record *r)
{
    if (r->type == MSAMP_DEC_FRAME && !r->u.frame.lost)
        s->line_frames++; /* a good frame, all the model reads of it (a gap is kept) */
    if (r->type == MSAMP_DEC_UNKNOWN || (r->type == MSAMP_DEC_FRAME && !r->u.frame.lost))
        return 1; /* nothing else the model reads */
    const void *extra = NULL;
    size_t len = 0;
    if (r->type == MSAMP_REC_STACK) {
        extra = r->u.stack.frames;
        len = r->u.stack.depth * sizeof(uint64_t);
    } else if (r->type == MSAMP_REC_MARK) {
        extra = r->u.mark.text;
        len = r->u.mark.len < DRAIN_MAX_MARK_LEN ? r->u.mark.len : DRAIN_MAX_MARK_LEN;
    } else if (r->type == MSAMP_REC_MAPPING) {
        extra = r->u.mapping.path;
        len = r->u.mapping.path_len;
    } else if (r->type == MSAMP_REC_TASK) {
        extra = r->u.task.name;
        len = r->u.task.len;
    }
    if (!s->pre)
        s->pre = xcalloc(1, sizeof(*s->pre));
    struct pre_buf *p = s->pre;
    uint64_t cost = sizeof(struct pre_rec) + len;
    if (p->bytes + cost > DRAIN_MAX_PRE_BYTES)
        return 0;
    p->bytes += cost;
    GROW(p->v, p->cap, p->n + 1);
    struct pre_rec *k = &p->v[p->n++];
    k->r = *r;
    k->off = p->arena.len;
    if (len)
        buf_put(&p->arena, extra, len);
    if (pre_kind(r->type)) {
        p->samples++;
        if (r->type != MSAMP_REC_LIVE)
            s->n.samples++; /* the status line's count; recounted at the replay */
    } else if (r->type == MSAMP_REC_STACK) {
        p->stacks++;
    }
    return 1;
}

/* The interval in force before the first kept record: the one before the first INTERVAL record
 * kept (a raise doubled it: half; a lower halved it: double; a SET says nothing: the header's),
 * or the header's (hdr_interval, 0 when there is none). *guess: 1 when it is the header's although
 * an INTERVAL SET came before the header. */
static uint64_t pre_first_interval(const struct pre_buf *p, uint64_t hdr_interval, int *guess)
{
    *guess = 0;
    for (size_t i = 0; i < p->n; i++) {
        const struct msamp_record *r = &p->v[i].r;
        if (r->type != MSAMP_REC_INTERVAL || r->u.interval.interval == 0)
            continue;
        uint64_t to = r->u.interval.interval, reason = r->u.interval.reason;
        if (MSAMP_INTERVAL_THINS(reason))
            return to / 2 ? to / 2 : 1;
        if (reason == MSAMP_INTERVAL_LOWER)
            return to <= UINT64_MAX / 2 ? to * 2 : to;
        *guess = 1;
        return hdr_interval;
    }
    return hdr_interval;
}

/* Replays the kept records into s (its header fields set, or none) from interval `first`. */
static void pre_replay_into(struct session *s, const struct pre_buf *p, uint64_t first, int guess,
                            uint64_t *replayed)
{
    s->interval = first;
    session_note_interval(s, first);
    if (first && !s->first_interval)
        s->first_interval = first;
    uint64_t mask = s->have_header && s->ptr_size && s->ptr_size < 8
                        ? (((uint64_t)1 << (8 * s->ptr_size)) - 1)
                        : UINT64_MAX;
    int guessing = guess;
    uint64_t fr[MSAMP_DEC_MAX_DEPTH];
    for (size_t i = 0; i < p->n; i++) {
        struct msamp_record r = p->v[i].r;
        /* No bytes kept at all: the arena is NULL, and no offset may be added to it. */
        const uint8_t *extra = p->arena.p ? p->arena.p + p->v[i].off : (const uint8_t *)"";
        switch (r.type) {
        case MSAMP_REC_STACK:
            /* Frames were summed modulo 2^64 before the header gave the pointer size. */
            memcpy(fr, extra, r.u.stack.depth * sizeof(uint64_t));
            for (uint32_t k = 0; k < r.u.stack.depth; k++)
                fr[k] &= mask;
            r.u.stack.frames = fr;
            break;
        case MSAMP_REC_MARK:
            r.u.mark.text = extra;
            if (r.u.mark.len > DRAIN_MAX_MARK_LEN)
                r.u.mark.len = DRAIN_MAX_MARK_LEN;
            break;
        case MSAMP_REC_MAPPING:
            r.u.mapping.path = extra;
            break;
        case MSAMP_REC_TASK:
            r.u.task.name = extra;
            break;
        case MSAMP_REC_LIVE:
            /* Before any header the decoder reads the first trailing field as [addr]: for a
             * device that sends no addresses it was the entry's [interval]. */
            if (s->have_header && !(s->flags & MSAMP_SESSION_FLAG_ADDRESSES) &&
                r.u.live.has_addr && !r.u.live.has_interval) {
                r.u.live.interval = r.u.live.addr;
                r.u.live.has_interval = 1;
                r.u.live.has_addr = 0;
                r.u.live.addr = 0;
            }
            break;
        case MSAMP_REC_INTERVAL:
            guessing = 0;
            break;
        default:
            break;
        }
        if (guessing && pre_kind(r.type))
            s->n.pre_guessed++;
        live_apply(s, &r);
        (*replayed)++;
    }
}

/* The first header arrived (r): take its identity, replay what came before it from the interval
 * in force then, and then the header itself (which notes an interval change whose INTERVAL record
 * was lost). */
static void pre_replay(struct session *s, const struct msamp_record *r)
{
    struct pre_buf *p = s->pre;
    s->pre = NULL;
    s->n.samples = 0;
    int guess = 0;
    uint64_t first = p ? pre_first_interval(p, r->u.session.interval, &guess) : 0;
    /* The identity, without the interval (the replay starts from `first`). */
    struct msamp_record h = *r;
    h.u.session.interval = 0;
    live_apply(s, &h);
    if (p) {
        pre_replay_into(s, p, first, guess, &s->n.pre_replayed);
        session_pre_free(p);
    } else {
        s->interval = 0;
    }
    live_apply(s, r);
}

/* Kept records applied without a header (defaults): the interval as far as INTERVAL records tell,
 * else unknown (unweighted), no thinning, stacks as sent. */
static void pre_flush_defaults(struct session *s, const struct pre_buf *p)
{
    int guess = 0;
    uint64_t first = pre_first_interval(p, 0, &guess);
    s->n.samples = 0; /* recounted by the replay */
    pre_replay_into(s, p, first, 0, &s->n.pre_defaults);
}

struct session *session_replayed_defaults(const struct session *s)
{
    if (s->have_header || !s->pre)
        return NULL;
    struct session *t = session_new(s->index, &s->dec_start);
    t->host_start = s->host_start;
    t->arrive_live = s->arrive_live;
    t->arrive_known = s->arrive_known;
    t->arrive_first = s->arrive_first;
    t->arrive_last = s->arrive_last;
    t->first_seen = s->first_seen;
    t->bad_before = s->bad_before;
    t->pre_off = 1;
    t->min_life_s = s->min_life_s;
    t->keep_site_peaks = s->keep_site_peaks;
    /* What was applied directly (after a buffer overflow) cannot coexist with a kept buffer:
     * the buffer is flushed when it overflows. */
    pre_flush_defaults(t, s->pre);
    return t;
}

/* A record before the session's first header: kept, or the header that replays what was kept;
 * 1 when it is done with, 0 when it is to be applied (the buffer is full). */
static int pre_record(struct session *s, const struct msamp_record *r)
{
    if (r->type == MSAMP_REC_SESSION) {
        pre_replay(s, r);
        return 1;
    }
    if (pre_keep(s, r)) {
        if (r->ts_valid && r->type >= 0 && !s->ts_known) {
            s->ts_known = 1;
            s->first_ts = r->ts;
        }
        if (r->ts_valid && r->type >= 0)
            s->last_ts = r->ts;
        return 1;
    }
    /* The buffer is full: what it holds, and all that follows until a header, is applied with
     * defaults (weights unknown, thinning not replayed), as a reader without the buffer would. */
    struct pre_buf *p = s->pre;
    s->pre = NULL;
    s->pre_off = 1;
    pre_flush_defaults(s, p);
    session_pre_free(p);
    return 0;
}

void session_record_pre(struct session *s, const struct msamp_record *r)
{
    if (!pre_record(s, r))
        live_apply(s, r);
}
