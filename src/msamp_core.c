/* The core: configuration, the sampled paths of the wrappers, snapshot passes and the framer that
 * drains the ring into the transport. Shared state changes only under the port lock; the fast
 * paths (msamp_internal.h) touch only the caller's context and one live-table bucket. */
#include "msamp_internal.h"

#define ARCH MSAMP_ARCH_SELF
#define SESSION_ENDIAN MSAMP_SESSION_ENDIAN

/* Countdown while disabled: large, but finite so that a context that missed a broadcast still
 * re-checks now and then (every 2^30 bytes on 32-bit targets, 2^62 on 64-bit ones). */
#define DISABLED_COUNTDOWN ((uintptr_t)1 << (sizeof(uintptr_t) * 8u - 2u))
/* A dt that needs more than two varint bytes is preceded by an absolute TIME record. */
#define DT_LIMIT (1u << 14)
#define MAX_MAPPINGS 8u
#define MAX_MARK 64u
#define CHUNK 32u

#if MSAMP_CFG_SEND_ADDRESSES
#define SENT_ADDRESS(p) (p)
#else
#define SENT_ADDRESS(p) ((void)(p), (const uintptr_t *)NULL)
#endif

enum snap_state { SNAP_IDLE, SNAP_SCAN };

struct msamp_heapdump_v1 msamp_heapdump __attribute__((section(".bss.msamp")));

static struct {
    struct msamp_ring ring;
    struct msamp_context *contexts[MSAMP_CFG_MAX_CONTEXTS];
    _Atomic uint32_t gen;      /* bumped by every configuration change */
    _Atomic uint32_t interval; /* bytes */
    _Atomic uint8_t enabled;
    uint8_t initialised;
    uint64_t seed;
    uint32_t registrations;
    unsigned time_shift;
    uint32_t tick_hz;
    uint64_t last_ts; /* time of the last timed record put in the ring */
    uint32_t session_id;
    uint32_t resend_seq;
    uint32_t mappings; /* how many the port reported at init */
    uint64_t resend_ticks;
    uint64_t next_resend;
    /* counters (struct msamp_stats) */
    uint32_t samples, frees, ring_records, ring_bytes, live_full, stack_full, truncated;
    uint32_t sent_drops[6];
    /* snapshot pass */
    uint8_t snap_state;
    uint8_t snap_requested;
    uint16_t pass;
    uint32_t cursor;
    uint32_t snap_count;
    /* framer: the consumer side, used only by msamp_poll() */
    uint8_t frame_seq;
    uint8_t framing;
    uint8_t chunk_len, chunk_off;
    uint8_t chunk[CHUNK];
    struct msamp_cobs cobs;
    uint8_t body[MSAMP_FRAME_BODY];
} g;

/* ---- helpers ---- */

static uint64_t now(void)
{
    return msamp_port_time() >> g.time_shift;
}

/* Records put into the ring together, or not at all. */
struct group {
    const uint8_t *rec[4];
    size_t size[4];
    unsigned n;
    size_t total;
};

static void group_add(struct group *gr, const uint8_t *rec, size_t size)
{
    MSAMP_CFG_ASSERT(gr->n < 4u);
    gr->rec[gr->n] = rec;
    gr->size[gr->n] = size;
    gr->n++;
    gr->total += size;
}

static int group_fits(const struct group *gr)
{
    return gr->total <= msamp_ring_free(&g.ring);
}

/* Puts the group, or counts it as dropped. Returns 0 when put. Caller holds the lock. */
static int group_put(const struct group *gr)
{
    if (!group_fits(gr)) {
        g.ring_records += gr->n;
        g.ring_bytes += (uint32_t)gr->total;
        return -1;
    }
    for (unsigned i = 0; i < gr->n; i++)
        (void)msamp_ring_put(&g.ring, gr->rec[i], gr->size[i]);
    return 0;
}

