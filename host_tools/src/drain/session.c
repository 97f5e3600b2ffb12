#include "session.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct session *session_new(int index, const struct msamp_dec_stats *dec_now)
{
    struct session *s = xcalloc(1, sizeof(*s));
    s->index = index;
    clock_gettime(CLOCK_REALTIME, &s->host_start);
    if (dec_now)
        s->dec_start = *dec_now;
    return s;
}

void session_free(struct session *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nmaps; i++)
        free(s->maps[i].path);
    free(s->maps);
    umap_free(&s->stack_index);
    free(s->stacks);
    free(s->frames);
    umap_free(&s->site_index);
    free(s->sites);
    free(s->slots);
    for (size_t i = 0; i < s->nmarks; i++)
        free(s->marks[i]);
    free(s);
}

int session_has_data(const struct session *s)
{
    return s->have_header || s->nsites > 0 || s->nstacks > 0;
}

int session_is_new(const struct session *s, const struct msamp_record *rec)
{
    if (!s->have_header)
        return rec->u.session.resend_seq == 0 && session_has_data(s);
    return rec->u.session.session_id != s->session_id || rec->u.session.resend_seq == 0;
}

double session_weight(uint64_t size, uint64_t interval)
{
    if (interval <= 1)
        return 1.0;
    double x = (double)(size ? size : 1) / (double)interval;
    return 1.0 / -expm1(-x);
}

const uint64_t *session_stack(const struct session *s, uint64_t id, uint32_t *depth)
{
    uint32_t i = id ? umap_get(&s->stack_index, id) : UINT32_MAX;
    if (i == UINT32_MAX)
        return NULL;
    *depth = s->stacks[i].depth;
    return &s->frames[s->stacks[i].off];
}

uint64_t session_device_drops(const struct session *s)
{
    return s->drops[MSAMP_DROP_RING_RECORDS] + s->drops[MSAMP_DROP_LIVE_FULL] +
           s->drops[MSAMP_DROP_STACK_FULL] + s->drops[MSAMP_DROP_REENTRANT];
}

struct msamp_dec_stats session_stream_losses(const struct session *s,
                                             const struct msamp_dec_stats *now)
{
    const struct msamp_dec_stats *b = &s->dec_start;
    return (struct msamp_dec_stats){
        .bytes_in = now->bytes_in - b->bytes_in,
        .frames_ok = now->frames_ok - b->frames_ok,
        .frames_bad = now->frames_bad - b->frames_bad,
        .frames_lost = now->frames_lost - b->frames_lost,
        .bytes_discarded = now->bytes_discarded - b->bytes_discarded,
        .records = now->records - b->records,
        .records_malformed = now->records_malformed - b->records_malformed,
        .records_unknown = now->records_unknown - b->records_unknown,
    };
}

/* The site of a stack id; beyond the cap, samples go to the site of id 0 ("unknown stack"). */
static uint32_t site_of(struct session *s, uint64_t stack_id)
{
    uint32_t i = umap_get(&s->site_index, stack_id);
    if (i != UINT32_MAX)
        return i;
    if (s->nsites >= DRAIN_MAX_STACKS && stack_id != 0) {
        s->n.stack_overflow++;
        return site_of(s, 0);
    }
    GROW(s->sites, s->capsites, s->nsites + 1);
    memset(&s->sites[s->nsites], 0, sizeof(s->sites[0]));
    s->sites[s->nsites].stack_id = stack_id;
    umap_put(&s->site_index, stack_id, (uint32_t)s->nsites);
    return (uint32_t)s->nsites++;
}

static double weight_now(struct session *s, uint64_t size)
{
    if (s->interval == 0)
        s->n.unweighted++;
    return session_weight(size, s->interval);
}

/* The slot for an index from the stream, or NULL when it is out of range. */
static struct slot *slot_at(struct session *s, uint64_t index)
{
    uint64_t cap = DRAIN_MAX_SLOTS;
    if (s->have_header && s->live_capacity > 0 && s->live_capacity < cap)
        cap = s->live_capacity;
    if (index >= cap) {
        s->n.bad_slots++;
        return NULL;
    }
    if (index >= s->nslots) {
        size_t n = s->nslots ? s->nslots : 64;
        while (n <= index)
            n *= 2;
        if (n > DRAIN_MAX_SLOTS)
            n = DRAIN_MAX_SLOTS;
        s->slots = xrealloc(s->slots, n * sizeof(*s->slots));
        memset(&s->slots[s->nslots], 0, (n - s->nslots) * sizeof(*s->slots));
        s->nslots = n;
    }
    return &s->slots[index];
}

