/* msamp_init, msamp_poll, msamp_flush and msamp_end: what every firmware calls. The control API is in
 * msamp_control.c, an archive member of its own. */
#include "msamp_internal.h"

#define G msamp_core

int msamp_init(const struct msamp_config *cfg)
{
    if (G.initialised)
        return MSAMP_ERR_STATE;
    uint64_t hz = msamp_port_time_hz();
    if (hz == 0)
        return MSAMP_ERR_INVAL;
    /* The configuration's fields, 0 (each one's default) without one: the ones a build does not
     * read fold away, where a zeroed struct to point at would be 32 bytes of constants. */
    uint32_t interval = 0, lo = 0, max = 0, resend_ms = 0;
    uint64_t seed = 0;
    uint8_t pin = 0, start_disabled = 0;
    const char *device_id = NULL;
    if (cfg != NULL) {
        interval = cfg->interval, lo = cfg->interval_min, max = cfg->interval_max;
        resend_ms = cfg->resend_ms, seed = cfg->seed, pin = cfg->pin_interval;
        start_disabled = cfg->start_disabled, device_id = cfg->device_id;
    }
    (void)resend_ms, (void)device_id; /* read where the build has snapshots, a device_id field */
    if (interval == 0)
        interval = MSAMP_CFG_DEFAULT_INTERVAL;
    if (lo == 0)
        lo = interval;
    uint32_t hi = max != 0 ? max : MSAMP_CFG_INTERVAL_MAX;
    if (max == 0 && hi < interval)
        hi = interval;
    if (!MSAMP_CFG_ADAPTIVE || pin)
        lo = hi = interval; /* pinned */
    if (lo > hi || interval < lo || interval > hi)
        return MSAMP_ERR_INVAL;
    if (msamp_transport_init() < 0)
        return MSAMP_ERR_IO;
    uint32_t previous = msamp_table_previous(); /* the previous boot's id, before it is rewritten */
    msamp_keep_replay(); /* the previous boot's session, kept across its reset, goes first */
#if MSAMP_CFG_HEAP_STATS
    struct msamp_heap_stats heap;
    msamp_heap_read(&heap); /* outside the lock: the allocator may take its own */
#endif

    msamp_port_lock_t key = msamp_port_lock();
    int rc = msamp_table_reset();
    if (rc != MSAMP_OK) {
        msamp_port_unlock(key);
        return rc;
    }
#if MSAMP_CFG_TASK_BUDGETS
    msamp_budget_reset();
#endif
    G.interval_min = lo;
    G.interval_max = hi;
    while (hz > MSAMP_CFG_TIME_HZ) {
        hz >>= 1;
        G.shift++;
    }
#if !MSAMP_CFG_TINY
    G.device_id = device_id;
#endif
    /* The port's entropy (the clock; a board's boot counter), the device's id and the previous
     * boot's session id (.noinit.msamp: warm boots without entropy draw different ids). */
    uint64_t entropy = msamp_device_entropy(msamp_port_entropy()) +
                       (uint64_t)previous * 0x9E3779B97F4A7C15u;
    if (seed == 0)
        seed = msamp_rng_seed(entropy);
    G.seed = (__typeof__(G.seed))seed; /* the tiny profile keeps its low 32 bits */
    uint32_t session_id = (uint32_t)msamp_rng_seed(entropy ^ G.seed ^ (uint64_t)(uintptr_t)&G);
    G.session_id = session_id;
    atomic_store_explicit(&G.interval, interval, memory_order_relaxed);
    G.sent = UINT32_MAX; /* the first msamp_poll() sends the counters, zeros included */
#if MSAMP_CFG_SNAPSHOTS
    if (resend_ms == 0)
        resend_ms = MSAMP_CFG_RESEND_MS;
    G.resend_ticks = (uint64_t)hz * resend_ms / 1000u;
    if (G.resend_ticks == 0)
        G.resend_ticks = 1;
    G.resend_seq = 1;
    G.pass = 1;
#endif

    /* The boot header: a delimiter (ends a frame a reset cut short, so the boot frame is read
     * whole), SESSION with resend_seq 0, the mappings, the clock. */
    msamp_writer_boot();
#if MSAMP_CFG_HEAP_STATS
    G.heap_step = 0; /* a new baseline */
    msamp_heap_note(&heap);
#endif
    msamp_put_identity(session_id, 0);
    msamp_put_clock();
#if MSAMP_CFG_SNAPSHOTS
    G.next_resend = G.w.ts + G.resend_ticks;
#endif
    if (MSAMP_CFG_ADAPTIVE)
        G.changed_at = (uint32_t)G.w.ts; /* the adaptive interval's clock */
    msamp_table_describe(session_id, interval, (uint32_t)hz);
    msamp_keep_start(session_id);

    atomic_store_explicit(&G.enabled, start_disabled ? 0 : 1, memory_order_relaxed);
    G.initialised = 1;
    msamp_reseed();
    msamp_broadcast();
    msamp_port_unlock(key);
    return MSAMP_OK;
}