/* dt of a record at time ts, adding a TIME record to the group first when dt is large. The
 * caller commits ts to g.last_ts only if the group is put. */
static uint64_t time_delta(struct group *gr, struct msamp_rec *r, uint8_t *buf, uint64_t ts)
{
    if (ts >= g.last_ts && ts - g.last_ts < DT_LIMIT)
        return ts - g.last_ts;
    const uint8_t *rec = msamp_enc_varints(r, buf, MSAMP_REC_TIME, &ts, 1);
    group_add(gr, rec, r->size);
    return 0;
}

static void add_stack(struct group *gr, struct msamp_rec *r, uint8_t *buf, uint32_t id)
{
    const uintptr_t *pcs;
    uint32_t depth = msamp_stacks_get(&msamp_heapdump, id, &pcs);
    const uint8_t *rec = msamp_enc_stack(r, buf, id, pcs, depth);
    group_add(gr, rec, r->size);
}

/* Whether a stack must be (re)sent before a record that uses it: once per snapshot pass. */
static int stack_unsent(uint32_t id)
{
    return id != 0 && msamp_heapdump.stacks[id].pass != g.pass;
}

static void broadcast_recheck(void)
{
    atomic_fetch_add_explicit(&g.gen, 1, memory_order_relaxed);
    for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++)
        if (g.contexts[i] != NULL)
            atomic_store_explicit(&g.contexts[i]->countdown, 0, memory_order_relaxed);
}

#define UNREGISTERED UINT32_MAX

static void register_context(struct msamp_context *c)
{
    msamp_port_lock_t key = msamp_port_lock();
    g.registrations++;
    c->rng = msamp_rng_seed(g.seed ^ ((uint64_t)g.registrations * 0xD1B54A32D192ED03ull));
    c->index = UNREGISTERED;
    for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++) {
        if (g.contexts[i] == NULL) {
            g.contexts[i] = c;
            c->index = i + 1u;
            break;
        }
    }
    msamp_port_unlock(key);
    msamp_port_context_registered(c);
}

void msamp_context_detach(struct msamp_context *c)
{
    msamp_port_lock_t key = msamp_port_lock();
    if (c->index != 0 && c->index != UNREGISTERED && g.contexts[c->index - 1u] == c)
        g.contexts[c->index - 1u] = NULL;
    c->index = 0;
    msamp_port_unlock(key);
}

static uintptr_t fresh_countdown(struct msamp_context *c)
{
    if (!atomic_load_explicit(&g.enabled, memory_order_relaxed))
        return DISABLED_COUNTDOWN;
    return msamp_draw_gap(&c->rng, atomic_load_explicit(&g.interval, memory_order_relaxed));
}

/* The sampling decision for an allocation of size bytes whose fast path ran out (or that a
 * realloc brings here): 1 when sampled. Updates the context's countdown either way. */
static int decide(struct msamp_context *c, size_t size)
{
    uint32_t gen = atomic_load_explicit(&g.gen, memory_order_relaxed);
    if (c->index == 0)
        register_context(c);
    uintptr_t cd = atomic_load_explicit(&c->countdown, memory_order_relaxed);
    if (c->gen != gen) {
        /* The configuration changed (or this context is new): forget the old gap. */
        c->gen = gen;
        cd = fresh_countdown(c);
    }
    if (size < cd) {
        atomic_store_explicit(&c->countdown, cd - size, memory_order_relaxed);
        return 0;
    }
    atomic_store_explicit(&c->countdown, fresh_countdown(c), memory_order_relaxed);
    return atomic_load_explicit(&g.enabled, memory_order_relaxed) && g.initialised;
}

struct walk {
    uintptr_t *pcs;
    uint32_t n;
    uint8_t truncated;
};

static int collect(void *arg, uintptr_t pc)
{
    struct walk *w = arg;
    if (w->n == MSAMP_CFG_MAX_DEPTH) {
        w->truncated = 1;
        return 0;
    }
    w->pcs[w->n++] = pc;
    return 1;
}

