/* The control and statistics API (msamp.h), and msamp_context_detach for ports: an archive member
 * of its own, linked only by a program that calls one of these. */
#include "msamp_internal.h"

#define G msamp_core

void msamp_context_detach(struct msamp_context *c)
{
    msamp_port_lock_t key = msamp_port_lock();
    for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++)
        if (G.ctx[i] == c)
            G.ctx[i] = NULL;
    c->index = 0;
    msamp_port_unlock(key);
}

static int set_enabled(uint8_t on)
{
    if (G.initialised != 1) /* before msamp_init, or after END */
        return MSAMP_ERR_STATE;
    msamp_port_lock_t key = msamp_port_lock();
    atomic_store_explicit(&G.enabled, on, memory_order_relaxed);
    msamp_broadcast();
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

/* Under the lock: the interval in force becomes `interval` (an INTERVAL record of reason SET). */
static int set_locked(uint32_t interval)
{
    if (interval == atomic_load_explicit(&G.interval, memory_order_relaxed))
        return MSAMP_OK;
    msamp_adapt_settle_all(); /* no entry stays pending across a change by hand */
    return msamp_adapt_change(interval, MSAMP_INTERVAL_SET) ? MSAMP_OK : MSAMP_ERR_BUSY;
}

int msamp_set_interval(uint32_t interval)
{
    if (interval == 0)
        return MSAMP_ERR_INVAL;
    if (G.initialised != 1) /* before msamp_init, or after END */
        return MSAMP_ERR_STATE;
    msamp_port_lock_t key = msamp_port_lock();
    int rc = set_locked(interval);
    if (rc == MSAMP_OK && G.interval_min == G.interval_max)
        G.interval_min = G.interval_max = interval; /* pinned: stays pinned, here */
    msamp_port_unlock(key);
    return rc;
}

int msamp_set_interval_bounds(uint32_t min, uint32_t max)
{
    if (min == 0 || min > max)
        return MSAMP_ERR_INVAL;
    if (!MSAMP_CFG_ADAPTIVE && min != max)
        return MSAMP_ERR_UNSUPPORTED; /* the interval stays pinned */
    if (G.initialised != 1) /* before msamp_init, or after END */
        return MSAMP_ERR_STATE;
    msamp_port_lock_t key = msamp_port_lock();
    G.interval_min = min;
    G.interval_max = max;
    int rc = MSAMP_OK;
    if (min == max) /* pinned: at once */
        rc = set_locked(min);
    msamp_port_unlock(key);
    return rc;
}

int msamp_snapshot(void)
{
    if (G.initialised != 1) /* before msamp_init, or after END */
        return MSAMP_ERR_STATE;
#if MSAMP_CFG_SNAPSHOTS
    msamp_port_lock_t key = msamp_port_lock();
    G.snap_requested = 1;
    msamp_port_unlock(key);
    return MSAMP_OK;
#else
    return MSAMP_ERR_UNSUPPORTED;
#endif
}

int msamp_mark(const char *text, size_t len)
{
    if (text == NULL || len > MSAMP_WIRE_MAX_MARK)
        return MSAMP_ERR_INVAL;
    if (G.initialised != 1) /* before msamp_init, or after END */
        return MSAMP_ERR_STATE;
    struct msamp_bytes f = {text, (uint32_t)len};
    struct msamp_writer ev;
    msamp_port_lock_t key = msamp_port_lock();
    msamp_event_begin(&ev);
    msamp_event_record(MSAMP_REC_MARK, msamp_layout_bytes, &f);
    int rc = msamp_event_end(&ev, 0) == 0 ? MSAMP_OK : MSAMP_ERR_BUSY;
    msamp_port_unlock(key);
    return rc;
}

int msamp_get_stats(struct msamp_stats *out)
{
    if (out == NULL)
        return MSAMP_ERR_INVAL;
    msamp_port_lock_t key = msamp_port_lock();
    *out = (struct msamp_stats){
        .samples = G.samples,
        .frees = G.frees,
        .ring_records = G.count[MSAMP_DROP_RING_RECORDS],
        .ring_bytes = G.count[MSAMP_DROP_RING_BYTES],
        .live_full = G.count[MSAMP_DROP_LIVE_FULL],
        .stack_full = G.count[MSAMP_DROP_STACK_FULL],
        .reentrant = msamp_reentrant(),
        .truncated = G.count[MSAMP_DROP_TRUNCATED],
        .no_frame = G.count[MSAMP_DROP_NO_FRAME],
#if !MSAMP_CFG_TINY
        .out_of_bounds = G.count[MSAMP_DROP_OUT_OF_BOUNDS],
#endif
        .failed = G.failed[MSAMP_FAIL_NULL],
        .refused = G.failed[MSAMP_FAIL_GIANT],
        .live_used = msamp_live_used(),
        .live_capacity = MSAMP_LIVE_CAP,
        .stacks_used = msamp_stacks_used(),
        .stack_capacity = MSAMP_STACK_CAP - 1u,
        .frames_used = msamp_frames_used(),
        .frame_capacity = !MSAMP_CFG_COMPACT_TABLES ? MSAMP_FRAME_CAP : 0u,
        .ring_used = msamp_ring_used(),
        .ring_size = MSAMP_CFG_RING_SIZE,
        .interval = atomic_load_explicit(&G.interval, memory_order_relaxed),
        .interval_min = G.interval_min,
        .interval_max = G.interval_max,
        .raises = G.raises,
        .lowers = G.lowers,
        .thinned = G.thinned,
        .stacks_evicted = msamp_stacks_evicted(),
        .enabled = atomic_load_explicit(&G.enabled, memory_order_relaxed),
    };
    msamp_port_unlock(key);
#if MSAMP_CFG_CONTROL
    msamp_command_counts(&out->commands, &out->commands_repeated, &out->commands_bad,
                         &out->commands_refused);
#endif
    return MSAMP_OK;
}