int msamp_poll(void)
{
    if (!G.initialised)
        return MSAMP_ERR_STATE;
    if (G.initialised == MSAMP_ENDED)
        return msamp_ring_drain();
#if MSAMP_CFG_CONTROL
    msamp_command_poll(); /* outside the lock: a command takes it as the API call does */
#endif
#if MSAMP_CFG_HEAP_STATS
    struct msamp_heap_stats heap;
    int heap_due = msamp_heap_due();
    if (heap_due)
        msamp_heap_read(&heap);
#endif
    msamp_port_lock_t key = msamp_port_lock();
#if MSAMP_CFG_HEAP_STATS
    if (heap_due)
        msamp_heap_note(&heap); /* before the duties: a new low asks for the pass they start */
    msamp_heap_plan();
#endif
    msamp_report_duties();
#if MSAMP_CFG_TASK_BUDGETS
    msamp_budget_poll();
#endif
    msamp_keep_update();
    msamp_writer_close();
    msamp_port_unlock(key);
    return msamp_ring_drain();
}

/* Polls (duties) until the ring is out; after END (duties 0) only the ring's records go out, so
 * no duty (a pass going on, an identity) follows the stream's last record. */
static int msamp_flush_(int duties)
{
    if (!G.initialised)
        return MSAMP_ERR_STATE;
    int total = 0;
    for (;;) {
        int n = duties ? msamp_poll() : msamp_ring_drain();
        if (n < 0)
            return n;
        total += n;
#if MSAMP_CFG_TASK_BUDGETS
        if (n != 0 && msamp_ring_empty() && msamp_budget_due())
            continue; /* a TASK_BUDGET record the full ring refused: the next poll writes it */
#endif
        if (n == 0 || msamp_ring_empty()) /* all sent, or the transport takes nothing now */
            return msamp_transport_flush() < 0 ? MSAMP_ERR_IO : total;
    }
}

int msamp_flush(void)
{
    return msamp_flush_(1);
}

int msamp_end(void)
{
    if (G.initialised == MSAMP_ENDED)
        return msamp_flush_(0); /* END is written: the rest of the ring */
    int rc = msamp_flush(); /* room for END, and the records before it out first */
    if (rc < 0)
        return rc;
#if MSAMP_CFG_HEAP_STATS
    struct msamp_heap_stats heap;
    msamp_heap_read(&heap); /* the heap as the session ends, whatever MSAMP_CFG_HEAP_POLL_MS */
#endif
    msamp_port_lock_t key = msamp_port_lock();
#if MSAMP_CFG_HEAP_STATS
    msamp_heap_note(&heap);
#endif
    atomic_store_explicit(&G.enabled, 0, memory_order_relaxed); /* nothing sampled after END */
    msamp_keep_end();
    struct msamp_writer ev;
    msamp_event_begin(&ev);
#if MSAMP_CFG_HEAP_STATS
    msamp_heap_put(MSAMP_HEAP_END); /* as the flush's last poll read it */
#endif
    msamp_rec_end(G.samples, G.frees, G.count[MSAMP_DROP_RING_RECORDS]);
    rc = msamp_event_end(&ev, 0);
    msamp_writer_close();
    if (rc == 0)
        G.initialised = MSAMP_ENDED;
    msamp_port_unlock(key);
    return rc != 0 ? MSAMP_ERR_BUSY : msamp_flush_(0);
}