/* Adds a FREE of slot to the group. */
static void add_free(struct group *gr, struct msamp_rec *r, uint8_t *tbuf, uint8_t *buf,
                     uint32_t slot, uint64_t ts)
{
    uint64_t dt = time_delta(gr, r, tbuf, ts);
    const uint8_t *rec = msamp_enc_free(r, buf, slot, dt);
    group_add(gr, rec, r->size);
}

/* Removes a slot whose block is gone, telling the host. Caller holds the lock. */
static void release_slot(uint32_t slot, uint64_t ts)
{
    uint8_t tbuf[3 + MSAMP_REC_SMALL], fbuf[3 + MSAMP_REC_SMALL];
    struct msamp_rec r;
    struct group gr = {0};
    add_free(&gr, &r, tbuf, fbuf, slot, ts);
    if (group_put(&gr) == 0)
        g.last_ts = ts;
    msamp_live_clear(&msamp_heapdump, slot);
    g.frees++;
}

/* Records a sampled allocation p of size bytes. When old (nonzero) is still a tracked block, the
 * record is a REALLOC that frees it. */
static void record_sample(uintptr_t p, uintptr_t size, const void *frame, uintptr_t old)
{
    uintptr_t pcs[MSAMP_CFG_MAX_DEPTH];
    struct walk w = {pcs, 0, 0};
    msamp_port_walk(frame, collect, &w);

    uint8_t sbuf[3 + MSAMP_MAX_RECORD], tbuf[3 + MSAMP_REC_SMALL], abuf[3 + MSAMP_REC_SMALL];
    struct msamp_rec r;
    struct group gr = {0};

    msamp_port_lock_t key = msamp_port_lock();
    uint64_t ts = now();
    int32_t old_slot = old != 0 ? msamp_live_find(&msamp_heapdump, old) : -1;
    uint32_t id = msamp_stacks_intern(&msamp_heapdump, pcs, w.n);
    if (w.truncated)
        g.truncated++;
    if (id == 0 && w.n != 0)
        g.stack_full++;
    int32_t stale = msamp_live_find(&msamp_heapdump, p);
    if (stale >= 0 && stale != old_slot)
        release_slot((uint32_t)stale, ts); /* its free was never seen: the address is reused */
    if (old_slot >= 0)
        msamp_live_clear(&msamp_heapdump, (uint32_t)old_slot);
    int32_t slot = msamp_live_free_slot(&msamp_heapdump, p);
    if (slot < 0)
        g.live_full++;

    int send_stack = stack_unsent(id);
    if (send_stack)
        add_stack(&gr, &r, sbuf, id);
    uint64_t dt = time_delta(&gr, &r, tbuf, ts);
    const uint8_t *rec = msamp_enc_alloc(&r, abuf, old_slot, slot >= 0 ? (uint64_t)slot + 1u : 0u,
                                         size, id, dt, SENT_ADDRESS(&p));
    group_add(&gr, rec, r.size);

    if (group_put(&gr) == 0) {
        g.last_ts = ts;
        if (send_stack)
            msamp_heapdump.stacks[id].pass = g.pass;
    }
    /* The live table is kept even when the record was dropped: the next snapshot pass reports it. */
    if (slot >= 0)
        msamp_live_set(&msamp_heapdump, (uint32_t)slot, p, size, id, (uint32_t)ts);
    if (old_slot >= 0)
        g.frees++;
    g.samples++;
    msamp_port_unlock(key);
}

/* ---- slow paths of the wrappers ---- */

void msamp_alloc_slow(struct msamp_context *c, void *p, size_t size, const void *frame)
{
    if (c->busy) {
        c->reentrant++;
        return;
    }
    c->busy = 1;
    if (decide(c, size) && p != NULL)
        record_sample((uintptr_t)p, size, frame, 0);
    msamp_port_ring_notify(msamp_ring_used(&g.ring), MSAMP_CFG_RING_SIZE);
    c->busy = 0;
}

