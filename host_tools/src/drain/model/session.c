/*
 * A session's identity and lifetime (session.h): made and freed (with what the models beside it
 * attached), its header (SESSION records: which records start a new session), its ends (END, a
 * RESET sent by the next boot), its mappings and marks, its settings (--min-lifetime, a dump, the
 * sites' peaks) and its clocks (device ticks as seconds, the pace the input arrived at, the
 * lifetime buckets).
 */
#include "model/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void session_pre_free(struct pre_buf *p)
{
    if (!p)
        return;
    free(p->v);
    buf_free(&p->arena);
    free(p);
}

/* The models beside the session register their state's free here (session.h). */
void session_attach(struct session *s, void (*free_part)(void *p), void *p)
{
    if (s->nparts == DRAIN_SESSION_PARTS) {
        fprintf(stderr, "drain: more than %d models beside a session\n", DRAIN_SESSION_PARTS);
        abort();
    }
    s->parts[s->nparts++] = (struct session_part){free_part, p};
}

struct session *session_new(int index, const struct msamp_dec_stats *dec_now)
{
    struct session *s = xcalloc(1, sizeof(*s));
    s->index = index;
    s->thin_budget = DRAIN_THIN_BUDGET0;
    s->slot_cap = DRAIN_MAX_SLOTS;
    s->over_site = UINT32_MAX;
    clock_gettime(CLOCK_REALTIME, &s->host_start);
    if (dec_now)
        s->dec_start = *dec_now;
    return s;
}

void session_free(struct session *s)
{
    if (!s)
        return;
    growth_free(s->growth);
    for (size_t i = 0; i < s->nmaps; i++)
        free(s->maps[i].path);
    free(s->maps);
    umap_free(&s->stack_index);
    iset_free(&s->stack_set);
    free(s->stacks);
    free(s->frames);
    umap_free(&s->site_index);
    umap_free(&s->task_site_index);
    free(s->tasks);
    free(s->sites);
    free(s->site_var);
    free(s->site_peak);
    umap_free(&s->rare_index);
    free(s->rare);
    free(s->refused);
    umap_free(&s->link_index);
    free(s->link);
    umap_free(&s->slot_index);
    free(s->slots);
    free(s->live);
    session_pre_free(s->pre);
    umap_free(&s->life_index);
    free(s->life);
    for (size_t i = 0; i < s->nmarks; i++)
        free(s->marks[i]);
    for (size_t i = s->nparts; i-- > 0;)
        s->parts[i].free(s->parts[i].p);
    free(s);
}

/* A session is worth a profile once it has a sample or a stack (a header alone is not: a stream
 * of empty boots writes no file per boot). */
int session_has_data(const struct session *s)
{
    return s->nsites > 0 || s->nstacks > 0 || (s->pre && (s->pre->samples || s->pre->stacks));
}

int session_is_new(const struct session *s, const struct msamp_record *rec)
{
    if (!s->have_header)
        return rec->u.session.resend_seq == 0 && session_has_data(s);
    /* The next boot's account of this session's end (MSAMP_SESSION_FLAG_PREVIOUS) continues it. */
    if ((rec->u.session.flags & MSAMP_SESSION_FLAG_PREVIOUS) &&
        rec->u.session.session_id == s->session_id && !s->have_end && !s->have_reset)
        return 0;
    return rec->u.session.session_id != s->session_id || rec->u.session.resend_seq == 0;
}

void session_set_min_lifetime(struct session *s, double seconds)
{
    s->min_life_s = seconds > 0 ? seconds : 0;
}

void session_set_dump(struct session *s)
{
    s->dump = 1;
}

void session_keep_site_peaks(struct session *s)
{
    if (s->keep_site_peaks)
        return;
    s->keep_site_peaks = 1;
    if (s->capsites) /* sites before it (too late a call): their values start at 0 */
        s->site_peak = xcalloc(s->capsites, sizeof(*s->site_peak));
}

uint64_t session_life_edge_ns(unsigned b)
{
    uint64_t e = 0;
    if (b > 0 && b < DRAIN_LIFE_BUCKETS)
        for (e = 10000; b > 1; b--)
            e *= 10;
    return e;
}

const char *session_life_name(unsigned b)
{
    static const char *const names[DRAIN_LIFE_BUCKETS] = {
        "<10us", "10us", "100us", "1ms", "10ms", "100ms", "1s",
        "10s",   "100s", "1e3s",  "1e4s", "1e5s",  ">=1e6s"};
    return b < DRAIN_LIFE_BUCKETS ? names[b] : "?";
}

void session_arrived(struct session *s, double t)
{
    if (!s->arrive_known) {
        s->arrive_known = 1;
        s->arrive_first = t;
    }
    s->arrive_last = t;
}

