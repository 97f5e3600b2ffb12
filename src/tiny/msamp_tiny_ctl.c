/* The tiny profile's control and statistics API: an archive member of its own, linked only by a
 * firmware that calls one of these. */
#include "msamp_tiny.h"

#define T msamp_tiny

void msamp_context_detach(struct msamp_context *c)
{
    msamp_port_lock_t key = msamp_port_lock();
    for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++)
        if (T.ctx[i] == c)
            T.ctx[i] = NULL;
    c->index = 0;
    msamp_port_unlock(key);
}

static int set_enabled(uint8_t on)
{
    if (!T.initialised)
        return MSAMP_ERR_STATE;
    msamp_port_lock_t key = msamp_port_lock();
    atomic_store_explicit(&T.enabled, on, memory_order_relaxed);
    msamp_tiny_broadcast();
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
    if (!T.initialised)
        return MSAMP_ERR_STATE;
    msamp_port_lock_t key = msamp_port_lock();
    msamp_tiny_open();
    uintptr_t v[2] = {interval, 0};
    v[1] = msamp_tiny_stamp();
    msamp_tiny_rec(MSAMP_REC_INTERVAL, v, 2, NULL, 0);
    int rc = MSAMP_ERR_BUSY;
    if (msamp_tiny_close(0) == 0) {
        atomic_store_explicit(&T.interval, interval, memory_order_relaxed);
        msamp_tiny_broadcast();
        rc = MSAMP_OK;
    }
    msamp_port_unlock(key);
    return rc;
}

int msamp_snapshot(void)
{
    return T.initialised ? MSAMP_ERR_UNSUPPORTED : MSAMP_ERR_STATE;
}

#define MAX_MARK 64u

int msamp_mark(const char *text, size_t len)
{
    if (text == NULL || len > MAX_MARK)
        return MSAMP_ERR_INVAL;
    if (!T.initialised)
        return MSAMP_ERR_STATE;
    msamp_port_lock_t key = msamp_port_lock();
    msamp_tiny_open();
    msamp_tiny_rec(MSAMP_REC_MARK, NULL, 0, (const uint8_t *)text, (uint32_t)len);
    int rc = msamp_tiny_close(0) == 0 ? MSAMP_OK : MSAMP_ERR_BUSY;
    msamp_port_unlock(key);
    return rc;
}

int msamp_get_stats(struct msamp_stats *out)
{
    if (out == NULL)
        return MSAMP_ERR_INVAL;
    msamp_port_lock_t key = msamp_port_lock();
    *out = (struct msamp_stats){
        .samples = T.samples,
        .frees = T.frees,
        .ring_records = T.count[MSAMP_TINY_RING_RECORDS],
        .ring_bytes = T.count[MSAMP_TINY_RING_BYTES],
        .live_full = T.count[MSAMP_TINY_LIVE_FULL],
        .stack_full = T.count[MSAMP_TINY_STACK_FULL],
        .reentrant = msamp_tiny_reentrant(),
        .truncated = T.count[MSAMP_TINY_TRUNCATED],
        .live_used = T.live_used,
        .live_capacity = MSAMP_CFG_LIVE_CAPACITY,
        .stacks_used = T.stacks_used,
        .stack_capacity = MSAMP_CFG_STACK_CAPACITY - 1u,
        .ring_used = atomic_load_explicit(&T.head, memory_order_relaxed) -
                     atomic_load_explicit(&T.tail, memory_order_relaxed),
        .ring_size = MSAMP_CFG_RING_SIZE,
        .interval = atomic_load_explicit(&T.interval, memory_order_relaxed),
        .enabled = atomic_load_explicit(&T.enabled, memory_order_relaxed),
    };
    msamp_port_unlock(key);
    return MSAMP_OK;
}