void msamp_free_slow(struct msamp_context *c, void *p)
{
    if (msamp_live_find(&msamp_heapdump, (uintptr_t)p) < 0)
        return; /* a fingerprint collision (or NULL): not a sampled block */
    if (c->busy) {
        c->reentrant++;
        return;
    }
    c->busy = 1;
    msamp_port_lock_t key = msamp_port_lock();
    int32_t slot = msamp_live_find(&msamp_heapdump, (uintptr_t)p);
    if (slot >= 0)
        release_slot((uint32_t)slot, now());
    msamp_port_unlock(key);
    msamp_port_ring_notify(msamp_ring_used(&g.ring), MSAMP_CFG_RING_SIZE);
    c->busy = 0;
}

void msamp_realloc_slow(struct msamp_context *c, void *old, void *p, size_t size,
                        const void *frame)
{
    if (c->busy) {
        c->reentrant++;
        return;
    }
    c->busy = 1;
    if (p != NULL && decide(c, size)) {
        record_sample((uintptr_t)p, size, frame, (uintptr_t)old);
    } else {
        /* Look the old block up again under the lock: another context may have reported it. */
        msamp_port_lock_t key = msamp_port_lock();
        int32_t old_slot = msamp_live_find(&msamp_heapdump, (uintptr_t)old);
        if (old_slot >= 0)
            release_slot((uint32_t)old_slot, now());
        msamp_port_unlock(key);
    }
    msamp_port_ring_notify(msamp_ring_used(&g.ring), MSAMP_CFG_RING_SIZE);
    c->busy = 0;
}

/* ---- identity, drops and snapshot passes (producers, under the lock) ---- */

static void add_session(struct group *gr, struct msamp_rec *r, uint8_t *buf, uint32_t seq)
{
    struct msamp_session_fields f = {0};
    size_t id_len = msamp_port_build_id(&f.build_id);
    f.build_id_len = (uint8_t)(f.build_id != NULL && id_len <= 64u ? id_len : 0);
    f.flags = (uint8_t)(SESSION_ENDIAN |
                        (MSAMP_CFG_SEND_ADDRESSES ? MSAMP_SESSION_FLAG_ADDRESSES : 0u));
    f.arch = (uint8_t)ARCH;
    f.ptr_size = (uint8_t)sizeof(uintptr_t);
    f.session_id = g.session_id;
    f.resend_seq = seq;
    f.tick_hz = g.tick_hz;
    f.interval = atomic_load_explicit(&g.interval, memory_order_relaxed);
    f.live_capacity = MSAMP_CFG_LIVE_CAPACITY;
    f.stack_capacity = MSAMP_CFG_STACK_CAPACITY;
    f.max_depth = MSAMP_CFG_MAX_DEPTH;
    const uint8_t *rec = msamp_enc_session(r, buf, &f);
    group_add(gr, rec, r->size);
}

static void add_drops(struct group *gr, struct msamp_rec *r, uint8_t *buf, uint32_t *now_drops)
{
    uint32_t reentrant = 0;
    for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++)
        if (g.contexts[i] != NULL)
            reentrant += g.contexts[i]->reentrant;
    now_drops[0] = g.ring_records;
    now_drops[1] = g.ring_bytes;
    now_drops[2] = g.live_full;
    now_drops[3] = g.stack_full;
    now_drops[4] = reentrant;
    now_drops[5] = g.truncated;
    uint64_t v[6];
    for (unsigned i = 0; i < 6; i++)
        v[i] = now_drops[i];
    const uint8_t *rec = msamp_enc_varints(r, buf, MSAMP_REC_DROPS, v, 6);
    group_add(gr, rec, r->size);
}

static void commit_drops(const uint32_t *now_drops)
{
    for (unsigned i = 0; i < 6; i++)
        g.sent_drops[i] = now_drops[i];
}