double session_time_s(const struct session *s, uint64_t ts, int valid)
{
    if (!valid || !s->ts_known || !s->tick_hz || ts < s->first_ts)
        return -1;
    return (double)(ts - s->first_ts) / (double)s->tick_hz;
}

void session_first_record(struct session *s, const struct msamp_dec_stats *dec_now)
{
    s->first_seen = 1;
    s->bad_before = dec_now->frames_bad - s->dec_start.frames_bad;
}

/* END: the device's totals; its ring-drop count is the latest DROPS.ring_records too. */
void session_on_end(struct session *s, const struct msamp_record *r)
{
    s->have_end = 1;
    s->end_samples = r->u.end.samples;
    s->end_frees = r->u.end.frees;
    s->end_dropped = r->u.end.dropped;
    if (r->u.end.dropped > s->drops[MSAMP_DROP_RING_RECORDS]) {
        s->have_drops = 1;
        s->drops[MSAMP_DROP_RING_RECORDS] = r->u.end.dropped;
    }
}

/* RESET: the session ended by a reset (the next boot's account, from the block it kept). */
void session_on_reset(struct session *s, const struct msamp_record *r)
{
    s->have_reset = 1;
    s->reset_cause = r->u.reset.cause;
    s->reset_ts = r->ts;
    s->reset_ts_valid = r->ts_valid;
    s->reset_samples = r->u.reset.samples;
    s->reset_frees = r->u.reset.frees;
    if (r->u.reset.dropped > s->drops[MSAMP_DROP_RING_RECORDS]) {
        s->have_drops = 1;
        s->drops[MSAMP_DROP_RING_RECORDS] = r->u.reset.dropped;
    }
}

const char *session_reset_cause(const struct session *s)
{
    static const char *const names[MSAMP_WIRE_RESET_CAUSES] = {"unknown", "software", "fault",
                                                               "watchdog", "assert"};
    return s->reset_cause < MSAMP_WIRE_RESET_CAUSES ? names[s->reset_cause] : "other";
}

const char *session_ended(const struct session *s)
{
    return s->dump ? NULL : s->have_end ? "end" : s->have_reset ? "reset" : "cut";
}

void session_on_header(struct session *s, const struct msamp_record *r)
{
    s->have_header = 1;
    s->session_id = r->u.session.session_id;
    s->resend_seq = r->u.session.resend_seq;
    s->version = r->u.session.version;
    s->flags = r->u.session.flags & ~MSAMP_SESSION_FLAG_PREVIOUS;
    s->arch = r->u.session.arch;
    s->ptr_size = r->u.session.ptr_size;
    s->tick_hz = r->u.session.tick_hz;
    if (r->u.session.interval && !s->interval) {
        s->interval = r->u.session.interval;
        session_note_interval(s, s->interval);
        if (!s->first_interval)
            s->first_interval = s->interval;
    }
    s->live_capacity = r->u.session.live_capacity;
    s->slot_cap = s->live_capacity > 0 && s->live_capacity < DRAIN_MAX_SLOTS ? s->live_capacity
                                                                              : DRAIN_MAX_SLOTS;
    s->stack_capacity = r->u.session.stack_capacity;
    s->max_depth = r->u.session.max_depth;
    s->build_id_len = r->u.session.build_id_len;
    memcpy(s->build_id, r->u.session.build_id, s->build_id_len);
    s->device_id_len = r->u.session.device_id_len;
    memcpy(s->device_id, r->u.session.device_id, s->device_id_len);
}

void session_on_mapping(struct session *s, const struct msamp_record *r)
{
    const __typeof__(r->u.mapping) *m = &r->u.mapping;
    for (size_t i = 0; i < s->nmaps; i++) {
        const struct mapping_rec *o = &s->maps[i];
        if (o->start == m->start && o->limit == m->limit && o->offset == m->offset)
            return;
    }
    if (s->nmaps >= DRAIN_MAX_MAPPINGS || m->limit <= m->start)
        return;
    GROW(s->maps, s->capmaps, s->nmaps + 1);
    struct mapping_rec *o = &s->maps[s->nmaps++];
    o->start = m->start;
    o->limit = m->limit;
    o->offset = m->offset;
    o->build_id_len = m->build_id_len;
    memcpy(o->build_id, m->build_id, m->build_id_len);
    o->path = xstrndup((const char *)m->path, m->path_len);
}

void session_on_mark(struct session *s, const struct msamp_record *r)
{
    if (s->nmarks >= DRAIN_MAX_MARKS)
        return;
    size_t n = r->u.mark.len < DRAIN_MAX_MARK_LEN ? r->u.mark.len : DRAIN_MAX_MARK_LEN;
    char *t = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        uint8_t c = r->u.mark.text[i];
        t[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    t[n] = 0;
    s->marks[s->nmarks++] = t;
}