static void count_free(struct session *s, struct slot *sl)
{
    struct site *st = &s->sites[sl->site];
    st->free_n += sl->w;
    st->free_b += sl->w * (double)sl->size;
    st->free_samples++;
    sl->live = 0;
    sl->in_snap = 0;
}

static void count_alloc(struct session *s, uint32_t site, uint64_t size, double w)
{
    struct site *st = &s->sites[site];
    st->alloc_n += w;
    st->alloc_b += w * (double)size;
    st->alloc_samples++;
}

/* A sampled allocation now lives in slot (slot1 = index + 1; 0: untracked). */
static void on_alloc(struct session *s, uint64_t slot1, uint64_t size, uint64_t stack_id,
                     uint64_t ts)
{
    uint32_t site = site_of(s, stack_id);
    double w = weight_now(s, size);
    s->n.samples++;
    count_alloc(s, site, size, w);
    if (slot1 == 0)
        return;
    struct slot *sl = slot_at(s, slot1 - 1);
    if (!sl)
        return;
    if (sl->live) {
        s->n.lost_frees++;
        count_free(s, sl);
    }
    *sl = (struct slot){size, ts, w, site, 1, 0, s->interval == 0};
}

static void on_free(struct session *s, uint64_t slot)
{
    struct slot *sl = slot_at(s, slot);
    if (!sl || !sl->live) {
        if (sl)
            s->n.unknown_frees++;
        return;
    }
    s->n.frees++;
    count_free(s, sl);
}

static void on_live(struct session *s, const struct msamp_record *r)
{
    s->n.lives++;
    if (s->snap_active)
        s->snap_lives++;
    struct slot *sl = slot_at(s, r->u.live.slot);
    if (!sl)
        return;
    uint32_t site = site_of(s, r->u.live.stack_id);
    if (sl->live && sl->size == r->u.live.size && sl->site == site) {
        sl->in_snap = 0;
        if (sl->unweighted && s->interval) {
            sl->w = session_weight(sl->size, s->interval);
            sl->unweighted = 0;
        }
        return;
    }
    if (sl->live) {
        s->n.lost_frees++;
        count_free(s, sl);
    }
    /* Allocated before drain attached (or its ALLOC was lost): count it as allocated too, so
     * allocated >= in use holds for every stack. */
    double w = weight_now(s, r->u.live.size);
    s->n.late_live++;
    count_alloc(s, site, r->u.live.size, w);
    *sl = (struct slot){r->u.live.size, r->u.live.birth, w, site, 1, 0, s->interval == 0};
}

static void on_snap_end(struct session *s, const struct msamp_record *r)
{
    /* Only a pass heard in full proves that a missing allocation was freed. */
    if (!s->snap_active || s->snap_dirty || r->u.snap_end.pass != s->snap_pass ||
        r->u.snap_end.count != s->snap_lives) {
        s->n.snapshots_skipped++;
        s->snap_active = 0;
        return;
    }
    for (size_t i = 0; i < s->nslots; i++) {
        struct slot *sl = &s->slots[i];
        if (sl->live && sl->in_snap) {
            s->n.lost_frees++;
            count_free(s, sl);
        }
    }
    s->n.snapshots_ok++;
    s->snap_active = 0;
}

static void on_stack(struct session *s, const struct msamp_record *r)
{
    uint64_t id = r->u.stack.id;
    uint32_t depth = r->u.stack.depth;
    if (id == 0 || depth == 0)
        return;
    uint32_t i = umap_get(&s->stack_index, id);
    if (i != UINT32_MAX) {
        const struct stackdef *d = &s->stacks[i];
        if (d->depth != depth ||
            memcmp(&s->frames[d->off], r->u.stack.frames, depth * sizeof(uint64_t)) != 0)
            s->n.stack_conflicts++;
        return;
    }
    if (s->nstacks >= DRAIN_MAX_STACKS || s->nframes + depth > DRAIN_MAX_FRAMES) {
        s->n.stack_overflow++;
        return;
    }
    GROW(s->stacks, s->capstacks, s->nstacks + 1);
    GROW(s->frames, s->capframes, s->nframes + depth);
    memcpy(&s->frames[s->nframes], r->u.stack.frames, depth * sizeof(uint64_t));
    s->stacks[s->nstacks] = (struct stackdef){(uint32_t)s->nframes, depth};
    s->nframes += depth;
    umap_put(&s->stack_index, id, (uint32_t)s->nstacks++);
}