/* Puts one MAPPING record per loaded image; returns how many the port reported. */
static size_t put_mappings(void)
{
    struct msamp_mapping maps[MAX_MAPPINGS];
    size_t n = msamp_port_mappings(maps, MAX_MAPPINGS);
    uint8_t buf[3 + MSAMP_MAX_RECORD];
    for (size_t i = 0; i < n && i < MAX_MAPPINGS; i++) {
        struct msamp_rec r;
        struct group gr = {0};
        size_t room = MSAMP_MAX_RECORD - 4u * MSAMP_WIRE_MAX_VARINT - 1u - 64u;
        const uint8_t *rec = msamp_enc_mapping(&r, buf, &maps[i], room);
        group_add(&gr, rec, r.size);
        (void)group_put(&gr);
    }
    return n;
}

/* SESSION, MAPPINGs, DROPS and SNAP_BEGIN: the start of a pass. 0 when put; nothing is put (and
 * nothing counted as dropped) when the ring lacks room: the pass starts at a later poll. */
static int begin_pass(uint64_t ts)
{
    uint8_t sbuf[3 + MSAMP_MAX_RECORD], dbuf[3 + MSAMP_REC_SMALL], bbuf[3 + MSAMP_REC_SMALL];
    struct msamp_rec r;
    struct group session = {0}, rest = {0};
    uint32_t drops[6];
    uint16_t pass = (uint16_t)(g.pass == 0xFFFFu ? 1u : g.pass + 1u);
    add_session(&session, &r, sbuf, g.resend_seq);
    add_drops(&rest, &r, dbuf, drops);
    uint64_t v[2] = {pass, ts};
    const uint8_t *rec = msamp_enc_varints(&r, bbuf, MSAMP_REC_SNAP_BEGIN, v, 2);
    group_add(&rest, rec, r.size);
    if (session.total + rest.total + g.mappings * MSAMP_MAX_RECORD > msamp_ring_free(&g.ring))
        return -1;
    (void)group_put(&session);
    (void)put_mappings();
    (void)group_put(&rest);
    commit_drops(drops);
    g.resend_seq++;
    g.pass = pass;
    g.last_ts = ts;
    g.cursor = 0;
    g.snap_count = 0;
    g.snap_state = SNAP_SCAN;
    return 0;
}

/* Sends up to MSAMP_CFG_SNAPSHOT_BATCH live entries (looking at no more than 16 times as many
 * slots); ends the pass when the whole table has been seen. */
static void scan_pass(void)
{
    uint8_t sbuf[3 + MSAMP_MAX_RECORD], lbuf[3 + MSAMP_REC_SMALL];
    uint32_t looked = 0;
    for (uint32_t k = 0; k < MSAMP_CFG_SNAPSHOT_BATCH && g.cursor < MSAMP_CFG_LIVE_CAPACITY;) {
        uint32_t i = g.cursor;
        if (++looked > 16u * MSAMP_CFG_SNAPSHOT_BATCH)
            return;
        uintptr_t addr = atomic_load_explicit(&msamp_heapdump.live_addr[i], memory_order_relaxed);
        if (addr == 0) {
            g.cursor++;
            continue;
        }
        struct msamp_rec r;
        struct group gr = {0};
        uint32_t id = msamp_heapdump.live_stack[i];
        int send_stack = stack_unsent(id);
        if (send_stack)
            add_stack(&gr, &r, sbuf, id);
        const uint8_t *rec = msamp_enc_live(&r, lbuf, i, msamp_heapdump.live_size[i], id,
                                            msamp_heapdump.live_birth[i], SENT_ADDRESS(&addr));
        group_add(&gr, rec, r.size);
        if (!group_fits(&gr))
            return; /* resume at this entry on the next poll */
        (void)group_put(&gr);
        if (send_stack)
            msamp_heapdump.stacks[id].pass = g.pass;
        g.snap_count++;
        g.cursor++;
        k++;
    }
    if (g.cursor < MSAMP_CFG_LIVE_CAPACITY)
        return;
    uint8_t ebuf[3 + MSAMP_REC_SMALL];
    struct msamp_rec r;
    struct group gr = {0};
    uint64_t v[2] = {g.pass, g.snap_count};
    const uint8_t *rec = msamp_enc_varints(&r, ebuf, MSAMP_REC_SNAP_END, v, 2);
    group_add(&gr, rec, r.size);
    if (group_fits(&gr)) {
        (void)group_put(&gr);
        g.snap_state = SNAP_IDLE;
    }
}

static void send_changed_drops(void)
{
    uint8_t dbuf[3 + MSAMP_REC_SMALL];
    struct msamp_rec r;
    struct group gr = {0};
    uint32_t drops[6];
    add_drops(&gr, &r, dbuf, drops);
    int changed = 0;
    for (unsigned i = 0; i < 6; i++)
        changed |= drops[i] != g.sent_drops[i];
    /* Not counted as a drop when it does not fit: the counters are sent again later. */
    if (changed && group_fits(&gr)) {
        (void)group_put(&gr);
        commit_drops(drops);
    }
}

static void producer_duties(void)
{
    msamp_port_lock_t key = msamp_port_lock();
    uint64_t ts = now();
    if (g.snap_state == SNAP_IDLE && (g.snap_requested || ts >= g.next_resend)) {
        if (begin_pass(ts) == 0) {
            g.snap_requested = 0;
            g.next_resend = ts + g.resend_ticks;
        }
    }
    if (g.snap_state == SNAP_SCAN)
        scan_pass();
    send_changed_drops();
    msamp_port_unlock(key);
}

/* ---- the framer (consumer) ---- */

/* Moves whole records from the ring into a frame body. 0 when the ring is empty. */
static size_t build_frame(void)
{
    uint32_t off = 0;
    for (;;) {
        uint32_t size = msamp_ring_record_size(&g.ring, off);
        if (size == 0 || 1u + off + size + MSAMP_WIRE_CRC_SIZE > MSAMP_FRAME_BODY)
            break;
        off += size;
    }
    if (off == 0)
        return 0;
    msamp_ring_peek(&g.ring, 0, &g.body[1], off);
    msamp_ring_consume(&g.ring, off);
    return msamp_frame_seal(g.body, g.frame_seq++, off);
}

/* Sends frames while the transport takes bytes, at most about one ring's worth per call. */
static int pump(void)
{
    int total = 0;
    for (;;) {
        while (g.chunk_off < g.chunk_len) {
            int w = msamp_transport_write(&g.chunk[g.chunk_off], (size_t)(g.chunk_len - g.chunk_off));
            if (w < 0)
                return MSAMP_ERR_IO;
            if (w == 0)
                return total;
            g.chunk_off = (uint8_t)(g.chunk_off + w);
            total += w;
        }
        if (g.framing) {
            size_t n = msamp_cobs_emit(&g.cobs, g.chunk, CHUNK);
            if (n != 0) {
                g.chunk_len = (uint8_t)n;
                g.chunk_off = 0;
                continue;
            }
            g.framing = 0;
        }
        if (total >= (int)MSAMP_CFG_RING_SIZE)
            return total;
        size_t len = build_frame();
        if (len == 0)
            return total;
        msamp_cobs_start(&g.cobs, g.body, len);
        g.framing = 1;
    }
}

/* ---- public API ---- */