static void on_session(struct session *s, const struct msamp_record *r)
{
    if (s->have_header && s->interval != r->u.session.interval && r->u.session.interval)
        s->n.interval_changes++;
    s->have_header = 1;
    s->session_id = r->u.session.session_id;
    s->resend_seq = r->u.session.resend_seq;
    s->version = r->u.session.version;
    s->flags = r->u.session.flags;
    s->arch = r->u.session.arch;
    s->ptr_size = r->u.session.ptr_size;
    s->tick_hz = r->u.session.tick_hz;
    if (r->u.session.interval) {
        s->interval = r->u.session.interval;
        if (!s->first_interval)
            s->first_interval = s->interval;
    }
    s->live_capacity = r->u.session.live_capacity;
    s->stack_capacity = r->u.session.stack_capacity;
    s->max_depth = r->u.session.max_depth;
    s->build_id_len = r->u.session.build_id_len;
    memcpy(s->build_id, r->u.session.build_id, s->build_id_len);
}

static void on_mapping(struct session *s, const struct msamp_record *r)
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

static void on_mark(struct session *s, const struct msamp_record *r)
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

void session_record(struct session *s, const struct msamp_record *r)
{
    if (r->ts_valid && r->type >= 0) {
        if (!s->ts_known) {
            s->ts_known = 1;
            s->first_ts = r->ts;
        }
        s->last_ts = r->ts;
    }
    switch (r->type) {
    case MSAMP_DEC_FRAME:
        if (r->u.frame.lost)
            s->snap_dirty = 1;
        break;
    case MSAMP_DEC_LOSS:
        s->snap_dirty = 1;
        break;
    case MSAMP_REC_SESSION:
        on_session(s, r);
        break;
    case MSAMP_REC_STACK:
        on_stack(s, r);
        break;
    case MSAMP_REC_ALLOC:
        on_alloc(s, r->u.alloc.slot1, r->u.alloc.size, r->u.alloc.stack_id, r->ts);
        break;
    case MSAMP_REC_FREE:
        on_free(s, r->u.free.slot);
        break;
    case MSAMP_REC_LIVE:
        on_live(s, r);
        break;
    case MSAMP_REC_SNAP_BEGIN:
        for (size_t i = 0; i < s->nslots; i++)
            s->slots[i].in_snap = s->slots[i].live;
        s->snap_active = 1;
        s->snap_dirty = 0;
        s->snap_pass = r->u.snap_begin.pass;
        s->snap_lives = 0;
        break;
    case MSAMP_REC_SNAP_END:
        on_snap_end(s, r);
        break;
    case MSAMP_REC_DROPS:
        s->have_drops = 1;
        s->drops[MSAMP_DROP_RING_RECORDS] = r->u.drops.ring_records;
        s->drops[MSAMP_DROP_RING_BYTES] = r->u.drops.ring_bytes;
        s->drops[MSAMP_DROP_LIVE_FULL] = r->u.drops.live_full;
        s->drops[MSAMP_DROP_STACK_FULL] = r->u.drops.stack_full;
        s->drops[MSAMP_DROP_REENTRANT] = r->u.drops.reentrant;
        s->drops[MSAMP_DROP_TRUNCATED] = r->u.drops.truncated;
        break;
    case MSAMP_REC_INTERVAL:
        if (r->u.interval.interval) {
            if (s->interval && s->interval != r->u.interval.interval)
                s->n.interval_changes++;
            s->interval = r->u.interval.interval;
            if (!s->first_interval)
                s->first_interval = s->interval;
        }
        break;
    case MSAMP_REC_REALLOC: {
        struct slot *old = slot_at(s, r->u.realloc.old_slot);
        if (old && old->live)
            count_free(s, old);
        s->n.reallocs++;
        on_alloc(s, r->u.realloc.new_slot1, r->u.realloc.size, r->u.realloc.stack_id, r->ts);
        break;
    }
    case MSAMP_REC_MARK:
        on_mark(s, r);
        break;
    case MSAMP_REC_MAPPING:
        on_mapping(s, r);
        break;
    default:
        break;
    }
}