int msamp_init(const struct msamp_config *cfg)
{
    static const struct msamp_config defaults;
    if (cfg == NULL)
        cfg = &defaults;
    if (g.initialised)
        return MSAMP_ERR_STATE;
    uint64_t hz = msamp_port_time_hz();
    if (hz == 0)
        return MSAMP_ERR_INVAL;
    uint32_t interval = cfg->interval != 0 ? cfg->interval : MSAMP_CFG_DEFAULT_INTERVAL;
    uint32_t resend_ms = cfg->resend_ms != 0 ? cfg->resend_ms : MSAMP_CFG_RESEND_MS;

    msamp_port_lock_t key = msamp_port_lock();
    msamp_ring_reset(&g.ring);
    msamp_live_reset(&msamp_heapdump);
    msamp_stacks_reset(&msamp_heapdump);
    g.time_shift = 0;
    while ((hz >> g.time_shift) > MSAMP_CFG_TIME_HZ)
        g.time_shift++;
    g.tick_hz = (uint32_t)(hz >> g.time_shift);
    g.resend_ticks = (uint64_t)g.tick_hz * resend_ms / 1000u;
    if (g.resend_ticks == 0)
        g.resend_ticks = 1;
    uint64_t entropy = msamp_port_entropy();
    g.seed = cfg->seed != 0 ? cfg->seed : msamp_rng_seed(entropy);
    g.session_id = (uint32_t)msamp_rng_seed(entropy ^ g.seed ^ (uint64_t)(uintptr_t)&g);
    atomic_store_explicit(&g.interval, interval, memory_order_relaxed);
    g.pass = 1;
    g.resend_seq = 0;
    g.snap_state = SNAP_IDLE;
    g.frame_seq = 0;

    struct msamp_heapdump_v1 *d = &msamp_heapdump;
    d->version = MSAMP_HEAPDUMP_VERSION;
    d->ptr_size = (uint16_t)sizeof(uintptr_t);
    d->live_capacity = MSAMP_CFG_LIVE_CAPACITY;
    d->live_ways = MSAMP_CFG_LIVE_WAYS;
    d->stack_capacity = MSAMP_CFG_STACK_CAPACITY;
    d->frame_capacity = MSAMP_CFG_FRAME_POOL;
    d->max_depth = MSAMP_CFG_MAX_DEPTH;
    d->session_id = g.session_id;
    d->interval = interval;
    d->tick_hz = g.tick_hz;

    /* The boot header: SESSION with resend_seq 0, the mappings, the clock. */
    uint64_t ts = now();
    uint8_t sbuf[3 + MSAMP_MAX_RECORD], tbuf[3 + MSAMP_REC_SMALL];
    struct msamp_rec r;
    struct group gr = {0};
    add_session(&gr, &r, sbuf, 0);
    (void)group_put(&gr);
    g.mappings = (uint32_t)put_mappings();
    gr = (struct group){0};
    const uint8_t *rec = msamp_enc_varints(&r, tbuf, MSAMP_REC_TIME, &ts, 1);
    group_add(&gr, rec, r.size);
    (void)group_put(&gr);
    g.last_ts = ts;
    g.resend_seq = 1;
    g.next_resend = ts + g.resend_ticks;

    atomic_store_explicit(&g.enabled, cfg->start_disabled ? 0 : 1, memory_order_relaxed);
    g.initialised = 1;
    broadcast_recheck();
    atomic_store_explicit(&d->magic, MSAMP_HEAPDUMP_MAGIC, memory_order_release);
    msamp_port_unlock(key);
    return MSAMP_OK;
}

static int set_enabled(uint8_t on)
{
    if (!g.initialised)
        return MSAMP_ERR_STATE;
    msamp_port_lock_t key = msamp_port_lock();
    atomic_store_explicit(&g.enabled, on, memory_order_relaxed);
    broadcast_recheck();
    msamp_port_unlock(key);
    return MSAMP_OK;
}

int msamp_enable(void)
{
    return set_enabled(1);
}

int msamp_disable(void)
{
    return set_enabled(0);
}

int msamp_set_interval(uint32_t interval)
{
    if (interval == 0)
        return MSAMP_ERR_INVAL;
    if (!g.initialised)
        return MSAMP_ERR_STATE;
    uint8_t tbuf[3 + MSAMP_REC_SMALL], ibuf[3 + MSAMP_REC_SMALL];
    struct msamp_rec r;
    struct group gr = {0};
    int rc = MSAMP_OK;
    msamp_port_lock_t key = msamp_port_lock();
    uint64_t ts = now();
    uint64_t v[2] = {interval, time_delta(&gr, &r, tbuf, ts)};
    const uint8_t *rec = msamp_enc_varints(&r, ibuf, MSAMP_REC_INTERVAL, v, 2);
    group_add(&gr, rec, r.size);
    if (!group_fits(&gr)) {
        rc = MSAMP_ERR_BUSY;
    } else {
        (void)group_put(&gr);
        g.last_ts = ts;
        atomic_store_explicit(&g.interval, interval, memory_order_relaxed);
        msamp_heapdump.interval = interval;
        broadcast_recheck();
    }
    msamp_port_unlock(key);
    return rc;
}

int msamp_snapshot(void)
{
    if (!g.initialised)
        return MSAMP_ERR_STATE;
    msamp_port_lock_t key = msamp_port_lock();
    g.snap_requested = 1;
    msamp_port_unlock(key);
    return MSAMP_OK;
}

int msamp_mark(const char *text, size_t len)
{
    if (text == NULL || len > MAX_MARK)
        return MSAMP_ERR_INVAL;
    if (!g.initialised)
        return MSAMP_ERR_STATE;
    uint8_t buf[3 + MAX_MARK + 4];
    struct msamp_rec r;
    struct group gr = {0};
    const uint8_t *rec = msamp_enc_mark(&r, buf, text, len);
    group_add(&gr, rec, r.size);
    msamp_port_lock_t key = msamp_port_lock();
    int rc = group_fits(&gr) ? MSAMP_OK : MSAMP_ERR_BUSY;
    if (rc == MSAMP_OK)
        (void)group_put(&gr);
    msamp_port_unlock(key);
    return rc;
}

int msamp_poll(void)
{
    if (!g.initialised)
        return MSAMP_ERR_STATE;
    producer_duties();
    return pump();
}

int msamp_flush(void)
{
    if (!g.initialised)
        return MSAMP_ERR_STATE;
    int total = 0;
    for (;;) {
        int n = msamp_poll();
        if (n < 0)
            return n;
        total += n;
        int idle = !g.framing && g.chunk_off == g.chunk_len && msamp_ring_used(&g.ring) == 0;
        if (idle || n == 0)
            return total; /* all sent, or the transport takes nothing now */
    }
}

int msamp_get_stats(struct msamp_stats *out)
{
    if (out == NULL)
        return MSAMP_ERR_INVAL;
    msamp_port_lock_t key = msamp_port_lock();
    uint32_t reentrant = 0;
    for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++)
        if (g.contexts[i] != NULL)
            reentrant += g.contexts[i]->reentrant;
    out->samples = g.samples;
    out->frees = g.frees;
    out->ring_records = g.ring_records;
    out->ring_bytes = g.ring_bytes;
    out->live_full = g.live_full;
    out->stack_full = g.stack_full;
    out->reentrant = reentrant;
    out->truncated = g.truncated;
    out->live_used = msamp_heapdump.live_used;
    out->live_capacity = MSAMP_CFG_LIVE_CAPACITY;
    out->stacks_used = msamp_heapdump.stacks_used;
    out->stack_capacity = MSAMP_CFG_STACK_CAPACITY - 1u;
    out->frames_used = msamp_heapdump.frames_used;
    out->frame_capacity = MSAMP_CFG_FRAME_POOL;
    out->ring_used = msamp_ring_used(&g.ring);
    out->ring_size = MSAMP_CFG_RING_SIZE;
    out->interval = atomic_load_explicit(&g.interval, memory_order_relaxed);
    out->enabled = atomic_load_explicit(&g.enabled, memory_order_relaxed);
    msamp_port_unlock(key);
    return MSAMP_OK;
}
